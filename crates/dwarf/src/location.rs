//! Location descriptions (AMDGPU extension, "Location Description Operations").
//!
//! A location description names a location *storage* and a bit offset in it. The
//! storage kinds are undefined, memory (one per address space), register, implicit
//! (the bytes of a value), implicit pointer and composite. A location description may
//! hold several single location descriptions (the object is in several places at once,
//! e.g. after a call whose callee's DW_AT_location is a location list with overlapping
//! entries): reads use the first, writes go to all.
//!
//! Composites are kept in the canonical form the extension defines ("Composite Location
//! Descriptions"): no part is itself a composite, no part is empty, and adjacent parts
//! that select contiguous bits of the same storage are merged.

use crate::error::ErrorKind;
use crate::target::{AddressSpace, Target, read_aspace, register_size, write_aspace};
use crate::value::ImplicitPtr;
use bitvec::prelude::*;
use std::sync::Arc;

/// A location storage.
#[derive(Debug, Clone, PartialEq)]
pub enum Storage {
    /// No value is available; any size, any offset.
    Undefined,
    /// Memory of a DWARF address space.
    Memory(AddressSpace),
    /// A register, by DWARF number.
    Register(u32),
    /// The bytes of a known value (DW_OP_implicit_value, DW_OP_stack_value).
    Implicit(ImplicitBytes),
    /// The storage of an implicit pointer (DW_OP_implicit_pointer and
    /// DW_OP_LLVM_aspace_implicit_pointer): only readable as a whole by DW_OP_deref*.
    ImplicitPointer(Box<ImplicitPtr>),
    /// A composite of parts (canonical form).
    Composite(Arc<Composite>),
}

/// Largest value held inline by [`ImplicitBytes`] (no heap allocation): every base type
/// of a DW_OP_stack_value result except vectors and unusual sizes.
pub const INLINE_IMPLICIT_BYTES: usize = 16;

/// The bytes of an implicit location storage. Short values (the usual
/// DW_OP_stack_value results, at most [`INLINE_IMPLICIT_BYTES`]) are held inline, so
/// forming them allocates nothing; longer ones (DW_OP_implicit_value blocks, vector
/// values) share their bytes. Dereferences to the byte slice.
#[derive(Clone)]
pub struct ImplicitBytes(BytesRepr);

#[derive(Clone)]
enum BytesRepr {
    Inline(InlineBytes),
    Shared(Arc<[u8]>),
}

/// Inline bytes, aligned so that they start on a word of their storage: locations are
/// copied in wide words, and a payload starting right after the enum's tag byte made
/// each copy straddle the stores that wrote it (a store-forwarding stall per move).
#[derive(Clone, Copy)]
#[repr(C, align(8))]
struct InlineBytes {
    data: [u8; INLINE_IMPLICIT_BYTES],
    len: u8,
}

impl ImplicitBytes {
    /// The bytes, held inline when short.
    pub fn new(bytes: &[u8]) -> Self {
        if bytes.len() <= INLINE_IMPLICIT_BYTES {
            let mut data = [0u8; INLINE_IMPLICIT_BYTES];
            data[..bytes.len()].copy_from_slice(bytes);
            ImplicitBytes(BytesRepr::Inline(InlineBytes {
                data,
                len: bytes.len() as u8,
            }))
        } else {
            ImplicitBytes(BytesRepr::Shared(bytes.into()))
        }
    }

    /// The first `n` (at most 8) little-endian bytes of `v`, inline.
    #[inline]
    pub fn from_le_u64(v: u64, n: usize) -> Self {
        let mut data = [0u8; INLINE_IMPLICIT_BYTES];
        data[..8].copy_from_slice(&v.to_le_bytes());
        ImplicitBytes(BytesRepr::Inline(InlineBytes {
            data,
            len: n.min(8) as u8,
        }))
    }
}

impl std::ops::Deref for ImplicitBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            BytesRepr::Inline(b) => &b.data[..usize::from(b.len).min(INLINE_IMPLICIT_BYTES)],
            BytesRepr::Shared(b) => b,
        }
    }
}

