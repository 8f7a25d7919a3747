//! Differential test against PoCL: every OpenCL kernel of `kernels/src` was
//! run on PoCL's CPU device (an OpenCL implementation nobody here wrote) by
//! `kernels/pocl/gen.py`, which recorded the launches, the input buffers and
//! PoCL's output buffers in `kernels/pocl/ref/<kernel>.txt`. This test
//! replays every recorded launch on the simulator, for every target and
//! every build of the kernel in `kernels/bin/<target>/`, and compares every
//! buffer with PoCL's.
//!
//! Comparison rules (decided per kernel and buffer in [`policy`]):
//!
//! * Integers and moved bits: exact.
//! * Floats produced by correctly rounded operations: exact, except that
//!   any NaN matches any NaN (OpenCL does not specify NaN payloads).
//!   Correctly rounded in OpenCL C (OpenCL C specification 3.0, section 7.4
//!   "Relative Error as ULPs", tables "ULP values for single precision
//!   built-in math functions" and "... double precision ...", full profile):
//!   `x + y`, `x * y`, `fma`, `fabs`, `floor`, `fmin`, `fmax` (0 ulp), and in
//!   double precision also `x / y` and `sqrt` (correctly rounded);
//!   conversions to floating point round to nearest even unless a rounding
//!   suffix says otherwise (section "Explicit Conversions"), and
//!   `vstore_half` without a suffix uses that default rounding mode
//!   (section "Vector Data Load and Store Functions").
//! * Single precision `sqrt` (<= 3 ulp) and `x / y` (<= 2.5 ulp) are not
//!   correctly rounded in OpenCL, so `saxpy`'s `z` is compared with a bound
//!   derived from those table entries (see [`saxpy_z_bound`]).
//!
//! Contraction: OpenCL lets the compiler fuse `a * b + c` (`#pragma OPENCL
//! FP_CONTRACT`, on by default, section "Preprocessor Directives and
//! Macros"); clang does it within an expression for the AMDGPU build, PoCL
//! may not. Per kernel: `vector_add` has no product; `saxpy` calls `fma`
//! explicitly and its `z` has a division but no product; `fp64_half` calls
//! `fma` explicitly, and its only other product feeding an addition is
//! `s * 2.0 + q`, where the product is exact (a power of two, no overflow
//! for these inputs), so fused and unfused give the same bits; `vec_float`
//! turns contraction off (`#pragma OPENCL FP_CONTRACT OFF`); `half_conv`
//! and `convert_round` only convert (`half_conv`'s one product, `x * 0.5f`,
//! feeds a conversion, not an addition); the other kernels are integer code.
//! No tolerance is needed for contraction.
//!
//! Buffers the kernel only reads must be unchanged; output buffers are
//! larger than the written range where the kernel has a bounds check, and
//! their initial sentinel contents must survive in both implementations.
//!
//! `cargo test` needs neither PoCL nor LLVM: only committed files are read.
#![allow(clippy::needless_range_loop)]

use amdsim_sim_tests::pocl_ref::*;
use amdsim_sim_tests::{TARGETS, repo_path};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn load_ref(kernel: &str) -> RefFile {
    let p = repo_path(&["kernels", "pocl", "ref", &format!("{kernel}.txt")]);
    let text = std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (regenerate with kernels/pocl/gen.py)", p.display()));
    let r = parse_ref(&p.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.kernel, kernel, "{}: wrong kernel name", p.display());
    assert!(!r.cases.is_empty(), "{}: no cases", p.display());
    r
}

