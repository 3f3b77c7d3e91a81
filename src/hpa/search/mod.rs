//! The searches of the hierarchy, A\* over the gate graph, the subgoal graph, cluster
//! entrances or a window of cells, with buffers reused from one query to the next (one
//! [`SearchContext`] serves them all).
//!
//! In the gate search, nodes are gate indices, followed by two virtual nodes for the start
//! and the goal; a node's record keeps its predecessor with a flag saying whether the node
//! was entered over a crossing, which is all its pruning rules need.
//!
//! # Files
//! - this file: the [`SearchContext`] and what every search shares: the per-node records
//!   and their stamps, offering and taking nodes, the recorder's notes, the gate graph's
//!   bound and the relaxation of a leaf's gates;
//! - `gates.rs`: the A\* over the gate graph (exact mode), whole, certifying or in slices;
//! - `subgoals.rs`: the A\* over the subgoal graph and its levels, and its bound;
//! - `clustered.rs`: the A\* over cluster entrances (fast mode);
//! - `local.rs`: the short-move search inside a window of cells.

use super::costs::CostBands;
use super::graph::{GateGraph, GateId, LeafId, SlotId};
use super::landmarks::{GoalRow, Landmarks};
use super::landmarks_sparse::SparseGoalRow;
use super::open::OpenList;
use super::path;
use super::subgoals::{Sector, LEVELS};
use super::trace::{NodeSpace, RawEvent, Recorder, TraceKind};
use crate::geom::Cell;
use crate::grid::movement::octile;
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
    /// ([`DIRECT`](crate::hpa::subgoals::DIRECT) for none), so that the corners unpack shortcuts without looking them up.
    /// Read only for subgoals reached over the levels in the same query.
    arc_middles: Vec<u32>,
    /// Per subgoal, in a weighted search: the sector of the last subgoal-graph hop its
    /// search parent reached it by, for the taut-path pruning (see
    /// `hpa::subgoals::taut`). Read only for subgoals reached in the same query.
    entered: Vec<Sector>,
    /// Per subgoal, in an exact search: the sectors the taut-path rule lets it be left
    /// by, given the hop its search parent reached it by (`turns` of its blocked
    /// diagonals and that hop's sector), worked out when the offer is taken (where the
    /// dead-end test needs them) and read back when it pops. Read only for subgoals
    /// reached in the same query.
    leaving: Vec<u16>,
    /// The subgoal search's start ties: each subgoal the start's scan reached, its
    /// distance, and the sector of the hop that reached it ([`NO_HOP`](crate::hpa::subgoals::NO_HOP)
    /// for a start on a subgoal), offered once the goal's scan has given their bounds.
    subgoal_ties: Vec<(f64, u32, Sector)>,
    /// Per subgoal, in a weighted search: the sectors it has been entered by (bit
    /// [`NO_HOP`](crate::hpa::subgoals::NO_HOP) for a start tie), and those of them its expansions have answered for
    /// (see [`SearchContext::step_subgoals`]). Read only for subgoals reached in the same
    /// query.
    entries: Vec<(u32, u32)>,
    /// Scratch of the subgoal corners: the route's subgoals with the middle of the edge to
    /// each, and the second halves of the shortcuts being unpacked (see
    /// [`Levels::unpack`](crate::hpa::subgoals::levels::Levels::unpack)).
    route: Vec<(u32, u32)>,
    unpacking: Vec<(u32, u32, u32)>,
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
    let kind = reach(states, query, node, (g, parent))?;
    let f = g + h();
    open.push(f, node);
    Some((kind, f))
}

/// Records `node` of the state table `states` as reached at cost `g` from `parent` in
/// query `query`, unless it is closed or already reached at least as cheaply: the part of
/// [`offer`] before the open list. Returns, when it is taken, whether the node was new or
/// improved.
#[inline(always)]
fn reach(
    states: &mut [NodeState],
    query: u32,
    node: u32,
    (g, parent): (f64, u32),
) -> Option<TraceKind> {
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
    Some(kind)
}

/// Records an event in `trace` when the search is compiled with the [`Traced`](super::trace::Traced) recorder;
/// with [`Untraced`](super::trace::Untraced) it compiles to nothing.
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
    // In unsigned steps towards `b` along each axis: no widening, no signs.
    let k = a.x.abs_diff(b.x).min(a.y.abs_diff(b.y));
    let toward = |from: u32, to: u32| if to >= from { from + k } else { from - k };
    Cell::new(toward(a.x, b.x), toward(a.y, b.y))
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

mod clustered;
mod gates;
mod local;
mod subgoals;

use subgoals::GoalMark;
pub(crate) use subgoals::SubgoalOpened;

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

    /// Cuts every loop out of a cell path (see [`path::cut_loops`]), with this context's
    /// scratch table.
    pub(crate) fn cut_loops(&mut self, cells: &mut Vec<Cell>) {
        path::cut_loops(cells, &mut self.last_seen);
    }
}

#[cfg(test)]
mod tests {
    use super::bend;
    use crate::geom::Cell;
    use proptest::prelude::*;

    proptest! {
        /// The bend is where the walk from `a` to `b` has taken its diagonal steps, the
        /// steps walked one at a time: `min(|dx|, |dy|)` steps, each one towards `b` in
        /// both axes. Any sign or count off (a step too few, the wrong way on one axis)
        /// fails this.
        #[test]
        fn the_bend_ends_the_diagonal_steps(
            a in (0u32..64, 0u32..64),
            b in (0u32..64, 0u32..64),
        ) {
            let (a, b) = (Cell::new(a.0, a.1), Cell::new(b.0, b.1));
            let mut walked = a;
            while walked.x != b.x && walked.y != b.y {
                let toward = |from: u32, to: u32| if to > from { from + 1 } else { from - 1 };
                walked = Cell::new(toward(walked.x, b.x), toward(walked.y, b.y));
            }
            prop_assert_eq!(bend(a, b), walked);
        }
    }
}
