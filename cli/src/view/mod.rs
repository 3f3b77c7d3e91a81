//! `quadpath view`: an interactive map viewer, served on the loopback interface.
//!
//! [`state`] holds the map and answers from the library, [`api`] turns requests into
//! answers, [`server`] speaks HTTP, and `page/` is the page itself (HTML, CSS and
//! JavaScript embedded in the binary).

pub mod api;
pub mod army;
pub mod posthoc;
pub mod scenario;
pub mod server;
pub mod state;

use crate::error::{CliError, EXIT_OK};
use crate::load::{load_any, load_map, Loaded};
use crate::options::{MapOptions, ModeArg, SearchOptions};
use clap::Args;
use quadpath::Grid;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct ViewArgs {
    /// The map: a Moving AI .map file, an obstacle bitmap (PNG, BMP, GIF, TGA, PNM), or a
    /// scenario file (its map; for a version 2 file, the map its patches lay before its
    /// first query)
    #[arg(value_name = "MAP")]
    pub map: PathBuf,
    /// Which layer the page shows first (both are built and compared)
    #[arg(long, value_enum, default_value_t)]
    pub mode: ModeArg,
    /// The port to listen on; 0 picks a free one
    #[arg(long, value_name = "N", default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on. Anything but a loopback address lets other machines edit
    /// the map and load the process: give one only on a network you trust
    #[arg(long, value_name = "ADDR", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// Spawns N units of the class's size at random open cells (seeded by --units-seed),
    /// filed in the library's unit index and drawn by the page's unit-index layer
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub units: usize,
    /// The seed the --units army is drawn from
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub units_seed: u64,
    #[command(flatten)]
    pub search: SearchOptions,
}

/// Loads the map, builds both layers, prints the URL and serves until killed.
///
/// # Errors
/// Input errors for a map, class or address that does not work (exit status 2).
pub fn run(a: ViewArgs) -> Result<i32, CliError> {
    let class = a.search.class_on(&a.map)?;
    let (grid, scenario) = load_view_grid(&a.map, &a.search.map_opts)?;
    class.problem(&grid, &a.map)?;
    let map_error = |e: String| CliError::input(format!("{}: {e}", a.map.display()));
    let mut state = state::State::new(grid, class.movement.clone(), a.search.memory.limit())
        .map_err(map_error)?;
    if let Some(scenario) = scenario {
        state.open_scenario(scenario).map_err(map_error)?;
    }
    if a.units > 0 {
        state
            .spawn_units(a.units, a.units_seed)
            .map_err(|e| CliError::input(format!("--units: {e}")))?;
    }
    let server = server::Server::bind(SocketAddr::new(a.bind, a.port))
        .map_err(|e| CliError::input(format!("cannot listen on {}:{}: {e}", a.bind, a.port)))?;
    let mode = crate::options::mode_name(a.mode.mode());
    // The one line a script (or the tests) reads: flushed before serving.
    crate::output::emit(&format!(
        "quadpath view: http://{}/?mode={mode}\n",
        server.addr()
    ))?;
    let name = a.map.file_name().map_or_else(
        || a.map.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    server.serve(state, name);
    Ok(EXIT_OK)
}

/// The grid to show for `path` (a map or bitmap, or a scenario file's map: for a version 2
/// file the empty map its patches start from) and the scenario, for a scenario file.
fn load_view_grid(
    path: &Path,
    opts: &MapOptions,
) -> Result<(Grid, Option<scenario::Scenario>), CliError> {
    if !matches!(path.extension(), Some(e) if e == "scen") {
        return Ok((load_map(path, opts)?, None));
    }
    Ok(match load_any(path, None, opts)? {
        Loaded::Static(set) => (set.grid, Some(scenario::Scenario::from_static(&set.scen))),
        Loaded::Dynamic(set) => (
            set.scen.initial_grid(),
            Some(scenario::Scenario::from_dynamic(&set.scen)),
        ),
    })
}
