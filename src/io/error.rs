//! The one error type of the I/O layer.

use std::path::Path;

/// Everything that can go wrong while reading or writing maps, scenarios and images.
///
/// Every variant carries `file`, the name of the input as the user would recognise it (a path,
/// or the source name passed to a `parse_*` function), so that the [`Display`](std::fmt::Display)
/// text alone is enough to find the problem. Text quoted from the input (a header line, a
/// number field, a legend entry) is cut to its first [`MapError::EXCERPT_CHARS`] characters
/// and `…`, so that a corrupt file's 50 MB first line does not become a 50 MB message. Lines and columns are 1-based, columns count
/// characters; pixels are 0-based `(x, y)` like cells. The image variants (`Decode`, `Encode`,
/// `UnknownColor`, `Legend`, `LegendCost`, `LegendConflict`) exist only with the `image`
/// feature.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MapError {
    /// The file could not be opened, read or written.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },

    /// A header line of a `.map` file is not `type …`, `height …`, `width …` or `map`, or a
    /// key appears twice, or the file ends before the `map` line.
    #[error("{file}:{line}: bad map header: {message}")]
    Header {
        /// The file.
        file: String,
        /// Line of the offending header line (or one past the end of the file).
        line: usize,
        /// What is wrong.
        message: String,
    },

    /// The header reaches `map` without one of the required keys.
    #[error("{file}:{line}: map header has no `{key}` line")]
    MissingHeaderKey {
        /// The file.
        file: String,
        /// Line of the `map` line.
        line: usize,
        /// `type`, `height` or `width`.
        key: &'static str,
    },

    /// The header's `type` is not `octile`, the only grid type this crate understands.
    #[error("{file}:{line}: map type is `{found}`, only `octile` is supported")]
    UnsupportedType {
        /// The file.
        file: String,
        /// Line of the `type` line.
        line: usize,
        /// The type given.
        found: String,
    },

    /// A map or image with no cells.
    #[error("{file}: the map is empty ({width}×{height})")]
    Empty {
        /// The file.
        file: String,
        /// Width as given.
        width: u64,
        /// Height as given.
        height: u64,
    },

    /// A map or image larger than this crate agrees to allocate.
    #[error(
        "{file}: {width}×{height} is too large (at most {max_side} per side and {max_cells} cells)"
    )]
    TooLarge {
        /// The file.
        file: String,
        /// Width as given.
        width: u64,
        /// Height as given.
        height: u64,
        /// Largest accepted side.
        max_side: u64,
        /// Largest accepted number of cells.
        max_cells: u64,
    },

    /// The file ends before the number of rows the header promised.
    #[error("{file}:{line}: the header says {expected} rows but the map has only {found}")]
    TooFewRows {
        /// The file.
        file: String,
        /// Line where the first missing row should have been.
        line: usize,
        /// Rows promised.
        expected: u64,
        /// Rows found.
        found: u64,
    },

    /// Non-empty lines follow the last row the header promised.
    #[error("{file}:{line}: the header says {expected} rows but the map has more")]
    TooManyRows {
        /// The file.
        file: String,
        /// Line of the first surplus row.
        line: usize,
        /// Rows promised.
        expected: u64,
    },

    /// A row shorter or longer than the header's width.
    #[error("{file}:{line}:{column}: row has {found} cells, the header says width {expected}")]
    RowLength {
        /// The file.
        file: String,
        /// Line of the row.
        line: usize,
        /// First column that is missing (short row) or surplus (long row).
        column: usize,
        /// Width promised.
        expected: u64,
        /// Cells found.
        found: u64,
    },

    /// A map character outside `. G S @ O T W`.
    #[error("{file}:{line}:{column}: unknown map character {ch:?}")]
    UnknownChar {
        /// The file.
        file: String,
        /// Line.
        line: usize,
        /// Column.
        column: usize,
        /// The character.
        ch: char,
    },

    /// A scenario file that does not start with the version line its reader expects.
    #[error("{file}:{line}: expected {expected}, found {found:?}")]
    ScenVersion {
        /// The file.
        file: String,
        /// Line of the offending text.
        line: usize,
        /// The versions accepted, e.g. `` `version 1` or `version 1.0` ``.
        expected: &'static str,
        /// What was there instead.
        found: String,
    },

    /// A header line of a dynamic (`version 2`) scenario file that is wrong: an unknown or
    /// repeated key, a bad value, or a required key missing before `commands`.
    #[error("{file}:{line}: bad scenario header: {message}")]
    ScenHeader {
        /// The file.
        file: String,
        /// Line of the offending header line (or of `commands`, for a missing key).
        line: usize,
        /// What is wrong.
        message: String,
    },

    /// A dynamic scenario whose `cost` line does not list `octile`, the cost model (8
    /// directions, diagonal √2, no corner cutting) that quadpath's lengths follow.
    #[error("{file}:{line}: the scenario gives costs for {models}, not `octile`, the model quadpath's lengths follow")]
    NoOctileCost {
        /// The file.
        file: String,
        /// Line of the `cost` line.
        line: usize,
        /// The models listed, space-separated.
        models: String,
    },

    /// A command line of a dynamic scenario that is not `Q bucket sx sy gx gy cost…` or
    /// `P bucket id x y`.
    #[error("{file}:{line}: bad command: {message}")]
    Command {
        /// The file.
        file: String,
        /// Line.
        line: usize,
        /// What is wrong.
        message: String,
    },

    /// A header line of a patch file that is wrong: not `type patch`, `patches N`, or a
    /// patch's `height`, `width` and `map` lines; or the file ends before its last patch.
    #[error("{file}:{line}: bad patch file: {message}")]
    PatchHeader {
        /// The patch file.
        file: String,
        /// Line.
        line: usize,
        /// What is wrong.
        message: String,
    },

    /// A patch out of order: patch `i` must be the `i`-th, counting from 0.
    #[error("{file}:{line}: expected `patch {expected}`, found `patch {found}`: patches must be numbered 0, 1, 2, … in order")]
    PatchOrder {
        /// The patch file.
        file: String,
        /// Line of the `patch` line.
        line: usize,
        /// The number it should have.
        expected: usize,
        /// The number it has.
        found: String,
    },

    /// A `P` command naming a patch its patch file does not have.
    #[error("{file}:{line}: patch {id} does not exist: {patch_file} has {count} patches")]
    UnknownPatch {
        /// The scenario file.
        file: String,
        /// Line of the command.
        line: usize,
        /// The patch asked for.
        id: u64,
        /// How many patches there are.
        count: usize,
        /// The patch file.
        patch_file: String,
    },

    /// A `P` command placing a patch where it does not fit on the map.
    #[error("{file}:{line}: patch {id} ({patch_width}×{patch_height}) placed at ({x},{y}) reaches outside the {width}×{height} map")]
    PatchOutside {
        /// The scenario file.
        file: String,
        /// Line of the command.
        line: usize,
        /// The patch.
        id: u64,
        /// Column of its top-left cell.
        x: u32,
        /// Row of its top-left cell.
        y: u32,
        /// Its width.
        patch_width: u32,
        /// Its height.
        patch_height: u32,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },

    /// A scenario line without exactly 9 fields.
    #[error("{file}:{line}: a scenario line has 9 fields, this one has {found}")]
    FieldCount {
        /// The file.
        file: String,
        /// Line.
        line: usize,
        /// Fields found.
        found: usize,
    },

    /// A number field (of a scenario line or a map header) that does not parse.
    #[error("{file}:{line}: {field} is not a valid number: {value:?}")]
    BadNumber {
        /// The file.
        file: String,
        /// Line.
        line: usize,
        /// Name of the field, e.g. `start x` or `optimal length`.
        field: &'static str,
        /// The text found.
        value: String,
    },

    /// A scenario start or goal outside the map.
    #[error("{file}:{line}: {what} ({x},{y}) is outside the {width}×{height} map")]
    PointOutside {
        /// The file.
        file: String,
        /// Line.
        line: usize,
        /// `start` or `goal`.
        what: &'static str,
        /// Column of the point.
        x: u32,
        /// Row of the point.
        y: u32,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },

    /// A scenario start or goal on a blocked cell of the map it was checked against.
    #[error("{file}:{line}: {what} ({x},{y}) is a blocked cell")]
    PointBlocked {
        /// The file.
        file: String,
        /// Line.
        line: usize,
        /// `start` or `goal`.
        what: &'static str,
        /// Column of the point.
        x: u32,
        /// Row of the point.
        y: u32,
    },

    /// A scenario line whose map size disagrees with the map it was checked against.
    #[error("{file}:{line}: the scenario says the map is {scen_width}×{scen_height}, it is {map_width}×{map_height}")]
    DimensionMismatch {
        /// The file.
        file: String,
        /// Line.
        line: usize,
        /// Width in the scenario.
        scen_width: u32,
        /// Height in the scenario.
        scen_height: u32,
        /// Width of the map.
        map_width: u32,
        /// Height of the map.
        map_height: u32,
    },

    #[cfg(feature = "image")]
    /// An image the decoder rejected (unknown format, corrupt data, over the decoder limits).
    #[error("{file}: cannot decode image: {source}")]
    Decode {
        /// The file.
        file: String,
        /// The decoder's error.
        #[source]
        source: image::ImageError,
    },

    #[cfg(feature = "image")]
    /// An image the encoder could not write.
    #[error("{file}: cannot write image: {source}")]
    Encode {
        /// The file.
        file: String,
        /// The encoder's error.
        #[source]
        source: image::ImageError,
    },

    #[cfg(feature = "image")]
    /// A pixel whose colour a strict legend does not list.
    #[error("{file}: pixel ({x},{y}) has colour #{:02x}{:02x}{:02x}, which the legend does not list", rgb[0], rgb[1], rgb[2])]
    UnknownColor {
        /// The file.
        file: String,
        /// Pixel column.
        x: u32,
        /// Pixel row.
        y: u32,
        /// The colour.
        rgb: [u8; 3],
    },

    #[cfg(feature = "image")]
    /// A colour legend string that does not parse.
    #[error("{file}: legend entry {entry} (column {column}) {text:?}: {message}")]
    Legend {
        /// Where the legend came from (e.g. `--legend`).
        file: String,
        /// 1-based index of the comma-separated entry.
        entry: usize,
        /// 1-based character column of the entry in the legend string.
        column: usize,
        /// The entry's text.
        text: String,
        /// What is wrong.
        message: String,
    },

    #[cfg(feature = "image")]
    /// A terrain cost in a colour legend that is refused: not a finite number in
    /// [`TerrainCosts::MIN`]`..=`[`TerrainCosts::MAX`] (zero, negative, NaN, infinite), a
    /// cost on a code the legend marks blocked, or more distinct costs than a table holds.
    /// `source` says which.
    ///
    /// [`TerrainCosts::MIN`]: crate::TerrainCosts::MIN
    /// [`TerrainCosts::MAX`]: crate::TerrainCosts::MAX
    #[error(
        "{file}: legend {}: {source}",
        match entry {
            Some(entry) => format!("entry {entry} {text:?}"),
            None => format!("costs {text:?}"),
        }
    )]
    LegendCost {
        /// Where the legend came from (e.g. `--legend`), or the image it was applied to.
        file: String,
        /// 1-based index of the entry that gives the cost, or `None` for a cost set in code
        /// on [`ColorLegend::costs`](super::ColorLegend::costs) that no entry gives.
        entry: Option<usize>,
        /// The entry's text, or the legend's costs as `CODE=COST` entries when `entry` is
        /// `None`.
        text: String,
        /// What is wrong with the cost.
        #[source]
        source: crate::CostError,
    },

    #[cfg(feature = "image")]
    /// A colour legend that gives one terrain code both passabilities: two entries
    /// disagree, or an entry disagrees with the codes the image rules write (`@` blocked for
    /// transparent pixels, and `.` free and `@` blocked for the luminance rule unless the
    /// legend is strict). A grid has one passable set, so a code cannot be both.
    #[error(
        "{file}: legend entry {entry} marks terrain '{terrain}' {}, but {}",
        if *free { "free" } else { "blocked" },
        match conflicts_with {
            Some(other) => format!("entry {other} marks it {}", if *free { "blocked" } else { "free" }),
            None => format!("the image rules need it {}", if *free { "blocked" } else { "free" }),
        }
    )]
    LegendConflict {
        /// The image the legend was applied to.
        file: String,
        /// 1-based index of the entry that contradicts an earlier one or the image rules.
        entry: usize,
        /// The terrain.
        terrain: crate::grid::Terrain,
        /// Whether the entry marks it free.
        free: bool,
        /// The 1-based index of the earlier entry it contradicts, or `None` when it
        /// contradicts the image rules.
        conflicts_with: Option<usize>,
    },
}

