//! `quadpath scen`: run and check every query of a Moving AI scenario file.

use crate::class::{ClassCosts, ClassKeys, ClassOptions};
use crate::output::{self, cell_json, cells_json};
use crate::{
    load_any, mode_name, qps, select_queries, thread_pool, CliError, Loaded, MapOptions,
    MemoryOptions, ModeArg, ThreadOptions, EXIT_FAILED, EXIT_OK,
};
use clap::Args;
use quadpath::io::{self, DynamicQuery, Scenario};
use quadpath::{Cell, Grid, Mode, Path, QueryError, TerrainCosts};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// How many invalid queries are described on stderr before the rest are only counted.
pub const MAX_REPORTED: usize = 10;

#[derive(Args, Debug)]
pub struct ScenArgs {
    /// A Moving AI .scen file, or a GPPC dynamic (version 2) scenario with its patch file
    #[arg(value_name = "SCEN")]
    pub scen: PathBuf,
    /// The map, when it is not beside the scenario file under the usual name
    #[arg(long, value_name = "MAP")]
    pub map: Option<PathBuf>,
    /// Which structure to search
    #[arg(long, value_enum, default_value_t)]
    pub mode: ModeArg,
    /// Run only the first N queries
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Write every query and its path to this file, one JSON object per line
    #[arg(long, value_name = "OUT.jsonl")]
    pub paths: Option<PathBuf>,
    /// Print the summary as one JSON object
    #[arg(long)]
    pub json: bool,
    /// Dynamic (version 2) scenarios: the refresh work edits defer that is done before each
    /// query: `all`, `none`, or a budget in microseconds, as a game would spend per frame
    #[arg(long, value_name = "BUDGET", default_value = "1000", value_parser = crate::replay::parse_refresh)]
    pub refresh: crate::replay::RefreshPolicy,
    #[command(flatten)]
    pub class: ClassOptions,
    #[command(flatten)]
    pub costs: ClassCosts,
    #[command(flatten)]
    pub map_opts: MapOptions,
    #[command(flatten)]
    pub memory: MemoryOptions,
    #[command(flatten)]
    pub threads: ThreadOptions,
}

/// What a scenario file says about one query.
pub struct Expected {
    pub start: Cell,
    pub goal: Cell,
    /// The optimal length (the optimal cost under terrain costs), or `None` when the goal
    /// is unreachable.
    pub optimal: Option<f64>,
    /// How far a length or cost may be from `optimal` and still equal it (files round
    /// them).
    pub tolerance: f64,
    /// The query's line in its file, for messages.
    pub line: usize,
}

impl From<&Scenario> for Expected {
    fn from(s: &Scenario) -> Self {
        Expected {
            start: s.start,
            goal: s.goal,
            optimal: Some(s.optimal),
            tolerance: s.tolerance(),
            line: s.line,
        }
    }
}

impl From<&DynamicQuery> for Expected {
    fn from(q: &DynamicQuery) -> Self {
        Expected {
            start: q.start,
            goal: q.goal,
            optimal: q.optimal,
            tolerance: q.tolerance(),
            line: q.line,
        }
    }
}

/// How one query went, judged against its scenario line.
pub struct Verdict {
    /// length / optimal − 1 for a valid path (0 within the tolerance).
    pub subopt: Option<f64>,
    /// The goal was reported unreachable (or an end blocked).
    pub unreachable: bool,
    /// Reported unreachable although the file gives a length.
    pub false_unreachable: bool,
    /// A path found although the file says there is none.
    pub false_reachable: bool,
    /// Why the result is wrong, if it is.
    pub invalid: Option<String>,
}

/// Suboptimality of a path of `length` against an optimal length: 0 within `tolerance`
/// (scenario files round their lengths) and for an optimal length of 0.
pub fn subopt(length: f64, optimal: f64, tolerance: f64) -> f64 {
    if length <= optimal + tolerance || optimal <= 0.0 {
        0.0
    } else {
        length / optimal - 1.0
    }
}

