//! Bad input to the HPA* layer gives typed errors, never a panic, and leaves the map as it
//! was.

use crate::common;
use common::*;
use quadpath::quadtree::{QuadTree, QuadtreeError, SplitStopper, MAX_SIDE};
use quadpath::Endpoint;
use quadpath::{BuildError, Cell, EditError, Grid, HpaMap, Mode, QueryError, Rect};

const MODES: [Mode; 2] = [Mode::Exact, Mode::Fast];

/// 20×10, a wall down column 10 with no gap: two rooms.
fn two_rooms() -> Grid {
    Grid::from_fn(20, 10, |x, _| x != 10)
}

#[test]
fn endpoints_out_of_bounds() {
    for mode in MODES {
        let map = HpaMap::new(Grid::new_free(8, 5), mode).unwrap();
        let inside = Cell::new(1, 1);
        for bad in [
            Cell::new(8, 0),
            Cell::new(0, 5),
            Cell::new(8, 5),
            Cell::new(u32::MAX, u32::MAX),
        ] {
            match map.find_path(bad, inside) {
                Err(QueryError::OutOfBounds {
                    endpoint: Endpoint::Start,
                    cell,
                    width: 8,
                    height: 5,
                }) => assert_eq!(cell, bad),
                r => panic!("{mode:?}: start {bad}: {r:?}"),
            }
            match map.find_path(inside, bad) {
                Err(QueryError::OutOfBounds {
                    endpoint: Endpoint::Goal,
                    cell,
                    width: 8,
                    height: 5,
                }) => assert_eq!(cell, bad),
                r => panic!("{mode:?}: goal {bad}: {r:?}"),
            }
            assert!(matches!(
                map.connected(bad, inside),
                Err(QueryError::OutOfBounds { .. })
            ));
            assert!(matches!(
                map.connected(inside, bad),
                Err(QueryError::OutOfBounds { .. })
            ));
        }
        // The error messages name the cell and the map size.
        let msg = map
            .find_path(Cell::new(8, 0), inside)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("8,0") && msg.contains("8x5"), "{msg}");
    }
}

#[test]
fn endpoints_on_blocked_cells() {
    for mode in MODES {
        let grid = two_rooms();
        let mut map = HpaMap::new(grid, mode).unwrap();
        let (wall, free) = (Cell::new(10, 3), Cell::new(2, 2));
        assert_eq!(
            map.find_path(wall, free),
            Err(QueryError::Blocked {
                endpoint: Endpoint::Start,
                cell: wall
            })
        );
        assert_eq!(
            map.find_path(free, wall),
            Err(QueryError::Blocked {
                endpoint: Endpoint::Goal,
                cell: wall
            })
        );
        // Both bad: the start is reported first.
        assert_eq!(
            map.find_path(wall, wall),
            Err(QueryError::Blocked {
                endpoint: Endpoint::Start,
                cell: wall
            })
        );
        assert!(matches!(
            map.connected(wall, free),
            Err(QueryError::Blocked { .. })
        ));
        let msg = map.find_path(free, wall).unwrap_err().to_string();
        assert!(msg.contains("goal") && msg.contains("10,3"), "{msg}");
        // A cell blocked by an edit counts too, and freeing it again makes it usable.
        map.set_blocked(Cell::new(2, 2), true).unwrap();
        assert_eq!(
            map.find_path(free, Cell::new(5, 5)),
            Err(QueryError::Blocked {
                endpoint: Endpoint::Start,
                cell: free
            })
        );
        map.set_blocked(Cell::new(2, 2), false).unwrap();
        assert!(map.find_path(free, Cell::new(5, 5)).is_ok());
    }
}

