//! Files on disk: written atomically, and opened for reading only if they are regular.
//!
//! Why atomic: a level file under its final name is mapped by readers, so it must be
//! complete and never change. A writer writes `<name>.tmp`, fsyncs it, renames it over
//! the name and fsyncs the directory; a file under its final name is then complete, and
//! a replacement is a new inode that leaves existing mappings intact. Why regular files
//! only: opening a named pipe blocks until a writer comes, and a device may never end.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use crate::error::DbError;

/// The error of an I/O operation on `path`.
pub(crate) fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> DbError {
    let path = path.to_path_buf();
    move |source| DbError::Io { path, source }
}

/// `path` with `.tmp` appended to its file name.
pub(crate) fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Makes a rename durable: fsync the directory holding `path`.
pub(crate) fn sync_parent_dir(path: &Path) -> Result<(), DbError> {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => sync_dir(d),
        _ => sync_dir(Path::new(".")),
    }
}

/// Makes the renames into `dir` durable: fsync the directory (Unix only; other systems
/// cannot open a directory as a file).
pub fn sync_dir(dir: &Path) -> Result<(), DbError> {
    #[cfg(unix)]
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|source| DbError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Opens `path` for reading if it is a regular file (symbolic links followed), and
/// refuses anything else ([`DbError::NotAFile`]) before opening it: opening a named pipe
/// blocks until a writer comes, and a device may never end.
pub fn open_regular(path: &Path) -> Result<File, DbError> {
    let io = |source| DbError::Io {
        path: path.to_path_buf(),
        source,
    };
    let kind = fs::metadata(path).map_err(io)?.file_type();
    if !kind.is_file() {
        return Err(DbError::NotAFile {
            path: path.to_path_buf(),
            kind: file_kind(&kind),
        });
    }
    File::open(path).map_err(io)
}

/// A name for a kind of file that is not a regular one.
fn file_kind(kind: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Removes a temporary file unless disarmed (`.0 = None`).
pub(crate) struct TmpGuard(pub(crate) Option<PathBuf>);

impl Drop for TmpGuard {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = fs::remove_file(p);
        }
    }
}
