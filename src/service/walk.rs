//! The units' walk along their delivered paths, every unit every frame:
//! [`PathService::step`] and [`PathService::advance`], served from the hot half of each
//! ticket's slot (a [`Walk`], see `table`).
//!
//! A [`Walk`] mirrors what the walk needs of a ticket's state (whether it holds a path, the
//! path's length) and keeps the unit's progress, the position it stands on and the next
//! moves of its path, packed 4 bits a move (16 in a `u64`). A step pops one move: it reads
//! neither the path's own cells, except once every 16 steps to pack the next moves, nor
//! the ticket's cold state, except while a reported edit awaits the sweep (whether the edit
//! may touch the path, for `Rechecking`, is kept there). Session 34 measured the walk
//! before this at 148 instructions and 4.3 cache misses per unit and frame (three lines of
//! the slot, one of the path's cells).
//!
//! Why a step is exact: the packed moves are the differences between consecutive cells of
//! the path the ticket holds, from `here`, which is the path's cell at `progress`; every
//! write of a ticket's state replaces its `Walk` too (`PathService::settle`, and the
//! sweep's invalidation), so a repaired or re-planned path starts afresh from its own
//! cells, and [`PathService::advance`] either pops the moves it skips or drops them (they
//! are packed again from the cells at the next step).

use super::types::Ticket;
use super::{PathService, ServiceError, TicketState};
use crate::geom::Cell;

/// Bits per packed move: two per coordinate, the offset plus one.
const MOVE_BITS: u32 = 4;

/// Moves a `u64` holds.
const PACKED_MOVES: usize = (u64::BITS / MOVE_BITS) as usize;

/// The hot record of one ticket: what a unit's step reads and writes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Walk {
    /// Whether the ticket holds a delivered path (full or partial). The walk needs no more
    /// of its state: pending, failed and invalidated tickets all answer `NoPath`.
    holds_path: bool,
    /// Moves still packed in `moves`; 0 when `here` is not known.
    packed: u8,
    /// The index in the path the unit last stepped to or reported.
    pub(super) progress: usize,
    /// The path's positions (0 without a path).
    len: usize,
    /// The path's position at `progress`, when `packed > 0`.
    here: Cell,
    /// The `packed` moves after `here`, the next in the lowest bits.
    moves: u64,
}

impl Walk {
    /// The record for a ticket whose state is `state`, at the start of its path.
    pub(super) fn of(state: &TicketState) -> Walk {
        let mut walk = Walk {
            holds_path: false,
            packed: 0,
            progress: 0,
            len: 0,
            here: Cell::new(0, 0),
            moves: 0,
        };
        // Pending, failed and invalidated tickets hold no path.
        if let TicketState::Done { outcome, .. } = state {
            if let Some(path) = outcome.path() {
                walk.holds_path = true;
                walk.len = path.cells.len();
                // The cells are at hand now: the first steps need not look for them.
                walk.pack(&path.cells);
            }
        }
        walk
    }

    /// Packs the moves after the position at `progress` of `cells` (the ticket's path), up
    /// to [`PACKED_MOVES`], stopping before a step longer than one cell (none of the
    /// service's paths has one; such a step is taken from the cells themselves).
    fn pack(&mut self, cells: &[Cell]) {
        self.packed = 0;
        let Some(&here) = cells.get(self.progress) else {
            return;
        };
        let (mut moves, mut packed, mut at) = (0u64, 0u32, here);
        for &next in cells[self.progress + 1..].iter().take(PACKED_MOVES) {
            let dx = i64::from(next.x) - i64::from(at.x) + 1;
            let dy = i64::from(next.y) - i64::from(at.y) + 1;
            if !(0..=2).contains(&dx) || !(0..=2).contains(&dy) {
                break;
            }
            moves |= ((dx as u64) | (dy as u64) << 2) << (MOVE_BITS * packed);
            packed += 1;
            at = next;
        }
        self.here = here;
        self.moves = moves;
        self.packed = packed as u8;
    }

    /// Moves on by the next packed move (there is one): the position reached.
    #[inline]
    fn pop(&mut self) -> Cell {
        let step = self.moves & 0xf;
        self.moves >>= MOVE_BITS;
        self.packed -= 1;
        self.progress += 1;
        let (dx, dy) = ((step & 3) as u32, (step >> 2) as u32);
        self.here = Cell::new(
            self.here.x.wrapping_add(dx).wrapping_sub(1),
            self.here.y.wrapping_add(dy).wrapping_sub(1),
        );
        self.here
    }

    /// Moves on by one position, once the packed moves have run out (progress is not at the
    /// path's end): packs the next moves from `cells` (the ticket's path) and pops one, or,
    /// before a step longer than one cell, takes the next position from `cells` itself.
    fn step_from(&mut self, cells: &[Cell]) -> Option<Cell> {
        self.pack(cells);
        if self.packed > 0 {
            return Some(self.pop());
        }
        self.progress += 1;
        cells.get(self.progress).copied()
    }

