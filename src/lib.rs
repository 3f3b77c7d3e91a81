pub mod baseline;
pub mod geom;
pub mod grid;
pub mod hpa;
pub mod io;
pub mod quadtree;

pub use geom::{octile, Cell, Direction, Rect};
pub use grid::Grid;
pub use hpa::{Config, GatePolicy, HpaMap, Mode, Path, PathError, SearchContext};
