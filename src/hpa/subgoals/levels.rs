//! The two-level subgoal graph: a sparser level of *global* subgoals that the search
//! crosses, with the *local* ones entered only from the start or towards the goal (after
//! Uras and Koenig's two-level subgoal graphs, built here as one round of contraction).
//!
//! # The structure
//! Subgoals are visited by growing degree. A subgoal `v` becomes local when none of its
//! neighbours in the subgoal graph is local already, and when for every pair `a, b` of its
//! current neighbours either a *witness* joins them without `v` in the graph left so far (a
//! direct edge or a path of two edges, no longer than `w(a, v) + w(v, b)`), or one of at
//! most [`MAX_SHORTCUTS`] *shortcuts* `a — b` of that weight, remembering `v` as its middle,
//! is added. Then `v` leaves the graph of the globals. Because no two locals are
//! neighbours, a local's edges are exactly its subgoal-graph edges, all to globals, and a
//! shortcut's two halves are subgoal-graph edges (its middle's).
//!
//! # Why it is exact
//! Removing `v` keeps every distance between the nodes left: a shortest path through `v`
//! enters and leaves it by two neighbours `a, b`, and the witness or the shortcut is as
//! short. By induction, the globals with their edges and shortcuts keep every distance
//! between globals. A query's shortest route over the subgoal graph, `s, g₁, …, g_k, t`
//! with direct-h-reachable hops, has locals only where both path neighbours are globals
//! (or the ends): between two globals, the part through a local is replaced by a path of
//! the globals as short. So a route as short exists whose locals are at most `g₁`, tied to
//! the start by its scan, and `g_k`, tied to the goal: the search enters a local only as a
//! start tie (and leaves it by its own edges, all to globals), and a global next to a local
//! the goal's scan reached is marked with the way through it. Landmark bounds stay
//! admissible and consistent: a shortcut weighs its two halves, at least the lattice
//! distance between its ends. `tests/suite/subgoal_props.rs` checks paths against Dijkstra
//! with the two levels on, and fails when shortcuts are left out.
//!
//! # Edits
//! An edit drops the two levels (the search goes on over the whole subgoal graph, exact as
//! before): a witness of a removed local may have lost an edge. A rebuild of the map, or
//! of its subgoal graph, brings them back.

use super::SubgoalGraph;
use crate::geom::Cell;
use crate::grid::movement::octile;

/// Shortcuts one local may cost: more would trade few expansions for many edges.
const MAX_SHORTCUTS: usize = 2;
/// The middle of an edge that is no shortcut.
pub(crate) const DIRECT: u32 = u32::MAX;
/// What two path lengths may differ by and still count as equal: distinct octile sums
/// on maps below 2^16 cells a side differ by far more.
const TIE: f64 = 1e-7;

/// An edge of the global level: its far end and, for a shortcut, its middle subgoal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arc {
    pub to: u32,
    pub via: u32,
}

/// The two levels of a subgoal graph (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Levels {
    /// One bit per subgoal ID: whether it is local.
    local: Vec<u64>,
    /// `arcs[offsets[id]..offsets[id + 1]]`: the global level's edges of global `id`.
    offsets: Vec<u32>,
    arcs: Vec<Arc>,
}

