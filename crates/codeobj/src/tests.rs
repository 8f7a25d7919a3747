//! Whole-file tests: synthesized code objects (a minimal ELF writer below),
//! every error path, the committed kernels when present, and a proptest that
//! feeds mutated files and random bytes to the parser.

use crate::*;
use amdgpu_isa::Processor;
use proptest::prelude::*;
use rmpv::Value;

/// A section to write: name, type, flags, address, contents, link, entsize.
struct Sec {
    name: &'static str,
    kind: u32,
    flags: u64,
    addr: u64,
    data: Vec<u8>,
    link: u32,
    info: u32,
    entsize: u64,
}

/// A symbol to write: name, value, size, type, section index.
struct SymSpec {
    name: String,
    value: u64,
    size: u64,
    st_type: u8,
    shndx: u16,
}

/// Builds a small ET_DYN AMDGPU code object (no program headers).
struct ElfBuilder {
    abi_version: u8,
    e_flags: u32,
    e_type: u16,
    machine: u16,
    sections: Vec<Sec>,
    symbols: Vec<SymSpec>,
}

fn note(desc: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&7u32.to_le_bytes());
    v.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    v.extend_from_slice(&32u32.to_le_bytes());
    v.extend_from_slice(b"AMDGPU\0\0");
    v.extend_from_slice(desc);
    while v.len() % 4 != 0 {
        v.push(0);
    }
    v
}

impl ElfBuilder {
    fn new(gpu: Processor, abi_version: u8) -> Self {
        ElfBuilder {
            abi_version,
            e_flags: gpu as u32,
            e_type: 3,
            machine: 224,
            sections: Vec::new(),
            symbols: Vec::new(),
        }
    }

    fn section(
        &mut self,
        name: &'static str,
        kind: u32,
        flags: u64,
        addr: u64,
        data: Vec<u8>,
    ) -> u16 {
        self.sections.push(Sec {
            name,
            kind,
            flags,
            addr,
            data,
            link: 0,
            info: 0,
            entsize: 0,
        });
        // Index 0 is the null section.
        self.sections.len() as u16
    }

    fn symbol(&mut self, name: &str, value: u64, size: u64, st_type: u8, shndx: u16) {
        self.symbols.push(SymSpec {
            name: name.to_string(),
            value,
            size,
            st_type,
            shndx,
        });
    }