    /// Moves progress on to `index` (not behind it, within the path).
    fn skip_to(&mut self, index: usize) {
        let skipped = index - self.progress;
        if skipped <= usize::from(self.packed) {
            for _ in 0..skipped {
                self.pop();
            }
        } else {
            self.packed = 0;
            self.progress = index;
        }
    }
}

impl PathService {
    /// Moves the unit following `ticket`'s path on by one position, and returns that
    /// position: the walk of a unit that goes a cell a frame, in one call and O(1) (no
    /// look at the path itself, but once every 16 steps). `None` at the path's end (the
    /// unit stays there); the ticket's cold state is read too while a reported edit awaits
    /// the sweep. The same as reading the path from [`PathService::outcome`] and
    /// reporting the next index with [`PathService::advance`], for a fraction of the cost;
    /// both can be mixed.
    ///
    /// ```
    /// use quadpath::service::{Budget, PathService, RequestOptions};
    /// use quadpath::units::UnitId;
    /// use quadpath::{Cell, Grid, Mode, Movement, World};
    /// let mut world = World::new(Grid::new_free(16, 16));
    /// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
    /// let mut service = PathService::new(&world);
    /// let ticket = service.request(&world, infantry, UnitId::new(0), Cell::new(0, 0), Cell::new(3, 0), RequestOptions::default())?;
    /// service.tick(&world, Budget::Expansions(100))?;
    /// let mut at = Cell::new(0, 0);
    /// while let Some(next) = service.step(ticket)? {
    ///     at = next; // once a frame
    /// }
    /// assert_eq!(at, Cell::new(3, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ServiceError::UnknownTicket`], [`ServiceError::NoPath`] for a ticket holding no
    /// path (pending, failed, invalidated), and [`ServiceError::Rechecking`] for a path an
    /// edit reported since may have broken, until a tick's sweep has checked it
    /// (when [`PathService::outcome`] does not give it either). The unit does not move
    /// then.
    pub fn step(&mut self, ticket: Ticket) -> Result<Option<Cell>, ServiceError> {
        if !self.sweep.is_settled() {
            // Edits wait for the sweep: whether one may touch this path is in the cold part.
            if let Some(TicketState::Done { checked, reach, .. }) = self.tickets.get(ticket) {
                if self.sweep.may_touch(*checked, *reach) {
                    return Err(ServiceError::Rechecking { ticket });
                }
            }
        }
        let walk = (self.tickets.hot_mut(ticket)).ok_or(ServiceError::UnknownTicket { ticket })?;
        if !walk.holds_path {
            return Err(ServiceError::NoPath { ticket });
        }
        if walk.progress + 1 >= walk.len {
            return Ok(None);
        }
        if walk.packed > 0 {
            return Ok(Some(walk.pop()));
        }
        // The packed moves have run out: the next ones, from the path itself.
        let Some((walk, TicketState::Done { outcome, .. })) = self.tickets.parts_mut(ticket) else {
            return Err(ServiceError::NoPath { ticket });
        };
        let cells = outcome.path().map_or(&[][..], |p| &p.cells[..]);
        Ok(walk.step_from(cells))
    }

