//! DWARF expression evaluation throughput.
//!
//! - `dwarf5_set`: a set of DWARF 5 expressions both evaluators support, evaluated by
//!   amdgpu-dwarf (decoded once, as a debugger holds them; and decoded every time) and by
//!   `gimli::read::Evaluation` (which decodes as it goes) in the same run. Throughput is in
//!   evaluations.
//! - `lane_pc_wave64`: the DW_AT_LLVM_lane_pc expression of the seed's IF/THEN/ELSE example
//!   (`DW_OP_call_ref __divergent_lane_pc_1_then; DW_OP_call_ref __active_lane_pc`) over a
//!   wave64, through its DWARF procedures, to a 64-element composite location.
//!
//! Targets: `dwarf5_set/amdsim_predecoded` at least twice the throughput of
//! `dwarf5_set/gimli`; `lane_pc_wave64/amdsim` at least 2 million evaluations per second
//! per core. Wall-clock figures swing with the machine's load; the same expressions run by
//! amdgpu-dwarf's `eval_rate` example under `valgrind --tool=callgrind` give instruction
//! counts per evaluation that do not.

use amdgpu_dwarf::eval::{EvalOptions, Evaluator, MapContext};
use amdgpu_dwarf::op::{DecodeOptions, Expr};
use amdgpu_dwarf::target::{MemTarget, MemorySpace, Target};
use amdgpu_dwarf::text::assemble;
use amdgpu_dwarf::value::{BaseType, ate};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gimli::{EndianSlice, LittleEndian};
use std::hint::black_box;

const SET: &[&str] = &[
    "DW_OP_fbreg +16",
    "DW_OP_bregx SGPR4_LO16+8, DW_OP_deref",
    "DW_OP_lit7, DW_OP_lit5, DW_OP_mul, DW_OP_constu 0x1000, DW_OP_plus, DW_OP_stack_value",
    "DW_OP_regx SGPR3_LO16, DW_OP_piece 0x4, DW_OP_bregx SGPR0_LO16+16, DW_OP_piece 0x4",
    "DW_OP_constu 0x1010, DW_OP_deref_size 0x4, DW_OP_lit3, DW_OP_shl, DW_OP_lit1, DW_OP_or, DW_OP_stack_value",
    "DW_OP_lit5, DW_OP_lit3, DW_OP_over, DW_OP_over, DW_OP_gt, DW_OP_bra +1, DW_OP_swap, DW_OP_drop, DW_OP_stack_value",
    "DW_OP_implicit_value 0x4 0x01 0x02 0x03 0x04",
    "DW_OP_regx SGPR5_LO16",
];

fn target() -> MemTarget {
    let mut t = MemTarget::new(64, 0);
    for i in 0..8 {
        t.set_sgpr(i, 0x1000 + u32::from(i) * 8);
    }
    t.map(MemorySpace::Global, 0x1000, (0..=255).collect());
    t
}

fn gimli_eval(bytes: &[u8], t: &MemTarget) -> usize {
    let enc = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 5,
        address_size: 8,
    };
    let mut e = gimli::Evaluation::new(EndianSlice::new(bytes, LittleEndian), enc);
    let mut r = e.evaluate().expect("gimli evaluates");
    loop {
        use gimli::EvaluationResult::*;
        r = match r {
            Complete => break,
            RequiresMemory { address, size, .. } => {
                let mut b = [0u8; 8];
                t.read_memory(MemorySpace::Global, address, &mut b[..usize::from(size)])
                    .expect("mapped");
                e.resume_with_memory(gimli::Value::Generic(u64::from_le_bytes(b)))
                    .unwrap()
            }
            RequiresRegister { register, .. } => {
                let mut b = [0u8; 8];
                t.read_register(u32::from(register.0), 0, &mut b[..4])
                    .expect("register");
                e.resume_with_register(gimli::Value::Generic(u64::from_le_bytes(b)))
                    .unwrap()
            }
            RequiresFrameBase => e.resume_with_frame_base(0x1040).unwrap(),
            other => panic!("unexpected {other:?}"),
        };
    }
    e.result().len()
}

