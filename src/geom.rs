//! Small geometry vocabulary shared by every layer: cells, rectangles and directions. What
//! steps cost and which are legal is the movement model's business ([`crate::grid::movement`]).

use std::fmt;

/// A cell of the grid: `x` is the column, `y` the row, `(0, 0)` is the top-left cell.
///
/// ```
/// use quadpath::{Cell, Direction};
/// let c = Cell::new(3, 4);
/// assert_eq!((c.x, c.y), (3, 4));
/// assert_eq!(c.step(Direction::NE), Some(Cell::new(4, 3)));
/// assert_eq!(Cell::new(0, 0).step(Direction::N), None, "off the top edge");
/// assert_eq!(Cell::from((3, 4)), c);
/// assert_eq!(c.to_string(), "3,4");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Cell {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
}

impl Cell {
    /// The cell at column `x`, row `y`.
    #[inline]
    pub const fn new(x: u32, y: u32) -> Self {
        Cell { x, y }
    }

    /// The neighbouring cell one step in `dir`, or `None` when that would leave the
    /// non-negative quadrant. (Callers check the upper bounds against their grid.)
    #[inline]
    pub fn step(self, dir: Direction) -> Option<Cell> {
        let (dx, dy) = dir.delta();
        let x = self.x.checked_add_signed(dx)?;
        let y = self.y.checked_add_signed(dy)?;
        Some(Cell { x, y })
    }
}

impl From<(u32, u32)> for Cell {
    fn from((x, y): (u32, u32)) -> Self {
        Cell { x, y }
    }
}

impl From<Cell> for (u32, u32) {
    fn from(c: Cell) -> Self {
        (c.x, c.y)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

/// An axis-aligned rectangle of cells with inclusive corners `(x1, y1)`–`(x2, y2)`.
///
/// Inclusive corners are what a user means by "from cell a to cell b", and they cannot
/// describe an empty rectangle by accident.
///
/// ```
/// use quadpath::{Cell, Rect};
/// let barracks = Rect::new(5, 3, 2, 2); // corners in any order
/// assert_eq!(barracks, Rect::from_size(2, 2, 4, 2)?);
/// assert_eq!((barracks.width(), barracks.height(), barracks.area()), (4, 2, 8));
/// assert!(barracks.contains(Cell::new(5, 3)));
/// let overlap = barracks.intersection(&Rect::new(4, 0, 9, 2));
/// assert_eq!(overlap, Some(Rect::new(4, 2, 5, 2)));
/// assert_eq!(barracks.cells().count(), 8);
/// # Ok::<(), quadpath::RectError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rect {
    /// Left column.
    pub x1: u32,
    /// Top row.
    pub y1: u32,
    /// Right column (inclusive).
    pub x2: u32,
    /// Bottom row (inclusive).
    pub y2: u32,
}

impl Rect {
    /// The rectangle with inclusive corners `(x1, y1)` and `(x2, y2)`, which may be given in
    /// any order.
    #[inline]
    pub fn new(x1: u32, y1: u32, x2: u32, y2: u32) -> Self {
        Rect {
            x1: x1.min(x2),
            y1: y1.min(y2),
            x2: x1.max(x2),
            y2: y1.max(y2),
        }
    }

    /// The smallest rectangle holding every one of `cells`, worked out cell by cell: the
    /// tests' oracle of the boxes the search and the service work out from a route's
    /// waypoints. Panics on no cells.
    #[cfg(test)]
    pub(crate) fn around(cells: &[Cell]) -> Rect {
        let (first, rest) = cells.split_first().expect("at least one cell");
        rest.iter()
            .fold(Rect::new(first.x, first.y, first.x, first.y), |r, c| {
                Rect::new(r.x1.min(c.x), r.y1.min(c.y), r.x2.max(c.x), r.y2.max(c.y))
            })
    }

