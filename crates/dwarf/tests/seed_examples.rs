//! Every worked example of the two seed documents, evaluated against an in-memory wave,
//! with the result the text describes:
//! - `amdgpu-dwarf-ext-location-descriptions-on-stack.txt`, sections "Examples" (DWARF 5)
//!   and "Examples" (extension);
//! - `llvm-amdgpu-usage.txt`, "AMDGPU DW_AT_LLVM_lane_pc" (the `__active_lane_pc` and
//!   `__divergent_lane_pc*` procedures of the IF/THEN/ELSE example).

use amdgpu_dwarf::eval::{EvalOptions, Evaluator, MapContext, read_through};
use amdgpu_dwarf::location::{Loc, Storage};
use amdgpu_dwarf::op::{DecodeOptions, Expr};
use amdgpu_dwarf::target::{AddressSpace, MemTarget, MemorySpace, Register, private_lane_to_wave};
use amdgpu_dwarf::text::assemble;
use amdgpu_dwarf::value::{BaseType, Value, ate};
use amdgpu_dwarf::{ErrorKind, NoContext};

fn expr(text: &str, wave: u32) -> Expr {
    let o = DecodeOptions::default();
    let bytes = assemble(text, wave, &o).unwrap_or_else(|e| panic!("{text}: {e}"));
    Expr::decode(&bytes, &o).expect("decodes")
}

fn wave(ws: u32, lane: u32) -> MemTarget {
    let mut t = MemTarget::new(ws, lane);
    let lanes: Vec<u32> = (0..ws).map(|l| 0x1000_0000 + l).collect();
    t.set_vgpr(0, &lanes);
    let lanes: Vec<u32> = (0..ws).map(|l| 0x2000_0000 + l * 3).collect();
    t.set_vgpr(1, &lanes);
    t.set_sgpr(0, 0x8000);
    t.set_sgpr(3, 0xabcd_1234);
    let mut global = vec![0u8; 0x100];
    for (i, b) in global.iter_mut().enumerate() {
        *b = i as u8;
    }
    t.map(MemorySpace::Global, 0x8000, global);
    t
}

fn loc(t: &MemTarget, e: &Expr) -> Loc {
    Evaluator::new(t, &NoContext, EvalOptions::default())
        .location(e)
        .unwrap_or_else(|err| panic!("{err}"))
}

#[test]
fn dynamic_array_size() {
    // DW_OP_regval_type SGPR0 Generic; DW_OP_deref: the first word of the descriptor.
    let mut t = wave(64, 0);
    t.map(MemorySpace::Global, 0x9000, 42u64.to_le_bytes().to_vec());
    t.set_sgpr(0, 0x9000);
    let e = expr("DW_OP_regval_type SGPR0 0x0, DW_OP_deref", 64);
    let v = Evaluator::new(&t, &NoContext, EvalOptions::default())
        .value(&e)
        .unwrap();
    assert_eq!(v, Value::Generic(42));
}

#[test]
fn variable_in_register() {
    let t = wave(64, 0);
    let l = loc(&t, &expr("DW_OP_regx SGPR0", 64));
    assert_eq!(
        l,
        Loc::One(amdgpu_dwarf::Single::register(Register::sgpr(0)))
    );
    let r = read_through(&t, &l, 4).unwrap();
    assert_eq!(r.bytes(), 0x8000u32.to_le_bytes());
}

#[test]
fn variable_in_memory() {
    // DW_OP_regval_type SGPR0 Generic; DW_OP_plus_uconst 0x10: memory at SGPR0 + 0x10.
    let t = wave(64, 0);
    let l = loc(
        &t,
        &expr("DW_OP_regval_type SGPR0 0x0, DW_OP_plus_uconst 0x10", 64),
    );
    assert_eq!(
        l,
        Loc::One(amdgpu_dwarf::Single::memory(AddressSpace::Global, 0x8010))
    );
    assert_eq!(read_through(&t, &l, 2).unwrap().bytes(), vec![0x10, 0x11]);
}

