//! The open list of every search in this crate: a radix heap.
//!
//! Dijkstra and A\* with a consistent heuristic pop keys that never decrease. That is all
//! a radix heap needs, and it makes a push one comparison of bit patterns and a pop a
//! sort of the few entries sharing the lowest bucket, where a binary heap moves entries
//! through `log n` levels of a large array on every push and pop.
//!
//! Weighted A\* (the fast subgoal search, `f = g + w·h` with `w > 1`) pops keys that may
//! decrease, which a radix heap cannot order: the list then keeps a binary heap instead
//! ([`OpenList::set_any_order`]), so that every pop is still a lowest key, as the search's
//! bound needs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An open list for searches whose popped keys never decrease: a radix heap.
///
/// Keys are path lengths by their IEEE-754 bits, the lowest 8 left out (see
/// [`OpenList::key`]: rounding never reorders distinct lengths that matter). Entries with equal keys come out last in, first out,
/// which walks straight along the many equal-length octile routes instead of fanning out
/// over them.
#[derive(Clone, Debug)]
pub(crate) struct OpenList {
    /// The last key popped; every stored key is at least this.
    last: u64,
    /// Bucket `b > 0` holds keys whose highest bit differing from `last` is bit `b - 1`;
    /// bucket 0 holds keys equal to `last`.
    buckets: [Vec<(u64, u32)>; 65],
    /// Bit `b` set when bucket `1 ≤ b ≤ 63` holds entries (exactly then), bit 0 whenever
    /// bucket 0 or 64 ever did since the last clear (a pop looks at both itself), so that a
    /// pop finds the lowest filled bucket with one bit scan rather than looking at up to 64:
    /// after a pop the next entries often sit 30 buckets up. (Keys are below 2^56, so
    /// bucket 64 stays empty.)
    filled: u64,
    /// Set for keys that may go below the last popped one: every entry goes to `heap`.
    any_order: bool,
    /// The entries of an any-order search, lowest key first and among equal keys the
    /// last pushed (the push count is the middle element).
    heap: BinaryHeap<Reverse<(u64, Reverse<u32>, u32)>>,
    /// Entries pushed since the list was last cleared (ties' order in `heap`).
    pushed: u32,
}

impl Default for OpenList {
    fn default() -> Self {
        OpenList {
            last: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
            filled: 0,
            any_order: false,
            heap: BinaryHeap::new(),
            pushed: 0,
        }
    }
}

impl OpenList {
    /// Low bits of a length's IEEE-754 bits left out of its key (see [`OpenList::key`]).
    const DROPPED_BITS: u32 = 8;

    /// The key of length `f`: its IEEE-754 bits without the lowest [`OpenList::DROPPED_BITS`],
    /// 0 for a length of 0 or less (and NaN). The bits of lengths of 0 or more order as
    /// the lengths do, so keys never go down as lengths go up; dropping 8 of the 52
    /// mantissa bits makes lengths within about 2^-44 of each other (relative) mostly
    /// share a key, so that two equal lengths summed in different orders stay a tie,
    /// popped last in, first out, as the fixed point at 2^-32 of a cell (`(f · 2^32) as
    /// u64`) had them, with the same expansions on the maps measured; two distinct octile
    /// lengths of a map a few thousand cells wide lie much further apart. One shift where
    /// the fixed point took a multiplication, a conversion and its range tests: ≈ 10
    /// instructions of every push, −1.5 % of an exact subgoal query (session 44).
    #[inline(always)]
    fn key(f: f64) -> u64 {
        if f > 0.0 {
            f.to_bits() >> Self::DROPPED_BITS
        } else {
            0
        }
    }

    #[inline]
    fn bucket(key: u64, last: u64) -> usize {
        (u64::BITS - (key ^ last).leading_zeros()) as usize
    }

    /// Empties the list, back to keys that never decrease.
    pub fn clear(&mut self) {
        self.last = 0;
        for b in &mut self.buckets {
            b.clear();
        }
        self.filled = 0;
        self.any_order = false;
        self.heap.clear();
        self.pushed = 0;
    }

    /// Lets the keys of the searches until the next [`OpenList::clear`] go below the last
    /// popped one (weighted A\*): each pop is then still a lowest key, from a binary heap.
    /// Call on an empty list.
    pub fn set_any_order(&mut self) {
        debug_assert!(self.is_empty(), "the order changes on an empty list only");
        self.any_order = true;
    }

