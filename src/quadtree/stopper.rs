//! The rule that decides whether a node stays a leaf.

use crate::geom::Rect;
use std::fmt;

type StopFn = dyn Fn(Rect, u64, bool) -> bool + Send + Sync;

/// Decides when a node must **not** split, from its rectangle, the number `n` of objects
/// it holds and whether they are all of one kind (see [`QuadTree::build_with_kinds`]:
/// objects have kind 0 unless the tree was given a kind function). A 1×1 node never
/// splits, whatever the stopper says.
///
/// [`QuadTree::build_with_kinds`]: super::QuadTree::build_with_kinds
///
/// The tree's shape is a pure function of the object set and the stopper: a node is split
/// exactly when the stopper refuses to stop it and all its ancestors are split. A stopper
/// must therefore be deterministic.
///
/// ```
/// use quadpath::quadtree::SplitStopper;
/// // Collision buckets of at most 4 objects, and never larger than 32×32.
/// let s = SplitStopper::max_objects(4).with_max_leaf_side(32);
/// # let _ = s;
/// // Any rule of width, height and count:
/// let s = SplitStopper::by_size(|w, h, n| n <= 2 || w * h <= 16);
/// # let _ = s;
/// // Or of where the node is: finer buckets over a base in the top-left 100×100 cells.
/// let base = quadpath::Rect::new(0, 0, 99, 99);
/// let s = SplitStopper::by_rect(move |r, n| n <= if r.intersects(&base) { 1 } else { 8 });
/// # let _ = s;
/// ```
pub struct SplitStopper {
    stop: Box<StopFn>,
}

impl SplitStopper {
    /// A stopper from `stop(w, h, n)`.
    pub fn by_size(stop: impl Fn(u32, u32, u64) -> bool + Send + Sync + 'static) -> Self {
        SplitStopper {
            stop: Box::new(move |r: Rect, n, _| stop(r.width(), r.height(), n)),
        }
    }

    /// A stopper from `stop(rect, n)`, where `rect` is the cells the node covers, for rules
    /// that depend on where the node is.
    pub fn by_rect(stop: impl Fn(Rect, u64) -> bool + Send + Sync + 'static) -> Self {
        SplitStopper {
            stop: Box::new(move |r, n, _| stop(r, n)),
        }
    }

    /// A stopper from `stop(rect, n, one_kind)`, where `one_kind` says whether the node's
    /// objects are all of one kind (always true for a node without objects).
    ///
    /// ```
    /// use quadpath::quadtree::SplitStopper;
    /// // Buckets of at most 8 objects, and of one kind only.
    /// let s = SplitStopper::by_contents(|_, n, one_kind| n <= 8 && one_kind);
    /// assert!(!s.stops_with_kinds(quadpath::Rect::new(0, 0, 3, 3), 2, false));
    /// ```
    pub fn by_contents(stop: impl Fn(Rect, u64, bool) -> bool + Send + Sync + 'static) -> Self {
        SplitStopper {
            stop: Box::new(stop),
        }
    }

    /// Leaves hold at most `k` objects: collision-style buckets.
    pub fn max_objects(k: u64) -> Self {
        Self::by_size(move |_, _, n| n <= k)
    }

    /// Every leaf is empty, or full of objects of one kind (`n == 0 || n == w·h` and one
    /// kind): with one object per blocked cell, every leaf is all-free or all-blocked, the
    /// decomposition pathfinding needs; with one object per cell that differs from the
    /// common case, kinded by what it is (blocked, or the band of its terrain cost), every
    /// leaf is uniform in both.
    pub fn uniform() -> Self {
        Self::by_contents(|r, n, one_kind| {
            n == 0 || (one_kind && n == r.width() as u64 * r.height() as u64)
        })
    }

    /// Also split every node wider or higher than `side` cells, whatever this stopper says.
    pub fn with_max_leaf_side(self, side: u32) -> Self {
        let inner = self.stop;
        SplitStopper {
            stop: Box::new(move |r: Rect, n, one_kind| {
                r.width() <= side && r.height() <= side && inner(r, n, one_kind)
            }),
        }
    }

    /// Whether a node covering `rect` and holding `n` objects, all of one kind, must stay
    /// a leaf.
    #[inline]
    pub fn stops(&self, rect: Rect, n: u64) -> bool {
        self.stops_with_kinds(rect, n, true)
    }

    /// Whether a node covering `rect` and holding `n` objects must stay a leaf, `one_kind`
    /// saying whether they are all of one kind.
    #[inline]
    pub fn stops_with_kinds(&self, rect: Rect, n: u64, one_kind: bool) -> bool {
        (rect.x1 == rect.x2 && rect.y1 == rect.y2) || (self.stop)(rect, n, one_kind)
    }
}

impl fmt::Debug for SplitStopper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SplitStopper(..)")
    }
}