impl AsRef<[u8]> for ImplicitBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl PartialEq for ImplicitBytes {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for ImplicitBytes {}

impl std::fmt::Debug for ImplicitBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl From<&[u8]> for ImplicitBytes {
    fn from(b: &[u8]) -> Self {
        ImplicitBytes::new(b)
    }
}

impl<const N: usize> From<&[u8; N]> for ImplicitBytes {
    fn from(b: &[u8; N]) -> Self {
        ImplicitBytes::new(b)
    }
}

impl From<Vec<u8>> for ImplicitBytes {
    fn from(b: Vec<u8>) -> Self {
        if b.len() <= INLINE_IMPLICIT_BYTES {
            ImplicitBytes::new(&b)
        } else {
            ImplicitBytes(BytesRepr::Shared(b.into()))
        }
    }
}

impl From<Arc<[u8]>> for ImplicitBytes {
    fn from(b: Arc<[u8]>) -> Self {
        if b.len() <= INLINE_IMPLICIT_BYTES {
            ImplicitBytes::new(&b)
        } else {
            ImplicitBytes(BytesRepr::Shared(b))
        }
    }
}

impl From<&Arc<[u8]>> for ImplicitBytes {
    fn from(b: &Arc<[u8]>) -> Self {
        if b.len() <= INLINE_IMPLICIT_BYTES {
            ImplicitBytes::new(b)
        } else {
            ImplicitBytes(BytesRepr::Shared(b.clone()))
        }
    }
}

/// A composite storage: its parts, in canonical form.
///
/// The composites DW_OP_LLVM_extend and DW_OP_LLVM_select_bit_piece create (vectors of
/// `count` elements of `bits` bits each) are held in a compact form: the element source(s)
/// and, for a select, the mask. Their part list is materialised (in canonical form) only
/// when [`Composite::parts`] is called; reads and writes index elements directly.
#[derive(Debug, Clone)]
pub struct Composite {
    repr: Repr,
    parts: std::sync::OnceLock<Vec<Part>>,
    /// Nesting depth of composites inside this one (bounded by [`MAX_COMPOSITE_DEPTH`]).
    depth: u16,
    /// The parts this composite stands for, counted through every nested
    /// composite (an upper bound; see [`Composite::leaf_parts`]).
    leaves: u64,
}

/// The most parts one composite may stand for, counted through every nested composite
/// (DW_OP_LLVM_extend and DW_OP_LLVM_select_bit_piece multiply their source's parts by
/// their count), and the most pieces one composite may have: so that materialising or
/// walking a composite stays within a few tens of megabytes however its expression
/// nests.
pub const MAX_COMPOSITE_PARTS: u64 = 1 << 20;

/// The parts `l` stands for, counted through nested composites (1 per single location
/// that is not a composite).
pub fn leaf_parts(l: &Loc) -> u64 {
    l.singles()
        .iter()
        .map(|s| match &s.storage {
            Storage::Composite(c) => c.leaves,
            _ => 1,
        })
        .fold(0, u64::saturating_add)
}

/// `count` elements each standing for `per` parts, within [`MAX_COMPOSITE_PARTS`].
pub(crate) fn check_parts(per: u64, count: u64) -> Result<u64, ErrorKind> {
    let n = per.saturating_mul(count);
    if n > MAX_COMPOSITE_PARTS {
        return Err(ErrorKind::TooManyParts {
            parts: n,
            max: MAX_COMPOSITE_PARTS,
        });
    }
    Ok(n)
}

/// Deepest nesting of vector composites (a composite whose element source is a composite
/// ...): deeper nesting is refused, so reading, flattening and dropping stay shallow.
pub const MAX_COMPOSITE_DEPTH: u16 = 32;

fn loc_depth(l: &Loc) -> u16 {
    l.singles()
        .iter()
        .map(|s| match &s.storage {
            Storage::Composite(c) => c.depth,
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

fn nested_depth(d: u16) -> Result<u16, ErrorKind> {
    let d = d + 1;
    if d > MAX_COMPOSITE_DEPTH {
        return Err(ErrorKind::CompositeTooDeep(MAX_COMPOSITE_DEPTH));
    }
    Ok(d)
}

/// Most element sources a [`Repr::Vector`] holds (two bit planes select among them).
const VECTOR_SOURCES: usize = 4;

/// An element source of a [`Repr::Vector`]: element `n` is `loc` (`stride` false, as
/// DW_OP_LLVM_extend makes them) or `loc` offset by `n` elements (`stride` true, as
/// DW_OP_LLVM_select_bit_piece selects them).
#[derive(Debug, Clone)]
struct Src {
    loc: Loc,
    stride: bool,
}

const EMPTY_SRC: Src = Src {
    loc: Loc::One(Single {
        storage: Storage::Undefined,
        offset: 0,
    }),
    stride: false,
};

const EMPTY_VECTOR: VectorRepr = VectorRepr {
    srcs: [EMPTY_SRC; VECTOR_SOURCES],
    nsrc: 0,
    planes: [0; 2],
    bits: 0,
    count: 0,
};

/// See [`Repr::Vector`] (boxed, so composites of pieces stay small).
#[derive(Debug, Clone)]
struct VectorRepr {
    srcs: [Src; VECTOR_SOURCES],
    nsrc: u8,
    planes: [u64; 2],
    bits: u64,
    count: u64,
}

#[derive(Debug, Clone)]
enum Repr {
    Parts(Vec<Part>),
    /// A vector of at most 64 elements drawn from at most [`VECTOR_SOURCES`] sources:
    /// element `n` comes from source `planes[0] bit n | planes[1] bit n << 1`. Extends
    /// and selects of such vectors (same element size and count) are flattened into one
    /// of these, so the lane_pc of a nest of IF/THEN/ELSE regions stays one node.
    Vector(Box<VectorRepr>),
    Extend {
        pl: Loc,
        bits: u64,
        count: u64,
    },
    Select {
        l0: Loc,
        l1: Loc,
        mask: Mask,
        bits: u64,
        count: u64,
    },
}

/// A select mask: bit `n` chooses the one-location for element `n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mask {
    /// Up to 64 elements.
    Small(u64),
    /// More elements: little-endian bytes.
    Big(Arc<[u8]>),
}

impl Mask {
    /// The highest element index below `count` whose bit is clear, and whose bit is set.
    pub fn last_clear_and_set(&self, count: u64) -> (Option<u64>, Option<u64>) {
        match self {
            Mask::Small(m) => {
                let valid = if count >= 64 {
                    u64::MAX
                } else {
                    (1u64 << count) - 1
                };
                let hi = |x: u64| (x != 0).then(|| 63 - u64::from(x.leading_zeros()));
                (hi(!m & valid), hi(m & valid))
            }
            Mask::Big(_) => {
                let (mut c, mut s) = (None, None);
                let mut n = count;
                while n > 0 && (c.is_none() || s.is_none()) {
                    n -= 1;
                    if self.bit(n) {
                        s.get_or_insert(n);
                    } else {
                        c.get_or_insert(n);
                    }
                }
                (c, s)
            }
        }
    }

    /// Bit `n`.
    pub fn bit(&self, n: u64) -> bool {
        match self {
            Mask::Small(m) => n < 64 && m >> n & 1 == 1,
            Mask::Big(b) => b
                .get((n / 8) as usize)
                .is_some_and(|x| x >> (n % 8) & 1 == 1),
        }
    }
}

impl PartialEq for Composite {
    fn eq(&self, other: &Self) -> bool {
        self.parts() == other.parts()
    }
}

/// Where a part's bits are: borrowed from a part list, or computed for an element.
pub(crate) enum PartLoc<'a> {
    Borrowed(&'a Loc),
    Owned(Loc),
}

impl PartLoc<'_> {
    pub(crate) fn loc(&self) -> &Loc {
        match self {
            PartLoc::Borrowed(l) => l,
            PartLoc::Owned(l) => l,
        }
    }
}

impl Composite {
    /// A composite of parts (already canonical, as [`push_part`] builds them).
    pub fn from_parts(parts: Vec<Part>) -> Self {
        // Canonical parts are not composites, except parts in several places.
        let depth = parts
            .iter()
            .map(|p| loc_depth(&p.loc))
            .max()
            .unwrap_or(0)
            .saturating_add(1);
        let leaves = parts
            .iter()
            .map(|p| leaf_parts(&p.loc))
            .fold(0, u64::saturating_add);
        Composite {
            repr: Repr::Parts(parts),
            parts: std::sync::OnceLock::new(),
            depth,
            leaves,
        }
    }

    /// DW_OP_LLVM_extend: `count` parts that each are `pl` for `bits` bits. Checks that
    /// the parts lie within `pl`'s storage.
    pub fn extend(pl: Loc, bits: u64, count: u64) -> Result<Self, ErrorKind> {
        check_range(&pl, 0, bits)?;
        let depth = nested_depth(loc_depth(&pl))?;
        let leaves = check_parts(leaf_parts(&pl), count)?;
        let repr = if count <= 64 {
            let mut srcs = [EMPTY_SRC; VECTOR_SOURCES];
            srcs[0] = Src {
                loc: pl,
                stride: false,
            };
            Repr::Vector(Box::new(VectorRepr {
                srcs,
                nsrc: 1,
                planes: [0; 2],
                bits,
                count,
            }))
        } else {
            Repr::Extend { pl, bits, count }
        };
        Ok(Composite {
            repr,
            parts: std::sync::OnceLock::new(),
            depth,
            leaves,
        })
    }

    /// DW_OP_LLVM_select_bit_piece: part `n` is `l1` (mask bit set) or `l0`, offset by
    /// `n * bits` bits. Checks that every selected part lies within its source storage.
    pub fn select(l0: Loc, l1: Loc, mask: Mask, bits: u64, count: u64) -> Result<Self, ErrorKind> {
        let c = Composite::select_shared(l0, l1, mask, bits, count)?;
        Ok(Arc::try_unwrap(c).unwrap_or_else(|c| (*c).clone()))
    }

    /// [`Composite::select`] giving a shared composite. A vector `l0` (from
    /// DW_OP_LLVM_extend or select_bit_piece, with the same element size and count) that
    /// nothing else holds is updated in place: selecting into it allocates nothing.
    pub fn select_shared(
        l0: Loc,
        l1: Loc,
        mask: Mask,
        bits: u64,
        count: u64,
    ) -> Result<Arc<Self>, ErrorKind> {
        select_with(VecOperand::Loc(l0), VecOperand::Loc(l1), mask, bits, count)
    }
}

/// A DW_OP_LLVM_extend result held unbuilt on the evaluation stack: the checks
/// [`Composite::extend`] makes are made when it is formed, DW_OP_LLVM_select_bit_piece
/// takes its element source directly, and any other use builds the composite.
#[derive(Debug, Clone, PartialEq)]
pub struct Extended {
    pl: Loc,
    bits: u64,
    count: u64,
}

impl Extended {
    /// DW_OP_LLVM_extend of `pl` to `count` elements of `bits` bits, with the checks of
    /// [`Composite::extend`].
    pub fn new(pl: Loc, bits: u64, count: u64) -> Result<Self, ErrorKind> {
        Extended::check(&pl, bits)?;
        Ok(Extended { pl, bits, count })
    }

    /// The checks of [`Extended::new`] (those of [`Composite::extend`]).
    pub(crate) fn check(pl: &Loc, bits: u64) -> Result<(), ErrorKind> {
        if let Loc::One(s) = pl {
            // The usual case, in one look at the storage.
            let depth = match &s.storage {
                Storage::Undefined => return Ok(()),
                Storage::Composite(c) => c.depth,
                _ => 0,
            };
            check_single_range(s, 0, bits)?;
            nested_depth(depth)?;
            return Ok(());
        }
        check_range(pl, 0, bits)?;
        nested_depth(loc_depth(pl))?;
        Ok(())
    }

    /// An extend [`Extended::check`] accepted.
    pub(crate) fn checked(pl: Loc, bits: u64, count: u64) -> Self {
        Extended { pl, bits, count }
    }

    /// The composite location description.
    pub fn build(self) -> Result<Single, ErrorKind> {
        Ok(Single {
            storage: Storage::Composite(Arc::new(Composite::extend(
                self.pl, self.bits, self.count,
            )?)),
            offset: 0,
        })
    }
}

/// An operand of DW_OP_LLVM_select_bit_piece: a location description, or an extend
/// not built yet.
pub(crate) enum VecOperand {
    Loc(Loc),
    Extended(Extended),
}

impl VecOperand {
    /// As [`check_range`] of the operand's location description.
    fn check_range(&self, extra: u128, bits: u64) -> Result<(), ErrorKind> {
        match self {
            VecOperand::Loc(l) => check_range(l, extra, bits),
            VecOperand::Extended(e) => {
                let size = u128::from(e.bits) * u128::from(e.count);
                if extra + u128::from(bits) > size {
                    return Err(ErrorKind::AccessOutOfRange {
                        offset: extra,
                        bits: u128::from(bits),
                        size,
                    });
                }
                Ok(())
            }
        }
    }

    /// As [`loc_depth`] of the operand's location description.
    fn depth(&self) -> u16 {
        match self {
            VecOperand::Loc(l) => loc_depth(l),
            VecOperand::Extended(e) => loc_depth(&e.pl).saturating_add(1),
        }
    }

    /// How many vector sources the operand brings to a select of `bits` x `count`.
    fn sources(&self, bits: u64, count: u64) -> usize {
        match self {
            VecOperand::Loc(l) => vector_sources(l, bits, count).unwrap_or(1),
            VecOperand::Extended(_) => 1,
        }
    }

    /// The operand's location description.
    #[inline(always)]
    fn into_loc(self) -> Result<Loc, ErrorKind> {
        match self {
            VecOperand::Loc(l) => Ok(l),
            VecOperand::Extended(e) => Ok(Loc::One(e.build()?)),
        }
    }

    /// The operand as one source of a select of `bits` x `count` elements: a matching
    /// extend's element, or the location description offset by the element.
    /// Written in place into `dst` (the sources live in the vector's node).
    #[inline(always)]
    fn write_src(self, dst: &mut Src, bits: u64, count: u64) -> Result<(), ErrorKind> {
        match self {
            VecOperand::Extended(e) if e.bits == bits && e.count == count => {
                dst.loc = e.pl;
                dst.stride = false;
            }
            VecOperand::Loc(l) => {
                dst.loc = l;
                dst.stride = true;
            }
            VecOperand::Extended(e) => {
                dst.loc = Loc::One(e.build()?);
                dst.stride = true;
            }
        }
        Ok(())
    }
}

/// DW_OP_LLVM_select_bit_piece (see [`Composite::select`]) of operands that may be
/// unbuilt extends.
pub(crate) fn select_with(
    l0: VecOperand,
    l1: VecOperand,
    mask: Mask,
    bits: u64,
    count: u64,
) -> Result<Arc<Composite>, ErrorKind> {
    {
        let (last0, last1) = mask.last_clear_and_set(count);
        if let Some(n) = last0 {
            l0.check_range(u128::from(n) * u128::from(bits), bits)?;
        }
        if let Some(n) = last1 {
            l1.check_range(u128::from(n) * u128::from(bits), bits)?;
        }
        let depth = nested_depth(l0.depth().max(l1.depth()))?;
        if count <= 64 {
            let m = match &mask {
                Mask::Small(m) => {
                    if count >= 64 {
                        *m
                    } else {
                        m & ((1u64 << count) - 1)
                    }
                }
                Mask::Big(_) => (0..count).fold(0u64, |acc, n| acc | u64::from(mask.bit(n)) << n),
            };
            let n0 = l0.sources(bits, count);
            let n1 = l1.sources(bits, count);
            if n0 + n1 <= VECTOR_SOURCES {
                return select_vector(l0, l1, m, bits, count, depth);
            }
        }
        let l0 = l0.into_loc()?;
        let l1 = l1.into_loc()?;
        // Element n comes from element n of one of the two sources: the selection stands
        // for at most the parts of both (not `count` times either).
        let leaves = check_parts(leaf_parts(&l0).saturating_add(leaf_parts(&l1)), 1)?;
        Ok(Arc::new(Composite {
            leaves,
            repr: Repr::Select {
                l0,
                l1,
                mask,
                bits,
                count,
            },
            parts: std::sync::OnceLock::new(),
            depth,
        }))
    }
}

impl Composite {
    /// Size in bits.
    pub fn bits(&self) -> u128 {
        match &self.repr {
            Repr::Parts(p) => p.last().map(|p| p.start + u128::from(p.bits)).unwrap_or(0),
            Repr::Extend { bits, count, .. } | Repr::Select { bits, count, .. } => {
                u128::from(*bits) * u128::from(*count)
            }
            Repr::Vector(v) => u128::from(v.bits) * u128::from(v.count),
        }
    }

    /// The parts in canonical form (materialised on first use for vector composites).
    pub fn parts(&self) -> &[Part] {
        match &self.repr {
            Repr::Parts(p) => p,
            _ => self.parts.get_or_init(|| {
                let mut parts = Vec::new();
                let count = self.element_count();
                for n in 0..count {
                    let Ok((_, bits, loc)) =
                        self.part_at(u128::from(n) * u128::from(self.element_bits()))
                    else {
                        break;
                    };
                    if push_part(&mut parts, loc.loc().clone(), bits).is_err() {
                        break;
                    }
                }
                parts
            }),
        }
    }

    fn element_bits(&self) -> u64 {
        match &self.repr {
            Repr::Extend { bits, .. } | Repr::Select { bits, .. } => *bits,
            Repr::Vector(v) => v.bits,
            Repr::Parts(_) => 0,
        }
    }

    fn element_count(&self) -> u64 {
        match &self.repr {
            Repr::Extend { count, .. } | Repr::Select { count, .. } => *count,
            Repr::Vector(v) => v.count,
            Repr::Parts(p) => p.len() as u64,
        }
    }

    /// Like [`Composite::part_at`] without building anything: the part's start and size,
    /// its (first) single location, and the bits to add to that single's offset.
    pub(crate) fn part_ref(&self, pos: u128) -> Result<(u128, u64, &Single, u128), ErrorKind> {
        let oob = || ErrorKind::AccessOutOfRange {
            offset: pos,
            bits: 1,
            size: self.bits(),
        };
        match &self.repr {
            Repr::Parts(parts) => {
                let i = parts.partition_point(|p| p.start + u128::from(p.bits) <= pos);
                let p = parts.get(i).ok_or_else(oob)?;
                Ok((p.start, p.bits, p.loc.first(), 0))
            }
            Repr::Extend { pl, bits, count } => {
                let n = div_u128(pos, (*bits).max(1));
                if n >= u128::from(*count) {
                    return Err(oob());
                }
                Ok((n * u128::from(*bits), *bits, pl.first(), 0))
            }
            Repr::Select {
                l0,
                l1,
                mask,
                bits,
                count,
            } => {
                let n = div_u128(pos, (*bits).max(1));
                if n >= u128::from(*count) {
                    return Err(oob());
                }
                let src = if mask.bit(n as u64) { l1 } else { l0 };
                let start = n * u128::from(*bits);
                Ok((start, *bits, src.first(), start))
            }
            Repr::Vector(v) => {
                let n = div_u128(pos, v.bits.max(1));
                if n >= u128::from(v.count) {
                    return Err(oob());
                }
                let src = vector_src(&v.srcs, &v.planes, n as u64);
                let start = n * u128::from(v.bits);
                let add = if src.stride { start } else { 0 };
                Ok((start, v.bits, src.loc.first(), add))
            }
        }
    }

    /// The part containing bit `pos`: its start, size and location.
    pub(crate) fn part_at(&self, pos: u128) -> Result<(u128, u64, PartLoc<'_>), ErrorKind> {
        let oob = || ErrorKind::AccessOutOfRange {
            offset: pos,
            bits: 1,
            size: self.bits(),
        };
        match &self.repr {
            Repr::Parts(parts) => {
                let i = parts.partition_point(|p| p.start + u128::from(p.bits) <= pos);
                let p = parts.get(i).ok_or_else(oob)?;
                Ok((p.start, p.bits, PartLoc::Borrowed(&p.loc)))
            }
            Repr::Extend { pl, bits, count } => {
                let n = div_u128(pos, (*bits).max(1));
                if n >= u128::from(*count) {
                    return Err(oob());
                }
                Ok((n * u128::from(*bits), *bits, PartLoc::Borrowed(pl)))
            }
            Repr::Select {
                l0,
                l1,
                mask,
                bits,
                count,
            } => {
                let n = div_u128(pos, (*bits).max(1));
                if n >= u128::from(*count) {
                    return Err(oob());
                }
                let src = if mask.bit(n as u64) { l1 } else { l0 };
                let d = (n * u128::from(*bits)) as i128;
                let l = src.map(|s| match s.storage {
                    Storage::Undefined => Ok(s.clone()),
                    _ => Ok(Single {
                        storage: s.storage.clone(),
                        offset: (s.offset as i128 + d) as u128,
                    }),
                })?;
                Ok((n * u128::from(*bits), *bits, PartLoc::Owned(l)))
            }
            Repr::Vector(v) => {
                let bits = &v.bits;
                let n = div_u128(pos, (*bits).max(1));
                if n >= u128::from(v.count) {
                    return Err(oob());
                }
                let src = vector_src(&v.srcs, &v.planes, n as u64);
                if !src.stride {
                    return Ok((n * u128::from(*bits), *bits, PartLoc::Borrowed(&src.loc)));
                }
                let d = (n * u128::from(*bits)) as i128;
                let l = src.loc.map(|s| match s.storage {
                    Storage::Undefined => Ok(s.clone()),
                    _ => Ok(Single {
                        storage: s.storage.clone(),
                        offset: (s.offset as i128 + d) as u128,
                    }),
                })?;
                Ok((n * u128::from(*bits), *bits, PartLoc::Owned(l)))
            }
        }
    }
}

/// Source of element `n` of a vector.
fn vector_src<'a>(srcs: &'a [Src; VECTOR_SOURCES], planes: &[u64; 2], n: u64) -> &'a Src {
    let i = (planes[0] >> n & 1) | (planes[1] >> n & 1) << 1;
    srcs.get(i as usize).unwrap_or(&EMPTY_SRC)
}

