//! The Moving AI `.map` format: reading and writing.

use super::error::{display_name, excerpt, MapError};
use super::output::OutputFile;
use crate::geom::Cell;
use crate::grid::{Grid, TerrainSet};
use std::io::Write;
use std::path::Path;

/// Largest accepted side of a map or image. Far beyond any benchmark map (the largest Moving
/// AI maps are a few thousand cells wide), small enough that `side * side` arithmetic on `u64`
/// never overflows.
pub const MAX_MAP_SIDE: u64 = (1 << 29) - 1;

/// Largest accepted number of cells of a `.map` file (2^32). The text of such a map would
/// already be 4 GiB, so anything above it is a corrupt header, not a map.
pub const MAX_MAP_CELLS: u64 = 1 << 32;

/// The characters a Moving AI map row may hold: `.`, `G`, `S`, `@`, `O`, `T` and `W`. Which
/// of them are free is [`TerrainSet::moving_ai`]; a map is read with that passable set.
pub const MAP_CHARACTERS: TerrainSet = TerrainSet::from_codes(b".GS@OTW");

/// Reads a Moving AI `.map` file.
///
/// Invalid UTF-8 is not fatal by itself: such bytes become U+FFFD and are then reported as an
/// unknown character at their line and column.
///
/// # Errors
/// [`MapError::Io`] when the file cannot be read; otherwise as [`parse_map`].
pub fn read_map(path: impl AsRef<Path>) -> Result<Grid, MapError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| MapError::io(path, e))?;
    parse_map(&String::from_utf8_lossy(&bytes), &display_name(path))
}

/// Splits text into lines on `\n`, dropping one trailing `\r` per line, so that CRLF files and
/// files without a final newline read the same as LF files.
pub(super) fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .enumerate()
        .map(|(i, l)| (i + 1, l))
}

/// Parses the text of a Moving AI `.map` file; `source` names it in errors.
///
/// The header keys `type`, `height` and `width` may come in any order (blank lines are
/// skipped) before the `map` line; then come `height` rows of `width` characters. Each cell
/// keeps its character as terrain byte, and the grid's passable set is
/// [`TerrainSet::moving_ai`]. Trailing blank lines are ignored.
///
/// Nothing proportional to the claimed size is allocated before every row has been checked,
/// so a lying header costs an error, not memory.
///
/// # Errors
/// A [`MapError`] naming `source`, the line and, where it applies, the column: a missing
/// or malformed header key, an unsupported `type`, a size of zero or above
/// [`MAX_MAP_SIDE`]/[`MAX_MAP_CELLS`], too few or too many rows, a row of the wrong length,
/// or a character outside [`MAP_CHARACTERS`].
pub fn parse_map(text: &str, source: &str) -> Result<Grid, MapError> {
    let file = || source.to_string();
    let mut lines = lines(text);

    let mut ty: Option<(usize, String)> = None;
    let mut height: Option<u64> = None;
    let mut width: Option<u64> = None;
    // Where a missing `map` line should have been: the empty line after a final newline, or
    // the line after the last one.
    let mut end_line = 1;
    let map_line = loop {
        let Some((no, line)) = lines.next() else {
            return Err(MapError::Header {
                file: file(),
                line: end_line,
                message: "the file ends before the `map` line".into(),
            });
        };
        end_line = if line.is_empty() { no } else { no + 1 };
        let mut words = line.split_whitespace();
        let Some(key) = words.next() else { continue };
        let value = words.next();
        if let Some(extra) = words.next() {
            return Err(MapError::Header {
                file: file(),
                line: no,
                message: format!("unexpected {:?} after `{}`", excerpt(extra), excerpt(key)),
            });
        }
        let dup = |k: &str| MapError::Header {
            file: file(),
            line: no,
            message: format!("`{k}` is given twice"),
        };
        let number = |field: &'static str, v: Option<&str>| -> Result<u64, MapError> {
            let v = v.unwrap_or("");
            v.parse::<u64>().map_err(|_| MapError::BadNumber {
                file: file(),
                line: no,
                field,
                value: excerpt(v),
            })
        };
        match key {
            "type" => {
                if ty.is_some() {
                    return Err(dup(key));
                }
                let Some(v) = value else {
                    return Err(MapError::Header {
                        file: file(),
                        line: no,
                        message: "`type` needs a value".into(),
                    });
                };
                ty = Some((no, excerpt(v)));
            }
            "height" => {
                if height.replace(number("height", value)?).is_some() {
                    return Err(dup(key));
                }
            }
            "width" => {
                if width.replace(number("width", value)?).is_some() {
                    return Err(dup(key));
                }
            }
            "map" if value.is_none() => break no,
            _ => {
                return Err(MapError::Header {
                    file: file(),
                    line: no,
                    message: format!(
                        "expected `type`, `height`, `width` or `map`, found {:?}",
                        excerpt(line)
                    ),
                })
            }
        }
    };

    let missing = |key| MapError::MissingHeaderKey {
        file: file(),
        line: map_line,
        key,
    };
    let (ty_line, ty) = ty.ok_or_else(|| missing("type"))?;
    let height = height.ok_or_else(|| missing("height"))?;
    let width = width.ok_or_else(|| missing("width"))?;
    if ty != "octile" {
        return Err(MapError::UnsupportedType {
            file: file(),
            line: ty_line,
            found: ty,
        });
    }
    if width == 0 || height == 0 {
        return Err(MapError::Empty {
            file: file(),
            width,
            height,
        });
    }
    check_size(width, height, source)?;

    // First pass: check every row without allocating, so that the grid is only built for text
    // that really holds width × height cells.
    // Trailing blank lines (including the empty "line" after a final newline) are not rows.
    let mut rest: Vec<(usize, &str)> = lines.collect();
    while rest.last().is_some_and(|(_, l)| l.trim().is_empty()) {
        rest.pop();
    }
    let mut rows: Vec<&str> = Vec::new();
    for (no, line) in rest {
        if rows.len() as u64 == height {
            return Err(MapError::TooManyRows {
                file: file(),
                line: no,
                expected: height,
            });
        }
        check_row(no, line, width, source)?;
        rows.push(line);
    }
    if (rows.len() as u64) < height {
        let found = rows.len() as u64;
        return Err(MapError::TooFewRows {
            file: file(),
            line: map_line + rows.len() + 1,
            expected: height,
            found,
        });
    }

    // Checked above: `height` rows of `width` ASCII map characters.
    let codes = rows.iter().flat_map(|row| row.bytes()).collect();
    Ok(Grid::from_terrain(
        width as u32,
        height as u32,
        codes,
        TerrainSet::moving_ai(),
    ))
}

