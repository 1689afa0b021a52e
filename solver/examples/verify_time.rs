//! Times the re-derivation of every entry of some levels of a database directory, by the
//! verifier's walk (`walk`) or the way it was before it (`unrank`: each rank unranked on
//! its own and re-derived through the [`Database`] probe), on THREADS threads (default
//! 2), with the process's CPU time beside the wall time: the figures of results/db.md,
//! "Every entry re-derived".
//!
//! `cargo run --release --example verify_time -p solver -- DIR walk|unrank K... [--threads N]
//! [--entries N]`: `--entries` times only about N entries from the
//! middle of each level (whole tiles of the walk; as many ranks for `unrank`).
//!
//! The rules are read from DIR's level 0 file (any `*-k000.kdb`).

use std::ops::Range;
use std::path::Path;
use std::time::Instant;

use db_format::{level_size, LevelFile, Ranker};
use rayon::prelude::*;
use solver::dbfile::{rules_from_key, Database};
use solver::verify::{rederive, rederive_tiles, tiles, Levels};
use solver::{Board, Game, Probe};

/// User and system CPU seconds of this process so far.
fn cpu_seconds() -> [f64; 2] {
    let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` writes one `rusage` into the pointer it is given, which points
    // at one; its result is read only when the call succeeds.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, u.as_mut_ptr()) } == 0;
    if !ok {
        return [f64::NAN; 2];
    }
    // SAFETY: the call succeeded, so it filled the struct (and zeroed was valid anyway).
    let u = unsafe { u.assume_init() };
    let t = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    [t(u.ru_utime), t(u.ru_stime)]
}

/// The first wrong rank of `ranks` of level `k`, every rank unranked and re-derived through `db`.
fn by_unranking(game: &Game, db: &Database, k: u32, ranks: Range<u64>) -> Option<u64> {
    let m = game.pits();
    let ranker = Ranker::new(2 * m, k).ok()?;
    ranks.into_par_iter().find_map_first(|rank| {
        let mut c = [0u8; 16];
        ranker.unrank(rank, &mut c[..2 * m]);
        let b = Board::from_cells(m, &c[..2 * m]);
        let stored = db.value(&b)?;
        (rederive(game, &b, db) != Some(stored)).then_some(rank)
    })
}

fn main() {
    let usage = "usage: verify_time DIR walk|unrank K... [--threads N] [--entries N]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut threads, mut entries, mut rest) = (2usize, None::<u64>, Vec::new());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--threads" {
            threads = it.next().and_then(|n| n.parse().ok()).expect(usage);
        } else if a == "--entries" {
            entries = Some(it.next().and_then(|n| n.parse().ok()).expect(usage));
        } else {
            rest.push(a.clone());
        }
    }
    let [dir, how, ks @ ..] = rest.as_slice() else {
        panic!("{usage}");
    };
    let ks: Vec<u32> = ks.iter().map(|k| k.parse().expect(usage)).collect();
    let dir = Path::new(dir);
    let first = std::fs::read_dir(dir)
        .expect("a readable directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.to_string_lossy().ends_with("-k000.kdb"))
        .expect("a level 0 file in DIR");
    let key = LevelFile::open_any(&first).expect("a level file").rules();
    let rules = rules_from_key(&key).expect("rules of a level file");
    let top = ks.iter().copied().max().expect(usage);
    let db = Database::open_up_to(dir, &rules, top).expect("the levels up to the highest K");
    assert!(db.levels() > top, "levels 0..={top} are not all in DIR");
    // Files of either format (a compact level decodes a block a read).
    let level_entries = db.entries();
    let levels = Levels::from_entries(key.cells(), &level_entries).expect("levels of their sizes");
    let game = Game::new(rules);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    println!(
        "level  entries  wall_s  user_s  sys_s  M_entries/s  cpu_ns/entry  ({how}, {threads} threads)"
    );
    for k in ks {
        let count = level_size(key.cells(), k);
        // The middle tiles of at least `entries` entries, or all of them; the ranks of
        // as many entries from the middle of the level for `unrank`.
        let all = tiles(game.pits(), k).expect("the tiles of a level held");
        let part = match entries {
            None => &all[..],
            Some(e) => {
                let (mut lo, mut hi, mut n) = (all.len() / 2, all.len() / 2, 0);
                while n < e && (lo > 0 || hi < all.len()) {
                    if hi < all.len() {
                        n += all[hi].entries(game.pits(), k);
                        hi += 1;
                    }
                    if n < e && lo > 0 {
                        lo -= 1;
                        n += all[lo].entries(game.pits(), k);
                    }
                }
                &all[lo..hi]
            }
        };
        let e = part.iter().map(|t| t.entries(game.pits(), k)).sum::<u64>();
        let start = count.saturating_sub(e) / 2;
        let ranks = start..(start + e).min(count);
        let (w0, c0) = (Instant::now(), cpu_seconds());
        let wrong = pool.install(|| match how.as_str() {
            "walk" => rederive_tiles(&game, &levels, k, part, &|_| {})
                .wrong
                .map(|w| w.rank),
            "unrank" => by_unranking(&game, &db, k, ranks.clone()),
            _ => panic!("{usage}"),
        });
        let c1 = cpu_seconds();
        let (wall, user, sys) = (w0.elapsed().as_secs_f64(), c1[0] - c0[0], c1[1] - c0[1]);
        let cpu = user + sys;
        let n = ranks.end - ranks.start;
        println!(
            "{k:5}  {n}  {wall:.2}  {user:.2}  {sys:.2}  {:.2}  {:.0}{}",
            n as f64 / wall / 1e6,
            cpu / n as f64 * 1e9,
            wrong.map_or(String::new(), |r| format!("  WRONG at rank {r}"))
        );
    }
}
