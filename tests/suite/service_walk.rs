//! The units' walk: [`PathService::step`] against the calls it stands for (read the path
//! with `outcome`, report the next index with `advance`), on two services fed the same
//! requests, edits, releases and ticks, one walked each way, with a ledger of each unit's
//! progress as the oracle of where it stands.

use crate::common::service_setup::one_class_world;
use crate::common::Rng;
use crate::service_props::{open_grid, put_up_or_take_down, world};
use proptest::prelude::*;
use quadpath::service::{
    Budget, Outcome, PathEvent, PathService, RequestOptions, ServiceConfig, ServiceError, Status,
    Ticket,
};
use quadpath::units::UnitId;
use quadpath::{Cell, Grid, Mode, Rect};
use std::collections::HashMap;

/// What `step` should answer for `ticket`, found the long way on `service` (the unit
/// standing at `progress` on its path): the next position, read from the path that
/// `outcome` gives, and reported with `advance`; or why the unit cannot move.
fn step_the_long_way(
    service: &mut PathService,
    ticket: Ticket,
    progress: usize,
) -> Result<Option<Cell>, ServiceError> {
    let next = match service.outcome(ticket) {
        Some(outcome) => match outcome.path() {
            Some(path) => path.cells.get(progress + 1).copied(),
            None => return Err(ServiceError::NoPath { ticket }),
        },
        None => {
            return Err(match service.poll(ticket) {
                Err(error) => error,
                Ok(Status::Rechecking(_)) => ServiceError::Rechecking { ticket },
                Ok(_) => ServiceError::NoPath { ticket },
            })
        }
    };
    if next.is_some() {
        service.advance(ticket, progress + 1)?;
    }
    Ok(next)
}

/// Both services' drained outcomes and events, which must be the same; the units whose
/// path was (re)delivered start over on it.
fn drain_both(
    long: &mut PathService,
    short: &mut PathService,
    progress: &mut HashMap<Ticket, usize>,
) -> Result<(), TestCaseError> {
    let events: Vec<PathEvent> = long.drain_events().collect();
    prop_assert_eq!(&events, &short.drain_events().collect::<Vec<_>>());
    let finished: Vec<(Ticket, Outcome)> = long.drain_finished().collect();
    prop_assert_eq!(&finished, &short.drain_finished().collect::<Vec<_>>());
    for (ticket, _) in finished {
        progress.insert(ticket, 0);
    }
    Ok(())
}

/// A ticket holding a path, on `service`, drawn from `issued` (`None` if none holds one):
/// the jumps, releases and buildings of the proptest go where a unit walks.
fn a_walking_ticket(service: &PathService, issued: &[Ticket], rng: &mut Rng) -> Option<Ticket> {
    let walking: Vec<Ticket> = (issued.iter().copied())
        .filter(|&t| service.outcome(t).and_then(|o| o.path()).is_some())
        .collect();
    (!walking.is_empty()).then(|| walking[rng.below(walking.len() as u64) as usize])
}

/// Any ticket of `issued` one time in four (stale, released, pending or failed ones too),
/// else one holding a path.
fn a_ticket(service: &PathService, issued: &[Ticket], rng: &mut Rng) -> Option<Ticket> {
    if issued.is_empty() {
        return None;
    }
    let any = issued[rng.below(issued.len() as u64) as usize];
    if rng.below(4) == 0 {
        return Some(any);
    }
    a_walking_ticket(service, issued, rng).or(Some(any))
}