impl MapError {
    /// The longest piece of input, in characters, quoted in an error; longer text is cut and
    /// ends in `…`.
    pub const EXCERPT_CHARS: usize = 60;

    /// The file or source name the error is about.
    pub fn file(&self) -> &str {
        use MapError::*;
        match self {
            Io { file, .. }
            | Header { file, .. }
            | MissingHeaderKey { file, .. }
            | UnsupportedType { file, .. }
            | Empty { file, .. }
            | TooLarge { file, .. }
            | TooFewRows { file, .. }
            | TooManyRows { file, .. }
            | RowLength { file, .. }
            | UnknownChar { file, .. }
            | ScenVersion { file, .. }
            | ScenHeader { file, .. }
            | NoOctileCost { file, .. }
            | Command { file, .. }
            | PatchHeader { file, .. }
            | PatchOrder { file, .. }
            | UnknownPatch { file, .. }
            | PatchOutside { file, .. }
            | FieldCount { file, .. }
            | BadNumber { file, .. }
            | PointOutside { file, .. }
            | PointBlocked { file, .. }
            | DimensionMismatch { file, .. } => file,
            #[cfg(feature = "image")]
            Decode { file, .. }
            | Encode { file, .. }
            | UnknownColor { file, .. }
            | Legend { file, .. }
            | LegendCost { file, .. }
            | LegendConflict { file, .. } => file,
        }
    }

