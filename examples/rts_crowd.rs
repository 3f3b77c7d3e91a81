//! A crowd crossing the map: a few hundred units walk from the west base to a rally point in
//! the east base of `maps/rts_valley.png`, led by one flow field and kept apart by the unit
//! index.
//!
//! Every tick, each unit
//! - asks the flow field (`HpaMap::flow_field` to the rally point, then
//!   `FlowField::next_step`) for the next cell from the one it stands on, and steers toward
//!   that cell's centre, until it is within a few cells of the rally point;
//! - asks the [`UnitIndex`] for its nearest neighbours within reach
//!   ([`UnitIndex::nearest_within`]) and is pushed away from those it is closer to than two
//!   radii (separation);
//! - moves, sliding along walls: a move that would put any part of its box on a blocked
//!   cell is tried on one axis at a time, and refused if both fail, so no unit ever stands
//!   in a wall (checked every tick);
//! - and is moved in the index ([`UnitIndex::update`]).
//!
//! The index is cleaned up every 50 ticks. At the end the example prints how many units
//! arrived, the time spent in the index, and how many units still overlap, and draws two
//! moments of the march, each unit's track so far behind it.
//!
//! Run with `cargo run --release --example rts_crowd [OUT.png]` (default `rts_crowd.png` in
//! the current directory; the README's picture is `docs/rts_crowd.png`).

use image::{imageops, Rgb, RgbImage};
use quadpath::io::{self, BitmapOptions, ColorLegend, Overlay, RenderOptions};
use quadpath::units::{Aabb, LooseQuadtree, UnitId, UnitIndex};
use quadpath::{Cell, FlowField, HpaMap, Mode};
use std::time::{Duration, Instant};

/// Units in the crowd.
const UNITS: usize = 300;
/// A unit's radius in cells: a little under half a cell, so two can pass side by side
/// through a one-cell gap only in single file.
const RADIUS: f32 = 0.35;
/// Cells per tick at full speed.
const SPEED: f32 = 0.2;
/// Separation: how far apart (centre to centre) units try to stay, and how hard they push.
const SPACING: f32 = 2.0 * RADIUS + 0.3;
const PUSH: f32 = 1.0;
/// Neighbours considered for separation.
const NEIGHBOURS: usize = 8;
const MAX_TICKS: usize = 1500;
/// The ticks drawn: the crowd on the bridges, and the end.
const SNAPSHOT: usize = 220;
/// Pixels per cell, and between the two panels.
const SCALE: u32 = 6;
const GAP: u32 = 8;

/// The west base's interior (inclusive), from `examples/draw_rts_map.rs`, where the crowd
/// starts.
const WEST: (u32, u32, u32, u32) = (10, 34, 33, 59);
/// The rally point, in the east base. A unit stops within `RALLY_RADIUS` of it (along the
/// flow field), or next to a unit that stopped, once within `GATHER_RADIUS`: the crowd
/// settles around the point in a blob, rather than piling up at the first goal cell.
const RALLY: Cell = Cell::new(108, 48);
const RALLY_RADIUS: f64 = 2.0;
const GATHER_RADIUS: f64 = 12.0;

struct Crowd {
    x: Vec<f32>,
    y: Vec<f32>,
    /// Units that have arrived: they steer no more, and are only pushed by the others.
    stopped: Vec<bool>,
    /// Centre positions every few ticks, for the tracks.
    tracks: Vec<Vec<(f32, f32)>>,
}

fn unit_box(x: f32, y: f32) -> Aabb {
    Aabb::from_centre(x, y, RADIUS, RADIUS)
}

/// Whether every cell the unit's box covers is free.
fn stands_free(map: &HpaMap, x: f32, y: f32) -> bool {
    let grid = map.grid();
    let b = unit_box(x, y);
    if b.min_x < 0.0 || b.min_y < 0.0 {
        return false;
    }
    let (x0, y0) = (b.min_x as u32, b.min_y as u32);
    let (x1, y1) = (b.max_x as u32, b.max_y as u32);
    if x1 >= grid.width() || y1 >= grid.height() {
        return false;
    }
    (y0..=y1).all(|cy| (x0..=x1).all(|cx| grid.is_free(Cell::new(cx, cy))))
}

/// Spawns the crowd on the free cells of the west base, one unit per cell, row by row.
fn spawn(map: &HpaMap) -> Crowd {
    let mut x = Vec::new();
    let mut y = Vec::new();
    let (x1, y1, x2, y2) = WEST;
    'rows: for cy in y1..=y2 {
        for cx in x1..=x2 {
            let (px, py) = (cx as f32 + 0.5, cy as f32 + 0.5);
            if stands_free(map, px, py) {
                x.push(px);
                y.push(py);
                if x.len() == UNITS {
                    break 'rows;
                }
            }
        }
    }
    let tracks = x.iter().zip(&y).map(|(&a, &b)| vec![(a, b)]).collect();
    let stopped = vec![false; x.len()];
    Crowd {
        x,
        y,
        stopped,
        tracks,
    }
}

