//! Scenario tests of the path service: bad input, reachability under edits (against BFS
//! connectivity), string-pulling (against a step-by-step line check on the class's open
//! grid), re-planning after a building comes down (against Dijkstra), repair from the
//! reported position, and sharing in a 200-unit group.

use crate::common::service_setup::{one_class_world, tick_until_idle};
use crate::common::{assert_valid, distances};
use quadpath::service::{
    Budget, Goal, Outcome, PathEvent, PathService, RequestOptions, ServiceConfig, ServiceError,
    Status, Ticket, WhenUnreachable,
};
use quadpath::units::UnitId;
use quadpath::{Cell, ClassId, Grid, Mode, Movement, Rect, World};
use std::time::Duration;

fn two_rooms() -> (World, ClassId, ClassId) {
    // A wall down column 15 with a 2-cell gap at rows 20-21.
    let mut world = World::new(Grid::from_fn(30, 24, |x, y| {
        x != 15 || (20..=21).contains(&y)
    }));
    let infantry = world.add_class(Movement::default(), Mode::Exact).unwrap();
    let tank = world
        .add_class(Movement::default().with_size(3).unwrap(), Mode::Exact)
        .unwrap();
    (world, infantry, tank)
}

/// Asks `service` for a path for unit `unit` of `class` with the default options.
fn order(
    service: &mut PathService,
    world: &World,
    who: (ClassId, u32),
    start: Cell,
    goal: impl Into<Goal>,
) -> Ticket {
    order_with(service, world, who, start, goal, RequestOptions::default())
}

/// [`order`] with `options`.
fn order_with(
    service: &mut PathService,
    world: &World,
    (class, unit): (ClassId, u32),
    start: Cell,
    goal: impl Into<Goal>,
    options: RequestOptions,
) -> Ticket {
    service
        .request(world, class, UnitId::new(unit), start, goal, options)
        .unwrap()
}

fn finish(service: &mut PathService, world: &World) {
    tick_until_idle(service, world, Budget::Expansions(64));
}

#[test]
fn bad_input_gets_typed_errors() {
    let (world, infantry, _) = two_rooms();
    let mut service = PathService::with_config(
        &world,
        ServiceConfig::default().with_max_pending_per_unit(3),
    );
    let opts = RequestOptions::default();
    let u = UnitId::new(1);
    let other = World::new(Grid::new_free(4, 4));
    let mut bigger = World::new(Grid::new_free(4, 4));
    let _ = bigger.add_class(Movement::default(), Mode::Exact).unwrap();
    let _ = bigger.add_class(Movement::default(), Mode::Exact).unwrap();
    let _ = bigger.add_class(Movement::default(), Mode::Exact).unwrap();
    let stranger = bigger.classes().last().unwrap().0;
    assert!(matches!(
        service.request(&world, stranger, u, Cell::new(0, 0), Cell::new(1, 1), opts),
        Err(ServiceError::UnknownClass { .. })
    ));
    assert!(matches!(
        service.request(&other, infantry, u, Cell::new(0, 0), Cell::new(1, 1), opts),
        Err(ServiceError::UnknownClass { .. })
    ));
    assert!(matches!(
        service.request(&world, infantry, u, Cell::new(30, 0), Cell::new(1, 1), opts),
        Err(ServiceError::StartOffMap { .. })
    ));
    assert!(matches!(
        service.request(&world, infantry, u, Cell::new(0, 0), Cell::new(1, 24), opts),
        Err(ServiceError::GoalOffMap { .. })
    ));
    assert!(matches!(
        service.request(
            &world,
            infantry,
            u,
            Cell::new(0, 0),
            Rect::new(28, 20, 31, 22),
            opts
        ),
        Err(ServiceError::GoalOffMap { .. })
    ));
    assert!(matches!(
        service.request(
            &world,
            infantry,
            u,
            Cell::new(0, 0),
            Goal::Unit {
                at: Cell::new(3, 3),
                size: 0
            },
            opts
        ),
        Err(ServiceError::EmptyGoal { .. })
    ));
    assert_eq!(
        service.tick(&world, Budget::Expansions(0)),
        Err(ServiceError::ZeroBudget)
    );
    assert_eq!(
        service.tick(&world, Budget::Time(Duration::ZERO)),
        Err(ServiceError::ZeroBudget)
    );
    // A budget too long for the clock: taken as a day, no overflow (there is nothing to do).
    assert!(service.tick(&world, Budget::Time(Duration::MAX)).is_ok());
    // A flood for one unit: the limit, then refusals, and no ticket lost.
    let tickets: Vec<_> = (0..3)
        .map(|_| {
            service
                .request(&world, infantry, u, Cell::new(0, 0), Cell::new(29, 0), opts)
                .unwrap()
        })
        .collect();
    for _ in 0..1000 {
        assert!(matches!(
            service.request(&world, infantry, u, Cell::new(0, 0), Cell::new(29, 0), opts),
            Err(ServiceError::TooManyRequests { limit: 3, .. })
        ));
    }
    assert_eq!(service.stats().requests, 3);
    finish(&mut service, &world);
    assert_eq!(service.drain_finished().count(), 3);
    // Once answered, the unit may ask again.
    service
        .request(&world, infantry, u, Cell::new(0, 0), Cell::new(1, 1), opts)
        .unwrap();
    // Unknown and released tickets.
    service.release(tickets[0]).unwrap();
    assert!(matches!(
        service.release(tickets[0]),
        Err(ServiceError::UnknownTicket { .. })
    ));
    assert!(matches!(
        service.poll(tickets[0]),
        Err(ServiceError::UnknownTicket { .. })
    ));
    assert!(matches!(
        service.advance(tickets[0], 0),
        Err(ServiceError::UnknownTicket { .. })
    ));
    assert!(matches!(
        service.advance(tickets[1], 10_000),
        Err(ServiceError::IndexOutOfRange { .. })
    ));
    // A start the agent cannot stand on is an outcome, not an error.
    let t = service
        .request(
            &world,
            infantry,
            UnitId::new(2),
            Cell::new(15, 0),
            Cell::new(1, 1),
            opts,
        )
        .unwrap();
    finish(&mut service, &world);
    assert!(matches!(service.outcome(t), Some(Outcome::Failed(_))));
    assert!(matches!(
        service.next_waypoint(&world, t, Cell::new(15, 0)),
        Err(ServiceError::NoPath { .. })
    ));
}

