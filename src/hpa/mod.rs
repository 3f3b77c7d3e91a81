//! Hierarchical A\* over the quadtree's free leaves.
//!
//! - `graph`: free leaves, their gate cells and the crossings between them;
//! - [`GatePolicy`]: which crossings become gates (all of them in exact mode);
//! - [`SearchContext`]: A\* over gates with reusable buffers and a radix-heap open list;
//! - landmarks: differential bounds that steer exact searches away from dead ends, kept
//!   valid through edits;
//! - [`path`]: refinement into cells, smoothing and an independent validator;
//! - components: reachability labels, updated locally after each edit.
//!
//! [`HpaMap`] ties them to a [`Grid`] and keeps them up to date as cells are blocked and
//! freed.

mod clusters;
mod components;
pub(crate) mod graph;
mod landmarks;
mod open;
pub mod path;
mod policy;
mod search;

pub use clusters::Clustering;
pub use path::{validate, Path, PathDefect};
pub use policy::{adaptive_step, GatePolicy};
pub use search::SearchContext;

use crate::geom::{Cell, Direction, Rect};
use crate::grid::Grid;
use crate::quadtree::{LeafChange, NodeId, QuadTree, QuadtreeError, SplitStopper};
use clusters::Clusters;
use components::Components;
use graph::{GateGraph, NONE};
use hashbrown::HashMap;

/// The speed/quality trade-off of an [`HpaMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Every crossing is a gate, and landmark bounds guide the search: paths have optimal
    /// length.
    #[default]
    Exact,
    /// Sparse gates ([`GatePolicy::Adaptive`]) and string-pulling: much faster searches,
    /// paths a few percent longer than optimal.
    Fast,
}

/// How an [`HpaMap`] builds its gate graph and post-processes paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Which border crossings become gates.
    pub gates: GatePolicy,
    /// Search over cluster entrances instead of every gate. `None` searches the gate graph
    /// itself, which is optimal when `gates` is [`GatePolicy::All`]. Small maps are not
    /// clustered (see [`Clustering::min_side`]).
    pub clusters: Option<Clustering>,
    /// Shorten paths by string pulling after refinement.
    pub smooth: bool,
    /// Split free leaves larger than this many cells on a side. Smaller leaves mean more
    /// gates but cheaper edits inside large open areas.
    pub max_leaf_side: Option<u32>,
    /// Landmarks for differential heuristics (0 to 16; 0 turns them off). Each costs 4
    /// bytes per cell and one grid Dijkstra at build time, and lets the search skip most of
    /// the dead ends the octile heuristic walks into. Optimality is unaffected.
    pub landmarks: u8,
}

impl Config {
    /// Optimal paths: every crossing is a gate, no smoothing needed, and 8 landmarks.
    pub fn exact() -> Self {
        Config {
            gates: GatePolicy::All,
            clusters: None,
            smooth: false,
            max_leaf_side: None,
            landmarks: 8,
        }
    }

    /// Fast, near-optimal paths: sparse gates ([`GatePolicy::Adaptive`]) between leaves,
    /// a search over cluster entrances placed by the same policy, and smoothing.
    pub fn fast() -> Self {
        Config {
            gates: GatePolicy::Adaptive,
            clusters: Some(Clustering::default()),
            smooth: true,
            max_leaf_side: None,
            landmarks: 0,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config::exact()
    }
}

impl From<Mode> for Config {
    fn from(m: Mode) -> Self {
        match m {
            Mode::Exact => Config::exact(),
            Mode::Fast => Config::fast(),
        }
    }
}

/// Which end of a query an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// The start cell.
    Start,
    /// The goal cell.
    Goal,
}

