//! The contraction that makes the [`Levels`]: subgoals visited by growing degree, each
//! made local when the witness tests find few enough shortcuts it needs (see the parent
//! module's docs for the rule and why it is exact), whole at a build or in slices
//! against a deadline at a rebuild after edits ([`Contraction::run`]). The finished
//! contraction packs its arcs into the levels ([`Contraction::finish`]).

use super::arc::{Arc, PackedArc, COUNT_LIMIT, ID_LIMIT, SHORTCUT};
use super::{Levels, DIRECT, MAX_LEVEL};
use crate::geom::Cell;
use crate::hpa::map::sort_by_z_key;
use crate::hpa::side_by_side::join;
use crate::hpa::subgoals::taut::sector;
use crate::hpa::subgoals::SubgoalGraph;
use std::time::Instant;

/// Shortcuts one contraction may add: more would trade few expansions for many edges.
/// Measured with [`MAX_LEVEL`] (subgoals bench, shared machine): 2–8 with levels 3–6 give
/// the same times within noise; 32 with 12 and 100 with 30 contract 64–76 % of the
/// subgoals but the upward edges double and queries slow down 10–50 %.
const MAX_SHORTCUTS: usize = 4;
/// What two path lengths may differ by and still count as equal: distinct octile sums
/// on maps below 2^16 cells a side differ by far more.
const TIE: f64 = 1e-7;

/// Neighbours from which a contraction tests the pairs most likely to need its subgoal
/// first (see [`Contraction::likely_pairs_refuse`]): none since session 37. With the
/// witness test's cheaper loops the extra marks of that pass cost more than the full
/// passes it spares, at every threshold measured (callgrind, `Contraction::run` on
/// Cauldron: 12 neighbours 167.5M, 16 162.2M, 24 153.3M, 32 147.6M, 48 144.2M, never
/// 143.6M; Expedition 158.5M at 12, 134.4M never). The pass is kept, and tested, for a
/// test of other orders.
const LIKELY_FIRST_DEGREE: usize = usize::MAX;

/// IDs whose edge lists [`direct_lists`] makes on one thread.
const LISTS_CHUNK: usize = 4096;

/// Subgoals contracted between two looks at the clock in a sliced build.
const CLOCK_EVERY: usize = 8;

/// A contraction under way (see the module docs), which [`Contraction::run`] carries on
/// in slices over the unchanged subgoal graph it was started on.
#[derive(Clone, Debug)]
pub(crate) struct Contraction {
    /// The graph left so far.
    adj: Vec<Vec<Arc>>,
    /// The upward edges of each local.
    up: Vec<Vec<Arc>>,
    local: Vec<bool>,
    level: Vec<u8>,
    /// The subgoals to visit, and how many have been.
    order: Vec<u32>,
    visited: usize,
    /// The witness tests' tables, for the subgoals decided on this thread.
    witnesses: Witnesses,
    /// Each subgoal's cell, for the likely pairs (see [`Contraction::likely_pairs_refuse`]).
    cells: Vec<Cell>,
    /// Neighbours from which the likely pairs are tested first: [`LIKELY_FIRST_DEGREE`]
    /// (tests lower it, so that every subgoal's are).
    likely_from: usize,
}

/// The tables a contraction's witness tests write as they decide a subgoal.
#[derive(Clone, Debug)]
struct Witnesses {
    /// The shortest edge from the current first neighbour to each subgoal (infinite
    /// between two tests).
    reach: Vec<f64>,
    /// The [`octant_mask`] of each neighbour of the subgoal being decided.
    octants: Vec<u8>,
}

impl Witnesses {
    /// Tables for a graph of `n` ID slots.
    fn new(n: usize) -> Self {
        Witnesses {
            reach: vec![f64::INFINITY; n],
            octants: Vec::new(),
        }
    }

    /// Heap bytes held.
    fn memory_bytes(&self) -> usize {
        self.reach.capacity() * 8 + self.octants.capacity()
    }
}

