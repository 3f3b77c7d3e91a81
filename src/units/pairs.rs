//! The walk over every overlapping pair, cell by cell rather than unit by unit.
//!
//! Each occupied cell is met once, at the unit heading its list. Its units, and those of
//! every cell after it that may hold a box touching theirs (the layout's candidates for the
//! union of the cell's boxes, numbered from the next cell on, whose boxes touch that union),
//! are copied into one small
//! structure-of-arrays buffer; then each of the cell's units is tested against the units
//! after it in the buffer, eight at a time with comparisons the compiler turns into vector
//! instructions. A unit walking its neighbours' lists one by one, as before, read every list
//! once per unit of its cell: in a crowd of 25 units a cell, 25 times.
//!
//! Why every pair is met once: two units of the same cell are tested when the cell is met,
//! the earlier against the later in its list. Units of cells `c < d` are tested when `c` is
//! met, if `d` is a candidate of the union of `c`'s boxes, which it is whenever a box in `d`
//! touches a box in `c` (the layout's contract); when `d` is met, `c` comes before it and is
//! not gathered.

use super::layout::Layout;
use super::store::NIL;
use super::{Aabb, UnitId, UnitIndex};

/// How many boxes one batch of the pair test compares at once.
const LANES: usize = 8;

/// The boxes of a cell and its candidate neighbours, as parallel arrays. The arrays are
/// kept longer than `len` (by at least `LANES` entries), so that a box can be written
/// before deciding whether to keep it, and padding written past the end.
#[derive(Default)]
struct Neighbourhood {
    min_x: Vec<f32>,
    min_y: Vec<f32>,
    max_x: Vec<f32>,
    max_y: Vec<f32>,
    ids: Vec<UnitId>,
    /// How many boxes it holds.
    len: usize,
}

impl Neighbourhood {
    fn clear(&mut self) {
        self.len = 0;
    }

    fn len(&self) -> usize {
        self.len
    }

    /// Makes room for `LANES` more entries past `len`.
    #[inline]
    fn reserve_lanes(&mut self) {
        let needed = self.len + LANES;
        if self.ids.len() < needed {
            let size = needed.max(2 * self.ids.len());
            self.min_x.resize(size, 0.0);
            self.min_y.resize(size, 0.0);
            self.max_x.resize(size, 0.0);
            self.max_y.resize(size, 0.0);
            self.ids.resize(size, UnitId::new(0));
        }
    }

    /// Writes empty boxes (which touch nothing) in the `LANES - 1` entries past `len`, so
    /// that every batch of the pair test starting below `len` is whole: no scalar tail.
    fn pad(&mut self) {
        self.reserve_lanes();
        for i in self.len..self.len + LANES - 1 {
            self.set(i, &Aabb::EMPTY, UnitId::new(0));
        }
    }

    #[inline]
    fn set(&mut self, i: usize, aabb: &Aabb, id: UnitId) {
        self.min_x[i] = aabb.min_x;
        self.min_y[i] = aabb.min_y;
        self.max_x[i] = aabb.max_x;
        self.max_y[i] = aabb.max_y;
        self.ids[i] = id;
    }

    /// Appends the box when `keep`: it is written either way and only counted when kept,
    /// so that a filter the branch predictor cannot guess costs no mispredicted branch.
    #[inline]
    fn push_if(&mut self, aabb: &Aabb, id: UnitId, keep: bool) {
        self.reserve_lanes();
        self.set(self.len, aabb, id);
        self.len += usize::from(keep);
    }

    #[inline]
    fn aabb(&self, i: usize) -> Aabb {
        Aabb::new(self.min_x[i], self.min_y[i], self.max_x[i], self.max_y[i])
    }

