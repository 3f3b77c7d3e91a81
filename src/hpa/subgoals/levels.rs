//! A contraction hierarchy over the subgoal graph (Geisberger, Sanders, Schultes and
//! Delling, "Contraction Hierarchies", WEA 2008; over subgoals as in Uras and Koenig's
//! SG-CH): every subgoal gets a rank, and the query runs a bidirectional Dijkstra that
//! only climbs, from the start's cone-scan ties and from the goal's.
//!
//! # The structure
//! Subgoals are *contracted* one at a time, by lowest priority first: `2 · (shortcuts −
//! edges) + contracted neighbours + level`, where `shortcuts − edges` is the edge
//! difference contracting it now would make (estimated with small witness searches),
//! `contracted neighbours` spreads the contractions over the map and `level` (one more
//! than the highest level of a contracted neighbour) keeps the hierarchy shallow.
//! Priorities are updated lazily: a popped subgoal whose fresh priority exceeds the next
//! one in the queue goes back. Contracting `v` removes it from the graph left so far; for
//! every pair `a, b` of its neighbours there, a *witness search* (Dijkstra from `a` in that
//! graph without `v`, bounded by `w(a, v) + w(v, b)` and by [`WITNESS_SETTLED`] settled
//! subgoals) looks for a path no longer than the one through `v`; where none is found,
//! a *shortcut* `a — b` of that weight, remembering `v` as its middle, is added. The edges
//! `v` had at that moment become its *upward arcs*: all lead to subgoals contracted later.
//! A subgoal whose shortcut would not fit the compact weight (more than 65535 straight or
//! diagonal steps) stays uncontracted, in the *core*, whose arcs are its edges to the other
//! core subgoals (on the maps measured the core is empty).
//!
//! Arcs are stored in one CSR array, 8 bytes each (the far end, the counts of straight and
//! diagonal steps of the path it stands for, so that weights add exactly), with the
//! middles of shortcuts in a parallel array of 4 bytes each.
//!
//! # Why it is exact
//! Contracting `v` keeps every distance between the subgoals left: a shortest path
//! through `v` enters and leaves it by two neighbours `a, b`, and the witness found or the
//! shortcut added is as short (a witness search that gives up early only adds a shortcut
//! that is not needed). So between any two subgoals there is a shortest path that climbs
//! over upward arcs, crosses the core over core arcs, and descends over upward arcs taken
//! backwards: in a shortest path, replace again and again its inner subgoal of lowest rank
//! that lies below both its path neighbours by its witness or its shortcut (when it was
//! contracted both neighbours were still in the graph, so they were its neighbours
//! then); each step removes a low inner subgoal or replaces it by higher ones, so it ends.
//! A query's shortest route over the subgoal graph, `s, g₁, …, g_k, t`, ties `g₁` to the
//! start and `g_k` to the goal (their cone scans reach exactly the subgoals directly
//! h-reachable from them, see `subgoals/mod.rs`), so with `g₁ … g_k` replaced as above the
//! forward search from the start's ties over arcs and the backward search from the goal's
//! ties over arcs both reach the route's highest subgoal (or any of its core subgoals) at
//! its true distances. Both are Dijkstra searches, each settles that subgoal before its
//! queue's minimum passes the optimum, and whichever settles it second sees the other's
//! label; so once both minima reach the best meeting value `μ`, `μ` is optimal (see
//! `search_subgoals` in `hpa/search.rs`). `tests/suite/subgoal_props.rs` checks paths
//! against Dijkstra with the hierarchy on, and fails when shortcuts are left out.
//!
//! # Edits
//! An edit drops the hierarchy (the search goes on over the whole subgoal graph with A\*
//! and landmarks, exact as before): a witness may have lost an edge. [`Contraction`] builds
//! it again in bounded slices (see `HpaMap::refresh_within`), restarted by any edit
//! during the rebuild; the result equals a fresh build's, since the contraction reads only
//! the subgoal graph, which equals a fresh build's after any edits.

use super::SubgoalGraph;
use crate::geom::Cell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::f64::consts::SQRT_2;
use std::time::Instant;

