//! Property tests of movement classes: a [`World`] of several agent sizes and terrain sets
//! on random maps of mixed terrain, under random terrain edits, buildings and patches.
//!
//! The test keeps its own copy of the terrain and the obstructions, edited beside the
//! world, and after every edit checks against oracles written here from the model's words:
//! - every clearance equals a brute-force count of the largest passable square, capped;
//! - every layer, refreshed, equals a fresh build over the brute-force open grid and passes
//!   `check_consistency`;
//! - for random pairs of open positions of every class, an exact layer's path has the length
//!   `pathfinding::astar` finds on the brute-force open positions with the footprint rule
//!   (diagonal steps need both orthogonal positions open), fast layers are never shorter,
//!   every path is legal under that rule, and "unreachable" comes exactly when A* finds no
//!   path.

use crate::common;
use common::footprint::{assert_legal, astar_length, Terrain};
use common::Rng;
use proptest::prelude::*;
use quadpath::{
    Cell, Config, Grid, HpaMap, Mode, Movement, Rect, TerrainPatch, TerrainSet, World, WorldError,
};

const SETS: [&[u8]; 3] = [b".GS", b"W", b".GSW"];

#[derive(Clone, Debug)]
struct ClassSpec {
    size: u32,
    set: usize,
    config: usize,
}

fn config(i: usize) -> Config {
    match i {
        0 => Config::exact(),
        1 => Config::exact().with_landmarks(0),
        2 => Config::fast(),
        _ => common::tiny_clusters(3),
    }
}

#[derive(Clone, Debug)]
enum Edit {
    Terrain {
        x: u32,
        y: u32,
        w: u32,
        h: u32,
        code: u8,
    },
    Building {
        x: u32,
        y: u32,
        w: u32,
        h: u32,
        place: bool,
    },
    Patch {
        x: u32,
        y: u32,
        w: u32,
        h: u32,
        codes: Vec<u8>,
    },
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    let code = prop::sample::select(b"..GSWW@T".to_vec());
    prop_oneof![
        (0u32..32, 0u32..32, 1u32..=4, 1u32..=4, code.clone())
            .prop_map(|(x, y, w, h, code)| Edit::Terrain { x, y, w, h, code }),
        (0u32..32, 0u32..32, 1u32..=5, 1u32..=5, any::<bool>())
            .prop_map(|(x, y, w, h, place)| Edit::Building { x, y, w, h, place }),
        (
            0u32..32,
            0u32..32,
            1u32..=6,
            1u32..=6,
            prop::collection::vec(code, 36)
        )
            .prop_map(|(x, y, w, h, codes)| Edit::Patch { x, y, w, h, codes }),
    ]
}

fn terrain_strategy() -> impl Strategy<Value = Terrain> {
    (3u32..=28, 3u32..=28).prop_flat_map(|(w, h)| {
        prop::collection::vec(
            prop::sample::select(b"......GSWWW@T".to_vec()),
            (w * h) as usize,
        )
        .prop_map(move |codes| Terrain {
            w,
            h,
            obstructed: vec![false; codes.len()],
            codes,
        })
    })
}

/// The rectangle `(x, y, w, h)` reduced onto the map.
fn clip(t: &Terrain, x: u32, y: u32, w: u32, h: u32) -> Rect {
    common::clipped_rect((t.w, t.h), (x, y, w, h))
}

/// Applies `edit` to the world and to the test's terrain.
fn apply(world: &mut World, t: &mut Terrain, edit: &Edit) {
    match edit {
        &Edit::Terrain { x, y, w, h, code } => {
            let r = clip(t, x, y, w, h);
            world.set_terrain(r, code).unwrap();
            for c in r.cells() {
                t.codes[(c.y * t.w + c.x) as usize] = code;
            }
        }
        &Edit::Building { x, y, w, h, place } => {
            let r = clip(t, x, y, w, h);
            if place {
                world.set_blocked(r, true).unwrap();
            } else {
                world.set_blocked(r, false).unwrap();
            }
            for c in r.cells() {
                t.obstructed[(c.y * t.w + c.x) as usize] = place;
            }
        }
        Edit::Patch { x, y, w, h, codes } => {
            let r = clip(t, *x, *y, *w, *h);
            let (pw, ph) = (r.x2 - r.x1 + 1, r.y2 - r.y1 + 1);
            let patch = TerrainPatch::new(pw, ph, codes[..(pw * ph) as usize].to_vec());
            world.apply_patch(Cell::new(r.x1, r.y1), &patch).unwrap();
            for c in r.cells() {
                t.codes[(c.y * t.w + c.x) as usize] = patch.code(c.x - r.x1, c.y - r.y1).code();
            }
        }
    }
}

