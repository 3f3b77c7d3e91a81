//! Obstacle bitmaps: images to grids and back, and the colour legend.

use super::error::{display_name, excerpt, MapError};
use super::movingai::{MAP_CHARACTERS, MAX_MAP_SIDE};
use super::render::write_image;
use crate::geom::Cell;
use crate::grid::{CostError, Grid, Terrain, TerrainCosts, TerrainSet, GROUND, WALL};
use image::{DynamicImage, GrayImage, ImageFormat, ImageReader, Limits, RgbImage};
use std::io::Cursor;
use std::path::Path;

/// Largest accepted number of pixels of an obstacle bitmap (2^28). Decoding such an image
/// already takes 1 GiB of RGBA; larger ones are refused before decoding.
pub const MAX_PIXELS: u64 = 1 << 28;

/// How image pixels become cells.
#[derive(Clone, Debug, PartialEq)]
pub struct BitmapOptions {
    /// A pixel whose Rec. 709 luma (0.2126 R + 0.7152 G + 0.0722 B on the stored sRGB values
    /// scaled to 0–1, no linearisation) is below this is blocked. Default 0.5.
    pub threshold: f32,
    /// Swap free and blocked in the luminance rule, for images drawn as white walls on black.
    /// Transparent pixels and legend colours are not affected: they say what they are.
    pub invert: bool,
    /// Exact colours with a meaning of their own; other colours fall back to the luminance
    /// rule unless the legend is strict.
    pub legend: Option<ColorLegend>,
}

impl Default for BitmapOptions {
    fn default() -> Self {
        BitmapOptions {
            threshold: 0.5,
            invert: false,
            legend: None,
        }
    }
}

/// One colour of a [`ColorLegend`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegendEntry {
    /// The exact RGB colour.
    pub rgb: [u8; 3],
    /// Terrain given to cells of this colour (a Moving AI character by convention).
    pub terrain: Terrain,
    /// Whether such cells are free.
    pub free: bool,
}

/// Maps exact RGB colours to terrain codes, passability and terrain costs.
///
/// Painted maps mix several kinds of obstacle (walls, water, forest) and of ground (roads,
/// swamps); a legend keeps that distinction in the grid's terrain bytes, which survives a
/// round trip to `.map`, and may say what each kind of ground costs to cross
/// ([`ColorLegend::terrain_costs`]).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ColorLegend {
    /// The colours, first match wins when writing a grid back to an image.
    pub entries: Vec<LegendEntry>,
    /// When set, a colour that is not listed is an error instead of falling back to the
    /// luminance rule.
    pub strict: bool,
    /// The cost of each terrain code, per unit of step length: the `:COST` suffixes of a
    /// parsed legend, unit for codes without one. Costs are per code, not per colour, since
    /// the grid keeps only the code. Only free codes may have a cost other than 1; a legend
    /// built in code is checked for this when applied ([`ColorLegend::passable_set`]).
    pub costs: TerrainCosts,
}

impl ColorLegend {
    /// The legend used by the shipped RTS maps:
    ///
    /// | colour | code | meaning |
    /// |---|---|---|
    /// | `#000000` black | `@` | wall or building, blocked |
    /// | `#0000ff` blue | `W` | water, blocked |
    /// | `#006400` dark green | `T` | forest, blocked |
    /// | `#ffffff` white | `.` | open ground, free |
    /// | `#d2b48c` tan | `G` | road or bridge, free |
    /// | `#9acd32` yellow-green | `S` | swamp, free |
    ///
    /// The free colours are light and the blocked ones dark, so an image drawn in this legend
    /// has the same passability under the plain luminance rule.
    ///
    /// It carries no costs, so that every cell costs the same unless asked otherwise; the
    /// costs the RTS examples use are [`ColorLegend::rts_default_costs`].
    pub fn rts_default() -> Self {
        ColorLegend::parse("000000=@,0000ff=W,006400=T,ffffff=.,d2b48c=G,9acd32=S")
            .expect("the built-in legend parses")
    }