/// The vector composite `l` is, when its elements line up with `bits` x `count`
/// elements (offset 0, same element size and count).
fn as_vector(l: &Loc, bits: u64, count: u64) -> Option<&Composite> {
    match l {
        Loc::One(Single {
            storage: Storage::Composite(c),
            offset: 0,
        }) => match &c.repr {
            Repr::Vector(v) if v.bits == bits && v.count == count => Some(c),
            _ => None,
        },
        _ => None,
    }
}

/// How many sources `l` brings to a select of `bits` x `count` elements as a vector
/// (`None`: it is one strided source).
fn vector_sources(l: &Loc, bits: u64, count: u64) -> Option<usize> {
    match &as_vector(l, bits, count)?.repr {
        Repr::Vector(v) => Some(usize::from(v.nsrc)),
        _ => None,
    }
}

/// Builds the select of `l0` and `l1` under mask `m` as one vector composite (the caller
/// checked that the sources fit), in `l0`'s node when nothing else holds it. Element `n`
/// of the select is `l0` or `l1` offset by `n` elements; for a matching vector operand
/// that is its element `n`, so its sources and selection carry over.
fn select_vector(
    l0: VecOperand,
    l1: VecOperand,
    m: u64,
    bits: u64,
    count: u64,
    depth: u16,
) -> Result<Arc<Composite>, ErrorKind> {
    match l0 {
        VecOperand::Loc(Loc::One(Single {
            storage: Storage::Composite(c),
            offset: 0,
        })) if matches!(&c.repr, Repr::Vector(v) if v.bits == bits && v.count == count) => {
            let mut node = c;
            let comp = Arc::make_mut(&mut node);
            comp.parts = std::sync::OnceLock::new();
            comp.depth = depth;
            if let Repr::Vector(v) = &mut comp.repr {
                merge_select(v, l1, m, bits, count)?;
                comp.leaves = vector_leaves(v)?;
            }
            Ok(node)
        }
        l0 => {
            // Filled in place from a constant: built on the stack and then moved into
            // its box, the 300-byte node was copied with wide loads of narrow stores.
            let mut v = Box::new(EMPTY_VECTOR);
            v.nsrc = 1;
            v.bits = bits;
            v.count = count;
            l0.write_src(&mut v.srcs[0], bits, count)?;
            merge_select(&mut v, l1, m, bits, count)?;
            let leaves = vector_leaves(&v)?;
            Ok(Arc::new(Composite {
                repr: Repr::Vector(v),
                parts: std::sync::OnceLock::new(),
                depth,
                leaves,
            }))
        }
    }
}

