//! Hand-assembled DWARF (written with `gimli::write`) carrying DW_OP_LLVM_* operations in
//! both shipped encodings: one unit in generation C (DW_OP_LLVM_user), one marked with the
//! older augmentation string and using generation A (single bytes) and the older
//! attribute codes. The test reads it back through [`Program`]: dialect detection,
//! printing, byte-exact re-encoding, variables in scope and location-list selection,
//! frame base, lane attributes (DW_AT_LLVM_lane_pc evaluated through DWARF procedures),
//! and CFI with DW_CFA_LLVM_def_aspace_cfa.

use amdgpu_dwarf::eval::{EvalOptions, Evaluator, read_through};
use amdgpu_dwarf::location::Single;
use amdgpu_dwarf::op::{DecodeOptions, Dialect, Expr, encode};
use amdgpu_dwarf::program::{LocationValue, Program, ProgramOptions, at};
use amdgpu_dwarf::target::{AddressSpace, MemTarget, MemorySpace, Register};
use amdgpu_dwarf::text::assemble;
use amdgpu_dwarf::{Context, Loc};
use gimli::LittleEndian;
use gimli::write::{
    Address, AttributeValue, EndianVec, Expression, LineProgram, Location, LocationList, Sections,
    Unit, UnitEntryId,
};
use std::collections::HashMap;

