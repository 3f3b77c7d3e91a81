//! The rows `bench` prints, one per map and mode, for static and dynamic scenarios alike.

use crate::class::ClassKeys;
use crate::judge::{Tally, Throughput};
use crate::options::mode_name;
use crate::output;
use quadpath::Mode;
use serde::Serialize;

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
    pub fn new(many: Throughput, one: Throughput) -> Self {
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