/// The parts a vector composite stands for: its count times the most of any source.
fn vector_leaves(v: &VectorRepr) -> Result<u64, ErrorKind> {
    let per = v.srcs[..usize::from(v.nsrc).min(VECTOR_SOURCES)]
        .iter()
        .map(|s| leaf_parts(&s.loc))
        .max()
        .unwrap_or(1);
    check_parts(per, v.count)
}

/// Selects `l1`'s elements into `v` where mask `m` is set: `l1`'s sources are added
/// after `v`'s (the caller checked that they fit).
fn merge_select(
    v: &mut VectorRepr,
    l1: VecOperand,
    m: u64,
    bits: u64,
    count: u64,
) -> Result<(), ErrorKind> {
    let n0 = usize::from(v.nsrc);
    let v1 = match &l1 {
        VecOperand::Loc(l) => as_vector(l, bits, count).map(|c1| &c1.repr),
        VecOperand::Extended(_) => None,
    };
    let (p1, n1) = match v1 {
        Some(Repr::Vector(v1)) => {
            let n1 = usize::from(v1.nsrc);
            for (d, s) in v.srcs.iter_mut().skip(n0).zip(&v1.srcs[..n1]) {
                *d = s.clone();
            }
            (v1.planes, n1)
        }
        _ => {
            if let Some(d) = v.srcs.get_mut(n0) {
                l1.write_src(d, bits, count)?;
            }
            ([0; 2], 1)
        }
    };
    // Renumber the second operand's selection after the first's sources (two-bit
    // numbers held in two planes: add n0 with a carry from plane 0 into plane 1).
    let k0 = if n0 & 1 != 0 { u64::MAX } else { 0 };
    let k1 = if n0 & 2 != 0 { u64::MAX } else { 0 };
    let lo = p1[0] ^ k0;
    let hi = p1[1] ^ k1 ^ (p1[0] & k0);
    v.planes[0] = (v.planes[0] & !m) | (lo & m);
    v.planes[1] = (v.planes[1] & !m) | (hi & m);
    v.nsrc = (n0 + n1) as u8;
    Ok(())
}

/// `a / b`, with a 64-bit division when `a` fits (128-bit division is a slow library call).
fn div_u128(a: u128, b: u64) -> u128 {
    match u64::try_from(a) {
        Ok(a) => u128::from(a / b),
        Err(_) => a / u128::from(b),
    }
}

/// Checks that `[offset + extra, + bits)` of `s` lies within its storage.
#[inline]
fn check_single_range(s: &Single, extra: u128, bits: u64) -> Result<(), ErrorKind> {
    if let Some(size) = s.storage_bits()
        && s.offset + extra + u128::from(bits) > size
    {
        return Err(ErrorKind::AccessOutOfRange {
            offset: s.offset + extra,
            bits: u128::from(bits),
            size,
        });
    }
    Ok(())
}

/// Checks that `[offset + extra, + bits)` of every single of `l` lies within its storage.
fn check_range(l: &Loc, extra: u128, bits: u64) -> Result<(), ErrorKind> {
    for s in l.singles() {
        check_single_range(s, extra, bits)?;
    }
    Ok(())
}

/// One part of a composite.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// First bit of the part within the composite.
    pub start: u128,
    /// Size of the part in bits.
    pub bits: u64,
    /// Where the part's bits are (never a composite after canonicalisation, unless the
    /// part has several places).
    pub loc: Loc,
}

/// A single location description: a storage and a bit offset in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Single {
    /// The storage.
    pub storage: Storage,
    /// Bit offset within the storage (0 for undefined).
    pub offset: u128,
}

/// A location description: one or several single location descriptions.
#[derive(Debug, Clone, PartialEq)]
pub enum Loc {
    /// The usual case.
    One(Single),
    /// The object is in several places at once; all hold the same value.
    Many(Arc<[Single]>),
}

/// Largest composite, in bits: the largest address space (64-bit, in bits).
pub const MAX_COMPOSITE_BITS: u128 = 1u128 << 67;

impl Single {
    /// The undefined location description.
    pub fn undefined() -> Self {
        Single {
            storage: Storage::Undefined,
            offset: 0,
        }
    }

    /// A memory location at byte `addr` of `space`.
    pub fn memory(space: AddressSpace, addr: u64) -> Self {
        Single {
            storage: Storage::Memory(space),
            offset: u128::from(addr) * 8,
        }
    }

    /// A register location at offset 0.
    pub fn register(reg: u32) -> Self {
        Single {
            storage: Storage::Register(reg),
            offset: 0,
        }
    }

    /// An implicit location holding `bytes`.
    pub fn implicit(bytes: impl Into<ImplicitBytes>) -> Self {
        Single {
            storage: Storage::Implicit(bytes.into()),
            offset: 0,
        }
    }

    /// Size of the storage in bits (`None`: unbounded, for undefined storage).
    pub fn storage_bits(&self) -> Option<u128> {
        Some(match &self.storage {
            Storage::Undefined => return None,
            Storage::Memory(space) => (u128::from(space.address_mask()) + 1) * 8,
            Storage::Register(r) => u128::from(register_size(u64::from(*r)).unwrap_or(0)) * 8,
            Storage::Implicit(b) => b.len() as u128 * 8,
            Storage::ImplicitPointer(p) => u128::from(p.bits),
            Storage::Composite(c) => c.bits(),
        })
    }

    /// Adds `delta` bits to the offset (DW_OP_LLVM_offset / bit_offset rules: the result
    /// must lie within the storage; undefined is unchanged).
    pub fn offset_by(&self, delta: i128, op: &'static str) -> Result<Single, ErrorKind> {
        if let Storage::Undefined = self.storage {
            return Ok(self.clone());
        }
        let size = self.storage_bits().unwrap_or(0);
        let new = self.offset as i128 + delta;
        if new < 0 || new as u128 >= size {
            return Err(ErrorKind::OffsetOutOfRange {
                op,
                offset: new,
                size,
            });
        }
        Ok(Single {
            storage: self.storage.clone(),
            offset: new as u128,
        })
    }

    /// For a memory location in the default address space at a whole byte: the address
    /// (the implicit conversion to a generic value).
    pub fn as_default_address(&self) -> Option<u64> {
        match self.storage {
            Storage::Memory(AddressSpace::Global) if self.offset % 8 == 0 => {
                u64::try_from(self.offset / 8).ok()
            }
            _ => None,
        }
    }

    fn same_storage(&self, other: &Single) -> bool {
        match (&self.storage, &other.storage) {
            (Storage::Undefined, Storage::Undefined) => true,
            (Storage::Memory(a), Storage::Memory(b)) => a == b,
            (Storage::Register(a), Storage::Register(b)) => a == b,
            (Storage::Implicit(a), Storage::Implicit(b)) => a == b,
            _ => false,
        }
    }
}

impl Loc {
    /// The first single location description (the one reads use).
    pub fn first(&self) -> &Single {
        match self {
            Loc::One(s) => s,
            Loc::Many(v) => v.first().unwrap_or(&UNDEFINED),
        }
    }

    /// All single location descriptions.
    pub fn singles(&self) -> &[Single] {
        match self {
            Loc::One(s) => std::slice::from_ref(s),
            Loc::Many(v) => v,
        }
    }

    /// Applies `f` to every single location description.
    pub fn map(
        &self,
        mut f: impl FnMut(&Single) -> Result<Single, ErrorKind>,
    ) -> Result<Loc, ErrorKind> {
        Ok(match self {
            Loc::One(s) => Loc::One(f(s)?),
            Loc::Many(v) => Loc::Many(v.iter().map(f).collect::<Result<Vec<_>, _>>()?.into()),
        })
    }

    /// Builds a location from several singles (one if there is one).
    pub fn from_singles(mut v: Vec<Single>) -> Loc {
        if v.len() == 1 {
            Loc::One(v.remove(0))
        } else if v.is_empty() {
            Loc::One(Single::undefined())
        } else {
            Loc::Many(v.into())
        }
    }
}

static UNDEFINED: Single = Single {
    storage: Storage::Undefined,
    offset: 0,
};

/// Appends a part to a composite under construction, keeping canonical form.
pub fn push_part(parts: &mut Vec<Part>, loc: Loc, bits: u64) -> Result<(), ErrorKind> {
    if parts.len() as u64 >= MAX_COMPOSITE_PARTS {
        return Err(ErrorKind::TooManyParts {
            parts: parts.len() as u64 + 1,
            max: MAX_COMPOSITE_PARTS,
        });
    }
    check_parts(leaf_parts(&loc), 1)?;
    if bits == 0 {
        return Ok(());
    }
    let start = parts
        .last()
        .map(|p| p.start + u128::from(p.bits))
        .unwrap_or(0);
    if start + u128::from(bits) > MAX_COMPOSITE_BITS {
        return Err(ErrorKind::CompositeTooLarge);
    }
    let single = match &loc {
        Loc::One(s) => s,
        Loc::Many(_) => {
            parts.push(Part { start, bits, loc });
            return Ok(());
        }
    };
    if let Storage::Composite(c) = &single.storage {
        // Rule 1: replace by the selected bits of the nested composite's parts.
        let mut pos = single.offset;
        let end = single.offset + u128::from(bits);
        if end > c.bits() {
            return Err(ErrorKind::AccessOutOfRange {
                offset: pos,
                bits: u128::from(bits),
                size: c.bits(),
            });
        }
        while pos < end {
            let (pstart, pbits, ploc) = c.part_at(pos)?;
            let within = pos - pstart;
            let take = (u128::from(pbits) - within).min(end - pos) as u64;
            let sub = ploc.loc().map(|s| match s.storage {
                Storage::Undefined => Ok(s.clone()),
                _ => Ok(Single {
                    storage: s.storage.clone(),
                    offset: s.offset + within,
                }),
            })?;
            push_part(parts, sub, take)?;
            pos += u128::from(take);
        }
        return Ok(());
    }
    match loc {
        Loc::One(single) => push_leaf(parts, start, single, bits),
        many => {
            parts.push(Part {
                start,
                bits,
                loc: many,
            });
            Ok(())
        }
    }
}

