//! The A\* over the gate graph (exact mode): whole ([`SearchContext::search`]),
//! certifying that no route is cheaper than a limit ([`SearchContext::certify`]), or
//! opened and carried on in slices ([`SearchContext::open_search`],
//! [`SearchContext::step_search`]), and the route it found written out as waypoints.

use super::{gate, node, Bound, Ends, OpenSearch, SearchContext, Stepped, Target, CROSSED};
use crate::geom::Cell;
use crate::hpa::costs::CostBands;
use crate::hpa::graph::GateGraph;
use crate::hpa::landmarks::Landmarks;
use crate::hpa::trace::{Recorder, Traced, Untraced};

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

impl SearchContext {
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
    pub(super) fn search_as<R: Recorder>(
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