fn c(text: &str) -> Vec<u8> {
    assemble(text, 64, &DecodeOptions::default()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn a(text: &str) -> Vec<u8> {
    let o = DecodeOptions {
        dialect: Dialect::SingleByte,
        ..Default::default()
    };
    assemble(text, 64, &o).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn active(gen_a: bool) -> String {
    let p = if gen_a { "" } else { "DW_OP_LLVM_user " };
    format!(
        "DW_OP_regx PC_REG, {p}DW_OP_LLVM_extend 0x40 0x40, DW_OP_regval_type EXEC (0x{BT:x}), \
         {p}DW_OP_LLVM_select_bit_piece 0x40 0x40"
    )
}

fn divergent(gen_a: bool) -> String {
    let p = if gen_a { "" } else { "DW_OP_LLVM_user " };
    format!("{p}DW_OP_LLVM_undefined, {p}DW_OP_LLVM_extend 0x40 0x40")
}

/// Unit offset of the base type (first child of the CU in both units).
const BT: u64 = 0x0;

/// One unit of the program: generation C (`gen_a` false, code at 0x1000) or generation A
/// with the older augmentation and attribute codes (code at 0x2000, names suffixed `_a`).
struct UnitSpec<'a> {
    gen_a: bool,
    /// DIE offsets by name (zero on the first of two writes).
    offsets: &'a HashMap<String, u64>,
    /// The unit offset of the base type.
    bt: u64,
}

impl UnitSpec<'_> {
    fn lo(&self) -> u64 {
        if self.gen_a { 0x2000 } else { 0x1000 }
    }

    fn suffix(&self) -> &'static str {
        if self.gen_a { "_a" } else { "" }
    }

    /// `name` with the unit's suffix, as a name attribute.
    fn name(&self, name: &str) -> AttributeValue {
        AttributeValue::String(format!("{name}{}", self.suffix()).into_bytes())
    }

    fn asm(&self, t: &str) -> Expression {
        Expression::raw(if self.gen_a { a(t) } else { c(t) })
    }

    fn off(&self, n: &str) -> u64 {
        self.offsets
            .get(&format!("{n}{}", self.suffix()))
            .copied()
            .unwrap_or(0)
    }

    /// The DW_OP_LLVM_user prefix of generation C.
    fn user(&self) -> &'static str {
        if self.gen_a { "" } else { "DW_OP_LLVM_user " }
    }

    /// The compile unit's range (and augmentation) and the base type.
    fn add_root(&self, unit: &mut Unit) {
        let root = unit.root();
        let cu = unit.get_mut(root);
        cu.set(
            gimli::DW_AT_low_pc,
            AttributeValue::Address(Address::Constant(self.lo())),
        );
        cu.set(gimli::DW_AT_high_pc, AttributeValue::Udata(0x100));
        if self.gen_a {
            cu.set(
                gimli::DwAt(at::OLD_AUGMENTATION),
                AttributeValue::String(b"[llvm:v0.0]".to_vec()),
            );
        }
        let bt_id = unit.add(root, gimli::DW_TAG_base_type);
        let e = unit.get_mut(bt_id);
        e.set(
            gimli::DW_AT_name,
            AttributeValue::String(b"__uint64".to_vec()),
        );
        e.set(
            gimli::DW_AT_encoding,
            AttributeValue::Encoding(gimli::DW_ATE_unsigned),
        );
        e.set(gimli::DW_AT_byte_size, AttributeValue::Data1(8));
    }

    /// The DWARF procedures `__active_lane_pc` and `__divergent_lane_pc`.
    fn add_lane_procedures(&self, unit: &mut Unit) {
        let root = unit.root();
        let bt = self.bt;
        let bt_text = |t: String| t.replace(&format!("(0x{BT:x})"), &format!("(0x{bt:x})"));
        for (name, text) in [
            ("__active_lane_pc", bt_text(active(self.gen_a))),
            ("__divergent_lane_pc", divergent(self.gen_a)),
        ] {
            let p = unit.add(root, gimli::DW_TAG_dwarf_procedure);
            let e = unit.get_mut(p);
            e.set(gimli::DW_AT_name, self.name(name));
            e.set(
                gimli::DW_AT_location,
                AttributeValue::Exprloc(self.asm(&text)),
            );
        }
    }

    /// The subprogram `kern`: range, frame base, lane attributes.
    fn add_subprogram(&self, unit: &mut Unit) -> UnitEntryId {
        let root = unit.root();
        let sp = unit.add(root, gimli::DW_TAG_subprogram);
        let e = unit.get_mut(sp);
        e.set(gimli::DW_AT_name, self.name("kern"));
        e.set(
            gimli::DW_AT_low_pc,
            AttributeValue::Address(Address::Constant(self.lo())),
        );
        e.set(gimli::DW_AT_high_pc, AttributeValue::Udata(0x100));
        e.set(
            gimli::DW_AT_frame_base,
            AttributeValue::Exprloc(self.asm("DW_OP_regx SGPR33")),
        );
        let lane_pc = self.asm(&format!(
            "DW_OP_call_ref 0x{:x}, DW_OP_call_ref 0x{:x}",
            self.off("__divergent_lane_pc"),
            self.off("__active_lane_pc")
        ));
        let (lanes_at, lane_pc_at) = if self.gen_a {
            (at::OLD_LANES, at::OLD_LANE_PC)
        } else {
            (at::LANES, at::LANE_PC)
        };
        e.set(gimli::DwAt(lanes_at), AttributeValue::Udata(64));
        e.set(gimli::DwAt(lane_pc_at), AttributeValue::Exprloc(lane_pc));
        sp
    }

    /// The variables of `kern`: three single locations and a location list.
    fn add_variables(&self, unit: &mut Unit, sp: UnitEntryId) {
        let p = self.user();
        let vars = [
            (
                "spilled",
                format!("DW_OP_regx VGPR0, {p}DW_OP_LLVM_offset_uconst 0x14"),
            ),
            (
                "two_vgprs",
                format!(
                    "DW_OP_regx VGPR0, {p}DW_OP_LLVM_push_lane, DW_OP_lit4, DW_OP_mul, {p}DW_OP_LLVM_offset, DW_OP_piece 0x4, \
                     DW_OP_regx VGPR1, {p}DW_OP_LLVM_push_lane, DW_OP_lit4, DW_OP_mul, {p}DW_OP_LLVM_offset, DW_OP_piece 0x4"
                ),
            ),
            (
                "in_lds",
                format!(
                    "DW_OP_constu 0x40, DW_OP_lit3, {p}DW_OP_LLVM_form_aspace_address, DW_OP_piece 0x4, {p}DW_OP_LLVM_piece_end"
                ),
            ),
        ];
        for (name, text) in vars {
            let v = unit.add(sp, gimli::DW_TAG_variable);
            let e = unit.get_mut(v);
            e.set(gimli::DW_AT_name, self.name(name));
            e.set(
                gimli::DW_AT_location,
                AttributeValue::Exprloc(self.asm(&text)),
            );
        }
        let lo = self.lo();
        let list = LocationList(vec![
            Location::StartEnd {
                begin: Address::Constant(lo),
                end: Address::Constant(lo + 0x10),
                data: self.asm("DW_OP_regx SGPR4"),
            },
            Location::StartEnd {
                begin: Address::Constant(lo + 0x10),
                end: Address::Constant(lo + 0x100),
                data: self.asm("DW_OP_fbreg +8"),
            },
        ]);
        let list = unit.locations.add(list);
        let v = unit.add(sp, gimli::DW_TAG_variable);
        let e = unit.get_mut(v);
        e.set(gimli::DW_AT_name, self.name("listed"));
        e.set(gimli::DW_AT_location, AttributeValue::LocationListRef(list));
    }
}

