//! Taut-path pruning of the subgoal search (after Uras and Koenig): a subgoal `s` reached
//! over a hop from `p` relaxes only the hops `s → t` after which the route may still be
//! a shortest one, judged from the moves of the two hops and the blocked cells diagonal
//! to `s`.
//!
//! # Hops and their moves
//! A *hop* is an edge of the subgoal graph, or a tie of the start or the goal to a subgoal
//! its cone scan reached: two cells `a`, `b` with `d = b − a`, walked in
//! `min(|dx|, |dy|)` diagonal moves `D` and `||dx| − |dy||` straight moves `C` (one kind
//! may be absent). Its *sector* names that set of moves: one of the eight directions, or
//! the octant between two neighbouring ones.
//!
//! **Lemma 1 (every order is legal).** Every ordering of a hop's moves is a legal path
//! (free cells, no corner cut). The cone scan from `a` reports `b = a + i·D + r·C` at the
//! end of the run from the diagonal cell `d_i = a + i·D`, and runs never grow, so every
//! cell `a + i'·D + j'·C` with `i' ≤ i`, `j' ≤ r` (the *parallelogram*) is free, and those
//! with `j' < r` are passed by a run and so are no subgoals (nor are `d_1 … d_i` when
//! `r ≥ 1`, nor `d_1 … d_(i−1)`: the walk stops at a subgoal). A diagonal move inside the
//! parallelogram, from `u = a + i'·D + j'·C`, has the corner cells `u + C` and
//! `u + D − C`, inside it unless `j' = r` or `j' = 0`. At `j' = 0` the move is the scan's
//! own diagonal step, checked. At `j' = r ≥ 1` the corner `u + C` is outside; were it
//! blocked, the cell `z = u + D − C` (run cell `j' = r − 1` of `d_(i'+1)`) would have
//! the blocked cell `u + C` diagonal to it and the free cells `u + D` and `u` beside that
//! diagonal: a subgoal where none can be. So the corner is free. The statement is
//! symmetric in `a` and `b`, so it holds whichever end's scan found the hop.
//!
//! **Lemma 2 (a bad turn can be cut).** Let a path enter `s` by move `m₁` from
//! `a = s − m₁` and leave it by move `m₂` to `b = s + m₂`. If the angle between `m₁` and
//! `m₂` is 90° or more, then `a → s → b` can be replaced by a strictly shorter legal path,
//! except when both moves are straight and the cell `s + m₂ − m₁` is blocked:
//! - 180°: `b = a`, drop the loop;
//! - 135° (one straight, one diagonal): `b − a` is one straight move, 1 < 1 + √2;
//! - 90°, both diagonal: `b − a = 2e` for a straight `e`, and `a + e` is a corner cell of
//!   the legal move `m₁`, so `a → a + e → b` is legal, 2 < 2√2;
//! - 90°, both straight: the diagonal move `a → b` (√2 < 2) has the corner cells `s` and
//!   `s + m₂ − m₁`; legal unless the latter is blocked (`s` then wraps that corner).
//!
//! Call the pair `(m₁, m₂)` *admissible* at `s` when the angle is at most 45°, or when
//! both are straight, at 90°, and `s + m₂ − m₁` is blocked (or off the map).
//!
//! # The rule
//! Expanding `s` entered over the hop of sector `M₁`, the search relaxes a hop of sector
//! `M₂` out of `s` only if **every** pair `m₁ ∈ M₁`, `m₂ ∈ M₂` is admissible. (The goal is
//! always offered, and a subgoal entered with no hop, the start itself, relaxes every
//! hop.)
//!
//! # Why the search stays exact
//! Say `s` is closed with its optimal cost `g(s)` (over the graph the search crosses) and
//! lies on a shortest route to the goal, and its recorded hop enters it from `p`. A
//! shortest continuation from `s` exists whose first hop `s → t` is an edge (the subgoal
//! theorem, see `hpa::subgoals`; over the levels the contraction argument of `levels/mod.rs`
//! gives one whose first arc leaves `s` upwards or along a global edge, and `t` is the
//! first subgoal of that arc unpacked), unless `s` reaches the goal directly, which the
//! goal's marks offer. The route `start ⇝ p → s → t ⇝ goal` with *any* ordering of the
//! moves of the hops `p → s` and `s → t` (all legal by Lemma 1) is as long as a shortest
//! route, so it cannot be cut: by Lemma 2 the last move into `s` and the first move out of
//! it are admissible, and since every ordering is legal, every pair of `M₁ × M₂` is. So
//! the rule keeps `s → t`, and `t` is reached at its optimal cost. Pops never decrease
//! (consistent bound), so `t` cannot have been closed earlier at a higher cost (it would
//! have popped with a key above `s`'s). This holds for whichever optimal parent `s`
//! recorded, so ties need no care; following such hops from the start reaches the goal
//! at the optimal cost before any longer route can pop.
//!
//! The blocked diagonal neighbours the rule depends on are kept per subgoal by the graph
//! ([`BlockedDiagonals`], refreshed by its update for every subgoal within one cell of a
//! changed cell, the only cells whose diagonal neighbours can change), so the search reads
//! one byte and not the grid; `tests/suite/subgoal_props.rs` compares them with a fresh
//! build's after random edits.
//!
//! Over the levels the rule reads an arc's *first* hop (out of its source) and *last*
//! hop (into its far end), which a shortcut takes from the arcs it joins.
//! `tests/suite/subgoal_props.rs` checks paths against Dijkstra with and without the
//! levels; dropping the corner exception of Lemma 2 makes it fail.
//!
//! # Ends on subgoals
//! A start on a subgoal `s` is the search's one tie, entered with no hop, and its cone
//! scan is not made (nor the goal's, for a goal on a subgoal, which is its one mark with
//! no way out). *Why it stays exact*: the argument above needs a closed subgoal on a
//! shortest route with its optimal cost, and `s`, at cost 0, lies on every route from
//! the start; entered with no hop it relaxes every hop (or every upward arc and global
//! edge) out of it, so the induction runs from `s` alone, and the subgoals its scan would
//! have offered are reached through it at no more than their hop's length. On the goal's
//! side, a shortest route to a goal on subgoal `g` ends at `g`, so over the levels its
//! part after its highest subgoal descends to `g` itself, which is marked with its true
//! distance 0 (the induction below starts at `v_j = g`); without levels the search meets
//! `g` itself. (The scans gave extra entries only, each at a hop through which a route
//! from `s` or into `g` is no shorter.) `tests/suite/subgoal_props.rs` and
//! `subgoal_taut.rs` check queries from and to subgoals against Dijkstra; dropping the
//! start's own tie, or the goal's own mark, makes them fail.
//!
//! # Backwards: the goal's upward marks
//! Over the levels the goal's side is a small search of its own: from the subgoals the
//! goal's cone scan reached, up the locals' upward arcs level by level, each subgoal
//! marked with its distance to the goal and the way down (see
//! `SearchContext::mark_subgoal_goal`). A
//! marked local `u` records the sector `L` of the first hop of its way down (the scan's
//! hop `u → goal` for a goal tie, none when `u` is the goal itself) and follows an upward
//! arc `u → v` only if a route coming down that arc into `u` may leave it by `L`: every
//! pair of the moves of the arc's first hop walked back, `reversed(first)`, and of `L`
//! is admissible ([`arrivals`], the same table as the forward rule read from the far end).
//!
//! *Why the marks stay exact where the search needs them.* The levels give a shortest
//! route whose part after its highest subgoal `m` descends `m = v₀ → v₁ → … → v_j →
//! goal` over upward arcs walked back and a goal tie. Each `v_i` is marked with its true
//! distance to the goal, by induction from `v_j`: a goal tie is marked with its octile
//! distance, its true one (the scan's walk), and nothing marks below the truth (every
//! mark is the length of a walkable way). Say `v_(i+1)` is marked with its true distance
//! over a recorded way of first-hop sector `L`. Then `v_i`, down the arc to `v_(i+1)`,
//! then that way, is as long as the route's part from `v_i`, so a shortest path; by
//! Lemma 1 every ordering of the moves of the arc's last hop into `v_(i+1)` and of the
//! way's first hop is legal, so none can be cut and by Lemma 2 every pair is admissible:
//! the arc is followed and `v_i` is marked with its true distance. Locals are taken level
//! by level and upward arcs climb, so a local's mark and `L` are final before its arcs
//! are read, and which of several equally short ways it recorded does not matter (the
//! argument holds for any). So `m` is marked exactly, and the forward search meets it as
//! before; a subgoal left unmarked or marked above its distance only loses a meeting no
//! shortest route needs (marks never go below the truth, so the bound of a weighted
//! search holds too). The same tests fail when the backward rule drops the reversal of
//! the arc's hop.

