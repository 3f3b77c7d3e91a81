//! Moving AI maps checked against their text, read without the library.

use quadpath::{io, Cell, Grid};
use std::path::{Path, PathBuf};

/// The files under `dir`, in every subfolder, whose names end with `suffix`, sorted.
pub fn files_under(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Header and rows read without the library, to check it against.
pub fn naive_map(text: &str) -> (u32, u32, Vec<Vec<u8>>) {
    let mut lines = text.lines();
    let (mut w, mut h) = (0, 0);
    for l in lines.by_ref() {
        let f: Vec<&str> = l.split_whitespace().collect();
        match f.as_slice() {
            ["height", v] => h = v.parse().unwrap(),
            ["width", v] => w = v.parse().unwrap(),
            ["map"] => break,
            _ => {}
        }
    }
    let rows: Vec<Vec<u8>> = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.as_bytes().to_vec())
        .collect();
    (w, h, rows)
}

/// Reads `path` with the library and checks every cell against the file's text.
pub fn check_map_against_text(path: &Path) -> Grid {
    let g = io::read_map(path).unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(path).unwrap();
    let (w, h, rows) = naive_map(&text);
    assert_eq!((g.width(), g.height()), (w, h), "{}", path.display());
    assert_eq!(rows.len(), h as usize, "{}", path.display());
    for (y, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), w as usize);
        for (x, &ch) in row.iter().enumerate() {
            let (x, y) = (x as u32, y as u32);
            assert_eq!(g.terrain(Cell::new(x, y)), ch);
            assert_eq!(
                g.is_free(Cell::new(x, y)),
                b".GS".contains(&ch),
                "{} ({x},{y}) {}",
                path.display(),
                ch as char
            );
        }
    }
    g
}
