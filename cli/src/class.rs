//! `--size`, `--passable` and `--costs`: the movement class a command searches for, and the
//! grid of that class's open positions every command then works on.
//!
//! A class's problem is exactly the 1×1 problem on its open grid
//! ([`Movement::open_grid`]), so commands build, search, check and compare on that grid
//! and need no other change. The default class (1×1 on `.GS`) keeps the loaded grid
//! itself, so that every default output stays what it was.
//!
//! Terrain costs keep that reduction: a position of a K×K agent costs the largest cost
//! under its footprint (see [`Movement`]), so the class's open grid, with each open position
//! given a terrain code whose cost is the position's, is a 1×1 problem with costs that
//! plain weighted A* ([`baseline::astar_with_costs`]) solves as the reference. The search
//! itself runs where the library offers it: [`HpaMap::with_costs`] for the default class,
//! a [`World`] layer for any other.

use crate::error::{build_error, CliError};
use crate::expected::Expected;
use crate::options::{ClassCosts, ClassOptions, MapOptions, SearchOptions};
use quadpath::io::Scenario;
use quadpath::{
    baseline, Cell, ClassId, Config, Grid, HpaMap, Mode, Movement, Path as QPath, TerrainCosts,
    TerrainSet, World, WorldError,
};
use serde::Serialize;
use std::borrow::Cow;
use std::path::Path;
use std::time::Instant;

/// How far a quadpath length may be from the A* reference length of a class's query and
/// still equal it: both are sums of the same step costs, so only summation order differs.
/// With terrain costs, which reach [`TerrainCosts::MAX`] a cell, it is relative to the
/// optimal cost (from 1 up), as [`quadpath::Path::validate`] checks a claimed cost.
pub const REFERENCE_TOLERANCE: f64 = 1e-6;

impl SearchOptions {
    /// The class the flags describe, for the map at `map` (see [`ClassOptions::class_on`]).
    ///
    /// # Errors
    /// As [`ClassOptions::class_on`].
    pub fn class_on(&self, map: &Path) -> Result<Class, CliError> {
        self.class.class_on(&self.costs, map, &self.map_opts)
    }

    /// The class the flags describe, whatever the map (see [`ClassOptions::class_with`]).
    ///
    /// # Errors
    /// As [`ClassOptions::class_with`].
    pub fn class(&self) -> Result<Class, CliError> {
        self.class.class_with(&self.costs)
    }
}

impl ClassOptions {
    /// The class the flags describe, at unit costs.
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

    /// The class, checked, at unit costs, with whether it is the default one.
    #[cfg(test)]
    pub fn class(&self) -> Result<Class, CliError> {
        self.class_with(&ClassCosts::default())
    }

    /// The class on the map `map`, checked, with the terrain costs of `costs`; without
    /// `--costs`, a bitmap's `--legend` costs (`RRGGBB=C:COST` entries) apply, limited to
    /// the codes the class can stand on: the legend describes the map, not the agent.
    ///
    /// # Errors
    /// As [`ClassOptions::class_with`], and a malformed `--legend` as when loading.
    pub fn class_on(
        &self,
        costs: &ClassCosts,
        map: &Path,
        map_opts: &MapOptions,
    ) -> Result<Class, CliError> {
        let mut class = self.class_with(costs)?;
        if costs.costs.is_some() || !quadpath::io::is_bitmap_path(map) {
            return Ok(class);
        }
        let Some(legend) = map_opts.bitmap_options()?.legend else {
            return Ok(class);
        };
        let passable = *class.movement.passable();
        let from_legend = legend
            .terrain_costs()
            .iter()
            .filter(|&(code, _)| passable.contains(code))
            .try_fold(TerrainCosts::unit(), |t, (code, cost)| t.with(code, cost))
            .map_err(|e| CliError::input(format!("--legend: {e}")))?;
        class.movement = class
            .movement
            .with_terrain_costs(from_legend)
            .map_err(|e| CliError::input(format!("--legend: {e}")))?;
        Ok(class)
    }

