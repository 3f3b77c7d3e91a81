//! Worlds of movement classes: one terrain grid, the clearance fields of its terrain sets,
//! and one [`HpaMap`] layer per registered class, all kept up to date by one edit call.
//!
//! - `mod.rs` (this file): the [`World`] type, registering classes, queries;
//! - `edit`: terrain and building edits, propagated field by field and layer by layer;
//! - `error`: [`WorldError`].

mod costs;
mod edit;
mod error;

pub use edit::WorldEditReport;
pub use error::WorldError;

use crate::flow::{FlowField, FlowGoal};
use crate::geom::Cell;
use crate::grid::{ClearanceField, Grid, Movement};
use crate::hpa::{Config, HpaMap, Path, RefreshReport};
use std::fmt;
use std::time::{Duration, Instant};

/// The id of a movement class in a [`World`]: handed out by [`World::add_class`], in
/// registration order from 0.
///
/// ```
/// use quadpath::{Grid, Mode, Movement, World};
/// let mut world = World::new(Grid::new_free(16, 16));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let tank = world.add_class(Movement::default().with_size(2)?, Mode::Fast)?;
/// assert_eq!((infantry.index(), tank.index()), (0, 1));
/// assert_eq!(world.movement(tank).map(|m| m.size()), Some(2));
/// assert_eq!(tank.to_string(), "class 1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassId(u32);

impl ClassId {
    /// The class's position in registration order.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for ClassId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "class {}", self.0)
    }
}

/// One registered class: its movement, the field it reads, and its search structure.
#[derive(Debug)]
struct Layer {
    movement: Movement,
    /// Index into `World::fields`.
    field: usize,
    map: HpaMap,
}

/// Many movement classes over one map: infantry, tanks, ships and hovercraft, each with its
/// own exact (or fast) search structure, all kept up to date by one edit call.
///
/// # The model
/// - Each cell has a terrain code (the `.map` character, or a legend colour's code for
///   bitmaps) and may carry an obstruction (a building).
/// - A **movement class** ([`Movement`]) is an agent size `K ≥ 1` and the set of terrain
///   codes the agent may stand on (default: the Moving AI free set `.`, `G`, `S`).
/// - An agent of size `K` at cell `(x, y)` covers the `K × K` square with top-left corner
///   `(x, y)`. The position is **open** when that whole square lies inside the map and
///   every cell of it has a passable terrain and no obstruction. Paths are sequences of
///   positions (top-left corners).
/// - A straight step is legal between two open positions. A diagonal step from `(x, y)` to
///   `(x + dx, y + dy)` is legal when both positions and the two orthogonal positions
///   `(x + dx, y)` and `(x, y + dy)` are open: the no-corner-cutting rule, applied to the
///   footprint. For `K = 1` and the default set this is exactly the model of
///   [`HpaMap`] on the grid's free cells.
/// - A step costs its length (1 straight, √2 diagonal) times the mean of both positions'
///   costs, a position costing the dearest terrain under its footprint (see
///   [the model](Movement#the-model)); 1 everywhere for a class without terrain costs.
///
/// # How it works
/// For each distinct passable set the world keeps a [`ClearanceField`]: per cell, the side
/// of the largest passable square anchored there, capped at the largest size registered on
/// that set. A class of size `K` is open exactly where the clearance is at least `K`, and
/// its layer is an [`HpaMap`] over that grid of open positions. The rule above over open
/// positions is the 1×1 rule over free cells, so each layer is exact (or fast) for its
/// class with the same guarantees as a plain map. An edit recomputes the clearance only up
/// to `cap − 1` cells above and left of the edited cells (a clearance reads only the
/// square below and right of its cell), then flips exactly the positions whose openness
/// changed in every layer, with the same "equals a fresh build" guarantee as
/// [`HpaMap::set_blocked`]. Classes sharing a passable set share its field.
///
/// ```
/// use quadpath::{Cell, Grid, Mode, Movement, Rect, TerrainSet, World};
///
/// // A wall with a 1-cell gap at (20, 10); water along the bottom row.
/// let mut grid = Grid::from_fn(40, 21, |x, y| x != 20 || y == 10);
/// grid.set_terrain(Rect::new(0, 20, 39, 20), b'W');
/// let mut world = World::new(grid);
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let tank = world.add_class(Movement::default().with_size(2)?, Mode::Exact)?;
///
/// let (a, b) = (Cell::new(2, 2), Cell::new(36, 2));
/// assert!(world.find_path(infantry, a, b)?.length > 34.0);
/// assert!(world.find_path(tank, a, b).unwrap_err().is_unreachable(), "the gap is too narrow");
///
/// // Knock the wall down around the gap: now the tank fits through too.
/// world.set_terrain(Rect::new(20, 9, 20, 11), b'.')?;
/// let path = world.find_path(tank, a, b)?;
/// assert!(path.cells.iter().all(|&c| world.is_open(tank, c)));
/// // A building in the breach closes it for both.
/// world.set_blocked(Rect::new(20, 9, 20, 11), true)?;
/// assert!(world.find_path(infantry, a, b).unwrap_err().is_unreachable());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct World {
    grid: Grid,
    fields: Vec<ClearanceField>,
    layers: Vec<Layer>,
}

