//! How an [`HpaMap`](super::HpaMap) is built: the mode presets and the knobs behind them.
//!
//! [`Config`] and [`Clustering`] are `#[non_exhaustive]`: read and assign their fields
//! freely, but start from a preset ([`Config::exact`], [`Config::fast`],
//! [`Clustering::default`]) and adjust it with the `with_*` methods, so that new knobs can
//! be added without breaking your code. A configuration is checked when a map is built;
//! values out of range are an error, never silently clamped.

use super::error::ConfigError;
use super::landmarks::MAX_LANDMARKS;
use super::policy::GatePolicy;

/// The speed/quality trade-off of an [`HpaMap`](super::HpaMap).
///
/// ```
/// use quadpath::{Cell, Grid, HpaMap, Mode};
/// let grid = Grid::from_fn(64, 64, |x, y| x != 32 || y == 60);
/// let exact = HpaMap::new(grid.clone(), Mode::Exact)?;
/// let fast = HpaMap::new(grid, Mode::Fast)?;
/// let (a, b) = (Cell::new(0, 0), Cell::new(63, 0));
/// let optimal = exact.find_path(a, b)?;
/// let quick = fast.find_path(a, b)?;
/// assert!(quick.length >= optimal.length - 1e-9, "exact mode is optimal");
/// assert_eq!(Mode::default(), Mode::Exact);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Every crossing is a gate, and landmark bounds guide the search: paths have optimal
    /// length.
    #[default]
    Exact,
    /// Near-optimal paths, faster. On a map of one terrain cost: exact mode's subgoal
    /// graph searched by weighted A\*, no path more than 5 % over the optimum
    /// ([`Config::subgoal_excess_percent`]). On a map of several costs: sparse gates
    /// ([`GatePolicy::Adaptive`]), a search over cluster entrances and string-pulling,
    /// no path more than 25 % over the optimum ([`Config::max_excess_percent`]). Either
    /// way short moves (optimal length up to [`Config::local_radius`], 16) are optimal.
    Fast,
}

