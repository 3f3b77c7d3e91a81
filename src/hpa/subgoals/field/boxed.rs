//! The members inside an army's box answered from one small grid Dijkstra over the box,
//! seeded from the answers of the box's ring (see the field's module docs, "Members
//! inside a box"), instead of a cone scan each.

use super::{is_army, outline, SubgoalField};
use crate::geom::{Cell, Direction, Rect};
use crate::hpa::path::{walk_hops, Path};
use crate::hpa::HpaMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// No member, no next cell.
const NONE: u32 = u32::MAX;

/// Work units, in eighths, of a cell settled by a box's Dijkstra (a unit is about 1,030
/// instructions): callgrind of the armies' burst on Cauldron (session 42), 18 boxes'
/// Dijkstras settled 2,057 cells in 2.50M instructions, ~1,220 a cell (its 8 moves'
/// legality on the grid, the heap).
pub(super) const BOX_CELL_EIGHTHS: usize = 10;

/// Cells of a box a field looks at per work unit when it takes the box on (its ring, its
/// arrays), besides a unit per component look-up (`HpaMap::connected`, ~1,110
/// instructions): callgrind of the armies' burst on Cauldron (session 42), 18 boxes taken
/// on in 320K instructions, 176K of them in 159 look-ups (26 round the rings, a run each;
/// looking every ring cell up took 661), ~8K a box besides for ~120 cells.
const BOX_SETUP_CELLS_PER_UNIT: usize = 16;

/// A box `B` whose inner members are answered from its ring (module docs of the field,
/// "Members inside a box").
#[derive(Clone, Debug)]
pub(super) struct BoxJoin {
    /// The box.
    rect: Rect,
    /// The map revision its answers hold for (the field's, when it took the box on).
    revision: u64,
    /// The free cells of the box's ring from which the goal is reachable, in the order
    /// they join.
    ring: Vec<Cell>,
    /// Ring cells looked at for joining so far.
    joined: usize,
    /// Ring members known to be answered so far (a prefix of `ring`: a field's answer,
    /// once final, stays final while it grows).
    answered: usize,
    /// For every cell of the box (row by row): the member a ring cell joined as, else
    /// [`NONE`].
    member: Vec<u32>,
    /// Once the box's Dijkstra has started (empty before): every cell's distance to the
    /// goal so far (infinite where no ring cell reaches it within the box)...
    dist: Vec<f64>,
    /// ...and the next cell of its walk to its ring cell (an index into the box), or
    /// [`NONE`] at the ring cell.
    next: Vec<u32>,
    /// The Dijkstra's queue: cells by their distance (the bits of a non-negative `f64`
    /// order as it does), then index.
    open: BinaryHeap<Reverse<(u64, u32)>>,
    /// Eighths of a unit of the Dijkstra not yet booked, carried between slices.
    eighths: usize,
    /// Whether the Dijkstra is over: `dist` and `next` are final.
    ready: bool,
}

/// The cells of `r`'s outline round the ring (clockwise from the top-left corner), each
/// beside the one before: `r` at least 2 wide and high.
fn ring_cells(r: Rect) -> impl Iterator<Item = Cell> {
    let top = (r.x1..r.x2).map(move |x| Cell::new(x, r.y1));
    let right = (r.y1..r.y2).map(move |y| Cell::new(r.x2, y));
    let bottom = (r.x1 + 1..=r.x2).rev().map(move |x| Cell::new(x, r.y2));
    let left = (r.y1 + 1..=r.y2).rev().map(move |y| Cell::new(r.x1, y));
    top.chain(right).chain(bottom).chain(left)
}

impl BoxJoin {
    /// The index of `c` (a cell of the box) in its arrays.
    #[inline]
    fn index(&self, c: Cell) -> usize {
        ((c.y - self.rect.y1) * self.rect.width() + (c.x - self.rect.x1)) as usize
    }

    /// The cell at index `i`.
    #[inline]
    fn cell(&self, i: usize) -> Cell {
        let w = self.rect.width() as usize;
        Cell::new(self.rect.x1 + (i % w) as u32, self.rect.y1 + (i / w) as u32)
    }

    /// Whether `c` lies strictly inside the box (not on its ring).
    #[inline]
    fn is_inner(&self, c: Cell) -> bool {
        let r = self.rect;
        c.x > r.x1 && c.x < r.x2 && c.y > r.y1 && c.y < r.y2
    }
}

