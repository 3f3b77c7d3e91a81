//! PNG renders of a grid with optional quadtree leaves, gates and paths on top, its free
//! cells optionally tinted by their terrain cost.
//!
//! The overlay is plain slices so that this module does not depend on the quadtree or the
//! hierarchical search: whoever has leaves, gates or a path passes them in.

use super::error::{display_name, MapError};
use super::output::OutputFile;
use crate::geom::{Cell, Rect};
use crate::grid::{Grid, TerrainCosts};
use image::{ImageFormat, Rgb, RgbImage};
use std::path::Path;

/// Largest image [`render`] produces, in pixels (an 8192×8192 square, 192 MiB of RGB). The
/// scale is lowered to stay under it, down to one pixel per cell; a grid with more cells than
/// this is drawn shrunk, one pixel per square block of cells ([`cells_per_pixel`]).
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
    /// More paths, each filled in its own colour, drawn before [`Overlay::path`] (which
    /// stays on top where they share cells) and without start or goal marks: for instance
    /// the shortest way beside the cheapest.
    pub routes: &'a [(&'a [Cell], [u8; 3])],
    /// Terrain costs to tint the free cells by: a cell whose terrain costs less than 1 is
    /// drawn toward [`Palette::cheap`], one that costs more toward [`Palette::costly`], the
    /// further from 1 the stronger ([`Palette::cost_colour`]), and one at cost 1 in
    /// [`Palette::free`]. The tint replaces the terrain tint of free cells (swamps), so
    /// that the picture shows what crossing a cell costs; blocked cells are drawn as
    /// without it. `None` draws no cost tint.
    pub costs: Option<&'a TerrainCosts>,
    /// The open positions of a movement class on the drawn grid, as
    /// [`Movement::open_grid`](crate::Movement::open_grid) gives them (same size). Every
    /// cell that is not open and not drawn as a wall is blended halfway toward
    /// [`Palette::closed`], so the class's open area stands out while the terrain under it
    /// stays visible. `None` draws no such tint.
    pub open: Option<&'a Grid>,
    /// The side of the agent that walks the path: each path position is drawn over the
    /// `footprint × footprint` square the agent covers there, blended halfway toward
    /// [`Palette::footprint`]. 0 and 1 draw the positions alone.
    pub footprint: u32,
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
    /// Free swamp (`S`) cells, when terrain tints are on and no cost tint is drawn.
    pub swamp: [u8; 3],
    /// What free cells cheaper than cost 1 are drawn toward ([`Overlay::costs`]).
    pub cheap: [u8; 3],
    /// What free cells dearer than cost 1 are drawn toward ([`Overlay::costs`]).
    pub costly: [u8; 3],
    /// Outline of a free leaf.
    pub leaf: [u8; 3],
    /// Outline of a blocked leaf.
    pub blocked_leaf: [u8; 3],
    /// Gate lines.
    pub gate: [u8; 3],
    /// Path cells.
    pub path: [u8; 3],
    /// What cells a movement class cannot stand on are blended toward ([`Overlay::open`]).
    pub closed: [u8; 3],
    /// What cells under a large agent's path are blended toward ([`Overlay::footprint`]).
    pub footprint: [u8; 3],
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
            // Gold for roads, mud brown for swamps: light and dark like their legend colours.
            cheap: [240, 190, 60],
            costly: [120, 84, 52],
            leaf: [120, 150, 200],
            blocked_leaf: [90, 90, 100],
            gate: [230, 150, 0],
            path: [220, 30, 30],
            closed: [230, 170, 110],
            footprint: [255, 120, 120],
            start: [0, 190, 0],
            goal: [160, 0, 200],
        }
    }
}

