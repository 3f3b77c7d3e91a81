//! GPPC dynamic scenarios (`version 2`) and their patch files: a map that starts empty, then
//! changes by patches laid between the queries.

use super::error::{display_name, excerpt, MapError};
use super::movingai::{check_row, check_size, lines, MAX_MAP_SIDE};
use super::scen::printed_decimals;
use crate::geom::Cell;
use crate::grid::{Grid, TerrainPatch};
use std::path::Path;

/// The version line a dynamic scenario starts with.
const VERSION_2: &str = "`version 2`";

/// One command of a dynamic scenario, in file order.
///
/// ```
/// use quadpath::io::{parse_dynamic_scen, DynamicCommand};
/// use quadpath::Cell;
/// let scen = parse_dynamic_scen(
///     "version 2\nheight 3\nwidth 4\ncost 1 octile\npatch p.patch\ncommands\n\
///      Q 0 0 0 3 0 3\nP 0 0 1 0\n",
///     "s.scen",
/// )?;
/// assert!(matches!(scen.commands[0], DynamicCommand::Query(q) if q.goal == Cell::new(3, 0)));
/// assert!(matches!(scen.commands[1], DynamicCommand::Patch(p) if p.at == Cell::new(1, 0)));
/// # Ok::<(), quadpath::io::MapError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum DynamicCommand {
    /// Lay a patch over the map (`P bucket id x y`).
    Patch(PatchPlacement),
    /// A query against the map as it stands (`Q bucket sx sy gx gy cost…`).
    Query(DynamicQuery),
}

/// A `P` command: lay patch `id` with its top-left cell at `at`.
///
/// ```
/// use quadpath::io::{parse_dynamic_scen, parse_patches, DynamicCommand};
/// use quadpath::Cell;
/// let text = "version 2\nheight 3\nwidth 4\ncost 1 octile\npatch p.patch\ncommands\nP 0 0 1 0\n";
/// let scen = parse_dynamic_scen(text, "s.scen")?;
/// let patches = parse_patches("type patch\npatches 1\npatch 0\nheight 3\nwidth 1\nmap\n@\n@\n@\n", "p.patch")?;
/// let DynamicCommand::Patch(placement) = &scen.commands[0] else { panic!("a P command") };
/// assert_eq!((placement.id, placement.at, placement.line), (0, Cell::new(1, 0), 7));
/// let mut grid = scen.initial_grid();
/// grid.apply_patch(placement.at, &patches[placement.id]);
/// assert!(!grid.is_free(Cell::new(1, 2)));
/// # Ok::<(), quadpath::io::MapError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatchPlacement {
    /// The command's bucket, as written.
    pub bucket: u32,
    /// Index of the patch in the patch file.
    pub id: usize,
    /// Where its top-left cell goes.
    pub at: Cell,
    /// 1-based line of the command.
    pub line: usize,
}

/// A `Q` command: a query and its answer under the `octile` cost model.
///
/// ```
/// use quadpath::io::parse_dynamic_scen;
/// use quadpath::{HpaMap, Mode};
/// let text = "version 2\nheight 3\nwidth 4\ncost 1 octile\npatch p.patch\ncommands\n\
///             Q 0 0 0 3 0 3.00\nQ 0 0 0 3 2 -1\n";
/// let scen = parse_dynamic_scen(text, "s.scen")?;
/// let queries: Vec<_> = scen.queries().collect();
/// assert_eq!((queries[0].optimal, queries[0].tolerance()), (Some(3.0), 0.005));
/// assert_eq!(queries[1].optimal, None, "-1 in the file: unreachable");
/// let map = HpaMap::new(scen.initial_grid(), Mode::Exact)?;
/// let path = map.find_path(queries[0].start, queries[0].goal)?;
/// assert!((path.length - 3.0).abs() <= queries[0].tolerance());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicQuery {
    /// The command's bucket, as written.
    pub bucket: u32,
    /// Start cell.
    pub start: Cell,
    /// Goal cell.
    pub goal: Cell,
    /// The optimal octile length (8 directions, diagonal √2, no corner cutting) on the map
    /// as patched so far, or `None` when the file says the goal is unreachable (`-1`).
    pub optimal: Option<f64>,
    /// Digits after the decimal point of the optimal length as printed (see
    /// [`Scenario::optimal_decimals`](super::Scenario::optimal_decimals)).
    pub optimal_decimals: i32,
    /// 1-based line of the command.
    pub line: usize,
}

