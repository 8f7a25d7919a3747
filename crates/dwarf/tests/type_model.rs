//! The type model ([`Program::type_die`]) and program-scope variables
//! ([`Program::globals`]) over committed code objects: OpenCL kernels built by clang-19
//! `-O0 -g` (`kernels/bin/gfx900/*.O0g.co`) and the gfx900 device code object of the HIP
//! program `kernels/hip/bin/hipcc/debug_divergence` (clang 15, taken from its offload
//! bundle), plus hand-assembled DWARF for the forms those do not use.

use amdgpu_dwarf::program::{
    Encoding, LocationValue, Member, PointerKind, Program, ProgramOptions, Qualifier, StaticMember,
    TypeDie, Variable,
};
use gimli::LittleEndian;
use gimli::write::{
    Address, AttributeValue, DebugInfoRef, EndianVec, Expression, LineProgram, Sections, Unit,
    UnitEntryId,
};
use object::{Object, ObjectSection, ObjectSymbol};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels")
}

/// An OpenCL `-O0 -g` code object's bytes.
fn opencl(name: &str) -> Vec<u8> {
    let p = kernels_dir().join(format!("bin/gfx900/{name}.O0g.co"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The gfx900 device code object of a HIP executable built by hipcc.
fn hip_device_object(program: &str) -> Vec<u8> {
    hip_device_object_of("hipcc", program)
}

/// The gfx900 device code object in the offload bundle (`__CLANG_OFFLOAD_BUNDLE__`:
/// entry count, then per entry offset, size, id length and id) of a HIP executable
/// built by `compiler` (`hipcc` or `clang19`).
fn hip_device_object_of(compiler: &str, program: &str) -> Vec<u8> {
    let p = kernels_dir().join("hip/bin").join(compiler).join(program);
    let data = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let file = object::File::parse(&*data).expect("ELF");
    let bundle = file
        .section_by_name(".hip_fatbin")
        .and_then(|s| s.data().ok())
        .expect(".hip_fatbin");
    const MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
    assert!(
        bundle.starts_with(MAGIC),
        "not an uncompressed offload bundle"
    );
    let u64_at = |at: usize| u64::from_le_bytes(bundle[at..at + 8].try_into().unwrap()) as usize;
    let mut at = MAGIC.len() + 8;
    for _ in 0..u64_at(MAGIC.len()) {
        let (offset, size, id_len) = (u64_at(at), u64_at(at + 8), u64_at(at + 16));
        let id = &bundle[at + 24..at + 24 + id_len];
        at += 24 + id_len;
        if id.ends_with(b"--gfx900") {
            return bundle[offset..offset + size].to_vec();
        }
    }
    panic!("no gfx900 entry in {}", p.display());
}

/// Loads a code object's DWARF and runs `f` on it with the ELF file.
fn with_program<R>(data: &[u8], f: impl FnOnce(&Program, &object::File) -> R) -> R {
    let file = object::File::parse(data).expect("ELF");
    let section = |name: &str| file.section_by_name(name).and_then(|s| s.data().ok());
    let program = Program::load(section, ProgramOptions::default()).expect("DWARF loads");
    f(&program, &file)
}

/// The variables in scope at the entry of the function named by symbol `sym`.
fn variables_in(p: &Program, file: &object::File, sym: &str) -> Vec<Variable> {
    let addr = file
        .symbols()
        .find(|s| s.name() == Ok(sym))
        .unwrap_or_else(|| panic!("no symbol {sym}"))
        .address();
    p.variables_at(addr).expect("variables")
}

fn var<'v>(vars: &'v [Variable], name: &str) -> &'v Variable {
    vars.iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name} in {vars:#?}"))
}

/// Follows typedefs and qualifiers from `offset`, returning the qualifiers met and the
/// offset of the first other type.
fn strip(p: &Program, mut offset: u64) -> (Vec<Qualifier>, u64) {
    let mut quals = Vec::new();
    for _ in 0..16 {
        match p.type_die(offset).unwrap() {
            TypeDie::Typedef {
                target: Some(t), ..
            } => offset = t,
            TypeDie::Qualified {
                qualifier,
                target: Some(t),
            } => {
                quals.push(qualifier);
                offset = t;
            }
            _ => break,
        }
    }
    (quals, offset)
}

fn base(p: &Program, offset: u64) -> (String, u64, Encoding) {
    match p.type_die(strip(p, offset).1).unwrap() {
        TypeDie::Base {
            name,
            size,
            encoding,
        } => (name, size, encoding),
        t => panic!("not a base type: {t:?}"),
    }
}

fn pointer_target(p: &Program, offset: u64) -> (Option<u64>, Option<u64>) {
    match p.type_die(offset).unwrap() {
        TypeDie::Pointer {
            target,
            size,
            address_class,
            kind,
        } => {
            assert_eq!(size, 8);
            assert_eq!(kind, PointerKind::Pointer);
            (target, address_class)
        }
        t => panic!("not a pointer: {t:?}"),
    }
}

#[test]
fn opencl_pointer_parameters_walk_to_their_base_types() {
    with_program(&opencl("saxpy"), |p, file| {
        let vars = variables_in(p, file, "saxpy");
        // __global const float *x: Pointer -> const -> float.
        let x = var(&vars, "x");
        let (target, class) = pointer_target(p, x.type_die.expect("x has a type"));
        assert_eq!(class, None, "global pointers carry no address class");
        let target = target.expect("not void");
        assert_eq!(strip(p, target).0, vec![Qualifier::Const]);
        assert_eq!(base(p, target), ("float".into(), 4, Encoding::Float));
        // __global float *y: Pointer -> float.
        let (target, _) = pointer_target(p, var(&vars, "y").type_die.unwrap());
        assert_eq!(
            p.type_die(target.unwrap()).unwrap(),
            TypeDie::Base {
                name: "float".into(),
                size: 4,
                encoding: Encoding::Float
            }
        );
        // uint n: a typedef of unsigned int.
        let n = var(&vars, "n");
        match p.type_die(n.type_die.unwrap()).unwrap() {
            TypeDie::Typedef { name, target } => {
                assert_eq!(name, "uint");
                assert_eq!(
                    base(p, target.unwrap()),
                    ("unsigned int".into(), 4, Encoding::Unsigned)
                );
            }
            t => panic!("{t:?}"),
        }
        // Every variable in scope names its type, and it resolves.
        for v in &vars {
            let t = v
                .type_die
                .unwrap_or_else(|| panic!("{} has no type", v.name));
            p.type_die(t).unwrap();
        }
    });
}

#[test]
fn opencl_struct_parameter_gives_members_with_offsets_and_array_counts() {
    with_program(&opencl("struct_args"), |p, file| {
        let vars = variables_in(p, file, "struct_args");
        let param = var(&vars, "p");
        assert_eq!(param.type_name.as_deref(), Some("params"));
        let (name, s) = match p.type_die(param.type_die.unwrap()).unwrap() {
            TypeDie::Typedef {
                name,
                target: Some(t),
            } => (name, t),
            t => panic!("{t:?}"),
        };
        assert_eq!(name, "params");
        let TypeDie::Struct {
            name,
            size,
            members,
            statics,
            union,
        } = p.type_die(s).unwrap()
        else {
            panic!("not a struct");
        };
        assert_eq!((name, size, union), (None, Some(40), false));
        assert_eq!(statics, []);
        let layout: Vec<(&str, u64)> = members
            .iter()
            .map(|m| (m.name.as_deref().unwrap(), m.offset))
            .collect();
        assert_eq!(
            layout,
            [
                ("tag", 0),
                ("flags", 1),
                ("sel", 2),
                ("mul", 4),
                ("big", 8),
                ("add", 16),
                ("shift", 20),
                ("bias", 24)
            ]
        );
        assert!(
            members
                .iter()
                .all(|m| m.bit_size.is_none() && m.bit_offset.is_none())
        );
        let ty = |n: &str| {
            members
                .iter()
                .find(|m| m.name.as_deref() == Some(n))
                .unwrap()
                .ty
        };
        assert_eq!(
            base(p, ty("tag")),
            ("unsigned char".into(), 1, Encoding::UnsignedChar)
        );
        assert_eq!(base(p, ty("sel")), ("short".into(), 2, Encoding::Signed));
        assert_eq!(
            base(p, ty("big")),
            ("unsigned long".into(), 8, Encoding::Unsigned)
        );
        // uint bias[4].
        match p.type_die(ty("bias")).unwrap() {
            TypeDie::Array { element, counts } => {
                assert_eq!(counts, vec![Some(4)]);
                assert_eq!(
                    base(p, element),
                    ("unsigned int".into(), 4, Encoding::Unsigned)
                );
            }
            t => panic!("{t:?}"),
        }
        // __local uint *scratch: address class 2 (local).
        let (target, class) = pointer_target(p, var(&vars, "scratch").type_die.unwrap());
        assert_eq!(class, Some(2));
        assert_eq!(base(p, target.unwrap()).0, "unsigned int");
    });
}

#[test]
fn opencl_program_scope_constant_arrays_are_globals() {
    with_program(&opencl("const_tables"), |p, _| {
        let globals = p.globals().unwrap();
        let names: Vec<&str> = globals.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["crc_table", "sbox", "wide"]);
        for (v, (count, elem, size)) in globals.iter().zip([
            (256, ("unsigned int", 4), 1024),
            (256, ("unsigned char", 1), 256),
            (64, ("unsigned long", 8), 512),
        ]) {
            assert!(v.function.is_empty() && !v.parameter, "{v:?}");
            assert_eq!(v.unqualified_name(), v.name);
            assert_eq!(v.byte_size, Some(size), "{}", v.name);
            // DW_OP_addrx N: one expression, whatever the PC.
            match &v.location {
                Some(LocationValue::Exprs(e)) => {
                    assert_eq!(e.len(), 1);
                    assert_eq!(e[0][0], gimli::DW_OP_addrx.0, "{}", v.name);
                }
                l => panic!("{}: {l:?}", v.name),
            }
            match p.type_die(v.type_die.unwrap()).unwrap() {
                TypeDie::Array { element, counts } => {
                    assert_eq!(counts, vec![Some(count)], "{}", v.name);
                    let (name, sz, _) = base(p, element);
                    assert_eq!((name.as_str(), sz), elem);
                }
                t => panic!("{}: {t:?}", v.name),
            }
        }
        // The kernel's locals are not globals.
        assert!(!names.contains(&"crc"));
    });
}

