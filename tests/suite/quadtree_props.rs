//! Property tests of the quadtree layer against an independent brute-force model.
//!
//! The model is a plain `Vec` of objects per cell. From it, and from nothing the tree
//! computes, we derive the expected canonical tree: node rectangles come from scanning every
//! coordinate with the defining formula `floor(v·2^d / side)`, counts from scanning the
//! cells, and the split decision from a re-implementation of each stopper. After every edit
//! the tree under test must match that expected tree node for node, and every query must
//! agree with a brute-force scan.

use proptest::prelude::*;
use quadpath::quadtree::{LeafChange, NodeId, QuadTree, Shape, SplitStopper, MAX_SIDE};
use quadpath::{Cell, Direction, Rect};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

type Tree = QuadTree<u32>;

// ---------------------------------------------------------------------------------------
// Stoppers and their independent re-implementation
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Kind {
    /// `max_objects(k)`: buckets; several objects per cell allowed.
    MaxObjects(u64),
    /// `uniform()` with one object per blocked cell.
    Uniform,
    /// `uniform().with_max_leaf_side(s)`, blocked cells.
    UniformSide(u32),
    /// `max_objects(k).with_max_leaf_side(s)`, buckets.
    MaxObjectsSide(u64, u32),
    /// Invert-style `by_size`: a leaf is empty or has at most one free cell, blocked cells.
    NearlyFull,
    /// A position-dependent `by_rect` rule, buckets.
    ByRect,
}

impl Kind {
    /// Whether objects are "blocked cells": at most one per cell.
    fn blocked_mode(self) -> bool {
        matches!(
            self,
            Kind::Uniform | Kind::UniformSide(_) | Kind::NearlyFull
        )
    }

    fn stopper(self) -> SplitStopper {
        match self {
            Kind::MaxObjects(k) => SplitStopper::max_objects(k),
            Kind::Uniform => SplitStopper::uniform(),
            Kind::UniformSide(s) => SplitStopper::uniform().with_max_leaf_side(s),
            Kind::MaxObjectsSide(k, s) => SplitStopper::max_objects(k).with_max_leaf_side(s),
            Kind::NearlyFull => {
                SplitStopper::by_size(|w, h, n| n == 0 || n + 1 >= w as u64 * h as u64)
            }
            Kind::ByRect => {
                SplitStopper::by_rect(|r, n| n <= 1 || ((r.x1 + 2 * r.y1) % 3 == 0 && n <= 3))
            }
        }
    }

