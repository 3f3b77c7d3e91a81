//! Worked examples of the quadtree, checked by hand.
//!
//! Every expected rectangle below is derived in the comments from the ID formula: at depth
//! `d` a cell `(x, y)` of a W×H grid belongs to node `(d, floor(x·2^d/W), floor(y·2^d/H))`,
//! so index `i` at depth `d` starts at column `ceil(i·W/2^d)`. A node splits exactly when
//! all its ancestors are split and the stopper does not stop it; 1×1 nodes never split.

use quadpath::quadtree::{LeafChange, NodeId, QuadTree, QuadtreeError, SplitStopper, MAX_SIDE};
use quadpath::{Cell, Direction, Rect};
use std::collections::BTreeSet;

fn id(d: u32, i: u32, j: u32) -> NodeId {
    NodeId::pack(d, i, j)
}

fn r(x1: u32, y1: u32, x2: u32, y2: u32) -> Rect {
    Rect::new(x1, y1, x2, y2)
}

/// A leaf as `(depth, ix, iy, (x1, y1, x2, y2))`.
type LeafKey = (u32, u32, u32, (u32, u32, u32, u32));

/// The leaves as a sorted set of `(depth, ix, iy, rect)`.
fn leaves<T, S: std::hash::BuildHasher>(t: &QuadTree<T, S>) -> BTreeSet<LeafKey> {
    t.leaves()
        .map(|l| {
            let (n, rc) = (l.id(), l.rect());
            (n.depth(), n.ix(), n.iy(), (rc.x1, rc.y1, rc.x2, rc.y2))
        })
        .collect()
}

fn set(v: &[LeafKey]) -> BTreeSet<LeafKey> {
    v.iter().copied().collect()
}

/// Blocks every cell of a `w × h` grid except `free`, as a bulk build with `uniform()`.
fn blocked_except(w: u32, h: u32, free: &[(u32, u32)]) -> QuadTree<()> {
    let cells = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|c| !free.contains(c));
    QuadTree::build(
        w,
        h,
        SplitStopper::uniform(),
        cells.map(|(x, y)| (Cell::new(x, y), ())),
    )
    .unwrap()
}

// -----------------------------------------------------------------------------------------
// 8×8, max_objects(1)
// -----------------------------------------------------------------------------------------

