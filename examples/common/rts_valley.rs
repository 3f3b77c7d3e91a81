//! What the RTS examples know of `maps/rts_valley.png`, as `examples/draw_rts_map.rs` draws
//! it: where its bridges are. Shared with `#[path]`, since every file directly in
//! `examples/` is an example of its own.

use quadpath::Path;

/// First rows of the three bridges, north to south: 4 rows of road each, across the river,
/// which meanders within columns 58 to 76.
pub const BRIDGES: [(u32, &str); 3] = [(14, "north"), (47, "middle"), (80, "south")];

/// The bridge a path crosses, if any.
pub fn bridge(path: &Path) -> Option<&'static str> {
    BRIDGES
        .into_iter()
        .find(|&(row, _)| {
            path.cells
                .iter()
                .any(|c| (58..=76).contains(&c.x) && (row..row + 4).contains(&c.y))
        })
        .map(|(_, name)| name)
}
