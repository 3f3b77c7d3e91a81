//! A shared backward search over the subgoal graph: the distance from many subgoals to one
//! goal (a cell or a rectangle), grown only as far as the starts that ask need, a slice
//! at a time. The path service answers a group of requests to one goal from it.
//!
//! # The search
//! The goal side: every free cell of the goal rectangle's outline is a *seed* (a shortest
//! path from outside the rectangle enters it through its outline). Each seed's cone scan
//! (`scan.rs`) ties it to the subgoals it reaches directly, at their octile distance; a
//! seed that is itself a subgoal starts at 0. From there a Dijkstra runs backward over
//! the subgoal graph's edges (each weighs the octile distance of its ends), settling
//! subgoals in order of `D(s)`, the length of their shortest route to the goal through the
//! graph.
//!
//! A start (a *member*) is tied to the subgoals its own cone scan reaches directly (and to
//! itself if it is a subgoal). Its answer is the smaller of
//! - `h(start, s) + D(s)` over those subgoals `s` (`h` the octile distance), then `s`'s
//!   parents to the goal; and
//! - the *direct line*: the nearest outline cell (by `h`) whose two-piece walk from the
//!   start (diagonal steps, then straight ones) is clear, at length `h`.
//!
//! # Why it is exact
//! Every answer is a real path of its length: each hop is a hop of a cone scan (walked
//! from its end nearer the start, diagonal steps first: every ordering of a hop's moves
//! is legal and as long as the octile distance of its ends, Lemma 1 of `taut.rs`), or the
//! checked direct walk.
//!
//! It is a shortest one. Take a shortest path from the start to the goal, ending at the
//! outline cell `g` where it first enters the rectangle. By the subgoal graph's argument
//! (`subgoals/mod.rs`, "Why it is exact") there is a shortest path `start, g1, …, gk, g`
//! whose inner cells are subgoals and whose consecutive cells are direct-h-reachable.
//! - `k = 0`: `start` and `g` are direct-h-reachable, so the cells of all their
//!   octile-length paths are free, the two-piece walk included: the direct line finds an
//!   outline cell at `h ≤ h(start, g)`, the optimum, with a real path, so at the optimum.
//! - `k ≥ 1`: `g1` is in the start's cone (its scan finds every direct-h-reachable
//!   subgoal), `gk` in `g`'s cone (a seed), and each `g_i g_(i+1)` is an edge: Dijkstra
//!   gives `D(g1) ≤` the rest of the path, and the member's minimum is at most the optimum.
//!
//! # Taut paths
//! The Dijkstra does not offer every edge of a settled subgoal: like the query search
//! (`hpa::subgoals::taut`), a subgoal `s` entered over a hop of sector `M₁` relaxes only the
//! hops of sector `M₂` that [`turns`](super::taut::turns) allows at `s` (every pair of their
//! moves admissible by Lemma 2, from `s`'s blocked diagonal neighbours). `M₁` is the sector
//! of the hop `s` was reached over *as the field walks it*, from its parent (a subgoal, or a
//! seed's tie) to `s`: it is kept in the label's mark ([`Label::entered`]), written with the
//! label at each improving offer, so the rule reads no cell at the pop. A seed that is
//! itself a subgoal, at 0, was entered by no hop ([`NO_HOP`](super::taut::NO_HOP)) and
//! relaxes every edge. The test runs as a [`Cone`](super::taut::Cone) of displacements
//! (two cross products per edge, no sector worked out for the edges it drops).
//!
//! *The field runs backwards.* A route `t → s → p` toward the goal enters `s` by a move
//! `m₁` and leaves by `m₂`; the field, walking it from `p`, enters by `−m₂` and leaves by
//! `−m₁`. Lemma 2 reads the same pair: the angle between `−m₂` and `−m₁` is the angle
//! between `m₁` and `m₂`, both are straight when they were, and the corner cell is
//! `s + (−m₁) − (−m₂) = s + m₂ − m₁`, the same cell. So the rule applied to the field's
//! sectors allows exactly the hops it allows the route walked forward
//! (`turns_are_the_same_backwards` in `taut.rs` checks the table).
//!
//! *Why every `D` stays exact.* Claim: every subgoal `t` is settled at its exact `D(t)`,
//! the length of its shortest path to the goal (on the grid, which the graph's `D` equals:
//! "Why it is exact" below). By induction on `D(t)`. Take a shortest route from `t` to the
//! goal over the graph's edges and a seed's tie, `t = v_k → … → v_1 → g` (it exists: the
//! subgoal theorem). If `k = 1`, `t` is tied to the seed `g` at its exact `D` when `g` is
//! scanned, before any pop. Else `s = v_(k−1)` has `D(s) = D(t) − w(s, t) ≤ D(t) − 1`
//! (an edge joins two distinct cells), so by induction `s` is settled at `D(s)`, from some
//! parent `p` (a subgoal or a seed: *any* one at which `D(s)` is reached; which one the
//! label kept does not matter). The walk `t → s → p ⇝ goal` has length `w + D(s) = D(t)`:
//! a shortest path. By Lemma 1 every ordering of the moves of the hops `t → s` and
//! `s → p` is a legal walk of the same length, so none can be cut, and by Lemma 2 every
//! pair of a move of the first and a move of the second is admissible at `s`: the rule
//! (read backwards, above) keeps the edge `s → t`, and `t` is offered `D(t)`. In the
//! one-unit buckets `s` sits at least one bucket below `t` (`⌊D(s)⌋ ≤ ⌊D(t)⌋ − 1`), so `t`
//! holds `D(t)` before its bucket is emptied, and it is settled at `D(t)` (a label never
//! goes below a real walk's length). The aimed search keeps its consistent bound: the
//! first unsettled subgoal `u` of a shortest route to `t` is queued at `D(u)` (its
//! predecessor was settled exactly and the rule kept the edge, as above), so nothing pops
//! above its `D` (the argument of "Aimed at an army").
//!
//! So everything read off the field stands as it was: settled labels are exact, the
//! first unsettled subgoal of a shortest route is queued at its `D` (the radius rule,
//! `f_min`, the stale radius of an older field), parents are settled subgoals or seeds
//! (`route`), and the readers after edits (`stale.rs`: the bounds `lb`, the old chains,
//! the repair search, which runs its own A\* over every edge of the graph as it is now
//! and only reads settled labels and the radius) use nothing else. No reader assumes that
//! every neighbour of a settled subgoal was offered. A subgoal the rule never offered
//! stays unsettled with no label of this use, as one beyond the radius did.
//! `subgoal_fields_match_dijkstra` (`tests/suite/service_subgoals.rs`),
//! `members_joining_an_aimed_field_get_dijkstras_lengths` and
//! `a_spare_field_answers_as_a_fresh_one` (`field/tests.rs`) fail when the rule drops
//! Lemma 2's corner exception in the field, when it takes the relaxed hop's sector from the
//! wrong end, and when a seed's tie records its sector from the wrong end.
//!
//! # When a member is answered
//! Without an aim (see the next section), subgoals are settled in order of `D` (to within
//! the one-unit buckets of the queue, see [`Buckets`]), so an unsettled subgoal has `D(s) ≥ r`, the floor of the lowest bucket
//! still holding one (the *radius*). A member is answered once its best so far,
//! `b`, cannot be beaten: every tie `s` it has is settled or has `h(start, s) + r ≥ b`.
//! The search therefore grows only to the radius the members need, and goes on from there
//! when a later member needs more (members may join while it runs).
//!
//! # Aimed at an army
//! A Dijkstra from the goal settles the disc out to its farthest member: for a group
//! standing together far from its goal, most of the map. When the job's starts stand
//! together ([`SubgoalField::aim_at`], the box of their cells no wider than an army's, see
//! [`is_army`]), the field is *aimed*: its queue is keyed by `f(s) = D(s) + h(s)`, a
//! binary heap (an edge may leave `f` as it is, so one-unit buckets no longer make their
//! entries final in any order), with `h` the larger of
//! - the octile distance from `s` to the box, and
//! - the landmark bound `max_L max(D̂(L, s) − hi_L, lo_L − D̂(L, s), 0) / a`, with the
//!   intervals `[lo_L, hi_L]` the first member's landmark row (built from its ties as a
//!   goal's row) widened by the lattice length of the box's farthest corner from it
//!   ([`SparseAim`](crate::hpa::landmarks_sparse::SparseAim)).
//!
//! Both are **consistent** over the graph, `h(u) ≤ w(u, v) + h(v)` on every edge: the
//! first is 1-Lipschitz in the octile metric, and edges weigh their octile length; the
//! second is a clamp of the 1-Lipschitz `D̂(L, ·)` (`landmarks_sparse`, "Why the bounds
//! hold": `|D̂(L, u) − D̂(L, v)| ≤ lat(u, v) ≤ a·w(u, v)`), whatever the intervals. That
//! is all exactness needs; that `h` is also a lower bound of the distance to the members
//! only makes the search stop sooner.
//! - *Settled labels stay exact.* With a consistent `h`, the search is Dijkstra's over
//!   the reduced weights `w(u, v) − h(u) + h(v) ≥ 0`, which differ from the true ones by
//!   a potential: each subgoal is popped at its true `D`, and every reader of settled
//!   labels (answers, paths, the bounds after edits) sees what it saw without the aim.
//! - *When a member is answered.* Let `f_min` be the smallest key queued. An unsettled
//!   subgoal `t` has `D(t) ≥ f_min − h(t)`: the first unsettled subgoal `u` of a shortest
//!   route from the goal to `t` is queued at its exact `D(u)`, so `f_min ≤ D(u) + h(u)`,
//!   and `D(t) ≥ D(u) + h(u) − h(t)` by consistency along the route. A member with best
//!   answer `b` is final once every unsettled tie `t` has `h(start, t) + f_min − h(t) ≥
//!   b` (for `h = 0` this is the radius rule above).
//! - *The aim changes.* A member joining outside the box widens it (and the landmark
//!   intervals); past an army's size the aim is dropped. Either way every queued subgoal
//!   is keyed again with the new `h` (the heap rebuilt; the plain buckets when dropped),
//!   so that each key is `D + h` of the `h` in force, which is all the two arguments
//!   above use: they hold for any consistent `h`, changed between pops. Keying again
//!   costs one unit per [`REKEYED_PER_UNIT`] entries; a job's own starts are all in the
//!   box it aims at, so only members that join later (a kept field reused, starts added
//!   in a later tick) pay it. A field kept for later requests thus answers a member
//!   anywhere exactly: it widens, or drops, its aim and grows on.
//! - *After edits* the field's old labels are read with the radius `r`, a lower bound of
//!   every unsettled `D`: for an aimed field it is the least `D` queued (the `u` above is
//!   queued at `D(u) ≤ D(t)`), worked out once when first asked (the field no longer
//!   grows then), rather than `f_min − h`, whose `h` came from the landmark table of the
//!   older graph.
//!
//! Each settled subgoal of a plain search counts [`PLAIN_EIGHTHS`] eighths of a unit, of an
//! aimed search [`AIMED_EIGHTHS`]
//! (the bound at every offer and the heap: measured with callgrind against the plain
//! search). `members_joining_an_aimed_field_get_dijkstras_lengths` (`field/tests.rs`)
//! checks every answer against Dijkstra on the grid, with members joining inside and
//! outside the box while the search runs and after an edit; it fails when the finality
//! rule drops `− h(t)`, when a widened aim does not key the queue again, when the bound
//! is made inconsistent (× 1.5), and when a stale aimed field takes `f_min` for its radius.
//!
//! # Members inside a box
//! A job whose starts stand together in a box `B` (the aim's box; `boxed.rs`) answers the
//! starts strictly inside `B` without a cone scan each, when the goal does not meet `B`
//! and that pays ([`SubgoalField::box_pays`]: the scans it spares at least twice what it
//! costs). Each free cell of `B`'s ring (its outline) from which the goal is reachable
//! joins as a member (a start on the ring is that member), the search grows until every
//! ring member is answered, and one Dijkstra over `B`'s free cells (8-connected, no corner
//! cut, cells of `B` only) seeded with the ring members' answers gives every inner cell
//! `c` its length `L(c) = min over ring cells b of d_B(c, b) + D(b)`, `d_B` the distance
//! within `B`, and its path: its walk within `B` to its ring cell `b`, then `b`'s route.
//!
//! *Why it is exact.* Every `L(c)` is a real path's length: a legal walk within `B` (the
//! Dijkstra's steps are the grid's, checked with [`Grid::can_step`]) of length `d_B(c,
//! b)` (any walk of `B`'s cells, ring cells included), then `b`'s answer, a path of length
//! `D(b)`. It is a shortest one: take a shortest path from `c` to the goal. The goal lies
//! outside `B`, so the path leaves `B`; every neighbour of a cell strictly inside `B`
//! (diagonals included) is a cell of `B`, so before its first cell outside `B` the path
//! meets a cell of the ring; let `b` be the first. The part from `c` to `b` uses cells
//! of `B` only (inner cells, then `b`), so it is at least `d_B(c, b)` long, and the rest
//! at least `D(b)`, the distance of `b` (the ring member's answer is final, hence exact,
//! by "When a member is answered"): `OPT(c) ≥ d_B(c, b) + D(b) ≥ L(c)`. A ring cell from
//! which the goal is unreachable has no path to offer and is left out; `b` above reaches
//! the goal, so it is in. The Dijkstra runs only once every ring member is answered (a
//! final answer stays final while the search grows), and its answers hold only for the
//! map revision it ran on: the box is taken on only by a field as current as the map, and
//! a start strictly inside it is answered from it only while the field is (else it joins
//! as a member of its own and is answered as any member after edits, below).
//!
//! Its price: a ring cell's join as any member's, the Dijkstra 1 unit + 10/8 of a unit a
//! cell settled (`BOX_CELL_EIGHTHS`, callgrind; it pauses exactly, its queue kept in the
//! box), an inner member's read-out as a route's, each step of its walk in the box a hop. `members_inside_a_box_get_dijkstras_lengths`
//! (`field/tests.rs`) checks every member's answer against Dijkstra on the grid (groups of
//! 2 to 60 around a cell, goals outside and meeting the box, slices of every size, an edit
//! between answers); it fails with a side of the ring left out, with corner cutting inside
//! the box, and with the box's Dijkstra run before its ring members are answered.
//!
//! # After edits
//! The field is tied to the revision it was started on, but edits leave much of it
//! usable. First, edits that only **block** cells (a building going up). Blocking only removes cells and
//! steps, so every path on the new map is a path on the old one: for every cell `c`,
//! `dist_new(c) ≥ dist_old(c)` (the goal's free cells only shrink as well). A settled
//! `D(s)` is `dist_old(s)` (a subgoal's own ties hold itself at 0), so it is a **lower
//! bound** of `dist_new(s)`; an unsettled old subgoal has `dist_new(s) ≥ D(s) ≥ r`, the
//! radius when the field stopped; any cell is at least its octile distance `h_G` from the
//! goal.
//!
//! A member that joins after the edit runs its cone scan and direct line on the new map
//! (ties by the *new* subgoal IDs; an ID may have been vacated and reused for another
//! cell, so the field trusts what it learnt of an ID only where the ID still stands for
//! the cell it stood for then: where the graph says that no edit since the field started
//! gave the ID a cell, [`SubgoalGraph::held_since`], which each ID's stamp of the revision
//! that last gave it a cell tells; the ID held its present cell then). By the argument
//! above applied to the new map, `OPT_new = min(direct, min over ties t of h(start, t) +
//! dist_new(t))`, hence
//!
//! `LB = min(direct, min over ties t of h(start, t) + lb(t)) ≤ OPT_new`,
//!
//! with `lb(t)` = `D(t)` (held since, settled), `max(r, h_G(t))` (held since, unsettled:
//! it was a subgoal the field had not settled) or `h_G(t)` (given a cell since: nothing is
//! known of that cell). The field answers the member with
//! the direct line when it is `≤ LB`, else with a settled tie `t` with
//! `h(start, t) + D(t) ≤ LB` whose path (the start's walk to `t`, then `t`'s old chain of
//! parents to a seed) is **clear on the new map**, each hop trying both of its two-piece
//! walks (either one is a path of the hop's octile length; every ID of the chain must have
//! held its cell since, so that the chain's cells are the ones the field settled). That
//! path is a real path on
//! the new map of length `≤ LB ≤ OPT_new`: a shortest one. A member it cannot vouch for
//! this way (its path crosses the new obstacle, or a tie's bound is below every clear
//! answer) needs a fresh field. The field does not grow after the edit (its graph
//! changed under it).
//!
//! Edits that **free** positions (a building coming down) can shorten distances, but
//! only through what they freed. Let `Z` be the freed positions (an edited rectangle grown
//! by the agent's size up and left, and one cell around: the positions whose footprint
//! meets it, and those a diagonal step beside them needs). A path on the new map that
//! meets no `Z` was a path on the old map too (its positions were open then, and so were
//! the positions its diagonal steps need), so it is at least `dist_old(c)` long; one that
//! meets a `Z` is at least `h(c, Z) + h(Z, G)` long. So, for every cell,
//! `dist_new(c) ≥ min(dist_old(c), min over Z of h(c, Z) + h(Z, G))`, and `lb(t)` above is
//! capped by that second term: the rest of the argument stands as it is. The service
//! passes the freed rectangles since the field started (from the reports of
//! `notify_edit`; it drops the field when an edit went unreported or more than a few
//! freed).
//!
//! # Buffers used again
//! A field's arrays are indexed by subgoal ID, tens of thousands of entries on a 1,024²
//! map; the service starts a field for every new order, in the buffers of a spare one.
//! A start wipes none of them: each label carries the *use* of the buffers that wrote it
//! ([`Label::mark`]), and a label of an earlier use reads as "not reached" (`D = ∞`,
//! unsettled), exactly what a wiped one held. So every read above (a settled `D`, a
//! parent, whether a subgoal is settled) sees what a field with fresh arrays would, and
//! the arguments above stand word for word. The queue is emptied (only the buckets
//! between its lowest and highest entry), and after [`MAX_USES`] uses the labels are
//! wiped once. `a_spare_field_answers_as_a_fresh_one` (`field/tests.rs`) reuses one
//! field's buffers across goals, maps and revisions against a fresh field and Dijkstra.
//!
//! The property test `subgoal_fields_match_dijkstra` (tests/suite/service_subgoals.rs)
//! compares every member's length with a Dijkstra on the grid, on random maps, after
//! random edits, with the search cut into slices of every size;
//! `fields_kept_through_blocking_edits_match_dijkstra` puts random buildings up and takes
//! them down between members joining one field.