    /// The terrain costs the RTS examples give the codes of [`ColorLegend::rts_default`]:
    /// roads `G` at 0.5 (twice as fast as open ground) and swamps `S` at 3, open ground at 1.
    /// The same as the legend text suffixes `d2b48c=G:0.5,9acd32=S:3`, or `--costs G=0.5,S=3`
    /// on the command line.
    ///
    /// ```
    /// use quadpath::io::ColorLegend;
    ///
    /// let costs = ColorLegend::rts_default_costs();
    /// assert_eq!((costs.get(b'G'), costs.get(b'S'), costs.get(b'.')), (0.5, 3.0, 1.0));
    /// assert_eq!(costs.to_string(), "G=0.5,S=3");
    /// assert!(ColorLegend::rts_default().terrain_costs().is_unit());
    /// ```
    pub fn rts_default_costs() -> TerrainCosts {
        TerrainCosts::unit()
            .with(b'G', 0.5)
            .and_then(|c| c.with(b'S', 3.0))
            .expect("the built-in costs are in range")
    }

    /// Parses a legend such as `"000000=@,0000ff=W,006400=T,ffffff=.,8b6914=G:0.5"`.
    ///
    /// Each comma-separated entry is `RRGGBB=C`, then optionally `:free` or `:blocked`, then
    /// optionally `:COST` (an optional `#` before the hex). `C` is one printable ASCII
    /// character other than `,` and `:`, which separate entries and the suffixes. Moving AI
    /// characters carry their own passability (`.`, `G`, `S` free; `@`, `O`, `T`, `W`
    /// blocked); any other character needs a `:free` or `:blocked` suffix, which may also
    /// override the default. A colour may appear only once, and a terrain code may not be
    /// free in one entry and blocked in another: a grid has one passable set.
    ///
    /// `COST` is the code's terrain cost per unit of step length (a decimal number from
    /// [`TerrainCosts::MIN`] to [`TerrainCosts::MAX`]; codes without one cost 1), read back
    /// with [`ColorLegend::terrain_costs`]. Only a free code can have a cost, and two entries
    /// for the same code may not give it different costs.
    ///
    /// ```
    /// use quadpath::io::ColorLegend;
    ///
    /// let legend = ColorLegend::parse("000000=@,ffffff=.,8b6914=G:0.5,556b2f=m:free:3")?;
    /// let costs = legend.terrain_costs();
    /// assert_eq!((costs.get(b'G'), costs.get(b'm'), costs.get(b'.')), (0.5, 3.0, 1.0));
    /// // A wall has no cost to cross, and no ground is free.
    /// assert!(ColorLegend::parse("000000=@:2").is_err());
    /// assert!(ColorLegend::parse("8b6914=G:0").is_err());
    /// # Ok::<(), quadpath::io::MapError>(())
    /// ```
    ///
    /// # Errors
    /// [`MapError::Legend`], naming the entry, when an entry does not parse (a suffix that is
    /// neither `free`, `blocked` nor a number included), repeats a colour, or contradicts an
    /// earlier entry's passability or cost for the same code; [`MapError::LegendCost`],
    /// naming the entry and wrapping the [`CostError`], for a cost out of range (zero,
    /// negative, NaN, infinite), a cost on a blocked code, or too many distinct costs.
    pub fn parse(text: &str) -> Result<Self, MapError> {
        Self::parse_named(text, "legend")
    }

