//! Where the live paths go: coarse buckets of the map, each listing the tickets whose
//! delivered path passes it, so that an edit looks only at the paths near it.
//!
//! Entries are never searched for on removal: a ticket released, re-queued or re-delivered
//! leaves its old entries behind, stale (each carries the delivery it came from). A query
//! skips and drops the stale entries of the buckets it reads, and when stale entries
//! outnumber live ones the whole index is swept, so memory stays bounded by the live paths.
//! Entries of the part of a path a unit has already walked stay until the path leaves: they
//! cost one check each, never a wrong answer.

use super::types::Ticket;
use crate::geom::{Cell, Rect};
use hashbrown::HashMap;

/// Side of a bucket, in cells (a power of two).
const BUCKET_SHIFT: u32 = 5;

/// Stale entries tolerated beyond the live ones before a sweep.
const SLACK: usize = 1024;

/// One path's passage through a bucket: its ticket, the delivery it came from, and the
/// first and last index of the path's cells in the bucket.
#[derive(Clone, Copy, Debug)]
struct Entry {
    ticket: Ticket,
    delivery: u64,
    first: usize,
    last: usize,
}

/// Tickets by the buckets their paths pass (see the module docs).
#[derive(Debug, Default)]
pub(super) struct PathIndex {
    /// Row by row, `columns` buckets a row (grown as cells come).
    buckets: Vec<Vec<Entry>>,
    columns: usize,
    /// Tickets delivered since the last [`PathIndex::take_fresh`], not yet indexed.
    fresh: Vec<Ticket>,
    /// Runs of one path's cells by bucket, kept between insertions.
    runs: Vec<(usize, usize, usize)>,
    /// Each indexed ticket's delivery number and how many buckets it was entered in.
    live: HashMap<Ticket, (u64, usize)>,
    /// Entries of live deliveries, and entries in all.
    live_entries: usize,
    entries: usize,
    deliveries: u64,
}

/// Whether `entry` comes from its ticket's current delivery.
fn is_live(live: &HashMap<Ticket, (u64, usize)>, entry: &Entry) -> bool {
    live.get(&entry.ticket)
        .is_some_and(|&(now, _)| now == entry.delivery)
}

impl PathIndex {
    /// An empty index for a map `width` cells wide.
    pub fn new(width: u32) -> Self {
        PathIndex {
            columns: ((width >> BUCKET_SHIFT) + 1) as usize,
            ..PathIndex::default()
        }
    }

    /// The slot of the bucket holding cell (`x`, `y`) (any cell: a cell past the width
    /// shares a slot with another, which costs a check, never a miss).
    fn slot(&self, x: u32, y: u32) -> usize {
        (y >> BUCKET_SHIFT) as usize * self.columns.max(1) + (x >> BUCKET_SHIFT) as usize
    }

    /// Indexes `ticket`'s newly delivered path `cells`, replacing what it had.
    pub fn insert(&mut self, ticket: Ticket, cells: &[Cell]) {
        self.remove(ticket);
        // Runs of consecutive cells in one bucket (a path crosses a bucket in one run or a
        // few), then the runs of each bucket merged.
        let mut runs = std::mem::take(&mut self.runs);
        runs.clear();
        for (i, &c) in cells.iter().enumerate() {
            let b = self.slot(c.x, c.y);
            match runs.last_mut() {
                Some((rb, _, last)) if *rb == b => *last = i,
                _ => runs.push((b, i, i)),
            }
        }
        runs.sort_unstable();
        self.deliveries += 1;
        let delivery = self.deliveries;
        let mut passed = 0;
        for k in 0..runs.len() {
            let (b, first, _) = runs[k];
            if k > 0 && runs[k - 1].0 == b {
                continue; // merged into the bucket's first run
            }
            // The bucket's runs are sorted by their first index: the last run ends last.
            let last = runs[k..]
                .iter()
                .take_while(|r| r.0 == b)
                .last()
                .map_or(first, |r| r.2);
            if b >= self.buckets.len() {
                self.buckets.resize_with(b + 1, Vec::new);
            }
            self.buckets[b].push(Entry {
                ticket,
                delivery,
                first,
                last,
            });
            passed += 1;
        }
        self.runs = runs;
        self.live.insert(ticket, (delivery, passed));
        self.live_entries += passed;
        self.entries += passed;
        if self.entries > 2 * self.live_entries + SLACK {
            self.sweep();
        }
    }

    /// Notes that `ticket` got a new path, to be indexed later (its old entries go stale
    /// now).
    pub fn defer(&mut self, ticket: Ticket) {
        self.remove(ticket);
        self.fresh.push(ticket);
    }

    /// The tickets noted with [`PathIndex::defer`] since the last call, ascending, each
    /// once (some may have been released since).
    pub fn take_fresh(&mut self) -> Vec<Ticket> {
        let mut fresh = std::mem::take(&mut self.fresh);
        fresh.sort_unstable();
        fresh.dedup();
        fresh
    }

