//! clang-19 `-O2` locations under `Compat::clang19`: a register or a computed value
//! followed by clang's private-address suffix (`DW_OP_lit1, DW_OP_swap, DW_OP_xderef`) is
//! the variable's value, the `-O0` frame-base form stays private memory, anything else
//! carrying the suffix is refused as not known, and the normative reading is untouched.

use amdgpu_dwarf::eval::{Compat, EvalOptions, Evaluator, MapContext, read_through};
use amdgpu_dwarf::location::{Loc, Single, Storage, write_object};
use amdgpu_dwarf::op::{DecodeOptions, Expr};
use amdgpu_dwarf::target::{AddressSpace, MemTarget, MemorySpace, private_lane_to_wave};
use amdgpu_dwarf::text::assemble;
use amdgpu_dwarf::value::{BaseType, ate};
use amdgpu_dwarf::{Error, ErrorKind, NoContext};
use std::sync::Arc;

fn expr(text: &str, wave: u32) -> Expr {
    let o = DecodeOptions::default();
    let bytes = assemble(text, wave, &o).unwrap_or_else(|e| panic!("{text}: {e}"));
    Expr::decode(&bytes, &o).expect("decodes")
}

/// A wave whose VGPR0/VGPR1 hold a distinct value per lane, SGPR4 a scalar, and whose
/// scratch holds a marker everywhere (so a read of private memory is recognisable).
fn wave(ws: u32, lane: u32) -> MemTarget {
    let mut t = registers(ws, lane);
    t.map(
        MemorySpace::PrivateWave,
        0,
        vec![0xee; (ws * 4 * 0x800) as usize],
    );
    t
}

/// [`wave`] without scratch.
fn registers(ws: u32, lane: u32) -> MemTarget {
    let mut t = MemTarget::new(ws, lane);
    let v0: Vec<u32> = (0..ws).map(|l| 0x1000 + l * 4).collect();
    t.set_vgpr(0, &v0);
    let v1: Vec<u32> = (0..ws).map(|l| 0xbeef_0000 + l).collect();
    t.set_vgpr(1, &v1);
    t.set_sgpr(4, 0x0abc_def0);
    t.set_sgpr(33, 0x40 * ws);
    t
}

fn clang19() -> EvalOptions {
    EvalOptions {
        compat: Compat::clang19(true),
        ..EvalOptions::default()
    }
}

fn location(t: &MemTarget, c: &MapContext, text: &str, opts: EvalOptions) -> Result<Loc, Error> {
    Evaluator::new(t, c, opts).location(&expr(text, t_wave(t)))
}

fn t_wave(t: &MemTarget) -> u32 {
    amdgpu_dwarf::Target::wave_size(t)
}

fn read(t: &MemTarget, l: &Loc, n: usize) -> Vec<u8> {
    read_through(t, l, n).expect("reads").bytes()
}

fn not_known(r: Result<Loc, Error>) -> bool {
    matches!(
        r,
        Err(Error {
            kind: ErrorKind::ValueNotKnown { .. },
            ..
        })
    )
}

#[test]
fn a_vgpr_under_the_suffix_is_the_focused_lanes_element() {
    for (ws, v0, v1) in [(32u32, "0x600", "0x601"), (64, "0xa00", "0xa01")] {
        for lane in [0, 1, 5, ws - 1] {
            let t = wave(ws, lane);
            let c = MapContext::default();
            let want = (0x1000 + lane * 4).to_le_bytes();
            for text in [
                format!("DW_OP_bregx {v0} +0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef"),
                format!("DW_OP_regx {v0}, DW_OP_lit1, DW_OP_swap, DW_OP_xderef"),
                format!("DW_OP_bregx {v0} +0, DW_OP_constu 0x1, DW_OP_swap, DW_OP_xderef"),
            ] {
                let l = location(&t, &c, &text, clang19()).unwrap();
                assert_eq!(read(&t, &l, 4), want, "{text} lane {lane}");
                // A 2-byte variable: the element's low bytes.
                assert_eq!(read(&t, &l, 2), want[..2], "{text} lane {lane}");
                // Never the next lane's bytes.
                assert!(read_through(&t, &l, 8).is_err(), "{text} lane {lane}");
            }
            // A displacement adds to the element's value (read-only).
            let text = format!("DW_OP_bregx {v0} +5, DW_OP_lit1, DW_OP_swap, DW_OP_xderef");
            let l = location(&t, &c, &text, clang19()).unwrap();
            assert_eq!(read(&t, &l, 4), (0x1005 + lane * 4).to_le_bytes());
            let mut tw = t.clone();
            assert!(write_object(&mut tw, &l, &[0; 4]).is_err());
            // Two registers in pieces: a 64-bit variable from two lane elements.
            let text = format!(
                "DW_OP_bregx {v0} +0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_piece 0x4, \
                 DW_OP_regx {v1}, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_piece 0x4"
            );
            let l = location(&t, &c, &text, clang19()).unwrap();
            let want64 = u64::from(0x1000 + lane * 4) | u64::from(0xbeef_0000 + lane) << 32;
            assert_eq!(read(&t, &l, 8), want64.to_le_bytes());
        }
    }
}