/// Tickets name a slot of the service's ticket table, reused once released: the old ticket
/// of a reused slot must be refused, never read the new ticket's state.
#[test]
fn a_stale_ticket_of_a_reused_slot_is_refused() {
    let (world, infantry, _) = two_rooms();
    let mut service = PathService::new(&world);
    let unknown =
        |r: Result<(), ServiceError>| matches!(r, Err(ServiceError::UnknownTicket { .. }));
    let old = order(
        &mut service,
        &world,
        (infantry, 0),
        Cell::new(0, 0),
        Cell::new(3, 0),
    );
    finish(&mut service, &world);
    service.release(old).unwrap();
    // The new ticket takes the freed slot; its path is another one.
    let new = order(
        &mut service,
        &world,
        (infantry, 1),
        Cell::new(0, 5),
        Cell::new(9, 5),
    );
    finish(&mut service, &world);
    assert_ne!(old, new);
    assert!(new.number() > old.number());
    assert!(matches!(
        service.poll(old),
        Err(ServiceError::UnknownTicket { ticket }) if ticket == old
    ));
    assert!(service.outcome(old).is_none());
    assert!(unknown(service.advance(old, 0)));
    assert_eq!(
        service.step(old),
        Err(ServiceError::UnknownTicket { ticket: old }),
        "no step on the new ticket's path"
    );
    assert!(matches!(
        service.next_waypoint(&world, old, Cell::new(0, 5)),
        Err(ServiceError::UnknownTicket { .. })
    ));
    assert!(unknown(service.cancel(old)));
    assert!(unknown(service.release(old)));
    // The new ticket is untouched by all that.
    let path = service
        .outcome(new)
        .and_then(Outcome::path)
        .expect("a path");
    assert_eq!(
        (path.start(), path.goal()),
        (Some(Cell::new(0, 5)), Some(Cell::new(9, 5)))
    );
    let second = path.cells[1];
    assert_eq!(service.step(new), Ok(Some(second)), "from the start");
    service.advance(new, 2).unwrap();
    assert_eq!(service.live_tickets(), 1);
}