#[test]
fn hip_builtin_coordinates_are_globals_with_qualified_static_members() {
    with_program(&hip_device_object("debug_divergence"), |p, _| {
        let globals = p.globals().unwrap();
        let by_name: HashMap<&str, &Variable> =
            globals.iter().map(|v| (v.name.as_str(), v)).collect();
        for (name, object) in [
            ("blockIdx", "__HIP_BlockIdx"),
            ("blockDim", "__HIP_BlockDim"),
            ("threadIdx", "__HIP_ThreadIdx"),
        ] {
            let v = by_name
                .get(name)
                .unwrap_or_else(|| panic!("{name} not in {globals:#?}"));
            assert!(matches!(&v.location, Some(LocationValue::Exprs(e)) if e.len() == 1));
            let (quals, s) = strip(p, v.type_die.unwrap());
            assert_eq!(quals, vec![Qualifier::Const]);
            match p.type_die(s).unwrap() {
                TypeDie::Struct {
                    name, size, union, ..
                } => {
                    assert_eq!(name, Some(format!("__HIP_Coordinates<{object}>")));
                    assert_eq!((size, union), (Some(1), false));
                }
                t => panic!("{t:?}"),
            }
            // The static member x, defined by a DIE with only DW_AT_specification: name
            // and type come from the declaration inside the class.
            let qualified = format!("__HIP_Coordinates<{object}>::x");
            let x = by_name
                .get(qualified.as_str())
                .unwrap_or_else(|| panic!("{qualified} not in {globals:#?}"));
            assert_eq!(x.unqualified_name(), "x");
            assert_eq!(x.byte_size, Some(1));
            let (quals, s) = strip(p, x.type_die.expect("type from the declaration"));
            assert_eq!(quals, vec![Qualifier::Const]);
            assert!(
                matches!(p.type_die(s).unwrap(), TypeDie::Struct { name: Some(n), .. } if n == "__X")
            );
        }
        assert_eq!(globals.len(), 6, "{globals:#?}");
    });
}