struct Registered {
    id: quadpath::ClassId,
    spec: ClassSpec,
}

fn set_of(spec: &ClassSpec) -> &'static [u8] {
    SETS[spec.set]
}

/// Every check of the module header, on the world as it is now.
fn check(world: &mut World, t: &Terrain, classes: &[Registered], rng: &mut Rng, ctx: &str) {
    // Terrain and obstructions are what the test says.
    for c in world.grid().bounds().cells() {
        let i = (c.y * t.w + c.x) as usize;
        assert_eq!(world.grid().terrain(c), t.codes[i], "{ctx}: terrain at {c}");
        assert_eq!(
            world.grid().is_obstructed(c),
            t.obstructed[i],
            "{ctx}: building at {c}"
        );
    }
    world.refresh();
    assert!(!world.needs_refresh(), "{ctx}");
    for reg in classes {
        let (set, k) = (set_of(&reg.spec), reg.spec.size);
        let field = world.clearance_field(reg.id).unwrap();
        assert!(field.cap() >= k);
        for c in world.grid().bounds().cells() {
            assert_eq!(
                field.get(c),
                t.clearance(set, field.cap(), c.x, c.y),
                "{ctx}: clearance at {c} for {:?}",
                String::from_utf8_lossy(set)
            );
        }
        let layer = world.layer(reg.id).unwrap();
        layer
            .check_consistency()
            .unwrap_or_else(|e| panic!("{ctx}: class {:?}: {e}", reg.spec));
        let open = t.open_grid(set, k);
        assert_eq!(
            layer.grid().free_count(),
            open.free_count(),
            "{ctx}: {:?}",
            reg.spec
        );
        let fresh = HpaMap::new(open.clone(), config(reg.spec.config)).unwrap();
        common::assert_same_structure(
            &layer.snapshot(),
            &fresh.snapshot(),
            &format!("{ctx}: class {:?}", reg.spec),
        );
        let positions: Vec<Cell> = open.free_cells().collect();
        if positions.is_empty() {
            continue;
        }
        let exact = reg.spec.config < 2;
        for _ in 0..3 {
            let s = positions[rng.below(positions.len() as u64) as usize];
            let g = positions[rng.below(positions.len() as u64) as usize];
            let want = astar_length(t, set, k, s, g);
            match (world.find_path(reg.id, s, g), want) {
                (Ok(p), Some(best)) => {
                    assert_legal(t, set, k, s, g, &p.cells, p.length);
                    assert!(p.length >= best - 1e-6, "{ctx}: {s}->{g} below optimal");
                    if exact {
                        assert!(
                            (p.length - best).abs() < 1e-6,
                            "{ctx}: {:?} {s}->{g}: {} vs A* {best}",
                            reg.spec,
                            p.length
                        );
                    }
                }
                (Err(e), None) if e.is_unreachable() => {}
                (got, want) => panic!(
                    "{ctx}: {:?} {s}->{g}: {got:?} but A* says {want:?}",
                    reg.spec
                ),
            }
            assert_eq!(
                world.connected(reg.id, s, g).unwrap(),
                want.is_some(),
                "{ctx}"
            );
        }
    }
}

