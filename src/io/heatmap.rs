//! PNG renders of a distance field toward one goal: a heat map of the distances, arrows
//! along the step to take, the goal and paths on top.
//!
//! Like [`render`](super::render()), this module knows nothing of the search: the field is
//! asked through two closures, so a [`FlowField`](crate::FlowField) or any other distance
//! field can be drawn.

use super::render::{cells_per_pixel, effective_scale, line, render_size};
use crate::geom::{Cell, Rect};
use crate::grid::Grid;
use image::{Rgb, RgbImage};

/// A distance field to draw.
///
/// ```
/// use quadpath::io::{render_field, FieldOverlay, FieldRenderOptions};
/// use quadpath::{Cell, Grid, HpaMap, Mode, Rect};
/// let map = HpaMap::new(Grid::from_fn(16, 16, |x, y| x != 8 || y > 12), Mode::Exact)?;
/// let goal = Cell::new(15, 0);
/// let field = map.flow_field(goal)?;
/// let overlay = FieldOverlay {
///     distance: &|c| field.distance(&map, c).ok().flatten(),
///     next_step: &|c| field.next_step(&map, c).ok().flatten(),
///     goal: Rect::from(goal),
///     paths: &[],
///     open: None,
/// };
/// let img = render_field(map.grid(), &overlay, &FieldRenderOptions::default());
/// assert_eq!(img.dimensions(), (64, 64));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FieldOverlay<'a> {
    /// The distance from a cell to the goal, `None` where the goal cannot be reached (or
    /// the cell is not open). Asked once for each drawn cell.
    pub distance: &'a dyn Fn(Cell) -> Option<f64>,
    /// The neighbour to step to from a cell, `None` on the goal or where it cannot be
    /// reached. Asked only for the cells that carry an arrow.
    pub next_step: &'a dyn Fn(Cell) -> Option<Cell>,
    /// The goal, marked with [`FieldPalette::goal`] and a ring around it.
    pub goal: Rect,
    /// Paths drawn on top: their cells in [`FieldPalette::path`], the first one in
    /// [`FieldPalette::start`].
    pub paths: &'a [Vec<Cell>],
    /// The open positions of a movement class on the drawn grid (same size), as
    /// [`Movement::open_grid`](crate::Movement::open_grid) gives them: free cells outside
    /// it are drawn in [`FieldPalette::closed`]. `None`: the grid's free cells are open.
    pub open: Option<&'a Grid>,
}

/// Colours of a field render.
///
/// ```
/// use quadpath::io::{render_field, FieldOverlay, FieldPalette, FieldRenderOptions};
/// use quadpath::{Cell, Grid, Rect};
/// // A wall at column 2 of a 4×1 strip; the field is 0 everywhere else.
/// let grid = Grid::from_fn(4, 1, |x, _| x != 2);
/// let overlay = FieldOverlay {
///     distance: &|_| Some(0.0),
///     next_step: &|_| None,
///     goal: Rect::from(Cell::new(0, 0)),
///     paths: &[],
///     open: None,
/// };
/// let palette = FieldPalette { blocked: [255, 0, 0], ..FieldPalette::default() };
/// let opts = FieldRenderOptions { scale: 1, palette, ..Default::default() };
/// let img = render_field(&grid, &overlay, &opts);
/// assert_eq!(img.get_pixel(2, 0).0, [255, 0, 0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldPalette {
    /// The colour ramp from the goal (first) to the farthest reachable cell (last); the
    /// colours in between are spaced evenly over the distances.
    pub ramp: [[u8; 3]; 7],
    /// Open cells that cannot reach the goal.
    pub unreachable: [u8; 3],
    /// Blocked cells (walls, water, forest: no terrain tints).
    pub blocked: [u8; 3],
    /// Free cells a movement class cannot stand at ([`FieldOverlay::open`]).
    pub closed: [u8; 3],
    /// Arrows over light cells.
    pub arrow_dark: [u8; 3],
    /// Arrows over dark cells.
    pub arrow_light: [u8; 3],
    /// Path cells.
    pub path: [u8; 3],
    /// The first cell of each path.
    pub start: [u8; 3],
    /// The goal's cells and the ring around them.
    pub goal: [u8; 3],
}

impl Default for FieldPalette {
    fn default() -> Self {
        FieldPalette {
            // ColorBrewer's YlGnBu: light yellow near the goal, dark blue far from it.
            ramp: [
                [255, 255, 217],
                [199, 233, 180],
                [127, 205, 187],
                [65, 182, 196],
                [29, 145, 192],
                [34, 94, 168],
                [37, 52, 148],
            ],
            unreachable: [150, 150, 150],
            blocked: [40, 40, 46],
            closed: [120, 96, 72],
            arrow_dark: [30, 30, 30],
            arrow_light: [245, 245, 245],
            path: [220, 30, 30],
            start: [255, 140, 0],
            goal: [230, 0, 160],
        }
    }
}

