//! Oracles for movement classes, written from the model's words and nothing else: which
//! positions a `k × k` agent may stand on, which steps are legal, clearance by trying every
//! square, and `pathfinding::astar` over those rules.

use pathfinding::prelude::astar;
use quadpath::{Cell, Grid};

pub const SQRT2: f64 = std::f64::consts::SQRT_2;

/// The test's own terrain: codes and obstructions, row-major.
#[derive(Clone, Debug)]
pub struct Terrain {
    pub w: u32,
    pub h: u32,
    pub codes: Vec<u8>,
    pub obstructed: Vec<bool>,
}

impl Terrain {
    pub fn passable(&self, set: &[u8], x: i64, y: i64) -> bool {
        if x < 0 || y < 0 || x >= self.w as i64 || y >= self.h as i64 {
            return false;
        }
        let i = (y * self.w as i64 + x) as usize;
        set.contains(&self.codes[i]) && !self.obstructed[i]
    }

    /// Whether a `k × k` agent may stand at `(x, y)`: every cell of its square passable.
    pub fn open(&self, set: &[u8], k: u32, x: i64, y: i64) -> bool {
        let k = k as i64;
        (y..y + k).all(|cy| (x..x + k).all(|cx| self.passable(set, cx, cy)))
    }

    /// Whether the step `(x, y) → (x + dx, y + dy)` is legal for a `k × k` agent.
    pub fn legal(&self, set: &[u8], k: u32, x: i64, y: i64, dx: i64, dy: i64) -> bool {
        self.open(set, k, x + dx, y + dy)
            && (dx == 0
                || dy == 0
                || (self.open(set, k, x + dx, y) && self.open(set, k, x, y + dy)))
    }

    /// The largest square of passable cells from `(x, y)`, up to `cap`.
    pub fn clearance(&self, set: &[u8], cap: u32, x: u32, y: u32) -> u32 {
        (1..=cap)
            .take_while(|&k| self.open(set, k, x as i64, y as i64))
            .last()
            .unwrap_or(0)
    }

    pub fn open_grid(&self, set: &[u8], k: u32) -> Grid {
        Grid::from_fn(self.w, self.h, |x, y| self.open(set, k, x as i64, y as i64))
    }
}

/// Shortest length for a `k × k` agent by `pathfinding::astar` over the test's own rules,
/// in units of 1e-9 (integer costs keep A* exact).
pub fn astar_length(t: &Terrain, set: &[u8], k: u32, s: Cell, g: Cell) -> Option<f64> {
    const STRAIGHT: u64 = 1_000_000_000;
    let diagonal = (SQRT2 * 1e9).round() as u64;
    let octile = |a: (i64, i64)| {
        let (dx, dy) = (
            (a.0 - g.x as i64).unsigned_abs(),
            (a.1 - g.y as i64).unsigned_abs(),
        );
        let (lo, hi) = (dx.min(dy), dx.max(dy));
        (hi - lo) * STRAIGHT + lo * diagonal
    };
    let succ = |&(x, y): &(i64, i64)| {
        let mut out = Vec::new();
        for dy in -1..=1 {
            for dx in -1..=1 {
                if (dx, dy) != (0, 0) && t.legal(set, k, x, y, dx, dy) {
                    let cost = if dx != 0 && dy != 0 {
                        diagonal
                    } else {
                        STRAIGHT
                    };
                    out.push(((x + dx, y + dy), cost));
                }
            }
        }
        out
    };
    astar(
        &(s.x as i64, s.y as i64),
        succ,
        |&p| octile(p),
        |&(x, y)| (x, y) == (g.x as i64, g.y as i64),
    )
    .map(|(_, cost)| cost as f64 / 1e9)
}

/// Panics unless `cells` is a legal route for a `k × k` agent from `s` to `g` whose steps
/// sum to `length`.
pub fn assert_legal(
    t: &Terrain,
    set: &[u8],
    k: u32,
    s: Cell,
    g: Cell,
    cells: &[Cell],
    length: f64,
) {
    assert_eq!((cells.first(), cells.last()), (Some(&s), Some(&g)));
    assert!(t.open(set, k, s.x as i64, s.y as i64));
    let mut sum = 0.0;
    for w in cells.windows(2) {
        let (dx, dy) = (w[1].x as i64 - w[0].x as i64, w[1].y as i64 - w[0].y as i64);
        assert!(
            dx.abs() <= 1 && dy.abs() <= 1 && (dx, dy) != (0, 0),
            "{} -> {}",
            w[0],
            w[1]
        );
        assert!(
            t.legal(set, k, w[0].x as i64, w[0].y as i64, dx, dy),
            "{} -> {} is illegal for a {k}x{k} agent",
            w[0],
            w[1]
        );
        sum += if dx != 0 && dy != 0 { SQRT2 } else { 1.0 };
    }
    assert!(
        (sum - length).abs() < 1e-6,
        "steps sum to {sum}, claimed {length}"
    );
}

/// Reads a Moving AI map's terrain codes with the tests' own parser.
pub fn read_terrain(path: &std::path::Path) -> Terrain {
    let (w, h, codes) = super::read_movingai_codes(path);
    Terrain {
        w,
        h,
        obstructed: vec![false; codes.len()],
        codes,
    }
}
