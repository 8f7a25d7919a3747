//! A type model over `.debug_info` ([`Program::type_die`]: one type DIE, one level deep,
//! naming the types it refers to by their `.debug_info` offset) and the variables at
//! namespace or compile-unit scope ([`Program::globals`]).

use super::{LocationValue, Program, ProgramError, Rd, UnitData, Variable, const_value};
use gimli::AttributeValue;
use std::collections::HashMap;

/// How many typedefs and qualifiers [`Program::type_die`] follows to find an enumeration's
/// underlying base type.
const MAX_TYPE_CHAIN: usize = 16;

/// One type DIE, one level deep; the types it refers to are named by their .debug_info
/// offset (the same numbering as [`Variable::die`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeDie {
    /// DW_TAG_base_type.
    Base {
        /// DW_AT_name (empty when absent).
        name: String,
        /// DW_AT_byte_size (or DW_AT_bit_size rounded up to bytes; 0 when neither).
        size: u64,
        /// DW_AT_encoding.
        encoding: Encoding,
    },
    /// DW_TAG_pointer_type, DW_TAG_reference_type, DW_TAG_rvalue_reference_type (a
    /// reference is held as the address of its referent, as a pointer is).
    Pointer {
        /// The pointed-to type (None: `void`).
        target: Option<u64>,
        /// DW_AT_byte_size, else the unit's address size.
        size: u64,
        /// DW_AT_address_class.
        address_class: Option<u64>,
        /// A pointer, or which kind of reference.
        kind: PointerKind,
    },
    /// DW_TAG_structure_type, DW_TAG_class_type, DW_TAG_union_type.
    Struct {
        /// DW_AT_name (None: anonymous).
        name: Option<String>,
        /// DW_AT_byte_size (None for a declaration).
        size: Option<u64>,
        /// The data members (static members left out) and base classes, in DIE order.
        members: Vec<Member>,
        /// The static data members, in DIE order (each placed among `members`).
        statics: Vec<StaticMember>,
        /// Whether it is a DW_TAG_union_type.
        union: bool,
    },
    /// DW_TAG_array_type: element type and the count of each dimension (None: unknown).
    Array {
        /// The element type.
        element: u64,
        /// Per DW_TAG_subrange_type child, outermost first: DW_AT_count, or
        /// DW_AT_upper_bound - DW_AT_lower_bound + 1 (lower bound 0 by default); None when
        /// not a constant (a variable-length or flexible array).
        counts: Vec<Option<u64>>,
    },
    /// DW_TAG_typedef.
    Typedef {
        /// DW_AT_name (empty when absent).
        name: String,
        /// The named type (None: `void`).
        target: Option<u64>,
    },
    /// DW_TAG_const_type, DW_TAG_volatile_type, DW_TAG_restrict_type, DW_TAG_atomic_type.
    Qualified {
        /// Which qualifier.
        qualifier: Qualifier,
        /// The qualified type (None: `void`, as in `const void`).
        target: Option<u64>,
    },
    /// DW_TAG_enumeration_type.
    Enum {
        /// DW_AT_name (None: anonymous).
        name: Option<String>,
        /// DW_AT_byte_size (else the underlying type's; 0 when neither is known).
        size: u64,
        /// The underlying type (DW_AT_type), if given.
        underlying: Option<u64>,
        /// Name and value of each DW_TAG_enumerator (a value in a DW_FORM_data* form is
        /// sign-extended when the underlying type is signed).
        enumerators: Vec<(String, i64)>,
    },
    /// DW_TAG_subroutine_type (a function type, as pointed to by a function pointer).
    Function,
    /// Anything else (the tag's name, e.g. "DW_TAG_ptr_to_member_type").
    Other(String),
}

/// A base type's DW_AT_encoding (DW_ATE_*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// DW_ATE_signed.
    Signed,
    /// DW_ATE_unsigned.
    Unsigned,
    /// DW_ATE_signed_char.
    SignedChar,
    /// DW_ATE_unsigned_char.
    UnsignedChar,
    /// DW_ATE_float.
    Float,
    /// DW_ATE_boolean.
    Boolean,
    /// Any other DW_ATE_* code (0 when the attribute is absent).
    Other(u8),
}