    /// The same rule, written out independently of `SplitStopper`.
    fn model_stops(self, r: Rect, n: u64) -> bool {
        let w = (r.x2 - r.x1 + 1) as u64;
        let h = (r.y2 - r.y1 + 1) as u64;
        if w == 1 && h == 1 {
            return true;
        }
        match self {
            Kind::MaxObjects(k) => n <= k,
            Kind::Uniform => n == 0 || n == w * h,
            Kind::UniformSide(s) => w <= s as u64 && h <= s as u64 && (n == 0 || n == w * h),
            Kind::MaxObjectsSide(k, s) => w <= s as u64 && h <= s as u64 && n <= k,
            Kind::NearlyFull => n == 0 || n + 1 >= w * h,
            Kind::ByRect => n <= 1 || ((r.x1 + 2 * r.y1) % 3 == 0 && n <= 3),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------

struct Model {
    w: u32,
    h: u32,
    cells: Vec<Vec<u32>>,
    /// `xr[d][i]`: the inclusive x-range of index `i` at depth `d`, by scanning (same for y).
    xr: Vec<Vec<Option<(u32, u32)>>>,
    yr: Vec<Vec<Option<(u32, u32)>>>,
}

/// The cells of each index at each depth, by scanning every coordinate, down to the first
/// depth where every index holds at most one cell.
fn axis_ranges(side: u32, max_d: u32) -> Vec<Vec<Option<(u32, u32)>>> {
    (0..=max_d)
        .map(|d| {
            let mut r: Vec<Option<(u32, u32)>> = vec![None; 1 << d];
            for v in 0..side {
                let i = (((v as u64) << d) / side as u64) as usize;
                r[i] = Some(match r[i] {
                    None => (v, v),
                    Some((a, b)) => {
                        assert_eq!(b + 1, v, "index {i} at depth {d} is not an interval");
                        (a, v)
                    }
                });
            }
            r
        })
        .collect()
}

impl Model {
    fn new(w: u32, h: u32) -> Model {
        // 2^max_d >= max(w, h): every index at max_d covers at most one cell.
        let mut max_d = 0;
        while (1u64 << max_d) < w.max(h) as u64 {
            max_d += 1;
        }
        Model {
            w,
            h,
            cells: vec![Vec::new(); (w * h) as usize],
            xr: axis_ranges(w, max_d + 1),
            yr: axis_ranges(h, max_d + 1),
        }
    }

    fn at(&self, x: u32, y: u32) -> &Vec<u32> {
        &self.cells[(y * self.w + x) as usize]
    }

    fn at_mut(&mut self, x: u32, y: u32) -> &mut Vec<u32> {
        &mut self.cells[(y * self.w + x) as usize]
    }

    fn count_in(&self, r: Rect) -> u64 {
        r.cells().map(|c| self.at(c.x, c.y).len() as u64).sum()
    }

    fn objects_in(&self, r: Rect) -> Vec<(Cell, u32)> {
        let mut v: Vec<_> = r
            .cells()
            .flat_map(|c| self.at(c.x, c.y).iter().map(move |&o| (c, o)))
            .collect();
        v.sort();
        v
    }

    fn all(&self) -> Vec<(Cell, u32)> {
        self.objects_in(Rect::new(0, 0, self.w - 1, self.h - 1))
    }

    fn total(&self) -> u64 {
        self.cells.iter().map(|c| c.len() as u64).sum()
    }

    /// The expected canonical tree: `(d, i, j) -> (rect, count, is_leaf)`.
    fn expected_tree(&self, kind: Kind) -> BTreeMap<(u32, u32, u32), (Rect, u64, bool)> {
        let mut out = BTreeMap::new();
        let mut stack = vec![(0u32, 0u32, 0u32)];
        while let Some((d, i, j)) = stack.pop() {
            let (x1, x2) = self.xr[d as usize][i as usize].unwrap();
            let (y1, y2) = self.yr[d as usize][j as usize].unwrap();
            let rect = Rect { x1, y1, x2, y2 };
            let n = self.count_in(rect);
            let leaf = kind.model_stops(rect, n);
            out.insert((d, i, j), (rect, n, leaf));
            if !leaf {
                for b in 0..2 {
                    for a in 0..2 {
                        let (ci, cj) = (2 * i + a, 2 * j + b);
                        if self.xr[d as usize + 1][ci as usize].is_some()
                            && self.yr[d as usize + 1][cj as usize].is_some()
                        {
                            stack.push((d + 1, ci, cj));
                        }
                    }
                }
            }
        }
        out
    }
}

fn key(id: NodeId) -> (u32, u32, u32) {
    (id.depth(), id.ix(), id.iy())
}

fn tree_nodes(t: &Tree) -> BTreeMap<(u32, u32, u32), (Rect, u64, bool)> {
    t.nodes()
        .map(|n| (key(n.id()), (n.rect(), n.object_count(), n.is_leaf())))
        .collect()
}

fn leaf_objects(t: &Tree) -> HashMap<NodeId, Vec<(Cell, u32)>> {
    t.leaves()
        .map(|l| {
            let mut v: Vec<_> = l.objects().to_vec();
            v.sort();
            (l.id(), v)
        })
        .collect()
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

// ---------------------------------------------------------------------------------------
// The checks run after every step
// ---------------------------------------------------------------------------------------

/// State carried between steps for the change-feed checks.
struct Feed {
    replay: HashSet<NodeId>,
    prev: HashMap<NodeId, Vec<(Cell, u32)>>,
}

impl Feed {
    fn start(t: &Tree) -> Feed {
        Feed {
            replay: t.leaves().map(|l| l.id()).collect(),
            prev: leaf_objects(t),
        }
    }
}

fn check_all(
    t: &mut Tree,
    m: &Model,
    kind: Kind,
    feed: &mut Feed,
    queries: &[(u32, u32, u32, u32)],
) {
    let shape: Shape = t.shape();
    let (w, h) = (m.w, m.h);
    assert_eq!(
        (t.width(), t.height(), shape.width(), shape.height()),
        (w, h, w, h)
    );

    // --- Canonical shape: node for node equal to the expected tree. This covers: every leaf
    // satisfies the stopper (or is 1x1), no internal node stops, rectangles, counts.
    let expected = m.expected_tree(kind);
    let actual = tree_nodes(t);
    assert_eq!(
        actual, expected,
        "tree differs from the canonical tree of the model ({kind:?}, {w}x{h})"
    );
    assert_eq!(t.node_count(), expected.len());
    assert_eq!(t.leaf_count(), expected.values().filter(|v| v.2).count());
    assert_eq!(t.object_count(), m.total());
    let max_leaf_depth = t.leaves().map(|l| l.depth()).max().unwrap();
    assert_eq!(
        t.depth(),
        max_leaf_depth,
        "depth() must be the deepest leaf's depth"
    );
    assert!(t.depth() <= shape.max_possible_depth());

    // --- Structure: children exactly as `shape.children` says; recursive node count.
    let mut reached = 0usize;
    let mut stack = vec![NodeId::ROOT];
    while let Some(id) = stack.pop() {
        let n = t.node(id).expect("reachable node exists");
        reached += 1;
        let kids = shape.children(id, n.rect());
        let unit = n.rect().width() == 1 && n.rect().height() == 1;
        assert_eq!(kids.is_empty(), unit, "only 1x1 nodes have no children");
        if n.is_leaf() {
            for &k in kids.iter() {
                assert!(t.node(k).is_none(), "a leaf has no stored children");
            }
            assert!(kind.model_stops(n.rect(), n.object_count()));
            assert!(t.stopper().stops(n.rect(), n.object_count()));
        } else {
            assert!(!t.stopper().stops(n.rect(), n.object_count()));
            assert!(n.objects().is_empty());
            // Children partition the parent.
            let mut area = 0;
            let mut sum = 0;
            for (a, &k) in kids.iter().enumerate() {
                let kr = shape.rect(k);
                assert_eq!(k.parent(), Some(id));
                assert!(
                    kr.x1 >= n.rect().x1
                        && kr.x2 <= n.rect().x2
                        && kr.y1 >= n.rect().y1
                        && kr.y2 <= n.rect().y2
                );
                for &o in &kids[a + 1..] {
                    assert!(!kr.intersects(&shape.rect(o)), "children overlap");
                }
                area += kr.area();
                sum += t
                    .node(k)
                    .expect("children of an internal node exist")
                    .object_count();
                stack.push(k);
            }
            assert_eq!(area, n.rect().area());
            assert_eq!(sum, n.object_count());
        }
    }
    assert_eq!(
        reached,
        t.node_count(),
        "every stored node is reachable from the root"
    );

    // --- IDs: every cell of every node computes the node's ID at its depth; parents repack.
    for n in t.nodes() {
        let id = n.id();
        let d = id.depth();
        for c in n.rect().cells() {
            assert_eq!(shape.cell_id(d, c), id);
        }
        assert_eq!(shape.rect(id), n.rect());
        if d > 0 {
            let p = shape.cell_id(d - 1, Cell::new(n.rect().x1, n.rect().y1));
            assert_eq!(id.parent(), Some(p));
            assert_eq!(p, NodeId::pack(d - 1, id.ix() >> 1, id.iy() >> 1));
            assert!(!t.node(p).expect("parent exists").is_leaf());
        } else {
            assert_eq!(id, NodeId::ROOT);
            assert_eq!(id.parent(), None);
        }
    }

    // --- Tiling: paint every leaf; each cell exactly once. Leaf objects match the model.
    let mut owner: Vec<Option<NodeId>> = vec![None; (w * h) as usize];
    let leaves: Vec<(NodeId, Rect)> = t.leaves().map(|l| (l.id(), l.rect())).collect();
    for l in t.leaves() {
        for c in l.rect().cells() {
            let o = &mut owner[(c.y * w + c.x) as usize];
            assert!(o.is_none(), "cell {c} in two leaves");
            *o = Some(l.id());
        }
        assert_eq!(sorted(l.objects().to_vec()), m.objects_in(l.rect()));
    }
    let owner: Vec<NodeId> = owner
        .into_iter()
        .map(|o| o.expect("every cell is in a leaf"))
        .collect();
    let owner_at = |x: u32, y: u32| owner[(y * w + x) as usize];

    // --- Point location.
    for y in 0..h {
        for x in 0..w {
            let f = t.find(Cell::new(x, y)).unwrap();
            assert_eq!(f.id(), owner_at(x, y), "find({x},{y})");
            assert!(f.is_leaf() && f.rect().contains(Cell::new(x, y)));
            assert_eq!(
                t.find_by_descent(Cell::new(x, y)).unwrap().id(),
                owner_at(x, y),
                "find_by_descent({x},{y})"
            );
        }
    }
    assert!(
        t.find(Cell::new(w, 0)).is_err()
            && t.find(Cell::new(0, h)).is_err()
            && t.find_by_descent(Cell::new(w, h)).is_err()
    );

    // --- Range queries and covering nodes, with clipping.
    let grid = Rect::new(0, 0, w - 1, h - 1);
    let mut rects = vec![
        (0, 0, w - 1, h - 1),
        (0, 0, w + 10, h + 10),
        (w, h, w + 3, h + 3),
        (w + 5, 0, w + 1, 0),
    ];
    rects.extend_from_slice(queries);
    for &(x1, y1, x2, y2) in &rects {
        let q = Rect::new(x1, y1, x2, y2);
        let clipped = q.intersection(&grid);
        let got_leaves: Vec<NodeId> = t.leaves_in_rect(q).iter().map(|n| n.id()).collect();
        let got_objs: Vec<(Cell, u32)> = sorted(
            t.objects_in_rect(q)
                .into_iter()
                .map(|(c, &o)| (c, o))
                .collect(),
        );
        let got_cover = t.smallest_node_covering(q).map(|n| n.id());
        match clipped {
            None => {
                assert!(got_leaves.is_empty() && got_objs.is_empty() && got_cover.is_none());
            }
            Some(r) => {
                let want: BTreeSet<NodeId> = leaves
                    .iter()
                    .filter(|(_, lr)| lr.intersects(&r))
                    .map(|(id, _)| *id)
                    .collect();
                assert_eq!(
                    got_leaves.len(),
                    want.len(),
                    "duplicate or missing leaves in {r}"
                );
                assert_eq!(
                    got_leaves.iter().copied().collect::<BTreeSet<_>>(),
                    want,
                    "leaves_in_rect {r}"
                );
                assert_eq!(got_objs, m.objects_in(r), "objects_in_rect {r}");
                let covering: Vec<(u32, u32, u32)> = expected
                    .iter()
                    .filter(|(_, (nr, _, _))| {
                        nr.x1 <= r.x1 && nr.y1 <= r.y1 && nr.x2 >= r.x2 && nr.y2 >= r.y2
                    })
                    .map(|(k, _)| *k)
                    .collect();
                let deepest = covering.iter().map(|k| k.0).max().unwrap();
                let at_deepest: Vec<_> = covering.iter().filter(|k| k.0 == deepest).collect();
                assert_eq!(at_deepest.len(), 1);
                assert_eq!(
                    got_cover.map(key),
                    Some(*at_deepest[0]),
                    "smallest_node_covering {r}"
                );
            }
        }
    }

    // --- Neighbours of every leaf in all 8 directions.
    let pairwise = leaves.len() <= 400;
    for &(id, r) in &leaves {
        for dir in Direction::ALL {
            let got: Vec<NodeId> = t.neighbours(id, dir).iter().map(|n| n.id()).collect();
            let got_set: BTreeSet<NodeId> = got.iter().copied().collect();
            assert_eq!(got.len(), got_set.len(), "duplicate neighbours");
            let (dx, dy) = dir.delta();
            let want: BTreeSet<NodeId> = if dir.is_diagonal() {
                let cx = r.x1 as i64 + if dx < 0 { -1 } else { (r.x2 - r.x1) as i64 + 1 };
                let cy = r.y1 as i64 + if dy < 0 { -1 } else { (r.y2 - r.y1) as i64 + 1 };
                if cx < 0 || cy < 0 || cx >= w as i64 || cy >= h as i64 {
                    BTreeSet::new()
                } else {
                    let (cx, cy) = (cx as u32, cy as u32);
                    leaves
                        .iter()
                        .filter(|(_, lr)| lr.contains(Cell::new(cx, cy)))
                        .map(|(i, _)| *i)
                        .collect()
                }
            } else if pairwise {
                // Leaves across that side whose extent overlaps ours along it.
                let x_overlap = |o: &Rect| o.x1 <= r.x2 && r.x1 <= o.x2;
                let y_overlap = |o: &Rect| o.y1 <= r.y2 && r.y1 <= o.y2;
                leaves
                    .iter()
                    .filter(|(_, o)| match dir {
                        Direction::N => o.y2 + 1 == r.y1 && x_overlap(o),
                        Direction::S => o.y1 == r.y2 + 1 && x_overlap(o),
                        Direction::W => o.x2 + 1 == r.x1 && y_overlap(o),
                        Direction::E => o.x1 == r.x2 + 1 && y_overlap(o),
                        _ => unreachable!(),
                    })
                    .map(|(i, _)| *i)
                    .collect()
            } else {
                // Many leaves: read the owners of the cells just outside that side.
                let mut s = BTreeSet::new();
                match dir {
                    Direction::N if r.y1 > 0 => {
                        (r.x1..=r.x2).for_each(|x| s.extend([owner_at(x, r.y1 - 1)]))
                    }
                    Direction::S if r.y2 + 1 < h => {
                        (r.x1..=r.x2).for_each(|x| s.extend([owner_at(x, r.y2 + 1)]))
                    }
                    Direction::W if r.x1 > 0 => {
                        (r.y1..=r.y2).for_each(|y| s.extend([owner_at(r.x1 - 1, y)]))
                    }
                    Direction::E if r.x2 + 1 < w => {
                        (r.y1..=r.y2).for_each(|y| s.extend([owner_at(r.x2 + 1, y)]))
                    }
                    _ => {}
                }
                s
            };
            assert_eq!(got_set, want, "neighbours of {id} {r} towards {dir:?}");
        }
    }
    // Internal nodes have no neighbours.
    if let Some(internal) = t.nodes().find(|n| !n.is_leaf()) {
        for dir in Direction::ALL {
            assert!(t.neighbours(internal.id(), dir).is_empty());
        }
    }

    // --- Rebuilt from scratch, the tree is the same.
    let rebuilt = QuadTree::build(w, h, kind.stopper(), m.all()).unwrap();
    assert_eq!(
        tree_nodes(&rebuilt),
        actual,
        "edited tree differs from the bulk-built one"
    );
    assert_eq!(leaf_objects(&rebuilt), leaf_objects(t));
    assert_eq!(
        (
            rebuilt.depth(),
            rebuilt.leaf_count(),
            rebuilt.node_count(),
            rebuilt.object_count()
        ),
        (t.depth(), t.leaf_count(), t.node_count(), t.object_count())
    );

    // --- Change feed: replaying it reproduces the leaf set, and every leaf whose contents
    // changed was (re-)created.
    let changes = t.drain_changes();
    let mut created = HashSet::new();
    for ch in changes {
        match ch {
            LeafChange::Removed { id, rect } => {
                assert_eq!(rect, shape.rect(id));
                assert!(feed.replay.remove(&id), "removed leaf {id} was not a leaf");
                created.remove(&id);
            }
            LeafChange::Created { id, rect } => {
                assert_eq!(rect, shape.rect(id));
                assert!(feed.replay.insert(id), "created leaf {id} already a leaf");
                created.insert(id);
            }
        }
    }
    assert!(t.drain_changes().is_empty());
    let now: HashSet<NodeId> = leaves.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        feed.replay, now,
        "replayed change feed differs from the leaf set"
    );
    let cur = leaf_objects(t);
    for (id, objs) in &cur {
        if feed.prev.get(id) != Some(objs) {
            assert!(
                created.contains(id),
                "leaf {id} changed but was not reported as created"
            );
        }
    }
    feed.prev = cur;
}

// ---------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Op {
    /// Bucket mode: add object `v % 3`. Blocked mode: toggle the cell.
    Add(u32, u32, u32),
    /// Remove the `k`-th existing object (blocked mode: unblock the k-th blocked cell).
    RemoveExisting(u32),
    /// Try removing object `v % 3` at a random cell, which may not be there.
    RemoveRandom(u32, u32, u32),
    /// `remove_all` at a cell.
    RemoveAll(u32, u32),
    /// Blocked mode: block (or, with `clear`, free) a small square, one cell per step.
    /// Bucket mode: add one object in each of its cells.
    Square(u32, u32, u32, bool),
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(a, b, v)| Op::Add(a, b, v)),
        3 => any::<u32>().prop_map(Op::RemoveExisting),
        1 => (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(a, b, v)| Op::RemoveRandom(a, b, v)),
        1 => (any::<u32>(), any::<u32>()).prop_map(|(a, b)| Op::RemoveAll(a, b)),
        1 => (any::<u32>(), any::<u32>(), 1u32..=4, any::<bool>()).prop_map(|(a, b, s, c)| Op::Square(a, b, s, c)),
    ]
}

