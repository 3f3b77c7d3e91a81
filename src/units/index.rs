//! [`UnitIndex`]: the units, their cells' lists, and the edits (insert, remove, move,
//! rebuild, cleanup).

use super::layout::Layout;
use super::store::{Slot, Store, NIL};
use super::{Aabb, UnitError, UnitId};
use std::mem::size_of;

/// [`UnitIndex::update_all`] sorts the units by cell again (a
/// [`cleanup`](UnitIndex::cleanup)) once more than one unit in this many is out of cell
/// order. Units that change cells stay in their slots, so the cells' lists drift apart in
/// memory. Measured on a million units drifting freely (no collisions; a throwaway program,
/// shared machine), the pair walk averaged 93, 131 and 288 ms over frames 0–20, 20–100 and
/// 100–300 without the sort, and 82, 82 and 75 ms with it, for `update_all` at 74, 71 and
/// 63 ms instead of 45, 46 and 60: 156, 153 and 138 ms a frame against 138, 178 and 348.
const RESORT_FRACTION: usize = 4;

/// A spatial index of moving units (axis-aligned boxes with ids) over a bounded world,
/// filed by a [`Layout`]: a [`LooseQuadtree`](super::LooseQuadtree) or a
/// [`LooseGrid`](super::LooseGrid).
///
/// Storage is flat: parallel arrays of units, one `u32` list head per cell, lists linked by
/// slot numbers; edits allocate nothing once the buffers have grown to the crowd's size.
/// Queries take `&self` and write into a caller's buffer or call a closure.
///
/// ```
/// use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
///
/// let mut index = UnitIndex::new(LooseQuadtree::new(256.0, 256.0))?;
/// let tank = index.insert(Aabb::from_centre(10.0, 10.0, 1.5, 1.5))?;
/// let scout = index.insert(Aabb::from_centre(12.0, 10.0, 0.5, 0.5))?;
/// index.update(scout, Aabb::from_centre(40.0, 10.0, 0.5, 0.5))?;
/// let mut found = Vec::new();
/// index.query_box(Aabb::new(0.0, 0.0, 20.0, 20.0), &mut found)?;
/// assert_eq!(found, [tank]);
/// # Ok::<(), quadpath::units::UnitError>(())
/// ```
#[derive(Clone, Debug)]
pub struct UnitIndex<L: Layout> {
    pub(crate) layout: L,
    /// Per cell: the first slot on its list.
    pub(crate) heads: Vec<u32>,
    pub(crate) store: Store,
    /// World box, for the out-of-world check.
    world: Aabb,
    /// Per cell, for the counting sort of rebuilds and cleanups; kept so that they
    /// allocate nothing in steady state.
    scratch_counts: Vec<u32>,
    /// Units placed out of cell order since the storage was last sorted by cell (inserted,
    /// moved by a removal, or moved to another cell): [`update_all`](Self::update_all)
    /// sorts again once they are as many as a quarter of the units.
    out_of_order: usize,
}

impl<L: Layout> UnitIndex<L> {
    /// An empty index filed by `layout`.
    ///
    /// # Errors
    /// [`UnitError::BadWorld`] when the layout's world is not a finite positive size,
    /// [`UnitError::BadCellSize`] when its cell side is not finite and positive or would
    /// make too many cells.
    ///
    /// ```
    /// use quadpath::units::{LooseGrid, UnitError, UnitIndex};
    ///
    /// let index = UnitIndex::new(LooseGrid::new(512.0, 512.0).with_cell(8.0))?;
    /// assert_eq!(index.world(), (512.0, 512.0));
    /// assert!(matches!(
    ///     UnitIndex::new(LooseGrid::new(512.0, 512.0).with_cell(0.0)),
    ///     Err(UnitError::BadCellSize { .. })
    /// ));
    /// # Ok::<(), UnitError>(())
    /// ```
    pub fn new(mut layout: L) -> Result<Self, UnitError> {
        let cells = layout.init()?;
        let (w, h) = layout.world();
        Ok(Self {
            layout,
            heads: vec![NIL; cells],
            store: Store::default(),
            world: Aabb::new(0.0, 0.0, w, h),
            scratch_counts: Vec::new(),
            out_of_order: 0,
        })
    }

    /// The world's `(width, height)`; boxes must lie within `[0, width]×[0, height]`.
    ///
    /// ```
    /// # use quadpath::units::{LooseQuadtree, UnitIndex};
    /// let index = UnitIndex::new(LooseQuadtree::new(64.0, 32.0))?;
    /// assert_eq!(index.world(), (64.0, 32.0));
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn world(&self) -> (f32, f32) {
        (self.world.max_x, self.world.max_y)
    }