#[test]
fn a_write_through_a_vgpr_variable_changes_only_the_focused_lane() {
    let mut t = wave(64, 7);
    let c = MapContext::default();
    let l = location(
        &t,
        &c,
        "DW_OP_bregx 0xa00 +0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
        clang19(),
    )
    .unwrap();
    write_object(&mut t, &l, &0x5555_aaaau32.to_le_bytes()).unwrap();
    let mut all = vec![0u8; 256];
    amdgpu_dwarf::Target::read_register(&t, 2560, 0, &mut all).unwrap();
    for lane in 0..64u32 {
        let got = u32::from_le_bytes(all[lane as usize * 4..][..4].try_into().unwrap());
        let want = if lane == 7 {
            0x5555_aaaa
        } else {
            0x1000 + lane * 4
        };
        assert_eq!(got, want, "lane {lane}");
    }
}

#[test]
fn an_sgpr_under_the_suffix_is_the_register() {
    let t = wave(64, 9);
    let c = MapContext::default();
    let l = location(
        &t,
        &c,
        "DW_OP_bregx 0x24 +0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
        clang19(),
    )
    .unwrap();
    assert_eq!(read(&t, &l, 4), 0x0abc_def0u32.to_le_bytes());
    assert!(read_through(&t, &l, 8).is_err());
    let l = location(
        &t,
        &c,
        "DW_OP_bregx 0x24 -16, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
        clang19(),
    )
    .unwrap();
    assert_eq!(read(&t, &l, 4), 0x0abc_dee0u32.to_le_bytes());
}

#[test]
fn computed_values_under_the_suffix_are_the_values() {
    let t = wave(32, 6);
    let mut c = MapContext::default();
    c.base_types
        .insert(0x2b, BaseType::scalar(ate::UNSIGNED, 2));
    c.base_types
        .insert(0x2f, BaseType::scalar(ate::UNSIGNED, 8));
    let cases = [
        (
            "DW_OP_lit7, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_stack_value",
            7u64,
        ),
        (
            "DW_OP_constu 0x50, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_stack_value",
            0x50,
        ),
        // reduce_sum's `s`: VGPR as u16, widened, halved (lane 6's element: 0x1018).
        (
            "DW_OP_bregx 0x600 +0, DW_OP_convert 0x2b, DW_OP_convert 0x2f, DW_OP_lit1, \
             DW_OP_shr, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_stack_value",
            0x1018 >> 1,
        ),
        (
            "DW_OP_bregx 0x600 +2, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_stack_value",
            0x101a,
        ),
    ];
    for (text, want) in cases {
        let l = location(&t, &c, text, clang19()).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(le(&read(&t, &l, 4)), want & 0xffff_ffff, "{text}");
    }
}

fn le(b: &[u8]) -> u64 {
    b.iter().rev().fold(0, |a, &x| a << 8 | u64::from(x))
}

#[test]
fn the_o0_frame_base_form_stays_private_memory() {
    let lane = 2;
    let mut t = registers(64, lane);
    let want = 0xfeed_f00du32;
    // SGPR33 = 0x40 * 64: a wave-scaled frame offset of lane address 0x40.
    let mut scratch = vec![0u8; 64 * 4 * 0x80];
    for (i, b) in want.to_le_bytes().iter().enumerate() {
        scratch[private_lane_to_wave(0x48 + i as u64, lane, 64) as usize] = *b;
    }
    t.map(MemorySpace::PrivateWave, 0, scratch);
    let c = MapContext {
        frame_base: Some(Arc::new(expr("DW_OP_regx SGPR33", 64))),
        ..MapContext::default()
    };
    let private = Loc::One(Single::memory(AddressSpace::PrivateLane, 0x48));
    for text in [
        "DW_OP_fbreg +8, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
        // DW_OP_breg of the frame register is the frame base itself.
        "DW_OP_bregx SGPR33 +8, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
    ] {
        let l = location(&t, &c, text, clang19()).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(l, private, "{text}");
        assert_eq!(read(&t, &l, 4), want.to_le_bytes(), "{text}");
    }
    // The -O0 form reads exactly as without the -O2 rule.
    let without = EvalOptions {
        compat: Compat {
            private_suffix_on_values: false,
            ..Compat::clang19(true)
        },
        ..EvalOptions::default()
    };
    let text = "DW_OP_fbreg +8, DW_OP_lit1, DW_OP_swap, DW_OP_xderef";
    assert_eq!(location(&t, &c, text, without).unwrap(), private);
    // Without the frame register in DW_AT_frame_base, SGPR33 is a value.
    let l = location(
        &t,
        &MapContext::default(),
        "DW_OP_bregx SGPR33 +8, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
        clang19(),
    )
    .unwrap();
    assert_eq!(read(&t, &l, 4), (0x40 * 64 + 8u32).to_le_bytes());
}

