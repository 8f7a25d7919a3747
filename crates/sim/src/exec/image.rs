//! Image memory by integer coordinates (MIMG `image_load*`, `image_store*`,
//! `image_atomic_*`, `image_get_resinfo`): the image resource descriptor
//! (T#) read from SGPRs, texel addressing of LINEAR images, and the format
//! conversions between memory texels and registers.
//!
//! # The T# (8 dwords; GFX10 `r128`: the first 4)
//!
//! | field | GFX9 | GFX10 |
//! |---|---|---|
//! | base address (bytes >> 8) | w0, w1\[7:0\] | same |
//! | format | DATA_FORMAT w1\[25:20\], NUM_FORMAT w1\[29:26\] | FORMAT w1\[28:20\] (unified) |
//! | width - 1 | w2\[13:0\] | w1\[31:30\] low 2 bits, w2\[11:0\] the rest |
//! | height - 1 | w2\[27:14\] | w2\[27:14\] |
//! | DST_SEL_X..W | w3\[11:0\] | same |
//! | BASE_LEVEL, LAST_LEVEL | w3\[15:12\], w3\[19:16\] | same |
//! | SW_MODE (0: linear) | w3\[24:20\] | same |
//! | TYPE | w3\[31:28\] | same |
//! | DEPTH | w4\[12:0\] | w4\[12:0\] |
//! | pitch - 1 (elements) | PITCH w4\[28:13\] | gfx1030, 1-D/2-D: w4\[13:0\] |
//! | BASE_ARRAY | w5\[12:0\] | w4\[28:16\] |
//!
//! (Mesa `sid.h` `S_008F1x_*` / `S_00A00x_*`, ROCr `resource_nv.h` and
//! `image_manager_nv.cpp`.) DEPTH is depth - 1 for a 3-D image and the last
//! array slice for an array or cube (ROCr writes `array_size - 1`); a slice
//! coordinate `s` addresses slice `BASE_ARRAY + s` and is out of range past
//! DEPTH. TYPE 8-15: 1D, 2D, 3D, CUBE, 1D_ARRAY, 2D_ARRAY, 2D_MSAA,
//! 2D_MSAA_ARRAY (a cube is addressed as a 2-D array of faces). gfx1010 has
//! no pitch field: the row pitch of a linear image is its width rounded up
//! to 256 bytes (addrlib's linear block); gfx1030 with `r128` or a 3-D or
//! array image does the same.
//!
//! Texel `(x, y, slice)` of a linear image is at
//! `base + ((slice * height + y) * pitch + x) * bytes_per_texel`. Only mip
//! level 0 is addressed: a level (BASE_LEVEL + the `_mip` coordinate) in
//! `1..=LAST_LEVEL` would need addrlib's mip-chain layout and is reported as
//! unsupported; a level past LAST_LEVEL is out of range. Out-of-range
//! coordinates read a texel whose format components are all 0 (the
//! destination selects still apply), stores and atomics there are dropped
//! and an atomic returns 0.
//!
//! # Formats
//!
//! 8-, 16- and 32-bit components, 1, 2 or 4 of them (32-bit: also 3), with
//! numeric formats UNORM, SNORM, USCALED, SSCALED, UINT, SINT and FLOAT
//! (16 and 32 bits): GFX9 DATA_FORMAT 1-5, 10-14 and NUM_FORMAT 0-5, 7;
//! GFX10 unified formats 1-29, 56-77. Loads convert each component to a
//! 32-bit register value (UNORM: `x / (2^n - 1)`, SNORM:
//! `max(x / (2^(n-1) - 1), -1)`, both correctly rounded; SCALED: the integer as a float;
//! UINT/SINT: extended; 16-bit FLOAT: widened), then the destination
//! selects pick register components (SEL_0, SEL_1 = 1 or 1.0, X-W; a
//! component the format lacks reads 0, alpha 1), and `dmask` picks which of
//! them go to consecutive data registers. With `d16` they are narrowed to
//! 16 bits (floats rounded to nearest even, once, from the exact value) and
//! packed two to a register. Stores take the `dmask` components in order
//! and convert back (UNORM/SNORM/SCALED: clamped, rounded to nearest even,
//! NaN to 0; UINT/SINT: saturated; FLOAT: rounded to nearest even); format
//! components outside `dmask` keep their memory value, and the destination
//! selects do not apply. `_pck` loads move each component's bits without
//! conversion, zero-extended (`_pck_sgn`: sign-extended); `_pck` stores
//! write the low bits of each data dword.
//!
//! Atomics work on single-component 32-bit formats (`dmask` 0x1; compare-swap
//! 0x3) and two-component 32-bit formats as 64-bit values (`dmask` 0x3;
//! compare-swap 0xf): integer operations on UINT/SINT formats, `fcmpswap`,
//! `fmin`, `fmax` on FLOAT; `glc` returns the previous value.
//!
//! `image_get_resinfo` returns, for mip level `BASE_LEVEL + v` (`v` the
//! address register), width and height of that level, its depth (3-D) or
//! the number of array slices (`DEPTH - BASE_ARRAY + 1`) or 1, and the
//! number of mip levels `LAST_LEVEL - BASE_LEVEL + 1`, as `dmask` picks.
//!
//! `image_sample`, `image_sample_lz` and `image_sample_l` read through a sampler
//! with point filtering ([`sample`] has the rules); other sampling operations are
//! graphics-only.
//!
//! Not modelled, reported as unsupported: other swizzle modes (tiled
//! images), other formats, MSAA resources, `tfe`/`lwe`, a buffer resource,
//! a GFX10 `dim` that disagrees with the resource type (except an array
//! `dim` on a 1-D or 2-D resource, whose slice coordinate is then ignored:
//! ROCclr's blit kernels rely on it).

