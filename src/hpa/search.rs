//! A\* over the gate graph, with buffers reused from one query to the next.
//!
//! Search nodes are gate indices, followed by two virtual nodes for the start and the
//! goal; a node's record keeps its predecessor with a flag saying whether the node was
//! entered over a crossing, which is all the pruning rules below need.

use super::clusters::{Cluster, ClusterId, Clusters, Routes, FROM_ORIGIN, NO_PRED};
use super::costs::CostBands;
use super::graph::{GateGraph, GateId, LeafId, SlotId};
use super::landmarks::{GoalRow, Landmarks};
use super::landmarks_sparse::SparseGoalRow;
use super::open::OpenList;
use super::path;
use super::subgoals::{
    allows, allows_hops, arrivals, hop_turns, reversed, sector, turns, turns_any, Sector, Sighting,
    SubgoalGraph, DIRECT, LEVELS, NO_HOP,
};
use super::trace::{NodeSpace, RawEvent, Recorder, TraceKind, Traced, Untraced};
use crate::geom::{Cell, Direction};
use crate::grid::movement::{octile, step_cost};
use crate::grid::Grid;
use hashbrown::HashMap;

/// The reusable state of gate-graph searches: score tables indexed by gate, stamped with a
/// query number so that nothing is cleared between queries, and the open list.
///
/// One context serves any number of queries on any number of maps; keep one per thread
/// (or let [`HpaMap::find_path`](super::HpaMap::find_path) keep one per thread for you).
/// It grows to the largest map it has searched and keeps that memory for the next query.
///
/// ```
/// use quadpath::{Cell, Grid, HpaMap, Mode, SearchContext};
/// let map = HpaMap::new(Grid::from_fn(32, 32, |x, y| x != 16 || y > 28), Mode::Exact)?;
/// // One context per worker thread, reused for every query it answers.
/// let mut ctx = SearchContext::new();
/// for goal in [Cell::new(31, 0), Cell::new(31, 10)] {
///     let path = map.find_path_with(&mut ctx, Cell::new(0, 0), goal)?;
///     assert_eq!(path.length, map.find_path(Cell::new(0, 0), goal)?.length);
///     assert!(ctx.last_expansions() > 0);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SearchContext {
    nodes: Vec<NodeState>,
    /// Stamps `2q` (reached by query `q`) and `2q + 1` (closed by it); anything older
    /// means unseen, so nothing is cleared between queries.
    query: u32,
    open: OpenList,
    expanded: usize,
    /// Per entrance of the start's (goal's) cluster: distance and the local index of the
    /// leaf gate the route goes by.
    start_ties: Vec<(f64, u32)>,
    goal_ties: Vec<(f64, u32)>,
    /// The short-move search's states, one per cell of the window around its start (see
    /// [`SearchContext::search_local`]), stamped like `nodes`.
    window: Vec<NodeState>,
    /// Per subgoal: its mark from the goal's side (see [`GoalMark`]).
    goal_marks: Vec<GoalMark>,
    /// Per subgoal: the middle of the edge of the levels its search parent reached it by
    /// ([`DIRECT`] for none), so that the corners unpack shortcuts without looking them up.
    /// Read only for subgoals reached over the levels in the same query.
    arc_middles: Vec<u32>,
    /// Per subgoal: the sector of the last subgoal-graph hop its search parent reached it
    /// by, for the taut-path pruning (see `hpa::subgoals::taut`). Read only for subgoals
    /// reached in the same query.
    entered: Vec<Sector>,
    /// Per subgoal, in a weighted search: the sectors it has been entered by (bit
    /// [`NO_HOP`] for a start tie), and those of them its expansions have answered for
    /// (see [`SearchContext::step_subgoals`]). Read only for subgoals reached in the same
    /// query.
    entries: Vec<(u32, u32)>,
    /// Scratch of the subgoal corners: the route's subgoals with the middle of the edge to
    /// each, and those subgoals with every shortcut unpacked.
    route: Vec<(u32, u32)>,
    hops: Vec<u32>,
    /// The locals that upward search reaches, by level (see `hpa::subgoals::levels`).
    by_level: [Vec<u32>; LEVELS],
    /// The goal's landmark row of the subgoal search under way (see
    /// `hpa::landmarks_sparse`).
    subgoal_row: Option<SparseGoalRow>,
    /// The weight `w` of the subgoal search under way: `f = g + w·h` (see
    /// [`SearchContext::weigh_subgoal_bound`]); 1 (or the default 0) for exact A\*.
    subgoal_weight: f64,
    /// Where each cell of a path was last seen, for [`SearchContext::cut_loops`].
    last_seen: HashMap<Cell, u32, ahash::RandomState>,
    /// The last query's events, when tracing is on (see `hpa::trace`).
    trace: Option<Vec<RawEvent>>,
    /// How the last search's node indices map to cells, for its trace.
    space: NodeSpace,
}

/// A subgoal's mark from the goal's side of a subgoal search: stamped with the query
/// number when the goal's cone scan reached it, or the upward search from the subgoals it
/// reached did (see `hpa::subgoals::levels`).
#[derive(Clone, Copy, Debug)]
struct GoalMark {
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
    const NONE: GoalMark = GoalMark {
        stamp: 0,
        to_goal: 0.0,
        next: DIRECT,
        middle: DIRECT,
        leaving: NO_HOP,
    };
}

/// Per-node search state, in one record so that a relaxation touches one cache line.
#[derive(Clone, Copy, Debug, Default)]
struct NodeState {
    g: f64,
    /// The predecessor, with [`CROSSED`] set when the node was reached over a crossing
    /// (between leaves, or between clusters in the clustered search).
    parent: u32,
    stamp: u32,
}

/// Flag in [`NodeState::parent`]: reached over a crossing. Node indices stay below 2^31.
const CROSSED: u32 = 1 << 31;
/// The parent of the start node.
const NO_PARENT: u32 = !CROSSED;

/// The goal node of a search, and the leaf it may be reached from in a straight line
/// (`None` when the goal is reached through its cluster's entrances instead).
struct Target {
    leaf: Option<LeafId>,
    cell: Cell,
    node: u32,
}

