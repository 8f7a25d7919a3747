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

/// Number of entries of the decode memo of [`Program::decode`] (a power of two).
const MEMO_SIZE: usize = 1024;

/// One entry of the decode memo of [`Program::decode`]: the first two dwords
/// and the size of a remembered valid instruction, and its index.
#[derive(Clone, Copy)]
struct MemoEntry {
    w0: u32,
    w1: u32,
    index: u32,
    /// 0 for an empty entry (no instruction is 0 bytes long), else 4 or 8.
    size: u8,
}

impl MemoEntry {
    /// An entry that matches nothing.
    const EMPTY: MemoEntry = MemoEntry {
        w0: 0,
        w1: 0,
        index: 0,
        size: 0,
    };
}

/// The memo slot of an instruction whose first dword is `w0` (a multiplicative
/// hash: opcode and operand bits all reach its top ten bits).
#[inline(always)]
fn memo_slot(w0: u32) -> usize {
    (w0.wrapping_mul(0x9e37_79b1) >> 22) as usize % MEMO_SIZE
}

impl Program {
    /// Decodes `bytes` (the code at `base`) instruction by instruction.
    ///
    /// Code repeats itself (waits, moves of constants, spills, padding), and the
    /// decoded form of an instruction depends only on its bytes. So a small
    /// direct-mapped memo, keyed by the first dword, remembers the index of an
    /// instruction decoded before: a repeat is copied from there instead of
    /// being decoded again. The remembered [`Inst`] is used only when it is the
    /// same instruction: the dwords it was decoded from (kept in the memo entry)
    /// equal the first dword, and the second too unless it is 4 bytes long (a valid 4-byte
    /// instruction is decoded from its first dword alone). Invalid words are
    /// not remembered: an 8-byte encoding can be invalid because of its second
    /// dword, and its invalid `Inst` keeps only the first. Only instructions
    /// of at most 8 bytes are remembered, and only while 8 bytes remain (the
    /// one case where the decoder looks at the input length: a VOP1 SDWA/DPP
    /// marker at the very end), so the memo never changes a result (the
    /// `memo_never_changes_a_result` test checks it).
    pub(crate) fn decode(dec: &Decoder, bytes: &[u8], base: u64) -> Program {
        // Every instruction but a truncated tail is at least 4 bytes long, so
        // this capacity is never exceeded (no reallocation while decoding).
        let most = bytes.len().div_ceil(4);
        let mut insts: Vec<Inst> = Vec::with_capacity(most);
        let mut addrs: Vec<u64> = Vec::with_capacity(most);
        let mut slot = vec![u32::MAX; most];
        // The memo keeps the key of each remembered instruction beside its
        // index, so that a lookup reads only this (small, cache-resident)
        // table and touches `insts` just to copy a hit.
        let mut memo = [MemoEntry::EMPTY; MEMO_SIZE];
        // Misses are decoded here and then pushed: each new element of
        // `insts` is written once, and its size is read back from the stack.
        let mut scratch = Inst::default();
        let mut off = 0usize;
        let mut rest = bytes;
        while !rest.is_empty() {
            let index = insts.len();
            let head = rest.first_chunk::<8>().map(|b| {
                let w0 = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                let w1 = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
                (w0, w1)
            });
            let mut size = 0usize;
            if let Some((w0, w1)) = head {
                if let Some(e) = memo.get(memo_slot(w0)) {
                    if e.w0 == w0 && (e.size == 4 || (e.size == 8 && e.w1 == w1)) {
                        if let Some(prev) = insts.get(e.index as usize) {
                            let copy = *prev;
                            insts.push(copy);
                            size = e.size as usize;
                        }
                    }
                }
            }
            if size == 0 {
                if dec.decode_into(rest, &mut scratch).is_err() {
                    // Truncated tail: keep what is there as an invalid entry.
                    let n = rest.len().min(4);
                    let mut w = [0u8; 4];
                    w[..n].copy_from_slice(&rest[..n]);
                    scratch = Inst::invalid(u32::from_le_bytes(w));
                    scratch.size = n as u8;
                }
                insts.push(scratch);
                size = scratch.size_bytes().max(1);
                if let (Some((w0, w1)), Ok(i)) = (head, u32::try_from(index)) {
                    if scratch.size <= 8 && !scratch.is_invalid() {
                        if let Some(m) = memo.get_mut(memo_slot(w0)) {
                            *m = MemoEntry {
                                w0,
                                w1,
                                index: i,
                                size: scratch.size,
                            };
                        }
                    }
                }
            }
            if let Some(s) = slot.get_mut(off / 4) {
                *s = index as u32;
            }
            addrs.push(base.wrapping_add(off as u64));
            off += size;
            rest = rest.get(size..).unwrap_or(&[]);
        }
        Program {
            base,
            insts,
            addrs,
            slot,
        }
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
    use crate::{Decoder, Gpu, Inst};
    use proptest::prelude::*;

    /// The program decoded without the memo: one `decode` after another.
    fn naive(d: &Decoder, bytes: &[u8], base: u64) -> Vec<(u64, Inst)> {
        let mut out = Vec::new();
        let mut off = 0;
        while off < bytes.len() {
            let rest = &bytes[off..];
            let inst = d.decode(rest).unwrap_or_else(|_| {
                let n = rest.len().min(4);
                let mut w = [0u8; 4];
                w[..n].copy_from_slice(&rest[..n]);
                let mut i = Inst::invalid(u32::from_le_bytes(w));
                i.size = n as u8;
                i
            });
            out.push((base + off as u64, inst));
            off += inst.size_bytes().max(1);
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Programs built from a few distinct dwords (so that instructions
        /// repeat, share first dwords and collide in the memo) decode exactly as
        /// instruction-by-instruction decoding does.
        #[test]
        fn memo_never_changes_a_result(
            pool in proptest::collection::vec(any::<u32>(), 1..6),
            prefixes in proptest::collection::vec(0usize..10, 6),
            picks in proptest::collection::vec(0usize..6, 1..80),
            tail in 0usize..4,
            gpu in 0usize..6,
            wave64 in any::<bool>(),
        ) {
            // Prefixes of the frequent families, with a literal (255) or an
            // SDWA marker in the source field for some.
            const PREFIX: [(u32, u32); 10] = [
                (0xbe80_0000, 0xff80_0000), // SOP1
                (0xbf80_0000, 0xff80_0000), // SOPP
                (0x7e00_0000, 0xfe00_0000), // VOP1
                (0x0000_00ff, 0x8000_00ff), // VOP2 with a literal
                (0x7e00_00f9, 0xfe00_01ff), // VOP1 SDWA
                (0xd000_0000, 0xf800_0000), // VOP3
                (0xdc00_0000, 0xfc00_0000), // FLAT
                (0xe000_0000, 0xfc00_0000), // MUBUF
                (0xc000_0000, 0xfc00_0000), // SMEM (GFX9)
                (0xf400_0000, 0xfc00_0000), // SMEM (GFX10)
            ];
            let words: Vec<u32> = pool
                .iter()
                .zip(&prefixes)
                .map(|(w, &p)| {
                    let (v, m) = PREFIX[p];
                    (w & !m) | v
                })
                .collect();
            let mut bytes: Vec<u8> = picks
                .iter()
                .flat_map(|&k| words[k % words.len()].to_le_bytes())
                .collect();
            bytes.truncate(bytes.len().saturating_sub(tail));
            let d = Decoder::new(Gpu::ALL[gpu], wave64);
            let p = d.decode_program(&bytes, 0x1000);
            let got: Vec<(u64, Inst)> = p.iter().map(|(a, i)| (a, *i)).collect();
            prop_assert_eq!(got, naive(&d, &bytes, 0x1000));
        }
    }

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
