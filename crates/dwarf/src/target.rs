//! Live state: the [`Target`] trait a stopped wave implements, the AMDGPU target model
//! (DWARF register numbers and sizes, DWARF address spaces and the private-memory
//! swizzle), and [`MemTarget`], an in-memory target for tests and the CLI.

use thiserror::Error;

/// An error reported by a target.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TargetError {
    /// The register is not available in this wave (wrong wave size, not saved, ...).
    #[error("register {0} is not available")]
    NoRegister(u32),
    /// Memory at this address is not mapped.
    #[error("{space:?} memory at {addr:#x} ({len} bytes) is not mapped")]
    Unmapped {
        /// Hardware memory space.
        space: MemorySpace,
        /// Address.
        addr: u64,
        /// Length of the access.
        len: usize,
    },
    /// The target does not allow writes.
    #[error("the target is read-only")]
    ReadOnly,
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

/// A hardware memory space as a wave sees it (AMDGPU "Address Spaces").
///
/// DWARF address spaces ([`AddressSpace`]) are mapped onto these by the model: the
/// private-lane views are swizzled into [`MemorySpace::PrivateWave`] addresses, and
/// generic (flat) addresses are resolved by [`Target::resolve_generic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemorySpace {
    /// Global memory (the 64-bit process address space).
    Global,
    /// Region (GDS) memory.
    Region,
    /// Local (LDS) memory of the wave's work-group.
    Local,
    /// The wave's private (scratch) backing memory, unswizzled: address 0 is the first
    /// byte of the wave's backing memory (not offset by the wave's scratch base).
    PrivateWave,
}

/// The live state a DWARF expression reads: one stopped wave, with a focused lane.
///
/// Registers are addressed by AMDGPU DWARF register number ([`Register`]); a vector
/// register is the whole wave (lane 0's dword at the lowest bytes). Reads take a byte
/// offset within the register so that reading one lane does not copy the whole vector.
pub trait Target {
    /// Lanes per wave: 32 or 64.
    fn wave_size(&self) -> u32;
    /// The focused lane (the source thread of execution the user looks at).
    fn lane(&self) -> u32;
    /// Program counter of the wave (a code object address).
    fn pc(&self) -> u64;
    /// Execution mask.
    fn exec(&self) -> u64;
    /// The selected call frame (0: the innermost, where the wave stopped). Registers read
    /// through this trait are those of that frame: a target that unwinds (with the CFI of
    /// [`crate::program`]) answers with the caller's values for outer frames.
    fn frame(&self) -> u32 {
        0
    }
    /// What the loader added to the code object's addresses: [`Target::pc`] and the PC
    /// register are code object addresses, values in registers (a saved return address)
    /// are not. Default: 0.
    fn code_bias(&self) -> u64 {
        0
    }
    /// Reads `buf.len()` bytes of register `reg` (DWARF number) starting at byte `offset`.
    fn read_register(&self, reg: u32, offset: u64, buf: &mut [u8]) -> Result<(), TargetError>;
    /// Reads memory of a hardware space.
    fn read_memory(&self, space: MemorySpace, addr: u64, buf: &mut [u8])
    -> Result<(), TargetError>;
    /// Writes register bytes. Default: read-only target.
    fn write_register(&mut self, reg: u32, offset: u64, data: &[u8]) -> Result<(), TargetError> {
        let _ = (reg, offset, data);
        Err(TargetError::ReadOnly)
    }
    /// Writes memory. Default: read-only target.
    fn write_memory(
        &mut self,
        space: MemorySpace,
        addr: u64,
        data: &[u8],
    ) -> Result<(), TargetError> {
        let _ = (space, addr, data);
        Err(TargetError::ReadOnly)
    }
    /// Maps a generic (flat) address to a hardware space and an address in it, using the
    /// wave's apertures. A private-aperture result is a *lane* address of the focused
    /// lane (the model swizzles it). Default: everything is global.
    fn resolve_generic(&self, addr: u64) -> (GenericTarget, u64) {
        (GenericTarget::Global, addr)
    }
    /// The thread-local storage address for DW_OP_form_tls_address. Default: unavailable
    /// (there is no TLS on AMDGPU).
    fn tls_address(&self, offset: u64) -> Option<u64> {
        let _ = offset;
        None
    }
}