    /// The rectangle `w` cells wide and `h` high whose top-left cell is `(x, y)`.
    ///
    /// ```
    /// use quadpath::{Rect, RectError};
    /// assert_eq!(Rect::from_size(2, 3, 4, 1), Ok(Rect::new(2, 3, 5, 3)));
    /// assert!(matches!(Rect::from_size(2, 3, 0, 5), Err(RectError::Empty { .. })));
    /// assert!(matches!(Rect::from_size(u32::MAX, 0, 2, 1), Err(RectError::TooLarge { .. })));
    /// ```
    ///
    /// # Errors
    /// [`RectError::Empty`] when a side is zero (a rectangle always holds a cell), and
    /// [`RectError::TooLarge`] when the far corner would lie past `u32::MAX`.
    #[inline]
    pub fn from_size(x: u32, y: u32, w: u32, h: u32) -> Result<Self, RectError> {
        if w == 0 || h == 0 {
            return Err(RectError::Empty { x, y, w, h });
        }
        match (x.checked_add(w - 1), y.checked_add(h - 1)) {
            (Some(x2), Some(y2)) => Ok(Rect {
                x1: x,
                y1: y,
                x2,
                y2,
            }),
            _ => Err(RectError::TooLarge { x, y, w, h }),
        }
    }

    /// Width in cells.
    #[inline]
    pub fn width(&self) -> u32 {
        self.x2 - self.x1 + 1
    }

    /// Height in cells.
    #[inline]
    pub fn height(&self) -> u32 {
        self.y2 - self.y1 + 1
    }

    /// Number of cells.
    #[inline]
    pub fn area(&self) -> u64 {
        self.width() as u64 * self.height() as u64
    }

    /// Whether `c` lies inside.
    #[inline]
    pub fn contains(&self, c: Cell) -> bool {
        c.x >= self.x1 && c.x <= self.x2 && c.y >= self.y1 && c.y <= self.y2
    }

    /// Whether the two rectangles share at least one cell.
    #[inline]
    pub fn intersects(&self, o: &Rect) -> bool {
        self.x1 <= o.x2 && o.x1 <= self.x2 && self.y1 <= o.y2 && o.y1 <= self.y2
    }

    /// The cells shared by both rectangles, if any.
    #[inline]
    pub fn intersection(&self, o: &Rect) -> Option<Rect> {
        self.intersects(o).then(|| Rect {
            x1: self.x1.max(o.x1),
            y1: self.y1.max(o.y1),
            x2: self.x2.min(o.x2),
            y2: self.y2.min(o.y2),
        })
    }

    /// Iterates over the cells row by row.
    pub fn cells(self) -> impl Iterator<Item = Cell> {
        (self.y1..=self.y2).flat_map(move |y| (self.x1..=self.x2).map(move |x| Cell { x, y }))
    }
}

/// Why [`Rect::from_size`] refused a size.
///
/// ```
/// use quadpath::{Grid, HpaMap, Mode, Rect, RectError};
/// let mut map = HpaMap::new(Grid::new_free(16, 16), Mode::Exact)?;
/// // A building whose size comes from a data file that says 0 wide.
/// match Rect::from_size(4, 4, 0, 3) {
///     Ok(footprint) => {
///         map.set_blocked(footprint, true)?;
///     }
///     Err(RectError::Empty { w, h, .. }) => assert_eq!((w, h), (0, 3)),
///     Err(other) => panic!("expected an empty rectangle, got {other}"),
/// }
/// assert_eq!(map.grid().free_count(), 16 * 16, "nothing was placed");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RectError {
    /// A side is zero: the rectangle would hold no cell.
    #[error("a {w}x{h} rectangle at ({x},{y}) is empty: both sides must be at least 1")]
    Empty {
        /// Left column asked for.
        x: u32,
        /// Top row asked for.
        y: u32,
        /// Width asked for.
        w: u32,
        /// Height asked for.
        h: u32,
    },
    /// The far corner would lie past the largest coordinate, `u32::MAX`.
    #[error("a {w}x{h} rectangle at ({x},{y}) reaches past coordinate {max}", max = u32::MAX)]
    TooLarge {
        /// Left column asked for.
        x: u32,
        /// Top row asked for.
        y: u32,
        /// Width asked for.
        w: u32,
        /// Height asked for.
        h: u32,
    },
}

