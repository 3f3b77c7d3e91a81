//! Search traces: what an A\* search of [`HpaMap`] did, event by event, recorded only
//! when asked for.
//!
//! A [`SearchContext`] with tracing on records each node it generates, improves and
//! expands as a compact raw record (the node's index in the search's own node space, its
//! parent, `g` and `f`). Nothing is resolved to cells while the search runs. The search
//! loops are generic over a [`Recorder`]: with tracing off they run as [`Untraced`], whose
//! recording compiles to nothing (one branch a query picks the loop), and traced ones pay
//! a `push` per event. [`HpaMap::find_path_traced`] then names each node by its cell.

use super::error::QueryError;
use super::graph::{GateId, SlotId};
use super::map::HpaMap;
use super::path::Path;
use super::search::SearchContext;
use crate::geom::Cell;
use hashbrown::HashMap;

/// What happened to a node in a traced search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TraceKind {
    /// The node was reached for the first time and put on the open list.
    Generated,
    /// The node, already open, was reached again more cheaply.
    Updated,
    /// The node was taken off the open list and its neighbours offered: one expansion, as
    /// counted by [`SearchContext::last_expansions`].
    Expanded,
}

/// One event of a traced search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceEvent {
    /// What happened.
    pub kind: TraceKind,
    /// The node's cell: a gate, a subgoal, a grid cell of the short-move search, or the
    /// query's start or goal.
    pub cell: Cell,
    /// The cell of the node it was reached from (`None` for the start).
    pub parent: Option<Cell>,
    /// The cost of the best route found to it so far.
    pub g: f64,
    /// `g` plus the search's lower bound on the rest.
    pub f: f64,
}

/// Everything one traced query did: see [`HpaMap::find_path_traced`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchTrace {
    /// The events in the order they happened. The first is the start's generation when a
    /// search ran; empty when the query was answered without one (a straight line inside
    /// one leaf, an end off the map, ends in different components).
    pub events: Vec<TraceEvent>,
    /// The expansions the search reported ([`SearchContext::last_expansions`]); equal to
    /// the number of [`TraceKind::Expanded`] events.
    pub expansions: usize,
}

/// Whether a search records its events: a type parameter of the search loops, so that
/// an untraced search is compiled without the recording rather than testing a flag at
/// every node (see `SearchContext::set_tracing`).
pub(crate) trait Recorder {
    /// Whether events are recorded.
    const ON: bool;
}

/// The recorder of traced searches: every event is pushed to the context's trace.
pub(crate) enum Traced {}

impl Recorder for Traced {
    const ON: bool = true;
}

/// The recorder of untraced searches: nothing, compiled away.
pub(crate) enum Untraced {}

impl Recorder for Untraced {
    const ON: bool = false;
}

/// A raw trace record, in the node space of the search that made it (see [`NodeSpace`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawEvent {
    pub kind: TraceKind,
    pub node: u32,
    /// The parent node, or [`RawEvent::NO_PARENT`].
    pub parent: u32,
    pub g: f64,
    /// `NaN` for expansions: resolved from the node's last offer (`f = g + h` and `h`
    /// depends on the node only, so the offer that set its `g` carries its `f`).
    pub f: f64,
}

impl RawEvent {
    /// The parent of the start node.
    pub const NO_PARENT: u32 = u32::MAX;
}

/// How the nodes of the last search map to cells.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) enum NodeSpace {
    /// Nothing searched yet.
    #[default]
    None,
    /// Gate indices, then the start (`n`) and the goal (`n + 1`).
    Gates { n: u32 },
    /// Subgoal indices, then the start (`n`) and the goal (`n + 1`).
    Subgoals { n: u32 },
    /// Slots of a `side`-wide window whose top-left cell is `(x0, y0)`.
    Window { x0: i64, y0: i64, side: u32 },
}

impl HpaMap {
    /// [`HpaMap::find_path`], recording what the search did: every node generated,
    /// improved and expanded, with its cell, parent, `g` and `f`, in order. For viewers
    /// and debugging. Untraced queries do not pay for the option: their search loops are
    /// compiled without the recording (measured in `docs/viewer.md`).
    ///
    /// The path is the one [`HpaMap::find_path`] returns. The events come from whichever
    /// search answered: the short-move search on the grid, the subgoal search or the gate
    /// (or cluster entrance) search.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode, TraceKind};
    /// let map = HpaMap::new(Grid::from_fn(32, 32, |x, y| x != 16 || y == 31), Mode::Exact)?;
    /// let (path, trace) = map.find_path_traced(Cell::new(0, 0), Cell::new(31, 0));
    /// assert_eq!(path, map.find_path(Cell::new(0, 0), Cell::new(31, 0)));
    /// assert_eq!(trace.events[0].cell, Cell::new(0, 0));
    /// let expanded = trace.events.iter().filter(|e| e.kind == TraceKind::Expanded).count();
    /// assert_eq!(expanded, trace.expansions);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn find_path_traced(
        &self,
        start: Cell,
        goal: Cell,
    ) -> (Result<Path, QueryError>, SearchTrace) {
        let mut ctx = SearchContext::new();
        ctx.set_tracing(true);
        let path = self.find_path_with(&mut ctx, start, goal);
        let (raw, space) = ctx.take_raw_trace();
        let trace = SearchTrace {
            events: self.resolve(&raw, space, (start, goal)),
            expansions: if raw.is_empty() {
                0
            } else {
                ctx.last_expansions()
            },
        };
        (path, trace)
    }

    /// Names the nodes of raw trace records by their cells.
    fn resolve(&self, raw: &[RawEvent], space: NodeSpace, ends: (Cell, Cell)) -> Vec<TraceEvent> {
        let cell = |node: u32| -> Cell {
            let virtual_end = |n: u32| match node - n {
                0 => ends.0,
                _ => ends.1,
            };
            match space {
                NodeSpace::Gates { n } if node >= n => virtual_end(n),
                NodeSpace::Gates { .. } => self.graph.gate(GateId::from_index(node as usize)).cell,
                NodeSpace::Subgoals { n } if node >= n => virtual_end(n),
                NodeSpace::Subgoals { .. } => self
                    .subgoals
                    .as_ref()
                    .expect("a subgoal search ran on this map")
                    .cell(node),
                NodeSpace::Window { x0, y0, side } => Cell::new(
                    (x0 + (node % side) as i64) as u32,
                    (y0 + (node / side) as i64) as u32,
                ),
                NodeSpace::None => unreachable!("events come from a search"),
            }
        };
        let mut last_f: HashMap<u32, f64> = HashMap::new();
        raw.iter()
            .map(|e| {
                let f = if e.kind == TraceKind::Expanded {
                    last_f.get(&e.node).copied().unwrap_or(e.g)
                } else {
                    last_f.insert(e.node, e.f);
                    e.f
                };
                TraceEvent {
                    kind: e.kind,
                    cell: cell(e.node),
                    parent: (e.parent != RawEvent::NO_PARENT).then(|| cell(e.parent)),
                    g: e.g,
                    f,
                }
            })
            .collect()
    }
}
