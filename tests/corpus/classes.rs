//! Movement classes on two StarCraft maps of the corpus (see
//! `tests/suite/world_scenarios.rs`).

use crate::common::class_check::check;
use crate::corpus_dir;

/// Two StarCraft maps of the benchmark corpus.
#[test]
fn benchmark_maps_starcraft_sizes_2_and_3() {
    let dir = corpus_dir("sc1");
    for name in ["Aftershock", "BlackLotus"] {
        let map = dir.join(format!("{name}.map"));
        check(&map, &dir.join(format!("{name}.map.scen")), 25, &[2, 3]);
    }
}
