//! The tick beside the frame: the service's work on a rayon worker while the calling
//! thread does the rest of its frame (rendering, simulation) with the [`World`] only read.
//!
//! A frame of a game has an update phase, where the world changes (orders, edits, units
//! moving, results read), and a longer phase where the main thread does other work while
//! the world is only read. [`PathService::tick_beside`] runs the tick in that second phase,
//! on rayon's pool, with a budget of its own (most of a frame, not the 1 ms the main
//! thread could spare), while the main thread only makes the cheap calls of the update
//! phase: [`PathService::request`], [`PathService::cancel`], [`PathService::advance`],
//! [`PathService::notify_edit`], the drains.

use super::{Budget, PathService, ServiceError, TickReport};
use crate::world::World;
use std::time::{Duration, Instant};

/// What [`PathService::tick_beside`] gives back: the tick's result, the frame work's, and
/// what each cost in wall time.
#[derive(Debug)]
#[non_exhaustive]
#[must_use = "the tick's result may be an error"]
pub struct BesideTick<R> {
    /// The tick's result, as [`PathService::tick`] gives it.
    pub tick: Result<TickReport, ServiceError>,
    /// What the frame work returned.
    pub frame: R,
    /// The tick's wall time, on the thread that ran it.
    pub tick_time: Duration,
    /// The calling thread's wall time spent on the tick besides its frame work: with the
    /// `parallel` feature, the wait for the tick after the frame work returned (zero when
    /// the tick finished first, plus a few microseconds of hand-over); without it, the
    /// whole tick, run on the calling thread before the frame work.
    pub waited: Duration,
    /// The index in its rayon pool of the thread that ran the tick
    /// (`rayon::current_thread_index`), or `None` when the tick ran on the calling thread
    /// outside any pool (without the `parallel` feature). Called from outside the pool with
    /// the feature, this is always a pool thread: the calling thread never runs the tick.
    pub tick_thread: Option<usize>,
}

impl PathService {
    /// Runs one tick ([`PathService::tick`], with `budget`) beside `frame_work`: with the
    /// `parallel` feature the tick runs on rayon's current pool (the global pool, or the
    /// pool the caller runs in) while `frame_work` runs **on the calling thread**, and the
    /// call returns when both are done; without it, the tick runs first, then `frame_work`,
    /// both on the calling thread. Both only read `world` meanwhile.
    ///
    /// `frame_work` need not be `Send`: it never leaves the calling thread (a render
    /// thread's context stays where it is). Call it from the game's own thread, outside the pool:
    /// called from a pool thread (inside `ThreadPool::install`), it works the same, but
    /// that thread may pick up the tick itself whenever `frame_work` waits in a rayon call
    /// of its own. The budget is the tick's own: with the tick
    /// beside the frame it can be most of the frame (say 8 ms of a 16.7 ms frame at 60
    /// fps), while the main thread pays only for the calls between ticks and for
    /// [`BesideTick::waited`]. Under [`Budget::Expansions`] the outcomes are the same as
    /// those of [`PathService::tick`] with the same budget, on any pool; under
    /// [`Budget::Time`] they depend on how fast the worker runs, as with `tick`. See
    /// [beside the frame](crate::service#beside-the-frame).
    ///
    /// ```
    /// use quadpath::service::{Budget, PathService, RequestOptions};
    /// use quadpath::units::UnitId;
    /// use quadpath::{Cell, Grid, Mode, Movement, World};
    /// use std::time::Duration;
    ///
    /// let mut world = World::new(Grid::new_free(64, 64));
    /// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
    /// let mut service = PathService::new(&world);
    /// let goal = Cell::new(60, 60);
    /// let tickets: Vec<_> = (0..20)
    ///     .map(|i| service.request(&world, infantry, UnitId::new(i), Cell::new(1, i), goal, RequestOptions::default()))
    ///     .collect::<Result<_, _>>()?;
    /// let mut frames = 0;
    /// while service.pending() > 0 {
    ///     // Update phase: orders, edits and `notify_edit`, `advance`, drains (cheap calls).
    ///     // Then the tick on a worker, beside the rest of the frame on this thread, which
    ///     // only reads the world (here: one path of its own).
    ///     let beside = service.tick_beside(&world, Budget::Time(Duration::from_millis(8)), || {
    ///         world.find_path(infantry, Cell::new(0, 63), Cell::new(63, 0)).is_ok()
    ///     });
    ///     beside.tick?;
    ///     assert!(beside.frame);
    ///     frames += 1;
    /// }
    /// assert!(frames > 0);
    /// assert!(tickets.iter().all(|&t| service.outcome(t).is_some()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`BesideTick::tick`] holds [`ServiceError::ZeroBudget`] for a budget of no
    /// expansions or no time (no tick runs then; the frame work still does).
    pub fn tick_beside<R>(
        &mut self,
        world: &World,
        budget: Budget,
        frame_work: impl FnOnce() -> R,
    ) -> BesideTick<R> {
        let mut timed_tick = None;
        let tick = |service: &mut PathService, out: &mut Option<_>| {
            let start = Instant::now();
            let report = service.tick(world, budget);
            *out = Some((report, start.elapsed(), pool_thread()));
        };
        let (frame, waited) = run_beside(|| tick(self, &mut timed_tick), frame_work);
        let (tick, tick_time, tick_thread) =
            timed_tick.expect("the tick ran before the call returned");
        BesideTick {
            tick,
            frame,
            tick_time,
            waited,
            tick_thread,
        }
    }
}

/// The rayon pool thread this is, if any.
#[cfg(feature = "parallel")]
fn pool_thread() -> Option<usize> {
    rayon::current_thread_index()
}

/// [`pool_thread`] without the `parallel` feature: no pool.
#[cfg(not(feature = "parallel"))]
fn pool_thread() -> Option<usize> {
    None
}

/// Runs `tick` on rayon's current pool and `frame_work` on the calling thread; returns
/// `frame_work`'s result and how long the calling thread then waited for `tick`.
#[cfg(feature = "parallel")]
fn run_beside<R>(tick: impl FnOnce() + Send, frame_work: impl FnOnce() -> R) -> (R, Duration) {
    let mut frame_done = None;
    // `in_place_scope` runs its closure on this thread (rayon's `join` and `scope`, called
    // from outside the pool, would move it onto a pool thread) and only what it spawns on
    // the pool; it returns when the spawned tick is done too.
    let frame = rayon::in_place_scope(|scope| {
        scope.spawn(|_| tick());
        let frame = frame_work();
        frame_done = Some(Instant::now());
        frame
    });
    let waited = frame_done.map_or(Duration::ZERO, |at| at.elapsed());
    (frame, waited)
}

/// [`run_beside`] without the `parallel` feature: the tick, then the frame work.
#[cfg(not(feature = "parallel"))]
fn run_beside<R>(tick: impl FnOnce() + Send, frame_work: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    tick();
    let waited = start.elapsed();
    (frame_work(), waited)
}
