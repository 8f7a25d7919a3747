//! Typed buffer loads and stores (MTBUF `tbuffer_load_format_*`,
//! `tbuffer_store_format_*`) with the formats whose components are 32-bit
//! integers or floats.
//!
//! A typed access converts each component between its memory format and a
//! 32-bit register value (Vega ISA §9.1 "Buffer instructions", data format
//! and numeric format). For a 32-bit component of numeric format UINT, SINT
//! or FLOAT the conversion is the identity, so such an access with as many
//! components as the instruction names moves the same dwords as the untyped
//! `buffer_load_dword{,x2,x3,x4}` / `buffer_store_dword*`, with the same
//! addressing and range checking; it is executed as that. Every other format
//! (8-, 10-, 11- and 16-bit components, normalised or scaled numeric formats,
//! a component count different from the instruction's) and the `tfe` and
//! `lds` forms are reported as unsupported. The `d16` forms move each
//! component through a 16-bit register half (see `exec_d16`): stores widen
//! exactly, loads of FLOAT components round to f16; a load narrowing an
//! integer component is reported.
//!
//! Formats: GFX9 `dfmt` 4, 11, 13, 14 (`32`, `32_32`, `32_32_32`,
//! `32_32_32_32`) with `nfmt` 4, 5, 7 (UINT, SINT, FLOAT); GFX10 unified
//! formats 20-22, 62-64, 72-74, 75-77 (`BUF_FMT_32_UINT` ...
//! `BUF_FMT_32_32_32_32_FLOAT`).
//!
//! The MUBUF `buffer_load_format_*` / `buffer_store_format_*` take their
//! format from the buffer descriptor instead (word 3: GFX9 NUM_FORMAT [14:12]
//! and DATA_FORMAT [18:15], GFX10 FORMAT [18:12]) and apply its destination
//! selects DST_SEL_X..W ([11:0], 3 bits each): they are executed the same way
//! when that format is one of the above and the selects of the components
//! moved are the identity (X, Y, Z, W).

use super::{Ctx, MemKind, R, unsupported};
use crate::memory::Bytes;
use crate::wave::Wave;
use amdgpu_isa::mem::flags;
use amdgpu_isa::{Encoding, Inst};

/// Whether `k` is a typed buffer access executed here.
pub(crate) fn handles(k: MemKind) -> bool {
    use MemKind::*;
    matches!(
        k,
        TLoadX
            | TLoadXy
            | TLoadXyz
            | TLoadXyzw
            | TStoreX
            | TStoreXy
            | TStoreXyz
            | TStoreXyzw
            | BLoadFmtX
            | BLoadFmtXy
            | BLoadFmtXyz
            | BLoadFmtXyzw
            | BStoreFmtX
            | BStoreFmtXy
            | BStoreFmtXyz
            | BStoreFmtXyzw
            | LoadD16X
            | LoadD16Xy
            | LoadD16Xyz
            | LoadD16Xyzw
            | LoadD16HiX
            | StoreD16X
            | StoreD16Xy
            | StoreD16Xyz
            | StoreD16Xyzw
            | StoreD16HiX
    )
}

/// The numeric format of a format [`components32`] accepts.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Num {
    Uint,
    Sint,
    Float,
}

fn numeric(format: u8, gfx10: bool) -> Num {
    let n = if gfx10 {
        // 20-22, 62-64, 72-74, 75-77: UINT, SINT, FLOAT in turn.
        (match format {
            20..=22 => format - 20,
            62..=64 => format - 62,
            72..=74 => format - 72,
            _ => format.wrapping_sub(75),
        }) as u32
    } else {
        match format >> 4 {
            4 => 0,
            5 => 1,
            _ => 2,
        }
    };
    [Num::Uint, Num::Sint, Num::Float][n.min(2) as usize]
}

/// Components of 32-bit UINT, SINT or FLOAT format `format` (the MTBUF
/// field as decoded: GFX9 `dfmt | nfmt << 4`, GFX10 the unified format);
/// `None` for any other format.
pub(crate) fn components32(format: u8, gfx10: bool) -> Option<usize> {
    if gfx10 {
        return match format {
            20..=22 => Some(1),
            62..=64 => Some(2),
            72..=74 => Some(3),
            75..=77 => Some(4),
            _ => None,
        };
    }
    let (dfmt, nfmt) = (format & 15, format >> 4);
    if !matches!(nfmt, 4 | 5 | 7) {
        return None;
    }
    match dfmt {
        4 => Some(1),
        11 => Some(2),
        13 => Some(3),
        14 => Some(4),
        _ => None,
    }
}