/// Writes into `reach` the weight of the edge from `a` to each of its neighbours but `v`
/// (`reach[v]` stays infinite, so no witness passes through `v`).
///
/// Every edge is marked, `v`'s too, and `reach[v]` set back to infinite after: one
/// branch less an edge than skipping `v`'s, with the same table (`reach[v]` was infinite,
/// as every entry is between two tests). A list holds one arc to each neighbour: the
/// direct lists do, and [`Contraction::contract`] adds a shortcut `a`–`b` only for a pair
/// no arc witnessed, so an arc `a`–`b` already there is longer and is replaced. Each
/// entry is thus written once, from infinite, and needs no comparison with what it held
/// (a compare and a branch an edge: 2.4 million edges marked on Cauldron, `run` 143.6M →
/// 133.8M instructions); debug builds check it.
#[inline(always)]
fn mark_reach(adj: &[Vec<Arc>], reach: &mut [f64], a: u32, v: u32) {
    by_fours(&adj[a as usize], |arc| {
        debug_assert!(reach[arc.to as usize].is_infinite(), "one arc a neighbour");
        reach[arc.to as usize] = arc.weight();
    });
    reach[v as usize] = f64::INFINITY;
}

/// Calls `f` on each arc of `arcs` in order, four arcs a turn of the loop: the loop's own
/// step, compare and jump were a good part of what an arc cost in [`mark_reach`] and
/// [`clear_reach`] (with [`witnessed`] told four middles at a time too, `run` on Cauldron
/// 133.8M → 113.5M instructions).
#[inline(always)]
fn by_fours(arcs: &[Arc], mut f: impl FnMut(&Arc)) {
    let mut fours = arcs.chunks_exact(4);
    for four in &mut fours {
        f(&four[0]);
        f(&four[1]);
        f(&four[2]);
        f(&four[3]);
    }
    fours.remainder().iter().for_each(f);
}

/// The octants (bit `k`: between directions `k` and `k + 1` of `taut.rs`, both edges
/// included) that hold the hop from `v` to `b` when `arc`, from `v` to `b`, weighs their
/// octile distance; 0 when it is a longer shortcut. The octile distance is a norm whose
/// unit ball has the eight octants as its faces' cones, so `|p + q| = |p| + |q|` exactly
/// when `p` and `q` share an octant: `v` lies taut between `a` and `b` when the masks of
/// the hop into `v` (the hop out to `a` turned half round) and of the hop out to `b` meet.
fn octant_mask(v: Cell, b: Cell, arc: &Arc) -> u8 {
    let (dx, dy) = (v.x.abs_diff(b.x), v.y.abs_diff(b.y));
    let octile = (dx.max(dy) - dx.min(dy), dx.min(dy));
    if (u32::from(arc.straight), u32::from(arc.diagonal)) != octile {
        return 0;
    }
    match sector(v, b) {
        // A straight or diagonal hop lies on the edge of two octants.
        s @ 0..8 => (1 << s) | (1 << ((s + 7) % 8)),
        s => 1 << (s - 8),
    }
}

/// Sets `reach` back to infinite where [`mark_reach`] wrote it for `a`.
#[inline(always)]
fn clear_reach(adj: &[Vec<Arc>], reach: &mut [f64], a: u32) {
    by_fours(&adj[a as usize], |arc| {
        reach[arc.to as usize] = f64::INFINITY
    });
}

/// Whether the neighbour marked in `reach` (see [`mark_reach`]) reaches `b` in at most
/// `most`, directly or through one middle subgoal. A middle it does not reach has an
/// infinite `reach`, so its sum is infinite too: one comparison an edge tells both (the
/// weight is stored, so there is nothing to save by skipping it first).
#[inline(always)]
fn witnessed(adj: &[Vec<Arc>], reach: &[f64], b: u32, most: f64) -> bool {
    if reach[b as usize] <= most {
        return true;
    }
    let through = |arc: &Arc| reach[arc.to as usize] + arc.weight() <= most;
    // Four middles a turn, told together (the answer is whether any is a witness).
    let mut fours = adj[b as usize].chunks_exact(4);
    for four in &mut fours {
        if through(&four[0]) | through(&four[1]) | through(&four[2]) | through(&four[3]) {
            return true;
        }
    }
    fours.remainder().iter().any(through)
}

