//! SOPP and SOPK immediates, printed the way LLVM's AMDGPU printer does:
//! branch offsets as signed dwords, `s_waitcnt` counters, `hwreg(...)`,
//! `sendmsg(...)` and plain 16-bit values. (Vega ISA 4.4 and 12.3; RDNA ISA
//! 4.4 and 13.3; LLVM AMDGPU usage, "Hardware registers" and "Messages".)

use crate::inst::Inst;
use std::fmt::{self, Write};

/// A 16-bit immediate printed by LLVM's `printU16ImmOperand`-style rule:
/// small values in decimal, others in hex.
fn u16_imm<W: Write>(f: &mut W, v: u16) -> fmt::Result {
    if v <= 64 {
        write!(f, "{v}")
    } else {
        write!(f, "0x{v:x}")
    }
}

fn hwreg_name(id: u32, gfx10: bool, gfx1030: bool) -> Option<&'static str> {
    Some(match id {
        1 => "HW_REG_MODE",
        2 => "HW_REG_STATUS",
        3 => "HW_REG_TRAPSTS",
        4 if !gfx10 => "HW_REG_HW_ID",
        5 => "HW_REG_GPR_ALLOC",
        6 => "HW_REG_LDS_ALLOC",
        7 => "HW_REG_IB_STS",
        15 => "HW_REG_SH_MEM_BASES",
        16 => "HW_REG_TBA_LO",
        17 => "HW_REG_TBA_HI",
        18 => "HW_REG_TMA_LO",
        19 => "HW_REG_TMA_HI",
        20 if gfx10 => "HW_REG_FLAT_SCR_LO",
        21 if gfx10 => "HW_REG_FLAT_SCR_HI",
        22 if gfx10 && !gfx1030 => "HW_REG_XNACK_MASK",
        23 if gfx10 => "HW_REG_HW_ID1",
        24 if gfx10 => "HW_REG_HW_ID2",
        25 if gfx10 => "HW_REG_POPS_PACKER",
        29 if gfx1030 => "HW_REG_SHADER_CYCLES",
        _ => return None,
    })
}

/// `hwreg(id, offset, size)` (SOPK `s_getreg`/`s_setreg`): id `[5:0]`,
/// offset `[10:6]`, size-1 `[15:11]`.
pub(super) fn write_hwreg<W: Write>(f: &mut W, v: u16, gfx10: bool, gfx1030: bool) -> fmt::Result {
    let id = (v & 0x3f) as u32;
    let off = ((v >> 6) & 0x1f) as u32;
    let size = ((v >> 11) & 0x1f) as u32 + 1;
    f.write_str("hwreg(")?;
    match hwreg_name(id, gfx10, gfx1030) {
        Some(n) => f.write_str(n)?,
        None => write!(f, "{id}")?,
    }
    if off != 0 || size != 32 {
        write!(f, ", {off}, {size}")?;
    }
    f.write_char(')')
}

/// The SOPK immediate of `mnem` (operand order comes from the shape).
pub(super) fn write_sopk_imm<W: Write>(
    f: &mut W,
    mnem: &str,
    v: u16,
    gfx10: bool,
    gfx1030: bool,
) -> fmt::Result {
    if mnem.starts_with("s_getreg") || mnem.starts_with("s_setreg") {
        write_hwreg(f, v, gfx10, gfx1030)
    } else if mnem == "s_version" {
        write_version(f, v)
    } else if mnem == "s_call_b64"
        || mnem == "s_cbranch_i_fork"
        || mnem.starts_with("s_subvector_loop")
    {
        write!(f, "{v}")
    } else {
        write!(f, "0x{v:x}")
    }
}

