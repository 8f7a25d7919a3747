//! The DWARF expression evaluator on arbitrary expressions against a small
//! wave state: evaluation and a read through the result stay within the caps.
#![no_main]

use amdgpu_dwarf::eval::{EvalOptions, Evaluator, Outcome, ResultKind, read_through};
use amdgpu_dwarf::op::{DecodeOptions, Expr, Extensions};
use amdgpu_dwarf::state::State;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const STATE: &str = r#"(
  wave_size: 64, lane: 5, pc: 0x1000, exec: 0xffff00ff,
  registers: { "SGPR0": Int(0x8000), "VGPR0": Lanes([1, 2, 3]), "SGPR33": Int(0x10) },
  memory: [ (space: Global, address: 0x8000, bytes: [42, 0, 0, 0, 1, 2, 3, 4]),
            (space: PrivateWave, address: 0, hex: "00ff00ff00ff00ff") ],
  base_types: { 0x30: (encoding: 7, byte_size: 8), 0x38: (encoding: 4, byte_size: 4) },
  procedures: { 0x100: "DW_OP_lit1, DW_OP_plus" },
  frame_base: "DW_OP_regx SGPR33", addresses: [0x40],
)"#;

fuzz_target!(|data: &[u8]| {
    static WORLD: OnceLock<(amdgpu_dwarf::MemTarget, amdgpu_dwarf::eval::MapContext)> =
        OnceLock::new();
    let o = DecodeOptions {
        extensions: Extensions::proposals(),
        ..DecodeOptions::default()
    };
    let (t, ctx) = WORLD.get_or_init(|| {
        let st = State::parse(STATE).expect("the state parses");
        (
            st.target().expect("a target"),
            st.context(&o).expect("a context"),
        )
    });
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let Ok(expr) = Expr::decode(bytes, &o) else {
        return;
    };
    let opts = EvalOptions {
        decode: o.clone(),
        proposals: true,
        max_iterations: 10_000,
        ..EvalOptions::default()
    };
    let kind = if sel & 1 != 0 {
        ResultKind::Value
    } else {
        ResultKind::Location
    };
    let mut ev = Evaluator::new(t, ctx, opts);
    if let Ok(Outcome::Location(l)) = ev.evaluate(&expr, kind, &[]) {
        let _ = read_through(t, &l, usize::from(sel >> 1));
    }
});