use crate::geom::Cell;
use crate::grid::Grid;

/// A sector: the moves of a hop. `0..8` one direction of [`DIRECTIONS`], `8 + k` the two
/// directions `k` and `k + 1`; [`NO_HOP`] for a subgoal entered with no hop.
pub(crate) type Sector = u8;

/// The sector of a subgoal entered with no hop (the start itself): it prunes nothing.
pub(crate) const NO_HOP: Sector = 16;

/// The eight moves, turning 45° from one to the next; even indices are straight.
const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// The index in [`DIRECTIONS`] of the move `(sx, sy)` (each −1, 0 or 1, not both 0).
const fn direction(sx: i32, sy: i32) -> u8 {
    let mut k = 0;
    while k < 8 {
        if DIRECTIONS[k].0 == sx && DIRECTIONS[k].1 == sy {
            return k as u8;
        }
        k += 1;
    }
    panic!("not a move")
}

/// The index in [`DIRECTIONS`] of each move, by `3 (sy + 1) + sx + 1` ([`NO_HOP`] for
/// no move): the search over the whole graph (no levels) and the levels' build compute
/// the sector of every hop they take, and a table read is cheaper than searching
/// [`DIRECTIONS`]. (A query's two scans get theirs as constants, see [`sector_of`].)
const DIRECTION_OF: [u8; 9] = {
    let mut table = [NO_HOP; 9];
    let mut i = 0;
    while i < 9 {
        let (sx, sy) = ((i % 3) as i32 - 1, (i / 3) as i32 - 1);
        if sx != 0 || sy != 0 {
            table[i] = direction(sx, sy);
        }
        i += 1;
    }
    table
};

