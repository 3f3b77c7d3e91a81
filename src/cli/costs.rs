//! `--costs CODE=COST,...`: the terrain costs a command weighs its map with, and the grid a
//! movement class searches under them.

use super::class::Class;
use super::{CliError, MapOptions};
use clap::Args;
use quadpath::{Grid, TerrainCosts};
use std::borrow::Cow;
use std::path::Path;

/// The terrain costs; shared by the subcommands that take them.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Terrain costs")]
pub struct CostOptions {
    /// Cost per unit of step length of each listed terrain code, e.g. G=0.5,S=3 (roads twice
    /// as fast, swamps three times as slow); other codes cost 1
    ///
    /// A step from a to b costs its length times the mean of both cells' costs. Each COST is
    /// a number from 1/64 to 1e6, on a code the agent can stand on. Without --costs, the
    /// costs of a bitmap's --legend (`RRGGBB=C:COST` entries) apply.
    #[arg(long, value_name = "CODE=COST,...")]
    pub costs: Option<String>,
}

impl CostOptions {
    /// The costs for `class` on the map `map`: `--costs` when given, else the `--legend`'s
    /// when the map is a bitmap (limited to the codes the class can stand on: the legend
    /// describes the map, not the agent), else every code at 1.
    ///
    /// # Errors
    /// An input error naming `--costs` for a list that does not parse, a cost out of range,
    /// or a cost on a code the class cannot stand on; a malformed `--legend` as when loading.
    pub fn costs(
        &self,
        map: &Path,
        map_opts: &MapOptions,
        class: &Class,
    ) -> Result<TerrainCosts, CliError> {
        let passable = class.movement.passable();
        let Some(text) = &self.costs else {
            let legend = match is_bitmap(map) {
                true => map_opts.bitmap_options()?.legend,
                false => None,
            };
            let Some(legend) = legend else {
                return Ok(TerrainCosts::unit());
            };
            return legend
                .terrain_costs()
                .iter()
                .filter(|&(code, _)| passable.contains(code))
                .try_fold(TerrainCosts::unit(), |t, (code, cost)| t.with(code, cost))
                .map_err(|e| CliError::input(format!("--legend: {e}")));
        };
        let bad = |e| CliError::input(format!("--costs {text:?}: {e}"));
        let costs: TerrainCosts = text.parse().map_err(bad)?;
        costs.check_passable(passable).map_err(bad)?;
        Ok(costs)
    }
}

/// Whether `map` is read as an obstacle bitmap (anything but a `.map` file, as
/// [`quadpath::io::load_grid`] decides), so that its legend applies.
fn is_bitmap(map: &Path) -> bool {
    !map.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("map"))
}

/// The grid `class` searches under `costs`, with the terrain codes the costs read: `open`
/// (the class's open grid) when every cost is 1 or the class is the default one (whose
/// open grid is the loaded `grid` itself); for another 1×1 class, the loaded terrain with
/// the class's passable set.
///
/// # Errors
/// An input error for an agent larger than 1×1 with costs: its position costs the most
/// expensive cell under its footprint, which a grid of open positions cannot carry.
pub fn search_grid<'g>(
    grid: &'g Grid,
    open: &'g Grid,
    class: &Class,
    costs: &TerrainCosts,
) -> Result<Cow<'g, Grid>, CliError> {
    if costs.is_unit() || class.default {
        return Ok(Cow::Borrowed(open));
    }
    if class.movement.size() > 1 {
        return Err(CliError::input(format!(
            "--costs with --size {}: terrain costs are searched for 1x1 agents only here",
            class.movement.size()
        )));
    }
    let codes = grid.bounds().cells().map(|c| grid.terrain(c)).collect();
    Ok(Cow::Owned(Grid::from_terrain(
        grid.width(),
        grid.height(),
        codes,
        *class.movement.passable(),
    )))
}
