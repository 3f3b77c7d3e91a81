//! `quadpath scen`: run and check every query of a Moving AI scenario file.

use super::output::{self, cell_json, cells_json};
use super::{
    build, load_scen, mode_name, select_queries, CliError, MapOptions, MemoryOptions, ModeArg,
    EXIT_FAILED, EXIT_OK,
};
use clap::Args;
use quadpath::io::{self, Scenario};
use quadpath::{validate, Grid, Mode, Path, QueryError};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// How many invalid queries are described on stderr before the rest are only counted.
const MAX_REPORTED: usize = 10;

#[derive(Args, Debug)]
pub struct ScenArgs {
    /// A Moving AI .scen file
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
    #[command(flatten)]
    pub map_opts: MapOptions,
    #[command(flatten)]
    pub memory: MemoryOptions,
}

/// How one query went, judged against its scenario line.
pub struct Verdict {
    /// length / optimal − 1 for a valid path (0 within the tolerance).
    pub subopt: Option<f64>,
    /// The goal was reported unreachable (or an end blocked).
    pub unreachable: bool,
    /// Why the result is wrong, if it is.
    pub invalid: Option<String>,
}

/// Suboptimality of a path of `length` against the scenario's optimal length: 0 within
/// [`Scenario::tolerance`] (scenario files round their lengths) and for an optimal length of 0.
pub fn subopt(length: f64, s: &Scenario) -> f64 {
    if length <= s.optimal + s.tolerance() || s.optimal <= 0.0 {
        0.0
    } else {
        length / s.optimal - 1.0
    }
}

/// Checks a search result: a legal path from start to goal whose length is not below the
/// optimal (beyond [`Scenario::tolerance`]) and, in exact mode, not above it either: exact
/// mode promises optimal paths. Scenario queries are always solvable, so "unreachable" is
/// wrong too.
pub fn judge(grid: &Grid, s: &Scenario, mode: Mode, result: &Result<Path, QueryError>) -> Verdict {
    match result {
        Ok(p) => {
            let tol = s.tolerance();
            let invalid = match validate(grid, s.start, s.goal, p) {
                Err(d) => Some(d.to_string()),
                Ok(()) if p.length < s.optimal - tol => Some(format!(
                    "length {:.6} is shorter than the optimal {:.6}",
                    p.length, s.optimal
                )),
                Ok(()) if mode == Mode::Exact && p.length > s.optimal + tol => Some(format!(
                    "length {:.6} is longer than the optimal {:.6}, in exact mode",
                    p.length, s.optimal
                )),
                Ok(()) => None,
            };
            let subopt = invalid.is_none().then(|| subopt(p.length, s));
            Verdict {
                subopt,
                unreachable: false,
                invalid,
            }
        }
        Err(e) => Verdict {
            subopt: None,
            unreachable: true,
            invalid: Some(format!(
                "{e}, but the scenario gives an optimal length of {}",
                s.optimal
            )),
        },
    }
}

/// The `--json` summary: exactly these keys.
#[derive(Serialize)]
struct Summary {
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
}

/// One line of `--paths`.
#[derive(Serialize)]
struct PathLine {
    id: usize,
    start: [u32; 2],
    goal: [u32; 2],
    optimal: f64,
    length: Option<f64>,
    path: Vec<[u32; 2]>,
    query_us: f64,
}

pub fn run(a: ScenArgs) -> Result<i32, CliError> {
    let set = load_scen(&a.scen, a.map.as_deref(), &a.map_opts)?;
    let mode = a.mode.mode();
    // Created before the long work, so that an unwritable path fails at once; finished
    // explicitly, so that a full disk is reported instead of lost.
    let mut paths_out = a.paths.as_ref().map(io::OutputFile::create).transpose()?;

    let (hpa, build_ms) = build(&set.grid, mode, &set.map_path, a.memory.limit())?;
    let ids = select_queries(set.scen.entries.len(), a.limit, None);
    let pb = output::progress(ids.len(), mode_name(mode), a.json);
    let (mut solved, mut unreachable, mut invalid) = (0, 0, 0);
    let mut subopts = Vec::with_capacity(ids.len());
    let mut times = Vec::with_capacity(ids.len());
    for &id in &ids {
        let s = &set.scen.entries[id];
        let t = Instant::now();
        let result = hpa.find_path(s.start, s.goal);
        let query_us = t.elapsed().as_secs_f64() * 1e6;
        times.push(query_us);
        let v = judge(&set.grid, s, mode, &result);
        if result.is_ok() {
            solved += 1;
        }
        unreachable += v.unreachable as usize;
        if let Some(why) = &v.invalid {
            invalid += 1;
            if invalid <= MAX_REPORTED {
                output::warn(&format!(
                    "quadpath: invalid: {}:{}: {} -> {}: {why}",
                    set.scen_path.display(),
                    s.line,
                    s.start,
                    s.goal
                ));
            }
        }
        subopts.extend(v.subopt);
        if let Some(w) = paths_out.as_mut() {
            let line = PathLine {
                id,
                start: cell_json(s.start),
                goal: cell_json(s.goal),
                optimal: s.optimal,
                length: result.as_ref().ok().map(|p| p.length),
                path: result
                    .as_ref()
                    .map(|p| cells_json(&p.cells))
                    .unwrap_or_default(),
                query_us: output::round(query_us, 2),
            };
            w.write_all(output::json_line(&line)?.as_bytes())
                .map_err(|e| w.error(e))?;
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    if let Some(w) = paths_out {
        w.finish()?;
    }
    if invalid > MAX_REPORTED {
        output::warn(&format!(
            "quadpath: invalid: ... and {} more",
            invalid - MAX_REPORTED
        ));
    }

    let total_ms = output::sum(&times) / 1e3;
    let text = if a.json {
        output::json_line(&Summary {
            queries: ids.len(),
            solved,
            unreachable,
            invalid,
            mean_subopt: output::round(output::mean(&subopts), 8),
            p99_subopt: output::round(output::percentile(&subopts, 0.99), 8),
            max_subopt: output::round(output::max(&subopts), 8),
            build_ms: output::round(build_ms, 4),
            median_query_us: output::round(output::median(&times), 3),
            total_query_ms: output::round(total_ms, 4),
        })?
    } else {
        let mut s = String::new();
        s += &format!(
            "{}: {} queries on {} ({}x{}), {} mode\n",
            set.scen_path.display(),
            ids.len(),
            set.map_path.display(),
            set.grid.width(),
            set.grid.height(),
            mode_name(mode)
        );
        s += &format!("  solved          {solved}\n");
        s += &format!("  unreachable     {unreachable}\n");
        s += &format!("  invalid         {invalid}\n");
        s += &format!(
            "  suboptimality   mean {}, p50 {}, p99 {}, max {}\n",
            output::pct(output::mean(&subopts)),
            output::pct(output::percentile(&subopts, 0.5)),
            output::pct(output::percentile(&subopts, 0.99)),
            output::pct(output::max(&subopts))
        );
        s += &format!("  build           {}\n", output::ms(build_ms));
        s += &format!(
            "  query time      median {}, total {}\n",
            output::us(output::median(&times)),
            output::ms(total_ms)
        );
        if let Some(p) = &a.paths {
            s += &format!("  paths           {}\n", p.display());
        }
        s
    };
    output::emit(&text)?;
    Ok(if invalid > 0 { EXIT_FAILED } else { EXIT_OK })
}
