//! [`HpaMap`]: the grid, its quadtree and the layers built over it, and how they are built.
//!
//! Queries live in `query.rs`, edits and refreshes in `edit.rs`, the test hooks in
//! `invariants.rs`; this file holds the structure and what building it takes.

use super::clusters::Clusters;
use super::components::Components;
use super::config::Config;
use super::costs::{CostBands, BLOCKED};
use super::error::BuildError;
use super::graph::{GateGraph, LeafId};
use super::landmarks::Landmarks;
use super::policy;
use super::profile::{BuildProfile, MemoryBreakdown};
use super::side_by_side::{join, timed};
use super::subgoals::SubgoalGraph;
use crate::geom::{Cell, Direction, Rect};
use crate::grid::{Grid, TerrainCosts};
use crate::quadtree::{CellCounts, NodeId, NodeRef, QuadTree, QuadtreeError, SplitStopper};
use std::sync::atomic::AtomicU64;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A grid map prepared for hierarchical A\*: a quadtree of all-blocked leaves and free
/// leaves of one terrain cost each, gates between adjacent free leaves, and reachability
/// labels. Cells can be blocked, freed and repaved at any time; only the leaves around the
/// change are rebuilt.
///
/// Queries take `&self`, so one map can serve many threads at once (it is `Send + Sync`);
/// edits take `&mut self`. In fast mode with clusters (under terrain costs, or
/// [`Config::subgoals`] off) an edit leaves the clusters around it *stale*: the
/// search crosses stale clusters over their gates, which is slower there and nowhere
/// else, and [`HpaMap::refresh`] or [`HpaMap::refresh_within`] brings them up to date
/// when the caller chooses to pay for it.
///
/// ```
/// use quadpath::{Cell, Grid, HpaMap, Mode, Rect};
/// let mut map = HpaMap::new(Grid::new_free(64, 64), Mode::Exact)?;
/// let (a, b) = (Cell::new(2, 30), Cell::new(60, 30));
/// assert_eq!(map.find_path(a, b)?.length, 58.0);
/// // A wall with a gap at the bottom goes up between them: re-plan around it.
/// map.set_blocked(Rect::new(30, 0, 31, 55), true)?;
/// let path = map.find_path(a, b)?;
/// assert!(path.length > 58.0);
/// assert!(path.cells.iter().all(|c| c.y > 55 || c.x < 30 || c.x > 31));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct HpaMap {
    pub(super) grid: Grid,
    /// One object per cell outside the base cost band, kinded by its band (see
    /// `hpa::costs`): every leaf is all-blocked, or free and of one cost.
    pub(super) tree: QuadTree<u8>,
    /// Boxed, so that the map stays a small handle.
    pub(super) costs: Box<CostBands>,
    pub(super) config: Config,
    /// The free leaves, and their gates and crossings when the layer keeps them (see
    /// [`HpaMap::keeps_gate_graph`]; `linked` says which). Boxed, so that the map stays a
    /// small handle (its arenas are a dozen words).
    pub(super) graph: Box<GateGraph>,
    /// Whether `graph` holds the gates and crossings, kept up to date by edits; else it
    /// holds the free leaves alone.
    pub(super) linked: bool,
    /// The gate graph a reader asked for through `&self` (a flow field) while `graph` held
    /// the leaves alone: `graph`'s leaves in the same slots, linked. The next edit adopts
    /// it as `graph` and keeps it from then on (see [`HpaMap::gate_graph`]).
    pub(super) asked_gates: OnceLock<Box<GateGraph>>,
    /// Whether a reader has asked for the gate graph ([`HpaMap::gate_graph`]): the layer
    /// keeps it from then on, through edits and compactions.
    pub(super) gates_asked: bool,
    pub(super) components: Components,
    /// Boxed: its search scratch is large, and most maps' clusters are reached rarely
    /// compared with the rest of the struct.
    pub(super) clusters: Option<Box<Clusters>>,
    pub(super) landmarks: Landmarks,
    /// The subgoal graph exact searches use instead of the gate graph, when the
    /// configuration asks for it and the map has one terrain cost (see
    /// [`Config::subgoals`]); boxed, so that the map stays a small handle.
    pub(super) subgoals: Option<Box<SubgoalGraph>>,
    /// Set when cells were freed on a map that has no landmarks though its configuration
    /// asks for them (it was built with nothing free, or too open for them to pay): the
    /// next refresh decides whether to build them now.
    pub(super) landmarks_pending: bool,
    /// Gate expansions of the searches since the landmark columns were last tightened:
    /// what loose columns cost the queries, to weigh against what tightening them costs
    /// (see [`HpaMap::tightening_pays`]). Queries take `&self`, hence the atomic.
    pub(super) search_work: AtomicU64,
    /// Fast answers replaced by the exact search to keep [`Config::max_excess_percent`].
    pub(super) bound_fallbacks: AtomicU64,
    /// Scratch for the crossings of one leaf pair, reused by every edit.
    pub(super) crossing_buf: Vec<(Cell, Cell)>,
    /// How long each step of the build took (boxed: read rarely, and the map stays a
    /// small handle).
    pub(super) build_profile: Box<BuildProfile>,
    /// The build's estimate of the heap bytes (see [`Config::max_memory`]).
    #[cfg_attr(not(any(test, feature = "testing")), allow(dead_code))]
    pub(super) estimated_bytes: usize,
    /// Which state of the cells this is (see [`HpaMap::revision`]).
    pub(super) revision: u64,
    /// What automatic compaction weighs (boxed: read once per refresh at most).
    pub(super) sizes: Box<SizeMarks>,
}

/// Revisions come from one counter for every map in the process, so that two maps, or a
/// map and its rebuilt self, never share one by accident.
static NEXT_REVISION: AtomicU64 = AtomicU64::new(1);

/// A revision no map has had yet.
pub(super) fn next_revision() -> u64 {
    NEXT_REVISION.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
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

/// What [`HpaMap::refresh`] weighs to decide on compacting (see
/// [`Config::compact_above_percent`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SizeMarks {
    /// The revision whose waste was last weighed: unedited since, it is not weighed again.
    pub weighed_revision: u64,
    /// The slack of the map as built (see [`HpaMap::memory_breakdown`]'s waste).
    pub built_slack: usize,
    /// [`HpaMap::memory_bytes`] as built.
    pub built_bytes: usize,
}

