//! Lane vectors (nests of DW_OP_LLVM_extend and DW_OP_LLVM_select_bit_piece, the shape of
//! every DW_AT_LLVM_lane_pc) read the fast way, one read per source, give exactly what the
//! element-by-element walk gives: data and definedness, or the same failure.

use amdgpu_dwarf::eval::{EvalOptions, Evaluator, MapContext};
use amdgpu_dwarf::location::{read_object, read_object_by_leaves};
use amdgpu_dwarf::op::{DecodeOptions, Expr};
use amdgpu_dwarf::target::MemTarget;
use amdgpu_dwarf::text::assemble;
use proptest::prelude::*;

fn target() -> MemTarget {
    let mut t = MemTarget::new(64, 3);
    for i in 0..16 {
        t.set_sgpr(i, 0x1111_0000 + u32::from(i));
    }
    t.set_vgpr(0, &(0..64).map(|l| 0xa000 + l).collect::<Vec<u32>>());
    t.set_vgpr(1, &(0..64).map(|l| 0xb000 + l * 3).collect::<Vec<u32>>());
    t
}

/// One source vector of 64 dwords.
fn source(kind: u8, k: u64) -> String {
    match kind % 5 {
        0 => "DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_LLVM_user DW_OP_LLVM_extend 0x20 0x40"
            .into(),
        1 => format!(
            "DW_OP_constu {}, DW_OP_stack_value, DW_OP_LLVM_user DW_OP_LLVM_extend 0x20 0x40",
            k & 0xffff_ffff
        ),
        2 => "DW_OP_regx VGPR0".into(),
        3 => "DW_OP_regx VGPR1".into(),
        _ => format!(
            "DW_OP_regx SGPR{}, DW_OP_LLVM_user DW_OP_LLVM_extend 0x20 0x40",
            k % 16
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn fast_read_equals_the_walk(
        first in any::<u8>(),
        k0 in any::<u64>(),
        selects in proptest::collection::vec((any::<u8>(), any::<u64>(), any::<u64>()), 0..6),
    ) {
        // source; then (source, mask, select) repeatedly: a nest like the lane_pc of
        // regions inside regions.
        let mut text = vec![source(first, k0)];
        for (kind, k, mask) in &selects {
            text.push(source(*kind, *k));
            text.push(format!(
                "DW_OP_constu {mask}, DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x20 0x40"
            ));
        }
        let text = text.join(", ");
        let o = DecodeOptions::default();
        let bytes = assemble(&text, 64, &o).unwrap();
        let e = Expr::decode(&bytes, &o).unwrap();
        let t = target();
        let c = MapContext::default();
        let loc = Evaluator::new(&t, &c, EvalOptions::default()).location(&e);
        let loc = match loc {
            Ok(l) => l,
            Err(err) => return Err(TestCaseError::fail(format!("{text}: {err}"))),
        };
        let fast = read_object(&t, &loc, 64 * 32);
        let walk = read_object_by_leaves(&t, &loc, 64 * 32);
        match (&fast, &walk) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(&a.data, &b.data, "{}", text);
                prop_assert_eq!(&a.defined, &b.defined, "{}", text);
            }
            _ => prop_assert_eq!(fast.is_ok(), walk.is_ok(), "{}", text),
        }
    }
}

/// Found by the `dwarf_eval` fuzz target: a vector whose element size times its count
/// overflows (0x7ffffffffffffc8 bits x 64) is not a lane vector to read the fast way; the
/// read is an error or a result, never an overflow.
#[test]
fn an_element_size_that_overflows_is_not_a_lane_vector() {
    let o = DecodeOptions::default();
    let text = "DW_OP_LLVM_user DW_OP_LLVM_undefined, \
                DW_OP_LLVM_user DW_OP_LLVM_extend 0x7ffffffffffffc8 0x40";
    let e = Expr::decode(&assemble(text, 64, &o).unwrap(), &o).unwrap();
    let t = target();
    let c = MapContext::default();
    if let Ok(loc) = Evaluator::new(&t, &c, EvalOptions::default()).location(&e) {
        for nbits in [8, 14 * 8, 64 * 8] {
            let fast = read_object(&t, &loc, nbits);
            let walk = read_object_by_leaves(&t, &loc, nbits);
            assert_eq!(fast.is_ok(), walk.is_ok(), "{nbits} bits");
        }
    }
}
