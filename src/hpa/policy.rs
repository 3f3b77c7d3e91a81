//! Which border crossings between two adjacent free leaves become gates.

use crate::geom::{Cell, Direction, Rect};
use crate::grid::Grid;

/// Which of the legal crossings between two adjacent free leaves become gate pairs.
///
/// Every policy keeps at least one crossing between two leaves whenever any exists, so the
/// connectivity of the gate graph, and with it the answer "reachable or not", never depends
/// on the policy. Only [`GatePolicy::All`] keeps optimality.
///
/// ```
/// use quadpath::{Cell, Config, GatePolicy, Grid, HpaMap};
/// let grid = Grid::from_fn(64, 64, |x, y| x != 32 || y >= 40);
/// let every = HpaMap::new(grid.clone(), Config::exact().with_subgoals(false))?;
/// let ends = HpaMap::new(grid, Config::exact().with_gates(GatePolicy::Ends))?;
/// assert!(ends.gate_count() < every.gate_count());
/// // Fewer gates, same connectivity: only the path lengths may suffer.
/// assert!(ends.connected(Cell::new(0, 0), Cell::new(63, 0))?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum GatePolicy {
    /// Every legal crossing, straight and diagonal, anywhere along the border: paths are
    /// optimal (see the crate docs for why).
    #[default]
    All,
    /// Straight crossings every `n` cells (`n` ≥ 1) along each shared border, plus both of
    /// its ends.
    Step(u32),
    /// Straight crossings at a spacing that grows with the border's length, plus both
    /// ends: a quarter of the border's length, but at least 8 and at most 32 cells, so a
    /// border of up to 9 cells gets only its two ends and a long open one a gate every
    /// 32 cells. Smoothing recovers most of the detour. The default of the fast mode.
    Adaptive,
    /// Only the two ends of every shared border.
    Ends,
}

/// The gate spacing [`GatePolicy::Adaptive`] uses on a border `len` cells long.
fn adaptive_step(len: u32) -> u32 {
    (len / 4).clamp(8, 32)
}

impl GatePolicy {
    fn step(self, len: u32) -> u32 {
        match self {
            GatePolicy::All => 1,
            GatePolicy::Step(n) => n.max(1),
            GatePolicy::Adaptive => adaptive_step(len),
            GatePolicy::Ends => len.max(1),
        }
    }

    /// Checks the policy's parameters.
    pub(crate) fn validate(self) -> Result<(), super::error::ConfigError> {
        match self {
            GatePolicy::Step(0) => Err(super::error::ConfigError::ZeroGateStep),
            _ => Ok(()),
        }
    }

    /// The positions this policy picks on a run of border cells `lo..=hi`: both ends and
    /// the points in between at the policy's step.
    pub(crate) fn positions(self, lo: u32, hi: u32) -> impl Iterator<Item = u32> {
        let step = self.step(hi - lo + 1);
        let mut next = Some(lo);
        std::iter::from_fn(move || {
            let t = next?;
            next = (t < hi).then(|| t.saturating_add(step).min(hi));
            Some(t)
        })
    }
}

