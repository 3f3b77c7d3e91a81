//! The arcs of the levels: [`Arc`], as the contraction builds and compares them (step
//! counts, their length, the hops' sectors, the middle of a shortcut), and
//! [`PackedArc`], the 6 bytes an arc the finished levels keep, with the hop byte the
//! search's pruning reads first and the far end and weight ([`ArcEnd`]) it reads next.
//! Kept apart from the contraction and the search so that the bit layout, its limits
//! ([`COUNT_LIMIT`], [`ID_LIMIT`]) and its round-trip tests sit in one place.

use super::DIRECT;
use crate::geom::Cell;
use crate::hpa::subgoals::taut::{reversed, sector, Sector};
use std::f64::consts::SQRT_2;

/// An edge of the levels: its far end, for a shortcut its middle subgoal, its weight as
/// counts of straight and diagonal steps (and as their length, worked out once: the
/// contraction's witness tests read it millions of times), and the sectors (see
/// `taut.rs`) of the first hop of the subgoal-graph path it stands for and of the last,
/// which the search's taut-path pruning reads (24 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Arc {
    pub to: u32,
    pub via: u32,
    pub(super) straight: u16,
    pub(super) diagonal: u16,
    /// The sector of the first hop, out of the arc's source.
    pub first: Sector,
    /// The sector of the last hop, into [`Arc::to`].
    pub last: Sector,
    /// `straight + diagonal × √2`.
    length: f64,
}

impl Arc {
    /// The arc to `to` through `via` of those step counts and hops' sectors.
    pub(super) fn new(
        to: u32,
        via: u32,
        (straight, diagonal): (u16, u16),
        first: Sector,
        last: Sector,
    ) -> Self {
        Arc {
            to,
            via,
            straight,
            diagonal,
            first,
            last,
            length: straight as f64 + diagonal as f64 * SQRT_2,
        }
    }

    /// The edge between subgoals at `a` and `b`, direct: their octile distance.
    pub(super) fn direct(to: u32, a: Cell, b: Cell) -> Self {
        let (dx, dy) = (a.x.abs_diff(b.x), a.y.abs_diff(b.y));
        // Levels are built only on maps at most 2^16 cells a side (`levels_fit`).
        debug_assert!(dx.max(dy) <= u16::MAX as u32, "a direct edge fits");
        let hop = sector(a, b);
        let counts = ((dx.max(dy) - dx.min(dy)) as u16, dx.min(dy) as u16);
        Arc::new(to, DIRECT, counts, hop, hop)
    }

    /// The same edge walked from its far end back to `to`.
    pub(super) fn reversed(self, to: u32) -> Self {
        Arc {
            to,
            first: reversed(self.last),
            last: reversed(self.first),
            ..self
        }
    }

    /// The shortcut from the far end of `first` to that of `second` through `via`, unless
    /// either of its step counts would exceed `limit`.
    pub(super) fn joined(first: Arc, second: Arc, via: u32, limit: u16) -> Option<Self> {
        let add = |a: u16, b: u16| {
            u16::try_from(a as u32 + b as u32)
                .ok()
                .filter(|&n| n <= limit)
        };
        let counts = (
            add(first.straight, second.straight)?,
            add(first.diagonal, second.diagonal)?,
        );
        Some(Arc::new(second.to, via, counts, first.first, second.last))
    }

    /// Whether both step counts are at most `limit`.
    pub(super) fn fits(self, limit: u16) -> bool {
        self.straight.max(self.diagonal) <= limit
    }

    /// The edge's weight in cells.
    #[inline]
    pub fn weight(self) -> f64 {
        self.length
    }
}

/// The bit of an arc's hop byte (see [`first_hop`]) that marks a shortcut.
pub(super) const SHORTCUT: u8 = 16;

/// The first hop's sector of an arc from its hop byte (see [`Levels::arc_ends`](super::Levels::arc_ends)): arcs'
/// sectors are below 16 (only a query's start has [`NO_HOP`](crate::hpa::subgoals::NO_HOP)), so the
/// byte has room for the [`SHORTCUT`] bit.
#[cfg(any(test, feature = "testing", debug_assertions))]
#[inline]
pub(super) fn first_hop(hops: u8) -> Sector {
    hops & (SHORTCUT - 1)
}

