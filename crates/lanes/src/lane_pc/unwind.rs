//! Lane positions through the call stack: the lanes whose `DW_AT_LLVM_lane_pc` element is
//! undefined in the frame the wave stopped in (they were not active when the function
//! was entered, or they returned from it early) are looked up in the callers' frames.
//!
//! The AMDGPU usage guide ("DW_AT_LLVM_lane_pc"): an undefined element means the lane
//! was not active on entry to the frame, and "the debugger may repeatedly unwind the
//! stack" and evaluate the caller's attribute. Here each caller frame is found with the
//! code object's call frame information (`.debug_frame`, including
//! `DW_CFA_LLVM_def_aspace_cfa`): the return address column gives the caller's PC, and
//! the caller's registers are the rules of the row at the callee's PC (unnamed
//! registers keep their values; `DW_CFA_undefined` ones cannot be read in the caller).
//! The caller's attributes are evaluated as debuggers do for caller frames, at the
//! return address minus one, with the PC register reading the return address and EXEC
//! reading the caller's EXEC (its rule; without one, the callee's).
//!
//! The walk ends when every lane has a position, at a frame whose return address is
//! undefined (the outermost frame: a kernel), or when a frame cannot be unwound or
//! evaluated ([`UnwindEnd`] says which, and why).

use super::{LanePcError, LanePcIndex, LanePcs, Positions};
use amdgpu_dwarf::eval::Context;
use amdgpu_dwarf::location::read_object;
use amdgpu_dwarf::{Register, Target, TargetError};

/// At most this many frames are unwound (recursion in the program is bounded here).
pub const MAX_FRAMES: u32 = 64;

/// How the walk through the caller frames ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnwindEnd {
    /// Every lane has a position (no caller frame was needed past the last one).
    Placed,
    /// A kernel's frame (`DW_AT_calling_convention` `DW_CC_LLVM_OpenCLKernel`), whose
    /// return address is undefined, was reached: the lanes without a position are
    /// undefined in every frame.
    Outermost,
    /// A frame could not be unwound or its attributes not evaluated: the lanes without
    /// a position are not known beyond it.
    Stopped(String),
}

/// One frame of the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The frame's PC: the wave's PC for frame 0, the return address for callers
    /// (their attributes are looked up at it minus one).
    pub pc: u64,
    /// The function's name.
    pub function: Option<std::sync::Arc<str>>,
}

/// Lane positions from every frame of the stack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwound {
    /// The evaluation in the frame the wave stopped in.
    pub innermost: LanePcs,
    /// Per lane: the frame (0: innermost) whose `DW_AT_LLVM_lane_pc` element is defined
    /// for it and that element, or `None` when no frame reached defines it.
    pub lanes: Vec<Option<(u32, u64)>>,
    /// The frames reached, innermost first.
    pub frames: Vec<Frame>,
    /// How the walk ended.
    pub end: UnwindEnd,
}

/// A caller's frame as a [`Target`]: registers through the CFI rules of the callee's
/// row, the PC as the return address, EXEC as unwound.
struct CallerFrame<'a, 'd> {
    index: &'a LanePcIndex<'d>,
    inner: &'a dyn Target,
    /// The return address (a code object address).
    ra: u64,
    exec: u64,
}

impl CallerFrame<'_, '_> {
    fn exec_register(&self) -> u32 {
        if self.inner.wave_size() == 32 {
            Register::EXEC32
        } else {
            Register::EXEC64
        }
    }
}

/// Reads `bits` bits of the caller's register `reg`, as the CFI of the callee at its PC
/// says; `None` when the value is undefined there.
fn caller_register(
    index: &LanePcIndex<'_>,
    inner: &dyn Target,
    reg: u32,
    bits: usize,
) -> Result<Option<Vec<u8>>, String> {
    let ctx = index.program.context(inner.pc(), inner);
    let loc = ctx
        .entry_register(u64::from(reg))
        .map_err(|e| format!("register {reg}: {e}"))?;
    let r = read_object(inner, &loc, bits).map_err(|e| format!("register {reg}: {e}"))?;
    if !r.defined.all() {
        return Ok(None);
    }
    Ok(Some(r.bytes()))
}

impl Target for CallerFrame<'_, '_> {
    fn wave_size(&self) -> u32 {
        self.inner.wave_size()
    }
    fn lane(&self) -> u32 {
        self.inner.lane()
    }
    /// The lookup address: the return address minus one.
    fn pc(&self) -> u64 {
        self.ra.wrapping_sub(1)
    }
    fn exec(&self) -> u64 {
        self.exec
    }
    fn frame(&self) -> u32 {
        self.inner.frame() + 1
    }
    fn code_bias(&self) -> u64 {
        self.inner.code_bias()
    }
    fn read_register(&self, reg: u32, offset: u64, buf: &mut [u8]) -> Result<(), TargetError> {
        let fixed = if reg == Register::PC {
            Some(self.ra.to_le_bytes())
        } else if reg == self.exec_register() {
            Some(self.exec.to_le_bytes())
        } else {
            None
        };
        let bytes = match fixed {
            Some(b) => b.to_vec(),
            None => {
                let end = usize::try_from(offset)
                    .ok()
                    .and_then(|o| o.checked_add(buf.len()))
                    .filter(|&e| e <= 1 << 16)
                    .ok_or(TargetError::NoRegister(reg))?;
                caller_register(self.index, self.inner, reg, end * 8)
                    .map_err(TargetError::Other)?
                    .ok_or_else(|| {
                        TargetError::Other(format!(
                            "register {reg} is undefined in the caller's frame (CFI at {:#x})",
                            self.inner.pc()
                        ))
                    })?
            }
        };
        let at = usize::try_from(offset).ok();
        let src = at
            .and_then(|o| bytes.get(o..o.checked_add(buf.len())?))
            .ok_or(TargetError::NoRegister(reg))?;
        buf.copy_from_slice(src);
        Ok(())
    }
    fn read_memory(
        &self,
        space: amdgpu_dwarf::MemorySpace,
        addr: u64,
        buf: &mut [u8],
    ) -> Result<(), TargetError> {
        self.inner.read_memory(space, addr, buf)
    }
    fn resolve_generic(&self, addr: u64) -> (amdgpu_dwarf::target::GenericTarget, u64) {
        self.inner.resolve_generic(addr)
    }
}