/// A gate search opened by [`SearchContext::open_search`]: its two virtual nodes, and the
/// query stamp that tells whether the context still holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpenSearch {
    start: u32,
    goal: u32,
    query: u32,
}

/// Where a slice of a suspendable search ([`SearchContext::step_search`]) stopped.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Stepped {
    /// The route's waypoints and cost.
    Found(Vec<Cell>, f64),
    /// No route: the open list ran dry.
    Exhausted,
    /// The slice's expansions are spent; the search may go on.
    Paused,
    /// A certifying search ([`SearchContext::certify`]) proved that no route costs less
    /// than its limit, and stopped.
    Certified,
}

/// When a gate search stops short of the goal.
#[derive(Clone, Copy, Debug)]
struct Stop {
    /// Expansions after which it pauses.
    max_expansions: usize,
    /// The lowest open `f` at which it stops, certified (see [`SearchContext::certify`]).
    limit: f64,
}

impl Stop {
    /// Runs to the goal.
    const UNLIMITED: Stop = Stop {
        max_expansions: usize::MAX,
        limit: f64::INFINITY,
    };
}

/// What [`SearchContext::open_subgoals`] came to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SubgoalOpened {
    /// The goal lies in the start's cone: the corner points of the scan's walk to it.
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

/// The two ends of a query and the free leaves they lie in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ends {
    pub start: Cell,
    pub start_leaf: LeafId,
    pub goal: Cell,
    pub goal_leaf: LeafId,
}

/// Lower bounds on the remaining cost to one query's goal: the octile distance times the
/// cheapest cost of any free cell, raised by the landmarks' differential bounds when the map keeps
/// them. Both are consistent, so their maximum is too, and A\* can close nodes for good.
struct Bound<'a> {
    goal: Cell,
    /// The smallest cost per unit of length of any free cell.
    floor: f64,
    /// The cost per unit of length everywhere, when the map has one (see
    /// `CostBands::uniform`).
    uniform: Option<f64>,
    landmarks: Option<(&'a Landmarks, GoalRow)>,
}

impl<'a> Bound<'a> {
    fn new(goal: Cell, landmarks: &'a Landmarks, costs: &CostBands) -> Self {
        Bound {
            goal,
            floor: costs.floor(),
            uniform: costs.uniform(),
            landmarks: (landmarks.count() > 0).then(|| (landmarks, landmarks.goal_row(goal))),
        }
    }

    /// The cost of the crossing from gate `a` to gate `b`. On a map of one cost the
    /// leaves' records are not read: a search expands thousands of crossings, and each
    /// record read is a cache miss.
    #[inline]
    fn crossing(&self, graph: &GateGraph, a: &super::graph::Gate, b: &super::graph::Gate) -> f64 {
        match self.uniform {
            Some(cost) => octile(a.cell, b.cell) * cost,
            None => graph.crossing_cost(a, b),
        }
    }

    #[inline]
    fn to_goal(&self, c: Cell) -> f64 {
        let o = octile(c, self.goal) * self.floor;
        match &self.landmarks {
            Some((l, row)) => o.max(l.bound(row, c)),
            None => o,
        }
    }
}

#[inline]
fn node(g: GateId) -> u32 {
    g.index() as u32
}

#[inline]
fn gate(node: u32) -> GateId {
    GateId::from_index(node as usize)
}

/// Offers `node` of the state table `states` at cost `g` from `parent` (which may carry
/// [`CROSSED`]) in query `query`; `h` bounds its distance to the goal and is evaluated
/// only if the offer is taken. Returns, when it is, whether the node was new or improved,
/// and its `f`.
#[inline]
fn offer(
    (states, open, query): (&mut [NodeState], &mut OpenList, u32),
    node: u32,
    (g, parent): (f64, u32),
    h: impl FnOnce() -> f64,
) -> Option<(TraceKind, f64)> {
    let stamp = query * 2;
    let n = &mut states[node as usize];
    if n.stamp >= stamp && (n.stamp > stamp || g >= n.g) {
        return None; // closed, or already reached at least as cheaply
    }
    let kind = if n.stamp == stamp {
        TraceKind::Updated
    } else {
        TraceKind::Generated
    };
    *n = NodeState { g, parent, stamp };
    let f = g + h();
    open.push(f, node);
    Some((kind, f))
}

/// Records an event in `trace` when the search is compiled with the [`Traced`] recorder;
/// with [`Untraced`] it compiles to nothing.
#[inline(always)]
fn note<R: Recorder>(
    trace: &mut Option<Vec<RawEvent>>,
    kind: TraceKind,
    node: u32,
    parent: u32,
    g: f64,
    f: f64,
) {
    if !R::ON {
        return;
    }
    if let Some(events) = trace {
        let parent = match parent & !CROSSED {
            NO_PARENT => RawEvent::NO_PARENT,
            p => p,
        };
        events.push(RawEvent {
            kind,
            node,
            parent,
            g,
            f,
        });
    }
}

/// Records an expansion of `node` (see [`note`]).
#[inline(always)]
fn note_expansion<R: Recorder>(trace: &mut Option<Vec<RawEvent>>, node: u32, parent: u32, g: f64) {
    note::<R>(trace, TraceKind::Expanded, node, parent, g, f64::NAN);
}

/// Calls a search method generic over its [`Recorder`] with the one the context's tracing
/// asks for: one branch a call, and the search loops compiled without recording when
/// tracing is off.
macro_rules! with_recorder {
    ($ctx:ident . $method:ident ( $($arg:expr),* $(,)? )) => {
        if $ctx.trace.is_some() {
            $ctx.$method::<Traced>($($arg),*)
        } else {
            $ctx.$method::<Untraced>($($arg),*)
        }
    };
}

/// Where the cone scan's walk from `a` to `b` bends: after its `min(|dx|, |dy|)` diagonal
/// steps, before its straight ones.
#[inline]
pub(super) fn bend(a: Cell, b: Cell) -> Cell {
    let (dx, dy) = (b.x as i64 - a.x as i64, b.y as i64 - a.y as i64);
    let k = dx.abs().min(dy.abs());
    Cell::new(
        (a.x as i64 + dx.signum() * k) as u32,
        (a.y as i64 + dy.signum() * k) as u32,
    )
}