/// The comparison rule of each output buffer; see the module comment.
fn policy(kernel: &str, buffer: &str) -> Policy {
    match (kernel, buffer) {
        // c = a + b: one correctly rounded add (f32 denormals are kept by
        // both: FLOAT_DENORM_MODE_32 = 3 in the kernel descriptors).
        ("vector_add", "c") => Policy::CorrectlyRounded,
        // y = fma(a, x, y): fma is correctly rounded.
        ("saxpy", "y") => Policy::CorrectlyRounded,
        ("saxpy", "z") => Policy::SaxpyZ,
        // out: fma, f64 add/mul, f64 division and sqrt (correctly rounded in
        // double precision), compare/select; hout: f64 -> f32 -> f16
        // conversions, round to nearest even; iout: conversions toward zero
        // and an integer subtraction.
        ("fp64_half", "out") | ("fp64_half", "hout") => Policy::CorrectlyRounded,
        // q, r: f64 division and sqrt, correctly rounded in double precision.
        ("regress_fdiv_range", _) => Policy::CorrectlyRounded,
        // fout: conversions of 64-bit integers to f32 (round to nearest
        // even) and fract (exact, or NaN for NaN and infinite inputs).
        ("int_sat", "fout") => Policy::CorrectlyRounded,
        // fout: int -> float and double -> float conversions with a rounding
        // suffix, each correctly rounded in the mode it names ("Explicit
        // Conversions"); iout, lout: integers.
        ("convert_round", "fout") => Policy::CorrectlyRounded,
        // fout: half -> float (exact) plus 0.0f; hout: vstore_half with each
        // rounding suffix, from float and double, correctly rounded in that mode
        // ("Vector Data Load and Store Functions").
        ("half_conv", "fout") | ("half_conv", "hout") => Policy::CorrectlyRounded,
        // fout: + - * fma fabs fmin fmax floor ceil rint copysign, compare and
        // select, int -> float (all 0 ulp); the fmin/fmax of zeros of different
        // signs only reach the output through fabs. dout: double + * / sqrt
        // fma fabs fmax (correctly rounded in double precision), fmax again
        // through fabs. FP_CONTRACT is OFF in the source, so nothing is fused.
        ("vec_float", "fout") | ("vec_float", "dout") => Policy::CorrectlyRounded,
        // od: char/short -> double, int -> float -> double (round to nearest
        // even), and sums of those that are exact in double precision (the one
        // product, by 65536, is exact too, so contraction changes nothing).
        ("narrow_types", "od") => Policy::CorrectlyRounded,
        // everything else is integer arithmetic or moved bits (transpose)
        _ => Policy::Bits,
    }
}

/// The builds of `kernel` for `target`: `<kernel>.co` and every
/// `<kernel>.<variant>.co` (`O0g`, `O2g`, `cov4`).
fn builds(target: &str, kernel: &str) -> Vec<(String, PathBuf)> {
    let dir = repo_path(&["kernels", "bin", target]);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut v: Vec<(String, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".co")?;
            let ok = stem == kernel
                || stem
                    .strip_prefix(kernel)
                    .and_then(|r| r.strip_prefix('.'))
                    .is_some_and(|variant| !variant.contains('.'));
            ok.then(|| (name, e.path()))
        })
        .collect();
    v.sort();
    v
}

/// Replays every case of `kernel` on every target and build and asserts that
/// all of them match PoCL.
fn differential(kernel: &str) {
    let r = load_ref(kernel);
    let mut fig = Figures::default();
    let mut failures = Vec::new();
    for target in TARGETS {
        let bs = builds(target, kernel);
        assert!(
            bs.len() >= 3,
            "kernels/bin/{target}: expected at least 3 builds of {kernel}, found {bs:?}"
        );
        for (file, path) in bs {
            let code = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for case in &r.cases {
                fig.runs += 1;
                let rule = |b: &Buffer| policy(kernel, &b.name);
                if let Err(e) = run_case(kernel, target, &code, case, &rule, &mut fig) {
                    failures.push(format!(
                        "{kernel}: target {target}, build {file}, case {}: {e}",
                        case.label
                    ));
                }
            }
        }
    }
    let mut summary = format!(
        "{kernel}: {} runs ({} cases x targets x builds), {} elements compared",
        fig.runs,
        r.cases.len(),
        fig.elements
    );
    for (b, u) in &fig.max_ulp {
        let _ = write!(summary, "; max ulp difference in {b}: {u}");
    }
    if fig.max_bound_ratio > 0.0 {
        let _ = write!(
            summary,
            "; largest z difference {:.3} of the OpenCL bound",
            fig.max_bound_ratio
        );
    }
    println!("{summary}");
    assert!(
        failures.is_empty(),
        "{} of {} runs differ from PoCL ({summary}):\n{}",
        failures.len(),
        fig.runs,
        failures.join("\n")
    );
}

