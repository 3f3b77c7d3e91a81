//! The Moving AI `.scen` scenario format, and finding the map a scenario file belongs to.

use super::error::{display_name, excerpt, MapError};
use crate::geom::Cell;
use crate::grid::Grid;
use std::path::{Path, PathBuf};

/// One benchmark problem: a line of a `.scen` file.
///
/// ```
/// use quadpath::io::{parse_map, parse_scen};
/// use quadpath::{Cell, HpaMap, Mode};
/// let grid = parse_map("type octile\nheight 2\nwidth 3\nmap\n.@.\n...\n", "demo.map")?;
/// let file = parse_scen("version 1\n1\tmaps/demo.map\t3\t2\t0\t0\t2\t0\t4.00\n", "demo.scen")?;
/// let problem = &file.entries[0];
/// assert_eq!((problem.start, problem.goal, problem.line), (Cell::new(0, 0), Cell::new(2, 0), 2));
/// assert_eq!((problem.map_basename(), problem.tolerance()), ("demo.map", 0.005));
/// let path = HpaMap::new(grid, Mode::Exact)?.find_path(problem.start, problem.goal)?;
/// assert!((path.length - problem.optimal).abs() <= problem.tolerance());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Difficulty bucket; in every published set it is `floor(optimal / 4)`.
    pub bucket: u32,
    /// The map field as written, often with a folder (`maps/dao/arena.map`); only its
    /// basename identifies the map.
    pub map: String,
    /// Map width the scenario was made for.
    pub width: u32,
    /// Map height the scenario was made for.
    pub height: u32,
    /// Start cell.
    pub start: Cell,
    /// Goal cell.
    pub goal: Cell,
    /// Length of a shortest path (8-connected, diagonal √2, no corner cutting), as the file
    /// prints it: rounded (see [`Scenario::tolerance`]).
    pub optimal: f64,
    /// Digits after the decimal point of the optimal length as printed (`2` for `1010.68`,
    /// `0` for `12`); an exponent moves it (`1.5e2` has `-1`). It gives the rounding the file
    /// applied, see [`Scenario::tolerance`].
    pub optimal_decimals: i32,
    /// 1-based line of the scenario in its file, so later checks can point back at it.
    pub line: usize,
}

impl Scenario {
    /// How far a path's length may be from [`Scenario::optimal`] and still count as equal:
    /// the larger of 1e-3 and half a unit in the last printed digit of the optimal length,
    /// since files print rounded lengths (`1010.68` for 1010.678282 is 0.005 off).
    pub fn tolerance(&self) -> f64 {
        tolerance(self.optimal_decimals)
    }

    /// The basename of [`Scenario::map`], accepting both `/` and `\` as separators.
    pub fn map_basename(&self) -> &str {
        basename(&self.map)
    }
}

/// The larger of 1e-3 and half a unit in the last printed digit of a length printed with
/// `decimals` digits after the point.
pub(super) fn tolerance(decimals: i32) -> f64 {
    let half_unit = 0.5 * 10f64.powi(-decimals);
    half_unit.max(1e-3)
}

fn basename(s: &str) -> &str {
    s.rsplit(['/', '\\']).next().unwrap_or(s)
}

/// A parsed `.scen` file.
///
/// ```
/// use quadpath::io::{read_map, read_scen};
/// // Files shipped in the repository's `maps/`.
/// let file = read_scen("maps/arena.map.scen")?;
/// let grid = read_map("maps/arena.map")?;
/// file.validate_against(&grid)?;
/// assert_eq!(file.version, "1");
/// assert!(!file.entries.is_empty());
/// assert!(file.entries.iter().all(|problem| problem.map_basename() == "arena.map"));
/// # Ok::<(), quadpath::io::MapError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioFile {
    /// The version as written (`1` or `1.0`).
    pub version: String,
    /// The name the file was read under, used in later errors.
    pub source: String,
    /// The scenarios, in file order.
    pub entries: Vec<Scenario>,
}

/// Reads a `.scen` file.
///
/// # Errors
/// [`MapError::Io`] when the file cannot be read; otherwise as [`parse_scen`].
pub fn read_scen(path: impl AsRef<Path>) -> Result<ScenarioFile, MapError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| MapError::io(path, e))?;
    parse_scen(&String::from_utf8_lossy(&bytes), &display_name(path))
}