/// How to render a field.
///
/// ```
/// use quadpath::io::{render_field, FieldOverlay, FieldRenderOptions};
/// use quadpath::{Cell, Grid, HpaMap, Mode, Rect};
/// let map = HpaMap::new(Grid::new_free(100, 50), Mode::Exact)?;
/// let field = map.flow_field(Cell::new(99, 49))?;
/// let overlay = FieldOverlay {
///     distance: &|c| field.distance(&map, c).ok().flatten(),
///     next_step: &|c| field.next_step(&map, c).ok().flatten(),
///     goal: Rect::from(Cell::new(99, 49)),
///     paths: &[],
///     open: None,
/// };
/// // Two pixels a cell, an arrow about every 20 pixels.
/// let opts = FieldRenderOptions { scale: 2, arrow_spacing: 20, ..Default::default() };
/// assert_eq!(render_field(map.grid(), &overlay, &opts).dimensions(), (200, 100));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldRenderOptions {
    /// Each cell becomes `scale × scale` pixels, lowered as for
    /// [`render`](super::render()) ([`render_size`] gives the image's size). 0 counts as 1.
    pub scale: u32,
    /// About how many pixels apart the arrows are: one arrow per square block of cells
    /// that many pixels wide, rounded to whole cells (at least one).
    pub arrow_spacing: u32,
    /// The colours.
    pub palette: FieldPalette,
}

impl Default for FieldRenderOptions {
    fn default() -> Self {
        FieldRenderOptions {
            scale: 4,
            arrow_spacing: 14,
            palette: FieldPalette::default(),
        }
    }
}

/// The side, in drawn blocks of cells (cells, unless the grid is drawn shrunk), of the
/// squares that carry one arrow each at `scale`: `arrow_spacing` pixels rounded to whole
/// blocks, at least one.
pub fn arrow_block(grid: &Grid, scale: u32, arrow_spacing: u32) -> u32 {
    let k = effective_scale(grid, scale);
    ((arrow_spacing as f64 / k as f64).round() as u32).max(1)
}

/// Draws the field over `grid`: each cell coloured by its distance along the palette's
/// ramp (blocked cells, cells outside a class's open area and open cells that cannot
/// reach the goal in their own colours), then one arrow per square of
/// [`arrow_block`] cells along the step from its middle cell, then the paths (wider than
/// their cells below 4 pixels per cell), then the goal with a ring around it.
///
/// The image is [`render_size`]`(grid, opts.scale)`. A grid drawn shrunk (more cells than
/// [`MAX_RENDER_PIXELS`](super::MAX_RENDER_PIXELS)) shows the top-left cell of each block.
pub fn render_field(grid: &Grid, field: &FieldOverlay<'_>, opts: &FieldRenderOptions) -> RgbImage {
    let k = effective_scale(grid, opts.scale);
    let d = cells_per_pixel(grid);
    let (width, height) = render_size(grid, opts.scale);
    let (bw, bh) = (grid.width().div_ceil(d), grid.height().div_ceil(d));
    let pal = &opts.palette;
    let mut img = RgbImage::new(width, height);
    // A block's `k × k` pixels.
    let fill = |img: &mut RgbImage, bx: u32, by: u32, c: [u8; 3]| dot(img, k, (bx, by), k, c);
    let open = |c: Cell| field.open.map_or(grid.is_free(c), |o| o.is_free(c));

    // Distances first, to scale the ramp to the farthest reachable cell.
    let dist: Vec<Option<f64>> = (0..bh)
        .flat_map(|by| (0..bw).map(move |bx| Cell::new(bx * d, by * d)))
        .map(|c| if open(c) { (field.distance)(c) } else { None })
        .collect();
    let far = dist.iter().flatten().copied().fold(0.0, f64::max);
    for by in 0..bh {
        for bx in 0..bw {
            let cell = Cell::new(bx * d, by * d);
            let c = match dist[(by * bw + bx) as usize] {
                Some(v) => ramp(&pal.ramp, if far > 0.0 { v / far } else { 0.0 }),
                None if open(cell) => pal.unreachable,
                None if grid.is_free(cell) => pal.closed,
                None => pal.blocked,
            };
            fill(&mut img, bx, by, c);
        }
    }

    let n = arrow_block(grid, opts.scale, opts.arrow_spacing);
    for ay in 0..bh.div_ceil(n) {
        for ax in 0..bw.div_ceil(n) {
            let (bx, by) = ((ax * n + n / 2).min(bw - 1), (ay * n + n / 2).min(bh - 1));
            let from = Cell::new(bx * d, by * d);
            if dist[(by * bw + bx) as usize].is_none() {
                continue;
            }
            let Some(to) = (field.next_step)(from) else {
                continue;
            };
            let under = img.get_pixel(bx * k + k / 2, by * k + k / 2).0;
            let colour = if luma(under) > 110.0 {
                pal.arrow_dark
            } else {
                pal.arrow_light
            };
            let centre = (
                (bx * k) as f64 + k as f64 / 2.0,
                (by * k) as f64 + k as f64 / 2.0,
            );
            let dir = (to.x as f64 - from.x as f64, to.y as f64 - from.y as f64);
            let size = (n * k) as f64 * 0.7;
            arrow(&mut img, centre, dir, size, Rgb(colour));
        }
    }

    // Paths and starts fill their cells; below 4 pixels per cell they are drawn wider
    // than a cell, so that they stay visible on large maps.
    let (pen, start_pen) = if k >= 4 { (k, k) } else { (3, 5) };
    let inside = |c: &Cell| c.x < grid.width() && c.y < grid.height();
    for path in field.paths {
        for c in path.iter().filter(|c| inside(c)) {
            dot(&mut img, k, (c.x / d, c.y / d), pen, pal.path);
        }
    }
    for s in field
        .paths
        .iter()
        .filter_map(|p| p.first())
        .filter(|c| inside(c))
    {
        dot(&mut img, k, (s.x / d, s.y / d), start_pen, pal.start);
    }

    if let Some(g) = field.goal.intersection(&grid.bounds()) {
        for c in g.cells().filter(|&c| open(c)) {
            fill(&mut img, c.x / d, c.y / d, pal.goal);
        }
        // A ring a few pixels out, so that a one-pixel goal can be found.
        let margin = (k as i64 + 3).max(7);
        let (x1, y1) = (
            (g.x1 / d * k) as i64 - margin,
            (g.y1 / d * k) as i64 - margin,
        );
        let (x2, y2) = (
            ((g.x2 / d + 1) * k) as i64 - 1 + margin,
            ((g.y2 / d + 1) * k) as i64 - 1 + margin,
        );
        let c = Rgb(pal.goal);
        for inset in 0..2 {
            let (x1, y1, x2, y2) = (x1 + inset, y1 + inset, x2 - inset, y2 - inset);
            line(&mut img, (x1, y1), (x2, y1), c);
            line(&mut img, (x2, y1), (x2, y2), c);
            line(&mut img, (x2, y2), (x1, y2), c);
            line(&mut img, (x1, y2), (x1, y1), c);
        }
    }
    img
}