impl HpaMap {
    /// Builds the tree, the gates, the components and, as configured, the clusters and the
    /// landmarks for `grid`.
    ///
    /// ```
    /// use quadpath::{Config, Grid, HpaMap, Mode};
    /// let exact = HpaMap::new(Grid::new_free(32, 32), Mode::Exact)?;
    /// let fast = HpaMap::new(Grid::new_free(32, 32), Config::fast().with_smoothing(false))?;
    /// assert_eq!(exact.free_leaf_count(), fast.free_leaf_count());
    /// # Ok::<(), quadpath::BuildError>(())
    /// ```
    ///
    /// # Errors
    /// [`BuildError::Config`] when the configuration is out of range, and
    /// [`BuildError::MapTooLarge`] when a side exceeds what the quadtree can index, and
    /// [`BuildError::MemoryLimit`] when the structure's estimated size is over
    /// [`Config::max_memory`] (checked before each large part is allocated).
    pub fn new(grid: Grid, config: impl Into<Config>) -> Result<Self, BuildError> {
        Self::with_costs(grid, TerrainCosts::unit(), config)
    }

    /// [`HpaMap::new`] for a grid whose terrain codes cost `costs` per unit of step length
    /// (see [the model](crate::Movement#the-model)): paths are the cheapest ones (exact
    /// mode) or close to them (fast mode), and report their [`cost`](crate::Path::cost)
    /// beside their length.
    ///
    /// The quadtree keeps each leaf uniform in cost as well as in openness, so a road
    /// through open ground splits the ground's leaves along it.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode, Rect, TerrainCosts};
    /// // Open ground with a road along the bottom row.
    /// let mut grid = Grid::new_free(32, 8);
    /// grid.set_terrain(Rect::new(0, 7, 31, 7), b'G');
    /// let map = HpaMap::with_costs(grid, "G=0.25".parse::<TerrainCosts>()?, Mode::Exact)?;
    /// let path = map.find_path(Cell::new(0, 0), Cell::new(31, 0))?;
    /// assert!(path.cells.contains(&Cell::new(16, 7)), "down to the road and back");
    /// assert!(path.cost < 31.0 && path.length > 31.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`HpaMap::new`], and [`BuildError::Costs`] when `costs` weighs a code that is not
    /// in the grid's [passable set](Grid::passable).
    pub fn with_costs(
        grid: Grid,
        costs: TerrainCosts,
        config: impl Into<Config>,
    ) -> Result<Self, BuildError> {
        Self::build(grid, costs, config.into(), false)
    }

    /// This map built afresh from `grid` (a rebuild or a compaction), with the gate graph
    /// if a reader asked this one for it (see [`HpaMap::keeps_gate_graph`]).
    pub(super) fn rebuilt(&self, grid: Grid) -> Result<Self, BuildError> {
        let asked = self.gates_asked || self.asked_gates.get().is_some();
        Self::build(grid, self.costs().clone(), self.config, asked)
    }

