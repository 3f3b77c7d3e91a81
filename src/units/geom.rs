//! The shapes the unit index stores and answers about, and the ids it hands out.

use super::UnitError;
use std::fmt;

/// A unit's id: chosen by the caller ([`UnitIndex::insert_with_id`](super::UnitIndex::insert_with_id))
/// or handed out by the index ([`UnitIndex::insert`](super::UnitIndex::insert)).
///
/// Ids index a table inside the index (4 bytes per id up to the largest one in use), so keep
/// them dense, like entity indices. A removed id may be handed out again.
///
/// ```
/// use quadpath::units::UnitId;
///
/// let id = UnitId::new(7);
/// assert_eq!(id.index(), 7);
/// assert_eq!(id.to_string(), "unit 7");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnitId(u32);

impl UnitId {
    /// The id numbered `index`.
    ///
    /// ```
    /// # use quadpath::units::UnitId;
    /// assert_eq!(UnitId::new(3), UnitId::from(3));
    /// ```
    pub const fn new(index: u32) -> Self {
        Self(index)
    }

    /// The id's number, e.g. to index the caller's own unit table.
    ///
    /// ```
    /// # use quadpath::units::UnitId;
    /// let speeds = [1.0, 2.5];
    /// assert_eq!(speeds[UnitId::new(1).index()], 2.5);
    /// ```
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl From<u32> for UnitId {
    fn from(index: u32) -> Self {
        Self(index)
    }
}

impl fmt::Display for UnitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unit {}", self.0)
    }
}

/// An axis-aligned box in world coordinates (`f32`, `x` to the right and `y` down, as the
/// map's cells: a unit on cell `(x, y)` covers `x..x + 1`).
///
/// Boxes are closed: two boxes that only touch along an edge or at a corner overlap, and a
/// box of zero size is a point.
///
/// ```
/// use quadpath::units::Aabb;
///
/// let a = Aabb::new(0.0, 0.0, 2.0, 2.0);
/// let b = Aabb::from_centre(3.0, 1.0, 1.0, 0.5); // touches `a` along x = 2
/// assert!(a.intersects(&b));
/// assert_eq!(b.centre(), (3.0, 1.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Left edge.
    pub min_x: f32,
    /// Top edge.
    pub min_y: f32,
    /// Right edge.
    pub max_x: f32,
    /// Bottom edge.
    pub max_y: f32,
}

impl Aabb {
    /// The box from `(min_x, min_y)` to `(max_x, max_y)`. Not checked here: the index checks
    /// every box it is given and answers a [`UnitError`] for NaN, infinite or inverted ones.
    ///
    /// ```
    /// # use quadpath::units::Aabb;
    /// let b = Aabb::new(1.0, 2.0, 4.0, 3.0);
    /// assert_eq!((b.width(), b.height()), (3.0, 1.0));
    /// ```
    pub const fn new(min_x: f32, min_y: f32, max_x: f32, max_y: f32) -> Self {
        Self {
            min_x,
            min_y,
            max_x,
            max_y,
        }
    }

    /// The box centred on `(x, y)` reaching `half_width` left and right and `half_height` up
    /// and down.
    ///
    /// ```
    /// # use quadpath::units::Aabb;
    /// assert_eq!(Aabb::from_centre(5.0, 5.0, 1.0, 2.0), Aabb::new(4.0, 3.0, 6.0, 7.0));
    /// ```
    pub fn from_centre(x: f32, y: f32, half_width: f32, half_height: f32) -> Self {
        Self::new(
            x - half_width,
            y - half_height,
            x + half_width,
            y + half_height,
        )
    }

    /// Width (`max_x - min_x`).
    ///
    /// ```
    /// # use quadpath::units::Aabb;
    /// assert_eq!(Aabb::new(1.0, 0.0, 4.0, 1.0).width(), 3.0);
    /// ```
    pub fn width(&self) -> f32 {
        self.max_x - self.min_x
    }

    /// Height (`max_y - min_y`).
    ///
    /// ```
    /// # use quadpath::units::Aabb;
    /// assert_eq!(Aabb::new(1.0, 0.0, 4.0, 1.0).height(), 1.0);
    /// ```
    pub fn height(&self) -> f32 {
        self.max_y - self.min_y
    }

    /// The centre point.
    ///
    /// ```
    /// # use quadpath::units::Aabb;
    /// assert_eq!(Aabb::new(0.0, 0.0, 4.0, 2.0).centre(), (2.0, 1.0));
    /// ```
    pub fn centre(&self) -> (f32, f32) {
        (
            (self.min_x + self.max_x) * 0.5,
            (self.min_y + self.max_y) * 0.5,
        )
    }

    /// Whether the two (closed) boxes share at least a point.
    ///
    /// ```
    /// # use quadpath::units::Aabb;
    /// let a = Aabb::new(0.0, 0.0, 1.0, 1.0);
    /// assert!(a.intersects(&Aabb::new(1.0, 1.0, 2.0, 2.0)));
    /// assert!(!a.intersects(&Aabb::new(1.5, 0.0, 2.0, 1.0)));
    /// ```
    #[inline]
    pub fn intersects(&self, other: &Aabb) -> bool {
        self.min_x <= other.max_x
            && other.min_x <= self.max_x
            && self.min_y <= other.max_y
            && other.min_y <= self.max_y
    }

