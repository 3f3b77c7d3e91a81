//! Layers of classes with terrain costs: each position carries, as its terrain code, the
//! dearest passable code under its footprint, so that the layer's [`HpaMap`] weighs the
//! position at the class's [position cost](crate::Movement::position_cost) (the largest
//! cost under the footprint), and the layer's edits see cost changes as they see openness
//! changes.

use crate::geom::{Cell, Rect};
use crate::grid::{ClearanceField, Grid, Movement};

/// The dearest code under the footprint of a `K × K` agent at `pos` (among the cells of
/// the class's passable set), or the class's first passable code when there is none (the
/// position is closed then, and its code is never read while it stays closed).
pub(super) fn dearest_code(grid: &Grid, movement: &Movement, pos: Cell) -> u8 {
    let passable = movement.passable();
    let mut best: Option<(f32, u8)> = None;
    for code in movement.footprint(grid, pos).map(|c| grid.terrain_code(c)) {
        if !passable.contains(code) {
            continue;
        }
        let cost = movement.terrain_cost(code);
        // Strictly dearer, or as dear with a smaller code: one answer, whatever the order
        // the cells are read in.
        if best.map_or(true, |(c, b)| cost > c || (cost == c && code < b)) {
            best = Some((cost, code));
        }
    }
    best.map_or_else(
        || {
            passable
                .iter()
                .next()
                .expect("a class has a passable code")
                .code()
        },
        |(_, code)| code,
    )
}

/// The layer grid of a class with terrain costs: every position's dearest code (see
/// [`dearest_code`]) over the class's passable set, closed positions (clearance below the
/// class's size in `field`) obstructed.
pub(super) fn layer_grid(grid: &Grid, field: &ClearanceField, movement: &Movement) -> Grid {
    let (w, h) = (grid.width(), grid.height());
    let codes = grid
        .bounds()
        .cells()
        .map(|c| dearest_code(grid, movement, c))
        .collect();
    let mut layer = Grid::from_terrain(w, h, codes, *movement.passable());
    for c in grid.bounds().cells() {
        if field.get(c) < movement.size() {
            layer.set_blocked(c, true);
        }
    }
    layer
}

/// The positions whose footprint meets `rect` (it and `K − 1` cells above and left of it)
/// with their dearest codes now: what an edit of `rect` may have changed in a costed layer.
pub(super) fn codes_around(grid: &Grid, movement: &Movement, rect: Rect) -> Vec<(Cell, u8)> {
    let reach = movement.size() - 1;
    let area = Rect::new(
        rect.x1.saturating_sub(reach),
        rect.y1.saturating_sub(reach),
        rect.x2,
        rect.y2,
    );
    area.cells()
        .map(|c| (c, dearest_code(grid, movement, c)))
        .collect()
}
