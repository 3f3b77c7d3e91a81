//! Reading and writing maps, scenarios and images.
//!
//! # Moving AI `.map`
//!
//! The grid format of the Moving AI benchmarks: a header of `type octile`, `height H` and
//! `width W` (any order), a line `map`, then `H` rows of `W` characters. `.`, `G` and `S` are
//! free ([`TerrainSet::moving_ai`](crate::grid::TerrainSet::moving_ai)); `@`, `O`, `T` and
//! `W` are blocked. Each cell keeps its character as its terrain byte, so [`write_map`] gives
//! back the same characters; cells obstructed since ([`Grid::set_blocked`]) are written as
//! `@`. CRLF line ends and a missing final newline are accepted.
//!
//! [`Grid::set_blocked`]: crate::Grid::set_blocked
//!
//! # Moving AI `.scen`
//!
//! `version 1` (or `version 1.0`), then one problem per line: bucket, map, map width, map
//! height, start x, start y, goal x, goal y, optimal length, separated by tabs (runs of spaces
//! are accepted). Note the order: a `.map` header gives height before width, a scenario line
//! width before height. [`resolve_map_path`] finds the map beside a scenario file
//! (`X.map.scen` → `X.map`, `X-random-1.scen` / `X-even-1.scen` → `X.map`, else the basename
//! of the map field).
//!
// Only documented when it exists, so that the links resolve without the feature too.
#![cfg_attr(
    feature = "image",
    doc = r#"
# Obstacle bitmaps (feature `image`)

Any PNG, BMP, GIF, TGA or PNM image, one cell per pixel. By default a pixel is blocked when
its Rec. 709 luma is below [`BitmapOptions::threshold`] (0.5) or it is more than half
transparent; [`BitmapOptions::invert`] swaps the luminance rule for white-on-black images.
A [`ColorLegend`] gives exact colours a terrain code and passability;
[`ColorLegend::rts_default`] is black `@` wall, blue `W` water, dark green `T` forest
(blocked) and white `.` ground, tan `G` road, yellow-green `S` swamp (free). Legends parse from
strings such as `"000000=@,0000ff=W,006400=T,ffffff=."`. A grid has one passable set
([`ColorLegend::passable_set`]), so a legend may not make one code both free and blocked.
An entry may give a free code a terrain cost, `d2b48c=G:0.5`
([`ColorLegend::terrain_costs`]; [`ColorLegend::rts_default_costs`] are the RTS examples'
roads at 0.5 and swamps at 3).

PNG renders of a grid with quadtree leaves, gates and a path on top ([`render()`],
[`save_png`]), and heat maps of a distance field such as a flow field's
([`render_field`]), need the same feature.
"#
)]
//!
//! ```
//! use quadpath::io;
//!
//! let grid = io::parse_map("type octile\nheight 2\nwidth 3\nmap\n.T.\n...\n", "demo.map")?;
//! use quadpath::Cell;
//!
//! assert!(!grid.is_free(Cell::new(1, 0)) && grid.is_free(Cell::new(1, 1)));
//! assert_eq!(grid.terrain(Cell::new(1, 0)), b'T');
//!
//! // Through an image in legend colours and back: same cells, same terrain.
//! # #[cfg(feature = "image")] {
//! use quadpath::io::{BitmapOptions, ColorLegend};
//! let legend = ColorLegend::parse("000000=@,006400=T,ffffff=.")?;
//! let img = image::DynamicImage::ImageRgb8(grid.to_image_with_legend(&legend));
//! let opts = BitmapOptions { legend: Some(legend), ..Default::default() };
//! assert_eq!(io::grid_from_image(&img, &opts)?, grid);
//! # }
//!
//! let scen = io::parse_scen("version 1\n1\tdemo.map\t3\t2\t0\t0\t2\t0\t4\n", "demo.scen")?;
//! scen.validate_against(&grid)?;
//! # Ok::<(), quadpath::io::MapError>(())
//! ```
//!
//! Every failure is a [`MapError`] whose message names the file and, for text, the line and
//! column. Every file written here ([`save_map`], and the image savers) goes through an
//! [`OutputFile`], flushed and synced before success is returned, so that a failed write (a
//! full disk) is an error naming the file rather than a silently truncated file.

#[cfg(feature = "image")]
mod bitmap;
mod dynamic;
mod error;
#[cfg(feature = "image")]
mod heatmap;
mod movingai;
mod output;
#[cfg(feature = "image")]
mod render;
mod scen;

#[cfg(feature = "image")]
pub use bitmap::{
    decode_bitmap, grid_from_image, grid_from_image_named, is_bitmap_path, load_grid, read_bitmap,
    save_bitmap, BitmapOptions, ColorLegend, LegendEntry, MAX_PIXELS,
};
pub use dynamic::{
    parse_dynamic_scen, parse_patches, read_any_scen, read_dynamic_scen, AnyScenarioFile,
    DynamicCommand, DynamicQuery, DynamicScenario, PatchPlacement,
};
pub use error::MapError;
#[cfg(feature = "image")]
pub use heatmap::{arrow_block, render_field, FieldOverlay, FieldPalette, FieldRenderOptions};
pub use movingai::{
    parse_map, read_map, save_map, write_map, MAP_CHARACTERS, MAX_MAP_CELLS, MAX_MAP_SIDE,
};
pub use output::OutputFile;
#[cfg(feature = "image")]
pub use render::{
    cells_per_pixel, effective_scale, render, render_size, save_png, Overlay, Palette,
    RenderOptions, MAX_RENDER_PIXELS,
};
pub use scen::{
    map_path_candidates, parse_scen, read_scen, resolve_map_path, Scenario, ScenarioFile,
};
