//! `amdsim disasm`: listings in the layout of `llvm-objdump-19 -d`.

use amdgpu_codeobj::{CodeObject, Symbol, SymbolKind};
use amdgpu_isa::{Decoder, Gpu, Inst, Program};
use std::fmt::Write as _;

/// Arguments of `amdsim disasm`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  amdsim disasm kernels/bin/gfx900/vector_add.co\n  \
amdsim disasm --disassemble-symbols=vector_add kernels/bin/gfx1030/vector_add.co\n  \
amdsim disasm -S kernels/bin/gfx900/divergence.O2g.co\n  \
amdsim disasm --raw --mcpu=gfx1030 --wave64 code.bin"
)]
pub struct DisasmArgs {
    /// The code object, or with --raw a file of instruction bytes.
    file: String,
    /// The file holds raw instruction bytes, not a code object.
    #[arg(long, requires = "mcpu")]
    raw: bool,
    /// The GPU to decode as (gfx900, gfx906, gfx908, gfx90a, gfx1010, gfx1030):
    /// required with --raw; for a code object, instead of its own target.
    #[arg(long, value_name = "GPU")]
    mcpu: Option<String>,
    /// The target triple (only amdgcn-amd-amdhsa).
    #[arg(long, value_name = "TRIPLE")]
    triple: Option<String>,
    /// Name wave-mask operands for wave64 (GFX10).
    #[arg(long)]
    wave64: bool,
    /// Address of the first raw byte.
    #[arg(long, value_name = "ADDR", value_parser = crate::parse_u64, default_value = "0")]
    address: u64,
    /// List only these symbols.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    disassemble_symbols: Option<Vec<String>>,
    /// Disassemble the executable sections (what amdsim disasm always does;
    /// accepted as llvm-objdump takes it).
    #[arg(short = 'd', long)]
    disassemble: bool,
    /// Accepted as llvm-objdump takes it; like llvm-objdump-19 for AMDGPU,
    /// the instruction words are still shown in the comment.
    #[arg(long)]
    no_show_raw_insn: bool,
    /// Interleave source lines, as llvm-objdump -S (needs the code object's line
    /// table; the sources are read at the paths it names, relative ones from the
    /// current directory).
    #[arg(short = 'S', long)]
    source: bool,
}

/// Runs `amdsim disasm`.
pub fn run(a: DisasmArgs) -> Result<(), crate::Failure> {
    if let Some(t) = &a.triple
        && !t.starts_with("amdgcn")
    {
        return Err(crate::Failure::Usage(format!(
            "triple `{t}`: only amdgcn-amd-amdhsa code objects are supported"
        )));
    }
    let file = &a.file;
    let data = crate::read_file(file, amdgpu_sim::dispatch::MAX_CODE_OBJECT)?;
    let out = if a.raw {
        let mcpu = a.mcpu.as_deref().unwrap_or_default();
        let gpu: Gpu = mcpu
            .parse()
            .map_err(|e| crate::Failure::Usage(format!("--mcpu: {e}")))?;
        raw_listing(&Decoder::new(gpu, a.wave64), &data, a.address)
    } else {
        let co = CodeObject::parse(&data).map_err(|e| format!("{file}: {e}"))?;
        // --mcpu decodes the code object as that processor, as llvm-objdump does.
        let gpu = match &a.mcpu {
            Some(m) => Some(
                m.parse::<Gpu>()
                    .map_err(|e| crate::Failure::Usage(format!("--mcpu: {e}")))?,
            ),
            None => None,
        };
        let only = a.disassemble_symbols.as_deref();
        let mut source = if a.source {
            Some(crate::disasm_source::SourcePrinter::new(&co, file)?)
        } else {
            None
        };
        let out = listing_as(&co, file, a.wave64, only, gpu, source.as_mut())?;
        // Like llvm-objdump: a symbol asked for that is not there is a warning.
        for name in only.unwrap_or_default() {
            if !co.symbols().iter().any(|s| s.name == name.as_str()) {
                eprintln!("amdsim: warning: '{file}': failed to disassemble missing symbol {name}");
            }
        }
        out
    };
    print!("{out}");
    Ok(())
}

/// The decoder for a code object's target.
pub fn decoder_for(co: &CodeObject<'_>, wave64: bool) -> Result<Decoder, String> {
    let gpu = Gpu::try_from(co.target().gpu)
        .map_err(|e| format!("the decoder does not support this target: {e}"))?;
    Ok(Decoder::new(gpu, wave64))
}

