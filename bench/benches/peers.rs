//! quadpath against its peers on the Moving AI maps in `../shared/maps`, printed as markdown
//! tables (the source of `BENCHMARKS.md`), led by a one-screen summary per map family.
//!
//! Contenders, all on one thread:
//! - `A*`: `pathfinding::astar` over the flat bitmap (`quadpath::baseline::astar`), the
//!   optimal baseline every speed-up was measured against before Warthog joined;
//! - `qp-exact …`, `qp-fast …`: quadpath's [`HpaMap`] in `Mode::Exact` and `Mode::Fast`, and
//!   `qp-exact-sg …` in exact mode over the subgoal graph (`Config::subgoals`), each
//!   timed twice over one map: `corners` to the path's corner points
//!   (`HpaMap::find_corners`), `cells` to every cell (`HpaMap::find_path`);
//! - `hpa-8` … `hpa-64`: the `hierarchical_pathfinding` crate (HPA*) with those chunk sizes,
//!   default config otherwise, `MooreNeighborhood`;
//! - `gp-jps`: the `grid_pathfinding` crate (jump point search);
//! - `W-A*`, `W-JPS`, `W-JPS2`, `W-JPS+`, `W-JPS2+`: Warthog (Shortest Path Lab), built by
//!   `../shared/peers/warthog/build.sh target/warthog` and run as separate processes on the
//!   same query subsample (written to `target/warthog/scen/MAP.scen`); their per-query
//!   nanoseconds are Warthog's own timer, which covers the search and not the path's
//!   extraction. Skipped with a note when it cannot be built (no C++ compiler or cmake).
//!
//! The two crates move by other rules than quadpath and the scenarios: `hierarchical_pathfinding`
//! charges a diagonal step like a straight one and both may cut corners. Their paths are
//! re-measured with octile costs (√2 per diagonal step), their corner-cutting steps counted,
//! and any path that breaks our rules (no corner cutting) is reported as invalid.
//!
//! Memory is measured with a counting global allocator: heap bytes live after building minus
//! before (Warthog: the memory it reports). The contenders run in `--reps` rounds; in each,
//! the in-process ones run interleaved, query by query, in an order that rotates with each
//! query, then each Warthog algorithm answers the whole subsample; every contender keeps its
//! fastest time per query.
//!
//! Usage: `cargo bench --bench peers -- [--sample N] [--reps R] [--maps a,b,...] [--markdown OUT]
//! [--edit-maps a,b] [--edits N] [--no-queries] [--no-hasher] [--no-edits] [--no-warthog] [--blocks]
//! [--maps-dir DIR]`. With `--blocks` each in-process contender answers the whole subsample in
//! a row (contenders in an order that rotates with the round), as each Warthog process does,
//! so that every contender runs with its own data warm in the caches; without it they
//! alternate query by query, and each query finds the others' data in the caches.
//! `--maps-dir` defaults to `QUADPATH_SHARED_MAPS`, else `../shared/maps`; Warthog is looked for in
//! the folder above it. Maps that are missing are skipped with a note. `PEERS_DEBUG=1` prints suspicious peer paths
//! (invalid without a corner cut, or over 3× the optimum) to stderr.

mod common;
use common::report::*;
use common::summary::{summary_table, References, Sample};
use common::warthog::{self, Warthog};
use common::Rng;
use grid_pathfinding::PathingGrid;
use grid_util::grid::{BoolGrid, ValueGrid};
use grid_util::point::Point;
use hierarchical_pathfinding::prelude::{MooreNeighborhood, PathCache, PathCacheConfig};
use quadpath::baseline;
use quadpath::io::{read_map, read_scen, Scenario};
use quadpath::quadtree::{QuadTree, SplitStopper};
use quadpath::{Cell, Config, Direction, Grid, HpaMap, Mode, Path, Rect, TerrainCosts};
use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path as FsPath, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

// ---------------------------------------------------------------------------------------
// Counting allocator

/// The system allocator, counting the bytes live now and the most live since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; the counters have no effect on it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live() -> usize {
    LIVE.load(Relaxed)
}

/// Runs `f`, returning its result, the seconds it took and the heap bytes it left live.
fn measure_build<T>(f: impl FnOnce() -> T) -> (T, f64, usize) {
    let before = live();
    let t = Instant::now();
    let v = f();
    let secs = t.elapsed().as_secs_f64();
    (v, secs, live().saturating_sub(before))
}

// ---------------------------------------------------------------------------------------
// Command line

struct Args {
    sample: usize,
    reps: usize,
    maps: Vec<String>,
    markdown: Option<PathBuf>,
    maps_dir: PathBuf,
    edit_maps: Vec<String>,
    edits: usize,
    queries: bool,
    hasher: bool,
    dynamic: bool,
    warthog: bool,
    /// Each in-process contender answers the whole subsample in a row (`--blocks`).
    blocks: bool,
}

const DEFAULT_MAPS: &[(&str, &str)] = &[
    ("arena", "small"),
    ("den312d", "small"),
    ("lak303d", "medium"),
    ("ost003d", "medium"),
    ("den520d", "medium"),
    ("ht_chantry", "medium"),
    ("brc202d", "large"),
    ("w_woundedcoast", "large"),
    ("orz900d", "large"),
    ("Berlin_1_256", "city"),
    ("maze512-32-9", "maze/rooms"),
    ("64room_000", "maze/rooms"),
    ("maze-128-128-10", "maze/rooms"),
    ("random-64-64-10", "random"),
    ("AcrosstheCape", "StarCraft"),
    ("Aftershock", "StarCraft"),
    ("BlackLotus", "StarCraft"),
    ("Cauldron", "StarCraft"),
    ("Expedition", "StarCraft"),
];

fn group_of(name: &str) -> &'static str {
    DEFAULT_MAPS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("other", |(_, g)| g)
}

/// The summary's family of a map: the StarCraft set, the Dragon Age maps, or the synthetic
/// mazes, rooms and random maps (anything else is `other`).
fn family_of(name: &str) -> &'static str {
    match group_of(name) {
        "StarCraft" => "sc1",
        "small" | "medium" | "large" => "DAO",
        "maze/rooms" | "random" => "mazes, rooms, random",
        "city" => "city",
        _ => "other",
    }
}

/// The summary's contenders, in its order.
const SUMMARY_ORDER: &[&str] = &[
    "W-A*",
    "W-JPS",
    "W-JPS2",
    "W-JPS+",
    "W-JPS2+",
    "qp-exact corners",
    "qp-exact cells",
    "qp-exact-sg corners",
    "qp-exact-sg cells",
    "qp-fast corners",
    "qp-fast cells",
    "A*",
    "hpa-8",
    "hpa-16",
    "hpa-32",
    "hpa-64",
    "gp-jps",
];