#[test]
fn unreachable_goals_fail_or_give_the_closest_position() {
    let (world, _, tank) = two_rooms();
    let mut service = PathService::new(&world);
    // The 3-wide tank cannot pass the 2-cell gap.
    let goal = Cell::new(25, 5);
    let closest = order(&mut service, &world, (tank, 0), Cell::new(2, 2), goal);
    let fail = order_with(
        &mut service,
        &world,
        (tank, 1),
        Cell::new(2, 2),
        goal,
        RequestOptions::default().when_unreachable(WhenUnreachable::Fail),
    );
    finish(&mut service, &world);
    assert!(matches!(service.outcome(fail), Some(Outcome::Failed(_))));
    let Some(Outcome::Partial {
        path,
        goal_distance,
    }) = service.outcome(closest)
    else {
        panic!("{:?}", service.outcome(closest));
    };
    // The tank's positions stop at x = 12 (its footprint covers x..x+2 < 15).
    assert_eq!(path.cells.last().unwrap().x, 12);
    assert!((goal_distance - 13.0).abs() < 1e-9);
    assert!(!service
        .reachable(&world, tank, Cell::new(2, 2), goal)
        .unwrap());
}

#[test]
fn a_small_group_to_a_closed_goal_gets_the_closest_positions() {
    let (world, infantry, _) = two_rooms();
    let mut service = PathService::new(&world);
    let wall = Cell::new(15, 5);
    let starts = [Cell::new(2, 5), Cell::new(3, 9), Cell::new(27, 4)];
    let tickets: Vec<_> = (0..3)
        .map(|i| {
            order(
                &mut service,
                &world,
                (infantry, i),
                starts[i as usize],
                wall,
            )
        })
        .collect();
    finish(&mut service, &world);
    let open = world.movement(infantry).unwrap().open_grid(world.grid());
    for (t, start) in tickets.into_iter().zip(starts) {
        let Some(Outcome::Partial {
            path,
            goal_distance,
        }) = service.outcome(t)
        else {
            panic!("{:?}", service.outcome(t));
        };
        // Next to the wall cell, on the start's side: (14, 5) or (16, 5).
        assert_eq!(*goal_distance, 1.0);
        let end = *path.cells.last().unwrap();
        assert_eq!(end, Cell::new(if start.x < 15 { 14 } else { 16 }, 5));
        let optimum = distances(&open, start)[(end.y * open.width() + end.x) as usize].unwrap();
        assert!((path.length - optimum).abs() < 1e-6);
    }
}

#[test]
fn reachable_follows_edits() {
    let (mut world, infantry, _) = two_rooms();
    let service = PathService::new(&world);
    let (a, b) = (Cell::new(2, 2), Cell::new(25, 5));
    let oracle = |world: &World| {
        let open = world.movement(infantry).unwrap().open_grid(world.grid());
        distances(&open, a)[(b.y * open.width() + b.x) as usize].is_some()
    };
    assert!(service.reachable(&world, infantry, a, b).unwrap());
    world.set_blocked(Rect::new(15, 20, 15, 21), true).unwrap();
    assert_eq!(
        service.reachable(&world, infantry, a, b).unwrap(),
        oracle(&world)
    );
    assert!(!oracle(&world));
    world.set_blocked(Rect::new(15, 20, 15, 20), false).unwrap();
    assert_eq!(
        service.reachable(&world, infantry, a, b).unwrap(),
        oracle(&world)
    );
    assert!(oracle(&world));
    assert!(matches!(
        service.reachable(&world, infantry, a, Cell::new(40, 0)),
        Err(ServiceError::StartOffMap { .. })
    ));
}

