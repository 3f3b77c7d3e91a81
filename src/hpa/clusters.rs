//! The abstract level of the fast mode: clusters of leaves, their entrances, and the
//! shortest routes between entrances inside each cluster.
//!
//! On cluttered maps most free leaves are small, so the gate graph is only a few times
//! smaller than the grid. Clusters restore the hierarchy: a cluster is the quadtree node at a
//! fixed depth (or a larger free leaf, which is then a cluster of its own), its entrances are
//! a few cells per free run of its border, chosen by a [`GatePolicy`](super::GatePolicy), and a Dijkstra search
//! over the exact gate graph inside the cluster gives the distance and the route between
//! every two of its entrances. Queries search entrances only.
//!
//! Edits do not recompute routes: they mark the clusters whose leaves or gates changed as
//! *stale*, and the search crosses a stale cluster over its gates instead (see `search.rs`).
//! Which leaf belongs to which cluster is always current; only the route tables wait.
//! The stale set is a queue with a flag per cluster slot, so however many edits come before
//! a refresh, it never holds more entries than there are clusters.

use super::config::Clustering;
use super::costs::CostBands;
use super::graph::{slot_id, GateGraph, GateId, LeafId, SlotId, Slots};
use super::open::OpenList;
use crate::geom::{Cell, Direction};
use crate::grid::movement::octile;
use crate::grid::Grid;
use crate::quadtree::{NodeId, Shape};
use hashbrown::HashMap;

slot_id!(
    /// A cluster's slot.
    ClusterId
);

/// Marks a source in a predecessor table: reached directly from the search's origin.
pub(crate) const FROM_ORIGIN: u32 = u32::MAX - 1;
/// Marks a gate no route reaches in a predecessor table.
pub(crate) const NO_PRED: u32 = u32::MAX;
/// Marks a gate that is not an entrance in [`Clusters::entrance_of`]'s table.
const NOT_ENTRANCE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub(crate) struct Cluster {
    pub key: NodeId,
    pub leaves: Vec<LeafId>,
    /// Local index → gate.
    pub gates: Vec<GateId>,
    /// Entrance index → gate.
    pub entrances: Vec<GateId>,
    /// `dist[i·E + j]`: shortest distance inside the cluster from entrance `i` to `j`.
    pub dist: Vec<f64>,
    /// `pred[i·G + v]`: predecessor (local index) of local gate `v` on the shortest route
    /// from entrance `i`.
    pub pred: Preds,
    /// `reach[i·G + v]`: distance inside the cluster from entrance `i` to local gate `v`.
    /// A query ties its start to entrance `i` through the gates of the start's leaf with
    /// these, instead of searching the cluster.
    pub reach: Vec<f32>,
}

impl Default for Cluster {
    fn default() -> Self {
        Cluster {
            key: NodeId::ROOT,
            leaves: Vec::new(),
            gates: Vec::new(),
            entrances: Vec::new(),
            dist: Vec::new(),
            pred: Preds::Narrow(Vec::new()),
            reach: Vec::new(),
        }
    }
}

/// A cluster's predecessor tables, at 16 bits an entry when its gates can be numbered so
/// (every cluster of the default side), else at 32: they are half of what clusters weigh.
#[derive(Clone, Debug)]
pub(crate) enum Preds {
    /// Local indexes below [`NARROW_SENTINELS`]; `u16::MAX` is [`NO_PRED`] and
    /// `u16::MAX − 1` is [`FROM_ORIGIN`].
    Narrow(Vec<u16>),
    /// Local indexes as they are.
    Wide(Vec<u32>),
}

/// Local indexes a narrow table cannot hold: its two sentinels.
const NARROW_SENTINELS: u32 = u16::MAX as u32 - 1;

impl Preds {
    /// `n` entries of [`NO_PRED`], narrow if local indexes below `gates` fit.
    fn unreached(n: usize, gates: usize) -> Self {
        if gates < NARROW_SENTINELS as usize {
            Preds::Narrow(vec![u16::MAX; n])
        } else {
            Preds::Wide(vec![NO_PRED; n])
        }
    }

    /// Copies `from` (local indexes and sentinels) to the entries from `at`.
    fn store(&mut self, at: usize, from: &[u32]) {
        match self {
            Preds::Narrow(t) => {
                for (slot, &p) in t[at..at + from.len()].iter_mut().zip(from) {
                    *slot = match p {
                        NO_PRED => u16::MAX,
                        FROM_ORIGIN => u16::MAX - 1,
                        p => p as u16,
                    };
                }
            }
            Preds::Wide(t) => t[at..at + from.len()].copy_from_slice(from),
        }
    }

