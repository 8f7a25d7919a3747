//! Semantics of individual operations not covered by the worked examples: DWARF 6 names,
//! the opt-in proposals, overlays, implicit pointers, entry values, typed values, several
//! places at once, call frame operations, and typed errors with offsets.

use amdgpu_dwarf::eval::{
    Callee, EvalOptions, Evaluator, MapContext, ObjectMap, PointerTarget, read_through,
};
use amdgpu_dwarf::location::{Loc, Single};
use amdgpu_dwarf::op::{DecodeOptions, Expr, ExtOp, Extensions, Form};
use amdgpu_dwarf::target::{AddressSpace, MemTarget, MemorySpace, Register};
use amdgpu_dwarf::text::{assemble, parse_ops, print_ops};
use amdgpu_dwarf::value::{BaseType, Value, ate};
use amdgpu_dwarf::{DieRef, ErrorKind, NoContext};
use std::sync::Arc;

fn opts() -> DecodeOptions {
    DecodeOptions {
        extensions: Extensions::proposals(),
        ..DecodeOptions::default()
    }
}

fn expr(text: &str) -> Expr {
    let o = opts();
    Expr::decode(
        &assemble(text, 64, &o).unwrap_or_else(|e| panic!("{text}: {e}")),
        &o,
    )
    .unwrap()
}

fn wave() -> MemTarget {
    let mut t = MemTarget::new(64, 9);
    t.set_sgpr(0, 0x1000);
    t.set_sgpr(1, 0x2);
    t.set_vgpr(0, &(0..64).map(|l| 0x100 + l).collect::<Vec<_>>());
    t.map(MemorySpace::Global, 0x1000, (0..64).collect());
    t.map(MemorySpace::Local, 0, (0..64).map(|x| x + 0x80).collect());
    t
}

fn eval_opts() -> EvalOptions {
    EvalOptions {
        decode: opts(),
        proposals: true,
        ..EvalOptions::default()
    }
}

#[test]
fn dwarf6_names_parse_and_evaluate_like_the_llvm_ops() {
    let o = opts();
    let t = wave();
    let a = expr(
        "DW_OP_regx VGPR0, DW_OP_LLVM_user DW_OP_LLVM_push_lane, DW_OP_lit4, DW_OP_mul, DW_OP_LLVM_user DW_OP_LLVM_offset",
    );
    let ops = parse_ops(
        "DW_OP_regx VGPR0, DW_OP_push_lane, DW_OP_lit4, DW_OP_mul, DW_OP_offset",
        64,
        &o,
    )
    .unwrap();
    assert_eq!(ops[1].1, Form::Named);
    let b = Expr::from_ops(
        ops.iter()
            .enumerate()
            .map(|(i, (op, form))| amdgpu_dwarf::op::Decoded {
                offset: i,
                op: op.clone(),
                form: *form,
            })
            .collect(),
        ops.len(),
    );
    let mut ev = Evaluator::new(&t, &NoContext, eval_opts());
    assert_eq!(ev.location(&a).unwrap(), ev.location(&b).unwrap());
    assert_eq!(
        print_ops(&b.ops, None, &o),
        "DW_OP_regx VGPR0_LO16, DW_OP_push_lane, DW_OP_lit4, DW_OP_mul, DW_OP_offset"
    );
    // Named-only operations cannot be encoded until codes exist, unless given opt-in codes.
    assert!(assemble("DW_OP_overlay", 64, &o).is_err());
    let with = DecodeOptions {
        extensions: Extensions {
            codes: vec![(0xf0, ExtOp::Overlay), (0xf1, ExtOp::Composite)],
        },
        ..DecodeOptions::default()
    };
    let bytes = assemble("DW_OP_overlay", 64, &with).unwrap();
    assert_eq!(bytes, vec![0xf0]);
}

#[test]
fn overlay_replaces_a_slice() {
    let t = wave();
    // Base: 8 bytes of memory at 0x1000; overlay bytes [2, 4) with VGPR0 lane 9.
    // DW_OP_overlay is named-only; build it from parsed text with the opt-in code.
    let with = DecodeOptions {
        extensions: Extensions {
            codes: vec![(0xf0, ExtOp::Overlay)],
        },
        ..opts()
    };
    let bytes = assemble(
        "DW_OP_addr 0x1000, DW_OP_regx VGPR0, DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 36, DW_OP_lit2, DW_OP_lit2, DW_OP_overlay",
        64,
        &with,
    )
    .unwrap();
    let e2 = Expr::decode(&bytes, &with).unwrap();
    let l = Evaluator::new(
        &t,
        &NoContext,
        EvalOptions {
            decode: with.clone(),
            ..eval_opts()
        },
    )
    .location(&e2)
    .unwrap();
    let b = read_through(&t, &l, 8).unwrap().bytes();
    assert_eq!(b, vec![0, 1, 0x09, 0x01, 4, 5, 6, 7]);
}