    /// [`HpaMap::with_costs`], keeping the gate graph whatever the layer's searches need
    /// when `gates_asked`.
    fn build(
        grid: Grid,
        costs: TerrainCosts,
        config: Config,
        gates_asked: bool,
    ) -> Result<Self, BuildError> {
        costs.check_passable(grid.passable())?;
        let mut profile = BuildProfile::default();
        let mut clock = Instant::now();
        // The time since the last lap, restarting the clock.
        let mut lap = move || {
            let now = Instant::now();
            std::mem::replace(&mut clock, now).elapsed()
        };
        config.validate()?;
        let limit = config.max_memory.unwrap_or(usize::MAX);
        let check = |estimated: usize| match estimated > limit {
            true => Err(BuildError::MemoryLimit { estimated, limit }),
            false => Ok(()),
        };
        // The tree holds one object per blocked cell: its size is counted by walking the
        // splits it would make, and refused before anything of it is built. The cell list
        // itself (8 bytes a blocked cell) is needed by the build anyway.
        let stopper = match config.max_leaf_side {
            Some(s) => SplitStopper::uniform().with_max_leaf_side(s),
            None => SplitStopper::uniform(),
        };
        let too_large = |width, height| BuildError::MapTooLarge {
            width,
            height,
            max: crate::quadtree::MAX_SIDE,
        };
        let mut bands = CostBands::new(costs, grid.passable());
        bands.count(&grid);
        let config = config.for_costs(bands.uniform().is_none());
        let cells = grid.width() as u64 * grid.height() as u64;
        let blocked = (cells - grid.free_count()) as usize;
        // The object list (12 bytes an object) is needed by the build anyway; on a map
        // without costs the objects are the blocked cells.
        check(
            grid.memory_bytes()
                .saturating_add(blocked.saturating_mul(12)),
        )?;
        let tree_error = |e| match e {
            QuadtreeError::BadSize { width, height } => too_large(width, height),
            QuadtreeError::OutOfBounds { .. } => unreachable!("blocked cells lie on the grid"),
        };
        let (width, height) = (grid.width(), grid.height());
        // The tree and the subgoal graph both read the grid alone: they are built side by
        // side (see `side_by_side`), the tree's memory checks first after both.
        let revision = next_revision();
        let subgoals_wanted =
            Self::layer_wants_subgoals(&config, &bands) && grid.free_count() < cells;
        let build_tree = || -> Result<QuadTree<u8>, BuildError> {
            // On a map of one passable band the tree's objects are the blocked cells, and it
            // is built from their counts (`quadtree::counted`), without listing them, when the
            // count table fits the memory limit beside the grid (else from the object list, as
            // a map of several bands is); under a limit the tree's estimate is walked over the
            // table, and checked, before the tree is built.
            let counted = bands.uniform().is_some()
                && crate::quadtree::counted_build_fits(width, height)
                && grid.memory_bytes() + CellCounts::table_bytes(width, height) <= limit;
            let tree = if counted {
                let counts = CellCounts::from_rows(width, height, |y, x0| {
                    // Blocked bits of the row's words; columns past its end are not cells.
                    let on_grid = u64::MAX >> (64 - (width - x0).min(64));
                    !grid.free_bits_at(i64::from(x0), i64::from(y)) & on_grid
                });
                if config.max_memory.is_some() {
                    let tree_bytes = counts
                        .estimate_tree_bytes::<u8>(&stopper)
                        .map_err(tree_error)?;
                    check(grid.memory_bytes().saturating_add(tree_bytes))?;
                }
                QuadTree::build_packed_counted(&counts, stopper, BLOCKED, |band| *band)
                    .map_err(tree_error)?
            } else {
                let mut objects = bands.objects(&grid);
                // Counting the tree before it is built walks its splits once more: only a
                // limit needs that (without one, the estimate counts the tree as built).
                if config.max_memory.is_some() {
                    let tree_bytes =
                        QuadTree::estimate_bytes_packed(width, height, &stopper, &mut objects)
                            .map_err(tree_error)?;
                    check(grid.memory_bytes().saturating_add(tree_bytes))?;
                }
                QuadTree::build_packed(width, height, stopper, objects, |band| *band)
                    .map_err(tree_error)?
            };
            Ok(tree)
        };
        // The subgoal graph comes before the gate graph: whether the layer needs its gate
        // graph depends on it (see `HpaMap::keeps_gate_graph`). A map without a blocked
        // cell has no subgoal, and its searches need none (every goal lies in the start's
        // cone): it gets its graph, and the stop bits' three bits per cell, at its first
        // edit that keeps a blocked cell (`update_subgoals`).
        let build_subgoals =
            || subgoals_wanted.then(|| Box::new(SubgoalGraph::build(&grid).stamped(revision)));
        // A layer with a subgoal graph keeps no gate graph unless a reader asked for one
        // (see `HpaMap::keeps_gate_graph`): its free leaves' slots and components need the
        // tree alone, and are made on the tree's thread while the subgoal graph's scans
        // go on (that thread then takes its share of the scans). After both steps they
        // were a sixth of Cauldron's longest chain. The memory checks are made after the
        // join, in the same order and with the same figures as when the slots are made
        // there, so a layer refused for its size gets the same error.
        let leaves_early = subgoals_wanted && !gates_asked && config.clusters.is_none();
        let build_tree_and_leaves = || {
            let (tree, tree_time) = timed(build_tree);
            let slots = match &tree {
                Ok(tree) if leaves_early => LeafSlots::make(tree, &bands, &grid, limit),
                _ => None,
            };
            ((tree, tree_time), slots)
        };
        let (((tree, tree_time), slots), (subgoals, subgoals_time)) =
            join(build_tree_and_leaves, || timed(build_subgoals));
        let mut tree = tree?;
        tree.track_changes(true);
        lap();
        profile.tree = tree_time;
        profile.subgoals = subgoals_time;
        let mut estimated = grid.memory_bytes() + tree.memory_bytes();
        check(estimated)?;
        // The free leaves, unless their slots are made.
        let mut free = match slots {
            Some(_) => Vec::new(),
            None => free_leaves(&tree, &bands),
        };
        let mut map = HpaMap {
            graph: Box::new(GateGraph::new(tree.shape())),
            linked: false,
            asked_gates: OnceLock::new(),
            gates_asked,
            grid,
            tree,
            costs: Box::new(bands),
            config,
            components: Components::default(),
            clusters: None,
            landmarks: Landmarks::default(),
            subgoals,
            landmarks_pending: false,
            search_work: AtomicU64::new(0),
            bound_fallbacks: AtomicU64::new(0),
            crossing_buf: Vec::new(),
            build_profile: Box::default(),
            estimated_bytes: 0,
            revision,
            sizes: Box::default(),
        };
        if let Some(graph) = &mut map.subgoals {
            let (landmarks_time, levels_time) =
                graph.build_landmarks_and_levels(config.landmarks as usize);
            lap();
            profile.landmarks += landmarks_time;
            profile.subgoals += levels_time;
            // Counted as built, before the leaves are estimated: the graph with its
            // levels, and its landmarks.
            estimated = estimated
                .saturating_add(graph.memory_bytes())
                .saturating_add(graph.landmark_bytes());
            check(estimated)?;
        }
        let linked = map.keeps_gate_graph();
        let leaves = if let Some(slots) = slots {
            debug_assert!(!linked, "slots made early belong to a layer without gates");
            estimated = estimated.saturating_add(slots.estimate);
            check(estimated)?;
            *map.graph = slots.graph;
            map.components = slots.components;
            (profile.gates, profile.components) = (slots.gates_time, slots.components_time);
            lap();
            slots.leaves
        } else {
            estimated = estimated.saturating_add(slots_estimate(&free, linked));
            check(estimated)?;
            let leaves = add_leaves(&mut map.graph, &mut free);
            drop(free);
            if linked {
                map.link_gates();
            }
            map.graph.shrink_to_fit();
            profile.gates = lap();
            map.label_components();
            profile.components = lap();
            leaves
        };
        let shape = map.tree.shape();
        if let Some(mut clusters) = config.clusters.and_then(|cfg| Clusters::new(cfg, &shape)) {
            for &leaf in &leaves {
                clusters.attach(&map.graph, &shape, leaf);
            }
            // Entrances are chosen before the entrance × gate tables are allocated.
            estimated = estimated.saturating_add(clusters.select_all(
                &map.graph,
                &shape,
                (&map.grid, &map.costs),
            ));
            check(estimated)?;
            clusters.route_all(&map.graph);
            map.clusters = Some(Box::new(clusters));
        }
        profile.clusters = lap();
        // A layer searched over its subgoal graph reads its landmark distances at the
        // subgoals (see `hpa::landmarks_sparse`) and builds no per-cell table: every exact
        // query of such a layer goes to the subgoal graph.
        if config.landmarks > 0 && !map.wants_subgoals() && landmarks_pay(&map) {
            let k = config.landmarks as usize;
            estimated = estimated.saturating_add(Landmarks::estimate_bytes(&map.grid, k));
            check(estimated)?;
            map.landmarks = Landmarks::build(&map.grid, &map.costs, k);
        }
        profile.landmarks += lap();
        *map.build_profile = profile;
        map.estimated_bytes = estimated;
        map.sizes.built_slack = map.slack_bytes();
        map.sizes.built_bytes = map.memory_bytes();
        Ok(map)
    }

