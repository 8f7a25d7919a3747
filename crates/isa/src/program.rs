//! A code region decoded once into instructions indexed by address.

use crate::decode::Decoder;
use crate::inst::Inst;

/// A decoded code region: every instruction, in order, with its address.
///
/// `decoded` holds the instructions in address order; decoding stores
/// nothing else. The address of each instruction follows from the sizes of
/// the ones before it, so the two lookup indexes are built from `decoded` on
/// first use: `starts` (the dword offset of each instruction's start, for
/// [`Program::address`] and [`Program::index_of`]) and `slot` (for each
/// dword offset from the base, the number of the instruction that starts
/// there, or `u32::MAX` inside an instruction, for [`Program::at`]). Once
/// built, lookup by address and by instruction number ([`Program::get`]) are
/// O(1), and so is walking the instructions in order ([`Program::iter`]).
/// Instructions start at dword offsets (every size but a truncated tail's is
/// a multiple of four), and a region holds fewer than 2^32 of them.
///
/// Every instruction is decoded and stored, repeats included: decoding is
/// cheaper than looking a repeat up (whether an instruction repeats one
/// decoded before is unpredictable, and a mispredicted lookup costs more than
/// the decoding it saves). Storage for the most instructions a region can
/// hold (one per dword) is reserved up front, so decoding never reallocates.
/// The slot map is not filled while decoding: its stores (4 bytes per dword,
/// on top of each instruction's) would be paid by every decode, and only
/// lookups by address need it.
#[derive(Clone, Debug, Default)]
pub struct Program {
    base: u64,
    /// Length of the region in dwords (a truncated tail counts as one).
    dwords: usize,
    decoded: Vec<Inst>,
    /// Instruction number starting at each dword offset (built on first use).
    slot: std::sync::OnceLock<Vec<u32>>,
    /// Dword offset of each instruction's start, in order (built on first use).
    starts: std::sync::OnceLock<Vec<u32>>,
}

/// The byte offsets of the instructions' starts, from their sizes (as
/// [`Program::decode`] steps on: by the size, at least one byte).
fn offsets(decoded: &[Inst]) -> impl Iterator<Item = usize> + '_ {
    decoded.iter().scan(0usize, |off, inst| {
        let at = *off;
        *off = at.saturating_add(inst.size_bytes().max(1));
        Some(at)
    })
}

/// Stores the truncated tail `rest` (the input ends inside an instruction)
/// as an invalid entry holding its bytes; returns its length.
#[cold]
#[inline(never)]
fn truncated_tail(rest: &[u8], inst: &mut Inst) -> usize {
    let n = rest.len().min(4);
    let mut w = [0u8; 4];
    w[..n].copy_from_slice(&rest[..n]);
    *inst = Inst::invalid(u32::from_le_bytes(w));
    inst.size = n as u8;
    n
}

impl Decoder {
    /// Decodes a whole code region starting at `address` into a [`Program`].
    /// Decoding continues past invalid words; truncated trailing bytes become a
    /// final invalid entry, so nothing decoded before them is lost.
    pub fn decode_program(&self, bytes: &[u8], address: u64) -> Program {
        Program::decode(self, bytes, address)
    }
}

impl Program {
    /// Decodes `bytes` (the code at `base`) instruction by instruction, each
    /// decoded in place into its element of `decoded`.
    pub(crate) fn decode(dec: &Decoder, bytes: &[u8], base: u64) -> Program {
        // Every instruction but a truncated tail is at least 4 bytes long, so
        // this capacity is never exceeded (no reallocation while decoding).
        let most = bytes.len().div_ceil(4);
        let mut decoded: Vec<Inst> = Vec::with_capacity(most);
        // Byte offset of the next instruction. Each step moves it on by the
        // decoded size (at least 4, or the length of a truncated tail);
        // the capacity test below bounds the loop whatever the sizes.
        let mut off = 0;
        while let Some(rest) = bytes.get(off..).filter(|r| !r.is_empty()) {
            if decoded.len() == decoded.capacity() {
                // Never: each instruction takes at least 4 bytes but a
                // truncated tail, which ends the input. Tested here so that
                // `push` below cannot reallocate (its growing path is then
                // dead code and the vector stays in registers).
                break;
            }
            // Decoded in place: the new element is written where it stays.
            decoded.push(Inst::DEFAULT);
            let Some(inst) = decoded.last_mut() else {
                break;
            };
            // (The new element holds `Inst::DEFAULT`, as the decoder
            // requires: no reset needed.)
            // The size comes back in a register (no read of `inst.size`).
            off += match crate::decode::decode_into(dec, rest, inst) {
                Ok(size) => size,
                Err(_) => truncated_tail(rest, inst),
            };
        }
        Program {
            base,
            dwords: most,
            decoded,
            slot: std::sync::OnceLock::new(),
            starts: std::sync::OnceLock::new(),
        }
    }

    /// The dword offsets of the instruction starts, in order.
    fn starts(&self) -> &[u32] {
        self.starts.get_or_init(|| {
            let mut v = Vec::with_capacity(self.decoded.len());
            v.extend(offsets(&self.decoded).map(|off| (off / 4) as u32));
            v
        })
    }

    /// The slot map: the number of the instruction starting at each dword
    /// offset, `u32::MAX` where none does.
    fn slot(&self) -> &[u32] {
        self.slot.get_or_init(|| {
            let mut v = vec![u32::MAX; self.dwords];
            for (n, &k) in self.starts().iter().enumerate() {
                if let Some(s) = v.get_mut(k as usize) {
                    *s = u32::try_from(n).unwrap_or(u32::MAX);
                }
            }
            v
        })
    }

