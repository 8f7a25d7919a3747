//! Memory, image and export encodings: SMEM, DS, MUBUF, MTBUF, FLAT/GLOBAL/SCRATCH,
//! MIMG and EXP.
//!
//! Opcode identities, mnemonics, the register widths of each opcode's operands and
//! the bits an opcode requires to be fixed come from the generated tables in the
//! `tables` module (probed from LLVM's disassembler, see `crates/isa/gen/mem_tables.py`,
//! which also writes the named identities of [`ops`]);
//! the field layouts and the printing rules are written here, after the ISA
//! guides' "Microcode Formats" chapters (Vega ISA §12, RDNA ISA §13, MI100/MI200
//! ISA §12).
//!
//! Operand slots are the same for every memory encoding, by field:
//!
//! | slot     | SMEM          | DS    | FLAT      | MUBUF/MTBUF | MIMG   | EXP    |
//! |----------|---------------|-------|-----------|-------------|--------|--------|
//! | `dst[0]` | sdata         | vdst  | vdst      | vdata       | vdata  | –      |
//! | `src[0]` | sbase         | addr  | vaddr     | vaddr       | vaddr  | vsrc0  |
//! | `src[1]` | soffset/offset| data0 | vdata     | srsrc       | srsrc  | vsrc1  |
//! | `src[2]` | –             | data1 | saddr     | soffset     | ssamp  | vsrc2  |
//! | `src[3]` | –             | –     | –         | –           | –      | vsrc3  |
//!
//! A data register that a store reads sits in `dst[0]` for SMEM, MUBUF, MTBUF and
//! MIMG (the encodings have a single data field used both ways), as the field
//! does; an operand that an instruction does not have is [`Operand::None`].
//! Register widths are final: a 64-bit load's `vdst` has `count: 2`, an image's
//! `vdata` counts the dmask components (halved for packed `d16`, plus one for
//! `tfe`), and a GFX10 NSA image lists its address registers after `src[0]` in
//! [`MemFields::nsa_addr`]. Immediate offsets, cache bits and modes are in
//! [`MemFields`] ([`flags::RETURN`] marks an atomic that returns the old value).
//! A GFX10 MUBUF/MTBUF literal `soffset` is an
//! [`Operand::Literal`] in `src[2]` (the instruction is then 12 bytes).
//!
//! LLVM accepts and prints some odd encodings (a special register where a tuple
//! is expected, an image whose register range would run past v255): the decoder
//! reproduces what LLVM prints, which is what the differential test checks.

pub mod ops;
mod print;
mod tables;

use crate::family::{Decoded, Family, GpuInfo};
use crate::inst::mem::EXP_OP;
use crate::inst::{Encoding, Inst, Op};
use crate::operand::{Operand, SpecialReg, decode_src};
use crate::processor::{Gen, Gpu};
use std::fmt;

pub use crate::inst::mem::{MemFields, MemOp, Segment, flags};

impl MemOp {
    /// The canonical mnemonic (`global_load_dword`, `ds_add_u32`, `exp`, ...).
    pub fn name(self) -> &'static str {
        if self == EXP_OP {
            return "exp";
        }
        tables::NAMES.get(self.0 as usize).copied().unwrap_or("")
    }

    /// Finds the operation with mnemonic `name`.
    pub fn from_name(name: &str) -> Option<MemOp> {
        if name == "exp" {
            return Some(EXP_OP);
        }
        tables::NAMES
            .iter()
            .position(|n| *n == name && !n.is_empty())
            .map(|i| MemOp(i as u16))
    }
}

/// Every operation the memory opcode tables of `gpu` hold, with its
/// encoding: each memory, image and export operation the decoder can produce
/// for that GPU, once (in encoding order, then opcode order). FLAT, GLOBAL and
/// SCRATCH operations are all [`Encoding::Flat`]; `exp` is listed for every
/// GPU but gfx90a, which has no exports.
pub fn table_operations(gpu: Gpu) -> Vec<(MemOp, Encoding)> {
    let g = gpu as usize;
    let smem: [&[Row]; 6] = [
        tables::SMEM_GFX900,
        tables::SMEM_GFX906,
        tables::SMEM_GFX908,
        tables::SMEM_GFX90A,
        tables::SMEM_GFX1010,
        tables::SMEM_GFX1030,
    ];
    let ds: [&[Row]; 6] = [
        tables::DS_GFX900,
        tables::DS_GFX906,
        tables::DS_GFX908,
        tables::DS_GFX90A,
        tables::DS_GFX1010,
        tables::DS_GFX1030,
    ];
    let flat: [&[Row]; 6] = [
        tables::FLAT_GFX900,
        tables::FLAT_GFX906,
        tables::FLAT_GFX908,
        tables::FLAT_GFX90A,
        tables::FLAT_GFX1010,
        tables::FLAT_GFX1030,
    ];
    let mtbuf: [&[Row]; 6] = [
        tables::MTBUF_GFX900,
        tables::MTBUF_GFX906,
        tables::MTBUF_GFX908,
        tables::MTBUF_GFX90A,
        tables::MTBUF_GFX1010,
        tables::MTBUF_GFX1030,
    ];
    let mimg: [&[Row]; 6] = [
        tables::MIMG_GFX900,
        tables::MIMG_GFX906,
        tables::MIMG_GFX908,
        tables::MIMG_GFX90A,
        tables::MIMG_GFX1010,
        tables::MIMG_GFX1030,
    ];
    let mut out: Vec<(MemOp, Encoding)> = Vec::new();
    for (rows, enc) in [
        (smem[g], Encoding::Smem),
        (ds[g], Encoding::Ds),
        (flat[g], Encoding::Flat),
        (MUBUF_TABLES[g], Encoding::Mubuf),
        (mtbuf[g], Encoding::Mtbuf),
        (mimg[g], Encoding::Mimg),
    ] {
        for row in rows {
            let entry = (MemOp(row.name), enc);
            if row.name != 0 && !out.contains(&entry) {
                out.push(entry);
            }
        }
    }
    if gpu != Gpu::Gfx90a {
        out.push((EXP_OP, Encoding::Exp));
    }
    out
}

