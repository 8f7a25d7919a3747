//! `amdsim dwarf ...` subcommands: evaluate an expression against a wave state described
//! in RON, list the variables in scope at a PC of a code object, and convert between
//! expression bytes and the `llvm-dwarfdump` text syntax.

use amdgpu_dwarf::eval::{Compat, EvalOptions, Evaluator, Outcome, ResultKind, read_through};
use amdgpu_dwarf::location::{Loc, Single, Storage};
use amdgpu_dwarf::op::{DecodeOptions, Dialect, Expr, Extensions};
use amdgpu_dwarf::program::{LocationValue, Program, ProgramOptions};
use amdgpu_dwarf::state::State;
use amdgpu_dwarf::target::Register;
use amdgpu_dwarf::text::{assemble, print_bytes};
use std::fmt::Write as _;

/// The state file example `amdsim dwarf eval --help` prints; a test runs
/// it exactly as printed.
pub const STATE_EXAMPLE: &str = r#"(
  wave_size: 64, lane: 0, pc: 0x1000, exec: 0xffffffffffffffff,
  registers: { "SGPR0": Int(0x8000), "VGPR0": Lanes([1, 2, 3]), "PC": Int(0x1000), "SGPR4": Bytes([1, 2, 3, 4]) },
  memory: [ (space: Global, address: 0x8000, bytes: [42, 0, 0, 0]), (space: PrivateWave, address: 0, hex: "00ff") ],
  base_types: { 0x30: (encoding: 7, byte_size: 8) },
  procedures: { 0x100: "DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40" },
  variables: { 0x200: "DW_OP_regx SGPR10, DW_OP_piece 0x4, DW_OP_regx SGPR11, DW_OP_piece 0x4" },
  frame_base: "DW_OP_regx SGPR33", addresses: [0x40], load_bias: 0,
)"#;

/// The most bytes `--read` reads through a location.
pub const MAX_READ: u64 = 1 << 20;

/// The largest state file read.
const MAX_STATE_FILE: u64 = 16 << 20;

fn eval_help() -> String {
    format!(
        "Evaluates one expression (bytes in hex, or the text llvm-dwarfdump-19 prints, e.g.
`DW_OP_regx 0x0, DW_OP_LLVM_user DW_OP_LLVM_extend 0x8 0x8`) against the wave state of
a RON file, prints the resulting value or location description and, with --read N, the
N bytes read through it (undefined bytes shown as `??`).

State file (RON), every field optional:
{STATE_EXAMPLE}
(registers by name: SGPRn, VGPRn (wave size of the file), AGPRn, PC, EXEC, or DWARF number)

Examples (state.ron holding the state above):
  amdsim dwarf eval --text 'DW_OP_lit5, DW_OP_lit3, DW_OP_plus' --value
  amdsim dwarf eval --state state.ron --read 4 'DW_OP_const2u 0x8000'
  amdsim dwarf eval --state=state.ron --read=4 'DW_OP_regx SGPR4'
  amdsim dwarf eval --hex=359f --read 1"
    )
}

/// `amdsim dwarf` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum DwarfCommand {
    /// Evaluate a DWARF expression against a wave state described in RON.
    #[command(after_long_help = eval_help())]
    Eval(EvalArgs),
    /// List the variables and parameters in scope at a PC, with their locations.
    Vars(VarsArgs),
    /// Print expression bytes (hex) as llvm-dwarfdump-19 does.
    Decode(DecodeArgs),
    /// Encode llvm-dwarfdump-style text to hex.
    Asm(AsmArgs),
}

/// How expression bytes are read.
#[derive(clap::Args, Debug)]
pub struct Encoding {
    /// The encoding of the LLVM extension operations.
    #[arg(long, value_name = "DIALECT", value_parser = ["user", "c", "single-byte", "a", "seed"])]
    dialect: Option<String>,
    /// Accept the operations of the open proposals too.
    #[arg(long)]
    proposals: bool,
}

