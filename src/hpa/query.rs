//! Path and reachability queries. All take `&self`: a map can be shared by any number of
//! threads, each searching with its own [`SearchContext`]; [`HpaMap::find_paths`] answers a
//! batch on rayon's thread pool (feature `parallel`).

use super::error::{Endpoint, QueryError};
use super::graph::{GateGraph, LeafId};
use super::map::HpaMap;
use super::path::{self, Path};
use super::policy::GatePolicy;
use super::search::{Ends, SearchContext};
use crate::geom::{Cell, Rect};
use std::cell::RefCell;
use std::sync::atomic::Ordering;

thread_local! {
    /// The context [`HpaMap::find_path`] searches with: one per thread, grown to the
    /// largest map that thread has searched, so that queries allocate nothing once warm.
    static CONTEXT: RefCell<SearchContext> = RefCell::new(SearchContext::new());
}

impl HpaMap {
    /// The shortest path this map's mode finds from `start` to `goal`.
    ///
    /// Searches with a context kept per thread; use [`HpaMap::find_path_with`] to own the
    /// buffers yourself. Never refreshes anything: after edits, stale clusters are crossed
    /// over their gates (see [`HpaMap::refresh`]), and the answer is as valid as ever.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode, QueryError};
    /// let grid = Grid::from_fn(16, 16, |x, y| x != 8 || y == 15);
    /// let map = HpaMap::new(grid, Mode::Exact)?;
    /// let path = map.find_path(Cell::new(0, 0), Cell::new(15, 0))?;
    /// assert_eq!(path.cells.first(), Some(&Cell::new(0, 0)));
    /// assert!(path.length > 15.0, "around the wall, through the gap at the bottom");
    /// assert!(matches!(
    ///     map.find_path(Cell::new(0, 0), Cell::new(8, 3)),
    ///     Err(QueryError::Blocked { .. })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`QueryError::OutOfBounds`] or [`QueryError::Blocked`] for an end that is off the
    /// map or on a blocked cell, and [`QueryError::Unreachable`] when no path joins them.
    pub fn find_path(&self, start: Cell, goal: Cell) -> Result<Path, QueryError> {
        with_context(|ctx| self.find_path_with(ctx, start, goal))
    }

