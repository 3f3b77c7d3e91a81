//! What the viewer serves: one [`World`] holding the chosen movement class twice (an exact
//! and a fast layer, so that both answers can be shown side by side), the edits made from
//! the page with their undo records, and the last flow field. Every answer here comes from
//! the library; the HTTP side ([`super::api`]) only parses requests and writes JSON.

use super::army::Army;
use super::scenario::Scenario;
use quadpath::{
    Cell, ClassId, Config, FlowField, Grid, HpaMap, Mode, Movement, Path, Rect, SearchContext,
    SearchTrace, TerrainPatch, World,
};
use std::collections::VecDeque;
use std::time::Instant;

/// The most undo records kept: older strokes cannot be undone. With brushes of at most
/// [`MAX_BRUSH`]² cells this bounds the undo memory at about 4 MiB.
pub const MAX_UNDO: usize = 256;

/// The widest brush, in cells.
pub const MAX_BRUSH: u32 = 128;

/// The terrain code of a wall painted from the page (`@`, out of bounds in Moving AI maps).
pub const WALL: u8 = b'@';

/// The byte `/api/terrain` sends for a cell under a building, whatever its terrain (no map
/// format uses it as a terrain code).
pub const BUILDING_BYTE: u8 = 1;

/// One of the two layers of the class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// Every crossing a gate: optimal paths.
    Exact,
    /// Sparse gates, clusters and smoothing.
    Fast,
}

impl Which {
    /// Both layers, exact first.
    pub const BOTH: [Which; 2] = [Which::Exact, Which::Fast];

    /// The name used in the API and on the page.
    pub fn name(self) -> &'static str {
        match self {
            Which::Exact => "exact",
            Which::Fast => "fast",
        }
    }

    /// Reads `exact` or `fast`.
    pub fn parse(text: &str) -> Option<Which> {
        match text {
            "exact" => Some(Which::Exact),
            "fast" => Some(Which::Fast),
            _ => None,
        }
    }
}

/// One painted stroke: what the page asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// Set the terrain code of every cell under the brush (a wall is code `@`).
    Terrain(u8),
    /// Place a building over the brush: obstructed for every class, terrain kept.
    Building,
    /// Take the buildings under the brush away.
    Clear,
}

/// How to take one stroke back.
enum Undo {
    /// The terrain codes the rectangle had before: laid back as one patch.
    Terrain(Rect, Vec<u8>),
    /// Cells whose obstruction the stroke switched: switched back.
    Obstruction(Vec<Cell>, bool),
}

/// One path answer, timed.
pub struct Answer {
    /// The path, or the library's refusal as text.
    pub path: Result<Path, String>,
    /// Wall time of the query, in microseconds.
    pub query_us: f64,
    /// Gate nodes the search expanded ([`SearchContext::last_expansions`]).
    pub expansions: usize,
}

/// The viewer's model.
pub struct State {
    world: World,
    exact: ClassId,
    fast: ClassId,
    movement: Movement,
    undo: VecDeque<Undo>,
    flow: Option<(Cell, FlowField)>,
    revision: u64,
    components: Option<(u64, Vec<u32>)>,
    scenario: Option<Scenario>,
    /// Each layer's memory limit, kept for rebuilding them for another class.
    max_memory: usize,
    /// The units shown by the unit-index layer, if any were spawned.
    army: Option<Army>,
}

impl State {
    /// Builds both layers of `movement` on `grid`, each within `max_memory` bytes.
    ///
    /// # Errors
    /// The library's refusal as text (the memory limit, an agent larger than the map).
    pub fn new(grid: Grid, movement: Movement, max_memory: usize) -> Result<Self, String> {
        let mut world = World::new(grid);
        let mut add = |mode: Mode| {
            let config = Config::from(mode).with_max_memory(Some(max_memory));
            world
                .add_class(movement.clone(), config)
                .map_err(|e| e.to_string())
        };
        let exact = add(Mode::Exact)?;
        let fast = add(Mode::Fast)?;
        Ok(State {
            world,
            exact,
            fast,
            movement,
            undo: VecDeque::new(),
            flow: None,
            revision: 0,
            components: None,
            scenario: None,
            max_memory,
            army: None,
        })
    }

