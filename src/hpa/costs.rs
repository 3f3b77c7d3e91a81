//! How a map weighs its cells: terrain costs grouped into bands, one per distinct cost.
//!
//! The quadtree keeps every leaf uniform in band as well as in openness (one object per cell
//! whose band is not the map's most common one, kinded by its band; see
//! [`QuadTree::build_with_kinds`](crate::quadtree::QuadTree::build_with_kinds)), so every
//! free leaf is an obstacle-free rectangle of one cost `c`. Inside it every step costs its
//! length times `c`, the cheapest route between two of its cells is the octile distance
//! times `c`, and the gate graph's exactness argument carries over unchanged: an optimal
//! path is runs inside leaves, each no cheaper than `c ×` octile, joined by single steps
//! between leaves, each a stored crossing charged its true cost.

use crate::geom::Cell;
use crate::grid::{Grid, TerrainCosts, TerrainSet};
use crate::quadtree::NodeRef;

/// The band of blocked cells.
pub(crate) const BLOCKED: u8 = 0;

/// A map's terrain costs, as bands.
#[derive(Clone, Debug)]
pub(crate) struct CostBands {
    table: TerrainCosts,
    /// The band of each passable terrain code: 1 for the cheapest cost, and so on up.
    /// Boxed, so that the map stays a small handle.
    band_of_code: Box<[u8; 256]>,
    /// The cost of each band (index [`BLOCKED`] unused).
    band_cost: Vec<f64>,
    /// The band whose cells hold no object in the tree: the most common one at the build,
    /// so that a map that is mostly plain ground pays for its roads and swamps only.
    base: u8,
    /// The smallest cost of a passable code: what scales the octile heuristic so that it
    /// stays a lower bound.
    min: f64,
}

impl CostBands {
    /// The bands of `table` over the codes of `passable` (the table must weigh only those).
    pub fn new(table: TerrainCosts, passable: &TerrainSet) -> Self {
        let mut costs: Vec<f32> = passable.iter().map(|code| table.get(code)).collect();
        costs.sort_unstable_by(f32::total_cmp);
        costs.dedup();
        let mut band_of_code = Box::new([BLOCKED; 256]);
        for code in passable.iter() {
            let rank = costs
                .binary_search_by(|c| c.total_cmp(&table.get(code)))
                .expect("every passable code's cost is listed");
            // At most 255 distinct costs (`TerrainCosts::MAX_DISTINCT`): bands fit a byte.
            band_of_code[code as usize] = rank as u8 + 1;
        }
        let band_cost = std::iter::once(f64::INFINITY)
            .chain(costs.iter().map(|&c| c as f64))
            .collect();
        CostBands {
            min: costs.first().map_or(1.0, |&c| c as f64),
            table,
            band_of_code,
            band_cost,
            base: 1,
        }
    }

    /// Makes the band most common among `grid`'s free cells the base (see `base`).
    pub fn choose_base(&mut self, grid: &Grid) {
        if self.band_cost.len() <= 2 {
            return; // one band (or none): it is the base
        }
        let mut counts = vec![0u64; self.band_cost.len()];
        for c in grid.free_cells() {
            counts[self.band_of_code[grid.terrain(c) as usize] as usize] += 1;
        }
        self.base = (1..counts.len())
            .max_by_key(|&b| (counts[b], std::cmp::Reverse(b)))
            .unwrap_or(1) as u8;
    }

    /// The terrain costs the bands come from.
    pub fn table(&self) -> &TerrainCosts {
        &self.table
    }

    /// Whether every passable code costs 1.
    #[inline]
    pub fn is_unit(&self) -> bool {
        self.band_cost.len() <= 2 && self.min == 1.0
    }

    /// The smallest cost of a passable code.
    #[inline]
    pub fn min(&self) -> f64 {
        self.min
    }

    /// The base band (see `base`).
    #[inline]
    pub fn base(&self) -> u8 {
        self.base
    }

    /// The band of free cells of terrain `code`.
    #[inline]
    pub fn code_band(&self, code: u8) -> u8 {
        self.band_of_code[code as usize]
    }

    /// Cell `c`'s band: [`BLOCKED`] unless it is free.
    #[inline]
    pub fn band(&self, grid: &Grid, c: Cell) -> u8 {
        if grid.is_free(c) {
            self.band_of_code[grid.terrain(c) as usize]
        } else {
            BLOCKED
        }
    }

    /// The cost of band `band`, which must not be [`BLOCKED`].
    #[inline]
    pub fn band_cost(&self, band: u8) -> f64 {
        self.band_cost[band as usize]
    }

    /// The cost of free cell `c`.
    #[inline]
    pub fn cell_cost(&self, grid: &Grid, c: Cell) -> f64 {
        self.table.cell_cost(grid, c)
    }

    /// The band of a leaf of the map's tree: the kind of its objects, all alike, or the
    /// base when it has none.
    #[inline]
    pub fn leaf_band(&self, leaf: &NodeRef<'_, u8>) -> u8 {
        leaf.objects().first().map_or(self.base, |&(_, band)| band)
    }

    /// The tree objects of `grid`: one per cell outside the base band, kinded by its band.
    pub fn objects(&self, grid: &Grid) -> Vec<(Cell, u8)> {
        if self.band_cost.len() <= 2 {
            // One passable band: the objects are the blocked cells, as on a plain map.
            return grid.blocked_cells().map(|c| (c, BLOCKED)).collect();
        }
        grid.bounds()
            .cells()
            .map(|c| (c, self.band(grid, c)))
            .filter(|&(_, band)| band != self.base)
            .collect()
    }
}
