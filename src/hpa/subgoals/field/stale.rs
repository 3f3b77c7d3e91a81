//! A subgoal field used on a map edited since it was started (see the parent module's
//! docs, "After edits"): the answers it vouches for without searching, and a goal-directed
//! search for the members it cannot vouch for, guided by its distances.
//!
//! # The repair search
//! A member the field cannot vouch for gets an A\* on the map as it is now: over the
//! current subgoal graph, from the member's ties (its cone scan), to the goal through the
//! cones of the goal's free outline cells (scanned once per map revision and kept) or the
//! member's direct line. This is the field's own search run forward on the current graph,
//! so by the same argument it finds a shortest path. Its heuristic is the field's lower
//! bound `lb(s) ≤ dist_new(s)` of the parent docs (old distances capped by the freed
//! zones, the radius, the octile distance to the goal): admissible, so A\* that reopens a
//! node reached again by a shorter way (the bound need not be consistent) stops with a
//! shortest path when it takes the goal from its queue. Where the edits changed little,
//! the bound is the distance itself off the new obstacle, and the search expands little
//! more than the subgoals around it.

use super::{
    bend, octile, refine, walk_hops, HpaMap, Member, SubgoalField, ENTRIES_PER_UNIT, NO_PARENT,
    SCAN_UNITS,
};
use crate::geom::{Cell, Rect};
use crate::grid::Grid;
use crate::hpa::path::line_is_clear;
use crate::hpa::subgoals::{Reached, SubgoalGraph};
use hashbrown::HashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Neighbours of an expanded node that count as one unit of work besides the expansion.
const NEIGHBOURS_PER_UNIT: usize = 4;

/// Cells of a chain checked against the map that count as one unit of work.
const CHECKED_CELLS_PER_UNIT: usize = 32;

/// The goal, as a node of the repair search.
const GOAL: u32 = u32::MAX - 1;

/// The cones of the goal's free outline cells on one revision of the map: each subgoal
/// they reach, with its distance to the nearest such cell and that cell.
#[derive(Clone, Debug, Default)]
pub(super) struct Targets {
    revision: u64,
    by_subgoal: HashMap<u32, (f64, Cell)>,
}

/// A repair search for one member (see the module docs), paused between slices.
#[derive(Clone, Debug)]
pub(super) struct StaleSearch {
    member: usize,
    /// The map revision it runs on.
    revision: u64,
    /// The field's radius.
    radius: f64,
    /// Queued nodes: `g + lb` in millionths, then the largest `g` first (among the many
    /// paths of equal octile length it goes deep at once instead of widening over all of
    /// them), then `g` itself (non-negative floats order as their bits do).
    open: BinaryHeap<Reverse<(u64, Reverse<u64>, u32)>>,
    /// Best `g` and parent of each node by subgoal ID, the goal's last
    /// (`NO_PARENT`: from the start); kept from one search to the next, only the entries
    /// of `touched` reset.
    labels: Vec<(f64, u32)>,
    touched: Vec<u32>,
    /// How the goal was reached from its parent: an outline cell.
    goal_cell: Option<Cell>,
    started: bool,
}

impl SubgoalField {
    /// A lower bound of subgoal `id`'s distance to the goal on the map as it is now (the
    /// parent docs), and its old distance when the field settled it at the same cell.
    ///
    /// `r` is the field's radius ([`SubgoalField::radius`], fixed since the field stops
    /// growing once the map changes; passed in, as finding it scans the queue's buckets).
    fn floor(&self, graph: &SubgoalGraph, id: u32, r: f64, freed: &[Rect]) -> (f64, Option<f64>) {
        let cell = graph.cell(id);
        let through_freed = (freed.iter())
            .map(|&z| gap_octile(z, cell) + rect_gap_octile(z, self.goal))
            .fold(f64::INFINITY, f64::min);
        // What the field learnt of `id` is about `cell` only if no edit since the field
        // started gave `id` a cell (it held this one then).
        let (old, exact) = if !graph.held_since(id, self.revision) {
            (gap_octile(self.goal, cell), None)
        } else if let Some(d) = self.settled_dist(id) {
            (d, Some(d))
        } else {
            (r.max(gap_octile(self.goal, cell)), None)
        };
        (old.min(through_freed), exact)
    }