    /// What [`HpaMap::new`] estimated the structure's heap bytes to be before building it
    /// (compared with [`Config::max_memory`]); a test hook, to check the estimate against
    /// [`HpaMap::memory_bytes`].
    #[cfg(any(test, feature = "testing"))]
    pub fn estimated_memory_bytes(&self) -> usize {
        self.estimated_bytes
    }

    /// A number that changes whenever the map's cells do, and only then: every edit that
    /// blocks or frees a cell (and every rebuild) gives the map a revision no map in this
    /// process has had before. Whatever a caller derives from the map (a
    /// [`FlowField`](crate::FlowField), a cached path) is current while the revision is
    /// the one it was derived at.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode};
    /// let mut map = HpaMap::new(Grid::new_free(8, 8), Mode::Exact)?;
    /// let before = map.revision();
    /// map.set_blocked(Cell::new(3, 3), false)?; // already free: nothing changes
    /// assert_eq!(map.revision(), before);
    /// map.set_blocked(Cell::new(3, 3), true)?;
    /// assert_ne!(map.revision(), before);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The map as it is now.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The quadtree of blocked and free leaves, each free leaf of one terrain cost: one
    /// object per cell outside the map's most common cost band, holding its band (0 for a
    /// blocked cell; 1, 2, … for free cells by increasing cost). On a map without terrain
    /// costs the objects are the blocked cells. [`HpaMap::is_free_leaf`] and
    /// [`HpaMap::leaf_cost`] read a leaf.
    pub fn tree(&self) -> &QuadTree<u8> {
        &self.tree
    }

    /// Whether `leaf`, a leaf of [`HpaMap::tree`], is free.
    pub fn is_free_leaf(&self, leaf: &NodeRef<'_, u8>) -> bool {
        self.costs.leaf_band(leaf) != BLOCKED
    }

    /// What a unit of step length costs in `leaf`, a free leaf of [`HpaMap::tree`] (`None`
    /// for a blocked one).
    pub fn leaf_cost(&self, leaf: &NodeRef<'_, u8>) -> Option<f64> {
        let band = self.costs.leaf_band(leaf);
        (band != BLOCKED).then(|| self.costs.band_cost(band))
    }

    /// The terrain costs the map was built with.
    pub fn costs(&self) -> &TerrainCosts {
        self.costs.table()
    }

    /// The configuration it was built with.
    pub fn config(&self) -> Config {
        self.config
    }

    /// Number of free leaves.
    pub fn free_leaf_count(&self) -> usize {
        self.graph.leaf_count()
    }