    /// The class, checked, with the terrain costs of `costs`.
    ///
    /// # Errors
    /// As [`ClassOptions::movement`], and an input error naming `--costs` and the entry
    /// for a cost list that does not read, a cost out of range, or a cost for a code the
    /// class cannot stand on.
    pub fn class_with(&self, costs: &ClassCosts) -> Result<Class, CliError> {
        let shape = self.movement()?;
        // Default whatever the costs: they change what a path costs, not where the agent
        // may stand, so the loaded grid still is the class's grid.
        let default = shape == Movement::default();
        let name = (!default).then(|| shape.to_string());
        let movement = match &costs.costs {
            None => shape,
            Some(text) => shape
                .clone()
                .with_terrain_costs(parse_costs(text, shape.passable())?)
                .map_err(|e| CliError::input(format!("--costs {text:?}: {e}")))?,
        };
        Ok(Class {
            movement,
            default,
            name,
        })
    }
}

/// `--costs` read strictly for a class standing on `passable` (see
/// [`TerrainCosts::parse_for`]): a cost table, or an input error naming the flag and the
/// entry.
fn parse_costs(text: &str, passable: &TerrainSet) -> Result<TerrainCosts, CliError> {
    TerrainCosts::parse_for(text, passable).map_err(|e| {
        CliError::input(format!(
            "--costs {text:?}: {e}; write CODE=COST entries separated by commas, e.g. G=0.5,S=3"
        ))
    })
}

/// A checked movement class.
#[derive(Clone, Debug)]
pub struct Class {
    /// Its size, passable terrain and terrain costs.
    pub movement: Movement,
    /// Whether it is 1×1 on `.GS` (whatever its costs): then commands use the loaded grid
    /// as it is and print what they printed before classes existed, plus the costs.
    pub default: bool,
    /// [`Class::label`].
    name: Option<String>,
}

impl Class {
    /// The class's name for outputs (`2x2 on .GS`), or `None` for the default class, whose
    /// outputs do not mention it. Its costs are named apart ([`Class::costs_label`]).
    pub fn label(&self) -> Option<String> {
        self.name.clone()
    }

    /// The class's terrain costs.
    pub fn costs(&self) -> &TerrainCosts {
        self.movement.terrain_costs()
    }

    /// Whether some terrain costs other than 1: then paths are judged by their cost, and
    /// `scen` and `bench` take their reference from weighted A*.
    pub fn weighted(&self) -> bool {
        !self.movement.has_unit_costs()
    }

    /// The costs for outputs (`G=0.5,S=3`), or `None` at unit costs, whose outputs do not
    /// mention them.
    pub fn costs_label(&self) -> Option<String> {
        self.weighted().then(|| self.costs().to_string())
    }

