//! String-pulling along a delivered path: the farthest position ahead in a straight,
//! walkable line.

use super::{PathService, ServiceError, TicketState};
use crate::geom::Cell;
use crate::hpa::line_is_clear;
use crate::world::World;

/// How far ahead along the path a waypoint may lie, in positions.
const LOOKAHEAD: usize = 32;

impl PathService {
    /// The position a unit at `position` on `ticket`'s path should steer toward: the
    /// farthest position of the path ahead of it (up to 32 positions on) that the
    /// straight line reaches over open positions of the class with legal steps only (the
    /// footprint and the corner rule), or the next position when no farther one is in
    /// sight. `None` at the end of the path. A position off the path is looked up from the
    /// progress last reported with [`PathService::advance`] (or stepped to with
    /// [`PathService::step`]).
    ///
    /// ```
    /// use quadpath::service::{Budget, PathService, RequestOptions};
    /// use quadpath::units::UnitId;
    /// use quadpath::{Cell, Grid, Mode, Movement, World};
    /// let mut world = World::new(Grid::new_free(40, 10));
    /// let tank = world.add_class(Movement::default().with_size(2)?, Mode::Exact)?;
    /// let mut service = PathService::new(&world);
    /// let t = service.request(&world, tank, UnitId::new(0), Cell::new(0, 0), Cell::new(30, 7), RequestOptions::default())?;
    /// service.tick(&world, Budget::Expansions(1000))?;
    /// let next = service.next_waypoint(&world, t, Cell::new(0, 0))?;
    /// assert!(next.is_some_and(|c| c.x >= 20), "open ground: far ahead in one line");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ServiceError::UnknownTicket`] and [`ServiceError::NoPath`] (a ticket holding no
    /// valid path: pending, failed, invalidated).
    pub fn next_waypoint(
        &self,
        world: &World,
        ticket: Ticket,
        position: Cell,
    ) -> Result<Option<Cell>, ServiceError> {
        let (walk, state) = self
            .tickets
            .parts(ticket)
            .ok_or(ServiceError::UnknownTicket { ticket })?;
        let progress = walk.progress;
        let TicketState::Done {
            request, outcome, ..
        } = state
        else {
            return Err(ServiceError::NoPath { ticket });
        };
        let path = outcome.path().ok_or(ServiceError::NoPath { ticket })?;
        let layer = world
            .layer(request.class)
            .ok_or(ServiceError::NoPath { ticket })?;
        let cells = &path.cells;
        let here = cells[progress..]
            .iter()
            .position(|&c| c == position)
            .map_or(progress, |i| i + progress);
        if here + 1 >= cells.len() {
            return Ok(None);
        }
        let from = cells[here];
        let last = (here + LOOKAHEAD).min(cells.len() - 1);
        let seen = (here + 2..=last)
            .rev()
            .find(|&j| line_is_clear(layer.grid(), from, cells[j]))
            .unwrap_or(here + 1);
        Ok(Some(cells[seen]))
    }
}

use super::types::Ticket;