#[test]
fn hip_kernel_parameters_and_every_type_reference_resolve() {
    let data = hip_device_object("debug_divergence");
    with_program(&data, |p, file| {
        let vars = variables_in(p, file, "_Z7divergePKiPii");
        // const int *in.
        let (target, _) = pointer_target(p, var(&vars, "in").type_die.unwrap());
        let target = target.unwrap();
        assert_eq!(strip(p, target).0, vec![Qualifier::Const]);
        assert_eq!(base(p, target), ("int".into(), 4, Encoding::Signed));
    });
    // Walk every type DIE: each reference resolves, and the kinds read gimli's way.
    let file = object::File::parse(&*data).unwrap();
    let section = |name: &str| file.section_by_name(name).and_then(|s| s.data().ok());
    let p = Program::load(section, ProgramOptions::default()).unwrap();
    let empty: &[u8] = &[];
    let dwarf = gimli::Dwarf::load(|id| -> Result<_, gimli::Error> {
        Ok(gimli::EndianSlice::new(
            section(id.name()).unwrap_or(empty),
            LittleEndian,
        ))
    })
    .unwrap();
    let mut seen = HashSet::new();
    let mut units = dwarf.units();
    while let Some(h) = units.next().unwrap() {
        let unit = dwarf.unit(h).unwrap();
        let mut cur = unit.entries();
        while let Some(die) = cur.next_dfs().unwrap() {
            let off = die.offset().to_debug_info_offset(&unit.header).unwrap().0 as u64;
            let t = p.type_die(off).unwrap();
            let refs: Vec<u64> = match &t {
                TypeDie::Pointer { target, .. }
                | TypeDie::Typedef { target, .. }
                | TypeDie::Qualified { target, .. } => target.iter().copied().collect(),
                TypeDie::Struct { members, .. } => members.iter().map(|m| m.ty).collect(),
                TypeDie::Array { element, counts } => {
                    assert!(!counts.is_empty(), "{off:#x}");
                    vec![*element]
                }
                TypeDie::Enum { underlying, .. } => underlying.iter().copied().collect(),
                _ => Vec::new(),
            };
            for r in refs {
                assert!(p.type_die(r).is_ok(), "{off:#x} -> {r:#x}");
            }
            let kind = match t {
                TypeDie::Base { .. } => "base",
                TypeDie::Pointer { target: None, .. } => "void pointer",
                TypeDie::Qualified { target: None, .. } => "qualified void",
                TypeDie::Struct { union: true, .. } => "union",
                TypeDie::Struct { size: None, .. } => "declared struct",
                TypeDie::Array { .. } => "array",
                TypeDie::Function => "function",
                TypeDie::Other(tag) => {
                    assert_eq!(
                        gimli::DwTag(die.tag().0).static_string(),
                        Some(tag.as_str())
                    );
                    "other"
                }
                _ => "",
            };
            seen.insert(kind);
        }
    }
    for kind in [
        "base",
        "void pointer",
        "qualified void",
        "union",
        "declared struct",
        "array",
        "function",
        "other",
    ] {
        assert!(seen.contains(kind), "no {kind} type met");
    }
}