/// Pops the next node of `states` to expand in query `query`, skipping entries of closed
/// nodes (an entry superseded by a cheaper one pops after it, when its node is closed).
/// Returns the node, its cost and its parent field.
#[inline]
fn take(states: &mut [NodeState], open: &mut OpenList, query: u32) -> Option<(u32, f64, u32)> {
    while let Some(node) = open.pop() {
        let state = &mut states[node as usize];
        if state.stamp == query * 2 {
            state.stamp += 1;
            return Some((node, state.g, state.parent));
        }
    }
    None
}

impl SearchContext {
    /// A new, empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// Gate nodes expanded by the last query: a measure of its work.
    pub fn last_expansions(&self) -> usize {
        self.expanded
    }

    /// Turns tracing on or off for the next queries. With it on, each query records the
    /// nodes it generates, improves and expands; [`HpaMap::find_path_traced`](super::HpaMap::find_path_traced)
    /// reads them as a [`SearchTrace`](super::SearchTrace). Off by default, and then the
    /// search loops run compiled without the recording (the search is generic over its
    /// recorder): a query pays one branch to pick them.
    pub fn set_tracing(&mut self, on: bool) {
        self.trace = on.then(Vec::new);
    }

    /// The last query's raw events (empty when tracing is off) and its node space.
    pub(crate) fn take_raw_trace(&mut self) -> (Vec<RawEvent>, NodeSpace) {
        let events = self.trace.as_mut().map(std::mem::take).unwrap_or_default();
        (events, self.space)
    }

    /// Prepares a search over `graph`'s gates and opens it at `start`. Returns the indices
    /// of the two virtual nodes, the start and the goal, which follow the gates.
    fn begin<R: Recorder>(&mut self, graph: &GateGraph, bound: &Bound, start: Cell) -> (u32, u32) {
        let n = graph.gate_capacity();
        self.reset(n + 2);
        let (s, t) = (n as u32, n as u32 + 1);
        self.space = NodeSpace::Gates { n: s };
        self.open_start::<R>(s, bound.to_goal(start));
        (s, t)
    }

    /// Opens the search at node `s`, whose bound on the distance to the goal is `h`.
    fn open_start<R: Recorder>(&mut self, s: u32, h: f64) {
        self.nodes[s as usize] = NodeState {
            g: 0.0,
            parent: NO_PARENT,
            stamp: self.query * 2,
        };
        self.open.push(h, s);
        note::<R>(&mut self.trace, TraceKind::Generated, s, NO_PARENT, 0.0, h);
    }

    fn reset(&mut self, nodes: usize) {
        if self.nodes.len() < nodes {
            self.nodes.resize(nodes, NodeState::default());
        }
        self.next_query();
    }

    /// Starts a new query: a new stamp for both state tables, an empty open list.
    fn next_query(&mut self) {
        self.query += 1;
        if self.query >= u32::MAX / 2 {
            // The stamps would wrap: clear them once every 2 billion queries.
            self.nodes.fill(NodeState::default());
            self.window.fill(NodeState::default());
            self.goal_marks.fill(GoalMark::NONE);
            self.query = 1;
        }
        self.open.clear();
        self.expanded = 0;
        if let Some(events) = &mut self.trace {
            events.clear();
        }
    }

    /// Offers gate-graph node `node` (see [`offer`]). Returns whether it was taken (the
    /// node reached for the first time or more cheaply).
    #[inline]
    fn relax<R: Recorder>(
        &mut self,
        node: u32,
        g: f64,
        parent: u32,
        h: impl FnOnce() -> f64,
    ) -> bool {
        let offered = offer(
            (&mut self.nodes, &mut self.open, self.query),
            node,
            (g, parent),
            h,
        );
        if let Some((kind, f)) = offered {
            note::<R>(&mut self.trace, kind, node, parent, g, f);
        }
        offered.is_some()
    }

    /// The next gate-graph node to expand (see [`take`]).
    #[inline]
    fn pop(&mut self) -> Option<(u32, f64, u32)> {
        take(&mut self.nodes, &mut self.open, self.query)
    }

    /// Counts (and traces) the expansion of `node`, reached at cost `g` from `parent`.
    #[inline]
    fn expand<R: Recorder>(&mut self, node: u32, g: f64, parent: u32) {
        self.expanded += 1;
        note_expansion::<R>(&mut self.trace, node, parent, g);
    }

    /// Offers the gates of `leaf`, other than `from`, at the cost of the straight line from
    /// `here`, and the goal if it may be reached straight from this leaf.
    #[inline]
    fn relax_leaf<R: Recorder>(
        &mut self,
        graph: &GateGraph,
        (leaf, here, g, from): (LeafId, Cell, f64, u32),
        goal: &Target,
        bound: &Bound,
    ) {
        let l = graph.leaf(leaf);
        let cost = l.cost;
        for (&v, &c) in graph.gates_of(l).iter().zip(graph.cells_of(l)) {
            if node(v) != from {
                self.relax::<R>(node(v), g + octile(here, c) * cost, from, || {
                    bound.to_goal(c)
                });
            }
        }
        if goal.leaf == Some(leaf) {
            self.relax::<R>(goal.node, g + octile(here, goal.cell) * cost, from, || 0.0);
        }
    }

    /// Finds the cheapest gate route from `start` (in leaf `start_leaf`) to `goal` (in leaf
    /// `goal_leaf`; the same leaf only on a map with terrain costs, where a route out and
    /// back over cheaper ground may beat the straight line). Returns the waypoints
    /// `start, gates…, goal` and the route's cost, or `None` when the goal cannot be
    /// reached.
    pub(crate) fn search(
        &mut self,
        graph: &GateGraph,
        ends: Ends,
        landmarks: &Landmarks,
        costs: &CostBands,
    ) -> Option<(Vec<Cell>, f64)> {
        with_recorder!(self.search_as(graph, ends, landmarks, costs))
    }

