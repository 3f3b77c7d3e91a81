//! Running Moving AI scenario lines through both modes of `HpaMap` and tallying fast
//! mode's suboptimality: shared by the scenario tests and the corpus tests.

use super::{assert_valid, ScenLine};
use quadpath::{Cell, Grid, HpaMap, Mode};
use std::path::{Path, PathBuf};

/// What one file's queries gave in fast mode.
#[derive(Default)]
pub struct Subopt {
    pub n: usize,
    pub sum: f64,
    pub max: f64,
    pub all: Vec<f64>,
    pub worst: Option<(Cell, Cell, f64, f64)>,
}

impl Subopt {
    pub fn add(&mut self, s: Cell, g: Cell, got: f64, opt: f64) {
        if opt <= 0.0 {
            return;
        }
        let r = got / opt - 1.0;
        self.n += 1;
        self.sum += r;
        self.all.push(r);
        if r > self.max || self.worst.is_none() {
            self.max = self.max.max(r);
            self.worst = Some((s, g, got, opt));
        }
    }

    /// The 99th percentile (nearest rank).
    pub fn p99(&self) -> f64 {
        let mut v = self.all.clone();
        v.sort_by(f64::total_cmp);
        v.get((v.len() * 99).div_ceil(100).saturating_sub(1))
            .copied()
            .unwrap_or(0.0)
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }
}

/// Runs `queries` in both modes on `grid`; panics on any wrong exact length, invalid path or
/// fast path below optimal. Returns the fast-mode suboptimality.
pub fn run(name: &str, grid: &Grid, queries: &[ScenLine]) -> Subopt {
    let exact = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
    let fast = HpaMap::new(grid.clone(), Mode::Fast).unwrap();
    exact.check_consistency().unwrap();
    fast.check_consistency().unwrap();
    let mut sub = Subopt::default();
    for (i, line) in queries.iter().enumerate() {
        let (s, g, opt, tol) = (line.start, line.goal, line.optimal, line.tol);
        let ctx = format!("{name} query {i}: {s} -> {g} (optimal {opt} ± {tol})");
        let p = exact
            .find_path(s, g)
            .unwrap_or_else(|e| panic!("{ctx}: exact: {e}"));
        assert_valid(grid, s, g, &p);
        assert!(
            (p.length - opt).abs() <= tol,
            "{ctx}: exact length {}",
            p.length
        );
        let q = fast
            .find_path(s, g)
            .unwrap_or_else(|e| panic!("{ctx}: fast: {e}"));
        assert_valid(grid, s, g, &q);
        assert!(
            q.length >= opt - tol,
            "{ctx}: fast length {} below optimal",
            q.length
        );
        sub.add(s, g, q.length, opt);
    }
    sub
}

pub fn report(name: &str, n: usize, sub: &Subopt) {
    let worst = sub.worst.map_or(String::new(), |(s, g, got, opt)| {
        format!(" (worst {s} -> {g}: {got:.3} vs {opt:.3})")
    });
    println!(
        "{name}: {n} queries, fast subopt mean {:.3}% max {:.3}%{worst}",
        100.0 * sub.mean(),
        100.0 * sub.max
    );
}

pub fn map_for(scen: &Path) -> PathBuf {
    quadpath::io::resolve_map_path(scen)
        .unwrap_or_else(|| panic!("no map found for {}", scen.display()))
}

/// `k` evenly spaced items of `v` (all of them when there are fewer).
pub fn sample<T: Copy>(v: &[T], k: usize) -> Vec<T> {
    if v.len() <= k {
        return v.to_vec();
    }
    (0..k).map(|i| v[i * v.len() / k]).collect()
}

/// The files of `dir` with extension `ext`, sorted.
pub fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}
