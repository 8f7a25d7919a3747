//! Dynamic relocations (`SHT_RELA` sections such as `.rela.dyn`): what a
//! loader patches after mapping a code object at a load bias. A linked code
//! object carries them for data that holds addresses, e.g. a `__device__`
//! pointer initialised with another global's address (`R_AMDGPU_RELATIVE64`)
//! or a pointer to an external symbol (`R_AMDGPU_ABS64`).

use crate::{CodeObject, Error};
use object::elf;

/// `R_AMDGPU_*` relocation types (LLVM `ELFRelocs/AMDGPU.def`).
pub mod kind {
    /// No relocation.
    pub const NONE: u32 = 0;
    /// `(S + A) & 0xffffffff`.
    pub const ABS32_LO: u32 = 1;
    /// `(S + A) >> 32`.
    pub const ABS32_HI: u32 = 2;
    /// `S + A`, 64 bits.
    pub const ABS64: u32 = 3;
    /// `S + A`, 32 bits.
    pub const ABS32: u32 = 6;
    /// `B + A`, 64 bits: the load bias plus the addend.
    pub const RELATIVE64: u32 = 13;
}

/// One dynamic relocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DynReloc {
    /// `r_offset`: the link-time address patched.
    pub offset: u64,
    /// `R_AMDGPU_*` type ([`kind`]).
    pub kind: u32,
    /// The symbol's link-time value, when the relocation names a defined
    /// symbol (`None` for symbol index 0).
    pub symbol: Option<u64>,
    /// Whether the named symbol is undefined (`st_shndx == SHN_UNDEF`).
    pub undefined: bool,
    /// `r_addend`.
    pub addend: i64,
}

fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
}

impl CodeObject<'_> {
    /// The relocations of every `SHT_RELA` section that applies to loaded
    /// memory (dynamic relocations), with their symbols' values from
    /// `.dynsym`.
    pub fn dynamic_relocations(&self) -> Result<Vec<DynReloc>, Error> {
        let dynsym = self.sections().iter().find(|s| s.kind == elf::SHT_DYNSYM);
        let bad = |reason: String| Error::BadSection {
            section: ".rela.dyn".into(),
            reason,
        };
        let mut out = Vec::new();
        for s in self
            .sections()
            .iter()
            .filter(|s| s.kind == elf::SHT_RELA && s.is_alloc())
        {
            if s.data.len() % 24 != 0 {
                return Err(bad(format!(
                    "{} bytes is not a whole number of entries",
                    s.data.len()
                )));
            }
            for e in s.data.chunks_exact(24) {
                let offset = u64_at(e, 0).unwrap_or_default();
                let info = u64_at(e, 8).unwrap_or_default();
                let addend = u64_at(e, 16).unwrap_or_default() as i64;
                let (sym, kind) = ((info >> 32) as usize, info as u32);
                let (symbol, undefined) = if sym == 0 {
                    (None, false)
                } else {
                    let t = dynsym.ok_or_else(|| bad(format!("symbol {sym} but no .dynsym")))?;
                    let ent = t
                        .data
                        .get(sym * 24..sym * 24 + 24)
                        .ok_or_else(|| bad(format!("symbol {sym} past the end of .dynsym")))?;
                    let shndx = u16::from_le_bytes([ent[6], ent[7]]);
                    (u64_at(ent, 8), shndx == elf::SHN_UNDEF)
                };
                out.push(DynReloc {
                    offset,
                    kind,
                    symbol,
                    undefined,
                    addend,
                });
            }
        }
        Ok(out)
    }
}