    /// The layout, with its parameters.
    ///
    /// ```
    /// # use quadpath::units::{LooseQuadtree, UnitIndex};
    /// let index = UnitIndex::new(LooseQuadtree::new(64.0, 32.0))?;
    /// let _layout: &LooseQuadtree = index.layout();
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// How many units the index holds.
    ///
    /// ```
    /// # use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// index.insert(Aabb::new(1.0, 1.0, 2.0, 2.0))?;
    /// assert_eq!(index.len(), 1);
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether the index holds no unit.
    ///
    /// ```
    /// # use quadpath::units::{LooseQuadtree, UnitIndex};
    /// assert!(UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?.is_empty());
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.store.len() == 0
    }

    /// The box of unit `id`, if the index holds it.
    ///
    /// ```
    /// # use quadpath::units::{Aabb, LooseQuadtree, UnitIndex, UnitId};
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// let b = Aabb::new(1.0, 1.0, 2.0, 2.0);
    /// let id = index.insert(b)?;
    /// assert_eq!(index.get(id), Some(b));
    /// assert_eq!(index.get(UnitId::new(99)), None);
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn get(&self, id: UnitId) -> Option<Aabb> {
        self.store
            .slot(id)
            .map(|s| self.store.slots[s as usize].aabb)
    }

    /// Every unit and its box, in storage order (which [`cleanup`](Self::cleanup) sorts by
    /// cell).
    ///
    /// ```
    /// # use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// let id = index.insert(Aabb::new(1.0, 1.0, 2.0, 2.0))?;
    /// assert_eq!(index.iter().map(|(i, _)| i).collect::<Vec<_>>(), [id]);
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (UnitId, Aabb)> + '_ {
        self.store.slots.iter().map(|s| (s.id, s.aabb))
    }

    /// A unit's box must be finite, not inverted, and inside the world.
    fn check_box(&self, aabb: &Aabb) -> Result<(), UnitError> {
        aabb.check()?;
        if !self.world.contains(aabb) {
            return Err(UnitError::OutsideWorld {
                aabb: *aabb,
                width: self.world.max_x,
                height: self.world.max_y,
            });
        }
        Ok(())
    }

    /// Adds a unit with box `aabb` under an id the index picks: the last one freed, else
    /// the lowest free one.
    ///
    /// # Errors
    /// [`UnitError::NotFinite`], [`UnitError::NegativeSize`] or [`UnitError::OutsideWorld`]
    /// for a bad box; [`UnitError::IdTooLarge`] when every id up to
    /// [`MAX_UNIT_ID`](super::MAX_UNIT_ID) is taken.
    ///
    /// ```
    /// use quadpath::units::{Aabb, LooseQuadtree, UnitError, UnitIndex, UnitId};
    ///
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// assert_eq!(index.insert(Aabb::new(1.0, 1.0, 2.0, 2.0))?, UnitId::new(0));
    /// assert!(matches!(
    ///     index.insert(Aabb::new(60.0, 1.0, 66.0, 2.0)),
    ///     Err(UnitError::OutsideWorld { .. })
    /// ));
    /// # Ok::<(), UnitError>(())
    /// ```
    pub fn insert(&mut self, aabb: Aabb) -> Result<UnitId, UnitError> {
        self.check_box(&aabb)?;
        let id = self.store.fresh_id()?;
        self.place(id, aabb);
        Ok(id)
    }

    /// Adds a unit with box `aabb` under the caller's `id` (say, its entity index).
    ///
    /// # Errors
    /// As [`insert`](Self::insert) for a bad box; [`UnitError::DuplicateId`] when `id` is
    /// in the index, [`UnitError::IdTooLarge`] when it is past
    /// [`MAX_UNIT_ID`](super::MAX_UNIT_ID).
    ///
    /// ```
    /// use quadpath::units::{Aabb, LooseQuadtree, UnitError, UnitIndex, UnitId};
    ///
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// let b = Aabb::new(1.0, 1.0, 2.0, 2.0);
    /// index.insert_with_id(UnitId::new(42), b)?;
    /// assert_eq!(
    ///     index.insert_with_id(UnitId::new(42), b),
    ///     Err(UnitError::DuplicateId { id: UnitId::new(42) })
    /// );
    /// # Ok::<(), UnitError>(())
    /// ```
    pub fn insert_with_id(&mut self, id: UnitId, aabb: Aabb) -> Result<(), UnitError> {
        self.check_box(&aabb)?;
        self.store.check_free(id)?;
        self.place(id, aabb);
        Ok(())
    }

    fn place(&mut self, id: UnitId, aabb: Aabb) {
        let cell = self.layout.cell_of(&aabb);
        self.store.push(id, aabb, cell, &mut self.heads);
        self.layout.arrived(cell, &aabb);
        self.out_of_order += 1;
    }

    /// Removes unit `id` and returns its box. Its id may be handed out again.
    ///
    /// # Errors
    /// [`UnitError::UnknownId`] when the index does not hold `id`.
    ///
    /// ```
    /// use quadpath::units::{Aabb, LooseQuadtree, UnitError, UnitIndex};
    ///
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// let b = Aabb::new(1.0, 1.0, 2.0, 2.0);
    /// let id = index.insert(b)?;
    /// assert_eq!(index.remove(id)?, b);
    /// assert_eq!(index.remove(id), Err(UnitError::UnknownId { id }));
    /// # Ok::<(), UnitError>(())
    /// ```
    pub fn remove(&mut self, id: UnitId) -> Result<Aabb, UnitError> {
        let slot = self.store.slot_or_err(id)?;
        let Slot { aabb, cell, .. } = self.store.slots[slot as usize];
        self.store.unlink(slot, &mut self.heads);
        self.layout.left(cell, self.heads[cell as usize] == NIL);
        self.store.swap_remove(slot, &mut self.heads);
        self.out_of_order += 1;
        Ok(aabb)
    }

    /// Moves (or resizes) unit `id` to `aabb`. When the unit stays in its cell this only
    /// writes the box; otherwise it moves between two lists in O(1).
    ///
    /// # Errors
    /// [`UnitError::UnknownId`] when the index does not hold `id`, and the errors of
    /// [`insert`](Self::insert) for a bad box; on error nothing changes.
    ///
    /// ```
    /// use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
    ///
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// let id = index.insert(Aabb::new(1.0, 1.0, 2.0, 2.0))?;
    /// index.update(id, Aabb::new(30.0, 30.0, 31.0, 31.0))?;
    /// assert_eq!(index.get(id), Some(Aabb::new(30.0, 30.0, 31.0, 31.0)));
    /// assert!(index.update(id, Aabb::new(f32::NAN, 0.0, 1.0, 1.0)).is_err());
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn update(&mut self, id: UnitId, aabb: Aabb) -> Result<(), UnitError> {
        let slot = self.store.slot_or_err(id)?;
        self.check_box(&aabb)?;
        self.refile(slot, aabb);
        Ok(())
    }

    /// Moves every unit at once: calls `new_box(id, &old_box)` for each unit and files it
    /// under the box returned. For games that move (almost) every unit every frame: the
    /// units are visited in storage order, so each move reads and writes memory in order,
    /// where one [`update`](Self::update) per unit in the game's order jumps through the
    /// whole store (at a million units, 2–3 times slower than this), and a
    /// [`rebuild`](Self::rebuild) writes every unit to a new slot. Returning the old box
    /// leaves a unit where it is.
    ///
    /// Units that change cells are relinked in place, out of cell order in memory; once a
    /// quarter of the units are, `update_all` ends with a [`cleanup`](Self::cleanup), so
    /// that the pair walk and the queries keep reading memory in order.
    ///
    /// # Errors
    /// The errors of [`insert`](Self::insert) for the first bad box returned; that unit
    /// and the ones after it keep their old boxes, those before it have moved (the index
    /// stays consistent either way). `new_box` may have been called for a few units past
    /// the bad one (it is called a batch at a time).
    ///
    /// ```
    /// use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
    ///
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// let mut speeds = Vec::new();
    /// for i in 0..10 {
    ///     index.insert(Aabb::from_centre(5.0 + 5.0 * i as f32, 10.0, 0.5, 0.5))?;
    ///     speeds.push(i as f32);
    /// }
    /// // Unit `i` moves `i` down.
    /// index.update_all(|id, b| {
    ///     let dy = speeds[id.index()];
    ///     Aabb::new(b.min_x, b.min_y + dy, b.max_x, b.max_y + dy)
    /// })?;
    /// let mut found = Vec::new();
    /// index.query_box(Aabb::new(0.0, 18.0, 64.0, 64.0), &mut found)?;
    /// assert_eq!(found.len(), 2); // units 8 and 9, now at y = 18 and 19
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn update_all(
        &mut self,
        mut new_box: impl FnMut(UnitId, &Aabb) -> Aabb,
    ) -> Result<(), UnitError> {
        // The new boxes are asked for a batch at a time, then filed: a caller reading its
        // own arrays by id misses the cache on most units, and a tight loop of such reads
        // lets the processor wait for many at once rather than one per filing.
        const BATCH: usize = 64;
        let mut moved = [Aabb::EMPTY; BATCH];
        let n = self.store.len();
        for start in (0..n).step_by(BATCH) {
            let batch = &self.store.slots[start..n.min(start + BATCH)];
            for (unit, new) in batch.iter().zip(&mut moved) {
                *new = new_box(unit.id, &unit.aabb);
            }
            for (slot, new) in (start..).zip(&moved[..batch.len()]) {
                self.check_box(new)?;
                self.refile(slot as u32, *new);
            }
        }
        if self.out_of_order > self.len() / RESORT_FRACTION {
            self.cleanup();
        }
        Ok(())
    }

    /// Gives the unit in `slot` the (checked) box `aabb`, moving it to the list of the cell
    /// that box belongs to.
    #[inline]
    fn refile(&mut self, slot: u32, aabb: Aabb) {
        let cell = self.layout.cell_of(&aabb);
        let unit = &mut self.store.slots[slot as usize];
        let old = unit.cell;
        unit.aabb = aabb;
        if cell == old {
            self.layout.moved_within(cell, &aabb);
        } else {
            self.store.unlink(slot, &mut self.heads);
            self.layout.left(old, self.heads[old as usize] == NIL);
            self.store.link(slot, cell, &mut self.heads);
            self.layout.arrived(cell, &aabb);
            self.out_of_order += 1;
        }
    }

    /// Empties the index, keeping its buffers for the next fill.
    ///
    /// ```
    /// # use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0))?;
    /// index.insert(Aabb::new(1.0, 1.0, 2.0, 2.0))?;
    /// index.clear();
    /// assert!(index.is_empty());
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn clear(&mut self) {
        self.out_of_order = 0;
        self.store.clear();
        self.heads.fill(NIL);
        self.layout.reset();
    }

    /// Replaces the whole contents with `units`, for callers who rebuild every frame
    /// rather than update. The units are laid out sorted by cell (a counting sort), so the
    /// queries that follow walk memory in order; the answers are those of inserting the
    /// units one by one.
    ///
    /// # Errors
    /// The errors of [`insert_with_id`](Self::insert_with_id) for the first bad unit, and
    /// [`UnitError::DuplicateId`] for an id given twice. Every unit is checked before the
    /// index changes, except for duplicates, found while filing: then the index is left
    /// empty.
    ///
    /// ```
    /// use quadpath::units::{Aabb, LooseGrid, UnitIndex, UnitId};
    ///
    /// let units: Vec<_> = (0..100)
    ///     .map(|i| (UnitId::new(i), Aabb::from_centre(i as f32 + 1.0, 5.0, 0.5, 0.5)))
    ///     .collect();
    /// let mut index = UnitIndex::new(LooseGrid::new(128.0, 16.0))?;
    /// index.rebuild(&units)?;
    /// assert_eq!(index.len(), 100);
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn rebuild(&mut self, units: &[(UnitId, Aabb)]) -> Result<(), UnitError> {
        let mut max_id = UnitId::new(0);
        for (id, aabb) in units {
            self.check_box(aabb)?;
            if id.index() > super::MAX_UNIT_ID as usize {
                return Err(UnitError::IdTooLarge {
                    id: *id,
                    max: super::MAX_UNIT_ID,
                });
            }
            max_id = max_id.max(*id);
        }
        self.clear();
        self.store.reserve_ids(max_id);
        let result = self.file_sorted(units);
        if result.is_err() {
            self.clear();
        }
        result
    }

    /// Files `units` (checked boxes) into the empty index, sorted by cell.
    fn file_sorted(&mut self, units: &[(UnitId, Aabb)]) -> Result<(), UnitError> {
        let layout = &self.layout;
        count_cells(
            &mut self.scratch_counts,
            self.heads.len(),
            units.iter().map(|(_, b)| layout.cell_of(b)),
        );
        let counts = &mut self.scratch_counts;
        let empty = Slot {
            aabb: Aabb::EMPTY,
            id: UnitId::new(0),
            cell: 0,
            next: NIL,
            prev: NIL,
        };
        self.store.slots.resize(units.len(), empty);
        for &(id, aabb) in units {
            let cell = layout.cell_of(&aabb);
            let slot = counts[cell as usize];
            counts[cell as usize] += 1;
            self.store.slots[slot as usize] = Slot {
                aabb,
                id,
                cell,
                next: NIL,
                prev: NIL,
            };
        }
        for slot in 0..units.len() {
            self.store.claim(self.store.slots[slot].id, slot as u32)?;
        }
        self.link_runs();
        Ok(())
    }

    /// Links the units, stored sorted by cell, into their cells' lists (each list one run
    /// of slots) and tells the layout where they are. The heads must be empty.
    fn link_runs(&mut self) {
        self.out_of_order = 0;
        let slots = &mut self.store.slots;
        let n = slots.len();
        for slot in 0..n {
            let cell = slots[slot].cell;
            let run_starts = slot == 0 || slots[slot - 1].cell != cell;
            let run_goes_on = slot + 1 < n && slots[slot + 1].cell == cell;
            slots[slot].prev = if run_starts { NIL } else { slot as u32 - 1 };
            slots[slot].next = if run_goes_on { slot as u32 + 1 } else { NIL };
            if run_starts {
                self.heads[cell as usize] = slot as u32;
            }
            self.layout.arrived(cell, &slots[slot].aabb);
        }
    }

    /// The deferred maintenance pass, for a quiet moment (every few frames, say): sorts the
    /// units by cell so that queries walk memory in order again after many moves, and lets
    /// a [`LooseGrid`](super::LooseGrid)'s cell bounds shrink back to what the cells hold
    /// now, and gives back the buffer space the units held now do not need (any buffer more
    /// than twice the size they need). Never changes any query's answer. O(units + cells).
    ///
    /// ```
    /// # use quadpath::units::{Aabb, LooseGrid, UnitIndex};
    /// let mut index = UnitIndex::new(LooseGrid::new(64.0, 64.0))?;
    /// let id = index.insert(Aabb::new(1.0, 1.0, 2.0, 2.0))?;
    /// index.update(id, Aabb::new(1.0, 1.0, 9.0, 9.0))?; // grows its cell's bounds
    /// index.update(id, Aabb::new(1.0, 1.0, 2.0, 2.0))?;
    /// index.cleanup(); // shrinks them back
    /// assert_eq!(index.get(id), Some(Aabb::new(1.0, 1.0, 2.0, 2.0)));
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn cleanup(&mut self) {
        count_cells(
            &mut self.scratch_counts,
            self.heads.len(),
            self.store.slots.iter().map(|s| s.cell),
        );
        // Each unit's destination goes in its `next` (relinked below anyway); then the
        // permutation is applied in place, cycle by cycle: no second copy of the units.
        let counts = &mut self.scratch_counts;
        let slots = &mut self.store.slots;
        for unit in slots.iter_mut() {
            unit.next = counts[unit.cell as usize];
            counts[unit.cell as usize] += 1;
        }
        for i in 0..slots.len() {
            loop {
                let j = slots[i].next as usize;
                if j == i {
                    break;
                }
                slots.swap(i, j);
            }
        }
        for slot in 0..self.store.len() {
            let id = self.store.slots[slot].id;
            self.store.set_slot(id, slot as u32);
        }
        self.heads.fill(NIL);
        self.layout.reset();
        self.link_runs();
        self.layout.release_spare();
        self.store.release_spare();
        // One count per cell: the sort's, not needed until the next cleanup or rebuild.
        self.scratch_counts = Vec::new();
    }

    /// Bytes held by the index: its buffers' capacities (units, cell heads, the layout's
    /// own arrays, scratch), not counting `size_of::<Self>()`.
    ///
    /// ```
    /// # use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
    /// let mut index = UnitIndex::new(LooseQuadtree::new(1024.0, 1024.0))?;
    /// for i in 0..1000 {
    ///     index.insert(Aabb::from_centre(i as f32 + 1.0, 500.0, 0.5, 0.5))?;
    /// }
    /// println!("{} bytes per unit", index.memory_bytes() / index.len());
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn memory_bytes(&self) -> usize {
        self.store.memory_bytes()
            + self.heads.capacity() * size_of::<u32>()
            + self.layout.memory_bytes()
            + self.scratch_counts.capacity() * size_of::<u32>()
    }
}

/// Counting sort, first half: leaves in `counts[c]` the first slot of cell `c` (of
/// `cells`) when units with these cells are sorted by cell.
fn count_cells(counts: &mut Vec<u32>, cells: usize, of_units: impl Iterator<Item = u32>) {
    counts.clear();
    counts.resize(cells + 1, 0);
    for cell in of_units {
        counts[cell as usize + 1] += 1;
    }
    for c in 1..counts.len() {
        counts[c] += counts[c - 1];
    }
}
