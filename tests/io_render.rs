//! Renders checked pixel by pixel.

use quadpath::io::{self, render, Overlay, Palette, RenderOptions};
use quadpath::{Cell, Grid, Rect};

const K: u32 = 4;

/// The colour of pixel `(i, j)` inside cell `(x, y)`.
fn px(img: &image::RgbImage, x: u32, y: u32, i: u32, j: u32) -> [u8; 3] {
    img.get_pixel(x * K + i, y * K + j).0
}

fn setup() -> (Grid, Palette) {
    // 10×8, a wall at (7, 1..=5), water at (0,7), forest at (1,7).
    let mut g = Grid::new_free(10, 8);
    for y in 1..=5 {
        g.set_blocked(Cell::new(7, y), true);
    }
    g.set_terrain(Cell::new(0, 7), b'W');
    g.set_terrain(Cell::new(1, 7), b'T');
    (g, Palette::default())
}

#[test]
fn pixels_of_cells_leaves_gates_and_path() {
    let (g, pal) = setup();
    let leaves = [
        (Rect::new(0, 0, 3, 3), true),
        (Rect::new(7, 1, 7, 5), false),
    ];
    let gates = [(Cell::new(5, 6), Cell::new(6, 6))];
    let path = [
        Cell::new(1, 1),
        Cell::new(2, 2),
        Cell::new(3, 2),
        Cell::new(4, 3),
        Cell::new(5, 4),
    ];
    let overlay = Overlay {
        leaves: &leaves,
        gates: &gates,
        path: &path,
    };
    let opts = RenderOptions {
        scale: K,
        ..Default::default()
    };
    let img = render(&g, &overlay, &opts);
    assert_eq!(img.dimensions(), (40, 32));

    // Leaf outline: the border pixels of the 16×16 block, corners and edges.
    for (x, y) in [
        (0, 0),
        (15, 0),
        (0, 15),
        (15, 15),
        (7, 0),
        (0, 9),
        (15, 5),
        (11, 15),
    ] {
        assert_eq!(img.get_pixel(x, y).0, pal.leaf, "outline pixel ({x},{y})");
    }
    // Just inside the outline, away from the path: free colour.
    for (x, y) in [(1, 1), (14, 1), (1, 14), (14, 14), (6, 13)] {
        assert_eq!(img.get_pixel(x, y).0, pal.free, "interior pixel ({x},{y})");
    }
    // Outside the leaf the outline stops.
    assert_eq!(img.get_pixel(16, 0).0, pal.free);
    assert_eq!(img.get_pixel(0, 16).0, pal.free);

    // Path: every pixel of the inner cells, including where the path covers the outline.
    for c in &path[1..path.len() - 1] {
        for j in 0..K {
            for i in 0..K {
                assert_eq!(
                    px(&img, c.x, c.y, i, j),
                    pal.path,
                    "path cell {c} pixel ({i},{j})"
                );
            }
        }
    }
    assert_eq!(
        px(&img, 3, 2, 3, 0),
        pal.path,
        "the path is drawn over the leaf outline"
    );
    // Start and goal in their own colours, all K×K pixels.
    for j in 0..K {
        for i in 0..K {
            assert_eq!(px(&img, 1, 1, i, j), pal.start);
            assert_eq!(px(&img, 5, 4, i, j), pal.goal);
        }
    }
    // Neighbours of path cells that are off the path stay free.
    assert_eq!(px(&img, 2, 1, 1, 1), pal.free);
    assert_eq!(px(&img, 4, 2, 2, 2), pal.free);

    // Blocked and tinted cells; the blocked leaf is not outlined by default.
    assert_eq!(px(&img, 7, 3, 0, 0), pal.blocked);
    assert_eq!(px(&img, 7, 1, 0, 0), pal.blocked);
    assert_eq!(px(&img, 0, 7, 2, 2), pal.water);
    assert_eq!(px(&img, 1, 7, 2, 2), pal.forest);

    // Gate: a line between the two cell centres, pixels (22,26)..(26,26).
    for x in 22..=26 {
        assert_eq!(img.get_pixel(x, 26).0, pal.gate, "gate pixel ({x},26)");
    }
    assert_eq!(img.get_pixel(21, 26).0, pal.free);
    assert_eq!(img.get_pixel(24, 25).0, pal.free);
}

#[test]
fn options_change_what_is_drawn() {
    let (g, pal) = setup();
    let leaves = [(Rect::new(7, 1, 7, 5), false)];
    let overlay = Overlay {
        leaves: &leaves,
        ..Default::default()
    };
    let opts = RenderOptions {
        scale: K,
        blocked_leaves: true,
        terrain_tints: false,
        ..Default::default()
    };
    let img = render(&g, &overlay, &opts);
    assert_eq!(px(&img, 7, 1, 0, 0), pal.blocked_leaf);
    assert_eq!(px(&img, 7, 3, 1, 1), pal.blocked, "inside a blocked leaf");
    assert_eq!(px(&img, 0, 7, 2, 2), pal.blocked, "no tint");

    // Scale 1 is one pixel per cell; scale 0 counts as 1; anything out of the grid is ignored.
    let stray = [Cell::new(50, 50), Cell::new(0, 0)];
    let leaves = [(Rect::new(8, 6, 40, 40), true)];
    let overlay = Overlay {
        path: &stray,
        leaves: &leaves,
        gates: &[(Cell::new(99, 0), Cell::new(0, 0))],
    };
    let img = render(
        &g,
        &overlay,
        &RenderOptions {
            scale: 0,
            ..Default::default()
        },
    );
    assert_eq!(img.dimensions(), (10, 8));
    assert_eq!(
        img.get_pixel(0, 0).0,
        pal.goal,
        "the last path cell is the goal"
    );
    assert_eq!(
        img.get_pixel(8, 6).0,
        pal.leaf,
        "a clipped leaf is outlined inside the grid"
    );
    assert_eq!(img.get_pixel(9, 7).0, pal.leaf);
}

#[test]
fn save_png_writes_what_was_rendered() {
    let (g, _) = setup();
    let path = [Cell::new(0, 0), Cell::new(1, 1)];
    let img = render(
        &g,
        &Overlay {
            path: &path,
            ..Default::default()
        },
        &RenderOptions::default(),
    );
    let dir = std::env::temp_dir().join(format!("quadpath-io-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("r.png");
    io::save_png(&img, &p).unwrap();
    assert_eq!(image::open(&p).unwrap().to_rgb8(), img);
    let e = io::save_png(&img, dir.join("no/such/dir/r.png")).unwrap_err();
    assert!(e.to_string().contains("r.png"), "{e}");
}

#[test]
fn huge_scale_is_capped() {
    use io::{effective_scale, MAX_RENDER_PIXELS};
    let g = Grid::new_free(100, 50);
    let k = effective_scale(&g, u32::MAX) as u64;
    assert!(
        k * k * 5000 <= MAX_RENDER_PIXELS && (k + 1) * (k + 1) * 5000 > MAX_RENDER_PIXELS,
        "{k}"
    );
    assert_eq!(effective_scale(&g, 7), 7);
    assert_eq!(effective_scale(&g, 0), 1);
    // A grid already over the cap still renders at one pixel per cell.
    assert_eq!(effective_scale(&Grid::new_free(9000, 9000), 4), 1);
}