/// Whether every direct edge of `graph` counts at most [`COUNT_LIMIT`] steps of each kind,
/// told before a contraction allocates anything (an edited graph that cannot pack its arcs
/// is asked again at the next refresh after every edit). A direct edge counts at most
/// `max(dx, dy)` steps of either kind, so subgoals within a box [`COUNT_LIMIT`] wide and
/// high (every map up to 4,096 cells a side) settle it without looking at an edge.
fn direct_edges_fit(graph: &SubgoalGraph) -> bool {
    let live = (0..graph.capacity() as u32).filter(|&id| graph.is_live(id));
    let cells = || live.clone().map(|id| graph.cell(id));
    let span = |axis: fn(Cell) -> u32| {
        let (low, high) = cells().fold((u32::MAX, 0), |(l, h), c| (l.min(axis(c)), h.max(axis(c))));
        high.saturating_sub(low)
    };
    let limit = u32::from(COUNT_LIMIT);
    if span(|c| c.x) <= limit && span(|c| c.y) <= limit {
        return true;
    }
    live.clone().all(|id| {
        let here = graph.cell(id);
        graph
            .neighbours(id)
            .iter()
            .all(|&to| Arc::direct(to, here, graph.cell(to)).fits(COUNT_LIMIT))
    })
}

/// The direct edges of the subgoals `ids` as arcs, one list per ID (empty for a vacant
/// one): with the `parallel` feature ranges of [`LISTS_CHUNK`] IDs side by side. With
/// `flat`, also each arc as its far end and `weigh(straight, diagonal)` of its steps,
/// written into `edges`, the part of the flat lists (see [`Contraction::lists_with_flat`])
/// that `start` (every ID's offset in them) gives these IDs: each range writes its own
/// part in place, so no range's edges are copied after.
fn direct_lists<W>(
    graph: &SubgoalGraph,
    ids: std::ops::Range<u32>,
    flat: Option<FlatPart<'_, W>>,
) -> Vec<Vec<Arc>>
where
    W: Fn(u32, u32) -> u32 + Sync,
{
    if cfg!(feature = "parallel") && ids.len() > LISTS_CHUNK {
        let middle = ids.start + (ids.end - ids.start) / 2;
        let (low, high) = match flat {
            Some((weigh, start, edges)) => {
                let cut = (start[middle as usize] - start[ids.start as usize]) as usize;
                let (low, high) = edges.split_at_mut(cut);
                (Some((weigh, start, low)), Some((weigh, start, high)))
            }
            None => (None, None),
        };
        let (mut first, mut second) = join(
            move || direct_lists(graph, ids.start..middle, low),
            move || direct_lists(graph, middle..ids.end, high),
        );
        first.append(&mut second);
        return first;
    }
    let lists: Vec<Vec<Arc>> = ids
        .map(|id| {
            if !graph.is_live(id) {
                return Vec::new();
            }
            let here = graph.cell(id);
            graph
                .neighbours(id)
                .iter()
                .map(|&to| Arc::direct(to, here, graph.cell(to)))
                .collect()
        })
        .collect();
    if let Some((weigh, _, edges)) = flat {
        debug_assert_eq!(
            edges.len(),
            lists.iter().map(Vec::len).sum::<usize>(),
            "a part for these IDs"
        );
        for (slot, arc) in edges.iter_mut().zip(lists.iter().flatten()) {
            *slot = (arc.to, weigh(arc.straight.into(), arc.diagonal.into()));
        }
    }
    lists
}

/// The direct edges of a graph as a contraction starts from them (see
/// [`Contraction::lists_with_flat`]).
pub(crate) struct DirectLists(Vec<Vec<Arc>>);

/// A graph's edges in flat lists (see [`Contraction::lists_with_flat`]).
pub(crate) struct FlatLists {
    /// Where each ID's arcs begin in `edges`, and their end.
    pub start: Vec<u32>,
    /// (far end, weight) of each arc, by ID, in the order of the graph's lists.
    pub edges: Vec<(u32, u32)>,
}

/// A range's part of the flat lists (see [`direct_lists`]): the weights, every ID's
/// offset, and the range's edges.
type FlatPart<'a, W> = (&'a W, &'a [u32], &'a mut [(u32, u32)]);

impl Contraction {
    /// Whether [`Contraction::new`] makes `graph`'s edge lists in ranges side by side
    /// (see [`direct_lists`]).
    pub fn splits_lists(graph: &SubgoalGraph) -> bool {
        cfg!(feature = "parallel") && graph.capacity() > LISTS_CHUNK
    }

    /// A contraction of `graph`'s subgoals that has not begun, or `None` when the levels'
    /// arcs could not be packed: more IDs than [`ID_LIMIT`], or a direct edge with more
    /// steps than [`COUNT_LIMIT`] (see [`PackedArc`]).
    pub fn new(graph: &SubgoalGraph) -> Option<Self> {
        if graph.capacity() > ID_LIMIT || !direct_edges_fit(graph) {
            return None;
        }
        // No flat lists asked for: any weights' type will do.
        let adj = direct_lists::<fn(u32, u32) -> u32>(graph, 0..graph.capacity() as u32, None);
        Some(Self::over(graph, adj))
    }

