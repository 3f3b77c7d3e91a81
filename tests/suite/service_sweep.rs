//! The sweep of live paths against reported edits, which `notify_edit` leaves to the
//! ticks: against a straightforward reference sweep (every live path walked from its
//! unit's position on the class's open grid after the edits, and the documented bound for
//! re-plans after freed ground, computed here independently), under random edits in
//! batches, random progress and random budgets.

use crate::common::Rng;
use crate::service_props::{check_outcome, goal_positions, open_grid, random_goal, world};
use proptest::prelude::*;
use quadpath::service::{
    Budget, Outcome, PathEvent, PathService, RequestOptions, ServiceConfig, Status, Ticket,
};
use quadpath::units::UnitId;
use quadpath::{Cell, ClassId, Direction, Grid, Path, Rect};
use std::collections::{BTreeMap, BTreeSet};

/// Octile distance between the nearest cells of two rectangles.
fn octile_between(a: Rect, b: Rect) -> f64 {
    let gap = |lo1: u32, hi1: u32, lo2: u32, hi2: u32| {
        lo2.saturating_sub(hi1).max(lo1.saturating_sub(hi2))
    };
    let (dx, dy) = (
        gap(a.x1, a.x2, b.x1, b.x2) as f64,
        gap(a.y1, a.y2, b.y1, b.y2) as f64,
    );
    dx.max(dy) + (std::f64::consts::SQRT_2 - 1.0) * dx.min(dy)
}

/// The first index from `from` of `path` that is not walkable on `open` (position closed,
/// or the step to the next one illegal under the corner rule), if any.
fn first_broken(open: &Grid, path: &[Cell], from: usize) -> Option<usize> {
    (from..path.len()).find(|&i| {
        let c = path[i];
        let step_ok = path.get(i + 1).map_or(true, |&n| {
            Direction::between(c, n).is_some_and(|d| open.can_step(c, d))
        });
        !open.is_free(c) || !step_ok
    })
}

/// A live path as the test knows it.
#[derive(Clone, Debug)]
struct Held {
    class: ClassId,
    goal: Rect,
    repair: bool,
    cells: Vec<Cell>,
    progress: usize,
}

/// What ticks until idle gave: the events, and the outcomes delivered.
type Settled = (Vec<PathEvent>, Vec<(Ticket, Outcome)>);

