//! Edits and refreshes: cells blocked and freed, the leaves around them rebuilt, and the
//! deferred work (cluster routes, landmark columns) done when the caller chooses.

use super::adjacency::TreeAdjacency;
use super::components::Label;
use super::costs::BLOCKED;
use super::error::EditError;
use super::graph::LeafId;
use super::landmarks::Landmarks;
use super::map::HpaMap;
use crate::geom::{Cell, Direction, Rect};
use crate::grid::{Grid, Terrain, TerrainPatch};
use crate::quadtree::{LeafChange, NodeId};
use hashbrown::HashMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// What a refresh did, and whether anything is left for the next one.
///
/// ```
/// use quadpath::{Config, Grid, HpaMap, Rect};
/// // Fast mode with clusters (on a map of one cost the preset searches subgoals instead).
/// let mut map = HpaMap::new(Grid::new_free(128, 128), Config::fast().with_subgoals(false))?;
/// map.set_blocked(Rect::new(60, 0, 61, 100), true)?;
/// // Paths are already right; the cluster routes around the wall wait for a refresh.
/// assert!(map.needs_refresh());
/// let report = map.refresh();
/// assert!(report.complete && report.clusters > 0);
/// assert!(!map.needs_refresh());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RefreshReport {
    /// Clusters whose entrance routes were recomputed.
    pub clusters: usize,
    /// Landmarks whose distance columns were recomputed.
    pub landmarks: usize,
    /// Whether the map is now fully up to date.
    pub complete: bool,
    /// Work done, in cells and gates: cells a landmark column search settled, scanned or
    /// wrote into the table; for a cluster whose routes are recomputed, its cells when its
    /// entrances are chosen (a few cheap steps per cell), then the gates its searches (one
    /// per entrance) settle and the edges they relax. A refresh with a time
    /// budget stops at the first unit boundary past its deadline, and one unit is at most
    /// [`HpaMap::REFRESH_UNIT_CELLS`] of landmark or route-search work (plus one gate's
    /// edges), or one cluster's choice of entrances (at most
    /// [`Clustering::side`](crate::Clustering::side)² cells, or a larger free leaf's).
    pub work: usize,
    /// Heap bytes given back by compacting the map after the refresh (see
    /// [`Config::compact_above_percent`](crate::Config::compact_above_percent)); 0 when it
    /// was not compacted.
    pub compacted: usize,
    /// Whether the levels of the subgoal graph, which an edit drops, were rebuilt (see
    /// [`HpaMap::subgoal_levels_size`]); their rebuild counts one unit of `work` per
    /// subgoal visited.
    pub subgoal_levels: bool,
}

/// What [`HpaMap::apply_patch`] did.
///
/// ```
/// use quadpath::{Cell, Grid, HpaMap, Mode, TerrainPatch};
/// let mut map = HpaMap::new(Grid::new_free(32, 32), Mode::Exact)?;
/// let pond = TerrainPatch::new(2, 2, vec![b'W'; 4]);
/// let report = map.apply_patch(Cell::new(4, 4), &pond)?;
/// assert_eq!((report.blocked, report.freed, report.rebuilt), (4, 0, false));
/// assert_eq!(report.changed(), 4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PatchReport {
    /// Cells that became blocked.
    pub blocked: usize,
    /// Cells that became free.
    pub freed: usize,
    /// Cells that stayed free but changed terrain cost (always 0 on a map without terrain
    /// costs).
    pub recosted: usize,
    /// Whether the structure was built afresh instead of edited, because the patch changed
    /// too much of the map for edits to be cheaper.
    pub rebuilt: bool,
}

impl RefreshReport {
    /// The report of no work, complete: the start of a sum over layers.
    pub(crate) fn default_complete() -> Self {
        RefreshReport {
            complete: true,
            ..RefreshReport::default()
        }
    }

    /// The work of both reports; complete when both are.
    pub(crate) fn add(self, other: RefreshReport) -> Self {
        RefreshReport {
            clusters: self.clusters + other.clusters,
            landmarks: self.landmarks + other.landmarks,
            complete: self.complete && other.complete,
            work: self.work + other.work,
            compacted: self.compacted + other.compacted,
            subgoal_levels: self.subgoal_levels || other.subgoal_levels,
        }
    }
}

impl PatchReport {
    /// Cells whose passability or cost changed.
    pub fn changed(&self) -> usize {
        self.blocked + self.freed + self.recosted
    }
}

