//! Units prefer the road: the same trip between the two bases of `maps/rts_valley.png`, with
//! and without terrain costs.
//!
//! Loads the map with the RTS colour legend and builds two exact-mode [`HpaMap`]s on it: one
//! where every cell costs the same, and one where roads (`G`) cost 0.5 and swamps (`S`) 3
//! ([`ColorLegend::rts_default_costs`]). The shortest way from the west base to the east base
//! goes straight over the middle bridge, through the marshes on both banks; the cheapest
//! follows the road over another bridge, longer but cheaper. Prints the length and cost of
//! both routes, checks each against the map and the costs, and draws them over the map
//! tinted by cost (roads gold, swamps mud brown): the cheapest route in red, the shortest in
//! blue.
//!
//! Run with `cargo run --release --example rts_roads [OUT.png]` (default
//! `docs/terrain_costs.png` in the crate).

use quadpath::io::{self, BitmapOptions, ColorLegend, Overlay, RenderOptions};
use quadpath::{Cell, Grid, HpaMap, Mode, Path, TerrainCosts};
use std::time::Instant;

#[path = "common/rts_valley.rs"]
mod rts_valley;
use rts_valley::bridge;

/// A unit in the west base and its target in the east base (interiors from
/// `examples/draw_rts_map.rs`: west (10,34)–(33,59), east (95,38)–(118,63)).
const WEST: Cell = Cell::new(21, 46);
const EAST: Cell = Cell::new(106, 50);
/// Pixels per cell in the picture.
const SCALE: u32 = 4;
/// The colour of the shortest route in the picture (the cheapest is the render's red path).
const SHORTEST_COLOUR: [u8; 3] = [0, 120, 255];

/// Plans the trip on `map`, checks the path against `grid` under `costs` (its cells, steps
/// and reported cost), prints it and returns it with its cost under `costs`.
fn plan(
    map: &HpaMap,
    grid: &Grid,
    costs: &TerrainCosts,
    what: &str,
) -> Result<(Path, f64), Box<dyn std::error::Error>> {
    let t = Instant::now();
    let path = map.find_path(WEST, EAST)?;
    let took = t.elapsed();
    // Weigh the route under the road costs whatever map planned it, so that both routes
    // are compared on the same scale.
    let weighed = Path::from_cells_with_costs(path.cells.clone(), grid, costs);
    weighed.validate(grid, costs, WEST, EAST)?;
    let on = |code: u8| {
        path.cells
            .iter()
            .filter(|&&c| grid.terrain(c) == code)
            .count()
    };
    println!(
        "  {what:<9} length {:>7.2}  cost {:>7.2}  over the {} bridge, {} of {} cells on road, {} in swamp ({:.3} ms)",
        path.length,
        weighed.cost,
        bridge(&path).unwrap_or("no"),
        on(b'G'),
        path.cells.len(),
        on(b'S'),
        took.as_secs_f64() * 1e3
    );
    Ok((path, weighed.cost))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/docs/terrain_costs.png").into());
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/rts_valley.png");
    let opts = BitmapOptions {
        legend: Some(ColorLegend::rts_default()),
        ..Default::default()
    };
    let grid = io::load_grid(file, &opts)?;
    let costs = ColorLegend::rts_default_costs();
    println!(
        "maps/rts_valley.png: {}x{}, terrain costs {costs} (every other free cell 1)",
        grid.width(),
        grid.height()
    );

    let plain = HpaMap::new(grid.clone(), Mode::Exact)?;
    let roads = HpaMap::with_costs(grid.clone(), costs.clone(), Mode::Exact)?;
    assert_eq!(roads.costs(), &costs);
    println!("from the west base {WEST} to the east base {EAST}, costs under {costs}:");
    let (shortest, shortest_cost) = plan(&plain, &grid, &costs, "shortest")?;
    let (cheapest, cheapest_cost) = plan(&roads, &grid, &costs, "cheapest")?;
    // What the weighted map reports is the cost of its route, and no shorter route is
    // cheaper: exact mode is optimal under either model.
    assert!((cheapest.cost - cheapest_cost).abs() < 1e-9);
    assert!(cheapest_cost <= shortest_cost && cheapest.length >= shortest.length);
    println!(
        "the road is {:.0}% longer and {:.0}% cheaper",
        (cheapest.length / shortest.length - 1.0) * 100.0,
        (1.0 - cheapest_cost / shortest_cost) * 100.0
    );

    let routes = [(shortest.cells.as_slice(), SHORTEST_COLOUR)];
    let overlay = Overlay {
        path: &cheapest.cells,
        routes: &routes,
        costs: Some(&costs),
        ..Default::default()
    };
    let img = io::render(
        &grid,
        &overlay,
        &RenderOptions {
            scale: SCALE,
            ..Default::default()
        },
    );
    if let Some(dir) = std::path::Path::new(&out).parent() {
        std::fs::create_dir_all(dir)?;
    }
    io::save_png(&img, &out)?;
    println!("wrote {out}");
    Ok(())
}