/// How an [`HpaMap`](super::HpaMap) builds its gate graph and post-processes paths.
///
/// ```
/// use quadpath::{Config, Grid, HpaMap};
///
/// // Exact mode over the gate graph, with 4 landmarks and leaves no wider than 32.
/// let config = Config::exact()
///     .with_subgoals(false)
///     .with_landmarks(4)
///     .with_max_leaf_side(Some(32));
/// let map = HpaMap::new(Grid::new_free(64, 64), config)?;
/// assert_eq!(map.landmark_count(), 4);
///
/// // Out-of-range values are refused, not clamped.
/// assert!(HpaMap::new(Grid::new_free(8, 8), Config::exact().with_landmarks(200)).is_err());
/// # Ok::<(), quadpath::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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
    /// bytes per free cell and one grid Dijkstra at build time, and lets the search skip
    /// most of the dead ends the octile heuristic walks into. Optimality is unaffected.
    ///
    /// Landmarks only pay where walls make the octile distance a poor guess. On a large map
    /// that is mostly wide open (more than 2^20 free cells, and more than 64 free cells per
    /// gate, i.e. free leaves some hundreds of
    /// cells across) the table is not built and [`HpaMap::landmark_count`] reports 0: inside
    /// a free leaf the octile distance is already exact, and the table would cost 4 bytes
    /// per free cell and landmark for nothing.
    ///
    /// [`HpaMap::landmark_count`]: super::HpaMap::landmark_count
    pub landmarks: u8,
    /// Short-move radius R (0 to [`Config::MAX_LOCAL_RADIUS`]; 0 turns it off). A query
    /// whose ends are at most R apart (octile distance) is first answered by an exact grid
    /// A\* confined to the (2R+1)² window around the start, which every path of length at
    /// most R stays in. When that search proves its path optimal on the whole map (no step
    /// out of the window could lead to a cheaper path) the path is returned; otherwise the
    /// query also searches the gates and keeps the cheaper path. Either way every move
    /// whose optimal length is at most R comes out optimal, whatever the terrain costs.
    /// The fast preset sets it to 16; the exact preset leaves it off, as its paths are
    /// optimal anyway. Each context keeps a (2R+1)² table for it.
    pub local_radius: u32,
    /// The most heap memory, in bytes, the built structure may take (`None`: no limit).
    /// Before the large parts are allocated (tree, gate graph, cluster tables, landmark
    /// table) their size is estimated from cheap counts; when the running estimate goes
    /// over the limit, [`HpaMap::new`] returns [`BuildError::MemoryLimit`] instead of
    /// allocating. The estimate is an upper bound of [`HpaMap::memory_bytes`] in practice,
    /// so a map that builds stays within the limit (edits can grow it later). Large
    /// allocations are also made fallibly, so running out of memory is the same error
    /// rather than an abort.
    ///
    /// The library default is `None`: a game knows its own budget, and any fixed default
    /// would either refuse legitimate large maps or allow more than some machines have. The
    /// `quadpath` command line defaults to half the machine's physical memory.
    ///
    /// [`HpaMap::new`]: super::HpaMap::new
    /// [`HpaMap::memory_bytes`]: super::HpaMap::memory_bytes
    /// [`BuildError::MemoryLimit`]: super::BuildError::MemoryLimit
    pub max_memory: Option<usize>,
    /// Search a *subgoal graph* instead of the gate graph on maps of one terrain cost:
    /// with every crossing a gate and no clusters (the exact preset), and also in place of
    /// the clusters (the fast preset: the layer is then built as the exact preset's, every
    /// crossing a gate, no clusters, at least [`Config::SUBGOAL_LANDMARKS`] landmarks, and
    /// searched by weighted A\*, see [`Config::subgoal_excess_percent`]); a layer with
    /// sparse gates and no clusters keeps its gate search.
    /// Subgoals are the free cells at convex obstacle corners; edges join those that reach
    /// each other along a straight-then-diagonal walk of octile length, so the graph is far
    /// sparser than the gate graph and paths stay optimal (see the crate's exactness notes
    /// and `tests/suite/subgoal_props.rs`). Edits update it locally, and its searches are
    /// sliced like the gate search's ([`HpaMap::resume_path_search`](super::HpaMap::resume_path_search)).
    ///
    /// On in the exact preset ([`Config::exact`], [`Mode::Exact`]): its queries are
    /// 4–7× faster than the gate search's to every cell and 9–15× to corner points on
    /// StarCraft and DAO maps (the `subgoals` and `peers` benches). Its edits cost more:
    /// one cell 44–234 µs and a 4×4 building 102–322 µs on the 1024² StarCraft and DAO
    /// maps measured, against 16–45 and 55–92 µs for a map without it (see the design
    /// notes). Turn it off (`with_subgoals(false)`) for a map that is edited far more
    /// often than it is searched: an exact layer then searches its gate graph, a fast one
    /// its clusters. A map with terrain costs ignores it and searches its banded gate
    /// graph (the fast preset's: its clusters).
    ///
    /// In the fast preset it makes fast mode on maps of one cost 2.4× its clustered speed
    /// and 1.2× exact mode's, with a mean excess of 0.1–0.4 % where the clusters had
    /// 0.2–0.7 % (and a worst path 2.9 % over the optimum instead of 11.6 %), at exact
    /// mode's memory and build time, which were the clusters' or less (issue 25's nine
    /// StarCraft and Dragon Age maps, see the design notes).
    pub subgoals: bool,
    /// The worst a path may cost over the optimum on a map of several terrain costs, in
    /// percent (`Some(25)`: at most 1.25 × the cheapest path), or `None` for no bound.
    ///
    /// With a bound, a map whose passable codes do not all cost the same keeps every
    /// crossing between leaves as a gate ([`GatePolicy::All`], whatever
    /// [`Config::gates`] says), so that its gate graph is exact, and at least
    /// [`BOUND_LANDMARKS`](Config::BOUND_LANDMARKS) landmarks. A fast answer of cost `C`
    /// is then *certified*: the exact gate search runs until the lowest `f` on its open
    /// list reaches `C / (1 + p/100)`, which proves the optimum at least that (the
    /// landmark bound is consistent); should it reach the goal first, its optimal path is
    /// the answer. So no answer costs more than `(1 + p/100) ×` the optimum, whatever the
    /// costs (see the guide, *Fast mode's bound under terrain costs*).
    /// [`HpaMap::bound_fallbacks`](super::HpaMap::bound_fallbacks) counts the searches that
    /// ran to the goal. Maps of one cost are not affected.
    ///
    /// The fast preset keeps 25 %: on mild costs (roads at 0.5, rough ground at 3) a
    /// certified fast map answers as fast as an unbounded one, and at extreme ratios (1/64
    /// to 10⁶) at about exact mode's speed (measured in the guide); the mean excess stays
    /// the fast search's (about 1 %). The exact preset needs none.
    pub max_excess_percent: Option<u32>,
    /// Compact the map on [`HpaMap::refresh`](super::HpaMap::refresh) when the bytes
    /// edits have left behind ([`MemoryBreakdown::waste`](super::MemoryBreakdown::waste))
    /// pass this percentage of the rest, or when the map has grown by more than this
    /// percentage since it was last built (growth the waste does not see), or never
    /// (`None`). Compacting is a fresh build
    /// (0.2–0.5 µs per cell, see [`HpaMap::compact`](super::HpaMap::compact)); it happens
    /// only in a full refresh, never in [`HpaMap::refresh_within`](super::HpaMap::refresh_within),
    /// and the waste is weighed once per edited state (a walk over the leaves and gates).
    /// So an edited map stays within about `1 + p/100` times the counted bytes of a fresh
    /// build of its grid (see the guide). Both presets set `Some(100)`: a compaction is a
    /// whole rebuild inside one `refresh()` call, so, like a `Vec` that doubles, the map is
    /// rebuilt only once its edits have doubled its bytes, which keeps the rebuilds' cost per
    /// edit bounded (25 % cost 3.4× the edit time over 200k edits of a five-class `World`).
    pub compact_above_percent: Option<u32>,
    /// How far above the optimum a search over the subgoal graph may go, in percent (0:
    /// exact). With `p > 0` the subgoal search is weighted A\*: it orders subgoals by
    /// `g + (1 + p/100) × h`, `h` its consistent bound (octile distance and landmarks), so
    /// no path it returns costs more than `1 + p/100` times the optimum (the proof is in
    /// the design notes, *Fast mode on maps of one cost*). Short moves (ends at most
    /// [`Config::local_radius`] apart) are searched with weight 1 and stay optimal.
    ///
    /// The weighted search prunes hops by the taut-path rule as exact mode's does, taking a
    /// subgoal again when it is entered by a new sector after it was closed (see the design
    /// notes).
    ///
    /// The fast preset sets 5, the largest within a mean excess of 0.5 % and a worst path
    /// 5 % over the optimum (session 27, before the pruning: mean excess 0.12–0.43 % and a
    /// worst path 2.9 % over the optimum on the nine StarCraft and Dragon Age maps of issue
    /// 25). Since session 28 its queries are 1.05–1.27× exact mode's speed on six of them
    /// (mean excess 0.05–0.23 %, worst 2.98 %; exact mode's own search prunes too, so the
    /// weight buys little: much of a query's time goes to its two cone scans rather than to
    /// expansions). The exact preset sets 0. Maps of several costs ignore it (see
    /// [`Config::max_excess_percent`]).
    pub subgoal_excess_percent: u32,
}