    /// [`SearchContext::search`] with recorder `R`.
    fn search_as<R: Recorder>(
        &mut self,
        graph: &GateGraph,
        ends: Ends,
        landmarks: &Landmarks,
        costs: &CostBands,
    ) -> Option<(Vec<Cell>, f64)> {
        let open = self.open_search_as::<R>(graph, ends, landmarks, costs);
        let unlimited = Stop::UNLIMITED;
        match self.step_search_as::<R>(graph, ends, open, (landmarks, costs), unlimited) {
            Stepped::Found(waypoints, cost) => Some((waypoints, cost)),
            Stepped::Exhausted => None,
            Stepped::Paused | Stepped::Certified => {
                unreachable!("an unlimited search never pauses")
            }
        }
    }

    /// The gate search of [`SearchContext::search`], stopped as soon as the lowest `f` on
    /// its open list reaches `limit`: then every route costs at least `limit`
    /// ([`Stepped::Certified`]). Otherwise it runs to the end and returns the cheapest
    /// route ([`Stepped::Found`]) or [`Stepped::Exhausted`].
    ///
    /// Why the stop is sound: the bound is consistent (the octile distance times the
    /// cheapest cost, raised by the landmarks' differential bounds), so the `f` of the
    /// nodes A\* expands never decreases, and while the goal is unreached some node of a
    /// cheapest route is open with `f` at most that route's cost. A node expanded at
    /// `f ≥ limit` is therefore the lowest open `f`, and the optimum is at least `limit`.
    pub(crate) fn certify(
        &mut self,
        graph: &GateGraph,
        ends: Ends,
        (landmarks, costs): (&Landmarks, &CostBands),
        limit: f64,
    ) -> Stepped {
        with_recorder!(self.certify_as(graph, ends, (landmarks, costs), limit))
    }

    /// [`SearchContext::certify`] with recorder `R`.
    fn certify_as<R: Recorder>(
        &mut self,
        graph: &GateGraph,
        ends: Ends,
        (landmarks, costs): (&Landmarks, &CostBands),
        limit: f64,
    ) -> Stepped {
        let open = self.open_search_as::<R>(graph, ends, landmarks, costs);
        let stop = Stop {
            limit,
            ..Stop::UNLIMITED
        };
        self.step_search_as::<R>(graph, ends, open, (landmarks, costs), stop)
    }

    /// Opens the gate search of [`SearchContext::search`] without expanding anything: the
    /// suspendable form, driven by [`SearchContext::step_search`]. The context then holds
    /// the search's whole state (scores, open list, expansion count) until its next
    /// search is opened.
    pub(crate) fn open_search(
        &mut self,
        graph: &GateGraph,
        ends: Ends,
        landmarks: &Landmarks,
        costs: &CostBands,
    ) -> OpenSearch {
        with_recorder!(self.open_search_as(graph, ends, landmarks, costs))
    }

    /// [`SearchContext::open_search`] with recorder `R`.
    fn open_search_as<R: Recorder>(
        &mut self,
        graph: &GateGraph,
        ends: Ends,
        landmarks: &Landmarks,
        costs: &CostBands,
    ) -> OpenSearch {
        let bound = Bound::new(ends.goal, landmarks, costs);
        let (start, goal) = self.begin::<R>(graph, &bound, ends.start);
        OpenSearch {
            start,
            goal,
            query: self.query,
        }
    }

    /// Whether `open` is the search this context holds (no other search opened since).
    pub(crate) fn holds(&self, open: OpenSearch) -> bool {
        open.query == self.query
    }

    /// Expands up to `max_expansions` more gates of the search `open` (which this context
    /// must [hold](SearchContext::holds), over the unchanged `graph`), the same A\* as
    /// [`SearchContext::search`] and in the same order, so that a search run in slices
    /// finds exactly what it finds in one go. [`SearchContext::last_expansions`] counts
    /// the expansions since the search was opened.
    pub(crate) fn step_search(
        &mut self,
        graph: &GateGraph,
        ends: Ends,
        open: OpenSearch,
        bounds: (&Landmarks, &CostBands),
        max_expansions: usize,
    ) -> Stepped {
        with_recorder!(self.step_search_as(
            graph,
            ends,
            open,
            bounds,
            Stop {
                max_expansions,
                ..Stop::UNLIMITED
            }
        ))
    }

    /// [`SearchContext::step_search`] with recorder `R`.
    fn step_search_as<R: Recorder>(
        &mut self,
        graph: &GateGraph,
        ends: Ends,
        open: OpenSearch,
        (landmarks, costs): (&Landmarks, &CostBands),
        Stop {
            max_expansions,
            limit,
        }: Stop,
    ) -> Stepped {
        debug_assert!(
            self.holds(open),
            "a search resumed on another search's context"
        );
        let Ends {
            start,
            start_leaf,
            goal,
            goal_leaf,
        } = ends;
        let OpenSearch {
            start: s, goal: t, ..
        } = open;
        let bound = Bound::new(goal, landmarks, costs);
        let target = Target {
            leaf: Some(goal_leaf),
            cell: goal,
            node: t,
        };
        let stop = self.expanded.saturating_add(max_expansions);
        while self.expanded < stop {
            let Some((n, g, p)) = self.pop() else {
                return Stepped::Exhausted;
            };
            if n == t {
                return Stepped::Found(self.unwind(graph, start, goal, s, t), g);
            }
            if limit < f64::INFINITY {
                let here = if n == s {
                    start
                } else {
                    graph.gate(gate(n)).cell
                };
                if g + bound.to_goal(here) >= limit {
                    return Stepped::Certified;
                }
            }
            self.expand::<R>(n, g, p);
            if n == s {
                self.relax_leaf::<R>(graph, (start_leaf, start, 0.0, s), &target, &bound);
                continue;
            }
            let gt = graph.gate(gate(n));
            // Moving on inside the leaf pays only when the gate was entered by a crossing:
            // from a gate reached inside the leaf, its predecessor's direct octile edge is
            // never longer (triangle inequality), so those edges were already offered.
            if p & CROSSED != 0 {
                self.relax_leaf::<R>(graph, (gt.leaf, gt.cell, g, n), &target, &bound);
            }
            for &v in graph.links_of(gt) {
                let other = graph.gate(v);
                let step = bound.crossing(graph, gt, other);
                self.relax::<R>(node(v), g + step, n | CROSSED, || bound.to_goal(other.cell));
            }
        }
        Stepped::Paused
    }