    /// The 1-based line the error points at, for the text formats.
    pub fn line(&self) -> Option<usize> {
        use MapError::*;
        match self {
            Header { line, .. }
            | MissingHeaderKey { line, .. }
            | UnsupportedType { line, .. }
            | TooFewRows { line, .. }
            | TooManyRows { line, .. }
            | RowLength { line, .. }
            | UnknownChar { line, .. }
            | ScenVersion { line, .. }
            | ScenHeader { line, .. }
            | NoOctileCost { line, .. }
            | Command { line, .. }
            | PatchHeader { line, .. }
            | PatchOrder { line, .. }
            | UnknownPatch { line, .. }
            | PatchOutside { line, .. }
            | FieldCount { line, .. }
            | BadNumber { line, .. }
            | PointOutside { line, .. }
            | PointBlocked { line, .. }
            | DimensionMismatch { line, .. } => Some(*line),
            _ => None,
        }
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        MapError::Io {
            file: display_name(path),
            source,
        }
    }
}

/// Input text as quoted in an error: whole when short, else its first
/// [`MapError::EXCERPT_CHARS`] characters and `…`.
pub(crate) fn excerpt(text: &str) -> String {
    match text.char_indices().nth(MapError::EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// How a path is named in error messages.
pub(crate) fn display_name(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_cut_on_characters() {
        assert_eq!(excerpt("short"), "short");
        let exact = "é".repeat(MapError::EXCERPT_CHARS);
        assert_eq!(excerpt(&exact), exact);
        let long = "é".repeat(MapError::EXCERPT_CHARS + 1);
        assert_eq!(excerpt(&long), format!("{exact}…"));
    }
}
