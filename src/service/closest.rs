//! The reachable position closest to a goal: rings of growing Chebyshev radius around the
//! goal's rectangle, scanned a ring at a time so that a long scan spreads over ticks.

use crate::geom::{Cell, Rect};
use crate::grid::movement::octile;
use crate::hpa::HpaMap;
use std::cmp::Ordering;

/// The gaps between `c` and the rectangle `r` along each axis (0 inside its span).
fn gaps(r: Rect, c: Cell) -> (u32, u32) {
    let gap = |v: u32, lo: u32, hi: u32| lo.saturating_sub(v).max(v.saturating_sub(hi));
    (gap(c.x, r.x1, r.x2), gap(c.y, r.y1, r.y2))
}

/// The octile distance from `c` to the nearest cell of `r`.
pub(super) fn distance_to(r: Rect, c: Cell) -> f64 {
    let (dx, dy) = gaps(r, c);
    octile(Cell::new(0, 0), Cell::new(dx, dy))
}

/// The octile distance between the nearest cells of two rectangles.
pub(super) fn distance_between(a: Rect, b: Rect) -> f64 {
    let gap = |a1: u32, a2: u32, b1: u32, b2: u32| b1.saturating_sub(a2).max(a1.saturating_sub(b2));
    let (dx, dy) = (gap(a.x1, a.x2, b.x1, b.x2), gap(a.y1, a.y2, b.y1, b.y2));
    octile(Cell::new(0, 0), Cell::new(dx, dy))
}

/// A candidate's rank: distance to the goal, then octile distance from the start (ties by
/// path length are approximated by this lower bound of it), then row, then column.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rank {
    to_goal: f64,
    from_start: f64,
    cell: Cell,
}

impl Rank {
    fn cmp(&self, o: &Rank) -> Ordering {
        self.to_goal
            .total_cmp(&o.to_goal)
            .then(self.from_start.total_cmp(&o.from_start))
            .then((self.cell.y, self.cell.x).cmp(&(o.cell.y, o.cell.x)))
    }
}

/// A paused or finished scan for the open position reachable from `start` that is closest
/// to `goal`.
#[derive(Clone, Debug)]
pub(super) struct ClosestScan {
    goal: Rect,
    start: Cell,
    /// The next ring to scan.
    radius: u32,
    best: Option<Rank>,
}

impl ClosestScan {
    pub(super) fn new(goal: Rect, start: Cell) -> Self {
        ClosestScan {
            goal,
            start,
            radius: 0,
            best: None,
        }
    }

    /// Scans whole rings until `allowance` cells are spent (always at least one ring, so
    /// a step is one ring). Returns the cells scanned and, once the scan is over, the
    /// answer: `Some(None)` only when nothing at all is reachable (a start not open).
    pub(super) fn step(&mut self, map: &HpaMap, allowance: usize) -> (usize, Option<Option<Cell>>) {
        let (w, h) = (map.grid().width() as i64, map.grid().height() as i64);
        let mut spent = 0;
        loop {
            // Every position on ring `r` is at least `r` from the goal: once the best is
            // no farther, no later ring can beat it.
            if self.best.is_some_and(|b| b.to_goal <= self.radius as f64) {
                return (spent, Some(self.best.map(|b| b.cell)));
            }
            let g = self.goal;
            let r = self.radius as i64;
            let (x1, y1, x2, y2) = (
                g.x1 as i64 - r,
                g.y1 as i64 - r,
                g.x2 as i64 + r,
                g.y2 as i64 + r,
            );
            if x1 < 0 && y1 < 0 && x2 >= w && y2 >= h {
                return (spent, Some(self.best.map(|b| b.cell)));
            }
            let mut consider = |x: i64, y: i64| {
                if x < 0 || y < 0 || x >= w || y >= h {
                    return;
                }
                spent += 1;
                let c = Cell::new(x as u32, y as u32);
                if map.connected(self.start, c) != Ok(true) {
                    return;
                }
                let rank = Rank {
                    to_goal: distance_to(g, c),
                    from_start: octile(self.start, c),
                    cell: c,
                };
                if self.best.map_or(true, |b| rank.cmp(&b) == Ordering::Less) {
                    self.best = Some(rank);
                }
            };
            if r == 0 {
                for c in g.cells() {
                    consider(c.x as i64, c.y as i64);
                }
            } else {
                for x in x1..=x2 {
                    consider(x, y1);
                    consider(x, y2);
                }
                for y in y1 + 1..y2 {
                    consider(x1, y);
                    consider(x2, y);
                }
            }
            self.radius += 1;
            if spent >= allowance {
                return (spent.max(1), None);
            }
        }
    }
}