    /// Entry `i`, sentinels as [`NO_PRED`] and [`FROM_ORIGIN`].
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match self {
            Preds::Narrow(t) => match t[i] {
                u16::MAX => NO_PRED,
                p if p == u16::MAX - 1 => FROM_ORIGIN,
                p => p as u32,
            },
            Preds::Wide(t) => t[i],
        }
    }

    /// Heap bytes held.
    fn memory_bytes(&self) -> usize {
        match self {
            Preds::Narrow(t) => t.capacity() * 2,
            Preds::Wide(t) => t.capacity() * 4,
        }
    }

    /// Of [`Preds::memory_bytes`], the spare capacity past the entries.
    fn slack_bytes(&self) -> usize {
        match self {
            Preds::Narrow(t) => (t.capacity() - t.len()) * 2,
            Preds::Wide(t) => (t.capacity() - t.len()) * 4,
        }
    }
}

/// One entrance's predecessor tree in a cluster's [`Preds`], by local gate index.
#[derive(Clone, Copy)]
pub(crate) struct Routes<'a> {
    preds: &'a Preds,
    first: usize,
}

impl Routes<'_> {
    /// The predecessor of local gate `v`: a local index, [`FROM_ORIGIN`] or [`NO_PRED`].
    #[inline]
    pub fn pred(&self, v: u32) -> u32 {
        self.preds.get(self.first + v as usize)
    }
}

impl Cluster {
    /// The predecessor tree of entrance `i`'s routes, by local index.
    pub fn routes_from(&self, i: usize) -> Routes<'_> {
        Routes {
            preds: &self.pred,
            first: i * self.gates.len(),
        }
    }
}

/// All clusters of a map.
#[derive(Clone, Debug)]
pub(crate) struct Clusters {
    config: Clustering,
    depth: u32,
    items: Slots<ClusterId, Cluster>,
    by_key: HashMap<u64, ClusterId, ahash::RandomState>,
    /// The cluster of each leaf, by leaf (meaningful for live leaves only).
    of_leaf: Vec<ClusterId>,
    /// Per gate: its index among its cluster's gates, and among its entrances (or
    /// [`NOT_ENTRANCE`]); meaningful for gates of fresh clusters only.
    local: Vec<u32>,
    entrance: Vec<u32>,
    /// Per cluster slot: whether its routes await recomputation. A slot is in `queue`
    /// exactly when its flag is set, so the queue never outgrows the slots.
    stale: Vec<bool>,
    queue: Vec<ClusterId>,
    /// Per cluster slot: whether its entrances are too many for route tables to pay (see
    /// [`MAX_TABLE_ENTRIES`]): it keeps none, and the search crosses it over its gates,
    /// as it crosses a stale one.
    plain: Vec<bool>,
    scratch: LocalSearch,
    /// The stale cluster whose routes [`Clusters::refresh_step`] is computing, one
    /// entrance's search at a time, in `scratch`. Its slot stays stale (and out of `queue`)
    /// until the last row is in; any edit of the clusters puts it back in the queue.
    job: Option<RouteJob>,
}

/// A cluster's routes under way: the new cluster (gates, entrances, tables filled up to
/// `entrance`), and whether `scratch` is searching from that entrance.
#[derive(Clone, Debug)]
struct RouteJob {
    id: ClusterId,
    built: Cluster,
    entrance: usize,
    running: bool,
}

/// The most entries (entrances × gates) a cluster keeps route tables for: 768 KiB at 6
/// bytes an entry. Computing them is one search of the cluster per entrance. A cluster
/// past this is a field of one-cell leaves with dozens of entrances, where tables weigh
/// several times the gates they summarise and the abstract search saves little. Measured
/// (fast mode, clusters of side 64): StarCraft and Dragon Age clusters hold about 10
/// thousand entries on average and maze clusters 20 thousand, where a 64×64 cluster of
/// random noise holds over 200 thousand, and a 256² map of 17% noise spent 23 MiB and
/// 250 ms on tables, twice what exact mode takes in all. A threshold on entrances alone
/// (32) made maze queries twice as slow.
const MAX_TABLE_ENTRIES: usize = 1 << 17;

