//! Criterion benchmarks: sowing and move generation, database index ranking, one database
//! level build, the transposition table's probe and store, the endgame table's and a
//! database file's probes, and exact solves of fixed positions (each asserting its value).
//! Each of the search's pieces is measured alone here, so that a change to one shows in
//! its own figure; `scripts/speed.sh` measures whole solves, paired against a reference.
//!
//! Each group is kept short (10 samples, about a second of measurement), so that
//! `cargo bench -p benches -- --quick` finishes in a minute or two and
//! `cargo bench --no-run` only compiles. `kalah bench` is the command-line counterpart
//! whose node counts are recorded in `results/bench.md`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use db_format::Format;
use db_format::Ranker;
use solver::gen::{build_level, Lower};
use solver::notation::play_record;
use solver::search::tt::{Stats, Table, DEFAULT_MB, EXACT};
use solver::{
    Board, Capture, Database, Endgame, Game, MemoryDb, Position, Probe, RulesBuilder, Solver,
};

fn game(pits: usize, seeds: usize, capture: Capture) -> Game {
    let mut b = RulesBuilder::new(pits, seeds);
    b.capture = Some(capture);
    // Invariant: the sizes and switches used below are valid.
    Game::new(b.build().expect("valid rules"))
}

/// Boards to sow from: start positions and a few fixed mid-game boards (mover's row
/// first, then the opponent's).
fn boards() -> Vec<(&'static str, Board)> {
    vec![
        ("6x4-start", Board::start(6, 4)),
        (
            "6x4-midgame",
            Board::from_cells(6, &[2, 1, 1, 0, 5, 3, 9, 1, 10, 1, 1, 1]),
        ),
        (
            "6x5-midgame",
            Board::from_cells(6, &[0, 13, 1, 2, 0, 11, 2, 3, 1, 0, 0, 2]),
        ),
    ]
}

fn sowing(c: &mut Criterion) {
    let mut g = c.benchmark_group("sowing");
    g.sample_size(10).measurement_time(Duration::from_secs(1));
    for capture in [Capture::Standard, Capture::Empty] {
        let game = game(6, 4, capture);
        for (name, board) in boards() {
            g.bench_with_input(
                BenchmarkId::new(format!("play-all-moves/{capture}"), name),
                &board,
                |b, board| {
                    b.iter(|| {
                        let mut gain = 0;
                        for pit in 0..6 {
                            if board.own(6)[pit] > 0 {
                                gain += game.play(black_box(board), pit).gain();
                            }
                        }
                        gain
                    })
                },
            );
        }
        let start = Board::start(6, 4);
        g.bench_function(format!("steps/{capture}/6x4-start"), |b| {
            b.iter(|| game.steps(black_box(&start)).count())
        });
    }
    g.finish();
}

fn ranking(c: &mut Criterion) {
    let mut g = c.benchmark_group("ranking");
    g.sample_size(10).measurement_time(Duration::from_secs(1));
    // Level 8 of Kalah(6,n): 75,582 positions of 8 seeds in 12 cells.
    let ranker = Ranker::new(12, 8).expect("a valid level");
    let count = ranker.count();
    g.bench_function("unrank-rank-level-12x8", |b| {
        let mut cells = [0u8; 12];
        b.iter(|| {
            let mut sum = 0u64;
            for r in 0..count {
                ranker.unrank(r, &mut cells);
                sum += ranker.rank(black_box(&cells));
            }
            // rank(unrank(r)) == r for every r.
            assert_eq!(sum, count * (count - 1) / 2);
            sum
        })
    });
    g.finish();
}

fn database(c: &mut Criterion) {
    let mut g = c.benchmark_group("database");
    g.sample_size(10).measurement_time(Duration::from_secs(2));
    let game = game(6, 4, Capture::Standard);
    let mut lower = MemoryDb::new(6);
    for k in 0..8 {
        let level =
            build_level(&game, k, Lower::Probe(&lower), None, &|_| {}).expect("level builds");
        lower.push(level).expect("level fits");
    }
    g.bench_function("build-level-6x-k8", |b| {
        b.iter(|| {
            let level =
                build_level(&game, 8, Lower::Probe(&lower), None, &|_| {}).expect("level builds");
            assert_eq!(level.len(), 75_582);
            level
        })
    });
    g.finish();
}

/// `n` boards of `seeds` seeds in Kalah(6,·)'s 12 pits, spread over the level by a fixed
/// pseudo-random walk (the same boards every run): probes of tables read them at random,
/// as the search does.
fn random_boards(seeds: u32, n: usize) -> Vec<Board> {
    let ranker = Ranker::new(12, seeds).expect("a valid level");
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    let mut cells = [0u8; 12];
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ranker.unrank(x % ranker.count(), &mut cells);
            Board::from_cells(6, &cells)
        })
        .collect()
}