/// Operation classes of a table row ([`Row::kind`]), derived from the mnemonic by
/// the generator so that decoding needs no string work.
pub(crate) mod kind {
    /// An atomic (`*_atomic_*`).
    pub const ATOMIC: u8 = 1 << 0;
    /// A compare-and-swap atomic (data holds two values).
    pub const CMPSWAP: u8 = 1 << 1;
    /// An image gather (always four components).
    pub const GATHER4: u8 = 1 << 2;
    /// A global `_addtid` access (no address VGPR).
    pub const ADDTID: u8 = 1 << 3;
    /// A DS GWS or ordered-count operation.
    pub const GWS: u8 = 1 << 4;
    /// A floating-point atomic.
    pub const FP_ATOMIC: u8 = 1 << 5;
    /// A DS two-address form (`offset0`/`offset1`).
    pub const DS_TWO: u8 = 1 << 6;
    /// An SMEM load, store or atomic (takes cache-policy bits).
    pub const SMEM_DATA: u8 = 1 << 7;
}

/// One opcode row of a generated table.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    /// Index into [`tables::NAMES`]; 0 for an invalid opcode.
    pub name: u16,
    /// Operation classes, bits of [`kind`].
    pub kind: u8,
    /// Register widths in dwords of the encoding's register roles, in the order
    /// the generator lists them (0: absent; 0x80: printed as an immediate).
    pub w: [u8; 4],
    /// Bits that must have the values in `fixed_val` (LLVM rejects other values).
    pub fixed_mask: [u32; 2],
    /// Required values of `fixed_mask` bits.
    pub fixed_val: [u32; 2],
}

impl Row {
    #[allow(dead_code)]
    pub(crate) const INVALID: Row = Row {
        name: 0,
        kind: 0,
        w: [0; 4],
        fixed_mask: [0; 2],
        fixed_val: [0; 2],
    };

    fn is(&self, k: u8) -> bool {
        self.kind & k != 0
    }

    fn accepts(&self, w0: u32, w1: u32) -> bool {
        self.name != 0
            && w0 & self.fixed_mask[0] == self.fixed_val[0]
            && w1 & self.fixed_mask[1] == self.fixed_val[1]
    }
}

/// Decodes an instruction of memory family `FAMILY` (a [`Family`] number)
/// whose first dword is `w0` into `out`: the decoder compiled for one family.
pub(crate) fn decode_family<const FAMILY: u8>(
    info: &GpuInfo,
    w0: u32,
    bytes: &[u8],
    out: &mut Inst,
) -> Decoded {
    let family = const { Family::from_number(FAMILY) };
    decode(info.gpu, family, w0, bytes, out)
}

/// Decodes an instruction of memory family `FAMILY` (a [`Family`] number)
/// for GPU number `GPU` (the order of [`Gpu::ALL`]) whose first dword is
/// `w0` into `out`: compiled once per family and GPU, so that the GPU's
/// tests and table choices are constants of its code.
pub(crate) fn decode_family_gpu<const FAMILY: u8, const GPU: usize>(
    _: &GpuInfo,
    w0: u32,
    bytes: &[u8],
    out: &mut Inst,
) -> Decoded {
    let family = const { Family::from_number(FAMILY) };
    let gpu = const { Gpu::ALL[GPU % 6] };
    decode(gpu, family, w0, bytes, out)
}

/// Decodes a memory-family instruction for `gpu` whose first dword is `w0`
/// into `out`.
#[inline(always)]
fn decode(gpu: Gpu, family: Family, w0: u32, bytes: &[u8], out: &mut Inst) -> Decoded {
    let w1 = crate::family::word(bytes, 1)?;
    // GFX10 image instructions with non-sequential addresses (NSA) carry 1-3
    // further dwords of address register numbers.
    let mut nsa_words = [0u32; 3];
    if family == Family::Mimg && gpu.generation() == Gen::Gfx10 {
        for (k, slot) in nsa_words
            .iter_mut()
            .enumerate()
            .take(field(w0, 1, 2) as usize)
        {
            *slot = crate::family::word(bytes, 2 + k)?;
        }
    }
    // The instruction is built in place: it is large, and copies of it cost more
    // than the decoding itself. `out` holds `Inst::DEFAULT` on entry (see
    // `crate::decode::decode_into`): only what differs is written.
    out.size = 8;
    out.words[0] = w0;
    out.words[1] = w1;
    out.mem.gfx10 = gpu.generation() == Gen::Gfx10;
    let i = &mut *out;
    let ok = match family {
        Family::Smem => smem(gpu, w0, w1, i),
        Family::Ds => ds(gpu, w0, w1, i),
        Family::Flat => flat(gpu, w0, w1, i),
        Family::Mubuf => mubuf(gpu, w0, w1, i),
        Family::Mtbuf => mtbuf(gpu, w0, w1, i),
        Family::Mimg => mimg(gpu, w0, w1, &nsa_words, i),
        Family::Exp => exp(gpu, w0, w1, i),
        _ => None,
    };
    if ok.is_none() {
        *out = Inst::invalid(w0);
        return Ok(4);
    }
    // A literal offset (MUBUF/MTBUF soffset = 255 on GFX10) follows as a third dword.
    if let Operand::Literal(_) = out.src[2] {
        let w2 = crate::family::word(bytes, 2)?;
        out.src[2] = Operand::Literal(w2);
        out.words[2] = w2;
        out.size = 12;
    }
    Ok(u32::from(out.size))
}

