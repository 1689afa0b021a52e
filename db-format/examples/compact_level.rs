//! Writes one level file (either format) as a compact file with chosen block and slot
//! sizes and prints its size, split into the slots and the continuations, the share of
//! blocks that overflow their slots (a second read for a probe), and the time the
//! writer's two passes took; then checks the file written: its checksum and every block
//! ([`LevelFile::verify`]), and every entry against the source's, in rank order. What
//! results/db.md, "Compact files (format version 2)", reports.
//!
//! ```text
//! cargo run --release -p db-format --example compact_level -- SRC.kdb OUT.kdb [BLOCK_SHIFT SLOT_SHIFT]
//! ```
//!
//! `BLOCK_SHIFT` 5 and `SLOT_SHIFT` 4 (blocks of 32 entries in slots of 16 bytes) are the
//! default. OUT is overwritten.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use db_format::{write_compact_to, CompactOptions, DbError, LevelFile, LevelSource};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: compact_level SRC.kdb OUT.kdb [BLOCK_SHIFT SLOT_SHIFT]";
    if args.len() != 2 && args.len() != 4 {
        eprintln!("{usage}");
        return ExitCode::from(2);
    }
    let mut options = CompactOptions::default();
    if args.len() == 4 {
        match (args[2].parse(), args[3].parse()) {
            (Ok(b), Ok(s)) => {
                options.block_shift = b;
                options.slot_shift = s;
            }
            _ => {
                eprintln!("{usage}");
                return ExitCode::from(2);
            }
        }
    }
    let (src, out) = (PathBuf::from(&args[0]), PathBuf::from(&args[1]));
    let f = match LevelFile::open_any(&src) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let t0 = Instant::now();
    let mut source = &f;
    if let Err(e) = write_compact_to(&out, &f.rules(), f.seeds(), &mut source, options) {
        eprintln!("{e}");
        return ExitCode::FAILURE;
    }
    let secs = t0.elapsed().as_secs_f64();
    let g = match LevelFile::open_any(&out) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let n = g.len() as f64;
    let len = g.header().file_len().unwrap_or(0);
    let Some(code) = g.compact() else {
        eprintln!("{}: not a compact file", out.display());
        return ExitCode::FAILURE;
    };
    let l = code.layout();
    let slot = 1u64 << options.slot_shift;
    let payload = g.payload();
    let over = (0..l.blocks)
        .filter(|b| payload[(l.slots_at + b * slot) as usize] & 0x80 != 0)
        .count() as f64;
    let bits = |bytes: u64| bytes as f64 * 8.0 / n;
    println!(
        "level {:3}  B={:<2} S={:<2} entries {:>11}  bytes {:>11}  {:.4} byte/entry  \
         bits/entry: slots {:.3} continuations {:.3} table+header {:.5}  \
         overflowing blocks {:.1}%  {:.1} s ({:.1} M entries/s, two passes)",
        g.seeds(),
        1u32 << options.block_shift,
        slot,
        g.len(),
        len,
        len as f64 / n,
        bits(l.overflow_at - l.slots_at),
        bits(l.len - l.overflow_at),
        bits(l.slots_at + 64),
        100.0 * over / l.blocks as f64,
        secs,
        n / secs / 1e6
    );
    let t1 = Instant::now();
    if let Err(e) = g.verify().and_then(|()| same_entries(&f, &g)) {
        eprintln!("{}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    println!(
        "level {:3}  verified: checksum, every block, every entry equal to the source's ({:.1} s)",
        g.seeds(),
        t1.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

/// `Ok` when `a` and `b` hold the same entries in rank order (both read as a writer reads
/// them, `b` in runs of whole blocks).
fn same_entries(a: &LevelFile, b: &LevelFile) -> Result<(), DbError> {
    let mut rank = 0u64;
    let mut want = Vec::new();
    let mut src = b;
    // `a` is read in its own runs into `want` one run of `b` at a time: `a`'s runs are
    // slices of its map (version 1) or whole blocks (version 2).
    let mut a_runs = ARuns::new(a);
    src.read_runs(&mut |run| {
        want.clear();
        a_runs.take(run.len(), &mut want)?;
        if let Some(i) = run.iter().zip(&want).position(|(x, y)| x != y) {
            return Err(DbError::SourceChanged {
                what: format!("entry {} differs from the source's", rank + i as u64),
            });
        }
        rank += run.len() as u64;
        Ok(())
    })
}

/// The entries of a level file handed out in pieces of any length, in rank order.
struct ARuns<'a> {
    file: &'a LevelFile,
    next: u64,
}

impl<'a> ARuns<'a> {
    fn new(file: &'a LevelFile) -> ARuns<'a> {
        ARuns { file, next: 0 }
    }

    /// Appends the next `n` entries to `out`.
    fn take(&mut self, n: usize, out: &mut Vec<i8>) -> Result<(), DbError> {
        match self.file.values() {
            Some(v) => {
                let at = self.next as usize;
                let piece = v.get(at..at + n).ok_or(DbError::EntryCountMismatch {
                    expected: v.len() as u64,
                    actual: (at + n) as u64,
                })?;
                out.extend_from_slice(piece);
            }
            None => {
                for r in self.next..self.next + n as u64 {
                    out.push(self.file.try_get(r).ok_or(DbError::EntryCountMismatch {
                        expected: self.file.len(),
                        actual: r + 1,
                    })?);
                }
            }
        }
        self.next += n as u64;
        Ok(())
    }
}