/// Statistics of the index's part of the work.
#[derive(Default)]
struct IndexTime {
    queries: Duration,
    updates: Duration,
    cleanups: Duration,
}

/// One tick of the march. Returns how many units have reached the rally point.
fn tick(
    map: &HpaMap,
    field: &FlowField,
    crowd: &mut Crowd,
    index: &mut UnitIndex<LooseQuadtree>,
    neighbours: &mut Vec<(UnitId, f32)>,
    time: &mut IndexTime,
) -> Result<usize, Box<dyn std::error::Error>> {
    let mut arrived = 0;
    for i in 0..crowd.x.len() {
        let (x, y) = (crowd.x[i], crowd.y[i]);
        let here = Cell::new(x as u32, y as u32);
        // Toward the centre of the next cell, or stay put on the goal.
        // The neighbours first: whether one of them has stopped decides whether to stop.
        let t = Instant::now();
        index.nearest_within(x, y, SPACING, NEIGHBOURS + 1, neighbours)?;
        time.queries += t.elapsed();
        if !crowd.stopped[i] {
            let distance = field.distance(map, here)?.unwrap_or(f64::INFINITY);
            let by_stopped = neighbours
                .iter()
                .any(|&(other, _)| other.index() != i && crowd.stopped[other.index()]);
            crowd.stopped[i] =
                distance <= RALLY_RADIUS || (distance <= GATHER_RADIUS && by_stopped);
        }
        let (mut vx, mut vy) = match field.next_step(map, here)?.filter(|_| !crowd.stopped[i]) {
            Some(next) => {
                let (dx, dy) = (next.x as f32 + 0.5 - x, next.y as f32 + 0.5 - y);
                let len = (dx * dx + dy * dy).sqrt().max(1e-6);
                (dx / len * SPEED, dy / len * SPEED)
            }
            None => {
                arrived += 1;
                (0.0, 0.0)
            }
        };
        // Away from every neighbour closer than the spacing, harder the closer it is.
        for &(other, _) in neighbours.iter() {
            if other.index() == i {
                continue;
            }
            let (dx, dy) = (x - crowd.x[other.index()], y - crowd.y[other.index()]);
            let d = (dx * dx + dy * dy).sqrt();
            if d < SPACING {
                // Two units on the same spot part along a direction fixed by their ids.
                let (ux, uy) = if d > 1e-4 {
                    (dx / d, dy / d)
                } else {
                    let a = (i * 7 + other.index()) as f32;
                    (a.cos(), a.sin())
                };
                let push = PUSH * (SPACING - d) / SPACING * SPEED * 2.0;
                vx += ux * push;
                vy += uy * push;
            }
        }
        // Never faster than full speed plus a little shove.
        let v = (vx * vx + vy * vy).sqrt();
        if v > SPEED * 1.5 {
            vx *= SPEED * 1.5 / v;
            vy *= SPEED * 1.5 / v;
        }
        // Slide along walls: both axes, else one, else stay.
        let (nx, ny) = [(x + vx, y + vy), (x + vx, y), (x, y + vy), (x, y)]
            .into_iter()
            .find(|&(a, b)| stands_free(map, a, b))
            .expect("the unit's own spot is free");
        crowd.x[i] = nx;
        crowd.y[i] = ny;
        let t = Instant::now();
        index.update(UnitId::new(i as u32), unit_box(nx, ny))?;
        time.updates += t.elapsed();
    }
    Ok(arrived)
}

