//! Property tests of terrain costs on random maps, random costs and random edits.
//!
//! Terrain is drawn from `.` (cost 1), `G` (road) and `S` (swamp), with walls `@` and water
//! `W` (impassable); `G` and `S` get random costs from 1/8 to 4 in eighths. For exact mode
//! (with and without landmarks, with small leaves), fast mode and fast mode with tiny
//! clusters, before and after every edit (costs repaved, buildings placed and removed,
//! patches):
//! - the structure is consistent (every leaf uniform in openness and cost) and equals a
//!   fresh build on the same grid;
//! - exact paths cost what an independent weighted Dijkstra (`common::weighted_distances`)
//!   says, within 1e-6 relative, and `Unreachable` comes exactly when it finds no path;
//! - every path is legal and reports its true length and cost (`Path::validate`), and
//!   no path is cheaper than optimal.

use crate::common;
use common::*;
use proptest::prelude::*;
use quadpath::{
    Cell, Config, Grid, HpaMap, Mode, QueryError, Rect, TerrainCosts, TerrainPatch, TerrainSet,
};

const CODES: &[u8] = b"..GGS@W";

fn grid_strategy(max_side: u32) -> impl Strategy<Value = Grid> {
    (2u32..=max_side, 2u32..=max_side).prop_flat_map(|(w, h)| {
        let n = (w * h) as usize;
        // Regions rather than noise: runs of one code along rows, so leaves can grow.
        prop::collection::vec((prop::sample::select(CODES.to_vec()), 1usize..6), 1..n).prop_map(
            move |runs| {
                let mut codes: Vec<u8> = runs
                    .iter()
                    .flat_map(|&(code, len)| std::iter::repeat(code).take(len))
                    .collect();
                codes.resize(n, b'.');
                Grid::from_terrain(w, h, codes, TerrainSet::moving_ai())
            },
        )
    })
}

fn costs_strategy() -> impl Strategy<Value = TerrainCosts> {
    (1u32..=32, 1u32..=32).prop_map(|(road, swamp)| {
        TerrainCosts::unit()
            .with(b'G', road as f32 / 8.0)
            .unwrap()
            .with(b'S', swamp as f32 / 8.0)
            .unwrap()
    })
}

fn config_strategy() -> impl Strategy<Value = Config> {
    prop_oneof![
        Just(Config::exact()),
        Just(Config::exact().with_landmarks(0)),
        Just(Config::exact().with_max_leaf_side(Some(4))),
        Just(Config::fast()),
        (2u32..8).prop_map(tiny_clusters),
        (2u32..8).prop_map(|side| tiny_clusters(side).with_landmarks(3)),
    ]
}

#[derive(Clone, Debug)]
enum Edit {
    Terrain(Rect, u8),
    Blocked(Rect, bool),
    Patch(Cell, u32, u32, Vec<u8>),
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    let rect = (0u32..40, 0u32..40, 0u32..6, 0u32..6)
        .prop_map(|(x, y, w, h)| Rect::new(x, y, x + w, y + h));
    prop_oneof![
        3 => (rect.clone(), prop::sample::select(CODES.to_vec())).prop_map(|(r, c)| Edit::Terrain(r, c)),
        2 => (rect, any::<bool>()).prop_map(|(r, b)| Edit::Blocked(r, b)),
        1 => (0u32..40, 0u32..40, 1u32..5, 1u32..5)
            .prop_flat_map(|(x, y, w, h)| {
                prop::collection::vec(prop::sample::select(CODES.to_vec()), (w * h) as usize)
                    .prop_map(move |codes| Edit::Patch(Cell::new(x, y), w, h, codes))
            }),
    ]
}

/// Clips `r` to the grid; `None` when it misses it.
fn clip(grid: &Grid, r: Rect) -> Option<Rect> {
    (r.x1 < grid.width() && r.y1 < grid.height()).then(|| {
        Rect::new(
            r.x1,
            r.y1,
            r.x2.min(grid.width() - 1),
            r.y2.min(grid.height() - 1),
        )
    })
}