    /// The direct edges a [`Contraction::new`] of `graph` starts from, when it would
    /// start (see [`Contraction::over`]), and the graph's edges in flat lists for
    /// another reader: for each ID in order, its arcs as (far end, `weigh(straight,
    /// diagonal)` of their steps), with where each ID's arcs begin (`n + 1` offsets).
    /// The landmark table's lists are made so (`LandmarkLists::from_flat`): each arc's
    /// steps worked out once for both, in the same ranges side by side, instead of the
    /// table's lists made from the cells again beside these (11.8M instructions on
    /// Cauldron, on the set-up both sides of the next join wait for). The rest of the
    /// contraction's set-up (its order) is left to [`Contraction::over`], which the
    /// levels' side of that join runs.
    pub fn lists_with_flat<W>(graph: &SubgoalGraph, weigh: &W) -> Option<(DirectLists, FlatLists)>
    where
        W: Fn(u32, u32) -> u32 + Sync,
    {
        let n = graph.capacity();
        if n > ID_LIMIT || !direct_edges_fit(graph) {
            return None;
        }
        // Each ID's offset in the flat lists first (its lists' lengths are its
        // neighbours'), so that the ranges write their parts in place.
        let mut start = Vec::with_capacity(n + 1);
        start.push(0u32);
        for id in 0..n as u32 {
            let len = if graph.is_live(id) {
                graph.neighbours(id).len()
            } else {
                0
            };
            start.push(start[start.len() - 1] + len as u32);
        }
        let mut edges = vec![(0, 0); start[n] as usize];
        let adj = direct_lists(
            graph,
            0..n as u32,
            Some((weigh, &start[..], &mut edges[..])),
        );
        Some((DirectLists(adj), FlatLists { start, edges }))
    }

    /// The contraction [`Contraction::new`] makes, over the direct edges
    /// [`Contraction::lists_with_flat`] made of the same graph.
    pub fn over_lists(graph: &SubgoalGraph, lists: DirectLists) -> Self {
        Self::over(graph, lists.0)
    }

    /// The contraction of `graph` over its direct edges `adj`, not begun.
    fn over(graph: &SubgoalGraph, adj: Vec<Vec<Arc>>) -> Self {
        let n = graph.capacity();
        // By degree, then by cell among equal degrees, so that the levels do not depend on
        // the IDs, which edits hand out differently from a fresh build. (Maps with levels
        // are at most 2^16 cells a side: the key holds the cell in 32 bits. Each key is
        // worked out once; the cells are distinct, so the order is the same as a sort by
        // degree and cell, and a radix sort gives it: 5.4M instructions on Cauldron with a
        // comparison sort, on the set-up that both sides of the next join wait for.)
        let mut keyed: Vec<(u64, u32)> = (0..n as u32)
            .filter(|&id| graph.is_live(id))
            .map(|id| {
                let c = graph.cell(id);
                debug_assert!(c.x.max(c.y) <= u32::from(u16::MAX), "a level map's cell");
                let degree = graph.neighbours(id).len() as u64;
                (degree << 32 | u64::from(c.y) << 16 | u64::from(c.x), id)
            })
            .collect();
        sort_by_z_key(&mut keyed, |&(key, _)| key);
        let order = keyed.into_iter().map(|(_, id)| id).collect();
        Contraction {
            adj,
            up: vec![Vec::new(); n],
            local: vec![false; n],
            level: vec![0; n],
            order,
            visited: 0,
            witnesses: Witnesses::new(n),
            cells: graph.cells.clone(),
            likely_from: LIKELY_FIRST_DEGREE,
        }
    }

    /// Subgoals visited so far (contracted or kept global): the work done.
    pub fn visited(&self) -> usize {
        self.visited
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        let lists: usize = self
            .adj
            .iter()
            .chain(&self.up)
            .map(|l| l.capacity() * std::mem::size_of::<Arc>() + std::mem::size_of::<Vec<Arc>>())
            .sum();
        lists
            + self.local.capacity()
            + self.level.capacity()
            + self.order.capacity() * 4
            + self.witnesses.memory_bytes()
            + self.cells.capacity() * std::mem::size_of::<Cell>()
    }

