//! The inner loop of the landmark bound at subgoals: the largest gap between a subgoal's
//! row of 16-bit values and the goal's, eight lanes at a time.

/// Lanes of one 128-bit vector register of 16-bit values: the table's rows are padded to
/// a multiple of it.
pub(super) const LANES: usize = 8;

/// The largest `|v − g|` over the paired lanes of `vals` and `row` (the same length, a
/// multiple of [`LANES`]; lanes past the shorter are left out).
///
/// Written for the vectorizer, one code for every target: eight independent lane maxima,
/// each `|v − g|` the OR of two saturating subtractions of which one is zero. On x86-64
/// this compiles to SSE2's `psubusw`, `por` and an unsigned maximum (`psubusw` then
/// `paddw`), one register per eight landmarks: three for the usual 24, where 32-bit lanes
/// took six. Elsewhere it is the plain scalar loop, or the target's own vectors.
#[inline(always)]
pub(super) fn largest_gap(vals: &[u16], row: &[u16]) -> u32 {
    let mut best = [0u16; LANES];
    for (v, g) in vals.chunks_exact(LANES).zip(row.chunks_exact(LANES)) {
        for ((b, &v), &g) in best.iter_mut().zip(v).zip(g) {
            *b = (*b).max(v.saturating_sub(g) | g.saturating_sub(v));
        }
    }
    u32::from(best.into_iter().fold(0, u16::max))
}

/// The largest distance of a lane of `vals` outside its interval `[lo, hi]` of the paired
/// lanes of `lo` and `hi` (each `lo ≤ hi`; all the same length, a multiple of [`LANES`]):
/// `max(v − hi, lo − v, 0)`, of which at most one term is above zero, so it is the OR of
/// two saturating subtractions, vectorized as [`largest_gap`].
#[inline(always)]
pub(super) fn largest_outside(vals: &[u16], lo: &[u16], hi: &[u16]) -> u32 {
    let mut best = [0u16; LANES];
    for ((v, l), h) in (vals.chunks_exact(LANES))
        .zip(lo.chunks_exact(LANES))
        .zip(hi.chunks_exact(LANES))
    {
        for (((b, &v), &l), &h) in best.iter_mut().zip(v).zip(l).zip(h) {
            *b = (*b).max(v.saturating_sub(h) | l.saturating_sub(v));
        }
    }
    u32::from(best.into_iter().fold(0, u16::max))
}

#[cfg(test)]
mod tests {
    use super::{largest_gap, largest_outside, LANES};
    use proptest::prelude::*;

    /// A value drawn near the edges that matter: small ones, the largest (which stands for
    /// no distance) and any.
    fn value() -> impl Strategy<Value = u16> {
        prop_oneof![0u16..300, Just(u16::MAX), Just(u16::MAX - 1), any::<u16>()]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The vectorized loop gives the largest `|v − g|` worked out lane by lane in
        /// `i64`, over zero to three registers of lanes.
        #[test]
        fn the_largest_gap_is_the_largest_difference(
            vals in prop::collection::vec(value(), 3 * LANES),
            row in prop::collection::vec(value(), 3 * LANES),
            registers in 0usize..=3,
        ) {
            let n = registers * LANES;
            let want = vals[..n]
                .iter()
                .zip(&row[..n])
                .map(|(&v, &g)| (i64::from(v) - i64::from(g)).unsigned_abs())
                .max()
                .unwrap_or(0);
            prop_assert_eq!(u64::from(largest_gap(&vals[..n], &row[..n])), want);
        }

        /// The vectorized loop gives the largest distance of a value outside its interval
        /// (`[min, max]` of two drawn values), worked out lane by lane in `i64`.
        #[test]
        fn the_largest_distance_outside_is_the_largest_overshoot(
            vals in prop::collection::vec(value(), 3 * LANES),
            ends in prop::collection::vec((value(), value()), 3 * LANES),
            registers in 0usize..=3,
        ) {
            let n = registers * LANES;
            let lo: Vec<u16> = ends.iter().map(|&(a, b)| a.min(b)).collect();
            let hi: Vec<u16> = ends.iter().map(|&(a, b)| a.max(b)).collect();
            let want = (0..n)
                .map(|i| {
                    let (v, l, h) = (i64::from(vals[i]), i64::from(lo[i]), i64::from(hi[i]));
                    (v - h).max(l - v).max(0)
                })
                .max()
                .unwrap_or(0);
            let got = largest_outside(&vals[..n], &lo[..n], &hi[..n]);
            prop_assert_eq!(i64::from(got), want);
        }
    }
}
