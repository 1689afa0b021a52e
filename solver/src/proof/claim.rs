//! Claims on units: one file a unit in `claims/`, created atomically, naming its worker
//! and when its lease expires.
//!
//! A worker takes a unit by creating `claims/<unit>` with `create_new` (which fails when
//! the file exists, on one machine or on a shared file system), keeps the lease alive by
//! rewriting the file through a rename while it works ([`Claims::renew`]), and removes it
//! once the unit's result is synced. A worker that dies stops renewing: once its lease
//! has expired, another worker retakes the unit by renaming the stale claim away (a rename
//! of one file succeeds for one worker only) and creating its own. The worst a race can do
//! is let two workers solve the same unit; both answers are true bounds, and the results
//! reader keeps one and checks that the others agree.
//!
//! Expiry is read from the claim's `expires` line (seconds since the Unix epoch by the
//! writer's clock): the workers' clocks must agree to well within the lease.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What a claim file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimInfo {
    pub worker: String,
    /// Seconds since the Unix epoch.
    pub expires: u64,
}

impl ClaimInfo {
    fn text(&self) -> String {
        format!("worker {}\nexpires {}\n", self.worker, self.expires)
    }

    fn parse(s: &str) -> Option<ClaimInfo> {
        let mut worker = None;
        let mut expires = None;
        for line in s.lines() {
            match line.split_once(' ') {
                Some(("worker", w)) => worker = Some(w.to_string()),
                Some(("expires", e)) => expires = e.parse().ok(),
                _ => {}
            }
        }
        Some(ClaimInfo {
            worker: worker?,
            expires: expires?,
        })
    }
}

/// Seconds since the Unix epoch.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Remove a stale claim moved out of the way: a file, or whatever stood in its place.
fn remove_stale(path: &Path) -> std::io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(path),
        _ => fs::remove_file(path),
    }
}

/// The claims directory of a proof, seen by one worker.
#[derive(Clone, Debug)]
pub struct Claims {
    dir: PathBuf,
    worker: String,
    lease: Duration,
}

impl Claims {
    pub fn new(dir: &Path, worker: &str, lease: Duration) -> Claims {
        Claims {
            dir: dir.to_path_buf(),
            worker: worker.to_string(),
            lease,
        }
    }

    fn path(&self, unit: &str) -> PathBuf {
        self.dir.join(unit)
    }

    fn mine(&self) -> ClaimInfo {
        ClaimInfo {
            worker: self.worker.clone(),
            expires: now_secs() + self.lease.as_secs().max(1),
        }
    }

    /// What the claim on `unit` says, if there is one. A claim file that cannot be read
    /// as one (a worker killed between creating and writing it, or one still writing it)
    /// counts as live until it is older than a lease, and expired after.
    pub fn read(&self, unit: &str) -> Option<ClaimInfo> {
        self.read_at(&self.path(unit))
    }

    /// [`Claims::read`] of the claim file at `path`: the one rule by which every claim,
    /// in place or just moved aside, is judged live or expired.
    fn read_at(&self, path: &Path) -> Option<ClaimInfo> {
        let bytes = match super::journal::read_regular(path) {
            Ok(b) => b,
            // Not a file a worker writes (a named pipe, a directory): expired, so that
            // the unit is retaken instead of waited on for ever.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
                return Some(ClaimInfo {
                    worker: "(not a regular file)".to_string(),
                    expires: 0,
                })
            }
            Err(_) => return None,
        };
        let text = String::from_utf8_lossy(&bytes);
        ClaimInfo::parse(&text).or_else(|| {
            // Its lease runs from the file's last change: one older than a lease has
            // expired (`expires < now`) and is retaken, one younger is live.
            let age = fs::metadata(path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .unwrap_or_default();
            let lease = self.lease.max(Duration::from_secs(1));
            let now = now_secs();
            let written = now.saturating_sub(age.as_secs());
            let expires = if age >= lease {
                // Expired: strictly before now, whatever the rounding of the seconds.
                (written + lease.as_secs()).min(now.saturating_sub(1))
            } else {
                (written + lease.as_secs()).max(now)
            };
            Some(ClaimInfo {
                worker: "(unreadable claim)".to_string(),
                expires,
            })
        })
    }

