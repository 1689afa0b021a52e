//! Reading level files: validated, checked against their checksum, memory-mapped.
//!
//! Why memory mapping: levels reach gigabytes, the solver reads a few entries
//! of many of them at random, and the page cache then shares them between
//! processes. Why validate before mapping: touching a mapped page beyond the
//! end of a truncated file kills the process with SIGBUS, so the header and
//! the file length are checked with ordinary reads first. Why the checksum before the
//! first entry is read: a damaged byte decodes to a wrong value, not always an
//! impossible one ([`crate::Stamp`] makes that check once per state of a file).
//!
//! Two formats share the header and this reader: version 1 stores one byte an entry,
//! version 2 ([`Compact`]) about half a byte. [`LevelFile`] opens both.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use xxhash_rust::xxh3::Xxh3;

use crate::atomic::{io_at, open_regular};
use crate::checksum::checksum;
use crate::compact::{Compact, WalkError};
use crate::entries::Entries;
use crate::error::DbError;
use crate::header::{Header, HEADER_LEN};
use crate::level_write::Format;
use crate::rules::RulesKey;
use crate::source::{LevelSource, RUN};
use crate::stamp::{self, Identity};
use crate::value;

/// One level file, validated and memory-mapped read-only.
///
/// Invariant: the header decoded, and the mapping is exactly as long as the header
/// says (`64 + entry_count` bytes in version 1, the [`crate::Layout`]'s in
/// version 2), so every rank in `0..len()` has an entry; a version-2 file's code table
/// is a valid code and `compact` its decoder. Opened with [`LevelFile::open`] or
/// [`LevelFile::open_populated`], the payload also hashes to the header's checksum
/// (checked now, or vouched for by the directory's [`crate::Stamp`]), so a damaged file
/// is refused before any entry is read; [`LevelFile::open_any`], for tools that inspect
/// files, checks the header only.
#[derive(Debug)]
pub struct LevelFile {
    /// Where the file is (for error messages).
    path: PathBuf,
    /// Its decoded header.
    header: Header,
    /// The whole file, header included.
    map: Mmap,
    /// Version 2: the payload's layout and decoding table.
    compact: Option<Compact>,
    /// The file's state when opened, for the stamp.
    identity: Identity,
    /// Whether the payload was hashed (and matched the header) when the file was opened.
    hashed: bool,
}

/// What opening a level file checks beyond its header and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    /// Nothing: the caller inspects the file or verifies it itself.
    HeaderOnly,
    /// The payload's checksum, unless the stamp vouches for the file.
    Checksum,
}

impl LevelFile {
    /// Opens the level file `path` (format version 1 or 2), which must hold the level
    /// (`rules`, `seeds`).
    ///
    /// Checks, before mapping anything: magic, version, header fields, rules
    /// ([`DbError::RulesMismatch`], naming both rule sets), seeds
    /// ([`DbError::SeedsMismatch`]), entry count, and file length
    /// ([`DbError::LengthMismatch`]); for version 2, then the code table and the zero
    /// padding ([`DbError::Corrupted`]). Then the payload's checksum
    /// ([`DbError::ChecksumMismatch`]): read and hashed at the first open, and at later
    /// ones only if the file changed since ([`crate::Stamp`] remembers it), so that no
    /// entry of a damaged file is ever read.
    pub fn open(path: &Path, rules: &RulesKey, seeds: u32) -> Result<LevelFile, DbError> {
        LevelFile::open_checked(path, Some((rules, seeds)), false, Check::Checksum)
    }

    /// Opens any valid level file, whatever its rules and seeds (for tools that
    /// inspect files). Checks magic, version, header fields and length, not the payload:
    /// call [`verify`](LevelFile::verify) before trusting an entry.
    pub fn open_any(path: &Path) -> Result<LevelFile, DbError> {
        LevelFile::open_checked(path, None, false, Check::HeaderOnly)
    }

