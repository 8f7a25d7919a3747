//! The memory part of an instruction: the operation's identity ([`MemOp`]) and the
//! fields of the memory encodings ([`MemFields`], [`flags`], [`Segment`]). The names
//! behind the identities come from the generated tables of the memory decoder
//! (`crate::mem`).

/// Identity of a memory operation: an index into the table of memory mnemonics,
/// shared by every GPU and encoding variant that carries the same operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MemOp(pub u16);

/// The export operation (EXP has no opcode field).
pub(crate) const EXP_OP: MemOp = MemOp(u16::MAX);

/// Cache-policy and mode bits of a memory instruction ([`MemFields::flags`]).
pub mod flags {
    /// Globally coherent (GLC; `sc0` on gfx90a atomics means return the old value).
    pub const GLC: u32 = 1 << 0;
    /// System level coherent (SLC).
    pub const SLC: u32 = 1 << 1;
    /// Device level coherent (DLC, GFX10).
    pub const DLC: u32 = 1 << 2;
    /// Access GDS instead of LDS (DS).
    pub const GDS: u32 = 1 << 3;
    /// Data goes to LDS instead of VGPRs (MUBUF, FLAT global/scratch).
    pub const LDS: u32 = 1 << 4;
    /// Texture fail enable: an extra status dword is returned (MUBUF/MTBUF/MIMG).
    pub const TFE: u32 = 1 << 5;
    /// LOD warning enable (MIMG).
    pub const LWE: u32 = 1 << 6;
    /// The address has an offset VGPR (MUBUF/MTBUF).
    pub const OFFEN: u32 = 1 << 7;
    /// The address has an index VGPR (MUBUF/MTBUF).
    pub const IDXEN: u32 = 1 << 8;
    /// Unnormalised texture coordinates (MIMG).
    pub const UNORM: u32 = 1 << 9;
    /// Declare an array (MIMG, GFX9).
    pub const DA: u32 = 1 << 10;
    /// 128-bit resource descriptor (MIMG `r128`, GFX10; on GFX9 that bit is `a16`).
    pub const R128: u32 = 1 << 11;
    /// 16-bit addresses (MIMG `a16`).
    pub const A16: u32 = 1 << 12;
    /// 16-bit data (MIMG `d16`).
    pub const D16: u32 = 1 << 13;
    /// Scalar cache coherence bit of gfx90a (`scc`).
    pub const SCC: u32 = 1 << 14;
    /// Data registers are AGPRs (gfx90a `acc` bit).
    pub const ACC: u32 = 1 << 15;
    /// Export: compressed (16-bit packed) data.
    pub const COMPR: u32 = 1 << 16;
    /// Export: last export of this type (`done`).
    pub const DONE: u32 = 1 << 17;
    /// Export: the valid mask is in EXEC (`vm`).
    pub const VM: u32 = 1 << 18;
    /// SMEM: the instruction has an immediate offset.
    pub const IMM: u32 = 1 << 19;
    /// SMEM: the instruction has an SGPR offset (`soffset`).
    pub const SOE: u32 = 1 << 20;
    /// FLAT/GLOBAL/SCRATCH: the `saddr` field is "off".
    pub const SADDR_OFF: u32 = 1 << 21;
    /// FLAT/GLOBAL/SCRATCH: the `vaddr` field is "off" (scratch with an SGPR address).
    pub const VADDR_OFF: u32 = 1 << 22;
    /// The atomic returns the previous value (GLC on an atomic).
    pub const RETURN: u32 = 1 << 23;
    /// DS two-address form: `offset0`/`offset1` address two elements.
    pub const OFFSET01: u32 = 1 << 28;
    /// SMEM load, store or atomic: the cache-policy bits apply (and print).
    pub const SMEM_DATA: u32 = 1 << 29;
    /// MUBUF cache controls (`buffer_wbinvl1`, ...): no operands or modifiers.
    pub const NO_OPERANDS: u32 = 1 << 27;
    /// FLAT scratch (gfx1010): `saddr` names `exec_hi`, which LLVM prints with a comment.
    pub const SADDR_EXEC_HI: u32 = 1 << 26;
    /// MIMG (GFX10): the addresses are listed non-sequentially ([`super::MemFields::nsa_addr`]).
    pub const NSA: u32 = 1 << 24;
    /// MIMG (GFX10): LLVM prints this NSA form with two spaces after the mnemonic.
    pub const NSA_WIDE: u32 = 1 << 25;
}

/// Address segment of a FLAT-encoded instruction (`seg` field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Segment {
    /// Not a FLAT-encoded instruction.
    #[default]
    None,
    /// Generic (flat) address.
    Flat,
    /// Scratch (private) memory.
    Scratch,
    /// Global memory.
    Global,
}

/// Memory instruction fields, resolved at decode time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MemFields {
    /// Byte offset: SMEM/MUBUF/MTBUF/FLAT immediate offset (sign-extended where the
    /// field is signed), DS `offset` (offset0 | offset1 << 8).
    pub offset: i32,
    /// DS `offset0` (two-address forms); low byte of `offset`.
    pub offset0: u8,
    /// DS `offset1` (two-address forms); high byte of `offset`.
    pub offset1: u8,
    /// Bits from [`flags`].
    pub flags: u32,
    /// MIMG `dmask` (which components), EXP `en` (which sources are enabled).
    pub dmask: u8,
    /// MIMG `dim` (GFX10), EXP target number.
    pub dim: u8,
    /// MTBUF format (GFX9: dfmt | nfmt << 4; GFX10: unified format).
    pub format: u8,
    /// FLAT segment.
    pub seg: Segment,
    /// Decoded for a GFX10 GPU (some fields print differently there).
    pub gfx10: bool,
    /// MIMG NSA form: total number of address VGPRs (the first is `src[0]`).
    pub naddr: u8,
    /// MIMG NSA form: address VGPRs after the first, in order.
    pub nsa_addr: [u8; 12],
}

impl MemFields {
    /// [`MemFields::default`] as a constant.
    pub(crate) const DEFAULT: MemFields = MemFields {
        offset: 0,
        offset0: 0,
        offset1: 0,
        flags: 0,
        dmask: 0,
        dim: 0,
        format: 0,
        seg: Segment::None,
        gfx10: false,
        naddr: 0,
        nsa_addr: [0; 12],
    };

    /// Whether flag bit(s) `f` (from [`flags`]) are set.
    pub fn has(&self, f: u32) -> bool {
        self.flags & f != 0
    }
}