    /// Take `unit` if nobody holds a live claim on it: `Ok(true)` when this worker now
    /// holds it.
    pub fn try_claim(&self, unit: &str) -> std::io::Result<bool> {
        if self.create(unit)? {
            return Ok(true);
        }
        match self.read(unit) {
            Some(c) if c.expires >= now_secs() => return Ok(false),
            None => return Ok(false),
            Some(_) => {}
        }
        self.retake(unit)
    }

    /// Take `unit` whose claim was just read as expired. Another worker may have retaken
    /// it since the read: the claim is moved aside, judged again, and given back if live.
    fn retake(&self, unit: &str) -> std::io::Result<bool> {
        // Move it out of the way; only one worker's rename of it succeeds.
        let stale = self.dir.join(format!(".stale-{}-{unit}", self.worker));
        match fs::rename(self.path(unit), &stale) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e),
        }
        // Judged by the same rule as the read above: a claim another worker created
        // between that read and the rename may still be empty (created, not yet written),
        // and an empty young claim is live, not stale.
        if self
            .read_at(&stale)
            .is_some_and(|c| c.expires >= now_secs())
        {
            // Another worker retook it between the read and the rename: give it back.
            if !self.path(unit).exists() {
                fs::rename(&stale, self.path(unit))?;
            } else {
                fs::remove_file(&stale)?;
            }
            return Ok(false);
        }
        remove_stale(&stale)?;
        self.create(unit)
    }

    /// Create the claim file; `Ok(false)` when it exists.
    fn create(&self, unit: &str) -> std::io::Result<bool> {
        let text = self.mine().text();
        self.create_with(unit, |f| {
            f.write_all(text.as_bytes())?;
            f.sync_data()
        })
    }

    /// Create the claim file and fill it with `write`. A claim whose write fails (a full
    /// disk) is removed before the error is returned: left behind, it would hold its unit
    /// for a lease with nobody working on it.
    fn create_with(
        &self,
        unit: &str,
        write: impl FnOnce(&mut fs::File) -> std::io::Result<()>,
    ) -> std::io::Result<bool> {
        let path = self.path(unit);
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut f) => match write(&mut f) {
                Ok(()) => Ok(true),
                Err(e) => {
                    drop(f);
                    // The write's error is the one to report; a claim that cannot be
                    // removed either expires with its lease.
                    let _ = fs::remove_file(&path);
                    Err(e)
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Push the lease of this worker's claim on `unit` forward; `Ok(false)` when the claim
    /// is no longer this worker's (it expired and was retaken).
    pub fn renew(&self, unit: &str) -> std::io::Result<bool> {
        match self.read(unit) {
            Some(c) if c.worker == self.worker => {}
            _ => return Ok(false),
        }
        let tmp = self.dir.join(format!(".renew-{}-{unit}", self.worker));
        if let Err(e) = fs::write(&tmp, self.mine().text()) {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        fs::rename(&tmp, self.path(unit))?;
        Ok(true)
    }

    /// Drop this worker's claim on `unit` (after its result is synced).
    pub fn release(&self, unit: &str) -> std::io::Result<()> {
        if self.read(unit).is_some_and(|c| c.worker == self.worker) {
            match fs::remove_file(self.path(unit)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }

    /// Remove the claim on `unit` whoever holds it (its unit is answered).
    pub fn clear(&self, unit: &str) {
        // A claim that is already gone is what was wanted.
        let _ = fs::remove_file(self.path(unit));
    }

    /// Every claim file's unit name and what it says.
    pub fn all(&self) -> std::io::Result<Vec<(String, ClaimInfo)>> {
        let mut out = Vec::new();
        for e in fs::read_dir(&self.dir)? {
            let name = e?.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if let Some(c) = self.read(&name) {
                out.push((name, c));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_claim_is_exclusive_and_an_expired_one_is_retaken() {
        let dir = tempfile::tempdir().unwrap();
        let a = Claims::new(dir.path(), "a", Duration::from_secs(100));
        let b = Claims::new(dir.path(), "b", Duration::from_secs(100));
        assert!(a.try_claim("u1").unwrap());
        assert!(!b.try_claim("u1").unwrap(), "a holds a live claim");
        assert!(a.renew("u1").unwrap());
        assert!(!b.renew("u1").unwrap(), "b holds nothing to renew");

        // a dies: its lease runs out.
        let stale = ClaimInfo {
            worker: "a".into(),
            expires: now_secs() - 1,
        };
        fs::write(dir.path().join("u1"), stale.text()).unwrap();
        assert!(b.try_claim("u1").unwrap(), "an expired claim is retaken");
        assert_eq!(b.read("u1").unwrap().worker, "b");
        assert!(!a.renew("u1").unwrap(), "a lost it");
        a.release("u1").unwrap();
        assert!(dir.path().join("u1").exists(), "a cannot drop b's claim");
        b.release("u1").unwrap();
        assert!(!dir.path().join("u1").exists());
        assert_eq!(a.all().unwrap(), vec![]);
    }

    #[test]
    fn a_named_pipe_or_a_directory_in_place_of_a_claim_is_retaken_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let a = Claims::new(dir.path(), "a", Duration::from_secs(100));
        let fifo = dir.path().join("u1");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert!(a.try_claim("u1").unwrap(), "the pipe is not a live claim");
        assert_eq!(a.read("u1").unwrap().worker, "a");
        fs::create_dir(dir.path().join("u2")).unwrap();
        assert!(a.try_claim("u2").unwrap(), "nor is a directory");
        assert_eq!(a.read("u2").unwrap().worker, "a");
    }

    #[test]
    fn a_claim_retaken_while_still_empty_is_given_back_not_removed() {
        // b read the unit's claim as expired; before its rename, a retook the unit and
        // has created its claim file but not yet written it.
        let dir = tempfile::tempdir().unwrap();
        let b = Claims::new(dir.path(), "b", Duration::from_secs(100));
        fs::write(dir.path().join("u1"), "").unwrap();
        assert!(!b.retake("u1").unwrap(), "a's claim is live");
        assert_eq!(
            fs::read(dir.path().join("u1")).unwrap(),
            b"",
            "and still a's"
        );
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "nothing left aside"
        );
    }

    /// Set the modification time of `path` to `secs` seconds ago.
    fn age(path: &Path, secs: u64) {
        let f = fs::File::options().write(true).open(path).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(secs))
            .unwrap();
    }

    #[test]
    fn an_empty_claim_older_than_the_lease_is_retaken() {
        // A worker killed between creating its claim and writing it.
        let dir = tempfile::tempdir().unwrap();
        let a = Claims::new(dir.path(), "a", Duration::from_secs(300));
        let path = dir.path().join("u1");
        fs::write(&path, "").unwrap();
        assert!(!a.try_claim("u1").unwrap(), "a young empty claim is live");
        age(&path, 600);
        assert!(a.read("u1").unwrap().expires < now_secs());
        assert!(a.try_claim("u1").unwrap(), "an old one has expired");
        assert_eq!(a.read("u1").unwrap().worker, "a");
        // Just past the lease, and just inside it.
        fs::write(dir.path().join("u2"), "").unwrap();
        age(&dir.path().join("u2"), 301);
        assert!(a.try_claim("u2").unwrap());
        fs::write(dir.path().join("u3"), "garbage").unwrap();
        age(&dir.path().join("u3"), 290);
        assert!(!a.try_claim("u3").unwrap());
    }

    #[test]
    fn a_claim_whose_write_fails_is_not_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let a = Claims::new(dir.path(), "a", Duration::from_secs(300));
        let e = a
            .create_with("u1", |_| {
                Err(std::io::Error::other("no space left on device"))
            })
            .unwrap_err();
        assert_eq!(e.to_string(), "no space left on device");
        assert!(!dir.path().join("u1").exists(), "no empty claim left");
        assert!(a.try_claim("u1").unwrap(), "the unit is free");
    }

    #[test]
    fn two_workers_retaking_one_expired_claim_at_once_give_it_to_one() {
        let dir = tempfile::tempdir().unwrap();
        let a = Claims::new(dir.path(), "a", Duration::from_secs(100));
        let b = Claims::new(dir.path(), "b", Duration::from_secs(100));
        let stale = ClaimInfo {
            worker: "dead".into(),
            expires: now_secs() - 1,
        };
        for round in 0..300 {
            let unit = format!("u{round}");
            fs::write(dir.path().join(&unit), stale.text()).unwrap();
            let gate = std::sync::Barrier::new(2);
            let take = |c: &Claims| {
                gate.wait();
                c.try_claim(&unit).unwrap()
            };
            let (x, y) = std::thread::scope(|s| {
                let x = s.spawn(|| take(&a));
                let y = s.spawn(|| take(&b));
                (x.join().unwrap(), y.join().unwrap())
            });
            assert!(x != y, "round {round}: a took it {x}, b took it {y}");
        }
    }
}