/// Sets the operation of an instruction being decoded.
fn init(i: &mut Inst, enc: Encoding, name: u16) {
    i.op = Op::Mem(MemOp(name));
    i.encoding = enc;
}

fn bit(w: u32, b: u32) -> bool {
    (w >> b) & 1 != 0
}

fn field(w: u32, lo: u32, bits: u32) -> u32 {
    (w >> lo) & ((1u32 << bits) - 1)
}

fn sext(v: u32, bits: u32) -> i32 {
    let s = 32 - bits;
    ((v << s) as i32) >> s
}

/// A scalar register tuple from a 7-bit SGPR field (SMEM sdata/sbase, FLAT
/// saddr, MUBUF srsrc): tuples are aligned down the way LLVM's disassembler does
/// (2 for 64-bit, 4 for 128-bit and wider).
#[inline(always)]
fn sreg(gpu: Gpu, code: u32, width: u8) -> Option<Operand> {
    let align_mask: u8 = match width {
        0 | 1 => 0,
        2 => 1,
        _ => 3,
    };
    let code = code as u8;
    if code <= gpu.max_sgpr() {
        let index = code & !align_mask;
        // LLVM's SGPR tuple classes end at s105, whatever the GPU addresses.
        if index as u32 + width as u32 > 106 {
            return None;
        }
        return Some(Operand::Sgpr {
            index,
            count: width,
        });
    }
    sreg_other(gpu, code, width, align_mask)
}

/// [`sreg`] for the codes above the SGPRs: trap temporaries and special registers.
#[cold]
fn sreg_other(gpu: Gpu, code: u8, width: u8, align_mask: u8) -> Option<Operand> {
    let align = align_mask + 1;
    if (108..=123).contains(&code) {
        let index = (code - 108) & !(align - 1);
        if index as u32 + width as u32 > 16 {
            return None;
        }
        return Some(Operand::Ttmp {
            index,
            count: width,
        });
    }
    let special = match code {
        102 => Some(SpecialReg::FlatScratch),
        104 => Some(SpecialReg::XnackMask),
        106 => Some(SpecialReg::Vcc),
        125 => Some(SpecialReg::Null),
        126 => Some(SpecialReg::Exec),
        _ => None,
    };
    // LLVM prints a special register where a wide tuple is expected, with a
    // comment saying so (see the printer); null is accepted on GFX9 too.
    if let Some(reg) = special {
        if width > 2 || code == 125 {
            return Some(Operand::Special {
                reg,
                count: width,
                part: 0,
            });
        }
    }
    match width {
        1 => decode_src(gpu, code as u16, 1),
        2 => {
            let reg = match code {
                102 if gpu.generation() == Gen::Gfx9 => SpecialReg::FlatScratch,
                104 if gpu.generation() == Gen::Gfx9 => SpecialReg::XnackMask,
                106 => SpecialReg::Vcc,
                126 => SpecialReg::Exec,
                _ => return None,
            };
            Some(Operand::Special {
                reg,
                count: 2,
                part: 0,
            })
        }
        _ => None,
    }
}

fn vreg(index: u32, width: u8, agpr: bool) -> Operand {
    let index = index as u8;
    if agpr {
        Operand::Agpr {
            index,
            count: width,
        }
    } else {
        Operand::Vgpr {
            index,
            count: width,
        }
    }
}

/// Whether a vector register tuple is in range.
fn vreg_ok(index: u32, width: u8) -> bool {
    width == 0 || index + width as u32 <= 256
}

// ---------------------------------------------------------------- SMEM

/// Scalar memory. GFX9 (Vega ISA, SMEM): w0 sbase[5:0] (SGPR pair / 2), sdata[12:6],
/// soe[14], nv[15], glc[16], imm[17], op[25:18]; w1 offset[20:0] (an immediate with
/// imm, else an SGPR in [6:0]), soffset[31:25] (with soe). GFX10 (RDNA ISA, SMEM):
/// dlc at [14], no imm/soe bits: soffset = null (125) selects the immediate form,
/// any other soffset adds the register to the (possibly zero) immediate.
fn smem(gpu: Gpu, w0: u32, w1: u32, i: &mut Inst) -> Option<()> {
    let op = field(w0, 18, 8) as usize;
    let table: &[Row] = match gpu {
        Gpu::Gfx900 => tables::SMEM_GFX900,
        Gpu::Gfx906 => tables::SMEM_GFX906,
        Gpu::Gfx908 => tables::SMEM_GFX908,
        Gpu::Gfx90a => tables::SMEM_GFX90A,
        Gpu::Gfx1010 => tables::SMEM_GFX1010,
        Gpu::Gfx1030 => tables::SMEM_GFX1030,
    };
    let row = table.get(op)?;
    if !row.accepts(w0, w1) {
        return None;
    }
    init(i, Encoding::Smem, row.name);
    let g10 = gpu.generation() == Gen::Gfx10;
    let sdata = field(w0, 6, 7);
    match row.w[0] {
        0 => {}
        0x80 => i.dst[0] = Operand::Imm(sdata as i32),
        w => i.dst[0] = sreg(gpu, sdata, w)?,
    }
    if row.w[1] != 0 {
        i.src[0] = sreg(gpu, field(w0, 0, 6) << 1, row.w[1])?;
    }
    let mut fl = 0;
    if bit(w0, 16) {
        fl |= flags::GLC;
    }
    if row.is(kind::SMEM_DATA) {
        fl |= flags::SMEM_DATA;
    }
    let soffset = field(w1, 25, 7);
    if g10 {
        if bit(w0, 14) {
            fl |= flags::DLC;
        }
        i.mem.offset = sext(field(w1, 0, 21), 21);
        if soffset == 125 {
            fl |= flags::IMM;
        } else {
            fl |= flags::SOE;
            if i.mem.offset != 0 {
                fl |= flags::IMM;
            }
        }
    } else {
        let imm = bit(w0, 17);
        let soe = bit(w0, 14);
        if imm {
            fl |= flags::IMM;
            i.mem.offset = sext(field(w1, 0, 21), 21);
        }
        if soe || !imm {
            fl |= flags::SOE;
        }
    }
    if fl & flags::SOE != 0 && row.w[1] != 0 {
        let code = if g10 || bit(w0, 14) {
            soffset
        } else {
            field(w1, 0, 7)
        };
        i.src[1] = sreg(gpu, code, 1)?;
    }
    i.mem.flags = fl;
    Some(())
}

