//! `lane_pc`: every form of the lane attributes (exprloc; a location list through
//! DW_FORM_sec_offset into .debug_loclists and, for a DWARF 4 unit, .debug_loc;
//! DW_FORM_loclistx), DWARF procedures reached by DW_OP_call_ref, the DWARF 6 codes when
//! assigned, and the ill-formed cases, each a typed error. The target is an in-memory
//! wave (`MemTarget`).

use amdgpu_dwarf::op::{DecodeOptions, Dialect, Op, encode};
use amdgpu_dwarf::target::{MemTarget, Register};
use amdgpu_lanes::lane_pc::{
    Dwarf6Codes, LaneAttr, LanePcError, LanePcIndex, LanePcOptions, MaskSource, Positions,
};
use gimli::write::{
    Address, AttributeValue, EndianVec, Expression, Location, LocationList, Sections, Unit,
    UnitEntryId,
};
use gimli::{DwAt, LittleEndian};
use std::collections::HashMap;

const PC: u64 = 0x1010;
const EXEC: u64 = 0x0000_00ff_00ff_00f0;
const LANE_PC: u16 = 0x3e12;
const OLD_LANE_PC: u16 = 0x3e0b;
const ACTIVE_LANE: u16 = 0x3e08;
const LANES: u16 = 0x3e11;

fn bytes(ops: &[Op]) -> Vec<u8> {
    encode(ops, &DecodeOptions::default()).expect("encodes")
}

fn reg(r: u32) -> Op {
    Op::Reg {
        reg: u64::from(r),
        short: false,
    }
}

fn extend() -> Op {
    Op::Extend {
        bits: 64,
        count: 64,
    }
}

fn select() -> Op {
    Op::SelectBitPiece {
        bits: 64,
        count: 64,
    }
}

/// `__active_lane_pc` of the usage guide: the PC where EXEC is set, else undefined.
fn active_lane_pc() -> Vec<Op> {
    vec![
        Op::Undefined,
        extend(),
        reg(Register::PC),
        extend(),
        reg(Register::EXEC64),
        Op::DerefSize(8),
        select(),
    ]
}

fn target() -> MemTarget {
    let mut t = MemTarget::new(64, 0);
    t.set_pc(PC);
    t.set_exec(EXEC);
    t.set_sgpr(10, 0xffff_ffff);
    t.set_sgpr(11, 0x0000_ffff);
    t
}

type Built = HashMap<&'static str, Vec<u8>>;

/// One unit with one subprogram `[0x1000, 0x1100)`; `f` adds its attributes.
fn build(version: u16, f: impl FnOnce(&mut Unit, UnitEntryId)) -> Built {
    let mut dwarf = gimli::write::Dwarf::new();
    let enc = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version,
        address_size: 8,
    };
    let uid = dwarf
        .units
        .add(Unit::new(enc, gimli::write::LineProgram::none()));
    let unit = dwarf.units.get_mut(uid);
    let root = unit.root();
    let sub = unit.add(root, gimli::DW_TAG_subprogram);
    let e = unit.get_mut(sub);
    e.set(gimli::DW_AT_name, AttributeValue::String(b"k".to_vec()));
    e.set(
        gimli::DW_AT_low_pc,
        AttributeValue::Address(Address::Constant(0x1000)),
    );
    e.set(gimli::DW_AT_high_pc, AttributeValue::Udata(0x100));
    f(unit, sub);
    let mut sections = Sections::new(EndianVec::new(LittleEndian));
    dwarf.write(&mut sections).expect("writes");
    let mut out = Built::new();
    sections
        .for_each(|id, w| -> Result<(), ()> {
            out.insert(id.name(), w.slice().to_vec());
            Ok(())
        })
        .expect("collects");
    out
}

fn index<'d>(s: &'d Built, opts: &LanePcOptions) -> Result<LanePcIndex<'d>, LanePcError> {
    LanePcIndex::from_sections(|n| s.get(n).map(|v| v.as_slice()), opts)
}

