//! Exact mode with the subgoal graph (`Config::subgoals`) against exact mode over the gate
//! graph and grid A\* (`quadpath::baseline::astar`), on the same scenario queries of the
//! maps in `../shared/maps`: median query time (full cell path), build time, memory, and
//! the time of edits on each map (one cell blocked and freed, a 4×4 building placed and
//! removed). Every subgoal path is checked against the scenario's optimal length.
//!
//! `cargo bench -p quadpath-bench --bench subgoals -- [--maps a,b] [--queries N] [--rounds R]
//! [--profile N [--no-edits]]` (`--edits R`: only the edit times, each kind repeated R
//! times over, the subgoal layer's also apart: blocking and freeing a cell, placing and
//! removing a building, in wall and in thread CPU time; `--no-edits` leaves them and the
//! levels' rebuild time out of a `--profile` loop, and first compare the subgoal layer as
//! built, without a gate graph, with the same layer keeping one; `--landmarks 2,4,8`: only
//! corner queries of subgoal layers built with
//! each `Config::landmarks`, alternated query by query, with their landmark bytes and edit
//! times, so that the landmark count is chosen on one run's ratios; `--fast`: only corner
//! queries of the exact and the fast preset's layers, alternated query by query, with
//! their expansions and the fast paths' mean and worst excess over the optimum (with
//! `--profile N`: the profile loop on the fast preset's layer instead of the exact one);
//! `--min-length L`, `--max-length L`: with `--profile`, only the sampled queries whose
//! optimal length lies in `[L, L']` (the median band, say), the number of profiled
//! `find_corners` calls printed so that per-query counts divide by it;
//! `--edit-profile N`: only N edits of each kind on the subgoal layer, nothing else timed,
//! each kind through its own out-of-line function (`profile_block_cell`,
//! `profile_free_cell`, `profile_place_building`, `profile_remove_building`), so that one
//! callgrind run with `--toggle-collect` on each gives the instructions per kind.)
//!
//! Contenders alternate query by query and each keeps its best median over the rounds: the
//! machine may be shared, and ratios within one run are what to read.

#[path = "common/mod.rs"]
mod common;

use common::{thread_cpu, Rng};
use quadpath::io::{read_map, read_scen};
use quadpath::{Cell, Config, Grid, HpaMap, Rect, SearchContext};
use std::time::{Duration, Instant};

const DEFAULT_MAPS: &[&str] = &[
    "sc1/Aftershock",
    "sc1/Cauldron",
    "sc1/BlackLotus",
    "mapf/brc202d",
    "mapf/den520d",
    "mapf/orz900d",
    "mapf/w_woundedcoast",
];

struct Args {
    maps: Vec<String>,
    queries: usize,
    rounds: usize,
    /// Only the subgoal engine's corner queries, this many rounds, nothing else timed: a
    /// loop for a profiler (`perf record`).
    profile: Option<usize>,
    /// With `--profile`: leave out the edit timings, so that the profile is the queries'.
    no_edits: bool,
    /// Only the edit times, gate graph against subgoal graph, edits of each kind repeated
    /// this many times over (a loop for a profiler too).
    edits: Option<usize>,
    /// Only the landmark sweep: subgoal layers built with each of these
    /// `Config::landmarks`.
    landmarks: Option<Vec<u8>>,
    /// Only exact against fast corner queries; with `--profile`, the profile loop on the
    /// fast preset's layer.
    fast: bool,
    /// Only this many edits of each kind, each kind through its own function: a loop for
    /// callgrind.
    edit_profile: Option<usize>,
    /// With `--profile`: only the queries of optimal length at least this.
    min_length: f64,
    /// With `--profile`: only the queries of optimal length at most this.
    max_length: f64,
}