/// Applies `edit` to the map and to the reference grid alike.
fn apply(map: &mut HpaMap, grid: &mut Grid, edit: &Edit) {
    match edit {
        Edit::Terrain(r, code) => {
            if let Some(r) = clip(grid, *r) {
                map.set_terrain(r, *code).unwrap();
                grid.set_terrain(r, *code);
            }
        }
        Edit::Blocked(r, blocked) => {
            if let Some(r) = clip(grid, *r) {
                map.set_blocked(r, *blocked).unwrap();
                grid.set_blocked(r, *blocked);
            }
        }
        Edit::Patch(at, w, h, codes) => {
            let patch = TerrainPatch::new(*w, *h, codes.clone());
            if at.x + w <= grid.width() && at.y + h <= grid.height() {
                let report = map.apply_patch(*at, &patch).unwrap();
                grid.apply_patch(*at, &patch);
                assert!(report.recosted <= (w * h) as usize);
            }
        }
    }
}

/// Checks `pairs` random queries against the weighted oracle.
fn check_queries(
    map: &HpaMap,
    grid: &Grid,
    costs: &TerrainCosts,
    seed: u64,
    pairs: usize,
    ctx: &str,
) {
    let free: Vec<Cell> = grid.free_cells().collect();
    if free.is_empty() {
        return;
    }
    let exact = map.config().gates == quadpath::GatePolicy::All && map.config().clusters.is_none();
    let cost = |c: Cell| costs.get(grid.terrain(c)) as f64;
    let mut rng = Rng(seed | 1);
    for _ in 0..pairs {
        let s = free[rng.below(free.len() as u64) as usize];
        let dist = weighted_distances(grid, cost, s);
        for _ in 0..4 {
            let g = free[rng.below(free.len() as u64) as usize];
            let want = dist[(g.y * grid.width() + g.x) as usize];
            match (map.find_path(s, g), want) {
                (Ok(p), Some(best)) => {
                    p.validate(grid, costs, s, g)
                        .unwrap_or_else(|e| panic!("{ctx}: {s}->{g}: {e}"));
                    let tolerance = 1e-6 * best.max(1.0);
                    assert!(
                        p.cost >= best - tolerance,
                        "{ctx}: {s}->{g}: {} below the optimum {best}",
                        p.cost
                    );
                    if exact {
                        assert!(
                            p.cost <= best + tolerance,
                            "{ctx}: {s}->{g}: exact mode costs {} for {best}",
                            p.cost
                        );
                    }
                }
                (Err(QueryError::Unreachable { .. }), None) => {}
                (r, want) => panic!("{ctx}: {s}->{g}: {r:?} but the oracle says {want:?}"),
            }
        }
    }
}

fn build(grid: &Grid, costs: &TerrainCosts, cfg: Config) -> HpaMap {
    HpaMap::with_costs(grid.clone(), costs.clone(), cfg).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn weighted_paths_are_cheapest_and_valid(
        grid in grid_strategy(24),
        costs in costs_strategy(),
        cfg in config_strategy(),
        seed in any::<u64>(),
    ) {
        let map = build(&grid, &costs, cfg);
        map.check_consistency().unwrap();
        check_queries(&map, &grid, &costs, seed, 3, "fresh");
    }

    #[test]
    fn edits_keep_costs_exact_and_equal_to_a_fresh_build(
        grid in grid_strategy(20),
        costs in costs_strategy(),
        cfg in config_strategy(),
        edits in prop::collection::vec(edit_strategy(), 1..8),
        seed in any::<u64>(),
    ) {
        let mut grid = grid;
        let mut map = build(&grid, &costs, cfg);
        for (step, edit) in edits.iter().enumerate() {
            apply(&mut map, &mut grid, edit);
            let ctx = format!("step {step} {edit:?}");
            prop_assert_eq!(map.grid(), &grid);
            map.check_consistency().unwrap_or_else(|e| panic!("{ctx}: {e}"));
            // Before the refresh stale clusters are crossed over their gates: still valid.
            check_queries(&map, &grid, &costs, seed ^ step as u64, 1, &ctx);
            map.refresh();
            let fresh = build(&grid, &costs, cfg);
            assert_same_structure(&map.snapshot(), &fresh.snapshot(), &ctx);
            check_queries(&map, &grid, &costs, seed.rotate_left(step as u32), 2, &ctx);
        }
    }
}