#[derive(Clone, Debug)]
struct Scenario {
    w: u32,
    h: u32,
    /// Initial objects: bucket mode `(x, y, v)` seeds; blocked mode uses `density`.
    initial: Vec<(u32, u32, u32)>,
    /// Percentage of initially blocked cells (blocked mode).
    density: u32,
    seed: u64,
    ops: Vec<(Op, (u32, u32, u32, u32))>,
}

fn scenario(max_ops: usize) -> impl Strategy<Value = Scenario> {
    let size = prop_oneof![(1u32..=8, 1u32..=8), (1u32..=70, 1u32..=70)];
    (
        size,
        prop::collection::vec((any::<u32>(), any::<u32>(), any::<u32>()), 0..40),
        prop_oneof![
            Just(0u32),
            Just(3),
            Just(50),
            Just(90),
            Just(97),
            Just(100),
            0u32..=100
        ],
        any::<u64>(),
        prop::collection::vec(
            (
                op_strategy(),
                (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()),
            ),
            1..max_ops,
        ),
    )
        .prop_map(|((w, h), initial, density, seed, ops)| Scenario {
            w,
            h,
            initial,
            density,
            seed,
            ops,
        })
}

/// A small deterministic hash for initial densities.
fn mix(seed: u64, x: u32, y: u32) -> u64 {
    let mut z = seed ^ ((x as u64) << 32 | y as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The objects scenario `s` starts with: blocked-style trees have `s.density` percent of
/// their cells blocked, each by the object `blocked(x, y)`; bucket trees `s.initial`.
fn initial_model(kind: Kind, s: &Scenario, blocked: impl Fn(u32, u32) -> u32) -> Model {
    let (w, h) = (s.w, s.h);
    let mut m = Model::new(w, h);
    if kind.blocked_mode() {
        for y in 0..h {
            for x in 0..w {
                if mix(s.seed, x, y) % 100 < s.density as u64 {
                    m.at_mut(x, y).push(blocked(x, y));
                }
            }
        }
    } else {
        for &(a, b, v) in &s.initial {
            m.at_mut(a % w, b % h).push(v % 3);
        }
    }
    m
}

/// Runs scenario `s` on a tree split by `kind`, listing its leaves' objects or, with
/// `packed`, packing those of one equal object per cell (see `QuadTree::build_packed`):
/// either way it must match the model after every step.
fn run(kind: Kind, s: &Scenario, packed: bool) {
    let (w, h) = (s.w, s.h);
    let mut m = initial_model(kind, s, |_, _| 0);
    let build = |m: &Model| -> Tree {
        match packed {
            true => QuadTree::build_packed(w, h, kind.stopper(), m.all(), |_| 0).unwrap(),
            false => QuadTree::build(w, h, kind.stopper(), m.all()).unwrap(),
        }
    };
    let mut t = build(&m);
    t.track_changes(true);
    let mut feed = Feed::start(&t);
    check_all(&mut t, &m, kind, &mut feed, &[]);

    for (op, (q1, q2, q3, q4)) in &s.ops {
        // Query rectangles reaching a little outside the grid, corners in any order.
        let q = [(q1 % (w + 4), q2 % (h + 4), q3 % (w + 4), q4 % (h + 4))];
        let mut step = |t: &mut Tree, m: &Model| check_all(t, m, kind, &mut feed, &q);
        match *op {
            Op::Add(a, b, v) => {
                let (x, y) = (a % w, b % h);
                if kind.blocked_mode() {
                    if m.at(x, y).is_empty() {
                        t.add(Cell::new(x, y), 0).unwrap();
                        m.at_mut(x, y).push(0);
                    } else {
                        assert!(t.remove(Cell::new(x, y), &0).unwrap());
                        m.at_mut(x, y).clear();
                    }
                } else {
                    t.add(Cell::new(x, y), v % 3).unwrap();
                    m.at_mut(x, y).push(v % 3);
                }
                step(&mut t, &m);
            }
            Op::RemoveExisting(k) => {
                let all = m.all();
                if all.is_empty() {
                    continue;
                }
                let (c, v) = all[k as usize % all.len()];
                assert!(t.remove(c, &v).unwrap());
                let cell = m.at_mut(c.x, c.y);
                let i = cell.iter().position(|&o| o == v).unwrap();
                cell.remove(i);
                step(&mut t, &m);
            }
            Op::RemoveRandom(a, b, v) => {
                let (x, y) = (a % w, b % h);
                let v = if kind.blocked_mode() { 0 } else { v % 3 };
                let had = m.at(x, y).iter().position(|&o| o == v);
                assert_eq!(t.remove(Cell::new(x, y), &v).unwrap(), had.is_some());
                if let Some(i) = had {
                    m.at_mut(x, y).remove(i);
                }
                step(&mut t, &m);
            }
            Op::RemoveAll(a, b) => {
                let (x, y) = (a % w, b % h);
                let got = sorted(t.remove_all(Cell::new(x, y)).unwrap());
                let want = sorted(std::mem::take(m.at_mut(x, y)));
                assert_eq!(got, want);
                step(&mut t, &m);
            }
            Op::Square(a, b, side, clear) => {
                let (x0, y0) = (a % w, b % h);
                for y in y0..(y0 + side).min(h) {
                    for x in x0..(x0 + side).min(w) {
                        if kind.blocked_mode() {
                            match (clear, m.at(x, y).is_empty()) {
                                (false, true) => {
                                    t.add(Cell::new(x, y), 0).unwrap();
                                    m.at_mut(x, y).push(0);
                                }
                                (true, false) => {
                                    assert!(t.remove(Cell::new(x, y), &0).unwrap());
                                    m.at_mut(x, y).clear();
                                }
                                _ => continue,
                            }
                        } else {
                            t.add(Cell::new(x, y), 1).unwrap();
                            m.at_mut(x, y).push(1);
                        }
                        step(&mut t, &m);
                    }
                }
            }
        }
    }
    // The edited tree stores its nodes as a fresh build does: the same leaves listed, packed
    // or empty, so the bytes in use (all but the slack) are the same.
    let fresh = build(&m);
    assert_eq!(
        t.memory_bytes() - t.slack_bytes(),
        fresh.memory_bytes() - fresh.slack_bytes(),
        "{kind:?} packed {packed}: the edited tree holds its objects differently"
    );
}

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig {
        cases: n,
        max_shrink_iters: 2000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cases(96))]

    #[test]
    fn max_objects_buckets(k in 1u64..=4, s in scenario(30), packed in any::<bool>()) {
        run(Kind::MaxObjects(k), &s, packed);
    }

    #[test]
    fn uniform_blocked_cells(s in scenario(30), packed in any::<bool>()) {
        run(Kind::Uniform, &s, packed);
    }

    #[test]
    fn max_leaf_side_combinations(uniform in any::<bool>(), k in 1u64..=4, side in 1u32..=9, s in scenario(30), packed in any::<bool>()) {
        run(if uniform { Kind::UniformSide(side) } else { Kind::MaxObjectsSide(k, side) }, &s, packed);
    }

    #[test]
    fn invert_style_and_by_rect_stoppers(nearly_full in any::<bool>(), s in scenario(30), packed in any::<bool>()) {
        run(if nearly_full { Kind::NearlyFull } else { Kind::ByRect }, &s, packed);
    }
}