/// The middle of an arc that is no shortcut.
pub(crate) const DIRECT: u32 = u32::MAX;
/// What two path lengths may differ by and still count as equal: distinct octile sums
/// on maps below 2^16 cells a side differ by far more.
const TIE: f64 = 1e-7;
/// Subgoals a witness search settles before it gives up (and a shortcut is added).
/// Measured on Aftershock and den520d (subgoals bench, shared machine): see the commit.
const WITNESS_SETTLED: usize = 64;
/// Subgoals a witness search settles when it only estimates a priority.
const ESTIMATE_SETTLED: usize = 16;
/// Contractions between two looks at the clock in a sliced build.
const CLOCK_EVERY: usize = 16;

/// A path's length as its counts of straight and diagonal steps, which add exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Steps {
    straight: u32,
    diagonal: u32,
}

impl Steps {
    /// The octile path between two cells.
    fn between(a: Cell, b: Cell) -> Self {
        let (dx, dy) = (a.x.abs_diff(b.x), a.y.abs_diff(b.y));
        Steps {
            straight: dx.max(dy) - dx.min(dy),
            diagonal: dx.min(dy),
        }
    }

    fn plus(self, other: Steps) -> Steps {
        Steps {
            straight: self.straight + other.straight,
            diagonal: self.diagonal + other.diagonal,
        }
    }

    fn fits(self) -> bool {
        self.straight <= u16::MAX as u32 && self.diagonal <= u16::MAX as u32
    }

    fn length(self) -> f64 {
        self.straight as f64 + self.diagonal as f64 * SQRT_2
    }
}

/// An edge of the graph left during the contraction.
#[derive(Clone, Copy, Debug)]
struct Edge {
    to: u32,
    steps: Steps,
    length: f64,
    /// The contracted subgoal a shortcut passes, or [`DIRECT`].
    via: u32,
}

/// An arc of the hierarchy: its far end and its weight as step counts (8 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arc {
    pub to: u32,
    straight: u16,
    diagonal: u16,
}

impl Arc {
    /// The arc's weight in cells.
    #[inline]
    pub fn length(self) -> f64 {
        self.straight as f64 + self.diagonal as f64 * SQRT_2
    }
}

/// The contraction hierarchy of a subgoal graph (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Levels {
    /// `arcs[offsets[id]..offsets[id + 1]]`: the upward arcs of subgoal `id` (its core
    /// edges when it is in the core).
    offsets: Vec<u32>,
    arcs: Vec<Arc>,
    /// Per arc, the middle subgoal of a shortcut or [`DIRECT`].
    middles: Vec<u32>,
    /// Subgoals left uncontracted.
    core: usize,
}

impl Levels {
    /// Contracts all of `graph`'s subgoals (see the module docs).
    pub fn build(graph: &SubgoalGraph) -> Self {
        let mut contraction = Contraction::new(graph);
        let done = contraction.run(None);
        debug_assert!(done, "an unlimited contraction finishes");
        contraction.finish()
    }

    /// The upward arcs of subgoal `id` (its core edges when it is in the core).
    #[inline]
    pub fn arcs(&self, id: u32) -> &[Arc] {
        &self.arcs[self.offsets[id as usize] as usize..self.offsets[id as usize + 1] as usize]
    }

    /// Number of arcs.
    pub fn arc_count(&self) -> usize {
        self.arcs.len()
    }

    /// Number of subgoals left in the core.
    pub fn core_len(&self) -> usize {
        self.core
    }

    /// The middle of the arc between `a` and `b`, stored at the lower end.
    fn middle(&self, a: u32, b: u32) -> u32 {
        let find = |from: u32, to: u32| {
            let start = self.offsets[from as usize] as usize;
            self.arcs(from)
                .iter()
                .position(|arc| arc.to == to)
                .map(|i| self.middles[start + i])
        };
        find(a, b)
            .or_else(|| find(b, a))
            .expect("an arc of the route is in the hierarchy")
    }