mod sample;

use super::mem::{At, atomic_op};
use super::{Ctx, E, MemKind, R, unsupported};
use crate::alu::{f16_to_f32, f32_to_f16, f64_to_f16};
use crate::wave::Wave;
use amdgpu_isa::mem::flags;
use amdgpu_isa::{Gpu, Inst, Operand};

/// Whether `k` is an image operation executed here.
pub(crate) fn handles(k: MemKind) -> bool {
    op_class(k).is_some()
}

/// What an image operation does.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Class {
    /// A load: with a mip coordinate, and raw (`_pck`) with sign extension or not.
    Load { mip: bool, pck: Option<bool> },
    /// A store: with a mip coordinate, raw (`_pck`) or converted.
    Store { mip: bool, pck: bool },
    /// An atomic with its operation and whether it is a float one.
    Atomic(At, bool),
    /// `image_get_resinfo`.
    Resinfo,
    /// A point-sampled read through a sampler ([`sample`]).
    Sample(sample::Lod),
}

fn op_class(k: MemKind) -> Option<Class> {
    use MemKind::*;
    let load = |mip, pck| Some(Class::Load { mip, pck });
    let store = |mip, pck| Some(Class::Store { mip, pck });
    let at = |a| Some(Class::Atomic(a, false));
    match k {
        ImgLoad => load(false, None),
        ImgLoadMip => load(true, None),
        ImgLoadPck => load(false, Some(false)),
        ImgLoadPckSgn => load(false, Some(true)),
        ImgLoadMipPck => load(true, Some(false)),
        ImgLoadMipPckSgn => load(true, Some(true)),
        ImgStore => store(false, false),
        ImgStoreMip => store(true, false),
        ImgStorePck => store(false, true),
        ImgStoreMipPck => store(true, true),
        ImgResinfo => Some(Class::Resinfo),
        ImgSample => Some(Class::Sample(sample::Lod::Implicit)),
        ImgSampleLz => Some(Class::Sample(sample::Lod::Zero)),
        ImgSampleL => Some(Class::Sample(sample::Lod::Explicit)),
        ImgAtSwap => at(At::Swap),
        ImgAtCmpswap => at(At::Cmpswap),
        ImgAtAdd => at(At::Add),
        ImgAtSub => at(At::Sub),
        ImgAtSmin => at(At::Smin),
        ImgAtUmin => at(At::Umin),
        ImgAtSmax => at(At::Smax),
        ImgAtUmax => at(At::Umax),
        ImgAtAnd => at(At::And),
        ImgAtOr => at(At::Or),
        ImgAtXor => at(At::Xor),
        ImgAtInc => at(At::Inc),
        ImgAtDec => at(At::Dec),
        ImgAtFcmpswap => Some(Class::Atomic(At::FcmpswapF32, true)),
        ImgAtFmin => Some(Class::Atomic(At::FminF32, true)),
        ImgAtFmax => Some(Class::Atomic(At::FmaxF32, true)),
        _ => None,
    }
}

/// The numeric format of a component.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Num {
    /// Unsigned normalised.
    Unorm,
    /// Signed normalised.
    Snorm,
    /// Unsigned integer read as a float.
    Uscaled,
    /// Signed integer read as a float.
    Sscaled,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// Floating point (16 or 32 bits).
    Float,
}

/// A texel format: `comps` components of `bits` bits each.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) struct Format {
    /// Bits per component: 8, 16 or 32.
    pub bits: u32,
    /// Components: 1-4.
    pub comps: u32,
    /// Numeric format.
    pub num: Num,
}

impl Format {
    /// Bytes per texel.
    pub fn bytes(self) -> u32 {
        self.bits / 8 * self.comps
    }
}

const NUMS: [Num; 7] = [
    Num::Unorm,
    Num::Snorm,
    Num::Uscaled,
    Num::Sscaled,
    Num::Uint,
    Num::Sint,
    Num::Float,
];

