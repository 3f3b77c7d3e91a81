pub mod geom;
pub mod grid;
pub mod io;
pub mod quadtree;

pub use geom::{octile, Cell, Direction, Rect};
pub use grid::Grid;