    /// Carries the contraction on until it is done (then `true`) or `deadline` passes.
    /// `graph` is the one it was started on.
    pub fn run(&mut self, graph: &SubgoalGraph, deadline: Option<Instant>) -> bool {
        debug_assert_eq!(graph.capacity(), self.adj.len(), "the graph changed");
        let mut shortcuts: Vec<(u32, Arc)> = Vec::new();
        while self.visited < self.order.len() {
            let v = self.order[self.visited];
            self.visited += 1;
            if self.decide(v, &mut shortcuts) {
                self.contract(v, &shortcuts);
            }
            if self.visited % CLOCK_EVERY == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                return self.visited == self.order.len();
            }
        }
        true
    }

    /// Whether `v` is to be contracted on the graph left so far (its level below
    /// [`MAX_LEVEL`] and [`Contraction::shortcuts`] it needs fitting), with those shortcuts
    /// in `out`.
    fn decide(&mut self, v: u32, out: &mut Vec<(u32, Arc)>) -> bool {
        let mut witnesses = std::mem::replace(&mut self.witnesses, Witnesses::new(0));
        let contracted = self.decide_with(&mut witnesses, v, out);
        self.witnesses = witnesses;
        contracted
    }

    /// [`Contraction::decide`] with the tables `witnesses`: it reads the graph alone, so
    /// threads may decide subgoals side by side, each with its own tables.
    fn decide_with(&self, witnesses: &mut Witnesses, v: u32, out: &mut Vec<(u32, Arc)>) -> bool {
        out.clear();
        self.level[v as usize] < MAX_LEVEL && self.shortcuts(witnesses, v, out)
    }

    /// The shortcuts contracting `v` needs, into `out` as (from, arc), or `false` (and
    /// `out` left holding some of them, or none) when there would be more than
    /// [`MAX_SHORTCUTS`] or one would count more steps than the packed arcs hold.
    fn shortcuts(&self, witnesses: &mut Witnesses, v: u32, out: &mut Vec<(u32, Arc)>) -> bool {
        out.clear();
        if self.adj[v as usize].len() >= self.likely_from && self.likely_pairs_refuse(witnesses, v)
        {
            return false;
        }
        let limit = COUNT_LIMIT;
        let (adj, reach) = (&self.adj, &mut witnesses.reach);
        let around = &adj[v as usize];
        // The last neighbour has no pair after it: it is not marked.
        for (i, x) in around
            .iter()
            .enumerate()
            .take(around.len().saturating_sub(1))
        {
            let a = x.to;
            mark_reach(adj, reach, a, v);
            let to_a = x.weight();
            let mut fits = true;
            for y in &around[i + 1..] {
                if !witnessed(adj, reach, y.to, to_a + y.weight() + TIE) {
                    // `x` leads from `v` to `a`: the same steps lead back.
                    match Arc::joined(x.reversed(v), *y, v, limit) {
                        Some(arc) => out.push((a, arc)),
                        None => fits = false,
                    }
                    // Past the limit the answer is known: the other pairs are not looked
                    // at (the build spends most of its contraction time on subgoals that
                    // stay global).
                    if !fits || out.len() > MAX_SHORTCUTS {
                        break;
                    }
                }
            }
            clear_reach(adj, reach, a);
            if !fits || out.len() > MAX_SHORTCUTS {
                return false;
            }
        }
        true
    }

    /// Whether the pairs of `v`'s neighbours most likely to need `v` already refuse its
    /// contraction: more than [`MAX_SHORTCUTS`] of them unwitnessed, or one whose shortcut
    /// would not fit. Only the count of unwitnessed pairs and their fit decide, not the
    /// order the pairs are tested in, so [`Contraction::shortcuts`] may refuse on this
    /// answer before its own pass. The likely pairs are those `v` lies *taut* between
    /// (`w(a, v) + w(v, b)` is the octile distance from `a` to `b`: the hops from `a` to
    /// `v` and from `v` to `b` share an octant, see [`octant_mask`]) and those joined to
    /// `v` by a shortcut longer than their octile distance. Around the subgoals Cauldron
    /// keeps global, 72 % and 30 % of them are unwitnessed against 11 % of all pairs
    /// (8.9 and 5.6 such pairs a subgoal, of 276), so most of those subgoals are told
    /// after a few tests instead of about a hundred.
    fn likely_pairs_refuse(&self, witnesses: &mut Witnesses, v: u32) -> bool {
        let limit = COUNT_LIMIT;
        let (adj, cells) = (&self.adj, &self.cells);
        let (reach, octants) = (&mut witnesses.reach, &mut witnesses.octants);
        let around = &adj[v as usize];
        let at_v = cells[v as usize];
        octants.clear();
        octants.extend(
            around
                .iter()
                .map(|x| octant_mask(at_v, cells[x.to as usize], x)),
        );
        let mut unwitnessed = 0;
        for (i, x) in around.iter().enumerate() {
            let a = x.to;
            // The octants of the hop from `a` into `v`.
            let inward = octants[i].rotate_left(4);
            let mut marked = false;
            for (y, &outward) in around[i + 1..].iter().zip(&octants[i + 1..]) {
                if inward != 0 && outward != 0 && inward & outward == 0 {
                    continue;
                }
                if !marked {
                    mark_reach(adj, reach, a, v);
                    marked = true;
                }
                if !witnessed(adj, reach, y.to, x.weight() + y.weight() + TIE) {
                    unwitnessed += match Arc::joined(x.reversed(v), *y, v, limit) {
                        Some(_) => 1,
                        None => MAX_SHORTCUTS + 1,
                    };
                    if unwitnessed > MAX_SHORTCUTS {
                        clear_reach(adj, reach, a);
                        return true;
                    }
                }
            }
            if marked {
                clear_reach(adj, reach, a);
            }
        }
        false
    }

    /// [`Contraction::shortcuts`] as it was written first, with no early skip in the
    /// witness test: the oracle its faster test is held to.
    #[cfg(test)]
    fn shortcuts_reference(&mut self, v: u32, out: &mut Vec<(u32, Arc)>) -> bool {
        out.clear();
        let limit = COUNT_LIMIT;
        let (adj, reach) = (&self.adj, &mut self.witnesses.reach);
        let around = &adj[v as usize];
        let mut fits = true;
        for (i, x) in around.iter().enumerate() {
            let a = x.to;
            for arc in &adj[a as usize] {
                if arc.to != v {
                    let r = &mut reach[arc.to as usize];
                    *r = r.min(arc.weight());
                }
            }
            for y in &around[i + 1..] {
                let b = y.to;
                let need = x.weight() + y.weight();
                let witnessed = reach[b as usize] <= need + TIE
                    || adj[b as usize].iter().any(|arc| {
                        arc.to != v && reach[arc.to as usize] + arc.weight() <= need + TIE
                    });
                if !witnessed {
                    match Arc::joined(x.reversed(v), *y, v, limit) {
                        Some(arc) => out.push((a, arc)),
                        None => fits = false,
                    }
                    if !fits || out.len() > MAX_SHORTCUTS {
                        break;
                    }
                }
            }
            for arc in &adj[a as usize] {
                reach[arc.to as usize] = f64::INFINITY;
            }
            if !fits || out.len() > MAX_SHORTCUTS {
                return false;
            }
        }
        true
    }

    /// Makes `v` local: its edges become its upward ones, its `shortcuts` join its
    /// neighbours.
    fn contract(&mut self, v: u32, shortcuts: &[(u32, Arc)]) {
        self.local[v as usize] = true;
        let edges = std::mem::take(&mut self.adj[v as usize]);
        let above = self.level[v as usize] + 1;
        for x in &edges {
            let l = &mut self.level[x.to as usize];
            *l = (*l).max(above);
            // A list holds one arc to each subgoal (see `mark_reach`): the arc to `v` is
            // found and taken out, the arcs after it moved up by one copy (`retain`
            // looked at and moved each arc: `run` 114.0M → 106.8M on Cauldron).
            let around = &mut self.adj[x.to as usize];
            if let Some(i) = around.iter().position(|arc| arc.to == v) {
                around.remove(i);
            }
            debug_assert!(
                around.iter().all(|arc| arc.to != v),
                "one arc to each subgoal"
            );
        }
        self.up[v as usize] = edges;
        for &(a, arc) in shortcuts {
            let b = arc.to;
            for (p, q) in [(a, b), (b, a)] {
                let arc = if p == a { arc } else { arc.reversed(q) };
                match self.adj[p as usize].iter_mut().find(|old| old.to == q) {
                    Some(old) if old.weight() > arc.weight() => *old = arc,
                    Some(_) => {}
                    None => self.adj[p as usize].push(arc),
                }
            }
        }
    }

    /// The levels of a finished contraction.
    pub fn finish(self) -> Levels {
        let n = self.adj.len();
        let mut levels = Levels {
            local: vec![0; n.div_ceil(64)],
            level: self.level,
            offsets: Vec::with_capacity(n + 1),
            first_hops: Vec::with_capacity(n),
            ..Levels::default()
        };
        levels.offsets.push(0);
        for id in 0..n {
            let arcs = if self.local[id] {
                levels.local[id / 64] |= 1 << (id % 64);
                &self.up[id]
            } else {
                &self.adj[id]
            };
            let mut first_hops = 0u16;
            for arc in arcs {
                debug_assert!(
                    arc.first < SHORTCUT && arc.last < SHORTCUT,
                    "hops have sectors"
                );
                first_hops |= 1 << arc.first;
                let i = levels.arcs.len();
                let hops = if arc.via == DIRECT {
                    debug_assert_eq!(arc.first, arc.last, "a direct edge is one hop");
                    arc.first
                } else {
                    levels.shortcuts.push(i, arc.via, arc.last);
                    arc.first | SHORTCUT
                };
                // The IDs fit, and the contraction kept the counts within the limit.
                let packed = PackedArc::pack(arc, hops).expect("an arc fits its packing");
                levels.arcs.push(packed);
            }
            levels.offsets.push(levels.arcs.len() as u32);
            levels.first_hops.push(first_hops);
        }
        levels.arcs.shrink_to_fit();
        levels.shortcuts.finish(levels.arcs.len());
        levels
    }
}