fn summary(out: &mut String, results: &[MapResult]) {
    let mut families: Vec<&str> = Vec::new();
    for r in results {
        let f = family_of(&r.name);
        if !families.contains(&f) {
            families.push(f);
        }
    }
    let samples: Vec<Sample<'_>> = results
        .iter()
        .flat_map(|r| {
            r.contenders
                .iter()
                .map(move |(name, build_ms, memory, st)| Sample {
                    map: &r.name,
                    family: family_of(&r.name),
                    contender: name,
                    times_us: &st.times_us,
                    subopt: &st.subopt,
                    invalid: st.invalid,
                    queries: r.queries,
                    memory: *memory,
                    build_ms: *build_ms,
                })
        })
        .collect();
    let maps: Vec<String> = families
        .iter()
        .map(|f| {
            let names: Vec<&str> = results
                .iter()
                .filter(|r| family_of(&r.name) == *f)
                .map(|r| r.name.as_str())
                .collect();
            format!("{f}: {}", names.join(", "))
        })
        .collect();
    let _ = write!(
        out,
        "### Summary\n\nMaps: {}. Times in µs per query (fastest of the rounds per query), median and \
         95th percentile over all the family's queries. Speed-ups: reference median ÷ contender median \
         per map, geometric mean over the family's maps (× W-A* is the GPPC convention); `A*` is \
         `pathfinding::astar`, the yardstick of the tables below. **`qp-… corners`** is timed to the \
         path's corner points (`HpaMap::find_corners`, what a unit steers along), **`qp-… cells`** to \
         every cell (`HpaMap::find_path`); Warthog's own timer covers its search and stops before the \
         path is extracted, so `corners` is the like-for-like figure. Warthog's build is its process's \
         start-up (loading the map, and the jump tables of the `+` variants: wall time minus the queries' \
         time) and its memory what it reports (`total memory`, search + map + scenario); memory and \
         build are the most over the maps. Suboptimality over all the maps' queries; invalid counts \
         paths that break our rules (the peers `hpa-*` and `gp-jps` cut corners).\n\n",
        maps.join("; ")
    );
    let refs = References {
        astar: "W-A*",
        jps2: "W-JPS2",
        yardstick: "A*",
    };
    summary_table(out, &samples, SUMMARY_ORDER, &families, &refs);
}

fn usage() -> ! {
    eprintln!(
        "usage: cargo bench --bench peers -- [--sample N] [--reps R] [--maps a,b,...] [--markdown OUT]\n\
         \x20      [--edit-maps a,b] [--edits N] [--no-queries] [--no-hasher] [--no-edits] [--no-warthog] [--blocks] [--maps-dir DIR]"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut a = Args {
        sample: 300,
        reps: 3,
        maps: DEFAULT_MAPS.iter().map(|(n, _)| n.to_string()).collect(),
        markdown: None,
        maps_dir: common::shared_maps(),
        edit_maps: vec!["maze512-32-9".into(), "w_woundedcoast".into()],
        edits: 100,
        queries: true,
        hasher: true,
        dynamic: true,
        warthog: true,
        blocks: false,
    };
    let list = |s: String| {
        s.split(',')
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--bench" => {} // added by `cargo bench`
            "--sample" => a.sample = value().parse().unwrap_or_else(|_| usage()),
            "--reps" => a.reps = value().parse::<usize>().unwrap_or_else(|_| usage()).max(1),
            "--maps" => a.maps = list(value()),
            "--markdown" => a.markdown = Some(PathBuf::from(value())),
            "--maps-dir" => a.maps_dir = PathBuf::from(value()),
            "--edit-maps" => a.edit_maps = list(value()),
            "--edits" => a.edits = value().parse().unwrap_or_else(|_| usage()),
            "--no-queries" => a.queries = false,
            "--no-hasher" => a.hasher = false,
            "--no-edits" => a.dynamic = false,
            "--no-warthog" => a.warthog = false,
            "--blocks" => a.blocks = true,
            "-h" | "--help" => usage(),
            _ => {
                eprintln!("peers: unknown argument {arg:?}");
                usage()
            }
        }
    }
    a
}

/// `NAME.map` in one of the map folders, with its `-even-1.scen`, else its `.map.scen`.
fn locate(dir: &FsPath, name: &str) -> Option<(PathBuf, Option<PathBuf>)> {
    for sub in ["classic", "mapf", "rabin", "sc1", ""] {
        let d = dir.join(sub);
        let map = d.join(format!("{name}.map"));
        if map.is_file() {
            let scen = [
                d.join(format!("{name}-even-1.scen")),
                d.join(format!("{name}.map.scen")),
            ]
            .into_iter()
            .find(|p| p.is_file());
            return Some((map, scen));
        }
    }
    None
}

// ---------------------------------------------------------------------------------------
// Contenders

const HPA_CHUNKS: [usize; 4] = [8, 16, 32, 64];

fn cost_fn(grid: &Grid) -> impl Fn((usize, usize)) -> isize + Sync + '_ {
    move |(x, y)| {
        if grid.is_free(Cell::new(x as u32, y as u32)) {
            1
        } else {
            -1
        }
    }
}

fn hpa_build(grid: &Grid, chunk: usize) -> PathCache<MooreNeighborhood> {
    let (w, h) = (grid.width() as usize, grid.height() as usize);
    PathCache::new(
        (w, h),
        cost_fn(grid),
        MooreNeighborhood::new(w, h),
        PathCacheConfig::with_chunk_size(chunk),
    )
}

/// The bulk load of the crate's own benchmark runner: set the bitmap, then the neighbour masks,
/// jump points and components.
fn jps_build(grid: &Grid) -> PathingGrid {
    let (w, h) = (grid.width() as usize, grid.height() as usize);
    let mut bools = BoolGrid::new(w, h, false);
    for c in grid.blocked_cells() {
        bools.set(c.x as i32, c.y as i32, true);
    }
    let mut pg = PathingGrid::new(w, h, true);
    pg.grid = bools;
    pg.initialize();
    pg.generate_components();
    pg
}

/// What a quadpath contender's timer covers.
#[derive(Clone, Copy)]
enum Shape {
    /// `HpaMap::find_corners`: the points a unit steers along.
    Corners,
    /// `HpaMap::find_path`: every cell.
    Cells,
}

enum Engine<'g> {
    Astar(Grid),
    /// quadpath, timed to the corner points (`find_corners`) or to every cell
    /// (`find_path`). Boxed: the map is large beside the other contenders' handles.
    Quad(Box<HpaMap>, Shape),
    Hpa(PathCache<MooreNeighborhood>, &'g Grid),
    Jps(PathingGrid),
}

struct Contender<'g> {
    name: String,
    engine: Engine<'g>,
    /// Whether its moves follow quadpath's rules (octile costs, no corner cutting).
    our_rules: bool,
    build_ms: f64,
    memory: usize,
}

impl Contender<'_> {
    /// Finds a path; returns its cells (start included) and the seconds the search took.
    fn query(&mut self, s: Cell, g: Cell) -> (Option<Vec<Cell>>, f64) {
        match &mut self.engine {
            Engine::Astar(grid) => {
                let t = Instant::now();
                let p = black_box(baseline::astar(grid, s, g));
                let dt = t.elapsed().as_secs_f64();
                (p.map(|p| p.cells), dt)
            }
            Engine::Quad(map, Shape::Cells) => {
                let t = Instant::now();
                let p = black_box(map.find_path(s, g));
                let dt = t.elapsed().as_secs_f64();
                (p.ok().map(|p| p.cells), dt)
            }
            Engine::Quad(map, Shape::Corners) => {
                let t = Instant::now();
                let p = black_box(map.find_corners(s, g));
                let dt = t.elapsed().as_secs_f64();
                // Written out after the timer stops, to be judged like every other path.
                (p.ok().map(|p| p.cells()), dt)
            }
            Engine::Hpa(cache, grid) => {
                let t = Instant::now();
                let p: Option<Vec<(usize, usize)>> = black_box(
                    cache
                        .find_path(
                            (s.x as usize, s.y as usize),
                            (g.x as usize, g.y as usize),
                            cost_fn(grid),
                        )
                        .map(|p| p.collect()),
                );
                let dt = t.elapsed().as_secs_f64();
                (
                    p.map(|v| {
                        with_start(s, v.into_iter().map(|(x, y)| Cell::new(x as u32, y as u32)))
                    }),
                    dt,
                )
            }
            Engine::Jps(pg) => {
                let (ps, pgoal) = (
                    Point::new(s.x as i32, s.y as i32),
                    Point::new(g.x as i32, g.y as i32),
                );
                let t = Instant::now();
                let p = black_box(pg.get_path_single_goal(ps, pgoal, false));
                let dt = t.elapsed().as_secs_f64();
                (
                    p.map(|v| {
                        with_start(s, v.into_iter().map(|p| Cell::new(p.x as u32, p.y as u32)))
                    }),
                    dt,
                )
            }
        }
    }
}

