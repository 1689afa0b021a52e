//! The verification stamp: which level files of a directory have had their payload
//! checksum verified, and in which state of the file.
//!
//! Why: a flipped byte in a level file decodes to a wrong value, not an impossible one (a
//! compact block sums its symbols modulo `2k + 1`; most bytes of a one-byte file are in
//! range), so the only sure test is the file's checksum, which reads the whole file. A
//! reader therefore checks a file's checksum the first time it opens it and remembers it
//! here; later opens cost a `stat` and a look-up, and a probe costs nothing more.
//!
//! The stamp is the text file [`STAMP_NAME`] in the directory of the level files. A line
//! vouches for a file only while the file is the same: same name, size, modification
//! and status-change times (nanoseconds), device and inode, and the same checksum in its
//! header. Any write to the file changes its status-change time, which no program can set
//! back, and a file renamed over it has another inode, so a changed file is checked again.
//!
//! A file whose modification or status-change time lies less than [`RACY_NS`] before the
//! verification is checked but not recorded (git's "racily clean" rule): a timestamp's
//! granularity can make a write in the same tick invisible, so such a file is checked on
//! every open until it is old enough.
//!
//! Losing the stamp costs only time: a missing, unreadable or damaged stamp vouches for
//! nothing (its last line is the XXH3-64 of the lines before it), and a directory that
//! cannot be written leaves every open to check again. Writers replace the stamp
//! atomically (a temporary file renamed over it); two processes recording at once may
//! lose one's lines, which again costs only a later check.

use std::collections::BTreeMap;
use std::fs::{self, Metadata};
use std::io::Write;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::checksum::checksum;

/// The stamp's file name, in the directory of the level files it vouches for.
pub const STAMP_NAME: &str = "kalah-verified.txt";

/// The first line of a stamp: what it is, and its version.
const FIRST_LINE: &str = "kalah-verified 1";

/// A file changed less than this long (nanoseconds) before its verification is not
/// recorded: 2 seconds, the coarsest timestamp granularity of common file systems (FAT).
pub const RACY_NS: i128 = 2_000_000_000;

/// What tells one state of a file from another without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    /// Length in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
    /// Status-change time (Unix `ctime`), nanoseconds since the Unix epoch; 0 elsewhere.
    pub ctime_ns: i128,
    /// Device of the file system.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
}

impl Identity {
    /// The identity of the file whose metadata is `meta` (of an open handle: `fstat`).
    pub fn of(meta: &Metadata) -> Identity {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
            Identity {
                size: meta.len(),
                mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
                ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
                dev: meta.dev(),
                ino: meta.ino(),
            }
        }
        #[cfg(not(unix))]
        {
            Identity {
                size: meta.len(),
                mtime_ns: meta.modified().map_or(0, |t| since_epoch_ns(t)),
                ctime_ns: 0,
                dev: 0,
                ino: 0,
            }
        }
    }
}

/// Nanoseconds from the Unix epoch to `t` (negative before it).
fn since_epoch_ns(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// One file's line: its identity and checksum when verified, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Line {
    id: Identity,
    checksum: u64,
    verified_ns: i128,
}

/// The stamp of a directory, read into memory: which of its level files had their
/// checksum verified, and in which state (size, times, device, inode). `FORMAT.md`,
/// "Damage and the verification stamp", describes the file and when a line vouches.
#[derive(Debug, Default)]
pub struct Stamp {
    /// File name to its line.
    files: BTreeMap<String, Line>,
}

impl Stamp {
    /// The stamp of `dir`; empty if it is missing, unreadable or damaged.
    pub fn load(dir: &Path) -> Stamp {
        fs::read_to_string(dir.join(STAMP_NAME))
            .ok()
            .and_then(|text| Stamp::parse(&text))
            .unwrap_or_default()
    }