impl Encoding {
    /// The encoding of a DW_ATE_* code.
    pub fn from_dwarf(code: u8) -> Self {
        match gimli::DwAte(code) {
            gimli::DW_ATE_signed => Encoding::Signed,
            gimli::DW_ATE_unsigned => Encoding::Unsigned,
            gimli::DW_ATE_signed_char => Encoding::SignedChar,
            gimli::DW_ATE_unsigned_char => Encoding::UnsignedChar,
            gimli::DW_ATE_float => Encoding::Float,
            gimli::DW_ATE_boolean => Encoding::Boolean,
            _ => Encoding::Other(code),
        }
    }

    /// Whether values of this encoding are signed integers.
    pub fn is_signed(self) -> bool {
        matches!(self, Encoding::Signed | Encoding::SignedChar)
    }
}

/// What a DW_TAG_pointer_type, DW_TAG_reference_type or DW_TAG_rvalue_reference_type
/// is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointerKind {
    /// DW_TAG_pointer_type (`T *`).
    Pointer,
    /// DW_TAG_reference_type (`T &`).
    Reference,
    /// DW_TAG_rvalue_reference_type (`T &&`).
    RvalueReference,
}

/// A type qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Qualifier {
    /// DW_TAG_const_type.
    Const,
    /// DW_TAG_volatile_type.
    Volatile,
    /// DW_TAG_restrict_type.
    Restrict,
    /// DW_TAG_atomic_type.
    Atomic,
}

/// A data member of a structure, class or union (or a base class: a DW_TAG_inheritance
/// child, given as a member without a name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// DW_AT_name (None: an anonymous member or a base class).
    pub name: Option<String>,
    /// DW_AT_data_member_location as a constant, in bytes (0 when absent, as for union
    /// members and bit fields located by DW_AT_data_bit_offset).
    pub offset: u64,
    /// .debug_info offset of its type.
    pub ty: u64,
    /// DW_AT_bit_size, for a bit field.
    pub bit_size: Option<u64>,
    /// Bits from the start of the containing object to the bit field: its
    /// DW_AT_data_bit_offset, or what the DWARF 4 attributes say (see
    /// `dwarf4_bit_offset`).
    pub bit_offset: Option<u64>,
}

/// A static data member of a structure or class: a DW_TAG_member with DW_AT_declaration
/// (DWARF 4's form, which clang-15 still writes in DWARF 5 units) or a DW_TAG_variable
/// child (DWARF 5's). It takes no room in the object; its value is where its definition
/// (a DW_TAG_variable whose DW_AT_specification names this DIE) says, see
/// [`Program::static_member`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticMember {
    /// DW_AT_name.
    pub name: String,
    /// .debug_info offset of its type (None: the DIE names none).
    pub ty: Option<u64>,
    /// .debug_info offset of the member's DIE (the declaration).
    pub die: u64,
    /// How many of the struct's [`Member`]s come before it in DIE order (where a
    /// debugger shows it among them: gdb prints members in declaration order).
    pub position: usize,
}

/// Where a variable DIE at namespace or compile-unit scope sits.
#[derive(Clone)]
struct GlobalSite {
    unit: usize,
    die: gimli::UnitOffset,
    /// The qualified name of its scope (`ns::S`; empty at compile-unit scope).
    scope: String,
}

/// What [`Program::global_sites`] finds.
#[derive(Default)]
struct Sites {
    /// The variables of [`Program::globals`].
    globals: Vec<GlobalSite>,
    /// The first definition (a DW_TAG_variable with DW_AT_specification outside any
    /// function) of each declaration, by the declaration's .debug_info offset.
    definitions: HashMap<u64, GlobalSite>,
    /// The qualified scope name of every DW_TAG_variable and DW_TAG_member DIE (by
    /// .debug_info offset), which a DW_AT_specification may name.
    scopes: HashMap<u64, String>,
}

/// The scope a DIE opens for its children, in [`Program::globals`]'s walk.
#[derive(Clone, Default)]
struct Scope {
    /// Qualified name prefix (`ns::S`).
    name: String,
    /// Inside a subprogram, lexical block or inlined subroutine.
    in_code: bool,
}

/// The udata value of an attribute.
fn udata(die: &gimli::DebuggingInformationEntry<Rd<'_>>, at: gimli::DwAt) -> Option<u64> {
    die.attr_value(at).and_then(|v| v.udata_value())
}