/// Adds a DIE with attributes under `parent`.
fn add(
    u: &mut Unit,
    parent: UnitEntryId,
    tag: gimli::DwTag,
    attrs: Vec<(gimli::DwAt, AttributeValue)>,
) -> UnitEntryId {
    let id = u.add(parent, tag);
    for (a, v) in attrs {
        u.get_mut(id).set(a, v);
    }
    id
}

fn string(s: &str) -> AttributeValue {
    AttributeValue::String(s.as_bytes().to_vec())
}

fn tref(id: UnitEntryId) -> (gimli::DwAt, AttributeValue) {
    (gimli::DW_AT_type, AttributeValue::UnitRef(id))
}

/// The types of the hand-assembled unit 0 that unit 1 refers to.
struct Shared {
    int: UnitEntryId,
    s: UnitEntryId,
    count: UnitEntryId,
}

/// Unit 0 of [`hand_assembled`]: types.
fn type_unit(u: &mut Unit) -> Shared {
    let root = u.root();
    let base = |name: &str, size: u8, enc: gimli::DwAte| {
        vec![
            (gimli::DW_AT_name, string(name)),
            (gimli::DW_AT_byte_size, AttributeValue::Data1(size)),
            (gimli::DW_AT_encoding, AttributeValue::Encoding(enc)),
        ]
    };
    let int = add(
        u,
        root,
        gimli::DW_TAG_base_type,
        base("int", 4, gimli::DW_ATE_signed),
    );
    add(
        u,
        root,
        gimli::DW_TAG_base_type,
        base("bool", 1, gimli::DW_ATE_boolean),
    );
    add(
        u,
        root,
        gimli::DW_TAG_base_type,
        base("char16_t", 2, gimli::DW_ATE_UTF),
    );
    add(u, root, gimli::DW_TAG_reference_type, vec![tref(int)]);
    let size8 = (gimli::DW_AT_byte_size, AttributeValue::Data1(8));
    add(
        u,
        root,
        gimli::DW_TAG_rvalue_reference_type,
        vec![tref(int), size8],
    );
    let vol = add(u, root, gimli::DW_TAG_volatile_type, vec![tref(int)]);
    add(u, root, gimli::DW_TAG_restrict_type, vec![tref(vol)]);
    add(u, root, gimli::DW_TAG_atomic_type, vec![tref(int)]);
    let class = AttributeValue::AddressClass(gimli::DwAddr(1));
    add(
        u,
        root,
        gimli::DW_TAG_pointer_type,
        vec![(gimli::DW_AT_address_class, class)],
    );
    let e = add(
        u,
        root,
        gimli::DW_TAG_enumeration_type,
        vec![(gimli::DW_AT_name, string("color")), tref(int)],
    );
    // The last one: a negative value in a data form, sign-extended as int is signed.
    for (name, v) in [
        ("red", AttributeValue::Sdata(-1)),
        ("green", AttributeValue::Sdata(0x7fff_ffff)),
        ("blue", AttributeValue::Data4(0xffff_fffe)),
    ] {
        add(
            u,
            e,
            gimli::DW_TAG_enumerator,
            vec![
                (gimli::DW_AT_name, string(name)),
                (gimli::DW_AT_const_value, v),
            ],
        );
    }
    // int[2][3], and int[1..2][] (bounds, then no count).
    let arr = add(u, root, gimli::DW_TAG_array_type, vec![tref(int)]);
    for count in [2u64, 3] {
        let c = (gimli::DW_AT_count, AttributeValue::Udata(count));
        add(u, arr, gimli::DW_TAG_subrange_type, vec![c]);
    }
    let arr = add(u, root, gimli::DW_TAG_array_type, vec![tref(int)]);
    add(
        u,
        arr,
        gimli::DW_TAG_subrange_type,
        vec![
            (gimli::DW_AT_lower_bound, AttributeValue::Data1(1)),
            (gimli::DW_AT_upper_bound, AttributeValue::Data1(2)),
        ],
    );
    add(u, arr, gimli::DW_TAG_subrange_type, vec![]);
    let (s, count) = struct_s(u, int);
    add(u, root, gimli::DW_TAG_ptr_to_member_type, vec![tref(int)]);
    Shared { int, s, count }
}

