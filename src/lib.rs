//! # quadpath
//!
//! Pathfinding on grid maps for real-time strategy games and anything else that moves
//! agents over tiles: a region quadtree of all-free and all-blocked leaves, hierarchical A\*
//! (HPA\*) over the gates between free leaves, and incremental updates when walls and
//! buildings come and go.
//!
//! ```
//! use quadpath::{Cell, Grid, Mode, Movement, Rect, World};
//!
//! // 128×64 of open ground with a wall down the middle and two gaps in it.
//! let grid = Grid::from_fn(128, 64, |x, y| x != 64 || (10..14).contains(&y) || (50..52).contains(&y));
//! let mut world = World::new(grid);
//! let infantry = world.add_class(Movement::default(), Mode::Exact)?; // 1×1, optimal paths
//! let tank = world.add_class(Movement::default().with_size(3)?, Mode::Fast)?; // 3×3 footprint
//!
//! let (base, mine) = (Cell::new(8, 30), Cell::new(120, 30));
//! let tank_route = world.find_path(tank, base, mine)?; // only the 4-wide gap fits a tank
//! println!("tank: {} cells, length {:.1}", tank_route.cells.len(), tank_route.length);
//!
//! // A barracks goes up in the tank's gap: every layer updates at once.
//! world.set_blocked(Rect::new(64, 10, 64, 13), true)?;
//! assert!(!world.connected(tank, base, mine)?); // the 2-wide gap is too narrow for it
//! let infantry_route = world.find_path(infantry, base, mine)?;
//!
//! // 200 infantry sent to the mine share one flow field instead of 200 searches.
//! let field = world.flow_field(infantry, mine)?;
//! let layer = world.layer(infantry).expect("a class of this world");
//! let distance = field.distance(layer, base)?.expect("the base reaches the mine");
//! assert!((distance - infantry_route.length).abs() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A [`World`] is the one object a game talks to: a map, the movement classes on it, their
//! paths, flow fields and edits. The guide (`docs/guide.md` in the repository, its examples
//! compiled as doctests) walks through the rest.
//!
//! ## Which call for which job
//! Use [`World`] in a game: it holds one terrain grid and any number of movement classes
//! (infantry, tanks, ships), each searched on its own layer, and one edit keeps them all
//! current. Use [`HpaMap`] for one kind of agent on one grid (a tool, a benchmark, the
//! command line); a world's layers are `HpaMap`s, which [`World::layer`] lends out read-only
//! (statistics, flow-field reads, path checks). Edit a world through the world, never its
//! layers. The same verb means the same thing on both:
//!
//! | job | `World` (a game) | `HpaMap` (one class) |
//! |---|---|---|
//! | build | `World::new(grid)`, then `add_class(movement, mode)` per class | `HpaMap::new(grid, mode)`, `HpaMap::with_costs(grid, costs, mode)` |
//! | one path | `find_path(class, start, goal)` | `find_path(start, goal)` |
//! | many paths at once | `find_paths(class, &queries)` | `find_paths(&queries)` |
//! | own search buffers | `world.layer(class)` then `find_path_with` | `find_path_with(&mut ctx, start, goal)` |
//! | reachable? | `connected(class, a, b)` | `connected(a, b)` |
//! | flow field (group moves) | `flow_field(class, goal)`, read with `world.layer(class)` | `flow_field(goal)` |
//! | change terrain (a cell or a `Rect`) | `set_terrain(area, terrain)` | `set_terrain(area, terrain)` |
//! | place or remove a building | `set_blocked(area, true / false)` | `set_blocked(area, true / false)` |
//! | lay a patch of terrain codes | `apply_patch(at, &patch)` | `apply_patch(at, &patch)` |
//! | pay for deferred edit work | `refresh()`, `refresh_within(budget)`, `needs_refresh()` | the same |
//! | check a path | `path.validate(layer.grid(), layer.costs(), start, goal)` with `layer = world.layer(class)` | `path.validate(map.grid(), map.costs(), start, goal)` |
//! | memory | `memory_bytes()`, `shared_memory_bytes()` | `memory_bytes()`, `memory_breakdown()` |
//! | errors | `WorldError` for everything (a refused edit is `WorldError::Edit`) | `BuildError`, `QueryError`, `EditError` |
//!
//! Terrain is a [`Terrain`] (a byte literal converts: `b'W'` or `Terrain::WATER`). A bare
//! [`Grid`] has the same edit verbs (`set_terrain`, `set_blocked`, and `set_obstructed` for a
//! building whatever the terrain), for preparing a map before building on it; they panic off
//! the grid, where the layers above return errors.
//!
//! ## Layers
//! - [`quadtree`]: the cell-grid quadtree: packed node IDs, a pluggable split stopper,
//!   canonical split and merge on every edit, range and 8-direction neighbour queries.
//! - [`Grid`], [`Movement`], [`TerrainCosts`] and [`io`]: the grid of terrain, obstructions
//!   and the free cells they leave; the movement model (agent size, passable terrain, legal
//!   steps and their costs, terrain costs per code); Moving AI `.map`/`.scen` files, obstacle bitmaps with colour legends, and
//!   PNG renders.
//! - [`HpaMap`]: gates, the gate graph, clusters, landmarks, search, refinement and
//!   smoothing, kept up to date under edits; [`Config`] and [`Mode`] choose how, and
//!   [`BuildError`], [`QueryError`] and [`EditError`] say what went wrong.
//! - [`World`]: movement classes (agent sizes, terrain sets) over one map, each with its own
//!   [`HpaMap`] layer over the class's open positions, the [`ClearanceField`]s they share,
//!   and one edit call that keeps them all up to date.
//! - [`service`]: a path service for the game loop on top of a [`World`]: requests and
//!   tickets, a frame budget, shared work for groups, partial paths, repairs after edits.
//! - [`units`]: a spatial index for moving units (`f32` boxes with ids): box, circle and
//!   nearest-within-radius queries and the all-overlapping-pairs walk, over a loose quadtree
//!   or a loose/tight grid, flat arrays throughout.
//! - `baseline` (feature `baseline`): plain grid A\* from the `pathfinding` crate, the
//!   yardstick.
//!
//! ## Cargo features
//! The core (grid, quadtree, HPA\*, worlds, flow fields, the unit index, the Moving AI
//! `.map`/`.scen` formats) depends only on `hashbrown`, `ahash`, `thiserror` and `smallvec`.
//! The one default feature is `parallel`; `default-features = false` gives the bare core. The
//! command line is the separate crate `quadpath-cli`.
//!
//! | feature | adds | dependencies |
//! |---|---|---|
//! | `image` | obstacle bitmaps and PNG renders in [`io`] | `image` |
//! | `serde` | `Serialize`/`Deserialize` on [`Cell`], [`Rect`] and [`Path`] | `serde` |
//! | `baseline` | `quadpath::baseline`, plain grid A\* | `pathfinding` |
//! | `parallel` (default) | [`HpaMap::find_paths`] and [`World::find_paths`] on rayon's current thread pool, and an exact layer's independent build steps side by side on it (the same layer on any pool); sequential without it | `rayon` |
//! | `testing` | test hooks: the `testing` module, `HpaMap::snapshot` and `check_consistency`, `QuadTree::find_by_descent` | none |
//!
//! ## Conventions
//! `x` is the column and `y` the row; `(0, 0)` is the top-left cell. Movement is
//! 8-connected: a straight step is 1 long and a diagonal step √2, and a diagonal step is
//! legal only when both cells beside it are free (no corner cutting). Distances are octile.
//! With [terrain costs](HpaMap::with_costs) a step costs its length times the mean cost of
//! its two cells, and paths report their cost beside their length. The rules are stated
//! once, in [`Movement`].
//!
//! ## Why exact mode is exact
//! A free leaf is an obstacle-free rectangle, so between two of its cells the octile
//! distance is the true distance. An optimal path splits into runs inside leaves joined by
//! single legal steps from one leaf into the next; with every such crossing as a gate pair,
//! the gate graph holds an optimal path, diagonal crossings along sides included. With
//! terrain costs every leaf is also uniform in cost, so inside a leaf of cost `c` the
//! cheapest way is `c ×` octile, and each crossing is charged its true step cost: the same
//! argument holds (see [`Movement`](Movement#the-model)).