#[test]
fn a_road_splits_open_ground_and_draws_the_path() {
    // 64×16 open ground with a road along row 12: going from one end of row 2 to the other
    // pays to walk down to the road and back.
    let mut grid = Grid::new_free(64, 16);
    grid.set_terrain(Rect::new(0, 12, 63, 12), b'G');
    let costs: TerrainCosts = "G=0.25".parse().unwrap();
    let (a, b) = (Cell::new(0, 2), Cell::new(63, 2));
    let plain = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
    assert_eq!(plain.find_path(a, b).unwrap().cost, 63.0);
    for mode in [Mode::Exact, Mode::Fast] {
        let map = build(&grid, &costs, mode.into());
        let path = map.find_path(a, b).unwrap();
        let want = weighted_distances(&grid, |c| costs.get(grid.terrain(c)) as f64, a)
            [(b.y * 64 + b.x) as usize]
            .unwrap();
        assert!(
            path.cost < 63.0 && path.cost >= want - 1e-9,
            "{mode:?}: {}",
            path.cost
        );
        assert!(
            path.cells.iter().filter(|c| c.y == 12).count() > 30,
            "{mode:?} takes the road"
        );
        if mode == Mode::Exact {
            assert!((path.cost - want).abs() < 1e-9);
        }
        // The tree is uniform in cost: the road's row is leaves of its own.
        let leaf = map.tree().find(Cell::new(30, 12)).unwrap();
        assert!(leaf.rect().y1 == 12 && leaf.rect().y2 == 12);
        assert_eq!(map.leaf_cost(&leaf), Some(0.25));
    }
}

#[test]
fn costs_on_impassable_codes_are_refused() {
    let costs: TerrainCosts = "W=2".parse().unwrap();
    let err = HpaMap::with_costs(Grid::new_free(4, 4), costs, Mode::Exact).unwrap_err();
    assert!(
        matches!(
            err,
            quadpath::BuildError::Costs(quadpath::CostError::Impassable {
                terrain: quadpath::Terrain(b'W')
            })
        ),
        "{err}"
    );
    assert!(err.to_string().contains("'W'"), "{err}");
}

#[test]
fn same_leaf_queries_on_dear_ground_may_leave_it() {
    // A swamp block with a road around it: crossing the swamp's leaf diagonally costs more
    // than walking round on the road, and the search must see that though both ends share
    // one leaf.
    let mut grid = Grid::new_free(16, 16);
    grid.set_terrain(Rect::new(0, 0, 15, 15), b'G');
    grid.set_terrain(Rect::new(0, 0, 7, 7), b'S');
    let costs: TerrainCosts = "S=4,G=0.5".parse().unwrap();
    let map = build(&grid, &costs, Config::exact());
    let (a, b) = (Cell::new(0, 7), Cell::new(7, 0));
    assert_eq!(
        map.tree().find(a).unwrap().id(),
        map.tree().find(b).unwrap().id(),
        "both ends in the swamp's one leaf"
    );
    let want = weighted_distances(&grid, |c| costs.get(grid.terrain(c)) as f64, a)[7].unwrap();
    let path = map.find_path(a, b).unwrap();
    assert!((path.cost - want).abs() < 1e-9, "{} for {want}", path.cost);
    assert!(
        path.cost < 7.0 * std::f64::consts::SQRT_2 * 4.0 / 2.0,
        "round, on the road"
    );
}