impl Endpoint {
    /// "start" or "goal".
    pub fn as_str(self) -> &'static str {
        match self {
            Endpoint::Start => "start",
            Endpoint::Goal => "goal",
        }
    }
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a path could not be found, or an edit could not be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PathError {
    /// A cell is outside the map.
    #[error("{what} {cell} is outside the {width}x{height} map")]
    OutOfBounds {
        /// What the cell was for: "start", "goal" or "cell".
        what: &'static str,
        /// The cell.
        cell: Cell,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// The start or the goal is on a blocked cell.
    #[error("{endpoint} {cell} is on a blocked cell")]
    Blocked {
        /// Which end.
        endpoint: Endpoint,
        /// The cell.
        cell: Cell,
    },
    /// No path joins the start and the goal.
    #[error("no path from {start} to {goal}: they are not connected")]
    Unreachable {
        /// Start cell.
        start: Cell,
        /// Goal cell.
        goal: Cell,
    },
    /// The map cannot be indexed.
    #[error(transparent)]
    Tree(#[from] QuadtreeError),
}

/// A grid map prepared for hierarchical A\*: a quadtree of all-free and all-blocked
/// leaves, gates between adjacent free leaves, and reachability labels. Cells can be
/// blocked and freed at any time; only the leaves around the change are rebuilt.
///
/// ```
/// use quadpath::{Cell, Grid, HpaMap, Rect};
/// let mut map = HpaMap::new(Grid::new_free(64, 64), quadpath::Mode::Exact)?;
/// let (a, b) = (Cell::new(2, 30), Cell::new(60, 30));
/// assert_eq!(map.find_path(a, b)?.length, 58.0);
/// // A wall with a gap at the bottom goes up between them: re-plan around it.
/// map.set_rect_blocked(Rect::new(30, 0, 31, 55), true)?;
/// let path = map.find_path(a, b)?;
/// assert!(path.length > 58.0);
/// assert!(path.cells.iter().all(|c| c.y > 55 || c.x < 30 || c.x > 31));
/// # Ok::<(), quadpath::PathError>(())
/// ```
pub struct HpaMap {
    grid: Grid,
    tree: QuadTree<()>,
    config: Config,
    graph: GateGraph,
    components: Components,
    clusters: Option<Clusters>,
    landmarks: landmarks::Landmarks,
    ctx: SearchContext,
    crossing_buf: Vec<(Cell, Cell)>,
}

impl std::fmt::Debug for HpaMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HpaMap")
            .field("grid", &self.grid)
            .field("config", &self.config)
            .field("free_leaves", &self.free_leaf_count())
            .field("gates", &self.gate_count())
            .field("components", &self.component_count())
            .finish()
    }
}

impl HpaMap {
    /// Builds the tree, the gates and the components for `grid`.
    pub fn new(grid: Grid, config: impl Into<Config>) -> Result<Self, PathError> {
        let config = config.into();
        let stopper = match config.max_leaf_side {
            Some(s) => SplitStopper::uniform().with_max_leaf_side(s.max(1)),
            None => SplitStopper::uniform(),
        };
        let mut tree = QuadTree::build(
            grid.width(),
            grid.height(),
            stopper,
            grid.blocked_cells().map(|c| (c, ())),
        )?;
        tree.track_changes(true);
        let mut map = HpaMap {
            graph: GateGraph::new(grid.width(), grid.height()),
            grid,
            tree,
            config,
            components: Components::default(),
            clusters: None,
            landmarks: landmarks::Landmarks::default(),
            ctx: SearchContext::new(),
            crossing_buf: Vec::new(),
        };
        let mut free: Vec<(NodeId, Rect)> = map
            .tree
            .leaves()
            .filter(|l| l.object_count() == 0)
            .map(|l| (l.id(), l.rect()))
            .collect();
        // Slots in Z-order keep neighbouring leaves, and their gates, close in memory: the
        // search is bound by cache misses, not arithmetic.
        free.sort_unstable_by_key(|(_, r)| morton(r.x1, r.y1));
        let slots: Vec<u32> = free
            .iter()
            .map(|&(id, rect)| map.graph.add_leaf(id, rect))
            .collect();
        for &a in &slots {
            for b in map.later_neighbours(map.graph.leaf(a).rect) {
                map.connect(a, b);
            }
        }
        map.components.label_all(&mut map.graph);
        let shape = map.tree.shape();
        if let Some(mut clusters) = config.clusters.and_then(|cfg| Clusters::new(cfg, &shape)) {
            let mut all: Vec<u32> = slots
                .iter()
                .map(|&leaf| clusters.attach(&mut map.graph, &shape, leaf))
                .collect();
            all.sort_unstable();
            all.dedup();
            for c in all {
                clusters.recompute(&mut map.graph, &shape, &map.grid, c);
            }
            map.clusters = Some(clusters);
        }
        if config.landmarks > 0 {
            map.landmarks = landmarks::Landmarks::build(&map.grid, config.landmarks as usize);
        }
        Ok(map)
    }

