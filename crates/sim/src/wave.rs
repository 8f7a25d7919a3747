//! The architectural state of one wave: SGPRs, VGPRs (register-major), EXEC,
//! VCC, SCC, M0, the PC and the wave's scratch.

use crate::memory::gds::Wait;
use crate::memory::{PRIVATE_BASE, SHARED_BASE, Scratch};
use amdgpu_isa::{Operand, SpecialReg};

/// A lane mask (bit `i` is lane `i`); wave32 uses the low 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Mask(pub u64);

impl Mask {
    /// Whether lane `lane` is set.
    #[inline]
    pub fn lane(self, lane: usize) -> bool {
        (self.0 >> lane) & 1 != 0
    }
    /// Number of set lanes.
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }
    /// The set lanes, lowest first.
    pub fn lanes(self) -> impl Iterator<Item = usize> {
        let mut m = self.0;
        std::iter::from_fn(move || {
            if m == 0 {
                None
            } else {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                Some(l)
            }
        })
    }
}

/// Whether a wave can run, waits at a barrier, or has ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveStatus {
    /// Ready to execute its next instruction.
    Running,
    /// Waiting at `s_barrier` for the rest of its work-group.
    Barrier,
    /// Executed `s_endpgm`.
    Done,
    /// Waiting on the global data share: a GWS semaphore or barrier, or its
    /// turn of the ordered count ([`Wave::wait`] says which; see
    /// [`crate::memory::gds`]).
    Waiting,
}

/// Where a wave stands in its dispatch's ordered count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OrderedTurn {
    /// It has not had its turn.
    #[default]
    Before,
    /// Its turn has come: its `ds_ordered_count` executes.
    Granted,
    /// It has released the ordered count to the waves after it.
    Released,
}

/// Hardware register id of MODE (`HW_REG_MODE`): FP_ROUND in bits 3:0,
/// FP_DENORM in bits 7:4 (f32 in 5:4, f64/f16 in 7:6), DX10_CLAMP bit 8,
/// IEEE bit 9 (Vega ISA §3.8 "Mode register").
pub const HW_REG_MODE: usize = 1;

/// Hardware register id of SH_MEM_BASES (`HW_REG_SH_MEM_BASES`, GFX9 and
/// GFX10): bits 15:0 are bits 63:48 of the private aperture, bits 31:16
/// bits 63:48 of the shared (LDS) aperture. Code that has no aperture
/// registers in its kernel arguments (code object v4 on GFX9+) reads it to
/// build flat pointers to private and LDS memory.
pub const HW_REG_SH_MEM_BASES: usize = 15;

/// SH_MEM_BASES for the simulator's apertures ([`crate::memory::SHARED_BASE`],
/// [`crate::memory::PRIVATE_BASE`]).
pub const SH_MEM_BASES: u32 =
    ((crate::memory::SHARED_BASE >> 48) as u32) << 16 | (crate::memory::PRIVATE_BASE >> 48) as u32;

/// MODE with round-to-nearest-even and denormals allowed in and out.
pub const MODE_DEFAULT: u32 = 0xf0 | 1 << 8 | 1 << 9;

/// Number of SGPRs modelled (s0..s105 and spare room for the special pairs).
pub const NUM_SGPRS: usize = 108;
/// Number of VGPRs (and, separately, AGPRs) modelled.
pub const NUM_VGPRS: usize = 256;

