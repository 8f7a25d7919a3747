//! Printing of memory instructions in the syntax of `llvm-mc-19 --disassemble`.

use super::{EXP_OP, MemOp, Segment, flags};
use crate::Inst;
use crate::inst::{Encoding, Op};
use crate::operand::Operand;
use std::fmt;

/// Writes `v` the way LLVM prints SMEM offsets: `0x1f`, `-0x1`.
fn hex_signed(f: &mut fmt::Formatter<'_>, v: i32) -> fmt::Result {
    if v < 0 {
        write!(f, "-0x{:x}", (v as i64).unsigned_abs())
    } else {
        write!(f, "0x{v:x}")
    }
}

/// Prints a 32-bit literal operand the way LLVM does: a value an inline constant
/// could encode prints as that constant (`-1`, `64`, `1.0`), anything else in hex.
fn literal32(f: &mut fmt::Formatter<'_>, v: u32) -> fmt::Result {
    let i = v as i32;
    if (-16..=64).contains(&i) {
        return write!(f, "{i}");
    }
    let name = match v {
        0x3f00_0000 => "0.5",
        0xbf00_0000 => "-0.5",
        0x3f80_0000 => "1.0",
        0xbf80_0000 => "-1.0",
        0x4000_0000 => "2.0",
        0xc000_0000 => "-2.0",
        0x4080_0000 => "4.0",
        0xc080_0000 => "-4.0",
        0x3e22_f983 => "0.15915494",
        _ => return write!(f, "0x{v:x}"),
    };
    f.write_str(name)
}

/// Joins operands with ", " after the mnemonic.
struct List<'a, 'b> {
    f: &'a mut fmt::Formatter<'b>,
    first: bool,
}

impl<'a, 'b> List<'a, 'b> {
    fn new(f: &'a mut fmt::Formatter<'b>, name: &str) -> Result<Self, fmt::Error> {
        f.write_str(name)?;
        Ok(List { f, first: true })
    }
    fn sep(&mut self) -> fmt::Result {
        let s = if self.first { " " } else { ", " };
        self.first = false;
        self.f.write_str(s)
    }
    fn op(&mut self, o: &Operand) -> fmt::Result {
        if o.is_some() {
            self.sep()?;
            operand(self.f, o)?;
        }
        Ok(())
    }
    fn text(&mut self, t: &str) -> fmt::Result {
        self.sep()?;
        self.f.write_str(t)
    }
}

/// Prints an operand; a special register standing where a tuple of more than two
/// SGPRs is expected prints with LLVM's comment (`exec/*Invalid register, operand
/// has 'SReg_128' register class*/`), except `null`, which LLVM accepts anywhere.
fn operand(f: &mut fmt::Formatter<'_>, o: &Operand) -> fmt::Result {
    match *o {
        Operand::Special {
            reg: crate::operand::SpecialReg::Null,
            ..
        } => f.write_str("null"),
        Operand::Special { reg, count, .. } if count > 2 => write!(
            f,
            "{reg}/*Invalid register, operand has 'SReg_{}' register class*/",
            32 * count as u32
        ),
        _ => write!(f, "{o}"),
    }
}

pub(super) fn fmt_inst(inst: &Inst, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let Op::Mem(op) = inst.op else {
        return write!(f, "<invalid 0x{:08x}>", inst.words[0]);
    };
    if op == EXP_OP {
        return exp(inst, f);
    }
    let name = MemOp::name(op);
    match inst.encoding {
        Encoding::Smem => smem(inst, name, f),
        Encoding::Ds => ds(inst, name, f),
        Encoding::Flat => flat(inst, name, f),
        Encoding::Mubuf | Encoding::Mtbuf => buffer(inst, name, f),
        Encoding::Mimg => mimg(inst, name, f),
        _ => write!(f, "<invalid 0x{:08x}>", inst.words[0]),
    }
}

fn flag(f: &mut fmt::Formatter<'_>, inst: &Inst, fl: u32, text: &str) -> fmt::Result {
    if inst.mem.has(fl) {
        write!(f, " {text}")?;
    }
    Ok(())
}

fn smem(inst: &Inst, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let m = &inst.mem;
    let mut l = List::new(f, name)?;
    match inst.dst[0] {
        Operand::Imm(v) if v > 64 => {
            l.sep()?;
            write!(l.f, "0x{v:x}")?;
        }
        ref o => {
            l.op(o)?;
            if let Operand::Special {
                reg: crate::operand::SpecialReg::Exec | crate::operand::SpecialReg::M0,
                count,
                ..
            } = *o
            {
                if count <= 2 {
                    let class = if count == 1 {
                        "SReg_32_XM0_XEXEC"
                    } else {
                        "SReg_64_XEXEC"
                    };
                    write!(
                        l.f,
                        "/*Invalid register, operand has '{class}' register class*/"
                    )?;
                }
            }
        }
    }
    if inst.src[0].is_some() {
        l.op(&inst.src[0])?;
        if m.has(flags::SOE) {
            l.op(&inst.src[1])?;
            if m.has(flags::IMM) {
                l.f.write_str(" offset:")?;
                hex_signed(l.f, m.offset)?;
            }
        } else if m.gfx10 && m.offset == 0 {
            l.text("null")?;
        } else {
            l.sep()?;
            hex_signed(l.f, m.offset)?;
        }
    }
    if m.has(flags::SMEM_DATA) {
        flag(f, inst, flags::GLC, "glc")?;
        flag(f, inst, flags::DLC, "dlc")?;
    }
    Ok(())
}