fn args() -> Args {
    let mut a = Args {
        maps: DEFAULT_MAPS.iter().map(|s| s.to_string()).collect(),
        queries: 300,
        rounds: 3,
        profile: None,
        no_edits: false,
        edits: None,
        landmarks: None,
        fast: false,
        edit_profile: None,
        min_length: 0.0,
        max_length: f64::INFINITY,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--maps" => {
                a.maps = it
                    .next()
                    .expect("--maps a,b")
                    .split(',')
                    .map(String::from)
                    .collect()
            }
            "--queries" => a.queries = it.next().and_then(|v| v.parse().ok()).expect("--queries N"),
            "--rounds" => a.rounds = it.next().and_then(|v| v.parse().ok()).expect("--rounds R"),
            "--profile" => a.profile = it.next().and_then(|v| v.parse().ok()),
            "--no-edits" => a.no_edits = true,
            "--min-length" => {
                a.min_length = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--min-length L")
            }
            "--max-length" => {
                a.max_length = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--max-length L")
            }
            "--edits" => a.edits = it.next().and_then(|v| v.parse().ok()),
            "--fast" => a.fast = true,
            "--edit-profile" => {
                a.edit_profile = it.next().and_then(|v| v.parse().ok());
            }
            "--landmarks" => {
                a.landmarks = it.next().map(|v| {
                    v.split(',')
                        .map(|k| k.parse().expect("--landmarks 2,4,8"))
                        .collect()
                })
            }
            _ => {} // cargo bench's own flags
        }
    }
    a
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Median time of one edit and its undo on `map`, over `n` edits and undos.
fn edit_times(map: &mut HpaMap, side: u32, n: usize) -> Duration {
    let (placed, removed) = edit_times_apart(map, side, n);
    median(placed.into_iter().chain(removed).map(|t| t.wall).collect())
}

/// One edit's wall time and this thread's CPU time (which a shared machine's preemption
/// does not inflate).
#[derive(Clone, Copy)]
struct EditTime {
    wall: Duration,
    cpu: Duration,
}

/// Times `edit`.
fn timed(edit: impl FnOnce()) -> EditTime {
    let (cpu, wall) = (thread_cpu(), Instant::now());
    edit();
    EditTime {
        wall: wall.elapsed(),
        cpu: thread_cpu() - cpu,
    }
}

/// A `side`² block of free cells of `map` at a random spot drawn from `rng`.
fn random_free_block(map: &HpaMap, rng: &mut Rng, side: u32) -> Rect {
    let (w, h) = (map.grid().width(), map.grid().height());
    loop {
        let (x, y) = (
            rng.below((w - side) as usize) as u32,
            rng.below((h - side) as usize) as u32,
        );
        let r = Rect::new(x, y, x + side - 1, y + side - 1);
        if r.cells().all(|c| map.grid().is_free(c)) {
            return r;
        }
    }
}

/// The times of `n` edits on `map` (a `side`² block on random free spots) and of their
/// undos, apart.
fn edit_times_apart(map: &mut HpaMap, side: u32, n: usize) -> (Vec<EditTime>, Vec<EditTime>) {
    let mut rng = Rng(0x5eed);
    let (mut placed, mut removed) = (Vec::new(), Vec::new());
    while placed.len() < n / 2 {
        let r = random_free_block(map, &mut rng, side);
        placed.push(timed(|| {
            map.set_blocked(r, true).unwrap();
        }));
        removed.push(timed(|| {
            map.set_blocked(r, false).unwrap();
        }));
    }
    (placed, removed)
}

/// `--edits` on a subgoal layer: the medians of blocking and freeing one cell, and of
/// placing and removing a 4×4 building, apart, `rounds` × 100 of each, in wall time and
/// in thread CPU time.
fn edit_medians(map: &mut HpaMap, rounds: usize) -> String {
    let (block, free) = edit_times_apart(map, 1, 200 * rounds);
    let (place, remove) = edit_times_apart(map, 4, 200 * rounds);
    let medians = |of: fn(&EditTime) -> Duration| {
        [&block, &free, &place, &remove].map(|v| micros(median(v.iter().map(of).collect())))
    };
    let (wall, cpu) = (medians(|t| t.wall), medians(|t| t.cpu));
    format!(
        "block {:.1} / free {:.1} µs, 4×4 place {:.1} / remove {:.1} µs (thread CPU: {:.1} / {:.1}, {:.1} / {:.1})",
        wall[0], wall[1], wall[2], wall[3], cpu[0], cpu[1], cpu[2], cpu[3],
    )
}

