//! Movement classes on the StarCraft maps of `../shared/maps/sc1`: one [`World`] per mode
//! with three land classes (1×1, 2×2, 3×3 agents), printed as markdown tables (the source
//! of the "Movement classes" section of `BENCHMARKS.md`).
//!
//! Per map and class: the share of the map's cells that are open positions, the time
//! `World::add_class` takes (clearance field included when the class grows it) and the
//! layer's heap bytes (`HpaMap::memory_bytes`), in exact and fast mode; the median query
//! time of each mode and of `pathfinding::astar` on the class's own grid of open positions
//! (`quadpath::baseline::astar` on the layer's grid), run interleaved in the same process on
//! the same queries, and the speed-up A* / quadpath. Queries are the map's scenario lines
//! whose ends are open for the class, spread over the file. Exact paths must have A*'s
//! length and fast paths may not be shorter: a mismatch aborts the run.
//!
//! Per map: what the layers share (terrain grid and clearance field) and the whole
//! world's bytes, and the time of one 4×4 building placed with `World::set_blocked`,
//! which updates the field and all three layers, then taken away again (medians over
//! `--edits` spots on open ground), with the `refresh` after each.
//!
//! Usage: `cargo bench -p quadpath-bench --bench classes -- [--sample N] [--maps a,b,...] [--edits N]
//! [--markdown OUT]`.

mod common;
use common::report::*;
use common::Rng;
use quadpath::io::{read_map, read_scen};
use quadpath::{baseline, Cell, Mode, Movement, Rect, World};
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

const SIZES: [u32; 3] = [1, 2, 3];
const MODES: [Mode; 2] = [Mode::Exact, Mode::Fast];

struct Args {
    sample: usize,
    maps: Vec<String>,
    edits: usize,
    markdown: Option<PathBuf>,
}

fn usage() -> ! {
    eprintln!(
        "usage: cargo bench -p quadpath-bench --bench classes -- [--sample N] [--maps a,b,...] [--edits N] [--markdown OUT]"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut a = Args {
        sample: 100,
        maps: Vec::new(),
        edits: 50,
        markdown: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--bench" => {}
            "--sample" => a.sample = value().parse().unwrap_or_else(|_| usage()),
            "--edits" => a.edits = value().parse::<usize>().unwrap_or_else(|_| usage()).max(1),
            "--maps" => a.maps = value().split(',').map(str::to_string).collect(),
            "--markdown" => a.markdown = Some(PathBuf::from(value())),
            "-h" | "--help" => usage(),
            _ => {
                eprintln!("classes: unknown argument {arg:?}");
                usage()
            }
        }
    }
    a
}

/// One class on one map.
struct ClassRow {
    map: String,
    size: u32,
    open_share: f64,
    build_ms: [f64; 2],
    bytes: [usize; 2],
    queries: usize,
    query_us: [f64; 2],
    astar_us: f64,
    fast_subopt: f64,
}

/// One map's world.
struct MapRow {
    map: String,
    side: String,
    shared: usize,
    total: [usize; 2],
    edit_us: [f64; 2],
    refresh_us: [f64; 2],
}

