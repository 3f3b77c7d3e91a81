//! The rule that decides whether a node stays a leaf.

use crate::geom::Rect;
use std::fmt;

type StopFn = dyn Fn(Rect, u64) -> bool + Send + Sync;

/// Decides when a node must **not** split, from its rectangle and the number `n` of objects
/// it holds. A 1×1 node never splits, whatever the stopper says.
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
/// let base = quadpath::Rect::from_size(0, 0, 100, 100);
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
            stop: Box::new(move |r: Rect, n| stop(r.width(), r.height(), n)),
        }
    }

    /// A stopper from `stop(rect, n)`, where `rect` is the cells the node covers, for rules
    /// that depend on where the node is.
    pub fn by_rect(stop: impl Fn(Rect, u64) -> bool + Send + Sync + 'static) -> Self {
        SplitStopper {
            stop: Box::new(stop),
        }
    }

    /// Leaves hold at most `k` objects: collision-style buckets.
    pub fn max_objects(k: u64) -> Self {
        Self::by_size(move |_, _, n| n <= k)
    }

    /// Every leaf is empty or full (`n == 0 || n == w·h`): with one object per blocked cell,
    /// every leaf is all-free or all-blocked, the decomposition pathfinding needs.
    pub fn uniform() -> Self {
        Self::by_size(|w, h, n| n == 0 || n == w as u64 * h as u64)
    }

    /// Also split every node wider or higher than `side` cells, whatever this stopper says.
    pub fn with_max_leaf_side(self, side: u32) -> Self {
        let inner = self.stop;
        SplitStopper {
            stop: Box::new(move |r: Rect, n| {
                r.width() <= side && r.height() <= side && inner(r, n)
            }),
        }
    }

    /// Whether a node covering `rect` and holding `n` objects must stay a leaf.
    #[inline]
    pub fn stops(&self, rect: Rect, n: u64) -> bool {
        (rect.x1 == rect.x2 && rect.y1 == rect.y2) || (self.stop)(rect, n)
    }
}

impl fmt::Debug for SplitStopper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SplitStopper(..)")
    }
}