impl DynamicQuery {
    /// How far a path's length may be from [`DynamicQuery::optimal`] and still count as
    /// equal: the larger of 1e-3 and half a unit in the last printed digit.
    pub fn tolerance(&self) -> f64 {
        super::scen::tolerance(self.optimal_decimals)
    }
}

/// A GPPC dynamic-track scenario with its patches, ready to replay: start from
/// [`DynamicScenario::initial_grid`] (all free), then run [`DynamicScenario::commands`] in
/// order, laying each patch with
/// [`HpaMap::apply_patch`](crate::HpaMap::apply_patch) and checking each query against the
/// map as it stands.
///
/// The scenario file:
///
/// ```text
/// version 2
/// height 209
/// width 281
/// cost 1 octile
/// patch dao_arena2.patch
/// commands
/// Q 0 6 144 277 165 279.69848480984
/// P 0 12 40 17
/// ```
///
/// The header keys may come in any order before `commands`; `cost N name1 … nameN` lists the
/// cost models, and each query then carries N costs, of which quadpath reads the `octile`
/// one (`-1`: unreachable). The patch file, named relative to the scenario's folder, holds
/// `type patch`, `patches N`, then for each `i` from 0: `patch i`, `height H`, `width W`,
/// `map` and H rows in the `.map` alphabet.
///
/// ```
/// use quadpath::io::{parse_dynamic_scen, parse_patches, DynamicCommand};
///
/// let mut scen = parse_dynamic_scen(
///     "version 2\nheight 3\nwidth 4\ncost 1 octile\npatch p.patch\ncommands\n\
///      Q 0 0 0 3 0 3\nP 0 0 1 0\nQ 0 0 0 3 0 -1\n",
///     "s.scen",
/// )?;
/// let patches = parse_patches("type patch\npatches 1\npatch 0\nheight 3\nwidth 1\nmap\n@\n@\n@\n", "p.patch")?;
/// scen.attach_patches(patches, "p.patch")?;
/// assert_eq!((scen.query_count(), scen.patch_count()), (2, 1));
/// let mut grid = scen.initial_grid();
/// for command in &scen.commands {
///     if let DynamicCommand::Patch(p) = command {
///         grid.apply_patch(p.at, &scen.patches[p.id]);
///     }
/// }
/// assert_eq!(grid.free_count(), 9);
/// # Ok::<(), quadpath::io::MapError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicScenario {
    /// The name the file was read under, used in errors.
    pub source: String,
    /// Map width.
    pub width: u32,
    /// Map height.
    pub height: u32,
    /// The cost models of the `cost` line, in order.
    pub cost_models: Vec<String>,
    /// The patch file as the header names it (relative to the scenario's folder).
    pub patch_file: String,
    /// The commands, in file order.
    pub commands: Vec<DynamicCommand>,
    /// The patches, by index; empty until [`DynamicScenario::attach_patches`] (done by
    /// [`read_dynamic_scen`]).
    pub patches: Vec<TerrainPatch>,
}

impl DynamicScenario {
    /// The map before the first command: every cell free (`.`).
    ///
    /// It takes about 1.25 bytes per cell ([`DynamicScenario::initial_grid_bytes`]); the
    /// header alone decides the size, so check it against a budget first when the file is
    /// untrusted.
    pub fn initial_grid(&self) -> Grid {
        Grid::new_free(self.width, self.height)
    }

    /// Heap bytes [`DynamicScenario::initial_grid`] would take.
    pub fn initial_grid_bytes(&self) -> usize {
        Grid::estimate_bytes(self.width, self.height)
    }

