//! The A\* over the subgoal graph and its levels: answered at once by a direct walk with
//! one bend where there is one, otherwise opened at the start's cone scan, the goal marked
//! by its own scan and an upward search, carried on in slices (exact or weighted), and the
//! route unpacked into corner points; and the bound it is guided by.

use super::{bend, note, reach, NodeState, OpenSearch, SearchContext, Stepped, NO_PARENT};
use crate::geom::Cell;
use crate::grid::movement::octile;
use crate::grid::Grid;
use crate::hpa::costs::CostBands;
use crate::hpa::landmarks_sparse::{GoalRowLows, SparseGoalRow};
use crate::hpa::path::CornerPoints;
use crate::hpa::subgoals::{
    allows, allows_hops, arrivals, hop_turns, reversed, sector, turns, turns_any, Levels, Sector,
    SubgoalGraph, DIRECT, NO_HOP,
};
use crate::hpa::trace::{NodeSpace, Recorder, TraceKind, Traced, Untraced};

/// A subgoal's mark from the goal's side of a subgoal search: stamped with the query
/// number when the goal's cone scan reached it, or the upward search from the subgoals it
/// reached did (see `hpa::subgoals::levels`).
#[derive(Clone, Copy, Debug)]
pub(super) struct GoalMark {
    stamp: u32,
    /// The distance to the goal (in costs).
    to_goal: f64,
    /// The next subgoal on the way there ([`DIRECT`] for the goal itself).
    next: u32,
    /// The middle of the edge of the levels to `next` ([`DIRECT`] for none).
    middle: u32,
    /// The sector of the first subgoal-graph hop of the way ([`NO_HOP`] at the goal
    /// itself), for the taut-path pruning of the upward search (see
    /// `hpa::subgoals::taut`, *Backwards*).
    leaving: Sector,
}

impl GoalMark {
    /// No mark.
    pub(super) const NONE: GoalMark = GoalMark {
        stamp: 0,
        to_goal: 0.0,
        next: DIRECT,
        middle: DIRECT,
        leaving: NO_HOP,
    };
}
/// What [`SearchContext::open_subgoals`] came to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SubgoalOpened {
    /// A walk with one bend joins the start to the goal (see
    /// [`SearchContext::open_subgoals`]): its corner points.
    Direct(Vec<Cell>),
    /// The search is open; the goal's scan and the expansions follow.
    Open(OpenSearch),
}

/// The octile distance in cost units on a map of one terrain cost, as the subgoal search
/// and its bound count it.
fn subgoal_octile(costs: &CostBands) -> impl Fn(Cell, Cell) -> f64 {
    let per_unit = uniform_cost(costs);
    move |a, b| octile(a, b) * per_unit
}

/// The one cost of a map a subgoal graph serves, per unit of length.
fn uniform_cost(costs: &CostBands) -> f64 {
    costs
        .uniform()
        .expect("subgoal graphs serve maps of one cost")
}

/// The subgoal search's bound on the cost from subgoal `id` to `goal`: the octile distance
/// raised by the landmarks at the subgoals (`row` is the goal's), both consistent, times
/// the search's `weight` (1 for exact A\*, above 1 for weighted A\*, see
/// [`SearchContext::weigh_subgoal_bound`]). The one place the weight is applied.
///
/// Always inlined: a search evaluates it for every offer it takes, and inlined the
/// query's fixed reads (the table's stride and lanes, the cost floor) leave the loop.
#[inline(always)]
fn subgoal_bound(
    graph: &SubgoalGraph,
    (row, weight): (&SparseGoalRow, f64),
    goal: Cell,
    costs: &CostBands,
    id: u32,
) -> f64 {
    let per_unit = costs.floor();
    let o = octile(graph.cell(id), goal) * per_unit;
    let landmarks = graph.landmarks();
    if landmarks.count() == 0 {
        return weight * o;
    }
    // Lattice units (the layer's, see `hpa::landmarks_sparse`) to costs.
    let gap = f64::from(landmarks.gap(row, id)) * per_unit / landmarks.units_per_cell();
    // Neither is NaN (finite cells and costs), so a plain comparison picks what `f64::max`
    // would, without its NaN tests.
    weight * if gap > o { gap } else { o }
}
/// Marks subgoal `id` for query `stamp` as reached directly by the goal's scan (or as the
/// goal itself), `to_goal` from the goal and left towards it by a hop of sector `leaving`;
/// for the upward marking in its level's bucket when it is a local of `levels`.
#[inline(always)]
fn mark_goal_tie(
    (marks, buckets): (&mut [GoalMark], &mut [Vec<u32>]),
    (levels, stamp): (Option<&Levels>, u32),
    (id, to_goal, leaving): (u32, f64, Sector),
) {
    let m = &mut marks[id as usize];
    debug_assert!(m.stamp != stamp, "a subgoal is reached once");
    *m = GoalMark {
        stamp,
        to_goal,
        next: DIRECT,
        middle: DIRECT,
        leaving,
    };
    if let Some(l) = levels.filter(|l| l.is_local(id)) {
        buckets[l.level(id) as usize].push(id);
    }
}