#[test]
fn square_8x8_buckets_of_one() {
    // With W = H = 8 the formula is plain halving: depth 1 splits at 4, depth 2 at 2|4|6,
    // depth 3 gives single cells.
    let mut t: QuadTree<char> = QuadTree::new(8, 8, SplitStopper::max_objects(1)).unwrap();
    t.track_changes(true);
    t.add(Cell::new(0, 0), 'a').unwrap();
    // One object: the root (count 1 <= 1) stays a leaf.
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (0, 1, 1));

    t.add(Cell::new(7, 7), 'b').unwrap();
    // Count 2 > 1: the root splits into four 4×4 quadrants; (0,0) and (7,7) land in
    // different ones, each with one object, so all four are leaves.
    assert_eq!(
        leaves(&t),
        set(&[
            (1, 0, 0, (0, 0, 3, 3)),
            (1, 1, 0, (4, 0, 7, 3)),
            (1, 0, 1, (0, 4, 3, 7)),
            (1, 1, 1, (4, 4, 7, 7))
        ])
    );
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (1, 5, 4));

    t.add(Cell::new(1, 1), 'c').unwrap();
    // (0,0) and (1,1) share quadrant (1,0,0) -> it splits into 2×2 blocks at depth 2;
    // both are in block (2,0,0) = (0,0)-(1,1), which splits again into four single cells
    // at depth 3: (0,0) holds 'a', (1,1) holds 'c', (1,0) and (0,1) are empty.
    assert_eq!(
        leaves(&t),
        set(&[
            (1, 1, 0, (4, 0, 7, 3)),
            (1, 0, 1, (0, 4, 3, 7)),
            (1, 1, 1, (4, 4, 7, 7)),
            (2, 1, 0, (2, 0, 3, 1)),
            (2, 0, 1, (0, 2, 1, 3)),
            (2, 1, 1, (2, 2, 3, 3)),
            (3, 0, 0, (0, 0, 0, 0)),
            (3, 1, 0, (1, 0, 1, 0)),
            (3, 0, 1, (0, 1, 0, 1)),
            (3, 1, 1, (1, 1, 1, 1)),
        ])
    );
    // Nodes: root + 4 + 4 + 4 = 13; leaves 3 + 3 + 4 = 10.
    assert_eq!(
        (t.depth(), t.node_count(), t.leaf_count(), t.object_count()),
        (3, 13, 10, 3)
    );
    assert_eq!(
        t.find(Cell::new(1, 1)).unwrap().objects(),
        &[(Cell::new(1, 1), 'c')]
    );
    assert_eq!(t.find(Cell::new(3, 2)).unwrap().id(), id(2, 1, 1));
    // The smallest node covering (0,0)-(2,1) is the quadrant (1,0,0): (2,x) is outside block (2,0,0).
    assert_eq!(
        t.smallest_node_covering(Rect::new(0, 0, 2, 1))
            .unwrap()
            .id(),
        id(1, 0, 0)
    );
    // East of the single cell (1,0) is block (2,1,0); its south-east corner cell (2,1) is
    // in the same block; south of it is the cell (1,1).
    let ids = |v: Vec<quadpath::quadtree::NodeRef<'_, char>>| {
        v.iter().map(|n| n.id()).collect::<Vec<_>>()
    };
    assert_eq!(
        ids(t.neighbours(id(3, 1, 0), Direction::E)),
        vec![id(2, 1, 0)]
    );
    assert_eq!(
        ids(t.neighbours(id(3, 1, 0), Direction::SE)),
        vec![id(2, 1, 0)]
    );
    assert_eq!(
        ids(t.neighbours(id(3, 1, 0), Direction::S)),
        vec![id(3, 1, 1)]
    );
    assert!(t.neighbours(id(3, 1, 0), Direction::N).is_empty()); // the border
                                                                 // West of the quadrant (1,1,0) = (4,0)-(7,3): blocks (2,1,0) and (2,1,1).
    let west: BTreeSet<_> = ids(t.neighbours(id(1, 1, 0), Direction::W))
        .into_iter()
        .collect();
    assert_eq!(west, [id(2, 1, 0), id(2, 1, 1)].into_iter().collect());

    // Removing 'c' brings the count of (1,0,0) back to 1: its whole subtree merges.
    t.drain_changes();
    assert!(t.remove(Cell::new(1, 1), &'c').unwrap());
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (1, 5, 4));
    let changes = t.drain_changes();
    // 7 leaves under (1,0,0) removed, (1,0,0) created.
    assert_eq!(
        changes
            .iter()
            .filter(|c| matches!(c, LeafChange::Removed { .. }))
            .count(),
        7
    );
    assert_eq!(
        changes.last(),
        Some(&LeafChange::Created {
            id: id(1, 0, 0),
            rect: r(0, 0, 3, 3)
        })
    );
}

// -----------------------------------------------------------------------------------------
// 7×6, uniform(): blocked cells
// -----------------------------------------------------------------------------------------