#[cfg(test)]
mod tests {
    use super::{Contraction, Witnesses, COUNT_LIMIT, LIKELY_FIRST_DEGREE, MAX_LEVEL};
    use crate::grid::Grid;
    use crate::hpa::subgoals::SubgoalGraph;
    use proptest::prelude::*;

    /// A corridor of one row between two pillars: its subgoals' direct edge along the row
    /// counts `width − 5` straight steps. It fits up to [`COUNT_LIMIT`], and past it the
    /// contraction does not start (told by the edges, since the subgoals' box is wider
    /// than the limit), as when the fit was checked after building the arcs.
    #[test]
    fn a_direct_edge_past_the_count_limit_stops_the_contraction() {
        let limit = u32::from(COUNT_LIMIT);
        for (width, fits) in [(limit + 5, true), (limit + 6, false), (limit + 40, false)] {
            let grid = Grid::from_fn(width, 3, |x, y| !(y == 1 && (x == 1 || x == width - 2)));
            let graph = SubgoalGraph::build(&grid);
            let longest = (0..graph.capacity() as u32)
                .flat_map(|id| graph.neighbours(id).iter().map(move |&to| (id, to)))
                .map(|(a, b)| graph.cell(a).x.abs_diff(graph.cell(b).x))
                .max();
            assert_eq!(longest, Some(width - 5), "width {width}");
            assert_eq!(super::direct_edges_fit(&graph), fits, "width {width}");
            assert_eq!(Contraction::new(&graph).is_some(), fits, "width {width}");
        }
    }

