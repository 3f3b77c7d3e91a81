//! Budgets that hold (issue 26, §2): a refresh with a time budget returns after at most one
//! bounded unit of work past it, whatever the map and its costs, counted in the work units
//! [`RefreshReport::work`] reports, not in wall time; a budget too large for `Instant` is
//! no limit rather than a panic; and a refresh sliced over many calls, with edits between
//! them, leaves the map as exact as a full one (weighted Dijkstra as the oracle, and the
//! structure's own consistency check, landmark Lipschitz property included).

use crate::common;
use common::*;
use quadpath::{
    Cell, Config, Grid, HpaMap, Mode, Movement, Rect, RefreshReport, TerrainCosts, TerrainSet,
    World,
};
use std::time::Duration;

/// Extreme costs, as in the worst case: roads at 1/64, swamps at 10⁶.
fn extreme() -> TerrainCosts {
    "G=0.015625,S=1e6".parse().unwrap()
}

/// A 192² map of roads and swamp patches: rows of road every 16, swamp squares, rocks.
fn painted(w: u32, h: u32) -> Grid {
    let mut rng = Rng(0x2626);
    let mut codes = vec![b'.'; (w * h) as usize];
    for y in (5..h).step_by(16) {
        for x in 0..w {
            codes[(y * w + x) as usize] = b'G';
        }
    }
    for _ in 0..120 {
        let (x0, y0) = (rng.below(w as u64) as u32, rng.below(h as u64) as u32);
        let (code, side) = if rng.below(3) == 0 {
            (b'@', 1 + rng.below(4) as u32)
        } else {
            (b'S', 2 + rng.below(8) as u32)
        };
        for y in y0..(y0 + side).min(h) {
            for x in x0..(x0 + side).min(w) {
                codes[(y * w + x) as usize] = code;
            }
        }
    }
    Grid::from_terrain(w, h, codes, TerrainSet::moving_ai())
}

/// The most work one unit may do: a slice of landmark work, or one cluster of the fast
/// preset's largest side.
fn unit_bound(config: &Config) -> usize {
    let cluster = config.clusters.map_or(0, |c| (c.side as usize).pow(2));
    HpaMap::REFRESH_UNIT_CELLS.max(cluster)
}

/// The wall down the middle of a `w × h` map, with a gap at the bottom.
fn wall(w: u32, h: u32) -> Rect {
    Rect::new(w / 2, 0, w / 2, h - 8)
}

/// `painted(w, h)` with [`wall`] built up, as a map of `config` with `costs`.
fn walled(w: u32, h: u32, costs: &TerrainCosts, config: Config) -> HpaMap {
    let mut grid = painted(w, h);
    for c in wall(w, h).cells() {
        grid.set_blocked(c, true);
    }
    HpaMap::with_costs(grid, costs.clone(), config).unwrap()
}

/// Tears the wall down: the shortcut lowers landmark distances over half the map, past the
/// repair budget, so columns are set aside for the refresh to recompute.
fn open_a_shortcut(map: &mut HpaMap) {
    let (w, h) = (map.grid().width(), map.grid().height());
    map.set_blocked(wall(w, h), false).unwrap();
    assert!(map.needs_refresh());
}

/// Refreshes with a zero budget until done, checking each call's work; returns the calls.
fn refresh_in_units(
    map: &mut HpaMap,
    bound: usize,
    mut between: impl FnMut(&mut HpaMap, usize),
) -> usize {
    let mut calls = 0;
    while map.needs_refresh() {
        let report: RefreshReport = map.refresh_within(Duration::ZERO);
        assert!(
            report.work <= bound,
            "call {calls}: {} cells of work in one unit, over {bound}",
            report.work
        );
        calls += 1;
        assert!(calls < 100_000, "the refresh does not finish");
        between(map, calls);
    }
    calls
}