/// `prefix::name`, or `name` when the prefix is empty.
fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}::{name}")
    }
}

/// The name of a DW_TAG_* code, as `llvm-dwarfdump` prints it.
fn tag_name(tag: gimli::DwTag) -> String {
    tag.static_string()
        .map(str::to_string)
        .unwrap_or_else(|| format!("DW_TAG_unknown_{:x}", tag.0))
}

/// A DW_AT_data_member_location given as an expression: only `DW_OP_plus_uconst N` is a
/// constant offset (anything else locates a virtual base at run time).
fn member_location_expr(bytes: &[u8]) -> Option<u64> {
    let (&op, rest) = bytes.split_first()?;
    if op != gimli::DW_OP_plus_uconst.0 {
        return None;
    }
    let mut r = Rd::new(rest, gimli::LittleEndian);
    let n = gimli::leb128::read::unsigned(&mut r).ok()?;
    r.is_empty().then_some(n)
}

impl<'d> Program<'d> {
    /// The first type DIE named `name` that defines a type (a struct, class, union,
    /// enumeration, typedef or base type; not a declaration), as a .debug_info offset
    /// for [`Program::type_die`]: what a debugger's `ptype NAME` shows.
    pub fn type_named(&self, name: &str) -> Result<Option<u64>, ProgramError> {
        for u in &self.units {
            let mut cur = u.unit.entries();
            while let Some(die) = cur.next_dfs()? {
                let is_type = matches!(
                    die.tag(),
                    gimli::DW_TAG_structure_type
                        | gimli::DW_TAG_class_type
                        | gimli::DW_TAG_union_type
                        | gimli::DW_TAG_enumeration_type
                        | gimli::DW_TAG_typedef
                        | gimli::DW_TAG_base_type
                );
                if !is_type || die.attr(gimli::DW_AT_declaration).is_some() {
                    continue;
                }
                if self.die_name(u, die).as_deref() == Some(name) {
                    return Ok(die
                        .offset()
                        .to_debug_info_offset(&u.unit.header)
                        .map(|o| o.0 as u64));
                }
            }
        }
        Ok(None)
    }

    /// The type DIE at a .debug_info offset, one level deep: the types it refers to are
    /// given as .debug_info offsets (pass them to `type_die` again to walk on).
    pub fn type_die(&self, offset: u64) -> Result<TypeDie, ProgramError> {
        let (u, uo) = self.find_die(offset)?;
        let die = u.unit.entry(uo)?;
        let target = die
            .attr_value(gimli::DW_AT_type)
            .and_then(|v| self.ref_offset(u, v));
        let name = self.die_name(u, &die);
        let size = udata(&die, gimli::DW_AT_byte_size);
        let tag = die.tag();
        Ok(match tag {
            gimli::DW_TAG_base_type => TypeDie::Base {
                name: name.unwrap_or_default(),
                size: size
                    .or_else(|| udata(&die, gimli::DW_AT_bit_size).map(|b| b.div_ceil(8)))
                    .unwrap_or(0),
                encoding: Encoding::from_dwarf(match die.attr_value(gimli::DW_AT_encoding) {
                    Some(AttributeValue::Encoding(e)) => e.0,
                    Some(v) => v.udata_value().unwrap_or(0) as u8,
                    None => 0,
                }),
            },
            gimli::DW_TAG_pointer_type
            | gimli::DW_TAG_reference_type
            | gimli::DW_TAG_rvalue_reference_type => TypeDie::Pointer {
                kind: match tag {
                    gimli::DW_TAG_reference_type => PointerKind::Reference,
                    gimli::DW_TAG_rvalue_reference_type => PointerKind::RvalueReference,
                    _ => PointerKind::Pointer,
                },
                target,
                size: size.unwrap_or(u64::from(u.unit.encoding().address_size)),
                address_class: match die.attr_value(gimli::DW_AT_address_class) {
                    Some(AttributeValue::AddressClass(c)) => Some(c.0),
                    Some(v) => v.udata_value(),
                    None => None,
                },
            },
            gimli::DW_TAG_structure_type | gimli::DW_TAG_class_type | gimli::DW_TAG_union_type => {
                let (members, statics) = self.members(u, uo)?;
                TypeDie::Struct {
                    name,
                    size,
                    members,
                    statics,
                    union: tag == gimli::DW_TAG_union_type,
                }
            }
            gimli::DW_TAG_array_type => TypeDie::Array {
                element: target.ok_or_else(|| {
                    ProgramError::Gimli(format!("array type {offset:#x} has no element type"))
                })?,
                counts: self.dimensions(u, uo)?,
            },
            gimli::DW_TAG_typedef => TypeDie::Typedef {
                name: name.unwrap_or_default(),
                target,
            },
            gimli::DW_TAG_const_type => Self::qualified(Qualifier::Const, target),
            gimli::DW_TAG_volatile_type => Self::qualified(Qualifier::Volatile, target),
            gimli::DW_TAG_restrict_type => Self::qualified(Qualifier::Restrict, target),
            gimli::DW_TAG_atomic_type => Self::qualified(Qualifier::Atomic, target),
            gimli::DW_TAG_enumeration_type => {
                let base = target.and_then(|t| self.underlying_base(t));
                TypeDie::Enum {
                    name,
                    size: size.or(base.map(|b| b.1)).unwrap_or(0),
                    underlying: target,
                    enumerators: self.enumerators(u, uo, base.is_some_and(|b| b.0.is_signed()))?,
                }
            }
            gimli::DW_TAG_subroutine_type => TypeDie::Function,
            t => TypeDie::Other(tag_name(t)),
        })
    }

