//! Property tests of the unit index (`quadpath::units`) against brute force: after random
//! inserts, moves and removals (small units, huge ones, units on the world's edges), every
//! query must return exactly what a scan over a plain map of the units returns, on both
//! layouts and with cell sizes from tiny to coarse. Also: ids are never lost or duplicated,
//! `cleanup` never changes an answer, and a bulk rebuild answers as the incremental index.

use proptest::prelude::*;
use quadpath::units::{
    Aabb, Circle, Layout, LooseGrid, LooseQuadtree, UnitError, UnitId, UnitIndex, MAX_UNIT_ID,
    WIDE_SPAN,
};
use std::collections::BTreeMap;

/// A non-square world, so that both axes' cell counts differ.
const W: f32 = 200.0;
const H: f32 = 150.0;

/// A unit's box: mostly small, sometimes huge (up to 64), sometimes flush with an edge.
fn unit_box() -> impl Strategy<Value = Aabb> {
    let size = prop_oneof![
        6 => 0.0f32..4.0,
        2 => 4.0f32..16.0,
        1 => 16.0f32..=64.0,
    ];
    (size.clone(), size, 0.0f32..=1.0, 0.0f32..=1.0, 0..6u8).prop_map(|(w, h, fx, fy, edge)| {
        let mut x = fx * (W - w);
        let mut y = fy * (H - h);
        // Snap to the edges now and then: the cells there are clamped.
        match edge {
            0 => x = 0.0,
            1 => x = W - w,
            2 => y = 0.0,
            3 => y = H - h,
            _ => {}
        }
        Aabb::new(x, y, (x + w).min(W), (y + h).min(H))
    })
}

/// A query box, which may reach outside the world.
fn query_box() -> impl Strategy<Value = Aabb> {
    (
        -20.0f32..W + 20.0,
        -20.0f32..H + 20.0,
        0.0f32..80.0,
        0.0f32..80.0,
    )
        .prop_map(|(x, y, w, h)| Aabb::new(x, y, x + w, y + h))
}

#[derive(Clone, Debug)]
enum Op {
    Insert(Aabb),
    InsertWithId(u32, Aabb),
    /// The unit at this position among those present (modulo their number).
    Remove(usize),
    Move(usize, Aabb),
    /// Moves by a small step, mostly staying in the same cell.
    Nudge(usize, f32, f32),
    /// Moves every unit at once (`update_all`): each by its own step, from this seed, up to
    /// this far; a unit whose step would leave the world keeps its box.
    MoveAll(u64, f32),
    Cleanup,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => unit_box().prop_map(Op::Insert),
        2 => (0u32..400, unit_box()).prop_map(|(i, b)| Op::InsertWithId(i, b)),
        2 => any::<usize>().prop_map(Op::Remove),
        3 => (any::<usize>(), unit_box()).prop_map(|(i, b)| Op::Move(i, b)),
        4 => (any::<usize>(), -2.0f32..2.0, -2.0f32..2.0).prop_map(|(i, dx, dy)| Op::Nudge(i, dx, dy)),
        1 => (any::<u64>(), prop::sample::select(vec![0.5f32, 4.0, 60.0])).prop_map(|(seed, reach)| Op::MoveAll(seed, reach)),
        1 => Just(Op::Cleanup),
    ]
}

#[derive(Clone, Debug)]
enum Query {
    Box(Aabb),
    Circle(Circle),
    Nearest(f32, f32, f32, usize),
}

fn query() -> impl Strategy<Value = Query> {
    prop_oneof![
        query_box().prop_map(Query::Box),
        (-10.0f32..W + 10.0, -10.0f32..H + 10.0, 0.0f32..50.0)
            .prop_map(|(x, y, r)| Query::Circle(Circle::new(x, y, r))),
        (
            -10.0f32..W + 10.0,
            -10.0f32..H + 10.0,
            0.0f32..50.0,
            0usize..12
        )
            .prop_map(|(x, y, r, k)| Query::Nearest(x, y, r, k)),
    ]
}