/// `s_version`: a microcode version with wave-size and MDP flag bits.
fn write_version<W: Write>(f: &mut W, v: u16) -> fmt::Result {
    let name = match v & 0x1fff {
        0 => "UC_VERSION_GFX7".to_string(),
        4 => "UC_VERSION_GFX10".to_string(),
        6 => "UC_VERSION_GFX11".to_string(),
        low if v & 0xe000 == 0 || low > 0xff => return u16_imm(f, v),
        low => low.to_string(),
    };
    let flags = [
        (0x2000u16, "UC_VERSION_W64_BIT"),
        (0x4000, "UC_VERSION_W32_BIT"),
        (0x8000, "UC_VERSION_MDP_BIT"),
    ];
    let mut text = name;
    let mut n = 1;
    for (bit, flag) in flags {
        if v & bit != 0 {
            if n >= 2 {
                text = format!("({text})");
            }
            text = format!("{text}|{flag}");
            n += 1;
        }
    }
    f.write_str(&text)
}

/// `s_waitcnt_depctr` fields (GFX10.3 adds `depctr_hold_cnt`); words with
/// other bits set print in hex.
fn write_depctr<W: Write>(f: &mut W, v: u16, gfx1030: bool) -> fmt::Result {
    // (name, shift, width, default)
    const FIELDS: [(&str, u32, u32, u32); 7] = [
        ("depctr_hold_cnt", 7, 1, 1),
        ("depctr_sa_sdst", 0, 1, 1),
        ("depctr_va_vdst", 12, 4, 15),
        ("depctr_va_sdst", 9, 3, 7),
        ("depctr_va_ssrc", 8, 1, 1),
        ("depctr_va_vcc", 1, 1, 1),
        ("depctr_vm_vsrc", 2, 3, 7),
    ];
    let known: u16 = if gfx1030 { 0xff9f } else { 0xff1f };
    if v & !known != 0 {
        return write!(f, " 0x{v:x}");
    }
    let v = v as u32;
    let fields = FIELDS.iter().filter(|fl| gfx1030 || fl.1 != 7);
    let all_default = fields
        .clone()
        .all(|&(_, sh, w, d)| (v >> sh) & ((1 << w) - 1) == d);
    for &(name, sh, w, d) in fields {
        let val = (v >> sh) & ((1 << w) - 1);
        if all_default || val != d {
            write!(f, " {name}({val})")?;
        }
    }
    Ok(())
}

fn write_waitcnt<W: Write>(f: &mut W, v: u16, gfx10: bool) -> fmt::Result {
    let v = v as u32;
    let vm = (v & 0xf) | ((v >> 14) & 3) << 4;
    let exp = (v >> 4) & 7;
    let (lgkm, lgkm_max) = if gfx10 {
        ((v >> 8) & 0x3f, 0x3f)
    } else {
        ((v >> 8) & 0xf, 0xf)
    };
    let all = vm == 0x3f && exp == 7 && lgkm == lgkm_max;
    let put = |f: &mut W, name: &str, val: u32, show: bool| -> fmt::Result {
        if show {
            f.write_char(' ')?;
            write!(f, "{name}({val})")?;
        }
        Ok(())
    };
    put(f, "vmcnt", vm, all || vm != 0x3f)?;
    put(f, "expcnt", exp, all || exp != 7)?;
    put(f, "lgkmcnt", lgkm, all || lgkm != lgkm_max)
}

fn msg_name(id: u32, gfx10: bool) -> Option<&'static str> {
    Some(match id {
        1 => "MSG_INTERRUPT",
        2 => "MSG_GS",
        3 => "MSG_GS_DONE",
        4 => "MSG_SAVEWAVE",
        5 => "MSG_STALL_WAVE_GEN",
        6 => "MSG_HALT_WAVES",
        7 => "MSG_ORDERED_PS_DONE",
        8 => "MSG_EARLY_PRIM_DEALLOC",
        9 => "MSG_GS_ALLOC_REQ",
        10 => "MSG_GET_DOORBELL",
        11 if gfx10 => "MSG_GET_DDID",
        15 => "MSG_SYSMSG",
        _ => return None,
    })
}

