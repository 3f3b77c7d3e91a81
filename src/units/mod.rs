//! A spatial index for moving units: axis-aligned boxes in `f32` world coordinates, moved
//! every frame, asked for boxes, circles, nearest neighbours within a radius and every
//! overlapping pair.
//!
//! - [`UnitIndex`]: the units and their edits ([`insert`](UnitIndex::insert),
//!   [`insert_with_id`](UnitIndex::insert_with_id), [`remove`](UnitIndex::remove),
//!   [`update`](UnitIndex::update), [`rebuild`](UnitIndex::rebuild),
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
//! Both store the units the same way: dense parallel arrays (box, id, cell, two list
//! links: 32 bytes a unit, plus 4 per id), one `u32` list head per cell, no pointers, no
//! allocation once grown. They differ in how a query finds cells. BENCHMARKS.md ("Unit
//! index") measures them on uniform crowds, clustered armies and a few huge units among
//! small ones; in short, the [`LooseGrid`] is the faster for crowds of similar small units,
//! and the [`LooseQuadtree`] keeps huge units cheap without any tuning, its cell bounds
//! being fixed rather than grown.
//!
//! ## Deferred work
//! A move that keeps a unit in its cell only writes its box; one that changes cells moves
//! it between two lists. Nothing is merged or shrunk on the way: [`UnitIndex::cleanup`],
//! called when the game has time, sorts the units by cell again (so queries walk memory in
//! order) and shrinks the loose grid's bounds. It never changes an answer.

mod error;
mod geom;
mod index;
mod layout;
mod loose_grid;
mod loose_quadtree;
mod query;
mod store;

pub use error::UnitError;
pub use geom::{Aabb, Circle, UnitId};
pub use index::UnitIndex;
pub use layout::{Layout, MAX_CELLS};
pub use loose_grid::LooseGrid;
pub use loose_quadtree::LooseQuadtree;
pub use store::MAX_UNIT_ID;
