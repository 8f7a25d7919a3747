//! Text form of expressions: printing in the syntax `llvm-dwarfdump-19` uses, and parsing
//! that syntax (plus this crate's register names and the DWARF 6 operation names) back
//! into operations.
//!
//! Printing matches `llvm-dwarfdump-19` operation by operation, register names included
//! (it names registers after LLVM's 16-bit sub-registers: `SGPR33_LO16`, `VGPR0_LO16`
//! for wave64 VGPRs, `EXEC_LO_LO16` for DWARF register 1). Where `llvm-dwarfdump-19`
//! cannot decode an operation (every `DW_OP_LLVM_user` sub-operation but `nop`,
//! `DW_OP_implicit_pointer`, `DW_OP_const_type`, `DW_OP_deref_type`,
//! `DW_OP_xderef_type`, `DW_OP_reinterpret`), this crate prints the operation in the same
//! style instead of `<decoding error>`.

use crate::op::{DecodeOptions, Decoded, Dialect, Expr, ExtOp, Form, Op};
use std::fmt::Write;

/// The name `llvm-dwarfdump-19` gives an AMDGPU DWARF register, if any.
pub fn llvm_register_name(reg: u64) -> Option<String> {
    Some(match reg {
        1 => "EXEC_LO_LO16".into(),
        16 => "PC_REG".into(),
        17 => "EXEC".into(),
        32..=95 => format!("SGPR{}_LO16", reg - 32),
        1088..=1129 => format!("SGPR{}_LO16", reg - 1024),
        2560..=2815 => format!("VGPR{}_LO16", reg - 2560),
        3072..=3327 => format!("AGPR{}_LO16", reg - 3072),
        _ => return None,
    })
}

/// Resolves a unit-relative base type DIE offset to its name (for DW_OP_regval_type,
/// DW_OP_convert, ... which `llvm-dwarfdump` prints as `(0x0000000d) "uint"`).
pub type TypeNamer<'a> = &'a dyn Fn(u64) -> Option<String>;

/// Prints decoded operations separated by ", ".
pub fn print_ops(ops: &[Decoded], types: Option<TypeNamer<'_>>, opts: &DecodeOptions) -> String {
    let mut s = String::new();
    for (i, d) in ops.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        print_op(&mut s, &d.op, d.form, types, opts);
    }
    s
}

/// Prints an expression's bytes as `llvm-dwarfdump-19` would; a decoding error ends the
/// text with `<decoding error>` and the remaining bytes, as it does.
pub fn print_bytes(bytes: &[u8], types: Option<TypeNamer<'_>>, opts: &DecodeOptions) -> String {
    let (ops, err) = Expr::decode_partial(bytes, opts);
    let mut s = print_ops(&ops, types, opts);
    if let Some(e) = err {
        if !ops.is_empty() {
            s.push_str(", ");
        }
        s.push_str("<decoding error>");
        for b in bytes.get(e.offset..).unwrap_or(&[]) {
            let _ = write!(s, " {b:02x}");
        }
    }
    s
}

fn type_ref(s: &mut String, die: u64, types: Option<TypeNamer<'_>>) {
    if die == 0 {
        let _ = write!(s, " 0x0");
        return;
    }
    let _ = write!(s, " (0x{die:08x})");
    if let Some(name) = types.and_then(|f| f(die)) {
        let _ = write!(s, " \"{name}\"");
    }
}

fn reg_operand(s: &mut String, reg: u64) {
    match llvm_register_name(reg) {
        Some(n) => {
            let _ = write!(s, " {n}");
        }
        None => {
            let _ = write!(s, " 0x{reg:x}");
        }
    }
}