    /// The subgoal-graph hops that the arc between `a` and `b` stands for, appended to
    /// `out` after `a`: the inner subgoals, then `b`.
    pub fn unpack(&self, a: u32, b: u32, out: &mut Vec<u32>) {
        let via = self.middle(a, b);
        if via == DIRECT {
            out.push(b);
        } else {
            self.unpack(a, via, out);
            self.unpack(via, b, out);
        }
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.offsets.capacity() * 4
            + self.arcs.capacity() * std::mem::size_of::<Arc>()
            + self.middles.capacity() * 4
    }
}

/// A contraction under way, which [`Contraction::run`] carries on in slices.
#[derive(Clone, Debug)]
pub(crate) struct Contraction {
    /// The graph left so far.
    adjacent: Vec<Vec<Edge>>,
    /// The upward edges of each contracted subgoal.
    up: Vec<Vec<Edge>>,
    contracted: Vec<bool>,
    /// Per subgoal: contracted neighbours, and its level.
    deleted: Vec<u32>,
    level: Vec<u32>,
    /// Subgoals by priority (lazy: checked again when popped).
    queue: BinaryHeap<Reverse<(i64, u32)>>,
    /// The next subgoal whose first priority is to be queued.
    queued: u32,
    witness: Witness,
}

impl Contraction {
    /// A contraction of `graph`'s subgoals that has not begun.
    pub fn new(graph: &SubgoalGraph) -> Self {
        let n = graph.capacity();
        let adjacent = (0..n as u32)
            .map(|id| {
                if !graph.is_live(id) {
                    return Vec::new();
                }
                let here = graph.cell(id);
                graph
                    .neighbours(id)
                    .iter()
                    .map(|&to| {
                        let steps = Steps::between(here, graph.cell(to));
                        Edge {
                            to,
                            steps,
                            length: steps.length(),
                            via: DIRECT,
                        }
                    })
                    .collect()
            })
            .collect();
        Contraction {
            adjacent,
            up: vec![Vec::new(); n],
            // Vacant IDs count as contracted: they have no edges and get no arcs.
            contracted: (0..n as u32).map(|id| !graph.is_live(id)).collect(),
            deleted: vec![0; n],
            level: vec![0; n],
            queue: BinaryHeap::new(),
            queued: 0,
            witness: Witness::new(n),
        }
    }

    /// Carries the contraction on until it is done (then `true`) or `deadline` passes.
    pub fn run(&mut self, deadline: Option<Instant>) -> bool {
        let n = self.adjacent.len() as u32;
        let mut work = 0usize;
        let out_of_time =
            |work: usize| work % CLOCK_EVERY == 0 && deadline.is_some_and(|d| Instant::now() >= d);
        while self.queued < n {
            let v = self.queued;
            self.queued += 1;
            if !self.contracted[v as usize] {
                let p = self.priority(v);
                self.queue.push(Reverse((p, v)));
            }
            work += 1;
            if out_of_time(work) {
                return false;
            }
        }
        while let Some(Reverse((_, v))) = self.queue.pop() {
            if self.contracted[v as usize] {
                continue;
            }
            let now = self.priority(v);
            if self
                .queue
                .peek()
                .is_some_and(|&Reverse((next, _))| now > next)
            {
                self.queue.push(Reverse((now, v)));
                continue;
            }
            self.contract(v);
            work += 1;
            if out_of_time(work) {
                return false;
            }
        }
        true
    }

    /// The hierarchy of a finished contraction.
    pub fn finish(self) -> Levels {
        let n = self.adjacent.len();
        let mut levels = Levels {
            offsets: Vec::with_capacity(n + 1),
            ..Levels::default()
        };
        levels.offsets.push(0);
        for id in 0..n {
            // A core subgoal keeps its edges in the graph left.
            let edges = if self.up[id].is_empty() {
                levels.core += usize::from(!self.adjacent[id].is_empty());
                &self.adjacent[id]
            } else {
                &self.up[id]
            };
            for e in edges {
                levels.arcs.push(Arc {
                    to: e.to,
                    straight: e.steps.straight as u16,
                    diagonal: e.steps.diagonal as u16,
                });
                levels.middles.push(e.via);
            }
            levels.offsets.push(levels.arcs.len() as u32);
        }
        levels
    }

