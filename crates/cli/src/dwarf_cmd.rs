//! `amdsim dwarf ...` subcommands: evaluate an expression against a wave state described
//! in RON, list the variables in scope at a PC of a code object, and convert between
//! expression bytes and the `llvm-dwarfdump` text syntax.

use amdgpu_dwarf::eval::{
    Compat, EvalOptions, Evaluator, MapContext, Outcome, ResultKind, read_through,
};
use amdgpu_dwarf::location::{Loc, Single, Storage};
use amdgpu_dwarf::op::{DecodeOptions, Dialect, Expr, Extensions};
use amdgpu_dwarf::program::{LocationValue, Program, ProgramOptions};
use amdgpu_dwarf::target::{MemTarget, MemorySpace, Register};
use amdgpu_dwarf::text::{assemble, parse_register, print_bytes};
use amdgpu_dwarf::value::BaseType;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

const HELP: &str = "\
usage:
  amdsim dwarf eval (--hex HEX | --text 'DW_OP_...' | EXPR) [--state FILE.ron] [--read N]
                    [--value] [--dialect user|single-byte|seed] [--proposals] [--compat clang19|clang19-scaled]
      Evaluates one expression (bytes in hex, or the text llvm-dwarfdump-19 prints, e.g.
      `DW_OP_regx 0x0, DW_OP_LLVM_user DW_OP_LLVM_extend 0x8 0x8`) against the wave state of
      FILE.ron, prints the resulting value or location description and, with --read N, the
      N bytes read through it (undefined bytes shown as `??`). --value asks for a value
      result instead of a location.
  amdsim dwarf vars FILE.co --pc ADDR [--dialect ...]
      Lists the variables and parameters in scope at ADDR with their location expressions.
  amdsim dwarf decode HEX [--dialect ...]      prints the expression as llvm-dwarfdump-19 does
  amdsim dwarf asm 'DW_OP_...' [--dialect ...]  encodes the text to hex

