//! The service's tickets: a dense table of slots, so that the calls a game makes for every
//! unit every frame (`step`, `advance`, `outcome`, `poll`, `next_waypoint`) reach a ticket's
//! state with one index and one comparison instead of a walk down a `BTreeMap` (session 33:
//! the map's walk, mostly cache misses, was ~0.47 µs of the 2,000 units' `outcome` +
//! `advance`).
//!
//! Each slot is split in two (session 34): a small *hot* part, in an array of its own, with
//! the ticket's number and what the units' walk reads and writes every frame, and the
//! *cold* rest (the request, the outcome and its path, what the sweep after edits keeps)
//! in a second array. A unit's step then reads one short record, packed with its
//! neighbours, instead of three cache lines of a ~200-byte state (measured: 4.3 cache
//! misses per unit and frame before the split, see docs/service.md); it reads the cold
//! state too only while a reported edit awaits the sweep.
//!
//! A [`Ticket`] carries its slot and its number. A slot is reused once its ticket is
//! cancelled or released; the number is never reused, so a stale ticket of a reused slot
//! finds another number there and is refused like any unknown ticket. The numbers also
//! keep the order the sweep after edits and the re-plans go by (ticket order, as before
//! the table): an index of (number, slot) pairs in number order, touched only when a
//! ticket is issued or dropped. Numbers only grow, so a new ticket's pair goes at the end
//! (a push), and a dropped ticket's pair stays until enough pile up to tidy the index (a
//! pair whose slot no longer holds its number is skipped): issuing and dropping are O(1)
//! instead of a `BTreeMap`'s insert and remove, which were a third of a request's and of a
//! cancel's instructions (session 35, callgrind). The tidy itself, a pass over the whole
//! index, is the tick's ([`TicketTable::tidy_if_due`], beside the rest of the tick's
//! start-of-frame cleaning): done inside a drop, it made every so many `cancel`s or
//! `release`s one that cost O(live tickets), about 0.35 ms on the main thread at 100,000
//! (moved in session 37). Between ticks the index holds the pairs dropped since the last
//! one on top of its usual slack.
//!
//! Limits: a ticket names its slot with a `u32`, so the table holds at most 2^32 live
//! tickets at once ([`TicketsExhausted`] past that, a typed error of `request`); numbers
//! are `u64` and grow by one per ticket, which no game exhausts (2^64 requests, one a
//! nanosecond, take 584 years).

use super::types::Ticket;

/// The hot part of one slot: the number of the ticket it holds (or last held), and the
/// ticket's hot record, `None` when the slot is free.
#[derive(Debug)]
struct Head<H> {
    number: u64,
    hot: Option<H>,
}

// The service's hot record with its ticket number, all that a unit's step reads but once
// every 16 steps: 48 bytes, four heads in three cache lines. A field added to `Walk` shows here.
const _: () = assert!(std::mem::size_of::<Head<super::walk::Walk>>() == 48);

/// The table holds as many live tickets as a slot number can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TicketsExhausted {
    /// The number of slots the table may hold.
    pub limit: u64,
}

/// Live tickets by slot, with their order by number. Each holds a hot record `H` (small,
/// read every frame) and a cold state `S`, in two arrays indexed alike; the table never
/// looks inside either.
#[derive(Debug)]
pub(super) struct TicketTable<H, S> {
    heads: Vec<Head<H>>,
    /// The cold states, `None` exactly where the head is free.
    states: Vec<Option<S>>,
    /// Free slots, the last freed reused first.
    free: Vec<u32>,
    /// (number, slot) of every live ticket in number order, and of some dropped ones
    /// (`dropped` of them), whose slot no longer holds that number.
    order: Vec<(u64, u32)>,
    /// Pairs of `order` whose ticket was dropped.
    dropped: usize,
    next_number: u64,
    /// Slots the table may hold: 2^32, every `u32`, except in tests.
    slot_limit: u64,
    /// Dropped pairs beyond the live tickets before the index is tidied:
    /// [`TIDY_SLACK`], except in tests (which tidy after a drop or two).
    tidy_slack: usize,
}

/// Dropped pairs the index keeps beyond the live tickets before it is tidied (so that a
/// table of a few tickets is not tidied at every drop).
const TIDY_SLACK: usize = 64;

impl<H, S> Default for TicketTable<H, S> {
    fn default() -> Self {
        TicketTable {
            heads: Vec::new(),
            states: Vec::new(),
            free: Vec::new(),
            order: Vec::new(),
            dropped: 0,
            next_number: 0,
            slot_limit: 1 << 32,
            tidy_slack: TIDY_SLACK,
        }
    }
}

