//! Flow fields against independent oracles.
//!
//! On random maps, in exact mode (lazy per-leaf distances over the gate graph), exact mode
//! with small leaves (many gates per leaf) and fast mode (a Dijkstra over every cell), to a
//! goal cell or a goal rectangle, through random edits:
//! - every cell's `distance` equals the tests' own Dijkstra from the goal (`None` exactly
//!   where that finds no route), and on sampled starts `pathfinding::astar`'s length;
//! - following `next_step` (`path_from`) from sampled starts gives a legal path of exactly
//!   that length, ending in the goal;
//! - after an edit the old field answers `Stale` for every query until `refresh`, and then
//!   holds all of the above on the edited map.
//!
//! Also: movement classes (a 2×2 agent against the footprint oracle), the scenario files'
//! optimal lengths, laziness, errors, and sharing a field between threads.

use crate::common;
use common::footprint::{assert_legal, astar_length, Terrain};
use common::{assert_valid, distances, read_movingai, read_scen, Rng};
use proptest::prelude::*;
use quadpath::{
    Cell, Config, FlowError, FlowField, FlowGoal, Grid, HpaMap, Mode, Movement, Rect, World,
    WorldError,
};

/// The three ways a field is computed.
fn config(i: usize) -> Config {
    match i {
        0 => Config::exact(),
        1 => Config::exact().with_max_leaf_side(Some(4)),
        _ => Config::fast(),
    }
}

/// The test's terrain for a grid: free cells are `.`, blocked ones `@`.
fn terrain_of(grid: &Grid) -> Terrain {
    let (w, h) = (grid.width(), grid.height());
    Terrain {
        w,
        h,
        codes: (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| match grid.is_free(Cell::new(x, y)) {
                true => b'.',
                false => b'@',
            })
            .collect(),
        obstructed: vec![false; (w * h) as usize],
    }
}

/// The oracle's distance of every cell to the goal area: the least over its free cells of
/// the tests' own Dijkstra (distances are symmetric).
fn oracle(grid: &Grid, goal: Rect) -> Vec<Option<f64>> {
    let mut best: Vec<Option<f64>> = vec![None; (grid.width() * grid.height()) as usize];
    for g in goal.cells().filter(|&g| grid.is_free(g)) {
        for (b, d) in best.iter_mut().zip(distances(grid, g)) {
            if let Some(d) = d {
                *b = Some(b.map_or(d, |b: f64| b.min(d)));
            }
        }
    }
    best
}

/// Checks a current field against the oracles on every cell, and its paths on `samples`
/// random starts.
fn check_field(map: &HpaMap, field: &FlowField, rng: &mut Rng, samples: usize, ctx: &str) {
    let grid = map.grid();
    let area = field.goal().area();
    let want = oracle(grid, area);
    for c in grid.bounds().cells() {
        let got = field.distance(map, c).unwrap();
        let exp = want[(c.y * grid.width() + c.x) as usize];
        match (got, exp) {
            (Some(g), Some(e)) => assert!((g - e).abs() < 1e-6, "{ctx}: {c}: {g} != {e}"),
            (None, None) => {}
            _ => panic!("{ctx}: {c}: field says {got:?}, Dijkstra {exp:?}"),
        }
    }
    let terrain = terrain_of(grid);
    let open_goals: Vec<Cell> = area.cells().filter(|&g| grid.is_free(g)).collect();
    for _ in 0..samples {
        let start = Cell::new(
            rng.below(grid.width() as u64) as u32,
            rng.below(grid.height() as u64) as u32,
        );
        let d = field.distance(map, start).unwrap();
        if grid.is_free(start) {
            // pathfinding::astar to the nearest goal cell is the oracle.
            let astar = open_goals
                .iter()
                .filter_map(|&g| astar_length(&terrain, b".", 1, start, g))
                .fold(None, |b: Option<f64>, d| Some(b.map_or(d, |b| b.min(d))));
            match (d, astar) {
                (Some(a), Some(b)) => assert!((a - b).abs() < 1e-6, "{ctx}: astar {start}"),
                (None, None) => {}
                _ => panic!("{ctx}: {start}: field {d:?}, astar {astar:?}"),
            }
        }
        match field.path_from(map, start).unwrap() {
            Some(path) => {
                let end = *path.cells.last().unwrap();
                assert!(area.contains(end), "{ctx}: ends at {end}, off the goal");
                assert_valid(grid, start, end, &path);
                let d = d.expect("a path means a distance");
                assert!(
                    (path.length - d).abs() < 1e-6,
                    "{ctx}: {start}: {} != {d}",
                    path.length
                );
                let first_step = field.next_step(map, start).unwrap();
                assert_eq!(first_step, path.cells.get(1).copied(), "{ctx}: {start}");
            }
            None => {
                assert_eq!(d, None, "{ctx}: {start}: no path but a distance");
                assert_eq!(field.next_step(map, start).unwrap(), None);
            }
        }
    }
}