fn print_op(
    s: &mut String,
    op: &Op,
    form: Form,
    types: Option<TypeNamer<'_>>,
    opts: &DecodeOptions,
) {
    use Op::*;
    if form == Form::User {
        s.push_str("DW_OP_LLVM_user ");
    }
    s.push_str(op.name(form));
    match op {
        Addr(a) => {
            let _ = write!(s, " 0x{a:x}");
        }
        ConstU(_, v)
        | Constu(v)
        | PlusUconst(v)
        | Piece(v)
        | Addrx(v)
        | Constx(v)
        | CallRef(v)
        | OffsetUconst(v)
        | ObjectMap(v) => {
            let _ = write!(s, " 0x{v:x}");
        }
        ConstS(_, v) | Consts(v) | Fbreg(v) => {
            let _ = write!(s, " {v:+}");
        }
        Pick(v) | DerefSize(v) | XderefSize(v) => {
            let _ = write!(s, " 0x{v:x}");
        }
        Call2(v) => {
            let _ = write!(s, " 0x{v:x}");
        }
        Call4(v) => {
            let _ = write!(s, " 0x{v:x}");
        }
        Bra { disp, .. } | Skip { disp, .. } => {
            let _ = write!(s, " {disp:+}");
        }
        Reg { reg, short: true } => {
            if let Some(n) = llvm_register_name(*reg) {
                let _ = write!(s, " {n}");
            }
        }
        Reg { reg, short: false } => reg_operand(s, *reg),
        Breg { reg, disp, short } => match llvm_register_name(*reg) {
            Some(n) => {
                let _ = write!(s, " {n}{disp:+}");
            }
            None if *short => {
                let _ = write!(s, " {disp:+}");
            }
            None => {
                let _ = write!(s, " 0x{reg:x} {disp:+}");
            }
        },
        BitPiece { size, offset } => {
            let _ = write!(s, " 0x{size:x} 0x{offset:x}");
        }
        ImplicitValue(b) => {
            let _ = write!(s, " 0x{:x}", b.len());
            for x in b.iter() {
                let _ = write!(s, " 0x{x:02x}");
            }
        }
        EntryValue(b) => {
            s.push('(');
            s.push_str(&print_bytes(b, types, opts));
            s.push(')');
        }
        ConstType { die, bytes } => {
            type_ref(s, *die, types);
            let _ = write!(s, " 0x{:x}", bytes.len());
            for x in bytes.iter() {
                let _ = write!(s, " 0x{x:02x}");
            }
        }
        RegvalType { reg, die } => {
            reg_operand(s, *reg);
            type_ref(s, *die, types);
        }
        DerefType { size, die } | XderefType { size, die } => {
            let _ = write!(s, " 0x{size:x}");
            type_ref(s, *die, types);
        }
        Convert(die) | Reinterpret(die) => type_ref(s, *die, types),
        ImplicitPointer { die, disp } | AspaceImplicitPointer { die, disp } => {
            let _ = write!(s, " 0x{die:x} {disp:+}");
        }
        CallFrameEntryReg(r) => reg_operand(s, *r),
        AspaceBregx { reg, disp } => {
            let _ = write!(s, " 0x{reg:x} {disp:+}");
        }
        Extend { bits, count } | SelectBitPiece { bits, count } => {
            let _ = write!(s, " 0x{bits:x} 0x{count:x}");
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------
// Parsing

/// A parse error: which operation (0-based index) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("operation {index} (`{text}`): {why}")]
pub struct ParseError {
    /// Index of the operation in the text.
    pub index: usize,
    /// The operation's text.
    pub text: String,
    /// What is wrong.
    pub why: String,
}

/// Parses a register name or number: `llvm-dwarfdump` names (`SGPR33_LO16`, `VGPR0_LO16`,
/// `EXEC`, `PC_REG`, `EXEC_LO_LO16`), this crate's names (`SGPR3`, `VGPR0` for the given
/// wave size, `VGPR0_W32`, `PC`, `EXEC`, `EXEC_32`, `PC_32`), or a number.
pub fn parse_register(t: &str, wave_size: u32) -> Option<u64> {
    if let Some(n) = parse_num(t) {
        return u64::try_from(n).ok();
    }
    let u = t.to_ascii_uppercase();
    let u = u
        .strip_suffix("_LO16")
        .map(|x| (x, true))
        .unwrap_or((u.as_str(), false));
    let (name, llvm) = u;
    match name {
        "PC" | "PC_REG" => return Some(16),
        "EXEC" => return Some(17),
        "EXEC_LO" if llvm => return Some(1),
        "EXEC_32" => return Some(1),
        "PC_32" => return Some(0),
        _ => {}
    }
    let (base, wave) = match name.rsplit_once("_W") {
        Some((b, w)) => (b, w.parse::<u32>().ok()?),
        None => (name, if llvm { 64 } else { wave_size }),
    };
    let num = |p: &str| base.strip_prefix(p).and_then(|n| n.parse::<u16>().ok());
    if let Some(n) = num("SGPR") {
        return (n <= 105).then(|| u64::from(crate::target::Register::sgpr(n)));
    }
    if let Some(n) = num("VGPR") {
        return (n <= 255).then(|| u64::from(crate::target::Register::vgpr(n, wave)));
    }
    if let Some(n) = num("AGPR") {
        let w = if wave == 32 { 32 } else { 64 };
        return (n <= 255).then(|| u64::from(crate::target::Register::Agpr { n, wave: w }.dwarf()));
    }
    None
}

fn parse_num(t: &str) -> Option<i128> {
    let t = t.trim();
    let (neg, body) = if let Some(b) = t.strip_prefix('-') {
        (true, b)
    } else {
        (false, t.strip_prefix('+').unwrap_or(t))
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Splits `text` into operations at top-level commas (not inside parentheses).
fn split_ops(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' | ';' | '\n' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// Parses operations from text. `wave_size` resolves bare `VGPRn` names; `opts` gives the
/// dialect the parsed operations are meant for (the form recorded for LLVM operations),
/// and is used to encode DW_OP_entry_value sub-expressions.
pub fn parse_ops(
    text: &str,
    wave_size: u32,
    opts: &DecodeOptions,
) -> Result<Vec<(Op, Form)>, ParseError> {
    split_ops(text)
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            parse_one(t, wave_size, opts).map_err(|why| ParseError {
                index: i,
                text: t.to_string(),
                why,
            })
        })
        .collect()
}

/// Parses and encodes text into expression bytes.
pub fn assemble(text: &str, wave_size: u32, opts: &DecodeOptions) -> Result<Vec<u8>, ParseError> {
    let ops = parse_ops(text, wave_size, opts)?;
    let ops: Vec<Op> = ops.into_iter().map(|(o, _)| o).collect();
    crate::op::encode(&ops, opts).map_err(|e| ParseError {
        index: 0,
        text: text.to_string(),
        why: e.to_string(),
    })
}

fn tokens(t: &str) -> Vec<String> {
    // Split on whitespace, but split "NAME+16" / "NAME-8" register+displacement forms, and
    // drop quoted type names.
    let mut out = Vec::new();
    let mut in_quote = false;
    for w in t.split_whitespace() {
        if in_quote || w.starts_with('"') {
            in_quote = !(w.ends_with('"') && (w.len() > 1 || in_quote));
            continue;
        }
        let w = w.trim_matches(|c| c == '(' || c == ')');
        if w.is_empty() {
            continue;
        }
        if !w.starts_with(['+', '-'])
            && !w.starts_with("0x")
            && let Some((p, _)) = w
                .char_indices()
                .skip(1)
                .find(|(_, c)| *c == '+' || *c == '-')
        {
            out.push(w[..p].to_string());
            out.push(w[p..].to_string());
            continue;
        }
        out.push(w.to_string());
    }
    out
}

/// Parses one operation: `DW_OP_entry_value(...)`, the numbered operations, the
/// standard operations (not allowed after `DW_OP_LLVM_user`), and the extensions.
fn parse_one(t: &str, ws: u32, opts: &DecodeOptions) -> Result<(Op, Form), String> {
    // DW_OP_entry_value(...)
    if let Some(rest) = t.strip_prefix("DW_OP_entry_value") {
        let inner = rest.trim().trim_start_matches('(').trim_end_matches(')');
        let bytes = assemble(inner, ws, opts).map_err(|e| e.to_string())?;
        return Ok((Op::EntryValue(bytes.into()), Form::Standard));
    }
    let toks = tokens(t);
    let Some(first) = toks.first() else {
        return Err("empty".into());
    };
    let (name, args, user) = if first == "DW_OP_LLVM_user" {
        let n = toks.get(1).ok_or("missing sub-operation")?;
        (n.as_str(), &toks[2..], true)
    } else {
        (first.as_str(), &toks[1..], false)
    };
    let a = Args { args, ws };
    if let Some(op) = numbered(name, &a)? {
        return Ok((op, Form::Standard));
    }
    let op = match operand_free(name) {
        Some(op) => op,
        None => match with_operands(name, &a)? {
            Some(op) => op,
            None => return extension(name, &a, user, opts),
        },
    };
    if user {
        return Err(format!("`{name}` is not a DW_OP_LLVM_user sub-operation"));
    }
    Ok((op, Form::Standard))
}

/// The operands of one operation's text, parsed as they are asked for.
struct Args<'t> {
    args: &'t [String],
    /// The wave size, for bare `VGPRn` names.
    ws: u32,
}

impl Args<'_> {
    /// Operand `i` as a number.
    fn num(&self, i: usize) -> Result<i128, String> {
        let a = self
            .args
            .get(i)
            .ok_or_else(|| format!("missing operand {}", i + 1))?;
        parse_num(a).ok_or_else(|| format!("bad number `{a}`"))
    }

    /// Operand `i` as an unsigned number (a negative one as its two's complement).
    fn u(&self, i: usize) -> Result<u64, String> {
        let v = self.num(i)?;
        u64::try_from(v)
            .or_else(|_| i64::try_from(v).map(|x| x as u64))
            .map_err(|_| "out of range".to_string())
    }

    /// Operand `i` as a signed number (a large unsigned one as its two's complement).
    fn s(&self, i: usize) -> Result<i64, String> {
        let v = self.num(i)?;
        i64::try_from(v)
            .or_else(|_| u64::try_from(v).map(|x| x as i64))
            .map_err(|_| "out of range".to_string())
    }

    /// Operand `i` as a register name or number.
    fn reg(&self, i: usize) -> Result<u64, String> {
        let a = self.args.get(i).ok_or("missing register")?;
        parse_register(a, self.ws).ok_or_else(|| format!("unknown register `{a}`"))
    }

    /// Operand `i` as a byte.
    fn byte(&self, i: usize) -> Result<u8, String> {
        small(self.u(i)?)
    }

    /// The bytes of a block: its length in operand `len`, the bytes following it.
    fn block(&self, len: usize) -> Result<Box<[u8]>, String> {
        let n = usize::try_from(self.u(len)?).map_err(|_| "length")?;
        let mut b = Vec::with_capacity(n.min(4096));
        for i in 0..n {
            b.push(self.byte(len + 1 + i)?);
        }
        Ok(b.into())
    }

    /// The bra/skip displacement in operand 0.
    fn disp(&self) -> Result<i16, String> {
        Ok(i16::try_from(self.s(0)?).map_err(|_| "displacement")?)
    }
}

/// `v` as a one-byte operand.
fn small(v: u64) -> Result<u8, String> {
    u8::try_from(v).map_err(|_| "operand does not fit one byte".to_string())
}

/// The operations with the number in their name: `DW_OP_lit<n>`, `DW_OP_reg<n>` and
/// `DW_OP_breg<n>`; `None` for another name.
fn numbered(name: &str, a: &Args) -> Result<Option<Op>, String> {
    let number = |prefix: &str| {
        name.strip_prefix(prefix)
            .and_then(|n| n.parse::<u64>().ok())
    };
    if let Some(n) = name
        .strip_prefix("DW_OP_lit")
        .and_then(|n| n.parse::<u8>().ok())
    {
        return if n < 32 {
            Ok(Some(Op::Lit(n)))
        } else {
            Err("literal out of range".into())
        };
    }
    if let Some(n) = number("DW_OP_reg") {
        return if n < 32 {
            Ok(Some(Op::Reg {
                reg: n,
                short: true,
            }))
        } else {
            Err("DW_OP_reg<n> > 31".into())
        };
    }
    if let Some(n) = number("DW_OP_breg") {
        if n >= 32 {
            return Err("DW_OP_breg<n> > 31".into());
        }
        // "DW_OP_breg1 EXEC_LO_LO16-1" or "DW_OP_breg0 +8"
        let d = if a.args.len() >= 2 { a.s(1)? } else { a.s(0)? };
        return Ok(Some(Op::Breg {
            reg: n,
            disp: d,
            short: true,
        }));
    }
    Ok(None)
}

/// The standard operations without operands, by name (a table).
fn operand_free(name: &str) -> Option<Op> {
    use Op::*;
    Some(match name {
        "DW_OP_deref" => Deref,
        "DW_OP_dup" => Dup,
        "DW_OP_drop" => Drop,
        "DW_OP_over" => Over,
        "DW_OP_swap" => Swap,
        "DW_OP_rot" => Rot,
        "DW_OP_xderef" => Xderef,
        "DW_OP_abs" => Abs,
        "DW_OP_and" => And,
        "DW_OP_div" => Div,
        "DW_OP_minus" => Minus,
        "DW_OP_mod" => Mod,
        "DW_OP_mul" => Mul,
        "DW_OP_neg" => Neg,
        "DW_OP_not" => Not,
        "DW_OP_or" => Or,
        "DW_OP_plus" => Plus,
        "DW_OP_shl" => Shl,
        "DW_OP_shr" => Shr,
        "DW_OP_shra" => Shra,
        "DW_OP_xor" => Xor,
        "DW_OP_eq" => Eq,
        "DW_OP_ge" => Ge,
        "DW_OP_gt" => Gt,
        "DW_OP_le" => Le,
        "DW_OP_lt" => Lt,
        "DW_OP_ne" => Ne,
        "DW_OP_nop" => Nop,
        "DW_OP_push_object_address" => PushObjectAddress,
        "DW_OP_form_tls_address" => FormTlsAddress { gnu: false },
        "DW_OP_GNU_push_tls_address" => FormTlsAddress { gnu: true },
        "DW_OP_call_frame_cfa" => CallFrameCfa,
        "DW_OP_stack_value" => StackValue,
        _ => return None,
    })
}

/// The standard operations with operands, by name; `None` for another name.
fn with_operands(name: &str, a: &Args) -> Result<Option<Op>, String> {
    use Op::*;
    Ok(Some(match name {
        "DW_OP_addr" => Addr(a.u(0)?),
        "DW_OP_const1u" => ConstU(1, a.u(0)? & 0xff),
        "DW_OP_const2u" => ConstU(2, a.u(0)? & 0xffff),
        "DW_OP_const4u" => ConstU(4, a.u(0)? & 0xffff_ffff),
        "DW_OP_const8u" => ConstU(8, a.u(0)?),
        "DW_OP_const1s" => ConstS(1, i64::from(a.s(0)? as i8)),
        "DW_OP_const2s" => ConstS(2, i64::from(a.s(0)? as i16)),
        "DW_OP_const4s" => ConstS(4, i64::from(a.s(0)? as i32)),
        "DW_OP_const8s" => ConstS(8, a.s(0)?),
        "DW_OP_constu" => Constu(a.u(0)?),
        "DW_OP_consts" => Consts(a.s(0)?),
        "DW_OP_pick" => Pick(a.byte(0)?),
        "DW_OP_plus_uconst" => PlusUconst(a.u(0)?),
        "DW_OP_bra" => Bra {
            disp: a.disp()?,
            target: 0,
        },
        "DW_OP_skip" => Skip {
            disp: a.disp()?,
            target: 0,
        },
        "DW_OP_regx" => Reg {
            reg: a.reg(0)?,
            short: false,
        },
        "DW_OP_fbreg" => Fbreg(a.s(0)?),
        "DW_OP_bregx" => Breg {
            reg: a.reg(0)?,
            disp: if a.args.len() > 1 { a.s(1)? } else { 0 },
            short: false,
        },
        "DW_OP_piece" => Piece(a.u(0)?),
        "DW_OP_deref_size" => DerefSize(a.byte(0)?),
        "DW_OP_xderef_size" => XderefSize(a.byte(0)?),
        "DW_OP_call2" => Call2(u16::try_from(a.u(0)?).map_err(|_| "offset")?),
        "DW_OP_call4" => Call4(u32::try_from(a.u(0)?).map_err(|_| "offset")?),
        "DW_OP_call_ref" => CallRef(a.u(0)?),
        "DW_OP_bit_piece" => BitPiece {
            size: a.u(0)?,
            offset: a.u(1)?,
        },
        "DW_OP_implicit_value" => ImplicitValue(a.block(0)?.into()),
        "DW_OP_implicit_pointer" => ImplicitPointer {
            die: a.u(0)?,
            disp: a.s(1)?,
        },
        "DW_OP_addrx" => Addrx(a.u(0)?),
        "DW_OP_constx" => Constx(a.u(0)?),
        "DW_OP_const_type" => {
            let bytes = a.block(1)?;
            ConstType {
                die: a.u(0)?,
                bytes,
            }
        }
        "DW_OP_regval_type" => RegvalType {
            reg: a.reg(0)?,
            die: a.u(1)?,
        },
        "DW_OP_deref_type" => DerefType {
            size: a.byte(0)?,
            die: a.u(1)?,
        },
        "DW_OP_xderef_type" => XderefType {
            size: a.byte(0)?,
            die: a.u(1)?,
        },
        "DW_OP_convert" => Convert(a.u(0)?),
        "DW_OP_reinterpret" => Reinterpret(a.u(0)?),
        _ => return Ok(None),
    }))
}

/// The extension operations: the AMDGPU `DW_OP_LLVM_*` ones (in the form `user` or
/// the dialect of `opts` gives), the DWARF 6 names, and the opt-in proposals; an
/// error for any other name.
fn extension(name: &str, a: &Args, user: bool, opts: &DecodeOptions) -> Result<(Op, Form), String> {
    use Op::*;
    let llvm_form = if user {
        Form::User
    } else {
        match opts.dialect {
            Dialect::User => Form::User,
            Dialect::SingleByte => Form::SingleByte,
            Dialect::SeedTable => Form::SeedTable,
        }
    };
    let ext_form = |e: ExtOp| -> Form {
        opts.extensions
            .codes
            .iter()
            .find(|(_, x)| *x == e)
            .map(|(c, _)| Form::Extension(*c))
            .unwrap_or(Form::Named)
    };
    Ok(match name {
        "DW_OP_LLVM_nop" => (LlvmNop, Form::User),
        "DW_OP_LLVM_form_aspace_address" => (FormAspaceAddress, llvm_form),
        "DW_OP_LLVM_push_lane" => (PushLane, llvm_form),
        "DW_OP_LLVM_offset" => (Offset, llvm_form),
        "DW_OP_LLVM_offset_uconst" => (OffsetUconst(a.u(0)?), llvm_form),
        "DW_OP_LLVM_bit_offset" => (BitOffset, llvm_form),
        "DW_OP_LLVM_call_frame_entry_reg" => (CallFrameEntryReg(a.reg(0)?), llvm_form),
        "DW_OP_LLVM_undefined" => (Undefined, llvm_form),
        "DW_OP_LLVM_aspace_bregx" => (
            AspaceBregx {
                reg: a.reg(0)?,
                disp: a.s(1)?,
            },
            llvm_form,
        ),
        "DW_OP_LLVM_aspace_implicit_pointer" => (
            AspaceImplicitPointer {
                die: a.u(0)?,
                disp: a.s(1)?,
            },
            llvm_form,
        ),
        "DW_OP_LLVM_piece_end" => (PieceEnd, llvm_form),
        "DW_OP_LLVM_extend" => (
            Extend {
                bits: a.u(0)?,
                count: a.u(1)?,
            },
            llvm_form,
        ),
        "DW_OP_LLVM_select_bit_piece" => (
            SelectBitPiece {
                bits: a.u(0)?,
                count: a.u(1)?,
            },
            llvm_form,
        ),
        // DWARF 6 names (codes still to be assigned).
        "DW_OP_push_lane" => (PushLane, ext_form(ExtOp::PushLane)),
        "DW_OP_offset" => (Offset, ext_form(ExtOp::Offset)),
        "DW_OP_bit_offset" => (BitOffset, ext_form(ExtOp::BitOffset)),
        "DW_OP_undefined" => (Undefined, ext_form(ExtOp::Undefined)),
        "DW_OP_composite" => (PieceEnd, ext_form(ExtOp::Composite)),
        "DW_OP_overlay" => (Overlay, ext_form(ExtOp::Overlay)),
        "DW_OP_bit_overlay" => (BitOverlay, ext_form(ExtOp::BitOverlay)),
        "DW_OP_extend" => (
            Extend {
                bits: a.u(0)?,
                count: a.u(1)?,
            },
            Form::Named,
        ),
        "DW_OP_select_bit_piece" => (
            SelectBitPiece {
                bits: a.u(0)?,
                count: a.u(1)?,
            },
            Form::Named,
        ),
        // Proposals.
        "DW_OP_push_simd_lane" => (PushSimdLane, ext_form(ExtOp::PushSimdLane)),
        "DW_OP_object_map" => (ObjectMap(a.u(0)?), ext_form(ExtOp::ObjectMap)),
        other => return Err(format!("unknown operation `{other}`")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_dwarfdump_examples() {
        let o = DecodeOptions::default();
        let ops = parse_ops(
            "DW_OP_regx 0x0, DW_OP_LLVM_user DW_OP_LLVM_extend 0x8 0x8",
            64,
            &o,
        )
        .unwrap();
        assert_eq!(
            ops[0].0,
            Op::Reg {
                reg: 0,
                short: false
            }
        );
        assert_eq!(ops[1].0, Op::Extend { bits: 8, count: 8 });
        let ops = parse_ops(
            "DW_OP_bregx VGPR1_LO16-8, DW_OP_breg1 EXEC_LO_LO16-1",
            64,
            &o,
        )
        .unwrap();
        assert_eq!(
            ops[0].0,
            Op::Breg {
                reg: 2561,
                disp: -8,
                short: false
            }
        );
        assert_eq!(
            ops[1].0,
            Op::Breg {
                reg: 1,
                disp: -1,
                short: true
            }
        );
        let ops = parse_ops("DW_OP_regval_type SGPR1_LO16 (0x0000000d) \"uint\"", 64, &o).unwrap();
        assert_eq!(ops[0].0, Op::RegvalType { reg: 33, die: 0xd });
        assert!(parse_ops("DW_OP_bogus 1", 64, &o).is_err());
        assert_eq!(parse_register("VGPR3", 32), Some(1539));
        assert_eq!(parse_register("SGPR70", 64), Some(1094));
    }

    #[test]
    fn print_then_parse_round_trips() {
        let o = DecodeOptions::default();
        let text = "DW_OP_regx VGPR0_LO16, DW_OP_LLVM_user DW_OP_LLVM_push_lane, DW_OP_lit4, DW_OP_mul, \
                    DW_OP_LLVM_user DW_OP_LLVM_offset, DW_OP_piece 0x4, DW_OP_fbreg -16, \
                    DW_OP_entry_value(DW_OP_regx SGPR1_LO16), DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x40 0x40";
        let bytes = assemble(text, 64, &o).unwrap();
        let printed = print_bytes(&bytes, None, &o);
        assert_eq!(
            printed,
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        );
    }
}
