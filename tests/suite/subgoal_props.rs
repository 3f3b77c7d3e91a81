//! Property tests of exact mode's subgoal graph (`Config::subgoals`).
//!
//! - On random maps with random obstacles, every query's path has Dijkstra's length
//!   (its corner points, `find_corners`, give the same cells and length)
//!   (`common::distances`, an independent grid Dijkstra), passes `common::assert_valid`,
//!   and `Unreachable` comes exactly when Dijkstra finds no path. A missing edge, a wrong
//!   subgoal rule or a scan that stops too early makes some path longer or unreachable.
//! - After random sequences of cell and building edits, the incrementally updated graph
//!   equals a fresh build of the same grid (subgoals with the blocked diagonal neighbours
//!   the taut rule reads, and edges), the landmark distances
//!   at the subgoals are still Lipschitz on every edge (`HpaMap::check_consistency`), each
//!   subgoal's own scan finds what a fresh build's does (`subgoal_scan_pairs`), and
//!   queries are still optimal.
//! - After random edits, `refresh_within` in slices of zero budget (one more edit in the
//!   middle of the rebuild restarting it) brings back the levels of the subgoal graph
//!   that the edits dropped, equal by cell to a fresh build's (locals, arcs with their
//!   middles and step counts), and queries over them are optimal (Dijkstra). A slice
//!   right after an edit leaves the rebuild for the next call.
//! - On the maps shipped in `maps/`, sampled scenario queries are optimal (Dijkstra).

use crate::common::*;
use proptest::prelude::*;
use quadpath::{
    Cell, Config, Grid, HpaMap, Path, PathSearch, QueryError, Rect, SearchContext, SearchProgress,
    TerrainPatch,
};

fn config() -> Config {
    Config::exact()
}

/// A random grid: sides 1..=`max_side`, obstacle density 0–60 %, obstacles as single
/// cells or short bars so that corners of every shape occur.
fn grid_strategy(max_side: u32) -> impl Strategy<Value = Grid> {
    grid_strategy_with(1..=max_side, 0..=60)
}

/// A random grid with sides and obstacle density (in %) drawn from the given ranges.
fn grid_strategy_with(
    sides: std::ops::RangeInclusive<u32>,
    densities: std::ops::RangeInclusive<u32>,
) -> impl Strategy<Value = Grid> {
    (sides.clone(), sides, densities, any::<u64>())
        .prop_map(|(w, h, density, seed)| bars_grid(w, h, density as u64, seed))
}

/// Checks every query from a few starts to every free cell against Dijkstra.
fn check_queries(map: &HpaMap, seed: u64, context: &str) {
    let grid = map.grid();
    for_each_query(grid, seed, 3, |start, goal, want| {
        match (map.find_path(start, goal), want) {
            (Ok(path), Some(d)) => {
                assert_valid(grid, start, goal, &path);
                assert!(
                    (path.length - d).abs() < 1e-6,
                    "{context}: {start} -> {goal}: length {} but Dijkstra says {d}",
                    path.length
                );
                // The corner points are the same route, written without its cells.
                let corners = map.find_corners(start, goal).expect("a path exists");
                assert_eq!(corners.cells(), path.cells, "{context}: {start} -> {goal}");
                assert!((corners.length - d).abs() < 1e-6, "{context}: corners");
            }
            (Err(QueryError::Unreachable { .. }), None) => {}
            (got, want) => panic!("{context}: {start} -> {goal}: {got:?}, Dijkstra {want:?}"),
        }
    });
}

#[derive(Clone, Debug)]
enum Edit {
    Cell {
        x: u32,
        y: u32,
        blocked: bool,
    },
    Building {
        x: u32,
        y: u32,
        w: u32,
        h: u32,
        blocked: bool,
    },
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<u32>(), any::<u32>(), any::<bool>())
            .prop_map(|(x, y, blocked)| Edit::Cell { x, y, blocked }),
        1 => (any::<u32>(), any::<u32>(), 1u32..=5, 1u32..=5, any::<bool>())
            .prop_map(|(x, y, w, h, blocked)| Edit::Building { x, y, w, h, blocked }),
    ]
}