#[test]
fn waypoints_are_in_sight_and_walkable() {
    let (world, infantry, tank) = two_rooms();
    let mut service = PathService::new(&world);
    for (i, class) in [infantry, tank].into_iter().enumerate() {
        let t = order(
            &mut service,
            &world,
            (class, i as u32),
            Cell::new(1, 1),
            Cell::new(26, 2),
        );
        finish(&mut service, &world);
        let path = service.outcome(t).unwrap().path().unwrap().clone();
        let open = world.movement(class).unwrap().open_grid(world.grid());
        let mut here = 0;
        let mut hops = 0;
        while let Some(next) = service.next_waypoint(&world, t, path.cells[here]).unwrap() {
            let j = path
                .cells
                .iter()
                .position(|&c| c == next)
                .expect("a waypoint on the path");
            assert!(j > here, "waypoints move forward");
            // The oracle: walk the straight line step by step on the open grid.
            let (a, b) = (path.cells[here], next);
            let n = (b.x as i64 - a.x as i64)
                .abs()
                .max((b.y as i64 - a.y as i64).abs());
            let mut prev = a;
            for k in 1..=n {
                let along = |d: i64| (2 * k * d + d.signum() * n) / (2 * n);
                let c = Cell::new(
                    (a.x as i64 + along(b.x as i64 - a.x as i64)) as u32,
                    (a.y as i64 + along(b.y as i64 - a.y as i64)) as u32,
                );
                let (dx, dy) = (c.x as i64 - prev.x as i64, c.y as i64 - prev.y as i64);
                assert!(
                    crate::common::legal(&open, prev.x as i64, prev.y as i64, dx, dy),
                    "{prev} -> {c} on the way to {b}"
                );
                prev = c;
            }
            here = j;
            service.advance(t, here).unwrap();
            hops += 1;
        }
        assert_eq!(here, path.cells.len() - 1);
        assert!(
            hops < path.cells.len() / 2,
            "string-pulling skips cells: {hops} hops"
        );
    }
}

#[test]
fn invalidated_paths_are_repaired_from_the_reported_position() {
    let (mut world, infantry, _) = two_rooms();
    let mut service = PathService::new(&world);
    let keep = order(
        &mut service,
        &world,
        (infantry, 0),
        Cell::new(2, 2),
        Cell::new(27, 2),
    );
    let drop = order_with(
        &mut service,
        &world,
        (infantry, 1),
        Cell::new(2, 3),
        Cell::new(27, 3),
        RequestOptions::default().repair(false),
    );
    finish(&mut service, &world);
    service.drain_finished().count();
    let path = service.outcome(keep).unwrap().path().unwrap().clone();
    service.advance(keep, 5).unwrap();
    // Close the gap: both paths go through it.
    let report = world.set_blocked(Rect::new(15, 20, 15, 21), true).unwrap();
    service.notify_edit(&world, &report);
    // Recorded only: the paths are rechecked by the next ticks, within their budget.
    assert_eq!(service.drain_events().count(), 0);
    assert!(matches!(service.poll(keep), Ok(Status::Rechecking(_))));
    assert_eq!(service.outcome(keep), None, "not vouched for until swept");
    let mut ticks = 0;
    while service.rechecking() {
        let report = service.tick(&world, Budget::Expansions(1)).unwrap();
        assert_eq!(
            report.delivered, 0,
            "nothing delivered before the sweep ends"
        );
        ticks += 1;
    }
    assert!(ticks >= 1);
    let events: Vec<_> = service.drain_events().collect();
    assert_eq!(events.len(), 2);
    for e in &events {
        let PathEvent::Invalidated {
            first_bad_index, ..
        } = e
        else {
            panic!("{e:?}")
        };
        assert!(*first_bad_index >= 5);
    }
    assert_eq!(service.poll(drop), Ok(Status::Invalidated));
    assert_eq!(
        service.poll(keep),
        Ok(Status::Pending),
        "its repair is queued"
    );
    finish(&mut service, &world);
    let repaired: Vec<_> = service.drain_finished().collect();
    assert_eq!(repaired.len(), 1);
    let Outcome::Partial { path: fresh, .. } = &repaired[0].1 else {
        panic!()
    };
    assert_eq!(
        fresh.cells[0], path.cells[5],
        "repaired from where the unit stands"
    );
    let open = world.movement(infantry).unwrap().open_grid(world.grid());
    assert_valid(&open, fresh.cells[0], *fresh.cells.last().unwrap(), fresh);
}

