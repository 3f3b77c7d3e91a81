//! Flow fields: every open position's distance to one goal, and the step to take from it,
//! so that a whole group can walk to one place on the work of a single search.
//!
//! ## Why the field is exact
//! On a map whose gates are every legal crossing between free leaves (exact mode,
//! [`GatePolicy::All`](crate::GatePolicy::All)), one backward Dijkstra from the goal over
//! the gate graph gives every gate its true distance to the goal, for the reason exact
//! mode is optimal: an optimal route splits into straight runs inside obstacle-free
//! leaves joined by single legal steps, all of which the graph holds. A position `p` in a
//! free leaf `L` is then reached last through one of `L`'s gates (every legal step into
//! `L` lands on one), after which the route stays inside the rectangle, where the octile
//! distance is the true one; so `distance(p)` is the minimum over `L`'s gates `g` of
//! `distance(g) + octile(g, p)`, or the octile distance to the part of the goal inside
//! `L`. That minimum is worked out for a whole leaf at once, the first time a position in
//! it is asked about, by a two-pass sweep over the rectangle (any octile route inside an
//! open rectangle can be ordered so that a forward raster pass carries its first part and
//! a backward pass the rest) and kept.
//!
//! A map with sparse gates (fast mode) does not hold every crossing, so gate distances
//! there would only be upper bounds. Its field is instead one Dijkstra over every open
//! position, computed at once: as exact, but eager and 8 bytes per cell of the map.
//!
//! `next_step` moves to the neighbour that minimises its distance plus the step; the
//! distance strictly falls with every step, so following it reaches the goal along a
//! route of exactly the field's distance.

//! ## Sliced builds
//! The backward Dijkstra can stop after any node and go on later
//! (`FieldBuild`, crate-internal, what the path service runs a frame budget at a time); its
//! work is counted in settled nodes, the units of a search's expansions.
//!
//! ## Bounded fields
//! A build may be bounded by target positions (the path service's groups): it stops once
//! every gate of each target's leaf is settled (every target cell, on a map with sparse
//! gates). The distances of such a field are exact wherever a walk from a target goes:
//! every stored distance is the length of a real route (an upper bound), Dijkstra settles
//! in order of distance, so every gate at most the last settled distance `D` away is exact,
//! and so is every position whose distance is at most `D` (its optimal route enters its
//! leaf last through such a gate). A target's own leaf has all its gates settled, so its
//! positions are exact; the step out of the leaf lands on a settled gate, and every later
//! position is no farther than that gate. `next_step` picks the neighbour minimising
//! distance plus step; an upper bound can only lose that comparison, so the walk follows an
//! optimal route. Positions outside the covered part are never read as answers: the
//! service asks `covers` before reusing a bounded field for a new start.
//!
mod error;
mod field;
mod solve;
#[cfg(test)]
pub(crate) mod tests;

pub use error::FlowError;
pub(crate) use field::FieldBuild;
pub use field::{FlowField, FlowGoal};
