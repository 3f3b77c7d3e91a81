//! Terrain costs: what one unit of step length costs on each terrain code.
//!
//! The model is stated once, on [`Movement`](super::Movement#the-model); this module holds
//! the table and its checks, and the text form `G=0.5,S=3` the command line and the bitmap
//! legends read.

use super::movement::{octile, TerrainSet};
use super::{Grid, Terrain};
use crate::geom::Cell;
use std::fmt;
use std::str::FromStr;

/// Why a terrain cost, or a list of them, was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CostError {
    /// A cost that is not a finite number in
    /// [`TerrainCosts::MIN`]`..=`[`TerrainCosts::MAX`]: zero, negative, NaN, infinite,
    /// or too small or too large to keep distances meaningful.
    #[error("terrain '{terrain}' cannot cost {cost}: costs must be finite, from {min} to {max}")]
    OutOfRange {
        /// The terrain.
        terrain: Terrain,
        /// The cost asked for.
        cost: f32,
        /// The smallest cost accepted.
        min: f32,
        /// The largest cost accepted.
        max: f32,
    },
    /// A cost for a terrain code the movement class cannot stand on.
    #[error("terrain '{terrain}' is not passable for this movement class, so it has no cost")]
    Impassable {
        /// The terrain.
        terrain: Terrain,
    },
    /// More distinct costs than a search layer can tell apart: every distinct cost is a
    /// band of its own in the quadtree, and a cell's band is one byte (one value is
    /// "blocked").
    #[error("{count} distinct terrain costs are too many: at most {max} are supported")]
    TooManyCosts {
        /// Distinct costs asked for.
        count: usize,
        /// The most supported.
        max: usize,
    },
    /// An entry of a cost list (`CODE=COST,...`) that does not read.
    #[error("cost entry {index} ({entry:?}) {reason}")]
    Syntax {
        /// Its position in the list, from 1.
        index: usize,
        /// The entry as written.
        entry: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A cost list that names one code twice: which cost was meant is unclear.
    #[error("cost entry {index} gives terrain '{terrain}' a cost again (entry {first} did)")]
    Repeated {
        /// The terrain.
        terrain: Terrain,
        /// The entry that named it first, from 1.
        first: usize,
        /// The entry that named it again, from 1.
        index: usize,
    },
    /// An empty cost list where one was asked for (see [`TerrainCosts::parse_for`]).
    #[error("the cost list is empty")]
    EmptyList,
}

/// A cost per [`Terrain`], per unit of step length: the weights of the
/// [terrain-cost model](super::Movement#the-model). Every code costs 1 unless set.
///
/// It reads and prints as a list of `CODE=COST` entries separated by commas, the form the
/// command line's `--costs` takes:
///
/// ```
/// use quadpath::TerrainCosts;
///
/// let costs: TerrainCosts = "G=0.5,S=3".parse()?;
/// assert_eq!((costs.get(b'G'), costs.get(b'S'), costs.get(b'.')), (0.5, 3.0, 1.0));
/// assert_eq!(costs.to_string(), "G=0.5,S=3");
/// assert_eq!(costs, TerrainCosts::unit().with(b'S', 3.0)?.with(b'G', 0.5)?);
/// assert!("S=0".parse::<TerrainCosts>().is_err(), "no ground is free to cross");
/// # Ok::<(), quadpath::CostError>(())
/// ```
#[derive(Clone, Default)]
pub struct TerrainCosts {
    /// `None` while every code costs 1, the common case: a unit table costs nothing.
    table: Option<Box<[f32; 256]>>,
}

impl TerrainCosts {
    /// The smallest cost accepted: a road may be fast, but no ground is free to cross.
    pub const MIN: f32 = 1.0 / 64.0;
    /// The largest cost accepted.
    pub const MAX: f32 = 1.0e6;
    /// The most distinct costs a table may hold (counting the default 1).
    pub const MAX_DISTINCT: usize = 255;

    /// Every code at cost 1: the plain octile model.
    pub fn unit() -> Self {
        TerrainCosts { table: None }
    }