    /// Whether the stamp vouches that the file `name`, now `id` with `checksum` in its
    /// header, was verified in this very state.
    pub fn vouches(&self, name: &str, id: &Identity, checksum: u64) -> bool {
        self.files
            .get(name)
            .is_some_and(|l| l.id == *id && l.checksum == checksum && !racy(id, l.verified_ns))
    }

    /// Records that `name`, in state `id`, was verified with `checksum` at `verified_ns`;
    /// `false` (and nothing recorded) if the file changed too close to the verification
    /// to be told apart from a later change ([`RACY_NS`]).
    pub fn record(&mut self, name: &str, id: Identity, checksum: u64, verified_ns: i128) -> bool {
        if racy(&id, verified_ns) {
            return false;
        }
        self.files.insert(
            name.to_string(),
            Line {
                id,
                checksum,
                verified_ns,
            },
        );
        true
    }

    /// The stamp's text: [`FIRST_LINE`], a line a file, and the checksum of the lines.
    fn text(&self) -> String {
        let mut s = format!("{FIRST_LINE}\n");
        for (name, l) in &self.files {
            s.push_str(&format!(
                "{name} {} {} {} {} {} {:016x} {}\n",
                l.id.size,
                l.id.mtime_ns,
                l.id.ctime_ns,
                l.id.dev,
                l.id.ino,
                l.checksum,
                l.verified_ns
            ));
        }
        let sum = checksum(s.as_bytes());
        s.push_str(&format!("check {sum:016x}\n"));
        s
    }

    /// The stamp of `text`, `None` unless every line reads and the last one's checksum
    /// holds.
    fn parse(text: &str) -> Option<Stamp> {
        let body_end = text.trim_end_matches('\n').rfind('\n')? + 1;
        let (body, last) = text.split_at(body_end);
        let sum = u64::from_str_radix(last.trim_end().strip_prefix("check ")?, 16).ok()?;
        if sum != checksum(body.as_bytes()) {
            return None;
        }
        let mut lines = body.lines();
        if lines.next()? != FIRST_LINE {
            return None;
        }
        let mut files = BTreeMap::new();
        for line in lines {
            let f: Vec<&str> = line.split(' ').collect();
            let [name, size, mtime, ctime, dev, ino, sum, at] = f[..] else {
                return None;
            };
            let id = Identity {
                size: size.parse().ok()?,
                mtime_ns: mtime.parse().ok()?,
                ctime_ns: ctime.parse().ok()?,
                dev: dev.parse().ok()?,
                ino: ino.parse().ok()?,
            };
            let line = Line {
                id,
                checksum: u64::from_str_radix(sum, 16).ok()?,
                verified_ns: at.parse().ok()?,
            };
            files.insert(name.to_string(), line);
        }
        Some(Stamp { files })
    }

    /// Writes the stamp into `dir`: a temporary file of this process, renamed over
    /// [`STAMP_NAME`]. Not synced: a stamp lost in a crash costs only a later check.
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        let tmp = dir.join(format!("{STAMP_NAME}.{}.tmp", std::process::id()));
        let written = fs::File::create(&tmp)
            .and_then(|mut f| f.write_all(self.text().as_bytes()))
            .and_then(|()| fs::rename(&tmp, dir.join(STAMP_NAME)));
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written
    }
}

/// Whether a file in state `id` changed too close to `verified_ns` for a later change in
/// the same timestamp tick to be seen.
fn racy(id: &Identity, verified_ns: i128) -> bool {
    id.mtime_ns.max(id.ctime_ns) >= verified_ns - RACY_NS
}

/// Now, in nanoseconds since the Unix epoch.
pub fn now_ns() -> i128 {
    since_epoch_ns(SystemTime::now())
}

/// Whether the stamp beside `path` vouches for it in state `id` with `checksum`.
pub fn vouched(path: &Path, id: &Identity, checksum: u64) -> bool {
    match (path.parent(), path.file_name().and_then(|n| n.to_str())) {
        (Some(dir), Some(name)) => Stamp::load(parent_or_here(dir)).vouches(name, id, checksum),
        _ => false,
    }
}

