//! Warthog (Shortest Path Lab, the library behind the GPPC records) as a benchmark peer: built
//! by its own script from `../shared/peers/warthog`, run as separate processes on a scenario
//! file this module writes, its per-query times read from its output. Nothing of Warthog is
//! linked into the bench or copied into the repository.

use quadpath::io::Scenario;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The Warthog algorithms the benchmarks run: the label they are reported under, the binary
/// that has them (`core` for `warthog`, `jps` for `warthog-jps`) and its `--alg` value.
pub const ALGORITHMS: &[(&str, Binary, &str)] = &[
    ("W-A*", Binary::Core, "astar"),
    ("W-JPS", Binary::Jps, "jps"),
    ("W-JPS2", Binary::Jps, "jps2"),
    ("W-JPS+", Binary::Jps, "jps+"),
    ("W-JPS2+", Binary::Jps, "jps2+"),
];

/// Which of Warthog's two programs runs an algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// `warthog`, from warthog-core: A*.
    Core,
    /// `warthog-jps`: the jump point searches.
    Jps,
}

/// The two Warthog programs, built.
pub struct Warthog {
    core: PathBuf,
    jps: PathBuf,
}

/// One query as Warthog answered it.
pub struct Answer {
    /// Search time in nanoseconds, by Warthog's own timer (path extraction not included).
    pub nanos: f64,
    /// The length of the path it found, `None` when it found none.
    pub length: Option<f64>,
}

/// One run of an algorithm over a scenario file.
pub struct Run {
    /// The answers, in file order, warm-up queries left out.
    pub answers: Vec<Answer>,
    /// What the program says it holds after the run (search, map and scenario), in bytes.
    pub memory: Option<usize>,
    /// Wall time of the process minus the queries' own time: loading the map, any
    /// preprocessing (the `+` variants' jump tables) and writing the output, in ms.
    pub startup_ms: f64,
}

/// How many queries [`write_scen`] repeats at the head of the file to warm caches up;
/// [`Warthog::run`] drops their answers.
pub const WARM_UP: usize = 3;

impl Warthog {
    /// Builds Warthog into `out` with `SHARED/peers/warthog/build.sh` (`shared` is the
    /// benchmarks' `../shared`, the folder their maps are in), or says why not: no such
    /// script, no C++ compiler, no cmake or a failed build. The benchmarks then go on
    /// without it.
    pub fn build(shared: &Path, out: &Path) -> Result<Warthog, String> {
        let script = shared.join("peers/warthog/build.sh");
        if !script.is_file() {
            return Err(format!("{} not found", script.display()));
        }
        let has = |tool: &str| {
            Command::new(tool)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if !["c++", "g++", "clang++"].iter().any(|c| has(c)) {
            return Err("no C++ compiler (c++, g++ or clang++) on PATH".into());
        }
        let output = Command::new("bash")
            .arg(&script)
            .arg(out)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
        if !output.status.success() {
            return Err(format!(
                "{} failed: {}",
                script.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let printed = String::from_utf8_lossy(&output.stdout);
        let mut paths = printed.lines().map(PathBuf::from);
        match (paths.next(), paths.next()) {
            (Some(core), Some(jps)) if core.is_file() && jps.is_file() => Ok(Warthog { core, jps }),
            _ => Err(format!(
                "{} printed no binaries: {printed}",
                script.display()
            )),
        }
    }

    /// Runs `alg` of `binary` on `scen` (written by [`write_scen`]) over `map`, and reads
    /// its per-query lines (`id alg expanded generated reopen surplus heapops nanos plen
    /// pcost scost map`) and its memory line.
    pub fn run(&self, binary: Binary, alg: &str, scen: &Path, map: &Path) -> Result<Run, String> {
        let program = match binary {
            Binary::Core => &self.core,
            Binary::Jps => &self.jps,
        };
        let started = Instant::now();
        let output = Command::new(program)
            .args(["--alg", alg, "--scen"])
            .arg(scen)
            .arg("--map")
            .arg(map)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            return Err(format!("{alg} failed: {}", stderr.trim()));
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let mut answers = Vec::new();
        for (i, line) in stdout.lines().skip(1).enumerate() {
            let f: Vec<&str> = line.split('\t').collect();
            let number = |k: usize| -> Result<f64, String> {
                f.get(k)
                    .and_then(|v| v.parse::<f64>().ok())
                    .ok_or_else(|| format!("{alg}: line {} unreadable: {line:?}", i + 2))
            };
            let (nanos, steps, pcost) = (number(7)?, number(8)?, number(9)?);
            answers.push(Answer {
                nanos,
                // No path: no steps, though start and goal differ (a zero-step path has
                // cost 0 and is only found for start = goal, which pcost 0 also gives).
                length: (steps > 0.0 || pcost == 0.0).then_some(pcost),
            });
        }
        let queries_ms = answers.iter().map(|a| a.nanos).sum::<f64>() / 1e6;
        if answers.len() < WARM_UP {
            return Err(format!("{alg}: only {} answers", answers.len()));
        }
        answers.drain(..WARM_UP);
        let memory = stderr
            .lines()
            .find_map(|l| l.split("total memory:").nth(1))
            .and_then(|v| v.trim().parse().ok());
        Ok(Run {
            answers,
            memory,
            startup_ms: (wall_ms - queries_ms).max(0.0),
        })
    }
}

/// Writes the Moving AI scenario file Warthog reads: `entries` as their own file gave them
/// (the first [`WARM_UP`] twice, to warm caches up).
pub fn write_scen(path: &Path, entries: &[Scenario]) -> std::io::Result<()> {
    let mut text = String::from("version 1\n");
    for e in entries.iter().take(WARM_UP).chain(entries) {
        let _ = writeln!(
            text,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            e.bucket, e.map, e.width, e.height, e.start.x, e.start.y, e.goal.x, e.goal.y, e.optimal
        );
    }
    std::fs::write(path, text)
}
