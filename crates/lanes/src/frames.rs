//! Callers' frames through the call frame information: a caller's frame as a DWARF
//! [`Target`] whose registers are the CFI rules of the callee's row (`.debug_frame`,
//! including `DW_CFA_LLVM_def_aspace_cfa`), whose PC is the return address and whose
//! EXEC is the caller's as unwound. Used by the lane-PC walk through the callers
//! ([`crate::lane_pc`]) and by the debugger's frame selection ([`crate::Debugger`]).
//!
//! A caller's attributes and variables are looked up, as debuggers do, at the return
//! address minus one ([`Target::pc`] of a [`CallerTarget`]); reading the PC register
//! gives the return address itself (a code object address, as a wave's PC register
//! reads in [`crate::target::WaveTarget`]). Registers the callee's row does not name keep
//! their values; a `DW_CFA_undefined` one cannot be read in the caller. A caller's
//! frame is read-only.

use amdgpu_dwarf::eval::Context;
use amdgpu_dwarf::location::read_object;
use amdgpu_dwarf::program::Program;
use amdgpu_dwarf::{MemorySpace, Register, Target, TargetError};

/// A caller's frame as the reconstruction unwinds it ([`crate::service::LaneService::call_frames`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallerFrame {
    /// The caller's PC: the return address (link-time).
    pub ret: u64,
    /// The caller's stack and frame pointers ([`crate::regions::CALLER_SGPRS`]) where
    /// the functions below moved them: (SGPR, value).
    pub sgprs: Vec<(u8, u32)>,
    /// The registers the functions below this caller may have written (VGPRs and AGPRs
    /// as lane 0 of the register): their caller values are not known.
    pub clobbered: std::collections::BTreeSet<crate::regions::Loc>,
}

/// Why a frame could not be unwound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnwindError {
    /// The return address is undefined at the PC: the frame is a kernel's (the outermost
    /// frame), or the CFI does not know where its caller is.
    NoReturnAddress(u64),
    /// Anything else (no CFI for the PC, an unreadable register), with why.
    Other(String),
}

impl std::fmt::Display for UnwindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnwindError::NoReturnAddress(pc) => {
                write!(f, "the return address is undefined at {pc:#x}")
            }
            UnwindError::Other(s) => f.write_str(s),
        }
    }
}

/// Reads `bits` bits of the caller's register `reg` as the CFI at `inner`'s PC says;
/// `None` when it is undefined there.
pub fn caller_register(
    program: &Program<'_>,
    inner: &dyn Target,
    reg: u32,
    bits: usize,
) -> Result<Option<Vec<u8>>, String> {
    let ctx = program.context(inner.pc(), inner);
    let loc = ctx
        .entry_register(u64::from(reg))
        .map_err(|e| format!("register {reg}: {e}"))?;
    let r = read_object(inner, &loc, bits).map_err(|e| format!("register {reg}: {e}"))?;
    if !r.defined.all() {
        return Ok(None);
    }
    Ok(Some(r.bytes()))
}

fn exec_register(wave_size: u32) -> u32 {
    if wave_size == 32 {
        Register::EXEC32
    } else {
        Register::EXEC64
    }
}

/// The frame of the caller of the frame `inner` presents.
pub struct CallerTarget<'x, 'd> {
    program: &'x Program<'d>,
    inner: Box<dyn Target + 'x>,
    /// The return address (a code object address).
    ra: u64,
    exec: u64,
}

impl<'x, 'd> CallerTarget<'x, 'd> {
    /// Unwinds one frame from `inner` with the CFI row at its PC.
    pub fn unwind(
        program: &'x Program<'d>,
        inner: Box<dyn Target + 'x>,
    ) -> Result<Self, UnwindError> {
        let pc = inner.pc();
        let row = match program.cfi_row(pc) {
            Ok(Some(r)) => r,
            Ok(None) => {
                return Err(UnwindError::Other(format!(
                    "no call frame information for {pc:#x}"
                )));
            }
            Err(e) => return Err(UnwindError::Other(format!("call frame information: {e}"))),
        };
        let other = |what: &str, e: String| UnwindError::Other(format!("{what} at {pc:#x}: {e}"));
        let ra = match caller_register(program, &*inner, row.return_address as u32, 64) {
            Ok(Some(b)) => u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]))
                .wrapping_sub(inner.code_bias()),
            Ok(None) => return Err(UnwindError::NoReturnAddress(pc)),
            Err(e) => return Err(other("return address", e)),
        };
        let ws = inner.wave_size();
        let exec = match caller_register(program, &*inner, exec_register(ws), ws as usize) {
            Ok(Some(b)) => b
                .iter()
                .take(8)
                .enumerate()
                .fold(0u64, |m, (i, &x)| m | u64::from(x) << (8 * i)),
            Ok(None) => {
                return Err(UnwindError::Other(format!(
                    "the caller's EXEC is undefined at {pc:#x}"
                )));
            }
            Err(e) => return Err(other("the caller's EXEC", e)),
        };
        Ok(CallerTarget {
            program,
            inner,
            ra,
            exec,
        })
    }

    /// The return address: the caller's PC (a code object address).
    pub fn return_address(&self) -> u64 {
        self.ra
    }
}