    /// Switches to another movement class: both layers are built afresh for `movement`
    /// on the map as it stands (edits and laid patches included). The undo history stays
    /// (its records are cells and terrain codes of the map, which every class shares); the
    /// flow field is dropped; an open scenario stays open, and units are spawned again (as
    /// many, from the same seed) for the new class.
    ///
    /// # Errors
    /// As [`State::new`]; the current class then stays.
    pub fn switch_class(&mut self, movement: Movement) -> Result<(), String> {
        let mut next = State::new(self.world.grid().clone(), movement, self.max_memory)?;
        next.scenario = self.scenario.take();
        next.undo = std::mem::take(&mut self.undo);
        next.revision = self.revision + 1;
        let army = self.army.as_ref().map(|a| (a.index.len(), a.seed));
        *self = next;
        // The same army, drawn again for the new class's size and open cells.
        match army {
            Some((count, seed)) => self.spawn_units(count, seed),
            None => Ok(()),
        }
    }

    /// Opens a scenario file on the map; a version 2 one gets the patches before its first
    /// query laid.
    ///
    /// # Errors
    /// As [`Scenario::lay_patches`].
    pub fn open_scenario(&mut self, mut scenario: Scenario) -> Result<(), String> {
        scenario.lay_patches(&mut self.world)?;
        self.scenario = Some(scenario);
        Ok(())
    }

    /// The scenario opened, if any.
    pub fn scenario(&self) -> Option<&Scenario> {
        self.scenario.as_ref()
    }

    /// Lays the scenario's next group of patches; returns how many were laid (`None`
    /// without a scenario). Strokes painted before cannot be undone after it: their undo
    /// records would lay the old terrain back over the patches.
    ///
    /// # Errors
    /// As [`Scenario::step`].
    pub fn step_scenario(&mut self) -> Result<Option<usize>, String> {
        let Some(scenario) = self.scenario.as_mut() else {
            return Ok(None);
        };
        let laid = scenario.step(&mut self.world)?;
        if laid > 0 {
            self.undo.clear();
            self.edited();
        }
        Ok(Some(laid))
    }

    /// Spawns `count` units of the class's size at random open cells, drawn from `seed`,
    /// replacing any army before (`count` 0 removes it).
    ///
    /// # Errors
    /// A count over [`super::army::MAX_UNITS`] (as text); the army before then stays.
    pub fn spawn_units(&mut self, count: usize, seed: u64) -> Result<(), String> {
        let open = self.layer(Which::Exact).grid();
        let army = Army::spawn(open, self.movement.size(), count, seed)?;
        self.army = (count > 0).then_some(army);
        Ok(())
    }

    /// The units, if any were spawned.
    pub fn army(&self) -> Option<&Army> {
        self.army.as_ref()
    }

    /// The world, for reading.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The movement class shown.
    pub fn movement(&self) -> &Movement {
        &self.movement
    }

    /// Counts the edits made: the page reloads its layers when it changes.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The class id of a layer.
    pub fn class(&self, which: Which) -> ClassId {
        match which {
            Which::Exact => self.exact,
            Which::Fast => self.fast,
        }
    }

    /// A layer's search structure: the class's open positions, leaves and gates.
    pub fn layer(&self, which: Which) -> &HpaMap {
        self.world
            .layer(self.class(which))
            .expect("both classes are registered in State::new")
    }

    /// The map's width and height.
    pub fn size(&self) -> (u32, u32) {
        (self.world.grid().width(), self.world.grid().height())
    }

    /// Whether `cell` is on the map.
    pub fn contains(&self, cell: Cell) -> bool {
        self.world.grid().contains(cell)
    }

    /// One byte per cell, row by row: its terrain code, or [`BUILDING_BYTE`] under a
    /// building.
    pub fn terrain_bytes(&self) -> Vec<u8> {
        let grid = self.world.grid();
        grid.bounds()
            .cells()
            .map(|c| {
                if grid.is_obstructed(c) {
                    BUILDING_BYTE
                } else {
                    grid.terrain(c).code()
                }
            })
            .collect()
    }

    /// One byte per cell: the class's clearance there (the side of the largest square of
    /// passable cells with its top-left corner there, capped at 255), 0 where the class
    /// cannot stand, and 1 at least where it can.
    pub fn clearance_bytes(&self) -> Vec<u8> {
        let open = self.layer(Which::Exact).grid();
        let field = self.world.clearance_field(self.exact);
        open.bounds()
            .cells()
            .map(|c| match (open.is_free(c), field) {
                (false, _) => 0,
                (true, None) => 1,
                (true, Some(f)) => f.get(c).clamp(1, 255) as u8,
            })
            .collect()
    }

    /// The reachability component of every cell for the class, row by row: 0 where it
    /// cannot stand, else a label from 1. Cached until the next edit.
    pub fn components(&mut self) -> &[u32] {
        if self.components.as_ref().map(|(r, _)| *r) != Some(self.revision) {
            let labels = label_components(self.layer(Which::Exact).grid());
            self.components = Some((self.revision, labels));
        }
        &self.components.as_ref().expect("just computed").1
    }