impl SearchContext {
    /// Opens the A\* over the subgoal graph `graph` of `grid` from `start` to `goal` (see
    /// `hpa::subgoals`): the suspendable search's first unit of work, its start's cone
    /// scan. A goal reached by the walk that takes its diagonal steps first (the walk of
    /// the cone scans) is reached optimally, and asks for no scan: the answer is then its
    /// corner points ([`SubgoalOpened::Direct`]). Otherwise the search is open at the subgoals the scan reached, and
    /// [`SearchContext::mark_subgoal_goal`] (the goal's cone scan, the second unit) and
    /// then [`SearchContext::step_subgoals`] carry it on.
    ///
    /// A\* runs over dense per-ID tables stamped with the query number, guided by the
    /// octile distance raised by the differential bounds of the landmarks kept at the
    /// subgoals (see `hpa::landmarks_sparse`; both consistent, so nodes close for good),
    /// over the levels of the subgoals while the graph has them (see
    /// `hpa::subgoals::levels`). Without the landmarks it expands about three times as
    /// many subgoals and takes 1.5–3× as long (measured on brc202d, w_woundedcoast and
    /// Aftershock). An expanded subgoal relaxes only the hops after which the route may
    /// still be shortest, given the hop it was entered by (taut-path pruning, see
    /// `hpa::subgoals::taut`).
    pub(crate) fn open_subgoals(
        &mut self,
        maps: (&SubgoalGraph, &Grid),
        ends: (Cell, Cell),
        costs: &CostBands,
    ) -> SubgoalOpened {
        with_recorder!(self.open_subgoals_as(maps, ends, costs))
    }

    /// [`SearchContext::open_subgoals`] with recorder `R`.
    fn open_subgoals_as<R: Recorder>(
        &mut self,
        (graph, grid): (&SubgoalGraph, &Grid),
        (start, goal): (Cell, Cell),
        costs: &CostBands,
    ) -> SubgoalOpened {
        // Costs: lengths times the map's one cost.
        let octile = subgoal_octile(costs);
        let per_unit = uniform_cost(costs);
        let n = graph.capacity();
        self.reset(n + 2);
        if self.goal_marks.len() < n {
            self.goal_marks.resize(n, GoalMark::NONE);
            self.arc_middles.resize(n, DIRECT);
            self.entered.resize(n, NO_HOP);
            self.leaving.resize(n, 0);
            self.entries.resize(n, (0, 0));
        }
        let (s, t) = (n as u32, n as u32 + 1);
        self.space = NodeSpace::Subgoals { n: s };
        self.subgoal_row = None;
        self.subgoal_weight = 1.0;
        self.open_start::<R>(s, octile(start, goal));
        let _ = self.pop();
        self.expand::<R>(s, 0.0, NO_PARENT);
        // The direct line first: the walk that takes the diagonal steps first is as long
        // as the octile distance, so where it is legal it is a shortest path, and no scan
        // is needed. (It is the walk by which the start's cone scan would have reported the
        // goal, so the scan below, told of no target, misses none it would have reported;
        // it also answers goals the scan would not report, behind a subgoal on the way or
        // outside the scan's cone.)
        let corner = if grid.diagonal_first_walk_free(start, goal) {
            Some(bend(start, goal))
        } else if grid.diagonal_first_walk_free(goal, start) {
            Some(bend(goal, start))
        } else {
            None
        };
        if let Some(corner) = corner {
            let d = octile(start, goal);
            self.relax::<R>(t, d, s, || 0.0);
            let _ = self.pop();
            self.expand::<R>(t, d, s);
            return SubgoalOpened::Direct(vec![start, corner, goal]);
        }
        let ties = &mut self.subgoal_ties;
        ties.clear();
        // The hop each tie enters its subgoal by is the scan's (none for the start
        // itself), for the taut-path pruning; the scan tells its sector and length.
        //
        // A start on a subgoal is its one tie, and its scan is left out: the subgoals the
        // scan would find are its direct-h-reachable ones, and the search from the subgoal
        // alone is exact as between any two subgoals (see *Ends on subgoals* in
        // `hpa::subgoals::taut`).
        if let Some(id) = graph.id_of(start) {
            ties.push((0.0, id, NO_HOP));
        } else {
            graph.reach_ids(
                grid,
                start,
                #[inline(always)]
                |id, hop| ties.push((hop.length() * per_unit, id, hop.sector)),
            );
        }
        // The ties are offered once the goal's scan has given their bounds.
        SubgoalOpened::Open(OpenSearch {
            start: s,
            goal: t,
            query: self.query,
        })
    }

    /// Makes the subgoal search just opened by [`SearchContext::open_subgoals`] weighted
    /// A\* with weight `weight` (at least 1): its nodes are ordered by `g + weight × h`,
    /// `h` the consistent bound, so the route it returns costs at most `weight` times the
    /// optimum (see the design notes, *Fast mode on maps of one cost*). It prunes hops by
    /// the taut rule over every sector a subgoal was entered by, and takes a closed
    /// subgoal again when a new sector enters it (see [`SearchContext::pop_weighted`]).
    /// With a weight of 1 it stays exact A\*.
    pub(crate) fn weigh_subgoal_bound(&mut self, weight: f64) {
        debug_assert!(weight >= 1.0, "a weight below 1 would not bound the search");
        self.subgoal_weight = weight;
        if weight > 1.0 {
            // `g + w·h` may decrease from a node to its successor.
            self.open.set_any_order();
        }
    }

