//! GPPC dynamic scenarios (`version 2`) through the library: the shipped `dao_arena2`
//! replayed whole with `HpaMap::apply_patch`, generated scenarios with unreachable goals
//! checked against a Dijkstra oracle, and every malformed input a typed error naming its file
//! and line.
//!
//! The map the paths are checked on is patched here by a reader of the files' own, not by
//! `quadpath::io`, so that a reader bug cannot hide behind itself.

use crate::common;
use common::{assert_valid, distances, Rng};
use quadpath::io::{self, DynamicCommand, MapError};
use quadpath::{Cell, Config, Grid, HpaMap, Mode, QueryError};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quadpath-dynamic-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A patch as this test reads it: width, height and the rows' characters.
struct RawPatch {
    width: usize,
    height: usize,
    codes: Vec<u8>,
}

/// The patches of a patch file, read line by line without `quadpath::io`.
fn read_raw_patches(path: &Path) -> Vec<RawPatch> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    assert_eq!(lines.next(), Some("type patch"));
    let count: usize = lines.next().unwrap()["patches ".len()..].parse().unwrap();
    let mut out = Vec::new();
    for i in 0..count {
        assert_eq!(lines.next(), Some(format!("patch {i}").as_str()));
        let height: usize = lines.next().unwrap()["height ".len()..].parse().unwrap();
        let width: usize = lines.next().unwrap()["width ".len()..].parse().unwrap();
        assert_eq!(lines.next(), Some("map"));
        let codes: Vec<u8> = (0..height)
            .flat_map(|_| lines.next().unwrap().bytes())
            .collect();
        assert_eq!(codes.len(), width * height);
        out.push(RawPatch {
            width,
            height,
            codes,
        });
    }
    out
}

/// The map as the test keeps it: Moving AI characters, row by row.
struct RawMap {
    width: usize,
    height: usize,
    codes: Vec<u8>,
}

impl RawMap {
    fn lay(&mut self, p: &RawPatch, x: usize, y: usize) {
        for dy in 0..p.height {
            for dx in 0..p.width {
                self.codes[(y + dy) * self.width + x + dx] = p.codes[dy * p.width + dx];
            }
        }
    }

    fn grid(&self) -> Grid {
        Grid::from_fn(self.width as u32, self.height as u32, |x, y| {
            b".GS".contains(&self.codes[y as usize * self.width + x as usize])
        })
    }
}

/// The whole shipped scenario, as CI runs it: exact mode (refreshed before each query, as a
/// game would between frames) gives the file's optimal length on every query; fast mode,
/// left stale for nine queries in ten, gives valid paths never shorter. Both are checked on
/// a map patched by this test's own reader.
#[test]
fn dao_arena2_exact_is_optimal_and_fast_is_valid_on_every_query() {
    let scen_path = root().join("maps/dao_arena2.scen");
    let scen = io::read_dynamic_scen(&scen_path).unwrap();
    assert_eq!((scen.width, scen.height), (281, 209));
    assert_eq!((scen.query_count(), scen.patch_count()), (2000, 439));
    let raw = read_raw_patches(&root().join("maps/dao_arena2.patch"));
    assert_eq!(raw.len(), scen.patches.len());

    let mut reference = RawMap {
        width: 281,
        height: 209,
        codes: vec![b'.'; 281 * 209],
    };
    let mut grid = reference.grid();
    let mut grid_is_current = true;
    let mut exact = HpaMap::new(scen.initial_grid(), Mode::Exact).unwrap();
    let mut fast = HpaMap::new(scen.initial_grid(), Mode::Fast).unwrap();
    let (mut queries, mut worst_fast) = (0usize, 0f64);
    for command in &scen.commands {
        match command {
            DynamicCommand::Patch(p) => {
                let patch = &scen.patches[p.id];
                let a = exact.apply_patch(p.at, patch).unwrap();
                let b = fast.apply_patch(p.at, patch).unwrap();
                assert_eq!(a.changed(), b.changed(), "line {}", p.line);
                reference.lay(&raw[p.id], p.at.x as usize, p.at.y as usize);
                grid_is_current = false;
            }
            DynamicCommand::Query(q) => {
                if !grid_is_current {
                    grid = reference.grid();
                    grid_is_current = true;
                }
                let optimal = q.optimal.expect("dao_arena2 has no unreachable query");
                let tol = q.tolerance();
                exact.refresh();
                if queries % 10 == 0 {
                    fast.refresh();
                }
                let e = exact
                    .find_path(q.start, q.goal)
                    .unwrap_or_else(|err| panic!("line {}: exact: {err}", q.line));
                assert_valid(&grid, q.start, q.goal, &e);
                assert!(
                    (e.length - optimal).abs() <= tol,
                    "line {}: exact {} vs optimal {optimal}",
                    q.line,
                    e.length
                );
                let f = fast
                    .find_path(q.start, q.goal)
                    .unwrap_or_else(|err| panic!("line {}: fast: {err}", q.line));
                assert_valid(&grid, q.start, q.goal, &f);
                assert!(f.length >= optimal - tol, "line {}: fast too short", q.line);
                worst_fast = worst_fast.max(f.length / optimal - 1.0);
                queries += 1;
            }
        }
    }
    assert_eq!(queries, 2000);
    assert_eq!(exact.grid(), &grid, "the library's map is the test's map");
    assert!(worst_fast < 0.25, "fast mode at worst {worst_fast:.3} over");
}