/// One wave's registers and private memory.
#[derive(Clone, Debug)]
pub struct Wave {
    /// Scalar registers.
    pub sgpr: [u32; NUM_SGPRS],
    /// Trap temporaries.
    pub ttmp: [u32; 16],
    /// Vector registers, register-major: `vgpr[r][lane]`.
    pub vgpr: Vec<[u32; 64]>,
    /// Accumulation registers (gfx908/gfx90a), register-major.
    pub agpr: Vec<[u32; 64]>,
    /// The execute mask.
    pub exec: Mask,
    /// The vector condition code.
    pub vcc: Mask,
    /// The scalar condition code.
    pub scc: bool,
    /// M0.
    pub m0: u32,
    /// FLAT_SCRATCH (GFX9 SGPR pair / GFX10 hardware register).
    pub flat_scratch: u64,
    /// XNACK_MASK (GFX9).
    pub xnack_mask: u64,
    /// The program counter.
    pub pc: u64,
    /// 32 or 64.
    pub size: u32,
    /// Running, at a barrier, or done.
    pub status: WaveStatus,
    /// What the wave waits for when its status is [`WaveStatus::Waiting`].
    pub wait: Option<Wait>,
    /// Its place in the ordered count.
    pub ordered: OrderedTurn,
    /// Instructions executed so far.
    pub executed: u64,
    /// Lane operations so far: for each vector instruction executed, the
    /// lanes EXEC enabled.
    pub lane_ops: u64,
    /// The wave's private memory.
    pub scratch: Scratch,
    /// Hardware registers set with `s_setreg` (MODE and friends), by id.
    pub hwreg: [u32; 64],
    /// The wave's number within its work-group.
    pub id: u32,
    /// It executed `s_sleep` (it waits for something, most likely spinning on memory
    /// another wave or the host will write): the scheduler ends its turn.
    pub slept: bool,
}

impl Wave {
    /// A wave of `size` lanes (32 or 64) starting at `pc`, with `vgprs`
    /// vector registers (at most [`NUM_VGPRS`]; the kernel descriptor's
    /// count: naming a register beyond it is an error, as it is on hardware).
    pub fn new(size: u32, pc: u64, scratch: Scratch, id: u32, vgprs: usize) -> Self {
        Wave {
            sgpr: [0; NUM_SGPRS],
            ttmp: [0; 16],
            vgpr: vec![[0; 64]; vgprs.clamp(4, NUM_VGPRS)],
            agpr: Vec::new(),
            exec: Mask(0),
            vcc: Mask(0),
            scc: false,
            m0: 0,
            flat_scratch: 0,
            xnack_mask: 0,
            pc,
            size,
            status: WaveStatus::Running,
            wait: None,
            ordered: OrderedTurn::Before,
            executed: 0,
            slept: false,
            lane_ops: 0,
            scratch,
            hwreg: {
                let mut h = [0; 64];
                h[HW_REG_MODE] = MODE_DEFAULT;
                h[HW_REG_SH_MEM_BASES] = SH_MEM_BASES;
                h
            },
            id,
        }
    }

    /// The mask of lanes that exist (all 32 or 64).
    #[inline]
    pub fn full_mask(&self) -> u64 {
        if self.size == 64 {
            u64::MAX
        } else {
            (1u64 << self.size) - 1
        }
    }

    /// The value of SGPR `n`, if it exists.
    pub fn sgpr_value(&self, n: usize) -> Option<u32> {
        self.sgpr.get(n).copied()
    }

    /// The value of VGPR `reg` in lane `lane`, if both exist.
    pub fn vgpr_lane(&self, reg: usize, lane: usize) -> Option<u32> {
        self.vgpr.get(reg).and_then(|r| r.get(lane)).copied()
    }