mod boxed;
mod stale;
#[cfg(test)]
mod tests;

use super::SubgoalGraph;
use crate::geom::{Cell, Direction, Rect};
use crate::grid::movement::{octile, octile_apart};
use crate::grid::Grid;
use crate::hpa::path::{refine, walk_hops, Path};

use crate::hpa::landmarks_sparse::SparseAim;
use crate::hpa::search::bend;
use crate::hpa::subgoals::taut::{sector, taut_cone, Sector, NO_HOP};
use crate::hpa::HpaMap;
use std::cell::Cell as Memo;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// No parent yet.
const NO_PARENT: u32 = u32::MAX;

/// Work units a cone scan counts for (a goal outline cell's, a member's). Callgrind of the
/// scattered Cauldron burst (session 39, after the taut-path rule): 1,999 members' joins
/// took 54.2M instructions, 27,100 each (the scan with its subgoals' ID look-ups, the tie
/// list, the direct line's walks, which count apart, a unit per walk), where a unit is
/// about 1,030 (a plain settled subgoal, ~770, counts 6/8): 24 units a scan. It counted 4
/// before, from when a settled subgoal cost as much as five scans' worth of a fifth.
/// Session 40's cheaper scans (IDs with their hops, the callback inlined, the outline on
/// the stack) took a join to 25,247: still 24 units.
pub(crate) const SCAN_UNITS: usize = 24;