/// Writes a generated scenario and its patch file; returns the scenario's path. Walls and
/// doors are laid and torn down over a `w × h` map; the first patch lays a whole level over
/// the empty map (`P 0 0 0 0`), and a full-height wall without a door cuts it in two for a
/// while, so that some goals are unreachable. Costs come from the Dijkstra oracle.
fn generate(dir: &Path, seed: u64, w: u32, h: u32) -> PathBuf {
    let mut rng = Rng(seed | 1);
    let mut patches: Vec<(u32, u32, Vec<u8>)> = Vec::new();
    // Patch 0: the level, scattered rocks and a few walls.
    let level: Vec<u8> = (0..w * h)
        .map(|i| match (i % w, rng.below(100)) {
            (x, _) if x == w / 3 && (i / w) % 7 != 3 => b'@',
            (_, r) if r < 12 => b'T',
            _ => b'.',
        })
        .collect();
    patches.push((w, h, level));
    // Patch 1: a wall across the whole height, no door.
    patches.push((1, h, vec![b'@'; h as usize]));
    // Patch 2: the same column opened again.
    patches.push((1, h, vec![b'.'; h as usize]));
    // Patches 3..: small buildings and clearings of mixed terrain.
    for _ in 0..12 {
        let (pw, ph) = (1 + rng.below(5) as u32, 1 + rng.below(5) as u32);
        let codes = (0..pw * ph)
            .map(|_| b"..G@@TW"[rng.below(7) as usize])
            .collect();
        patches.push((pw, ph, codes));
    }
    let mut patch_text = format!("type patch\npatches {}\n", patches.len());
    for (i, (pw, ph, codes)) in patches.iter().enumerate() {
        patch_text += &format!("patch {i}\nheight {ph}\nwidth {pw}\nmap\n");
        for row in codes.chunks(*pw as usize) {
            patch_text += std::str::from_utf8(row).unwrap();
            patch_text += "\n";
        }
    }
    std::fs::write(dir.join("gen.patch"), patch_text).unwrap();

    let mut map = RawMap {
        width: w as usize,
        height: h as usize,
        codes: vec![b'.'; (w * h) as usize],
    };
    let mut scen = format!(
        "version 2\nwidth {w}\nheight {h}\ncost 2 other octile\npatch gen.patch\ncommands\n"
    );
    let queries = |scen: &mut String, map: &RawMap, rng: &mut Rng, n: usize| {
        let grid = map.grid();
        let free: Vec<Cell> = grid.free_cells().collect();
        for _ in 0..n {
            // Now and then an end on a blocked cell: unreachable too.
            let pick = |rng: &mut Rng| match rng.below(20) {
                0 => Cell::new(rng.below(w as u64) as u32, rng.below(h as u64) as u32),
                _ => free[rng.below(free.len() as u64) as usize],
            };
            let (s, g) = (pick(rng), pick(rng));
            let cost = if grid.is_free(s) && grid.is_free(g) {
                distances(&grid, s)[(g.y * w + g.x) as usize]
            } else {
                None
            };
            let cost = cost.map_or("-1".to_string(), |c| format!("{c:.8}"));
            *scen += &format!("Q 0 {} {} {} {} 0 {cost}\n", s.x, s.y, g.x, g.y);
        }
    };
    queries(&mut scen, &map, &mut rng, 4);
    let lay = |scen: &mut String, map: &mut RawMap, id: usize, x: u32, y: u32| {
        let (pw, ph, codes) = &patches[id];
        let raw = RawPatch {
            width: *pw as usize,
            height: *ph as usize,
            codes: codes.clone(),
        };
        map.lay(&raw, x as usize, y as usize);
        *scen += &format!("P 0 {id} {x} {y}\n");
    };
    lay(&mut scen, &mut map, 0, 0, 0);
    queries(&mut scen, &map, &mut rng, 12);
    lay(&mut scen, &mut map, 1, 2 * w / 3, 0);
    queries(&mut scen, &map, &mut rng, 12);
    for round in 0..30 {
        let id = 3 + rng.below(12) as usize;
        let (pw, ph, _) = patches[id];
        let (x, y) = (
            rng.below((w - pw + 1) as u64) as u32,
            rng.below((h - ph + 1) as u64) as u32,
        );
        lay(&mut scen, &mut map, id, x, y);
        if round == 15 {
            lay(&mut scen, &mut map, 2, 2 * w / 3, 0);
        }
        queries(&mut scen, &map, &mut rng, 2);
    }
    let path = dir.join(format!("gen-{seed}.scen"));
    std::fs::write(&path, scen).unwrap();
    path
}

