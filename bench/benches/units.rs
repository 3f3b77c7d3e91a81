//! The unit index against what a Rust user would pick instead, on the "efficient quadtree"
//! scene: N agents of small random sizes in a square world, each moving every frame and
//! bouncing off the agents it overlaps.
//!
//! A frame is: move every agent (bouncing off the world's walls), bring the index up to
//! date, find every overlapping pair, and reverse the velocity of every agent that
//! overlaps another. Collisions are found by the all-pairs walk where a contender has one,
//! and by one box query per agent (counting the others it overlaps) as well; both must find
//! the same pairs, and every contender must find the same number of pairs as the others in
//! every frame (checked), since they all run the same simulation.
//!
//! Contenders, all on one thread: `UnitIndex` with each layout, updated in place, and
//! rebuilt every frame instead; `rstar` updated by remove + insert (not at 1M, where it takes
//! seconds a frame), and bulk loaded every frame; `broccoli` (a broad-phase KD-tree/sweep-and-prune hybrid, rebuilt
//! every frame, as it is meant to be); a plain uniform grid rebuilt every frame (each agent
//! filed in every cell it overlaps, a counting sort into flat arrays); brute force on 1,000
//! agents.
//!
//! Scenes: uniform crowds (sizes 1 to 4, about one agent per 16 square units), clustered
//! armies (the same agents in dense gaussian blobs of 1,000), and the uniform crowd with one
//! agent in a thousand huge (16 to 64). Scales: 1k (with brute force), 10k, 100k, 1M.
//!
//! `cargo bench --bench units` (about 4 minutes); `QUADPATH_UNITS_QUICK=1` for a smoke
//! run; `QUADPATH_UNITS_SIZES=100000` to pick the scales, `QUADPATH_UNITS_SCENES=clustered,huge`
//! the scenes (`uniform`, `clustered`, `huge`), `QUADPATH_UNITS_ONLY=LooseQuadtree>,broccoli`
//! the contenders (pieces of their names); `QUADPATH_UNITS_NO_QUERIES=1` skips the per-agent
//! queries (for profiling the pair walks); `QUADPATH_UNITS_LONG=1` runs only issue 26's long
//! world (memory and pair walk of 80 units up to world-wide in a 2²⁴ × 1,000 world);
//! `QUADPATH_UNITS_FRAMES=200` sets the frames per table (to see whether long runs drift).

mod common;

use common::report::{fmt_bytes, fmt_ms, fmt_ratio, median, table};
use common::Rng;
use quadpath::units::{Aabb, Layout, LooseGrid, LooseQuadtree, UnitId, UnitIndex};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};
use std::time::Instant;

// ---------------------------------------------------------------------------------------
// The scene
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scene {
    Uniform,
    Clustered,
    Huge,
}

impl Scene {
    /// The scene's word in `QUADPATH_UNITS_SCENES`.
    fn key(self) -> &'static str {
        match self {
            Scene::Uniform => "uniform",
            Scene::Clustered => "clustered",
            Scene::Huge => "huge",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Scene::Uniform => "uniform crowd",
            Scene::Clustered => "clustered armies",
            Scene::Huge => "uniform + 0.1% huge (16–64)",
        }
    }
}

/// The agents, as parallel arrays: centres, half sizes, velocities.
#[derive(Clone)]
struct Agents {
    world: f32,
    x: Vec<f32>,
    y: Vec<f32>,
    hw: Vec<f32>,
    hh: Vec<f32>,
    vx: Vec<f32>,
    vy: Vec<f32>,
    /// Per agent: overlaps another this frame.
    hit: Vec<bool>,
}

/// One axis of a step: moves `pos` by `vel`, keeping `half` away from both walls, and turns
/// the velocity inward at a wall.
fn bounce_axis(pos: &mut f32, vel: &mut f32, half: f32, world: f32) {
    *pos += *vel;
    if *pos < half {
        *pos = half;
        *vel = vel.abs();
    } else if *pos > world - half {
        *pos = world - half;
        *vel = -vel.abs();
    }
}

fn unit(rng: &mut Rng) -> f32 {
    (rng.next() >> 40) as f32 / (1u64 << 24) as f32
}

