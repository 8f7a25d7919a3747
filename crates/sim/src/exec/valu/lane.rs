//! Lane and register movement: moves, lane reads and writes, `v_mbcnt`,
//! `v_cndmask`, relative moves and swaps, `v_permlane*`.

use super::*;

/// Executes the operations of class [`Class::Lane`].
#[allow(clippy::redundant_closure_call)]
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = w.exec.0 & w.full_mask();
    let d = i.dst[0];
    match k {
        VNop => {}
        VMovB32 => {
            let a = src32(w, ov, i, 0, Ty::I)?;
            // VOP3 float modifiers on a move act on the bit pattern.
            let r = if i.encoding == Encoding::Vop3 && (i.alu.abs | i.alu.neg) != 0 {
                a.map(|b| f32_src_mods(b, i.alu.abs & 1 != 0, i.alu.neg & 1 != 0))
            } else {
                a
            };
            wv32(w, &d, &r, exec)?;
        }
        VReadfirstlane => {
            let a = u32_src(w, ov, i, 0)?;
            let lane = if exec == 0 {
                0
            } else {
                exec.trailing_zeros() as usize
            };
            let v = a.get(lane).copied().unwrap_or(0);
            super::super::operand::set32(w, &d, v)?;
        }
        VReadlane => {
            let a = u32_src(w, ov, i, 0)?;
            let lane = (s32(w, &i.src[1])? & (w.size - 1)) as usize;
            let v = a.get(lane).copied().unwrap_or(0);
            super::super::operand::set32(w, &d, v)?;
        }
        VWritelane => {
            let v = s32(w, &i.src[0])?;
            let lane = (s32(w, &i.src[1])? & (w.size - 1)) as usize;
            let r = vdst(w, &d, 0)?;
            if let Some(x) = r.get_mut(lane) {
                *x = v;
            }
        }
        VMbcntLo | VMbcntHi => {
            let (a, b) = (u32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
            let hi = k == VMbcntHi;
            let r: L32 = std::array::from_fn(|l| {
                let below: u32 = if hi {
                    if l >= 32 {
                        ((1u64 << (l - 32)) - 1) as u32
                    } else {
                        0
                    }
                } else if l >= 32 {
                    u32::MAX
                } else {
                    ((1u64 << l) - 1) as u32
                };
                (a[l] & below).count_ones().wrapping_add(b[l])
            });
            wv32(w, &d, &r, exec)?;
        }
        VCndmaskB32 => {
            let (a, b) = (u32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
            let m = read_mask_src(w, &i.src[2])?;
            let (abs, neg) = (i.alu.abs, i.alu.neg);
            let md = |x: u32, k: u8| f32_src_mods(x, (abs >> k) & 1 != 0, (neg >> k) & 1 != 0);
            let r: L32 = std::array::from_fn(|l| {
                if (m >> l) & 1 != 0 {
                    md(b[l], 1)
                } else {
                    md(a[l], 0)
                }
            });
            wv32(w, &d, &r, exec)?;
        }
        VMovrelsd2 | VSwaprel => {
            // RDNA ISA: the source register is offset by M0[9:0], the
            // destination by M0[25:16]; v_swaprel_b32 exchanges the two.
            let (si, di) = match (i.src[0], d) {
                (Operand::Vgpr { index: s, .. }, Operand::Vgpr { index: t, .. }) => {
                    (s as usize, t as usize)
                }
                _ => return unsupported("relative move operands"),
            };
            let (src_reg, dst_reg) = (
                si + (w.m0 & 0x3ff) as usize,
                di + ((w.m0 >> 16) & 0x3ff) as usize,
            );
            let n = w.vgpr.len();
            if src_reg >= n || dst_reg >= n {
                return unsupported(format!(
                    "a relative move beyond the {n} allocated VGPRs (M0 = {:#x})",
                    w.m0
                ));
            }
            let (sv, dv) = (w.vgpr[src_reg], w.vgpr[dst_reg]);
            let one = |r: usize| Operand::Vgpr {
                index: r as u8,
                count: 1,
            };
            wv32(w, &one(dst_reg), &sv, exec)?;
            if k == VSwaprel {
                wv32(w, &one(src_reg), &dv, exec)?;
            }
        }
        VMovrels | VMovreld | VMovrelsd => {
            // Relative addressing with M0 (Vega ISA §6.6.2 "VGPR indexing").
            let m0 = w.m0 as usize;
            let (si, di) = match (i.src[0], d) {
                (Operand::Vgpr { index: s, .. }, Operand::Vgpr { index: t, .. }) => {
                    (s as usize, t as usize)
                }
                (_, Operand::Vgpr { index: t, .. }) if k == VMovreld => (0, t as usize),
                _ => return unsupported("v_movrel operands"),
            };
            let src_reg = if k == VMovreld { si } else { si + m0 };
            let dst_reg = if k == VMovrels { di } else { di + m0 };
            let n = w.vgpr.len();
            if dst_reg >= n || (k != VMovreld && src_reg >= n) {
                return unsupported(format!(
                    "v_movrel beyond the {n} allocated VGPRs (M0 = {m0})"
                ));
            }
            let v = if k == VMovreld {
                v32(w, &i.src[0], Ty::I)?
            } else {
                w.vgpr[src_reg]
            };
            let one = Operand::Vgpr {
                index: dst_reg as u8,
                count: 1,
            };
            wv32(w, &one, &v, exec)?;
        }
        VSwapB32 => {
            // Both operands are VGPRs (VOP1 `vdst, vsrc`): each active lane's values
            // are exchanged (GFX9/GFX10 ISA "V_SWAP_B32": tmp = D; D = S0; S0 = tmp).
            let (a, b) = (v32(w, &d, Ty::I)?, v32(w, &i.src[0], Ty::I)?);
            if !matches!(i.src[0], Operand::Vgpr { .. }) {
                return unsupported("v_swap_b32 with a source that is not a VGPR");
            }
            wv32(w, &d, &b, exec)?;
            wv32(w, &i.src[0], &a, exec)?;
        }
        VPermlane16 | VPermlanex16 => permlane(k, w, i, exec)?,
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

/// GFX10 `v_permlane16_b32` / `v_permlanex16_b32` (RDNA ISA, VOP3): lane
/// `i` of each row of 16 reads lane `sel[i]` (4 bits of the 64-bit
/// `{S2, S1}`) of its own row, or for `x16` of the other row of the pair
/// (0 and 1, 2 and 3). `op_sel[0]` is DPP `fi`: source lanes outside EXEC are
/// read too; without it such a lane gives 0 with `op_sel[1]` (`bound_ctrl`)
/// and leaves the destination unchanged otherwise.
#[allow(clippy::needless_range_loop)]
fn permlane(k: Kind, w: &mut Wave, i: &Inst, exec: u64) -> R {
    let src = match i.src[0] {
        Operand::Vgpr { index, .. } => *vreg(w, index, false)?,
        _ => return unsupported("v_permlane with a source other than a VGPR"),
    };
    if i.alu.abs | i.alu.neg != 0 || i.alu.omod != 0 || (i.alu.op_sel & !3) != 0 {
        return unsupported("modifiers on v_permlane");
    }
    let sel = s32(w, &i.src[1])? as u64 | (s32(w, &i.src[2])? as u64) << 32;
    let (fi, bound) = (i.alu.op_sel & 1 != 0, i.alu.op_sel & 2 != 0);
    let d = i.dst[0];
    let mut r = *vdst(w, &d, 0)?;
    let mut write = 0u64;
    for l in 0..w.size as usize {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let row = if k == Kind::VPermlanex16 {
            (l / 16) ^ 1
        } else {
            l / 16
        };
        let s = row * 16 + ((sel >> (4 * (l % 16))) & 15) as usize;
        if fi || (exec >> s) & 1 != 0 {
            r[l] = src[s];
        } else if bound {
            r[l] = 0;
        } else {
            continue;
        }
        write |= 1 << l;
    }
    wv32(w, &d, &r, write)
}
