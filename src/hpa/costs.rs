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
    /// The smallest cost of a passable code.
    min: f64,
    /// Free cells per band, on a map of more than one band (empty otherwise).
    counts: Vec<u64>,
    /// The smallest cost of a band some free cell has (`min` when none does): what scales
    /// the octile heuristic, so that it stays a lower bound and is as tight as the map
    /// allows (a class may price a road the map does not have yet).
    floor: f64,
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
            band_of_code[code.code() as usize] = rank as u8 + 1;
        }
        let band_cost = std::iter::once(f64::INFINITY)
            .chain(costs.iter().map(|&c| c as f64))
            .collect();
        let min = costs.first().map_or(1.0, |&c| c as f64);
        CostBands {
            min,
            table,
            band_of_code,
            band_cost,
            base: 1,
            counts: Vec::new(),
            floor: min,
        }
    }

    /// Counts `grid`'s free cells per band, and makes the most common band the base (see
    /// `base`).
    pub fn count(&mut self, grid: &Grid) {
        if self.band_cost.len() <= 2 {
            return; // one band (or none): it is the base and the floor
        }
        self.counts = vec![0u64; self.band_cost.len()];
        for c in grid.free_cells() {
            self.counts[self.band_of_code[grid.terrain_code(c) as usize] as usize] += 1;
        }
        self.base = (1..self.counts.len())
            .max_by_key(|&b| (self.counts[b], std::cmp::Reverse(b)))
            .unwrap_or(1) as u8;
        self.refloor();
    }

    /// Records that a cell moved from band `before` to band `after`.
    pub fn moved(&mut self, before: u8, after: u8) {
        if self.counts.is_empty() {
            return;
        }
        let mut emptied_or_filled = false;
        if before != BLOCKED {
            self.counts[before as usize] -= 1;
            emptied_or_filled |= self.counts[before as usize] == 0;
        }
        if after != BLOCKED {
            self.counts[after as usize] += 1;
            emptied_or_filled |= self.counts[after as usize] == 1;
        }
        if emptied_or_filled {
            self.refloor();
        }
    }

    fn refloor(&mut self) {
        self.floor = (1..self.counts.len())
            .find(|&b| self.counts[b] > 0)
            .map_or(self.min, |b| self.band_cost[b]);
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

    /// The one cost every free cell has, when the passable codes share one (1 on a map
    /// without terrain costs): crossings then cost their length times it, without reading
    /// the leaves' costs.
    #[inline]
    pub fn uniform(&self) -> Option<f64> {
        (self.band_cost.len() <= 2).then_some(self.min)
    }

    /// The smallest cost of a passable code.
    #[inline]
    pub fn min(&self) -> f64 {
        self.min
    }

    /// The smallest cost any free cell has now: every step costs at least its length
    /// times this.
    #[inline]
    pub fn floor(&self) -> f64 {
        self.floor
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
            self.band_of_code[grid.terrain_code(c) as usize]
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
        leaf.objects().first().map_or(self.base, |(_, &band)| band)
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