    fn build(mut self) -> Vec<u8> {
        // .strtab and .symtab
        let mut strtab = vec![0u8];
        let mut symtab = vec![0u8; 24];
        for s in &self.symbols {
            let name_off = strtab.len() as u32;
            strtab.extend_from_slice(s.name.as_bytes());
            strtab.push(0);
            symtab.extend_from_slice(&name_off.to_le_bytes());
            symtab.push(0x10 | s.st_type); // STB_GLOBAL
            symtab.push(0);
            symtab.extend_from_slice(&s.shndx.to_le_bytes());
            symtab.extend_from_slice(&s.value.to_le_bytes());
            symtab.extend_from_slice(&s.size.to_le_bytes());
        }
        let strtab_index = self.sections.len() as u32 + 2;
        self.sections.push(Sec {
            name: ".symtab",
            kind: 2,
            flags: 0,
            addr: 0,
            data: symtab,
            link: strtab_index,
            info: 1,
            entsize: 24,
        });
        self.section(".strtab", 3, 0, 0, strtab);
        let mut shstrtab = vec![0u8];
        let mut name_offs = Vec::new();
        for s in &self.sections {
            name_offs.push(shstrtab.len() as u32);
            shstrtab.extend_from_slice(s.name.as_bytes());
            shstrtab.push(0);
        }
        name_offs.push(shstrtab.len() as u32);
        shstrtab.extend_from_slice(b".shstrtab\0");
        self.section(".shstrtab", 3, 0, 0, shstrtab);

        let mut out = vec![0u8; 64];
        let mut offsets = Vec::new();
        for s in &self.sections {
            while out.len() % 8 != 0 {
                out.push(0);
            }
            offsets.push(out.len() as u64);
            out.extend_from_slice(&s.data);
        }
        while out.len() % 8 != 0 {
            out.push(0);
        }
        let shoff = out.len() as u64;
        out.extend_from_slice(&[0u8; 64]);
        for (i, s) in self.sections.iter().enumerate() {
            let mut h = Vec::with_capacity(64);
            h.extend_from_slice(&name_offs[i].to_le_bytes());
            h.extend_from_slice(&s.kind.to_le_bytes());
            h.extend_from_slice(&s.flags.to_le_bytes());
            h.extend_from_slice(&s.addr.to_le_bytes());
            h.extend_from_slice(&offsets[i].to_le_bytes());
            h.extend_from_slice(&(s.data.len() as u64).to_le_bytes());
            h.extend_from_slice(&s.link.to_le_bytes());
            h.extend_from_slice(&s.info.to_le_bytes());
            let align: u64 = if s.kind == 7 { 4 } else { 8 };
            h.extend_from_slice(&align.to_le_bytes());
            h.extend_from_slice(&s.entsize.to_le_bytes());
            out.extend_from_slice(&h);
        }
        let shnum = self.sections.len() as u16 + 1;
        let hdr = &mut out[..64];
        hdr[..4].copy_from_slice(b"\x7fELF");
        hdr[4] = 2;
        hdr[5] = 1;
        hdr[6] = 1;
        hdr[7] = 64;
        hdr[8] = self.abi_version;
        hdr[16..18].copy_from_slice(&self.e_type.to_le_bytes());
        hdr[18..20].copy_from_slice(&self.machine.to_le_bytes());
        hdr[20..24].copy_from_slice(&1u32.to_le_bytes());
        hdr[40..48].copy_from_slice(&shoff.to_le_bytes());
        hdr[48..52].copy_from_slice(&self.e_flags.to_le_bytes());
        hdr[52..54].copy_from_slice(&64u16.to_le_bytes());
        hdr[54..56].copy_from_slice(&56u16.to_le_bytes());
        hdr[58..60].copy_from_slice(&64u16.to_le_bytes());
        hdr[60..62].copy_from_slice(&shnum.to_le_bytes());
        hdr[62..64].copy_from_slice(&(shnum - 1).to_le_bytes());
        out
    }
}

fn s(x: &str) -> Value {
    Value::from(x)
}

fn kernel_md(name: &str, symbol: &str) -> Value {
    Value::Map(vec![
        (s(".name"), s(name)),
        (s(".symbol"), s(symbol)),
        (s(".kernarg_segment_size"), 16.into()),
        (s(".wavefront_size"), 32.into()),
        (
            s(".args"),
            Value::Array(vec![Value::Map(vec![
                (s(".offset"), 0.into()),
                (s(".size"), 8.into()),
                (s(".value_kind"), s("global_buffer")),
                (s(".address_space"), s("global")),
            ])]),
        ),
    ])
}

fn metadata_note(kernels: Vec<Value>) -> Vec<u8> {
    let doc = Value::Map(vec![
        (s("amdhsa.version"), Value::Array(vec![1.into(), 2.into()])),
        (s("amdhsa.target"), s("amdgcn-amd-amdhsa--gfx1030")),
        (s("amdhsa.kernels"), Value::Array(kernels)),
    ]);
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, &doc).unwrap();
    note(&bytes)
}

/// A descriptor for a wave32 kernel whose code is `entry_offset` bytes after it.
fn kd_bytes(entry_offset: i64) -> [u8; 64] {
    let mut b = [0u8; 64];
    b[0..4].copy_from_slice(&512u32.to_le_bytes());
    b[8..12].copy_from_slice(&16u32.to_le_bytes());
    b[16..24].copy_from_slice(&entry_offset.to_le_bytes());
    b[48..52].copy_from_slice(&0x60af_0042u32.to_le_bytes());
    b[52..56].copy_from_slice(&0x0000_008cu32.to_le_bytes());
    b[56..58].copy_from_slice(&0x0408u16.to_le_bytes());
    b
}