    /// The address of the first byte.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.decoded.len()
    }

    /// Whether the program has no instruction.
    pub fn is_empty(&self) -> bool {
        self.decoded.is_empty()
    }

    /// Instruction number `index` (in address order).
    pub fn get(&self, index: usize) -> Option<&Inst> {
        self.decoded.get(index)
    }

    /// Instructions with their addresses, in address order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &Inst)> {
        offsets(&self.decoded)
            .zip(&self.decoded)
            .map(|(off, inst)| (self.base.wrapping_add(4 * (off / 4) as u64), inst))
    }

    /// All instructions in address order.
    pub fn insts(&self) -> impl Iterator<Item = &Inst> {
        self.decoded.iter()
    }

    /// The number of the instruction that starts at `addr`, if one does.
    pub fn index_of(&self, addr: u64) -> Option<usize> {
        self.at(addr)?;
        let k = u32::try_from(addr.wrapping_sub(self.base) / 4).ok()?;
        self.starts().binary_search(&k).ok()
    }

    /// The instruction that starts at `addr`, if one does.
    #[inline]
    pub fn at(&self, addr: u64) -> Option<&Inst> {
        let off = addr.checked_sub(self.base)?;
        if off % 4 != 0 {
            return None;
        }
        match *self.slot().get(usize::try_from(off / 4).ok()?)? {
            u32::MAX => None,
            i => self.decoded.get(i as usize),
        }
    }

    /// The address of instruction number `index`.
    pub fn address(&self, index: usize) -> Option<u64> {
        let k = *self.starts().get(index)?;
        Some(self.base.wrapping_add(4 * u64::from(k)))
    }
}

#[cfg(test)]
mod tests {
    use crate::{Decoder, Gpu, Inst};
    use proptest::prelude::*;

    /// The program decoded one `decode` after another.
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
        /// repeat and share first dwords) decode exactly as
        /// instruction-by-instruction decoding does.
        #[test]
        fn programs_decode_like_one_instruction_after_another(
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
            // Lookups by number and by address agree with the walk.
            prop_assert_eq!(p.len(), got.len());
            for (n, (addr, inst)) in got.iter().enumerate() {
                prop_assert_eq!(p.get(n), Some(inst));
                prop_assert_eq!(p.address(n), Some(*addr));
                prop_assert_eq!(p.index_of(*addr), Some(n));
                prop_assert_eq!(p.at(*addr), Some(inst));
            }
            prop_assert_eq!(p.get(got.len()), None);
            prop_assert_eq!(got, naive(&d, &bytes, 0x1000));
        }
    }

    #[test]
    fn lookups_agree_whenever_the_indexes_are_built() {
        // s_mov_b32 s0, 0x12345678 (with a literal), s_nop 0, s_endpgm.
        let words: [u32; 4] = [0xbe80_03ff, 0x1234_5678, 0xbf80_0000, 0xbf81_0000];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let d = Decoder::new(Gpu::Gfx1030, false);
        let fresh = d.decode_program(&bytes, 0x40);
        // A clone taken before any lookup, one after every index was built.
        let early = fresh.clone();
        assert_eq!(
            fresh.at(0x48).map(|i| i.to_string()).as_deref(),
            Some("s_nop 0")
        );
        assert_eq!(fresh.address(2), Some(0x4c));
        let late = fresh.clone();
        for p in [&fresh, &early, &late] {
            assert_eq!(p.len(), 3);
            assert_eq!(p.at(0x44), None, "inside the literal");
            assert_eq!(p.at(0x42), None, "not a dword");
            assert_eq!(p.at(0x50), None, "past the end");
            assert_eq!(p.at(0x3c), None, "before the start");
            assert_eq!(p.index_of(0x4c), Some(2));
            assert_eq!(p.address(1), Some(0x48));
            assert_eq!(p.address(3), None);
            let addrs: Vec<u64> = p.iter().map(|(a, _)| a).collect();
            assert_eq!(addrs, [0x40, 0x48, 0x4c]);
            assert_eq!(
                p.at(0x40).map(|i| i.to_string()).as_deref(),
                Some("s_mov_b32 s0, 0x12345678")
            );
        }
    }

    #[test]
    fn truncated_tail_is_kept() {
        let d = Decoder::new(Gpu::Gfx900, true);
        let p = d.decode_program(&[0, 0, 0x81, 0xbf, 0x12, 0x34], 0x100);
        assert_eq!(p.len(), 2);
        assert_eq!(p.insts().count(), 2);
        assert_eq!(p.index_of(0x104), Some(1));
        assert_eq!(p.index_of(0x102), None);
        assert_eq!(p.at(0x104).map(|i| i.size_bytes()), Some(2));
    }

    #[test]
    fn repeats_are_stored_in_order() {
        // s_nop 0 three times, s_mov_b32 s0, 1, s_nop 0, s_endpgm.
        let words: [u32; 6] = [
            0xbf80_0000,
            0xbf80_0000,
            0xbf80_0000,
            0xbe80_0081,
            0xbf80_0000,
            0xbf81_0000,
        ];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let d = Decoder::new(Gpu::Gfx900, true);
        let p = d.decode_program(&bytes, 0x100);
        assert_eq!(p.len(), 6);
        assert_eq!(p.at(0x100), p.at(0x110));
        assert!(std::ptr::eq(p.at(0x110).unwrap(), p.get(4).unwrap()));
        assert_eq!(p.index_of(0x110), Some(4));
        assert_eq!(p.get(3), p.at(0x10c));
        assert_eq!(p.address(5), Some(0x114));
        let names: Vec<String> = p.insts().map(|i| i.to_string()).collect();
        assert_eq!(names[3], "s_mov_b32 s0, 1");
        assert_eq!(names[5], "s_endpgm");
    }
}
