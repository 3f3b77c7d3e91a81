//! Draws `maps/rts_valley.png`, the small RTS-style obstacle bitmap shipped with the crate.
//!
//! Run with `cargo run --example draw_rts_map [OUTPUT]`. The map is drawn from code so that it
//! can be regenerated and changed reviewably: two walled bases (west and east) with gates, a
//! few buildings, a river from north to south with three bridges, forest patches, a road
//! network joining the bases' gates to every bridge, and swamps, among them the marshy
//! meadows on both banks of the middle bridge. Colours come from `ColorLegend::rts_default()`,
//! so the image loads with that legend.
//!
//! Roads (`G`) and swamps (`S`) are laid only on open ground: they change what crossing a
//! cell costs under terrain costs (`ColorLegend::rts_default_costs()`: roads 0.5, swamps
//! 3), never whether it can be crossed, so the map's passability, and every length measured
//! on it without costs, is what it was before they were added. With those costs the
//! cheapest way between the bases follows the roads over the north or south bridge, around
//! the marshes of the middle one (`examples/rts_roads.rs`).

use image::{Rgb, RgbImage};
use quadpath::io::{self, BitmapOptions, ColorLegend};
use quadpath::TerrainSet;

const W: u32 = 128;
const H: u32 = 96;

/// The west base's interior, where units spawn; the test suite checks it connects to the east.
pub const WEST_BASE: (u32, u32, u32, u32) = (10, 34, 33, 59);
/// The east base's interior.
pub const EAST_BASE: (u32, u32, u32, u32) = (95, 38, 118, 63);

struct Canvas {
    img: RgbImage,
    legend: ColorLegend,
}

impl Canvas {
    fn paint(&mut self, x: i64, y: i64, code: u8) {
        if x < 0 || y < 0 || x >= W as i64 || y >= H as i64 {
            return;
        }
        assert!(io::MAP_CHARACTERS.contains(code), "a Moving AI character");
        let free = TerrainSet::moving_ai().contains(code);
        self.img.put_pixel(
            x as u32,
            y as u32,
            Rgb(self.legend.color_for(code.into(), free)),
        );
    }

    /// Fills the rectangle with inclusive corners.
    fn rect(&mut self, x1: i64, y1: i64, x2: i64, y2: i64, code: u8) {
        for y in y1..=y2 {
            for x in x1..=x2 {
                self.paint(x, y, code);
            }
        }
    }

    /// The terrain code of a cell as painted so far (`@` off the map).
    fn code_at(&self, x: i64, y: i64) -> u8 {
        if x < 0 || y < 0 || x >= W as i64 || y >= H as i64 {
            return b'@';
        }
        let rgb = self.img.get_pixel(x as u32, y as u32).0;
        self.legend.lookup(rgb).map_or(b'@', |e| e.terrain.code())
    }

    /// Lays free terrain `code` on the cell if it holds one of the free codes `over`, and
    /// leaves it alone otherwise: ground is re-surfaced, never opened or closed.
    fn lay(&mut self, x: i64, y: i64, code: u8, over: &[u8]) {
        debug_assert!(
            TerrainSet::moving_ai().contains(code)
                && over.iter().all(|c| TerrainSet::moving_ai().contains(*c))
        );
        if over.contains(&self.code_at(x, y)) {
            self.paint(x, y, code);
        }
    }

    /// A rough blob: a disc whose edge is frayed by a fixed hash, so patches look natural but
    /// come out the same on every run. `put` draws each of its cells.
    fn blob_where(&mut self, cx: i64, cy: i64, r: i64, mut put: impl FnMut(&mut Self, i64, i64)) {
        for y in cy - r - 1..=cy + r + 1 {
            for x in cx - r - 1..=cx + r + 1 {
                let d2 = (x - cx).pow(2) + (y - cy).pow(2);
                let h = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)).rem_euclid(7) - 3;
                if d2 <= (r * r + h * r / 2).max(0) {
                    put(self, x, y);
                }
            }
        }
    }

    /// A road 3 cells wide along the polyline through `points` (cell coordinates), laid on
    /// open ground and swamp (a causeway): every cell whose centre lies within 1.5 of the line.
    fn road(&mut self, points: &[(f64, f64)]) {
        const HALF_WIDTH: f64 = 1.5;
        for seg in points.windows(2) {
            let ((ax, ay), (bx, by)) = (seg[0], seg[1]);
            let (x1, x2) = (ax.min(bx) - 2.0, ax.max(bx) + 2.0);
            let (y1, y2) = (ay.min(by) - 2.0, ay.max(by) + 2.0);
            for y in y1.floor() as i64..=y2.ceil() as i64 {
                for x in x1.floor() as i64..=x2.ceil() as i64 {
                    if distance_to_segment((x as f64, y as f64), seg[0], seg[1]) <= HALF_WIDTH {
                        self.lay(x, y, b'G', b".S");
                    }
                }
            }
        }
    }

    /// A compound: a wall of thickness 2 around an open interior, with gaps on some sides.
    fn compound(&mut self, (x1, y1, x2, y2): (u32, u32, u32, u32), gates: &[(char, i64)]) {
        let (x1, y1, x2, y2) = (x1 as i64 - 2, y1 as i64 - 2, x2 as i64 + 2, y2 as i64 + 2);
        self.rect(x1, y1, x2, y2, b'@');
        self.rect(x1 + 2, y1 + 2, x2 - 2, y2 - 2, b'.');
        for &(side, at) in gates {
            // Gates are 4 cells wide so that a column of units can pass.
            match side {
                'n' => self.rect(at, y1, at + 3, y1 + 1, b'G'),
                's' => self.rect(at, y2 - 1, at + 3, y2, b'G'),
                'w' => self.rect(x1, at, x1 + 1, at + 3, b'G'),
                _ => self.rect(x2 - 1, at, x2, at + 3, b'G'),
            }
        }
    }
}