#[test]
fn unreachable_between_two_rooms() {
    for mode in MODES {
        let grid = two_rooms();
        let mut map = HpaMap::new(grid.clone(), mode).unwrap();
        let (a, b) = (Cell::new(1, 1), Cell::new(18, 8));
        assert_eq!(
            map.find_path(a, b),
            Err(QueryError::Unreachable { start: a, goal: b })
        );
        assert_eq!(
            map.find_path(b, a),
            Err(QueryError::Unreachable { start: b, goal: a })
        );
        assert_eq!(map.connected(a, b), Ok(false));
        assert_eq!(map.connected(a, Cell::new(9, 9)), Ok(true));
        // Open a door: now connected, with the oracle's length.
        map.set_blocked(Cell::new(10, 9), false).unwrap();
        assert_eq!(map.connected(a, b), Ok(true));
        let p = map.find_path(a, b).unwrap();
        let mut open = grid.clone();
        open.set_blocked(Cell::new(10, 9), false);
        assert_valid(&open, a, b, &p);
        let best = distances(&open, a)[(b.y * 20 + b.x) as usize].unwrap();
        assert!(p.length >= best - 1e-9);
        if mode == Mode::Exact {
            assert!((p.length - best).abs() < 1e-6);
        }
        // Close it again: unreachable again.
        map.set_blocked(Cell::new(10, 9), true).unwrap();
        assert_eq!(
            map.find_path(a, b),
            Err(QueryError::Unreachable { start: a, goal: b })
        );
        assert_eq!(map.connected(a, b), Ok(false));
        map.check_consistency().unwrap();
    }
}

/// A diagonal gap is not a door: no corner cutting means the rooms stay apart.
#[test]
fn diagonal_gap_is_unreachable() {
    // ..@
    // .@.   the two free cells (0..1, 0..1) and (2,1)/(2,2) touch only diagonally.
    // @..
    let grid = Grid::from_fn(3, 3, |x, y| !matches!((x, y), (2, 0) | (1, 1) | (0, 2)));
    for mode in MODES {
        let map = HpaMap::new(grid.clone(), mode).unwrap();
        let (a, b) = (Cell::new(0, 0), Cell::new(2, 2));
        assert_eq!(
            map.find_path(a, b),
            Err(QueryError::Unreachable { start: a, goal: b })
        );
        assert_eq!(map.connected(a, b), Ok(false));
    }
}

#[test]
fn edits_out_of_bounds() {
    for mode in MODES {
        let grid = two_rooms();
        let mut map = HpaMap::new(grid.clone(), mode).unwrap();
        let before = map.snapshot();
        for (x, y) in [(20, 0), (0, 10), (u32::MAX, 3)] {
            for blocked in [true, false] {
                match map.set_blocked(Cell::new(x, y), blocked) {
                    Err(EditError::OutOfBounds {
                        rect,
                        width: 20,
                        height: 10,
                    }) => {
                        assert_eq!(rect, Rect::new(x, y, x, y))
                    }
                    r => panic!("{mode:?}: set_blocked({x},{y}): {r:?}"),
                }
            }
        }
        // Rectangles partly or wholly outside: an error, and no cell changes, even those
        // inside the map.
        for r in [
            Rect::new(18, 2, 21, 4),
            Rect::new(2, 8, 4, 10),
            Rect::new(19, 9, 20, 10),
            Rect::new(25, 25, 30, 30),
        ] {
            for blocked in [true, false] {
                assert!(
                    matches!(
                        map.set_blocked(r, blocked),
                        Err(EditError::OutOfBounds { .. })
                    ),
                    "{mode:?}: {r:?} blocked={blocked}"
                );
                assert_eq!(map.grid(), &grid, "{r:?}: the grid changed");
            }
        }
        assert!(!map.needs_refresh(), "rejected edits marked clusters stale");
        assert_same_structure(&map.snapshot(), &before, "after rejected edits");
        map.check_consistency().unwrap();
        // The map still works.
        assert!(map.find_path(Cell::new(0, 0), Cell::new(9, 9)).is_ok());
    }
}

#[test]
fn edits_report_what_changed() {
    for mode in MODES {
        let mut map = HpaMap::new(two_rooms(), mode).unwrap();
        assert_eq!(
            map.set_blocked(Cell::new(10, 0), true),
            Ok(0),
            "already blocked"
        );
        assert_eq!(
            map.set_blocked(Cell::new(3, 3), false),
            Ok(0),
            "already free"
        );
        assert_eq!(map.set_blocked(Cell::new(3, 3), true), Ok(1));
        // A building over the wall: only its free cells change.
        assert_eq!(map.set_blocked(Rect::new(9, 0, 11, 1), true), Ok(4));
        assert_eq!(map.set_blocked(Rect::new(9, 0, 11, 1), true), Ok(0));
        assert_eq!(map.set_blocked(Rect::new(9, 0, 11, 1), false), Ok(6));
        map.check_consistency().unwrap();
    }
}

