//! The searches behind a flow field: a backward Dijkstra over the gate graph, the sweep
//! that carries gate distances into one leaf, and the cell-level Dijkstra for maps whose
//! gates are sparse.

use crate::geom::{Cell, Direction, Rect};
use crate::grid::movement::{octile, DIAGONAL_COST, STRAIGHT_COST};
use crate::grid::{Grid, TerrainCosts};
use crate::hpa::{GateGraph, GateId, LeafId, OpenList, SlotId};

/// Distance of a position the goal cannot be reached from.
pub(super) const UNREACHED: f64 = f64::INFINITY;

/// The octile distance from `c` to the nearest cell of `r`.
pub(super) fn octile_to_rect(c: Cell, r: Rect) -> f64 {
    octile(c, Cell::new(c.x.clamp(r.x1, r.x2), c.y.clamp(r.y1, r.y2)))
}

/// The backward Dijkstra over the gate graph behind an exact field, run a slice at a time:
/// every gate's distance to `goal` (its cost, under the map's terrain costs), whose open
/// part lies in the free leaves `goal_leaves`; indexed by gate slot, [`UNREACHED`] for gates
/// in other components and free slots, and upper bounds for gates not yet settled.
#[derive(Debug)]
pub(super) struct GateDijkstra {
    pub dist: Vec<f64>,
    /// Per gate: settled, whether its distance came over a crossing, whether it is a
    /// target. Only gates reached over a crossing need to offer their leaf-mates anything:
    /// a gate reached from a leaf-mate `u` is never a better way into the rest of the leaf
    /// than `u` itself (triangle inequality), and `u` offered them all. One byte a gate
    /// keeps the flags of a large map in cache.
    pub state: Vec<u8>,
    open: OpenList,
    /// Target gates not settled yet (see [`GateDijkstra::target`]).
    targets_left: usize,
    bounded: bool,
    /// The goal and its free leaves, until the search is seeded (`dist` filled first).
    seed: Option<(Rect, Vec<LeafId>)>,
}

impl GateDijkstra {
    /// A search from `goal`, whose open part lies in `goal_leaves`. Nothing is done yet:
    /// the first steps fill the distance array (a few megabytes on a large map), a slice
    /// at a time, then seed the search.
    pub(super) fn new(graph: &GateGraph, goal: Rect, goal_leaves: Vec<LeafId>) -> Self {
        let n = graph.gate_capacity();
        GateDijkstra {
            dist: Vec::with_capacity(n),
            state: vec![0u8; n],
            open: OpenList::default(),
            targets_left: 0,
            bounded: false,
            seed: Some((goal, goal_leaves)),
        }
    }

    /// Fills a slice of the distance array worth `max` units; seeds the search once it is
    /// full. Returns the units spent.
    fn prepare(&mut self, graph: &GateGraph, max: usize) -> usize {
        let spent = fill(&mut self.dist, self.state.len(), max);
        if self.dist.len() < self.state.len() {
            return spent;
        }
        let (goal, goal_leaves) = self.seed.take().expect("not seeded yet");
        // Every gate of a leaf holding part of the goal starts at its straight distance to
        // that part. Leaf-mates need not offer each other anything on top: the distance to
        // a rectangle grows by at most the step between two cells.
        let search = self;
        for &leaf in &goal_leaves {
            let l = graph.leaf(leaf);
            let part = (graph.rect_of(l))
                .intersection(&goal)
                .expect("the leaf overlaps the goal");
            for (&g, &c) in graph.gates_of(l).iter().zip(graph.cells_of(l)) {
                let d = octile_to_rect(c, part) * l.cost;
                if d < search.dist[g.index()] {
                    search.dist[g.index()] = d;
                    search.open.push(d, g.index() as u32);
                }
            }
        }
        spent
    }

    /// Bounds the search: it may stop once every gate of `leaf` is settled (for every leaf
    /// so marked). Must be called before the first step.
    pub(super) fn target(&mut self, graph: &GateGraph, leaf: LeafId) {
        self.bounded = true;
        for &g in graph.gates_of(graph.leaf(leaf)) {
            let s = &mut self.state[g.index()];
            if *s & TARGET == 0 {
                *s |= TARGET;
                self.targets_left += 1;
            }
        }
    }