/// A gfx1030 code object with kernel `k` (metadata + `k.kd` + code) and a
/// helper function `f`; `tweak` may alter the builder before writing.
fn sample_with(tweak: impl FnOnce(&mut ElfBuilder, u16, u16)) -> Vec<u8> {
    let mut b = ElfBuilder::new(Processor::Gfx1030, 3);
    b.section(
        ".note",
        7,
        2,
        0x200,
        metadata_note(vec![kernel_md("k", "k.kd")]),
    );
    let rodata = b.section(
        ".rodata",
        1,
        2,
        0x1000,
        kd_bytes(0x1000 - 0x40).to_vec().repeat(2),
    );
    // s_endpgm (GFX10: 0xbf810000) at 0x1fc0 (f) and 0x2000 (k)... the
    // helper first, then the kernel, 256-byte aligned.
    let mut code = vec![0u8; 0x80];
    code[0x40..0x44].copy_from_slice(&0xbf81_0000u32.to_le_bytes());
    code[0x7c..0x80].copy_from_slice(&0xbf81_0000u32.to_le_bytes());
    let text = b.section(".text", 1, 6, 0x1f80, code);
    b.section(".debug_info", 1, 0, 0, vec![1, 2, 3, 4]);
    b.symbol("f", 0x1fc0, 4, 2, text);
    b.symbol("k", 0x2000, 0, 2, text);
    b.symbol("k.kd", 0x1040, 64, 1, rodata);
    tweak(&mut b, rodata, text);
    b.build()
}

fn sample() -> Vec<u8> {
    sample_with(|_, _, _| {})
}

#[test]
fn synthesized_object_decodes() {
    let bytes = sample();
    let co = CodeObject::parse(&bytes).unwrap();
    assert_eq!(co.target().gpu, Processor::Gfx1030);
    assert_eq!(co.code_object_version(), 5);
    assert_eq!(co.target().target_id(), "amdgcn-amd-amdhsa--gfx1030");
    assert_eq!(co.text().address, 0x1f80);
    assert_eq!(co.text().bytes.len(), 0x80);
    assert_eq!(co.section_data(".debug_info"), Some(&[1u8, 2, 3, 4][..]));
    assert_eq!(co.section_data(".debug_line"), None);
    assert_eq!(
        co.debug_section_names().collect::<Vec<_>>(),
        vec![".debug_info"]
    );
    let k = co.kernel("k").unwrap();
    assert_eq!(k.descriptor_address, 0x1040);
    assert_eq!(k.entry_address, 0x1040 + 0x1000 - 0x40);
    assert_eq!(k.wavefront_size(), 32);
    assert_eq!(k.descriptor.group_segment_fixed_size, 512);
    assert_eq!(k.descriptor.to_bytes(), kd_bytes(0x1000 - 0x40));
    let md = k.metadata.as_ref().unwrap();
    assert_eq!(md.wavefront_size, Some(32));
    assert_eq!(md.args[0].value_kind, ValueKind::GlobalBuffer);
    assert_eq!(co.metadata().unwrap().version, Some((1, 2)));
    let kinds: Vec<(&str, SymbolKind)> = co.symbols().iter().map(|s| (s.name, s.kind)).collect();
    assert_eq!(
        kinds,
        vec![
            ("f", SymbolKind::Function),
            ("k", SymbolKind::Kernel),
            ("k.kd", SymbolKind::KernelDescriptor)
        ]
    );
    assert_eq!(co.function_containing(0x1fc2).map(|s| s.name), Some("f"));
    assert_eq!(co.function_containing(0x1fc4), None);
}

#[test]
fn descriptor_without_metadata_is_a_kernel() {
    let bytes = sample_with(|b, rodata, _| {
        b.symbol("raw.kd", 0x1000, 64, 1, rodata);
    });
    let co = CodeObject::parse(&bytes).unwrap();
    let names: Vec<&str> = co.kernels().iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, vec!["k", "raw"]);
    assert!(co.kernel("raw").unwrap().metadata.is_none());
}

#[test]
fn missing_descriptor() {
    let bytes = sample_with(|b, _, _| {
        b.symbols.retain(|s| s.name != "k.kd");
    });
    assert_eq!(
        CodeObject::parse(&bytes).unwrap_err(),
        Error::MissingDescriptor {
            kernel: "k".into(),
            symbol: "k.kd".into()
        }
    );
}

