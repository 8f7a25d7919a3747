//! The committed fuzz corpora (`fuzz/corpus/TARGET`) replayed on the stable
//! toolchain through the same calls as the fuzz targets: what once ran must
//! keep running without a panic, and the seeds keep meaning what they were
//! made for (the dispatch files and states parse, the code objects load, the
//! expressions decode).

use amdgpu_dwarf::eval::{EvalOptions, Evaluator, Outcome, ResultKind, read_through};
use amdgpu_dwarf::op::{DecodeOptions, Expr, Extensions};
use amdgpu_dwarf::state::State;
use amdgpu_isa::{Decoder, Gpu};
use amdgpu_sim::Device;
use amdsim_host::dispatch_file::DispatchFile;
use std::path::{Path, PathBuf};

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{target}: an empty corpus");
    files
        .into_iter()
        .map(|f| {
            let b = std::fs::read(&f).unwrap();
            (f, b)
        })
        .collect()
}

#[test]
fn code_objects_load() {
    for (f, data) in corpus("codeobj") {
        let dev = Device::new();
        dev.load(&data)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
}

#[test]
fn instruction_streams_decode() {
    for (_, data) in corpus("decode") {
        let Some((&sel, code)) = data.split_first() else {
            continue;
        };
        let gpu = Gpu::ALL[sel as usize % Gpu::ALL.len()];
        let program = Decoder::new(gpu, sel & 0x80 != 0).decode_program(code, 0x1000);
        for (_, inst) in program.iter() {
            let _ = inst.to_string();
        }
    }
}

#[test]
fn expressions_decode_and_evaluate() {
    let o = DecodeOptions {
        extensions: Extensions::proposals(),
        ..DecodeOptions::default()
    };
    let st = State::parse(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/state/help_example.ron"),
        )
        .unwrap(),
    )
    .unwrap();
    let (t, ctx) = (st.target().unwrap(), st.context(&o).unwrap());
    for (f, data) in corpus("dwarf_eval") {
        let Some((&sel, bytes)) = data.split_first() else {
            continue;
        };
        let expr = Expr::decode(bytes, &o).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let kind = if sel & 1 != 0 {
            ResultKind::Value
        } else {
            ResultKind::Location
        };
        let opts = EvalOptions {
            decode: o.clone(),
            proposals: true,
            ..EvalOptions::default()
        };
        if let Ok(Outcome::Location(l)) = Evaluator::new(&t, &ctx, opts).evaluate(&expr, kind, &[])
        {
            let _ = read_through(&t, &l, usize::from(sel >> 1));
        }
    }
    for (f, data) in corpus("dwarf_decode") {
        Expr::decode(&data[1..], &DecodeOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
}

#[test]
fn ron_files_parse() {
    for (f, data) in corpus("dispatch_file") {
        let text = String::from_utf8(data).unwrap();
        DispatchFile::parse(&text, "/nonexistent", &f)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
    for (f, data) in corpus("state") {
        let st = State::parse(&String::from_utf8(data).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        st.target().unwrap();
    }
}

#[test]
fn instruction_streams_run_in_a_code_object() {
    use amdgpu_sim::{ArgValue, LaunchConfig};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/bin");
    let bases = [
        std::fs::read(root.join("gfx900/vector_add.co")).unwrap(),
        std::fs::read(root.join("gfx1030/vector_add.co")).unwrap(),
    ];
    for (f, data) in corpus("exec") {
        let Some((&sel, code)) = data.split_first() else {
            continue;
        };
        let mut co = bases[usize::from(sel & 1)].clone();
        let (start, len) = {
            let parsed = amdgpu_codeobj::CodeObject::parse(&co).unwrap();
            let text = parsed.text().bytes;
            (text.as_ptr() as usize - co.as_ptr() as usize, text.len())
        };
        let n = code.len().min(len);
        co[start..start + n].copy_from_slice(&code[..n]);
        let dev = Device::new();
        let module = dev.load(&co).unwrap();
        let mut args: Vec<ArgValue> = (0..3)
            .map(|_| ArgValue::Ptr(dev.alloc(256).unwrap()))
            .collect();
        args.push(ArgValue::U32(u32::from(sel >> 1)));
        let mut cfg = LaunchConfig::new_1d(64, 64, args);
        cfg.max_instructions = 2_000;
        let launch = dev.launch(&module, "vector_add", cfg).unwrap();
        // The seeds are the kernels' own code, with n <= 64 elements of 256-byte
        // buffers: they run to the end.
        let mut wg = launch.workgroup([0, 0, 0]).unwrap();
        wg.run(&launch, &dev.mem)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
}
