//! Scalar memory loads, and GFX9 scalar scratch access.

use super::*;

pub(super) fn smem(k: MemKind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    let Some((dwords, buffer)) = k.scalar_load() else {
        return unsupported(format!("{k:?} is not a scalar load"));
    };
    let dwords = dwords as usize;
    let addr = super::smem_store::scalar_address(w, i, buffer)?;
    let mut b = vec![0u8; dwords * 4];
    if buffer {
        // Dwords outside the buffer read 0 (range checking, see
        // `smem_store::buffer_dwords`).
        let inside = super::smem_store::buffer_dwords(w, i, dwords)?;
        for (k2, c) in b.chunks_exact_mut(4).enumerate() {
            if (inside >> k2) & 1 != 0 {
                ctx.mem
                    .read(addr.wrapping_add(4 * k2 as u64), c)
                    .map_err(|f| E::Fault(f, 0))?;
            }
        }
    } else {
        ctx.mem.read(addr, &mut b).map_err(|f| E::Fault(f, 0))?;
    }
    for (k2, c) in b.chunks_exact(4).enumerate() {
        let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        if !w.write_sdword(&i.dst[0], k2 as u8, v) {
            return unsupported(format!("scalar destination {}", i.dst[0]));
        }
    }
    Ok(())
}

/// `s_scratch_load_dword*` / `s_scratch_store_dword*` (GFX9, gfx1010): the
/// wave's own scratch, unswizzled, at `SBASE + (offset & !3) +
/// (SOFFSET & !3) * 64` (Vega ISA "Scalar memory": the SGPR offset is scaled
/// by 64; CLRX's GCN notes give the same formula). SBASE normally holds
/// FLAT_SCRATCH, the base of the wave's scratch backing store; an address
/// outside that store is reported as unsupported.
pub(super) fn smem_scratch(k: MemKind, w: &mut Wave, i: &Inst) -> R {
    use MemKind::*;
    let (dwords, store) = match k {
        SScratchLoad1 => (1u8, false),
        SScratchLoad2 => (2, false),
        SScratchLoad4 => (4, false),
        SScratchStore1 => (1, true),
        SScratchStore2 => (2, true),
        _ => (4, true),
    };
    let mut addr = s64(w, &i.src[0])?;
    if i.mem.has(flags::IMM) {
        addr = addr.wrapping_add((i.mem.offset as i64 as u64) & !3);
    }
    if i.mem.has(flags::SOE) && i.src[1].is_some() {
        addr = addr.wrapping_add(((s32(w, &i.src[1])? & !3) as u64) * 64);
    }
    if !(SCRATCH_BACKING..SCRATCH_BACKING + APERTURE_SIZE).contains(&addr) {
        return unsupported(format!(
            "scalar scratch address {addr:#x} outside the wave's scratch"
        ));
    }
    let off = addr - SCRATCH_BACKING;
    let mut b = vec![0u8; 4 * dwords as usize];
    if store {
        for (d, c) in b.chunks_exact_mut(4).enumerate() {
            let v = w
                .read_sdword(&i.dst[0], d as u8)
                .ok_or_else(|| E::Unsupported(format!("scalar data operand {}", i.dst[0])))?;
            c.copy_from_slice(&v.to_le_bytes());
        }
        return w.scratch.write_backing(off, &b).map_err(|f| E::Fault(f, 0));
    }
    w.scratch
        .read_backing(off, &mut b)
        .map_err(|f| E::Fault(f, 0))?;
    for (d, c) in b.chunks_exact(4).enumerate() {
        let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        if !w.write_sdword(&i.dst[0], d as u8, v) {
            return unsupported(format!("scalar destination {}", i.dst[0]));
        }
    }
    Ok(())
}