    /// The answer of member `m` (joined on `map` as it is now) from a field started on an
    /// earlier revision of `map`, where every position opened since lies in one of the
    /// zones `freed` (the caller vouches for that; the rest of the edits only blocked): a
    /// shortest path clear on `map`, or `None` when the field cannot vouch for one (see
    /// the module docs, "After edits"). The field is not searched further. Returns the
    /// path and the work units spent.
    pub fn stale_path(&self, map: &HpaMap, m: usize, freed: &[Rect]) -> (Option<Vec<Cell>>, usize) {
        let Some(graph) = map.subgoals.as_ref() else {
            return (None, 1);
        };
        let member = &self.members[m];
        let start = member.start;
        let mut bound = member.direct.map_or(f64::INFINITY, |(_, h)| h);
        let mut exact: Vec<(f64, u32)> = Vec::new();
        let r = self.radius();
        for &(id, h) in &member.ties {
            let (floor, old) = self.floor(graph, id, r, freed);
            if let Some(d) = old {
                exact.push((h + d, id));
            }
            bound = bound.min(h + floor);
        }
        let work = 1 + member.ties.len() / 16;
        let slack = 1e-9 * bound.max(1.0);
        if let Some((g, _)) = member.direct.filter(|&(_, h)| h <= bound + slack) {
            return (Some(two_piece(start, g)), work);
        }
        exact.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut work = work;
        for &(length, id) in &exact {
            if length > bound + slack {
                break;
            }
            // Checking a chain walks about `length` cells.
            work += 1 + length as usize / CHECKED_CELLS_PER_UNIT;
            if let Some(points) = self.old_chain(graph, &map.grid, start, id) {
                return (Some(refine(&points)), work);
            }
        }
        (None, work)
    }

    /// The waypoints from `start` through settled subgoal `s` (by the IDs the field was
    /// started with) and its parents to a seed, each hop by a two-piece walk clear on
    /// `grid`; `None` when a hop has none.
    fn old_chain(
        &self,
        graph: &SubgoalGraph,
        grid: &Grid,
        start: Cell,
        s: u32,
    ) -> Option<Vec<Cell>> {
        let capacity = self.capacity;
        // The cell `v` stood for when the field started, if the graph still knows it.
        let old_cell = |v: u32| graph.held_since(v, self.revision).then(|| graph.cell(v));
        let mut points = vec![start];
        let hop = |a: Cell, b: Cell, points: &mut Vec<Cell>| {
            let corner = [bend(a, b), bend(b, a)]
                .into_iter()
                .find(|&k| line_is_clear(grid, a, k) && line_is_clear(grid, k, b))?;
            points.extend([corner, b]);
            Some(())
        };
        hop(start, old_cell(s)?, &mut points)?;
        let mut v = s;
        loop {
            let here = old_cell(v)?;
            let p = self.labels[v as usize].parent;
            if p as usize >= capacity {
                hop(here, self.seeds[p as usize - capacity], &mut points)?;
                break;
            }
            hop(here, old_cell(p)?, &mut points)?;
            v = p;
        }
        points.dedup();
        Some(points)
    }