impl Clusters {
    /// The clusters of a map of this shape, or `None` for a map too small to gain from
    /// them (see [`Clustering::min_side`]).
    pub fn new(config: Clustering, shape: &Shape) -> Option<Self> {
        let longest = shape.width().max(shape.height()) as u64;
        let side = config.side.max(2) as u64;
        let mut depth = 2;
        while longest.div_ceil(1 << depth) > side {
            depth += 1;
        }
        (longest.div_ceil(1 << depth) >= config.min_side as u64).then(|| Clusters {
            config,
            depth,
            items: Slots::default(),
            by_key: HashMap::default(),
            of_leaf: Vec::new(),
            local: Vec::new(),
            entrance: Vec::new(),
            stale: Vec::new(),
            queue: Vec::new(),
            plain: Vec::new(),
            scratch: LocalSearch::default(),
            job: None,
        })
    }

    #[inline]
    pub fn get(&self, id: ClusterId) -> &Cluster {
        self.items.get(id)
    }

    /// The cluster of a live leaf.
    #[inline]
    pub fn of_leaf(&self, leaf: LeafId) -> ClusterId {
        self.of_leaf[leaf.index()]
    }

    /// Whether a cluster's routes are up to date and kept: it is searched over its
    /// entrances. A stale or plain one (see `Clusters::plain`) is crossed over its gates.
    #[inline]
    pub fn is_fresh(&self, id: ClusterId) -> bool {
        !self.stale[id.index()] && !self.plain[id.index()]
    }

    /// The entrance index of a gate of a fresh cluster, if it is an entrance.
    #[inline]
    pub fn entrance_of(&self, gate: GateId) -> Option<usize> {
        let e = self.entrance[gate.index()];
        (e != NOT_ENTRANCE).then_some(e as usize)
    }

    /// The local index of a gate of a fresh cluster.
    #[inline]
    pub fn local_of(&self, gate: GateId) -> u32 {
        self.local[gate.index()]
    }

    /// Records that a cluster's routes must be recomputed.
    pub fn mark_stale(&mut self, id: ClusterId) {
        self.cancel_job();
        if !std::mem::replace(&mut self.stale[id.index()], true) {
            self.queue.push(id);
        }
    }

    /// Whether any cluster awaits recomputation.
    pub fn is_stale(&self) -> bool {
        !self.queue.is_empty() || self.job.is_some()
    }

    /// Puts the cluster whose routes were under way back in the queue: an edit may have
    /// changed its gates or the crossings the search has read.
    fn cancel_job(&mut self) {
        if let Some(job) = self.job.take() {
            self.queue.push(job.id);
        }
    }

    /// Does one bounded unit of the stale clusters' recomputation: chooses the gates and
    /// entrances of the next stale cluster (counted as its cells), or runs the search from
    /// one of its entrances for about `max_work` more units (a settled gate and each edge
    /// it relaxes count one; see `LocalSearch::advance`). Returns the work done and
    /// whether a cluster was finished (its new routes in place), or `None` when none was
    /// stale. With `max_work` at `usize::MAX` each entrance's search is one unit.
    pub fn refresh_step(
        &mut self,
        g: &GateGraph,
        shape: &Shape,
        cells: Cells<'_>,
        max_work: usize,
    ) -> Option<(usize, bool)> {
        if let Some(mut job) = self.job.take() {
            if !job.running {
                let source = self.local_of(job.built.entrances[job.entrance]);
                self.scratch.start(source);
                job.running = true;
            }
            let (work, done) = self.scratch.advance(max_work);
            let work = work.max(1);
            if done {
                self.store_row(&mut job.built, job.entrance);
                job.entrance += 1;
                job.running = false;
                if job.entrance == job.built.entrances.len() {
                    self.install(job.id, job.built);
                    return Some((work, true));
                }
            }
            self.job = Some(job);
            return Some((work, false));
        }
        while let Some(id) = self.queue.pop() {
            if !self.items.is_live(id) {
                self.stale[id.index()] = false;
                continue;
            }
            let old = self.get(id);
            let mut built = Cluster {
                key: old.key,
                leaves: old.leaves.clone(),
                ..Cluster::default()
            };
            self.select(g, shape, cells, &mut built);
            let rows = self.begin_routes(g, id, &mut built);
            // The unit's work, counted as the cluster's cells: it scans the border for
            // entrances and copies the gates and their crossings (a few per border cell of
            // each leaf), a few cheap steps per cell, where a route search relaxes edges.
            let area = built
                .leaves
                .iter()
                .map(|&l| g.leaf_rect(l).area())
                .sum::<u64>() as usize;
            if rows {
                self.job = Some(RouteJob {
                    id,
                    built,
                    entrance: 0,
                    running: false,
                });
                return Some((area, false));
            }
            self.install(id, built);
            return Some((area, true));
        }
        None
    }

