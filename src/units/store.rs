//! The units themselves: a dense array of 32-byte slots, each on its cell's linked list,
//! and the table from ids to slots.
//!
//! Slots stay dense (a removal moves the last slot into the hole), so that walks over all
//! units run over contiguous memory and no free-slot list is needed; the ids a removal frees
//! go on a free list and are handed out again. Cells are only list heads (`u32` each) owned
//! by the index; what a cell means is the layout's business.

use super::layout::release_spare;
use super::{Aabb, UnitError, UnitId};
use std::mem::size_of;

/// End of a list, or a vacant id.
pub(crate) const NIL: u32 = u32::MAX;

/// The largest id the index accepts: its table costs 4 bytes per id up to the largest one,
/// so a stray huge id (a hash, a pointer) is refused rather than allocating gigabytes.
pub const MAX_UNIT_ID: u32 = (1 << 28) - 1;

/// One unit: everything an update or a query reads about it, in 32 bytes, so that each
/// touches one cache line (half of one, aligned) rather than one per array.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    pub aabb: Aabb,
    pub id: UnitId,
    pub cell: u32,
    /// Neighbours on the cell's list.
    pub next: u32,
    pub prev: u32,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Store {
    pub slots: Vec<Slot>,
    /// Per id: its slot, or `NIL`.
    slot_of: Vec<u32>,
    /// Ids freed by removals, handed out again by [`Store::fresh_id`]. May hold ids a
    /// caller has since taken: checked when popped.
    free_ids: Vec<u32>,
    /// After a [`Store::clear`], every id below this one is known to be taken or on
    /// `free_ids`; ids from here on are scanned for vacancy before the table grows. Saves
    /// pushing every id on the free list at each clear (4 bytes a unit).
    scan_from: usize,
}

impl Store {
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// The slot holding `id`.
    #[inline]
    pub fn slot(&self, id: UnitId) -> Option<u32> {
        self.slot_of.get(id.index()).copied().filter(|&s| s != NIL)
    }

    pub fn slot_or_err(&self, id: UnitId) -> Result<u32, UnitError> {
        self.slot(id).ok_or(UnitError::UnknownId { id })
    }

    /// A free id: the last one freed, else the lowest never taken since the last clear,
    /// else a new one at the end of the table.
    pub fn fresh_id(&mut self) -> Result<UnitId, UnitError> {
        while let Some(id) = self.free_ids.pop() {
            if self.slot_of[id as usize] == NIL {
                return Ok(UnitId::new(id));
            }
        }
        while self.scan_from < self.slot_of.len() {
            self.scan_from += 1;
            if self.slot_of[self.scan_from - 1] == NIL {
                return Ok(UnitId::new(self.scan_from as u32 - 1));
            }
        }
        let id = self.slot_of.len() as u32;
        if id > MAX_UNIT_ID {
            return Err(UnitError::IdTooLarge {
                id: UnitId::new(id),
                max: MAX_UNIT_ID,
            });
        }
        Ok(UnitId::new(id))
    }

    /// Checks that `id` can be taken: not too large, not in use.
    pub fn check_free(&self, id: UnitId) -> Result<(), UnitError> {
        if id.index() > MAX_UNIT_ID as usize {
            return Err(UnitError::IdTooLarge {
                id,
                max: MAX_UNIT_ID,
            });
        }
        if self.slot(id).is_some() {
            return Err(UnitError::DuplicateId { id });
        }
        Ok(())
    }

    /// Appends a slot for `id` (checked free) on `cell`'s list.
    pub fn push(&mut self, id: UnitId, aabb: Aabb, cell: u32, heads: &mut [u32]) -> u32 {
        let slot = self.slots.len() as u32;
        if id.index() >= self.slot_of.len() {
            // Ids skipped over are vacant past `scan_from`: the scan finds them.
            self.slot_of.resize(id.index() + 1, NIL);
        }
        self.slot_of[id.index()] = slot;
        self.slots.push(Slot {
            aabb,
            id,
            cell,
            next: NIL,
            prev: NIL,
        });
        self.link(slot, cell, heads);
        slot
    }

    /// Puts `slot` at the head of `cell`'s list.
    #[inline]
    pub fn link(&mut self, slot: u32, cell: u32, heads: &mut [u32]) {
        let head = heads[cell as usize];
        let s = &mut self.slots[slot as usize];
        s.next = head;
        s.prev = NIL;
        s.cell = cell;
        if head != NIL {
            self.slots[head as usize].prev = slot;
        }
        heads[cell as usize] = slot;
    }