/// Outline cells a goal may have for a subgoal field: a larger goal is answered by a gate
/// field (its seeds and the members' direct lines would cost more than they save).
pub(crate) const MAX_OUTLINE: usize = 64;

/// A start asking the field, with its ties.
#[derive(Clone, Debug)]
struct Member {
    start: Cell,
    /// The subgoals its cone scan reaches directly, with their octile distance.
    ties: Vec<(u32, f64)>,
    /// The nearest outline cell its two-piece walk reaches, with its distance.
    direct: Option<(Cell, f64)>,
}

/// Whom a field's search is aimed at: the members of a group standing together (see the
/// module docs, "Aimed at an army").
#[derive(Clone, Copy, Debug)]
struct Aim {
    /// The box of the group's cells (members to come included).
    cells: Rect,
    /// The landmark intervals around the first member with values (`None` before it
    /// joins, or on a layer without landmarks).
    lanes: Option<SparseAim>,
    /// The first member's landmark row and cell, to widen the intervals around.
    centre: Option<(crate::hpa::landmarks_sparse::SparseGoalRow, Cell)>,
    /// Lattice units per cell of the layer's landmark table.
    units: f64,
}

/// The largest side (in cells) of a group's box for which the field is aimed at it, at
/// least: a group spread wider gets the plain search (a bound to a box spanning much of
/// the map is about zero, and costs its evaluation at every offer). On larger maps the
/// limit is a sixteenth of the map's longer side.
const ARMY_SPAN: u32 = 32;

/// Work units, in eighths, of one settled subgoal of the plain search, so that a unit
/// keeps meaning about the same time (BENCHMARKS.md: 28,000 units ≈ a worker's 8 ms).
/// Until session 39 a settled subgoal counted a whole unit; the taut-path rule (module
/// docs, "Taut paths") took a quarter of its instructions away: callgrind of the
/// replay's scattered burst on Cauldron (367,711 units grown, the same subgoals settled
/// either way), the fields' `step` 391.1M → 295.0M instructions, less ~4M of the goal
/// outlines' scans: × 0.75 (BENCHMARKS.md, *Taut paths in the fields*).
const PLAIN_EIGHTHS: usize = 6;

/// Work units, in eighths, of one settled subgoal of an aimed search (the bound at every
/// offer: the octile distance to a box and a landmark comparison; the heap): session 38
/// counted 2,108 instructions a settled subgoal aimed against 1,258 plain (1.68×, 13
/// eighths; BENCHMARKS.md, *Fields aimed at armies*); the taut-path rule, which spares the
/// bound and the heap at the offers it drops, took the armies' burst's `step` from 42.2M
/// to 30.8M instructions (× 0.70 less the outlines' scans): 9 eighths.
const AIMED_EIGHTHS: usize = 9;

/// Entries of an aimed queue whose memory a field keeps from one use to the next (16 KiB):
/// spare and kept fields held heaps of tens of thousands of entries (peak service memory
/// on the scattered Cauldron replay 24.3 → 23.7 MB with this, with armies 23.1 → 22.5 MB).
const KEPT_HEAP_ENTRIES: usize = 1024;

/// Queue entries keyed again per work unit when the aim widens (a bound and a push each).
const REKEYED_PER_UNIT: usize = 8;

/// The best answer of a member so far.
#[derive(Clone, Copy, Debug)]
enum Via {
    Direct(Cell),
    Subgoal(u32),
}

/// The waypoints of a member's route, start first ([`SubgoalField::waypoints`]), read off
/// the labels as they are asked for (no list of them).
struct Waypoints<'a> {
    field: &'a SubgoalField,
    graph: &'a SubgoalGraph,
    next: Waypoint,
}

/// The next waypoint of [`Waypoints`].
#[derive(Clone, Copy)]
enum Waypoint {
    /// The member's start, then its answer.
    Start(Cell, Via),
    /// A subgoal of the chain, then its parent.
    Subgoal(u32),
    /// The last: a seed, or the direct line's outline cell.
    Last(Cell),
    Done,
}

impl Iterator for Waypoints<'_> {
    type Item = Cell;

    #[inline]
    fn next(&mut self) -> Option<Cell> {
        let (cell, next) = match self.next {
            Waypoint::Start(start, Via::Direct(g)) => (start, Waypoint::Last(g)),
            Waypoint::Start(start, Via::Subgoal(s)) => (start, Waypoint::Subgoal(s)),
            Waypoint::Subgoal(v) => {
                let p = self.field.labels[v as usize].parent as usize;
                let next = match p.checked_sub(self.field.capacity) {
                    // The seed whose scan found `v`.
                    Some(k) => Waypoint::Last(self.field.seeds[k]),
                    None => Waypoint::Subgoal(p as u32),
                };
                (self.graph.cell(v), next)
            }
            Waypoint::Last(c) => (c, Waypoint::Done),
            Waypoint::Done => return None,
        };
        self.next = next;
        Some(cell)
    }
}

