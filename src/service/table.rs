//! The service's tickets: a dense table of slots, so that the calls a game makes for every
//! unit every frame (`outcome`, `poll`, `advance`, `next_waypoint`) reach a ticket's state
//! with one index and one comparison instead of a walk down a `BTreeMap` (session 33: the
//! map's walk, mostly cache misses, was ~0.47 µs of the 2,000 units' `outcome` + `advance`).
//!
//! A [`Ticket`] carries its slot and its number. A slot is reused once its ticket is
//! cancelled or released; the number is never reused, so a stale ticket of a reused slot
//! finds another number there and is refused like any unknown ticket. The numbers also
//! keep the order the sweep after edits and the re-plans go by (ticket order, as before
//! the table): an ordered index from number to slot, touched only when a ticket is issued
//! or dropped.

use super::types::Ticket;
use std::collections::BTreeMap;
use std::ops::Bound;

/// One slot: the number of the ticket it holds (or last held) and its state, `None` when
/// free.
#[derive(Debug)]
struct Slot<S> {
    number: u64,
    state: Option<S>,
}

/// Live tickets by slot, with their order by number; `S` is a ticket's state (the table
/// never looks inside).
#[derive(Debug)]
pub(super) struct TicketTable<S> {
    slots: Vec<Slot<S>>,
    /// Free slots, the last freed reused first.
    free: Vec<u32>,
    /// Live tickets in number order: number → slot.
    order: BTreeMap<u64, u32>,
    next_number: u64,
}

impl<S> Default for TicketTable<S> {
    fn default() -> Self {
        TicketTable {
            slots: Vec::new(),
            free: Vec::new(),
            order: BTreeMap::new(),
            next_number: 0,
        }
    }
}