/// Which layout, with which cell sizes.
#[derive(Clone, Copy, Debug)]
enum Which {
    Tree(f32),
    Grid(f32, u32),
}

fn which() -> impl Strategy<Value = Which> {
    prop_oneof![
        prop::sample::select(vec![0.5f32, 3.0, 8.0, 50.0, 400.0]).prop_map(Which::Tree),
        (
            prop::sample::select(vec![0.7f32, 3.0, 8.0, 37.0, 400.0]),
            1u32..6
        )
            .prop_map(|(c, t)| Which::Grid(c, t)),
    ]
}

type Model = BTreeMap<UnitId, Aabb>;

/// What a query answers, brute force: sorted ids (and distances for `Nearest`).
fn brute(model: &Model, q: &Query) -> Vec<(UnitId, f32)> {
    match *q {
        Query::Box(area) => model
            .iter()
            .filter(|(_, b)| b.intersects(&area))
            .map(|(&id, _)| (id, 0.0))
            .collect(),
        Query::Circle(c) => {
            // Independent of `Circle::intersects`: clamp the centre into the box, in f64.
            model
                .iter()
                .filter(|(_, b)| {
                    let dx = f64::from(c.x.clamp(b.min_x, b.max_x)) - f64::from(c.x);
                    let dy = f64::from(c.y.clamp(b.min_y, b.max_y)) - f64::from(c.y);
                    dx * dx + dy * dy <= f64::from(c.radius) * f64::from(c.radius)
                })
                .map(|(&id, _)| (id, 0.0))
                .collect()
        }
        Query::Nearest(x, y, r, k) => {
            let mut all: Vec<(UnitId, f32)> = model
                .iter()
                .map(|(&id, b)| (id, b.distance_squared_to(x, y)))
                .filter(|&(_, d2)| d2 <= r * r)
                .collect();
            all.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            all.truncate(k);
            all.into_iter().map(|(id, d2)| (id, d2.sqrt())).collect()
        }
    }
}

fn answer<L: Layout>(index: &UnitIndex<L>, q: &Query) -> Vec<(UnitId, f32)> {
    let mut found = Vec::new();
    match *q {
        Query::Box(area) => index.query_box(area, &mut found).unwrap(),
        Query::Circle(c) => index.query_circle(c, &mut found).unwrap(),
        Query::Nearest(x, y, r, k) => {
            let mut nearest = Vec::new();
            index.nearest_within(x, y, r, k, &mut nearest).unwrap();
            return nearest;
        }
    }
    found.sort();
    found.into_iter().map(|id| (id, 0.0)).collect()
}

