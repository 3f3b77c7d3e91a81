//! The reachable position closest to a goal: rings of growing Chebyshev radius around the
//! goal's rectangle, scanned a ring at a time so that a long scan spreads over ticks.

use crate::geom::{Cell, Rect};
use crate::grid::movement::octile;
use crate::hpa::{HpaMap, Path};

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

/// The cheapest cost per unit of step length on `map` (1 under unit costs): a floor that
/// turns octile distances into lower bounds of route costs.
pub(super) fn cheapest_cost(map: &HpaMap) -> f64 {
    map.costs()
        .iter()
        .map(|(_, c)| c as f64)
        .fold(1.0f64, f64::min)
}

/// A paused or finished scan for the open positions reachable from `start` that are
/// closest to `goal` (every one at that distance: the ties, which the path lengths then
/// decide, see [`ClosestRoute`]).
#[derive(Clone, Debug)]
pub(super) struct ClosestScan {
    goal: Rect,
    start: Cell,
    /// The next ring to scan.
    radius: u32,
    /// The least distance to the goal found so far, and the positions at it.
    best: Option<(f64, Vec<Cell>)>,
}

/// Distances to the goal this close count as equal (they are sums of the same few terms).
const TIE: f64 = 1e-9;

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
    /// answer: the closest reachable positions and their distance to the goal, `None`
    /// only when nothing at all is reachable (a start not open).
    #[allow(clippy::type_complexity)]
    pub(super) fn step(
        &mut self,
        map: &HpaMap,
        allowance: usize,
    ) -> (usize, Option<Option<(f64, Vec<Cell>)>>) {
        let (w, h) = (map.grid().width() as i64, map.grid().height() as i64);
        let mut spent = 0;
        loop {
            // Every position on ring `r` is at least `r` from the goal: once the best is
            // nearer than the ring, no later ring can beat or tie it.
            if self
                .best
                .as_ref()
                .is_some_and(|(d, _)| *d + TIE < self.radius as f64)
            {
                return (spent, Some(self.best.take()));
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
                return (spent, Some(self.best.take()));
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
                let d = distance_to(g, c);
                match &mut self.best {
                    Some((b, cells)) if (d - *b).abs() <= TIE => cells.push(c),
                    Some((b, _)) if d > *b => {}
                    _ => self.best = Some((d, vec![c])),
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

/// The route to the closest reachable positions: among the tied positions, the one with
/// the shortest path from the start (then the top-most, then the left-most). Candidates
/// are searched in order of their octile distance from the start, a lower bound of their
/// path cost once scaled by the cheapest terrain, and the search stops when that bound
/// reaches the best path found: usually after one search.
#[derive(Clone, Debug)]
pub(super) struct ClosestRoute {
    /// The tied positions, nearest (octile, then top-most, left-most) first.
    pub candidates: Vec<Cell>,
    /// The next candidate to search.
    pub next: usize,
    /// The best path found so far.
    pub best: Option<Path>,
    /// The distance of every candidate to the goal.
    pub goal_distance: f64,
}

impl ClosestRoute {
    pub(super) fn new(start: Cell, mut candidates: Vec<Cell>, goal_distance: f64) -> Self {
        candidates.sort_by(|a, b| {
            octile(start, *a)
                .total_cmp(&octile(start, *b))
                .then((a.y, a.x).cmp(&(b.y, b.x)))
        });
        ClosestRoute {
            candidates,
            next: 0,
            best: None,
            goal_distance,
        }
    }

    /// The next candidate worth a search from `start`, if any: none once the lower bound
    /// of the next one cannot beat (or tie) the best path found.
    pub(super) fn next_candidate(&self, map: &HpaMap, start: Cell) -> Option<Cell> {
        let c = *self.candidates.get(self.next)?;
        let bound = octile(start, c) * cheapest_cost(map);
        match &self.best {
            Some(best) if bound > best.cost + TIE => None,
            _ => Some(c),
        }
    }

    /// Takes the path found to the current candidate into account.
    pub(super) fn offer(&mut self, path: Path) {
        self.next += 1;
        let end = |p: &Path| p.cells.last().map(|c| (c.y, c.x));
        let better = match &self.best {
            None => true,
            Some(best) => {
                path.cost + TIE < best.cost
                    || (path.cost - best.cost).abs() <= TIE && end(&path) < end(best)
            }
        };
        if better {
            self.best = Some(path);
        }
    }
}