/// [`push_part`] of a single location description that is not a composite (the
/// pieces of the evaluator's fast path): inlined, so the location is formed in place.
#[inline(always)]
pub(crate) fn push_single(
    parts: &mut Vec<Part>,
    single: Single,
    bits: u64,
) -> Result<(), ErrorKind> {
    if let Storage::Composite(_) = single.storage {
        return push_part(parts, Loc::One(single), bits);
    }
    if bits == 0 {
        return Ok(());
    }
    let start = parts
        .last()
        .map(|p| p.start + u128::from(p.bits))
        .unwrap_or(0);
    if start + u128::from(bits) > MAX_COMPOSITE_BITS {
        return Err(ErrorKind::CompositeTooLarge);
    }
    push_leaf(parts, start, single, bits)
}

/// The end of [`push_part`] for a non-composite single starting at `start`: bounds, then
/// merging (rule 3) or appending.
#[inline(always)]
fn push_leaf(
    parts: &mut Vec<Part>,
    start: u128,
    single: Single,
    bits: u64,
) -> Result<(), ErrorKind> {
    // Bounds: all bits of the part must be within its storage.
    if let Some(size) = single.storage_bits()
        && single.offset + u128::from(bits) > size
    {
        return Err(ErrorKind::AccessOutOfRange {
            offset: single.offset,
            bits: u128::from(bits),
            size,
        });
    }
    // Rule 3: merge with the previous part when contiguous in the same storage.
    if let Some(last) = parts.last_mut()
        && let Loc::One(ls) = &last.loc
        && ls.same_storage(&single)
        && (matches!(single.storage, Storage::Undefined)
            || ls.offset + u128::from(last.bits) == single.offset)
        && let Some(sum) = last.bits.checked_add(bits)
    {
        last.bits = sum;
        return Ok(());
    }
    parts.push(Part {
        start,
        bits,
        loc: Loc::One(single),
    });
    Ok(())
}

/// Makes a complete composite location description out of parts.
pub fn composite(parts: Vec<Part>) -> Single {
    Single {
        storage: Storage::Composite(Arc::new(Composite::from_parts(parts))),
        offset: 0,
    }
}

// ---------------------------------------------------------------------------------------
// Reading and writing through locations

/// Bits of an object read through a location: the data, and which bits were defined
/// (undefined storage gives zero data bits with a clear `defined` bit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadBits {
    /// Data bits, least significant bit of byte 0 first.
    pub data: BitVec<u8, Lsb0>,
    /// Definedness of each bit.
    pub defined: BitVec<u8, Lsb0>,
}

impl ReadBits {
    /// The data as bytes (the last byte zero-padded).
    pub fn bytes(&self) -> Vec<u8> {
        self.data.as_raw_slice().to_vec()
    }

    /// Whether every bit of byte `i` is defined.
    pub fn byte_defined(&self, i: usize) -> bool {
        let lo = i * 8;
        let hi = (lo + 8).min(self.defined.len());
        lo < hi && self.defined[lo..hi].all()
    }
}

/// The first bit of an access of `nbits` at `extra` bits past `loc`, checked
/// against the size of the storage (a part must lie within its storage).
fn checked_start(loc: &Single, extra: u128, nbits: u128) -> Result<u128, ErrorKind> {
    let start = loc.offset + extra;
    match loc.storage_bits() {
        Some(size) if start + nbits > size => Err(ErrorKind::AccessOutOfRange {
            offset: start,
            bits: nbits,
            size,
        }),
        _ => Ok(start),
    }
}
/// Reads `nbits` bits starting at `loc`'s offset plus `extra` bits. With `defined`
/// given, undefined bits are recorded there instead of being an error.
pub fn read_bits<T: Target + ?Sized>(
    t: &T,
    loc: &Single,
    extra: u128,
    dst: &mut BitSlice<u8, Lsb0>,
    mut defined: Option<&mut BitSlice<u8, Lsb0>>,
) -> Result<(), ErrorKind> {
    let nbits = dst.len() as u128;
    if nbits == 0 {
        return Ok(());
    }
    let start = checked_start(loc, extra, nbits)?;
    match &loc.storage {
        Storage::Undefined => match defined {
            Some(d) => {
                dst.fill(false);
                d.fill(false);
                Ok(())
            }
            None => Err(ErrorKind::ReadUndefined),
        },
        Storage::Memory(space) => {
            let (first, shift, nbytes) = byte_span(start, nbits)?;
            let addr = u64::try_from(first).map_err(|_| ErrorKind::AccessOutOfRange {
                offset: start,
                bits: nbits,
                size: loc.storage_bits().unwrap_or(0),
            })?;
            with_buf(nbytes, |buf| {
                read_aspace(t, *space, addr, buf)?;
                copy_bits(buf, shift, dst);
                Ok(())
            })
        }
        Storage::Register(r) => {
            let (first, shift, nbytes) = byte_span(start, nbits)?;
            with_buf(nbytes, |buf| {
                t.read_register(*r, first as u64, buf)?;
                copy_bits(buf, shift, dst);
                Ok(())
            })
        }
        Storage::Implicit(bytes) => {
            let bits = bytes.view_bits::<Lsb0>();
            let s = start as usize;
            let src = bits
                .get(s..s + dst.len())
                .ok_or(ErrorKind::AccessOutOfRange {
                    offset: start,
                    bits: nbits,
                    size: bits.len() as u128,
                })?;
            dst.copy_from_bitslice(src);
            Ok(())
        }
        Storage::ImplicitPointer(_) => Err(ErrorKind::ImplicitPointerAccess),
        Storage::Composite(c) => {
            let mut pos = start;
            let end = start + nbits;
            let mut done = 0usize;
            while pos < end {
                let (pstart, pbits, ploc) = c.part_at(pos)?;
                let within = pos - pstart;
                let take = (u128::from(pbits) - within).min(end - pos) as usize;
                let d = defined.as_deref_mut().map(|d| &mut d[done..done + take]);
                read_bits(
                    t,
                    ploc.loc().first(),
                    within,
                    &mut dst[done..done + take],
                    d,
                )?;
                pos += take as u128;
                done += take;
            }
            Ok(())
        }
    }
}

/// Fast path of [`read_bits`] for whole bytes at a byte-aligned offset of a memory,
/// register or implicit storage: reads straight into `out`. `None` when the case does not
/// apply (the caller then uses [`read_bits`]).
pub fn read_bytes_aligned<T: Target + ?Sized>(
    t: &T,
    loc: &Single,
    out: &mut [u8],
) -> Option<Result<(), ErrorKind>> {
    read_aligned_in(t, &loc.storage, loc.offset, out)
}

/// [`read_bytes_aligned`] of `storage` at bit `offset`.
fn read_aligned_in<T: Target + ?Sized>(
    t: &T,
    storage: &Storage,
    offset: u128,
    out: &mut [u8],
) -> Option<Result<(), ErrorKind>> {
    if offset % 8 != 0 {
        return None;
    }
    let nbits = out.len() as u128 * 8;
    let check = |size: u128| {
        if offset.checked_add(nbits).is_none_or(|end| end > size) {
            Err(ErrorKind::AccessOutOfRange {
                offset,
                bits: nbits,
                size,
            })
        } else {
            Ok(())
        }
    };
    let start = offset / 8;
    Some(match storage {
        Storage::Memory(space) => check((u128::from(space.address_mask()) + 1) * 8)
            .and_then(|()| read_aspace(t, *space, start as u64, out).map_err(ErrorKind::from)),
        Storage::Register(r) => check(u128::from(register_size(u64::from(*r)).unwrap_or(0)) * 8)
            .and_then(|()| {
                t.read_register(*r, start as u64, out)
                    .map_err(ErrorKind::from)
            }),
        Storage::Implicit(b) => check(b.len() as u128 * 8).map(|()| {
            let s = start as usize;
            out.copy_from_slice(&b[s..s + out.len()]);
        }),
        _ => return None,
    })
}

/// Like [`read_bytes_aligned`], also through composites whose parts met on the way are
/// whole bytes at byte offsets. `None` when a bit-granular piece is involved.
pub fn read_bytes<T: Target + ?Sized>(
    t: &T,
    loc: &Single,
    out: &mut [u8],
) -> Option<Result<(), ErrorKind>> {
    read_bytes_in(t, &loc.storage, loc.offset, out)
}