    /// [`ColorLegend::parse`], naming the legend's origin (e.g. `--legend`) in errors.
    ///
    /// # Errors
    /// As [`ColorLegend::parse`].
    pub fn parse_named(text: &str, source: &str) -> Result<Self, MapError> {
        let mut entries: Vec<LegendEntry> = Vec::new();
        let mut costs = TerrainCosts::unit();
        // Which entry set each code's cost, to name it when a later entry disagrees.
        let mut cost_from: Vec<(u8, f32, usize)> = Vec::new();
        let mut column = 1;
        for (i, raw) in text.split(',').enumerate() {
            let entry_column = column;
            column += raw.chars().count() + 1;
            let err = |message: String| MapError::Legend {
                file: source.to_string(),
                entry: i + 1,
                column: entry_column,
                text: excerpt(raw),
                message,
            };
            let item = raw.trim();
            if item.is_empty() {
                return Err(err("empty entry".into()));
            }
            let (colour, code) = item
                .split_once('=')
                .ok_or_else(|| err("expected RRGGBB=C".into()))?;
            // One optional `#`: `##000000` is a typo, not a colour.
            let hex = colour.trim();
            let hex = hex.strip_prefix('#').unwrap_or(hex);
            if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(err(format!(
                    "{:?} is not a RRGGBB hex colour",
                    excerpt(colour.trim())
                )));
            }
            let v = u32::from_str_radix(hex, 16).map_err(|e| err(e.to_string()))?;
            let rgb = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
            let mut parts = code.trim().split(':').map(str::trim);
            let ch = parts.next().unwrap_or_default();
            let mut chars = ch.chars();
            let terrain = match (chars.next(), chars.next()) {
                // `,` separates entries and `:` the passability, so neither can be a code:
                // both leave the code empty (or `:` after it) by the time it is read here.
                (None, _) => {
                    return Err(err(
                        "no terrain code after `=` (`,` and `:` cannot be terrain codes)".into(),
                    ))
                }
                (Some(c), None) if c.is_ascii() && !c.is_ascii_control() => c as u8,
                _ => {
                    return Err(err(format!(
                        "terrain code {:?} is not one ASCII character",
                        excerpt(ch)
                    )))
                }
            };
            let (pass, cost) = parse_suffixes(parts).map_err(err)?;
            let free = match pass {
                Some(free) => free,
                None if MAP_CHARACTERS.contains(terrain) => {
                    TerrainSet::moving_ai().contains(terrain)
                }
                None => {
                    return Err(err(format!(
                        "{ch:?} is not a Moving AI character; add :free or :blocked"
                    )))
                }
            };
            if entries.iter().any(|e| e.rgb == rgb) {
                return Err(err(format!("colour #{hex} is listed twice")));
            }
            if let Some(other) = entries
                .iter()
                .position(|e| e.terrain == terrain && e.free != free)
            {
                let marks = |free| if free { "free" } else { "blocked" };
                return Err(err(format!(
                    "terrain {ch:?} is {} here but {} in entry {}",
                    marks(free),
                    marks(!free),
                    other + 1
                )));
            }
            if let Some(cost) = cost {
                let cost_err = |e| MapError::LegendCost {
                    file: source.to_string(),
                    entry: Some(i + 1),
                    text: excerpt(raw),
                    source: e,
                };
                if let Some(&(_, other, at)) = cost_from
                    .iter()
                    .find(|&&(t, c, _)| t == terrain && c.to_bits() != cost.to_bits())
                {
                    return Err(err(format!(
                        "terrain {ch:?} costs {cost} here but {other} in entry {at}"
                    )));
                }
                costs = costs.with(terrain, cost).map_err(cost_err)?;
                if !free {
                    return Err(cost_err(CostError::Impassable {
                        terrain: Terrain(terrain),
                    }));
                }
                cost_from.push((terrain, cost, i + 1));
            }
            entries.push(LegendEntry {
                rgb,
                terrain: Terrain(terrain),
                free,
            });
        }
        Ok(ColorLegend {
            entries,
            strict: false,
            costs,
        })
    }

    /// The terrain costs the legend gives (its `:COST` suffixes), every other code at 1:
    /// what a map read with this legend costs to cross, for
    /// [`HpaMap::with_costs`](crate::HpaMap) or
    /// [`Movement::with_terrain_costs`](crate::Movement::with_terrain_costs).
    ///
    /// ```
    /// use quadpath::io::ColorLegend;
    ///
    /// let legend = ColorLegend::parse("ffffff=.,d2b48c=G:0.5,9acd32=S:3")?;
    /// assert_eq!(legend.terrain_costs(), "G=0.5,S=3".parse()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn terrain_costs(&self) -> TerrainCosts {
        self.costs.clone()
    }

    /// The passable set of a grid read with this legend: the
    /// [Moving AI set](TerrainSet::moving_ai), with every entry's code added when the entry
    /// is free and removed when it is blocked. The codes the image rules write take part too:
    /// `@` is blocked (transparent pixels), and unless `strict`, `.` is free (pixels the
    /// luminance rule finds free).
    ///
    /// # Errors
    /// [`MapError::LegendConflict`], naming the entry, when an entry contradicts an earlier
    /// one or the image rules, and [`MapError::LegendCost`] when [`ColorLegend::costs`]
    /// gives a cost to a code that is not passable; `source` names the image.
    pub fn passable_set(&self, source: &str) -> Result<TerrainSet, MapError> {
        let mut free_codes = TerrainSet::empty();
        let mut blocked_codes = TerrainSet::from_codes(&[WALL]);
        if !self.strict {
            free_codes.insert(GROUND);
        }
        let mut passable = TerrainSet::moving_ai();
        for (i, e) in self.entries.iter().enumerate() {
            let (same, opposite) = if e.free {
                (&mut free_codes, &blocked_codes)
            } else {
                (&mut blocked_codes, &free_codes)
            };
            if opposite.contains(e.terrain) {
                return Err(MapError::LegendConflict {
                    file: source.to_string(),
                    entry: i + 1,
                    terrain: e.terrain,
                    free: e.free,
                    conflicts_with: self.entries[..i]
                        .iter()
                        .position(|o| o.terrain == e.terrain && o.free != e.free)
                        .map(|o| o + 1),
                });
            }
            same.insert(e.terrain);
            if e.free {
                passable.insert(e.terrain);
            } else {
                passable.remove(e.terrain);
            }
        }
        // A parsed legend's costs are on free codes already; one built in code may not be.
        self.costs
            .check_passable(&passable)
            .map_err(|e| MapError::LegendCost {
                file: source.to_string(),
                entry: None,
                text: excerpt(&self.costs.to_string()),
                source: e,
            })?;
        Ok(passable)
    }

    /// The entry for an exact colour.
    pub fn lookup(&self, rgb: [u8; 3]) -> Option<&LegendEntry> {
        self.entries.iter().find(|e| e.rgb == rgb)
    }

    /// The colour a cell is drawn in: the first entry with the same terrain and passability,
    /// else the first with the same passability and a default code, else white or black.
    pub fn color_for(&self, terrain: Terrain, free: bool) -> [u8; 3] {
        let default_code = if free { Terrain::GROUND } else { Terrain::WALL };
        self.entries
            .iter()
            .find(|e| e.terrain == terrain && e.free == free)
            .or_else(|| {
                self.entries
                    .iter()
                    .find(|e| e.terrain == default_code && e.free == free)
            })
            .map(|e| e.rgb)
            .unwrap_or(if free { [255; 3] } else { [0; 3] })
    }
}