/// Free cells below which landmarks are always built when configured (see
/// [`Config::landmarks`]): 2^20, a table of 32 MiB at 8 landmarks.
pub(crate) const LANDMARK_OPEN_CELLS: u64 = 1 << 20;

/// Free cells per gate above which a large map is considered wide open and gets no landmark
/// table (see [`Config::landmarks`]).
pub(crate) const LANDMARK_CELLS_PER_GATE: u64 = 64;

impl Config {
    /// The landmarks a map of several costs keeps at least under a
    /// [`Config::max_excess_percent`] bound: their bound is what certifies fast answers
    /// quickly (without them the certifying search is several times slower than exact
    /// mode's).
    pub const BOUND_LANDMARKS: u8 = 8;

    /// The largest [`Config::local_radius`]: its window then has 129² cells.
    pub const MAX_LOCAL_RADIUS: u32 = 64;

    /// The largest [`Config::subgoal_excess_percent`]: a weight of 2.
    pub const MAX_SUBGOAL_EXCESS_PERCENT: u32 = 100;

    /// The landmarks a clustered (fast) layer of one terrain cost keeps at least when it
    /// searches its subgoal graph instead (see [`Config::subgoals`]): kept at the
    /// subgoals, they cost little memory and halve its queries' time.
    pub const SUBGOAL_LANDMARKS: u8 = 8;

