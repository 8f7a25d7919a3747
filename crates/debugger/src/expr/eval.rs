//! Evaluation of [`Ast`] for the focused lane, over the DWARF's types and locations.

use super::parse::{Ast, BinOp, TypeName, UnOp};
use super::types::{Target, Ty};
use crate::frontend::{Active, Frontend};
use amdgpu_dwarf::program::{LocationValue, Program, Variable};
use amdgpu_dwarf::{AddressSpace, Loc, Single, Storage};

/// Where a value is.
#[derive(Clone, Debug)]
pub(crate) enum Repr {
    /// Computed bytes (not assignable).
    Bytes(Vec<u8>),
    /// An object: the focused lane's view of a DWARF location.
    Loc(Loc),
    /// The DWARF gives no location at the PC.
    OptimizedOut,
}

/// A value: its type and where it is.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub ty: Ty,
    pub repr: Repr,
}

/// A scalar as arithmetic sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Num {
    Int(i128),
    Float(f64),
}

/// The largest object an expression reads at once.
pub(crate) const MAX_READ: u64 = 1 << 20;

fn int_ty(size: u8, signed: bool) -> Ty {
    let name = match (size, signed) {
        (8, true) => "long",
        (8, false) => "unsigned long",
        (_, true) => "int",
        (_, false) => "unsigned int",
    };
    Ty::Int {
        name: name.into(),
        size,
        signed,
        char: false,
    }
}

/// Whether `n` names a vector register (`v0`, `v255`).
fn is_vgpr(n: &str) -> bool {
    n.strip_prefix('v')
        .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
}

/// `bytes` as the scalar of type `ty`.
pub(crate) fn decode(ty: &Ty, bytes: &[u8]) -> Option<Num> {
    let mut le = [0u8; 16];
    let n = bytes.len().min(16);
    le[..n].copy_from_slice(&bytes[..n]);
    let raw = u128::from_le_bytes(le);
    Some(match ty {
        Ty::Int { size, signed, .. } => {
            let bits = 8 * u32::from(*size).min(16);
            let v = if bits >= 128 {
                raw
            } else {
                raw & ((1u128 << bits) - 1)
            };
            if *signed && bits < 128 {
                Num::Int(((v << (128 - bits)) as i128) >> (128 - bits))
            } else {
                Num::Int(v as i128)
            }
        }
        Ty::Enum { size, .. } => {
            let bits = 8 * u32::from(*size);
            let v = raw & ((1u128 << bits) - 1);
            Num::Int(((v << (128 - bits)) as i128) >> (128 - bits))
        }
        Ty::Bool => Num::Int(i128::from(raw & 0xff != 0)),
        // A reference: the referent's address.
        Ty::Pointer { size, .. } | Ty::Reference { size, .. } => {
            Num::Int((raw & ((1u128 << (8 * u32::from(*size))) - 1)) as i128)
        }
        Ty::Float { size: 4, .. } => Num::Float(f64::from(f32::from_bits(raw as u32))),
        Ty::Float { size: 8, .. } => Num::Float(f64::from_bits(raw as u64)),
        Ty::Float { size: 2, .. } => Num::Float(f64::from(half::f16::from_bits(raw as u16))),
        _ => return None,
    })
}

/// The bytes of `n` as type `ty` (C's conversions: truncation, float to int toward zero).
pub(crate) fn encode(ty: &Ty, n: Num) -> Option<Vec<u8>> {
    let as_int = |n: Num| match n {
        Num::Int(i) => i,
        Num::Float(f) => f as i128,
    };
    let as_float = |n: Num| match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    };
    Some(match ty {
        Ty::Int { size, .. } | Ty::Pointer { size, .. } | Ty::Enum { size, .. } => {
            as_int(n).to_le_bytes()[..usize::from(*size)].to_vec()
        }
        Ty::Bool => vec![u8::from(as_int(n) != 0 || as_float(n) != 0.0)],
        Ty::Float { size: 4, .. } => (as_float(n) as f32).to_le_bytes().to_vec(),
        Ty::Float { size: 8, .. } => as_float(n).to_le_bytes().to_vec(),
        Ty::Float { size: 2, .. } => half::f16::from_f64(as_float(n)).to_le_bytes().to_vec(),
        _ => return None,
    })
}

fn truthy(n: Num) -> bool {
    match n {
        Num::Int(i) => i != 0,
        Num::Float(f) => f != 0.0,
    }
}

