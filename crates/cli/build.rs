//! With `--features bundled-hsa`: tells the compiler where cargo put the HSA library
//! (the `amdsim-hsa` dependency's cdylib, built before this crate), which
//! `exec_cmd.rs` embeds.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_BUNDLED_HSA").is_none() {
        return;
    }
    // OUT_DIR is <target>/<profile>/build/amdsim-<hash>/out; dependencies are
    // in <target>/<profile>/deps.
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let lib = out.join("../../../deps/libhsa_runtime64.so");
    println!("cargo:rustc-env=AMDSIM_BUNDLED_HSA={}", lib.display());
}