/// Arguments of `amdsim dwarf eval`.
#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// The expression as hex bytes.
    #[arg(long, value_name = "HEX", conflicts_with_all = ["text", "expr"])]
    hex: Option<String>,
    /// The expression as llvm-dwarfdump text.
    #[arg(long, value_name = "TEXT", conflicts_with = "expr")]
    text: Option<String>,
    /// The expression (text starting with DW_OP, or hex).
    expr: Vec<String>,
    /// The wave state (RON; see above).
    #[arg(long, value_name = "FILE.ron")]
    state: Option<String>,
    /// Read N bytes through the resulting location.
    #[arg(long, value_name = "N", value_parser = crate::parse_u64)]
    read: Option<u64>,
    /// Ask for a value result instead of a location.
    #[arg(long)]
    value: bool,
    /// Compatibility with what a producer emits.
    #[arg(long, value_name = "MODE", value_parser = ["clang19", "clang19-scaled"])]
    compat: Option<String>,
    #[command(flatten)]
    encoding: Encoding,
}

/// Arguments of `amdsim dwarf vars`.
#[derive(clap::Args, Debug)]
pub struct VarsArgs {
    /// The code object.
    file: String,
    /// The program counter.
    #[arg(long, value_name = "ADDR", value_parser = crate::parse_u64)]
    pc: u64,
    #[command(flatten)]
    encoding: Encoding,
}

/// Arguments of `amdsim dwarf decode`.
#[derive(clap::Args, Debug)]
pub struct DecodeArgs {
    /// The bytes, in hex (spaces allowed).
    #[arg(required = true)]
    hex: Vec<String>,
    #[command(flatten)]
    encoding: Encoding,
}

/// Arguments of `amdsim dwarf asm`.
#[derive(clap::Args, Debug)]
pub struct AsmArgs {
    /// The text, e.g. 'DW_OP_regx SGPR0, DW_OP_piece 0x4'.
    #[arg(required = true)]
    text: Vec<String>,
    /// Wave size for VGPR names.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = wave_size)]
    wave_size: u32,
    #[command(flatten)]
    encoding: Encoding,
}

fn wave_size(s: &str) -> Result<u32, String> {
    match s {
        "32" => Ok(32),
        "64" => Ok(64),
        _ => Err("a wave has 32 or 64 lanes".into()),
    }
}

/// Runs `amdsim dwarf SUBCOMMAND`.
pub fn run(c: DwarfCommand) -> Result<(), crate::Failure> {
    match c {
        DwarfCommand::Eval(a) => eval(a),
        DwarfCommand::Vars(a) => vars(a),
        DwarfCommand::Decode(a) => decode(a),
        DwarfCommand::Asm(a) => asm(a),
    }
}

/// Parses hex bytes (strictly: digits, spaces and underscores).
fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    amdgpu_dwarf::state::parse_hex(s).map_err(|e| format!("`{s}`: {e}"))
}

