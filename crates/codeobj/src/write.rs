//! Rewriting the sections of a code object: new contents for existing sections, new
//! non-allocated sections, emptied sections. The original file is kept byte for byte
//! (so every loaded byte stays where it was); the new contents, a new `.shstrtab` and a
//! new section header table are appended after it, each 8-byte aligned, and the ELF
//! header is pointed at the new table. Only section headers change: the program headers
//! and the segments they load are untouched, which is what a tool that rewrites the
//! debug information of a linked code object needs (ELF64 little-endian, as every
//! AMDGPU code object is; System V ABI, "Sections").

use crate::Error;

const SHT_PROGBITS: u32 = 1;
const SHT_RELA: u32 = 4;
const SHT_NOBITS: u32 = 8;
const SHT_REL: u32 = 9;
/// `SHF_MERGE | SHF_STRINGS`.
const SHF_MERGE_STRINGS: u64 = 0x30;

/// New contents for one section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionData<'a> {
    /// The section's name (`.debug_info`).
    pub name: &'a str,
    /// Its contents. Empty contents for a section the file does not have add nothing.
    pub data: &'a [u8],
    /// For a section that is added: whether it holds NUL-terminated strings
    /// (`SHF_MERGE | SHF_STRINGS`, entry size 1, as the DWARF string sections);
    /// otherwise it is a plain `SHT_PROGBITS` section. Ignored for an existing section,
    /// which keeps its type and flags.
    pub strings: bool,
}

/// What [`rewrite_sections`] writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rewrite<'a> {
    /// New contents, written in this order after the original file; each replaces the
    /// section of that name, or adds a non-allocated section.
    pub sections: &'a [SectionData<'a>],
    /// Sections to empty (their size becomes 0), when the file has them: contents made
    /// stale by the new ones (an index into a section that was replaced).
    pub empty: &'a [&'a str],
}

fn bad(why: impl Into<String>) -> Error {
    Error::Rewrite(why.into())
}

fn u16_at(b: &[u8], o: usize) -> Result<u16, Error> {
    b.get(o..o + 2)
        .map(|x| u16::from_le_bytes([x[0], x[1]]))
        .ok_or_else(|| bad("truncated header"))
}

fn u32_at(b: &[u8], o: usize) -> Result<u32, Error> {
    b.get(o..o + 4)
        .and_then(|x| x.try_into().ok())
        .map(u32::from_le_bytes)
        .ok_or_else(|| bad("truncated header"))
}

fn u64_at(b: &[u8], o: usize) -> Result<u64, Error> {
    b.get(o..o + 8)
        .and_then(|x| x.try_into().ok())
        .map(u64::from_le_bytes)
        .ok_or_else(|| bad("truncated header"))
}