fn list(unit: &mut Unit, entries: &[(u64, u64, Vec<u8>)]) -> AttributeValue {
    let id = unit.locations.add(LocationList(
        entries
            .iter()
            .map(|(b, e, x)| Location::StartEnd {
                begin: Address::Constant(*b),
                end: Address::Constant(*e),
                data: Expression::raw(x.clone()),
            })
            .collect(),
    ));
    AttributeValue::LocationListRef(id)
}

fn expect_active_pcs(p: &Positions, active: u64) {
    let Positions::Lanes(v) = p else {
        panic!("no lanes: {p:?}")
    };
    assert_eq!(v.len(), 64);
    for (l, x) in v.iter().enumerate() {
        let want = (active >> l & 1 != 0).then_some(PC);
        assert_eq!(*x, want, "lane {l}");
    }
}

#[test]
fn exprloc_lane_pc_without_active_lane_uses_exec() {
    let s = build(5, |u, sub| {
        u.get_mut(sub).set(
            DwAt(LANE_PC),
            AttributeValue::Exprloc(Expression::raw(bytes(&active_lane_pc()))),
        );
    });
    let i = index(&s, &Default::default()).unwrap();
    let r = i.evaluate(&target()).unwrap();
    assert_eq!(r.function.as_deref(), Some("k"));
    assert_eq!(
        (r.lanes, r.active, r.active_source),
        (64, EXEC, MaskSource::Exec)
    );
    expect_active_pcs(&r.positions, EXEC);
    assert_eq!(r.position(4), Some(PC));
    assert_eq!(r.position(0), None);
}

#[test]
fn location_lists_select_the_entry_for_the_pc_in_dwarf5_and_dwarf4() {
    for version in [5u16, 4] {
        let s = build(version, |u, sub| {
            let v = list(
                u,
                &[
                    // Another range: all lanes undefined.
                    (0x1000, 0x1010, bytes(&[Op::Undefined, extend()])),
                    (0x1010, 0x1020, bytes(&active_lane_pc())),
                ],
            );
            u.get_mut(sub).set(DwAt(LANE_PC), v);
            // The active mask: s[10:11] = 0x0000ffff_ffffffff, as a location.
            let a = list(
                u,
                &[(
                    0x1010,
                    0x1014,
                    bytes(&[
                        reg(Register::sgpr(10)),
                        Op::Piece(4),
                        reg(Register::sgpr(11)),
                        Op::Piece(4),
                    ]),
                )],
            );
            u.get_mut(sub).set(DwAt(ACTIVE_LANE), a);
            u.get_mut(sub).set(DwAt(LANES), AttributeValue::Udata(64));
        });
        let i = index(&s, &Default::default()).unwrap();
        let r = i.evaluate(&target()).unwrap();
        assert_eq!(r.active, 0x0000_ffff_ffff_ffff, "DWARF {version}");
        assert_eq!(r.active_source, MaskSource::Attribute);
        expect_active_pcs(&r.positions, EXEC);
        // Past the active_lane list's entry: EXEC; past the lane_pc list: no entry.
        let mut t = target();
        t.set_pc(0x1018);
        let r = i.evaluate(&t).unwrap();
        assert_eq!(r.active_source, MaskSource::Exec);
        t.set_pc(0x1030);
        assert_eq!(i.evaluate(&t).unwrap().positions, Positions::NotAtPc);
        t.set_pc(0x1200);
        assert_eq!(i.evaluate(&t), Err(LanePcError::NoScope(0x1200)));
    }
}