/// `sendmsg(...)`: message id `[3:0]`, operation `[6:4]`, stream `[9:8]`
/// (LLVM AMDGPU usage, "sendmsg"). Unknown combinations print as numbers.
fn write_sendmsg<W: Write>(f: &mut W, v: u16, gfx10: bool) -> fmt::Result {
    let v = v as u32;
    let id = v & 0xf;
    let op = (v >> 4) & 7;
    let stream = (v >> 8) & 3;
    let gs = id == 2 || id == 3;
    let op_valid = match id {
        // SYSMSG_OP_HOST_TRAP_ACK (3) is a GFX6-8 operation.
        15 => matches!(op, 1 | 2 | 4),
        2 => (1..=3).contains(&op),
        3 => op <= 3,
        _ => op == 0,
    };
    let supports_stream = gs && op != 0;
    let stream_valid = supports_stream || stream == 0;
    match msg_name(id, gfx10) {
        Some(name) if op_valid && stream_valid => {
            write!(f, " sendmsg({name}")?;
            if gs || id == 15 {
                let opn = if id == 15 {
                    match op {
                        1 => "SYSMSG_OP_ECC_ERR_INTERRUPT",
                        2 => "SYSMSG_OP_REG_RD",
                        _ => "SYSMSG_OP_TTRACE_PC",
                    }
                } else {
                    match op {
                        0 => "GS_OP_NOP",
                        1 => "GS_OP_CUT",
                        2 => "GS_OP_EMIT",
                        _ => "GS_OP_EMIT_CUT",
                    }
                };
                write!(f, ", {opn}")?;
                if supports_stream {
                    write!(f, ", {stream}")?;
                }
            }
            f.write_char(')')
        }
        _ if v >> 10 == 0 && (v >> 7) & 1 == 0 => write!(f, " sendmsg({id}, {op}, {stream})"),
        _ => write!(f, " {v}"),
    }
}

/// `gpr_idx(SRC0,SRC1,SRC2,DST)` for index-mode bits; other values in hex.
pub(super) fn write_gpr_idx<W: Write>(f: &mut W, v: u16) -> fmt::Result {
    if v >> 4 != 0 {
        return write!(f, "0x{v:x}");
    }
    f.write_str("gpr_idx(")?;
    let names = ["SRC0", "SRC1", "SRC2", "DST"];
    let mut first = true;
    for (i, n) in names.iter().enumerate() {
        if (v >> i) & 1 != 0 {
            if !first {
                f.write_char(',')?;
            }
            first = false;
            f.write_str(n)?;
        }
    }
    f.write_char(')')
}

/// The operands of a SOPP instruction (its shape is printed by rule).
pub(super) fn fmt_raw(inst: &Inst, mnem: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let v = (inst.words[0] & 0xffff) as u16;
    let gfx10 = inst.alu.gfx10();
    match mnem {
        "s_waitcnt" => write_waitcnt(f, v, gfx10),
        "s_waitcnt_depctr" => write_depctr(f, v, inst.alu.gfx1030()),
        "s_sendmsg" | "s_sendmsghalt" => write_sendmsg(f, v, gfx10),
        "s_endpgm"
        | "s_endpgm_saved"
        | "s_endpgm_ordered_ps_done"
        | "s_wakeup"
        | "s_barrier"
        | "s_icache_inv"
        | "s_ttracedata"
        | "s_set_gpr_idx_off"
        | "s_code_end"
        | "s_wait_idle" => {
            if v != 0 {
                write!(f, " {v}")
            } else {
                Ok(())
            }
        }
        "s_set_gpr_idx_mode" => {
            f.write_char(' ')?;
            write_gpr_idx(f, v)
        }
        "s_inst_prefetch" | "s_clause" | "s_round_mode" | "s_ttracedata_imm" => {
            write!(f, " 0x{v:x}")
        }
        _ if mnem.starts_with("s_branch") || mnem.starts_with("s_cbranch") => {
            write!(f, " {v}")
        }
        _ => {
            f.write_char(' ')?;
            u16_imm(f, v)
        }
    }
}
