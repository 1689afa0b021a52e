//! Writing level files: their names, their formats, and the writers of both formats
//! through [`crate::atomic`]'s temporary file and rename.

use std::fs::{self, File};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::atomic::{io_at, sync_parent_dir, tmp_path};
use crate::compact_write::write_compact_to;
use crate::error::DbError;
use crate::header::{Header, HEADER_LEN};
use crate::layout::CompactOptions;
use crate::rules::RulesKey;
use crate::source::LevelSource;
use crate::value::{self, MAX_LEVEL_SEEDS};

/// The format a level file is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// Version 1: one `i8` an entry; a probe is one byte read.
    Byte,
    /// Version 2: Huffman-coded deltas in blocks of 32 entries in slots of 16 bytes
    /// ([`crate::Compact`]), about 0.54 byte an entry; a probe reads its block's slot (and
    /// for about one block in six a continuation) and decodes up to 32 codes.
    #[default]
    Compact,
}

impl Format {
    /// The name used on the command line: `byte` or `compact`.
    pub fn name(&self) -> &'static str {
        match self {
            Format::Byte => "byte",
            Format::Compact => "compact",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        match s {
            "byte" => Ok(Format::Byte),
            "compact" => Ok(Format::Compact),
            _ => Err(format!("format '{s}': expected byte or compact")),
        }
    }
}

/// File name of a level: `<rules slug>-k<seeds, 3 digits>.kdb`, e.g.
/// `m6-standard-single-ccw-skip-either-owner-k024.kdb`.
pub fn file_name(rules: &RulesKey, seeds: u32) -> String {
    format!("{}-k{seeds:03}.kdb", rules.slug())
}

/// The inverse of [`file_name`] on the name alone: `<slug>-kNNN.kdb` split into the rules
/// slug and the level, `None` for a name not of that shape (three digits exactly, so that
/// `x-k07.kdb` or a `.kdb.tmp` is not taken for a level). The slug is not checked against
/// any rules: the file's header says which rules it holds.
pub fn parse_file_name(name: &str) -> Option<(&str, u32)> {
    let (slug, k) = name.strip_suffix(".kdb")?.rsplit_once("-k")?;
    (k.len() == 3 && k.bytes().all(|b| b.is_ascii_digit()))
        .then(|| k.parse().ok().map(|k| (slug, k)))
        .flatten()
}

/// Writes the level (`rules`, `seeds`) with entries `values` (entry `i` is the
/// value of the position of rank `i`) in `format` into `dir` under [`file_name`], and
/// returns its path. See [`write_level_to`] for the checks and atomicity.
pub fn write_level(
    dir: &Path,
    rules: &RulesKey,
    seeds: u32,
    values: &[i8],
    format: Format,
) -> Result<PathBuf, DbError> {
    let path = dir.join(file_name(rules, seeds));
    write_level_to(&path, rules, seeds, values, format)?;
    Ok(path)
}

/// Writes the level (`rules`, `seeds`) in `format` to exactly `path` (any name).
///
/// Checks that the rules are valid, `seeds <= 127`, `values.len()` is the
/// level size ([`DbError::EntryCountMismatch`]) and every value is in
/// `-seeds..=seeds` ([`DbError::ValueOutOfRange`] with its rank). Writes
/// `<path>.tmp`, flushes and fsyncs it, renames it to `path` and (on Unix)
/// fsyncs the directory, so `path` either does not exist or is complete.
pub fn write_level_to(
    path: &Path,
    rules: &RulesKey,
    seeds: u32,
    values: &[i8],
    format: Format,
) -> Result<(), DbError> {
    let header = Header::new(*rules, seeds, 0)?;
    if header.entry_count != values.len() as u64 {
        return Err(DbError::EntryCountMismatch {
            expected: header.entry_count,
            actual: values.len() as u64,
        });
    }
    let mut source = values;
    write_level_from(path, rules, seeds, &mut source, format)
}

/// [`write_level_to`] of the entries `source` gives, which it reads once ([`Format::Byte`])
/// or twice ([`Format::Compact`], with [`CompactOptions::default`]), never holding the
/// level in memory: for levels written from files (shards, a level of the other format).
pub fn write_level_from(
    path: &Path,
    rules: &RulesKey,
    seeds: u32,
    source: &mut dyn LevelSource,
    format: Format,
) -> Result<(), DbError> {
    match format {
        Format::Byte => {
            let mut w = LevelWriter::create(path, rules, seeds)?;
            source.read_runs(&mut |run| w.write(run))?;
            w.finish()
        }
        Format::Compact => write_compact_to(path, rules, seeds, source, CompactOptions::default()),
    }
}