/// The GFX9 format of DATA_FORMAT `dfmt` and NUM_FORMAT `nfmt`, if modelled.
pub(crate) fn format_gfx9(dfmt: u32, nfmt: u32) -> Option<Format> {
    let (bits, comps) = match dfmt {
        1 => (8, 1),
        2 => (16, 1),
        3 => (8, 2),
        4 => (32, 1),
        5 => (16, 2),
        10 => (8, 4),
        11 => (32, 2),
        12 => (16, 4),
        13 => (32, 3),
        14 => (32, 4),
        _ => return None,
    };
    let num = match nfmt {
        0..=5 => NUMS[nfmt as usize],
        7 => Num::Float,
        _ => return None,
    };
    valid(Format { bits, comps, num })
}

/// The GFX10 format of unified format `f`, if modelled.
pub(crate) fn format_gfx10(f: u32) -> Option<Format> {
    // Each group: first code, bits, components and the numeric formats in turn.
    const ALL: [Num; 7] = NUMS;
    const INT_FLOAT: [Num; 3] = [Num::Uint, Num::Sint, Num::Float];
    let groups: [(u32, u32, u32, &[Num]); 10] = [
        (1, 8, 1, &ALL[..6]),
        (7, 16, 1, &ALL),
        (14, 8, 2, &ALL[..6]),
        (20, 32, 1, &INT_FLOAT),
        (23, 16, 2, &ALL),
        (56, 8, 4, &ALL[..6]),
        (62, 32, 2, &INT_FLOAT),
        (65, 16, 4, &ALL),
        (72, 32, 3, &INT_FLOAT),
        (75, 32, 4, &INT_FLOAT),
    ];
    groups.iter().find_map(|&(first, bits, comps, nums)| {
        let k = f.checked_sub(first)? as usize;
        nums.get(k).map(|&num| Format { bits, comps, num })
    })
}

fn valid(f: Format) -> Option<Format> {
    // Floats are 16 or 32 bits; 32-bit components are integers or floats.
    match (f.bits, f.num) {
        (8, Num::Float) => None,
        (32, Num::Unorm | Num::Snorm | Num::Uscaled | Num::Sscaled) => None,
        _ => Some(f),
    }
}

/// Resource type (T# TYPE).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    D1,
    D2,
    D3,
    Cube,
    D1Array,
    D2Array,
}

impl Ty {
    fn arrayed(self) -> bool {
        matches!(self, Ty::Cube | Ty::D1Array | Ty::D2Array)
    }
    /// Coordinates before the mip level: x, then y, then z or slice.
    fn coords(self) -> usize {
        match self {
            Ty::D1 => 1,
            Ty::D2 | Ty::D1Array => 2,
            Ty::D3 | Ty::Cube | Ty::D2Array => 3,
        }
    }
}

/// The fields of a T# the executor uses.
#[derive(Clone, Copy, Debug)]
struct Resource {
    base: u64,
    fmt: Format,
    width: u32,
    height: u32,
    /// DEPTH: depth - 1 (3-D) or the last slice (arrays).
    depth: u32,
    /// Row pitch in texels.
    pitch: u32,
    ty: Ty,
    /// Address components before the mip level (GFX10: as DIM says).
    coords: usize,
    base_level: u32,
    last_level: u32,
    base_array: u32,
    dst_sel: u32,
}

fn field(v: u32, lo: u32, n: u32) -> u32 {
    (v >> lo) & ((1 << n) - 1)
}