/// Checks a search result on `grid` (the map as it stands when the query runs) whose terrain
/// codes cost `costs`: a legal path from start to goal, claiming its true length and cost,
/// whose cost (its length at unit costs) is not below the optimal (beyond the tolerance)
/// and, in exact mode, not above it either, since exact mode promises optimal paths; or
/// "unreachable" exactly when the reference says so.
pub fn judge(
    grid: &Grid,
    costs: &TerrainCosts,
    e: &Expected,
    mode: Mode,
    result: &Result<Path, QueryError>,
) -> Verdict {
    // What the paths are measured by, for messages: lengths stay lengths at unit costs.
    let what = if costs.is_unit() { "length" } else { "cost" };
    let mut verdict = Verdict {
        subopt: None,
        unreachable: result.is_err(),
        false_unreachable: false,
        false_reachable: false,
        invalid: None,
    };
    match (result, e.optimal) {
        (Ok(p), None) => {
            verdict.false_reachable = true;
            verdict.invalid = Some(format!(
                "found a path of {what} {:.6}, but the reference says the goal is unreachable",
                p.cost
            ));
        }
        (Ok(p), Some(optimal)) => {
            let tol = e.tolerance;
            // At unit costs a path's cost is its length, checked as such.
            verdict.invalid = match p.validate(grid, costs, e.start, e.goal) {
                Err(d) => Some(d.to_string()),
                Ok(()) if p.cost < optimal - tol => Some(format!(
                    "{what} {:.6} is {} than the optimal {optimal:.6}",
                    p.cost,
                    if costs.is_unit() { "shorter" } else { "lower" }
                )),
                Ok(()) if mode == Mode::Exact && p.cost > optimal + tol => Some(format!(
                    "{what} {:.6} is {} than the optimal {optimal:.6}, in exact mode",
                    p.cost,
                    if costs.is_unit() { "longer" } else { "higher" }
                )),
                Ok(()) => None,
            };
            if verdict.invalid.is_none() {
                verdict.subopt = Some(subopt(p.cost, optimal, tol));
            }
        }
        (Err(err), Some(optimal)) => {
            verdict.false_unreachable = true;
            verdict.invalid = Some(format!(
                "{err}, but the reference gives an optimal {what} of {optimal}"
            ));
        }
        (Err(_), None) => {}
    }
    verdict
}

/// [`judge`] of a batch answer, which must also be the sequential call's answer: the batch
/// promises the same paths, so any difference is a defect of its own, reported as one.
pub fn judge_batch(
    grid: &Grid,
    costs: &TerrainCosts,
    e: &Expected,
    mode: Mode,
    batch: &Result<Path, QueryError>,
    sequential: &Result<Path, QueryError>,
) -> Verdict {
    let mut verdict = judge(grid, costs, e, mode, batch);
    if batch != sequential && verdict.invalid.is_none() {
        let describe = |r: &Result<Path, QueryError>| match r {
            Ok(p) => format!(
                "length {:.6} (cost {:.6}) over {} cells",
                p.length,
                p.cost,
                p.cells.len()
            ),
            Err(err) => err.to_string(),
        };
        verdict.invalid = Some(format!(
            "the batch answered {}, the sequential call {}",
            describe(batch),
            describe(sequential)
        ));
    }
    verdict
}

/// How fast a batch of queries was answered: on how many threads, and how many queries per
/// second of wall time.
#[derive(Serialize, Clone, Copy, Debug)]
pub struct Throughput {
    pub threads: usize,
    pub qps: f64,
}

impl Throughput {
    /// `queries` answered in `seconds` of wall time on `threads` threads.
    pub fn new(threads: usize, queries: usize, seconds: f64) -> Self {
        Throughput {
            threads,
            qps: qps(queries, seconds),
        }
    }
}

/// The `--json` summary: exactly these keys (a dynamic scenario's adds its own after them,
/// a non-default movement class `class` and `skipped`).
#[derive(Serialize)]
pub struct Summary {
    queries: usize,
    solved: usize,
    unreachable: usize,
    invalid: usize,
    mean_subopt: f64,
    p99_subopt: f64,
    max_subopt: f64,
    build_ms: f64,
    median_query_us: f64,
    total_query_ms: f64,
    #[serde(flatten)]
    throughput: Throughput,
    #[serde(flatten)]
    class: ClassKeys,
}

impl Summary {
    /// The summary of a run: its verdicts, build time, per-query times (µs), one for each
    /// query run, and the throughput; skipped queries count among the queries.
    pub fn new(tally: &Tally, build_ms: f64, times: &[f64], throughput: Throughput) -> Self {
        let subopts = &tally.subopts;
        Summary {
            queries: times.len() + tally.skipped,
            solved: tally.solved,
            unreachable: tally.unreachable,
            invalid: tally.invalid,
            mean_subopt: output::round(output::mean(subopts), 8),
            p99_subopt: output::round(output::percentile(subopts, 0.99), 8),
            max_subopt: output::round(output::max(subopts), 8),
            build_ms: output::round(build_ms, 4),
            median_query_us: output::round(output::median(times), 3),
            total_query_ms: output::round(output::sum(times) / 1e3, 4),
            throughput,
            class: ClassKeys::default(),
        }
    }