    fn qualified(qualifier: Qualifier, target: Option<u64>) -> TypeDie {
        TypeDie::Qualified { qualifier, target }
    }

    /// The encoding and size of the base type under typedefs and qualifiers.
    fn underlying_base(&self, mut offset: u64) -> Option<(Encoding, u64)> {
        for _ in 0..MAX_TYPE_CHAIN {
            match self.type_die(offset).ok()? {
                TypeDie::Base { encoding, size, .. } => return Some((encoding, size)),
                TypeDie::Typedef { target, .. } | TypeDie::Qualified { target, .. } => {
                    offset = target?
                }
                _ => return None,
            }
        }
        None
    }

    /// The data members and base classes of a structure, class or union, and its static
    /// data members.
    fn members(
        &self,
        u: &UnitData<'d>,
        uo: gimli::UnitOffset,
    ) -> Result<(Vec<Member>, Vec<StaticMember>), ProgramError> {
        let mut out = Vec::new();
        let mut statics = Vec::new();
        let mut tree = u.unit.entries_tree(Some(uo))?;
        let root = tree.root()?;
        let mut children = root.children();
        while let Some(c) = children.next()? {
            let e = c.entry();
            let tag = e.tag();
            // Static data members are declarations (DW_TAG_member with DW_AT_declaration
            // in DWARF 4 style, DW_TAG_variable in DWARF 5 style): they take no room.
            let is_static = tag == gimli::DW_TAG_variable
                || (tag == gimli::DW_TAG_member && e.attr(gimli::DW_AT_declaration).is_some());
            if is_static {
                statics.push(StaticMember {
                    name: self.die_name(u, e).unwrap_or_default(),
                    ty: e
                        .attr_value(gimli::DW_AT_type)
                        .and_then(|v| self.ref_offset(u, v)),
                    die: Self::die_offset(u, e.offset()),
                    position: out.len(),
                });
                continue;
            }
            if !matches!(tag, gimli::DW_TAG_member | gimli::DW_TAG_inheritance) {
                continue;
            }
            let Some(ty) = e
                .attr_value(gimli::DW_AT_type)
                .and_then(|v| self.ref_offset(u, v))
            else {
                continue;
            };
            let offset = match e.attr_value(gimli::DW_AT_data_member_location) {
                None => 0,
                Some(AttributeValue::Exprloc(x)) => match member_location_expr(x.0.slice()) {
                    Some(n) => n,
                    None => continue,
                },
                Some(v) => match v.udata_value() {
                    Some(n) => n,
                    None => continue,
                },
            };
            out.push(Member {
                name: if tag == gimli::DW_TAG_member {
                    self.die_name(u, e)
                } else {
                    None
                },
                offset,
                ty,
                bit_size: udata(e, gimli::DW_AT_bit_size),
                bit_offset: udata(e, gimli::DW_AT_data_bit_offset)
                    .or_else(|| dwarf4_bit_offset(e, offset)),
            });
        }
        Ok((out, statics))
    }