/// What a field knows of one subgoal ID, valid only in the use of the field's buffers
/// that wrote it (see [`SubgoalField::uses`]): older labels read as "not reached".
#[derive(Clone, Copy, Debug)]
struct Label {
    /// `D` so far.
    dist: f64,
    /// The next subgoal toward the goal, or `capacity + k` for seed `k`.
    parent: u32,
    /// `use << USE_SHIFT | entered << 1 | settled`: `use` the field's use that wrote the
    /// label, `entered` the [`Sector`] of the hop it was reached over ([`NO_HOP`] for a
    /// seed that is itself a subgoal), for the taut-path rule (module docs, "Taut
    /// paths"). Packed into the mark's spare bits: the label stays 16 bytes.
    mark: u32,
}

/// Where the use begins in [`Label::mark`] (below it: the entering sector, 5 bits, and
/// whether the subgoal is settled).
const USE_SHIFT: u32 = 6;

impl Label {
    /// A label of use `uses` at `dist` from `parent`, entered over a hop of sector
    /// `entered`, not settled.
    #[inline(always)]
    fn queued(dist: f64, parent: u32, uses: u32, entered: Sector) -> Label {
        Label {
            dist,
            parent,
            mark: uses << USE_SHIFT | u32::from(entered) << 1,
        }
    }

    /// Whether use `uses` wrote the label (else it reads as "not reached").
    #[inline(always)]
    fn is_of(&self, uses: u32) -> bool {
        self.mark >> USE_SHIFT == uses
    }

    /// Whether use `uses` wrote the label and settled it.
    #[inline(always)]
    fn is_settled_in(&self, uses: u32) -> bool {
        self.is_of(uses) && self.is_settled()
    }

    /// Whether use `uses` wrote the label and has not settled it: it is queued.
    #[inline(always)]
    fn is_queued_in(&self, uses: u32) -> bool {
        self.is_of(uses) && !self.is_settled()
    }

    #[inline(always)]
    fn is_settled(&self) -> bool {
        self.mark & 1 == 1
    }

    #[inline(always)]
    fn settle(&mut self) {
        self.mark |= 1;
    }

    /// The sector of the hop the subgoal was reached over.
    #[inline(always)]
    fn entered(&self) -> Sector {
        (self.mark >> 1 & 31) as Sector
    }
}

/// A label no use has written.
const BLANK: Label = Label {
    dist: f64::INFINITY,
    parent: NO_PARENT,
    mark: 0,
};

/// Uses of one field's buffers before their labels are all wiped (the mark keeps the use
/// in its top 26 bits: 67 million uses).
const MAX_USES: u32 = u32::MAX >> USE_SHIFT;

/// Array entries a field's start writes per work unit, when it grows its arrays for a
/// larger graph (or wipes them once every [`MAX_USES`] uses): a 16-byte label an entry, fresh
/// pages faulted in; a unit of a field's growth (one settled subgoal) takes about as long
/// as a few hundred entries.
const ENTRIES_PER_UNIT: usize = 256;

/// Queue buckets a field's start empties per work unit.
const BUCKETS_PER_UNIT: usize = 256;

/// Members of a field's previous use a start drops (each one's list of ties) per unit.
const MEMBERS_PER_UNIT: usize = 16;

/// A backward search over the subgoal graph from a goal rectangle (see the module docs).
///
/// Its buffers are used again for field after field (spare fields lend them): a start
/// does not wipe the arrays indexed by subgoal ID, it begins a new *use*, and a label
/// counts only if the current use wrote it (`Label::mark`). A start therefore costs what
/// the previous use left in the queue and its members, not the size of the graph.
#[derive(Clone, Debug)]
pub(crate) struct SubgoalField {
    /// The layer revision it was started on: it answers on that map only.
    revision: u64,
    goal: Rect,
    /// Free outline cells of the goal.
    seeds: Vec<Cell>,
    /// Seeds whose scans have run.
    seeded: usize,
    /// The graph's number of ID slots when the field was started: a parent at or beyond
    /// it is a seed.
    capacity: usize,
    /// The current use of the buffers (from 1; see [`Label`]).
    uses: u32,
    /// What this use knows of each subgoal ID (at least `capacity` long).
    labels: Vec<Label>,
    /// Queued subgoals by `D` (without an aim).
    open: Buckets,
    /// Queued subgoals by `f = D + h` (the key's bits, then the ID), `h` the aim's bound,
    /// when aimed: a binary heap, as an edge may leave `f` as it is.
    aimed: BinaryHeap<Reverse<(u64, u32)>>,
    members: Vec<Member>,
    /// Whom the search is aimed at, if at anyone.
    aim: Option<Aim>,
    /// Work of the current slice in eighths of a unit, carried between slices.
    eighths: usize,
    /// The least `D` still queued, once worked out for a field older than the map (which
    /// does not grow again): the aimed queue is not ordered by `D`.
    stale_radius: Memo<Option<f64>>,
    /// For repair searches after edits: the goal outline's cones on the map as it is.
    targets: Option<stale::Targets>,
    /// The repair search under way (one member at a time).
    repair: Option<stale::StaleSearch>,
    /// A joining member's ties as its scan finds them (kept for its memory).
    scratch_ties: Vec<(u32, f64)>,
    /// The box whose inner members are answered from its ring, if the field took one on.
    boxed: Option<boxed::BoxJoin>,
}

impl HpaMap {
    /// A subgoal field to `goal` on this map, and the work units its start cost, or `None`
    /// when the map keeps no subgoal graph or the goal's outline is too long for one (see
    /// [`MAX_OUTLINE`]). Nothing is searched yet: [`SubgoalField::step`] does the work.
    ///
    /// A field from `spare` lends its buffers (arrays the size of the graph and a queue of
    /// a few thousand buckets: freeing them and faulting fresh pages in cost a few hundred
    /// microseconds on a 1,024² map), and none of them is wiped: the start costs 1 unit,
    /// plus 1 per [`BUCKETS_PER_UNIT`] buckets the last use left in the queue's range and
    /// per [`MEMBERS_PER_UNIT`] members it had, plus 1 per [`ENTRIES_PER_UNIT`] array
    /// entries added (all of them without a spare, or when the graph has grown) or wiped
    /// (once every [`MAX_USES`] uses).
    pub(crate) fn start_subgoal_field(
        &self,
        goal: Rect,
        spare: &mut Vec<SubgoalField>,
    ) -> Option<(SubgoalField, usize)> {
        let graph = self.subgoals.as_ref()?;
        let (w, h) = (goal.width() as usize, goal.height() as usize);
        if 2 * (w + h) > MAX_OUTLINE + 4 {
            return None;
        }
        let n = graph.capacity();
        let mut field = spare.pop().unwrap_or_else(|| SubgoalField {
            revision: 0,
            goal,
            seeds: Vec::new(),
            seeded: 0,
            capacity: 0,
            uses: 0,
            labels: Vec::new(),
            open: Buckets::default(),
            aimed: BinaryHeap::new(),
            members: Vec::new(),
            aim: None,
            eighths: 0,
            stale_radius: Memo::new(None),
            targets: None,
            repair: None,
            scratch_ties: Vec::new(),
            boxed: None,
        });
        field.revision = self.revision();
        field.goal = goal;
        field.seeds.clear();
        field
            .seeds
            .extend(outline(goal).filter(|&c| self.grid.is_free(c)));
        field.seeded = 0;
        field.capacity = n;
        let mut entries = n.saturating_sub(field.labels.len());
        if field.uses >= MAX_USES {
            field.labels.fill(BLANK);
            field.uses = 0;
            entries += field.labels.len();
        }
        field.uses += 1;
        if field.labels.len() < n {
            field.labels.resize(n, BLANK);
        }
        let buckets = field.open.clear() + field.aimed.len();
        field.aimed.clear();
        field.aimed.shrink_to(KEPT_HEAP_ENTRIES);
        field.aim = None;
        field.eighths = 0;
        field.stale_radius.set(None);
        let members = field.members.len();
        field.members.clear();
        field.targets = None;
        field.boxed = None;
        if let Some(repair) = &mut field.repair {
            repair.retire();
        }
        let work = 1
            + entries / ENTRIES_PER_UNIT
            + buckets / BUCKETS_PER_UNIT
            + members / MEMBERS_PER_UNIT;
        Some((field, work))
    }
}

