//! Decoding of every expression in the committed kernels' DWARF matches what
//! `llvm-dwarfdump-19` printed (`kernels/ref/<gfx>/<name>.dwarfdump.txt`, the output of
//! `llvm-dwarfdump-19 --debug-info --debug-loclists FILE`).
//!
//! The expressions of the `.debug_info` part of each dump, in order, must equal this
//! crate's decoding and printing of every exprloc attribute and location-list entry, in
//! DIE order. Fails when no dump is found.

use amdgpu_dwarf::program::{Program, ProgramOptions};
use object::{Object, ObjectSection};
use std::path::{Path, PathBuf};

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels")
}

/// The expression texts of the `.debug_info` part of a dump, in order.
fn dump_expressions(dump: &str) -> Vec<String> {
    let info = dump.split(".debug_loclists contents:").next().unwrap_or("");
    let mut out = Vec::new();
    for line in info.lines() {
        let Some(i) = line
            .find("DW_OP_")
            .or_else(|| line.find("<decoding error>"))
        else {
            continue;
        };
        // Loclist entries look like "[0x.., 0x..): EXPR"; attributes "DW_AT_x\t(EXPR)".
        let mut t = line[i..].trim_end().to_string();
        let open = t.matches('(').count();
        let close = t.matches(')').count();
        if close > open && t.ends_with(')') {
            t.pop();
        }
        out.push(t);
    }
    out
}

#[test]
fn committed_kernels_decode_as_llvm_dwarfdump_19_prints() {
    let refs = kernels_dir().join("ref");
    let mut dumps = Vec::new();
    for gfx in std::fs::read_dir(&refs)
        .expect("kernels/ref exists")
        .flatten()
    {
        for f in std::fs::read_dir(gfx.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = f.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".dwarfdump.txt") {
                let co = kernels_dir()
                    .join("bin")
                    .join(gfx.file_name())
                    .join(format!("{stem}.co"));
                dumps.push((f.path(), co));
            }
        }
    }
    assert!(!dumps.is_empty(), "no kernels/ref/*/*.dwarfdump.txt found");
    let mut total = 0;
    for (dump_path, co) in &dumps {
        let dump = std::fs::read_to_string(dump_path).expect("dump");
        let data = std::fs::read(co).unwrap_or_else(|e| panic!("{}: {e}", co.display()));
        let file = object::File::parse(&*data).expect("ELF");
        let section = |name: &str| file.section_by_name(name).and_then(|s| s.data().ok());
        let program = Program::load(section, ProgramOptions::default()).expect("DWARF loads");
        let ours: Vec<String> = program
            .expressions()
            .expect("expressions")
            .iter()
            .map(|site| program.print(site.unit, &site.bytes))
            .collect();
        let theirs = dump_expressions(&dump);
        assert_eq!(
            ours.len(),
            theirs.len(),
            "{}: expression count",
            dump_path.display()
        );
        for (a, b) in ours.iter().zip(&theirs) {
            assert_eq!(a, b, "{}", dump_path.display());
        }
        total += ours.len();
    }
    assert!(total > 100, "only {total} expressions compared");
    eprintln!(
        "{} dumps, {total} expressions match llvm-dwarfdump-19",
        dumps.len()
    );
}