    /// The queries, in file order.
    pub fn queries(&self) -> impl Iterator<Item = &DynamicQuery> + '_ {
        self.commands.iter().filter_map(|c| match c {
            DynamicCommand::Query(q) => Some(q),
            DynamicCommand::Patch(_) => None,
        })
    }

    /// How many queries the file has.
    pub fn query_count(&self) -> usize {
        self.queries().count()
    }

    /// How many `P` commands the file has (patches laid, not patches defined).
    pub fn patch_count(&self) -> usize {
        self.commands.len() - self.query_count()
    }

    /// Attaches the patches of the file named in the header, checking every `P` command
    /// against them: the patch exists and, laid where the command says, fits on the map.
    /// `patch_source` names the patch file in errors.
    ///
    /// # Errors
    /// [`MapError::UnknownPatch`] or [`MapError::PatchOutside`], naming the scenario file
    /// and the command's line; nothing is attached then.
    pub fn attach_patches(
        &mut self,
        patches: Vec<TerrainPatch>,
        patch_source: &str,
    ) -> Result<(), MapError> {
        for command in &self.commands {
            let DynamicCommand::Patch(p) = command else {
                continue;
            };
            let Some(patch) = patches.get(p.id) else {
                return Err(MapError::UnknownPatch {
                    file: self.source.clone(),
                    line: p.line,
                    id: p.id as u64,
                    count: patches.len(),
                    patch_file: patch_source.to_string(),
                });
            };
            let fits = patch
                .rect_at(p.at)
                .is_some_and(|r| r.x2 < self.width && r.y2 < self.height);
            if !fits {
                return Err(MapError::PatchOutside {
                    file: self.source.clone(),
                    line: p.line,
                    id: p.id as u64,
                    x: p.at.x,
                    y: p.at.y,
                    patch_width: patch.width(),
                    patch_height: patch.height(),
                    width: self.width,
                    height: self.height,
                });
            }
        }
        self.patches = patches;
        Ok(())
    }
}

/// Reads a dynamic scenario and the patch file its header names (relative to the
/// scenario's folder), and checks them against each other.
///
/// # Errors
/// [`MapError::Io`] naming the file that cannot be read (the patch file included);
/// otherwise as [`parse_dynamic_scen`], [`parse_patches`] and
/// [`DynamicScenario::attach_patches`].
pub fn read_dynamic_scen(path: impl AsRef<Path>) -> Result<DynamicScenario, MapError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| MapError::io(path, e))?;
    let mut scen = parse_dynamic_scen(&String::from_utf8_lossy(&bytes), &display_name(path))?;
    let patch_path = path
        .parent()
        .unwrap_or(Path::new(""))
        .join(&scen.patch_file);
    let bytes = std::fs::read(&patch_path).map_err(|e| MapError::io(&patch_path, e))?;
    let patch_source = display_name(&patch_path);
    let patches = parse_patches(&String::from_utf8_lossy(&bytes), &patch_source)?;
    scen.attach_patches(patches, &patch_source)?;
    Ok(scen)
}

/// A scenario file of either kind, as [`read_any_scen`] finds it. Non-exhaustive: a later
/// version may join them.
///
/// ```
/// use quadpath::io::{read_any_scen, AnyScenarioFile};
/// // Files shipped in the repository's `maps/`.
/// match read_any_scen("maps/dao_arena2.scen")? {
///     AnyScenarioFile::Dynamic(scen) => assert!(scen.query_count() > 0 && scen.patch_count() > 0),
///     other => panic!("a version 2 file, read as {other:?}"),
/// }
/// assert!(matches!(read_any_scen("maps/arena.map.scen")?, AnyScenarioFile::Static(_)));
/// # Ok::<(), quadpath::io::MapError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum AnyScenarioFile {
    /// A Moving AI `version 1` file: queries on a fixed map.
    Static(super::ScenarioFile),
    /// A GPPC `version 2` file with its patches: queries on a changing map.
    Dynamic(DynamicScenario),
}