/// Unit 0's `struct S` (see the comment in it): its DIE and its member `count`'s.
fn struct_s(u: &mut Unit, int: UnitEntryId) -> (UnitEntryId, UnitEntryId) {
    let root = u.root();
    // struct S : B { static constexpr int limit = 7; int a : 3; int b : 5;
    // static int count; static int never; static int placed; }: `limit` as DWARF 5
    // writes a static member (a DW_TAG_variable child), the others as DWARF 4 does;
    // `count` is defined in the other unit, `never` nowhere, `placed` has its own
    // location.
    let s = add(
        u,
        root,
        gimli::DW_TAG_structure_type,
        vec![
            (gimli::DW_AT_name, string("S")),
            (gimli::DW_AT_byte_size, AttributeValue::Data1(8)),
        ],
    );
    let b = add(
        u,
        root,
        gimli::DW_TAG_structure_type,
        vec![
            (gimli::DW_AT_name, string("B")),
            (gimli::DW_AT_byte_size, AttributeValue::Data1(4)),
        ],
    );
    add(
        u,
        s,
        gimli::DW_TAG_inheritance,
        vec![
            tref(b),
            (gimli::DW_AT_data_member_location, AttributeValue::Udata(4)),
        ],
    );
    add(
        u,
        s,
        gimli::DW_TAG_variable,
        vec![
            (gimli::DW_AT_name, string("limit")),
            tref(int),
            (gimli::DW_AT_external, AttributeValue::Flag(true)),
            (gimli::DW_AT_declaration, AttributeValue::Flag(true)),
            (gimli::DW_AT_const_value, AttributeValue::Sdata(7)),
        ],
    );
    for (name, bits, at) in [("a", 3u64, 0u64), ("b", 5, 3)] {
        add(
            u,
            s,
            gimli::DW_TAG_member,
            vec![
                (gimli::DW_AT_name, string(name)),
                tref(int),
                (gimli::DW_AT_bit_size, AttributeValue::Udata(bits)),
                (gimli::DW_AT_data_bit_offset, AttributeValue::Udata(at)),
            ],
        );
    }
    let count = add(
        u,
        s,
        gimli::DW_TAG_member,
        vec![
            (gimli::DW_AT_name, string("count")),
            tref(int),
            (gimli::DW_AT_declaration, AttributeValue::Flag(true)),
            (gimli::DW_AT_external, AttributeValue::Flag(true)),
        ],
    );
    let mut placed = Expression::new();
    placed.op_addr(Address::Constant(0x130));
    for (name, location) in [("never", None), ("placed", Some(placed))] {
        let mut attrs = vec![
            (gimli::DW_AT_name, string(name)),
            tref(int),
            (gimli::DW_AT_declaration, AttributeValue::Flag(true)),
            (gimli::DW_AT_external, AttributeValue::Flag(true)),
        ];
        if let Some(e) = location {
            attrs.push((gimli::DW_AT_location, AttributeValue::Exprloc(e)));
        }
        add(u, s, gimli::DW_TAG_member, attrs);
    }
    (s, count)
}

/// Unit 1 of [`hand_assembled`]: variables, referring to unit 0's types through `xref`.
fn variable_unit(u: &mut Unit, xref: impl Fn(UnitEntryId) -> AttributeValue, t: &Shared) {
    let root = u.root();
    let addr = |a: u64| {
        let mut e = Expression::new();
        e.op_addr(Address::Constant(a));
        (gimli::DW_AT_location, AttributeValue::Exprloc(e))
    };
    let name = |n: &str| (gimli::DW_AT_name, string(n));
    let ns = add(u, root, gimli::DW_TAG_namespace, vec![name("ns")]);
    let int = || (gimli::DW_AT_type, xref(t.int));
    add(
        u,
        ns,
        gimli::DW_TAG_variable,
        vec![name("x"), int(), addr(0x100)],
    );
    let anon = add(u, ns, gimli::DW_TAG_namespace, vec![]);
    add(
        u,
        anon,
        gimli::DW_TAG_variable,
        vec![name("y"), int(), addr(0x108)],
    );
    // A definition naming the static member's declaration in the other unit.
    let spec = (gimli::DW_AT_specification, xref(t.count));
    add(u, root, gimli::DW_TAG_variable, vec![spec, addr(0x110)]);
    // A function's static local and a variable without a location are not globals.
    let f = add(u, root, gimli::DW_TAG_subprogram, vec![name("f")]);
    add(
        u,
        f,
        gimli::DW_TAG_variable,
        vec![name("local_static"), addr(0x118)],
    );
    let decl = (gimli::DW_AT_declaration, AttributeValue::Flag(true));
    add(
        u,
        root,
        gimli::DW_TAG_variable,
        vec![name("extern_decl"), decl],
    );
    // A pointer (this unit) to S (the other unit).
    let p = add(
        u,
        root,
        gimli::DW_TAG_pointer_type,
        vec![(gimli::DW_AT_type, xref(t.s))],
    );
    add(
        u,
        root,
        gimli::DW_TAG_variable,
        vec![name("sp"), tref(p), addr(0x120)],
    );
}

