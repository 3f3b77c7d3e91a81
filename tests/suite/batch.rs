//! Batch queries (`HpaMap::find_paths`, `World::find_paths`, feature `parallel`) against
//! the sequential calls they stand for.
//!
//! - Every scenario file shipped in `maps/`, both modes, on rayon pools of 1, 2 and 8
//!   threads: the batch gives, query for query and in input order, exactly what
//!   `find_path` gives one call after the other (the same cells, the same length, the same
//!   error). The static files are asked on their maps, with a few failing queries mixed in;
//!   the dynamic file's queries are asked on its map with every patch laid, where some
//!   ends are blocked and some goals cut off.
//! - A world with a 2×2 class: the same, with each query's failure (an end not open, an
//!   end off the map) in its place; an unknown class is refused as a whole.

use crate::common;
use common::{read_movingai, Rng};
use quadpath::io::{self, AnyScenarioFile, DynamicCommand};
use quadpath::{Cell, Endpoint, Grid, HpaMap, Mode, Movement, Path, QueryError, World, WorldError};
use std::path::PathBuf;

/// The pool sizes every comparison runs on: one thread, the machine's two cores, and more
/// threads than cores.
const THREADS: [usize; 3] = [1, 2, 8];

/// Runs `f` on a fresh rayon pool of `n` threads, as a caller picking the thread count does.
fn on_threads<T: Send>(n: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("a small pool starts")
        .install(f)
}

/// Asserts that `map.find_paths(queries)` equals the sequential answers on every pool size.
fn assert_batch_is_sequential(name: &str, map: &HpaMap, queries: &[(Cell, Cell)]) {
    let sequential: Vec<Result<Path, QueryError>> =
        queries.iter().map(|&(s, g)| map.find_path(s, g)).collect();
    for n in THREADS {
        let batch = on_threads(n, || map.find_paths(queries));
        assert_eq!(batch.len(), queries.len(), "{name}, {n} threads");
        for (i, (got, want)) in batch.iter().zip(&sequential).enumerate() {
            let (s, g) = queries[i];
            assert_eq!(got, want, "{name}, {n} threads, query {i}: {s} -> {g}");
        }
    }
}

/// The scenario files shipped in `maps/`, sorted.
fn shipped_scenarios() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("maps");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "scen"))
        .collect();
    files.sort();
    files
}

/// Queries that fail on `grid`, to go between the scenario's: an end off the map, an end on
/// a blocked cell (when there is one), and both at once.
fn failing_queries(grid: &Grid, any_free: Cell) -> Vec<(Cell, Cell)> {
    let (w, h) = (grid.width(), grid.height());
    let mut q = vec![(any_free, Cell::new(w, 0)), (Cell::new(0, h + 7), any_free)];
    let blocked = (0..h)
        .flat_map(|y| (0..w).map(move |x| Cell::new(x, y)))
        .find(|&c| !grid.is_free(c));
    if let Some(b) = blocked {
        q.extend([(b, any_free), (any_free, b), (b, Cell::new(w, h))]);
    }
    q
}

/// The queries of one shipped file and the grid they are asked on: a static file's map,
/// with failing queries spread among its lines, or a dynamic file's map after its last
/// patch.
fn queries_of(scen: &std::path::Path) -> (Grid, Vec<(Cell, Cell)>) {
    match io::read_any_scen(scen).unwrap_or_else(|e| panic!("{e}")) {
        AnyScenarioFile::Static(file) => {
            let map = io::resolve_map_path(scen)
                .unwrap_or_else(|| panic!("no map for {}", scen.display()));
            let grid = read_movingai(&map);
            let lines: Vec<(Cell, Cell)> = file.entries.iter().map(|e| (e.start, e.goal)).collect();
            assert!(!lines.is_empty(), "{}: no query", scen.display());
            let failing = failing_queries(&grid, lines[0].0);
            let every = lines.len().div_ceil(failing.len());
            let mut queries = Vec::new();
            let mut bad = failing.into_iter();
            for (i, q) in lines.into_iter().enumerate() {
                if i % every == every / 2 {
                    queries.extend(bad.next());
                }
                queries.push(q);
            }
            queries.extend(bad);
            (grid, queries)
        }
        AnyScenarioFile::Dynamic(file) => {
            let mut grid = file.initial_grid();
            for c in &file.commands {
                if let DynamicCommand::Patch(p) = c {
                    grid.apply_patch(p.at, &file.patches[p.id]);
                }
            }
            let queries = file.queries().map(|q| (q.start, q.goal)).collect();
            (grid, queries)
        }
        other => panic!("{}: an unexpected kind of file: {other:?}", scen.display()),
    }
}

#[test]
fn every_shipped_scenario_file_batches_as_it_runs_sequentially() {
    let files = shipped_scenarios();
    assert!(files.len() >= 6, "{files:?}");
    for scen in &files {
        let name = scen.file_name().unwrap().to_string_lossy().into_owned();
        let (grid, queries) = queries_of(scen);
        let mut failures = 0;
        for mode in [Mode::Exact, Mode::Fast] {
            let map = HpaMap::new(grid.clone(), mode).unwrap();
            failures += queries
                .iter()
                .filter(|&&(s, g)| map.find_path(s, g).is_err())
                .count();
            assert_batch_is_sequential(&format!("{name} ({mode:?})"), &map, &queries);
        }
        assert!(failures > 0, "{name}: no failing query was compared");
    }
}

