//! The types expressions compute with: the DWARF's types (resolved one level at a time
//! from [`amdgpu_dwarf::program::TypeDie`]) and the C types a cast can name.

use amdgpu_dwarf::AddressSpace;
use amdgpu_dwarf::program::{Encoding, Member, PointerKind, Program, StaticMember, TypeDie};

/// What a pointer points to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Target {
    /// A DWARF type DIE (by .debug_info offset).
    Die(u64),
    /// A type built here (a cast's).
    Ty(Box<Ty>),
    /// `void`.
    Void,
}

/// A struct member.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Field {
    pub name: String,
    pub offset: u64,
    pub ty: Target,
    /// A bit field: where its bits are.
    pub bits: Option<BitField>,
}

/// A static data member: no part of the object, its value is where its definition
/// says ([`Program::static_member`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StaticField {
    pub name: String,
    /// Its type (`Void` when the DWARF names none).
    pub ty: Target,
    /// .debug_info offset of the member's DIE.
    pub die: u64,
    /// How many of the struct's [`Field`]s come before it (gdb shows members in
    /// declaration order, static ones among the others).
    pub position: usize,
}

/// A bit field's place in its struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BitField {
    /// `DW_AT_data_bit_offset`: bits from the start of the struct; `None` when the DWARF
    /// places it the DWARF 4 way (`DW_AT_bit_offset`), which is not read.
    pub offset: Option<u64>,
    /// `DW_AT_bit_size`.
    pub size: u64,
}

impl BitField {
    /// The field's value from the struct's bytes: its bits, zero- or sign-extended into
    /// the little-endian bytes of its type (`size` bytes).
    pub fn extract(&self, whole: &[u8], signed: bool, size: u64) -> Result<Vec<u8>, String> {
        let off = self
            .offset
            .ok_or("a bit field placed with DW_AT_bit_offset (DWARF 4) is not read")?;
        if self.size == 0 || self.size > 64 || off + self.size > 8 * whole.len() as u64 {
            return Err("the bit field lies outside its struct".into());
        }
        let mut v: u128 = 0;
        for k in 0..self.size {
            let bit = off + k;
            if whole[(bit / 8) as usize] >> (bit % 8) & 1 != 0 {
                v |= 1 << k;
            }
        }
        if signed && v >> (self.size - 1) & 1 != 0 {
            v |= u128::MAX << self.size;
        }
        Ok(v.to_le_bytes()[..size.min(16) as usize].to_vec())
    }
}

/// A type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    /// An integer (char and short included).
    Int {
        name: String,
        size: u8,
        signed: bool,
        char: bool,
    },
    /// `bool`.
    Bool,
    /// `float`, `double`, `half`.
    Float { name: String, size: u8 },
    /// A pointer, with the address space it points into.
    Pointer {
        target: Target,
        size: u8,
        space: AddressSpace,
        name: Option<String>,
    },
    /// A C++ reference (`T &`, or `T &&` when `rvalue`): held as the referent's
    /// address, and standing for the referent in expressions.
    Reference {
        target: Target,
        size: u8,
        space: AddressSpace,
        rvalue: bool,
    },
    /// An array.
    Array {
        element: Box<Ty>,
        count: Option<u64>,
    },
    /// A struct, class or union.
    Struct {
        name: String,
        size: u64,
        fields: Vec<Field>,
        statics: Vec<StaticField>,
        union: bool,
    },
    /// An enumeration.
    Enum {
        name: String,
        size: u8,
        values: Vec<(String, i64)>,
    },
    /// HIP's `threadIdx`, `blockIdx`, `blockDim`, `gridDim`: three unsigned ints.
    Dim3,
    /// `void`.
    Void,
    /// A function.
    Function,
}

/// The name of the declared type at `die` as the source writes it (a typedef by its
/// name, qualifiers kept), where that differs from the resolved type's name.
pub(crate) fn declared_name(program: &Program, die: u64) -> Option<String> {
    die_type_name(program, die, 0)
}