/// A peer's path as cells from the start: `hierarchical_pathfinding` leaves the start out
/// (and gives `[goal]` when start and goal coincide), `grid_pathfinding` keeps it.
fn with_start(s: Cell, cells: impl Iterator<Item = Cell>) -> Vec<Cell> {
    let mut out = vec![s];
    out.extend(cells);
    if out.len() > 1 && out[1] == s {
        out.remove(0);
    }
    out
}

/// Builds a contender, timing it (fastest of up to 5 builds, while they add up to under 0.5 s) and
/// measuring the heap it keeps.
fn build<'g>(name: String, our_rules: bool, mut make: impl FnMut() -> Engine<'g>) -> Contender<'g> {
    let (engine, secs, memory) = measure_build(&mut make);
    let mut times = vec![secs];
    while times.len() < 5 && times.iter().sum::<f64>() < 0.5 {
        let t = Instant::now();
        let e = black_box(make());
        times.push(t.elapsed().as_secs_f64());
        drop(e);
    }
    let fastest = times.iter().copied().fold(f64::INFINITY, f64::min);
    Contender {
        name,
        engine,
        our_rules,
        build_ms: fastest * 1e3,
        memory,
    }
}

/// How far a path may undercut an optimum this bench computed itself (A*'s length), as
/// opposed to one read, rounded, from a scenario file.
const COMPUTED_TOL: f64 = 1e-3;

/// What a path is worth under quadpath's rules.
struct Judged {
    /// Octile length recomputed from the steps.
    length: f64,
    /// Diagonal steps with a blocked orthogonal neighbour.
    corner_cuts: usize,
    /// Passes `quadpath::validate` and is not shorter than the optimum.
    valid: bool,
}

/// Judges a path against `optimal`, which it may undercut by `tol`: the scenario line's
/// [`quadpath::io::Scenario::tolerance`] (files print rounded lengths), or
/// [`COMPUTED_TOL`] for a length computed in this run.
fn judge(grid: &Grid, s: Cell, g: Cell, cells: Vec<Cell>, optimal: f64, tol: f64) -> Judged {
    let mut corner_cuts = 0;
    for w in cells.windows(2) {
        if let Some(d) = Direction::between(w[0], w[1]) {
            if d.is_diagonal() && grid.is_free(w[1]) && !grid.can_step(w[0], d) {
                corner_cuts += 1;
            }
        }
    }
    let path = Path::from_cells(cells);
    let v = path.validate(grid, &TerrainCosts::unit(), s, g);
    if std::env::var("PEERS_DEBUG").is_ok()
        && (corner_cuts == 0 && (v.is_err() || path.length < optimal - tol)
            || path.length > 3.0 * optimal)
    {
        eprintln!("debug: {s} -> {g}: {v:?} len {} opt {optimal}", path.length);
    }
    let valid = v.is_ok() && path.length >= optimal - tol;
    Judged {
        length: path.length,
        corner_cuts,
        valid,
    }
}

#[derive(Default)]
struct Stats {
    times_us: Vec<f64>,
    scratch: Vec<usize>,
    subopt: Vec<f64>,
    failed: usize,
    invalid: usize,
    cut_paths: usize,
    cut_steps: usize,
}

struct MapResult {
    name: String,
    size: String,
    scen: String,
    queries: usize,
    contenders: Vec<ContenderResult>,
}

/// Warthog's algorithms on one map: the scenario subsample written for them, and each
/// algorithm's runs, one per round.
struct WarthogPeer<'w> {
    warthog: &'w Warthog,
    scen: PathBuf,
    map: PathBuf,
    /// Per algorithm of [`warthog::ALGORITHMS`]: its runs, or why it stopped.
    runs: Vec<Result<Vec<warthog::Run>, String>>,
}

impl<'w> WarthogPeer<'w> {
    fn new(
        warthog: &'w Warthog,
        name: &str,
        map: &FsPath,
        entries: &[Scenario],
    ) -> Result<Self, String> {
        let dir = warthog_dir().join("scen");
        let scen = dir.join(format!("{name}.scen"));
        std::fs::create_dir_all(&dir)
            .and_then(|()| warthog::write_scen(&scen, entries))
            .map_err(|e| format!("{}: {e}", scen.display()))?;
        Ok(WarthogPeer {
            warthog,
            scen,
            map: map.to_path_buf(),
            runs: warthog::ALGORITHMS.iter().map(|_| Ok(Vec::new())).collect(),
        })
    }

    /// Runs every algorithm once over the subsample.
    fn round(&mut self, name: &str) {
        for (&(label, binary, alg), runs) in warthog::ALGORITHMS.iter().zip(&mut self.runs) {
            let Ok(list) = runs else { continue };
            match self.warthog.run(binary, alg, &self.scen, &self.map) {
                Ok(run) => list.push(run),
                Err(e) => {
                    eprintln!("peers: {name}: {label}: {e}");
                    *runs = Err(e);
                }
            }
        }
    }

    /// Each algorithm's results: fastest time per query over the rounds, lengths judged
    /// against the scenario's, memory as it reports it, start-up time as its build time.
    fn finish(self, name: &str, entries: &[Scenario]) -> Vec<ContenderResult> {
        let mut out = Vec::new();
        for (&(label, ..), runs) in warthog::ALGORITHMS.iter().zip(self.runs) {
            let runs = match runs {
                Ok(runs) if runs.iter().all(|r| r.answers.len() == entries.len()) => runs,
                Ok(_) => {
                    eprintln!("peers: {name}: {label}: answer count differs, left out");
                    continue;
                }
                Err(_) => continue,
            };
            let Some(firsts) = runs.first() else { continue };
            let mut st = Stats::default();
            for (k, e) in entries.iter().enumerate() {
                let nanos = runs
                    .iter()
                    .map(|r| r.answers[k].nanos)
                    .fold(f64::INFINITY, f64::min);
                st.times_us.push(nanos / 1e3);
                match firsts.answers[k].length {
                    None => {
                        st.failed += 1;
                        st.invalid += 1;
                    }
                    Some(length) => {
                        // Warthog prints lengths to 6 significant digits (`1234.56`).
                        let printed = 0.5 * 10f64.powf(e.optimal.log10().floor() - 5.0);
                        let tol = e.tolerance().max(printed);
                        st.invalid += (length < e.optimal - tol) as usize;
                        if e.optimal > 0.0 {
                            st.subopt.push(length / e.optimal - 1.0);
                        }
                    }
                }
            }
            let startup = runs
                .iter()
                .map(|r| r.startup_ms)
                .fold(f64::INFINITY, f64::min);
            let memory = firsts.memory.unwrap_or(0);
            out.push((label.to_string(), startup, memory, st));
        }
        out
    }
}