#[test]
fn freed_ground_replans_paths_that_could_shorten() {
    let (mut world, infantry, _) = two_rooms();
    let mut service = PathService::new(&world);
    let (a, b) = (Cell::new(5, 2), Cell::new(25, 2));
    // A path far from the wall's top, and one that cannot improve (in the west room).
    let t = order(&mut service, &world, (infantry, 0), a, b);
    let near = order(
        &mut service,
        &world,
        (infantry, 1),
        Cell::new(1, 22),
        Cell::new(3, 22),
    );
    finish(&mut service, &world);
    service.drain_finished().count();
    // Open the wall at the top.
    let report = world.set_terrain(Rect::new(15, 0, 15, 3), b'.').unwrap();
    service.notify_edit(&world, &report);
    assert_eq!(
        service.drain_events().count(),
        0,
        "re-plans wait for idle lanes"
    );
    service.tick(&world, Budget::Expansions(64)).unwrap();
    let events: Vec<_> = service.drain_events().collect();
    assert_eq!(events, vec![PathEvent::Replanning { ticket: t }]);
    finish(&mut service, &world);
    let fresh: Vec<_> = service.drain_finished().collect();
    assert_eq!(fresh.len(), 1);
    let open = world.movement(infantry).unwrap().open_grid(world.grid());
    let optimum = distances(&open, a)[(b.y * open.width() + b.x) as usize].unwrap();
    let path = fresh[0].1.path().unwrap();
    assert!((path.length - optimum).abs() < 1e-6);
    assert!(matches!(service.outcome(near), Some(Outcome::Full(_))));
}

#[test]
fn fast_layers_are_replanned_after_freed_ground() {
    let grid = Grid::from_fn(30, 24, |x, y| x != 15 || (20..=21).contains(&y));
    let (mut world, scout) = one_class_world(grid, Mode::Fast);
    let mut service = PathService::new(&world);
    let (a, b) = (Cell::new(5, 2), Cell::new(25, 2));
    let t = order(&mut service, &world, (scout, 0), a, b);
    finish(&mut service, &world);
    let old = service.drain_finished().next().unwrap().1;
    let old = old.path().unwrap().length;
    let report = world.set_terrain(Rect::new(15, 0, 15, 3), b'.').unwrap();
    service.notify_edit(&world, &report);
    service.tick(&world, Budget::Expansions(64)).unwrap();
    let events: Vec<_> = service.drain_events().collect();
    assert_eq!(events, vec![PathEvent::Replanning { ticket: t }]);
    finish(&mut service, &world);
    let fresh: Vec<_> = service.drain_finished().collect();
    assert_eq!(fresh.len(), 1);
    let path = fresh[0].1.path().unwrap();
    let open = world.movement(scout).unwrap().open_grid(world.grid());
    assert_valid(&open, a, b, path);
    let optimum = distances(&open, a)[(b.y * open.width() + b.x) as usize].unwrap();
    assert!(
        path.length < old && path.length < optimum * 1.5,
        "re-planned {} (was {old}, optimum {optimum})",
        path.length
    );
}

/// A 64² map split by a wall at x = 32 with gaps at rows 10 and 50, an exact class, and a
/// 3×3 rally area beyond the wall.
fn wall_with_two_gaps() -> (World, ClassId, Rect) {
    let grid = Grid::from_fn(64, 64, |x, y| !(x == 32 && y != 10 && y != 50));
    let (world, infantry) = one_class_world(grid, Mode::Exact);
    (world, infantry, Rect::new(58, 30, 60, 32))
}

#[test]
fn a_group_of_200_is_answered_from_shared_work() {
    let (world, infantry, goal) = wall_with_two_gaps();
    let mut service = PathService::new(&world);
    let tickets: Vec<_> = (0..200u32)
        .map(|i| {
            let start = Cell::new(i % 20, 10 + i / 20 * 4);
            order(&mut service, &world, (infantry, i), start, goal)
        })
        .collect();
    finish(&mut service, &world);
    assert_eq!(service.drain_finished().count(), 200);
    assert!(service.stats().shared >= 180, "{:?}", service.stats());
    assert_eq!(service.stats().flow_fields, 1);
    // A few units asking again in the next frame reuse the kept field.
    let again = order(&mut service, &world, (infantry, 500), Cell::new(0, 0), goal);
    service.tick(&world, Budget::Expansions(1000)).unwrap();
    assert!(matches!(service.outcome(again), Some(Outcome::Full(_))));
    assert_eq!(service.stats().flow_fields, 1);
    for t in tickets {
        service.release(t).unwrap();
    }
    service.release(again).unwrap();
    assert_eq!(service.live_tickets(), 0);
}

