//! What can go wrong building an [`HpaMap`](super::HpaMap), querying it, or editing it.
//!
//! The three are separate types because a caller handles them at different places: a
//! build error when a level loads, a query error for one unit's order, an edit error
//! where the game changes the map. All are `#[non_exhaustive]`, so later versions can
//! report new conditions without breaking a `match`.

use crate::geom::{Cell, Rect};
use crate::grid::{Grid, TerrainPatch};

/// Which end of a query an error is about.
///
/// ```
/// use quadpath::{Cell, Endpoint, Grid, HpaMap, Mode, QueryError};
/// let map = HpaMap::new(Grid::new_free(8, 8), Mode::Exact)?;
/// match map.find_path(Cell::new(0, 0), Cell::new(8, 0)) {
///     Err(QueryError::OutOfBounds { endpoint, .. }) => assert_eq!(endpoint, Endpoint::Goal),
///     other => panic!("expected the goal off the map, got {other:?}"),
/// }
/// assert_eq!(Endpoint::Start.to_string(), "start");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// The start cell.
    Start,
    /// The goal cell.
    Goal,
}

impl Endpoint {
    /// `"start"` or `"goal"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Endpoint::Start => "start",
            Endpoint::Goal => "goal",
        }
    }
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a [`Config`](super::Config) was refused.
///
/// ```
/// use quadpath::{BuildError, Config, ConfigError, GatePolicy, Grid, HpaMap};
/// let config = Config::fast().with_gates(GatePolicy::Step(0));
/// assert_eq!(config.validate(), Err(ConfigError::ZeroGateStep));
/// let built = HpaMap::new(Grid::new_free(8, 8), config);
/// assert!(matches!(built, Err(BuildError::Config(ConfigError::ZeroGateStep))));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// More landmarks than the table supports.
    #[error("{requested} landmarks requested, at most {max} are supported")]
    TooManyLandmarks {
        /// What the configuration asked for.
        requested: u32,
        /// The most there can be.
        max: u32,
    },
    /// A short-move radius above [`Config::MAX_LOCAL_RADIUS`](super::Config::MAX_LOCAL_RADIUS).
    #[error("local_radius {radius} is above the largest supported, {max}")]
    LocalRadius {
        /// What the configuration asked for.
        radius: u32,
        /// The largest supported.
        max: u32,
    },
    /// `max_leaf_side` of zero: a leaf has at least one cell.
    #[error("max_leaf_side must be at least 1")]
    ZeroLeafSide,
    /// A gate or entrance policy that places gates every 0 cells.
    #[error("a gate spacing of 0 cells is not a spacing; use 1 for every cell")]
    ZeroGateStep,
    /// A [`Config::subgoal_excess_percent`](super::Config::subgoal_excess_percent) above
    /// [`Config::MAX_SUBGOAL_EXCESS_PERCENT`](super::Config::MAX_SUBGOAL_EXCESS_PERCENT).
    #[error("subgoal_excess_percent {percent} is above the largest supported, {max}")]
    SubgoalExcess {
        /// What the configuration asked for.
        percent: u32,
        /// The largest supported.
        max: u32,
    },
    /// Cluster sides that cannot hold a cluster, or a smallest side above the largest.
    #[error(
        "cluster sides must satisfy 2 <= min_side <= side, got min_side {min_side}, side {side}"
    )]
    ClusterSides {
        /// [`Clustering::side`](super::Clustering::side).
        side: u32,
        /// [`Clustering::min_side`](super::Clustering::min_side).
        min_side: u32,
    },
}

