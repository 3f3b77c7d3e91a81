//! Renders checked pixel by pixel.

use quadpath::io::{self, render, Overlay, Palette, RenderOptions};
use quadpath::{Cell, Grid, Rect, TerrainCosts};

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
        ..Default::default()
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
        ..Default::default()
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
    // A grid already over the cap gets one pixel per cell at most (and is then shrunk, see
    // `grids_over_the_cap_are_shrunk`).
    assert_eq!(effective_scale(&Grid::new_free(9000, 9000), 4), 1);
}

/// Issue 11: the cap holds for grids with more cells than pixels allowed: they are drawn
/// shrunk, a pixel per 2×2 block here, with walls winning over free ground.
#[test]
fn grids_over_the_cap_are_shrunk() {
    use io::{cells_per_pixel, render_size, MAX_RENDER_PIXELS};
    // 2^14 × (2^12 + 1) cells: just over 2^26.
    let (w, h) = (1 << 14, (1 << 12) + 1);
    let mut g = Grid::new_free(w, h);
    g.set_blocked(Cell::new(w - 1, 1), true);
    assert_eq!(cells_per_pixel(&g), 2);
    assert_eq!(render_size(&g, 4), (1 << 13, (1 << 11) + 1));
    let path = [Cell::new(10, h - 1), Cell::new(11, h - 1)];
    let overlay = Overlay {
        path: &path,
        ..Default::default()
    };
    let img = render(&g, &overlay, &RenderOptions::default());
    let (iw, ih) = img.dimensions();
    assert_eq!((iw, ih), render_size(&g, 4));
    assert!(iw as u64 * ih as u64 <= MAX_RENDER_PIXELS);
    let pal = Palette::default();
    // The one blocked cell darkens its block's pixel; its neighbours stay free.
    assert_eq!(img.get_pixel(iw - 1, 0).0, pal.blocked);
    assert_eq!(img.get_pixel(iw - 2, 0).0, pal.free);
    assert_eq!(img.get_pixel(iw - 1, 1).0, pal.free);
    // Both path cells fall in the block at (5, last row): the goal is drawn last.
    assert_eq!(img.get_pixel(5, ih - 1).0, pal.goal);
    assert_eq!(img.get_pixel(4, ih - 1).0, pal.free);
    // Grids within the cap are not shrunk.
    assert_eq!(cells_per_pixel(&Grid::new_free(8192, 8192)), 1);
}

/// Issue 11: a failed write (a full disk) is reported by `save_png`, naming the file, even
/// for an image small enough to sit in a write buffer.
#[cfg(target_os = "linux")]
#[test]
fn save_png_to_a_full_disk_fails() {
    let (g, _) = setup();
    let img = render(&g, &Overlay::default(), &RenderOptions::default());
    let e = io::save_png(&img, "/dev/full").unwrap_err();
    assert!(matches!(e, io::MapError::Io { .. }), "{e:?}");
    assert!(e.to_string().starts_with("/dev/full: "), "{e}");
}

/// A movement class's overlay: cells outside its open area are blended halfway toward
/// `closed` (walls keep their colour), and the squares under a 2×2 agent's path halfway
/// toward `footprint`, each once, with the positions themselves in the path colours.
#[test]
fn open_area_tint_and_footprint() {
    let (g, pal) = setup();
    let half = |a: [u8; 3], b: [u8; 3]| -> [u8; 3] {
        std::array::from_fn(|i| ((a[i] as u16 + b[i] as u16) / 2) as u8)
    };
    // The open area is whatever the caller says: columns 2 to 6 here.
    let open = Grid::from_fn(10, 8, |x, _| (2..=6).contains(&x));
    let path = [Cell::new(2, 2), Cell::new(3, 3), Cell::new(4, 3)];
    let overlay = Overlay {
        path: &path,
        open: Some(&open),
        footprint: 2,
        ..Default::default()
    };
    let img = render(&g, &overlay, &io::RenderOptions::default());
    // Not open: a free cell, water, forest are tinted; the wall is not.
    assert_eq!(px(&img, 9, 0, 1, 1), half(pal.free, pal.closed));
    assert_eq!(px(&img, 0, 7, 1, 1), half(pal.water, pal.closed));
    assert_eq!(px(&img, 1, 7, 1, 1), half(pal.forest, pal.closed));
    assert_eq!(px(&img, 7, 3, 1, 1), pal.blocked);
    assert_eq!(px(&img, 2, 0, 1, 1), pal.free);
    // Under the footprint but not a position: blended once, even where two squares overlap.
    assert_eq!(px(&img, 3, 2, 1, 1), half(pal.free, pal.footprint));
    assert_eq!(px(&img, 4, 4, 1, 1), half(pal.free, pal.footprint));
    assert_eq!(px(&img, 5, 4, 1, 1), half(pal.free, pal.footprint));
    // The positions: start, path, goal.
    assert_eq!(px(&img, 2, 2, 1, 1), pal.start);
    assert_eq!(px(&img, 3, 3, 1, 1), pal.path);
    assert_eq!(px(&img, 4, 3, 1, 1), pal.goal);
    // Off the footprint and open: untouched.
    assert_eq!(px(&img, 6, 5, 1, 1), pal.free);
}