#[test]
fn other_forms_with_the_suffix_are_not_known() {
    let t = wave(64, 1);
    let c = MapContext {
        frame_base: Some(Arc::new(expr("DW_OP_regx SGPR33", 64))),
        ..MapContext::default()
    };
    for text in [
        // More operations around a register.
        "DW_OP_bregx 0xa00 +0, DW_OP_plus_uconst 0x4, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
        "DW_OP_bregx 0xa00 +0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_deref",
        // A constant without DW_OP_stack_value.
        "DW_OP_lit5, DW_OP_lit1, DW_OP_swap, DW_OP_xderef",
        // A value computed from the frame register.
        "DW_OP_bregx SGPR33 +0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_stack_value",
        // An entry value.
        "DW_OP_entry_value(DW_OP_regx 0xa00), DW_OP_lit1, DW_OP_swap, DW_OP_xderef, \
         DW_OP_stack_value",
        // A piece wider than a lane's element.
        "DW_OP_bregx 0xa00 +0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_piece 0x8",
        // Control flow.
        "DW_OP_lit0, DW_OP_skip +0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_stack_value",
        // The suffix twice.
        "DW_OP_lit0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_lit1, DW_OP_swap, \
         DW_OP_xderef, DW_OP_stack_value",
    ] {
        let r = location(&t, &c, text, clang19());
        assert!(not_known(r.clone()), "{text}: {r:?}");
    }
}

#[test]
fn entry_values_are_not_known_under_clang19() {
    let t = wave(64, 0);
    let c = MapContext::default();
    let text = "DW_OP_entry_value(DW_OP_regx SGPR4), DW_OP_stack_value";
    assert!(not_known(location(&t, &c, text, clang19())));
    // The normative reading asks the context (which has no entry state here).
    assert!(matches!(
        location(&t, &c, text, EvalOptions::default()),
        Err(Error {
            kind: ErrorKind::Unavailable { .. },
            ..
        })
    ));
}

#[test]
fn the_normative_reading_is_unchanged() {
    // The text's reading of `DW_OP_bregx VGPR0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef`:
    // the register's leading bytes are an address in DW_ASPACE_AMDGPU_generic (1), read by
    // DW_OP_xderef; no register location, and no lane element.
    let t = wave(64, 3);
    let text = "DW_OP_bregx 0xa00 +0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef";
    match location(&t, &MapContext::default(), text, EvalOptions::default()) {
        Ok(l) => {
            for s in l.singles() {
                assert!(!matches!(
                    s.storage,
                    Storage::Register(_) | Storage::Composite(_)
                ));
            }
        }
        Err(e) => assert!(!matches!(e.kind, ErrorKind::ValueNotKnown { .. }), "{e}"),
    }
    // And without any context, as the evaluator is used alone.
    let r = Evaluator::new(&t, &NoContext, EvalOptions::default()).location(&expr(text, 64));
    assert!(!not_known(r));
}

/// HIP variables promoted to VGPRs at `-O2` (hipcc's clang-15 and clang-19 alike): a bare
/// `DW_OP_regx VGPRn` with no suffix and no lane operation is the focused lane's element
/// (the text's reading, the register's leading bytes, would be lane 0's value for every
/// lane), a 64-bit variable is two such 4-byte pieces, the normative reading is kept
/// without the compatibility choice, and an SGPR stays the register.
#[test]
fn a_bare_vgpr_location_is_the_focused_lanes_element() {
    for (ws, v0, v1) in [(32u32, "0x600", "0x601"), (64, "0xa00", "0xa01")] {
        for lane in [0, 1, 5, ws - 1] {
            let t = registers(ws, lane);
            let c = MapContext::default();
            let want = (0x1000 + lane * 4).to_le_bytes();
            let l = location(&t, &c, &format!("DW_OP_regx {v0}"), clang19()).unwrap();
            assert_eq!(read(&t, &l, 4), want, "lane {lane}");
            assert!(
                read_through(&t, &l, 8).is_err(),
                "past the element, lane {lane}"
            );
            // Writable: the focused lane's element only.
            let mut tw = t.clone();
            write_object(&mut tw, &l, &[1, 2, 3, 4]).unwrap();
            assert_eq!(read(&tw, &l, 4), [1, 2, 3, 4]);
            let text =
                format!("DW_OP_regx {v0}, DW_OP_piece 0x4, DW_OP_regx {v1}, DW_OP_piece 0x4");
            let l = location(&t, &c, &text, clang19()).unwrap();
            let want64 = u64::from(0x1000 + lane * 4) | u64::from(0xbeef_0000 + lane) << 32;
            assert_eq!(read(&t, &l, 8), want64.to_le_bytes(), "lane {lane}");
            // The normative reading: the register's leading bytes (lane 0's element).
            let plain = EvalOptions {
                compat: Compat {
                    vector_register_per_lane: false,
                    ..Compat::clang19(true)
                },
                ..EvalOptions::default()
            };
            let l = location(&t, &c, &format!("DW_OP_regx {v0}"), plain).unwrap();
            assert_eq!(read(&t, &l, 4), 0x1000u32.to_le_bytes(), "lane {lane}");
        }
    }
    // A scalar register is the register.
    let t = registers(64, 9);
    let l = location(&t, &MapContext::default(), "DW_OP_regx 0x24", clang19()).unwrap();
    assert_eq!(read(&t, &l, 4), 0x0abc_def0u32.to_le_bytes());
}
