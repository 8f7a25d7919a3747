//! Program control (SOPP): the end of the program, halts, traps, messages,
//! barriers, branches and the MODE settings.

use super::*;

/// Executes the operations of class [`Class::Control`].
#[allow(clippy::redundant_closure_call)]
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, pc: u64) -> R {
    use Kind::*;
    match k {
        SWait if matches!(i.op, amdgpu_isa::Op::Alu(op) if op == amdgpu_isa::alu::ops::S_SLEEP) => {
            w.slept = true
        }
        SNop | SWait | SCodeEnd => {}
        SEndpgm => w.status = WaveStatus::Done,
        // Bit 0 set halts the wave (cleared: resume, a no-op for a running
        // wave); nothing here can resume it, so the halt is reported.
        SSethalt if imm16(i) & 1 != 0 => return Err(E::Halt),
        SSethalt => {}
        // Vega ISA S_SETKILL: "set KILL bit to value of SIMM16[0]", for the
        // host's kill-wave command; setting it is not modelled.
        SSetkill if imm16(i) & 1 != 0 => return unsupported("s_setkill 1 (killing the wave)"),
        SSetkill => {}
        // Vega ISA S_SETVSKIP: VSKIP = S0[S1[4:0]]; while set, vector
        // instructions are skipped, which is not modelled.
        SSetvskip => {
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            if (a >> (b & 31)) & 1 != 0 {
                return unsupported("s_setvskip setting VSKIP (skipping vector instructions)");
            }
        }
        SSendmsg | SSendmsghalt => {
            // Message id SIMM16[3:0] (Vega / RDNA ISA, "SEND MESSAGE"): only
            // MSG_SAVEWAVE (4) and MSG_STALL_WAVE_GEN (5) leave nothing a
            // compute program can observe; the others (interrupts to the
            // host, geometry-shader messages, halting other waves, doorbell
            // and system messages) are reported.
            let id = imm16(i) as u32 & 0xf;
            if !matches!(id, 4 | 5) {
                let name = match id {
                    1 => "MSG_INTERRUPT",
                    2 => "MSG_GS",
                    3 => "MSG_GS_DONE",
                    6 => "MSG_HALT_WAVES",
                    7 => "MSG_ORDERED_PS_DONE",
                    8 => "MSG_EARLY_PRIM_DEALLOC",
                    9 => "MSG_GS_ALLOC_REQ",
                    10 => "MSG_GET_DOORBELL",
                    11 => "MSG_GET_DDID",
                    15 => "MSG_SYSMSG",
                    _ => "a reserved message",
                };
                return unsupported(format!("s_sendmsg of message {id} ({name})"));
            }
            if k == SSendmsghalt {
                return Err(E::Halt);
            }
        }
        STrap => return Err(E::Trap((imm16(i) & 0xff) as u8)),
        SBarrier => {
            // A barrier in a single-wave group is a no-op; otherwise the
            // scheduler releases the wave when the group arrives.
            w.status = WaveStatus::Barrier;
        }
        SBranch => w.pc = target(i, pc),
        // Not taken: the debug flags are clear (nothing here sets them).
        SCbranchCdbg => {}
        // RDNA ISA, SOPP: MODE.FP_ROUND / MODE.FP_DENORM = SIMM16[3:0].
        SRoundMode | SDenormMode => {
            let shift = if k == SRoundMode { 0 } else { 4 };
            let v = imm16(i) as u32 & 0xf;
            w.hwreg[1] = (w.hwreg[1] & !(0xf << shift)) | v << shift;
        }
        SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz
        | SCbranchExecnz => {
            let full = w.full_mask();
            let take = match k {
                SCbranchScc0 => !w.scc,
                SCbranchScc1 => w.scc,
                SCbranchVccz => w.vcc.0 & full == 0,
                SCbranchVccnz => w.vcc.0 & full != 0,
                SCbranchExecz => w.exec.0 & full == 0,
                _ => w.exec.0 & full != 0,
            };
            if take {
                w.pc = target(i, pc);
            }
        }
        _ => return Err(E::Unimpl),
    }
    Ok(())
}
