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

/// The boxes of a cell and its candidate neighbours, as parallel arrays.
#[derive(Default)]
struct Neighbourhood {
    min_x: Vec<f32>,
    min_y: Vec<f32>,
    max_x: Vec<f32>,
    max_y: Vec<f32>,
    ids: Vec<UnitId>,
}

impl Neighbourhood {
    fn clear(&mut self) {
        self.min_x.clear();
        self.min_y.clear();
        self.max_x.clear();
        self.max_y.clear();
        self.ids.clear();
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    /// Pads the boxes with `LANES - 1` empty ones (which touch nothing), so that every batch
    /// of the pair test starting below the real length is whole: no scalar tail.
    fn pad(&mut self) {
        for _ in 1..LANES {
            self.push(&Aabb::EMPTY, UnitId::new(0));
        }
    }

    #[inline]
    fn push(&mut self, aabb: &Aabb, id: UnitId) {
        self.min_x.push(aabb.min_x);
        self.min_y.push(aabb.min_y);
        self.max_x.push(aabb.max_x);
        self.max_y.push(aabb.max_y);
        self.ids.push(id);
    }

    #[inline]
    fn aabb(&self, i: usize) -> Aabb {
        Aabb::new(self.min_x[i], self.min_y[i], self.max_x[i], self.max_y[i])
    }

    /// Calls `visit` with the id of every box at positions `from..real` that touches `a`
    /// (closed boxes, as [`Aabb::intersects`]); the boxes must be [padded](Self::pad) past
    /// `real`.
    #[inline]
    fn each_touching(&self, a: &Aabb, from: usize, real: usize, mut visit: impl FnMut(UnitId)) {
        let mut start = from;
        while start < real {
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
                self.gather(other, &mut near, |b| b.intersects(&region));
            });
            let real = near.len();
            near.pad();
            for i in 0..own {
                let (a, id) = (near.aabb(i), near.ids[i]);
                near.each_touching(&a, i + 1, real, |other| visit(id, other));
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
            if keep(&unit.aabb) {
                near.push(&unit.aabb, unit.id);
            }
            slot = unit.next;
        }
    }
}
