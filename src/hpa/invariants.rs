//! Test hooks: a canonical snapshot of the structure, to compare an edited map with a
//! fresh build, and a check of the internal bookkeeping. Compiled for the crate's own
//! tests and with the `testing` feature, which the integration tests turn on.

use super::adjacency::TreeAdjacency;
use super::graph::SlotId;
use super::map::HpaMap;
use crate::geom::{Cell, Direction, Rect};
use hashbrown::HashMap;

/// Two entrances of a cluster and the distance between them, in millionths of a cell.
pub type EntranceRoute = (Cell, Cell, i64);

/// A canonical description of an [`HpaMap`], equal for two maps exactly when they have the
/// same leaves, gates, crossings, component partition and cluster routes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// `(id, rect, free)` of every leaf.
    pub leaves: Vec<(u64, Rect, bool)>,
    /// `(id, cost bits)` of every free leaf: what a unit of length costs in it.
    pub leaf_costs: Vec<(u64, u64)>,
    /// Every gate cell with its leaf: on a layer that keeps no gate graph (see
    /// [`HpaMap::gate_count`]), those of the gate graph built for the snapshot, so that a
    /// layer that keeps one and one that does not compare equal when their leaves are.
    pub gates: Vec<(Cell, u64)>,
    /// Every crossing, smaller cell first.
    pub crossings: Vec<(Cell, Cell)>,
    /// The partition of free leaves into components.
    pub components: Vec<Vec<u64>>,
    /// Per cluster, the distance between every two of its entrances.
    pub clusters: Vec<(u64, Vec<EntranceRoute>)>,
}

impl HpaMap {
    /// The map's [`Snapshot`].
    ///
    /// # Panics
    /// When clusters or landmarks await [`HpaMap::refresh`].
    pub fn snapshot(&self) -> Snapshot {
        assert!(
            !self.needs_refresh(),
            "refresh the map before taking a snapshot"
        );
        let mut leaves: Vec<(u64, Rect, bool)> = self
            .tree
            .leaves()
            .map(|l| (l.id().raw(), l.rect(), self.is_free_leaf(&l)))
            .collect();
        leaves.sort_unstable_by_key(|l| l.0);
        let mut leaf_costs: Vec<(u64, u64)> = self
            .graph
            .leaves()
            .map(|(_, l)| (l.id.raw(), l.cost.to_bits()))
            .collect();
        leaf_costs.sort_unstable();
        let mut crossings = self.crossings();
        crossings.sort_unstable();
        // A layer that keeps no gate graph reports the one a fresh build of it would have.
        let mut gates: Vec<(Cell, u64)> = self.with_gate_graph(|graph| {
            graph
                .gates()
                .map(|(_, g)| (g.cell, graph.leaf(g.leaf).id.raw()))
                .collect()
        });
        gates.sort_unstable();
        let mut by_label: HashMap<_, Vec<u64>> = HashMap::new();
        for (leaf, l) in self.graph.leaves() {
            by_label
                .entry(self.components.of(leaf))
                .or_default()
                .push(l.id.raw());
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
                // A plain cluster (too many entrances for tables to pay) keeps none.
                let mut routes: Vec<EntranceRoute> = (0..c.dist.len())
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
            leaf_costs,
            gates,
            crossings,
            components,
            clusters,
        }
    }

    /// Checks the internal bookkeeping: every leaf of the tree uniform in openness and cost,
    /// every free leaf of the tree in the graph at its cost, the gate graph kept exactly
    /// when the layer needs it, gates filed in their leaves, symmetric crossings that are
    /// legal steps, component labels and sizes (against the quadtree's neighbours, and the
    /// gates' crossings where the layer keeps them), and the landmark tables' Lipschitz
    /// property (per cell, or at the subgoals).
    ///
    /// # Errors
    /// A description of the first inconsistency found.
    pub fn check_consistency(&self) -> Result<(), String> {
        let g = &self.graph;
        if self.linked != self.keeps_gate_graph() {
            return Err(format!(
                "the layer holds gates: {}, needs them: {}",
                self.linked,
                self.keeps_gate_graph()
            ));
        }
        if !self.linked && !g.is_unlinked() {
            return Err(format!("an unlinked layer holds {} gates", g.gate_count()));
        }
        if let Some(asked) = self.asked_gates.get() {
            let slots = |g: &super::graph::GateGraph| -> Vec<(usize, u64)> {
                g.leaves().map(|(id, l)| (id.index(), l.id.raw())).collect()
            };
            if slots(asked) != slots(g) || asked.leaf_capacity() != g.leaf_capacity() {
                return Err("the asked gate graph's leaves are not the layer's".into());
            }
        }
        self.components.check(&TreeAdjacency {
            graph: g,
            tree: &self.tree,
            grid: &self.grid,
        })?;
        if self.linked {
            self.components.check(&**g)?;
        }
        self.landmarks.check(&self.grid)?;
        if let Some(subgoals) = &self.subgoals {
            subgoals.landmarks().check(subgoals)?;
        }
        for l in self.tree.leaves() {
            let band = self.costs.leaf_band(&l);
            if let Some(c) = l
                .rect()
                .cells()
                .find(|&c| self.costs.band(&self.grid, c) != band)
            {
                return Err(format!("leaf {} is of band {band} but holds {c}", l.id()));
            }
            let cost = self.leaf_cost(&l);
            let in_graph = self.graph.leaf_of(l.id()).map(|id| g.leaf(id).cost);
            if cost != in_graph {
                return Err(format!(
                    "leaf {} costs {cost:?}, the graph says {in_graph:?}",
                    l.id()
                ));
            }
        }
        let free_leaves = self.tree.leaves().filter(|l| self.is_free_leaf(l)).count();
        if free_leaves != g.leaf_count() {
            return Err(format!(
                "the tree has {free_leaves} free leaves, the graph {}",
                g.leaf_count()
            ));
        }
        // As many distinct gates listed as live: with each listed gate's leaf checked below,
        // every live gate is then in its own leaf's list exactly once.
        let mut seen = vec![false; g.gate_capacity()];
        for (_, l) in g.leaves() {
            for &gate in g.gates_of(l) {
                if std::mem::replace(&mut seen[gate.index()], true) {
                    return Err(format!("gate {} is listed twice", g.gate(gate).cell));
                }
            }
        }
        let listed = seen.iter().filter(|&&s| s).count();
        if listed != g.gate_count() {
            return Err(format!(
                "the leaves list {listed} gates, the graph has {}",
                g.gate_count()
            ));
        }
        for (leaf_id, leaf) in g.leaves() {
            if g.leaf_of(leaf.id) != Some(leaf_id) {
                return Err(format!("leaf {} is not indexed by its node", leaf.id));
            }
            for (&gate, &cell) in g.gates_of(leaf).iter().zip(g.cells_of(leaf)) {
                let gt = g.gate(gate);
                if !g.is_live_gate(gate)
                    || gt.leaf != leaf_id
                    || gt.cell != cell
                    || !g.rect_of(leaf).contains(gt.cell)
                {
                    return Err(format!("gate {} misfiled in leaf {}", gt.cell, leaf.id));
                }
                if g.links_of(gt).is_empty() {
                    return Err(format!("gate {} has no crossing", gt.cell));
                }
                for &o in g.links_of(gt) {
                    let other = g.gate(o);
                    if !g.is_live_gate(o)
                        || other.leaf == leaf_id
                        || !g.links_of(other).contains(&gate)
                    {
                        return Err(format!(
                            "crossing {} -> {} is one-sided",
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