/// A patch changing at least one cell in this many is laid by building the structure
/// afresh rather than by edits. A fresh build costs about 0.2–0.5 µs per cell of the map
/// (landmarks included); an edit about 1–2.5 µs per changed cell on StarCraft and Dragon Age
/// maps, refresh included, and up to 25–45 µs in mazes, where every wall cell splits open
/// leaves (measured by laying growing parts of `Aftershock`, `lak304d` and `maze512-32-9` as
/// one patch, both modes). One in 8 keeps edits for everything a game does between frames
/// and rebuilds when a level is laid.
const REBUILD_ONE_CELL_IN: usize = 8;

impl HpaMap {
    /// Lays a terrain patch with its top-left cell at `at` (see
    /// [`Grid::apply_patch`](crate::Grid::apply_patch)), keeping the structure up to date,
    /// and chooses how: a patch that changes no cell's passability or cost only writes
    /// terrain codes; one that changes at least one cell in 8 (a whole level
    /// laid over an empty map) is cheaper as a fresh build; anything else is applied as
    /// edits, blocked cells first, then freed ones, with the same deferred work as
    /// [`HpaMap::set_blocked`] (see [`HpaMap::refresh`]).
    ///
    /// A fresh build that [`Config::max_memory`](crate::Config::max_memory) refuses falls
    /// back to edits, so that the map always ends up patched.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode, TerrainPatch};
    /// let mut map = HpaMap::new(Grid::new_free(64, 64), Mode::Exact)?;
    /// // A wall with a door, laid across the map.
    /// let mut codes = vec![b'@'; 64];
    /// codes[30] = b'.';
    /// let wall = TerrainPatch::new(64, 1, codes);
    /// let report = map.apply_patch(Cell::new(0, 32), &wall)?;
    /// assert_eq!((report.blocked, report.freed, report.rebuilt), (63, 0, false));
    /// let path = map.find_path(Cell::new(0, 0), Cell::new(0, 63))?;
    /// assert!(path.cells.contains(&Cell::new(30, 32)));
    /// // Laying it again changes nothing and costs nothing.
    /// assert_eq!(map.apply_patch(Cell::new(0, 32), &wall)?.changed(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`EditError::OutOfBounds`] when the patch reaches outside the map; nothing changes
    /// then.
    pub fn apply_patch(
        &mut self,
        at: Cell,
        patch: &TerrainPatch,
    ) -> Result<PatchReport, EditError> {
        EditError::check_patch(&self.grid, at, patch)?;
        let flips = self.grid.patch_flips(at, patch);
        let code_at = |c: Cell| patch.code(c.x - at.x, c.y - at.y);
        // Free cells that stay free but move to another cost band.
        let recosting: Vec<Cell> = if self.costs.is_unit() {
            Vec::new()
        } else {
            patch
                .cells_at(at)
                .filter(|&(c, code)| {
                    self.grid.is_free(c)
                        && self.grid.passable().contains(code)
                        && self.costs.code_band(code) != self.costs.band(&self.grid, c)
                })
                .map(|(c, _)| c)
                .collect()
        };
        let report = self.lay(&flips.blocking, &flips.freeing, &recosting, |grid, c| {
            grid.set_cell_terrain(c, code_at(c).code());
        });
        // The codes that change no passability.
        self.grid.apply_patch(at, patch);
        Ok(report)
    }

    /// Flips the cells in `blocking` (free ones) to blocked and those in `freeing` to free:
    /// the open positions a [`World`](crate::World) edit changed for this layer's class. The
    /// layer's grid holds open positions as free cells, so a flip is a toggle.
    pub(crate) fn flip_cells(&mut self, blocking: &[Cell], freeing: &[Cell]) -> PatchReport {
        self.lay(blocking, freeing, &[], |grid, c| {
            grid.set_cell_blocked(c, grid.is_free(c));
        })
    }

    /// Lays a [`World`](crate::World) edit on the layer of a class with terrain costs: the
    /// positions in `closing` close, those in `opening` open, and every position of `codes`
    /// takes its new terrain code (the dearest under its footprint), which may move an open
    /// one to another cost band.
    pub(crate) fn relay_positions(
        &mut self,
        closing: &[Cell],
        opening: &[Cell],
        codes: &[(Cell, u8)],
    ) -> PatchReport {
        let code_of: HashMap<Cell, u8> = codes.iter().copied().collect();
        let closing_set: hashbrown::HashSet<Cell> = closing.iter().copied().collect();
        let opening_set: hashbrown::HashSet<Cell> = opening.iter().copied().collect();
        let recosting: Vec<Cell> = codes
            .iter()
            .filter(|&&(c, code)| {
                self.grid.is_free(c)
                    && !closing_set.contains(&c)
                    && self.costs.code_band(code) != self.band_at(c)
            })
            .map(|&(c, _)| c)
            .collect();
        let report = self.lay(closing, opening, &recosting, |grid, c| {
            if let Some(&code) = code_of.get(&c) {
                grid.set_cell_terrain(c, code);
            }
            if closing_set.contains(&c) {
                grid.set_cell_blocked(c, true);
            } else if opening_set.contains(&c) {
                grid.set_cell_blocked(c, false);
            }
        });
        // The other positions keep their band (closed ones stay obstructed, open ones keep
        // their cost): only their codes are written.
        for &(c, code) in codes {
            self.grid.set_cell_terrain(c, code);
        }
        report
    }

