//! The `quadpath` command-line tool: argument definitions, shared helpers and dispatch.
//!
//! A crate of its own (`quadpath-cli`), so that the library brings no CLI dependency. Each
//! subcommand has its own module; every failure becomes a [`CliError`](error::CliError), printed as one `quadpath: error: ...` line with the exit
//! status it carries.

//!
//! Data flows one way through the modules, each using only those listed before it:
//! `error`; `options` (the flag groups, flattened into every subcommand's arguments);
//! `expected` (what a scenario says about a query); `class` (the movement class the flags
//! describe); `output`; `load` (maps, scenario files, structures); `judge` and `rows`
//! (checking answers, the rows `bench` prints); `replay` (dynamic scenarios); then the
//! subcommands (`find`, `flow`, `info`, `render`, `scen`, `bench`), which only this file
//! dispatches to.

mod bench;
mod class;
mod error;
mod expected;
mod find;
mod flow;
mod info;
mod judge;
mod load;
mod options;
mod output;
mod render;
mod replay;
mod rows;
mod scen;
#[cfg(feature = "view")]
mod view;

use clap::{Parser, Subcommand};

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
    /// Serve an interactive viewer of a map on 127.0.0.1 and print its URL.
    #[cfg(feature = "view")]
    #[command(
        long_about = "Serve an interactive viewer of a map: a page on 127.0.0.1 (another interface\n\
only with --bind) that pans and zooms from the whole map down to single cells, draws the\n\
quadtree's leaves, the gates, reachability components, the class's clearance and the\n\
terrain costs, finds paths in both modes side by side (click a start, then a goal),\n\
builds flow fields (shift-click a goal) and edits the map live (paint walls, terrain or\n\
buildings; undo). Prints the URL, then serves until interrupted. See docs/viewer.md.\n\n\
Examples:\n  quadpath view maps/den312d.map\n  \
quadpath view maps/rts_valley.png --legend rts --size 2 --port 0",
        after_help = AFTER_HELP
    )]
    View(view::ViewArgs),
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
        #[cfg(feature = "view")]
        Command::View(a) => view::run(a),
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
}
