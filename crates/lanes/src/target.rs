//! [`WaveTarget`]: a stopped wave of a [`Session`] answering the DWARF evaluator's
//! [`Target`] trait.
//!
//! Registers are named by their AMDGPU DWARF numbers (usage guide, "AMDGPU DWARF Register
//! Mapping"): PC_32 0, EXEC_MASK_32 1, PC_64 16, EXEC_MASK_64 17, SGPR0-63 32-95,
//! SGPR64-105 1088-1129, VGPR0-255 1536-1791 (wave32) / 2560-2815 (wave64), AGPR0-255
//! 2048-2303 (wave32) / 3072-3327 (wave64). A vector register is the whole wave: lane 0's
//! dword at the lowest bytes. A register of the other wave size is not available.
//!
//! Memory spaces (usage guide, "AMDGPU DWARF Address Space Mapping") reach the simulator
//! as follows; the DWARF crate turns DWARF address spaces into [`MemorySpace`]s (applying
//! the private-lane swizzle `(a / 4) * wave_size * 4 + lane * 4 + a % 4` itself), and this
//! adapter maps those onto the simulator's state:
//!
//! | [`MemorySpace`] | simulator |
//! |---|---|
//! | `Global` | the device's global memory (`Device::mem`) |
//! | `Local` | the current work-group's LDS |
//! | `PrivateWave` | the wave's swizzled scratch backing store, offset 0 = its first byte |
//! | `Region` | the device's GDS memory (`Device::mem.gds()`, 64 KiB) |
//!
//! Generic (flat) addresses are classified with the simulator's own apertures
//! ([`amdgpu_sim::memory::classify_flat`]), for the focused lane's address only (no whole
//! wave is classified by one lane).
//!
//! Code addresses: the DWARF of a code object is not relocated, so the target reports
//! the PC (and the PC registers) as *link-time* addresses: the simulator's PC minus the
//! module's load bias. A write of a PC register adds the bias back.

use amdgpu_dwarf::target::GenericTarget;
use amdgpu_dwarf::{MemorySpace, Register, Target, TargetError};
use amdgpu_sim::debug::Session;
use amdgpu_sim::memory::{FlatTarget, classify_flat};
use amdgpu_sim::{Device, Wave};

/// How the adapter holds the session: shared (reads only) or exclusive (reads and writes).
enum SessionRef<'s, 'd> {
    Shared(&'s Session<'d>),
    Exclusive(&'s mut Session<'d>),
}

/// One wave of a stopped [`Session`], seen from one focused lane, as a DWARF [`Target`].
///
/// Built with [`WaveTarget::new`] (read-only: writes answer [`TargetError::ReadOnly`]) or
/// [`WaveTarget::new_mut`] (writes change the wave's registers, its scratch, and global
/// memory). See the module documentation for the register and memory mapping.
pub struct WaveTarget<'s, 'd> {
    session: SessionRef<'s, 'd>,
    device: &'d Device,
    wave: u32,
    lane: u32,
    load_bias: u64,
}

/// Why a [`WaveTarget`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WaveTargetError {
    /// The session has no current work-group, or it has no such wave.
    #[error("wave {0} does not exist in the session's current work-group")]
    NoWave(u32),
    /// The focused lane is not a lane of the wave.
    #[error("lane {lane} is not a lane of a wave{wave_size}")]
    NoLane {
        /// The lane asked for.
        lane: u32,
        /// The wave's size.
        wave_size: u32,
    },
}

impl<'s, 'd> WaveTarget<'s, 'd> {
    /// A read-only view of wave `wave` of the session's current work-group, focused on
    /// `lane`. `device` must be the device the session runs on (the session does not
    /// expose it); `load_bias` is the module's load bias (`Module::load_bias`).
    pub fn new(
        session: &'s Session<'d>,
        device: &'d Device,
        wave: u32,
        lane: u32,
        load_bias: u64,
    ) -> Result<Self, WaveTargetError> {
        check(session, wave, lane)?;
        Ok(WaveTarget {
            session: SessionRef::Shared(session),
            device,
            wave,
            lane,
            load_bias,
        })
    }

    /// A view that can also write (registers, scratch, global memory).
    pub fn new_mut(
        session: &'s mut Session<'d>,
        device: &'d Device,
        wave: u32,
        lane: u32,
        load_bias: u64,
    ) -> Result<Self, WaveTargetError> {
        check(session, wave, lane)?;
        Ok(WaveTarget {
            session: SessionRef::Exclusive(session),
            device,
            wave,
            lane,
            load_bias,
        })
    }

