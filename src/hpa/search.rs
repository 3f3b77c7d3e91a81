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
    g: Vec<f64>,
    parent: Vec<u32>,
    /// Query number at which the node was last reached; older values mean "unseen".
    seen: Vec<u32>,
    closed: Vec<u32>,
    query: u32,
    open: BinaryHeap<Open>,
    expanded: usize,
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
        if self.g.len() < nodes {
            self.g.resize(nodes, 0.0);
            self.parent.resize(nodes, NONE);
            self.seen.resize(nodes, 0);
            self.closed.resize(nodes, 0);
        }
        self.query = self.query.wrapping_add(1);
        if self.query == 0 {
            // The stamps wrapped: clear them once every 4 billion queries.
            self.seen.fill(0);
            self.closed.fill(0);
            self.query = 1;
        }
        self.open.clear();
        self.expanded = 0;
    }

    #[inline]
    fn relax(&mut self, node: u32, g: f64, h: f64, parent: u32) {
        let i = node as usize;
        if self.seen[i] == self.query {
            if self.closed[i] == self.query || g >= self.g[i] {
                return;
            }
        } else {
            self.seen[i] = self.query;
        }
        self.g[i] = g;
        self.parent[i] = parent;
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
        self.seen[s as usize] = self.query;
        self.g[s as usize] = 0.0;
        self.open.push(Open { f: octile(start, goal), g: 0.0, node: s });
        while let Some(Open { g, node, .. }) = self.open.pop() {
            let i = node as usize;
            if self.closed[i] == self.query || g > self.g[i] {
                continue; // a stale entry
            }
            self.closed[i] = self.query;
            if node == t {
                return Some((self.unwind(graph, start, goal, t), g));
            }
            self.expanded += 1;
            if node == s {
                for &v in &graph.leaf(start_leaf).gates {
                    let c = graph.gate(v).cell;
                    self.relax(v, octile(start, c), octile(c, goal), s);
                }
                continue;
            }
            let gate = graph.gate(node);
            let here = gate.cell;
            // Moving on inside the leaf pays only when the gate was entered by a crossing:
            // from a gate reached inside the leaf, its predecessor's direct octile edge is
            // never longer (triangle inequality), so those edges were already offered.
            let p = self.parent[i];
            let entered_by_crossing = p != s && graph.gate(p).leaf != gate.leaf;
            if entered_by_crossing {
                for &v in &graph.leaf(gate.leaf).gates {
                    if v != node {
                        let c = graph.gate(v).cell;
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
        let mut v = self.parent[t as usize];
        while v != t - 1 {
            out.push(graph.gate(v).cell);
            v = self.parent[v as usize];
        }
        out.push(start);
        out.reverse();
        out
    }
}