/// [`direction`] read from [`DIRECTION_OF`].
#[inline(always)]
const fn direction_of(sx: i64, sy: i64) -> u8 {
    DIRECTION_OF[(3 * (sy + 1) + sx + 1) as usize]
}

/// The sector of the hop from `a` to `b` (distinct cells), read from [`SECTOR_BY_SIGNS`]:
/// the contraction's set-up takes the sector of every edge of the graph both ways, and
/// [`sector_of`]'s branches and sign arithmetic were half of that (17M instructions a thread on
/// Cauldron's 335,000 arcs with it, against 34.7M in all).
#[inline]
pub(crate) fn sector(a: Cell, b: Cell) -> Sector {
    SECTOR_BY_SIGNS[sign_index(b.x as i64 - a.x as i64, b.y as i64 - a.y as i64)]
}

/// What [`sector_of`] depends on, as an index into [`SECTOR_BY_SIGNS`]: the signs of `dx`
/// and `dy` and how `|dx|` compares with `|dy|` (each −1, 0 or 1, plus one, in base 3).
/// `|dx|` is 0 exactly when `dx` is, so `sector_of` reads nothing else.
#[inline(always)]
const fn sign_index(dx: i64, dy: i64) -> usize {
    let (ax, ay) = (dx.unsigned_abs(), dy.unsigned_abs());
    let order = (ax > ay) as usize + 1 - (ax < ay) as usize;
    9 * ((dx > 0) as usize + 1 - (dx < 0) as usize)
        + 3 * ((dy > 0) as usize + 1 - (dy < 0) as usize)
        + order
}

/// [`sector_of`] by [`sign_index`]: one displacement of each index (the smallest: every
/// coordinate between −2 and 2 gives every sign and order), [`NO_HOP`] at the index of no move.
const SECTOR_BY_SIGNS: [Sector; 27] = {
    let mut table = [NO_HOP; 27];
    let mut dx = -2;
    while dx <= 2 {
        let mut dy = -2;
        while dy <= 2 {
            if dx != 0 || dy != 0 {
                table[sign_index(dx, dy)] = sector_of(dx, dy);
            }
            dy += 1;
        }
        dx += 1;
    }
    table
};

