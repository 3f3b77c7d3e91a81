//! The searches over the grid behind a landmark table, both resumable in slices: the
//! flood that finds the first landmark's place ([`Flood`]), and the Dijkstra that fills
//! one landmark's column ([`ColumnSearch`]), with why a column searched in slices across
//! edits stays 1-Lipschitz.

use super::steps::Steps;
use super::UNREACHED;
use crate::geom::Cell;
use crate::grid::Grid;
use std::collections::VecDeque;

/// Empty buckets a column search passes over in the time it settles a cell, roughly: what
/// one unit of its work counts.
const EMPTY_BUCKETS_PER_UNIT: usize = 64;

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

/// A grid Dijkstra from one landmark, over the step weights, with a bucket queue (Dial's
/// algorithm: weights are small integers), that can stop after a given number of settled
/// cells and resume later: a refresh with a time budget recomputes a column in slices of
/// [`COLUMN_SLICE`](super::COLUMN_SLICE) cells rather than in one search over the whole map.
///
/// Between slices the map may change. Cells blocked or made dearer only remove or raise
/// steps: a step still there at the end was there, no cheaper, when its first end was
/// settled, which then offered the other end at most its weight, so the finished column
/// is still 1-Lipschitz over the steps of the map it ends on. Cells freed or made cheaper
/// add steps the settled cells never offered; the landmarks restart the search then (see
/// `Landmarks::on_freed`).
#[derive(Clone, Debug, Default)]
pub(super) struct ColumnSearch {
    /// The landmark whose column this is.
    pub(super) landmark: usize,
    /// Distances so far, by cell index; final for settled cells.
    pub(super) dist: Vec<u32>,
    /// The queue's ring of buckets, one per distance modulo the largest step weight + 1.
    buckets: Vec<Vec<u32>>,
    /// Cells queued and not yet taken out.
    pending: usize,
    /// The distance of the bucket being drained.
    d: u32,
}

impl ColumnSearch {
    /// Starts the search for `landmark`'s column from `source` (no cell settled yet).
    pub(super) fn start(&mut self, steps: &Steps, landmark: usize, source: Cell) {
        let ring = steps.max_weight() as usize + 1;
        if self.buckets.len() != ring {
            self.buckets = vec![Vec::new(); ring];
        }
        self.buckets.iter_mut().for_each(Vec::clear);
        self.dist.clear();
        self.dist.resize(steps.masks.len(), UNREACHED);
        self.landmark = landmark;
        let s = source.y as usize * steps.width + source.x as usize;
        self.dist[s] = 0;
        self.buckets[0].push(s as u32);
        self.pending = 1;
        self.d = 0;
    }

    /// Works until `most` units are done: a cell settled counts one, and so do
    /// [`EMPTY_BUCKETS_PER_UNIT`] empty buckets passed over (under terrain costs a step
    /// weighs up to thousands of units, so most buckets are empty). Returns the units
    /// done, and whether the search is finished.
    pub(super) fn advance(&mut self, steps: &Steps, most: usize) -> (usize, bool) {
        let ring = self.buckets.len();
        let (mut settled, mut empty) = (0, 0);
        while self.pending > 0 && settled + empty / EMPTY_BUCKETS_PER_UNIT < most {
            let Some(i) = self.buckets[self.d as usize % ring].pop() else {
                // Steps weigh at least 1 (every cell counts 8 units or more) and at most
                // `ring − 1`, so nothing lands in the bucket being drained, and every
                // queued cell is less than a ring ahead.
                self.d += 1;
                empty += 1;
                continue;
            };
            self.pending -= 1;
            if self.dist[i as usize] != self.d {
                continue; // reached more cheaply since
            }
            settled += 1;
            for (j, w) in steps.from(i as usize) {
                // Capped below `UNREACHED`: a capped column is still Lipschitz.
                let nd = self.d.saturating_add(w).min(UNREACHED - 1);
                if nd < self.dist[j] {
                    self.dist[j] = nd;
                    self.buckets[nd as usize % ring].push(j as u32);
                    self.pending += 1;
                }
            }
        }
        (settled + empty / EMPTY_BUCKETS_PER_UNIT, self.pending == 0)
    }
}