/// Reads a scenario file of either kind, telling them apart by the version line: `version 2`
/// is read by [`read_dynamic_scen`] (with its patch file), anything else by
/// [`read_scen`](super::read_scen).
///
/// # Errors
/// As those two; a version line that is neither is a [`MapError::ScenVersion`] listing both.
pub fn read_any_scen(path: impl AsRef<Path>) -> Result<AnyScenarioFile, MapError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| MapError::io(path, e))?;
    let text = String::from_utf8_lossy(&bytes);
    let version = lines(&text)
        .map(|(_, l)| l.trim())
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if matches!(
        version.split_whitespace().collect::<Vec<_>>()[..],
        ["version", "2" | "2.0"]
    ) {
        return read_dynamic_scen(path).map(AnyScenarioFile::Dynamic);
    }
    match super::parse_scen(&text, &display_name(path)) {
        Err(MapError::ScenVersion {
            file, line, found, ..
        }) => Err(MapError::ScenVersion {
            file,
            line,
            expected: "`version 1` or `version 1.0` (Moving AI) or `version 2` (GPPC dynamic)",
            found,
        }),
        other => other.map(AnyScenarioFile::Static),
    }
}

/// The header of a dynamic scenario, filled in key by key.
#[derive(Default)]
struct Header {
    height: Option<u32>,
    width: Option<u32>,
    /// The models and the line of the `cost` line.
    cost: Option<(Vec<String>, usize)>,
    patch: Option<String>,
}

/// Parses the text of a dynamic (`version 2`) scenario file; `source` names it in errors.
/// The patches are attached separately ([`DynamicScenario::attach_patches`]).
///
/// # Errors
/// A [`MapError`] naming `source` and the line: a first line other than `version 2`
/// ([`MapError::ScenVersion`]); an unknown, repeated or missing header key or a bad size
/// ([`MapError::ScenHeader`]); a `cost` line without `octile` ([`MapError::NoOctileCost`]); a
/// command that is neither `Q` nor `P` or has the wrong number of fields
/// ([`MapError::Command`]); a field that is not a number ([`MapError::BadNumber`]); a query
/// start or goal outside the map ([`MapError::PointOutside`]).
pub fn parse_dynamic_scen(text: &str, source: &str) -> Result<DynamicScenario, MapError> {
    let file = || source.to_string();
    let mut lines = lines(text).filter(|(_, l)| !l.trim().is_empty());
    let (vline, vtext) = lines.next().unwrap_or((1, ""));
    if !matches!(
        vtext.split_whitespace().collect::<Vec<_>>()[..],
        ["version", "2" | "2.0"]
    ) {
        return Err(MapError::ScenVersion {
            file: file(),
            line: vline,
            expected: VERSION_2,
            found: excerpt(vtext.trim()),
        });
    }

    let header_error = |line: usize, message: String| MapError::ScenHeader {
        file: file(),
        line,
        message,
    };
    let mut header = Header::default();
    let mut end_line = vline + 1;
    let commands_line = loop {
        let Some((no, line)) = lines.next() else {
            return Err(header_error(
                end_line,
                "the file ends before the `commands` line".into(),
            ));
        };
        end_line = no + 1;
        let words: Vec<&str> = line.split_whitespace().collect();
        let repeated = || header_error(no, format!("`{}` is given twice", words[0]));
        let side = |field: &'static str| -> Result<u32, MapError> {
            match words[..] {
                [_, v] => v
                    .parse::<u32>()
                    .ok()
                    .filter(|&v| v > 0 && u64::from(v) <= MAX_MAP_SIDE)
                    .ok_or_else(|| MapError::BadNumber {
                        file: file(),
                        line: no,
                        field,
                        value: excerpt(v),
                    }),
                _ => Err(header_error(no, format!("`{field}` takes one number"))),
            }
        };
        match words[0] {
            "height" => {
                if header.height.replace(side("height")?).is_some() {
                    return Err(repeated());
                }
            }
            "width" => {
                if header.width.replace(side("width")?).is_some() {
                    return Err(repeated());
                }
            }
            "cost" => {
                let count = words.get(1).and_then(|n| n.parse::<usize>().ok());
                let models: Vec<String> = words[2.min(words.len())..]
                    .iter()
                    .map(|m| m.to_string())
                    .collect();
                if count != Some(models.len()) || models.is_empty() {
                    return Err(header_error(
                        no,
                        format!(
                            "expected `cost N name1 … nameN` with N ≥ 1, found {:?}",
                            excerpt(line.trim())
                        ),
                    ));
                }
                if header.cost.replace((models, no)).is_some() {
                    return Err(repeated());
                }
            }
            "patch" => {
                let [_, name] = words[..] else {
                    return Err(header_error(no, "`patch` takes one file name".into()));
                };
                if header.patch.replace(name.to_string()).is_some() {
                    return Err(repeated());
                }
            }
            "commands" if words.len() == 1 => break no,
            _ => {
                return Err(header_error(
                    no,
                    format!(
                        "expected `height`, `width`, `cost`, `patch` or `commands`, found {:?}",
                        excerpt(line.trim())
                    ),
                ))
            }
        }
    };
    let missing =
        |key: &str| header_error(commands_line, format!("no `{key}` line before `commands`"));
    let height = header.height.ok_or_else(|| missing("height"))?;
    let width = header.width.ok_or_else(|| missing("width"))?;
    let (cost_models, cost_line) = header.cost.ok_or_else(|| missing("cost"))?;
    let patch_file = header.patch.ok_or_else(|| missing("patch"))?;
    check_size(width.into(), height.into(), source)?;
    let Some(octile) = cost_models.iter().position(|m| m == "octile") else {
        return Err(MapError::NoOctileCost {
            file: file(),
            line: cost_line,
            models: cost_models.join(" "),
        });
    };

    let mut commands = Vec::new();
    for (line, text) in lines {
        commands.push(parse_command(
            text,
            line,
            source,
            (width, height),
            cost_models.len(),
            octile,
        )?);
    }
    Ok(DynamicScenario {
        source: file(),
        width,
        height,
        cost_models,
        patch_file,
        commands,
        patches: Vec::new(),
    })
}

