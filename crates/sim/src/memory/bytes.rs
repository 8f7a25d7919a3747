//! Flat bounds-checked byte arrays: a work-group's LDS, the device's GDS memory, and a
//! wave's dword-swizzled scratch.

use crate::error::{FaultKind, MemFault, Space};

/// A fault of `len` bytes at `addr` in `space`.
pub(crate) fn fault(kind: FaultKind, space: Space, addr: u64, len: u64) -> MemFault {
    MemFault {
        kind,
        space,
        addr,
        len,
    }
}

/// A flat byte array with bounds-checked access: one work-group's LDS, or
/// one wave's scratch.
#[derive(Clone, Debug, Default)]
pub struct Bytes {
    data: Vec<u8>,
    space: Option<Space>,
}

impl Bytes {
    /// `size` zero bytes in address space `space`.
    pub fn new(size: usize, space: Space) -> Self {
        Bytes {
            data: vec![0; size],
            space: Some(space),
        }
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    fn range(&self, addr: u64, len: usize) -> Result<std::ops::Range<usize>, MemFault> {
        let bad = fault(
            FaultKind::OutOfBounds,
            self.space.unwrap_or(Space::Lds),
            addr,
            len as u64,
        );
        let a = usize::try_from(addr).map_err(|_| bad)?;
        let e = a.checked_add(len).ok_or(bad)?;
        if e > self.data.len() {
            return Err(bad);
        }
        Ok(a..e)
    }

    /// Reads bytes at `addr`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
        let r = self.range(addr, out.len())?;
        out.copy_from_slice(&self.data[r]);
        Ok(())
    }

    /// Writes bytes at `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        let r = self.range(addr, data.len())?;
        self.data[r].copy_from_slice(data);
        Ok(())
    }

    /// The whole contents.
    pub fn as_slice(&self) -> &[u8] {
        &self.data
    }

    /// The whole contents, writable (for accesses bounds-checked by the
    /// caller).
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.data
    }
}

/// One wave's private memory, stored dword-interleaved across lanes as the
/// hardware's swizzled scratch buffer is (usage guide, "Private Segment
/// Buffer"): byte `addr` of lane `lane` is at
/// `(addr / 4) * wave_size * 4 + lane * 4 + addr % 4`.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    bytes: Bytes,
    per_lane: u32,
    wave_size: u32,
}

impl Scratch {
    /// Scratch for `wave_size` lanes of `per_lane` bytes each (rounded up to dwords).
    pub fn new(per_lane: u32, wave_size: u32) -> Self {
        let per_lane = per_lane.div_ceil(4) * 4;
        Scratch {
            bytes: Bytes::new(per_lane as usize * wave_size as usize, Space::Private),
            per_lane,
            wave_size,
        }
    }

    /// Private bytes per lane.
    pub fn per_lane(&self) -> u32 {
        self.per_lane
    }

    /// Offset in the wave's backing store of lane `lane`'s private byte `addr`.
    pub fn swizzle(&self, lane: u32, addr: u32) -> u64 {
        (addr as u64 / 4) * self.wave_size as u64 * 4 + lane as u64 * 4 + addr as u64 % 4
    }

    fn lane_fault(&self, addr: u32, len: usize) -> MemFault {
        fault(
            FaultKind::OutOfBounds,
            Space::Private,
            addr as u64,
            len as u64,
        )
    }

    /// Reads lane `lane`'s private bytes at `addr` (any length; each byte is
    /// placed by the swizzle).
    pub fn read_lane(&self, lane: u32, addr: u32, out: &mut [u8]) -> Result<(), MemFault> {
        let end = addr as u64 + out.len() as u64;
        if end > self.per_lane as u64 || lane >= self.wave_size {
            return Err(self.lane_fault(addr, out.len()));
        }
        for (i, o) in out.iter_mut().enumerate() {
            let mut b = [0u8];
            self.bytes
                .read(self.swizzle(lane, addr + i as u32), &mut b)?;
            *o = b[0];
        }
        Ok(())
    }

    /// Writes lane `lane`'s private bytes at `addr`.
    pub fn write_lane(&mut self, lane: u32, addr: u32, data: &[u8]) -> Result<(), MemFault> {
        let end = addr as u64 + data.len() as u64;
        if end > self.per_lane as u64 || lane >= self.wave_size {
            return Err(self.lane_fault(addr, data.len()));
        }
        for (i, d) in data.iter().enumerate() {
            let off = self.swizzle(lane, addr + i as u32);
            self.bytes.write(off, &[*d])?;
        }
        Ok(())
    }

    /// Reads raw bytes of the swizzled backing store (as a buffer access
    /// through the private segment buffer sees them).
    pub fn read_backing(&self, off: u64, out: &mut [u8]) -> Result<(), MemFault> {
        self.bytes.read(off, out)
    }

    /// Writes raw bytes of the swizzled backing store.
    pub fn write_backing(&mut self, off: u64, data: &[u8]) -> Result<(), MemFault> {
        self.bytes.write(off, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_is_dword_interleaved() {
        let mut s = Scratch::new(8, 64);
        s.write_lane(3, 4, &[0xaa, 0xbb, 0xcc, 0xdd]).unwrap();
        // (4/4)*64*4 + 3*4 = 268
        let mut raw = [0u8; 4];
        s.read_backing(268, &mut raw).unwrap();
        assert_eq!(raw, [0xaa, 0xbb, 0xcc, 0xdd]);
        let mut back = [0u8; 2];
        s.read_lane(3, 5, &mut back).unwrap();
        assert_eq!(back, [0xbb, 0xcc]);
        assert!(s.read_lane(3, 6, &mut raw).is_err());
        assert!(s.write_lane(64, 0, &[1]).is_err());
    }
}