/// Reads and checks the T# of `i`.
fn resource(w: &Wave, i: &Inst, ctx: &Ctx) -> Result<Resource, E> {
    let g10 = ctx.gfx10();
    let n = if g10 && i.mem.has(flags::R128) { 4 } else { 8 };
    let mut d = [0u32; 8];
    for (k, x) in d.iter_mut().enumerate().take(n) {
        *x = w
            .read_sdword(&i.src[1], k as u8)
            .ok_or_else(|| E::Unsupported(format!("image resource operand {}", i.src[1])))?;
    }
    let base = ((d[0] as u64) | (field(d[1], 0, 8) as u64) << 32) << 8;
    let (fmt, width, base_array) = if g10 {
        let f = field(d[1], 20, 9);
        let fmt = format_gfx10(f).ok_or_else(|| {
            E::Unsupported(format!(
                "image resource FORMAT {f} (modelled: 8-, 16- and 32-bit formats of 1, 2 or \
                 4 components, 1-29 and 56-77)"
            ))
        })?;
        let width = (field(d[1], 30, 2) | field(d[2], 0, 12) << 2) + 1;
        (fmt, width, field(d[4], 16, 13))
    } else {
        let (df, nf) = (field(d[1], 20, 6), field(d[1], 26, 4));
        let fmt = format_gfx9(df, nf).ok_or_else(|| {
            E::Unsupported(format!(
                "image resource DATA_FORMAT {df} NUM_FORMAT {nf} (modelled: 8-, 16- and 32-bit \
                 formats of 1, 2 or 4 components)"
            ))
        })?;
        (fmt, field(d[2], 0, 14) + 1, field(d[5], 0, 13))
    };
    let height = field(d[2], 14, 14) + 1;
    let sw = field(d[3], 20, 5);
    if sw != 0 {
        return unsupported(format!(
            "image resource SW_MODE {sw} (only 0, linear, is modelled)"
        ));
    }
    let t = field(d[3], 28, 4);
    let ty = match t {
        8 => Ty::D1,
        9 => Ty::D2,
        10 => Ty::D3,
        11 => Ty::Cube,
        12 => Ty::D1Array,
        13 => Ty::D2Array,
        _ => {
            return unsupported(format!(
                "image resource TYPE {t} (modelled: 8-13, 1D to 2D_ARRAY; 14-15 are MSAA, \
                 0 a buffer)"
            ));
        }
    };
    if n == 4 && (ty == Ty::D3 || ty.arrayed()) {
        return unsupported(format!(
            "a 128-bit image resource of TYPE {t} (3-D and array images need words 4-7)"
        ));
    }
    // GFX10 states the address layout in the instruction (DIM). An array DIM
    // on the non-array TYPE of the same shape addresses the resource with
    // the slice ignored: ROCclr's blit kernels access every 1-D and 2-D
    // image through 1D_ARRAY / 2D_ARRAY forms, and ROCr's T# for them says
    // 1D / 2D, on hardware as here.
    let coords = if g10 {
        let want = [8, 9, 10, 11, 12, 13, 14, 15][i.mem.dim as usize & 7];
        match (want, t) {
            _ if want == t => ty.coords(),
            (12, 8) | (13, 9) => ty.coords() + 1,
            _ => {
                return unsupported(format!("image dim {} with resource TYPE {t}", i.mem.dim));
            }
        }
    } else {
        ty.coords()
    };
    let depth = field(d[4], 0, 13);
    let bytes = fmt.bytes();
    let aligned = width.next_multiple_of(256 / bytes.min(256));
    let pitch = if !g10 {
        field(d[4], 13, 16) + 1
    } else if ctx.gpu == Gpu::Gfx1030 && n == 8 && matches!(ty, Ty::D1 | Ty::D2) {
        field(d[4], 0, 14) + 1
    } else {
        aligned
    };
    Ok(Resource {
        base,
        fmt,
        width,
        height,
        depth: if matches!(ty, Ty::D3) || ty.arrayed() {
            depth
        } else {
            0
        },
        pitch,
        ty,
        coords,
        base_level: field(d[3], 12, 4),
        last_level: field(d[3], 16, 4),
        base_array,
        dst_sel: field(d[3], 0, 12),
    })
}

/// The VGPR (or AGPR) number `k` registers on from data operand `op`.
fn reg_at(op: &Operand, k: usize) -> Result<(u8, bool), E> {
    match *op {
        Operand::Vgpr { index, .. } => Ok((index.wrapping_add(k as u8), false)),
        Operand::Agpr { index, .. } => Ok((index.wrapping_add(k as u8), true)),
        o => unsupported(format!("image data operand {o}")),
    }
}

fn read_reg(w: &Wave, (r, acc): (u8, bool)) -> Result<[u32; 64], E> {
    let file = if acc { &w.agpr } else { &w.vgpr };
    file.get(r as usize)
        .copied()
        .ok_or_else(|| E::Unsupported(format!("{}{r}", if acc { "a" } else { "v" })))
}

fn write_reg(w: &mut Wave, (r, acc): (u8, bool), vals: &[u32; 64], exec: u64) -> R {
    let file = if acc { &mut w.agpr } else { &mut w.vgpr };
    let Some(dst) = file.get_mut(r as usize) else {
        return unsupported(format!("{}{r}", if acc { "a" } else { "v" }));
    };
    for (l, (d, v)) in dst.iter_mut().zip(vals).enumerate() {
        if (exec >> l) & 1 != 0 {
            *d = *v;
        }
    }
    Ok(())
}

/// The address register holding address component `k` (NSA forms list
/// them; the others are consecutive).
fn addr_reg(i: &Inst, k: usize) -> Result<(u8, bool), E> {
    if k > 0 && i.mem.has(flags::NSA) {
        return match i.mem.nsa_addr.get(k - 1) {
            Some(&r) if k < i.mem.naddr as usize => Ok((r, false)),
            _ => unsupported(format!("image address component {k} of an NSA form")),
        };
    }
    match i.src[0] {
        Operand::Vgpr { index, .. } => Ok((index.wrapping_add(k as u8), false)),
        o => unsupported(format!("image address operand {o}")),
    }
}

/// Address components 0..n for every lane (16-bit ones unpacked with `a16`).
fn addresses(w: &Wave, i: &Inst, n: usize) -> Result<Vec<[u32; 64]>, E> {
    let a16 = i.mem.has(flags::A16);
    let regs = if a16 { n.div_ceil(2) } else { n };
    let raw: Vec<[u32; 64]> = (0..regs)
        .map(|k| read_reg(w, addr_reg(i, k)?))
        .collect::<Result<_, _>>()?;
    Ok((0..n)
        .map(|k| {
            if a16 {
                raw[k / 2].map(|v| (v >> (16 * (k % 2))) & 0xffff)
            } else {
                raw[k]
            }
        })
        .collect())
}

