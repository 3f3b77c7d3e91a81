//! Property tests of the HPA* layer on random maps and random edit sequences.
//!
//! For exact mode, fast mode and fast mode with tiny clusters (2–8 cells), after every edit
//! (`set_blocked` on cells and on rectangles that may cover blocked cells,
//! `set_terrain`, and `apply_patch` with mixed terrain, small or over the whole map):
//! - `check_consistency()` holds and the structure equals a fresh build on the same grid;
//! - for random query pairs, exact paths have the oracle's length (Dijkstra in
//!   `common::distances`) within 1e-6, `Unreachable` comes exactly when the oracle finds no
//!   path, and every path passes `common::assert_valid` and is never below optimal;
//! - on some pairs, `quadpath::baseline::astar` agrees with both (with the `baseline` feature);
//! - while edits leave the cluster layer stale, `find_path_with` (which then crosses the
//!   stale clusters over their gates) still gives valid paths; after `refresh()` the
//!   structure is fresh.
//!
//! - the component labels split the free cells as a flood fill does, on layers that label
//!   over the gates' crossings and on those that label over the quadtree's neighbours
//!   (subgoal layers without a gate graph), and on subgoal layers that were asked for
//!   their gate graph (by a flow field) before or during the edits.
//!
//! `hpa_edit_stress.rs` keeps the deterministic loops these properties grew from.

use crate::common;
use common::*;
use common::{clipped_rect, Rng};
use proptest::prelude::*;
use quadpath::{
    Cell, Config, GatePolicy, Grid, HpaMap, QueryError, Rect, SearchContext, TerrainPatch,
};

/// A random grid: sides 1..40, obstacle density 0–60%.
pub(crate) fn grid_strategy(max_side: u32) -> impl Strategy<Value = Grid> {
    (1..=max_side, 1..=max_side, 0u32..=60)
        .prop_flat_map(|(w, h, d)| {
            (
                Just(w),
                Just(h),
                proptest::collection::vec(
                    proptest::bool::weighted(d as f64 / 100.0),
                    (w * h) as usize,
                ),
            )
        })
        .prop_map(|(w, h, blocked)| Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]))
}

/// One edit; coordinates are reduced modulo the map size when applied, so that every edit
/// is in bounds whatever the grid's size.
#[derive(Clone, Debug)]
enum Edit {
    Cell {
        x: u32,
        y: u32,
        blocked: bool,
    },
    /// A building (or its removal): up to 6×6, clipped to the map.
    Rect {
        x: u32,
        y: u32,
        w: u32,
        h: u32,
        blocked: bool,
    },
    /// New terrain (a road, a river, a forest planted) over up to 6×6 cells: passability
    /// follows from the code, and buildings on the area stay.
    Terrain {
        x: u32,
        y: u32,
        w: u32,
        h: u32,
        code: u8,
    },
    /// A GPPC-style patch of mixed terrain laid at (x, y), clipped to the map; `whole`
    /// lays it over the whole map instead, which makes `apply_patch` rebuild.
    Patch {
        x: u32,
        y: u32,
        w: u32,
        h: u32,
        codes: Vec<u8>,
        whole: bool,
    },
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (0u32..64, 0u32..64, any::<bool>()).prop_map(|(x, y, blocked)| Edit::Cell { x, y, blocked }),
        2 => (0u32..64, 0u32..64, 1u32..=6, 1u32..=6, any::<bool>())
            .prop_map(|(x, y, w, h, blocked)| Edit::Rect { x, y, w, h, blocked }),
        1 => (0u32..64, 0u32..64, 1u32..=6, 1u32..=6, proptest::sample::select(b".GSWT@".to_vec()))
            .prop_map(|(x, y, w, h, code)| Edit::Terrain { x, y, w, h, code }),
        1 => (0u32..64, 0u32..64, 1u32..=10, 1u32..=10,
              proptest::collection::vec(proptest::sample::select(b"..GS@@TW".to_vec()), 1..=100),
              proptest::bool::weighted(0.15))
            .prop_map(|(x, y, w, h, codes, whole)| Edit::Patch { x, y, w, h, codes, whole }),
    ]
}

fn config_strategy() -> impl Strategy<Value = Config> {
    prop_oneof![
        Just(Config::exact()),
        // Exact over the gate graph: its components walk the gates' crossings, where the
        // subgoal layer's walk the quadtree's neighbours.
        Just(Config::exact().with_subgoals(false)),
        // Without landmarks the search leans on the octile bound alone.
        Just(Config::exact().with_landmarks(0)),
        Just(Config::fast()),
        (2u32..8).prop_map(tiny_clusters),
        // Landmarks also bound the clustered search, which must then stay valid too.
        (2u32..8).prop_map(|side| tiny_clusters(side).with_landmarks(3)),
    ]
}

