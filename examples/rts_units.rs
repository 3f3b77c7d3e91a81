//! Four movement classes on one RTS map: infantry, a tank, a ship and a hovercraft, each
//! with its own search layer in one [`World`], and a building that closes a bridge to some
//! of them and not to others.
//!
//! Loads `maps/rts_valley.png` (two walled bases on either side of a river with three
//! bridges; see `examples/draw_rts_map.rs`) with the RTS colour legend, registers
//!
//! - infantry, 1×1 on land (`.GS`), and a 3×3 tank on land, both from the west base to the
//!   east base over the middle bridge;
//! - a 2×2 ship on water (`W`), down the stretch of river between two bridges (bridges are
//!   road: a ship cannot pass under them);
//! - a 1×1 hovercraft on land and water (`.GSW`), straight across the river where the
//!   others would need a bridge;
//!
//! plans every route and checks every step against [`Movement::can_step`], then puts a
//! 4×2 gatehouse on the middle bridge. It leaves a lane two cells wide: infantry still
//! squeezes through, the tank no longer fits and takes the south bridge. Everything is
//! re-planned and checked again, and both situations are drawn side by side, each unit's
//! footprint along its path in its own colour.
//!
//! Run with `cargo run --release --example rts_units [OUT.png]` (default `rts_units.png` in
//! the current directory).

use image::{imageops, Rgb, RgbImage};
use quadpath::io::{self, BitmapOptions, ColorLegend, Overlay, RenderOptions};
use quadpath::{
    Cell, ClassId, Direction, Mode, Movement, MovementError, Path, Rect, TerrainSet, World,
    WorldError,
};
use std::time::{Duration, Instant};

#[path = "common/rts_valley.rs"]
mod rts_valley;
use rts_valley::bridge;

/// Pixels per cell in the picture.
const SCALE: u32 = 4;
/// Pixels between the two panels of the picture.
const GAP: u32 = 8;

/// A unit to move: its class, its trip, and how to draw it.
#[derive(Clone)]
struct Unit {
    name: &'static str,
    movement: Movement,
    /// Top-left cells of the footprint at both ends.
    start: Cell,
    goal: Cell,
    colour: [u8; 3],
    colour_name: &'static str,
}

fn units() -> Result<Vec<Unit>, MovementError> {
    let unit = |name, size, codes: &[u8], (start, goal), colour, colour_name| {
        Ok::<_, MovementError>(Unit {
            name,
            movement: Movement::default()
                .with_size(size)?
                .with_passable(TerrainSet::from_codes(codes)),
            start,
            goal,
            colour,
            colour_name,
        })
    };
    // Base interiors from `examples/draw_rts_map.rs`: west (10,34)–(33,59), east
    // (95,38)–(118,63). The ends leave room for the tank's 3×3 footprint.
    let bases = (Cell::new(21, 45), Cell::new(107, 49));
    // The river between the north bridge (rows 14–17) and the middle one (47–50).
    let river = (Cell::new(62, 18), Cell::new(59, 44));
    // North of the west base to north of the east base, across the river midway between two
    // bridges.
    let across = (Cell::new(21, 29), Cell::new(106, 33));
    // Drawn in this order, so the widest footprint goes under the others; the indices are
    // TANK, SHIP, HOVER and INFANTRY.
    Ok(vec![
        unit("tank", 3, b".GS", bases, [130, 40, 180], "purple")?,
        unit("ship", 2, b"W", river, [255, 215, 0], "gold")?,
        unit("hover", 1, b".GSW", across, [255, 120, 0], "orange")?,
        unit("infantry", 1, b".GS", bases, [220, 20, 60], "red")?,
    ])
}

/// Positions of the units in [`units`].
const TANK: usize = 0;
const HOVER: usize = 2;
const INFANTRY: usize = 3;

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn kib(bytes: usize) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

fn codes(set: &TerrainSet) -> String {
    set.iter().map(char::from).collect()
}