impl<H, S> TicketTable<H, S> {
    /// A table of at most `limit` slots (for tests of a full table: the real limit, 2^32
    /// live tickets, takes hundreds of gigabytes to reach).
    #[cfg(test)]
    pub(super) fn with_slot_limit(limit: u64) -> Self {
        TicketTable {
            slot_limit: limit.min(1 << 32),
            ..TicketTable::default()
        }
    }

    /// A table tidying its index once its dropped pairs outnumber the live tickets by
    /// `slack` (for tests that reach the tidy in a few operations).
    #[cfg(test)]
    pub(super) fn with_tidy_slack(slack: usize) -> Self {
        TicketTable {
            tidy_slack: slack,
            ..TicketTable::default()
        }
    }

    /// Issues the next ticket, holding `hot` and `state`.
    ///
    /// # Errors
    /// [`TicketsExhausted`] when every slot a ticket can name holds a live ticket; nothing
    /// changes then.
    pub(super) fn issue(&mut self, hot: H, state: S) -> Result<Ticket, TicketsExhausted> {
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                let slot = u32::try_from(self.heads.len())
                    .ok()
                    .filter(|&slot| u64::from(slot) < self.slot_limit)
                    .ok_or(TicketsExhausted {
                        limit: self.slot_limit,
                    })?;
                self.heads.push(Head {
                    number: 0,
                    hot: None,
                });
                self.states.push(None);
                slot
            }
        };
        let number = self.next_number;
        self.next_number += 1;
        self.heads[slot as usize] = Head {
            number,
            hot: Some(hot),
        };
        self.states[slot as usize] = Some(state);
        // Numbers only grow: the index stays in number order.
        self.order.push((number, slot));
        Ok(Ticket { number, slot })
    }

    /// The slot `ticket` names, if it still holds that ticket (a look at its head only).
    #[inline]
    fn index(&self, ticket: Ticket) -> Option<usize> {
        let head = self.heads.get(ticket.slot as usize)?;
        (head.number == ticket.number && head.hot.is_some()).then_some(ticket.slot as usize)
    }

    /// The hot record of `ticket`, if live: its head only, no look at the cold state.
    #[cfg(test)]
    pub(super) fn hot(&self, ticket: Ticket) -> Option<&H> {
        let head = self.heads.get(ticket.slot as usize)?;
        if head.number == ticket.number {
            head.hot.as_ref()
        } else {
            None
        }
    }

    /// The hot record of `ticket`, if live, to change: its head only.
    #[inline]
    pub(super) fn hot_mut(&mut self, ticket: Ticket) -> Option<&mut H> {
        let head = self.heads.get_mut(ticket.slot as usize)?;
        if head.number == ticket.number {
            head.hot.as_mut()
        } else {
            None
        }
    }

    /// The cold state of `ticket`, if live.
    pub(super) fn get(&self, ticket: Ticket) -> Option<&S> {
        let index = self.index(ticket)?;
        self.states[index].as_ref()
    }

    /// The cold state of `ticket`, if live, to change in place. What the hot record
    /// mirrors of it (see the service's `Walk`) changes only with [`TicketTable::set`], or
    /// with both parts at once through [`TicketTable::parts_mut`] or
    /// [`TicketTable::visit_after`] (the sweep's invalidation).
    pub(super) fn get_mut(&mut self, ticket: Ticket) -> Option<&mut S> {
        let index = self.index(ticket)?;
        self.states[index].as_mut()
    }

    /// Both parts of `ticket`, if live.
    pub(super) fn parts(&self, ticket: Ticket) -> Option<(&H, &S)> {
        let index = self.index(ticket)?;
        Some((
            self.heads[index].hot.as_ref()?,
            self.states[index].as_ref()?,
        ))
    }

    /// Both parts of `ticket`, if live, to change.
    pub(super) fn parts_mut(&mut self, ticket: Ticket) -> Option<(&mut H, &mut S)> {
        let index = self.index(ticket)?;
        Some((
            self.heads[index].hot.as_mut()?,
            self.states[index].as_mut()?,
        ))
    }

    /// Replaces both parts of a live `ticket` (an answer delivered, a repair or re-plan
    /// queued again); `false`, and nothing done, when the ticket is not live.
    pub(super) fn set(&mut self, ticket: Ticket, hot: H, state: S) -> bool {
        match self.parts_mut(ticket) {
            Some((old_hot, old_state)) => {
                *old_hot = hot;
                *old_state = state;
                true
            }
            None => false,
        }
    }

    /// Drops `ticket` and returns its cold state; its slot is free for the next ticket.
    pub(super) fn remove(&mut self, ticket: Ticket) -> Option<S> {
        let index = self.index(ticket)?;
        self.heads[index].hot = None;
        let state = self.states[index].take();
        self.free.push(ticket.slot);
        self.dropped += 1;
        state
    }

    /// Takes the dropped tickets' pairs out of the ordered index once they outnumber the
    /// live ones by more than the slack: O(1) amortized per drop, and the index, tidied
    /// so, at most about twice the live tickets. Called by the tick, not by `remove`, so
    /// that no single cancel or release on the main thread pays for the whole index.
    /// Returns whether it tidied.
    pub(super) fn tidy_if_due(&mut self) -> bool {
        let due = self.dropped > self.len() + self.tidy_slack;
        if due {
            self.tidy();
        }
        due
    }

    /// Whether the pair `(number, slot)` of the index names a live ticket.
    fn holds(&self, (number, slot): (u64, u32)) -> bool {
        let head = &self.heads[slot as usize];
        head.number == number && head.hot.is_some()
    }

    /// Takes the dropped tickets' pairs out of the index.
    fn tidy(&mut self) {
        let mut order = std::mem::take(&mut self.order);
        order.retain(|&pair| self.holds(pair));
        self.order = order;
        self.dropped = 0;
    }

    /// Pairs in the ordered index, dropped ones not yet tidied included (for tests of
    /// who tidies).
    #[cfg(test)]
    pub(super) fn index_len(&self) -> usize {
        self.order.len()
    }

    /// Live tickets.
    pub(super) fn len(&self) -> usize {
        self.order.len() - self.dropped
    }

    /// The live tickets' cold states, in slot order.
    pub(super) fn states(&self) -> impl Iterator<Item = &S> + '_ {
        self.states.iter().filter_map(Option::as_ref)
    }

    /// Calls `visit` on the live tickets after `after` (all of them for `None`), in number
    /// order, until it returns `false`. Returns whether it got past the last ticket.
    pub(super) fn visit_after(
        &mut self,
        after: Option<Ticket>,
        mut visit: impl FnMut(Ticket, &mut H, &mut S) -> bool,
    ) -> bool {
        let first = after.map_or(0, |t| self.order.partition_point(|&(n, _)| n <= t.number));
        for i in first..self.order.len() {
            let (number, slot) = self.order[i];
            if !self.holds((number, slot)) {
                continue; // dropped
            }
            let live = "an ordered ticket's slot is live";
            let hot = self.heads[slot as usize].hot.as_mut().expect(live);
            let state = self.states[slot as usize].as_mut().expect(live);
            if !visit(Ticket { number, slot }, hot, state) {
                return false;
            }
        }
        true
    }

    /// Heap bytes held by the table itself (both parts of the slots, free list, order),
    /// not by the states' own buffers.
    pub(super) fn memory_bytes(&self) -> usize {
        self.heads.capacity() * std::mem::size_of::<Head<H>>()
            + self.states.capacity() * std::mem::size_of::<Option<S>>()
            + self.free.capacity() * std::mem::size_of::<u32>()
            + self.order.capacity() * std::mem::size_of::<(u64, u32)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;
    use std::ops::Bound;

    /// One step of a random sequence.
    #[derive(Clone, Debug)]
    enum Op {
        Issue,
        /// Remove the `i % len`-th ticket ever issued (live or not: stale tickets too).
        Remove(usize),
        Set(usize, usize),
        Visit(usize),
        /// What a tick does first.
        Tidy,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => Just(Op::Issue),
            2 => any::<usize>().prop_map(Op::Remove),
            1 => (any::<usize>(), 0..1000usize).prop_map(|(i, t)| Op::Set(i, t)),
            1 => any::<usize>().prop_map(Op::Visit),
            1 => Just(Op::Tidy),
        ]
    }

    proptest! {
        /// The table answers like a plain ordered map from ticket numbers to states, over
        /// random issue/remove/set/visit sequences, stale tickets of reused slots included.
        /// A slack of 0 to 3 tidies the index within the sequences (the default's 64
        /// would not be reached in 200 operations).
        #[test]
        fn the_table_answers_like_a_map(
            ops in prop::collection::vec(op(), 1..200),
            slack in 0usize..4,
        ) {
            let mut table = TicketTable::<usize, usize>::with_tidy_slack(slack);
            let mut model: BTreeMap<u64, usize> = BTreeMap::new();
            let mut issued: Vec<Ticket> = Vec::new();
            for (step, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Issue => {
                        let ticket = table.issue(step, step).unwrap();
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
                        prop_assert_eq!(table.set(ticket, tag, tag), live);
                        if live {
                            model.insert(ticket.number, tag);
                        }
                    }
                    Op::Visit(i) => {
                        let after = (!issued.is_empty() && i % 3 > 0).then(|| issued[i % issued.len()]);
                        let mut seen = Vec::new();
                        let stop_after = i % 7;
                        let finished = table.visit_after(after, |t, h, s| {
                            assert_eq!(h, s, "the two parts of one slot");
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
                    Op::Tidy => {
                        let due = table.dropped > table.len() + slack;
                        prop_assert_eq!(table.tidy_if_due(), due);
                        if due {
                            prop_assert_eq!(table.order.len(), model.len(), "a tidy keeps the live pairs only");
                        }
                    }
                    _ => {}
                }
                prop_assert_eq!(table.len(), model.len());
                prop_assert_eq!(table.states().count(), model.len());
                for &ticket in &issued {
                    let expected = model.get(&ticket.number).copied();
                    prop_assert_eq!(table.get(ticket).copied(), expected, "{}", ticket);
                    prop_assert_eq!(table.hot(ticket).copied(), expected, "{}", ticket);
                    prop_assert_eq!(table.parts(ticket).map(|(h, s)| (*h, *s)), expected.map(|e| (e, e)));
                }
            }
        }
    }

    /// Dropped tickets' pairs are tidied out of the ordered index by the tick once they
    /// outnumber the live ones (the index then stays within about twice the live tickets),
    /// and visits in number order skip them before and after: many drops, slots reused,
    /// against a model.
    #[test]
    fn the_order_index_is_tidied_and_stays_in_order() {
        let mut table = TicketTable::<usize, usize>::default();
        let mut model: BTreeMap<u64, usize> = BTreeMap::new();
        let mut live: Vec<Ticket> = Vec::new();
        for round in 0..20usize {
            for i in 0..50 {
                let tag = round * 100 + i;
                let ticket = table.issue(tag, tag).unwrap();
                model.insert(ticket.number, tag);
                live.push(ticket);
            }
            // Drop all but every seventh, oldest and newest mixed.
            let mut kept = Vec::new();
            for (i, ticket) in live.drain(..).enumerate() {
                if (i + round) % 7 == 0 {
                    kept.push(ticket);
                } else {
                    assert_eq!(table.remove(ticket), model.remove(&ticket.number));
                }
            }
            live = kept;
            assert_eq!(table.len(), model.len());
            // Visits skip the dropped pairs before the tick's tidy and after it.
            let after = live.get(live.len() / 2).copied();
            for tidied in [false, true] {
                if tidied {
                    table.tidy_if_due();
                    assert!(
                        table.order.len() <= 2 * table.len() + 65,
                        "{} pairs for {} live tickets",
                        table.order.len(),
                        table.len()
                    );
                }
                let mut seen = Vec::new();
                table.visit_after(after, |t, _, s| {
                    seen.push((t.number, *s));
                    true
                });
                let lower = after.map_or(Bound::Unbounded, |t| Bound::Excluded(t.number));
                let expected: Vec<_> = (model.range((lower, Bound::Unbounded)))
                    .map(|(&n, &s)| (n, s))
                    .collect();
                assert_eq!(seen, expected, "tidied: {tidied}");
            }
        }
    }

    #[test]
    fn a_stale_ticket_of_a_reused_slot_is_refused() {
        let mut table = TicketTable::<usize, usize>::default();
        let old = table.issue(1, 1).unwrap();
        assert_eq!(table.remove(old), Some(1));
        let new = table.issue(2, 2).unwrap();
        assert_eq!(new.slot, old.slot, "the slot is reused");
        assert!(table.get(old).is_none());
        assert!(table.get_mut(old).is_none());
        assert!(table.hot(old).is_none() && table.hot_mut(old).is_none());
        assert!(table.parts(old).is_none() && table.parts_mut(old).is_none());
        assert!(!table.set(old, 3, 3));
        assert!(table.remove(old).is_none());
        assert_eq!(table.get(new).copied(), Some(2));
    }

    #[test]
    fn a_full_table_refuses_and_changes_nothing() {
        let mut table = TicketTable::<usize, usize>::with_slot_limit(2);
        let first = table.issue(1, 1).unwrap();
        let second = table.issue(2, 2).unwrap();
        assert_eq!(table.issue(3, 3), Err(TicketsExhausted { limit: 2 }));
        assert_eq!(table.len(), 2);
        assert_eq!(table.remove(first), Some(1));
        let third = table.issue(4, 4).expect("a freed slot is reused");
        assert_eq!(
            (third.slot, third.number),
            (first.slot, 2),
            "no number lost to the refusal"
        );
        assert_eq!(table.get(second).copied(), Some(2));
        assert_eq!(table.get(third).copied(), Some(4));
    }
}