#[test]
fn rectangle_7x6_blocked_cells() {
    // x, W = 7:  depth 1: floor(2x/7) -> x 0..3 | 4..6       (starts 0, ceil(7/2)=4)
    //            depth 2: floor(4x/7) -> 0..1 | 2..3 | 4..5 | 6 (starts 0, 2, 4, ceil(21/4)=6)
    //            depth 3: floor(8x/7) = 0,1,2,3,4,5,6: single columns.
    // y, H = 6:  depth 1: floor(y/3)  -> 0..2 | 3..5
    //            depth 2: floor(2y/3) -> 0..1 | 2 | 3..4 | 5    (starts 0, ceil(1.5)=2, 3, ceil(4.5)=5)
    //            depth 3: floor(4y/3) = 0,1,2,4,5,6: single rows.
    let shape = QuadTree::<()>::new(7, 6, SplitStopper::uniform())
        .unwrap()
        .shape();
    assert_eq!(shape.rect(id(1, 1, 1)), r(4, 3, 6, 5));
    assert_eq!(shape.rect(id(2, 3, 1)), r(6, 2, 6, 2));
    assert_eq!(shape.rect(id(2, 1, 2)), r(2, 3, 3, 4));
    assert_eq!(shape.max_possible_depth(), 3);

    let mut t: QuadTree<()> = QuadTree::new(7, 6, SplitStopper::uniform()).unwrap();
    t.add(Cell::new(6, 5), ()).unwrap();
    // Root: 1 of 42 blocked -> split. Quadrant (1,1,1) = (4,3)-(6,5): 1 of 9 -> split into
    // (4..5, 3..4), (6, 3..4), (4..5, 5), (6, 5); the last is the blocked cell.
    assert_eq!(
        leaves(&t),
        set(&[
            (1, 0, 0, (0, 0, 3, 2)),
            (1, 1, 0, (4, 0, 6, 2)),
            (1, 0, 1, (0, 3, 3, 5)),
            (2, 2, 2, (4, 3, 5, 4)),
            (2, 3, 2, (6, 3, 6, 4)),
            (2, 2, 3, (4, 5, 5, 5)),
            (2, 3, 3, (6, 5, 6, 5)),
        ])
    );
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (2, 9, 7));

    t.add(Cell::new(0, 0), ()).unwrap();
    // Quadrant (1,0,0) = (0,0)-(3,2): 1 of 12 -> split into (0..1,0..1), (2..3,0..1),
    // (0..1,2), (2..3,2). The first holds (0,0): 1 of 4 -> split into 4 single cells.
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (3, 17, 13));
    assert_eq!(t.find(Cell::new(0, 0)).unwrap().id(), id(3, 0, 0));
    assert_eq!(t.find(Cell::new(1, 1)).unwrap().rect(), r(1, 1, 1, 1));
    assert_eq!(t.find(Cell::new(3, 2)).unwrap().rect(), r(2, 2, 3, 2));
    assert_eq!(t.find(Cell::new(3, 2)).unwrap().id(), id(2, 1, 1));

    // Unblocking (0,0) merges that quadrant back; depth shrinks to 2.
    t.remove(Cell::new(0, 0), &()).unwrap();
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (2, 9, 7));
}

// -----------------------------------------------------------------------------------------
// 50×40: corrected midpoints
// -----------------------------------------------------------------------------------------