/// Exact paths cost what the oracle says, from a few starts.
fn assert_exact(map: &HpaMap, costs: &TerrainCosts) {
    let grid = map.grid();
    let cost = |c: Cell| costs.get(grid.terrain(c)) as f64;
    let free: Vec<Cell> = grid.free_cells().collect();
    let mut rng = Rng(7);
    for _ in 0..3 {
        let s = free[rng.below(free.len() as u64) as usize];
        let want = weighted_distances(grid, cost, s);
        for _ in 0..40 {
            let g = free[rng.below(free.len() as u64) as usize];
            match (
                map.find_path(s, g),
                want[(g.y * grid.width() + g.x) as usize],
            ) {
                (Ok(p), Some(d)) => {
                    assert!(
                        (p.cost - d).abs() <= 1e-6 * d.max(1.0),
                        "{s} -> {g}: {} vs {d}",
                        p.cost
                    )
                }
                (Err(_), None) => {}
                (got, want) => panic!("{s} -> {g}: {got:?} vs {want:?}"),
            }
        }
    }
}

#[test]
fn budgeted_refreshes_do_one_bounded_unit_past_the_budget() {
    let costs = extreme();
    for (config, exact) in [
        (Config::exact(), true),
        (Config::fast().with_landmarks(4), false),
    ] {
        let mut map = walled(192, 192, &costs, config);
        assert!(map.landmark_count() > 0);
        open_a_shortcut(&mut map);
        let calls = refresh_in_units(&mut map, unit_bound(&config), |_, _| {});
        // A column over 36,864 cells cannot be one unit of 1,088.
        assert!(calls > 8, "{calls} calls: the columns were not sliced");
        map.check_consistency().unwrap();
        if exact {
            assert_exact(&map, &costs);
        }
    }
}

/// Issue 26: a map built with nothing for landmarks to guide (here one free cell, no
/// gates) gets its table after edits; that build ran whole inside one budgeted call (the
/// work of every column at once). Now it comes in counted slices like any column, and the
/// paths are exact (by the oracle) once it is done.
#[test]
fn landmarks_built_after_edits_come_in_bounded_units() {
    let costs = extreme();
    let config = Config::exact();
    let (w, h) = (160, 160);
    let painted = painted(w, h);
    let mut map = HpaMap::with_costs(
        Grid::from_fn(w, h, |x, y| (x, y) == (0, 0)),
        costs.clone(),
        config,
    )
    .unwrap();
    assert_eq!(map.landmark_count(), 0, "nothing to guide yet");
    // Free the painted map's open cells, a band at a time, terrain and all.
    for y in (0..h).step_by(16) {
        for x in 0..w {
            for y in y..(y + 16).min(h) {
                let c = Cell::new(x, y);
                if painted.is_free(c) && !map.grid().is_free(c) {
                    map.set_terrain(Rect::new(x, y, x, y), painted.terrain(c))
                        .unwrap();
                }
            }
        }
    }
    assert!(map.needs_refresh());
    let calls = refresh_in_units(&mut map, unit_bound(&config), |_, _| {});
    assert!(map.landmark_count() > 0, "the refresh built the landmarks");
    // 8 columns over some 20,000 cells cannot be a few units of 1,088.
    assert!(calls > 100, "{calls} calls: the table was not sliced");
    map.check_consistency().unwrap();
    assert_exact(&map, &costs);
}

/// Edits between the slices: blocking ones leave the search under way valid, freeing ones
/// restart it; either way the finished columns are Lipschitz and the paths exact.
#[test]
fn edits_between_slices_keep_the_map_exact() {
    let costs = extreme();
    let config = Config::exact();
    let mut map = walled(160, 160, &costs, config);
    open_a_shortcut(&mut map);
    refresh_in_units(&mut map, unit_bound(&config), |map, call| {
        if call % 5 == 0 && call < 200 {
            let at = Rect::new(10 + call as u32 % 140, 20, 12 + call as u32 % 140, 22);
            map.set_blocked(at, call % 10 == 0).unwrap();
        }
    });
    map.check_consistency().unwrap();
    assert_exact(&map, &costs);
}