fn brute_pairs(model: &Model) -> Vec<(UnitId, UnitId)> {
    let units: Vec<_> = model.iter().collect();
    let mut pairs = Vec::new();
    for (i, (&a, ba)) in units.iter().enumerate() {
        for (&b, bb) in &units[i + 1..] {
            if ba.intersects(bb) {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

fn pairs<L: Layout>(index: &UnitIndex<L>) -> Vec<(UnitId, UnitId)> {
    let mut pairs = Vec::new();
    index.for_each_pair(|a, b| pairs.push((a.min(b), a.max(b))));
    pairs.sort();
    pairs
}

/// The index holds exactly the model's units, each once, with its box.
fn check_contents<L: Layout>(index: &UnitIndex<L>, model: &Model) -> Result<(), TestCaseError> {
    prop_assert_eq!(index.len(), model.len());
    let mut held: Vec<_> = index.iter().collect();
    held.sort_by_key(|p| p.0);
    let expected: Vec<_> = model.iter().map(|(&id, &b)| (id, b)).collect();
    prop_assert_eq!(held, expected);
    for (&id, &b) in model {
        prop_assert_eq!(index.get(id), Some(b));
    }
    Ok(())
}

fn check_queries<L: Layout>(
    index: &UnitIndex<L>,
    model: &Model,
    queries: &[Query],
) -> Result<(), TestCaseError> {
    check_contents(index, model)?;
    for q in queries {
        prop_assert_eq!(answer(index, q), brute(model, q), "query {:?}", q);
    }
    prop_assert_eq!(pairs(index), brute_pairs(model));
    Ok(())
}

/// Where `Op::MoveAll(seed, reach)` takes the unit `id` at `b`: a step of up to `reach` on
/// each axis, picked by hashing the seed and the id (so it does not depend on the order in
/// which the index visits its units), or `b` itself when the step would leave the world.
fn moved_by_seed(seed: u64, reach: f32, id: UnitId, b: &Aabb) -> Aabb {
    let mut h = seed ^ (id.index() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut next = || {
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^= h >> 29;
        ((h >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 2.0 * reach
    };
    let (dx, dy) = (next(), next());
    let moved = Aabb::new(b.min_x + dx, b.min_y + dy, b.max_x + dx, b.max_y + dy);
    let inside = moved.min_x >= 0.0 && moved.min_y >= 0.0 && moved.max_x <= W && moved.max_y <= H;
    if inside {
        moved
    } else {
        *b
    }
}

/// Applies `ops` to the index and the model alike, checking every answer at the end and
/// midway; then cleanup and a bulk rebuild must answer the same.
fn run<L: Layout + Clone>(layout: L, ops: &[Op], queries: &[Query]) -> Result<(), TestCaseError> {
    let mut index = UnitIndex::new(layout.clone()).unwrap();
    let mut model = Model::new();
    let pick = |model: &Model, i: usize| model.keys().nth(i % model.len().max(1)).copied();
    for (step, op) in ops.iter().enumerate() {
        match op {
            Op::Insert(b) => {
                let id = index.insert(*b).unwrap();
                prop_assert!(model.insert(id, *b).is_none(), "{} handed out twice", id);
            }
            Op::InsertWithId(i, b) => {
                let id = UnitId::new(*i);
                let result = index.insert_with_id(id, *b);
                match model.entry(id) {
                    std::collections::btree_map::Entry::Occupied(_) => {
                        prop_assert_eq!(result, Err(UnitError::DuplicateId { id }));
                    }
                    std::collections::btree_map::Entry::Vacant(slot) => {
                        prop_assert_eq!(result, Ok(()));
                        slot.insert(*b);
                    }
                }
            }
            Op::Remove(i) => {
                if let Some(id) = pick(&model, *i) {
                    prop_assert_eq!(index.remove(id), Ok(model.remove(&id).unwrap()));
                    prop_assert_eq!(index.remove(id), Err(UnitError::UnknownId { id }));
                }
            }
            Op::Move(i, b) => {
                if let Some(id) = pick(&model, *i) {
                    index.update(id, *b).unwrap();
                    model.insert(id, *b);
                }
            }
            Op::Nudge(i, dx, dy) => {
                if let Some(id) = pick(&model, *i) {
                    let b = model[&id];
                    let dx = dx.clamp(-b.min_x, W - b.max_x);
                    let dy = dy.clamp(-b.min_y, H - b.max_y);
                    let moved = Aabb::new(b.min_x + dx, b.min_y + dy, b.max_x + dx, b.max_y + dy);
                    if moved.min_x >= 0.0
                        && moved.min_y >= 0.0
                        && moved.max_x <= W
                        && moved.max_y <= H
                    {
                        index.update(id, moved).unwrap();
                        model.insert(id, moved);
                    }
                }
            }
            Op::MoveAll(seed, reach) => {
                let mut visited = Vec::new();
                index
                    .update_all(|id, b| {
                        visited.push(id);
                        moved_by_seed(*seed, *reach, id, b)
                    })
                    .unwrap();
                visited.sort();
                prop_assert_eq!(visited, model.keys().copied().collect::<Vec<_>>());
                for (id, b) in model.iter_mut() {
                    *b = moved_by_seed(*seed, *reach, *id, b);
                }
            }
            Op::Cleanup => index.cleanup(),
        }
        if step == ops.len() / 2 {
            check_queries(&index, &model, queries)?;
        }
    }
    check_queries(&index, &model, queries)?;

    // Cleanup changes no answer.
    index.cleanup();
    check_queries(&index, &model, queries)?;

    // A bulk rebuild, from the units in any order, answers as the incremental index.
    let mut units: Vec<_> = model.iter().map(|(&id, &b)| (id, b)).collect();
    units.reverse();
    let mut rebuilt = UnitIndex::new(layout).unwrap();
    rebuilt.rebuild(&units).unwrap();
    check_queries(&rebuilt, &model, queries)?;
    // And the rebuilt index carries on like any other: move everything once.
    for (id, b) in &units {
        let moved = Aabb::new(b.min_x * 0.5, b.min_y * 0.5, b.max_x * 0.5, b.max_y * 0.5);
        rebuilt.update(*id, moved).unwrap();
        model.insert(*id, moved);
    }
    check_queries(&rebuilt, &model, queries)?;
    // And so does `update_all`: everything moved back at once.
    rebuilt
        .update_all(|_, b| Aabb::new(b.min_x * 2.0, b.min_y * 2.0, b.max_x * 2.0, b.max_y * 2.0))
        .unwrap();
    for b in model.values_mut() {
        *b = Aabb::new(b.min_x * 2.0, b.min_y * 2.0, b.max_x * 2.0, b.max_y * 2.0);
    }
    check_queries(&rebuilt, &model, queries)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn queries_match_brute_force(
        which in which(),
        ops in prop::collection::vec(op(), 1..250),
        queries in prop::collection::vec(query(), 1..25),
    ) {
        match which {
            Which::Tree(finest) => run(LooseQuadtree::new(W, H).with_finest_cell(finest), &ops, &queries)?,
            Which::Grid(cell, tight) => run(LooseGrid::new(W, H).with_cell(cell).with_tight_factor(tight), &ops, &queries)?,
        }
    }

    /// Many units in a small world: long cell lists, crowded pairs.
    #[test]
    fn crowded_world_matches_brute_force(
        which in which(),
        boxes in prop::collection::vec(unit_box(), 200..600),
        moves in prop::collection::vec((any::<usize>(), -3.0f32..3.0, -3.0f32..3.0), 0..600),
        sweeps in prop::collection::vec(any::<u64>(), 0..4),
        queries in prop::collection::vec(query(), 1..10),
    ) {
        let ops: Vec<Op> = boxes
            .into_iter()
            .map(Op::Insert)
            .chain(moves.into_iter().map(|(i, dx, dy)| Op::Nudge(i, dx, dy)))
            .chain(sweeps.into_iter().map(|seed| Op::MoveAll(seed, 3.0)))
            .collect();
        match which {
            Which::Tree(finest) => run(LooseQuadtree::new(W, H).with_finest_cell(finest), &ops, &queries)?,
            Which::Grid(cell, tight) => run(LooseGrid::new(W, H).with_cell(cell).with_tight_factor(tight), &ops, &queries)?,
        }
    }
}

/// Handed-out ids fill the gaps below a caller's id, freed ids come back, and churning a
/// caller's ids does not grow the index.
#[test]
fn handed_out_ids_fill_gaps_and_come_back() {
    let mut index = UnitIndex::new(LooseQuadtree::new(W, H)).unwrap();
    let b = Aabb::new(1.0, 1.0, 2.0, 2.0);
    index.insert_with_id(UnitId::new(3), b).unwrap();
    let ids: Vec<_> = (0..4).map(|_| index.insert(b).unwrap().index()).collect();
    assert_eq!(ids, [0, 1, 2, 4]);
    index.remove(UnitId::new(1)).unwrap();
    assert_eq!(index.insert(b).unwrap(), UnitId::new(1));
    // Removing and re-inserting a caller's id many times must not grow the index.
    for _ in 0..10 {
        for i in 0..5 {
            index.remove(UnitId::new(i)).unwrap();
            index.insert_with_id(UnitId::new(i), b).unwrap();
        }
    }
    let before = index.memory_bytes();
    for _ in 0..10_000 {
        for i in 0..5 {
            index.remove(UnitId::new(i)).unwrap();
            index.insert_with_id(UnitId::new(i), b).unwrap();
        }
    }
    assert_eq!(index.memory_bytes(), before);
}

/// `update_all` given a bad box stops there: the units visited before it have moved, the
/// rest have not, and the index answers as brute force over what it now holds.
fn update_all_stops_at_a_bad_box<L: Layout>(layout: L) {
    let mut index = UnitIndex::new(layout).unwrap();
    let mut model = Model::new();
    for i in 0..300u32 {
        let (x, y) = ((i * 37 % 190) as f32, (i * 53 % 140) as f32);
        let b = Aabb::new(x, y, x + 1.0 + (i % 7) as f32, y + 1.0 + (i % 5) as f32);
        model.insert(index.insert(b).unwrap(), b);
    }
    let shift = |b: &Aabb| Aabb::new(b.min_x * 0.5, b.min_y * 0.5, b.max_x * 0.5, b.max_y * 0.5);
    let bad_id = UnitId::new(150);
    let outside = Aabb::new(W - 1.0, 0.0, W + 1.0, 1.0);
    let mut order = Vec::new();
    let result = index.update_all(|id, b| {
        order.push(id);
        if id == bad_id {
            outside
        } else {
            shift(b)
        }
    });
    assert_eq!(
        result,
        Err(UnitError::OutsideWorld {
            aabb: outside,
            width: W,
            height: H
        })
    );
    let bad_at = order.iter().position(|&id| id == bad_id).unwrap();
    for &id in &order[..bad_at] {
        let moved = shift(&model[&id]);
        model.insert(id, moved);
    }
    let queries: Vec<Query> = (0..20)
        .map(|i| {
            Query::Box(Aabb::new(
                i as f32 * 9.0,
                i as f32 * 6.0,
                i as f32 * 9.0 + 30.0,
                i as f32 * 6.0 + 25.0,
            ))
        })
        .collect();
    check_queries(&index, &model, &queries).unwrap();
}

#[test]
fn update_all_stops_at_a_bad_box_on_both_layouts() {
    update_all_stops_at_a_bad_box(LooseQuadtree::new(W, H).with_finest_cell(4.0));
    update_all_stops_at_a_bad_box(LooseGrid::new(W, H).with_cell(4.0));
}

fn check_errors<L: Layout>(layout: L) {
    let mut index = UnitIndex::new(layout).unwrap();
    let ok = Aabb::new(1.0, 1.0, 2.0, 2.0);
    let id = index.insert(ok).unwrap();

    // NaN is not equal to itself: match on it.
    assert!(matches!(
        index.insert(Aabb::new(f32::NAN, 1.0, 2.0, 2.0)),
        Err(UnitError::NotFinite { what: "min_x", value }) if value.is_nan()
    ));
    assert_eq!(
        index.insert(Aabb::new(1.0, 1.0, 2.0, f32::INFINITY)),
        Err(UnitError::NotFinite {
            what: "max_y",
            value: f32::INFINITY
        })
    );
    let inverted = Aabb::new(5.0, 1.0, 2.0, 2.0);
    assert_eq!(
        index.insert(inverted),
        Err(UnitError::NegativeSize { aabb: inverted })
    );
    let outside = Aabb::new(-0.5, 1.0, 2.0, 2.0);
    assert_eq!(
        index.insert(outside),
        Err(UnitError::OutsideWorld {
            aabb: outside,
            width: W,
            height: H
        })
    );
    let beyond = Aabb::new(W - 1.0, 1.0, W + 0.001, 2.0);
    assert!(matches!(
        index.update(id, beyond),
        Err(UnitError::OutsideWorld { .. })
    ));
    assert_eq!(index.get(id), Some(ok), "a refused move changes nothing");

    let ghost = UnitId::new(77);
    assert_eq!(index.remove(ghost), Err(UnitError::UnknownId { id: ghost }));
    assert_eq!(
        index.update(ghost, ok),
        Err(UnitError::UnknownId { id: ghost })
    );
    assert_eq!(
        index.insert_with_id(id, ok),
        Err(UnitError::DuplicateId { id })
    );
    let huge = UnitId::new(MAX_UNIT_ID + 1);
    assert_eq!(
        index.insert_with_id(huge, ok),
        Err(UnitError::IdTooLarge {
            id: huge,
            max: MAX_UNIT_ID
        })
    );

    let mut found = Vec::new();
    assert_eq!(
        index.query_circle(Circle::new(1.0, 1.0, -1.0), &mut found),
        Err(UnitError::BadRadius { radius: -1.0 })
    );
    assert!(matches!(
        index.query_circle(Circle::new(1.0, 1.0, f32::NAN), &mut found),
        Err(UnitError::BadRadius { .. })
    ));
    assert_eq!(
        index.query_circle(Circle::new(f32::NEG_INFINITY, 1.0, 1.0), &mut found),
        Err(UnitError::NotFinite {
            what: "x",
            value: f32::NEG_INFINITY
        })
    );
    assert_eq!(
        index.query_box(inverted, &mut found),
        Err(UnitError::NegativeSize { aabb: inverted })
    );
    let mut nearest = Vec::new();
    assert_eq!(
        index.nearest_within(1.0, f32::INFINITY, 3.0, 2, &mut nearest),
        Err(UnitError::NotFinite {
            what: "y",
            value: f32::INFINITY
        })
    );
    assert_eq!(
        index.nearest_within(1.0, 1.0, f32::INFINITY, 2, &mut nearest),
        Err(UnitError::BadRadius {
            radius: f32::INFINITY
        })
    );

    // A rebuild with a bad box changes nothing; with a repeated id it leaves the index empty.
    assert_eq!(
        index.rebuild(&[(UnitId::new(0), ok), (UnitId::new(1), outside)]),
        Err(UnitError::OutsideWorld {
            aabb: outside,
            width: W,
            height: H
        })
    );
    assert_eq!(index.get(id), Some(ok));
    let twice = UnitId::new(5);
    assert_eq!(
        index.rebuild(&[(twice, ok), (UnitId::new(900), ok), (twice, ok)]),
        Err(UnitError::DuplicateId { id: twice })
    );
    assert!(index.is_empty());
    assert_eq!(index.iter().count(), 0);
    // And it is still usable.
    index.rebuild(&[(twice, ok)]).unwrap();
    assert_eq!(index.get(twice), Some(ok));

    // Messages name the value.
    let e = index
        .insert(Aabb::new(0.0, 0.0, 1.0, f32::NAN))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "max_y is NaN: coordinates and sizes must be finite"
    );
    assert!(UnitError::OutsideWorld {
        aabb: outside,
        width: W,
        height: H
    }
    .to_string()
    .contains("-0.5"));
}

#[test]
fn bad_input_gets_typed_errors() {
    check_errors(LooseQuadtree::new(W, H));
    check_errors(LooseGrid::new(W, H).with_cell(3.0));
}

#[test]
fn bad_layouts_get_typed_errors() {
    assert_eq!(
        UnitIndex::new(LooseQuadtree::new(0.0, 10.0)).err(),
        Some(UnitError::BadWorld {
            width: 0.0,
            height: 10.0
        })
    );
    assert!(matches!(
        UnitIndex::new(LooseGrid::new(f32::INFINITY, 10.0)).err(),
        Some(UnitError::BadWorld { .. })
    ));
    for side in [0.0, -1.0, f32::NAN, 1e-6] {
        assert!(
            matches!(
                UnitIndex::new(LooseGrid::new(1e4, 1e4).with_cell(side)).err(),
                Some(UnitError::BadCellSize { .. })
            ),
            "loose grid, cell {side}"
        );
        assert!(
            matches!(
                UnitIndex::new(LooseQuadtree::new(1e4, 1e4).with_finest_cell(side)).err(),
                Some(UnitError::BadCellSize { .. })
            ),
            "loose quadtree, cell {side}"
        );
    }
}

/// A tiny deterministic generator for the scripted tests below: uniform in `[0, 1)`.
struct Uniform(u64);

impl Uniform {
    fn next(&mut self) -> f32 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// The long world of issue 26: 2²⁴ × 1,000, loose cells of 64 (4,194,304 of them) and tight
/// cells of 256 (262,144).
const LONG: f32 = 16_777_216.0;
const TALL: f32 = 1000.0;
const LONG_LOOSE_CELLS: usize = (LONG as usize / 64) * 16;
const LONG_TIGHT_CELLS: usize = (LONG as usize / 256) * 4;

/// The documented bound on a [`LooseGrid`] index's memory (its docs, "Memory"): per loose
/// cell its bounds, list head and sort count; per tight cell a list head; for each unit it
/// has held at once since the last cleanup a slot, a free-list entry and at most
/// [`WIDE_SPAN`] list nodes or one wide entry, each buffer at most twice its need; and the
/// id table, as long as the largest id.
fn loose_grid_bound(loose_cells: usize, tight_cells: usize, units: usize, ids: usize) -> usize {
    let per_unit = 32 + 4 + 8 * WIDE_SPAN as usize + 4;
    (16 + 4 + 4) * (loose_cells + 1) + 4 * tight_cells + 2 * per_unit * units + 2 * 4 * ids
}

/// A box in the long world: widths log-uniform from 1 to the world's whole length.
fn long_world_box(rng: &mut Uniform) -> Aabb {
    let w = 2f32.powf(24.0 * rng.next()).min(LONG);
    let h = 2f32.powf(10.0 * rng.next()).min(TALL);
    let x = rng.next() * (LONG - w);
    let y = rng.next() * (TALL - h);
    Aabb::new(x, y, (x + w).min(LONG), (y + h).min(TALL))
}

/// Issue 26 §3: in the long world, 80 units up to world-wide moving about made a
/// `LooseGrid` index hold 337 MiB after 2,000 moves (every tight cell a wide unit's cell
/// ever reached kept an entry until a cleanup); now it stays within the documented bound,
/// move after move, and the pairs stay those of brute force.
#[test]
fn long_world_loose_grid_memory_stays_bounded() {
    let mut index = UnitIndex::new(LooseGrid::new(LONG, TALL).with_cell(64.0)).unwrap();
    let mut rng = Uniform(0x9E37_79B9_7F4A_7C15);
    let mut model = Model::new();
    for _ in 0..80 {
        let b = long_world_box(&mut rng);
        model.insert(index.insert(b).unwrap(), b);
    }
    let bound = loose_grid_bound(LONG_LOOSE_CELLS, LONG_TIGHT_CELLS, 80, 80);
    for step in 1..=2000 {
        let id = UnitId::new((rng.next() * 80.0) as u32);
        let b = if step % 2 == 0 {
            long_world_box(&mut rng)
        } else {
            // A short step, mostly within the unit's cell.
            let old = model[&id];
            let dx = (rng.next() - 0.5) * 64.0;
            let dx = dx.clamp(-old.min_x, LONG - old.max_x);
            Aabb::new(old.min_x + dx, old.min_y, old.max_x + dx, old.max_y)
        };
        index.update(id, b).unwrap();
        model.insert(id, b);
        if step % 100 == 0 {
            let held = index.memory_bytes();
            assert!(
                held <= bound,
                "{held} bytes after {step} moves, bound {bound}"
            );
        }
    }
    assert_eq!(pairs(&index), brute_pairs(&model));
    index.cleanup();
    assert!(index.memory_bytes() <= bound);
    assert_eq!(pairs(&index), brute_pairs(&model));
}

/// Issue 26 §3: `cleanup` gives back what a crowd that has left no longer needs. 3,000
/// units come and all but 80 go: after a cleanup the index holds no more than the bound
/// for 80 units (before, it kept the slots and list nodes of 3,000).
#[test]
fn loose_grid_cleanup_gives_memory_back() {
    let mut index = UnitIndex::new(LooseGrid::new(LONG, TALL).with_cell(64.0)).unwrap();
    let mut rng = Uniform(0xD1B5_4A32_D192_ED03);
    let mut ids = Vec::new();
    for _ in 0..3000 {
        let (x, y) = (rng.next() * (LONG - 8.0), rng.next() * (TALL - 8.0));
        ids.push(index.insert(Aabb::new(x, y, x + 8.0, y + 8.0)).unwrap());
    }
    for id in ids.drain(80..) {
        index.remove(id).unwrap();
    }
    index.cleanup();
    let bound = loose_grid_bound(LONG_LOOSE_CELLS, LONG_TIGHT_CELLS, 80, 3000);
    let held = index.memory_bytes();
    assert!(
        held <= bound,
        "{held} bytes for 80 units after cleanup, bound {bound}"
    );
    assert_eq!(index.len(), 80);
}

/// Armies in gaussian blobs, as the bench's clustered scene: dense cells, many pairs per
/// cell. Every pair and every query equals brute force, on both layouts.
#[test]
fn clustered_armies_match_brute_force() {
    let mut rng = Uniform(0x5EED);
    let mut units = Vec::new();
    for i in 0..3000u32 {
        let (cx, cy) = [(40.0, 40.0), (150.0, 100.0), (100.0, 75.0)][i as usize % 3];
        // Box–Muller, σ = 8.
        let r = (-2.0 * rng.next().max(1e-7).ln()).sqrt() * 8.0;
        let t = rng.next() * std::f32::consts::TAU;
        let (hw, hh) = (0.5 + 1.5 * rng.next(), 0.5 + 1.5 * rng.next());
        let x = (cx + r * t.cos()).clamp(hw, W - hw);
        let y = (cy + r * t.sin()).clamp(hh, H - hh);
        units.push((UnitId::new(i), Aabb::from_centre(x, y, hw, hh)));
    }
    let model: Model = units.iter().copied().collect();
    let queries = [
        Query::Box(Aabb::new(30.0, 30.0, 50.0, 45.0)),
        Query::Circle(Circle::new(150.0, 100.0, 6.0)),
        Query::Nearest(100.0, 75.0, 5.0, 10),
    ];
    for finest in [2.0, 8.0, 30.0] {
        let mut index = UnitIndex::new(LooseQuadtree::new(W, H).with_finest_cell(finest)).unwrap();
        index.rebuild(&units).unwrap();
        check_queries(&index, &model, &queries).unwrap();
    }
    for (cell, tight) in [(2.0, 4), (8.0, 2)] {
        let layout = LooseGrid::new(W, H)
            .with_cell(cell)
            .with_tight_factor(tight);
        let mut index = UnitIndex::new(layout).unwrap();
        for (id, b) in &units {
            index.insert_with_id(*id, *b).unwrap();
        }
        check_queries(&index, &model, &queries).unwrap();
    }
}