#[derive(Clone, Debug)]
struct Wall {
    x: u32,
    y: u32,
    w: u32,
    h: u32,
    blocked: bool,
}

fn wall_strategy() -> impl Strategy<Value = Wall> {
    (0u32..64, 0u32..64, 1u32..8, 1u32..8, any::<bool>()).prop_map(|(x, y, w, h, blocked)| Wall {
        x,
        y,
        w,
        h,
        blocked,
    })
}

fn run_case(
    (w, h, walls): (u32, u32, Vec<bool>),
    mode: usize,
    goal: (u32, u32, u32, u32),
    edits: Vec<Wall>,
    seed: u64,
) {
    let grid = Grid::from_fn(w, h, |x, y| !walls[(y * w + x) as usize]);
    let mut map = HpaMap::new(grid, config(mode)).unwrap();
    let mut rng = Rng(seed | 1);
    let (gx, gy) = (goal.0 % w, goal.1 % h);
    let area = Rect::new(gx, gy, (gx + goal.2).min(w - 1), (gy + goal.3).min(h - 1));
    // Every other case aims at one cell.
    let goal: FlowGoal = match seed % 2 {
        0 => Cell::new(gx, gy).into(),
        _ => area.into(),
    };
    let mut field = match map.flow_field(goal) {
        Ok(f) => Some(f),
        Err(FlowError::GoalNotOpen { .. }) => {
            assert!(goal.area().cells().all(|c| !map.grid().is_free(c)));
            None
        }
        Err(e) => panic!("{e}"),
    };
    if let Some(f) = &field {
        check_field(&map, f, &mut rng, 12, "built");
    }
    for (i, e) in edits.iter().enumerate() {
        let r = Rect::new(
            e.x % w,
            e.y % h,
            (e.x % w + e.w - 1).min(w - 1),
            (e.y % h + e.h - 1).min(h - 1),
        );
        let changed = map.set_blocked(r, e.blocked).unwrap();
        let ctx = format!("after edit {i} ({e:?}, {changed} changed)");
        let Some(f) = &mut field else {
            // The goal was all walls: it may have opened up.
            field = map.flow_field(goal).ok();
            continue;
        };
        if changed == 0 {
            assert!(f.is_current(&map), "{ctx}: nothing changed, yet stale");
        } else {
            assert!(!f.is_current(&map), "{ctx}");
            let c = Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32);
            assert_eq!(f.distance(&map, c), Err(FlowError::Stale), "{ctx}");
            assert_eq!(f.next_step(&map, c), Err(FlowError::Stale), "{ctx}");
            assert_eq!(
                f.path_from(&map, c).map(|_| ()),
                Err(FlowError::Stale),
                "{ctx}"
            );
        }
        match f.refresh(&map) {
            Ok(refreshed) => assert_eq!(refreshed, changed > 0, "{ctx}"),
            Err(FlowError::GoalNotOpen { .. }) => {
                assert!(
                    !f.is_current(&map),
                    "{ctx}: a failed refresh leaves it stale"
                );
                field = None;
                continue;
            }
            Err(e) => panic!("{ctx}: {e}"),
        }
        check_field(&map, f, &mut rng, 6, &ctx);
    }
}

