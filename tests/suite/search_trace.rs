//! Search traces (`HpaMap::find_path_traced`), against the untraced search itself:
//!
//! - the traced query returns the very path (or error) `find_path` returns;
//! - the trace counts one `Expanded` event per expansion the untraced search reports
//!   (`SearchContext::last_expansions` after `find_path_with`), and `expansions` says so;
//! - the first event is the start's generation (no parent, `g = 0`);
//! - every expansion is of a node generated before, and every generated node's parent
//!   was expanded before (the trace is a search tree grown in order);
//! - expanded `f` never decreases (the bounds are consistent; not in weighted A\*, whose
//!   `g + w·h` may go down along an arc), and `g ≤ f`.
//!
//! On shipped maps and random grids, in exact mode, fast mode with clusters, exact mode
//! with the subgoal graph and fast mode over it (weighted), so that every search (short
//! moves, gates, cluster entrances, subgoals) is traced.

use crate::common::*;
use proptest::prelude::*;
use quadpath::{Cell, Config, Grid, HpaMap, SearchContext, SearchTrace, TraceKind};
use std::collections::HashSet;

fn configs() -> [(&'static str, Config); 4] {
    [
        ("gates", Config::exact().with_subgoals(false)),
        ("clusters", Config::fast().with_subgoals(false)),
        ("subgoals", Config::exact()),
        ("weighted", Config::fast()),
    ]
}

/// Checks one query's trace against the untraced search; returns the trace.
fn check_query(map: &HpaMap, start: Cell, goal: Cell, what: &str) -> SearchTrace {
    let (traced, trace) = map.find_path_traced(start, goal);
    assert_eq!(
        traced,
        map.find_path(start, goal),
        "{what}: traced path differs"
    );
    let expanded: Vec<_> = trace
        .events
        .iter()
        .filter(|e| e.kind == TraceKind::Expanded)
        .collect();
    assert_eq!(expanded.len(), trace.expansions, "{what}: expansions");
    if trace.events.is_empty() {
        return trace;
    }
    let mut ctx = SearchContext::new();
    let untraced = map.find_path_with(&mut ctx, start, goal);
    assert_eq!(untraced, traced, "{what}");
    assert_eq!(
        ctx.last_expansions(),
        trace.expansions,
        "{what}: reported expansions"
    );
    let first = trace.events[0];
    assert_eq!(
        (first.kind, first.cell, first.parent, first.g),
        (TraceKind::Generated, start, None, 0.0),
        "{what}: first event"
    );
    let (mut generated, mut closed) = (HashSet::new(), HashSet::new());
    let mut last_f = f64::NEG_INFINITY;
    let weighted = map.config().subgoal_excess_percent > 0 && map.subgoal_count() > 0;
    for (i, e) in trace.events.iter().enumerate() {
        assert!(
            e.g <= e.f + 1e-9,
            "{what}: event {i} has g {} > f {}",
            e.g,
            e.f
        );
        match e.kind {
            TraceKind::Expanded => {
                assert!(
                    generated.contains(&e.cell),
                    "{what}: event {i} expands {}",
                    e.cell
                );
                assert!(
                    weighted || e.f >= last_f - 1e-9,
                    "{what}: event {i}: f fell to {}",
                    e.f
                );
                last_f = e.f;
                closed.insert(e.cell);
            }
            _ => {
                if i > 0 {
                    let parent = e.parent.expect("only the start has no parent");
                    assert!(closed.contains(&parent), "{what}: event {i}'s parent");
                }
                generated.insert(e.cell);
            }
        }
    }
    trace
}

fn check_map(grid: &Grid, seed: u64, queries: usize, name: &str) -> usize {
    let free: Vec<Cell> = grid.free_cells().collect();
    let mut searched = 0;
    for (mode, config) in configs() {
        let map = HpaMap::new(grid.clone(), config).unwrap();
        let mut rng = Rng(seed | 1);
        for _ in 0..queries.min(free.len()) {
            let a = free[rng.below(free.len() as u64) as usize];
            let b = free[rng.below(free.len() as u64) as usize];
            let trace = check_query(&map, a, b, &format!("{name} {mode} {a} -> {b}"));
            searched += usize::from(!trace.events.is_empty());
        }
    }
    searched
}

#[test]
fn traces_on_shipped_maps_match_the_untraced_searches() {
    let mut searched = 0;
    for name in ["arena", "maze-32-32-2", "random-32-32-20"] {
        let grid = read_movingai(format!("maps/{name}.map").as_ref());
        searched += check_map(&grid, 7, 40, name);
    }
    assert!(searched > 100, "only {searched} queries ran a search");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn traces_on_random_grids_match_the_untraced_searches(
        w in 2u32..40, h in 2u32..40, density in 0u64..45, seed in any::<u64>()
    ) {
        let mut rng = Rng(seed | 1);
        let blocked: Vec<bool> = (0..w * h).map(|_| rng.below(100) < density).collect();
        let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
        check_map(&grid, seed, 12, "random");
    }
}