    /// Whether the search is over: nothing left to settle, or every target settled.
    pub(super) fn is_finished(&self) -> bool {
        self.seed.is_none() && (self.bounded && self.targets_left == 0 || self.open.is_empty())
    }

    /// Settles up to `max` gates (at least one pop; or prepares the search, see
    /// [`GateDijkstra::new`]); returns the gates popped (the units spent).
    pub(super) fn step(&mut self, graph: &GateGraph, max: usize) -> usize {
        if self.seed.is_some() {
            return self.prepare(graph, max);
        }
        let mut popped = 0;
        while popped < max.max(1) && !(self.bounded && self.targets_left == 0) {
            let Some(node) = self.open.pop() else { break };
            popped += 1;
            let i = node as usize;
            if self.state[i] & SETTLED != 0 {
                continue; // an entry superseded by a shorter one
            }
            self.state[i] |= SETTLED;
            if self.state[i] & TARGET != 0 {
                self.targets_left -= 1;
            }
            self.relax(graph, i);
        }
        popped
    }

    /// Offers settled gate `i`'s distance to its neighbours.
    fn relax(&mut self, graph: &GateGraph, i: usize) {
        let (dist, state, open) = (&mut self.dist, &mut self.state, &mut self.open);
        let d = dist[i];
        let gate = graph.gate(GateId::from_index(i));
        let relax_leaf = state[i] & CROSSED != 0;
        // Settled gates are skipped before their cells are read: the records of gates
        // behind the wavefront are the cache misses this loop is made of.
        let mut offer = |v: usize, step: &dyn Fn() -> f64, crossing: u8| {
            if state[v] & SETTLED != 0 {
                return;
            }
            let nd = d + step();
            if nd < dist[v] {
                dist[v] = nd;
                state[v] = (state[v] & TARGET) | crossing;
                open.push(nd, v as u32);
            }
        };
        if relax_leaf {
            let l = graph.leaf(gate.leaf);
            for (&v, &c) in graph.gates_of(l).iter().zip(graph.cells_of(l)) {
                offer(v.index(), &|| octile(gate.cell, c) * l.cost, 0);
            }
        }
        for &v in graph.links_of(gate) {
            offer(
                v.index(),
                &|| graph.crossing_cost(gate, graph.gate(v)),
                CROSSED,
            );
        }
    }

    /// Whether the open list is empty: the search ran to its end (not stopped at a bound).
    pub(super) fn open_is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

/// Whether every gate of `leaf` is settled in `state` (a [`GateDijkstra`]'s flags): the
/// distances of the leaf's positions are then exact.
pub(super) fn gates_settled(graph: &GateGraph, leaf: LeafId, state: &[u8]) -> bool {
    graph
        .gates_of(graph.leaf(leaf))
        .iter()
        .all(|g| settled(state, g.index()))
}

/// Whether node `i` is settled in a search's flags `state`.
pub(super) fn settled(state: &[u8], i: usize) -> bool {
    state[i] & SETTLED != 0
}

/// Entries of a large array filled (and its memory first touched) per unit of work: about
/// the time of one expansion.
pub(super) const FILL_PER_UNIT: usize = 1024;

/// Grows `v` toward `n` entries of [`UNREACHED`] by at most `max` units' worth (at least
/// one); returns the units spent.
fn fill(v: &mut Vec<f64>, n: usize, max: usize) -> usize {
    let add = (n - v.len()).min(max.max(1).saturating_mul(FILL_PER_UNIT));
    v.resize(v.len() + add, UNREACHED);
    add.div_ceil(FILL_PER_UNIT).max(1)
}

/// [`GateDijkstra`]'s flags: the gate is settled.
const SETTLED: u8 = 1;
/// [`GateDijkstra`]'s flags: the gate's distance came over a crossing.
const CROSSED: u8 = 2;
/// [`GateDijkstra`]'s flags: the gate is one the search must settle before it may stop.
const TARGET: u8 = 4;

/// The distances of every cell of free leaf `leaf` (row by row over its rectangle): the
/// least over its gates of the gate's distance plus the octile distance times the leaf's
/// cost, and 0 on the goal's part of the leaf.
pub(super) fn leaf_distances(
    graph: &GateGraph,
    leaf: LeafId,
    gate_dist: &[f64],
    goal: Rect,
) -> Box<[f64]> {
    let mut sweep = LeafSweep::new(graph, leaf);
    sweep.run(graph, gate_dist, goal, usize::MAX);
    debug_assert!(sweep.is_done());
    sweep.into_table()
}

/// Where a [`LeafSweep`] stands: the next row of its current pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SweepPass {
    /// Rows filled with [`UNREACHED`], the goal's part with 0.
    Fill(usize),
    /// The gates' distances put in.
    Gates,
    /// The forward raster pass (rows down).
    Forward(usize),
    /// The backward raster pass (rows up): the row after the next one to do.
    Backward(usize),
    Done,
}