    /// The subgoal search's second unit of work: the goal's cone scan marks the subgoals
    /// that reach the goal directly, with their distance to it (and, over the levels, an
    /// upward search from them marks the subgoals above with the way down); the goal's
    /// landmark row is derived from them, and the start's ties are offered. The context
    /// must [hold](SearchContext::holds) the search `open`.
    pub(crate) fn mark_subgoal_goal(
        &mut self,
        maps: (&SubgoalGraph, &Grid),
        goal: Cell,
        costs: &CostBands,
    ) {
        with_recorder!(self.mark_subgoal_goal_as(maps, goal, costs))
    }

    /// [`SearchContext::mark_subgoal_goal`] with recorder `R`.
    fn mark_subgoal_goal_as<R: Recorder>(
        &mut self,
        (graph, grid): (&SubgoalGraph, &Grid),
        goal: Cell,
        costs: &CostBands,
    ) {
        let length_cost = uniform_cost(costs);
        let per_unit = costs.floor();
        let stamp = self.query;
        let levels = graph.levels();
        let marks = &mut self.goal_marks;
        let buckets = &mut self.by_level;
        for b in buckets.iter_mut() {
            b.clear();
        }
        // The goal itself and the subgoals its scan reaches, each marked as it comes: the
        // scan reports a subgoal once (every cell it reports lies at its own count of
        // diagonal and straight steps along its own walk and axis) and never the goal,
        // so none is marked twice. A mark's way out is the scan's hop walked back.
        //
        // A goal on a subgoal is its one mark, and its scan is left out, as the start's
        // (see *Ends on subgoals* in `hpa::subgoals::taut`); its landmark row is its own.
        // Else the row is lowered by each subgoal the scan finds, by the hop's lattice
        // length, with no cell read back (`SubgoalLandmarks::goal_row`'s row, which
        // `the_goal_row_from_the_hops_is_the_goal_row` checks).
        let landmarks = graph.landmarks();
        let mut low = GoalRowLows::new();
        if let Some(id) = graph.id_of(goal) {
            mark_goal_tie((marks, buckets), (levels, stamp), (id, 0.0, NO_HOP));
            landmarks.lower_goal_row(&mut low, id, (0, 0));
        } else {
            // The marking inlined at each of the scan's dozen places where it reports (see
            // `SubgoalGraph::reach_ids`).
            graph.reach_ids(
                grid,
                goal,
                #[inline(always)]
                |id, hop| {
                    let tie = (id, hop.length() * length_cost, reversed(hop.sector));
                    mark_goal_tie((marks, buckets), (levels, stamp), tie);
                    landmarks.lower_goal_row(&mut low, id, (hop.diagonal, hop.straight));
                },
            );
        }
        // With levels, the goal is reached from above only: the locals its scan reached
        // mark the subgoals above them with the way down. Upward arcs climb strictly in
        // level (see `subgoals/levels/mod.rs`), so taking the locals level by level settles each before
        // its arcs are followed: no priority queue is needed. A local follows only the
        // arcs down which a route may still be shortest after it (see
        // `hpa::subgoals::taut`, *Backwards*).
        if let Some(l) = levels {
            for level in 0..buckets.len() {
                let bucket = std::mem::take(&mut buckets[level]);
                for &id in &bucket {
                    let GoalMark {
                        to_goal: d,
                        leaving,
                        ..
                    } = marks[id as usize];
                    let taut = arrivals(graph.blocked_diagonals(id), leaving);
                    let (arcs, base) = l.arcs_allowed(id, taut);
                    let taut = hop_turns(taut);
                    for (k, &arc) in arcs.iter().enumerate() {
                        if !allows_hops(taut, arc.hops()) {
                            continue;
                        }
                        let end = arc.end();
                        let dv = d + end.weight() * per_unit;
                        let m = &mut marks[end.to as usize];
                        if m.stamp != stamp || dv < m.to_goal {
                            let fresh = m.stamp != stamp;
                            let (middle, last) = l.taken(base + k);
                            *m = GoalMark {
                                stamp,
                                to_goal: dv,
                                next: id,
                                middle,
                                leaving: reversed(last),
                            };
                            if fresh && l.is_local(end.to) {
                                let above = l.level(end.to) as usize;
                                debug_assert!(above > level, "an upward arc climbs");
                                buckets[above].push(end.to);
                            }
                        }
                    }
                }
                buckets[level] = bucket;
            }
        }
        let row = landmarks.finish_goal_row(&low);
        self.subgoal_row = Some(row);
        let s = graph.capacity() as u32;
        let ties = std::mem::take(&mut self.subgoal_ties);
        let weight = self.subgoal_weight;
        let h = |id: u32| subgoal_bound(graph, (&row, weight), goal, costs, id);
        // The kind of search told once, not per tie.
        match levels {
            _ if weight > 1.0 => {
                for &(d, id, entered) in &ties {
                    let tie = (entered, DIRECT);
                    self.relax_weighted::<R>((graph, levels), id, (d, s), tie, || h(id));
                }
            }
            Some(l) => {
                for &(d, id, entered) in &ties {
                    let way = || (DIRECT, entered);
                    self.relax_exact::<R>((graph, l), id, (d, s), way, || h(id));
                }
            }
            None => {
                for &(d, id, entered) in &ties {
                    if self.relax::<R>(id, d, s, || h(id)) {
                        self.leaving[id as usize] = turns(graph.blocked_diagonals(id), entered);
                    }
                }
            }
        }
        self.subgoal_ties = ties;
    }