/// The heat map of a distance field: cells by distance along the ramp, walls, cut-off and
/// closed cells in their own colours, one arrow, a path and the goal with its ring.
#[test]
fn field_heat_map_pixels() {
    use quadpath::io::{render_field, FieldOverlay, FieldPalette, FieldRenderOptions};
    let (g, _) = setup();
    let pal = FieldPalette::default();
    // Distance: the column, row 0 cut off. Arrows every 2 cells (8 pixels) would sit on
    // cells (1 + 2i, 1 + 2j); only (9, 7) answers a step, one cell west.
    let distance = |c: Cell| (c.y > 0).then_some(c.x as f64);
    let next_step = |c: Cell| (c == Cell::new(9, 7)).then(|| Cell::new(8, 7));
    let mut open = g.clone();
    open.set_blocked(Cell::new(5, 5), true);
    let paths = vec![vec![Cell::new(4, 6), Cell::new(5, 6)]];
    let field = FieldOverlay {
        distance: &distance,
        next_step: &next_step,
        goal: Rect::new(0, 1, 0, 6),
        paths: &paths,
        open: Some(&open),
    };
    let opts = FieldRenderOptions {
        scale: K,
        arrow_spacing: 2 * K,
        palette: pal,
    };
    let img = render_field(&g, &field, &opts);
    assert_eq!(img.dimensions(), (40, 32));
    let whole = |x: u32, y: u32, c: [u8; 3]| {
        for j in 0..K {
            for i in 0..K {
                assert_eq!(px(&img, x, y, i, j), c, "cell {x},{y} pixel ({i},{j})");
            }
        }
    };
    whole(7, 3, pal.blocked);
    whole(3, 0, pal.unreachable);
    whole(5, 5, pal.closed);
    whole(0, 3, pal.goal);
    whole(4, 6, pal.start);
    whole(5, 6, pal.path);
    // The ramp from the goal's column to the farthest one (distance 9).
    whole(9, 3, pal.ramp[6]);
    whole(3, 2, pal.ramp[2]);
    whole(6, 4, pal.ramp[4]);
    // No arrow where no step is answered: cell (1, 1) is one colour.
    whole(1, 1, px(&img, 1, 1, 0, 0));
    // The arrow, over cell (9, 7): its pixels differ from the cell's colour.
    let arrow = (0..K * K)
        .filter(|i| px(&img, 9, 7, i % K, i / K) != pal.ramp[6])
        .count();
    assert!(arrow >= 3, "{arrow} arrow pixels");
    whole(9, 6, pal.ramp[6]);
    // The ring, two pixels wide, 7 pixels right of the goal's cells.
    for y in [8, 12, 20] {
        assert_eq!(img.get_pixel(K + 6, y).0, pal.goal);
        assert_eq!(img.get_pixel(K + 5, y).0, pal.goal);
        assert_ne!(img.get_pixel(K + 7, y).0, pal.goal);
    }

    // One pixel per cell: paths 3 pixels wide and starts 5, so that they stay visible.
    let paths = vec![vec![Cell::new(3, 5), Cell::new(3, 4), Cell::new(3, 3)]];
    let small = render_field(
        &g,
        &FieldOverlay {
            paths: &paths,
            ..field
        },
        &FieldRenderOptions { scale: 1, ..opts },
    );
    assert_eq!(small.dimensions(), (10, 8));
    assert_eq!(
        small.get_pixel(1, 5).0,
        pal.start,
        "two pixels off the start"
    );
    assert_eq!(small.get_pixel(2, 2).0, pal.path, "one pixel off the path");
    assert_ne!(small.get_pixel(1, 2).0, pal.path);
}

