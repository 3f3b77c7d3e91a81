//! A cell-grid region quadtree with packed IDs, canonical split/merge and neighbour queries.
//!
//! - [`NodeId`] and [`Shape`]: how a node's `(depth, column, row)` is packed into a `u64` and
//!   what cells it covers (at depth `d`, exactly the cells `(x, y)` with
//!   `floor(x·2^d / W) = column` and `floor(y·2^d / H) = row`);
//! - [`SplitStopper`]: the rule that decides which nodes stay leaves;
//! - [`QuadTree`]: storage, bulk build, edits and the [`LeafChange`] feed;
//! - queries live on [`QuadTree`] too: [`QuadTree::find`], ranges, covering nodes and
//!   [`QuadTree::neighbours`] in the 8 directions.

mod counted;
mod estimate;
mod id;
mod node;
mod query;
mod stopper;
mod table;
mod tree;

pub(crate) use counted::{counted_build_fits, CellCounts};
pub use id::{ChildIds, NodeId, Shape, MAX_SIDE};
pub use node::Objects;
pub use query::NodeRef;
pub use stopper::SplitStopper;
pub use tree::{LeafChange, QuadTree};

use crate::geom::Cell;

/// What can go wrong when building or querying a tree.
///
/// ```
/// use quadpath::quadtree::{QuadTree, QuadtreeError, SplitStopper};
/// use quadpath::Cell;
/// let mut tree: QuadTree<u8> = QuadTree::new(16, 16, SplitStopper::max_objects(1))?;
/// let off_grid = tree.add(Cell::new(16, 3), 1);
/// assert!(matches!(off_grid, Err(QuadtreeError::OutOfBounds { width: 16, .. })));
/// let empty = QuadTree::<u8>::new(0, 16, SplitStopper::uniform());
/// assert!(matches!(empty, Err(QuadtreeError::BadSize { width: 0, height: 16 })));
/// # Ok::<(), QuadtreeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuadtreeError {
    /// A cell is outside the grid. Every cell the API accepts is a [`Cell`] of `u32`
    /// coordinates, so only too-large columns or rows can get here, never negative ones.
    #[error("cell ({cell}) is outside the {width}x{height} grid")]
    OutOfBounds {
        /// The cell asked for.
        cell: Cell,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// The grid is empty or too large to index with 29-bit node coordinates.
    #[error("a {width}x{height} grid cannot be indexed: each side must be between 1 and {max}", max = MAX_SIDE)]
    BadSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
}
