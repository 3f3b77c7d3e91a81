//! The path service on layers with a subgoal graph: groups answered from one backward
//! search over the subgoals (`hpa::subgoals::field`), checked against Dijkstra on the
//! class's open grid (built from the terrain, not the layers) at the moment each answer is
//! delivered, with the search sliced by budgets of every size and edits between ticks.

use crate::common::service_setup::{one_class_world, tick_until_idle};
use crate::common::{distances, Rng};
use crate::service_props::{check_outcome, goal_positions, random_goal, rocks};
use proptest::prelude::*;
use quadpath::service::{
    Budget, Goal, Outcome, PathService, RequestOptions, ServiceConfig, Ticket,
};
use quadpath::units::UnitId;
use quadpath::{io, Cell, ClassId, Config, Movement, Rect, World};
use std::collections::HashMap;

/// Exact layers that keep a subgoal graph, whatever the default.
fn with_subgoals() -> Config {
    Config::exact().with_subgoals(true)
}

/// A `w × h` world of rocks and a few walls from `seed`, with classes of size 1 and 2 on
/// subgoal layers.
fn world(seed: u64, w: u32, h: u32) -> (World, [ClassId; 2]) {
    let (mut grid, mut rng) = rocks(seed, w, h, 8);
    for _ in 0..3 {
        let (x, y) = (rng.below(w as u64) as u32, rng.below(h as u64) as u32);
        let long = 3 + rng.below(12) as u32;
        for k in 0..long {
            let c = if rng.below(2) == 0 {
                Cell::new((x + k).min(w - 1), y)
            } else {
                Cell::new(x, (y + k).min(h - 1))
            };
            grid.set_blocked(c, true);
        }
    }
    let mut world = World::new(grid);
    let a = world
        .add_class(Movement::default(), with_subgoals())
        .unwrap();
    let b = world
        .add_class(Movement::default().with_size(2).unwrap(), with_subgoals())
        .unwrap();
    (world, [a, b])
}