/// Issue 17: with terrain costs, free cells are tinted by what they cost to cross: a road
/// toward gold, a swamp toward mud, plain ground as it was; walls and water as without.
#[test]
fn cost_tints_show_cheap_costly_and_unit_cells() {
    let (mut g, pal) = setup();
    let (road, swamp, ground) = (Cell::new(2, 0), Cell::new(3, 0), Cell::new(4, 0));
    g.set_terrain(road, b'G');
    g.set_terrain(swamp, b'S');
    let opts = RenderOptions {
        scale: K,
        ..Default::default()
    };
    let draw = |costs: Option<&TerrainCosts>| {
        let overlay = Overlay {
            costs,
            ..Default::default()
        };
        render(&g, &overlay, &opts)
    };

    // By the palette's rule: the free colour (240,240,236) moved 0.3 + 0.7·|log₂ c|/4 of
    // the way to gold (240,190,60) for c = 0.5 (0.475 of the way) and to mud (120,84,52)
    // for c = 3 (0.577 of the way), rounded.
    let costs: TerrainCosts = "G=0.5,S=3".parse().unwrap();
    let img = draw(Some(&costs));
    assert_eq!(
        pal,
        Palette::default(),
        "the values below are the default palette's"
    );
    assert_eq!(px(&img, road.x, road.y, 1, 1), [240, 216, 152], "cheap");
    assert_eq!(px(&img, swamp.x, swamp.y, 1, 1), [171, 150, 130], "costly");
    assert_eq!(
        px(&img, ground.x, ground.y, 1, 1),
        pal.free,
        "plain ground, unit cost"
    );
    assert_eq!(px(&img, 7, 3, 1, 1), pal.blocked);
    assert_eq!(px(&img, 0, 7, 1, 1), pal.water);

    // Far from 1 the tint is the full hue; the same code at cost 1 is plain ground.
    let extreme: TerrainCosts = "G=0.0625,S=16".parse().unwrap();
    let img = draw(Some(&extreme));
    assert_eq!(px(&img, 2, 0, 0, 0), pal.cheap);
    assert_eq!(px(&img, 3, 0, 3, 3), pal.costly);
    let img = draw(Some(&TerrainCosts::unit()));
    assert_eq!(
        px(&img, 3, 0, 1, 1),
        pal.free,
        "a swamp at cost 1 costs nothing extra"
    );

    // Without costs, the terrain tint as before.
    let img = draw(None);
    assert_eq!(px(&img, 3, 0, 1, 1), pal.swamp);
    assert_eq!(px(&img, 2, 0, 1, 1), pal.free);
}

/// Further routes are drawn in their own colours under the main path, without end marks.
#[test]
fn routes_are_drawn_under_the_path() {
    let (g, pal) = setup();
    let path = [Cell::new(0, 0), Cell::new(1, 0), Cell::new(2, 0)];
    let other = [
        Cell::new(0, 0),
        Cell::new(1, 1),
        Cell::new(2, 1),
        Cell::new(3, 1),
    ];
    let blue = [0, 0, 255];
    let routes = [(&other[..], blue)];
    let overlay = Overlay {
        path: &path,
        routes: &routes,
        ..Default::default()
    };
    let img = render(
        &g,
        &overlay,
        &RenderOptions {
            scale: K,
            ..Default::default()
        },
    );
    assert_eq!(px(&img, 1, 1, 0, 0), blue);
    assert_eq!(px(&img, 3, 1, 2, 2), blue, "no goal mark on a route");
    assert_eq!(px(&img, 0, 0, 0, 0), pal.start, "the path's start on top");
    assert_eq!(px(&img, 1, 0, 0, 0), pal.path);
}