/// The `:free`, `:blocked` and `:COST` suffixes of a legend entry, after its terrain code:
/// the passability they give (`None` for the code's own) and the cost. At most one of each,
/// passability first; the error says what is wrong, for the caller to place.
fn parse_suffixes<'a>(
    parts: impl Iterator<Item = &'a str>,
) -> Result<(Option<bool>, Option<f32>), String> {
    let (mut pass, mut cost) = (None, None);
    for part in parts {
        match part {
            "free" | "blocked" if pass.is_some() || cost.is_some() => {
                return Err(format!(
                    "`:{part}` must come once, right after the terrain code (before a cost)"
                ))
            }
            "free" | "blocked" => pass = Some(part == "free"),
            _ if cost.is_some() => {
                return Err(format!(
                    "a second cost {:?}: give one cost per entry",
                    excerpt(part)
                ))
            }
            // Any number `f32` reads, so that NaN, infinities and negative costs are refused
            // by the cost rules, with the reason, instead of as unreadable.
            _ => match part.parse::<f32>() {
                Ok(c) => cost = Some(c),
                Err(_) => {
                    return Err(format!(
                        "expected `free`, `blocked` or a cost, found {:?}",
                        excerpt(part)
                    ))
                }
            },
        }
    }
    Ok((pass, cost))
}

