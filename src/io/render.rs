//! PNG renders of a grid with optional quadtree leaves, gates and a path on top.
//!
//! The overlay is plain slices so that this module does not depend on the quadtree or the
//! hierarchical search: whoever has leaves, gates or a path passes them in.

use super::error::{display_name, MapError};
use crate::geom::{Cell, Rect};
use crate::grid::Grid;
use image::{ImageFormat, Rgb, RgbImage};
use std::path::Path;

/// Largest image [`render`] produces, in pixels (an 8192×8192 square, 192 MiB of RGB); the
/// scale is lowered to stay under it.
pub const MAX_RENDER_PIXELS: u64 = 1 << 26;

/// What to draw on top of the grid. Empty slices draw nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Overlay<'a> {
    /// Quadtree leaves, each with whether it is free; drawn as 1-pixel outlines.
    pub leaves: &'a [(Rect, bool)],
    /// Gates between leaves: pairs of neighbouring cells, joined by a line between their
    /// centres.
    pub gates: &'a [(Cell, Cell)],
    /// A path; its first cell is marked as the start, its last as the goal.
    pub path: &'a [Cell],
}

/// Colours of a render.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Palette {
    /// Free cells.
    pub free: [u8; 3],
    /// Blocked cells.
    pub blocked: [u8; 3],
    /// Blocked water (`W`) cells, when terrain tints are on.
    pub water: [u8; 3],
    /// Blocked forest (`T`) cells, when terrain tints are on.
    pub forest: [u8; 3],
    /// Free swamp (`S`) cells, when terrain tints are on.
    pub swamp: [u8; 3],
    /// Outline of a free leaf.
    pub leaf: [u8; 3],
    /// Outline of a blocked leaf.
    pub blocked_leaf: [u8; 3],
    /// Gate lines.
    pub gate: [u8; 3],
    /// Path cells.
    pub path: [u8; 3],
    /// The start cell.
    pub start: [u8; 3],
    /// The goal cell.
    pub goal: [u8; 3],
}

impl Default for Palette {
    fn default() -> Self {
        Palette {
            free: [240, 240, 236],
            blocked: [40, 40, 46],
            water: [52, 100, 190],
            forest: [30, 90, 40],
            swamp: [150, 160, 90],
            leaf: [120, 150, 200],
            blocked_leaf: [90, 90, 100],
            gate: [230, 150, 0],
            path: [220, 30, 30],
            start: [0, 190, 0],
            goal: [160, 0, 200],
        }
    }
}

/// How to render.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// Each cell becomes `scale × scale` pixels. 0 counts as 1.
    pub scale: u32,
    /// Tint water, forest and swamp cells by their terrain byte.
    pub terrain_tints: bool,
    /// Draw the outlines of blocked leaves too (they clutter maze-like maps).
    pub blocked_leaves: bool,
    /// The colours.
    pub palette: Palette,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            scale: 4,
            terrain_tints: true,
            blocked_leaves: false,
            palette: Palette::default(),
        }
    }
}

/// The scale actually used: at least 1, at most what keeps the image under
/// [`MAX_RENDER_PIXELS`].
pub fn effective_scale(grid: &Grid, scale: u32) -> u32 {
    let cells = grid.width() as u64 * grid.height() as u64;
    let max = ((MAX_RENDER_PIXELS / cells) as f64).sqrt() as u64;
    (scale as u64).clamp(1, max.max(1)) as u32
}

/// Draws the grid and the overlay, in this order: cells, leaf outlines, gates, path, start
/// and goal, so that the path is never hidden by the structure under it.
pub fn render(grid: &Grid, overlay: &Overlay<'_>, opts: &RenderOptions) -> RgbImage {
    let k = effective_scale(grid, opts.scale);
    let pal = &opts.palette;
    let mut img = RgbImage::new(grid.width() * k, grid.height() * k);
    let fill = |img: &mut RgbImage, x: u32, y: u32, c: [u8; 3]| {
        for py in y * k..(y + 1) * k {
            for px in x * k..(x + 1) * k {
                img.put_pixel(px, py, Rgb(c));
            }
        }
    };
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            let cell = Cell::new(x, y);
            let c = match (opts.terrain_tints, grid.is_free(cell), grid.terrain(cell)) {
                (true, false, b'W') => pal.water,
                (true, false, b'T') => pal.forest,
                (true, true, b'S') => pal.swamp,
                (_, true, _) => pal.free,
                (_, false, _) => pal.blocked,
            };
            fill(&mut img, x, y, c);
        }
    }

    let bounds = grid.bounds();
    for &(rect, free) in overlay.leaves {
        if !free && !opts.blocked_leaves {
            continue;
        }
        let Some(r) = rect.intersection(&bounds) else {
            continue;
        };
        let c = Rgb(if free { pal.leaf } else { pal.blocked_leaf });
        let (x1, y1, x2, y2) = (r.x1 * k, r.y1 * k, (r.x2 + 1) * k - 1, (r.y2 + 1) * k - 1);
        for px in x1..=x2 {
            img.put_pixel(px, y1, c);
            img.put_pixel(px, y2, c);
        }
        for py in y1..=y2 {
            img.put_pixel(x1, py, c);
            img.put_pixel(x2, py, c);
        }
    }

    let inside = |c: &Cell| c.x < grid.width() && c.y < grid.height();
    for (a, b) in overlay.gates.iter().filter(|(a, b)| inside(a) && inside(b)) {
        let centre = |c: &Cell| ((c.x * k + k / 2) as i64, (c.y * k + k / 2) as i64);
        line(&mut img, centre(a), centre(b), Rgb(pal.gate));
    }

    for c in overlay.path.iter().filter(|c| inside(c)) {
        fill(&mut img, c.x, c.y, pal.path);
    }
    if let Some(s) = overlay.path.first().filter(|c| inside(c)) {
        fill(&mut img, s.x, s.y, pal.start);
    }
    if let Some(g) = overlay.path.last().filter(|c| inside(c)) {
        if overlay.path.len() > 1 {
            fill(&mut img, g.x, g.y, pal.goal);
        }
    }
    img
}

/// Bresenham's line, clipped to the image.
fn line(img: &mut RgbImage, (mut x0, mut y0): (i64, i64), (x1, y1): (i64, i64), c: Rgb<u8>) {
    let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
    let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
    let mut err = dx + dy;
    loop {
        if x0 >= 0 && y0 >= 0 && (x0 as u32) < img.width() && (y0 as u32) < img.height() {
            img.put_pixel(x0 as u32, y0 as u32, c);
        }
        if x0 == x1 && y0 == y1 {
            break;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x0 += sx;
        }
        if e2 <= dx {
            err += dx;
            y0 += sy;
        }
    }
}

/// Saves an image as PNG, whatever the extension.
///
/// # Errors
/// [`MapError::Encode`] when the image cannot be encoded or written.
pub fn save_png(img: &RgbImage, path: impl AsRef<Path>) -> Result<(), MapError> {
    let path = path.as_ref();
    img.save_with_format(path, ImageFormat::Png)
        .map_err(|e| MapError::Encode {
            file: display_name(path),
            source: e,
        })
}