    /// The grid the class searches: `grid` itself for the default class, else its open
    /// positions (see [`Class::problem`]).
    ///
    /// # Errors
    /// As [`Class::problem`].
    #[cfg(test)]
    pub fn grid<'g>(&self, grid: &'g Grid, map: &Path) -> Result<Cow<'g, Grid>, CliError> {
        Ok(self.problem(grid, map)?.open)
    }

    /// The 1×1 problem the class poses on `grid`: its open positions and what they cost.
    /// `grid` itself with the class's costs for the default class; else the class's open
    /// positions, at unit costs or, with costs, each open position on a terrain code that
    /// costs what the position costs.
    ///
    /// # Errors
    /// An input error naming the class and the map when the agent is wider or taller than
    /// the map `map`, where it could stand nowhere.
    pub fn problem<'g>(&self, grid: &'g Grid, map: &Path) -> Result<Problem<'g>, CliError> {
        if self.default {
            return Ok(Problem {
                open: Cow::Borrowed(grid),
                costs: self.costs().clone(),
            });
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
        if !self.weighted() {
            return Ok(Problem {
                open: Cow::Owned(self.movement.open_grid(grid)),
                costs: TerrainCosts::unit(),
            });
        }
        let (open, costs) = position_costs(&self.movement, grid)?;
        Ok(Problem {
            open: Cow::Owned(open),
            costs,
        })
    }

    /// Builds the class's search structure on the map `grid` (whose class problem is
    /// `problem`) in `mode` within `max_memory` bytes, timing it; returns it with the build
    /// time in ms. Without costs, an [`HpaMap`] on the open grid, as before costs existed;
    /// with costs, [`HpaMap::with_costs`] on the loaded grid for the default class, and
    /// the class's layer of a [`World`] for any other, so that the library's own handling
    /// of costs is what runs (and what the reference checks).
    ///
    /// # Errors
    /// An input error naming the map `map` when the structure cannot be built (the memory
    /// limit, among others).
    pub fn build(
        &self,
        grid: &Grid,
        problem: &Problem<'_>,
        mode: Mode,
        map: &Path,
        max_memory: usize,
    ) -> Result<(Layer, f64), CliError> {
        let t = Instant::now();
        let config = Config::from(mode).with_max_memory(Some(max_memory));
        // The problem's grid carries what it costs: unit costs on the open positions, or
        // the class's own costs on the loaded grid for the default class.
        let layer = if self.default || !self.weighted() {
            let open = Grid::clone(&problem.open);
            Layer::Map(Box::new(
                HpaMap::with_costs(open, problem.costs.clone(), config)
                    .map_err(|e| build_error(map, e))?,
            ))
        } else {
            let mut world = World::new(grid.clone());
            let id = world
                .add_class(self.movement.clone(), config)
                .map_err(|e| match e {
                    WorldError::Build { error, .. } => build_error(map, error),
                    e => CliError::input(format!("{}: {e}", map.display())),
                })?;
            Layer::World(world, id)
        };
        Ok((layer, t.elapsed().as_secs_f64() * 1e3))
    }

    /// Whether the class skips query `s`: its start or goal is not open for the class on
    /// its grid `open`. Never for the default class, whose scenario files are checked.
    pub fn skips(&self, open: &Grid, s: &Scenario) -> bool {
        let open_ends = open.is_free(s.start) && open.is_free(s.goal);
        !self.default && !open_ends
    }

    /// What a query of a static scenario file expects for this class: the file's line for
    /// the default class at unit costs; for another, or with costs, the cost the A*
    /// reference finds for the class, asked of `astar_cost` (`None`: unreachable), since
    /// the file's lengths are for 1×1 agents at unit cost.
    pub fn expected_with(
        &self,
        s: &Scenario,
        astar_cost: impl FnOnce() -> Option<f64>,
    ) -> Expected {
        let file = Expected::from(s);
        if self.default && !self.weighted() {
            return file;
        }
        let optimal = astar_cost();
        let scale = match (self.weighted(), optimal) {
            (true, Some(cost)) => cost.max(1.0),
            _ => 1.0,
        };
        Expected {
            optimal,
            tolerance: REFERENCE_TOLERANCE * scale,
            ..file
        }
    }

    /// [`Class::expected_with`] with the A* reference run on the class's `problem`, or
    /// `None` for a query the class [skips](Class::skips).
    pub fn expected(&self, problem: &Problem<'_>, s: &Scenario) -> Option<Expected> {
        if self.skips(&problem.open, s) {
            return None;
        }
        Some(self.expected_with(s, || problem.astar(s.start, s.goal).map(|p| p.cost)))
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
    /// go: the commands replay them for 1×1 agents at unit costs only.
    pub fn refuse_dynamic(&self, scen: &Path) -> Result<(), CliError> {
        if let Some(class) = self.label() {
            return Err(CliError::input(format!(
                "{}: movement classes are not supported for version 2 (dynamic) scenario replays; drop --size and --passable (asked for {class})",
                scen.display()
            )));
        }
        match self.costs_label() {
            None => Ok(()),
            Some(costs) => Err(CliError::input(format!(
                "{}: terrain costs are not supported for version 2 (dynamic) scenario replays; drop --costs (asked for {costs})",
                scen.display()
            ))),
        }
    }
}

/// The 1×1 problem a class poses on a map (see [`Class::problem`]): the grid whose free
/// cells are the class's open positions, and the terrain costs that make a step on it cost
/// what the class's step costs.
pub struct Problem<'g> {
    /// The open positions; for a class with costs, on terrain codes that carry them.
    pub open: Cow<'g, Grid>,
    /// The costs of `open`'s terrain codes (unit for a class without costs).
    pub costs: TerrainCosts,
}

impl Problem<'_> {
    /// The reference path from `start` to `goal`: plain A* at unit costs, weighted A*
    /// otherwise; `None` when the goal is unreachable.
    pub fn astar(&self, start: Cell, goal: Cell) -> Option<QPath> {
        if self.costs.is_unit() {
            baseline::astar(&self.open, start, goal)
        } else {
            baseline::astar_with_costs(&self.open, &self.costs, start, goal)
        }
    }
}

/// A class's search structure: an [`HpaMap`] of its own, or the class's layer of a
/// [`World`] (which keeps the clearance field the layer is derived from).
pub enum Layer {
    /// Boxed: an `HpaMap` is some ten times the size of a `World` handle.
    Map(Box<HpaMap>),
    World(World, ClassId),
}