/// A cell of `open` drawn at random, open if one of a few draws is.
fn an_open_cell(open: &Grid, rng: &mut Rng) -> Cell {
    let (w, h) = (open.width() as u64, open.height() as u64);
    let mut cell = Cell::new(0, 0);
    for _ in 0..8 {
        cell = Cell::new(rng.below(w) as u32, rng.below(h) as u32);
        if open.is_free(cell) {
            break;
        }
    }
    cell
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random requests, releases, edits, ticks, walks and jumps (`advance` several
    /// positions on, past the 16 packed moves too) on two services: every `step` on one
    /// answers what `outcome` + `advance` answer on the other (the same position, the same
    /// typed error for stale, released, pending, failed, invalidated and rechecking
    /// tickets), and the two stay alike (the same outcomes, repairs from the same
    /// positions, the same events). Jumps, releases and some buildings go where units walk
    /// (a building a few cells ahead of one), so that repaired and invalidated paths are
    /// stepped on.
    #[test]
    fn step_answers_as_outcome_and_advance(seed in any::<u64>(), ops in 30usize..120) {
        let (w, h) = (40, 24);
        let (mut world, classes) = world(seed, w, h);
        let config = ServiceConfig::default().with_lanes(2).with_flow_threshold(3);
        let mut long = PathService::with_config(&world, config);
        let mut short = PathService::with_config(&world, config);
        let mut rng = Rng(seed ^ 0x3a1f);
        let mut issued: Vec<Ticket> = Vec::new();
        let mut progress: HashMap<Ticket, usize> = HashMap::new();
        let mut buildings: Vec<Rect> = Vec::new();
        for _ in 0..ops {
            match rng.below(14) {
                0..=2 => {
                    let class = classes[rng.below(2) as usize];
                    let start = an_open_cell(&open_grid(&world, class), &mut rng);
                    let goal = Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32);
                    let options = RequestOptions::default().repair(rng.below(4) != 0);
                    let unit = UnitId::new(rng.below(8) as u32);
                    let a = long.request(&world, class, unit, start, goal, options);
                    let b = short.request(&world, class, unit, start, goal, options);
                    prop_assert_eq!(&a, &b);
                    if let Ok(ticket) = a {
                        issued.push(ticket);
                    }
                }
                3 => {
                    // Stale tickets too: released twice, or of a reused slot.
                    if let Some(ticket) = a_ticket(&long, &issued, &mut rng) {
                        prop_assert_eq!(long.release(ticket), short.release(ticket));
                    }
                }
                4 => {
                    let report = put_up_or_take_down(&mut world, &mut rng, &mut buildings);
                    long.notify_edit(&world, &report);
                    short.notify_edit(&world, &report);
                }
                5 => {
                    // A building of one or two cells a few positions ahead of a walking
                    // unit: the sweep invalidates its path, and repairs it or not.
                    let Some(ticket) = a_walking_ticket(&long, &issued, &mut rng) else {
                        continue;
                    };
                    let at = progress.get(&ticket).copied().unwrap_or(0);
                    let ahead = at + 2 + rng.below(4) as usize;
                    let path = long.outcome(ticket).and_then(|o| o.path()).expect("a path");
                    let Some(&cell) = path.cells.get(ahead) else {
                        continue;
                    };
                    let x2 = (cell.x + rng.below(2) as u32).min(w - 1);
                    let building = Rect::new(cell.x, cell.y, x2, cell.y);
                    buildings.push(building);
                    let report = world.set_blocked(building, true).unwrap();
                    long.notify_edit(&world, &report);
                    short.notify_edit(&world, &report);
                }
                6..=7 => {
                    let budget = Budget::Expansions(1 + rng.below(400) as usize);
                    prop_assert_eq!(long.tick(&world, budget), short.tick(&world, budget));
                    drain_both(&mut long, &mut short, &mut progress)?;
                }
                8 => {
                    // A jump: `advance` some positions on (or behind, or past the end, or
                    // past the 16 packed moves), on both; the short walk's packed moves are
                    // skipped or dropped.
                    let Some(ticket) = a_ticket(&long, &issued, &mut rng) else {
                        continue;
                    };
                    let at = progress.get(&ticket).copied().unwrap_or(0);
                    let index = (at + rng.below(40) as usize).saturating_sub(2);
                    let a = long.advance(ticket, index);
                    prop_assert_eq!(&a, &short.advance(ticket, index));
                    if a.is_ok() {
                        progress.insert(ticket, index);
                    }
                }
                _ => {
                    // A frame of the walk: every ticket ever issued steps once.
                    for &ticket in &issued {
                        let at = progress.get(&ticket).copied().unwrap_or(0);
                        let expected = step_the_long_way(&mut long, ticket, at);
                        let got = short.step(ticket);
                        prop_assert_eq!(&got, &expected, "{} at {}", ticket, at);
                        if let Ok(Some(_)) = got {
                            progress.insert(ticket, at + 1);
                        }
                    }
                }
            }
            for &ticket in &issued {
                prop_assert_eq!(long.poll(ticket), short.poll(ticket), "{}", ticket);
            }
        }
    }
}