    /// Runs the repair search for member `m` (see the module docs; started if the field
    /// holds none for `m`) on `map`, edited since the field started with every opened
    /// position in `freed`, for about `max` units of work (one per node expanded and one
    /// per [`NEIGHBOURS_PER_UNIT`] of its neighbours, [`SCAN_UNITS`] per cone scan of the
    /// goal's outline, and to start it, 1 per [`ENTRIES_PER_UNIT`] labels the last search
    /// touched or the graph's growth adds). Returns the work done and, once
    /// it is over, the member's shortest path on `map` (`None` if the goal is out of its
    /// reach). A search paused on an earlier revision of the map is started again.
    pub fn repair(
        &mut self,
        map: &HpaMap,
        m: usize,
        max: usize,
        freed: &[Rect],
    ) -> (usize, Option<Option<Vec<Cell>>>) {
        let capacity = map.subgoals.as_ref().map_or(0, |g| g.capacity());
        // Entries of the labels reset or added to start a search.
        let mut entries = 0;
        let mut search = match self.repair.take() {
            Some(s) if s.member == m && s.revision == map.revision() => s,
            old => {
                let mut labels = Vec::new();
                if let Some(mut old) = old {
                    for &t in &old.touched {
                        old.labels[t as usize] = (f64::INFINITY, NO_PARENT);
                    }
                    entries += old.touched.len();
                    labels = old.labels;
                }
                entries += (capacity + 1).saturating_sub(labels.len());
                labels.resize(capacity + 1, (f64::INFINITY, NO_PARENT));
                StaleSearch {
                    member: m,
                    revision: map.revision(),
                    radius: self.radius(),
                    open: BinaryHeap::new(),
                    labels,
                    touched: Vec::new(),
                    goal_cell: None,
                    started: false,
                }
            }
        };
        let (work, done) = self.step_repair(map, &mut search, max, freed);
        let work = work + entries / ENTRIES_PER_UNIT;
        if done.is_none() {
            self.repair = Some(search);
        }
        (work, done)
    }

    /// One slice of [`SubgoalField::repair`].
    fn step_repair(
        &mut self,
        map: &HpaMap,
        search: &mut StaleSearch,
        max: usize,
        freed: &[Rect],
    ) -> (usize, Option<Option<Vec<Cell>>>) {
        let Some(graph) = map.subgoals.as_ref() else {
            return (1, Some(None));
        };
        let mut work = 0;
        if self.targets.as_ref().map(|t| t.revision) != Some(map.revision()) {
            work += SCAN_UNITS * super::outline(self.goal).count().max(1);
            self.targets = Some(self.scan_targets(map, graph));
        }
        let member: &Member = &self.members[search.member];
        if !search.started {
            search.started = true;
            if let Some((g, h)) = member.direct {
                search.offer(GOAL, h, NO_PARENT, 0.0);
                search.goal_cell = Some(g);
            }
            for &(id, h) in &member.ties {
                let lb = self.floor(graph, id, search.radius, freed).0;
                search.offer(id, h, NO_PARENT, lb);
            }
        }
        let targets = &self.targets.as_ref().expect("scanned above").by_subgoal;
        while work < max {
            let Some(Reverse((_, Reverse(g_bits), u))) = search.open.pop() else {
                return (work.max(1), Some(None));
            };
            let g = search.label(u).0;
            if f64::from_bits(g_bits) > g {
                continue; // superseded by a shorter way
            }
            if u == GOAL {
                let path = self.repair_path(graph, search);
                return (work.max(1), Some(Some(path)));
            }
            // An expansion offers a `g` to each neighbour through a hash-free table, its
            // lower bound and the queue: about four neighbours cost what one subgoal
            // settled by the field's own search does.
            work += 1 + graph.neighbours(u).len() / NEIGHBOURS_PER_UNIT;
            let here = graph.cell(u);
            if let Some(&(h, g_cell)) = targets.get(&u) {
                if search.offer(GOAL, g + h, u, 0.0) {
                    search.goal_cell = Some(g_cell);
                }
            }
            for &v in graph.neighbours(u) {
                let there = graph.cell(v);
                let step = octile(here, there);
                if g + step < search.label(v).0 {
                    let lb = self.floor(graph, v, search.radius, freed).0;
                    search.offer(v, g + step, u, lb);
                }
            }
        }
        (work, None)
    }

