//! The abstract level of the fast mode: clusters of leaves, their entrances, and the
//! shortest routes between entrances inside each cluster.
//!
//! On cluttered maps most free leaves are small, so the gate graph is only a few times
//! smaller than the grid. Clusters restore the hierarchy: a cluster is the quadtree node at a
//! fixed depth (or a larger free leaf, which is then a cluster of its own), its entrances are
//! a few cells per free run of its border, chosen by a [`GatePolicy`], and a Dijkstra search
//! over the exact gate graph inside the cluster gives the distance and the route between
//! every two of its entrances. Queries search entrances only.

use super::graph::{GateGraph, Slots, NONE};
use super::open::OpenList;
use super::policy::GatePolicy;
use crate::geom::{Cell, Direction};
use crate::grid::movement::octile;
use crate::quadtree::{NodeId, Shape};
use hashbrown::HashMap;

/// How the fast mode groups leaves into clusters and picks their entrances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clustering {
    /// Largest cluster side in cells; the cluster depth is the shallowest quadtree depth
    /// whose nodes are no larger, so clusters come out between half this and this. Larger
    /// clusters mean fewer entrances to search but a costlier [`refresh`] after edits.
    ///
    /// [`refresh`]: super::HpaMap::refresh
    pub side: u32,
    /// Smallest cluster side in cells. Clusters shrink below `side` so that a map spans at
    /// least 4×4 of them (with fewer, most queries stay inside one cluster), but not below
    /// this: a map too small for clusters of this side is not clustered at all, since the
    /// gate search is as fast there and edits would pay for refreshes that buy nothing.
    pub min_side: u32,
    /// Which cells of each free run along a cluster's border become entrances.
    pub entrances: GatePolicy,
}

impl Default for Clustering {
    fn default() -> Self {
        Clustering {
            side: 96,
            min_side: 24,
            entrances: GatePolicy::Adaptive,
        }
    }
}

/// Marks a source in a predecessor table: reached directly from the search's origin.
pub(crate) const FROM_ORIGIN: u32 = u32::MAX - 1;

#[derive(Clone, Debug)]
pub(crate) struct Cluster {
    pub key: NodeId,
    pub leaves: Vec<u32>,
    /// Local index → gate.
    pub gates: Vec<u32>,
    /// Entrance index → gate.
    pub entrances: Vec<u32>,
    /// `dist[i·E + j]`: shortest distance inside the cluster from entrance `i` to `j`.
    pub dist: Vec<f64>,
    /// `pred[i·G + v]`: predecessor (local index) of local gate `v` on the shortest route
    /// from entrance `i`.
    pub pred: Vec<u32>,
    /// `reach[i·G + v]`: distance inside the cluster from entrance `i` to local gate `v`.
    /// A query ties its start to entrance `i` through the gates of the start's leaf with
    /// these, instead of searching the cluster.
    pub reach: Vec<f32>,
}