    /// Expands up to `max_expansions` more subgoals of the search `open`, opened by
    /// [`SearchContext::open_subgoals`] and marked by [`SearchContext::mark_subgoal_goal`]
    /// on the unchanged graph, in the same order as one unlimited call, so that a search
    /// run in slices finds exactly what it finds in one go. Returns the corner points of a
    /// shortest path, consecutive ones on one straight or diagonal run.
    pub(crate) fn step_subgoals(
        &mut self,
        graph: &SubgoalGraph,
        (start, goal): (Cell, Cell),
        open: OpenSearch,
        costs: &CostBands,
        max_expansions: usize,
    ) -> Stepped {
        with_recorder!(self.step_subgoals_as(graph, (start, goal), open, costs, max_expansions))
    }

    /// [`SearchContext::step_subgoals`] with recorder `R`.
    fn step_subgoals_as<R: Recorder>(
        &mut self,
        graph: &SubgoalGraph,
        ends: (Cell, Cell),
        open: OpenSearch,
        costs: &CostBands,
        max_expansions: usize,
    ) -> Stepped {
        // Exact and weighted A* compiled apart: the exact search's loop over arcs then
        // asks no question of the weight (a weight of 1 multiplies nothing away).
        if self.subgoal_weight > 1.0 {
            self.expand_subgoals::<R, true>(graph, ends, open, costs, max_expansions)
        } else {
            self.expand_subgoals::<R, false>(graph, ends, open, costs, max_expansions)
        }
    }

    /// [`SearchContext::step_subgoals`] with recorder `R`, for weighted A\* (`WEIGHTED`,
    /// the weight above 1) or exact A\* (the weight 1).
    fn expand_subgoals<R: Recorder, const WEIGHTED: bool>(
        &mut self,
        graph: &SubgoalGraph,
        (start, goal): (Cell, Cell),
        open: OpenSearch,
        costs: &CostBands,
        max_expansions: usize,
    ) -> Stepped {
        debug_assert!(self.holds(open), "a subgoal search resumed elsewhere");
        debug_assert_eq!(WEIGHTED, self.subgoal_weight > 1.0);
        let row = self
            .subgoal_row
            .expect("the goal is marked before the expansions");
        // Exact A*'s weight is 1 (see `weigh_subgoal_bound`), a constant here.
        let weight = if WEIGHTED { self.subgoal_weight } else { 1.0 };
        let bound = |id: u32| subgoal_bound(graph, (&row, weight), goal, costs, id);
        let octile = subgoal_octile(costs);
        let per_unit = costs.floor();
        let levels = graph.levels();
        let OpenSearch {
            start: s, goal: t, ..
        } = open;
        let stop = self.expanded.saturating_add(max_expansions);
        let weighted = WEIGHTED;
        while self.expanded < stop {
            let popped = match weighted {
                true => self.pop_weighted(graph, t),
                false => self.pop().map(|(n, g, p)| {
                    let taut = match n == t {
                        true => 0,
                        false => self.leaving[n as usize],
                    };
                    (n, g, p, taut, true)
                }),
            };
            let Some((n, g, p, taut, fresh)) = popped else {
                return Stepped::Exhausted;
            };
            if n == t {
                return Stepped::Found(self.unwind_subgoals(graph, start, goal, s, t), g);
            }
            self.expand::<R>(n, g, p);
            let GoalMark {
                stamp: marked,
                to_goal,
                ..
            } = self.goal_marks[n as usize];
            if fresh && marked == self.query {
                self.relax::<R>(t, g + to_goal, n, || 0.0);
                // Met where the bound is tight: no route on from `n` is shorter than its
                // marked way down, so exact A* relaxes none of its arcs; weighted A*, whose
                // bound is `w` times it, neither: the goal's entry, at a key no more than
                // `n`'s, stands for them in the bound's argument (see *Meeting the goal's
                // marks* in the design notes).
                if to_goal <= bound(n) {
                    continue;
                }
            }
            // Only the hops after which the route may still be shortest (`taut`, see
            // `hpa::subgoals::taut`); a weighted search's are those of every sector the
            // subgoal was entered by that an earlier expansion of it has not relaxed (see
            // [`SearchContext::pop_weighted`]).
            match levels {
                // A local's upward edges, a global's edges to globals.
                Some(l) => {
                    let (arcs, base) = l.arcs_allowed(n, taut);
                    let taut = hop_turns(taut);
                    for (k, &arc) in arcs.iter().enumerate() {
                        if !allows_hops(taut, arc.hops()) {
                            continue;
                        }
                        let end = arc.end();
                        let w = end.weight() * per_unit;
                        let h = || bound(end.to);
                        if weighted {
                            let (middle, last) = l.taken(base + k);
                            self.relax_weighted::<R>(
                                (graph, levels),
                                end.to,
                                (g + w, n),
                                (last, middle),
                                h,
                            );
                        } else {
                            let way = || l.taken(base + k);
                            self.relax_exact::<R>((graph, l), end.to, (g + w, n), way, h);
                        }
                    }
                }
                None => {
                    let here = graph.cell(n);
                    for &v in graph.neighbours(n) {
                        let c = graph.cell(v);
                        let hop = sector(here, c);
                        if !allows(taut, hop) {
                            continue;
                        }
                        let g = g + octile(here, c);
                        if weighted {
                            self.relax_weighted::<R>(
                                (graph, None),
                                v,
                                (g, n),
                                (hop, DIRECT),
                                || bound(v),
                            );
                        } else if self.relax::<R>(v, g, n, || bound(v)) {
                            self.leaving[v as usize] = turns(graph.blocked_diagonals(v), hop);
                        }
                    }
                }
            }
        }
        Stepped::Paused
    }