/// Plans `unit`'s trip and checks the answer; `None` when the class cannot get there.
fn plan(world: &World, class: ClassId, unit: &Unit) -> Result<Option<Path>, WorldError> {
    let t = Instant::now();
    let found = world.find_path(class, unit.start, unit.goal);
    let took = t.elapsed();
    let open = world.layer(class).map_or(0, |l| l.grid().free_count());
    let head = format!(
        "  {:<8} {:<12} {open:>5} open",
        unit.name,
        unit.movement.to_string()
    );
    match found {
        Ok(path) => {
            check(world, class, unit, &path);
            println!(
                "{head}  {:>6.2} cells, {:>3} steps, {:<13} in {}",
                path.length,
                path.steps(),
                bridge(&path).map_or("no bridge".into(), |b| format!("{b} bridge")),
                ms(took)
            );
            Ok(Some(path))
        }
        Err(e) if e.is_unreachable() => {
            println!("{head}  cut off: {e}  (answered in {})", ms(took));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Plans every unit's trip under a heading.
fn plan_all(
    world: &World,
    classes: &[ClassId],
    units: &[Unit],
    heading: &str,
) -> Result<Vec<Option<Path>>, WorldError> {
    println!("{heading}:");
    units
        .iter()
        .zip(classes)
        .map(|(unit, &class)| plan(world, class, unit))
        .collect()
}

/// Fails loudly unless `path` runs from the unit's start to its goal in legal steps for
/// its class, re-checked on the world's terrain grid rather than on the layer that found
/// it, and its length is the sum of its steps.
fn check(world: &World, class: ClassId, unit: &Unit, path: &Path) {
    let movement = world.movement(class).expect("a class of this world");
    assert_eq!(movement, &unit.movement);
    assert_eq!(
        path.cells.first(),
        Some(&unit.start),
        "{}: start",
        unit.name
    );
    assert_eq!(path.cells.last(), Some(&unit.goal), "{}: goal", unit.name);
    assert!(
        movement.is_open(world.grid(), unit.start),
        "{}: start",
        unit.name
    );
    let mut length = 0.0;
    for step in path.cells.windows(2) {
        let (a, b) = (step[0], step[1]);
        let dir = Direction::between(a, b)
            .unwrap_or_else(|| panic!("{}: {a} -> {b} is not a single step", unit.name));
        assert!(
            movement.can_step(world.grid(), a, dir),
            "{}: illegal step {a} -> {b} for {movement}",
            unit.name
        );
        length += movement.step_cost(dir);
    }
    assert!(
        (length - path.length).abs() < 1e-6,
        "{}: claimed length {} but the steps add up to {length}",
        unit.name,
        path.length
    );
}

/// The map with each unit's footprint along its path tinted in the unit's colour, the
/// track of the footprint's centre drawn over it, and the footprints at both ends outlined.
fn draw(world: &World, units: &[Unit], paths: &[Option<Path>]) -> RgbImage {
    let grid = world.grid();
    let opts = RenderOptions {
        scale: SCALE,
        ..Default::default()
    };
    let mut img = io::render(grid, &Overlay::default(), &opts);
    let k = io::effective_scale(grid, SCALE);
    let (w, h) = (grid.width(), grid.height());
    for (unit, path) in units.iter().zip(paths) {
        let Some(path) = path else { continue };
        let size = unit.movement.size();
        // Every cell some footprint covers, tinted once however often it is covered.
        let mut covered = vec![false; (w * h) as usize];
        for c in &path.cells {
            for y in c.y..c.y + size {
                for x in c.x..c.x + size {
                    covered[(y * w + x) as usize] = true;
                }
            }
        }
        for (i, _) in covered.iter().enumerate().filter(|(_, &on)| on) {
            let (x, y) = (i as u32 % w, i as u32 / w);
            for py in y * k..(y + 1) * k {
                for px in x * k..(x + 1) * k {
                    let p = img.get_pixel_mut(px, py);
                    for (channel, tint) in p.0.iter_mut().zip(unit.colour) {
                        *channel = ((*channel as u32 * 2 + tint as u32 * 3) / 5) as u8;
                    }
                }
            }
        }
        // The centre of the footprint, in pixels, and a 2×2 dot every pixel along each step.
        let centre = |c: Cell| (c.x * k + size * k / 2, c.y * k + size * k / 2);
        for step in path.cells.windows(2) {
            let ((ax, ay), (bx, by)) = (centre(step[0]), centre(step[1]));
            for i in 0..=k {
                let lerp = |a: u32, b: u32| a as i64 + (b as i64 - a as i64) * i as i64 / k as i64;
                let (px, py) = (lerp(ax, bx) as u32, lerp(ay, by) as u32);
                // Centres lie at least k / 2 pixels inside the image, so the dot does too.
                for (x, y) in [(px - 1, py - 1), (px, py - 1), (px - 1, py), (px, py)] {
                    img.put_pixel(x, y, Rgb(unit.colour));
                }
            }
        }
        for end in [unit.start, unit.goal] {
            let (x1, y1) = (end.x * k, end.y * k);
            let (x2, y2) = ((end.x + size) * k - 1, (end.y + size) * k - 1);
            for px in x1..=x2 {
                img.put_pixel(px, y1, Rgb([0, 0, 0]));
                img.put_pixel(px, y2, Rgb([0, 0, 0]));
            }
            for py in y1..=y2 {
                img.put_pixel(x1, py, Rgb([0, 0, 0]));
                img.put_pixel(x2, py, Rgb([0, 0, 0]));
            }
        }
    }
    img
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "rts_units.png".into());
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/rts_valley.png");
    let opts = BitmapOptions {
        legend: Some(ColorLegend::rts_default()),
        ..Default::default()
    };
    let grid = io::load_grid(file, &opts)?;
    println!("maps/rts_valley.png: {}x{}", grid.width(), grid.height());
    let mut world = World::new(grid);
    let units = units()?;
    let mut classes = Vec::new();
    for unit in &units {
        let t = Instant::now();
        let class = world.add_class(unit.movement.clone(), Mode::Exact)?;
        let layer = world.layer(class).expect("just registered");
        println!(
            "  {class}: {:<8} {:<12} layer built in {}, {}",
            unit.name,
            unit.movement.to_string(),
            ms(t.elapsed()),
            kib(layer.memory_bytes())
        );
        classes.push(class);
    }

    let before = plan_all(&world, &classes, &units, "routes (exact mode)")?;
    // The hovercraft's trip on foot: over a bridge, where the hovercraft goes straight.
    let on_foot = Unit {
        name: "infantry",
        start: units[HOVER].start,
        goal: units[HOVER].goal,
        ..units[INFANTRY].clone()
    };
    let walk = world.find_path(classes[INFANTRY], on_foot.start, on_foot.goal)?;
    check(&world, classes[INFANTRY], &on_foot, &walk);
    assert_eq!(bridge(&walk), Some("north"));
    println!(
        "  (the hovercraft's trip on foot: {:.2} cells, over the north bridge)",
        walk.length
    );
    // Drawn now: the picture's left panel shows the map before the building.
    let left = draw(&world, &units, &before);

    // A gatehouse on the middle bridge, over the four columns where the river runs under
    // both edges of the deck (rows 46 and 51 are water there): the lane left beside it is
    // two rows wide, wide enough for infantry and too narrow for a 3×3 tank.
    let gatehouse = Rect::new(61, 47, 64, 48);
    let t = Instant::now();
    let report = world.set_blocked(gatehouse, true)?;
    println!(
        "gatehouse placed on the middle bridge at ({},{})-({},{}) in {}: {} cells, {} clearances, \
         {} positions changed, {} layers rebuilt",
        gatehouse.x1,
        gatehouse.y1,
        gatehouse.x2,
        gatehouse.y2,
        ms(t.elapsed()),
        report.cells,
        report.clearances,
        report.positions,
        report.rebuilt_layers
    );
    let after = plan_all(&world, &classes, &units, "routes with the gatehouse")?;

    // What the picture is meant to show, checked.
    let crossing = |paths: &[Option<Path>], unit: usize| paths[unit].as_ref().and_then(bridge);
    assert_eq!(crossing(&before, TANK), Some("middle"));
    assert_eq!(crossing(&before, INFANTRY), Some("middle"));
    assert_eq!(
        crossing(&after, TANK),
        Some("south"),
        "the tank no longer fits"
    );
    assert_eq!(
        crossing(&after, INFANTRY),
        Some("middle"),
        "infantry squeezes past"
    );
    assert_eq!(
        crossing(&after, HOVER),
        None,
        "the hovercraft needs no bridge"
    );

    println!("memory:");
    println!(
        "  shared     {} (terrain grid {})",
        kib(world.shared_memory_bytes()),
        kib(world.grid().memory_bytes())
    );
    for field in world.clearance_fields() {
        println!(
            "    clearance on {:<5} (up to {size}x{size}) {}",
            codes(field.passable()),
            kib(field.memory_bytes()),
            size = field.cap()
        );
    }
    for (unit, &class) in units.iter().zip(&classes) {
        let layer = world.layer(class).expect("a class of this world");
        println!("  {:<10} {}", unit.name, kib(layer.memory_bytes()));
    }
    println!("  world      {}", kib(world.memory_bytes()));

    // Before on the left, after on the right.
    let right = draw(&world, &units, &after);
    let mut img = RgbImage::from_pixel(left.width() * 2 + GAP, left.height(), Rgb([255, 255, 255]));
    imageops::replace(&mut img, &left, 0, 0);
    imageops::replace(&mut img, &right, (left.width() + GAP) as i64, 0);
    io::save_png(&img, &out)?;
    let key: Vec<String> = units
        .iter()
        .map(|u| format!("{} {}", u.name, u.colour_name))
        .collect();
    println!(
        "wrote {out} ({}x{} pixels; left before the gatehouse, right with it; {})",
        img.width(),
        img.height(),
        key.join(", ")
    );
    Ok(())
}
