//! Property tests of the path service against independent oracles: a plain Dijkstra over
//! each class's open grid (built from the terrain by `Movement::open_grid`, not by the
//! layers), a brute-force scan for the closest reachable position, a step-by-step path
//! checker, fresh unshared answers, and the service's own ledger of tickets.

use crate::common::service_setup::tick_until_idle;
use crate::common::{assert_valid, distances, Rng};
use proptest::prelude::*;
use quadpath::service::{
    Budget, Goal, Outcome, PathEvent, PathService, RequestOptions, ServiceConfig, ServiceError,
    Status, Ticket, WhenUnreachable,
};
use quadpath::units::UnitId;
use quadpath::{Cell, ClassId, Grid, Mode, Movement, Rect, World, WorldEditReport};
use std::collections::HashMap;

/// A world of `w × h` with rocks and walls from `seed`, and an exact class of size 1 and
/// one of size 2.
pub(crate) fn world(seed: u64, w: u32, h: u32) -> (World, [ClassId; 2]) {
    let (mut grid, _) = rocks(seed, w, h, 6);
    // A wall with one gap, so that some goals are walled off for the larger class.
    let x = w / 2;
    for y in 0..h {
        if y != h / 3 {
            grid.set_blocked(Cell::new(x, y), true);
        }
    }
    let mut world = World::new(grid);
    let a = world.add_class(Movement::default(), Mode::Exact).unwrap();
    let b = world
        .add_class(Movement::default().with_size(2).unwrap(), Mode::Exact)
        .unwrap();
    (world, [a, b])
}

/// A `w × h` grid with one rock per `per` cells at places drawn from `seed`, and the
/// generator to draw more from.
pub(crate) fn rocks(seed: u64, w: u32, h: u32, per: u32) -> (Grid, Rng) {
    let mut rng = Rng(seed);
    let mut grid = Grid::new_free(w, h);
    for _ in 0..(w * h / per) {
        let c = Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32);
        grid.set_blocked(c, true);
    }
    (grid, rng)
}

/// A building of up to 3×3 cells goes up at random on `world` (into `buildings`), or one of
/// `buildings` comes down: the world's report of the edit.
pub(crate) fn put_up_or_take_down(
    world: &mut World,
    rng: &mut Rng,
    buildings: &mut Vec<Rect>,
) -> WorldEditReport {
    let (w, h) = (world.grid().width() as u64, world.grid().height() as u64);
    if buildings.is_empty() || rng.below(2) == 0 {
        let c = Cell::new(rng.below(w - 3) as u32, rng.below(h - 3) as u32);
        let r = Rect::new(
            c.x,
            c.y,
            c.x + rng.below(3) as u32,
            c.y + rng.below(3) as u32,
        );
        buildings.push(r);
        world.set_blocked(r, true).unwrap()
    } else {
        let r = buildings.remove(rng.below(buildings.len() as u64) as usize);
        world.set_blocked(r, false).unwrap()
    }
}

pub(crate) fn open_grid(world: &World, class: ClassId) -> Grid {
    world.movement(class).unwrap().open_grid(world.grid())
}

fn octile_to(r: Rect, c: Cell) -> f64 {
    let gap = |v: u32, lo: u32, hi: u32| lo.saturating_sub(v).max(v.saturating_sub(hi));
    let (dx, dy) = (gap(c.x, r.x1, r.x2) as f64, gap(c.y, r.y1, r.y2) as f64);
    dx.max(dy) + (std::f64::consts::SQRT_2 - 1.0) * dx.min(dy)
}