impl World {
    /// A world over `grid`'s terrain and obstructions, with no class yet. The grid's own
    /// passable set plays no part: each class brings its own.
    pub fn new(grid: Grid) -> Self {
        World {
            grid,
            fields: Vec::new(),
            layers: Vec::new(),
        }
    }

    /// Registers a movement class and builds its layer with `config` (a [`Mode`] or a full
    /// [`Config`]). A class on a passable set already registered shares its clearance
    /// field (grown, if this class is the largest on it).
    ///
    /// [`Mode`]: crate::Mode
    ///
    /// ```
    /// use quadpath::{Grid, Mode, Movement, TerrainSet, World, WorldError};
    ///
    /// let mut world = World::new(Grid::new_free(16, 16));
    /// let ship = Movement::default().with_size(2)?.with_passable(TerrainSet::from_codes(b"W"));
    /// let id = world.add_class(ship, Mode::Fast)?;
    /// assert_eq!(world.layer(id).map(|l| l.grid().free_count()), Some(0), "no water yet");
    /// let nothing = Movement::default().with_passable(TerrainSet::empty());
    /// assert!(matches!(
    ///     world.add_class(nothing, Mode::Exact),
    ///     Err(WorldError::NoPassableTerrain { .. })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WorldError::NoPassableTerrain`] for an empty passable set,
    /// [`WorldError::LargerThanMap`] for agents wider or taller than the map, and
    /// [`WorldError::Build`] when the layer cannot be built (a bad configuration, the
    /// memory limit). Nothing changes then.
    pub fn add_class(
        &mut self,
        movement: Movement,
        config: impl Into<Config>,
    ) -> Result<ClassId, WorldError> {
        let (width, height) = (self.grid.width(), self.grid.height());
        if movement.passable().is_empty() {
            return Err(WorldError::NoPassableTerrain { movement });
        }
        if movement.size() > width || movement.size() > height {
            return Err(WorldError::LargerThanMap {
                movement,
                width,
                height,
            });
        }
        let size = movement.size();
        let existing = self
            .fields
            .iter()
            .position(|f| f.passable() == movement.passable());
        // A field grown for this class replaces the old one only once the layer is built.
        let grown = match existing {
            Some(i) if self.fields[i].cap() >= size => None,
            _ => Some(ClearanceField::new(&self.grid, *movement.passable(), size)),
        };
        let field = grown
            .as_ref()
            .unwrap_or_else(|| &self.fields[existing.expect("an existing field large enough")]);
        // A class with terrain costs weighs each position by the dearest terrain under it,
        // which its layer grid carries as the position's terrain code.
        let built = if movement.has_unit_costs() {
            // Closed positions are obstructed ground, as the layer's edits leave them
            // (`HpaMap::flip_cells`), so that an edited layer's grid equals a fresh one's.
            let open = Grid::new_free_obstructed(width, height, |i| field.value_at(i) < size);
            HpaMap::new(open, config)
        } else {
            let open = costs::layer_grid(&self.grid, field, &movement);
            HpaMap::with_costs(open, movement.terrain_costs().clone(), config)
        };
        let map = built.map_err(|error| WorldError::Build {
            movement: movement.clone(),
            error,
        })?;
        let field = match (existing, grown) {
            (Some(i), Some(grown)) => {
                self.fields[i] = grown;
                i
            }
            (Some(i), None) => i,
            (None, grown) => {
                self.fields
                    .push(grown.expect("a new set always gets a field"));
                self.fields.len() - 1
            }
        };
        let id = ClassId(self.layers.len() as u32);
        self.layers.push(Layer {
            movement,
            field,
            map,
        });
        Ok(id)
    }

