//! `quadpath info`: the map and the structure built on it.

use crate::error::{CliError, EXIT_OK};
use crate::load::load_map;
use crate::options::SearchOptions;
use crate::options::{mode_name, ModesArg};
use crate::output;
use clap::Args;
use quadpath::ClearanceField;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The map: a Moving AI .map file or an obstacle bitmap (PNG, BMP, GIF, TGA, PNM)
    #[arg(value_name = "MAP")]
    pub map: PathBuf,
    /// Which modes to build and describe
    #[arg(long, value_enum, default_value_t)]
    pub mode: ModesArg,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub search: SearchOptions,
}

#[derive(Serialize)]
struct Info {
    map: String,
    width: u32,
    height: u32,
    cells: u64,
    free_cells: u64,
    free_share: f64,
    /// For a non-default movement class only: its open area. The tree and the modes then
    /// describe the structure built on the class's open positions.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    class: Option<ClassInfo>,
    /// The terrain costs (`G=0.5,S=3`) the structure was built for, when some are not 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    costs: Option<String>,
    tree: TreeInfo,
    modes: Vec<ModeInfo>,
}

/// A movement class's open area and the memory it needs beside its own structure.
#[derive(Serialize)]
struct ClassInfo {
    /// The class, e.g. `2x2 on .GS`.
    class: String,
    /// Positions the class may stand at (top-left cells of its footprint).
    open_positions: u64,
    open_share: f64,
    /// The clearance field of the class's terrain set, capped at its size: the memory a
    /// `World` shares between every class on that terrain set, beside each class's layer
    /// (the modes' `memory_bytes`).
    clearance_bytes: usize,
}

#[derive(Serialize)]
struct TreeInfo {
    depth: u32,
    nodes: usize,
    leaves: usize,
    free_leaves: usize,
    blocked_leaves: usize,
    /// Cells covered by free leaves: equal to the free cells.
    free_leaf_cells: u64,
}

#[derive(Serialize)]
struct ModeInfo {
    mode: &'static str,
    gates: usize,
    crossings: usize,
    components: usize,
    clusters: usize,
    landmarks: usize,
    build_ms: f64,
    memory_bytes: usize,
    /// `memory_bytes` part by part (`HpaMap::memory_breakdown`).
    memory_parts: BTreeMap<&'static str, usize>,
    /// The build's steps, in ms (`HpaMap::build_profile`), each its own time: each is
    /// less than `build_ms` (which also counts the copy of the grid); built on one thread
    /// they add up to a little less than it, and with the library's `parallel` feature,
    /// where some steps run side by side, they may add up to more.
    build_parts_ms: BTreeMap<&'static str, f64>,
}

pub fn run(a: InfoArgs) -> Result<i32, CliError> {
    let class = a.search.class_on(&a.map)?;
    let grid = load_map(&a.map, &a.search.map_opts)?;
    let problem = class.problem(&grid, &a.map)?;
    let open = &problem.open;
    let mut tree = None;
    let mut modes = Vec::new();
    for m in a.mode.modes() {
        let (layer, build_ms) = class.build(&grid, &problem, m, &a.map, a.search.memory.limit())?;
        // The class's own layer: a world's clearance field is told apart below.
        let hpa = layer.map();
        if tree.is_none() {
            let t = hpa.tree();
            let (mut free_leaves, mut free_leaf_cells) = (0, 0);
            for l in t.leaves().filter(|l| hpa.is_free_leaf(l)) {
                free_leaves += 1;
                free_leaf_cells += l.rect().area();
            }
            tree = Some(TreeInfo {
                depth: t.depth(),
                nodes: t.node_count(),
                leaves: t.leaf_count(),
                free_leaves,
                blocked_leaves: t.leaf_count() - free_leaves,
                free_leaf_cells,
            });
        }
        modes.push(ModeInfo {
            mode: mode_name(m),
            gates: hpa.gate_count(),
            crossings: hpa.crossing_count(),
            components: hpa.component_count(),
            clusters: hpa.cluster_count(),
            landmarks: hpa.landmark_count(),
            build_ms: output::round(build_ms, 4),
            memory_bytes: hpa.memory_bytes(),
            memory_parts: hpa.memory_breakdown().parts().into_iter().collect(),
            build_parts_ms: hpa
                .build_profile()
                .parts()
                .into_iter()
                .map(|(name, d)| (name, output::round(d.as_secs_f64() * 1e3, 4)))
                .collect(),
        });
    }
    let Some(tree) = tree else {
        return Err(CliError::input("no mode selected"));
    };
    let cells = grid.width() as u64 * grid.height() as u64;
    let info = Info {
        map: a.map.display().to_string(),
        width: grid.width(),
        height: grid.height(),
        cells,
        free_cells: grid.free_count(),
        free_share: output::round(grid.free_count() as f64 / cells as f64, 6),
        class: class.label().map(|name| {
            let m = &class.movement;
            ClassInfo {
                class: name,
                open_positions: open.free_count(),
                open_share: output::round(open.free_count() as f64 / cells as f64, 6),
                clearance_bytes: ClearanceField::new(&grid, *m.passable(), m.size()).memory_bytes(),
            }
        }),
        costs: class.costs_label(),
        tree,
        modes,
    };
    let text = if a.json {
        output::json_line(&info)?
    } else {
        text(&info)
    };
    output::emit(&text)?;
    Ok(EXIT_OK)
}

