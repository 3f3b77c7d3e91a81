//! The flag groups the subcommands share (map loading, memory, threads, modes, the
//! movement class, the refresh budget), each defined once and flattened into the
//! subcommands' arguments; [`SearchOptions`] bundles the four every searching subcommand
//! takes. Flags only: what they build lives in `class` and `load`.

use crate::error::CliError;
use clap::{Args, ValueEnum};
use quadpath::io::{BitmapOptions, ColorLegend};
use quadpath::Mode;
use std::time::Duration;

/// The flags of every subcommand that loads a map and searches it: the movement class,
/// its terrain costs, how to read a bitmap, and the memory limit. Flattened once into each
/// subcommand's arguments, so the groups are spelled the same everywhere.
#[derive(Args, Debug, Clone)]
pub struct SearchOptions {
    #[command(flatten)]
    pub class: ClassOptions,
    #[command(flatten)]
    pub costs: ClassCosts,
    #[command(flatten)]
    pub map_opts: MapOptions,
    #[command(flatten)]
    pub memory: MemoryOptions,
}

/// How to read an obstacle bitmap; shared by every subcommand that loads a map. Moving AI
/// `.map` files ignore these, but the values are checked whatever the map (a malformed
/// `--legend` is an input error, like `--threshold 2`), so that a typo never goes unnoticed
/// until the day the map is a bitmap.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Map loading (bitmaps only)")]
pub struct MapOptions {
    /// A pixel darker than this luma (0 to 1) is a wall
    #[arg(long, value_name = "F", default_value_t = 0.5, value_parser = parse_threshold)]
    pub threshold: f32,
    /// Light pixels are walls (for white-on-black images)
    #[arg(long)]
    pub invert: bool,
    /// Colour legend: `rts`, or exact colours such as 000000=@,0000ff=W,ffffff=.,d2b48c=G:0.5
    ///
    /// `rts` is black wall, blue water, dark green forest (blocked) and white ground, tan
    /// road, yellow-green swamp (free), all at cost 1. A list gives each colour a Moving AI
    /// character (or any printable character but `,` and `:` with a `:free` or `:blocked`
    /// suffix), then optionally `:COST`, the terrain cost of a free code (a number from
    /// 1/64 to 1e6; 1 when not given); other colours fall back to the threshold. Checked, but
    /// not applied, for .map files.
    #[arg(long, value_name = "SPEC")]
    pub legend: Option<String>,
}

/// How much memory the search structure may take; shared by every subcommand that builds
/// one.
#[derive(Args, Debug, Clone, Default)]
pub struct MemoryOptions {
    /// Refuse (exit 2) to build a search structure estimated above SIZE bytes, e.g. 512M
    /// or 2G (K, M, G, T are powers of 1024). Default: half the machine's physical memory
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<usize>,
}

impl MemoryOptions {
    /// The limit in bytes: `--max-memory`, or half of `MemTotal` in `/proc/meminfo`, or
    /// [`FALLBACK_MAX_MEMORY`] where that cannot be read.
    pub fn limit(&self) -> usize {
        self.max_memory.unwrap_or_else(|| {
            std::fs::read_to_string("/proc/meminfo")
                .ok()
                .and_then(|m| mem_total(&m))
                .map_or(FALLBACK_MAX_MEMORY, |total| total / 2)
        })
    }
}

/// How many threads answer a batch of queries; shared by `scen` and `bench`.
#[derive(Args, Debug, Clone, Default)]
pub struct ThreadOptions {
    /// Answer the batch of queries on N threads (default: every core, here
    /// `std::thread::available_parallelism`). At most 1024
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// The largest `--threads`: each thread reserves a stack and grows a search context as
/// large as the map's gate graph, so a thousand is already far past any machine's cores and
/// a larger number is a typo.
pub const MAX_THREADS: usize = 1024;

impl ThreadOptions {
    /// The thread count asked for, checked: `--threads`, or every core.
    pub fn count(&self) -> Result<usize, CliError> {
        match self.threads {
            Some(0) => Err(CliError::input(
                "--threads 0 leaves no thread to answer the queries; give at least 1",
            )),
            Some(n) if n > MAX_THREADS => Err(CliError::input(format!(
                "--threads {n} is more than the {MAX_THREADS} threads allowed"
            ))),
            Some(n) => Ok(n),
            None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        }
    }
}

/// The default `--max-memory` where the machine's memory cannot be read: 4 GiB.
pub const FALLBACK_MAX_MEMORY: usize = 4 << 30;

/// `MemTotal` in bytes from the text of `/proc/meminfo`.
fn mem_total(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut parts = line["MemTotal:".len()..].split_whitespace();
    let n: usize = parts.next()?.parse().ok()?;
    match parts.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// Parses a byte count such as `1048576`, `512K`, `512M`, `2G`, `1T`, `64MiB`, `2gb`.
fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let (num, unit) = t.split_at(digits);
    let bad = || {
        format!(
            "invalid size {s:?}: write a number of bytes with an optional K, M, G or T, e.g. 512M"
        )
    };
    let n: usize = num.parse().map_err(|_| bad())?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(&unit);
    let shift = match unit {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(bad()),
    };
    n.checked_mul(1usize << shift)
        .ok_or_else(|| format!("invalid size {s:?}: too large"))
}

fn parse_threshold(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        Ok(_) => Err("the threshold is a luma between 0 and 1".into()),
        Err(_) => Err("expected a number between 0 and 1, e.g. 0.5".into()),
    }
}