state file (RON), every field optional:
  (
    wave_size: 64, lane: 0, pc: 0x1000, exec: 0xffffffffffffffff,
    registers: { \"SGPR0\": Int(0x8000), \"VGPR0\": Lanes([1, 2, 3]), \"PC\": Int(0x1000), \"SGPR4\": Bytes([1, 2, 3, 4]) },
    memory: [ (space: Global, address: 0x8000, bytes: [42, 0, 0, 0]), (space: PrivateWave, address: 0, hex: \"00ff\") ],
    base_types: { 0x30: (encoding: 7, byte_size: 8) },
    procedures: { 0x100: \"DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40\" },
    variables: { 0x200: \"DW_OP_regx SGPR10, DW_OP_piece 0x4, DW_OP_regx SGPR11, DW_OP_piece 0x4\" },
    frame_base: \"DW_OP_regx SGPR33\", addresses: [0x40], load_bias: 0,
  )
  (registers by name: SGPRn, VGPRn (wave size of the file), AGPRn, PC, EXEC, or DWARF number)
";

/// Runs `amdsim dwarf ARGS`.
pub fn run(args: &[String]) -> Result<(), String> {
    let Some((sub, rest)) = args.split_first() else {
        return Err(HELP.to_string());
    };
    match sub.as_str() {
        "eval" => eval(rest),
        "vars" => vars(rest),
        "decode" => decode(rest),
        "asm" => asm(rest),
        "-h" | "--help" | "help" => {
            print!("{HELP}");
            Ok(())
        }
        other => Err(format!("unknown `dwarf` subcommand `{other}`\n{HELP}")),
    }
}

#[derive(Debug, Deserialize, Default)]
#[serde(default)]
struct State {
    wave_size: Option<u32>,
    lane: u32,
    pc: u64,
    exec: Option<u64>,
    registers: BTreeMap<String, RegValue>,
    memory: Vec<MemRegion>,
    base_types: BTreeMap<u64, BaseTypeSpec>,
    procedures: BTreeMap<u64, String>,
    variables: BTreeMap<u64, String>,
    frame_base: Option<String>,
    addresses: Vec<u64>,
    load_bias: u64,
}

#[derive(Debug, Deserialize)]
enum RegValue {
    Int(u64),
    Lanes(Vec<u32>),
    Bytes(Vec<u8>),
}

#[derive(Debug, Deserialize)]
enum Space {
    Global,
    Local,
    Region,
    PrivateWave,
}

#[derive(Debug, Deserialize)]
struct MemRegion {
    space: Space,
    address: u64,
    #[serde(default)]
    bytes: Vec<u8>,
    #[serde(default)]
    hex: Option<String>,
}

#[derive(Debug, Deserialize)]
struct BaseTypeSpec {
    encoding: u8,
    byte_size: u64,
    #[serde(default)]
    vector_size: Option<u64>,
}

struct Flags {
    positional: Vec<String>,
    opts: BTreeMap<String, Option<String>>,
}

fn flags(args: &[String], with_value: &[&str]) -> Result<Flags, String> {
    let mut f = Flags {
        positional: Vec::new(),
        opts: BTreeMap::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if let Some(name) = a.strip_prefix("--") {
            if with_value.contains(&name) {
                let v = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
                f.opts.insert(name.to_string(), Some(v.clone()));
            } else {
                f.opts.insert(name.to_string(), None);
            }
        } else {
            f.positional.push(a.clone());
        }
    }
    Ok(f)
}

fn parse_u64(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse::<u64>(),
    };
    r.map_err(|e| format!("bad number `{s}`: {e}"))
}

fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    let t = s.trim();
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    let clean: String = t.chars().filter(|c| c.is_ascii_hexdigit()).collect();
    if clean.len() % 2 != 0 {
        return Err(format!("odd number of hex digits in `{s}`"));
    }
    (0..clean.len() / 2)
        .map(|i| u8::from_str_radix(&clean[2 * i..2 * i + 2], 16).map_err(|e| e.to_string()))
        .collect()
}

fn decode_options(f: &Flags) -> Result<DecodeOptions, String> {
    let dialect = match f.opts.get("dialect").cloned().flatten().as_deref() {
        None | Some("user") | Some("c") => Dialect::User,
        Some("single-byte") | Some("a") => Dialect::SingleByte,
        Some("seed") => Dialect::SeedTable,
        Some(other) => {
            return Err(format!(
                "unknown dialect `{other}` (user, single-byte, seed)"
            ));
        }
    };
    let extensions = if f.opts.contains_key("proposals") {
        Extensions::proposals()
    } else {
        Extensions::default()
    };
    Ok(DecodeOptions {
        dialect,
        extensions,
        ..DecodeOptions::default()
    })
}

fn build_target(st: &State) -> Result<MemTarget, String> {
    let ws = st.wave_size.unwrap_or(64);
    if ws != 32 && ws != 64 {
        return Err(format!("wave_size must be 32 or 64, not {ws}"));
    }
    if st.lane >= ws {
        return Err(format!("lane {} is outside a wave of {ws}", st.lane));
    }
    let mut t = MemTarget::new(ws, st.lane);
    t.set_pc(st.pc);
    if let Some(e) = st.exec {
        t.set_exec(e);
    }
    for (name, v) in &st.registers {
        let num = parse_register(name, ws).ok_or_else(|| format!("unknown register `{name}`"))?;
        let size = Register::from_dwarf(num)
            .map(Register::size)
            .ok_or_else(|| format!("register {num} is reserved"))?;
        let mut bytes = vec![0u8; size as usize];
        match v {
            RegValue::Int(x) => {
                for (d, s) in bytes.iter_mut().zip(x.to_le_bytes()) {
                    *d = s;
                }
            }
            RegValue::Lanes(l) => {
                for (i, x) in l.iter().enumerate() {
                    if let Some(d) = bytes.get_mut(i * 4..i * 4 + 4) {
                        d.copy_from_slice(&x.to_le_bytes());
                    }
                }
            }
            RegValue::Bytes(b) => {
                for (d, s) in bytes.iter_mut().zip(b) {
                    *d = *s;
                }
            }
        }
        if num == u64::from(Register::PC) {
            t.set_pc(u64::from_le_bytes(bytes[..8].try_into().map_err(|_| "PC")?));
        } else if num == u64::from(Register::EXEC64) {
            t.set_exec(u64::from_le_bytes(
                bytes[..8].try_into().map_err(|_| "EXEC")?,
            ));
        } else {
            t.set_register(num as u32, bytes);
        }
    }
    for m in &st.memory {
        let bytes = match &m.hex {
            Some(h) => parse_hex(h)?,
            None => m.bytes.clone(),
        };
        let space = match m.space {
            Space::Global => MemorySpace::Global,
            Space::Local => MemorySpace::Local,
            Space::Region => MemorySpace::Region,
            Space::PrivateWave => MemorySpace::PrivateWave,
        };
        t.map(space, m.address, bytes);
    }
    Ok(t)
}

fn build_context(st: &State, ws: u32, o: &DecodeOptions) -> Result<MapContext, String> {
    let mut c = MapContext::default();
    let compile = |text: &str| -> Result<Expr, String> {
        let b = assemble(text, ws, o).map_err(|e| format!("`{text}`: {e}"))?;
        Expr::decode(&b, o).map_err(|e| format!("`{text}`: {e}"))
    };
    for (off, t) in &st.base_types {
        c.base_types.insert(
            *off,
            BaseType {
                encoding: t.encoding,
                byte_size: t.byte_size,
                vector_size: t.vector_size.unwrap_or(1),
            },
        );
    }
    for (off, text) in &st.procedures {
        c.procedure(*off, compile(text)?);
    }
    for (off, text) in &st.variables {
        c.variable(*off, compile(text)?);
    }
    if let Some(fb) = &st.frame_base {
        c.frame_base = Some(Arc::new(compile(fb)?));
    }
    c.addresses = st.addresses.clone();
    c.load_bias = st.load_bias;
    Ok(c)
}

fn describe_single(s: &Single) -> String {
    let bits = |o: u128| {
        if o % 8 == 0 {
            format!("byte offset {:#x}", o / 8)
        } else {
            format!("bit offset {o}")
        }
    };
    match &s.storage {
        Storage::Undefined => "undefined".into(),
        Storage::Memory(space) => {
            let addr = s.offset / 8;
            let rem = s.offset % 8;
            if rem == 0 {
                format!("memory {} {addr:#x}", space.name())
            } else {
                format!("memory {} {addr:#x} + {rem} bits", space.name())
            }
        }
        Storage::Register(r) => {
            let name = Register::from_dwarf(u64::from(*r))
                .map(Register::name)
                .unwrap_or_else(|| r.to_string());
            format!("register {name} (DWARF {r}), {}", bits(s.offset))
        }
        Storage::Implicit(b) => {
            let mut h = String::new();
            for x in b.iter() {
                let _ = write!(h, "{x:02x}");
            }
            format!(
                "implicit value 0x[{h}] (little-endian bytes), {}",
                bits(s.offset)
            )
        }
        Storage::ImplicitPointer(p) => {
            format!(
                "implicit pointer to DIE {:#x} {:+}, address space {:#x}",
                p.die, p.disp, p.space
            )
        }
        Storage::Composite(c) => {
            let mut out = format!(
                "composite of {} part(s), {}:",
                c.parts().len(),
                bits(s.offset)
            );
            for p in c.parts() {
                let _ = write!(
                    out,
                    "\n  bits [{}, {}): {}",
                    p.start,
                    p.start + u128::from(p.bits),
                    describe_loc(&p.loc)
                );
            }
            out
        }
    }
}

fn describe_loc(l: &Loc) -> String {
    match l {
        Loc::One(s) => describe_single(s),
        Loc::Many(v) => {
            let parts: Vec<String> = v.iter().map(describe_single).collect();
            format!("in {} places: {}", v.len(), parts.join(" | "))
        }
    }
}

fn eval(args: &[String]) -> Result<(), String> {
    let f = flags(args, &["hex", "text", "state", "read", "dialect", "compat"])?;
    let o = decode_options(&f)?;
    let st: State = match f.opts.get("state").cloned().flatten() {
        Some(path) => {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
            ron::from_str(&text).map_err(|e| format!("{path}: {e}"))?
        }
        None => State::default(),
    };
    let ws = st.wave_size.unwrap_or(64);
    let bytes = if let Some(Some(h)) = f.opts.get("hex") {
        parse_hex(h)?
    } else {
        let text = match f.opts.get("text") {
            Some(Some(t)) => t.clone(),
            _ => f.positional.join(" "),
        };
        if text.trim().is_empty() {
            return Err(format!("no expression given\n{HELP}"));
        }
        if text.trim_start().starts_with("DW_OP") {
            assemble(&text, ws, &o).map_err(|e| e.to_string())?
        } else {
            parse_hex(&text)?
        }
    };
    let expr = Expr::decode(&bytes, &o).map_err(|e| format!("decoding: {e}"))?;
    let target = build_target(&st)?;
    let ctx = build_context(&st, ws, &o)?;
    let compat = match f.opts.get("compat").cloned().flatten().as_deref() {
        None => EvalOptions::default().compat,
        Some("clang19") => Compat::clang19(false),
        Some("clang19-scaled") => Compat::clang19(true),
        Some(other) => return Err(format!("unknown compatibility `{other}`")),
    };
    let opts = EvalOptions {
        decode: o.clone(),
        proposals: f.opts.contains_key("proposals"),
        compat,
        ..EvalOptions::default()
    };
    let mut hex = String::new();
    for b in &bytes {
        let _ = write!(hex, "{b:02x}");
    }
    println!("expression: {}", print_bytes(&bytes, None, &o));
    println!("bytes:      {hex}");
    let kind = if f.opts.contains_key("value") {
        ResultKind::Value
    } else {
        ResultKind::Location
    };
    let mut ev = Evaluator::new(&target, &ctx, opts);
    let out = ev
        .evaluate(&expr, kind, &[])
        .map_err(|e| format!("evaluation: {e}"))?;
    match out {
        Outcome::Value(v) => println!("value:      {v:?}"),
        Outcome::Location(l) => {
            println!("location:   {}", describe_loc(&l));
            if let Some(Some(n)) = f.opts.get("read") {
                let n = usize::try_from(parse_u64(n)?).map_err(|e| e.to_string())?;
                let r = read_through(&target, &l, n).map_err(|e| format!("read: {e}"))?;
                let mut line = String::new();
                for (i, b) in r.bytes().iter().enumerate().take(n) {
                    if i > 0 {
                        line.push(' ');
                    }
                    if r.byte_defined(i) {
                        let _ = write!(line, "{b:02x}");
                    } else {
                        line.push_str("??");
                    }
                }
                println!("read {n}:    {line}");
            }
        }
    }
    Ok(())
}

fn vars(args: &[String]) -> Result<(), String> {
    let f = flags(args, &["pc", "dialect"])?;
    let path = f
        .positional
        .first()
        .ok_or_else(|| format!("which code object?\n{HELP}"))?;
    let pc = parse_u64(
        f.opts
            .get("pc")
            .cloned()
            .flatten()
            .as_deref()
            .ok_or("--pc ADDR is required")?,
    )?;
    let data = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let co = amdgpu_codeobj::CodeObject::parse(&data).map_err(|e| format!("{path}: {e}"))?;
    let dialect = match f.opts.get("dialect").cloned().flatten() {
        Some(_) => Some(decode_options(&f)?.dialect),
        None => None,
    };
    let popts = ProgramOptions {
        dialect,
        ..ProgramOptions::default()
    };
    let program =
        Program::load(|name| co.section_data(name), popts).map_err(|e| format!("{path}: {e}"))?;
    let o = program.decode_options_at(pc);
    let function = program.function_at(pc).map_err(|e| e.to_string())?;
    let line = program.line_at(pc).map_err(|e| e.to_string())?;
    println!(
        "pc {pc:#x}: {}{}",
        function.as_deref().unwrap_or("<no function>"),
        line.map(|(f, l)| format!(" at {f}:{l}"))
            .unwrap_or_default()
    );
    if let Some(LocationValue::Exprs(e)) = program.frame_base_at(pc).map_err(|e| e.to_string())?
        && let Some(fb) = e.first()
    {
        println!("frame base: {}", print_bytes(fb, None, &o));
    }
    let la = program.lane_attributes_at(pc).map_err(|e| e.to_string())?;
    if let Some(n) = la.lanes {
        println!("DW_AT_LLVM_lanes: {n}");
    }
    if let Some(LocationValue::Exprs(e)) = &la.lane_pc {
        println!("DW_AT_LLVM_lane_pc: {}", print_bytes(&e[0], None, &o));
    }
    let vars = program.variables_at(pc).map_err(|e| e.to_string())?;
    if vars.is_empty() {
        println!("no variables in scope");
    }
    for v in vars {
        let kind = if v.parameter { "param" } else { "var" };
        let ty = v.type_name.clone().unwrap_or_else(|| "?".into());
        let size = v
            .byte_size
            .map(|s| format!(", {s} bytes"))
            .unwrap_or_default();
        let loc = match (&v.location, &v.const_value) {
            (Some(LocationValue::Exprs(e)), _) => e
                .iter()
                .map(|b| print_bytes(b, None, &o))
                .collect::<Vec<_>>()
                .join("  |  "),
            (Some(LocationValue::NotAtPc), _) => "<not available at this pc>".into(),
            (None, Some(c)) => format!("constant {c:02x?}"),
            (None, None) => "<no location>".into(),
        };
        println!(
            "{kind} {} ({ty}{size}) [DIE {:#x}] in {}: {loc}",
            v.name, v.die, v.function
        );
    }
    Ok(())
}

fn decode(args: &[String]) -> Result<(), String> {
    let f = flags(args, &["dialect"])?;
    let o = decode_options(&f)?;
    let bytes = parse_hex(&f.positional.join(""))?;
    println!("{}", print_bytes(&bytes, None, &o));
    Ok(())
}

fn asm(args: &[String]) -> Result<(), String> {
    let f = flags(args, &["dialect", "wave-size"])?;
    let o = decode_options(&f)?;
    let ws = match f.opts.get("wave-size").cloned().flatten() {
        Some(w) => parse_u64(&w)? as u32,
        None => 64,
    };
    let bytes = assemble(&f.positional.join(" "), ws, &o).map_err(|e| e.to_string())?;
    let mut hex = String::new();
    for b in &bytes {
        let _ = write!(hex, "{b:02x}");
    }
    println!("{hex}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_file_builds_a_wave() {
        let st: State = ron::from_str(
            "(wave_size: Some(32), lane: 3, registers: { \"SGPR0\": Int(0x8000), \"VGPR1\": Lanes([1, 2, 3, 4]) }, \
             memory: [(space: Global, address: 0x8000, bytes: [42, 0, 0, 0, 0, 0, 0, 0])])",
        )
        .expect("parses");
        let t = build_target(&st).expect("builds");
        let mut b = [0u8; 4];
        use amdgpu_dwarf::Target;
        t.read_register(Register::vgpr(1, 32), 12, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 4);
        assert!(
            build_target(&State {
                lane: 99,
                ..State::default()
            })
            .is_err()
        );
    }

    #[test]
    fn describes_composites() {
        let o = DecodeOptions::default();
        let st = State::default();
        let t = build_target(&st).unwrap();
        let ctx = build_context(&st, 64, &o).unwrap();
        let b = assemble("DW_OP_regx SGPR3, DW_OP_piece 0x4, DW_OP_piece 0x2", 64, &o).unwrap();
        let e = Expr::decode(&b, &o).unwrap();
        let l = Evaluator::new(&t, &ctx, EvalOptions::default())
            .location(&e)
            .unwrap();
        let d = describe_loc(&l);
        assert!(d.contains("composite of 2 part(s)"), "{d}");
        assert!(d.contains("register SGPR3"), "{d}");
        assert!(d.contains("undefined"), "{d}");
    }
}
