//! The results of a proof: fixed-size, checksummed records appended to one file a worker.
//!
//! Each worker process appends to a file of its own (`results/<worker>.kpr`), so no two
//! processes ever write the same file and no append needs a lock, on one machine or on
//! many sharing the directory. A record is written and synced ([`Journal::append`])
//! before its unit counts as done; a process killed at any instant leaves at most one
//! torn record, at the end of its own file.
//!
//! # Record layout (64 bytes, all integers little-endian)
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `KPR2` (format version 2) |
//! | 4 | 4 | kind (u32): 0 an answer, 1 a split (see below) |
//! | 8 | 8 | proof id: xxh3-64 of the manifest (rules, root position, depth, guess) |
//! | 16 | 16 | the unit's board ([`crate::Board::key`]), from its mover's side: the unit's identity |
//! | 32 | 2 | question: is the board's value (future net gain) at least `beta`? (i16) |
//! | 34 | 2 | answer: the fail-soft bound returned (i16): `>= beta` proves value >= it, else value <= it; 0 in a split |
//! | 36 | 4 | wall-clock milliseconds the test took (u32) |
//! | 40 | 8 | nodes searched (u64) |
//! | 48 | 4 | search threads (u32) |
//! | 52 | 4 | CPU milliseconds of the worker process during the test, all its threads (u32) |
//! | 56 | 8 | xxh3-64 of bytes 0..56 |
//!
//! A *split* records a unit whose search ran past the worker's time budget and was
//! stopped: it proves nothing about the value, but from then on the board is an interior
//! node of the front end, expanded one ply (see [`super::tree::FrontEnd::expand`]), and
//! its moves are the units. Its time and nodes are the work spent on it, lost but for
//! the transposition table it left behind. Records name boards, not positions in the
//! tree, because a split renumbers the leaves.
//!
//! # Reading
//!
//! A file is read whole: a record whose magic or checksum is wrong, or that does not
//! belong to this proof, is an error ([`JournalError`]) wherever it lies except at the
//! very end, where a short or unreadable last record is the torn write of a killed
//! process: it is dropped with a warning, and its unit is solved again.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

/// Bytes a record.
pub const RECORD_BYTES: usize = 64;

const MAGIC: [u8; 4] = *b"KPR2";

/// The extension of result files.
pub const EXTENSION: &str = "kpr";

/// What a record says of its board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The question was answered: `result` is a fail-soft bound.
    Answer,
    /// The search was stopped at the budget: the board is expanded one ply.
    Split,
}

impl Kind {
    fn code(self) -> u32 {
        match self {
            Kind::Answer => 0,
            Kind::Split => 1,
        }
    }

    fn from_code(c: u32) -> Option<Kind> {
        match c {
            0 => Some(Kind::Answer),
            1 => Some(Kind::Split),
            _ => None,
        }
    }
}

/// One finished unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub kind: Kind,
    pub proof_id: u64,
    pub board_key: u128,
    pub beta: i16,
    pub result: i16,
    pub millis: u32,
    pub nodes: u64,
    pub threads: u32,
    pub cpu_millis: u32,
}

