//! Lane positions through the call stack: the lanes whose `DW_AT_LLVM_lane_pc` element is
//! undefined in the frame the wave stopped in (they were not active when the function
//! was entered, or they returned from it early) are looked up in the callers' frames.
//!
//! The AMDGPU usage guide ("DW_AT_LLVM_lane_pc"): an undefined element means the lane
//! was not active on entry to the frame, and "the debugger may repeatedly unwind the
//! stack" and evaluate the caller's attribute. Here each caller frame is found with the
//! code object's call frame information ([`crate::frames::CallerTarget`]: the return
//! address column gives the caller's PC, the caller's registers are the rules of the
//! row at the callee's PC), and the caller's attributes are evaluated there, at the
//! return address minus one.
//!
//! The walk ends when every lane has a position, at a frame whose return address is
//! undefined (the outermost frame: a kernel), or when a frame cannot be unwound or
//! evaluated ([`UnwindEnd`] says which, and why).

use super::{LanePcError, LanePcIndex, LanePcs, Positions};
use crate::frames::{CallerTarget, UnwindError};
use amdgpu_dwarf::Target;

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
        let caller = match CallerTarget::unwind(&self.program, Box::new(inner)) {
            Ok(c) => c,
            // An undefined return address ends the stack at a kernel; in any other
            // function it only means the CFI does not know where the caller is.
            Err(UnwindError::NoReturnAddress(_)) if inner_kernel => return UnwindEnd::Outermost,
            Err(UnwindError::NoReturnAddress(pc)) => {
                return UnwindEnd::Stopped(format!(
                    "the return address is undefined at {pc:#x}, in a function that is not \
                     a kernel"
                ));
            }
            Err(UnwindError::Other(e)) => return UnwindEnd::Stopped(e),
        };
        let ra = caller.return_address();
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