// ---------------------------------------------------------------------------------------
// A rectangle's objects replaced in one pass
// ---------------------------------------------------------------------------------------

/// Replaces objects in a `rw × rh` rectangle at `(a % w, b % h)` of the tree that scenario
/// `s` starts with (its ops are not used), once in one pass
/// ([`QuadTree::replace_objects`]) and once object by object: both trees must be equal,
/// node for node, object for object, and the one-pass tree's change feed must replay to
/// its leaves. With `kinded`, objects `0..3` are of three kinds (as the path finder's
/// cost bands are); without, the one-pass tree must also match the brute-force model.
fn replace_in_rect(
    kind: Kind,
    s: &Scenario,
    packed: bool,
    kinded: bool,
    at: (u32, u32, u32, u32),
    seed: u64,
) {
    let (w, h) = (s.w, s.h);
    let mut m = initial_model(kind, s, |x, y| mix(s.seed ^ 1, x, y) as u32 % 3);
    let kind_of: fn(&u32) -> u8 = if kinded { |v| *v as u8 } else { |_| 0 };
    let build = |m: &Model| -> Tree {
        match packed {
            true => QuadTree::build_packed(w, h, kind.stopper(), m.all(), kind_of).unwrap(),
            false => QuadTree::build_with_kinds(w, h, kind.stopper(), m.all(), kind_of).unwrap(),
        }
    };
    let (mut one_pass, mut by_cell) = (build(&m), build(&m));
    one_pass.track_changes(true);
    let mut feed = Feed::start(&one_pass);

    // Each cell of the rectangle loses an object it has, or one it may not have, and may
    // gain one; blocked-style trees keep at most one per cell.
    let (x0, y0) = (at.0 % w, at.1 % h);
    let rect = Rect::new(x0, y0, (x0 + at.2).min(w - 1), (y0 + at.3).min(h - 1));
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for c in rect.cells() {
        let r = mix(seed, c.x, c.y);
        let here = m.at(c.x, c.y).clone();
        let lose = match (r % 4, here.is_empty()) {
            (0 | 1, false) => Some(here[(r >> 8) as usize % here.len()]),
            (2, _) if !kind.blocked_mode() => Some((r >> 16) as u32 % 3),
            _ => None,
        };
        if let Some(v) = lose {
            removed.push((c, v));
            if let Some(i) = m.at(c.x, c.y).iter().position(|&o| o == v) {
                m.at_mut(c.x, c.y).remove(i);
            }
        }
        if (r >> 24) % 3 != 0 && (!kind.blocked_mode() || m.at(c.x, c.y).is_empty()) {
            let v = (r >> 32) as u32 % 3;
            added.push((c, v));
            m.at_mut(c.x, c.y).push(v);
        }
    }

    let mut found = 0;
    for (c, v) in &removed {
        found += usize::from(by_cell.remove(*c, v).unwrap());
    }
    for &(c, v) in &added {
        by_cell.add(c, v).unwrap();
    }
    assert_eq!(one_pass.replace_objects(&removed, added).unwrap(), found);
    assert_eq!(
        tree_nodes(&one_pass),
        tree_nodes(&by_cell),
        "{kind:?} {rect}: shapes differ"
    );
    assert_eq!(
        leaf_objects(&one_pass),
        leaf_objects(&by_cell),
        "{kind:?} {rect}: objects differ"
    );
    assert_eq!(
        (
            one_pass.leaf_count(),
            one_pass.depth(),
            one_pass.object_count()
        ),
        (
            by_cell.leaf_count(),
            by_cell.depth(),
            by_cell.object_count()
        )
    );
    if kinded {
        // The model's stoppers know no kinds: the feed is checked here.
        let mut replay = feed.replay;
        let mut created = HashSet::new();
        for change in one_pass.drain_changes() {
            match change {
                LeafChange::Removed { id, .. } => assert!(replay.remove(&id), "{id} removed twice"),
                LeafChange::Created { id, .. } => {
                    assert!(replay.insert(id), "{id} created twice");
                    created.insert(id);
                }
            }
        }
        let now = leaf_objects(&one_pass);
        assert_eq!(
            replay,
            now.keys().copied().collect(),
            "the feed replays to the leaves"
        );
        for (id, objects) in &now {
            if feed.prev.get(id) != Some(objects) {
                assert!(
                    created.contains(id),
                    "leaf {id} changed but was not reported"
                );
            }
        }
    } else {
        check_all(&mut one_pass, &m, kind, &mut feed, &[]);
    }
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn rectangle_replaced_in_one_pass_equals_cell_by_cell(
        which in 0usize..6,
        k in 1u64..=3,
        side in 1u32..=6,
        s in scenario(2),
        packed in any::<bool>(),
        kinded in any::<bool>(),
        at in (any::<u32>(), any::<u32>(), 0u32..6, 0u32..6),
        seed in any::<u64>(),
    ) {
        let kind = [
            Kind::MaxObjects(k),
            Kind::Uniform,
            Kind::UniformSide(side),
            Kind::MaxObjectsSide(k, side),
            Kind::NearlyFull,
            Kind::ByRect,
        ][which];
        replace_in_rect(kind, &s, packed, kinded, at, seed);
    }
}