#[test]
fn next_frame_requests_join_the_field_under_way() {
    let (world, infantry, goal) = wall_with_two_gaps();
    let mut service = PathService::new(&world);
    let start = |i: u32| Cell::new(i % 20, 2 + i / 20 * 6);
    let mut tickets: Vec<_> = (0..10)
        .map(|i| order(&mut service, &world, (infantry, i), start(i), goal))
        .collect();
    // A few units of work: the field's build is far from done after this tick.
    service.tick(&world, Budget::Expansions(8)).unwrap();
    assert_eq!(service.drain_finished().count(), 0);
    tickets.extend((10..20).map(|i| order(&mut service, &world, (infantry, i), start(i), goal)));
    finish(&mut service, &world);
    assert_eq!(service.stats().flow_fields, 1, "{:?}", service.stats());
    assert_eq!(service.drain_finished().count(), 20);
    let open = world.movement(infantry).unwrap().open_grid(world.grid());
    for (i, t) in tickets.into_iter().enumerate() {
        let path = service.outcome(t).unwrap().path().unwrap();
        let from = distances(&open, start(i as u32));
        let optimum = goal
            .cells()
            .filter_map(|c| from[(c.y * open.width() + c.x) as usize])
            .fold(f64::INFINITY, f64::min);
        assert!(
            (path.length - optimum).abs() < 1e-6,
            "{i}: {} vs {optimum}",
            path.length
        );
    }
}

/// A time budget whose deadline has always passed when the lanes start (1 ns: the lanes
/// stop at 3/4 of it) still moves the service on: the first lane of each tick's order owes
/// the tick one step. Every tick does some work until every ticket has its outcome, and the
/// paths are those of Dijkstra on the class's open grid. (Before session 34 every lane
/// stopped before its first step: nothing was ever answered.) No clock is read.
#[test]
fn a_deadline_always_past_still_answers_every_request() {
    let (world, infantry, _) = two_rooms();
    let mut service = PathService::with_config(&world, ServiceConfig::default().with_lanes(4));
    let goal = Cell::new(25, 2);
    // Singles to goals of their own (one job each, dealt round the lanes), and a group.
    let mut orders: Vec<(Ticket, Cell, Cell)> = (0..6)
        .map(|i| {
            let (start, own_goal) = (Cell::new(2, 2 + 3 * i), Cell::new(27, 1 + 3 * i));
            let ticket = order(&mut service, &world, (infantry, i), start, own_goal);
            (ticket, start, own_goal)
        })
        .collect();
    for i in 0..10 {
        let start = Cell::new(4 + i, 12);
        let ticket = order(&mut service, &world, (infantry, 100 + i), start, goal);
        orders.push((ticket, start, goal));
    }
    let past = Budget::Time(Duration::from_nanos(1));
    let mut ticks = 0;
    while service.pending() > 0 {
        assert!(ticks < 100_000, "the service never finished");
        let report = service.tick(&world, past).unwrap();
        assert!(report.work > 0, "tick {ticks} did nothing");
        ticks += 1;
    }
    let open = world.movement(infantry).unwrap().open_grid(world.grid());
    for (ticket, start, goal) in orders {
        let Some(Outcome::Full(path)) = service.outcome(ticket) else {
            panic!("{ticket:?} from {start:?}: {:?}", service.outcome(ticket));
        };
        assert_valid(&open, start, goal, path);
        let optimum = distances(&open, start)[(goal.y * open.width() + goal.x) as usize];
        assert!(
            (path.length - optimum.unwrap()).abs() < 1e-6,
            "{start:?} to {goal:?}"
        );
    }
}

