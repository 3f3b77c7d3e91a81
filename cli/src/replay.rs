//! GPPC dynamic (`version 2`) scenarios in `scen` and `bench`: the map starts empty, patches
//! are laid through the incremental edit API (`HpaMap::apply_patch`), and each query is
//! checked against the map as it stands.

use crate::bench::{ratio, Row, RowFigures};
use crate::output;
use crate::scen::{
    closing_lines, judge, write_path_line, Expected, ScenArgs, Tally, Throughput, MAX_REPORTED,
};
use crate::{build, mode_name, select_queries, CliError, EXIT_FAILED, EXIT_OK};
use quadpath::io::{self, DynamicCommand, DynamicQuery, DynamicScenario, PatchPlacement};
use quadpath::{baseline, Grid, HpaMap, Mode, TerrainCosts, TerrainPatch};
use serde::Serialize;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A dynamic scenario file with its patches.
pub struct DynamicSet {
    pub scen_path: PathBuf,
    pub scen: DynamicScenario,
}

/// One step of a replay.
pub enum Step<'a> {
    /// Lay this patch.
    Patch(&'a PatchPlacement, &'a TerrainPatch),
    /// Run the query with this index among the file's queries.
    Query(usize, &'a DynamicQuery),
}

/// The replay of the selected queries (indices among the file's queries, ascending): every
/// patch up to the last selected query, in file order, and the selected queries.
pub fn steps<'a>(
    scen: &'a DynamicScenario,
    selected: &'a [usize],
) -> impl Iterator<Item = Step<'a>> + 'a {
    let mut next_query = 0;
    let mut wanted = selected.iter().copied().peekable();
    scen.commands
        .iter()
        .map_while(move |command| {
            wanted.peek()?;
            Some(match command {
                DynamicCommand::Patch(p) => Some(Step::Patch(p, &scen.patches[p.id])),
                DynamicCommand::Query(q) => {
                    let id = next_query;
                    next_query += 1;
                    wanted.next_if_eq(&id).map(|id| Step::Query(id, q))
                }
            })
        })
        .flatten()
}

impl DynamicSet {
    /// The map before the first command, within the memory limit: the header alone decides
    /// its size, so a 60-byte file could otherwise ask for gigabytes.
    fn initial_grid(&self, max_memory: usize) -> Result<Grid, CliError> {
        let bytes = self.scen.initial_grid_bytes();
        if bytes > max_memory {
            return Err(CliError::input(format!(
                "{}: a {}x{} map needs about {bytes} bytes, over the limit of {max_memory} bytes (raise it with --max-memory SIZE)",
                self.scen_path.display(),
                self.scen.width,
                self.scen.height
            )));
        }
        Ok(self.scen.initial_grid())
    }