impl Palette {
    /// The colour of a free cell whose terrain costs `cost` ([`Overlay::costs`]):
    /// [`Palette::free`] at cost 1, else the free colour moved a share
    /// `s = 0.3 + 0.7 · min(|log₂ cost| / 4, 1)` of the way toward [`Palette::cheap`] (cost
    /// below 1) or [`Palette::costly`] (above 1). Every cost other than 1 is tinted at
    /// least 30%, so a slightly faster road still shows; costs of 1/16 and below, or 16 and
    /// above, are the full hue. Costs that are not finite and positive (never in a checked
    /// table) are drawn as the free colour.
    ///
    /// ```
    /// use quadpath::io::Palette;
    ///
    /// let pal = Palette::default();
    /// assert_eq!(pal.cost_colour(1.0), pal.free);
    /// assert_eq!((pal.cost_colour(1.0 / 16.0), pal.cost_colour(16.0)), (pal.cheap, pal.costly));
    /// assert!(![pal.free, pal.cheap, pal.costly].contains(&pal.cost_colour(3.0)));
    /// ```
    pub fn cost_colour(&self, cost: f32) -> [u8; 3] {
        if cost == 1.0 || !(cost.is_finite() && cost > 0.0) {
            return self.free;
        }
        let share = 0.3 + 0.7 * (cost.log2().abs() / 4.0).min(1.0);
        let hue = if cost < 1.0 { self.cheap } else { self.costly };
        std::array::from_fn(|i| {
            let (from, to) = (self.free[i] as f32, hue[i] as f32);
            (from + (to - from) * share).round() as u8
        })
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

/// The side of the square block of cells one pixel stands for: 1, unless the grid has more
/// cells than [`MAX_RENDER_PIXELS`]; then the smallest block that keeps the image under it
/// (2 for a 16384×16384 grid, drawn as 8192×8192 pixels).
pub fn cells_per_pixel(grid: &Grid) -> u32 {
    let (w, h) = (grid.width() as u64, grid.height() as u64);
    let pixels = |d: u64| w.div_ceil(d) * h.div_ceil(d);
    // The square root is a lower bound; the rounding up of the sides may need one more.
    let mut d = (((w * h) / MAX_RENDER_PIXELS) as f64).sqrt().max(1.0) as u64;
    while pixels(d) > MAX_RENDER_PIXELS {
        d += 1;
    }
    d as u32
}

/// The size of the image [`render`] draws for `grid` at `scale`, in pixels: never more than
/// [`MAX_RENDER_PIXELS`].
pub fn render_size(grid: &Grid, scale: u32) -> (u32, u32) {
    let (k, d) = (effective_scale(grid, scale), cells_per_pixel(grid));
    (grid.width().div_ceil(d) * k, grid.height().div_ceil(d) * k)
}

/// Draws the grid and the overlay, in this order: cells (tinted by terrain cost, and outside
/// a class's open area), leaf outlines, gates, the path's footprint, the other routes, path,
/// start and goal, so that the path is never hidden by the structure under it.
///
/// The image is [`render_size`]: `scale` pixels per cell, lowered to stay under
/// [`MAX_RENDER_PIXELS`]. A grid with more cells than that is shrunk
/// ([`cells_per_pixel`]): a pixel shows the first blocked cell of its block, so that thin
/// walls stay visible, or the block's top-left cell when all are free.
pub fn render(grid: &Grid, overlay: &Overlay<'_>, opts: &RenderOptions) -> RgbImage {
    let k = effective_scale(grid, opts.scale);
    let d = cells_per_pixel(grid);
    let (width, height) = render_size(grid, opts.scale);
    let pal = &opts.palette;
    let mut img = RgbImage::new(width, height);
    // Blocks of `d × d` cells are `k × k` pixels; one of `d` and `k` is 1.
    let fill = |img: &mut RgbImage, bx: u32, by: u32, c: [u8; 3]| {
        for py in by * k..(by + 1) * k {
            for px in bx * k..(bx + 1) * k {
                img.put_pixel(px, py, Rgb(c));
            }
        }
    };
    let tints = opts.terrain_tints;
    let colour = |cell: Cell| match (overlay.costs, grid.is_free(cell), grid.terrain_code(cell)) {
        (Some(costs), true, code) => pal.cost_colour(costs.get(code)),
        (_, false, b'W') if tints => pal.water,
        (_, false, b'T') if tints => pal.forest,
        (_, true, b'S') if tints => pal.swamp,
        (_, true, _) => pal.free,
        (_, false, _) => pal.blocked,
    };
    for by in 0..grid.height().div_ceil(d) {
        for bx in 0..grid.width().div_ceil(d) {
            let (x0, y0) = (bx * d, by * d);
            let (x1, y1) = ((x0 + d).min(grid.width()), (y0 + d).min(grid.height()));
            let cell = (y0..y1)
                .flat_map(|y| (x0..x1).map(move |x| Cell::new(x, y)))
                .find(|&c| !grid.is_free(c))
                .unwrap_or(Cell::new(x0, y0));
            let mut c = colour(cell);
            if overlay.open.is_some_and(|o| !o.is_free(cell)) && c != pal.blocked {
                c = blend(c, pal.closed);
            }
            fill(&mut img, bx, by, c);
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
        let (x1, y1) = (r.x1 / d * k, r.y1 / d * k);
        let (x2, y2) = ((r.x2 / d + 1) * k - 1, (r.y2 / d + 1) * k - 1);
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
        let centre = |c: &Cell| ((c.x / d * k + k / 2) as i64, (c.y / d * k + k / 2) as i64);
        line(&mut img, centre(a), centre(b), Rgb(pal.gate));
    }

    if overlay.footprint > 1 {
        // Each block is blended once, however many footprints cover it.
        let blocks_wide = grid.width().div_ceil(d) as usize;
        let mut done = vec![false; blocks_wide * grid.height().div_ceil(d) as usize];
        for p in overlay.path.iter().filter(|c| inside(c)) {
            let x2 = (p.x as u64 + overlay.footprint as u64).min(grid.width() as u64) as u32;
            let y2 = (p.y as u64 + overlay.footprint as u64).min(grid.height() as u64) as u32;
            for by in p.y / d..=(y2 - 1) / d {
                for bx in p.x / d..=(x2 - 1) / d {
                    let i = by as usize * blocks_wide + bx as usize;
                    if !done[i] {
                        done[i] = true;
                        let under = img.get_pixel(bx * k, by * k).0;
                        fill(&mut img, bx, by, blend(under, pal.footprint));
                    }
                }
            }
        }
    }
    for &(route, colour) in overlay.routes {
        for c in route.iter().filter(|c| inside(c)) {
            fill(&mut img, c.x / d, c.y / d, colour);
        }
    }
    for c in overlay.path.iter().filter(|c| inside(c)) {
        fill(&mut img, c.x / d, c.y / d, pal.path);
    }
    if let Some(s) = overlay.path.first().filter(|c| inside(c)) {
        fill(&mut img, s.x / d, s.y / d, pal.start);
    }
    if let Some(g) = overlay.path.last().filter(|c| inside(c)) {
        if overlay.path.len() > 1 {
            fill(&mut img, g.x / d, g.y / d, pal.goal);
        }
    }
    img
}

/// The colour halfway between `a` and `b`.
fn blend(a: [u8; 3], b: [u8; 3]) -> [u8; 3] {
    std::array::from_fn(|i| ((a[i] as u16 + b[i] as u16) / 2) as u8)
}

/// Bresenham's line, clipped to the image.
pub(super) fn line(
    img: &mut RgbImage,
    (mut x0, mut y0): (i64, i64),
    (x1, y1): (i64, i64),
    c: Rgb<u8>,
) {
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

/// Saves an image as PNG, whatever the extension, flushed and synced to disk before it
/// returns (see [`OutputFile`]).
///
/// # Errors
/// [`MapError::Io`] when the file cannot be created or written (a full disk included),
/// [`MapError::Encode`] when the encoder fails.
pub fn save_png(img: &RgbImage, path: impl AsRef<Path>) -> Result<(), MapError> {
    write_image(path.as_ref(), |out| img.write_to(out, ImageFormat::Png))
}

/// Creates `path` and lets `encode` write an image into it through an [`OutputFile`], so that
/// no write error is lost: the image crate's own file helper flushes its buffer on drop,
/// where the error is dropped too. I/O failures become [`MapError::Io`], encoder failures
/// [`MapError::Encode`], both naming the file.
pub(crate) fn write_image(
    path: &Path,
    encode: impl FnOnce(&mut OutputFile) -> image::ImageResult<()>,
) -> Result<(), MapError> {
    let mut out = OutputFile::create(path)?;
    encode(&mut out).map_err(|e| match e {
        image::ImageError::IoError(e) => out.error(e),
        e => MapError::Encode {
            file: display_name(path),
            source: e,
        },
    })?;
    out.finish()
}