/// Where a lane's texel is, or `None` out of range.
fn texel_addr(r: &Resource, c: &[u32], mip: u32) -> Result<Option<u64>, E> {
    let level = r.base_level.saturating_add(mip);
    if level > r.last_level {
        return Ok(None);
    }
    if level != 0 {
        return unsupported(format!(
            "image mip level {level} (only level 0 of a linear image is modelled)"
        ));
    }
    let x = c[0];
    let y = if r.ty.coords() >= 2 && r.ty != Ty::D1Array {
        c[1]
    } else {
        0
    };
    let slice = match r.ty {
        Ty::D1 | Ty::D2 => 0,
        Ty::D1Array => c[1],
        _ => c[2],
    };
    if x >= r.width || y >= r.height {
        return Ok(None);
    }
    let slice = if r.ty.arrayed() {
        let s = r.base_array as u64 + slice as u64;
        if s > r.depth as u64 {
            return Ok(None);
        }
        s
    } else if r.ty == Ty::D3 {
        if slice > r.depth {
            return Ok(None);
        }
        slice as u64
    } else {
        0
    };
    let row = slice * r.height as u64 + y as u64;
    let index = row * r.pitch as u64 + x as u64;
    Ok(Some(r.base.wrapping_add(index * r.fmt.bytes() as u64)))
}

/// Raw component values of a texel's bytes.
fn unpack(f: Format, b: &[u8]) -> [u32; 4] {
    let mut c = [0u32; 4];
    let n = (f.bits / 8) as usize;
    for (k, x) in c.iter_mut().enumerate().take(f.comps as usize) {
        let mut v = 0u32;
        for j in 0..n {
            v |= (b[k * n + j] as u32) << (8 * j);
        }
        *x = v;
    }
    c
}

fn pack(f: Format, c: &[u32; 4], b: &mut [u8]) {
    let n = (f.bits / 8) as usize;
    for (k, &v) in c.iter().enumerate().take(f.comps as usize) {
        for j in 0..n {
            b[k * n + j] = (v >> (8 * j)) as u8;
        }
    }
}

fn sext(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}

/// A component as a real number (for float-valued numeric formats) or an
/// integer register value.
enum Val {
    Real(f64),
    Int(u32),
}

fn component(f: Format, raw: u32) -> Val {
    let b = f.bits;
    let max_u = if b == 32 {
        u32::MAX as f64
    } else {
        ((1u64 << b) - 1) as f64
    };
    match f.num {
        Num::Unorm => Val::Real(raw as f64 / max_u),
        Num::Snorm => Val::Real((sext(raw, b) as f64 / ((1u64 << (b - 1)) - 1) as f64).max(-1.0)),
        Num::Uscaled => Val::Real(raw as f64),
        Num::Sscaled => Val::Real(sext(raw, b) as f64),
        Num::Uint => Val::Int(raw),
        Num::Sint => Val::Int(sext(raw, b) as u32),
        Num::Float if b == 16 => Val::Real(f16_to_f32(raw as u16) as f64),
        Num::Float => Val::Int(raw),
    }
}

/// The register value (32-bit, or 16-bit with `d16`) of component value `v`.
fn reg_value(f: Format, v: Val, d16: bool) -> Result<u32, E> {
    Ok(match (v, d16) {
        // One rounding from the exact value (UNORM/SNORM quotients are
        // never halfway between two f32 or f16 values, so rounding the f64
        // first does not change the result).
        (Val::Real(x), false) => (x as f32).to_bits(),
        (Val::Real(x), true) => f64_to_f16(x) as u32,
        (Val::Int(x), false) => x,
        (Val::Int(x), true) if f.num == Num::Float => f32_to_f16(f32::from_bits(x)) as u32,
        (Val::Int(x), true) if f.bits <= 16 => x & 0xffff,
        (Val::Int(_), true) => {
            return unsupported(format!(
                "d16 image load of a 32-bit {:?} format (narrowing is not modelled)",
                f.num
            ));
        }
    })
}

/// "One" in register form for format `f`.
fn one(f: Format, d16: bool, raw: bool) -> u32 {
    let int = raw || matches!(f.num, Num::Uint | Num::Sint);
    match (int, d16) {
        (true, _) => 1,
        (false, false) => 1.0f32.to_bits(),
        (false, true) => 0x3c00,
    }
}

