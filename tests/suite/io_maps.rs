//! Reading real Moving AI data, round trips of `.map` and bitmaps, and the shipped maps.

use crate::common;
use common::map_text::{check_map_against_text, files_under};
use quadpath::io;
#[cfg(feature = "image")]
use quadpath::io::{BitmapOptions, ColorLegend};
use quadpath::{Cell, Grid, TerrainSet};
#[cfg(feature = "image")]
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn map_round_trip_keeps_every_character() {
    let text = "type octile\nheight 3\nwidth 7\nmap\n.GS@OTW\nWTO@SG.\n..@@..G\n";
    let g = io::parse_map(text, "t.map").unwrap();
    assert_eq!(g.to_map_string(), text);
    let again = io::parse_map(&g.to_map_string(), "again").unwrap();
    assert_eq!(again, g);
    for (x, ch) in ".GS@OTW".bytes().enumerate() {
        assert_eq!(again.terrain(Cell::new(x as u32, 0)), ch);
    }
    assert_eq!(g.free_count(), 3 + 3 + 5);

    let dir = temp_dir("roundtrip");
    let p = dir.join("t.map");
    io::save_map(&g, &p).unwrap();
    assert_eq!(io::read_map(&p).unwrap(), g);
}

#[test]
fn foreign_terrain_bytes_are_written_as_plain_cells() {
    // Inconsistent with the format: T is a blocked character but passable here, x is no
    // map character at all.
    let g = Grid::from_terrain(3, 1, b"Tx.".to_vec(), TerrainSet::from_codes(b".T"));
    assert!(g.is_free(Cell::new(0, 0)) && !g.is_free(Cell::new(1, 0)));
    let back = io::parse_map(&g.to_map_string(), "s").unwrap();
    assert_eq!(back.to_map_string().lines().last(), Some(".@."));
    assert!(back.is_free(Cell::new(0, 0)) && !back.is_free(Cell::new(1, 0)));
}