fn table(c: &mut Criterion) {
    let mut g = c.benchmark_group("table");
    g.sample_size(10).measurement_time(Duration::from_secs(1));
    // The default table of a Kalah(6,4) solve, probed at boards of 24 seeds: most probes
    // miss the caches, as in the search.
    let table = Table::for_boards(DEFAULT_MB, 6, 48).expect("the table allocates");
    let boards = random_boards(24, 1 << 16);
    let mut stats = Stats::default();
    for (i, b) in boards.iter().enumerate() {
        let key = table.key(b);
        table.store(&key, EXACT, -2, 2, (i % 6) as u8, 10, &mut stats);
    }
    g.bench_function("probe-64k-boards", |bench| {
        bench.iter(|| {
            let mut hits = 0u32;
            for b in &boards {
                let key = table.key(black_box(b));
                hits += u32::from(table.probe_key(&key, &mut stats).is_some());
            }
            hits
        })
    });
    g.bench_function("store-64k-boards", |bench| {
        bench.iter(|| {
            for (i, b) in boards.iter().enumerate() {
                let key = table.key(black_box(b));
                table.store(&key, EXACT, -4, 4, (i % 6) as u8, 12, &mut stats);
            }
        })
    });
    g.finish();
}

fn endgame(c: &mut Criterion) {
    let mut g = c.benchmark_group("endgame");
    g.sample_size(10).measurement_time(Duration::from_secs(1));
    // Kalah(6,·) to 14 seeds: 9.9 M boards, larger than the caches.
    let game = game(6, 4, Capture::Standard);
    let table = Endgame::build(&game, 14, |_, _| {}).expect("the table builds");
    let boards = random_boards(14, 1 << 16);
    g.bench_function("rank-and-read-64k-boards-k14", |bench| {
        bench.iter(|| {
            boards
                .iter()
                .map(|b| table.get(black_box(b), 14))
                .sum::<i32>()
        })
    });
    g.finish();
}

/// Levels `0..=max` of Kalah(6,4) in one-byte files in a fresh folder (kept while it lives).
fn database_files(max: u32) -> (tempfile::TempDir, Database) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let game = game(6, 4, Capture::Standard);
    let rules = *game.rules();
    let mut lower = MemoryDb::new(6);
    for k in 0..=max {
        let level =
            build_level(&game, k, Lower::Probe(&lower), None, &|_| {}).expect("level builds");
        db_format::write_level(dir.path(), &rules.db_key(), k, &level, Format::Byte)
            .expect("level writes");
        lower.push(level).expect("level fits");
    }
    let db = Database::open(dir.path(), &rules).expect("the files open");
    (dir, db)
}

fn database_probe(c: &mut Criterion) {
    let mut g = c.benchmark_group("database-probe");
    g.sample_size(10).measurement_time(Duration::from_secs(1));
    let (_dir, db) = database_files(12);
    let boards = random_boards(12, 1 << 16);
    g.bench_function("value-64k-boards-k12", |bench| {
        bench.iter(|| {
            boards
                .iter()
                .map(|b| db.value(black_box(b)).unwrap_or(0))
                .sum::<i32>()
        })
    });
    g.finish();
}

/// Solve `pos` with a fresh table and check the final margin.
fn solve(game: &Game, pos: &Position, expected: i32) -> u64 {
    let mut solver = Solver::new(game, 16).expect("counter-clockwise rules");
    let v = solver.value(&pos.board());
    assert_eq!(solver::score::margin(pos, v), expected);
    solver.nodes
}

fn solving(c: &mut Criterion) {
    let mut g = c.benchmark_group("solve");
    g.sample_size(10).measurement_time(Duration::from_secs(2));
    // Published start values (Irving, Donkers & Uiterwijk 2000, empty capture).
    for (pits, seeds, expected) in [(4, 3, 8), (5, 3, 8)] {
        let game = game(pits, seeds, Capture::Empty);
        let start = Position::start(game.rules());
        g.bench_function(format!("start-{pits}x{seeds}-empty"), |b| {
            b.iter(|| solve(&game, &start, expected))
        });
    }
    // `kalah bench`'s 6x4-standard-c.
    let game = game(6, 4, Capture::Standard);
    let record = "A5 B3+ B4 A6 B1+ B5 A2 B1 A3 B1 A5 B4 A1+ A5 B6 A1 B2 A1";
    let start = Position::start(game.rules());
    let pos = play_record(&game, &start, record).expect("a legal record")[17].after;
    g.bench_function("6x4-standard-c", |b| b.iter(|| solve(&game, &pos, -8)));
    g.finish();
}

criterion_group!(
    benches,
    sowing,
    ranking,
    database,
    table,
    endgame,
    database_probe,
    solving
);
criterion_main!(benches);
