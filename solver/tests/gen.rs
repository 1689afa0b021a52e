//! The acyclic endgame generator ([`solver::gen`]) against the reference negamax, the
//! search, itself (slices, threads, both ways of reading the lower levels) and its refusals.

mod support;

use std::collections::HashMap;

use db_format::shard::{split_entries, ShardSpec};
use db_format::Ranker;
use solver::gen::{build_level, distance_sum, GenError, Lower};
use solver::verify::rederive;
use solver::{Board, Direction, Game, MemoryDb, Next, Rules, RulesBuilder, Solver};

/// Levels `0..=max_k` built one after the other into memory.
fn build_all(game: &Game, max_k: u32) -> MemoryDb {
    let mut db = MemoryDb::new(game.pits());
    for k in 0..=max_k {
        let v = build_level(game, k, Lower::Probe(&db), None, &|_| {}).unwrap();
        db.push(v).unwrap();
    }
    db
}

#[test]
fn levels_equal_the_reference_under_every_ccw_rule_combination() {
    for pits in 2..=3 {
        let max_k = if pits == 2 { 9 } else { 7 };
        for rules in support::acyclic_rules(pits, 1) {
            let game = Game::new(rules);
            let db = build_all(&game, max_k);
            let mut memo = HashMap::new();
            for k in 0..=max_k {
                let r = Ranker::new(2 * pits, k).unwrap();
                let mut c = vec![0u8; 2 * pits];
                for i in 0..r.count() {
                    r.unrank(i, &mut c);
                    let b = Board::from_cells(pits, &c);
                    let want = support::reference(&game, &b, &mut memo);
                    assert_eq!(
                        i32::from(db.level(k as usize)[i as usize]),
                        want,
                        "{rules} {b:?}"
                    );
                    assert_eq!(rederive(&game, &b, &db), Some(want));
                }
            }
        }
    }
}

#[test]
fn values_equal_the_solver_on_random_boards() {
    let game = Game::new(Rules::kalah(6, 4).unwrap());
    let db = build_all(&game, 9);
    let mut solver = Solver::new(&game, 16).unwrap();
    let mut rng = support::Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..300 {
        let x = rng.next();
        let k = (x % 10) as u32;
        let (b, rank) = support::random_board(6, k, x >> 20);
        assert_eq!(
            solver.value(&b),
            i32::from(db.level(k as usize)[rank as usize]),
            "{b:?}"
        );
    }
}

#[test]
fn shards_of_any_count_hold_the_whole_levels_entries() {
    let game = Game::new(Rules::kalah(4, 4).unwrap());
    let db = build_all(&game, 7);
    let whole = build_level(&game, 8, Lower::Probe(&db), None, &|_| {}).unwrap();
    for count in [1u32, 2, 3, 5, 7] {
        let mut n = 0;
        for index in 0..count {
            let splits = ShardSpec { index, count }.splits(4, 8).unwrap();
            let part = build_level(&game, 8, Lower::Probe(&db), Some(splits), &|_| {}).unwrap();
            assert_eq!(
                part,
                split_entries(&whole, 4, 8, splits).unwrap(),
                "shard {index}/{count}"
            );
            n += part.len();
        }
        assert_eq!(n, whole.len(), "{count} shards");
    }
}

#[test]
fn thread_count_does_not_change_the_level() {
    let game = Game::new(Rules::kalah(5, 4).unwrap());
    let db = build_all(&game, 7);
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| build_level(&game, 8, Lower::Probe(&db), None, &|_| {}).unwrap())
    };
    assert_eq!(run(1), run(4));
}

