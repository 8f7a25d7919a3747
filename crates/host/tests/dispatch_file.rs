//! Dispatch files end to end: the committed examples run and their outputs
//! hold what the kernels compute.

use amdgpu_sim::Device;
use amdsim_host::dispatch_file::{DispatchFile, DispatchFileError, PreparedArg};
use amdsim_sim_tests::ScratchDir;
use std::path::{Path, PathBuf};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../kernels/examples")
        .join(name)
}

/// A directory for a test's outputs, removed when the test passes.
fn scratch() -> ScratchDir {
    ScratchDir::new("amdsim-dispatch-file-")
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn vector_add_example_writes_a_plus_b() {
    let mut d = DispatchFile::from_path(example("vector_add.ron")).unwrap();
    let dir = scratch();
    let out = dir.join("c.out.bin");
    d.outputs[0].file = out.clone();
    let dev = Device::new();
    let p = d.prepare(&dev).unwrap();
    assert!(matches!(p.args[3], PreparedArg::Value));
    let stats = dev.run(&p.launch).unwrap();
    assert_eq!(stats.groups, 16);
    let written = d.write_outputs(&dev, &p).unwrap();
    assert_eq!(written, std::slice::from_ref(&out));
    let a = f32s(&std::fs::read(example("a.bin")).unwrap());
    let b = f32s(&std::fs::read(example("b.bin")).unwrap());
    let c = f32s(&std::fs::read(&out).unwrap());
    assert_eq!(c.len(), 1000);
    for i in 0..1000 {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }
}

#[test]
fn global_offset_reaches_the_kernel() {
    let mut d = DispatchFile::from_path(example("workitem_offset.ron")).unwrap();
    let dir = scratch();
    let out = dir.join("workitem.out.txt");
    d.outputs[0].file = out.clone();
    let dev = Device::new();
    let p = d.prepare(&dev).unwrap();
    dev.run(&p.launch).unwrap();
    d.write_outputs(&dev, &p).unwrap();
    let v: Vec<u64> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(v.len(), 630);
    for lin in 0..30u64 {
        let o = &v[lin as usize * 21..][..21];
        let (x, y) = (lin % 10, lin / 10);
        assert_eq!(o[0], 2, "work dimension");
        assert_eq!(
            [o[16], o[17], o[18]],
            [100 + x, 200 + y, 0],
            "global id of {lin}"
        );
        assert_eq!(o[20], lin);
    }
}

#[test]
fn every_argument_form_lands_in_the_kernarg_segment() {
    // vector_add takes (ptr, ptr, ptr, uint): inline values, a fill and an iota.
    let text = r#"(
      code_object: "../bin/gfx1030/vector_add.co", kernel: "vector_add", grid: 5, workgroup: 4,
      args: [
        Buffer(elem: F32, values: [1, 2, 3, 4, 5.5]),
        Buffer(elem: F32, count: 5, fill: 0.25),
        Buffer(elem: F32, count: 5, iota: 10),
        U32(5),
      ],
      outputs: [ (arg: 2, file: "OUT") ],
    )"#;
    let dir = scratch();
    let out = dir.join("iota.npy");
    let text = text.replace("OUT", out.to_str().unwrap());
    let d = DispatchFile::parse(&text, example(""), "inline.ron").unwrap();
    let dev = Device::new();
    let p = d.prepare(&dev).unwrap();
    dev.run(&p.launch).unwrap();
    d.write_outputs(&dev, &p).unwrap();
    let npy = std::fs::read(&out).unwrap();
    let data = &npy[npy.len() - 20..];
    assert_eq!(f32s(data), [1.25, 2.25, 3.25, 4.25, 5.75]);
    assert!(npy.starts_with(b"\x93NUMPY"));
}