fn build(offsets: &HashMap<String, u64>, bts: &[u64]) -> HashMap<&'static str, Vec<u8>> {
    let mut dwarf = gimli::write::Dwarf::new();
    let enc = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 5,
        address_size: 8,
    };
    for gen_a in [false, true] {
        let spec = UnitSpec {
            gen_a,
            offsets,
            bt: bts.get(usize::from(gen_a)).copied().unwrap_or(BT),
        };
        let id = dwarf.units.add(Unit::new(enc, LineProgram::none()));
        let unit = dwarf.units.get_mut(id);
        spec.add_root(unit);
        spec.add_lane_procedures(unit);
        let sp = spec.add_subprogram(unit);
        spec.add_variables(unit, sp);
    }
    let mut sections = Sections::new(EndianVec::new(LittleEndian));
    dwarf.write(&mut sections).expect("writes");
    let mut out = HashMap::new();
    sections
        .for_each(|id, w| {
            out.insert(id.name(), w.slice().to_vec());
            Ok::<(), gimli::write::Error>(())
        })
        .unwrap();
    out.insert(".debug_frame", debug_frame());
    out
}

/// .debug_frame: one CIE (v4, code align 4, data align 4, RA 16) and one FDE for
/// [0x1000, 0x1100): DW_CFA_LLVM_def_aspace_cfa SGPR32, 0, private_wave; SGPR8 (DWARF 40) saved at
/// CFA+16 (DW_CFA_offset, factored 4).
fn debug_frame() -> Vec<u8> {
    let entry = |body: &[u8]| {
        let mut v = (body.len() as u32).to_le_bytes().to_vec();
        v.extend_from_slice(body);
        v
    };
    let mut sec = entry(&[0xff, 0xff, 0xff, 0xff, 4, 0, 8, 0, 4, 4, 16, 0x30, 64, 0, 6]);
    let mut fde = 0u32.to_le_bytes().to_vec();
    fde.extend_from_slice(&0x1000u64.to_le_bytes());
    fde.extend_from_slice(&0x100u64.to_le_bytes());
    fde.extend_from_slice(&[0x80 | 40, 4]);
    sec.extend(entry(&fde));
    sec
}

/// .debug_info offsets of named DIEs, and the base type's unit offset.
fn offsets(sections: &HashMap<&'static str, Vec<u8>>) -> (HashMap<String, u64>, Vec<u64>) {
    let empty = Vec::new();
    let dwarf = gimli::Dwarf::load(|id| -> Result<_, gimli::Error> {
        Ok(gimli::EndianSlice::new(
            sections.get(id.name()).unwrap_or(&empty).as_slice(),
            LittleEndian,
        ))
    })
    .unwrap();
    let mut out = HashMap::new();
    let mut bt = Vec::new();
    let mut units = dwarf.units();
    while let Some(h) = units.next().unwrap() {
        let unit = dwarf.unit(h).unwrap();
        let mut cur = unit.entries();
        while let Some(die) = cur.next_dfs().unwrap() {
            if die.tag() == gimli::DW_TAG_base_type {
                bt.push(die.offset().0 as u64);
            }
            if let Some(n) = die.attr_value(gimli::DW_AT_name) {
                let n = dwarf
                    .attr_string(&unit, n)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(
                    n,
                    die.offset().to_debug_info_offset(&unit.header).unwrap().0 as u64,
                );
            }
        }
    }
    (out, bt)
}

fn sections() -> HashMap<&'static str, Vec<u8>> {
    let first = build(&HashMap::new(), &[]);
    let (offs, bts) = offsets(&first);
    let second = build(&offs, &bts);
    assert_eq!(
        first[".debug_info"].len(),
        second[".debug_info"].len(),
        "layout is stable"
    );
    second
}