/// Records in the stamp beside `path` that it was verified in state `id`, `verified_ns`,
/// with `checksum`. Best effort: a directory that cannot be written, or a file too
/// recently changed, is left unrecorded (and checked again at its next open).
pub fn remember(path: &Path, id: Identity, checksum: u64, verified_ns: i128) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let dir = parent_or_here(dir);
    let mut stamp = Stamp::load(dir);
    if stamp.vouches(name, &id, checksum) {
        return;
    }
    if stamp.record(name, id, checksum, verified_ns) {
        let _ = stamp.save(dir);
    }
}

/// `dir`, or `.` for the empty parent of a bare file name.
fn parent_or_here(dir: &Path) -> &Path {
    if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(mtime_ns: i128) -> Identity {
        Identity {
            size: 100,
            mtime_ns,
            ctime_ns: mtime_ns,
            dev: 3,
            ino: 42,
        }
    }

    const OLD: i128 = 1_700_000_000_000_000_000;

    #[test]
    fn a_recorded_file_is_vouched_for_only_in_the_same_state() {
        let mut s = Stamp::default();
        assert!(s.record("a.kdb", id(OLD), 7, OLD + RACY_NS + 1));
        assert!(s.vouches("a.kdb", &id(OLD), 7));
        assert!(!s.vouches("a.kdb", &id(OLD), 8), "another checksum");
        assert!(!s.vouches("b.kdb", &id(OLD), 7), "another name");
        for changed in [
            Identity {
                size: 101,
                ..id(OLD)
            },
            Identity {
                mtime_ns: OLD + 1,
                ..id(OLD)
            },
            Identity {
                ctime_ns: OLD + 1,
                ..id(OLD)
            },
            Identity { dev: 4, ..id(OLD) },
            Identity { ino: 43, ..id(OLD) },
        ] {
            assert!(!s.vouches("a.kdb", &changed, 7), "{changed:?}");
        }
    }

    #[test]
    fn a_file_changed_just_before_its_verification_is_not_recorded() {
        let mut s = Stamp::default();
        assert!(!s.record("a.kdb", id(OLD), 7, OLD + RACY_NS));
        assert!(!s.vouches("a.kdb", &id(OLD), 7));
        let recent_ctime = Identity {
            ctime_ns: OLD + 10 * RACY_NS,
            ..id(OLD)
        };
        assert!(!s.record("a.kdb", recent_ctime, 7, OLD + 10 * RACY_NS + 1));
    }

    #[test]
    fn the_text_reads_back_and_damage_vouches_for_nothing() {
        let mut s = Stamp::default();
        s.record("a.kdb", id(OLD), 7, OLD + 3 * RACY_NS);
        s.record("b.kdb", id(OLD - 5), u64::MAX, OLD + 3 * RACY_NS);
        let text = s.text();
        let back = Stamp::parse(&text).unwrap();
        assert_eq!(back.files, s.files);
        for i in 0..text.len() {
            let mut bytes = text.clone().into_bytes();
            bytes[i] ^= 0x04;
            if let Ok(t) = String::from_utf8(bytes) {
                assert!(Stamp::parse(&t).is_none(), "byte {i} flipped: {t}");
            }
        }
        assert!(Stamp::parse("").is_none());
        assert!(Stamp::parse(FIRST_LINE).is_none());
    }

    #[test]
    fn saved_stamps_load_and_a_missing_one_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Stamp::load(dir.path()).files.is_empty());
        let mut s = Stamp::default();
        s.record("a.kdb", id(OLD), 7, OLD + 3 * RACY_NS);
        s.save(dir.path()).unwrap();
        assert!(Stamp::load(dir.path()).vouches("a.kdb", &id(OLD), 7));
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [STAMP_NAME]);
    }
}
