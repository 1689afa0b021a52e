//! Solves Kalah(m,n) start positions under clockwise sowing (other switches default) in
//! memory with the cyclic retrograde solver, and prints one Markdown table row each.
//!
//! `cargo run --release --example variants -p solver -- 4x3 4x4 5x3`

use std::time::Instant;

use solver::{gen, Board, Direction, Game, Probe, RulesBuilder};

fn main() {
    let sizes: Vec<(usize, usize)> = std::env::args()
        .skip(1)
        .map(|a| {
            let (m, n) = a.split_once('x').expect("sizes are written MxN, e.g. 4x3");
            (m.parse().expect("pits"), n.parse().expect("seeds"))
        })
        .collect();
    println!("| board | value (South − North) | positions | same-level moves (top) | sweeps (top) | time |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (m, n) in sizes {
        let mut r = RulesBuilder::new(m, n);
        r.direction = Direction::Cw;
        let game = Game::new(r.build().expect("valid size"));
        let start = Board::start(m, n as u8);
        let t = Instant::now();
        let mut positions = 0u64;
        let mut db = solver::MemoryDb::new(m);
        let mut top = gen::cyclic::LevelStats::default();
        for k in 0..=start.seeds() {
            let (values, stats) = gen::cyclic::build_level_cyclic_stats(&game, k, &db, &|_| {})
                .expect("level builds");
            positions += values.len() as u64;
            db.push(values).expect("level size");
            eprintln!(
                "  Kalah({m},{n}) level {k}: {stats:?} at {:.1?}",
                t.elapsed()
            );
            top = stats;
        }
        let v = db.value(&start).expect("start is covered");
        println!(
            "| Kalah({m},{n}) | {v:+} | {positions} | {} | {} | {:.1?} |",
            top.same_level_moves,
            top.sweeps,
            t.elapsed()
        );
    }
}