    /// The free leaf of the exact layer holding `cell`, if the class can stand there.
    pub fn leaf_of(&self, which: Which, cell: Cell) -> Option<Rect> {
        let layer = self.layer(which);
        let node = layer.tree().find(cell).ok()?;
        layer.is_free_leaf(&node).then(|| node.rect())
    }

    /// Both layers' answers from `start` to `goal`.
    pub fn find_paths(&self, start: Cell, goal: Cell) -> [Answer; 2] {
        Which::BOTH.map(|which| {
            let mut ctx = SearchContext::new();
            let t = Instant::now();
            let path = self
                .layer(which)
                .find_path_with(&mut ctx, start, goal)
                .map_err(|e| e.to_string());
            Answer {
                path,
                query_us: t.elapsed().as_secs_f64() * 1e6,
                expansions: ctx.last_expansions(),
            }
        })
    }

    /// Layer `which`'s answer from `start` to `goal` with the search's trace (see
    /// [`HpaMap::find_path_traced`]).
    pub fn trace(
        &self,
        which: Which,
        start: Cell,
        goal: Cell,
    ) -> (Result<Path, String>, SearchTrace) {
        let (path, trace) = self.layer(which).find_path_traced(start, goal);
        (path.map_err(|e| e.to_string()), trace)
    }

    /// Builds (and keeps, for hover and updates after edits) the exact layer's flow field
    /// to `goal`.
    ///
    /// # Errors
    /// The library's refusal as text: a goal the class cannot stand on.
    pub fn set_flow(&mut self, goal: Cell) -> Result<&FlowField, String> {
        let field = self
            .world
            .flow_field(self.exact, goal)
            .map_err(|e| e.to_string())?;
        self.flow = Some((goal, field));
        Ok(&self.flow.as_ref().expect("just set").1)
    }

    /// The goal of the kept flow field.
    pub fn flow_goal(&self) -> Option<Cell> {
        self.flow.as_ref().map(|(g, _)| *g)
    }

    /// The kept flow field's distance from `cell` to its goal (`None` when unreachable or
    /// when there is no field).
    pub fn flow_distance(&self, cell: Cell) -> Option<f64> {
        let (_, field) = self.flow.as_ref()?;
        field
            .distance(self.layer(Which::Exact), cell)
            .ok()
            .flatten()
    }

    /// Every cell's distance to the kept field's goal (NaN where unreachable or closed)
    /// and the direction of its next step (0 to 7 clockwise from east, 255 for none).
    pub fn flow_grid(&self) -> Option<(Cell, Vec<f32>, Vec<u8>)> {
        let (goal, field) = self.flow.as_ref()?;
        let map = self.layer(Which::Exact);
        let cells: Vec<Cell> = map.grid().bounds().cells().collect();
        let mut distance = Vec::with_capacity(cells.len());
        let mut step = Vec::with_capacity(cells.len());
        for &c in &cells {
            let d = field.distance(map, c).ok().flatten();
            distance.push(d.map_or(f32::NAN, |d| d as f32));
            let next = field.next_step(map, c).ok().flatten();
            step.push(next.map_or(255, |n| direction(c, n)));
        }
        Some((*goal, distance, step))
    }

    /// Paints `paint` over `rect` through the world's incremental edits; returns the cells
    /// changed. The stroke is recorded for [`State::undo`] when it changed something.
    ///
    /// # Errors
    /// The library's refusal as text (a rectangle off the map).
    pub fn paint(&mut self, rect: Rect, paint: Paint) -> Result<usize, String> {
        let grid = self.world.grid();
        let undo = match paint {
            Paint::Terrain(_) => {
                Undo::Terrain(rect, rect.cells().map(|c| grid.terrain(c).code()).collect())
            }
            Paint::Building | Paint::Clear => {
                let on = paint == Paint::Building;
                let switched = rect
                    .cells()
                    .filter(|&c| grid.is_obstructed(c) != on)
                    .collect();
                Undo::Obstruction(switched, !on)
            }
        };
        let report = match paint {
            Paint::Terrain(code) => self.world.set_terrain(rect, code),
            Paint::Building => self.world.set_blocked(rect, true),
            Paint::Clear => self.world.set_blocked(rect, false),
        }
        .map_err(|e| e.to_string())?;
        if report.cells > 0 {
            if self.undo.len() == MAX_UNDO {
                self.undo.pop_front();
            }
            self.undo.push_back(undo);
            self.edited();
        }
        Ok(report.cells)
    }

