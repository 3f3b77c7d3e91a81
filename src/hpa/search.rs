//! A\* over the gate graph, with buffers reused from one query to the next.

use super::clusters::{Cluster, Clusters, FROM_ORIGIN};
use super::graph::{GateGraph, NONE};
use super::landmarks::{GoalRow, Landmarks};
use super::open::OpenList;
use crate::geom::Cell;
use crate::grid::movement::octile;

/// The reusable state of gate-graph searches: score tables indexed by gate, stamped with a
/// query number so that nothing is cleared between queries, and the open list.
///
/// One context serves any number of queries on any number of maps; keep one per thread.
#[derive(Clone, Debug, Default)]
pub struct SearchContext {
    nodes: Vec<NodeState>,
    /// Stamps `2q` (reached by query `q`) and `2q + 1` (closed by it); anything older
    /// means unseen, so nothing is cleared between queries.
    query: u32,
    open: OpenList,
    expanded: usize,
    /// Per entrance of the start's (goal's) cluster: distance and the leaf gate it goes by.
    start_ties: Vec<(f64, u32)>,
    goal_ties: Vec<(f64, u32)>,
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

/// The two ends of a query and the free leaves they lie in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ends {
    pub start: Cell,
    pub start_leaf: u32,
    pub goal: Cell,
    pub goal_leaf: u32,
}

/// Lower bounds on the remaining distance to one query's goal: the octile distance, raised
/// by the landmarks' differential bounds when the map keeps them. Both are consistent, so
/// their maximum is too, and A\* can close nodes for good.
struct Bound<'a> {
    goal: Cell,
    landmarks: Option<(&'a Landmarks, GoalRow)>,
}

impl<'a> Bound<'a> {
    fn new(goal: Cell, landmarks: Option<&'a Landmarks>) -> Self {
        Bound {
            goal,
            landmarks: landmarks
                .filter(|l| l.count() > 0)
                .map(|l| (l, l.goal_row(goal))),
        }
    }

    #[inline]
    fn to_goal(&self, c: Cell) -> f64 {
        let o = octile(c, self.goal);
        match &self.landmarks {
            Some((l, row)) => o.max(l.bound(row, c)),
            None => o,
        }
    }
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

    /// Prepares a search over `graph`'s gates and opens it at `start`. Returns the indices
    /// of the two virtual nodes, the start and the goal, which follow the gates.
    fn begin(&mut self, graph: &GateGraph, start: Cell, goal: Cell) -> (u32, u32) {
        let n = graph.gates.capacity();
        self.reset(n + 2);
        let (s, t) = (n as u32, n as u32 + 1);
        self.nodes[s as usize] = NodeState {
            g: 0.0,
            parent: NONE,
            stamp: self.query * 2,
        };
        self.open.push(octile(start, goal), s);
        (s, t)
    }

    fn reset(&mut self, nodes: usize) {
        if self.nodes.len() < nodes {
            self.nodes.resize(nodes, NodeState::default());
        }
        self.query += 1;
        if self.query >= u32::MAX / 2 {
            // The stamps would wrap: clear them once every 2 billion queries.
            self.nodes.fill(NodeState::default());
            self.query = 1;
        }
        self.open.clear();
        self.expanded = 0;
    }

    /// Offers `node` at cost `g` from `parent` (which may carry [`CROSSED`]); `h` bounds
    /// its distance to the goal and is evaluated only if the offer is taken.
    #[inline]
    fn relax(&mut self, node: u32, g: f64, parent: u32, h: impl FnOnce() -> f64) {
        let open = self.query * 2;
        let n = &mut self.nodes[node as usize];
        if n.stamp >= open && (n.stamp > open || g >= n.g) {
            return; // closed, or already reached at least as cheaply
        }
        *n = NodeState {
            g,
            parent,
            stamp: open,
        };
        let h = h();
        self.open.push(g + h, node);
    }

    /// Pops the next node to expand, skipping entries of closed nodes (an entry superseded
    /// by a cheaper one pops after it, when its node is closed). Returns the node, its
    /// cost and its parent field.
    #[inline]
    fn pop(&mut self) -> Option<(u32, f64, u32)> {
        while let Some(node) = self.open.pop() {
            let state = &mut self.nodes[node as usize];
            if state.stamp == self.query * 2 {
                state.stamp += 1;
                return Some((node, state.g, state.parent));
            }
        }
        None
    }

