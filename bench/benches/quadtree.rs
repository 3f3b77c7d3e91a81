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
mod common;

use common::{map_1024, Rng, SIDE};
use quadpath::quadtree::{QuadTree, SplitStopper};
use quadpath::Cell;
use std::hash::BuildHasher;

fn random_cells(rng: &mut Rng, n: usize, keep: impl Fn(Cell) -> bool) -> Vec<Cell> {
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        let c = Cell::new(
            rng.below(SIDE as usize) as u32,
            rng.below(SIDE as usize) as u32,
        );
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
                tree.find_by_descent(q)
            } else {
                tree.find(q)
            };
            black_box(n.unwrap().id())
        })
    });
}

fn benches(c: &mut Criterion) {
    let (source, grid) = map_1024();
    let cells: Vec<Cell> = grid.blocked_cells().collect();
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
    let free = random_cells(&mut rng, 1 << 12, |c| grid.is_free(c));
    let mut tree = tree;
    let mut fx = fx;
    let mask = free.len() - 1;
    let mut i = 0;
    c.bench_function("edit/block_then_free", |b| {
        b.iter(|| {
            let q = free[i];
            i = (i + 1) & mask;
            tree.add(q, ()).unwrap();
            black_box(tree.remove(q, &()).unwrap())
        })
    });
    c.bench_function("edit/block_then_free_fx", |b| {
        b.iter(|| {
            let q = free[i];
            i = (i + 1) & mask;
            fx.add(q, ()).unwrap();
            black_box(fx.remove(q, &()).unwrap())
        })
    });
    // Same, with the change feed on and drained each time (what an HPA layer would do).
    tree.track_changes(true);
    let mut buf = Vec::new();
    c.bench_function("edit/block_then_free_tracked", |b| {
        b.iter(|| {
            let q = free[i];
            i = (i + 1) & mask;
            tree.add(q, ()).unwrap();
            tree.remove(q, &()).unwrap();
            buf.clear();
            tree.drain_changes_into(&mut buf);
            black_box(buf.len())
        })
    });
}

criterion_group!(quadtree, benches);
criterion_main!(quadtree);