const FIELDS: [&str; 9] = [
    "bucket",
    "map",
    "map width",
    "map height",
    "start x",
    "start y",
    "goal x",
    "goal y",
    "optimal length",
];

/// Parses the text of a `.scen` file; `source` names it in errors.
///
/// The first non-blank line must be `version 1` or `version 1.0`. Every other non-blank line
/// has 9 fields separated by tabs or runs of spaces (map names never contain spaces in the
/// published sets). Start and goal must lie inside the map size the line itself gives; use
/// [`ScenarioFile::validate_against`] to check them against the real map.
///
/// # Errors
/// A [`MapError`] naming `source` and the line: a missing or unknown version line
/// ([`MapError::ScenVersion`]), a line without 9 fields ([`MapError::FieldCount`]), a field
/// that is not a number ([`MapError::BadNumber`]), or a start or goal outside the size the
/// line gives ([`MapError::PointOutside`]).
pub fn parse_scen(text: &str, source: &str) -> Result<ScenarioFile, MapError> {
    let file = || source.to_string();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').enumerate().map(|(i, l)| (i + 1, l.trim()));
    let (vline, vtext) = lines
        .by_ref()
        .find(|(_, l)| !l.is_empty())
        .unwrap_or((1, ""));
    let mut words = vtext.split_whitespace();
    let version = match (words.next(), words.next(), words.next()) {
        (Some("version"), Some(v @ ("1" | "1.0")), None) => v.to_string(),
        _ => {
            return Err(MapError::ScenVersion {
                file: file(),
                line: vline,
                expected: "`version 1` or `version 1.0`",
                found: excerpt(vtext),
            })
        }
    };

    let mut entries = Vec::new();
    for (line, text) in lines {
        if text.is_empty() {
            continue;
        }
        let f: Vec<&str> = text.split_whitespace().collect();
        if f.len() != FIELDS.len() {
            return Err(MapError::FieldCount {
                file: file(),
                line,
                found: f.len(),
            });
        }
        let int = |i: usize| -> Result<u32, MapError> {
            f[i].parse::<u32>().map_err(|_| MapError::BadNumber {
                file: file(),
                line,
                field: FIELDS[i],
                value: excerpt(f[i]),
            })
        };
        let optimal = f[8]
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| MapError::BadNumber {
                file: file(),
                line,
                field: FIELDS[8],
                value: excerpt(f[8]),
            })?;
        let s = Scenario {
            bucket: int(0)?,
            map: f[1].to_string(),
            width: int(2)?,
            height: int(3)?,
            start: Cell::new(int(4)?, int(5)?),
            goal: Cell::new(int(6)?, int(7)?),
            optimal,
            optimal_decimals: printed_decimals(f[8]),
            line,
        };
        for (what, p) in [("start", s.start), ("goal", s.goal)] {
            if p.x >= s.width || p.y >= s.height {
                return Err(MapError::PointOutside {
                    file: file(),
                    line,
                    what,
                    x: p.x,
                    y: p.y,
                    width: s.width,
                    height: s.height,
                });
            }
        }
        entries.push(s);
    }
    Ok(ScenarioFile {
        version,
        source: source.to_string(),
        entries,
    })
}

/// Digits after the decimal point of a number as written, less its exponent: the position
/// of the last printed digit. The text has already parsed as a finite `f64`.
pub(super) fn printed_decimals(text: &str) -> i32 {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let fraction = mantissa.split_once('.').map_or(0, |(_, f)| f.len() as i32);
    fraction.saturating_sub(exponent)
}

impl ScenarioFile {
    /// Checks every scenario against the map it is meant for: same size, start and goal
    /// inside it and on free cells. The error names the first offending line.
    ///
    /// # Errors
    /// [`MapError::DimensionMismatch`] when a line's map size is not the grid's,
    /// [`MapError::PointOutside`] or [`MapError::PointBlocked`] for a start or goal off the
    /// map or on a blocked cell.
    pub fn validate_against(&self, grid: &Grid) -> Result<(), MapError> {
        let file = || self.source.clone();
        for s in &self.entries {
            if s.width != grid.width() || s.height != grid.height() {
                return Err(MapError::DimensionMismatch {
                    file: file(),
                    line: s.line,
                    scen_width: s.width,
                    scen_height: s.height,
                    map_width: grid.width(),
                    map_height: grid.height(),
                });
            }
            for (what, p) in [("start", s.start), ("goal", s.goal)] {
                if p.x >= grid.width() || p.y >= grid.height() {
                    return Err(MapError::PointOutside {
                        file: file(),
                        line: s.line,
                        what,
                        x: p.x,
                        y: p.y,
                        width: grid.width(),
                        height: grid.height(),
                    });
                }
                if !grid.is_free(p) {
                    return Err(MapError::PointBlocked {
                        file: file(),
                        line: s.line,
                        what,
                        x: p.x,
                        y: p.y,
                    });
                }
            }
        }
        Ok(())
    }
}