/// The four register components of a texel after the destination selects.
/// `pck`: raw bits, sign-extended when `Some(true)`.
fn texel_regs(r: &Resource, raw: &[u32; 4], d16: bool, pck: Option<bool>) -> Result<[u32; 4], E> {
    let f = r.fmt;
    let mut comp = [0u32; 4];
    for (k, c) in comp.iter_mut().enumerate() {
        *c = if (k as u32) < f.comps {
            match pck {
                Some(false) => raw[k],
                Some(true) => sext(raw[k], f.bits) as u32,
                None => reg_value(f, component(f, raw[k]), d16)?,
            }
        } else if k == 3 {
            one(f, d16, pck.is_some())
        } else {
            0
        };
        if d16 && pck.is_some() {
            *c &= 0xffff;
        }
    }
    let mut out = [0u32; 4];
    for (k, o) in out.iter_mut().enumerate() {
        let sel = (r.dst_sel >> (3 * k)) & 7;
        *o = match sel {
            0 => 0,
            1 => one(f, d16, pck.is_some()),
            4..=7 => comp[sel as usize - 4],
            _ => {
                return unsupported(format!(
                    "image resource DST_SEL {sel} (reserved) for component {k}"
                ));
            }
        };
    }
    Ok(out)
}

/// Round to nearest even of a finite f64.
fn rne(x: f64) -> f64 {
    let r = x.round();
    if (r - x).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    }
}

/// The raw component stored for register value `v` (16-bit with `d16`).
fn store_component(f: Format, v: u32, d16: bool, pck: bool) -> u32 {
    let b = f.bits;
    let mask = if b == 32 { u32::MAX } else { (1 << b) - 1 };
    if pck {
        return v & mask;
    }
    let real = || {
        if d16 {
            f16_to_f32(v as u16) as f64
        } else {
            f32::from_bits(v) as f64
        }
    };
    let umax = mask as f64;
    let smax = ((1u64 << (b - 1)) - 1) as f64;
    let sat = |x: f64, lo: f64, hi: f64| -> f64 {
        if x.is_nan() {
            0.0
        } else {
            rne(x).clamp(lo, hi)
        }
    };
    match f.num {
        Num::Unorm => sat(real().clamp(0.0, 1.0) * umax, 0.0, umax) as u32,
        Num::Snorm => (sat(real().clamp(-1.0, 1.0) * smax, -smax, smax) as i64 as u32) & mask,
        Num::Uscaled => sat(real(), 0.0, umax) as u32,
        Num::Sscaled => (sat(real(), -smax - 1.0, smax) as i64 as u32) & mask,
        Num::Uint => {
            let x = if d16 { v & 0xffff } else { v };
            x.min(mask)
        }
        Num::Sint => {
            let x = if d16 {
                v as u16 as i16 as i64
            } else {
                v as i32 as i64
            };
            (x.clamp(-(smax as i64) - 1, smax as i64) as u32) & mask
        }
        Num::Float if b == 16 => {
            if d16 {
                v & 0xffff
            } else {
                f32_to_f16(f32::from_bits(v)) as u32
            }
        }
        Num::Float => {
            if d16 {
                f16_to_f32(v as u16).to_bits()
            } else {
                v
            }
        }
    }
}

/// The `dmask` components of `regs`, in order, packed two to a register with `d16`.
fn dmask_components(regs: &[u32; 4], dmask: u32, d16: bool) -> [u32; 4] {
    let mut out = [0u32; 4];
    let mut j = 0;
    for (c, &v) in regs.iter().enumerate() {
        if (dmask >> c) & 1 != 0 {
            if d16 {
                out[j / 2] |= (v & 0xffff) << (16 * (j % 2));
            } else {
                out[j] = v;
            }
            j += 1;
        }
    }
    out
}