/// The name of the DWARF type at `die` as gdb writes it: qualifiers kept (`const
/// uint`), typedefs by their names; `None` for types named from their resolved form.
fn die_type_name(program: &Program, die: u64, depth: u32) -> Option<String> {
    use amdgpu_dwarf::program::{Qualifier, TypeDie};
    if depth > MAX_DEPTH {
        return None;
    }
    match program.type_die(die).ok()? {
        TypeDie::Qualified { qualifier, target } => {
            let q = match qualifier {
                Qualifier::Const => "const",
                Qualifier::Volatile => "volatile",
                Qualifier::Restrict => "restrict",
                Qualifier::Atomic => "_Atomic",
            };
            let inner = match target {
                Some(t) => die_type_name(program, t, depth + 1)
                    .or_else(|| Ty::of_die(program, t).ok().map(|ty| ty.name(program)))?,
                None => "void".into(),
            };
            Some(if q == "restrict" {
                inner
            } else {
                format!("{q} {inner}")
            })
        }
        TypeDie::Typedef { name, .. } => Some(name),
        _ => None,
    }
}

/// The name of a pointer's or reference's target: a DWARF type as the source writes it
/// (qualifiers kept, typedefs by name), else its resolved type's name.
fn target_name(program: &Program, target: &Target) -> String {
    match target {
        Target::Die(d) => die_type_name(program, *d, 0),
        _ => None,
    }
    .map(Ok)
    .unwrap_or_else(|| Ty::target(program, target).map(|t| t.name(program)))
    .unwrap_or_else(|_| "?".into())
}

/// The qualifiers (`const `, `volatile `, both) on the type at `die`, before the first
/// type that is no qualifier.
fn qualifiers(program: &Program, mut die: u64) -> String {
    use amdgpu_dwarf::program::Qualifier;
    let mut out = String::new();
    for _ in 0..MAX_DEPTH {
        match program.type_die(die) {
            Ok(TypeDie::Qualified {
                qualifier,
                target: Some(t),
            }) => {
                match qualifier {
                    Qualifier::Const => out += "const ",
                    Qualifier::Volatile => out += "volatile ",
                    _ => {}
                }
                die = t;
            }
            _ => break,
        }
    }
    out
}

/// The deepest chain of typedefs, qualifiers and nested arrays followed.
const MAX_DEPTH: u32 = 32;

fn space_of_class(class: Option<u64>, size: u64) -> AddressSpace {
    // clang's DW_AT_address_class for AMDGPU (its getDWARFAddressSpace): 1 private,
    // 2 local (LDS); global and constant pointers carry none and are flat (64-bit).
    match class {
        Some(1) => AddressSpace::PrivateLane,
        Some(2) => AddressSpace::Local,
        _ if size == 8 => AddressSpace::Generic,
        _ => AddressSpace::Local,
    }
}

/// A base type by its DWARF encoding.
fn base_type(name: String, size: u64, encoding: Encoding) -> Ty {
    let size = size.min(16) as u8;
    let int = |signed, char| Ty::Int {
        name: name.clone(),
        size,
        signed,
        char,
    };
    match encoding {
        Encoding::Float => Ty::Float { name, size },
        Encoding::Boolean => Ty::Bool,
        Encoding::Signed => int(true, false),
        Encoding::SignedChar => int(true, true),
        Encoding::UnsignedChar => int(false, true),
        _ => int(false, false),
    }
}

/// A pointer or a reference (`&`, `&&`).
fn pointer_type(
    target: Option<u64>,
    size: u64,
    address_class: Option<u64>,
    kind: PointerKind,
) -> Ty {
    let target = target.map_or(Target::Void, Target::Die);
    // pointers to LDS and private memory are 32-bit on AMDGPU
    let bytes = if matches!(address_class, Some(1 | 2)) {
        4
    } else {
        size.min(8) as u8
    };
    let space = space_of_class(address_class, size);
    match kind {
        PointerKind::Reference | PointerKind::RvalueReference => Ty::Reference {
            target,
            size: bytes,
            space,
            rvalue: kind == PointerKind::RvalueReference,
        },
        _ => Ty::Pointer {
            target,
            size: bytes,
            space,
            name: None,
        },
    }
}

/// A struct, class or union with its data members and static members.
fn struct_type(
    name: Option<String>,
    size: Option<u64>,
    members: Vec<Member>,
    statics: Vec<StaticMember>,
    union: bool,
) -> Ty {
    Ty::Struct {
        name: name.unwrap_or_else(|| "<anonymous>".into()),
        size: size.unwrap_or(0),
        union,
        statics: statics
            .into_iter()
            .map(|m| StaticField {
                name: m.name,
                ty: m.ty.map_or(Target::Void, Target::Die),
                die: m.die,
                position: m.position,
            })
            .collect(),
        fields: members
            .into_iter()
            .map(|m| Field {
                name: m.name.unwrap_or_default(),
                offset: m.offset,
                ty: Target::Die(m.ty),
                bits: m.bit_size.map(|size| BitField {
                    offset: m.bit_offset,
                    size,
                }),
            })
            .collect(),
    }
}