    /// Takes the last stroke back; returns whether there was one.
    pub fn undo(&mut self) -> bool {
        let Some(undo) = self.undo.pop_back() else {
            return false;
        };
        let done = match undo {
            Undo::Terrain(rect, codes) => {
                let at = Cell::new(rect.x1, rect.y1);
                let patch = TerrainPatch::new(rect.width(), rect.height(), codes);
                self.world.apply_patch(at, &patch).map(|_| ())
            }
            Undo::Obstruction(cells, on) => cells
                .into_iter()
                .try_for_each(|c| self.world.set_blocked(c, on).map(|_| ())),
        };
        done.expect("an undo record covers cells the stroke itself changed on the map");
        self.edited();
        true
    }

    /// How many strokes can be undone.
    pub fn undo_depth(&self) -> usize {
        self.undo.len()
    }

    /// After an edit: a new revision, and the flow field rebuilt on the new map.
    fn edited(&mut self) {
        self.revision += 1;
        if let Some(goal) = self.flow_goal() {
            if self.set_flow(goal).is_err() {
                self.flow = None;
            }
        }
    }
}

/// The direction of the step from `from` to its neighbour `to`: 0 east, then clockwise
/// (y grows downwards) to 7 north-east.
fn direction(from: Cell, to: Cell) -> u8 {
    let dx = i64::from(to.x) - i64::from(from.x);
    let dy = i64::from(to.y) - i64::from(from.y);
    match (dx.signum(), dy.signum()) {
        (1, 0) => 0,
        (1, 1) => 1,
        (0, 1) => 2,
        (-1, 1) => 3,
        (-1, 0) => 4,
        (-1, -1) => 5,
        (0, -1) => 6,
        (1, -1) => 7,
        _ => 255,
    }
}

/// Labels the 8-connected components of `open`'s free cells (steps as the search takes
/// them: no corner cutting), row by row; 0 for blocked cells.
fn label_components(open: &Grid) -> Vec<u32> {
    let width = open.width() as usize;
    let index = |c: Cell| c.y as usize * width + c.x as usize;
    let mut labels = vec![0u32; width * open.height() as usize];
    let mut next = 0;
    let mut stack = Vec::new();
    for seed in open.free_cells() {
        if labels[index(seed)] != 0 {
            continue;
        }
        next += 1;
        labels[index(seed)] = next;
        stack.push(seed);
        while let Some(c) = stack.pop() {
            for (n, _) in open.successors(c) {
                if labels[index(n)] == 0 {
                    labels[index(n)] = next;
                    stack.push(n);
                }
            }
        }
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_go_clockwise_from_east() {
        let c = Cell::new(5, 5);
        let around = [
            (6, 5),
            (6, 6),
            (5, 6),
            (4, 6),
            (4, 5),
            (4, 4),
            (5, 4),
            (6, 4),
        ];
        for (i, (x, y)) in around.into_iter().enumerate() {
            assert_eq!(direction(c, Cell::new(x, y)), i as u8);
        }
        assert_eq!(direction(c, c), 255);
    }

    #[test]
    fn components_split_at_a_wall_and_undo_restores_the_map() {
        let grid = Grid::from_fn(9, 3, |x, _| x != 4);
        let mut state = State::new(grid.clone(), Movement::default(), 1 << 30).unwrap();
        let labels = state.components().to_vec();
        assert_eq!(labels[0], labels[3]);
        assert_ne!(labels[0], labels[8]);
        assert_eq!(labels[4], 0);
        let before = state.terrain_bytes();
        state
            .paint(Rect::new(1, 0, 2, 2), Paint::Terrain(WALL))
            .unwrap();
        state.paint(Rect::new(6, 1, 6, 1), Paint::Building).unwrap();
        assert_ne!(state.terrain_bytes(), before);
        assert!(state.undo() && state.undo() && !state.undo());
        assert_eq!(state.terrain_bytes(), before);
    }

    #[test]
    fn strokes_painted_before_a_class_switch_can_be_undone_after_it() {
        let grid = Grid::from_fn(9, 6, |_, _| true);
        let mut state = State::new(grid, Movement::default(), 1 << 30).unwrap();
        let before = state.terrain_bytes();
        state.paint(Rect::new(3, 1, 4, 4), Paint::Building).unwrap();
        state
            .paint(Rect::new(0, 0, 1, 1), Paint::Terrain(WALL))
            .unwrap();
        state
            .switch_class(Movement::default().with_size(2).unwrap())
            .unwrap();
        assert_eq!(state.undo_depth(), 2);
        assert!(state.undo() && state.undo() && !state.undo());
        assert_eq!(state.terrain_bytes(), before);
    }
}
