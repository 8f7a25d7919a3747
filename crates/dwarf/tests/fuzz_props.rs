//! Property tests: random and mutated expressions (and call frame information) never
//! panic and never hang; every failure is a typed error with an offset inside the
//! expression.

use amdgpu_dwarf::cfi::DebugFrame;
use amdgpu_dwarf::eval::{Compat, EvalOptions, Evaluator, MapContext, read_through};
use amdgpu_dwarf::op::{DecodeOptions, Dialect, Expr, Extensions};
use amdgpu_dwarf::target::{MemTarget, MemorySpace};
use amdgpu_dwarf::text::{assemble, parse_ops, print_bytes};
use amdgpu_dwarf::value::{BaseType, ate};
use proptest::prelude::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn target() -> MemTarget {
    let mut t = MemTarget::new(64, 3);
    for i in 0..16 {
        t.set_sgpr(i, 0x100 * u32::from(i));
    }
    t.set_vgpr(0, &[7; 64]);
    t.set_vgpr(1, &[9; 64]);
    t.map(MemorySpace::Global, 0, vec![0x5a; 0x2000]);
    t.map(MemorySpace::PrivateWave, 0, vec![0xa5; 0x4000]);
    t.map(MemorySpace::Local, 0, vec![0x3c; 0x400]);
    t
}

fn context() -> MapContext {
    let mut c = MapContext::default();
    c.base_types
        .insert(0x10, BaseType::scalar(ate::UNSIGNED, 4));
    c.base_types.insert(0x20, BaseType::scalar(ate::FLOAT, 8));
    c.base_types.insert(
        0x30,
        BaseType {
            encoding: ate::UNSIGNED,
            byte_size: 4,
            vector_size: 64,
        },
    );
    let o = DecodeOptions::default();
    // A recursive procedure (calls itself): bounded by the call-depth cap.
    let rec = assemble("DW_OP_lit1, DW_OP_call_ref 0x100", 64, &o).unwrap();
    c.procedure(0x100, Expr::decode(&rec, &o).unwrap());
    let div = assemble(
        "DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40",
        64,
        &o,
    )
    .unwrap();
    c.procedure(0x200, Expr::decode(&div, &o).unwrap());
    // A variable whose location calls itself (each call on a separate stack).
    let selfref = assemble(
        "DW_OP_call_ref 0x300, DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 0x1",
        64,
        &o,
    )
    .unwrap();
    c.variable(0x300, Expr::decode(&selfref, &o).unwrap());
    let fb = assemble("DW_OP_regx SGPR3", 64, &o).unwrap();
    c.frame_base = Some(Arc::new(Expr::decode(&fb, &o).unwrap()));
    c
}

/// Operations of the fast path, with `N` replaced by a number.
const FAST_OPS: &[&str] = &[
    "DW_OP_lit7",
    "DW_OP_constu N",
    "DW_OP_consts -N",
    "DW_OP_const1s -N",
    "DW_OP_dup",
    "DW_OP_drop",
    "DW_OP_over",
    "DW_OP_pick 0x1",
    "DW_OP_swap",
    "DW_OP_rot",
    "DW_OP_plus",
    "DW_OP_minus",
    "DW_OP_mul",
    "DW_OP_div",
    "DW_OP_mod",
    "DW_OP_and",
    "DW_OP_or",
    "DW_OP_xor",
    "DW_OP_shl",
    "DW_OP_shr",
    "DW_OP_shra",
    "DW_OP_abs",
    "DW_OP_neg",
    "DW_OP_not",
    "DW_OP_plus_uconst N",
    "DW_OP_eq",
    "DW_OP_lt",
    "DW_OP_ge",
    "DW_OP_ne",
    "DW_OP_bregx SGPR3 N",
    "DW_OP_breg5 -N",
    "DW_OP_fbreg N",
    "DW_OP_fbreg -N",
    "DW_OP_deref",
    "DW_OP_deref_size 0x2",
    "DW_OP_constu 0x100, DW_OP_deref",
    "DW_OP_bra +1, DW_OP_lit3",
    "DW_OP_skip +1, DW_OP_lit4",
    "DW_OP_regx SGPR2",
    "DW_OP_stack_value",
    "DW_OP_implicit_value 0x2 0x01 0x02",
    "DW_OP_addr N",
    "DW_OP_nop",
    "DW_OP_piece 0x4",
    "DW_OP_piece 0x2",
    "DW_OP_bit_piece 0x3 0x2",
    "DW_OP_regx SGPR4, DW_OP_piece 0x2",
    "DW_OP_lit5, DW_OP_stack_value, DW_OP_piece 0x1",
];

