//! The lock a `kalah db build` holds on its output directory, so that two builds never
//! write the same files.

use std::io::Write;
use std::path::{Path, PathBuf};

use db_format::DbError;

use crate::error::DbCmdError;

/// A build's hold on its output directory: the file `DIR/.lock` (for a shard
/// `DIR/.<shard file name>.lock`), created only if absent, holding the builder's process
/// id, removed when the build ends. Two builds into one directory would write the same
/// temporary files (two builds of one shard, its file); the second is refused instead. A
/// lock whose process no longer runs (a build that was killed) is taken over.
pub struct BuildLock {
    path: PathBuf,
}

impl BuildLock {
    /// Takes the lock file `name` in `dir`, or says which process holds it.
    pub fn take(dir: &Path, name: &str) -> Result<BuildLock, DbCmdError> {
        let path = dir.join(name);
        let io = |source| DbError::Io {
            path: path.clone(),
            source,
        };
        for _ in 0..2 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    write!(f, "{}", std::process::id()).map_err(io)?;
                    return Ok(BuildLock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(&path).unwrap_or_default();
                    let pid = holder.trim().parse::<u32>().ok();
                    let gone = pid.is_some_and(|p| !Path::new(&format!("/proc/{p}")).exists());
                    if !gone || !Path::new("/proc/self").exists() {
                        return Err(DbCmdError::Locked {
                            dir: dir.display().to_string(),
                            lock: path.display().to_string(),
                            holder: holder.trim().to_string(),
                        });
                    }
                    // Its builder was killed: take the lock over.
                    let _ = std::fs::remove_file(&path);
                }
                Err(e) => return Err(io(e).into()),
            }
        }
        Err(DbCmdError::Locked {
            dir: dir.display().to_string(),
            lock: path.display().to_string(),
            holder: String::new(),
        })
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