    /// The element count of each dimension of an array type.
    fn dimensions(
        &self,
        u: &UnitData<'d>,
        uo: gimli::UnitOffset,
    ) -> Result<Vec<Option<u64>>, ProgramError> {
        let mut out = Vec::new();
        let mut tree = u.unit.entries_tree(Some(uo))?;
        let root = tree.root()?;
        let mut children = root.children();
        while let Some(c) = children.next()? {
            let e = c.entry();
            match e.tag() {
                gimli::DW_TAG_subrange_type => out.push(subrange_count(e)),
                gimli::DW_TAG_enumeration_type => out.push(None),
                _ => {}
            }
        }
        Ok(out)
    }

    /// The enumerators of an enumeration type.
    fn enumerators(
        &self,
        u: &UnitData<'d>,
        uo: gimli::UnitOffset,
        signed: bool,
    ) -> Result<Vec<(String, i64)>, ProgramError> {
        let mut out = Vec::new();
        let mut tree = u.unit.entries_tree(Some(uo))?;
        let root = tree.root()?;
        let mut children = root.children();
        while let Some(c) = children.next()? {
            let e = c.entry();
            if e.tag() != gimli::DW_TAG_enumerator {
                continue;
            }
            let value = match e.attr_value(gimli::DW_AT_const_value) {
                Some(AttributeValue::Sdata(x)) => Some(x),
                Some(AttributeValue::Udata(x)) => Some(x as i64),
                Some(v) if signed => v.sdata_value(),
                Some(v) => v.udata_value().map(|x| x as i64),
                None => None,
            };
            if let Some(value) = value {
                out.push((self.die_name(u, e).unwrap_or_default(), value));
            }
        }
        Ok(out)
    }

    /// The variables at namespace or compile-unit scope (not inside a subprogram) that
    /// have a DW_AT_location, in DIE order. A defining DIE that has only
    /// DW_AT_specification (clang's form for static data members and for variables
    /// declared in a class or namespace) takes its name and type from the declaration.
    /// Names are qualified by the enclosing namespaces and classes of the declaration
    /// (`ns::x`, `S<int>::count`, `(anonymous namespace)::y`); [`Variable::unqualified_name`]
    /// gives the plain name. `location` is the DW_AT_location expression (a global's
    /// location does not depend on the PC; a location list, which LLVM never gives a
    /// global, is reported as [`LocationValue::NotAtPc`]); `function` is empty.
    pub fn globals(&self) -> Result<Vec<Variable>, ProgramError> {
        let sites = self.global_sites()?;
        sites
            .globals
            .iter()
            .map(|site| self.global_variable(site, &sites.scopes))
            .collect()
    }

    /// The variable a static data member ([`StaticMember::die`]) stands for, as gdb
    /// finds it: its definition (the DW_TAG_variable outside any function whose
    /// DW_AT_specification names the member, as clang writes it) with that definition's
    /// location or constant, else the member's own DW_AT_location or DW_AT_const_value
    /// (clang-15 gives a `constexpr` member its value there and writes no definition).
    /// `location` and `const_value` are both None when nothing gives the value (a member
    /// declared but never defined): gdb shows it `<optimized out>`.
    pub fn static_member(&self, member: u64) -> Result<Variable, ProgramError> {
        let sites = self.global_sites()?;
        let (mu, mo) = self.find_die(member)?;
        let decl = mu.unit.entry(mo)?;
        let own = match decl.attr_value(gimli::DW_AT_location) {
            Some(AttributeValue::Exprloc(e)) => {
                Some(LocationValue::Exprs(vec![e.0.slice().to_vec()]))
            }
            _ => None,
        };
        let mut v = match sites.definitions.get(&member) {
            Some(site) => self.global_variable(site, &sites.scopes)?,
            None => {
                let scope = sites.scopes.get(&member).map(String::as_str).unwrap_or("");
                let (type_name, byte_size) = self.type_of(mu, &decl);
                Variable {
                    name: join(scope, &self.die_name(mu, &decl).unwrap_or_default()),
                    die: member,
                    parameter: false,
                    type_name,
                    type_die: decl
                        .attr_value(gimli::DW_AT_type)
                        .and_then(|v| self.ref_offset(mu, v)),
                    byte_size,
                    location: None,
                    const_value: None,
                    function: String::new(),
                }
            }
        };
        if v.location.is_none() && v.const_value.is_none() {
            v.location = own;
            v.const_value = const_value(&decl);
        }
        Ok(v)
    }

