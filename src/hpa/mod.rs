//! Hierarchical A\* over the quadtree's free leaves.
//!
//! Data flows one way, each step in its own file:
//! - `costs`: terrain costs as bands, so that every free leaf is uniform in cost too;
//! - `graph`: free leaves, their gate cells and the crossings between them, chosen by the
//!   [`GatePolicy`] (`policy`);
//! - `components`: reachability labels, updated locally after each edit, over the leaf
//!   adjacency of `adjacency` (the gates' crossings, or the quadtree's neighbours on a
//!   layer that keeps no gate graph);
//! - `clusters`: the fast mode's abstract level, entrance routes per cluster;
//! - `landmarks`: differential bounds that steer exact searches away from dead ends, kept
//!   valid through edits;
//! - `search` ([`SearchContext`]): A\* over gates (or entrances) with reusable buffers and
//!   a radix-heap open list (`open`);
//! - `subgoals`: exact mode's sparse abstract level on maps of one terrain cost (on by
//!   default, see [`Config::subgoals`]): subgoals at convex obstacle corners and the edges between
//!   those that reach each other directly, kept up to date through edits;
//! - `path`: refinement into cells, smoothing, and an independent validator;
//! - `trace`: search traces recorded on request ([`HpaMap::find_path_traced`]).
//!
//! [`HpaMap`] ties them to a [`Grid`](crate::Grid): `map` builds it, `query` answers
//! paths on `&self`, `edit` keeps it up to date as cells are blocked and freed, `config`
//! and `error` hold its settings and failures, `invariants` the test hooks.

mod adjacency;
mod cluster_outline;
mod clusters;
mod components;
mod config;
mod costs;
mod edit;
mod error;
mod graph;
#[cfg(any(test, feature = "testing"))]
mod invariants;
mod landmark_table;
mod landmarks;
mod landmarks_sparse;
mod map;
mod open;
mod path;
mod policy;
mod profile;
mod query;
mod search;
mod side_by_side;
mod spans;
mod subgoals;
mod trace;

pub use cluster_outline::ClusterOutline;
pub use config::{Clustering, Config, Mode};
// What the flow fields (`crate::flow`) read of a map: the gate graph and the open list.
pub use edit::{PatchReport, RefreshReport};
pub use error::{BuildError, ConfigError, EditError, Endpoint, QueryError};
pub(crate) use graph::{GateGraph, GateId, LeafId, SlotId};
#[cfg(any(test, feature = "testing"))]
pub use invariants::{EntranceRoute, Snapshot};
pub use map::HpaMap;
pub(crate) use open::OpenList;
pub(crate) use path::line_is_clear;
pub use path::{Corners, Path, PathDefect};
pub use policy::GatePolicy;
pub use profile::{BuildProfile, MemoryBreakdown};
pub use query::{PathSearch, SearchProgress};
pub use search::SearchContext;
pub(crate) use subgoals::SubgoalField;
pub use trace::{SearchTrace, TraceEvent, TraceKind};
