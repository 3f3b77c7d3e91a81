//! A crowd crossing the map: a few hundred units walk from the west base to a rally point in
//! the east base of `maps/rts_valley.png`, their paths planned by the [`PathService`] and
//! kept apart by the unit index.
//!
//! At the start every unit orders a path to the rally area; the service groups the orders
//! (one class, one goal) and answers them from one flow field, a frame budget at a time.
//! Every tick the service does its frame's work, and each unit
//! - once its path is delivered, asks the service for its next waypoint
//!   ([`PathService::next_waypoint`]: string-pulled, the farthest cell ahead in a walkable
//!   straight line) and steers toward that cell's centre, reporting its progress along the
//!   path ([`PathService::advance`]), until it is within a few cells of the rally point;
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
use quadpath::service::{Budget, PathService, RequestOptions, Ticket};
use quadpath::units::{Aabb, LooseQuadtree, UnitId, UnitIndex};
use quadpath::{Cell, HpaMap, Mode, Movement, Rect, World};
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
/// straight line), or next to a unit that stopped, once within `GATHER_RADIUS`: the crowd
/// settles around the point in a blob, rather than piling up at the first goal cell.
const RALLY: Cell = Cell::new(108, 48);
const RALLY_RADIUS: f64 = 2.0;
const GATHER_RADIUS: f64 = 12.0;
/// The service's work per frame, in expansions.
const FRAME_BUDGET: usize = 4000;
/// How far ahead along its path a unit looks for where it stands, in cells.
const LOOKAHEAD: usize = 40;

struct Crowd {
    x: Vec<f32>,
    y: Vec<f32>,
    /// Units that have arrived: they steer no more, and are only pushed by the others.
    stopped: Vec<bool>,
    /// Centre positions every few ticks, for the tracks.
    tracks: Vec<Vec<(f32, f32)>>,
    /// Each unit's order, and how far along its path it has come.
    tickets: Vec<Ticket>,
    progress: Vec<usize>,
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
        progress: vec![0; x.len()],
        x,
        y,
        stopped,
        tracks,
        tickets: Vec::new(),
    }
}

/// Statistics of the index's part of the work.
#[derive(Default)]
struct IndexTime {
    queries: Duration,
    updates: Duration,
    cleanups: Duration,
}

/// The cell a unit at `here` should steer toward: its string-pulled waypoint once its path
/// is delivered (after recording how far along the path it stands), `None` before that or
/// at the path's end.
fn waypoint(
    world: &World,
    service: &mut PathService,
    crowd: &mut Crowd,
    i: usize,
    here: Cell,
) -> Result<Option<Cell>, Box<dyn std::error::Error>> {
    let ticket = crowd.tickets[i];
    let Some(path) = service.outcome(ticket).and_then(|o| o.path()) else {
        return Ok(None); // not delivered yet: wait
    };
    let from = crowd.progress[i];
    let ahead = path.cells.len().min(from + LOOKAHEAD);
    if let Some(k) = path.cells[from..ahead].iter().position(|&c| c == here) {
        crowd.progress[i] = from + k;
        service.advance(ticket, from + k)?;
    }
    Ok(service.next_waypoint(world, ticket, here)?)
}

/// One tick of the march. Returns how many units have reached the rally point.
fn tick(
    world: &World,
    map: &HpaMap,
    service: &mut PathService,
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
            let distance = quadpath::octile(here, RALLY);
            let by_stopped = neighbours
                .iter()
                .any(|&(other, _)| other.index() != i && crowd.stopped[other.index()]);
            crowd.stopped[i] =
                distance <= RALLY_RADIUS || (distance <= GATHER_RADIUS && by_stopped);
        }
        let next = match crowd.stopped[i] {
            true => None,
            false => waypoint(world, service, crowd, i, here)?,
        };
        let (mut vx, mut vy) = match next {
            Some(next) => {
                let (dx, dy) = (next.x as f32 + 0.5 - x, next.y as f32 + 0.5 - y);
                let len = (dx * dx + dy * dy).sqrt().max(1e-6);
                (dx / len * SPEED, dy / len * SPEED)
            }
            None => {
                arrived += usize::from(crowd.stopped[i]);
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
    let mut world = World::new(io::load_grid(file, &opts)?);
    let infantry = world.add_class(Movement::default(), Mode::Exact)?;
    let world = world; // no edits in this march
    let map = world.layer(infantry).expect("the class's layer");
    let (w, h) = (map.grid().width() as f32, map.grid().height() as f32);
    println!("maps/rts_valley.png: {w}x{h}");

    let mut crowd = spawn(map);
    // The whole crowd orders a path to the area around the rally point at once.
    let mut service = PathService::new(&world);
    let rally = Rect::new(RALLY.x - 1, RALLY.y - 1, RALLY.x + 1, RALLY.y + 1);
    for i in 0..crowd.x.len() {
        let start = Cell::new(crowd.x[i] as u32, crowd.y[i] as u32);
        let unit = UnitId::new(i as u32);
        let ticket = service.request(
            &world,
            infantry,
            unit,
            start,
            rally,
            RequestOptions::default(),
        )?;
        crowd.tickets.push(ticket);
    }
    let mut service_time = Duration::ZERO;
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
        let t = Instant::now();
        let report = service.tick(&world, Budget::Expansions(FRAME_BUDGET))?;
        service_time += t.elapsed();
        if report.delivered > 0 {
            println!(
                "  tick {ticks:>4}: {} paths delivered, {} from shared work",
                report.delivered, report.shared
            );
        }
        service.drain_finished().for_each(drop);
        arrived = tick(
            &world,
            map,
            &mut service,
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
        assert!((0..crowd.x.len()).all(|i| stands_free(map, crowd.x[i], crowd.y[i])));
        if ticks % 50 == 0 {
            let t = Instant::now();
            index.cleanup();
            time.cleanups += t.elapsed();
        }
        if ticks == SNAPSHOT {
            snapshot = Some(draw(map, &crowd, SNAPSHOT / TRACK_EVERY + 1));
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

    let stats = service.stats();
    println!(
        "service: {} requests, {} answered from shared work ({} flow field), {:.0} µs per tick",
        stats.requests,
        stats.shared,
        stats.flow_fields,
        per_tick(service_time)
    );
    for &ticket in &crowd.tickets {
        service.release(ticket)?;
    }
    assert_eq!(service.live_tickets(), 0, "every path released");

    let end = draw(map, &crowd, usize::MAX);
    let first = snapshot.unwrap_or_else(|| end.clone());
    let mut img = RgbImage::from_pixel(first.width() * 2 + GAP, first.height(), Rgb([255; 3]));
    imageops::replace(&mut img, &first, 0, 0);
    imageops::replace(&mut img, &end, (first.width() + GAP) as i64, 0);
    io::save_png(&img, &out)?;
    println!("wrote {out}: tick {SNAPSHOT} (left) and tick {ticks} (right)");
    Ok(())
}
