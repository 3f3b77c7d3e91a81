//! An RTS match replayed through the [`PathService`]: an army of units in groups of 1 to 200
//! on a StarCraft map, orders in bursts (the whole army at once, then a group every few
//! frames), buildings going up across paths and coming down, for a number of frames at a
//! budget per frame on the main thread; against the same orders answered by one
//! `World::find_path` per unit per order, with no sharing.
//!
//! Run with
//! `cargo run --release --example service_replay [MAP] [UNITS] [FRAMES] [BUDGET_US] [COMPARE]`
//! (default `maps/Aftershock.map`, 2000 units, 2000 frames, 1000 µs, `1`; `0` skips the
//! comparison, which takes far longer than the service). The 1024² maps of the issue are
//! `../shared/maps/sc1/Cauldron.map` and `Expedition.map`. Prints the figures of the "Path
//! service" section of BENCHMARKS.md; with `REPLAY_SLOW=f` set, every tick over `f` × the budget
//! in CPU time (1.2 × when `f` is not a number) is printed with its report (where the time
//! goes).
//!
//! `REPLAY_BESIDE=<frame ms>` runs the tick beside the frame instead
//! ([`PathService::tick_beside`]): frames are paced at the given length (16.7 for 60 fps),
//! the main thread's "game work" of the frame is waiting out the rest of the frame (a
//! sleep: it leaves the cores to the tick), and the tick runs on a rayon worker meanwhile
//! with `Budget::Time` of `REPLAY_WORKER_MS` (default 8 ms; `REPLAY_UNITS` still makes it
//! an expansion budget). Main-thread time is then the service calls of the update phase
//! plus any wait for the tick at the frame's end; BUDGET_US stays the main thread's budget.
//! In both modes it counts the units' walk (`step` for every unit, every
//! frame: service calls too), which is also shown apart, with the time without it.
//! `REPLAY_THREADS=n` gives rayon's global pool n threads (the cores less one keeps the
//! tick off the main thread's core).
//!
//! `REPLAY_ARMIES=1` stands each group of the frame-0 burst together, as an army a player
//! selects and orders (its units on the open cells nearest its first unit's, in the order
//! a breadth-first walk from there finds them), instead of scattered over the map; every
//! order, edit and later group is the same as without it. The default (scattered groups)
//! is the hard case for shared work: each group's one backward search must reach its
//! farthest member.
//!
//! Experiments on how groups are answered: `REPLAY_CELL_GOALS=1` orders every group to a
//! cell (an area goal is always answered from a flow field), `REPLAY_FLOW_THRESHOLD=n`
//! gives a flow field only to groups of at least n distinct starts, and
//! `REPLAY_SHARE_SMALL=0` answers smaller groups with a search per member instead of one
//! bounded backward search from the goal.
//!
//! `REPLAY_SPLIT=f` prints every frame whose main-thread time (wall, the walk included) is
//! over `f` × the budget (1.0 when `f` is not a number) with what it was made of: the
//! main thread's CPU time on requests and cancels, `notify_edit`, the drains, the walk,
//! `tick` (on the main thread) or the wait for the tick (beside the frame), and the
//! frame's counts (requests, cancels, outcomes delivered).

use quadpath::service::{
    Budget, Goal, Outcome, PathService, RequestOptions, ServiceConfig, ServiceError, ServiceStats,
    Ticket, WorkSplit,
};
use quadpath::units::UnitId;
use quadpath::{io, Cell, ClassId, Config, Movement, Rect, World};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A small deterministic generator.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// The calling thread's CPU time in µs (Linux): unlike wall time, it leaves out the time
/// the thread waits for a core, which on a loaded machine is most of a slow frame.
fn thread_cpu_us() -> f64 {
    cpu_clock_us(3) // CLOCK_THREAD_CPUTIME_ID
}

/// The whole process's CPU time in µs (Linux): beside the frame, what it gains over a
/// `tick_beside` call less the calling thread's gain is the worker's CPU time on the tick
/// (with `REPLAY_THREADS=1` the pool has one thread, idle otherwise).
fn process_cpu_us() -> f64 {
    cpu_clock_us(2) // CLOCK_PROCESS_CPUTIME_ID
}

/// Reads a CPU-time clock of `clock_gettime` (Linux), in µs.
#[cfg(target_os = "linux")]
fn cpu_clock_us(clock: i32) -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: clock_gettime writes one timespec, whose layout `Timespec` matches on 64-bit
    // Linux, and reads nothing else.
    let ok = unsafe { clock_gettime(clock, &mut t) } == 0;
    if ok {
        t.sec as f64 * 1e6 + t.nsec as f64 / 1e3
    } else {
        f64::NAN
    }
}

