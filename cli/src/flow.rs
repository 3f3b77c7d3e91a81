//! `quadpath flow`: a flow field to one goal, the routes it gives from some cells, and its
//! heat map.

use crate::class::{ClassCosts, ClassOptions};
use crate::output::{self, cell_json, cells_json};
use crate::{
    check_endpoint, load_map, mode_name, parse_cell, CliError, MapOptions, MemoryOptions, ModeArg,
    EXIT_FAILED, EXIT_OK,
};
use clap::Args;
use quadpath::io::{self, FieldOverlay, FieldRenderOptions};
use quadpath::{Cell, FlowField, Grid, HpaMap, Mode};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct FlowArgs {
    /// The map: a Moving AI .map file or an obstacle bitmap (PNG, BMP, GIF, TGA, PNM)
    #[arg(value_name = "MAP")]
    pub map: PathBuf,
    /// Goal cell as x,y (column,row; 0,0 is the top-left cell)
    #[arg(value_name = "GX,GY", allow_hyphen_values = true)]
    pub goal: String,
    /// A cell to follow the field from, as x,y; repeat for more (--from 3,3 --from 10,2)
    #[arg(long, value_name = "X,Y", allow_hyphen_values = true)]
    pub from: Vec<String>,
    /// Which structure to build the field on (fast: one Dijkstra over every cell, eager)
    #[arg(long, value_enum, default_value_t)]
    pub mode: ModeArg,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
    /// Also draw the distance field as a heat map with arrows, the goal and the paths
    #[arg(long, value_name = "OUT.png")]
    pub render: Option<PathBuf>,
    /// Pixels per cell in the --render image. Default: the map's longer side drawn over
    /// about 768 pixels, 1 to 8 per cell
    #[arg(long, value_name = "K")]
    pub scale: Option<u32>,
    #[command(flatten)]
    pub class: ClassOptions,
    #[command(flatten)]
    pub costs: ClassCosts,
    #[command(flatten)]
    pub map_opts: MapOptions,
    #[command(flatten)]
    pub memory: MemoryOptions,
}

/// The longer side of a `--render` image without `--scale`, in pixels (about).
const RENDER_SIDE: u32 = 768;
/// The most pixels per cell without `--scale`.
const MAX_AUTO_SCALE: u32 = 8;

#[derive(Serialize)]
struct FlowJson<'a> {
    goal: [u32; 2],
    /// The flow field's computation, not the map's build.
    build_ms: f64,
    map_build_ms: f64,
    mode: &'a str,
    /// The movement class, for a non-default one only.
    #[serde(skip_serializing_if = "Option::is_none")]
    class: Option<String>,
    /// The terrain costs (`G=0.5,S=3`), when some are not 1: distances are costs then.
    #[serde(skip_serializing_if = "Option::is_none")]
    costs: Option<String>,
    /// The field's heap bytes after the queries (before any render).
    memory_bytes: usize,
    /// Leaves whose per-cell distances the queries worked out.
    computed_leaves: usize,
    results: Vec<FromJson>,
}

#[derive(Serialize)]
struct FromJson {
    from: [u32; 2],
    /// What reaching the goal costs (the geometric distance without `--costs`); `null`
    /// when the goal cannot be reached.
    distance: Option<f64>,
    /// The route's geometric length; `null` when the goal cannot be reached.
    length: Option<f64>,
    /// What the route costs: its `distance`; `null` when the goal cannot be reached.
    cost: Option<f64>,
    /// Empty when the goal cannot be reached.
    path: Vec<[u32; 2]>,
    query_us: f64,
}

/// One `--from` cell's answer.
struct Route {
    from: Cell,
    distance: Option<f64>,
    /// The route the field gives, with its length and cost; `None` when cut off.
    route: Option<quadpath::Path>,
    query_us: f64,
}

impl Route {
    /// The route's cells; none when cut off.
    fn cells(&self) -> &[Cell] {
        self.route.as_ref().map_or(&[], |p| &p.cells)
    }
}

