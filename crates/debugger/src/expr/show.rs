//! Values written as gdb writes them: `{a = 1, b = {1, 2}}`, `(int *) 0x1000`,
//! `97 'a'`, `<repeats 64 times>`, `<optimized out>`.

use super::eval::{Num, Repr, Val, decode};
use super::types::Ty;
use crate::frontend::{Active, Frontend};
use amdgpu_dwarf::AddressSpace;

/// The most elements of an array shown (gdb's `print elements`).
const MAX_ELEMENTS: u64 = 200;
/// Identical neighbours from which gdb writes `<repeats N times>`.
const REPEATS: usize = 10;

fn char_text(c: u8) -> String {
    match c {
        0 => "\\000".into(),
        b'\n' => "\\n".into(),
        b'\t' => "\\t".into(),
        b'\'' => "\\'".into(),
        b'\\' => "\\\\".into(),
        32..=126 => (c as char).to_string(),
        c => format!("\\{c:03o}"),
    }
}

/// A scalar in a format letter (`x`, `d`, `u`, `t`, `o`, `c`).
fn formatted(n: Num, size: u64, fmt: char) -> String {
    let bits = (8 * size.min(16)) as u32;
    let raw = match n {
        Num::Int(i) => i as u128,
        Num::Float(f) => f as i128 as u128,
    };
    let v = if bits >= 128 {
        raw
    } else {
        raw & ((1u128 << bits) - 1)
    };
    match fmt {
        'x' => format!("{v:#x}"),
        'o' => format!("{v:#o}"),
        't' => format!("{v:b}"),
        'u' => v.to_string(),
        'c' => format!("{} '{}'", v as u8 as i8, char_text(v as u8)),
        _ => {
            let s = if bits >= 128 {
                v as i128
            } else {
                ((v << (128 - bits)) as i128) >> (128 - bits)
            };
            s.to_string()
        }
    }
}

/// ` <name>` or ` <name+off>` when `addr` lies in one of the code object's data objects
/// (gdb names the symbol a pointer points into: `(int *) 0x500018db8 <someGlobal>`).
fn data_symbol(addr: u64, a: &mut Active) -> String {
    let bias = a.stepper.debugger().load_bias();
    let code = a.stepper.debugger().image().code();
    let link = addr.wrapping_sub(bias);
    code.symbols()
        .iter()
        .find(|s| {
            s.kind == amdgpu_codeobj::SymbolKind::Object && s.section_index != 0 && s.contains(link)
        })
        .map(|s| {
            let name = amdgpu_lanes::service::demangle(s.name);
            match link - s.address {
                0 => format!(" <{name}>"),
                off => format!(" <{name}+{off}>"),
            }
        })
        .unwrap_or_default()
}

/// ` <function>` or ` <function+off>` for a code address (a link-time one, as `$pc`
/// holds), as gdb names the function a code pointer points into.
fn code_symbol(addr: u64, a: &mut Active) -> String {
    let service = a.stepper.service();
    let src = service.source(addr, amdgpu_lanes::service::PcKind::Current);
    let start = service.function_at(addr).map_or(addr, |f| f.start);
    src.function
        .as_deref()
        .map(|f| match addr - start {
            0 => format!(" <{}>", crate::present::frame_function(f)),
            off => format!(" <{}+{off}>", crate::present::frame_function(f)),
        })
        .unwrap_or_default()
}