fn seeds() -> Vec<Vec<u8>> {
    let o = DecodeOptions::default();
    [
        "DW_OP_regx VGPR0, DW_OP_LLVM_user DW_OP_LLVM_push_lane, DW_OP_lit4, DW_OP_mul, DW_OP_LLVM_user DW_OP_LLVM_offset, DW_OP_piece 0x4",
        "DW_OP_call_ref 0x200, DW_OP_regx PC_REG, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40, DW_OP_regval_type EXEC (0x0), DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x40 0x40",
        "DW_OP_fbreg +16, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
        "DW_OP_lit5, DW_OP_lit7, DW_OP_over, DW_OP_over, DW_OP_lt, DW_OP_bra +3, DW_OP_swap, DW_OP_skip -7, DW_OP_stack_value",
        "DW_OP_constu 0x10, DW_OP_lit5, DW_OP_LLVM_user DW_OP_LLVM_form_aspace_address, DW_OP_deref_size 0x4",
        "DW_OP_regx SGPR3, DW_OP_constu 20, DW_OP_LLVM_user DW_OP_LLVM_bit_offset, DW_OP_bit_piece 0xc 0x0",
        "DW_OP_implicit_value 0x4 0x01 0x02 0x03 0x04, DW_OP_piece 0x2, DW_OP_LLVM_user DW_OP_LLVM_piece_end",
        "DW_OP_const_type (0x20) 0x8 0x00 0x00 0x00 0x00 0x00 0x00 0xf0 0x3f, DW_OP_convert (0x10), DW_OP_stack_value",
    ]
    .iter()
    .map(|t| assemble(t, 64, &o).unwrap())
    .collect()
}

fn run(bytes: &[u8], opts: &DecodeOptions, compat: Compat) {
    let t = target();
    let c = context();
    let eval_opts = EvalOptions {
        max_iterations: 20_000,
        decode: opts.clone(),
        proposals: true,
        compat,
        ..EvalOptions::default()
    };
    let start = Instant::now();
    let _ = print_bytes(bytes, None, opts);
    if let Ok(e) = Expr::decode(bytes, opts) {
        let mut ev = Evaluator::new(&t, &c, eval_opts);
        match ev.location(&e) {
            Ok(l) => {
                let _ = read_through(&t, &l, 64);
            }
            Err(err) => assert!(err.offset <= bytes.len().max(e.len), "{err}"),
        }
        let _ = ev.value(&e);
    }
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "too slow: {bytes:02x?}"
    );
}

fn dialects() -> impl Strategy<Value = DecodeOptions> {
    prop_oneof![
        Just(Dialect::User),
        Just(Dialect::SingleByte),
        Just(Dialect::SeedTable)
    ]
    .prop_map(|d| DecodeOptions {
        dialect: d,
        extensions: Extensions::proposals(),
        ..Default::default()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..48), o in dialects()) {
        run(&bytes, &o, Compat::default());
    }

    #[test]
    fn mutated_expressions_never_panic(
        seed in 0usize..8,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..6),
        o in dialects(),
        incomplete in any::<bool>(),
    ) {
        let mut b = seeds()[seed].clone();
        for (pos, byte, kind) in edits {
            let p = if b.is_empty() { 0 } else { pos % b.len() };
            match kind {
                0 if !b.is_empty() => b[p] = byte,
                1 => b.insert(p, byte),
                _ if !b.is_empty() => { b.remove(p); }
                _ => {}
            }
        }
        let compat = Compat { stack_ops_on_incomplete: incomplete, narrow_register_reads: true, ..Compat::default() };
        run(&b, &o, compat);
    }

    #[test]
    fn fast_path_equals_general_path(
        ops in proptest::collection::vec(0usize..FAST_OPS.len(), 1..14),
        args in proptest::collection::vec(any::<u64>(), 14),
        kind in any::<bool>(),
    ) {
        let o = DecodeOptions::default();
        let text: Vec<String> = ops.iter().zip(&args).map(|(i, a)| FAST_OPS[*i].replace("N", &format!("{}", a % 300))).collect();
        let bytes = assemble(&text.join(", "), 64, &o).unwrap();
        let Ok(e) = Expr::decode(&bytes, &o) else { return Ok(()) };
        prop_assume!(e.is_fast());
        let t = target();
        let c = context();
        let k = if kind { amdgpu_dwarf::ResultKind::Value } else { amdgpu_dwarf::ResultKind::Location };
        let fast = Evaluator::new(&t, &c, EvalOptions::default()).evaluate(&e, k, &[]);
        let slow = Evaluator::new(&t, &c, EvalOptions { fast_path: false, ..EvalOptions::default() }).evaluate(&e, k, &[]);
        prop_assert_eq!(fast, slow, "{}", text.join(", "));
    }

    #[test]
    fn random_text_never_panics(s in "[ -~]{0,60}") {
        let _ = parse_ops(&s, 64, &DecodeOptions::default());
    }

    #[test]
    fn random_cfi_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..96), pc in 0u64..0x200) {
        if let Ok(f) = DebugFrame::parse(&bytes, 8) {
            let _ = f.row_at(pc);
        }
    }
}