#[test]
fn every_kernel_has_a_reference() {
    let src = repo_path(&["kernels", "src"]);
    let mut kernels: Vec<String> = std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".cl").map(str::to_string)
        })
        .collect();
    kernels.sort();
    // Kernels without a PoCL reference, checked against an exact host
    // computation in `sim-tests/tests/host_checked.rs` instead: PoCL 3.1
    // cannot build the first four (it has neither `cl_khr_subgroups`, nor
    // the OpenCL C 2.0 work-group functions, nor `cl_khr_fp16`), and
    // `printf_fmt`'s result is its printf output, which the references
    // (buffers only) do not record; `image_rw` (image arguments, which the
    // PoCL harness does not create) is checked in
    // `crates/host/tests/image_kernels.rs`, and `gds_sync` (AMD's GWS and
    // ordered-count built-ins) in `crates/sim/tests/gds_kernels.rs`. Keep in step with `NO_POCL` in
    // `kernels/pocl/gen.py`.
    let no_pocl = [
        "fp16_arith",
        "gds_sync",
        "image_rw",
        "subgroup_ext",
        "subgroup_ops",
        "workgroup_ops",
        "printf_fmt",
    ];
    kernels.retain(|k| !no_pocl.contains(&k.as_str()));
    let tested = [
        "atomics",
        "atomics64",
        "bitops64",
        "call_chain",
        "cf_call",
        "cf_do_while",
        "cf_early_return",
        "cf_else_if",
        "cf_if",
        "cf_if_else",
        "cf_loop_break",
        "cf_loop_call",
        "cf_loop_if",
        "cf_nested_if",
        "cf_nested_loops",
        "cf_switch",
        "cf_ternary",
        "cf_uniform",
        "cf_while",
        "const_tables",
        "convert_round",
        "divergence",
        "fp64_half",
        "grid3d",
        "half_conv",
        "int_div",
        "int_sat",
        "matmul_tiled",
        "narrow_types",
        "private_array",
        "reduce_sum",
        "regress_fdiv_range",
        "regress_v_swap",
        "saxpy",
        "scan_local",
        "struct_args",
        "transpose",
        "vec_float",
        "vec_int",
        "vector_add",
        "workitem",
    ];
    assert_eq!(
        kernels, tested,
        "kernels/src/*.cl and the kernels of this test differ"
    );
    for k in tested {
        let p = repo_path(&["kernels", "pocl", "ref", &format!("{k}.txt")]);
        assert!(Path::new(&p).is_file(), "{} is missing", p.display());
    }
}

#[test]
fn parser_rejects_bad_files() {
    let good = "kernel k\ncase c\nglobal 4\nlocal 4\nbuffer o u32 2 out fill 0\n\
                arg buf o\nresult o\n1 2\nend\n";
    let r = parse_ref("good", good).expect("parses");
    assert_eq!(r.cases[0].buffers[0].result, Some(vec![1, 2]));
    for (bad, what) in [
        (good.replace("1 2", "1"), "bad hex 'end'"),
        (good.replace("1 2", "1 2 3"), "extra values"),
        (good.replace("1 2", "1 100000000"), "does not fit"),
        (good.replace("u32", "u33"), "bad type"),
        (good.replace("end\n", ""), "missing 'end'"),
        (good.replace("result o\n1 2\n", ""), "has no result"),
    ] {
        let e = parse_ref("bad", &bad).expect_err(what);
        assert!(e.contains(what), "{what}: {e}");
        assert!(e.starts_with("bad:"), "no location: {e}");
    }
}