/// Where a generic (flat) address points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenericTarget {
    /// Global memory.
    Global,
    /// The local aperture.
    Local,
    /// The private aperture (a lane address of the focused lane).
    PrivateLane,
}

impl<T: Target + ?Sized> Target for &T {
    fn wave_size(&self) -> u32 {
        (**self).wave_size()
    }
    fn lane(&self) -> u32 {
        (**self).lane()
    }
    fn pc(&self) -> u64 {
        (**self).pc()
    }
    fn exec(&self) -> u64 {
        (**self).exec()
    }
    fn frame(&self) -> u32 {
        (**self).frame()
    }
    fn code_bias(&self) -> u64 {
        (**self).code_bias()
    }
    fn read_register(&self, reg: u32, offset: u64, buf: &mut [u8]) -> Result<(), TargetError> {
        (**self).read_register(reg, offset, buf)
    }
    fn read_memory(
        &self,
        space: MemorySpace,
        addr: u64,
        buf: &mut [u8],
    ) -> Result<(), TargetError> {
        (**self).read_memory(space, addr, buf)
    }
    fn resolve_generic(&self, addr: u64) -> (GenericTarget, u64) {
        (**self).resolve_generic(addr)
    }
    fn tls_address(&self, offset: u64) -> Option<u64> {
        (**self).tls_address(offset)
    }
}

// ---------------------------------------------------------------------------------------
// Registers (seed: "Register Mapping")

/// An AMDGPU register named by its DWARF number (seed, "AMDGPU DWARF Register Mapping").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Register {
    /// 0: PC in a 32-bit process address space.
    Pc32,
    /// 1: EXEC in wave32 mode.
    Exec32,
    /// 16: PC in a 64-bit process address space.
    Pc64,
    /// 17: EXEC in wave64 mode.
    Exec64,
    /// 32-95 and 1088-1129: SGPR0-105.
    Sgpr(u16),
    /// 1536-1791 (wave32) and 2560-2815 (wave64): VGPR0-255.
    Vgpr {
        /// Register index.
        n: u16,
        /// 32 or 64.
        wave: u8,
    },
    /// 2048-2303 (wave32) and 3072-3327 (wave64): AGPR0-255.
    Agpr {
        /// Register index.
        n: u16,
        /// 32 or 64.
        wave: u8,
    },
}

impl Register {
    /// Decodes a DWARF register number. `None` for reserved numbers.
    #[inline]
    pub fn from_dwarf(num: u64) -> Option<Register> {
        let n = u16::try_from(num).ok()?;
        Some(match n {
            0 => Register::Pc32,
            1 => Register::Exec32,
            16 => Register::Pc64,
            17 => Register::Exec64,
            32..=95 => Register::Sgpr(n - 32),
            1088..=1129 => Register::Sgpr(n - 1088 + 64),
            1536..=1791 => Register::Vgpr {
                n: n - 1536,
                wave: 32,
            },
            2048..=2303 => Register::Agpr {
                n: n - 2048,
                wave: 32,
            },
            2560..=2815 => Register::Vgpr {
                n: n - 2560,
                wave: 64,
            },
            3072..=3327 => Register::Agpr {
                n: n - 3072,
                wave: 64,
            },
            _ => return None,
        })
    }

    /// The DWARF register number.
    pub fn dwarf(self) -> u32 {
        match self {
            Register::Pc32 => 0,
            Register::Exec32 => 1,
            Register::Pc64 => 16,
            Register::Exec64 => 17,
            Register::Sgpr(n) if n < 64 => 32 + u32::from(n),
            Register::Sgpr(n) => 1088 + u32::from(n) - 64,
            Register::Vgpr { n, wave: 32 } => 1536 + u32::from(n),
            Register::Vgpr { n, .. } => 2560 + u32::from(n),
            Register::Agpr { n, wave: 32 } => 2048 + u32::from(n),
            Register::Agpr { n, .. } => 3072 + u32::from(n),
        }
    }

    /// Size in bytes (seed table "Bit Size" column: vector registers are the whole wave).
    pub fn size(self) -> u64 {
        match self {
            Register::Pc32 | Register::Exec32 | Register::Sgpr(_) => 4,
            Register::Pc64 | Register::Exec64 => 8,
            Register::Vgpr { wave, .. } | Register::Agpr { wave, .. } => u64::from(wave) * 4,
        }
    }

