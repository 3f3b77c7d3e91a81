//! The flood that finds the first landmark's place ([`Flood`]): a breadth-first flood of
//! each connected region in turn, resumable in slices, keeping the largest region's last
//! cell reached.

use super::steps::Steps;
use crate::geom::Cell;
use crate::grid::Grid;
use std::collections::VecDeque;

/// The cell of the largest 8-connected free region that its breadth-first flood reached
/// last, or `None` if nothing is free.
pub(super) fn largest_region_far_cell(grid: &Grid, steps: &Steps) -> Option<Cell> {
    let mut flood = Flood::new(steps.masks.len());
    match flood.advance(grid, steps, usize::MAX) {
        (_, Some(found)) => found,
        (_, None) => unreachable!("an unlimited flood finishes"),
    }
}

/// The search for the first landmark's place, in slices: a breadth-first flood (in steps)
/// of each connected region in turn, keeping the largest region's last cell reached.
#[derive(Clone, Debug, Default)]
pub(super) struct Flood {
    seen: Vec<bool>,
    queue: VecDeque<usize>,
    /// The next cell index the scan for an unseen free cell looks at.
    scan: usize,
    /// The region being flooded: its size so far, and its last cell reached.
    size: usize,
    last: usize,
    /// The largest region flooded so far: its size and last cell.
    best: Option<(usize, usize)>,
}

impl Flood {
    pub(super) fn new(cells: usize) -> Self {
        Flood {
            seen: vec![false; cells],
            ..Flood::default()
        }
    }

    /// Floods or scans at most `most` cells. Returns the cells handled, and, once every
    /// cell is, the place found (`None` inside when nothing is free).
    pub(super) fn advance(
        &mut self,
        grid: &Grid,
        steps: &Steps,
        most: usize,
    ) -> (usize, Option<Option<Cell>>) {
        let mut work = 0;
        while work < most {
            if let Some(u) = self.queue.pop_front() {
                self.size += 1;
                self.last = u;
                for (v, _) in steps.from(u) {
                    if !self.seen[v] {
                        self.seen[v] = true;
                        self.queue.push_back(v);
                    }
                }
            } else {
                if self.size > 0 {
                    if self.best.map_or(true, |(size, _)| self.size > size) {
                        self.best = Some((self.size, self.last));
                    }
                    self.size = 0;
                }
                if self.scan == self.seen.len() {
                    return (work, Some(self.best.map(|(_, i)| steps.cell(i))));
                }
                let i = self.scan;
                self.scan += 1;
                if !self.seen[i] && grid.is_free(steps.cell(i)) {
                    self.seen[i] = true;
                    self.queue.push_back(i);
                }
            }
            work += 1;
        }
        (work, None)
    }
}