    /// Reads one dword of a scalar operand (`part` selects the dword of a
    /// register range). `None` for operands that are not scalar.
    pub fn read_sdword(&self, op: &Operand, part: u8) -> Option<u32> {
        let p = part as usize;
        Some(match *op {
            Operand::Sgpr { index, .. } => *self.sgpr.get(index as usize + p)?,
            Operand::Ttmp { index, .. } => *self.ttmp.get(index as usize + p)?,
            Operand::Special {
                reg, part: base, ..
            } => {
                let half = |v: u64| {
                    if (base as usize + p) & 1 == 0 {
                        v as u32
                    } else {
                        (v >> 32) as u32
                    }
                };
                match reg {
                    SpecialReg::Vcc => half(self.vcc.0),
                    SpecialReg::Exec => half(self.exec.0),
                    SpecialReg::FlatScratch => half(self.flat_scratch),
                    SpecialReg::XnackMask => half(self.xnack_mask),
                    SpecialReg::M0 => self.m0,
                    SpecialReg::Null => 0,
                    SpecialReg::SharedBase => half(SHARED_BASE),
                    SpecialReg::SharedLimit => half(SHARED_BASE + 0xffff_ffff),
                    SpecialReg::PrivateBase => half(PRIVATE_BASE),
                    SpecialReg::PrivateLimit => half(PRIVATE_BASE + 0xffff_ffff),
                    SpecialReg::PopsExitingWaveId => 0,
                    SpecialReg::Vccz => (self.vcc.0 & self.full_mask() == 0) as u32,
                    SpecialReg::Execz => (self.exec.0 & self.full_mask() == 0) as u32,
                    SpecialReg::Scc => self.scc as u32,
                    SpecialReg::LdsDirect => return None,
                }
            }
            _ => return None,
        })
    }

    /// Writes one dword of a scalar destination. Returns `false` when the
    /// operand is not a writable scalar register.
    pub fn write_sdword(&mut self, op: &Operand, part: u8, v: u32) -> bool {
        let p = part as usize;
        let set_half = |m: &mut u64, hi: bool| {
            if hi {
                *m = (*m & 0xffff_ffff) | ((v as u64) << 32);
            } else {
                *m = (*m & !0xffff_ffff) | v as u64;
            }
        };
        match *op {
            Operand::Sgpr { index, .. } => match self.sgpr.get_mut(index as usize + p) {
                Some(r) => *r = v,
                None => return false,
            },
            Operand::Ttmp { index, .. } => match self.ttmp.get_mut(index as usize + p) {
                Some(r) => *r = v,
                None => return false,
            },
            Operand::Special {
                reg, part: base, ..
            } => {
                let hi = (base as usize + p) & 1 == 1;
                match reg {
                    SpecialReg::Vcc => set_half(&mut self.vcc.0, hi),
                    SpecialReg::Exec => {
                        set_half(&mut self.exec.0, hi);
                        self.exec.0 &= self.full_mask();
                    }
                    SpecialReg::FlatScratch => set_half(&mut self.flat_scratch, hi),
                    SpecialReg::XnackMask => set_half(&mut self.xnack_mask, hi),
                    SpecialReg::M0 => self.m0 = v,
                    SpecialReg::Null => {}
                    _ => return false,
                }
            }
            _ => return false,
        }
        true
    }

    /// Reads a register mask operand (VCC, EXEC, an SGPR pair, or one SGPR in
    /// wave32) as a lane mask.
    pub fn read_mask(&self, op: &Operand) -> Option<u64> {
        let lo = self.read_sdword(op, 0)? as u64;
        let count = match *op {
            Operand::Sgpr { count, .. }
            | Operand::Ttmp { count, .. }
            | Operand::Special { count, .. } => count,
            _ => 1,
        };
        if count >= 2 && self.size == 64 {
            Some(lo | (self.read_sdword(op, 1)? as u64) << 32)
        } else {
            Some(lo)
        }
    }

    /// Writes a lane mask to a scalar destination: 64 bits for wave64, the low
    /// 32 for wave32.
    pub fn write_mask(&mut self, op: &Operand, m: u64) -> bool {
        if self.size == 64 {
            let count = match *op {
                Operand::Sgpr { count, .. }
                | Operand::Ttmp { count, .. }
                | Operand::Special { count, .. } => count,
                _ => 1,
            };
            let ok = self.write_sdword(op, 0, m as u32);
            if count >= 2 {
                ok && self.write_sdword(op, 1, (m >> 32) as u32)
            } else {
                ok
            }
        } else {
            self.write_sdword(op, 0, m as u32)
        }
    }
}