/// Appends to `out` the crossings `(a, b)`, `a` in leaf `ra` and `b` in leaf `rb`, that
/// `policy` keeps. Both leaves must be free and must not overlap.
pub(crate) fn select_crossings(
    grid: &Grid,
    ra: Rect,
    rb: Rect,
    policy: GatePolicy,
    out: &mut Vec<(Cell, Cell)>,
) {
    // Only cells of `ra` within one step of `rb` can cross into it: a strip one cell wide
    // along the shared edge, or a single corner cell.
    let reach = Rect {
        x1: rb.x1.saturating_sub(1),
        y1: rb.y1.saturating_sub(1),
        x2: rb.x2.saturating_add(1),
        y2: rb.y2.saturating_add(1),
    };
    let Some(strip) = ra.intersection(&reach) else {
        return;
    };
    let start = out.len();
    if policy == GatePolicy::All {
        for a in strip.cells() {
            push_steps_into(grid, a, rb, Direction::ALL, out);
        }
        return;
    }
    // Sparse policies: straight crossings at chosen points of the shared edge. Both leaves
    // are free, so every straight crossing along their overlap is legal.
    let vertical_edge = ra.x2 + 1 == rb.x1 || rb.x2 + 1 == ra.x1;
    let horizontal_edge = ra.y2 + 1 == rb.y1 || rb.y2 + 1 == ra.y1;
    let overlap = if vertical_edge {
        (ra.y1.max(rb.y1), ra.y2.min(rb.y2))
    } else if horizontal_edge {
        (ra.x1.max(rb.x1), ra.x2.min(rb.x2))
    } else {
        (1, 0)
    };
    if overlap.0 <= overlap.1 {
        let (lo, hi) = overlap;
        for t in policy.positions(lo, hi) {
            let (a, b) = if vertical_edge {
                let (xa, xb) = if ra.x2 < rb.x1 {
                    (ra.x2, rb.x1)
                } else {
                    (ra.x1, rb.x2)
                };
                (Cell::new(xa, t), Cell::new(xb, t))
            } else {
                let (ya, yb) = if ra.y2 < rb.y1 {
                    (ra.y2, rb.y1)
                } else {
                    (ra.y1, rb.y2)
                };
                (Cell::new(t, ya), Cell::new(t, yb))
            };
            out.push((a, b));
        }
    } else {
        // Corner contact only: the single diagonal crossing, if legal.
        for a in strip.cells() {
            push_steps_into(grid, a, rb, Direction::DIAGONALS, out);
        }
    }
    debug_assert!(out[start..]
        .iter()
        .all(|&(a, b)| ra.contains(a) && rb.contains(b)));
}

fn push_steps_into(
    grid: &Grid,
    a: Cell,
    rb: Rect,
    dirs: impl IntoIterator<Item = Direction>,
    out: &mut Vec<(Cell, Cell)>,
) {
    for dir in dirs {
        if let Some(b) = a.step(dir) {
            if rb.contains(b) && grid.can_step(a, dir) {
                out.push((a, b));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_includes_side_diagonals() {
        // Two 3x3 free leaves side by side: 3 straight + 2 + 2 diagonal crossings.
        let g = Grid::new_free(6, 3);
        let mut out = vec![];
        select_crossings(
            &g,
            Rect::new(0, 0, 2, 2),
            Rect::new(3, 0, 5, 2),
            GatePolicy::All,
            &mut out,
        );
        assert_eq!(out.len(), 7);
        assert!(out.contains(&(Cell::new(2, 0), Cell::new(3, 1))));
    }

    #[test]
    fn diagonal_beyond_the_overlap_respects_corners() {
        // Leaf A = column 0 rows 0..1, leaf B = column 1 rows 1..2; cell (1,0) is blocked,
        // so the diagonal (0,0)->(1,1) is legal only through... nothing: corner cut.
        let mut g = Grid::new_free(2, 3);
        g.set_blocked(Cell::new(1, 0), true);
        let mut out = vec![];
        select_crossings(
            &g,
            Rect::new(0, 0, 0, 1),
            Rect::new(1, 1, 1, 2),
            GatePolicy::All,
            &mut out,
        );
        // (0,1)->(1,1) straight, (0,1)->(1,2) diagonal (corners (1,1),(0,2) free).
        assert_eq!(
            out,
            vec![
                (Cell::new(0, 1), Cell::new(1, 1)),
                (Cell::new(0, 1), Cell::new(1, 2))
            ]
        );
    }

    #[test]
    fn sparse_policies_keep_both_ends() {
        let g = Grid::new_free(2, 20);
        let (a, b) = (Rect::new(0, 0, 0, 19), Rect::new(1, 0, 1, 19));
        let mut out = vec![];
        select_crossings(&g, a, b, GatePolicy::Ends, &mut out);
        assert_eq!(
            out,
            vec![
                (Cell::new(0, 0), Cell::new(1, 0)),
                (Cell::new(0, 19), Cell::new(1, 19))
            ]
        );
        out.clear();
        select_crossings(&g, a, b, GatePolicy::Step(8), &mut out);
        let ys: Vec<u32> = out.iter().map(|(c, _)| c.y).collect();
        assert_eq!(ys, vec![0, 8, 16, 19]);
    }
}