/// Issue 26: `refresh_within(Duration::MAX)` panicked ("overflow when adding duration to
/// instant"). It is no limit now, on a map and on a world.
#[test]
fn a_budget_past_instant_is_no_limit() {
    let mut map = walled(96, 96, &extreme(), Config::exact());
    open_a_shortcut(&mut map);
    let report = map.refresh_within(Duration::MAX);
    assert!(report.complete && !map.needs_refresh());

    let mut world = World::new(painted(96, 96));
    let tank = Movement::default().with_size(2).unwrap();
    world.add_class(tank, Mode::Fast).unwrap();
    world.set_blocked(Rect::new(40, 40, 47, 47), true).unwrap();
    assert!(world.needs_refresh());
    let report = world.refresh_within(Duration::MAX);
    assert!(report.complete && !world.needs_refresh());
}

/// Issue 26: a cluster's routes were recomputed in one unit counted as its cells, though it
/// is one search of the cluster per entrance (calls of 5–8.6 ms at a 1 ms budget). Now a
/// zero-budget refresh takes one unit per entrance search at least: a map with every
/// cluster stale needs a call for each cluster's choice of entrances and one for each of
/// its entrances (the old count did a whole cluster per call and fails here).
#[test]
fn each_entrance_search_is_a_unit_of_its_own() {
    // Fast mode with clusters (on a map of one cost the preset searches subgoals).
    let config = Config::fast().with_subgoals(false);
    let mut map = HpaMap::new(painted(192, 192), config).unwrap();
    assert!(map.cluster_count() > 4);
    // A rock in every cluster of side 64 or less: every cluster goes stale.
    for y in (8..192).step_by(16) {
        for x in (8..192).step_by(16) {
            map.set_blocked(Rect::new(x, y, x, y), true).unwrap();
        }
    }
    let (mut calls, mut finished) = (0, 0);
    while map.needs_refresh() {
        let report = map.refresh_within(Duration::ZERO);
        assert!(report.clusters <= 1, "{report:?}");
        assert!(report.work <= unit_bound(&config), "{report:?}");
        finished += report.clusters;
        calls += 1;
    }
    assert_eq!(finished, map.cluster_count(), "every cluster was stale");
    assert!(
        calls >= finished + map.entrance_count(),
        "{calls} calls for {finished} clusters and {} entrances",
        map.entrance_count()
    );
}

/// The worst case the issue constructed, scaled down: extreme costs, edits of 40×40 cells,
/// a fast map. Every zero-budget call does one bounded unit, edits between the calls put
/// the cluster under way back in the queue, and the refreshed map is the one a fresh build
/// of its grid makes (the structure's snapshot: leaves, gates, crossings, components and
/// every cluster's entrance routes).
#[test]
fn sliced_cluster_routes_under_extreme_costs_match_a_fresh_build() {
    let costs = extreme();
    let config = Config::fast();
    let mut map = HpaMap::with_costs(painted(192, 192), costs.clone(), config).unwrap();
    for (i, &(x, y)) in [(10, 10), (70, 90), (130, 20), (100, 140)]
        .iter()
        .enumerate()
    {
        let code = [b'S', b'G', b'@', b'.'][i];
        let block = Rect::new(x, y, x + 39, y + 39);
        if code == b'@' {
            map.set_blocked(block, true).unwrap();
        } else {
            map.set_terrain(block, code).unwrap();
        }
    }
    let calls = refresh_in_units(&mut map, unit_bound(&config), |map, call| {
        if call % 7 == 0 && call < 70 {
            let x = 5 + (call as u32 * 13) % 180;
            map.set_blocked(Rect::new(x, 100, x + 2, 102), call % 14 == 0)
                .unwrap();
        }
    });
    assert!(calls > 20, "{calls} calls");
    map.check_consistency().unwrap();
    let fresh = HpaMap::with_costs(map.grid().clone(), costs, config).unwrap();
    assert_same_structure(&map.snapshot(), &fresh.snapshot(), "sliced refresh");
}