    /// The map as it is now.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The quadtree of free and blocked leaves (one object per blocked cell).
    pub fn tree(&self) -> &QuadTree<()> {
        &self.tree
    }

    /// The configuration it was built with.
    pub fn config(&self) -> Config {
        self.config
    }

    /// Number of free leaves.
    pub fn free_leaf_count(&self) -> usize {
        self.graph.leaves.live()
    }

    /// Number of gate cells.
    pub fn gate_count(&self) -> usize {
        self.graph.gates.live()
    }

    /// Number of stored crossings between gates of adjacent leaves.
    pub fn crossing_count(&self) -> usize {
        self.graph.crossing_count()
    }

    /// Number of clusters (0 when the map is not clustered).
    pub fn cluster_count(&self) -> usize {
        self.clusters.as_ref().map_or(0, Clusters::count)
    }

    /// Number of cluster entrances (0 when the map is not clustered).
    pub fn entrance_count(&self) -> usize {
        self.clusters
            .as_ref()
            .map_or(0, |c| c.live().map(|c| c.entrances.len()).sum())
    }

    /// Number of landmarks the search's heuristic uses (see [`Config::landmarks`]).
    pub fn landmark_count(&self) -> usize {
        self.landmarks.count()
    }

    /// Number of connected free regions.
    pub fn component_count(&self) -> usize {
        self.components.count()
    }

    /// Approximate heap bytes held by the grid, the tree, the gate graph, the clusters and
    /// the landmark table.
    pub fn memory_bytes(&self) -> usize {
        self.grid.memory_bytes()
            + self.tree.memory_bytes()
            + self.graph.memory_bytes()
            + self.clusters.as_ref().map_or(0, Clusters::memory_bytes)
            + self.landmarks.memory_bytes()
    }

    /// Every crossing as a pair of cells, each reported once, for rendering and tests.
    pub fn crossings(&self) -> Vec<(Cell, Cell)> {
        let g = &self.graph;
        let mut out = Vec::with_capacity(g.crossing_count());
        for gate in g.gates.items.iter().filter(|x| x.leaf != NONE) {
            out.extend(
                gate.links
                    .iter()
                    .map(|&o| g.gate(o).cell)
                    .filter(|&o| gate.cell < o)
                    .map(|o| (gate.cell, o)),
            );
        }
        out
    }

    /// Whether two free cells are connected, answered from the component labels.
    pub fn connected(&self, a: Cell, b: Cell) -> Result<bool, PathError> {
        let la = self.free_leaf_of(a, Endpoint::Start)?;
        let lb = self.free_leaf_of(b, Endpoint::Goal)?;
        Ok(self.graph.leaf(la).component == self.graph.leaf(lb).component)
    }

    fn check(&self, what: &'static str, x: u32, y: u32) -> Result<Cell, PathError> {
        let (width, height) = (self.grid.width(), self.grid.height());
        if x < width && y < height {
            Ok(Cell::new(x, y))
        } else {
            Err(PathError::OutOfBounds {
                what,
                cell: Cell::new(x, y),
                width,
                height,
            })
        }
    }

    fn free_leaf_of(&self, c: Cell, endpoint: Endpoint) -> Result<u32, PathError> {
        self.check(endpoint.as_str(), c.x, c.y)?;
        if !self.grid.is_free(c) {
            return Err(PathError::Blocked { endpoint, cell: c });
        }
        let id = self.tree.find(c.x, c.y)?.id();
        Ok(self.graph.leaf_slot[&id.raw()])
    }

    /// Brings the cluster layer and the landmarks up to date after edits.
    ///
    /// Edits update the tree, the gates and the components at once, but only mark the
    /// clusters they touch: recomputing a cluster's entrance routes costs far more than the
    /// edit, and a burst of edits (a building placed cell by cell, a wall raised) should pay
    /// it once. Likewise, an edit that opens a real shortcut (a wall knocked through)
    /// changes the landmark distances over a whole region; past a fixed budget the edit sets
    /// those landmarks aside and this recomputes them (one grid search each).
    /// [`HpaMap::find_path`] refreshes by itself; call this to choose when the cost is
    /// paid, for example before sharing the map with [`HpaMap::find_path_with`], which
    /// meanwhile stays correct: it searches the gate graph and ignores set-aside landmarks.
    pub fn refresh(&mut self) {
        if let Some(clusters) = &mut self.clusters {
            clusters.refresh(&mut self.graph, &self.tree.shape(), &self.grid);
        }
        self.landmarks.refresh(&self.grid);
    }