/// Applies `edit` to the map and to the reference grid; returns the rect that was edited.
fn apply(map: &mut HpaMap, grid: &mut Grid, edit: &Edit) -> (Rect, bool) {
    let (w, h) = (grid.width(), grid.height());
    let (r, blocked) = match *edit {
        Edit::Cell { x, y, blocked } => {
            let (x, y) = (x % w, y % h);
            let before = grid.is_free(Cell::new(x, y));
            let changed = map.set_blocked(Cell::new(x, y), blocked).unwrap();
            assert_eq!(
                changed,
                usize::from(before == blocked),
                "set_blocked({x},{y},{blocked}) reported changed={changed}"
            );
            (Rect::new(x, y, x, y), blocked)
        }
        Edit::Rect {
            x,
            y,
            w: rw,
            h: rh,
            blocked,
        } => {
            let r = clipped_rect((w, h), (x, y, rw, rh));
            let expect = r.cells().filter(|c| grid.is_free(*c) == blocked).count();
            let changed = map.set_blocked(r, blocked).unwrap();
            assert_eq!(
                changed, expect,
                "set_blocked({r:?}, {blocked}) changed count"
            );
            (r, blocked)
        }
        Edit::Terrain {
            x,
            y,
            w: rw,
            h: rh,
            code,
        } => {
            let r = clipped_rect((w, h), (x, y, rw, rh));
            let free_after = |c: Cell| b".GS".contains(&code) && !grid.is_obstructed(c);
            let expect = r
                .cells()
                .filter(|&c| grid.is_free(c) != free_after(c))
                .count();
            let changed = map.set_terrain(r, code).unwrap();
            assert_eq!(changed, expect, "set_terrain({r:?}, {code}) changed count");
            grid.set_terrain(r, code);
            for c in r.cells() {
                assert_eq!(
                    map.grid().terrain(c),
                    code,
                    "{c}: the terrain was not written"
                );
            }
            return (r, !b".GS".contains(&code));
        }
        Edit::Patch {
            x,
            y,
            w: pw,
            h: ph,
            ref codes,
            whole,
        } => {
            let (x, y) = if whole { (0, 0) } else { (x % w, y % h) };
            let (pw, ph) = if whole {
                (w, h)
            } else {
                (pw.min(w - x), ph.min(h - y))
            };
            let patch_codes: Vec<u8> = (0..(pw * ph) as usize)
                .map(|i| codes[i % codes.len()])
                .collect();
            let patch = TerrainPatch::new(pw, ph, patch_codes.clone());
            let r = Rect::new(x, y, x + pw - 1, y + ph - 1);
            let (mut blocked, mut freed) = (0, 0);
            for (c, &code) in r.cells().zip(&patch_codes) {
                let free_after = b".GS".contains(&code) && !grid.is_obstructed(c);
                match (grid.is_free(c), free_after) {
                    (true, false) => blocked += 1,
                    (false, true) => freed += 1,
                    _ => {}
                }
            }
            let report = map.apply_patch(Cell::new(x, y), &patch).unwrap();
            assert_eq!(
                (report.blocked, report.freed),
                (blocked, freed),
                "apply_patch({x},{y}, {pw}x{ph}) counts"
            );
            let cells = (w * h) as usize;
            assert_eq!(
                report.rebuilt,
                blocked + freed > 0 && (blocked + freed) * 8 >= cells,
                "a patch rebuilds exactly when it changes one cell in 8"
            );
            assert_eq!(grid.apply_patch(Cell::new(x, y), &patch), blocked + freed);
            for (c, &code) in r.cells().zip(&patch_codes) {
                assert_eq!(
                    map.grid().terrain(c),
                    code,
                    "{c}: the patch was not written"
                );
            }
            return (r, blocked > 0);
        }
    };
    for c in r.cells() {
        grid.set_blocked(c, blocked);
    }
    (r, blocked)
}