/// The type of a binary arithmetic result (C's usual conversions, simplified: the wider
/// operand, unsigned when a same-size operand is).
fn common(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        (Ty::Float { size: x, .. }, Ty::Float { size: y, .. }) => if x.max(y) == &8 {
            Ty::named("double")
        } else {
            Ty::named("float")
        }
        .unwrap_or(Ty::Void),
        (f @ Ty::Float { .. }, _) | (_, f @ Ty::Float { .. }) => f.clone(),
        _ => {
            let info = |t: &Ty| match t {
                Ty::Int { size, signed, .. } => ((*size).max(4), *signed),
                Ty::Pointer { .. } => (8, false),
                _ => (4, true),
            };
            let (sa, ua) = info(a);
            let (sb, ub) = info(b);
            let size = sa.max(sb);
            // unsigned when an operand of the result's size is
            let signed = (ua || sa != size) && (ub || sb != size);
            int_ty(size, signed)
        }
    }
}

impl Frontend {
    /// Evaluates `ast` for the focused lane; a reference stands for its referent (as
    /// gdb's `coerce_ref`: `r.a`, `r + 1`, `&r`, `sizeof (r)`, `r = 5` all use the
    /// referenced object).
    pub(crate) fn eval(&mut self, ast: &Ast, a: &mut Active) -> Result<Val, String> {
        let v = self.eval_ref(ast, a)?;
        self.referent(v, a)
    }

    /// Evaluates `ast` for the focused lane, a reference kept as one: what `print`,
    /// `whatis` and `ptype` show (`(int &) @0x...: 5`, `type = int &`).
    pub(crate) fn eval_ref(&mut self, ast: &Ast, a: &mut Active) -> Result<Val, String> {
        match ast {
            Ast::Int(v) => {
                let ty = if *v > i32::MAX as u64 {
                    int_ty(8, *v <= i64::MAX as u64)
                } else {
                    int_ty(4, true)
                };
                Ok(Val {
                    repr: Repr::Bytes(v.to_le_bytes()[..ty.size() as usize].to_vec()),
                    ty,
                })
            }
            Ast::Float(f) => Ok(Val {
                ty: Ty::named("double").unwrap_or(Ty::Void),
                repr: Repr::Bytes(f.to_le_bytes().to_vec()),
            }),
            Ast::Char(c) => Ok(Val {
                ty: Ty::named("char").unwrap_or(Ty::Void),
                repr: Repr::Bytes(vec![*c]),
            }),
            Ast::Str(text) => {
                let mut bytes = text.clone();
                bytes.push(0);
                Ok(Val {
                    ty: Ty::Array {
                        element: Box::new(Ty::named("char").unwrap_or(Ty::Void)),
                        count: Some(bytes.len() as u64),
                    },
                    repr: Repr::Bytes(bytes),
                })
            }
            Ast::Name(n) => self.name(n, a),
            Ast::Dollar(n) => self.dollar(n, a),
            Ast::Member(e, m) => {
                let v = self.eval(e, a)?;
                self.member(v, m, a)
            }
            Ast::Arrow(e, m) => {
                let p = self.eval(e, a)?;
                let v = self.deref(p, a)?;
                self.member(v, m, a)
            }
            Ast::Index(e, i) if matches!(&**e, Ast::Dollar(n) if is_vgpr(n)) => {
                // `$v0[3]`: lane 3's element of v0
                let Ast::Dollar(n) = &**e else { unreachable!() };
                let lane = self.eval(i, a)?;
                let lane = match self.num(&lane, a)? {
                    Num::Int(l) if (0..64).contains(&l) => l as u32,
                    _ => return Err("no such vector element".into()),
                };
                let saved = std::mem::replace(&mut self.lane, lane);
                let v = self.dollar(n, a);
                self.lane = saved;
                v
            }
            Ast::Index(e, i) => {
                let base = self.eval(e, a)?;
                let i = self.eval(i, a)?;
                let i = match self.num(&i, a)? {
                    Num::Int(i) => i,
                    Num::Float(_) => {
                        return Err(
                            "Argument to arithmetic operation not a number or boolean.".into()
                        );
                    }
                };
                self.index(base, i, a)
            }
            Ast::Call(f, args) => self.call(f, args, a),
            Ast::Unary(op, e) => self.unary(*op, e, a),
            Ast::Binary(op, l, r) => self.binary(*op, l, r, a),
            Ast::Cond(c, x, y) => {
                let c = self.eval(c, a)?;
                if truthy(self.num(&c, a)?) {
                    self.eval(x, a)
                } else {
                    self.eval(y, a)
                }
            }
            Ast::Cast(t, e) => {
                let ty = self.type_written(t, a)?;
                let v = self.eval(e, a)?;
                self.convert(v, &ty, a)
            }
            Ast::SizeofExpr(e) => {
                let v = self.eval(e, a)?;
                Ok(self.ulong(v.ty.size()))
            }
            Ast::SizeofType(t) => {
                let ty = self.type_written(t, a)?;
                Ok(self.ulong(ty.size()))
            }
            Ast::AlignofType(t) => {
                let ty = self.type_written(t, a)?;
                let align = ty.align(Self::program(a));
                Ok(self.ulong(align))
            }
            Ast::Assign(l, r) => self.assign(l, r, a),
            Ast::Aspace(space, e) => {
                let v = self.eval(e, a)?;
                let addr = match self.num(&v, a)? {
                    Num::Int(i) => i as u64,
                    Num::Float(_) => return Err("Invalid address space address.".into()),
                };
                Ok(Val {
                    ty: Ty::Pointer {
                        target: Target::Void,
                        size: 8,
                        space: *space,
                        name: None,
                    },
                    repr: Repr::Bytes(addr.to_le_bytes().to_vec()),
                })
            }
        }
    }