// ---------------------------------------------------------------------------------------
// The ID scheme on many grid sizes
// ---------------------------------------------------------------------------------------

fn side_strategy() -> impl Strategy<Value = u32> {
    prop_oneof![4 => 1u32..=5000, 1 => 5000u32..=MAX_SIDE, 1 => (MAX_SIDE - 64)..=MAX_SIDE, 1 => (0u32..=29).prop_map(|k| 1 << k.min(28))]
}

/// Checks the node of `(x, y)` at depth `d`: contains the cell, its neighbours along each
/// axis map to the adjacent indices, its children partition it, its parent repacks.
fn check_cell_at_depth(s: &Shape, d: u32, x: u32, y: u32) {
    let (w, h) = (s.width(), s.height());
    let id = s.cell_id(d, Cell::new(x, y));
    assert_eq!(id.depth(), d);
    assert_eq!(id.ix() as u64, ((x as u64) << d) / w as u64);
    assert_eq!(id.iy() as u64, ((y as u64) << d) / h as u64);
    let r = s.rect(id);
    assert!(
        r.contains(Cell::new(x, y)),
        "{w}x{h}: ({x},{y}) at depth {d} -> {id} {r}"
    );
    assert!(r.x2 < w && r.y2 < h);
    // The rectangle is exactly the cells with this ID: its ends have it, the cells one step
    // beyond have a smaller / larger index (not necessarily ±1: once 2^d > side, some
    // indices hold no cell).
    for (cx, cy) in [(r.x1, r.y1), (r.x2, r.y2), (r.x1, r.y2), (r.x2, r.y1)] {
        assert_eq!(s.cell_id(d, Cell::new(cx, cy)), id);
    }
    if r.x1 > 0 {
        assert!(s.cell_id(d, Cell::new(r.x1 - 1, y)).ix() < id.ix());
    }
    if r.x2 + 1 < w {
        assert!(s.cell_id(d, Cell::new(r.x2 + 1, y)).ix() > id.ix());
    }
    if r.y1 > 0 {
        assert!(s.cell_id(d, Cell::new(x, r.y1 - 1)).iy() < id.iy());
    }
    if r.y2 + 1 < h {
        assert!(s.cell_id(d, Cell::new(x, r.y2 + 1)).iy() > id.iy());
    }
    // Parent: repacking the corner at d - 1 equals the shifted indices, and contains us.
    if d > 0 {
        let p = s.cell_id(d - 1, Cell::new(r.x1, r.y1));
        assert_eq!(id.parent(), Some(p));
        let pr = s.rect(p);
        assert!(pr.x1 <= r.x1 && pr.y1 <= r.y1 && pr.x2 >= r.x2 && pr.y2 >= r.y2);
    }
    // Children partition the node.
    let kids = s.children(id, r);
    if r.width() == 1 && r.height() == 1 {
        assert!(kids.is_empty());
        return;
    }
    let expect_len = if r.width() > 1 && r.height() > 1 {
        4
    } else {
        2
    };
    assert_eq!(kids.len(), expect_len, "{w}x{h} {id} {r}");
    let mut area = 0u64;
    for (a, &k) in kids.iter().enumerate() {
        let kr = s.rect(k);
        assert_eq!(k.parent(), Some(id));
        assert!(kr.x1 >= r.x1 && kr.x2 <= r.x2 && kr.y1 >= r.y1 && kr.y2 <= r.y2);
        for &o in &kids[a + 1..] {
            assert!(!kr.intersects(&s.rect(o)));
        }
        area += kr.area();
    }
    assert_eq!(area, r.area());
    let kid = s.cell_id(d + 1, Cell::new(x, y));
    assert!(kids.contains(&kid));
}