#[test]
fn grid_50x40_corrected_midpoints() {
    // x, W = 50: depth 1 splits at ceil(50/2) = 25. Depth 2 starts: ceil(50/4) = 13 (not the
    // naive 12 = 25/2 rounded down), 25, ceil(150/4) = 38 (not 37): widths 13,12,13,12.
    // Depth 3 starts ceil(50i/8): 0, 7, 13, 19, 25, 32, 38, 44.
    // y, H = 40: depth 1 at 20, depth 2 at 10, 20, 30, depth 3 at multiples of 5.
    let mut t: QuadTree<u8> = QuadTree::new(50, 40, SplitStopper::max_objects(1)).unwrap();
    let s = t.shape();
    let xs: Vec<u32> = (0..8).map(|i| s.rect(id(3, i, 0)).x1).collect();
    assert_eq!(xs, vec![0, 7, 13, 19, 25, 32, 38, 44]);
    let ys: Vec<u32> = (0..8).map(|j| s.rect(id(3, 0, j)).y1).collect();
    assert_eq!(ys, vec![0, 5, 10, 15, 20, 25, 30, 35]);

    // (12,0) and (13,0): both in (1,0,0) = (0,0)-(24,19), which splits at x = 13, y = 10.
    t.add(Cell::new(12, 0), 1).unwrap();
    t.add(Cell::new(13, 0), 2).unwrap();
    // (37,30) and (38,29): both in (1,1,1) = (25,20)-(49,39), which splits at x = 38, y = 30.
    // (37,30) -> (2, floor(4·37/50)=2, floor(4·30/40)=3); (38,29) -> (2, 3, 2).
    t.add(Cell::new(37, 30), 3).unwrap();
    t.add(Cell::new(38, 29), 4).unwrap();
    assert_eq!(
        leaves(&t),
        set(&[
            (1, 1, 0, (25, 0, 49, 19)),
            (1, 0, 1, (0, 20, 24, 39)),
            (2, 0, 0, (0, 0, 12, 9)),
            (2, 1, 0, (13, 0, 24, 9)),
            (2, 0, 1, (0, 10, 12, 19)),
            (2, 1, 1, (13, 10, 24, 19)),
            (2, 2, 2, (25, 20, 37, 29)),
            (2, 3, 2, (38, 20, 49, 29)),
            (2, 2, 3, (25, 30, 37, 39)),
            (2, 3, 3, (38, 30, 49, 39)),
        ])
    );
    assert_eq!(
        (t.depth(), t.node_count(), t.leaf_count(), t.object_count()),
        (2, 13, 10, 4)
    );
    assert_eq!(
        t.find(Cell::new(12, 0)).unwrap().objects(),
        &[(Cell::new(12, 0), 1)]
    );
    assert_eq!(
        t.find(Cell::new(13, 0)).unwrap().objects(),
        &[(Cell::new(13, 0), 2)]
    );
    assert_eq!(t.find(Cell::new(37, 30)).unwrap().id(), id(2, 2, 3));
    assert_eq!(t.find(Cell::new(38, 29)).unwrap().id(), id(2, 3, 2));
    // A cell's ID at depth 2, computed directly, is its leaf's.
    assert_eq!(s.cell_id(2, Cell::new(24, 9)), id(2, 1, 0));
    assert_eq!(s.cell_id(2, Cell::new(25, 10)), id(2, 2, 1));
    // Smallest node covering (12,0)-(13,0) is the quadrant (1,0,0): 12|13 is a depth-2 split.
    assert_eq!(
        t.smallest_node_covering(Rect::new(12, 0, 13, 0))
            .unwrap()
            .id(),
        id(1, 0, 0)
    );
    assert_eq!(
        t.smallest_node_covering(Rect::new(13, 0, 24, 9))
            .unwrap()
            .id(),
        id(2, 1, 0)
    );
    // Leaves in (11,8)-(14,11): the four depth-2 leaves around the corner (13,10).
    let got: BTreeSet<NodeId> = t
        .leaves_in_rect(Rect::new(11, 8, 14, 11))
        .iter()
        .map(|n| n.id())
        .collect();
    assert_eq!(
        got,
        [id(2, 0, 0), id(2, 1, 0), id(2, 0, 1), id(2, 1, 1)]
            .into_iter()
            .collect()
    );
    // Clipping: a rectangle hanging off the bottom-right corner only sees the last leaf.
    let objs = t.objects_in_rect(Rect::new(38, 29, 1000, 1000));
    assert_eq!(objs, vec![(Cell::new(38, 29), &4)]);
    let got: BTreeSet<NodeId> = t
        .leaves_in_rect(Rect::new(45, 35, u32::MAX, u32::MAX))
        .iter()
        .map(|n| n.id())
        .collect();
    assert_eq!(got, [id(2, 3, 3)].into_iter().collect());
}

// -----------------------------------------------------------------------------------------
// Invert-style: nearly full grids with a few free cells
// -----------------------------------------------------------------------------------------