#[test]
fn proposals_need_the_flag() {
    let t = wave();
    let e = expr("DW_OP_push_simd_lane, DW_OP_stack_value");
    let err = Evaluator::new(
        &t,
        &NoContext,
        EvalOptions {
            decode: opts(),
            ..EvalOptions::default()
        },
    )
    .location(&e)
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotEnabled("DW_OP_push_simd_lane"));
    let v = Evaluator::new(&t, &NoContext, eval_opts())
        .value(&expr("DW_OP_push_simd_lane"))
        .unwrap();
    assert_eq!(v, Value::Generic(9));
}

#[test]
fn object_map_selects_register_chunk_or_memory() {
    let mut t = wave();
    t.set_sgpr(5, 1); // current chunk ordinal
    let mut c = MapContext::default();
    c.object_maps.insert(
        0x500,
        ObjectMap {
            mem_location: Arc::new(expr("DW_OP_addr 0x1000")),
            chunk: Arc::new(expr("DW_OP_bregx SGPR5 0")),
            vec_location: Arc::new(expr("DW_OP_regx VGPR0")),
            element_size: 4,
            element_count: 8,
        },
    );
    let mut ev = Evaluator::new(&t, &c, eval_opts());
    // Element 9: offset 36, chunk 1 (32 bytes), remainder 4 -> VGPR0 bytes [4, 8).
    let l = ev
        .location(&expr("DW_OP_lit9, DW_OP_object_map 0x500"))
        .unwrap();
    assert_eq!(
        read_through(&t, &l, 4).unwrap().bytes(),
        0x101u32.to_le_bytes()
    );
    // Element 2: chunk 0, not in registers -> memory at 0x1000 + 8.
    let l = ev
        .location(&expr("DW_OP_lit2, DW_OP_object_map 0x500"))
        .unwrap();
    assert_eq!(l, Loc::One(Single::memory(AddressSpace::Global, 0x1008)));
}

#[test]
fn implicit_pointer_dereference_yields_the_pointed_object() {
    let t = wave();
    let mut c = MapContext::default();
    c.pointers.insert(
        0x700,
        PointerTarget::Const(vec![0xaa, 0xbb, 0xcc, 0xdd].into()),
    );
    c.pointers.insert(
        0x710,
        PointerTarget::Location(vec![Arc::new(expr("DW_OP_addr 0x1010"))]),
    );
    let mut ev = Evaluator::new(&t, &c, eval_opts());
    // The location of *p where p is an implicit pointer to a constant, displaced by 1.
    let l = ev
        .location(&expr("DW_OP_implicit_pointer 0x700 +1, DW_OP_deref"))
        .unwrap();
    assert_eq!(
        read_through(&t, &l, 3).unwrap().bytes(),
        vec![0xbb, 0xcc, 0xdd]
    );
    let l = ev
        .location(&expr("DW_OP_implicit_pointer 0x710 +0, DW_OP_deref"))
        .unwrap();
    assert_eq!(l, Loc::One(Single::memory(AddressSpace::Global, 0x1010)));
    // Any other access is ill-formed.
    let err = ev
        .location(&expr(
            "DW_OP_implicit_pointer 0x700 +0, DW_OP_deref_size 0x4",
        ))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::ImplicitPointerAccess);
    // In another address space (generation A only has a code for it): the implicit pointer
    // value is used by DW_OP_LLVM_form_aspace_address of the same space.
    let a = DecodeOptions {
        dialect: amdgpu_dwarf::Dialect::SingleByte,
        ..DecodeOptions::default()
    };
    let bytes = assemble(
        "DW_OP_lit3, DW_OP_LLVM_aspace_implicit_pointer 0x710 +2, DW_OP_deref_size 0x4, DW_OP_lit3, DW_OP_LLVM_form_aspace_address",
        64,
        &a,
    )
    .unwrap();
    let e = Expr::decode(&bytes, &a).unwrap();
    let mut ev = Evaluator::new(
        &t,
        &c,
        EvalOptions {
            decode: a,
            ..EvalOptions::default()
        },
    );
    assert_eq!(
        ev.location(&e).unwrap(),
        Loc::One(Single::memory(AddressSpace::Global, 0x1012))
    );
}