/// Checks `pairs` random queries against the Dijkstra oracle (and, on the first `astar`
/// of them, against `baseline::astar` when the `baseline` feature is on).
#[cfg_attr(not(feature = "baseline"), allow(unused_variables))]
fn check_queries(
    map: &mut HpaMap,
    grid: &Grid,
    rng: &mut Rng,
    pairs: usize,
    astar: usize,
    ctx: &str,
) {
    let exact = map.config().clusters.is_none()
        && !map.config().smooth
        && map.config().gates == GatePolicy::All;
    let free: Vec<Cell> = grid.free_cells().collect();
    if free.is_empty() {
        return;
    }
    let w = grid.width();
    for i in 0..pairs {
        let s = free[rng.below(free.len() as u64) as usize];
        let d = distances(grid, s);
        let g = free[rng.below(free.len() as u64) as usize];
        let want = d[(g.y * w + g.x) as usize];
        let got = map.find_path(s, g);
        match (&got, want) {
            (Ok(p), Some(best)) => {
                assert_valid(grid, s, g, p);
                assert!(
                    p.length >= best - 1e-9,
                    "{ctx}: {s}->{g}: {} below optimal {best}",
                    p.length
                );
                // Short moves are exact in every mode that searches them locally.
                if exact || best <= map.config().local_radius as f64 {
                    assert!(
                        (p.length - best).abs() < 1e-6,
                        "{ctx}: {s}->{g}: exact {} vs {best}",
                        p.length
                    );
                }
                let mut cells = p.cells.clone();
                cells.sort_unstable();
                cells.dedup();
                assert_eq!(cells.len(), p.cells.len(), "{ctx}: {s}->{g} repeats a cell");
            }
            (Err(QueryError::Unreachable { start, goal }), None) => {
                assert_eq!((*start, *goal), (s, g))
            }
            (r, want) => panic!("{ctx}: {s}->{g}: {r:?} but the oracle says {want:?}"),
        }
        assert_eq!(
            map.connected(s, g).unwrap(),
            want.is_some(),
            "{ctx}: connected({s},{g})"
        );
        #[cfg(feature = "baseline")]
        if i < astar {
            let base = quadpath::baseline::astar(grid, s, g);
            match (&base, want) {
                (Some(b), Some(best)) => {
                    assert_valid(grid, s, g, b);
                    assert!(
                        (b.length - best).abs() < 1e-6,
                        "{ctx}: baseline {} vs {best}",
                        b.length
                    );
                    if exact {
                        assert!((got.as_ref().unwrap().length - b.length).abs() < 1e-6);
                    }
                }
                (None, None) => {}
                _ => panic!("{ctx}: baseline::astar {s}->{g}: {base:?} vs oracle {want:?}"),
            }
        }
    }
}

/// Labels every free cell of `grid` with its connected piece (8-connected, no corner
/// cutting) by flood fill: the oracle of the component labels.
fn flood_labels(grid: &Grid) -> Vec<Option<usize>> {
    let w = grid.width();
    let mut label = vec![None; (w * grid.height()) as usize];
    let mut next = 0;
    for c in grid.free_cells() {
        if label[(c.y * w + c.x) as usize].is_some() {
            continue;
        }
        label[(c.y * w + c.x) as usize] = Some(next);
        let mut stack = vec![c];
        while let Some(a) = stack.pop() {
            for d in quadpath::Direction::ALL {
                if !grid.can_step(a, d) {
                    continue;
                }
                let b = a.step(d).unwrap();
                let slot = &mut label[(b.y * w + b.x) as usize];
                if slot.is_none() {
                    *slot = Some(next);
                    stack.push(b);
                }
            }
        }
        next += 1;
    }
    label
}

/// Asserts that `map.connected` splits the free cells exactly as the flood fill does:
/// every cell with its piece's first cell, and no two pieces' first cells.
fn assert_components_match_flood(map: &HpaMap, grid: &Grid, ctx: &str) {
    let labels = flood_labels(grid);
    let w = grid.width();
    let mut firsts: Vec<Cell> = Vec::new();
    for c in grid.free_cells() {
        let label = labels[(c.y * w + c.x) as usize].unwrap();
        if label == firsts.len() {
            firsts.push(c);
        }
        assert!(
            map.connected(firsts[label], c).unwrap(),
            "{ctx}: {c} is cut off from {} though a path joins them",
            firsts[label]
        );
    }
    assert_eq!(
        map.component_count(),
        firsts.len(),
        "{ctx}: component count"
    );
    for (i, &a) in firsts.iter().enumerate() {
        for &b in &firsts[i + 1..] {
            assert!(!map.connected(a, b).unwrap(), "{ctx}: {a} and {b} joined");
        }
    }
}

