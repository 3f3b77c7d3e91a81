//! The tests that read the Moving AI benchmark corpus, which the repository does not ship:
//! a test target of its own, built only with the `corpus` feature, so that a plain
//! `cargo test` in a fresh clone reads nothing outside the repository.
//!
//! The corpus folder (holding `classic`, `mapf`, `rabin`, `sc1`, `dynamic`) is
//! `$QUADPATH_CORPUS`, or `corpus/` at the workspace root when it is unset (a link to a
//! checkout, say). A missing folder fails the tests loudly: nothing is skipped. CI runs
//! `QUADPATH_CORPUS=<the corpus> cargo test --features corpus --test corpus` (see
//! `docs/testing.md`).

#[path = "../common/mod.rs"]
mod common;

mod classes;
mod maps;
mod scenarios;

use std::path::PathBuf;

/// One folder of the corpus (`""` for the whole of it): under `$QUADPATH_CORPUS`, or
/// `corpus/` at the workspace root. Panics when it is missing, so that a run without the
/// data fails instead of passing unchecked.
pub fn corpus_dir(sub: &str) -> PathBuf {
    let root = std::env::var_os("QUADPATH_CORPUS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus"),
        PathBuf::from,
    );
    let dir = root.join(sub);
    assert!(
        dir.is_dir(),
        "{} does not exist: the corpus tests need the Moving AI benchmark maps \
         (set QUADPATH_CORPUS to their folder, or link it as corpus/ at the workspace root)",
        dir.display()
    );
    dir
}