/// `--edits`: a subgoal layer as built (no gate graph) against the same layer keeping its
/// gate graph (asked for by a flow field, as before session 27): build time (the kept one
/// rebuilt by `compact`, which keeps what was asked), bytes as built, of the leaves and the
/// gates apart, and the medians of one-cell and 4×4 edits in thread CPU time, the two layers
/// alternated in slices of 20.
fn lean_against_kept_gates(name: &str, grid: &Grid, rounds: usize) -> String {
    let mut lean = HpaMap::new(grid.clone(), Config::exact()).unwrap();
    let mut kept = HpaMap::new(grid.clone(), Config::exact()).unwrap();
    let goal = grid.free_cells().next().expect("a free cell");
    kept.flow_field(goal).unwrap();
    // The fastest of three builds of each, alternated.
    let (mut lean_build, mut kept_build) = (Duration::MAX, Duration::MAX);
    for _ in 0..3 {
        let t = Instant::now();
        lean = HpaMap::new(grid.clone(), Config::exact()).unwrap();
        lean_build = lean_build.min(t.elapsed());
        let t = Instant::now();
        kept.compact().unwrap();
        kept_build = kept_build.min(t.elapsed());
    }
    // As built: what edits leave behind is `waste`, counted apart.
    let (l, k) = (lean.memory_breakdown(), kept.memory_breakdown());
    let (mut lean_times, mut kept_times) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
    for _ in 0..10 * rounds {
        for (k, side) in [(0, 1), (1, 4)] {
            let (a, b) = edit_times_apart(&mut lean, side, 20);
            lean_times[k].extend(a.into_iter().chain(b));
            let (a, b) = edit_times_apart(&mut kept, side, 20);
            kept_times[k].extend(a.into_iter().chain(b));
        }
    }
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    let cpu = |v: Vec<EditTime>| micros(median(v.iter().map(|t| t.cpu).collect()));
    let [l1, l4] = lean_times.map(cpu);
    let [k1, k4] = kept_times.map(cpu);
    format!(
        "| {name} lean / kept gates | build {:.0} / {:.0} ms | MiB {:.1} / {:.1} (leaves {:.1} / {:.1}, gates {:.1} / {:.1}) | 1 cell {l1:.1} / {k1:.1} µs ({:.2}×) | 4×4 {l4:.1} / {k4:.1} µs ({:.2}×) |",
        lean_build.as_secs_f64() * 1e3,
        kept_build.as_secs_f64() * 1e3,
        mib(l.total()),
        mib(k.total()),
        mib(l.leaves),
        mib(k.leaves),
        mib(l.gates),
        mib(k.gates),
        l1 / k1,
        l4 / k4,
    )
}