    /// Finds the cheapest gate route from `start` (in leaf `start_leaf`) to `goal` (in leaf
    /// `goal_leaf`, a different leaf). Returns the waypoints `start, gates…, goal` and the
    /// route's length, or `None` when the goal cannot be reached.
    pub(crate) fn search(
        &mut self,
        graph: &GateGraph,
        ends: Ends,
        landmarks: Option<&Landmarks>,
    ) -> Option<(Vec<Cell>, f64)> {
        let Ends {
            start,
            start_leaf,
            goal,
            goal_leaf,
        } = ends;
        let bound = Bound::new(goal, landmarks);
        let (s, t) = self.begin(graph, start, goal);
        while let Some((node, g, p)) = self.pop() {
            if node == t {
                return Some((self.unwind(graph, start, goal, t), g));
            }
            self.expanded += 1;
            if node == s {
                let leaf = graph.leaf(start_leaf);
                for (&v, &c) in leaf.gates.iter().zip(&leaf.cells) {
                    self.relax(v, octile(start, c), s, || bound.to_goal(c));
                }
                continue;
            }
            let gate = graph.gate(node);
            let here = gate.cell;
            // Moving on inside the leaf pays only when the gate was entered by a crossing:
            // from a gate reached inside the leaf, its predecessor's direct octile edge is
            // never longer (triangle inequality), so those edges were already offered.
            if p & CROSSED != 0 {
                let leaf = graph.leaf(gate.leaf);
                for (&v, &c) in leaf.gates.iter().zip(&leaf.cells) {
                    if v != node {
                        self.relax(v, g + octile(here, c), node, || bound.to_goal(c));
                    }
                }
                if gate.leaf == goal_leaf {
                    self.relax(t, g + octile(here, goal), node, || 0.0);
                }
            }
            for &v in &gate.links {
                let c = graph.gate(v).cell;
                self.relax(v, g + octile(here, c), node | CROSSED, || bound.to_goal(c));
            }
        }
        None
    }

    fn unwind(&self, graph: &GateGraph, start: Cell, goal: Cell, t: u32) -> Vec<Cell> {
        let mut out = vec![goal];
        let mut v = self.nodes[t as usize].parent & !CROSSED;
        while v != t - 1 {
            out.push(graph.gate(v).cell);
            v = self.nodes[v as usize].parent & !CROSSED;
        }
        out.push(start);
        out.reverse();
        out
    }
}

impl SearchContext {
    /// The clustered search: A\* over cluster entrances, with the start and the goal tied
    /// to the entrances of their clusters. Returns waypoints that
    /// [`super::path::refine`] can join with straight lines.
    pub(crate) fn search_clustered(
        &mut self,
        graph: &GateGraph,
        clusters: &Clusters,
        ends: Ends,
        landmarks: Option<&Landmarks>,
    ) -> Option<Vec<Cell>> {
        let (start, goal) = (ends.start, ends.goal);
        let (ks, kg) = (
            graph.leaf(ends.start_leaf).cluster,
            graph.leaf(ends.goal_leaf).cluster,
        );
        if ks == kg {
            // Within one cluster the gate graph itself is small, and it also finds routes
            // that leave the cluster and come back.
            return self.search(graph, ends, landmarks).map(|(w, _)| w);
        }
        let (cs, cg) = (clusters.get(ks), clusters.get(kg));
        tie(graph, cs, start, ends.start_leaf, &mut self.start_ties);
        tie(graph, cg, goal, ends.goal_leaf, &mut self.goal_ties);

        let bound = Bound::new(goal, landmarks);
        let (s, t) = self.begin(graph, start, goal);
        while let Some((node, g, p)) = self.pop() {
            if node == t {
                return Some(self.unwind_clustered(graph, clusters, (start, ks), (goal, kg), s, t));
            }
            self.expanded += 1;
            if node == s {
                for (j, &e) in cs.entrances.iter().enumerate() {
                    let d = self.start_ties[j].0;
                    if d.is_finite() {
                        self.relax(e, d, s, || bound.to_goal(graph.gate(e).cell));
                    }
                }
                continue;
            }
            let gate = graph.gate(node);
            let k = graph.leaf(gate.leaf).cluster;
            // As in the flat search, routes inside the cluster are offered only from
            // entrances reached from outside it: shortest distances obey the triangle
            // inequality, so offering them again from a mate never helps.
            if p & CROSSED != 0 {
                let c = clusters.get(k);
                let (i, n_e) = (gate.entrance as usize, c.entrances.len());
                for (j, &e) in c.entrances.iter().enumerate() {
                    let d = c.dist[i * n_e + j];
                    if j != i && d.is_finite() {
                        self.relax(e, g + d, node, || bound.to_goal(graph.gate(e).cell));
                    }
                }
                if k == kg {
                    let d = self.goal_ties[i].0;
                    if d.is_finite() {
                        self.relax(t, g + d, node, || 0.0);
                    }
                }
            }
            for &v in &gate.links {
                let other = graph.gate(v);
                if other.entrance != NONE && graph.leaf(other.leaf).cluster != k {
                    self.relax(v, g + octile(gate.cell, other.cell), node | CROSSED, || {
                        bound.to_goal(other.cell)
                    });
                }
            }
        }
        None
    }