/// [`cpu_clock_us`] elsewhere: not measured.
#[cfg(not(target_os = "linux"))]
fn cpu_clock_us(_clock: i32) -> f64 {
    f64::NAN
}

/// Percentile `p` (0..=100) of sorted `v`.
fn pct<T: Copy + Default>(v: &[T], p: f64) -> T {
    if v.is_empty() {
        return T::default();
    }
    v[((v.len() - 1) as f64 * p / 100.0).round() as usize]
}

/// The units' walk of one frame: every unit with a path it may follow steps one cell along
/// it ([`PathService::step`], which also reports where it stands); a unit waiting for its
/// path, or whose path an edit may have broken (until the next tick has checked it), stays.
/// Kept out of line, so that profilers can count it alone
/// (`valgrind --tool=callgrind --toggle-collect='*walk_units*'`).
#[inline(never)]
fn walk_units(
    service: &mut PathService,
    ticket_of: &[Option<Ticket>],
    progress: &mut [usize],
    pos: &mut [Cell],
) -> Result<(), ServiceError> {
    for (u, ticket) in ticket_of.iter().enumerate() {
        let Some(ticket) = *ticket else { continue };
        match service.step(ticket) {
            Ok(Some(next)) => {
                progress[u] += 1;
                pos[u] = next;
            }
            Ok(None) | Err(ServiceError::NoPath { .. } | ServiceError::Rechecking { .. }) => {}
            Err(other) => return Err(other),
        }
    }
    Ok(())
}

