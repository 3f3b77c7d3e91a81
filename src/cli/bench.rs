//! `quadpath bench`: quadpath against plain grid A*, interleaved query by query.

use super::output;
use super::scen::judge;
use super::{
    build, load_scen, mode_name, select_queries, CliError, MapOptions, MemoryOptions, ModesArg,
    EXIT_FAILED, EXIT_OK,
};
use clap::{Args, ValueEnum};
use quadpath::baseline;
use serde::Serialize;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// Untimed queries run first on each map, to warm caches and allocators.
const WARM_UP: usize = 3;

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Baseline {
    /// Plain grid A* (pathfinding::astar with octile successors)
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
    #[command(flatten)]
    pub map_opts: MapOptions,
    #[command(flatten)]
    pub memory: MemoryOptions,
}

/// One row: one map and one mode.
#[derive(Serialize)]
struct Row {
    scen: String,
    map: String,
    width: u32,
    height: u32,
    mode: &'static str,
    queries: usize,
    invalid: usize,
    mean_subopt: f64,
    max_subopt: f64,
    build_ms: f64,
    memory_bytes: usize,
    quadpath_median_us: f64,
    quadpath_total_ms: f64,
    astar_median_us: Option<f64>,
    astar_total_ms: Option<f64>,
    speedup_median: Option<f64>,
    speedup_total: Option<f64>,
    /// The flat bitmap the baseline searches (its per-search open and closed sets come on top).
    astar_memory_bytes: Option<usize>,
}

pub fn run(a: BenchArgs) -> Result<i32, CliError> {
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
        .map(|p| load_scen(p, None, &a.map_opts))
        .collect::<Result<Vec<_>, _>>()?;
    let selected: Vec<Vec<usize>> = sets
        .iter()
        .map(|set| select_queries(set.scen.entries.len(), a.limit, a.sample))
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
    let mut rows = Vec::new();
    for (set, ids) in sets.iter().zip(selected) {
        let mut maps = Vec::new();
        for &m in &modes {
            let (hpa, ms) = build(&set.grid, m, &set.map_path, a.memory.limit())?;
            maps.push((hpa, ms));
        }
        for &id in ids.iter().take(WARM_UP) {
            let s = &set.scen.entries[id];
            for (hpa, _) in maps.iter_mut() {
                let _ = black_box(hpa.find_path(s.start, s.goal));
            }
            if with_astar {
                black_box(baseline::astar(&set.grid, s.start, s.goal));
            }
        }

        let name = set.map_path.file_name().map_or_else(
            || set.map_path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let pb = output::progress(ids.len(), &name, a.json);
        let m = maps.len();
        let mut times = vec![Vec::with_capacity(ids.len()); m];
        let mut subopts = vec![Vec::with_capacity(ids.len()); m];
        let mut invalid = vec![0usize; m];
        let mut astar_times = Vec::with_capacity(ids.len());
        let mut astar_wrong = 0usize;
        // Query k runs quadpath's modes then A*, and the reverse for odd k, so that neither
        // side always finds the caches warmed by the other.
        for (k, &id) in ids.iter().enumerate() {
            let s = &set.scen.entries[id];
            let mut order: Vec<usize> = (0..=m).collect();
            if k % 2 == 1 {
                order.reverse();
            }
            for j in order {
                if j == m {
                    if !with_astar {
                        continue;
                    }
                    let t = Instant::now();
                    let p = black_box(baseline::astar(&set.grid, s.start, s.goal));
                    astar_times.push(t.elapsed().as_secs_f64() * 1e6);
                    if !p
                        .as_ref()
                        .is_some_and(|p| (p.length - s.optimal).abs() <= s.tolerance())
                    {
                        astar_wrong += 1;
                    }
                    continue;
                }
                let t = Instant::now();
                let result = black_box(maps[j].0.find_path(s.start, s.goal));
                times[j].push(t.elapsed().as_secs_f64() * 1e6);
                let v = judge(&set.grid, s, modes[j], &result);
                if let Some(why) = v.invalid {
                    invalid[j] += 1;
                    if invalid[j] <= 3 {
                        output::warn(&format!(
                            "quadpath: invalid ({} mode): {}:{}: {} -> {}: {why}",
                            mode_name(modes[j]),
                            set.scen_path.display(),
                            s.line,
                            s.start,
                            s.goal
                        ));
                    }
                }
                subopts[j].extend(v.subopt);
            }
            pb.inc(1);
        }
        pb.finish_and_clear();
        if astar_wrong > 0 {
            output::warn(&format!(
                "quadpath: warning: {}: the A* baseline disagreed with the scenario's optimal length on {astar_wrong} queries",
                set.scen_path.display()
            ));
        }
        let astar_median = output::median(&astar_times);
        let astar_total = output::sum(&astar_times) / 1e3;
        for (j, (hpa, build_ms)) in maps.iter().enumerate() {
            let median = output::median(&times[j]);
            let total = output::sum(&times[j]) / 1e3;
            let ratio = |a: f64, b: f64| {
                if b > 0.0 {
                    output::round(a / b, 3)
                } else {
                    0.0
                }
            };
            rows.push(Row {
                scen: set.scen_path.display().to_string(),
                map: set.map_path.display().to_string(),
                width: set.grid.width(),
                height: set.grid.height(),
                mode: mode_name(modes[j]),
                queries: ids.len(),
                invalid: invalid[j],
                mean_subopt: output::round(output::mean(&subopts[j]), 8),
                max_subopt: output::round(output::max(&subopts[j]), 8),
                build_ms: output::round(*build_ms, 4),
                memory_bytes: hpa.memory_bytes(),
                quadpath_median_us: output::round(median, 3),
                quadpath_total_ms: output::round(total, 4),
                astar_median_us: with_astar.then(|| output::round(astar_median, 3)),
                astar_total_ms: with_astar.then(|| output::round(astar_total, 4)),
                speedup_median: with_astar.then(|| ratio(astar_median, median)),
                speedup_total: with_astar.then(|| ratio(astar_total, total)),
                astar_memory_bytes: with_astar.then(|| set.grid.memory_bytes()),
            });
        }
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

/// The rows as an aligned text table.
fn table(rows: &[Row]) -> String {
    let header = [
        "map", "mode", "queries", "build", "memory", "A* grid", "quadpath", "A*", "speed-up",
        "(totals)", "subopt", "invalid",
    ];
    let mut cells: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for r in rows {
        let name = std::path::Path::new(&r.map)
            .file_name()
            .map_or(r.map.clone(), |n| n.to_string_lossy().into_owned());
        let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        cells.push(vec![
            format!("{name} ({}x{})", r.width, r.height),
            r.mode.to_string(),
            r.queries.to_string(),
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
    let n = header.len();
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
    for row in &cells {
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
    s += "quadpath and A*: median time per query; speed-up: A* / quadpath, of the medians and of the\n\
totals; subopt: mean of length / optimal - 1; memory: quadpath's grid, tree, gate graph,\n\
clusters and landmarks; A* grid: the bitmap plain A* searches (its open and closed sets\n\
come on top)\n";
    s
}