/// Hand-assembled DWARF: unit 0 holds types; unit 1 refers to them across units
/// (DW_FORM_ref_addr) and holds namespace-scope and static-member variables.
fn hand_assembled() -> HashMap<&'static str, Vec<u8>> {
    let mut dwarf = gimli::write::Dwarf::new();
    let enc = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 5,
        address_size: 8,
    };
    let types = dwarf.units.add(Unit::new(enc, LineProgram::none()));
    let vars = dwarf.units.add(Unit::new(enc, LineProgram::none()));
    let shared = type_unit(dwarf.units.get_mut(types));
    let xref = |id| AttributeValue::DebugInfoRef(DebugInfoRef::Entry(types, id));
    variable_unit(dwarf.units.get_mut(vars), xref, &shared);
    let mut sections = Sections::new(EndianVec::new(LittleEndian));
    dwarf.write(&mut sections).expect("writes");
    let mut out = HashMap::new();
    sections
        .for_each(|id, w| {
            out.insert(id.name(), w.slice().to_vec());
            Ok::<(), gimli::write::Error>(())
        })
        .unwrap();
    out
}

/// The .debug_info offset of each DIE of the first unit, by name (`TAG#n` for the n-th
/// unnamed DIE of a tag).
fn offsets_by_name(sections: &HashMap<&'static str, Vec<u8>>) -> HashMap<String, u64> {
    let empty = Vec::new();
    let dwarf = gimli::Dwarf::load(|id| -> Result<_, gimli::Error> {
        Ok(gimli::EndianSlice::new(
            sections.get(id.name()).unwrap_or(&empty).as_slice(),
            LittleEndian,
        ))
    })
    .unwrap();
    let mut out = HashMap::new();
    let mut units = dwarf.units();
    let header = units.next().unwrap().unwrap();
    let unit = dwarf.unit(header).unwrap();
    let mut cur = unit.entries();
    let mut anonymous: HashMap<String, usize> = HashMap::new();
    while let Some(die) = cur.next_dfs().unwrap() {
        let off = die.offset().to_debug_info_offset(&unit.header).unwrap().0 as u64;
        let name = match die.attr_value(gimli::DW_AT_name) {
            Some(n) => dwarf
                .attr_string(&unit, n)
                .unwrap()
                .to_string_lossy()
                .into_owned(),
            None => {
                let tag = die.tag().static_string().unwrap().to_string();
                let n = anonymous.entry(tag.clone()).or_default();
                *n += 1;
                format!("{tag}#{n}")
            }
        };
        out.insert(name, off);
    }
    out
}

/// The offset of the DIE named `k` (or `TAG#n` for the n-th unnamed DIE of a tag).
fn die(off: &HashMap<String, u64>, k: &str) -> u64 {
    *off.get(k).unwrap_or_else(|| panic!("{k} not in {off:#?}"))
}