#[test]
fn nearly_full_10x8() {
    // x, W = 10: depth 1 starts 0, 5; depth 2 starts ceil(2.5i) = 0, 3, 5, 8;
    //   depth 3 starts ceil(1.25i) = 0, 2, 3, 4, 5, 7, 8, 9 -> [0,1] [2] [3] [4] [5,6] [7] [8] [9];
    //   depth 4: floor(16x/10) for x = 0..9 is 0,1,3,4,6,8,9,11,12,14 (some indices empty),
    //   so [0,1] only separates at depth 4, into (4,0,·) = x 0 and (4,1,·) = x 1.
    // y, H = 8: plain halving; depth 3 is single rows, and stays single at depth 4 with
    //   index floor(16y/8) = 2y.
    let mut t = blocked_except(10, 8, &[(0, 0)]);
    t.track_changes(true);
    // Root 79/80 -> split. (1,0,0) = (0,0)-(4,3): 19/20 -> split; the other quadrants full.
    // In it, depth 2: (0..2,0..1) 5/6 -> split; (3..4,0..1), (0..2,2..3), (3..4,2..3) full.
    // In (0..2,0..1), depth 3: (0..1,0) 1/2 -> split; (2,0), (0..1,1), (2,1) full.
    // In (0..1,0), depth 4: (0,0) free and (1,0) blocked: 2 children since it is one row.
    assert_eq!(
        leaves(&t),
        set(&[
            (1, 1, 0, (5, 0, 9, 3)),
            (1, 0, 1, (0, 4, 4, 7)),
            (1, 1, 1, (5, 4, 9, 7)),
            (2, 1, 0, (3, 0, 4, 1)),
            (2, 0, 1, (0, 2, 2, 3)),
            (2, 1, 1, (3, 2, 4, 3)),
            (3, 1, 0, (2, 0, 2, 0)),
            (3, 0, 1, (0, 1, 1, 1)),
            (3, 1, 1, (2, 1, 2, 1)),
            (4, 0, 0, (0, 0, 0, 0)),
            (4, 1, 0, (1, 0, 1, 0)),
        ])
    );
    assert_eq!(
        (t.depth(), t.node_count(), t.leaf_count(), t.object_count()),
        (4, 15, 11, 79)
    );
    assert_eq!(t.find(Cell::new(0, 0)).unwrap().object_count(), 0);
    assert_eq!(t.find(Cell::new(1, 0)).unwrap().object_count(), 1);

    // Free (9,7) too: (1,1,1) = (5,4)-(9,7) is now 19/20 -> split at x 8, y 6; only
    // (8..9,6..7) = 3/4 is mixed and splits into single cells; (9,7) is
    // (3, floor(72/10)=7, 7).
    assert!(t.remove(Cell::new(9, 7), &()).unwrap());
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (4, 23, 17));
    assert_eq!(t.find(Cell::new(9, 7)).unwrap().id(), id(3, 7, 7));
    assert_eq!(t.find(Cell::new(8, 6)).unwrap().rect(), r(8, 6, 8, 6));
    assert_eq!(t.find(Cell::new(5, 4)).unwrap().rect(), r(5, 4, 7, 5));
    let ch = t.drain_changes();
    assert_eq!(
        ch[0],
        LeafChange::Removed {
            id: id(1, 1, 1),
            rect: r(5, 4, 9, 7)
        }
    );
    assert_eq!(ch.len(), 1 + 7); // (1,1,1) removed; 3 full blocks + 4 cells created

    // Block both free cells again: everything merges into the full root.
    // Blocking (0,0) fills (1,0,0), which merges: leaves (1,0,0), (1,1,0), (1,0,1), the three
    // full blocks of (1,1,1) and the four cells of (2,3,3): 10 leaves, 1 + 4 + 4 + 4 = 13
    // nodes, and the depth-4 leaves are gone: depth 3.
    t.add(Cell::new(0, 0), ()).unwrap();
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (3, 13, 10));
    t.add(Cell::new(9, 7), ()).unwrap();
    assert_eq!(
        (t.depth(), t.node_count(), t.leaf_count(), t.object_count()),
        (0, 1, 1, 80)
    );
}

