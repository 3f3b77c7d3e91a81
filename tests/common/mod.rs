//! Oracles shared by the integration tests. They are written independently of the library
//! code they check: a plain Dijkstra over the grid and a step-by-step path checker.
#![allow(dead_code)]

pub mod class_check;
pub mod footprint;
pub mod map_text;
pub mod scen_check;
pub mod service_setup;

use quadpath::{Cell, Grid, Path, Rect};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub const SQRT2: f64 = std::f64::consts::SQRT_2;

/// Whether (x,y) is on the grid.
pub fn inside(grid: &Grid, x: i64, y: i64) -> bool {
    x >= 0 && y >= 0 && x < grid.width() as i64 && y < grid.height() as i64
}

/// Whether (x,y) is on the grid and free.
pub fn free_at(grid: &Grid, x: i64, y: i64) -> bool {
    inside(grid, x, y) && grid.is_free(Cell::new(x as u32, y as u32))
}

/// Whether moving from (x,y) by (dx,dy) is legal: target free and, for diagonals, both
/// side cells free.
pub fn legal(grid: &Grid, x: i64, y: i64, dx: i64, dy: i64) -> bool {
    let free = |x: i64, y: i64| free_at(grid, x, y);
    free(x + dx, y + dy) && (dx == 0 || dy == 0 || (free(x + dx, y) && free(x, y + dy)))
}

/// Exact shortest distances from `start` to every cell (Dijkstra, costs counted as
/// (straight, diagonal) step pairs so there is no rounding). `None` where unreachable.
pub fn distances(grid: &Grid, start: Cell) -> Vec<Option<f64>> {
    let (w, h) = (grid.width() as usize, grid.height() as usize);
    let mut best = vec![u64::MAX; w * h];
    let mut heap = BinaryHeap::new();
    best[start.y as usize * w + start.x as usize] = 0;
    heap.push(Reverse((0u64, start.x, start.y)));
    while let Some(Reverse((d, x, y))) = heap.pop() {
        if d > best[y as usize * w + x as usize] {
            continue;
        }
        for dy in -1i64..=1 {
            for dx in -1i64..=1 {
                if (dx, dy) == (0, 0) || !legal(grid, x as i64, y as i64, dx, dy) {
                    continue;
                }
                let (nx, ny) = ((x as i64 + dx) as u32, (y as i64 + dy) as u32);
                let nd = d + if dx != 0 && dy != 0 {
                    unit(SQRT2)
                } else {
                    unit(1.0)
                };
                let i = ny as usize * w + nx as usize;
                if nd < best[i] {
                    best[i] = nd;
                    heap.push(Reverse((nd, nx, ny)));
                }
            }
        }
    }
    best.into_iter()
        .map(|d| (d != u64::MAX).then(|| d as f64 / 1e9))
        .collect()
}

/// Exact cheapest costs from `start` to every cell under terrain costs (`cost` gives each
/// cell's cost per unit of length): a step costs its length times the mean of its two
/// cells' costs. `None` where unreachable. Costs are summed in `f64`, so compare within a
/// relative tolerance.
pub fn weighted_distances(
    grid: &Grid,
    cost: impl Fn(Cell) -> f64,
    start: Cell,
) -> Vec<Option<f64>> {
    /// A cost ordered totally, for the heap (costs are never NaN).
    struct Key(f64);
    impl PartialEq for Key {
        fn eq(&self, other: &Self) -> bool {
            self.cmp(other).is_eq()
        }
    }
    impl Eq for Key {}
    impl PartialOrd for Key {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Key {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            self.0.total_cmp(&other.0)
        }
    }
    let (w, h) = (grid.width() as usize, grid.height() as usize);
    let mut best = vec![f64::INFINITY; w * h];
    let mut heap = BinaryHeap::new();
    best[start.y as usize * w + start.x as usize] = 0.0;
    heap.push(Reverse((Key(0.0), start.x, start.y)));
    while let Some(Reverse((Key(d), x, y))) = heap.pop() {
        if d > best[y as usize * w + x as usize] {
            continue;
        }
        let here = cost(Cell::new(x, y));
        for dy in -1i64..=1 {
            for dx in -1i64..=1 {
                if (dx, dy) == (0, 0) || !legal(grid, x as i64, y as i64, dx, dy) {
                    continue;
                }
                let (nx, ny) = ((x as i64 + dx) as u32, (y as i64 + dy) as u32);
                let length = if dx != 0 && dy != 0 { SQRT2 } else { 1.0 };
                let nd = d + length * (here + cost(Cell::new(nx, ny))) / 2.0;
                let i = ny as usize * w + nx as usize;
                if nd < best[i] {
                    best[i] = nd;
                    heap.push(Reverse((Key(nd), nx, ny)));
                }
            }
        }
    }
    best.into_iter()
        .map(|d| d.is_finite().then_some(d))
        .collect()
}

