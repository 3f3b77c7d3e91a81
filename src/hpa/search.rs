//! A\* over the gate graph, with buffers reused from one query to the next.

use super::graph::{GateGraph, NONE};
use crate::geom::{octile, Cell};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
    open: BinaryHeap<Open>,
    expanded: usize,
}

/// Per-node search state, in one record so that a relaxation touches one cache line.
#[derive(Clone, Copy, Debug, Default)]
struct NodeState {
    g: f64,
    parent: u32,
    stamp: u32,
}

#[derive(Clone, Copy, Debug)]
struct Open {
    f: f64,
    g: f64,
    node: u32,
}

impl PartialEq for Open {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Open {}
impl PartialOrd for Open {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Open {
    /// Lowest `f` first; among equals the deepest (largest `g`), which walks straight to the
    /// goal instead of fanning out over the many equal-length octile routes.
    fn cmp(&self, o: &Self) -> Ordering {
        o.f.total_cmp(&self.f).then(self.g.total_cmp(&o.g))
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

    fn begin(&mut self, nodes: usize) {
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

    #[inline]
    fn relax(&mut self, node: u32, g: f64, h: f64, parent: u32) {
        let open = self.query * 2;
        let n = &mut self.nodes[node as usize];
        if n.stamp >= open && (n.stamp > open || g >= n.g) {
            return; // closed, or already reached at least as cheaply
        }
        *n = NodeState { g, parent, stamp: open };
        self.open.push(Open { f: g + h, g, node });
    }

    /// Finds the cheapest gate route from `start` (in leaf `start_leaf`) to `goal` (in leaf
    /// `goal_leaf`, a different leaf). Returns the waypoints `start, gates…, goal` and the
    /// route's length, or `None` when the goal cannot be reached.
    pub(crate) fn search(
        &mut self,
        graph: &GateGraph,
        start: Cell,
        start_leaf: u32,
        goal: Cell,
        goal_leaf: u32,
    ) -> Option<(Vec<Cell>, f64)> {
        let n = graph.gates.capacity();
        let (s, t) = (n as u32, n as u32 + 1);
        self.begin(n + 2);
        self.nodes[s as usize] = NodeState { g: 0.0, parent: NONE, stamp: self.query * 2 };
        self.open.push(Open { f: octile(start, goal), g: 0.0, node: s });
        while let Some(Open { g, node, .. }) = self.open.pop() {
            let state = &mut self.nodes[node as usize];
            if state.stamp != self.query * 2 || g > state.g {
                continue; // a stale entry
            }
            state.stamp += 1;
            let p = state.parent;
            if node == t {
                return Some((self.unwind(graph, start, goal, t), g));
            }
            self.expanded += 1;
            if node == s {
                let leaf = graph.leaf(start_leaf);
                for (&v, &c) in leaf.gates.iter().zip(&leaf.cells) {
                    self.relax(v, octile(start, c), octile(c, goal), s);
                }
                continue;
            }
            let gate = graph.gate(node);
            let here = gate.cell;
            // Moving on inside the leaf pays only when the gate was entered by a crossing:
            // from a gate reached inside the leaf, its predecessor's direct octile edge is
            // never longer (triangle inequality), so those edges were already offered.
            let entered_by_crossing = p != s && graph.gate(p).leaf != gate.leaf;
            if entered_by_crossing {
                let leaf = graph.leaf(gate.leaf);
                for (&v, &c) in leaf.gates.iter().zip(&leaf.cells) {
                    if v != node {
                        self.relax(v, g + octile(here, c), octile(c, goal), node);
                    }
                }
                if gate.leaf == goal_leaf {
                    self.relax(t, g + octile(here, goal), 0.0, node);
                }
            }
            for &v in &gate.links {
                let c = graph.gate(v).cell;
                self.relax(v, g + octile(here, c), octile(c, goal), node);
            }
        }
        None
    }

    fn unwind(&self, graph: &GateGraph, start: Cell, goal: Cell, t: u32) -> Vec<Cell> {
        let mut out = vec![goal];
        let mut v = self.nodes[t as usize].parent;
        while v != t - 1 {
            out.push(graph.gate(v).cell);
            v = self.nodes[v as usize].parent;
        }
        out.push(start);
        out.reverse();
        out
    }
}