fn wave(pc: u64, lane: u32, exec: u64) -> MemTarget {
    let mut t = MemTarget::new(64, lane);
    t.set_pc(pc);
    t.set_exec(exec);
    t.set_vgpr(0, &(0..64).map(|l| 0x100 + l).collect::<Vec<_>>());
    t.set_vgpr(1, &(0..64).map(|l| 0x200 + l).collect::<Vec<_>>());
    t.set_sgpr(4, 0x4444);
    t.set_sgpr(33, 0x9000);
    t.set_sgpr(32, 0x40);
    t.map(MemorySpace::Global, 0x9000, (0..32).collect());
    t.map(MemorySpace::Local, 0x40, vec![0xaa, 0xbb, 0xcc, 0xdd]);
    t.map(MemorySpace::PrivateWave, 0, (0..=255).collect());
    t
}

/// Every expression decodes, prints, and re-encodes byte for byte in its unit's dialect.
fn check_round_trips(p: &Program) {
    let sites = p.expressions().unwrap();
    assert!(sites.len() >= 18, "{}", sites.len());
    let mut printed = Vec::new();
    for s in &sites {
        let o = DecodeOptions {
            dialect: p.unit_dialect(s.unit).unwrap(),
            ..Default::default()
        };
        let e = Expr::decode(&s.bytes, &o).unwrap_or_else(|e| panic!("{:02x?}: {e}", s.bytes));
        let ops: Vec<_> = e.ops.iter().map(|d| d.op.clone()).collect();
        assert_eq!(encode(&ops, &o).unwrap(), s.bytes);
        let text = p.print(s.unit, &s.bytes);
        assert!(!text.contains("decoding error"), "{text}");
        assert_eq!(assemble(&text, 64, &o).unwrap(), s.bytes, "{text}");
        printed.push(text);
    }
    assert!(
        printed
            .iter()
            .any(|t| t == "DW_OP_regx VGPR0_LO16, DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 0x14")
    );
    assert!(
        printed
            .iter()
            .any(|t| t == "DW_OP_regx VGPR0_LO16, DW_OP_LLVM_offset_uconst 0x14")
    );
    // The generation-A unit really uses single bytes.
    assert!(sites.iter().any(|s| s.unit == 1 && s.bytes.contains(&0xe4)));
    assert!(!sites.iter().any(|s| s.unit == 1 && s.bytes.contains(&0xe9)));
}

/// Variables in scope; location-list selection by PC.
fn check_scope_and_lists(p: &Program, lo: u64, suffix: &str) {
    let vars = p.variables_at(lo + 8).unwrap();
    let names: Vec<_> = vars.iter().map(|v| v.name.clone()).collect();
    for n in ["spilled", "two_vgprs", "in_lds", "listed"] {
        assert!(names.contains(&format!("{n}{suffix}")), "{names:?}");
    }
    let listed = |pc| {
        p.variables_at(pc)
            .unwrap()
            .into_iter()
            .find(|v| v.name == format!("listed{suffix}"))
            .unwrap()
            .location
    };
    let first = listed(lo + 8);
    let Some(LocationValue::Exprs(e)) = &first else {
        panic!("{first:?}")
    };
    assert_eq!(p.print(0, &e[0]), "DW_OP_regx SGPR4_LO16");
    let second = listed(lo + 0x20);
    let Some(LocationValue::Exprs(e)) = &second else {
        panic!("{second:?}")
    };
    assert_eq!(p.print(0, &e[0]), "DW_OP_fbreg +8");
    assert!(p.variables_at(0x5000).unwrap().is_empty());
}