impl SubgoalField {
    /// Whether answering the starts `starts` standing in `rect` (their box) through the
    /// box pays: the cone scans it spares (one a start strictly inside the box) are at
    /// least twice what it costs (a join for every free ring cell that is no start, and
    /// the box's Dijkstra at [`BOX_CELL_EIGHTHS`] eighths of a unit a cell). Deterministic, from the
    /// cells alone.
    pub(crate) fn box_pays(map: &HpaMap, rect: Rect, starts: &[Cell]) -> bool {
        box_balance(map, rect, starts).is_some_and(|(spared, cost)| spared >= 2 * cost)
    }

    /// The work units a job whose starts `starts` stand in `rect` is expected to save by
    /// its box (the cone scans spared less the ring's extra joins and the box's Dijkstra),
    /// when its field will take the box on: the group stands together (its field is
    /// aimed), the goal lies outside the box and the box pays; else 0. For the intake's
    /// estimate of the job's work (`service::job`), which counts a cone scan a member.
    pub(crate) fn box_saving(map: &HpaMap, goal: Rect, rect: Rect, starts: &[Cell]) -> usize {
        if map.subgoals.is_none() || !is_army(map, rect) || goal.intersects(&rect) {
            return 0;
        }
        match box_balance(map, rect, starts) {
            Some((spared, cost)) if spared >= 2 * cost => spared - cost,
            _ => 0,
        }
    }

    /// Takes on the box `rect`: the members strictly inside it will be answered from its
    /// ring ([`SubgoalField::box_step`], [`SubgoalField::box_route`]) while the map stays
    /// as it is now. Refused (`false`) when the field is older than the map, the box has no
    /// inside, or the goal meets the box (a path from inside may then reach the goal
    /// without crossing the ring). Returns whether it took the box on and the work units
    /// spent.
    pub fn box_in(&mut self, map: &HpaMap, rect: Rect) -> (bool, usize) {
        self.boxed = None;
        if !self.is_current(map)
            || rect.width() < 3
            || rect.height() < 3
            || self.goal.intersects(&rect)
        {
            return (false, 0);
        }
        // The goal's components: a ring cell joins only if it reaches one (else its
        // answer would wait for the whole search, and it offers no way out anyway).
        let mut lookups = 0;
        let mut goal_cells: Vec<Cell> = Vec::new();
        for g in self.goal.cells().filter(|&g| map.grid.is_free(g)) {
            lookups += goal_cells.len();
            if !goal_cells.iter().any(|&o| map.connected(o, g) == Ok(true)) {
                goal_cells.push(g);
            }
        }
        // Round the ring, a cell one legal step from the last one looked up is in its
        // component: a look-up (~1,100 instructions) for each run of the ring.
        let mut ring = Vec::new();
        let mut last: Option<(Cell, bool)> = None;
        for c in ring_cells(rect).filter(|&c| map.grid.is_free(c)) {
            let beside = last.filter(|&(l, _)| {
                Direction::between(l, c).is_some_and(|dir| map.grid.can_step(l, dir))
            });
            let reaches = match beside {
                Some((_, reaches)) => reaches,
                None => {
                    lookups += goal_cells.len();
                    goal_cells.iter().any(|&g| map.connected(c, g) == Ok(true))
                }
            };
            last = Some((c, reaches));
            if reaches {
                ring.push(c);
            }
        }
        let cells = rect.area() as usize;
        let join = BoxJoin {
            rect,
            revision: self.revision,
            ring,
            joined: 0,
            answered: 0,
            member: vec![NONE; cells],
            dist: Vec::new(),
            next: Vec::new(),
            open: BinaryHeap::new(),
            eighths: 0,
            ready: false,
        };
        self.boxed = Some(join);
        // Members that joined already on the ring count as its members.
        for m in 0..self.members.len() {
            self.note_ring_member(self.members[m].start, m);
        }
        (true, 1 + lookups + cells / BOX_SETUP_CELLS_PER_UNIT)
    }

    /// Whether `start` is answered from the field's box ([`SubgoalField::box_step`], then
    /// [`SubgoalField::box_route`]): it stands strictly inside the box and the map is as it
    /// was when the field took the box on.
    pub fn boxes(&self, map: &HpaMap, start: Cell) -> bool {
        (self.boxed.as_ref()).is_some_and(|b| {
            b.revision == map.revision() && self.is_current(map) && b.is_inner(start)
        })
    }

