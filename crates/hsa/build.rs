//! Links the library as ROCr's is named and versioned: soname
//! `libhsa-runtime64.so.1`, exports under the `ROCR_1` version.
fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    println!("cargo:rerun-if-changed=rocr.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={dir}/rocr.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhsa-runtime64.so.1");
}