impl Layer {
    /// The map searched: queries, flow fields and renders read it.
    pub fn map(&self) -> &HpaMap {
        match self {
            Layer::Map(map) => map.as_ref(),
            Layer::World(world, id) => world.layer(*id).expect("the class was registered"),
        }
    }

    /// The heap bytes of the whole structure: a world's clearance fields included.
    pub fn memory_bytes(&self) -> usize {
        match self {
            Layer::Map(map) => map.memory_bytes(),
            Layer::World(world, _) => world.memory_bytes(),
        }
    }
}

/// The terrain code of a cell no position of the class may take: above every cost band
/// (there are at most [`TerrainCosts::MAX_DISTINCT`] of them, codes 0 to 254).
const NOT_OPEN: u8 = u8::MAX;

/// The open positions of `movement` (which has costs) on `grid` as a 1×1 problem: each open
/// position on the terrain code of its cost band, bands numbered by increasing cost, and
/// the table of what each band costs. A position costs the largest cost under its
/// footprint, which is the largest band under it, so a sliding maximum over the K×K
/// windows of the cells' bands gives every position's band in time linear in the map.
fn position_costs(movement: &Movement, grid: &Grid) -> Result<(Grid, TerrainCosts), CliError> {
    let passable = movement.passable();
    let mut bands: Vec<f32> = passable.iter().map(|c| movement.terrain_cost(c)).collect();
    bands.sort_unstable_by(f32::total_cmp);
    bands.dedup();
    let (w, h) = (grid.width() as usize, grid.height() as usize);
    let mut cells = Vec::with_capacity(w * h);
    for y in 0..h as u32 {
        for x in 0..w as u32 {
            let c = Cell::new(x, y);
            let code = grid.terrain(c);
            cells.push(if passable.contains(code) && !grid.is_obstructed(c) {
                let cost = movement.terrain_cost(code);
                bands.partition_point(|&b| b < cost) as u8
            } else {
                NOT_OPEN
            });
        }
    }
    let k = movement.size() as usize;
    let codes = window_max(&cells, w, h, k);
    let mut costs = TerrainCosts::unit();
    for (band, &cost) in bands.iter().enumerate() {
        costs = costs
            .with(band as u8, cost)
            .map_err(|e| CliError::input(format!("--costs: {e}")))?;
    }
    let open_codes: TerrainSet = (0..bands.len() as u8).collect();
    Ok((
        Grid::from_terrain(w as u32, h as u32, codes, open_codes),
        costs,
    ))
}

/// The largest of `values` (a `w × h` grid, row by row) over the `k × k` square from each
/// cell; [`NOT_OPEN`] where the square leaves the grid. One pass along the rows then one
/// along the columns, each a sliding maximum.
fn window_max(values: &[u8], w: usize, h: usize, k: usize) -> Vec<u8> {
    let mut rows = vec![NOT_OPEN; w * h];
    for y in 0..h {
        sliding_max(|x| values[y * w + x], w, k, |x, v| rows[y * w + x] = v);
    }
    let mut out = vec![NOT_OPEN; w * h];
    for x in 0..w {
        sliding_max(|y| rows[y * w + x], h, k, |y, v| out[y * w + x] = v);
    }
    out
}

/// Calls `put(i, m)` with the largest of `get(i..i + k)` for every window that fits in
/// `len` values, keeping the indices of the window's candidates for the maximum
/// (decreasing values) in a deque.
fn sliding_max(get: impl Fn(usize) -> u8, len: usize, k: usize, mut put: impl FnMut(usize, u8)) {
    let mut best: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
    for i in 0..len {
        while best.back().is_some_and(|&j| get(j) <= get(i)) {
            best.pop_back();
        }
        best.push_back(i);
        if best.front().is_some_and(|&j| j + k <= i) {
            best.pop_front();
        }
        if i + 1 >= k {
            let start = i + 1 - k;
            put(start, best.front().map_or(NOT_OPEN, |&j| get(j)));
        }
    }
}

/// The JSON keys a non-default class adds to a scenario summary or a bench row: its name
/// and how many queries it skipped, both absent for the default class; and its terrain
/// costs (`G=0.5,S=3`), absent at unit costs.
#[derive(Serialize, Default)]
pub struct ClassKeys {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub costs: Option<String>,
}