/// Reads an obstacle bitmap (PNG, BMP, GIF, TGA or PNM).
///
/// The format is taken from the content, or from the extension when the content does not tell
/// (TGA). The size is checked before the pixels are decoded.
///
/// # Errors
/// [`MapError::Io`] when the file cannot be read; otherwise as [`decode_bitmap`].
pub fn read_bitmap(path: impl AsRef<Path>, opts: &BitmapOptions) -> Result<Grid, MapError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| MapError::io(path, e))?;
    decode_bitmap(
        &bytes,
        ImageFormat::from_path(path).ok(),
        &display_name(path),
        opts,
    )
}

/// Decodes an obstacle bitmap held in memory; `hint` is the format to assume when the
/// content does not reveal it, `source` names the image in errors.
///
/// # Errors
/// [`MapError::TooLarge`] for an image over [`MAX_PIXELS`] (checked before decoding),
/// [`MapError::Decode`] for bytes that are not a supported image, and for a legend,
/// [`MapError::UnknownColor`] (strict legends) or [`MapError::LegendConflict`].
pub fn decode_bitmap(
    bytes: &[u8],
    hint: Option<ImageFormat>,
    source: &str,
    opts: &BitmapOptions,
) -> Result<Grid, MapError> {
    let file = || source.to_string();
    let reader = |bytes| -> Result<ImageReader<Cursor<&[u8]>>, MapError> {
        let mut r = ImageReader::new(Cursor::new(bytes));
        if let Some(f) = hint {
            r.set_format(f);
        }
        let mut r = r.with_guessed_format().map_err(|e| MapError::Io {
            file: file(),
            source: e,
        })?;
        let mut limits = Limits::default();
        limits.max_image_width = Some(MAX_MAP_SIDE as u32);
        limits.max_image_height = Some(MAX_MAP_SIDE as u32);
        limits.max_alloc = Some(MAX_PIXELS * 4 + (64 << 20));
        r.limits(limits);
        Ok(r)
    };
    let decode_err = |e| MapError::Decode {
        file: file(),
        source: e,
    };
    let (w, h) = reader(bytes)?.into_dimensions().map_err(decode_err)?;
    check_size(w, h, source)?;
    let img = reader(bytes)?.decode().map_err(decode_err)?;
    grid_from_image_named(&img, source, opts)
}

fn check_size(w: u32, h: u32, source: &str) -> Result<(), MapError> {
    let (w, h) = (w as u64, h as u64);
    if w == 0 || h == 0 {
        return Err(MapError::Empty {
            file: source.to_string(),
            width: w,
            height: h,
        });
    }
    if w > MAX_MAP_SIDE || h > MAX_MAP_SIDE || w * h > MAX_PIXELS {
        return Err(MapError::TooLarge {
            file: source.to_string(),
            width: w,
            height: h,
            max_side: MAX_MAP_SIDE,
            max_cells: MAX_PIXELS,
        });
    }
    Ok(())
}

/// Turns a decoded image into a grid, one cell per pixel (see [`BitmapOptions`]).
///
/// Cells keep the legend's terrain codes; the others get `.` when free and `@` when blocked.
/// The grid's passable set is the legend's ([`ColorLegend::passable_set`]), or the
/// [Moving AI set](TerrainSet::moving_ai) without a legend.
///
/// # Errors
/// As [`grid_from_image_named`].
pub fn grid_from_image(img: &DynamicImage, opts: &BitmapOptions) -> Result<Grid, MapError> {
    grid_from_image_named(img, "<image>", opts)
}

