//! Times random probes of level files, one byte read (format version 1) against one block
//! decoded (version 2): the probe costs of results/db.md, "Compact files (format version
//! 2)". Every file given must hold the same level; the values read are compared across
//! them (a probe that disagrees stops the run), so the timing measures correct reads.
//!
//! `cargo run --release --example probe_time -p solver -- [--cold] N FILE...`
//!
//! For each file, after one untimed pass of the same ranks (the file's pages in the page
//! cache and mapped): `independent`, N probes of ranks drawn beforehand (SplitMix64),
//! which the processor may overlap; `chained`, N probes each of whose rank depends on the
//! value read before (as a search's next probe depends on its last), which it cannot:
//! the latency of one probe. Reports nanoseconds a probe, the median of 3 rounds.
//!
//! With `--cold`, the file is out of memory instead: before each round its pages are
//! released from the process and dropped from the page cache (`posix_fadvise`
//! `DONTNEED`, which spares pages another process maps), and the round's N chained probes
//! are of ranks no earlier round read, so that nearly every probe is a read from disk.

use std::path::PathBuf;
use std::time::Instant;

use db_format::LevelFile;

/// SplitMix64 of `x`.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The median of three rounds of `f`, in nanoseconds a probe.
fn median3(n: u64, mut f: impl FnMut() -> i64) -> (f64, i64) {
    let mut times = Vec::new();
    let mut sum = 0;
    for _ in 0..3 {
        let t0 = Instant::now();
        sum = std::hint::black_box(f());
        times.push(t0.elapsed().as_secs_f64() * 1e9 / n as f64);
    }
    times.sort_by(f64::total_cmp);
    (times[1], sum)
}

/// Drops `f`'s pages from this process and from the page cache.
fn evict(f: &LevelFile) {
    use std::os::unix::io::AsRawFd;
    f.release_pages().expect("madvise");
    let file = std::fs::File::open(f.path()).expect("the level file");
    // SAFETY: a valid open descriptor; the call only advises the kernel.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(rc, 0, "posix_fadvise");
}

/// `--cold`: chained probes of `f` from disk, the median of 3 rounds, each after
/// [`evict`] and over ranks of its own.
fn cold(n: u64, f: &LevelFile) {
    let len = f.len();
    let mut times = Vec::new();
    for round in 0..3u64 {
        evict(f);
        let t0 = Instant::now();
        let mut v = 0i64;
        for i in 0..n {
            let r = mix((round << 40) ^ i ^ (v as u64)) % len;
            v = i64::from(f.try_get(r).unwrap_or(0));
        }
        std::hint::black_box(v);
        times.push(t0.elapsed().as_secs_f64() * 1e9 / n as f64);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{}  format {:7}  {:>12} bytes  cold chained {:9.1} ns/probe",
        f.path().display(),
        f.format().name(),
        f.header().file_len().unwrap_or(0),
        times[1]
    );
}

fn main() {
    let usage = "usage: probe_time [--cold] N FILE...";
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let is_cold = args.first().is_some_and(|a| a == "--cold");
    if is_cold {
        args.remove(0);
    }
    let n: u64 = args.first().and_then(|a| a.parse().ok()).expect(usage);
    let files: Vec<LevelFile> = args[1..]
        .iter()
        .map(|p| LevelFile::open_any(&PathBuf::from(p)).expect("a level file"))
        .collect();
    assert!(!files.is_empty(), "{usage}");
    let len = files[0].len();
    assert!(
        files
            .iter()
            .all(|f| f.len() == len && f.rules() == files[0].rules()),
        "the files hold different levels"
    );
    if is_cold {
        for f in &files {
            cold(n, f);
        }
        return;
    }
    let ranks: Vec<u64> = (0..n).map(|i| mix(i) % len).collect();
    let want: Vec<i8> = ranks
        .iter()
        .map(|&r| files[0].try_get(r).expect("rank in range"))
        .collect();
    for f in &files {
        // Untimed: the same ranks, checked against the first file.
        for (&r, &w) in ranks.iter().zip(&want) {
            assert_eq!(f.try_get(r), Some(w), "{} rank {r}", f.path().display());
        }
        let (independent, s1) = median3(n, || {
            ranks
                .iter()
                .map(|&r| i64::from(f.try_get(r).unwrap_or(0)))
                .sum()
        });
        let (chained, s2) = median3(n, || {
            let mut v = 0i64;
            let mut sum = 0i64;
            for i in 0..n {
                let r = mix(i ^ (v as u64)) % len;
                v = i64::from(f.try_get(r).unwrap_or(0));
                sum += v;
            }
            sum
        });
        println!(
            "{}  format {:7}  {:>12} bytes  independent {:7.1} ns/probe  chained {:7.1} ns/probe  (sums {s1} {s2})",
            f.path().display(),
            f.format().name(),
            f.header().file_len().unwrap_or(0),
            independent,
            chained
        );
    }
}