#[test]
fn one_by_one_map() {
    for mode in MODES {
        let mut map = HpaMap::new(Grid::new_free(1, 1), mode).unwrap();
        let c = Cell::new(0, 0);
        let p = map.find_path(c, c).unwrap();
        assert_eq!(p.cells, vec![c]);
        assert_eq!(p.length, 0.0);
        assert_eq!(map.connected(c, c), Ok(true));
        assert!(matches!(
            map.find_path(c, Cell::new(1, 0)),
            Err(QueryError::OutOfBounds { .. })
        ));
        assert_eq!(map.set_blocked(Cell::new(0, 0), true), Ok(1));
        map.check_consistency().unwrap();
        assert_eq!(map.component_count(), 0);
        assert_eq!(
            map.find_path(c, c),
            Err(QueryError::Blocked {
                endpoint: Endpoint::Start,
                cell: c
            })
        );
        assert_eq!(map.set_blocked(Cell::new(0, 0), false), Ok(1));
        assert_eq!(map.find_path(c, c).unwrap().cells, vec![c]);
        map.check_consistency().unwrap();
        // A 1×1 wall.
        let wall = HpaMap::new(Grid::from_fn(1, 1, |_, _| false), mode).unwrap();
        assert!(matches!(
            wall.find_path(c, c),
            Err(QueryError::Blocked { .. })
        ));
        wall.check_consistency().unwrap();
    }
}

#[test]
fn start_equals_goal() {
    let grid = Grid::from_fn(30, 20, |x, y| (x * 7 + y * 3) % 5 != 0);
    for mode in MODES {
        let map = HpaMap::new(grid.clone(), mode).unwrap();
        for c in grid.free_cells() {
            let p = map.find_path(c, c).unwrap();
            assert_eq!(p.cells, vec![c], "{mode:?} {c}");
            assert_eq!(p.length, 0.0);
            assert_eq!(p.steps(), 0);
        }
    }
}

/// Sides above the quadtree's 29-bit limit (`quadtree::MAX_SIDE`) cannot be indexed. A
/// `Grid` that large would need gigabytes (and `Grid::new_free` panics on an empty side), so
/// the limit is tested where it is enforced, in `QuadTree::new`/`QuadTree::build`, which
/// `HpaMap::new` calls first: its error reaches the caller as `BuildError::MapTooLarge`.
#[test]
fn too_large_for_the_quadtree() {
    for (w, h) in [
        (MAX_SIDE + 1, 1),
        (1, MAX_SIDE + 1),
        (u32::MAX, u32::MAX),
        (0, 5),
        (5, 0),
    ] {
        match QuadTree::<()>::new(w, h, SplitStopper::uniform()) {
            Err(QuadtreeError::BadSize { width, height }) => assert_eq!((width, height), (w, h)),
            Err(e) => panic!("{w}x{h}: {e}"),
            Ok(_) => panic!("{w}x{h}: accepted"),
        }
    }
    assert!(QuadTree::<()>::new(MAX_SIDE, 1, SplitStopper::uniform()).is_ok());
    let e = BuildError::MapTooLarge {
        width: MAX_SIDE + 1,
        height: 1,
        max: MAX_SIDE,
    };
    assert!(e.to_string().contains(&MAX_SIDE.to_string()), "{e}");
}

/// Long thin maps build, answer and can be cut in two.
#[test]
fn thin_maps() {
    for (w, h) in [(1, 300), (300, 1), (2, 257)] {
        for mode in MODES {
            let grid = Grid::new_free(w, h);
            let mut map = HpaMap::new(grid.clone(), mode).unwrap();
            let (a, b) = (Cell::new(0, 0), Cell::new(w - 1, h - 1));
            let p = map.find_path(a, b).unwrap();
            assert_valid(&grid, a, b, &p);
            let best = distances(&grid, a)[(b.y * w + b.x) as usize].unwrap();
            assert!((p.length - best).abs() < 1e-6, "{w}x{h} {mode:?}");
            // Cut it in the middle.
            let (mx, my) = (w / 2, h / 2);
            map.set_blocked(
                Rect::new(
                    if w > 2 { mx } else { 0 },
                    if h > 2 { my } else { 0 },
                    if w > 2 { mx } else { w - 1 },
                    if h > 2 { my } else { h - 1 },
                ),
                true,
            )
            .unwrap();
            assert_eq!(
                map.find_path(a, b),
                Err(QueryError::Unreachable { start: a, goal: b })
            );
            assert_eq!(map.connected(a, b), Ok(false));
            map.check_consistency().unwrap();
        }
    }
}