    /// As [`LevelFile::open`], and map every page up front (`MAP_POPULATE`): one pass over
    /// the page tables instead of a page fault at the first random probe of each page,
    /// which is what a search probing the level millions of times wants.
    pub fn open_populated(path: &Path, rules: &RulesKey, seeds: u32) -> Result<LevelFile, DbError> {
        LevelFile::open_checked(path, Some((rules, seeds)), true, Check::Checksum)
    }

    /// [`open`](LevelFile::open) with optional expectations.
    fn open_checked(
        path: &Path,
        expected: Option<(&RulesKey, u32)>,
        populate: bool,
        check: Check,
    ) -> Result<LevelFile, DbError> {
        let io = |source| DbError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = open_regular(path)?;
        let mut head = Vec::with_capacity(HEADER_LEN);
        (&file)
            .take(HEADER_LEN as u64)
            .read_to_end(&mut head)
            .map_err(io)?;
        let header = Header::decode_from(&head, path)?;
        if let Some((rules, seeds)) = expected {
            if header.rules != *rules {
                return Err(DbError::RulesMismatch {
                    path: path.to_path_buf(),
                    found: header.rules,
                    expected: *rules,
                });
            }
            if u32::from(header.seeds) != seeds {
                return Err(DbError::SeedsMismatch {
                    path: path.to_path_buf(),
                    found: u32::from(header.seeds),
                    expected: seeds,
                });
            }
        }
        let expected_len = header.file_len().ok_or_else(|| DbError::Corrupted {
            path: path.to_path_buf(),
            what: "file length implied by the header overflows".to_string(),
        })?;
        let meta = file.metadata().map_err(io)?;
        let identity = Identity::of(&meta);
        let actual_len = meta.len();
        let length_mismatch = |actual_len| DbError::LengthMismatch {
            path: path.to_path_buf(),
            expected_len,
            actual_len,
        };
        if actual_len != expected_len {
            return Err(length_mismatch(actual_len));
        }
        if usize::try_from(expected_len).is_err() {
            return Err(DbError::Corrupted {
                path: path.to_path_buf(),
                what: format!("{expected_len} bytes do not fit in this machine's address space"),
            });
        }
        // SAFETY: `path` is a level file under its final name, which the writers of this
        // crate never modify in place (they rename a new file over it), so the file is
        // not modified while mapped; its length was checked against the header above.
        let map = unsafe { map_read_only(&file, populate) }.map_err(io)?;
        // The file may have changed between the length check and the mapping.
        if map.len() as u64 != expected_len {
            return Err(length_mismatch(map.len() as u64));
        }
        let compact = match header.blocks {
            None => None,
            Some(_) => Some(Compact::new(&header, &map[HEADER_LEN..]).map_err(|what| {
                DbError::Corrupted {
                    path: path.to_path_buf(),
                    what,
                }
            })?),
        };
        let hashed =
            check == Check::Checksum && !stamp::vouched(path, &identity, header.checksum) && {
                let started = stamp::now_ns();
                let computed = hash_payload(&file, path)?;
                if computed != header.checksum {
                    return Err(DbError::ChecksumMismatch {
                        path: path.to_path_buf(),
                        stored: header.checksum,
                        computed,
                    });
                }
                stamp::remember(path, identity, header.checksum, started);
                true
            };
        Ok(LevelFile {
            path: path.to_path_buf(),
            header,
            map,
            compact,
            identity,
            hashed,
        })
    }

    /// The path the file was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The decoded header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's format (its header's version).
    pub fn format(&self) -> Format {
        match self.compact {
            None => Format::Byte,
            Some(_) => Format::Compact,
        }
    }

    /// Rules of the level.
    pub fn rules(&self) -> RulesKey {
        self.header.rules
    }

    /// Seeds on the board of the level.
    pub fn seeds(&self) -> u32 {
        u32::from(self.header.seeds)
    }

    /// Number of entries (positions of the level).
    pub fn len(&self) -> u64 {
        self.header.entry_count
    }

