//! The `quadpath` command-line tool: argument definitions, shared helpers and dispatch.
//!
//! A crate of its own (`quadpath-cli`), so that the library brings no CLI dependency. Each subcommand has its own module; every
//! failure becomes a [`CliError`], printed as one `quadpath: error: ...` line with the exit
//! status it carries.

mod bench;
mod class;
mod find;
mod flow;
mod info;
mod output;
mod render;
mod replay;
mod scen;

use clap::{Args, Parser, Subcommand, ValueEnum};
use quadpath::io::{self, BitmapOptions, ColorLegend, MapError};
use quadpath::{BuildError, Cell, Config, Grid, HpaMap, Mode, QueryError};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Exit status: success.
pub const EXIT_OK: i32 = 0;
/// Exit status: a check failed (invalid path), or no path exists.
pub const EXIT_FAILED: i32 = 1;
/// Exit status: bad usage or bad input.
pub const EXIT_INPUT: i32 = 2;

const AFTER_HELP: &str = "\
Exit status:
  0  success
  1  a check failed (a path is invalid, shorter than optimal, or longer than optimal in
     exact mode), or the goal is unreachable (for flow: from some --from cell)
  2  usage or input error: missing or malformed file, unparsable or out-of-range coordinate,
     start, goal or --from on a blocked cell (or not open for the --size/--passable class), a bad
     --size, --passable or --costs, an agent larger than the map

Timings are only meaningful in an optimised build: run `cargo run --release -- ...` or the
binary in target/release.";

const LONG_ABOUT: &str = "\
Quadtree-based hierarchical A* (HPA*) for grid maps.

Loads Moving AI .map files or obstacle bitmaps (PNG, BMP, GIF, TGA, PNM: dark pixels are
walls), finds paths, checks them against Moving AI scenarios, benchmarks them against plain
grid A*, and renders the quadtree, its gates and paths to PNG.

Coordinates are written x,y: x is the column, y the row, 0,0 the top-left cell. Movement is
8-connected, a diagonal step costs √2 and may not cut a blocked corner.

Movement classes: --size K moves an agent covering K x K cells (its position is the
top-left one; every cell under it must be passable), --passable CHARS sets the terrain it
may stand on (default .GS: water W, trees T and walls @ are impassable). find, flow, scen,
bench, info and render take both; scen and bench then check each query against plain A* for the
class, since scenario files give lengths for 1x1 agents, and skip queries whose start or
goal the class cannot stand on. --costs CODE=COST,... (e.g. G=0.5,S=3) weighs terrain: a
step costs its length times the mean of both positions' costs. find, flow, scen and bench
then report each path's cost beside its length, and scen and bench judge paths by cost
against weighted A* run on the same queries.

Two modes: `exact` (every border crossing is a gate: optimal paths) and `fast` (fewer
gates and string pulling: a smaller graph, paths usually within a few percent of optimal).