fn ds(inst: &Inst, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let m = &inst.mem;
    let mut l = List::new(f, name)?;
    l.op(&inst.dst[0])?;
    for s in &inst.src[..3] {
        l.op(s)?;
    }
    if m.has(flags::OFFSET01) {
        if m.offset0 != 0 {
            write!(f, " offset0:{}", m.offset0)?;
        }
        if m.offset1 != 0 {
            write!(f, " offset1:{}", m.offset1)?;
        }
    } else if m.offset != 0 {
        if name == "ds_swizzle_b32" {
            swizzle(f, m.offset as u16)?;
        } else {
            write!(f, " offset:{}", m.offset)?;
        }
    }
    flag(f, inst, flags::GDS, "gds")
}

/// `ds_swizzle_b32` offsets print as `swizzle(...)` macros, as LLVM's
/// instruction printer does (ISA guides, DS_SWIZZLE_B32: bit 15 with 0x80 in the
/// high byte selects QUAD_PERM, bit 15 clear selects the and/or/xor bit masks).
fn swizzle(f: &mut fmt::Formatter<'_>, imm: u16) -> fmt::Result {
    f.write_str(" offset:")?;
    if imm & 0xff00 == 0x8000 {
        f.write_str("swizzle(QUAD_PERM")?;
        for k in 0..4 {
            write!(f, ",{}", (imm >> (2 * k)) & 3)?;
        }
        return f.write_str(")");
    }
    if imm & 0x8000 != 0 {
        return write!(f, "{imm}");
    }
    let and_mask = imm & 0x1f;
    let or_mask = (imm >> 5) & 0x1f;
    let xor_mask = (imm >> 10) & 0x1f;
    if and_mask == 0x1f && or_mask == 0 && xor_mask.count_ones() == 1 {
        return write!(f, "swizzle(SWAP,{xor_mask})");
    }
    if and_mask == 0x1f && or_mask == 0 && xor_mask > 0 && (xor_mask + 1).is_power_of_two() {
        return write!(f, "swizzle(REVERSE,{})", xor_mask + 1);
    }
    let group = 0x1f - and_mask + 1;
    if group > 1 && group.is_power_of_two() && or_mask < group && xor_mask == 0 {
        return write!(f, "swizzle(BROADCAST,{group},{or_mask})");
    }
    let probe0 = or_mask ^ xor_mask;
    let probe1 = (and_mask | or_mask) ^ xor_mask;
    f.write_str("swizzle(BITMASK_PERM,\"")?;
    for k in (0..5).rev() {
        let p0 = (probe0 >> k) & 1;
        let p1 = (probe1 >> k) & 1;
        let c = match (p0 == p1, p0) {
            (true, 0) => '0',
            (true, _) => '1',
            (false, 0) => 'p',
            (false, _) => 'i',
        };
        write!(f, "{c}")?;
    }
    f.write_str("\")")
}

fn flat(inst: &Inst, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let m = &inst.mem;
    let mut l = List::new(f, name)?;
    l.op(&inst.dst[0])?;
    if m.has(flags::VADDR_OFF) {
        l.text("off")?;
    } else {
        l.op(&inst.src[0])?;
    }
    l.op(&inst.src[1])?;
    if m.seg != Segment::Flat || !inst.src[0].is_some() {
        if m.has(flags::SADDR_OFF) {
            l.text("off")?;
        } else {
            l.op(&inst.src[2])?;
            if m.has(flags::SADDR_EXEC_HI) {
                l.f.write_str(
                    "/*Invalid register, operand has 'SReg_32_XEXEC_HI' register class*/",
                )?;
            }
        }
    }
    if m.offset != 0 {
        write!(f, " offset:{}", m.offset)?;
    }
    flag(f, inst, flags::GLC, "glc")?;
    flag(f, inst, flags::SLC, "slc")?;
    flag(f, inst, flags::DLC, "dlc")?;
    flag(f, inst, flags::SCC, "scc")?;
    flag(f, inst, flags::LDS, "lds")
}