    /// Never true: every level has at least one position. Present for symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        self.header.entry_count == 0
    }

    /// The stored payload bytes (version 1: entry `i` is byte `i`).
    pub fn payload(&self) -> &[u8] {
        &self.map[HEADER_LEN..]
    }

    /// A version-2 file's layout and decoding table, `None` for version 1.
    pub fn compact(&self) -> Option<&Compact> {
        self.compact.as_ref()
    }

    /// Value of the position of rank `rank`: one byte read from the mapping (version
    /// 1), or one block decoded (version 2).
    ///
    /// Never reads outside the file. Not range-checked against `-seeds..=seeds` in
    /// version 1 (that is [`verify`](LevelFile::verify)'s job); in version 2 always in
    /// range, and a block found damaged reads as 0 ([`LevelFile::try_get`] tells).
    ///
    /// # Panics
    /// If `rank >= len()` (a caller bug: ranks come from a [`crate::Ranker`] of
    /// the same level).
    #[inline]
    pub fn get(&self, rank: u64) -> i8 {
        assert!(
            rank < self.len(),
            "rank {rank} of a level of {}",
            self.len()
        );
        self.try_get(rank).unwrap_or(0)
    }

    /// Value of the position of rank `rank`, or `None` if `rank >= len()` or (version
    /// 2) the block of `rank` is found damaged ([`Compact::get`]).
    #[inline]
    pub fn try_get(&self, rank: u64) -> Option<i8> {
        match &self.compact {
            None => {
                let i = usize::try_from(rank).ok()?;
                self.payload().get(i).map(|&b| b as i8)
            }
            Some(c) => c.get(self.payload(), rank),
        }
    }

    /// All values, entry `i` being the value of the position of rank `i`: the mapped
    /// payload of a version-1 file, `None` for version 2 (use [`LevelFile::entries`]).
    pub fn values(&self) -> Option<&[i8]> {
        match self.compact {
            None => Some(bytes_as_i8(self.payload())),
            Some(_) => None,
        }
    }

    /// The entries by rank, in either format.
    pub fn entries(&self) -> Entries<'_> {
        match &self.compact {
            None => Entries::Bytes(bytes_as_i8(self.payload())),
            Some(code) => Entries::Compact {
                code,
                payload: self.payload(),
            },
        }
    }

    /// Drops this process's mappings of the file's pages that are resident
    /// (`madvise(MADV_DONTNEED)`), so that they stop counting in its resident set; the page
    /// cache keeps them, and the next read of one maps it again (a minor fault, or a read
    /// from disk if the system has evicted it meanwhile). For a reader that touches more of
    /// the files it maps than its memory budget holds, such as the generator reading the
    /// lower levels. Does nothing on systems other than Unix.
    pub fn release_pages(&self) -> Result<(), DbError> {
        #[cfg(unix)]
        {
            // SAFETY: the map is a read-only shared mapping (`map_read_only`) of a level
            // file, which is never modified while mapped (its contract), so a page read
            // after MADV_DONTNEED is filled again from the file with the same bytes:
            // borrows of the map, in this thread or another, never see a byte change.
            unsafe {
                self.map
                    .unchecked_advise(memmap2::UncheckedAdvice::DontNeed)
            }
            .map_err(|source| DbError::Io {
                path: self.path.clone(),
                source,
            })?;
        }
        Ok(())
    }

    /// Reads the whole payload: checks its XXH3-64 against the header
    /// ([`DbError::ChecksumMismatch`]), then that every value is in
    /// `-seeds..=seeds` ([`DbError::Corrupted`] naming the first bad rank); in version
    /// 2, instead, decodes every block and checks the indexes against where the blocks
    /// end ([`Compact::walk`]; its values are in range by construction).
    ///
    /// A file whose checksum this process hashed when opening it is not hashed again. A
    /// verified file is recorded in the directory's [`crate::Stamp`], so that later opens
    /// need not hash it.
    pub fn verify(&self) -> Result<(), DbError> {
        let started = stamp::now_ns();
        if !self.hashed {
            let computed = checksum(self.payload());
            if computed != self.header.checksum {
                return Err(DbError::ChecksumMismatch {
                    path: self.path.clone(),
                    stored: self.header.checksum,
                    computed,
                });
            }
        }
        self.check_entries()?;
        stamp::remember(&self.path, self.identity, self.header.checksum, started);
        Ok(())
    }

    /// The checks of [`verify`](LevelFile::verify) after the checksum: every value in
    /// range (version 1), every block decoding as written (version 2).
    fn check_entries(&self) -> Result<(), DbError> {
        if let Some(code) = &self.compact {
            return match code.walk(self.payload(), &mut |_| Ok(())) {
                Ok(()) => Ok(()),
                Err(WalkError::Corrupt(what)) => Err(DbError::Corrupted {
                    path: self.path.clone(),
                    what,
                }),
                Err(WalkError::Sink(e)) => Err(e),
            };
        }
        let seeds = self.seeds();
        if let Some((rank, e)) = self
            .payload()
            .iter()
            .enumerate()
            .find_map(|(i, &b)| value::decode(b, seeds).err().map(|e| (i, e)))
        {
            return Err(DbError::Corrupted {
                path: self.path.clone(),
                what: format!("entry {rank}: {e}"),
            });
        }
        Ok(())
    }
}