/// [`grid_from_image`], naming the image in errors.
///
/// # Errors
/// [`MapError::Empty`] or [`MapError::TooLarge`] for an image of the wrong size,
/// [`MapError::LegendConflict`] for a legend that makes a code both free and blocked, and
/// [`MapError::UnknownColor`] for a pixel a strict legend does not list.
pub fn grid_from_image_named(
    img: &DynamicImage,
    source: &str,
    opts: &BitmapOptions,
) -> Result<Grid, MapError> {
    check_size(img.width(), img.height(), source)?;
    let legend = opts.legend.as_ref();
    // Checked before any pixel, so that every code written below has the passability the
    // pixel calls for: the legend's codes as it says, `@` blocked, `.` free.
    let passable = match legend {
        Some(l) => l.passable_set(source)?,
        None => TerrainSet::moving_ai(),
    };
    let rgba = img.to_rgba8();
    let mut codes = Vec::with_capacity(img.width() as usize * img.height() as usize);
    for (x, y, p) in rgba.enumerate_pixels() {
        let [r, g, b, a] = p.0;
        let terrain = if a < 128 {
            WALL
        } else if let Some(e) = legend.and_then(|l| l.lookup([r, g, b])) {
            e.terrain.code()
        } else if legend.is_some_and(|l| l.strict) {
            return Err(MapError::UnknownColor {
                file: source.to_string(),
                x,
                y,
                rgb: [r, g, b],
            });
        } else {
            let luma = (0.2126 * r as f32 + 0.7152 * g as f32 + 0.0722 * b as f32) / 255.0;
            if (luma >= opts.threshold) != opts.invert {
                GROUND
            } else {
                WALL
            }
        };
        codes.push(terrain);
    }
    Ok(Grid::from_terrain(
        img.width(),
        img.height(),
        codes,
        passable,
    ))
}

impl Grid {
    /// The grid as a grey image, free cells white and blocked cells black; it reads back to
    /// the same passability with the default [`BitmapOptions`].
    pub fn to_image(&self) -> GrayImage {
        GrayImage::from_fn(self.width(), self.height(), |x, y| {
            image::Luma([if self.is_free(Cell::new(x, y)) {
                255
            } else {
                0
            }])
        })
    }

    /// The grid as a colour image using the legend's colours (see [`ColorLegend::color_for`]);
    /// it reads back to the same grid, terrain included, when every terrain byte of the grid is
    /// in the legend.
    pub fn to_image_with_legend(&self, legend: &ColorLegend) -> RgbImage {
        RgbImage::from_fn(self.width(), self.height(), |x, y| {
            let cell = Cell::new(x, y);
            image::Rgb(legend.color_for(self.terrain(cell), self.is_free(cell)))
        })
    }
}

/// Writes a grid as an image file (format from the extension): in legend colours when a
/// legend is given, else black and white. The file is flushed and synced to disk before this
/// returns (see [`OutputFile`](super::OutputFile)); it is not created when the extension
/// names no supported format.
///
/// # Errors
/// [`MapError::Encode`] for an extension that names no supported format or an image the
/// encoder rejects, [`MapError::Io`] when the file cannot be created or written (a full disk
/// included).
pub fn save_bitmap(
    grid: &Grid,
    path: impl AsRef<Path>,
    legend: Option<&ColorLegend>,
) -> Result<(), MapError> {
    let path = path.as_ref();
    let format = ImageFormat::from_path(path).map_err(|e| MapError::Encode {
        file: display_name(path),
        source: e,
    })?;
    match legend {
        Some(l) => {
            let img = grid.to_image_with_legend(l);
            write_image(path, |out| img.write_to(out, format))
        }
        None => {
            let img = grid.to_image();
            write_image(path, |out| img.write_to(out, format))
        }
    }
}

/// Loads a grid from a `.map` file or, for any other extension, an obstacle bitmap.
///
/// # Errors
/// As [`read_map`](super::read_map) for `.map` files and [`read_bitmap`] for images.
pub fn load_grid(path: impl AsRef<Path>, opts: &BitmapOptions) -> Result<Grid, MapError> {
    let path = path.as_ref();
    if is_bitmap_path(path) {
        read_bitmap(path, opts)
    } else {
        super::movingai::read_map(path)
    }
}