impl SubgoalField {
    /// Whether the field answers on `map` as it is now (no edit since it was started).
    pub fn is_current(&self, map: &HpaMap) -> bool {
        self.revision == map.revision() && map.subgoals.is_some()
    }

    /// Whether the field's search is aimed at a group standing together (module docs,
    /// "Aimed at an army").
    pub fn is_aimed(&self) -> bool {
        self.aim.is_some()
    }

    /// The map revision the field was started on.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Whether the field was started on an earlier revision of `map` (which still keeps a
    /// subgoal graph): the caller knows whether the edits since only blocked.
    pub fn is_older_than(&self, map: &HpaMap) -> bool {
        self.revision < map.revision() && map.subgoals.is_some()
    }

    /// Adds `start` (a free cell of `map`) as a member: its cone scan and its direct line.
    /// Returns the member's number and the work units spent.
    pub fn join(&mut self, map: &HpaMap, start: Cell) -> (usize, usize) {
        let graph = map
            .subgoals
            .as_ref()
            .expect("a field's map keeps its subgoals");
        let grid = &map.grid;
        // The scan fills the field's scratch list, and the member keeps a copy of exactly
        // its size: one allocation, where a list grown from nothing reallocated about five
        // times (9,900 reallocations in the scattered burst's 2,000 joins).
        let mut ties = std::mem::take(&mut self.scratch_ties);
        ties.clear();
        if let Some(id) = graph.id_of(start) {
            ties.push((id, 0.0));
        }
        // The scan tells each subgoal's hop, whose length is `octile` of its two ends to
        // the bit, and its ID without testing its mark again.
        graph.reach_ids(
            grid,
            start,
            #[inline(always)]
            |id, hop| ties.push((id, hop.length())),
        );
        let scratch = ties;
        let ties = scratch.clone();
        self.scratch_ties = scratch;
        let (direct, walked) = self.direct_line(grid, start);
        // A field searched further (one on an older map is not) widens its aim to the
        // member: it only moves how soon members are answered, never what they get.
        let aimed = match self.aim {
            Some(_) if self.revision == map.revision() => self.widen_aim(map, start, &ties),
            _ => 0,
        };
        self.members.push(Member {
            start,
            ties,
            direct,
        });
        let m = self.members.len() - 1;
        self.note_ring_member(start, m);
        (m, SCAN_UNITS + walked + aimed)
    }

    /// Aims the search at a group whose members stand in `cells` (the box of their cells,
    /// those to join later included), if they stand together (see [`is_army`]); a field
    /// that has members already keeps its aim, or its plain search (its later members
    /// widen an aim as they join). Returns the work units spent.
    pub fn aim_at(&mut self, map: &HpaMap, cells: Rect) -> usize {
        let Some(graph) = map.subgoals.as_ref() else {
            return 0;
        };
        if !self.members.is_empty() || self.aim.is_some() || !is_army(map, cells) {
            return 0;
        }
        self.aim = Some(Aim {
            cells,
            lanes: None,
            centre: None,
            units: graph.landmarks().units_per_cell(),
        });
        self.rekey(graph)
    }

    /// Widens the aim to hold `start` (joining with `ties`), and takes its landmark row
    /// when the aim has none yet; drops the aim when the group no longer stands together.
    /// Re-keys the queue when the bound changed. Returns the work units spent.
    fn widen_aim(&mut self, map: &HpaMap, start: Cell, ties: &[(u32, f64)]) -> usize {
        let graph = map
            .subgoals
            .as_ref()
            .expect("a field's map keeps its subgoals");
        let Some(mut aim) = self.aim else {
            return 0;
        };
        let mut changed = false;
        if !aim.cells.contains(start) {
            let b = aim.cells;
            aim.cells = Rect::new(
                b.x1.min(start.x),
                b.y1.min(start.y),
                b.x2.max(start.x),
                b.y2.max(start.y),
            );
            if !is_army(map, aim.cells) {
                self.aim = None;
                return self.rekey(graph);
            }
            changed = true;
        }
        let landmarks = graph.landmarks();
        let mut work = 0;
        if aim.centre.is_none() && landmarks.count() > 0 && !ties.is_empty() {
            let row = landmarks.goal_row(
                graph,
                start,
                graph.id_of(start),
                ties.iter().map(|&(id, _)| id),
            );
            aim.centre = Some((row, start));
            work += 1 + ties.len() / 16;
            changed = true;
        }
        if !changed {
            return work;
        }
        // Intervals wide enough for every cell of the box, if the ground between them and
        // the first member is open (else a member beyond them is answered later, no less
        // exactly).
        aim.lanes = aim.centre.map(|(row, c)| {
            let far = [
                Cell::new(aim.cells.x1, aim.cells.y1),
                Cell::new(aim.cells.x2, aim.cells.y2),
                Cell::new(aim.cells.x1, aim.cells.y2),
                Cell::new(aim.cells.x2, aim.cells.y1),
            ]
            .into_iter()
            .map(|corner| octile(c, corner))
            .fold(0.0, f64::max);
            SparseAim::around(&row, (far * aim.units).ceil() as u32)
        });
        self.aim = Some(aim);
        work + self.rekey(graph)
    }

    /// Keys every queued subgoal again with the aim as it is now (its bound changed),
    /// in a queue of the aim's bucket width. Returns the work units spent.
    fn rekey(&mut self, graph: &SubgoalGraph) -> usize {
        self.stale_radius.set(None);
        let mut ids = self.open.take_ids();
        ids.extend(self.aimed.drain().map(|Reverse((_, id))| id));
        ids.sort_unstable();
        ids.dedup();
        let entries = ids.len();
        for id in ids {
            let label = self.labels[id as usize];
            if label.is_queued_in(self.uses) {
                self.queue(graph, label.dist, id);
            }
        }
        1 + entries / REKEYED_PER_UNIT
    }

    /// The aim's bound at subgoal `id`: the larger of the octile distance to the aim's box and the landmark intervals' bound (0 without
    /// an aim). Consistent over the graph (see the module docs, "Aimed at an army").
    #[inline]
    fn aim_bound(&self, graph: &SubgoalGraph, id: u32) -> f64 {
        match &self.aim {
            Some(aim) => aim_bound(graph, aim, id),
            None => 0.0,
        }
    }

    /// The nearest outline cell that `start`'s two-piece walk reaches, if any (the start
    /// itself when it stands in the goal), and the walks tried.
    fn direct_line(&self, grid: &Grid, start: Cell) -> (Option<(Cell, f64)>, usize) {
        if self.goal.contains(start) {
            return (Some((start, 0.0)), 0);
        }
        // The outline as it is now: on a field older than the map, cells freed since it
        // started count too (the exactness argument needs every free outline cell).
        // Listed on the stack: a field's outline holds at most `MAX_OUTLINE` cells (see
        // `start_subgoal_field`), and a list on the heap cost a join an allocation and its
        // growth (≈ 1,700 instructions of a join's ≈ 23,000 in the armies' burst).
        let mut listed = [(0.0, Cell::new(0, 0)); MAX_OUTLINE];
        let mut len = 0;
        for g in outline(self.goal).filter(|&g| grid.is_free(g)) {
            listed[len] = (octile(start, g), g);
            len += 1;
        }
        let order = &mut listed[..len];
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        // The two-piece walk to `g`: `bend(start, g)`'s diagonal steps, then straight ones.
        // The diagonal legs of all outline cells run along the same one or two diagonals
        // from `start`, so each diagonal is walked once, as far as the farthest leg asks.
        let mut rays = DiagonalRays::new(start);
        for (tried, &(h, g)) in order.iter().enumerate() {
            let corner = bend(start, g);
            if rays.reaches(grid, corner) && straight_is_clear(grid, corner, g) {
                return (Some((g, h)), tried + 1);
            }
        }
        (None, order.len())
    }