fn exhaustive_axis_tiling(s: &Shape) {
    // At every depth, walking the axis, indices never decrease, each index's cells are
    // exactly its node's range, and consecutive ranges touch: no gaps, no overlaps.
    let maxd = s.max_possible_depth();
    for (side, is_x) in [(s.width(), true), (s.height(), false)] {
        for d in 0..=maxd + 1 {
            let mut v = 0;
            while v < side {
                let id = if is_x {
                    s.cell_id(d, Cell::new(v, 0))
                } else {
                    s.cell_id(d, Cell::new(0, v))
                };
                let r = s.rect(id);
                let (a, b) = if is_x { (r.x1, r.x2) } else { (r.y1, r.y2) };
                assert_eq!(
                    a,
                    v,
                    "{}x{} depth {d}: gap or overlap at {v}",
                    s.width(),
                    s.height()
                );
                for u in a..=b {
                    let other = if is_x {
                        s.cell_id(d, Cell::new(u, 0)).ix()
                    } else {
                        s.cell_id(d, Cell::new(0, u)).iy()
                    };
                    assert_eq!(other, if is_x { id.ix() } else { id.iy() });
                }
                v = b + 1;
            }
            if d >= maxd {
                // At the maximal depth every node is a single cell along both axes.
                assert_eq!(
                    (0..side)
                        .map(|v| if is_x {
                            s.cell_id(d, Cell::new(v, 0)).ix()
                        } else {
                            s.cell_id(d, Cell::new(0, v)).iy()
                        })
                        .collect::<BTreeSet<_>>()
                        .len(),
                    side as usize
                );
            }
        }
    }
    // max_possible_depth is the first depth at which every node is one cell.
    if maxd > 0 {
        let side = s.width().max(s.height());
        let distinct = |d: u32| {
            (0..side)
                .map(|v| ((v as u64) << d) / side as u64)
                .collect::<BTreeSet<_>>()
                .len()
        };
        assert!(distinct(maxd - 1) < side as usize);
        assert_eq!(distinct(maxd), side as usize);
    }
}