/// A set of sectors (see [`allows`](crate::hpa::subgoals::allows)) as [`allows_hops`] reads it: twice
/// over, so that an arc's hop byte indexes it with or without its [`SHORTCUT`] bit. Made
/// once per expansion, it spares the search a mask for every arc it looks at.
#[inline]
pub(crate) fn hop_turns(turns: u16) -> u32 {
    turns as u32 | (turns as u32) << SHORTCUT
}

/// Whether the set `hop_turns` (see [`hop_turns`]) allows the first hop of the arc with
/// hop byte `hops`.
#[inline]
pub(crate) fn allows_hops(hop_turns: u32, hops: u8) -> bool {
    hop_turns >> hops & 1 == 1
}

/// The part of an [`Arc`] the search reads for every arc of a subgoal it expands that the
/// pruning lets through, unpacked from its [`PackedArc`] by [`PackedArc::end`]: the far
/// end and the weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ArcEnd {
    pub to: u32,
    pub(super) straight: u32,
    pub(super) diagonal: u32,
}

impl ArcEnd {
    /// The edge's weight in cells.
    #[inline]
    pub fn weight(self) -> f64 {
        self.straight as f64 + self.diagonal as f64 * SQRT_2
    }
}

/// Bits of a [`PackedArc`] that hold its hop byte (see [`first_hop`]): the sector, below
/// 16, and the [`SHORTCUT`] bit.
const HOP_BITS: u32 = 5;
/// Bits of a [`PackedArc`]'s far end: graphs of up to 2^19 (524,288) ID slots.
const TO_BITS: u32 = 19;
/// Bits of each of a [`PackedArc`]'s two step counts.
const COUNT_BITS: u32 = 12;
/// The most steps of either kind an arc of the levels may count: the contraction keeps
/// global a subgoal whose shortcut would count more, and does not start when a direct
/// edge does (a map more than 4,096 cells a side).
pub(super) const COUNT_LIMIT: u16 = (1 << COUNT_BITS) - 1;
/// The most ID slots a graph with levels may have.
pub(super) const ID_LIMIT: usize = 1 << TO_BITS;
/// Where a [`PackedArc`]'s straight steps start: above its far end.
const STRAIGHT_AT: u32 = HOP_BITS + TO_BITS;
/// Where its diagonal steps start: above the straight ones, up to the 48th bit.
const DIAGONAL_AT: u32 = STRAIGHT_AT + COUNT_BITS;
const _: () = assert!(DIAGONAL_AT + COUNT_BITS == 48, "the fields fill 48 bits");

/// An arc of the levels in 6 bytes (little-endian, aligned to a byte, so that a slice of
/// them has no padding), its fields at fixed places, from the lowest bit up: its hop byte
/// in [`HOP_BITS`], its far end in [`TO_BITS`], its straight and its diagonal steps in
/// [`COUNT_BITS`] each. The search reads the hop byte of every arc of a subgoal it expands
/// (the first byte), and the rest of those the pruning lets through: each field is one
/// load of the 32 bits (the diagonal steps: the 16) that hold it, a shift and a mask by
/// constants (see [`PackedArc::end`]). Session 31's layout sized the fields by the graph's ID capacity
/// and shifted them by amounts kept in the levels: the search spent 3–5 % more
/// instructions unpacking them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PackedArc([u8; 6]);

impl PackedArc {
    /// The arc's hop byte (see [`first_hop`]): its lowest bits.
    #[inline]
    pub fn hops(self) -> u8 {
        self.0[0] & ((1 << HOP_BITS) - 1)
    }

    /// `arc` with hop byte `hops` packed, or `None` when its far end or a count does not
    /// fit (the contraction keeps the IDs below [`ID_LIMIT`] and the counts within
    /// [`COUNT_LIMIT`]).
    pub(super) fn pack(arc: &Arc, hops: u8) -> Option<PackedArc> {
        let fits = (arc.to as usize) < ID_LIMIT && arc.fits(COUNT_LIMIT);
        if !fits || u32::from(hops) >= 1 << HOP_BITS {
            return None;
        }
        let bits = u64::from(hops)
            | u64::from(arc.to) << HOP_BITS
            | u64::from(arc.straight) << STRAIGHT_AT
            | u64::from(arc.diagonal) << DIAGONAL_AT;
        let mut bytes = [0; 6];
        bytes.copy_from_slice(&bits.to_le_bytes()[..6]);
        Some(PackedArc(bytes))
    }