/// Where Warthog is built and its scenario subsamples are written: `target/warthog`.
fn warthog_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/warthog")
}

/// Where the maps' files are.
struct MapFiles<'a> {
    map: &'a FsPath,
    scen: &'a FsPath,
}

fn run_queries(
    name: &str,
    grid: &Grid,
    files: MapFiles<'_>,
    (sample, reps, blocks): (usize, usize, bool),
    warthog: Option<&Warthog>,
) -> Result<MapResult, String> {
    let MapFiles {
        map: map_path,
        scen: scen_path,
    } = files;
    let scen = read_scen(scen_path).map_err(|e| e.to_string())?;
    let n = scen.entries.len();
    let ids: Vec<usize> = if sample < n {
        (0..sample).map(|i| i * n / sample).collect()
    } else {
        (0..n).collect()
    };
    let entries: Vec<_> = ids.iter().map(|&i| scen.entries[i].clone()).collect();

    eprintln!("peers: {name}: building");
    let mut cs: Vec<Contender> = Vec::new();
    cs.push(build("A*".into(), true, || Engine::Astar(grid.clone())));
    for (label, config) in [
        // Exact mode over the gate graph, without the subgoal graph (`Config::subgoals`).
        ("qp-exact", Config::exact().with_subgoals(false)),
        // Exact mode as the preset has it: over the subgoal graph.
        ("qp-exact-sg", Config::exact()),
        ("qp-fast", Config::fast()),
    ] {
        // A map of its own for each: one timed right after the other on the same query
        // must not find the first one's data in the cache.
        for (shape, what) in [(Shape::Corners, "corners"), (Shape::Cells, "cells")] {
            cs.push(build(format!("{label} {what}"), true, || {
                Engine::Quad(
                    Box::new(HpaMap::new(grid.clone(), config).expect("quadpath builds")),
                    shape,
                )
            }));
        }
    }
    for chunk in HPA_CHUNKS {
        cs.push(build(format!("hpa-{chunk}"), false, || {
            Engine::Hpa(hpa_build(grid, chunk), grid)
        }));
    }
    cs.push(build("gp-jps".into(), false, || {
        Engine::Jps(jps_build(grid))
    }));

    let mut stats: Vec<Stats> = cs.iter().map(|_| Stats::default()).collect();
    for e in entries.iter().take(3) {
        for c in cs.iter_mut() {
            black_box(c.query(e.start, e.goal));
        }
    }
    eprintln!("peers: {name}: {} queries", entries.len());
    let m = cs.len();
    // Per query and contender: the fastest time over the rounds, and the first answer.
    let mut best = vec![vec![f64::INFINITY; m]; entries.len()];
    let mut first: Vec<Vec<Option<Option<Vec<Cell>>>>> = vec![vec![None; m]; entries.len()];
    let mut peers = match warthog.map(|w| WarthogPeer::new(w, name, map_path, &entries)) {
        Some(Err(e)) => {
            eprintln!("peers: {name}: Warthog skipped: {e}");
            None
        }
        Some(Ok(p)) => Some(p),
        None => None,
    };
    for round in 0..reps {
        // `reps` rounds; in each, every query goes to all contenders in an order that
        // rotates with the query and the round, then Warthog's processes answer them all
        // (alternating with quadpath map by map and round by round). Each contender keeps
        // its fastest time per query (the machine is shared and noisy).
        // (query, contender) pairs in the order they run: interleaved, or with `--blocks`
        // one contender's whole subsample after another's.
        let order: Vec<(usize, usize)> = if blocks {
            (0..m)
                .flat_map(|j| (0..entries.len()).map(move |k| (k, (j + round) % m)))
                .collect()
        } else {
            (0..entries.len())
                .flat_map(|k| (0..m).map(move |j| (k, (j + k + round) % m)))
                .collect()
        };
        for (k, i) in order {
            let e = &entries[k];
            let before = live();
            PEAK.store(before, Relaxed);
            let (cells, dt) = cs[i].query(e.start, e.goal);
            best[k][i] = best[k][i].min(dt);
            if round == 0 {
                stats[i]
                    .scratch
                    .push(PEAK.load(Relaxed).saturating_sub(before));
                first[k][i] = Some(cells);
            }
        }
        if let Some(p) = peers.as_mut() {
            p.round(name);
        }
    }
    for (k, e) in entries.iter().enumerate() {
        for i in 0..m {
            let c = &cs[i];
            let cells = first[k][i].take().unwrap();
            let st = &mut stats[i];
            st.times_us.push(best[k][i] * 1e6);
            match cells {
                None => {
                    st.failed += 1;
                    st.invalid += 1;
                }
                Some(cells) => {
                    let j = judge(grid, e.start, e.goal, cells, e.optimal, e.tolerance());
                    st.invalid += !j.valid as usize;
                    st.cut_paths += (j.corner_cuts > 0) as usize;
                    st.cut_steps += j.corner_cuts;
                    if e.optimal > 0.0 {
                        st.subopt.push(j.length / e.optimal - 1.0);
                    }
                    if !j.valid && c.our_rules && st.invalid <= 3 {
                        eprintln!(
                            "peers: {name}: {} gave an invalid path {} -> {} (length {:.4}, optimal {:.4})",
                            c.name, e.start, e.goal, j.length, e.optimal
                        );
                    }
                }
            }
        }
    }
    let mut contenders: Vec<ContenderResult> = cs
        .into_iter()
        .zip(stats)
        .map(|(c, s)| (c.name, c.build_ms, c.memory, s))
        .collect();
    if let Some(p) = peers {
        contenders.extend(p.finish(name, &entries));
    }
    Ok(MapResult {
        name: name.to_string(),
        size: format!("{}×{}", grid.width(), grid.height()),
        scen: scen_path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
        queries: entries.len(),
        contenders,
    })
}

/// A contender's name, build time (ms), memory (bytes) and query statistics on one map.
type ContenderResult = (String, f64, usize, Stats);