/// Base, reference, pointer and qualified types.
fn check_base_pointer_and_qualified_types(p: &Program, off: &HashMap<String, u64>) {
    let o = |k: &str| die(off, k);
    let tag = |t: &str| o(&format!("{t}#1"));
    let int = o("int");
    assert_eq!(
        p.type_die(o("bool")).unwrap(),
        TypeDie::Base {
            name: "bool".into(),
            size: 1,
            encoding: Encoding::Boolean
        }
    );
    assert_eq!(
        p.type_die(o("char16_t")).unwrap(),
        TypeDie::Base {
            name: "char16_t".into(),
            size: 2,
            encoding: Encoding::Other(gimli::DW_ATE_UTF.0)
        }
    );
    assert_eq!(
        p.type_die(tag("DW_TAG_reference_type")).unwrap(),
        TypeDie::Pointer {
            target: Some(int),
            size: 8,
            address_class: None,
            kind: PointerKind::Reference
        }
    );
    assert!(matches!(
        p.type_die(tag("DW_TAG_rvalue_reference_type")).unwrap(),
        TypeDie::Pointer { target: Some(t), kind: PointerKind::RvalueReference, .. } if t == int
    ));
    let vol = tag("DW_TAG_volatile_type");
    assert_eq!(
        p.type_die(tag("DW_TAG_restrict_type")).unwrap(),
        TypeDie::Qualified {
            qualifier: Qualifier::Restrict,
            target: Some(vol)
        }
    );
    assert_eq!(
        p.type_die(vol).unwrap(),
        TypeDie::Qualified {
            qualifier: Qualifier::Volatile,
            target: Some(int)
        }
    );
    assert_eq!(
        p.type_die(tag("DW_TAG_atomic_type")).unwrap(),
        TypeDie::Qualified {
            qualifier: Qualifier::Atomic,
            target: Some(int)
        }
    );
    assert_eq!(
        p.type_die(tag("DW_TAG_pointer_type")).unwrap(),
        TypeDie::Pointer {
            target: None,
            size: 8,
            address_class: Some(1),
            kind: PointerKind::Pointer
        }
    );
}

/// Enumerations, arrays, structures with bit fields and an inherited base.
fn check_composite_types(p: &Program, off: &HashMap<String, u64>) {
    let o = |k: &str| die(off, k);
    let tag = |t: &str| o(&format!("{t}#1"));
    let int = o("int");
    assert_eq!(
        p.type_die(o("color")).unwrap(),
        TypeDie::Enum {
            name: Some("color".into()),
            size: 4,
            underlying: Some(int),
            enumerators: vec![
                ("red".into(), -1),
                ("green".into(), 0x7fff_ffff),
                ("blue".into(), -2)
            ],
        }
    );
    let arrays: Vec<_> = (1..=2)
        .map(|i| p.type_die(o(&format!("DW_TAG_array_type#{i}"))).unwrap())
        .collect();
    assert_eq!(
        arrays,
        [
            TypeDie::Array {
                element: int,
                counts: vec![Some(2), Some(3)]
            },
            TypeDie::Array {
                element: int,
                counts: vec![Some(2), None]
            }
        ]
    );
    let member = |name: &str, offset, bit_size, bit_offset| Member {
        name: Some(name.into()),
        offset,
        ty: int,
        bit_size,
        bit_offset,
    };
    assert_eq!(
        p.type_die(o("S")).unwrap(),
        TypeDie::Struct {
            name: Some("S".into()),
            size: Some(8),
            members: vec![
                Member {
                    name: None,
                    offset: 4,
                    ty: o("B"),
                    bit_size: None,
                    bit_offset: None
                },
                member("a", 0, Some(3), Some(0)),
                member("b", 0, Some(5), Some(3)),
            ],
            statics: ["limit", "count", "never", "placed"]
                .into_iter()
                .zip([1, 3, 3, 3])
                .map(|(name, position)| StaticMember {
                    name: name.into(),
                    ty: Some(int),
                    die: o(name),
                    position,
                })
                .collect(),
            union: false,
        }
    );
    assert_eq!(
        p.type_die(tag("DW_TAG_ptr_to_member_type")).unwrap(),
        TypeDie::Other("DW_TAG_ptr_to_member_type".into())
    );
    assert!(p.type_die(0xffff_ffff).is_err());
}

/// Globals: qualified names in scope order, types across units, locations.
fn check_scoped_globals(p: &Program, off: &HashMap<String, u64>) {
    let o = |k: &str| die(off, k);
    let int = o("int");
    let globals = p.globals().unwrap();
    let names: Vec<&str> = globals.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        ["ns::x", "ns::(anonymous namespace)::y", "S::count", "sp"]
    );
    let plain: Vec<&str> = globals.iter().map(|v| v.unqualified_name()).collect();
    assert_eq!(plain, ["x", "y", "count", "sp"]);
    for v in &globals[..3] {
        assert_eq!(v.type_die, Some(int), "{}", v.name);
        assert_eq!(v.type_name.as_deref(), Some("int"), "{}", v.name);
        assert_eq!(v.byte_size, Some(4), "{}", v.name);
    }
    // sp: a pointer (unit 1) to S (unit 0, through DW_FORM_ref_addr).
    let sp = &globals[3];
    assert_eq!(sp.type_name.as_deref(), Some("S *"));
    match p.type_die(sp.type_die.unwrap()).unwrap() {
        TypeDie::Pointer { target, .. } => assert_eq!(target, Some(o("S"))),
        t => panic!("{t:?}"),
    }
    let mut want = vec![gimli::DW_OP_addr.0];
    want.extend_from_slice(&0x110u64.to_le_bytes());
    assert_eq!(globals[2].location, Some(LocationValue::Exprs(vec![want])));
}