/// Generated scenarios with unreachable goals and ends on blocked cells, in exact mode, fast
/// mode and fast mode with tiny clusters: "unreachable" exactly when the oracle says so,
/// exact lengths equal to the oracle's, every path valid and never shorter. The first patch
/// lays the whole level, which `apply_patch` does by a fresh build.
#[test]
fn generated_scenarios_with_unreachable_goals_match_the_oracle() {
    let dir = temp_dir("generated");
    for seed in 1..=6u64 {
        let path = generate(&dir, seed, 40 + 3 * seed as u32, 24 + seed as u32);
        let scen = io::read_dynamic_scen(&path).unwrap();
        assert_eq!(scen.cost_models, ["other", "octile"]);
        let unreachable = scen.queries().filter(|q| q.optimal.is_none()).count();
        assert!(
            unreachable > 0,
            "seed {seed}: the wall should cut some queries off"
        );
        for config in [Config::exact(), Config::fast(), common::tiny_clusters(4)] {
            let exact = config == Config::exact();
            let mut grid = scen.initial_grid();
            let mut map = HpaMap::new(grid.clone(), config).unwrap();
            let mut rebuilds = 0;
            for command in &scen.commands {
                match command {
                    DynamicCommand::Patch(p) => {
                        let report = map.apply_patch(p.at, &scen.patches[p.id]).unwrap();
                        rebuilds += report.rebuilt as usize;
                        grid.apply_patch(p.at, &scen.patches[p.id]);
                        map.check_consistency().unwrap();
                    }
                    DynamicCommand::Query(q) => {
                        let ctx = format!("seed {seed} {config:?} line {}", q.line);
                        match (map.find_path(q.start, q.goal), q.optimal) {
                            (Ok(p), Some(best)) => {
                                assert_valid(&grid, q.start, q.goal, &p);
                                assert!(p.length >= best - q.tolerance(), "{ctx}: too short");
                                if exact {
                                    assert!((p.length - best).abs() <= q.tolerance(), "{ctx}");
                                }
                            }
                            (
                                Err(QueryError::Unreachable { .. } | QueryError::Blocked { .. }),
                                None,
                            ) => {}
                            (got, want) => panic!("{ctx}: {got:?} but the file says {want:?}"),
                        }
                    }
                }
            }
            assert!(
                rebuilds >= 1,
                "seed {seed}: laying the level should rebuild"
            );
            assert_eq!(map.grid(), &grid);
        }
    }
}

/// A scenario and patch file pair, written to a fresh folder; returns the scenario's path.
fn files(tag: &str, scen: &str, patch: Option<&str>) -> PathBuf {
    let dir = temp_dir(tag);
    if let Some(p) = patch {
        std::fs::write(dir.join("p.patch"), p).unwrap();
    }
    let path = dir.join("s.scen");
    std::fs::write(&path, scen).unwrap();
    path
}

const HEADER: &str = "version 2\nheight 4\nwidth 6\ncost 1 octile\npatch p.patch\ncommands\n";
const PATCHES: &str = "type patch\npatches 2\npatch 0\nheight 2\nwidth 3\nmap\n@@@\n.T.\npatch 1\nheight 4\nwidth 6\nmap\n......\n......\n......\n......\n";

