//! Set-up shared by the service suites (`tests/suite/service_*.rs`): a world of one class,
//! and ticking a service until it has nothing pending. Written once so that every suite
//! builds its worlds and drives its ticks the same way.

use quadpath::service::{Budget, PathService};
use quadpath::{ClassId, Config, Grid, Movement, World};

/// The ticks after which [`tick_until_idle`] gives up: far more than any suite's requests
/// need, so reaching it means the service stopped making progress.
pub const MAX_IDLE_TICKS: usize = 10_000;

/// A world over `grid` with one class of units one cell wide (the default movement) whose
/// layer is built with `config` (a `Mode` or a `Config`).
pub fn one_class_world(grid: Grid, config: impl Into<Config>) -> (World, ClassId) {
    let mut world = World::new(grid);
    let class = world.add_class(Movement::default(), config).unwrap();
    (world, class)
}

/// Ticks `service` on `world` with `budget` until nothing is pending; panics after
/// [`MAX_IDLE_TICKS`] ticks (the service never finished).
pub fn tick_until_idle(service: &mut PathService, world: &World, budget: Budget) {
    for _ in 0..MAX_IDLE_TICKS {
        if service.pending() == 0 {
            return;
        }
        service.tick(world, budget).unwrap();
    }
    assert_eq!(service.pending(), 0, "the service never finished");
}
