//! `quadpath find`: one path on one map.

use crate::class::{ClassCosts, ClassOptions};
use crate::output::{self, cell_json, cells_json};
use crate::{
    check_endpoint, load_map, mode_name, parse_cell, path_error, render, CliError, MapOptions,
    MemoryOptions, ModeArg, EXIT_OK,
};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct FindArgs {
    /// The map: a Moving AI .map file or an obstacle bitmap (PNG, BMP, GIF, TGA, PNM)
    #[arg(value_name = "MAP")]
    pub map: PathBuf,
    /// Start cell as x,y (column,row; 0,0 is the top-left cell)
    #[arg(value_name = "SX,SY", allow_hyphen_values = true)]
    pub start: String,
    /// Goal cell as x,y
    #[arg(value_name = "GX,GY", allow_hyphen_values = true)]
    pub goal: String,
    /// Which structure to search
    #[arg(long, value_enum, default_value_t)]
    pub mode: ModeArg,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
    /// Also draw the map, the quadtree leaves, the gates and the path to this PNG
    #[arg(long, value_name = "OUT.png")]
    pub render: Option<PathBuf>,
    /// Pixels per cell in the --render image (lowered for huge maps)
    #[arg(long, value_name = "K", default_value_t = 4)]
    pub scale: u32,
    #[command(flatten)]
    pub class: ClassOptions,
    #[command(flatten)]
    pub costs: ClassCosts,
    #[command(flatten)]
    pub map_opts: MapOptions,
    #[command(flatten)]
    pub memory: MemoryOptions,
}

#[derive(Serialize)]
struct FindJson<'a> {
    start: [u32; 2],
    goal: [u32; 2],
    length: f64,
    /// What the path costs under `--costs`: `length` without them.
    cost: f64,
    path: Vec<[u32; 2]>,
    build_ms: f64,
    query_us: f64,
    mode: &'a str,
    /// The movement class, for a non-default one only.
    #[serde(skip_serializing_if = "Option::is_none")]
    class: Option<String>,
    /// The terrain costs (`G=0.5,S=3`), when some are not 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    costs: Option<String>,
}

pub fn run(a: FindArgs) -> Result<i32, CliError> {
    let start = parse_cell("start", &a.start)?;
    let goal = parse_cell("goal", &a.goal)?;
    let class = a.class.class_on(&a.costs, &a.map, &a.map_opts)?;
    let grid = load_map(&a.map, &a.map_opts)?;
    let problem = class.problem(&grid, &a.map)?;
    let open = &problem.open;
    check_endpoint(open, &class, &a.map, "start", start)?;
    check_endpoint(open, &class, &a.map, "goal", goal)?;
    let mode = a.mode.mode();
    let (layer, build_ms) = class.build(&grid, &problem, mode, &a.map, a.memory.limit())?;
    let hpa = layer.map();
    let t = Instant::now();
    let found = hpa.find_path(start, goal);
    let query_us = t.elapsed().as_secs_f64() * 1e6;
    let path = found.map_err(|e| path_error(&a.map, e))?;

    if let Some(out) = &a.render {
        let view = render::View {
            tree: true,
            gates: true,
            blocked_leaves: false,
            scale: a.scale,
            costs: class.weighted().then(|| class.costs()),
        };
        render::draw(
            &grid,
            open,
            &class,
            Some(hpa),
            Some(&path.cells),
            &view,
            out,
        )?;
    }

    let text = if a.json {
        output::json_line(&FindJson {
            start: cell_json(start),
            goal: cell_json(goal),
            length: path.length,
            cost: path.cost,
            path: cells_json(&path.cells),
            build_ms: output::round(build_ms, 4),
            query_us: output::round(query_us, 2),
            mode: mode_name(mode),
            class: class.label(),
            costs: class.costs_label(),
        })?
    } else {
        let mut s = output::map_header(&a.map, &grid, mode, &class);
        s += &format!("length   {:.6}\n", path.length);
        if class.weighted() {
            s += &format!("cost     {:.6}\n", path.cost);
        }
        s += &format!(
            "cells    {} ({} steps)\n",
            path.cells.len(),
            path.cells.len().saturating_sub(1)
        );
        s += &format!("build    {}\n", output::ms(build_ms));
        s += &format!("query    {}\n", output::us(query_us));
        s += "path    ";
        s += &output::wrapped_cells(&path.cells, 8);
        if let Some(out) = &a.render {
            s += &format!("render   {}\n", out.display());
        }
        s
    };
    output::emit(&text)?;
    Ok(EXIT_OK)
}
