//! Judging answers against what a scenario file expects (legal, as long as the optimum,
//! within tolerance), and the tallies, summaries and path lines `scen` and `bench` print.

use crate::class::ClassKeys;
use crate::error::CliError;
use crate::expected::Expected;
use crate::load::qps;
use crate::options::mode_name;
use crate::output::{self, cell_json, cells_json};
use quadpath::io;
use quadpath::{Grid, Mode, Path, QueryError, TerrainCosts};
use serde::Serialize;
use std::io::Write;

/// How many invalid queries are described on stderr before the rest are only counted.
pub const MAX_REPORTED: usize = 10;

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