    fn unwind_clustered(
        &self,
        graph: &GateGraph,
        clusters: &Clusters,
        (start, ks): (Cell, u32),
        (goal, kg): (Cell, u32),
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
        let cell = |v: u32| graph.gate(v).cell;
        let cluster_of = |v: u32| graph.leaf(graph.gate(v).leaf).cluster;
        // The gates met following a predecessor table from local gate `v` to `stop`
        // (excluded) or to an origin (included).
        let walk = |pred: &[u32], c: &Cluster, mut v: u32, stop: u32| {
            let mut out = Vec::new();
            while v != stop && v != FROM_ORIGIN {
                out.push(c.gates[v as usize]);
                v = pred[v as usize];
            }
            out
        };
        fn tree(c: &Cluster, i: usize) -> &[u32] {
            let n_g = c.gates.len();
            &c.pred[i * n_g..(i + 1) * n_g]
        }
        let mut out = vec![start];
        for w in chain.windows(2) {
            let (a, b) = (w[0], w[1]);
            match (a == s, b == t) {
                (true, true) => unreachable!("start and goal in different clusters"),
                (true, false) => {
                    // Start → a gate `v` of its leaf → along entrance `j`'s tree to `b`.
                    let (c, j) = (clusters.get(ks), graph.gate(b).entrance as usize);
                    let route = walk(tree(c, j), c, self.start_ties[j].1, NONE);
                    out.extend(route.iter().map(|&v| cell(v)));
                }
                (false, true) => {
                    let (c, k) = (clusters.get(kg), graph.gate(a).entrance as usize);
                    let route = walk(tree(c, k), c, self.goal_ties[k].1, NONE);
                    out.extend(route.iter().rev().skip(1).map(|&v| cell(v)));
                }
                (false, false) if cluster_of(a) == cluster_of(b) => {
                    let c = clusters.get(cluster_of(a));
                    let route = walk(
                        tree(c, graph.gate(a).entrance as usize),
                        c,
                        graph.gate(b).local,
                        graph.gate(a).local,
                    );
                    out.extend(route.iter().rev().map(|&v| cell(v)));
                }
                (false, false) => out.push(cell(b)),
            }
        }
        out.push(goal);
        out
    }
}

/// For each entrance of cluster `c`, the distance from `cell` (in leaf `leaf`) and the gate
/// of that leaf the route leaves through: the best of "straight to a gate, then the
/// entrance's stored route".
fn tie(graph: &GateGraph, c: &Cluster, cell: Cell, leaf: u32, out: &mut Vec<(f64, u32)>) {
    out.clear();
    let l = graph.leaf(leaf);
    // Each way out of the leaf once: its local index and the straight distance to it.
    let exits: smallvec::SmallVec<[(u32, f64); 32]> = l
        .gates
        .iter()
        .zip(&l.cells)
        .map(|(&v, &gc)| (graph.gate(v).local, octile(cell, gc)))
        .collect();
    for reach in c
        .reach
        .chunks_exact(c.gates.len().max(1))
        .take(c.entrances.len())
    {
        let mut best = (f64::INFINITY, NONE);
        for &(local, d) in &exits {
            let d = d + reach[local as usize] as f64;
            if d < best.0 {
                best = (d, local);
            }
        }
        out.push(best);
    }
}