/// Exact shortest distances from one start to the cells near it, found by a Dijkstra that
/// stops at length `bound`: any path of length at most `bound` stays within Chebyshev
/// distance `bound` of the start, so the distance of every cell whose shortest path is at
/// most `bound` long is exact, and every other cell (farther, or unreachable) reads `None`.
/// The buffers cover a window around the start and are reused from one start to the next,
/// so sweeping every cell of a map costs a small search per cell, not a map-wide one.
pub struct NearDistances {
    radius: i64,
    bound: u64,
    origin: (i64, i64),
    best: Vec<u64>,
    touched: Vec<usize>,
    heap: BinaryHeap<Reverse<(u64, i64, i64)>>,
}

impl NearDistances {
    pub fn new(bound: f64) -> Self {
        let radius = bound.floor() as i64;
        let side = (2 * radius + 1) as usize;
        NearDistances {
            radius,
            bound: unit(bound),
            origin: (0, 0),
            best: vec![u64::MAX; side * side],
            touched: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    fn slot(&self, x: i64, y: i64) -> Option<usize> {
        let (dx, dy) = (x - self.origin.0, y - self.origin.1);
        let side = 2 * self.radius + 1;
        ((0..side).contains(&dx) && (0..side).contains(&dy)).then(|| (dy * side + dx) as usize)
    }

    /// Runs the search from `start`.
    pub fn from(&mut self, grid: &Grid, start: Cell) {
        for &i in &self.touched {
            self.best[i] = u64::MAX;
        }
        self.touched.clear();
        self.origin = (start.x as i64 - self.radius, start.y as i64 - self.radius);
        let s = self.slot(start.x as i64, start.y as i64).unwrap();
        self.best[s] = 0;
        self.touched.push(s);
        self.heap.push(Reverse((0, start.x as i64, start.y as i64)));
        while let Some(Reverse((d, x, y))) = self.heap.pop() {
            if d > self.best[self.slot(x, y).unwrap()] {
                continue;
            }
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    if (dx, dy) == (0, 0) || !legal(grid, x, y, dx, dy) {
                        continue;
                    }
                    let nd = d + unit(if dx != 0 && dy != 0 { SQRT2 } else { 1.0 });
                    if nd > self.bound {
                        continue;
                    }
                    let i = self
                        .slot(x + dx, y + dy)
                        .expect("a path within the bound stays in the window");
                    if nd < self.best[i] {
                        if self.best[i] == u64::MAX {
                            self.touched.push(i);
                        }
                        self.best[i] = nd;
                        self.heap.push(Reverse((nd, x + dx, y + dy)));
                    }
                }
            }
        }
    }

    /// The shortest distance from the last start to `c`, if it is at most the bound.
    pub fn get(&self, c: Cell) -> Option<f64> {
        let d = self.best[self.slot(c.x as i64, c.y as i64)?];
        (d != u64::MAX).then(|| d as f64 / 1e9)
    }
}

/// Cost in units of 1e-9, to keep an integer heap key.
fn unit(d: f64) -> u64 {
    (d * 1e9).round() as u64
}

