//! Where execution goes after an instruction, from the operation's identity: the one
//! answer the executor's neighbours (the disassembler's branch targets, the lane
//! reconstruction's control-flow graph, the debugger's listings) share.

use crate::alu::{AluOp, ops};
use crate::inst::{Inst, Op};

/// The control flow of one instruction at a PC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// On to the next instruction.
    Next,
    /// A PC-relative branch (`s_branch`, `s_cbranch_*`, GFX9's `s_cbranch_i_fork`):
    /// `pc + 4 + simm16 * 4`, taken always or only when its condition holds.
    Branch {
        /// The target.
        target: u64,
        /// Whether it may fall through instead.
        conditional: bool,
    },
    /// A PC-relative call (`s_call_b64`); the callee returns to the next instruction.
    Call {
        /// The callee.
        target: u64,
    },
    /// A call through registers (`s_swappc_b64`); the callee returns to the next
    /// instruction.
    IndirectCall,
    /// A jump through registers: a return or tail call (`s_setpc_b64`), a return from
    /// the trap handler (`s_rfe_b64`), or GFX9's branch stack (`s_cbranch_g_fork`,
    /// `s_cbranch_join`, which may also fall through).
    IndirectJump {
        /// Whether it may fall through instead.
        conditional: bool,
    },
    /// The wave ends (`s_endpgm`, `s_endpgm_saved`, `s_endpgm_ordered_ps_done`), or the
    /// code does (`s_code_end`, padding after the last function).
    End,
}

const CONDITIONAL: [AluOp; 10] = [
    ops::S_CBRANCH_SCC0,
    ops::S_CBRANCH_SCC1,
    ops::S_CBRANCH_VCCZ,
    ops::S_CBRANCH_VCCNZ,
    ops::S_CBRANCH_EXECZ,
    ops::S_CBRANCH_EXECNZ,
    ops::S_CBRANCH_CDBGSYS,
    ops::S_CBRANCH_CDBGUSER,
    ops::S_CBRANCH_CDBGSYS_OR_USER,
    ops::S_CBRANCH_CDBGSYS_AND_USER,
];

impl Inst {
    /// The instruction's signed 16-bit immediate (SOPP / SOPK `simm16`).
    fn simm16(&self) -> i64 {
        (self.words[0] & 0xffff) as u16 as i16 as i64
    }

    /// Where execution goes after this instruction at link-time address `pc`.
    pub fn flow(&self, pc: u64) -> Flow {
        let Op::Alu(op) = self.op else {
            return Flow::Next;
        };
        let rel = || pc.wrapping_add(4).wrapping_add_signed(self.simm16() * 4);
        match op {
            ops::S_BRANCH => Flow::Branch {
                target: rel(),
                conditional: false,
            },
            ops::S_CBRANCH_I_FORK => Flow::Branch {
                target: rel(),
                conditional: true,
            },
            op if CONDITIONAL.contains(&op) => Flow::Branch {
                target: rel(),
                conditional: true,
            },
            ops::S_CALL_B64 => Flow::Call { target: rel() },
            ops::S_SWAPPC_B64 => Flow::IndirectCall,
            ops::S_SETPC_B64 | ops::S_RFE_B64 | ops::S_RFE_RESTORE_B64 => {
                Flow::IndirectJump { conditional: false }
            }
            ops::S_CBRANCH_G_FORK | ops::S_CBRANCH_JOIN => Flow::IndirectJump { conditional: true },
            ops::S_ENDPGM
            | ops::S_ENDPGM_SAVED
            | ops::S_ENDPGM_ORDERED_PS_DONE
            | ops::S_CODE_END => Flow::End,
            _ => Flow::Next,
        }
    }

    /// The target of a PC-relative branch or call, if this is one.
    pub fn branch_target(&self, pc: u64) -> Option<u64> {
        match self.flow(pc) {
            Flow::Branch { target, .. } | Flow::Call { target } => Some(target),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Decoder, Gpu};

    fn at(gpu: Gpu, words: &[u32], pc: u64) -> Flow {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let p = Decoder::new(gpu, true).decode_program(&bytes, pc);
        p.iter().next().map(|(_, i)| i.flow(pc)).unwrap()
    }

    /// Encodings from `llvm-mc-19 -show-encoding`.
    #[test]
    fn branches_calls_and_ends() {
        // s_branch 3 / s_cbranch_execz -2 / s_endpgm / s_setpc_b64 s[30:31] /
        // s_swappc_b64 s[30:31], s[4:5] (gfx900)
        let g = Gpu::Gfx900;
        assert_eq!(
            at(g, &[0xbf820003], 0x100),
            Flow::Branch {
                target: 0x110,
                conditional: false
            }
        );
        assert_eq!(
            at(g, &[0xbf88fffe], 0x100),
            Flow::Branch {
                target: 0xfc,
                conditional: true
            }
        );
        assert_eq!(at(g, &[0xbf810000], 0x100), Flow::End);
        assert_eq!(
            at(g, &[0xbe801d1e], 0x100),
            Flow::IndirectJump { conditional: false }
        );
        assert_eq!(at(g, &[0xbe9e1e04], 0x100), Flow::IndirectCall);
        // s_call_b64 s[30:31], 4: SOPK op 21 on GFX9, 22 on GFX10.
        assert_eq!(at(g, &[0xba9e0004], 0x100), Flow::Call { target: 0x114 });
        assert_eq!(
            at(Gpu::Gfx1030, &[0xbb1e0004], 0x100),
            Flow::Call { target: 0x114 }
        );
        // v_add_f32 v0, v1, v2
        assert_eq!(at(g, &[0x02000501], 0x100), Flow::Next);
    }
}