/// Moves the units of each group the frame-0 burst will form onto the open cells nearest
/// the group's first unit (breadth-first over the class's open cells with the 8 moves, no
/// corner cut, each cell to one unit), so that each army stands together. `burst_rng` is a
/// copy of the replay's generator as frame 0 will find it: frame 0 draws a group's size
/// and then its goal, group after group, and this draws the same.
fn stand_armies_together(
    world: &World,
    class: ClassId,
    pos: &mut [Cell],
    mut burst_rng: Rng,
) -> Result<(), Box<dyn std::error::Error>> {
    let layer = world.layer(class).ok_or("the class has no layer")?;
    let grid = layer.grid();
    let (w, h) = (grid.width(), grid.height());
    let mut taken = vec![false; w as usize * h as usize];
    let index = |c: Cell| c.y as usize * w as usize + c.x as usize;
    let open_count = grid.free_cells().count() as u64;
    let mut first = 0;
    while first < pos.len() {
        let size = (1 + burst_rng.below(200) as usize).min(pos.len() - first);
        burst_rng.below(open_count); // the group's goal, drawn next by frame 0
        let centre = pos[first];
        let mut queue = std::collections::VecDeque::from([centre]);
        let mut seen = std::collections::HashSet::from([centre]);
        let mut placed = 0;
        while placed < size {
            let Some(c) = queue.pop_front() else {
                return Err(format!("no room for an army of {size} around {centre:?}").into());
            };
            if !taken[index(c)] {
                taken[index(c)] = true;
                pos[first + placed] = c;
                placed += 1;
            }
            for (next, _) in grid.successors(c) {
                if seen.insert(next) {
                    queue.push_back(next);
                }
            }
        }
        first += size;
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let file = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/maps/Aftershock.map").into());
    let units: usize = args.get(2).map_or(Ok(2000), |s| s.parse())?;
    let frames: usize = args.get(3).map_or(Ok(2000), |s| s.parse())?;
    let budget = Duration::from_micros(args.get(4).map_or(Ok(1000), |s| s.parse())?);
    // `0` skips the comparison (one find_path per unit per order), which takes far longer.
    let compare = args.get(5).map_or(true, |s| s != "0");

    // `REPLAY_THREADS=n`: rayon's global pool gets n threads (say the cores less one, so
    // that the tick beside the frame never takes the main thread's core).
    #[cfg(feature = "parallel")]
    if let Some(threads) = std::env::var("REPLAY_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()?;
    }
    let mut world = World::new(io::read_map(&file)?);
    // Exact layers with a subgoal graph, whatever the default: groups are answered from one
    // backward search over the subgoals. `REPLAY_SUBGOALS=0` keeps the gate fields instead.
    let subgoals = std::env::var("REPLAY_SUBGOALS").map_or(true, |v| v != "0");
    let infantry = world.add_class(Movement::default(), Config::exact().with_subgoals(subgoals))?;
    let (w, h) = (world.grid().width(), world.grid().height());
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let open: Vec<Cell> = world.layer(infantry).unwrap().grid().free_cells().collect();
    let random_open = |rng: &mut Rng| open[rng.below(open.len() as u64) as usize];
    // Units stand on open cells of the largest region around a first one.
    let anchor = random_open(&mut rng);
    let mut pos: Vec<Cell> = Vec::new();
    while pos.len() < units {
        let c = random_open(&mut rng);
        if world.connected(infantry, anchor, c)? {
            pos.push(c);
        }
    }
    // `REPLAY_ARMIES=1`: each group of the frame-0 burst stands together around its first
    // unit. The burst's group sizes are drawn as frame 0 will draw them (a copy of the
    // generator), so the orders stay those of the scattered replay.
    if std::env::var("REPLAY_ARMIES").is_ok_and(|v| v == "1") {
        stand_armies_together(&world, infantry, &mut pos, rng.clone())?;
    }
    // `REPLAY_LANES=n` sets the service's lanes (default: the service's own default).
    let mut config = ServiceConfig::default();
    if let Some(lanes) = std::env::var("REPLAY_LANES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        config = config.with_lanes(lanes);
    }
    // Experiments: `REPLAY_FLOW_THRESHOLD=n` (groups of fewer distinct starts get no flow
    // field), `REPLAY_SHARE_SMALL=0` (nor a shared goal side: a search per member).
    if let Some(n) = std::env::var("REPLAY_FLOW_THRESHOLD")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        config = config.with_flow_threshold(n);
    }
    if std::env::var("REPLAY_SHARE_SMALL").is_ok_and(|v| v == "0") {
        config = config.with_share_small_groups(false);
    }
    let mut service = PathService::with_config(&world, config);
    // `REPLAY_CELL_GOALS=1`: every order to a cell, large groups too (an area goal is
    // always answered from a flow field).
    let cell_goals = std::env::var("REPLAY_CELL_GOALS").is_ok_and(|v| v == "1");
    // `REPLAY_UNITS=n` gives every tick `Budget::Expansions(n)` instead of the time budget:
    // the deterministic mode, whose figures other loads on the machine do not move.
    let tick_budget = std::env::var("REPLAY_UNITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(Budget::Time(budget), Budget::Expansions);
    // `REPLAY_SLOW=f` prints every tick over `f` × the budget in CPU time (1.2 when `f` is
    // not a number).
    let slow_factor = std::env::var("REPLAY_SLOW")
        .ok()
        .map(|v| v.parse::<f64>().unwrap_or(1.2));
    // `REPLAY_BESIDE=<frame ms>`: the tick beside the frame, with its own budget.
    let beside_frame = std::env::var("REPLAY_BESIDE")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .map(|ms| Duration::from_secs_f64(ms / 1e3));
    let worker_budget = Duration::from_secs_f64(
        std::env::var("REPLAY_WORKER_MS")
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(8.0)
            / 1e3,
    );
    let tick_budget = match (beside_frame, tick_budget) {
        (Some(_), Budget::Time(_)) => Budget::Time(worker_budget),
        (_, budget) => budget,
    };
    // The main thread's CPU time per frame on the service's calls, and on the requests
    // and cancels alone (frame 0: the whole army's burst).
    let (mut main_cpu_us, mut request_cpu_us): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    // The units walking: `outcome` and `advance` for every unit (service calls on the main
    // thread: counted in its time, and shown apart).
    let (mut walk_us, mut walk_cpu_us): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    // The main thread's time without the walk (the figure before session 33).
    let (mut unwalked_us, mut unwalked_cpu_us): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    // The drains' CPU time per frame (events and outcomes).
    let mut drain_cpu_us: Vec<f64> = Vec::new();
    // Beside mode: the main thread's wait for the tick after its frame work.
    let mut waited_us: Vec<f64> = Vec::new();
    let mut ticket_of: Vec<Option<Ticket>> = vec![None; units];
    let mut progress = vec![0usize; units];
    let mut asked_at: HashMap<Ticket, usize> = HashMap::new();
    let mut owner: HashMap<Ticket, usize> = HashMap::new();
    let (mut main_us, mut latency, mut per_frame) = (Vec::new(), Vec::new(), Vec::new());
    let mut naive_us: Vec<f64> = Vec::new();
    let (mut tick_us, mut world_edit_us): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    let mut tick_cpu_us: Vec<f64> = Vec::new();
    // The work units of each tick's sweep of live paths against the edits reported, and
    // the ticks it did not finish.
    let (mut sweep_units, mut sweep_unfinished): (Vec<usize>, usize) = (Vec::new(), 0);
    // `notify_edit`'s CPU time per edit (main thread, outside `tick`).
    let mut notify_cpu_us: Vec<f64> = Vec::new();
    let (mut requests, mut invalid, mut peak_memory) = (0usize, 0usize, 0usize);
    let mut buildings: Vec<Rect> = Vec::new();
    let mut group_sizes = Vec::new();
    // First answers to the orders of frame 0 (the whole army at once), and the latency of
    // every other first answer.
    let (mut burst, mut after_burst) = (Vec::new(), Vec::new());
    // The frame of the burst's last first answer, and the service's counts then.
    let mut burst_done: Option<(usize, ServiceStats)> = None;

    // Beside mode: frames where the main thread waited for the tick more than 5 % of the
    // frame's length.
    let mut late_frames = 0usize;
    // `REPLAY_SPLIT=f`: frames over `f` × the budget printed with their split.
    let split_factor = std::env::var("REPLAY_SPLIT")
        .ok()
        .map(|v| v.parse::<f64>().unwrap_or(1.0));
    for frame in 0..frames {
        let notified_before = notify_cpu_us.len();
        let frame_start = Instant::now();
        // Orders: the whole army in groups at frame 0, then one group every 8 frames.
        let mut orders: Vec<(Vec<usize>, Goal)> = Vec::new();
        let mut issue = |first: usize, size: usize, rng: &mut Rng| {
            let members: Vec<usize> = (first..first + size).map(|i| i % units).collect();
            let at = random_open(rng);
            let goal = if size < 8 || cell_goals {
                Goal::Cell(at)
            } else {
                Goal::Area(Rect::new(
                    at.x.saturating_sub(1),
                    at.y.saturating_sub(1),
                    (at.x + 1).min(w - 1),
                    (at.y + 1).min(h - 1),
                ))
            };
            orders.push((members, goal));
        };
        if frame == 0 {
            let mut first = 0;
            while first < units {
                let size = (1 + rng.below(200) as usize).min(units - first);
                issue(first, size, &mut rng);
                first += size;
            }
        } else if frame % 8 == 0 {
            let size = 1 + rng.below(200) as usize;
            let first = rng.below(units as u64) as usize;
            issue(first, size, &mut rng);
        }
        // The same orders, one find_path per unit (the goal's first cell), no sharing.
        let t = Instant::now();
        for (members, goal) in orders.iter().filter(|_| compare) {
            let target = match *goal {
                Goal::Cell(c) => c,
                Goal::Area(r) => Cell::new(r.x1 + 1, r.y1 + 1),
                _ => unreachable!(),
            };
            for &u in members {
                let _ = world.find_path(infantry, pos[u], target);
            }
        }
        if compare && !orders.is_empty() {
            naive_us.push(t.elapsed().as_secs_f64() * 1e6);
        }

        let t = Instant::now();
        let main_cpu = thread_cpu_us();
        // The service's calls first (timed alone: `request_cpu_us`), then the replay's own
        // bookkeeping of tickets.
        let mut cancelled = Vec::new();
        let mut issued = Vec::new();
        let mut frame_requests = 0usize;
        for (members, goal) in orders {
            group_sizes.push(members.len());
            for u in members {
                if let Some(old) = ticket_of[u].take() {
                    service.cancel(old)?;
                    cancelled.push(old);
                }
                let ticket = service.request(
                    &world,
                    infantry,
                    UnitId::new(u as u32),
                    pos[u],
                    goal,
                    RequestOptions::default(),
                )?;
                ticket_of[u] = Some(ticket);
                issued.push((u, ticket));
                frame_requests += 1;
            }
        }
        request_cpu_us.push(thread_cpu_us() - main_cpu);
        let frame_cancels = cancelled.len();
        for old in cancelled {
            asked_at.remove(&old);
            owner.remove(&old);
        }
        for (u, ticket) in issued {
            progress[u] = 0;
            asked_at.insert(ticket, frame);
            owner.insert(ticket, u);
            requests += 1;
        }
        // Buildings: the world's own edit is the game's work (it happens with or without
        // the service) and is timed apart; `notify_edit` is the service's.
        let (mut edit_us, mut edit_cpu_us) = (0.0, 0.0);
        // One goes up ahead of a moving unit every 20 frames, one comes down.
        if frame % 20 == 10 {
            let u = rng.below(units as u64) as usize;
            let ahead = ticket_of[u]
                .and_then(|t| service.outcome(t))
                .and_then(|o| o.path())
                .and_then(|p| p.cells.get(progress[u] + 6).copied());
            if let Some(c) = ahead {
                let r = Rect::new(
                    c.x.saturating_sub(1),
                    c.y.saturating_sub(1),
                    (c.x + 2).min(w - 1),
                    (c.y + 2).min(h - 1),
                );
                if !pos.iter().any(|&p| r.contains(p)) {
                    let (e, c) = (Instant::now(), thread_cpu_us());
                    let report = world.set_blocked(r, true)?;
                    edit_us += e.elapsed().as_secs_f64() * 1e6;
                    edit_cpu_us += thread_cpu_us() - c;
                    let n = thread_cpu_us();
                    service.notify_edit(&world, &report);
                    notify_cpu_us.push(thread_cpu_us() - n);
                    buildings.push(r);
                }
            }
        } else if frame % 20 == 0 && buildings.len() > 3 {
            let r = buildings.remove(0);
            let (e, c) = (Instant::now(), thread_cpu_us());
            let report = world.set_blocked(r, false)?;
            edit_us += e.elapsed().as_secs_f64() * 1e6;
            edit_cpu_us += thread_cpu_us() - c;
            let n = thread_cpu_us();
            service.notify_edit(&world, &report);
            notify_cpu_us.push(thread_cpu_us() - n);
        }
        let drain_cpu = thread_cpu_us();
        service.drain_events().for_each(drop);
        let mut drained_cpu_us = thread_cpu_us() - drain_cpu;
        let tick_start = Instant::now();
        let tick_cpu = thread_cpu_us();
        // The frame's own work on the main thread (beside mode only), not counted in its
        // time: waiting out the frame.
        let mut frame_work_us = 0.0;
        // The worker's CPU time on the tick (beside the frame only).
        let mut worker_cpu_us = f64::NAN;
        let (report, tick_end) = match beside_frame {
            None => {
                let report = service.tick(&world, tick_budget)?;
                (report, Instant::now())
            }
            Some(length) => {
                // The frame's work ends `length` after its start; the drain and the units'
                // walk come after it.
                let frame_end = frame_start + length;
                let (process_before, thread_before) = (process_cpu_us(), thread_cpu_us());
                let beside = service.tick_beside(&world, tick_budget, || {
                    let started = Instant::now();
                    if let Some(rest) = frame_end.checked_duration_since(started) {
                        std::thread::sleep(rest);
                    }
                    started.elapsed()
                });
                worker_cpu_us =
                    (process_cpu_us() - process_before) - (thread_cpu_us() - thread_before);
                frame_work_us = beside.frame.as_secs_f64() * 1e6;
                late_frames += usize::from(beside.waited > length / 20);
                waited_us.push(beside.waited.as_secs_f64() * 1e6);
                (beside.tick?, tick_start + beside.tick_time)
            }
        };
        tick_cpu_us.push(thread_cpu_us() - tick_cpu);
        // Beside the frame, a slow tick is one whose CPU time on the worker passes `f` ×
        // the worker's budget (its wall time may pass it while the worker waits for a
        // core); on the main thread, one whose CPU time passes `f` × the budget.
        let slow = match (beside_frame, tick_budget) {
            (Some(_), Budget::Time(worker)) => {
                slow_factor.is_some_and(|f| worker_cpu_us > worker.as_secs_f64() * 1e6 * f)
            }
            _ => slow_factor.is_some_and(|f| {
                tick_cpu_us
                    .last()
                    .is_some_and(|&t| t > budget.as_secs_f64() * 1e6 * f)
            }),
        };
        if slow {
            eprintln!(
                "slow frame {frame}: tick {:?}, CPU {:.0} µs, worker CPU {:.0} µs, {report:?}",
                tick_end - tick_start,
                tick_cpu_us.last().unwrap(),
                worker_cpu_us
            );
        }

        let mut delivered = 0;
        let drain_cpu = thread_cpu_us();
        let finished: Vec<(Ticket, Outcome)> = service.drain_finished().collect();
        drained_cpu_us += thread_cpu_us() - drain_cpu;
        drain_cpu_us.push(drained_cpu_us);
        // Main-thread time pauses here: what follows is the replay's own bookkeeping and
        // checks, then the units' walk, which is added.
        unwalked_us.push(t.elapsed().as_secs_f64() * 1e6 - edit_us - frame_work_us);
        unwalked_cpu_us.push(thread_cpu_us() - main_cpu - edit_cpu_us);
        let layer = world.layer(infantry).unwrap();
        for (ticket, outcome) in finished {
            delivered += 1;
            if let Some(at) = asked_at.remove(&ticket) {
                latency.push(frame - at);
                if at == 0 {
                    burst.push(frame);
                } else {
                    after_burst.push(frame - at);
                }
            }
            if let Some(&u) = owner.get(&ticket) {
                progress[u] = 0;
                if let Some(p) = outcome.path() {
                    // Zero invalid paths: every step legal on the map as it stands.
                    let ok = p.cells.windows(2).all(|s| {
                        quadpath::Direction::between(s[0], s[1])
                            .is_some_and(|d| layer.grid().can_step(s[0], d))
                    }) && p.cells[0] == pos[u];
                    invalid += usize::from(!ok);
                }
            }
            let _ = matches!(outcome, Outcome::Full(_));
        }
        per_frame.push(delivered);
        tick_us.push((tick_end - tick_start).as_secs_f64() * 1e6);
        if edit_us > 0.0 {
            world_edit_us.push(edit_us);
        }
        if report.sweep_work > 0 || report.sweep_unfinished {
            sweep_units.push(report.sweep_work);
            sweep_unfinished += usize::from(report.sweep_unfinished);
        }
        if burst_done.is_none() && frame > 0 && !asked_at.values().any(|&at| at == 0) {
            burst_done = Some((frame, service.stats()));
        }
        // Units walk one cell per frame along their paths.
        let (walk, walk_cpu) = (Instant::now(), thread_cpu_us());
        walk_units(&mut service, &ticket_of, &mut progress, &mut pos)?;
        walk_us.push(walk.elapsed().as_secs_f64() * 1e6);
        walk_cpu_us.push(thread_cpu_us() - walk_cpu);
        main_us.push(unwalked_us.last().unwrap() + walk_us.last().unwrap());
        main_cpu_us.push(unwalked_cpu_us.last().unwrap() + walk_cpu_us.last().unwrap());
        if split_factor.is_some_and(|f| *main_us.last().unwrap() > budget.as_secs_f64() * 1e6 * f) {
            let tick_part = if beside_frame.is_some() {
                format!(
                    "wait {:.0} (the tick: {:.0} wall on the worker)",
                    waited_us.last().copied().unwrap_or(0.0),
                    tick_us.last().copied().unwrap_or(0.0)
                )
            } else {
                format!("tick {:.0}", tick_cpu_us.last().copied().unwrap_or(0.0))
            };
            eprintln!(
                "split frame {frame}: main {:.0} µs wall ({:.0} CPU); CPU: requests+cancels {:.0}, notify {:.0}, drains {:.0}, walk {:.0} ({:.0} wall), {tick_part}; {frame_requests} requests, {frame_cancels} cancels, {delivered} outcomes",
                main_us.last().unwrap(),
                main_cpu_us.last().unwrap(),
                request_cpu_us.last().unwrap(),
                notify_cpu_us[notified_before..].iter().sum::<f64>(),
                drain_cpu_us.last().unwrap(),
                walk_cpu_us.last().unwrap(),
                walk_us.last().unwrap(),
            );
        }
        peak_memory = peak_memory.max(service.memory_bytes());
    }
    let stats = service.stats();
    main_us.sort_by(f64::total_cmp);
    naive_us.sort_by(f64::total_cmp);
    tick_us.sort_by(f64::total_cmp);
    tick_cpu_us.sort_by(f64::total_cmp);
    world_edit_us.sort_by(f64::total_cmp);
    notify_cpu_us.sort_by(f64::total_cmp);
    latency.sort_unstable();
    after_burst.sort_unstable();
    burst.sort_unstable();
    per_frame.sort_unstable();
    let within = main_us
        .iter()
        .filter(|&&t| t <= budget.as_secs_f64() * 1e6 * 1.05)
        .count();
    let in3 = latency.iter().filter(|&&l| l <= 3).count();
    println!("map {file} ({w}x{h}), {units} units, {frames} frames, budget {} µs ({tick_budget:?}), {} orders, subgoal layers: {subgoals}, beside the frame: {beside_frame:?}", budget.as_micros(), group_sizes.len());
    println!("| figure | path service | one find_path per unit per order |");
    println!("|---|---:|---:|");
    println!("| main-thread time per frame (service calls, the units' walk included): median / p99 / max | {:.0} / {:.0} / {:.0} µs | {:.0} / {:.0} / {:.0} µs (frames with orders) |",
        pct(&main_us, 50.0), pct(&main_us, 99.0), main_us.last().copied().unwrap_or(0.0),
        pct(&naive_us, 50.0), pct(&naive_us, 99.0), naive_us.last().copied().unwrap_or(0.0));
    // Beside the frame the tick runs on a worker: its wall time is not the main thread's,
    // and the calling thread's CPU during the call is the frame's own work and the wait.
    let (tick_row, tick_cpu_row, within_row) = if beside_frame.is_some() {
        (
            "the tick's wall time, on the worker (not main-thread time)",
            "the calling thread's CPU time during `tick_beside` (its frame work and the wait)",
            "`tick_beside` calls within the budget by the calling thread's CPU time (+5 %)",
        )
    } else {
        (
            "of which `tick`",
            "`tick`'s CPU time on the calling thread",
            "ticks within budget by CPU time (+5 %)",
        )
    };
    println!(
        "| {tick_row}: median / p99 / max | {:.0} / {:.0} / {:.0} µs | |",
        pct(&tick_us, 50.0),
        pct(&tick_us, 99.0),
        tick_us.last().copied().unwrap_or(0.0)
    );
    println!(
        "| {tick_cpu_row}: median / p99 / max | {:.0} / {:.0} / {:.0} µs | |",
        pct(&tick_cpu_us, 50.0),
        pct(&tick_cpu_us, 99.0),
        tick_cpu_us.last().copied().unwrap_or(0.0)
    );
    let cpu_within = tick_cpu_us
        .iter()
        .filter(|&&t| t <= budget.as_secs_f64() * 1e6 * 1.05)
        .count();
    println!(
        "| {within_row} | {:.2} % | |",
        cpu_within as f64 * 100.0 / tick_cpu_us.len().max(1) as f64
    );
    println!(
        "| the world's own edits (not counted above): median / max | {:.0} / {:.0} µs | same |",
        pct(&world_edit_us, 50.0),
        world_edit_us.last().copied().unwrap_or(0.0)
    );
    println!(
        "| `notify_edit`'s CPU time per edit: median / p99 / max | {:.0} / {:.0} / {:.0} µs | |",
        pct(&notify_cpu_us, 50.0),
        pct(&notify_cpu_us, 99.0),
        notify_cpu_us.last().copied().unwrap_or(0.0)
    );
    println!(
        "| frames within budget (+5 %) | {:.2} % | |",
        within as f64 * 100.0 / main_us.len() as f64
    );
    main_cpu_us.sort_by(f64::total_cmp);
    let frame0_requests = request_cpu_us.first().copied().unwrap_or(0.0);
    request_cpu_us.sort_by(f64::total_cmp);
    walk_us.sort_by(f64::total_cmp);
    walk_cpu_us.sort_by(f64::total_cmp);
    drain_cpu_us.sort_by(f64::total_cmp);
    waited_us.sort_by(f64::total_cmp);
    let budget_us = budget.as_secs_f64() * 1e6;
    println!(
        "| main thread's CPU time per frame (service calls, `tick` when on it, the units' walk): median / p99 / max; within budget (+5 %) | {:.0} / {:.0} / {:.0} µs; {:.2} % | |",
        pct(&main_cpu_us, 50.0),
        pct(&main_cpu_us, 99.0),
        main_cpu_us.last().copied().unwrap_or(0.0),
        main_cpu_us.iter().filter(|&&t| t <= budget_us * 1.05).count() as f64 * 100.0
            / main_cpu_us.len().max(1) as f64
    );
    unwalked_us.sort_by(f64::total_cmp);
    unwalked_cpu_us.sort_by(f64::total_cmp);
    println!(
        "| the same without the units' walk: wall median / p99, within budget (+5 %); CPU median / p99, within budget (+5 %) | {:.0} / {:.0} µs, {:.2} %; {:.0} / {:.0} µs, {:.2} % | |",
        pct(&unwalked_us, 50.0),
        pct(&unwalked_us, 99.0),
        unwalked_us.iter().filter(|&&t| t <= budget_us * 1.05).count() as f64 * 100.0
            / unwalked_us.len().max(1) as f64,
        pct(&unwalked_cpu_us, 50.0),
        pct(&unwalked_cpu_us, 99.0),
        unwalked_cpu_us.iter().filter(|&&t| t <= budget_us * 1.05).count() as f64 * 100.0
            / unwalked_cpu_us.len().max(1) as f64
    );
    println!(
        "| requests and cancels, CPU per frame: median / max; frame 0 (the whole army) | {:.0} / {:.0} µs; {frame0_requests:.0} µs | |",
        pct(&request_cpu_us, 50.0),
        request_cpu_us.last().copied().unwrap_or(0.0),
    );
    println!(
        "| the drains (events, outcomes), CPU per frame: median / p99 / max | {:.0} / {:.0} / {:.0} µs | |",
        pct(&drain_cpu_us, 50.0),
        pct(&drain_cpu_us, 99.0),
        drain_cpu_us.last().copied().unwrap_or(0.0)
    );
    println!(
        "| of which the units' walk (`step` per unit): median / p99 wall; CPU | {:.0} / {:.0} µs; {:.0} / {:.0} µs | |",
        pct(&walk_us, 50.0),
        pct(&walk_us, 99.0),
        pct(&walk_cpu_us, 50.0),
        pct(&walk_cpu_us, 99.0),
    );
    if beside_frame.is_some() {
        println!(
            "| beside the frame: the main thread's wait for the tick at the frame's end: median / p99 / max | {:.0} / {:.0} / {:.0} µs | |",
            pct(&waited_us, 50.0),
            pct(&waited_us, 99.0),
            waited_us.last().copied().unwrap_or(0.0)
        );
        let worker_us = match tick_budget {
            Budget::Time(d) => d.as_secs_f64() * 1e6,
            _ => f64::INFINITY,
        };
        println!(
            "| beside the frame: ticks within the worker's budget (+5 %); frames whose main thread waited for the tick over 5 % of the frame | {:.2} %; {late_frames} | |",
            tick_us.iter().filter(|&&t| t <= worker_us * 1.05).count() as f64 * 100.0
                / tick_us.len().max(1) as f64,
        );
    }
    println!(
        "| outcomes per frame: median / p99 / max | {} / {} / {} | |",
        pct(&per_frame, 50.0),
        pct(&per_frame, 99.0),
        per_frame.last().copied().unwrap_or(0)
    );
    println!(
        "| frames from request to outcome: median / p99 / max | {} / {} / {} | 0 |",
        pct(&latency, 50.0),
        pct(&latency, 99.0),
        latency.last().copied().unwrap_or(0)
    );
    println!(
        "| outcomes within 3 frames | {:.2} % | |",
        in3 as f64 * 100.0 / latency.len().max(1) as f64
    );
    println!(
        "| the frame-0 burst: share of first answers, median / p99 / max, within 3 frames; the others: median / p99, within 3 frames | {:.1} %, {} / {} / {}, {:.2} %; {} / {}, {:.2} % | |",
        burst.len() as f64 * 100.0 / latency.len().max(1) as f64,
        pct(&burst, 50.0),
        pct(&burst, 99.0),
        burst.last().copied().unwrap_or(0),
        burst.iter().filter(|&&l| l <= 3).count() as f64 * 100.0 / burst.len().max(1) as f64,
        pct(&after_burst, 50.0),
        pct(&after_burst, 99.0),
        after_burst.iter().filter(|&&l| l <= 3).count() as f64 * 100.0
            / after_burst.len().max(1) as f64
    );
    println!("| requests / outcomes / from shared work | {requests} / {} / {} ({:.1} %) | {requests} / {requests} / 0 |", stats.delivered, stats.shared, stats.shared as f64 * 100.0 / stats.delivered.max(1) as f64);
    println!(
        "| flow fields built (over the subgoals); answers from subgoal fields older than the map: vouched for / repair searches | {} ({}); {} / {} | 0 |",
        stats.flow_fields, stats.subgoal_fields, stats.stale_field_answers, stats.field_repair_searches
    );
    println!(
        "| invalidations / repairs and re-plans | {} / {} | |",
        stats.invalidated, stats.repairs
    );
    println!("| invalid paths delivered | {invalid} | |");
    sweep_units.sort_unstable();
    println!(
        "| ticks' sweeps of live paths after edits: units median / max; ticks it did not finish | {} / {}; {sweep_unfinished} | |",
        pct(&sweep_units, 50.0),
        sweep_units.last().copied().unwrap_or(0)
    );
    if let Some((frame, at_burst)) = burst_done {
        println!(
            "| until the burst's last first answer (frame {frame}): subgoal fields started; work units by kind (total {}) | {}; {} | |",
            at_burst.work.total(),
            at_burst.subgoal_fields,
            work_parts(&at_burst.work)
        );
    }
    println!(
        "| work units by kind (total {}; re-plans queued {}) | {} | |",
        stats.work.total(),
        stats.replans,
        work_parts(&stats.work)
    );
    println!(
        "| peak service memory | {:.1} MB | |",
        peak_memory as f64 / 1e6
    );
    Ok(())
}

/// Where the lanes' work went (units are counted under a time budget too): each kind's
/// units and share.
fn work_parts(split: &WorkSplit) -> String {
    let total = split.total().max(1) as f64;
    let parts = [
        ("intake (units only)", split.intake),
        ("sweep after edits", split.sweep),
        ("cancels", split.cancels),
        ("first checks", split.checks),
        ("single searches", split.single_searches),
        ("subgoal fields grown", split.subgoal_fields),
        ("gate fields", split.gate_fields),
        ("field reads", split.field_reads),
        ("large leaves' tables", split.leaf_tables),
        ("vouched answers", split.vouched),
        ("repair searches", split.repair_searches),
        ("closest-position scans", split.closest),
        ("delivery", split.delivery),
    ];
    let listed: Vec<String> = parts
        .iter()
        .map(|(name, units)| format!("{name} {units} ({:.1} %)", *units as f64 * 100.0 / total))
        .collect();
    listed.join("; ")
}