#[test]
fn mistakes_are_reported_with_their_place() {
    let bad = |text: &str| {
        let d = DispatchFile::parse(text, example(""), "bad.ron");
        match d {
            Err(e) => e,
            Ok(d) => d.prepare(&Device::new()).unwrap_err(),
        }
    };
    let e = bad(
        r#"(code_object: "../bin/gfx900/vector_add.co", kernel: "vector_add", grid: 1, args: [U32(1)])"#,
    );
    assert!(e.to_string().contains("takes 4 arguments, 1 given"), "{e}");
    let e = bad(r#"(code_object: "../bin/gfx900/vector_add.co", kernel: "nope", grid: 1)"#);
    assert!(
        e.to_string().contains("vector_add"),
        "lists the kernels: {e}"
    );
    let e = bad(r#"(code_object: "missing.co", kernel: "k", grid: 1)"#);
    assert!(matches!(e, DispatchFileError::Io { .. }), "{e}");
    let e = bad(
        r#"(code_object: "../bin/gfx900/vector_add.co", kernel: "vector_add", grid: 1,
        args: [Local(bytes: 4), Buffer(elem: F32, count: 1), Buffer(elem: F32, count: 1), U32(1)])"#,
    );
    assert!(e.to_string().contains("not Local"), "{e}");
    let e = bad("(code_object: \"x.co\",\n kernel: 5)");
    match e {
        DispatchFileError::Syntax { line, .. } => assert_eq!(line, 2),
        other => panic!("{other}"),
    }
}

#[test]
fn local_arguments_get_their_own_lds() {
    let mut d = DispatchFile::from_path(example("local_reverse.ron")).unwrap();
    d.outputs.clear();
    let dev = Device::new();
    let p = d.prepare(&dev).unwrap();
    assert_eq!(
        p.args[3..],
        [
            PreparedArg::Local {
                offset: 0,
                bytes: 128
            },
            PreparedArg::Local {
                offset: 128,
                bytes: 128
            }
        ]
    );
    assert_eq!(p.launch.config.dynamic_lds, 256);
    dev.run(&p.launch).unwrap();
    let read = |i: usize| -> Vec<u32> {
        dev.read(p.arg_address(i).unwrap(), 400)
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let (a, b) = (read(1), read(2));
    for g in 0..100u32 {
        let (base, n) = (g / 32 * 32, if g >= 96 { 4 } else { 32 });
        let want = base + (n - 1 - (g - base)) + 1;
        assert_eq!(a[g as usize], want, "out_a[{g}]");
        assert_eq!(b[g as usize], 3 * want, "out_b[{g}]");
    }
    // Too little LDS for the group: the kernel faults in LDS.
    d.args[4] = amdsim_host::dispatch_file::Arg::Local { bytes: 4 };
    let dev = Device::new();
    let p = d.prepare(&dev).unwrap();
    let err = dev.run(&p.launch).unwrap_err();
    assert!(err.to_string().contains("LDS"), "{err}");
}

#[test]
fn gws_entries_set_resources_before_the_dispatch() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels/bin/gfx900");
    let text = r#"(
  code_object: "gds_sync.co",
  kernel: "gws_handoff",
  grid: 96,
  workgroup: 32,
  args: [Buffer(elem: U32, count: 33), Buffer(elem: U32, count: 64)],
  gws: [(resource: 1, value: 0), (resource: 2, value: 0), (resource: 9, value: 7)],
)"#;
    let d = DispatchFile::parse(text, &base, "gws.ron").unwrap();
    let dev = Device::new();
    // Set before the run: resource 9, which the kernel does not use, keeps 7.
    dev.mem.gds().init(1, 5);
    let p = d.prepare(&dev).unwrap();
    assert_eq!(dev.mem.gds().lock().gws[9].counter, 7);
    assert_eq!(dev.mem.gds().lock().gws[1].counter, 0, "reset from 5");
    dev.run(&p.launch).unwrap();
    let st = dev.mem.gds().lock();
    assert_eq!(
        (st.gws[1].counter, st.gws[2].counter, st.gws[9].counter),
        (0, 0, 7)
    );
    drop(st);
    let bad = text.replace("resource: 9", "resource: 64");
    let err = DispatchFile::parse(&bad, &base, "gws.ron").unwrap_err();
    assert!(matches!(err, DispatchFileError::GwsResource(64)), "{err}");
}
