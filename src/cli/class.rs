//! `--size` and `--passable`: the movement class a command searches for, and the grid of
//! that class's open positions every command then works on.
//!
//! A class's problem is exactly the 1×1 problem on its open grid
//! ([`Movement::open_grid`]), so commands build, search, check and compare on that grid
//! and need no other change. The default class (1×1 on `.GS`) keeps the loaded grid
//! itself, so that every default output stays what it was.

use super::scen::Expected;
use super::CliError;
use clap::Args;
use quadpath::io::Scenario;
use quadpath::{baseline, Grid, Movement, TerrainSet};
use serde::Serialize;
use std::borrow::Cow;
use std::path::Path;

/// How far a quadpath length may be from the A* reference length of a class's query and
/// still equal it: both are sums of the same step costs, so only summation order differs.
pub const REFERENCE_TOLERANCE: f64 = 1e-6;

/// The movement class; shared by every subcommand that searches.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Movement class")]
pub struct ClassOptions {
    /// Agent size: the agent covers K x K cells from its top-left cell, which is its
    /// position (start, goal and path cells)
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub size: u32,
    /// Terrain characters the agent may stand on, e.g. .GSW for hovercraft
    #[arg(long, value_name = "CHARS", default_value = ".GS")]
    pub passable: String,
}

impl Default for ClassOptions {
    fn default() -> Self {
        ClassOptions {
            size: 1,
            passable: ".GS".into(),
        }
    }
}

impl ClassOptions {
    /// The class the flags describe.
    ///
    /// # Errors
    /// Input errors for a size out of range, and for an empty `--passable` or one with a
    /// character that is not printable ASCII (terrain codes are map characters).
    pub fn movement(&self) -> Result<Movement, CliError> {
        if self.passable.is_empty() {
            return Err(CliError::input(
                "--passable is empty: give the terrain characters the agent may stand on, e.g. .GS",
            ));
        }
        if let Some(bad) = self.passable.chars().find(|c| !c.is_ascii_graphic()) {
            return Err(CliError::input(format!(
                "--passable {:?}: {bad:?} is not a terrain character; use printable ASCII characters other than space, e.g. .GSW",
                self.passable
            )));
        }
        let passable: TerrainSet = self.passable.bytes().collect();
        Movement::default()
            .with_passable(passable)
            .with_size(self.size)
            .map_err(|e| CliError::input(format!("--size {}: {e}", self.size)))
    }

    /// The class, checked, with whether it is the default one.
    pub fn class(&self) -> Result<Class, CliError> {
        let movement = self.movement()?;
        let default = movement == Movement::default();
        Ok(Class { movement, default })
    }
}

/// A checked movement class.
#[derive(Clone, Debug)]
pub struct Class {
    pub movement: Movement,
    /// Whether it is 1×1 on `.GS`: then commands use the loaded grid as it is and print
    /// what they printed before classes existed.
    pub default: bool,
}

impl Class {
    /// The class's name for outputs (`2x2 on .GS`), or `None` for the default class, whose
    /// outputs do not mention it.
    pub fn label(&self) -> Option<String> {
        (!self.default).then(|| self.movement.to_string())
    }