impl Record {
    pub fn encode(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[0..4].copy_from_slice(&MAGIC);
        b[4..8].copy_from_slice(&self.kind.code().to_le_bytes());
        b[8..16].copy_from_slice(&self.proof_id.to_le_bytes());
        b[16..32].copy_from_slice(&self.board_key.to_le_bytes());
        b[32..34].copy_from_slice(&self.beta.to_le_bytes());
        b[34..36].copy_from_slice(&self.result.to_le_bytes());
        b[36..40].copy_from_slice(&self.millis.to_le_bytes());
        b[40..48].copy_from_slice(&self.nodes.to_le_bytes());
        b[48..52].copy_from_slice(&self.threads.to_le_bytes());
        b[52..56].copy_from_slice(&self.cpu_millis.to_le_bytes());
        let sum = xxh3_64(&b[..56]);
        b[56..64].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// The record in `b`, or why it is not one.
    pub fn decode(b: &[u8; RECORD_BYTES]) -> Result<Record, &'static str> {
        if b[0..4] != MAGIC {
            return Err("bad magic (not a record of format KPR2)");
        }
        let le8 = |r: std::ops::Range<usize>| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[r]);
            u64::from_le_bytes(a)
        };
        if xxh3_64(&b[..56]) != le8(56..64) {
            return Err("checksum mismatch");
        }
        let le4 = |r: std::ops::Range<usize>| {
            let mut a = [0u8; 4];
            a.copy_from_slice(&b[r]);
            u32::from_le_bytes(a)
        };
        let le2 = |at: usize| i16::from_le_bytes([b[at], b[at + 1]]);
        let mut key = [0u8; 16];
        key.copy_from_slice(&b[16..32]);
        let kind = Kind::from_code(le4(4..8)).ok_or("unknown record kind")?;
        Ok(Record {
            kind,
            proof_id: le8(8..16),
            board_key: u128::from_le_bytes(key),
            beta: le2(32),
            result: le2(34),
            millis: le4(36..40),
            nodes: le8(40..48),
            threads: le4(48..52),
            cpu_millis: le4(52..56),
        })
    }
}

/// The results files in `dir` (by their extension), sorted by name: the order every
/// reader reads them in. A directory that does not exist holds none.
pub fn files_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == EXTENSION))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    files.sort();
    Ok(files)
}

/// Why a results file cannot be trusted.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{}: record {index} (byte {offset}) is corrupt: {reason}; {after} more bytes follow it, \
         so this is not a torn final write. The file was damaged after it was written: \
         restore it from version control (or delete it to solve its units again)",
        path.display()
    )]
    Corrupt {
        path: PathBuf,
        index: u64,
        offset: u64,
        reason: String,
        after: u64,
    },
}

/// A results file read whole.
#[derive(Debug, Default)]
pub struct ReadOut {
    pub records: Vec<Record>,
    /// A torn final record, dropped: a warning to show.
    pub torn: Option<String>,
}

