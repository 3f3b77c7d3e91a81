mod common;
use common::*;
use quadpath::{Cell, Grid, HpaMap, Mode};

#[test]
fn random_maps_exact() {
    let mut rng = Rng(12345);
    for round in 0..200 {
        let (w, h) = (1 + rng.below(40) as u32, 1 + rng.below(40) as u32);
        let density = rng.below(40);
        let grid = Grid::from_fn(w, h, |_, _| rng.below(100) >= density);
        let mut map = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
        map.check_consistency().unwrap();
        let free: Vec<Cell> = grid.bounds().cells().filter(|c| grid.is_free(c.x, c.y)).collect();
        if free.is_empty() { continue; }
        for _ in 0..10 {
            let s = free[rng.below(free.len() as u64) as usize];
            let d = distances(&grid, s);
            let g = free[rng.below(free.len() as u64) as usize];
            let want = d[(g.y * w + g.x) as usize];
            match (map.find_path(s, g), want) {
                (Ok(p), Some(len)) => {
                    assert_valid(&grid, s, g, &p);
                    assert!((p.length - len).abs() < 1e-6, "round {round} {w}x{h}: {s}->{g} got {} want {len}", p.length);
                }
                (Err(e), None) => assert!(matches!(e, quadpath::PathError::Unreachable { .. })),
                (r, want) => panic!("round {round}: {s}->{g}: {r:?} vs {want:?}"),
            }
        }
    }
}

#[test]
fn random_edits_match_fresh_build() {
    const ROUNDS: u32 = 150;
    let mut rng = Rng(777);
    for round in 0..ROUNDS {
        let (w, h) = (1 + rng.below(30) as u32, 1 + rng.below(30) as u32);
        let density = rng.below(35);
        let mode = if round % 2 == 0 { Mode::Exact } else { Mode::Fast };
        let mut grid = Grid::from_fn(w, h, |_, _| rng.below(100) >= density);
        let mut map = HpaMap::new(grid.clone(), mode).unwrap();
        for step in 0..25 {
            let (x, y) = (rng.below(w as u64) as u32, rng.below(h as u64) as u32);
            let blocked = rng.below(2) == 0;
            let prev = grid.clone();
            if rng.below(4) == 0 {
                let (x2, y2) = ((x + rng.below(4) as u32).min(w - 1), (y + rng.below(4) as u32).min(h - 1));
                let r = quadpath::Rect::new(x, y, x2, y2);
                map.set_rect_blocked(r, blocked).unwrap();
                for c in r.cells() { grid.set_free(c.x, c.y, !blocked); }
            } else {
                map.set_blocked(x, y, blocked).unwrap();
                grid.set_free(x, y, !blocked);
            }
            if let Err(e) = map.check_consistency() {
                let before = HpaMap::new(prev.clone(), mode).unwrap();
                let _ = before;
                for y in 0..h { let row: String = (0..w).map(|x| if prev.is_free(x,y) {'.'} else {'@'}).collect(); eprintln!("{row}"); }
                panic!("round {round} step {step} {mode:?} edit ({x},{y}) blocked={blocked}: {e}");
            }
            let fresh = HpaMap::new(grid.clone(), mode).unwrap();
            assert_eq!(map.snapshot(), fresh.snapshot(), "round {round} step {step} ({x},{y}) blocked={blocked}");
        }
    }
}