fn text(i: &Info) -> String {
    let mut s = String::new();
    s += &format!("map           {}\n", i.map);
    s += &format!(
        "size          {}x{} = {} cells\n",
        i.width, i.height, i.cells
    );
    s += &format!(
        "free cells    {} ({:.1}%)\n",
        i.free_cells,
        i.free_share * 100.0
    );
    if let Some(c) = &i.class {
        s += &format!("class         {}\n", c.class);
        s += &format!(
            "open          {} positions ({:.1}%): the tree and modes below are built on them\n",
            c.open_positions,
            c.open_share * 100.0
        );
        s += &format!(
            "clearance     {} (shared by every class on the same terrain; the modes' memory is this class's layer)\n",
            output::bytes(c.clearance_bytes)
        );
    }
    if let Some(c) = &i.costs {
        s += &format!("costs         {c}\n");
    }
    let t = &i.tree;
    s += &format!(
        "quadtree      depth {}, {} nodes, {} leaves ({} free, {} blocked)\n",
        t.depth, t.nodes, t.leaves, t.free_leaves, t.blocked_leaves
    );
    s += "\nmode    gates  crossings  components  clusters  landmarks      build     memory\n";
    for m in &i.modes {
        s += &format!(
            "{:<6} {:>6} {:>10} {:>11} {:>9} {:>10} {:>10} {:>10}\n",
            m.mode,
            m.gates,
            m.crossings,
            m.components,
            m.clusters,
            m.landmarks,
            output::ms(m.build_ms),
            output::bytes(m.memory_bytes)
        );
    }
    // The parts in the library's order (the JSON maps sort their keys).
    let memory_names = quadpath::MemoryBreakdown::default().parts().map(|(n, _)| n);
    let build_names = quadpath::BuildProfile::default().parts().map(|(n, _)| n);
    s += &parts_table("memory", &memory_names, &i.modes, |m, n| {
        output::bytes(m.memory_parts[n])
    });
    s += &parts_table("build", &build_names, &i.modes, |m, n| {
        output::ms(m.build_parts_ms[n])
    });
    s
}

/// A table of one row per mode and one column per part.
fn parts_table(
    what: &str,
    names: &[&'static str],
    modes: &[ModeInfo],
    cell: impl Fn(&ModeInfo, &'static str) -> String,
) -> String {
    let width = |n: &str| n.len().max(10);
    let mut s = format!("\n{what:<6}");
    for n in names {
        s += &format!(" {n:>w$}", w = width(n));
    }
    s += "\n";
    for m in modes {
        s += &format!("{:<6}", m.mode);
        for n in names {
            s += &format!(" {:>w$}", cell(m, n), w = width(n));
        }
        s += "\n";
    }
    s
}
