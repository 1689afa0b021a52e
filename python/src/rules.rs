//! `kalah.Rules`: every rule switch of the command line, validated as `kalah` validates it.
//!
//! A `Rules` may leave the seeds a pit open (`seeds=None`): a position made with it then
//! names the game whose seeds it holds, as `kalah --position P` without `--seeds` does, and
//! the start position has 4 a pit. Every other field is fixed when the object is made, and
//! only values the solver's rule builder accepts get that far.

use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString};
use solver::rules::Switch;
use solver::{Capture, Direction, EndRule, OppStore, Remaining, RulesBuilder, RulesError, Sowing};

use crate::errors::bad_input;

/// Pits a side when none is given (`kalah`'s `--pits` default).
pub const DEFAULT_PITS: usize = 6;
/// Seeds a pit at the start when none is given or can be inferred.
pub const DEFAULT_SEEDS: usize = 4;

/// A rule set of Kalah(m, n): the board size and every switch of `kalah`'s rules.
///
/// Invariant: `builder(seeds)` builds for every `seeds` in `1..=12`: the pits and the
/// switches were checked when it was made.
#[pyclass(frozen, eq, hash, module = "kalah")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub pits: usize,
    /// `None`: inferred from a position's seeds, or [`DEFAULT_SEEDS`] for the start.
    pub seeds: Option<usize>,
    pub capture: Capture,
    pub sowing: Sowing,
    pub direction: Direction,
    pub opp_store: OppStore,
    pub end: EndRule,
    pub remaining: Remaining,
    pub pie: bool,
}

/// A whole-number argument, refused with the rule builder's message when it is out of
/// range (negative, or too large for the machine): `what` makes that message.
fn count(arg: &Bound<'_, PyAny>, what: impl Fn(String) -> String) -> PyResult<usize> {
    match arg.extract::<i64>() {
        Ok(n) => usize::try_from(n).map_err(|_| bad_input(what(n.to_string()))),
        Err(_) if arg.is_instance_of::<PyInt>() => Err(bad_input(what(arg.str()?.to_string()))),
        Err(e) => Err(e),
    }
}

/// A switch's value from its spelling (any case), refused with the solver's message
/// listing the accepted spellings.
fn switch<T: Switch + PartialEq>(arg: &Bound<'_, PyAny>) -> PyResult<T> {
    let text = arg.cast::<PyString>()?.to_cow()?;
    T::parse(&text).map_err(bad_input)
}

impl Rules {
    /// The rule builder of these rules on a board of `pits` a side, with `seeds` a pit.
    pub fn builder_with(&self, pits: usize, seeds: usize) -> RulesBuilder {
        let mut b = RulesBuilder::new(pits, seeds);
        b.capture = Some(self.capture);
        b.sowing = self.sowing;
        b.direction = self.direction;
        b.opp_store = self.opp_store;
        b.end = self.end;
        b.remaining = self.remaining;
        b.pie = self.pie;
        b
    }

    /// The solver's rules, the seeds a pit [`DEFAULT_SEEDS`] where they are open.
    pub fn resolved(&self) -> Result<solver::Rules, RulesError> {
        self.builder_with(self.pits, self.seeds.unwrap_or(DEFAULT_SEEDS))
            .build()
    }

    /// The Python rules of solver rules (their seeds a pit fixed).
    pub fn of(r: &solver::Rules) -> Rules {
        Rules::from_solver(r, Some(usize::from(r.seeds())))
    }

    /// The Python rules of solver rules with `seeds` a pit (`None`: open).
    pub fn from_solver(r: &solver::Rules, seeds: Option<usize>) -> Rules {
        Rules {
            pits: r.pits(),
            seeds,
            capture: r.capture,
            sowing: r.sowing,
            direction: r.direction,
            opp_store: r.opp_store,
            end: r.end,
            remaining: r.remaining,
            pie: r.pie,
        }
    }
}