/// A level file written in rank order, a run of entries at a time, with the guarantees
/// of [`write_level_to`]: the entries go to `<path>.tmp` (hashed on the way), and
/// [`LevelWriter::finish`] writes the header, fsyncs and renames. So a level can be
/// written from pieces (the shards of `kalah db merge`) without holding it in memory.
/// Dropped before `finish`, it removes the `.tmp` file.
pub struct LevelWriter {
    path: PathBuf,
    tmp: PathBuf,
    w: Option<BufWriter<File>>,
    header: Header,
    hasher: Xxh3,
    written: u64,
    buf: Vec<u8>,
}

impl LevelWriter {
    /// Starts the level (`rules`, `seeds`) at `path`: checks the rules and `seeds` (as
    /// [`Header::new`]) and creates `<path>.tmp`, its header zero until
    /// [`LevelWriter::finish`].
    pub fn create(path: &Path, rules: &RulesKey, seeds: u32) -> Result<LevelWriter, DbError> {
        rules.validate()?;
        if seeds > MAX_LEVEL_SEEDS {
            return Err(DbError::TooManySeeds {
                seeds,
                max: MAX_LEVEL_SEEDS,
            });
        }
        let header = Header::new(*rules, seeds, 0)?;
        let tmp = tmp_path(path);
        let file = File::create(&tmp).map_err(io_at(&tmp))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        w.write_all(&[0; HEADER_LEN]).map_err(io_at(&tmp))?;
        Ok(LevelWriter {
            path: path.to_path_buf(),
            tmp,
            w: Some(w),
            header,
            hasher: Xxh3::new(),
            written: 0,
            buf: Vec::new(),
        })
    }

    /// Appends `values`, the entries of the next ranks: [`DbError::ValueOutOfRange`]
    /// (with the rank) for a value outside `-seeds..=seeds`,
    /// [`DbError::EntryCountMismatch`] past the level's last rank.
    pub fn write(&mut self, values: &[i8]) -> Result<(), DbError> {
        self.buf.clear();
        self.buf.extend(values.iter().map(|&v| value::encode(v)));
        let buf = std::mem::take(&mut self.buf);
        let r = self.write_encoded(&buf);
        self.buf = buf;
        r
    }

    /// [`LevelWriter::write`] of entries as they are stored (each value's two's
    /// complement byte).
    pub fn write_encoded(&mut self, bytes: &[u8]) -> Result<(), DbError> {
        let seeds = u32::from(self.header.seeds);
        if let Some((i, &b)) = bytes
            .iter()
            .enumerate()
            .find(|(_, &b)| !value::in_range(b as i8, seeds))
        {
            return Err(DbError::ValueOutOfRange {
                value: b as i8,
                seeds,
                rank: Some(self.written + i as u64),
            });
        }
        let total = self.written + bytes.len() as u64;
        if total > self.header.entry_count {
            return Err(DbError::EntryCountMismatch {
                expected: self.header.entry_count,
                actual: total,
            });
        }
        let tmp = &self.tmp;
        let w = self.w.as_mut().ok_or_else(|| DbError::Io {
            path: tmp.clone(),
            source: std::io::Error::other("level writer already finished"),
        })?;
        w.write_all(bytes).map_err(io_at(tmp))?;
        self.hasher.update(bytes);
        self.written = total;
        Ok(())
    }

    /// Completes the file: [`DbError::EntryCountMismatch`] unless every rank was
    /// written; else the header with the payload's checksum, fsync, rename to the
    /// final name, fsync of the directory.
    pub fn finish(mut self) -> Result<(), DbError> {
        if self.written != self.header.entry_count {
            return Err(DbError::EntryCountMismatch {
                expected: self.header.entry_count,
                actual: self.written,
            });
        }
        let header = Header {
            checksum: self.hasher.digest(),
            ..self.header
        };
        let tmp = self.tmp.clone();
        let Some(w) = self.w.take() else {
            return Err(DbError::Io {
                path: tmp,
                source: std::io::Error::other("level writer already finished"),
            });
        };
        let mut file = w.into_inner().map_err(|e| DbError::Io {
            path: tmp.clone(),
            source: e.into_error(),
        })?;
        file.seek(SeekFrom::Start(0)).map_err(io_at(&tmp))?;
        file.write_all(&header.encode()).map_err(io_at(&tmp))?;
        file.sync_all().map_err(io_at(&tmp))?;
        drop(file);
        fs::rename(&tmp, &self.path).map_err(io_at(&self.path))?;
        // Renamed: nothing left for `drop` to remove.
        self.tmp = PathBuf::new();
        sync_parent_dir(&self.path)
    }
}