    /// Whether edits have left clusters or landmarks to recompute (see
    /// [`HpaMap::refresh`]).
    pub fn needs_refresh(&self) -> bool {
        self.clusters.as_ref().is_some_and(Clusters::is_stale) || self.landmarks.is_stale()
    }

    /// The shortest path this map's mode finds from `start` to `goal`, using the map's own
    /// search buffers. Refreshes the cluster layer first if edits left it stale.
    pub fn find_path(&mut self, start: Cell, goal: Cell) -> Result<Path, PathError> {
        self.refresh();
        let mut ctx = std::mem::take(&mut self.ctx);
        let result = self.find_path_with(&mut ctx, start, goal);
        self.ctx = ctx;
        result
    }

    /// [`HpaMap::find_path`] with caller-owned buffers, so that several threads can search
    /// one shared map, each with its own [`SearchContext`]. While clusters are stale (see
    /// [`HpaMap::refresh`]) it searches the gate graph directly: slower, never wrong.
    pub fn find_path_with(
        &self,
        ctx: &mut SearchContext,
        start: Cell,
        goal: Cell,
    ) -> Result<Path, PathError> {
        let sl = self.free_leaf_of(start, Endpoint::Start)?;
        let gl = self.free_leaf_of(goal, Endpoint::Goal)?;
        if sl == gl {
            // One obstacle-free rectangle: the straight line is optimal.
            return Ok(Path::from_cells(path::refine(&[start, goal])));
        }
        if self.graph.leaf(sl).component != self.graph.leaf(gl).component {
            return Err(PathError::Unreachable { start, goal });
        }
        let ends = search::Ends {
            start,
            start_leaf: sl,
            goal,
            goal_leaf: gl,
        };
        let landmarks = Some(&self.landmarks);
        let found = match &self.clusters {
            Some(clusters) if !clusters.is_stale() => {
                ctx.search_clustered(&self.graph, clusters, ends, landmarks)
            }
            _ => ctx.search(&self.graph, ends, landmarks).map(|(w, _)| w),
        };
        let mut waypoints = found.ok_or(PathError::Unreachable { start, goal })?;
        if self.config.smooth {
            waypoints = path::smooth(&self.grid, &waypoints);
        }
        Ok(Path::from_cells(path::refine(&waypoints)))
    }

    /// Blocks (`true`) or frees (`false`) one cell, updating the structure locally.
    /// Returns whether the cell changed.
    pub fn set_blocked(&mut self, x: u32, y: u32, blocked: bool) -> Result<bool, PathError> {
        self.check("cell", x, y)?;
        let changed = self.toggle(x, y, blocked)?;
        if changed {
            self.update(blocked);
            self.update_landmarks(blocked, &[Cell::new(x, y)]);
        }
        Ok(changed)
    }

    /// Blocks or frees every cell of a rectangle (a building placed or torn down), then
    /// updates the structure once. Returns how many cells changed.
    pub fn set_rect_blocked(&mut self, rect: Rect, blocked: bool) -> Result<usize, PathError> {
        self.check("cell", rect.x1, rect.y1)?;
        self.check("cell", rect.x2, rect.y2)?;
        let mut changed = Vec::new();
        for c in rect.cells() {
            if self.toggle(c.x, c.y, blocked)? {
                changed.push(c);
            }
        }
        if !changed.is_empty() {
            self.update(blocked);
            self.update_landmarks(blocked, &changed);
        }
        Ok(changed.len())
    }

    fn update_landmarks(&mut self, blocked: bool, cells: &[Cell]) {
        if blocked {
            self.landmarks.on_blocked(&self.grid, cells);
        } else {
            self.landmarks.on_freed(&self.grid, cells);
        }
    }

    fn toggle(&mut self, x: u32, y: u32, blocked: bool) -> Result<bool, PathError> {
        if self.grid.is_free(Cell::new(x, y)) != blocked {
            return Ok(false);
        }
        self.grid.set_blocked(Cell::new(x, y), blocked);
        if blocked {
            self.tree.add(x, y, ())?;
        } else {
            self.tree.remove(x, y, &())?;
        }
        Ok(true)
    }