    /// The member that `start`, a cell of the box's ring, joined as, while the box holds
    /// (the map as it was when the field took it on).
    pub fn ring_member(&self, map: &HpaMap, start: Cell) -> Option<usize> {
        let b = self.boxed.as_ref()?;
        if b.revision != map.revision() || !self.is_current(map) || !b.rect.contains(start) {
            return None;
        }
        let m = b.member[b.index(start)];
        (m != NONE).then_some(m as usize)
    }

    /// Records member `m` (joining at `start`) as the box's ring member there, if `start`
    /// is on the ring and none joined there yet.
    pub(super) fn note_ring_member(&mut self, start: Cell, m: usize) {
        if let Some(b) = &mut self.boxed {
            if b.rect.contains(start) && !b.is_inner(start) {
                let i = b.index(start);
                if b.member[i] == NONE {
                    b.member[i] = m as u32;
                }
            }
        }
    }

    /// Whether the box's next step joins a ring cell (a cone scan), rather than a slice of
    /// the search or the box's Dijkstra.
    pub fn box_joins_next(&self) -> bool {
        (self.boxed.as_ref()).is_some_and(|b| {
            b.ring[b.joined..]
                .iter()
                .any(|&c| b.member[b.index(c)] == NONE)
        })
    }

    /// One step toward the box's answers, at most `max` units of the search: the next
    /// ring cell's join (each ring cell a member), else a slice of the search until every
    /// ring member is answered, else the Dijkstra over the box's free cells from the ring
    /// members' answers, a slice of at most `max` units (1 unit to seed it, then
    /// [`BOX_CELL_EIGHTHS`] eighths a cell settled; it pauses exactly). Which one comes
    /// next, [`SubgoalField::box_joins_next`] tells. Returns the work units spent and
    /// whether the box's answers are ready (its Dijkstra ended in this step, or before: 0
    /// units). Only while [`SubgoalField::boxes`] holds for some start.
    pub(crate) fn box_step(&mut self, map: &HpaMap, max: usize) -> (usize, bool) {
        let b = self.boxed.as_ref().expect("a field with a box");
        if b.ready {
            return (0, true);
        }
        let mut joined = b.joined;
        while joined < b.ring.len() {
            let c = b.ring[joined];
            joined += 1;
            if b.member[b.index(c)] == NONE {
                self.boxed.as_mut().expect("checked").joined = joined;
                let (_, work) = self.join(map, c);
                return (work, false);
            }
        }
        self.boxed.as_mut().expect("checked").joined = joined;
        loop {
            let b = self.boxed.as_ref().expect("checked");
            let Some(&c) = b.ring.get(b.answered) else {
                break;
            };
            let m = b.member[b.index(c)] as usize;
            if !self.is_answered(map, m) {
                return (self.step(map, max).max(1), false);
            }
            self.boxed.as_mut().expect("checked").answered += 1;
        }
        self.box_dijkstra(map, max)
    }

    /// A slice of at most `max` units of the Dijkstra over the box's free cells
    /// (8-connected, no corner cut, cells of the box only), seeded with the ring members'
    /// answers (all final by now) at its first slice; returns its work units and whether
    /// it is over.
    #[inline(never)]
    fn box_dijkstra(&mut self, map: &HpaMap, max: usize) -> (usize, bool) {
        let mut b = self.boxed.take().expect("a field with a box");
        let mut work = 0;
        if b.dist.is_empty() {
            let cells = b.member.len();
            b.dist = vec![f64::INFINITY; cells];
            b.next = vec![NONE; cells];
            for &c in &b.ring {
                let i = b.index(c);
                if let Some((length, _)) = self.best(b.member[i] as usize) {
                    b.dist[i] = length;
                    b.open.push(Reverse((length.to_bits(), i as u32)));
                }
            }
            work += 1;
        }
        let mut eighths = b.eighths;
        while work < max {
            let Some(Reverse((bits, i))) = b.open.pop() else {
                super::close_eighths(&mut work, &mut eighths);
                b.ready = true;
                break;
            };
            let (i, d) = (i as usize, f64::from_bits(bits));
            if d > b.dist[i] {
                continue; // superseded by a shorter entry
            }
            super::book_eighths(&mut work, &mut eighths, BOX_CELL_EIGHTHS);
            let here = b.cell(i);
            for dir in Direction::ALL {
                let (dx, dy) = dir.delta();
                let there = Cell::new(
                    here.x.wrapping_add(dx as u32),
                    here.y.wrapping_add(dy as u32),
                );
                if !b.rect.contains(there) || !map.grid.can_step(here, dir) {
                    continue;
                }
                let step = if dir.is_diagonal() {
                    std::f64::consts::SQRT_2
                } else {
                    1.0
                };
                let j = b.index(there);
                if d + step < b.dist[j] {
                    b.dist[j] = d + step;
                    b.next[j] = i as u32;
                    b.open.push(Reverse(((d + step).to_bits(), j as u32)));
                }
            }
        }
        if b.open.is_empty() && !b.ready {
            // The last cell settled in this slice: nothing is left to pop.
            super::close_eighths(&mut work, &mut eighths);
            b.ready = true;
        }
        b.eighths = eighths;
        let ready = b.ready;
        self.boxed = Some(b);
        (work, ready)
    }