    /// Number of gate cells the layer holds: 0 on a layer searched over its subgoal graph
    /// until a reader asks for its gate graph (see [`HpaMap::memory_breakdown`]).
    ///
    /// ```
    /// use quadpath::{Cell, Config, Grid, HpaMap};
    /// let grid = Grid::from_fn(32, 32, |x, y| x % 8 != 4 || y % 9 == 0);
    /// let mut map = HpaMap::new(grid.clone(), Config::exact())?;
    /// assert_eq!(map.gate_count(), 0, "its searches read the subgoal graph");
    /// let gates = HpaMap::new(grid, Config::exact().with_subgoals(false))?;
    /// assert!(gates.gate_count() > 0);
    /// // A flow field reads the gates: the layer builds them, and keeps them from then on.
    /// map.flow_field(Cell::new(0, 0))?;
    /// assert_eq!(map.gate_count(), gates.gate_count());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn gate_count(&self) -> usize {
        self.held_gate_graph().map_or(0, |g| g.gate_count())
    }

    /// Number of stored crossings between gates of adjacent leaves (0 where
    /// [`HpaMap::gate_count`] is).
    pub fn crossing_count(&self) -> usize {
        self.held_gate_graph().map_or(0, |g| g.crossing_count())
    }

    /// Number of clusters (0 when the map is not clustered).
    pub fn cluster_count(&self) -> usize {
        self.clusters.as_ref().map_or(0, |c| c.count())
    }

    /// Number of cluster entrances (0 when the map is not clustered).
    pub fn entrance_count(&self) -> usize {
        self.clusters.as_ref().map_or(0, |c| c.entrance_count())
    }

    /// Number of landmarks the search's heuristic uses (see [`Config::landmarks`]): those
    /// kept at the subgoals on a layer searched over its subgoal graph, else those of the
    /// per-cell table.
    pub fn landmark_count(&self) -> usize {
        match &self.subgoals {
            Some(graph) => graph.landmarks().count(),
            None => self.landmarks.count(),
        }
    }

    /// Number of subgoals of the subgoal graph (0 when the map keeps none; see
    /// [`Config::subgoals`]).
    pub fn subgoal_count(&self) -> usize {
        self.subgoals.as_ref().map_or(0, |s| s.len())
    }

    /// Number of edges of the subgoal graph (0 when the map keeps none).
    pub fn subgoal_edge_count(&self) -> usize {
        self.subgoals.as_ref().map_or(0, |s| s.edge_count())
    }

    /// The size of the levels of the subgoal graph (see
    /// [`Config::subgoals`](super::Config::subgoals)) as their arcs and their global
    /// (uncontracted) subgoals, or `None` while the map has none: no subgoal graph, or an
    /// edit has dropped the levels and [`HpaMap::refresh_within`] has not rebuilt them yet
    /// (queries stay exact meanwhile, over the whole subgoal graph).
    ///
    /// ```
    /// use quadpath::{Grid, HpaMap, Mode, Rect};
    /// let grid = Grid::from_fn(64, 64, |x, y| x % 8 != 4 || y % 9 == 0);
    /// let mut map = HpaMap::new(grid, Mode::Exact)?;
    /// let (arcs, globals) = map.subgoal_levels_size().expect("a fresh exact map has them");
    /// assert!(arcs > 0 && globals <= map.subgoal_count());
    /// map.set_blocked(Rect::new(1, 1, 1, 1), true)?;
    /// assert_eq!(map.subgoal_levels_size(), None);
    /// map.refresh();
    /// assert!(map.subgoal_levels_size().is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn subgoal_levels_size(&self) -> Option<(usize, usize)> {
        let graph = self.subgoals.as_ref()?;
        let levels = graph.levels()?;
        Some((levels.arc_count(), levels.global_count(graph)))
    }

    /// The levels of the subgoal graph by cell (see [`HpaMap::subgoal_levels_size`]), or
    /// `None` while the map has none: a test hook, to compare levels rebuilt after edits
    /// with a fresh build's.
    #[cfg(any(test, feature = "testing"))]
    pub fn subgoal_levels_snapshot(&self) -> Option<super::subgoals::LevelsSnapshot> {
        self.subgoals.as_ref()?.levels_snapshot()
    }

    /// Whether this layer keeps its gate graph (gates and crossings) and edits keep it up to
    /// date: the one place that decides. Its searches read it unless every exact query
    /// goes to a subgoal graph; clusters are built and refreshed over it; and a reader
    /// that needs it through `&self` (a flow field over the gates, see
    /// [`HpaMap::gate_graph`]) has it built on demand, and the layer keeps it from then on.
    /// A layer without it still holds its free leaves, and its components walk the
    /// quadtree's neighbours instead (see `hpa::adjacency`).
    pub(super) fn keeps_gate_graph(&self) -> bool {
        self.gates_asked || self.subgoals.is_none() || self.config.clusters.is_some()
    }

    /// Links every pair of adjacent free leaves of `graph` (the layer's free leaves, no
    /// gate yet) with the crossings the gate policy keeps.
    fn link_all(&self, graph: &mut GateGraph) {
        let leaves: Vec<LeafId> = graph.leaves().map(|(id, _)| id).collect();
        let (mut later, mut buf) = (Vec::new(), Vec::new());
        for a in leaves {
            self.later_neighbours(graph, a, &mut later);
            for &b in &later {
                link_pair(graph, (&self.grid, self.config.gates), (a, b), &mut buf);
            }
        }
    }

    /// Gives `graph` its gates and crossings in place.
    pub(super) fn link_gates(&mut self) {
        let empty = GateGraph::new(self.tree.shape());
        let mut graph = std::mem::replace(&mut self.graph, Box::new(empty));
        debug_assert!(graph.is_unlinked());
        self.link_all(&mut graph);
        self.graph = graph;
        self.linked = true;
    }

    /// The layer's free leaves linked: its own gate graph, or a copy built for a caller.
    fn linked_copy(&self) -> GateGraph {
        let mut graph = (*self.graph).clone();
        self.link_all(&mut graph);
        graph.shrink_to_fit();
        graph
    }

    /// The gate graph the layer holds: its own, or the one a reader asked for since the
    /// last edit; `None` while it keeps none.
    pub(super) fn held_gate_graph(&self) -> Option<&GateGraph> {
        match self.linked {
            true => Some(&self.graph),
            false => self.asked_gates.get().map(|g| &**g),
        }
    }

    /// `f` over the layer's gate graph: the one it holds, or else one built for the call
    /// and dropped after it (for the test snapshots and rendering, which must not change
    /// what the layer keeps).
    pub(super) fn with_gate_graph<T>(&self, f: impl FnOnce(&GateGraph) -> T) -> T {
        match self.held_gate_graph() {
            Some(graph) => f(graph),
            None => f(&self.linked_copy()),
        }
    }

    /// The gate graph, for the readers that need it (the flow fields): built on the first
    /// call on a layer that keeps none (see [`HpaMap::keeps_gate_graph`]), with the
    /// layer's leaves in the same slots, so that a [`LeafId`] means the same leaf in both.
    /// The next edit adopts it, and the layer keeps it up to date from then on.
    pub(crate) fn gate_graph(&self) -> &GateGraph {
        match self.linked {
            true => &self.graph,
            false => self
                .asked_gates
                .get_or_init(|| Box::new(self.linked_copy())),
        }
    }

    /// Before an edit: adopts the gate graph a reader asked for (see
    /// [`HpaMap::gate_graph`]), which holds the same leaves in the same slots.
    pub(super) fn adopt_asked_gates(&mut self) {
        if let Some(graph) = self.asked_gates.take() {
            debug_assert_eq!(graph.leaf_capacity(), self.graph.leaf_capacity());
            self.graph = graph;
            self.linked = true;
            self.gates_asked = true;
        }
    }

    /// After an edit: links the gates of a layer that needs them now and has none (its
    /// terrain costs stopped being uniform, so its subgoal graph went), or drops those of
    /// one that no longer does (it was built with no blocked cell, and searched over its
    /// gates until an edit gave it a subgoal graph).
    pub(super) fn settle_gates(&mut self) {
        match (self.keeps_gate_graph(), self.linked) {
            (true, false) => {
                self.link_gates();
                self.label_components();
            }
            (false, true) => {
                self.graph.drop_gates();
                self.linked = false;
            }
            _ => {}
        }
    }

    /// Labels every free leaf's component from scratch, from the grid's free cells (the
    /// same labels as a walk over the gates or the quadtree's neighbours, see
    /// [`Components::label_all_by_cells`]).
    pub(super) fn label_components(&mut self) {
        self.components.label_all_by_cells(&self.graph, &self.grid);
    }

    /// Whether this map should keep a subgoal graph: asked for, exact, and of one
    /// terrain cost (where the octile distance is the cost, up to a factor).
    pub(super) fn wants_subgoals(&self) -> bool {
        Self::layer_wants_subgoals(&self.config, &self.costs)
    }

    /// Whether a layer of `config` over `costs` is searched over a subgoal graph.
    fn layer_wants_subgoals(config: &Config, costs: &CostBands) -> bool {
        use super::policy::GatePolicy;
        config.subgoals
            && config.gates == GatePolicy::All
            && config.clusters.is_none()
            && costs.uniform().is_some()
    }

    /// Number of connected free regions.
    pub fn component_count(&self) -> usize {
        self.components.count()
    }

    /// Approximate heap bytes held by the grid, the tree, the gate graph, the components,
    /// the clusters and the landmark table. Search contexts are not included: they belong
    /// to the caller (or to each querying thread, see [`HpaMap::find_path`]).
    pub fn memory_bytes(&self) -> usize {
        self.memory_breakdown().total()
    }

    /// [`HpaMap::memory_bytes`] part by part: where a map's bytes go.
    ///
    /// ```
    /// use quadpath::{Grid, HpaMap, Mode};
    /// let map = HpaMap::new(Grid::from_fn(64, 64, |x, y| (x * y) % 7 != 3), Mode::Fast)?;
    /// let parts = map.memory_breakdown();
    /// assert_eq!(parts.total(), map.memory_bytes());
    /// // Fast mode on a map of one cost: the subgoal graph and its landmarks, no clusters,
    /// // and no gate graph until a reader (a flow field) asks for one.
    /// assert!(parts.gates == 0 && parts.subgoals > 0 && parts.clusters == 0);
    /// # Ok::<(), quadpath::BuildError>(())
    /// ```
    pub fn memory_breakdown(&self) -> MemoryBreakdown {
        MemoryBreakdown {
            grid: self.grid.memory_bytes(),
            tree: self.tree.memory_bytes(),
            leaves: self.graph.leaf_bytes() + self.asked_gates.get().map_or(0, |g| g.leaf_bytes()),
            gates: self.graph.gate_bytes() + self.asked_gates.get().map_or(0, |g| g.gate_bytes()),
            components: self.components.memory_bytes(),
            clusters: self.clusters.as_ref().map_or(0, |c| c.memory_bytes()),
            landmarks: self.landmarks.memory_bytes()
                + self.subgoals.as_ref().map_or(0, |s| s.landmark_bytes()),
            subgoals: self.subgoals.as_ref().map_or(0, |s| s.memory_bytes()),
            waste: self.slack_bytes().saturating_sub(self.sizes.built_slack),
        }
    }

    /// Bytes of the structure no live part uses (see [`MemoryBreakdown::waste`]), some of
    /// which a fresh build holds too (the tree's table as sized, its leaves' buffers as
    /// grown): the waste is what edits add to the build's.
    fn slack_bytes(&self) -> usize {
        self.graph.slack_bytes()
            + self.components.slack_bytes(self.graph.leaf_count())
            + self.tree.slack_bytes()
            + self.clusters.as_ref().map_or(0, |c| c.slack_bytes())
            + self.subgoals.as_ref().map_or(0, |s| s.slack_bytes())
    }

    /// How long each step of the build that made this map took ([`HpaMap::new`], or the
    /// last rebuild). Edits since do not count.
    ///
    /// ```
    /// use quadpath::{Grid, HpaMap, Mode};
    /// let map = HpaMap::new(Grid::new_free(256, 256), Mode::Fast)?;
    /// let profile = map.build_profile();
    /// assert!(profile.total() >= profile.clusters);
    /// # Ok::<(), quadpath::BuildError>(())
    /// ```
    pub fn build_profile(&self) -> BuildProfile {
        *self.build_profile
    }

    /// Every crossing as a pair of cells, each reported once, for rendering and tests. A
    /// layer that keeps no gate graph (see [`HpaMap::gate_count`]) works them out for the
    /// call and keeps nothing.
    pub fn crossings(&self) -> Vec<(Cell, Cell)> {
        self.with_gate_graph(|g| g.crossing_cells())
    }

    /// Throws the structure away and builds it again from the current grid: what the
    /// incremental updates avoid, kept for comparison.
    ///
    /// # Errors
    /// None in practice: the map was built with the same grid size, costs and
    /// configuration. The [`BuildError`] is passed on rather than hidden behind a panic.
    pub fn rebuild(&mut self) -> Result<(), BuildError> {
        *self = self.rebuilt(self.grid.clone())?;
        Ok(())
    }

    /// The free leaves east, south, and (touching only at the corner) south-east and
    /// south-west of free leaf `leaf` of `graph`, into `out`: visiting these from every
    /// leaf meets each adjacent pair exactly once, with half the neighbour queries of all
    /// eight directions.
    fn later_neighbours(&self, graph: &GateGraph, leaf: LeafId, out: &mut Vec<LeafId>) {
        let (id, r) = (graph.leaf(leaf).id, graph.leaf_rect(leaf));
        out.clear();
        for dir in [Direction::E, Direction::S, Direction::SE, Direction::SW] {
            self.tree.for_each_neighbour(id, dir, |n| {
                let nr = n.rect();
                // A diagonal neighbour that also runs along a side was met through that side.
                let corner_only = !dir.is_diagonal()
                    || (nr.x2 < r.x1 || nr.x1 > r.x2) && (nr.y2 < r.y1 || nr.y1 > r.y2);
                if self.is_free_leaf(&n) && corner_only {
                    out.push(graph.leaf_of_node(n.id()));
                }
            });
        }
    }

    /// Adds the crossings the policy keeps between free leaves `a` and `b` of the layer's
    /// gate graph (see [`link_pair`]).
    pub(super) fn connect(&mut self, a: LeafId, b: LeafId) {
        let mut buf = std::mem::take(&mut self.crossing_buf);
        link_pair(
            &mut self.graph,
            (&self.grid, self.config.gates),
            (a, b),
            &mut buf,
        );
        self.crossing_buf = buf;
    }
}

