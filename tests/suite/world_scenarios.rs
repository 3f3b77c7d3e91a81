//! Movement classes on benchmark maps: 2×2 and 3×3 agents, exact layers, against
//! `pathfinding::astar` on the brute-force open positions (`common::footprint`).
//!
//! Scenario files give optimal lengths for 1×1 agents, so they supply the queries and a
//! lower bound: a larger agent's path between the same cells is a legal 1×1 path too (its
//! top-left cells are free and its diagonal steps cut no corner), so it is never shorter
//! than the file's length. Queries whose ends are not open for the class are left out,
//! and each file must keep at least 5 of them for the test to mean something.

use crate::common;
use common::class_check::{check, LAND};
use common::footprint::read_terrain;
use std::path::{Path, PathBuf};

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