    fn ulong(&self, v: u64) -> Val {
        Val {
            ty: int_ty(8, false),
            repr: Repr::Bytes(v.to_le_bytes().to_vec()),
        }
    }

    /// The type a cast, `sizeof` or `alignof` names: `decltype(e)` is `e`'s type.
    fn type_written(&mut self, t: &TypeName, a: &mut Active) -> Result<Ty, String> {
        let Some(e) = &t.decltype else {
            return self.type_named(t);
        };
        let mut ty = self.eval(e, a)?.ty;
        for _ in 0..t.pointers {
            ty = Ty::Pointer {
                target: Target::Ty(Box::new(ty)),
                size: 8,
                space: AddressSpace::Generic,
                name: None,
            };
        }
        Ok(ty)
    }

    fn type_named(&self, t: &TypeName) -> Result<Ty, String> {
        let base = t
            .base
            .trim_start_matches("struct ")
            .trim_start_matches("union ");
        let mut ty =
            Ty::named(base).ok_or_else(|| format!("No symbol \"{base}\" in current context."))?;
        for _ in 0..t.pointers {
            ty = Ty::Pointer {
                target: Target::Ty(Box::new(ty)),
                size: 8,
                space: AddressSpace::Generic,
                name: None,
            };
        }
        Ok(ty)
    }

    fn program<'a, 'd>(a: &mut Active<'_, 'a, 'd>) -> &'a Program<'d> {
        a.stepper.debugger().image().program()
    }

    /// A variable (local first, then global) or one of HIP's built-in variables.
    fn name(&mut self, n: &str, a: &mut Active) -> Result<Val, String> {
        let local = a.stepper.debugger().variable(n);
        let var = match local {
            Ok(v) => v,
            Err(_) => match self.builtin(n, a)? {
                Some(v) => return Ok(v),
                None => {
                    let globals = Self::program(a).globals().map_err(|e| e.to_string())?;
                    match globals
                        .into_iter()
                        .find(|g| g.name == n || g.name.rsplit("::").next() == Some(n))
                    {
                        Some(g) => g,
                        None => {
                            return self
                                .scoped_static(n, a)?
                                .ok_or_else(|| format!("No symbol \"{n}\" in current context."));
                        }
                    }
                }
            },
        };
        self.variable(&var, a)
    }

    /// The value of the static data member whose DIE is at `die`: its definition's, or
    /// `<optimized out>` when the program gives it none (as gdb shows a static member
    /// that was declared but never defined).
    pub(crate) fn static_value(&mut self, die: u64, a: &mut Active) -> Result<Val, String> {
        let var = Self::program(a)
            .static_member(die)
            .map_err(|e| e.to_string())?;
        self.variable(&var, a)
    }

    /// `S::m` for a static member `m` of a struct `S` that has no definition among the
    /// globals (a `constexpr` member's constant, or one never defined).
    fn scoped_static(&mut self, n: &str, a: &mut Active) -> Result<Option<Val>, String> {
        let Some((scope, member)) = n.rsplit_once("::") else {
            return Ok(None);
        };
        let program = Self::program(a);
        let Some(die) = program.type_named(scope).map_err(|e| e.to_string())? else {
            return Ok(None);
        };
        let Ty::Struct { statics, .. } = Ty::of_die(program, die)? else {
            return Ok(None);
        };
        match statics.iter().find(|s| s.name == member) {
            Some(s) => self.static_value(s.die, a).map(Some),
            None => Ok(None),
        }
    }