/// Adds the crossings `policy` keeps between free leaves `a` and `b` of `graph` on `grid`
/// (`buf` is scratch). The pair is always taken in ID order, so that an incremental
/// update picks the same crossings as a fresh build.
fn link_pair(
    graph: &mut GateGraph,
    (grid, policy): (&Grid, policy::GatePolicy),
    (a, b): (LeafId, LeafId),
    buf: &mut Vec<(Cell, Cell)>,
) {
    let (a, b) = if graph.leaf(a).id < graph.leaf(b).id {
        (a, b)
    } else {
        (b, a)
    };
    let (ra, rb) = (graph.leaf_rect(a), graph.leaf_rect(b));
    buf.clear();
    policy::select_crossings(grid, ra, rb, policy, buf);
    for &(ca, cb) in buf.iter() {
        graph.link(ca, a, cb, b);
    }
}

/// Whether a landmark table is worth its 4 bytes per free cell and landmark (see
/// [`Config::landmarks`]): on maps up to 2^20 free cells unless they have no gate at all
/// (one free leaf, or free leaves that never touch), and on larger ones unless they are
/// wide open, with more than 64 free cells per gate. Inside a free leaf the octile distance
/// is exact, so on open ground the table would guide nothing. A map that goes without is
/// given its table by a refresh once edits make it pay (`landmarks_pending`).
pub(super) fn landmarks_pay(map: &HpaMap) -> bool {
    use super::config::{LANDMARK_CELLS_PER_GATE, LANDMARK_OPEN_CELLS};
    let free = map.grid.free_count();
    let gates = map.graph.gate_count() as u64;
    gates > 0 && (free <= LANDMARK_OPEN_CELLS || free <= LANDMARK_CELLS_PER_GATE * gates)
}