    /// The DWARF number of the PC register for the 64-bit process address space.
    pub const PC: u32 = 16;
    /// The DWARF number of EXEC in wave64 mode.
    pub const EXEC64: u32 = 17;
    /// The DWARF number of EXEC in wave32 mode.
    pub const EXEC32: u32 = 1;

    /// The DWARF number of VGPR `n` for a wave size.
    pub fn vgpr(n: u16, wave_size: u32) -> u32 {
        Register::Vgpr {
            n,
            wave: if wave_size == 32 { 32 } else { 64 },
        }
        .dwarf()
    }

    /// The DWARF number of SGPR `n`.
    pub fn sgpr(n: u16) -> u32 {
        Register::Sgpr(n).dwarf()
    }

    /// The name this crate uses in text (e.g. `SGPR3`, `VGPR0`, `EXEC`, `PC`).
    pub fn name(self) -> String {
        match self {
            Register::Pc32 => "PC_32".into(),
            Register::Exec32 => "EXEC_32".into(),
            Register::Pc64 => "PC".into(),
            Register::Exec64 => "EXEC".into(),
            Register::Sgpr(n) => format!("SGPR{n}"),
            Register::Vgpr { n, wave } => format!("VGPR{n}_W{wave}"),
            Register::Agpr { n, wave } => format!("AGPR{n}_W{wave}"),
        }
    }
}