/// A level file's entries in rank order: the mapped bytes of a version-1 file (not
/// range-checked: a writer checks them), every block decoded and checked against the
/// indexes in version 2 ([`Compact::walk`]).
impl LevelSource for &LevelFile {
    fn read_runs(
        &mut self,
        sink: &mut dyn FnMut(&[i8]) -> Result<(), DbError>,
    ) -> Result<(), DbError> {
        match &self.compact {
            None => {
                for run in bytes_as_i8(self.payload()).chunks(RUN) {
                    sink(run)?;
                }
                Ok(())
            }
            Some(code) => match code.walk(self.payload(), sink) {
                Ok(()) => Ok(()),
                Err(WalkError::Corrupt(what)) => Err(DbError::Corrupted {
                    path: self.path.clone(),
                    what,
                }),
                Err(WalkError::Sink(e)) => Err(e),
            },
        }
    }
}

/// XXH3-64 of the payload of the level file `file` (at `path`), read with ordinary reads
/// (not through a mapping, so that the pages of a large level do not join the resident
/// set of a reader that probes only a few of them).
fn hash_payload(file: &File, path: &Path) -> Result<u64, DbError> {
    let mut reader = file;
    reader
        .seek(SeekFrom::Start(HEADER_LEN as u64))
        .map_err(io_at(path))?;
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; 4 << 20];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(hasher.digest()),
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_at(path)(e)),
        }
    }
}

/// Maps `file` read-only.
///
/// # Safety
/// The caller guarantees that nobody truncates or rewrites `file` while the mapping
/// lives: a mapped page whose bytes change is undefined behaviour for the `&[u8]` the map
/// hands out, and one past a truncated end raises SIGBUS. Level files meet it because
/// [`write_level_to`] publishes a file by renaming a complete temporary file over its
/// name, so a file under its final name is never modified in place (a replacement is a
/// new inode and leaves existing mappings intact); truncating a level file by hand while
/// it is mapped is not supported. Callers check the length first, so that an already
/// truncated file is an error, not a signal.
unsafe fn map_read_only(file: &File, populate: bool) -> std::io::Result<Mmap> {
    let mut options = memmap2::MmapOptions::new();
    if populate {
        options.populate();
    }
    // SAFETY: the caller upholds this function's contract (the file is not modified
    // while mapped), which is memmap2's; the mapping is read-only.
    unsafe { options.map(file) }
}