#[test]
fn descriptor_of_wrong_size_or_place() {
    let bytes = sample_with(|b, _, _| {
        if let Some(s) = b.symbols.iter_mut().find(|s| s.name == "k.kd") {
            s.size = 32;
        }
    });
    assert!(matches!(
        CodeObject::parse(&bytes),
        Err(Error::BadDescriptor { symbol, reason }) if symbol == "k.kd" && reason.contains("32")
    ));
    let bytes = sample_with(|b, _, _| {
        if let Some(s) = b.symbols.iter_mut().find(|s| s.name == "k.kd") {
            s.value = 0x1050; // only 0x70 bytes of .rodata remain... 0x30 after
        }
    });
    assert!(matches!(
        CodeObject::parse(&bytes),
        Err(Error::BadDescriptor { .. })
    ));
    let bytes = sample_with(|b, _, _| {
        if let Some(s) = b.symbols.iter_mut().find(|s| s.name == "k.kd") {
            s.shndx = 99;
        }
    });
    assert!(matches!(
        CodeObject::parse(&bytes),
        Err(Error::BadDescriptor { .. })
    ));
}

#[test]
fn header_errors() {
    let good = sample();
    assert_eq!(CodeObject::parse(b"").unwrap_err(), Error::NotElf);
    assert_eq!(CodeObject::parse(b"MZ\x90\x00").unwrap_err(), Error::NotElf);
    assert!(matches!(
        CodeObject::parse(&good[..40]),
        Err(Error::Truncated { .. })
    ));
    let mut bad = good.clone();
    bad[4] = 1;
    assert_eq!(
        CodeObject::parse(&bad).unwrap_err(),
        Error::WrongClass { class: 1, data: 1 }
    );
    let mut bad = good.clone();
    bad[18] = 62; // EM_X86_64
    bad[19] = 0;
    assert_eq!(
        CodeObject::parse(&bad).unwrap_err(),
        Error::WrongMachine(62)
    );
    let mut bad = good.clone();
    bad[7] = 0;
    assert_eq!(CodeObject::parse(&bad).unwrap_err(), Error::WrongOsAbi(0));
    let mut bad = good.clone();
    bad[48] = 0x41; // gfx1100
    assert!(matches!(
        CodeObject::parse(&bad),
        Err(Error::UnknownGpu {
            mach: 0x41,
            name: Some("gfx1100")
        })
    ));
    let mut bad = good.clone();
    bad[16] = 1; // ET_REL
    assert_eq!(CodeObject::parse(&bad).unwrap_err(), Error::Relocatable);
}

#[test]
fn truncation_is_reported_not_panicked() {
    let good = sample();
    for len in 0..good.len() {
        let r = CodeObject::parse(&good[..len]);
        assert!(r.is_err(), "prefix of {len} bytes parsed");
    }
    // Cut inside the section header table: a typed truncation error.
    let r = CodeObject::parse(&good[..good.len() - 10]);
    assert!(matches!(r, Err(Error::Truncated { .. })), "{r:?}");
}

#[test]
fn bad_section_offset() {
    let mut bytes = sample();
    let shoff = u64::from_le_bytes(bytes[40..48].try_into().unwrap()) as usize;
    // Section 1 (.note): sh_offset at +24 in its header.
    let at = shoff + 64 + 24;
    bytes[at..at + 8].copy_from_slice(&0xffff_fff0u64.to_le_bytes());
    assert!(matches!(
        CodeObject::parse(&bytes),
        Err(Error::BadSection { section, .. }) if section == ".note"
    ));
}

#[test]
fn corrupt_and_misshapen_metadata() {
    let bytes = sample_with(|b, _, _| {
        b.sections[0].data = note(&[0x92, 0x01]); // array of 2 with one element
    });
    assert!(matches!(
        CodeObject::parse(&bytes),
        Err(Error::CorruptMetadata(_))
    ));
    let bytes = sample_with(|b, _, _| {
        let mut kmd = kernel_md("k", "k.kd");
        if let Value::Map(m) = &mut kmd {
            m.push((s(".wavefront_size"), s("wide")));
            m.remove(3);
        }
        b.sections[0].data = metadata_note(vec![kmd]);
    });
    assert!(matches!(
        CodeObject::parse(&bytes),
        Err(Error::MetadataShape { path, .. }) if path == "amdhsa.kernels[0].wavefront_size"
    ));
}