// ---------------------------------------------------------------- DS

/// LDS/GDS. w0 offset0[7:0], offset1[15:8], gds[16] and op[24:17] (GFX9; gfx90a
/// acc at [25]) or gds[17] and op[25:18] (GFX10); w1 addr[7:0], data0[15:8],
/// data1[23:16], vdst[31:24]. Fields an opcode does not use must be zero.
fn ds(gpu: Gpu, w0: u32, w1: u32, i: &mut Inst) -> Option<()> {
    let g10 = gpu.generation() == Gen::Gfx10;
    let (op, gds) = if g10 {
        (field(w0, 18, 8), bit(w0, 17))
    } else {
        (field(w0, 17, 8), bit(w0, 16))
    };
    let table: &[Row] = match gpu {
        Gpu::Gfx900 => tables::DS_GFX900,
        Gpu::Gfx906 => tables::DS_GFX906,
        Gpu::Gfx908 => tables::DS_GFX908,
        Gpu::Gfx90a => tables::DS_GFX90A,
        Gpu::Gfx1010 => tables::DS_GFX1010,
        Gpu::Gfx1030 => tables::DS_GFX1030,
    };
    let row = table.get(op as usize)?;
    if !row.accepts(w0, w1) {
        return None;
    }
    let acc = gpu == Gpu::Gfx90a && bit(w0, 25);
    // GWS operations take their operand in the address field, as data.
    let gws = row.is(kind::GWS);
    init(i, Encoding::Ds, row.name);
    let fields = [
        field(w1, 0, 8),
        field(w1, 8, 8),
        field(w1, 16, 8),
        field(w1, 24, 8),
    ];
    for (k, (&f, &w)) in fields.iter().zip(row.w.iter()).enumerate() {
        if w == 0 {
            continue;
        }
        if !vreg_ok(f, w) {
            return None;
        }
        let r = vreg(f, w, acc && (k != 0 || gws));
        match k {
            0 => i.src[0] = r,
            1 => i.src[1] = r,
            2 => i.src[2] = r,
            _ => i.dst[0] = r,
        }
    }
    i.mem.offset0 = field(w0, 0, 8) as u8;
    i.mem.offset1 = field(w0, 8, 8) as u8;
    i.mem.offset = field(w0, 0, 16) as i32;
    // gfx90a has GDS only for the GWS operations; LLVM ignores the bit elsewhere.
    if gds && (gpu != Gpu::Gfx90a || gws) {
        i.mem.flags |= flags::GDS;
    }
    if acc {
        i.mem.flags |= flags::ACC;
    }
    if row.is(kind::DS_TWO) {
        i.mem.flags |= flags::OFFSET01;
    }
    Some(())
}

// ---------------------------------------------------------------- FLAT