/// Checks one row of map characters: exactly `width` of them, each in [`MAP_CHARACTERS`].
/// `line` is its 1-based line in the file named `source`.
pub(super) fn check_row(line: usize, text: &str, width: u64, source: &str) -> Result<(), MapError> {
    let mut count: u64 = 0;
    for ch in text.chars() {
        count += 1;
        if count > width {
            break;
        }
        if !ch.is_ascii() || !MAP_CHARACTERS.contains(ch as u8) {
            return Err(MapError::UnknownChar {
                file: source.to_string(),
                line,
                column: count as usize,
                ch,
            });
        }
    }
    if count != width {
        let found = text.chars().count() as u64;
        return Err(MapError::RowLength {
            file: source.to_string(),
            line,
            column: (found.min(width) + 1) as usize,
            expected: width,
            found,
        });
    }
    Ok(())
}

/// Checks that a `width × height` map (or patch) of the file `source` is within
/// [`MAX_MAP_SIDE`] and [`MAX_MAP_CELLS`].
pub(super) fn check_size(width: u64, height: u64, source: &str) -> Result<(), MapError> {
    if width <= MAX_MAP_SIDE && height <= MAX_MAP_SIDE && width * height <= MAX_MAP_CELLS {
        return Ok(());
    }
    Err(MapError::TooLarge {
        file: source.to_string(),
        width,
        height,
        max_side: MAX_MAP_SIDE,
        max_cells: MAX_MAP_CELLS,
    })
}

/// The map character a cell is written as: its terrain byte when that is a map character
/// whose Moving AI passability agrees with the cell's, otherwise `.` or `@`. Grids built from
/// bitmaps, with other passable sets or edited by hand may carry any terrain byte; the file
/// must still read back with the same free cells.
///
/// An obstructed cell is blocked, so it is written as its terrain only when that is a
/// blocked character, else as `@`: the format has no layer for obstructions, so a building
/// on a road reads back as a wall, not as a road under a building.
fn cell_char(grid: &Grid, cell: Cell) -> u8 {
    let t = grid.terrain_code(cell);
    let free = grid.is_free(cell);
    if MAP_CHARACTERS.contains(t) && TerrainSet::moving_ai().contains(t) == free {
        t
    } else if free {
        b'.'
    } else {
        b'@'
    }
}

