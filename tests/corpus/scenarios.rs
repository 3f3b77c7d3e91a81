//! The Moving AI corpus through both modes (see `tests/suite/hpa_scenarios.rs` for the
//! checks): a sample of every folder's scenario files, and every line of the StarCraft ones.

use crate::common::scen_check::*;
use crate::common::{read_movingai, read_scen};
use crate::corpus_dir;
use std::path::PathBuf;

/// A sample of every scenario file of every map in one folder of the benchmark corpus.
fn corpus_sample(sub: &str) {
    let dir = corpus_dir(sub);
    let scens = files_with(&dir, "scen");
    let maps = files_with(&dir, "map");
    assert!(!maps.is_empty(), "{}: no .map file", dir.display());
    for s in &scens {
        let map = quadpath::io::resolve_map_path(s);
        assert!(
            map.as_ref().is_some_and(|m| maps.contains(m)),
            "{}: its map is not in {} (found {map:?})",
            s.display(),
            dir.display()
        );
    }
    for map in maps {
        let grid = read_movingai(&map);
        let name = map.file_name().unwrap().to_string_lossy().into_owned();
        let mine: Vec<&PathBuf> = scens
            .iter()
            .filter(|s| quadpath::io::resolve_map_path(s).as_deref() == Some(&map))
            .collect();
        assert!(!mine.is_empty(), "{sub}/{name}: no scenario file");
        // Small maps are cheap: take more lines there.
        let cells = grid.width() as u64 * grid.height() as u64;
        let k = if cells <= 128 * 128 {
            80
        } else if cells <= 300 * 300 {
            40
        } else {
            25
        };
        let mut queries = Vec::new();
        for s in &mine {
            queries.extend(sample(&read_scen(s), k));
        }
        let t = std::time::Instant::now();
        let sub_ = run(&format!("{sub}/{name}"), &grid, &queries);
        report(
            &format!(
                "{sub}/{name} ({}x{}, {:.2}s)",
                grid.width(),
                grid.height(),
                t.elapsed().as_secs_f64()
            ),
            queries.len(),
            &sub_,
        );
    }
}

#[test]
fn benchmark_maps_classic_sample() {
    corpus_sample("classic");
}

#[test]
fn benchmark_maps_mapf_sample() {
    corpus_sample("mapf");
}

#[test]
fn benchmark_maps_rabin_sample() {
    corpus_sample("rabin");
}

/// The Moving AI StarCraft maps (512² to 1024²), whose files print lengths to 6 significant
/// digits: a correct path may be up to 0.005 off the printed optimum.
#[test]
fn benchmark_maps_sc1_sample() {
    corpus_sample("sc1");
}

/// Every line of every StarCraft scenario file (15,700 queries on 512² to 1024² maps), both
/// modes: exact optimal within the printed precision, fast valid and never shorter. About
/// a minute; the standard RTS benchmark is worth it.
#[test]
fn benchmark_maps_sc1_whole_files() {
    let dir = corpus_dir("sc1");
    let scens = files_with(&dir, "scen");
    assert_eq!(scens.len(), 5, "{scens:?}");
    let mut total = 0;
    for scen in &scens {
        let grid = read_movingai(&map_for(scen));
        let queries = read_scen(scen);
        let name = scen.file_name().unwrap().to_string_lossy().into_owned();
        let sub = run(&format!("sc1/{name}"), &grid, &queries);
        report(&format!("sc1/{name} (whole)"), queries.len(), &sub);
        total += queries.len();
    }
    assert!(total > 15_000, "{total} queries");
}
