//! Where an [`HpaMap`](super::HpaMap)'s bytes and build time go, part by part: what
//! `quadpath info` prints, and what tells a change to the layout whether it paid.

use std::time::Duration;

/// Heap bytes of an [`HpaMap`](super::HpaMap), by part ([`HpaMap::memory_breakdown`]).
///
/// ```
/// use quadpath::{Grid, HpaMap, Mode};
/// let map = HpaMap::new(Grid::from_fn(64, 64, |x, y| (x * y) % 7 != 3), Mode::Exact)?;
/// let breakdown = map.memory_breakdown();
/// assert_eq!(breakdown.total(), map.memory_bytes());
/// assert_eq!(breakdown.clusters, 0, "exact mode has no clusters");
/// for (part, bytes) in breakdown.parts() {
///     println!("{part:>10}: {bytes} bytes");
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`HpaMap::memory_breakdown`]: super::HpaMap::memory_breakdown
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryBreakdown {
    /// The grid: free and obstruction bits, terrain codes.
    pub grid: usize,
    /// The quadtree: its node table and the blocked cells it holds.
    pub tree: usize,
    /// The free leaves of the gate graph: their records, cell and gate lists, border
    /// indexes, and the node → leaf map.
    pub leaves: usize,
    /// The gates: their records with their crossings (links to the gates across).
    pub gates: usize,
    /// The component labels.
    pub components: usize,
    /// Fast mode's clusters: their leaves, entrances and entrance routes.
    pub clusters: usize,
    /// The landmark distance tables.
    pub landmarks: usize,
    /// The subgoal graph: stop bits, subgoal marks and IDs, edge lists.
    pub subgoals: usize,
    /// Of the parts above (not added again by [`MemoryBreakdown::total`]), the bytes edits
    /// have left behind that a fresh build of the same grid would not hold: vacant leaf,
    /// gate and cluster slots with the lists they keep, component entries of vacant leaf
    /// slots, spare capacity in the leaves' and the tree's lists, and hash table slots past
    /// their entries, beyond what the build held of these (a fresh build sizes its tables
    /// and buffers with some room too). A fresh build reports 0.
    /// [`HpaMap::refresh`](super::HpaMap::refresh) compacts the map when this passes
    /// [`Config::compact_above_percent`](super::Config::compact_above_percent) of the rest.
    pub waste: usize,
}

impl MemoryBreakdown {
    /// All parts together: [`HpaMap::memory_bytes`](super::HpaMap::memory_bytes).
    pub fn total(&self) -> usize {
        self.grid
            + self.tree
            + self.leaves
            + self.gates
            + self.components
            + self.clusters
            + self.landmarks
            + self.subgoals
    }

    /// Each part with its name, in the order of the fields.
    pub fn parts(&self) -> [(&'static str, usize); 8] {
        [
            ("grid", self.grid),
            ("tree", self.tree),
            ("leaves", self.leaves),
            ("gates", self.gates),
            ("components", self.components),
            ("clusters", self.clusters),
            ("landmarks", self.landmarks),
            ("subgoals", self.subgoals),
        ]
    }
}

/// How long each step of [`HpaMap::new`](super::HpaMap::new) took, as recorded by the
/// build ([`HpaMap::build_profile`](super::HpaMap::build_profile)).
///
/// ```
/// use quadpath::{Grid, HpaMap, Mode};
/// let map = HpaMap::new(Grid::new_free(64, 64), Mode::Fast)?;
/// let profile = map.build_profile();
/// let parts = profile.parts();
/// assert_eq!(parts.iter().map(|&(_, time)| time).sum::<std::time::Duration>(), profile.total());
/// for (step, time) in parts {
///     println!("{step:>10}: {time:?}");
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BuildProfile {
    /// Sizing and building the quadtree.
    pub tree: Duration,
    /// Free leaves, their gates and the crossings between them.
    pub gates: Duration,
    /// Component labels.
    pub components: Duration,
    /// Clusters: entrances chosen and routed (fast mode).
    pub clusters: Duration,
    /// Landmark distance tables.
    pub landmarks: Duration,
    /// The subgoal graph (see [`Config::subgoals`](super::Config::subgoals)).
    pub subgoals: Duration,
}

impl BuildProfile {
    /// All steps together: the build's work. With the `parallel` feature the quadtree and
    /// the subgoal graph are built side by side (a layer with a subgoal graph and no gate
    /// graph makes its free leaves' slots and components on the tree's thread too), and so
    /// are the landmarks and the subgoal graph's levels (each step's own time is
    /// recorded), so the build may take less wall time than this.
    pub fn total(&self) -> Duration {
        self.tree + self.gates + self.components + self.clusters + self.landmarks + self.subgoals
    }

    /// Each step with its name, in the order of the fields.
    pub fn parts(&self) -> [(&'static str, Duration); 6] {
        [
            ("tree", self.tree),
            ("gates", self.gates),
            ("components", self.components),
            ("clusters", self.clusters),
            ("landmarks", self.landmarks),
            ("subgoals", self.subgoals),
        ]
    }
}