/// A `size`-pixel square centred on block `(bx, by)` of `k × k` pixels (the block itself
/// when `size` is `k`), clipped to the image.
fn dot(img: &mut RgbImage, k: u32, (bx, by): (u32, u32), size: u32, c: [u8; 3]) {
    let (x0, y0) = (
        (bx * k + k / 2) as i64 - (size / 2) as i64,
        (by * k + k / 2) as i64 - (size / 2) as i64,
    );
    for py in y0.max(0)..(y0 + size as i64).min(img.height() as i64) {
        for px in x0.max(0)..(x0 + size as i64).min(img.width() as i64) {
            img.put_pixel(px as u32, py as u32, Rgb(c));
        }
    }
}

/// The ramp's colour at `t` (0 to 1), interpolated between its stops.
fn ramp(stops: &[[u8; 3]], t: f64) -> [u8; 3] {
    let last = stops.len() - 1;
    let pos = t.clamp(0.0, 1.0) * last as f64;
    let i = (pos.floor() as usize).min(last - 1);
    let f = pos - i as f64;
    let (a, b) = (stops[i], stops[i + 1]);
    std::array::from_fn(|j| (a[j] as f64 + (b[j] as f64 - a[j] as f64) * f).round() as u8)
}

/// Perceived brightness, 0 to 255.
fn luma(c: [u8; 3]) -> f64 {
    0.299 * c[0] as f64 + 0.587 * c[1] as f64 + 0.114 * c[2] as f64
}

/// An arrow `size` pixels long centred on `centre`, pointing along `dir`.
fn arrow(img: &mut RgbImage, centre: (f64, f64), dir: (f64, f64), size: f64, c: Rgb<u8>) {
    let norm = (dir.0 * dir.0 + dir.1 * dir.1).sqrt();
    if norm == 0.0 {
        return;
    }
    let (ux, uy) = (dir.0 / norm, dir.1 / norm);
    let half = (size / 2.0).max(2.0);
    let pt = |x: f64, y: f64| (x.round() as i64, y.round() as i64);
    let tail = pt(centre.0 - ux * half, centre.1 - uy * half);
    let (tx, ty) = (centre.0 + ux * half, centre.1 + uy * half);
    line(img, tail, pt(tx, ty), c);
    // The head: two strokes back from the tip, 40 degrees either side of the shaft.
    let head = (half * 0.8).max(2.0);
    let (cos, sin) = (40f64.to_radians().cos(), 40f64.to_radians().sin());
    for s in [sin, -sin] {
        let (bx, by) = (-(ux * cos - uy * s), -(ux * s + uy * cos));
        line(img, pt(tx, ty), pt(tx + bx * head, ty + by * head), c);
    }
}