/// A typedef of `inner`: a pointer keeps the typedef's name; an anonymous struct goes by
/// it (`typedef struct {...} params`); other types are the type itself.
fn typedef_type(name: String, inner: Ty) -> Ty {
    match inner {
        Ty::Pointer {
            target,
            size,
            space,
            ..
        } => Ty::Pointer {
            target,
            size,
            space,
            name: Some(name),
        },
        Ty::Struct {
            name: n,
            size,
            fields,
            statics,
            union,
        } if n == "<anonymous>" => Ty::Struct {
            name,
            size,
            fields,
            statics,
            union,
        },
        other => other,
    }
}

impl Ty {
    /// The type of DIE `die`, typedefs and qualifiers looked through.
    pub fn of_die(program: &Program, die: u64) -> Result<Ty, String> {
        Self::resolve(program, die, 0)
    }

    fn resolve(program: &Program, die: u64, depth: u32) -> Result<Ty, String> {
        if depth > MAX_DEPTH {
            return Err("type nesting too deep".into());
        }
        let t = program.type_die(die).map_err(|e| e.to_string())?;
        let follow = |target: Option<u64>| match target {
            Some(d) => Self::resolve(program, d, depth + 1),
            None => Ok(Ty::Void),
        };
        Ok(match t {
            TypeDie::Base {
                name,
                size,
                encoding,
            } => base_type(name, size, encoding),
            TypeDie::Pointer {
                target,
                size,
                address_class,
                kind,
            } => pointer_type(target, size, address_class, kind),
            TypeDie::Struct {
                name,
                size,
                members,
                statics,
                union,
            } => struct_type(name, size, members, statics, union),
            TypeDie::Array { element, counts } => {
                let mut ty = Self::resolve(program, element, depth + 1)?;
                for c in counts.iter().skip(1).rev() {
                    ty = Ty::Array {
                        element: Box::new(ty),
                        count: *c,
                    };
                }
                Ty::Array {
                    element: Box::new(ty),
                    count: counts.first().copied().flatten(),
                }
            }
            TypeDie::Typedef { name, target } => typedef_type(name, follow(target)?),
            TypeDie::Qualified { target, .. } => follow(target)?,
            TypeDie::Enum {
                name,
                size,
                enumerators,
                ..
            } => Ty::Enum {
                name: name.unwrap_or_else(|| "<anonymous enum>".into()),
                size: size.min(8) as u8,
                values: enumerators,
            },
            TypeDie::Function => Ty::Function,
            TypeDie::Other(tag) => {
                return Err(format!("a type the debugger does not read ({tag})"));
            }
        })
    }

    /// A target's type.
    pub fn target(program: &Program, t: &Target) -> Result<Ty, String> {
        match t {
            Target::Die(d) => Ty::of_die(program, *d),
            Target::Ty(t) => Ok((**t).clone()),
            Target::Void => Ok(Ty::Void),
        }
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        match self {
            // A reference's own size (its address); `sizeof` of a reference is its
            // referent's, which the evaluator gives (it reads through references).
            Ty::Int { size, .. }
            | Ty::Float { size, .. }
            | Ty::Pointer { size, .. }
            | Ty::Reference { size, .. } => u64::from(*size),
            Ty::Enum { size, .. } => u64::from(*size),
            Ty::Bool => 1,
            Ty::Array { element, count } => element.size() * count.unwrap_or(0),
            Ty::Struct { size, .. } => *size,
            Ty::Dim3 => 12,
            Ty::Void | Ty::Function => 1,
        }
    }

    /// Alignment in bytes (C's `alignof`): a scalar's size, an array's element's, a
    /// struct's most aligned member's.
    pub fn align(&self, program: &Program) -> u64 {
        match self {
            Ty::Array { element, .. } => element.align(program),
            Ty::Struct { fields, .. } => fields
                .iter()
                .filter_map(|f| Ty::target(program, &f.ty).ok())
                .map(|t| t.align(program))
                .max()
                .unwrap_or(1),
            Ty::Dim3 => 4,
            other => other.size().max(1),
        }
    }