#[test]
fn nearly_full_7x5() {
    // x, W = 7: as in the 7×6 example: depth 1 [0,3][4,6], depth 2 [0,1][2,3][4,5][6].
    // y, H = 5: depth 1 floor(2y/5) = 0,0,0,1,1 -> [0,2][3,4];
    //           depth 2 floor(4y/5) = 0,0,1,2,3 -> [0,1][2][3][4];
    //           depth 3 floor(8y/5) = 0,1,3,4,6: single rows.
    let mut t = blocked_except(7, 5, &[(3, 2)]);
    // Root 34/35 -> split. (1,0,0) = (0,0)-(3,2): 11/12 -> split into (0..1,0..1),
    // (2..3,0..1), (0..1,2), (2..3,2); only the last (1/2 free) splits, into (2,2) and (3,2):
    // (3, floor(16/7)=2, floor(16/5)=3) and (3, floor(24/7)=3, 3).
    assert_eq!(
        leaves(&t),
        set(&[
            (1, 1, 0, (4, 0, 6, 2)),
            (1, 0, 1, (0, 3, 3, 4)),
            (1, 1, 1, (4, 3, 6, 4)),
            (2, 0, 0, (0, 0, 1, 1)),
            (2, 1, 0, (2, 0, 3, 1)),
            (2, 0, 1, (0, 2, 1, 2)),
            (3, 2, 3, (2, 2, 2, 2)),
            (3, 3, 3, (3, 2, 3, 2)),
        ])
    );
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (3, 11, 8));

    // Free the corner (6,4): (1,1,1) = (4,3)-(6,4), 5/6 -> split into (4..5,3), (6,3),
    // (4..5,4), (6,4).
    t.remove(Cell::new(6, 4), &()).unwrap();
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (3, 15, 11));
    assert_eq!(t.find(Cell::new(6, 4)).unwrap().id(), id(2, 3, 3));
    assert_eq!(t.find(Cell::new(5, 3)).unwrap().rect(), r(4, 3, 5, 3));
    // North of the free corner (6,4) is the blocked (6,3); north-west is (4..5,3).
    let n: Vec<_> = t
        .neighbours(id(2, 3, 3), Direction::N)
        .iter()
        .map(|n| n.rect())
        .collect();
    assert_eq!(n, vec![r(6, 3, 6, 3)]);
    let nw: Vec<_> = t
        .neighbours(id(2, 3, 3), Direction::NW)
        .iter()
        .map(|n| n.rect())
        .collect();
    assert_eq!(nw, vec![r(4, 3, 5, 3)]);

    // Block (3,2) again: (1,0,0) is full and merges, and the deepest (depth 3) leaves go,
    // so the depth shrinks to 2.
    t.add(Cell::new(3, 2), ()).unwrap();
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (2, 9, 7));
    assert_eq!(t.find(Cell::new(3, 2)).unwrap().rect(), r(0, 0, 3, 2));
}

// -----------------------------------------------------------------------------------------
// A huge grid, and bad input
// -----------------------------------------------------------------------------------------