    /// This table with `terrain` costing `cost`.
    ///
    /// # Errors
    /// [`CostError::OutOfRange`] for a cost that is not finite or lies outside
    /// [`TerrainCosts::MIN`]`..=`[`TerrainCosts::MAX`], and [`CostError::TooManyCosts`]
    /// when the table would hold more than [`TerrainCosts::MAX_DISTINCT`] distinct costs.
    ///
    /// ```
    /// use quadpath::{CostError, Terrain, TerrainCosts};
    /// let roads = TerrainCosts::unit().with(b'G', 0.5)?;
    /// assert_eq!(roads.min_over(&quadpath::TerrainSet::moving_ai()), 0.5);
    /// assert!(matches!(
    ///     roads.with(Terrain::SWAMP, f32::NAN),
    ///     Err(CostError::OutOfRange { terrain: Terrain::SWAMP, .. })
    /// ));
    /// # Ok::<(), CostError>(())
    /// ```
    pub fn with(mut self, terrain: impl Into<Terrain>, cost: f32) -> Result<Self, CostError> {
        let terrain = terrain.into();
        if !(Self::MIN..=Self::MAX).contains(&cost) {
            return Err(CostError::OutOfRange {
                terrain,
                cost,
                min: Self::MIN,
                max: Self::MAX,
            });
        }
        let table = self.table.get_or_insert_with(|| Box::new([1.0; 256]));
        table[terrain.code() as usize] = cost;
        let count = self.distinct().len();
        if count > Self::MAX_DISTINCT {
            return Err(CostError::TooManyCosts {
                count,
                max: Self::MAX_DISTINCT,
            });
        }
        if self.is_unit() {
            self.table = None;
        }
        Ok(self)
    }

    /// The cost of `terrain` per unit of step length.
    #[inline]
    pub fn get(&self, terrain: impl Into<Terrain>) -> f32 {
        let code = terrain.into().code();
        self.table.as_ref().map_or(1.0, |t| t[code as usize])
    }

    /// Whether every code costs 1.
    pub fn is_unit(&self) -> bool {
        self.table
            .as_ref()
            .map_or(true, |t| t.iter().all(|&c| c == 1.0))
    }

    /// The terrains whose cost is not 1, with their costs, in increasing code order.
    pub fn iter(&self) -> impl Iterator<Item = (Terrain, f32)> + '_ {
        (0..=u8::MAX)
            .map(|code| (Terrain(code), self.get(code)))
            .filter(|&(_, cost)| cost != 1.0)
    }

    /// The smallest cost among the codes of `passable` (1 when it is empty): the factor
    /// that keeps the octile heuristic a lower bound.
    pub fn min_over(&self, passable: &TerrainSet) -> f32 {
        passable
            .iter()
            .map(|code| self.get(code))
            .reduce(f32::min)
            .unwrap_or(1.0)
    }

    /// Checks that every code with a cost other than 1 is in `passable`.
    ///
    /// # Errors
    /// [`CostError::Impassable`] for the first code that is not.
    pub fn check_passable(&self, passable: &TerrainSet) -> Result<(), CostError> {
        match self
            .iter()
            .find(|&(terrain, _)| !passable.contains(terrain))
        {
            Some((terrain, _)) => Err(CostError::Impassable { terrain }),
            None => Ok(()),
        }
    }

    /// The cost of cell `c` of `grid` for a 1×1 agent: its terrain's cost.
    #[inline]
    pub fn cell_cost(&self, grid: &Grid, c: Cell) -> f64 {
        self.get(grid.terrain(c)) as f64
    }

    /// The cost of the single step from `a` to the neighbouring cell `b` for a 1×1 agent
    /// on `grid`: its length (1 or √2) times the mean of both cells' costs.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, TerrainCosts};
    /// let mut grid = Grid::new_free(2, 2);
    /// grid.set_terrain(Cell::new(1, 1), b'S');
    /// let costs: TerrainCosts = "S=3".parse()?;
    /// let diagonal = costs.cost_between(&grid, Cell::new(0, 0), Cell::new(1, 1));
    /// assert_eq!(diagonal, std::f64::consts::SQRT_2 * 2.0);
    /// # Ok::<(), quadpath::CostError>(())
    /// ```
    #[inline]
    pub fn cost_between(&self, grid: &Grid, a: Cell, b: Cell) -> f64 {
        debug_assert!(a.x.abs_diff(b.x) <= 1 && a.y.abs_diff(b.y) <= 1);
        let length = octile(a, b);
        if self.table.is_none() {
            return length;
        }
        length * (self.cell_cost(grid, a) + self.cell_cost(grid, b)) / 2.0
    }

    /// The distinct costs of the table, in increasing order (1 among them unless every
    /// code is set to something else).
    pub(crate) fn distinct(&self) -> Vec<f32> {
        let mut values: Vec<f32> = match &self.table {
            Some(t) => t.to_vec(),
            None => vec![1.0],
        };
        values.sort_unstable_by(f32::total_cmp);
        values.dedup();
        values
    }

    /// This table without the codes outside `passable` (they go back to 1).
    pub(crate) fn restricted_to(mut self, passable: &TerrainSet) -> Self {
        if let Some(t) = &mut self.table {
            for code in 0..=u8::MAX {
                if !passable.contains(code) {
                    t[code as usize] = 1.0;
                }
            }
        }
        if self.is_unit() {
            self.table = None;
        }
        self
    }
}