#[test]
fn loops_and_recursion_hit_the_caps() {
    let o = DecodeOptions::default();
    let t = target();
    let c = context();
    // DW_OP_skip -3: jumps to itself forever.
    let e = Expr::decode(&[0x2f, 0xfd, 0xff], &o).unwrap();
    let err = Evaluator::new(&t, &c, EvalOptions::default())
        .location(&e)
        .unwrap_err();
    assert!(
        matches!(err.kind, amdgpu_dwarf::ErrorKind::IterationLimit(_)),
        "{err}"
    );
    // Infinite recursion through a DWARF procedure.
    let e = Expr::decode(&assemble("DW_OP_call_ref 0x100", 64, &o).unwrap(), &o).unwrap();
    let err = Evaluator::new(&t, &c, EvalOptions::default())
        .location(&e)
        .unwrap_err();
    assert!(
        matches!(err.kind, amdgpu_dwarf::ErrorKind::CallDepth(_)),
        "{err}"
    );
    // Infinite recursion through a variable's location (separate stacks).
    let e = Expr::decode(&assemble("DW_OP_call_ref 0x300", 64, &o).unwrap(), &o).unwrap();
    let err = Evaluator::new(&t, &c, EvalOptions::default())
        .location(&e)
        .unwrap_err();
    assert!(
        matches!(err.kind, amdgpu_dwarf::ErrorKind::NestingLimit(_)),
        "{err}"
    );
    // Stack growth: dup in a loop.
    let e = Expr::decode(&[0x30, 0x12, 0x2f, 0xfc, 0xff], &o).unwrap();
    let err = Evaluator::new(&t, &c, EvalOptions::default())
        .location(&e)
        .unwrap_err();
    assert!(
        matches!(err.kind, amdgpu_dwarf::ErrorKind::StackOverflow(_)),
        "{err}"
    );
    assert_eq!(err.offset, 1, "the dup that overflowed");
}

#[test]
fn deeply_nested_composites_are_refused_not_overflowed() {
    // [loc, counter]: loop { swap; extend 8 1; swap; lit1; minus; dup; bra loop }: wraps the
    // location in 100000 nested composites unless refused.
    let o = DecodeOptions::default();
    let text = "DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_constu 100000, \
                DW_OP_swap, DW_OP_LLVM_user DW_OP_LLVM_extend 0x8 0x1, DW_OP_swap, DW_OP_lit1, DW_OP_minus, \
                DW_OP_dup, DW_OP_bra -12, DW_OP_drop";
    let e = Expr::decode(&assemble(text, 64, &o).unwrap(), &o).unwrap();
    let t = target();
    let err = Evaluator::new(&t, &context(), EvalOptions::default())
        .location(&e)
        .unwrap_err();
    assert!(
        matches!(err.kind, amdgpu_dwarf::ErrorKind::CompositeTooDeep(_)),
        "{err}"
    );
    // Within the cap, nesting works and reads through.
    let text = "DW_OP_regx SGPR2, DW_OP_lit20, \
                DW_OP_swap, DW_OP_LLVM_user DW_OP_LLVM_extend 0x20 0x1, DW_OP_swap, DW_OP_lit1, DW_OP_minus, \
                DW_OP_dup, DW_OP_bra -12, DW_OP_drop";
    let e = Expr::decode(&assemble(text, 64, &o).unwrap(), &o).unwrap();
    let l = Evaluator::new(&t, &context(), EvalOptions::default())
        .location(&e)
        .unwrap();
    assert_eq!(
        read_through(&t, &l, 4).unwrap().bytes(),
        0x200u32.to_le_bytes()
    );
}