impl<'d> LanePcIndex<'d> {
    /// [`LanePcIndex::evaluate`], then the lanes it leaves undefined looked up in the
    /// callers' frames (see the module documentation).
    pub fn evaluate_unwound<T: Target>(&self, target: &T) -> Result<Unwound, LanePcError> {
        let innermost = self.evaluate(target)?;

        let mut frames = vec![Frame {
            pc: innermost.pc,
            function: innermost.function.clone(),
        }];
        let Positions::Lanes(pos) = &innermost.positions else {
            let lanes = (0..innermost.lanes)
                .map(|l| innermost.position(l).map(|p| (0, p)))
                .collect();
            return Ok(Unwound {
                innermost,
                lanes,
                frames,
                end: UnwindEnd::Placed,
            });
        };
        let mut lanes: Vec<Option<(u32, u64)>> = pos.iter().map(|p| p.map(|pc| (0, pc))).collect();
        let end = if lanes.iter().all(Option::is_some) {
            UnwindEnd::Placed
        } else {
            self.unwind(target, innermost.kernel, 1, &mut lanes, &mut frames)
        };
        Ok(Unwound {
            innermost,
            lanes,
            frames,
            end,
        })
    }

    /// Unwinds from the frame of `inner` and places the lanes still without a position.
    fn unwind(
        &self,
        inner: &dyn Target,
        inner_kernel: bool,
        depth: u32,
        lanes: &mut [Option<(u32, u64)>],
        frames: &mut Vec<Frame>,
    ) -> UnwindEnd {
        if depth > MAX_FRAMES {
            return UnwindEnd::Stopped(format!("more than {MAX_FRAMES} frames"));
        }
        let pc = inner.pc();
        let row = match self.program.cfi_row(pc) {
            Ok(Some(r)) => r,
            Ok(None) => {
                return UnwindEnd::Stopped(format!("no call frame information for {pc:#x}"));
            }
            Err(e) => return UnwindEnd::Stopped(format!("call frame information: {e}")),
        };
        let ra = match caller_register(self, inner, row.return_address as u32, 64) {
            Ok(Some(b)) => u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]))
                .wrapping_sub(inner.code_bias()),
            // An undefined return address ends the stack at a kernel; in any other
            // function it only means the CFI does not know where the caller is.
            Ok(None) if inner_kernel => return UnwindEnd::Outermost,
            Ok(None) => {
                return UnwindEnd::Stopped(format!(
                    "the return address is undefined at {pc:#x}, in a function that is not \
                     a kernel"
                ));
            }
            Err(e) => return UnwindEnd::Stopped(format!("return address at {pc:#x}: {e}")),
        };
        let ws = inner.wave_size();
        let exec_reg = if ws == 32 {
            Register::EXEC32
        } else {
            Register::EXEC64
        };
        let exec = match caller_register(self, inner, exec_reg, ws as usize) {
            Ok(Some(b)) => b
                .iter()
                .take(8)
                .enumerate()
                .fold(0u64, |m, (i, &x)| m | u64::from(x) << (8 * i)),
            Ok(None) => {
                return UnwindEnd::Stopped(format!("the caller's EXEC is undefined at {pc:#x}"));
            }
            Err(e) => return UnwindEnd::Stopped(format!("the caller's EXEC at {pc:#x}: {e}")),
        };
        let caller = CallerFrame {
            index: self,
            inner,
            ra,
            exec,
        };
        let r = match self.evaluate(&caller) {
            Ok(r) => r,
            Err(e) => return UnwindEnd::Stopped(format!("frame {depth} at {ra:#x}: {e}")),
        };
        frames.push(Frame {
            pc: ra,
            function: r.function.clone(),
        });
        let Positions::Lanes(pos) = &r.positions else {
            return UnwindEnd::Stopped(format!(
                "frame {depth} at {ra:#x}: no DW_AT_LLVM_lane_pc entry"
            ));
        };
        for (l, slot) in lanes.iter_mut().enumerate() {
            if slot.is_none()
                && let Some(Some(p)) = pos.get(l)
            {
                *slot = Some((depth, *p));
            }
        }
        if lanes.iter().all(Option::is_some) {
            return UnwindEnd::Placed;
        }
        self.unwind(&caller, r.kernel, depth + 1, lanes, frames)
    }
}