/// [`leaf_distances`] a slice of whole rows at a time, to the same table: the path
/// service works out a large leaf's table (a free 1,024² map is one leaf of a million
/// cells, tens of milliseconds) within its frame budget rather than in one step. Each
/// pass does what [`leaf_distances`]' does, in the same order, row by row: the rows are
/// filled (`UNREACHED`, 0 on the goal's part), then the gates' distances put in (a goal
/// cell keeps its 0: no distance is negative, so `min` leaves it, as writing the goal
/// after the gates did), then the forward pass rows down and the backward pass rows up
/// (each pass reads only rows it has done and the rows the other pass left, so cutting
/// it between rows changes nothing).
#[derive(Debug)]
pub(crate) struct LeafSweep {
    leaf: LeafId,
    table: Vec<f64>,
    rect: Rect,
    cost: f64,
    pass: SweepPass,
}

impl LeafSweep {
    /// A sweep of free leaf `leaf`'s table, nothing done yet.
    pub(super) fn new(graph: &GateGraph, leaf: LeafId) -> Self {
        let l = graph.leaf(leaf);
        LeafSweep {
            leaf,
            table: Vec::new(),
            rect: graph.rect_of(l),
            cost: l.cost,
            pass: SweepPass::Fill(0),
        }
    }

    /// The leaf it sweeps.
    pub(super) fn leaf(&self) -> LeafId {
        self.leaf
    }

    /// Whether the table is complete.
    pub(super) fn is_done(&self) -> bool {
        self.pass == SweepPass::Done
    }

    /// Goes on with the sweep, whole rows (and the gates at once) until at least
    /// `max_cells` cells were worked on (at least one row) or the table is complete;
    /// returns the cells worked on (each pass over a cell counts once).
    pub(super) fn run(
        &mut self,
        graph: &GateGraph,
        gate_dist: &[f64],
        goal: Rect,
        max_cells: usize,
    ) -> usize {
        let r = self.rect;
        let (w, h) = (r.width() as usize, r.height() as usize);
        let (d, s) = (DIAGONAL_COST * self.cost, STRAIGHT_COST * self.cost);
        let mut worked = 0;
        while worked < max_cells.max(1) {
            self.pass = match self.pass {
                SweepPass::Fill(y) => {
                    let start = self.table.len();
                    self.table.resize(start + w, UNREACHED);
                    let row_y = r.y1 + y as u32;
                    if let Some(part) = r.intersection(&goal) {
                        if (part.y1..=part.y2).contains(&row_y) {
                            let from = start + (part.x1 - r.x1) as usize;
                            let to = start + (part.x2 - r.x1) as usize;
                            self.table[from..=to].fill(0.0);
                        }
                    }
                    worked += w;
                    if y + 1 < h {
                        SweepPass::Fill(y + 1)
                    } else {
                        SweepPass::Gates
                    }
                }
                SweepPass::Gates => {
                    let l = graph.leaf(self.leaf);
                    for (&g, &c) in graph.gates_of(l).iter().zip(graph.cells_of(l)) {
                        let v = &mut self.table[(c.y - r.y1) as usize * w + (c.x - r.x1) as usize];
                        *v = v.min(gate_dist[g.index()]);
                        worked += 1;
                    }
                    SweepPass::Forward(0)
                }
                SweepPass::Forward(y) => {
                    forward_row(&mut self.table, w, y, s, d);
                    worked += w;
                    if y + 1 < h {
                        SweepPass::Forward(y + 1)
                    } else {
                        SweepPass::Backward(h)
                    }
                }
                SweepPass::Backward(y) => {
                    backward_row(&mut self.table, w, h, y - 1, s, d);
                    worked += w;
                    if y > 1 {
                        SweepPass::Backward(y - 1)
                    } else {
                        SweepPass::Done
                    }
                }
                SweepPass::Done => break,
            };
        }
        worked
    }

