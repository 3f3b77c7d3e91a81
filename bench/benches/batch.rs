//! Batch throughput: queries per second of `HpaMap::find_paths` on rayon pools of 1 and 2
//! threads (or `--threads`), both modes, on the large maps of `../shared/maps` (the five
//! StarCraft maps, maze512-32-9 and orz900d), and the scaling ratio against one thread.
//! Printed as a markdown table (the "Batch queries" section of `BENCHMARKS.md`).
//!
//! Each map's queries are `--sample` lines spread evenly over its scenario file (every
//! difficulty bucket). After an untimed pass on every pool, which grows the workers' search
//! contexts, each of `--reps` rounds times one measurement per pool, in an order that turns
//! with the round; a measurement repeats the whole batch until `--min-ms` have passed, and
//! a pool's figure is the median of its rounds: on a shared machine one slow round should
//! not decide it. Every pool's answers are checked against the first pool's.
//!
//! Usage: `cargo bench -p quadpath-bench --bench batch -- [--sample N] [--reps R] [--min-ms MS]
//! [--threads 1,2] [--maps a,b,...] [--markdown OUT]`; a map name is looked up in `sc1`,
//! `mapf` and `classic`, with its `-even-1.scen` file when it has one, else its `.map.scen`.

mod common;
use common::report::*;
use common::{positive_list, MapBenchArgs};
use quadpath::io::{read_map, read_scen};
use quadpath::{Cell, Grid, HpaMap, Mode};
use std::hint::black_box;
use std::time::Instant;

const DEFAULT_MAPS: &[&str] = &[
    "Cauldron",
    "Expedition",
    "BlackLotus",
    "AcrosstheCape",
    "Aftershock",
    "maze512-32-9",
    "orz900d",
];

const USAGE: &str =
    "cargo bench -p quadpath-bench --bench batch -- [--sample N] [--reps R] [--min-ms MS] \
                     [--threads 1,2] [--maps a,b,...] [--markdown OUT]";

/// A map and the start and goal of every line of its scenario file.
fn find_map(name: &str) -> Option<(Grid, Vec<(Cell, Cell)>)> {
    let root = common::shared_maps();
    let dir = ["sc1", "mapf", "classic"]
        .iter()
        .map(|d| root.join(d))
        .find(|d| d.join(format!("{name}.map")).is_file())?;
    let scen = [format!("{name}-even-1.scen"), format!("{name}.map.scen")]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())?;
    let grid = read_map(dir.join(format!("{name}.map"))).unwrap_or_else(|e| panic!("{e}"));
    let file = read_scen(&scen).unwrap_or_else(|e| panic!("{e}"));
    Some((
        grid,
        file.entries.iter().map(|e| (e.start, e.goal)).collect(),
    ))
}

/// `k` evenly spaced items of `v` (all of them when there are fewer).
fn sample<T: Copy>(v: &[T], k: usize) -> Vec<T> {
    if v.len() <= k {
        return v.to_vec();
    }
    (0..k).map(|i| v[i * v.len() / k]).collect()
}

/// Queries per second of `map.find_paths(queries)` on `pool`, the batch repeated until
/// `min_s` seconds have passed.
fn measure(pool: &rayon::ThreadPool, map: &HpaMap, queries: &[(Cell, Cell)], min_s: f64) -> f64 {
    pool.install(|| {
        let t = Instant::now();
        let mut passes = 0;
        while passes == 0 || t.elapsed().as_secs_f64() < min_s {
            black_box(map.find_paths(queries));
            passes += 1;
        }
        (passes * queries.len()) as f64 / t.elapsed().as_secs_f64()
    })
}

fn fmt_qps(q: f64) -> String {
    if q >= 100.0 {
        format!("{q:.0}")
    } else {
        format!("{q:.1}")
    }
}

fn main() {
    let (mut n, mut reps, mut min_ms, mut threads) = (300usize, 3usize, 250u64, vec![1usize, 2]);
    let args = MapBenchArgs::parse(USAGE, DEFAULT_MAPS, |flag, value| {
        let one = |v: String| positive_list(&v).filter(|v| v.len() == 1).map(|v| v[0]);
        match flag {
            "--sample" => one(value()).map(|v| n = v).is_some(),
            "--reps" => one(value()).map(|v| reps = v).is_some(),
            "--min-ms" => one(value()).map(|v| min_ms = v as u64).is_some(),
            "--threads" => positive_list(&value()).map(|v| threads = v).is_some(),
            _ => false,
        }
    });
    let pools: Vec<rayon::ThreadPool> = threads
        .iter()
        .map(|&t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .expect("the pool starts")
        })
        .collect();
    let min_s = min_ms as f64 / 1e3;
    let started = Instant::now();
    let mut rows = Vec::new();
    let mut scaling: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for name in &args.maps {
        let Some((grid, lines)) = find_map(name) else {
            eprintln!("batch: {name}: not found, skipped");
            continue;
        };
        let queries = sample(&lines, n);
        let size = format!("{}×{}", grid.width(), grid.height());
        for (m, mode) in [Mode::Exact, Mode::Fast].into_iter().enumerate() {
            let mode_name = format!("{mode:?}").to_lowercase();
            eprintln!("batch: {name} {mode_name}");
            let map = HpaMap::new(grid.clone(), mode).expect("builds");
            // The untimed pass: every pool's workers grow their contexts, and every pool
            // must give the first pool's answers.
            let reference = pools[0].install(|| map.find_paths(&queries));
            for (pool, t) in pools.iter().zip(&threads).skip(1) {
                let answers = pool.install(|| map.find_paths(&queries));
                assert!(
                    answers == reference,
                    "{name} {mode_name}: {t} threads differ"
                );
            }
            let mut qps = vec![Vec::new(); pools.len()];
            for round in 0..reps {
                for k in 0..pools.len() {
                    let i = (k + round) % pools.len();
                    qps[i].push(measure(&pools[i], &map, &queries, min_s));
                }
            }
            let qps: Vec<f64> = qps.iter().map(|v| median(v)).collect();
            let mut row = vec![
                name.clone(),
                size.clone(),
                mode_name,
                queries.len().to_string(),
            ];
            row.extend(qps.iter().map(|&q| fmt_qps(q)));
            let ratio = qps[qps.len() - 1] / qps[0];
            row.push(fmt_ratio(ratio));
            scaling[m].push(ratio);
            rows.push(row);
        }
    }
    let mut header: Vec<String> = ["map", "size", "mode", "queries"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    header.extend(threads.iter().map(|t| match t {
        1 => "qps, 1 thread".to_string(),
        t => format!("qps, {t} threads"),
    }));
    header.push(format!(
        "scaling ({} / {})",
        threads[threads.len() - 1],
        threads[0]
    ));
    let mut out = format!(
        "Batch throughput of `HpaMap::find_paths`: queries per second of wall time, median of \
         {reps} rounds (each at least {min_ms} ms of repeated batches) of {n} queries spread \
         over each scenario file; the run took {:.0} s.\n\n",
        started.elapsed().as_secs_f64()
    );
    table(&mut out, &header, &rows);
    out += &format!(
        "Geometric mean scaling: exact {}, fast {}.\n",
        fmt_ratio(geomean(&scaling[0])),
        fmt_ratio(geomean(&scaling[1]))
    );
    args.publish(&out);
}