fn apply(map: &mut HpaMap, edit: &Edit) {
    let (gw, gh) = (map.grid().width(), map.grid().height());
    match *edit {
        Edit::Cell { x, y, blocked } => {
            map.set_blocked(Cell::new(x % gw, y % gh), blocked).unwrap();
        }
        Edit::Building {
            x,
            y,
            w,
            h,
            blocked,
        } => {
            map.set_blocked(clipped_rect((gw, gh), (x, y, w, h)), blocked)
                .unwrap();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Subgoal searches are as short as Dijkstra's paths on random maps.
    #[test]
    fn subgoal_paths_are_optimal(grid in grid_strategy(40), seed in any::<u64>()) {
        let map = HpaMap::new(grid, config()).unwrap();
        prop_assert!(map.grid().free_count() == 0 || map.subgoal_snapshot().is_some());
        check_queries(&map, seed, "fresh map");
    }

    /// After random edits the updated graph equals a fresh build, and paths stay optimal.
    #[test]
    fn edited_graph_equals_a_fresh_build(
        grid in grid_strategy(32),
        edits in proptest::collection::vec(edit_strategy(), 1..12),
        seed in any::<u64>(),
    ) {
        check_edits(grid, &edits, seed)?;
    }

    /// The same on larger, open maps (0–12 % obstacles), where the reverse walk after an
    /// edit goes far and its staircase cuts the most.
    #[test]
    fn edits_on_open_maps_equal_a_fresh_build(
        grid in grid_strategy_with(16..=64, 0..=12),
        edits in proptest::collection::vec(edit_strategy(), 1..12),
        seed in any::<u64>(),
    ) {
        check_edits(grid, &edits, seed)?;
    }

    /// The same after blocking cells beside subgoals, which may leave a subgoal free but
    /// no subgoal any more (its runs then reach farther than before the edit): the edits
    /// that a settled series must not be cut short after (see
    /// `SubgoalGraph::resume_series`).
    #[test]
    fn blocks_beside_subgoals_equal_a_fresh_build(
        grid in grid_strategy_with(16..=48, 0..=20),
        picks in proptest::collection::vec(any::<u32>(), 1..16),
        seed in any::<u64>(),
    ) {
        check_blocks_beside_subgoals(grid, &picks, seed)?;
    }

    /// The same after patches that flip scattered cells of a small window at once (one
    /// update for the cells blocked, one for those freed), so that touched cells lie on a
    /// diagonal with untouched cells between them: the edits whose reverse walks a
    /// touched cell farther back along the diagonal cuts (see `SubgoalGraph::readers`).
    #[test]
    fn scattered_patches_equal_a_fresh_build(
        grid in grid_strategy_with(16..=48, 0..=12),
        patches in proptest::collection::vec(
            (any::<u32>(), any::<u32>(), 2u32..=7, 2u32..=7, any::<u64>()), 1..8),
        seed in any::<u64>(),
    ) {
        check_scattered_patches(grid, &patches, seed)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Levels rebuilt in slices after edits equal a fresh build's, and paths over them
    /// stay optimal.
    #[test]
    fn levels_rebuilt_after_edits_equal_a_fresh_build(
        grid in grid_strategy_with(16..=48, 0..=40),
        edits in proptest::collection::vec(edit_strategy(), 1..8),
        late in edit_strategy(),
        seed in any::<u64>(),
    ) {
        let mut map = HpaMap::new(grid, config()).unwrap();
        for edit in &edits {
            apply(&mut map, edit);
        }
        let had_graph = map.subgoal_count() > 0;
        // Two slices (the first after an edit leaves the rebuild for the next call, the
        // second starts it), then an edit that restarts the rebuild.
        map.refresh_within(std::time::Duration::ZERO);
        let first = map.refresh_within(std::time::Duration::ZERO);
        apply(&mut map, &late);
        let mut slices = 2;
        while map.needs_refresh() {
            let report = map.refresh_within(std::time::Duration::ZERO);
            // Only the first slice after the edit may wait.
            prop_assert!(
                report.work > 0 || report.complete || slices == 2,
                "slice {} did nothing",
                slices
            );
            slices += 1;
            prop_assert!(slices < 10_000, "the rebuild does not end");
        }
        let fresh = HpaMap::new(map.grid().clone(), config()).unwrap();
        // A map whose edits freed its last blocked cell keeps its graph, now without
        // subgoals, where a fresh build of a map without a blocked cell makes none (its
        // searches need none): both have no levels to speak of.
        prop_assert_eq!(
            map.subgoal_levels_snapshot().unwrap_or_default(),
            fresh.subgoal_levels_snapshot().unwrap_or_default(),
            "levels after {} slices (first: {:?}, graph before: {})",
            slices,
            first,
            had_graph
        );
        prop_assert!(map.subgoal_count() == 0 || map.subgoal_levels_size().is_some());
        check_queries(&map, seed, "rebuilt levels");
    }
}

/// Applies `edits` one by one; after each, the updated graph must equal a fresh build of
/// the same grid; at the end, paths are checked against Dijkstra.
fn check_edits(grid: Grid, edits: &[Edit], seed: u64) -> Result<(), TestCaseError> {
    let mut map = HpaMap::new(grid, config()).unwrap();
    for (i, edit) in edits.iter().enumerate() {
        apply(&mut map, edit);
        check_against_fresh(&map, i, edit)?;
    }
    check_queries(&map, seed, "edited map");
    Ok(())
}

/// Blocks, one edit at a time, a cell beside a subgoal (the `k`-th subgoal of the graph
/// as it is then, modulo their number, and the side `k / 2^16 % 4`; skipped where that
/// cell is off the map or blocked) and checks the graph against a fresh build after each.
fn check_blocks_beside_subgoals(grid: Grid, picks: &[u32], seed: u64) -> Result<(), TestCaseError> {
    let mut map = HpaMap::new(grid, config()).unwrap();
    for (i, &k) in picks.iter().enumerate() {
        let subgoals = map.subgoal_snapshot().unwrap().0;
        let Some(&(s, _)) = subgoals.get(k as usize % subgoals.len().max(1)) else {
            break;
        };
        let (dx, dy) = [(1, 0), (-1, 0), (0, 1), (0, -1)][(k >> 16) as usize % 4];
        let (x, y) = (s.x as i64 + dx, s.y as i64 + dy);
        let (w, h) = (map.grid().width() as i64, map.grid().height() as i64);
        if !(0..w).contains(&x)
            || !(0..h).contains(&y)
            || !map.grid().is_free(Cell::new(x as u32, y as u32))
        {
            continue;
        }
        let edit = Edit::Cell {
            x: x as u32,
            y: y as u32,
            blocked: true,
        };
        apply(&mut map, &edit);
        check_against_fresh(&map, i, &edit)?;
    }
    check_queries(&map, seed, "edited map");
    Ok(())
}

/// Lays, one patch at a time, a `w × h` window at `(x, y)` (modulo the map) with the cells
/// whose bit of `flips` (row by row, modulo 64) is set flipped, every other cell as it is,
/// and checks the graph against a fresh build after each.
fn check_scattered_patches(
    grid: Grid,
    patches: &[(u32, u32, u32, u32, u64)],
    seed: u64,
) -> Result<(), TestCaseError> {
    let mut map = HpaMap::new(grid, config()).unwrap();
    for (i, &(x, y, w, h, flips)) in patches.iter().enumerate() {
        let (gw, gh) = (map.grid().width(), map.grid().height());
        let (w, h) = (w.min(gw), h.min(gh));
        let at = Cell::new(x % (gw - w + 1), y % (gh - h + 1));
        let codes: Vec<u8> = (0..w * h)
            .map(|k| {
                let c = Cell::new(at.x + k % w, at.y + k / w);
                let flip = flips >> (k % 64) & 1 == 1;
                if map.grid().is_free(c) != flip {
                    b'.'
                } else {
                    b'@'
                }
            })
            .collect();
        let edit = Edit::Building {
            x: at.x,
            y: at.y,
            w,
            h,
            blocked: false,
        };
        let report = map
            .apply_patch(at, &TerrainPatch::new(w, h, codes))
            .unwrap();
        prop_assert!(!report.rebuilt, "patch {} rebuilt the map", i);
        check_against_fresh(&map, i, &edit)?;
    }
    check_queries(&map, seed, "patched map");
    Ok(())
}

/// The graph of `map`, just edited by its `i`-th edit `edit`, against a fresh build of
/// its grid: the same subgoals, edges and scan finds, and consistent landmarks.
fn check_against_fresh(map: &HpaMap, i: usize, edit: &Edit) -> Result<(), TestCaseError> {
    let fresh = HpaMap::new(map.grid().clone(), config()).unwrap();
    let (got, want) = (
        map.subgoal_snapshot().unwrap(),
        fresh.subgoal_snapshot().unwrap(),
    );
    prop_assert_eq!(&got.0, &want.0, "subgoals after edit {} ({:?})", i, edit);
    // The landmark distances at the subgoals stay Lipschitz on every edge, so the
    // search's bound stays admissible and consistent.
    if let Err(e) = map.check_consistency() {
        prop_assert!(false, "after edit {} ({:?}): {}", i, edit, e);
    }
    let extra: Vec<_> = got
        .1
        .iter()
        .filter(|e| want.1.binary_search(e).is_err())
        .take(5)
        .collect();
    let missing: Vec<_> = want
        .1
        .iter()
        .filter(|e| got.1.binary_search(e).is_err())
        .take(5)
        .collect();
    prop_assert!(
        extra.is_empty() && missing.is_empty(),
        "edges after edit {} ({:?}): extra {:?}, missing {:?}",
        i,
        edit,
        extra,
        missing
    );
    // Each subgoal's own scan found what a fresh build's finds (the edges alone could
    // hide a partial rescan that lost a find the other end's scan still makes).
    prop_assert_eq!(
        map.subgoal_scan_pairs().unwrap_or_default(),
        fresh.subgoal_scan_pairs().unwrap_or_default(),
        "scan finds after edit {} ({:?})",
        i,
        edit
    );
    Ok(())
}

/// Sampled scenario queries on the shipped maps are optimal, and the graph is much
/// smaller than the gate graph it replaces.
#[test]
fn shipped_maps_are_optimal() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("maps");
    for name in [
        "arena.map",
        "den312d.map",
        "maze-32-32-2.map",
        "random-32-32-20.map",
        "room-100-10.map",
    ] {
        let grid = read_movingai(&dir.join(name));
        let map = HpaMap::new(grid.clone(), config()).unwrap();
        assert!(map.subgoal_count() > 0, "{name} has corners");
        check_queries(&map, name.len() as u64, name);
    }
}

/// Runs `start → goal` in slices of `slice` units on `ctx`; checks that no slice counts
/// more than `slice` units of work (a slice may overrun by one unit at most, and the
/// subgoal search's units are single scans and expansions, so it never needs to), and
/// returns the answer.
fn sliced(
    map: &HpaMap,
    ctx: &mut SearchContext,
    (start, goal): (Cell, Cell),
    slice: usize,
) -> Result<Result<Path, QueryError>, TestCaseError> {
    let mut search = PathSearch::new(start, goal);
    loop {
        let before = search.expansions();
        let progress = map.resume_path_search(ctx, &mut search, slice);
        let spent = search.expansions() - before;
        prop_assert!(
            spent <= slice,
            "{} -> {}: a slice of {} counted {} units",
            start,
            goal,
            slice,
            spent
        );
        if let SearchProgress::Done(answer) = progress {
            prop_assert_eq!(search.restarts(), 0);
            return Ok(answer);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// The subgoal search run in slices of 1..=12 units (scans and expansions) gives the
    /// unsliced search's answer and Dijkstra's length, and no slice overruns its budget.
    #[test]
    fn sliced_subgoal_searches_match(
        grid in grid_strategy(40),
        slice in 1usize..=12,
        seed in any::<u64>(),
    ) {
        let map = HpaMap::new(grid, config()).unwrap();
        let free: Vec<Cell> = map.grid().free_cells().collect();
        prop_assume!(!free.is_empty());
        let mut rng = Rng(seed | 1);
        let mut ctx = SearchContext::new();
        for _ in 0..20 {
            let start = free[rng.below(free.len() as u64) as usize];
            let goal = free[rng.below(free.len() as u64) as usize];
            let answer = sliced(&map, &mut ctx, (start, goal), slice)?;
            let whole = map.find_path(start, goal);
            prop_assert_eq!(&answer, &whole, "{} -> {} in slices of {}", start, goal, slice);
            let want = distances(map.grid(), start)[(goal.y * map.grid().width() + goal.x) as usize];
            match (answer, want) {
                (Ok(path), Some(d)) => prop_assert!((path.length - d).abs() < 1e-6),
                (Err(QueryError::Unreachable { .. }), None) => {}
                (got, want) => prop_assert!(false, "{:?}, Dijkstra {:?}", got, want),
            }
        }
    }
}

/// A sliced refresh right after an edit leaves the rebuild of the subgoal levels for the
/// next call (any edit would throw a rebuild under way away): however large its budget, it
/// does no work and reports the map incomplete. The first call with no edit before it
/// rebuilds them, equal by cell to a fresh build's.
#[test]
fn sliced_levels_rebuild_waits_for_a_call_without_an_edit() {
    let grid = Grid::from_fn(64, 64, |x, y| x % 8 != 4 || y % 9 == 0);
    let mut map = HpaMap::new(grid, config()).unwrap();
    let budget = std::time::Duration::from_secs(60);
    for i in 0..5 {
        let cell = Cell::new(1 + 10 * i, 3);
        assert!(map.grid().is_free(cell));
        map.set_blocked(cell, true).unwrap();
        assert!(map.needs_refresh());
        let report = map.refresh_within(budget);
        assert_eq!(
            (report.work, report.subgoal_levels, report.complete),
            (0, false, false),
            "the call right after edit {i}: {report:?}"
        );
        assert_eq!(map.subgoal_levels_size(), None);
    }
    let report = map.refresh_within(budget);
    assert!(
        report.complete && report.subgoal_levels && report.work > 0,
        "{report:?}"
    );
    let fresh = HpaMap::new(map.grid().clone(), config()).unwrap();
    assert!(map.subgoal_levels_snapshot().is_some());
    assert_eq!(
        map.subgoal_levels_snapshot(),
        fresh.subgoal_levels_snapshot()
    );
    check_queries(&map, 7, "levels rebuilt after a quiet call");
}

/// A sliced subgoal search interrupted by an edit starts over on the edited map and
/// returns its optimal path (Dijkstra on the edited grid).
#[test]
fn sliced_subgoal_search_restarts_after_an_edit() {
    let grid = Grid::from_fn(48, 48, |x, y| !(x % 12 == 6 && y % 16 != 8));
    let mut map = HpaMap::new(grid, config()).unwrap();
    let (start, goal) = (Cell::new(0, 0), Cell::new(47, 47));
    let mut ctx = SearchContext::new();
    let mut search = PathSearch::new(start, goal);
    assert_eq!(
        map.resume_path_search(&mut ctx, &mut search, 3),
        SearchProgress::Paused
    );
    map.set_blocked(Rect::new(20, 0, 20, 40), true).unwrap();
    let path = loop {
        if let SearchProgress::Done(answer) = map.resume_path_search(&mut ctx, &mut search, 3) {
            break answer.unwrap();
        }
    };
    assert_eq!(search.restarts(), 1);
    let d = distances(map.grid(), start)[(goal.y * 48 + goal.x) as usize].unwrap();
    assert_valid(map.grid(), start, goal, &path);
    assert!(
        (path.length - d).abs() < 1e-6,
        "{} but Dijkstra {d}",
        path.length
    );
}