    /// The terrain grid: terrain codes and obstructions. Its free cells are those of its own
    /// passable set, which no class reads.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The registered classes with their ids, in registration order.
    pub fn classes(&self) -> impl Iterator<Item = (ClassId, &Movement)> + '_ {
        self.layers
            .iter()
            .enumerate()
            .map(|(i, l)| (ClassId(i as u32), &l.movement))
    }

    /// The movement of `class`, or `None` when it is not a class of this world.
    pub fn movement(&self, class: ClassId) -> Option<&Movement> {
        self.layers.get(class.index()).map(|l| &l.movement)
    }

    /// The search structure of `class`: an [`HpaMap`] whose free cells are the class's
    /// open positions. For its statistics and memory; edit the world, not the layer.
    pub fn layer(&self, class: ClassId) -> Option<&HpaMap> {
        self.layers.get(class.index()).map(|l| &l.map)
    }

    /// The clearance field `class` reads (shared by every class on its passable set).
    pub fn clearance_field(&self, class: ClassId) -> Option<&ClearanceField> {
        self.layers
            .get(class.index())
            .map(|l| &self.fields[l.field])
    }

    /// The clearance fields, one per distinct passable set.
    pub fn clearance_fields(&self) -> &[ClearanceField] {
        &self.fields
    }

    /// Whether an agent of `class` may stand at `cell`; `false` off the map or for a class
    /// not of this world.
    pub fn is_open(&self, class: ClassId, cell: Cell) -> bool {
        self.layer(class).is_some_and(|m| m.grid().is_free(cell))
    }

    fn checked(&self, class: ClassId) -> Result<&Layer, WorldError> {
        self.layers
            .get(class.index())
            .ok_or(WorldError::UnknownClass {
                class,
                count: self.layers.len(),
            })
    }

    /// The path an agent of `class` takes from position `start` to position `goal`, in
    /// the mode of its layer: a sequence of positions (footprint top-left cells) in which
    /// every step is legal under [the model](World#the-model).
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Mode, Movement, World, WorldError};
    ///
    /// let mut world = World::new(Grid::from_fn(10, 10, |x, y| (x, y) != (5, 5)));
    /// let tank = world.add_class(Movement::default().with_size(2)?, Mode::Exact)?;
    /// let path = world.find_path(tank, Cell::new(0, 0), Cell::new(8, 8))?;
    /// assert!(path.cells.iter().all(|&c| world.is_open(tank, c)));
    /// // (4, 4) is free, but a 2×2 footprint from it covers the rock at (5, 5).
    /// assert!(matches!(
    ///     world.find_path(tank, Cell::new(4, 4), Cell::new(8, 8)),
    ///     Err(WorldError::NotOpen { .. })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WorldError::UnknownClass`]; [`WorldError::NotOpen`] when an end is not open for
    /// the class; [`WorldError::Query`] for an end off the map
    /// ([`QueryError::OutOfBounds`](crate::QueryError::OutOfBounds)) or no path
    /// ([`QueryError::Unreachable`](crate::QueryError::Unreachable), see
    /// [`WorldError::is_unreachable`]).
    pub fn find_path(&self, class: ClassId, start: Cell, goal: Cell) -> Result<Path, WorldError> {
        let layer = self.checked(class)?;
        layer
            .map
            .find_path(start, goal)
            .map_err(|e| WorldError::of_query(class, &layer.movement, e))
    }

    /// Answers many queries of `class` at once, as [`HpaMap::find_paths`] does on the
    /// class's layer: element `i` of the result is what [`World::find_path`] answers for
    /// `queries[i]`, `(start, goal)`, in input order. With the `parallel` feature (on by
    /// default) the queries run on rayon's current thread pool, each worker thread with its
    /// own search context, and give the same answers as sequential calls; without it they
    /// run one after the other.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Mode, Movement, World, WorldError};
    ///
    /// let mut world = World::new(Grid::from_fn(10, 10, |x, y| (x, y) != (5, 5)));
    /// let tank = world.add_class(Movement::default().with_size(2)?, Mode::Exact)?;
    /// let paths = world.find_paths(tank, &[
    ///     (Cell::new(0, 0), Cell::new(8, 8)),
    ///     (Cell::new(4, 4), Cell::new(8, 8)), // the footprint from (4, 4) covers (5, 5)
    /// ])?;
    /// assert!(paths[0].as_ref().is_ok_and(|p| p.cells.iter().all(|&c| world.is_open(tank, c))));
    /// assert!(matches!(paths[1], Err(WorldError::NotOpen { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WorldError::UnknownClass`] for a class not of this world, and then no query runs.
    /// Each query's own failure is its element's error, as [`World::find_path`] gives it.
    pub fn find_paths(
        &self,
        class: ClassId,
        queries: &[(Cell, Cell)],
    ) -> Result<Vec<Result<Path, WorldError>>, WorldError> {
        let layer = self.checked(class)?;
        Ok(layer
            .map
            .find_paths(queries)
            .into_iter()
            .map(|r| r.map_err(|e| WorldError::of_query(class, &layer.movement, e)))
            .collect())
    }

    /// Whether an agent of `class` can go from `a` to `b`, in constant time.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Mode, Movement, World};
    ///
    /// // A wall down column 4 with a 1-cell gap at the bottom.
    /// let mut world = World::new(Grid::from_fn(9, 9, |x, y| x != 4 || y == 8));
    /// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
    /// let tank = world.add_class(Movement::default().with_size(2)?, Mode::Exact)?;
    /// assert!(world.connected(infantry, Cell::new(0, 0), Cell::new(8, 0))?);
    /// assert!(!world.connected(tank, Cell::new(0, 0), Cell::new(7, 0))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`World::find_path`], except that no path is the answer `false`.
    pub fn connected(&self, class: ClassId, a: Cell, b: Cell) -> Result<bool, WorldError> {
        let layer = self.checked(class)?;
        layer
            .map
            .connected(a, b)
            .map_err(|e| WorldError::of_query(class, &layer.movement, e))
    }

    /// The flow field leading agents of `class` to `goal` (a position, or any open
    /// position of a rectangle): see [`HpaMap::flow_field`], and there which to use for a
    /// group (on a class of one terrain cost a search per unit or the path service is
    /// cheaper). Read it with the class's
    /// layer, [`World::layer`]; an edit of the world makes it stale until
    /// [`FlowField::refresh`](crate::FlowField::refresh) with that layer.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Mode, Movement, World};
    ///
    /// // A wall down column 4 with a 1-cell gap at the bottom: infantry only.
    /// let mut world = World::new(Grid::from_fn(9, 9, |x, y| x != 4 || y == 8));
    /// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
    /// let tank = world.add_class(Movement::default().with_size(2)?, Mode::Exact)?;
    /// let goal = Cell::new(7, 0);
    /// let field = world.flow_field(infantry, goal)?;
    /// let layer = world.layer(infantry).expect("a class of this world");
    /// let route = field.path_from(layer, Cell::new(0, 0))?.expect("through the gap");
    /// assert!(route.cells.contains(&Cell::new(4, 8)));
    /// let tanks = world.flow_field(tank, goal)?;
    /// assert_eq!(tanks.distance(world.layer(tank).unwrap(), Cell::new(0, 0))?, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WorldError::UnknownClass`], and [`WorldError::Flow`] when the goal reaches off
    /// the map or holds no position open for the class.
    pub fn flow_field(
        &self,
        class: ClassId,
        goal: impl Into<FlowGoal>,
    ) -> Result<FlowField, WorldError> {
        let layer = self.checked(class)?;
        layer
            .map
            .flow_field(goal)
            .map_err(|error| WorldError::Flow {
                class,
                movement: layer.movement.clone(),
                error,
            })
    }

    /// Brings every layer's deferred work up to date (see [`HpaMap::refresh`]).
    pub fn refresh(&mut self) -> RefreshReport {
        self.layers
            .iter_mut()
            .fold(RefreshReport::default_complete(), |sum, l| {
                sum.add(l.map.refresh())
            })
    }

    /// [`World::refresh`] within a time budget for all layers together, taken layer by
    /// layer in registration order (see [`HpaMap::refresh_within`]).
    pub fn refresh_within(&mut self, budget: Duration) -> RefreshReport {
        // A budget past what `Instant` can represent is no limit.
        let deadline = Instant::now().checked_add(budget);
        let mut sum = RefreshReport::default_complete();
        for layer in &mut self.layers {
            if !layer.map.needs_refresh() {
                continue;
            }
            let left = deadline.map_or(Duration::MAX, |d| {
                d.saturating_duration_since(Instant::now())
            });
            sum = sum.add(layer.map.refresh_within(left));
            if !sum.complete {
                break;
            }
        }
        sum.complete = !self.needs_refresh();
        sum
    }

    /// Compacts every layer (see [`HpaMap::compact`]): each is rebuilt from its current
    /// positions, giving back what edits left behind. Returns the heap bytes freed.
    ///
    /// # Errors
    /// The first layer whose rebuild is refused ([`BuildError`](crate::BuildError), over
    /// its memory limit); the layers before it are compacted, it and the rest are left as
    /// they were.
    pub fn compact(&mut self) -> Result<usize, crate::BuildError> {
        let mut freed = 0;
        for layer in &mut self.layers {
            freed += layer.map.compact()?;
        }
        Ok(freed)
    }

    /// Whether any layer has deferred work left.
    pub fn needs_refresh(&self) -> bool {
        self.layers.iter().any(|l| l.map.needs_refresh())
    }

    /// Heap bytes shared by every layer: the terrain grid and the clearance fields.
    pub fn shared_memory_bytes(&self) -> usize {
        self.grid.memory_bytes()
            + self
                .fields
                .iter()
                .map(ClearanceField::memory_bytes)
                .sum::<usize>()
    }

    /// Heap bytes of the whole world: what is shared, and every layer
    /// ([`HpaMap::memory_bytes`] of [`World::layer`]).
    ///
    /// ```
    /// use quadpath::{Grid, Mode, Movement, World};
    ///
    /// let mut world = World::new(Grid::new_free(64, 64));
    /// let ids = [1, 2, 3].map(|k| {
    ///     world.add_class(Movement::default().with_size(k).unwrap(), Mode::Exact).unwrap()
    /// });
    /// let layers: usize = ids.iter().map(|&id| world.layer(id).unwrap().memory_bytes()).sum();
    /// assert_eq!(world.memory_bytes(), world.shared_memory_bytes() + layers);
    /// assert_eq!(world.clearance_fields().len(), 1, "one terrain set, one field");
    /// ```
    pub fn memory_bytes(&self) -> usize {
        self.shared_memory_bytes()
            + self
                .layers
                .iter()
                .map(|l| l.map.memory_bytes())
                .sum::<usize>()
    }
}