fn run_case(t: Terrain, specs: Vec<ClassSpec>, edits: Vec<Edit>, seed: u64) {
    let mut t = t;
    let grid = Grid::from_terrain(t.w, t.h, t.codes.clone(), TerrainSet::moving_ai());
    let mut world = World::new(grid);
    let mut classes = Vec::new();
    for spec in specs {
        let movement = Movement::default()
            .with_size(spec.size)
            .unwrap()
            .with_passable(TerrainSet::from_codes(set_of(&spec)));
        match world.add_class(movement, config(spec.config)) {
            Ok(id) => classes.push(Registered { id, spec }),
            Err(WorldError::LargerThanMap { .. }) => {
                assert!(
                    spec.size > t.w || spec.size > t.h,
                    "{spec:?} fits on {}x{}",
                    t.w,
                    t.h
                )
            }
            Err(e) => panic!("{spec:?}: {e}"),
        }
    }
    let mut rng = Rng(seed | 1);
    check(&mut world, &t, &classes, &mut rng, "built");
    for (step, edit) in edits.iter().enumerate() {
        apply(&mut world, &mut t, edit);
        check(
            &mut world,
            &t,
            &classes,
            &mut rng,
            &format!("step {step} {edit:?}"),
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn classes_follow_the_model_through_edits(
        t in terrain_strategy(),
        specs in prop::collection::vec(
            (1u32..=4, 0usize..3, 0usize..4).prop_map(|(size, set, config)| ClassSpec { size, set, config }),
            1..=5,
        ),
        edits in prop::collection::vec(edit_strategy(), 1..=8),
        seed in any::<u64>(),
    ) {
        run_case(t, specs, edits, seed);
    }
}

/// For 1×1 agents on the Moving AI set, a world layer is today's `HpaMap`: same structure,
/// same paths, on a shipped map with its whole scenario file.
#[test]
fn the_default_class_is_the_plain_map() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("maps");
    let grid = quadpath::io::read_map(dir.join("den312d.map")).unwrap();
    let plain = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
    let mut world = World::new(grid);
    let infantry = world.add_class(Movement::default(), Mode::Exact).unwrap();
    let layer = world.layer(infantry).unwrap();
    common::assert_same_structure(&layer.snapshot(), &plain.snapshot(), "den312d");
    for line in common::read_scen(&dir.join("den312d-even-1.scen")) {
        let a = plain.find_path(line.start, line.goal).unwrap();
        let b = world.find_path(infantry, line.start, line.goal).unwrap();
        assert_eq!(a.cells, b.cells, "{} -> {}", line.start, line.goal);
    }
}

/// Classes that share a terrain set share its clearance field, grown to the largest size.
#[test]
fn classes_on_one_set_share_a_field() {
    let mut world = World::new(Grid::new_free(20, 20));
    let small = world.add_class(Movement::default(), Mode::Exact).unwrap();
    assert_eq!(world.clearance_fields().len(), 1);
    assert_eq!(world.clearance_field(small).unwrap().cap(), 1);
    let big = world
        .add_class(Movement::default().with_size(4).unwrap(), Mode::Fast)
        .unwrap();
    assert_eq!(world.clearance_fields().len(), 1, "one set, one field");
    assert_eq!(world.clearance_field(small).unwrap().cap(), 4);
    assert_eq!(world.clearance_field(big).unwrap().get(Cell::new(0, 0)), 4);
    let water = Movement::default().with_passable(TerrainSet::from_codes(b"W"));
    world.add_class(water, Mode::Exact).unwrap();
    assert_eq!(world.clearance_fields().len(), 2);
    let shared = world.shared_memory_bytes();
    assert!(shared >= world.grid().memory_bytes() + 2 * 400);
    let layers: usize = world
        .classes()
        .map(|(id, _)| world.layer(id).unwrap().memory_bytes())
        .sum();
    assert_eq!(world.memory_bytes(), shared + layers);
}

/// Bad classes and bad queries are typed errors naming the class and the cell.
#[test]
fn bad_classes_and_queries_are_errors() {
    let mut grid = Grid::new_free(10, 6);
    grid.set_terrain(Rect::new(0, 5, 9, 5), b'W');
    let mut world = World::new(grid);
    let err = world
        .add_class(Movement::default().with_size(7).unwrap(), Mode::Exact)
        .unwrap_err();
    assert!(
        matches!(
            err,
            WorldError::LargerThanMap {
                width: 10,
                height: 6,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("7x7 on .GS"), "{err}");
    let nothing = Movement::default().with_passable(TerrainSet::empty());
    assert!(matches!(
        world.add_class(nothing, Mode::Exact),
        Err(WorldError::NoPassableTerrain { .. })
    ));
    let bad_config = Config::exact().with_max_leaf_side(Some(0));
    assert!(matches!(
        world.add_class(Movement::default(), bad_config),
        Err(WorldError::Build { .. })
    ));
    assert_eq!(
        world.classes().count(),
        0,
        "refused classes leave nothing behind"
    );

    let tank = world
        .add_class(Movement::default().with_size(2).unwrap(), Mode::Exact)
        .unwrap();
    // (0, 4) is land but a 2×2 footprint from it covers the water row.
    let err = world
        .find_path(tank, Cell::new(0, 0), Cell::new(0, 4))
        .unwrap_err();
    match &err {
        WorldError::NotOpen {
            class,
            endpoint,
            cell,
            ..
        } => {
            assert_eq!((*class, *cell), (tank, Cell::new(0, 4)));
            assert_eq!(*endpoint, quadpath::Endpoint::Goal);
        }
        e => panic!("{e:?}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("class 0") && text.contains("2x2 on .GS") && text.contains("0,4"),
        "{text}"
    );
    // A path legal for infantry but not for the tank: its footprint would touch the water.
    let hugging = quadpath::Path::from_cells((0..10).map(|x| Cell::new(x, 4)).collect());
    // Legal for a 1×1 agent: the world's own grid holds the default class's free cells.
    assert_eq!(
        hugging.validate(
            world.grid(),
            &quadpath::TerrainCosts::unit(),
            Cell::new(0, 4),
            Cell::new(9, 4)
        ),
        Ok(())
    );
    // Not for the tank: checked against its layer, whose grid holds its open positions.
    let layer = world.layer(tank).unwrap();
    let for_tank = hugging.validate(
        layer.grid(),
        layer.costs(),
        Cell::new(0, 4),
        Cell::new(9, 4),
    );
    assert!(
        matches!(
            for_tank,
            Err(quadpath::PathDefect::Blocked { index: 0, .. })
        ),
        "{for_tank:?}"
    );
    let err = world
        .find_path(tank, Cell::new(10, 0), Cell::new(0, 0))
        .unwrap_err();
    assert!(
        matches!(
            err,
            WorldError::Query {
                error: quadpath::QueryError::OutOfBounds { .. },
                ..
            }
        ),
        "{err:?}"
    );
    let other = {
        let mut w = World::new(Grid::new_free(4, 4));
        w.add_class(Movement::default(), Mode::Exact).unwrap();
        w.add_class(Movement::default(), Mode::Exact).unwrap()
    };
    assert!(matches!(
        world.find_path(other, Cell::new(0, 0), Cell::new(1, 1)),
        Err(WorldError::UnknownClass { count: 1, .. })
    ));
    assert!(world.layer(other).is_none() && !world.is_open(other, Cell::new(0, 0)));
    assert!(matches!(
        world.set_blocked(Rect::new(8, 0, 10, 1), true),
        Err(WorldError::Edit(quadpath::EditError::OutOfBounds { .. }))
    ));
    let patch = TerrainPatch::new(2, 2, b"@@@@".to_vec());
    assert!(world.apply_patch(Cell::new(9, 5), &patch).is_err());
    assert!(
        world.grid().free_count() == 50,
        "refused edits change nothing"
    );
}

/// A large edit rebuilds a layer instead of editing it, and the result is the same.
#[test]
fn large_edits_rebuild_layers_to_the_same_result() {
    let mut world = World::new(Grid::new_free(32, 32));
    let tank = world
        .add_class(Movement::default().with_size(3).unwrap(), Mode::Exact)
        .unwrap();
    let report = world.set_terrain(Rect::new(0, 10, 31, 21), b'W').unwrap();
    assert_eq!(report.cells, 32 * 12);
    assert_eq!(report.rebuilt_layers, 1);
    let t = Terrain {
        w: 32,
        h: 32,
        codes: world
            .grid()
            .bounds()
            .cells()
            .map(|c| world.grid().terrain(c).code())
            .collect(),
        obstructed: vec![false; 32 * 32],
    };
    let fresh = HpaMap::new(t.open_grid(b".GS", 3), Mode::Exact).unwrap();
    world.refresh();
    common::assert_same_structure(
        &world.layer(tank).unwrap().snapshot(),
        &fresh.snapshot(),
        "rebuilt",
    );
    assert!(!world
        .connected(tank, Cell::new(0, 0), Cell::new(0, 29))
        .unwrap());
}

/// Queries take `&self`: a world can be shared by the threads of a game.
#[test]
fn worlds_are_shared_across_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<World>();
    let mut world = World::new(Grid::new_free(32, 32));
    let tank = world
        .add_class(Movement::default().with_size(2).unwrap(), Mode::Exact)
        .unwrap();
    let lengths: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let world = &world;
                s.spawn(move || {
                    world
                        .find_path(tank, Cell::new(i, 0), Cell::new(30, 30))
                        .unwrap()
                        .length
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!((lengths[0] - 30.0 * common::footprint::SQRT2).abs() < 1e-9);
    assert!(lengths.windows(2).all(|w| w[0] > w[1]));
}