    /// Lays a set of changes, `write` making each on a grid: cells to block, to free, and
    /// to move to another cost band. A fresh build when they are at least one cell in
    /// [`REBUILD_ONE_CELL_IN`] of the map, else edits: blocked cells first, then freed
    /// ones, then cost changes.
    fn lay(
        &mut self,
        blocking: &[Cell],
        freeing: &[Cell],
        recosting: &[Cell],
        mut write: impl FnMut(&mut Grid, Cell),
    ) -> PatchReport {
        let mut report = PatchReport {
            blocked: blocking.len(),
            freed: freeing.len(),
            recosted: recosting.len(),
            rebuilt: false,
        };
        let cells = self.grid.width() as usize * self.grid.height() as usize;
        if report.changed() > 0 && report.changed() >= cells.div_ceil(REBUILD_ONE_CELL_IN) {
            let mut grid = self.grid.clone();
            for &c in blocking.iter().chain(freeing).chain(recosting) {
                write(&mut grid, c);
            }
            if let Ok(fresh) = self.rebuilt(grid) {
                *self = fresh;
                report.rebuilt = true;
                return report;
            }
        }
        for cells in [blocking, freeing, recosting] {
            let mut edit = Edit::default();
            for &c in cells {
                let before = self.band_at(c);
                write(&mut self.grid, c);
                self.retag(c, before, &mut edit);
                // A patch's cells may lie anywhere on the map: the tree takes them one by
                // one, where one pass would walk every node between them.
                self.write_tags(&mut edit);
            }
            self.after_edit(&edit);
        }
        report
    }

    /// Blocks (`true`) or frees (`false`) every cell of `area` (a [`Cell`] or a [`Rect`]:
    /// a building placed or torn down), then updates the structure once, locally. Returns
    /// how many cells changed passability.
    ///
    /// Blocking places an obstruction on top of the terrain (see
    /// [`Grid::set_blocked`](crate::Grid::set_blocked)), so unblocking gives back what was
    /// there: a road under a removed building is a road again. Unblocking a cell whose
    /// terrain itself is impassable (a wall of the map file) digs it out to plain ground.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode, QueryError, Rect};
    /// let mut map = HpaMap::new(Grid::new_free(20, 10), Mode::Fast)?;
    /// // A wall across the map cuts it in two; tearing part of it down reconnects it.
    /// assert_eq!(map.set_blocked(Rect::new(10, 0, 10, 9), true)?, 10);
    /// assert!(!map.connected(Cell::new(0, 0), Cell::new(19, 0))?);
    /// assert_eq!(map.set_blocked(Rect::new(10, 4, 10, 5), false)?, 2);
    /// assert!(map.connected(Cell::new(0, 0), Cell::new(19, 0))?);
    /// // One cell is an area too.
    /// assert_eq!(map.set_blocked(Cell::new(1, 1), true)?, 1);
    /// assert_eq!(map.set_blocked(Cell::new(1, 1), true)?, 0, "already blocked");
    /// assert!(matches!(
    ///     map.find_path(Cell::new(0, 0), Cell::new(1, 1)),
    ///     Err(QueryError::Blocked { .. })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`EditError::OutOfBounds`] when the area reaches off the map; nothing changes then.
    pub fn set_blocked(
        &mut self,
        area: impl Into<Rect>,
        blocked: bool,
    ) -> Result<usize, EditError> {
        let rect = self.check_rect(area.into())?;
        let mut edit = Edit::default();
        for c in rect.cells() {
            let before = self.band_at(c);
            if self.grid.set_cell_blocked(c, blocked) {
                self.retag(c, before, &mut edit);
            }
        }
        self.write_tags(&mut edit);
        self.after_edit(&edit);
        Ok(edit.len())
    }

    fn check_rect(&self, rect: Rect) -> Result<Rect, EditError> {
        EditError::check_area(&self.grid, rect)
    }