    /// Puts a recomputed cluster in its slot, fresh.
    fn install(&mut self, id: ClusterId, built: Cluster) {
        *self.items.get_mut(id) = built;
        self.stale[id.index()] = false;
    }

    /// The live clusters.
    pub fn live(&self) -> impl Iterator<Item = &Cluster> + '_ {
        self.items.iter().map(|(_, c)| c)
    }

    /// The live clusters with their slots.
    pub fn live_with_ids(&self) -> impl Iterator<Item = (ClusterId, &Cluster)> + '_ {
        self.items.iter()
    }

    pub fn count(&self) -> usize {
        self.items.live()
    }

    /// Number of entrances over all clusters.
    pub fn entrance_count(&self) -> usize {
        self.live().map(|c| c.entrances.len()).sum()
    }

    /// Heap bytes held, approximately.
    pub fn memory_bytes(&self) -> usize {
        let tables: usize = self
            .live()
            .map(|c| {
                4 * (c.leaves.capacity() + c.gates.capacity() + c.entrances.capacity())
                    + c.pred.memory_bytes()
                    + 8 * c.dist.capacity()
                    + 4 * c.reach.capacity()
            })
            .sum();
        tables + self.job_bytes() + self.side_table_bytes()
    }

    /// Of [`Clusters::memory_bytes`], what edits have left behind: vacant cluster slots,
    /// the live clusters' lists and route tables past their length, the stale queue's
    /// spare room, and a route recompute under way (its new tables, beside the old).
    pub fn slack_bytes(&self) -> usize {
        let spare = |c: &Cluster| {
            4 * (c.leaves.capacity() - c.leaves.len() + c.gates.capacity() - c.gates.len()
                + c.entrances.capacity()
                - c.entrances.len()
                + c.reach.capacity()
                - c.reach.len())
                + 8 * (c.dist.capacity() - c.dist.len())
                + c.pred.slack_bytes()
        };
        self.items.slack_bytes()
            + self.live().map(spare).sum::<usize>()
            + 4 * (self.queue.capacity() - self.queue.len())
            + self.job_bytes()
    }

    /// Heap bytes of the route tables a recompute under way is filling.
    fn job_bytes(&self) -> usize {
        self.job.as_ref().map_or(0, |j| {
            8 * j.built.dist.capacity() + 4 * j.built.reach.capacity() + j.built.pred.memory_bytes()
        })
    }

    /// Heap bytes of the slots, the key map and the per-leaf and per-gate side tables.
    fn side_table_bytes(&self) -> usize {
        self.items.memory_bytes()
            + self.by_key.capacity() * (std::mem::size_of::<(u64, ClusterId)>() + 1)
            + 4 * (self.of_leaf.capacity()
                + self.local.capacity()
                + self.entrance.capacity()
                + self.queue.capacity())
            + self.stale.capacity()
            + self.plain.capacity()
    }

    /// Puts a new free leaf into its cluster, which becomes stale, and returns it.
    pub fn attach(&mut self, g: &GateGraph, shape: &Shape, leaf: LeafId) -> ClusterId {
        self.cancel_job();
        let (id, rect) = (g.leaf(leaf).id, g.leaf_rect(leaf));
        let key = shape.cell_id(id.depth().min(self.depth), Cell::new(rect.x1, rect.y1));
        let cluster = *self.by_key.entry(key.raw()).or_insert_with(|| {
            self.items.insert(Cluster {
                key,
                ..Cluster::default()
            })
        });
        if self.stale.len() < self.items.capacity() {
            self.stale.resize(self.items.capacity(), false);
            self.plain.resize(self.items.capacity(), false);
        }
        self.items.get_mut(cluster).leaves.push(leaf);
        if self.of_leaf.len() <= leaf.index() {
            self.of_leaf.resize(g.leaf_capacity(), cluster);
        }
        self.of_leaf[leaf.index()] = cluster;
        self.mark_stale(cluster);
        cluster
    }

    /// Takes a leaf that is about to be removed out of its cluster. Returns the cluster,
    /// now stale, while it still has leaves.
    pub fn detach(&mut self, leaf: LeafId) -> Option<ClusterId> {
        self.cancel_job();
        let id = self.of_leaf(leaf);
        let c = self.items.get_mut(id);
        let pos = c
            .leaves
            .iter()
            .position(|&l| l == leaf)
            .expect("a leaf is in its cluster");
        c.leaves.swap_remove(pos);
        if !c.leaves.is_empty() {
            self.mark_stale(id);
            return Some(id);
        }
        self.by_key.remove(&c.key.raw());
        *c = Cluster::default();
        self.items.release(id);
        None
    }

    /// Fills the route tables of cluster `c` (slot `id`), whose gates and entrances
    /// [`Clusters::select`] has chosen.
    fn compute_routes(&mut self, g: &GateGraph, id: ClusterId, c: &mut Cluster) {
        if !self.begin_routes(g, id, c) {
            return;
        }
        for i in 0..c.entrances.len() {
            self.scratch.run(self.local_of(c.entrances[i]));
            self.store_row(c, i);
        }
    }

    /// Sizes the route tables of cluster `c` (slot `id`), whose gates and entrances
    /// [`Clusters::select`] has chosen, and prepares the search over it. Returns whether
    /// there are rows to fill, one search per entrance: none for a plain cluster (see
    /// [`MAX_TABLE_ENTRIES`]) or one without entrances.
    fn begin_routes(&mut self, g: &GateGraph, id: ClusterId, c: &mut Cluster) -> bool {
        let (n_e, n_g) = (c.entrances.len(), c.gates.len());
        let plain = n_e * n_g > MAX_TABLE_ENTRIES;
        self.plain[id.index()] = plain;
        if plain {
            c.dist = Vec::new();
            c.pred = Preds::Narrow(Vec::new());
            c.reach = Vec::new();
            return false;
        }
        c.dist.clear();
        c.dist.resize(n_e * n_e, f64::INFINITY);
        c.pred = Preds::unreached(n_e * n_g, n_g);
        c.reach.clear();
        c.reach.resize(n_e * n_g, f32::INFINITY);
        self.scratch.prepare(g, c, id, &self.of_leaf, &self.local);
        n_e > 0
    }

    /// Copies the finished search from entrance `i` of `c` into its route tables.
    fn store_row(&self, c: &mut Cluster, i: usize) {
        let (n_e, n_g) = (c.entrances.len(), c.gates.len());
        for j in 0..n_e {
            c.dist[i * n_e + j] = self.scratch.dist[self.local_of(c.entrances[j]) as usize];
        }
        c.pred.store(i * n_g, &self.scratch.pred[..n_g]);
        for (r, &d) in c.reach[i * n_g..(i + 1) * n_g]
            .iter_mut()
            .zip(&self.scratch.dist)
        {
            *r = d as f32;
        }
    }

    /// Fills the route tables of every stale cluster whose gates and entrances
    /// [`Clusters::select_all`] has just chosen: the second half of a build, which does not
    /// choose them again.
    pub fn route_all(&mut self, g: &GateGraph) {
        while let Some(id) = self.queue.pop() {
            self.stale[id.index()] = false;
            if self.items.is_live(id) {
                let mut c = std::mem::take(self.items.get_mut(id));
                self.compute_routes(g, id, &mut c);
                *self.items.get_mut(id) = c;
            }
        }
    }

    /// Chooses the gates and entrances of every stale cluster, and returns the heap bytes
    /// their route tables will take, plus their gate and entrance lists and the side
    /// tables: the cluster layer's size before its tables are allocated by
    /// [`Clusters::route_all`].
    pub fn select_all(&mut self, g: &GateGraph, shape: &Shape, cells: Cells<'_>) -> usize {
        let mut total = 0usize;
        for i in 0..self.queue.len() {
            let id = self.queue[i];
            if !self.items.is_live(id) {
                continue;
            }
            let mut c = std::mem::take(self.items.get_mut(id));
            self.select(g, shape, cells, &mut c);
            let (n_e, n_g) = (c.entrances.len(), c.gates.len());
            let n_e = if n_e * n_g > MAX_TABLE_ENTRIES {
                0
            } else {
                n_e
            };
            let tables = n_e
                .saturating_mul(n_e)
                .saturating_mul(8)
                .saturating_add(n_e.saturating_mul(n_g).saturating_mul(8));
            total = total.saturating_add(tables).saturating_add(
                4 * (c.leaves.capacity() + c.gates.capacity() + c.entrances.capacity()),
            );
            *self.items.get_mut(id) = c;
        }
        total.saturating_add(self.side_table_bytes())
    }

    /// Selects a cluster's gates and entrances (no route tables).
    fn select(&mut self, g: &GateGraph, shape: &Shape, cells: Cells<'_>, c: &mut Cluster) {
        if self.local.len() < g.gate_capacity() {
            self.local.resize(g.gate_capacity(), 0);
            self.entrance.resize(g.gate_capacity(), NOT_ENTRANCE);
        }
        c.gates.clear();
        for &leaf in &c.leaves {
            c.gates.extend_from_slice(g.gates_of(g.leaf(leaf)));
        }
        for (i, &gate) in c.gates.iter().enumerate() {
            self.local[gate.index()] = i as u32;
            self.entrance[gate.index()] = NOT_ENTRANCE;
        }
        let mut entrances = std::mem::take(&mut c.entrances);
        entrances.clear();
        for dir in Direction::SIDES {
            self.border_entrances(g, shape, cells, c, dir, &mut entrances);
        }
        entrances.sort_unstable();
        entrances.dedup();
        for (i, &e) in entrances.iter().enumerate() {
            self.entrance[e.index()] = i as u32;
        }
        c.entrances = entrances;
    }

    /// Appends the entrances on one side of a cluster. The crossings leaving it across
    /// that side are grouped into runs: neighbours along the side with every border cell
    /// between them open on both sides, and within one line of the cluster grid. On each
    /// run the policy picks positions and the crossing nearest each is kept. Both clusters
    /// sharing a border see the same crossings and runs, so they keep the same pairs.
    ///
    /// On a map with terrain costs each position stands for the stretch of the run halfway
    /// to its neighbours, and keeps that stretch's cheapest crossing (the nearest among
    /// equals): where a road crosses the border, the entrance is on the road. Otherwise the
    /// entrances could lie in the rough ground beside it, and every route along the road
    /// would detour through it. Keeping the policy's count matters: adding an entrance per
    /// road crossing, or ending runs where the cost changes, cut the excess as well but gave
    /// clusters so many entrances that their tables passed the size limit and fast queries
    /// slowed down 3- to 30-fold on broken ground.
    fn border_entrances(
        &self,
        g: &GateGraph,
        shape: &Shape,
        (grid, costs): Cells<'_>,
        c: &Cluster,
        dir: Direction,
        out: &mut Vec<GateId>,
    ) {
        let rect = shape.rect(c.key);
        let (dx, dy) = dir.delta();
        let vertical = dx != 0;
        let along = |cell: Cell| if vertical { cell.y } else { cell.x };
        let edge = if vertical {
            if dx < 0 {
                rect.x1
            } else {
                rect.x2
            }
        } else if dy < 0 {
            rect.y1
        } else {
            rect.y2
        };
        // (position, inside gate) of each straight crossing over this side. Diagonal ones
        // are left out: the two clusters would see them at different positions, and a
        // straight crossing always exists in the same run (a legal diagonal needs the cell
        // straight across to be free, and the leaves there share a free edge).
        let mut crossings: Vec<(u32, GateId)> = Vec::new();
        for &leaf in &c.leaves {
            let l = g.leaf(leaf);
            for (&gate, &cell) in g.gates_of(l).iter().zip(g.cells_of(l)) {
                if (if vertical { cell.x } else { cell.y }) != edge {
                    continue;
                }
                for &o in g.links_of(g.gate(gate)) {
                    let oc = g.gate(o).cell;
                    if cell.step(dir) == Some(oc) {
                        crossings.push((along(cell), gate));
                    }
                }
            }
        }
        crossings.sort_unstable();
        let segment = |t: u32| {
            let id = shape.cell_id(
                self.depth,
                Cell::new(if vertical { 0 } else { t }, if vertical { t } else { 0 }),
            );
            if vertical {
                id.iy()
            } else {
                id.ix()
            }
        };
        let open = |t: u32| {
            let inside = if vertical {
                Cell::new(edge, t)
            } else {
                Cell::new(t, edge)
            };
            grid.is_free(inside) && grid.can_step(inside, dir)
        };
        let cell_at = |t: u32| {
            if vertical {
                Cell::new(edge, t)
            } else {
                Cell::new(t, edge)
            }
        };
        // The cost bands on both sides of the border at `t` (an open position's).
        let bands = |t: u32| {
            let inside = cell_at(t);
            let outside = inside.step(dir).expect("an open crossing stays on the map");
            (costs.band(grid, inside), costs.band(grid, outside))
        };
        let joined = |a: u32, b: u32| segment(a) == segment(b) && (a..=b).all(open);
        // What crossing the border at `t` costs per unit of length, in both bands' sum.
        let toll = |t: u32| {
            let (inside, outside) = bands(t);
            costs.band_cost(inside) + costs.band_cost(outside)
        };
        // Runs split where crossing turns from cheap to dear or back (see `CLIFF`).
        let mut runs: Vec<&[(u32, GateId)]> = Vec::new();
        let mut i = 0;
        while i < crossings.len() {
            let mut j = i;
            while j + 1 < crossings.len() && joined(crossings[j].0, crossings[j + 1].0) {
                j += 1;
            }
            let run = &crossings[i..=j];
            if costs.is_unit() {
                runs.push(run);
            } else {
                let cheapest = run.iter().map(|x| toll(x.0)).fold(f64::INFINITY, f64::min);
                let dear = |x: &(u32, GateId)| toll(x.0) > CLIFF * cheapest;
                runs.extend(run.chunk_by(|a, b| dear(a) == dear(b)));
            }
            i = j + 1;
        }
        for run in runs {
            let positions: Vec<u32> = self
                .config
                .entrances
                .positions(run[0].0, run[run.len() - 1].0)
                .collect();
            for (k, &p) in positions.iter().enumerate() {
                let chosen = if costs.is_unit() {
                    run.iter().min_by_key(|x| (x.0.abs_diff(p), x.0))
                } else {
                    // The cheapest crossing of the stretch this position stands for (halfway
                    // to its neighbours), nearest it among equals.
                    let mid = |a: u32, b: u32| ((a as u64 + b as u64) / 2) as u32;
                    let lo = k.checked_sub(1).map_or(0, |b| mid(positions[b], p));
                    let hi = positions.get(k + 1).map_or(u32::MAX, |&n| mid(p, n));
                    run.iter()
                        .filter(|x| (lo..=hi).contains(&x.0))
                        .min_by(|a, b| {
                            toll(a.0)
                                .total_cmp(&toll(b.0))
                                .then((a.0.abs_diff(p), a.0).cmp(&(b.0.abs_diff(p), b.0)))
                        })
                        .or_else(|| run.iter().min_by_key(|x| (x.0.abs_diff(p), x.0)))
                };
                out.push(chosen.expect("a run has a crossing").1);
            }
        }
    }
}