fn bench_map(name: &str, dir: &std::path::Path, a: &Args) -> (Vec<ClassRow>, MapRow) {
    let grid = read_map(dir.join(format!("{name}.map"))).expect("map");
    let scen = read_scen(dir.join(format!("{name}.map.scen"))).expect("scenario");
    let cells = grid.width() as f64 * grid.height() as f64;
    let mut worlds = Vec::new();
    // Bytes of each world as built, before edits grow any buffer.
    let mut totals = [0; 2];
    let mut rows: Vec<ClassRow> = SIZES
        .iter()
        .map(|&size| ClassRow {
            map: name.into(),
            size,
            open_share: 0.0,
            build_ms: [0.0; 2],
            bytes: [0; 2],
            queries: 0,
            query_us: [f64::NAN; 2],
            astar_us: f64::NAN,
            fast_subopt: 0.0,
        })
        .collect();
    for (m, mode) in MODES.into_iter().enumerate() {
        let mut world = World::new(grid.clone());
        for row in &mut rows {
            let movement = Movement::default().with_size(row.size).unwrap();
            let t = Instant::now();
            let id = world.add_class(movement, mode).expect("class");
            row.build_ms[m] = t.elapsed().as_secs_f64() * 1e3;
            let layer = world.layer(id).unwrap();
            row.bytes[m] = layer.memory_bytes();
            row.open_share = layer.grid().free_count() as f64 / cells;
        }
        totals[m] = world.memory_bytes();
        worlds.push(world);
    }

    // Queries: both modes and A* interleaved, query by query.
    for (c, row) in rows.iter_mut().enumerate() {
        let class = worlds[0].classes().nth(c).unwrap().0;
        let open_grid = worlds[0].layer(class).unwrap().grid();
        let usable: Vec<_> = scen
            .entries
            .iter()
            .filter(|e| open_grid.is_free(e.start) && open_grid.is_free(e.goal))
            .collect();
        let step = usable.len().div_ceil(a.sample.max(1)).max(1);
        let (mut times, mut astar_times, mut ratios) = ([vec![], vec![]], vec![], vec![]);
        for e in usable.iter().step_by(step) {
            let t = Instant::now();
            let best = black_box(baseline::astar(open_grid, e.start, e.goal));
            astar_times.push(t.elapsed().as_secs_f64() * 1e6);
            let mut lengths = [None, None];
            for (m, world) in worlds.iter().enumerate() {
                let t = Instant::now();
                let path = black_box(world.find_path(class, e.start, e.goal));
                times[m].push(t.elapsed().as_secs_f64() * 1e6);
                lengths[m] = path.ok().map(|p| p.length);
            }
            let best = best.map(|p| p.length);
            match (best, lengths) {
                (Some(b), [Some(x), Some(f)]) => {
                    assert!(
                        (x - b).abs() < 1e-6,
                        "{name} {}x{0}: exact {x} vs A* {b}",
                        row.size
                    );
                    assert!(
                        f >= b - 1e-6,
                        "{name} {}x{0}: fast {f} below A* {b}",
                        row.size
                    );
                    if b > 0.0 {
                        ratios.push(f / b - 1.0);
                    }
                }
                (None, [None, None]) => {}
                (b, l) => panic!("{name} {}x{0}: A* {b:?}, quadpath {l:?}", row.size),
            }
        }
        row.queries = astar_times.len();
        row.astar_us = median(&astar_times);
        row.query_us = [median(&times[0]), median(&times[1])];
        row.fast_subopt = if ratios.is_empty() {
            0.0
        } else {
            ratios.iter().sum::<f64>() / ratios.len() as f64
        };
    }

    // A 4×4 building on open ground (open for the 3×3 class, so every layer changes).
    let mut rng = Rng(0x5eed ^ name.len() as u64);
    let big = worlds[0].classes().nth(2).unwrap().0;
    let mut spots = Vec::new();
    while spots.len() < a.edits {
        let c = Cell::new(
            rng.below(grid.width() as usize - 4) as u32,
            rng.below(grid.height() as usize - 4) as u32,
        );
        if worlds[0].is_open(big, c) && worlds[0].is_open(big, Cell::new(c.x + 1, c.y + 1)) {
            spots.push(Rect::new(c.x, c.y, c.x + 3, c.y + 3));
        }
    }
    let (mut edit_us, mut refresh_us) = ([0.0; 2], [0.0; 2]);
    for (m, world) in worlds.iter_mut().enumerate() {
        let (mut edits, mut refreshes) = (vec![], vec![]);
        for &r in &spots {
            for place in [true, false] {
                let t = Instant::now();
                let report = if place {
                    world.set_blocked(r, true)
                } else {
                    world.set_blocked(r, false)
                };
                edits.push(t.elapsed().as_secs_f64() * 1e6);
                assert_eq!(report.unwrap().cells, 16);
                let t = Instant::now();
                world.refresh();
                refreshes.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        edit_us[m] = median(&edits);
        refresh_us[m] = median(&refreshes);
    }
    let map = MapRow {
        map: name.into(),
        side: format!("{}×{}", grid.width(), grid.height()),
        shared: worlds[0].shared_memory_bytes(),
        total: totals,
        edit_us,
        refresh_us,
    };
    (rows, map)
}

fn main() {
    let mut a = parse_args();
    let dir = common::shared_maps().join("sc1");
    if a.maps.is_empty() {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| {
                let p = e.ok()?.path();
                let stem = p.file_stem()?.to_string_lossy().into_owned();
                (p.extension()? == "map").then_some(stem)
            })
            .collect();
        names.sort();
        a.maps = names;
    }
    let (mut class_rows, mut map_rows) = (Vec::new(), Vec::new());
    for name in &a.maps {
        eprintln!("classes: {name}");
        let (rows, map) = bench_map(name, &dir, &a);
        class_rows.extend(rows);
        map_rows.push(map);
    }

    let mut out = String::new();
    let header = |cols: &[&str]| cols.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let _ = writeln!(
        out,
        "Per class: open positions (share of the map's cells), build time and memory of its layer \
         (exact / fast), median query time (exact / fast) against `pathfinding::astar` on the \
         class's open grid, speed-up A\\* / quadpath (exact / fast), and fast mode's mean \
         suboptimality. {} queries per class at most, from the map's scenario file.\n",
        a.sample
    );
    let rows: Vec<Vec<String>> = class_rows
        .iter()
        .map(|r| {
            vec![
                r.map.clone(),
                format!("{0}×{0}", r.size),
                format!("{:.1}%", r.open_share * 100.0),
                format!("{} / {}", fmt_ms(r.build_ms[0]), fmt_ms(r.build_ms[1])),
                format!("{} / {}", fmt_bytes(r.bytes[0]), fmt_bytes(r.bytes[1])),
                r.queries.to_string(),
                format!("{} / {}", fmt_us(r.query_us[0]), fmt_us(r.query_us[1])),
                fmt_us(r.astar_us),
                format!(
                    "{} / {}",
                    fmt_ratio(r.astar_us / r.query_us[0]),
                    fmt_ratio(r.astar_us / r.query_us[1])
                ),
                fmt_pct(r.fast_subopt),
            ]
        })
        .collect();
    table(
        &mut out,
        &header(&[
            "map",
            "class",
            "open",
            "build",
            "memory",
            "queries",
            "query",
            "A*",
            "speed-up",
            "fast subopt",
        ]),
        &rows,
    );
    let _ = writeln!(
        out,
        "Per map: bytes the three layers share (terrain grid and clearance field), the whole \
         world as built (exact / fast), and one 4×4 building placed or taken away on open ground with \
         every layer updated, then the refresh (medians over {} spots, exact / fast).\n",
        a.edits
    );
    let rows: Vec<Vec<String>> = map_rows
        .iter()
        .map(|m| {
            vec![
                m.map.clone(),
                m.side.clone(),
                fmt_bytes(m.shared),
                format!("{} / {}", fmt_bytes(m.total[0]), fmt_bytes(m.total[1])),
                format!("{} / {}", fmt_us(m.edit_us[0]), fmt_us(m.edit_us[1])),
                format!("{} / {}", fmt_us(m.refresh_us[0]), fmt_us(m.refresh_us[1])),
            ]
        })
        .collect();
    table(
        &mut out,
        &header(&[
            "map",
            "size",
            "shared",
            "world",
            "4×4 edit, 3 layers",
            "refresh",
        ]),
        &rows,
    );
    let speedups: Vec<Vec<f64>> = SIZES
        .iter()
        .map(|&s| {
            class_rows
                .iter()
                .filter(|r| r.size == s)
                .map(|r| r.astar_us / r.query_us[0])
                .collect()
        })
        .collect();
    let _ = writeln!(
        out,
        "Geometric mean speed-up of exact mode over A\\*: {}.",
        SIZES
            .iter()
            .zip(&speedups)
            .map(|(s, v)| format!("{s}×{s} {}", fmt_ratio(geomean(v))))
            .collect::<Vec<_>>()
            .join(", ")
    );
    print!("{out}");
    if let Some(path) = &a.markdown {
        std::fs::write(path, &out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