/// Size in bytes of a DWARF register, or `None` for a reserved number (the numbers of
/// [`Register::from_dwarf`], sized as [`Register::size`]; computed directly, as every
/// register operation asks it).
#[inline]
pub fn register_size(num: u64) -> Option<u64> {
    match num {
        0 | 1 | 32..=95 | 1088..=1129 => Some(4),
        16 | 17 => Some(8),
        1536..=1791 | 2048..=2303 => Some(32 * 4),
        2560..=2815 | 3072..=3327 => Some(64 * 4),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// Address spaces (seed: "Address Space Mapping")

/// A DWARF address space (seed, "AMDGPU DWARF Address Space Mapping").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AddressSpace {
    /// DW_ASPACE_none (0x00): the default, global memory.
    Global,
    /// DW_ASPACE_AMDGPU_generic (0x01): flat addresses.
    Generic,
    /// DW_ASPACE_AMDGPU_region (0x02): GDS.
    Region,
    /// DW_ASPACE_AMDGPU_local (0x03): LDS of the focused wave's work-group.
    Local,
    /// DW_ASPACE_AMDGPU_private_lane (0x05): scratch of the focused lane, swizzled view.
    PrivateLane,
    /// DW_ASPACE_AMDGPU_private_wave (0x06): the wave's scratch, unswizzled view.
    PrivateWave,
    /// `DW_ASPACE_AMDGPU_private_lane<N>` (0x20 + N): scratch of lane N.
    PrivateLaneN(u8),
}

impl AddressSpace {
    /// Decodes a DWARF address space number; `None` if the target does not define it.
    pub fn from_dwarf(v: u64) -> Option<AddressSpace> {
        Some(match v {
            0 => AddressSpace::Global,
            1 => AddressSpace::Generic,
            2 => AddressSpace::Region,
            3 => AddressSpace::Local,
            5 => AddressSpace::PrivateLane,
            6 => AddressSpace::PrivateWave,
            0x20..=0x5f => AddressSpace::PrivateLaneN((v - 0x20) as u8),
            _ => return None,
        })
    }

    /// The DWARF number.
    pub fn dwarf(self) -> u64 {
        match self {
            AddressSpace::Global => 0,
            AddressSpace::Generic => 1,
            AddressSpace::Region => 2,
            AddressSpace::Local => 3,
            AddressSpace::PrivateLane => 5,
            AddressSpace::PrivateWave => 6,
            AddressSpace::PrivateLaneN(n) => 0x20 + u64::from(n),
        }
    }

    /// Address size in bytes in the 64-bit process address space (seed table).
    pub fn address_size(self) -> u8 {
        match self {
            AddressSpace::Global | AddressSpace::Generic => 8,
            _ => 4,
        }
    }

    /// Mask of valid address bits.
    pub fn address_mask(self) -> u64 {
        if self.address_size() == 8 {
            u64::MAX
        } else {
            u64::from(u32::MAX)
        }
    }

    /// Name as in the seed (`DW_ASPACE_AMDGPU_local`, ...).
    pub fn name(self) -> String {
        match self {
            AddressSpace::Global => "DW_ASPACE_none".into(),
            AddressSpace::Generic => "DW_ASPACE_AMDGPU_generic".into(),
            AddressSpace::Region => "DW_ASPACE_AMDGPU_region".into(),
            AddressSpace::Local => "DW_ASPACE_AMDGPU_local".into(),
            AddressSpace::PrivateLane => "DW_ASPACE_AMDGPU_private_lane".into(),
            AddressSpace::PrivateWave => "DW_ASPACE_AMDGPU_private_wave".into(),
            AddressSpace::PrivateLaneN(n) => format!("DW_ASPACE_AMDGPU_private_lane{n}"),
        }
    }
}

/// Converts a private-lane address of `lane` to a private-wave (unswizzled) address
/// (seed, "Address Space Mapping"):
/// `wave = (lane_addr / 4) * wave_size * 4 + lane * 4 + lane_addr % 4`.
pub fn private_lane_to_wave(lane_addr: u64, lane: u32, wave_size: u32) -> u64 {
    (lane_addr / 4)
        .wrapping_mul(u64::from(wave_size) * 4)
        .wrapping_add(u64::from(lane) * 4)
        .wrapping_add(lane_addr % 4)
}

/// Reads `buf.len()` bytes at `addr` of DWARF address space `space` through `target`,
/// applying the lane swizzle and generic-address resolution.
pub fn read_aspace<T: Target + ?Sized>(
    target: &T,
    space: AddressSpace,
    addr: u64,
    buf: &mut [u8],
) -> Result<(), TargetError> {
    match lane_view(target, space, addr) {
        View::Direct(ms, a) => target.read_memory(ms, a, buf),
        View::Lane(lane, a) => {
            let ws = target.wave_size();
            for_dwords(a, buf.len(), |la, range| {
                let wa = private_lane_to_wave(la, lane, ws);
                target.read_memory(
                    MemorySpace::PrivateWave,
                    wa,
                    buf.get_mut(range).unwrap_or(&mut []),
                )
            })
        }
    }
}

/// Writes through a DWARF address space (see [`read_aspace`]).
pub fn write_aspace<T: Target + ?Sized>(
    target: &mut T,
    space: AddressSpace,
    addr: u64,
    data: &[u8],
) -> Result<(), TargetError> {
    match lane_view(&*target, space, addr) {
        View::Direct(ms, a) => target.write_memory(ms, a, data),
        View::Lane(lane, a) => {
            let ws = target.wave_size();
            for_dwords(a, data.len(), |la, range| {
                let wa = private_lane_to_wave(la, lane, ws);
                target.write_memory(MemorySpace::PrivateWave, wa, data.get(range).unwrap_or(&[]))
            })
        }
    }
}

enum View {
    Direct(MemorySpace, u64),
    Lane(u32, u64),
}

fn lane_view<T: Target + ?Sized>(target: &T, space: AddressSpace, addr: u64) -> View {
    match space {
        AddressSpace::Global => View::Direct(MemorySpace::Global, addr),
        AddressSpace::Region => View::Direct(MemorySpace::Region, addr & 0xffff_ffff),
        AddressSpace::Local => View::Direct(MemorySpace::Local, addr & 0xffff_ffff),
        AddressSpace::PrivateWave => View::Direct(MemorySpace::PrivateWave, addr & 0xffff_ffff),
        AddressSpace::PrivateLane => View::Lane(target.lane(), addr & 0xffff_ffff),
        AddressSpace::PrivateLaneN(n) => View::Lane(u32::from(n), addr & 0xffff_ffff),
        AddressSpace::Generic => match target.resolve_generic(addr) {
            (GenericTarget::Global, a) => View::Direct(MemorySpace::Global, a),
            (GenericTarget::Local, a) => View::Direct(MemorySpace::Local, a),
            (GenericTarget::PrivateLane, a) => View::Lane(target.lane(), a),
        },
    }
}

/// Splits `[addr, addr+len)` at dword boundaries (contiguous within a dword of one lane).
fn for_dwords(
    addr: u64,
    len: usize,
    mut f: impl FnMut(u64, std::ops::Range<usize>) -> Result<(), TargetError>,
) -> Result<(), TargetError> {
    let mut done = 0usize;
    while done < len {
        let a = addr.wrapping_add(done as u64);
        let chunk = (4 - (a % 4) as usize).min(len - done);
        f(a, done..done + chunk)?;
        done += chunk;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// In-memory target

/// An in-memory [`Target`]: registers by DWARF number, memory regions per hardware space.
/// Used by this crate's tests, its benchmarks and the `amdsim dwarf eval` command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemTarget {
    /// Lanes per wave (32 or 64).
    pub wave_size: u32,
    /// Focused lane.
    pub lane: u32,
    /// Program counter.
    pub pc: u64,
    /// EXEC mask.
    pub exec: u64,
    /// Register contents indexed by DWARF number (little endian; vector registers
    /// whole-wave; empty: not available).
    pub registers: Vec<Vec<u8>>,
    /// Memory regions: (space, base address, bytes).
    pub memory: Vec<(MemorySpace, u64, Vec<u8>)>,
    /// Private aperture base for generic addresses (None: no aperture).
    pub private_aperture: Option<(u64, u64)>,
    /// Local aperture (base, size) for generic addresses (None: no aperture).
    pub local_aperture: Option<(u64, u64)>,
}

impl MemTarget {
    /// A wave of `wave_size` lanes focused on `lane`, with EXEC all ones and PC 0. The PC
    /// and EXEC registers are kept in sync with [`MemTarget::set_pc`] / [`MemTarget::set_exec`].
    pub fn new(wave_size: u32, lane: u32) -> Self {
        let mut t = MemTarget {
            wave_size,
            lane,
            ..Default::default()
        };
        let exec = if wave_size == 32 {
            u64::from(u32::MAX)
        } else {
            u64::MAX
        };
        t.set_exec(exec);
        t.set_pc(0);
        t
    }

    /// Sets the PC (and the PC_64 register).
    pub fn set_pc(&mut self, pc: u64) {
        self.pc = pc;
        self.set_register(Register::PC, pc.to_le_bytes().to_vec());
        self.set_register(0, (pc as u32).to_le_bytes().to_vec());
    }

    /// Sets EXEC (and the EXEC register of the wave size).
    pub fn set_exec(&mut self, exec: u64) {
        self.exec = exec;
        self.set_register(Register::EXEC64, exec.to_le_bytes().to_vec());
        self.set_register(Register::EXEC32, (exec as u32).to_le_bytes().to_vec());
    }

    /// Sets a 32-bit scalar register.
    pub fn set_sgpr(&mut self, n: u16, v: u32) {
        self.set_register(Register::sgpr(n), v.to_le_bytes().to_vec());
    }

    /// Sets a vector register from per-lane dwords (missing lanes are zero).
    pub fn set_vgpr(&mut self, n: u16, lanes: &[u32]) {
        let ws = self.wave_size as usize;
        let mut bytes = vec![0u8; ws * 4];
        for (i, v) in lanes.iter().take(ws).enumerate() {
            bytes[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        self.set_register(Register::vgpr(n, self.wave_size), bytes);
    }

    /// Sets raw register bytes by DWARF number (numbers of the AMDGPU register map only;
    /// others are ignored).
    pub fn set_register(&mut self, dwarf: u32, bytes: Vec<u8>) {
        let i = dwarf as usize;
        if Register::from_dwarf(u64::from(dwarf)).is_none() {
            return;
        }
        if self.registers.len() <= i {
            self.registers.resize(i + 1, Vec::new());
        }
        self.registers[i] = bytes;
    }

    fn register_bytes(&self, reg: u32) -> Option<&Vec<u8>> {
        self.registers.get(reg as usize).filter(|b| !b.is_empty())
    }

    /// Adds a memory region.
    pub fn map(&mut self, space: MemorySpace, base: u64, bytes: Vec<u8>) {
        self.memory.push((space, base, bytes));
    }

    fn region(&self, space: MemorySpace, addr: u64, len: usize) -> Option<(usize, usize)> {
        self.memory
            .iter()
            .enumerate()
            .find_map(|(i, (s, base, bytes))| {
                if *s != space || addr < *base {
                    return None;
                }
                let off = usize::try_from(addr - base).ok()?;
                (off.checked_add(len)? <= bytes.len()).then_some((i, off))
            })
    }
}

impl Target for MemTarget {
    fn wave_size(&self) -> u32 {
        self.wave_size
    }
    fn lane(&self) -> u32 {
        self.lane
    }
    fn pc(&self) -> u64 {
        self.pc
    }
    fn exec(&self) -> u64 {
        self.exec
    }
    fn read_register(&self, reg: u32, offset: u64, buf: &mut [u8]) -> Result<(), TargetError> {
        let bytes = self
            .register_bytes(reg)
            .ok_or(TargetError::NoRegister(reg))?;
        let off = usize::try_from(offset).map_err(|_| TargetError::NoRegister(reg))?;
        let src = off
            .checked_add(buf.len())
            .and_then(|end| bytes.get(off..end))
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
        let (i, off) = self
            .region(space, addr, buf.len())
            .ok_or(TargetError::Unmapped {
                space,
                addr,
                len: buf.len(),
            })?;
        buf.copy_from_slice(&self.memory[i].2[off..off + buf.len()]);
        Ok(())
    }
    fn write_register(&mut self, reg: u32, offset: u64, data: &[u8]) -> Result<(), TargetError> {
        let bytes = self
            .registers
            .get_mut(reg as usize)
            .filter(|b| !b.is_empty())
            .ok_or(TargetError::NoRegister(reg))?;
        let off = usize::try_from(offset).map_err(|_| TargetError::NoRegister(reg))?;
        let dst = off
            .checked_add(data.len())
            .and_then(|end| bytes.get_mut(off..end))
            .ok_or(TargetError::NoRegister(reg))?;
        dst.copy_from_slice(data);
        Ok(())
    }
    fn write_memory(
        &mut self,
        space: MemorySpace,
        addr: u64,
        data: &[u8],
    ) -> Result<(), TargetError> {
        let (i, off) = self
            .region(space, addr, data.len())
            .ok_or(TargetError::Unmapped {
                space,
                addr,
                len: data.len(),
            })?;
        self.memory[i].2[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }
    fn resolve_generic(&self, addr: u64) -> (GenericTarget, u64) {
        if let Some((base, size)) = self.private_aperture
            && addr >= base
            && addr - base < size
        {
            return (GenericTarget::PrivateLane, addr - base);
        }
        if let Some((base, size)) = self.local_aperture
            && addr >= base
            && addr - base < size
        {
            return (GenericTarget::Local, addr - base);
        }
        (GenericTarget::Global, addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_numbers_round_trip() {
        for n in 0..4000u64 {
            if let Some(r) = Register::from_dwarf(n) {
                assert_eq!(u64::from(r.dwarf()), n);
            }
            assert_eq!(
                register_size(n),
                Register::from_dwarf(n).map(Register::size),
                "{n}"
            );
        }
        assert_eq!(register_size(2560), Some(256));
        assert_eq!(register_size(1536), Some(128));
        assert_eq!(register_size(1129), Some(4));
        assert_eq!(register_size(17), Some(8));
        assert_eq!(register_size(96), None);
        assert_eq!(Register::sgpr(70), 1094);
    }

    #[test]
    fn swizzle_matches_the_seed_formula() {
        // lane 3 of wave64, lane address 6: dword 1 byte 2.
        assert_eq!(private_lane_to_wave(6, 3, 64), 64 * 4 + 3 * 4 + 2);
        let mut t = MemTarget::new(64, 3);
        let mut scratch = vec![0u8; 64 * 4 * 4];
        for (i, b) in scratch.iter_mut().enumerate() {
            *b = i as u8;
        }
        t.map(MemorySpace::PrivateWave, 0, scratch);
        let mut buf = [0u8; 6];
        read_aspace(&t, AddressSpace::PrivateLane, 2, &mut buf).unwrap();
        // bytes 2,3 of lane 3's dword 0, then bytes 0..3 of its dword 1.
        let w = |a: u64| private_lane_to_wave(a, 3, 64) as u8;
        assert_eq!(buf, [w(2), w(3), w(4), w(5), w(6), w(7)]);
        let mut b2 = [0u8; 2];
        read_aspace(&t, AddressSpace::PrivateLaneN(7), 4, &mut b2).unwrap();
        assert_eq!(b2[0], private_lane_to_wave(4, 7, 64) as u8);
        assert!(AddressSpace::from_dwarf(4).is_none());
        assert_eq!(
            AddressSpace::from_dwarf(0x5f),
            Some(AddressSpace::PrivateLaneN(63))
        );
    }
}
