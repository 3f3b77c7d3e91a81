//! [`Terrain`]: what a cell is made of, as a one-byte code.

use std::fmt;

/// The terrain of a cell: a one-byte code, by convention the Moving AI `.map` character
/// (`.` ground, `@` wall, `T` trees, `W` water, …) or, for obstacle bitmaps, the code a
/// colour legend gives a colour. Which codes a unit may stand on is a [`TerrainSet`], and
/// what each costs a [`TerrainCosts`] table; the code itself means nothing else.
///
/// It converts from and compares with the byte, so a code can be written as a byte
/// literal wherever a `Terrain` is taken (`map.set_terrain(cell, b'W')`), and it prints as
/// its character.
///
/// [`TerrainSet`]: crate::TerrainSet
/// [`TerrainCosts`]: crate::TerrainCosts
///
/// ```
/// use quadpath::{Cell, Grid, Terrain};
/// let mut grid = Grid::new_free(4, 1);
/// grid.set_terrain(Cell::new(1, 0), Terrain::WATER);
/// grid.set_terrain(Cell::new(2, 0), b'G');
/// assert_eq!(grid.terrain(Cell::new(0, 0)), Terrain::GROUND);
/// assert_eq!(grid.terrain(Cell::new(2, 0)), b'G');
/// assert_eq!(grid.terrain(Cell::new(1, 0)).to_string(), "W");
/// assert_eq!(u8::from(Terrain::WALL), b'@');
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Terrain(pub u8);

impl Terrain {
    /// Open ground, `.`: the terrain of the free cells of [`Grid::new_free`] and
    /// [`Grid::from_fn`], and of cells dug out by [`Grid::set_blocked`].
    ///
    /// [`Grid::new_free`]: crate::Grid::new_free
    /// [`Grid::from_fn`]: crate::Grid::from_fn
    /// [`Grid::set_blocked`]: crate::Grid::set_blocked
    pub const GROUND: Terrain = Terrain(b'.');
    /// A wall, `@`: the terrain of the blocked cells of [`Grid::from_fn`](crate::Grid::from_fn).
    pub const WALL: Terrain = Terrain(b'@');
    /// Trees, `T` (impassable in the Moving AI convention).
    pub const TREES: Terrain = Terrain(b'T');
    /// Swamp, `S` (passable in the Moving AI convention).
    pub const SWAMP: Terrain = Terrain(b'S');
    /// Water, `W` (impassable in the Moving AI convention).
    pub const WATER: Terrain = Terrain(b'W');

    /// The byte code.
    #[inline]
    pub const fn code(self) -> u8 {
        self.0
    }
}

impl From<u8> for Terrain {
    #[inline]
    fn from(code: u8) -> Self {
        Terrain(code)
    }
}

impl From<Terrain> for u8 {
    #[inline]
    fn from(terrain: Terrain) -> Self {
        terrain.0
    }
}

/// The code as a character (Latin-1, like `char::from(u8)`).
impl From<Terrain> for char {
    #[inline]
    fn from(terrain: Terrain) -> Self {
        char::from(terrain.0)
    }
}

impl PartialEq<u8> for Terrain {
    #[inline]
    fn eq(&self, code: &u8) -> bool {
        self.0 == *code
    }
}

impl PartialEq<Terrain> for u8 {
    #[inline]
    fn eq(&self, terrain: &Terrain) -> bool {
        *self == terrain.0
    }
}

/// The code as its character when it is printable ASCII, else as `\xNN`.
impl fmt::Display for Terrain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_ascii_graphic() || self.0 == b' ' {
            write!(f, "{}", self.0 as char)
        } else {
            write!(f, "\\x{:02x}", self.0)
        }
    }
}

impl fmt::Debug for Terrain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Terrain('{self}')")
    }
}