#[test]
fn entry_values_and_call_frame_operations() {
    let t = wave();
    let mut c = MapContext::default();
    c.entry_registers
        .insert(33, Loc::One(Single::implicit(vec![7, 0, 0, 0])));
    c.entry_registers.insert(17, Loc::One(Single::undefined()));
    c.cfa = Some(Loc::One(Single::memory(AddressSpace::PrivateWave, 0x40)));
    let mut ev = Evaluator::new(&t, &c, eval_opts());
    assert_eq!(
        ev.value(&expr("DW_OP_entry_value(DW_OP_regx SGPR1)"))
            .unwrap(),
        Value::Generic(7)
    );
    let err = ev
        .value(&expr("DW_OP_entry_value(DW_OP_regx EXEC)"))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::ReadUndefined);
    let l = ev
        .location(&expr(
            "DW_OP_call_frame_cfa, DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 8",
        ))
        .unwrap();
    assert_eq!(l, Loc::One(Single::memory(AddressSpace::PrivateWave, 0x48)));
    let l = ev
        .location(&expr(
            "DW_OP_LLVM_user DW_OP_LLVM_call_frame_entry_reg EXEC",
        ))
        .unwrap();
    assert_eq!(l, Loc::One(Single::undefined()));
}

#[test]
fn calls_to_non_procedures_push_their_location_and_may_be_in_several_places() {
    let t = wave();
    let mut c = MapContext::default();
    c.callees.insert(
        DieRef::Unit(0x40),
        Callee {
            exprs: vec![
                Arc::new(expr("DW_OP_regx SGPR0")),
                Arc::new(expr("DW_OP_addr 0x1000")),
            ]
            .into(),
            procedure: false,
        },
    );
    let mut ev = Evaluator::new(&t, &c, eval_opts());
    let l = ev
        .location(&expr(
            "DW_OP_call2 0x40, DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 1",
        ))
        .unwrap();
    let Loc::Many(v) = &l else { panic!("{l:?}") };
    assert_eq!(v.len(), 2);
    assert_eq!(v[1], Single::memory(AddressSpace::Global, 0x1001));
    // A write goes to every place.
    let mut t2 = t.clone();
    amdgpu_dwarf::location::write_object(&mut t2, &l, &[0x55]).unwrap();
    assert_eq!(
        read_through(
            &t2,
            &Loc::One(Single::memory(AddressSpace::Global, 0x1001)),
            1
        )
        .unwrap()
        .bytes(),
        vec![0x55]
    );
    let mut b = [0u8; 4];
    use amdgpu_dwarf::Target;
    t2.read_register(Register::sgpr(0), 0, &mut b).unwrap();
    assert_eq!(u32::from_le_bytes(b), 0x1000 | 0x5500);
    // A missing callee is a typed error at the call's offset.
    let err = ev
        .location(&expr("DW_OP_lit0, DW_OP_call4 0x99"))
        .unwrap_err();
    assert_eq!(err.offset, 1);
    assert!(matches!(err.kind, ErrorKind::Unavailable { .. }));
}

#[test]
fn aspace_bregx_and_xderef() {
    let t = wave();
    let mut ev = Evaluator::new(&t, &NoContext, eval_opts());
    let l = ev
        .location(&expr(
            "DW_OP_lit3, DW_OP_LLVM_user DW_OP_LLVM_aspace_bregx SGPR1 4",
        ))
        .unwrap();
    assert_eq!(l, Loc::One(Single::memory(AddressSpace::Local, 6)));
    assert_eq!(read_through(&t, &l, 1).unwrap().bytes(), vec![0x86]);
    // DW_OP_xderef reads the generic type from the address space.
    let v = ev
        .value(&expr("DW_OP_lit3, DW_OP_lit8, DW_OP_xderef_size 0x2"))
        .unwrap();
    assert_eq!(v, Value::Generic(0x8988));
}