/// Executes image operation `k` (one of [`handles`]).
pub(crate) fn exec(k: MemKind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    let Some(class) = op_class(k) else {
        return Err(E::Unimpl);
    };
    if i.mem.has(flags::TFE) || i.mem.has(flags::LWE) {
        return unsupported("tfe or lwe on an image instruction (no status is modelled)");
    }
    let r = resource(w, i, ctx)?;
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let d16 = i.mem.has(flags::D16);
    let dmask = i.mem.dmask as u32 & 0xf;
    match class {
        Class::Resinfo => resinfo(&r, w, i, exec, dmask, d16),
        Class::Sample(lod) => sample::exec(&r, lod, w, i, ctx, dmask, d16),
        Class::Load { mip, pck } => {
            if dmask == 0 {
                return unsupported("image load with dmask 0");
            }
            let nc = r.coords + mip as usize;
            let a = addresses(w, i, nc)?;
            let mut vals = vec![[0u32; 4]; n];
            let size = r.fmt.bytes() as usize;
            for l in 0..n {
                if (exec >> l) & 1 == 0 {
                    continue;
                }
                let c: Vec<u32> = a.iter().map(|x| x[l]).collect();
                let m = if mip { c[nc - 1] } else { 0 };
                let mut b = [0u8; 16];
                if let Some(addr) = texel_addr(&r, &c, m)? {
                    ctx.mem
                        .read(addr, &mut b[..size])
                        .map_err(|f| E::Fault(f, l as u32))?;
                }
                let regs = texel_regs(&r, &unpack(r.fmt, &b), d16, pck)?;
                vals[l] = dmask_components(&regs, dmask, d16);
            }
            let count = dmask.count_ones() as usize;
            let regs = if d16 { count.div_ceil(2) } else { count };
            write_out(w, i, &vals, regs, exec)
        }
        Class::Store { mip, pck } => {
            let nc = r.coords + mip as usize;
            let a = addresses(w, i, nc)?;
            let count = dmask.count_ones() as usize;
            let nregs = if d16 { count.div_ceil(2) } else { count };
            let data: Vec<[u32; 64]> = (0..nregs)
                .map(|k| read_reg(w, reg_at(&i.dst[0], k)?))
                .collect::<Result<_, _>>()?;
            let size = r.fmt.bytes() as usize;
            let full = (1u32 << r.fmt.comps) - 1;
            for l in 0..n {
                if (exec >> l) & 1 == 0 {
                    continue;
                }
                let c: Vec<u32> = a.iter().map(|x| x[l]).collect();
                let m = if mip { c[nc - 1] } else { 0 };
                let Some(addr) = texel_addr(&r, &c, m)? else {
                    continue;
                };
                let mut b = [0u8; 16];
                if dmask & full != full {
                    ctx.mem
                        .read(addr, &mut b[..size])
                        .map_err(|f| E::Fault(f, l as u32))?;
                }
                let mut raw = unpack(r.fmt, &b);
                let mut j = 0;
                for (comp, x) in raw.iter_mut().enumerate() {
                    if (dmask >> comp) & 1 == 0 {
                        continue;
                    }
                    let v = if d16 {
                        (data[j / 2][l] >> (16 * (j % 2))) & 0xffff
                    } else {
                        data[j][l]
                    };
                    j += 1;
                    if (comp as u32) < r.fmt.comps {
                        *x = store_component(r.fmt, v, d16, pck);
                    }
                }
                pack(r.fmt, &raw, &mut b);
                ctx.mem
                    .write(addr, &b[..size])
                    .map_err(|f| E::Fault(f, l as u32))?;
            }
            Ok(())
        }
        Class::Atomic(op, float) => atomic(&r, op, float, w, i, ctx, exec, dmask),
    }
}

/// Writes `regs` data registers from each active lane's values.
fn write_out(w: &mut Wave, i: &Inst, vals: &[[u32; 4]], regs: usize, exec: u64) -> R {
    for k in 0..regs {
        let reg = reg_at(&i.dst[0], k)?;
        let mut lanes = read_reg(w, reg)?;
        for (l, v) in vals.iter().enumerate() {
            lanes[l] = v[k];
        }
        write_reg(w, reg, &lanes, exec)?;
    }
    Ok(())
}

fn resinfo(r: &Resource, w: &mut Wave, i: &Inst, exec: u64, dmask: u32, d16: bool) -> R {
    if d16 {
        return unsupported("d16 on image_get_resinfo");
    }
    let n = w.size as usize;
    let a = addresses(w, i, 1)?;
    let mut vals = vec![[0u32; 4]; n];
    for (l, v) in vals.iter_mut().enumerate().take(n) {
        let level = r.base_level.saturating_add(a[0][l]).min(31);
        let dim = |x: u32| (x >> level).max(1);
        let z = match r.ty {
            Ty::D3 => dim(r.depth + 1),
            t if t.arrayed() => (r.depth + 1).saturating_sub(r.base_array),
            _ => 1,
        };
        let all = [
            dim(r.width),
            dim(r.height),
            z,
            (r.last_level + 1).saturating_sub(r.base_level),
        ];
        let mut j = 0;
        for (c, &x) in all.iter().enumerate() {
            if (dmask >> c) & 1 != 0 {
                v[j] = x;
                j += 1;
            }
        }
    }
    write_out(w, i, &vals, dmask.count_ones() as usize, exec)
}