/// `struct Tally` of `debug_returns.hip` as both compilers describe it: hipcc's clang-15
/// writes its static members as DW_TAG_member declarations (DWARF 4's form), clang-19
/// as DW_TAG_variable children (DWARF 5's); either way they are static members after
/// `x`, and their values are where gdb finds them: `made` at its definition's address,
/// `never` nowhere (declared, never defined), `limit` the constant 7 on the member.
/// The parameters of `add_ref(int &r, const Tally &c, int &&k)` are references of both
/// kinds.
#[test]
fn hip_static_members_and_references_in_both_dwarf_forms() {
    for compiler in ["hipcc", "clang19"] {
        with_program(
            &hip_device_object_of(compiler, "debug_returns"),
            |p, file| {
                let tally = p.type_named("Tally").unwrap().expect("Tally");
                let TypeDie::Struct {
                    members, statics, ..
                } = p.type_die(tally).unwrap()
                else {
                    panic!("{compiler}: Tally is not a struct");
                };
                let names: Vec<_> = members.iter().map(|m| m.name.as_deref()).collect();
                assert_eq!(names, [Some("x")], "{compiler}");
                let statics: Vec<_> = statics
                    .iter()
                    .map(|m| (&*m.name, m.position, m.die))
                    .collect();
                let names: Vec<_> = statics.iter().map(|m| (m.0, m.1)).collect();
                assert_eq!(
                    names,
                    [("made", 1), ("never", 1), ("limit", 1)],
                    "{compiler}"
                );
                let made = p.static_member(statics[0].2).unwrap();
                assert_eq!(made.name, "Tally::made", "{compiler}");
                assert_eq!(made.type_name.as_deref(), Some("int"), "{compiler}");
                assert!(
                    matches!(made.location, Some(LocationValue::Exprs(_))),
                    "{compiler}: {made:?}"
                );
                let never = p.static_member(statics[1].2).unwrap();
                assert_eq!(
                    (never.location, never.const_value),
                    (None, None),
                    "{compiler}"
                );
                let limit = p.static_member(statics[2].2).unwrap();
                assert_eq!(limit.location, None, "{compiler}");
                assert_eq!(
                    limit.const_value.as_deref().map(|b| b[0]),
                    Some(7),
                    "{compiler}"
                );
                let vars = variables_in(p, file, "_Z7add_refRiRK5TallyOi");
                let kind = |n: &str| match p.type_die(var(&vars, n).type_die.unwrap()).unwrap() {
                    TypeDie::Pointer { kind, .. } => kind,
                    t => panic!("{compiler}: {n}: {t:?}"),
                };
                assert_eq!(kind("r"), PointerKind::Reference, "{compiler}");
                assert_eq!(kind("c"), PointerKind::Reference, "{compiler}");
                assert_eq!(kind("k"), PointerKind::RvalueReference, "{compiler}");
            },
        );
    }
}

#[test]
fn hand_assembled_types_cross_unit_references_and_scoped_globals() {
    let secs = hand_assembled();
    let off = offsets_by_name(&secs);
    let p = Program::load(
        |n| secs.get(n).map(|v| v.as_slice()),
        ProgramOptions::default(),
    )
    .unwrap();
    check_base_pointer_and_qualified_types(&p, &off);
    check_composite_types(&p, &off);
    check_scoped_globals(&p, &off);
    check_static_members(&p, &off);
}

/// Static data members: where each one's value is (as gdb looks for it).
fn check_static_members(p: &Program, off: &HashMap<String, u64>) {
    let o = |k: &str| die(off, k);
    let addr = |a: u64| {
        let mut e = vec![gimli::DW_OP_addr.0];
        e.extend_from_slice(&a.to_le_bytes());
        Some(LocationValue::Exprs(vec![e]))
    };
    let get = |name: &str| p.static_member(o(name)).unwrap();
    // `count`: its definition in the other unit (DW_AT_specification), at 0x110.
    let count = get("count");
    assert_eq!(count.name, "S::count");
    assert_eq!((count.type_die, count.byte_size), (Some(o("int")), Some(4)));
    assert_eq!(count.location, addr(0x110));
    assert_eq!(count.const_value, None);
    // `limit`: no definition, a constant on the member (sign-extended Sdata bytes).
    let limit = get("limit");
    assert_eq!(limit.name, "S::limit");
    assert_eq!(limit.location, None);
    assert_eq!(limit.const_value, Some(7i64.to_le_bytes().to_vec()));
    // `never`: nothing gives its value.
    let never = get("never");
    assert_eq!((never.location, never.const_value), (None, None));
    assert_eq!(never.type_name.as_deref(), Some("int"));
    // `placed`: the member's own location.
    assert_eq!(get("placed").location, addr(0x130));
    assert!(p.static_member(0xffff_ffff).is_err());
}