/// A free leaf of the tree: its Z-order key (see [`add_leaves`]), node, rectangle and
/// terrain cost.
type FreeLeaf = (u64, NodeId, Rect, f64);

/// The free leaves of `tree`, each with its Z-order key worked out once.
fn free_leaves(tree: &QuadTree<u8>, bands: &CostBands) -> Vec<FreeLeaf> {
    tree.leaves()
        .filter_map(|l| {
            let band = bands.leaf_band(&l);
            let rect = l.rect();
            (band != BLOCKED).then(|| {
                let key = morton(rect.x1, rect.y1);
                (key, l.id(), rect, bands.band_cost(band))
            })
        })
        .collect()
}

/// What the slots of the leaves `free` add to a layer's estimated bytes: the gate graph's
/// leaves (with their gates when `linked`) and the components' labels, 4 bytes a leaf.
fn slots_estimate(free: &[FreeLeaf], linked: bool) -> usize {
    GateGraph::estimate_bytes(free.iter().map(|&(_, _, r, _)| r), linked)
        .saturating_add(free.len().next_power_of_two() * 4)
}

/// Gives the leaves `free` their slots in `graph`, in Z-order: slots in that order keep
/// neighbouring leaves, and their gates, close in memory (the search is bound by cache
/// misses, not arithmetic). Leaves do not overlap, so their keys differ and the order is
/// the same whatever the sort.
fn add_leaves(graph: &mut GateGraph, free: &mut [FreeLeaf]) -> Vec<LeafId> {
    sort_by_z_key(free, |&(key, ..)| key);
    free.iter()
        .map(|&(_, id, rect, cost)| graph.add_leaf(id, rect, cost))
        .collect()
}

/// A layer's free leaves in their slots of a gate graph without gates, and its components
/// labelled over them: made on the tree's thread beside the subgoal graph (see
/// `HpaMap::build`), the same as the build makes them after both steps.
struct LeafSlots {
    graph: GateGraph,
    leaves: Vec<LeafId>,
    components: Components,
    /// [`slots_estimate`] of the leaves.
    estimate: usize,
    gates_time: Duration,
    components_time: Duration,
}

impl LeafSlots {
    /// The slots and components of `tree`'s free leaves, or `None` when the grid, the
    /// tree and they would already be over `limit` bytes (the build then refuses the
    /// layer after the join, as it did before).
    fn make(tree: &QuadTree<u8>, bands: &CostBands, grid: &Grid, limit: usize) -> Option<Self> {
        let start = Instant::now();
        let mut free = free_leaves(tree, bands);
        let estimate = slots_estimate(&free, false);
        let built = grid.memory_bytes() + tree.memory_bytes();
        if built.saturating_add(estimate) > limit {
            return None;
        }
        let mut graph = GateGraph::new(tree.shape());
        let leaves = add_leaves(&mut graph, &mut free);
        drop(free);
        graph.shrink_to_fit();
        let gates_time = start.elapsed();
        let start = Instant::now();
        let mut components = Components::default();
        components.label_all_by_cells(&graph, grid);
        Some(LeafSlots {
            graph,
            leaves,
            components,
            estimate,
            gates_time,
            components_time: start.elapsed(),
        })
    }
}

/// Interleaves the bits of `x` and `y` (Z-order), for memory layouts that follow space.
pub(super) fn morton(x: u32, y: u32) -> u64 {
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

/// Sorts `items` by `key` (a Z-order key, from [`morton`]) with a stable radix sort of
/// [`Z_DIGIT_BITS`] bits a pass, as many passes as the largest key needs: two on a 1024²
/// map, a few instructions an item, where a comparison sort took 11M instructions on
/// Cauldron's 15,645 subgoals and 14M on its 43,620 free leaves. Stable, so the order of
/// `sort_by_key`; with distinct keys, that of any sort. Any `u64` key sorts the same way
/// (the levels' contraction sorts its subgoals by degree and cell with it, four passes).
pub(super) fn sort_by_z_key<T: Copy>(items: &mut [T], key: impl Fn(&T) -> u64) {
    let highest = items.iter().map(&key).max().unwrap_or(0);
    let mut spare = items.to_vec();
    let (mut from, mut to) = (&mut *items, &mut spare[..]);
    let mut passes = 0;
    while passes * Z_DIGIT_BITS < u64::BITS && highest >> (passes * Z_DIGIT_BITS) != 0 {
        let shift = passes * Z_DIGIT_BITS;
        let digit = |item: &T| (key(item) >> shift) as usize & ((1 << Z_DIGIT_BITS) - 1);
        // Counting sort on the digit: the items keep the lower digits' order within each
        // digit value.
        let mut starts = vec![0usize; (1 << Z_DIGIT_BITS) + 1];
        for item in from.iter() {
            starts[digit(item) + 1] += 1;
        }
        for d in 0..1 << Z_DIGIT_BITS {
            starts[d + 1] += starts[d];
        }
        for item in from.iter() {
            let d = digit(item);
            to[starts[d]] = *item;
            starts[d] += 1;
        }
        std::mem::swap(&mut from, &mut to);
        passes += 1;
    }
    if passes % 2 == 1 {
        // The last pass wrote the spare.
        items.copy_from_slice(&spare);
    }
}

/// Bits of the key sorted per pass of [`sort_by_z_key`]: 2,048 counters, which stay in
/// the first-level cache, and two passes for keys up to 22 bits (maps up to 2,048 a side).
const Z_DIGIT_BITS: u32 = 11;

/// Compile-time proof that a map can be shared between threads and a search context sent
/// to one: queries take `&self`, and a game will query from worker threads.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    const fn sent<T: Send>() {}
    shared::<HpaMap>();
    shared::<Grid>();
    shared::<QuadTree<u8>>();
    sent::<super::SearchContext>();
};