#[test]
fn procedures_are_called_as_in_the_usage_guide() {
    // __divergent_lane_pc, a region procedure (lanes of s[10:11] wait at 0x1004), and the
    // range expression calling it and __active_lane_pc. The procedures' offsets are found
    // by writing twice (same sizes the second time).
    let make = |offs: &[u64; 3]| {
        build(5, |u, sub| {
            let p = |u: &mut Unit, name: &str, ops: Vec<Op>| {
                let id = u.add(sub, gimli::DW_TAG_dwarf_procedure);
                let e = u.get_mut(id);
                e.set(
                    gimli::DW_AT_name,
                    AttributeValue::String(name.as_bytes().to_vec()),
                );
                e.set(
                    gimli::DW_AT_location,
                    AttributeValue::Exprloc(Expression::raw(bytes(&ops))),
                );
            };
            p(u, "__divergent_lane_pc", vec![Op::Undefined, extend()]);
            p(
                u,
                "__active_lane_pc",
                vec![
                    reg(Register::PC),
                    extend(),
                    reg(Register::EXEC64),
                    Op::DerefSize(8),
                    select(),
                ],
            );
            p(
                u,
                "__divergent_lane_pc_1_then",
                vec![
                    Op::CallRef(offs[0]),
                    Op::Addr(0x1004),
                    Op::StackValue,
                    extend(),
                    reg(Register::sgpr(10)),
                    Op::Piece(4),
                    reg(Register::sgpr(11)),
                    Op::Piece(4),
                    Op::PieceEnd,
                    Op::DerefSize(8),
                    select(),
                ],
            );
            u.get_mut(sub).set(
                DwAt(LANE_PC),
                AttributeValue::Exprloc(Expression::raw(bytes(&[
                    Op::CallRef(offs[2]),
                    Op::CallRef(offs[1]),
                ]))),
            );
        })
    };
    let first = make(&[0; 3]);
    let i = index(&first, &Default::default()).unwrap();
    let offs = procedure_offsets(&i);
    let s = make(&offs);
    let i = index(&s, &Default::default()).unwrap();
    let r = i.evaluate(&target()).unwrap();
    let Positions::Lanes(v) = &r.positions else {
        panic!("{:?}", r.positions)
    };
    let region = 0x0000_ffff_ffff_ffffu64;
    for (l, x) in v.iter().enumerate() {
        let want = if EXEC >> l & 1 != 0 {
            Some(PC)
        } else if region >> l & 1 != 0 {
            Some(0x1004)
        } else {
            None
        };
        assert_eq!(*x, want, "lane {l}");
    }
}

/// The .debug_info offsets of the three procedures of the test above (in DIE order: the
/// subprogram's children follow it).
fn procedure_offsets(i: &LanePcIndex<'_>) -> [u64; 3] {
    let p = i.program();
    let mut out = [0u64; 3];
    let sites = p.expressions().unwrap();
    let procs: Vec<u64> = sites
        .iter()
        .filter(|s| s.attr == gimli::DW_AT_location.0)
        .map(|s| s.die)
        .collect();
    out.copy_from_slice(&procs[..3]);
    out
}

