//! Loading what the subcommands work on: cells from the command line, maps, scenario
//! files (static or dynamic) with their maps, search structures, and the query selection.

use crate::class;
use crate::error::{build_error, CliError};
use crate::options::MapOptions;
use crate::output;
use quadpath::io::{self, DynamicScenario};
use quadpath::{Cell, Config, Grid, HpaMap, Mode};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A rayon pool of `n` threads, for [`HpaMap::find_paths`] to run on (inside
/// `pool.install`).
pub fn thread_pool(n: usize) -> Result<rayon::ThreadPool, CliError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| CliError::input(format!("cannot start {n} threads: {e}")))
}

/// Queries per second: `queries` answered in `seconds` of wall time, rounded; 0 when no
/// time could be measured.
pub fn qps(queries: usize, seconds: f64) -> f64 {
    if seconds > 0.0 {
        output::round(queries as f64 / seconds, 1)
    } else {
        0.0
    }
}

/// Parses a cell written `x,y`.
pub fn parse_cell(what: &str, text: &str) -> Result<Cell, CliError> {
    let bad = |why: &str| {
        CliError::input(format!(
            "invalid {what} {text:?}: {why}; write it as x,y (column,row), e.g. 12,30"
        ))
    };
    let (x, y) = text
        .split_once(',')
        .ok_or_else(|| bad("expected two numbers separated by a comma"))?;
    let num = |s: &str, axis: &str| {
        let s = s.trim();
        s.parse::<u32>().map_err(|_| {
            let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
            if s.strip_prefix('-').is_some_and(digits) {
                bad(&format!("{axis} cannot be negative"))
            } else if digits(s) {
                bad(&format!("{axis} {s} is too large"))
            } else {
                bad(&format!("{axis} {s:?} is not a whole number"))
            }
        })
    };
    Ok(Cell::new(num(x, "x")?, num(y, "y")?))
}

/// Checks that a query end is on the map and open for `class` on its grid `grid` (the
/// loaded grid for the default class, whose message says "blocked cell"); `map` names the
/// map in the message.
pub fn check_endpoint(
    grid: &Grid,
    class: &class::Class,
    map: &Path,
    what: &str,
    c: Cell,
) -> Result<(), CliError> {
    if c.x >= grid.width() || c.y >= grid.height() {
        return Err(CliError::input(format!(
            "{}: {what} {c} is outside the {}x{} map (x must be below {}, y below {})",
            map.display(),
            grid.width(),
            grid.height(),
            grid.width(),
            grid.height()
        )));
    }
    if !grid.is_free(c) {
        let why = match class.label() {
            None => "is on a blocked cell".to_string(),
            Some(name) => format!(
                "is not open for a {name} agent (its {k}x{k} square from there leaves the map or covers a cell it cannot stand on)",
                k = class.movement.size()
            ),
        };
        return Err(CliError::input(format!(
            "{}: {what} {c} {why}",
            map.display()
        )));
    }
    Ok(())
}

/// Loads a `.map` file or an obstacle bitmap.
pub fn load_map(path: &Path, opts: &MapOptions) -> Result<Grid, CliError> {
    let bo = opts.bitmap_options()?;
    Ok(io::load_grid(path, &bo)?)
}

/// Builds the search structure within `max_memory` bytes, timing it; returns the map and
/// the build time in ms.
pub fn build(
    grid: &Grid,
    mode: Mode,
    map: &Path,
    max_memory: usize,
) -> Result<(HpaMap, f64), CliError> {
    let t = Instant::now();
    let config = Config::from(mode).with_max_memory(Some(max_memory));
    let hpa = HpaMap::new(grid.clone(), config).map_err(|e| build_error(map, e))?;
    Ok((hpa, t.elapsed().as_secs_f64() * 1e3))
}

/// A loaded scenario file with its map.
pub struct ScenSet {
    pub scen_path: PathBuf,
    pub scen: io::ScenarioFile,
    pub map_path: PathBuf,
    pub grid: Grid,
}

/// A scenario file of either kind, loaded and checked.
pub enum Loaded {
    /// Moving AI `version 1`: queries on a fixed map.
    Static(ScenSet),
    /// GPPC `version 2`: queries and patches on a map that starts empty.
    Dynamic(DynamicSet),
}