    /// The variable at a [`GlobalSite`]. A defining DIE with only DW_AT_specification
    /// takes its name and type from the declaration; `location` is None when the DIE
    /// has no DW_AT_location (a definition that gives only DW_AT_const_value).
    fn global_variable(
        &self,
        site: &GlobalSite,
        scopes: &HashMap<u64, String>,
    ) -> Result<Variable, ProgramError> {
        let u = &self.units[site.unit];
        let die = u.unit.entry(site.die)?;
        let decl = die
            .attr_value(gimli::DW_AT_specification)
            .and_then(|v| Some((self.resolve_ref(u, v)?, self.ref_offset(u, v)?)));
        let decl = match decl {
            Some(((du, doff), off)) => Some((du, du.unit.entry(doff)?, off)),
            None => None,
        };
        let name = self
            .die_name(u, &die)
            .or_else(|| decl.as_ref().and_then(|(du, d, _)| self.die_name(du, d)))
            .unwrap_or_default();
        let scope = match &decl {
            Some((_, _, off)) => scopes.get(off).map(String::as_str).unwrap_or(""),
            None => site.scope.as_str(),
        };
        // The DIE carrying DW_AT_type: the definition, else its declaration.
        let (tu, tdie) = match &decl {
            Some((du, d, _)) if die.attr(gimli::DW_AT_type).is_none() => (*du, d),
            _ => (u, &die),
        };
        let (type_name, byte_size) = self.type_of(tu, tdie);
        let location = match die.attr_value(gimli::DW_AT_location) {
            Some(AttributeValue::Exprloc(e)) => {
                Some(LocationValue::Exprs(vec![e.0.slice().to_vec()]))
            }
            Some(_) => Some(LocationValue::NotAtPc),
            None => None,
        };
        Ok(Variable {
            name: join(scope, &name),
            die: Self::die_offset(u, site.die),
            parameter: false,
            type_name,
            type_die: tdie
                .attr_value(gimli::DW_AT_type)
                .and_then(|v| self.ref_offset(tu, v)),
            byte_size,
            location,
            const_value: const_value(&die),
            function: String::new(),
        })
    }

    /// The variable DIEs of [`Program::globals`], the definitions of declared variables
    /// (static data members), and the qualified scope name of every DW_TAG_variable and
    /// DW_TAG_member DIE.
    fn global_sites(&self) -> Result<Sites, ProgramError> {
        let mut sites = Sites::default();
        for (ui, u) in self.units.iter().enumerate() {
            let mut cur = u.unit.entries();
            let mut scopes: Vec<Scope> = Vec::new();
            while let Some(die) = cur.next_dfs()? {
                let depth = usize::try_from(die.depth()).unwrap_or(0);
                scopes.truncate(depth);
                let parent = scopes.last().cloned().unwrap_or_default();
                let tag = die.tag();
                if matches!(tag, gimli::DW_TAG_variable | gimli::DW_TAG_member) {
                    sites
                        .scopes
                        .insert(Self::die_offset(u, die.offset()), parent.name.clone());
                }
                if tag == gimli::DW_TAG_variable && !parent.in_code {
                    let site = GlobalSite {
                        unit: ui,
                        die: die.offset(),
                        scope: parent.name.clone(),
                    };
                    if let Some(decl) = die
                        .attr_value(gimli::DW_AT_specification)
                        .and_then(|v| self.ref_offset(u, v))
                    {
                        sites
                            .definitions
                            .entry(decl)
                            .or_insert_with(|| site.clone());
                    }
                    if die.attr(gimli::DW_AT_location).is_some() {
                        sites.globals.push(site);
                    }
                }
                let anonymous = match tag {
                    gimli::DW_TAG_namespace => Some("(anonymous namespace)"),
                    gimli::DW_TAG_structure_type => Some("(anonymous struct)"),
                    gimli::DW_TAG_class_type => Some("(anonymous class)"),
                    gimli::DW_TAG_union_type => Some("(anonymous union)"),
                    _ => None,
                };
                let child = if let Some(anon) = anonymous {
                    let own = self.die_name(u, die);
                    Scope {
                        name: join(&parent.name, own.as_deref().unwrap_or(anon)),
                        in_code: parent.in_code,
                    }
                } else {
                    Scope {
                        name: parent.name,
                        in_code: parent.in_code
                            || matches!(
                                tag,
                                gimli::DW_TAG_subprogram
                                    | gimli::DW_TAG_lexical_block
                                    | gimli::DW_TAG_inlined_subroutine
                                    | gimli::DW_TAG_entry_point
                            ),
                    }
                };
                scopes.push(child);
            }
        }
        Ok(sites)
    }
}