    /// Whether `other` lies wholly inside this box.
    ///
    /// ```
    /// # use quadpath::units::Aabb;
    /// let world = Aabb::new(0.0, 0.0, 10.0, 10.0);
    /// assert!(world.contains(&Aabb::new(0.0, 9.0, 1.0, 10.0)));
    /// assert!(!world.contains(&Aabb::new(9.5, 0.0, 10.5, 1.0)));
    /// ```
    #[inline]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min_x <= other.min_x
            && self.min_y <= other.min_y
            && other.max_x <= self.max_x
            && other.max_y <= self.max_y
    }

    /// The squared distance from `(x, y)` to the nearest point of the box (0 inside).
    /// Squared, so that comparisons need no square root.
    ///
    /// ```
    /// # use quadpath::units::Aabb;
    /// let b = Aabb::new(0.0, 0.0, 1.0, 1.0);
    /// assert_eq!(b.distance_squared_to(4.0, 5.0), 3.0 * 3.0 + 4.0 * 4.0);
    /// assert_eq!(b.distance_squared_to(0.5, 0.5), 0.0);
    /// ```
    #[inline]
    pub fn distance_squared_to(&self, x: f32, y: f32) -> f32 {
        let dx = (self.min_x - x).max(x - self.max_x).max(0.0);
        let dy = (self.min_y - y).max(y - self.max_y).max(0.0);
        dx * dx + dy * dy
    }

    /// The smallest box holding both.
    pub(crate) fn union(&self, other: &Aabb) -> Aabb {
        Aabb::new(
            self.min_x.min(other.min_x),
            self.min_y.min(other.min_y),
            self.max_x.max(other.max_x),
            self.max_y.max(other.max_y),
        )
    }

    /// A box that contains nothing and grows into its first union.
    pub(crate) const EMPTY: Aabb =
        Aabb::new(f32::INFINITY, f32::INFINITY, -f32::INFINITY, -f32::INFINITY);

    /// Finite coordinates, and no side of negative length.
    pub(crate) fn check(&self) -> Result<(), UnitError> {
        for (name, value) in [
            ("min_x", self.min_x),
            ("min_y", self.min_y),
            ("max_x", self.max_x),
            ("max_y", self.max_y),
        ] {
            if !value.is_finite() {
                return Err(UnitError::NotFinite { what: name, value });
            }
        }
        if self.max_x < self.min_x || self.max_y < self.min_y {
            return Err(UnitError::NegativeSize { aabb: *self });
        }
        Ok(())
    }
}

impl fmt::Display for Aabb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}, {}]–[{}, {}]",
            self.min_x, self.min_y, self.max_x, self.max_y
        )
    }
}

/// A circle, for range queries: the index gathers the units in its bounding box and keeps
/// those whose box the circle really touches.
///
/// ```
/// use quadpath::units::{Aabb, Circle};
///
/// let range = Circle::new(0.0, 0.0, 5.0);
/// assert!(range.intersects(&Aabb::new(3.0, 3.0, 4.0, 4.0))); // corner at distance 4.24
/// assert!(!range.intersects(&Aabb::new(4.0, 4.0, 5.0, 5.0))); // corner at distance 5.66
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    /// Centre, x.
    pub x: f32,
    /// Centre, y.
    pub y: f32,
    /// Radius; 0 is a point.
    pub radius: f32,
}

impl Circle {
    /// The circle of `radius` around `(x, y)`.
    ///
    /// ```
    /// # use quadpath::units::Circle;
    /// assert_eq!(Circle::new(1.0, 2.0, 3.0).radius, 3.0);
    /// ```
    pub const fn new(x: f32, y: f32, radius: f32) -> Self {
        Self { x, y, radius }
    }

    /// The smallest box around the circle.
    ///
    /// ```
    /// # use quadpath::units::{Aabb, Circle};
    /// assert_eq!(Circle::new(1.0, 2.0, 3.0).bounding_box(), Aabb::new(-2.0, -1.0, 4.0, 5.0));
    /// ```
    pub fn bounding_box(&self) -> Aabb {
        Aabb::from_centre(self.x, self.y, self.radius, self.radius)
    }

    /// Whether the (closed) circle and box share a point: the exact test behind
    /// [`UnitIndex::query_circle`](super::UnitIndex::query_circle).
    ///
    /// ```
    /// # use quadpath::units::{Aabb, Circle};
    /// assert!(Circle::new(0.0, 0.0, 1.0).intersects(&Aabb::new(1.0, -1.0, 2.0, 1.0)));
    /// ```
    #[inline]
    pub fn intersects(&self, aabb: &Aabb) -> bool {
        aabb.distance_squared_to(self.x, self.y) <= self.radius * self.radius
    }

    /// A finite centre and a finite radius that is not negative.
    pub(crate) fn check(&self) -> Result<(), UnitError> {
        check_point(self.x, self.y)?;
        check_radius(self.radius)
    }
}

/// A finite point.
pub(crate) fn check_point(x: f32, y: f32) -> Result<(), UnitError> {
    for (name, value) in [("x", x), ("y", y)] {
        if !value.is_finite() {
            return Err(UnitError::NotFinite { what: name, value });
        }
    }
    Ok(())
}

/// A finite radius that is not negative.
pub(crate) fn check_radius(radius: f32) -> Result<(), UnitError> {
    if radius.is_finite() && radius >= 0.0 {
        Ok(())
    } else {
        Err(UnitError::BadRadius { radius })
    }
}