#[test]
fn typed_values_and_vector_base_types() {
    let t = wave();
    let mut c = MapContext::default();
    c.base_types.insert(0x10, BaseType::scalar(ate::SIGNED, 2));
    c.base_types.insert(
        0x20,
        BaseType {
            encoding: ate::UNSIGNED,
            byte_size: 4,
            vector_size: 64,
        },
    );
    let mut ev = Evaluator::new(&t, &c, eval_opts());
    let v = ev.value(&expr("DW_OP_const_type (0x10) 0x2 0xfe 0xff, DW_OP_const_type (0x10) 0x2 0x03 0x00, DW_OP_mul")).unwrap();
    assert_eq!(v, Value::I16(-6));
    let err = ev
        .value(&expr(
            "DW_OP_const_type (0x10) 0x2 0x01 0x00, DW_OP_lit1, DW_OP_plus",
        ))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::TypeMismatch("DW_OP_plus"));
    assert_eq!(err.offset, 6, "the DW_OP_plus");
    // A whole VGPR as a vector value, stored as an implicit location and read back.
    let l = ev.location(&expr("DW_OP_regval_type VGPR0 (0x20), DW_OP_stack_value, DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 36")).unwrap();
    assert_eq!(
        read_through(&t, &l, 4).unwrap().bytes(),
        0x109u32.to_le_bytes()
    );
}

#[test]
fn select_bit_piece_rules() {
    let t = wave();
    let mut ev = Evaluator::new(&t, &NoContext, eval_opts());
    // The mask must have at least `count` bits: an SGPR-sized typed value is too small.
    let err = ev
        .location(&expr("DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_regx VGPR0, DW_OP_lit0, DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x20 0x41"))
        .unwrap_err();
    assert!(matches!(err.kind, ErrorKind::BadComposite { .. }), "{err}");
    let err = ev
        .location(&expr(
            "DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_LLVM_user DW_OP_LLVM_extend 0x0 0x4",
        ))
        .unwrap_err();
    assert!(matches!(err.kind, ErrorKind::BadComposite { .. }), "{err}");
    // Selected parts must lie within the selected storage: VGPR0 has 64 dwords.
    let err = ev
        .location(&expr("DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_regx SGPR0, DW_OP_lit2, DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x20 0x2"))
        .unwrap_err();
    assert!(
        matches!(err.kind, ErrorKind::AccessOutOfRange { .. }),
        "{err}"
    );
    // A canonical part list is available on request.
    let l = ev
        .location(&expr("DW_OP_regx SGPR0, DW_OP_regx VGPR0, DW_OP_lit2, DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x20 0x1"))
        .unwrap();
    let amdgpu_dwarf::Storage::Composite(c) = &l.first().storage else {
        panic!()
    };
    assert_eq!(c.parts().len(), 1);
}

#[test]
fn simd_width_line_register_with_an_opt_in_opcode() {
    use amdgpu_dwarf::program::{Program, ProgramOptions};
    // .debug_abbrev: 1 = DW_TAG_compile_unit, no children, DW_AT_stmt_list sec_offset.
    let abbrev = vec![1, 0x11, 0, 0x10, 0x17, 0, 0, 0];
    let mut info = Vec::new();
    let body: Vec<u8> = [
        &4u16.to_le_bytes()[..],
        &0u32.to_le_bytes(),
        &[8, 1],
        &0u32.to_le_bytes(),
    ]
    .concat();
    info.extend_from_slice(&(body.len() as u32).to_le_bytes());
    info.extend_from_slice(&body);
    // .debug_line v4 with opcode_base 14: opcode 13 takes one ULEB (set_simd_width).
    let mut hdr = vec![1u8, 1, 1, (-5i8) as u8, 14, 14];
    hdr.extend_from_slice(&[0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 1]);
    hdr.push(0); // no include directories
    hdr.extend_from_slice(b"a.cl\0");
    hdr.extend_from_slice(&[0, 0, 0, 0]);
    let mut prog = vec![0u8, 9, 2];
    prog.extend_from_slice(&0x1000u64.to_le_bytes());
    prog.extend_from_slice(&[1, 2, 0x10, 13, 16, 1, 2, 0x10, 1, 2, 0x10, 0, 1, 1]);
    let mut unit = 4u16.to_le_bytes().to_vec();
    unit.extend_from_slice(&(hdr.len() as u32).to_le_bytes());
    unit.extend_from_slice(&hdr);
    unit.extend_from_slice(&prog);
    let mut line = (unit.len() as u32).to_le_bytes().to_vec();
    line.extend_from_slice(&unit);
    let sections = |name: &str| -> Option<&[u8]> {
        match name {
            ".debug_abbrev" => Some(&abbrev),
            ".debug_info" => Some(&info),
            ".debug_line" => Some(&line),
            _ => None,
        }
    };
    let p = Program::load(
        sections,
        ProgramOptions {
            simd_width_opcode: Some(13),
            ..ProgramOptions::default()
        },
    )
    .unwrap();
    assert_eq!(p.simd_width_at(0x1008).unwrap(), Some(1));
    assert_eq!(p.simd_width_at(0x1018).unwrap(), Some(16));
    assert_eq!(p.simd_width_at(0x1028).unwrap(), Some(16));
    assert_eq!(p.simd_width_at(0x1030).unwrap(), None);
    assert_eq!(p.line_at(0x1018).unwrap().map(|l| l.1), Some(1));
    let off = Program::load(sections, ProgramOptions::default()).unwrap();
    assert_eq!(off.simd_width_at(0x1018).unwrap(), None, "opt-in only");
}