/// Per map, `reference`'s median ÷ each contender's, and their geometric means per map group
/// and over all maps; nothing when `reference` did not run.
fn speedup_table(
    out: &mut String,
    results: &[MapResult],
    names: &[String],
    reference: &str,
    label: &str,
) {
    let median_of = |r: &MapResult, name: &str| {
        r.contenders
            .iter()
            .find(|c| c.0 == name)
            .map_or(f64::NAN, |c| median(&c.3.times_us))
    };
    if !results.iter().any(|r| median_of(r, reference).is_finite()) {
        return;
    }
    let speedup = |r: &MapResult, name: &str| median_of(r, reference) / median_of(r, name);
    let _ = write!(
        out,
        "### Speed-up against {label} (its median / contender median, same run)\n\n"
    );
    let mut rows: Vec<Vec<String>> = results
        .iter()
        .map(|r| {
            std::iter::once(r.name.clone())
                .chain(names.iter().map(|n| fmt_ratio(speedup(r, n))))
                .collect()
        })
        .collect();
    let mut groups: Vec<&str> = Vec::new();
    for r in results {
        let g = group_of(&r.name);
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    for g in groups.iter().copied().chain(std::iter::once("all")) {
        let rs: Vec<&MapResult> = results
            .iter()
            .filter(|r| g == "all" || group_of(&r.name) == g)
            .collect();
        let mut row = vec![format!("**geomean, {g}** ({})", rs.len())];
        for n in names {
            let ratios: Vec<f64> = rs.iter().map(|r| speedup(r, n)).collect();
            row.push(format!("**{}**", fmt_ratio(geomean(&ratios))));
        }
        rows.push(row);
    }
    let header: Vec<String> = std::iter::once("map".to_string())
        .chain(names.iter().cloned())
        .collect();
    table(out, &header, &rows);
}

fn query_tables(out: &mut String, results: &[MapResult], grids: &[(String, u64)]) {
    if results.is_empty() {
        return;
    }
    // Every contender that ran on some map, in the order of the first map that has it.
    let mut names: Vec<String> = Vec::new();
    for r in results {
        for c in &r.contenders {
            if !names.contains(&c.0) {
                names.push(c.0.clone());
            }
        }
    }
    let header = |first: &str| -> Vec<String> {
        std::iter::once(first.to_string())
            .chain(names.iter().cloned())
            .collect()
    };
    // A table cell per map and contender, `–` where the contender did not run.
    let per_map = |f: &dyn Fn(&MapResult, &ContenderResult) -> String| -> Vec<Vec<String>> {
        results
            .iter()
            .map(|r| {
                std::iter::once(r.name.clone())
                    .chain(names.iter().map(|n| {
                        r.contenders
                            .iter()
                            .find(|c| &c.0 == n)
                            .map_or_else(|| "–".to_string(), |c| f(r, c))
                    }))
                    .collect()
            })
            .collect()
    };

    out.push_str("### Maps and queries\n\n");
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|r| {
            let free = grids.iter().find(|g| g.0 == r.name).map_or(0, |g| g.1);
            vec![
                r.name.clone(),
                group_of(&r.name).into(),
                r.size.clone(),
                free.to_string(),
                r.scen.clone(),
                r.queries.to_string(),
            ]
        })
        .collect();
    table(
        out,
        &[
            "map",
            "group",
            "size",
            "free cells",
            "scenario file",
            "queries",
        ]
        .map(String::from),
        &rows,
    );

    out.push_str("### Build (preprocessing) time\n\nFastest of up to 5 builds (as many as fit in 0.5 s, at least one). A*: copying the bitmap.\n\n");
    table(out, &header("map"), &per_map(&|_, c| fmt_ms(c.1)));

    out.push_str(
        "### Memory\n\nHeap bytes live after building minus before, from the counting allocator. \
         A*: its bitmap (quadpath's `Grid`, which holds a terrain byte per cell). quadpath includes its own copy \
         of the `Grid`; Warthog reports what it holds (`total memory`: search, map and scenario); `hierarchical_pathfinding` keeps no grid (it calls back into the caller's); `gp-jps` \
         keeps its own bit grid, neighbour masks, jump points and union-find.\n\n",
    );
    table(out, &header("map"), &per_map(&|_, c| fmt_bytes(c.2)));

    out.push_str(
        "Peak extra heap during one query (max over the queries): search scratch plus the returned path. \
         quadpath keeps its search buffers in a per-thread context between queries, so after the first \
         query it needs little more.\n\n",
    );
    table(
        out,
        &header("map"),
        &per_map(&|_, c| match c.3.scratch.iter().max() {
            Some(&b) => fmt_bytes(b),
            None => "–".into(), // a separate process (Warthog)
        }),
    );

    out.push_str(
        "### Median query time\n\nEach query is timed `--reps` times (contenders interleaved, in an order that \
         rotates with every query and round) and its fastest time kept: the machine is shared, and the \
         minimum filters out preemption. quadpath: `corners` is `HpaMap::find_corners`, `cells` \
         `HpaMap::find_path`; Warthog (`W-*`): its own timer, which covers the search and not the \
         path's extraction; the others: the call that returns the whole cell path.\n\n",
    );
    table(
        out,
        &header("map"),
        &per_map(&|_, c| fmt_us(median(&c.3.times_us))),
    );
    out.push_str("### 95th-percentile query time\n\n");
    table(
        out,
        &header("map"),
        &per_map(&|_, c| fmt_us(quantile(&c.3.times_us, 0.95))),
    );

    for (reference, label) in [
        ("A*", "`pathfinding::astar`"),
        ("W-A*", "Warthog A* (the GPPC convention)"),
        ("W-JPS2", "Warthog JPS2"),
    ] {
        speedup_table(out, results, &names, reference, label);
    }

    out.push_str(
        "### Suboptimality\n\nMean / max of (octile length of the returned path) / (scenario optimum) − 1, over \
         the paths returned. For the peers the length is recomputed from their steps at √2 per diagonal; \
         a corner-cutting path can be shorter than the optimum under our rules, hence negative values.\n\n",
    );
    table(
        out,
        &header("map"),
        &per_map(&|_, c| {
            let s = &c.3.subopt;
            let mean = s.iter().sum::<f64>() / s.len() as f64;
            let max = s.iter().copied().fold(f64::NAN, f64::max);
            format!("{} / {}", fmt_pct(mean), fmt_pct(max))
        }),
    );

    out.push_str(
        "### Paths invalid under our rules\n\nInvalid paths / queries, then in brackets the paths with at least \
         one corner-cutting diagonal step and the total number of such steps. quadpath and A*: a path is valid \
         when `quadpath::validate` accepts it and it is not shorter than the optimum − the scenario's tolerance \
         (`Scenario::tolerance`: the larger of 1e-3 and half a unit in the last printed digit). \
         A query with no path counts as invalid (there were none: every scenario query is solvable).\n\n",
    );
    table(
        out,
        &header("map"),
        &per_map(&|r, c| {
            let s = &c.3;
            let mut v = format!("{}/{}", s.invalid, r.queries);
            if s.cut_paths > 0 {
                let _ = write!(v, " ({} cut, {} steps)", s.cut_paths, s.cut_steps);
            }
            if s.failed > 0 {
                let _ = write!(v, " [{} no path]", s.failed);
            }
            v
        }),
    );
}

// ---------------------------------------------------------------------------------------
// Hasher: ahash (the default) against FxHash on the quadtree operations that hash

fn time_per<F: FnMut()>(n: usize, mut f: F) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e9 / n as f64
}

struct HasherRow {
    name: String,
    nodes: usize,
    build: (f64, f64),
    find: (f64, f64),
    edit: (f64, f64),
}

