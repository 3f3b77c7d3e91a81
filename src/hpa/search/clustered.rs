//! The clustered search (fast mode): A\* over cluster entrances, the start and the goal
//! tied to the entrances of their clusters, stale clusters crossed over their gates.

use super::{gate, node, Bound, Ends, SearchContext, Target, CROSSED};
use crate::geom::Cell;
use crate::grid::movement::octile;
use crate::hpa::clusters::{Cluster, ClusterId, Clusters, Routes, FROM_ORIGIN, NO_PRED};
use crate::hpa::costs::CostBands;
use crate::hpa::graph::{GateGraph, GateId, LeafId};
use crate::hpa::landmarks::Landmarks;
use crate::hpa::trace::{Recorder, Traced, Untraced};

impl SearchContext {
    /// The clustered search: A\* over cluster entrances, with the start and the goal tied
    /// to the entrances of their clusters. Returns waypoints that
    /// [`crate::hpa::path::refine`] can join with straight lines.
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
