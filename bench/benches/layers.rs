//! What one layer costs: build time and heap bytes of an [`HpaMap`] in both modes, part by
//! part (`HpaMap::build_profile`, `HpaMap::memory_breakdown`), on the StarCraft maps of
//! `../shared/maps/sc1` and a few others, printed as markdown tables (the "Lean layers"
//! section of `BENCHMARKS.md` keeps them in view).
//!
//! Build time is the median of `--reps` builds; memory is the map's own account, which
//! `tests/hpa_memory.rs` checks against a counting allocator.
//!
//! Usage: `cargo bench -p quadpath-bench --bench layers -- [--reps R] [--maps a,b,...] [--markdown OUT]`;
//! a map name is looked up in `sc1`, `mapf`, `classic` and `rabin`.

mod common;
use common::report::*;
use common::{find_map, positive_list, MapBenchArgs, STARCRAFT_MAPS};
use quadpath::{HpaMap, Mode};
use std::time::{Duration, Instant};

/// Maps run besides the StarCraft set.
const OTHER_MAPS: &[&str] = &["orz900d", "maze512-32-9", "random-64-64-10"];

const USAGE: &str =
    "cargo bench -p quadpath-bench --bench layers -- [--reps R] [--maps a,b,...] [--markdown OUT]";

fn main() {
    let mut reps = 3usize;
    let defaults: Vec<&str> = STARCRAFT_MAPS.iter().chain(OTHER_MAPS).copied().collect();
    let args = MapBenchArgs::parse(USAGE, &defaults, |flag, value| match flag {
        "--reps" => positive_list(&value())
            .and_then(|v| v.first().copied())
            .map(|r| reps = r)
            .is_some(),
        _ => false,
    });
    let mut totals = Vec::new();
    let mut memory_rows = Vec::new();
    let mut build_rows = Vec::new();
    for name in &args.maps {
        let Some(grid) = find_map(name) else {
            eprintln!("layers: {name}: not found, skipped");
            continue;
        };
        eprintln!("layers: {name}");
        let size = format!("{}×{}", grid.width(), grid.height());
        for mode in [Mode::Exact, Mode::Fast] {
            let mode_name = format!("{mode:?}").to_lowercase();
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..reps {
                let t = Instant::now();
                let map = HpaMap::new(grid.clone(), mode).expect("builds");
                times.push(t.elapsed().as_secs_f64() * 1e3);
                last = Some(map);
            }
            let map = last.expect("at least one build");
            let parts = map.memory_breakdown();
            let steps = map.build_profile();
            totals.push(vec![
                name.clone(),
                size.clone(),
                mode_name.clone(),
                fmt_ms(median(&times)),
                fmt_bytes(parts.total()),
            ]);
            let mut row = vec![name.clone(), mode_name.clone()];
            row.extend(parts.parts().iter().map(|&(_, b)| fmt_bytes(b)));
            memory_rows.push(row);
            let mut row = vec![name.clone(), mode_name];
            row.extend(
                steps
                    .parts()
                    .iter()
                    .map(|&(_, d): &(_, Duration)| fmt_ms(d.as_secs_f64() * 1e3)),
            );
            build_rows.push(row);
        }
    }
    let header = |first: &[&str], rest: Vec<&str>| -> Vec<String> {
        first.iter().chain(&rest).map(|s| s.to_string()).collect()
    };
    let mut out = String::new();
    out += &format!("Build time (median of {reps} builds) and heap bytes of one layer.\n\n");
    table(
        &mut out,
        &header(&["map", "size", "mode", "build", "memory"], vec![]),
        &totals,
    );
    out += "Memory by part (`HpaMap::memory_breakdown`).\n\n";
    let memory_names = quadpath::MemoryBreakdown::default().parts().map(|(n, _)| n);
    table(
        &mut out,
        &header(&["map", "mode"], memory_names.to_vec()),
        &memory_rows,
    );
    out += "Build time by step, last build (`HpaMap::build_profile`).\n\n";
    let build_names = quadpath::BuildProfile::default().parts().map(|(n, _)| n);
    table(
        &mut out,
        &header(&["map", "mode"], build_names.to_vec()),
        &build_rows,
    );
    args.publish(&out);
}