/// A cell as the 1×1 rectangle it covers, so that every edit taking an area
/// (`impl Into<Rect>`) takes a single cell as well.
///
/// ```
/// use quadpath::{Cell, Rect};
/// assert_eq!(Rect::from(Cell::new(3, 4)), Rect::new(3, 4, 3, 4));
/// ```
impl From<Cell> for Rect {
    fn from(c: Cell) -> Self {
        Rect {
            x1: c.x,
            y1: c.y,
            x2: c.x,
            y2: c.y,
        }
    }
}

impl fmt::Display for Rect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})-({},{})", self.x1, self.y1, self.x2, self.y2)
    }
}

/// One of the 8 compass directions. North is up (decreasing `y`).
///
/// ```
/// use quadpath::{Cell, Direction};
/// let (a, b) = (Cell::new(2, 2), Cell::new(3, 1));
/// assert_eq!(Direction::between(a, b), Some(Direction::NE));
/// assert_eq!(Direction::NE.delta(), (1, -1), "north is up");
/// assert!(Direction::NE.is_diagonal());
/// assert_eq!(b.step(Direction::NE.opposite()), Some(a));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Up: `y - 1`.
    N,
    /// Up and right.
    NE,
    /// Right: `x + 1`.
    E,
    /// Down and right.
    SE,
    /// Down: `y + 1`.
    S,
    /// Down and left.
    SW,
    /// Left: `x - 1`.
    W,
    /// Up and left.
    NW,
}

impl Direction {
    /// All eight directions, clockwise from north.
    pub const ALL: [Direction; 8] = [
        Direction::N,
        Direction::NE,
        Direction::E,
        Direction::SE,
        Direction::S,
        Direction::SW,
        Direction::W,
        Direction::NW,
    ];

    /// The four side (orthogonal) directions.
    pub const SIDES: [Direction; 4] = [Direction::N, Direction::E, Direction::S, Direction::W];

    /// The four diagonal directions.
    pub const DIAGONALS: [Direction; 4] =
        [Direction::NE, Direction::SE, Direction::SW, Direction::NW];

    /// The `(dx, dy)` of one step.
    #[inline]
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Direction::N => (0, -1),
            Direction::NE => (1, -1),
            Direction::E => (1, 0),
            Direction::SE => (1, 1),
            Direction::S => (0, 1),
            Direction::SW => (-1, 1),
            Direction::W => (-1, 0),
            Direction::NW => (-1, -1),
        }
    }

    /// Whether this is a diagonal direction.
    #[inline]
    pub const fn is_diagonal(self) -> bool {
        matches!(
            self,
            Direction::NE | Direction::SE | Direction::SW | Direction::NW
        )
    }

    /// The opposite direction.
    #[inline]
    pub const fn opposite(self) -> Direction {
        match self {
            Direction::N => Direction::S,
            Direction::NE => Direction::SW,
            Direction::E => Direction::W,
            Direction::SE => Direction::NW,
            Direction::S => Direction::N,
            Direction::SW => Direction::NE,
            Direction::W => Direction::E,
            Direction::NW => Direction::SE,
        }
    }

    /// The direction of a single step from `a` to `b`, if they are 8-neighbours.
    #[inline]
    pub fn between(a: Cell, b: Cell) -> Option<Direction> {
        let dx = b.x as i64 - a.x as i64;
        let dy = b.y as i64 - a.y as i64;
        Direction::ALL.into_iter().find(|d| {
            let (ex, ey) = d.delta();
            ex as i64 == dx && ey as i64 == dy
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_round_trip() {
        for d in Direction::ALL {
            let c = Cell::new(5, 5);
            let n = c.step(d).unwrap();
            assert_eq!(Direction::between(c, n), Some(d));
            assert_eq!(n.step(d.opposite()), Some(c));
        }
        assert_eq!(Cell::new(0, 0).step(Direction::W), None);
    }

    #[test]
    fn rect_geometry() {
        let r = Rect::new(5, 7, 2, 3);
        assert_eq!((r.x1, r.y1, r.x2, r.y2), (2, 3, 5, 7));
        assert_eq!((r.width(), r.height(), r.area()), (4, 5, 20));
        assert_eq!(r.cells().count(), 20);
        assert_eq!(
            r.intersection(&Rect::new(4, 0, 9, 3)),
            Some(Rect::new(4, 3, 5, 3))
        );
        assert!(r.intersection(&Rect::new(6, 0, 9, 9)).is_none());
    }
}