proptest! {
    #![proptest_config(cases(400))]

    #[test]
    fn id_scheme_on_many_sizes(w in side_strategy(), h in side_strategy(), cells in prop::collection::vec((any::<u32>(), any::<u32>(), any::<u32>()), 1..24)) {
        // Shapes are obtained from an empty tree: it validates the size.
        let t: QuadTree<()> = QuadTree::new(w, h, SplitStopper::uniform()).unwrap();
        let s = t.shape();
        let maxd = s.max_possible_depth();
        assert!(maxd <= 29);
        assert_eq!(s.cell_id(0, Cell::new(w - 1, h - 1)), NodeId::ROOT);
        assert_eq!(s.rect(NodeId::ROOT), Rect::new(0, 0, w - 1, h - 1));
        for &(a, b, dd) in &cells {
            // Bias towards the grid's ends and the corrected midpoints, where errors hide.
            let pick = |r: u32, side: u32| match r % 5 {
                0 => 0,
                1 => side - 1,
                2 => (side / 2).saturating_sub(1),
                3 => side / 2,
                _ => r % side,
            };
            let (x, y) = (pick(a, w), pick(b, h));
            let d = dd % (maxd + 1);
            check_cell_at_depth(&s, d, x, y);
            check_cell_at_depth(&s, maxd, x, y);
            let r = s.rect(s.cell_id(maxd, Cell::new(x, y)));
            assert_eq!((r.width(), r.height()), (1, 1), "depth {maxd} is all single cells");
        }
    }

    #[test]
    fn id_scheme_small_sizes_exhaustive(w in 1u32..=300, h in 1u32..=300) {
        let t: QuadTree<()> = QuadTree::new(w, h, SplitStopper::uniform()).unwrap();
        exhaustive_axis_tiling(&t.shape());
    }
}