#[pymethods]
impl Rules {
    /// Rules(pits=6, seeds=None, capture=None, sowing="single", direction="ccw",
    /// opp_store="skip", end="either", remaining="owner", pie=False)
    ///
    /// The switches and their spellings are `kalah`'s (`kalah --help`); a value it would
    /// refuse raises ValueError with its message. `capture` defaults to "standard", or
    /// "none" with `sowing="relay"`. `seeds=None` leaves the seeds a pit to the position:
    /// a position made with these rules names the game whose seeds it holds, and the
    /// start has 4 a pit.
    #[new]
    #[pyo3(signature = (pits=None, seeds=None, capture=None, sowing=None, direction=None,
        opp_store=None, end=None, remaining=None, pie=false),
        text_signature = "(pits=6, seeds=None, capture=None, sowing='single', \
        direction='ccw', opp_store='skip', end='either', remaining='owner', pie=False)")]
    #[allow(clippy::too_many_arguments)]
    fn new(
        pits: Option<&Bound<'_, PyAny>>,
        seeds: Option<&Bound<'_, PyAny>>,
        capture: Option<&Bound<'_, PyAny>>,
        sowing: Option<&Bound<'_, PyAny>>,
        direction: Option<&Bound<'_, PyAny>>,
        opp_store: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        remaining: Option<&Bound<'_, PyAny>>,
        pie: bool,
    ) -> PyResult<Rules> {
        let max_pits = solver::rules::MAX_PITS;
        let pits = pits
            .map(|p| {
                count(p, |got| {
                    format!("pits a side must be 1 to {max_pits}, got {got}")
                })
            })
            .transpose()?
            .unwrap_or(DEFAULT_PITS);
        let max_seeds = solver::rules::MAX_SEEDS_PER_PIT;
        let seeds = seeds
            .map(|s| {
                count(s, |got| {
                    format!("seeds a pit must be 1 to {max_seeds}, got {got}")
                })
            })
            .transpose()?;
        let mut b = RulesBuilder::new(pits, seeds.unwrap_or(DEFAULT_SEEDS));
        b.capture = capture.map(switch).transpose()?;
        if let Some(v) = sowing {
            b.sowing = switch(v)?;
        }
        if let Some(v) = direction {
            b.direction = switch(v)?;
        }
        if let Some(v) = opp_store {
            b.opp_store = switch(v)?;
        }
        if let Some(v) = end {
            b.end = switch(v)?;
        }
        if let Some(v) = remaining {
            b.remaining = switch(v)?;
        }
        b.pie = pie;
        let r = b.build().map_err(bad_input)?;
        Ok(Rules::from_solver(&r, seeds))
    }

    /// Pits a side (m).
    #[getter]
    fn pits(&self) -> usize {
        self.pits
    }

    /// Seeds a pit at the start (n), or None where a position's seeds decide it.
    #[getter]
    fn seeds(&self) -> Option<usize> {
        self.seeds
    }

    /// "standard", "empty" or "none".
    #[getter]
    fn capture(&self) -> &'static str {
        self.capture.name()
    }

    /// "single" or "relay".
    #[getter]
    fn sowing(&self) -> &'static str {
        self.sowing.name()
    }

    /// "ccw" or "cw".
    #[getter]
    fn direction(&self) -> &'static str {
        self.direction.name()
    }

    /// "skip" or "sow".
    #[getter]
    fn opp_store(&self) -> &'static str {
        self.opp_store.name()
    }

    /// "either" or "mover".
    #[getter]
    fn end(&self) -> &'static str {
        self.end.name()
    }

    /// "owner", "emptier" or "discard".
    #[getter]
    fn remaining(&self) -> &'static str {
        self.remaining.name()
    }

    /// Whether the pie rule holds: after the first turn the second player may swap sides.
    #[getter]
    fn pie(&self) -> bool {
        self.pie
    }

    /// Whether play can repeat a position (clockwise sowing): such rules are solved by
    /// retrograde analysis of every board up to the seeds in play, not by search.
    #[getter]
    fn can_cycle(&self) -> bool {
        self.direction == Direction::Cw
    }

    fn __repr__(&self) -> String {
        self.repr()
    }

    /// The rules as `kalah` prints them: `Kalah(6,4) capture=standard sowing=single ...`
    /// (`Kalah(6,n)` while the seeds a pit are open).
    fn __str__(&self) -> String {
        match self.resolved() {
            Ok(r) if self.seeds.is_some() => r.to_string(),
            Ok(r) => r.to_string().replacen(
                &format!("Kalah({},{})", r.pits(), r.seeds()),
                &format!("Kalah({},n)", r.pits()),
                1,
            ),
            Err(e) => e.to_string(),
        }
    }
}

impl Rules {
    /// The constructor call that makes these rules.
    pub fn repr(&self) -> String {
        let seeds = self.seeds.map_or("None".to_string(), |s| s.to_string());
        format!(
            "Rules(pits={}, seeds={seeds}, capture='{}', sowing='{}', direction='{}', \
             opp_store='{}', end='{}', remaining='{}', pie={})",
            self.pits,
            self.capture.name(),
            self.sowing.name(),
            self.direction.name(),
            self.opp_store.name(),
            self.end.name(),
            self.remaining.name(),
            if self.pie { "True" } else { "False" }
        )
    }
}
