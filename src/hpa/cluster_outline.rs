//! A read-only view of the fast mode's abstract level, for viewers and debugging: each
//! cluster's area and its entrances, named by cells.

use super::map::HpaMap;
use crate::geom::{Cell, Rect};

/// One cluster of a clustered map (see [`HpaMap::cluster_outlines`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClusterOutline {
    /// The cells of the quadtree node the cluster stands for (a free leaf larger than the
    /// cluster side is a cluster of its own, and then this is the leaf).
    pub area: Rect,
    /// Its entrances: the gate cells the abstract search goes through, in the cluster's
    /// own order.
    pub entrances: Vec<Cell>,
    /// Whether its entrance routes are current and kept. A cluster an edit touched waits
    /// for [`HpaMap::refresh`] (and one with too many entrances keeps
    /// no tables); the search then crosses it over its gates instead.
    pub fresh: bool,
}

impl HpaMap {
    /// The clusters of the fast mode's abstract level, each with its area and entrances;
    /// empty when the map is not clustered (exact mode, fast mode on a map of one cost, or a
    /// map too small for clusters).
    ///
    /// ```
    /// use quadpath::{Config, Grid, HpaMap};
    /// let grid = Grid::from_fn(128, 128, |x, _| x != 64);
    /// let map = HpaMap::new(grid, Config::fast().with_subgoals(false))?;
    /// let clusters = map.cluster_outlines();
    /// assert!(!clusters.is_empty());
    /// assert_eq!(clusters.len(), map.cluster_count());
    /// let entrances: usize = clusters.iter().map(|c| c.entrances.len()).sum();
    /// assert_eq!(entrances, map.entrance_count());
    /// // Every entrance is an open cell inside its cluster.
    /// assert!(clusters.iter().all(|c| c
    ///     .entrances
    ///     .iter()
    ///     .all(|&e| c.area.contains(e) && map.grid().is_free(e))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cluster_outlines(&self) -> Vec<ClusterOutline> {
        let Some(clusters) = self.clusters.as_deref() else {
            return Vec::new();
        };
        let shape = self.tree.shape();
        clusters
            .live_with_ids()
            .map(|(id, cluster)| ClusterOutline {
                area: shape.rect(cluster.key),
                entrances: cluster
                    .entrances
                    .iter()
                    .map(|&g| self.graph.gate(g).cell)
                    .collect(),
                fresh: clusters.is_fresh(id),
            })
            .collect()
    }
}