    /// This summary naming a non-default movement class and its skipped queries.
    pub fn with_class(self, class: ClassKeys) -> Self {
        Summary { class, ..self }
    }
}

/// The text summary's last lines, shared by both kinds of file: suboptimality, build
/// (`build_note` after its time), query times, throughput (`throughput_note` after it) and
/// the `--paths` file.
pub fn closing_lines(
    tally: &Tally,
    (build_ms, build_note): (f64, &str),
    times: &[f64],
    (throughput, throughput_note): (Throughput, &str),
    paths: Option<&std::path::Path>,
) -> String {
    let subopts = &tally.subopts;
    let mut s = format!(
        "  suboptimality   mean {}, p50 {}, p99 {}, max {}\n",
        output::pct(output::mean(subopts)),
        output::pct(output::percentile(subopts, 0.5)),
        output::pct(output::percentile(subopts, 0.99)),
        output::pct(output::max(subopts))
    );
    s += &format!("  build           {}{build_note}\n", output::ms(build_ms));
    s += &format!(
        "  query time      median {}, total {}\n",
        output::us(output::median(times)),
        output::ms(output::sum(times) / 1e3)
    );
    s += &format!(
        "  throughput      {} on {} thread{}{throughput_note}\n",
        output::rate(throughput.qps),
        throughput.threads,
        if throughput.threads == 1 { "" } else { "s" }
    );
    if let Some(p) = paths {
        s += &format!("  paths           {}\n", p.display());
    }
    s
}

/// One line of `--paths`: `id` is the index of the query among the file's queries;
/// `optimal` (the optimal cost under terrain costs) is null for a query the reference says
/// is unreachable, `length` and `cost` null and `path` empty when no path was found.
#[derive(Serialize)]
struct PathLine {
    id: usize,
    start: [u32; 2],
    goal: [u32; 2],
    optimal: Option<f64>,
    length: Option<f64>,
    /// What the path costs: `length` at unit costs.
    cost: Option<f64>,
    path: Vec<[u32; 2]>,
    query_us: f64,
}

/// Writes one line of `--paths` to `out`, if there is one.
pub fn write_path_line(
    out: Option<&mut io::OutputFile>,
    id: usize,
    e: &Expected,
    result: &Result<Path, QueryError>,
    query_us: f64,
) -> Result<(), CliError> {
    let Some(w) = out else { return Ok(()) };
    let line = PathLine {
        id,
        start: cell_json(e.start),
        goal: cell_json(e.goal),
        optimal: e.optimal,
        length: result.as_ref().ok().map(|p| p.length),
        cost: result.as_ref().ok().map(|p| p.cost),
        path: result
            .as_ref()
            .map(|p| cells_json(&p.cells))
            .unwrap_or_default(),
        query_us: output::round(query_us, 2),
    };
    w.write_all(output::json_line(&line)?.as_bytes())
        .map_err(|e| w.error(e).into())
}

/// The verdicts of a run so far; the first few invalid results are described on stderr.
#[derive(Default)]
pub struct Tally {
    pub solved: usize,
    pub unreachable: usize,
    pub false_unreachable: usize,
    pub false_reachable: usize,
    pub invalid: usize,
    /// Queries not run: their start or goal is not open for the movement class.
    pub skipped: usize,
    /// Suboptimality of each valid path.
    pub subopts: Vec<f64>,
}

impl Tally {
    /// Counts the verdict on query `e` of `file`. An invalid one among the first `report`
    /// is described on stderr as `quadpath: invalid[ (MODE mode)]: FILE:LINE: START -> GOAL:
    /// why`, the mode named when a run compares several.
    pub fn add(
        &mut self,
        v: Verdict,
        report: usize,
        file: &std::path::Path,
        e: &Expected,
        mode: Option<Mode>,
    ) {
        self.solved += !v.unreachable as usize;
        self.unreachable += v.unreachable as usize;
        self.false_unreachable += v.false_unreachable as usize;
        self.false_reachable += v.false_reachable as usize;
        if let Some(why) = &v.invalid {
            self.invalid += 1;
            if self.invalid <= report {
                let mode = mode.map_or(String::new(), |m| format!(" ({} mode)", mode_name(m)));
                output::warn(&format!(
                    "quadpath: invalid{mode}: {}:{}: {} -> {}: {why}",
                    file.display(),
                    e.line,
                    e.start,
                    e.goal
                ));
            }
        }
        self.subopts.extend(v.subopt);
    }