/// Equal when every code costs the same (bits compared: costs are finite, so this is a
/// total equality and tables can key a cache).
impl PartialEq for TerrainCosts {
    fn eq(&self, other: &Self) -> bool {
        (0..=u8::MAX).all(|c| self.get(c).to_bits() == other.get(c).to_bits())
    }
}

impl Eq for TerrainCosts {}

impl std::hash::Hash for TerrainCosts {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for (code, cost) in self.iter() {
            (code, cost.to_bits()).hash(state);
        }
    }
}

/// `G=0.5,S=3`: the codes whose cost is not 1, in code order; empty for a unit table.
/// Codes that are not printable ASCII are written `\xNN`, which [`FromStr`] reads back.
impl fmt::Display for TerrainCosts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (terrain, cost)) in self.iter().enumerate() {
            let code = terrain.code();
            if i > 0 {
                f.write_str(",")?;
            }
            if code.is_ascii_graphic() && code != b',' && code != b'=' && code != b'\\' {
                write!(f, "{}={cost}", code as char)?;
            } else {
                write!(f, "\\x{code:02x}={cost}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for TerrainCosts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TerrainCosts({self})")
    }
}

/// Reads `CODE=COST` entries separated by commas (spaces around them are ignored): `CODE`
/// is one printable ASCII character or `\xNN`, `COST` a decimal number. An empty string is
/// the unit table. A code given twice is an error ([`CostError::Repeated`]).
impl FromStr for TerrainCosts {
    type Err = CostError;

    fn from_str(text: &str) -> Result<Self, CostError> {
        if text.trim().is_empty() {
            return Ok(TerrainCosts::unit());
        }
        TerrainCosts::from_entries(&parse_entries(text)?)
    }
}

impl TerrainCosts {
    /// Reads a cost list for a movement class standing on `passable` as a user-facing
    /// option should: like [`FromStr`], but an empty list is an error, and so is every
    /// code the class cannot stand on, whatever its cost (`W=1` names water as surely as
    /// `W=2` does, and for a class that cannot enter water both are mistakes).
    ///
    /// ```
    /// use quadpath::{CostError, Terrain, TerrainCosts, TerrainSet};
    /// let land = TerrainSet::moving_ai();
    /// assert_eq!(TerrainCosts::parse_for("G=0.5,S=3", &land)?, "G=0.5,S=3".parse()?);
    /// let water = Terrain(b'W');
    /// assert_eq!(TerrainCosts::parse_for("W=1", &land), Err(CostError::Impassable { terrain: water }));
    /// assert_eq!(TerrainCosts::parse_for(" ", &land), Err(CostError::EmptyList));
    /// let repeated = TerrainCosts::parse_for("G=1,G=3", &land);
    /// assert!(matches!(repeated, Err(CostError::Repeated { first: 1, index: 2, .. })));
    /// # Ok::<(), CostError>(())
    /// ```
    ///
    /// # Errors
    /// [`CostError::EmptyList`] for a blank list, [`CostError::Impassable`] for the first
    /// code outside `passable`, and every error [`FromStr`] gives.
    pub fn parse_for(text: &str, passable: &TerrainSet) -> Result<Self, CostError> {
        if text.trim().is_empty() {
            return Err(CostError::EmptyList);
        }
        let entries = parse_entries(text)?;
        if let Some(&(code, _)) = entries.iter().find(|&&(code, _)| !passable.contains(code)) {
            return Err(CostError::Impassable {
                terrain: Terrain(code),
            });
        }
        TerrainCosts::from_entries(&entries)
    }