/// Checks every open cell's flow-field distance to `goal` against the weighted oracle (the
/// costs are symmetric, so the distances from the goal are the distances to it), and the
/// field's walks: legal, and as costly as the distance says.
fn check_flow(map: &HpaMap, grid: &Grid, costs: &TerrainCosts, goal: Cell, ctx: &str) {
    let field = map.flow_field(goal).unwrap();
    let want = weighted_distances(grid, |c| costs.get(grid.terrain(c)) as f64, goal);
    for c in grid.bounds().cells() {
        let got = field.distance(map, c).unwrap();
        let expected = want[(c.y * grid.width() + c.x) as usize].filter(|_| grid.is_free(c));
        match (got, expected) {
            (Some(g), Some(w)) => assert!(
                (g - w).abs() <= 1e-6 * w.max(1.0),
                "{ctx}: {c}: field {g}, oracle {w}"
            ),
            (None, None) => {}
            (g, w) => panic!("{ctx}: {c}: field {g:?}, oracle {w:?}"),
        }
        if let (Some(w), Some(path)) = (expected, field.path_from(map, c).unwrap()) {
            path.validate(grid, costs, c, goal)
                .unwrap_or_else(|e| panic!("{ctx}: {c}: {e}"));
            assert!(
                (path.cost - w).abs() <= 1e-6 * w.max(1.0),
                "{ctx}: walk from {c} costs {}",
                path.cost
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn flow_fields_hold_weighted_distances(
        grid in grid_strategy(16),
        costs in costs_strategy(),
        exact in any::<bool>(),
        edits in prop::collection::vec(edit_strategy(), 0..3),
        pick in any::<u64>(),
    ) {
        let mut grid = grid;
        let cfg = if exact { Config::exact() } else { Config::fast() };
        let mut map = build(&grid, &costs, cfg);
        for edit in &edits {
            apply(&mut map, &mut grid, edit);
        }
        map.refresh();
        let free: Vec<Cell> = grid.free_cells().collect();
        if !free.is_empty() {
            let goal = free[(pick % free.len() as u64) as usize];
            check_flow(&map, &grid, &costs, goal, &format!("{cfg:?} after {edits:?}"));
        }
    }
}

/// Whether a `k × k` agent may stand at `p` on `grid` (footprint on the map, all of
/// `passable`, nothing obstructed), read plainly.
fn footprint_open(grid: &Grid, passable: &TerrainSet, k: u32, p: Cell) -> bool {
    p.x + k <= grid.width()
        && p.y + k <= grid.height()
        && Rect::new(p.x, p.y, p.x + k - 1, p.y + k - 1)
            .cells()
            .all(|c| passable.contains(grid.terrain(c)) && !grid.is_obstructed(c))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    /// Movement classes with terrain costs in a [`World`]: each layer equals a fresh build
    /// after every edit, and exact paths cost what a weighted Dijkstra over open positions
    /// says, a position costing the dearest terrain under its footprint.
    #[test]
    fn world_classes_with_costs_are_exact_and_incremental(
        grid in grid_strategy(16),
        costs in costs_strategy(),
        sizes in prop::collection::vec(1u32..4, 1..3),
        edits in prop::collection::vec(edit_strategy(), 1..5),
        seed in any::<u64>(),
    ) {
        use quadpath::{Movement, World};
        let mut world = World::new(grid.clone());
        let mut classes = Vec::new();
        for &k in sizes.iter().filter(|&&k| k <= grid.width() && k <= grid.height()) {
            let movement = Movement::default().with_size(k).unwrap().with_terrain_costs(costs.clone()).unwrap();
            classes.push((world.add_class(movement, Config::exact()).unwrap(), k));
        }
        for (step, edit) in edits.iter().enumerate() {
            match edit {
                Edit::Terrain(r, code) => if let Some(r) = clip(world.grid(), *r) {
                    world.set_terrain(r, *code).unwrap();
                },
                Edit::Blocked(r, on) => if let Some(r) = clip(world.grid(), *r) {
                    if *on { world.set_blocked(r, true).unwrap(); } else { world.set_blocked(r, false).unwrap(); }
                },
                Edit::Patch(at, w, h, codes) => {
                    if at.x + w <= world.grid().width() && at.y + h <= world.grid().height() {
                        world.apply_patch(*at, &TerrainPatch::new(*w, *h, codes.clone())).unwrap();
                    }
                }
            }
            world.refresh();
            let ctx = format!("step {step} {edit:?}");
            let now = world.grid().clone();
            let mut fresh = World::new(now.clone());
            for &(class, _) in &classes {
                let movement = world.movement(class).unwrap().clone();
                let again = fresh.add_class(movement, Config::exact()).unwrap();
                let (edited, built) = (world.layer(class).unwrap(), fresh.layer(again).unwrap());
                prop_assert_eq!(edited.grid(), built.grid(), "{}: layer grids", ctx);
                edited.check_consistency().unwrap_or_else(|e| panic!("{ctx}: {e}"));
                assert_same_structure(&edited.snapshot(), &built.snapshot(), &ctx);
            }
            let set = TerrainSet::moving_ai();
            for &(class, k) in &classes {
                let open = Grid::from_fn(now.width(), now.height(), |x, y| footprint_open(&now, &set, k, Cell::new(x, y)));
                let position_cost = |p: Cell| {
                    Rect::new(p.x, p.y, (p.x + k - 1).min(now.width() - 1), (p.y + k - 1).min(now.height() - 1))
                        .cells()
                        .map(|c| costs.get(now.terrain(c)) as f64)
                        .fold(0.0, f64::max)
                };
                let free: Vec<Cell> = open.free_cells().collect();
                if free.is_empty() {
                    continue;
                }
                let mut rng = Rng(seed.rotate_left(step as u32) | 1);
                let s = free[rng.below(free.len() as u64) as usize];
                let dist = weighted_distances(&open, position_cost, s);
                for _ in 0..4 {
                    let g = free[rng.below(free.len() as u64) as usize];
                    let want = dist[(g.y * now.width() + g.x) as usize];
                    match (world.find_path(class, s, g), want) {
                        (Ok(p), Some(best)) => {
                            let layer = world.layer(class).unwrap();
                            p.validate(layer.grid(), layer.costs(), s, g).unwrap();
                            prop_assert!((p.cost - best).abs() <= 1e-6 * best.max(1.0), "{}: {} {}->{}: {} for {}", ctx, k, s, g, p.cost, best);
                        }
                        (Err(e), None) if e.is_unreachable() => {}
                        (r, want) => panic!("{ctx}: size {k} {s}->{g}: {r:?}, oracle {want:?}"),
                    }
                }
            }
        }
    }
}

#[test]
fn a_road_paved_where_none_was_lowers_the_heuristic() {
    // Open ground, and a class that prices roads at 1/8 on a map with no road yet: the
    // heuristic may scale by 1. Once a road runs round the edge, the way round costs about
    // 10 against 37 straight across; a heuristic still scaled by 1 would overestimate the
    // road and miss it.
    let mut grid = Grid::new_free(40, 20);
    let costs: TerrainCosts = "G=0.125".parse().unwrap();
    let (a, b) = (Cell::new(1, 0), Cell::new(38, 0));
    for cfg in [Config::exact(), Config::exact().with_landmarks(0)] {
        let mut map = build(&grid, &costs, cfg);
        assert_eq!(map.find_path(a, b).unwrap().cost, 37.0);
        for road in [
            Rect::new(0, 0, 0, 19),
            Rect::new(0, 19, 39, 19),
            Rect::new(39, 0, 39, 19),
        ] {
            map.set_terrain(road, b'G').unwrap();
            grid.set_terrain(road, b'G');
        }
        let want = weighted_distances(&grid, |c| costs.get(grid.terrain(c)) as f64, a)[38].unwrap();
        let got = map.find_path(a, b).unwrap();
        assert!(
            want < 12.0 && (got.cost - want).abs() < 1e-9,
            "{cfg:?}: {} for {want}",
            got.cost
        );
        grid = Grid::new_free(40, 20);
    }
}