/// [`read_bytes`] of `storage` at bit `offset` (walks composites by reference).
fn read_bytes_in<T: Target + ?Sized>(
    t: &T,
    storage: &Storage,
    offset: u128,
    out: &mut [u8],
) -> Option<Result<(), ErrorKind>> {
    let Storage::Composite(c) = storage else {
        return read_aligned_in(t, storage, offset, out);
    };
    if offset % 8 != 0 {
        return None;
    }
    let end = offset + out.len() as u128 * 8;
    if end > c.bits() {
        return Some(Err(ErrorKind::AccessOutOfRange {
            offset,
            bits: out.len() as u128 * 8,
            size: c.bits(),
        }));
    }
    let mut pos = offset;
    let mut done = 0usize;
    while pos < end {
        let (pstart, pbits, ps, add) = match c.part_ref(pos) {
            Ok(p) => p,
            Err(e) => return Some(Err(e)),
        };
        let within = pos - pstart;
        let take = (u128::from(pbits) - within).min(end - pos);
        if within % 8 != 0 || take % 8 != 0 {
            return None;
        }
        if let Storage::Undefined = ps.storage {
            return Some(Err(ErrorKind::ReadUndefined));
        }
        let n = (take / 8) as usize;
        match read_bytes_in(
            t,
            &ps.storage,
            ps.offset + add + within,
            &mut out[done..done + n],
        )? {
            Ok(()) => {}
            Err(e) => return Some(Err(e)),
        }
        pos += take;
        done += n;
    }
    Some(Ok(()))
}

/// [`read_bytes`] of the first `out.len()` bytes of a composite made of `parts` (canonical,
/// as [`push_part`] builds them), without building the composite. `None` unless every part
/// met is whole bytes and reads without error: the caller then takes the general way
/// (which reports any error).
pub(crate) fn read_parts_bytes<T: Target + ?Sized>(
    t: &T,
    parts: &[Part],
    out: &mut [u8],
) -> Option<()> {
    let mut done = 0usize;
    for p in parts {
        if done >= out.len() {
            break;
        }
        if p.start != done as u128 * 8 || p.bits % 8 != 0 {
            return None;
        }
        let s = p.loc.first();
        if let Storage::Undefined = s.storage {
            return None;
        }
        let n = usize::try_from(p.bits / 8).ok()?.min(out.len() - done);
        read_bytes_in(t, &s.storage, s.offset, out.get_mut(done..done + n)?)?.ok()?;
        done += n;
    }
    (done == out.len()).then_some(())
}

/// Writes `src` at `loc`'s offset plus `extra` bits (read-modify-write for partial bytes).
pub fn write_bits<T: Target + ?Sized>(
    t: &mut T,
    loc: &Single,
    extra: u128,
    src: &BitSlice<u8, Lsb0>,
) -> Result<(), ErrorKind> {
    let nbits = src.len() as u128;
    if nbits == 0 {
        return Ok(());
    }
    let start = checked_start(loc, extra, nbits)?;
    match &loc.storage {
        Storage::Undefined => Err(ErrorKind::ReadOnly("undefined storage")),
        Storage::Implicit(_) => Err(ErrorKind::ReadOnly("implicit storage")),
        Storage::ImplicitPointer(_) => Err(ErrorKind::ReadOnly("implicit pointer storage")),
        Storage::Memory(space) => {
            let (first, shift, nbytes) = byte_span(start, nbits)?;
            let addr = first as u64;
            let mut buf = vec![0u8; nbytes];
            if shift != 0 || nbits % 8 != 0 {
                read_aspace(&*t, *space, addr, &mut buf)?;
            }
            buf.view_bits_mut::<Lsb0>()[shift..shift + src.len()].copy_from_bitslice(src);
            write_aspace(t, *space, addr, &buf)?;
            Ok(())
        }
        Storage::Register(r) => {
            let (first, shift, nbytes) = byte_span(start, nbits)?;
            let mut buf = vec![0u8; nbytes];
            if shift != 0 || nbits % 8 != 0 {
                t.read_register(*r, first as u64, &mut buf)?;
            }
            buf.view_bits_mut::<Lsb0>()[shift..shift + src.len()].copy_from_bitslice(src);
            t.write_register(*r, first as u64, &buf)?;
            Ok(())
        }
        Storage::Composite(c) => {
            let c = c.clone();
            let mut pos = start;
            let end = start + nbits;
            let mut done = 0usize;
            while pos < end {
                let (pstart, pbits, ploc) = c.part_at(pos)?;
                let within = pos - pstart;
                let take = (u128::from(pbits) - within).min(end - pos) as usize;
                for s in ploc.loc().singles() {
                    write_bits(t, s, within, &src[done..done + take])?;
                }
                pos += take as u128;
                done += take;
            }
            Ok(())
        }
    }
}

/// Reads `nbits` of an object through a location description, recording undefined bits.
pub fn read_object<T: Target + ?Sized>(
    t: &T,
    loc: &Loc,
    nbits: usize,
) -> Result<ReadBits, ErrorKind> {
    if let Some(r) = read_vector(t, loc.first(), nbits) {
        return r;
    }
    read_object_by_leaves(t, loc, nbits)
}

/// [`read_object`] without its fast way for lane vectors: every element found by walking
/// the composites from the root (the reference the fast way is tested against).
pub fn read_object_by_leaves<T: Target + ?Sized>(
    t: &T,
    loc: &Loc,
    nbits: usize,
) -> Result<ReadBits, ErrorKind> {
    let s = loc.first();
    let mut data = bitvec![u8, Lsb0; 0; nbits];
    let mut defined = bitvec![u8, Lsb0; 1; nbits];
    match &s.storage {
        // Composites: walk the leaves (non-composite storages), bytes at a time where
        // aligned.
        Storage::Composite(c) => {
            let end = s.offset + nbits as u128;
            if end > c.bits() {
                return Err(ErrorKind::AccessOutOfRange {
                    offset: s.offset,
                    bits: nbits as u128,
                    size: c.bits(),
                });
            }
            let mut pos = s.offset;
            let mut done = 0usize;
            while pos < end {
                let (leaf, leaf_offset, avail) = leaf_at(s, pos, end - pos)?;
                let take = avail as usize;
                if let Storage::Undefined = leaf {
                    defined[done..done + take].fill(false);
                } else if done % 8 == 0
                    && take % 8 == 0
                    && let Some(r) = read_aligned_in(
                        t,
                        leaf,
                        leaf_offset,
                        &mut data.as_raw_mut_slice()[done / 8..(done + take) / 8],
                    )
                {
                    r?;
                } else {
                    read_bits(
                        t,
                        &Single {
                            storage: leaf.clone(),
                            offset: leaf_offset,
                        },
                        0,
                        &mut data[done..done + take],
                        Some(&mut defined[done..done + take]),
                    )?;
                }
                pos += avail;
                done += take;
            }
        }
        _ => read_bits(t, s, 0, &mut data, Some(&mut defined))?,
    }
    Ok(ReadBits { data, defined })
}

/// Where [`read_vector_into`] puts the elements it reads.
trait ElementSink {
    /// Element `n` is undefined.
    fn undefined(&mut self, n: usize);
    /// Element `n` is `src`, every bit defined.
    fn defined(&mut self, n: usize, src: &[u8]);
    /// Every element of `lanes` is `src`, every bit defined.
    fn broadcast(&mut self, lanes: u64, src: &[u8]) {
        for n in set_bits(lanes) {
            self.defined(n, src);
        }
    }
    /// Element `n` is `data`, with bit-by-bit definedness `defined`; `false` when the sink
    /// cannot hold it (the caller then takes the general way).
    fn mixed(&mut self, n: usize, data: &[u8], defined: &[u8]) -> bool;
}

/// The elements as [`ReadBits`].
struct BitsSink {
    bytes: usize,
    data: Vec<u8>,
    defined: Vec<u8>,
}

impl ElementSink for BitsSink {
    fn undefined(&mut self, n: usize) {
        let b = self.bytes;
        self.defined[n * b..(n + 1) * b].fill(0);
    }
    #[inline(always)]
    fn defined(&mut self, n: usize, src: &[u8]) {
        if let Ok(w) = <[u8; 8]>::try_from(src) {
            // The usual element (a PC): a word, not a call per element.
            self.data[n * 8..n * 8 + 8].copy_from_slice(&w);
        } else {
            let b = self.bytes;
            self.data[n * b..(n + 1) * b].copy_from_slice(src);
        }
    }
    #[inline(always)]
    fn mixed(&mut self, n: usize, data: &[u8], defined: &[u8]) -> bool {
        let b = self.bytes;
        self.data[n * b..(n + 1) * b].copy_from_slice(data);
        self.defined[n * b..(n + 1) * b].copy_from_slice(defined);
        true
    }
}

/// The elements as 64-bit words, each wholly defined or wholly undefined.
struct WordSink {
    words: Vec<Option<u64>>,
}

impl ElementSink for WordSink {
    fn undefined(&mut self, n: usize) {
        self.words[n] = None;
    }
    #[inline(always)]
    fn defined(&mut self, n: usize, src: &[u8]) {
        self.words[n] = Some(u64::from_le_bytes(src.try_into().unwrap_or_default()));
    }
    fn broadcast(&mut self, lanes: u64, src: &[u8]) {
        let w = Some(u64::from_le_bytes(src.try_into().unwrap_or_default()));
        for n in set_bits(lanes) {
            if let Some(o) = self.words.get_mut(n) {
                *o = w;
            }
        }
    }
    fn mixed(&mut self, n: usize, data: &[u8], defined: &[u8]) -> bool {
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
        match word(defined) {
            u64::MAX => self.words[n] = Some(word(data)),
            0 => self.words[n] = None,
            _ => return false,
        }
        true
    }
}

