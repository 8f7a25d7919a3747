//! MUBUF addressing through buffer resources.

use super::*;

/// MUBUF addressing through a buffer resource (V#), with the swizzled
/// (ADD_TID_ENABLE) layout the private segment buffer uses (Vega ISA §9.1.5
/// "Buffer addressing", "Swizzled buffer addressing").
pub(super) fn buffer_targets(w: &Wave, i: &Inst, t: &mut [Target; 64]) -> R {
    let n = w.size as usize;
    let rs: Vec<u32> = (0..4)
        .map(|k| w.read_sdword(&i.src[1], k).unwrap_or(0))
        .collect();
    let (w0, w1, w2, w3) = (rs[0], rs[1], rs[2], rs[3]);
    let num_records = w2 as u64;
    let base = w0 as u64 | ((w1 & 0xffff) as u64) << 32;
    let stride = ((w1 >> 16) & 0x3fff) as u64;
    let swizzle = (w1 >> 31) & 1 != 0 || (w3 >> 23) & 1 != 0;
    let add_tid = (w3 >> 23) & 1 != 0;
    let index_stride = [8u64, 16, 32, 64][((w3 >> 21) & 3) as usize];
    let elem = 4u64;
    let soffset = if i.src[2].is_some() {
        s32(w, &i.src[2])? as u64
    } else {
        0
    };
    let offen = i.mem.has(flags::OFFEN);
    let idxen = i.mem.has(flags::IDXEN);
    let (vidx, voff) = match (idxen, offen) {
        (true, true) => {
            let a = v64(w, &i.src[0], Ty::I)?;
            (a.map(|x| x as u32), a.map(|x| (x >> 32) as u32))
        }
        (true, false) => (v32(w, &i.src[0], Ty::I)?, [0; 64]),
        (false, true) => ([0; 64], v32(w, &i.src[0], Ty::I)?),
        _ => ([0; 64], [0; 64]),
    };
    for l in 0..n {
        let index = vidx[l] as u64 + if add_tid { l as u64 } else { 0 };
        let offset = voff[l] as u64 + (i.mem.offset as u32 & 0xfff) as u64;
        let boff = if swizzle {
            let (im, il) = (index / index_stride, index % index_stride);
            let (om, ol) = (offset / elem, offset % elem);
            (im * stride + om * elem) * index_stride + il * elem + ol
        } else {
            index * stride + offset
        };
        let addr = base.wrapping_add(soffset).wrapping_add(boff);
        // Range checking of linear (unswizzled) buffers: by byte offset when
        // the stride is 0, else by record index.
        let out_of_range = !swizzle
            && if stride == 0 {
                offset >= num_records
            } else {
                index >= num_records
            };
        t[l] = if out_of_range {
            Target::OutOfRange
        } else if (SCRATCH_BACKING..SCRATCH_BACKING + APERTURE_SIZE).contains(&addr) {
            Target::Backing(addr - SCRATCH_BACKING)
        } else {
            Target::Global(addr)
        };
    }
    Ok(())
}

/// One buffer access of `size` bytes per active lane through the MUBUF /
/// MTBUF addressing of `i` ([`buffer_targets`], range checking included):
/// with `data` (dwords per lane) a store, else a load returning each lane's
/// dwords.
pub(crate) fn buffer_access(
    w: &mut Wave,
    i: &Inst,
    lds: &mut Bytes,
    ctx: &Ctx,
    size: usize,
    data: Option<&[[u32; 64]]>,
) -> Result<Vec<[u32; 4]>, E> {
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let mut targets = [Target::Global(0); 64];
    buffer_targets(w, i, &mut targets)?;
    let mut cur = PageCursor::new(ctx.mem);
    let mut vals = vec![[0u32; 4]; n];
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let mut b = [0u8; 16];
        if let Some(d) = data {
            for (k, r) in d.iter().enumerate().take(4) {
                b[4 * k..4 * k + 4].copy_from_slice(&r[l].to_le_bytes());
            }
            write(targets[l], l, &b[..size], w, lds, &mut cur)?;
        } else {
            read(targets[l], l, &mut b[..size], w, lds, &mut cur)?;
            vals[l] = loaded_dwords(&b, size, Ext::Zero);
        }
    }
    Ok(vals)
}

/// A MUBUF load with the LDS bit (LDS DMA): the data goes to LDS, not to
/// VGPRs. Each active lane's dword is written at `M0[15:0] +
/// inst_offset + 4 * lane` (the Vega ISA's `LDS_ADDR = LDSbase +
/// LDS_offset + inst_offset + TIDinWave * 4`; LLVM's `buffer.load.lds` and
/// `global.load.lds` apply the immediate offset to both addresses and
/// place lane `l` at `4 * l`). The memory address is the buffer's, range
/// checking included (an out-of-range lane writes 0). Every lane is read
/// and every LDS address checked before LDS is written, so a fault leaves
/// LDS as it was. Only whole dwords: the guides do not say where the
/// sub-dword forms put their bytes.
pub(super) fn load_to_lds(sh: Shape, w: &Wave, i: &Inst, lds: &mut Bytes, ctx: &Ctx) -> R {
    match (i.encoding, sh) {
        (Encoding::Mubuf, Shape::Load(4, _)) => {}
        (Encoding::Mubuf, Shape::Load(size, _)) => {
            return unsupported(format!(
                "a {size}-byte buffer load to LDS (only whole dwords are modelled)"
            ));
        }
        _ => return unsupported("the LDS bit on this instruction"),
    }
    let mut targets = [Target::Global(0); 64];
    buffer_targets(w, i, &mut targets)?;
    let exec = w.exec.0 & w.full_mask();
    let base = (w.m0 & 0xffff) as u64 + (i.mem.offset as u32 & 0xfff) as u64;
    let mut cur = PageCursor::new(ctx.mem);
    let mut vals = [0u32; 64];
    for l in (0..w.size as usize).filter(|l| (exec >> l) & 1 != 0) {
        let mut b = [0u8; 4];
        read(targets[l], l, &mut b, w, lds, &mut cur)?;
        vals[l] = u32::from_le_bytes(b);
        let a = base + 4 * l as u64;
        if a + 4 > lds.len() as u64 {
            // Out of the group's LDS: the write's own fault says where.
            lds.write(a, &b).map_err(lane_err(l))?;
        }
    }
    for l in (0..w.size as usize).filter(|l| (exec >> l) & 1 != 0) {
        lds.write(base + 4 * l as u64, &vals[l].to_le_bytes())
            .map_err(lane_err(l))?;
    }
    Ok(())
}
