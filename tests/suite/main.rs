//! The library's integration tests, in one binary: one link instead of twenty, which is most
//! of a cold `cargo test`'s time. Each module is one theme; the oracles they check against
//! (Dijkstra, a footprint A*, a path checker) are in `tests/common`, written independently of
//! the library.
//!
//! The tests that read the full Moving AI benchmark corpus are a test target of their own,
//! `tests/corpus` (feature `corpus`, folder `QUADPATH_CORPUS`; see `docs/testing.md`).

#[path = "../common/mod.rs"]
mod common;

mod corners_props;
mod costs_props;
mod dynamic;
mod fast_costs;
mod fast_subgoals;
mod hpa_edit_stress;
mod hpa_embedding;
mod hpa_errors;
mod hpa_memory;
mod hpa_noise;
mod hpa_props;
mod hpa_scenarios;
mod hpa_short_moves;
mod io_errors;
mod io_maps;
mod quadtree_examples;
mod quadtree_props;
mod refresh_budget;
mod search_trace;
mod service_beside;
mod service_props;
mod service_scenarios;
mod service_subgoals;
mod service_sweep;
mod service_walk;
mod subgoal_props;
mod subgoal_taut;
mod units_props;

#[cfg(feature = "parallel")]
mod batch;
#[cfg(feature = "baseline")]
mod flow_props;
#[cfg(feature = "image")]
mod io_render;
#[cfg(feature = "baseline")]
mod world_props;
#[cfg(feature = "baseline")]
mod world_scenarios;