    /// The priority of contracting `v` now (see the module docs).
    fn priority(&mut self, v: u32) -> i64 {
        let shortcuts = self.shortcuts(v, ESTIMATE_SETTLED).len() as i64;
        let edges = self.adjacent[v as usize].len() as i64;
        2 * (shortcuts - edges) + self.deleted[v as usize] as i64 + self.level[v as usize] as i64
    }

    /// The shortcuts contracting `v` needs: the neighbour pairs for which a witness
    /// search settling at most `settled` subgoals finds no path as short as through `v`.
    fn shortcuts(&mut self, v: u32, settled: usize) -> Vec<(u32, u32, Steps)> {
        let mut out = Vec::new();
        let around = &self.adjacent[v as usize];
        for (i, a) in around.iter().enumerate() {
            let rest = &around[i + 1..];
            let Some(limit) = rest.iter().map(|b| a.length + b.length).reduce(f64::max) else {
                break;
            };
            self.witness
                .search(&self.adjacent, a.to, v, limit + TIE, settled);
            for b in rest {
                if self.witness.distance(b.to) > a.length + b.length + TIE {
                    out.push((a.to, b.to, a.steps.plus(b.steps)));
                }
            }
        }
        out
    }

    /// Contracts `v`, unless a shortcut it needs would not fit an arc (then it stays in
    /// the core).
    fn contract(&mut self, v: u32) {
        let shortcuts = self.shortcuts(v, WITNESS_SETTLED);
        if shortcuts.iter().any(|s| !s.2.fits()) {
            return;
        }
        self.contracted[v as usize] = true;
        let edges = std::mem::take(&mut self.adjacent[v as usize]);
        let above = self.level[v as usize] + 1;
        for e in &edges {
            let u = e.to as usize;
            self.adjacent[u].retain(|x| x.to != v);
            self.deleted[u] += 1;
            self.level[u] = self.level[u].max(above);
        }
        self.up[v as usize] = edges;
        for &(a, b, steps) in &shortcuts {
            let length = steps.length();
            for (p, q) in [(a, b), (b, a)] {
                let edge = Edge {
                    to: q,
                    steps,
                    length,
                    via: v,
                };
                match self.adjacent[p as usize].iter_mut().find(|x| x.to == q) {
                    Some(old) if old.length > length => *old = edge,
                    Some(_) => {}
                    None => self.adjacent[p as usize].push(edge),
                }
            }
        }
    }
}

/// The bounded Dijkstra searches that look for witnesses, with their tables kept.
#[derive(Clone, Debug)]
struct Witness {
    distance: Vec<f64>,
    reached: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

impl Witness {
    fn new(n: usize) -> Self {
        Witness {
            distance: vec![f64::INFINITY; n],
            reached: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// The distance the last search found to `id` (infinite when it did not reach it).
    fn distance(&self, id: u32) -> f64 {
        self.distance[id as usize]
    }

    /// Dijkstra from `from` over `adjacent` without `avoid`, up to distance `limit` and
    /// `settled` settled subgoals.
    fn search(
        &mut self,
        adjacent: &[Vec<Edge>],
        from: u32,
        avoid: u32,
        limit: f64,
        settled: usize,
    ) {
        for &id in &self.reached {
            self.distance[id as usize] = f64::INFINITY;
        }
        self.reached.clear();
        self.heap.clear();
        self.distance[from as usize] = 0.0;
        self.reached.push(from);
        self.heap.push(Reverse((0f64.to_bits(), from)));
        let mut count = 0;
        while let Some(Reverse((bits, u))) = self.heap.pop() {
            let d = f64::from_bits(bits);
            if d > self.distance[u as usize] {
                continue;
            }
            count += 1;
            if count > settled {
                break;
            }
            for e in &adjacent[u as usize] {
                let dv = d + e.length;
                if e.to == avoid || dv > limit {
                    continue;
                }
                let old = &mut self.distance[e.to as usize];
                if dv < *old {
                    if old.is_infinite() {
                        self.reached.push(e.to);
                    }
                    *old = dv;
                    self.heap.push(Reverse((dv.to_bits(), e.to)));
                }
            }
        }
    }
}