/// Flat, scratch and global memory. w0 offset[12:0] (GFX9; [11:0] and dlc[12] on
/// GFX10), lds[13], seg[15:14], glc[16], slc[17], op[24:18] (gfx90a scc at [25]);
/// w1 addr[7:0], data[15:8], saddr[22:16], nv/acc[23], vdst[31:24].
fn flat(gpu: Gpu, w0: u32, w1: u32, i: &mut Inst) -> Option<()> {
    let g10 = gpu.generation() == Gen::Gfx10;
    let seg = field(w0, 14, 2);
    let key = (seg << 7 | field(w0, 18, 7)) as usize;
    let table: &[Row] = match gpu {
        Gpu::Gfx900 => tables::FLAT_GFX900,
        Gpu::Gfx906 => tables::FLAT_GFX906,
        Gpu::Gfx908 => tables::FLAT_GFX908,
        Gpu::Gfx90a => tables::FLAT_GFX90A,
        Gpu::Gfx1010 => tables::FLAT_GFX1010,
        Gpu::Gfx1030 => tables::FLAT_GFX1030,
    };
    let row = table.get(key)?;
    if !row.accepts(w0, w1) {
        return None;
    }
    init(i, Encoding::Flat, row.name);
    let atomic = row.is(kind::ATOMIC);
    let acc = gpu == Gpu::Gfx90a && bit(w1, 23);
    let mut fl = 0;
    if bit(w0, 16) {
        fl |= flags::GLC;
        if atomic {
            fl |= flags::RETURN;
        }
    }
    if bit(w0, 17) {
        fl |= flags::SLC;
    }
    if g10 && bit(w0, 12) {
        fl |= flags::DLC;
    }
    if gpu == Gpu::Gfx90a && bit(w0, 25) {
        fl |= flags::SCC;
    }
    if bit(w0, 13) {
        fl |= flags::LDS;
    }
    if acc {
        fl |= flags::ACC;
    }
    i.mem.seg = match seg {
        0 => Segment::Flat,
        1 => Segment::Scratch,
        _ => Segment::Global,
    };
    let off_bits = if g10 { 12 } else { 13 };
    let raw_off = field(w0, 0, off_bits);
    // Flat offsets are unsigned; global/scratch offsets are signed (13 bits on
    // GFX9, 12 on GFX10).
    i.mem.offset = if seg == 0 {
        raw_off as i32
    } else {
        sext(raw_off, off_bits)
    };
    let saddr = field(w1, 16, 7);
    let [_, data_w, _, vdst_w] = row.w;
    let vaddr = field(w1, 0, 8);
    // "off" is 0x7f on GFX9 and 0x7d (null) on GFX10, where 0x7f is rejected for
    // global and means "no address at all" for scratch (ST mode).
    let saddr_off = if g10 { saddr == 0x7d } else { saddr == 0x7f };
    if g10 && saddr == 0x7f && i.mem.seg == Segment::Global {
        return None;
    }
    if gpu == Gpu::Gfx90a && fl & flags::SCC != 0 && atomic && row.is(kind::FP_ATOMIC) {
        return None;
    }
    match i.mem.seg {
        _ if row.is(kind::ADDTID) => {
            // `_addtid` forms have no address VGPR.
            if saddr_off {
                fl |= flags::SADDR_OFF;
            } else {
                i.src[2] = sreg(gpu, saddr, 2)?;
            }
        }
        Segment::Flat => {
            if !vreg_ok(vaddr, 2) {
                return None;
            }
            i.src[0] = vreg(vaddr, 2, false);
        }
        Segment::Global => {
            if saddr_off {
                fl |= flags::SADDR_OFF;
                if !vreg_ok(vaddr, 2) {
                    return None;
                }
                i.src[0] = vreg(vaddr, 2, false);
            } else {
                i.src[0] = vreg(vaddr, 1, false);
                i.src[2] = sreg(gpu, saddr, 2)?;
            }
        }
        Segment::Scratch | Segment::None => {
            if saddr_off {
                fl |= flags::SADDR_OFF;
                i.src[0] = vreg(vaddr, 1, false);
            } else if g10 && saddr == 0x7f {
                fl |= flags::VADDR_OFF;
                if gpu == Gpu::Gfx1030 {
                    fl |= flags::SADDR_OFF;
                } else {
                    // gfx1010 has no ST mode: LLVM prints the register it names.
                    i.src[2] = Operand::Special {
                        reg: SpecialReg::Exec,
                        count: 1,
                        part: 1,
                    };
                    fl |= flags::SADDR_EXEC_HI;
                }
            } else {
                fl |= flags::VADDR_OFF;
                i.src[2] = sreg(gpu, saddr, 1)?;
            }
        }
    }
    if data_w != 0 {
        let d = field(w1, 8, 8);
        if !vreg_ok(d, data_w) {
            return None;
        }
        i.src[1] = vreg(d, data_w, acc);
    }
    let vdst = field(w1, 24, 8);
    let mut dst_w = vdst_w;
    if atomic && fl & flags::RETURN != 0 {
        dst_w = if row.is(kind::CMPSWAP) {
            data_w / 2
        } else {
            data_w
        };
    }
    if fl & flags::LDS != 0 && !atomic {
        // LDS-direct loads have no destination and no `nv`/`acc` bit.
        if bit(w1, 23) {
            return None;
        }
        dst_w = 0;
    }
    if dst_w != 0 {
        if !vreg_ok(vdst, dst_w) {
            return None;
        }
        i.dst[0] = vreg(vdst, dst_w, acc);
    }
    i.mem.flags = fl;
    Some(())
}

// ---------------------------------------------------------------- MUBUF / MTBUF