    /// The cones of the goal's outline cells free on `map`.
    fn scan_targets(&self, map: &HpaMap, graph: &SubgoalGraph) -> Targets {
        let mut by_subgoal: HashMap<u32, (f64, Cell)> = HashMap::new();
        let mut offer = |id: u32, d: f64, g: Cell| {
            let entry = by_subgoal.entry(id).or_insert((f64::INFINITY, g));
            if d < entry.0 {
                *entry = (d, g);
            }
        };
        // The outline as it is now (cells freed since the field started included).
        for g in super::outline(self.goal).filter(|&g| map.grid.is_free(g)) {
            if let Some(id) = graph.id_of(g) {
                offer(id, 0.0, g);
            }
            graph.reach(&map.grid, g, None, |r| {
                if let Reached::Subgoal(c) = r {
                    let id = graph.id_of(c).expect("a scan reports subgoals");
                    offer(id, octile(g, c), g);
                }
            });
        }
        Targets {
            revision: map.revision(),
            by_subgoal,
        }
    }

    /// The waypoints of a finished repair search, written out cell by cell: each hop from
    /// its end nearer the start, its diagonal steps first, as a current field's route
    /// ([`walk_hops`]; the search crossed the graph's edges as they are now, and the start's
    /// and the goal's ties of scans on this map: Lemma 1 of `taut.rs` holds for each).
    fn repair_path(&self, graph: &SubgoalGraph, search: &StaleSearch) -> Vec<Cell> {
        let start = self.members[search.member].start;
        let goal_cell = search.goal_cell.expect("the goal was reached from a cell");
        let mut chain = Vec::new();
        let (length, mut v) = search.label(GOAL);
        while v != NO_PARENT {
            chain.push(v);
            v = search.label(v).1;
        }
        let waypoints = std::iter::once(start)
            .chain(chain.iter().rev().map(|&v| graph.cell(v)))
            .chain(std::iter::once(goal_cell));
        // A step is at least 1 long (see `SubgoalField::route`).
        walk_hops(waypoints, length as usize + 2)
            .expect("a route has its start")
            .cells
    }
}

impl StaleSearch {
    /// Queues `node` at `g` (with heuristic `lb`) from `parent` if that is shorter than
    /// what it has; returns whether it was.
    fn offer(&mut self, node: u32, g: f64, parent: u32, lb: f64) -> bool {
        let i = self.index(node);
        if self.labels[i].0 <= g {
            return false;
        }
        self.labels[i] = (g, parent);
        self.touched.push(i as u32);
        let f = ((g + lb) * 1e6).round() as u64;
        self.open.push(Reverse((f, Reverse(g.to_bits()), node)));
        true
    }

    /// Marks the search as belonging to no member (its buffers are kept for the next).
    pub(super) fn retire(&mut self) {
        self.member = usize::MAX;
    }

    /// Where `node`'s label is kept.
    #[inline]
    fn index(&self, node: u32) -> usize {
        if node == GOAL {
            self.labels.len() - 1
        } else {
            node as usize
        }
    }

    /// `node`'s best `g` and parent.
    #[inline]
    fn label(&self, node: u32) -> (f64, u32) {
        self.labels[self.index(node)]
    }

    /// Heap bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
        self.open.capacity() * 24 + self.labels.capacity() * 16 + self.touched.capacity() * 4
    }
}

/// The cells of the two-piece walk from `a` to `b` (diagonal steps, then straight ones).
fn two_piece(a: Cell, b: Cell) -> Vec<Cell> {
    let mut points = vec![a, bend(a, b), b];
    points.dedup();
    refine(&points)
}

/// The octile distance from `c` to the nearest cell of `r`.
pub(super) fn gap_octile(r: Rect, c: Cell) -> f64 {
    let gap = |v: u32, lo: u32, hi: u32| lo.saturating_sub(v).max(v.saturating_sub(hi));
    octile(
        Cell::new(0, 0),
        Cell::new(gap(c.x, r.x1, r.x2), gap(c.y, r.y1, r.y2)),
    )
}

/// The octile distance between the nearest cells of `a` and `b`.
pub(super) fn rect_gap_octile(a: Rect, b: Rect) -> f64 {
    let gap = |a1: u32, a2: u32, b1: u32, b2: u32| b1.saturating_sub(a2).max(a1.saturating_sub(b2));
    octile(
        Cell::new(0, 0),
        Cell::new(gap(a.x1, a.x2, b.x1, b.x2), gap(a.y1, a.y2, b.y1, b.y2)),
    )
}