#[cfg(test)]
mod tests {
    /// The build on rayon's pools (feature `parallel`).
    #[cfg(feature = "parallel")]
    mod pools {
        use crate::hpa::HpaMap;
        use crate::{Grid, Mode};

        /// A 200 × 150 map of scattered walls and blocks, the same for a seed.
        fn walls(seed: u64) -> Grid {
            let hash = |x: u32, y: u32| {
                let mut h = seed ^ (u64::from(x) << 32 | u64::from(y));
                h = (h ^ (h >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
                (h ^ (h >> 29)).wrapping_mul(0xc4ce_b9fe_1a85_ec53) >> 40
            };
            Grid::from_fn(200, 150, |x, y| {
                let wall = (x % 23 == 7 && hash(x, y / 9) % 5 != 0)
                    || (y % 17 == 3 && hash(x / 11, y) % 4 != 0);
                !wall && hash(x / 3, y / 3) % 100 >= 12
            })
        }

        /// Everything a build makes, by the test hooks: the tree, leaves, gates and
        /// components, the subgoal graph, its levels and its landmark table.
        fn built(map: &HpaMap) -> impl PartialEq + std::fmt::Debug {
            let subgoals = map
                .subgoals
                .as_ref()
                .expect("exact mode keeps a subgoal graph");
            (
                map.snapshot(),
                subgoals.snapshot(),
                subgoals.levels_snapshot().expect("levels are built"),
                subgoals.landmarks().values().to_vec(),
                map.memory_bytes(),
            )
        }

        /// The steps built side by side (`side_by_side`) make the same layer on a pool of one
        /// thread, where they run one after the other, as on a pool of two.
        #[test]
        fn layer_build_is_the_same_on_any_pool() {
            for seed in 0..3 {
                let build = |threads| {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .expect("a thread pool");
                    pool.install(|| HpaMap::new(walls(seed), Mode::Exact).expect("a layer"))
                };
                let (one, two) = (build(1), build(2));
                assert_eq!(built(&one), built(&two), "seed {seed}");
            }
        }
    }

    proptest::proptest! {
        /// The radix sort gives the order of the standard library's stable sort by the
        /// same key, with repeated keys and keys of 0 to 64 bits (no pass to six).
        #[test]
        fn z_key_sort_equals_a_stable_sort(
            keys in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..400),
            bits in proptest::sample::select(vec![0u32, 1, 8, 11, 12, 20, 22, 23, 40, 64]),
            repeats in 1usize..4,
        ) {
            let mask = u64::MAX.checked_shr(64 - bits).unwrap_or(0);
            // Each key a few times, tagged with its place, so that stability shows.
            let mut items: Vec<(u64, usize)> = keys
                .iter()
                .flat_map(|&k| std::iter::repeat_n(k & mask, repeats))
                .enumerate()
                .map(|(i, k)| (k, i))
                .collect();
            items.reverse();
            let mut want = items.clone();
            want.sort_by_key(|&(key, _)| key);
            super::sort_by_z_key(&mut items, |&(key, _)| key);
            proptest::prop_assert_eq!(items, want);
        }
    }

    /// The free leaves' slots and components, made on the tree's thread beside the
    /// subgoal graph when the layer keeps no gate graph, are those the build makes after
    /// both steps when a reader asked for the gate graph (same slots in the same order,
    /// same labels, same layer by the test hooks), on random maps of walls and blocks.
    #[test]
    fn leaf_slots_made_beside_the_subgoal_graph_equal_those_made_after() {
        use super::{Config, HpaMap, TerrainCosts};
        use crate::Grid;
        for seed in 0..6u64 {
            let hash = |x: u32, y: u32| {
                let h = (seed ^ (u64::from(x) << 32 | u64::from(y)))
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15);
                (h ^ (h >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9) >> 40
            };
            let (w, h) = (90 + seed as u32 * 7, 70 + seed as u32 * 5);
            let grid = Grid::from_fn(w, h, |x, y| {
                let wall = x % 19 == 5 && hash(x, y / 7) % 4 != 0;
                !wall && hash(x / 2, y / 2) % 100 >= 15
            });
            let build = |gates_asked| {
                HpaMap::build(
                    grid.clone(),
                    TerrainCosts::unit(),
                    Config::exact(),
                    gates_asked,
                )
                .expect("a layer")
            };
            let (early, late) = (build(false), build(true));
            assert!(!early.linked && late.linked, "seed {seed}: one path each");
            let slots = |map: &HpaMap| -> Vec<_> {
                map.graph
                    .leaves()
                    .map(|(leaf, l)| (leaf, l.id.raw(), map.components.of(leaf)))
                    .collect()
            };
            assert!(
                slots(&early) == slots(&late),
                "seed {seed}: the slots differ"
            );
            assert_eq!(
                early.component_count(),
                late.component_count(),
                "seed {seed}"
            );
            assert_eq!(early.snapshot(), late.snapshot(), "seed {seed}");
        }
    }

    /// The map is a handle to heap tables: small enough to move around and keep in a
    /// game's own structures (it once embedded a 4 KiB search context).
    #[test]
    fn a_map_is_small() {
        let size = std::mem::size_of::<super::HpaMap>();
        assert!(size <= 1024, "HpaMap is {size} bytes");
    }
}