impl Levels {
    /// Splits `graph`'s subgoals into locals and globals and builds the global level.
    pub fn build(graph: &SubgoalGraph) -> Self {
        let n = graph.capacity();
        let weight = |a: u32, b: u32| octile(graph.cell(a), graph.cell(b));
        // The graph left so far: (neighbour, middle) per subgoal.
        let mut adj: Vec<Vec<Arc>> = (0..n as u32)
            .map(|id| {
                if !graph.is_live(id) {
                    return Vec::new();
                }
                graph
                    .neighbours(id)
                    .iter()
                    .map(|&to| Arc { to, via: DIRECT })
                    .collect()
            })
            .collect();
        let arc_weight = |a: u32, arc: &Arc| match arc.via {
            DIRECT => weight(a, arc.to),
            v => weight(a, v) + weight(v, arc.to),
        };
        let mut local = vec![false; n];
        let mut beside_local = vec![false; n];
        let mut order: Vec<u32> = (0..n as u32).filter(|&id| graph.is_live(id)).collect();
        order.sort_by_key(|&id| graph.neighbours(id).len());
        let mut reach = vec![f64::INFINITY; n];
        let mut shortcuts: Vec<(u32, u32, u32)> = Vec::new();
        for v in order {
            if beside_local[v as usize] {
                continue;
            }
            shortcuts.clear();
            let around = &adj[v as usize];
            'pairs: for (i, x) in around.iter().enumerate() {
                let a = x.to;
                let wa = weight(a, v);
                for arc in &adj[a as usize] {
                    if arc.to != v {
                        let r = &mut reach[arc.to as usize];
                        *r = r.min(arc_weight(a, arc));
                    }
                }
                for y in &around[i + 1..] {
                    let b = y.to;
                    let need = wa + weight(v, b) + TIE;
                    let witnessed = reach[b as usize] <= need
                        || adj[b as usize].iter().any(|arc| {
                            arc.to != v && reach[arc.to as usize] + arc_weight(b, arc) <= need
                        });
                    if !witnessed {
                        shortcuts.push((a, b, v));
                        if shortcuts.len() > MAX_SHORTCUTS {
                            break;
                        }
                    }
                }
                for arc in &adj[a as usize] {
                    reach[arc.to as usize] = f64::INFINITY;
                }
                if shortcuts.len() > MAX_SHORTCUTS {
                    break 'pairs;
                }
            }
            if shortcuts.len() > MAX_SHORTCUTS {
                continue;
            }
            local[v as usize] = true;
            for x in std::mem::take(&mut adj[v as usize]) {
                beside_local[x.to as usize] = true;
                adj[x.to as usize].retain(|arc| arc.to != v);
            }
            for &(a, b, via) in &shortcuts {
                let w = weight(a, via) + weight(via, b);
                for (p, q) in [(a, b), (b, a)] {
                    match adj[p as usize].iter().position(|arc| arc.to == q) {
                        Some(k) if arc_weight(p, &adj[p as usize][k]) > w => {
                            adj[p as usize][k].via = via;
                        }
                        Some(_) => {}
                        None => adj[p as usize].push(Arc { to: q, via }),
                    }
                }
            }
        }
        let mut levels = Levels {
            local: vec![0; n.div_ceil(64)],
            offsets: Vec::with_capacity(n + 1),
            arcs: Vec::new(),
        };
        levels.offsets.push(0);
        if std::env::var("QP_LEVELS_DEBUG").is_ok() {
            let locals = local.iter().filter(|&&l| l).count();
            let arcs: usize = adj.iter().map(Vec::len).sum();
            let short: usize = adj.iter().flatten().filter(|a| a.via != DIRECT).count();
            eprintln!("levels: {} subgoals, {locals} local, {} global edges ({} shortcuts), {} subgoal edges", graph.len(), arcs / 2, short / 2, graph.edge_count());
        }
        for (id, list) in adj.iter().enumerate() {
            if local[id] {
                levels.local[id / 64] |= 1 << (id % 64);
            }
            levels.arcs.extend_from_slice(list);
            levels.offsets.push(levels.arcs.len() as u32);
        }
        levels
    }

    /// Whether subgoal `id` is local.
    #[inline]
    pub fn is_local(&self, id: u32) -> bool {
        self.local[id as usize / 64] >> (id % 64) & 1 == 1
    }

    /// The global level's edges of global `id` (none for a local).
    #[inline]
    pub fn arcs(&self, id: u32) -> &[Arc] {
        &self.arcs[self.offsets[id as usize] as usize..self.offsets[id as usize + 1] as usize]
    }

    /// The middle of the global level's edge from `a` to `b` ([`DIRECT`] for a subgoal
    /// graph edge, or when `a` is local).
    pub fn via(&self, a: u32, b: u32) -> u32 {
        self.arcs(a)
            .iter()
            .find(|arc| arc.to == b)
            .map_or(DIRECT, |arc| arc.via)
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.local.capacity() * 8 + self.offsets.capacity() * 4 + self.arcs.capacity() * 8
    }

    /// The weight of `arc` from `a` over `graph`'s cells.
    #[inline]
    pub fn weight(graph: &SubgoalGraph, here: Cell, arc: Arc) -> f64 {
        match arc.via {
            DIRECT => octile(here, graph.cell(arc.to)),
            v => {
                let mid = graph.cell(v);
                octile(here, mid) + octile(mid, graph.cell(arc.to))
            }
        }
    }
}