    /// Says on stderr how many invalid results were not described.
    pub fn finish(&self, reported: usize) {
        if self.invalid > reported {
            output::warn(&format!(
                "quadpath: invalid: ... and {} more",
                self.invalid - reported
            ));
        }
    }
}

pub fn run(a: ScenArgs) -> Result<i32, CliError> {
    let class = a.class.class_with(&a.costs)?;
    let threads = a.threads.count()?;
    let set = match load_any(&a.scen, a.map.as_deref(), &a.map_opts)? {
        Loaded::Static(set) => set,
        Loaded::Dynamic(set) => {
            class.refuse_dynamic(&a.scen)?;
            return crate::replay::scen(&a, set);
        }
    };
    let problem = class.problem(&set.grid, &set.map_path)?;
    let mode = a.mode.mode();
    // Created before the long work, so that an unwritable path fails at once; finished
    // explicitly, so that a full disk is reported instead of lost.
    let mut paths_out = a.paths.as_ref().map(io::OutputFile::create).transpose()?;

    let (layer, build_ms) =
        class.build(&set.grid, &problem, mode, &set.map_path, a.memory.limit())?;
    let hpa = layer.map();
    let ids = select_queries(set.scen.entries.len(), a.limit, None);
    let mut tally = Tally::default();
    // The queries the class can stand at, with what the file (or the A* reference) says
    // of them.
    let mut runs = Vec::with_capacity(ids.len());
    for &id in &ids {
        match class.expected(&problem, &set.scen.entries[id]) {
            Some(expected) => runs.push((id, expected)),
            None => tally.skipped += 1,
        }
    }
    // The answers come from one batch on the pool; the per-query times from a second,
    // single-threaded pass, whose answers the batch's must equal.
    let queries: Vec<(Cell, Cell)> = runs.iter().map(|(_, e)| (e.start, e.goal)).collect();
    let pool = thread_pool(threads)?;
    let t = Instant::now();
    let answers = pool.install(|| hpa.find_paths(&queries));
    let throughput = Throughput::new(threads, queries.len(), t.elapsed().as_secs_f64());
    drop(pool);
    let pb = output::progress(runs.len(), mode_name(mode), a.json);
    let mut times = Vec::with_capacity(runs.len());
    for ((id, expected), answer) in runs.iter().zip(&answers) {
        pb.inc(1);
        let t = Instant::now();
        let sequential = hpa.find_path(expected.start, expected.goal);
        let query_us = t.elapsed().as_secs_f64() * 1e6;
        times.push(query_us);
        let v = judge_batch(
            &problem.open,
            &problem.costs,
            expected,
            mode,
            answer,
            &sequential,
        );
        tally.add(v, MAX_REPORTED, &set.scen_path, expected, None);
        write_path_line(paths_out.as_mut(), *id, expected, answer, query_us)?;
    }
    pb.finish_and_clear();
    if let Some(w) = paths_out {
        w.finish()?;
    }
    tally.finish(MAX_REPORTED);
    class.require_some_open(&set.scen_path, ids.len(), tally.skipped)?;

    let class_keys = ClassKeys::new(&class, tally.skipped);
    let text = if a.json {
        output::json_line(
            &Summary::new(&tally, build_ms, &times, throughput).with_class(class_keys),
        )?
    } else {
        let mut s = format!(
            "{}: {} queries on {} ({}x{}), {} mode\n",
            set.scen_path.display(),
            ids.len(),
            set.map_path.display(),
            set.grid.width(),
            set.grid.height(),
            mode_name(mode)
        );
        s += &format!("  solved          {}\n", tally.solved);
        s += &format!("  unreachable     {}\n", tally.unreachable);
        s += &format!("  invalid         {}\n", tally.invalid);
        s += &class_keys.lines();
        s += &closing_lines(
            &tally,
            (build_ms, ""),
            &times,
            (throughput, " (one batch)"),
            a.paths.as_deref(),
        );
        s
    };
    output::emit(&text)?;
    Ok(if tally.invalid > 0 {
        EXIT_FAILED
    } else {
        EXIT_OK
    })
}
