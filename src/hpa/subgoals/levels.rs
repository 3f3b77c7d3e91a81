//! Levels of the subgoal graph: most subgoals are *contracted* (made local), in order,
//! each replaced by shortcuts between its neighbours where no other path is as short; the
//! rest, the *globals*, keep the graph the search crosses. The search enters locals only
//! upwards, from the start and (backwards) from the goal (after Uras and Koenig's
//! two-level and N-level subgoal graphs, built here as contraction in a single pass).
//!
//! # The structure
//! Subgoals are visited by growing degree. Subgoal `v` is contracted when for every pair
//! `a, b` of its current neighbours (the subgoals not contracted yet joined to it) either a
//! *witness* joins them without `v` (a direct edge or a path of two edges in the graph left
//! so far, no longer than `w(a, v) + w(v, b)`), or one of at most [`MAX_SHORTCUTS`]
//! *shortcuts* `a — b` of that weight, remembering `v` as its middle, is added, and when
//! its level (one more than the highest level of the contracted subgoals it was joined
//! to) stays at most [`MAX_LEVEL`]. A contracted subgoal keeps its edges of that moment
//! as its *upward* edges: all to subgoals contracted later, or globals.
//!
//! # Why it is exact
//! Contracting `v` keeps every distance between the subgoals left: a shortest path
//! through `v` enters and leaves it by two neighbours `a, b`, and the witness or the
//! shortcut is as short. So (as in contraction hierarchies) between any two subgoals there
//! is a shortest path that climbs from the first over upward edges, crosses globals over
//! their edges, and descends over upward edges taken backwards: take a shortest path and
//! replace, again and again, its first-contracted inner subgoal by that subgoal's witness
//! or shortcut; every step removes an inner subgoal contracted before all the others,
//! until none lies below both its path neighbours. A query's shortest route over the
//! subgoal graph, `s, g₁, …, g_k, t`, ties `g₁` to the start and `g_k` to the goal, so the
//! search from the start ties over upward and global edges meets the marks that a small
//! search from the goal ties over upward edges leaves (see `search_subgoals`). Landmark
//! bounds stay admissible and consistent: a shortcut weighs the path it stands for, at
//! least the lattice distance between its ends. `tests/suite/subgoal_props.rs` checks paths
//! against Dijkstra with the levels on, and fails when shortcuts are left out.
//!
//! # Edits
//! An edit drops the levels (the search goes on over the whole subgoal graph, exact as
//! before): a witness may have lost an edge. A rebuild of the map brings them back.

use super::SubgoalGraph;
use crate::grid::movement::octile;

/// Shortcuts one contraction may add: more would trade few expansions for many edges.
/// Measured with [`MAX_LEVEL`] (subgoals bench, shared machine): 2–8 with levels 3–6 give
/// the same times within noise; 32 with 12 and 100 with 30 contract 64–76 % of the
/// subgoals but the upward edges double and queries slow down 10–50 %.
const MAX_SHORTCUTS: usize = 4;
/// The highest level a contracted subgoal may have: it bounds the upward searches.
const MAX_LEVEL: u8 = 6;
/// The middle of an edge that is no shortcut.
pub(crate) const DIRECT: u32 = u32::MAX;
/// What two path lengths may differ by and still count as equal: distinct octile sums
/// on maps below 2^16 cells a side differ by far more.
const TIE: f64 = 1e-7;

/// An edge of the levels: its far end, its weight in cells and, for a shortcut, its
/// middle subgoal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Arc {
    pub to: u32,
    pub via: u32,
    pub weight: f64,
}

/// The levels of a subgoal graph (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Levels {
    /// One bit per subgoal ID: whether it is contracted (local).
    local: Vec<u64>,
    /// `arcs[offsets[id]..offsets[id + 1]]`: the upward edges of local `id`, the edges of
    /// global `id` to other globals.
    offsets: Vec<u32>,
    arcs: Vec<Arc>,
}

