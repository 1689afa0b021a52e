//! Times the build of one endgame level of Kalah(6,4) (standard capture): levels `0..K`
//! once, then level `K` ROUNDS times on THREADS threads (default 1), each build timed
//! alone, with a hash of the level's bytes so that two builds of the solver can be checked
//! to give the same level.
//!
//! `cargo run --release --example level_time -p solver -- K ROUNDS [THREADS]`

use std::time::Instant;

use solver::gen::{self, Lower};
use solver::{Game, Rules};

fn main() {
    let arg = |i: usize| std::env::args().nth(i);
    let usage = "usage: level_time K ROUNDS [THREADS]";
    let k: u32 = arg(1).and_then(|a| a.parse().ok()).expect(usage);
    let rounds: usize = arg(2).and_then(|a| a.parse().ok()).expect(usage);
    let threads: usize = arg(3).map_or(1, |a| a.parse().expect(usage));
    let game = Game::new(Rules::kalah(6, 4).expect("Kalah(6,4) is a valid game"));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let build = |levels: &[Vec<i8>], j: u32| {
        let lower: Vec<&[i8]> = levels.iter().map(Vec::as_slice).collect();
        pool.install(|| gen::build_level(&game, j, Lower::Values(&lower), None, &|_| {}))
            .expect("the levels below are all there")
    };
    let mut levels: Vec<Vec<i8>> = Vec::new();
    for j in 0..k {
        let level = build(&levels, j);
        levels.push(level);
    }
    let mut total = 0.0;
    for round in 0..rounds {
        let start = Instant::now();
        let level = build(&levels, k);
        let seconds = start.elapsed().as_secs_f64();
        total += seconds;
        // FNV-1a over the level's bytes.
        let hash = level.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b as u8)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        println!(
            "level {k}, round {round}: {seconds:.3} s, {} boards, hash {hash:016x}",
            level.len()
        );
    }
    println!(
        "level {k}: mean {:.3} s over {rounds} rounds, {threads} threads",
        total / rounds as f64
    );
}
