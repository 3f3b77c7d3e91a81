//! World edits: terrain and buildings change on the grid, then each clearance field is
//! recomputed around them, then each layer flips the positions that opened or closed.

use super::{costs, World, WorldError};
use crate::geom::{Cell, Rect};
use crate::grid::{ClearanceChange, Terrain, TerrainPatch};
use crate::hpa::EditError;

/// What one [`World`] edit did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorldEditReport {
    /// Cells whose terrain code or obstruction changed.
    pub cells: usize,
    /// Clearance values that changed, over all fields.
    pub clearances: usize,
    /// Positions that opened or closed, or changed cost, over all layers.
    pub positions: usize,
    /// Layers built afresh rather than edited, because the edit changed too much of them
    /// (see [`HpaMap::apply_patch`](crate::HpaMap::apply_patch)).
    pub rebuilt_layers: usize,
    /// The rectangle of cells the edit was asked to change, when any of them did change
    /// (`None` for an edit that changed nothing): what a
    /// [`PathService`](crate::PathService) checks its live paths against.
    pub area: Option<Rect>,
    /// Positions that opened, over all layers: an edit with none cannot have shortened a
    /// path, unless it made positions cheaper ([`WorldEditReport::recosted`]).
    pub opened: usize,
    /// Positions that stayed open but changed cost, over all layers.
    pub recosted: usize,
}

impl World {
    /// Sets the terrain of every cell of `area` (a [`Cell`] or a [`Rect`]: a river dug, a
    /// bridge laid), then updates every field and layer once. Any building on the area
    /// stays.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Mode, Movement, Rect, Terrain, TerrainSet, World};
    ///
    /// let mut world = World::new(Grid::new_free(30, 10));
    /// let land = world.add_class(Movement::default(), Mode::Exact)?;
    /// let ship = Movement::default().with_passable(TerrainSet::from_codes(b"W"));
    /// let ship = world.add_class(ship, Mode::Exact)?;
    /// // A river across the map: the land is cut in two, the ship can sail it.
    /// let report = world.set_terrain(Rect::new(14, 0, 15, 9), Terrain::WATER)?;
    /// assert_eq!((report.cells, report.positions), (20, 40));
    /// assert!(!world.connected(land, Cell::new(0, 0), Cell::new(29, 0))?);
    /// assert!(world.connected(ship, Cell::new(14, 0), Cell::new(15, 9))?);
    /// // A ford of one cell: the land is joined again.
    /// world.set_terrain(Cell::new(14, 5), Terrain::GROUND)?;
    /// world.set_terrain(Cell::new(15, 5), Terrain::GROUND)?;
    /// assert!(world.connected(land, Cell::new(0, 0), Cell::new(29, 0))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WorldError::Edit`] when the area reaches off the map; nothing changes then.
    pub fn set_terrain(
        &mut self,
        area: impl Into<Rect>,
        terrain: impl Into<Terrain>,
    ) -> Result<WorldEditReport, WorldError> {
        let rect = self.check_rect(area.into())?;
        let code = terrain.into();
        let mut cells = 0;
        for c in rect.cells() {
            if self.grid.terrain(c) != code {
                self.grid.set_cell_terrain(c, code.code());
                cells += 1;
            }
        }
        Ok(self.propagate(rect, cells))
    }