/// Every malformed input the issue lists, and a few more: a typed error naming the right
/// file (scenario or patch file) and line, never a panic.
#[test]
fn malformed_files_give_typed_errors_naming_file_and_line() {
    type Check = fn(&MapError) -> bool;
    /// What the case is, the scenario text, the patch file's text (none: no file), the
    /// error expected, and the file and line it must name (line 0: none).
    type Case = (
        &'static str,
        String,
        Option<String>,
        Check,
        &'static str,
        usize,
    );
    let cases: Vec<Case> = vec![
        (
            "version",
            "version 3\n".into(),
            None,
            |e| matches!(e, MapError::ScenVersion { .. }),
            "s.scen",
            1,
        ),
        (
            "unknown key",
            "version 2\nheight 4\ncolour red\n".into(),
            None,
            |e| matches!(e, MapError::ScenHeader { .. }),
            "s.scen",
            3,
        ),
        (
            "twice",
            "version 2\nheight 4\nheight 5\n".into(),
            None,
            |e| matches!(e, MapError::ScenHeader { .. }),
            "s.scen",
            3,
        ),
        (
            "no width",
            "version 2\nheight 4\ncost 1 octile\npatch p.patch\ncommands\n".into(),
            None,
            |e| matches!(e, MapError::ScenHeader { .. }),
            "s.scen",
            5,
        ),
        (
            "bad height",
            "version 2\nheight -4\n".into(),
            None,
            |e| matches!(e, MapError::BadNumber { .. }),
            "s.scen",
            2,
        ),
        (
            "no commands",
            "version 2\nheight 4\nwidth 6\n".into(),
            None,
            |e| matches!(e, MapError::ScenHeader { .. }),
            "s.scen",
            4,
        ),
        (
            "no octile",
            "version 2\nheight 4\nwidth 6\ncost 2 manhattan euclidean\npatch p.patch\ncommands\n"
                .into(),
            None,
            |e| matches!(e, MapError::NoOctileCost { .. }),
            "s.scen",
            4,
        ),
        (
            "cost count",
            "version 2\nheight 4\nwidth 6\ncost 2 octile\n".into(),
            None,
            |e| matches!(e, MapError::ScenHeader { .. }),
            "s.scen",
            4,
        ),
        (
            "huge map",
            "version 2\nheight 4000000\nwidth 4000000\ncost 1 octile\npatch p.patch\ncommands\n"
                .into(),
            None,
            |e| matches!(e, MapError::TooLarge { .. }),
            "s.scen",
            0,
        ),
        (
            "missing patch file",
            format!("{HEADER}Q 0 0 0 1 1 1.41421\n"),
            None,
            |e| matches!(e, MapError::Io { .. }),
            "p.patch",
            0,
        ),
        (
            "unknown command",
            format!("{HEADER}X 0 0 0 1 1\n"),
            Some(PATCHES.into()),
            |e| matches!(e, MapError::Command { .. }),
            "s.scen",
            7,
        ),
        (
            "short query",
            format!("{HEADER}Q 0 0 0 1 1\n"),
            Some(PATCHES.into()),
            |e| matches!(e, MapError::Command { .. }),
            "s.scen",
            7,
        ),
        (
            "bad cost",
            format!("{HEADER}Q 0 0 0 1 1 -2\n"),
            Some(PATCHES.into()),
            |e| matches!(e, MapError::BadNumber { .. }),
            "s.scen",
            7,
        ),
        (
            "query outside",
            format!("{HEADER}Q 0 0 0 6 1 5\n"),
            Some(PATCHES.into()),
            |e| matches!(e, MapError::PointOutside { what: "goal", .. }),
            "s.scen",
            7,
        ),
        (
            "unknown patch",
            format!("{HEADER}Q 0 0 0 1 1 1.41421\nP 0 2 0 0\n"),
            Some(PATCHES.into()),
            |e| {
                matches!(
                    e,
                    MapError::UnknownPatch {
                        id: 2,
                        count: 2,
                        ..
                    }
                )
            },
            "s.scen",
            8,
        ),
        (
            "patch outside",
            format!("{HEADER}P 0 0 4 0\n"),
            Some(PATCHES.into()),
            |e| matches!(e, MapError::PatchOutside { id: 0, x: 4, .. }),
            "s.scen",
            7,
        ),
        (
            "patch larger than the map",
            format!("{HEADER}P 0 1 0 0\n"),
            Some(PATCHES.replace(
                "width 6\nmap\n......\n......\n......\n......",
                "width 7\nmap\n.......\n.......\n.......\n.......",
            )),
            |e| matches!(e, MapError::PatchOutside { patch_width: 7, .. }),
            "s.scen",
            7,
        ),
        (
            "patches out of order",
            format!("{HEADER}P 0 0 0 0\n"),
            Some(PATCHES.replace("patch 1", "patch 2")),
            |e| matches!(e, MapError::PatchOrder { expected: 1, .. }),
            "p.patch",
            9,
        ),
        (
            "patch type",
            format!("{HEADER}P 0 0 0 0\n"),
            Some(PATCHES.replace("type patch", "type octile")),
            |e| matches!(e, MapError::PatchHeader { .. }),
            "p.patch",
            1,
        ),
        (
            "patch rows",
            format!("{HEADER}P 0 0 0 0\n"),
            Some(PATCHES.replace(".T.\n", ".X.\n")),
            |e| {
                matches!(
                    e,
                    MapError::UnknownChar {
                        ch: 'X',
                        column: 2,
                        ..
                    }
                )
            },
            "p.patch",
            8,
        ),
        (
            "patch row length",
            format!("{HEADER}P 0 0 0 0\n"),
            Some(PATCHES.replace("@@@\n", "@@\n")),
            |e| matches!(e, MapError::RowLength { .. }),
            "p.patch",
            7,
        ),
        (
            "too few patches",
            format!("{HEADER}P 0 0 0 0\n"),
            Some(PATCHES.replace("patches 2", "patches 3")),
            |e| matches!(e, MapError::PatchHeader { .. }),
            "p.patch",
            18,
        ),
        (
            "patch without width",
            format!("{HEADER}P 0 0 0 0\n"),
            Some(PATCHES.replace("width 3\n", "")),
            |e| matches!(e, MapError::PatchHeader { .. }),
            "p.patch",
            5,
        ),
        (
            "too many patches",
            format!("{HEADER}P 0 0 0 0\n"),
            Some(PATCHES.replace("patches 2", "patches 1")),
            |e| matches!(e, MapError::PatchHeader { .. }),
            "p.patch",
            9,
        ),
    ];
    for (i, (what, scen, patch, check, file, line)) in cases.iter().enumerate() {
        let path = files(&format!("bad{i}"), scen, patch.as_deref());
        let e = io::read_dynamic_scen(&path).expect_err(what);
        assert!(check(&e), "{what}: {e:?}");
        assert!(
            e.file().ends_with(file),
            "{what}: names {} not {file}: {e}",
            e.file()
        );
        assert!(e.to_string().contains(file), "{what}: {e}");
        if *line > 0 {
            assert_eq!(e.line(), Some(*line), "{what}: {e}");
            assert!(
                e.to_string().contains(&format!("{file}:{line}")),
                "{what}: {e}"
            );
        }
        // Either kind of file through the reader that tells them apart: the same error.
        let again = io::read_any_scen(&path).expect_err(what);
        if !matches!(e, MapError::ScenVersion { .. }) {
            assert_eq!(again.to_string(), e.to_string(), "{what}");
        }
    }
}