    /// Offers subgoal `node` to exact A\* over the levels `levels` at cost `g` from
    /// `parent`. When the offer is taken (`node` new, or reached more cheaply), `way` gives
    /// the middle of the edge it is reached by ([`DIRECT`] for none) and the sector of the
    /// hop it enters `node` by: the middle kept for the write-out, the sectors the taut
    /// rule then lets `node` be left by kept for its expansion (no second look-up at the
    /// pop); and `node`
    /// is filed on the open list (with its bound `h`) only when its expansion would do
    /// something: when the taut rule lets it take one of its arcs, or the goal's side
    /// marked it. Otherwise it is only recorded as reached: a *dead end*, which its
    /// expansion would have popped to relax nothing and offer no goal.
    ///
    /// *Why it stays exact*: the expansion of a dead end changes nothing but its own
    /// state (closed rather than reached), and a reached subgoal is closed only to refuse
    /// later offers, which come at no lower cost (a subgoal is popped at its optimal
    /// cost, the bound being consistent): so the search takes the same offers and reaches
    /// the goal at the same cost, expanding fewer subgoals. A later, cheaper offer (before
    /// the dead end's cost was optimal) is taken as before, and judged again by the sector
    /// it enters by. On den520d, Aftershock, w_woundedcoast, Expedition and Cauldron
    /// 61–72 % of the start's ties and 30–45 % of the other offers taken are dead ends (see
    /// *Dead ends* in the design notes).
    #[inline(always)]
    fn relax_exact<R: Recorder>(
        &mut self,
        (graph, levels): (&SubgoalGraph, &Levels),
        node: u32,
        (g, parent): (f64, u32),
        way: impl FnOnce() -> (u32, Sector),
        h: impl FnOnce() -> f64,
    ) {
        let Some(kind) = reach(&mut self.nodes, self.query, node, (g, parent)) else {
            return;
        };
        let (middle, entered) = way();
        self.arc_middles[node as usize] = middle;
        let taut = turns(graph.blocked_diagonals(node), entered);
        self.leaving[node as usize] = taut;
        let live =
            levels.leads_on(node, taut) || self.goal_marks[node as usize].stamp == self.query;
        self.file_offer::<R, true>(live, kind, node, (g, parent), h);
    }

    /// Files `node`, just reached at cost `g` from `parent`, on the open list with its
    /// bound `h` when `file` (a subgoal whose expansion would do something), and notes the
    /// offer to the trace either way; the bound is worked out only for one of the two.
    /// `MONOTONE` for exact A\* (keys that never decrease: the radix heap's push without
    /// the test of the order).
    #[inline(always)]
    fn file_offer<R: Recorder, const MONOTONE: bool>(
        &mut self,
        file: bool,
        kind: TraceKind,
        node: u32,
        (g, parent): (f64, u32),
        h: impl FnOnce() -> f64,
    ) {
        if file || R::ON {
            let f = g + h();
            match (file, MONOTONE) {
                (true, true) => self.open.push_monotone(f, node),
                (true, false) => self.open.push(f, node),
                (false, _) => {}
            }
            note::<R>(&mut self.trace, kind, node, parent, g, f);
        }
    }