    fn variable(&mut self, var: &Variable, a: &mut Active) -> Result<Val, String> {
        let ty = match var.type_die {
            Some(d) => Ty::of_die(Self::program(a), d)?,
            None => return Err(format!("variable `{}` has no type", var.name)),
        };
        if var.location.is_none()
            && let Some(c) = &var.const_value
        {
            return Ok(Val {
                ty,
                repr: Repr::Bytes(c.clone()),
            });
        }
        if matches!(var.location, Some(LocationValue::NotAtPc) | None) {
            return Ok(Val {
                ty,
                repr: Repr::OptimizedOut,
            });
        }
        match a.stepper.debugger().location(var, self.lane) {
            Ok(loc) => Ok(Val {
                ty,
                repr: Repr::Loc(loc),
            }),
            Err(amdgpu_lanes::Error::NotAtPc { .. } | amdgpu_lanes::Error::NoLocation(_)) => {
                Ok(Val {
                    ty,
                    repr: Repr::OptimizedOut,
                })
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// HIP's `threadIdx`, `blockIdx`, `blockDim`, `gridDim` and `warpSize`, from the
    /// dispatch (their DWARF describes no storage).
    fn builtin(&mut self, n: &str, a: &mut Active) -> Result<Option<Val>, String> {
        let (group, wave) = a.stepper.focus();
        let p = self.place(a, group, wave);
        let v: [u32; 3] = match n {
            "threadIdx" => p.work_item(self.lane).ok_or("the lane has no work-item")?,
            "blockIdx" => p.group,
            "blockDim" => p.group_size,
            "gridDim" => p.groups,
            "warpSize" => {
                return Ok(Some(Val {
                    ty: int_ty(4, false),
                    repr: Repr::Bytes(p.wave_size.to_le_bytes().to_vec()),
                }));
            }
            _ => return Ok(None),
        };
        let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        Ok(Some(Val {
            ty: Ty::Dim3,
            repr: Repr::Bytes(bytes),
        }))
    }

    /// OpenCL's work-item functions.
    /// gdb's `$_streq(A, B)` (1 when the strings are equal) and `$_strlen(S)`.
    fn convenience_function(
        &mut self,
        f: &str,
        args: &[Ast],
        a: &mut Active,
    ) -> Result<Val, String> {
        let mut strings = Vec::new();
        for arg in args {
            let v = self.eval(arg, a)?;
            let bytes = match &v.ty {
                Ty::Array { element, .. } if element.size() == 1 => self.bytes(&v, a)?,
                _ => {
                    return Err(format!(
                        "You must provide an argument of type string to {f}."
                    ));
                }
            };
            let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
            strings.push(bytes[..end].to_vec());
        }
        let n = match (f, strings.as_slice()) {
            ("$_streq", [x, y]) => u64::from(x == y),
            ("$_strlen", [x]) => x.len() as u64,
            ("$_streq" | "$_strlen", _) => {
                return Err(format!(
                    "You must provide the right number of arguments to {f}."
                ));
            }
            _ => {
                return Err(format!(
                    "You can't do that without a process to debug ({f} is not a function amdsim knows)."
                ));
            }
        };
        Ok(Val {
            ty: int_ty(4, true),
            repr: Repr::Bytes((n as u32).to_le_bytes().to_vec()),
        })
    }

    fn call(&mut self, f: &str, args: &[Ast], a: &mut Active) -> Result<Val, String> {
        if f.starts_with('$') {
            return self.convenience_function(f, args, a);
        }
        let [arg] = args else {
            return Err(format!(
                "Cannot call function \"{f}\": the debugger evaluates only OpenCL's work-item functions"
            ));
        };
        let d = self.eval(arg, a)?;
        let d = match self.num(&d, a)? {
            Num::Int(d) if (0..3).contains(&d) => d as usize,
            _ => return Ok(self.ulong(0)),
        };
        let (group, wave) = a.stepper.focus();
        let p = self.place(a, group, wave);
        let item = p.work_item(self.lane).ok_or("the lane has no work-item")?;
        let v = match f {
            "get_local_id" => item[d],
            "get_group_id" => p.group[d],
            "get_local_size" | "get_enqueued_local_size" => p.group_size[d],
            "get_num_groups" => p.groups[d],
            "get_global_id" => p.group[d] * p.group_size[d] + item[d],
            "get_global_size" => p.groups[d] * p.group_size[d],
            _ => {
                return Err(format!(
                    "Cannot call function \"{f}\": the debugger evaluates only OpenCL's work-item functions"
                ));
            }
        };
        Ok(self.ulong(u64::from(v)))
    }

    /// Registers and convenience variables.
    fn dollar(&mut self, n: &str, a: &mut Active) -> Result<Val, String> {
        // the value history: `$` (last), `$$` (the one before), `$N`
        let history = match n {
            "" => self.values.len().checked_sub(1),
            n if n.chars().all(|c| c.is_ascii_digit()) => {
                n.parse::<usize>().ok().and_then(|k| k.checked_sub(1))
            }
            _ => None,
        };
        if n.is_empty() || n.chars().all(|c| c.is_ascii_digit()) {
            let text = history
                .and_then(|k| self.values.get(k))
                .ok_or_else(|| format!("History has not yet reached ${n}."))?;
            // recorded as text: numbers come back as numbers
            return match text.parse::<i64>() {
                Ok(v) => Ok(Val {
                    ty: int_ty(8, true),
                    repr: Repr::Bytes(v.to_le_bytes().to_vec()),
                }),
                Err(_) => Err(format!(
                    "${n} = {text} is not a number the expression can use"
                )),
            };
        }
        let (raw, size, text) = self.convenience(n, a)?;
        Ok(match raw {
            Some(v) if n == "pc" => Val {
                ty: Ty::Pointer {
                    target: Target::Ty(Box::new(Ty::Function)),
                    size: 8,
                    space: AddressSpace::Global,
                    name: Some("void (*)()".into()),
                },
                repr: Repr::Bytes(v.to_le_bytes().to_vec()),
            },
            Some(v) => {
                let size = size.clamp(1, 8) as u8;
                Val {
                    ty: int_ty(size.max(4), !matches!(n, "exec" | "vcc")),
                    repr: Repr::Bytes(v.to_le_bytes()[..usize::from(size.max(4))].to_vec()),
                }
            }
            None if text.starts_with('"') => {
                let s = text.trim_matches('"').as_bytes().to_vec();
                let count = s.len() as u64 + 1;
                let mut bytes = s;
                bytes.push(0);
                Val {
                    ty: Ty::Array {
                        element: Box::new(Ty::named("char").unwrap_or(Ty::Void)),
                        count: Some(count),
                    },
                    repr: Repr::Bytes(bytes),
                }
            }
            None => Val {
                ty: Ty::Void,
                repr: Repr::Bytes(Vec::new()),
            },
        })
    }

    /// The bytes of a value.
    pub(crate) fn bytes(&mut self, v: &Val, a: &mut Active) -> Result<Vec<u8>, String> {
        let size = v.ty.size();
        if size > MAX_READ {
            return Err(format!(
                "value requires {size} bytes, which is more than max-value-size"
            ));
        }
        match &v.repr {
            Repr::Bytes(b) => Ok(b.clone()),
            Repr::OptimizedOut => Err("value has been optimized out".into()),
            Repr::Loc(loc) => a
                .stepper
                .debugger()
                .read_location(loc, self.lane, size as usize)
                .map_err(|e| match e {
                    amdgpu_lanes::Error::Dwarf { error, .. } => {
                        format!("Cannot access memory: {error}")
                    }
                    e => e.to_string(),
                }),
        }
    }

    /// A scalar value.
    pub(crate) fn num(&mut self, v: &Val, a: &mut Active) -> Result<Num, String> {
        if !v.ty.scalar() {
            return Err("Argument to arithmetic operation not a number or boolean.".into());
        }
        let b = self.bytes(v, a)?;
        decode(&v.ty, &b)
            .ok_or_else(|| "Argument to arithmetic operation not a number or boolean.".into())
    }

    /// A part of `v` at byte `offset`, of type `ty`.
    fn part(&mut self, v: Val, offset: u64, ty: Ty, a: &mut Active) -> Result<Val, String> {
        match v.repr {
            Repr::OptimizedOut => Ok(Val {
                ty,
                repr: Repr::OptimizedOut,
            }),
            Repr::Loc(Loc::One(s)) if !matches!(s.storage, Storage::Implicit(_)) => {
                let s = s
                    .offset_by(i128::from(offset) * 8, "a member or an element")
                    .map_err(|e| e.to_string())?;
                Ok(Val {
                    ty,
                    repr: Repr::Loc(Loc::One(s)),
                })
            }
            _ => {
                let whole = self.bytes(&v, a)?;
                let end = offset + ty.size();
                let b = whole
                    .get(offset as usize..end as usize)
                    .ok_or("the part lies outside the object")?
                    .to_vec();
                Ok(Val {
                    ty,
                    repr: Repr::Bytes(b),
                })
            }
        }
    }

    fn member(&mut self, v: Val, m: &str, a: &mut Active) -> Result<Val, String> {
        match &v.ty {
            Ty::Dim3 => {
                let k = match m {
                    "x" => 0,
                    "y" => 1,
                    "z" => 2,
                    _ => return Err(format!("There is no member named {m}.")),
                };
                self.part(v, 4 * k, int_ty(4, false), a)
            }
            Ty::Struct {
                fields, statics, ..
            } => {
                let Some(f) = fields.iter().find(|f| f.name == m).cloned() else {
                    // `obj.count`: a static member, which is no part of `obj`.
                    return match statics.iter().find(|s| s.name == m) {
                        Some(s) => self.static_value(s.die, a),
                        None => Err(format!("There is no member named {m}.")),
                    };
                };
                let ty = Ty::target(Self::program(a), &f.ty)?;
                match f.bits {
                    // A value (not assignable: a write would need the neighbours' bits).
                    Some(bits) => {
                        let whole = self.bytes(&v, a)?;
                        let signed = matches!(ty, Ty::Int { signed: true, .. });
                        let bytes = bits.extract(&whole, signed, ty.size())?;
                        Ok(Val {
                            ty,
                            repr: Repr::Bytes(bytes),
                        })
                    }
                    None => self.part(v, f.offset, ty, a),
                }
            }
            _ => Err(
                "Attempt to extract a component of a value that is not a structure.".to_string(),
            ),
        }
    }

    fn index(&mut self, base: Val, i: i128, a: &mut Active) -> Result<Val, String> {
        match &base.ty {
            Ty::Array { element, count } => {
                if i < 0 || count.is_some_and(|c| i as u128 >= u128::from(c)) {
                    // gdb reads past the end of arrays in memory; refuse instead of guessing
                    return Err(format!(
                        "no such vector element (index {i}, array of {})",
                        count.unwrap_or(0)
                    ));
                }
                let ty = (**element).clone();
                let off = (i as u64).checked_mul(ty.size()).ok_or("index too large")?;
                self.part(base, off, ty, a)
            }
            Ty::Pointer { .. } => {
                let p = self.pointer_add(base, i, a)?;
                self.deref(p, a)
            }
            _ => {
                Err("cannot subscript something of a type that is not an array or a pointer".into())
            }
        }
    }

    fn pointer_add(&mut self, p: Val, i: i128, a: &mut Active) -> Result<Val, String> {
        let Ty::Pointer { target, .. } = &p.ty else {
            unreachable!()
        };
        let size = Ty::target(Self::program(a), target)?.size().max(1);
        let addr = match self.num(&p, a)? {
            Num::Int(v) => v,
            Num::Float(_) => 0,
        };
        let new = addr.wrapping_add(i.wrapping_mul(i128::from(size)));
        let bytes = encode(&p.ty, Num::Int(new)).unwrap_or_default();
        Ok(Val {
            ty: p.ty,
            repr: Repr::Bytes(bytes),
        })
    }

    /// The object a reference refers to (in memory of the reference's address space);
    /// any other value as it is.
    pub(crate) fn referent(&mut self, v: Val, a: &mut Active) -> Result<Val, String> {
        let Ty::Reference { target, space, .. } = &v.ty else {
            return Ok(v);
        };
        let ty = Ty::target(Self::program(a), target)?;
        let repr = match v.repr {
            Repr::OptimizedOut => Repr::OptimizedOut,
            _ => {
                let b = self.bytes(&v, a)?;
                let addr = match decode(&v.ty, &b) {
                    Some(Num::Int(i)) => i as u64,
                    _ => return Err("the reference's address cannot be read".into()),
                };
                Repr::Loc(Loc::One(Single::memory(*space, addr)))
            }
        };
        Ok(Val { ty, repr })
    }

    fn deref(&mut self, p: Val, a: &mut Active) -> Result<Val, String> {
        let Ty::Pointer { target, space, .. } = &p.ty else {
            return Err("Attempt to take contents of a non-pointer value.".into());
        };
        let ty = Ty::target(Self::program(a), target)?;
        if matches!(ty, Ty::Void) {
            return Err("Attempt to take contents of a non-pointer value.".into());
        }
        let addr = match self.num(&p, a)? {
            Num::Int(v) => v as u64,
            Num::Float(_) => 0,
        };
        Ok(Val {
            ty,
            repr: Repr::Loc(Loc::One(Single::memory(*space, addr))),
        })
    }

    fn unary(&mut self, op: UnOp, e: &Ast, a: &mut Active) -> Result<Val, String> {
        let v = self.eval_ref(e, a)?;
        // `&r`: a pointer to the referent, of the type the reference names (`const
        // Tally *` for a `const Tally &`, as gdb types it), holding the reference's
        // address.
        if let (UnOp::AddrOf, Ty::Reference { target, space, .. }) = (op, &v.ty)
            && !matches!(v.repr, Repr::OptimizedOut)
        {
            let b = self.bytes(&v, a)?;
            let Some(Num::Int(addr)) = decode(&v.ty, &b) else {
                return Err("the reference's address cannot be read".into());
            };
            return Ok(Val {
                ty: Ty::Pointer {
                    target: target.clone(),
                    size: 8,
                    space: *space,
                    name: None,
                },
                repr: Repr::Bytes((addr as u64).to_le_bytes().to_vec()),
            });
        }
        let v = self.referent(v, a)?;
        match op {
            UnOp::Deref => self.deref(v, a),
            UnOp::AddrOf => {
                let Repr::Loc(Loc::One(Single {
                    storage: Storage::Memory(space),
                    offset,
                })) = &v.repr
                else {
                    return Err("Attempt to take address of value not located in memory.".into());
                };
                let addr = (*offset / 8) as u64;
                let ty = Ty::Pointer {
                    target: Target::Ty(Box::new(v.ty.clone())),
                    size: 8,
                    space: *space,
                    name: None,
                };
                Ok(Val {
                    ty,
                    repr: Repr::Bytes(addr.to_le_bytes().to_vec()),
                })
            }
            UnOp::Plus => Ok(v),
            UnOp::Not => {
                let n = self.num(&v, a)?;
                Ok(self.int(i128::from(!truthy(n))))
            }
            UnOp::Neg | UnOp::BitNot => {
                let n = self.num(&v, a)?;
                let ty = common(&v.ty, &v.ty);
                let r = match (op, n) {
                    (UnOp::Neg, Num::Int(i)) => Num::Int(i.wrapping_neg()),
                    (UnOp::Neg, Num::Float(f)) => Num::Float(-f),
                    (_, Num::Int(i)) => Num::Int(!i),
                    (_, Num::Float(_)) => {
                        return Err(
                            "Argument to complement operation not an integer, boolean.".into()
                        );
                    }
                };
                Ok(Val {
                    repr: Repr::Bytes(encode(&ty, r).unwrap_or_default()),
                    ty,
                })
            }
        }
    }

    fn int(&self, v: i128) -> Val {
        Val {
            ty: int_ty(4, true),
            repr: Repr::Bytes((v as i32).to_le_bytes().to_vec()),
        }
    }

    fn binary(&mut self, op: BinOp, l: &Ast, r: &Ast, a: &mut Active) -> Result<Val, String> {
        let x = self.eval(l, a)?;
        if matches!(op, BinOp::And | BinOp::Or) {
            let lx = truthy(self.num(&x, a)?);
            if (op == BinOp::And && !lx) || (op == BinOp::Or && lx) {
                return Ok(self.int(i128::from(lx)));
            }
            let y = self.eval(r, a)?;
            let ly = truthy(self.num(&y, a)?);
            return Ok(self.int(i128::from(ly)));
        }
        let y = self.eval(r, a)?;
        if op == BinOp::At {
            let n = match self.num(&y, a)? {
                Num::Int(n) if n > 0 => n as u64,
                _ => return Err("Only values in memory can be extended with '@'.".into()),
            };
            let Repr::Loc(_) = &x.repr else {
                return Err("Only values in memory can be extended with '@'.".into());
            };
            let ty = Ty::Array {
                element: Box::new(x.ty.clone()),
                count: Some(n),
            };
            return Ok(Val { ty, repr: x.repr });
        }
        // pointer arithmetic
        match (&x.ty, &y.ty, op) {
            (Ty::Pointer { .. }, Ty::Int { .. }, BinOp::Add | BinOp::Sub) => {
                let Num::Int(i) = self.num(&y, a)? else {
                    unreachable!()
                };
                return self.pointer_add(x, if op == BinOp::Sub { -i } else { i }, a);
            }
            (Ty::Int { .. }, Ty::Pointer { .. }, BinOp::Add) => {
                let Num::Int(i) = self.num(&x, a)? else {
                    unreachable!()
                };
                return self.pointer_add(y, i, a);
            }
            _ => {}
        }
        let (nx, ny) = (self.num(&x, a)?, self.num(&y, a)?);
        let ty = common(&x.ty, &y.ty);
        let float = matches!(ty, Ty::Float { .. });
        let f = |n: Num| match n {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        };
        let i = |n: Num| match n {
            Num::Int(i) => i,
            Num::Float(f) => f as i128,
        };
        use BinOp::*;
        let cmp = |o: std::cmp::Ordering| -> bool {
            match op {
                Lt => o.is_lt(),
                Le => o.is_le(),
                Gt => o.is_gt(),
                Ge => o.is_ge(),
                Eq => o.is_eq(),
                _ => o.is_ne(),
            }
        };
        if matches!(op, Lt | Le | Gt | Ge | Eq | Ne) {
            let o = if float {
                f(nx).partial_cmp(&f(ny)).ok_or("NaN in a comparison")?
            } else {
                // compare as the common type
                let cx = decode(&ty, &encode(&ty, nx).unwrap_or_default()).map_or(0, i);
                let cy = decode(&ty, &encode(&ty, ny).unwrap_or_default()).map_or(0, i);
                cx.cmp(&cy)
            };
            return Ok(self.int(i128::from(cmp(o))));
        }
        let r = if float {
            Num::Float(match op {
                Add => f(nx) + f(ny),
                Sub => f(nx) - f(ny),
                Mul => f(nx) * f(ny),
                Div => f(nx) / f(ny),
                _ => return Err("Integer only operation on a floating-point value.".into()),
            })
        } else {
            let (p, q) = (i(nx), i(ny));
            Num::Int(match op {
                Add => p.wrapping_add(q),
                Sub => p.wrapping_sub(q),
                Mul => p.wrapping_mul(q),
                Div | Rem if q == 0 => return Err("Division by zero".into()),
                Div => p.wrapping_div(q),
                Rem => p.wrapping_rem(q),
                Shl => p.wrapping_shl(q as u32),
                Shr => p.wrapping_shr(q as u32),
                BitAnd => p & q,
                BitOr => p | q,
                BitXor => p ^ q,
                _ => unreachable!(),
            })
        };
        Ok(Val {
            repr: Repr::Bytes(encode(&ty, r).unwrap_or_default()),
            ty,
        })
    }

    fn convert(&mut self, v: Val, ty: &Ty, a: &mut Active) -> Result<Val, String> {
        if !ty.scalar() {
            return Err("Invalid cast.".into());
        }
        let n = self.num(&v, a)?;
        let bytes = encode(ty, n).ok_or("Invalid cast.")?;
        // A pointer cast keeps the address space of a pointer into a named one
        // (`(int *) private_lane#0x44` points into the lane's private memory).
        let ty = match (ty, &v.ty) {
            (
                Ty::Pointer {
                    target,
                    size,
                    space: AddressSpace::Generic,
                    name,
                },
                Ty::Pointer { space, .. },
            ) if *space != AddressSpace::Generic => Ty::Pointer {
                target: target.clone(),
                size: *size,
                space: *space,
                name: name.clone(),
            },
            _ => ty.clone(),
        };
        Ok(Val {
            ty,
            repr: Repr::Bytes(bytes),
        })
    }

    /// `lhs = rhs`: writes the lane's element (register) or the memory.
    fn assign(&mut self, l: &Ast, r: &Ast, a: &mut Active) -> Result<Val, String> {
        let lhs = self.eval(l, a)?;
        let rhs = self.eval(r, a)?;
        let loc = match &lhs.repr {
            Repr::Loc(loc) => loc,
            Repr::OptimizedOut => return Err("value has been optimized out".into()),
            Repr::Bytes(_) => return Err("Left operand of assignment is not an lvalue.".into()),
        };
        let bytes = if lhs.ty.scalar() {
            let n = self.num(&rhs, a)?;
            encode(&lhs.ty, n).ok_or("Invalid cast.")?
        } else {
            let b = self.bytes(&rhs, a)?;
            if b.len() as u64 != lhs.ty.size() {
                return Err("Invalid cast.".into());
            }
            b
        };
        a.stepper
            .debugger()
            .write_location(loc, self.lane, &bytes)
            .map_err(|e| e.to_string())?;
        Ok(Val {
            ty: lhs.ty,
            repr: Repr::Bytes(bytes),
        })
    }
}