/// [`read_object`] of a whole [`Repr::Vector`] of whole-byte elements (a lane vector, as
/// DW_OP_LLVM_extend and DW_OP_LLVM_select_bit_piece make them): each source is read once
/// (a source that is not strided is one element for every lane that takes it; a strided
/// one is the whole vector, of which those lanes take their own elements), instead of
/// walking from the root to a leaf per element. `None` when the composite is not such a
/// vector or a source cannot be read that way: the caller takes the general way, which
/// also reports every error.
fn read_vector<T: Target + ?Sized>(
    t: &T,
    s: &Single,
    nbits: usize,
) -> Option<Result<ReadBits, ErrorKind>> {
    let (bits, _) = vector_shape(s, nbits)?;
    let mut sink = BitsSink {
        bytes: bits / 8,
        data: vec![0u8; nbits / 8],
        defined: vec![0xffu8; nbits / 8],
    };
    read_vector_into(t, s, nbits, &mut sink)?;
    Some(Ok(ReadBits {
        data: BitVec::from_vec(sink.data),
        defined: BitVec::from_vec(sink.defined),
    }))
}

/// The elements of a lane vector of `count` 64-bit elements (a `DW_AT_LLVM_lane_pc`
/// vector of PCs) at `loc`, as [`read_object`] would read them: `Some` for an element
/// whose bits are all defined, `None` for one whose bits are all undefined. The outer
/// `None` when `loc` is not such a vector or an element is partly defined: read it with
/// [`read_object`] (which also reports every error).
pub fn read_words<T: Target + ?Sized>(t: &T, loc: &Loc, count: usize) -> Option<Vec<Option<u64>>> {
    let Loc::One(s) = loc else {
        return None;
    };
    let nbits = count.checked_mul(64)?;
    if vector_shape(s, nbits)?.0 != 64 {
        return None;
    }
    // As the bit vectors start: zero and defined (the sources cover every lane).
    let mut sink = WordSink {
        words: vec![Some(0); count],
    };
    read_vector_into(t, s, nbits, &mut sink)?;
    Some(sink.words)
}

/// The element size in bits and the element count of `s` when it is a whole
/// [`Repr::Vector`] of whole-byte elements, `nbits` long, of at most 64 elements.
fn vector_shape(s: &Single, nbits: usize) -> Option<(usize, usize)> {
    let Storage::Composite(c) = &s.storage else {
        return None;
    };
    let Repr::Vector(v) = &c.repr else {
        return None;
    };
    let bits = usize::try_from(v.bits).ok()?;
    let count = usize::try_from(v.count).ok()?;
    if s.offset != 0
        || bits == 0
        || bits % 8 != 0
        || count > 64
        || bits.checked_mul(count) != Some(nbits)
    {
        return None;
    }
    Some((bits, count))
}

/// The elements of vector `s` (see [`read_vector`]) into `sink` (every element it does
/// not say undefined or give is left as the sink had it: all lanes are covered by the
/// sources). `None`: take the general way.
fn read_vector_into<T: Target + ?Sized, S: ElementSink>(
    t: &T,
    s: &Single,
    nbits: usize,
    sink: &mut S,
) -> Option<()> {
    let (bits, count) = vector_shape(s, nbits)?;
    let Storage::Composite(c) = &s.storage else {
        return None;
    };
    let Repr::Vector(v) = &c.repr else {
        return None;
    };
    let bytes = bits / 8;
    let all = if count == 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    };
    for (i, src) in v.srcs.iter().enumerate() {
        let p0 = if i & 1 == 1 {
            v.planes[0]
        } else {
            !v.planes[0]
        };
        let p1 = if i & 2 == 2 {
            v.planes[1]
        } else {
            !v.planes[1]
        };
        let lanes = p0 & p1 & all;
        if lanes == 0 {
            continue;
        }
        let Loc::One(one) = &src.loc else {
            return None;
        };
        if let Storage::Undefined = one.storage {
            for n in set_bits(lanes) {
                sink.undefined(n);
            }
            continue;
        }
        let stride = if src.stride { bytes } else { 0 };
        // A register, memory or implicit source: its bytes straight into the lanes' slots
        // (all defined), without building bit vectors.
        if !matches!(one.storage, Storage::Composite(_)) {
            let (first, last) = (
                lanes.trailing_zeros() as usize,
                63 - lanes.leading_zeros() as usize,
            );
            // Strided: the span from the first lane's element to the last's; not: one.
            let (from, to) = if src.stride {
                (first * bytes, (last + 1) * bytes)
            } else {
                (0, bytes)
            };
            // One element (a broadcast PC) or at most 64 elements of at most 8 bytes on
            // the stack, else on the heap.
            let mut word = [0u8; 8];
            let mut small;
            let mut large = Vec::new();
            let buf: &mut [u8] = if to - from <= word.len() {
                &mut word[..to - from]
            } else if to - from <= 512 {
                small = [0u8; 512];
                &mut small[..to - from]
            } else {
                large.resize(to - from, 0);
                &mut large
            };
            if let Some(at) = one.offset.checked_add((from * 8) as u128)
                && let Some(Ok(())) = read_aligned_in(t, &one.storage, at, buf)
            {
                if src.stride {
                    for n in set_bits(lanes) {
                        let at = n * bytes - from;
                        sink.defined(n, &buf[at..at + bytes]);
                    }
                } else {
                    sink.broadcast(lanes, buf);
                }
                continue;
            }
        }
        // Strided: the lanes' own elements of the source; not strided: one element.
        let span = if src.stride { nbits } else { bits };
        let r = read_object(t, &src.loc, span).ok()?;
        let (rd, rdef) = (r.data.as_raw_slice(), r.defined.as_raw_slice());
        if rd.len() < span / 8 || rdef.len() < span / 8 {
            return None;
        }
        for n in set_bits(lanes) {
            let from = n * stride;
            if !sink.mixed(n, &rd[from..from + bytes], &rdef[from..from + bytes]) {
                return None;
            }
        }
    }
    Some(())
}

/// The indices of the set bits of `m`, lowest first.
fn set_bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let n = m.trailing_zeros() as usize;
            m &= m - 1;
            n
        })
    })
}

/// The non-composite storage holding bit `pos` of composite single `s`, the bit offset in
/// it, and how many bits (at most `max`) continue contiguously in that leaf. Borrowed, not
/// cloned: a lane vector reads one leaf per lane, and an implicit leaf can be the whole
/// extended vector.
fn leaf_at(s: &Single, pos: u128, max: u128) -> Result<(&Storage, u128, u128), ErrorKind> {
    let mut cur: &Storage = &s.storage;
    let mut cur_off = pos;
    let mut avail = max;
    for _ in 0..64 {
        let Storage::Composite(c) = cur else {
            return Ok((cur, cur_off, avail));
        };
        let (pstart, pbits, ps, add) = c.part_ref(cur_off)?;
        let within = cur_off - pstart;
        avail = avail.min(u128::from(pbits) - within);
        cur = &ps.storage;
        cur_off = match ps.storage {
            Storage::Undefined => 0,
            _ => ps.offset + add + within,
        };
    }
    Err(ErrorKind::CompositeTooLarge)
}

/// Checks that `nbits` at `s` plus `extra` can be written (no undefined, implicit or
/// implicit-pointer bits), so that a write is all or nothing.
fn check_writable(s: &Single, extra: u128, nbits: u128) -> Result<(), ErrorKind> {
    match &s.storage {
        Storage::Undefined => Err(ErrorKind::ReadOnly("undefined storage")),
        Storage::Implicit(_) => Err(ErrorKind::ReadOnly("implicit storage")),
        Storage::ImplicitPointer(_) => Err(ErrorKind::ReadOnly("implicit pointer storage")),
        Storage::Memory(_) | Storage::Register(_) => Ok(()),
        Storage::Composite(c) => {
            let start = s.offset + extra;
            let end = start + nbits;
            let mut pos = start;
            while pos < end {
                let (pstart, pbits, ploc) = c.part_at(pos)?;
                let within = pos - pstart;
                let take = (u128::from(pbits) - within).min(end - pos);
                for ps in ploc.loc().singles() {
                    check_writable(ps, within, take)?;
                }
                pos += take;
            }
            Ok(())
        }
    }
}

/// Writes an object's bytes through a location description (to every place it is in).
/// Nothing is written if any bit lies in read-only storage.
pub fn write_object<T: Target + ?Sized>(
    t: &mut T,
    loc: &Loc,
    data: &[u8],
) -> Result<(), ErrorKind> {
    for s in loc.singles() {
        check_writable(s, 0, data.len() as u128 * 8)?;
    }
    for s in loc.singles() {
        write_bits(t, s, 0, data.view_bits::<Lsb0>())?;
    }
    Ok(())
}

fn byte_span(start: u128, nbits: u128) -> Result<(u128, usize, usize), ErrorKind> {
    let first = start / 8;
    let shift = (start % 8) as usize;
    let nbytes = (shift as u128 + nbits).div_ceil(8);
    let nbytes = usize::try_from(nbytes)
        .ok()
        .filter(|n| *n <= 1 << 28)
        .ok_or(ErrorKind::AccessOutOfRange {
            offset: start,
            bits: nbits,
            size: 1 << 31,
        })?;
    Ok((first, shift, nbytes))
}

fn with_buf(n: usize, f: impl FnOnce(&mut [u8]) -> Result<(), ErrorKind>) -> Result<(), ErrorKind> {
    if n <= 32 {
        let mut b = [0u8; 32];
        f(&mut b[..n])
    } else {
        let mut v = vec![0u8; n];
        f(&mut v)
    }
}