fn main() {
    let args = args();
    let root = common::shared_maps();
    if args.fast && args.profile.is_none() {
        println!("| map | exact corners | fast corners | exact ÷ fast | expansions exact / fast | fast excess |");
        println!("|---|---:|---:|---:|---:|---:|");
    } else if args.landmarks.is_none() {
        println!("| map | subgoals | edges | gate exact µs | subgoal exact µs | A* µs | gate ÷ subgoal | A* ÷ subgoal | build gate / subgoal ms | MiB gate / subgoal (graph) | edit 1 cell gate / subgoal µs | edit 4×4 gate / subgoal µs |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    }
    for name in &args.maps {
        let map_path = root.join(format!("{name}.map"));
        let scen_path = [format!("{name}.map.scen"), format!("{name}-even-1.scen")]
            .into_iter()
            .map(|s| root.join(s))
            .find(|p| p.is_file());
        let (Ok(grid), Some(scen_path)) = (read_map(&map_path), scen_path) else {
            eprintln!(
                "{name}: map or scenario missing under {}, skipped",
                root.display()
            );
            continue;
        };
        let scen = read_scen(&scen_path).expect("scenario file");
        let step = (scen.entries.len() / args.queries).max(1);
        let queries: Vec<_> = scen.entries.iter().step_by(step).collect();
        let build = |config: Config| {
            let t = Instant::now();
            let map = HpaMap::new(grid.clone(), config).unwrap();
            (map, t.elapsed())
        };
        if let Some(counts) = &args.landmarks {
            landmark_sweep(name, &grid, &queries, counts, args.rounds);
            continue;
        }
        if args.fast && args.profile.is_none() {
            exact_against_fast(name, &grid, &queries, args.rounds);
            continue;
        }
        let preset = if args.fast {
            Config::fast()
        } else {
            Config::exact()
        };
        let (subgoals, subgoals_build) = build(preset);
        if let Some(n) = args.edit_profile {
            let mut subgoals = subgoals;
            edit_profile(&mut subgoals, n);
            continue;
        }
        if let Some(rounds) = args.profile {
            let band: Vec<_> = queries
                .iter()
                .copied()
                .filter(|q| (args.min_length..=args.max_length).contains(&q.optimal))
                .collect();
            profile_loop(&subgoals, &band, rounds);
            if args.no_edits {
                continue;
            }
            let mut subgoals = subgoals;
            eprintln!(
                "levels rebuilt after an edit (refresh): median {:.2} ms",
                levels_rebuild_time(&mut subgoals, rounds).as_secs_f64() * 1e3
            );
            eprintln!(
                "subgoal edits: 1 cell {:.1} µs, 4×4 {:.1} µs",
                micros(edit_times(&mut subgoals, 1, 200 * rounds)),
                micros(edit_times(&mut subgoals, 4, 100 * rounds)),
            );
            continue;
        }
        let (gates, gates_build) = build(Config::exact().with_subgoals(false));
        if let Some(rounds) = args.edits {
            println!("{}", lean_against_kept_gates(name, &grid, rounds));
            let (mut gates, mut subgoals) = (gates, subgoals);
            println!(
                "| {name} subgoal edits apart | {} |",
                edit_medians(&mut subgoals, rounds)
            );
            println!(
                "| {name} edits only | 1 cell gate / subgoal µs {:.1} / {:.1} | 4×4 {:.1} / {:.1} |",
                micros(edit_times(&mut gates, 1, 200 * rounds)),
                micros(edit_times(&mut subgoals, 1, 200 * rounds)),
                micros(edit_times(&mut gates, 4, 100 * rounds)),
                micros(edit_times(&mut subgoals, 4, 100 * rounds)),
            );
            continue;
        }
        let mut ctx = SearchContext::new();
        let mut best = [Duration::MAX; 3];
        let mut expansions = 0;
        for _ in 0..args.rounds {
            let mut times: [Vec<Duration>; 3] = Default::default();
            for q in &queries {
                let t = Instant::now();
                let p = subgoals.find_path_with(&mut ctx, q.start, q.goal).unwrap();
                times[1].push(t.elapsed());
                expansions += ctx.last_expansions();
                assert!(
                    (p.length - q.optimal).abs() <= q.tolerance(),
                    "{name} line {}: subgoal length {} but optimal {}",
                    q.line,
                    p.length,
                    q.optimal
                );
                let t = Instant::now();
                let g = gates.find_path_with(&mut ctx, q.start, q.goal).unwrap();
                times[0].push(t.elapsed());
                assert!((g.length - p.length).abs() < 1e-6);
                let t = Instant::now();
                let a = astar(&grid, q.start, q.goal);
                times[2].push(t.elapsed());
                assert!(a.map_or(true, |l| (l - p.length).abs() < 1e-6));
            }
            for (b, t) in best.iter_mut().zip(times) {
                *b = (*b).min(median(t));
            }
        }
        eprintln!(
            "{name}: {:.0} subgoal expansions per query",
            expansions as f64 / (queries.len() * args.rounds) as f64
        );
        let mib = |m: &HpaMap| m.memory_bytes() as f64 / (1 << 20) as f64;
        let graph_mib = subgoals.memory_breakdown().subgoals as f64 / (1 << 20) as f64;
        let (mut gates, mut subgoals) = (gates, subgoals);
        let e1 = (
            edit_times(&mut gates, 1, 200),
            edit_times(&mut subgoals, 1, 200),
        );
        let e4 = (
            edit_times(&mut gates, 4, 100),
            edit_times(&mut subgoals, 4, 100),
        );
        println!(
            "| {name} | {} | {} | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} | {:.0} / {:.0} | {:.1} / {:.1} ({:.2}) | {:.1} / {:.1} | {:.1} / {:.1} |",
            subgoals.subgoal_count(),
            subgoals.subgoal_edge_count(),
            micros(best[0]),
            micros(best[1]),
            micros(best[2]),
            best[0].as_secs_f64() / best[1].as_secs_f64(),
            best[2].as_secs_f64() / best[1].as_secs_f64(),
            gates_build.as_secs_f64() * 1e3,
            subgoals_build.as_secs_f64() * 1e3,
            mib(&gates),
            mib(&subgoals),
            graph_mib,
            micros(e1.0),
            micros(e1.1),
            micros(e4.0),
            micros(e4.1),
        );
    }
}

/// Median time of `HpaMap::refresh` rebuilding the subgoal levels that one cell edit
/// dropped (the edit undone at once, untimed, so the graph stays the map's), `rounds` times.
fn levels_rebuild_time(map: &mut HpaMap, rounds: usize) -> Duration {
    let mut rng = Rng(0x1e7e1);
    let (w, h) = (map.grid().width(), map.grid().height());
    let mut times = Vec::new();
    while times.len() < rounds.max(1) {
        let c = Cell::new(rng.below(w as usize) as u32, rng.below(h as usize) as u32);
        if !map.grid().is_free(c) {
            continue;
        }
        map.set_blocked(c, true).unwrap();
        map.set_blocked(c, false).unwrap();
        assert!(
            map.subgoal_levels_size().is_none(),
            "an edit drops the levels"
        );
        let t = Instant::now();
        let report = map.refresh();
        times.push(t.elapsed());
        assert!(report.subgoal_levels && map.subgoal_levels_size().is_some());
    }
    median(times)
}

/// `--edit-profile`: `n` edits of each kind on random free spots (one cell blocked, then
/// freed; a 4×4 building placed, then removed), each through its own function.
fn edit_profile(map: &mut HpaMap, n: usize) {
    let mut rng = Rng(0x5eed);
    for side in [1, 4] {
        for _ in 0..n {
            let r = random_free_block(map, &mut rng, side);
            if side == 1 {
                profile_block_cell(map, r);
                profile_free_cell(map, r);
            } else {
                profile_place_building(map, r);
                profile_remove_building(map, r);
            }
        }
    }
    eprintln!("edit profile: {n} edits of each kind");
}

/// The edit functions of `--edit-profile`, one per kind, kept out of line so that callgrind
/// tells them apart by name. Each passes its own `kind` through `black_box`, so that the
/// compiler cannot merge two of them into one symbol.
macro_rules! profile_edits {
    ($($(#[$doc:meta])* $name:ident: blocked $blocked:literal, kind $kind:literal;)*) => {$(
        $(#[$doc])*
        #[inline(never)]
        fn $name(map: &mut HpaMap, r: Rect) {
            let same = std::hint::black_box($kind) == $kind;
            map.set_blocked(r, $blocked && same).unwrap();
        }
    )*};
}

profile_edits! {
    /// One cell blocked.
    profile_block_cell: blocked true, kind 1;
    /// One cell freed.
    profile_free_cell: blocked false, kind 2;
    /// A 4×4 building placed.
    profile_place_building: blocked true, kind 3;
    /// A 4×4 building removed.
    profile_remove_building: blocked false, kind 4;
}

/// Subgoal corner queries only, `rounds` times over `queries`, with the median and the
/// number of `find_corners` calls printed (the divisor of a callgrind count toggled on it:
/// the expansion count below runs `find_path_with`, which does not call it).
fn profile_loop(map: &HpaMap, queries: &[&quadpath::io::Scenario], rounds: usize) {
    eprintln!(
        "profiled: {} find_corners calls ({rounds} rounds × {} queries)",
        rounds * queries.len(),
        queries.len()
    );
    let mut times = Vec::new();
    for _ in 0..rounds {
        for q in queries {
            let t = Instant::now();
            std::hint::black_box(map.find_corners(q.start, q.goal).unwrap());
            times.push(t.elapsed());
        }
    }
    let mut ctx = SearchContext::new();
    let expansions: usize = queries
        .iter()
        .map(|q| {
            map.find_path_with(&mut ctx, q.start, q.goal).unwrap();
            ctx.last_expansions()
        })
        .sum();
    eprintln!(
        "subgoal corners: median {:.1} µs; {} subgoals, {} edges, levels (arcs, globals) {:?}, {:.1} expansions per query",
        micros(median(times)),
        map.subgoal_count(),
        map.subgoal_edge_count(),
        map.subgoal_levels_size(),
        expansions as f64 / queries.len() as f64
    );
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    let parts: Vec<String> = map
        .memory_breakdown()
        .parts()
        .iter()
        .map(|(name, b)| format!("{name} {:.2}", mib(*b)))
        .collect();
    eprintln!("memory MiB: {}", parts.join(", "));
    let build: Vec<String> = map
        .build_profile()
        .parts()
        .iter()
        .map(|(name, d)| format!("{name} {:.0}", d.as_secs_f64() * 1e3))
        .collect();
    eprintln!("build ms: {}", build.join(", "));
}

/// `--landmarks`: corner queries of subgoal layers built with each of `counts` as
/// `Config::landmarks`, alternated query by query (best median over `rounds`), beside each
/// layer's landmark bytes and its median one-cell and 4×4 edit times.
fn landmark_sweep(
    name: &str,
    grid: &Grid,
    queries: &[&quadpath::io::Scenario],
    counts: &[u8],
    rounds: usize,
) {
    let mut maps: Vec<HpaMap> = counts
        .iter()
        .map(|&k| HpaMap::new(grid.clone(), Config::exact().with_landmarks(k)).unwrap())
        .collect();
    let mut best = vec![Duration::MAX; maps.len()];
    for _ in 0..rounds {
        let mut times = vec![Vec::with_capacity(queries.len()); maps.len()];
        for q in queries {
            for (map, t) in maps.iter().zip(&mut times) {
                let started = Instant::now();
                std::hint::black_box(map.find_corners(q.start, q.goal).unwrap());
                t.push(started.elapsed());
            }
        }
        for (b, t) in best.iter_mut().zip(times) {
            *b = (*b).min(median(t));
        }
    }
    for ((k, map), b) in counts.iter().zip(&mut maps).zip(&best) {
        let landmark_kib = map.memory_breakdown().landmarks as f64 / 1024.0;
        let (e1, e4) = (edit_times(map, 1, 200), edit_times(map, 4, 100));
        println!(
            "| {name} | landmarks {k} | corners {:.1} µs | × first {:.2} | landmarks {landmark_kib:.0} KiB | edit 1 cell {:.1} µs, 4×4 {:.1} µs |",
            micros(*b),
            best[0].as_secs_f64() / b.as_secs_f64(),
            micros(e1),
            micros(e4),
        );
    }
}

/// `--fast`: corner queries of the exact and the fast preset's layers, alternated query by
/// query (best median over `rounds`), with the expansions per query and the fast paths'
/// mean and worst excess over the scenario's optimal length.
fn exact_against_fast(name: &str, grid: &Grid, queries: &[&quadpath::io::Scenario], rounds: usize) {
    let exact = HpaMap::new(grid.clone(), Config::exact()).unwrap();
    let fast = HpaMap::new(grid.clone(), Config::fast()).unwrap();
    let mut best = [Duration::MAX; 2];
    for _ in 0..rounds {
        let mut times = [Vec::new(), Vec::new()];
        for (i, q) in queries.iter().enumerate() {
            // Each goes first on every other query: the second finds the thread's search
            // context warm.
            let order = if i % 2 == 0 { [0, 1] } else { [1, 0] };
            for k in order {
                let map = [&exact, &fast][k];
                let started = Instant::now();
                std::hint::black_box(map.find_corners(q.start, q.goal).unwrap());
                times[k].push(started.elapsed());
            }
        }
        for (b, t) in best.iter_mut().zip(times) {
            *b = (*b).min(median(t));
        }
    }
    let mut ctx = SearchContext::new();
    let (mut expansions, mut excess, mut worst) = ([0usize; 2], 0.0, 0.0f64);
    for q in queries {
        for (map, e) in [&exact, &fast].into_iter().zip(&mut expansions) {
            let p = map.find_path_with(&mut ctx, q.start, q.goal).unwrap();
            *e += ctx.last_expansions();
            let over = p.length / q.optimal.max(1e-9) - 1.0;
            assert!(
                !std::ptr::eq(map, &exact) || (p.length - q.optimal).abs() <= q.tolerance(),
                "{name} line {}: exact length {} but optimal {}",
                q.line,
                p.length,
                q.optimal
            );
            if std::ptr::eq(map, &fast) {
                excess += over.max(0.0);
                worst = worst.max(over);
            }
        }
    }
    let n = queries.len() as f64;
    println!(
        "| {name} | {:.1} µs | {:.1} µs | {:.2} | {:.1} / {:.1} | mean {:.3} %, max {:.2} % |",
        micros(best[0]),
        micros(best[1]),
        best[0].as_secs_f64() / best[1].as_secs_f64(),
        expansions[0] as f64 / n,
        expansions[1] as f64 / n,
        100.0 * excess / n,
        100.0 * worst,
    );
}

/// Grid A\*'s path length.
fn astar(grid: &Grid, start: Cell, goal: Cell) -> Option<f64> {
    quadpath::baseline::astar(grid, start, goal).map(|p| p.length)
}