#[test]
fn variable_spread_across_locations() {
    // 4 bytes of SGPR3, 2 undefined bytes, 2 bytes of memory at SGPR0+0x10.
    let t = wave(64, 0);
    let e = expr(
        "DW_OP_regx SGPR3, DW_OP_piece 4, DW_OP_piece 2, DW_OP_bregx SGPR0 0x10, DW_OP_piece 2",
        64,
    );
    let l = loc(&t, &e);
    let Storage::Composite(c) = &l.first().storage else {
        panic!("composite expected: {l:?}")
    };
    assert_eq!(c.parts().len(), 3);
    assert_eq!(
        c.parts().iter().map(|p| p.bits).collect::<Vec<_>>(),
        vec![32, 16, 16]
    );
    let r = read_through(&t, &l, 8).unwrap();
    let b = r.bytes();
    assert_eq!(&b[0..4], &0xabcd_1234u32.to_le_bytes());
    assert!(!r.byte_defined(4) && !r.byte_defined(5));
    assert_eq!(&b[6..8], &[0x10, 0x11]);
}

#[test]
fn offsetting_a_composite() {
    let t = wave(64, 0);
    // DWARF 5 way fails: DW_OP_plus_uconst cannot act on the incomplete composite.
    let bad = expr(
        "DW_OP_regx SGPR3, DW_OP_piece 4, DW_OP_piece 2, DW_OP_bregx SGPR0 0x10, DW_OP_piece 2, DW_OP_plus_uconst 5",
        64,
    );
    let err = Evaluator::new(&t, &NoContext, EvalOptions::default())
        .location(&bad)
        .unwrap_err();
    assert!(
        matches!(err.kind, ErrorKind::IncompleteComposite(_)),
        "{err}"
    );
    // The extension: complete the composite, then offset it by 5 bytes.
    let good = expr(
        "DW_OP_regx SGPR3, DW_OP_piece 4, DW_OP_piece 2, DW_OP_bregx SGPR0 0x10, DW_OP_piece 2, \
         DW_OP_LLVM_user DW_OP_LLVM_piece_end, DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 5",
        64,
    );
    let a = read_through(&t, &loc(&t, &good), 3).unwrap();
    // ... which is what the hand-made DWARF 5 composite of the text describes.
    let manual = expr("DW_OP_piece 1, DW_OP_bregx SGPR0 0x10, DW_OP_piece 2", 64);
    let b = read_through(&t, &loc(&t, &manual), 3).unwrap();
    assert_eq!(a, b);
    assert!(!a.byte_defined(0));
    assert_eq!(&a.bytes()[1..], &[0x10, 0x11]);
}

#[test]
fn spilled_to_a_lane_of_a_vector_register() {
    // DW_OP_regx VGPR0; DW_OP_offset_uconst 20: lane 5's dword.
    for ws in [32, 64] {
        let t = wave(ws, 0);
        let l = loc(
            &t,
            &expr(
                "DW_OP_regx VGPR0, DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 20",
                ws,
            ),
        );
        assert_eq!(
            read_through(&t, &l, 4).unwrap().bytes(),
            (0x1000_0000u32 + 5).to_le_bytes()
        );
    }
}

const TWO_VGPRS: &str = "DW_OP_regx VGPR0, DW_OP_LLVM_user DW_OP_LLVM_push_lane, DW_OP_constu 4, DW_OP_mul, \
    DW_OP_LLVM_user DW_OP_LLVM_offset, DW_OP_piece 4, DW_OP_regx VGPR1, DW_OP_LLVM_user DW_OP_LLVM_push_lane, \
    DW_OP_constu 4, DW_OP_mul, DW_OP_LLVM_user DW_OP_LLVM_offset, DW_OP_piece 4";

#[test]
fn spread_over_two_vector_registers_with_push_lane() {
    for ws in [32, 64] {
        for lane in [0, 1, 17, ws - 1] {
            let t = wave(ws, lane);
            let l = loc(&t, &expr(TWO_VGPRS, ws));
            let b = read_through(&t, &l, 8).unwrap().bytes();
            assert_eq!(
                &b[0..4],
                &(0x1000_0000 + lane).to_le_bytes(),
                "wave{ws} lane {lane}"
            );
            assert_eq!(&b[4..8], &(0x2000_0000 + lane * 3).to_le_bytes());
        }
    }
}