/// Whether [`load_grid`] reads `path` as an obstacle bitmap: anything but a `.map` file
/// (case-insensitive), so that a colour legend applies to it.
///
/// ```
/// use quadpath::io::is_bitmap_path;
/// assert!(is_bitmap_path("maps/rts_valley.png".as_ref()));
/// assert!(!is_bitmap_path("maps/arena.MAP".as_ref()));
/// ```
pub fn is_bitmap_path(path: &Path) -> bool {
    !path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("map"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_parse_and_errors() {
        let l = ColorLegend::rts_default();
        assert_eq!(
            l.lookup([0, 0, 255]).map(|e| (e.terrain, e.free)),
            Some((Terrain::WATER, false))
        );
        let e = ColorLegend::parse("000000=@, 12345=.").unwrap_err();
        assert!(
            matches!(
                e,
                MapError::Legend {
                    entry: 2,
                    column: 10,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(ColorLegend::parse("#ff0000=x:free").unwrap().entries[0].free);
        assert!(ColorLegend::parse("ff0000=x").is_err());
    }

    #[test]
    fn legend_rejects_a_double_hash_and_separator_codes() {
        for (text, needle) in [
            ("##000000=@", "\"##000000\" is not a RRGGBB hex colour"),
            ("000000=:", "`,` and `:` cannot be terrain codes"),
            ("000000=::free", "`,` and `:` cannot be terrain codes"),
            ("000000=,:free", "`,` and `:` cannot be terrain codes"),
        ] {
            let e = ColorLegend::parse(text).unwrap_err();
            assert!(
                matches!(e, MapError::Legend { entry: 1, .. }) && e.to_string().contains(needle),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn one_code_cannot_be_free_and_blocked() {
        let e = ColorLegend::parse("000000=@,ff0000=x:free,00ff00=x:blocked").unwrap_err();
        assert!(
            matches!(e, MapError::Legend { entry: 3, ref message, .. } if message.contains("entry 2")),
            "{e:?}"
        );
        // Legends built in code are checked when applied, against the image rules too.
        let img = DynamicImage::ImageRgb8(RgbImage::from_raw(1, 1, vec![0, 0, 0]).unwrap());
        let entry = |terrain: u8, free| LegendEntry {
            rgb: [9, 9, 9],
            terrain: terrain.into(),
            free,
        };
        let cases = [
            (
                vec![entry(b'x', true), entry(b'x', false)],
                false,
                2,
                Some(1),
            ),
            (vec![entry(b'@', true)], true, 1, None),
            (vec![entry(b'.', false)], false, 1, None),
        ];
        for (entries, strict, at, with) in cases {
            let opts = BitmapOptions {
                legend: Some(ColorLegend {
                    entries,
                    strict,
                    ..Default::default()
                }),
                ..Default::default()
            };
            let e = grid_from_image_named(&img, "i.png", &opts).unwrap_err();
            assert!(
                matches!(e, MapError::LegendConflict { entry, conflicts_with, .. }
                    if entry == at && conflicts_with == with),
                "{e:?}"
            );
            assert!(e.to_string().starts_with("i.png: legend entry"), "{e}");
        }
        // A strict legend may make `.` blocked: no pixel falls back to the luminance rule.
        let strict = ColorLegend {
            entries: vec![LegendEntry {
                rgb: [0, 0, 0],
                terrain: Terrain::GROUND,
                free: false,
            }],
            strict: true,
            ..Default::default()
        };
        let opts = BitmapOptions {
            legend: Some(strict),
            ..Default::default()
        };
        let g = grid_from_image(&img, &opts).unwrap();
        assert!(!g.is_free(Cell::new(0, 0)) && !g.passable().contains(b'.'));
    }

    #[test]
    fn luminance_threshold() {
        let img = DynamicImage::ImageRgb8(
            RgbImage::from_raw(2, 1, vec![100, 100, 100, 200, 200, 200]).unwrap(),
        );
        let g = grid_from_image(&img, &BitmapOptions::default()).unwrap();
        assert!(!g.is_free(Cell::new(0, 0)) && g.is_free(Cell::new(1, 0)));
        let g = grid_from_image(
            &img,
            &BitmapOptions {
                invert: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(g.is_free(Cell::new(0, 0)) && !g.is_free(Cell::new(1, 0)));
    }
}
