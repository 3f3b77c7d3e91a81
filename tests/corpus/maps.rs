//! Every map and scenario file of the corpus read as its text says.

use crate::common::map_text::{check_map_against_text, files_under};
use crate::corpus_dir;
use quadpath::io;
use std::path::PathBuf;

#[test]
fn benchmark_maps_read_like_their_text() {
    let dir = corpus_dir("");
    let maps = files_under(&dir, ".map");
    assert!(
        maps.len() >= 10,
        "expected the benchmark maps in {}",
        dir.display()
    );
    for p in maps {
        let g = check_map_against_text(&p);
        // Writing gives back the file byte for byte, up to the final newline (some files lack
        // it): every shared file is LF with the header in the canonical order.
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            g.to_map_string(),
            format!("{}\n", text.trim_end_matches('\n')),
            "{}",
            p.display()
        );
    }
}

#[test]
fn benchmark_maps_scenarios_fit_their_maps() {
    let dir = corpus_dir("");
    // `dynamic/` holds GPPC version 2 scenarios, a different format with its own reader.
    let scens: Vec<PathBuf> = files_under(&dir, ".scen")
        .into_iter()
        .filter(|p| !p.parent().is_some_and(|d| d.ends_with("dynamic")))
        .collect();
    assert!(scens.len() >= 10);
    let mut mapf_without_rule = Vec::new();
    for p in &scens {
        let s = io::read_scen(p).unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.entries.is_empty(), "{}", p.display());
        let text = std::fs::read_to_string(p).unwrap();
        // Each line's optimal length as printed: every line is parsed, and the bucket messages
        // quote it. How far it may be from the true length is `Scenario::tolerance`.
        let printed: Vec<&str> = text
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.split_whitespace().last().unwrap())
            .collect();
        assert_eq!(s.entries.len(), printed.len(), "{}", p.display());

        let map_path =
            io::resolve_map_path(p).unwrap_or_else(|| panic!("no map for {}", p.display()));
        let map_name = map_path.file_name().unwrap().to_str().unwrap();
        let g = io::read_map(&map_path).unwrap();
        for e in &s.entries {
            assert_eq!(e.map_basename(), map_name, "{}:{}", p.display(), e.line);
            assert_eq!(
                (e.width, e.height),
                (g.width(), g.height()),
                "{}:{}",
                p.display(),
                e.line
            );
            for c in [e.start, e.goal] {
                assert!(g.is_free(c), "{}:{}: {c} is not free", p.display(), e.line);
            }
            assert!(
                e.optimal >= quadpath::octile(e.start, e.goal) - e.tolerance(),
                "{}:{}",
                p.display(),
                e.line
            );
        }
        s.validate_against(&g).unwrap();

        let follows = s
            .entries
            .iter()
            .all(|e| e.bucket == (e.optimal / 4.0).floor() as u32);
        if p.to_string_lossy().ends_with(".map.scen") {
            // The classic convention: buckets of width 4 by optimal length. Older files
            // print lengths to 6 significant digits (1059.998 as `1060`), so the bucket may
            // follow the true length on the other side of a multiple of 4.
            for (e, field) in s.entries.iter().zip(&printed) {
                let tol = e.tolerance();
                let lo = ((e.optimal - tol) / 4.0).floor() as u32;
                let hi = ((e.optimal + tol) / 4.0).floor() as u32;
                assert!(
                    (lo..=hi).contains(&e.bucket),
                    "{}:{}: bucket {} for length {field}",
                    p.display(),
                    e.line,
                    e.bucket
                );
            }
        } else if !follows {
            mapf_without_rule.push(p.display().to_string());
        }
    }
    println!("MAPF scenario files whose bucket is not floor(optimal/4): {mapf_without_rule:?}");
}