    fn session(&self) -> &Session<'d> {
        match &self.session {
            SessionRef::Shared(s) => s,
            SessionRef::Exclusive(s) => s,
        }
    }

    /// The wave (it exists: checked at construction, and the session cannot move while
    /// borrowed).
    fn wave_ref(&self) -> Result<&Wave, TargetError> {
        self.session()
            .wave(self.wave)
            .ok_or_else(|| TargetError::Other(format!("wave {} is gone", self.wave)))
    }

    fn wave_mut(&mut self) -> Result<&mut Wave, TargetError> {
        let n = self.wave;
        match &mut self.session {
            SessionRef::Shared(_) => Err(TargetError::ReadOnly),
            SessionRef::Exclusive(s) => s
                .wave_mut(n)
                .ok_or_else(|| TargetError::Other(format!("wave {n} is gone"))),
        }
    }

    /// The wave number this target reads.
    pub fn wave_number(&self) -> u32 {
        self.wave
    }

    /// Changes the focused lane.
    pub fn set_lane(&mut self, lane: u32) -> Result<(), WaveTargetError> {
        check(self.session(), self.wave, lane)?;
        self.lane = lane;
        Ok(())
    }
}

fn check(session: &Session<'_>, wave: u32, lane: u32) -> Result<(), WaveTargetError> {
    let w = session.wave(wave).ok_or(WaveTargetError::NoWave(wave))?;
    if lane >= w.size {
        return Err(WaveTargetError::NoLane {
            lane,
            wave_size: w.size,
        });
    }
    Ok(())
}

/// Where the bytes of a DWARF register live in a wave.
enum RegBytes {
    /// A register of `size` bytes held as a little-endian integer.
    Scalar(u64, usize),
    /// A vector register (`agpr`: accumulation file), whole wave.
    Vector { n: usize, agpr: bool },
}

fn unavailable(reg: u32) -> TargetError {
    TargetError::NoRegister(reg)
}

/// Checks `[offset, offset + len)` against a register of `size` bytes.
fn span(reg: u32, offset: u64, len: usize, size: usize) -> Result<usize, TargetError> {
    let off = usize::try_from(offset).map_err(|_| unavailable(reg))?;
    match off.checked_add(len) {
        Some(end) if end <= size => Ok(off),
        _ => Err(unavailable(reg)),
    }
}

impl WaveTarget<'_, '_> {
    fn locate(&self, w: &Wave, reg: u32) -> Result<RegBytes, TargetError> {
        let r = Register::from_dwarf(u64::from(reg)).ok_or(unavailable(reg))?;
        let link_pc = w.pc.wrapping_sub(self.load_bias);
        Ok(match r {
            Register::Pc32 => RegBytes::Scalar(link_pc & 0xffff_ffff, 4),
            Register::Pc64 => RegBytes::Scalar(link_pc, 8),
            Register::Exec32 if w.size == 32 => RegBytes::Scalar(w.exec.0 & 0xffff_ffff, 4),
            Register::Exec64 if w.size == 64 => RegBytes::Scalar(w.exec.0, 8),
            Register::Exec32 | Register::Exec64 => return Err(unavailable(reg)),
            Register::Sgpr(n) => RegBytes::Scalar(
                u64::from(w.sgpr_value(usize::from(n)).ok_or(unavailable(reg))?),
                4,
            ),
            Register::Vgpr { n, wave } | Register::Agpr { n, wave } => {
                if u32::from(wave) != w.size {
                    return Err(unavailable(reg));
                }
                let agpr = matches!(r, Register::Agpr { .. });
                let file = if agpr { &w.agpr } else { &w.vgpr };
                if usize::from(n) >= file.len() {
                    return Err(unavailable(reg));
                }
                RegBytes::Vector {
                    n: usize::from(n),
                    agpr,
                }
            }
        })
    }
}

impl Target for WaveTarget<'_, '_> {
    fn wave_size(&self) -> u32 {
        self.wave_ref().map(|w| w.size).unwrap_or(64)
    }

    fn lane(&self) -> u32 {
        self.lane
    }

    fn code_bias(&self) -> u64 {
        self.load_bias
    }

    fn pc(&self) -> u64 {
        self.wave_ref()
            .map(|w| w.pc.wrapping_sub(self.load_bias))
            .unwrap_or(0)
    }

    fn exec(&self) -> u64 {
        self.wave_ref().map(|w| w.exec.0).unwrap_or(0)
    }

    fn read_register(&self, reg: u32, offset: u64, buf: &mut [u8]) -> Result<(), TargetError> {
        let w = self.wave_ref()?;
        match self.locate(w, reg)? {
            RegBytes::Scalar(v, size) => {
                let off = span(reg, offset, buf.len(), size)?;
                let bytes = v.to_le_bytes();
                buf.copy_from_slice(bytes.get(off..off + buf.len()).ok_or(unavailable(reg))?);
            }
            RegBytes::Vector { n, agpr } => {
                let size = w.size as usize * 4;
                let off = span(reg, offset, buf.len(), size)?;
                let file = if agpr { &w.agpr } else { &w.vgpr };
                let lanes = file.get(n).ok_or(unavailable(reg))?;
                for (i, b) in buf.iter_mut().enumerate() {
                    let at = off + i;
                    let dword = lanes.get(at / 4).ok_or(unavailable(reg))?;
                    *b = dword.to_le_bytes()[at % 4];
                }
            }
        }
        Ok(())
    }