impl Levels {
    /// Contracts `graph`'s subgoals (see the module docs).
    pub fn build(graph: &SubgoalGraph) -> Self {
        let n = graph.capacity();
        // The graph left so far.
        let mut adj: Vec<Vec<Arc>> = (0..n as u32)
            .map(|id| {
                if !graph.is_live(id) {
                    return Vec::new();
                }
                let here = graph.cell(id);
                graph
                    .neighbours(id)
                    .iter()
                    .map(|&to| Arc {
                        to,
                        via: DIRECT,
                        weight: octile(here, graph.cell(to)),
                    })
                    .collect()
            })
            .collect();
        let mut up: Vec<Vec<Arc>> = vec![Vec::new(); n];
        let mut local = vec![false; n];
        let mut level = vec![0u8; n];
        let mut order: Vec<u32> = (0..n as u32).filter(|&id| graph.is_live(id)).collect();
        order.sort_by_key(|&id| graph.neighbours(id).len());
        let mut reach = vec![f64::INFINITY; n];
        let mut shortcuts: Vec<(u32, u32, f64)> = Vec::new();
        for v in order {
            if level[v as usize] >= MAX_LEVEL {
                continue;
            }
            shortcuts.clear();
            let around = &adj[v as usize];
            for (i, x) in around.iter().enumerate() {
                let a = x.to;
                for arc in &adj[a as usize] {
                    if arc.to != v {
                        let r = &mut reach[arc.to as usize];
                        *r = r.min(arc.weight);
                    }
                }
                for y in &around[i + 1..] {
                    let b = y.to;
                    let need = x.weight + y.weight;
                    let witnessed = reach[b as usize] <= need + TIE
                        || adj[b as usize].iter().any(|arc| {
                            arc.to != v && reach[arc.to as usize] + arc.weight <= need + TIE
                        });
                    if !witnessed {
                        shortcuts.push((a, b, need));
                        if shortcuts.len() > MAX_SHORTCUTS {
                            break;
                        }
                    }
                }
                for arc in &adj[a as usize] {
                    reach[arc.to as usize] = f64::INFINITY;
                }
                if shortcuts.len() > MAX_SHORTCUTS {
                    break;
                }
            }
            if shortcuts.len() > MAX_SHORTCUTS {
                continue;
            }
            local[v as usize] = true;
            let edges = std::mem::take(&mut adj[v as usize]);
            let above = level[v as usize] + 1;
            for x in &edges {
                let l = &mut level[x.to as usize];
                *l = (*l).max(above);
                adj[x.to as usize].retain(|arc| arc.to != v);
            }
            up[v as usize] = edges;
            for &(a, b, weight) in &shortcuts {
                for (p, q) in [(a, b), (b, a)] {
                    let arc = Arc {
                        to: q,
                        via: v,
                        weight,
                    };
                    match adj[p as usize].iter_mut().find(|arc| arc.to == q) {
                        Some(old) if old.weight > weight => *old = arc,
                        Some(_) => {}
                        None => adj[p as usize].push(arc),
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
        for id in 0..n {
            if local[id] {
                levels.local[id / 64] |= 1 << (id % 64);
                levels.arcs.extend_from_slice(&up[id]);
            } else {
                levels.arcs.extend_from_slice(&adj[id]);
            }
            levels.offsets.push(levels.arcs.len() as u32);
        }
        levels
    }

    /// Whether subgoal `id` is local (contracted).
    #[inline]
    pub fn is_local(&self, id: u32) -> bool {
        self.local[id as usize / 64] >> (id % 64) & 1 == 1
    }

    /// The upward edges of local `id`, or the edges of global `id` to other globals.
    #[inline]
    pub fn arcs(&self, id: u32) -> &[Arc] {
        &self.arcs[self.offsets[id as usize] as usize..self.offsets[id as usize + 1] as usize]
    }

    /// The subgoal-graph hops that the edge of the levels between `a` and `b` stands for,
    /// appended to `out` after `a`: the inner subgoals, then `b`.
    pub fn unpack(&self, a: u32, b: u32, out: &mut Vec<u32>) {
        let via = self
            .arcs(a)
            .iter()
            .find(|arc| arc.to == b)
            .or_else(|| self.arcs(b).iter().find(|arc| arc.to == a))
            .map_or(DIRECT, |arc| arc.via);
        if via == DIRECT {
            out.push(b);
        } else {
            self.unpack(a, via, out);
            self.unpack(via, b, out);
        }
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.local.capacity() * 8 + self.offsets.capacity() * 4 + self.arcs.capacity() * 16
    }
}