/// On a map with terrain costs, a run of crossings over a cluster border is split where
/// crossing turns more than this many times dearer than the run's cheapest crossing, or
/// back: ground that dear between two stretches of cheap ground parts them as a wall
/// would, and with one entrance for both, routes from the other stretch went through it
/// (issue 26: a 29-cost move answered through a swamp at 10⁶). A factor of 8 leaves the
/// runs of roads at 0.5 beside rough ground up to 4 whole, whose entrance counts the
/// cheapest-crossing rule above keeps in check.
const CLIFF: f64 = 8.0;

/// The map's cells and what they cost: what choosing entrances reads.
pub(crate) type Cells<'a> = (&'a Grid, &'a CostBands);

/// Dijkstra over the gate graph restricted to one cluster, with reusable buffers.
///
/// A cluster runs one search per entrance over the same few hundred gates, so
/// [`LocalSearch::prepare`] first copies the cluster's part of the graph into flat arrays by
/// local index: the searches then never touch the graph's slabs.
#[derive(Clone, Debug, Default)]
pub(crate) struct LocalSearch {
    /// Distance by local gate index.
    pub dist: Vec<f64>,
    /// Predecessor by local gate index: a local index, `FROM_ORIGIN`, or `NO_PRED`.
    pub pred: Vec<u32>,
    closed: Vec<bool>,
    open: OpenList,
    /// Per local gate: its cell, and the local range of its leaf's gates (a cluster lists
    /// each leaf's gates together).
    cells: Vec<Cell>,
    mates: Vec<(u32, u32)>,
    /// Per local gate: its leaf's cost per unit of length.
    costs: Vec<f64>,
    /// Crossings that stay in the cluster, by local index: `links[link_start[u]..][..]`.
    link_start: Vec<u32>,
    links: Vec<u32>,
}

