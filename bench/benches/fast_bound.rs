//! Fast mode's worst-case bound under terrain costs (issue 26, §1): what
//! [`Config::max_excess_percent`] costs per query against the unbounded fast mode and exact
//! mode, on random costed 128² worlds and on `aftershock_gs` (Aftershock painted with roads
//! `G` and swamps `S`, from `../shared/repro`) at mild and extreme costs.
//!
//! Reports per world and configuration: the mean query time over the same random pairs,
//! the mean and largest cost over exact mode's (the optimum), how many queries ran the
//! exact search to its end (`HpaMap::bound_fallbacks`), and the build time.
//!
//! Usage: `cargo bench -p quadpath-bench --bench fast_bound -- [--queries N]`.

mod common;
use common::Rng;
use quadpath::{Cell, Config, Grid, HpaMap, Mode, TerrainCosts, TerrainSet};
use std::path::Path;
use std::time::Instant;

/// A random costed world: blobs of road `G` and swamp `S` over ground, walls in runs.
fn random_world(side: u32, seed: u64) -> Grid {
    let mut rng = Rng(seed | 1);
    let mut codes = vec![b'.'; (side * side) as usize];
    for _ in 0..side * side / 600 {
        let code = [b'G', b'S', b'@'][rng.below(3)];
        let (cx, cy) = (
            rng.below(side as usize) as i64,
            rng.below(side as usize) as i64,
        );
        let r = 2 + rng.below(10) as i64;
        for y in (cy - r).max(0)..(cy + r).min(side as i64) {
            for x in (cx - r).max(0)..(cx + r).min(side as i64) {
                if (x - cx).pow(2) + (y - cy).pow(2) <= r * r {
                    codes[(y as u32 * side + x as u32) as usize] = code;
                }
            }
        }
    }
    Grid::from_terrain(side, side, codes, TerrainSet::moving_ai())
}

fn pairs(grid: &Grid, n: usize, seed: u64) -> Vec<(Cell, Cell)> {
    let mut rng = Rng(seed | 1);
    let free: Vec<Cell> = grid.bounds().cells().filter(|&c| grid.is_free(c)).collect();
    (0..n)
        .map(|_| (free[rng.below(free.len())], free[rng.below(free.len())]))
        .collect()
}

fn run(name: &str, grid: &Grid, costs: &TerrainCosts, queries: usize) {
    let t = Instant::now();
    let exact = HpaMap::with_costs(grid.clone(), costs.clone(), Mode::Exact).expect("builds");
    let exact_build = t.elapsed().as_secs_f64() * 1e3;
    let pairs: Vec<_> = pairs(grid, queries * 3, 7)
        .into_iter()
        .filter(|&(s, g)| exact.connected(s, g).unwrap_or(false))
        .take(queries)
        .collect();
    let optimal: Vec<f64> = pairs
        .iter()
        .map(|&(s, g)| exact.find_path(s, g).expect("connected").cost)
        .collect();
    let configs: Vec<(String, Config)> = [None, Some(25), Some(10), Some(5)]
        .into_iter()
        .map(|p| {
            let label = match p {
                None => "fast, no bound".to_string(),
                Some(25) => "fast, 25 % (preset)".to_string(),
                Some(p) => format!("fast, {p} %"),
            };
            (label, Config::fast().with_max_excess_percent(p))
        })
        .collect();
    println!("\n{name}: {} queries", pairs.len());
    println!("| configuration | build ms | memory | mean µs | mean excess | max excess | ran to the end |");
    println!("|---|---|---|---|---|---|---|");
    for (label, config) in configs
        .iter()
        .map(|(l, c)| (l.as_str(), Some(*c)))
        .chain([("exact", None)])
    {
        let t = Instant::now();
        let map = match config {
            Some(c) => HpaMap::with_costs(grid.clone(), costs.clone(), c).expect("builds"),
            None => HpaMap::with_costs(grid.clone(), costs.clone(), Mode::Exact).expect("builds"),
        };
        let build = match config {
            Some(_) => t.elapsed().as_secs_f64() * 1e3,
            None => exact_build,
        };
        let (mut total, mut sum, mut worst) = (0.0, 0.0, 0.0f64);
        for (&(s, g), &best) in pairs.iter().zip(&optimal) {
            let t = Instant::now();
            let path = map.find_path(s, g).expect("connected");
            total += t.elapsed().as_secs_f64() * 1e6;
            let excess = path.cost / best - 1.0;
            sum += excess;
            worst = worst.max(excess);
        }
        let n = pairs.len() as f64;
        println!(
            "| {label} | {build:.1} | {:.1} MiB | {:.0} | {:+.2} % | {:.3}× | {:.0} % |",
            map.memory_bytes() as f64 / (1 << 20) as f64,
            total / n,
            100.0 * sum / n,
            1.0 + worst,
            100.0 * map.bound_fallbacks() as f64 / n
        );
    }
}

fn main() {
    let mut queries = 200;
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--queries") {
        queries = args[i + 1].parse().expect("--queries N");
    }
    for (seed, spec) in [
        (1, ".=1,G=0.5,S=3"),
        (2, ".=1,G=1/64,S=1e6"),
        (3, ".=130000,G=1,S=1"),
    ] {
        let spec = spec.replace("1/64", "0.015625");
        let costs: TerrainCosts = spec.parse().expect("costs parse");
        run(
            &format!("random 128² #{seed}, {spec}"),
            &random_world(128, seed),
            &costs,
            queries,
        );
    }
    let repro = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/repro/aftershock_gs.map");
    match quadpath::io::read_map(&repro) {
        Ok(grid) => {
            for spec in ["G=0.5,S=3", "G=0.015625,S=1e6"] {
                let costs: TerrainCosts = spec.parse().expect("costs parse");
                run(&format!("aftershock_gs, {spec}"), &grid, &costs, queries);
            }
        }
        Err(e) => eprintln!("fast_bound: aftershock_gs skipped: {e}"),
    }
}