Examples:
  quadpath scen maps/arena.map.scen
  quadpath find maps/arena.map 3,3 45,40 --mode fast
  quadpath bench maps/*.scen --sample 100
  quadpath info maps/den312d.map
  quadpath find maps/arena.map 3,3 45,40 --size 2 --passable .GST
  quadpath flow maps/arena.map 45,40 --from 3,3 --from 10,2 --render flow.png
  quadpath render maps/rts_valley.png -o valley.png --legend rts --tree --path 21,46 106,50";

/// The command line.
#[derive(Parser, Debug)]
#[command(
    name = "quadpath",
    version,
    about = "Quadtree hierarchical A* (HPA*) on grid maps: find, check, benchmark and render paths",
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Find one path on a map and print it.
    #[command(
        long_about = "Find one path on a map and print it: its length, the number of cells, the\n\
build and query times, then the cells as x,y pairs.\n\n\
--size K finds the path of an agent covering K x K cells (the cells printed are its\n\
top-left positions), --passable CHARS the terrain it may stand on; both ends must be\n\
open for it. --costs CODE=COST,... weighs terrain: the path is then the cheapest, and\n\
its cost is printed beside its length.\n\nExamples:\n  quadpath find maps/arena.map 3,3 45,40 --render path.png\n  \
quadpath find maps/arena.map 3,3 45,40 --size 2 --passable .GST --render tank.png",
        after_help = AFTER_HELP
    )]
    Find(find::FindArgs),
    /// Build a flow field to one goal and follow it from some cells.
    #[command(
        long_about = "Build a flow field to one goal: every open cell's distance to the goal and the\n\
step to take from it, shared by a whole group of units moving there. Prints the time to\n\
build the field (and, apart, the map's structure), then for each --from cell its distance\n\
to the goal and the route that following the field's next step gives (its length is the\n\
distance, which is exact in either mode).\n\n\
In exact mode the field is one search over the gate graph, and each leaf's cells are\n\
worked out the first time a cell in it is asked about: the `field` line (`memory_bytes`\n\
and `computed_leaves` in JSON) says what the --from routes cost. In fast mode the field is\n\
one Dijkstra over every cell, done at once.\n\n\
A --from cell that cannot reach the goal gets distance `unreachable` (`null` and an empty\n\
path in JSON): every result is printed all the same, then one error line names the cut-off\n\
cells and the exit status is 1. A goal or --from cell off the map or on a blocked cell (or\n\
not open for the --size/--passable class) is an input error (status 2), like a blocked\n\
start in `find`.\n\n\
--json prints one object: {\"goal\":[x,y],\"build_ms\":..,\"map_build_ms\":..,\"mode\":..,\n\
\"memory_bytes\":..,\"computed_leaves\":..,\"results\":[{\"from\":[x,y],\n\
\"distance\":D or null,\"length\":L or null,\"cost\":C or null,\"path\":[[x,y],...],\n\
\"query_us\":..},...]} (and \"class\" for a non-default class, \"costs\" with --costs).\n\n\
With --costs the distance is what reaching the goal costs (the route's cost), and the\n\
route's geometric length is printed beside it.\n\n\
--render OUT.png draws the distance field as a heat map (light yellow near the goal to dark\n\
blue far from it; walls dark, open cells that cannot reach the goal grey, cells the class\n\
cannot stand at brown), one arrow along the next step per square of cells about 14 pixels\n\
wide, the --from paths in red from an orange start, and the goal in magenta with a ring.\n\
The render works out every leaf of the field.\n\n\
Examples:\n  quadpath flow maps/arena.map 45,40 --from 3,3 --from 10,2\n  \
quadpath flow maps/rts_valley.png 106,50 --legend rts --from 21,46 --render flow.png\n  \
quadpath flow maps/arena.map 45,40 --size 2 --from 3,3 --json",
        after_help = AFTER_HELP
    )]
    Flow(flow::FlowArgs),
    /// Run every query of a Moving AI scenario file and check the paths.
    #[command(
        long_about = "Run every query of a Moving AI .scen file, validate each path (legal steps,\n\
free cells, no corner cuts, length = summed step costs) and compare its length with the\n\
optimal length the file gives. Prints a summary; exits with 1 if any path is invalid,\n\
shorter than optimal or, in exact mode, longer than optimal, or if a query is reported\n\
unreachable. Lengths within 1e-3, or half a unit in the last digit the file prints if\n\
that is more, count as equal.\n\n\
The map is found beside the scenario file (X.map.scen -> X.map, X-even-1.scen -> X.map,\n\
else the basename of the map field); --map overrides.\n\n\
With --size K or --passable CHARS (a movement class other than 1x1 on .GS) each query's\n\
reference length comes from plain A* for the class, since the file's lengths are for 1x1\n\
agents; queries whose start or goal the class cannot stand at are skipped (counted, not\n\
failures), and unreachable ones must be answered unreachable. Not available for version 2\n\
(dynamic) files.\n\n\
With --costs CODE=COST,... paths are judged by their cost, and the reference is weighted A*\n\
run on each query in the same process (the file's lengths are for unit costs); --paths\n\
lines give `cost` beside `length`, and `optimal` is then the optimal cost. Not available\n\
for version 2 (dynamic) files either.\n\n\
The answers checked come from one batch (HpaMap::find_paths) on --threads N threads\n\
(default: every core, at most 1024), timed as a whole for the throughput (queries per\n\
second of wall time). Each query is then run again alone on one thread: that gives the\n\
per-query times, and its answer must equal the batch's (a difference is an invalid\n\
query). A version 2 (dynamic) file is replayed in order on one thread whatever --threads\n\
says, since edits come between its queries; its throughput is that of the query times.\n\n\
Examples:\n  \
quadpath scen maps/arena.map.scen --mode fast --paths arena_paths.jsonl\n  \
quadpath scen maps/arena.map.scen --size 2\n  \
quadpath scen maps/den312d-even-1.scen --threads 2",
        after_help = AFTER_HELP
    )]
    Scen(scen::ScenArgs),
    /// Time quadpath against plain grid A* on scenario queries.
    #[command(
        long_about = "Time quadpath against plain grid A* (the `pathfinding` crate) on the queries of\n\
one or more scenario files. Both run in the same process, interleaved query by query, each\n\
query timed on its own. One row per map and mode: median query times, the speed-up\n\
(A* / quadpath), suboptimality, build time and memory. Exits with 1 if any path is invalid\n\
(judged as in `scen`: in exact mode a path longer than optimal is invalid too).\n\n\
A* is slow on large maps: --sample N takes N queries spread evenly over each file (so\n\
every difficulty bucket is covered), --limit N the first N. Every scenario file and its map\n\
are read and checked before the first query runs; a run with no query at all (--sample 0,\n\
--limit 0, empty files) is an input error.\n\n\
--size K and --passable CHARS time a movement class: both sides search its open positions,\n\
A* gives the reference lengths, and queries the class cannot stand at are skipped (as in\n\
`scen`). With --costs CODE=COST,... the baseline is weighted A*, whose costs are the\n\
reference, and suboptimality is of costs.\n\n\
Batch throughput (static files): after the per-query timings, which stay single-threaded,\n\
each mode answers all the row's queries in one batch (HpaMap::find_paths) on --threads N\n\
threads (default: every core, at most 1024) and on one thread, each repeated for at least\n\
50 ms; a second table gives both in queries per second and their ratio. The batch answers\n\
are the ones judged, and must equal the single-threaded ones. Dynamic files are replayed\n\
in order and have no batch.\n\n\
Examples:\n  quadpath bench maps/arena.map.scen maps/den312d-even-1.scen --sample 100\n  \
quadpath bench maps/den312d-even-1.scen --size 3 --sample 50\n  \
quadpath bench maps/den312d-even-1.scen --threads 2 --json",
        after_help = AFTER_HELP
    )]
    Bench(bench::BenchArgs),
    /// Describe a map and the structure built on it.
    #[command(
        long_about = "Describe a map and the structure built on it: size and free cells; the\n\
quadtree's depth, nodes and leaves; gates, crossings, connected components, build time and\n\
memory, for each mode.\n\n\
With --size K or --passable CHARS: the movement class's open positions, the structure built\n\
on them, and the memory of the clearance field the class needs, shared by every class on\n\
the same terrain, apart from its own layer's.\n\n\
Examples:\n  quadpath info maps/den312d.map --json\n  quadpath info maps/den312d.map --size 2",
        after_help = AFTER_HELP
    )]
    Info(info::InfoArgs),
    /// Draw a map, its quadtree, gates and a path to PNG.
    #[command(
        long_about = "Draw a map to PNG, optionally with the quadtree's free leaves (--tree), the\n\
gates between them (--gates) and a path (--path). Water, forest and swamp cells of maps\n\
with terrain (Moving AI characters, or a bitmap read with --legend) are tinted.\n\n\
With terrain costs (--costs G=0.5,S=3, or the costs of a bitmap's --legend), free cells\n\
are tinted by cost instead: cheaper than 1 toward gold, dearer toward mud brown, the\n\
further from 1 the stronger, cost 1 as plain ground. The tree, gates and path are those\n\
of the weighted map: the path is the cheapest (exact mode), and its cost is printed.\n\n\
With --size K or --passable CHARS, cells the movement class cannot stand at are tinted\n\
(walls aside), the tree, gates and path are the class's, and the path is drawn over the\n\
K x K square the agent covers at each position.\n\n\
Examples:\n  quadpath render maps/den312d.map -o den.png --scale 4 --tree --gates\n  \
quadpath render maps/arena.map -o tank.png --size 2 --path 3,3 45,40\n  \
quadpath render maps/rts_valley.png -o roads.png --legend rts --costs G=0.5,S=3 --path 21,46 106,50",
        after_help = AFTER_HELP
    )]
    Render(render::RenderArgs),
}

/// How to read an obstacle bitmap; shared by every subcommand that loads a map. Moving AI
/// `.map` files ignore these, but the values are checked whatever the map (a malformed
/// `--legend` is an input error, like `--threshold 2`), so that a typo never goes unnoticed
/// until the day the map is a bitmap.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Map loading (bitmaps only)")]
pub struct MapOptions {
    /// A pixel darker than this luma (0 to 1) is a wall
    #[arg(long, value_name = "F", default_value_t = 0.5, value_parser = parse_threshold)]
    pub threshold: f32,
    /// Light pixels are walls (for white-on-black images)
    #[arg(long)]
    pub invert: bool,
    /// Colour legend: `rts`, or exact colours such as 000000=@,0000ff=W,ffffff=.,d2b48c=G:0.5
    ///
    /// `rts` is black wall, blue water, dark green forest (blocked) and white ground, tan
    /// road, yellow-green swamp (free), all at cost 1. A list gives each colour a Moving AI
    /// character (or any printable character but `,` and `:` with a `:free` or `:blocked`
    /// suffix), then optionally `:COST`, the terrain cost of a free code (a number from
    /// 1/64 to 1e6; 1 when not given); other colours fall back to the threshold. Checked, but
    /// not applied, for .map files.
    #[arg(long, value_name = "SPEC")]
    pub legend: Option<String>,
}

/// How much memory the search structure may take; shared by every subcommand that builds
/// one.
#[derive(Args, Debug, Clone, Default)]
pub struct MemoryOptions {
    /// Refuse (exit 2) to build a search structure estimated above SIZE bytes, e.g. 512M
    /// or 2G (K, M, G, T are powers of 1024). Default: half the machine's physical memory
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<usize>,
}

impl MemoryOptions {
    /// The limit in bytes: `--max-memory`, or half of `MemTotal` in `/proc/meminfo`, or
    /// [`FALLBACK_MAX_MEMORY`] where that cannot be read.
    pub fn limit(&self) -> usize {
        self.max_memory.unwrap_or_else(|| {
            std::fs::read_to_string("/proc/meminfo")
                .ok()
                .and_then(|m| mem_total(&m))
                .map_or(FALLBACK_MAX_MEMORY, |total| total / 2)
        })
    }
}

/// How many threads answer a batch of queries; shared by `scen` and `bench`.
#[derive(Args, Debug, Clone, Default)]
pub struct ThreadOptions {
    /// Answer the batch of queries on N threads (default: every core, here
    /// `std::thread::available_parallelism`). At most 1024
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// The largest `--threads`: each thread reserves a stack and grows a search context as
/// large as the map's gate graph, so a thousand is already far past any machine's cores and
/// a larger number is a typo.
pub const MAX_THREADS: usize = 1024;

impl ThreadOptions {
    /// The thread count asked for, checked: `--threads`, or every core.
    pub fn count(&self) -> Result<usize, CliError> {
        match self.threads {
            Some(0) => Err(CliError::input(
                "--threads 0 leaves no thread to answer the queries; give at least 1",
            )),
            Some(n) if n > MAX_THREADS => Err(CliError::input(format!(
                "--threads {n} is more than the {MAX_THREADS} threads allowed"
            ))),
            Some(n) => Ok(n),
            None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        }
    }
}

/// A rayon pool of `n` threads, for [`HpaMap::find_paths`] to run on (inside
/// `pool.install`).
pub fn thread_pool(n: usize) -> Result<rayon::ThreadPool, CliError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| CliError::input(format!("cannot start {n} threads: {e}")))
}

/// Queries per second: `queries` answered in `seconds` of wall time, rounded; 0 when no
/// time could be measured.
pub fn qps(queries: usize, seconds: f64) -> f64 {
    if seconds > 0.0 {
        output::round(queries as f64 / seconds, 1)
    } else {
        0.0
    }
}

/// The default `--max-memory` where the machine's memory cannot be read: 4 GiB.
pub const FALLBACK_MAX_MEMORY: usize = 4 << 30;

/// `MemTotal` in bytes from the text of `/proc/meminfo`.
fn mem_total(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut parts = line["MemTotal:".len()..].split_whitespace();
    let n: usize = parts.next()?.parse().ok()?;
    match parts.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// Parses a byte count such as `1048576`, `512K`, `512M`, `2G`, `1T`, `64MiB`, `2gb`.
fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let (num, unit) = t.split_at(digits);
    let bad = || {
        format!(
            "invalid size {s:?}: write a number of bytes with an optional K, M, G or T, e.g. 512M"
        )
    };
    let n: usize = num.parse().map_err(|_| bad())?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(&unit);
    let shift = match unit {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(bad()),
    };
    n.checked_mul(1usize << shift)
        .ok_or_else(|| format!("invalid size {s:?}: too large"))
}

fn parse_threshold(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        Ok(_) => Err("the threshold is a luma between 0 and 1".into()),
        Err(_) => Err("expected a number between 0 and 1, e.g. 0.5".into()),
    }
}

impl MapOptions {
    pub(crate) fn bitmap_options(&self) -> Result<BitmapOptions, CliError> {
        let legend = match self.legend.as_deref().map(str::trim) {
            None => None,
            Some(s) if s.eq_ignore_ascii_case("rts") => Some(ColorLegend::rts_default()),
            Some(s) => Some(ColorLegend::parse_named(s, "--legend")?),
        };
        Ok(BitmapOptions {
            threshold: self.threshold,
            invert: self.invert,
            legend,
        })
    }
}

/// `--mode` for commands that use one mode.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ModeArg {
    /// Every crossing is a gate: optimal paths
    #[default]
    Exact,
    /// Sparse gates and string pulling: faster, a few percent longer
    Fast,
}

impl ModeArg {
    pub fn mode(self) -> Mode {
        match self {
            ModeArg::Exact => Mode::Exact,
            ModeArg::Fast => Mode::Fast,
        }
    }
}

/// `--mode` for commands that can compare both modes.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ModesArg {
    /// Exact mode only
    Exact,
    /// Fast mode only
    Fast,
    /// Both modes, one after the other
    #[default]
    All,
}

impl ModesArg {
    pub fn modes(self) -> Vec<Mode> {
        match self {
            ModesArg::Exact => vec![Mode::Exact],
            ModesArg::Fast => vec![Mode::Fast],
            ModesArg::All => vec![Mode::Exact, Mode::Fast],
        }
    }
}

/// The name of a mode on the command line and in outputs.
pub fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Exact => "exact",
        Mode::Fast => "fast",
    }
}

/// A failure, with the exit status it should produce.
#[derive(Debug)]
pub struct CliError {
    pub code: i32,
    pub message: String,
}

impl CliError {
    /// Bad input: exit status 2.
    pub fn input(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_INPUT,
            message: message.into(),
        }
    }

    /// A failed check or a missing path: exit status 1.
    pub fn failed(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_FAILED,
            message: message.into(),
        }
    }
}

impl From<MapError> for CliError {
    fn from(e: MapError) -> Self {
        CliError::input(e.to_string())
    }
}

/// A query error on the map `map`: no path is status 1, anything else 2.
pub fn path_error(map: &Path, e: QueryError) -> CliError {
    let msg = format!("{}: {e}", map.display());
    match e {
        QueryError::Unreachable { .. } => CliError::failed(msg),
        _ => CliError::input(msg),
    }
}

/// A map that cannot be prepared for search: status 2.
pub fn build_error(map: &Path, e: BuildError) -> CliError {
    match e {
        BuildError::MemoryLimit { .. } => CliError::input(format!(
            "{}: {e} (raise it with --max-memory SIZE)",
            map.display()
        )),
        e => CliError::input(format!("{}: {e}", map.display())),
    }
}

/// Parses a cell written `x,y`.
pub fn parse_cell(what: &str, text: &str) -> Result<Cell, CliError> {
    let bad = |why: &str| {
        CliError::input(format!(
            "invalid {what} {text:?}: {why}; write it as x,y (column,row), e.g. 12,30"
        ))
    };
    let (x, y) = text
        .split_once(',')
        .ok_or_else(|| bad("expected two numbers separated by a comma"))?;
    let num = |s: &str, axis: &str| {
        let s = s.trim();
        s.parse::<u32>().map_err(|_| {
            let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
            if s.strip_prefix('-').is_some_and(digits) {
                bad(&format!("{axis} cannot be negative"))
            } else if digits(s) {
                bad(&format!("{axis} {s} is too large"))
            } else {
                bad(&format!("{axis} {s:?} is not a whole number"))
            }
        })
    };
    Ok(Cell::new(num(x, "x")?, num(y, "y")?))
}

/// Checks that a query end is on the map and open for `class` on its grid `grid` (the
/// loaded grid for the default class, whose message says "blocked cell"); `map` names the
/// map in the message.
pub fn check_endpoint(
    grid: &Grid,
    class: &class::Class,
    map: &Path,
    what: &str,
    c: Cell,
) -> Result<(), CliError> {
    if c.x >= grid.width() || c.y >= grid.height() {
        return Err(CliError::input(format!(
            "{}: {what} {c} is outside the {}x{} map (x must be below {}, y below {})",
            map.display(),
            grid.width(),
            grid.height(),
            grid.width(),
            grid.height()
        )));
    }
    if !grid.is_free(c) {
        let why = match class.label() {
            None => "is on a blocked cell".to_string(),
            Some(name) => format!(
                "is not open for a {name} agent (its {k}x{k} square from there leaves the map or covers a cell it cannot stand on)",
                k = class.movement.size()
            ),
        };
        return Err(CliError::input(format!(
            "{}: {what} {c} {why}",
            map.display()
        )));
    }
    Ok(())
}

/// Loads a `.map` file or an obstacle bitmap.
pub fn load_map(path: &Path, opts: &MapOptions) -> Result<Grid, CliError> {
    let bo = opts.bitmap_options()?;
    Ok(io::load_grid(path, &bo)?)
}

/// Builds the search structure within `max_memory` bytes, timing it; returns the map and
/// the build time in ms.
pub fn build(
    grid: &Grid,
    mode: Mode,
    map: &Path,
    max_memory: usize,
) -> Result<(HpaMap, f64), CliError> {
    let t = Instant::now();
    let config = Config::from(mode).with_max_memory(Some(max_memory));
    let hpa = HpaMap::new(grid.clone(), config).map_err(|e| build_error(map, e))?;
    Ok((hpa, t.elapsed().as_secs_f64() * 1e3))
}

/// A loaded scenario file with its map.
pub struct ScenSet {
    pub scen_path: PathBuf,
    pub scen: io::ScenarioFile,
    pub map_path: PathBuf,
    pub grid: Grid,
}

/// A scenario file of either kind, loaded and checked.
pub enum Loaded {
    /// Moving AI `version 1`: queries on a fixed map.
    Static(ScenSet),
    /// GPPC `version 2`: queries and patches on a map that starts empty.
    Dynamic(replay::DynamicSet),
}

/// Reads a scenario file of either kind. A static one gets its map found (unless `map` is
/// given), loaded and checked against every query; a dynamic one brings its patches and
/// has no map to give.
pub fn load_any(
    scen_path: &Path,
    map: Option<&Path>,
    opts: &MapOptions,
) -> Result<Loaded, CliError> {
    match io::read_any_scen(scen_path)? {
        io::AnyScenarioFile::Static(scen) => {
            load_scen(scen_path, scen, map, opts).map(Loaded::Static)
        }
        io::AnyScenarioFile::Dynamic(scen) => {
            if let Some(m) = map {
                return Err(CliError::input(format!(
                    "{}: a version 2 scenario starts from an empty map and lays its own patches; --map {} does not apply",
                    scen_path.display(),
                    m.display()
                )));
            }
            Ok(Loaded::Dynamic(replay::DynamicSet {
                scen_path: scen_path.to_path_buf(),
                scen,
            }))
        }
        _ => Err(CliError::input(format!(
            "{}: this kind of scenario file is read by the library but not run by this command",
            scen_path.display()
        ))),
    }
}

/// Finds the map of a static scenario file (unless `map` is given), loads it and checks
/// every query against it.
fn load_scen(
    scen_path: &Path,
    scen: io::ScenarioFile,
    map: Option<&Path>,
    opts: &MapOptions,
) -> Result<ScenSet, CliError> {
    let map_path = match map {
        Some(m) => m.to_path_buf(),
        None => io::resolve_map_path(scen_path).ok_or_else(|| {
            let first = scen.entries.first().map(|s| s.map.as_str());
            let tried: Vec<String> = io::map_path_candidates(scen_path, first)
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            CliError::input(format!(
                "{}: cannot find the map of this scenario file (tried {}); give it with --map",
                scen_path.display(),
                if tried.is_empty() {
                    "nothing".to_string()
                } else {
                    tried.join(", ")
                }
            ))
        })?,
    };
    let grid = load_map(&map_path, opts)?;
    scen.validate_against(&grid)
        .map_err(|e| CliError::input(format!("{e} (map {})", map_path.display())))?;
    Ok(ScenSet {
        scen_path: scen_path.to_path_buf(),
        scen,
        map_path,
        grid,
    })
}

/// Which queries of a file to run: the first `limit`, or `sample` spread evenly, or all.
pub fn select_queries(total: usize, limit: Option<usize>, sample: Option<usize>) -> Vec<usize> {
    let n = limit.map_or(total, |l| l.min(total));
    match sample {
        Some(s) if s < n => (0..s).map(|i| i * n / s).collect(),
        _ => (0..n).collect(),
    }
}

fn main() {
    std::process::exit(run());
}

/// Parses the command line, runs it and returns the exit status. Usage errors and `--help`
/// are handled by clap (status 2 and 0).
fn run() -> i32 {
    std::panic::set_hook(Box::new(|info| {
        output::warn(&format!(
            "quadpath: internal error (a bug, please report it): {info}"
        ));
    }));
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Find(a) => find::run(a),
        Command::Flow(a) => flow::run(a),
        Command::Scen(a) => scen::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Info(a) => info::run(a),
        Command::Render(a) => render::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            output::warn(&format!("quadpath: error: {}", e.message));
            e.code
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn cells_parse() {
        assert_eq!(parse_cell("start", " 3, 4").unwrap(), Cell::new(3, 4));
        for bad in ["3", "3;4", "a,4", "-1,2", "3,4,5", "", "99999999999,1"] {
            let e = parse_cell("start", bad).unwrap_err();
            assert_eq!(e.code, EXIT_INPUT, "{bad}");
            assert!(e.message.contains("start"), "{}", e.message);
        }
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("64KiB"), Ok(64 << 10));
        assert_eq!(parse_size(" 3gb "), Ok(3 << 30));
        for bad in [
            "",
            "M",
            "12X",
            "-1G",
            "1.5G",
            "99999999999999999999T",
            "9999999999T",
        ] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        let info = "MemTotal:       24576000 kB\nMemFree: 1 kB\n";
        assert_eq!(mem_total(info), Some(24576000 * 1024));
        assert_eq!(mem_total("nothing"), None);
        assert!(MemoryOptions::default().limit() > 0);
    }

    #[test]
    fn samples_are_spread_evenly() {
        assert_eq!(select_queries(10, None, Some(5)), vec![0, 2, 4, 6, 8]);
        assert_eq!(select_queries(10, Some(3), None), vec![0, 1, 2]);
        assert_eq!(select_queries(3, None, Some(5)), vec![0, 1, 2]);
        assert_eq!(select_queries(10, Some(4), Some(2)), vec![0, 2]);
    }
}