#![warn(missing_docs)]

#[cfg(feature = "baseline")]
pub mod baseline;
pub mod flow;
mod geom;
mod grid;
mod hpa;
pub mod io;
pub mod quadtree;
pub mod service;
pub mod units;
mod world;

pub use flow::{FlowError, FlowField, FlowGoal};
pub use geom::{Cell, Direction, Rect, RectError};
pub use grid::movement::{octile, step_cost, DIAGONAL_COST, STRAIGHT_COST};
pub use grid::{
    ClearanceField, CostError, Grid, Movement, MovementError, Terrain, TerrainCosts, TerrainPatch,
    TerrainSet,
};
pub use hpa::{
    BuildError, BuildProfile, ClusterOutline, Clustering, Config, ConfigError, Corners, EditError,
    Endpoint, GatePolicy, HpaMap, MemoryBreakdown, Mode, PatchReport, Path, PathDefect, PathSearch,
    QueryError, RefreshReport, SearchContext, SearchProgress, SearchTrace, TraceEvent, TraceKind,
};
pub use service::PathService;
pub use world::{ClassId, World, WorldEditReport, WorldError};

/// Hooks for tests of this crate and of code built on it: a canonical [`testing::Snapshot`]
/// of an [`HpaMap`] (taken by `HpaMap::snapshot`) to compare an edited map with a fresh
/// build, and `HpaMap::check_consistency`. Enabled by the `testing` feature.
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    pub use crate::hpa::{EntranceRoute, Snapshot};
}

/// Compiles the README's Rust example as a doctest, so that it cannot rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// Compiles the path service's page (`docs/service.md`) example as a doctest.
#[doc = include_str!("../docs/service.md")]
#[cfg(doctest)]
pub struct ServiceDoctests;

/// Compiles the guide's (`docs/guide.md`) Rust examples as doctests. They load bitmaps and run
/// batches on a rayon pool, hence the `image` and `parallel` features.
#[doc = include_str!("../docs/guide.md")]
#[cfg(all(doctest, feature = "image", feature = "parallel"))]
pub struct GuideDoctests;
