//! `quadpath scen`: run and check every query of a Moving AI scenario file.

use crate::class::ClassKeys;
use crate::error::{CliError, EXIT_FAILED, EXIT_OK};
use crate::expected::Expected;
use crate::judge::{
    closing_lines, judge, judge_batch, write_path_line, Summary, Tally, Throughput, MAX_REPORTED,
};
use crate::load::{build, DynamicSet};
use crate::load::{load_any, select_queries, thread_pool, Loaded};
use crate::options::SearchOptions;
use crate::options::{mode_name, ModeArg, ThreadOptions};
use crate::output::{self};
use crate::replay::{self, ask, lay, steps, Clock, Step};
use clap::Args;
use quadpath::io::{self};
use quadpath::{Cell, TerrainCosts};
use std::path::PathBuf;
use std::time::Instant;

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
    #[arg(long, value_name = "BUDGET", default_value = "1000", value_parser = crate::options::parse_refresh)]
    pub refresh: crate::options::RefreshPolicy,
    #[command(flatten)]
    pub search: SearchOptions,
    #[command(flatten)]
    pub threads: ThreadOptions,
}

pub fn run(a: ScenArgs) -> Result<i32, CliError> {
    let class = a.search.class()?;
    let threads = a.threads.count()?;
    let set = match load_any(&a.scen, a.map.as_deref(), &a.search.map_opts)? {
        Loaded::Static(set) => set,
        Loaded::Dynamic(set) => {
            class.refuse_dynamic(&a.scen)?;
            return run_dynamic(&a, set);
        }
    };
    let problem = class.problem(&set.grid, &set.map_path)?;
    let mode = a.mode.mode();
    // Created before the long work, so that an unwritable path fails at once; finished
    // explicitly, so that a full disk is reported instead of lost.
    let mut paths_out = a.paths.as_ref().map(io::OutputFile::create).transpose()?;

    let (layer, build_ms) = class.build(
        &set.grid,
        &problem,
        mode,
        &set.map_path,
        a.search.memory.limit(),
    )?;
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

/// `quadpath scen` on a dynamic file.
fn run_dynamic(a: &ScenArgs, set: DynamicSet) -> Result<i32, CliError> {
    let mode = a.mode.mode();
    let mut paths_out = a.paths.as_ref().map(io::OutputFile::create).transpose()?;
    let mut grid = set.initial_grid(a.search.memory.limit())?;
    let (mut hpa, build_ms) = build(&grid, mode, &set.scen_path, a.search.memory.limit())?;
    let ids = select_queries(set.scen.query_count(), a.limit, None);
    let pb = output::progress(ids.len(), mode_name(mode), a.json);

    let mut clock = Clock::default();
    let (mut patches, mut cells_changed, mut rebuilds) = (0, 0, 0);
    let mut tally = Tally::default();
    for step in steps(&set.scen, &ids) {
        let (id, q) = match step {
            Step::Patch(p, patch) => {
                let (changed, rebuilt) = lay(&mut hpa, p, patch, &mut clock);
                // The checker's own copy of the map, patched without the search structure.
                grid.apply_patch(p.at, patch);
                patches += 1;
                cells_changed += changed;
                rebuilds += rebuilt as usize;
                continue;
            }
            Step::Query(id, q) => (id, q),
        };
        let result = ask(&mut hpa, q, a.refresh, &mut clock);
        let expected = Expected::from(q);
        let v = judge(&grid, &TerrainCosts::unit(), &expected, mode, &result);
        tally.add(v, MAX_REPORTED, &set.scen_path, &expected, None);
        let query_us = *clock.queries.last().expect("just timed");
        write_path_line(paths_out.as_mut(), id, &expected, &result, query_us)?;
        pb.inc(1);
    }
    pb.finish_and_clear();
    if let Some(w) = paths_out {
        w.finish()?;
    }
    tally.finish(MAX_REPORTED);

    let edit_total_ms = output::sum(&clock.edits) / 1e3;
    let refresh_total_ms = output::sum(&clock.refreshes) / 1e3;
    // Edits come between the queries, so the replay asks them one at a time on this thread
    // whatever `--threads` says; its throughput is that of the query times alone.
    let answered = clock.queries.len();
    let throughput = Throughput::new(1, answered, output::sum(&clock.queries) / 1e6);
    let text = if a.json {
        output::json_line(&replay::Summary {
            queries: crate::judge::Summary::new(&tally, build_ms, &clock.queries, throughput),
            queries_answered: answered,
            false_unreachable: tally.false_unreachable,
            false_reachable: tally.false_reachable,
            patches,
            cells_changed,
            rebuilds,
            edit_total_ms: output::round(edit_total_ms, 4),
            edit_median_us: output::round(output::median(&clock.edits), 3),
            refresh_total_ms: output::round(refresh_total_ms, 4),
            refreshes: clock.refreshes.len(),
        })?
    } else {
        let mut s = format!(
            "{}: {} queries and {patches} patches on a {}x{} map that starts empty, {} mode\n",
            set.scen_path.display(),
            ids.len(),
            set.scen.width,
            set.scen.height,
            mode_name(mode)
        );
        s += &format!(
            "  patches         {patches} applied, {cells_changed} cells changed, {rebuilds} laid by a fresh build\n"
        );
        s += &format!(
            "  edit time       median {} per patch, total {}; deferred refresh {} before {} queries ({})\n",
            output::us(output::median(&clock.edits)),
            output::ms(edit_total_ms),
            output::ms(refresh_total_ms),
            clock.refreshes.len(),
            a.refresh.describe()
        );
        s += &format!("  answered        {}\n", clock.queries.len());
        s += &format!("  solved          {}\n", tally.solved);
        s += &format!(
            "  unreachable     {} (false unreachable {}, false reachable {})\n",
            tally.unreachable, tally.false_unreachable, tally.false_reachable
        );
        s += &format!("  invalid         {}\n", tally.invalid);
        s += &closing_lines(
            &tally,
            (build_ms, " (the empty map)"),
            &clock.queries,
            (throughput, " (sequential replay, query times only)"),
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