impl Agents {
    fn new(n: usize, scene: Scene, seed: u64) -> Self {
        let mut rng = Rng(seed);
        // One agent per 16 square units on average.
        let world = (n as f32 * 16.0).sqrt();
        let mut a = Agents {
            world,
            x: Vec::with_capacity(n),
            y: Vec::with_capacity(n),
            hw: Vec::with_capacity(n),
            hh: Vec::with_capacity(n),
            vx: Vec::with_capacity(n),
            vy: Vec::with_capacity(n),
            hit: vec![false; n],
        };
        let clusters: Vec<(f32, f32)> = (0..n.div_ceil(1000))
            .map(|_| (unit(&mut rng) * world, unit(&mut rng) * world))
            .collect();
        for i in 0..n {
            let huge = scene == Scene::Huge && i % 1000 == 999;
            let (hw, hh) = if huge {
                (8.0 + 24.0 * unit(&mut rng), 8.0 + 24.0 * unit(&mut rng))
            } else {
                (0.5 + 1.5 * unit(&mut rng), 0.5 + 1.5 * unit(&mut rng))
            };
            let (x, y) = match scene {
                Scene::Clustered => {
                    // A gaussian blob (Box–Muller) of σ = 20 around the agent's army.
                    let (cx, cy) = clusters[i % clusters.len()];
                    let r = (-2.0 * unit(&mut rng).max(1e-7).ln()).sqrt() * 20.0;
                    let t = unit(&mut rng) * std::f32::consts::TAU;
                    (cx + r * t.cos(), cy + r * t.sin())
                }
                _ => (unit(&mut rng) * world, unit(&mut rng) * world),
            };
            a.x.push(x.clamp(hw, world - hw));
            a.y.push(y.clamp(hh, world - hh));
            a.hw.push(hw);
            a.hh.push(hh);
            a.vx.push(unit(&mut rng) - 0.5);
            a.vy.push(unit(&mut rng) - 0.5);
        }
        a
    }

    fn len(&self) -> usize {
        self.x.len()
    }

    #[inline]
    fn aabb(&self, i: usize) -> Aabb {
        Aabb::from_centre(self.x[i], self.y[i], self.hw[i], self.hh[i])
    }

    /// Every agent one step along its velocity, bouncing off the walls.
    fn step(&mut self) {
        for i in 0..self.len() {
            bounce_axis(&mut self.x[i], &mut self.vx[i], self.hw[i], self.world);
            bounce_axis(&mut self.y[i], &mut self.vy[i], self.hh[i], self.world);
        }
    }

    /// Reverses every agent that overlapped another, and clears the marks.
    fn bounce(&mut self) {
        for i in 0..self.len() {
            if std::mem::take(&mut self.hit[i]) {
                self.vx[i] = -self.vx[i];
                self.vy[i] = -self.vy[i];
            }
        }
    }

    fn pair(&mut self, a: usize, b: usize) {
        self.hit[a] = true;
        self.hit[b] = true;
    }
}

// ---------------------------------------------------------------------------------------
// Contenders
// ---------------------------------------------------------------------------------------

/// One structure under test: brought up to date after a move, then asked for collisions.
trait Contender {
    fn name(&self) -> String;
    /// Files the agents for the first time (not timed).
    fn build(&mut self, agents: &Agents);
    /// Brings the structure up to date after `agents` moved.
    fn update(&mut self, agents: &Agents);
    /// Marks every overlapping pair by a walk over all pairs, returning how many; `None`
    /// when the structure has no such walk.
    fn pairs(&mut self, agents: &mut Agents) -> Option<usize>;
    /// Marks every overlapping pair by one box query per agent, returning how many.
    fn queries(&mut self, agents: &mut Agents) -> Option<usize>;
    fn memory(&self) -> Option<usize>;
}

/// How `Ours` brings the index up to date after a move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Refresh {
    /// `update_all`: every unit, in storage order.
    All,
    /// One `update` per agent, in the agents' order.
    PerAgent,
    /// `rebuild` from the agents' array.
    Rebuild,
}

/// `UnitIndex` updated in place (or rebuilt every frame).
struct Ours<L: Layout> {
    label: &'static str,
    make: fn(f32) -> L,
    index: Option<UnitIndex<L>>,
    refresh: Refresh,
    scratch: Vec<(UnitId, Aabb)>,
    found: Vec<UnitId>,
}