/// One instruction line: text padded so the comment starts at column 60
/// (the tab counts as one), then the address and the instruction words.
fn push_line(out: &mut String, text: &str, addr: u64, inst: &Inst, note: Option<String>) {
    let _ = write!(out, "\t{text:<59}// {addr:012X}:");
    let nwords = inst.size_bytes().div_ceil(4).min(inst.words.len());
    for w in &inst.words[..nwords] {
        let _ = write!(out, " {w:08X}");
    }
    if let Some(n) = note {
        let _ = write!(out, " {n}");
    }
    out.push('\n');
}

/// The instruction text as llvm-objdump prints it (invalid words as `.long`).
fn inst_text(inst: &Inst) -> String {
    if inst.is_invalid() {
        format!(".long 0x{:08x}", inst.words[0])
    } else {
        inst.to_string()
    }
}

/// Lists raw bytes, one instruction per line, addresses from `address`.
pub fn raw_listing(dec: &Decoder, bytes: &[u8], address: u64) -> String {
    let program = dec.decode_program(bytes, address);
    let mut out = String::new();
    for (addr, inst) in program.iter() {
        push_line(&mut out, &inst_text(inst), addr, inst, None);
    }
    out
}

fn is_label(s: &Symbol<'_>, text_start: u64, text_end: u64) -> bool {
    !s.name.is_empty()
        && s.address >= text_start
        && s.address < text_end
        && !matches!(s.kind, SymbolKind::KernelDescriptor | SymbolKind::Object)
}

/// Lists a code object's `.text` like `llvm-objdump-19 -d FILE`; with `only`,
/// like `--disassemble-symbols=...` (just the regions of those symbols).
pub fn code_object_listing(
    co: &CodeObject<'_>,
    path: &str,
    wave64: bool,
    only: Option<&[String]>,
) -> Result<String, String> {
    listing_as(co, path, wave64, only, None, None)
}

/// [`code_object_listing`], decoding as `gpu` when given (`--mcpu`).
fn listing_as(
    co: &CodeObject<'_>,
    path: &str,
    wave64: bool,
    only: Option<&[String]>,
    gpu: Option<Gpu>,
    mut source: Option<&mut crate::disasm_source::SourcePrinter>,
) -> Result<String, String> {
    let dec = match gpu {
        Some(g) => Decoder::new(g, wave64),
        None => decoder_for(co, wave64)?,
    };
    let text = co.text();
    let (start, end) = (text.address, text.end_address());
    let mut labels: Vec<&Symbol<'_>> = co
        .symbols()
        .iter()
        .filter(|s| is_label(s, start, end))
        .collect();
    labels.sort_by(|a, b| a.address.cmp(&b.address).then(a.name.cmp(b.name)));
    labels.dedup_by_key(|s| s.address);

    let mut out = format!("\n{path}:\tfile format elf64-amdgpu\n");
    // The section's heading comes with its first symbol (none: none, as
    // llvm-objdump prints it for --disassemble-symbols naming nothing there).
    let mut headed = false;
    // Decode each labelled region separately, as objdump restarts at every symbol.
    for (i, sym) in labels.iter().enumerate() {
        let region_end = labels.get(i + 1).map_or(end, |n| n.address);
        if only.is_some_and(|o| !o.iter().any(|n| n == sym.name)) {
            continue;
        }
        let lo = (sym.address - start) as usize;
        let hi = (region_end - start) as usize;
        let Some(bytes) = text.bytes.get(lo..hi) else {
            continue;
        };
        if !headed {
            out.push_str("\nDisassembly of section .text:\n");
            headed = true;
        }
        let _ = write!(out, "\n{:016x} <{}>:\n", sym.address, sym.name);
        let program: Program = dec.decode_program(bytes, sym.address);
        for (addr, inst) in program.iter() {
            if let Some(line) = source.as_mut().and_then(|s| s.before(addr)) {
                out.push_str(&line);
            }
            let mut t = inst_text(inst);
            let mut note = None;
            if let Some(target) = inst.branch_target(addr) {
                if let Some(exact) = labels.iter().find(|s| s.address == target) {
                    // objdump prints the symbol in place of the offset.
                    if let Some(pos) = t.rfind(' ') {
                        t.truncate(pos + 1);
                        t.push_str(exact.name);
                    }
                } else if let Some(owner) = labels.iter().rev().find(|s| s.address <= target) {
                    note = Some(format!("<{}+0x{:x}>", owner.name, target - owner.address));
                }
            }
            push_line(&mut out, &t, addr, inst, note);
        }
    }
    Ok(out)
}