/// Timing harness: `KALAH_DB=<dir> KALAH_K=<k> cargo test --release -p solver
/// --test gen time_level -- --ignored --nocapture` builds level `k` of the default
/// 6-pit rules from the levels below it in `dir`, through [`build_level`] with
/// [`Lower::Probe`], [`Lower::Values`] (when every lower level is a file of one byte an
/// entry) and [`Lower::Entries`] (either format) on one thread (or `KALAH_THREADS`), and
/// compares each with level `k` in `dir` if it is there (`KALAH_VIA=probe|values|entries`:
/// only one).
#[test]
#[ignore]
fn time_level() {
    use solver::dbfile::Database;
    let dir = std::path::PathBuf::from(std::env::var("KALAH_DB").expect("KALAH_DB"));
    let k: u32 = std::env::var("KALAH_K").expect("KALAH_K").parse().unwrap();
    let game = Game::new(Rules::kalah(6, 4).unwrap());
    let db = Database::open_up_to(&dir, game.rules(), k).unwrap();
    let lower = Database::open_up_to(&dir, game.rules(), k - 1).unwrap();
    let slices = lower.byte_values();
    let entries = lower.entries();
    let threads = std::env::var("KALAH_THREADS").map_or(1, |t| t.parse().unwrap());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let want = db
        .level(k)
        .map(|f| (0..f.len()).map(|r| f.get(r)).collect::<Vec<i8>>());
    let via = std::env::var("KALAH_VIA").unwrap_or_default();
    for name in ["probe", "values", "entries"] {
        if !via.is_empty() && via != name {
            continue;
        }
        let lower_arg = match (name, &slices) {
            ("probe", _) => Lower::Probe(&lower),
            ("values", Some(s)) => Lower::Values(s),
            ("values", None) => continue,
            _ => Lower::Entries(&entries),
        };
        let t = std::time::Instant::now();
        let got = pool.install(|| build_level(&game, k, lower_arg, None, &|_| {}).unwrap());
        let s = t.elapsed().as_secs_f64();
        println!(
            "level {k} via {name}, {threads} threads: {} positions {s:.2} s {:.2} M/s, \
             identical: {:?}",
            got.len(),
            got.len() as f64 / s / 1e6,
            want.as_ref().map(|w| *w == got)
        );
    }
}

#[test]
fn values_api_equals_the_probe_api_under_every_ccw_rule_combination() {
    for rules in support::acyclic_rules(3, 1) {
        let game = Game::new(rules);
        let db = build_all(&game, 6);
        let levels: Vec<&[i8]> = (0..7).map(|k| db.level(k)).collect();
        for k in 0..=7u32 {
            let want = build_level(&game, k, Lower::Probe(&db), None, &|_| {}).unwrap();
            let got = build_level(
                &game,
                k,
                Lower::Values(&levels[..k as usize]),
                None,
                &|_| {},
            );
            assert_eq!(got.unwrap(), want, "{rules} level {k}");
            // The splits of one row holding 1 seed (and the other k - 1), and the rest.
            let one = if k >= 2 { 0b10 } else { 0 };
            let all = u64::MAX >> (63 - k / 2);
            for splits in [one, all & !one] {
                let part = build_level(
                    &game,
                    k,
                    Lower::Values(&levels[..k as usize]),
                    Some(splits),
                    &|_| {},
                );
                assert_eq!(
                    part.unwrap(),
                    split_entries(&want, 3, k, splits).unwrap(),
                    "{rules} level {k} splits {splits:#b}"
                );
            }
        }
        let e = build_level(&game, 7, Lower::Values(&levels[..5]), None, &|_| {}).unwrap_err();
        assert!(matches!(e, GenError::MissingLower { k: 7, .. }), "{e}");
    }
}

#[test]
fn refusals_are_clear() {
    let mut b = RulesBuilder::new(3, 3);
    b.direction = Direction::Cw;
    let cw = Game::new(b.build().unwrap());
    let e = build_level(&cw, 2, Lower::Probe(&MemoryDb::new(3)), None, &|_| {}).unwrap_err();
    assert!(matches!(e, GenError::Cyclic));
    assert!(e
        .to_string()
        .contains("clockwise rules need the retrograde solver"));
    let game = Game::new(Rules::kalah(3, 3).unwrap());
    let e = build_level(&game, 2, Lower::Probe(&MemoryDb::new(3)), None, &|_| {}).unwrap_err();
    assert!(matches!(e, GenError::MissingLower { k: 2, .. }), "{e}");
    let db = build_all(&game, 1);
    // Level 2 has the splits 0 and 1 only.
    let e = build_level(&game, 2, Lower::Probe(&db), Some(0b100), &|_| {}).unwrap_err();
    assert!(matches!(e, GenError::BadSplits { .. }), "{e}");
    assert!(
        build_level(&game, 0, Lower::Probe(&MemoryDb::new(3)), None, &|_| {}).unwrap() == vec![0]
    );
}

#[test]
fn distance_sum_drops_along_same_level_moves() {
    // Explicit check of the module's argument over every board of a few levels.
    for rules in support::acyclic_rules(3, 1) {
        let game = Game::new(rules);
        for k in 1..=6 {
            let r = Ranker::new(6, k).unwrap();
            let mut c = [0u8; 6];
            for i in 0..r.count() {
                r.unrank(i, &mut c);
                let b = Board::from_cells(3, &c);
                if game.terminal_value(&b).is_some() {
                    continue;
                }
                for (_, s) in game.steps(&b) {
                    if s.next != Next::Over && s.own_gain + s.opp_gain == 0 {
                        assert_eq!(s.next, Next::Other);
                        assert!(distance_sum(&s.board, 3) < distance_sum(&b, 3));
                    }
                }
            }
        }
    }
}