    /// Runs the search for at most `max` units of work ([`SCAN_UNITS`] a seed's scan,
    /// [`PLAIN_EIGHTHS`] or [`AIMED_EIGHTHS`] eighths a settled subgoal, the eighths
    /// carried between calls and the rest booked as a unit when the search ends); returns
    /// the work done (0 only once nothing is left to search).
    pub fn step(&mut self, map: &HpaMap, max: usize) -> usize {
        let graph = map
            .subgoals
            .as_ref()
            .expect("a field's map keeps its subgoals");
        let mut work = 0;
        while work < max && self.seeded < self.seeds.len() {
            self.seed(graph, &map.grid, self.seeded);
            self.seeded += 1;
            work += SCAN_UNITS;
        }
        if let Some(aim) = self.aim {
            return self.step_aimed(graph, &aim, work, max);
        }
        let mut eighths = self.eighths;
        while work < max {
            let Some(id) = self.open.pop() else {
                close_eighths(&mut work, &mut eighths);
                break;
            };
            // Queued by this use, so its label is this use's.
            let label = &mut self.labels[id as usize];
            if label.is_settled() {
                continue; // an entry superseded by a cheaper one
            }
            label.settle();
            let (d, entered) = (label.dist, label.entered());
            book_eighths(&mut work, &mut eighths, PLAIN_EIGHTHS);
            // `offer` by hand, with the labels, the queue and the use held in locals: the
            // relaxation is the field's inner loop, and through `&mut self` every pass
            // reloaded them.
            let open = &mut self.open;
            relax(
                graph,
                &mut self.labels,
                self.uses,
                (id, d, entered),
                |reached, v| open.push(reached, v),
            );
        }
        self.eighths = eighths;
        work
    }

    /// [`SubgoalField::step`]'s search on an aimed field, from `work` done to `max`: the
    /// same relaxation, each subgoal keyed by `D` plus the aim's bound, each settled one
    /// counted [`AIMED_EIGHTHS`] eighths of a unit.
    fn step_aimed(
        &mut self,
        graph: &SubgoalGraph,
        aim: &Aim,
        mut work: usize,
        max: usize,
    ) -> usize {
        let mut eighths = self.eighths;
        let (uses, labels, open) = (self.uses, &mut self.labels[..], &mut self.aimed);
        while work < max {
            let Some(Reverse((_, id))) = open.pop() else {
                close_eighths(&mut work, &mut eighths);
                break;
            };
            let label = &mut labels[id as usize];
            if label.is_settled() {
                continue; // an entry superseded by a cheaper one
            }
            label.settle();
            let (d, entered) = (label.dist, label.entered());
            book_eighths(&mut work, &mut eighths, AIMED_EIGHTHS);
            relax(graph, labels, uses, (id, d, entered), |reached, v| {
                let key = reached + aim_bound(graph, aim, v);
                open.push(Reverse((key.to_bits(), v)));
            });
        }
        self.eighths = eighths;
        work
    }

    /// Ties seed `k` to itself (if a subgoal) and to the subgoals of its cone scan.
    fn seed(&mut self, graph: &SubgoalGraph, grid: &Grid, k: usize) {
        let g = self.seeds[k];
        let root = (self.capacity + k) as u32;
        if let Some(id) = graph.id_of(g) {
            self.offer(graph, (id, 0.0, NO_HOP), root);
        }
        let mut found = Vec::new();
        graph.reach_ids(grid, g, |id, hop| {
            found.push((id, hop.length(), hop.sector))
        });
        for tie in found {
            self.offer(graph, tie, root);
        }
    }

    /// Queues subgoal `id` at `d` with `parent`, entered over a hop of sector `entered`
    /// (keyed by `d` plus the aim's bound), if that is shorter than what it has (a label
    /// of an earlier use is no distance at all). (A settled subgoal never is: the search
    /// settles it at its `D`.) `step`'s relaxation does the same by hand.
    #[inline]
    fn offer(&mut self, graph: &SubgoalGraph, (id, d, entered): (u32, f64, Sector), parent: u32) {
        let uses = self.uses;
        let label = &mut self.labels[id as usize];
        if !label.is_of(uses) || d < label.dist {
            *label = Label::queued(d, parent, uses, entered);
            self.queue(graph, d, id);
        }
    }

    /// Queues subgoal `id` at `D = d`: by `d` without an aim, else by `d` plus the bound.
    #[inline]
    fn queue(&mut self, graph: &SubgoalGraph, d: f64, id: u32) {
        match &self.aim {
            Some(aim) => {
                let key = d + aim_bound(graph, aim, id);
                self.aimed.push(Reverse((key.to_bits(), id)));
            }
            None => self.open.push(d, id),
        }
    }

    /// `D` of subgoal `id` if this use of the field has settled it.
    #[inline]
    fn settled_dist(&self, id: u32) -> Option<f64> {
        let label = self.labels.get(id as usize)?;
        label.is_settled_in(self.uses).then_some(label.dist)
    }

    /// A lower bound of the smallest key still queued (`f_min`; 0 while seeds are still
    /// to scan, infinite once nothing is queued): every unsettled subgoal `s` has
    /// `D(s) ≥ f_min − h(s)`, `h` the aim's bound as keyed (module docs, "Aimed at an
    /// army"); without an aim, `f_min` is the radius.
    fn lowest_key(&self) -> f64 {
        if self.seeded < self.seeds.len() {
            return 0.0;
        }
        match self.aim {
            Some(_) => {
                (self.aimed.peek()).map_or(f64::INFINITY, |Reverse((f, _))| f64::from_bits(*f))
            }
            None => self.open.floor(),
        }
    }

    /// A lower bound of every unsettled subgoal's `D` (the *radius*), whatever the aim:
    /// the lowest key without one, else the least `D` queued (the first unsettled subgoal
    /// of a shortest route is queued at its `D`), worked out once the field is older than
    /// the map (it no longer grows then; the bound of the aim was worked out on the
    /// landmark table of the older graph).
    fn radius(&self) -> f64 {
        if self.aim.is_none() || self.seeded < self.seeds.len() {
            return self.lowest_key();
        }
        if let Some(r) = self.stale_radius.get() {
            return r;
        }
        let uses = self.uses;
        let r = (self.aimed.iter())
            .map(|Reverse((_, id))| self.labels[*id as usize])
            .filter(|label| label.is_queued_in(uses))
            .map(|label| label.dist)
            .fold(f64::INFINITY, f64::min);
        self.stale_radius.set(Some(r));
        r
    }

    /// The best answer of member `m` so far and its length.
    fn best(&self, m: usize) -> Option<(f64, Via)> {
        let member = &self.members[m];
        let mut best = member.direct.map(|(g, h)| (h, Via::Direct(g)));
        for &(s, h) in &member.ties {
            let Some(d) = self.settled_dist(s) else {
                continue;
            };
            if best.map_or(true, |(b, _)| h + d < b) {
                best = Some((h + d, Via::Subgoal(s)));
            }
        }
        best
    }

    /// Whether member `m`'s answer is final (see the module docs): then
    /// [`SubgoalField::path`] gives it.
    pub fn is_answered(&self, map: &HpaMap, m: usize) -> bool {
        let f_min = self.lowest_key();
        let best = self.best(m).map_or(f64::INFINITY, |(b, _)| b);
        if best == 0.0 {
            return true;
        }
        if f_min == f64::INFINITY {
            return true;
        }
        let Some(graph) = map.subgoals.as_ref().filter(|_| self.aim.is_some()) else {
            return (self.members[m].ties.iter())
                .all(|&(s, h)| h + f_min >= best || self.settled_dist(s).is_some());
        };
        (self.members[m].ties.iter()).all(|&(s, h)| {
            self.settled_dist(s).is_some() || h + f_min - self.aim_bound(graph, s) >= best
        })
    }

    /// The cells of member `m`'s shortest path to the goal, once it is answered; `None`
    /// when the search found no way (the goal is out of its reach). The tests' reading,
    /// written apart from [`SubgoalField::route`] (which the service takes, and the tests
    /// check against this): each hop's bend worked out ([`bend`]), then [`refine`]'s
    /// straight lines through the corner points.
    #[cfg(test)]
    pub fn path(&self, map: &HpaMap, m: usize) -> Option<Vec<Cell>> {
        let graph = map
            .subgoals
            .as_ref()
            .expect("a field's map keeps its subgoals");
        let waypoints: Vec<Cell> = self.waypoints(graph, m)?.collect();
        let mut points = vec![waypoints[0]];
        for hop in waypoints.windows(2) {
            points.extend([bend(hop[0], hop[1]), hop[1]]);
        }
        points.dedup();
        Some(refine(&points))
    }