impl<S> TicketTable<S> {
    /// Issues the next ticket, holding `state`.
    pub(super) fn issue(&mut self, state: S) -> Ticket {
        let number = self.next_number;
        self.next_number += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Slot {
                    number,
                    state: Some(state),
                };
                slot
            }
            None => {
                let slot = u32::try_from(self.slots.len()).expect("fewer than 2^32 live tickets");
                self.slots.push(Slot {
                    number,
                    state: Some(state),
                });
                slot
            }
        };
        self.order.insert(number, slot);
        Ticket { number, slot }
    }

    /// The slot `ticket` names, if it still holds that ticket.
    fn index(&self, ticket: Ticket) -> Option<usize> {
        let slot = self.slots.get(ticket.slot as usize)?;
        (slot.number == ticket.number && slot.state.is_some()).then_some(ticket.slot as usize)
    }

    /// The state of `ticket`, if live.
    pub(super) fn get(&self, ticket: Ticket) -> Option<&S> {
        let slot = self.slots.get(ticket.slot as usize)?;
        if slot.number == ticket.number {
            slot.state.as_ref()
        } else {
            None
        }
    }

    /// The state of `ticket`, if live, to change.
    pub(super) fn get_mut(&mut self, ticket: Ticket) -> Option<&mut S> {
        let slot = self.slots.get_mut(ticket.slot as usize)?;
        if slot.number == ticket.number {
            slot.state.as_mut()
        } else {
            None
        }
    }

    /// Replaces the state of a live `ticket` (a repair or re-plan queued again); `false`,
    /// and nothing done, when the ticket is not live.
    pub(super) fn set(&mut self, ticket: Ticket, state: S) -> bool {
        match self.get_mut(ticket) {
            Some(old) => {
                *old = state;
                true
            }
            None => false,
        }
    }

    /// Drops `ticket` and returns its state; its slot is free for the next ticket.
    pub(super) fn remove(&mut self, ticket: Ticket) -> Option<S> {
        let index = self.index(ticket)?;
        let state = self.slots[index].state.take();
        self.order.remove(&ticket.number);
        self.free.push(ticket.slot);
        state
    }

    /// Live tickets.
    pub(super) fn len(&self) -> usize {
        self.order.len()
    }

    /// The live tickets' states, in slot order.
    pub(super) fn states(&self) -> impl Iterator<Item = &S> + '_ {
        self.slots.iter().filter_map(|s| s.state.as_ref())
    }

    /// Calls `visit` on the live tickets after `after` (all of them for `None`), in number
    /// order, until it returns `false`. Returns whether it got past the last ticket.
    pub(super) fn visit_after(
        &mut self,
        after: Option<Ticket>,
        mut visit: impl FnMut(Ticket, &mut S) -> bool,
    ) -> bool {
        let range = match after {
            None => self.order.range(..),
            Some(t) => self
                .order
                .range((Bound::Excluded(t.number), Bound::Unbounded)),
        };
        for (&number, &slot) in range {
            let state = self.slots[slot as usize]
                .state
                .as_mut()
                .expect("an ordered ticket's slot is live");
            if !visit(Ticket { number, slot }, state) {
                return false;
            }
        }
        true
    }

    /// Heap bytes held by the table itself (slots, free list, order), not by the states'
    /// own buffers.
    pub(super) fn memory_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot<S>>()
            + self.free.capacity() * std::mem::size_of::<u32>()
            + self.order.len() * 2 * std::mem::size_of::<(u64, u32)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// One step of a random sequence.
    #[derive(Clone, Debug)]
    enum Op {
        Issue,
        /// Remove the `i % len`-th ticket ever issued (live or not: stale tickets too).
        Remove(usize),
        Set(usize, usize),
        Visit(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => Just(Op::Issue),
            2 => any::<usize>().prop_map(Op::Remove),
            1 => (any::<usize>(), 0..1000usize).prop_map(|(i, t)| Op::Set(i, t)),
            1 => any::<usize>().prop_map(Op::Visit),
        ]
    }

    proptest! {
        /// The table answers like a plain ordered map from ticket numbers to states, over
        /// random issue/remove/set/visit sequences, stale tickets of reused slots included.
        #[test]
        fn the_table_answers_like_a_map(ops in prop::collection::vec(op(), 1..200)) {
            let mut table = TicketTable::<usize>::default();
            let mut model: BTreeMap<u64, usize> = BTreeMap::new();
            let mut issued: Vec<Ticket> = Vec::new();
            for (step, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Issue => {
                        let ticket = table.issue(step);
                        prop_assert!(!model.contains_key(&ticket.number));
                        prop_assert_eq!(ticket.number, issued.len() as u64, "numbers in order");
                        model.insert(ticket.number, step);
                        issued.push(ticket);
                    }
                    Op::Remove(i) if !issued.is_empty() => {
                        let ticket = issued[i % issued.len()];
                        let removed = table.remove(ticket);
                        prop_assert_eq!(removed, model.remove(&ticket.number));
                    }
                    Op::Set(i, tag) if !issued.is_empty() => {
                        let ticket = issued[i % issued.len()];
                        let live = model.contains_key(&ticket.number);
                        prop_assert_eq!(table.set(ticket, tag), live);
                        if live {
                            model.insert(ticket.number, tag);
                        }
                    }
                    Op::Visit(i) => {
                        let after = (!issued.is_empty() && i % 3 > 0).then(|| issued[i % issued.len()]);
                        let mut seen = Vec::new();
                        let stop_after = i % 7;
                        let finished = table.visit_after(after, |t, s| {
                            seen.push((t.number, *s));
                            seen.len() <= stop_after
                        });
                        let lower = after.map_or(Bound::Unbounded, |t| Bound::Excluded(t.number));
                        let expected: Vec<_> = model
                            .range((lower, Bound::Unbounded))
                            .map(|(&n, &tag)| (n, tag))
                            .take(stop_after + 1)
                            .collect();
                        prop_assert_eq!(&seen, &expected);
                        let all = model.range((lower, Bound::Unbounded)).count();
                        prop_assert_eq!(finished, all <= stop_after);
                    }
                    _ => {}
                }
                prop_assert_eq!(table.len(), model.len());
                prop_assert_eq!(table.states().count(), model.len());
                for &ticket in &issued {
                    prop_assert_eq!(
                        table.get(ticket).copied(),
                        model.get(&ticket.number).copied(),
                        "{}", ticket
                    );
                }
            }
        }
    }

    #[test]
    fn a_stale_ticket_of_a_reused_slot_is_refused() {
        let mut table = TicketTable::<usize>::default();
        let old = table.issue(1);
        assert_eq!(table.remove(old), Some(1));
        let new = table.issue(2);
        assert_eq!(new.slot, old.slot, "the slot is reused");
        assert!(table.get(old).is_none());
        assert!(table.get_mut(old).is_none());
        assert!(!table.set(old, 3));
        assert!(table.remove(old).is_none());
        assert_eq!(table.get(new).copied(), Some(2));
    }
}
