//! Evaluations per second of the lane_pc expression of the seed's IF/THEN/ELSE example
//! over a wave64 (through its DWARF procedures), and of a set of DWARF 5 expressions:
//! `cargo run --release -p amdgpu-dwarf --example eval_rate -- [lane_pc|set|decode_set|gimli_set] [N]`
//! (`decode_set`: the set decoded before each evaluation; `gimli_set`: the same DWARF 5
//! set through `gimli::read::Evaluation`; `set:I` and
//! `gimli_set:I`: only expression I of the set).
//!
//! Instruction counts per evaluation do not depend on the load of the machine: run it
//! under `valgrind --tool=callgrind` with two values of N and divide the difference of
//! the totals by the difference of the evaluation counts (set up and start-up cancel).

use amdgpu_dwarf::eval::{EvalOptions, Evaluator, MapContext};
use amdgpu_dwarf::op::{DecodeOptions, Expr};
use amdgpu_dwarf::target::{MemTarget, MemorySpace};
use amdgpu_dwarf::text::assemble;
use amdgpu_dwarf::value::{BaseType, ate};
use std::hint::black_box;
use std::time::Instant;

fn asm(s: &str) -> Expr {
    let o = DecodeOptions::default();
    Expr::decode(&assemble(s, 64, &o).expect("assembles"), &o).expect("decodes")
}

fn gimli_eval(bytes: &[u8], t: &MemTarget) -> usize {
    use amdgpu_dwarf::Target;
    use gimli::{EndianSlice, LittleEndian};
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
                    .expect("resumes")
            }
            RequiresRegister { register, .. } => {
                let mut b = [0u8; 8];
                t.read_register(u32::from(register.0), 0, &mut b[..4])
                    .expect("register");
                e.resume_with_register(gimli::Value::Generic(u64::from_le_bytes(b)))
                    .expect("resumes")
            }
            RequiresFrameBase => e.resume_with_frame_base(0x1040).expect("resumes"),
            other => panic!("unexpected {other:?}"),
        };
    }
    e.result().len()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = args.get(1).map(String::as_str).unwrap_or("lane_pc");
    // `set:N` / `gimli_set:N`: only expression N of the set.
    let (what, only) = match arg.split_once(':') {
        Some((w, n)) => (w, n.parse::<usize>().ok()),
        None => (arg, None),
    };
    let keep = |i: usize| only.is_none_or(|n| n == i);
    let n: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
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
    ctx.frame_base = Some(std::sync::Arc::new(asm("DW_OP_constu 0x1040")));
    let mut t = MemTarget::new(64, 0);
    t.set_pc(0x4100);
    t.set_exec(0x0000_00ff_00ff_00ff);
    t.set_sgpr(10, 0xffff_ffff);
    t.set_sgpr(11, 0x0000_ffff);
    for i in 0..8 {
        t.set_sgpr(i, 0x1000 + u32::from(i) * 8);
    }
    t.map(MemorySpace::Global, 0x1000, (0..=255).collect());
    let set_text = [
        "DW_OP_fbreg +16",
        "DW_OP_bregx SGPR4_LO16+8, DW_OP_deref",
        "DW_OP_lit7, DW_OP_lit5, DW_OP_mul, DW_OP_constu 0x1000, DW_OP_plus, DW_OP_stack_value",
        "DW_OP_regx SGPR3_LO16, DW_OP_piece 0x4, DW_OP_bregx SGPR0_LO16+16, DW_OP_piece 0x4",
        "DW_OP_constu 0x1010, DW_OP_deref_size 0x4, DW_OP_lit3, DW_OP_shl, DW_OP_lit1, DW_OP_or, DW_OP_stack_value",
        "DW_OP_lit5, DW_OP_lit3, DW_OP_over, DW_OP_over, DW_OP_gt, DW_OP_bra +1, DW_OP_swap, DW_OP_drop, DW_OP_stack_value",
        "DW_OP_implicit_value 0x4 0x01 0x02 0x03 0x04",
        "DW_OP_regx SGPR5_LO16",
    ];
    let o = DecodeOptions::default();
    let bytes: Vec<Vec<u8>> = set_text
        .iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(_, s)| assemble(s, 64, &o).expect("assembles"))
        .collect();
    let report = |evals: f64, start: Instant| {
        let dt = start.elapsed().as_secs_f64();
        println!(
            "{what}: {evals} evaluations in {dt:.3} s: {:.0} per second",
            evals / dt
        );
    };
    let mut ev = Evaluator::new(&t, &ctx, EvalOptions::default());
    match what {
        "gimli_set" => {
            let start = Instant::now();
            for _ in 0..n {
                for b in &bytes {
                    black_box(gimli_eval(black_box(b), &t));
                }
            }
            report(n as f64 * bytes.len() as f64, start);
        }
        "decode_set" => {
            // Decoding and evaluating each time, as `dwarf5_set/amdsim_decode_and_eval`
            // does.
            let start = Instant::now();
            for _ in 0..n {
                for b in &bytes {
                    let e = Expr::decode(black_box(b), &o).expect("decodes");
                    black_box(ev.location(&e).expect("evaluates"));
                }
            }
            report(n as f64 * bytes.len() as f64, start);
        }
        _ => {
            let exprs: Vec<Expr> = if what == "set" {
                bytes
                    .iter()
                    .map(|b| Expr::decode(b, &o).expect("decodes"))
                    .collect()
            } else {
                vec![asm("DW_OP_call_ref 0x120, DW_OP_call_ref 0x100")]
            };
            let start = Instant::now();
            for _ in 0..n {
                for e in &exprs {
                    black_box(ev.location(black_box(e)).expect("evaluates"));
                }
            }
            report(n as f64 * exprs.len() as f64, start);
        }
    }
}
