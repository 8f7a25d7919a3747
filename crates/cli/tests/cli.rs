//! The built `amdsim` binary: every example that `--help` and the README
//! show runs as printed, usage errors exit with 2 and a suggestion, faults and
//! stops exit with 1 and still write the outputs, and bad input ends in a
//! one-line error in bounded time.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn amdsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amdsim"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run amdsim")
}

/// Held by the tests that run the committed dispatch files, which write
/// their outputs beside them.
static EXAMPLES: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("amdsim-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs a command line as printed (`amdsim ...`) through the shell, in `dir`.
fn shell(line: &str, dir: &Path) -> Output {
    let rest = line.strip_prefix("amdsim ").expect("an amdsim command");
    let bin = env!("CARGO_BIN_EXE_amdsim");
    Command::new("sh")
        .arg("-c")
        .arg(format!("'{bin}' {rest}"))
        .current_dir(dir)
        .output()
        .expect("run sh")
}

fn assert_ok(line: &str, out: &Output) {
    assert!(
        out.status.success(),
        "`{line}` failed ({:?}):\n{}{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// The example command lines of a help text (lines `  amdsim ...`).
fn help_examples(help: &str) -> Vec<String> {
    help.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("amdsim ") && !l.contains("..."))
        .map(str::to_string)
        .collect()
}

#[test]
fn version_and_help() {
    let out = amdsim(&["--version"]);
    assert_ok("--version", &out);
    assert!(text(&out.stdout).starts_with("amdsim "));
    for sub in [
        "demo",
        "run",
        "info",
        "disasm",
        "dwarf",
        "dwarf eval",
        "dwarf vars",
    ] {
        let mut args: Vec<&str> = sub.split(' ').collect();
        args.push("--help");
        let out = amdsim(&args);
        assert_ok(sub, &out);
        assert!(text(&out.stdout).contains("Usage: amdsim"), "{sub}");
    }
    let help = text(&amdsim(&["--help"]).stdout);
    assert!(help.contains("Exit codes"), "{help}");
}

#[test]
fn usage_errors_exit_2_with_a_suggestion() {
    let out = amdsim(&["run", "--gird", "4", "x.co", "k"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("'--grid'"), "{err}");
    assert_eq!(amdsim(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(
        amdsim(&["run", "--grid", "0", "x.co", "k"]).status.code(),
        Some(2)
    );
    assert_eq!(
        amdsim(&[
            "run",
            "kernels/bin/gfx900/vector_add.co",
            "vector_add",
            "q9:1"
        ])
        .status
        .code(),
        Some(2)
    );
    assert_eq!(
        amdsim(&["disasm", "--raw", "--mcpu=gfx42", "README.md"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn readme_examples_run_as_printed() {
    let _g = EXAMPLES.lock().unwrap_or_else(|e| e.into_inner());
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme
        .split("### Examples")
        .nth(1)
        .expect("README has an Examples section");
    let section = section.split("\n#").next().unwrap_or(section);
    let lines: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("    "))
        .filter(|l| l.starts_with("amdsim "))
        .collect();
    assert!(lines.len() >= 8, "{lines:?}");
    for line in lines {
        let out = shell(line, &root());
        assert_ok(line, &out);
    }
    // The dispatch file's output holds a + b.
    let c = std::fs::read(root().join("kernels/examples/c.out.bin")).unwrap();
    let a = std::fs::read(root().join("kernels/examples/a.bin")).unwrap();
    let b = std::fs::read(root().join("kernels/examples/b.bin")).unwrap();
    let f = |v: &[u8], i: usize| f32::from_le_bytes(v[i * 4..i * 4 + 4].try_into().unwrap());
    for i in 0..1000 {
        assert_eq!(f(&c, i), f(&a, i) + f(&b, i));
    }
}

#[test]
fn help_examples_run_as_printed() {
    let _g = EXAMPLES.lock().unwrap_or_else(|e| e.into_inner());
    let mut ran = 0;
    for sub in [&["run", "--help"][..], &["disasm", "--help"]] {
        let help = text(&amdsim(sub).stdout);
        for line in help_examples(&help) {
            let line = line.replace("code.bin", "kernels/examples/a.bin");
            assert_ok(&line, &shell(&line, &root()));
            ran += 1;
        }
    }
    // `dwarf eval --help`: the state file example, saved exactly as printed,
    // serves the examples that name it.
    let help = text(&amdsim(&["dwarf", "eval", "--help"]).stdout);
    let state = help
        .split("every field optional:\n")
        .nth(1)
        .and_then(|s| s.split("\n(registers by name").next())
        .expect("the help shows a state file");
    let dir = scratch("state");
    std::fs::write(dir.join("state.ron"), state).unwrap();
    let examples = help_examples(&help);
    assert!(examples.iter().any(|e| e.contains("state.ron")));
    for line in examples {
        let out = shell(&line, &dir);
        assert_ok(&line, &out);
        ran += 1;
    }
    let out = shell(
        "amdsim dwarf eval --state state.ron --read 4 'DW_OP_const2u 0x8000'",
        &dir,
    );
    assert!(
        text(&out.stdout).contains("read 4:    2a 00 00 00"),
        "{}",
        text(&out.stdout)
    );
    assert!(ran >= 8, "{ran} examples");
}

#[test]
fn a_fault_exits_1_and_still_writes_the_outputs() {
    let dir = scratch("fault");
    let out_file = dir.join("c.bin");
    let out = amdsim(&[
        "run",
        "kernels/bin/gfx900/vector_add.co",
        "vector_add",
        "f32[320]:iota",
        "f32[320]:fill=1",
        "f32[64]",
        "u32:320",
        "--max-faults=2",
        "--output",
        &format!("2={}", out_file.display()),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("fault 1 of 4"), "{err}");
    assert!(err.contains("group (1,0,0) wave 0"), "{err}");
    assert!(err.contains("lane 0"), "{err}");
    assert!(err.contains("global_store_dword"), "{err}");
    assert!(err.contains("and 2 more fault"), "{err}");
    let c = std::fs::read(&out_file).unwrap();
    assert_eq!(c.len(), 256);
    assert_eq!(f32::from_le_bytes(c[40..44].try_into().unwrap()), 11.0);
}

#[test]
fn runaway_kernels_stop_and_say_where() {
    let start = Instant::now();
    let out = amdsim(&[
        "run",
        "kernels/bin/gfx1030/asm_salu_loop.co",
        "asm_salu_loop",
        "u32[256]",
        "u32:4294967295",
        "--timeout=0.5",
        "--max-instructions=100000000000",
    ]);
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("wall-clock limit of 0.5 s"), "{err}");
    assert!(err.contains("at pc 0x"), "{err}");
    let out = amdsim(&[
        "run",
        "kernels/bin/gfx1030/asm_salu_loop.co",
        "asm_salu_loop",
        "u32[256]",
        "u32:4294967295",
        "--max-insts",
        "10000",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("instruction limit of 10000"));
}

#[test]
fn a_typo_in_a_dispatch_file_names_its_place() {
    let dir = scratch("typo");
    let f = dir.join("typo.ron");
    std::fs::write(
        &f,
        "(\n  code_object: \"x.co\",\n  kernel: \"k\",\n  gird: (1, 1, 1),\n)\n",
    )
    .unwrap();
    let out = amdsim(&["run", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("typo.ron:4:"), "{err}");
    assert!(err.contains("gird"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