    /// The tickets noted with [`PathIndex::defer`] and not yet taken (unsorted).
    pub fn fresh(&self) -> &[Ticket] {
        &self.fresh
    }

    /// Forgets `ticket` (its entries go stale).
    pub fn remove(&mut self, ticket: Ticket) {
        if let Some((_, n)) = self.live.remove(&ticket) {
            self.live_entries -= n;
        }
    }

    /// The tickets whose path has a cell in `zone` (and possibly a few more), ascending,
    /// each once, with the first and last index of their cells in the buckets `zone`
    /// meets: every cell of the path in `zone` lies between them.
    pub fn query(&mut self, zone: Rect) -> Vec<(Ticket, usize, usize)> {
        let mut found = Vec::new();
        for y in (zone.y1 >> BUCKET_SHIFT)..=(zone.y2 >> BUCKET_SHIFT) {
            for x in (zone.x1 >> BUCKET_SHIFT)..=(zone.x2 >> BUCKET_SHIFT) {
                let slot = self.slot(x << BUCKET_SHIFT, y << BUCKET_SHIFT);
                let Some(list) = self.buckets.get_mut(slot) else {
                    continue;
                };
                let before = list.len();
                let live = &self.live;
                list.retain(|e| is_live(live, e));
                self.entries -= before - list.len();
                found.extend(list.iter().map(|e| (e.ticket, e.first, e.last)));
            }
        }
        found.sort_unstable();
        let mut merged: Vec<(Ticket, usize, usize)> = Vec::with_capacity(found.len());
        for (t, first, last) in found {
            match merged.last_mut() {
                Some((pt, _, plast)) if *pt == t => *plast = (*plast).max(last),
                _ => merged.push((t, first, last)),
            }
        }
        merged
    }

    /// Drops every stale entry and every empty bucket.
    fn sweep(&mut self) {
        let live = &self.live;
        for list in &mut self.buckets {
            list.retain(|e| is_live(live, e));
        }
        self.entries = self.live_entries;
    }

    /// Heap bytes held (approximate: the tables' entries).
    pub fn memory_bytes(&self) -> usize {
        self.buckets
            .iter()
            .map(|l| l.capacity() * std::mem::size_of::<Entry>())
            .sum::<usize>()
            + self.buckets.capacity() * std::mem::size_of::<Vec<Entry>>()
            + self.runs.capacity() * std::mem::size_of::<(usize, usize, usize)>()
            + self.fresh.capacity() * std::mem::size_of::<Ticket>()
            + self.live.capacity() * std::mem::size_of::<(Ticket, (u64, usize))>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(x1: u32, x2: u32, y: u32) -> Vec<Cell> {
        (x1..=x2).map(|x| Cell::new(x, y)).collect()
    }

    #[test]
    fn finds_paths_through_a_zone_and_forgets_removed_ones() {
        let mut index = PathIndex::new(110);
        index.insert(Ticket(1), &line(0, 100, 10));
        index.insert(Ticket(2), &line(0, 20, 90));
        index.insert(Ticket(3), &line(60, 100, 40));
        // Bucket columns 64..=95 of the first path: indices 64..=95.
        assert_eq!(
            index.query(Rect::new(70, 5, 71, 12)),
            vec![(Ticket(1), 64, 95)]
        );
        assert_eq!(
            index.query(Rect::new(10, 85, 12, 95)),
            vec![(Ticket(2), 0, 20)]
        );
        index.remove(Ticket(1));
        assert_eq!(index.query(Rect::new(70, 5, 71, 12)), vec![]);
        // Re-delivered elsewhere: the old entries are stale.
        index.insert(Ticket(2), &line(60, 100, 41));
        assert_eq!(index.query(Rect::new(10, 85, 12, 95)), vec![]);
        assert_eq!(
            index.query(Rect::new(62, 38, 66, 42)),
            vec![(Ticket(2), 0, 35), (Ticket(3), 0, 35)]
        );
        // A path that comes back to a bucket: one range from its first to its last visit.
        let mut there_and_back = line(0, 40, 50);
        there_and_back.extend(line(0, 40, 51).into_iter().rev());
        index.insert(Ticket(4), &there_and_back);
        assert_eq!(
            index.query(Rect::new(1, 50, 2, 51)),
            vec![(Ticket(4), 0, 81)]
        );
    }

    #[test]
    fn sweeps_keep_memory_bounded_by_live_paths() {
        let mut index = PathIndex::new(110);
        for round in 0..10_000u64 {
            index.insert(Ticket(round % 3), &line(0, 500, (round % 7) as u32 * 40));
        }
        assert_eq!(index.live.len(), 3);
        assert!(index.entries <= 2 * index.live_entries + SLACK);
    }
}