#[test]
fn saxpy_bound_is_a_few_ulp() {
    // m = 2: s = 1.414.. (ulp 2^-23), d = 2 / 2.75 (ulp 2^-24), t = 3.414..
    // (ulp 2^-22), z = 4.14.. (ulp 2^-21).
    let b = saxpy_z_bound(1.75, 2.0);
    let want = 6.0 * 2f64.powi(-23) + 5.0 * 2f64.powi(-24) + 2f64.powi(-22) + 2f64.powi(-21);
    assert!((b - want).abs() < 1e-12, "{b} vs {want}");
    assert_eq!(ulp_distance_f32(0x3f80_0000, 0x3f80_0002), 2);
    assert_eq!(ulp_distance_f32(0x8000_0001, 0x0000_0001), 2);
    assert_eq!(ulp_distance_f32(0x8000_0000, 0x0000_0000), 0);
    assert_eq!(ulp_distance_f64(1.0f64.to_bits(), 1.0f64.to_bits() + 3), 3);
}

#[test]
fn regress_fdiv_range() {
    differential("regress_fdiv_range");
}

#[test]
fn regress_v_swap() {
    differential("regress_v_swap");
}

#[test]
fn vector_add() {
    differential("vector_add");
}

#[test]
fn saxpy() {
    differential("saxpy");
}

#[test]
fn reduce_sum() {
    differential("reduce_sum");
}

#[test]
fn divergence() {
    differential("divergence");
}

#[test]
fn private_array() {
    differential("private_array");
}

#[test]
fn atomics() {
    differential("atomics");
}

#[test]
fn bitops64() {
    differential("bitops64");
}

#[test]
fn fp64_half() {
    differential("fp64_half");
}

#[test]
fn transpose() {
    differential("transpose");
}

#[test]
fn int_sat() {
    differential("int_sat");
}

#[test]
fn workitem() {
    differential("workitem");
}

#[test]
fn cf_call() {
    differential("cf_call");
}

#[test]
fn cf_do_while() {
    differential("cf_do_while");
}

#[test]
fn cf_early_return() {
    differential("cf_early_return");
}

#[test]
fn cf_else_if() {
    differential("cf_else_if");
}

#[test]
fn cf_if() {
    differential("cf_if");
}

#[test]
fn cf_if_else() {
    differential("cf_if_else");
}

#[test]
fn cf_loop_break() {
    differential("cf_loop_break");
}

#[test]
fn cf_loop_call() {
    differential("cf_loop_call");
}

#[test]
fn cf_loop_if() {
    differential("cf_loop_if");
}

#[test]
fn cf_nested_if() {
    differential("cf_nested_if");
}

#[test]
fn cf_nested_loops() {
    differential("cf_nested_loops");
}

#[test]
fn cf_switch() {
    differential("cf_switch");
}

#[test]
fn cf_ternary() {
    differential("cf_ternary");
}

#[test]
fn cf_uniform() {
    differential("cf_uniform");
}

#[test]
fn cf_while() {
    differential("cf_while");
}

#[test]
fn atomics64() {
    differential("atomics64");
}

#[test]
fn call_chain() {
    differential("call_chain");
}

#[test]
fn const_tables() {
    differential("const_tables");
}

#[test]
fn convert_round() {
    differential("convert_round");
}

#[test]
fn grid3d() {
    differential("grid3d");
}

#[test]
fn half_conv() {
    differential("half_conv");
}

#[test]
fn int_div() {
    differential("int_div");
}

#[test]
fn matmul_tiled() {
    differential("matmul_tiled");
}

#[test]
fn scan_local() {
    differential("scan_local");
}

#[test]
fn struct_args() {
    differential("struct_args");
}

#[test]
fn vec_float() {
    differential("vec_float");
}

#[test]
fn vec_int() {
    differential("vec_int");
}

#[test]
fn narrow_types() {
    differential("narrow_types");
}
