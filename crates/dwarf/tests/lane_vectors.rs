//! Lane vectors (nests of DW_OP_LLVM_extend and DW_OP_LLVM_select_bit_piece, the shape of
//! every DW_AT_LLVM_lane_pc) read the fast way, one read per source, give exactly what the
//! element-by-element walk gives: data and definedness, or the same failure.

use amdgpu_dwarf::eval::{EvalOptions, Evaluator, MapContext};
use amdgpu_dwarf::location::{read_object, read_object_by_leaves, read_words};
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

/// The nest `first`, then (source, mask, select) per entry of `selects`, of sources made by
/// `source` with elements of `bits` bits, as text and as the location it evaluates to.
fn nest(
    source: fn(u8, u64) -> String,
    bits: u32,
    first: (u8, u64),
    selects: &[(u8, u64, u64)],
) -> Result<(String, amdgpu_dwarf::Loc), TestCaseError> {
    let mut text = vec![source(first.0, first.1)];
    for (kind, k, mask) in selects {
        text.push(source(*kind, *k));
        text.push(format!(
            "DW_OP_constu {mask}, DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece {bits:#x} 0x40"
        ));
    }
    let text = text.join(", ");
    let o = DecodeOptions::default();
    let bytes = assemble(&text, 64, &o).unwrap();
    let e = Expr::decode(&bytes, &o).unwrap();
    let t = target();
    let c = MapContext::default();
    match Evaluator::new(&t, &c, EvalOptions::default()).location(&e) {
        Ok(l) => Ok((text, l)),
        Err(err) => Err(TestCaseError::fail(format!("{text}: {err}"))),
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
        let (text, loc) = nest(source, 0x20, (first, k0), &selects)?;
        let t = target();
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

/// One source vector of 64 64-bit elements (PCs): a broadcast value or register pair, an
/// undefined one, a composite of whole halves, or one with a partly defined element.
fn source64(kind: u8, k: u64) -> String {
    match kind % 6 {
        0 => "DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40"
            .into(),
        1 => format!(
            "DW_OP_constu {k}, DW_OP_stack_value, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40"
        ),
        2 => format!(
            "DW_OP_regx SGPR{}, DW_OP_piece 0x4, DW_OP_regx SGPR{}, DW_OP_piece 0x4, \
             DW_OP_LLVM_user DW_OP_LLVM_piece_end, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40",
            k % 16,
            (k >> 8) % 16
        ),
        3 => "DW_OP_regx VGPR0, DW_OP_piece 0x100, DW_OP_regx VGPR1, DW_OP_piece 0x100, \
              DW_OP_LLVM_user DW_OP_LLVM_piece_end"
            .into(),
        4 => "DW_OP_regx VGPR1, DW_OP_piece 0x100, DW_OP_piece 0x100, \
              DW_OP_LLVM_user DW_OP_LLVM_piece_end"
            .into(),
        // Element 32 is half defined.
        _ => "DW_OP_regx VGPR0, DW_OP_piece 0x100, DW_OP_regx SGPR0, DW_OP_piece 0x4, \
              DW_OP_piece 0xfc, \
              DW_OP_LLVM_user DW_OP_LLVM_piece_end"
            .into(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// `read_words` (the lane service's way to read a lane_pc vector) gives, element by
    /// element, what the walk gives: the value where every bit is defined, nothing where
    /// none is; where it declines, the caller takes the general way.
    #[test]
    fn words_equal_the_walk(
        first in any::<u8>(),
        k0 in any::<u64>(),
        selects in proptest::collection::vec((any::<u8>(), any::<u64>(), any::<u64>()), 0..6),
    ) {
        let (text, loc) = nest(source64, 0x40, (first, k0), &selects)?;
        let t = target();
        let walk = read_object_by_leaves(&t, &loc, 64 * 64);
        let want: Option<Vec<Option<u64>>> = walk.as_ref().ok().and_then(|r| {
            let (d, f) = (r.data.as_raw_slice(), r.defined.as_raw_slice());
            (0..64)
                .map(|l| {
                    let w = |b: &[u8]| u64::from_le_bytes(b[l * 8..l * 8 + 8].try_into().unwrap());
                    match w(f) {
                        u64::MAX => Some(Some(w(d))),
                        0 => Some(None),
                        _ => None,
                    }
                })
                .collect()
        });
        let got = read_words(&t, &loc, 64);
        match (&got, &want) {
            (Some(g), Some(w)) => prop_assert_eq!(g, w, "{}", text),
            (Some(_), None) => prop_assert!(false, "read_words gave elements the walk does not: {}", text),
            // Declined: the caller reads the general way (a partly defined element, a
            // failed read, or a location that is not kept as a lane vector).
            (None, Some(_)) => {}
            (None, None) => {}
        }
    }
}

/// The shape annotate-lanes writes (PCs selected under masks, undefined for lanes not
/// entered) is read as words, equal to the walk.
#[test]
fn a_lane_pc_vector_is_read_as_words() {
    let o = DecodeOptions::default();
    let text = "DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40, \
                DW_OP_constu 0x1a40, DW_OP_stack_value, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40, \
                DW_OP_constu 0xff00ff00ff00ff00, DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x40 0x40, \
                DW_OP_constu 0x1b00, DW_OP_stack_value, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40, \
                DW_OP_constu 0x0f0f0f0f0f0f0f0f, DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x40 0x40";
    let e = Expr::decode(&assemble(text, 64, &o).unwrap(), &o).unwrap();
    let t = target();
    let c = MapContext::default();
    let loc = Evaluator::new(&t, &c, EvalOptions::default())
        .location(&e)
        .unwrap();
    let got = read_words(&t, &loc, 64).expect("a lane vector of words");
    for (l, g) in got.iter().enumerate() {
        let want = if 0x0f0f0f0f0f0f0f0fu64 >> l & 1 != 0 {
            Some(0x1b00)
        } else if 0xff00ff00ff00ff00u64 >> l & 1 != 0 {
            Some(0x1a40)
        } else {
            None
        };
        assert_eq!(*g, want, "lane {l}");
    }
}