pub fn run(a: FlowArgs) -> Result<i32, CliError> {
    let goal = parse_cell("goal", &a.goal)?;
    let froms = a
        .from
        .iter()
        .map(|s| parse_cell("--from", s))
        .collect::<Result<Vec<_>, _>>()?;
    let class = a.class.class_on(&a.costs, &a.map, &a.map_opts)?;
    let grid = load_map(&a.map, &a.map_opts)?;
    let problem = class.problem(&grid, &a.map)?;
    let open = &problem.open;
    check_endpoint(open, &class, &a.map, "goal", goal)?;
    for &c in &froms {
        check_endpoint(open, &class, &a.map, "--from", c)?;
    }
    let mode = a.mode.mode();
    let (layer, map_build_ms) = class.build(&grid, &problem, mode, &a.map, a.memory.limit())?;
    let hpa = layer.map();
    let t = Instant::now();
    let field = hpa.flow_field(goal).map_err(|e| flow_error(&a.map, e))?;
    let build_ms = t.elapsed().as_secs_f64() * 1e3;

    let routes = froms
        .iter()
        .map(|&from| {
            let t = Instant::now();
            let distance = field
                .distance(hpa, from)
                .map_err(|e| flow_error(&a.map, e))?;
            let route = field
                .path_from(hpa, from)
                .map_err(|e| flow_error(&a.map, e))?;
            Ok(Route {
                from,
                distance,
                route,
                query_us: t.elapsed().as_secs_f64() * 1e6,
            })
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    // What the queries cost, before a render works out every leaf.
    let (memory_bytes, computed_leaves) = (field.memory_bytes(), field.computed_leaves());

    let render_note = match &a.render {
        Some(out) => Some(draw(&grid, open, hpa, &field, &routes, a.scale, out)?),
        None => None,
    };

    let text = if a.json {
        output::json_line(&FlowJson {
            goal: cell_json(goal),
            build_ms: output::round(build_ms, 4),
            map_build_ms: output::round(map_build_ms, 4),
            mode: mode_name(mode),
            class: class.label(),
            costs: class.costs_label(),
            memory_bytes,
            computed_leaves,
            results: routes
                .iter()
                .map(|r| FromJson {
                    from: cell_json(r.from),
                    distance: r.distance,
                    length: r.route.as_ref().map(|p| p.length),
                    cost: r.route.as_ref().map(|p| p.cost),
                    path: cells_json(r.cells()),
                    query_us: output::round(r.query_us, 2),
                })
                .collect(),
        })?
    } else {
        let mut s = output::map_header(&a.map, &grid, mode, &class);
        s += &format!("goal     {goal}\n");
        s += &format!(
            "build    {} (flow field), {} (map)\n",
            output::ms(build_ms),
            output::ms(map_build_ms)
        );
        let held = match mode {
            Mode::Exact => format!("{computed_leaves} leaves worked out"),
            Mode::Fast => "every cell at once (fast mode)".to_string(),
        };
        s += &format!("field    {}, {held}\n", output::bytes(memory_bytes));
        for r in &routes {
            s += &format!("\nfrom     {}\n", r.from);
            match r.distance {
                Some(d) => {
                    s += &format!("distance {d:.6}\n");
                    // The distance is a cost then: the route's geometry is told apart.
                    if let (true, Some(p)) = (class.weighted(), &r.route) {
                        s += &format!("length   {:.6}\n", p.length);
                    }
                    s += &format!(
                        "cells    {} ({} steps)\n",
                        r.cells().len(),
                        r.cells().len().saturating_sub(1)
                    );
                }
                None => s += "distance unreachable\n",
            }
            s += &format!("query    {}\n", output::us(r.query_us));
            if !r.cells().is_empty() {
                s += "path    ";
                s += &output::wrapped_cells(r.cells(), 8);
            }
        }
        if let Some(note) = &render_note {
            s += &format!("\nrender   {note}\n");
        }
        s
    };
    output::emit(&text)?;

    let cut_off: Vec<String> = routes
        .iter()
        .filter(|r| r.distance.is_none())
        .map(|r| r.from.to_string())
        .collect();
    if cut_off.is_empty() {
        return Ok(EXIT_OK);
    }
    output::warn(&format!(
        "quadpath: error: {}: the goal {goal} cannot be reached from {} of the {} --from cells: {}",
        a.map.display(),
        cut_off.len(),
        routes.len(),
        cut_off.join(" ")
    ));
    Ok(EXIT_FAILED)
}

/// A flow field that cannot be built or read: an input error (the goal and every `--from`
/// are checked first, so this is not expected).
fn flow_error(map: &Path, e: quadpath::FlowError) -> CliError {
    CliError::input(format!("{}: {e}", map.display()))
}

/// Renders the field's heat map with the routes to `out`; returns what to say about it.
fn draw(
    grid: &Grid,
    open: &Grid,
    hpa: &HpaMap,
    field: &FlowField,
    routes: &[Route],
    scale: Option<u32>,
    out: &Path,
) -> Result<String, CliError> {
    let scale = scale.unwrap_or_else(|| {
        let side = grid.width().max(grid.height());
        (RENDER_SIDE / side).clamp(1, MAX_AUTO_SCALE)
    });
    let distance = |c: Cell| field.distance(hpa, c).ok().flatten();
    let next_step = |c: Cell| field.next_step(hpa, c).ok().flatten();
    let paths: Vec<Vec<Cell>> = routes.iter().map(|r| r.cells().to_vec()).collect();
    let overlay = FieldOverlay {
        distance: &distance,
        next_step: &next_step,
        goal: field.goal().area(),
        paths: &paths,
        open: Some(open),
    };
    let opts = FieldRenderOptions {
        scale,
        ..Default::default()
    };
    let img = io::render_field(grid, &overlay, &opts);
    io::save_png(&img, out)?;
    let n = io::arrow_block(grid, scale, opts.arrow_spacing) * io::cells_per_pixel(grid);
    let density = match io::cells_per_pixel(grid) {
        1 => format!("{} per cell", io::effective_scale(grid, scale)),
        d => format!("one per {d}x{d} cells"),
    };
    Ok(format!(
        "{} ({}x{} pixels, {density}; an arrow per {n}x{n} cells)",
        out.display(),
        img.width(),
        img.height(),
    ))
}