#[test]
fn loclistx_is_resolved_through_the_units_loclists_base() {
    // A hand-assembled DWARF 5 unit whose lane_pc and active_lane are DW_FORM_loclistx.
    let lane_pc = bytes(&active_lane_pc());
    let active = bytes(&[Op::Constu(0xff), Op::StackValue]);
    let mut abbrev = vec![
        1, 0x11, 1, // compile_unit, children
        0x8c, 0x01, 0x17, // DW_AT_loclists_base, sec_offset
        0, 0, //
        2, 0x2e, 0, // subprogram, no children
        0x11, 0x01, // low_pc, addr
        0x12, 0x06, // high_pc, data4
    ];
    abbrev.extend([0x92, 0x7c, 0x22]); // 0x3e12 (ULEB 92 7c), loclistx
    abbrev.extend([0x88, 0x7c, 0x22]); // 0x3e08, loclistx
    abbrev.extend([0, 0, 0]);
    let mut lists = Vec::new();
    for expr in [&lane_pc, &active] {
        let mut l = vec![0x08]; // DW_LLE_start_length
        l.extend(0x1000u64.to_le_bytes());
        l.push(0x40); // length (ULEB)
        l.push(expr.len() as u8);
        l.extend(expr.iter());
        l.push(0x00); // DW_LLE_end_of_list
        lists.push(l);
    }
    let mut body = vec![5, 0, 8, 0]; // version, address size, segment selector size
    body.extend(2u32.to_le_bytes()); // offset_entry_count
    body.extend(8u32.to_le_bytes()); // list 0 after the two offsets
    body.extend((8 + lists[0].len() as u32).to_le_bytes());
    for l in &lists {
        body.extend(l);
    }
    let mut loclists = (body.len() as u32).to_le_bytes().to_vec();
    loclists.extend(body);
    let mut body = vec![5, 0, 0x01, 8]; // version 5, DW_UT_compile, address size
    body.extend(0u32.to_le_bytes()); // abbrev offset
    body.push(1);
    body.extend(12u32.to_le_bytes()); // loclists_base: after the 12-byte header
    body.push(2);
    body.extend(0x1000u64.to_le_bytes());
    body.extend(0x100u32.to_le_bytes());
    body.extend([0, 1]); // list indices
    body.push(0); // end of children
    let mut info = (body.len() as u32).to_le_bytes().to_vec();
    info.extend(body);
    let s: Built = [
        (".debug_abbrev", abbrev),
        (".debug_info", info),
        (".debug_loclists", loclists),
    ]
    .into_iter()
    .collect();
    let i = index(&s, &Default::default()).unwrap();
    let r = i.evaluate(&target()).unwrap();
    assert_eq!((r.active, r.active_source), (0xff, MaskSource::Attribute));
    expect_active_pcs(&r.positions, EXEC);
}

#[test]
fn dwarf6_codes_are_read_when_assigned() {
    let s = build(5, |u, sub| {
        u.get_mut(sub).set(
            DwAt(0x3f00),
            AttributeValue::Exprloc(Expression::raw(bytes(&active_lane_pc()))),
        );
        u.get_mut(sub).set(
            DwAt(0x3f01),
            AttributeValue::Exprloc(Expression::raw(bytes(&[Op::Lit(3), Op::StackValue]))),
        );
    });
    let plain = index(&s, &Default::default()).unwrap();
    assert_eq!(
        plain.evaluate(&target()).unwrap().positions,
        Positions::NoAttribute
    );
    let opts = LanePcOptions {
        dwarf6: Dwarf6Codes {
            lane_pc: Some(0x3f00),
            active_lane: Some(0x3f01),
            lanes: None,
        },
        ..Default::default()
    };
    let r = index(&s, &opts).unwrap().evaluate(&target()).unwrap();
    assert_eq!(r.active, 3);
    expect_active_pcs(&r.positions, EXEC);
}

#[test]
fn the_older_encoding_is_read_from_a_marked_unit() {
    let o = DecodeOptions {
        dialect: Dialect::SingleByte,
        ..DecodeOptions::default()
    };
    let s = build(5, |u, sub| {
        let root = u.root();
        u.get_mut(root).set(
            DwAt(0x3e09),
            AttributeValue::String(b"[llvm:v0.0]".to_vec()),
        );
        u.get_mut(sub).set(
            DwAt(OLD_LANE_PC),
            AttributeValue::Exprloc(Expression::raw(encode(&active_lane_pc(), &o).unwrap())),
        );
        u.get_mut(sub).set(DwAt(0x3e0a), AttributeValue::Udata(64));
    });
    let r = index(&s, &Default::default())
        .unwrap()
        .evaluate(&target())
        .unwrap();
    expect_active_pcs(&r.positions, EXEC);
}

fn error_of(ops: &[Op]) -> LanePcError {
    let s = build(5, |u, sub| {
        u.get_mut(sub).set(
            DwAt(LANE_PC),
            AttributeValue::Exprloc(Expression::raw(bytes(ops))),
        );
    });
    index(&s, &Default::default())
        .unwrap()
        .evaluate(&target())
        .unwrap_err()
}