/// A valid pair reads back as written, and `read_any_scen` tells the kinds apart.
#[test]
fn valid_files_read_back_as_written() {
    let path = files(
        "good",
        &format!("{HEADER}Q 0 0 0 5 3 5.82843\n\nP 7 0 1 1\nQ 1 0 0 5 3 -1\nP 0 1 0 0\n"),
        Some(PATCHES),
    );
    let scen = match io::read_any_scen(&path).unwrap() {
        io::AnyScenarioFile::Dynamic(s) => s,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        (scen.width, scen.height, scen.patch_file.as_str()),
        (6, 4, "p.patch")
    );
    assert_eq!((scen.query_count(), scen.patch_count()), (2, 2));
    assert_eq!(scen.patches[0].codes(), b"@@@.T.");
    let mut grid: Grid = scen.initial_grid();
    let DynamicCommand::Patch(p) = &scen.commands[1] else {
        panic!("{:?}", scen.commands[1])
    };
    assert_eq!((p.bucket, p.id, p.at, p.line), (7, 0, Cell::new(1, 1), 9));
    grid.apply_patch(p.at, &scen.patches[p.id]);
    assert_eq!(grid.free_count(), 24 - 4);
    match io::read_any_scen(root().join("maps/arena.map.scen")).unwrap() {
        io::AnyScenarioFile::Static(s) => assert!(!s.entries.is_empty()),
        other => panic!("{other:?}"),
    }
    let e = io::read_any_scen(files("v9", "version 9\n", None)).unwrap_err();
    assert!(e.to_string().contains("version 2"), "{e}");
}