    fn unwind(&self, graph: &GateGraph, start: Cell, goal: Cell, s: u32, t: u32) -> Vec<Cell> {
        let mut out = vec![goal];
        let mut v = self.nodes[t as usize].parent & !CROSSED;
        while v != s {
            out.push(graph.gate(gate(v)).cell);
            v = self.nodes[v as usize].parent & !CROSSED;
        }
        out.push(start);
        out.reverse();
        out
    }
}

impl SearchContext {
    /// Opens the A\* over the subgoal graph `graph` of `grid` from `start` to `goal` (see
    /// `hpa::subgoals`): the suspendable search's first unit of work, its start's cone
    /// scan. A goal inside the start's cone is reached by the scan's walk, which is
    /// optimal: the answer is then its corner points ([`SubgoalOpened::Direct`]).
    /// Otherwise the search is open at the subgoals the scan reached, and
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
            self.entries.resize(n, (0, 0));
        }
        let (s, t) = (n as u32, n as u32 + 1);
        self.space = NodeSpace::Subgoals { n: s };
        self.subgoal_row = None;
        self.subgoal_weight = 1.0;
        self.open_start::<R>(s, octile(start, goal));
        let _ = self.pop();
        self.expand::<R>(s, 0.0, NO_PARENT);
        let mut ties = std::mem::take(&mut self.start_ties);
        ties.clear();
        let mut direct = false;
        // The hop each tie enters its subgoal by is the scan's (none for the start
        // itself), for the taut-path pruning; the scan tells its sector and length.
        let entered = &mut self.entered;
        if let Some(id) = graph.id_of(start) {
            ties.push((0.0, id));
            entered[id as usize] = NO_HOP;
        }
        graph.reach_hops(grid, start, Some(goal), |r| match r {
            Sighting::Subgoal(c, hop) => {
                let id = graph.id_of_found(c);
                ties.push((hop.length() * per_unit, id));
                entered[id as usize] = hop.sector;
            }
            Sighting::Target => direct = true,
        });
        if direct {
            self.start_ties = ties;
            let d = octile(start, goal);
            self.relax::<R>(t, d, s, || 0.0);
            let _ = self.pop();
            self.expand::<R>(t, d, s);
            return SubgoalOpened::Direct(vec![start, bend(start, goal), goal]);
        }
        // The ties are offered once the goal's scan has given their bounds.
        self.start_ties = ties;
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
        let mut reached = std::mem::take(&mut self.goal_ties);
        reached.clear();
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
        let mut mark = |id: u32, to_goal: f64, leaving: Sector| {
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
            reached.push((to_goal, id));
        };
        let own = graph.id_of(goal);
        if let Some(id) = own {
            mark(id, 0.0, NO_HOP);
        }
        graph.reach_hops(grid, goal, None, |r| {
            if let Sighting::Subgoal(c, hop) = r {
                let id = graph.id_of_found(c);
                mark(id, hop.length() * length_cost, reversed(hop.sector));
            }
        });
        // With levels, the goal is reached from above only: the locals its scan reached
        // mark the subgoals above them with the way down. Upward arcs climb strictly in
        // level (see `levels.rs`), so taking the locals level by level settles each before
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
                    let (arcs, base) = l.arc_ends(id);
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
        let landmarks = graph.landmarks();
        let row = landmarks.goal_row(graph, goal, own, reached.iter().map(|&(_, id)| id));
        self.goal_ties = reached;
        self.subgoal_row = Some(row);
        let s = graph.capacity() as u32;
        let ties = std::mem::take(&mut self.start_ties);
        let weight = self.subgoal_weight;
        for &(d, id) in &ties {
            let h = subgoal_bound(graph, (&row, weight), goal, costs, id);
            if weight > 1.0 {
                let entered = self.entered[id as usize];
                self.relax_weighted::<R>(id, (d, s), (entered, DIRECT), || h);
            } else {
                self.relax::<R>(id, d, s, || h);
            }
        }
        self.start_ties = ties;
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
                        false => turns(graph.blocked_diagonals(n), self.entered[n as usize]),
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
            }
            // Only the hops after which the route may still be shortest (`taut`, see
            // `hpa::subgoals::taut`); a weighted search's are those of every sector the
            // subgoal was entered by that an earlier expansion of it has not relaxed (see
            // [`SearchContext::pop_weighted`]).
            match levels {
                // A local's upward edges, a global's edges to globals.
                Some(l) => {
                    let (arcs, base) = l.arc_ends(n);
                    let taut = hop_turns(taut);
                    for (k, &arc) in arcs.iter().enumerate() {
                        if !allows_hops(taut, arc.hops()) {
                            continue;
                        }
                        let end = arc.end();
                        let w = end.weight() * per_unit;
                        if weighted {
                            let (middle, last) = l.taken(base + k);
                            let h = || bound(end.to);
                            self.relax_weighted::<R>(end.to, (g + w, n), (last, middle), h);
                        } else if self.relax::<R>(end.to, g + w, n, || bound(end.to)) {
                            let (middle, last) = l.taken(base + k);
                            self.arc_middles[end.to as usize] = middle;
                            self.entered[end.to as usize] = last;
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
                            self.relax_weighted::<R>(v, (g, n), (hop, DIRECT), || bound(v));
                        } else if self.relax::<R>(v, g, n, || bound(v)) {
                            self.entered[v as usize] = hop;
                        }
                    }
                }
            }
        }
        Stepped::Paused
    }

    /// Offers subgoal `node` to a weighted search at cost `g` from `parent`, entered by a
    /// hop of sector `entered` over an edge of the levels with middle `middle`. As
    /// [`SearchContext::relax`], and besides: the sector joins those `node` was entered
    /// by, and a closed `node` entered by a sector it had not been is put back on the open
    /// list at its own cost, to relax the hops that sector allows (see
    /// [`SearchContext::pop_weighted`]).
    #[inline]
    fn relax_weighted<R: Recorder>(
        &mut self,
        node: u32,
        (g, parent): (f64, u32),
        (entered, middle): (Sector, u32),
        h: impl Fn() -> f64,
    ) {
        let stamp = self.nodes[node as usize].stamp;
        let bit = 1u32 << entered;
        if self.relax::<R>(node, g, parent, &h) {
            self.arc_middles[node as usize] = middle;
            self.entered[node as usize] = entered;
        }
        let entries = &mut self.entries[node as usize];
        if stamp < self.query * 2 {
            *entries = (bit, 0);
        } else if entries.0 & bit == 0 {
            entries.0 |= bit;
            if stamp == self.query * 2 + 1 {
                let state = self.nodes[node as usize];
                self.open.push(state.g + h(), node);
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

    /// The corner points of the subgoal route that reached `t`: each hop is the cone
    /// scan's walk (diagonal steps, then straight ones) from whichever end's scan found
    /// it, so its bend is written out between the two waypoints. Shortcuts of the global
    /// level are unpacked into their two subgoal-graph hops.
    fn unwind_subgoals(
        &mut self,
        graph: &SubgoalGraph,
        start: Cell,
        goal: Cell,
        s: u32,
        t: u32,
    ) -> Vec<Cell> {
        let levels = graph.levels();
        // Subgoal IDs from the start to the one that met the goal's marks, then on down
        // the marks' way to the goal, each with the middle of the edge that led to it;
        // the edges of the levels unpacked.
        let met = self.nodes[t as usize].parent;
        let route = &mut self.route;
        route.clear();
        let mut v = met;
        route.push((v, self.arc_middles[v as usize]));
        while self.nodes[v as usize].parent != s {
            v = self.nodes[v as usize].parent;
            route.push((v, self.arc_middles[v as usize]));
        }
        // Reversed, each entry's middle is that of the edge to the next one: shift them.
        route.reverse();
        for i in 0..route.len() - 1 {
            route[i].1 = route[i + 1].1;
        }
        let mut down = met;
        loop {
            let GoalMark { next, middle, .. } = self.goal_marks[down as usize];
            if next == DIRECT {
                break;
            }
            route.last_mut().expect("the route holds `met`").1 = middle;
            route.push((next, DIRECT));
            down = next;
        }
        let ids = &mut self.hops;
        ids.clear();
        ids.push(route[0].0);
        for pair in route.windows(2) {
            let ((a, middle), (b, _)) = (pair[0], pair[1]);
            match levels {
                Some(l) => l.unpack(a, middle, b, ids),
                None => ids.push(b),
            }
        }
        let mut out = Vec::with_capacity(2 * ids.len() + 3);
        out.push(start);
        let mut before = start;
        for (i, &id) in ids.iter().enumerate() {
            let here = graph.cell(id);
            // The start's scan found the first hop; otherwise the hop's walk is that of
            // whichever end's scan found the other. A straight or diagonal hop bends at
            // one of its ends either way (the duplicate goes below), so only a hop with
            // both kinds of steps asks which scan found it.
            let forward = bend(before, here);
            let pure = forward == before || forward == here;
            out.push(if i == 0 || pure || graph.reached(ids[i - 1], id) {
                forward
            } else {
                bend(here, before)
            });
            out.push(here);
            before = here;
        }
        // The goal's scan found the last hop.
        out.push(bend(goal, before));
        out.push(goal);
        out.dedup();
        out
    }

    /// The clustered search: A\* over cluster entrances, with the start and the goal tied
    /// to the entrances of their clusters. Returns waypoints that
    /// [`super::path::refine`] can join with straight lines.
    ///
    /// A stale cluster (one whose routes an edit has made out of date) is crossed over its
    /// gates, as in the flat search: its own gates and leaf-mate edges are current, and a
    /// gate of a fresh cluster is entered only at an entrance, whose routes are. So a stale
    /// cluster slows down only the searches that pass near it.
    pub(crate) fn search_clustered(
        &mut self,
        graph: &GateGraph,
        clusters: &Clusters,
        ends: Ends,
        landmarks: &Landmarks,
        costs: &CostBands,
    ) -> Option<Vec<Cell>> {
        with_recorder!(self.search_clustered_as(graph, clusters, ends, landmarks, costs))
    }

    /// [`SearchContext::search_clustered`] with recorder `R`.
    fn search_clustered_as<R: Recorder>(
        &mut self,
        graph: &GateGraph,
        clusters: &Clusters,
        ends: Ends,
        landmarks: &Landmarks,
        costs: &CostBands,
    ) -> Option<Vec<Cell>> {
        let (start, goal) = (ends.start, ends.goal);
        let (ks, kg) = (
            clusters.of_leaf(ends.start_leaf),
            clusters.of_leaf(ends.goal_leaf),
        );
        if ks == kg {
            // Within one cluster the gate graph itself is small, and it also finds routes
            // that leave the cluster and come back.
            return self
                .search_as::<R>(graph, ends, landmarks, costs)
                .map(|(w, _)| w);
        }
        let (fresh_s, fresh_g) = (clusters.is_fresh(ks), clusters.is_fresh(kg));
        if fresh_s {
            tie(
                graph,
                clusters,
                ks,
                (start, ends.start_leaf),
                &mut self.start_ties,
            );
        }
        if fresh_g {
            tie(
                graph,
                clusters,
                kg,
                (goal, ends.goal_leaf),
                &mut self.goal_ties,
            );
        }
        let bound = Bound::new(goal, landmarks, costs);
        let (s, t) = self.begin::<R>(graph, &bound, start);
        // With a fresh goal cluster the goal is reached from its entrances only.
        let target = Target {
            leaf: (!fresh_g).then_some(ends.goal_leaf),
            cell: goal,
            node: t,
        };
        while let Some((n, g, p)) = self.pop() {
            if n == t {
                return Some(self.unwind_clustered(graph, clusters, ends, s, t));
            }
            self.expand::<R>(n, g, p);
            if n == s {
                if fresh_s {
                    for (j, &e) in clusters.get(ks).entrances.iter().enumerate() {
                        let d = self.start_ties[j].0;
                        if d.is_finite() {
                            let c = graph.gate(e).cell;
                            self.relax::<R>(node(e), d, s, || bound.to_goal(c));
                        }
                    }
                } else {
                    self.relax_leaf::<R>(graph, (ends.start_leaf, start, 0.0, s), &target, &bound);
                }
                continue;
            }
            let here = graph.gate(gate(n));
            let k = clusters.of_leaf(here.leaf);
            let entered = p & CROSSED != 0;
            if clusters.is_fresh(k) {
                // As in the flat search, routes inside the cluster are offered only from
                // entrances reached from outside it: shortest distances obey the triangle
                // inequality, so offering them again from a mate never helps.
                if entered {
                    let c = clusters.get(k);
                    let i = clusters
                        .entrance_of(gate(n))
                        .expect("the search enters fresh clusters at entrances only");
                    let n_e = c.entrances.len();
                    for (j, &e) in c.entrances.iter().enumerate() {
                        let d = c.dist[i * n_e + j];
                        if j != i && d.is_finite() {
                            let ec = graph.gate(e).cell;
                            self.relax::<R>(node(e), g + d, n, || bound.to_goal(ec));
                        }
                    }
                    if k == kg {
                        let d = self.goal_ties[i].0;
                        if d.is_finite() {
                            self.relax::<R>(t, g + d, n, || 0.0);
                        }
                    }
                }
            } else if entered {
                self.relax_leaf::<R>(graph, (here.leaf, here.cell, g, n), &target, &bound);
            }
            for &v in graph.links_of(here) {
                let other = graph.gate(v);
                let kv = clusters.of_leaf(other.leaf);
                let usable = if clusters.is_fresh(kv) {
                    kv != k && clusters.entrance_of(v).is_some()
                } else {
                    true
                };
                if usable {
                    let step = bound.crossing(graph, here, other);
                    self.relax::<R>(node(v), g + step, n | CROSSED, || bound.to_goal(other.cell));
                }
            }
        }
        None
    }

    fn unwind_clustered(
        &self,
        graph: &GateGraph,
        clusters: &Clusters,
        ends: Ends,
        s: u32,
        t: u32,
    ) -> Vec<Cell> {
        let mut chain = vec![t];
        while let Some(&last) = chain.last() {
            if last == s {
                break;
            }
            chain.push(self.nodes[last as usize].parent & !CROSSED);
        }
        chain.reverse();
        let cell = |v: u32| graph.gate(gate(v)).cell;
        let (ks, kg) = (
            clusters.of_leaf(ends.start_leaf),
            clusters.of_leaf(ends.goal_leaf),
        );
        let mut out = vec![ends.start];
        for w in chain.windows(2) {
            let (a, b) = (w[0], w[1]);
            let crossed = self.nodes[b as usize].parent & CROSSED != 0;
            if a == s && clusters.is_fresh(ks) {
                // Start → a gate of its leaf → along entrance `j`'s tree to `b`.
                let c = clusters.get(ks);
                let j = clusters.entrance_of(gate(b)).expect("tied to an entrance");
                let route = walk(c, c.routes_from(j), self.start_ties[j].1, None);
                out.extend(route.iter().map(|&v| graph.gate(v).cell));
            } else if b == t {
                if clusters.is_fresh(kg) {
                    let c = clusters.get(kg);
                    let k = clusters.entrance_of(gate(a)).expect("tied to an entrance");
                    let route = walk(c, c.routes_from(k), self.goal_ties[k].1, None);
                    out.extend(route.iter().rev().skip(1).map(|&v| graph.gate(v).cell));
                }
            } else if a != s
                && !crossed
                && clusters.is_fresh(clusters.of_leaf(graph.gate(gate(a)).leaf))
            {
                // A route inside a fresh cluster, from entrance `a` to entrance `b`.
                let c = clusters.get(clusters.of_leaf(graph.gate(gate(a)).leaf));
                let i = clusters
                    .entrance_of(gate(a))
                    .expect("routes start at entrances");
                let stop = clusters.local_of(gate(a));
                let route = walk(c, c.routes_from(i), clusters.local_of(gate(b)), Some(stop));
                out.extend(route.iter().rev().map(|&v| graph.gate(v).cell));
            } else {
                // One step over a crossing, or a straight line inside one leaf.
                out.push(cell(b));
            }
        }
        out.push(ends.goal);
        out
    }
}

impl SearchContext {
    /// The short-move search (see [`Config::local_radius`](super::Config::local_radius)):
    /// A\* over the grid's cells of the (2R+1)² window around `start`, for a `goal` at most
    /// R away (octile distance; farther, no path of length at most R reaches it, and this
    /// returns `None`). Returns the cells of a cheapest path inside the window, with
    /// whether it is proved cheapest on the whole map, or `None` when no path inside the
    /// window reaches the goal.
    ///
    /// Why a path of the window can be optimal on the whole map: a path whose length is
    /// at most R moves at most R cells in each axis, so it never leaves the window. Hence
    /// whenever some optimal path has length at most R, the window's cheapest path is
    /// optimal, *whatever the terrain costs*: the window bounds length, not cost. The caller
    /// cannot know that optimal length in advance, so it keeps this path when it is proved
    /// optimal, and otherwise takes the cheaper of it and the gate search's answer, which
    /// is then optimal for every move of optimal length at most R.
    ///
    /// The proof: every step from a cell `u` of the window to a cell `o` outside it is
    /// recorded with `g(u) + cost(u, o) + h(o)` (`h`, the octile distance times the
    /// cheapest cost, never overestimates and is consistent), the least cost any path
    /// leaving the window over that step can have. When the goal pops at cost `C` and no
    /// such escape recorded so far is below `C`, the path is optimal on the whole map: a
    /// path leaving the window leaves over a step from a window cell `u`; if `u` was
    /// expanded, its escape was recorded (or is recorded later at an `f` of at least `C`,
    /// as `f` only grows along the pops), and if not, `g(u) + h(u) ≥ C` already.
    ///
    /// Steps are the grid's own ([`Grid::can_step`]): no second statement of the corner
    /// rule. Nothing is allocated but the returned path once the table has grown.
    pub(crate) fn search_local(
        &mut self,
        grid: &Grid,
        costs: &CostBands,
        ends: (Cell, Cell),
        radius: u32,
    ) -> Option<(Vec<Cell>, bool)> {
        with_recorder!(self.search_local_as(grid, costs, ends, radius))
    }

    /// [`SearchContext::search_local`] with recorder `R`.
    fn search_local_as<R: Recorder>(
        &mut self,
        grid: &Grid,
        costs: &CostBands,
        (start, goal): (Cell, Cell),
        radius: u32,
    ) -> Option<(Vec<Cell>, bool)> {
        let floor = costs.floor();
        if radius == 0 || octile(start, goal) > radius as f64 + 1e-9 {
            return None;
        }
        let unit = costs.is_unit();
        let side = 2 * radius as usize + 1;
        if self.window.len() < side * side {
            self.window.resize(side * side, NodeState::default());
        }
        self.next_query();
        // Table slot of a cell, by its offset from the window's corner, and back.
        let (x0, y0) = (
            start.x as i64 - radius as i64,
            start.y as i64 - radius as i64,
        );
        let inside = |c: Cell| {
            let (dx, dy) = (c.x as i64 - x0, c.y as i64 - y0);
            (0..side as i64).contains(&dx) && (0..side as i64).contains(&dy)
        };
        let slot = |c: Cell| {
            let (dx, dy) = (c.x as i64 - x0, c.y as i64 - y0);
            debug_assert!(inside(c));
            (dy as usize * side + dx as usize) as u32
        };
        let cell = |i: u32| {
            let i = i as usize;
            Cell::new(
                (x0 + (i % side) as i64) as u32,
                (y0 + (i / side) as i64) as u32,
            )
        };
        let target = slot(goal);
        self.space = NodeSpace::Window {
            x0,
            y0,
            side: side as u32,
        };
        // The least cost a path leaving the window over the steps seen so far can have.
        let mut escape = f64::INFINITY;
        let (states, open, query) = (&mut self.window, &mut self.open, self.query);
        let trace = &mut self.trace;
        let h0 = octile(start, goal) * floor;
        offer((states, open, query), slot(start), (0.0, NO_PARENT), || h0);
        note::<R>(trace, TraceKind::Generated, slot(start), NO_PARENT, 0.0, h0);
        while let Some((i, g, p)) = take(states, open, query) {
            if i == target {
                let mut path = vec![goal];
                let mut v = states[i as usize].parent;
                while v != NO_PARENT {
                    path.push(cell(v));
                    v = states[v as usize].parent;
                }
                path.reverse();
                return Some((path, g <= escape));
            }
            self.expanded += 1;
            note_expansion::<R>(trace, i, p, g);
            let here = cell(i);
            for dir in Direction::ALL {
                let next = match here.step(dir) {
                    Some(next) if grid.can_step(here, dir) => next,
                    _ => continue,
                };
                let step = if unit {
                    step_cost(dir)
                } else {
                    costs.table().cost_between(grid, here, next)
                };
                let (g_next, h) = (g + step, octile(next, goal) * floor);
                if inside(next) {
                    if let Some((kind, f)) =
                        offer((states, open, query), slot(next), (g_next, i), || h)
                    {
                        note::<R>(trace, kind, slot(next), i, g_next, f);
                    }
                } else {
                    escape = escape.min(g_next + h);
                }
            }
        }
        None
    }

    /// Cuts every loop out of a cell path (see [`path::cut_loops`]), with this context's
    /// scratch table.
    pub(crate) fn cut_loops(&mut self, cells: &mut Vec<Cell>) {
        path::cut_loops(cells, &mut self.last_seen);
    }
}

/// The gates met following the predecessor tree `routes` of cluster `c` from local gate `v` to
/// `stop` (excluded) or to the table's origin (included).
fn walk(c: &Cluster, routes: Routes<'_>, mut v: u32, stop: Option<u32>) -> Vec<GateId> {
    let mut out = Vec::new();
    while Some(v) != stop && v != FROM_ORIGIN && v != NO_PRED {
        out.push(c.gates[v as usize]);
        v = routes.pred(v);
    }
    out
}

/// For each entrance of cluster `id`, the distance from `cell` (in leaf `leaf`) and the
/// local index of the gate of that leaf the route leaves through: the best of "straight to
/// a gate, then the entrance's stored route".
fn tie(
    graph: &GateGraph,
    clusters: &Clusters,
    id: ClusterId,
    (cell, leaf): (Cell, LeafId),
    out: &mut Vec<(f64, u32)>,
) {
    out.clear();
    let c = clusters.get(id);
    let l = graph.leaf(leaf);
    // Each way out of the leaf once: its local index and the straight line's cost to it.
    let exits: smallvec::SmallVec<[(u32, f64); 32]> = graph
        .gates_of(l)
        .iter()
        .zip(graph.cells_of(l))
        .map(|(&v, &gc)| (clusters.local_of(v), octile(cell, gc) * l.cost))
        .collect();
    for reach in c
        .reach
        .chunks_exact(c.gates.len().max(1))
        .take(c.entrances.len())
    {
        let mut best = (f64::INFINITY, u32::MAX);
        for &(local, d) in &exits {
            let d = d + reach[local as usize] as f64;
            if d < best.0 {
                best = (d, local);
            }
        }
        out.push(best);
    }
}

#[cfg(test)]
mod tests {
    use super::subgoal_bound;
    use crate::grid::movement::octile;
    use crate::grid::{Grid, TerrainCosts};
    use crate::hpa::costs::CostBands;
    use crate::hpa::subgoals::{Reached, SubgoalGraph};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(60))]

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
                let mut reached = Vec::new();
                graph.reach(&grid, goal, None, |r| {
                    if let Reached::Subgoal(c) = r {
                        reached.extend(graph.id_of(c));
                    }
                });
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
    }
}