    /// Heap bytes of the table so far.
    pub(super) fn memory_bytes(&self) -> usize {
        self.table.capacity() * std::mem::size_of::<f64>()
    }

    /// The complete table (see [`LeafSweep::is_done`]).
    pub(super) fn into_table(self) -> Box<[f64]> {
        debug_assert!(self.is_done(), "a table taken before its sweep ended");
        self.table.into_boxed_slice()
    }
}

/// Carries the values of an open `w`-wide rectangle of uniform cost `cost` to every cell,
/// each cell ending with the least of `value(s) + cost · octile(s, cell)` over all cells
/// `s`.
///
/// Two raster passes suffice. The forward pass (rows down, left to right) reads the
/// neighbours west, north-west, north and north-east; the backward pass the other four.
/// An octile route moves in at most two directions, and its steps can always be ordered
/// so that those the forward pass carries come first: southward and eastward moves
/// (S, SE, SW, E) first, then W, N, NE and NW, which the backward pass carries.
#[cfg(test)]
fn sweep(table: &mut [f64], w: usize, cost: f64) {
    let h = table.len() / w;
    let (d, s) = (DIAGONAL_COST * cost, STRAIGHT_COST * cost);
    for y in 0..h {
        forward_row(table, w, y, s, d);
    }
    for y in (0..h).rev() {
        backward_row(table, w, h, y, s, d);
    }
}

/// Row `y` of [`sweep`]'s forward pass (`s`, `d`: a straight and a diagonal step's cost).
#[inline]
fn forward_row(table: &mut [f64], w: usize, y: usize, s: f64, d: f64) {
    for x in 0..w {
        let i = y * w + x;
        let mut v = table[i];
        if x > 0 {
            v = v.min(table[i - 1] + s);
        }
        if y > 0 {
            v = v.min(table[i - w] + s);
            if x > 0 {
                v = v.min(table[i - w - 1] + d);
            }
            if x + 1 < w {
                v = v.min(table[i - w + 1] + d);
            }
        }
        table[i] = v;
    }
}

/// Row `y` of [`sweep`]'s backward pass over a table `h` rows high.
#[inline]
fn backward_row(table: &mut [f64], w: usize, h: usize, y: usize, s: f64, d: f64) {
    for x in (0..w).rev() {
        let i = y * w + x;
        let mut v = table[i];
        if x + 1 < w {
            v = v.min(table[i + 1] + s);
        }
        if y + 1 < h {
            v = v.min(table[i + w] + s);
            if x + 1 < w {
                v = v.min(table[i + w + 1] + d);
            }
            if x > 0 {
                v = v.min(table[i + w - 1] + d);
            }
        }
        table[i] = v;
    }
}

/// Every cell's distance (cost under `costs`) to the free cells of `goal`, row by row over
/// the whole grid, by Dijkstra over legal steps, run a slice at a time: for maps whose gate
/// graph does not hold every crossing.
#[derive(Debug)]
pub(super) struct CellDijkstra {
    pub dist: Vec<f64>,
    /// Per cell: [`SETTLED`], [`TARGET`].
    pub state: Vec<u8>,
    open: OpenList,
    targets_left: usize,
    bounded: bool,
    /// The goal, until the search is seeded (`dist` filled first).
    seed: Option<Rect>,
}

impl CellDijkstra {
    /// A search from `goal`; as [`GateDijkstra::new`], the first steps fill the distance
    /// array and seed the search.
    pub(super) fn new(grid: &Grid, goal: Rect) -> Self {
        let n = grid.width() as usize * grid.height() as usize;
        CellDijkstra {
            dist: Vec::with_capacity(n),
            state: vec![0u8; n],
            open: OpenList::default(),
            targets_left: 0,
            bounded: false,
            seed: Some(goal),
        }
    }

