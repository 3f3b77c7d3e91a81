//! A read-only view of which cells of a [`UnitIndex`] hold units, for viewers and
//! debugging.

use super::layout::Layout;
use super::{Aabb, UnitIndex};

/// A cell of a unit index that holds units (see [`UnitIndex::occupied_cells`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct OccupiedCell {
    /// The layout's number for the cell.
    pub cell: u32,
    /// Its area: where the centres of the boxes filed there lie (their boxes may reach
    /// out of it, by at most half their size).
    pub area: Aabb,
    /// How many units are filed there.
    pub units: usize,
}

impl<L: Layout> UnitIndex<L> {
    /// Every cell holding at least one unit, in cell order, with its area and how many
    /// units it holds. The counts add up to [`UnitIndex::len`].
    ///
    /// ```
    /// use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
    /// let mut index = UnitIndex::new(LooseQuadtree::new(64.0, 64.0).with_finest_cell(8.0))?;
    /// index.insert(Aabb::from_centre(3.0, 3.0, 1.0, 1.0))?;
    /// index.insert(Aabb::from_centre(5.0, 4.0, 1.0, 1.0))?;
    /// index.insert(Aabb::from_centre(40.0, 40.0, 1.0, 1.0))?;
    /// let cells = index.occupied_cells();
    /// assert_eq!(cells.iter().map(|c| c.units).sum::<usize>(), index.len());
    /// // The two small units side by side share a finest cell, 8 wide.
    /// assert!(cells.iter().any(|c| c.units == 2 && c.area.width() == 8.0));
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn occupied_cells(&self) -> Vec<OccupiedCell> {
        let mut counts: Vec<(u32, usize)> = Vec::new();
        let mut cells: Vec<u32> = self.store.slots.iter().map(|s| s.cell).collect();
        cells.sort_unstable();
        for cell in cells {
            match counts.last_mut() {
                Some((c, n)) if *c == cell => *n += 1,
                _ => counts.push((cell, 1)),
            }
        }
        counts
            .into_iter()
            .map(|(cell, units)| OccupiedCell {
                cell,
                area: self.layout.cell_area(cell),
                units,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LooseGrid, LooseQuadtree};
    use super::*;

    /// Every unit's centre lies in the area of the cell it is filed under, which is listed,
    /// and the counts add up.
    fn check<L: Layout>(layout: L) {
        let mut index = UnitIndex::new(layout).unwrap();
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 40) as f32 / (1u64 << 24) as f32
        };
        for _ in 0..300 {
            let half = 0.5 + 6.0 * next() * next();
            let (x, y) = (
                half + (100.0 - 2.0 * half) * next(),
                half + (80.0 - 2.0 * half) * next(),
            );
            index.insert(Aabb::from_centre(x, y, half, half)).unwrap();
        }
        let cells = index.occupied_cells();
        assert_eq!(cells.iter().map(|c| c.units).sum::<usize>(), index.len());
        for slot in &index.store.slots {
            let (cx, cy) = slot.aabb.centre();
            let a = index.layout.cell_area(slot.cell);
            assert!(
                (a.min_x..=a.max_x).contains(&cx) && (a.min_y..=a.max_y).contains(&cy),
                "{:?} is filed under a cell of area {a:?}",
                slot.aabb
            );
            assert!(cells.iter().any(|c| c.cell == slot.cell));
        }
    }

    #[test]
    fn unit_centres_lie_in_their_cells_areas() {
        check(LooseQuadtree::new(100.0, 80.0).with_finest_cell(4.0));
        check(LooseGrid::new(100.0, 80.0).with_cell(8.0));
    }
}