    /// The grid the class searches: `grid` itself for the default class, else its open
    /// positions.
    ///
    /// # Errors
    /// An input error naming the class and the map when the agent is wider or taller than
    /// the map `map`, where it could stand nowhere.
    pub fn grid<'g>(&self, grid: &'g Grid, map: &Path) -> Result<Cow<'g, Grid>, CliError> {
        if self.default {
            return Ok(Cow::Borrowed(grid));
        }
        let k = self.movement.size();
        if k > grid.width() || k > grid.height() {
            return Err(CliError::input(format!(
                "{}: a {} agent does not fit on the {}x{} map",
                map.display(),
                self.movement,
                grid.width(),
                grid.height()
            )));
        }
        Ok(Cow::Owned(self.movement.open_grid(grid)))
    }

    /// Whether the class skips query `s`: its start or goal is not open for the class on
    /// its grid `open`. Never for the default class, whose scenario files are checked.
    pub fn skips(&self, open: &Grid, s: &Scenario) -> bool {
        let open_ends = open.is_free(s.start) && open.is_free(s.goal);
        !self.default && !open_ends
    }

    /// What a query of a static scenario file expects for this class: the file's line for
    /// the default class; for another, the length plain A* finds for the class, asked of
    /// `astar_length` (`None`: unreachable), since the file's lengths are for 1×1 agents.
    pub fn expected_with(
        &self,
        s: &Scenario,
        astar_length: impl FnOnce() -> Option<f64>,
    ) -> Expected {
        let file = Expected::from(s);
        if self.default {
            return file;
        }
        Expected {
            optimal: astar_length(),
            tolerance: REFERENCE_TOLERANCE,
            ..file
        }
    }

    /// [`Class::expected_with`] with A* run on the class's grid `open`, or `None` for a
    /// query the class [skips](Class::skips).
    pub fn expected(&self, open: &Grid, s: &Scenario) -> Option<Expected> {
        if self.skips(open, s) {
            return None;
        }
        Some(self.expected_with(s, || {
            baseline::astar(open, s.start, s.goal).map(|p| p.length)
        }))
    }

    /// Input error when the class skipped every one of the `total` queries of `scen`: a run
    /// that checked nothing must not pass for one that checked everything.
    pub fn require_some_open(
        &self,
        scen: &Path,
        total: usize,
        skipped: usize,
    ) -> Result<(), CliError> {
        match self.label() {
            Some(class) if total > 0 && skipped == total => Err(CliError::input(format!(
                "{}: none of the {total} queries has both ends open for a {class} agent: nothing to check",
                scen.display()
            ))),
            _ => Ok(()),
        }
    }

    /// Input error for version 2 (dynamic) scenarios, which lay patches on the map as they
    /// go: the commands replay them for 1×1 agents only.
    pub fn refuse_dynamic(&self, scen: &Path) -> Result<(), CliError> {
        match self.label() {
            None => Ok(()),
            Some(class) => Err(CliError::input(format!(
                "{}: movement classes are not supported for version 2 (dynamic) scenario replays; drop --size and --passable (asked for {class})",
                scen.display()
            ))),
        }
    }
}

/// The JSON keys a non-default class adds to a scenario summary or a bench row: its name
/// and how many queries it skipped. Both absent for the default class.
#[derive(Serialize, Default)]
pub struct ClassKeys {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<usize>,
}

impl ClassKeys {
    /// The keys of `class` with `skipped` queries.
    pub fn new(class: &Class, skipped: usize) -> Self {
        ClassKeys {
            skipped: class.label().map(|_| skipped),
            class: class.label(),
        }
    }

    /// The text summary's lines for them, in the layout of `scen`'s summary; none for the
    /// default class.
    pub fn lines(&self) -> String {
        let mut s = String::new();
        if let Some(c) = &self.class {
            s += &format!("  class           {c}\n");
        }
        if let Some(n) = self.skipped {
            s += &format!("  skipped         {n} (start or goal not open for the class)\n");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(size: u32, passable: &str) -> ClassOptions {
        ClassOptions {
            size,
            passable: passable.into(),
        }
    }

    #[test]
    fn flags_make_classes() {
        assert!(ClassOptions::default().class().unwrap().default);
        assert!(
            opts(1, "SG.").class().unwrap().default,
            "order does not matter"
        );
        let c = opts(2, ".GSW").class().unwrap();
        assert!(!c.default);
        assert_eq!(c.label().as_deref(), Some("2x2 on .GSW"));
        assert!(!opts(1, ".G").class().unwrap().default);
    }

    #[test]
    fn bad_flags_are_input_errors() {
        for (o, needle) in [
            (opts(0, ".GS"), "--size 0"),
            (opts(Movement::MAX_SIZE + 1, ".GS"), "--size 1025"),
            (opts(1, ""), "--passable is empty"),
            (opts(1, ". G"), "' '"),
            (opts(1, ".é"), "'é'"),
            (opts(1, ".\t"), "'\\t'"),
        ] {
            let e = o.class().unwrap_err();
            assert_eq!(e.code, super::super::EXIT_INPUT);
            assert!(e.message.contains(needle), "{}", e.message);
        }
    }

    #[test]
    fn an_agent_larger_than_the_map_is_refused() {
        let grid = Grid::new_free(3, 5);
        let c = opts(4, ".GS").class().unwrap();
        let e = c.grid(&grid, Path::new("m.map")).unwrap_err();
        assert!(e.message.contains("4x4 on .GS") && e.message.contains("3x5"));
        let fits = opts(3, ".GS").class().unwrap();
        assert_eq!(
            fits.grid(&grid, Path::new("m.map")).unwrap().free_count(),
            3
        );
    }
}