#[test]
fn huge_grid_collapses_back_to_root() {
    let n = 100_000;
    let mut t: QuadTree<u32> = QuadTree::new(n, n, SplitStopper::max_objects(1)).unwrap();
    // x = 0 and x = 1 share an index while floor(2^d/100000) = 0, i.e. up to depth 16
    // (65536 < 100000), and separate at depth 17 (131072 ≥ 100000). So (0,0) and (1,0)
    // force 17 splits of the node holding both, each into 4 (the node at depth 16 is
    // (0..1, 0..1): x = 2 gives floor(2·65536/100000) = 1). Nodes 1 + 4·17 = 69, leaves
    // 1 + 3·17 = 52.
    t.add(Cell::new(0, 0), 1).unwrap();
    t.add(Cell::new(1, 0), 2).unwrap();
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (17, 69, 52));
    assert_eq!(t.find(Cell::new(1, 0)).unwrap().rect(), r(1, 0, 1, 0));
    assert_eq!(t.find(Cell::new(1, 1)).unwrap().rect(), r(1, 1, 1, 1));
    assert_eq!(
        t.find_by_descent(Cell::new(0, 1)).unwrap().id(),
        id(17, 0, 1)
    );
    // A third object far away only adds a sibling: (99999, 99999) is in (1,1,1), a leaf.
    t.add(Cell::new(99_999, 99_999), 3).unwrap();
    assert_eq!((t.depth(), t.node_count(), t.leaf_count()), (17, 69, 52));
    assert_eq!(
        t.find(Cell::new(99_999, 99_999)).unwrap().rect(),
        r(50_000, 50_000, 99_999, 99_999)
    );

    assert!(t.remove(Cell::new(1, 0), &2).unwrap());
    assert_eq!(t.remove_all(Cell::new(0, 0)).unwrap(), vec![1]);
    assert!(!t.remove(Cell::new(99_999, 99_999), &7).unwrap());
    assert!(t.remove(Cell::new(99_999, 99_999), &3).unwrap());
    assert_eq!(
        (t.depth(), t.node_count(), t.leaf_count(), t.object_count()),
        (0, 1, 1, 0)
    );
    assert_eq!(
        t.find(Cell::new(12_345, 67_890)).unwrap().id(),
        NodeId::ROOT
    );
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    use QuadtreeError::*;
    let n = 100_000;
    let mut t: QuadTree<u32> = QuadTree::new(n, n, SplitStopper::max_objects(1)).unwrap();
    let oob = |x: u32, y: u32| OutOfBounds {
        cell: Cell::new(x, y),
        width: n,
        height: n,
    };
    assert_eq!(t.add(Cell::new(n, 0), 1), Err(oob(n, 0)));
    assert_eq!(t.add(Cell::new(0, u32::MAX), 1), Err(oob(0, u32::MAX)));
    assert_eq!(t.remove(Cell::new(n, n), &1), Err(oob(n, n)));
    assert_eq!(t.remove_all(Cell::new(u32::MAX, 5)), Err(oob(u32::MAX, 5)));
    assert_eq!(t.find(Cell::new(0, n)).unwrap_err(), oob(0, n));
    assert_eq!(t.find_by_descent(Cell::new(n, 0)).unwrap_err(), oob(n, 0));
    assert_eq!(t.object_count(), 0);
    // Range queries clip; a rectangle wholly outside finds nothing.
    assert!(t
        .smallest_node_covering(Rect::new(n, n, u32::MAX, u32::MAX))
        .is_none());
    assert!(t.leaves_in_rect(Rect::new(n, 0, n + 5, 5)).is_empty());
    assert!(t.objects_in_rect(Rect::new(0, n, 5, u32::MAX)).is_empty());
    assert_eq!(
        t.smallest_node_covering(Rect::new(0, 0, u32::MAX, u32::MAX))
            .unwrap()
            .id(),
        NodeId::ROOT
    );
    // Neighbours of IDs that are not leaves of the tree: none.
    assert!(t.neighbours(id(3, 1, 1), Direction::E).is_empty());
    assert!(t.node(id(3, 1, 1)).is_none());
    // Bulk build with an object off the grid.
    let e = QuadTree::build(
        5,
        5,
        SplitStopper::uniform(),
        [(Cell::new(1, 1), ()), (Cell::new(2, 5), ())],
    )
    .unwrap_err();
    assert_eq!(
        e,
        OutOfBounds {
            cell: Cell::new(2, 5),
            width: 5,
            height: 5
        }
    );

    // Sizes: each side in 1..=2^29-1.
    let bad = |w: u32, h: u32| QuadTree::<()>::new(w, h, SplitStopper::uniform()).unwrap_err();
    assert_eq!(
        bad(0, 7),
        BadSize {
            width: 0,
            height: 7
        }
    );
    assert_eq!(
        bad(7, 0),
        BadSize {
            width: 7,
            height: 0
        }
    );
    assert_eq!(
        bad(0, 0),
        BadSize {
            width: 0,
            height: 0
        }
    );
    assert_eq!(
        bad(1 << 29, 1),
        BadSize {
            width: 1 << 29,
            height: 1
        }
    );
    assert_eq!(
        bad(1, u32::MAX),
        BadSize {
            width: 1,
            height: u32::MAX
        }
    );
    assert!(QuadTree::build(0, 3, SplitStopper::uniform(), [(Cell::new(0, 0), ())]).is_err());
    // The largest allowed grid works, including its far corner.
    let mut big: QuadTree<()> =
        QuadTree::new(MAX_SIDE, MAX_SIDE, SplitStopper::max_objects(0)).unwrap();
    big.add(Cell::new(MAX_SIDE - 1, MAX_SIDE - 1), ()).unwrap();
    // max_objects(0) splits down to the single cell. At depth 28 nodes are mostly 2 cells
    // wide ((2^29-1)/2^28 is just under 2), but the last index, 2^28-1, starts at
    // ceil((2^28-1)(2^29-1)/2^28) = ceil(2^29 - 3 + 2^-28) = 2^29-2 = MAX_SIDE-1: the far
    // corner is already a single cell at depth 28.
    assert_eq!(big.depth(), 28);
    let m = MAX_SIDE - 1;
    assert_eq!(big.find(Cell::new(m, m)).unwrap().rect(), r(m, m, m, m));
    assert_eq!(
        big.find(Cell::new(m, m)).unwrap().id(),
        id(28, (1 << 28) - 1, (1 << 28) - 1)
    );
    // Index 0 at depth 28 is [0, ceil((2^29-1)/2^28)-1] = [0, 1]: the origin needs depth 29.
    big.add(Cell::new(0, 0), ()).unwrap();
    assert_eq!(big.depth(), 29);
    assert_eq!(big.find(Cell::new(0, 0)).unwrap().rect(), r(0, 0, 0, 0));
    assert_eq!(big.find(Cell::new(1, 1)).unwrap().id(), id(29, 1, 1));
    assert!(big.remove(Cell::new(m, m), &()).unwrap());
    assert!(big.remove(Cell::new(0, 0), &()).unwrap());
    assert_eq!((big.depth(), big.node_count()), (0, 1));
    // A 1×1 grid never splits.
    let mut one: QuadTree<u8> = QuadTree::new(1, 1, SplitStopper::max_objects(0)).unwrap();
    one.add(Cell::new(0, 0), 1).unwrap();
    one.add(Cell::new(0, 0), 2).unwrap();
    assert_eq!(
        (one.depth(), one.node_count(), one.object_count()),
        (0, 1, 2)
    );
}

#[test]
fn packed_builds_and_estimates_refuse_bad_input_like_plain_ones() {
    use QuadtreeError::*;
    let off = [(Cell::new(1, 1), 0u8), (Cell::new(2, 5), 0u8)];
    let oob = OutOfBounds {
        cell: Cell::new(2, 5),
        width: 5,
        height: 5,
    };
    let built = QuadTree::build_packed(5, 5, SplitStopper::uniform(), off, |k| *k);
    assert_eq!(built.unwrap_err(), oob);
    let mut items = off;
    let estimate =
        QuadTree::<u8>::estimate_bytes_packed(5, 5, &SplitStopper::uniform(), &mut items);
    assert_eq!(estimate.unwrap_err(), oob);
    let zero = QuadTree::build_packed(0, 7, SplitStopper::uniform(), [], |k: &u8| *k);
    assert_eq!(
        zero.unwrap_err(),
        BadSize {
            width: 0,
            height: 7
        }
    );
    let mut none: [(Cell, u8); 0] = [];
    let estimate = QuadTree::<u8>::estimate_bytes_packed(7, 0, &SplitStopper::uniform(), &mut none);
    assert_eq!(
        estimate.unwrap_err(),
        BadSize {
            width: 7,
            height: 0
        }
    );
}