impl Frontend {
    /// `v` as gdb prints it; `top`: a pointer shows its type.
    pub(crate) fn show(
        &mut self,
        v: &Val,
        fmt: Option<char>,
        top: bool,
        a: &mut Active,
    ) -> Result<String, String> {
        if let Repr::OptimizedOut = v.repr {
            return Ok("<optimized out>".into());
        }
        match &v.ty {
            Ty::Array { element, count } => {
                let n = count.unwrap_or(0).min(MAX_ELEMENTS);
                let bytes = {
                    let shown = Val {
                        ty: Ty::Array {
                            element: element.clone(),
                            count: Some(n),
                        },
                        repr: v.repr.clone(),
                    };
                    self.bytes(&shown, a)?
                };
                let size = element.size() as usize;
                if matches!(
                    **element,
                    Ty::Int {
                        char: true,
                        size: 1,
                        ..
                    }
                ) && fmt.is_none()
                {
                    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
                    let text: String = bytes[..end]
                        .iter()
                        .map(|c| match c {
                            b'"' => "\\\"".to_string(),
                            c => char_text(*c),
                        })
                        .collect();
                    return Ok(format!("\"{text}\""));
                }
                let mut items = Vec::new();
                for k in 0..n as usize {
                    let part = Val {
                        ty: (**element).clone(),
                        repr: Repr::Bytes(bytes[k * size..(k + 1) * size].to_vec()),
                    };
                    items.push(self.show(&part, fmt, false, a)?);
                }
                let mut out: Vec<String> = Vec::new();
                let mut i = 0;
                while i < items.len() {
                    let mut j = i;
                    while j + 1 < items.len() && items[j + 1] == items[i] {
                        j += 1;
                    }
                    if j - i + 1 >= REPEATS {
                        out.push(format!("{} <repeats {} times>", items[i], j - i + 1));
                    } else {
                        out.extend(items[i..=j].iter().cloned());
                    }
                    i = j + 1;
                }
                if count.unwrap_or(0) > MAX_ELEMENTS {
                    out.push("...".into());
                }
                Ok(format!("{{{}}}", out.join(", ")))
            }
            Ty::Struct {
                fields, statics, ..
            } if fields.is_empty() && statics.is_empty() => Ok("{<No data fields>}".into()),
            Ty::Struct { .. } => self.show_struct(v, fmt, a),
            Ty::Reference { .. } => self.show_reference(v, fmt, top, a),
            Ty::Dim3 => {
                let b = self.bytes(v, a)?;
                let w = |k: usize| {
                    u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap_or_default())
                };
                let f = |k: usize| match fmt {
                    Some(f) => formatted(Num::Int(i128::from(w(k))), 4, f),
                    None => w(k).to_string(),
                };
                Ok(format!("{{x = {}, y = {}, z = {}}}", f(0), f(1), f(2)))
            }
            Ty::Void => Ok("void".into()),
            Ty::Function => Ok("{void (void)}".into()),
            ty => {
                let b = self.bytes(v, a)?;
                let n = decode(ty, &b).ok_or("the value cannot be read as its type")?;
                Ok(self.scalar(ty, n, fmt, top, a))
            }
        }
    }

    /// A struct's members in declaration order, static ones among them (`{x = 1, static
    /// made = 56}`, as gdb prints them).
    fn show_struct(
        &mut self,
        v: &Val,
        fmt: Option<char>,
        a: &mut Active,
    ) -> Result<String, String> {
        let Ty::Struct {
            fields, statics, ..
        } = &v.ty
        else {
            return Err("not a struct".into());
        };
        let bytes = self.bytes(v, a)?;
        let mut parts = Vec::new();
        for k in 0..=fields.len() {
            for m in statics.iter().filter(|m| m.position == k) {
                let text = self.show_static(m.die, fmt, a);
                parts.push(format!("static {} = {text}", m.name));
            }
            let Some(f) = fields.get(k) else { break };
            let ty = Ty::target(a.stepper.debugger().image().program(), &f.ty)?;
            let part = match f.bits {
                Some(bits) => {
                    let signed = matches!(ty, Ty::Int { signed: true, .. });
                    Some(bits.extract(&bytes, signed, ty.size())?)
                }
                None => {
                    let start = f.offset as usize;
                    let end = start + ty.size() as usize;
                    bytes.get(start..end).map(<[u8]>::to_vec)
                }
            };
            let text = match part {
                Some(b) => self.show(
                    &Val {
                        ty,
                        repr: Repr::Bytes(b),
                    },
                    fmt,
                    false,
                    a,
                )?,
                None => "<unavailable>".into(),
            };
            parts.push(format!("{} = {text}", f.name));
        }
        Ok(format!("{{{}}}", parts.join(", ")))
    }

    /// The value of a static member (DIE `die`) inside a struct's braces. A static
    /// member met again while it is being shown (`struct S { static S s; }`) is not
    /// shown again, in gdb's words; one that cannot be read shows why, as gdb's
    /// `<error: ...>`.
    fn show_static(&mut self, die: u64, fmt: Option<char>, a: &mut Active) -> String {
        if self.statics_shown.contains(&die) {
            return "<same as static member of an already seen type>".into();
        }
        self.statics_shown.push(die);
        let text = self
            .static_value(die, a)
            .and_then(|v| self.show(&v, fmt, false, a));
        self.statics_shown.pop();
        text.unwrap_or_else(|e| format!("<error: {e}>"))
    }

    /// A reference as gdb prints it: the referent's address after `@`, then the
    /// referent (`(int &) @0x2000000000000270: 5`; `top`: with the type). The address
    /// is written as a pointer's is, with its address space's prefix where the
    /// reference points into one (`@private_lane#0x10: 5`), but without the symbol a
    /// pointer names (gdb's `print_ref_address` writes the bare address). A referent
    /// that cannot be read shows why after the address, as gdb does.
    fn show_reference(
        &mut self,
        v: &Val,
        fmt: Option<char>,
        top: bool,
        a: &mut Active,
    ) -> Result<String, String> {
        let Ty::Reference { space, .. } = &v.ty else {
            return Err("not a reference".into());
        };
        let b = self.bytes(v, a)?;
        let addr = match decode(&v.ty, &b) {
            Some(Num::Int(i)) => i as u64,
            _ => return Err("the reference's address cannot be read".into()),
        };
        let at = format!("@{}{addr:#x}", super::parse::aspace_prefix(*space));
        let referent = self.referent(v.clone(), a)?;
        let text = self
            .show(&referent, fmt, false, a)
            .unwrap_or_else(|e| format!("<error: {e}>"));
        Ok(if top {
            let name = v.ty.name(a.stepper.debugger().image().program());
            format!("({name}) {at}: {text}")
        } else {
            format!("{at}: {text}")
        })
    }

    fn scalar(&mut self, ty: &Ty, n: Num, fmt: Option<char>, top: bool, a: &mut Active) -> String {
        if let Some(f) = fmt.filter(|f| *f != 'f' || !matches!(ty, Ty::Float { .. })) {
            if !matches!(ty, Ty::Float { .. }) || f != 'd' {
                return formatted(n, ty.size(), f);
            }
        }
        match (ty, n) {
            (Ty::Bool, Num::Int(i)) => (i != 0).to_string(),
            (Ty::Int { char: true, .. }, Num::Int(i)) => format!("{i} '{}'", char_text(i as u8)),
            (Ty::Enum { values, .. }, Num::Int(i)) => values
                .iter()
                .find(|(_, v)| i128::from(*v) == i)
                .map(|(name, _)| name.clone())
                .unwrap_or_else(|| i.to_string()),
            (Ty::Pointer { space, target, .. }, Num::Int(i)) => {
                let mut addr = format!("{}{:#x}", super::parse::aspace_prefix(*space), i as u64);
                if matches!(target, super::types::Target::Ty(t) if matches!(**t, Ty::Function)) {
                    addr += &code_symbol(i as u64, a);
                } else if matches!(space, AddressSpace::Global | AddressSpace::Generic) {
                    addr += &data_symbol(i as u64, a);
                }
                if top {
                    let name = ty.name(a.stepper.debugger().image().program());
                    format!("({name}) {addr}")
                } else {
                    addr
                }
            }
            (Ty::Float { size, .. }, Num::Float(f)) => {
                crate::present::float_text(f, *size as usize)
            }
            (_, Num::Float(f)) => crate::present::float_text(f, 8),
            (_, Num::Int(i)) => i.to_string(),
        }
    }
}