fn decode_options(e: &Encoding) -> DecodeOptions {
    let dialect = match e.dialect.as_deref() {
        Some("single-byte") | Some("a") => Dialect::SingleByte,
        Some("seed") => Dialect::SeedTable,
        _ => Dialect::User,
    };
    let extensions = if e.proposals {
        Extensions::proposals()
    } else {
        Extensions::default()
    };
    DecodeOptions {
        dialect,
        extensions,
        ..DecodeOptions::default()
    }
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
            const SHOWN: usize = 64;
            for p in c.parts().iter().take(SHOWN) {
                let _ = write!(
                    out,
                    "\n  bits [{}, {}): {}",
                    p.start,
                    p.start + u128::from(p.bits),
                    describe_loc(&p.loc)
                );
            }
            if c.parts().len() > SHOWN {
                let _ = write!(out, "\n  ... and {} more part(s)", c.parts().len() - SHOWN);
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

fn eval(a: EvalArgs) -> Result<(), crate::Failure> {
    let o = decode_options(&a.encoding);
    let st: State = match &a.state {
        Some(path) => {
            let bytes = crate::read_file(path, MAX_STATE_FILE)?;
            let text = String::from_utf8(bytes).map_err(|e| format!("{path}: {e}"))?;
            State::parse(&text).map_err(|e| format!("{path}:{e}"))?
        }
        None => State::default(),
    };
    if let Some(n) = a.read
        && n > MAX_READ
    {
        return Err(crate::Failure::Usage(format!(
            "--read {n}: at most {MAX_READ} bytes"
        )));
    }
    let ws = st.wave_size();
    let bytes = if let Some(h) = &a.hex {
        parse_hex(h)?
    } else {
        let text = match &a.text {
            Some(t) => t.clone(),
            None => a.expr.join(" "),
        };
        if text.trim().is_empty() {
            return Err(crate::Failure::Usage(
                "no expression given (--hex, --text or EXPR)".into(),
            ));
        }
        if text.trim_start().starts_with("DW_OP") {
            assemble(&text, ws, &o).map_err(|e| e.to_string())?
        } else {
            parse_hex(&text)?
        }
    };
    let expr = Expr::decode(&bytes, &o).map_err(|e| format!("decoding: {e}"))?;
    let target = st.target().map_err(|e| e.to_string())?;
    let ctx = st.context(&o).map_err(|e| e.to_string())?;
    let compat = match a.compat.as_deref() {
        Some("clang19") => Compat::clang19(false),
        Some("clang19-scaled") => Compat::clang19(true),
        _ => EvalOptions::default().compat,
    };
    let opts = EvalOptions {
        decode: o.clone(),
        proposals: a.encoding.proposals,
        compat,
        ..EvalOptions::default()
    };
    let mut hex = String::new();
    for b in &bytes {
        let _ = write!(hex, "{b:02x}");
    }
    println!("expression: {}", print_bytes(&bytes, None, &o));
    println!("bytes:      {hex}");
    let kind = if a.value {
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
            if let Some(n) = a.read {
                let n = n as usize;
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

fn vars(a: VarsArgs) -> Result<(), crate::Failure> {
    let path = &a.file;
    let pc = a.pc;
    let data = crate::read_file(path, amdgpu_sim::dispatch::MAX_CODE_OBJECT)?;
    let co = amdgpu_codeobj::CodeObject::parse(&data).map_err(|e| format!("{path}: {e}"))?;
    let dialect = a
        .encoding
        .dialect
        .as_ref()
        .map(|_| decode_options(&a.encoding).dialect);
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

fn decode(a: DecodeArgs) -> Result<(), crate::Failure> {
    let o = decode_options(&a.encoding);
    let bytes = parse_hex(&a.hex.join(" "))?;
    println!("{}", print_bytes(&bytes, None, &o));
    // What decoded is printed (as llvm-dwarfdump prints it, the rest as
    // `<decoding error>`), but a partial decode is a failure.
    match Expr::decode(&bytes, &o) {
        Ok(_) => Ok(()),
        Err(e) => Err(format!("the bytes do not decode completely: {e}").into()),
    }
}

fn asm(a: AsmArgs) -> Result<(), crate::Failure> {
    let o = decode_options(&a.encoding);
    let bytes = assemble(&a.text.join(" "), a.wave_size, &o).map_err(|e| e.to_string())?;
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
    fn the_documented_state_example_parses() {
        let st = State::parse(STATE_EXAMPLE).expect("the example parses");
        assert_eq!(st.wave_size, Some(64));
        assert_eq!(st.exec, Some(u64::MAX));
        st.target().expect("and builds a wave");
        st.context(&DecodeOptions::default())
            .expect("and its expressions assemble");
        assert!(eval_help().contains(STATE_EXAMPLE));
    }

    #[test]
    fn hex_errors_name_the_character() {
        assert_eq!(parse_hex("0x90 20_e9").unwrap(), [0x90, 0x20, 0xe9]);
        assert!(parse_hex("9g").unwrap_err().contains("`g`"));
        assert!(parse_hex("902").is_err());
    }

    #[test]
    fn describes_composites() {
        let o = DecodeOptions::default();
        let st = State::default();
        let t = st.target().unwrap();
        let ctx = st.context(&o).unwrap();
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