    /// The unit table with each `(code, cost)` set, in order.
    fn from_entries(entries: &[(u8, f32)]) -> Result<Self, CostError> {
        entries
            .iter()
            .try_fold(TerrainCosts::unit(), |costs, &(code, cost)| {
                costs.with(code, cost)
            })
    }
}

/// The entries of a non-empty cost list, in order, each code once.
fn parse_entries(text: &str) -> Result<Vec<(u8, f32)>, CostError> {
    let mut entries: Vec<(u8, f32)> = Vec::new();
    for (i, entry) in text.split(',').enumerate() {
        let syntax = |reason| CostError::Syntax {
            index: i + 1,
            entry: entry.to_string(),
            reason,
        };
        let (code, cost) = entry
            .trim()
            .split_once('=')
            .ok_or_else(|| syntax("is not CODE=COST"))?;
        let code = parse_code(code.trim()).ok_or_else(|| {
            syntax("does not name one terrain code (a printable character or \\xNN)")
        })?;
        let cost: f32 = cost
            .trim()
            .parse()
            .map_err(|_| syntax("has a cost that is not a number"))?;
        if let Some(first) = entries.iter().position(|&(c, _)| c == code) {
            return Err(CostError::Repeated {
                terrain: Terrain(code),
                first: first + 1,
                index: i + 1,
            });
        }
        entries.push((code, cost));
    }
    Ok(entries)
}

/// One terrain code as written in a cost list: a printable ASCII character, or `\xNN`.
fn parse_code(text: &str) -> Option<u8> {
    match text.as_bytes() {
        [c] if c.is_ascii_graphic() => Some(*c),
        [b'\\', b'x', hex @ ..] if hex.len() == 2 => {
            u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bad_costs_are_refused() {
        for bad in [
            0.0,
            -1.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1.0 / 128.0,
            2.0e6,
        ] {
            assert!(
                matches!(
                    TerrainCosts::unit().with(b'S', bad),
                    Err(CostError::OutOfRange {
                        terrain: Terrain(b'S'),
                        ..
                    })
                ),
                "{bad}"
            );
        }
        let set = TerrainSet::moving_ai();
        let wet = TerrainCosts::unit().with(b'W', 2.0).unwrap();
        assert_eq!(
            wet.check_passable(&set),
            Err(CostError::Impassable {
                terrain: Terrain(b'W')
            })
        );
        assert!(wet.restricted_to(&set).is_unit());
    }

    #[test]
    fn at_most_255_distinct_costs() {
        let mut costs = TerrainCosts::unit();
        for code in 0..254u8 {
            costs = costs.with(code, 2.0 + code as f32).unwrap();
        }
        assert_eq!(
            costs.distinct().len(),
            255,
            "254 set codes and the default 1"
        );
        assert!(matches!(
            costs.clone().with(254, 1000.0),
            Err(CostError::TooManyCosts {
                count: 256,
                max: 255
            })
        ));
        // Setting a code to a cost already present is fine.
        assert!(costs.with(254, 2.0).is_ok());
    }

    #[test]
    fn syntax_errors_name_the_entry() {
        for (text, index) in [
            ("G", 1),
            ("G=0.5,S", 2),
            ("GG=1", 1),
            ("G=fast", 1),
            ("G=0.5,=2", 2),
            ("\\xZZ=2", 1),
        ] {
            match text.parse::<TerrainCosts>() {
                Err(CostError::Syntax { index: i, .. }) => assert_eq!(i, index, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(matches!(
            "G=-1".parse::<TerrainCosts>(),
            Err(CostError::OutOfRange {
                terrain: Terrain(b'G'),
                ..
            })
        ));
        assert!(" ".parse::<TerrainCosts>().unwrap().is_unit());
        assert_eq!(
            " G = 0.25 , \\x01=4 "
                .parse::<TerrainCosts>()
                .unwrap()
                .to_string(),
            "\\x01=4,G=0.25"
        );
    }

    proptest! {
        #[test]
        fn text_round_trips(entries in prop::collection::vec((any::<u8>(), 1u32..=4096), 0..12)) {
            let mut costs = TerrainCosts::unit();
            for (code, cost) in entries {
                costs = costs.with(code, cost as f32 / 64.0).unwrap();
            }
            let back: TerrainCosts = costs.to_string().parse().unwrap();
            prop_assert_eq!(back, costs);
        }
    }
}