/// On open ground the whole map is one leaf: a flow field's first read of it (its table,
/// a sweep over every cell) is worked out a slice at a time within the budget, never in
/// one step (it was one step of 1,024 units on this 256² map, tens of milliseconds on a
/// 1,024² one), and the group's paths are still straight lines (on open ground the
/// optimum is the octile distance).
#[test]
fn a_large_leaf_is_swept_within_the_budget() {
    let (side, budget) = (256, 50);
    let (world, infantry) = one_class_world(Grid::new_free(side, side), Mode::Exact);
    let mut service = PathService::new(&world);
    let goal = Cell::new(200, 180);
    let starts: Vec<Cell> = (0..12u32)
        .map(|i| Cell::new(i * 20, 255 - i * 17))
        .collect();
    let tickets: Vec<Ticket> = starts
        .iter()
        .enumerate()
        .map(|(i, &start)| order(&mut service, &world, (infantry, i as u32), start, goal))
        .collect();
    let mut ticks = 0;
    while service.pending() > 0 {
        let report = service.tick(&world, Budget::Expansions(budget)).unwrap();
        assert!(report.largest_step <= budget, "{report:?}");
        assert!(report.work <= budget + report.largest_step, "{report:?}");
        ticks += 1;
        assert!(ticks < 100_000, "the service never finished");
    }
    let stats = service.stats();
    assert_eq!(stats.flow_fields, 1, "{stats:?}");
    // The leaf's table was worked out by the slices, three passes over each cell at 192
    // cells a unit (none of it is counted when a first read does it in one step).
    assert!(stats.work.leaf_tables >= 3 * 256 * 256 / 192, "{stats:?}");
    for (&t, &start) in tickets.iter().zip(&starts) {
        let Some(Outcome::Full(path)) = service.outcome(t) else {
            panic!("no path from {start}");
        };
        assert_valid(world.grid(), start, goal, path);
        let (dx, dy) = (start.x.abs_diff(goal.x), start.y.abs_diff(goal.y));
        let octile = dx.max(dy) as f64 + (2f64.sqrt() - 1.0) * dx.min(dy) as f64;
        assert!(
            (path.length - octile).abs() < 1e-9,
            "{start}: {} vs {octile}",
            path.length
        );
    }
}

/// With one lane, a new order goes before a field job already late (taken in three ticks
/// ago or more): the squad ordered after the army is answered while the army's field is
/// still growing. A job that has waited 64 ticks is overtaken no more: the army is then
/// answered first. Every ticket ends with a path either way.
#[test]
fn new_orders_go_before_late_fields_but_not_starving_ones() {
    for (wait, overtakes) in [(3, true), (64, false)] {
        // Walls down columns 8, 24, 40 and 56, each with a gap at rows 3, 23 and 43.
        let grid = Grid::from_fn(64, 64, |x, y| x % 16 != 8 || y % 20 == 3);
        let (world, infantry) = one_class_world(grid, Mode::Exact);
        let config = ServiceConfig::default().with_lanes(1);
        let mut service = PathService::with_config(&world, config);
        let army: Vec<Ticket> = (0..40u32)
            .map(|i| {
                let start = Cell::new(i % 10 * 6 + 1, i / 10 * 15 + 5);
                order(
                    &mut service,
                    &world,
                    (infantry, i),
                    start,
                    Cell::new(62, 62),
                )
            })
            .collect();
        service.tick(&world, Budget::Expansions(200)).unwrap();
        for _ in 0..wait {
            service.tick(&world, Budget::Expansions(1)).unwrap();
        }
        let waiting = |service: &PathService| {
            army.iter()
                .filter(|&&t| service.outcome(t).is_none())
                .count()
        };
        assert!(
            waiting(&service) > 0,
            "the army's field was done too soon for the test"
        );
        let squad: Vec<Ticket> = (0..10u32)
            .map(|i| {
                let start = Cell::new(1 + i % 5, 1 + i / 5);
                order(
                    &mut service,
                    &world,
                    (infantry, 100 + i),
                    start,
                    Cell::new(30, 40),
                )
            })
            .collect();
        let mut ticks = 0;
        while squad.iter().any(|&t| service.outcome(t).is_none()) {
            // The first tick takes the squad's ten requests in at once (a quarter of the
            // budget): one field job.
            let budget = if ticks == 0 { 40 } else { 4 };
            service.tick(&world, Budget::Expansions(budget)).unwrap();
            ticks += 1;
            assert!(ticks < 10_000, "the squad was never answered");
        }
        let left = waiting(&service);
        if overtakes {
            assert!(left > 0, "the late army went first");
        } else {
            assert_eq!(left, 0, "the starving army was overtaken");
        }
        tick_until_idle(&mut service, &world, Budget::Expansions(100));
        for &t in army.iter().chain(&squad) {
            assert!(
                matches!(service.outcome(t), Some(Outcome::Full(_))),
                "{t:?}"
            );
        }
    }
}
