//! The integration tests of `amdsim`, built as one test binary (`autotests = false`
//! and one `[[test]]` in Cargo.toml): one test crate to build and link instead of one per
//! file. Each file (or directory) here is a module; run one with
//! `cargo test -p amdsim --test integration <module>::`.

mod cli;
mod disasm_objdump;
mod exec;
mod readme;

/// With `autotests = false` a test file that is not a module here would never be
/// built: every `tests/*.rs` and every `tests/*/mod.rs` must be named above.
#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let main = include_str!("main.rs");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let is_rs = path.extension().is_some_and(|x| x == "rs");
        if (is_rs && name != "main") || path.join("mod.rs").exists() {
            assert!(
                main.contains(&format!("\nmod {name};\n")),
                "{} is not a module of tests/main.rs",
                path.display()
            );
        }
    }
}