/// Writes a grid in the Moving AI `.map` format (LF line endings, final newline).
///
/// Every cell is written as a character of the same passability (see [`MAP_CHARACTERS`]),
/// so [`parse_map`] reads back a grid with the same free cells; one read from a `.map` file
/// and never edited reads back equal. Obstructed cells are written as blocked terrain (`@`
/// unless the terrain under them is a blocked character already).
pub fn write_map(grid: &Grid, mut out: impl Write) -> std::io::Result<()> {
    write!(
        out,
        "type octile\nheight {}\nwidth {}\nmap\n",
        grid.height(),
        grid.width()
    )?;
    let mut row = Vec::with_capacity(grid.width() as usize + 1);
    for y in 0..grid.height() {
        row.clear();
        row.extend((0..grid.width()).map(|x| cell_char(grid, Cell::new(x, y))));
        row.push(b'\n');
        out.write_all(&row)?;
    }
    Ok(())
}

/// Writes a grid to a `.map` file, flushed and synced to disk before it returns (see
/// [`OutputFile`]).
///
/// # Errors
/// [`MapError::Io`] when the file cannot be created or written, a full disk included.
pub fn save_map(grid: &Grid, path: impl AsRef<Path>) -> Result<(), MapError> {
    let mut out = OutputFile::create(path)?;
    write_map(grid, &mut out).map_err(|e| out.error(e))?;
    out.finish()
}

impl Grid {
    /// The grid as the text of a Moving AI `.map` file (see [`write_map`]).
    pub fn to_map_string(&self) -> String {
        let mut v = Vec::new();
        write_map(self, &mut v).expect("writing to a Vec cannot fail");
        String::from_utf8(v).expect("map characters are ASCII")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_in_any_order_and_terrain_kept() {
        let g = parse_map("width 3\n\ntype octile\nheight 2\nmap\n.GS\n@TW", "t").unwrap();
        assert_eq!((g.width(), g.height()), (3, 2));
        assert!(
            g.is_free(Cell::new(1, 0)) && g.is_free(Cell::new(2, 0)) && !g.is_free(Cell::new(1, 1))
        );
        assert_eq!(g.terrain(Cell::new(2, 1)), b'W');
        assert_eq!(
            g.to_map_string(),
            "type octile\nheight 2\nwidth 3\nmap\n.GS\n@TW\n"
        );
    }

    #[test]
    fn obstructions_are_written_as_walls() {
        let mut g = parse_map("type octile\nheight 1\nwidth 4\nmap\nGGTT\n", "t").unwrap();
        g.set_blocked(Cell::new(1, 0), true);
        g.set_blocked(Cell::new(2, 0), true);
        assert_eq!(g.to_map_string().lines().last(), Some("G@TT"));
        let back = parse_map(&g.to_map_string(), "back").unwrap();
        assert_eq!(back.free_cells().collect::<Vec<_>>(), vec![Cell::new(0, 0)]);
        // Unblocked, the road under the building comes back; a tree unblocked is cut down.
        g.set_blocked(Cell::new(1, 0), false);
        g.set_blocked(Cell::new(2, 0), false);
        assert_eq!(g.to_map_string().lines().last(), Some("GG.T"));
    }

    #[test]
    fn errors_point_at_the_right_place() {
        let e = parse_map("type octile\nheight 2\nwidth 3\nmap\n...\n.x.\n", "f").unwrap_err();
        assert!(
            matches!(
                e,
                MapError::UnknownChar {
                    line: 6,
                    column: 2,
                    ch: 'x',
                    ..
                }
            ),
            "{e:?}"
        );
        let e = parse_map("type octile\nheight 2\nwidth 3\nmap\n...\n", "f").unwrap_err();
        assert!(
            matches!(
                e,
                MapError::TooFewRows {
                    line: 6,
                    expected: 2,
                    found: 1,
                    ..
                }
            ),
            "{e:?}"
        );
    }
}