    /// Optimal paths: every crossing is a gate, no smoothing needed, 8 landmarks, and the
    /// subgoal graph on maps of one terrain cost (see [`Config::subgoals`]).
    pub fn exact() -> Self {
        Config {
            gates: GatePolicy::All,
            clusters: None,
            smooth: false,
            max_leaf_side: None,
            landmarks: 8,
            local_radius: 0,
            max_memory: None,
            subgoals: true,
            max_excess_percent: None,
            compact_above_percent: Some(100),
            subgoal_excess_percent: 0,
        }
    }

    /// Fast, near-optimal paths. On a map of one terrain cost, the subgoal graph searched
    /// by weighted A\*, no path more than 5 % over the optimum (see [`Config::subgoals`]
    /// and [`Config::subgoal_excess_percent`]). On a map of several costs, sparse gates
    /// ([`GatePolicy::Adaptive`]) between leaves, a search over cluster entrances placed by
    /// the same policy, and smoothing, no path more than 25 % over the optimum (see
    /// [`Config::max_excess_percent`]); `with_subgoals(false)` gives that engine on maps of
    /// one cost too. Either way short moves up to a radius of 16 are optimal (see
    /// [`Config::local_radius`]).
    ///
    /// ```
    /// use quadpath::{Config, Grid, HpaMap};
    /// let grid = Grid::from_fn(128, 128, |x, y| x % 16 != 8 || y % 40 == 5);
    /// let fast = HpaMap::new(grid.clone(), Config::fast())?;
    /// assert!(fast.subgoal_count() > 0 && fast.cluster_count() == 0);
    /// let clustered = HpaMap::new(grid, Config::fast().with_subgoals(false))?;
    /// assert!(clustered.subgoal_count() == 0 && clustered.cluster_count() > 0);
    /// # Ok::<(), quadpath::BuildError>(())
    /// ```
    pub fn fast() -> Self {
        Config {
            gates: GatePolicy::Adaptive,
            clusters: Some(Clustering::default()),
            smooth: true,
            max_leaf_side: None,
            landmarks: 0,
            local_radius: 16,
            max_memory: None,
            subgoals: true,
            max_excess_percent: Some(25),
            compact_above_percent: Some(100),
            subgoal_excess_percent: 5,
        }
    }

    /// With this gate policy.
    pub fn with_gates(mut self, gates: GatePolicy) -> Self {
        self.gates = gates;
        self
    }

    /// With this clustering, or none.
    pub fn with_clusters(mut self, clusters: Option<Clustering>) -> Self {
        self.clusters = clusters;
        self
    }

    /// With or without string pulling.
    pub fn with_smoothing(mut self, smooth: bool) -> Self {
        self.smooth = smooth;
        self
    }

    /// With free leaves split down to at most this side, or not split for size.
    pub fn with_max_leaf_side(mut self, side: Option<u32>) -> Self {
        self.max_leaf_side = side;
        self
    }