    /// Answers many queries at once: element `i` of the result is what
    /// [`HpaMap::find_path`] answers for `queries[i]`, `(start, goal)`, and a query that
    /// fails (an end off the map or blocked, no path) fails in its place without stopping
    /// the others.
    ///
    /// With the `parallel` feature (on by default) the queries are spread over rayon's
    /// *current* thread pool: the global one, or the one whose
    /// [`install`](https://docs.rs/rayon/1/rayon/struct.ThreadPool.html#method.install)
    /// the call runs in, so the caller picks the number of threads. Each worker thread
    /// searches with its own [`SearchContext`] (the one [`HpaMap::find_path`] keeps per
    /// thread), and the results come back in input order, identical to sequential calls:
    /// a search depends on the map and the query only. Without the feature the same call
    /// answers the queries one after the other on the calling thread.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode, QueryError};
    /// let map = HpaMap::new(Grid::from_fn(32, 32, |x, y| x != 16 || y == 31), Mode::Exact)?;
    /// let queries = [
    ///     (Cell::new(0, 0), Cell::new(31, 0)),
    ///     (Cell::new(0, 5), Cell::new(16, 5)), // the goal is in the wall
    ///     (Cell::new(3, 3), Cell::new(3, 3)),
    /// ];
    /// let paths = map.find_paths(&queries);
    /// assert_eq!(paths.len(), 3);
    /// assert_eq!(paths[0], map.find_path(queries[0].0, queries[0].1));
    /// assert!(matches!(paths[1], Err(QueryError::Blocked { .. })));
    /// assert_eq!(paths[2].as_ref().map(|p| p.length), Ok(0.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn find_paths(&self, queries: &[(Cell, Cell)]) -> Vec<Result<Path, QueryError>> {
        batch(queries, |ctx, start, goal| {
            self.find_path_with(ctx, start, goal)
        })
    }

    /// [`HpaMap::find_path`] with caller-owned search buffers.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode, SearchContext};
    /// let map = HpaMap::new(Grid::new_free(32, 32), Mode::Fast)?;
    /// let mut ctx = SearchContext::new();
    /// let path = map.find_path_with(&mut ctx, Cell::new(0, 0), Cell::new(31, 20))?;
    /// assert_eq!(path.cells.last(), Some(&Cell::new(31, 20)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`HpaMap::find_path`].
    pub fn find_path_with(
        &self,
        ctx: &mut SearchContext,
        start: Cell,
        goal: Cell,
    ) -> Result<Path, QueryError> {
        let start_leaf = self.free_leaf_of(start, Endpoint::Start)?;
        let goal_leaf = self.free_leaf_of(goal, Endpoint::Goal)?;
        let path = |cells| Path::from_cells_with_costs(cells, &self.grid, self.costs());
        if start_leaf == goal_leaf && self.graph.leaf(start_leaf).cost == self.costs.floor() {
            // One obstacle-free rectangle of the cheapest terrain on the map: the straight
            // line is optimal. (On dearer ground a detour over cheaper ground may beat it, and the
            // search below weighs both.)
            return Ok(path(path::refine(&[start, goal])));
        }
        if !self.components.same(start_leaf, goal_leaf) {
            return Err(QueryError::Unreachable { start, goal });
        }
        // A short move is settled on the grid itself, optimally (see
        // `Config::local_radius`): sparse gates and cluster entrances near a border would
        // otherwise send it around the block, and under terrain costs through a swamp. It
        // reads the current grid, so stale clusters do not concern it. A window path not
        // proved optimal still is whenever the optimal path is at most R long: the cheaper
        // of it and the gate search's answer keeps that promise.
        let radius = self.config.local_radius;
        let local = ctx.search_local(&self.grid, &self.costs, (start, goal), radius);
        let local = match local {
            Some((cells, true)) => return Ok(path(cells)),
            Some((cells, false)) => Some(path(cells)),
            None => None,
        };
        let ends = Ends {
            start,
            start_leaf,
            goal,
            goal_leaf,
        };
        let found = match &self.clusters {
            Some(clusters) => ctx
                .search_clustered(&self.graph, clusters, ends, &self.landmarks, &self.costs)
                // The components say a path exists, and the clustered search finds one
                // whenever the gate graph has one; should it ever not, the gate graph
                // itself answers rather than a false "unreachable" (and test builds,
                // which have debug assertions, stop there).
                .or_else(|| {
                    debug_assert!(false, "the clustered search missed {start} -> {goal}");
                    ctx.search(&self.graph, ends, &self.landmarks, &self.costs)
                        .map(|(w, _)| w)
                }),
            None => ctx
                .search(&self.graph, ends, &self.landmarks, &self.costs)
                .map(|(w, _)| w),
        };
        if self.landmarks.has_loose() {
            self.search_work
                .fetch_add(ctx.last_expansions() as u64, Ordering::Relaxed);
        }
        let mut waypoints = found.ok_or(QueryError::Unreachable { start, goal })?;
        if self.config.smooth {
            waypoints = path::smooth(&self.grid, self.costs(), &waypoints);
        }
        let mut cells = path::refine(&waypoints);
        // Sparse gates and entrances can make a route double back over its own cells (out
        // to an entrance beside the border and back along the same cells). Cutting the
        // loops keeps every step and only shortens the path. With every crossing a gate and
        // no clusters the path is optimal, and an optimal path never repeats a cell.
        if self.config.gates != GatePolicy::All || self.config.clusters.is_some() {
            ctx.cut_loops(&mut cells);
        }
        let gates = path(cells);
        Ok(match local {
            Some(window) if window.cost <= gates.cost => window,
            _ => gates,
        })
    }

    /// Whether two free cells are connected, answered from the component labels in
    /// constant time.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode};
    /// let map = HpaMap::new(Grid::from_fn(9, 3, |x, _| x != 4), Mode::Exact)?;
    /// assert!(!map.connected(Cell::new(0, 0), Cell::new(8, 2))?);
    /// assert!(map.connected(Cell::new(0, 0), Cell::new(3, 2))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`QueryError::OutOfBounds`] or [`QueryError::Blocked`] for a cell that is off the map
    /// or blocked.
    pub fn connected(&self, a: Cell, b: Cell) -> Result<bool, QueryError> {
        let la = self.free_leaf_of(a, Endpoint::Start)?;
        let lb = self.free_leaf_of(b, Endpoint::Goal)?;
        Ok(self.components.same(la, lb))
    }

    /// The gate graph, for the flow fields.
    pub(crate) fn gate_graph(&self) -> &GateGraph {
        &self.graph
    }

    /// The free leaves overlapping `r`, which must lie on the map.
    pub(crate) fn free_leaves_in(&self, r: Rect) -> Vec<LeafId> {
        self.tree
            .leaves_in_rect(r)
            .into_iter()
            .filter(|l| self.is_free_leaf(l))
            .map(|l| self.graph.leaf_of_node(l.id()))
            .collect()
    }

    /// The free leaf holding `c`, or why there is none.
    fn free_leaf_of(&self, c: Cell, endpoint: Endpoint) -> Result<LeafId, QueryError> {
        let (width, height) = (self.grid.width(), self.grid.height());
        if c.x >= width || c.y >= height {
            return Err(QueryError::OutOfBounds {
                endpoint,
                cell: c,
                width,
                height,
            });
        }
        if !self.grid.is_free(c) {
            return Err(QueryError::Blocked { endpoint, cell: c });
        }
        let node = self.tree.find(c).expect("the cell is on the map").id();
        Ok(self.graph.leaf_of_node(node))
    }
}

/// Runs `answer` on every query with a search context of the thread it runs on, in parallel
/// on rayon's current pool: results in input order.
///
/// Each thread borrows its own [`CONTEXT`] rather than getting a fresh context per rayon job
/// (`map_init`): a context grows to the map's gate count on its first search, and pool
/// threads outlive the batch, so their buffers stay warm from one batch to the next.
#[cfg(feature = "parallel")]
fn batch<T, F>(queries: &[(Cell, Cell)], answer: F) -> Vec<T>
where
    T: Send,
    F: Fn(&mut SearchContext, Cell, Cell) -> T + Sync,
{
    use rayon::prelude::*;
    queries
        .par_iter()
        .map(|&(start, goal)| with_context(|ctx| answer(ctx, start, goal)))
        .collect()
}

/// [`batch`] without the `parallel` feature: one query after the other on this thread.
#[cfg(not(feature = "parallel"))]
fn batch<T, F>(queries: &[(Cell, Cell)], answer: F) -> Vec<T>
where
    F: Fn(&mut SearchContext, Cell, Cell) -> T,
{
    with_context(|ctx| {
        queries
            .iter()
            .map(|&(start, goal)| answer(ctx, start, goal))
            .collect()
    })
}

/// Runs `f` with this thread's [`CONTEXT`]. Should the context be borrowed already (`f`
/// reached from inside another borrow on this thread), `f` gets a fresh one instead of a
/// panic.
fn with_context<T>(f: impl FnOnce(&mut SearchContext) -> T) -> T {
    CONTEXT.with(|cell| match cell.try_borrow_mut() {
        Ok(mut ctx) => f(&mut ctx),
        Err(_) => f(&mut SearchContext::new()),
    })
}