    /// Rebuilds gates and labels for the leaves the tree reports as replaced. All edits
    /// since the last update went the same way: all blocked (`blocking`) or all freed.
    fn update(&mut self, blocking: bool) {
        let mut removed = Vec::new();
        let mut created: HashMap<NodeId, Rect> = HashMap::new();
        for change in self.tree.drain_changes() {
            match change {
                LeafChange::Removed { id, .. } => {
                    if created.remove(&id).is_none() {
                        if let Some(&slot) = self.graph.leaf_slot.get(&id.raw()) {
                            removed.push(slot);
                        }
                    }
                }
                LeafChange::Created { id, rect } => {
                    created.insert(id, rect);
                }
            }
        }
        removed.sort_unstable();
        removed.dedup();
        // Clusters whose leaves or gates change, by key: slots may be recycled meanwhile.
        let mut dirty: Vec<NodeId> = Vec::new();
        for slot in removed {
            self.components.forget(self.graph.leaf(slot).component);
            if let Some(clusters) = &mut self.clusters {
                if let Some(c) = clusters.detach(&self.graph, slot) {
                    dirty.push(clusters.get(c).key);
                }
            }
            self.graph.remove_leaf(slot);
        }
        // Each new leaf with its slot (when free) and its free neighbours, which the gates,
        // the clusters and the components all need.
        let mut new_free = Vec::new();
        let mut around: Vec<(NodeId, Option<u32>, Vec<u32>)> = Vec::with_capacity(created.len());
        for (&id, &rect) in &created {
            let free = self.tree.node(id).is_some_and(|n| n.object_count() == 0);
            let slot = free.then(|| self.graph.add_leaf(id, rect));
            new_free.extend(slot);
            around.push((id, slot, Vec::new()));
        }
        // Only once every new free leaf has a slot: they may neighbour each other.
        for (id, _, neighbours) in &mut around {
            *neighbours = self.free_neighbours(*id);
        }
        for (_, slot, neighbours) in &around {
            let Some(a) = *slot else { continue };
            for &b in neighbours {
                let b_id = self.graph.leaf(b).id;
                if !created.contains_key(&b_id) || self.graph.leaf(a).id < b_id {
                    self.connect(a, b);
                }
            }
        }
        self.refresh_corner_crossings(&created);
        if let Some(mut clusters) = self.clusters.take() {
            let shape = self.tree.shape();
            for &leaf in &new_free {
                let c = clusters.attach(&mut self.graph, &shape, leaf);
                dirty.push(clusters.get(c).key);
            }
            // Gates appear and vanish only in leaves next to the replaced ones.
            for (_, _, neighbours) in &around {
                dirty.extend(
                    neighbours
                        .iter()
                        .map(|&n| clusters.get(self.graph.leaf(n).cluster).key),
                );
            }
            clusters.mark_stale(dirty);
            self.clusters = Some(clusters);
        }
        self.components
            .absorb_new_leaves(&mut self.graph, &new_free);
        if blocking {
            // Free leaves next to the change: new ones, and those around new blocked leaves.
            let mut seeds = new_free;
            for (_, _, neighbours) in around.iter().filter(|(_, slot, _)| slot.is_none()) {
                seeds.extend_from_slice(neighbours);
            }
            self.components.split_off(&mut self.graph, &seeds);
        }
    }

