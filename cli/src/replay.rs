//! GPPC dynamic (`version 2`) scenarios in `scen` and `bench`: the map starts empty, patches
//! are laid through the incremental edit API (`HpaMap::apply_patch`), and each query is
//! checked against the map as it stands.

use crate::error::CliError;
use crate::expected::Expected;
use crate::judge::{judge, Tally};
use crate::load::build;
use crate::load::DynamicSet;
use crate::options::RefreshPolicy;
use crate::output;
use crate::rows::{ratio, Row, RowFigures};
use quadpath::io::{DynamicCommand, DynamicQuery, DynamicScenario, PatchPlacement};
use quadpath::{baseline, HpaMap, Mode, TerrainCosts, TerrainPatch};
use serde::Serialize;
use std::hint::black_box;
use std::time::Instant;

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

/// Where the time of a replay went, for one structure.
#[derive(Default)]
pub struct Clock {
    /// Per patch laid, µs.
    pub edits: Vec<f64>,
    /// Per refresh before a query, µs.
    pub refreshes: Vec<f64>,
    /// Per query, µs.
    pub queries: Vec<f64>,
}

/// Lays a patch on `hpa`, timed; returns the cells changed and whether it rebuilt.
pub fn lay(
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

/// Runs a query on `hpa`, after the refresh work that `policy` allows (timed apart: it is
/// the edits' deferred cost, paid before the next query).
pub fn ask(
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
pub struct Summary {
    #[serde(flatten)]
    pub queries: crate::judge::Summary,
    pub queries_answered: usize,
    pub false_unreachable: usize,
    pub false_reachable: usize,
    pub patches: usize,
    pub cells_changed: usize,
    pub rebuilds: usize,
    pub edit_total_ms: f64,
    pub edit_median_us: f64,
    pub refresh_total_ms: f64,
    pub refreshes: usize,
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
            replay: Some(crate::rows::Replay {
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

#[cfg(test)]
mod tests {
    use super::*;
    use quadpath::io;

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