/// The sector of a hop of displacement `(dx, dy)` (not both 0). Inlined: the cone scans
/// call it with constant displacements, which fold it to a constant (see
/// `SubgoalGraph::reach_ids`).
#[inline(always)]
pub(crate) const fn sector_of(dx: i64, dy: i64) -> Sector {
    debug_assert!(dx != 0 || dy != 0, "a hop joins two cells");
    let (sx, sy) = (dx.signum(), dy.signum());
    let (ax, ay) = (dx.abs(), dy.abs());
    // The move of the hop's signs: its one direction when it is straight or diagonal,
    // else its diagonal move.
    let diagonal = direction_of(sx, sy);
    if ax == ay || ax == 0 || ay == 0 {
        return diagonal;
    }
    let straight = if ax > ay {
        direction_of(sx, 0)
    } else {
        direction_of(0, sy)
    };
    // The octant between two neighbouring directions is named by the first, turning
    // in index order.
    8 + if (straight + 1) % 8 == diagonal {
        straight
    } else {
        diagonal
    }
}

/// The sector of the same hop walked the other way.
#[inline]
pub(crate) const fn reversed(s: Sector) -> Sector {
    match s {
        0..8 => (s + 4) % 8,
        8..16 => 8 + (s - 8 + 4) % 8,
        _ => NO_HOP,
    }
}

/// The directions of sector `s`'s moves, as a bit set.
const fn moves(s: usize) -> u8 {
    if s < 8 {
        1 << s
    } else {
        (1 << (s - 8)) | (1 << ((s - 7) % 8))
    }
}

/// Whether the pair (enter by move `i`, leave by move `j`) is admissible at a subgoal
/// whose diagonal neighbours in `blocked` (bit `k / 2` for the diagonal direction `k`)
/// are blocked (Lemma 2 of the module docs).
const fn admissible(i: usize, j: usize, blocked: usize) -> bool {
    let turn = (j + 8 - i) % 8;
    let angle = if turn > 4 { 8 - turn } else { turn };
    if angle <= 1 {
        return true;
    }
    if angle != 2 || i % 2 == 1 {
        return false;
    }
    // Both straight at 90°: the corner `s + m₂ − m₁` is the diagonal between them.
    let corner = direction(
        DIRECTIONS[j].0 - DIRECTIONS[i].0,
        DIRECTIONS[j].1 - DIRECTIONS[i].1,
    ) as usize;
    blocked >> (corner / 2) & 1 == 1
}

