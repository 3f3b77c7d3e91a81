//! One field's buffers used again and again (as the service's spare fields are), across
//! goals, edits of the map and uses of the field on a map edited since it started, against
//! a field started in fresh buffers and an independent Dijkstra over the grid.

use super::{
    bend, heading, straight_is_clear, Buckets, DiagonalRays, HpaMap, SubgoalField, MAX_USES,
};
use crate::flow::tests::{grid, oracle};
use crate::geom::{Cell, Direction, Rect};
use crate::grid::movement::octile;
use crate::grid::Grid;
use crate::hpa::Config;
use proptest::prelude::*;

/// A draw below `n` from `state` (the high bits of a 64-bit linear congruential
/// generator).
fn below(state: &mut u64, n: u64) -> u64 {
    *state =
        (state.wrapping_mul(6_364_136_223_846_793_005)).wrapping_add(1_442_695_040_888_963_407);
    (*state >> 33) % n.max(1)
}

/// Checks that `path` is a legal walk on `grid` from `start` into `goal` whose length is
/// the optimum `dist` (Dijkstra's).
fn check_path(
    grid: &Grid,
    goal: Rect,
    start: Cell,
    dist: f64,
    path: &[Cell],
) -> Result<(), TestCaseError> {
    prop_assert_eq!(path.first(), Some(&start));
    let end = *path.last().expect("not empty");
    prop_assert!(
        goal.contains(end),
        "the path from {start} ends at {end}, off {goal:?}"
    );
    for s in path.windows(2) {
        let dir = Direction::between(s[0], s[1]);
        prop_assert!(
            dir.is_some_and(|d| grid.can_step(s[0], d)),
            "{} -> {}",
            s[0],
            s[1]
        );
    }
    let length: f64 = path.windows(2).map(|s| octile(s[0], s[1])).sum();
    prop_assert!(
        (length - dist).abs() < 1e-6,
        "from {start}: {length}, optimum {dist}"
    );
    Ok(())
}

/// Checks member `m`'s [`SubgoalField::route`] against its cells `path`: the same cells,
/// and the box worked out from the route's corner points is the cells' own smallest box
/// (what the service's sweep after edits relies on to skip the paths an edit cannot
/// touch).
fn check_route(
    map: &HpaMap,
    field: &SubgoalField,
    m: usize,
    path: &[Cell],
) -> Result<(), TestCaseError> {
    let (route, boxed, _) = field.route(map, m).expect("the member is answered");
    prop_assert_eq!(&route.cells[..], path);
    prop_assert_eq!(boxed, Rect::around(path));
    Ok(())
}

/// The answer of a new member `start` of `field`: grown as far as it needs while the
/// field is current, else vouched for or searched for on the map as it is (`freed`: the
/// zones opened since the field started). Searches run `slice` units at a time.
fn answer(
    map: &HpaMap,
    field: &mut SubgoalField,
    start: Cell,
    slice: usize,
    freed: &[Rect],
) -> Option<Vec<Cell>> {
    let (m, _) = field.join(map, start);
    if field.is_current(map) {
        while !field.is_answered(map, m) {
            assert!(
                field.step(map, slice) > 0,
                "a field stopped short of a member"
            );
        }
        return field.path(map, m);
    }
    if let (Some(path), _) = field.stale_path(map, m, freed) {
        return Some(path);
    }
    loop {
        if let (_, Some(done)) = field.repair(map, m, slice, freed) {
            return done;
        }
    }
}

