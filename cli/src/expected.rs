//! [`Expected`]: what a scenario file says about one query, the yardstick `class`, `judge`
//! and `replay` measure answers against.

use quadpath::io::{DynamicQuery, Scenario};
use quadpath::Cell;

/// What a scenario file says about one query.
pub struct Expected {
    pub start: Cell,
    pub goal: Cell,
    /// The optimal length (the optimal cost under terrain costs), or `None` when the goal
    /// is unreachable.
    pub optimal: Option<f64>,
    /// How far a length or cost may be from `optimal` and still equal it (files round
    /// them).
    pub tolerance: f64,
    /// The query's line in its file, for messages.
    pub line: usize,
}

impl From<&Scenario> for Expected {
    fn from(s: &Scenario) -> Self {
        Expected {
            start: s.start,
            goal: s.goal,
            optimal: Some(s.optimal),
            tolerance: s.tolerance(),
            line: s.line,
        }
    }
}

impl From<&DynamicQuery> for Expected {
    fn from(q: &DynamicQuery) -> Self {
        Expected {
            start: q.start,
            goal: q.goal,
            optimal: q.optimal,
            tolerance: q.tolerance(),
            line: q.line,
        }
    }
}