fn hasher_bench(name: &str, grid: &Grid) -> HasherRow {
    let (w, h) = (grid.width(), grid.height());
    let cells: Vec<Cell> = grid.blocked_cells().collect();
    let objects = || cells.iter().map(|&c| (c, ()));
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let queries: Vec<Cell> = (0..20_000)
        .map(|_| Cell::new(rng.below(w as usize) as u32, rng.below(h as usize) as u32))
        .collect();
    let mut free = Vec::new();
    while free.len() < 4000 {
        let c = Cell::new(rng.below(w as usize) as u32, rng.below(h as usize) as u32);
        if grid.is_free(c) {
            free.push(c);
        }
    }
    let mut a = QuadTree::build(w, h, SplitStopper::uniform(), objects()).unwrap();
    let mut f = QuadTree::build_with_hasher(
        w,
        h,
        SplitStopper::uniform(),
        objects(),
        rustc_hash::FxBuildHasher,
    )
    .unwrap();
    let nodes = a.node_count();
    let (mut ba, mut bf, mut fa, mut ff, mut ea, mut ef) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let rounds = 11;
    for round in 0..rounds {
        // Alternate which hasher goes first.
        for first in [round % 2 == 0, round % 2 == 1] {
            if first {
                ba.push(time_per(1, || {
                    black_box(QuadTree::build(w, h, SplitStopper::uniform(), objects()).unwrap());
                }));
                fa.push(time_per(queries.len(), || {
                    for &q in &queries {
                        black_box(a.find(q).unwrap().id());
                    }
                }));
                ea.push(time_per(free.len(), || {
                    for &q in &free {
                        a.add(q, ()).unwrap();
                        black_box(a.remove(q, &()).unwrap());
                    }
                }));
            } else {
                bf.push(time_per(1, || {
                    black_box(
                        QuadTree::build_with_hasher(
                            w,
                            h,
                            SplitStopper::uniform(),
                            objects(),
                            rustc_hash::FxBuildHasher,
                        )
                        .unwrap(),
                    );
                }));
                ff.push(time_per(queries.len(), || {
                    for &q in &queries {
                        black_box(f.find(q).unwrap().id());
                    }
                }));
                ef.push(time_per(free.len(), || {
                    for &q in &free {
                        f.add(q, ()).unwrap();
                        black_box(f.remove(q, &()).unwrap());
                    }
                }));
            }
        }
    }
    HasherRow {
        name: name.into(),
        nodes,
        build: (min(&ba), min(&bf)),
        find: (min(&fa), min(&ff)),
        edit: (min(&ea), min(&ef)),
    }
}

fn hasher_table(out: &mut String, rows: &[HasherRow]) {
    if rows.is_empty() {
        return;
    }
    out.push_str(
        "### Quadtree hasher: ahash (default) vs `rustc_hash::FxBuildHasher`\n\n`QuadTree<(), S>` with \
         `SplitStopper::uniform()` and one object per blocked cell, the tree `HpaMap` builds. Build: the bulk \
         `build`/`build_with_hasher` of all blocked cells; find: `find` on 20 000 random cells; edit: `add` then \
         `remove` of one object on 4 000 random free cells (per add+remove pair). Fastest of 11 rounds, the two \
         hashers interleaved. Fx/ahash below 1 means Fx is faster.\n\n",
    );
    let hdr = [
        "map",
        "nodes",
        "build ahash",
        "build Fx",
        "Fx/ahash",
        "find ahash",
        "find Fx",
        "Fx/ahash",
        "edit ahash",
        "edit Fx",
        "Fx/ahash",
    ];
    let ns = |v: f64| {
        if v >= 1e4 {
            fmt_us(v / 1e3)
        } else {
            format!("{v:.0} ns")
        }
    };
    let mut body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                r.nodes.to_string(),
                ns(r.build.0),
                ns(r.build.1),
                format!("{:.2}", r.build.1 / r.build.0),
                ns(r.find.0),
                ns(r.find.1),
                format!("{:.2}", r.find.1 / r.find.0),
                ns(r.edit.0),
                ns(r.edit.1),
                format!("{:.2}", r.edit.1 / r.edit.0),
            ]
        })
        .collect();
    let g = |f: &dyn Fn(&HasherRow) -> f64| {
        format!(
            "**{:.2}**",
            geomean(&rows.iter().map(f).collect::<Vec<_>>())
        )
    };
    body.push(vec![
        "**geomean**".into(),
        String::new(),
        String::new(),
        String::new(),
        g(&|r| r.build.1 / r.build.0),
        String::new(),
        String::new(),
        g(&|r| r.find.1 / r.find.0),
        String::new(),
        String::new(),
        g(&|r| r.edit.1 / r.edit.0),
    ]);
    table(out, &hdr.map(String::from), &body);
}

// ---------------------------------------------------------------------------------------
// Dynamic edits: 4×4 buildings placed one by one, then removed

const SIDE: u32 = 512;
const BUILDING: u32 = 4;

struct EditRow {
    what: String,
    edit_us: Vec<f64>,
    /// quadpath only: the part of `edit_us` spent in `HpaMap::refresh`.
    refresh_us: Vec<f64>,
    replan_us: Vec<f64>,
    invalid: usize,
    subopt: Vec<f64>,
}

impl EditRow {
    fn new(what: impl Into<String>) -> Self {
        EditRow {
            what: what.into(),
            edit_us: vec![],
            refresh_us: vec![],
            replan_us: vec![],
            invalid: 0,
            subopt: vec![],
        }
    }
}

struct EditResult {
    map: String,
    size: String,
    start: Cell,
    goal: Cell,
    optimal: f64,
    buildings: usize,
    /// Fastest of 3 plans of the fixed path before any edit: A*, qp-exact, qp-fast.
    fresh_us: [f64; 3],
    rows: Vec<EditRow>,
}

/// The central `SIDE × SIDE` crop of `grid` (all of it when smaller).
fn crop(grid: &Grid) -> Grid {
    let (w, h) = (grid.width().min(SIDE), grid.height().min(SIDE));
    let (x0, y0) = ((grid.width() - w) / 2, (grid.height() - h) / 2);
    Grid::from_fn(w, h, |x, y| grid.is_free(Cell::new(x0 + x, y0 + y)))
}

/// Of a deterministic sample of free cells, the connected pair farthest apart by octile
/// distance: the fixed path re-planned after each edit.
fn far_pair(grid: &Grid) -> Option<(Cell, Cell, f64)> {
    let mut rng = Rng(0xC0FF_EE00_1234_5678);
    let (w, h) = (grid.width(), grid.height());
    let mut free = Vec::new();
    let mut tries = 0;
    while free.len() < 64 && tries < 1_000_000 {
        tries += 1;
        let c = Cell::new(rng.below(w as usize) as u32, rng.below(h as usize) as u32);
        if grid.is_free(c) {
            free.push(c);
        }
    }
    let mut pairs: Vec<(Cell, Cell)> = free
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| free[i + 1..].iter().map(move |&b| (a, b)))
        .collect();
    pairs.sort_by(|p, q| quadpath::octile(q.0, q.1).total_cmp(&quadpath::octile(p.0, p.1)));
    pairs
        .into_iter()
        .take(200)
        .find_map(|(a, b)| baseline::astar(grid, a, b).map(|p| (a, b, p.length)))
}

