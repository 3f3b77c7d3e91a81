//! Path planning on an RTS map that changes while units move: buildings go up on the route,
//! bridges get destroyed.
//!
//! Loads `maps/rts_valley.png` (two walled bases on either side of a river with three
//! bridges; see `examples/draw_rts_map.rs`) with the RTS colour legend, builds an [`HpaMap`]
//! in fast mode, plans a route between the bases, then:
//! 1. places a 4×4 building on that route (in front of a base gate) and re-plans;
//! 2. destroys the bridge the route crosses and re-plans over another one;
//! 3. destroys every bridge: the bases are cut off (`Unreachable`);
//! 4. rebuilds the bridges and tears the building down.
//!
//! Run with `cargo run --release --example rts_building [MAP.png]`.

use quadpath::io::{self, BitmapOptions, ColorLegend};
use quadpath::{Cell, EditError, HpaMap, Mode, Path, QueryError, Rect};
use std::time::{Duration, Instant};

/// A unit in the west base and a target in the east base (interiors from
/// `examples/draw_rts_map.rs`: west (10,34)–(33,59), east (95,38)–(118,63)).
const WEST: Cell = Cell::new(22, 46);
const EAST: Cell = Cell::new(108, 50);
/// First rows of the three bridges (each 4 rows of road across the river).
const BRIDGES: [u32; 3] = [14, 47, 80];

/// Column of the river's west bank at row `y`, as drawn by `draw_rts_map`.
fn river_x(y: u32) -> u32 {
    let y = y as i64;
    (58 + y * 10 / 96 + ((y as f64 / 9.0).sin() * 3.0).round() as i64) as u32
}

/// The water cells a bridge spans (6 columns of river under each of its 4 rows).
fn bridge_deck(by: u32) -> Rect {
    let xs = (by..by + 4).map(river_x);
    Rect::new(xs.clone().min().unwrap(), by, xs.max().unwrap() + 5, by + 3)
}

/// Which bridge, if any, a path crosses.
fn bridge_on(path: &Path) -> Option<u32> {
    BRIDGES.into_iter().find(|&by| {
        let deck = bridge_deck(by);
        path.cells.iter().any(|c| deck.contains(*c))
    })
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn plan(map: &HpaMap, what: &str) -> Result<Path, QueryError> {
    let t = Instant::now();
    let r = map.find_path(WEST, EAST);
    let took = t.elapsed();
    match &r {
        Ok(p) => {
            let bridge =
                bridge_on(p).map_or("no bridge".to_string(), |b| format!("bridge at row {b}"));
            println!(
                "  {what}: {:.2} cells, {} steps, via {bridge} (planned in {})",
                p.length,
                p.steps(),
                ms(took)
            );
        }
        Err(e) => println!("  {what}: {e} (answered in {})", ms(took)),
    }
    r
}

/// Blocks or frees `rect`, then refreshes the cluster layer, timing both: the edit itself
/// updates the tree, the gates and the reachability at once; the clusters it touched are
/// recomputed by `refresh()` (until then, queries cross them over their gates).
fn edit(map: &mut HpaMap, rect: Rect, blocked: bool, what: &str) -> Result<(), EditError> {
    let t = Instant::now();
    let n = map.set_blocked(rect, blocked)?;
    let edit = t.elapsed();
    let t = Instant::now();
    map.refresh();
    println!(
        "{what} ({},{})-({},{}): {n} cells changed; edit {}, cluster refresh {}",
        rect.x1,
        rect.y1,
        rect.x2,
        rect.y2,
        ms(edit),
        ms(t.elapsed())
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "maps/rts_valley.png".into());
    let opts = BitmapOptions {
        legend: Some(ColorLegend::rts_default()),
        ..Default::default()
    };
    let grid = io::load_grid(&file, &opts)?;
    let t = Instant::now();
    let mut map = HpaMap::new(grid, Mode::Fast)?;
    println!(
        "{file}: {}x{}, {} free cells; fast-mode HpaMap built in {} ({} clusters, {} entrances)",
        map.grid().width(),
        map.grid().height(),
        map.grid().free_count(),
        ms(t.elapsed()),
        map.cluster_count(),
        map.entrance_count()
    );
    println!("route {WEST} -> {EAST}:");
    let first = plan(&map, "initial route")?;

    // 1. A 4×4 building on the route, right outside the west base's east gate (the gate
    //    is 4 cells wide, rows 47–50): the route has to leave by the north gate instead.
    let building = Rect::new(36, 47, 39, 50);
    assert!(
        first.cells.iter().any(|c| building.contains(*c)),
        "the route leaves by the east gate"
    );
    edit(&mut map, building, true, "building placed on the route at")?;
    let around = plan(&map, "around the building")?;
    assert!(around.cells.iter().all(|c| !building.contains(*c)));
    println!("  detour: +{:.2} cells", around.length - first.length);

    // 2. Destroy the bridge the route now uses.
    if let Some(by) = bridge_on(&around) {
        edit(
            &mut map,
            bridge_deck(by),
            true,
            &format!("bridge at row {by} destroyed"),
        )?;
        plan(&map, "over another bridge")?;
    }

    // 3. Destroy every bridge: the bases are cut off.
    for by in BRIDGES {
        map.set_blocked(bridge_deck(by), true)?;
    }
    map.refresh();
    println!(
        "all bridges destroyed: connected = {}",
        map.connected(WEST, EAST)?
    );
    match plan(&map, "no bridge left") {
        Err(QueryError::Unreachable { .. }) => {}
        other => return Err(format!("expected Unreachable, got {other:?}").into()),
    }

    // 4. Rebuild the bridges (water under a bridge becomes road again) and tear the
    //    building down: the original route is back.
    for by in BRIDGES {
        map.set_blocked(bridge_deck(by), false)?;
    }
    println!("bridges rebuilt");
    edit(&mut map, building, false, "building torn down")?;
    let back = plan(&map, "after rebuilding")?;
    println!(
        "lengths: initial {:.2}, with building {:.2}, restored {:.2}",
        first.length, around.length, back.length
    );
    Ok(())
}