/// Checks one outcome of a request from `start` to the positions `goal` against Dijkstra
/// and brute force on the class's open grid as it stands now.
pub(crate) fn check_outcome(open: &Grid, start: Cell, goal: Rect, outcome: &Outcome) {
    if !open.is_free(start) {
        assert!(
            matches!(outcome, Outcome::Failed(_)),
            "{start} is closed: {outcome:?}"
        );
        return;
    }
    let dist = distances(open, start);
    let at = |c: Cell| dist[(c.y * open.width() + c.x) as usize];
    let best_in_goal = goal
        .cells()
        .filter(|&c| open.is_free(c))
        .filter_map(at)
        .fold(f64::INFINITY, f64::min);
    match outcome {
        Outcome::Full(path) => {
            let end = *path.cells.last().unwrap();
            assert!(goal.contains(end), "full path ends at {end}, off the goal");
            assert_valid(open, start, end, path);
            assert!(
                (path.length - best_in_goal).abs() < 1e-6,
                "full path {} long, optimum {best_in_goal}",
                path.length
            );
        }
        Outcome::Partial {
            path,
            goal_distance,
        } => {
            assert!(
                best_in_goal.is_infinite(),
                "the goal was reachable ({best_in_goal})"
            );
            let end = *path.cells.last().unwrap();
            assert_valid(open, start, end, path);
            let optimal = at(end).expect("the end is reachable");
            assert!(
                (path.length - optimal).abs() < 1e-6,
                "partial path not optimal"
            );
            assert!((octile_to(goal, end) - goal_distance).abs() < 1e-9);
            let closest = open
                .free_cells()
                .filter(|&c| at(c).is_some())
                .map(|c| octile_to(goal, c))
                .fold(f64::INFINITY, f64::min);
            assert!(
                (goal_distance - closest).abs() < 1e-9,
                "partial path ends {goal_distance} from the goal, {closest} is reachable"
            );
            // Ties by path length: no reachable position as close to the goal is nearer
            // the start.
            let nearest_tied = open
                .free_cells()
                .filter(|&c| at(c).is_some() && (octile_to(goal, c) - closest).abs() < 1e-9)
                .filter_map(at)
                .fold(f64::INFINITY, f64::min);
            assert!(
                (path.length - nearest_tied).abs() < 1e-6,
                "partial path {} long, a tied position is {nearest_tied} away",
                path.length
            );
        }
        Outcome::Failed(_) => panic!("an open start with closest-position option failed"),
        _ => panic!("unknown outcome"),
    }
}

/// A random goal: a cell, a small area, or a unit.
pub(crate) fn random_goal(rng: &mut Rng, w: u32, h: u32) -> Goal {
    let c = Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32);
    match rng.below(3) {
        0 => Goal::Cell(c),
        1 => Goal::Area(Rect::new(
            c.x,
            c.y,
            (c.x + 2).min(w - 1),
            (c.y + 1).min(h - 1),
        )),
        _ => Goal::Unit {
            at: c,
            size: 1 + rng.below(2) as u32,
        },
    }
}

/// The positions a goal stands for, by the documented rule (independent of the service).
pub(crate) fn goal_positions(goal: Goal, size: u32, w: u32, h: u32) -> Rect {
    match goal {
        Goal::Cell(c) => Rect::new(c.x, c.y, c.x, c.y),
        Goal::Area(r) => r,
        Goal::Unit { at, size: s } => Rect::new(
            at.x.saturating_sub(size),
            at.y.saturating_sub(size),
            (at.x + s).min(w - 1),
            (at.y + s).min(h - 1),
        ),
        _ => unreachable!(),
    }
}

/// Per ticket: outcomes seen, repairs expected, cancelled, released.
#[derive(Default, Debug)]
struct Ledger {
    progress: usize,
    outcomes: usize,
    repairs: usize,
    cancelled: bool,
    gone: bool,
    options: RequestOptions,
    class: Option<ClassId>,
}