    /// [`SubgoalField::path`] as a [`Path`] with its length and cost on `map`, and the
    /// smallest rectangle holding the path's cells. Each hop of the route is walked from
    /// its end nearer the start, its diagonal steps first ([`walk_hops`]: every ordering of
    /// a hop's moves is legal and as long, Lemma 1 of `taut.rs`, so no hop asks which end's
    /// scan found it, and the route bends as [`HpaMap::find_corners`] bends), in one pass
    /// over the route's waypoints read off the labels: the cells written once into a
    /// vector sized from the member's answer (its length bounds its steps), the box and the
    /// length worked out from the waypoints (each hop's walk stays within its ends' box; the
    /// length counted over the hops is the bits of a pass over the cells,
    /// [`Path::from_walk`]). The service wants the box for every answer it delivers
    /// (`service::watch::reach`), and the route's hops to price the read-out.
    pub(crate) fn route(&self, map: &HpaMap, m: usize) -> Option<(Path, Rect, usize)> {
        let graph = map
            .subgoals
            .as_ref()
            .expect("a field's map keeps its subgoals");
        let (length, via) = self.best(m)?;
        let waypoints = self.waypoints_via(graph, m, via);
        // A step is at least 1 long: the cells are at most the length and one (and one
        // more for the rounding of the length's sum).
        let walk = walk_hops(waypoints, length as usize + 2).expect("a route has its start");
        let (bounds, hops) = (walk.bounds, walk.hops);
        Some((Path::from_walk(walk, map.grid(), map.costs()), bounds, hops))
    }

    /// The waypoints of member `m`'s shortest path to the goal, once it is answered: its
    /// start, then its tie and the tie's chain of parents to a seed, or the outline cell of
    /// its direct line; consecutive ones are the ends of a hop (a scan's walk, or the
    /// checked direct walk). A start or a seed on a subgoal repeats that cell (a hop of no
    /// steps). `None` when the search found no way.
    #[cfg(test)]
    fn waypoints<'a>(&'a self, graph: &'a SubgoalGraph, m: usize) -> Option<Waypoints<'a>> {
        Some(self.waypoints_via(graph, m, self.best(m)?.1))
    }

    /// [`SubgoalField::waypoints`] of member `m` answered `via`.
    fn waypoints_via<'a>(&'a self, graph: &'a SubgoalGraph, m: usize, via: Via) -> Waypoints<'a> {
        Waypoints {
            field: self,
            graph,
            next: Waypoint::Start(self.members[m].start, via),
        }
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.labels.capacity() * std::mem::size_of::<Label>()
            + self.open.memory_bytes()
            + self.aimed.capacity() * 16
            + self.seeds.capacity() * 8
            + self.scratch_ties.capacity() * 16
            + self.repair.as_ref().map_or(0, |r| r.memory_bytes())
            + self.box_memory_bytes()
            + self
                .members
                .iter()
                .map(|m| std::mem::size_of::<Member>() + m.ties.capacity() * 16)
                .sum::<usize>()
    }
}

/// Entries a bucket's list is made with when no spare list is left: a field's first
/// buckets grew from nothing, 4, 8, 16, 32, …, and their reallocations were 15,600 of the
/// scattered burst's ~40,000 (Cauldron, session 39); a list a sixteen-entry block holds
/// is most of them (a bucket one unit wide on a front of subgoals).
const FIRST_LIST_ENTRIES: usize = 16;

/// Subgoals queued by their distance `D`, in buckets one unit wide: a bucket queue, where
/// a binary heap took a third of the search's time.
///
/// Every edge is at least 1 long (two distinct cells), so while the lowest non-empty
/// bucket `[b, b + 1)` is being emptied no subgoal in it can still get shorter (a shorter
/// way would come from a subgoal at `D ≥ b` plus an edge `≥ 1`): each one popped from it
/// is final, whatever the order within the bucket. A subgoal queued again at a shorter
/// `D` leaves a stale entry behind, skipped once the subgoal is settled.
///
/// The lists' memory is passed on: a bucket emptied below the radius is never used again
/// in this use, so `pop` moves its list (with its capacity) to `spare`, and a bucket about
/// to get its first entry takes a spare list instead of growing one from nothing. The
/// queue's buffers thus stay about the size of its live range (the buckets between the
/// radius and the farthest queued `D`, plus a list per bucket index reached), rather than
/// every bucket keeping what it once held; a search allocates only while the live range
/// or a bucket's load grows past what it had.
#[derive(Clone, Debug, Default)]
struct Buckets {
    /// Lists of every bucket used so far (those below `low` handed on to `spare`, those
    /// at or above it kept when emptied, for their memory).
    lists: Vec<Vec<u32>>,
    /// Empty lists with memory, for buckets that get their first entry.
    spare: Vec<Vec<u32>>,
    /// No bucket below this one holds an entry.
    low: usize,
    /// Nor at or above this one: the buckets of the lists in use (the others are empty).
    high: usize,
}

impl Buckets {
    #[inline(always)]
    fn push(&mut self, d: f64, id: u32) {
        let b = d as usize;
        debug_assert!(b >= self.low, "a subgoal queued below the radius");
        if b >= self.lists.len() {
            self.lists.resize_with(b + 1, Vec::new);
        }
        let list = &mut self.lists[b];
        if list.capacity() == 0 {
            *list = (self.spare.pop()).unwrap_or_else(|| Vec::with_capacity(FIRST_LIST_ENTRIES));
        }
        list.push(id);
        self.high = self.high.max(b + 1);
    }

    /// The IDs of every entry (superseded ones and repeats included).
    fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        let listed = self.lists.get(self.low..self.high).unwrap_or_default();
        listed.iter().flatten().copied()
    }

    /// Empties the queue and returns the IDs of its entries (to key them again).
    fn take_ids(&mut self) -> Vec<u32> {
        let ids = self.ids().collect();
        self.clear();
        ids
    }

    /// Empties the queue, keeping its buckets' memory; returns the buckets looked at (those
    /// between the lowest and the highest that may hold entries).
    fn clear(&mut self) -> usize {
        let range = self.high.saturating_sub(self.low);
        for list in self.lists.get_mut(self.low..self.high).unwrap_or_default() {
            list.clear();
        }
        self.low = 0;
        self.high = 0;
        range
    }

    fn pop(&mut self) -> Option<u32> {
        while self.low < self.high {
            let list = &mut self.lists[self.low];
            if let Some(id) = list.pop() {
                return Some(id);
            }
            if list.capacity() > 0 {
                self.spare.push(std::mem::take(list));
            }
            self.low += 1;
        }
        None
    }

    /// A lower bound of every queued `D`: the lowest non-empty bucket's (infinite when
    /// none is left).
    fn floor(&self) -> f64 {
        (self.low..self.high)
            .find(|&b| !self.lists[b].is_empty())
            .map_or(f64::INFINITY, |b| b as f64)
    }

    fn memory_bytes(&self) -> usize {
        self.lists
            .iter()
            .chain(&self.spare)
            .map(|l| l.capacity() * 4 + std::mem::size_of::<Vec<u32>>())
            .sum()
    }
}

/// Books `add` eighths of a work unit: the whole units into `work`, the rest carried in
/// `eighths` (to the next settled subgoal, or the next slice).
#[inline(always)]
fn book_eighths(work: &mut usize, eighths: &mut usize, add: usize) {
    *eighths += add;
    *work += *eighths / 8;
    *eighths %= 8;
}

/// The search is over: the eighths not yet booked count as a unit, so that a step which
/// did anything returns work (0 only when nothing was left).
#[inline(always)]
fn close_eighths(work: &mut usize, eighths: &mut usize) {
    *work += usize::from(*eighths > 0);
    *eighths = 0;
}