#[test]
fn ill_formed_attributes_are_typed_errors() {
    // A register, not a vector of 64 program locations.
    assert!(matches!(
        error_of(&[reg(Register::PC)]),
        LanePcError::WrongSize {
            attr: LaneAttr::LanePc,
            bits: 64,
            needed: 4096,
            ..
        }
    ));
    // A vector of 32 elements where the wave has 64 lanes.
    assert!(matches!(
        error_of(&[
            Op::Undefined,
            Op::Extend {
                bits: 64,
                count: 32
            }
        ]),
        LanePcError::WrongSize { bits: 2048, .. }
    ));
    // Elements half defined.
    assert!(matches!(
        error_of(&[
            reg(Register::sgpr(10)),
            Op::Piece(4),
            Op::Piece(4),
            Op::PieceEnd,
            extend()
        ]),
        LanePcError::PartlyDefined { lane: 0, .. }
    ));
    // An expression that fails.
    assert!(matches!(
        error_of(&[Op::Drop]),
        LanePcError::Eval {
            attr: LaneAttr::LanePc,
            ..
        }
    ));
    // Two list entries for the PC: two location descriptions.
    let s = build(5, |u, sub| {
        let e = bytes(&active_lane_pc());
        let v = list(u, &[(0x1000, 0x1020, e.clone()), (0x1010, 0x1014, e)]);
        u.get_mut(sub).set(DwAt(LANE_PC), v);
    });
    assert!(matches!(
        index(&s, &Default::default()).unwrap().evaluate(&target()),
        Err(LanePcError::NotSingle { count: 2, .. })
    ));
    // An undefined active mask.
    let s = build(5, |u, sub| {
        u.get_mut(sub).set(
            DwAt(ACTIVE_LANE),
            AttributeValue::Exprloc(Expression::raw(bytes(&[Op::Undefined]))),
        );
    });
    assert!(matches!(
        index(&s, &Default::default()).unwrap().evaluate(&target()),
        Err(LanePcError::UndefinedMask { .. })
    ));
    // A constant under the current lane_pc code; under the older code a constant is
    // another attribute (pointer authentication) and ignored.
    let s = build(5, |u, sub| {
        u.get_mut(sub).set(DwAt(LANE_PC), AttributeValue::Udata(7));
    });
    assert!(matches!(
        index(&s, &Default::default()).unwrap().evaluate(&target()),
        Err(LanePcError::BadForm {
            attr: LaneAttr::LanePc,
            ..
        })
    ));
    let s = build(5, |u, sub| {
        u.get_mut(sub)
            .set(DwAt(OLD_LANE_PC), AttributeValue::Udata(7));
    });
    assert_eq!(
        index(&s, &Default::default())
            .unwrap()
            .evaluate(&target())
            .unwrap()
            .positions,
        Positions::NoAttribute
    );
    // A lane count that is not one of a wave.
    let s = build(5, |u, sub| {
        u.get_mut(sub).set(DwAt(LANES), AttributeValue::Udata(100));
    });
    assert!(matches!(
        index(&s, &Default::default()).unwrap().evaluate(&target()),
        Err(LanePcError::BadLanes { lanes: 100, .. })
    ));
}

#[test]
fn a_lane_count_narrower_than_the_wave_reads_that_many_lanes() {
    let s = build(5, |u, sub| {
        u.get_mut(sub).set(DwAt(LANES), AttributeValue::Udata(32));
        u.get_mut(sub).set(
            DwAt(LANE_PC),
            AttributeValue::Exprloc(Expression::raw(bytes(&[
                reg(Register::PC),
                Op::Extend {
                    bits: 64,
                    count: 32,
                },
            ]))),
        );
    });
    let r = index(&s, &Default::default())
        .unwrap()
        .evaluate(&target())
        .unwrap();
    assert_eq!((r.lanes, r.active), (32, EXEC & 0xffff_ffff));
    assert_eq!(r.positions, Positions::Lanes(vec![Some(PC); 32]));
}
