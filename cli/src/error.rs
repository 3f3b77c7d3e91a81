//! Failures of the command line: [`CliError`], printed as one `quadpath: error: ...` line,
//! and the exit statuses it carries. The bottom layer: it depends on nothing else here.

use quadpath::io::MapError;
use quadpath::{BuildError, QueryError};
use std::path::Path;

/// Exit status: success.
pub const EXIT_OK: i32 = 0;

/// Exit status: a check failed (invalid path), or no path exists.
pub const EXIT_FAILED: i32 = 1;

/// Exit status: bad usage or bad input.
pub const EXIT_INPUT: i32 = 2;

/// A failure, with the exit status it should produce.
#[derive(Debug)]
pub struct CliError {
    pub code: i32,
    pub message: String,
}

impl CliError {
    /// Bad input: exit status 2.
    pub fn input(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_INPUT,
            message: message.into(),
        }
    }

    /// A failed check or a missing path: exit status 1.
    pub fn failed(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_FAILED,
            message: message.into(),
        }
    }
}

impl From<MapError> for CliError {
    fn from(e: MapError) -> Self {
        CliError::input(e.to_string())
    }
}

/// A query error on the map `map`: no path is status 1, anything else 2.
pub fn path_error(map: &Path, e: QueryError) -> CliError {
    let msg = format!("{}: {e}", map.display());
    match e {
        QueryError::Unreachable { .. } => CliError::failed(msg),
        _ => CliError::input(msg),
    }
}

/// A map that cannot be prepared for search: status 2.
pub fn build_error(map: &Path, e: BuildError) -> CliError {
    match e {
        BuildError::MemoryLimit { .. } => CliError::input(format!(
            "{}: {e} (raise it with --max-memory SIZE)",
            map.display()
        )),
        e => CliError::input(format!("{}: {e}", map.display())),
    }
}