/// Relaxes the edges of subgoal `id`, settled at `D = d` after being entered over a hop
/// of sector `entered`, that the taut-path rule keeps (module docs, "Taut paths"): a
/// neighbour whose label is of an earlier use than `uses`, or longer, gets `d` plus the
/// edge with `id` for parent, and `queue(D, neighbour)` queues it. The fields' inner
/// loop, always inlined with its queue.
#[inline(always)]
fn relax(
    graph: &SubgoalGraph,
    labels: &mut [Label],
    uses: u32,
    (id, d, entered): (u32, f64, Sector),
    mut queue: impl FnMut(f64, u32),
) {
    let here = graph.cell(id);
    let taut = taut_cone(graph.blocked_diagonals(id), entered);
    for &v in graph.neighbours(id) {
        let there = graph.cell(v);
        // Map sides are far below 2³¹: the differences fit.
        let (dx, dy) = (
            there.x.wrapping_sub(here.x) as i32,
            there.y.wrapping_sub(here.y) as i32,
        );
        if !taut.holds(dx, dy) {
            continue;
        }
        let reached = d + octile_apart(dx.unsigned_abs(), dy.unsigned_abs());
        let label = &mut labels[v as usize];
        if !label.is_of(uses) || reached < label.dist {
            *label = Label::queued(reached, id, uses, sector(here, there));
            queue(reached, v);
        }
    }
}

/// Work units a field aimed at an army grows, per cell of octile distance from the goal
/// to the army's box: the median over the 48 aimed fields of the replay's frame-0 bursts
/// of armies (session 41: each field's units grown less 25 a member's join, over the
/// distance from its goal to its nearest member; Cauldron 2.9, Expedition 2.8, from 0.8
/// to 8.5 a field, with the map's walls between them). Only an estimate, for the order of
/// work ([`SubgoalField::growth_estimate`]): nothing is priced by it.
const AIMED_UNITS_PER_CELL: f64 = 3.0;

impl SubgoalField {
    /// The work units a member's cone scan counts for ([`SCAN_UNITS`]), for estimates
    /// outside this module.
    pub(crate) const SCAN_UNITS: usize = SCAN_UNITS;

    /// About how many work units a field from `goal` grows before it answers starts
    /// standing in `cells` (their box), on `map`: a deterministic estimate from the
    /// geometry alone, for the order the service serves a burst of orders in (none of the
    /// field's answers depends on it). A field aimed at an army ([`is_army`]) settles a
    /// band along the routes from the goal to the box, which grows with their distance
    /// ([`AIMED_UNITS_PER_CELL`] a cell); a plain one settles the disc out to its farthest
    /// member: the subgoals of the map in proportion to the disc's share of its area (all
    /// of them at most), at [`PLAIN_EIGHTHS`] eighths each. 0 on a map without a
    /// subgoal graph (gate fields are not estimated: their groups keep the order of
    /// their members' own costs).
    pub(crate) fn growth_estimate(map: &HpaMap, goal: Rect, cells: Rect) -> usize {
        let Some(graph) = map.subgoals.as_ref() else {
            return 0;
        };
        if is_army(map, cells) {
            return (AIMED_UNITS_PER_CELL * stale::rect_gap_octile(goal, cells)) as usize;
        }
        // The farthest corner of the box from the goal bounds the farthest member.
        let far = [
            Cell::new(cells.x1, cells.y1),
            Cell::new(cells.x2, cells.y1),
            Cell::new(cells.x1, cells.y2),
            Cell::new(cells.x2, cells.y2),
        ]
        .into_iter()
        .map(|c| stale::gap_octile(goal, c))
        .fold(0.0, f64::max);
        let area = f64::from(map.grid.width()) * f64::from(map.grid.height());
        let share = (std::f64::consts::PI * far * far / area).min(1.0);
        (graph.len() as f64 * share) as usize * PLAIN_EIGHTHS / 8
    }
}

/// Whether a group whose cells lie in `cells` stands together, for an aimed field: the
/// box's longer side at most [`ARMY_SPAN`], or a sixteenth of the map's longer side on
/// maps larger than 512 cells. A measure of one comparison: the aim's bound is the
/// distance to the box (and to landmark intervals as wide as the box), so what matters
/// is how small the box is against the routes across the map. Session 35's experiment
/// (`aim-experiment`): members within ±10 cells settled 9× fewer subgoals, ±40 cells 4×,
/// members scattered over the map 4 % fewer at 3.2× the instructions.
pub(super) fn is_army(map: &HpaMap, cells: Rect) -> bool {
    let side = cells.width().max(cells.height());
    let limit = ARMY_SPAN.max(map.grid.width().max(map.grid.height()) / 16);
    side <= limit
}

/// The aim's bound at subgoal `id`, as keyed ([`SubgoalField::aim_bound`]).
#[inline(always)]
fn aim_bound(graph: &SubgoalGraph, aim: &Aim, id: u32) -> f64 {
    let cell = graph.cell(id);
    let boxed = stale::gap_octile(aim.cells, cell);
    let landmarks = match &aim.lanes {
        Some(lanes) => f64::from(graph.landmarks().gap_outside(lanes, id)) / aim.units,
        None => 0.0,
    };
    boxed.max(landmarks)
}

/// How far the diagonal steps from one cell are legal along each diagonal, found by
/// walking each diagonal no farther than asked (a step is legal when [`Grid::can_step`]
/// says so: both cells free and no corner cut).
struct DiagonalRays {
    from: Cell,
    /// Legal steps walked so far along each diagonal.
    walked: [u32; 4],
    /// Whether the step after `walked` is known to be illegal.
    stopped: [bool; 4],
}

impl DiagonalRays {
    fn new(from: Cell) -> Self {
        DiagonalRays {
            from,
            walked: [0; 4],
            stopped: [false; 4],
        }
    }

    /// Whether every step of the pure diagonal from `from` to `to` is legal (`to` lies on
    /// a diagonal through `from`, or is `from`).
    fn reaches(&mut self, grid: &Grid, to: Cell) -> bool {
        let (dx, dy) = (
            i64::from(to.x) - i64::from(self.from.x),
            i64::from(to.y) - i64::from(self.from.y),
        );
        debug_assert_eq!(dx.abs(), dy.abs(), "{} is not diagonal to {to}", self.from);
        let Some(dir) = heading(self.from, to) else {
            return true; // `to` is `from`: no step.
        };
        let steps = dx.unsigned_abs() as u32;
        let i = usize::from(dx > 0) * 2 + usize::from(dy > 0);
        let (sx, sy) = dir.delta();
        while self.walked[i] < steps && !self.stopped[i] {
            let k = self.walked[i] as i64;
            let at = Cell::new(
                (i64::from(self.from.x) + k * i64::from(sx)) as u32,
                (i64::from(self.from.y) + k * i64::from(sy)) as u32,
            );
            if grid.can_step(at, dir) {
                self.walked[i] += 1;
            } else {
                self.stopped[i] = true;
            }
        }
        self.walked[i] >= steps
    }
}

/// Whether every step of the straight line from `from` to `to` (on one row or column, or
/// the same cell) is legal.
fn straight_is_clear(grid: &Grid, from: Cell, to: Cell) -> bool {
    let Some(dir) = heading(from, to) else {
        return true;
    };
    let (sx, sy) = dir.delta();
    let mut at = from;
    while at != to {
        if !grid.can_step(at, dir) {
            return false;
        }
        at = Cell::new(
            (i64::from(at.x) + i64::from(sx)) as u32,
            (i64::from(at.y) + i64::from(sy)) as u32,
        );
    }
    true
}

/// The direction of the first step from `from` toward `to` along a row, a column or a
/// diagonal (`None` when they are the same cell).
fn heading(from: Cell, to: Cell) -> Option<Direction> {
    let next = |a: u32, b: u32| match b.cmp(&a) {
        std::cmp::Ordering::Less => a - 1,
        std::cmp::Ordering::Equal => a,
        std::cmp::Ordering::Greater => a + 1,
    };
    Direction::between(from, Cell::new(next(from.x, to.x), next(from.y, to.y)))
}

/// The cells of `r`'s outline (every cell of `r` beside a cell outside it), row by row.
fn outline(r: Rect) -> impl Iterator<Item = Cell> {
    r.cells()
        .filter(move |c| c.x == r.x1 || c.x == r.x2 || c.y == r.y1 || c.y == r.y2)
}
