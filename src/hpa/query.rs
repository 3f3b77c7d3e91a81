//! Path and reachability queries. All take `&self`: a map can be shared by any number of
//! threads, each searching with its own [`SearchContext`]; [`HpaMap::find_paths`] answers a
//! batch on rayon's thread pool (feature `parallel`).

use super::error::{Endpoint, QueryError};
use super::graph::LeafId;
use super::map::HpaMap;
use super::path::{self, Corners, Path};
use super::policy::GatePolicy;
use super::search::{Ends, OpenSearch, SearchContext, Stepped, SubgoalOpened};
use crate::geom::{Cell, Rect};
use std::cell::RefCell;
use std::sync::atomic::Ordering;

thread_local! {
    /// The context [`HpaMap::find_path`] searches with: one per thread, grown to the
    /// largest map that thread has searched, so that queries allocate nothing once warm.
    static CONTEXT: RefCell<SearchContext> = RefCell::new(SearchContext::new());
}

/// A path query run in slices by [`HpaMap::resume_path_search`]: its two ends, where it
/// stands, and the work it has done. Holds no buffers: a paused gate or subgoal search
/// keeps its state in the [`SearchContext`] it ran on.
///
/// ```
/// use quadpath::{Cell, Grid, HpaMap, Mode, PathSearch, SearchContext, SearchProgress};
/// let map = HpaMap::new(Grid::from_fn(64, 64, |x, y| x % 8 != 4 || y % 16 == 0), Mode::Exact)?;
/// let mut ctx = SearchContext::new();
/// let mut search = PathSearch::new(Cell::new(0, 63), Cell::new(63, 1));
/// // Four expansions a frame until it is done.
/// while map.resume_path_search(&mut ctx, &mut search, 4) == SearchProgress::Paused {}
/// assert!(search.expansions() > 4);
/// assert_eq!(search.restarts(), 0, "no edit and no other search came between the slices");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct PathSearch {
    start: Cell,
    goal: Cell,
    stage: Stage,
    /// The map revision the gate search was opened on.
    revision: u64,
    expansions: usize,
    restarts: usize,
    /// The short-move window's unproved path, weighed against the gate search's at the end.
    window: Option<Vec<Cell>>,
}

/// How far a [`PathSearch`] has come.
#[derive(Clone, Copy, Debug)]
enum Stage {
    /// Nothing run yet, or starting over.
    Fresh,
    /// The gate search is open in a context.
    Gates { ends: Ends, open: OpenSearch },
    /// The subgoal search is open in a context, its goal's cone scan run or not yet.
    Subgoals { open: OpenSearch, goal_marked: bool },
}

/// What a search found, before it is written out as a [`Path`] or [`Corners`].
enum Route {
    /// Every cell, from the local search or the subgoal graph.
    Cells(Vec<Cell>),
    /// Waypoints, each in sight of the next.
    Waypoints(Vec<Cell>),
    /// Waypoints as [`Corners::points`] holds them: none repeated, none in the middle of
    /// a straight or diagonal run (the subgoal search's answer).
    Corners(Vec<Cell>),
}

/// Where a query's route search stopped: its answer, or paused for the next slice.
enum RouteProgress {
    Done(Result<Route, QueryError>),
    Paused,
}

/// What the first steps of a query came to.
enum Opened {
    /// The answer, and the work it took (at least 1).
    Answered(Result<Route, QueryError>, usize),
    /// The gate search opened, with the short-move window's path when it was not proved
    /// optimal (the cheaper of the two is the answer).
    Gates(Ends, OpenSearch, Option<Vec<Cell>>),
    /// The subgoal search opened: its start's cone scan run, one unit of work.
    Subgoals(OpenSearch),
}