/// Books `events` in the ledger: one event per path per batch, none for a released
/// ticket, a repair expected for each when asked for; an invalidated path is pending again
/// (repair) or held invalidated.
fn check_events(
    service: &PathService,
    ledger: &mut HashMap<Ticket, Ledger>,
    events: Vec<PathEvent>,
) -> Result<(), TestCaseError> {
    let mut seen = HashMap::new();
    for event in events {
        let (ticket, invalidated) = match event {
            PathEvent::Invalidated { ticket, .. } => (ticket, true),
            PathEvent::Replanning { ticket } => (ticket, false),
            _ => unreachable!(),
        };
        *seen.entry(ticket).or_insert(0) += 1;
        let l = ledger.get_mut(&ticket).unwrap();
        prop_assert!(!l.gone, "event for a released ticket");
        if l.options.repair {
            l.repairs += 1;
            if invalidated {
                // Its repair is queued, or already delivered by the tick that swept it.
                prop_assert!(matches!(
                    service.poll(ticket),
                    Ok(Status::Pending | Status::Done(_))
                ));
            }
        } else {
            prop_assert!(invalidated, "a re-plan that was not asked for");
            prop_assert!(matches!(service.poll(ticket), Ok(Status::Invalidated)));
        }
    }
    prop_assert!(
        seen.values().all(|&n| n == 1),
        "one event per path per edit"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every outcome is valid and optimal on the open grid (full paths), or ends at the
    /// closest reachable position (partial paths); and no tick does more than its budget
    /// plus one step per lane.
    #[test]
    fn outcomes_match_oracles_within_budget(seed in any::<u64>(), budget in 1usize..200, threshold in 2usize..6) {
        let (w, h) = (24, 18);
        let (world, classes) = world(seed, w, h);
        let config = ServiceConfig::default().with_lanes(1).with_flow_threshold(threshold);
        let mut service = PathService::with_config(&world, config);
        let mut rng = Rng(seed ^ 0x9e37);
        let mut asked = HashMap::new();
        for i in 0..12 {
            let class = classes[rng.below(2) as usize];
            let start = Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32);
            let goal = random_goal(&mut rng, w, h);
            let t = service.request(&world, class, UnitId::new(i), start, goal, RequestOptions::default()).unwrap();
            let size = world.movement(class).unwrap().size();
            asked.insert(t, (class, start, goal_positions(goal, size, w, h)));
        }
        let gates: usize = classes.iter().map(|&c| world.layer(c).unwrap().gate_count()).max().unwrap();
        let ring = (2 * (w + h) + 8) as usize;
        let mut ticks = 0;
        while service.pending() > 0 {
            let report = service.tick(&world, Budget::Expansions(budget)).unwrap();
            // One lane: at most the budget plus the last step, and no step larger than a
            // flow-field build (a Dijkstra over the gates), a ring, or a path read.
            prop_assert!(report.largest_step <= gates.max(ring).max((w * h) as usize));
            prop_assert!(report.work <= budget + report.largest_step,
                "{} units in a tick of {budget}", report.work);
            ticks += 1;
            prop_assert!(ticks < 10_000, "the service never finishes");
        }
        let finished: Vec<(Ticket, Outcome)> = service.drain_finished().collect();
        prop_assert_eq!(finished.len(), asked.len());
        for (t, outcome) in &finished {
            let (class, start, goal) = asked[t];
            check_outcome(&open_grid(&world, class), start, goal, outcome);
        }
    }

    /// Answers from a shared flow field, from a small group's shared goal side (a bounded
    /// backward search) and from identical requests equal the unshared answers (one
    /// search per request), in length.
    #[test]
    fn shared_answers_equal_unshared(seed in any::<u64>()) {
        let (w, h) = (24, 18);
        let (world, classes) = world(seed, w, h);
        let mut rng = Rng(seed);
        let goal = Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32);
        let mut starts: Vec<Cell> = (0..10)
            .map(|_| Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32))
            .collect();
        starts.push(starts[0]); // an identical request
        let run = |threshold: usize, small_groups: bool| {
            let config = ServiceConfig::default()
                .with_lanes(2)
                .with_flow_threshold(threshold)
                .with_share_small_groups(small_groups);
            let mut service = PathService::with_config(&world, config);
            for (i, &s) in starts.iter().enumerate() {
                service.request(&world, classes[0], UnitId::new(i as u32), s, goal, RequestOptions::default()).unwrap();
            }
            tick_until_idle(&mut service, &world, Budget::Expansions(500));
            let mut out: Vec<(Ticket, Outcome)> = service.drain_finished().collect();
            out.sort_by_key(|(t, _)| *t);
            (out, service.stats().shared)
        };
        let (field, field_count) = run(2, false);
        let (goal_side, goal_side_count) = run(1000, true);
        let (alone, alone_count) = run(1000, false);
        prop_assert_eq!(field_count, starts.len() as u64, "one field answers all");
        prop_assert_eq!(goal_side_count, starts.len() as u64, "one bounded search answers all");
        let repeated = starts.iter().filter(|s| starts.iter().filter(|t| t == s).count() > 1).count();
        prop_assert_eq!(alone_count, repeated as u64, "only identical requests share");
        for ((ta, a), (tb, b)) in field.iter().chain(&goal_side).zip(alone.iter().chain(&alone)) {
            prop_assert_eq!(ta, tb);
            let len = |o: &Outcome| o.path().map(|p| p.length);
            match (len(a), len(b)) {
                (Some(x), Some(y)) => prop_assert!((x - y).abs() < 1e-6, "{x} vs {y}"),
                (x, y) => prop_assert_eq!(x, y),
            }
        }
    }

    /// Random requests, cancels, releases, advances and edits interleaved with ticks:
    /// every ticket ends in exactly one outcome or one cancellation (plus one outcome per
    /// repair); after every tick no path the service holds as valid crosses a closed
    /// position; every invalidation is one event, followed by one repair when asked for.
    #[test]
    fn every_ticket_ends_once(seed in any::<u64>(), ops in 20usize..80) {
        let (w, h) = (20, 16);
        let (mut world, classes) = world(seed, w, h);
        let config = ServiceConfig::default().with_lanes(2).with_flow_threshold(3);
        let mut service = PathService::with_config(&world, config);
        let mut rng = Rng(seed ^ 0x51);
        let mut ledger: HashMap<Ticket, Ledger> = HashMap::new();
        let mut buildings: Vec<Rect> = Vec::new();
        for op in 0..ops {
            match rng.below(10) {
                0..=3 => {
                    let class = classes[rng.below(2) as usize];
                    let start = Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32);
                    let goal = random_goal(&mut rng, w, h);
                    let options = RequestOptions::default()
                        .repair(rng.below(3) != 0)
                        .when_unreachable(if rng.below(4) == 0 { WhenUnreachable::Fail } else { WhenUnreachable::Closest });
                    if let Ok(t) = service.request(&world, class, UnitId::new(rng.below(6) as u32), start, goal, options) {
                        ledger.insert(t, Ledger { options, class: Some(class), ..Ledger::default() });
                    }
                }
                4 => {
                    let live: Vec<Ticket> = ledger.iter().filter(|(_, l)| !l.gone).map(|(t, _)| *t).collect();
                    if !live.is_empty() {
                        let t = live[rng.below(live.len() as u64) as usize];
                        let pending = matches!(service.poll(t), Ok(Status::Pending));
                        service.cancel(t).unwrap();
                        let l = ledger.get_mut(&t).unwrap();
                        l.gone = true;
                        l.cancelled = pending;
                        prop_assert!(service.poll(t).is_err(), "a cancelled ticket is unknown");
                    }
                }
                5 => {
                    let report = put_up_or_take_down(&mut world, &mut rng, &mut buildings);
                    service.notify_edit(&world, &report);
                    let events: Vec<PathEvent> = service.drain_events().collect();
                    check_events(&service, &mut ledger, events)?;
                }
                6 => {
                    // A unit moves along its path.
                    let done: Vec<Ticket> = ledger.keys().copied().filter(|&t| service.outcome(t).and_then(|o| o.path()).is_some()).collect();
                    if let Some(&t) = done.get(op % done.len().max(1)) {
                        let len = service.outcome(t).unwrap().path().unwrap().cells.len();
                        let from = ledger[&t].progress;
                        let index = from + rng.below((len - from) as u64) as usize;
                        service.advance(t, index).unwrap();
                        if from > 0 {
                            // Progress never goes back: the path behind the unit is no
                            // longer watched.
                            let behind = service.advance(t, from - 1);
                            prop_assert!(
                                matches!(behind, Err(ServiceError::IndexBehind { .. })),
                                "{:?}",
                                behind
                            );
                        }
                        ledger.get_mut(&t).unwrap().progress = index;
                    }
                }
                _ => {
                    service.tick(&world, Budget::Expansions(1 + rng.below(300) as usize)).unwrap();
                    // Re-plans after freed ground are announced by the tick that queues them.
                    let events: Vec<PathEvent> = service.drain_events().collect();
                    check_events(&service, &mut ledger, events)?;
                    for (t, outcome) in service.drain_finished() {
                        let l = ledger.get_mut(&t).unwrap();
                        prop_assert!(!l.gone, "an outcome for a cancelled ticket");
                        l.outcomes += 1;
                        l.progress = 0;
                        if let Some(path) = outcome.path() {
                            prop_assert!(!path.cells.is_empty());
                        }
                    }
                    // No path held as valid crosses a closed position or an illegal step.
                    for (&t, l) in &ledger {
                        if let Some(path) = service.outcome(t).and_then(|o| o.path()) {
                            // From where the unit last reported itself on.
                            let open = open_grid(&world, l.class.unwrap());
                            let ahead = quadpath::Path::from_cells(path.cells[l.progress..].to_vec());
                            let (s, e) = (ahead.cells[0], *ahead.cells.last().unwrap());
                            assert_valid(&open, s, e, &ahead);
                        }
                    }
                }
            }
        }
        let mut guard = 0;
        while service.pending() > 0 {
            service.tick(&world, Budget::Expansions(400)).unwrap();
            let events: Vec<PathEvent> = service.drain_events().collect();
            check_events(&service, &mut ledger, events)?;
            guard += 1;
            prop_assert!(guard < 10_000);
        }
        for (t, _) in service.drain_finished() {
            ledger.get_mut(&t).unwrap().outcomes += 1;
        }
        for (t, l) in &ledger {
            if l.cancelled {
                prop_assert!(l.outcomes <= l.repairs, "{t}: outcomes after a cancel");
            } else if !l.gone {
                prop_assert_eq!(l.outcomes, 1 + l.repairs, "{}: {:?}", t, l);
            }
        }
        prop_assert_eq!(service.live_tickets(), ledger.values().filter(|l| !l.gone).count());
    }
}

