//! What a database read gives: one value as a [`Probe`], many as [`Probes`].
//!
//! `probe_many` answers millions of positions a call, so its answer is one object, not a
//! million: a Python object each would cost more than the reads (each is tracked by the
//! cyclic garbage collector, which then traverses them all again and again while they
//! are made). [`Probes`] holds the values and makes a [`Probe`] only for the element
//! asked for; its `margins` and `gains` are plain lists of ints.

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice};

/// One value read from a database.
#[pyclass(frozen, get_all, eq, module = "kalah")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The final margin, South's store minus North's at the end of perfect play.
    pub margin: i32,
    /// The future net gain of the side to move: what it will still add to its store
    /// minus what the opponent will (the database's own value).
    pub gain: i32,
}

#[pymethods]
impl Probe {
    fn __repr__(&self) -> String {
        format!("Probe(margin={:+}, gain={:+})", self.margin, self.gain)
    }
}

/// The values of `probe_many`, in the order of its positions: a sequence of `Probe`.
#[pyclass(frozen, sequence, module = "kalah")]
pub struct Probes {
    found: Vec<Probe>,
}

impl Probes {
    pub fn new(found: Vec<Probe>) -> Probes {
        Probes { found }
    }
}

#[pymethods]
impl Probes {
    fn __len__(&self) -> usize {
        self.found.len()
    }

    /// The `Probe` of position `index` (negative: from the end), or a list of them for a
    /// slice.
    fn __getitem__<'py>(&self, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = index.py();
        let len = self.found.len() as isize;
        if let Ok(slice) = index.cast::<PySlice>() {
            let s = slice.indices(len)?;
            let picked: Vec<Probe> = (0..s.slicelength)
                .map(|j| self.found[(s.start + j as isize * s.step) as usize])
                .collect();
            return Ok(PyList::new(py, picked)?.into_any());
        }
        let i: isize = index
            .extract()
            .map_err(|_| PyTypeError::new_err("Probes indices must be integers or slices"))?;
        let at = if i < 0 { i + len } else { i };
        if (0..len).contains(&at) {
            Ok(Bound::new(py, self.found[at as usize])?.into_any())
        } else {
            Err(PyIndexError::new_err("Probes index out of range"))
        }
    }

    /// The final margins (South minus North), in order.
    #[getter]
    fn margins(&self) -> Vec<i32> {
        self.found.iter().map(|p| p.margin).collect()
    }

    /// The future net gains of the side to move, in order.
    #[getter]
    fn gains(&self) -> Vec<i32> {
        self.found.iter().map(|p| p.gain).collect()
    }

    fn __repr__(&self) -> String {
        format!("<Probes: {} values>", self.found.len())
    }
}