/// Where [`HpaMap::resume_path_search`] stopped.
///
/// ```
/// use quadpath::{Cell, Grid, HpaMap, Mode, PathSearch, QueryError, SearchContext, SearchProgress};
/// let map = HpaMap::new(Grid::from_fn(8, 8, |x, _| x != 4), Mode::Exact)?;
/// let mut search = PathSearch::new(Cell::new(0, 0), Cell::new(7, 7));
/// let progress = map.resume_path_search(&mut SearchContext::new(), &mut search, 100);
/// assert!(matches!(progress, SearchProgress::Done(Err(QueryError::Unreachable { .. }))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum SearchProgress {
    /// The query's answer, as [`HpaMap::find_path`] gives it.
    Done(Result<Path, QueryError>),
    /// The slice's expansions are spent; resume the search to go on.
    Paused,
}

impl PathSearch {
    /// A query from `start` to `goal`, nothing run yet.
    pub fn new(start: Cell, goal: Cell) -> Self {
        PathSearch {
            start,
            goal,
            stage: Stage::Fresh,
            revision: 0,
            expansions: 0,
            restarts: 0,
            window: None,
        }
    }

    /// The start cell.
    pub fn start(&self) -> Cell {
        self.start
    }

    /// The goal cell.
    pub fn goal(&self) -> Cell {
        self.goal
    }

    /// Expansions spent on this query so far, over all its slices and restarts.
    pub fn expansions(&self) -> usize {
        self.expansions
    }

