//! `quadpath bench`: quadpath against plain grid A*, interleaved query by query.

use crate::class::{Class, ClassCosts, ClassKeys, ClassOptions, Layer, Problem};
use crate::output;
use crate::scen::{judge_batch, Expected, Tally, Throughput};
use crate::{
    load_any, mode_name, replay, select_queries, thread_pool, CliError, Loaded, MapOptions,
    MemoryOptions, ModesArg, ScenSet, ThreadOptions, EXIT_FAILED, EXIT_OK,
};
use clap::{Args, ValueEnum};
use quadpath::{Cell, HpaMap, Mode, Path, QueryError};
use serde::Serialize;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// Untimed queries run first on each map, to warm caches and allocators.
const WARM_UP: usize = 3;

/// The least wall time a batch measurement takes: small files' batches are repeated until
/// then, so that their queries per second are not one timer tick's noise.
const MIN_BATCH_SECONDS: f64 = 0.05;

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Baseline {
    /// Plain grid A* (pathfinding::astar with octile successors; weighted with --costs)
    #[default]
    Astar,
    /// No baseline: time quadpath only
    None,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Moving AI .scen files; each map is found beside its scenario file
    #[arg(value_name = "SCEN", required = true)]
    pub scens: Vec<PathBuf>,
    /// Which quadpath modes to time
    #[arg(long, value_enum, default_value_t)]
    pub mode: ModesArg,
    /// What to compare against
    #[arg(long, value_enum, default_value_t)]
    pub baseline: Baseline,
    /// Run only the first N queries of each file
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Run N queries spread evenly over each file (covers every difficulty bucket)
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Print the rows as a JSON array of objects
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

/// One row: one map and one mode.
#[derive(Serialize)]
pub struct Row {
    pub scen: String,
    pub map: String,
    pub width: u32,
    pub height: u32,
    pub mode: &'static str,
    pub queries: usize,
    pub invalid: usize,
    pub mean_subopt: f64,
    pub max_subopt: f64,
    pub build_ms: f64,
    pub memory_bytes: usize,
    pub quadpath_median_us: f64,
    pub quadpath_total_ms: f64,
    pub astar_median_us: Option<f64>,
    pub astar_total_ms: Option<f64>,
    pub speedup_median: Option<f64>,
    pub speedup_total: Option<f64>,
    /// The flat bitmap the baseline searches (its per-search open and closed sets come on top).
    pub astar_memory_bytes: Option<usize>,
    /// The batch of all the row's queries on `--threads` threads (static files only):
    /// `threads` and `qps`.
    #[serde(flatten)]
    pub batch: BatchKeys,
    /// A non-default movement class and the queries it skipped (counted in `queries`).
    #[serde(flatten)]
    pub class: ClassKeys,
    /// For a dynamic scenario: the replay's edits and totals.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Replay>,
}

/// The speed-up `baseline / quadpath`, rounded; 0 when quadpath took no measurable time.
pub fn ratio(baseline: f64, quadpath: f64) -> f64 {
    if quadpath > 0.0 {
        output::round(baseline / quadpath, 3)
    } else {
        0.0
    }
}

/// What a row says about one map and mode, before the class and replay columns: the
/// rest follows from it.
pub struct RowFigures<'a> {
    pub scen: String,
    pub map: String,
    pub width: u32,
    pub height: u32,
    pub mode: Mode,
    pub queries: usize,
    pub tally: &'a Tally,
    pub build_ms: f64,
    pub memory_bytes: usize,
    /// quadpath's per-query times, µs.
    pub quadpath_us: &'a [f64],
    /// A*'s per-query times (µs) and the bytes of its bitmap, when it ran.
    pub astar: Option<(&'a [f64], usize)>,
}

impl Row {
    /// The row of `f`, with no class and no replay columns.
    pub fn new(f: RowFigures<'_>) -> Row {
        let median = output::median(f.quadpath_us);
        let total = output::sum(f.quadpath_us) / 1e3;
        let astar = f
            .astar
            .map(|(times, bytes)| (output::median(times), output::sum(times) / 1e3, bytes));
        Row {
            scen: f.scen,
            map: f.map,
            width: f.width,
            height: f.height,
            mode: mode_name(f.mode),
            queries: f.queries,
            invalid: f.tally.invalid,
            mean_subopt: output::round(output::mean(&f.tally.subopts), 8),
            max_subopt: output::round(output::max(&f.tally.subopts), 8),
            build_ms: output::round(f.build_ms, 4),
            memory_bytes: f.memory_bytes,
            quadpath_median_us: output::round(median, 3),
            quadpath_total_ms: output::round(total, 4),
            astar_median_us: astar.map(|(m, _, _)| output::round(m, 3)),
            astar_total_ms: astar.map(|(_, t, _)| output::round(t, 4)),
            speedup_median: astar.map(|(m, _, _)| ratio(m, median)),
            speedup_total: astar.map(|(_, t, _)| ratio(t, total)),
            astar_memory_bytes: astar.map(|(_, _, b)| b),
            batch: BatchKeys::default(),
            class: ClassKeys::default(),
            replay: None,
        }
    }
}

/// The batch columns of a row: null for a dynamic scenario, which is replayed in order.
#[derive(Serialize, Default)]
pub struct BatchKeys {
    pub threads: Option<usize>,
    /// Queries per second of the batch on `threads` threads.
    pub qps: Option<f64>,
    /// The same batch on one thread, for reference.
    pub qps_one_thread: Option<f64>,
    /// `qps / qps_one_thread`.
    pub thread_scaling: Option<f64>,
}

impl BatchKeys {
    /// The columns of a batch measured on `many` threads and on one.
    fn new(many: Throughput, one: Throughput) -> Self {
        BatchKeys {
            threads: Some(many.threads),
            qps: Some(many.qps),
            qps_one_thread: Some(one.qps),
            thread_scaling: Some(ratio(many.qps, one.qps)),
        }
    }
}

/// The extra columns of a dynamic scenario's row: patches are laid and queries asked in file
/// order, so the edits (with the refreshes they defer) count as much as the queries.
#[derive(Serialize)]
pub struct Replay {
    pub patches: usize,
    /// Laying the patches plus the deferred refreshes, ms.
    pub edit_total_ms: f64,
    /// Edits and queries, ms.
    pub replay_total_ms: f64,
    /// A* patching its bitmap, ms.
    pub astar_edit_total_ms: Option<f64>,
    pub astar_replay_total_ms: Option<f64>,
    /// A* replay total / quadpath replay total.
    pub speedup_replay: Option<f64>,
}

pub fn run(a: BenchArgs) -> Result<i32, CliError> {
    let class = a.class.class_with(&a.costs)?;
    let threads = a.threads.count()?;
    let modes = a.mode.modes();
    let with_astar = a.baseline == Baseline::Astar;
    for (flag, n) in [("--limit", a.limit), ("--sample", a.sample)] {
        if n == Some(0) {
            return Err(CliError::input(format!(
                "{flag} 0 runs no query; give at least 1"
            )));
        }
    }
    // Every file is read, its map found, loaded and checked before the first query, so that
    // a bad last file fails at once instead of after the others' results were computed.
    let sets = a
        .scens
        .iter()
        .map(|p| load_any(p, None, &a.map_opts))
        .collect::<Result<Vec<_>, _>>()?;
    // Each static file's problem for the class (its open positions and their costs), made
    // and checked before the first query like the files; dynamic files refuse a
    // non-default class and terrain costs.
    let problems = sets
        .iter()
        .map(|set| match set {
            Loaded::Static(set) => class.problem(&set.grid, &set.map_path).map(Some),
            Loaded::Dynamic(set) => class.refuse_dynamic(&set.scen_path).map(|()| None),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let selected: Vec<Vec<usize>> = sets
        .iter()
        .map(|set| {
            let total = match set {
                Loaded::Static(set) => set.scen.entries.len(),
                Loaded::Dynamic(set) => set.scen.query_count(),
            };
            select_queries(total, a.limit, a.sample)
        })
        .collect();
    if selected.iter().all(Vec::is_empty) {
        return Err(CliError::input(format!(
            "{}: no query to run: the scenario files are empty",
            a.scens
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let pools = (thread_pool(threads)?, thread_pool(1)?);
    let mut rows = Vec::new();
    for ((set, ids), problem) in sets.iter().zip(selected).zip(&problems) {
        let max_memory = a.memory.limit();
        rows.extend(match set {
            Loaded::Static(set) => {
                let problem = problem.as_ref().expect("made for every static file");
                let run = StaticRun {
                    modes: &modes,
                    with_astar,
                    max_memory,
                    quiet: a.json,
                    pools: (&pools.0, &pools.1),
                };
                bench_static(set, problem, &class, &ids, &run)?
            }
            Loaded::Dynamic(set) => {
                replay::bench(set, &ids, &modes, with_astar, a.refresh, max_memory, a.json)?
            }
        });
    }

    let text = if a.json {
        output::json_line(&rows)?
    } else {
        table(&rows)
    };
    output::emit(&text)?;
    let bad = rows.iter().any(|r| r.invalid > 0);
    Ok(if bad { EXIT_FAILED } else { EXIT_OK })
}

/// How to run a static scenario file.
struct StaticRun<'a> {
    modes: &'a [Mode],
    /// Whether to time plain A* beside quadpath.
    with_astar: bool,
    max_memory: usize,
    /// No progress bar.
    quiet: bool,
    /// The pools of `--threads` threads and of one thread the batches run on.
    pools: (&'a rayon::ThreadPool, &'a rayon::ThreadPool),
}

/// Answers `queries` on `pool` with [`HpaMap::find_paths`], after an untimed warm-up that
/// grows the workers' search contexts, and repeats the batch for at least
/// [`MIN_BATCH_SECONDS`]: the first pass's answers and the throughput of them all.
fn time_batch(
    pool: &rayon::ThreadPool,
    hpa: &HpaMap,
    queries: &[(Cell, Cell)],
) -> (Vec<Result<Path, QueryError>>, Throughput) {
    let threads = pool.current_num_threads();
    pool.install(|| {
        let warm = queries.len().min(WARM_UP * threads);
        black_box(hpa.find_paths(&queries[..warm]));
        let t = Instant::now();
        let answers = black_box(hpa.find_paths(queries));
        let mut passes = 1;
        while t.elapsed().as_secs_f64() < MIN_BATCH_SECONDS {
            black_box(hpa.find_paths(queries));
            passes += 1;
        }
        let seconds = t.elapsed().as_secs_f64();
        (
            answers,
            Throughput::new(threads, passes * queries.len(), seconds),
        )
    })
}

/// One static scenario file: each mode and, with `with_astar`, plain A* on the same queries,
/// interleaved; one row per mode. Both solve `problem`, the class's open positions and
/// their costs; a non-default class, or one with costs, takes the reference from A* there
/// (weighted A* with costs) and skips queries it cannot stand at.
fn bench_static(
    set: &ScenSet,
    problem: &Problem<'_>,
    class: &Class,
    ids: &[usize],
    run: &StaticRun<'_>,
) -> Result<Vec<Row>, CliError> {
    let (modes, with_astar) = (run.modes, run.with_astar);
    let open = &*problem.open;
    let mut rows = Vec::new();
    let mut maps: Vec<(Layer, f64)> = Vec::new();
    for &m in modes {
        maps.push(class.build(&set.grid, problem, m, &set.map_path, run.max_memory)?);
    }
    for &id in ids.iter().take(WARM_UP) {
        let s = &set.scen.entries[id];
        for (layer, _) in &maps {
            let _ = black_box(layer.map().find_path(s.start, s.goal));
        }
        if with_astar {
            black_box(problem.astar(s.start, s.goal));
        }
    }

    let name = set.map_path.file_name().map_or_else(
        || set.map_path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let pb = output::progress(ids.len(), &name, run.quiet);
    let m = maps.len();
    let mut times = vec![Vec::with_capacity(ids.len()); m];
    let mut tallies: Vec<Tally> = (0..m).map(|_| Tally::default()).collect();
    let mut astar_times = Vec::with_capacity(ids.len());
    let mut astar_wrong = 0usize;
    let mut skipped = 0usize;
    // Each query run, with each mode's answer: judged after the batches, against theirs.
    let mut runs: Vec<Expected> = Vec::with_capacity(ids.len());
    let mut sequential: Vec<Vec<Result<Path, QueryError>>> =
        (0..m).map(|_| Vec::with_capacity(ids.len())).collect();
    // Query k runs quadpath's modes then A*, and the reverse for odd k, so that neither
    // side always finds the caches warmed by the other.
    for (k, &id) in ids.iter().enumerate() {
        let s = &set.scen.entries[id];
        pb.inc(1);
        if class.skips(open, s) {
            skipped += 1;
            continue;
        }
        let mut order: Vec<usize> = (0..=m).collect();
        if k % 2 == 1 {
            order.reverse();
        }
        let mut results = Vec::from_iter((0..m).map(|_| None));
        let mut astar_cost = None;
        for j in order {
            if j == m {
                if !with_astar {
                    continue;
                }
                let t = Instant::now();
                let p = black_box(problem.astar(s.start, s.goal));
                astar_times.push(t.elapsed().as_secs_f64() * 1e6);
                astar_cost = Some(p.map(|p| p.cost));
                continue;
            }
            let t = Instant::now();
            let result = black_box(maps[j].0.map().find_path(s.start, s.goal));
            times[j].push(t.elapsed().as_secs_f64() * 1e6);
            results[j] = Some(result);
        }
        // Judged after the timed runs, so that a class's reference can come from the
        // A* run just timed (or, without one, from an untimed A* run now).
        let expected = class.expected_with(s, || {
            astar_cost.unwrap_or_else(|| problem.astar(s.start, s.goal).map(|p| p.cost))
        });
        // Only the default class at unit costs asks what the file answers, so only there
        // can A* disagree with it.
        if class.default
            && !class.weighted()
            && astar_cost
                .is_some_and(|l| !l.is_some_and(|l| (l - s.optimal).abs() <= s.tolerance()))
        {
            astar_wrong += 1;
        }
        for (j, result) in results.into_iter().enumerate() {
            sequential[j].push(result.expect("every mode ran"));
        }
        runs.push(expected);
    }
    pb.finish_and_clear();
    // The batches come after the per-query timings, so that no other thread runs beside
    // those; each mode's batch answers are the ones judged, and must equal its sequential
    // answers.
    let queries: Vec<(Cell, Cell)> = runs.iter().map(|e| (e.start, e.goal)).collect();
    let mut batches = Vec::with_capacity(m);
    for (j, (layer, _)) in maps.iter().enumerate() {
        let (answers, many) = time_batch(run.pools.0, layer.map(), &queries);
        let (_, one) = time_batch(run.pools.1, layer.map(), &queries);
        for ((e, answer), seq) in runs.iter().zip(&answers).zip(&sequential[j]) {
            let v = judge_batch(open, &problem.costs, e, modes[j], answer, seq);
            tallies[j].add(v, 3, &set.scen_path, e, Some(modes[j]));
        }
        batches.push(BatchKeys::new(many, one));
    }
    class.require_some_open(&set.scen_path, ids.len(), skipped)?;
    if astar_wrong > 0 {
        output::warn(&format!(
            "quadpath: warning: {}: the A* baseline disagreed with the scenario's optimal length on {astar_wrong} queries",
            set.scen_path.display()
        ));
    }
    for ((j, (layer, build_ms)), batch) in maps.iter().enumerate().zip(batches) {
        rows.push(Row {
            class: ClassKeys::new(class, skipped),
            batch,
            ..Row::new(RowFigures {
                scen: set.scen_path.display().to_string(),
                map: set.map_path.display().to_string(),
                width: open.width(),
                height: open.height(),
                mode: modes[j],
                queries: ids.len(),
                tally: &tallies[j],
                build_ms: *build_ms,
                memory_bytes: layer.memory_bytes(),
                quadpath_us: &times[j],
                astar: with_astar.then(|| (&astar_times[..], open.memory_bytes())),
            })
        });
    }
    Ok(rows)
}

/// The rows as an aligned text table.
fn table(rows: &[Row]) -> String {
    let header = [
        "map", "mode", "queries", "build", "memory", "A* grid", "quadpath", "A*", "speed-up",
        "(totals)", "subopt", "invalid",
    ];
    let mut cells: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for r in rows {
        let name = short_name(&r.map);
        let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        let class = r
            .class
            .class
            .as_ref()
            .map_or(String::new(), |c| format!(", {c}"));
        let skipped = r
            .class
            .skipped
            .map_or(String::new(), |n| format!(" ({n} skipped)"));
        cells.push(vec![
            format!("{name} ({}x{}{class})", r.width, r.height),
            r.mode.to_string(),
            format!("{}{skipped}", r.queries),
            output::ms(r.build_ms),
            output::bytes(r.memory_bytes),
            opt(r.astar_memory_bytes.map(output::bytes)),
            output::us(r.quadpath_median_us),
            opt(r.astar_median_us.map(output::us)),
            opt(r.speedup_median.map(|v| format!("{v:.1}x"))),
            opt(r.speedup_total.map(|v| format!("{v:.1}x"))),
            output::pct(r.mean_subopt),
            r.invalid.to_string(),
        ]);
    }
    let mut s = align(&cells);
    s += "quadpath and A*: median time per query; speed-up: A* / quadpath, of the medians and of the\n\
totals; subopt: mean of length / optimal - 1; memory: quadpath's grid, tree, gate graph,\n\
clusters and landmarks; A* grid: the bitmap plain A* searches (its open and closed sets\n\
come on top)\n";
    if let Some(costs) = rows.iter().find_map(|r| r.class.costs.as_deref()) {
        s += &format!(
            "terrain costs {costs}: subopt is cost / optimal cost - 1; A* is weighted A*\n"
        );
    }
    s += &batch_table(rows);
    let dynamic: Vec<&Row> = rows.iter().filter(|r| r.replay.is_some()).collect();
    if dynamic.is_empty() {
        return s;
    }
    let header = [
        "dynamic scenario",
        "mode",
        "patches",
        "quadpath edits",
        "quadpath total",
        "A* edits",
        "A* total",
        "speed-up",
    ];
    let mut cells: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for r in dynamic {
        let replay = r.replay.as_ref().expect("filtered");
        let opt = |v: Option<f64>| v.map_or_else(|| "-".into(), output::ms);
        cells.push(vec![
            r.map.clone(),
            r.mode.to_string(),
            replay.patches.to_string(),
            output::ms(replay.edit_total_ms),
            output::ms(replay.replay_total_ms),
            opt(replay.astar_edit_total_ms),
            opt(replay.astar_replay_total_ms),
            replay
                .speedup_replay
                .map_or_else(|| "-".into(), |v| format!("{v:.1}x")),
        ]);
    }
    s += "\n";
    s += &align(&cells);
    s += "dynamic scenarios replay patches and queries in file order: edits are the patches laid\n\
(for quadpath with the refresh work they defer, done before each query within --refresh),\n\
totals are edits plus queries; speed-up: A* total / quadpath total\n";
    s
}

/// The batch throughput of the static rows as a second table; empty when there is none.
fn batch_table(rows: &[Row]) -> String {
    let header = [
        "batch", "mode", "queries", "threads", "qps", "1 thread", "scaling",
    ];
    let mut cells: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for r in rows {
        let b = &r.batch;
        let (Some(threads), Some(qps), Some(one), Some(scaling)) =
            (b.threads, b.qps, b.qps_one_thread, b.thread_scaling)
        else {
            continue;
        };
        cells.push(vec![
            short_name(&r.map),
            r.mode.to_string(),
            (r.queries - r.class.skipped.unwrap_or(0)).to_string(),
            threads.to_string(),
            format!("{qps:.0}"),
            format!("{one:.0}"),
            format!("{scaling:.2}x"),
        ]);
    }
    if cells.len() == 1 {
        return String::new();
    }
    let mut s = "\n".to_string();
    s += &align(&cells);
    s += "batch: every query of the row answered by one find_paths call on --threads threads and\n\
on one thread (each repeated for at least 50 ms); qps: queries per second of wall time;\n\
scaling: qps / 1-thread qps\n";
    s
}

/// A map's file name, or the whole path when it has none.
fn short_name(map: &str) -> String {
    std::path::Path::new(map)
        .file_name()
        .map_or(map.to_string(), |n| n.to_string_lossy().into_owned())
}

/// Cells as aligned columns: the first two left-aligned (names), the rest right-aligned.
fn align(cells: &[Vec<String>]) -> String {
    let n = cells[0].len();
    let widths: Vec<usize> = (0..n)
        .map(|i| {
            cells
                .iter()
                .map(|row| row[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = String::new();
    for row in cells {
        let mut line = String::new();
        for (i, c) in row.iter().enumerate() {
            let pad = widths[i] - c.chars().count();
            if i < 2 {
                line += c;
                line += &" ".repeat(pad);
            } else {
                line += &" ".repeat(pad);
                line += c;
            }
            line += "  ";
        }
        s += line.trim_end();
        s += "\n";
    }
    s
}