    proptest! {
        /// The witness test with its early skips, and with the likely pairs of a subgoal
        /// of many neighbours tested first, decides every subgoal as the plain one does,
        /// step by step of a whole contraction of a random map's subgoal graph: the same
        /// subgoals contracted, with the same shortcuts in the same order.
        #[test]
        fn shortcuts_equal_the_plain_witness_test(
            (w, h, blocked) in crate::grid::arb_blocked_cells(4..48, 0.3),
            likely_from in prop::sample::select(vec![0, 4, LIKELY_FIRST_DEGREE]),
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = SubgoalGraph::build(&grid);
            let mut contraction = Contraction::new(&graph).expect("a small map's arcs fit");
            contraction.likely_from = likely_from;
            let (mut got, mut want) = (Vec::new(), Vec::new());
            let mut witnesses = Witnesses::new(contraction.adj.len());
            while contraction.visited < contraction.order.len() {
                let v = contraction.order[contraction.visited];
                contraction.visited += 1;
                if contraction.level[v as usize] >= MAX_LEVEL {
                    continue;
                }
                let fits = contraction.shortcuts(&mut witnesses, v, &mut got);
                prop_assert_eq!(fits, contraction.shortcuts_reference(v, &mut want));
                // A refused contraction's shortcuts are never read.
                if fits {
                    prop_assert_eq!(&got, &want);
                    contraction.contract(v, &got);
                }
            }
        }
    }
}