/// The map, each unit's track in a faint colour, and the units as discs.
fn draw(map: &HpaMap, crowd: &Crowd, upto: usize) -> RgbImage {
    let opts = RenderOptions {
        scale: SCALE,
        ..Default::default()
    };
    let mut img = io::render(map.grid(), &Overlay::default(), &opts);
    let k = io::effective_scale(map.grid(), SCALE) as f32;
    let (w, h) = (img.width() as i64, img.height() as i64);
    let put = |img: &mut RgbImage, px: i64, py: i64, c: [u8; 3], blend: u32| {
        if (0..w).contains(&px) && (0..h).contains(&py) {
            let p = img.get_pixel_mut(px as u32, py as u32);
            for (channel, tint) in p.0.iter_mut().zip(c) {
                *channel = ((*channel as u32 * (4 - blend) + tint as u32 * blend) / 4) as u8;
            }
        }
    };
    let colour = |i: usize| {
        // From orange at the front of the column to purple at its back.
        let t = i as f32 / UNITS as f32;
        [
            (240.0 - 110.0 * t) as u8,
            (120.0 - 80.0 * t) as u8,
            (20.0 + 170.0 * t) as u8,
        ]
    };
    for (i, track) in crowd.tracks.iter().enumerate() {
        for &(x, y) in track.iter().take(upto) {
            put(&mut img, (x * k) as i64, (y * k) as i64, colour(i), 1);
        }
    }
    for (i, track) in crowd.tracks.iter().enumerate() {
        let &(x, y) = track
            .get(upto.saturating_sub(1))
            .unwrap_or(&track[track.len() - 1]);
        let (cx, cy, r) = (x * k, y * k, RADIUS * k);
        for py in (cy - r) as i64..=(cy + r) as i64 {
            for px in (cx - r) as i64..=(cx + r) as i64 {
                let (dx, dy) = (px as f32 + 0.5 - cx, py as f32 + 0.5 - cy);
                if dx * dx + dy * dy <= r * r {
                    put(&mut img, px, py, colour(i), 4);
                }
            }
        }
    }
    img
}

/// Track points are kept every this many ticks.
const TRACK_EVERY: usize = 4;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "rts_crowd.png".into());
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/rts_valley.png");
    let opts = BitmapOptions {
        legend: Some(ColorLegend::rts_default()),
        ..Default::default()
    };
    let map = HpaMap::new(io::load_grid(file, &opts)?, Mode::Exact)?;
    let (w, h) = (map.grid().width() as f32, map.grid().height() as f32);
    let t = Instant::now();
    let field = map.flow_field(RALLY)?;
    println!(
        "maps/rts_valley.png: {w}x{h}, flow field to the rally point in {:.2} ms",
        t.elapsed().as_secs_f64() * 1e3
    );

    let mut crowd = spawn(&map);
    // Cells about three times a unit's size: a few units per cell in a dense crowd.
    let mut index = UnitIndex::new(LooseQuadtree::new(w, h).with_finest_cell(2.0))?;
    let units: Vec<_> = (0..crowd.x.len())
        .map(|i| (UnitId::new(i as u32), unit_box(crowd.x[i], crowd.y[i])))
        .collect();
    index.rebuild(&units)?;
    println!("{} units leave the west base", index.len());

    let mut neighbours = Vec::new();
    let mut time = IndexTime::default();
    let mut snapshot = None;
    let mut ticks = 0;
    let mut arrived = 0;
    while ticks < MAX_TICKS && arrived < crowd.x.len() {
        arrived = tick(
            &map,
            &field,
            &mut crowd,
            &mut index,
            &mut neighbours,
            &mut time,
        )?;
        ticks += 1;
        if ticks % TRACK_EVERY == 0 {
            for i in 0..crowd.x.len() {
                crowd.tracks[i].push((crowd.x[i], crowd.y[i]));
            }
        }
        // No unit ever stands in a wall.
        assert!((0..crowd.x.len()).all(|i| stands_free(&map, crowd.x[i], crowd.y[i])));
        if ticks % 50 == 0 {
            let t = Instant::now();
            index.cleanup();
            time.cleanups += t.elapsed();
        }
        if ticks == SNAPSHOT {
            snapshot = Some(draw(&map, &crowd, SNAPSHOT / TRACK_EVERY + 1));
        }
        if ticks % 100 == 0 {
            println!("  tick {ticks:>4}: {arrived:>3} at the rally point");
        }
    }
    let mut overlapping = 0;
    index.for_each_pair(|_, _| overlapping += 1);
    let per_tick = |d: Duration| d.as_secs_f64() * 1e6 / ticks as f64;
    println!(
        "{arrived} of {} units at the rally point after {ticks} ticks; {overlapping} pairs of boxes touching at the end",
        crowd.x.len()
    );
    println!(
        "index per tick: {:.0} µs of neighbour queries, {:.0} µs of updates, {:.1} µs of cleanups; {} bytes ({:.0} per unit)",
        per_tick(time.queries),
        per_tick(time.updates),
        per_tick(time.cleanups),
        index.memory_bytes(),
        index.memory_bytes() as f64 / index.len() as f64
    );

    let end = draw(&map, &crowd, usize::MAX);
    let first = snapshot.unwrap_or_else(|| end.clone());
    let mut img = RgbImage::from_pixel(first.width() * 2 + GAP, first.height(), Rgb([255; 3]));
    imageops::replace(&mut img, &first, 0, 0);
    imageops::replace(&mut img, &end, (first.width() + GAP) as i64, 0);
    io::save_png(&img, &out)?;
    println!("wrote {out}: tick {SNAPSHOT} (left) and tick {ticks} (right)");
    Ok(())
}
