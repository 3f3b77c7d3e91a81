//! The open list of every search in this crate: a radix heap.
//!
//! Dijkstra and A\* with a consistent heuristic pop keys that never decrease. That is all
//! a radix heap needs, and it makes a push one comparison of bit patterns and a pop a
//! sort of the few entries sharing the lowest bucket, where a binary heap moves entries
//! through `log n` levels of a large array on every push and pop.

/// An open list for searches whose popped keys never decrease: a radix heap.
///
/// Keys are path lengths in fixed point (2^-32 of a cell, so that rounding never reorders
/// distinct lengths that matter). Entries with equal keys come out last in, first out,
/// which walks straight along the many equal-length octile routes instead of fanning out
/// over them.
#[derive(Clone, Debug)]
pub(crate) struct OpenList {
    /// The last key popped; every stored key is at least this.
    last: u64,
    /// Bucket `b > 0` holds keys whose highest bit differing from `last` is bit `b - 1`;
    /// bucket 0 holds keys equal to `last`.
    buckets: [Vec<(u64, u32)>; 65],
}

impl Default for OpenList {
    fn default() -> Self {
        OpenList {
            last: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
        }
    }
}

impl OpenList {
    const SCALE: f64 = (1u64 << 32) as f64;

    #[inline]
    fn bucket(key: u64, last: u64) -> usize {
        (u64::BITS - (key ^ last).leading_zeros()) as usize
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.last = 0;
        for b in &mut self.buckets {
            b.clear();
        }
    }

    /// Whether no entry is left.
    pub fn is_empty(&self) -> bool {
        self.buckets.iter().all(Vec::is_empty)
    }

    /// Adds `node` with key `f`, which must not be below the last key popped by more
    /// than rounding.
    #[inline]
    pub fn push(&mut self, f: f64, node: u32) {
        // Rounding can put a child a hair below its parent's `f`: it is popped next anyway.
        let key = ((f * Self::SCALE) as u64).max(self.last);
        self.buckets[Self::bucket(key, self.last)].push((key, node));
    }

    /// Removes a node with the lowest key; among equal keys the last pushed.
    #[inline]
    pub fn pop(&mut self) -> Option<u32> {
        if self.buckets[0].is_empty() {
            let b = (1..self.buckets.len()).find(|&b| !self.buckets[b].is_empty())?;
            let moved = std::mem::take(&mut self.buckets[b]);
            self.last = moved
                .iter()
                .map(|e| e.0)
                .min()
                .expect("bucket is not empty");
            // Every entry lands in a lower bucket: they all share bits above `b - 1` with
            // the new `last`, and the minimum itself lands in bucket 0.
            for &(key, node) in &moved {
                self.buckets[Self::bucket(key, self.last)].push((key, node));
            }
            let mut moved = moved;
            moved.clear();
            self.buckets[b] = moved;
        }
        self.buckets[0].pop().map(|e| e.1)
    }
}

#[cfg(test)]
mod tests {
    use super::OpenList;

    /// Pops come out in key order while pushes never go below the last pop, as in A\*
    /// with a consistent heuristic; checked against sorting.
    #[test]
    fn open_list_pops_in_order() {
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut open = OpenList::default();
        let mut model: Vec<(f64, u32)> = Vec::new();
        let mut last = 0.0f64;
        for step in 0..20_000u32 {
            if next() % 3 != 0 || model.is_empty() {
                // A child costs at least its parent: from the last key up to 200 more.
                let f = last + (next() % 200_000) as f64 / 1000.0;
                open.push(f, step);
                model.push((f, step));
            } else {
                let node = open.pop().expect("the model is not empty");
                let min = model.iter().map(|e| e.0).fold(f64::INFINITY, f64::min);
                let i = model
                    .iter()
                    .position(|e| e.1 == node)
                    .expect("popped a pushed node");
                // Keys are fixed point at 2^-32: closer values count as equal.
                assert!(
                    model[i].0 <= min + 1e-9,
                    "step {step}: popped {} before {min}",
                    model[i].0
                );
                last = model.swap_remove(i).0;
            }
        }
        while let Some(node) = open.pop() {
            let i = model.iter().position(|e| e.1 == node).unwrap();
            assert!(model[i].0 >= last - 1e-9, "{} after {last}", model[i].0);
            last = model.swap_remove(i).0;
        }
        assert!(model.is_empty());
    }

    #[test]
    fn equal_keys_come_out_last_in_first_out() {
        let mut open = OpenList::default();
        for node in 0..5 {
            open.push(7.5, node);
        }
        open.push(9.0, 99);
        let order: Vec<u32> = std::iter::from_fn(|| open.pop()).collect();
        assert_eq!(order, vec![4, 3, 2, 1, 0, 99]);
    }
}