impl ClassKeys {
    /// The keys of `class` with `skipped` queries.
    pub fn new(class: &Class, skipped: usize) -> Self {
        ClassKeys {
            skipped: class.label().map(|_| skipped),
            class: class.label(),
            costs: class.costs_label(),
        }
    }

    /// The text summary's lines for them, in the layout of `scen`'s summary; none for the
    /// default class at unit costs.
    pub fn lines(&self) -> String {
        let mut s = String::new();
        if let Some(c) = &self.class {
            s += &format!("  class           {c}\n");
        }
        if let Some(c) = &self.costs {
            s += &format!("  costs           {c} (paths judged by cost against weighted A*)\n");
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
            assert_eq!(e.code, crate::error::EXIT_INPUT);
            assert!(e.message.contains(needle), "{}", e.message);
        }
    }

    #[test]
    fn costs_flags_are_checked() {
        let with = |size, passable: &str, costs: &str| {
            opts(size, passable).class_with(&ClassCosts {
                costs: Some(costs.into()),
            })
        };
        let c = with(1, ".GS", "G=0.5,S=3").unwrap();
        assert!(
            c.default && c.weighted(),
            "costs do not change where the agent stands"
        );
        assert_eq!(c.label(), None);
        assert_eq!(c.costs_label().as_deref(), Some("G=0.5,S=3"));
        let c = with(2, ".GSW", "W=4").unwrap();
        assert_eq!(
            c.label().as_deref(),
            Some("2x2 on .GSW"),
            "costs are named apart"
        );
        // An empty list is a mistake, not "no costs" (issue 26 §4).
        assert!(with(1, ".GS", "").is_err());
        for (result, needles) in [
            (
                with(1, ".GS", "G=0.5,S"),
                &["--costs", "entry 2", "\"S\""][..],
            ),
            (
                with(1, ".GS", "G=fast"),
                &["--costs", "entry 1", "not a number"],
            ),
            (with(1, ".GS", "S=0"), &["--costs", "'S'", "cannot cost 0"]),
            (with(1, ".GS", "G=-1"), &["--costs", "'G'"]),
            (with(1, ".GS", "G=inf"), &["--costs", "'G'"]),
            (with(1, ".GS", "W=2"), &["--costs", "'W'", "not passable"]),
            (with(2, ".GS", "Z=2"), &["--costs", "'Z'", "not passable"]),
        ] {
            let e = result.unwrap_err();
            assert_eq!(e.code, crate::error::EXIT_INPUT);
            for n in needles {
                assert!(e.message.contains(n), "{n:?} in {}", e.message);
            }
            assert!(!e.message.contains('\n'), "{}", e.message);
        }
    }

    /// The position-cost grid against the library's own model: the same open positions
    /// as [`Movement::open_grid`], and on each the cost [`Movement::position_cost`] gives.
    #[test]
    fn position_costs_follow_the_model() {
        let rows = [
            "..GG.S..W.",
            ".@GG.SS.W.",
            "..GG..S...",
            "SSGG@.....",
            "..GGGGGGGG",
            "T.....S...",
        ];
        let (w, h) = (rows[0].len() as u32, rows.len() as u32);
        let codes: Vec<u8> = rows.iter().flat_map(|r| r.bytes()).collect();
        let mut grid = Grid::from_terrain(w, h, codes, TerrainSet::moving_ai());
        grid.set_obstructed(Cell::new(7, 0), true);
        for (size, passable, costs) in [
            (1, ".GS", "G=0.5,S=3"),
            (2, ".GS", "G=0.5,S=3"),
            (3, ".GSW", "W=7,S=2"),
            (2, ".GST", "T=0.25"),
            (6, ".GSTW@", "@=9"),
            (5, ".GS", "S=2"),
        ] {
            let class = opts(size, passable)
                .class_with(&ClassCosts {
                    costs: Some(costs.into()),
                })
                .unwrap();
            let m = &class.movement;
            let problem = class.problem(&grid, Path::new("m.map")).unwrap();
            let open = m.open_grid(&grid);
            for y in 0..h {
                for x in 0..w {
                    let c = Cell::new(x, y);
                    assert_eq!(problem.open.is_free(c), open.is_free(c), "{m} at {c}");
                    if open.is_free(c) {
                        let cost = problem.costs.cell_cost(&problem.open, c);
                        assert_eq!(cost, m.position_cost(&grid, c), "{m} at {c}");
                    }
                }
            }
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
