//! Output helpers: writing to stdout without panicking, number formatting, statistics,
//! JSON shapes and progress bars.

use crate::class::Class;
use crate::{mode_name, CliError};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use quadpath::{Cell, Grid, Mode};
use std::io::{IsTerminal, Write};
use std::path::Path;

/// Writes `text` to stdout. A closed pipe (`quadpath ... | head`) is not an error.
pub fn emit(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::input(format!(
            "cannot write to standard output: {e}"
        ))),
    }
}

/// Writes one line to stderr, ignoring failures.
pub fn warn(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// A cell as a JSON pair `[x, y]`.
pub fn cell_json(c: Cell) -> [u32; 2] {
    [c.x, c.y]
}

/// Cells as JSON pairs.
pub fn cells_json(cells: &[Cell]) -> Vec<[u32; 2]> {
    cells.iter().map(|&c| cell_json(c)).collect()
}

/// The first lines of a one-map text output: the map, its size and the mode, then the
/// class for a non-default one and the terrain costs when some are not 1.
pub fn map_header(map: &Path, grid: &Grid, mode: Mode, class: &Class) -> String {
    let mut s = format!(
        "map      {} ({}x{}, {} mode)\n",
        map.display(),
        grid.width(),
        grid.height(),
        mode_name(mode)
    );
    if let Some(c) = class.label() {
        s += &format!("class    {c}\n");
    }
    if let Some(c) = class.costs_label() {
        s += &format!("costs    {c}\n");
    }
    s
}

/// Cells as ` x,y` items after a label `indent` columns wide, wrapped before column 88 onto
/// lines indented as much; ends with a newline.
pub fn wrapped_cells(cells: &[Cell], indent: usize) -> String {
    let mut s = String::new();
    let mut width = indent;
    for c in cells {
        let item = format!(" {c}");
        if width + item.len() > 88 {
            s += "\n";
            s += &" ".repeat(indent);
            width = indent;
        }
        width += item.len();
        s += &item;
    }
    s + "\n"
}

/// A progress bar on stderr when it is a terminal and `quiet` is off; hidden otherwise.
pub fn progress(len: usize, prefix: &str, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style =
        ProgressStyle::with_template("{prefix:>16} [{bar:32}] {pos}/{len} queries, {elapsed}")
            .map(|s| s.progress_chars("=> "))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
    let pb = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr())
        .with_style(style);
    pb.set_prefix(prefix.to_string());
    pb
}

/// The sum, `0.0` for no values (`Iterator::sum` on floats gives `-0.0`, printed `-0.000`).
pub fn sum(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |sum, x| sum + x)
}

/// The mean, or 0 for no values.
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        sum(v) / v.len() as f64
    }
}

/// Nearest-rank percentile (`p` from 0 to 1) of unsorted values, 0 for no values.
pub fn percentile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = (p * s.len() as f64).ceil() as usize;
    s[rank.clamp(1, s.len()) - 1]
}

/// The median of unsorted values (mean of the two middle ones for an even count), 0 for none.
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// The largest value, 0 for none.
pub fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(0.0, f64::max)
}

/// A duration in milliseconds for humans.
pub fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 1.0 {
        format!("{v:.2} ms")
    } else {
        format!("{v:.3} ms")
    }
}

/// A duration in microseconds for humans.
pub fn us(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.1} ms", v / 1e3)
    } else if v >= 100.0 {
        format!("{v:.0} µs")
    } else {
        format!("{v:.1} µs")
    }
}

/// Queries per second for humans.
pub fn rate(qps: f64) -> String {
    if qps >= 100.0 {
        format!("{qps:.0} queries/s")
    } else {
        format!("{qps:.1} queries/s")
    }
}

/// A fraction as a percentage.
pub fn pct(v: f64) -> String {
    format!("{:.3}%", v * 100.0)
}

/// A byte count for humans.
pub fn bytes(v: usize) -> String {
    let v = v as f64;
    if v >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", v / (1024.0 * 1024.0))
    } else if v >= 1024.0 {
        format!("{:.1} KiB", v / 1024.0)
    } else {
        format!("{v} B")
    }
}

/// Rounds for JSON so that outputs stay readable: `digits` decimals.
pub fn round(v: f64, digits: i32) -> f64 {
    let k = 10f64.powi(digits);
    (v * k).round() / k
}

/// Serialises a value to one JSON line.
pub fn json_line<T: serde::Serialize>(v: &T) -> Result<String, CliError> {
    serde_json::to_string(v)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| CliError::input(format!("cannot encode JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics() {
        let v = [3.0, 1.0, 2.0, 10.0];
        assert_eq!(median(&v), 2.5);
        assert_eq!(percentile(&v, 0.5), 2.0);
        assert_eq!(percentile(&v, 0.99), 10.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
        assert_eq!(max(&v), 10.0);
        assert_eq!(mean(&v), 4.0);
        assert!(sum(&[]).is_sign_positive() && ms(sum(&[])) == "0.000 ms");
    }
}