/// Executes typed buffer access `k` (one of [`handles`]).
pub(crate) fn exec(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes, ctx: &Ctx) -> R {
    use MemKind::*;
    let d16 = match k {
        LoadD16X | StoreD16X | LoadD16HiX | StoreD16HiX => Some(1),
        LoadD16Xy | StoreD16Xy => Some(2),
        LoadD16Xyz | StoreD16Xyz => Some(3),
        LoadD16Xyzw | StoreD16Xyzw => Some(4),
        _ => None,
    };
    let (n, untyped) = match (k, d16) {
        (_, Some(c)) => (c, GLoad4),
        (TLoadX | BLoadFmtX, None) => (1, GLoad4),
        (TLoadXy | BLoadFmtXy, None) => (2, GLoad8),
        (TLoadXyz | BLoadFmtXyz, None) => (3, GLoad12),
        (TLoadXyzw | BLoadFmtXyzw, None) => (4, GLoad16),
        (TStoreX | BStoreFmtX, None) => (1, GStore4),
        (TStoreXy | BStoreFmtXy, None) => (2, GStore8),
        (TStoreXyz | BStoreFmtXyz, None) => (3, GStore12),
        (_, None) => (4, GStore16),
    };
    let from_descriptor = i.encoding == Encoding::Mubuf;
    let format = if from_descriptor {
        let w3 = w.read_sdword(&i.src[1], 3).unwrap_or(0);
        // Destination selects 4-7 are X-W: component c must select itself.
        if (0..n).any(|c| (w3 >> (3 * c)) & 7 != 4 + c as u32) {
            return unsupported(format!(
                "buffer descriptor destination selects {:#05x} (only X, Y, Z, W in order \
                 are modelled)",
                w3 & 0xfff
            ));
        }
        if ctx.gfx10() {
            ((w3 >> 12) & 0x7f) as u8
        } else {
            (((w3 >> 15) & 15) | ((w3 >> 12) & 7) << 4) as u8
        }
    } else {
        i.mem.format
    };
    match components32(format, ctx.gfx10()) {
        Some(c) if c == n => {}
        _ => {
            let what = if ctx.gfx10() {
                format!("format {format}")
            } else {
                format!("dfmt {} nfmt {}", format & 15, format >> 4)
            };
            return unsupported(format!(
                "{}typed buffer {what} with {n} component(s) (only formats of as many 32-bit \
                 UINT, SINT or FLOAT components are modelled)",
                if from_descriptor {
                    "descriptor of a "
                } else {
                    ""
                }
            ));
        }
    }
    if i.mem.has(flags::TFE) || i.mem.has(flags::LDS) {
        return unsupported("tfe or lds on a typed buffer access");
    }
    let untyped_inst = Inst {
        encoding: Encoding::Mubuf,
        ..*i
    };
    if d16.is_some() {
        return exec_d16(
            k,
            n,
            numeric(format, ctx.gfx10()),
            w,
            &untyped_inst,
            lds,
            ctx,
        );
    }
    super::mem::exec(untyped, w, &untyped_inst, lds, ctx)
}

/// The `d16` forms on a format of `n` 32-bit components: each component
/// moves through a 16-bit half of the data registers, packed two to a
/// register (x in the low half of the first, y in its high half, z in the
/// low half of the second, w in its high half; `_hi_x` uses the high half of
/// the one register). Stores widen each half exactly (FLOAT: f16 to f32;
/// UINT: zero-extended; SINT: sign-extended). Loads of FLOAT components
/// round each f32 to f16 (to nearest even) and write only the halves they
/// load, the other half of a register keeping its value, as the other
/// `_d16` loads do; narrowing a 32-bit integer component is not modelled and
/// is reported.
fn exec_d16(
    k: MemKind,
    n: usize,
    num: Num,
    w: &mut Wave,
    i: &Inst,
    lds: &mut Bytes,
    ctx: &Ctx,
) -> R {
    use crate::alu::{f16_to_f32, f32_to_f16};
    use MemKind::*;
    let hi = matches!(k, LoadD16HiX | StoreD16HiX);
    let regs = n.div_ceil(2);
    let reg = |r: usize| match i.dst[0] {
        amdgpu_isa::Operand::Vgpr { index, .. } => Ok(amdgpu_isa::Operand::Vgpr {
            index: index.wrapping_add(r as u8),
            count: 1,
        }),
        o => unsupported(format!("d16 data operand {o}")),
    };
    let half = |v: u32, c: usize| -> u16 {
        let c = if hi { 1 } else { c };
        (v >> (16 * (c % 2))) as u16
    };
    let exec = w.exec.0 & w.full_mask();
    if matches!(
        k,
        StoreD16X | StoreD16Xy | StoreD16Xyz | StoreD16Xyzw | StoreD16HiX
    ) {
        let src: Vec<[u32; 64]> = (0..regs)
            .map(|r| super::operand::v32(w, &reg(r)?, super::operand::Ty::I))
            .collect::<Result<_, _>>()?;
        let data: Vec<[u32; 64]> = (0..n)
            .map(|c| {
                src[c / 2].map(|v| {
                    let h = half(v, c);
                    match num {
                        Num::Float => f16_to_f32(h).to_bits(),
                        Num::Uint => h as u32,
                        Num::Sint => h as i16 as i32 as u32,
                    }
                })
            })
            .collect();
        super::mem::buffer_access(w, i, lds, ctx, 4 * n, Some(&data))?;
        return Ok(());
    }
    if num != Num::Float {
        return unsupported(format!(
            "a d16 load of 32-bit {num:?} components (narrowing to 16 bits is not modelled)"
        ));
    }
    let vals = super::mem::buffer_access(w, i, lds, ctx, 4 * n, None)?;
    for r in 0..regs {
        let op = reg(r)?;
        let mut v = super::operand::v32(w, &op, super::operand::Ty::I)?;
        for (x, lane) in v.iter_mut().zip(&vals) {
            for (c, &bits) in lane.iter().enumerate().take(n).skip(2 * r).take(2) {
                let h = f32_to_f16(f32::from_bits(bits)) as u32;
                *x = if hi || c % 2 == 1 {
                    (*x & 0xffff) | h << 16
                } else {
                    (*x & 0xffff_0000) | h
                };
            }
        }
        super::operand::wv32(w, &op, &v, exec)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_32_bit_integer_and_float_formats() {
        // GFX9: dfmt 14 (32_32_32_32) with nfmt 7 (FLOAT), 4 (UINT); 0 (UNORM) is not.
        assert_eq!(components32(14 | 7 << 4, false), Some(4));
        assert_eq!(components32(4 | 4 << 4, false), Some(1));
        assert_eq!(components32(4, false), None);
        // dfmt 12 (16_16_16_16) is not.
        assert_eq!(components32(12 | 7 << 4, false), None);
        assert_eq!(components32(64, true), Some(2));
        assert_eq!(components32(49, true), None);
    }
}