/// Reads a scenario file of either kind. A static one gets its map found (unless `map` is
/// given), loaded and checked against every query; a dynamic one brings its patches and
/// has no map to give.
pub fn load_any(
    scen_path: &Path,
    map: Option<&Path>,
    opts: &MapOptions,
) -> Result<Loaded, CliError> {
    match io::read_any_scen(scen_path)? {
        io::AnyScenarioFile::Static(scen) => {
            load_scen(scen_path, scen, map, opts).map(Loaded::Static)
        }
        io::AnyScenarioFile::Dynamic(scen) => {
            if let Some(m) = map {
                return Err(CliError::input(format!(
                    "{}: a version 2 scenario starts from an empty map and lays its own patches; --map {} does not apply",
                    scen_path.display(),
                    m.display()
                )));
            }
            Ok(Loaded::Dynamic(DynamicSet {
                scen_path: scen_path.to_path_buf(),
                scen,
            }))
        }
        _ => Err(CliError::input(format!(
            "{}: this kind of scenario file is read by the library but not run by this command",
            scen_path.display()
        ))),
    }
}

/// Finds the map of a static scenario file (unless `map` is given), loads it and checks
/// every query against it.
fn load_scen(
    scen_path: &Path,
    scen: io::ScenarioFile,
    map: Option<&Path>,
    opts: &MapOptions,
) -> Result<ScenSet, CliError> {
    let map_path = match map {
        Some(m) => m.to_path_buf(),
        None => io::resolve_map_path(scen_path).ok_or_else(|| {
            let first = scen.entries.first().map(|s| s.map.as_str());
            let tried: Vec<String> = io::map_path_candidates(scen_path, first)
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            CliError::input(format!(
                "{}: cannot find the map of this scenario file (tried {}); give it with --map",
                scen_path.display(),
                if tried.is_empty() {
                    "nothing".to_string()
                } else {
                    tried.join(", ")
                }
            ))
        })?,
    };
    let grid = load_map(&map_path, opts)?;
    scen.validate_against(&grid)
        .map_err(|e| CliError::input(format!("{e} (map {})", map_path.display())))?;
    Ok(ScenSet {
        scen_path: scen_path.to_path_buf(),
        scen,
        map_path,
        grid,
    })
}

/// Which queries of a file to run: the first `limit`, or `sample` spread evenly, or all.
pub fn select_queries(total: usize, limit: Option<usize>, sample: Option<usize>) -> Vec<usize> {
    let n = limit.map_or(total, |l| l.min(total));
    match sample {
        Some(s) if s < n => (0..s).map(|i| i * n / s).collect(),
        _ => (0..n).collect(),
    }
}

/// A dynamic scenario file with its patches.
pub struct DynamicSet {
    pub scen_path: PathBuf,
    pub scen: DynamicScenario,
}

impl DynamicSet {
    /// The map before the first command, within the memory limit: the header alone decides
    /// its size, so a 60-byte file could otherwise ask for gigabytes.
    pub fn initial_grid(&self, max_memory: usize) -> Result<Grid, CliError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::EXIT_INPUT;

    #[test]
    fn cells_parse() {
        assert_eq!(parse_cell("start", " 3, 4").unwrap(), Cell::new(3, 4));
        for bad in ["3", "3;4", "a,4", "-1,2", "3,4,5", "", "99999999999,1"] {
            let e = parse_cell("start", bad).unwrap_err();
            assert_eq!(e.code, EXIT_INPUT, "{bad}");
            assert!(e.message.contains("start"), "{}", e.message);
        }
    }

    #[test]
    fn samples_are_spread_evenly() {
        assert_eq!(select_queries(10, None, Some(5)), vec![0, 2, 4, 6, 8]);
        assert_eq!(select_queries(10, Some(3), None), vec![0, 1, 2]);
        assert_eq!(select_queries(3, None, Some(5)), vec![0, 1, 2]);
        assert_eq!(select_queries(10, Some(4), Some(2)), vec![0, 2]);
    }
}
