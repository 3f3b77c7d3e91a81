//! A spatial index for moving units: axis-aligned boxes in `f32` world coordinates, moved
//! every frame, asked for boxes, circles, nearest neighbours within a radius and every
//! overlapping pair.
//!
//! - [`UnitIndex`]: the units and their edits ([`insert`](UnitIndex::insert),
//!   [`insert_with_id`](UnitIndex::insert_with_id), [`remove`](UnitIndex::remove),
//!   [`update`](UnitIndex::update), [`update_all`](UnitIndex::update_all),
//!   [`rebuild`](UnitIndex::rebuild),
//!   [`cleanup`](UnitIndex::cleanup)) and queries ([`query_box`](UnitIndex::query_box),
//!   [`query_circle`](UnitIndex::query_circle), [`nearest_within`](UnitIndex::nearest_within),
//!   [`for_each_pair`](UnitIndex::for_each_pair));
//! - two [`Layout`]s, which decide the cells units are filed under:
//!   [`LooseQuadtree`] (every level of a loose quadtree as a flat grid, a unit's level
//!   picked by its size) and [`LooseGrid`] (loose cells whose bounds grow to fit, listed in
//!   a coarse tight grid);
//! - [`Aabb`], [`Circle`], [`UnitId`] and [`UnitError`].
//!
//! ## Which layout
//! Both store the units the same way: one 32-byte slot per unit (box, id, cell, two list
//! links) in a dense array, a 4-byte id table, one `u32` list head per cell, no pointers and
//! no allocation once grown. They differ in how a query finds cells. `benches/units.rs`
//! measures them (BENCHMARKS.md, "Unit index") on uniform crowds, clustered armies and a few
//! huge units among small ones, and the [`LooseQuadtree`] wins everywhere: its frame takes
//! 1.8–2.3× less time than the [`LooseGrid`]'s on uniform crowds, 1.2–1.6× less on clustered
//! armies and 1.7–2.3× less with huge units (whose grown bounds make the grid's loose cells
//! overlap many tight ones), and it is 20% smaller (38 against 47 bytes a unit). Start with
//! the loose quadtree, finest cells about twice the common unit's size.
//!
//! When every unit moves every frame, use [`UnitIndex::update_all`]: it visits the units in
//! storage order (sorted by cell, near enough), asks the game for their new boxes a batch at
//! a time and moves each in place, so the index's own memory is read and written in order and
//! only the game's arrays are read by id. One [`UnitIndex::update`] per unit in the game's
//! order jumps through the whole store instead, and [`UnitIndex::rebuild`] scatters every unit
//! to a new slot: at a million units (`benches/units.rs`, shared machine) `update_all` took
//! 53–73 ms a frame against 143–270 for the updates and 80–136 for the rebuild. Units that
//! change cells stay where their slot was (linked into their new cell's list), so memory
//! order drifts from cell order, and the pair walk slows (twice as slow after 100 frames of
//! a freely drifting crowd of a million); `update_all` sorts again, with a
//! [`UnitIndex::cleanup`], once a quarter of the units are out of order.
//!
//! ## Deferred work
//! A move that keeps a unit in its cell only writes its box; one that changes cells moves
//! it between two lists (and a loose grid cell left empty drops its bounds). Nothing else
//! is merged or shrunk on the way: [`UnitIndex::cleanup`], called when the game has time,
//! sorts the units by cell again (so queries walk memory in order), shrinks the loose grid's
//! bounds and gives back buffer space the units held now do not need. It never changes an
//! answer. Memory stays bounded by cells and units between cleanups too ([`LooseGrid`]'s
//! docs give the bound).
//!
//! ## All pairs
//! [`UnitIndex::for_each_pair`] goes cell by cell: a cell's units and the units of later
//! cells that touch the union of their boxes are copied into a small structure-of-arrays
//! buffer (without a branch per unit: every box is written, only the kept ones counted) and
//! tested eight at a time, the buffer padded with empty boxes so that every batch is whole.
//! On clustered armies (`benches/units.rs`) this made the pair walk about twice as fast as
//! the unit-by-unit walk before it, and 0.5–0.65 times broccoli's.

mod error;
mod geom;
mod index;
mod layout;
mod loose_grid;
mod loose_quadtree;
mod occupancy;
mod pairs;
mod query;
mod store;

pub use error::UnitError;
pub use geom::{Aabb, Circle, UnitId};
pub use index::UnitIndex;
pub use layout::{Layout, MAX_CELLS};
pub use loose_grid::{LooseGrid, WIDE_SPAN};
pub use loose_quadtree::LooseQuadtree;
pub use occupancy::OccupiedCell;
pub use store::MAX_UNIT_ID;