    /// Offers subgoal `node` to a weighted search at cost `g` from `parent`, entered by a
    /// hop of sector `entered` over an edge of the levels with middle `middle`. As
    /// [`SearchContext::relax`], and besides: the sector joins those `node` was entered
    /// by, and a closed `node` entered by a sector it had not been is put back on the open
    /// list at its own cost, to relax the hops that sector allows (see
    /// [`SearchContext::pop_weighted`]).
    ///
    /// Over the levels (`levels`), as exact A\* does ([`SearchContext::relax_exact`]),
    /// `node` is filed only when its expansion would do something: when one of the sectors
    /// it was entered by lets it take one of its arcs, or the goal's side marked it. A
    /// *dead end* is only recorded as reached (its cost, parent, middle and sectors); a
    /// later offer that enters it by a sector that lets it take an arc files it then, at
    /// its cost so far (or at the offer's, when cheaper), and a closed subgoal is put back
    /// only for a new sector that allows an arc its expansions have not relaxed. *Why the
    /// bound holds* (see the design notes, *Fast mode on maps of one cost*): the subgoal
    /// `x` of the bound's argument, entered by its shortest route's sector, which allows
    /// the route's next arc, is never a dead end, so it is filed at its cost as before.
    #[inline(always)]
    fn relax_weighted<R: Recorder>(
        &mut self,
        (graph, levels): (&SubgoalGraph, Option<&Levels>),
        node: u32,
        (g, parent): (f64, u32),
        (entered, middle): (Sector, u32),
        h: impl Fn() -> f64,
    ) {
        let open_stamp = self.query * 2;
        let stamp = self.nodes[node as usize].stamp;
        let bit = 1u32 << entered;
        let blocked = graph.blocked_diagonals(node);
        // Whether the sectors `turns` let `node` take one of its arcs (always, without the
        // levels, whose search files every subgoal).
        let leads_on = |turns: u16| levels.map_or(true, |l| l.leads_on(node, turns));
        let marked = self.goal_marks[node as usize].stamp == self.query;
        if stamp < open_stamp {
            // New, the most common offer: its one sector alone says whether it is live.
            self.nodes[node as usize] = NodeState {
                g,
                parent,
                stamp: open_stamp,
            };
            self.arc_middles[node as usize] = middle;
            self.entered[node as usize] = entered;
            self.entries[node as usize] = (bit, 0);
            let file = marked || leads_on(turns(blocked, entered));
            self.file_offer::<R, false>(file, TraceKind::Generated, node, (g, parent), h);
            return;
        }
        let taken = reach(&mut self.nodes, self.query, node, (g, parent));
        let entries = &mut self.entries[node as usize];
        let (before, answered) = *entries;
        if taken.is_none() && before & bit != 0 {
            return; // closed, or reached as cheaply, and by this sector already
        }
        entries.0 = before | bit;
        if taken.is_some() {
            self.arc_middles[node as usize] = middle;
            self.entered[node as usize] = entered;
        }
        let g_now = self.nodes[node as usize].g;
        let file = match taken {
            // Closed (no offer is taken then): back on the open list for the arcs the new
            // sector allows that its expansions have not relaxed.
            None if stamp == open_stamp + 1 => {
                leads_on(turns(blocked, entered) & !turns_any(blocked, answered))
            }
            // Reached before at no more: filed now if the new sector makes it live and
            // the earlier ones did not.
            None => {
                !marked
                    && leads_on(turns(blocked, entered))
                    && !leads_on(turns_any(blocked, before))
            }
            // Cheaper: filed at its new cost when live.
            Some(_) => marked || leads_on(turns_any(blocked, before | bit)),
        };
        if file || (R::ON && taken.is_some()) {
            let f = g_now + h();
            if file {
                self.open.push(f, node);
            }
            if let Some(kind) = taken {
                note::<R>(&mut self.trace, kind, node, parent, g, f);
            }
        }
    }

    /// The next subgoal a weighted search expands, with its cost and parent field, the
    /// sectors of the hops it relaxes and whether it is its first expansion: the open
    /// subgoal of lowest key, or a closed one put back by
    /// [`SearchContext::relax_weighted`], which relaxes the hops its new sectors allow and
    /// its earlier expansions did not. (The goal comes with no sectors.)
    ///
    /// *Why the bound holds with the pruning* (see the design notes, *Fast mode on maps of
    /// one cost*): a shortest route keeps the rule at each of its subgoals, so once a
    /// subgoal of it is closed and entered by the route's hop into it, it relaxes the
    /// route's next hop, at its own cost, on being taken again if need be; the induction of
    /// weighted A\* then goes through unchanged.
    fn pop_weighted(&mut self, graph: &SubgoalGraph, t: u32) -> Option<(u32, f64, u32, u16, bool)> {
        let open_stamp = self.query * 2;
        while let Some(node) = self.open.pop() {
            let state = &mut self.nodes[node as usize];
            let first = state.stamp == open_stamp;
            if first {
                state.stamp += 1;
            }
            let (g, parent) = (state.g, state.parent);
            if node == t {
                return first.then_some((node, g, parent, 0, true));
            }
            let (entries, answered) = self.entries[node as usize];
            if !first && entries == answered {
                continue; // a superseded entry, or nothing new since the last expansion
            }
            let blocked = graph.blocked_diagonals(node);
            let mut taut = turns_any(blocked, entries);
            if !first {
                taut &= !turns_any(blocked, answered);
            }
            self.entries[node as usize].1 = entries;
            if first || taut != 0 {
                return Some((node, g, parent, taut, first));
            }
        }
        None
    }

    /// The corner points of the subgoal route that reached `t`: each hop is written as the
    /// walk from its earlier end that takes its diagonal steps first, then its straight
    /// ones, so its bend is written out between the two waypoints. The hop may have been
    /// found by the scan from either end; every ordering of its moves is legal and as long
    /// (Lemma 1 of `hpa::subgoals::taut`), so a unit steers along the same length whichever
    /// scan it was. The edges of the levels
    /// are unpacked into their subgoal-graph hops as they are met, and no list of the hops
    /// is kept. Written as
    /// [`Corners::points`](crate::Corners::points) holds them (see [`CornerPoints`]): no
    /// point repeated, none inside a straight or diagonal run.
    fn unwind_subgoals(
        &mut self,
        graph: &SubgoalGraph,
        start: Cell,
        goal: Cell,
        s: u32,
        t: u32,
    ) -> Vec<Cell> {
        // The subgoals from the one that met the goal's marks back to the first after the
        // start, each with the middle of the edge that led to it; walked in reverse below.
        let met = self.nodes[t as usize].parent;
        let route = &mut self.route;
        route.clear();
        let mut v = met;
        loop {
            route.push((v, self.arc_middles[v as usize]));
            let parent = self.nodes[v as usize].parent;
            if parent == s {
                break;
            }
            v = parent;
        }
        // Each hop is written as corner points at once, the edges of the levels unpacked
        // on the way: every piece is a straight or diagonal run.
        let mut out = HopCorners::new(start, 4 * route.len() + 3);
        let first = route.last().expect("the route holds `met`").0;
        out.hop(graph, first);
        let stack = &mut self.unpacking;
        let mut edge = |from: u32, middle: u32, to: u32, out: &mut HopCorners| match graph.levels()
        {
            Some(levels) => levels.unpack((from, middle, to), stack, |id| out.hop(graph, id)),
            None => out.hop(graph, to),
        };
        // Reversed, each entry's middle is that of the edge from the one before it.
        for pair in route.windows(2).rev() {
            let ((to, middle), (from, _)) = (pair[0], pair[1]);
            edge(from, middle, to, &mut out);
        }
        // On down the marks' way to the goal.
        let mut down = met;
        loop {
            let GoalMark { next, middle, .. } = self.goal_marks[down as usize];
            if next == DIRECT {
                break;
            }
            edge(down, middle, next, &mut out);
            down = next;
        }
        out.finish(goal)
    }
}