/// Ticks with `budget` until the service is idle, collecting events and outcomes; checks
/// that no tick delivers anything while its sweep is unfinished.
fn run_until_idle(
    service: &mut PathService,
    world: &quadpath::World,
    rng: &mut Rng,
    max_budget: u64,
) -> Result<Settled, TestCaseError> {
    let (mut events, mut outcomes) = (Vec::new(), Vec::new());
    let (mut ticks, mut quiet) = (0, 0);
    // Re-plans wait for idle lanes: a tick with nothing pending may still queue some.
    while service.pending() > 0 || service.rechecking() || quiet < 2 {
        let before = (events.len(), outcomes.len());
        let budget = 1 + rng.below(max_budget) as usize;
        let report = service.tick(world, Budget::Expansions(budget)).unwrap();
        let lanes = service.config().lanes;
        prop_assert!(
            report.work <= budget + lanes * report.largest_step,
            "{report:?}"
        );
        if report.sweep_unfinished {
            prop_assert_eq!(report.delivered, 0, "a delivery before the sweep ended");
        }
        events.extend(service.drain_events());
        outcomes.extend(service.drain_finished());
        let idle = service.pending() == 0 && before == (events.len(), outcomes.len());
        quiet = if idle { quiet + 1 } else { 0 };
        ticks += 1;
        prop_assert!(
            ticks < 50_000,
            "the service never settles: {} pending, rechecking {}, {report:?}",
            service.pending(),
            service.rechecking()
        );
    }
    Ok((events, outcomes))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Batches of 1 to 3 buildings put up or taken down (each reported), then ticks with
    /// random budgets: the invalidations are exactly the live paths the reference sweep
    /// finds broken, at the first broken index from the unit's position; the re-plans
    /// exactly those the bound allows; every repair and re-plan valid and optimal from the
    /// unit's position on the map as it stands.
    #[test]
    fn the_tick_sweep_matches_a_reference_sweep(seed in any::<u64>(), max_budget in 1u64..400) {
        let (w, h) = (24, 18);
        let (mut world, classes) = world(seed, w, h);
        let config = ServiceConfig::default().with_lanes(1 + (seed % 2) as usize);
        let mut service = PathService::with_config(&world, config);
        let mut rng = Rng(seed ^ 0x5eed);
        let mut held: BTreeMap<Ticket, Held> = BTreeMap::new();
        let mut asked: BTreeMap<Ticket, (ClassId, Rect, bool)> = BTreeMap::new();
        for i in 0..14 {
            let class = classes[rng.below(2) as usize];
            let start = Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32);
            let goal = random_goal(&mut rng, w, h);
            let size = world.movement(class).unwrap().size();
            let repair = rng.below(4) != 0;
            let options = RequestOptions::default().repair(repair);
            let t = service.request(&world, class, UnitId::new(i), start, goal, options).unwrap();
            asked.insert(t, (class, goal_positions(goal, size, w, h), repair));
        }
        let mut buildings: Vec<Rect> = Vec::new();
        for round in 0..5 {
            let (events, outcomes) = run_until_idle(&mut service, &world, &mut rng, max_budget)?;
            if round == 0 {
                prop_assert!(events.is_empty());
            }
            for (t, outcome) in outcomes {
                let (class, goal, repair) = asked[&t];
                let start = outcome.path().map(|p| p.cells[0]);
                if let (Some(path), Some(start)) = (outcome.path(), start) {
                    check_outcome(&open_grid(&world, class), start, goal, &outcome);
                    held.insert(t, Held { class, goal, repair, cells: path.cells.clone(), progress: 0 });
                } else {
                    held.remove(&t);
                }
            }
            // Units walk some way along their paths.
            for (&t, h) in held.iter_mut() {
                let index = h.progress + rng.below((h.cells.len() - h.progress) as u64) as usize;
                service.advance(t, index).unwrap();
                h.progress = index;
            }
            // A batch of edits, each reported, before the next tick.
            let mut freed: Vec<Rect> = Vec::new();
            for _ in 0..1 + rng.below(3) {
                if buildings.is_empty() || rng.below(2) == 0 {
                    let c = Cell::new(rng.below(w as u64 - 3) as u32, rng.below(h as u64 - 3) as u32);
                    let r = Rect::new(c.x, c.y, c.x + rng.below(3) as u32, c.y + rng.below(3) as u32);
                    buildings.push(r);
                    let report = world.set_blocked(r, true).unwrap();
                    service.notify_edit(&world, &report);
                    if report.opened > 0 {
                        freed.push(r);
                    }
                } else {
                    let r = buildings.remove(rng.below(buildings.len() as u64) as usize);
                    let report = world.set_blocked(r, false).unwrap();
                    service.notify_edit(&world, &report);
                    if report.opened > 0 {
                        freed.push(r);
                    }
                }
            }
            prop_assert_eq!(service.drain_events().count(), 0, "notify_edit only records");
            // The reference sweep, on the map as it stands after the batch.
            let mut broken: BTreeSet<(Ticket, usize)> = BTreeSet::new();
            let mut shorter: BTreeSet<Ticket> = BTreeSet::new();
            for (&t, h) in &held {
                let open = open_grid(&world, h.class);
                if let Some(i) = first_broken(&open, &h.cells, h.progress) {
                    broken.insert((t, i));
                    prop_assert!(!matches!(service.poll(t), Ok(Status::Done(_))), "a broken path reported valid");
                    continue;
                }
                let size = world.movement(h.class).unwrap().size();
                let here = h.cells[h.progress];
                let remaining = Path::from_cells(h.cells[h.progress..].to_vec()).cost;
                let may_shorten = freed.iter().any(|z| {
                    let touched = Rect::new(z.x1.saturating_sub(size - 1), z.y1.saturating_sub(size - 1), z.x2, z.y2);
                    let bound = octile_between(touched, Rect::new(here.x, here.y, here.x, here.y))
                        + octile_between(touched, h.goal);
                    bound + 1e-9 < remaining
                });
                if may_shorten && h.repair {
                    shorter.insert(t);
                }
            }
            let (events, outcomes) = run_until_idle(&mut service, &world, &mut rng, max_budget)?;
            let mut invalidated = BTreeSet::new();
            let mut replanned = BTreeSet::new();
            for e in events {
                match e {
                    PathEvent::Invalidated { ticket, first_bad_index } => {
                        prop_assert!(invalidated.insert((ticket, first_bad_index)), "two events for {ticket}");
                    }
                    PathEvent::Replanning { ticket } => {
                        prop_assert!(replanned.insert(ticket), "two re-plans for {ticket}");
                    }
                    _ => unreachable!(),
                }
            }
            prop_assert_eq!(&invalidated, &broken, "invalidations");
            prop_assert_eq!(&replanned, &shorter, "re-plans");
            // Repairs and re-plans start where their units stand.
            for (t, outcome) in &outcomes {
                let h = &held[t];
                if let Some(path) = outcome.path() {
                    prop_assert_eq!(path.cells[0], h.cells[h.progress]);
                }
                let (class, goal, _) = asked[t];
                check_outcome(&open_grid(&world, class), h.cells[h.progress], goal, outcome);
            }
            let dropped: Vec<Ticket> = (broken.iter()).filter(|(t, _)| !held[t].repair).map(|(t, _)| *t).collect();
            for t in dropped {
                prop_assert_eq!(service.poll(t), Ok(Status::Invalidated));
                held.remove(&t);
            }
            // The paths left are true on the map as it stands.
            for (&t, h) in &held {
                if outcomes.iter().any(|(o, _)| *o == t) {
                    continue;
                }
                prop_assert!(matches!(service.poll(t), Ok(Status::Done(_))));
                prop_assert_eq!(first_broken(&open_grid(&world, h.class), &h.cells, h.progress), None);
            }
            // The next round books the repairs and re-plans as the paths held.
            for (t, outcome) in outcomes {
                match outcome.path() {
                    Some(p) => {
                        let h = held.get_mut(&t).unwrap();
                        h.cells = p.cells.clone();
                        h.progress = 0;
                    }
                    None => {
                        held.remove(&t);
                    }
                }
            }
        }
    }
}
