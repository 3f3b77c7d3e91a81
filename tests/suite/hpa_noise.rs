//! Fast mode on random noise: clusters whose route tables would not pay (fields of one-cell
//! leaves with dozens of entrances) keep none and are crossed over their gates. On such
//! maps fast mode must stay valid, never beat the Dijkstra oracle, survive edits equal to
//! a fresh build, and not weigh more than exact mode (it weighed three times as much).

use crate::common;
use common::{assert_same_structure, assert_valid, distances, Rng};
use quadpath::{Cell, Config, Grid, HpaMap, Mode, Rect};

/// Fast mode with clusters: on a map of one cost the preset searches the subgoal graph.
fn clustered() -> Config {
    Config::fast().with_subgoals(false)
}

/// A `side²` map with each cell blocked with probability `density`, from a fixed seed.
fn noise(side: u32, density: f64, seed: u64) -> Grid {
    let mut rng = Rng(seed | 1);
    let threshold = (density * 1e6) as u64;
    let blocked: Vec<bool> = (0..side * side)
        .map(|_| rng.below(1_000_000) < threshold)
        .collect();
    Grid::from_fn(side, side, |x, y| !blocked[(y * side + x) as usize])
}

#[test]
fn noise_costs_fast_mode_no_more_than_exact_mode() {
    let grid = noise(256, 0.17, 7);
    // The clusters sit on exact mode's gate graph: with them the layer must not weigh more
    // than the same gate graph without them (it weighed three times as much). Exact mode's
    // default on a map of one cost is the subgoal layer, which is lighter than either since
    // session 30, and which the fast preset builds too: the two presets weigh the same.
    let exact = HpaMap::new(grid.clone(), Config::exact().with_subgoals(false)).unwrap();
    let fast = HpaMap::new(grid.clone(), clustered()).unwrap();
    assert!(fast.cluster_count() > 0);
    let (e, f) = (exact.memory_breakdown(), fast.memory_breakdown());
    assert!(
        f.total() <= e.total(),
        "fast {f:?} weighs more than exact {e:?}"
    );
    let default_exact = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
    let default_fast = HpaMap::new(grid, Mode::Fast).unwrap();
    assert_eq!(
        default_fast.memory_breakdown().total(),
        default_exact.memory_breakdown().total()
    );
    // The tables that did not pay are gone: what is left of the cluster layer is its
    // lists and side tables, less than the gates themselves.
    assert!(f.clusters < f.gates, "{f:?}");
}

#[test]
fn plain_clusters_give_valid_paths_through_edits() {
    let mut grid = noise(256, 0.17, 11);
    let mut map = HpaMap::new(grid.clone(), clustered()).unwrap();
    let parts = map.memory_breakdown();
    assert!(parts.clusters < parts.gates, "no plain cluster: {parts:?}");
    let mut rng = Rng(5);
    let check = |map: &HpaMap, grid: &Grid, rng: &mut Rng, context: &str| {
        let free: Vec<Cell> = grid.free_cells().collect();
        for _ in 0..6 {
            let s = free[rng.below(free.len() as u64) as usize];
            let g = free[rng.below(free.len() as u64) as usize];
            let want = distances(grid, s)[(g.y * grid.width() + g.x) as usize];
            match (map.find_path(s, g), want) {
                (Ok(p), Some(best)) => {
                    assert_valid(grid, s, g, &p);
                    assert!(p.length >= best - 1e-9, "{context}: {s}->{g} below optimal");
                    assert!(
                        p.length <= best * 1.25 + 2.0,
                        "{context}: {s}->{g} {} vs {best}",
                        p.length
                    );
                }
                (Err(quadpath::QueryError::Unreachable { .. }), None) => {}
                (got, want) => panic!("{context}: {s}->{g}: {got:?} but the oracle says {want:?}"),
            }
        }
    };
    check(&map, &grid, &mut rng, "built");
    for step in 0..6u32 {
        // Buildings and clearings: a clearing turns noise into open ground, where a
        // cluster may come to keep tables again.
        let (x, y) = (rng.below(236) as u32, rng.below(236) as u32);
        let r = Rect::new(x, y, x + 3 + step * 2, y + 3 + step * 2);
        let blocked = step % 2 == 0;
        map.set_blocked(r, blocked).unwrap();
        grid.set_blocked(r, blocked);
        let context = format!("step {step}: {r} blocked={blocked}");
        check(&map, &grid, &mut rng, &context);
        map.refresh();
        map.check_consistency().unwrap();
        let fresh = HpaMap::new(grid.clone(), clustered()).unwrap();
        assert_same_structure(&map.snapshot(), &fresh.snapshot(), &context);
        check(&map, &grid, &mut rng, &context);
    }
}