    /// Brings the structure up to date after the cells of `edit` changed band: the grid
    /// and the tree already have. Cells blocked and freed must not mix in one edit (the
    /// component labels split or merge, not both).
    fn after_edit(&mut self, edit: &Edit) {
        if edit.len() == 0 {
            return;
        }
        debug_assert!(!(edit.blocked && edit.freed), "one way per edit");
        self.revision = super::map::next_revision();
        self.adopt_asked_gates();
        self.update(edit.blocked);
        self.update_subgoals(&edit.raised, &edit.lowered);
        self.settle_gates();
        // Blocked cells and dearer ones only lengthen distances, which the landmark
        // columns survive as they are; freed and cheaper ones need a repair.
        self.landmarks
            .on_blocked(&self.grid, &self.costs, &edit.raised);
        self.landmarks
            .on_freed(&self.grid, &self.costs, &edit.lowered);
        // A map built without landmarks (nothing free, or nothing for them to guide: open
        // ground) may need them now: the next refresh builds them if they pay.
        // (A layer searched over its subgoal graph keeps its landmarks at the subgoals.)
        if self.config.landmarks > 0 && self.landmarks.count() == 0 && !self.wants_subgoals() {
            self.landmarks_pending = true;
        }
    }

    /// Sets up the landmarks a map went without (see `landmarks_pending`) if they now pay
    /// and fit in [`Config::max_memory`](crate::Config::max_memory), their columns left to
    /// the next refresh steps, which compute them in slices (see `Landmarks::unbuilt`);
    /// returns whether it set them up.
    fn start_pending_landmarks(&mut self) -> bool {
        self.landmarks_pending = false;
        let k = self.config.landmarks as usize;
        // Cheapest test first: every edit of a map without landmarks comes here, and the
        // size estimate walks every free cell.
        if self.grid.free_count() == 0 || !super::map::landmarks_pay(self) {
            return false;
        }
        // The estimate that walks no cell: a budgeted refresh does this in one unit.
        let fits = self.config.max_memory.map_or(true, |limit| {
            self.memory_bytes()
                .saturating_add(Landmarks::most_bytes(&self.grid, k))
                <= limit
        });
        if !fits {
            return false;
        }
        self.landmarks = Landmarks::unbuilt(&self.grid, &self.costs, k);
        true
    }

    /// Cell `c`'s cost band now (see `hpa::costs`).
    fn band_at(&self, c: Cell) -> u8 {
        self.costs.band(&self.grid, c)
    }

    /// Records in `edit` that cell `c`, of band `before`, has the band the grid now gives
    /// it, and how it changed (the tree learns it in [`HpaMap::write_tags`]); nothing when
    /// the band is the same.
    fn retag(&mut self, c: Cell, before: u8, edit: &mut Edit) {
        let after = self.band_at(c);
        if after == before {
            return;
        }
        self.costs.moved(before, after);
        let base = self.costs.base();
        if before != base {
            edit.untagged.push((c, before));
        }
        if after != base {
            edit.tagged.push((c, after));
        }
        edit.blocked |= after == BLOCKED;
        edit.freed |= before == BLOCKED;
        // Blocked is the dearest of all: a band's cost is finite.
        let cost = |band: u8| match band {
            BLOCKED => f64::INFINITY,
            b => self.costs.band_cost(b),
        };
        if cost(after) < cost(before) {
            edit.lowered.push(c);
        } else {
            edit.raised.push(c);
        }
    }

    /// Writes the bands `edit` collected into the tree (and empties its lists): a cell's
    /// alone with the tree's single edits, several cells' (a building's rectangle) in one
    /// pass ([`QuadTree::replace_objects`](crate::quadtree::QuadTree::replace_objects)),
    /// which splits and merges each node they fall in once instead of once a cell. The
    /// tree comes out the same either way: its shape depends only on its objects.
    fn write_tags(&mut self, edit: &mut Edit) {
        let mut cells = edit.untagged.iter().chain(&edit.tagged).map(|&(c, _)| c);
        let one_cell = cells.next().map_or(true, |c| cells.all(|d| d == c));
        if one_cell {
            for (c, before) in edit.untagged.drain(..) {
                let removed = self.tree.remove(c, &before);
                debug_assert_eq!(removed, Ok(true), "{c} held its band");
            }
            for (c, after) in edit.tagged.drain(..) {
                self.tree
                    .add(c, after)
                    .expect("the cell was checked to be on the map");
            }
            return;
        }
        let found = self
            .tree
            .replace_objects(&edit.untagged, std::mem::take(&mut edit.tagged))
            .expect("the cells were checked to be on the map");
        debug_assert_eq!(found, edit.untagged.len(), "every cell held its band");
        edit.untagged.clear();
    }