    /// With this short-move radius (0 to [`Config::MAX_LOCAL_RADIUS`]; 0 turns it off; see
    /// [`Config::local_radius`]).
    pub fn with_local_radius(mut self, radius: u32) -> Self {
        self.local_radius = radius;
        self
    }

    /// With this many landmarks (0 to 16).
    pub fn with_landmarks(mut self, landmarks: u8) -> Self {
        self.landmarks = landmarks;
        self
    }

    /// With this limit on the structure's heap memory in bytes, or none (see
    /// [`Config::max_memory`]).
    pub fn with_max_memory(mut self, bytes: Option<usize>) -> Self {
        self.max_memory = bytes;
        self
    }

    /// With or without the subgoal graph (see [`Config::subgoals`]).
    ///
    /// ```
    /// use quadpath::{Cell, Config, Grid, HpaMap};
    /// let grid = Grid::from_fn(32, 32, |x, y| x != 16 || y > 28);
    /// let gates = HpaMap::new(grid.clone(), Config::exact().with_subgoals(false))?;
    /// let subgoals = HpaMap::new(grid, Config::exact())?;
    /// assert!(subgoals.subgoal_count() > 0 && gates.subgoal_count() == 0);
    /// let (a, b) = (Cell::new(0, 0), Cell::new(31, 0));
    /// // Around the wall through the gap at the bottom, just as long either way.
    /// let length = subgoals.find_path(a, b)?.length;
    /// assert!((length - gates.find_path(a, b)?.length).abs() < 1e-9);
    /// assert!(length > 56.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_subgoals(mut self, on: bool) -> Self {
        self.subgoals = on;
        self
    }

    /// With this worst case over the optimum under terrain costs, in percent, or none (see
    /// [`Config::max_excess_percent`]).
    ///
    /// ```
    /// use quadpath::{Cell, Config, Grid, HpaMap, Mode, Rect, TerrainCosts};
    /// let mut grid = Grid::new_free(128, 128);
    /// grid.set_terrain(Rect::new(0, 60, 127, 67), b'S');
    /// grid.set_terrain(Rect::new(40, 0, 47, 59), b'G');
    /// let costs: TerrainCosts = "G=0.25,S=1000".parse()?;
    /// let exact = HpaMap::with_costs(grid.clone(), costs.clone(), Mode::Exact)?;
    /// let strict = Config::fast().with_max_excess_percent(Some(0));
    /// let fast = HpaMap::with_costs(grid, costs, strict)?;
    /// let (a, b) = (Cell::new(3, 3), Cell::new(120, 124));
    /// // A bound of 0 % holds every fast answer to the optimum.
    /// let optimum = exact.find_path(a, b)?.cost;
    /// assert!(fast.find_path(a, b)?.cost <= optimum * (1.0 + 1e-9));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_max_excess_percent(mut self, percent: Option<u32>) -> Self {
        self.max_excess_percent = percent;
        self
    }

    /// With this bound over the optimum for the subgoal search, in percent (0 to
    /// [`Config::MAX_SUBGOAL_EXCESS_PERCENT`]; 0 is exact; see
    /// [`Config::subgoal_excess_percent`]).
    ///
    /// ```
    /// use quadpath::{Cell, Config, Grid, HpaMap};
    /// let grid = Grid::from_fn(96, 96, |x, y| (x % 12 != 6 || y % 30 == 3) && (x + 2 * y) % 41 != 0);
    /// let exact = HpaMap::new(grid.clone(), Config::exact())?;
    /// let weighted = HpaMap::new(grid, Config::exact().with_subgoal_excess_percent(10))?;
    /// let (a, b) = (Cell::new(1, 94), Cell::new(94, 1));
    /// let optimum = exact.find_path(a, b)?.length;
    /// assert!(weighted.find_path(a, b)?.length <= 1.10 * optimum + 1e-9);
    /// assert!(HpaMap::new(Grid::new_free(8, 8), Config::exact().with_subgoal_excess_percent(101)).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_subgoal_excess_percent(mut self, percent: u32) -> Self {
        self.subgoal_excess_percent = percent;
        self
    }

    /// With automatic compaction past this waste, in percent, or none (see
    /// [`Config::compact_above_percent`]).
    pub fn with_compact_above_percent(mut self, percent: Option<u32>) -> Self {
        self.compact_above_percent = percent;
        self
    }

    /// The configuration a map of these costs is built with: every crossing a gate and at
    /// least [`Config::BOUND_LANDMARKS`] landmarks when a bound is kept on a map of several
    /// costs (see [`Config::max_excess_percent`]); on a map of one cost, a clustered
    /// configuration that asks for the subgoal graph is built as a subgoal layer, every
    /// crossing a gate, no clusters, at least [`Config::SUBGOAL_LANDMARKS`] landmarks (see
    /// [`Config::subgoals`]).
    pub(crate) fn for_costs(mut self, several_costs: bool) -> Self {
        if several_costs && self.max_excess_percent.is_some() {
            self.gates = GatePolicy::All;
            self.landmarks = self.landmarks.max(Self::BOUND_LANDMARKS);
        }
        if !several_costs && self.subgoals && self.clusters.is_some() {
            self.gates = GatePolicy::All;
            self.clusters = None;
            self.landmarks = self.landmarks.max(Self::SUBGOAL_LANDMARKS);
        }
        self
    }

    /// The weight of the subgoal search's bound (see [`Config::subgoal_excess_percent`]).
    pub(crate) fn subgoal_weight(&self) -> f64 {
        1.0 + self.subgoal_excess_percent as f64 / 100.0
    }

    /// The factor [`Config::max_excess_percent`] allows over the optimum, if any.
    pub(crate) fn excess_factor(&self) -> Option<f64> {
        self.max_excess_percent.map(|p| 1.0 + p as f64 / 100.0)
    }

    /// Checks every field's range.
    ///
    /// # Errors
    /// The first field out of range, as a [`ConfigError`].
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.landmarks as usize > MAX_LANDMARKS {
            return Err(ConfigError::TooManyLandmarks {
                requested: self.landmarks.into(),
                max: MAX_LANDMARKS as u32,
            });
        }
        if self.local_radius > Self::MAX_LOCAL_RADIUS {
            return Err(ConfigError::LocalRadius {
                radius: self.local_radius,
                max: Self::MAX_LOCAL_RADIUS,
            });
        }
        if self.max_leaf_side == Some(0) {
            return Err(ConfigError::ZeroLeafSide);
        }
        if self.subgoal_excess_percent > Self::MAX_SUBGOAL_EXCESS_PERCENT {
            return Err(ConfigError::SubgoalExcess {
                percent: self.subgoal_excess_percent,
                max: Self::MAX_SUBGOAL_EXCESS_PERCENT,
            });
        }
        self.gates.validate()?;
        if let Some(c) = &self.clusters {
            c.validate()?;
        }
        Ok(())
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

/// How the fast mode groups leaves into clusters and picks their entrances.
///
/// ```
/// use quadpath::{Clustering, Config};
/// let config = Config::fast().with_clusters(Some(Clustering::default().with_side(64)));
/// assert_eq!(config.clusters.unwrap().side, 64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Clustering {
    /// Largest cluster side in cells; the cluster depth is the shallowest quadtree depth
    /// whose nodes are no larger, so clusters come out between half this and this. Larger
    /// clusters mean fewer entrances to search but a costlier refresh after edits.
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

impl Clustering {
    /// With this largest cluster side.
    pub fn with_side(mut self, side: u32) -> Self {
        self.side = side;
        self
    }

    /// With this smallest cluster side.
    pub fn with_min_side(mut self, min_side: u32) -> Self {
        self.min_side = min_side;
        self
    }

    /// With this entrance policy.
    pub fn with_entrances(mut self, entrances: GatePolicy) -> Self {
        self.entrances = entrances;
        self
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if self.side < 2 || self.min_side == 0 || self.min_side > self.side {
            return Err(ConfigError::ClusterSides {
                side: self.side,
                min_side: self.min_side,
            });
        }
        self.entrances.validate()
    }
}
