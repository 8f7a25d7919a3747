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

/// The addresses of a MUBUF LDS DMA (`buffer_load_dword ... lds` and
/// `buffer_store_lds_dword`): each lane's buffer target by the MUBUF
/// addressing of the instruction ([`buffer_targets`], swizzling and range
/// checking included), and its LDS address `M0[15:0] + inst_offset + 4 *
/// lane` (the Vega ISA's `LDS_ADDR = LDSbase + LDS_offset + inst_offset +
/// TIDinWave * 4`; LLVM's `buffer.load.lds` and `global.load.lds` apply the
/// immediate offset to both addresses and place lane `l` at `4 * l`).
struct LdsDma {
    targets: [Target; 64],
    /// The LDS address of lane 0.
    lds_base: u64,
    exec: u64,
    lanes: usize,
}

impl LdsDma {
    fn new(w: &Wave, i: &Inst) -> Result<LdsDma, E> {
        let mut targets = [Target::Global(0); 64];
        buffer_targets(w, i, &mut targets)?;
        Ok(LdsDma {
            targets,
            lds_base: (w.m0 & 0xffff) as u64 + (i.mem.offset as u32 & 0xfff) as u64,
            exec: w.exec.0 & w.full_mask(),
            lanes: w.size as usize,
        })
    }

    /// The active lanes in lane order, each with its buffer target and its
    /// LDS address.
    fn active(&self) -> impl Iterator<Item = (usize, Target, u64)> + '_ {
        (0..self.lanes)
            .filter(|l| (self.exec >> l) & 1 != 0)
            .map(|l| (l, self.targets[l], self.lds_base + 4 * l as u64))
    }
}

/// A MUBUF load with the LDS bit (LDS DMA): the data goes to LDS, not to
/// VGPRs. Each active lane's dword is written at its [`LdsDma`] LDS
/// address. The memory address is the buffer's, range checking included
/// (an out-of-range lane writes 0). Every lane is read and every LDS
/// address checked before LDS is written, so a fault leaves LDS as it was.
/// Only whole dwords: the guides do not say where the sub-dword forms put
/// their bytes.
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
    let dma = LdsDma::new(w, i)?;
    let mut cur = PageCursor::new(ctx.mem);
    let mut vals = [0u32; 64];
    for (l, t, a) in dma.active() {
        let mut b = [0u8; 4];
        read(t, l, &mut b, w, lds, &mut cur)?;
        vals[l] = u32::from_le_bytes(b);
        if a + 4 > lds.len() as u64 {
            // Out of the group's LDS: the write's own fault says where.
            lds.write(a, &b).map_err(lane_err(l))?;
        }
    }
    for (l, _, a) in dma.active() {
        lds.write(a, &vals[l].to_le_bytes()).map_err(lane_err(l))?;
    }
    Ok(())
}

/// `buffer_store_lds_dword` (GFX9 MUBUF): the mirror of [`load_to_lds`].
/// Each active lane reads the dword at its [`LdsDma`] LDS address
/// (`M0[15:0] + inst_offset + 4 * lane`) and stores it at the buffer
/// address the MUBUF addressing gives it with no address VGPR:
/// `V#.base + soffset + inst_offset`, plus the lane's index times the
/// stride only when the V# has ADD_TID_ENABLE (swizzled as that layout
/// is), range checking included (an out-of-range lane stores nothing).
/// Without ADD_TID_ENABLE every lane has the same buffer address, and the
/// highest active lane's dword is the one left there (lanes store in lane
/// order). Every LDS dword is read before anything is stored, so an LDS
/// address outside the group's LDS faults with memory unchanged.
///
/// No AMD pseudo-code exists for the store form; this mirrors the
/// documented load-to-LDS addressing (CDNA4 ISA guide §9.1.9, "LDS_offset
/// comes from M0") with the operands LLVM gives the instruction
/// (`BUFInstructions.td`, `MUBUF_Pseudo_Store_Lds`: no vaddr, no vdata,
/// uses M0 and EXEC).
pub(super) fn store_from_lds(w: &mut Wave, i: &Inst, lds: &mut Bytes, ctx: &Ctx) -> R {
    if i.encoding != Encoding::Mubuf {
        return unsupported("a store from LDS outside MUBUF");
    }
    let dma = LdsDma::new(w, i)?;
    let mut vals = [[0u8; 4]; 64];
    for (l, _, a) in dma.active() {
        lds.read(a, &mut vals[l]).map_err(lane_err(l))?;
    }
    let mut cur = PageCursor::new(ctx.mem);
    for (l, t, _) in dma.active() {
        write(t, l, &vals[l], w, lds, &mut cur)?;
    }
    Ok(())
}