/// One `Elf64_Shdr`.
#[derive(Clone, Debug)]
struct Shdr {
    name: u32,
    typ: u32,
    flags: u64,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

impl Shdr {
    fn parse(b: &[u8], o: usize) -> Result<Shdr, Error> {
        Ok(Shdr {
            name: u32_at(b, o)?,
            typ: u32_at(b, o + 4)?,
            flags: u64_at(b, o + 8)?,
            addr: u64_at(b, o + 16)?,
            offset: u64_at(b, o + 24)?,
            size: u64_at(b, o + 32)?,
            link: u32_at(b, o + 40)?,
            info: u32_at(b, o + 44)?,
            align: u64_at(b, o + 48)?,
            entsize: u64_at(b, o + 56)?,
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.name.to_le_bytes());
        out.extend_from_slice(&self.typ.to_le_bytes());
        out.extend_from_slice(&self.flags.to_le_bytes());
        out.extend_from_slice(&self.addr.to_le_bytes());
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.size.to_le_bytes());
        out.extend_from_slice(&self.link.to_le_bytes());
        out.extend_from_slice(&self.info.to_le_bytes());
        out.extend_from_slice(&self.align.to_le_bytes());
        out.extend_from_slice(&self.entsize.to_le_bytes());
    }
}

fn align(out: &mut Vec<u8>, a: usize) {
    while out.len() % a != 0 {
        out.push(0);
    }
}

/// The section headers of a file, their names and its section name table.
struct Headers {
    shdrs: Vec<Shdr>,
    names: Vec<String>,
    /// The bytes of `.shstrtab`, to which added names are appended.
    shstr: Vec<u8>,
    shstrndx: usize,
}

impl Headers {
    /// Reads and checks the section header table of `bytes`.
    fn read(bytes: &[u8]) -> Result<Headers, Error> {
        if bytes.len() < 64 || bytes[..4] != [0x7f, b'E', b'L', b'F'] {
            return Err(bad("not an ELF file"));
        }
        if bytes[4] != 2 || bytes[5] != 1 {
            return Err(bad("not a little-endian ELF64 file"));
        }
        let shoff = u64_at(bytes, 0x28)? as usize;
        let shentsize = u16_at(bytes, 0x3a)? as usize;
        let shnum = u16_at(bytes, 0x3c)? as usize;
        let shstrndx = u16_at(bytes, 0x3e)? as usize;
        if shentsize != 64 {
            return Err(bad("section header entries are not 64 bytes"));
        }
        if shnum == 0 || shstrndx >= shnum {
            return Err(bad(
                "no section headers, or extended section numbering (not supported)",
            ));
        }
        let end = shnum
            .checked_mul(64)
            .and_then(|n| n.checked_add(shoff))
            .ok_or_else(|| bad("section header table out of range"))?;
        if end > bytes.len() {
            return Err(bad("section header table beyond the end of the file"));
        }
        let shdrs = (0..shnum)
            .map(|i| Shdr::parse(bytes, shoff + i * 64))
            .collect::<Result<Vec<_>, _>>()?;
        let strtab = &shdrs[shstrndx];
        let s0 = strtab.offset as usize;
        let s1 = s0
            .checked_add(strtab.size as usize)
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| bad(".shstrtab out of range"))?;
        let tab = &bytes[s0..s1];
        let mut names = Vec::with_capacity(shnum);
        for h in &shdrs {
            if h.typ != SHT_NOBITS && h.typ != 0 {
                let e = h.offset.checked_add(h.size);
                if e.is_none_or(|e| e > bytes.len() as u64) {
                    return Err(bad("a section lies beyond the end of the file"));
                }
            }
            names.push(name_at(tab, h.name as usize)?);
        }
        Ok(Headers {
            shdrs,
            names,
            shstr: tab.to_vec(),
            shstrndx,
        })
    }

    /// Refuses to rewrite a section that relocations apply to: they would be stale.
    fn check_relocations(&self, rewritten: &[&str]) -> Result<(), Error> {
        for h in &self.shdrs {
            if (h.typ == SHT_RELA || h.typ == SHT_REL)
                && let Some(target) = self.names.get(h.info as usize)
                && rewritten.contains(&target.as_str())
            {
                return Err(bad(format!(
                    "{target} has relocations (a relocatable object?)"
                )));
            }
        }
        Ok(())
    }

    /// Points section `name` at `data`, appended to `out` (8-byte aligned), or adds it.
    fn place(&mut self, out: &mut Vec<u8>, s: &SectionData) {
        let existing = self.names.iter().position(|n| n == s.name);
        if s.data.is_empty() && existing.is_none() {
            return;
        }
        align(out, 8);
        let offset = out.len() as u64;
        out.extend_from_slice(s.data);
        let size = s.data.len() as u64;
        if let Some(i) = existing {
            self.shdrs[i].offset = offset;
            self.shdrs[i].size = size;
            return;
        }
        let name = self.shstr.len() as u32;
        self.shstr.extend_from_slice(s.name.as_bytes());
        self.shstr.push(0);
        self.shdrs.push(Shdr {
            name,
            typ: SHT_PROGBITS,
            flags: if s.strings { SHF_MERGE_STRINGS } else { 0 },
            addr: 0,
            offset,
            size,
            link: 0,
            info: 0,
            align: 1,
            entsize: u64::from(s.strings),
        });
        self.names.push(s.name.to_string());
    }
}