    /// The file's name, for table rows.
    pub fn name(&self) -> String {
        file_name(&self.scen_path)
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Where the time of a replay went, for one structure.
#[derive(Default)]
struct Clock {
    /// Per patch laid, µs.
    edits: Vec<f64>,
    /// Per refresh before a query, µs.
    refreshes: Vec<f64>,
    /// Per query, µs.
    queries: Vec<f64>,
}

/// Lays a patch on `hpa`, timed; returns the cells changed and whether it rebuilt.
fn lay(
    hpa: &mut HpaMap,
    p: &PatchPlacement,
    patch: &TerrainPatch,
    clock: &mut Clock,
) -> (usize, bool) {
    let t = Instant::now();
    let report = hpa
        .apply_patch(p.at, patch)
        .expect("every patch was checked to fit the map when the file was read");
    clock.edits.push(t.elapsed().as_secs_f64() * 1e6);
    (report.changed(), report.rebuilt)
}

/// How much of the refresh work edits defer is done before each query of a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefreshPolicy {
    /// All of it: the queries always see a fresh structure.
    All,
    /// None: the queries cross whatever has gone stale.
    Never,
    /// As much as fits in this budget (at least one unit), as a game would spend a slice
    /// of each frame; the queries cross what is left stale.
    Within(Duration),
}

impl RefreshPolicy {
    /// The policy in words, for summaries.
    pub fn describe(self) -> String {
        match self {
            RefreshPolicy::All => "all of it each time".into(),
            RefreshPolicy::Never => "none".into(),
            RefreshPolicy::Within(d) => format!("up to {} each", output::us(d.as_secs_f64() * 1e6)),
        }
    }
}

/// Parses `--refresh`: `all`, `none`, or a budget in microseconds.
pub fn parse_refresh(s: &str) -> Result<RefreshPolicy, String> {
    match s.trim() {
        "all" => Ok(RefreshPolicy::All),
        "none" => Ok(RefreshPolicy::Never),
        t => t
            .parse::<u64>()
            .map(|us| RefreshPolicy::Within(Duration::from_micros(us)))
            .map_err(|_| {
                format!("invalid refresh budget {s:?}: write `all`, `none` or a number of microseconds, e.g. 1000")
            }),
    }
}

/// Runs a query on `hpa`, after the refresh work that `policy` allows (timed apart: it is
/// the edits' deferred cost, paid before the next query).
fn ask(
    hpa: &mut HpaMap,
    q: &DynamicQuery,
    policy: RefreshPolicy,
    clock: &mut Clock,
) -> Result<quadpath::Path, quadpath::QueryError> {
    if hpa.needs_refresh() && policy != RefreshPolicy::Never {
        let t = Instant::now();
        match policy {
            RefreshPolicy::All => drop(hpa.refresh()),
            RefreshPolicy::Within(budget) => drop(hpa.refresh_within(budget)),
            RefreshPolicy::Never => unreachable!("checked above"),
        }
        clock.refreshes.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let t = Instant::now();
    let result = black_box(hpa.find_path(q.start, q.goal));
    clock.queries.push(t.elapsed().as_secs_f64() * 1e6);
    result
}

/// The `--json` summary of `scen` on a dynamic file: the keys of the static summary, then
/// the replay's.
#[derive(Serialize)]
struct Summary {
    #[serde(flatten)]
    queries: crate::scen::Summary,
    queries_answered: usize,
    false_unreachable: usize,
    false_reachable: usize,
    patches: usize,
    cells_changed: usize,
    rebuilds: usize,
    edit_total_ms: f64,
    edit_median_us: f64,
    refresh_total_ms: f64,
    refreshes: usize,
}

/// `quadpath scen` on a dynamic file.
pub fn scen(a: &ScenArgs, set: DynamicSet) -> Result<i32, CliError> {
    let mode = a.mode.mode();
    let mut paths_out = a.paths.as_ref().map(io::OutputFile::create).transpose()?;
    let mut grid = set.initial_grid(a.memory.limit())?;
    let (mut hpa, build_ms) = build(&grid, mode, &set.scen_path, a.memory.limit())?;
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
        output::json_line(&Summary {
            queries: crate::scen::Summary::new(&tally, build_ms, &clock.queries, throughput),
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

/// `quadpath bench` on a dynamic file: each mode and, with `with_astar`, plain A* on its own
/// copy of the map, replaying the same commands interleaved; one row per mode.
pub fn bench(
    set: &DynamicSet,
    ids: &[usize],
    modes: &[Mode],
    with_astar: bool,
    refresh: RefreshPolicy,
    max_memory: usize,
    quiet: bool,
) -> Result<Vec<Row>, CliError> {
    let mut astar_grid = set.initial_grid(max_memory)?;
    let mut maps = Vec::new();
    for &m in modes {
        maps.push(build(&astar_grid, m, &set.scen_path, max_memory)?);
    }
    let m = maps.len();
    let mut clocks: Vec<Clock> = (0..m).map(|_| Clock::default()).collect();
    let mut astar = Clock::default();
    let mut tallies: Vec<Tally> = (0..m).map(|_| Tally::default()).collect();
    let mut astar_wrong = 0usize;
    let pb = output::progress(ids.len(), &set.name(), quiet);
    for (k, step) in steps(&set.scen, ids).enumerate() {
        // Alternate who goes first, so that neither side always finds the caches warm.
        let mut order: Vec<usize> = (0..=m).collect();
        if k % 2 == 1 {
            order.reverse();
        }
        match step {
            Step::Patch(p, patch) => {
                for j in order {
                    if j < m {
                        lay(&mut maps[j].0, p, patch, &mut clocks[j]);
                    } else if with_astar {
                        let t = Instant::now();
                        black_box(astar_grid.apply_patch(p.at, patch));
                        astar.edits.push(t.elapsed().as_secs_f64() * 1e6);
                    }
                }
            }
            Step::Query(_, q) => {
                for j in order {
                    if j < m {
                        let result = ask(&mut maps[j].0, q, refresh, &mut clocks[j]);
                        let expected = Expected::from(q);
                        let v = judge(
                            maps[j].0.grid(),
                            &TerrainCosts::unit(),
                            &expected,
                            modes[j],
                            &result,
                        );
                        tallies[j].add(v, 3, &set.scen_path, &expected, Some(modes[j]));
                    } else if with_astar {
                        let t = Instant::now();
                        let p = black_box(baseline::astar(&astar_grid, q.start, q.goal));
                        astar.queries.push(t.elapsed().as_secs_f64() * 1e6);
                        let agrees = match (&p, q.optimal) {
                            (Some(p), Some(opt)) => (p.length - opt).abs() <= q.tolerance(),
                            (None, None) => true,
                            _ => false,
                        };
                        astar_wrong += !agrees as usize;
                    }
                }
                pb.inc(1);
            }
        }
    }
    pb.finish_and_clear();
    if astar_wrong > 0 {
        output::warn(&format!(
            "quadpath: warning: {}: the A* baseline disagreed with the scenario on {astar_wrong} queries",
            set.scen_path.display()
        ));
    }
    let ms = |v: &[f64]| output::sum(v) / 1e3;
    let astar_edit = ms(&astar.edits);
    let astar_total = astar_edit + ms(&astar.queries);
    let mut rows = Vec::new();
    for (j, (hpa, build_ms)) in maps.iter().enumerate() {
        let c = &clocks[j];
        let edit = ms(&c.edits) + ms(&c.refreshes);
        let query = ms(&c.queries);
        rows.push(Row {
            replay: Some(crate::bench::Replay {
                patches: c.edits.len(),
                edit_total_ms: output::round(edit, 4),
                replay_total_ms: output::round(edit + query, 4),
                astar_edit_total_ms: with_astar.then(|| output::round(astar_edit, 4)),
                astar_replay_total_ms: with_astar.then(|| output::round(astar_total, 4)),
                speedup_replay: with_astar.then(|| ratio(astar_total, edit + query)),
            }),
            ..Row::new(RowFigures {
                scen: set.scen_path.display().to_string(),
                map: format!("{} (dynamic)", set.name()),
                width: set.scen.width,
                height: set.scen.height,
                mode: modes[j],
                queries: c.queries.len(),
                tally: &tallies[j],
                build_ms: *build_ms,
                memory_bytes: hpa.memory_bytes(),
                quadpath_us: &c.queries,
                astar: with_astar.then(|| (&astar.queries[..], astar_grid.memory_bytes())),
            })
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_stop_after_the_last_selected_query() {
        let mut scen = io::parse_dynamic_scen(
            "version 2\nheight 2\nwidth 2\ncost 1 octile\npatch p\ncommands\n\
             P 0 0 0 0\nQ 0 0 0 1 1 1.41421\nP 0 0 1 1\nQ 0 0 0 1 0 1\nP 0 0 0 1\nQ 0 0 0 0 0 0\nP 0 0 1 0\n",
            "s",
        )
        .unwrap();
        scen.attach_patches(vec![TerrainPatch::new(1, 1, b".".to_vec())], "p")
            .unwrap();
        let kinds = |ids: &[usize]| -> String {
            steps(&scen, ids)
                .map(|s| match s {
                    Step::Patch(p, _) => format!("P{}", p.line),
                    Step::Query(id, _) => format!("Q{id}"),
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(kinds(&[0, 1, 2]), "P7 Q0 P9 Q1 P11 Q2");
        assert_eq!(kinds(&[1]), "P7 P9 Q1");
        assert_eq!(kinds(&[0]), "P7 Q0");
        assert_eq!(kinds(&[]), "");
    }
}