/// The places a scenario file's map may be, best first, without touching the file system.
///
/// `X.map.scen` → `X.map`; `X-random-N.scen` and `X-even-N.scen` (the MAPF naming) → `X.map`;
/// then the basename of `first_map_field` (the map field of the first scenario), all in the
/// scenario file's folder. The map field is last because old files name a folder layout
/// (`maps/dao/arena.map`) that rarely exists beside them.
pub fn map_path_candidates(scen_path: &Path, first_map_field: Option<&str>) -> Vec<PathBuf> {
    let dir = scen_path.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    if let Some(name) = scen_path.file_name().and_then(|n| n.to_str()) {
        if let Some(stem) = name.strip_suffix(".scen") {
            if stem.ends_with(".map") && stem.len() > 4 {
                out.push(dir.join(stem));
            }
            for kind in ["-random-", "-even-"] {
                if let Some(i) = stem.rfind(kind) {
                    let n = &stem[i + kind.len()..];
                    if i > 0 && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                        out.push(dir.join(format!("{}.map", &stem[..i])));
                    }
                }
            }
        }
    }
    if let Some(m) = first_map_field
        .map(basename)
        .filter(|b| !b.is_empty() && *b != "." && *b != "..")
    {
        let p = dir.join(m);
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// Finds the map file of a scenario file: the first existing path of
/// [`map_path_candidates`]. The map field of the first scenario is read from the file only
/// when the naming rules find nothing. A `--map` given by the user should win over this.
pub fn resolve_map_path(scen_path: impl AsRef<Path>) -> Option<PathBuf> {
    let scen_path = scen_path.as_ref();
    if let Some(p) = map_path_candidates(scen_path, None)
        .into_iter()
        .find(|p| p.is_file())
    {
        return Some(p);
    }
    let text = std::fs::read(scen_path).ok()?;
    let text = String::from_utf8_lossy(&text);
    // Only the map field of the first scenario line is needed; a broken later line should not
    // stop the lookup.
    let first = text
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .skip(1)
        .find(|l| !l.trim().is_empty())
        .and_then(|l| l.split_whitespace().nth(1))?;
    map_path_candidates(scen_path, Some(first))
        .into_iter()
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_follow_the_naming_rules() {
        let c = map_path_candidates(Path::new("d/arena.map.scen"), Some("maps/dao/arena.map"));
        assert_eq!(c, vec![PathBuf::from("d/arena.map")]);
        let c = map_path_candidates(Path::new("d/den312d-even-1.scen"), None);
        assert_eq!(c, vec![PathBuf::from("d/den312d.map")]);
        let c = map_path_candidates(Path::new("d/x.scen"), Some("a\\b\\y.map"));
        assert_eq!(c, vec![PathBuf::from("d/y.map")]);
    }

    #[test]
    fn tolerance_follows_the_printed_precision() {
        let tol = |optimal: &str| {
            let text = format!("version 1\n0\ta.map\t4\t4\t0\t0\t3\t3\t{optimal}\n");
            parse_scen(&text, "s").unwrap().entries[0].tolerance()
        };
        for (printed, expected) in [
            ("1010.68", 0.005),
            ("4.24264069", 1e-3),
            ("12", 0.5),
            ("12.0", 0.05),
            ("1.5e2", 5.0),
            ("4.2426e-0", 1e-3),
        ] {
            let t = tol(printed);
            assert!((t - expected).abs() < 1e-12, "{printed}: {t}");
        }
    }

    #[test]
    fn spaces_and_both_versions() {
        let s = parse_scen("version 1.0\n\n3  a.map  4 4 0 0 3 3 4.24264\r\n", "s").unwrap();
        assert_eq!(s.entries.len(), 1);
        assert_eq!(s.entries[0].goal, Cell::new(3, 3));
        assert_eq!(s.entries[0].line, 3);
        assert!(matches!(
            parse_scen("version 2\n", "s"),
            Err(MapError::ScenVersion { line: 1, .. })
        ));
    }
}