#[test]
fn mixed_composite_with_piece_end() {
    let mut t = wave(64, 9);
    t.map(MemorySpace::Global, 0xbeef, vec![0x5a, 0xa5]);
    let text = "DW_OP_regx VGPR0, DW_OP_LLVM_user DW_OP_LLVM_push_lane, DW_OP_constu 4, DW_OP_mul, \
        DW_OP_LLVM_user DW_OP_LLVM_offset, DW_OP_piece 4, DW_OP_addr 0xbeef, DW_OP_piece 2, \
        DW_OP_constu 0xf00d, DW_OP_stack_value, DW_OP_piece 2, DW_OP_LLVM_user DW_OP_LLVM_piece_end";
    let e = expr(text, 64);
    let l = loc(&t, &e);
    let b = read_through(&t, &l, 8).unwrap().bytes();
    assert_eq!(&b[0..4], &(0x1000_0000u32 + 9).to_le_bytes());
    assert_eq!(&b[4..6], &[0x5a, 0xa5]);
    assert_eq!(&b[6..8], &[0x0d, 0xf0]);
    // Complete, so it can be offset further (the point of DW_OP_piece_end).
    let text2 = format!("{text}, DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 4");
    let l2 = loc(&t, &expr(&text2, 64));
    assert_eq!(
        read_through(&t, &l2, 4).unwrap().bytes(),
        vec![0x5a, 0xa5, 0x0d, 0xf0]
    );
}

#[test]
fn address_spaces() {
    // The text's example forms an address in address space 1 (per-lane memory in its
    // hypothetical target) and offsets it by 0x10. On AMDGPU the per-lane space is
    // DW_ASPACE_AMDGPU_private_lane (5); 1 is generic, which reaches the same storage
    // through the private aperture.
    let lane = 6;
    let mut t = wave(64, lane);
    let mut scratch = vec![0u8; 64 * 4 * 32];
    for (i, b) in scratch.iter_mut().enumerate() {
        *b = (i * 7) as u8;
    }
    t.map(MemorySpace::PrivateWave, 0, scratch.clone());
    t.set_sgpr(0, 0x20); // frame at lane address 0x20
    let frame = 0x20u64 + 0x10;
    let want: Vec<u8> = (0..4)
        .map(|i| scratch[private_lane_to_wave(frame + i, lane, 64) as usize])
        .collect();
    let e = expr(
        "DW_OP_regval_type SGPR0 0x0, DW_OP_constu 5, DW_OP_LLVM_user DW_OP_LLVM_form_aspace_address, \
         DW_OP_lit16, DW_OP_LLVM_user DW_OP_LLVM_offset",
        64,
    );
    let l = loc(&t, &e);
    assert_eq!(
        l,
        Loc::One(amdgpu_dwarf::Single::memory(
            AddressSpace::PrivateLane,
            frame
        ))
    );
    assert_eq!(read_through(&t, &l, 4).unwrap().bytes(), want);
    // Generic (1) through the private aperture.
    t.private_aperture = Some((0x1_0000_0000, 0x1_0000_0000));
    t.set_register(Register::sgpr(4), 0x20u32.to_le_bytes().to_vec());
    t.set_sgpr(5, 1); // SGPR4:5 is not read; the aperture base is added below
    let e = expr(
        "DW_OP_constu 0x100000020, DW_OP_constu 1, DW_OP_LLVM_user DW_OP_LLVM_form_aspace_address, \
         DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 0x10",
        64,
    );
    let l = loc(&t, &e);
    assert_eq!(read_through(&t, &l, 4).unwrap().bytes(), want);
    // A specific lane's private memory: private_lane<3>.
    let e = expr(
        "DW_OP_constu 0x30, DW_OP_constu 0x23, DW_OP_LLVM_user DW_OP_LLVM_form_aspace_address",
        64,
    );
    let l = loc(&t, &e);
    let want3: Vec<u8> = (0..4)
        .map(|i| scratch[private_lane_to_wave(0x30 + i, 3, 64) as usize])
        .collect();
    assert_eq!(read_through(&t, &l, 4).unwrap().bytes(), want3);
    // An address space the target does not define is ill-formed.
    let e = expr(
        "DW_OP_lit0, DW_OP_lit4, DW_OP_LLVM_user DW_OP_LLVM_form_aspace_address",
        64,
    );
    let err = Evaluator::new(&t, &NoContext, EvalOptions::default())
        .location(&e)
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::UnknownAddressSpace(4));
}