    /// A diagonal crossing between two untouched leaves runs past the corner cell of the
    /// leaf between them, so when that leaf changed, the crossing may have become legal or
    /// illegal. Recompute the crossings of each such pair.
    fn refresh_corner_crossings(&mut self, created: &HashMap<NodeId, Rect>) {
        let mut pairs = Vec::new();
        for rect in created.values() {
            for (corner, vertical, horizontal) in [
                ((rect.x1, rect.y1), Direction::N, Direction::W),
                ((rect.x2, rect.y1), Direction::N, Direction::E),
                ((rect.x1, rect.y2), Direction::S, Direction::W),
                ((rect.x2, rect.y2), Direction::S, Direction::E),
            ] {
                let corner = Cell::from(corner);
                let (Some(a), Some(b)) = (corner.step(vertical), corner.step(horizontal)) else {
                    continue;
                };
                let (Some(la), Some(lb)) = (self.free_leaf_at(a), self.free_leaf_at(b)) else {
                    continue;
                };
                let (ia, ib) = (self.graph.leaf(la).id, self.graph.leaf(lb).id);
                if la != lb && !created.contains_key(&ia) && !created.contains_key(&ib) {
                    pairs.push((la.min(lb), la.max(lb)));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        for (a, b) in pairs {
            self.graph.unlink_leaves(a, b);
            self.connect(a, b);
        }
    }

    /// The slot of the free leaf holding `c`, if `c` is on the map and free.
    fn free_leaf_at(&self, c: Cell) -> Option<u32> {
        if !self.grid.is_free(c) {
            return None;
        }
        let id = self.tree.find(c.x, c.y).ok()?.id();
        self.graph.leaf_slot.get(&id.raw()).copied()
    }

    /// Slots of the free leaves next to leaf `id`, each once.
    fn free_neighbours(&self, id: NodeId) -> Vec<u32> {
        let mut out = Vec::new();
        for dir in Direction::ALL {
            self.tree.for_each_neighbour(id, dir, |n| {
                if n.object_count() == 0 {
                    out.push(self.graph.leaf_slot[&n.id().raw()]);
                }
            });
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The free leaves east, south, and (touching only at the corner) south-east and
    /// south-west of the free leaf covering `r`: visiting these from every leaf meets each
    /// adjacent pair exactly once, with half the neighbour queries of all eight directions.
    fn later_neighbours(&self, r: Rect) -> Vec<u32> {
        let id = self
            .tree
            .find(r.x1, r.y1)
            .expect("a leaf's corner is on the map")
            .id();
        let mut out = Vec::new();
        for dir in [Direction::E, Direction::S, Direction::SE, Direction::SW] {
            self.tree.for_each_neighbour(id, dir, |n| {
                let nr = n.rect();
                // A diagonal neighbour that also runs along a side was met through that side.
                let corner_only = !dir.is_diagonal()
                    || (nr.x2 < r.x1 || nr.x1 > r.x2) && (nr.y2 < r.y1 || nr.y1 > r.y2);
                if n.object_count() == 0 && corner_only {
                    out.push(self.graph.leaf_slot[&n.id().raw()]);
                }
            });
        }
        out
    }

    /// Adds the crossings the policy keeps between free leaves `a` and `b`. The pair is
    /// always taken in ID order, so that an incremental update picks the same crossings
    /// as a fresh build.
    fn connect(&mut self, a: u32, b: u32) {
        let (a, b) = if self.graph.leaf(a).id < self.graph.leaf(b).id {
            (a, b)
        } else {
            (b, a)
        };
        let (ra, rb) = (self.graph.leaf(a).rect, self.graph.leaf(b).rect);
        let mut buf = std::mem::take(&mut self.crossing_buf);
        buf.clear();
        policy::select_crossings(&self.grid, ra, rb, self.config.gates, &mut buf);
        for &(ca, cb) in &buf {
            self.graph.link(ca, a, cb, b);
        }
        self.crossing_buf = buf;
    }

    /// Throws the structure away and builds it again from the current grid: what the
    /// incremental updates avoid, kept for comparison.
    pub fn rebuild(&mut self) -> Result<(), PathError> {
        *self = HpaMap::new(self.grid.clone(), self.config)?;
        Ok(())
    }

    /// A canonical description of the structure, equal for two maps exactly when they have
    /// the same leaves, gates, crossings and component partition. For tests.
    ///
    /// # Panics
    /// When clusters await [`HpaMap::refresh`].
    #[doc(hidden)]
    pub fn snapshot(&self) -> Snapshot {
        assert!(
            !self.needs_refresh(),
            "refresh the map before taking a snapshot"
        );
        let mut leaves: Vec<(u64, Rect, bool)> = self
            .tree
            .leaves()
            .map(|l| (l.id().raw(), l.rect(), l.object_count() == 0))
            .collect();
        leaves.sort_unstable_by_key(|l| l.0);
        let mut crossings = self.crossings();
        crossings.sort_unstable();
        let mut gates: Vec<(Cell, u64)> = self
            .graph
            .gates
            .items
            .iter()
            .filter(|g| g.leaf != NONE)
            .map(|g| (g.cell, self.graph.leaf(g.leaf).id.raw()))
            .collect();
        gates.sort_unstable();
        let mut by_label: HashMap<u32, Vec<u64>> = HashMap::new();
        for (&id, &slot) in &self.graph.leaf_slot {
            by_label
                .entry(self.graph.leaf(slot).component)
                .or_default()
                .push(id);
        }
        let mut components: Vec<Vec<u64>> = by_label
            .into_values()
            .map(|mut v| {
                v.sort_unstable();
                v
            })
            .collect();
        components.sort_unstable();
        let mut clusters = Vec::new();
        if let Some(cl) = &self.clusters {
            for c in cl.live() {
                let cells: Vec<Cell> = c
                    .entrances
                    .iter()
                    .map(|&e| self.graph.gate(e).cell)
                    .collect();
                let n = cells.len();
                let mut routes: Vec<(Cell, Cell, i64)> = (0..n * n)
                    .filter(|&k| c.dist[k].is_finite())
                    .map(|k| (cells[k / n], cells[k % n], (c.dist[k] * 1e6).round() as i64))
                    .collect();
                routes.sort_unstable();
                clusters.push((c.key.raw(), routes));
            }
        }
        clusters.sort_unstable();
        Snapshot {
            leaves,
            gates,
            crossings,
            components,
            clusters,
        }
    }

    /// Checks the internal bookkeeping (slots, positions, symmetric links). For tests.
    #[doc(hidden)]
    pub fn check_consistency(&self) -> Result<(), String> {
        let g = &self.graph;
        self.components.check_sizes(g)?;
        self.landmarks.check(&self.grid)?;
        for (&id, &slot) in &g.leaf_slot {
            let leaf = g.leaf(slot);
            if leaf.id.raw() != id {
                return Err(format!("slot {slot} holds {} not {id}", leaf.id));
            }
            if leaf.component == NONE {
                return Err(format!("leaf {} has no component", leaf.id));
            }
            for (pos, &gate) in leaf.gates.iter().enumerate() {
                let gt = g.gate(gate);
                if gt.leaf != slot
                    || gt.pos as usize != pos
                    || !leaf.rect.contains(gt.cell.x, gt.cell.y)
                {
                    return Err(format!("gate {} misfiled in leaf {}", gt.cell, leaf.id));
                }
                if gt.links.is_empty() {
                    return Err(format!("gate {} has no crossing", gt.cell));
                }
                for &o in &gt.links {
                    let other = g.gate(o);
                    if other.leaf == NONE || other.leaf == slot || !other.links.contains(&gate) {
                        return Err(format!(
                            "crossing {} -> {} is one-sided",
                            gt.cell, other.cell
                        ));
                    }
                    if g.leaf(other.leaf).component != leaf.component {
                        return Err(format!(
                            "crossing {} -> {} joins two components",
                            gt.cell, other.cell
                        ));
                    }
                    let d = Direction::between(gt.cell, other.cell);
                    if !d.is_some_and(|d| self.grid.can_step(gt.cell, d)) {
                        return Err(format!(
                            "crossing {} -> {} is not a legal step",
                            gt.cell, other.cell
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Interleaves the bits of `x` and `y` (Z-order), for memory layouts that follow space.
fn morton(x: u32, y: u32) -> u64 {
    fn spread(v: u32) -> u64 {
        let mut v = v as u64;
        v = (v | (v << 16)) & 0x0000_ffff_0000_ffff;
        v = (v | (v << 8)) & 0x00ff_00ff_00ff_00ff;
        v = (v | (v << 4)) & 0x0f0f_0f0f_0f0f_0f0f;
        v = (v | (v << 2)) & 0x3333_3333_3333_3333;
        v = (v | (v << 1)) & 0x5555_5555_5555_5555;
        v
    }
    spread(x) | (spread(y) << 1)
}

/// Two entrances of a cluster and the distance between them, in millionths of a cell.
#[doc(hidden)]
pub type EntranceRoute = (Cell, Cell, i64);

/// See [`HpaMap::snapshot`].
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// `(id, rect, free)` of every leaf.
    pub leaves: Vec<(u64, Rect, bool)>,
    /// Every gate cell with its leaf.
    pub gates: Vec<(Cell, u64)>,
    /// Every crossing, smaller cell first.
    pub crossings: Vec<(Cell, Cell)>,
    /// The partition of free leaves into components.
    pub components: Vec<Vec<u64>>,
    /// Per cluster, the distance between every two of its entrances.
    pub clusters: Vec<(u64, Vec<EntranceRoute>)>,
}