impl LocalSearch {
    /// Copies cluster `c` (slot `id`) out of the graph; `local` must hold its gates' local
    /// indices, and its gate list must hold each leaf's gates in one run.
    fn prepare(
        &mut self,
        g: &GateGraph,
        c: &Cluster,
        id: ClusterId,
        of_leaf: &[ClusterId],
        local: &[u32],
    ) {
        self.cells.clear();
        self.mates.clear();
        self.costs.clear();
        self.link_start.clear();
        self.links.clear();
        let mut at = 0u32;
        for &leaf in &c.leaves {
            let l = g.leaf(leaf);
            let span = (at, at + g.gates_of(l).len() as u32);
            at = span.1;
            for (&v, &cell) in g.gates_of(l).iter().zip(g.cells_of(l)) {
                self.cells.push(cell);
                self.mates.push(span);
                self.costs.push(l.cost);
                self.link_start.push(self.links.len() as u32);
                for &o in g.links_of(g.gate(v)) {
                    if of_leaf[g.gate(o).leaf.index()] == id {
                        self.links.push(local[o.index()]);
                    }
                }
            }
        }
        self.link_start.push(self.links.len() as u32);
    }

    /// Runs from local gate `source` over the cluster last [`prepare`](Self::prepare)d.
    fn run(&mut self, source: u32) {
        self.start(source);
        self.advance(usize::MAX);
    }

