//! Terrain costs on real maps: StarCraft and Dragon Age maps painted with generated cost
//! regions (a road network at 0.5, rough ground at 2, 3 and 4), searched by both modes and
//! by the weighted A\* reference (`baseline::astar_with_costs`) on the same queries.
//!
//! Reports, per map: build time and heap bytes of both modes (and of the same map without
//! costs, what the cost bands add), the median query time of each against A\*'s (as a
//! speed-up ratio, measured in the same run), exact mode's largest deviation from A\*'s
//! cost (zero up to rounding, or the bench fails), and fast mode's suboptimality (mean and
//! largest cost / optimal − 1).
//!
//! Queries are the map's scenario pairs, sampled evenly over the file (`--queries N`).
//!
//! Usage: `cargo bench -p quadpath-bench --bench costs -- [--queries N] [--maps a,b,...] [--markdown OUT]`.

mod common;
use common::report::*;
use common::{find_map, positive_list, MapBenchArgs, Rng, STARCRAFT_MAPS};
use quadpath::io::read_scen;
use quadpath::{baseline, Cell, Grid, HpaMap, Mode, TerrainCosts, TerrainSet};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// Dragon Age maps run besides the StarCraft set.
const DRAGON_AGE_MAPS: &[&str] = &["den520d", "brc202d", "ost003d", "lak303d"];

/// The painted terrain: road `G`, rough ground `S`, `h` (hills) and `m` (mud).
const COSTS: &str = "G=0.5,S=2,h=3,m=4";
const PASSABLE: &[u8] = b".GShm";

const USAGE: &str = "cargo bench -p quadpath-bench --bench costs -- [--queries N] [--maps a,b,...] [--markdown OUT]";

/// Paints cost regions over the free cells of `grid`, deterministically from the map's
/// size: rough blobs (a third each of `S`, `h`, `m`, of radius 4–40) over about a quarter
/// of the map, then a road network on top: 2-wide L-shaped roads between random free
/// cells, so that roads cross rough ground as they would in a game. Walls stay walls.
fn paint(grid: &Grid) -> Grid {
    let (w, h) = (grid.width(), grid.height());
    let mut codes: Vec<u8> = grid
        .bounds()
        .cells()
        .map(|c| if grid.is_free(c) { b'.' } else { b'@' })
        .collect();
    let mut rng = Rng(0x9E37_79B9 ^ (w as u64) << 20 ^ h as u64);
    let put = |codes: &mut Vec<u8>, x: i64, y: i64, code: u8| {
        if x >= 0 && y >= 0 && x < w as i64 && y < h as i64 {
            let i = y as usize * w as usize + x as usize;
            if codes[i] != b'@' {
                codes[i] = code;
            }
        }
    };
    let blobs = (w as usize * h as usize) / 3000;
    for b in 0..blobs {
        let code = [b'S', b'h', b'm'][b % 3];
        let (cx, cy) = (rng.below(w as usize) as i64, rng.below(h as usize) as i64);
        let r = 4 + rng.below(37) as i64;
        for y in cy - r..=cy + r {
            for x in cx - r..=cx + r {
                if (x - cx).pow(2) + (y - cy).pow(2) <= r * r {
                    put(&mut codes, x, y, code);
                }
            }
        }
    }
    let free: Vec<Cell> = grid.free_cells().collect();
    let roads = (w.max(h) / 32) as usize;
    for _ in 0..roads {
        let a = free[rng.below(free.len())];
        let b = free[rng.below(free.len())];
        // Along the row of `a`, then down the column of `b`, two cells wide.
        for x in a.x.min(b.x)..=a.x.max(b.x) {
            for d in 0..2 {
                put(&mut codes, x as i64, a.y as i64 + d, b'G');
            }
        }
        for y in a.y.min(b.y)..=a.y.max(b.y) {
            for d in 0..2 {
                put(&mut codes, b.x as i64 + d, y as i64, b'G');
            }
        }
    }
    Grid::from_terrain(w, h, codes, TerrainSet::from_codes(PASSABLE))
}

/// The scenario file of map `name`, if `../shared/maps` has one.
fn scenario(name: &str) -> Option<PathBuf> {
    let root = common::shared_maps();
    ["sc1", "mapf", "classic"].iter().find_map(|d| {
        [
            root.join(d).join(format!("{name}.map.scen")),
            root.join(d).join(format!("{name}-random-1.scen")),
            root.join(d).join(format!("{name}-even-1.scen")),
        ]
        .into_iter()
        .find(|p| p.is_file())
    })
}