    /// The C type a cast names (`int`, `unsigned long`, `float`, `uint`, `int32_t`, ...).
    pub fn named(name: &str) -> Option<Ty> {
        let int = |n: &str, size: u8, signed: bool| Ty::Int {
            name: n.into(),
            size,
            signed,
            char: false,
        };
        let ch = |n: &str, signed: bool| Ty::Int {
            name: n.into(),
            size: 1,
            signed,
            char: true,
        };
        Some(match name {
            "char" | "signed char" => ch(name, true),
            "unsigned char" | "uchar" | "uint8_t" => ch(name, false),
            "int8_t" => ch(name, true),
            "short" | "short int" | "signed short" | "int16_t" => int(name, 2, true),
            "unsigned short" | "unsigned short int" | "ushort" | "uint16_t" => int(name, 2, false),
            "int" | "signed" | "signed int" | "int32_t" => int(name, 4, true),
            "unsigned" | "unsigned int" | "uint" | "uint32_t" => int(name, 4, false),
            "long" | "long int" | "long long" | "long long int" | "int64_t" | "ptrdiff_t" => {
                int(name, 8, true)
            }
            "unsigned long" | "unsigned long int" | "unsigned long long" | "ulong" | "uint64_t"
            | "size_t" | "uintptr_t" => int(name, 8, false),
            "bool" | "_Bool" => Ty::Bool,
            "float" => Ty::Float {
                name: name.into(),
                size: 4,
            },
            "double" => Ty::Float {
                name: name.into(),
                size: 8,
            },
            "half" | "_Float16" => Ty::Float {
                name: name.into(),
                size: 2,
            },
            "void" => Ty::Void,
            _ => return None,
        })
    }

    /// The name gdb's `whatis` gives.
    pub fn name(&self, program: &Program) -> String {
        match self {
            Ty::Int { name, .. } | Ty::Float { name, .. } => name.clone(),
            Ty::Bool => "bool".into(),
            Ty::Pointer { name: Some(n), .. } => n.clone(),
            Ty::Pointer { target, .. } => {
                let inner = target_name(program, target);
                if inner.ends_with('*') {
                    format!("{inner}*")
                } else if let Some(open) = inner.find('[').filter(|_| inner.ends_with(']')) {
                    // A pointer to an array, as C declares it: `unsigned int (*)[256]`.
                    format!("{} (*){}", &inner[..open], &inner[open..])
                } else {
                    format!("{inner} *")
                }
            }
            // As gdb writes them: `const Tally &`, `int &&`, `int *&`, `int (&)[4]`.
            Ty::Reference { target, rvalue, .. } => {
                let inner = target_name(program, target);
                let amp = if *rvalue { "&&" } else { "&" };
                if inner.ends_with('*') {
                    format!("{inner}{amp}")
                } else if let Some(open) = inner.find('[').filter(|_| inner.ends_with(']')) {
                    format!("{} ({amp}){}", &inner[..open], &inner[open..])
                } else {
                    format!("{inner} {amp}")
                }
            }
            Ty::Array { element, count } => {
                let c = count.map(|c| c.to_string()).unwrap_or_default();
                format!("{}[{c}]", element.name(program))
            }
            Ty::Struct { name, union, .. } => {
                if *union {
                    format!("union {name}")
                } else {
                    name.clone()
                }
            }
            Ty::Enum { name, .. } => name.clone(),
            Ty::Dim3 => "__gdb_hip_builtin_vec".into(),
            Ty::Void => "void".into(),
            Ty::Function => "void (void)".into(),
        }
    }