fn dynamic_bench(name: &str, full: &Grid, edits: usize) -> Option<EditResult> {
    let grid0 = crop(full);
    let (w, h) = (grid0.width(), grid0.height());
    let (start, goal, optimal) = far_pair(&grid0)?;
    // Buildings: fully free 4×4 areas, not on the path's ends, not overlapping each other.
    let mut rng = Rng(0x5EED_0000_0000_0042);
    let mut scratch = grid0.clone();
    let mut rects = Vec::new();
    let mut tries = 0;
    while rects.len() < edits && tries < 1_000_000 {
        tries += 1;
        let r = Rect::from_size(
            rng.below((w - BUILDING + 1) as usize) as u32,
            rng.below((h - BUILDING + 1) as usize) as u32,
            BUILDING,
            BUILDING,
        )
        .expect("buildings have sides of at least 1");
        if r.contains(start) || r.contains(goal) || !r.cells().all(|c| scratch.is_free(c)) {
            continue;
        }
        for c in r.cells() {
            scratch.set_blocked(c, true);
        }
        rects.push(r);
    }
    eprintln!(
        "peers: edits on {name}: {} buildings, path {start} -> {goal}",
        rects.len()
    );

    let mut grid = grid0.clone();
    let mut exact = HpaMap::new(grid0.clone(), Mode::Exact).ok()?;
    let mut fast = HpaMap::new(grid0.clone(), Mode::Fast).ok()?;
    let chunks = [16usize, 64];
    let mut caches: Vec<PathCache<MooreNeighborhood>> =
        chunks.iter().map(|&c| hpa_build(&grid0, c)).collect();
    let mut jps = jps_build(&grid0);

    let mut r_exact = EditRow::new("quadpath exact: `set_blocked` + `refresh`");
    let mut r_fast = EditRow::new("quadpath fast: `set_blocked` + `refresh`");
    let mut r_hpa: Vec<EditRow> = chunks
        .iter()
        .map(|c| EditRow::new(format!("hpa-{c}: `tiles_changed`")))
        .collect();
    let mut r_jps = EditRow::new("jps: `set` per cell + `update`");
    let mut r_astar = EditRow::new("A*: nothing to update");
    let mut r_rebuild_exact = EditRow::new("quadpath exact: full rebuild (`HpaMap::new`)");
    let mut r_rebuild_fast = EditRow::new("quadpath fast: full rebuild (`HpaMap::new`)");
    let mut r_rebuild_hpa: Vec<EditRow> = chunks
        .iter()
        .map(|c| EditRow::new(format!("hpa-{c}: full rebuild (`PathCache::new`)")))
        .collect();

    let mut fresh_us = [f64::INFINITY; 3];
    for _ in 0..3 {
        let t = Instant::now();
        black_box(baseline::astar(&grid0, start, goal));
        fresh_us[0] = fresh_us[0].min(t.elapsed().as_secs_f64() * 1e6);
        for (k, map) in [(1, &mut exact), (2, &mut fast)] {
            let t = Instant::now();
            black_box(map.find_path(start, goal).ok());
            fresh_us[k] = fresh_us[k].min(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    let plan: Vec<(Rect, bool)> = rects
        .iter()
        .map(|&r| (r, true))
        .chain(rects.iter().map(|&r| (r, false)))
        .collect();
    for (k, &(rect, blocked)) in plan.iter().enumerate() {
        for c in rect.cells() {
            grid.set_blocked(c, blocked);
        }
        let tiles: Vec<(usize, usize)> =
            rect.cells().map(|c| (c.x as usize, c.y as usize)).collect();
        // The edit itself, each structure in turn.
        // quadpath: the edit, then the refresh it defers (queries never run it; until it
        // runs they cross stale clusters over their gates), timed apart and summed.
        for (map, row) in [(&mut exact, &mut r_exact), (&mut fast, &mut r_fast)] {
            let t = Instant::now();
            map.set_blocked(rect, blocked).unwrap();
            let dt = t.elapsed().as_secs_f64() * 1e6;
            let t = Instant::now();
            map.refresh();
            let dr = t.elapsed().as_secs_f64() * 1e6;
            row.edit_us.push(dt + dr);
            row.refresh_us.push(dr);
        }
        for (cache, row) in caches.iter_mut().zip(r_hpa.iter_mut()) {
            let t = Instant::now();
            cache.tiles_changed(&tiles, cost_fn(&grid));
            row.edit_us.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let t = Instant::now();
        for c in rect.cells() {
            jps.set(c.x as i32, c.y as i32, blocked);
        }
        jps.update();
        r_jps.edit_us.push(t.elapsed().as_secs_f64() * 1e6);
        // Full rebuilds on every 10th edit (they are slow, and do not depend on the edit).
        if k % 10 == 0 {
            for (mode, row) in [
                (Mode::Exact, &mut r_rebuild_exact),
                (Mode::Fast, &mut r_rebuild_fast),
            ] {
                let g = grid.clone();
                let t = Instant::now();
                black_box(HpaMap::new(g, mode).unwrap());
                row.edit_us.push(t.elapsed().as_secs_f64() * 1e6);
            }
            for (&chunk, row) in chunks.iter().zip(r_rebuild_hpa.iter_mut()) {
                let t = Instant::now();
                black_box(hpa_build(&grid, chunk));
                row.edit_us.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        // Re-plan the fixed path.
        let t = Instant::now();
        let reference = black_box(baseline::astar(&grid, start, goal));
        r_astar.replan_us.push(t.elapsed().as_secs_f64() * 1e6);
        let opt = reference.as_ref().map(|p| p.length);
        let check = |row: &mut EditRow, cells: Option<Vec<Cell>>, dt: f64| {
            row.replan_us.push(dt * 1e6);
            match (cells, opt) {
                (None, None) => {}
                (Some(cells), Some(opt)) => {
                    let j = judge(&grid, start, goal, cells, opt, COMPUTED_TOL);
                    row.invalid += !j.valid as usize;
                    row.subopt.push(j.length / opt - 1.0);
                }
                _ => row.invalid += 1,
            }
        };
        for (map, row) in [(&mut exact, &mut r_exact), (&mut fast, &mut r_fast)] {
            let t = Instant::now();
            let p = black_box(map.find_path(start, goal));
            let dt = t.elapsed().as_secs_f64();
            check(row, p.ok().map(|p| p.cells), dt);
        }
        for (cache, row) in caches.iter().zip(r_hpa.iter_mut()) {
            let t = Instant::now();
            let p: Option<Vec<(usize, usize)>> = black_box(
                cache
                    .find_path(
                        (start.x as usize, start.y as usize),
                        (goal.x as usize, goal.y as usize),
                        cost_fn(&grid),
                    )
                    .map(|p| p.collect()),
            );
            let dt = t.elapsed().as_secs_f64();
            let cells = p.map(|v| {
                with_start(
                    start,
                    v.into_iter().map(|(x, y)| Cell::new(x as u32, y as u32)),
                )
            });
            check(row, cells, dt);
        }
        let t = Instant::now();
        let p = black_box(jps.get_path_single_goal(
            Point::new(start.x as i32, start.y as i32),
            Point::new(goal.x as i32, goal.y as i32),
            false,
        ));
        let dt = t.elapsed().as_secs_f64();
        let cells = p.map(|v| {
            with_start(
                start,
                v.into_iter().map(|p| Cell::new(p.x as u32, p.y as u32)),
            )
        });
        check(&mut r_jps, cells, dt);
        if let Some(p) = reference {
            check(&mut r_astar, Some(p.cells), 0.0);
            r_astar.replan_us.pop();
        }
    }
    let mut rows = vec![r_exact, r_fast];
    rows.extend(r_hpa);
    rows.push(r_jps);
    rows.push(r_astar);
    rows.push(r_rebuild_exact);
    rows.push(r_rebuild_fast);
    rows.extend(r_rebuild_hpa);
    Some(EditResult {
        map: name.into(),
        size: if (w, h) == (full.width(), full.height()) {
            format!("{w}×{h}, whole map")
        } else {
            format!("central {w}×{h} crop of {}×{}", full.width(), full.height())
        },
        start,
        goal,
        optimal,
        buildings: rects.len(),
        fresh_us,
        rows,
    })
}

fn edit_tables(out: &mut String, results: &[EditResult]) {
    for r in results {
        let _ = write!(
            out,
            "### Dynamic edits: {} ({}), {} buildings of 4×4 placed one by one then removed\n\n\
             {} edits. Re-planned path: {} → {} (optimal {:.2} before any building). After each edit the \
             path is re-planned; invalid counts re-plans that break our rules, are shorter than A*'s or \
             disagree with A* on reachability. quadpath defers the update of its cluster layer (fast mode) \
             and of set-aside landmarks (exact mode) to `HpaMap::refresh`, which queries never call; here \
             it is called and timed right after each edit and counted in the edit. Full rebuilds are timed on every 10th edit. Before any edit, \
             the same path took A* {}, qp-exact {}, qp-fast {} (fastest of 3).\n\n",
            r.map,
            r.size,
            r.buildings,
            2 * r.buildings,
            r.start,
            r.goal,
            r.optimal,
            fmt_us(r.fresh_us[0]),
            fmt_us(r.fresh_us[1]),
            fmt_us(r.fresh_us[2])
        );
        let base = r
            .rows
            .iter()
            .find(|x| x.what.starts_with("quadpath exact: `set"))
            .map(|x| median(&x.edit_us))
            .unwrap_or(f64::NAN);
        let astar_replan = r
            .rows
            .iter()
            .find(|x| x.what.starts_with("A*"))
            .map(|x| median(&x.replan_us))
            .unwrap_or(f64::NAN);
        let rows: Vec<Vec<String>> = r
            .rows
            .iter()
            .map(|x| {
                let e = median(&x.edit_us);
                let rp = median(&x.replan_us);
                let both: Vec<f64> = if x.edit_us.len() == x.replan_us.len() {
                    x.edit_us
                        .iter()
                        .zip(&x.replan_us)
                        .map(|(a, b)| a + b)
                        .collect()
                } else {
                    vec![]
                };
                let mean_sub = x.subopt.iter().sum::<f64>() / x.subopt.len() as f64;
                vec![
                    x.what.clone(),
                    if x.edit_us.is_empty() {
                        "–".into()
                    } else {
                        fmt_us(e)
                    },
                    if x.refresh_us.is_empty() {
                        "–".into()
                    } else {
                        fmt_us(median(&x.refresh_us))
                    },
                    if x.edit_us.is_empty() {
                        "–".into()
                    } else {
                        fmt_ratio(e / base)
                    },
                    if x.replan_us.is_empty() {
                        "–".into()
                    } else {
                        fmt_us(rp)
                    },
                    if x.replan_us.is_empty() {
                        "–".into()
                    } else {
                        fmt_ratio(astar_replan / rp)
                    },
                    if x.replan_us.is_empty() {
                        "–".into()
                    } else {
                        format!("{}/{}", x.invalid, x.replan_us.len())
                    },
                    if both.is_empty() {
                        "–".into()
                    } else {
                        fmt_us(median(&both))
                    },
                    if x.subopt.is_empty() {
                        "–".into()
                    } else {
                        fmt_pct(mean_sub)
                    },
                ]
            })
            .collect();
        table(
            out,
            &[
                "update",
                "median edit",
                "of which `refresh`",
                "vs qp-exact edit",
                "median re-plan",
                "re-plan speed-up vs A*",
                "invalid re-plans",
                "median edit + re-plan",
                "mean subopt",
            ]
            .map(String::from),
            &rows,
        );
    }
}

// ---------------------------------------------------------------------------------------

fn main() {
    let args = parse_args();
    let started = Instant::now();
    let mut out = String::new();
    let shown: Vec<String> = {
        let raw: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| a != "--bench")
            .collect();
        let mut v = Vec::new();
        let mut it = raw.into_iter();
        while let Some(a) = it.next() {
            if a == "--markdown" {
                it.next();
            } else {
                v.push(a);
            }
        }
        v
    };
    let _ = writeln!(
        out,
        "<!-- generated by `cargo bench --bench peers --{}{}`: {} sampled queries per map, each timed {} times -->\n",
        if shown.is_empty() { "" } else { " " },
        shown.join(" "),
        args.sample,
        args.reps
    );

    let mut grids: Vec<(String, Grid, PathBuf, Option<PathBuf>)> = Vec::new();
    let mut missing = Vec::new();
    for name in &args.maps {
        match locate(&args.maps_dir, name) {
            Some((map, scen)) => match read_map(&map) {
                Ok(g) => grids.push((name.clone(), g, map, scen)),
                Err(e) => missing.push(format!("{name} ({e})")),
            },
            None => missing.push(name.clone()),
        }
    }
    if !missing.is_empty() {
        let note = format!(
            "Note: skipped {} map(s) not found under {}: {}.\n\n",
            missing.len(),
            args.maps_dir.display(),
            missing.join(", ")
        );
        eprint!("peers: {note}");
        out.push_str(&note);
    }

    if args.queries {
        let warthog = if args.warthog {
            eprintln!("peers: building Warthog (MAPS_DIR/../peers/warthog/build.sh)");
            // The folder `--maps-dir` is in (`../shared` by default) holds the peers too.
            let shared = args.maps_dir.join("..");
            Warthog::build(&shared, &warthog_dir())
                .map_err(|e| {
                    let note = format!("Note: Warthog skipped: {e}.\n\n");
                    eprint!("peers: {note}");
                    out.push_str(&note);
                })
                .ok()
        } else {
            None
        };
        let mut results = Vec::new();
        for (name, grid, map, scen) in &grids {
            let Some(scen) = scen else {
                eprintln!("peers: {name}: no scenario file, skipped");
                continue;
            };
            let files = MapFiles { map, scen };
            match run_queries(
                name,
                grid,
                files,
                (args.sample, args.reps, args.blocks),
                warthog.as_ref(),
            ) {
                Ok(r) => results.push(r),
                Err(e) => eprintln!("peers: {name}: {e}"),
            }
        }
        let free: Vec<(String, u64)> = grids
            .iter()
            .map(|(n, g, ..)| (n.clone(), g.free_count()))
            .collect();
        if args.blocks {
            out.push_str(
                "> Run with `--blocks`: each in-process contender answered the whole subsample \
                 in a row, its data warm in the caches as Warthog's are in its own process, \
                 not interleaved query by query as the notes below describe.\n\n",
            );
        }
        summary(&mut out, &results);
        query_tables(&mut out, &results, &free);
    }

    if args.hasher {
        let rows: Vec<HasherRow> = grids
            .iter()
            .map(|(name, grid, ..)| {
                eprintln!("peers: {name}: hasher");
                hasher_bench(name, grid)
            })
            .collect();
        hasher_table(&mut out, &rows);
    }

    if args.dynamic {
        let mut results = Vec::new();
        for name in &args.edit_maps {
            let grid = grids
                .iter()
                .find(|g| &g.0 == name)
                .map(|g| g.1.clone())
                .or_else(|| locate(&args.maps_dir, name).and_then(|(m, _)| read_map(m).ok()));
            match grid {
                Some(g) => results.extend(dynamic_bench(name, &g, args.edits)),
                None => {
                    let note = format!(
                        "Note: edit map {name} not found under {}, skipped.\n\n",
                        args.maps_dir.display()
                    );
                    eprint!("peers: {note}");
                    out.push_str(&note);
                }
            }
        }
        edit_tables(&mut out, &results);
    }

    let _ = writeln!(
        out,
        "Total run time: {:.0} s.",
        started.elapsed().as_secs_f64()
    );
    print!("{out}");
    if let Some(path) = &args.markdown {
        if let Err(e) = std::fs::write(path, &out) {
            eprintln!("peers: cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
    }
}