/// The same requests, edits and budgets give the same outcomes, tick by tick, on rayon
/// pools of 1, 2 and 4 threads.
#[cfg(feature = "parallel")]
#[test]
fn deterministic_for_any_thread_count() {
    let script = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let (mut world, classes) = world(7, 40, 30);
            let mut service = PathService::with_config(
                &world,
                ServiceConfig::default()
                    .with_lanes(3)
                    .with_flow_threshold(4),
            );
            let mut rng = Rng(11);
            let mut log = Vec::new();
            for frame in 0..60 {
                for _ in 0..rng.below(6) {
                    let class = classes[rng.below(2) as usize];
                    let start = Cell::new(rng.below(40) as u32, rng.below(30) as u32);
                    let goal = random_goal(&mut rng, 40, 30);
                    let _ = service.request(
                        &world,
                        class,
                        UnitId::new(rng.below(50) as u32),
                        start,
                        goal,
                        RequestOptions::default(),
                    );
                }
                if frame % 10 == 5 {
                    let r = Rect::new(rng.below(36) as u32, rng.below(26) as u32, 0, 0);
                    let r = Rect::new(r.x1, r.y1, r.x1 + 3, r.y1 + 3);
                    let report = world.set_blocked(r, true).unwrap();
                    service.notify_edit(&world, &report);
                    log.push(format!("{:?}", service.drain_events().collect::<Vec<_>>()));
                }
                let report = service.tick(&world, Budget::Expansions(120)).unwrap();
                log.push(format!("{report:?}"));
                for (t, o) in service.drain_finished() {
                    log.push(format!("{t} {o:?}"));
                }
            }
            log
        })
    };
    let one = script(1);
    assert!(one.len() > 60);
    assert_eq!(one, script(2));
    assert_eq!(one, script(4));
}