    fn read_memory(
        &self,
        space: MemorySpace,
        addr: u64,
        buf: &mut [u8],
    ) -> Result<(), TargetError> {
        let len = buf.len();
        let unmapped = || TargetError::Unmapped { space, addr, len };
        match space {
            MemorySpace::Global => self.device.mem.read(addr, buf).map_err(|_| unmapped()),
            MemorySpace::Local => {
                let g = self.session().group().ok_or_else(unmapped)?;
                g.lds.read(addr, buf).map_err(|_| unmapped())
            }
            MemorySpace::PrivateWave => {
                let w = self.wave_ref()?;
                w.scratch.read_backing(addr, buf).map_err(|_| unmapped())
            }
            MemorySpace::Region => {
                let gds = self.device.mem.gds().lock();
                gds.mem.read(addr, buf).map_err(|_| unmapped())
            }
        }
    }

    fn write_register(&mut self, reg: u32, offset: u64, data: &[u8]) -> Result<(), TargetError> {
        let bias = self.load_bias;
        let located = self.locate(self.wave_ref()?, reg)?;
        let w = self.wave_mut()?;
        match located {
            RegBytes::Scalar(v, size) => {
                let off = span(reg, offset, data.len(), size)?;
                let mut bytes = v.to_le_bytes();
                bytes
                    .get_mut(off..off + data.len())
                    .ok_or(unavailable(reg))?
                    .copy_from_slice(data);
                let nv = u64::from_le_bytes(bytes);
                match Register::from_dwarf(u64::from(reg)).ok_or(unavailable(reg))? {
                    Register::Pc32 => {
                        let link = (w.pc.wrapping_sub(bias) & !0xffff_ffff) | nv;
                        w.pc = link.wrapping_add(bias);
                    }
                    Register::Pc64 => w.pc = nv.wrapping_add(bias),
                    Register::Exec32 => w.exec.0 = (w.exec.0 & !0xffff_ffff) | nv,
                    Register::Exec64 => w.exec.0 = nv,
                    Register::Sgpr(n) => {
                        *w.sgpr.get_mut(usize::from(n)).ok_or(unavailable(reg))? = nv as u32
                    }
                    _ => return Err(unavailable(reg)),
                }
            }
            RegBytes::Vector { n, agpr } => {
                let size = w.size as usize * 4;
                let off = span(reg, offset, data.len(), size)?;
                let file = if agpr { &mut w.agpr } else { &mut w.vgpr };
                let lanes = file.get_mut(n).ok_or(unavailable(reg))?;
                for (i, b) in data.iter().enumerate() {
                    let at = off + i;
                    let dword = lanes.get_mut(at / 4).ok_or(unavailable(reg))?;
                    let mut le = dword.to_le_bytes();
                    le[at % 4] = *b;
                    *dword = u32::from_le_bytes(le);
                }
            }
        }
        Ok(())
    }

    fn write_memory(
        &mut self,
        space: MemorySpace,
        addr: u64,
        data: &[u8],
    ) -> Result<(), TargetError> {
        if let SessionRef::Shared(_) = self.session {
            return Err(TargetError::ReadOnly);
        }
        let unmapped = || TargetError::Unmapped {
            space,
            addr,
            len: data.len(),
        };
        match space {
            MemorySpace::Global => self.device.mem.write(addr, data).map_err(|_| unmapped()),
            MemorySpace::PrivateWave => {
                let w = self.wave_mut()?;
                w.scratch.write_backing(addr, data).map_err(|_| unmapped())
            }
            MemorySpace::Local => match &mut self.session {
                SessionRef::Shared(_) => Err(TargetError::ReadOnly),
                SessionRef::Exclusive(s) => s
                    .lds_mut()
                    .ok_or_else(unmapped)?
                    .write(addr, data)
                    .map_err(|_| unmapped()),
            },
            MemorySpace::Region => {
                let mut gds = self.device.mem.gds().lock();
                gds.mem.write(addr, data).map_err(|_| unmapped())
            }
        }
    }

    fn resolve_generic(&self, addr: u64) -> (GenericTarget, u64) {
        // Vega ISA §9.3.1 "Flat addressing": the aperture is chosen by the address's high
        // half, per lane; this is the focused lane's address.
        match classify_flat(addr) {
            FlatTarget::Global(a) => (GenericTarget::Global, a),
            FlatTarget::Lds(a) => (GenericTarget::Local, u64::from(a)),
            FlatTarget::Private(a) => (GenericTarget::PrivateLane, u64::from(a)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_spans_are_checked() {
        assert_eq!(span(32, 0, 4, 4), Ok(0));
        assert_eq!(span(32, 2, 2, 4), Ok(2));
        assert_eq!(span(32, 2, 4, 4), Err(TargetError::NoRegister(32)));
        assert_eq!(span(32, u64::MAX, 1, 4), Err(TargetError::NoRegister(32)));
        assert_eq!(span(2560, 252, 4, 256), Ok(252));
        assert_eq!(span(2560, 253, 4, 256), Err(TargetError::NoRegister(2560)));
    }
}
