//! Writes a GPPC-style dynamic scenario (`version 2` and its patch file) from a Moving AI
//! map, for benchmarking replays larger than the shipped `dao_arena2`: the map is laid as
//! one patch over the empty map (`P 0 0 0 0`), then buildings go up and come down (a
//! building is a patch of walls; its removal, a patch of the level's own terrain there), some of
//! them walled rings that shut in whatever stands inside. Between patches come queries
//! whose optimal lengths `pathfinding::astar` computes on the map as it stands (`-1` when
//! the goal is cut off).
//!
//! ```text
//! cargo run --release --example dynamic_scenario -- \
//!     ../shared/maps/sc1/Aftershock.map target/aftershock-dyn --buildings 2000 --queries 400
//! quadpath bench target/aftershock-dyn.scen
//! ```

use quadpath::io;
use quadpath::{baseline, Cell, Grid, TerrainPatch};
use std::fmt::Write as _;

/// A small deterministic generator, so that a seed names a scenario.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as u32
    }
}

struct Args {
    map: String,
    out: String,
    buildings: usize,
    queries: usize,
    seed: u64,
}

fn args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let usage = "usage: dynamic_scenario MAP OUT_STEM [--buildings N] [--queries N] [--seed N]";
    let map = it.next().ok_or(usage)?;
    let out = it.next().ok_or(usage)?;
    let mut a = Args {
        map,
        out,
        buildings: 1000,
        queries: 200,
        seed: 1,
    };
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(usage)?;
        let n: u64 = value
            .parse()
            .map_err(|_| format!("{flag}: not a number: {value}"))?;
        match flag.as_str() {
            "--buildings" => a.buildings = n as usize,
            "--queries" => a.queries = n as usize,
            "--seed" => a.seed = n.max(1),
            _ => return Err(usage.into()),
        }
    }
    Ok(a)
}

/// The codes of `grid` under the rectangle at `at`, as a patch: what removing a building
/// put there lays back.
fn terrain_under(grid: &Grid, at: Cell, w: u32, h: u32) -> TerrainPatch {
    let codes = (0..h)
        .flat_map(|dy| (0..w).map(move |dx| (dx, dy)))
        .map(|(dx, dy)| grid.terrain(Cell::new(at.x + dx, at.y + dy)).code())
        .collect();
    TerrainPatch::new(w, h, codes)
}

/// A building: a solid block of walls, or (one in four) a hollow ring that shuts in what
/// it surrounds.
fn building(rng: &mut Rng) -> TerrainPatch {
    let (w, h) = (2 + rng.below(9), 2 + rng.below(9));
    let ring = rng.below(4) == 0 && w > 3 && h > 3;
    let codes = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| {
            let edge = x == 0 || y == 0 || x == w - 1 || y == h - 1;
            if edge || !ring {
                b'@'
            } else {
                b'.'
            }
        })
        .collect();
    TerrainPatch::new(w, h, codes)
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let level = io::read_map(&a.map).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    let (w, h) = (level.width(), level.height());
    let mut rng = Rng(a.seed);
    let mut patches = vec![terrain_under(&level, Cell::new(0, 0), w, h)];
    let mut grid = level.clone();
    let mut commands = String::new();
    writeln!(commands, "P 0 0 0 0").unwrap();
    // Buildings standing, as (patch id of what was under them, where).
    let mut standing: Vec<(usize, Cell)> = Vec::new();
    let steps = a.buildings * 2;
    let query_every = (steps / a.queries.max(1)).max(1);
    let (mut queries, mut unreachable) = (0, 0);
    for step in 0..steps {
        // Raise a building while fewer than half have gone up, else tear one down now and
        // then; at the end, all have come down.
        let raise = step < a.buildings && (standing.is_empty() || rng.below(3) > 0);
        if raise {
            let b = building(&mut rng);
            let at = Cell::new(rng.below(w - b.width() + 1), rng.below(h - b.height() + 1));
            patches.push(terrain_under(&level, at, b.width(), b.height()));
            standing.push((patches.len() - 1, at));
            grid.apply_patch(at, &b);
            patches.push(b);
            writeln!(commands, "P 0 {} {} {}", patches.len() - 1, at.x, at.y).unwrap();
        } else if let Some((id, at)) = (!standing.is_empty())
            .then(|| standing.swap_remove(rng.below(standing.len() as u32) as usize))
        {
            grid.apply_patch(at, &patches[id]);
            writeln!(commands, "P 0 {id} {} {}", at.x, at.y).unwrap();
        }
        if step % query_every == 0 && queries < a.queries {
            let free: Vec<Cell> = grid.free_cells().collect();
            let pick = |rng: &mut Rng| free[rng.below(free.len() as u32) as usize];
            let (s, g) = (pick(&mut rng), pick(&mut rng));
            let cost = match baseline::astar(&grid, s, g) {
                Some(p) => format!("{:.8}", p.length),
                None => {
                    unreachable += 1;
                    "-1".into()
                }
            };
            writeln!(commands, "Q 0 {} {} {} {} {cost}", s.x, s.y, g.x, g.y).unwrap();
            queries += 1;
        }
    }
    let stem = std::path::Path::new(&a.out);
    let patch_name = format!(
        "{}.patch",
        stem.file_name()
            .map_or("out".into(), |n| n.to_string_lossy().into_owned())
    );
    let mut scen =
        format!("version 2\nheight {h}\nwidth {w}\ncost 1 octile\npatch {patch_name}\ncommands\n");
    scen += &commands;
    let mut patch_text = format!("type patch\npatches {}\n", patches.len());
    for (i, p) in patches.iter().enumerate() {
        writeln!(
            patch_text,
            "patch {i}\nheight {}\nwidth {}\nmap",
            p.height(),
            p.width()
        )
        .unwrap();
        for row in p.codes().chunks(p.width() as usize) {
            patch_text += std::str::from_utf8(row).expect("map characters");
            patch_text.push('\n');
        }
    }
    let write = |path: String, text: &str| {
        std::fs::write(&path, text).unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        })
    };
    write(format!("{}.scen", a.out), &scen);
    write(format!("{}.patch", a.out), &patch_text);
    println!(
        "wrote {0}.scen and {0}.patch: {1}x{2}, {3} patches defined, {4} queries ({5} unreachable)",
        a.out,
        w,
        h,
        patches.len(),
        queries,
        unreachable
    );
}