    /// `ptype`'s expansion: a struct with its members, anything else by name.
    pub fn expanded(&self, program: &Program) -> String {
        match self {
            Ty::Struct {
                name,
                fields,
                statics,
                union,
                ..
            } => {
                let mut s = format!("{} {name} {{\n", if *union { "union" } else { "struct" });
                // An array member as C declares it: `short b[2];`.
                let split = |t: String| match t.find('[').filter(|_| t.ends_with(']')) {
                    Some(i) => (t[..i].to_string(), t[i..].to_string()),
                    None => (t, String::new()),
                };
                // Static members among the others, in declaration order, as gdb's ptype
                // shows them: `static int made;` (qualifiers kept: `static const int k;`).
                let statics_at = |k: usize| statics.iter().filter(move |m| m.position == k);
                for k in 0..=fields.len() {
                    for m in statics_at(k) {
                        let (t, dims) = split(target_name(program, &m.ty));
                        s += &format!("    static {t} {}{dims};\n", m.name);
                    }
                    let Some(f) = fields.get(k) else { break };
                    let t = Ty::target(program, &f.ty).map(|t| t.name(program));
                    let bits = f.bits.map(|b| format!(" : {}", b.size)).unwrap_or_default();
                    let (t, dims) = split(t.unwrap_or_else(|_| "?".into()));
                    s += &format!("    {t} {}{dims}{bits};\n", f.name);
                }
                s + "}"
            }
            // gdb expands the referent: `const struct Tally {...} &`.
            Ty::Reference { target, rvalue, .. } => {
                let inner = Ty::target(program, target)
                    .map(|t| t.expanded(program))
                    .unwrap_or_else(|_| "?".into());
                let quals = match target {
                    Target::Die(d) => qualifiers(program, *d),
                    _ => String::new(),
                };
                let amp = if *rvalue { "&&" } else { "&" };
                if matches!(Ty::target(program, target), Ok(Ty::Struct { .. } | Ty::Enum { .. })) {
                    format!("{quals}{inner} {amp}")
                } else {
                    self.name(program)
                }
            }
            // ROCgdb's own type for the built-ins (hip-builtin-variables.exp).
            Ty::Dim3 => "struct __gdb_hip_builtin_vec {\n    uint32_t x;\n    uint32_t y;\n    uint32_t z;\n}"
                .into(),
            Ty::Enum { name, values, .. } => {
                let v: Vec<&str> = values.iter().map(|(n, _)| n.as_str()).collect();
                format!("enum {name} {{{}}}", v.join(", "))
            }
            other => other.name(program),
        }
    }