fn dwarf5_set(c: &mut Criterion) {
    let o = DecodeOptions::default();
    let bytes: Vec<Vec<u8>> = SET
        .iter()
        .map(|s| assemble(s, 64, &o).expect("assembles"))
        .collect();
    let exprs: Vec<Expr> = bytes
        .iter()
        .map(|b| Expr::decode(b, &o).expect("decodes"))
        .collect();
    let t = target();
    let fb = Expr::decode(&assemble("DW_OP_constu 0x1040", 64, &o).unwrap(), &o).unwrap();
    let ctx = MapContext {
        frame_base: Some(std::sync::Arc::new(fb)),
        ..MapContext::default()
    };
    let mut g = c.benchmark_group("dwarf5_set");
    g.throughput(Throughput::Elements(SET.len() as u64));
    g.bench_function("amdsim_predecoded", |b| {
        let mut ev = Evaluator::new(&t, &ctx, EvalOptions::default());
        b.iter(|| {
            for e in &exprs {
                black_box(ev.location(black_box(e)).expect("evaluates"));
            }
        })
    });
    g.bench_function("amdsim_decode_and_eval", |b| {
        let mut ev = Evaluator::new(&t, &ctx, EvalOptions::default());
        b.iter(|| {
            for bytes in &bytes {
                let e = Expr::decode(black_box(bytes), &o).expect("decodes");
                black_box(ev.location(&e).expect("evaluates"));
            }
        })
    });
    g.bench_function("gimli", |b| {
        b.iter(|| {
            for bytes in &bytes {
                black_box(gimli_eval(black_box(bytes), &t));
            }
        })
    });
    g.finish();
}

fn lane_pc(c: &mut Criterion) {
    let o = DecodeOptions::default();
    let asm =
        |s: &str| Expr::decode(&assemble(s, 64, &o).expect("assembles"), &o).expect("decodes");
    let mut ctx = MapContext::default();
    ctx.base_types
        .insert(0x30, BaseType::scalar(ate::UNSIGNED, 8));
    ctx.procedure(
        0x100,
        asm("DW_OP_regx PC, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40, DW_OP_regval_type EXEC (0x30), \
             DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x40 0x40"),
    );
    ctx.procedure(
        0x110,
        asm("DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40"),
    );
    ctx.procedure(
        0x120,
        asm("DW_OP_call_ref 0x110, DW_OP_addr 0x4000, DW_OP_stack_value, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40, \
             DW_OP_call_ref 0x160, DW_OP_deref_type 0x8 (0x30), DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x40 0x40"),
    );
    ctx.variable(
        0x160,
        asm("DW_OP_regx SGPR10, DW_OP_piece 0x4, DW_OP_regx SGPR11, DW_OP_piece 0x4"),
    );
    let expr = asm("DW_OP_call_ref 0x120, DW_OP_call_ref 0x100");
    let mut t = MemTarget::new(64, 0);
    t.set_pc(0x4100);
    t.set_exec(0x0000_00ff_00ff_00ff);
    t.set_sgpr(10, 0xffff_ffff);
    t.set_sgpr(11, 0x0000_ffff);
    let mut g = c.benchmark_group("lane_pc_wave64");
    g.throughput(Throughput::Elements(1));
    g.bench_function("amdsim", |b| {
        let mut ev = Evaluator::new(&t, &ctx, EvalOptions::default());
        b.iter(|| black_box(ev.location(black_box(&expr)).expect("evaluates")))
    });
    g.bench_function("amdsim_eval_and_read_64_pcs", |b| {
        let mut ev = Evaluator::new(&t, &ctx, EvalOptions::default());
        b.iter(|| {
            let l = ev.location(black_box(&expr)).expect("evaluates");
            black_box(amdgpu_dwarf::eval::read_through(&t, &l, 64 * 8).expect("reads"))
        })
    });
    g.finish();
}

criterion_group!(benches, dwarf5_set, lane_pc);
criterion_main!(benches);