/// All clusters of a map.
#[derive(Clone, Debug)]
pub(crate) struct Clusters {
    pub config: Clustering,
    depth: u32,
    items: Slots<Cluster>,
    by_key: HashMap<u64, u32, ahash::RandomState>,
    /// Keys of clusters whose routes are out of date.
    stale: Vec<NodeId>,
    scratch: LocalSearch,
}

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
            stale: Vec::new(),
            scratch: LocalSearch::default(),
        })
    }

    #[inline]
    pub fn get(&self, slot: u32) -> &Cluster {
        &self.items.items[slot as usize]
    }

    /// Records clusters whose routes must be recomputed before the next clustered search.
    pub fn mark_stale(&mut self, keys: impl IntoIterator<Item = NodeId>) {
        self.stale.extend(keys);
    }

    /// Whether any cluster awaits recomputation.
    pub fn is_stale(&self) -> bool {
        !self.stale.is_empty()
    }

    /// Recomputes every stale cluster that still exists.
    pub fn refresh(&mut self, g: &mut GateGraph, shape: &Shape, grid: &crate::grid::Grid) {
        let mut stale = std::mem::take(&mut self.stale);
        stale.sort_unstable();
        stale.dedup();
        for key in stale {
            if let Some(slot) = self.slot_of(key) {
                self.recompute(g, shape, grid, slot);
            }
        }
    }

    /// The slot of the live cluster with this key.
    pub fn slot_of(&self, key: NodeId) -> Option<u32> {
        self.by_key.get(&key.raw()).copied()
    }

    /// The live clusters.
    pub fn live(&self) -> impl Iterator<Item = &Cluster> + '_ {
        self.by_key.values().map(|&slot| self.get(slot))
    }

    pub fn count(&self) -> usize {
        self.items.live()
    }

    /// Heap bytes held, approximately.
    pub fn memory_bytes(&self) -> usize {
        self.live()
            .map(|c| {
                std::mem::size_of::<Cluster>()
                    + 4 * (c.leaves.capacity()
                        + c.gates.capacity()
                        + c.entrances.capacity()
                        + c.pred.capacity())
                    + 8 * c.dist.capacity()
                    + 4 * c.reach.capacity()
            })
            .sum::<usize>()
            + self.by_key.capacity() * 13
    }

    /// Puts a new free leaf into its cluster and returns the cluster's slot.
    pub fn attach(&mut self, g: &mut GateGraph, shape: &Shape, leaf: u32) -> u32 {
        let (id, rect) = (g.leaf(leaf).id, g.leaf(leaf).rect);
        let key = shape.cell_id(id.depth().min(self.depth), rect.x1, rect.y1);
        let slot = *self.by_key.entry(key.raw()).or_insert_with(|| {
            self.items.insert(Cluster {
                key,
                leaves: Vec::new(),
                gates: Vec::new(),
                entrances: Vec::new(),
                dist: Vec::new(),
                pred: Vec::new(),
                reach: Vec::new(),
            })
        });
        self.items.items[slot as usize].leaves.push(leaf);
        g.leaf_mut(leaf).cluster = slot;
        slot
    }

    /// Takes a leaf that is about to be removed out of its cluster. Returns the cluster's
    /// slot while it still has leaves.
    pub fn detach(&mut self, g: &GateGraph, leaf: u32) -> Option<u32> {
        let slot = g.leaf(leaf).cluster;
        let c = &mut self.items.items[slot as usize];
        let pos = c
            .leaves
            .iter()
            .position(|&l| l == leaf)
            .expect("a leaf is in its cluster");
        c.leaves.swap_remove(pos);
        if !c.leaves.is_empty() {
            return Some(slot);
        }
        self.by_key.remove(&c.key.raw());
        c.gates.clear();
        c.entrances.clear();
        c.dist = Vec::new();
        c.pred = Vec::new();
        c.reach = Vec::new();
        self.items.release(slot);
        None
    }

    /// Recomputes a cluster's gate list, entrances, and entrance-to-entrance routes.
    pub fn recompute(
        &mut self,
        g: &mut GateGraph,
        shape: &Shape,
        grid: &crate::grid::Grid,
        slot: u32,
    ) {
        let mut c = std::mem::replace(
            &mut self.items.items[slot as usize],
            Cluster {
                key: NodeId::ROOT,
                leaves: vec![],
                gates: vec![],
                entrances: vec![],
                dist: vec![],
                pred: vec![],
                reach: vec![],
            },
        );
        c.gates.clear();
        for &leaf in &c.leaves {
            c.gates.extend_from_slice(&g.leaf(leaf).gates);
        }
        for (i, &gate) in c.gates.iter().enumerate() {
            let gt = g.gate_mut(gate);
            gt.local = i as u32;
            gt.entrance = NONE;
        }
        c.entrances.clear();
        let mut entrances = std::mem::take(&mut c.entrances);
        for dir in Direction::SIDES {
            self.border_entrances(g, shape, grid, &c, dir, &mut entrances);
        }
        c.entrances = entrances;
        c.entrances.sort_unstable();
        c.entrances.dedup();
        for (i, &e) in c.entrances.iter().enumerate() {
            g.gate_mut(e).entrance = i as u32;
        }
        let (n_e, n_g) = (c.entrances.len(), c.gates.len());
        c.dist.clear();
        c.dist.resize(n_e * n_e, f64::INFINITY);
        c.pred.clear();
        c.pred.resize(n_e * n_g, NONE);
        c.reach.clear();
        c.reach.resize(n_e * n_g, f32::INFINITY);
        self.scratch.prepare(g, &c, slot);
        for i in 0..n_e {
            let source = g.gate(c.entrances[i]).local;
            self.scratch.run(source);
            for j in 0..n_e {
                c.dist[i * n_e + j] = self.scratch.dist[g.gate(c.entrances[j]).local as usize];
            }
            c.pred[i * n_g..(i + 1) * n_g].copy_from_slice(&self.scratch.pred[..n_g]);
            for (r, &d) in c.reach[i * n_g..(i + 1) * n_g]
                .iter_mut()
                .zip(&self.scratch.dist)
            {
                *r = d as f32;
            }
        }
        self.items.items[slot as usize] = c;
    }

    /// Appends the entrances on one side of a cluster. The crossings leaving it across
    /// that side are grouped into runs: neighbours along the side with every border cell
    /// between them open on both sides, and within one line of the cluster grid. On each
    /// run the policy picks positions and the crossing nearest each is kept. Both clusters
    /// sharing a border see the same crossings and runs, so they keep the same pairs.
    fn border_entrances(
        &self,
        g: &GateGraph,
        shape: &Shape,
        grid: &crate::grid::Grid,
        c: &Cluster,
        dir: Direction,
        out: &mut Vec<u32>,
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
        let mut crossings: Vec<(u32, u32)> = Vec::new();
        for &leaf in &c.leaves {
            let l = g.leaf(leaf);
            for (&gate, &cell) in l.gates.iter().zip(&l.cells) {
                if (if vertical { cell.x } else { cell.y }) != edge {
                    continue;
                }
                for &o in &g.gate(gate).links {
                    let oc = g.gate(o).cell;
                    let straight_across = along(oc) == along(cell)
                        && if vertical {
                            oc.x as i64 == cell.x as i64 + dx as i64
                        } else {
                            oc.y as i64 == cell.y as i64 + dy as i64
                        };
                    if straight_across {
                        crossings.push((along(cell), gate));
                    }
                }
            }
        }
        crossings.sort_unstable();
        let segment = |t: u32| {
            let id = shape.cell_id(
                self.depth,
                if vertical { 0 } else { t },
                if vertical { t } else { 0 },
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
        let joined = |a: u32, b: u32| segment(a) == segment(b) && (a..=b).all(open);
        let mut i = 0;
        while i < crossings.len() {
            let mut j = i;
            while j + 1 < crossings.len() && joined(crossings[j].0, crossings[j + 1].0) {
                j += 1;
            }
            let run = &crossings[i..=j];
            for p in self
                .config
                .entrances
                .positions(run[0].0, run[run.len() - 1].0)
            {
                let nearest = run.iter().min_by_key(|x| (x.0.abs_diff(p), x.0)).unwrap();
                out.push(nearest.1);
            }
            i = j + 1;
        }
    }
}

/// Dijkstra over the gate graph restricted to one cluster, with reusable buffers.
///
/// A cluster runs one search per entrance over the same few hundred gates, so
/// [`LocalSearch::prepare`] first copies the cluster's part of the graph into flat arrays by
/// local index: the searches then never touch the graph's slabs.
#[derive(Clone, Debug, Default)]
pub(crate) struct LocalSearch {
    /// Distance by local gate index.
    pub dist: Vec<f64>,
    /// Predecessor by local gate index: a local index, `FROM_ORIGIN`, or `NONE`.
    pub pred: Vec<u32>,
    closed: Vec<bool>,
    open: OpenList,
    /// Per local gate: its cell, and the local range of its leaf's gates (a cluster lists
    /// each leaf's gates together).
    cells: Vec<Cell>,
    mates: Vec<(u32, u32)>,
    /// Crossings that stay in the cluster, by local index: `links[link_start[u]..][..]`.
    link_start: Vec<u32>,
    links: Vec<u32>,
}

impl LocalSearch {
    /// Copies cluster `c` (slot `slot`) out of the graph; its gates' `local` fields must be
    /// set, and its gate list must hold each leaf's gates in one run.
    pub fn prepare(&mut self, g: &GateGraph, c: &Cluster, slot: u32) {
        self.cells.clear();
        self.mates.clear();
        self.link_start.clear();
        self.links.clear();
        let mut at = 0u32;
        for &leaf in &c.leaves {
            let l = g.leaf(leaf);
            let span = (at, at + l.gates.len() as u32);
            at = span.1;
            for (&v, &cell) in l.gates.iter().zip(&l.cells) {
                self.cells.push(cell);
                self.mates.push(span);
                self.link_start.push(self.links.len() as u32);
                for &o in &g.gate(v).links {
                    let other = g.gate(o);
                    if g.leaf(other.leaf).cluster == slot {
                        self.links.push(other.local);
                    }
                }
            }
        }
        self.link_start.push(self.links.len() as u32);
    }

    /// Runs from local gate `source` over the cluster last [`prepare`](Self::prepare)d.
    pub fn run(&mut self, source: u32) {
        let n = self.cells.len();
        self.dist.clear();
        self.dist.resize(n, f64::INFINITY);
        self.pred.clear();
        self.pred.resize(n, NONE);
        self.closed.clear();
        self.closed.resize(n, false);
        self.open.clear();
        self.dist[source as usize] = 0.0;
        self.pred[source as usize] = FROM_ORIGIN;
        self.open.push(0.0, source);
        while let Some(u) = self.open.pop() {
            let ui = u as usize;
            if self.closed[ui] {
                continue;
            }
            self.closed[ui] = true;
            let (d, here, span, p) = (self.dist[ui], self.cells[ui], self.mates[ui], self.pred[ui]);
            // Leaf-mates are offered only from gates entered by a crossing (or the source):
            // see the flat search for why that loses nothing.
            if p == FROM_ORIGIN || !(span.0..span.1).contains(&p) {
                for v in span.0..span.1 {
                    self.relax(v, d + octile(here, self.cells[v as usize]), u);
                }
            }
            let (a, b) = (
                self.link_start[ui] as usize,
                self.link_start[ui + 1] as usize,
            );
            for k in a..b {
                let v = self.links[k];
                self.relax(v, d + octile(here, self.cells[v as usize]), u);
            }
        }
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