/// Fields shared by MUBUF and MTBUF: w0 offset[11:0], offen[12], idxen[13],
/// glc[14] (GFX10 dlc[15]); w1 vaddr[7:0], vdata[15:8], srsrc[20:16] (SGPR quad / 4),
/// tfe[23] (gfx90a: acc), soffset[31:24]. `fl` holds the flags the caller gathered
/// (all flags are built in a register and stored once), `slc` the bit where the
/// encoding keeps it, `lds` whether the data goes to LDS (MUBUF only: no data
/// register then, though its field is still checked, as LLVM does).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn buffer_fields(
    gpu: Gpu,
    i: &mut Inst,
    row: &Row,
    w0: u32,
    w1: u32,
    mut fl: u32,
    slc: bool,
    lds: bool,
) -> Option<()> {
    let g10 = gpu.generation() == Gen::Gfx10;
    if bit(w0, 12) {
        fl |= flags::OFFEN;
    }
    if bit(w0, 13) {
        fl |= flags::IDXEN;
    }
    if bit(w0, 14) {
        fl |= flags::GLC;
        if row.is(kind::ATOMIC) {
            fl |= flags::RETURN;
        }
    }
    if slc {
        fl |= flags::SLC;
    }
    if g10 && bit(w0, 15) {
        fl |= flags::DLC;
    }
    let tfe_bit = bit(w1, 23);
    let acc = gpu == Gpu::Gfx90a && tfe_bit;
    if acc {
        fl |= flags::ACC;
    } else if tfe_bit {
        fl |= flags::TFE;
    }
    i.mem.offset = field(w0, 0, 12) as i32;
    let na = (bit(w0, 12) as u8) + (bit(w0, 13) as u8);
    let vaddr = field(w1, 0, 8);
    if row.w[0] == 0 {
        // No address VGPR at all (`buffer_store_lds_dword`).
        fl |= flags::SADDR_OFF;
    } else if na != 0 {
        if !vreg_ok(vaddr, na) {
            return None;
        }
        i.src[0] = vreg(vaddr, na, false);
    }
    let mut dw = row.w[1];
    if fl & flags::TFE != 0 && dw != 0 {
        dw += 1;
    }
    if dw != 0 {
        let d = field(w1, 8, 8);
        if !vreg_ok(d, dw) {
            return None;
        }
        if !lds {
            i.dst[0] = vreg(d, dw, acc);
        }
    }
    i.src[1] = sreg(gpu, field(w1, 16, 5) << 2, 4)?;
    let so = field(w1, 24, 8);
    i.src[2] = match so {
        125 => Operand::Special {
            reg: SpecialReg::Null,
            count: 1,
            part: 0,
        },
        // GFX10 accepts a literal constant as the offset (a third dword).
        255 if g10 => Operand::Literal(0),
        // (125 is handled above: the lookup agrees with `decode_src` on
        // every other code.)
        _ => crate::alu::scalar_dword(gpu, so)?,
    };
    i.mem.flags = fl;
    Some(())
}

/// The MUBUF opcode tables by GPU (the order of [`Gpu::ALL`]).
static MUBUF_TABLES: [&[Row]; 6] = [
    tables::MUBUF_GFX900,
    tables::MUBUF_GFX906,
    tables::MUBUF_GFX908,
    tables::MUBUF_GFX90A,
    tables::MUBUF_GFX1010,
    tables::MUBUF_GFX1030,
];

/// Untyped buffer access: op[24:18] (+ op[7] at [25] on GFX10), lds[16], GFX9
/// slc[17], gfx90a scc[15]; the fields shared with MTBUF in [`buffer_fields`].
#[inline(always)]
fn mubuf(gpu: Gpu, w0: u32, w1: u32, i: &mut Inst) -> Option<()> {
    let g10 = gpu.generation() == Gen::Gfx10;
    let op = if g10 {
        field(w0, 18, 8) as usize
    } else {
        field(w0, 18, 7) as usize
    };
    let row = MUBUF_TABLES.get(gpu as usize)?.get(op)?;
    if !row.accepts(w0, w1) {
        return None;
    }
    init(i, Encoding::Mubuf, row.name);
    if row.w[2] == 0 {
        // Cache controls (`buffer_wbinvl1`, `buffer_gl0_inv`, ...) have no
        // operands (nor any other flag).
        i.mem.flags = flags::NO_OPERANDS;
        return Some(());
    }
    let lds = bit(w0, 16);
    let tfe_bit = bit(w1, 23);
    if lds && tfe_bit {
        // LDS loads have neither TFE nor AGPR data (bit 23 of the second dword).
        return None;
    }
    let mut fl = 0;
    if lds {
        fl |= flags::LDS;
    }
    if gpu == Gpu::Gfx90a && bit(w0, 15) {
        fl |= flags::SCC;
    }
    let slc = if g10 { bit(w1, 22) } else { bit(w0, 17) };
    buffer_fields(gpu, i, row, w0, w1, fl, slc, lds)
}

/// Typed buffer access: GFX9 op[18:15], dfmt[22:19], nfmt[25:23]; GFX10 op[18:16]
/// with op[3] at w1[21] and a unified format[25:19]; gfx90a scc at w1[21].
fn mtbuf(gpu: Gpu, w0: u32, w1: u32, i: &mut Inst) -> Option<()> {
    let g10 = gpu.generation() == Gen::Gfx10;
    let (op, format) = if g10 {
        (field(w0, 16, 3) | (field(w1, 21, 1) << 3), field(w0, 19, 7))
    } else {
        (field(w0, 15, 4), field(w0, 19, 7))
    };
    let table: &[Row] = match gpu {
        Gpu::Gfx900 => tables::MTBUF_GFX900,
        Gpu::Gfx906 => tables::MTBUF_GFX906,
        Gpu::Gfx908 => tables::MTBUF_GFX908,
        Gpu::Gfx90a => tables::MTBUF_GFX90A,
        Gpu::Gfx1010 => tables::MTBUF_GFX1010,
        Gpu::Gfx1030 => tables::MTBUF_GFX1030,
    };
    let row = table.get(op as usize)?;
    if !row.accepts(w0, w1) {
        return None;
    }
    init(i, Encoding::Mtbuf, row.name);
    i.mem.format = format as u8;
    if row.w[2] == 0 {
        // A row without operands (as MUBUF's cache controls).
        i.mem.flags = flags::NO_OPERANDS;
        return Some(());
    }
    let fl = if gpu == Gpu::Gfx90a && bit(w1, 21) {
        flags::SCC
    } else {
        0
    };
    buffer_fields(gpu, i, row, w0, w1, fl, bit(w1, 22), false)
}

// ---------------------------------------------------------------- MIMG