/// Walls laid over a map built empty leave exact mode's landmark columns valid but loose.
/// A refresh tightens them only once the searches since have done as much work as that
/// costs: an editing-only burst leaves nothing to refresh, a few long searches make it pay,
/// and the tightened columns still give optimal paths.
#[test]
fn loose_landmarks_are_tightened_once_queries_pay_for_it() {
    let (w, h) = (120u32, 80u32);
    // Compaction off: the walls grow the map past its threshold, and a compacted map is a
    // fresh build, whose columns are tight.
    // The gate engine's per-cell columns (a subgoal layer keeps its landmarks at the
    // subgoals and repairs them as it is edited).
    let config = quadpath::Config::exact()
        .with_subgoals(false)
        .with_compact_above_percent(None);
    let mut map = HpaMap::new(Grid::from_fn(w, h, |x, y| (x, y) != (60, 40)), config).unwrap();
    assert_eq!(map.landmark_count(), 8);
    // Long walls with gaps, a sixteenth of the map and more, laid as patches.
    for i in 0..8u32 {
        let mut codes = vec![b'@'; (w - 20) as usize];
        codes[((i * 37) % (w - 20)) as usize] = b'.';
        let y = 5 + 9 * i;
        map.apply_patch(
            Cell::new(10 * (i % 2), y),
            &quadpath::TerrainPatch::new(w - 20, 1, codes),
        )
        .unwrap();
    }
    assert!(!map.needs_refresh(), "no query has paid for tightening yet");
    assert_eq!(map.refresh().landmarks, 0);
    let grid = map.grid().clone();
    let (s, g) = (Cell::new(1, 1), Cell::new(w - 2, h - 1));
    let want = distances(&grid, s)[(g.y * w + g.x) as usize].unwrap();
    let mut asked = 0;
    while !map.needs_refresh() {
        let p = map.find_path(s, g).unwrap();
        assert!((p.length - want).abs() < 1e-6);
        asked += 1;
        assert!(asked < 1000, "searches never paid for tightening");
    }
    let report = map.refresh();
    assert!(report.complete && report.landmarks > 0, "{report:?}");
    assert!(!map.needs_refresh());
    let p = map.find_path(s, g).unwrap();
    assert_valid(&grid, s, g, &p);
    assert!(
        (p.length - want).abs() < 1e-6,
        "tightened columns stay exact"
    );
}

/// `apply_patch` refuses a patch that reaches off the map, or past the largest coordinate,
/// and changes nothing then; `QuadTree::estimate_bytes` refuses what `QuadTree::build`
/// refuses.
#[test]
fn patches_off_the_map_are_refused_and_change_nothing() {
    let grid = Grid::from_fn(10, 8, |x, y| (x, y) != (4, 4));
    for mode in [Mode::Exact, Mode::Fast] {
        let mut map = HpaMap::new(grid.clone(), mode).unwrap();
        let before = map.snapshot();
        let wall = quadpath::TerrainPatch::new(3, 2, vec![b'@'; 6]);
        for at in [
            Cell::new(8, 0),
            Cell::new(0, 7),
            Cell::new(u32::MAX, 0),
            Cell::new(10, 8),
        ] {
            let e = map.apply_patch(at, &wall).unwrap_err();
            assert!(
                matches!(
                    e,
                    quadpath::EditError::OutOfBounds {
                        width: 10,
                        height: 8,
                        ..
                    }
                ),
                "{at}: {e}"
            );
        }
        assert_eq!(map.grid(), &grid);
        common::assert_same_structure(&map.snapshot(), &before, "after refused patches");
        assert!(!map.needs_refresh());
    }
    let mut cells = vec![Cell::new(3, 3)];
    assert!(quadpath::quadtree::QuadTree::estimate_bytes(
        0,
        5,
        &quadpath::quadtree::SplitStopper::uniform(),
        &mut cells
    )
    .is_err());
    let mut outside = vec![Cell::new(5, 0)];
    assert!(quadpath::quadtree::QuadTree::estimate_bytes(
        5,
        5,
        &quadpath::quadtree::SplitStopper::uniform(),
        &mut outside
    )
    .is_err());
}
