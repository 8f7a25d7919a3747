//! Hostile expressions end in a typed error naming the operation, in bounded
//! time and memory.

use amdgpu_dwarf::ErrorKind;
use amdgpu_dwarf::eval::{EvalOptions, Evaluator, MAX_READ_BYTES, MapContext, read_through};
use amdgpu_dwarf::location::{Loc, MAX_COMPOSITE_PARTS, Single};
use amdgpu_dwarf::op::{DecodeOptions, Expr};
use amdgpu_dwarf::target::MemTarget;
use std::time::{Duration, Instant};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn evaluate(h: &str) -> Result<Loc, amdgpu_dwarf::Error> {
    let o = DecodeOptions::default();
    let e = Expr::decode(&hex(h), &o).unwrap();
    let t = MemTarget::new(64, 0);
    let ctx = MapContext::default();
    Evaluator::new(&t, &ctx, EvalOptions::default()).location(&e)
}

#[test]
fn nested_extends_are_refused_at_the_op_that_overflows() {
    // DW_OP_regx SGPR0_LO16, then DW_OP_LLVM_extend 1 x 1000, 1000 x 1000 and
    // 1000000 x 1000: a billion parts if it were built.
    let start = Instant::now();
    let err = evaluate("9020e90b01e807e90be807e807e90bc0843de807").unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(err.offset, 13, "the third extend: {err}");
    match err.kind {
        ErrorKind::TooManyParts { parts, max } => {
            assert_eq!(parts, 1_000_000_000);
            assert_eq!(max, MAX_COMPOSITE_PARTS);
        }
        other => panic!("{other}"),
    }
    // The first two alone are within the cap and their parts can be listed.
    let l = evaluate("9020e90b01e807e90be807e807").unwrap();
    let Loc::One(Single {
        storage: amdgpu_dwarf::location::Storage::Composite(c),
        ..
    }) = &l
    else {
        panic!("{l:?}")
    };
    assert_eq!(c.parts().len(), 1_000_000, "parts are flattened");
}

#[test]
fn one_huge_extend_is_refused() {
    // DW_OP_regx SGPR0, DW_OP_LLVM_extend 1 x 2^40.
    let err = evaluate("9000e90b0180808080808020").unwrap_err();
    assert!(matches!(err.kind, ErrorKind::TooManyParts { .. }), "{err}");
    assert_eq!(err.offset, 2);
}

#[test]
fn reads_are_capped() {
    let t = MemTarget::new(64, 0);
    let l = Loc::One(Single::undefined());
    let err = read_through(&t, &l, usize::MAX).unwrap_err();
    assert!(matches!(err.kind, ErrorKind::ReadTooLarge { .. }), "{err}");
    assert!(read_through(&t, &l, MAX_READ_BYTES + 1).is_err());
    assert!(read_through(&t, &l, 16).is_ok());
}