/// Whether a subgoal whose diagonal neighbours in `blocked` are blocked may be entered by
/// a hop of sector `entered` and left by one of sector `out` (both hops, not
/// [`NO_HOP`]): every pair of their moves is admissible (the rule of the module docs).
const fn taut_pair(blocked: usize, entered: usize, out: usize) -> bool {
    let (m1, m2) = (moves(entered), moves(out));
    let mut i = 0;
    while i < 8 {
        let mut j = 0;
        while j < 8 {
            if m1 >> i & 1 == 1 && m2 >> j & 1 == 1 && !admissible(i, j, blocked) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// `TURNS[blocked][entered]`: the sectors a subgoal with blocked diagonal neighbours
/// `blocked` may leave by after entering by sector `entered`, as a bit set.
static TURNS: [[u16; 17]; 16] = turns_table();

const fn turns_table() -> [[u16; 17]; 16] {
    let mut table = [[0u16; 17]; 16];
    let mut blocked = 0;
    while blocked < 16 {
        table[blocked][NO_HOP as usize] = u16::MAX;
        let mut entered = 0;
        while entered < 16 {
            let mut out = 0;
            while out < 16 {
                if taut_pair(blocked, entered, out) {
                    table[blocked][entered] |= 1 << out;
                }
                out += 1;
            }
            entered += 1;
        }
        blocked += 1;
    }
    table
}

/// `ARRIVALS[blocked][leaving]`: the sectors `f` of the hops out of a subgoal with blocked
/// diagonal neighbours `blocked` such that a route coming in over such a hop walked back
/// (entering by `reversed(f)`) may leave by sector `leaving`, as a bit set; all of them for
/// [`NO_HOP`] (the route ends there).
static ARRIVALS: [[u16; 17]; 16] = arrivals_table();

const fn arrivals_table() -> [[u16; 17]; 16] {
    let mut table = [[0u16; 17]; 16];
    let mut blocked = 0;
    while blocked < 16 {
        table[blocked][NO_HOP as usize] = u16::MAX;
        let mut leaving = 0;
        while leaving < 16 {
            let mut first = 0;
            while first < 16 {
                if taut_pair(blocked, reversed(first as Sector) as usize, leaving) {
                    table[blocked][leaving] |= 1 << first;
                }
                first += 1;
            }
            leaving += 1;
        }
        blocked += 1;
    }
    table
}

/// A subgoal's blocked diagonal neighbours (off the map counts as blocked), bit `k` for
/// the diagonal direction `2k + 1`: what the tables above are indexed by. The graph keeps
/// one per subgoal (see `SubgoalGraph::blocked_diagonals`), so that a search reads one
/// byte where it would read four cells of the grid on two rows.
pub(crate) type BlockedDiagonals = u8;

/// The blocked diagonal neighbours of `s` in `grid` (see [`BlockedDiagonals`]).
pub(super) fn blocked_diagonals_at(grid: &Grid, s: Cell) -> BlockedDiagonals {
    let (x, y) = (s.x as i64, s.y as i64);
    let mut blocked = 0;
    for k in 0..4 {
        let (dx, dy) = DIRECTIONS[2 * k + 1];
        blocked |= u8::from(!grid.is_free_at(x + dx as i64, y + dy as i64)) << k;
    }
    blocked
}

/// The sectors a subgoal with blocked diagonal neighbours `blocked` may be left by, as a
/// bit set, after it was entered by a hop of sector `entered` (see the module docs).
#[inline]
pub(crate) fn turns(blocked: BlockedDiagonals, entered: Sector) -> u16 {
    // Masking keeps the index in bounds without a check (the mask has four bits).
    TURNS[usize::from(blocked & 15)][usize::from(entered)]
}

/// The sectors a subgoal with blocked diagonal neighbours `blocked` may be left by after
/// it was entered by any of the sectors of the bit set `entries` (bit [`NO_HOP`] for no
/// hop): the union of [`turns`] over them, for weighted searches, which remember every
/// sector a subgoal was entered by.
#[inline]
pub(crate) fn turns_any(blocked: BlockedDiagonals, entries: u32) -> u16 {
    let row = &TURNS[usize::from(blocked & 15)];
    let (mut out, mut left) = (0, entries);
    while left != 0 {
        out |= row[left.trailing_zeros() as usize];
        left &= left - 1;
    }
    out
}

/// The sectors of the hops out of a subgoal with blocked diagonal neighbours `blocked`
/// (as a bit set) over which, walked back, a route may come into it and then leave it by
/// a hop of sector `leaving` ([`NO_HOP`] when the route ends there): the rule of
/// [`turns`] seen from the far end, for the goal's upward marks (see the module docs,
/// *Backwards*).
#[inline]
pub(crate) fn arrivals(blocked: BlockedDiagonals, leaving: Sector) -> u16 {
    ARRIVALS[usize::from(blocked & 15)][usize::from(leaving)]
}

/// Whether sector `out` is among the set `turns` (see [`turns`]).
#[inline]
pub(crate) fn allows(turns: u16, out: Sector) -> bool {
    turns >> out & 1 == 1
}

/// [`turns`] as a cone of hop displacements: the hops a subgoal may be left by are those
/// whose displacement `v` lies in the closed cone turning (by increasing index of
/// [`DIRECTIONS`]) from the direction `lo` to the direction `hi`, at most 180° wide,
/// `cross(lo, v) ≥ 0` and `cross(v, hi) ≥ 0`; a subgoal entered with no hop has
/// `lo = hi = 0`, which holds every hop.
///
/// *Why every row of the rule is such a cone.* A hop of sector `M₂` may leave when every
/// move of it is admissible after every move `m₁` of the entering sector: `M₂ ⊆ A`,
/// `A` the intersection of the arcs `adm(m₁)` (the moves at most 45° from `m₁`, and for a
/// straight `m₁` the straight moves at 90° whose corner is blocked: an arc of three to
/// five directions around `m₁`). One or two neighbouring `m₁` give an arc again, at most
/// five directions (180°) wide. A straight or diagonal hop has its one move and lies in
/// the cone exactly when that move is in `A`; an octant hop lies strictly between its
/// two moves, in the cone exactly when both are in `A` (the cone's ends are directions).
/// The table's builder checks this for every row (it fails to compile otherwise), and
/// `cones_hold_what_turns_allow` compares it with [`turns`] hop by hop.
///
/// A loop over many hops that has their differences (the subgoal fields' relaxation)
/// tests one in four multiplications, where [`sector`] and a bit test took about 30
/// instructions, 40 % of the fields' whole work an edge.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cone {
    lo: (i8, i8),
    hi: (i8, i8),
}

impl Cone {
    /// Whether a hop of displacement `(dx, dy)` lies in the cone.
    #[inline(always)]
    pub(crate) fn holds(self, dx: i32, dy: i32) -> bool {
        let (lo, hi) = (
            (i32::from(self.lo.0), i32::from(self.lo.1)),
            (i32::from(self.hi.0), i32::from(self.hi.1)),
        );
        let left_of_lo = lo.0 * dy - lo.1 * dx;
        let right_of_hi = dx * hi.1 - dy * hi.0;
        left_of_lo | right_of_hi >= 0
    }
}

/// `CONES[blocked][entered]`: [`TURNS`] as [`Cone`]s.
static CONES: [[Cone; 17]; 16] = cones_table();

const fn cones_table() -> [[Cone; 17]; 16] {
    let all = Cone {
        lo: (0, 0),
        hi: (0, 0),
    };
    let mut table = [[all; 17]; 16];
    let mut blocked = 0;
    while blocked < 16 {
        let mut entered = 0;
        while entered < 16 {
            let turns = TURNS[blocked][entered];
            // The directions allowed: an arc; `lo` its first, turning by increasing index.
            let dirs = turns & 0xff;
            let mut lo = 0;
            while !(dirs >> lo & 1 == 1 && dirs >> ((lo + 7) % 8) & 1 == 0) {
                lo += 1;
                assert!(lo < 8, "the allowed directions are no arc");
            }
            let mut width = 0;
            while dirs >> ((lo + width + 1) % 8) & 1 == 1 {
                width += 1;
            }
            assert!(width <= 4, "an arc wider than 180°");
            assert!(
                (dirs.count_ones() as usize) == width + 1,
                "the allowed directions are no arc"
            );
            // Octant `j` (moves `j`, `j + 1`) allowed exactly when both moves are.
            let mut j = 0;
            while j < 8 {
                let both = dirs >> j & 1 == 1 && dirs >> ((j + 1) % 8) & 1 == 1;
                assert!(both == (turns >> (8 + j) & 1 == 1), "an octant off the arc");
                j += 1;
            }
            let (a, b) = (DIRECTIONS[lo], DIRECTIONS[(lo + width) % 8]);
            table[blocked][entered] = Cone {
                lo: (a.0 as i8, a.1 as i8),
                hi: (b.0 as i8, b.1 as i8),
            };
            entered += 1;
        }
        blocked += 1;
    }
    table
}

/// The hops a subgoal with blocked diagonal neighbours `blocked`, entered by a hop of
/// sector `entered`, may be left by, as a [`Cone`] ([`turns`] in another form).
#[inline(always)]
pub(crate) fn taut_cone(blocked: BlockedDiagonals, entered: Sector) -> Cone {
    CONES[usize::from(blocked & 15)][usize::from(entered.min(NO_HOP))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sectors_name_their_moves() {
        let at = |x: i32, y: i32| Cell::new((10 + x) as u32, (10 + y) as u32);
        let o = Cell::new(10, 10);
        assert_eq!(sector(o, Cell::new(15, 10)), 0);
        assert_eq!(sector(o, Cell::new(13, 13)), 1);
        assert_eq!(sector(o, Cell::new(5, 10)), 4);
        // Moves (1,0) and (1,1): the octant after direction 0.
        assert_eq!(sector(o, Cell::new(15, 12)), 8);
        // Moves (0,1) and (1,1): the octant after direction 1.
        assert_eq!(sector(o, Cell::new(12, 15)), 9);
        for (x, y) in [(5, 2), (-3, 7), (4, -4), (0, -2), (-6, -1)] {
            let s = sector(o, at(x, y));
            assert_eq!(reversed(s), sector(at(x, y), o));
            assert_eq!(reversed(reversed(s)), s);
        }
    }

    /// The table's sector of every hop of up to 70 columns and rows either way (on, off
    /// and beside every axis and diagonal) equals [`sector_of`]'s. (Leave the order of
    /// `|dx|` and `|dy|` out of `sign_index`, or fill the table from the moves alone,
    /// and this fails.)
    #[test]
    fn sectors_by_signs_equal_sector_of() {
        let o = Cell::new(100, 100);
        for dx in -70i64..=70 {
            for dy in -70i64..=70 {
                if dx == 0 && dy == 0 {
                    continue;
                }
                let b = Cell::new((100 + dx) as u32, (100 + dy) as u32);
                assert_eq!(sector(o, b), sector_of(dx, dy), "hop ({dx}, {dy})");
            }
        }
    }

    /// The cone of every row holds exactly the hops [`turns`] allows, for every hop of up
    /// to 40 columns and rows either way (on, off and beside every axis and diagonal).
    #[test]
    fn cones_hold_what_turns_allow() {
        for dx in -40i32..=40 {
            for dy in -40i32..=40 {
                if dx == 0 && dy == 0 {
                    continue;
                }
                let out = sector_of(i64::from(dx), i64::from(dy));
                for blocked in 0..16u8 {
                    for entered in 0..=NO_HOP {
                        assert_eq!(
                            taut_cone(blocked, entered).holds(dx, dy),
                            allows(turns(blocked, entered), out),
                            "hop ({dx}, {dy}), blocked {blocked}, entered {entered}"
                        );
                    }
                }
            }
        }
    }

    /// The rule read along a route walked backwards (entering by the reversed leaving
    /// sector, leaving by the reversed entering one) allows what it allows forwards: Lemma
    /// 2's angle is the same, and so is its corner cell `s + m₂ − m₁` (`s + (−m₁) − (−m₂)`).
    /// The subgoal fields, searching from the goal, rely on it.
    #[test]
    fn turns_are_the_same_backwards() {
        for blocked in 0..16u8 {
            for entered in 0..16u8 {
                for out in 0..16u8 {
                    assert_eq!(
                        allows(turns(blocked, entered), out),
                        allows(turns(blocked, reversed(out)), reversed(entered)),
                        "blocked {blocked}, entered {entered}, out {out}"
                    );
                }
            }
        }
    }

    #[test]
    fn arrivals_are_turns_read_backwards() {
        for blocked in 0..16 {
            for leaving in 0..16u8 {
                for first in 0..16u8 {
                    assert_eq!(
                        allows(ARRIVALS[blocked][leaving as usize], first),
                        allows(TURNS[blocked][reversed(first) as usize], leaving),
                        "blocked {blocked}, leaving {leaving}, first {first}"
                    );
                }
            }
            assert_eq!(ARRIVALS[blocked][NO_HOP as usize], u16::MAX);
            // The start, entered by no hop, prunes nothing.
            assert_eq!(turns(blocked as u8, NO_HOP), u16::MAX);
            assert_eq!(turns_any(blocked as u8, 1 << NO_HOP | 1), u16::MAX);
        }
    }

    #[test]
    fn turns_keep_straight_routes_and_corner_wraps_only() {
        // Entering east (direction 0) into an open subgoal: straight on or 45° only.
        let open = TURNS[0][0];
        for out in 0..16u8 {
            let bits = moves(out as usize);
            let expected = bits & !0b1000_0011 == 0;
            assert_eq!(allows(open, out), expected, "sector {out}");
        }
        // Turning to (0, -1) needs the corner (-1, -1), diagonal 5: bit 2.
        assert!(!allows(TURNS[0][0], 6));
        assert!(allows(TURNS[1 << 2][0], 6));
        assert!(!allows(TURNS[1 << 3][0], 6));
        // Entering diagonally never turns 90°.
        assert!(!allows(TURNS[15][1], 3));
        assert!(!allows(TURNS[15][1], 7));
    }
}