impl<L: Layout> Ours<L> {
    fn new(label: &'static str, make: fn(f32) -> L, refresh: Refresh) -> Self {
        Self {
            label,
            make,
            index: None,
            refresh,
            scratch: Vec::new(),
            found: Vec::new(),
        }
    }
}

impl<L: Layout> Contender for Ours<L> {
    fn name(&self) -> String {
        self.label.into()
    }

    fn build(&mut self, agents: &Agents) {
        // A little room past the walls: a centre clamped to `world - half` can round to a
        // box a hair outside.
        let mut index = UnitIndex::new((self.make)(agents.world + 1.0)).unwrap();
        self.scratch = (0..agents.len())
            .map(|i| (UnitId::new(i as u32), agents.aabb(i)))
            .collect();
        index.rebuild(&self.scratch).unwrap();
        self.index = Some(index);
    }

    fn update(&mut self, agents: &Agents) {
        let index = self.index.as_mut().unwrap();
        if self.refresh == Refresh::PerAgent {
            for i in 0..agents.len() {
                index.update(UnitId::new(i as u32), agents.aabb(i)).unwrap();
            }
            return;
        }
        if self.refresh == Refresh::All {
            index.update_all(|id, _| agents.aabb(id.index())).unwrap();
            return;
        }
        for (i, unit) in self.scratch.iter_mut().enumerate() {
            unit.1 = agents.aabb(i);
        }
        index.rebuild(&self.scratch).unwrap();
    }

    fn pairs(&mut self, agents: &mut Agents) -> Option<usize> {
        let mut count = 0;
        self.index.as_ref().unwrap().for_each_pair(|a, b| {
            agents.pair(a.index(), b.index());
            count += 1;
        });
        Some(count)
    }

    fn queries(&mut self, agents: &mut Agents) -> Option<usize> {
        let index = self.index.as_ref().unwrap();
        let mut count = 0;
        for i in 0..agents.len() {
            index.query_box(agents.aabb(i), &mut self.found).unwrap();
            for other in &self.found {
                if other.index() > i {
                    agents.pair(i, other.index());
                    count += 1;
                }
            }
        }
        Some(count)
    }

    fn memory(&self) -> Option<usize> {
        self.index.as_ref().map(UnitIndex::memory_bytes)
    }
}

type RBox = GeomWithData<Rectangle<[f32; 2]>, u32>;

fn rbox(agents: &Agents, i: usize) -> RBox {
    let b = agents.aabb(i);
    GeomWithData::new(
        Rectangle::from_corners([b.min_x, b.min_y], [b.max_x, b.max_y]),
        i as u32,
    )
}

/// `rstar`: remove + insert per agent, or bulk load every frame.
struct Rstar {
    bulk: bool,
    tree: RTree<RBox>,
    /// Each agent's box as filed, to remove it by value.
    filed: Vec<RBox>,
}

impl Contender for Rstar {
    fn name(&self) -> String {
        if self.bulk {
            "rstar, bulk load every frame".into()
        } else {
            "rstar, remove + insert".into()
        }
    }

    fn build(&mut self, agents: &Agents) {
        self.filed = (0..agents.len()).map(|i| rbox(agents, i)).collect();
        self.tree = RTree::bulk_load(self.filed.clone());
    }

    fn update(&mut self, agents: &Agents) {
        if self.bulk {
            for (i, b) in self.filed.iter_mut().enumerate() {
                *b = rbox(agents, i);
            }
            self.tree = RTree::bulk_load(self.filed.clone());
        } else {
            for (i, filed) in self.filed.iter_mut().enumerate() {
                let b = rbox(agents, i);
                self.tree.remove(filed).expect("filed box");
                self.tree.insert(b);
                *filed = b;
            }
        }
    }

    fn pairs(&mut self, _: &mut Agents) -> Option<usize> {
        None
    }

    fn queries(&mut self, agents: &mut Agents) -> Option<usize> {
        let mut count = 0;
        for i in 0..agents.len() {
            let b = agents.aabb(i);
            let env = AABB::from_corners([b.min_x, b.min_y], [b.max_x, b.max_y]);
            for other in self.tree.locate_in_envelope_intersecting(env) {
                if other.data as usize > i {
                    agents.pair(i, other.data as usize);
                    count += 1;
                }
            }
        }
        Some(count)
    }