/// Read every record of `path`. Only the last record may be short or unreadable (a torn
/// write): it is dropped and reported in [`ReadOut::torn`]. `check` validates each
/// record's content against the proof (right proof id, known leaf, same board); a record
/// it refuses is as corrupt as a bad checksum.
pub fn read(
    path: &Path,
    check: impl Fn(&Record) -> Result<(), String>,
) -> Result<ReadOut, JournalError> {
    let bytes = read_regular(path).map_err(|source| JournalError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = ReadOut::default();
    let whole = bytes.len() / RECORD_BYTES;
    for i in 0..whole {
        let at = i * RECORD_BYTES;
        let mut rec = [0u8; RECORD_BYTES];
        rec.copy_from_slice(&bytes[at..at + RECORD_BYTES]);
        let decoded = Record::decode(&rec)
            .map_err(str::to_string)
            .and_then(|r| check(&r).map(|()| r));
        match decoded {
            Ok(r) => out.records.push(r),
            Err(reason) => {
                let after = (bytes.len() - at - RECORD_BYTES) as u64;
                if after == 0 {
                    out.torn = Some(format!(
                        "{}: the last record (byte {at}) is unreadable ({reason}): \
                         taken for the torn write of a killed worker and dropped; \
                         its unit will be solved again",
                        path.display()
                    ));
                } else {
                    return Err(JournalError::Corrupt {
                        path: path.to_path_buf(),
                        index: i as u64,
                        offset: at as u64,
                        reason,
                        after,
                    });
                }
            }
        }
    }
    let rest = bytes.len() % RECORD_BYTES;
    if rest != 0 {
        out.torn = Some(format!(
            "{}: {rest} bytes of a torn final record at byte {} (the file is not a whole \
             number of {RECORD_BYTES}-byte records): dropped; its unit will be solved again",
            path.display(),
            whole * RECORD_BYTES
        ));
    }
    Ok(out)
}

/// A worker's own results file, open for appending.
pub struct Journal {
    file: File,
    path: PathBuf,
}

impl Journal {
    /// Create `path` (it must not exist: each worker has a file of its own) and sync its
    /// directory, so that the file itself survives a crash.
    pub fn create(path: &Path) -> std::io::Result<Journal> {
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(path)?;
        if let Some(dir) = path.parent() {
            sync_dir(dir)?;
        }
        Ok(Journal {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Append `r` and sync it to the disk: when this returns, the unit is done.
    pub fn append(&mut self, r: &Record) -> std::io::Result<()> {
        self.file.write_all(&r.encode())?;
        self.file.sync_data()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The bytes of `path` if it is a regular file (links followed). Anything else is an
/// error of kind `InvalidInput` saying what it is, found before the file is opened:
/// opening a named pipe blocks until a writer comes, so a pipe under a proof's file
/// name would hang every worker and `--status`.
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let kind = std::fs::metadata(path)?.file_type();
    if !kind.is_file() {
        #[cfg(unix)]
        let what = {
            use std::os::unix::fs::FileTypeExt;
            if kind.is_fifo() {
                "a named pipe"
            } else if kind.is_dir() {
                "a directory"
            } else {
                "not a regular file"
            }
        };
        #[cfg(not(unix))]
        let what = "not a regular file";
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{what}, where a proof's file was expected"),
        ));
    }
    std::fs::read(path)
}

/// Sync a directory's entries (a new file's name) to the disk.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(i: u32) -> Record {
        Record {
            kind: if i.is_multiple_of(2) {
                Kind::Answer
            } else {
                Kind::Split
            },
            proof_id: 0xfeed + u64::from(i),
            board_key: 0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10,
            beta: -3,
            result: -7,
            millis: 1234,
            nodes: 987_654_321,
            threads: 2,
            cpu_millis: 2400,
        }
    }

    fn ok(_: &Record) -> Result<(), String> {
        Ok(())
    }

    #[test]
    fn a_record_round_trips() {
        let r = rec(42);
        assert_eq!(Record::decode(&r.encode()), Ok(r));
    }

    #[test]
    fn damage_in_the_middle_is_an_error_and_a_torn_tail_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.kpr");
        let mut j = Journal::create(&path).unwrap();
        for i in 0..4 {
            j.append(&rec(i)).unwrap();
        }
        let bytes = std::fs::read(&path).unwrap();
        let got = read(&path, ok).unwrap();
        assert_eq!(got.records.len(), 4);
        assert!(got.torn.is_none());

        // A flipped bit in record 1.
        let mut bad = bytes.clone();
        bad[RECORD_BYTES + 40] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        let e = read(&path, ok).unwrap_err().to_string();
        assert!(e.contains("record 1") && e.contains("checksum"), "{e}");

        // A record of another proof in the middle.
        std::fs::write(&path, &bytes).unwrap();
        let e = read(&path, |r| {
            if r.proof_id == 0xfeed + 2 {
                Err("another proof".into())
            } else {
                Ok(())
            }
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("record 2") && e.contains("another proof"), "{e}");

        // Truncated inside the last record: three records and a warning.
        std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        let got = read(&path, ok).unwrap();
        assert_eq!(got.records, (0..3).map(rec).collect::<Vec<_>>());
        assert!(got.torn.unwrap().contains("torn"));

        // A damaged last record: dropped with a warning.
        let mut bad = bytes.clone();
        let n = bad.len();
        bad[n - 1] ^= 0xff;
        std::fs::write(&path, &bad).unwrap();
        let got = read(&path, ok).unwrap();
        assert_eq!(got.records.len(), 3);
        assert!(got.torn.is_some());
    }
}
