//! Two independent steps of a layer's build run side by side: on rayon's current thread
//! pool with the `parallel` feature, one after the other without it. Each step computes
//! from what it is given alone, so what the build makes is the same whatever the number
//! of threads (`layer_build_is_the_same_on_any_pool` in `map.rs`, and
//! `split_scans_find_what_one_pass_finds` in `subgoals/mod.rs`).

use std::time::{Duration, Instant};

/// `a()` and `b()`, run side by side where the `parallel` feature allows it.
pub(crate) fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    #[cfg(feature = "parallel")]
    {
        rayon::join(a, b)
    }
    #[cfg(not(feature = "parallel"))]
    {
        (a(), b())
    }
}

/// [`join`], each result with the time its step took.
pub(crate) fn timed_join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> ((A, Duration), (B, Duration)) {
    join(|| timed(a), || timed(b))
}

/// `f()` with the time it took.
pub(crate) fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = f();
    (value, start.elapsed())
}
