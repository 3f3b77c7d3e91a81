//! Untraced exact queries on den520d with three builds of the library (see run.sh): the
//! cost of the search-trace hook when tracing is off. Criterion times each build in turn;
//! then, since a shared machine's load drifts over a run by more than the few per cent
//! looked for, rounds that time every build once each, interleaved, give the ratios.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::time::{Duration, Instant};

/// A batch of 1000 queries with one build: open cells drawn by a fixed generator, kept
/// when a path joins them, answered with one reused context.
macro_rules! batch {
    ($krate:ident, $traced:expr) => {{
        use $krate::io::read_map;
        use $krate::{Cell, HpaMap, Mode, SearchContext};
        let path = std::env::var("QUADPATH_MAP").expect("QUADPATH_MAP");
        let grid = read_map(&path).unwrap();
        let map = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
        let mut seed = 12345u64;
        let mut next = |n: u32| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % u64::from(n)) as u32
        };
        let mut pairs = Vec::new();
        while pairs.len() < 1000 {
            let a = Cell::new(next(grid.width()), next(grid.height()));
            let b = Cell::new(next(grid.width()), next(grid.height()));
            if grid.is_free(a) && grid.is_free(b) && map.find_path(a, b).is_ok() {
                pairs.push((a, b));
            }
        }
        let mut ctx = SearchContext::new();
        ctx.set_tracing($traced);
        Box::new(move || {
            let mut total = 0.0;
            for &(a, b) in &pairs {
                total += map.find_path_with(&mut ctx, a, b).unwrap().length;
            }
            total
        }) as Box<dyn FnMut() -> f64>
    }};
}

/// The builds compared, each made only when `keep` says so.
fn builds(keep: impl Fn(&str) -> bool) -> Vec<(&'static str, Box<dyn FnMut() -> f64>)> {
    let mut out: Vec<(&'static str, Box<dyn FnMut() -> f64>)> = Vec::new();
    if keep("no_hook") {
        out.push(("no_hook", batch!(no_hook, false)));
    }
    if keep("generic_untraced") {
        out.push(("generic_untraced", batch!(generic, false)));
    }
    if keep("branch_untraced") {
        out.push(("branch_untraced", batch!(branch, false)));
    }
    if keep("generic_traced") {
        out.push(("generic_traced", batch!(generic, true)));
    }
    out
}

fn trace_hook(c: &mut Criterion) {
    // `TRACE_HOOK_ONLY=build TRACE_HOOK_BATCHES=k`: only that build, k batches, no timing:
    // for counting instructions under `valgrind --tool=callgrind`, which a loaded machine
    // does not disturb (run.sh's last step).
    if let Ok(only) = std::env::var("TRACE_HOOK_ONLY") {
        let k: usize = std::env::var("TRACE_HOOK_BATCHES").map_or(1, |k| k.parse().unwrap());
        let mut chosen = builds(|name| name == only);
        for _ in 0..k {
            black_box((chosen[0].1)());
        }
        return;
    }
    let mut builds = builds(|_| true);
    let lengths: Vec<f64> = builds.iter_mut().map(|(_, run)| run()).collect();
    assert!(lengths.windows(2).all(|w| (w[0] - w[1]).abs() < 1e-6), "{lengths:?}");
    let mut g = c.benchmark_group("den520d_1000_exact_queries");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for (name, run) in &mut builds {
        g.bench_function(*name, |b| b.iter(|| black_box(run())));
    }
    g.finish();
    let rounds = 40;
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); builds.len()];
    for round in 0..rounds {
        // Rotate the order so that no build always runs first (or after a given one).
        for k in 0..builds.len() {
            let i = (k + round) % builds.len();
            let t = Instant::now();
            black_box((builds[i].1)());
            times[i].push(t.elapsed().as_secs_f64());
        }
    }
    println!("interleaved: {rounds} rounds of 1000 queries per build; per build the median ms a batch,");
    println!("and the median over rounds of its time / no_hook's time in the same round");
    for (i, (name, _)) in builds.iter().enumerate() {
        let mut ratios: Vec<f64> = (0..rounds).map(|r| times[i][r] / times[0][r]).collect();
        ratios.sort_by(f64::total_cmp);
        let mut own = times[i].clone();
        own.sort_by(f64::total_cmp);
        println!(
            "  {name:18} {:8.1} ms   × no_hook {:.3} (quartiles {:.3}–{:.3})",
            own[rounds / 2] * 1e3,
            ratios[rounds / 2],
            ratios[rounds / 4],
            ratios[3 * rounds / 4]
        );
    }
}

criterion_group!(benches, trace_hook);
criterion_main!(benches);