#[test]
fn dereferencing_a_called_variable_reads_its_pieces_as_the_general_path_does() {
    let t = wave();
    let mut c = MapContext::default();
    c.base_types
        .insert(0x30, BaseType::scalar(ate::UNSIGNED, 8));
    c.base_types
        .insert(0x31, BaseType::scalar(ate::UNSIGNED, 4));
    let vars = [
        "DW_OP_regx SGPR0, DW_OP_piece 0x4, DW_OP_regx SGPR1, DW_OP_piece 0x4",
        "DW_OP_regx SGPR0, DW_OP_piece 0x2, DW_OP_regx SGPR1, DW_OP_piece 0x2",
        "DW_OP_regx SGPR0, DW_OP_bit_piece 0xc 0x0, DW_OP_regx SGPR1, DW_OP_bit_piece 0x34 0x0",
        "DW_OP_piece 0x4, DW_OP_regx SGPR1, DW_OP_piece 0x4",
        "DW_OP_addr 0x1008, DW_OP_piece 0x3, DW_OP_addr 0x1020, DW_OP_piece 0x5",
        "DW_OP_lit5, DW_OP_stack_value, DW_OP_piece 0x4, DW_OP_implicit_value 0x4 0x01 0x02 0x03 0x04, DW_OP_piece 0x4",
        "DW_OP_regx SGPR1",
        "DW_OP_addr 0x1010",
    ];
    for (i, v) in vars.iter().enumerate() {
        c.variable(0x100 + i as u64 * 0x10, expr(v));
    }
    let fast = eval_opts();
    let slow = EvalOptions {
        fast_path: false,
        ..eval_opts()
    };
    let mut checked = 0;
    for i in 0..vars.len() as u64 {
        let die = 0x100 + i * 0x10;
        for d in [
            "DW_OP_deref",
            "DW_OP_deref_type 0x8 (0x30)",
            "DW_OP_deref_type 0x4 (0x31)",
            "DW_OP_deref_type 0x8 (0x31)",
            "DW_OP_deref_size 0x8",
            "DW_OP_deref_size 0x4",
            "DW_OP_deref_size 0x3",
            "DW_OP_deref_size 0x9",
        ] {
            let text = format!("DW_OP_lit1, DW_OP_drop, DW_OP_call_ref {die:#x}, {d}");
            let e = expr(&text);
            let a = Evaluator::new(&t, &c, fast.clone()).value(&e);
            let b = Evaluator::new(&t, &c, slow.clone()).value(&e);
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{text}");
            let e = expr(&format!(
                "{text}, DW_OP_lit2, DW_OP_plus, DW_OP_stack_value"
            ));
            let a = Evaluator::new(&t, &c, fast.clone()).location(&e);
            let b = Evaluator::new(&t, &c, slow.clone()).location(&e);
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{text}");
            checked += 1;
        }
    }
    assert_eq!(checked, 64);
    // The whole-byte register pieces read as one 8-byte value: SGPR0 then SGPR1.
    let mut lo = [0u8; 4];
    let mut hi = [0u8; 4];
    use amdgpu_dwarf::Target;
    t.read_register(Register::sgpr(0), 0, &mut lo).unwrap();
    t.read_register(Register::sgpr(1), 0, &mut hi).unwrap();
    let want = u64::from(u32::from_le_bytes(lo)) | u64::from(u32::from_le_bytes(hi)) << 32;
    let v = Evaluator::new(&t, &c, fast.clone())
        .value(&expr("DW_OP_call_ref 0x100, DW_OP_deref"))
        .unwrap();
    assert_eq!(v, Value::Generic(want));
    // Too short a composite, and an undefined piece: typed errors at the dereference.
    for (die, kind) in [(0x110, "AccessOutOfRange"), (0x130, "ReadUndefined")] {
        let err = Evaluator::new(&t, &c, fast.clone())
            .value(&expr(&format!("DW_OP_call_ref {die:#x}, DW_OP_deref")))
            .unwrap_err();
        assert_eq!(err.offset, 5, "{die:#x}");
        assert!(
            format!("{:?}", err.kind).starts_with(kind),
            "{:?}",
            err.kind
        );
    }
}