/// Random edits on a map in `cfg`; with `ask_gates`, a flow field is asked for first and
/// halfway, so that a layer that keeps no gate graph builds one, adopts it at the next
/// edit and keeps it up to date from then on.
fn edits_case(grid: Grid, cfg: Config, edits: Vec<Edit>, seed: u64, ask_gates: bool) {
    let mut grid = grid;
    let mut map = HpaMap::new(grid.clone(), cfg).unwrap();
    map.check_consistency().unwrap();
    assert_components_match_flood(&map, &grid, "built");
    let mut rng = Rng(seed | 1);
    check_queries(&mut map, &grid, &mut rng, 2, 1, "before edits");
    for (step, e) in edits.iter().enumerate() {
        if ask_gates && (step == 0 || step == edits.len() / 2) {
            if let Some(goal) = grid.free_cells().next() {
                map.flow_field(goal).unwrap();
            }
        }
        apply(&mut map, &mut grid, e);
        assert_eq!(map.grid(), &grid, "step {step} {e:?}: grids differ");
        let ctx = format!("step {step} {e:?}");
        if let Err(msg) = map.check_consistency() {
            panic!("{ctx}: inconsistent: {msg}");
        }
        // Edits leave the cluster layer stale until a query or `refresh()`; meanwhile
        // `find_path_with` falls back to the gate graph, which must still be right.
        if map.needs_refresh() {
            let mut sc = SearchContext::new();
            let mut rng2 = Rng(seed.rotate_left(step as u32) | 1);
            let free: Vec<Cell> = grid.free_cells().collect();
            if !free.is_empty() {
                let s = free[rng2.below(free.len() as u64) as usize];
                let g = free[rng2.below(free.len() as u64) as usize];
                let want = distances(&grid, s)[(g.y * grid.width() + g.x) as usize];
                match (map.find_path_with(&mut sc, s, g), want) {
                    (Ok(p), Some(best)) => {
                        assert_valid(&grid, s, g, &p);
                        assert!(
                            p.length >= best - 1e-9,
                            "{ctx}: stale {s}->{g}: {} below {best}",
                            p.length
                        );
                    }
                    (Err(QueryError::Unreachable { .. }), None) => {}
                    (r, want) => {
                        panic!("{ctx}: stale {s}->{g}: {r:?} but the oracle says {want:?}")
                    }
                }
            }
        }
        map.refresh();
        assert!(!map.needs_refresh(), "{ctx}: still stale after refresh()");
        map.check_consistency()
            .unwrap_or_else(|e| panic!("{ctx}: inconsistent after refresh: {e}"));
        let fresh = HpaMap::new(grid.clone(), cfg).unwrap();
        assert_same_structure(&map.snapshot(), &fresh.snapshot(), &ctx);
        assert_eq!(map.component_count(), fresh.component_count(), "{ctx}");
        assert_components_match_flood(&map, &grid, &ctx);
        check_queries(
            &mut map,
            &grid,
            &mut rng,
            3,
            usize::from(step % 4 == 0),
            &ctx,
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(800))]

    /// Static random maps: all three configurations against the oracle.
    #[test]
    fn random_maps_all_modes(grid in grid_strategy(40), side in 2u32..8, seed in any::<u64>()) {
        for cfg in [Config::exact(), Config::fast(), tiny_clusters(side)] {
            let mut map = HpaMap::new(grid.clone(), cfg).unwrap();
            map.check_consistency().unwrap();
            let mut rng = Rng(seed | 1);
            check_queries(&mut map, &grid, &mut rng, 6, 2, &format!("{cfg:?}"));
        }
    }

    /// Random edit sequences in a random configuration.
    #[test]
    fn random_edits(grid in grid_strategy(40), cfg in config_strategy(),
                    edits in proptest::collection::vec(edit_strategy(), 1..25), seed in any::<u64>(),
                    ask_gates in any::<bool>()) {
        edits_case(grid, cfg, edits, seed, ask_gates);
    }

    /// Buildings only, placed and torn down in random order on a denser map: rectangles
    /// regularly cover walls and other buildings, and removing one frees what was under it.
    #[test]
    fn buildings_place_and_remove(grid in grid_strategy(32), cfg in config_strategy(),
                                  rects in proptest::collection::vec((0u32..64, 0u32..64, 1u32..=5, 1u32..=5), 1..8),
                                  seed in any::<u64>(), ask_gates in any::<bool>()) {
        let mut edits: Vec<Edit> = rects.iter().map(|&(x, y, w, h)| Edit::Rect { x, y, w, h, blocked: true }).collect();
        // Tear down in reverse order.
        edits.extend(rects.iter().rev().map(|&(x, y, w, h)| Edit::Rect { x, y, w, h, blocked: false }));
        edits_case(grid, cfg, edits, seed, ask_gates);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Toggling a cell and toggling it back leaves a structure equal to the original one.
    #[test]
    fn toggle_round_trip(grid in grid_strategy(40), cfg in config_strategy(), x in 0u32..64, y in 0u32..64) {
        let (x, y) = (x % grid.width(), y % grid.height());
        let mut map = HpaMap::new(grid.clone(), cfg).unwrap();
        let before = map.snapshot();
        let was_free = grid.is_free(Cell::new(x, y));
        prop_assert_eq!(map.set_blocked(Cell::new(x, y), was_free).unwrap(), 1);
        prop_assert_eq!(map.set_blocked(Cell::new(x, y), !was_free).unwrap(), 1);
        map.check_consistency().unwrap();
        map.refresh();
        assert_same_structure(&map.snapshot(), &before, "round trip");
    }
}