/// Every size up to 64 on each axis, every cell, every depth.
#[test]
fn id_scheme_all_sizes_up_to_64() {
    for w in 1..=64 {
        for h in [1, 2, 3, 5, 7, 8, 13, 33, 64] {
            let t: QuadTree<()> = QuadTree::new(w, h, SplitStopper::uniform()).unwrap();
            let s = t.shape();
            exhaustive_axis_tiling(&s);
            for d in 0..=s.max_possible_depth() {
                for y in 0..h {
                    for x in 0..w {
                        check_cell_at_depth(&s, d, x, y);
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(cases(300))]

    /// The size a tree would have, counted without building it, bounds the size of the tree
    /// built (so a memory budget can be checked first), and not loosely: the node count is
    /// the same, only the table's growth is rounded up.
    #[test]
    fn estimated_bytes_bound_the_built_tree(w in 1u32..200, h in 1u32..200, density in 0u32..=100,
                                            side in prop::option::of(1u32..20), seed in any::<u64>()) {
        let mut rng = seed | 1;
        let mut cells = Vec::new();
        for y in 0..h {
            for x in 0..w {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                if (rng % 100) < density as u64 {
                    cells.push(Cell::new(x, y));
                }
            }
        }
        let stopper = match side {
            Some(s) => SplitStopper::uniform().with_max_leaf_side(s),
            None => SplitStopper::uniform(),
        };
        let mut scratch = cells.clone();
        let estimate = QuadTree::estimate_bytes(w, h, &stopper, &mut scratch).unwrap();
        let tree = QuadTree::build(w, h, stopper, cells.iter().map(|&c| (c, ()))).unwrap();
        let actual = tree.memory_bytes();
        prop_assert!(estimate >= actual, "{w}x{h}: estimate {estimate} < actual {actual}");
        prop_assert!(estimate <= 2 * actual + 1024, "{w}x{h}: estimate {estimate} vs actual {actual}");
        scratch.sort_unstable_by_key(|c| (c.y, c.x));
        prop_assert_eq!(&scratch, &cells, "the cells are only reordered");
        // The same for a packing tree of kinded objects (a path-finding map's: 0 blocked,
        // 1 and 2 for two terrain bands), which lists no object of a uniform leaf.
        let mut objects: Vec<(Cell, u8)> = cells.iter().map(|&c| (c, (c.x / 7 % 3) as u8)).collect();
        let stopper = || match side {
            Some(s) => SplitStopper::uniform().with_max_leaf_side(s),
            None => SplitStopper::uniform(),
        };
        let estimate = QuadTree::estimate_bytes_packed(w, h, &stopper(), &mut objects).unwrap();
        let tree = QuadTree::build_packed(w, h, stopper(), objects.iter().copied(), |k| *k).unwrap();
        let actual = tree.memory_bytes();
        prop_assert!(estimate >= actual, "{w}x{h} packed: estimate {estimate} < actual {actual}");
        prop_assert!(estimate <= 2 * actual + 1024, "{w}x{h} packed: estimate {estimate} vs actual {actual}");
        let listed = QuadTree::build_with_kinds(w, h, stopper(), objects, |k| *k).unwrap();
        prop_assert_eq!(listed.leaf_count(), tree.leaf_count());
        prop_assert!(actual <= listed.memory_bytes());
    }
}