    /// Places (`true`) or takes away (`false`) a building over `area` (a [`Cell`] or a
    /// [`Rect`]): a building obstructs every cell under it for every class, whatever its
    /// terrain, and the terrain stays underneath, so taking the building away gives back
    /// exactly what was there (see [`Grid::set_obstructed`](crate::Grid::set_obstructed)).
    /// Unlike [`HpaMap::set_blocked`](crate::HpaMap::set_blocked), unblocking never digs
    /// out impassable terrain: which terrain is passable is each class's business.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Mode, Movement, Rect, World};
    ///
    /// let mut world = World::new(Grid::new_free(12, 12));
    /// let tank = world.add_class(Movement::default().with_size(3)?, Mode::Exact)?;
    /// let report = world.set_blocked(Rect::new(4, 4, 7, 7), true)?;
    /// // A 3×3 tank cannot stand where its footprint would touch the 4×4 building.
    /// assert_eq!(report.positions, 6 * 6);
    /// assert!(!world.is_open(tank, Cell::new(2, 2)) && world.is_open(tank, Cell::new(1, 1)));
    /// world.set_blocked(Rect::new(4, 4, 7, 7), false)?;
    /// assert!(world.is_open(tank, Cell::new(2, 2)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WorldError::Edit`] when the area reaches off the map; nothing changes then.
    pub fn set_blocked(
        &mut self,
        area: impl Into<Rect>,
        blocked: bool,
    ) -> Result<WorldEditReport, WorldError> {
        let rect = self.check_rect(area.into())?;
        let cells = self.grid.set_obstructed(rect, blocked);
        Ok(self.propagate(rect, cells))
    }

    /// Lays a terrain patch with its top-left cell at `at` (see
    /// [`Grid::apply_patch`](crate::Grid::apply_patch)); buildings stay.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Mode, Movement, TerrainPatch, World};
    ///
    /// let mut world = World::new(Grid::new_free(8, 8));
    /// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
    /// // A wall across the map with a door at x = 3.
    /// let wall = TerrainPatch::new(8, 1, b"@@@.@@@@".to_vec());
    /// assert_eq!(world.apply_patch(Cell::new(0, 4), &wall)?.cells, 7);
    /// let path = world.find_path(infantry, Cell::new(0, 0), Cell::new(0, 7))?;
    /// assert!(path.cells.contains(&Cell::new(3, 4)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WorldError::Edit`] when the patch reaches off the map; nothing changes then.
    pub fn apply_patch(
        &mut self,
        at: Cell,
        patch: &TerrainPatch,
    ) -> Result<WorldEditReport, WorldError> {
        let rect = EditError::check_patch(&self.grid, at, patch)?;
        let cells = rect
            .cells()
            .filter(|&c| self.grid.terrain(c) != patch.code(c.x - at.x, c.y - at.y))
            .count();
        self.grid.apply_patch(at, patch);
        Ok(self.propagate(rect, cells))
    }

    fn check_rect(&self, rect: Rect) -> Result<Rect, WorldError> {
        Ok(EditError::check_area(&self.grid, rect)?)
    }

    /// Brings the fields and layers up to date after `cells` cells of `rect` changed on the
    /// grid.
    fn propagate(&mut self, rect: Rect, cells: usize) -> WorldEditReport {
        let mut report = WorldEditReport {
            cells,
            ..WorldEditReport::default()
        };
        if cells == 0 {
            return report;
        }
        report.area = Some(rect);
        let mut changes: Vec<ClearanceChange> = Vec::new();
        let (mut blocking, mut freeing) = (Vec::new(), Vec::new());
        for (f, field) in self.fields.iter_mut().enumerate() {
            changes.clear();
            field.update(&self.grid, rect, &mut |change| changes.push(change));
            report.clearances += changes.len();
            for layer in self.layers.iter_mut().filter(|l| l.field == f) {
                let size = layer.movement.size() as u16;
                blocking.clear();
                freeing.clear();
                for change in &changes {
                    match (change.before >= size, change.after >= size) {
                        (true, false) => blocking.push(change.cell),
                        (false, true) => freeing.push(change.cell),
                        _ => {}
                    }
                }
                let laid = if layer.movement.has_unit_costs() {
                    layer.map.flip_cells(&blocking, &freeing)
                } else {
                    // Costs under a footprint may change without any position opening or
                    // closing (a road paved): every position the edit reaches is re-read.
                    let codes = costs::codes_around(&self.grid, &layer.movement, rect);
                    layer.map.relay_positions(&blocking, &freeing, &codes)
                };
                report.positions += laid.changed();
                report.rebuilt_layers += laid.rebuilt as usize;
                report.opened += laid.freed;
                report.recosted += laid.recosted;
            }
        }
        report
    }
}
