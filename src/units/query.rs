//! Queries on a [`UnitIndex`]: boxes, circles and nearest units within a radius (the walk
//! over every overlapping pair is in `pairs.rs`).

use super::geom::{check_point, check_radius};
use super::layout::Layout;
use super::store::NIL;
use super::{Aabb, Circle, UnitError, UnitId, UnitIndex};

impl<L: Layout> UnitIndex<L> {
    /// Calls `visit(id, box)` for every unit whose box intersects `area` (boxes are closed:
    /// touching counts), each once, in no particular order. `area` may reach outside the
    /// world.
    ///
    /// # Errors
    /// [`UnitError::NotFinite`] or [`UnitError::NegativeSize`] for a bad `area`.
    ///
    /// ```
    /// use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
    ///
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// index.insert(Aabb::new(1.0, 1.0, 3.0, 3.0))?;
    /// let mut area = 0.0;
    /// index.for_each_in_box(Aabb::new(0.0, 0.0, 10.0, 10.0), |_, b| area += b.width() * b.height())?;
    /// assert_eq!(area, 4.0);
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn for_each_in_box(
        &self,
        area: Aabb,
        mut visit: impl FnMut(UnitId, &Aabb),
    ) -> Result<(), UnitError> {
        area.check()?;
        self.walk_candidates(&area, |id, b| {
            if b.intersects(&area) {
                visit(id, b);
            }
        });
        Ok(())
    }

    /// Clears `found` and fills it with the units whose box intersects `area`, in no
    /// particular order. Reuse the vector from frame to frame to allocate nothing.
    ///
    /// # Errors
    /// As [`for_each_in_box`](Self::for_each_in_box).
    ///
    /// ```
    /// use quadpath::units::{Aabb, LooseGrid, UnitIndex};
    ///
    /// let mut index = UnitIndex::new(LooseGrid::new(64.0, 64.0))?;
    /// let a = index.insert(Aabb::new(1.0, 1.0, 3.0, 3.0))?;
    /// index.insert(Aabb::new(40.0, 40.0, 41.0, 41.0))?;
    /// let mut found = Vec::new();
    /// index.query_box(Aabb::new(2.0, 2.0, 5.0, 5.0), &mut found)?;
    /// assert_eq!(found, [a]);
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn query_box(&self, area: Aabb, found: &mut Vec<UnitId>) -> Result<(), UnitError> {
        found.clear();
        self.for_each_in_box(area, |id, _| found.push(id))
    }

    /// Clears `found` and fills it with the units whose box the (closed) circle touches:
    /// the candidates in the circle's bounding box, kept by an exact circle-box test.
    ///
    /// # Errors
    /// [`UnitError::NotFinite`] for a NaN or infinite centre, [`UnitError::BadRadius`] for
    /// a NaN, infinite or negative radius.
    ///
    /// ```
    /// use quadpath::units::{Aabb, Circle, LooseQuadtree, UnitIndex};
    ///
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// let near = index.insert(Aabb::new(3.0, 3.0, 4.0, 4.0))?; // corner at 4.24
    /// index.insert(Aabb::new(4.0, 4.0, 5.0, 5.0))?; // corner at 5.66: in the box, not the circle
    /// let mut found = Vec::new();
    /// index.query_circle(Circle::new(0.0, 0.0, 5.0), &mut found)?;
    /// assert_eq!(found, [near]);
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn query_circle(&self, circle: Circle, found: &mut Vec<UnitId>) -> Result<(), UnitError> {
        circle.check()?;
        found.clear();
        self.walk_candidates(&circle.bounding_box(), |id, b| {
            if circle.intersects(b) {
                found.push(id);
            }
        });
        Ok(())
    }

    /// Clears `nearest` and fills it with at most `k` units whose box lies within `radius`
    /// of `(x, y)`, nearest first, each with its distance (0 for a box holding the point);
    /// ties go to the lower id. For separation forces, targets in range, click selection.
    ///
    /// # Errors
    /// [`UnitError::NotFinite`] for a NaN or infinite point, [`UnitError::BadRadius`] for
    /// a NaN, infinite or negative radius.
    ///
    /// ```
    /// use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
    ///
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// let far = index.insert(Aabb::new(8.0, 0.0, 9.0, 1.0))?;
    /// let near = index.insert(Aabb::new(3.0, 0.0, 4.0, 1.0))?;
    /// index.insert(Aabb::new(30.0, 0.0, 31.0, 1.0))?; // out of range
    /// let mut nearest = Vec::new();
    /// index.nearest_within(0.0, 0.0, 10.0, 5, &mut nearest)?;
    /// assert_eq!(nearest, [(near, 3.0), (far, 8.0)]);
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn nearest_within(
        &self,
        x: f32,
        y: f32,
        radius: f32,
        k: usize,
        nearest: &mut Vec<(UnitId, f32)>,
    ) -> Result<(), UnitError> {
        check_point(x, y)?;
        check_radius(radius)?;
        nearest.clear();
        if k == 0 {
            return Ok(());
        }
        let limit = radius * radius;
        self.walk_candidates(&Circle::new(x, y, radius).bounding_box(), |id, b| {
            let d2 = b.distance_squared_to(x, y);
            if d2 <= limit {
                nearest.push((id, d2));
            }
        });
        let order = |a: &(UnitId, f32), b: &(UnitId, f32)| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0));
        if nearest.len() > k {
            nearest.select_nth_unstable_by(k - 1, order);
            nearest.truncate(k);
        }
        nearest.sort_unstable_by(order);
        for entry in nearest.iter_mut() {
            entry.1 = entry.1.sqrt();
        }
        Ok(())
    }

    /// Calls `visit` for every unit in a cell that may hold boxes intersecting `area`.
    #[inline]
    fn walk_candidates(&self, area: &Aabb, mut visit: impl FnMut(UnitId, &Aabb)) {
        let slots = &self.store.slots;
        self.layout.candidates(area, 0, |cell| {
            let mut slot = self.heads[cell as usize];
            while slot != NIL {
                let unit = &slots[slot as usize];
                visit(unit.id, &unit.aabb);
                slot = unit.next;
            }
        });
    }
}
