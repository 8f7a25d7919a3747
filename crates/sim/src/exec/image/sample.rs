//! Point sampling: `image_sample`, `image_sample_lz`, `image_sample_l` through a
//! sampler (S#, 4 dwords) with point (nearest) filtering, on single-level images
//! (`_lz` always reads the base level).
//!
//! # The S# fields read (Mesa `sid.h` `S_008F30_*`, ROCr `PopulateSamplerSrd`)
//!
//! | field | where |
//! |---|---|
//! | CLAMP_X, CLAMP_Y, CLAMP_Z | w0\[2:0\], w0\[5:3\], w0\[8:6\] |
//! | FORCE_UNNORMALIZED | w0\[15\] |
//! | XY_MAG_FILTER, XY_MIN_FILTER | w2\[21:20\], w2\[23:22\] |
//! | Z_FILTER | w2\[25:24\] |
//!
//! Coordinates are floats; they are texel units when the instruction's `unorm` bit or
//! FORCE_UNNORMALIZED says so, else normalized (multiplied by the size). The hardware
//! converts texel coordinates to a fixed point with 8 (GCN's documented sub-texel
//! precision) or 9 fraction bits, rounding to nearest, then takes the texel below: so a
//! coordinate less than 1/1024 texel from an edge selects the texel that starts there
//! (HIP 5.2's `tex2D` relies on it: for point filtering it passes
//! `floor(x * size) * rcp(size)`, a texel's left edge give or take an ulp), and one
//! farther than 1/512 the texel it is in. CLAMP 0 (wrap) takes the texel modulo the
//! size, 2 (clamp to the last texel) clamps it, 6 (border) reads the border colour
//! outside. An array layer is the coordinate rounded to nearest, clamped to the layers.
//!
//! Refused as unsupported rather than guessed: a coordinate between 1/1024 and 1/512
//! texel from an edge (8 and 9 fraction bits disagree there), a layer coordinate within
//! 1/512 of a half, non-finite coordinates,
//! bilinear filtering, LOD selection over a mip chain (`image_sample`, `_l` on an
//! image with more than one level), the mirror and half-border clamp modes, cube
//! images, 16-bit addresses, and a border read whose destination select asks for the
//! constant 1 (the border colour, transparent black, is 0 in every channel).

use super::{
    Ctx, E, R, Resource, Ty, addresses, dmask_components, field, texel_addr, texel_regs, unpack,
    unsupported, write_out,
};
use crate::wave::Wave;
use amdgpu_isa::Inst;
use amdgpu_isa::mem::flags;

/// How the level of detail is given.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Lod {
    /// `image_sample`: computed from derivatives.
    Implicit,
    /// `image_sample_lz`: level 0.
    Zero,
    /// `image_sample_l`: an address component after the coordinates.
    Explicit,
}

/// The sampler fields point sampling uses.
struct Sampler {
    clamp: [u32; 3],
    unnormalized: bool,
}

/// Texel coordinates this close to an integer (in texels) snap to it: the hardware
/// rounds them to a fixed point of 8 or 9 fraction bits (both agree this close).
const SNAP: f64 = 1.0 / 1024.0;
/// Between [`SNAP`] and this, 8 and 9 fraction bits decide differently: not known.
const EDGE: f64 = 1.0 / 512.0;

fn sampler(w: &Wave, i: &Inst, ty: Ty) -> Result<Sampler, E> {
    let mut d = [0u32; 4];
    for (k, x) in d.iter_mut().enumerate() {
        *x = w
            .read_sdword(&i.src[2], k as u8)
            .ok_or_else(|| E::Unsupported(format!("sampler operand {}", i.src[2])))?;
    }
    let (mag, min, z) = (field(d[2], 20, 2), field(d[2], 22, 2), field(d[2], 24, 2));
    if mag != 0 || min != 0 {
        return unsupported(format!(
            "sampler filtering XY_MAG_FILTER {mag} XY_MIN_FILTER {min} (only point \
             filtering, 0, is modelled)"
        ));
    }
    if ty == Ty::D3 && z > 1 {
        return unsupported(format!("sampler Z_FILTER {z} (only none or point)"));
    }
    Ok(Sampler {
        clamp: [field(d[0], 0, 3), field(d[0], 3, 3), field(d[0], 6, 3)],
        unnormalized: field(d[0], 15, 1) != 0 || i.mem.has(flags::UNORM),
    })
}

