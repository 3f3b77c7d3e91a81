//! # quadpath
//!
//! Pathfinding on grid maps for real-time strategy games and anything else that moves
//! agents over tiles: a region quadtree of all-free and all-blocked leaves, hierarchical A\*
//! (HPA\*) over the gates between free leaves, and incremental updates when walls and
//! buildings come and go.
//!
//! ```
//! use quadpath::{Cell, Grid, HpaMap, Mode, Rect};
//!
//! // A 64×48 map with a wall down the middle and a gap at the bottom.
//! let grid = Grid::from_fn(64, 48, |x, y| !(x == 32 && y < 40));
//! let mut map = HpaMap::new(grid, Mode::Exact)?;
//!
//! let path = map.find_path(Cell::new(4, 4), Cell::new(60, 4))?;
//! assert_eq!(path.cells.first(), Some(&Cell::new(4, 4)));
//! println!("{} cells, length {:.2}", path.cells.len(), path.length);
//!
//! // A building goes up in the gap: the two halves are cut apart.
//! map.set_rect_blocked(Rect::new(30, 40, 35, 47), true)?;
//! assert!(matches!(
//!     map.find_path(Cell::new(4, 4), Cell::new(60, 4)),
//!     Err(quadpath::PathError::Unreachable { .. })
//! ));
//! # Ok::<(), quadpath::PathError>(())
//! ```
//!
//! ## Layers
//! - [`quadtree`]: the cell-grid quadtree: packed node IDs, a pluggable split stopper,
//!   canonical split and merge on every edit, range and 8-direction neighbour queries.
//! - [`grid`] and [`io`]: the [`Grid`] of terrain, obstructions and the free cells they
//!   leave, the movement model ([`grid::movement`]), Moving AI `.map`/`.scen` files,
//!   obstacle bitmaps with colour legends, and PNG renders.
//! - [`hpa`]: gates, the gate graph, clusters, search, refinement and smoothing, and the
//!   [`HpaMap`] that keeps them up to date under edits.
//! - [`baseline`]: plain grid A\* from the `pathfinding` crate, the yardstick.
//!
//! ## Conventions
//! `x` is the column and `y` the row; `(0, 0)` is the top-left cell. Movement is
//! 8-connected: a straight step costs 1 and a diagonal step √2, and a diagonal step is legal
//! only when both cells beside it are free (no corner cutting). Distances are octile. The
//! rules are stated once, in [`grid::movement`].
//!
//! ## Why exact mode is exact
//! A free leaf is an obstacle-free rectangle, so between two of its cells the octile
//! distance is the true distance. An optimal path splits into runs inside leaves joined by
//! single legal steps from one leaf into the next; with every such crossing as a gate pair,
//! the gate graph holds an optimal path, diagonal crossings along sides included.

#![warn(missing_docs)]

pub mod baseline;
pub mod geom;
pub mod grid;
pub mod hpa;
pub mod io;
pub mod quadtree;

pub use geom::{Cell, Direction, Rect};
pub use grid::movement::octile;
pub use grid::{Grid, Movement, TerrainSet};
pub use hpa::{Config, GatePolicy, HpaMap, Mode, Path, PathError, SearchContext};

/// Compiles the README's Rust examples as doctests, so that they cannot rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
