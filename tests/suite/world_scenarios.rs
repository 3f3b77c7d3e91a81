//! Movement classes on benchmark maps: 2×2 and 3×3 agents, exact layers, against
//! `pathfinding::astar` on the brute-force open positions (`common::footprint`).
//!
//! Scenario files give optimal lengths for 1×1 agents, so they supply the queries and a
//! lower bound: a larger agent's path between the same cells is a legal 1×1 path too (its
//! top-left cells are free and its diagonal steps cut no corner), so it is never shorter
//! than the file's length. Queries whose ends are not open for the class are left out,
//! and each file must keep at least 5 of them for the test to mean something.

use crate::common;
use common::footprint::{assert_legal, astar_length, read_terrain, Terrain};
use quadpath::{Cell, Grid, Mode, Movement, TerrainSet, World};
use std::path::{Path, PathBuf};

const LAND: &[u8] = b".GS";

/// Runs up to `sample` queries of `scen` (spread over the file) for each of `sizes` on `map`.
fn check(map: &Path, scen: &Path, sample: usize, sizes: &[u32]) {
    let t: Terrain = read_terrain(map);
    let lines = common::read_scen(scen);
    let grid = Grid::from_terrain(t.w, t.h, t.codes.clone(), TerrainSet::moving_ai());
    let mut world = World::new(grid);
    for &size in sizes {
        let class = world
            .add_class(Movement::default().with_size(size).unwrap(), Mode::Exact)
            .unwrap();
        let open = |c: Cell| t.open(LAND, size, c.x as i64, c.y as i64);
        let usable: Vec<_> = lines
            .iter()
            .filter(|l| open(l.start) && open(l.goal))
            .collect();
        let name = format!("{} size {size}", scen.display());
        assert!(
            usable.len() >= 5,
            "{name}: only {} of {} queries are open for the class",
            usable.len(),
            lines.len()
        );
        let step = usable.len().div_ceil(sample).max(1);
        let mut checked = 0;
        for line in usable.iter().step_by(step) {
            let (s, g) = (line.start, line.goal);
            for c in [s, g] {
                assert!(world.is_open(class, c), "{name}: {c} should be open");
            }
            let best = astar_length(&t, LAND, size, s, g);
            match (world.find_path(class, s, g), best) {
                (Ok(p), Some(best)) => {
                    assert_legal(&t, LAND, size, s, g, &p.cells, p.length);
                    assert!(
                        (p.length - best).abs() < 1e-6,
                        "{name}: {s}->{g}: {} but A* finds {best}",
                        p.length
                    );
                    assert!(
                        p.length >= line.optimal - line.tol,
                        "{name}: {s}->{g}: {} is below the 1x1 optimum {}",
                        p.length,
                        line.optimal
                    );
                }
                (Err(e), None) if e.is_unreachable() => {}
                (got, want) => panic!("{name}: {s}->{g}: {got:?} but A* says {want:?}"),
            }
            checked += 1;
        }
        assert!(
            checked >= sample.min(usable.len()) / 2,
            "{name}: {checked} checked"
        );
    }
}

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("maps")
        .join(name)
}

#[test]
fn shipped_maps_sizes_2_and_3() {
    for (map, scen) in [
        ("arena.map", "arena.map.scen"),
        ("den312d.map", "den312d-even-1.scen"),
        ("random-32-32-20.map", "random-32-32-20-random-1.scen"),
        ("room-100-10.map", "room-100-10.map.scen"),
    ] {
        check(&shipped(map), &shipped(scen), 120, &[2, 3]);
    }
    // Corridors two cells wide: a 3×3 agent has nowhere to stand.
    let maze = shipped("maze-32-32-2.map");
    check(&maze, &shipped("maze-32-32-2-even-1.scen"), 120, &[2]);
    let t = read_terrain(&maze);
    assert!((0..t.h).all(|y| (0..t.w).all(|x| !t.open(LAND, 3, x as i64, y as i64))));
}

/// Two StarCraft maps of the benchmark corpus.
#[test]
#[ignore = "reads the benchmark corpus: cargo test --test suite benchmark_maps -- --ignored"]
fn benchmark_maps_starcraft_sizes_2_and_3() {
    let dir = common::benchmark_maps("sc1");
    for name in ["Aftershock", "BlackLotus"] {
        let map = dir.join(format!("{name}.map"));
        check(&map, &dir.join(format!("{name}.map.scen")), 25, &[2, 3]);
    }
}