/// The texel along an axis of `size` texels for coordinate `u` (`None`: the border).
fn axis(u: f32, size: u32, s: &Sampler, k: usize) -> Result<Option<u32>, E> {
    let what = ["x", "y", "z"][k];
    if !u.is_finite() {
        return unsupported(format!("a non-finite {what} sampling coordinate ({u})"));
    }
    // Exact: a float times a size below 2^14 fits in a double's mantissa.
    let t = if s.unnormalized {
        f64::from(u)
    } else {
        f64::from(u) * f64::from(size)
    };
    let near = t.round();
    let d = (t - near).abs();
    let f = if d < SNAP {
        near
    } else if d <= EDGE {
        return unsupported(format!(
            "point sampling at {what} = {u} (texel coordinate {t}): between 1/1024 and 1/512 \
             texel from a texel edge, where the hardware's fixed-point precision decides the \
             texel"
        ));
    } else {
        t.floor()
    };
    let (i, n) = (f as i64, i64::from(size));
    match s.clamp[k] {
        0 => Ok(Some(i.rem_euclid(n) as u32)),
        2 => Ok(Some(i.clamp(0, n - 1) as u32)),
        6 => Ok((0..n).contains(&i).then_some(i as u32)),
        m => unsupported(format!(
            "sampler CLAMP_{} {m} (modelled: 0 wrap, 2 clamp to the last texel, 6 border)",
            what.to_uppercase()
        )),
    }
}

/// The array layer for coordinate `r`: rounded to nearest, clamped to the layers.
fn layer(r: f32, last: u32) -> Result<u32, E> {
    if !r.is_finite() {
        return unsupported(format!("a non-finite array layer coordinate ({r})"));
    }
    let x = f64::from(r);
    if (x - x.floor() - 0.5).abs() < EDGE {
        return unsupported(format!(
            "array layer coordinate {r}: within 1/512 of a half, where the rounding is not known"
        ));
    }
    Ok(x.round().clamp(0.0, f64::from(last)) as u32)
}

/// The integer coordinates (as `texel_addr` takes them) of a lane's sample, or `None`
/// for the border.
fn texel_coords(r: &Resource, s: &Sampler, c: &[u32]) -> Result<Option<[u32; 3]>, E> {
    let f = |k: usize| f32::from_bits(c[k]);
    let last_layer = r.depth.saturating_sub(r.base_array);
    let mut out = [0u32; 3];
    let sizes = [r.width, r.height, r.depth + 1];
    let axes: &[usize] = match r.ty {
        Ty::D1 | Ty::D1Array => &[0],
        Ty::D2 | Ty::D2Array => &[0, 1],
        Ty::D3 => &[0, 1, 2],
        Ty::Cube => return unsupported("sampling a cube image"),
    };
    for &k in axes {
        match axis(f(k), sizes[k], s, k)? {
            Some(t) => out[k] = t,
            None => return Ok(None),
        }
    }
    match r.ty {
        Ty::D1Array => out[1] = layer(f(1), last_layer)?,
        Ty::D2Array => out[2] = layer(f(2), last_layer)?,
        _ => {}
    }
    Ok(Some(out))
}

/// Executes a point-sampled read for every active lane.
pub(super) fn exec(
    r: &Resource,
    lod: Lod,
    w: &mut Wave,
    i: &Inst,
    ctx: &Ctx,
    dmask: u32,
    d16: bool,
) -> R {
    if i.mem.has(flags::A16) {
        return unsupported("sampling with 16-bit addresses (a16)");
    }
    if lod != Lod::Zero && r.last_level != r.base_level {
        return unsupported(format!(
            "LOD selection over mip levels {}..={} (only single-level images are sampled)",
            r.base_level, r.last_level
        ));
    }
    if dmask == 0 {
        return unsupported("image sample with dmask 0");
    }
    let s = sampler(w, i, r.ty)?;
    let nc = r.coords + usize::from(lod == Lod::Explicit);
    let a = addresses(w, i, nc)?;
    let exec = w.exec.0 & w.full_mask();
    let size = r.fmt.bytes() as usize;
    let mut vals = vec![[0u32; 4]; w.size as usize];
    for (l, val) in vals.iter_mut().enumerate() {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let c: Vec<u32> = a.iter().map(|x| x[l]).collect();
        let regs = match texel_coords(r, &s, &c)? {
            Some(t) => {
                let mut b = [0u8; 16];
                if let Some(addr) = texel_addr(r, &t, 0)? {
                    ctx.mem
                        .read(addr, &mut b[..size])
                        .map_err(|f| E::Fault(f, l as u32))?;
                }
                texel_regs(r, &unpack(r.fmt, &b), d16, None)?
            }
            None => border(r, dmask)?,
        };
        *val = dmask_components(&regs, dmask, d16);
    }
    let count = dmask.count_ones() as usize;
    let regs = if d16 { count.div_ceil(2) } else { count };
    write_out(w, i, &vals, regs, exec)
}

/// The border colour (transparent black) in register components.
fn border(r: &Resource, dmask: u32) -> Result<[u32; 4], E> {
    for k in 0..4 {
        if (dmask >> k) & 1 != 0 && (r.dst_sel >> (3 * k)) & 7 == 1 {
            return unsupported(
                "a border read whose destination select is the constant 1 (how it combines \
                 with the border colour is not modelled)",
            );
        }
    }
    Ok([0; 4])
}