    /// Sets the terrain of every cell of `area` (a [`Cell`] or a [`Rect`]: a river dug, a
    /// road laid), then updates the structure once. Passability follows from the grid's
    /// passable set ([`Grid::passable`](crate::Grid::passable)) and cost from the map's
    /// [terrain costs](HpaMap::with_costs); an obstruction on a cell (a building placed
    /// with [`HpaMap::set_blocked`]) stays. Returns how many cells changed passability or
    /// cost.
    ///
    /// Paving a road on a map with terrain costs is an edit like any other: the leaves
    /// along it split, and the search sees the new costs at once.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode, Rect, Terrain, TerrainCosts};
    /// let costs: TerrainCosts = "G=0.5".parse()?;
    /// let mut map = HpaMap::with_costs(Grid::new_free(40, 40), costs, Mode::Exact)?;
    /// let (a, b) = (Cell::new(0, 20), Cell::new(39, 20));
    /// assert_eq!(map.find_path(a, b)?.cost, 39.0);
    /// assert_eq!(map.set_terrain(Rect::new(0, 20, 39, 20), b'G')?, 40);
    /// assert_eq!(map.find_path(a, b)?.cost, 19.5);
    /// // Water is not passable by default: one cell of it cuts the road.
    /// assert_eq!(map.set_terrain(Cell::new(5, 20), Terrain::WATER)?, 1);
    /// assert_eq!(map.grid().terrain(Cell::new(5, 20)), Terrain::WATER);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// A road laid under a building and the building removed later gives back the road:
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode, Rect};
    /// let mut map = HpaMap::new(Grid::new_free(20, 20), Mode::Fast)?;
    /// let road = Rect::new(0, 10, 19, 10);
    /// assert_eq!(map.set_terrain(road, b'G')?, 0, "a road is as passable as ground");
    /// map.set_blocked(Rect::new(8, 8, 11, 11), true)?;
    /// map.set_blocked(Rect::new(8, 8, 11, 11), false)?;
    /// assert_eq!(map.grid().terrain(Cell::new(9, 10)), b'G');
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`EditError::OutOfBounds`] when the area reaches off the map; nothing changes then.
    pub fn set_terrain(
        &mut self,
        area: impl Into<Rect>,
        terrain: impl Into<Terrain>,
    ) -> Result<usize, EditError> {
        let rect = self.check_rect(area.into())?;
        let code = terrain.into().code();
        // One code over the whole rectangle: every cell whose passability changes changes
        // the same way, which is what one structural update handles.
        let mut edit = Edit::default();
        for c in rect.cells() {
            let before = self.band_at(c);
            self.grid.set_cell_terrain(c, code);
            self.retag(c, before, &mut edit);
        }
        self.write_tags(&mut edit);
        self.after_edit(&edit);
        Ok(edit.len())
    }

    /// Gives back the memory edits have left behind: rebuilds the structure from the
    /// current grid, costs and configuration, and returns the heap bytes freed.
    ///
    /// Edits replace leaves, gates and cluster tables in place, and the slots and spare
    /// capacity they leave are kept for the next edits: after many, a map holds 1.2–1.6×
    /// what a fresh build of the same grid does. A game that has finished a burst of
    /// edits (a level laid, a battle's ruins settled) can call this between frames: it
    /// costs a build (0.2–0.5 µs per cell) and leaves the map as a fresh one, refreshed.
    ///
    /// ```
    /// use quadpath::{Grid, HpaMap, Mode, Rect};
    /// let mut map = HpaMap::new(Grid::new_free(128, 128), Mode::Fast)?;
    /// for i in 0..30 {
    ///     map.set_blocked(Rect::new(4 * i, 2 * i, 4 * i + 2, 2 * i + 3), true)?;
    ///     map.set_blocked(Rect::new(4 * i, 2 * i, 4 * i + 2, 2 * i + 3), false)?;
    /// }
    /// let before = map.memory_bytes();
    /// let freed = map.compact()?;
    /// assert_eq!(map.memory_bytes(), before - freed);
    /// assert!(!map.needs_refresh());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`BuildError`](crate::BuildError) when the rebuild is refused (over
    /// [`Config::max_memory`](crate::Config::max_memory)); the map is then left as it was.
    pub fn compact(&mut self) -> Result<usize, crate::BuildError> {
        let before = self.memory_bytes();
        let fresh = self.rebuilt(self.grid.clone())?;
        *self = fresh;
        Ok(before.saturating_sub(self.memory_bytes()))
    }

    /// Brings the cluster routes and the landmarks up to date after edits.
    ///
    /// Edits update the tree, the gates and the components at once, but defer two costlier
    /// jobs. Recomputing a cluster's entrance routes costs far more than the edit, and a
    /// burst of edits (a building placed cell by cell, a wall raised) should pay it once;
    /// until then the search crosses the stale clusters over their gates, slower there and
    /// nowhere else. And an edit that opens a real shortcut (a wall knocked through)
    /// changes the landmark distances over a whole region; past a fixed budget the edit sets
    /// those landmarks aside (searches then use the others) until a refresh recomputes
    /// them, one grid search each.
    ///
    /// Queries never refresh by themselves: call this, or [`HpaMap::refresh_within`] to
    /// spread the work over frames, when the game can afford it.
    ///
    /// ```
    /// use quadpath::{Cell, Config, Grid, HpaMap, Rect};
    /// let mut map = HpaMap::new(Grid::new_free(256, 256), Config::fast().with_subgoals(false))?;
    /// map.set_blocked(Rect::new(100, 100, 103, 103), true)?;
    /// assert!(map.needs_refresh());
    /// // Still answered, and valid, before the refresh.
    /// let before = map.find_path(Cell::new(90, 90), Cell::new(120, 120))?;
    /// let report = map.refresh();
    /// assert!(report.complete && report.clusters > 0 && !map.needs_refresh());
    /// let after = map.find_path(Cell::new(90, 90), Cell::new(120, 120))?;
    /// assert!(before.length >= 30.0 * 2f64.sqrt() && after.length >= 30.0 * 2f64.sqrt());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn refresh(&mut self) -> RefreshReport {
        let mut report = self.refresh_until(None);
        report.compacted = self.compact_if_wasteful();
        report
    }

    /// Compacts the map when the waste edits have left passes
    /// [`Config::compact_above_percent`](crate::Config::compact_above_percent) of the
    /// rest; returns the bytes freed. Weighs each edited state once.
    fn compact_if_wasteful(&mut self) -> usize {
        let Some(percent) = self.config.compact_above_percent else {
            return 0;
        };
        if self.sizes.weighed_revision == self.revision {
            return 0;
        }
        self.sizes.weighed_revision = self.revision;
        let parts = self.memory_breakdown();
        let (total, percent) = (parts.total() as u128, percent as u128);
        let wasteful = parts.waste as u128 * 100 > (total - parts.waste as u128) * percent;
        // Growth the waste does not see (leaves an edited tree keeps apart where a fresh
        // build makes fewer) is caught by the size against the last build's.
        let grown = total * 100 > self.sizes.built_bytes as u128 * (100 + percent);
        if !wasteful && !grown {
            return 0;
        }
        // A rebuild refused (over `max_memory`) leaves the map as it was.
        let freed = self.compact().unwrap_or(0);
        self.sizes.weighed_revision = self.revision;
        freed
    }

    /// [`HpaMap::refresh`], stopping once `budget` has run out: call it once a frame with
    /// the time the frame can spare, until it reports `complete`. It always does at least
    /// one unit of work (see [`RefreshReport::work`]) when any is left, so that repeated
    /// calls finish even with a zero budget: a slice of a landmark column or of a cluster's
    /// route search, or a cluster's choice of entrances, each tens of microseconds. One
    /// exception: the rebuild of the subgoal graph's levels (see
    /// [`HpaMap::subgoal_levels_size`]) starts only at a call with no edit since the
    /// previous call, since any edit throws a rebuild under way away; a call right after an
    /// edit leaves it for the next (no work, not complete). A map edited between every two
    /// calls then loses no time to a rebuild that could never finish, and its queries stay
    /// exact over the whole graph.
    ///
    /// ```
    /// use quadpath::{Config, Grid, HpaMap, Rect};
    /// use std::time::Duration;
    /// let mut map = HpaMap::new(Grid::new_free(512, 512), Config::fast().with_subgoals(false))?;
    /// for i in 0..20 {
    ///     map.set_blocked(Rect::new(20 * i, 10, 20 * i + 3, 13), true)?;
    /// }
    /// let mut frames = 0;
    /// while map.needs_refresh() {
    ///     let report = map.refresh_within(Duration::from_micros(200));
    ///     assert!(report.work > 0);
    ///     frames += 1;
    /// }
    /// assert!(frames >= 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn refresh_within(&mut self, budget: Duration) -> RefreshReport {
        // A budget past what `Instant` can represent is no limit.
        self.refresh_until(Instant::now().checked_add(budget))
    }

    /// The most landmark or cluster-route work one unit of [`HpaMap::refresh_within`]
    /// does (see [`RefreshReport::work`]): a slice of a column search (1024 settled cells,
    /// an empty bucket of its queue counting 1/64) or of the table's scan or write, plus
    /// one 8×8 block; or a slice of a cluster's search from one entrance (1024 settled
    /// gates and relaxed edges, plus the edges of the gate it stopped at). A column over a
    /// whole 1024² map takes some thousands of units.
    pub const REFRESH_UNIT_CELLS: usize = super::landmarks::COLUMN_SLICE + 64;

    fn refresh_until(&mut self, deadline: Option<Instant>) -> RefreshReport {
        let mut report = RefreshReport::default();
        let shape = self.tree.shape();
        // Landmark work comes in slices when there is a deadline, in whole columns when not.
        let slice = if deadline.is_some() {
            super::landmarks::COLUMN_SLICE
        } else {
            usize::MAX
        };
        loop {
            let cluster = self.clusters.as_mut().and_then(|c| {
                c.refresh_step(&self.graph, &shape, (&self.grid, &self.costs), slice)
            });
            if let Some((work, finished)) = cluster {
                report.clusters += usize::from(finished);
                report.work += work;
            } else if self.landmarks_pending {
                // Counting the free cells is a popcount per 64 cells, far cheaper than
                // settling one cell; the rest allocates zeroed tables.
                self.start_pending_landmarks();
                report.work +=
                    1 + (self.grid.width() as usize * self.grid.height() as usize) / 4096;
            } else if let Some((cells, finished)) = self.landmarks.refresh_step(
                (&self.grid, &self.costs),
                self.tightening_pays(),
                slice,
            ) {
                report.work += cells;
                if finished {
                    report.landmarks += 1;
                    if !self.landmarks.has_loose() {
                        self.search_work.store(0, Ordering::Relaxed);
                    }
                }
            } else if let Some(graph) = self.subgoals.as_mut().filter(|g| g.levels_pending()) {
                // Last: queries are exact without the levels, only slower. A sliced
                // rebuild waits for a call with no edit since the last one.
                let (done, work) = graph.rebuild_levels(deadline);
                report.subgoal_levels = done;
                report.work += work;
                if !done && work == 0 {
                    break;
                }
            } else {
                break;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
        }
        report.complete = !self.needs_refresh();
        report
    }

    /// Whether edits have left clusters, landmarks or the subgoal graph's levels to
    /// recompute (see [`HpaMap::refresh`]).
    pub fn needs_refresh(&self) -> bool {
        self.clusters.as_ref().is_some_and(|c| c.is_stale())
            || self.landmarks.has_set_aside()
            || self.tightening_pays()
            || self.landmarks_pending
            || self.subgoals.as_ref().is_some_and(|g| g.levels_pending())
    }

    /// Whether the loose landmark columns (see `Landmarks::loose`) are worth recomputing:
    /// once the searches since they were last tightened have done at least as much work
    /// as recomputing them would. A replay that edits much and asks little (buildings going
    /// up all over a 1024² map between rare queries) then keeps its loose columns, and one
    /// that asks much (`dao_arena2`) tightens them often.
    pub(super) fn tightening_pays(&self) -> bool {
        /// Cells a column search settles in the time a search expands one gate node (it
        /// relaxes the node's crossings, each with its heuristic): a rough ratio of their
        /// costs per step.
        const SETTLES_PER_EXPANSION: u64 = 16;
        self.landmarks.has_loose()
            && self.search_work.load(Ordering::Relaxed) * SETTLES_PER_EXPANSION
                >= self.landmarks.tightening_cost() as u64
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
                        removed.extend(self.graph.leaf_of(id));
                    }
                }
                LeafChange::Created { id, rect } => {
                    created.insert(id, rect);
                }
            }
        }
        removed.sort_unstable();
        removed.dedup();
        // After a blocking edit, the removed free leaves with their components: a new free
        // leaf inside one takes its label (see `Components::inherit`).
        let mut removed_labels: Vec<(Rect, Label)> = Vec::new();
        for leaf in removed {
            let label = self.components.forget(leaf);
            if let Some(label) = label.filter(|_| blocking) {
                removed_labels.push((self.graph.rect_of(self.graph.leaf(leaf)), label));
            }
            if let Some(clusters) = &mut self.clusters {
                clusters.detach(leaf);
            }
            self.graph.remove_leaf(leaf);
        }
        // Each new leaf with its slot (when free) and its free neighbours, which the gates,
        // the clusters and the components all need.
        let mut new_free = Vec::new();
        let mut around: Vec<(NodeId, Option<LeafId>, Vec<LeafId>)> =
            Vec::with_capacity(created.len());
        // New free leaves labelled from the removed leaf they lie in, and those to label
        // from their neighbours (all of them after freeing; after blocking, a leaf merged
        // from cells of several, as a recosting in the same edit may do).
        let (mut inherited, mut unlabelled) = (Vec::new(), Vec::new());
        for (&id, &rect) in &created {
            let node = self.tree.node(id).expect("a leaf just created");
            let cost = self.leaf_cost(&node);
            let leaf = cost.map(|cost| self.graph.add_leaf(id, rect, cost));
            if let Some(leaf) = leaf {
                new_free.push(leaf);
                let inside = |r: &Rect| {
                    r.contains(Cell::new(rect.x1, rect.y1))
                        && r.contains(Cell::new(rect.x2, rect.y2))
                };
                match removed_labels.iter().find(|(r, _)| inside(r)) {
                    Some(&(_, label)) => inherited.push((leaf, label)),
                    None => unlabelled.push(leaf),
                }
            }
            around.push((id, leaf, Vec::new()));
        }
        // Only once every new free leaf is in the graph: they may neighbour each other.
        // The gates and the clusters need every new leaf's free neighbours; the components
        // only those of the new blocked leaves after a blocking edit (the seeds below, where
        // a component may have split). A layer that keeps neither gates nor clusters (the
        // subgoal layer as built) asks the tree for those alone: the others' look-ups were
        // about a tenth of a building's edit.
        let every_leaf = self.linked || self.clusters.is_some();
        for (id, leaf, neighbours) in &mut around {
            if every_leaf || (blocking && leaf.is_none()) {
                *neighbours = self.free_neighbours(*id);
            }
        }
        if self.linked {
            for (_, leaf, neighbours) in &around {
                let Some(a) = *leaf else { continue };
                for &b in neighbours {
                    let b_id = self.graph.leaf(b).id;
                    if !created.contains_key(&b_id) || self.graph.leaf(a).id < b_id {
                        self.connect(a, b);
                    }
                }
            }
            self.refresh_corner_crossings(&created);
        }
        if let Some(clusters) = &mut self.clusters {
            let shape = self.tree.shape();
            for &leaf in &new_free {
                clusters.attach(&self.graph, &shape, leaf);
            }
            // Gates appear and vanish only in leaves next to the replaced ones.
            for (_, _, neighbours) in &around {
                for &n in neighbours {
                    clusters.mark_stale(clusters.of_leaf(n));
                }
            }
        }
        // Free leaves next to the change, where a component may have split: those around
        // new blocked leaves. Every piece of a split component holds one (see
        // `Components::inherit`), so the new free leaves need not be seeds as well (they
        // were until session 36: 1.1-1.5 % of a blocking edit).
        let seeds = blocking.then(|| {
            let mut seeds = Vec::new();
            for (_, _, neighbours) in around.iter().filter(|(_, leaf, _)| leaf.is_none()) {
                seeds.extend_from_slice(neighbours);
            }
            seeds
        });
        match self.linked {
            true => update_components(
                &mut self.components,
                &*self.graph,
                (&inherited, &unlabelled),
                seeds,
            ),
            false => {
                let adjacency = TreeAdjacency {
                    graph: &self.graph,
                    tree: &self.tree,
                    grid: &self.grid,
                };
                update_components(
                    &mut self.components,
                    &adjacency,
                    (&inherited, &unlabelled),
                    seeds,
                );
            }
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

    /// The free leaf holding `c`, if `c` is on the map and free.
    pub(crate) fn free_leaf_at(&self, c: Cell) -> Option<LeafId> {
        if !self.grid.is_free(c) {
            return None;
        }
        self.graph.leaf_of(self.tree.find(c).ok()?.id())
    }

    /// The free leaves next to leaf `id`, each once.
    fn free_neighbours(&self, id: NodeId) -> Vec<LeafId> {
        let mut out = Vec::new();
        for dir in Direction::ALL {
            self.tree.for_each_neighbour(id, dir, |n| {
                if self.is_free_leaf(&n) {
                    out.push(self.graph.leaf_of_node(n.id()));
                }
            });
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Labels the new free leaves, those of `inherited` with the label of the removed leaf
/// each lies in and those of `unlabelled` from their neighbours, then, after cells were
/// blocked, splits off the pieces that broke away from the components of `seeds` (see
/// `Components`).
fn update_components(
    components: &mut super::components::Components,
    adjacency: &impl super::adjacency::LeafAdjacency,
    (inherited, unlabelled): (&[(LeafId, Label)], &[LeafId]),
    seeds: Option<Vec<LeafId>>,
) {
    components.inherit(adjacency, inherited);
    components.absorb_new_leaves(adjacency, unlabelled);
    if let Some(seeds) = seeds {
        components.split_off(adjacency, &seeds);
    }
}

/// The cells one edit moved to another band, sorted by which way their distances can go.
#[derive(Default)]
struct Edit {
    /// Cells blocked or made dearer.
    raised: Vec<Cell>,
    /// Cells freed or made cheaper.
    lowered: Vec<Cell>,
    /// Whether some cell became blocked.
    blocked: bool,
    /// Whether some cell became free.
    freed: bool,
    /// Cells and the bands they left, for the tree (see `HpaMap::write_tags`).
    untagged: Vec<(Cell, u8)>,
    /// Cells and the bands they took, for the tree.
    tagged: Vec<(Cell, u8)>,
}

impl Edit {
    fn len(&self) -> usize {
        self.raised.len() + self.lowered.len()
    }
}
