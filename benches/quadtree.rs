//! Quadtree benchmarks on a 1024×1024 map with the `uniform()` stopper (one object per
//! blocked cell): point location by binary search over depth vs. by descent, the same with
//! the Fx hasher, the bulk build, and a single-cell edit.
//!
//! The map is `maze512-32-9` from the Moving AI benchmarks tiled 2×2 when
//! `../shared/maps/classic/` is present, else a generated map with ~25% blocked cells in
//! clustered blobs (`QUADPATH_BENCH_MAP=generated` forces the generated map).
//!
//! Run: `cargo bench --bench quadtree -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use quadpath::quadtree::{QuadTree, SplitStopper};
use quadpath::Cell;
use std::hash::BuildHasher;
use std::path::Path;

const SIDE: u32 = 1024;

/// A tiny deterministic xorshift64* generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u32) -> u32 {
        (self.next() % n as u64) as u32
    }
}

/// Parses a Moving AI `.map`: header lines up to `map`, then rows; `.`, `G`, `S` are free.
fn load_movingai(path: &Path) -> Option<(u32, u32, Vec<bool>)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let (mut w, mut h) = (0, 0);
    for line in lines.by_ref() {
        let mut it = line.split_whitespace();
        match (it.next(), it.next()) {
            (Some("width"), Some(v)) => w = v.parse().ok()?,
            (Some("height"), Some(v)) => h = v.parse().ok()?,
            (Some("map"), None) => break,
            _ => {}
        }
    }
    let mut blocked = Vec::with_capacity((w * h) as usize);
    for line in lines.take(h as usize) {
        let row = line.as_bytes();
        if row.len() < w as usize {
            return None;
        }
        blocked.extend(
            row[..w as usize]
                .iter()
                .map(|b| !matches!(b, b'.' | b'G' | b'S')),
        );
    }
    (w > 0 && blocked.len() == (w * h) as usize).then_some((w, h, blocked))
}

/// The 1024×1024 blocked-cell map and a note saying where it came from.
fn map() -> (Vec<bool>, &'static str) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/maps/classic/maze512-32-9.map");
    let forced = std::env::var("QUADPATH_BENCH_MAP").is_ok_and(|v| v == "generated");
    if let Some((w, h, src)) = load_movingai(&path).filter(|_| !forced) {
        let blocked = (0..SIDE)
            .flat_map(|y| (0..SIDE).map(move |x| (x, y)))
            .map(|(x, y)| src[((y % h) * w + x % w) as usize])
            .collect();
        return (blocked, "maze512-32-9 tiled 2x2");
    }
    // Generated: square blobs of random size until ~25% of the cells are blocked.
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut blocked = vec![false; (SIDE * SIDE) as usize];
    let mut count = 0;
    while count < (SIDE * SIDE) / 4 {
        let (cx, cy, r) = (rng.below(SIDE), rng.below(SIDE), 1 + rng.below(24));
        for y in cy.saturating_sub(r)..(cy + r).min(SIDE) {
            for x in cx.saturating_sub(r)..(cx + r).min(SIDE) {
                let b = &mut blocked[(y * SIDE + x) as usize];
                count += !*b as u32;
                *b = true;
            }
        }
    }
    (blocked, "generated blobs, ~25% blocked")
}

fn blocked_cells(blocked: &[bool]) -> Vec<Cell> {
    (0..SIDE * SIDE)
        .filter(|&i| blocked[i as usize])
        .map(|i| Cell::new(i % SIDE, i / SIDE))
        .collect()
}

fn random_cells(rng: &mut Rng, n: usize, keep: impl Fn(Cell) -> bool) -> Vec<Cell> {
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        let c = Cell::new(rng.below(SIDE), rng.below(SIDE));
        if keep(c) {
            v.push(c);
        }
    }
    v
}

fn bench_find<S: BuildHasher>(
    c: &mut Criterion,
    name: &str,
    tree: &QuadTree<(), S>,
    cells: &[Cell],
    descent: bool,
) {
    let mask = cells.len() - 1;
    let mut i = 0;
    c.bench_function(name, |b| {
        b.iter(|| {
            let q = cells[i];
            i = (i + 1) & mask;
            let n = if descent {
                tree.find_by_descent(q.x, q.y)
            } else {
                tree.find(q.x, q.y)
            };
            black_box(n.unwrap().id())
        })
    });
}

fn benches(c: &mut Criterion) {
    let (blocked, source) = map();
    let cells = blocked_cells(&blocked);
    let objects = || cells.iter().map(|&c| (c, ()));
    let tree = QuadTree::build(SIDE, SIDE, SplitStopper::uniform(), objects()).unwrap();
    let fx = QuadTree::build_with_hasher(
        SIDE,
        SIDE,
        SplitStopper::uniform(),
        objects(),
        rustc_hash::FxBuildHasher,
    )
    .unwrap();
    eprintln!(
        "map: {source}: {} blocked of {}; tree: {} leaves, {} nodes, depth {}, ~{} KiB",
        cells.len(),
        SIDE * SIDE,
        tree.leaf_count(),
        tree.node_count(),
        tree.depth(),
        tree.memory_bytes() / 1024
    );

    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let queries = random_cells(&mut rng, 1 << 14, |_| true);
    bench_find(c, "find/binary_search", &tree, &queries, false);
    bench_find(c, "find/descent", &tree, &queries, true);
    bench_find(c, "find/binary_search_fx", &fx, &queries, false);
    bench_find(c, "find/descent_fx", &fx, &queries, true);

    let mut g = c.benchmark_group("build");
    g.sample_size(10);
    g.bench_function("uniform_1024x1024", |b| {
        b.iter(|| {
            black_box(
                QuadTree::build(SIDE, SIDE, SplitStopper::uniform(), objects())
                    .unwrap()
                    .leaf_count(),
            )
        })
    });
    g.finish();

    // A single-cell edit: block a random free cell and free it again (two edits per
    // iteration; the tree is back to its original shape after each).
    let free = random_cells(&mut rng, 1 << 12, |c| !blocked[(c.y * SIDE + c.x) as usize]);
    let mut tree = tree;
    let mut fx = fx;
    let mask = free.len() - 1;
    let mut i = 0;
    c.bench_function("edit/block_then_free", |b| {
        b.iter(|| {
            let q = free[i];
            i = (i + 1) & mask;
            tree.add(q.x, q.y, ()).unwrap();
            black_box(tree.remove(q.x, q.y, &()).unwrap())
        })
    });
    c.bench_function("edit/block_then_free_fx", |b| {
        b.iter(|| {
            let q = free[i];
            i = (i + 1) & mask;
            fx.add(q.x, q.y, ()).unwrap();
            black_box(fx.remove(q.x, q.y, &()).unwrap())
        })
    });
    // Same, with the change feed on and drained each time (what an HPA layer would do).
    tree.track_changes(true);
    let mut buf = Vec::new();
    c.bench_function("edit/block_then_free_tracked", |b| {
        b.iter(|| {
            let q = free[i];
            i = (i + 1) & mask;
            tree.add(q.x, q.y, ()).unwrap();
            tree.remove(q.x, q.y, &()).unwrap();
            buf.clear();
            tree.drain_changes_into(&mut buf);
            black_box(buf.len())
        })
    });
}

criterion_group!(quadtree, benches);
criterion_main!(quadtree);