fn copy_bits(buf: &[u8], shift: usize, dst: &mut BitSlice<u8, Lsb0>) {
    if shift == 0 && dst.len() % 8 == 0 && dst.len() / 8 <= buf.len() {
        // Fast path: whole bytes.
        for (d, s) in dst.chunks_exact_mut(8).zip(buf) {
            d.store_le::<u8>(*s);
        }
        return;
    }
    let bits = buf.view_bits::<Lsb0>();
    let n = dst.len();
    dst.copy_from_bitslice(&bits[shift..shift + n]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{MemTarget, MemorySpace};

    #[test]
    fn canonical_form_merges_and_flattens() {
        let mut parts = Vec::new();
        push_part(&mut parts, Loc::One(Single::register(32)), 16).unwrap();
        let mut r = Single::register(32);
        r.offset = 16;
        push_part(&mut parts, Loc::One(r), 16).unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].bits, 32);
        push_part(&mut parts, Loc::One(Single::undefined()), 8).unwrap();
        push_part(&mut parts, Loc::One(Single::undefined()), 8).unwrap();
        assert_eq!(parts.len(), 2);
        let c = composite(parts);
        // Nested: take bits 24..40 of c (undefined 8 + ... out of range).
        let mut outer = Vec::new();
        let mut sub = c.clone();
        sub.offset = 8;
        push_part(&mut outer, Loc::One(sub), 32).unwrap();
        assert_eq!(outer.len(), 2, "{outer:?}");
        assert_eq!(outer[0].loc.first().offset, 8);
        assert_eq!(outer[0].bits, 24);
        assert_eq!(outer[1].bits, 8);
        // Out of the register's storage.
        let mut p = Vec::new();
        assert!(push_part(&mut p, Loc::One(Single::register(32)), 40).is_err());
    }

    #[test]
    fn bit_granular_read_and_write() {
        let mut t = MemTarget::new(64, 0);
        t.set_sgpr(3, 0xabcd_1234);
        t.map(MemorySpace::Global, 0x1000, vec![0x11, 0x22, 0x33, 0x44]);
        let mut reg = Single::register(35);
        reg.offset = 4;
        let r = read_object(&t, &Loc::One(reg.clone()), 8).unwrap();
        assert_eq!(r.bytes(), vec![0x23]);
        // A composite: 12 bits of SGPR3 from bit 4, 4 undefined bits, 8 bits memory.
        let mut parts = Vec::new();
        push_part(&mut parts, Loc::One(reg.clone()), 12).unwrap();
        push_part(&mut parts, Loc::One(Single::undefined()), 4).unwrap();
        push_part(
            &mut parts,
            Loc::One(Single::memory(AddressSpace::Global, 0x1001)),
            8,
        )
        .unwrap();
        let c = Loc::One(composite(parts));
        let r = read_object(&t, &c, 24).unwrap();
        assert_eq!(r.bytes()[0], 0x23);
        assert_eq!(r.bytes()[1] & 0x0f, 0x1);
        assert!(r.byte_defined(0));
        assert!(!r.byte_defined(1));
        assert_eq!(r.bytes()[2], 0x22);
        // Writing through an undefined part fails; writing the register part works.
        assert!(write_object(&mut t, &c, &[0xff, 0xff, 0xff]).is_err());
        write_object(&mut t, &Loc::One(reg), &[0xee]).unwrap();
        let mut b = [0u8; 4];
        t.read_register(35, 0, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 0xabcd_1ee4);
    }

    #[test]
    fn bytewise_object_reads_equal_bitwise_reads() {
        let mut t = MemTarget::new(64, 0);
        t.set_pc(0x1234_5678_9abc);
        t.set_sgpr(2, 0xdead_beef);
        t.map(MemorySpace::Global, 0x10, (0..32).collect());
        let inner = Composite::select(
            Loc::One(Single::undefined()),
            Loc::One(Single::memory(AddressSpace::Global, 0x10)),
            Mask::Small(0b1010),
            16,
            4,
        )
        .unwrap();
        let inner = Loc::One(Single {
            storage: Storage::Composite(Arc::new(inner)),
            offset: 0,
        });
        let mut parts = Vec::new();
        push_part(&mut parts, Loc::One(Single::register(16)), 24).unwrap();
        push_part(&mut parts, inner, 64).unwrap();
        let mut reg = Single::register(34);
        reg.offset = 3;
        push_part(&mut parts, Loc::One(reg), 13).unwrap();
        push_part(&mut parts, Loc::One(Single::undefined()), 3).unwrap();
        let whole = Loc::One(composite(parts));
        for (start, n) in [(0u128, 104usize), (8, 96), (24, 64), (0, 88)] {
            let mut l = whole.first().clone();
            l.offset = start;
            let fast = read_object(&t, &Loc::One(l.clone()), n).unwrap();
            let mut data = bitvec![u8, Lsb0; 0; n];
            let mut defined = bitvec![u8, Lsb0; 1; n];
            read_bits(&t, &l, 0, &mut data, Some(&mut defined)).unwrap();
            assert_eq!(fast, ReadBits { data, defined }, "{start} {n}");
        }
    }

    /// The parts DW_OP_LLVM_select_bit_piece's definition gives, element by element, built
    /// with `push_part` alone (the reference for the flattened vector form).
    fn select_reference(l0: &Loc, l1: &Loc, mask: u64, bits: u64, count: u64) -> Vec<Part> {
        let mut parts = Vec::new();
        for n in 0..count {
            let src = if n < 64 && mask >> n & 1 == 1 { l1 } else { l0 };
            let s = src.first();
            let single = match s.storage {
                Storage::Undefined => s.clone(),
                _ => Single {
                    storage: s.storage.clone(),
                    offset: s.offset + u128::from(n) * u128::from(bits),
                },
            };
            push_part(&mut parts, Loc::One(single), bits).unwrap();
        }
        parts
    }

    fn extend_reference(pl: &Loc, bits: u64, count: u64) -> Loc {
        let mut parts = Vec::new();
        for _ in 0..count {
            push_part(&mut parts, pl.clone(), bits).unwrap();
        }
        Loc::One(composite(parts))
    }

    #[test]
    fn flattened_vector_selects_equal_their_definition() {
        let mut t = MemTarget::new(64, 0);
        t.set_pc(0x4100);
        t.set_sgpr(10, 0xffff_ffff);
        t.map(MemorySpace::Global, 0x2000, (0..=255).collect());
        let (bits, count) = (64u64, 64u64);
        let ext = |l: Loc| {
            Loc::One(Single {
                storage: Storage::Composite(Arc::new(Composite::extend(l, bits, count).unwrap())),
                offset: 0,
            })
        };
        let undef = Loc::One(Single::undefined());
        let pc = Loc::One(Single::register(16));
        let imp = Loc::One(Single::implicit(&0x4000u64.to_le_bytes()));
        let mem = Loc::One(Single::memory(AddressSpace::Global, 0x2000));
        // The lane_pc nest: select(select(extend undef, extend imp), extend pc), and
        // selects with a plain (strided) source and with sources that do not fit.
        let masks = [
            0x0000_ffff_ffff_ffffu64,
            0x0000_00ff_00ff_00ff,
            0x8000_0000_0000_0001,
        ];
        let inner = Composite::select_shared(
            ext(undef.clone()),
            ext(imp.clone()),
            Mask::Small(masks[0]),
            bits,
            count,
        )
        .unwrap();
        let inner_ref = select_reference(
            &extend_reference(&undef, bits, count),
            &extend_reference(&imp, bits, count),
            masks[0],
            bits,
            count,
        );
        assert_eq!(inner.parts(), &inner_ref[..]);
        let inner_loc = Loc::One(Single {
            storage: Storage::Composite(inner.clone()),
            offset: 0,
        });
        let inner_ref_loc = Loc::One(composite(inner_ref));
        let outer = Composite::select_shared(
            inner_loc.clone(),
            ext(pc.clone()),
            Mask::Small(masks[1]),
            bits,
            count,
        )
        .unwrap();
        let outer_ref = select_reference(
            &inner_ref_loc,
            &extend_reference(&pc, bits, count),
            masks[1],
            bits,
            count,
        );
        assert_eq!(outer.parts(), &outer_ref[..]);
        // The shared inner node was not changed by the select that used it.
        assert_eq!(
            inner.parts(),
            match &inner_ref_loc.first().storage {
                Storage::Composite(c) => c.parts(),
                _ => &[],
            }
        );
        // A plain memory source (element n at n * bits), then a fifth source (no longer
        // flattened).
        let outer_loc = Loc::One(Single {
            storage: Storage::Composite(outer),
            offset: 0,
        });
        let outer_ref_loc = Loc::One(composite(outer_ref));
        let third =
            Composite::select_shared(outer_loc, mem.clone(), Mask::Small(masks[2]), bits, count)
                .unwrap();
        let third_ref = select_reference(&outer_ref_loc, &mem, masks[2], bits, count);
        assert_eq!(third.parts(), &third_ref[..]);
        let third_loc = Loc::One(Single {
            storage: Storage::Composite(third),
            offset: 0,
        });
        let third_ref_loc = Loc::One(composite(third_ref.clone()));
        let fifth = Composite::select_shared(
            third_loc.clone(),
            ext(Loc::One(Single::register(17))),
            Mask::Small(!0),
            bits,
            count,
        )
        .unwrap();
        let fifth_ref = select_reference(
            &third_ref_loc,
            &extend_reference(&Loc::One(Single::register(17)), bits, count),
            !0,
            bits,
            count,
        );
        assert_eq!(fifth.parts(), &fifth_ref[..]);
        // Reads through the flattened form equal reads through the reference parts.
        for (start, n) in [(0u128, 64usize), (64 * 16, 64 * 8), (64 * 40 + 8, 48)] {
            let mut a = third_loc.first().clone();
            a.offset = start;
            let mut b = third_ref_loc.first().clone();
            b.offset = start;
            assert_eq!(
                read_object(&t, &Loc::One(a), n),
                read_object(&t, &Loc::One(b), n),
                "{start} {n}"
            );
        }
    }
}