/// Views bytes as two's complement `i8`s (the entry encoding).
pub(crate) fn bytes_as_i8(bytes: &[u8]) -> &[i8] {
    // SAFETY: `u8` and `i8` have the same size, alignment and validity (every
    // bit pattern is valid for both), so the same memory is a valid `[i8]` of
    // the same length for the same lifetime.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<i8>(), bytes.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atomic::tmp_path;
    use crate::level_write::{file_name, write_level};
    use crate::ranking::Ranker;
    use std::fs::{self, OpenOptions};
    use std::io::Write;

    /// A level whose value is a deterministic function of the position.
    fn level(rules: &RulesKey, seeds: u32) -> Vec<i8> {
        let r = Ranker::new(rules.cells(), seeds).unwrap();
        let mut pos = vec![0u8; rules.cells()];
        (0..r.count())
            .map(|i| {
                r.unrank(i, &mut pos);
                let mover: i32 = pos[..rules.cells() / 2].iter().map(|&c| i32::from(c)).sum();
                (2 * mover - seeds as i32) as i8
            })
            .collect()
    }

    fn written(seeds: u32) -> (tempfile::TempDir, RulesKey, PathBuf, Vec<i8>) {
        let dir = tempfile::tempdir().unwrap();
        let rules = RulesKey::standard(3);
        let values = level(&rules, seeds);
        let path = write_level(dir.path(), &rules, seeds, &values, Format::Byte).unwrap();
        (dir, rules, path, values)
    }

    #[test]
    fn write_then_open_round_trip() {
        let (dir, rules, path, values) = written(7);
        assert_eq!(path, dir.path().join(file_name(&rules, 7)));
        assert!(!tmp_path(&path).exists());
        let f = LevelFile::open(&path, &rules, 7).unwrap();
        assert_eq!(f.len(), crate::ranking::level_size(6, 7));
        assert!(!f.is_empty());
        assert_eq!(f.values(), Some(&values[..]));
        assert_eq!(f.format(), Format::Byte);
        assert_eq!(f.rules(), rules);
        assert_eq!(f.seeds(), 7);
        assert_eq!(f.path(), path);
        let r = Ranker::new(6, 7).unwrap();
        let pos = [1, 2, 0, 3, 0, 1];
        assert_eq!(f.get(r.rank(&pos)), 2 * 3 - 7);
        assert_eq!(f.try_get(f.len()), None);
        assert_eq!(f.try_get(0), Some(values[0]));
        f.verify().unwrap();
        assert_eq!(f.header().checksum, crate::checksum::checksum(f.payload()));
        let len = fs::metadata(&path).unwrap().len();
        assert_eq!(len, 64 + f.len());
        // open_any sees the same file.
        let g = LevelFile::open_any(&path).unwrap();
        assert_eq!(g.header(), f.header());
    }

    #[test]
    fn level_zero_has_one_entry() {
        let (_dir, rules, path, values) = written(0);
        assert_eq!(values, vec![0]);
        let f = LevelFile::open(&path, &rules, 0).unwrap();
        assert_eq!(f.len(), 1);
        f.verify().unwrap();
    }

    fn patch(path: &Path, at: usize, bytes: &[u8]) {
        let mut data = fs::read(path).unwrap();
        data[at..at + bytes.len()].copy_from_slice(bytes);
        fs::write(path, data).unwrap();
    }

    #[test]
    fn flipped_payload_byte_fails_open_and_verify() {
        let (_dir, rules, path, _) = written(5);
        let data = fs::read(&path).unwrap();
        patch(&path, 64 + 17, &[data[64 + 17] ^ 0x01]);
        for open in [LevelFile::open, LevelFile::open_populated] {
            let e = open(&path, &rules, 5).unwrap_err();
            assert!(matches!(e, DbError::ChecksumMismatch { .. }), "{e}");
        }
        let f = LevelFile::open_any(&path).unwrap();
        assert!(matches!(f.verify(), Err(DbError::ChecksumMismatch { .. })));
    }

    /// A verified file is stamped once it is old enough, and a stamped file that changes
    /// is checked again: the stamp vouches for a file's state, not its name.
    #[test]
    fn the_stamp_vouches_only_for_the_state_verified() {
        let (dir, rules, path, _) = written(5);
        let stamp = dir.path().join(crate::stamp::STAMP_NAME);
        // Just written: checked, but too recent to be stamped.
        let f = LevelFile::open(&path, &rules, 5).unwrap();
        assert!(f.hashed);
        f.verify().unwrap();
        assert!(!stamp.exists());
        // Its status-change time is now too, so a stamp written now would not vouch;
        // record one from the future, as a later open sees it.
        let id = Identity::of(&fs::metadata(&path).unwrap());
        let later = crate::stamp::now_ns() + 3 * crate::stamp::RACY_NS;
        crate::stamp::remember(&path, id, f.header().checksum, later);
        assert!(stamp.exists());
        let g = LevelFile::open(&path, &rules, 5).unwrap();
        assert!(!g.hashed, "the stamp vouches for the file");
        // One byte flipped in place, the modification time set back: same size, inode
        // and modification time, only the status-change time differs. (The pause lets
        // the clock pass a timestamp tick: the stamp's `RACY_NS` rule, bypassed above,
        // is what covers a change within one tick.)
        std::thread::sleep(std::time::Duration::from_millis(50));
        let data = fs::read(&path).unwrap();
        let mtime = fs::metadata(&path).unwrap().modified().unwrap();
        let mut f = OpenOptions::new().write(true).open(&path).unwrap();
        f.seek(SeekFrom::Start(64 + 3)).unwrap();
        f.write_all(&[data[64 + 3] ^ 0x10]).unwrap();
        f.set_modified(mtime).unwrap();
        drop(f);
        let now = Identity::of(&fs::metadata(&path).unwrap());
        assert_eq!(
            (now.size, now.ino, now.mtime_ns),
            (id.size, id.ino, id.mtime_ns)
        );
        let e = LevelFile::open(&path, &rules, 5).unwrap_err();
        assert!(matches!(e, DbError::ChecksumMismatch { .. }), "{e}");
    }

    #[test]
    fn out_of_range_value_with_matching_checksum_fails_verify() {
        let (_dir, rules, path, _) = written(5);
        let mut data = fs::read(&path).unwrap();
        data[64 + 3] = 100;
        let sum = crate::checksum::checksum(&data[64..]);
        data[32..40].copy_from_slice(&sum.to_le_bytes());
        fs::write(&path, data).unwrap();
        let f = LevelFile::open(&path, &rules, 5).unwrap();
        let e = f.verify().unwrap_err();
        assert!(matches!(e, DbError::Corrupted { .. }), "{e}");
        assert!(e.to_string().contains("entry 3"), "{e}");
    }

    #[test]
    fn truncated_or_extended_file_fails_open() {
        let (_dir, rules, path, _) = written(5);
        let full = fs::metadata(&path).unwrap().len();
        for len in [full - 1, 64, 40, 3, 0] {
            OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(len)
                .unwrap();
            match LevelFile::open(&path, &rules, 5) {
                Err(DbError::LengthMismatch { actual_len, .. }) => assert_eq!(actual_len, len),
                other => panic!("len {len}: {other:?}"),
            }
            assert!(LevelFile::open_any(&path).is_err());
        }
        let (_dir, rules, path, _) = written(5);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[0]).unwrap();
        drop(f);
        let e = LevelFile::open(&path, &rules, 5).unwrap_err();
        assert!(
            matches!(e, DbError::LengthMismatch { expected_len, actual_len, .. } if actual_len == expected_len + 1),
            "{e}"
        );
    }

    #[test]
    fn other_rules_or_seeds_fail_open() {
        let (_dir, rules, path, _) = written(5);
        let other = RulesKey { sowing: 1, ..rules };
        let e = LevelFile::open(&path, &other, 5).unwrap_err();
        assert!(matches!(e, DbError::RulesMismatch { .. }));
        let msg = e.to_string();
        assert!(msg.contains(&rules.to_string()), "{msg}");
        assert!(msg.contains(&other.to_string()), "{msg}");
        assert!(matches!(
            LevelFile::open(&path, &RulesKey::standard(4), 5),
            Err(DbError::RulesMismatch { .. })
        ));
        assert!(matches!(
            LevelFile::open(&path, &rules, 6),
            Err(DbError::SeedsMismatch {
                found: 5,
                expected: 6,
                ..
            })
        ));
    }

    #[test]
    fn wrong_version_or_magic_fails_open() {
        let (_dir, rules, path, _) = written(5);
        patch(&path, 8, &2u32.to_le_bytes());
        let e = LevelFile::open(&path, &rules, 5).unwrap_err();
        assert!(matches!(e, DbError::Corrupted { .. }), "{e}");
        patch(&path, 8, &3u32.to_le_bytes());
        let e = LevelFile::open(&path, &rules, 5).unwrap_err();
        assert!(
            matches!(e, DbError::UnsupportedVersion { found: 3, .. }),
            "{e}"
        );
        let (_dir, rules, path, _) = written(5);
        patch(&path, 0, b"KALAHDX");
        assert!(matches!(
            LevelFile::open(&path, &rules, 5),
            Err(DbError::BadMagic { .. })
        ));
        assert!(matches!(
            LevelFile::open_any(&path),
            Err(DbError::BadMagic { .. })
        ));
    }

    #[test]
    fn corrupted_header_fields_fail_open() {
        let (_dir, rules, path, _) = written(5);
        patch(&path, 24, &[0xff]); // entry count
        assert!(matches!(
            LevelFile::open(&path, &rules, 5),
            Err(DbError::Corrupted { .. })
        ));
        let missing = path.with_file_name("nope.kdb");
        assert!(matches!(
            LevelFile::open_any(&missing),
            Err(DbError::Io { .. })
        ));
    }

    /// Resident kB of the mapping that starts at `start`, from /proc/self/smaps.
    #[cfg(target_os = "linux")]
    fn mapping_rss_kb(start: *const u8) -> u64 {
        let smaps = fs::read_to_string("/proc/self/smaps").unwrap();
        let want = format!("{:x}-", start as usize);
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&want));
        assert!(lines.next().is_some(), "no mapping at {want}");
        let rss = lines.find(|l| l.starts_with("Rss:")).unwrap();
        rss.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// Released pages leave the resident set and read back the same bytes.
    #[cfg(target_os = "linux")]
    #[test]
    fn released_pages_leave_the_resident_set_and_read_back_the_same() {
        // 3 pits, 30 seeds: C(35, 5) = 324,632 entries, about 80 pages.
        let (_dir, rules, path, values) = written(30);
        let f = LevelFile::open(&path, &rules, 30).unwrap();
        let sum = |v: &[i8]| v.iter().map(|&x| i64::from(x)).sum::<i64>();
        assert_eq!(sum(f.values().expect("a one-byte file")), sum(&values));
        let start = f.map.as_ptr();
        assert!(mapping_rss_kb(start) >= 300, "{}", mapping_rss_kb(start));
        f.release_pages().unwrap();
        assert_eq!(mapping_rss_kb(start), 0);
        assert_eq!(f.values(), Some(&values[..]));
        f.verify().unwrap();
        assert!(mapping_rss_kb(start) >= 300);
    }

    #[test]
    fn rewrite_replaces_atomically() {
        let (dir, rules, path, values) = written(4);
        let before = LevelFile::open(&path, &rules, 4).unwrap();
        let zeros = vec![0i8; values.len()];
        write_level(dir.path(), &rules, 4, &zeros, Format::Byte).unwrap();
        // The old mapping still sees the old file; a new open sees the new one.
        assert_eq!(before.values(), Some(&values[..]));
        let after = LevelFile::open(&path, &rules, 4).unwrap();
        assert_eq!(after.values(), Some(&zeros[..]));
        after.verify().unwrap();
    }
}