fn map_strategy() -> impl Strategy<Value = (u32, u32, Vec<bool>)> {
    (2u32..=28, 2u32..=28, 0u32..=45).prop_flat_map(|(w, h, d)| {
        (
            Just(w),
            Just(h),
            proptest::collection::vec(proptest::bool::weighted(d as f64 / 100.0), (w * h) as usize),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn fields_equal_the_oracles_through_edits(
        map in map_strategy(),
        mode in 0usize..3,
        goal in (0u32..64, 0u32..64, 0u32..4, 0u32..4),
        edits in proptest::collection::vec(wall_strategy(), 0..5),
        seed in any::<u64>(),
    ) {
        run_case(map, mode, goal, edits, seed);
    }
}

/// A 2×2 agent's field over its class's layer: distances are `pathfinding::astar` over the
/// footprint rules, and paths are legal for the footprint.
#[test]
fn a_class_field_follows_the_footprint_rule() {
    let mut rng = Rng(0x5EED_F10E);
    for round in 0..12 {
        let (w, h) = (24, 20);
        let codes: Vec<u8> = (0..w * h)
            .map(|_| match rng.below(100) {
                0..=11 => b'@',
                12..=17 => b'W',
                _ => b'.',
            })
            .collect();
        let t = Terrain {
            w,
            h,
            codes: codes.clone(),
            obstructed: vec![false; (w * h) as usize],
        };
        let mut world = World::new(Grid::from_terrain(w, h, codes, Default::default()));
        let tank = world
            .add_class(Movement::default().with_size(2).unwrap(), Mode::Exact)
            .unwrap();
        let Some(goal) = (0..200)
            .map(|_| Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32))
            .find(|&c| world.is_open(tank, c))
        else {
            continue;
        };
        let field = world.flow_field(tank, goal).unwrap();
        let layer = world.layer(tank).unwrap();
        for y in 0..h {
            for x in 0..w {
                let s = Cell::new(x, y);
                let d = field.distance(layer, s).unwrap();
                let want = if t.open(b".GS", 2, x as i64, y as i64) {
                    astar_length(&t, b".GS", 2, s, goal)
                } else {
                    None
                };
                match (d, want) {
                    (Some(a), Some(b)) => assert!((a - b).abs() < 1e-6, "round {round} {s}"),
                    (None, None) => {}
                    _ => panic!("round {round} {s}: field {d:?}, astar {want:?}"),
                }
                if let Some(path) = field.path_from(layer, s).unwrap() {
                    assert_legal(&t, b".GS", 2, s, goal, &path.cells, path.length);
                }
            }
        }
    }
}

/// On shipped maps, the distance from each scenario's start in the field of its goal is the
/// file's optimal length.
#[test]
fn fields_give_the_scenario_files_optimal_lengths() {
    for (map, scen) in [
        ("maps/den312d.map", "maps/den312d-even-1.scen"),
        ("maps/maze-32-32-2.map", "maps/maze-32-32-2-even-1.scen"),
        ("maps/arena.map", "maps/arena.map.scen"),
    ] {
        let grid = read_movingai(map.as_ref());
        for mode in [Mode::Exact, Mode::Fast] {
            let hpa = HpaMap::new(grid.clone(), mode).unwrap();
            for line in read_scen(scen.as_ref()).iter().step_by(7) {
                let field = hpa.flow_field(line.goal).unwrap();
                let d = field.distance(&hpa, line.start).unwrap().unwrap();
                assert!(
                    (d - line.optimal).abs() <= line.tol,
                    "{scen} {mode:?} {} -> {}: {d} != {}",
                    line.start,
                    line.goal,
                    line.optimal
                );
                let path = field.path_from(&hpa, line.start).unwrap().unwrap();
                assert_valid(&grid, line.start, line.goal, &path);
            }
        }
    }
}

/// One unit's walk works out only the leaves near its route, not the whole map.
#[test]
fn leaves_are_worked_out_only_where_asked() {
    let grid = read_movingai("maps/den312d.map".as_ref());
    let map = HpaMap::new(grid, Mode::Exact).unwrap();
    let line = *read_scen("maps/den312d-even-1.scen".as_ref())
        .last()
        .unwrap();
    let field = map.flow_field(line.goal).unwrap();
    assert_eq!(field.computed_leaves(), 0);
    let before = field.memory_bytes();
    let path = field.path_from(&map, line.start).unwrap().unwrap();
    let touched = field.computed_leaves();
    assert!(touched > 0 && touched <= 3 * path.cells.len());
    assert!(
        touched * 3 < map.free_leaf_count(),
        "{touched} of {} leaves for one route",
        map.free_leaf_count()
    );
    assert!(field.memory_bytes() > before);
}

#[test]
fn bad_goals_and_cells_are_typed_errors() {
    let mut map = HpaMap::new(Grid::from_fn(10, 8, |x, _| x != 4), Mode::Exact).unwrap();
    assert_eq!(
        map.flow_field(Cell::new(10, 0)).unwrap_err(),
        FlowError::GoalOutOfBounds {
            goal: Cell::new(10, 0).into(),
            width: 10,
            height: 8
        }
    );
    assert!(matches!(
        map.flow_field(Rect::new(2, 2, 3, 8)),
        Err(FlowError::GoalOutOfBounds { .. })
    ));
    assert_eq!(
        map.flow_field(Cell::new(4, 3)).unwrap_err(),
        FlowError::GoalNotOpen {
            goal: Cell::new(4, 3).into()
        }
    );
    assert!(
        map.flow_field(Rect::new(4, 0, 4, 7)).is_err(),
        "a wall column"
    );
    let mut field = map.flow_field(Rect::new(4, 0, 5, 7)).unwrap();
    assert_eq!(
        field.distance(&map, Cell::new(0, 0)).unwrap(),
        None,
        "walled off"
    );
    assert_eq!(field.distance(&map, Cell::new(9, 7)).unwrap(), Some(4.0));
    let off = field.distance(&map, Cell::new(3, 8)).unwrap_err();
    assert_eq!(off.to_string(), "cell 3,8 is outside the 10x8 map");
    // The goal column is built over: the refresh fails, and the field stays stale.
    map.set_blocked(Rect::new(5, 0, 5, 7), true).unwrap();
    assert!(matches!(
        field.refresh(&map),
        Err(FlowError::GoalNotOpen { .. })
    ));
    assert_eq!(field.distance(&map, Cell::new(9, 7)), Err(FlowError::Stale));
    // A field read with another map is stale too.
    let other = HpaMap::new(Grid::new_free(10, 8), Mode::Exact).unwrap();
    assert_eq!(
        field.distance(&other, Cell::new(0, 0)),
        Err(FlowError::Stale)
    );
    // Worlds name the class.
    let mut world = World::new(Grid::new_free(6, 6));
    let tank = world
        .add_class(Movement::default().with_size(3).unwrap(), Mode::Exact)
        .unwrap();
    let err = world.flow_field(tank, Cell::new(5, 5)).unwrap_err();
    assert!(matches!(
        err,
        WorldError::Flow {
            error: FlowError::GoalNotOpen { .. },
            ..
        }
    ));
    assert!(err.to_string().contains("3x3"), "{err}");
}

/// One field serves units on many threads.
#[test]
fn a_field_is_shared_across_threads() {
    let grid = read_movingai("maps/arena.map".as_ref());
    let map = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
    let goal = grid.free_cells().nth(500).unwrap();
    let field = map.flow_field(goal).unwrap();
    let starts: Vec<Cell> = grid.free_cells().step_by(37).collect();
    let lengths: Vec<Option<f64>> = std::thread::scope(|s| {
        let workers: Vec<_> = starts
            .chunks(starts.len().div_ceil(4))
            .map(|chunk| {
                let (map, field) = (&map, &field);
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|&c| field.path_from(map, c).unwrap().map(|p| p.length))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let want = distances(&grid, goal);
    for (c, got) in starts.iter().zip(lengths) {
        let exp = want[(c.y * grid.width() + c.x) as usize];
        assert_eq!(got.is_some(), exp.is_some(), "{c}");
        if let (Some(g), Some(e)) = (got, exp) {
            assert!((g - e).abs() < 1e-6, "{c}: {g} != {e}");
        }
    }
}