/// A free cell of `map` from which `goal` is reachable, if the draws find one.
fn reachable_start(rng: &mut u64, map: &HpaMap, truth: &[Option<f64>]) -> Option<(Cell, f64)> {
    let (w, h) = (map.grid.width(), map.grid.height());
    (0..50).find_map(|_| {
        let c = Cell::new(below(rng, w as u64) as u32, below(rng, h as u64) as u32);
        let d = truth[(c.y * w + c.x) as usize]?;
        map.grid.is_free(c).then_some((c, d))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// One field's buffers serve goal after goal on a map edited between them (subgoals
    /// added, vacated and their IDs reused, the graph growing), each use also answering
    /// members after a further edit (vouched-for answers and repair searches), and once
    /// through the wipe after [`MAX_USES`] uses: every answer equals a fresh field's,
    /// and is a legal path of Dijkstra's length on the map as it stands.
    #[test]
    fn a_spare_field_answers_as_a_fresh_one(seed in any::<u64>(), slice in 1usize..60) {
        let (w, h) = (30, 22);
        let mut map = HpaMap::new(grid(seed, w, h), Config::exact().with_subgoals(true)).unwrap();
        prop_assume!(map.subgoals.is_some());
        let mut rng = seed;
        let mut spare: Vec<SubgoalField> = Vec::new();
        let edit = |map: &mut HpaMap, rng: &mut u64| -> Vec<Rect> {
            let (x, y) = (below(rng, w as u64 - 3) as u32, below(rng, h as u64 - 3) as u32);
            let area = Rect::new(x, y, x + below(rng, 3) as u32, y + below(rng, 3) as u32);
            let block = below(rng, 2) == 0;
            map.set_blocked(area, block).unwrap();
            // The positions a freeing edit opened (agents of size 1), as the service
            // passes them.
            if block {
                Vec::new()
            } else {
                vec![Rect::new(
                    area.x1.saturating_sub(1),
                    area.y1.saturating_sub(1),
                    (area.x2 + 1).min(w - 1),
                    (area.y2 + 1).min(h - 1),
                )]
            }
        };
        for round in 0..6 {
            if round > 0 {
                edit(&mut map, &mut rng);
            }
            let (x, y) = (below(&mut rng, w as u64 - 2) as u32, below(&mut rng, h as u64 - 2) as u32);
            let goal = Rect::new(x, y, x + below(&mut rng, 3) as u32, y + below(&mut rng, 3) as u32);
            let (mut used, _) = map.start_subgoal_field(goal, &mut spare).unwrap();
            let (mut fresh, _) = map.start_subgoal_field(goal, &mut Vec::new()).unwrap();
            let truth = oracle(&map.grid, goal);
            for _ in 0..1 + below(&mut rng, 6) {
                let Some((start, d)) = reachable_start(&mut rng, &map, &truth) else { continue };
                let a = answer(&map, &mut used, start, slice, &[]);
                let b = answer(&map, &mut fresh, start, slice, &[]);
                prop_assert_eq!(&a, &b, "round {}, from {}", round, start);
                check_path(&map.grid, goal, start, d, &a.expect("the goal is reachable"))?;
            }
            // The map changes under both fields: members that join now are answered from
            // what the fields learnt before the edit.
            let freed = edit(&mut map, &mut rng);
            let truth = oracle(&map.grid, goal);
            for _ in 0..1 + below(&mut rng, 4) {
                let Some((start, d)) = reachable_start(&mut rng, &map, &truth) else { continue };
                let a = answer(&map, &mut used, start, slice, &freed);
                let b = answer(&map, &mut fresh, start, slice, &freed);
                prop_assert_eq!(&a, &b, "round {}, after an edit, from {}", round, start);
                check_path(&map.grid, goal, start, d, &a.expect("the goal is reachable"))?;
            }
            if round == 2 {
                // The next start wipes the labels and counts the uses from 1 again.
                used.uses = MAX_USES;
            }
            spare.push(used);
        }
    }
}

proptest! {
    /// The direct line's walks (each diagonal from the start walked once, then straight
    /// legs) say what the plain line test says of both legs of every two-piece walk, asked
    /// in any order from one start on random grids with walls: it fails when a ray keeps
    /// its reach for another diagonal, stops one step short or goes one past.
    #[test]
    fn the_direct_lines_walks_equal_the_plain_line_test(
        walls in proptest::collection::vec((0u32..14, 0u32..14), 0..40),
        start in (0u32..14, 0u32..14),
        ends in proptest::collection::vec((0u32..14, 0u32..14), 1..12),
    ) {
        use crate::hpa::path::line_is_clear;
        let mut grid = Grid::new_free(14, 14);
        for w in walls {
            grid.set_blocked(Cell::from(w), true);
        }
        let start = Cell::from(start);
        let mut rays = DiagonalRays::new(start);
        for end in ends {
            let end = Cell::from(end);
            let corner = bend(start, end);
            prop_assert_eq!(rays.reaches(&grid, corner), line_is_clear(&grid, start, corner));
            prop_assert_eq!(
                straight_is_clear(&grid, corner, end),
                line_is_clear(&grid, corner, end)
            );
        }
        prop_assert!(heading(start, start).is_none());
    }
}

proptest! {
    /// The queue handing emptied lists on (`Buckets::spare`) pops what one list a bucket,
    /// each kept for good, would (the queue before it), entry by entry, with the same
    /// floor, across uses of its buffers: pushes at or above the lowest bucket, pops in
    /// between, a clear between uses. It fails when a list is handed on with its entries
    /// still in it, or when a bucket takes a spare over the entries it holds.
    #[test]
    fn buckets_that_hand_lists_on_pop_as_lists_kept_for_good(
        seed in any::<u64>(),
        uses in 1usize..4,
        ops in 1usize..400,
    ) {
        let mut rng = seed;
        let mut queue = Buckets::default();
        for _ in 0..uses {
            queue.clear();
            let mut lists: Vec<Vec<u32>> = Vec::new();
            let mut low = 0usize;
            for id in 0..ops as u32 {
                if below(&mut rng, 3) == 0 {
                    let expected = loop {
                        match lists.get_mut(low) {
                            None => break None,
                            Some(list) => match list.pop() {
                                Some(e) => break Some(e),
                                None => low += 1,
                            },
                        }
                    };
                    prop_assert_eq!(queue.pop(), expected);
                } else {
                    let d = low as f64 + below(&mut rng, 40 * 8) as f64 / 8.0;
                    queue.push(d, id);
                    let b = d as usize;
                    if b >= lists.len() {
                        lists.resize_with(b + 1, Vec::new);
                    }
                    lists[b].push(id);
                }
                let floor = (low..lists.len())
                    .find(|&b| !lists[b].is_empty())
                    .map_or(f64::INFINITY, |b| b as f64);
                prop_assert_eq!(queue.floor(), floor);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A field aimed at a group standing together (the box around a random cell), its
    /// members joining while the search is under way, some of them outside the box (the
    /// aim widens and the queue is keyed again, or the aim is dropped once the box grows
    /// past an army's), answered in a random order, and more after an edit of the map
    /// (answered from what the aimed search settled, or by repair searches), the buffers
    /// used again from goal to goal: every answer is a legal path of Dijkstra's length on
    /// the map as it stands.
    #[test]
    fn members_joining_an_aimed_field_get_dijkstras_lengths(
        seed in any::<u64>(),
        slice in 1usize..40,
    ) {
        let (w, h) = (40, 26);
        let mut map = HpaMap::new(grid(seed, w, h), Config::exact().with_subgoals(true)).unwrap();
        prop_assume!(map.subgoals.is_some());
        let mut rng = seed ^ 0x5eed;
        let mut spare: Vec<SubgoalField> = Vec::new();
        for round in 0..4 {
            if round > 0 {
                let (x, y) = (below(&mut rng, w as u64 - 3) as u32, below(&mut rng, h as u64 - 3) as u32);
                let area = Rect::new(x, y, x + below(&mut rng, 3) as u32, y + below(&mut rng, 3) as u32);
                map.set_blocked(area, below(&mut rng, 2) == 0).unwrap();
            }
            let (x, y) = (below(&mut rng, w as u64 - 2) as u32, below(&mut rng, h as u64 - 2) as u32);
            let goal = Rect::new(x, y, x + below(&mut rng, 2) as u32, y + below(&mut rng, 2) as u32);
            let (mut field, _) = map.start_subgoal_field(goal, &mut spare).unwrap();
            let truth = oracle(&map.grid, goal);
            // The army: cells within `r` of a random cell.
            let r = 1 + below(&mut rng, 4) as u32;
            let (cx, cy) = (below(&mut rng, w as u64) as u32, below(&mut rng, h as u64) as u32);
            let army = Rect::new(cx.saturating_sub(r), cy.saturating_sub(r), (cx + r).min(w - 1), (cy + r).min(h - 1));
            field.aim_at(&map, army);
            prop_assert!(field.aim.is_some(), "a box of side {} is an army", 2 * r + 1);
            let in_army = |rng: &mut u64| {
                (0..50).find_map(|_| {
                    let c = Cell::new(
                        army.x1 + below(rng, u64::from(army.width())) as u32,
                        army.y1 + below(rng, u64::from(army.height())) as u32,
                    );
                    let d = truth[(c.y * w + c.x) as usize]?;
                    map.grid.is_free(c).then_some((c, d))
                })
            };
            // Members waiting for their answer: (member, start, its distance).
            let mut waiting: Vec<(usize, Cell, f64)> = Vec::new();
            for _ in 0..2 + below(&mut rng, 8) {
                let joining = match below(&mut rng, 4) {
                    0 => reachable_start(&mut rng, &map, &truth),
                    _ => in_army(&mut rng),
                };
                let Some((start, d)) = joining else { continue };
                let (m, _) = field.join(&map, start);
                waiting.push((m, start, d));
                // The search goes on a little before the next one joins (or none).
                field.step(&map, below(&mut rng, 2 * slice as u64) as usize);
                if below(&mut rng, 3) == 0 {
                    let (m, start, d) = waiting.swap_remove(below(&mut rng, waiting.len() as u64) as usize);
                    while !field.is_answered(&map, m) {
                        prop_assert!(field.step(&map, slice) > 0, "a field stopped short of a member");
                    }
                    let path = field.path(&map, m).expect("the goal is reachable");
                    check_path(&map.grid, goal, start, d, &path)?;
                    check_route(&map, &field, m, &path)?;
                }
            }
            while !waiting.is_empty() {
                let (m, start, d) = waiting.swap_remove(below(&mut rng, waiting.len() as u64) as usize);
                while !field.is_answered(&map, m) {
                    prop_assert!(field.step(&map, slice) > 0, "a field stopped short of a member");
                }
                let path = field.path(&map, m).expect("the goal is reachable");
                check_path(&map.grid, goal, start, d, &path)?;
                check_route(&map, &field, m, &path)?;
            }
            // A building goes up: later members are answered from the aimed search's
            // labels on the new map (its radius bounds what it did not settle).
            let (x, y) = (below(&mut rng, w as u64 - 3) as u32, below(&mut rng, h as u64 - 3) as u32);
            map.set_blocked(Rect::new(x, y, x + below(&mut rng, 3) as u32, y + below(&mut rng, 3) as u32), true).unwrap();
            let truth = oracle(&map.grid, goal);
            for _ in 0..1 + below(&mut rng, 4) {
                let Some((start, d)) = reachable_start(&mut rng, &map, &truth) else { continue };
                let path = answer(&map, &mut field, start, slice, &[]);
                check_path(&map.grid, goal, start, d, &path.expect("the goal is reachable"))?;
            }
            spare.push(field);
        }
    }
}

/// A member's route is written from the member's side: its last hop, which the goal's
/// scan found (the seed `(4, 3)` walks diagonally to `(2, 1)`, then straight up to the
/// subgoal `(2, 0)`), is walked from `(2, 0)`, its diagonal steps first, bending at
/// `(4, 2)`, as `find_corners` writes the route; not as the seed's scan walked it (bending
/// at `(2, 1)`, the route before session 41). Writing the seed's hop from the seed fails
/// this.
#[test]
fn a_members_route_is_written_diagonal_first_from_its_side() {
    let grid = Grid::from_fn(5, 4, |x, y| (x, y) != (1, 1));
    let map = HpaMap::new(grid, Config::exact().with_subgoals(true)).unwrap();
    let graph = map.subgoals.as_ref().expect("an exact map with subgoals");
    let (start, goal) = (Cell::new(0, 0), Cell::new(4, 3));
    let (scanned, subgoal) = (Cell::new(2, 0), graph.id_of(Cell::new(2, 0)));
    assert!(
        graph
            .reached_ids(&map.grid, goal)
            .contains(&subgoal.expect("a subgoal")),
        "the goal's scan finds {scanned}"
    );
    let (mut field, _) = map
        .start_subgoal_field(Rect::new(4, 3, 4, 3), &mut Vec::new())
        .unwrap();
    let (m, _) = field.join(&map, start);
    while !field.is_answered(&map, m) {
        assert!(
            field.step(&map, 16) > 0,
            "a field stopped short of a member"
        );
    }
    let (route, _, _) = field.route(&map, m).expect("the goal is reachable");
    let cells = [(0, 0), (1, 0), (2, 0), (3, 1), (4, 2), (4, 3)].map(Cell::from);
    assert_eq!(route.cells, cells);
    assert_eq!(map.find_corners(start, goal).unwrap().cells(), cells);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every hop of every member's route (its start's tie, the chain of parents, the
    /// seed's tie, or its direct line), on random maps to random goals, is written as the
    /// walk from its end nearer the start that takes its diagonal steps first, and that
    /// walk is legal: every cell free, no corner cut (walked one cell at a time,
    /// `grid::diagonal_first_walk`; no scan, bend or line of the field's used). Writing a
    /// hop as the walk of the scan that found it, or straight steps first, fails this.
    #[test]
    fn every_hop_of_a_members_route_is_written_diagonal_first_from_its_side(
        (w, h, blocked) in crate::grid::arb_blocked_cells(2..24, 0.3),
        corner in (0u32..24, 0u32..24),
        size in (0u32..3, 0u32..3),
    ) {
        use crate::grid::diagonal_first_walk;
        let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
        let map = HpaMap::new(grid, Config::exact().with_subgoals(true)).unwrap();
        prop_assume!(map.subgoals.is_some());
        let graph = map.subgoals.as_ref().expect("checked above");
        let (x, y) = (corner.0 % w, corner.1 % h);
        let goal = Rect::new(x, y, (x + size.0).min(w - 1), (y + size.1).min(h - 1));
        let Some((mut field, _)) = map.start_subgoal_field(goal, &mut Vec::new()) else {
            return Ok(());
        };
        let truth = oracle(&map.grid, goal);
        for start in map.grid.free_cells().filter(|c| truth[(c.y * w + c.x) as usize].is_some()) {
            let (m, _) = field.join(&map, start);
            while !field.is_answered(&map, m) {
                prop_assert!(field.step(&map, 64) > 0, "a field stopped short of a member");
            }
            let waypoints: Vec<Cell> = field.waypoints(graph, m).expect("reachable").collect();
            let mut walked = vec![start];
            for hop in waypoints.windows(2) {
                let walk = diagonal_first_walk(&map.grid, hop[0], hop[1]);
                prop_assert!(walk.is_some(), "{} -> {}: the diagonal-first walk is illegal", hop[0], hop[1]);
                walked.extend_from_slice(&walk.expect("checked").0[1..]);
            }
            let (route, _, hops) = field.route(&map, m).expect("the member is answered");
            prop_assert_eq!(hops, waypoints.len() - 1);
            prop_assert_eq!(route.cells, walked, "from {}", start);
        }
    }
}

/// The answer of `start` as the service gets it from `field` (see `service::job`): from
/// the field's box when it stands strictly inside it and the box holds (the box's steps
/// `slice` units at a time, then its route, whose box is checked against its cells), as
/// the ring member it joined as when it stands on the ring, else as a member of its own
/// ([`answer`], with `freed` the zones opened since the field started). Also says whether
/// the box answered.
fn answer_as_the_service(
    map: &HpaMap,
    field: &mut SubgoalField,
    start: Cell,
    slice: usize,
    freed: &[Rect],
) -> Result<(Option<Vec<Cell>>, bool), TestCaseError> {
    if field.boxes(map, start) {
        loop {
            let (work, ready) = field.box_step(map, slice);
            if ready {
                break;
            }
            prop_assert!(work > 0, "a box's step did nothing");
        }
        // Every inner cell of the box, members or not, has its length (the ring cells'
        // are their members' answers, checked as members).
        let truth = oracle(&map.grid, field.goal);
        for (c, d) in field.box_lengths() {
            let inner = field.boxes(map, c);
            let optimum = truth[(c.y * map.grid.width() + c.x) as usize];
            if inner && map.grid.is_free(c) {
                prop_assert_eq!(d.is_finite(), optimum.is_some(), "{} in the box", c);
                if let Some(o) = optimum {
                    prop_assert!(
                        (d - o).abs() < 1e-6,
                        "{} in the box: {}, optimum {}",
                        c,
                        d,
                        o
                    );
                }
            }
        }
        let Some((path, bounds, _)) = field.box_route(map, start) else {
            return Ok((None, true));
        };
        prop_assert_eq!(bounds, Rect::around(&path.cells));
        return Ok((Some(path.cells), true));
    }
    if let Some(m) = field.ring_member(map, start) {
        while !field.is_answered(map, m) {
            prop_assert!(
                field.step(map, slice) > 0,
                "a field stopped short of a member"
            );
        }
        let path = field.path(map, m);
        if let Some(path) = &path {
            check_route(map, field, m, path)?;
        }
        return Ok((path, false));
    }
    Ok((answer(map, field, start, slice, freed), false))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A group standing together (2 to 60 free cells around a random one, breadth first)
    /// whose field takes its box on: its members answered in a random order, each as the
    /// service answers it (strictly inside the box: from the box's ring and one Dijkstra
    /// over the box; on the ring: as the ring member it joined as; else joined), with the
    /// box's steps and the search cut into slices of every size, the field aimed or not,
    /// goals outside the box and meeting it (the field refuses the box then), and an edit
    /// of the map between two answers in half the cases (a box answers only on the map it
    /// was worked out on: later members join as members of their own and are answered
    /// from what the field learnt, or by repair searches). Every answer is a legal path of
    /// Dijkstra's length on the map as it stands.
    #[test]
    fn members_inside_a_box_get_dijkstras_lengths(
        seed in any::<u64>(),
        slice in 1usize..40,
    ) {
        let (w, h) = (40, 26);
        let mut map = HpaMap::new(grid(seed, w, h), Config::exact().with_subgoals(true)).unwrap();
        prop_assume!(map.subgoals.is_some());
        let mut rng = seed ^ 0xb0c5;
        let mut spare: Vec<SubgoalField> = Vec::new();
        for _ in 0..3 {
            let size = 2 + below(&mut rng, 59) as usize;
            let truth = oracle(&map.grid, Rect::new(0, 0, w - 1, h - 1));
            // The group: the free cells nearest a random free cell, breadth first.
            let Some((centre, _)) = reachable_start(&mut rng, &map, &truth) else { continue };
            let mut group = vec![centre];
            let mut seen = std::collections::HashSet::from([centre]);
            let mut i = 0;
            while group.len() < size && i < group.len() {
                for (next, _) in map.grid.successors(group[i]) {
                    if group.len() < size && seen.insert(next) {
                        group.push(next);
                    }
                }
                i += 1;
            }
            let around = Rect::around(&group);
            // The goal: anywhere, or on a cell of the group (it meets the box).
            let (x, y) = match below(&mut rng, 4) {
                0 => {
                    let c = group[below(&mut rng, group.len() as u64) as usize];
                    (c.x.min(w - 2), c.y.min(h - 2))
                }
                _ => (below(&mut rng, w as u64 - 2) as u32, below(&mut rng, h as u64 - 2) as u32),
            };
            let goal = Rect::new(x, y, x + below(&mut rng, 2) as u32, y + below(&mut rng, 2) as u32);
            let (mut field, _) = map.start_subgoal_field(goal, &mut spare).unwrap();
            let mut truth = oracle(&map.grid, goal);
            if below(&mut rng, 4) != 0 {
                field.aim_at(&map, around);
            }
            let (took, _) = field.box_in(&map, around);
            prop_assert_eq!(
                took,
                !goal.intersects(&around) && around.width() >= 3 && around.height() >= 3
            );
            let mut freed: Vec<Rect> = Vec::new();
            let edit_after = match below(&mut rng, 2) {
                0 => below(&mut rng, group.len() as u64) as usize,
                _ => usize::MAX,
            };
            for k in 0..group.len() {
                if k == edit_after {
                    let (x, y) = (below(&mut rng, w as u64 - 3) as u32, below(&mut rng, h as u64 - 3) as u32);
                    let area = Rect::new(x, y, x + below(&mut rng, 3) as u32, y + below(&mut rng, 3) as u32);
                    let block = below(&mut rng, 2) == 0;
                    map.set_blocked(area, block).unwrap();
                    if !block {
                        freed.push(Rect::new(
                            area.x1.saturating_sub(1),
                            area.y1.saturating_sub(1),
                            (area.x2 + 1).min(w - 1),
                            (area.y2 + 1).min(h - 1),
                        ));
                    }
                    truth = oracle(&map.grid, goal);
                }
                let start = group.swap_remove(below(&mut rng, group.len() as u64) as usize);
                let Some(d) = truth[(start.y * w + start.x) as usize] else { continue };
                if !map.grid.is_free(start) {
                    continue;
                }
                let (path, _) = answer_as_the_service(&map, &mut field, start, slice, &freed)?;
                check_path(&map.grid, goal, start, d, &path.expect("the goal is reachable"))?;
            }
            spare.push(field);
        }
    }
}