    /// How many times the search started over (an edit of the map, or its context used
    /// by another search while it was paused).
    pub fn restarts(&self) -> usize {
        self.restarts
    }
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
        let mut search = PathSearch::new(start, goal);
        match self.resume_path_search(ctx, &mut search, usize::MAX) {
            SearchProgress::Done(answer) => answer,
            SearchProgress::Paused => unreachable!("an unlimited search never pauses"),
        }
    }

    /// Runs `search` on this map for about `max_expansions` more units of work and says
    /// whether it has finished: the same query as [`HpaMap::find_path_with`], with the same
    /// answer, cut into slices that a game can spread over frames.
    ///
    /// The work of a slice is counted in expansions. The gate search of an exact map
    /// (no clusters) stops after exactly `max_expansions` of them and resumes where it
    /// stopped, its state kept in `ctx`. The subgoal search (exact mode on a map of one
    /// terrain cost, see [`Config::subgoals`](crate::Config::subgoals)) counts its start's
    /// cone scan as one unit, its goal's cone scan as one, and each subgoal it expands as
    /// one, and pauses between any two of them. The other steps run whole and count their
    /// own expansions: a short move's grid search (at most `(2r + 1)²` cells for the map's
    /// [`local_radius`](crate::Config::local_radius) `r`) and the clustered search of a
    /// fast map. So a slice overruns `max_expansions` by at most one such step (and a
    /// subgoal search's slice never overruns a budget of at least 1).
    ///
    /// A paused search resumes only on the context it paused on, with no other search run
    /// on that context in between, and on an unedited map; otherwise it starts again from
    /// the beginning ([`PathSearch::restarts`] counts how often), which costs the
    /// expansions spent so far once more but never gives a stale answer.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode, PathSearch, SearchContext, SearchProgress};
    /// let map = HpaMap::new(Grid::from_fn(64, 64, |x, y| x % 8 != 4 || y % 16 == 0), Mode::Exact)?;
    /// let (a, b) = (Cell::new(0, 63), Cell::new(63, 1));
    /// let mut ctx = SearchContext::new();
    /// let mut search = PathSearch::new(a, b);
    /// let mut slices = 0;
    /// let path = loop {
    ///     slices += 1;
    ///     match map.resume_path_search(&mut ctx, &mut search, 4) {
    ///         SearchProgress::Done(answer) => break answer?,
    ///         SearchProgress::Paused => continue, // the next frame
    ///     }
    /// };
    /// assert!(slices > 1);
    /// assert_eq!(path, map.find_path(a, b)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resume_path_search(
        &self,
        ctx: &mut SearchContext,
        search: &mut PathSearch,
        max_expansions: usize,
    ) -> SearchProgress {
        match self.resume_route(ctx, search, max_expansions) {
            RouteProgress::Done(route) => {
                SearchProgress::Done(route.map(|r| self.cell_path(ctx, r)))
            }
            RouteProgress::Paused => SearchProgress::Paused,
        }
    }

    /// The route [`HpaMap::find_path`] finds, as the points a unit steers along (start,
    /// turning points, goal) instead of every cell: the search without writing the path out
    /// cell by cell. [`Corners::cells`] writes it out.
    ///
    /// In exact mode the corners' cells are exactly [`HpaMap::find_path`]'s. In fast mode
    /// the cell path also has loops cut out of it where a route doubles back over its own
    /// cells (which needs every cell), so it may be shorter than the corners' route by the
    /// loop; both are valid, and the corners' route is never shorter.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode};
    /// let map = HpaMap::new(Grid::from_fn(16, 16, |x, y| x != 8 || y == 15), Mode::Exact)?;
    /// let corners = map.find_corners(Cell::new(0, 0), Cell::new(15, 0))?;
    /// // Down to the gap at the bottom, through it, and up again.
    /// assert_eq!(corners.points.first(), Some(&Cell::new(0, 0)));
    /// assert_eq!(corners.points.last(), Some(&Cell::new(15, 0)));
    /// assert!(corners.points.len() < 10 && corners.length > 15.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`HpaMap::find_path`].
    pub fn find_corners(&self, start: Cell, goal: Cell) -> Result<Corners, QueryError> {
        with_context(|ctx| {
            let mut search = PathSearch::new(start, goal);
            let route = match self.resume_route(ctx, &mut search, usize::MAX) {
                RouteProgress::Done(route) => route?,
                RouteProgress::Paused => unreachable!("an unlimited search never pauses"),
            };
            Ok(match route {
                Route::Corners(points) => Corners::from_points(points, &self.grid, self.costs()),
                Route::Cells(points) | Route::Waypoints(points) => {
                    Corners::from_waypoints(&points, &self.grid, self.costs())
                }
            })
        })
    }

    /// Writes a route out cell by cell: waypoints refined, loops cut where sparse gates or
    /// entrances can make a route double back over its own cells (out to an entrance beside
    /// the border and back along the same cells). Cutting the loops keeps every step and only
    /// shortens the path. With every crossing a gate and no clusters the path is optimal, and
    /// an optimal path never repeats a cell.
    fn cell_path(&self, ctx: &mut SearchContext, route: Route) -> Path {
        let cells = match route {
            Route::Cells(cells) => cells,
            Route::Waypoints(waypoints) | Route::Corners(waypoints) => {
                let mut cells = path::refine(&waypoints);
                if self.config.gates != GatePolicy::All || self.config.clusters.is_some() {
                    ctx.cut_loops(&mut cells);
                }
                cells
            }
        };
        Path::from_cells_with_costs(cells, &self.grid, self.costs())
    }

    /// [`HpaMap::resume_path_search`] up to the route, before it is written out.
    fn resume_route(
        &self,
        ctx: &mut SearchContext,
        search: &mut PathSearch,
        max_expansions: usize,
    ) -> RouteProgress {
        let (start, goal) = (search.start, search.goal);
        if let Stage::Gates { open, .. } | Stage::Subgoals { open, .. } = search.stage {
            if search.revision != self.revision || !ctx.holds(open) {
                search.stage = Stage::Fresh;
                search.restarts += 1;
            }
        }
        let mut budget = max_expansions;
        if let Stage::Fresh = search.stage {
            match self.open_gate_search(ctx, start, goal) {
                Opened::Answered(answer, work) => {
                    search.expansions += work;
                    return RouteProgress::Done(answer);
                }
                Opened::Gates(ends, open, window) => {
                    search.window = window;
                    search.stage = Stage::Gates { ends, open };
                }
                Opened::Subgoals(open) => {
                    search.expansions += 1;
                    budget = budget.saturating_sub(1);
                    search.stage = Stage::Subgoals {
                        open,
                        goal_marked: false,
                    };
                }
            }
            search.revision = self.revision;
        }
        let stepped = match search.stage {
            Stage::Fresh => unreachable!("opened above"),
            Stage::Gates { ends, open } => {
                let before = ctx.last_expansions();
                let stepped = ctx.step_search(
                    &self.graph,
                    ends,
                    open,
                    (&self.landmarks, &self.costs),
                    budget,
                );
                search.expansions += ctx.last_expansions() - before;
                stepped
            }
            Stage::Subgoals { open, goal_marked } => {
                match self.step_subgoal_search(ctx, search, open, goal_marked, budget) {
                    Some(stepped) => stepped,
                    None => return RouteProgress::Paused,
                }
            }
        };
        let found = match stepped {
            Stepped::Paused => return RouteProgress::Paused,
            Stepped::Found(waypoints, _) => Some(waypoints),
            Stepped::Exhausted | Stepped::Certified => None,
        };
        search.stage = Stage::Fresh;
        if self.subgoals.is_some() {
            // The subgoal search's corner points are its answer: no window, no smoothing.
            self.count_search_work(ctx);
            return RouteProgress::Done(
                found
                    .map(Route::Corners)
                    .ok_or(QueryError::Unreachable { start, goal }),
            );
        }
        let window = search.window.take();
        RouteProgress::Done(self.finish_search(ctx, (start, goal), found, window))
    }

    /// Runs the open subgoal search `open` for `budget` more units of work: the goal's
    /// cone scan (one unit) unless `goal_marked`, then one unit per subgoal expanded.
    /// `None` when the budget ran out before the expansions could begin.
    fn step_subgoal_search(
        &self,
        ctx: &mut SearchContext,
        search: &mut PathSearch,
        open: OpenSearch,
        goal_marked: bool,
        mut budget: usize,
    ) -> Option<Stepped> {
        let subgoals = self
            .subgoals
            .as_deref()
            .expect("a subgoal search runs on a map with subgoals");
        let maps = (subgoals, &self.grid);
        if !goal_marked {
            if budget == 0 {
                return None;
            }
            ctx.mark_subgoal_goal(maps, search.goal, &self.costs);
            search.expansions += 1;
            budget -= 1;
            search.stage = Stage::Subgoals {
                open,
                goal_marked: true,
            };
        }
        let before = ctx.last_expansions();
        let stepped = ctx.step_subgoals(
            subgoals,
            (search.start, search.goal),
            open,
            &self.costs,
            budget,
        );
        search.expansions += ctx.last_expansions() - before;
        Some(stepped)
    }

    /// The first steps of a query, up to the gate search: the ends checked, the answers
    /// that need no gate search given, the gate search opened on an exact map (and run
    /// whole, clustered, on a fast one).
    fn open_gate_search(&self, ctx: &mut SearchContext, start: Cell, goal: Cell) -> Opened {
        let start_leaf = match self.free_leaf_of(start, Endpoint::Start) {
            Ok(leaf) => leaf,
            Err(e) => return Opened::Answered(Err(e), 1),
        };
        let goal_leaf = match self.free_leaf_of(goal, Endpoint::Goal) {
            Ok(leaf) => leaf,
            Err(e) => return Opened::Answered(Err(e), 1),
        };
        if start_leaf == goal_leaf && self.graph.leaf(start_leaf).cost == self.costs.floor() {
            // One obstacle-free rectangle of the cheapest terrain on the map: the straight
            // line is optimal. (On dearer ground a detour over cheaper ground may beat it, and the
            // search below weighs both.)
            return Opened::Answered(Ok(Route::Waypoints(vec![start, goal])), 1);
        }
        if !self.components.same(start_leaf, goal_leaf) {
            return Opened::Answered(Err(QueryError::Unreachable { start, goal }), 1);
        }
        // The subgoal graph, where the map has one, answers short moves too: it is exact
        // at any distance, and its route is already corner points. Its start's cone scan
        // is the first unit of work; the goal's scan and the expansions follow in
        // `resume_route`, sliced.
        if let Some(subgoals) = &self.subgoals {
            let opened = ctx.open_subgoals((subgoals, &self.grid), (start, goal), &self.costs);
            return match opened {
                SubgoalOpened::Direct(points) => Opened::Answered(Ok(Route::Waypoints(points)), 1),
                SubgoalOpened::Open(open) => {
                    ctx.weigh_subgoal_bound(self.subgoal_weight(start, goal));
                    Opened::Subgoals(open)
                }
            };
        }
        // A short move is settled on the grid itself, optimally (see
        // `Config::local_radius`): sparse gates and cluster entrances near a border would
        // otherwise send it around the block, and under terrain costs through a swamp. It
        // reads the current grid, so stale clusters do not concern it. A window path not
        // proved optimal still is whenever the optimal path is at most R long: the cheaper
        // of it and the gate search's answer keeps that promise.
        let radius = self.config.local_radius;
        let window = match ctx.search_local(&self.grid, &self.costs, (start, goal), radius) {
            Some((cells, true)) => {
                return Opened::Answered(Ok(Route::Cells(cells)), ctx.last_expansions().max(1))
            }
            Some((cells, false)) => Some(cells),
            None => None,
        };
        let ends = Ends {
            start,
            start_leaf,
            goal,
            goal_leaf,
        };
        let Some(clusters) = &self.clusters else {
            let open = ctx.open_search(&self.graph, ends, &self.landmarks, &self.costs);
            return Opened::Gates(ends, open, window);
        };
        let found = ctx
            .search_clustered(&self.graph, clusters, ends, &self.landmarks, &self.costs)
            // The components say a path exists, and the clustered search finds one
            // whenever the gate graph has one; should it ever not, the gate graph
            // itself answers rather than a false "unreachable" (and test builds,
            // which have debug assertions, stop there).
            .or_else(|| {
                debug_assert!(false, "the clustered search missed {start} -> {goal}");
                ctx.search(&self.graph, ends, &self.landmarks, &self.costs)
                    .map(|(w, _)| w)
            });
        let work = ctx.last_expansions().max(1);
        let route = self.finish_search(ctx, (start, goal), found, window);
        // Within one cluster the search above was the exact gate search already.
        let exact = clusters.of_leaf(start_leaf) == clusters.of_leaf(goal_leaf);
        let (route, checked) = match exact {
            true => (route, 0),
            false => self.hold_to_bound(ctx, ends, route),
        };
        Opened::Answered(route, work + checked)
    }

    /// The weight of the subgoal search from `start` to `goal` (see
    /// [`Config::subgoal_excess_percent`](super::Config::subgoal_excess_percent)): 1, exact
    /// A\*, for a short move (ends at most [`Config::local_radius`](super::Config::local_radius)
    /// apart, so that every move of optimal length up to the radius is optimal), else the
    /// configured one.
    fn subgoal_weight(&self, start: Cell, goal: Cell) -> f64 {
        match crate::octile(start, goal) <= self.config.local_radius as f64 {
            true => 1.0,
            false => self.config.subgoal_weight(),
        }
    }

    /// Keeps [`Config::max_excess_percent`](super::Config::max_excess_percent): the fast
    /// route, of cost `C`, is returned once it is *certified*, that is once the optimum is
    /// known to be at least `C / factor`; otherwise the exact gate search's route is (the
    /// map keeps every crossing as a gate when it has a bound and several costs). Returns
    /// the route and the expansions the check took.
    ///
    /// The certificate comes cheap when an admissible lower bound `L` of the optimum (the
    /// octile distance times the cheapest cost, or the landmark bound) already reaches
    /// `C / factor`. Otherwise the exact gate search runs until the lowest `f` on its open
    /// list reaches `C / factor` (which certifies `C`, see [`SearchContext::certify`]) or
    /// it reaches the goal (and its route is optimal). Either way the answer costs at most
    /// the factor times the optimum.
    fn hold_to_bound(
        &self,
        ctx: &mut SearchContext,
        ends: Ends,
        route: Result<Route, QueryError>,
    ) -> (Result<Route, QueryError>, usize) {
        let Some(factor) = self.config.excess_factor() else {
            return (route, 0);
        };
        if self.costs.uniform().is_some() {
            return (route, 0);
        }
        let Ok(found) = route else {
            return (route, 0);
        };
        let quick = self.cell_path(ctx, found);
        let limit = quick.cost / factor;
        if limit <= self.lower_bound(ends.start, ends.goal) {
            return (Ok(Route::Cells(quick.cells)), 0);
        }
        let checked = ctx.certify(&self.graph, ends, (&self.landmarks, &self.costs), limit);
        let work = ctx.last_expansions();
        let mut waypoints = match checked {
            Stepped::Certified => return (Ok(Route::Cells(quick.cells)), work),
            Stepped::Found(waypoints, _) => waypoints,
            Stepped::Exhausted | Stepped::Paused => {
                debug_assert!(
                    false,
                    "the exact search missed {} -> {}",
                    ends.start, ends.goal
                );
                return (Ok(Route::Cells(quick.cells)), work);
            }
        };
        self.bound_fallbacks.fetch_add(1, Ordering::Relaxed);
        if self.config.smooth {
            waypoints = path::smooth(&self.grid, self.costs(), &waypoints);
        }
        let exact = self.cell_path(ctx, Route::Waypoints(waypoints));
        let best = if exact.cost <= quick.cost {
            exact
        } else {
            quick
        };
        (Ok(Route::Cells(best.cells)), work)
    }

    /// An admissible lower bound of the cheapest path's cost from `start` to `goal`: the
    /// octile distance times the cheapest cost of any free cell, or the landmark bound
    /// when the map keeps landmarks and it is larger.
    fn lower_bound(&self, start: Cell, goal: Cell) -> f64 {
        let octile = crate::octile(start, goal) * self.costs.floor();
        if self.landmarks.count() == 0 {
            return octile;
        }
        let row = self.landmarks.goal_row(goal);
        octile.max(self.landmarks.bound(&row, start))
    }

    /// How many fast answers the certificate of
    /// [`Config::max_excess_percent`](super::Config::max_excess_percent) could not pass
    /// since the map was built: its exact gate search ran to the goal, and the cheaper of
    /// its route and the fast one was returned. What the bound costs, as a count.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode};
    /// let map = HpaMap::new(Grid::new_free(256, 256), Mode::Fast)?;
    /// map.find_path(Cell::new(0, 0), Cell::new(255, 200))?;
    /// assert_eq!(map.bound_fallbacks(), 0, "a map of one cost is never checked");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bound_fallbacks(&self) -> u64 {
        self.bound_fallbacks.load(Ordering::Relaxed)
    }

    /// Adds the finished search's expansions to the work that pays for tightening loose
    /// landmark columns (see `HpaMap::tightening_pays`): both the gate search and the
    /// subgoal search are guided by them.
    fn count_search_work(&self, ctx: &SearchContext) {
        if self.landmarks.has_loose() {
            self.search_work
                .fetch_add(ctx.last_expansions() as u64, Ordering::Relaxed);
        }
    }

    /// The route from a gate search's waypoints, smoothed when the mode smooths.
    fn finish_search(
        &self,
        ctx: &mut SearchContext,
        (start, goal): (Cell, Cell),
        found: Option<Vec<Cell>>,
        window: Option<Vec<Cell>>,
    ) -> Result<Route, QueryError> {
        self.count_search_work(ctx);
        let mut waypoints = found.ok_or(QueryError::Unreachable { start, goal })?;
        if self.config.smooth {
            waypoints = path::smooth(&self.grid, self.costs(), &waypoints);
        }
        let Some(window) = window else {
            return Ok(Route::Waypoints(waypoints));
        };
        // An unproved window path: the cheaper of it and the gate search's.
        let gates = self.cell_path(ctx, Route::Waypoints(waypoints));
        let window_cost =
            Path::from_cells_with_costs(window.clone(), &self.grid, self.costs()).cost;
        Ok(Route::Cells(if window_cost <= gates.cost {
            window
        } else {
            gates.cells
        }))
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
        // On the map (tested above): the leaf's ID alone, with no second look-up of the
        // node that `QuadTree::find` would make for its reference.
        Ok(self.graph.leaf_of_node(self.tree.find_id(c)))
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