    fn memory(&self) -> Option<usize> {
        None
    }
}

/// `broccoli`: a tree built every frame, its own colliding-pairs walk.
struct Broccoli {
    boxes: Vec<(broccoli::axgeom::Rect<f32>, u32)>,
}

impl Contender for Broccoli {
    fn name(&self) -> String {
        "broccoli, rebuilt every frame".into()
    }

    fn build(&mut self, _: &Agents) {}

    fn update(&mut self, _: &Agents) {
        // Its tree borrows the boxes, so it is built in `pairs`, and timed there.
    }

    fn pairs(&mut self, agents: &mut Agents) -> Option<usize> {
        self.boxes.clear();
        self.boxes.extend((0..agents.len()).map(|i| {
            let b = agents.aabb(i);
            (broccoli::rect(b.min_x, b.max_x, b.min_y, b.max_y), i as u32)
        }));
        let mut tree = broccoli::Tree::new(&mut self.boxes);
        let mut count = 0;
        tree.find_colliding_pairs(|a, b| {
            agents.pair(a.1 as usize, b.1 as usize);
            count += 1;
        });
        Some(count)
    }

    fn queries(&mut self, _: &mut Agents) -> Option<usize> {
        None
    }

    fn memory(&self) -> Option<usize> {
        None
    }
}

/// A plain uniform grid, rebuilt every frame: each agent listed in every cell its box
/// overlaps (a counting sort into one flat array), pairs found cell by cell and reported
/// only in the cell holding the top-left corner of their overlap.
struct UniformGrid {
    side: f32,
    cols: u32,
    starts: Vec<u32>,
    entries: Vec<u32>,
    found: Vec<u32>,
}

impl UniformGrid {
    fn new(side: f32) -> Self {
        Self {
            side,
            cols: 0,
            starts: Vec::new(),
            entries: Vec::new(),
            found: Vec::new(),
        }
    }

    #[inline]
    fn coord(&self, v: f32) -> u32 {
        ((v / self.side) as i64).clamp(0, self.cols as i64 - 1) as u32
    }

    fn range(&self, b: &Aabb) -> (u32, u32, u32, u32) {
        (
            self.coord(b.min_x),
            self.coord(b.max_x),
            self.coord(b.min_y),
            self.coord(b.max_y),
        )
    }
}

impl Contender for UniformGrid {
    fn name(&self) -> String {
        format!("uniform grid (cell {}), rebuilt every frame", self.side)
    }

    fn build(&mut self, agents: &Agents) {
        self.cols = (agents.world / self.side).ceil() as u32;
        self.update(agents);
    }

    fn update(&mut self, agents: &Agents) {
        let cells = (self.cols * self.cols) as usize;
        self.starts.clear();
        self.starts.resize(cells + 1, 0);
        for i in 0..agents.len() {
            let (x0, x1, y0, y1) = self.range(&agents.aabb(i));
            for y in y0..=y1 {
                for x in x0..=x1 {
                    self.starts[(y * self.cols + x) as usize + 1] += 1;
                }
            }
        }
        for c in 1..=cells {
            self.starts[c] += self.starts[c - 1];
        }
        self.entries.resize(self.starts[cells] as usize, 0);
        // Fill from the back of each cell's run, so `starts` ends up right again.
        for i in (0..agents.len()).rev() {
            let (x0, x1, y0, y1) = self.range(&agents.aabb(i));
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let c = (y * self.cols + x) as usize + 1;
                    self.starts[c] -= 1;
                    self.entries[self.starts[c] as usize] = i as u32;
                }
            }
        }
        // `starts[c + 1]` now holds cell c's start: shift down.
        self.starts.remove(0);
        self.starts.push(self.entries.len() as u32);
    }

    fn pairs(&mut self, agents: &mut Agents) -> Option<usize> {
        let mut count = 0;
        for cell in 0..(self.cols * self.cols) as usize {
            let run = &self.entries[self.starts[cell] as usize..self.starts[cell + 1] as usize];
            for (k, &a) in run.iter().enumerate() {
                let ba = agents.aabb(a as usize);
                for &b in &run[k + 1..] {
                    let bb = agents.aabb(b as usize);
                    if ba.intersects(&bb) {
                        let corner = (
                            self.coord(ba.min_x.max(bb.min_x)),
                            self.coord(ba.min_y.max(bb.min_y)),
                        );
                        if (corner.1 * self.cols + corner.0) as usize == cell {
                            agents.pair(a as usize, b as usize);
                            count += 1;
                        }
                    }
                }
            }
        }
        Some(count)
    }

    fn queries(&mut self, agents: &mut Agents) -> Option<usize> {
        let mut count = 0;
        for i in 0..agents.len() {
            let b = agents.aabb(i);
            let (x0, x1, y0, y1) = self.range(&b);
            self.found.clear();
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let c = (y * self.cols + x) as usize;
                    for &o in &self.entries[self.starts[c] as usize..self.starts[c + 1] as usize] {
                        if o as usize > i && agents.aabb(o as usize).intersects(&b) {
                            self.found.push(o);
                        }
                    }
                }
            }
            // An agent spanning several cells is met once per cell.
            self.found.sort_unstable();
            self.found.dedup();
            for &o in &self.found {
                agents.pair(i, o as usize);
                count += 1;
            }
        }
        Some(count)
    }

    fn memory(&self) -> Option<usize> {
        Some((self.starts.capacity() + self.entries.capacity() + self.found.capacity()) * 4)
    }
}