#[allow(clippy::too_many_arguments)]
fn atomic(
    r: &Resource,
    op: At,
    float: bool,
    w: &mut Wave,
    i: &Inst,
    ctx: &Ctx,
    exec: u64,
    dmask: u32,
) -> R {
    let cmp = matches!(op, At::Cmpswap | At::FcmpswapF32);
    let f = r.fmt;
    let wide = match (dmask, cmp) {
        (1, false) | (3, true) => false,
        (3, false) | (0xf, true) => true,
        _ => return unsupported(format!("image atomic with dmask {dmask:#x}")),
    };
    let ok_num = if float {
        f.num == Num::Float
    } else {
        matches!(f.num, Num::Uint | Num::Sint)
    };
    if f.bits != 32 || f.comps != 1 + wide as u32 || !ok_num || (float && wide) {
        return unsupported(format!(
            "image atomic on a {}x{}-bit {:?} format with dmask {dmask:#x} (modelled: one \
             32-bit component, or two as a 64-bit value, integer or float as the operation is)",
            f.comps, f.bits, f.num
        ));
    }
    if i.mem.has(flags::D16) {
        return unsupported("d16 on an image atomic");
    }
    let op = if wide {
        match op {
            At::FcmpswapF32 => At::FcmpswapF64,
            o => o,
        }
    } else {
        op
    };
    let n = w.size as usize;
    let a = addresses(w, i, r.coords)?;
    let words = if wide { 2 } else { 1 };
    let data: Vec<[u32; 64]> = (0..words * (1 + cmp as usize))
        .map(|k| read_reg(w, reg_at(&i.dst[0], k)?))
        .collect::<Result<_, _>>()?;
    let get = |k: usize, l: usize| -> u64 {
        if wide {
            data[2 * k][l] as u64 | (data[2 * k + 1][l] as u64) << 32
        } else {
            data[k][l] as u64
        }
    };
    let mut vals = vec![[0u32; 4]; n];
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let c: Vec<u32> = a.iter().map(|x| x[l]).collect();
        let Some(addr) = texel_addr(r, &c, 0)? else {
            continue;
        };
        let (src, cv) = (get(0, l), if cmp { get(1, l) } else { 0 });
        let fault = |f| E::Fault(f, l as u32);
        let old = if wide {
            u64::from_le_bytes(
                ctx.mem
                    .atomic::<8>(addr, |o| {
                        atomic_op(op, u64::from_le_bytes(o), src, cv, true).to_le_bytes()
                    })
                    .map_err(fault)?,
            )
        } else {
            u32::from_le_bytes(
                ctx.mem
                    .atomic::<4>(addr, |o| {
                        (atomic_op(op, u32::from_le_bytes(o) as u64, src, cv, false) as u32)
                            .to_le_bytes()
                    })
                    .map_err(fault)?,
            ) as u64
        };
        vals[l] = [old as u32, (old >> 32) as u32, 0, 0];
    }
    if i.mem.has(flags::GLC) {
        write_out(w, i, &vals, words, exec)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx10_unified_formats_follow_the_table() {
        let f = |bits, comps, num| Some(Format { bits, comps, num });
        assert_eq!(format_gfx10(1), f(8, 1, Num::Unorm));
        assert_eq!(format_gfx10(6), f(8, 1, Num::Sint));
        assert_eq!(format_gfx10(13), f(16, 1, Num::Float));
        assert_eq!(format_gfx10(22), f(32, 1, Num::Float));
        assert_eq!(format_gfx10(29), f(16, 2, Num::Float));
        assert_eq!(format_gfx10(56), f(8, 4, Num::Unorm));
        assert_eq!(format_gfx10(61), f(8, 4, Num::Sint));
        assert_eq!(format_gfx10(62), f(32, 2, Num::Uint));
        assert_eq!(format_gfx10(71), f(16, 4, Num::Float));
        assert_eq!(format_gfx10(77), f(32, 4, Num::Float));
        assert_eq!(format_gfx10(30), None);
        assert_eq!(format_gfx10(0), None);
        assert_eq!(format_gfx10(78), None);
        assert_eq!(format_gfx9(10, 0), f(8, 4, Num::Unorm));
        assert_eq!(format_gfx9(1, 7), None);
        assert_eq!(format_gfx9(4, 0), None);
    }

    #[test]
    fn conversions_are_exact() {
        let u8n = Format {
            bits: 8,
            comps: 1,
            num: Num::Unorm,
        };
        // 1/255 and 128/255 correctly rounded to f32.
        let v = |x| reg_value(u8n, component(u8n, x), false).unwrap();
        assert_eq!(v(1), ((1.0f64 / 255.0) as f32).to_bits());
        assert_eq!(v(255), 1.0f32.to_bits());
        let s8 = Format {
            num: Num::Snorm,
            ..u8n
        };
        // -128 and -127 both read -1.
        let s = |x| f32::from_bits(reg_value(s8, component(s8, x), false).unwrap());
        assert_eq!(s(0x80), -1.0);
        assert_eq!(s(0x81), -1.0);
        assert_eq!(s(0x7f), 1.0);
        // Stores: 0.5 * 255 = 127.5 rounds to even 128; NaN to 0; clamped.
        assert_eq!(store_component(u8n, 0.5f32.to_bits(), false, false), 128);
        assert_eq!(store_component(u8n, f32::NAN.to_bits(), false, false), 0);
        assert_eq!(store_component(u8n, 2.0f32.to_bits(), false, false), 255);
        assert_eq!(store_component(s8, (-2.0f32).to_bits(), false, false), 0x81);
        let u8i = Format {
            num: Num::Uint,
            ..u8n
        };
        assert_eq!(store_component(u8i, 300, false, false), 255);
        let s16 = Format {
            bits: 16,
            comps: 1,
            num: Num::Sint,
        };
        assert_eq!(
            store_component(s16, (-40000i32) as u32, false, false),
            0x8000
        );
    }
}