#[test]
fn crlf_and_missing_final_newline() {
    let lf = io::parse_map("type octile\nheight 2\nwidth 2\nmap\n.@\nT.\n", "lf").unwrap();
    for text in [
        "type octile\r\nheight 2\r\nwidth 2\r\nmap\r\n.@\r\nT.\r\n",
        "type octile\r\nheight 2\r\nwidth 2\r\nmap\r\n.@\r\nT.",
        "type octile\nheight 2\nwidth 2\nmap\n.@\nT.",
        "height 2\nwidth 2\ntype octile\nmap\n.@\nT.\n\n\n",
    ] {
        assert_eq!(io::parse_map(text, "x").unwrap(), lf, "{text:?}");
    }
    let s = io::parse_scen("version 1\r\n0\ta.map\t2\t2\t0\t0\t1\t1\t1.41421", "s").unwrap();
    assert_eq!(s.entries[0].goal, Cell::new(1, 1));
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quadpath-io-maps-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A deterministic scattering of blocked cells, with terrain codes drawn from `codes`.
#[cfg(feature = "image")]
fn scatter(w: u32, h: u32, codes: &[(u8, bool)]) -> Grid {
    let mut g = Grid::new_free(w, h);
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    for y in 0..h {
        for x in 0..w {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let (t, free) = codes[(s % codes.len() as u64) as usize];
            g.set_terrain(Cell::new(x, y), t);
            assert_eq!(g.is_free(Cell::new(x, y)), free);
        }
    }
    g
}

#[cfg(feature = "image")]
#[test]
fn bitmap_round_trips() {
    let g = scatter(37, 23, &[(b'.', true), (b'.', true), (b'@', false)]);
    assert!(g.free_count() > 0 && g.free_count() < 37 * 23);

    let img = image::DynamicImage::ImageLuma8(g.to_image());
    assert_eq!(
        io::grid_from_image(&img, &BitmapOptions::default()).unwrap(),
        g
    );

    // White walls on black: the inverted image with `invert` set reads the same.
    let mut neg = g.to_image();
    image::imageops::invert(&mut neg);
    let inv = BitmapOptions {
        invert: true,
        ..Default::default()
    };
    assert_eq!(
        io::grid_from_image(&image::DynamicImage::ImageLuma8(neg), &inv).unwrap(),
        g
    );

    // Through a PNG file on disk, and through load_grid's dispatch.
    let dir = temp_dir("bitmap");
    let p = dir.join("g.png");
    io::save_bitmap(&g, &p, None).unwrap();
    assert_eq!(io::read_bitmap(&p, &BitmapOptions::default()).unwrap(), g);
    assert_eq!(io::load_grid(&p, &BitmapOptions::default()).unwrap(), g);
    let bmp = dir.join("g.bmp");
    io::save_bitmap(&g, &bmp, None).unwrap();
    assert_eq!(io::read_bitmap(&bmp, &BitmapOptions::default()).unwrap(), g);
}

#[cfg(feature = "image")]
#[test]
fn bitmap_round_trip_with_legend_keeps_terrain() {
    let legend = ColorLegend::rts_default();
    let g = scatter(
        29,
        31,
        &[
            (b'.', true),
            (b'G', true),
            (b'S', true),
            (b'@', false),
            (b'W', false),
            (b'T', false),
        ],
    );
    let img = g.to_image_with_legend(&legend);
    assert_eq!(
        img.get_pixel(0, 0).0,
        legend.color_for(g.terrain(Cell::new(0, 0)), g.is_free(Cell::new(0, 0)))
    );
    let opts = BitmapOptions {
        legend: Some(legend.clone()),
        ..Default::default()
    };
    let back = io::grid_from_image(&image::DynamicImage::ImageRgb8(img), &opts).unwrap();
    assert_eq!(back, g);
    assert_eq!(back.to_map_string(), g.to_map_string());

    let dir = temp_dir("legend");
    let p = dir.join("g.png");
    io::save_bitmap(&g, &p, Some(&legend)).unwrap();
    assert_eq!(io::load_grid(&p, &opts).unwrap(), g);
}

/// Issue 17: a legend carries terrain costs; the grid read with it keeps the codes they
/// apply to, and the costs weigh paths on it.
#[cfg(feature = "image")]
#[test]
fn legend_costs_weigh_the_grid_read_with_it() {
    let legend = ColorLegend::parse("000000=@,ffffff=.,8b6914=G:0.5,d2b48c=G,9acd32=S:3").unwrap();
    let costs = legend.terrain_costs();
    assert_eq!(costs.to_string(), "G=0.5,S=3");
    assert_eq!(costs, ColorLegend::rts_default_costs());
    // A row of ground, a road in both road colours and a swamp: the costs go by code.
    let swamp = [0x9a, 0xcd, 0x32];
    let row = [
        [255, 255, 255],
        [0x8b, 0x69, 0x14],
        [0xd2, 0xb4, 0x8c],
        swamp,
        swamp,
    ];
    let img = image::RgbImage::from_fn(5, 1, |x, _| image::Rgb(row[x as usize]));
    let opts = BitmapOptions {
        legend: Some(legend),
        ..Default::default()
    };
    let g = io::grid_from_image(&image::DynamicImage::ImageRgb8(img), &opts).unwrap();
    let cell_costs: Vec<f64> = (0..5)
        .map(|x| costs.cell_cost(&g, Cell::new(x, 0)))
        .collect();
    assert_eq!(cell_costs, [1.0, 0.5, 0.5, 3.0, 3.0]);
    assert!(costs.check_passable(g.passable()).is_ok());
    // Four straight steps, each the mean of its two cells: 0.75 + 0.5 + 1.75 + 3.
    let cells: Vec<Cell> = (0..5).map(|x| Cell::new(x, 0)).collect();
    let path = quadpath::Path::from_cells_with_costs(cells, &g, &costs);
    assert_eq!((path.length, path.cost), (4.0, 6.0));
    // Without costs the legend weighs nothing, as before.
    assert!(ColorLegend::rts_default().terrain_costs().is_unit());
}

#[cfg(feature = "image")]
#[test]
fn luminance_rule_and_transparency() {
    // Rec. 709 weights green far above blue: pure green is light, pure blue dark.
    let px = [
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255, 255, 255, 100],
        [128, 128, 128, 255],
        [100, 100, 100, 255],
    ];
    let img = image::RgbaImage::from_fn(px.len() as u32, 1, |x, _| image::Rgba(px[x as usize]));
    let img = image::DynamicImage::ImageRgba8(img);
    let g = io::grid_from_image(&img, &BitmapOptions::default()).unwrap();
    let free: Vec<bool> = (0..5).map(|x| g.is_free(Cell::new(x, 0))).collect();
    assert_eq!(free, [true, false, false, true, false]);
    let g = io::grid_from_image(
        &img,
        &BitmapOptions {
            threshold: 0.3,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(g.is_free(Cell::new(4, 0)));
    let g = io::grid_from_image(
        &img,
        &BitmapOptions {
            invert: true,
            ..Default::default()
        },
    )
    .unwrap();
    let free: Vec<bool> = (0..5).map(|x| g.is_free(Cell::new(x, 0))).collect();
    assert_eq!(
        free,
        [false, true, false, false, true],
        "transparent stays blocked"
    );
}

#[test]
fn shipped_maps_and_scenarios_agree() {
    let dir = crate_dir().join("maps");
    let maps = files_under(&dir, ".map");
    assert_eq!(maps.len(), 9, "{maps:?}");
    for p in &maps {
        check_map_against_text(p);
    }
    let scens = files_under(&dir, ".scen");
    assert_eq!(scens.len(), 7, "{scens:?}");
    let mut dynamic = 0;
    for p in &scens {
        let s = match io::read_any_scen(p).unwrap() {
            io::AnyScenarioFile::Static(s) => s,
            io::AnyScenarioFile::Dynamic(d) => {
                // The GPPC dynamic scenario has no map: it brings its patches.
                assert!(d.patch_count() > 0 && !d.patches.is_empty(), "{p:?}");
                dynamic += 1;
                continue;
            }
            other => panic!("{p:?}: {other:?}"),
        };
        let m = io::resolve_map_path(p).unwrap();
        assert_eq!(
            m.file_name().unwrap().to_str(),
            Some(s.entries[0].map_basename())
        );
        s.validate_against(&io::read_map(&m).unwrap()).unwrap();
    }
    assert_eq!(dynamic, 1, "dao_arena2.scen");
    // The old-style map field names a folder that does not exist here; the name rule wins.
    assert_eq!(
        io::resolve_map_path(dir.join("arena.map.scen")),
        Some(dir.join("arena.map"))
    );
    assert_eq!(
        io::resolve_map_path(dir.join("den312d-even-1.scen")),
        Some(dir.join("den312d.map"))
    );
}

#[test]
fn resolution_falls_back_to_the_map_field() {
    let dir = temp_dir("resolve");
    std::fs::write(
        dir.join("tiny.map"),
        "type octile\nheight 1\nwidth 2\nmap\n..\n",
    )
    .unwrap();
    let scen = dir.join("problems.scen");
    std::fs::write(
        &scen,
        "version 1\n0\tsome/where/tiny.map\t2\t1\t0\t0\t1\t0\t1\n",
    )
    .unwrap();
    assert_eq!(io::resolve_map_path(&scen), Some(dir.join("tiny.map")));
    let orphan = dir.join("orphan-random-1.scen");
    std::fs::write(&orphan, "version 1\n0\tmissing.map\t2\t1\t0\t0\t1\t0\t1\n").unwrap();
    assert_eq!(io::resolve_map_path(&orphan), None);
}

/// Interiors of the two bases drawn by `examples/draw_rts_map.rs`.
#[cfg(feature = "image")]
const WEST_BASE: (u32, u32, u32, u32) = (10, 34, 33, 59);
#[cfg(feature = "image")]
const EAST_BASE: (u32, u32, u32, u32) = (95, 38, 118, 63);

/// Cells reachable from `from` by 8-connected steps without corner cutting, written here
/// rather than taken from the library so that it checks the map, not the library.
#[cfg(feature = "image")]
fn reachable(g: &Grid, from: Cell) -> Vec<bool> {
    let (w, h) = (g.width() as i64, g.height() as i64);
    let free = |x: i64, y: i64| {
        x >= 0 && y >= 0 && x < w && y < h && g.is_free(Cell::new(x as u32, y as u32))
    };
    let mut seen = vec![false; (w * h) as usize];
    let mut q = VecDeque::from([(from.x as i64, from.y as i64)]);
    seen[(from.y as i64 * w + from.x as i64) as usize] = true;
    while let Some((x, y)) = q.pop_front() {
        for dy in -1..=1 {
            for dx in -1..=1 {
                let (nx, ny) = (x + dx, y + dy);
                if (dx, dy) == (0, 0)
                    || !free(nx, ny)
                    || (dx != 0 && dy != 0 && !(free(nx, y) && free(x, ny)))
                {
                    continue;
                }
                let i = (ny * w + nx) as usize;
                if !seen[i] {
                    seen[i] = true;
                    q.push_back((nx, ny));
                }
            }
        }
    }
    seen
}

#[cfg(feature = "image")]
fn free_cells_in(g: &Grid, (x1, y1, x2, y2): (u32, u32, u32, u32)) -> Vec<Cell> {
    (y1..=y2)
        .flat_map(|y| (x1..=x2).map(move |x| Cell::new(x, y)))
        .filter(|c| g.is_free(*c))
        .collect()
}

#[cfg(feature = "image")]
#[test]
fn rts_valley_is_a_playable_map() {
    let p = crate_dir().join("maps/rts_valley.png");
    let opts = BitmapOptions {
        legend: Some(ColorLegend::rts_default()),
        ..Default::default()
    };
    let g = io::load_grid(&p, &opts).unwrap();
    assert_eq!((g.width(), g.height()), (128, 96));
    let cells = 128 * 96;
    assert!(
        g.free_count() > cells / 2 && g.free_count() < cells,
        "free {}",
        g.free_count()
    );
    let count = |t: u8| g.bounds().cells().filter(|c| g.terrain(*c) == t).count();
    assert!(count(b'W') > 300, "a river");
    assert!(count(b'T') > 200, "forests");
    assert!(count(b'@') > 200, "walls and buildings");
    assert!(count(b'G') > 50, "bridges and roads");

    // Every free cell of both bases is reachable from every other.
    let west = free_cells_in(&g, WEST_BASE);
    let east = free_cells_in(&g, EAST_BASE);
    assert!(west.len() > 300 && east.len() > 300);
    let seen = reachable(&g, west[0]);
    let idx = |c: &Cell| (c.y * g.width() + c.x) as usize;
    assert!(
        west.iter().chain(&east).all(|c| seen[idx(c)]),
        "bases are not connected"
    );

    // The river really separates the two halves: with the bridges turned to water, no way over.
    let mut cut = g.clone();
    for c in g.bounds().cells() {
        if g.terrain(c) == b'G' && c.x > 50 && c.x < 80 {
            cut.set_terrain(c, b'W');
        }
    }
    assert!(!reachable(&cut, west[0])[idx(&east[0])], "the river leaks");

    // The legend's free colours are light and its blocked ones dark, so plain luminance
    // gives the same passability; the legend only adds the terrain codes.
    let plain = io::read_bitmap(&p, &BitmapOptions::default()).unwrap();
    for c in g.bounds().cells() {
        assert_eq!(plain.is_free(c), g.is_free(c), "{c}");
    }
}

/// maps/rts_valley.png, read with the RTS legend.
#[cfg(feature = "image")]
fn rts_valley() -> Grid {
    let opts = BitmapOptions {
        legend: Some(ColorLegend::rts_default()),
        ..Default::default()
    };
    io::load_grid(crate_dir().join("maps/rts_valley.png"), &opts).unwrap()
}

/// The grid of `g`'s terrain with only the codes `passable` free.
#[cfg(feature = "image")]
fn only(g: &Grid, passable: &[u8]) -> Grid {
    let codes = g.bounds().cells().map(|c| g.terrain(c).code()).collect();
    Grid::from_terrain(
        g.width(),
        g.height(),
        codes,
        TerrainSet::from_codes(passable),
    )
}

/// The first rows of the three bridges of `examples/draw_rts_map.rs`, north to south; each
/// is 4 rows of road over the river, which runs within columns 58 to 76.
#[cfg(feature = "image")]
const BRIDGE_ROWS: [u32; 3] = [14, 47, 80];

/// Issue 17: rts_valley's roads join both bases to the north and south bridges, and the
/// middle bridge lies in marshes that no road crosses.
#[cfg(feature = "image")]
#[test]
fn rts_valley_has_a_road_network_and_swamps() {
    let g = rts_valley();
    let count = |t: u8| g.bounds().cells().filter(|c| g.terrain(*c) == t).count();
    assert!(count(b'S') > 300, "swamps: {}", count(b'S'));
    let idx = |c: Cell| (c.y * g.width() + c.x) as usize;
    // Cells of each bridge's deck: road over the river's columns.
    let deck = |row: u32| -> Vec<Cell> {
        quadpath::Rect::new(58, row, 76, row + 3)
            .cells()
            .filter(|&c| g.terrain(c) == b'G')
            .collect()
    };
    // The gates of the bases (4 cells of road through the 2-cell wall): west base east and
    // north, east base west and south.
    let (west_east, west_north) = (Cell::new(35, 48), Cell::new(21, 33));
    let (east_west, east_south) = (Cell::new(93, 48), Cell::new(105, 64));
    for gate in [west_east, west_north, east_west, east_south] {
        assert_eq!(g.terrain(gate), b'G', "gate {gate}");
    }
    let roads = only(&g, b"G");
    let from_north = reachable(&roads, west_north);
    let from_east = reachable(&roads, west_east);
    // On road alone, each west gate leads to an east gate, over its own bridge.
    assert!(from_north[idx(east_west)], "north road to the east base");
    assert!(from_east[idx(east_south)], "south road to the east base");
    let [north, middle, south] = BRIDGE_ROWS.map(deck);
    assert!(north.len() >= 16 && middle.len() >= 16 && south.len() >= 16);
    assert!(north.iter().all(|&c| from_north[idx(c)]), "north bridge");
    assert!(south.iter().all(|&c| from_east[idx(c)]), "south bridge");
    // No road reaches the middle bridge; over swamp, the bases do.
    assert!(middle
        .iter()
        .all(|&c| !from_north[idx(c)] && !from_east[idx(c)]));
    let wet = reachable(&only(&g, b"GS"), west_east);
    assert!(middle.iter().all(|&c| wet[idx(c)]) && wet[idx(east_west)]);
}

/// Issue 17: the point of the roads. Between the bases the shortest way crosses the middle
/// bridge through the marshes, and with the RTS costs (roads 0.5, swamps 3) the cheapest
/// takes the road over another bridge and never steps into a swamp. Both from the plain
/// weighted A* reference.
#[cfg(all(feature = "image", feature = "baseline"))]
#[test]
fn rts_valley_roads_are_the_cheapest_way() {
    use quadpath::{baseline, TerrainCosts};
    let g = rts_valley();
    let (west, east) = (Cell::new(21, 46), Cell::new(106, 50));
    let costs = ColorLegend::rts_default_costs();
    let shortest = baseline::astar_with_costs(&g, &TerrainCosts::unit(), west, east).unwrap();
    let cheapest = baseline::astar_with_costs(&g, &costs, west, east).unwrap();
    let bridge = |p: &quadpath::Path| {
        BRIDGE_ROWS.into_iter().find(|&row| {
            p.cells
                .iter()
                .any(|c| (58..=76).contains(&c.x) && (row..row + 4).contains(&c.y))
        })
    };
    let on = |p: &quadpath::Path, t: u8| p.cells.iter().filter(|c| g.terrain(**c) == t).count();
    assert_eq!(bridge(&shortest), Some(47));
    assert!(
        on(&shortest, b'S') > 10,
        "the shortest way wades through the marshes"
    );
    assert!(
        matches!(bridge(&cheapest), Some(14 | 80)),
        "{:?}",
        bridge(&cheapest)
    );
    assert_eq!(on(&cheapest, b'S'), 0);
    assert!(
        on(&cheapest, b'G') * 2 > cheapest.cells.len(),
        "mostly on the road"
    );
    // Longer but cheaper: the shortest way costs more under the same costs.
    let shortest_cost = quadpath::Path::from_cells_with_costs(shortest.cells, &g, &costs).cost;
    assert!(cheapest.length > shortest.length && cheapest.cost < shortest_cost);
}
