//! The short-move search (fast mode): A\* over the cells of a window around the start,
//! with the proof of when its path is cheapest on the whole map.

use super::{note, note_expansion, offer, take, NodeState, SearchContext, NO_PARENT};
use crate::geom::{Cell, Direction};
use crate::grid::movement::{octile, step_cost};
use crate::grid::Grid;
use crate::hpa::costs::CostBands;
use crate::hpa::trace::{NodeSpace, Recorder, TraceKind, Traced, Untraced};

impl SearchContext {
    /// The short-move search (see [`Config::local_radius`](crate::hpa::Config::local_radius)):
    /// A\* over the grid's cells of the (2R+1)² window around `start`, for a `goal` at most
    /// R away (octile distance; farther, no path of length at most R reaches it, and this
    /// returns `None`). Returns the cells of a cheapest path inside the window, with
    /// whether it is proved cheapest on the whole map, or `None` when no path inside the
    /// window reaches the goal.
    ///
    /// Why a path of the window can be optimal on the whole map: a path whose length is
    /// at most R moves at most R cells in each axis, so it never leaves the window. Hence
    /// whenever some optimal path has length at most R, the window's cheapest path is
    /// optimal, *whatever the terrain costs*: the window bounds length, not cost. The caller
    /// cannot know that optimal length in advance, so it keeps this path when it is proved
    /// optimal, and otherwise takes the cheaper of it and the gate search's answer, which
    /// is then optimal for every move of optimal length at most R.
    ///
    /// The proof: every step from a cell `u` of the window to a cell `o` outside it is
    /// recorded with `g(u) + cost(u, o) + h(o)` (`h`, the octile distance times the
    /// cheapest cost, never overestimates and is consistent), the least cost any path
    /// leaving the window over that step can have. When the goal pops at cost `C` and no
    /// such escape recorded so far is below `C`, the path is optimal on the whole map: a
    /// path leaving the window leaves over a step from a window cell `u`; if `u` was
    /// expanded, its escape was recorded (or is recorded later at an `f` of at least `C`,
    /// as `f` only grows along the pops), and if not, `g(u) + h(u) ≥ C` already.
    ///
    /// Steps are the grid's own ([`Grid::can_step`]): no second statement of the corner
    /// rule. Nothing is allocated but the returned path once the table has grown.
    pub(crate) fn search_local(
        &mut self,
        grid: &Grid,
        costs: &CostBands,
        ends: (Cell, Cell),
        radius: u32,
    ) -> Option<(Vec<Cell>, bool)> {
        with_recorder!(self.search_local_as(grid, costs, ends, radius))
    }

    /// [`SearchContext::search_local`] with recorder `R`.
    fn search_local_as<R: Recorder>(
        &mut self,
        grid: &Grid,
        costs: &CostBands,
        (start, goal): (Cell, Cell),
        radius: u32,
    ) -> Option<(Vec<Cell>, bool)> {
        let floor = costs.floor();
        if radius == 0 || octile(start, goal) > radius as f64 + 1e-9 {
            return None;
        }
        let unit = costs.is_unit();
        let side = 2 * radius as usize + 1;
        if self.window.len() < side * side {
            self.window.resize(side * side, NodeState::default());
        }
        self.next_query();
        // Table slot of a cell, by its offset from the window's corner, and back.
        let (x0, y0) = (
            start.x as i64 - radius as i64,
            start.y as i64 - radius as i64,
        );
        let inside = |c: Cell| {
            let (dx, dy) = (c.x as i64 - x0, c.y as i64 - y0);
            (0..side as i64).contains(&dx) && (0..side as i64).contains(&dy)
        };
        let slot = |c: Cell| {
            let (dx, dy) = (c.x as i64 - x0, c.y as i64 - y0);
            debug_assert!(inside(c));
            (dy as usize * side + dx as usize) as u32
        };
        let cell = |i: u32| {
            let i = i as usize;
            Cell::new(
                (x0 + (i % side) as i64) as u32,
                (y0 + (i / side) as i64) as u32,
            )
        };
        let target = slot(goal);
        self.space = NodeSpace::Window {
            x0,
            y0,
            side: side as u32,
        };
        // The least cost a path leaving the window over the steps seen so far can have.
        let mut escape = f64::INFINITY;
        let (states, open, query) = (&mut self.window, &mut self.open, self.query);
        let trace = &mut self.trace;
        let h0 = octile(start, goal) * floor;
        offer((states, open, query), slot(start), (0.0, NO_PARENT), || h0);
        note::<R>(trace, TraceKind::Generated, slot(start), NO_PARENT, 0.0, h0);
        while let Some((i, g, p)) = take(states, open, query) {
            if i == target {
                let mut path = vec![goal];
                let mut v = states[i as usize].parent;
                while v != NO_PARENT {
                    path.push(cell(v));
                    v = states[v as usize].parent;
                }
                path.reverse();
                return Some((path, g <= escape));
            }
            self.expanded += 1;
            note_expansion::<R>(trace, i, p, g);
            let here = cell(i);
            for dir in Direction::ALL {
                let next = match here.step(dir) {
                    Some(next) if grid.can_step(here, dir) => next,
                    _ => continue,
                };
                let step = if unit {
                    step_cost(dir)
                } else {
                    costs.table().cost_between(grid, here, next)
                };
                let (g_next, h) = (g + step, octile(next, goal) * floor);
                if inside(next) {
                    if let Some((kind, f)) =
                        offer((states, open, query), slot(next), (g_next, i), || h)
                    {
                        note::<R>(trace, kind, slot(next), i, g_next, f);
                    }
                } else {
                    escape = escape.min(g_next + h);
                }
            }
        }
        None
    }
}