#[test]
fn missing_text() {
    let bytes = sample_with(|b, _, _| {
        if let Some(t) = b.sections.iter_mut().find(|s| s.name == ".text") {
            t.name = ".code";
        }
    });
    assert_eq!(
        CodeObject::parse(&bytes).unwrap_err(),
        Error::MissingSection(".text")
    );
}

/// Every committed code object under `kernels/bin` (if the directory has any),
/// read once.
fn committed_code_objects() -> &'static [(std::path::PathBuf, Vec<u8>)] {
    static ALL: std::sync::OnceLock<Vec<(std::path::PathBuf, Vec<u8>)>> =
        std::sync::OnceLock::new();
    ALL.get_or_init(read_committed_code_objects)
}

fn read_committed_code_objects() -> Vec<(std::path::PathBuf, Vec<u8>)> {
    // AMDSIM_KERNELS_DIR may name another corpus root with the same layout.
    let root = match std::env::var_os("AMDSIM_KERNELS_DIR") {
        Some(d) => std::path::PathBuf::from(d).join("bin"),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels/bin"),
    };
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "co") {
                if let Ok(b) = std::fs::read(&p) {
                    out.push((p, b));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn committed_kernels_parse_and_round_trip() {
    assert!(
        !committed_code_objects().is_empty(),
        "no code objects under kernels/bin: build them with kernels/build.sh"
    );
    for (path, bytes) in committed_code_objects() {
        let co = CodeObject::parse(bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!co.kernels().is_empty(), "{}: no kernels", path.display());
        for k in co.kernels() {
            assert!(
                co.text().contains(k.entry_address),
                "{}: {}",
                path.display(),
                k.name
            );
            let sym = co
                .symbols()
                .iter()
                .find(|s| s.name == k.descriptor_symbol)
                .unwrap();
            let sec = &co.sections()[usize::from(sym.section_index)];
            let off = (sym.address - sec.address) as usize;
            assert_eq!(&k.descriptor.to_bytes()[..], &sec.data[off..off + 64]);
        }
    }
}

fn mutate(mut bytes: Vec<u8>, edits: &[(usize, u8)], cut: Option<usize>) -> Vec<u8> {
    for &(at, v) in edits {
        if !bytes.is_empty() {
            let i = at % bytes.len();
            bytes[i] = v;
        }
    }
    if let Some(c) = cut {
        bytes.truncate(c % (bytes.len() + 1));
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_descriptor_round_trips(bytes in proptest::collection::vec(any::<u8>(), 64), g in 0usize..Processor::ALL.len()) {
        let gpu = Processor::ALL[g];
        let kd = KernelDescriptor::parse(&bytes, gpu).unwrap();
        prop_assert_eq!(&kd.to_bytes()[..], &bytes[..]);
        let _ = (kd.vgpr_count(), kd.sgpr_count(), kd.initial_sgprs(), kd.workitem_id_layout());
    }

    #[test]
    fn random_metadata_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = Metadata::parse(&bytes);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = CodeObject::parse(&bytes);
    }

    #[test]
    fn elf_prefixed_random_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut bytes = sample()[..64].to_vec();
        bytes.extend_from_slice(&tail);
        let _ = CodeObject::parse(&bytes);
    }

    #[test]
    fn mutated_objects_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
        cut in proptest::option::of(any::<usize>()),
    ) {
        let bytes = mutate(sample(), &edits, cut);
        if let Ok(co) = CodeObject::parse(&bytes) {
            for k in co.kernels() {
                let _ = k.descriptor.to_bytes();
                let _ = co.text().bytes_at(k.entry_address);
            }
            let _ = co.read_memory(0x1000, 64);
        }
    }

    #[test]
    fn mutated_committed_objects_never_panic(
        pick in any::<usize>(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
        cut in proptest::option::of(any::<usize>()),
    ) {
        let all = committed_code_objects();
        if !all.is_empty() {
            let (_, bytes) = &all[pick % all.len()];
            let _ = CodeObject::parse(&mutate(bytes.clone(), &edits, cut));
        }
    }
}

#[test]
fn debug_sections_load_into_gimli() {
    let with_debug: Vec<_> = committed_code_objects()
        .iter()
        .filter(|(p, _)| p.to_string_lossy().contains(".O0g."))
        .collect();
    assert!(
        !with_debug.is_empty(),
        "no *.O0g.co code objects under kernels/bin: build them with kernels/build.sh"
    );
    for (path, bytes) in with_debug {
        let co = CodeObject::parse(bytes).unwrap();
        let dwarf = gimli::Dwarf::load(|id| {
            Ok::<_, gimli::Error>(gimli::EndianSlice::new(
                co.section_data(id.name()).unwrap_or(&[]),
                gimli::LittleEndian,
            ))
        })
        .unwrap();
        let mut units = dwarf.units();
        let header = units
            .next()
            .unwrap()
            .unwrap_or_else(|| panic!("{}: no unit", path.display()));
        let unit = dwarf.unit(header).unwrap();
        let mut entries = unit.entries();
        let cu = entries.next_dfs().unwrap().unwrap();
        assert_eq!(cu.tag(), gimli::DW_TAG_compile_unit, "{}", path.display());
        // Every kernel's entry address is covered by the unit's ranges.
        let mut ranges = dwarf.unit_ranges(&unit).unwrap();
        let mut covered = Vec::new();
        while let Some(r) = ranges.next().unwrap() {
            covered.push(r);
        }
        for k in co.kernels() {
            assert!(
                covered
                    .iter()
                    .any(|r| r.begin <= k.entry_address && k.entry_address < r.end),
                "{}: {} at {:#x} not in {covered:x?}",
                path.display(),
                k.name,
                k.entry_address
            );
        }
    }
}

/// hipcc's code object for `module_api_kernels.hip` initialises
/// `mod_ptr = &mod_table[2]`: one `R_AMDGPU_RELATIVE64` at `mod_ptr` whose
/// addend is `mod_table`'s address + 8 (`llvm-readelf-19 -r` shows the same);
/// a code object without pointers in its data has none.
#[test]
fn dynamic_relocations_of_a_hip_code_object() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels");
    let bytes = std::fs::read(dir.join("hip/bin/hipcc/module_api_kernels.gfx900.co")).unwrap();
    let co = CodeObject::parse(&bytes).unwrap();
    let sym = |n: &str| co.symbols().iter().find(|s| s.name == n).unwrap().address;
    let relocs = co.dynamic_relocations().unwrap();
    assert_eq!(
        relocs,
        vec![crate::reloc::DynReloc {
            offset: sym("mod_ptr"),
            kind: crate::reloc::kind::RELATIVE64,
            symbol: None,
            undefined: false,
            addend: (sym("mod_table") + 8) as i64,
        }]
    );
    let plain = std::fs::read(dir.join("bin/gfx900/vector_add.co")).unwrap();
    assert!(
        CodeObject::parse(&plain)
            .unwrap()
            .dynamic_relocations()
            .unwrap()
            .is_empty()
    );
}