#[test]
fn bit_offsets() {
    // DW_OP_regx SGPR3; DW_OP_uconst 20; DW_OP_bit_offset: starts at bit 20 of SGPR3.
    let t = wave(64, 0);
    let l = loc(
        &t,
        &expr(
            "DW_OP_regx SGPR3, DW_OP_constu 20, DW_OP_LLVM_user DW_OP_LLVM_bit_offset",
            64,
        ),
    );
    assert_eq!(l.first().offset, 20);
    let r = amdgpu_dwarf::location::read_object(&t, &l, 12).unwrap();
    let v = u16::from_le_bytes([r.bytes()[0], r.bytes()[1]]);
    assert_eq!(u32::from(v), 0xabcd_1234 >> 20);
    // Past the end of the register: ill-formed.
    let e = expr(
        "DW_OP_regx SGPR3, DW_OP_constu 32, DW_OP_LLVM_user DW_OP_LLVM_bit_offset",
        64,
    );
    let err = Evaluator::new(&t, &NoContext, EvalOptions::default())
        .location(&e)
        .unwrap_err();
    assert!(
        matches!(err.kind, ErrorKind::OffsetOutOfRange { .. }),
        "{err}"
    );
}

// ---- lane_pc (llvm-amdgpu-usage.txt, "AMDGPU DW_AT_LLVM_lane_pc") ----

const UINT64: u64 = 0x30; // unit offset of %__uint_64
const ACTIVE: u64 = 0x100; // .debug_info offsets of the procedures and variables
const DIVERGENT: u64 = 0x110;
const DIV_1_THEN: u64 = 0x120;
const DIV_1_1_THEN: u64 = 0x130;
const DIV_1_1_ELSE: u64 = 0x140;
const DIV_1_ELSE: u64 = 0x150;
const SAVE_1: u64 = 0x160;
const SAVE_1_1: u64 = 0x170;
const LEX_1_START: u64 = 0x4000;
const LEX_1_1_START: u64 = 0x4100;
const LEX_1_1_END: u64 = 0x4200;
const LEX_1_END: u64 = 0x4300;

fn region(parent: u64, pc: u64, save: u64) -> String {
    format!(
        "DW_OP_call_ref 0x{parent:x}, DW_OP_addr 0x{pc:x}, DW_OP_stack_value, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40, \
         DW_OP_call_ref 0x{save:x}, DW_OP_deref_type 0x8 (0x{UINT64:x}), DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x40 0x40"
    )
}

fn lane_pc_context() -> MapContext {
    let mut c = MapContext::default();
    c.base_types
        .insert(UINT64, BaseType::scalar(ate::UNSIGNED, 8));
    c.procedure(
        ACTIVE,
        expr(
            &format!(
                "DW_OP_regx PC, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40, DW_OP_regval_type EXEC (0x{UINT64:x}), \
                 DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x40 0x40"
            ),
            64,
        ),
    );
    c.procedure(
        DIVERGENT,
        expr(
            "DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40",
            64,
        ),
    );
    c.procedure(
        DIV_1_THEN,
        expr(&region(DIVERGENT, LEX_1_START, SAVE_1), 64),
    );
    c.procedure(
        DIV_1_1_THEN,
        expr(&region(DIV_1_THEN, LEX_1_1_START, SAVE_1_1), 64),
    );
    c.procedure(
        DIV_1_1_ELSE,
        expr(&region(DIV_1_THEN, LEX_1_1_END, SAVE_1_1), 64),
    );
    c.procedure(DIV_1_ELSE, expr(&region(DIVERGENT, LEX_1_END, SAVE_1), 64));
    // The saved EXEC masks live in SGPR pairs (%1 in SGPR10:11, %3 in SGPR12:13).
    c.variable(
        SAVE_1,
        expr(
            "DW_OP_regx SGPR10, DW_OP_piece 4, DW_OP_regx SGPR11, DW_OP_piece 4",
            64,
        ),
    );
    c.variable(
        SAVE_1_1,
        expr(
            "DW_OP_regx SGPR12, DW_OP_piece 4, DW_OP_regx SGPR13, DW_OP_piece 4",
            64,
        ),
    );
    c
}