/// Panics with a message unless `path` is a legal route from `start` to `goal` whose
/// claimed length equals its summed step costs.
pub fn assert_valid(grid: &Grid, start: Cell, goal: Cell, path: &Path) {
    assert_eq!(
        path.cells.first(),
        Some(&start),
        "path must begin at the start"
    );
    assert_eq!(path.cells.last(), Some(&goal), "path must end at the goal");
    let mut sum = 0.0;
    for w in path.cells.windows(2) {
        let (a, b) = (w[0], w[1]);
        assert!(grid.is_free(a), "cell {a} is blocked");
        let (dx, dy) = (b.x as i64 - a.x as i64, b.y as i64 - a.y as i64);
        assert!(
            dx.abs() <= 1 && dy.abs() <= 1 && (dx, dy) != (0, 0),
            "{a} -> {b} is not a step"
        );
        assert!(
            legal(grid, a.x as i64, a.y as i64, dx, dy),
            "{a} -> {b} is illegal (blocked or corner cut)"
        );
        sum += if dx != 0 && dy != 0 { SQRT2 } else { 1.0 };
    }
    assert!(grid.is_free(goal));
    assert!(
        (sum - path.length).abs() < 1e-6,
        "claimed length {} but steps sum to {sum}",
        path.length
    );
}

/// A small deterministic generator, so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Reads a Moving AI map with a parser of its own, independent of `quadpath::io`.
pub fn read_movingai(path: &std::path::Path) -> Grid {
    let (w, h, codes) = read_movingai_codes(path);
    Grid::from_fn(w, h, |x, y| {
        matches!(codes[(y * w + x) as usize], b'.' | b'G' | b'S')
    })
}

/// A Moving AI map's width, height and characters row by row, by the same parser.
pub fn read_movingai_codes(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let (mut w, mut h) = (0, 0);
    for line in lines.by_ref() {
        let mut it = line.split_whitespace();
        match (it.next(), it.next()) {
            (Some("width"), Some(v)) => w = v.parse().unwrap(),
            (Some("height"), Some(v)) => h = v.parse().unwrap(),
            (Some("map"), _) => break,
            _ => {}
        }
    }
    let codes: Vec<u8> = lines
        .take(h as usize)
        .flat_map(|l| l.as_bytes()[..w as usize].to_vec())
        .collect();
    assert_eq!(codes.len(), (w * h) as usize, "{}", path.display());
    (w, h, codes)
}

/// One scenario line: start, goal, the optimal length as printed, and how far a length may be
/// from it and still count as equal.
#[derive(Clone, Copy, Debug)]
pub struct ScenLine {
    pub start: Cell,
    pub goal: Cell,
    pub optimal: f64,
    /// [`quadpath::io::Scenario::tolerance`]: files print rounded lengths (`1010.68` for
    /// 1010.678282), so a fixed 1e-3 would fail correct paths.
    pub tol: f64,
}