#[test]
fn connected_follows_edits() {
    for mode in MODES {
        let mut map = HpaMap::new(Grid::new_free(16, 16), mode).unwrap();
        let (a, b) = (Cell::new(0, 0), Cell::new(15, 15));
        assert_eq!(map.connected(a, b), Ok(true));
        assert_eq!(map.component_count(), 1);
        // A ring of buildings around b.
        map.set_blocked(Rect::new(12, 12, 15, 12), true).unwrap();
        map.set_blocked(Rect::new(12, 13, 12, 15), true).unwrap();
        assert_eq!(map.connected(a, b), Ok(false));
        assert_eq!(map.component_count(), 2);
        assert!(matches!(
            map.find_path(a, b),
            Err(QueryError::Unreachable { .. })
        ));
        // Knock one out.
        map.set_blocked(Cell::new(12, 14), false).unwrap();
        assert_eq!(map.connected(a, b), Ok(true));
        assert_eq!(map.component_count(), 1);
        map.check_consistency().unwrap();
    }
}

/// A NaN length or cost is no length or cost at all: both validators refuse it, as they
/// refuse ±∞ and figures that are merely wrong (issue 26, §4).
#[test]
fn validators_refuse_nan_claims() {
    use quadpath::{PathDefect, TerrainCosts};
    let grid = Grid::new_free(4, 1);
    let costs: TerrainCosts = "G=0.5".parse().unwrap();
    let (a, b) = (Cell::new(0, 0), Cell::new(3, 0));
    let good = quadpath::Path::from_cells((0..4).map(|x| Cell::new(x, 0)).collect());
    assert_eq!(good.validate(&grid, &TerrainCosts::unit(), a, b), Ok(()));
    assert_eq!(good.validate(&grid, &costs, a, b), Ok(()));
    for bad in [f64::NAN, -f64::NAN, f64::INFINITY, 1e9] {
        let mut p = good.clone();
        p.length = bad;
        assert!(
            matches!(
                p.validate(&grid, &TerrainCosts::unit(), a, b),
                Err(PathDefect::WrongLength { .. })
            ),
            "length {bad}"
        );
        let mut p = good.clone();
        p.cost = bad;
        assert!(
            matches!(
                p.validate(&grid, &costs, a, b),
                Err(PathDefect::WrongCost { .. })
            ),
            "cost {bad}"
        );
    }
}

/// A path without cells answers every method (issue 26, §4: `steps()` was 2⁶⁴ − 1 and
/// `start()` panicked).
#[test]
fn an_empty_path_answers_every_method() {
    let empty = quadpath::Path::from_cells(vec![]);
    assert_eq!(empty.steps(), 0);
    assert_eq!(empty.start(), None);
    assert_eq!(empty.goal(), None);
    assert_eq!((empty.length, empty.cost), (0.0, 0.0));
    let grid = Grid::new_free(2, 2);
    assert_eq!(
        empty.validate(
            &grid,
            &quadpath::TerrainCosts::unit(),
            Cell::new(0, 0),
            Cell::new(0, 0)
        ),
        Err(quadpath::PathDefect::Empty)
    );
}

/// A rectangle always holds a cell: a zero side, or a far corner past `u32::MAX`, is a
/// typed error at construction (issue 26, §4: it became four billion cells wide).
#[test]
fn empty_or_overflowing_rectangles_are_refused() {
    use quadpath::RectError;
    for (w, h) in [(0, 0), (0, 3), (3, 0)] {
        assert_eq!(
            Rect::from_size(5, 6, w, h),
            Err(RectError::Empty { x: 5, y: 6, w, h })
        );
    }
    assert!(matches!(
        Rect::from_size(u32::MAX - 1, 0, 3, 1),
        Err(RectError::TooLarge { .. })
    ));
    assert!(matches!(
        Rect::from_size(0, u32::MAX, 1, 2),
        Err(RectError::TooLarge { .. })
    ));
    let r = Rect::from_size(u32::MAX, u32::MAX, 1, 1).unwrap();
    assert_eq!((r.width(), r.height(), r.area()), (1, 1, 1));
    assert_eq!(Rect::from_size(2, 3, 4, 5), Ok(Rect::new(2, 3, 5, 7)));
}