/// Parses one command line. `costs` is how many costs a query carries, `octile` which of
/// them quadpath reads.
fn parse_command(
    text: &str,
    line: usize,
    source: &str,
    (width, height): (u32, u32),
    costs: usize,
    octile: usize,
) -> Result<DynamicCommand, MapError> {
    let f: Vec<&str> = text.split_whitespace().collect();
    let command_error = |message: String| MapError::Command {
        file: source.to_string(),
        line,
        message,
    };
    let int = |i: usize, field: &'static str| -> Result<u32, MapError> {
        f[i].parse::<u32>().map_err(|_| MapError::BadNumber {
            file: source.to_string(),
            line,
            field,
            value: excerpt(f[i]),
        })
    };
    match f[0] {
        "P" => {
            if f.len() != 5 {
                return Err(command_error(format!(
                    "`P bucket id x y` has 5 fields, this one has {}",
                    f.len()
                )));
            }
            Ok(DynamicCommand::Patch(PatchPlacement {
                bucket: int(1, "bucket")?,
                id: int(2, "patch id")? as usize,
                at: Cell::new(int(3, "x")?, int(4, "y")?),
                line,
            }))
        }
        "Q" => {
            if f.len() != 6 + costs {
                return Err(command_error(format!(
                    "`Q bucket sx sy gx gy` and {costs} cost(s) make {} fields, this one has {}",
                    6 + costs,
                    f.len()
                )));
            }
            let printed = f[6 + octile];
            let optimal = match printed.parse::<f64>() {
                Ok(-1.0) => None,
                Ok(v) if v.is_finite() && v >= 0.0 => Some(v),
                _ => {
                    return Err(MapError::BadNumber {
                        file: source.to_string(),
                        line,
                        field: "octile cost (a length, or -1 for unreachable)",
                        value: excerpt(printed),
                    })
                }
            };
            let q = DynamicQuery {
                bucket: int(1, "bucket")?,
                start: Cell::new(int(2, "start x")?, int(3, "start y")?),
                goal: Cell::new(int(4, "goal x")?, int(5, "goal y")?),
                optimal,
                optimal_decimals: printed_decimals(printed),
                line,
            };
            for (what, p) in [("start", q.start), ("goal", q.goal)] {
                if p.x >= width || p.y >= height {
                    return Err(MapError::PointOutside {
                        file: source.to_string(),
                        line,
                        what,
                        x: p.x,
                        y: p.y,
                        width,
                        height,
                    });
                }
            }
            Ok(DynamicCommand::Query(q))
        }
        other => Err(command_error(format!(
            "expected `Q` (query) or `P` (patch), found {:?}",
            excerpt(other)
        ))),
    }
}