    /// Opens a search from local gate `source` over the cluster last
    /// [`prepare`](Self::prepare)d; [`advance`](Self::advance) runs it.
    fn start(&mut self, source: u32) {
        let n = self.cells.len();
        self.dist.clear();
        self.dist.resize(n, f64::INFINITY);
        self.pred.clear();
        self.pred.resize(n, NO_PRED);
        self.closed.clear();
        self.closed.resize(n, false);
        self.open.clear();
        self.dist[source as usize] = 0.0;
        self.pred[source as usize] = FROM_ORIGIN;
        self.open.push(0.0, source);
    }

    /// Runs the open search until it has done at least `max_work` units (a settled gate
    /// and each edge it relaxes count one each) or is done. Returns the work done and
    /// whether the search is done; it stops between settled gates, so it overruns
    /// `max_work` by at most one gate's edges (its leaf's gates and its crossings).
    fn advance(&mut self, max_work: usize) -> (usize, bool) {
        let mut work = 0usize;
        while work < max_work {
            let Some(u) = self.open.pop() else {
                return (work, true);
            };
            let ui = u as usize;
            if self.closed[ui] {
                continue;
            }
            self.closed[ui] = true;
            work += 1;
            let (d, here, span, p) = (self.dist[ui], self.cells[ui], self.mates[ui], self.pred[ui]);
            let cost = self.costs[ui];
            // Leaf-mates are offered only from gates entered by a crossing (or the source):
            // see the flat search for why that loses nothing.
            if p == FROM_ORIGIN || !(span.0..span.1).contains(&p) {
                work += (span.1 - span.0) as usize;
                for v in span.0..span.1 {
                    self.relax(v, d + octile(here, self.cells[v as usize]) * cost, u);
                }
            }
            let (a, b) = (
                self.link_start[ui] as usize,
                self.link_start[ui + 1] as usize,
            );
            work += b - a;
            for k in a..b {
                let v = self.links[k];
                let vi = v as usize;
                let step = octile(here, self.cells[vi]) * (cost + self.costs[vi]) * 0.5;
                self.relax(v, d + step, u);
            }
        }
        (work, self.open.is_empty())
    }

    #[inline]
    fn relax(&mut self, v: u32, d: f64, from: u32) {
        let i = v as usize;
        if d < self.dist[i] && !self.closed[i] {
            self.dist[i] = d;
            self.pred[i] = from;
            self.open.push(d, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both widths give back the local indexes and sentinels they were given.
    #[test]
    fn predecessor_tables_round_trip() {
        let row = [3, NO_PRED, FROM_ORIGIN, 0, NARROW_SENTINELS - 1];
        for gates in [10, NARROW_SENTINELS as usize] {
            let mut preds = Preds::unreached(2 * row.len(), gates);
            assert_eq!(
                matches!(preds, Preds::Narrow(_)),
                gates < NARROW_SENTINELS as usize
            );
            preds.store(row.len(), &row);
            for (i, &p) in row.iter().enumerate() {
                assert_eq!(preds.get(i), NO_PRED);
                assert_eq!(preds.get(row.len() + i), p, "{gates} gates, entry {i}");
            }
        }
    }
}