/// Image instructions. GFX9: w0 dmask[11:8] unorm[12] glc[13] da[14] a16[15]
/// tfe[16] (gfx90a: acc) lwe[17] op[24:18] slc[25]; w1 vaddr[7:0] vdata[15:8]
/// srsrc[20:16] ssamp[25:21] d16[31]. GFX10 adds op[7] at w0[0], nsa[2:1] (extra
/// address dwords), dim[5:3], dlc[7], r128[15], a16 at w1[30].
///
/// How many data and address registers an opcode prints depends on dmask, tfe,
/// d16, dim and a16 in ways LLVM's disassembler resolves by looking for an
/// instruction variant of the computed sizes (keeping the decoded form when there
/// is none): the generated `MIMG_DATA_*` / `MIMG_ADDR_*` tables hold the outcome.
fn mimg(gpu: Gpu, w0: u32, w1: u32, nsa_words: &[u32; 3], i: &mut Inst) -> Option<()> {
    let g10 = gpu.generation() == Gen::Gfx10;
    let key = if g10 {
        (field(w0, 18, 7) | (field(w0, 0, 1) << 7)) as usize
    } else {
        field(w0, 18, 7) as usize
    };
    let (rows, data_t) = mimg_tables(gpu);
    let row = rows.get(key)?;
    // The NSA field changes the instruction length; it is checked through the
    // address table below rather than the fixed bits.
    let nsa_mask = if g10 { 0x6 } else { 0 };
    if row.name == 0
        || w0 & row.fixed_mask[0] & !nsa_mask != row.fixed_val[0] & !nsa_mask
        || w1 & row.fixed_mask[1] != row.fixed_val[1]
    {
        return None;
    }
    init(i, Encoding::Mimg, row.name);
    let dmask = field(w0, 8, 4);
    let mut fl = mimg_flags(gpu, w0, w1);
    let acc = fl & flags::ACC != 0;
    let (def_data, def_addr) = (row.w[1], row.w[0]);
    let pop = dmask.count_ones().clamp(1, 4);
    let c = (pop - 1) as usize
        | ((fl & flags::TFE != 0) as usize) << 2
        | ((fl & flags::D16 != 0) as usize) << 3;
    let dw = match data_t.get(key).and_then(|d| d.get(c)) {
        Some(&w) if w != 0 => w,
        _ => def_data,
    };
    // The width LLVM computes; when no instruction variant has it, LLVM keeps the
    // decoded form for both data and address.
    let mut want = if row.is(kind::GATHER4) { 4 } else { pop as u8 };
    if fl & flags::D16 != 0 && !row.is(kind::ATOMIC) {
        want = want.div_ceil(2);
    }
    if fl & flags::TFE != 0 {
        want += 1;
    }
    // Data widths with no instruction variant keep the decoded data register
    // (the address is still resized).
    let data_missing = dw != want && dw == def_data;
    let (mut dw, naddr, nsa) = if g10 {
        let (dw, naddr, wide) = mimg_gfx10_sizes(gpu, row, key, (w0, w1), dw, data_missing)?;
        if wide {
            fl |= flags::NSA_WIDE;
        }
        i.mem.dim = field(w0, 3, 3) as u8;
        (dw, naddr, field(w0, 1, 2) as usize)
    } else {
        (dw, def_addr, 0)
    };
    let vdata = field(w1, 8, 8);
    let vaddr = field(w1, 0, 8);
    // The decoded form's own data registers must exist.
    if !vreg_ok(vdata, def_data) {
        return None;
    }
    if !g10 && !vreg_ok(vdata, dw) {
        dw = def_data;
    }
    if !vreg_ok(vdata, dw) || (nsa == 0 && !vreg_ok(vaddr, naddr)) {
        return None;
    }
    i.dst[0] = vreg(vdata, dw, acc);
    if nsa == 0 {
        if naddr != 0 {
            i.src[0] = vreg(vaddr, naddr, false);
        }
    } else {
        fl |= flags::NSA;
        mimg_nsa_address(i, vaddr, naddr, nsa, nsa_words);
    }
    i.src[1] = sreg(gpu, field(w1, 16, 5) << 2, 8)?;
    if row.w[3] != 0 {
        i.src[2] = sreg(gpu, field(w1, 21, 5) << 2, 4)?;
    }
    i.mem.dmask = dmask as u8;
    i.mem.flags = fl;
    Some(())
}

/// The MIMG opcode rows and data-width table of `gpu` (generated).
fn mimg_tables(gpu: Gpu) -> (&'static [Row], &'static [[u8; 16]]) {
    match gpu {
        Gpu::Gfx900 => (tables::MIMG_GFX900, tables::MIMG_DATA_GFX900),
        Gpu::Gfx906 => (tables::MIMG_GFX906, tables::MIMG_DATA_GFX906),
        Gpu::Gfx908 => (tables::MIMG_GFX908, tables::MIMG_DATA_GFX908),
        Gpu::Gfx90a => (tables::MIMG_GFX90A, tables::MIMG_DATA_GFX90A),
        Gpu::Gfx1010 => (tables::MIMG_GFX1010, tables::MIMG_DATA_GFX1010),
        Gpu::Gfx1030 => (tables::MIMG_GFX1030, tables::MIMG_DATA_GFX1030),
    }
}