/// The corner points of a subgoal route written hop by hop (see
/// [`SearchContext::unwind_subgoals`]): each hop is written diagonal-first from its earlier
/// end, so its bend (after its diagonal steps) is written out between the two waypoints.
struct HopCorners {
    out: CornerPoints,
    /// The cell the last hop ended on.
    before: Cell,
}

impl HopCorners {
    /// The points of a route from `start`, room for `capacity` of them.
    fn new(start: Cell, capacity: usize) -> Self {
        HopCorners {
            out: CornerPoints::new(start, capacity),
            before: start,
        }
    }

    /// The route goes on by a hop to subgoal `id`, written diagonal-first from its earlier
    /// end: its diagonal steps, then its straight ones.
    ///
    /// Whichever end's scan found the hop, every ordering of its moves is legal and as
    /// long (Lemma 1 of `hpa::subgoals::taut`), so the walk from the earlier end is, and
    /// no hop asks which scan found it. A straight or diagonal hop bends at one of its
    /// ends, so it has no bend to write.
    // Always inlined: called for every hop of the route, from the unpacking's loop.
    #[inline(always)]
    fn hop(&mut self, graph: &SubgoalGraph, id: u32) {
        self.walk_to(graph.cell(id));
    }

    /// The route goes on by a hop to `here` from the cell the last one ended on, its
    /// diagonal steps first (see [`HopCorners::hop`]).
    #[inline(always)]
    fn walk_to(&mut self, here: Cell) {
        let before = self.before;
        let corner = bend(before, here);
        if corner != before && corner != here {
            self.out.push_run(corner);
        }
        self.out.push_run(here);
        self.before = here;
    }