/// Failures stay in their place: a batch of good and bad queries gives each bad one its own
/// error, and the good ones around it their paths.
#[test]
fn failing_queries_keep_their_place() {
    // A wall down column 8 with no gap: the two halves are cut apart.
    let grid = Grid::from_fn(16, 12, |x, _| x != 8);
    let map = HpaMap::new(grid, Mode::Fast).unwrap();
    let (a, b, c) = (Cell::new(1, 1), Cell::new(6, 10), Cell::new(12, 3));
    let queries = [
        (a, b),
        (a, Cell::new(8, 4)),
        (b, a),
        (Cell::new(3, 40), a),
        (a, c),
        (c, Cell::new(15, 11)),
    ];
    for n in THREADS {
        let got = on_threads(n, || map.find_paths(&queries));
        assert!(got[0].as_ref().is_ok_and(|p| p.cells[0] == a), "{got:?}");
        assert_eq!(
            got[1],
            Err(QueryError::Blocked {
                endpoint: Endpoint::Goal,
                cell: Cell::new(8, 4)
            })
        );
        assert!(got[2].as_ref().is_ok_and(|p| p.cells[0] == b), "{got:?}");
        assert!(
            matches!(
                got[3],
                Err(QueryError::OutOfBounds {
                    endpoint: Endpoint::Start,
                    ..
                })
            ),
            "{:?}",
            got[3]
        );
        assert_eq!(got[4], Err(QueryError::Unreachable { start: a, goal: c }));
        assert!(got[5].is_ok(), "{:?}", got[5]);
    }
    assert!(map.find_paths(&[]).is_empty());
}

#[test]
fn world_batches_of_a_2x2_class_match_its_sequential_queries() {
    let scen = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("maps/den312d-even-1.scen");
    let grid = read_movingai(&io::resolve_map_path(&scen).unwrap());
    let mut world = World::new(grid);
    let infantry = world.add_class(Movement::default(), Mode::Exact).unwrap();
    let tank = world
        .add_class(Movement::default().with_size(2).unwrap(), Mode::Exact)
        .unwrap();
    let fast_tank = world
        .add_class(Movement::default().with_size(2).unwrap(), Mode::Fast)
        .unwrap();
    let (w, h) = (world.grid().width(), world.grid().height());
    let open: Vec<Cell> = (0..h)
        .flat_map(|y| (0..w).map(move |x| Cell::new(x, y)))
        .filter(|&c| world.is_open(tank, c))
        .collect();
    // Free for infantry, but a 2×2 footprint from there covers a wall.
    let not_open = (0..h)
        .flat_map(|y| (0..w).map(move |x| Cell::new(x, y)))
        .find(|&c| world.is_open(infantry, c) && !world.is_open(tank, c))
        .expect("den312d has narrow places");
    let mut rng = Rng(0x5EED_BA7C);
    let mut pick = || open[rng.below(open.len() as u64) as usize];
    let mut queries: Vec<(Cell, Cell)> = (0..150).map(|_| (pick(), pick())).collect();
    queries[40].1 = not_open;
    queries[90].0 = Cell::new(w + 3, 1);
    for class in [tank, fast_tank] {
        let sequential: Vec<Result<Path, WorldError>> = queries
            .iter()
            .map(|&(s, g)| world.find_path(class, s, g))
            .collect();
        assert!(sequential.iter().filter(|r| r.is_ok()).count() > 100);
        for n in THREADS {
            let batch = on_threads(n, || world.find_paths(class, &queries)).unwrap();
            assert_eq!(batch, sequential, "{class}, {n} threads");
            assert!(
                matches!(
                    &batch[40],
                    Err(WorldError::NotOpen { endpoint: Endpoint::Goal, cell, .. }) if *cell == not_open
                ),
                "{:?}",
                batch[40]
            );
            assert!(
                matches!(
                    &batch[90],
                    Err(WorldError::Query {
                        error: QueryError::OutOfBounds {
                            endpoint: Endpoint::Start,
                            ..
                        },
                        ..
                    })
                ),
                "{:?}",
                batch[90]
            );
            for (i, r) in batch.iter().enumerate() {
                if let Ok(p) = r {
                    let (s, g) = queries[i];
                    let layer = world.layer(class).unwrap();
                    p.validate(layer.grid(), layer.costs(), s, g).unwrap();
                }
            }
        }
    }
}

#[test]
fn an_unknown_class_is_refused_before_any_query() {
    let mut world = World::new(Grid::new_free(8, 8));
    world.add_class(Movement::default(), Mode::Exact).unwrap();
    let other = {
        let mut w = World::new(Grid::new_free(4, 4));
        w.add_class(Movement::default(), Mode::Exact).unwrap();
        w.add_class(Movement::default(), Mode::Exact).unwrap()
    };
    let queries = [(Cell::new(0, 0), Cell::new(7, 7))];
    assert!(matches!(
        world.find_paths(other, &queries),
        Err(WorldError::UnknownClass { count: 1, .. })
    ));
}
