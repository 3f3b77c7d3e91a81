//! A scenario file opened in the viewer: its queries, run and judged against the lengths
//! the file gives, and for a version 2 (dynamic) file its patches, laid group by group as
//! the page steps through them.

use quadpath::io::{DynamicCommand, DynamicScenario, ScenarioFile};
use quadpath::{Cell, TerrainPatch, World, WorldError};

/// The most queries listed at once: a Moving AI file has a few thousand at most, and the
/// page lists them all in one table.
pub const MAX_LISTED: usize = 5000;

/// One query with the answer the file expects.
#[derive(Clone, Copy, Debug)]
pub struct Query {
    /// Its 1-based line in the file.
    pub line: usize,
    /// Start cell.
    pub start: Cell,
    /// Goal cell.
    pub goal: Cell,
    /// The optimal length, or `None` when the file says the goal is unreachable.
    pub optimal: Option<f64>,
    /// How far a length may be from `optimal` and still count as equal.
    pub tolerance: f64,
}

enum Step {
    Patch { id: usize, at: Cell },
    Query(Query),
}

/// A loaded scenario and how far it has been played.
pub struct Scenario {
    dynamic: bool,
    steps: Vec<Step>,
    patches: Vec<TerrainPatch>,
    next: usize,
}

impl Scenario {
    /// A static (version 1) file: its queries, on its map.
    pub fn from_static(file: &ScenarioFile) -> Self {
        let steps = file
            .entries
            .iter()
            .map(|s| {
                Step::Query(Query {
                    line: s.line,
                    start: s.start,
                    goal: s.goal,
                    optimal: Some(s.optimal),
                    tolerance: s.tolerance(),
                })
            })
            .collect();
        Scenario {
            dynamic: false,
            steps,
            patches: Vec::new(),
            next: 0,
        }
    }

    /// A dynamic (version 2) file, before its first command.
    pub fn from_dynamic(file: &DynamicScenario) -> Self {
        let steps = file
            .commands
            .iter()
            .map(|c| match c {
                DynamicCommand::Patch(p) => Step::Patch { id: p.id, at: p.at },
                DynamicCommand::Query(q) => Step::Query(Query {
                    line: q.line,
                    start: q.start,
                    goal: q.goal,
                    optimal: q.optimal,
                    tolerance: q.tolerance(),
                }),
            })
            .collect();
        Scenario {
            dynamic: true,
            steps,
            patches: file.patches.clone(),
            next: 0,
        }
    }

    /// Whether the file is a version 2 one, with patches.
    pub fn is_dynamic(&self) -> bool {
        self.dynamic
    }

    /// The queries on the map as it stands: from the current position up to the next
    /// patch (at most [`MAX_LISTED`]).
    pub fn current_queries(&self) -> Vec<Query> {
        self.steps[self.next..]
            .iter()
            .map_while(|s| match s {
                Step::Query(q) => Some(*q),
                Step::Patch { .. } => None,
            })
            .take(MAX_LISTED)
            .collect()
    }

    /// Patches not laid yet.
    pub fn patches_left(&self) -> usize {
        self.steps[self.next..]
            .iter()
            .filter(|s| matches!(s, Step::Patch { .. }))
            .count()
    }

    /// Skips the current queries and lays the next group of patches on `world`; returns
    /// how many were laid (0 at the end of the file).
    ///
    /// # Errors
    /// As [`Scenario::lay_patches`].
    pub fn step(&mut self, world: &mut World) -> Result<usize, String> {
        while matches!(self.steps.get(self.next), Some(Step::Query(_))) {
            self.next += 1;
        }
        self.lay_patches(world)
    }

    /// Lays the patches that come next, up to the next query, on `world`; returns how many
    /// were laid.
    ///
    /// # Errors
    /// The library's refusal (a patch off the map or missing from the patch file: the
    /// reader checks both, so this is a bug if it happens).
    pub fn lay_patches(&mut self, world: &mut World) -> Result<usize, String> {
        let mut laid = 0;
        while let Some(Step::Patch { id, at }) = self.steps.get(self.next) {
            let patch = self
                .patches
                .get(*id)
                .ok_or_else(|| format!("the file has no patch {id}"))?;
            world
                .apply_patch(*at, patch)
                .map_err(|e: WorldError| e.to_string())?;
            self.next += 1;
            laid += 1;
        }
        Ok(laid)
    }
}

/// The verdict on one query's two answers (lengths, or `None` for no path): `failed` when
/// the exact answer is not the file's (a length off by more than the tolerance, a path
/// where there is none or none where there is one) or the fast one finds no path where
/// there is one; `suboptimal` when the fast path is longer than optimal; else `ok`.
pub fn judge(q: &Query, exact: Option<f64>, fast: Option<f64>) -> &'static str {
    match (q.optimal, exact, fast) {
        (None, None, None) => "ok",
        (Some(o), Some(e), Some(f)) if (e - o).abs() <= q.tolerance => {
            if f > o + q.tolerance {
                "suboptimal"
            } else {
                "ok"
            }
        }
        _ => "failed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        let q = |optimal| Query {
            line: 1,
            start: Cell::new(0, 0),
            goal: Cell::new(1, 1),
            optimal,
            tolerance: 1e-3,
        };
        assert_eq!(judge(&q(Some(5.0)), Some(5.0), Some(5.0)), "ok");
        assert_eq!(judge(&q(Some(5.0)), Some(5.0), Some(5.5)), "suboptimal");
        assert_eq!(judge(&q(Some(5.0)), Some(5.1), Some(5.1)), "failed");
        assert_eq!(judge(&q(Some(5.0)), None, None), "failed");
        assert_eq!(judge(&q(None), None, None), "ok");
        assert_eq!(judge(&q(None), Some(3.0), Some(3.0)), "failed");
    }
}
