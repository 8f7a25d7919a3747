//! A code region decoded once into instructions indexed by address.

use crate::{Decoder, Inst};

/// A decoded code region: every instruction, in order, with its address.
///
/// Lookup by address is O(1): `slot` maps each dword offset from the base to the
/// index of the instruction that starts there (or `u32::MAX` inside an instruction).
#[derive(Clone, Debug, Default)]
pub struct Program {
    base: u64,
    insts: Vec<Inst>,
    addrs: Vec<u64>,
    slot: Vec<u32>,
}

impl Program {
    pub(crate) fn decode(dec: &Decoder, bytes: &[u8], base: u64) -> Program {
        let mut p = Program {
            base,
            insts: Vec::with_capacity(bytes.len() / 6),
            addrs: Vec::with_capacity(bytes.len() / 6),
            slot: vec![u32::MAX; bytes.len().div_ceil(4)],
        };
        let mut off = 0usize;
        while off < bytes.len() {
            let inst = match dec.decode(&bytes[off..]) {
                Ok(i) => i,
                Err(_) => {
                    // Truncated tail: keep what is there as an invalid entry.
                    let mut w = [0u8; 4];
                    let tail = &bytes[off..];
                    w[..tail.len().min(4)].copy_from_slice(&tail[..tail.len().min(4)]);
                    let mut i = Inst::invalid(u32::from_le_bytes(w));
                    i.size = tail.len().min(4) as u8;
                    i
                }
            };
            if let Some(s) = p.slot.get_mut(off / 4) {
                *s = p.insts.len() as u32;
            }
            p.insts.push(inst);
            p.addrs.push(base + off as u64);
            off += inst.size_bytes().max(1);
        }
        p
    }

    /// The address of the first byte.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// All instructions in address order.
    pub fn insts(&self) -> &[Inst] {
        &self.insts
    }

    /// Instructions with their addresses.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &Inst)> {
        self.addrs.iter().copied().zip(self.insts.iter())
    }

    /// The index of the instruction that starts at `addr`, if one does.
    pub fn index_of(&self, addr: u64) -> Option<usize> {
        let off = addr.checked_sub(self.base)?;
        if off % 4 != 0 {
            return None;
        }
        match *self.slot.get((off / 4) as usize)? {
            u32::MAX => None,
            i => Some(i as usize),
        }
    }

    /// The instruction that starts at `addr`, if one does.
    pub fn at(&self, addr: u64) -> Option<&Inst> {
        self.index_of(addr).and_then(|i| self.insts.get(i))
    }

    /// The address of instruction number `index`.
    pub fn address(&self, index: usize) -> Option<u64> {
        self.addrs.get(index).copied()
    }
}

#[cfg(test)]
mod tests {
    use crate::{Decoder, Gpu};

    #[test]
    fn truncated_tail_is_kept() {
        let d = Decoder::new(Gpu::Gfx900, true);
        let p = d.decode_program(&[0, 0, 0x81, 0xbf, 0x12, 0x34], 0x100);
        assert_eq!(p.insts().len(), 2);
        assert_eq!(p.index_of(0x104), Some(1));
        assert_eq!(p.index_of(0x102), None);
        assert_eq!(p.at(0x104).map(|i| i.size_bytes()), Some(2));
    }
}