    /// Fills a slice of the distance array worth `max` units; seeds the search once it is
    /// full. Returns the units spent.
    fn prepare(&mut self, grid: &Grid, max: usize) -> usize {
        let spent = fill(&mut self.dist, self.state.len(), max);
        if self.dist.len() < self.state.len() {
            return spent;
        }
        let goal = self.seed.take().expect("not seeded yet");
        let w = grid.width() as usize;
        for c in goal.cells().filter(|&c| grid.is_free(c)) {
            let i = c.y as usize * w + c.x as usize;
            self.dist[i] = 0.0;
            self.open.push(0.0, i as u32);
        }
        spent
    }

    /// Bounds the search: it may stop once `cell` (and every other target) is settled.
    pub(super) fn target(&mut self, grid: &Grid, cell: Cell) {
        self.bounded = true;
        let s = &mut self.state[cell.y as usize * grid.width() as usize + cell.x as usize];
        if *s & TARGET == 0 {
            *s |= TARGET;
            self.targets_left += 1;
        }
    }

    /// Whether the search is over: nothing left to settle, or every target settled.
    pub(super) fn is_finished(&self) -> bool {
        self.seed.is_none() && (self.bounded && self.targets_left == 0 || self.open.is_empty())
    }

    /// Settles up to `max` cells (at least one pop; or prepares the search, see
    /// [`CellDijkstra::new`]); returns the cells popped (the units spent).
    pub(super) fn step(&mut self, grid: &Grid, costs: &TerrainCosts, max: usize) -> usize {
        if self.seed.is_some() {
            return self.prepare(grid, max);
        }
        let w = grid.width() as usize;
        let index = |c: Cell| c.y as usize * w + c.x as usize;
        let mut popped = 0;
        while popped < max.max(1) && !(self.bounded && self.targets_left == 0) {
            let Some(node) = self.open.pop() else { break };
            popped += 1;
            let i = node as usize;
            if self.state[i] & SETTLED != 0 {
                continue;
            }
            self.state[i] |= SETTLED;
            if self.state[i] & TARGET != 0 {
                self.targets_left -= 1;
            }
            let c = Cell::new((i % w) as u32, (i / w) as u32);
            // Steps are symmetric, so the legal steps out of `c` are the legal steps into it.
            for dir in Direction::ALL {
                if !grid.can_step(c, dir) {
                    continue;
                }
                let n = c.step(dir).expect("a legal step stays on the map");
                let (j, nd) = (index(n), self.dist[i] + costs.cost_between(grid, c, n));
                if self.state[j] & SETTLED == 0 && nd < self.dist[j] {
                    self.dist[j] = nd;
                    self.open.push(nd, j as u32);
                }
            }
        }
        popped
    }

    /// Whether the open list is empty: the search ran to its end (not stopped at a bound).
    pub(super) fn open_is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sweep against its definition: the least of value + octile over every source.
    #[test]
    fn sweep_equals_least_value_plus_octile() {
        let (w, h) = (9usize, 7usize);
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..200 {
            // Unit cost, and leaves of a cheap and a dear terrain.
            let cost = [1.0, 0.375, 2.75][round % 3];
            let mut table = vec![UNREACHED; w * h];
            let mut sources = Vec::new();
            for _ in 0..(1 + round % 5) {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let i = (rng % (w * h) as u64) as usize;
                let v = (rng >> 20) as f64 % 1000.0 / 10.0;
                table[i] = table[i].min(v);
                sources.push(i);
            }
            let expected: Vec<f64> = (0..w * h)
                .map(|i| {
                    let c = Cell::new((i % w) as u32, (i / w) as u32);
                    sources
                        .iter()
                        .map(|&s| {
                            table[s] + cost * octile(Cell::new((s % w) as u32, (s / w) as u32), c)
                        })
                        .fold(UNREACHED, f64::min)
                })
                .collect();
            sweep(&mut table, w, cost);
            for (i, (&got, &want)) in table.iter().zip(&expected).enumerate() {
                assert!(
                    (got - want).abs() < 1e-9,
                    "round {round}, cell {i}: {got} != {want}"
                );
            }
        }
    }
}
