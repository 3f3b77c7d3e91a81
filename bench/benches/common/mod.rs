//! What the benchmarks share: a seeded generator and the 1024×1024 test map.
#![allow(dead_code)] // each bench uses its own part of this module

pub mod report;
pub mod summary;
pub mod warthog;

use quadpath::{io, Cell, Grid};
use std::path::PathBuf;
use std::time::Duration;

/// This thread's CPU time: what a call cost, without the time other processes of a shared
/// machine took the core away from it.
pub fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    assert!(ok, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The five StarCraft maps of `../shared/maps/sc1`, the standard RTS benchmark set.
pub const STARCRAFT_MAPS: &[&str] = &[
    "Cauldron",
    "Expedition",
    "AcrosstheCape",
    "BlackLotus",
    "Aftershock",
];

/// The shared Moving AI maps: `QUADPATH_SHARED_MAPS` when set (a git worktree elsewhere
/// has no `../shared` beside it), else `../shared/maps` beside the repository.
pub fn shared_maps() -> PathBuf {
    std::env::var_os("QUADPATH_SHARED_MAPS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/maps"))
}

/// The map `name` from the [shared maps](shared_maps) (looked up in `sc1`, `mapf`,
/// `classic` and `rabin`), or `None` when it is not there.
pub fn find_map(name: &str) -> Option<Grid> {
    let root = shared_maps();
    ["sc1", "mapf", "classic", "rabin"]
        .iter()
        .map(|d| root.join(d).join(format!("{name}.map")))
        .find(|p| p.is_file())
        .map(|p| io::read_map(&p).unwrap_or_else(|e| panic!("{e}")))
}

/// A tiny deterministic xorshift64* generator, so that runs are repeatable.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Side of the edit and quadtree benchmark map.
pub const SIDE: u32 = 1024;

/// The 1024×1024 benchmark map and its name: maze512-32-9 tiled 2×2 when `../shared/maps`
/// has it (and `QUADPATH_BENCH_MAP` is not `generated`), else ~25% of the cells blocked in
/// random discs.
pub fn map_1024() -> (String, Grid) {
    let maze = shared_maps().join("classic/maze512-32-9.map");
    if std::env::var("QUADPATH_BENCH_MAP").as_deref() != Ok("generated") {
        if let Ok(m) = io::read_map(&maze) {
            let (w, h) = (m.width(), m.height());
            return (
                "maze512-32-9 2x2".into(),
                Grid::from_fn(SIDE, SIDE, |x, y| m.is_free(Cell::new(x % w, y % h))),
            );
        }
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut grid = Grid::new_free(SIDE, SIDE);
    let target = (SIDE as u64 * SIDE as u64) / 4;
    let mut blocked = 0;
    while blocked < target {
        let side = SIDE as usize;
        let (cx, cy, r) = (
            rng.below(side) as i64,
            rng.below(side) as i64,
            2 + rng.below(12) as i64,
        );
        for y in (cy - r).max(0)..=(cy + r).min(SIDE as i64 - 1) {
            for x in (cx - r).max(0)..=(cx + r).min(SIDE as i64 - 1) {
                if (x - cx).pow(2) + (y - cy).pow(2) <= r * r
                    && grid.is_free(Cell::new(x as u32, y as u32))
                {
                    grid.set_blocked(Cell::new(x as u32, y as u32), true);
                    blocked += 1;
                }
            }
        }
    }
    ("generated 25% blobs".into(), grid)
}

/// What every map bench is told on its command line: the maps to run (`--maps a,b,...`, else
/// its defaults) and where to write its markdown (`--markdown OUT`).
pub struct MapBenchArgs {
    pub maps: Vec<String>,
    pub markdown: Option<PathBuf>,
}

impl MapBenchArgs {
    /// Parses the bench's arguments: `--maps` and `--markdown` here, the bench's own flags by
    /// `own(flag, value)`, which returns whether it knew the flag (`value` reads its
    /// argument). Anything else prints `usage` and exits with status 2.
    pub fn parse(
        usage: &str,
        default_maps: &[&str],
        mut own: impl FnMut(&str, &mut dyn FnMut() -> String) -> bool,
    ) -> Self {
        let fail = || -> ! {
            eprintln!("usage: {usage}");
            std::process::exit(2)
        };
        let mut args = MapBenchArgs {
            maps: default_maps.iter().map(|s| s.to_string()).collect(),
            markdown: None,
        };
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            let mut value = || it.next().unwrap_or_else(|| fail());
            match flag.as_str() {
                "--bench" => {}
                "--maps" => args.maps = value().split(',').map(str::to_string).collect(),
                "--markdown" => args.markdown = Some(PathBuf::from(value())),
                other if own(other, &mut value) => {}
                _ => fail(),
            }
        }
        args
    }

    /// Prints `out`, and writes it to the `--markdown` file if one was given.
    pub fn publish(&self, out: &str) {
        print!("{out}");
        if let Some(path) = &self.markdown {
            std::fs::write(path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}

/// A list of positive numbers (`200,1000`), or `None` if any is not one.
pub fn positive_list(s: &str) -> Option<Vec<usize>> {
    s.split(',')
        .map(|v| v.parse::<usize>().ok().filter(|&v| v > 0))
        .collect()
}