/// Evaluates `DW_OP_call_ref region; DW_OP_call_ref __active_lane_pc` and returns each
/// lane's PC (None: undefined).
fn lane_pcs(t: &MemTarget, c: &MapContext, region: u64) -> Vec<Option<u64>> {
    let e = expr(
        &format!("DW_OP_call_ref 0x{region:x}, DW_OP_call_ref 0x{ACTIVE:x}"),
        64,
    );
    let l = Evaluator::new(t, c, EvalOptions::default())
        .location(&e)
        .unwrap_or_else(|err| panic!("{err}"));
    let r = read_through(t, &l, 64 * 8).unwrap();
    let b = r.bytes();
    (0..64)
        .map(|i| {
            let defined = (0..8).all(|k| r.byte_defined(i * 8 + k));
            defined.then(|| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap()))
        })
        .collect()
}

fn set_pair(t: &mut MemTarget, lo: u16, v: u64) {
    t.set_sgpr(lo, v as u32);
    t.set_sgpr(lo + 1, (v >> 32) as u32);
}

#[test]
fn lane_pc_of_the_if_then_else_example() {
    let c = lane_pc_context();
    // Lanes 0..47 active on entry; c1 true on lanes 0..23; c2 true on even lanes.
    let entry: u64 = (1 << 48) - 1;
    let c1: u64 = (1 << 24) - 1;
    let c2: u64 = 0x5555_5555_5555_5555;
    let s1 = entry; // %1 = EXEC at lex_1
    let s3 = s1 & c1; // %3 = EXEC at lex_1_1
    let mut t = MemTarget::new(64, 0);
    set_pair(&mut t, 10, s1);
    set_pair(&mut t, 12, s3);
    let bit = |m: u64, l: usize| m >> l & 1 == 1;

    // Before the IF (region: __divergent_lane_pc): active lanes at the PC, others undefined.
    t.set_exec(entry);
    t.set_pc(0x3000);
    let pcs = lane_pcs(&t, &c, DIVERGENT);
    for (l, pc) in pcs.iter().enumerate() {
        assert_eq!(*pc, bit(entry, l).then_some(0x3000), "lane {l}");
    }

    // Inner THEN (lex_1_1_then): EXEC = %3 & c2.
    let exec = s3 & c2;
    t.set_exec(exec);
    t.set_pc(0x4150);
    let pcs = lane_pcs(&t, &c, DIV_1_1_THEN);
    for (l, pc) in pcs.iter().enumerate() {
        let want = if bit(exec, l) {
            Some(0x4150)
        } else if bit(s3, l) {
            Some(LEX_1_1_START) // waiting at the start of the inner IF
        } else if bit(s1, l) {
            Some(LEX_1_START) // waiting at the start of the outer IF (for its ELSE)
        } else {
            None // not active on entry
        };
        assert_eq!(*pc, want, "then/then lane {l}");
    }

    // Inner ELSE (lex_1_1_else): EXEC = ~EXEC & %3.
    let exec = !(s3 & c2) & s3;
    t.set_exec(exec);
    t.set_pc(0x41a0);
    let pcs = lane_pcs(&t, &c, DIV_1_1_ELSE);
    for (l, pc) in pcs.iter().enumerate() {
        let want = if bit(exec, l) {
            Some(0x41a0)
        } else if bit(s3, l) {
            Some(LEX_1_1_END) // finished the THEN, waiting at the end
        } else if bit(s1, l) {
            Some(LEX_1_START)
        } else {
            None
        };
        assert_eq!(*pc, want, "then/else lane {l}");
    }

    // Outer ELSE (lex_1_else): EXEC = ~EXEC & %1.
    let exec = !s3 & s1;
    t.set_exec(exec);
    t.set_pc(0x4250);
    let pcs = lane_pcs(&t, &c, DIV_1_ELSE);
    for (l, pc) in pcs.iter().enumerate() {
        let want = if bit(exec, l) {
            Some(0x4250)
        } else if bit(s1, l) {
            Some(LEX_1_END)
        } else {
            None
        };
        assert_eq!(*pc, want, "else lane {l}");
    }
}