impl Drop for LevelWriter {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            drop(self.w.take());
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_name_parses_back_to_its_slug_and_level() {
        let rules = RulesKey::standard(6);
        let name = file_name(&rules, 24);
        assert_eq!(parse_file_name(&name), Some((rules.slug().as_str(), 24)));
        assert_eq!(parse_file_name("m6-x-k07.kdb"), None);
        assert_eq!(parse_file_name("m6-x-k007.kdb.tmp"), None);
        assert_eq!(parse_file_name("m6-x-k0a7.kdb"), None);
        assert_eq!(parse_file_name("notes.txt"), None);
    }
    use crate::ranking::level_size;
    use std::fs;

    /// Values in range of a level of 3 pits and `seeds` seeds.
    fn some_values(seeds: u32) -> Vec<i8> {
        let span = 2 * seeds as u64 + 1;
        (0..level_size(6, seeds))
            .map(|i| (i % span) as i8 - seeds as i8)
            .collect()
    }

    #[test]
    fn names() {
        assert_eq!(
            file_name(&RulesKey::standard(6), 24),
            "m6-standard-single-ccw-skip-either-owner-k024.kdb"
        );
        assert_eq!(tmp_path(Path::new("/a/b.kdb")), Path::new("/a/b.kdb.tmp"));
    }

    #[test]
    fn write_rejects_bad_input() {
        for format in [Format::Byte, Format::Compact] {
            let dir = tempfile::tempdir().unwrap();
            let rules = RulesKey::standard(3);
            let mut values = some_values(4);
            values.pop();
            assert!(matches!(
                write_level(dir.path(), &rules, 4, &values, format),
                Err(DbError::EntryCountMismatch { .. })
            ));
            let mut values = some_values(4);
            values[5] = -5;
            match write_level(dir.path(), &rules, 4, &values, format) {
                Err(DbError::ValueOutOfRange {
                    value: -5,
                    seeds: 4,
                    rank: Some(5),
                }) => {}
                other => panic!("{other:?}"),
            }
            assert!(matches!(
                write_level(dir.path(), &RulesKey::standard(9), 1, &[0], format),
                Err(DbError::InvalidRules { .. })
            ));
            assert!(matches!(
                write_level(dir.path(), &rules, 200, &[0], format),
                Err(DbError::TooManySeeds { .. })
            ));
            assert!(matches!(
                write_level(&dir.path().join("missing"), &rules, 0, &[0], format),
                Err(DbError::Io { .. })
            ));
            assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "{format}");
        }
    }

    /// A level written in pieces is the file `write_level_to` writes; a writer dropped or
    /// finished short leaves no file, and entries past the level or out of range are
    /// refused.
    #[test]
    fn level_writer_in_pieces_equals_one_write() {
        let dir = tempfile::tempdir().unwrap();
        let key = RulesKey::standard(2);
        let values: Vec<i8> = (0..crate::ranking::level_size(4, 5))
            .map(|i| (i % 11) as i8 - 5)
            .collect();
        let whole = dir.path().join("whole.kdb");
        write_level_to(&whole, &key, 5, &values, Format::Byte).unwrap();
        let pieces = dir.path().join("pieces.kdb");
        let mut w = LevelWriter::create(&pieces, &key, 5).unwrap();
        for chunk in values.chunks(7) {
            w.write(chunk).unwrap();
        }
        assert!(matches!(
            w.write(&[0]),
            Err(DbError::EntryCountMismatch { .. })
        ));
        w.finish().unwrap();
        assert_eq!(fs::read(&whole).unwrap(), fs::read(&pieces).unwrap());
        let short = dir.path().join("short.kdb");
        let mut w = LevelWriter::create(&short, &key, 5).unwrap();
        w.write(&values[..10]).unwrap();
        assert!(matches!(
            w.write(&[6]),
            Err(DbError::ValueOutOfRange { rank: Some(10), .. })
        ));
        assert!(matches!(
            w.finish(),
            Err(DbError::EntryCountMismatch { .. })
        ));
        drop(LevelWriter::create(&short, &key, 5).unwrap());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }
}