/// Parses the text of a patch file; `source` names it in errors.
///
/// # Errors
/// A [`MapError`] naming `source` and the line: a bad `type patch` or `patches N` line, a
/// patch header without `height`, `width` or `map`, or a file that ends early
/// ([`MapError::PatchHeader`]); a patch numbered out of order ([`MapError::PatchOrder`]); a
/// patch too large ([`MapError::TooLarge`]); a bad row ([`MapError::RowLength`],
/// [`MapError::UnknownChar`], [`MapError::TooFewRows`]).
pub fn parse_patches(text: &str, source: &str) -> Result<Vec<TerrainPatch>, MapError> {
    let file = || source.to_string();
    let header_error = |line: usize, message: String| MapError::PatchHeader {
        file: file(),
        line,
        message,
    };
    let mut rest = lines(text);
    let mut at_line = 1;
    let next = |rest: &mut _, at_line: &mut usize, what: &str| {
        next_nonblank(rest, at_line)
            .ok_or_else(|| header_error(*at_line, format!("the file ends where {what} should be")))
    };
    let (no, words) = next(&mut rest, &mut at_line, "`type patch`")?;
    if words != ["type", "patch"] {
        return Err(header_error(
            no,
            format!(
                "expected `type patch`, found {:?}",
                excerpt(&words.join(" "))
            ),
        ));
    }
    let (no, words) = next(&mut rest, &mut at_line, "`patches N`")?;
    let count = match words[..] {
        ["patches", n] => n.parse::<u64>().map_err(|_| MapError::BadNumber {
            file: file(),
            line: no,
            field: "patches",
            value: excerpt(n),
        })?,
        _ => {
            return Err(header_error(
                no,
                format!(
                    "expected `patches N`, found {:?}",
                    excerpt(&words.join(" "))
                ),
            ))
        }
    };

    let mut patches = Vec::new();
    while (patches.len() as u64) < count {
        let expected = patches.len();
        let what = format!("`patch {expected}`");
        let (no, words) = next(&mut rest, &mut at_line, &what)?;
        match words[..] {
            ["patch", n] if n.parse::<usize>().ok() == Some(expected) => {}
            ["patch", n] => {
                return Err(MapError::PatchOrder {
                    file: file(),
                    line: no,
                    expected,
                    found: excerpt(n),
                })
            }
            _ => {
                return Err(header_error(
                    no,
                    format!("expected {what}, found {:?}", excerpt(&words.join(" "))),
                ))
            }
        }
        let (mut height, mut width) = (None, None);
        let map_line = loop {
            let (no, words) = next(&mut rest, &mut at_line, "`height`, `width` or `map`")?;
            let number = |field: &'static str, v: &str| {
                v.parse::<u64>()
                    .ok()
                    .filter(|&v| v > 0)
                    .ok_or_else(|| MapError::BadNumber {
                        file: file(),
                        line: no,
                        field,
                        value: excerpt(v),
                    })
            };
            match words[..] {
                ["height", v] if height.is_none() => height = Some(number("height", v)?),
                ["width", v] if width.is_none() => width = Some(number("width", v)?),
                ["map"] => break no,
                _ => {
                    return Err(header_error(
                        no,
                        format!(
                            "expected patch {expected}'s `height`, `width` (once each) or `map`, found {:?}",
                            excerpt(&words.join(" "))
                        ),
                    ))
                }
            }
        };
        let missing =
            |key: &str| header_error(map_line, format!("patch {expected} has no `{key}` line"));
        let height = height.ok_or_else(|| missing("height"))?;
        let width = width.ok_or_else(|| missing("width"))?;
        check_size(width, height, source)?;
        // Rows are checked one by one before they are kept, so that a lying header costs
        // an error, not memory.
        let mut codes = Vec::new();
        for row in 0..height {
            // A blank line (the end of the file included) ends the rows early.
            let Some((no, line)) = rest.next().filter(|(_, l)| !l.trim().is_empty()) else {
                return Err(MapError::TooFewRows {
                    file: file(),
                    line: at_line,
                    expected: height,
                    found: row,
                });
            };
            at_line = no + 1;
            check_row(no, line, width, source)?;
            codes.extend_from_slice(line.as_bytes());
        }
        patches.push(TerrainPatch::new(width as u32, height as u32, codes));
    }
    if let Some((no, words)) = next_nonblank(&mut rest, &mut at_line) {
        return Err(header_error(
            no,
            format!(
                "the header says {count} patches, but more text follows: {:?}",
                excerpt(&words.join(" "))
            ),
        ));
    }
    Ok(patches)
}

