//! `quadpath render`, and the drawing shared with `find --render`.

use crate::class::{Class, ClassCosts, ClassOptions};
use crate::output;
use crate::{
    check_endpoint, load_map, parse_cell, path_error, CliError, MapOptions, MemoryOptions, ModeArg,
    EXIT_OK,
};
use clap::Args;
use quadpath::io::{self, Overlay, RenderOptions};
use quadpath::{Cell, Grid, HpaMap, Rect, TerrainCosts};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct RenderArgs {
    /// The map: a Moving AI .map file or an obstacle bitmap (PNG, BMP, GIF, TGA, PNM)
    #[arg(value_name = "MAP")]
    pub map: PathBuf,
    /// The PNG to write
    #[arg(short, long, value_name = "OUT.png")]
    pub output: PathBuf,
    /// Pixels per cell (lowered for huge maps)
    #[arg(long, value_name = "K", default_value_t = 4)]
    pub scale: u32,
    /// Outline the quadtree's free leaves
    #[arg(long)]
    pub tree: bool,
    /// Outline the blocked leaves too (with --tree)
    #[arg(long, requires = "tree")]
    pub blocked_leaves: bool,
    /// Draw the gates: a line across each crossing between adjacent free leaves
    #[arg(long)]
    pub gates: bool,
    /// Find and draw a path between two cells, each written x,y
    #[arg(long, num_args = 2, value_names = ["SX,SY", "GX,GY"], allow_hyphen_values = true)]
    pub path: Option<Vec<String>>,
    /// Which structure to build for --tree, --gates and --path
    #[arg(long, value_enum, default_value_t)]
    pub mode: ModeArg,
    #[command(flatten)]
    pub class: ClassOptions,
    #[command(flatten)]
    pub costs: ClassCosts,
    #[command(flatten)]
    pub map_opts: MapOptions,
    #[command(flatten)]
    pub memory: MemoryOptions,
}

/// What to draw besides the cells.
pub struct View<'a> {
    pub tree: bool,
    pub gates: bool,
    pub blocked_leaves: bool,
    pub scale: u32,
    /// Tint free cells by these terrain costs (`None`: by terrain, as without costs).
    pub costs: Option<&'a TerrainCosts>,
}

/// Renders `grid` (the loaded map) with the requested overlays and saves it as PNG. The
/// tree and gate overlays come from `hpa`, which is only needed for them. For a
/// non-default `class`, the cells outside its open area (`open`, its grid) are tinted and
/// the path is drawn with the agent's footprint. With `view.costs`, free cells are tinted by
/// their terrain cost.
pub fn draw(
    grid: &Grid,
    open: &Grid,
    class: &Class,
    hpa: Option<&HpaMap>,
    path: Option<&[Cell]>,
    view: &View<'_>,
    out: &Path,
) -> Result<(), CliError> {
    let leaves: Vec<(Rect, bool)> = if let Some(hpa) = hpa.filter(|_| view.tree) {
        hpa.tree()
            .leaves()
            .map(|l| (l.rect(), hpa.is_free_leaf(&l)))
            .collect()
    } else {
        Vec::new()
    };
    let gates = if let Some(hpa) = hpa.filter(|_| view.gates) {
        hpa.crossings()
    } else {
        Vec::new()
    };
    let overlay = Overlay {
        leaves: &leaves,
        gates: &gates,
        path: path.unwrap_or(&[]),
        open: (!class.default).then_some(open),
        footprint: class.movement.size(),
        costs: view.costs,
        ..Default::default()
    };
    let opts = RenderOptions {
        scale: view.scale,
        blocked_leaves: view.blocked_leaves,
        ..Default::default()
    };
    let img = io::render(grid, &overlay, &opts);
    io::save_png(&img, out)?;
    Ok(())
}

pub fn run(a: RenderArgs) -> Result<i32, CliError> {
    let ends = match &a.path {
        Some(v) => match v.as_slice() {
            [s, g] => Some((parse_cell("start", s)?, parse_cell("goal", g)?)),
            _ => return Err(CliError::input("--path takes two cells: SX,SY GX,GY")),
        },
        None => None,
    };
    let class = a.class.class_on(&a.costs, &a.map, &a.map_opts)?;
    let costs = class.costs();
    let grid = load_map(&a.map, &a.map_opts)?;
    let problem = class.problem(&grid, &a.map)?;
    let open = &problem.open;
    if let Some((s, g)) = ends {
        check_endpoint(open, &class, &a.map, "start", s)?;
        check_endpoint(open, &class, &a.map, "goal", g)?;
    }
    // Only the overlays need the search structure: a plain render builds none.
    let layer = match a.tree || a.gates || ends.is_some() {
        true => {
            let (mode, limit) = (a.mode.mode(), a.memory.limit());
            Some(class.build(&grid, &problem, mode, &a.map, limit)?.0)
        }
        false => None,
    };
    let hpa = layer.as_ref().map(|l| l.map());
    let path = match (ends, hpa) {
        (Some((s, g)), Some(hpa)) => Some(hpa.find_path(s, g).map_err(|e| path_error(&a.map, e))?),
        _ => None,
    };
    let view = View {
        tree: a.tree,
        gates: a.gates,
        blocked_leaves: a.blocked_leaves,
        scale: a.scale,
        costs: class.weighted().then_some(costs),
    };
    draw(
        &grid,
        open,
        &class,
        hpa,
        path.as_ref().map(|p| p.cells.as_slice()),
        &view,
        &a.output,
    )?;
    let (width, height) = io::render_size(&grid, a.scale);
    let density = match io::cells_per_pixel(&grid) {
        1 => format!("{} per cell", io::effective_scale(&grid, a.scale)),
        d => format!("one per {d}x{d} cells"),
    };
    let mut msg = format!(
        "wrote {} ({width}x{height} pixels, {density})",
        a.output.display()
    );
    if let Some(c) = class.label() {
        msg += &format!("; class {c}");
    }
    if !costs.is_unit() {
        msg += &format!("; terrain costs {costs}");
    }
    if let Some(p) = &path {
        msg += &format!("; path length {:.6}", p.length);
        if !costs.is_unit() {
            msg += &format!(", cost {:.6}", p.cost);
        }
        msg += &format!(", {} cells", p.cells.len());
    }
    output::emit(&(msg + "\n"))?;
    Ok(EXIT_OK)
}