    /// The far end of the arc alone (what unpacking a shortcut looks its halves up by).
    #[inline]
    pub fn to(self) -> u32 {
        let [b0, b1, b2, b3, _, _] = self.0;
        u32::from_le_bytes([b0, b1, b2, b3]) >> HOP_BITS & ((1 << TO_BITS) - 1)
    }

    /// The far end and the weight of the arc.
    #[inline]
    pub fn end(self) -> ArcEnd {
        let [_, _, b2, b3, b4, b5] = self.0;
        // Bits 0–31, 16–47 and 32–47: one load each.
        let high = u32::from_le_bytes([b2, b3, b4, b5]);
        let top = u16::from_le_bytes([b4, b5]);
        ArcEnd {
            to: self.to(),
            straight: high >> (STRAIGHT_AT - 16) & COUNT_LIMIT as u32,
            // The highest field: nothing lies above it.
            diagonal: (top >> (DIAGONAL_AT - 32)) as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        allows_hops, first_hop, hop_turns, Arc, PackedArc, COUNT_BITS, COUNT_LIMIT, HOP_BITS,
        ID_LIMIT, SHORTCUT, TO_BITS,
    };
    use crate::hpa::subgoals::levels::DIRECT;
    use proptest::prelude::*;

    /// The fields fill the 48 bits; a 1024² map's graph (16,000 IDs) and a direct edge
    /// across a 4,096² map fit.
    #[test]
    fn packed_fields_fit_the_maps() {
        assert_eq!(HOP_BITS + TO_BITS + 2 * COUNT_BITS, 48);
        assert!(ID_LIMIT >= 16_000 && usize::from(COUNT_LIMIT) >= 4_095);
    }

    /// A far end below [`ID_LIMIT`], often at or just below a power of two.
    fn far_end() -> impl Strategy<Value = u32> {
        prop_oneof![
            (0u32..TO_BITS).prop_map(|k| 1u32 << k),
            (1u32..=TO_BITS).prop_map(|k| (1u32 << k) - 1),
            0u32..ID_LIMIT as u32,
        ]
    }

    proptest! {
        /// An arc whose far end and step counts fit packs and reads back (hop byte, far
        /// end, counts) in a slice of arcs whatever its neighbours hold; one with a count
        /// past the limit or a far end past the IDs' is refused.
        #[test]
        fn arcs_pack_and_read_back(
            arcs in prop::collection::vec((far_end(), any::<bool>(), any::<u16>(), any::<u16>(), 0u8..16, any::<bool>()), 1..20),
        ) {
            let mut packed = Vec::new();
            let mut kept = Vec::new();
            for &(to, past, straight, diagonal, first, shortcut) in &arcs {
                // Now and then a far end just past the IDs' limit.
                let to = if past { to | ID_LIMIT as u32 } else { to };
                let arc = Arc::new(to, DIRECT, (straight, diagonal), first, first);
                let hops = first | if shortcut { SHORTCUT } else { 0 };
                let fits = straight <= COUNT_LIMIT && diagonal <= COUNT_LIMIT && !past;
                match PackedArc::pack(&arc, hops) {
                    Some(p) => {
                        prop_assert!(fits);
                        packed.push(p);
                        kept.push((arc, hops));
                    }
                    None => prop_assert!(!fits),
                }
            }
            for (p, (arc, hops)) in packed.iter().zip(&kept) {
                let end = p.end();
                prop_assert_eq!(p.hops(), *hops);
                prop_assert_eq!(first_hop(p.hops()), arc.first);
                prop_assert_eq!((end.to, end.straight, end.diagonal), (arc.to, arc.straight as u32, arc.diagonal as u32));
                prop_assert_eq!(end.weight(), arc.weight());
            }
        }
    }

    /// An arc's hop byte is allowed by a set of sectors exactly when its first hop is,
    /// shortcut or not.
    #[test]
    fn hop_bytes_read_their_first_hop() {
        for turns in [0u16, 1, 0x8001, 0x5a5a, 0xffff, 0x1234] {
            for first in 0..SHORTCUT {
                for hops in [first, first | SHORTCUT] {
                    assert_eq!(first_hop(hops), first);
                    let want = crate::hpa::subgoals::allows(turns, first);
                    assert_eq!(allows_hops(hop_turns(turns), hops), want);
                }
            }
        }
    }
}