    /// Takes `slot` off its cell's list.
    #[inline]
    pub fn unlink(&mut self, slot: u32, heads: &mut [u32]) {
        let Slot {
            prev, next, cell, ..
        } = self.slots[slot as usize];
        self.bridge(prev, next, cell, (next, prev), heads);
    }

    /// Points the list neighbours of a slot elsewhere: `prev`'s `next` (or `cell`'s head,
    /// when `prev` is `NIL`) at `to.0`, and `next`'s `prev` at `to.1`.
    #[inline]
    fn bridge(&mut self, prev: u32, next: u32, cell: u32, to: (u32, u32), heads: &mut [u32]) {
        if prev == NIL {
            heads[cell as usize] = to.0;
        } else {
            self.slots[prev as usize].next = to.0;
        }
        if next != NIL {
            self.slots[next as usize].prev = to.1;
        }
    }

    /// Removes `slot` (already unlinked), moving the last slot into its place.
    pub fn swap_remove(&mut self, slot: u32, heads: &mut [u32]) {
        let last = self.slots.len() as u32 - 1;
        let id = self.slots[slot as usize].id;
        self.slot_of[id.index()] = NIL;
        self.free_ids.push(id.index() as u32);
        self.trim_free_ids();
        if slot != last {
            // The last slot's neighbours (or its cell's head) point at it: repoint them.
            let Slot {
                prev,
                next,
                cell,
                id: moved,
                ..
            } = self.slots[last as usize];
            self.bridge(prev, next, cell, (slot, slot), heads);
            self.slot_of[moved.index()] = slot;
        }
        self.slots.swap_remove(slot as usize);
    }

    /// Drops the free list's stale entries (ids a caller took back) once they could
    /// outnumber the vacant ids, so that removing and re-inserting the same caller ids frame
    /// after frame cannot grow it without bound. Amortised O(1) per removal.
    fn trim_free_ids(&mut self) {
        let vacant = self.slot_of.len() - self.slots.len() + 1;
        // (Ids past `scan_from` are found by the scan and need no entry.)
        if self.free_ids.len() > 2 * vacant + 16 {
            let slot_of = &self.slot_of;
            self.free_ids.retain(|&id| slot_of[id as usize] == NIL);
            self.free_ids.sort_unstable_by(|a, b| b.cmp(a));
            self.free_ids.dedup();
        }
    }

    /// Empties the store, keeping every buffer's capacity and the id table's length (so
    /// every id can be handed out again, lowest first).
    pub fn clear(&mut self) {
        for s in &self.slots {
            // A failed rebuild leaves ids it never claimed, maybe past the table's end.
            if let Some(slot) = self.slot_of.get_mut(s.id.index()) {
                *slot = NIL;
            }
        }
        self.slots.clear();
        self.free_ids.clear();
        self.scan_from = 0;
    }

    /// Makes the id table hold ids up to `max_id` without growing again (a rebuild knows
    /// them all in advance).
    pub fn reserve_ids(&mut self, max_id: UnitId) {
        let needed = (max_id.index() + 1).saturating_sub(self.slot_of.len());
        self.slot_of.reserve_exact(needed);
    }

    /// Claims `id` for `slot` during a rebuild, whose slots are laid out directly.
    pub fn claim(&mut self, id: UnitId, slot: u32) -> Result<(), UnitError> {
        self.check_free(id)?;
        if id.index() >= self.slot_of.len() {
            self.slot_of.resize(id.index() + 1, NIL);
        }
        self.slot_of[id.index()] = slot;
        Ok(())
    }

    /// Records that `id` (held) now lives in `slot`.
    pub fn set_slot(&mut self, id: UnitId, slot: u32) {
        self.slot_of[id.index()] = slot;
    }

    /// Gives back spare capacity of the units and the free list (the id table stays as
    /// long as the largest id ever held, [`MAX_UNIT_ID`] at most).
    pub fn release_spare(&mut self) {
        release_spare(&mut self.slots);
        release_spare(&mut self.free_ids);
    }

    /// Bytes held by the store's buffers (their capacity, not just their length).
    pub fn memory_bytes(&self) -> usize {
        self.slots.capacity() * size_of::<Slot>()
            + (self.slot_of.capacity() + self.free_ids.capacity()) * size_of::<u32>()
    }
}