/// Ticks `service` under `budget` until nothing is pending, checking every outcome
/// against Dijkstra on the class's open grid as it stands when it is delivered (`asked`:
/// each ticket's class, start and goal positions) and that no tick does more than its
/// budget plus its largest step; after tick `edit_at` a building goes up (or, once in
/// three, comes down) and is reported. Returns the outcomes delivered.
fn tick_and_check(
    service: &mut PathService,
    world: &mut World,
    budget: usize,
    asked: &HashMap<Ticket, (ClassId, Cell, Rect)>,
    rng: &mut Rng,
    edit_at: usize,
) -> Result<usize, TestCaseError> {
    let (w, h) = (world.grid().width(), world.grid().height());
    let (mut ticks, mut delivered) = (0, 0);
    while service.pending() > 0 {
        let report = service.tick(world, Budget::Expansions(budget)).unwrap();
        prop_assert!(
            report.work <= budget + report.largest_step,
            "{} units in a tick of {budget}",
            report.work
        );
        for (t, outcome) in service.drain_finished().collect::<Vec<_>>() {
            let (class, start, goal) = asked[&t];
            let open = world.movement(class).unwrap().open_grid(world.grid());
            check_outcome(&open, start, goal, &outcome);
            delivered += 1;
        }
        ticks += 1;
        prop_assert!(ticks < 20_000, "the service never finishes");
        if ticks == edit_at {
            let (x, y) = (
                rng.below(w as u64 - 3) as u32,
                rng.below(h as u64 - 3) as u32,
            );
            let area = Rect::new(x, y, x + 1 + rng.below(2) as u32, y + 1);
            let report = world.set_blocked(area, rng.below(3) != 0).unwrap();
            service.notify_edit(world, &report);
        }
    }
    Ok(delivered)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Groups of 2 to 14 starts to one goal, on both classes, in three waves with a
    /// building put up or taken down between ticks: every outcome, delivered after any
    /// tick, is valid and of Dijkstra's length on the map as it stands then (full paths),
    /// or ends at the closest reachable position (partial ones); no tick does more than its
    /// budget plus its largest step; and the groups were answered from subgoal fields.
    #[test]
    fn subgoal_fields_match_dijkstra(seed in any::<u64>(), budget in 1usize..300) {
        let (w, h) = (40, 30);
        let (mut world, classes) = world(seed, w, h);
        let config = ServiceConfig::default().with_lanes(1);
        let mut service = PathService::with_config(&world, config);
        let mut rng = Rng(seed ^ 0x5eed);
        let mut asked = HashMap::new();
        let mut unit = 0;
        let mut delivered = 0;
        for wave in 0..3 {
            for _ in 0..3 {
                let class = classes[rng.below(2) as usize];
                let goal = random_goal(&mut rng, w, h);
                let size = world.movement(class).unwrap().size();
                for _ in 0..2 + rng.below(13) {
                    let start = Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32);
                    let t = service
                        .request(&world, class, UnitId::new(unit), start, goal, RequestOptions::default())
                        .unwrap();
                    unit += 1;
                    asked.insert(t, (class, start, goal_positions(goal, size, w, h)));
                }
            }
            // A building goes up or comes down while the searches are under way.
            let edit_at = 2 + wave;
            delivered += tick_and_check(&mut service, &mut world, budget, &asked, &mut rng, edit_at)?;
        }
        prop_assert!(delivered >= asked.len());
        prop_assert!(service.stats().subgoal_fields > 0, "{:?}", service.stats());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Armies standing together (9 to 60 open positions around a random one, breadth
    /// first over the class's open grid), on both classes, each ordered to one goal in
    /// one tick, three waves with a building put up or taken down between ticks: the
    /// members strictly inside an army's box are answered from its ring and one Dijkstra
    /// over the box (`hpa::subgoals::field`, "Members inside a box") while the map stays
    /// as it was, and as members of their own after an edit. Every outcome is valid and
    /// of Dijkstra's length on the map as it stands when it is delivered; no tick does
    /// more than its budget plus its largest step.
    #[test]
    fn armies_answered_from_their_box_match_dijkstra(seed in any::<u64>(), budget in 1usize..300) {
        let (w, h) = (40, 30);
        let (mut world, classes) = world(seed, w, h);
        let config = ServiceConfig::default().with_lanes(1);
        let mut service = PathService::with_config(&world, config);
        let mut rng = Rng(seed ^ 0xa4e5);
        let mut asked = HashMap::new();
        let mut unit = 0;
        let mut delivered = 0;
        for _ in 0..3 {
            for _ in 0..2 {
                let class = classes[rng.below(2) as usize];
                let goal = random_goal(&mut rng, w, h);
                let size = world.movement(class).unwrap().size();
                let open = world.movement(class).unwrap().open_grid(world.grid());
                let free: Vec<Cell> = open.free_cells().collect();
                if free.is_empty() {
                    continue;
                }
                let centre = free[rng.below(free.len() as u64) as usize];
                let count = 9 + rng.below(52) as usize;
                let mut army = vec![centre];
                let mut seen = std::collections::HashSet::from([centre]);
                let mut i = 0;
                while army.len() < count && i < army.len() {
                    for (next, _) in open.successors(army[i]) {
                        if army.len() < count && seen.insert(next) {
                            army.push(next);
                        }
                    }
                    i += 1;
                }
                for start in army {
                    let t = service
                        .request(&world, class, UnitId::new(unit), start, goal, RequestOptions::default())
                        .unwrap();
                    unit += 1;
                    asked.insert(t, (class, start, goal_positions(goal, size, w, h)));
                }
            }
            let edit_at = 2 + rng.below(8) as usize;
            delivered += tick_and_check(&mut service, &mut world, budget, &asked, &mut rng, edit_at)?;
        }
        prop_assert!(delivered >= asked.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// One goal's subgoal field kept through random buildings put up and taken down (each
    /// reported with `notify_edit`), with a few new starts joining it after every edit and
    /// the budget slicing every step: every outcome is valid and of Dijkstra's length on
    /// the map as it stands when delivered (a field older than the map answers only what
    /// it can vouch for, `hpa::subgoals::field`, "After edits").
    #[test]
    fn fields_kept_through_edits_match_dijkstra(seed in any::<u64>(), budget in 1usize..300) {
        let (w, h) = (40, 30);
        let (mut world, classes) = world(seed, w, h);
        let mut service = PathService::with_config(&world, ServiceConfig::default().with_lanes(1));
        let mut rng = Rng(seed ^ 0xed17);
        let class = classes[rng.below(2) as usize];
        let size = world.movement(class).unwrap().size();
        let goal = random_goal(&mut rng, w, h);
        let mut asked = HashMap::new();
        let mut unit = 0;
        let mut buildings: Vec<Rect> = Vec::new();
        for round in 0..8 {
            if round > 0 {
                let up = buildings.is_empty() || rng.below(2) == 0;
                let area = if up {
                    let (x, y) = (rng.below(w as u64 - 3) as u32, rng.below(h as u64 - 3) as u32);
                    let r = Rect::new(x, y, x + rng.below(3) as u32, y + rng.below(3) as u32);
                    buildings.push(r);
                    r
                } else {
                    buildings.remove(rng.below(buildings.len() as u64) as usize)
                };
                let report = world.set_blocked(area, up).unwrap();
                service.notify_edit(&world, &report);
            }
            let joining = if round == 0 { 6 + rng.below(8) } else { 1 + rng.below(4) };
            for _ in 0..joining {
                let start = Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32);
                let t = service
                    .request(&world, class, UnitId::new(unit), start, goal, RequestOptions::default())
                    .unwrap();
                unit += 1;
                asked.insert(t, start);
            }
            let mut ticks = 0;
            while service.pending() > 0 {
                service.tick(&world, Budget::Expansions(budget)).unwrap();
                let open = world.movement(class).unwrap().open_grid(world.grid());
                for (t, outcome) in service.drain_finished().collect::<Vec<_>>() {
                    check_outcome(&open, asked[&t], goal_positions(goal, size, w, h), &outcome);
                }
                ticks += 1;
                prop_assert!(ticks < 20_000, "the service never finishes");
            }
        }
    }
}

/// A group's subgoal field on a shipped map still answers later starts after a building
/// goes up far from them and after it comes down (no new field for them), each answer as
/// long as Dijkstra's on the map as it stands.
#[test]
fn a_kept_field_answers_after_edits_on_den520d() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/den520d.map");
    let (mut world, infantry) = one_class_world(io::read_map(path).unwrap(), with_subgoals());
    let mut service = PathService::with_config(&world, ServiceConfig::default().with_lanes(1));
    let free: Vec<Cell> = world.grid().free_cells().collect();
    let mut rng = Rng(27);
    let goal = free[rng.below(free.len() as u64) as usize];
    let ask = |service: &mut PathService, world: &World, rng: &mut Rng, n: usize| {
        let mut asked = HashMap::new();
        for i in 0..n {
            let start = free[rng.below(free.len() as u64) as usize];
            let t = service
                .request(
                    world,
                    infantry,
                    UnitId::new(i as u32),
                    start,
                    goal,
                    RequestOptions::default(),
                )
                .unwrap();
            asked.insert(t, start);
        }
        tick_until_idle(service, world, Budget::Expansions(500));
        let open = world.movement(infantry).unwrap().open_grid(world.grid());
        for (t, outcome) in service.drain_finished() {
            check_outcome(
                &open,
                asked[&t],
                Rect::new(goal.x, goal.y, goal.x, goal.y),
                &outcome,
            );
        }
        // Released: the test is about the field, not about repairs.
        for t in asked.keys() {
            service.release(*t).unwrap();
        }
    };
    ask(&mut service, &world, &mut rng, 60);
    let fields = service.stats().subgoal_fields;
    // A building far from the goal (the farthest free 3×3 block from it, by octile
    // distance).
    let far = free
        .iter()
        .copied()
        .filter(|c| c.x + 2 < world.grid().width() && c.y + 2 < world.grid().height())
        .map(|c| Rect::new(c.x, c.y, c.x + 2, c.y + 2))
        .filter(|r| r.cells().all(|c| world.grid().is_free(c)))
        .max_by_key(|r| r.x1.abs_diff(goal.x).max(r.y1.abs_diff(goal.y)))
        .unwrap();
    let report = world.set_blocked(far, true).unwrap();
    service.notify_edit(&world, &report);
    ask(&mut service, &world, &mut rng, 30);
    let after_block = service.stats().stale_field_answers;
    assert!(after_block >= 10, "{:?}", service.stats());
    let report = world.set_blocked(far, false).unwrap();
    service.notify_edit(&world, &report);
    ask(&mut service, &world, &mut rng, 30);
    let stats = service.stats();
    assert!(stats.stale_field_answers >= after_block + 10, "{stats:?}");
    assert!(stats.subgoal_fields <= fields + 2, "{stats:?}");
}

/// A 200-unit group on a shipped map answered from one subgoal field: every member's path
/// valid and as long as Dijkstra's from the goal (one Dijkstra gives every member's
/// optimum), and a unit asking in the next frame answered from the kept field.
#[test]
fn a_group_of_200_from_one_subgoal_field_on_den520d() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/den520d.map");
    let (world, infantry) = one_class_world(io::read_map(path).unwrap(), with_subgoals());
    let open = world.movement(infantry).unwrap().open_grid(world.grid());
    let free: Vec<Cell> = open.free_cells().collect();
    let mut rng = Rng(520);
    let goal = free[rng.below(free.len() as u64) as usize];
    let from_goal = distances(&open, goal);
    let at = |c: Cell| from_goal[(c.y * open.width() + c.x) as usize];
    let starts: Vec<Cell> = std::iter::repeat_with(|| free[rng.below(free.len() as u64) as usize])
        .filter(|&c| at(c).is_some())
        .take(200)
        .collect();
    let mut service = PathService::with_config(&world, ServiceConfig::default().with_lanes(1));
    let order = |service: &mut PathService, world: &World, unit: u32, start: Cell| {
        service
            .request(
                world,
                infantry,
                UnitId::new(unit),
                start,
                Goal::Cell(goal),
                RequestOptions::default(),
            )
            .unwrap()
    };
    let tickets: HashMap<_, _> = (0..200u32)
        .map(|i| {
            (
                order(&mut service, &world, i, starts[i as usize]),
                starts[i as usize],
            )
        })
        .collect();
    tick_until_idle(&mut service, &world, Budget::Expansions(500));
    let mut answered = 0;
    for (t, outcome) in service.drain_finished() {
        let Outcome::Full(path) = outcome else {
            panic!("{outcome:?}");
        };
        let start = tickets[&t];
        crate::common::assert_valid(&open, start, goal, &path);
        let optimum = at(start).unwrap();
        assert!(
            (path.length - optimum).abs() < 1e-6,
            "{} against {optimum}",
            path.length
        );
        answered += 1;
    }
    assert_eq!(answered, 200);
    let stats = service.stats();
    assert_eq!(
        (stats.flow_fields, stats.subgoal_fields),
        (1, 1),
        "{stats:?}"
    );
    assert!(stats.shared >= 180, "{stats:?}");
    // The next frame: one more unit to the same goal, from elsewhere, joins the kept
    // field.
    let late = free
        .iter()
        .copied()
        .find(|&c| at(c).is_some() && !starts.contains(&c))
        .unwrap();
    let again = order(&mut service, &world, 900, late);
    service.tick(&world, Budget::Expansions(500)).unwrap();
    let Some(Outcome::Full(path)) = service.outcome(again) else {
        panic!("no answer from the kept field");
    };
    assert!((path.length - at(late).unwrap()).abs() < 1e-6);
    assert_eq!(service.stats().flow_fields, 1);
}