/// Why an [`HpaMap`](super::HpaMap) could not be built.
///
/// ```
/// use quadpath::{BuildError, Config, Grid, HpaMap};
/// let tight = Config::exact().with_max_memory(Some(1024));
/// match HpaMap::new(Grid::new_free(256, 256), tight) {
///     Err(BuildError::MemoryLimit { estimated, limit, .. }) => {
///         assert_eq!(limit, 1024);
///         assert!(estimated > limit);
///     }
///     other => panic!("expected the memory limit, got {other:?}"),
/// }
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The map is larger than the quadtree can index.
    #[error("a {width}x{height} map cannot be indexed: each side must be at most {max}")]
    MapTooLarge {
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
        /// The largest side.
        max: u32,
    },
    /// The configuration is invalid.
    #[error("invalid configuration: {0}")]
    Config(#[from] ConfigError),
    /// The terrain costs weigh a code the grid cannot stand on (see
    /// [`HpaMap::with_costs`](super::HpaMap::with_costs)).
    #[error("invalid terrain costs: {0}")]
    Costs(#[from] crate::grid::CostError),
    /// The structure would need more heap memory than
    /// [`Config::max_memory`](super::Config::max_memory) allows, or the allocator refused
    /// it. Nothing large was allocated when the estimate was over the limit.
    #[error("building this map needs about {estimated} bytes of memory, over the limit of {limit} bytes")]
    #[non_exhaustive]
    MemoryLimit {
        /// Estimated heap bytes of the structure (an upper bound in practice), counted up to
        /// the part that went over.
        estimated: usize,
        /// The limit: [`Config::max_memory`](super::Config::max_memory), or `usize::MAX`
        /// when the allocator itself failed without a limit set.
        limit: usize,
    },
}

/// Why a path query has no answer.
///
/// ```
/// use quadpath::{Cell, Grid, HpaMap, Mode, QueryError};
/// // A wall down column 4 with no gap.
/// let map = HpaMap::new(Grid::from_fn(9, 9, |x, _| x != 4), Mode::Exact)?;
/// let (west, east) = (Cell::new(0, 0), Cell::new(8, 8));
/// let unreachable = QueryError::Unreachable { start: west, goal: east };
/// assert_eq!(map.find_path(west, east), Err(unreachable));
/// let on_wall = map.find_path(west, Cell::new(4, 2));
/// assert!(matches!(on_wall, Err(QueryError::Blocked { cell, .. }) if cell == Cell::new(4, 2)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The start or the goal is outside the map.
    #[error("{endpoint} {cell} is outside the {width}x{height} map")]
    OutOfBounds {
        /// Which end.
        endpoint: Endpoint,
        /// The cell.
        cell: Cell,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// The start or the goal is on a blocked cell.
    #[error("{endpoint} {cell} is on a blocked cell")]
    Blocked {
        /// Which end.
        endpoint: Endpoint,
        /// The cell.
        cell: Cell,
    },
    /// No path joins the start and the goal.
    #[error("no path from {start} to {goal}: they are not connected")]
    Unreachable {
        /// Start cell.
        start: Cell,
        /// Goal cell.
        goal: Cell,
    },
}

/// Why an edit was refused. A refused edit changes nothing.
///
/// ```
/// use quadpath::{Cell, EditError, Grid, HpaMap, Mode, Rect};
/// let mut map = HpaMap::new(Grid::new_free(16, 16), Mode::Exact)?;
/// let refused = map.set_blocked(Rect::new(14, 14, 17, 15), true);
/// assert!(matches!(refused, Err(EditError::OutOfBounds { width: 16, height: 16, .. })));
/// assert!(map.grid().is_free(Cell::new(14, 14)), "a refused edit changes nothing");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// Some cell of the edited area is outside the map.
    #[error("{rect} reaches outside the {width}x{height} map")]
    OutOfBounds {
        /// The area the edit was for (a single cell is a 1×1 rectangle).
        rect: Rect,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
}

impl EditError {
    /// `rect`, when it lies inside `grid`; the error every edit of an area gives otherwise.
    pub(crate) fn check_area(grid: &Grid, rect: Rect) -> Result<Rect, EditError> {
        let (width, height) = (grid.width(), grid.height());
        if rect.x2 < width && rect.y2 < height {
            Ok(rect)
        } else {
            Err(EditError::OutOfBounds {
                rect,
                width,
                height,
            })
        }
    }

    /// The area `patch` covers laid at `at`, when it lies inside `grid`.
    pub(crate) fn check_patch(
        grid: &Grid,
        at: Cell,
        patch: &TerrainPatch,
    ) -> Result<Rect, EditError> {
        match patch.rect_at(at) {
            Some(rect) => EditError::check_area(grid, rect),
            // Past the largest coordinate: there is no rectangle to name but its corner.
            None => Err(EditError::OutOfBounds {
                rect: Rect::new(at.x, at.y, at.x, at.y),
                width: grid.width(),
                height: grid.height(),
            }),
        }
    }
}
