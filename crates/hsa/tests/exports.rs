//! The library exports every function ROCr 5.2 exports (`exports.txt`, taken
//! from Debian's `libhsa-runtime64.so.1`), each under the `ROCR_1` version,
//! and its soname is ROCr's: the HIP runtime links against it unmodified.

use object::read::elf::{ElfFile64, FileHeader};
use object::{Object, ObjectSymbol};
use std::path::PathBuf;

/// The built library, beside the test's own deps folder.
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for p in [
        deps.join("libhsa_runtime64.so"),
        deps.parent().unwrap().join("libhsa_runtime64.so"),
    ] {
        if p.is_file() {
            return p;
        }
    }
    panic!("libhsa_runtime64.so not found near {}", deps.display());
}

#[test]
fn every_rocr_export_is_defined_with_its_version() {
    let data = std::fs::read(library()).unwrap();
    let elf = ElfFile64::<object::Endianness>::parse(&*data).unwrap();
    let endian = elf.endian();
    let sections = elf.elf_header().sections(endian, &*data).unwrap();
    let versions = sections
        .versions(endian, &*data)
        .unwrap()
        .expect("a version table");
    let mut versioned = std::collections::BTreeMap::new();
    for sym in elf.dynamic_symbols() {
        if sym.is_undefined() {
            continue;
        }
        let name = sym.name().unwrap().to_string();
        let v = versions.version_index(endian, sym.index());
        let vname = versions
            .version(v)
            .unwrap()
            .map(|v| String::from_utf8_lossy(v.name()).into_owned())
            .unwrap_or_default();
        versioned.insert(name, vname);
    }
    let list = include_str!("../exports.txt");
    let mut missing = vec![];
    for name in list.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match versioned.get(name) {
            Some(v) if v == "ROCR_1" => {}
            Some(v) => missing.push(format!("{name} (version {v:?})")),
            None => missing.push(name.to_string()),
        }
    }
    assert!(
        missing.is_empty(),
        "not exported as NAME@@ROCR_1: {missing:?}"
    );
    assert_eq!(list.lines().count(), 224, "ROCr 5.2 exports 224 functions");
}

#[test]
fn soname_is_rocrs() {
    let data = std::fs::read(library()).unwrap();
    let needle = b"libhsa-runtime64.so.1\0";
    assert!(
        data.windows(needle.len()).any(|w| w == needle),
        "the soname libhsa-runtime64.so.1 is missing"
    );
}