/// The [`flags`] of a MIMG instruction's bits (gfx90a's `acc` in place of
/// `tfe`, and its `scc`).
fn mimg_flags(gpu: Gpu, w0: u32, w1: u32) -> u32 {
    let mut fl = 0;
    for (b, f) in [
        (12, flags::UNORM),
        (13, flags::GLC),
        (16, flags::TFE),
        (17, flags::LWE),
        (25, flags::SLC),
    ] {
        if bit(w0, b) {
            fl |= f;
        }
    }
    if bit(w1, 31) {
        fl |= flags::D16;
    }
    if gpu.generation() == Gen::Gfx10 {
        if bit(w0, 7) {
            fl |= flags::DLC;
        }
        if bit(w0, 15) {
            fl |= flags::R128;
        }
        if bit(w1, 30) {
            fl |= flags::A16;
        }
    } else {
        if bit(w0, 14) {
            fl |= flags::DA;
        }
        if bit(w0, 15) {
            fl |= flags::A16;
        }
    }
    if gpu == Gpu::Gfx90a && bit(w0, 16) {
        fl = (fl & !flags::TFE) | flags::ACC;
    }
    if gpu == Gpu::Gfx90a && bit(w0, 7) {
        fl |= flags::SCC;
    }
    fl
}

/// GFX10's data and address register counts of a MIMG instruction (the
/// generated `MIMG_ADDR_*` table by dim, a16 and nsa), where LLVM keeps the
/// decoded form (a register range past v255, a data width `dw` no variant
/// has); and whether the form is a wide NSA one.
fn mimg_gfx10_sizes(
    gpu: Gpu,
    row: &Row,
    key: usize,
    (w0, w1): (u32, u32),
    mut dw: u8,
    data_missing: bool,
) -> Option<(u8, u8, bool)> {
    let def_data = row.w[1];
    let nsa = field(w0, 1, 2) as usize;
    let mut keep_decoded = false;
    let addr_t = if gpu == Gpu::Gfx1030 {
        tables::MIMG_ADDR_GFX1030
    } else {
        tables::MIMG_ADDR_GFX1010
    };
    let k = field(w0, 3, 3) as usize | (bit(w1, 30) as usize) << 3 | nsa << 4;
    let at = addr_t.get(key)?;
    let a = *at.get(k)?;
    if a == 0 {
        return None;
    }
    let mut naddr = a & 0x3f;
    if a & 0x80 != 0 {
        keep_decoded = true;
    }
    // A register range past v255 keeps the decoded form, as LLVM does.
    let vaddr = field(w1, 0, 8);
    let addr_out = nsa == 0 && !vreg_ok(vaddr, naddr);
    if !vreg_ok(field(w1, 8, 8), dw) {
        keep_decoded = true;
    }
    // Where LLVM keeps the decoded form, the address count is the decoded
    // variant's: probed with the data registers out of range (64 + nsa) or
    // with a data width no variant has (68 + nsa).
    let decoded = |first: usize, second: usize| -> Option<u8> {
        [first, second]
            .iter()
            .filter_map(|&k| at.get(k + nsa).copied())
            .find(|&n| n != 0)
            .map(|n| n & 0x3f)
    };
    if keep_decoded || addr_out {
        dw = def_data;
        if let Some(n) = decoded(64, 68) {
            naddr = n;
        }
    } else if data_missing {
        dw = def_data;
        if let Some(n) = decoded(68, 64) {
            naddr = n;
        }
    }
    Some((dw, naddr, a & 0x40 != 0))
}

/// The address of a GFX10 NSA form: the first register `vaddr`, the others
/// (of `naddr`, at most 13) from the `nsa` extra dwords.
fn mimg_nsa_address(i: &mut Inst, vaddr: u32, naddr: u8, nsa: usize, nsa_words: &[u32; 3]) {
    i.src[0] = vreg(vaddr, 1, false);
    let n = (naddr as usize).min(13);
    for k in 1..n {
        let word = nsa_words.get((k - 1) / 4).copied().unwrap_or(0);
        if let Some(slot) = i.mem.nsa_addr.get_mut(k - 1) {
            *slot = (word >> (8 * ((k - 1) % 4))) as u8;
        }
    }
    i.mem.naddr = n as u8;
    i.size = 8 + 4 * nsa as u8;
    i.words[2] = nsa_words[0];
}

// ---------------------------------------------------------------- EXP

/// Export. w0 en[3:0], target[9:4], compr[10], done[11], vm[12]; w1 vsrc0..3, one
/// byte each. Targets: mrt0-7 (0-7), mrtz (8), null (9), pos0-3 (12-15), GFX10
/// pos4 (16) and prim (20), param0-31 (32-63); LLVM prints any other value as
/// `invalid_target_N`.
fn exp(gpu: Gpu, w0: u32, w1: u32, i: &mut Inst) -> Option<()> {
    // gfx90a (compute only) has no exports.
    if gpu == Gpu::Gfx90a {
        return None;
    }
    let tgt = field(w0, 4, 6);
    i.op = Op::Mem(EXP_OP);
    i.encoding = Encoding::Exp;
    let en = field(w0, 0, 4);
    let compr = bit(w0, 10);
    for k in 0..4u32 {
        if bit(en, k) {
            // Compressed exports carry two packed registers: slots 0-1 read vsrc0,
            // slots 2-3 read vsrc1.
            let src = if compr { k / 2 } else { k };
            i.src[k as usize] = vreg(field(w1, 8 * src, 8), 1, false);
        }
    }
    let mut fl = 0;
    if compr {
        fl |= flags::COMPR;
    }
    if bit(w0, 11) {
        fl |= flags::DONE;
    }
    if bit(w0, 12) {
        fl |= flags::VM;
    }
    i.mem.flags = fl;
    i.mem.dmask = en as u8;
    i.mem.dim = tgt as u8;
    Some(())
}

/// Prints a memory instruction in llvm-mc syntax.
pub(crate) fn fmt_inst(inst: &Inst, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    print::fmt_inst(inst, f)
}

#[cfg(test)]
mod tests;