/// Evaluate variables through the program context.
fn check_variables(p: &Program, lo: u64, suffix: &str) {
    let t = wave(lo + 0x20, 7, u64::MAX);
    let ctx = p.context(lo + 0x20, &t);
    let opts = EvalOptions {
        decode: p.decode_options_at(lo + 0x20),
        ..EvalOptions::default()
    };
    let mut ev = Evaluator::new(&t, &ctx, opts.clone());
    let get = |name: &str| {
        let v = p
            .variables_at(lo + 0x20)
            .unwrap()
            .into_iter()
            .find(|v| v.name == format!("{name}{suffix}"))
            .unwrap();
        let Some(LocationValue::Exprs(e)) = v.location else {
            panic!()
        };
        Expr::decode(&e[0], &opts.decode).unwrap()
    };
    let l = ev.location(&get("two_vgprs")).unwrap();
    let b = read_through(&t, &l, 8).unwrap().bytes();
    assert_eq!(b, [0x107u32.to_le_bytes(), 0x207u32.to_le_bytes()].concat());
    let l = ev.location(&get("spilled")).unwrap();
    assert_eq!(
        read_through(&t, &l, 4).unwrap().bytes(),
        0x105u32.to_le_bytes()
    );
    let l = ev.location(&get("listed")).unwrap();
    assert_eq!(
        l,
        Loc::One(Single::memory(AddressSpace::Global, 0x9008)),
        "frame base SGPR33 + 8"
    );
    let l = ev.location(&get("in_lds")).unwrap();
    assert_eq!(
        read_through(&t, &l, 4).unwrap().bytes(),
        vec![0xaa, 0xbb, 0xcc, 0xdd]
    );
}

/// Lane attributes (current and older codes), lane_pc through DWARF procedures.
fn check_lane_pc(p: &Program, lo: u64) {
    let opts = EvalOptions {
        decode: p.decode_options_at(lo + 0x20),
        ..EvalOptions::default()
    };
    let la = p.lane_attributes_at(lo + 8).unwrap();
    assert_eq!(la.lanes, Some(64));
    let Some(LocationValue::Exprs(e)) = la.lane_pc else {
        panic!("{la:?}")
    };
    let exec = 0x0000_ffff_0000_00ffu64;
    let t = wave(lo + 8, 0, exec);
    let ctx = p.context(lo + 8, &t);
    let mut ev = Evaluator::new(&t, &ctx, opts.clone());
    let l = ev
        .location(&Expr::decode(&e[0], &opts.decode).unwrap())
        .unwrap();
    let r = read_through(&t, &l, 64 * 8).unwrap();
    for lane in 0..64 {
        let on = exec >> lane & 1 == 1;
        assert_eq!(r.byte_defined(lane * 8), on, "lane {lane}");
        if on {
            let v = u64::from_le_bytes(r.bytes()[lane * 8..lane * 8 + 8].try_into().unwrap());
            assert_eq!(v, lo + 8);
        }
    }
}

/// CFI: DW_CFA_LLVM_def_aspace_cfa -> CFA in private_wave at SGPR32; SGPR8 at CFA+16.
fn check_cfi(p: &Program) {
    let t = wave(0x1008, 0, u64::MAX);
    let ctx = p.context(0x1008, &t);
    let cfa = ctx.call_frame_cfa().unwrap();
    assert_eq!(
        cfa,
        Loc::One(Single::memory(AddressSpace::PrivateWave, 0x40))
    );
    let e = Expr::decode(
        &c("DW_OP_LLVM_user DW_OP_LLVM_call_frame_entry_reg SGPR8"),
        &DecodeOptions::default(),
    )
    .unwrap();
    let mut ev = Evaluator::new(&t, &ctx, EvalOptions::default());
    let l = ev.location(&e).unwrap();
    assert_eq!(l, Loc::One(Single::memory(AddressSpace::PrivateWave, 0x50)));
    assert_eq!(
        read_through(&t, &l, 4).unwrap().bytes(),
        vec![0x50, 0x51, 0x52, 0x53]
    );
    // No rule for SGPR9: same value (the register itself).
    let e = Expr::decode(
        &c("DW_OP_LLVM_user DW_OP_LLVM_call_frame_entry_reg SGPR9"),
        &DecodeOptions::default(),
    )
    .unwrap();
    assert_eq!(
        ev.location(&e).unwrap(),
        Loc::One(Single::register(Register::sgpr(9)))
    );
}

#[test]
fn both_encodings_round_trip_and_evaluate() {
    let secs = sections();
    let p = Program::load(
        |n| secs.get(n).map(|v| v.as_slice()),
        ProgramOptions::default(),
    )
    .unwrap();
    assert_eq!(p.unit_dialect(0), Some(Dialect::User));
    assert_eq!(p.unit_dialect(1), Some(Dialect::SingleByte));
    check_round_trips(&p);
    for (lo, suffix) in [(0x1000u64, ""), (0x2000u64, "_a")] {
        check_scope_and_lists(&p, lo, suffix);
        check_variables(&p, lo, suffix);
        check_lane_pc(&p, lo);
    }
    check_cfi(&p);
}