/// The next line that is not blank, as its number and words; `at_line` follows the lines
/// read, for errors at the end of the file.
fn next_nonblank<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    at_line: &mut usize,
) -> Option<(usize, Vec<&'a str>)> {
    for (no, line) in lines.by_ref() {
        *at_line = no + 1;
        if !line.trim().is_empty() {
            return Some((no, line.split_whitespace().collect()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        "version 2\nheight 4\nwidth 5\ncost 2 manhattan octile\npatch p.patch\ncommands\n";

    #[test]
    fn queries_read_the_octile_cost_and_unreachable() {
        let s = parse_dynamic_scen(
            &format!("{HEADER}Q 0 0 0 4 3 7 5.24264\nP 1 0 2 1\nQ 2 4 3 0 0 -1 -1\n"),
            "s",
        )
        .unwrap();
        assert_eq!((s.width, s.height), (5, 4));
        let q: Vec<&DynamicQuery> = s.queries().collect();
        assert_eq!(q[0].optimal, Some(5.24264));
        assert_eq!(q[0].tolerance(), 1e-3);
        assert_eq!(q[1].optimal, None);
        assert_eq!(q[1].line, 9);
        assert_eq!(s.patch_count(), 1);
        assert!(matches!(
            s.commands[1],
            DynamicCommand::Patch(PatchPlacement {
                id: 0,
                at: Cell { x: 2, y: 1 },
                line: 8,
                ..
            })
        ));
    }

    #[test]
    fn patches_in_order_with_rows_checked() {
        let p = parse_patches(
            "type patch\npatches 2\npatch 0\nheight 1\nwidth 2\nmap\n@.\n\npatch 1\nwidth 1\nheight 2\nmap\nT\n.\n",
            "p",
        )
        .unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].codes(), b"T.");
        let e = parse_patches("type patch\npatches 2\npatch 1\n", "p").unwrap_err();
        assert!(
            matches!(
                e,
                MapError::PatchOrder {
                    line: 3,
                    expected: 0,
                    ..
                }
            ),
            "{e}"
        );
        let e = parse_patches(
            "type patch\npatches 1\npatch 0\nheight 2\nwidth 2\nmap\n..\n",
            "p",
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                MapError::TooFewRows {
                    line: 8,
                    found: 1,
                    ..
                }
            ),
            "{e}"
        );
    }
}