impl MapOptions {
    pub(crate) fn bitmap_options(&self) -> Result<BitmapOptions, CliError> {
        let legend = match self.legend.as_deref().map(str::trim) {
            None => None,
            Some(s) if s.eq_ignore_ascii_case("rts") => Some(ColorLegend::rts_default()),
            Some(s) => Some(ColorLegend::parse_named(s, "--legend")?),
        };
        Ok(BitmapOptions {
            threshold: self.threshold,
            invert: self.invert,
            legend,
        })
    }
}

/// `--mode` for commands that use one mode.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ModeArg {
    /// Every crossing is a gate: optimal paths
    #[default]
    Exact,
    /// Faster, at most a few percent longer: the subgoal graph by weighted A* on one
    /// terrain cost, clusters and string pulling under terrain costs
    Fast,
}

impl ModeArg {
    pub fn mode(self) -> Mode {
        match self {
            ModeArg::Exact => Mode::Exact,
            ModeArg::Fast => Mode::Fast,
        }
    }
}

/// `--mode` for commands that can compare both modes.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ModesArg {
    /// Exact mode only
    Exact,
    /// Fast mode only
    Fast,
    /// Both modes, one after the other
    #[default]
    All,
}

impl ModesArg {
    pub fn modes(self) -> Vec<Mode> {
        match self {
            ModesArg::Exact => vec![Mode::Exact],
            ModesArg::Fast => vec![Mode::Fast],
            ModesArg::All => vec![Mode::Exact, Mode::Fast],
        }
    }
}

/// The name of a mode on the command line and in outputs.
pub fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Exact => "exact",
        Mode::Fast => "fast",
    }
}

/// The movement class; shared by every subcommand that searches.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Movement class")]
pub struct ClassOptions {
    /// Agent size: the agent covers K x K cells from its top-left cell, which is its
    /// position (start, goal and path cells)
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub size: u32,
    /// Terrain characters the agent may stand on, e.g. .GSW for hovercraft
    #[arg(long, value_name = "CHARS", default_value = ".GS")]
    pub passable: String,
}

impl Default for ClassOptions {
    fn default() -> Self {
        ClassOptions {
            size: 1,
            passable: ".GS".into(),
        }
    }
}

/// The movement class's terrain costs; shared by `find`, `flow`, `scen`, `bench` and `info`
/// beside [`ClassOptions`]. A flag group of its own, so that a command may take the class
/// without the costs (`render` reads costs its own way).
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Movement class")]
pub struct ClassCosts {
    /// Terrain costs per unit of step length, e.g. G=0.5,S=3: a step costs its length
    /// times the mean of both positions' costs (a K x K agent's position costs the most
    /// expensive cell under it). Codes left out cost 1; each listed code must be passable
    #[arg(long, value_name = "CODE=COST,...", allow_hyphen_values = true)]
    pub costs: Option<String>,
}

/// How much of the refresh work edits defer is done before each query of a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefreshPolicy {
    /// All of it: the queries always see a fresh structure.
    All,
    /// None: the queries cross whatever has gone stale.
    Never,
    /// As much as fits in this budget (at least one unit), as a game would spend a slice
    /// of each frame; the queries cross what is left stale.
    Within(Duration),
}

/// Parses `--refresh`: `all`, `none`, or a budget in microseconds.
pub fn parse_refresh(s: &str) -> Result<RefreshPolicy, String> {
    match s.trim() {
        "all" => Ok(RefreshPolicy::All),
        "none" => Ok(RefreshPolicy::Never),
        t => t
            .parse::<u64>()
            .map(|us| RefreshPolicy::Within(Duration::from_micros(us)))
            .map_err(|_| {
                format!("invalid refresh budget {s:?}: write `all`, `none` or a number of microseconds, e.g. 1000")
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("64KiB"), Ok(64 << 10));
        assert_eq!(parse_size(" 3gb "), Ok(3 << 30));
        for bad in [
            "",
            "M",
            "12X",
            "-1G",
            "1.5G",
            "99999999999999999999T",
            "9999999999T",
        ] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        let info = "MemTotal:       24576000 kB\nMemFree: 1 kB\n";
        assert_eq!(mem_total(info), Some(24576000 * 1024));
        assert_eq!(mem_total("nothing"), None);
        assert!(MemoryOptions::default().limit() > 0);
    }
}