    /// The shortest path of `start` (strictly inside the box) to the goal once
    /// [`SubgoalField::box_step`] said the box's answers are ready: its walk within the box
    /// to its ring cell, then that ring member's route. With the smallest rectangle holding
    /// its cells, and the ring member's route's hops (to price the read-out, with the
    /// path's cells).
    /// `None` when no ring cell reaches it within the box (the goal is out of its reach).
    pub(crate) fn box_route(&self, map: &HpaMap, start: Cell) -> Option<(Path, Rect, usize)> {
        let graph = (map.subgoals.as_ref()).expect("a field's map keeps its subgoals");
        let b = self.boxed.as_ref().expect("a field with a box");
        let mut i = b.index(start);
        let length = *b.dist.get(i)?;
        if length == f64::INFINITY {
            return None;
        }
        // The walk within the box, a step a waypoint (its cells are few: the box is an
        // army's), then the ring member's route, in one pass as a member's own route is
        // written (`walk_hops`: the cells once into a vector sized from the length).
        let mut inside = vec![start];
        while b.next[i] != NONE {
            i = b.next[i] as usize;
            inside.push(b.cell(i));
        }
        let m = b.member[i] as usize;
        let (_, via) = self.best(m)?;
        let waypoints = inside
            .into_iter()
            .chain(self.waypoints_via(graph, m, via).skip(1));
        let walk = walk_hops(waypoints, length as usize + 2).expect("a walk has its start");
        let (bounds, hops) = (walk.bounds, walk.hops);
        Some((Path::from_walk(walk, map.grid(), map.costs()), bounds, hops))
    }

    /// Every cell of the box with the length the box's Dijkstra gave it (infinite where it
    /// reached none), once it ran: the tests check the cells no member stands on too.
    #[cfg(test)]
    pub(super) fn box_lengths(&self) -> Vec<(Cell, f64)> {
        let b = self.boxed.as_ref().expect("a field with a box");
        (b.dist.iter().enumerate())
            .map(|(i, &d)| (b.cell(i), d))
            .collect()
    }

    /// Heap bytes the box holds.
    pub(super) fn box_memory_bytes(&self) -> usize {
        self.boxed.as_ref().map_or(0, |b| {
            b.ring.capacity() * 8
                + b.member.capacity() * 4
                + b.dist.capacity() * 8
                + b.next.capacity() * 4
                + b.open.capacity() * 16
        })
    }
}

/// The cone scans' units that answering `starts` through their box `rect` spares (one
/// scan a start strictly inside it), and the units it costs instead (a join for every
/// free ring cell that is no start, the Dijkstra at [`BOX_CELL_EIGHTHS`] eighths of a unit
/// a cell of the box); `None` for a box with no inside.
fn box_balance(map: &HpaMap, rect: Rect, starts: &[Cell]) -> Option<(usize, usize)> {
    if rect.width() < 3 || rect.height() < 3 {
        return None;
    }
    let inner = (starts.iter())
        .filter(|c| c.x > rect.x1 && c.x < rect.x2 && c.y > rect.y1 && c.y < rect.y2)
        .count();
    let on_ring = starts.len() - inner;
    let ring_free = outline(rect).filter(|&c| map.grid.is_free(c)).count();
    let extra = ring_free.saturating_sub(on_ring);
    let dijkstra = rect.area() as usize * BOX_CELL_EIGHTHS / 8;
    let scan = SubgoalField::SCAN_UNITS;
    Some((inner * scan, extra * scan + dijkstra))
}