fn main() {
    let mut sample = 100usize;
    let defaults: Vec<&str> = STARCRAFT_MAPS
        .iter()
        .chain(DRAGON_AGE_MAPS)
        .copied()
        .collect();
    let args = MapBenchArgs::parse(USAGE, &defaults, |flag, value| match flag {
        "--queries" => positive_list(&value())
            .and_then(|v| v.first().copied())
            .map(|n| sample = n)
            .is_some(),
        _ => false,
    });
    let costs: TerrainCosts = COSTS.parse().expect("the bench's costs parse");
    let (mut build_rows, mut query_rows) = (Vec::new(), Vec::new());
    for name in &args.maps {
        let (Some(plain), Some(scen)) = (find_map(name), scenario(name)) else {
            eprintln!("costs: {name}: map or scenario not found, skipped");
            continue;
        };
        let grid = paint(&plain);
        let scen = read_scen(&scen).unwrap_or_else(|e| panic!("{e}"));
        let n = scen.entries.len();
        let pairs: Vec<(Cell, Cell)> = (0..sample.min(n))
            .map(|i| &scen.entries[i * n / sample.min(n)])
            .map(|e| (e.start, e.goal))
            .filter(|&(s, g)| grid.is_free(s) && grid.is_free(g))
            .collect();
        eprintln!("costs: {name}: building");
        let share = |code: u8| {
            let count = grid
                .bounds()
                .cells()
                .filter(|&c| grid.terrain(c) == code)
                .count();
            100.0 * count as f64 / grid.free_count() as f64
        };
        let mut row = vec![
            name.clone(),
            format!("{}×{}", grid.width(), grid.height()),
            format!(
                "{:.0} % / {:.0} %",
                share(b'G'),
                share(b'S') + share(b'h') + share(b'm')
            ),
        ];
        let mut maps = Vec::new();
        for mode in [Mode::Exact, Mode::Fast] {
            let t = Instant::now();
            let unit = HpaMap::new(plain.clone(), mode).expect("builds");
            let unit_ms = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            let map = HpaMap::with_costs(grid.clone(), costs.clone(), mode).expect("builds");
            let ms = t.elapsed().as_secs_f64() * 1e3;
            row.push(format!("{} ({})", fmt_ms(ms), fmt_ms(unit_ms)));
            row.push(format!(
                "{} ({})",
                fmt_bytes(map.memory_bytes()),
                fmt_bytes(unit.memory_bytes())
            ));
            row.push(format!(
                "{} ({})",
                map.free_leaf_count(),
                unit.free_leaf_count()
            ));
            maps.push(map);
        }
        build_rows.push(row);

        eprintln!("costs: {name}: {} queries", pairs.len());
        let (mut astar_us, mut optimal) = (Vec::new(), Vec::new());
        for &(s, g) in &pairs {
            let t = Instant::now();
            let p =
                baseline::astar_with_costs(&grid, &costs, s, g).expect("scenario pairs connect");
            astar_us.push(t.elapsed().as_secs_f64() * 1e6);
            optimal.push(p.cost);
        }
        let mut row = vec![
            name.clone(),
            pairs.len().to_string(),
            fmt_us(median(&astar_us)),
        ];
        for (mode, map) in ["exact", "fast"].iter().zip(&maps) {
            let (mut us, mut excess) = (Vec::new(), Vec::new());
            for (&(s, g), &best) in pairs.iter().zip(&optimal) {
                // Warm, then timed.
                black_box(map.find_path(s, g).ok());
                let t = Instant::now();
                let p = map.find_path(s, g).expect("scenario pairs connect");
                us.push(t.elapsed().as_secs_f64() * 1e6);
                p.validate(&grid, &costs, s, g)
                    .unwrap_or_else(|e| panic!("{name} {mode} {s}->{g}: {e}"));
                excess.push(p.cost / best - 1.0);
            }
            let worst = excess.iter().copied().fold(f64::MIN, f64::max);
            if *mode == "exact" {
                assert!(
                    worst.abs() < 1e-6,
                    "{name}: exact mode is {worst} off the optimum"
                );
                row.push(fmt_us(median(&us)));
                row.push(fmt_ratio(median(&astar_us) / median(&us)));
            } else {
                assert!(
                    excess.iter().all(|&e| e > -1e-6),
                    "{name}: fast below the optimum"
                );
                row.push(fmt_us(median(&us)));
                row.push(fmt_ratio(median(&astar_us) / median(&us)));
                let mean = excess.iter().sum::<f64>() / excess.len() as f64;
                row.push(format!("{} / {}", fmt_pct(mean), fmt_pct(worst)));
            }
        }
        query_rows.push(row);
    }
    let header = |h: &[&str]| h.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut out = format!(
        "Costs `{COSTS}` painted over the free cells (roads / rough ground as a share of them). \
         Build and memory with costs, and (in brackets) of the same map without them.\n\n"
    );
    table(
        &mut out,
        &header(&[
            "map",
            "size",
            "road / rough",
            "exact build",
            "exact memory",
            "exact leaves",
            "fast build",
            "fast memory",
            "fast leaves",
        ]),
        &build_rows,
    );
    out += "Median query time, weighted A* (`baseline::astar_with_costs`) against both modes on \
            the same pairs, speed-up = A* / mode; exact costs equal A*'s on every pair (checked); \
            fast suboptimality is mean / max of cost / optimal − 1.\n\n";
    table(
        &mut out,
        &header(&[
            "map",
            "queries",
            "A*",
            "exact",
            "speed-up",
            "fast",
            "speed-up",
            "fast subopt.",
        ]),
        &query_rows,
    );
    args.publish(&out);
}