/// Reads the lines of a scenario file. Start, goal and optimal length come from this parser;
/// the tolerance comes from the library's parse of the same file, which must agree with it
/// on every line.
pub fn read_scen(path: &std::path::Path) -> Vec<ScenLine> {
    let text = std::fs::read_to_string(path).unwrap();
    let lib = quadpath::io::read_scen(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .entries;
    let mine: Vec<(Cell, Cell, f64)> = text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let n = |i: usize| f[i].parse::<u32>().unwrap();
            (
                Cell::new(n(4), n(5)),
                Cell::new(n(6), n(7)),
                f[8].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(mine.len(), lib.len(), "{}: line count", path.display());
    mine.into_iter()
        .zip(&lib)
        .map(|((start, goal, optimal), e)| {
            assert!(
                (start, goal, optimal) == (e.start, e.goal, e.optimal),
                "{}:{}: the library parsed {:?}",
                path.display(),
                e.line,
                (e.start, e.goal, e.optimal)
            );
            ScenLine {
                start,
                goal,
                optimal,
                tol: e.tolerance(),
            }
        })
        .collect()
}

/// Asserts two structure snapshots are equal, reporting only what differs.
pub fn assert_same_structure(
    got: &quadpath::testing::Snapshot,
    want: &quadpath::testing::Snapshot,
    context: &str,
) {
    // Equal snapshots are the rule; the report below compares lists pairwise.
    if got == want {
        return;
    }
    fn diff<T: PartialEq + std::fmt::Debug>(name: &str, a: &[T], b: &[T], context: &str) {
        let extra: Vec<&T> = a.iter().filter(|x| !b.contains(x)).take(5).collect();
        let missing: Vec<&T> = b.iter().filter(|x| !a.contains(x)).take(5).collect();
        assert!(extra.is_empty() && missing.is_empty() && a.len() == b.len(), "{context}: {name} differ from a fresh build\n  extra: {extra:?}\n  missing: {missing:?}");
    }
    diff("leaves", &got.leaves, &want.leaves, context);
    diff("leaf costs", &got.leaf_costs, &want.leaf_costs, context);
    diff("gates", &got.gates, &want.gates, context);
    diff("crossings", &got.crossings, &want.crossings, context);
    diff("components", &got.components, &want.components, context);
    diff("clusters", &got.clusters, &want.clusters, context);
}

/// Fast mode with clusters small enough (and no minimum size) that random small maps have
/// many of them, so that the clustered search is exercised: without the short-move search,
/// which would otherwise answer most queries on such small maps before it, and without the
/// subgoal graph, which would otherwise take the clusters' place on maps of one cost.
pub fn tiny_clusters(side: u32) -> quadpath::Config {
    quadpath::Config::fast()
        .with_subgoals(false)
        .with_local_radius(0)
        .with_clusters(Some(
            quadpath::Clustering::default()
                .with_side(side)
                .with_min_side(1)
                .with_entrances(quadpath::GatePolicy::Adaptive),
        ))
}

/// A `w`×`h` grid with obstacles from `seed`: about `density / 2` % of the cells start a bar
/// of 1–4 cells, across or down, so that obstacle corners of every shape occur.
pub fn bars_grid(w: u32, h: u32, density: u64, seed: u64) -> Grid {
    let mut rng = Rng(seed | 1);
    let mut blocked = vec![false; (w * h) as usize];
    for i in 0..(w * h) as usize {
        if rng.below(100) < density / 2 {
            let len = 1 + rng.below(4) as usize;
            let across = rng.below(2) == 0;
            for k in 0..len {
                let (x, y) = (i % w as usize, i / w as usize);
                let (x, y) = if across { (x + k, y) } else { (x, y + k) };
                if x < w as usize && y < h as usize {
                    blocked[y * w as usize + x] = true;
                }
            }
        }
    }
    Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize])
}

/// Calls `check(start, goal, optimum)` for `starts` random free starts (from `seed`) and
/// every free goal of `grid`, with Dijkstra's length (`None`: unreachable).
pub fn for_each_query(
    grid: &Grid,
    seed: u64,
    starts: usize,
    check: impl FnMut(Cell, Cell, Option<f64>),
) {
    for_each_query_from(grid, &random_starts(grid, seed, starts), check);
}

/// `count` free cells of `grid` drawn at random from `seed` (none when no cell is free).
pub fn random_starts(grid: &Grid, seed: u64, count: usize) -> Vec<Cell> {
    let free: Vec<Cell> = grid.free_cells().collect();
    if free.is_empty() {
        return Vec::new();
    }
    let mut rng = Rng(seed | 1);
    (0..count)
        .map(|_| free[rng.below(free.len() as u64) as usize])
        .collect()
}

/// Calls `check(start, goal, optimum)` for each of `starts` and every free goal of `grid`,
/// with Dijkstra's length (`None`: unreachable).
pub fn for_each_query_from(
    grid: &Grid,
    starts: &[Cell],
    mut check: impl FnMut(Cell, Cell, Option<f64>),
) {
    let free: Vec<Cell> = grid.free_cells().collect();
    for &start in starts {
        let dist = distances(grid, start);
        for &goal in &free {
            check(start, goal, dist[(goal.y * grid.width() + goal.x) as usize]);
        }
    }
}

/// The rectangle of `w × h` cells (each at least 1) whose top-left corner is `(x, y)` taken
/// modulo the map's `width × height`, clipped to the map: how the property tests turn the
/// edits they draw into rectangles in bounds whatever the map's size.
pub fn clipped_rect((width, height): (u32, u32), (x, y, w, h): (u32, u32, u32, u32)) -> Rect {
    let (x, y) = (x % width, y % height);
    Rect::new(
        x,
        y,
        (x + w - 1).min(width - 1),
        (y + h - 1).min(height - 1),
    )
}