/// A unit walks a long path to its end with `step` alone, through a repair that replaces
/// the path halfway: each position is the next of the path the ticket holds, the repaired
/// path starts where the unit stands, and the unit ends on the goal.
#[test]
fn a_unit_walks_to_its_goal_through_a_repair() {
    let (mut world, infantry) = one_class_world(Grid::new_free(60, 20), Mode::Exact);
    let mut service = PathService::new(&world);
    let (start, goal) = (Cell::new(1, 1), Cell::new(58, 18));
    let ticket = service
        .request(
            &world,
            infantry,
            UnitId::new(0),
            start,
            goal,
            RequestOptions::default(),
        )
        .unwrap();
    let (mut here, mut index, mut repaired) = (start, 0usize, false);
    let mut delivered: Vec<Vec<Cell>> = Vec::new();
    for frame in 0..10_000 {
        service.tick(&world, Budget::Expansions(500)).unwrap();
        for (t, outcome) in service.drain_finished() {
            assert_eq!(t, ticket);
            let path = outcome.path().expect("a path");
            assert_eq!(path.cells[0], here, "a repair starts where the unit stands");
            delivered.push(path.cells.clone());
            index = 0;
        }
        let Some(path) = service.outcome(ticket).and_then(|o| o.path()).cloned() else {
            continue; // pending: the repair
        };
        match service.step(ticket).unwrap() {
            Some(next) => {
                index += 1;
                assert_eq!(next, path.cells[index], "frame {frame}");
                here = next;
            }
            None => {
                assert_eq!(here, goal);
                assert!(repaired, "the wall went up across the path");
                assert!(delivered.len() >= 2, "a repair was delivered");
                assert_ne!(
                    delivered[0],
                    delivered[delivered.len() - 1],
                    "on a new path"
                );
                assert_eq!(delivered.last().unwrap().last(), Some(&goal));
                return;
            }
        }
        if !repaired && index == 20 {
            // A wall across the rest of the path (which goes east), with a gap at the
            // bottom.
            let wall = Rect::new(here.x + 5, 0, here.x + 5, 18);
            let report = world.set_blocked(wall, true).unwrap();
            service.notify_edit(&world, &report);
            assert_eq!(
                service.step(ticket),
                Err(ServiceError::Rechecking { ticket }),
                "not before the sweep has checked it"
            );
            repaired = true;
        }
    }
    panic!("the unit never arrived");
}

/// A unit whose path a building cuts, with no repair asked: `step` refuses while the sweep
/// has not checked the path, then says the ticket holds no path once it is invalidated, as
/// `poll` and `advance` do; the unit stays where it stood.
#[test]
fn no_step_on_a_path_invalidated_without_repair() {
    let (mut world, infantry) = one_class_world(Grid::new_free(30, 10), Mode::Exact);
    let mut service = PathService::new(&world);
    let (start, goal) = (Cell::new(1, 5), Cell::new(28, 5));
    let options = RequestOptions::default().repair(false);
    let ticket = service
        .request(&world, infantry, UnitId::new(0), start, goal, options)
        .unwrap();
    service.tick(&world, Budget::Expansions(10_000)).unwrap();
    let path = service.outcome(ticket).and_then(|o| o.path()).cloned();
    let path = path.expect("a path on a free grid");
    for index in 1..=3 {
        assert_eq!(service.step(ticket), Ok(Some(path.cells[index])));
    }
    // A building on the path, a few cells ahead of the unit.
    let ahead = path.cells[6];
    let report = world.set_blocked(Rect::new(ahead.x, ahead.y, ahead.x, ahead.y), true);
    service.notify_edit(&world, &report.unwrap());
    assert_eq!(
        service.step(ticket),
        Err(ServiceError::Rechecking { ticket })
    );
    service.tick(&world, Budget::Expansions(10_000)).unwrap();
    let events: Vec<PathEvent> = service.drain_events().collect();
    assert!(
        matches!(events[..], [PathEvent::Invalidated { ticket: t, .. }] if t == ticket),
        "{events:?}"
    );
    assert_eq!(service.poll(ticket), Ok(Status::Invalidated));
    for _ in 0..2 {
        assert_eq!(service.step(ticket), Err(ServiceError::NoPath { ticket }));
    }
    assert_eq!(
        service.advance(ticket, 4),
        Err(ServiceError::NoPath { ticket })
    );
}