/// Rewriting a section that relocations apply to is refused: they would be stale.
#[test]
fn sections_with_relocations_are_not_rewritten() {
    use crate::write::{Rewrite, SectionData, rewrite_sections};
    let mut b = ElfBuilder::new(Processor::Gfx900, 2);
    let info = b.section(".debug_info", 1, 0, 0, vec![1, 2, 3, 4]);
    let rela = b.section(".rela.debug_info", 4, 0, 0, vec![0; 24]);
    b.sections[rela as usize - 1].info = u32::from(info);
    let bytes = b.build();
    let new = |name| SectionData {
        name,
        data: &[9, 9],
        strings: false,
    };
    let e = rewrite_sections(
        &bytes,
        &Rewrite {
            sections: &[new(".debug_info")],
            empty: &[],
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains(".debug_info has relocations"), "{e}");
    let e = rewrite_sections(
        &bytes,
        &Rewrite {
            sections: &[],
            empty: &[".debug_info"],
        },
    );
    assert!(e.is_err(), "emptying it is rewriting it");
    let ok = rewrite_sections(
        &bytes,
        &Rewrite {
            sections: &[new(".debug_other")],
            empty: &[],
        },
    )
    .unwrap();
    let f = object::read::elf::ElfFile64::<object::LittleEndian>::parse(&*ok).unwrap();
    use object::{Object, ObjectSection};
    let s = f.section_by_name(".debug_other").unwrap();
    assert_eq!(s.data().unwrap(), &[9, 9]);
}