// ---- clang-19 output under the compatibility reading ----

#[test]
fn clang19_private_and_local_variables() {
    use amdgpu_dwarf::eval::Compat;
    let c = MapContext {
        frame_base: Some(std::sync::Arc::new(expr("DW_OP_regx SGPR33", 64))),
        addresses: vec![0x40],
        ..MapContext::default()
    };
    let lane = 5;
    let mut t = wave(64, lane);
    t.set_sgpr(33, 0x100 * 64); // wave-scaled frame offset: lane address 0x100
    let mut scratch = vec![0u8; 64 * 4 * 0x50];
    let want = 0xdead_beefu32;
    for (i, b) in want.to_le_bytes().iter().enumerate() {
        scratch[private_lane_to_wave(0x110 + i as u64, lane, 64) as usize] = *b;
    }
    t.map(MemorySpace::PrivateWave, 0, scratch);
    t.map(MemorySpace::Local, 0x40, vec![1, 2, 3, 4]);
    let opts = EvalOptions {
        compat: Compat::clang19(true),
        ..EvalOptions::default()
    };
    let mut ev = Evaluator::new(&t, &c, opts);
    let l = ev
        .location(&expr(
            "DW_OP_fbreg +16, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
            64,
        ))
        .unwrap();
    assert_eq!(
        l,
        Loc::One(amdgpu_dwarf::Single::memory(
            AddressSpace::PrivateLane,
            0x110
        ))
    );
    assert_eq!(read_through(&t, &l, 4).unwrap().bytes(), want.to_le_bytes());
    let l = ev
        .location(&expr(
            "DW_OP_addrx 0x0, DW_OP_lit2, DW_OP_swap, DW_OP_xderef",
            64,
        ))
        .unwrap();
    assert_eq!(read_through(&t, &l, 4).unwrap().bytes(), vec![1, 2, 3, 4]);
    // The seed's reading of the same bytes dereferences generic memory instead.
    let mut ev = Evaluator::new(&t, &c, EvalOptions::default());
    assert!(
        ev.location(&expr(
            "DW_OP_fbreg +16, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
            64
        ))
        .is_err()
    );
}

#[test]
fn clang19_register_value_under_the_private_suffix() {
    use amdgpu_dwarf::eval::Compat;
    // -O2: DW_OP_bregx VGPR0 (wave32 number 0x600) +0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef.
    // The producer means: the variable is VGPR0 (the focused lane's element), not private
    // memory at the address VGPR0 holds. The scratch at that address holds something else,
    // which must not be what is read.
    let lane = 3;
    let mut t = wave(32, lane);
    let lanes: Vec<u32> = (0..32).map(|l| 0x40 + l * 4).collect();
    t.set_vgpr(0, &lanes);
    let mut scratch = vec![0u8; 32 * 4 * 0x40];
    let addr = u64::from(lanes[lane as usize]);
    for (i, b) in 0x1234_5678u32.to_le_bytes().iter().enumerate() {
        scratch[private_lane_to_wave(addr + i as u64, lane, 32) as usize] = *b;
    }
    t.map(MemorySpace::PrivateWave, 0, scratch);
    let e = expr(
        "DW_OP_bregx 0x600 +0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
        32,
    );
    let opts = EvalOptions {
        compat: Compat::clang19(false),
        ..EvalOptions::default()
    };
    let l = Evaluator::new(&t, &NoContext, opts).location(&e).unwrap();
    assert_eq!(
        read_through(&t, &l, 4).unwrap().bytes(),
        lanes[lane as usize].to_le_bytes()
    );
    // Bounded to the lane's element: the next lane's bytes are not part of it.
    assert!(read_through(&t, &l, 8).is_err());
}