    /// Whether no entry is left.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
            && self.filled & !1 == 0
            && self.buckets[0].is_empty()
            && self.buckets[64].is_empty()
    }

    /// Adds `node` with key `f`, which must not be below the last key popped by more
    /// than rounding unless the list was [set to any order](OpenList::set_any_order).
    #[inline]
    pub fn push(&mut self, f: f64, node: u32) {
        if self.any_order {
            self.pushed = self.pushed.wrapping_add(1);
            let key = Self::key(f);
            self.heap.push(Reverse((key, Reverse(self.pushed), node)));
            return;
        }
        // Rounding can put a child a hair below its parent's `f`: it is popped next anyway.
        let key = Self::key(f).max(self.last);
        self.file(key, node);
    }

    /// [`OpenList::push`] for a search whose keys never decrease (the list not [set to
    /// any order](OpenList::set_any_order)) and whose lengths are never below `+0.0` (no
    /// `-0.0`, no NaN): the radix heap's path alone, without the test of the order nor
    /// [`OpenList::key`]'s test of the sign, for exact A\*'s loops over the subgoals, which
    /// push on every offer they file. The key is [`OpenList::key`]'s: the bits of `+0.0`
    /// are 0.
    #[inline]
    pub fn push_monotone(&mut self, f: f64, node: u32) {
        debug_assert!(!self.any_order, "a monotone push into an any-order list");
        debug_assert!(f >= 0.0 && f.is_sign_positive(), "a length below +0.0: {f}");
        let key = (f.to_bits() >> Self::DROPPED_BITS).max(self.last);
        self.file(key, node);
    }

    /// Files entry `(key, node)`, `key` at least `last`, in its bucket.
    #[inline]
    fn file(&mut self, key: u64, node: u32) {
        let b = Self::bucket(key, self.last);
        self.buckets[b].push((key, node));
        // Bit 0 stands for buckets 0 and 64 (see `filled`): one `or` of a shift.
        self.filled |= 1 << (b & 63);
    }

    /// Removes a node with the lowest key; among equal keys the last pushed.
    #[inline]
    pub fn pop(&mut self) -> Option<u32> {
        if self.any_order {
            let Reverse((key, _, node)) = self.heap.pop()?;
            self.last = key;
            return Some(node);
        }
        if self.buckets[0].is_empty() {
            let b = match self.filled & !1 {
                0 if self.buckets[64].is_empty() => return None,
                0 => 64,
                higher => {
                    self.filled &= !(1 << higher.trailing_zeros());
                    higher.trailing_zeros() as usize
                }
            };
            let moved = std::mem::take(&mut self.buckets[b]);
            debug_assert!(!moved.is_empty(), "a bucket marked filled holds entries");
            self.last = moved
                .iter()
                .map(|e| e.0)
                .min()
                .expect("bucket is not empty");
            // Every entry lands in a lower bucket: they all share bits above `b - 1` with
            // the new `last`, and the minimum itself lands in bucket 0.
            for &(key, node) in &moved {
                self.file(key, node);
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

    /// The tests' random numbers: xorshift64 from a fixed seed.
    fn xorshift() -> impl FnMut() -> u64 {
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        }
    }

    /// Pops come out in key order while pushes never go below the last pop, as in A\*
    /// with a consistent heuristic; checked against sorting.
    #[test]
    fn open_list_pops_in_order() {
        let mut next = xorshift();
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
                // Lengths within 2^-44 of each other (relative) may share a key.
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

    /// Keys of lengths far apart (a few cells and billions) pop in order across the
    /// highest buckets, and a push between two keys of a bucket already split.
    #[test]
    fn keys_in_the_top_bucket_pop_in_order() {
        let mut open = OpenList::default();
        let keys = [1.0, 3.0e9, 3.5e9, 2.5e9, 2.0, 4.0e9];
        for (node, &f) in keys.iter().enumerate() {
            open.push(f, node as u32);
        }
        assert_eq!(open.pop(), Some(0));
        assert_eq!(open.pop(), Some(4));
        // The next lowest lies in bucket 64 alone: the pop must find it there.
        assert_eq!(open.pop(), Some(3));
        // A push between two keys of the old top bucket, after it was split.
        open.push(3.2e9, 6);
        let rest: Vec<u32> = std::iter::from_fn(|| open.pop()).collect();
        assert_eq!(rest, vec![1, 6, 2, 5]);
        assert!(open.is_empty());
        assert_eq!(open.pop(), None);
    }

    /// A length's key is its bits without the lowest eight (0 at and below 0, and for
    /// NaN), keys never go down as lengths go up, over the ends (0, −0, negative lengths,
    /// NaN, infinity, the largest) and a spread of lengths from 2^-20 to 2^60 cells with
    /// their neighbours; and lengths more than 2^-40 apart (relative) get distinct keys.
    /// Dropping the clamp of negative lengths (their bits are the largest), or keeping
    /// too few bits, fails this.
    #[test]
    fn keys_order_as_the_lengths() {
        let mut lengths = vec![
            0.0,
            -0.0,
            -1e-12,
            -3.0,
            -1e300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
            2f64.powi(31),
            2f64.powi(32),
            2f64.powi(64),
            1.0 / 3.0,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let f =
                (state >> 11) as f64 / (1u64 << 53) as f64 * 2f64.powi((state % 81) as i32 - 20);
            // The length and its neighbours (`next_down` and `next_up` are newer than the
            // crate's Rust version), and one 2^-40 further up.
            lengths.extend([
                f,
                f64::from_bits(f.to_bits() - 1),
                f64::from_bits(f.to_bits() + 1),
                f * (1.0 + 2f64.powi(-40)),
            ]);
        }
        for &f in &lengths {
            let expected = if f > 0.0 { f.to_bits() >> 8 } else { 0 };
            assert_eq!(OpenList::key(f), expected, "{f:e}");
        }
        let mut ordered: Vec<f64> = lengths.iter().copied().filter(|f| !f.is_nan()).collect();
        ordered.sort_by(f64::total_cmp);
        for pair in ordered.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert!(OpenList::key(a) <= OpenList::key(b), "{a:e} then {b:e}");
            if a > 0.0 && b > a * (1.0 + 2f64.powi(-40)) {
                assert!(
                    OpenList::key(a) < OpenList::key(b),
                    "{a:e} and {b:e} share a key"
                );
            }
        }
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

    /// Set to any order, the list pops a lowest key even when pushes go below the last
    /// pop (weighted A\*), equal keys last in, first out; checked against sorting.
    #[test]
    fn any_order_pops_a_lowest_key() {
        let mut open = OpenList::default();
        open.set_any_order();
        let mut model: Vec<(f64, u32)> = Vec::new();
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        for step in 0..5_000u32 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            if rng % 3 != 0 || model.is_empty() {
                let f = (rng >> 8) as f64 % 50_000.0 / 100.0;
                open.push(f, step);
                model.push((f, step));
            } else {
                let node = open.pop().expect("the model is not empty");
                let min = model.iter().map(|e| e.0).fold(f64::INFINITY, f64::min);
                let i = model.iter().position(|e| e.1 == node).expect("pushed");
                assert!(
                    model[i].0 <= min + 1e-9,
                    "popped {} before {min}",
                    model[i].0
                );
                // Among the lowest, the last pushed.
                let last_lowest = model
                    .iter()
                    .filter(|e| e.0 <= min + 1e-9)
                    .map(|e| e.1)
                    .max();
                assert_eq!(Some(node), last_lowest);
                model.swap_remove(i);
            }
        }
        open.clear();
        assert!(open.is_empty());
        open.push(3.0, 1);
        open.push(1.0, 2);
        assert_eq!(
            open.pop(),
            Some(2),
            "cleared, the list is a radix heap again"
        );
        assert_eq!(open.pop(), Some(1));
    }

    /// Exact A\*'s pushes (`push_monotone`, no test of the order nor of the sign) file
    /// each length of 0 or more under the key `push` gives it: two lists fed the same
    /// pushes and pops, one by each, pop the same nodes in the same order, over +0,
    /// lengths that repeat, and lengths a few units of the last place apart (which share
    /// a key and pop last in, first out). Keying by all the bits, or by too few, fails
    /// this.
    #[test]
    fn monotone_pushes_file_as_pushes() {
        let mut next = xorshift();
        let (mut by_push, mut by_monotone) = (OpenList::default(), OpenList::default());
        let mut last = 0.0f64;
        for step in 0..20_000u32 {
            if next() % 3 != 0 {
                // From the last length popped up: +0 itself, a repeat, a length a few
                // units of the last place above it, or one up to 50 cells more.
                let f = match next() % 4 {
                    0 if step < 10 => 0.0,
                    0 => last,
                    1 => f64::from_bits(last.to_bits() + next() % 300),
                    _ => last + (next() % 50_000) as f64 / 1000.0,
                };
                by_push.push(f, step);
                by_monotone.push_monotone(f, step);
            } else {
                let popped = by_push.pop();
                assert_eq!(by_monotone.pop(), popped, "step {step}");
                if popped.is_none() {
                    continue;
                }
            }
            last = f64::from_bits(by_push.last << OpenList::DROPPED_BITS);
        }
        while let Some(node) = by_push.pop() {
            assert_eq!(by_monotone.pop(), Some(node));
        }
        assert!(by_monotone.is_empty());
    }
}