    /// Records that the unit following `ticket`'s path now stands at its position `index`:
    /// edits are checked against the path from there on, and repairs start there. Progress
    /// only moves forward: the part of the path behind the unit is no longer watched, so an
    /// index behind the last one reported (or stepped to with [`PathService::step`]) is
    /// refused. O(1), as [`PathService::step`].
    ///
    /// # Errors
    /// [`ServiceError::UnknownTicket`], [`ServiceError::NoPath`] for a ticket holding no
    /// path, [`ServiceError::IndexOutOfRange`] for an index past the path's end,
    /// [`ServiceError::IndexBehind`] for one behind the unit's progress.
    pub fn advance(&mut self, ticket: Ticket, index: usize) -> Result<(), ServiceError> {
        let walk = (self.tickets.hot_mut(ticket)).ok_or(ServiceError::UnknownTicket { ticket })?;
        if !walk.holds_path {
            return Err(ServiceError::NoPath { ticket });
        }
        if index >= walk.len {
            return Err(ServiceError::IndexOutOfRange {
                ticket,
                index,
                len: walk.len,
            });
        }
        if index < walk.progress {
            return Err(ServiceError::IndexBehind {
                ticket,
                index,
                progress: walk.progress,
            });
        }
        // The cost walked is summed by the sweep, when an edit frees ground.
        walk.skip_to(index);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record of a unit at the start of the path `cells`, with nothing packed yet.
    fn at_start(cells: &[Cell]) -> Walk {
        Walk {
            holds_path: true,
            packed: 0,
            progress: 0,
            len: cells.len(),
            here: Cell::new(0, 0),
            moves: 0,
        }
    }

    /// Walks `walk` to the end of `cells` as `step` does (popping packed moves, packing
    /// again when they run out), checking each position against the cells.
    fn walk_to_the_end(walk: &mut Walk, cells: &[Cell]) {
        while walk.progress + 1 < cells.len() {
            let next = if walk.packed > 0 {
                walk.pop()
            } else {
                walk.step_from(cells).expect("not at the end")
            };
            assert_eq!(next, cells[walk.progress], "at {}", walk.progress);
            if walk.packed > 0 {
                assert_eq!(walk.here, next);
            }
        }
    }

    /// A path from `start` by the moves `(dx, dy)`.
    fn path(start: Cell, moves: &[(i32, i32)]) -> Vec<Cell> {
        let mut cells = vec![start];
        for &(dx, dy) in moves {
            let at = cells[cells.len() - 1];
            cells.push(Cell::new(
                at.x.checked_add_signed(dx).unwrap(),
                at.y.checked_add_signed(dy).unwrap(),
            ));
        }
        cells
    }

    #[test]
    fn every_direction_packs_and_pops_back() {
        let directions: Vec<(i32, i32)> = (-1..=1)
            .flat_map(|dx| (-1..=1).map(move |dy| (dx, dy)))
            .filter(|&d| d != (0, 0))
            .collect();
        // They sum to no move. From (3, 3) the walk reaches x 0: no move may wrap.
        for start in [Cell::new(3, 3), Cell::new(9, 5)] {
            let cells = path(start, &directions);
            let mut walk = at_start(&cells);
            walk.pack(&cells);
            assert_eq!((walk.packed, walk.here), (8, start));
            walk_to_the_end(&mut walk, &cells);
            assert_eq!(walk.here, start, "the moves go round");
        }
    }

    #[test]
    fn sixteen_moves_are_packed_then_the_next_ones() {
        let moves: Vec<(i32, i32)> = (0..40).map(|i| [(1, 0), (1, 1), (0, 1)][i % 3]).collect();
        let cells = path(Cell::new(0, 0), &moves);
        let mut walk = at_start(&cells);
        walk.pack(&cells);
        assert_eq!(usize::from(walk.packed), PACKED_MOVES);
        assert_eq!(PACKED_MOVES, 16);
        for _ in 0..16 {
            walk.pop();
        }
        assert_eq!((walk.packed, walk.progress, walk.here), (0, 16, cells[16]));
        walk_to_the_end(&mut walk, &cells);
        assert_eq!(walk.progress, 40);
        // Near the end fewer moves are left than a u64 holds.
        let mut walk = at_start(&cells);
        walk.skip_to(35);
        walk.pack(&cells);
        assert_eq!(walk.packed, 5);
    }

    #[test]
    fn a_long_step_is_taken_from_the_cells() {
        // A step of three cells after two moves, then two more moves.
        let cells = vec![
            Cell::new(0, 0),
            Cell::new(1, 0),
            Cell::new(2, 1),
            Cell::new(5, 1),
            Cell::new(6, 1),
            Cell::new(6, 2),
        ];
        let mut walk = at_start(&cells);
        walk.pack(&cells);
        assert_eq!(walk.packed, 2, "packing stops before the long step");
        assert_eq!(walk.pop(), cells[1]);
        assert_eq!(walk.pop(), cells[2]);
        assert_eq!(walk.step_from(&cells), Some(cells[3]), "unpacked");
        assert_eq!((walk.packed, walk.progress), (0, 3));
        assert_eq!(walk.step_from(&cells), Some(cells[4]), "packed again");
        assert_eq!(walk.packed, 1);
        assert_eq!(walk.pop(), cells[5]);
    }

    #[test]
    fn skip_to_pops_what_is_packed_and_drops_the_rest() {
        let moves: Vec<(i32, i32)> = (0..30).map(|i| [(1, 1), (1, 0)][i % 2]).collect();
        let cells = path(Cell::new(0, 0), &moves);
        // Within the packed moves: they are popped, and the walk goes on from there.
        let mut walk = at_start(&cells);
        walk.pack(&cells);
        walk.skip_to(5);
        assert_eq!((walk.packed, walk.progress, walk.here), (11, 5, cells[5]));
        walk.skip_to(5);
        assert_eq!((walk.packed, walk.progress), (11, 5), "no move");
        walk_to_the_end(&mut walk, &cells);
        // Past them (a jump of more than 16): dropped, packed again from the cells.
        let mut walk = at_start(&cells);
        walk.pack(&cells);
        walk.skip_to(20);
        assert_eq!((walk.packed, walk.progress), (0, 20));
        walk_to_the_end(&mut walk, &cells);
        // With nothing packed, any jump drops.
        let mut walk = at_start(&cells);
        walk.skip_to(1);
        assert_eq!((walk.packed, walk.progress), (0, 1));
        walk_to_the_end(&mut walk, &cells);
    }
}