impl Target for CallerTarget<'_, '_> {
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
        } else if reg == exec_register(self.wave_size()) {
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
                caller_register(self.program, &*self.inner, reg, end * 8)
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
        space: MemorySpace,
        addr: u64,
        buf: &mut [u8],
    ) -> Result<(), TargetError> {
        self.inner.read_memory(space, addr, buf)
    }
    fn resolve_generic(&self, addr: u64) -> (amdgpu_dwarf::target::GenericTarget, u64) {
        self.inner.resolve_generic(addr)
    }
}

/// Copies bytes `offset..` of the little-endian `v` into `buf`.
fn fixed(v: u64, reg: u32, offset: u64, buf: &mut [u8]) -> Result<(), TargetError> {
    let b = v.to_le_bytes();
    let src = usize::try_from(offset)
        .ok()
        .and_then(|o| b.get(o..o.checked_add(buf.len())?))
        .ok_or(TargetError::NoRegister(reg))?;
    buf.copy_from_slice(src);
    Ok(())
}

/// A caller's frame as the static reconstruction unwinds it
/// ([`crate::service::LaneService::call_frames`]), for code whose call frame information
/// says nothing (clang's AMDGPU `.debug_frame` has FDEs without instructions): the PC
/// register reads the return address, the stack and frame pointers the values the calls
/// below saved, EXEC the wave's, and any other register its current value unless a
/// function below may have written it, in which case it is not saved (an error, never
/// the callee's value).
pub struct ReconstructedCaller<'x> {
    inner: Box<dyn Target + 'x>,
    frame: CallerFrame,
}

impl<'x> ReconstructedCaller<'x> {
    /// The caller's frame `frame` of the frame `inner` presents.
    pub fn new(inner: Box<dyn Target + 'x>, frame: CallerFrame) -> Self {
        ReconstructedCaller { inner, frame }
    }

    fn not_saved(&self, what: String) -> TargetError {
        TargetError::Other(format!(
            "{what} <not saved>: a function called from {:#x} may have written it",
            self.frame.ret
        ))
    }
}

impl Target for ReconstructedCaller<'_> {
    fn wave_size(&self) -> u32 {
        self.inner.wave_size()
    }
    fn lane(&self) -> u32 {
        self.inner.lane()
    }
    /// The lookup address: the return address minus one.
    fn pc(&self) -> u64 {
        self.frame.ret.wrapping_sub(1)
    }
    fn exec(&self) -> u64 {
        self.inner.exec()
    }
    fn frame(&self) -> u32 {
        self.inner.frame() + 1
    }
    fn code_bias(&self) -> u64 {
        self.inner.code_bias()
    }
    fn read_register(&self, reg: u32, offset: u64, buf: &mut [u8]) -> Result<(), TargetError> {
        use crate::regions::Loc;
        match Register::from_dwarf(u64::from(reg)) {
            Some(Register::Pc32 | Register::Pc64) => fixed(self.frame.ret, reg, offset, buf),
            Some(Register::Sgpr(n)) => {
                let n8 = u8::try_from(n).map_err(|_| TargetError::NoRegister(reg))?;
                if let Some(&(_, v)) = self.frame.sgprs.iter().find(|(s, _)| *s == n8) {
                    return fixed(u64::from(v), reg, offset, buf);
                }
                if self.frame.clobbered.contains(&Loc::Sgpr(n8)) {
                    return Err(self.not_saved(format!("s{n}")));
                }
                self.inner.read_register(reg, offset, buf)
            }
            Some(Register::Vgpr { n, .. } | Register::Agpr { n, .. }) => {
                let r = u8::try_from(n).map_err(|_| TargetError::NoRegister(reg))?;
                let (loc, name) = if matches!(
                    Register::from_dwarf(u64::from(reg)),
                    Some(Register::Vgpr { .. })
                ) {
                    (Loc::VgprLane { vgpr: r, lane: 0 }, "v")
                } else {
                    (Loc::AgprLane { agpr: r, lane: 0 }, "a")
                };
                if self.frame.clobbered.contains(&loc) {
                    return Err(self.not_saved(format!("{name}{n}")));
                }
                self.inner.read_register(reg, offset, buf)
            }
            Some(Register::Exec32 | Register::Exec64) => self.inner.read_register(reg, offset, buf),
            None => Err(TargetError::NoRegister(reg)),
        }
    }
    fn read_memory(
        &self,
        space: MemorySpace,
        addr: u64,
        buf: &mut [u8],
    ) -> Result<(), TargetError> {
        self.inner.read_memory(space, addr, buf)
    }
    fn resolve_generic(&self, addr: u64) -> (amdgpu_dwarf::target::GenericTarget, u64) {
        self.inner.resolve_generic(addr)
    }
}