/// A burst of 600 requests in 3 groups under a budget of 40 units a tick: the intake takes
/// at most a quarter of it per tick, so no tick does more than the budget plus one step;
/// the groups cut by the intake join their jobs (one field each), and every answer is
/// optimal.
#[test]
fn a_burst_is_taken_in_within_the_budget() {
    let (world, [infantry, _]) = world(7, 40, 30);
    let open = world.movement(infantry).unwrap().open_grid(world.grid());
    let free: Vec<Cell> = open.free_cells().collect();
    let mut service = PathService::with_config(&world, ServiceConfig::default().with_lanes(1));
    let mut rng = Rng(11);
    let mut asked = HashMap::new();
    for group in 0..3u32 {
        let goal = free[rng.below(free.len() as u64) as usize];
        for i in 0..200u32 {
            let start = free[rng.below(free.len() as u64) as usize];
            let unit = UnitId::new(group * 200 + i);
            let t = service
                .request(
                    &world,
                    infantry,
                    unit,
                    start,
                    Goal::Cell(goal),
                    RequestOptions::default(),
                )
                .unwrap();
            asked.insert(t, (start, Rect::new(goal.x, goal.y, goal.x, goal.y)));
        }
    }
    let mut ticks = 0;
    let mut answered = 0;
    while service.pending() > 0 {
        let report = service.tick(&world, Budget::Expansions(40)).unwrap();
        assert!(report.work <= 40 + report.largest_step, "{report:?}");
        assert!(report.largest_step <= 40, "{report:?}");
        for (t, outcome) in service.drain_finished() {
            let (start, goal) = asked[&t];
            check_outcome(&open, start, goal, &outcome);
            answered += 1;
        }
        ticks += 1;
        assert!(ticks < 100_000);
    }
    assert_eq!(answered, 600);
    // The intake needed 60 ticks (10 requests each) and cut every group; still one field
    // per group.
    assert!(ticks >= 60);
    assert_eq!(service.stats().flow_fields, 3, "{:?}", service.stats());
}