/// The distance from point `p` to the segment from `a` to `b`.
fn distance_to_segment(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
    };
    ((p.0 - a.0 - t * dx).powi(2) + (p.1 - a.1 - t * dy).powi(2)).sqrt()
}

/// Column of the river's west bank at row `y`: it meanders from x≈58 to x≈70.
fn river_x(y: i64) -> i64 {
    58 + y * 10 / H as i64 + ((y as f64 / 9.0).sin() * 3.0).round() as i64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "maps/rts_valley.png".into());
    let legend = ColorLegend::rts_default();
    let mut c = Canvas {
        img: RgbImage::new(W, H),
        legend: legend.clone(),
    };
    c.rect(0, 0, W as i64 - 1, H as i64 - 1, b'.');

    // Forests first: everything built later clears its own ground.
    for &(x, y, r) in &[
        (20, 10, 7),
        (40, 78, 8),
        (100, 12, 6),
        (110, 82, 7),
        (80, 28, 4),
        (48, 40, 3),
        (6, 80, 5),
    ] {
        c.blob_where(x, y, r, |c, x, y| c.paint(x, y, b'T'));
    }
    c.blob_where(86, 74, 5, |c, x, y| c.paint(x, y, b'S'));

    // The river, 6 cells wide, and three bridges.
    for y in 0..H as i64 {
        let x = river_x(y);
        c.rect(x, y, x + 5, y, b'W');
    }
    for by in [14, 47, 80] {
        // A bridge is 4 rows of road reaching one cell past each bank.
        let xs = (by..by + 4).map(river_x);
        let (lo, hi) = (xs.clone().min().unwrap() - 1, xs.max().unwrap() + 6);
        c.rect(lo, by, hi, by + 3, b'G');
    }

    // Roads from the base gates toward the middle bridge; they stop where the marshes begin.
    c.rect(36, 47, 43, 50, b'G');
    c.rect(81, 47, 92, 50, b'G');
    // Swamps, on open ground only. The meadows on both banks of the middle bridge make the
    // shortest way between the bases a slow one.
    for &(x, y, r) in &[
        (50, 49, 7),
        (74, 49, 7),
        (16, 68, 5),
        (112, 28, 5),
        (96, 91, 4),
    ] {
        c.blob_where(x, y, r, |c, x, y| c.lay(x, y, b'S', b"."));
    }
    // The road network: from the west base's north gate to the north bridge and on to the
    // east road, and from the west road over the south bridge to the east base's south gate.
    c.road(&[(21.5, 32.0), (27.0, 24.0), (40.0, 17.0), (61.0, 15.5)]);
    c.road(&[(68.0, 15.5), (86.0, 18.0), (89.0, 44.0), (89.0, 47.0)]);
    c.road(&[(41.0, 50.0), (46.0, 62.0), (56.0, 76.0), (66.0, 81.5)]);
    c.road(&[(74.0, 81.5), (92.0, 80.0), (105.5, 67.0), (105.5, 65.0)]);

    c.compound(WEST_BASE, &[('e', 47), ('n', 20)]);
    c.compound(EAST_BASE, &[('w', 47), ('s', 104)]);

    // Buildings inside the bases and out in the field.
    for &(x1, y1, x2, y2) in &[
        (13, 37, 19, 42),
        (24, 52, 30, 56),
        (13, 50, 16, 56),
        (99, 41, 106, 45),
        (110, 54, 116, 60),
        (98, 55, 102, 59),
        (40, 20, 46, 25),
        (84, 86, 90, 90),
        (28, 68, 31, 73),
        (96, 24, 101, 27),
    ] {
        c.rect(x1, y1, x2, y2, b'@');
    }

    if let Some(dir) = std::path::Path::new(&out).parent() {
        std::fs::create_dir_all(dir).ok();
    }
    // Through the library's writer: the image crate's `save` drops a failed final flush.
    io::save_png(&c.img, &out)?;

    // Read the file back as the library would and report what came out.
    let grid = io::read_bitmap(
        &out,
        &BitmapOptions {
            legend: Some(legend),
            ..Default::default()
        },
    )?;
    println!(
        "wrote {out}: {}x{}, {} free cells of {}",
        grid.width(),
        grid.height(),
        grid.free_count(),
        grid.width() * grid.height()
    );
    Ok(())
}