/// Every pair tested, for scale.
struct Brute;

impl Contender for Brute {
    fn name(&self) -> String {
        "brute force".into()
    }
    fn build(&mut self, _: &Agents) {}
    fn update(&mut self, _: &Agents) {}
    fn pairs(&mut self, agents: &mut Agents) -> Option<usize> {
        let mut count = 0;
        for a in 0..agents.len() {
            let ba = agents.aabb(a);
            for b in a + 1..agents.len() {
                if ba.intersects(&agents.aabb(b)) {
                    agents.pair(a, b);
                    count += 1;
                }
            }
        }
        Some(count)
    }
    fn queries(&mut self, _: &mut Agents) -> Option<usize> {
        None
    }
    fn memory(&self) -> Option<usize> {
        Some(0)
    }
}

// ---------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------

/// Median milliseconds per frame of each phase.
struct Timing {
    name: String,
    moving: f64,
    update: f64,
    /// Mean of move + update + pair walk over the frames, when the pair walk ran every
    /// frame: unlike the medians, it counts work done every few frames (`update_all`'s
    /// re-sort by cell).
    frame_mean: Option<f64>,
    pairs: Option<f64>,
    queries: Option<f64>,
    memory: Option<usize>,
}

impl Timing {
    /// Move + update + the faster way to collide.
    fn frame(&self) -> f64 {
        let collide = match (self.pairs, self.queries) {
            (Some(p), Some(q)) => p.min(q),
            (Some(p), None) => p,
            (None, Some(q)) => q,
            (None, None) => f64::NAN,
        };
        self.moving + self.update + collide
    }
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Runs `frames` frames of the scene through `contender`. Each frame collides by the pair
/// walk (which drives the simulation) and, where the contender has them, by per-agent
/// queries too (on a copy, so the simulation is the same); the pair counts of every frame
/// are returned for the cross-check.
fn run(contender: &mut dyn Contender, start: &Agents, frames: usize) -> (Timing, Vec<usize>) {
    let mut agents = start.clone();
    contender.build(&agents);
    let (mut moving, mut update, mut pairs, mut queries) = (vec![], vec![], vec![], vec![]);
    let mut counts = Vec::new();
    for _ in 0..frames {
        let t = Instant::now();
        agents.step();
        moving.push(ms_since(t));
        let t = Instant::now();
        contender.update(&agents);
        update.push(ms_since(t));
        let mut copy = agents.clone();
        let t = Instant::now();
        // `QUADPATH_UNITS_NO_QUERIES`: pair walks only, for profiling them.
        let by_queries = if std::env::var_os("QUADPATH_UNITS_NO_QUERIES").is_some() {
            None
        } else {
            contender.queries(&mut copy)
        };
        if by_queries.is_some() {
            queries.push(ms_since(t));
        }
        let t = Instant::now();
        let by_pairs = contender.pairs(&mut agents);
        if by_pairs.is_some() {
            pairs.push(ms_since(t));
        }
        let count = match (by_pairs, by_queries) {
            (Some(p), Some(q)) => {
                assert_eq!(p, q, "{}: pair walk and queries disagree", contender.name());
                agents.bounce();
                p
            }
            (Some(p), None) => {
                agents.bounce();
                p
            }
            (None, Some(q)) => {
                agents = copy;
                agents.bounce();
                q
            }
            (None, None) => unreachable!(),
        };
        counts.push(count);
    }
    let frame_mean = (pairs.len() == frames).then(|| {
        let total: f64 = (0..frames).map(|f| moving[f] + update[f] + pairs[f]).sum();
        total / frames as f64
    });
    let opt = |v: Vec<f64>| (!v.is_empty()).then(|| median(&v));
    (
        Timing {
            name: contender.name(),
            moving: median(&moving),
            update: median(&update),
            frame_mean,
            pairs: opt(pairs),
            queries: opt(queries),
            memory: contender.memory(),
        },
        counts,
    )
}

/// A tuning knob from the environment, for trying cell sizes.
fn knob(name: &str, default: f32) -> f32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn grid_layout(w: f32) -> LooseGrid {
    LooseGrid::new(w, w)
        .with_cell(knob("QUADPATH_UNITS_GRID_CELL", 8.0))
        .with_tight_factor(knob("QUADPATH_UNITS_TIGHT", 4.0) as u32)
}

fn tree_layout(w: f32) -> LooseQuadtree {
    LooseQuadtree::new(w, w).with_finest_cell(knob("QUADPATH_UNITS_TREE_CELL", 8.0))
}

fn contenders(n: usize) -> Vec<Box<dyn Contender>> {
    let mut list: Vec<Box<dyn Contender>> = vec![
        Box::new(Ours::new(
            "UnitIndex<LooseQuadtree>",
            tree_layout,
            Refresh::All,
        )),
        Box::new(Ours::new("UnitIndex<LooseGrid>", grid_layout, Refresh::All)),
        Box::new(Ours::new(
            "UnitIndex<LooseQuadtree>, rebuilt every frame",
            tree_layout,
            Refresh::Rebuild,
        )),
        Box::new(Ours::new(
            "UnitIndex<LooseGrid>, rebuilt every frame",
            grid_layout,
            Refresh::Rebuild,
        )),
        Box::new(Ours::new(
            "UnitIndex<LooseQuadtree>, update per agent",
            tree_layout,
            Refresh::PerAgent,
        )),
        Box::new(Rstar {
            bulk: false,
            tree: RTree::new(),
            filed: Vec::new(),
        }),
        Box::new(Rstar {
            bulk: true,
            tree: RTree::new(),
            filed: Vec::new(),
        }),
        Box::new(Broccoli { boxes: Vec::new() }),
        Box::new(UniformGrid::new(8.0)),
    ];
    if n <= 1000 {
        list.push(Box::new(Brute));
    }
    if n > 100_000 {
        // Seconds a frame (20–30× the others at 1M): it would double the run's length.
        list.retain(|c| c.name() != "rstar, remove + insert");
    }
    if std::env::var_os("QUADPATH_UNITS_NO_QUERIES").is_some() {
        // `rstar` has no pair walk: it collides by queries only.
        list.retain(|c| !c.name().starts_with("rstar"));
    }
    if std::env::var("QUADPATH_UNITS_OURS_ONLY").is_ok() {
        list.truncate(5);
    }
    if let Ok(only) = std::env::var("QUADPATH_UNITS_ONLY") {
        // Comma-separated pieces of contender names, for measuring one idea against a peer.
        list.retain(|c| only.split(',').any(|piece| c.name().contains(piece.trim())));
    }
    list
}

fn frames_for(n: usize, quick: bool) -> usize {
    if let Some(frames) = std::env::var("QUADPATH_UNITS_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return frames;
    }
    match (n, quick) {
        (_, true) => 2,
        (0..=10_000, _) => 30,
        (0..=100_000, _) => 10,
        _ => 3,
    }
}

fn main() {
    let quick = std::env::var("QUADPATH_UNITS_QUICK").is_ok();
    let sizes: Vec<usize> = match std::env::var("QUADPATH_UNITS_SIZES") {
        Ok(s) => s.split(',').filter_map(|v| v.trim().parse().ok()).collect(),
        Err(_) if quick => vec![1000, 10_000],
        Err(_) => vec![1000, 10_000, 100_000, 1_000_000],
    };
    let mut out = String::new();
    if std::env::var_os("QUADPATH_UNITS_LONG").is_some() {
        long_world(&mut out);
        println!("{out}");
        return;
    }
    out.push_str("### Unit index: one frame (move + update + collide), one thread\n\n");
    let scenes = std::env::var("QUADPATH_UNITS_SCENES").unwrap_or_default();
    let mut summary = Vec::new();
    for scene in [Scene::Uniform, Scene::Clustered, Scene::Huge] {
        if !scenes.is_empty() && !scenes.contains(scene.key()) {
            continue;
        }
        for &n in &sizes {
            let start = Agents::new(n, scene, 0x5EED ^ n as u64);
            let frames = frames_for(n, quick);
            let mut rows = Vec::new();
            let mut reference: Option<Vec<usize>> = None;
            // A throwaway frame first: whichever contender ran first in a scene tended to
            // have its pair walk 1.5–1.8× slower than when run later (the allocator's first
            // large blocks of the scene, it seems), whichever contender it was.
            if let Some(mut first) = contenders(n).into_iter().next() {
                run(first.as_mut(), &start, 1);
            }
            for mut c in contenders(n) {
                let (t, counts) = run(c.as_mut(), &start, frames);
                match &reference {
                    None => reference = Some(counts),
                    Some(r) => assert_eq!(r, &counts, "{} finds other pairs", t.name),
                }
                rows.push(t);
                eprintln!(
                    "  {} {} {}: done",
                    scene.name(),
                    n,
                    rows.last().unwrap().name
                );
            }
            let best = rows.iter().map(Timing::frame).fold(f64::INFINITY, f64::min);
            let ours = rows[0].frame();
            let pairs = reference.as_ref().map_or(0, |r| r[r.len() - 1]);
            out.push_str(&format!(
                "**{}, {} agents** (world {:.0}×{:.0}, {} frames, {} overlapping pairs in the last)\n\n",
                scene.name(),
                n,
                start.world,
                start.world,
                frames,
                pairs
            ));
            let header: Vec<String> = [
                "contender",
                "update",
                "pair walk",
                "per-agent queries",
                "frame",
                "frame vs UnitIndex<LooseQuadtree>",
                "memory",
                "bytes/agent",
            ]
            .map(String::from)
            .into();
            let table_rows: Vec<Vec<String>> = rows
                .iter()
                .map(|t| {
                    let mark = if t.frame() == best { " **(best)**" } else { "" };
                    vec![
                        t.name.clone(),
                        fmt_ms(t.update),
                        t.pairs.map_or("–".into(), fmt_ms),
                        t.queries.map_or("–".into(), fmt_ms),
                        format!("{}{mark}", fmt_ms(t.frame())),
                        fmt_ratio(t.frame() / ours),
                        t.memory.map_or("–".into(), fmt_bytes),
                        t.memory
                            .map_or("–".into(), |m| format!("{:.1}", m as f64 / n as f64)),
                    ]
                })
                .collect();
            table(&mut out, &header, &table_rows);
            println!("{out}");
            out.clear();
            if let Some(row) = summary_row(scene, n, &rows) {
                summary.push(row);
            }
        }
    }
    if !summary.is_empty() {
        out.push_str(
            "**Against broccoli** (issue 29: `UnitIndex<LooseQuadtree>` with `update_all` and the \
             pair walk; frame = move + update + pair walk, medians of each, and the mean of \
             whole frames; broccoli's tree is built in its pair walk)\n\n",
        );
        let header = [
            "scene",
            "agents",
            "move",
            "update",
            "pair walk",
            "frame",
            "broccoli frame",
            "ours / broccoli",
            "mean frame",
            "broccoli mean frame",
            "ours / broccoli (means)",
            "memory",
        ]
        .map(String::from);
        table(&mut out, &header, &summary);
        println!("{out}");
    }
}

/// The summary's row for one table: our index against broccoli, when both ran.
fn summary_row(scene: Scene, n: usize, rows: &[Timing]) -> Option<Vec<String>> {
    let ours = rows.iter().find(|t| t.name == "UnitIndex<LooseQuadtree>")?;
    let broccoli = rows.iter().find(|t| t.name.starts_with("broccoli"))?;
    let frame = |t: &Timing| t.moving + t.update + t.pairs.unwrap_or(f64::NAN);
    Some(vec![
        scene.name().into(),
        n.to_string(),
        fmt_ms(ours.moving),
        fmt_ms(ours.update),
        ours.pairs.map_or("–".into(), fmt_ms),
        fmt_ms(frame(ours)),
        fmt_ms(frame(broccoli)),
        fmt_ratio(frame(ours) / frame(broccoli)),
        ours.frame_mean.map_or("–".into(), fmt_ms),
        broccoli.frame_mean.map_or("–".into(), fmt_ms),
        fmt_ratio(ours.frame_mean.unwrap_or(f64::NAN) / broccoli.frame_mean.unwrap_or(f64::NAN)),
        ours.memory.map_or("–".into(), fmt_bytes),
    ])
}

// ---------------------------------------------------------------------------------------
// The long world of issue 26
// ---------------------------------------------------------------------------------------

/// Issue 26's long world: 2²⁴ × 1,000, cells of 64, 80 units of widths log-uniform up to
/// the world's length, moved (every other move a jump anywhere, else a short step). Prints
/// each layout's memory and pair walk after 2,000 and 6,000 moves, and after a cleanup.
fn long_world(out: &mut String) {
    const LONG: f32 = 16_777_216.0;
    const TALL: f32 = 1000.0;
    fn random_box(rng: &mut Rng) -> Aabb {
        let w = 2f32.powf(24.0 * unit(rng)).min(LONG);
        let h = 2f32.powf(10.0 * unit(rng)).min(TALL);
        let (x, y) = (unit(rng) * (LONG - w), unit(rng) * (TALL - h));
        Aabb::new(x, y, (x + w).min(LONG), (y + h).min(TALL))
    }
    fn measure<L: Layout>(name: &str, layout: L, out: &mut String) {
        let mut index = UnitIndex::new(layout).unwrap();
        let mut rng = Rng(0x1_0AE5);
        let mut boxes: Vec<Aabb> = (0..80).map(|_| random_box(&mut rng)).collect();
        for b in &boxes {
            index.insert(*b).unwrap();
        }
        let mut rows = Vec::new();
        let pair_walk = |index: &UnitIndex<L>| {
            let start = Instant::now();
            let mut count = 0usize;
            index.for_each_pair(|_, _| count += 1);
            (start.elapsed().as_secs_f64(), count)
        };
        for moves in 1..=6000 {
            let i = (unit(&mut rng) * 80.0) as usize;
            boxes[i] = if moves % 2 == 0 {
                random_box(&mut rng)
            } else {
                let b = boxes[i];
                let dx = ((unit(&mut rng) - 0.5) * 64.0).clamp(-b.min_x, LONG - b.max_x);
                Aabb::new(b.min_x + dx, b.min_y, b.max_x + dx, b.max_y)
            };
            index.update(UnitId::new(i as u32), boxes[i]).unwrap();
            if moves == 2000 || moves == 6000 {
                let (t, pairs) = pair_walk(&index);
                rows.push(vec![
                    format!("{name}, after {moves} moves"),
                    fmt_bytes(index.memory_bytes()),
                    fmt_ms(t * 1e3),
                    pairs.to_string(),
                ]);
            }
        }
        index.cleanup();
        let (t, pairs) = pair_walk(&index);
        rows.push(vec![
            format!("{name}, then cleanup"),
            fmt_bytes(index.memory_bytes()),
            fmt_ms(t * 1e3),
            pairs.to_string(),
        ]);
        let header = ["index", "memory", "pair walk", "pairs"].map(String::from);
        table(out, &header, &rows);
    }
    out.push_str("**Long world** (16,777,216 × 1,000, cells of 64, 80 units up to world-wide)\n\n");
    measure(
        "UnitIndex<LooseGrid>",
        LooseGrid::new(LONG, TALL).with_cell(64.0),
        out,
    );
    measure(
        "UnitIndex<LooseQuadtree>",
        LooseQuadtree::new(LONG, TALL).with_finest_cell(64.0),
        out,
    );
}
