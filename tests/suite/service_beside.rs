//! The tick beside the frame (`PathService::tick_beside`): the frame work stays on the
//! calling thread, and under an expansion budget the outcomes and events are those of
//! plain `tick`, on any pool.

use crate::common::Rng;
use crate::service_props::{random_goal, world};
use quadpath::service::{Budget, PathService, RequestOptions, ServiceConfig, ServiceError, Ticket};
use quadpath::units::UnitId;
use quadpath::{Cell, Rect, World};
use std::rc::Rc;

/// How a script runs its ticks.
#[derive(Clone, Copy, Debug)]
enum Ticking {
    /// `tick`, then the frame work.
    Plain,
    /// `tick_beside` with the frame work.
    Beside,
}

/// What the frame work does while the tick runs: reads the world as a game's frame would.
fn frame_work(world: &World, rng_seed: u64) -> usize {
    let mut rng = Rng(rng_seed);
    let (class, _) = world.classes().next().expect("a class");
    let from = Cell::new(rng.below(40) as u32, rng.below(30) as u32);
    let to = Cell::new(rng.below(40) as u32, rng.below(30) as u32);
    world
        .find_path(class, from, to)
        .map_or(0, |p| p.cells.len())
}

/// Requests, cancels, edits and units walking along their paths for 80 frames, ticked
/// with `Budget::Expansions`; every tick's report, outcome and event, in order.
fn script(ticking: Ticking) -> Vec<String> {
    let (mut world, classes) = world(7, 40, 30);
    let config = ServiceConfig::default()
        .with_lanes(3)
        .with_flow_threshold(4);
    let mut service = PathService::with_config(&world, config);
    let mut rng = Rng(11);
    let mut log = Vec::new();
    let mut live: Vec<(Ticket, usize)> = Vec::new();
    let mut buildings: Vec<Rect> = Vec::new();
    for frame in 0..80u64 {
        for _ in 0..rng.below(7) {
            let class = classes[rng.below(2) as usize];
            let start = Cell::new(rng.below(40) as u32, rng.below(30) as u32);
            let goal = random_goal(&mut rng, 40, 30);
            let unit = UnitId::new(rng.below(50) as u32);
            if let Ok(t) =
                service.request(&world, class, unit, start, goal, RequestOptions::default())
            {
                live.push((t, 0));
            }
        }
        if rng.below(8) == 0 && !live.is_empty() {
            let (t, _) = live.remove(rng.below(live.len() as u64) as usize);
            log.push(format!("cancel {t}: {:?}", service.cancel(t)));
        }
        if frame % 7 == 3 {
            let report = if buildings.len() < 3 || rng.below(2) == 0 {
                let (x, y) = (rng.below(36) as u32, rng.below(26) as u32);
                let r = Rect::new(
                    x,
                    y,
                    x + 1 + rng.below(3) as u32,
                    y + 1 + rng.below(3) as u32,
                );
                buildings.push(r);
                world.set_blocked(r, true).unwrap()
            } else {
                world.set_blocked(buildings.remove(0), false).unwrap()
            };
            service.notify_edit(&world, &report);
        }
        // Units walk two positions a frame along their paths.
        for (t, progress) in &mut live {
            let len = service
                .outcome(*t)
                .and_then(|o| o.path())
                .map(|p| p.cells.len());
            if let Some(len) = len {
                *progress = (*progress + 2).min(len - 1);
                service.advance(*t, *progress).unwrap();
            }
        }
        let budget = Budget::Expansions(40 + rng.below(160) as usize);
        let (report, frame_result) = match ticking {
            Ticking::Plain => {
                let report = service.tick(&world, budget);
                (report, frame_work(&world, frame))
            }
            Ticking::Beside => {
                let beside = service.tick_beside(&world, budget, || frame_work(&world, frame));
                (beside.tick, beside.frame)
            }
        };
        log.push(format!(
            "frame {frame}: {report:?}, frame work {frame_result}"
        ));
        log.extend(service.drain_events().map(|e| format!("{e:?}")));
        for (t, o) in service.drain_finished() {
            if let Some((_, progress)) = live.iter_mut().find(|(l, _)| *l == t) {
                *progress = 0;
            }
            log.push(format!("{t} {o:?}"));
        }
    }
    log
}

/// Under an expansion budget, the tick beside the frame gives the outcomes, events and
/// reports of plain `tick` (which `deterministic_for_any_thread_count` shows are the same
/// on any pool), on pools of 1 and 2 threads.
#[test]
fn beside_the_frame_is_plain_tick_under_an_expansion_budget() {
    let plain = script(Ticking::Plain);
    let count = |word: &str| plain.iter().filter(|l| l.contains(word)).count();
    let (full, invalidated) = (count("Full"), count("Invalidated"));
    assert!(
        full >= 30 && invalidated > 0,
        "{full} paths, {invalidated} invalidated: {plain:#?}"
    );
    #[cfg(feature = "parallel")]
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let beside = pool.install(|| script(Ticking::Beside));
        assert_eq!(plain, beside, "{threads} threads");
    }
    // From outside any pool (the global pool takes the tick), or without `parallel`.
    assert_eq!(plain, script(Ticking::Beside));
}

/// The frame work runs on the calling thread, never on a pool thread, even when it is not
/// `Send`; the call returns both results.
#[test]
fn the_frame_work_stays_on_the_calling_thread() {
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    send::<PathService>();
    sync::<World>();

    let (world, classes) = world(3, 40, 30);
    let mut service = PathService::new(&world);
    let ticket = service
        .request(
            &world,
            classes[0],
            UnitId::new(0),
            Cell::new(0, 0),
            Cell::new(39, 29),
            RequestOptions::default(),
        )
        .unwrap();
    let caller = std::thread::current().id();
    // Not `Send`: a render thread's context.
    let context = Rc::new(7);
    let mut frames = 0;
    while service.pending() > 0 {
        let beside = service.tick_beside(&world, Budget::Expansions(50), || {
            (std::thread::current().id(), rayon_index(), *context)
        });
        let report = beside.tick.unwrap();
        assert!(report.work > 0);
        assert_eq!(beside.frame, (caller, None, 7));
        // The tick ran on a pool thread with `parallel` (beside the frame, not before or
        // after it on this thread), on this thread without it.
        assert_eq!(
            beside.tick_thread.is_some(),
            cfg!(feature = "parallel"),
            "tick on pool thread {:?}",
            beside.tick_thread
        );
        frames += 1;
        assert!(frames < 1_000);
    }
    assert!(service.outcome(ticket).and_then(|o| o.path()).is_some());
    // A bad budget: the tick's error, the frame work done all the same.
    let beside = service.tick_beside(&world, Budget::Expansions(0), || *context + 1);
    assert_eq!(
        (beside.tick, beside.frame),
        (Err(ServiceError::ZeroBudget), 8)
    );
}

/// The rayon pool thread the caller is, if any.
#[cfg(feature = "parallel")]
fn rayon_index() -> Option<usize> {
    rayon::current_thread_index()
}

/// [`rayon_index`] without the `parallel` feature: never a pool thread.
#[cfg(not(feature = "parallel"))]
fn rayon_index() -> Option<usize> {
    None
}