/// The NUL-terminated name at offset `n` of a section name table.
fn name_at(tab: &[u8], n: usize) -> Result<String, Error> {
    let rest = tab
        .get(n..)
        .ok_or_else(|| bad("a section name lies outside .shstrtab"))?;
    let len = rest
        .iter()
        .position(|&c| c == 0)
        .ok_or_else(|| bad("an unterminated section name"))?;
    Ok(String::from_utf8_lossy(&rest[..len]).into_owned())
}

/// The ELF file `bytes` with its sections rewritten as `rewrite` says: the original
/// bytes, then the new contents in order, the new `.shstrtab` and the new section
/// header table. Relocations that apply to a rewritten or emptied section are an
/// error, as is anything the section header table does not describe consistently.
pub fn rewrite_sections(bytes: &[u8], rewrite: &Rewrite) -> Result<Vec<u8>, Error> {
    let mut h = Headers::read(bytes)?;
    let touched: Vec<&str> = rewrite
        .sections
        .iter()
        .map(|s| s.name)
        .chain(rewrite.empty.iter().copied())
        .collect();
    h.check_relocations(&touched)?;
    let mut out = bytes.to_vec();
    for s in rewrite.sections {
        h.place(&mut out, s);
    }
    for (i, n) in h.names.iter().enumerate() {
        if rewrite.empty.contains(&n.as_str()) {
            h.shdrs[i].size = 0;
        }
    }
    let shstr_off = out.len() as u64;
    out.extend_from_slice(&h.shstr);
    h.shdrs[h.shstrndx].offset = shstr_off;
    h.shdrs[h.shstrndx].size = h.shstr.len() as u64;
    align(&mut out, 8);
    let table = out.len() as u64;
    for s in &h.shdrs {
        s.write(&mut out);
    }
    let count = u16::try_from(h.shdrs.len())
        .ok()
        .filter(|&n| n < 0xff00)
        .ok_or_else(|| bad("too many sections"))?;
    out[0x28..0x30].copy_from_slice(&table.to_le_bytes());
    out[0x3c..0x3e].copy_from_slice(&count.to_le_bytes());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CodeObject;
    use object::{Object, ObjectSection};

    fn code_object(target: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../kernels/bin")
            .join(target)
            .join("vector_add.O0g.co");
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn section<'a>(f: &'a object::File, name: &str) -> Option<object::Section<'a, 'a>> {
        f.sections().find(|s| s.name() == Ok(name))
    }

    #[test]
    fn a_replaced_section_reads_back_and_loaded_bytes_stay() {
        for target in ["gfx900", "gfx1030"] {
            let bytes = code_object(target);
            let info = vec![0xabu8; 37];
            let sections = [SectionData {
                name: ".debug_info",
                data: &info,
                strings: false,
            }];
            let out = rewrite_sections(
                &bytes,
                &Rewrite {
                    sections: &sections,
                    empty: &[],
                },
            )
            .unwrap();
            // The original stays, but for the header's e_shoff and e_shnum.
            let same = |r: std::ops::Range<usize>| out[r.clone()] == bytes[r];
            assert!(
                same(0..0x28) && same(0x30..0x3c) && same(0x3e..bytes.len()),
                "{target}"
            );
            let f = object::File::parse(&*out).unwrap();
            let s = section(&f, ".debug_info").unwrap();
            assert_eq!(s.data().unwrap(), &info[..], "{target}");
            let (off, _) = s.file_range().unwrap();
            assert!(
                off >= bytes.len() as u64 && off % 8 == 0,
                "{target}: {off:#x}"
            );
            // Every other section is where it was.
            let before = object::File::parse(&*bytes).unwrap();
            for s in before.sections().filter(|s| s.name() != Ok(".debug_info")) {
                let name = s.name().unwrap();
                if name == ".shstrtab" {
                    continue;
                }
                let t = section(&f, name).unwrap();
                assert_eq!(t.file_range(), s.file_range(), "{target} {name}");
                assert_eq!(t.address(), s.address(), "{target} {name}");
            }
            // The reader of this crate sees the same code object.
            let a = CodeObject::parse(&bytes).unwrap();
            let b = CodeObject::parse(&out).unwrap();
            assert_eq!(a.target(), b.target());
            assert_eq!(a.text().bytes, b.text().bytes);
            assert_eq!(b.section_data(".debug_info"), Some(&info[..]));
        }
    }

    #[test]
    fn added_and_emptied_sections() {
        let bytes = code_object("gfx900");
        let strs = b"a\0bc\0";
        let sections = [
            SectionData {
                name: ".debug_extra",
                data: b"xyz",
                strings: false,
            },
            SectionData {
                name: ".debug_more_str",
                data: strs,
                strings: true,
            },
            SectionData {
                name: ".debug_nothing",
                data: &[],
                strings: false,
            },
        ];
        let out = rewrite_sections(
            &bytes,
            &Rewrite {
                sections: &sections,
                empty: &[".debug_abbrev", ".no_such_section"],
            },
        )
        .unwrap();
        let f = object::File::parse(&*out).unwrap();
        let before = object::File::parse(&*bytes).unwrap();
        assert_eq!(f.sections().count(), before.sections().count() + 2);
        let extra = section(&f, ".debug_extra").unwrap();
        assert_eq!(extra.data().unwrap(), b"xyz");
        let more = section(&f, ".debug_more_str").unwrap();
        assert_eq!(more.data().unwrap(), strs);
        let object::SectionFlags::Elf { sh_flags } = more.flags() else {
            panic!("not ELF flags");
        };
        assert_eq!(sh_flags, SHF_MERGE_STRINGS);
        for s in [&extra, &more] {
            assert_eq!(s.file_range().unwrap().0 % 8, 0);
            assert_eq!(s.address(), 0, "not loaded");
        }
        assert!(section(&f, ".debug_nothing").is_none());
        assert_eq!(section(&f, ".debug_abbrev").unwrap().size(), 0);
        // The header table is 8-byte aligned at the end of the file.
        let shoff = u64::from_le_bytes(out[0x28..0x30].try_into().unwrap());
        let shnum = u16::from_le_bytes([out[0x3c], out[0x3d]]) as u64;
        assert_eq!(shoff % 8, 0);
        assert_eq!(shoff + 64 * shnum, out.len() as u64);
        assert!(CodeObject::parse(&out).is_ok());
    }

    #[test]
    fn what_is_not_a_consistent_elf_file_is_an_error() {
        let r = Rewrite::default();
        assert!(matches!(rewrite_sections(&[], &r), Err(Error::Rewrite(_))));
        let mut bytes = code_object("gfx900");
        assert_eq!(
            rewrite_sections(&bytes, &r).map(|o| o.len() > bytes.len()),
            Ok(true)
        );
        // Section headers past the end of the file.
        let len = bytes.len() as u64;
        bytes[0x28..0x30].copy_from_slice(&len.to_le_bytes());
        assert!(matches!(
            rewrite_sections(&bytes, &r),
            Err(Error::Rewrite(_))
        ));
        let mut bytes = code_object("gfx900");
        bytes[4] = 1;
        assert!(matches!(
            rewrite_sections(&bytes, &r),
            Err(Error::Rewrite(_))
        ));
        // Every truncation of the header is an error, never a panic.
        let bytes = code_object("gfx900");
        for n in 0..64 {
            assert!(rewrite_sections(&bytes[..n], &r).is_err());
        }
    }
}
