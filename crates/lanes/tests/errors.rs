//! Bad requests give typed errors, not panics or silent results.

use amdgpu_dwarf::{EvalOptions, Evaluator, Expr};
use amdgpu_lanes::{Debugger, Error, Event, Image};
use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use amdsim_sim_tests::read_kernel;

fn co(target: &str, file: &str) -> Vec<u8> {
    read_kernel(target, file).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn objects_without_dwarf_and_garbage_are_refused() {
    let bytes = co("gfx900", "vector_add.co");
    assert!(matches!(Image::parse(&bytes), Err(Error::NoDebugInfo)));
    assert!(matches!(
        Image::parse(b"not an elf"),
        Err(Error::CodeObject(_))
    ));
    let bytes = co("gfx900", "vector_add.O0g.co");
    assert!(Image::parse(&bytes[..bytes.len() / 2]).is_err());
}

#[test]
fn requests_before_a_stop_and_for_unknown_things() {
    let bytes = co("gfx1030", "vector_add.O0g.co");
    let image = Image::parse(&bytes).expect("image");
    assert!(matches!(
        image.line_addresses("vector_add.cl", 1000),
        Err(Error::NoCodeForLine { line: 1000, .. })
    ));
    assert!(image.line_addresses("other.cl", 9).is_err());
    let dev = Device::new();
    let module = dev.load(&bytes).expect("load");
    let buf = dev.alloc(256).expect("alloc");
    let cfg = LaunchConfig::new_1d(
        32,
        32,
        vec![
            ArgValue::Ptr(buf),
            ArgValue::Ptr(buf),
            ArgValue::Ptr(buf),
            ArgValue::U32(32),
        ],
    );
    let launch = dev.launch(&module, "vector_add", cfg).expect("launch");
    let mut d = Debugger::new(&image, &dev, &module, launch);
    assert!(matches!(d.variables(), Err(Error::NotStopped)));
    assert!(matches!(d.read("i", 0), Err(Error::NotStopped)));
    let addrs = d
        .break_at_line("vector_add.cl", 9)
        .expect("line 9 has code");
    let Event::Breakpoint { pc, .. } = d.resume().expect("runs") else {
        panic!("no stop at line 9");
    };
    assert!(addrs.contains(&pc));
    assert_eq!(
        d.line()
            .expect("line")
            .map(|(f, l)| (f.ends_with("vector_add.cl"), l)),
        Some((true, 9))
    );
    let names: Vec<String> = d
        .variables()
        .expect("variables")
        .into_iter()
        .map(|v| v.name)
        .collect();
    for n in ["a", "b", "c", "n", "i"] {
        assert!(names.iter().any(|x| x == n), "{n} not in {names:?}");
    }
    assert!(matches!(d.read("nope", 0), Err(Error::NoVariable { .. })));
    assert!(matches!(d.read("i", 32), Err(Error::Wave(_))));
    assert!(matches!(
        d.write("i", 0, &[1, 2, 3]),
        Err(Error::SizeMismatch {
            size: 8,
            given: 3,
            ..
        })
    ));
    // The extension's own reading of clang-19's private-variable expression fails (the
    // frame base is not an address of the generic space); the clang-19 reading works.
    let var = d.variable("i").expect("i");
    let Some(amdgpu_dwarf::program::LocationValue::Exprs(exprs)) = &var.location else {
        panic!("i has no expression");
    };
    {
        let t = d.target(0).expect("target");
        let program = image.program();
        let ctx = program.context(pc, &t);
        let o = program.decode_options_at(pc);
        let e = Expr::decode(&exprs[0], &o).expect("decodes");
        let strict = EvalOptions {
            decode: o.clone(),
            ..EvalOptions::default()
        };
        assert!(Evaluator::new(&t, &ctx, strict).location(&e).is_err());
    }
    assert_eq!(
        d.read("i", 0).expect("clang-19 reading"),
        0u64.to_le_bytes()
    );
    d.finish().expect("finishes");
    assert!(matches!(d.read("i", 0), Err(Error::NotStopped)));
}