    /// Whether values of the type are numbers (integers, floats, bools, enums, pointers).
    pub fn scalar(&self) -> bool {
        matches!(
            self,
            Ty::Int { .. } | Ty::Float { .. } | Ty::Bool | Ty::Enum { .. } | Ty::Pointer { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amdgpu_dwarf::program::ProgramOptions;
    use gimli::write::{AttributeValue, EndianVec, Sections, Unit, UnitEntryId};
    use std::collections::HashMap;

    /// A unit with `struct S { static const int limit = 7; int x; static int made; int
    /// y[2]; }` (`limit` in DWARF 5's form, `made` in DWARF 4's) and a typedef naming each
    /// reference type of the test (typedefs are what `Program::type_named` finds).
    fn sections() -> HashMap<&'static str, Vec<u8>> {
        let enc = gimli::Encoding {
            format: gimli::Format::Dwarf32,
            version: 5,
            address_size: 8,
        };
        let mut dwarf = gimli::write::Dwarf::new();
        let id = dwarf
            .units
            .add(Unit::new(enc, gimli::write::LineProgram::none()));
        let u = dwarf.units.get_mut(id);
        let root = u.root();
        let mut add = |parent: UnitEntryId, tag, attrs: Vec<(gimli::DwAt, AttributeValue)>| {
            let e = u.add(parent, tag);
            for (a, v) in attrs {
                u.get_mut(e).set(a, v);
            }
            e
        };
        let name = |n: &str| (gimli::DW_AT_name, AttributeValue::String(n.into()));
        let ty = |e: UnitEntryId| (gimli::DW_AT_type, AttributeValue::UnitRef(e));
        let decl = || (gimli::DW_AT_declaration, AttributeValue::Flag(true));
        let int = add(
            root,
            gimli::DW_TAG_base_type,
            vec![
                name("int"),
                (gimli::DW_AT_byte_size, AttributeValue::Data1(4)),
                (
                    gimli::DW_AT_encoding,
                    AttributeValue::Encoding(gimli::DW_ATE_signed),
                ),
            ],
        );
        let cint = add(root, gimli::DW_TAG_const_type, vec![ty(int)]);
        let arr = add(root, gimli::DW_TAG_array_type, vec![ty(int)]);
        let count = (gimli::DW_AT_count, AttributeValue::Udata(4));
        add(arr, gimli::DW_TAG_subrange_type, vec![count]);
        let arr2 = add(root, gimli::DW_TAG_array_type, vec![ty(int)]);
        let count = (gimli::DW_AT_count, AttributeValue::Udata(2));
        add(arr2, gimli::DW_TAG_subrange_type, vec![count]);
        let size = |n: u8| (gimli::DW_AT_byte_size, AttributeValue::Data1(n));
        let at = |n: u64| (gimli::DW_AT_data_member_location, AttributeValue::Udata(n));
        let s = add(
            root,
            gimli::DW_TAG_structure_type,
            vec![name("S"), size(12)],
        );
        let limit = (gimli::DW_AT_const_value, AttributeValue::Sdata(7));
        add(
            s,
            gimli::DW_TAG_variable,
            vec![name("limit"), ty(cint), decl(), limit],
        );
        add(s, gimli::DW_TAG_member, vec![name("x"), ty(int), at(0)]);
        add(s, gimli::DW_TAG_member, vec![name("made"), ty(int), decl()]);
        add(s, gimli::DW_TAG_member, vec![name("y"), ty(arr2), at(4)]);
        let cs = add(root, gimli::DW_TAG_const_type, vec![ty(s)]);
        let ptr = add(root, gimli::DW_TAG_pointer_type, vec![ty(int)]);
        for (alias, tag, target) in [
            ("SRef", gimli::DW_TAG_reference_type, cs),
            ("IntRvalue", gimli::DW_TAG_rvalue_reference_type, int),
            ("PtrRef", gimli::DW_TAG_reference_type, ptr),
            ("ArrRef", gimli::DW_TAG_reference_type, arr),
        ] {
            let r = add(root, tag, vec![ty(target)]);
            add(root, gimli::DW_TAG_typedef, vec![name(alias), ty(r)]);
        }
        let mut out = Sections::new(EndianVec::new(gimli::LittleEndian));
        dwarf.write(&mut out).expect("writes");
        let mut map = HashMap::new();
        out.for_each(|id, w| {
            map.insert(id.name(), w.slice().to_vec());
            Ok::<(), gimli::write::Error>(())
        })
        .unwrap();
        map
    }

    /// The type a typedef of the test unit names.
    fn aliased(p: &Program, alias: &str) -> Ty {
        let die = p.type_named(alias).unwrap().expect(alias);
        match p.type_die(die).unwrap() {
            TypeDie::Typedef {
                target: Some(t), ..
            } => Ty::of_die(p, t).unwrap(),
            t => panic!("{alias}: {t:?}"),
        }
    }

    /// References are named as gdb's `whatis` names them (the referent's qualifiers
    /// kept), `ptype` expands a referenced struct, and a struct's static members come
    /// in declaration order among the others, with their qualifiers (gdb's ptype of
    /// `struct S` as the unit declares it).
    #[test]
    fn references_and_static_members_as_gdb_types_them() {
        let secs = sections();
        let p = Program::load(
            |n| secs.get(n).map(Vec::as_slice),
            ProgramOptions::default(),
        )
        .unwrap();
        let s_body = "struct S {\n    static const int limit;\n    int x;\n    \
                      static int made;\n    int y[2];\n}";
        let sref = aliased(&p, "SRef");
        assert!(matches!(
            sref,
            Ty::Reference {
                rvalue: false,
                size: 8,
                ..
            }
        ));
        assert_eq!(sref.name(&p), "const S &");
        assert_eq!(sref.expanded(&p), format!("const {s_body} &"));
        let rv = aliased(&p, "IntRvalue");
        assert_eq!(
            (rv.name(&p), rv.expanded(&p)),
            ("int &&".into(), "int &&".into())
        );
        assert_eq!(aliased(&p, "PtrRef").name(&p), "int *&");
        assert_eq!(aliased(&p, "ArrRef").name(&p), "int (&)[4]");
        // A reference is not a number: arithmetic reads through it (the evaluator's
        // `referent`), never with its address.
        assert!(!sref.scalar());
        let s = Ty::of_die(&p, p.type_named("S").unwrap().unwrap()).unwrap();
        assert_eq!(s.expanded(&p), s_body);
        let Ty::Struct {
            fields, statics, ..
        } = &s
        else {
            panic!("{s:?}")
        };
        // Static members take no room: the data members keep their offsets.
        let layout: Vec<(&str, u64)> = fields.iter().map(|f| (&*f.name, f.offset)).collect();
        assert_eq!(layout, [("x", 0), ("y", 4)]);
        let statics: Vec<(&str, usize)> = statics.iter().map(|m| (&*m.name, m.position)).collect();
        assert_eq!(statics, [("limit", 0), ("made", 1)]);
        assert_eq!(s.size(), 12);
    }
}