/// The element count of a DW_TAG_subrange_type: DW_AT_count, or DW_AT_upper_bound -
/// DW_AT_lower_bound + 1; None when neither is a constant (or the count is negative, as
/// some producers write for an array of unknown size).
fn subrange_count(e: &gimli::DebuggingInformationEntry<Rd<'_>>) -> Option<u64> {
    let signed = |v: AttributeValue<Rd<'_>>| match v {
        AttributeValue::Sdata(x) => Some(x),
        v => v.udata_value().and_then(|x| i64::try_from(x).ok()),
    };
    if let Some(v) = e.attr_value(gimli::DW_AT_count) {
        return signed(v).and_then(|c| u64::try_from(c).ok());
    }
    let upper = signed(e.attr_value(gimli::DW_AT_upper_bound)?)?;
    let lower = match e.attr_value(gimli::DW_AT_lower_bound) {
        Some(v) => signed(v)?,
        None => 0,
    };
    u64::try_from(upper.checked_sub(lower)?.checked_add(1)?).ok()
}

/// A bit field placed the DWARF 4 way (clang-15 still writes it so in DWARF 5 units):
/// `DW_AT_bit_offset` counts from the most significant bit of the `DW_AT_byte_size`
/// storage unit at `DW_AT_data_member_location` (`byte_offset`). On a little-endian
/// target the field starts `byte_offset * 8 + byte_size * 8 - bit_offset - bit_size`
/// bits into the object (DWARF 4 §5.5.6).
fn dwarf4_bit_offset(
    e: &gimli::DebuggingInformationEntry<Rd<'_>>,
    byte_offset: u64,
) -> Option<u64> {
    let bit_offset = udata(e, gimli::DW_AT_bit_offset)?;
    let bit_size = udata(e, gimli::DW_AT_bit_size)?;
    let byte_size = udata(e, gimli::DW_AT_byte_size)?;
    (byte_offset * 8 + byte_size * 8).checked_sub(bit_offset + bit_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_locations_as_expressions() {
        assert_eq!(member_location_expr(&[0x23, 0x90, 0x01]), Some(0x90));
        assert_eq!(member_location_expr(&[0x23, 0x08, 0x06]), None);
        assert_eq!(member_location_expr(&[0x12]), None);
        assert_eq!(member_location_expr(&[]), None);
    }

    #[test]
    fn unqualified_names() {
        let v = |name: &str| Variable {
            name: name.into(),
            die: 0,
            parameter: false,
            type_name: None,
            type_die: None,
            byte_size: None,
            location: None,
            const_value: None,
            function: String::new(),
        };
        for (q, plain) in [
            ("x", "x"),
            ("ns::x", "x"),
            ("ns::(anonymous namespace)::y", "y"),
            ("S<a::b, c::d>::count", "count"),
        ] {
            assert_eq!(v(q).unqualified_name(), plain, "{q}");
        }
    }

    #[test]
    fn encodings_and_tag_names() {
        assert_eq!(Encoding::from_dwarf(0x05), Encoding::Signed);
        assert_eq!(Encoding::from_dwarf(0x08), Encoding::UnsignedChar);
        assert_eq!(Encoding::from_dwarf(0x10), Encoding::Other(0x10));
        assert!(Encoding::SignedChar.is_signed() && !Encoding::Boolean.is_signed());
        assert_eq!(
            tag_name(gimli::DW_TAG_ptr_to_member_type),
            "DW_TAG_ptr_to_member_type"
        );
        assert_eq!(tag_name(gimli::DwTag(0x5fff)), "DW_TAG_unknown_5fff");
    }
}