fn buffer(inst: &Inst, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let m = &inst.mem;
    if m.has(flags::NO_OPERANDS) {
        return f.write_str(name);
    }
    let mut l = List::new(f, name)?;
    l.op(&inst.dst[0])?;
    if inst.src[0].is_some() {
        l.op(&inst.src[0])?;
    } else if !m.has(flags::SADDR_OFF) {
        l.text("off")?;
    }
    l.op(&inst.src[1])?;
    if let Operand::Literal(v) = inst.src[2] {
        l.sep()?;
        literal32(l.f, v)?;
    } else {
        l.op(&inst.src[2])?;
    }
    if let Operand::Special {
        reg: crate::operand::SpecialReg::LdsDirect,
        ..
    } = inst.src[2]
    {
        f.write_str("/*Invalid register, operand has 'SReg_32' register class*/")?;
    }
    if inst.encoding == Encoding::Mtbuf {
        let table = if m.gfx10 {
            &super::tables::FORMATS_GFX10
        } else {
            &super::tables::FORMATS_GFX9
        };
        let t = table.get(m.format as usize).copied().unwrap_or("");
        if !t.is_empty() {
            write!(f, " format:{t}")?;
        }
    }
    flag(f, inst, flags::IDXEN, "idxen")?;
    flag(f, inst, flags::OFFEN, "offen")?;
    if m.offset != 0 {
        write!(f, " offset:{}", m.offset)?;
    }
    // `buffer_store_lds_dword` has `lds` in its fixed syntax, before the cache bits.
    let lds_first = name == "buffer_store_lds_dword";
    if lds_first {
        flag(f, inst, flags::LDS, "lds")?;
    }
    flag(f, inst, flags::GLC, "glc")?;
    flag(f, inst, flags::SLC, "slc")?;
    flag(f, inst, flags::DLC, "dlc")?;
    flag(f, inst, flags::SCC, "scc")?;
    if !lds_first {
        flag(f, inst, flags::LDS, "lds")?;
    }
    flag(f, inst, flags::TFE, "tfe")
}

fn mimg(inst: &Inst, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let m = &inst.mem;
    let mut l = List::new(f, name)?;
    if m.has(flags::NSA_WIDE) {
        l.f.write_str(" ")?;
    }
    l.op(&inst.dst[0])?;
    if m.has(flags::NSA) {
        l.sep()?;
        write!(l.f, "[{}", inst.src[0])?;
        let n = (m.naddr as usize).saturating_sub(1);
        for r in m.nsa_addr.iter().take(n) {
            write!(l.f, ", v{r}")?;
        }
        l.f.write_str("]")?;
    } else {
        l.op(&inst.src[0])?;
    }
    l.op(&inst.src[1])?;
    l.op(&inst.src[2])?;
    if m.dmask != 0 {
        write!(f, " dmask:0x{:x}", m.dmask)?;
    }
    if m.gfx10 {
        const DIMS: [&str; 8] = [
            "1D",
            "2D",
            "3D",
            "CUBE",
            "1D_ARRAY",
            "2D_ARRAY",
            "2D_MSAA",
            "2D_MSAA_ARRAY",
        ];
        let d = DIMS.get(m.dim as usize).copied().unwrap_or("1D");
        write!(f, " dim:SQ_RSRC_IMG_{d}")?;
    }
    flag(f, inst, flags::UNORM, "unorm")?;
    flag(f, inst, flags::GLC, "glc")?;
    flag(f, inst, flags::SLC, "slc")?;
    flag(f, inst, flags::DLC, "dlc")?;
    flag(f, inst, flags::SCC, "scc")?;
    flag(f, inst, flags::R128, "r128")?;
    flag(f, inst, flags::A16, "a16")?;
    flag(f, inst, flags::TFE, "tfe")?;
    flag(f, inst, flags::LWE, "lwe")?;
    flag(f, inst, flags::DA, "da")?;
    flag(f, inst, flags::D16, "d16")
}

fn exp(inst: &Inst, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let m = &inst.mem;
    f.write_str("exp ")?;
    match m.dim {
        t @ 0..=7 => write!(f, "mrt{t}")?,
        8 => f.write_str("mrtz")?,
        9 => f.write_str("null")?,
        t @ 12..=15 => write!(f, "pos{}", t - 12)?,
        16 if m.gfx10 => f.write_str("pos4")?,
        20 if m.gfx10 => f.write_str("prim")?,
        t @ 32..=63 => write!(f, "param{}", t - 32)?,
        t => write!(f, "invalid_target_{t}")?,
    }
    for (k, s) in inst.src.iter().enumerate() {
        f.write_str(if k == 0 { " " } else { ", " })?;
        if s.is_some() {
            write!(f, "{s}")?;
        } else {
            f.write_str("off")?;
        }
    }
    flag(f, inst, flags::DONE, "done")?;
    flag(f, inst, flags::COMPR, "compr")?;
    flag(f, inst, flags::VM, "vm")
}