    /// The points of the route, ended by the goal's tie (the goal's scan found it; written
    /// diagonal-first from the tie's subgoal as every hop is, see [`HopCorners::hop`]).
    fn finish(mut self, goal: Cell) -> Vec<Cell> {
        self.walk_to(goal);
        self.out.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::{subgoal_bound, HopCorners};
    use crate::geom::Cell;
    use crate::grid::movement::octile;
    use crate::grid::{diagonal_first_walk, Grid, TerrainCosts};
    use crate::hpa::costs::CostBands;
    use crate::hpa::search::SearchContext;
    use crate::hpa::subgoals::SubgoalGraph;
    use proptest::prelude::*;

    /// The corner points `HopCorners` writes for the one hop from `a` to subgoal `b` (or
    /// to the goal cell `b` when `b_id` is `None`).
    fn written_hop(graph: &SubgoalGraph, a: Cell, b: Cell, b_id: Option<u32>) -> Vec<Cell> {
        let mut out = HopCorners::new(a, 4);
        if let Some(id) = b_id {
            out.hop(graph, id);
        }
        out.finish(b)
    }

    /// A bent hop found by only one end's scan, written from either end: from `a`, whose
    /// scan did not find it (its diagonal walk stops at the subgoal `(1, 2)`), it is `a`'s
    /// walk, diagonal step first, bending at `(1, 2)`, not `b`'s scan's walk (bending at
    /// `(2, 2)`) as it was written before session 41; from `b` it is `b`'s scan's walk.
    /// Writing the hop as the walk of the scan that found it fails the first.
    #[test]
    fn a_bent_hop_is_written_diagonal_first_from_its_earlier_end() {
        let rows = ["..#.", ".sss", ".s.#", "#.s."];
        let grid = Grid::from_fn(4, 4, |x, y| rows[y as usize].as_bytes()[x as usize] != b'#');
        let graph = SubgoalGraph::build(&grid);
        let subgoals: Vec<Cell> = grid.free_cells().filter(|&c| graph.is_subgoal(c)).collect();
        let drawn: Vec<Cell> = (0..4u32)
            .flat_map(|y| (0..4u32).map(move |x| Cell::new(x, y)))
            .filter(|c| rows[c.y as usize].as_bytes()[c.x as usize] == b's')
            .collect();
        assert_eq!(subgoals, drawn, "the map's subgoals are the drawn ones");
        let (a, b) = (Cell::new(2, 3), Cell::new(1, 1));
        let (ia, ib) = (graph.id_of(a).unwrap(), graph.id_of(b).unwrap());
        assert!(graph.neighbours(ia).contains(&ib), "the hop is an edge");
        assert!(
            graph.reached_ids(&grid, b).contains(&ia) && !graph.reached_ids(&grid, a).contains(&ib),
            "found by b's scan only"
        );
        let from_a = written_hop(&graph, a, b, Some(ib));
        assert_eq!(from_a, vec![a, Cell::new(1, 2), b]);
        let from_b = written_hop(&graph, b, a, Some(ia));
        assert_eq!(from_b, vec![b, Cell::new(2, 2), a]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(60))]

        /// Every hop a subgoal route can be written with (each edge of the graph, both ways,
        /// and each tie of a start's or a goal's scan) is written as the walk from its
        /// earlier end that takes its diagonal steps first, and that walk is legal: every
        /// cell free, no corner cut (walked one cell at a time, no scan or bend of the
        /// graph's used). Writing a hop straight-first from its earlier end, or as the walk
        /// of the scan that found it, fails this.
        #[test]
        fn every_hop_is_written_diagonal_first_from_its_earlier_end(
            (w, h, blocked) in crate::grid::arb_blocked_cells(2..24, 0.3),
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = SubgoalGraph::build(&grid);
            let check = |a: Cell, b: Cell, b_id: Option<u32>| {
                let expected = diagonal_first_walk(&grid, a, b).map(|(_, points)| points);
                prop_assert!(expected.is_some(), "{a:?} -> {b:?}: the diagonal-first walk is illegal");
                prop_assert_eq!(Some(written_hop(&graph, a, b, b_id)), expected, "{:?} -> {:?}", a, b);
                Ok(())
            };
            for a in (0..graph.capacity() as u32).filter(|&id| graph.is_live(id)) {
                for &b in graph.neighbours(a) {
                    check(graph.cell(a), graph.cell(b), Some(b))?;
                }
            }
            for c in grid.free_cells().filter(|&c| !graph.is_subgoal(c)) {
                for id in graph.reached_ids(&grid, c) {
                    // The start's tie (its scan found the hop) and the goal's.
                    check(c, graph.cell(id), Some(id))?;
                    check(graph.cell(id), c, None)?;
                }
            }
        }

        /// The subgoal search's bound is, to the bit, its weight times the larger of the
        /// octile bound and the landmarks' (the goal's row derived as the search derives
        /// it), with and without landmarks. Taking the smaller, or leaving the weight or
        /// the lattice's units out, fails this (the map is of unit cost, so the cost floor
        /// is 1); the landmarks' own tests show that both sides are lower bounds.
        #[test]
        fn the_subgoal_bound_is_the_larger_of_octile_and_landmarks(
            (w, h, blocked) in crate::grid::arb_blocked_cells(2..24, 0.3),
            k in 0usize..=8,
            weight in prop_oneof![Just(1.0), 1.0f64..3.0],
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let mut graph = SubgoalGraph::build(&grid);
            graph.build_landmarks(k);
            let costs = CostBands::new(TerrainCosts::unit(), grid.passable());
            let landmarks = graph.landmarks();
            let per_unit = costs.floor();
            for goal in grid.free_cells() {
                let own = graph.id_of(goal);
                let reached = graph.reached_ids(&grid, goal);
                let row = landmarks.goal_row(&graph, goal, own, reached.iter().copied());
                for id in (0..graph.capacity() as u32).filter(|&id| graph.is_live(id)) {
                    let by_octile = octile(graph.cell(id), goal) * per_unit;
                    let by_landmarks = match landmarks.count() {
                        0 => 0.0,
                        _ => f64::from(landmarks.gap(&row, id)) * per_unit / landmarks.units_per_cell(),
                    };
                    let expected = weight * by_octile.max(by_landmarks);
                    let got = subgoal_bound(&graph, (&row, weight), goal, &costs, id);
                    prop_assert_eq!(got.to_bits(), expected.to_bits(), "goal {:?}, subgoal {:?}", goal, graph.cell(id));
                }
            }
        }

        /// The goal's landmark row that the search builds as its goal's scan finds each
        /// subgoal (lowered by the lattice length of the hop's steps, no cell read back;
        /// by the goal's own values when it is a subgoal, with no scan) is the row
        /// `goal_row` derives from the cells of the subgoals the scan reaches, to the
        /// value. Taking the hop's straight steps for its diagonal ones fails this.
        #[test]
        fn the_goal_row_from_the_hops_is_the_goal_row(
            (w, h, blocked) in crate::grid::arb_blocked_cells(2..24, 0.3),
            k in 1usize..=8,
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let mut graph = SubgoalGraph::build(&grid);
            graph.build_landmarks(k);
            let costs = CostBands::new(TerrainCosts::unit(), grid.passable());
            let landmarks = graph.landmarks();
            let mut ctx = SearchContext::new();
            let Some(start) = grid.free_cells().next() else {
                return Ok(());
            };
            for goal in grid.free_cells() {
                // Opened whatever the answer: the goal's marking reads only the graph.
                let _ = ctx.open_subgoals((&graph, &grid), (start, goal), &costs);
                ctx.mark_subgoal_goal((&graph, &grid), goal, &costs);
                let own = graph.id_of(goal);
                let reached = graph.reached_ids(&grid, goal);
                let expected = landmarks.goal_row(&graph, goal, own, reached.iter().copied());
                prop_assert_eq!(ctx.subgoal_row, Some(expected), "goal {:?}", goal);
            }
        }
    }
}
