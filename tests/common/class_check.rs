//! Movement classes against `footprint`'s A* on the brute-force open positions, over a
//! scenario file's queries: shared by the world scenario tests and the corpus tests.

use super::footprint::{assert_legal, astar_length, read_terrain, Terrain};
use quadpath::{Cell, Grid, Mode, Movement, TerrainSet, World};
use std::path::Path;

/// The passable codes.
pub const LAND: &[u8] = b".GS";

/// Runs up to `sample` queries of `scen` (spread over the file) for each of `sizes` on `map`.
pub fn check(map: &Path, scen: &Path, sample: usize, sizes: &[u32]) {
    let t: Terrain = read_terrain(map);
    let lines = super::read_scen(scen);
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