    /// Calls `visit` with the id of every box at positions `from..len` that touches `a`
    /// (closed boxes, as [`Aabb::intersects`]); the boxes must be [padded](Self::pad).
    #[inline]
    fn each_touching(&self, a: &Aabb, from: usize, mut visit: impl FnMut(UnitId)) {
        let mut start = from;
        while start < self.len {
            let end = start + LANES;
            let (x0, y0) = (&self.min_x[start..end], &self.min_y[start..end]);
            let (x1, y1) = (&self.max_x[start..end], &self.max_y[start..end]);
            // One bit per lane from non-short-circuit `&`: no branch per box, so the
            // compiler compares the eight boxes in vector registers and gathers the lanes'
            // results into one mask, which says at once whether any touched.
            let mut hits = 0u32;
            for lane in 0..LANES {
                let hit = (x0[lane] <= a.max_x)
                    & (a.min_x <= x1[lane])
                    & (y0[lane] <= a.max_y)
                    & (a.min_y <= y1[lane]);
                hits |= u32::from(hit) << lane;
            }
            while hits != 0 {
                visit(self.ids[start + hits.trailing_zeros() as usize]);
                hits &= hits - 1;
            }
            start = end;
        }
    }
}

/// [`Aabb::intersects`] without short circuits: one answer from four comparisons and no
/// branch, for filters whose outcome is a coin toss.
#[inline]
fn touches(a: &Aabb, b: &Aabb) -> bool {
    (a.min_x <= b.max_x) & (b.min_x <= a.max_x) & (a.min_y <= b.max_y) & (b.min_y <= a.max_y)
}

impl<L: Layout> UnitIndex<L> {
    /// Calls `visit(a, b)` once for every pair of distinct units whose boxes intersect
    /// (closed boxes: touching counts). Which of the two comes first, and the order of the
    /// pairs, are unspecified.
    ///
    /// The walk goes cell by cell: each cell's units are tested, eight at a time, against
    /// each other and against the units of the cells after it that may touch them. It
    /// allocates one buffer per call, as large as the most crowded such neighbourhood.
    ///
    /// ```
    /// use quadpath::units::{Aabb, LooseGrid, UnitIndex};
    ///
    /// let mut index = UnitIndex::new(LooseGrid::new(64.0, 64.0))?;
    /// let a = index.insert(Aabb::new(1.0, 1.0, 3.0, 3.0))?;
    /// let b = index.insert(Aabb::new(2.0, 2.0, 4.0, 4.0))?;
    /// index.insert(Aabb::new(10.0, 10.0, 11.0, 11.0))?;
    /// let mut pairs = Vec::new();
    /// index.for_each_pair(|x, y| pairs.push((x.min(y), x.max(y))));
    /// assert_eq!(pairs, [(a, b)]);
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn for_each_pair(&self, mut visit: impl FnMut(UnitId, UnitId)) {
        let slots = &self.store.slots;
        let mut near = Neighbourhood::default();
        for (first, unit) in slots.iter().enumerate() {
            let cell = unit.cell;
            if self.heads[cell as usize] != first as u32 {
                continue;
            }
            near.clear();
            let mut region = Aabb::EMPTY;
            self.gather(cell, &mut near, |b| {
                region = region.union(b);
                true
            });
            let own = near.len();
            // A neighbour's unit that misses the union of this cell's boxes misses each of
            // them: most of a neighbour cell's units, which lie away from the shared border.
            self.layout.candidates(&region, cell + 1, |other| {
                self.gather(other, &mut near, |b| touches(b, &region));
            });
            near.pad();
            for i in 0..own {
                let (a, id) = (near.aabb(i), near.ids[i]);
                near.each_touching(&a, i + 1, |other| visit(id, other));
            }
        }
    }

    /// Appends to `near` the units of `cell` whose box `keep` accepts.
    #[inline]
    fn gather(&self, cell: u32, near: &mut Neighbourhood, mut keep: impl FnMut(&Aabb) -> bool) {
        let slots = &self.store.slots;
        let mut slot = self.heads[cell as usize];
        while slot != NIL {
            let unit = &slots[slot as usize];
            near.push_if(&unit.aabb, unit.id, keep(&unit.aabb));
            slot = unit.next;
        }
    }
}
