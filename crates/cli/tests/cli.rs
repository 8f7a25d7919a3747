//! The built `amdsim` binary: every example that `--help` and the README
//! show runs as printed, usage errors exit with 2 and a suggestion, faults and
//! stops exit with 1 and still write the outputs, and bad input ends in a
//! one-line error in bounded time.

use amdsim_sim_tests::ScratchDir;
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

/// `amdsim debug -batch` with each of `cmds` as an `-ex`, on `dispatch` (a dispatch file,
/// or a code object, a kernel and its arguments).
fn debug_batch(cmds: &[&str], dispatch: &[&str]) -> Output {
    let mut args = vec!["debug", "-batch"];
    for c in cmds {
        args.extend(["-ex", c]);
    }
    args.extend_from_slice(dispatch);
    amdsim(&args)
}

/// Held by the tests that run the committed dispatch files, which write
/// their outputs beside them.
pub(crate) static EXAMPLES: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh directory for one test, removed when the test passes (see [`ScratchDir`]).
fn scratch(name: &str) -> ScratchDir {
    ScratchDir::new(&format!("amdsim-cli-{name}-"))
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
        "lanes",
        "step",
        "debug",
        "dap",
        "annotate-lanes",
        "isa",
        "isa coverage",
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
    for sub in [
        &["run", "--help"][..],
        &["disasm", "--help"],
        &["lanes", "--help"],
        &["step", "--help"],
        &["debug", "--help"],
        &["annotate-lanes", "--help"],
        &["isa", "coverage", "--help"],
    ] {
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
    // On one thread, --stop-on-fault ends the run at the first fault.
    let out = amdsim(&[
        "run",
        "kernels/bin/gfx900/vector_add.co",
        "vector_add",
        "f32[320]:iota",
        "f32[320]:fill=1",
        "f32[64]",
        "u32:320",
        "--threads=1",
        "--stop-on-fault",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("fault 1 of 1"), "{err}");
    assert!(err.contains("stopped at the first fault"), "{err}");
}

#[test]
fn a_printf_kernel_says_hostcall_is_not_provided() {
    let out = amdsim(&[
        "run",
        "kernels/examples/printf_hello.gfx900.co",
        "printf_hello",
        "u32[]:5,6",
        "--grid=2",
        "--group=2",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("fault 1 of 1"), "{err}");
    assert!(err.contains("hidden_hostcall_buffer"), "{err}");
    assert!(err.contains("printf"), "{err}");
    // An ordinary fault of a kernel without hostcall has no such note.
    let out = amdsim(&[
        "run",
        "kernels/bin/gfx900/vector_add.co",
        "vector_add",
        "f32[320]:iota",
        "f32[320]:fill=1",
        "f32[64]",
        "u32:320",
    ]);
    assert!(!text(&out.stderr).contains("hostcall"));
}

/// OpenCL printf through the printf buffer: `amdsim run` prints the records of
/// kernels/examples/printf_demo.cl after the dispatch. The expected lines are what PoCL
/// prints for the same source and input (kernels/pocl/host.c, run when this test was
/// written); OpenCL leaves the order of different work-items' output open, so the lines
/// are compared as a set, and each work-item's own lines in order.
#[test]
fn printf_records_are_printed_as_pocl_prints_them() {
    let out = amdsim(&[
        "run",
        "kernels/examples/printf_demo.gfx900.co",
        "printf_demo",
        "i32[]:1,3,4,-7",
        "--grid",
        "4",
        "--group",
        "4",
    ]);
    assert_ok("run printf_demo", &out);
    let t = text(&out.stdout);
    let mut got: Vec<&str> = t
        .lines()
        .filter(|l| l.starts_with("item ") || l.contains('%'))
        .collect();
    let mut want = vec![
        "item 0:     1|1   |0000.333|1.000000e+10|0.125|A|ok",
        "1.000000,2.500000,-3.000000,0.125000 7,-8 %",
        "item 1:     3|3   |0001.000|3.000000e+10|0.375|B|ok",
        "item 3:    -7|fffffff9|-002.333|-7.000000e+10|-0.875|D|ok",
    ];
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want, "{t}");
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

/// Runs amdsim and expects a one-line error, a non-zero exit, and a quick end.
fn refused(args: &[&str], code: i32, want: &str) {
    let start = Instant::now();
    let out = amdsim(args);
    let took = start.elapsed();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: {err}");
    assert!(
        err.trim().lines().count() <= 4,
        "{args:?}: a short error: {err}"
    );
    assert!(took < Duration::from_secs(20), "{args:?} took {took:?}");
}

#[test]
fn bad_dwarf_input_is_bounded() {
    refused(
        &[
            "dwarf",
            "eval",
            "--hex",
            "9020e90b01e807e90be807e807e90bc0843de807",
        ],
        1,
        "at offset 0xd",
    );
    refused(
        &["dwarf", "eval", "--read", "99999999999999", "DW_OP_lit0"],
        2,
        "--read",
    );
    refused(&["dwarf", "eval", "--hex", "90zz"], 1, "not a hex digit");
    refused(&["dwarf", "decode", "9020 e9x0"], 1, "not a hex digit");
    // A partial decode prints what decoded, then fails (before: exit 0).
    let o = amdsim(&["dwarf", "decode", "9020e90b01"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).contains("<decoding error> e9 0b 01"));
    assert!(
        text(&o.stderr).contains("do not decode completely"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn bad_grids_and_buffers_are_refused() {
    let co = "kernels/bin/gfx900/vector_add.co";
    let args = ["f32[1]", "f32[1]", "f32[1]", "u32:1"];
    let mut v = vec!["run", co, "vector_add"];
    v.extend(args);
    v.extend(["--grid", "2147483648,2147483648,4", "--group", "1,1,1"]);
    refused(&v, 1, "work-groups");
    refused(
        &[
            "run",
            co,
            "vector_add",
            "u32[4611686018427387904]",
            "f32[1]",
            "f32[1]",
            "u32:1",
        ],
        2,
        "do not fit",
    );
    refused(
        &[
            "run",
            co,
            "vector_add",
            "u8[8589934593]",
            "f32[1]",
            "f32[1]",
            "u32:1",
        ],
        2,
        "do not fit",
    );
    refused(
        &[
            "run",
            co,
            "vector_add",
            "u8[4294967296]",
            "u8[4294967296]",
            "u8[4294967296]",
            "u32:1",
        ],
        1,
        "8 GiB",
    );
    refused(
        &["run", co, "vector_add", "--threads", "100000", "u32:1"],
        2,
        "threads",
    );
}

#[test]
fn bad_code_objects_are_refused() {
    let dir = scratch("codeobj");
    // A program header that claims 64 GiB of memory.
    let mut elf = std::fs::read(root().join("kernels/bin/gfx900/vector_add.co")).unwrap();
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]) as usize;
    let phoff = u64::from_le_bytes(elf[0x20..0x28].try_into().unwrap()) as usize;
    let (phentsize, phnum) = (u16_at(&elf, 0x36), u16_at(&elf, 0x38));
    let load = (0..phnum)
        .map(|i| phoff + i * phentsize)
        .find(|&p| u32::from_le_bytes(elf[p..p + 4].try_into().unwrap()) == 1)
        .expect("a PT_LOAD");
    elf[load + 40..load + 48].copy_from_slice(&(64u64 << 30).to_le_bytes());
    let big = dir.join("big.co");
    std::fs::write(&big, &elf).unwrap();
    let big = big.to_str().unwrap();
    refused(&["run", big, "vector_add", "u32:1"], 1, "big.co");
    refused(&["info", "/dev/zero"], 1, "not a regular file");
    refused(&["disasm", "/dev/zero"], 1, "not a regular file");
    let fifo = dir.join("fifo.co");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        refused(
            &["run", fifo.to_str().unwrap(), "k"],
            1,
            "not a regular file",
        );
    }
}

#[test]
fn ctrl_c_stops_the_run_and_says_where() {
    let child = Command::new(env!("CARGO_BIN_EXE_amdsim"))
        .args([
            "run",
            "kernels/bin/gfx1030/asm_salu_loop.co",
            "asm_salu_loop",
            "u32[256]",
            "u32:4294967295",
            "--max-instructions=100000000000",
        ])
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("interrupted (Ctrl-C)"), "{err}");
    assert!(err.contains("at pc 0x"), "{err}");
}

/// `amdsim lanes` prints one row per lane with the state each lane's input implies
/// (kernels/examples/divergence.ron: in[i] = 1000 + i, n = 90; see lane_lines.rs for the
/// reasoning): even lanes wait at the IF of line 14, lanes with (v & 2) set are active at
/// line 20 in the first iteration, the others wait at line 19 or (no trips) line 18.
#[test]
fn lanes_table_and_errors() {
    let out = amdsim(&[
        "lanes",
        "kernels/examples/divergence.ron",
        "--break",
        "divergence.cl:20",
    ]);
    assert_ok("lanes", &out);
    let t = text(&out.stdout);
    let rows: Vec<Vec<&str>> = t
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 5 && w[0].parse::<u32>().is_ok())
        .collect();
    assert_eq!(rows.len(), 64, "{t}");
    for r in &rows {
        let lane: u32 = r[0].parse().unwrap();
        let v = 1000 + lane;
        let trips = (v + lane) % 13;
        let want = if lane % 2 == 0 {
            ("divergent", ":14")
        } else if trips == 0 {
            ("divergent", ":18")
        } else if v & 2 != 0 {
            ("active", ":20")
        } else {
            ("divergent", ":19")
        };
        assert_eq!((r[1], &r[4][r[4].len() - 3..]), want, "lane {lane}: {r:?}");
    }
    assert!(t.contains("active mask 0x"), "{t}");
    // A line without code names the nearest lines with code.
    let out = amdsim(&[
        "lanes",
        "kernels/examples/divergence.ron",
        "--break",
        "divergence.cl:15",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("nearest lines with code"),
        "{}",
        text(&out.stderr)
    );
    // A wave out of range is a usage error.
    let out = amdsim(&[
        "lanes",
        "kernels/examples/divergence.ron",
        "--break=divergence",
        "--wave=5",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

/// On a code object annotated by `annotate-lanes`, `amdsim lanes` takes the positions from
/// DW_AT_LLVM_lane_pc, walking to the caller's frame through the CFI for the lanes that did
/// not enter the called function, and checks them against the reconstruction. cf_call at
/// -O2 stopped in classify's else-arm (line 31) with in[i] cycling 0x10, 0x50, 0x110
/// (x = v >> 6 is 0, 1, 4: classify returns early, takes the then-arm, the else-arm) and
/// lanes 3..6 = 8, 0, 0x90, 0xc0, which do not call classify: they wait in cf_call (its
/// frame, line 45 or later), the x = 0 lanes at classify's IF (line 25, the arm the
/// structurizer runs second), the then-arm lanes at the join (line 33).
#[test]
fn lanes_from_annotated_dwarf_walk_to_the_caller() {
    let dir = scratch("lanes-dwarf");
    let co = dir.join("cf_call.annotated.co");
    let out = amdsim(&[
        "annotate-lanes",
        &root()
            .join("kernels/bin/gfx900/cf_call.O2g.co")
            .to_string_lossy(),
        &co.to_string_lossy(),
    ]);
    assert_ok("annotate-lanes", &out);
    let mut values: Vec<u32> = (0..64).map(|i| [0x10, 0x50, 0x110][i % 3]).collect();
    values[3..7].copy_from_slice(&[8, 0, 0x90, 0xc0]);
    let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    let ron = dir.join("cf_call.ron");
    std::fs::write(
        &ron,
        format!(
            "(code_object: {:?}, kernel: \"cf_call\", grid: 64, workgroup: 64,\n\
             args: [Buffer(elem: U32, values: [{}]), Buffer(elem: U32, count: 64), U32(64)],\n\
             outputs: [])\n",
            co.to_string_lossy(),
            list.join(", ")
        ),
    )
    .unwrap();
    let out = amdsim(&["lanes", &ron.to_string_lossy(), "--break", "cf_call.cl:31"]);
    assert_ok("lanes", &out);
    let t = text(&out.stdout);
    assert!(
        t.contains("positions from DW_AT_LLVM_lane_pc") && t.contains("the reconstruction agrees"),
        "{t}"
    );
    let rows: Vec<Vec<&str>> = t
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 5 && w[0].parse::<u32>().is_ok())
        .collect();
    assert_eq!(rows.len(), 64, "{t}");
    for r in &rows {
        let lane: usize = r[0].parse().unwrap();
        let line: u32 = r[4].rsplit(':').next().unwrap().parse().unwrap();
        let (state, func, lines) = match values[lane] {
            8 | 0 | 0x90 | 0xc0 => ("divergent", "cf_call", 44..=48),
            0x10 => ("divergent", "classify", 25..=25),
            0x50 => ("divergent", "classify", 33..=33),
            _ => ("active", "classify", 31..=31),
        };
        assert!(
            r[1] == state && r[3] == func && lines.contains(&line),
            "lane {lane} (in {:#x}): {r:?}\n{t}",
            values[lane]
        );
    }
}

/// `print` shows a value as its DWARF type: saxpy at -O0 with a = 2, x[i] = i and
/// y[i] = 0.5 has r = fma(a, x[3], y[3]) = 6.5 in lane 3 (a float, not its bits as an
/// integer), a = 2.0 and the size_t i = 3.
/// Runs `amdsim debug` on a dispatch of `kernel` of the code object at `co` (relative to
/// the repository) over 64 work-items in one group, with `args` (RON) and the commands
/// of `script`; checks it succeeded and returns its standard output.
fn debug_script(name: &str, co: &str, kernel: &str, args: &str, script: &str) -> String {
    let dir = scratch(name);
    let ron = dir.join("dispatch.ron");
    let co = root().join(co);
    std::fs::write(
        &ron,
        format!(
            "(code_object: {:?}, kernel: {kernel:?}, grid: 64, workgroup: 64, args: [{args}], \
             outputs: [])",
            co.to_str().unwrap()
        ),
    )
    .unwrap();
    let cmds = dir.join("cmds");
    std::fs::write(&cmds, script).unwrap();
    let out = amdsim(&[
        "debug",
        ron.to_str().unwrap(),
        "--script",
        cmds.to_str().unwrap(),
    ]);
    assert_ok("debug", &out);
    text(&out.stdout)
}

#[test]
fn debug_print_shows_floats_as_floats() {
    let t = debug_script(
        "debug-print",
        "kernels/bin/gfx900/saxpy.O0g.co",
        "saxpy",
        "F32(2.0), Buffer(elem: F32, count: 64, iota: 0), Buffer(elem: F32, count: 64, \
         fill: 0.5), Buffer(elem: F32, count: 64), U32(64)",
        "break saxpy.cl:14\nrun\nlane 3\nprint r\nprint a\nprint i\nquit\n",
    );
    // gdb's value history: r, a, i of lane 3
    assert!(t.contains("$1 = 6.5\n"), "{t}");
    assert!(t.contains("$2 = 2\n"), "{t}");
    assert!(t.contains("$3 = 3\n"), "{t}");
}

/// `amdsim debug` on a code object without DWARF (asm_call, a called function that hides
/// its return address): breakpoints at functions work, lines are `??`, and after the
/// function has cleared s[30:31] the lanes that did not call it are not-entered. On the
/// annotated cf_call, `info lanes` says the positions come from DW_AT_LLVM_lane_pc.
#[test]
fn debug_without_dwarf_and_with_lane_attributes() {
    let t = debug_script(
        "debug-nodwarf",
        "kernels/bin/gfx900/asm_call.co",
        "asm_call",
        "Buffer(elem: U32, count: 64)",
        "break times3\nrun\nstepi\nstepi\nstepi\ninfo lanes\nquit\n",
    );
    assert!(t.contains("no DWARF"), "{t}");
    assert!(t.contains(" in times3 ()"), "{t}");
    assert_eq!(t.matches("not-entered").count(), 48, "{t}");
    assert!(!t.contains("DW_AT_LLVM_lane_pc"), "{t}");

    let t = debug_script(
        "debug-annotated",
        "sim-tests/scenarios/annotated/gfx900/cf_call.O0g.co",
        "cf_call",
        "Buffer(elem: U32, count: 64, iota: 0), Buffer(elem: U32, count: 64), U32(64)",
        "break classify\nrun\ninfo lanes\nquit\n",
    );
    assert!(t.contains("positions from DW_AT_LLVM_lane_pc"), "{t}");
    assert!(!t.contains("warning"), "{t}");
}

/// `amdsim debug` reads commands from a script: the breakpoint stops lane 3 (odd, v =
/// 1003 with bit 1 set: the then-arm) at line 20, `print lid` reads its local id, `step`
/// takes it to its next line; an unknown command is an error and the exit code 1.
#[test]
fn debug_session_from_a_script() {
    let dir = scratch("debug");
    let script = dir.join("cmds");
    std::fs::write(
        &script,
        "break divergence.cl:20\nrun\nlane 3\nprint lid\nstep\ninfo lanes -active\nquit\n",
    )
    .unwrap();
    let out = amdsim(&[
        "debug",
        "kernels/examples/divergence.ron",
        "--script",
        script.to_str().unwrap(),
    ]);
    assert_ok("debug", &out);
    let t = text(&out.stdout);
    assert!(t.contains("hit Breakpoint 1, with lanes [3 11 15"), "{t}");
    assert!(t.contains("at kernels/src/divergence.cl:20"), "{t}");
    assert!(t.contains("$1 = 3\n"), "{t}");
    // Only the odd lanes of the then-arm are active at the stop.
    assert!(t.contains("active mask 0x"), "{t}");
    std::fs::write(&script, "break divergence.cl:20\nfoo\nquit\n").unwrap();
    let out = amdsim(&[
        "debug",
        "kernels/examples/divergence.ron",
        "--script",
        script.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("unknown command `foo`"));
}

#[test]
fn isa_coverage_lists_operations_and_counts() {
    let out = amdsim(&["isa", "coverage", "--mcpu", "gfx906"]);
    assert_ok("isa coverage --mcpu gfx906", &out);
    let t = text(&out.stdout);
    let line = |name: &str| {
        t.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no line for {name}:\n{t}"))
            .to_string()
    };
    let add = line("v_add_f32");
    assert!(add.contains("VOP2") && add.contains("executed"), "{add}");
    let sample = line("image_sample_b");
    assert!(
        sample.contains("MIMG") && sample.contains("graphics-only") && sample.contains("sampling"),
        "{sample}"
    );
    // Point sampling executes.
    assert!(line("image_sample_lz").contains("executed"));
    assert!(line("exp").contains("graphics-only"));
    // The summary counts the lines.
    let ops = t.lines().skip(2).count() - 1;
    let last = t.lines().last().unwrap();
    assert!(
        last.starts_with(&format!("gfx906: {ops} operations: ")),
        "{last}"
    );
    // --missing drops the executed operations.
    let missing = text(&amdsim(&["isa", "coverage", "--mcpu=gfx906", "--missing"]).stdout);
    assert!(!missing.contains("v_add_f32"));
    assert!(missing.contains("image_sample"));
    // Every target: one line each after the header.
    let all = amdsim(&["isa", "coverage"]);
    assert_ok("isa coverage", &all);
    let all = text(&all.stdout);
    assert_eq!(all.lines().count(), 7, "{all}");
    assert!(all.lines().any(|l| l.starts_with("gfx1030 ")), "{all}");
    // Wave32 exists on GFX10 only.
    assert_ok(
        "--wavefront-size 32",
        &amdsim(&[
            "isa",
            "coverage",
            "--mcpu",
            "gfx1010",
            "--wavefront-size",
            "32",
        ]),
    );
    assert_eq!(
        amdsim(&[
            "isa",
            "coverage",
            "--mcpu",
            "gfx900",
            "--wavefront-size",
            "32"
        ])
        .status
        .code(),
        Some(2)
    );
    assert_eq!(
        amdsim(&["isa", "coverage", "--mcpu", "gfx42"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn gws_sets_resources_before_a_cooperative_dispatch() {
    // A grid barrier over 4 work-groups: resource 0 starts at 3, and every
    // work-item ends with the value written 64 + 128 + 192 work-items on.
    let dir = scratch("gws");
    let out_file = dir.join("out.bin");
    let out = amdsim(&[
        "run",
        "kernels/bin/gfx1030/gds_sync.co",
        "gws_grid_barrier",
        "u32[256]",
        "u32[256]",
        "u32:3",
        "--gws",
        "0=3",
        "--output",
        &format!("1={}", out_file.display()),
    ]);
    assert_ok("run gws_grid_barrier --gws 0=3", &out);
    let got = std::fs::read(&out_file).unwrap();
    for i in 0..256u32 {
        let src = (i + 64 + 128 + 192) % 256;
        let want = 7 * src + 1 + 1 + 2;
        let v = u32::from_le_bytes(got[4 * i as usize..4 * i as usize + 4].try_into().unwrap());
        assert_eq!(v, want, "out[{i}]");
    }
    // One arrival too many expected: a deadlock, reported per work-group.
    let out = amdsim(&[
        "run",
        "kernels/bin/gfx1030/gds_sync.co",
        "gws_grid_barrier",
        "u32[256]",
        "u32[256]",
        "u32:3",
        "--gws=0=4",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("waits on GWS barrier 0"),
        "{}",
        text(&out.stderr)
    );
    let out = amdsim(&[
        "run",
        "kernels/bin/gfx1030/gds_sync.co",
        "gws_init",
        "u32:1",
        "u32:0",
        "--gws",
        "64=1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("there are 64"),
        "{}",
        text(&out.stderr)
    );
}

/// A reader that goes away after the first lines (`| head`) ends amdsim
/// quietly, as it ends llvm-objdump: no panic, nothing on stderr. (Before:
/// exit 101 and "failed printing to stdout: Broken pipe".)
#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    for args in [
        &["disasm", "kernels/bin/gfx900/workgroup_ops.O0g.co"][..],
        &["run", "kernels/examples/vector_add.ron", "--show", "0"],
        &["demo"],
    ] {
        let _g = EXAMPLES.lock().unwrap_or_else(|e| e.into_inner());
        let mut child = Command::new(env!("CARGO_BIN_EXE_amdsim"))
            .args(args)
            .current_dir(root())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "{args:?} printed nothing");
        drop(out);
        let o = child.wait_with_output().unwrap();
        let stderr = text(&o.stderr);
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "{args:?}: {stderr}"
        );
        use std::os::unix::process::ExitStatusExt;
        assert!(
            o.status.success() || o.status.signal() == Some(13),
            "{args:?}: {:?}",
            o.status
        );
    }
}

/// The demo's kernel is part of the binary: a copy of `amdsim` elsewhere,
/// run from elsewhere, runs it, and no build path shows in the output.
/// (Before: the kernel was found through a path compiled into the binary.)
#[test]
fn demo_runs_from_a_copied_binary() {
    let dir = scratch("copied");
    let exe = dir.join("amdsim");
    std::fs::copy(env!("CARGO_BIN_EXE_amdsim"), &exe).unwrap();
    // Another test's child forked while the copy was open for writing keeps
    // it open a moment ("text file busy"): try again.
    let mut tries = 0;
    let out = loop {
        match Command::new(&exe).arg("demo").current_dir(&dir).output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 100 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            r => break r.unwrap(),
        }
    };
    assert_ok("copied amdsim demo", &out);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("c = a + b holds for all 1000 elements"),
        "{stdout}"
    );
    assert!(
        !stdout.contains(env!("CARGO_MANIFEST_DIR")),
        "a build path shows:\n{stdout}"
    );
    assert!(stdout.contains("vector_add.co (built in"), "{stdout}");
}

/// A 64 GiB sparse file given as a buffer is refused from its size, before a
/// byte is read, in one line with the sizes. (Before: read until memory ran
/// out.)
#[test]
fn a_huge_buffer_file_is_refused_from_its_size() {
    let dir = scratch("huge");
    let path = dir.join("huge.bin");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(64 << 30)
        .unwrap();
    let arg = format!("f32[]:@{}", path.display());
    let t = std::time::Instant::now();
    let out = amdsim(&[
        "run",
        "kernels/bin/gfx900/vector_add.co",
        "vector_add",
        &arg,
        "f32[4]",
        "f32[4]",
        "u32:4",
    ]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("68719476736 bytes is more than"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "took {:?}",
        t.elapsed()
    );
}

/// An argument that does not fit the metadata is refused with what the
/// kernel declares and what was given (before: it ran silently), and the
/// output names arguments as the metadata does.
#[test]
fn arguments_are_checked_against_the_metadata_and_named() {
    let co = "kernels/bin/gfx900/vector_add.co";
    refused(
        &[
            "run",
            co,
            "vector_add",
            "f64[40]",
            "f32[4]",
            "f32[4]",
            "u32:4",
        ],
        1,
        "argument 0: the kernel declares `float*`, but a buffer of f64 was given",
    );
    refused(
        &[
            "run",
            co,
            "vector_add",
            "f32[4]",
            "f32[4]",
            "f32[4]",
            "f32:40",
        ],
        1,
        "argument 3: the kernel declares `uint`, but a value f32 was given",
    );
    refused(
        &[
            "run",
            co,
            "vector_add",
            "u32:4",
            "f32[4]",
            "f32[4]",
            "u32:4",
        ],
        1,
        "the kernel declares `float*`, but the value u32 was given",
    );
    let out = amdsim(&[
        "run",
        "kernels/bin/gfx900/asm_branches.co",
        "asm_branches",
        "u32[64]:iota",
        "u32[64]",
        "u32:64",
        "--show",
        "2",
    ]);
    assert_ok("asm_branches", &out);
    let s = text(&out.stdout);
    assert!(s.contains("arg 0 `in` (64 x u32)"), "{s}");
    assert!(s.contains("arg 1 `out` (64 x u32)"), "{s}");
}

/// A fault report gives the PC as the code object's address, the one
/// `amdsim disasm` (and llvm-objdump) shows for the instruction, and the
/// summary says how many work-groups completed and faulted. (Before: the
/// load address `0x7f000000197c`, and `0 work-groups`.)
#[test]
fn fault_reports_use_the_code_objects_addresses() {
    let co = "kernels/bin/gfx900/vector_add.co";
    let out = amdsim(&[
        "run",
        co,
        "vector_add",
        "ptr:16",
        "f32[4]",
        "f32[4]",
        "u32:4",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    let disasm = text(&amdsim(&["disasm", co]).stdout);
    let line = disasm
        .lines()
        .find(|l| l.contains("global_load_dword v6, v[4:5], off"))
        .expect("the faulting load in the listing");
    let addr = line.split("// ").nth(1).unwrap().split(':').next().unwrap();
    let pc = u64::from_str_radix(addr.trim(), 16).unwrap();
    assert!(
        err.contains(&format!("pc {pc:#x} `global_load_dword v6, v[4:5], off`")),
        "{err}"
    );
    assert!(
        text(&out.stdout).contains("0 of 1 work-groups completed (1 faulted)"),
        "{}",
        text(&out.stdout)
    );
}

/// With DWARF, a fault report and a stop report name the source line of the PC, as the
/// line table gives it (llvm-symbolizer's answer): the load of `a[i]` faults when `a` is
/// the unmapped address 16, and that load is on the line `c[i] = a[i] + b[i];` of
/// vector_add.cl. Without DWARF the report gives the PC alone.
#[test]
fn fault_reports_name_the_source_line() {
    let source = std::fs::read_to_string(root().join("kernels/src/vector_add.cl")).unwrap();
    let line = 1 + source
        .lines()
        .position(|l| l.contains("c[i] = a[i] + b[i];"))
        .expect("the statement in vector_add.cl");
    let run = |co: &str, extra: &[&str]| {
        let mut args = vec!["run", co, "vector_add"];
        args.extend_from_slice(extra);
        let out = amdsim(&args);
        assert_eq!(out.status.code(), Some(1));
        text(&out.stderr)
    };
    let args = ["ptr:16", "f32[4]", "f32[4]", "u32:4"];
    let err = run("kernels/bin/gfx900/vector_add.O2g.co", &args);
    let at = format!("off` at kernels/src/vector_add.cl:{line}\n");
    assert!(err.contains(&at), "{err}");
    let err = run("kernels/bin/gfx900/vector_add.co", &args);
    assert!(
        err.contains("off`\n") && !err.contains(" at kernels/"),
        "{err}"
    );
    // A stop: the instruction cap finds the wave at its 30th instruction, the addition
    // of `a[i]` and `b[i]` (the kernel runs straight through for i < n), on the same
    // line; the stop and the unfinished wave both say so.
    let err = run(
        "kernels/bin/gfx900/vector_add.O2g.co",
        &[
            "f32[4]",
            "f32[4]",
            "f32[4]",
            "u32:4",
            "--max-instructions",
            "30",
        ],
    );
    let at = format!("`v_add_f32_e32 v2, v6, v7` at kernels/src/vector_add.cl:{line}");
    let stopped = err
        .lines()
        .find(|l| l.starts_with("stopped:"))
        .unwrap_or("");
    assert!(stopped.contains(&at), "{err}");
    let wave = err
        .lines()
        .find(|l| l.contains("wave 0 Running"))
        .unwrap_or("");
    assert!(wave.contains(&at), "{err}");
}

/// `amdsim lanes` and `amdsim debug` take a dispatch as `amdsim run` does:
/// FILE.co KERNEL ARG... gives the same answer as the dispatch file of the
/// same dispatch; a file of the wrong kind is named as such. (Before: only a
/// dispatch file, and a code object gave "invalid utf-8 sequence".)
#[test]
fn lanes_and_debug_take_a_code_object_and_arguments() {
    let co = [
        "kernels/bin/gfx900/divergence.O2g.co",
        "divergence",
        "u32[100]:iota=1000",
        "u32[100]",
        "u32:90",
    ];
    let by_file = amdsim(&[
        "lanes",
        "kernels/examples/divergence.ron",
        "--break",
        "divergence.cl:20",
    ]);
    let mut args = vec!["lanes"];
    args.extend(co);
    args.extend(["--break", "divergence.cl:20"]);
    let by_args = amdsim(&args);
    assert_ok("lanes FILE.co", &by_args);
    assert_eq!(text(&by_args.stdout), text(&by_file.stdout));
    let mut args = vec!["debug"];
    args.extend(co);
    args.extend(["--script", "kernels/examples/divergence.cmds"]);
    let out = amdsim(&args);
    assert_ok("debug FILE.co", &out);
    assert!(
        text(&out.stdout).contains("divergence.cl:20\n20\t"),
        "{}",
        text(&out.stdout)
    );
    let dir = scratch("kind");
    let fake = dir.join("x.ron");
    std::fs::copy(root().join("kernels/bin/gfx900/vector_add.co"), &fake).unwrap();
    for cmd in ["debug", "lanes", "run"] {
        let mut a = vec![cmd, fake.to_str().unwrap()];
        if cmd == "lanes" {
            a.extend(["--break", "1"]);
        }
        let o = amdsim(&a);
        assert_eq!(o.status.code(), Some(1), "{cmd}");
        assert!(
            text(&o.stderr).contains("is not a dispatch file but an ELF file"),
            "{cmd}: {}",
            text(&o.stderr)
        );
    }
}

/// `amdsim disasm` takes llvm-objdump's `-d` and `--no-show-raw-insn` and
/// prints what llvm-objdump-19 prints with them (AMDGPU keeps the words);
/// `--mcpu` decodes a code object as that processor; a missing symbol is a
/// warning as llvm-objdump gives it. (Before: the flags were refused, --mcpu
/// ignored, and a missing symbol printed nothing.) The listings are compared
/// with llvm-objdump-19's when it is installed.
#[test]
fn disasm_takes_llvm_objdumps_flags() {
    let co = "kernels/bin/gfx900/vector_add.co";
    let plain = amdsim(&["disasm", co]);
    let flags = amdsim(&["disasm", "-d", "--no-show-raw-insn", co]);
    assert_ok("disasm -d --no-show-raw-insn", &flags);
    assert_eq!(text(&flags.stdout), text(&plain.stdout));
    let as_1030 = amdsim(&["disasm", "--mcpu=gfx1030", co]);
    assert_ok("disasm --mcpu", &as_1030);
    assert_ne!(
        text(&as_1030.stdout),
        text(&plain.stdout),
        "--mcpu was ignored"
    );
    let missing = amdsim(&["disasm", "--disassemble-symbols=missing", co]);
    assert_ok("missing symbol", &missing);
    assert!(
        text(&missing.stderr).contains("failed to disassemble missing symbol missing"),
        "{}",
        text(&missing.stderr)
    );
    assert!(!text(&missing.stdout).contains("Disassembly of section"));
    let objdump = |args: &[&str]| {
        Command::new("llvm-objdump-19")
            .args(args)
            .current_dir(root())
            .output()
            .ok()
            .filter(|o| o.status.success())
    };
    if let Some(o) = objdump(&["-d", "--no-show-raw-insn", co]) {
        assert_eq!(text(&o.stdout), text(&flags.stdout));
    }
    if let Some(o) = objdump(&["-d", "--mcpu=gfx1030", co]) {
        assert_eq!(text(&o.stdout), text(&as_1030.stdout));
    }
}

/// Usage errors speak as every other error does: `amdsim: ...` (before:
/// clap's `error: ...` beside amdsim's own `amdsim: ...`), exit 2, with
/// clap's suggestion and usage kept.
#[test]
fn usage_errors_use_the_same_prefix() {
    let out = amdsim(&["run", "--gird", "4", "x.co", "k"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("amdsim: unexpected argument '--gird'"),
        "{err}"
    );
    assert!(
        err.contains("'--grid'") && err.contains("Usage: amdsim run"),
        "{err}"
    );
    let out = amdsim(&["exec", "--gpu", "gfx803", "--", "/bin/true"]);
    assert!(
        text(&out.stderr).starts_with("amdsim: "),
        "{}",
        text(&out.stderr)
    );
}

/// The help texts of `step` and `annotate-lanes` are wrapped (they were one
/// line of 200 and 560 characters); their descriptions stay under 100
/// columns.
#[test]
fn long_help_texts_are_wrapped() {
    for sub in ["step", "annotate-lanes", "dwarf eval", "isa coverage"] {
        let mut args: Vec<&str> = sub.split(' ').collect();
        args.push("--help");
        let help = text(&amdsim(&args).stdout);
        let after = help.split("\nOptions:").nth(1).unwrap_or(&help);
        // (dwarf eval's help holds a state file, whose lines are kept whole.)
        let lines = after
            .lines()
            .filter(|l| sub != "dwarf eval" && !l.starts_with("  -") && !l.starts_with("      "));
        for line in lines {
            assert!(line.len() <= 100, "{sub}: {} columns: {line}", line.len());
        }
        assert!(help.starts_with(|c: char| c.is_uppercase()), "{sub}");
        let usage = help.find("Usage:").unwrap();
        assert!(usage < 200, "{sub}: Usage comes first");
    }
}

/// The README's picture is what `amdsim lanes ... --svg` draws today (the
/// command its caption shows).
#[test]
fn the_readme_picture_is_current() {
    let _g = EXAMPLES.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("picture");
    let out = dir.join("divergence.svg");
    let o = amdsim(&[
        "lanes",
        "kernels/examples/divergence.ron",
        "--break",
        "divergence.cl:20",
        "--svg",
        out.to_str().unwrap(),
    ]);
    assert_ok("lanes --svg", &o);
    let now = std::fs::read_to_string(&out).unwrap();
    let committed =
        std::fs::read_to_string(root().join("kernels/examples/divergence.svg")).unwrap();
    assert!(
        now == committed,
        "kernels/examples/divergence.svg is stale: regenerate it with the command in README.md's caption"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("](kernels/examples/divergence.svg)"));
}

/// Program-scope variables are read where the loader put them: const_tables.cl's
/// `__constant` tables are data objects of the code object (`crc_table` at 0x9c0,
/// `sbox` at 0xdc0 in its symbol table), loaded at the dispatch's load bias
/// 0x7f00_0000_0000. Values from the source's macros: the reflected CRC-32 table
/// (`crc_table[1]` = 0x77073096, `[255]` = 0x2d02ef8d) and `sbox[x]` = (x * 167 + 13)
/// mod 256 (13, 180 = 0xb4). A pointer into a data object names it, as gdb's
/// `<crc_table>`. Before, `DW_OP_addr` was not relocated: `p crc_table[1]` failed as
/// unmapped and `p &crc_table` printed the link-time 0x9c0.
#[test]
fn debug_reads_program_scope_variables_where_they_are_loaded() {
    let cmds = [
        "break const_tables",
        "run",
        "p crc_table[1]",
        "p/x crc_table[255]",
        "p &crc_table",
        "p sbox[1]",
        "x/2xb sbox",
        "x/4xw crc_table",
    ];
    let out = debug_batch(
        &cmds,
        &[
            "kernels/bin/gfx900/const_tables.O0g.co",
            "const_tables",
            "u32[64]:iota=1",
            "u32[64]",
            "u32[16]:iota=0",
            "u32:64",
        ],
    );
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}");
    for want in [
        "$1 = 1996959894\n",
        "$2 = 0x2d02ef8d\n",
        "$3 = (unsigned int (*)[256]) 0x7f00000009c0 <crc_table>\n",
        "$4 = 180 '\\264'\n",
        "0x7f0000000dc0:\t0x0d\t0xb4\n",
        "0x7f00000009c0:\t0x00000000\t0x77073096\t0xee0e612c\t0x990951ba\n",
    ] {
        assert!(t.contains(want), "no `{want}` in\n{t}");
    }
}

/// gdb's string literals and convenience functions `$_streq`/`$_strlen` in conditions,
/// as ROCgdb's shared-memory.exp picks a wave by `$_streq($_dispatch_pos, ...)`: lane 11
/// (work-item [11,0,0]) is among the odd lanes that reach line 20 first, and the only
/// lane whose position string is "[11,0,0]", so it is the one lane named.
#[test]
fn debug_conditions_compare_strings() {
    let cmds = [
        "break divergence.cl:20 if $_streq($_lane_workgroup_pos, \"[11,0,0]\")",
        "run",
        "p $_lane",
        "p $_streq($_dispatch_pos, \"(0,0,0)/0\")",
        "p $_streq(\"a\", \"b\")",
        "p $_strlen(\"abc\")",
        "p $_streq(1, 2)",
    ];
    let out = debug_batch(&cmds, &["kernels/examples/divergence.ron"]);
    let t = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "the last command fails\n{t}");
    for want in [
        "hit Breakpoint 1, with lane 11, divergence (",
        "$1 = 11\n",
        "(0,0,0)/0\")\n$2 = 1\n",
        "$3 = 0\n",
        "$4 = 3\n",
        "You must provide an argument of type string to $_streq.",
    ] {
        assert!(t.contains(want), "no `{want}` in\n{t}");
    }
}

/// Registers of a caller's frame are the caller's, or `<not saved>`: in call_chain (-O0)
/// stopped in f5, frame 1 is f4 at the return address `bt` shows; its stack pointer is
/// what f5's prologue copied into f5's frame pointer (`s_mov_b32 s33, s32`), and s4,
/// v0, EXEC, VCC, which f5 may write, are not saved. Before, `p $s4` in frame 1 printed
/// f5's value.
#[test]
fn debug_registers_of_a_callers_frame() {
    let cmds = [
        "break f5",
        "run",
        "bt 2",
        "p $fp",
        "info registers s4",
        "up",
        "p $pc",
        "p $sp",
        "p $s4",
        "info registers s4 v0 exec sp",
        "info registers",
    ];
    let out = debug_batch(
        &cmds,
        &[
            "kernels/bin/gfx900/call_chain.O0g.co",
            "call_chain",
            "u32[64]:iota",
            "u32[64]",
            "u32:64",
        ],
    );
    let t = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "`p $s4` in frame 1 fails\n{t}");
    let value = |k: usize| -> String {
        let key = format!("${k} = ");
        let line = t
            .lines()
            .find(|l| l.starts_with(&key))
            .unwrap_or_else(|| panic!("no ${k} in\n{t}"));
        line[key.len()..].to_string()
    };
    let ret = t
        .lines()
        .find_map(|l| l.strip_prefix("#1  0x"))
        .and_then(|l| l.split(' ').next())
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .unwrap_or_else(|| panic!("no frame #1 in\n{t}"));
    let fp_f5 = value(1);
    // The return address, named as gdb names a code address: the caller, f4, plus the
    // offset from its entry.
    let caller = t
        .lines()
        .find_map(|l| l.strip_prefix("#1  0x"))
        .and_then(|l| l.split(" in ").nth(1))
        .and_then(|l| l.split(' ').next())
        .unwrap_or_default();
    assert_eq!(caller, "f4", "{t}");
    assert!(
        value(2).starts_with(&format!("(void (*)()) {ret:#x} <f4+")),
        "{t}"
    );
    assert_eq!(value(3), fp_f5, "f4's $sp is f5's $fp\n{t}");
    for want in [
        "s4 <not saved>: a function called from",
        "s4             <not saved>\nv0             <not saved>\nexec           <not saved>\nsp             0x",
        "scc            <not saved>\nm0             <not saved>\n",
    ] {
        assert!(t.contains(want), "no `{want}` in\n{t}");
    }
    // frame 0's s4 has a value (a row with its hex)
    assert!(
        t.contains("(amdsim) info registers s4\ns4             0x"),
        "{t}"
    );
}

/// `amdsim debug` speaks gdb's and ROCgdb's language: `-batch -ex CMD`, numbered
/// breakpoints with hit counts, `tbreak`, counts, ROCgdb's target ids, `info lanes`
/// state letters, `lane N` errors, convenience variables and `print/FMT` with the value
/// history. (Before: `stepi 5` took one step, breakpoints had no numbers, `p $exec`,
/// `p $_lane` and `p/x` failed.)
#[test]
fn debug_speaks_gdb() {
    let cmds = [
        "break divergence.cl:20",
        "tbreak divergence.cl:14",
        "info breakpoints",
        "run",
        "continue",
        "info breakpoints",
        "p/x $exec",
        "p $_lane",
        "p $_lane_count",
        "p $_dispatch_pos",
        "p $_lane_workgroup_pos",
        "p lid",
        "p",
        "lane 64",
        "lane 0",
        "info lanes 0-3",
        "info threads",
        "stepi 3",
        "p $pc",
        "lane 3",
        "p $v0", // $9: lane 3's element of v0
        "lane 0",
        "p $v0[3] - $9", // $10 = 0: the same element, named from lane 0
        "info registers exec",
        "frobnicate",
    ];
    let out = debug_batch(&cmds, &["kernels/examples/divergence.ron"]);
    let t = text(&out.stdout);
    // one command (frobnicate) failed: batch mode exits 1
    assert_eq!(out.status.code(), Some(1), "{t}");
    for want in [
        "Breakpoint 1 at 0x1a00: file kernels/src/divergence.cl, line 20.",
        "Temporary breakpoint 2 at 0x",
        "Num     Type           Disp Enb Address            What\n",
        "2       breakpoint     del  y   0x0000000000001970 in divergence at kernels/src/divergence.cl:14\n",
        "Thread 1 \"divergence\" hit Temporary breakpoint 2, with lanes [0-63], divergence (",
        "Thread 1 \"divergence\" hit Breakpoint 1, with lanes [3 11 15 19",
        "\tbreakpoint already hit 1 time\n",
        "$1 = 0x8088888888888808\n",
        "$2 = 3\n",
        "$3 = 64\n",
        "$4 = \"(0,0,0)/0\"\n",
        "$5 = \"[3,0,0]\"\n",
        "$6 = 3\n",
        "$7 = 3\n",
        "Lane 64 does not exist on this thread.",
        // ROCgdb (lane-execution.exp): the warning, then the frame and its line
        "(amdsim) lane 0\n[Switching to thread 1, lane 0 (AMDGPU Lane 1:1:1:1/0 (0,0,0)[0,0,0])]\nwarning: Current lane is inactive.\n[amdsim: lane 0 is divergent, waits at kernels/src/divergence.cl:14]\n#0  divergence (",
        "divergence.cl:20\n20\t        acc = acc * 3u + k;\n(amdsim) info lanes 0-3",
        "[Switching to thread 1, lane 0 (AMDGPU Lane 1:1:1:1/0 (0,0,0)[0,0,0])]\nwarning: Current lane is inactive.",
        "  Id   State Target Id                            Frame \n",
        "  1    I     AMDGPU Lane 1:1:1:1/1 (0,0,0)[1,0,0] (inactive) divergent, waits at kernels/src/divergence.cl:19\n",
        "* 1    AMDGPU Wave 1:1:1:1 (0,0,0)/0 \"divergence\" ",
        "$8 = (void (*)()) 0x",
        "$10 = 0\n",
        "unknown command `frobnicate`",
    ] {
        assert!(t.contains(want), "no `{want}` in\n{t}");
    }
    // info registers: gdb's columns, the hex and the natural value of one register
    let row = t
        .lines()
        .find(|l| l.starts_with("exec           0x"))
        .unwrap_or_else(|| panic!("no exec row in\n{t}"));
    let (hex, dec) = (&row[15..34], &row[34..]);
    assert_eq!(
        u64::from_str_radix(hex.trim().trim_start_matches("0x"), 16).unwrap(),
        dec.parse::<u64>().unwrap(),
        "{row}"
    );
    // info lanes 0-3 lists lanes 0..3 only
    assert!(!t.contains("\n  4    I     AMDGPU Lane"), "{t}");
    // the temporary breakpoint is gone after its hit
    let last_info = t.rsplit("(amdsim) info breakpoints").next().unwrap();
    assert!(!last_info.contains("\n2       breakpoint"), "{last_info}");
}

/// Ctrl-C while `amdsim debug` runs a dispatch stops it where it is, says so in gdb's
/// words and shows every wave; the session goes on with the next command.
#[test]
fn debug_ctrl_c_stops_the_dispatch() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_amdsim"))
        .args([
            "debug",
            "kernels/bin/gfx1030/asm_salu_loop.co",
            "asm_salu_loop",
            "u32[256]",
            "u32:4294967295",
            "--max-instructions=100000000000",
        ])
        .current_dir(root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"run\np $_lane\nquit\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}{}", text(&out.stderr));
    assert!(
        t.contains("\"asm_salu_loop\" received signal SIGINT, Interrupt."),
        "{t}"
    );
    // both waves of the work-group, the interrupted one marked
    assert!(t.contains(" 1    AMDGPU Wave 1:1:1:1 (0,0,0)/0"), "{t}");
    assert!(t.contains(" 2    AMDGPU Wave 1:1:1:2 (0,0,0)/1"), "{t}");
    assert_eq!(t.matches("\n* ").count(), 1, "{t}");
    assert!(t.contains("$1 = 0\n"), "{t}");
}

/// `amdsim debug` evaluates C/OpenCL expressions over the kernel's DWARF types for the
/// focused lane (kernels/examples/struct_args.ron: p = {tag 0x11, flags 0x22, sel -3,
/// mul 3, big 2^32, add 5, shift 4, bias {1, 2, 3, 4}}, in[i] = i, 64 work-items in one
/// group). At line 37 every lane has stored in[gid] to scratch[lid] and
/// (in[gid] << 4) + 2^32 to wscratch[lid], and read r = scratch[63 - lid] and
/// w = wscratch[lid - 1] (wscratch[63] for lane 0). (Before: `p in[1]`, `p *in`,
/// `p a + 1`, `p/x a`, `ptype` all failed.)
#[test]
fn debug_evaluates_c_expressions_over_dwarf_types() {
    let cmds = [
        "break struct_args.cl:37",
        "run",
        "p p",                   // $1: the struct by value, in gdb's syntax
        "p p.bias[2]",           // $2 = 3
        "p p.mul * 2 + 1",       // $3 = 7
        "whatis p",              // the typedef's name
        "ptype p",               // the members
        "p *in@3",               // $4 = {0, 1, 2}: gdb's artificial array
        "lane 5",                //
        "p scratch[lid]",        // $5 = 5: an LDS pointer (address class 2) indexed
        "p r",                   // $6 = 58 = scratch[63 - 5]
        "p w",                   // $7 = (4 << 4) + 2^32 = 4294967360
        "p/x p.big",             // $8 = 0x100000000
        "p get_global_id(0)",    // $9 = 5
        "p (int)p.sel + 10",     // $10 = 7
        "p gid < n ? 1 : 0",     // $11 = 1
        "p lid == 5 && n == 64", // $12 = 1
        "p sizeof(p)",           // $13 = 40
        "set var r = 1234",      // writes lane 5's r (private memory)
        "p r",                   // $14 = 1234
        "lane 6",
        "p r", // $15 = 57: lane 6's own r is untouched
        "info args",
        "p n / 0", // errors in gdb's words
        "p nosuch",
        "p p.nosuch",
        "lane apply 3-4 print r", // $16 = 60, $17 = 59: r = 63 - lid in each lane
    ];
    let out = debug_batch(&cmds, &["kernels/examples/struct_args.ron"]);
    let t = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{t}"); // the three errors
    for want in [
        "$1 = {tag = 17 '\\021', flags = 34 '\"', sel = -3, mul = 3, big = 4294967296, add = 5, shift = 4, bias = {1, 2, 3, 4}}\n",
        "$2 = 3\n",
        "$3 = 7\n",
        "type = params\n",
        "type = struct params {\n    unsigned char tag;\n",
        "    unsigned int bias[4];\n}\n",
        "$4 = {0, 1, 2}\n",
        "$5 = 5\n",
        "$6 = 58\n",
        "$7 = 4294967360\n",
        "$8 = 0x100000000\n",
        "$9 = 5\n",
        "$10 = 7\n",
        "$11 = 1\n",
        "$12 = 1\n",
        "$13 = 40\n",
        "$14 = 1234\n",
        "$15 = 57\n",
        "n = 64\n",
        "error: Division by zero",
        "error: No symbol \"nosuch\" in current context.",
        "error: There is no member named nosuch.",
        "\nLane 3 (AMDGPU Lane 1:1:1:1/3 (0,0,0)[3,0,0]):\n$16 = 60\n",
        "\nLane 4 (AMDGPU Lane 1:1:1:1/4 (0,0,0)[4,0,0]):\n$17 = 59\n",
    ] {
        assert!(t.contains(want), "no `{want}` in\n{t}");
    }
}

/// `run` after the dispatch has started runs it again from its beginning (memory as
/// the dispatch file gives it), to the first breakpoint, keeping the breakpoints and
/// their hit counts: a value written before the restart is gone after it.
#[test]
fn debug_run_restarts_the_dispatch() {
    let out = amdsim(&[
        "debug",
        "-batch",
        "-ex",
        "break struct_args.cl:37",
        "-ex",
        "run",
        "-ex",
        "set var r = 99",
        "-ex",
        "p r",
        "-ex",
        "run",
        "-ex",
        "p r",
        "-ex",
        "info breakpoints",
        "kernels/examples/struct_args.ron",
    ]);
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("$1 = 99\n"), "{t}");
    // lane 0's r is scratch[63] = in[63] = 63 in the fresh run
    assert!(t.contains("$2 = 63\n"), "{t}");
    assert_eq!(t.matches("hit Breakpoint 1,").count(), 2, "{t}");
    assert!(t.contains("\tbreakpoint already hit 2 times\n"), "{t}");
}

/// `break FUNCTION` stops after the function's prologue (its `prologue_end` row), where
/// the arguments are in place, and `finish` runs back to the caller and shows the value
/// returned. cf_call with in[i] = 64 + i: lanes with (v >> 4) % 3 != 0 call
/// classify(x = v >> 6 = 1); x % 5 != 0 and x is odd, so r = in[0] + 1 = 65 and it
/// returns 65 * 7 = 455. (Before: the breakpoint was on the prologue, where `x` read
/// stale private memory, and there was no `finish`.)
#[test]
fn debug_finish_returns_the_value() {
    let out = amdsim(&[
        "debug",
        "-batch",
        "-ex",
        "break classify",
        "-ex",
        "run",
        "-ex",
        "finish",
        "-ex",
        "p $ + 1",
        "kernels/bin/gfx900/cf_call.O0g.co",
        "cf_call",
        "u32[64]:iota=64",
        "u32[64]",
        "u32:64",
    ]);
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("hit Breakpoint 1, with lanes [0-31 48-63], classify (x=1, in=0x"),
        "{t}"
    );
    assert!(t.contains("at kernels/src/cf_call.cl:25\n25\t"), "{t}");
    assert!(t.contains("Run till exit from #0  classify (x=1"), "{t}");
    assert!(t.contains(" in cf_call (in=0x"), "{t}");
    assert!(t.contains("Value returned is $1 = 455\n"), "{t}");
    assert!(t.contains("$2 = 456\n"), "{t}");
}

/// `finish` with a caller's frame selected finishes that frame's function, as gdb does
/// (before, `up` then `finish` finished frame 0's). call_chain -O0 with in[i] = i: lane
/// 0 has v = 0, so f0 calls f1(a, ~0, 1), which calls f2(a, ~0), which calls
/// f3(a, 3 * ~0 + 1 = 0xfffffffe); bit 2 is set, so f3 calls f4(a, 0x7fffffff), which
/// calls f5 three times. With a[j] = j ^ 0x5a and f5's, f4's and f3's updates of a
/// (computed on the host from the source), f3 returns 270, and f1 returns
/// rotate(~0, 5) + f2(~0) = 0xffffffff + 281 = 280. The outermost frame cannot be
/// finished (gdb's words, and no "Run till exit").
#[test]
fn debug_finish_from_a_callers_frame() {
    let cmds = [
        "break f5", "run", "delete", "up 2", "finish", "bt 1", "up", "finish", "up", "finish",
    ];
    let out = debug_batch(
        &cmds,
        &[
            "kernels/bin/gfx900/call_chain.O0g.co",
            "call_chain",
            "u32[64]:iota",
            "u32[64]",
            "u32:64",
        ],
    );
    let t = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "the last finish fails\n{t}");
    assert!(
        t.contains("Run till exit from #2  0x00000000000023c4 in f3 (a=0x2000000000000024, v=4294967294) at kernels/src/call_chain.cl:27\n\
                    0x0000000000002740 in f2 (a=0x2000000000000024, v=4294967295) at kernels/src/call_chain.cl:33\n\
                    33\t  uint t = f3(a, v * 3u + 1u);\n\
                    Value returned is $1 = 270\n"),
        "{t}"
    );
    assert!(
        t.contains("(amdsim) bt 1\n#0  0x0000000000002740 in f2 ("),
        "{t}"
    );
    assert!(
        t.contains("Run till exit from #1  0x0000000000002c70 in f1 (")
            && t.contains("Value returned is $2 = 280\n"),
        "{t}"
    );
    assert!(
        t.contains("(amdsim) finish\nerror: \"finish\" not meaningful in the outermost frame.\n"),
        "{t}"
    );
    assert!(
        !t.contains("Run till exit from #1  0x00000000000039d4"),
        "{t}"
    );
}

/// At a terminal (a pseudo-terminal here), `amdsim debug` edits lines (a cursor key
/// moves inside the line), recalls history (Up), repeats the last command on an empty
/// line, and Ctrl-C stops a running dispatch and gives the prompt back.
#[test]
fn debug_at_a_terminal_edits_lines_and_stops_on_ctrl_c() {
    let dir = scratch("pty");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_amdsim"));
    cmd.args([
        "debug",
        "kernels/bin/gfx1030/asm_salu_loop.co",
        "asm_salu_loop",
        "u32[256]",
        "u32:4294967295",
        "--max-instructions=100000000000",
    ])
    .current_dir(root())
    .env("AMDSIM_HISTORY", dir.join("history"))
    .env("TERM", "xterm");
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).unwrap();
    p.exp_string("(amdsim) ").unwrap();
    // "p 40", cursor left, "2": the line is "p 420"
    p.send("p 40\x1b[D2\r").unwrap();
    p.flush().unwrap();
    p.exp_string("$1 = 420").unwrap();
    // Up recalls it
    p.send("\x1b[A\r").unwrap();
    p.flush().unwrap();
    p.exp_string("$2 = 420").unwrap();
    p.exp_string("(amdsim) ").unwrap();
    p.send_line("run").unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    p.send_control('c').unwrap();
    p.exp_string("received signal SIGINT, Interrupt.").unwrap();
    p.exp_string("(amdsim) ").unwrap();
    p.send_line("p $_lane + 7").unwrap();
    p.exp_string("$3 = 7").unwrap();
    // an empty line repeats the last command
    p.send_line("").unwrap();
    p.exp_string("$4 = 7").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
    // the history is kept for the next session
    let history = std::fs::read_to_string(dir.join("history")).unwrap();
    assert!(history.contains("p 420"), "{history}");
}

/// `bt` lists the callers' frames through the return addresses the reconstruction
/// follows: call_chain at -O0 stopped in f5 (lane 0: v = 0, so f0 calls f1(~0), f2 calls
/// f3(0xfffffffe), which has bit 2 set and calls f4(0x7fffffff), which calls f5 with
/// v = 0x7fffffff = 2147483647) is seven frames deep, each at its call's line.
#[test]
fn debug_backtrace_walks_every_call_level() {
    let out = amdsim(&[
        "debug",
        "-batch",
        "-ex",
        "break f5",
        "-ex",
        "run",
        "-ex",
        "bt",
        "kernels/bin/gfx900/call_chain.O0g.co",
        "call_chain",
        "u32[64]:iota",
        "u32[64]",
        "u32:64",
    ]);
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}");
    let bt = t.rsplit("(amdsim) bt\n").next().unwrap();
    let frames: Vec<&str> = bt.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(frames.len(), 7, "{bt}");
    assert!(frames[0].starts_with("#0  f5 (a=0x"), "{bt}");
    assert!(
        frames[0].contains("v=2147483647) at kernels/src/call_chain.cl:13"),
        "{bt}"
    );
    for (k, (f, line)) in [
        ("f4", 21),
        ("f3", 27),
        ("f2", 33),
        ("f1", 40),
        ("f0", 45),
        ("call_chain", 56),
    ]
    .iter()
    .enumerate()
    {
        assert!(
            frames[k + 1].starts_with(&format!("#{}  0x", k + 1)),
            "{bt}"
        );
        assert!(frames[k + 1].contains(&format!(" in {f} (")), "{bt}");
        assert!(
            frames[k + 1].ends_with(&format!(") at kernels/src/call_chain.cl:{line}")),
            "{bt}"
        );
    }
    // The callers' arguments, read in their frames (lane 0: in[0] = 0, so f0 calls
    // f1(a, ~0, 1), f2 gets ~0 + 0, f3 gets ~0 * 3 + 1 = 0xfffffffe, whose bit 2 sends
    // f4 v >> 1 = 0x7fffffff).
    assert!(frames[1].contains("f4 (a=0x"), "{bt}");
    assert!(frames[1].contains(", v=2147483647)"), "{bt}");
    assert!(frames[2].contains(", v=4294967294)"), "{bt}");
    assert!(frames[4].contains(", v=4294967295, depth=1)"), "{bt}");
    assert!(frames[5].contains(", v=0)"), "{bt}");
    assert!(frames[6].contains("call_chain (in=0x"), "{bt}");
    assert!(frames[6].contains(", n=64)"), "{bt}");
}

/// `up`, `down` and `frame N` select a caller's frame and its variables are read there
/// (at -O0, in private memory below the frame pointer the callee saved), read-only;
/// gdb's messages at the ends of the stack. Values from kernels/src/call_chain.cl for
/// lane 0 (in = iota: v = 0, a[j] = j ^ 0x5a).
#[test]
fn debug_frames_of_callers_show_their_variables() {
    let out = amdsim(&[
        "debug",
        "-batch",
        "-ex",
        "break f5",
        "-ex",
        "run",
        "-ex",
        "down",
        "-ex",
        "up",
        "-ex",
        "p v",
        "-ex",
        "frame 6",
        "-ex",
        "p v",
        "-ex",
        "p a[3]",
        "-ex",
        "p i",
        "-ex",
        "up",
        "-ex",
        "down 2",
        "-ex",
        "info args",
        "-ex",
        "set var v = 3",
        "-ex",
        "frame 7",
        "-ex",
        "frame 0",
        "-ex",
        "p v",
        "kernels/bin/gfx900/call_chain.O0g.co",
        "call_chain",
        "u32[64]:iota",
        "u32[64]",
        "u32:64",
    ]);
    let t = text(&out.stdout);
    // Four commands fail (down, up, set var, frame 7): exit 1 in batch mode.
    assert_eq!(out.status.code(), Some(1), "{t}");
    let after = |cmd: &str| {
        t.split(&format!("(amdsim) {cmd}\n"))
            .nth(1)
            .and_then(|r| r.split("(amdsim)").next())
            .unwrap_or_else(|| panic!("no `{cmd}` in {t}"))
            .to_string()
    };
    assert!(
        t.contains("Bottom (innermost) frame selected; you cannot go down."),
        "{t}"
    );
    let up = after("up");
    assert!(up.starts_with("#1  0x"), "{up}");
    assert!(up.contains(" in f4 (a=0x"), "{up}");
    assert!(up.contains("call_chain.cl:21\n21\t"), "{up}");
    // f4's v: f3's 0xfffffffe shifted right once.
    let pv: Vec<String> = t
        .split("(amdsim) p v\n")
        .skip(1)
        .map(|r| r.lines().next().unwrap_or("").to_string())
        .collect();
    assert_eq!(pv, ["$1 = 2147483647", "$2 = 0", "$5 = 2147483647"], "{t}");
    let f6 = after("frame 6");
    assert!(f6.starts_with("#6  0x"), "{f6}");
    assert!(f6.contains(" in call_chain (in=0x"), "{f6}");
    assert!(f6.contains("56\t  uint r = f0(a, v);"), "{f6}");
    assert!(after("p a[3]").starts_with("$3 = 89"), "{t}"); // 3 ^ 0x5a
    assert!(after("p i").starts_with("$4 = 0"), "{t}");
    assert!(
        t.contains("Initial frame selected; you cannot go up."),
        "{t}"
    );
    let d2 = after("down 2");
    assert!(d2.starts_with("#4  0x"), "{d2}");
    assert!(d2.contains(" in f1 ("), "{d2}");
    let args = after("info args");
    assert!(args.contains("v = 4294967295\ndepth = 1"), "{args}");
    assert!(
        t.contains("variables of a caller's frame (frame 4) are read-only"),
        "{t}"
    );
    assert!(t.contains("No frame at level 7."), "{t}");
    assert!(after("frame 0").starts_with("#0  f5 (a=0x"), "{t}");
}

/// Inlined calls are frames of their own, as gdb shows them. gds_sync.cl's
/// `grid_sync` (lines 23-28, no parameters or locals) is inlined twice into
/// `gws_grid_barrier` at -O2 (`llvm-dwarfdump-19 --debug-info`: the copy called from
/// line 39 is [0x2a34, 0x2a80), the one from line 41 is [0x2a20, 0x2a28) and
/// [0x2ac4, 0x2ae8)); `break grid_sync` stops at each copy's start. At 0x2a34 (line
/// 24 of grid_sync) the stack is grid_sync, then the kernel at the call's line 39;
/// `finish` runs until the wave leaves [0x2a34, 0x2a80): 0x2a80 is line 40, and no
/// value is returned. The next hit is the second copy at 0x2a20 (line 27), called from
/// line 41; there `up` selects the kernel, whose `v` (line 40, in v3 over [0x2a04,
/// 0x2a34)) is buf[(gid + 64) % 64] = 7 gid + 1 = 1 for lane 0 (one work-group of 64,
/// round 0), while the inline frame has no locals of its own.
#[test]
fn debug_inlined_calls_are_frames() {
    let out = amdsim(&[
        "debug",
        "-batch",
        "-ex",
        "break grid_sync",
        "-ex",
        "run",
        "-ex",
        "bt",
        "-ex",
        "info locals",
        "-ex",
        "info frame",
        "-ex",
        "finish",
        "-ex",
        "bt",
        "-ex",
        "continue",
        "-ex",
        "bt",
        "-ex",
        "up",
        "-ex",
        "info locals",
        "-ex",
        "down",
        "-ex",
        "info locals",
        "kernels/bin/gfx900/gds_sync.O2g.co",
        "gws_grid_barrier",
        "u32[64]",
        "u32[64]",
        "u32:2",
    ]);
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}");
    let after = |cmd: &str, nth: usize| {
        t.split(&format!("(amdsim) {cmd}\n"))
            .nth(nth)
            .and_then(|r| r.split("(amdsim)").next())
            .unwrap_or_else(|| panic!("no `{cmd}` #{nth} in {t}"))
            .to_string()
    };
    let kernel = "gws_grid_barrier (buf=<optimized out>, out=<optimized out>, \
                  rounds=<optimized out>) at kernels/src/gds_sync.cl";
    assert!(
        after("run", 1).contains(
            "hit Breakpoint 1, with lanes [0-63], grid_sync () at kernels/src/gds_sync.cl:24\n"
        ),
        "{t}"
    );
    assert_eq!(
        after("bt", 1),
        format!("#0  grid_sync () at kernels/src/gds_sync.cl:24\n#1  {kernel}:39\n"),
        "{t}"
    );
    assert_eq!(after("info locals", 1), "No locals.\n", "{t}");
    let info = after("info frame", 1);
    assert!(
        info.contains(" pc = 0x2a34 in grid_sync (kernels/src/gds_sync.cl:24)"),
        "{info}"
    );
    assert!(info.contains(" inlined into frame 1\n"), "{info}");
    assert_eq!(
        after("finish", 1),
        format!(
            "Run till exit from #0  grid_sync () at kernels/src/gds_sync.cl:24\n{kernel}:40\n\
             40\t    uint v = buf[(gid + ls * (r + 1)) % n];\n"
        ),
        "{t}"
    );
    assert_eq!(after("bt", 2), format!("#0  {kernel}:40\n"), "{t}");
    assert!(
        after("continue", 1).contains("grid_sync () at kernels/src/gds_sync.cl:27\n"),
        "{t}"
    );
    assert_eq!(
        after("bt", 3),
        format!("#0  grid_sync () at kernels/src/gds_sync.cl:27\n#1  {kernel}:41\n"),
        "{t}"
    );
    assert_eq!(
        after("up", 1),
        format!("#1  {kernel}:41\n41\t    grid_sync();\n"),
        "{t}"
    );
    let locals = after("info locals", 2);
    assert!(locals.starts_with("v = 1\nr = "), "{locals}");
    assert!(locals.contains("\ngid = "), "{locals}");
    assert!(after("down", 1).starts_with("#0  grid_sync () at"), "{t}");
    assert_eq!(after("info locals", 3), "No locals.\n", "{t}");
}

/// gdb's hidden inline frames: where a stop's PC is the first instruction of inlined
/// calls (clang-19's debug_vars -O2 starts `divergence` with blockDim.x inlined two
/// levels deep, 0x1600 from llvm-dwarfdump), a function breakpoint on the kernel shows
/// the kernel at the line of the call (14), with one frame; `step` then enters the
/// inlined calls one level at a time without running, and `next` runs over them to
/// line 15. A breakpoint on the address itself shows the inline frames (gdb hides
/// only for a breakpoint placed in an enclosing function, and for steps).
#[test]
fn debug_hides_inline_frames_where_inlined_calls_start() {
    let dispatch = [
        "kernels/hip/bin/clang19/debug_vars.gfx900.co",
        "divergence",
        "u32[64]:iota",
        "u32[64]",
        "u32:64",
    ];
    let t = text(
        &debug_batch(
            &[
                "break divergence",
                "run",
                "bt",
                "step",
                "bt",
                "step",
                "step",
            ],
            &dispatch,
        )
        .stdout,
    );
    let kernel = "divergence (in=<optimized out>, out=<optimized out>, n=<optimized out>) \
                  at src/device/debug_vars.hip:14";
    assert!(
        t.contains(&format!("with lanes [0-63], {kernel}\n14\t")),
        "{t}"
    );
    assert!(
        t.contains(&format!("(amdsim) bt\n#0  {kernel}\n(amdsim) step\n")),
        "{t}"
    );
    assert!(
        t.contains(
            "(amdsim) step\n__HIP_Coordinates<__HIP_BlockDim>::__X::operator unsigned int \
             (this=<optimized out>) at amd_hip_runtime.h:299\n"
        ),
        "{t}"
    );
    assert!(
        t.contains(&format!(
            "(amdsim) bt\n#0  __HIP_Coordinates<__HIP_BlockDim>::__X::operator unsigned int \
             (this=<optimized out>) at amd_hip_runtime.h:299\n#1  {kernel}\n"
        )),
        "{t}"
    );
    assert!(
        t.contains(
            "(amdsim) step\n__HIP_BlockDim::operator() (this=<optimized out>, x=<optimized out>) \
             at amd_hip_runtime.h:268\n"
        ),
        "{t}"
    );
    // The third step leaves blockDim.x: the PC starts blockIdx.x's inlined calls,
    // hidden again, so the kernel shows at line 14 once more.
    assert!(t.ends_with(&format!("(amdsim) step\n{kernel}\n14\t  size_t gid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n")), "{t}");
    let t = text(&debug_batch(&["break divergence", "run", "next", "bt"], &dispatch).stdout);
    assert!(t.contains("(amdsim) next\n15\t  if (gid >= n)\n"), "{t}");
    assert!(
        t.contains("(amdsim) bt\n#0  divergence (") && t.ends_with("debug_vars.hip:15\n"),
        "{t}"
    );
    let t = text(&debug_batch(&["break *0x1600", "run", "bt"], &dispatch).stdout);
    assert!(
        t.contains("(amdsim) bt\n#0  __HIP_BlockDim::operator() ("),
        "{t}"
    );
    assert_eq!(t.matches("\n#").count(), 3, "{t}");
}

/// `next` over a call whose callee makes a tail call: gds_sync.cl at -O0 calls
/// `grid_sync` from line 39, and `grid_sync` calls OpenCL's `get_local_id`, which jumps
/// (`s_setpc_b64`) to the first instruction of `__ockl_get_local_id`; that jump is not
/// a return, so `next` comes to line 40 (before: it stopped inside `grid_sync`, at line
/// 26, taking the jump for `grid_sync`'s return). One work-group, so the grid barrier
/// has nothing to wait for.
#[test]
fn debug_next_passes_over_a_call_with_a_tail_call() {
    let out = debug_batch(
        &["break 39", "run", "next", "bt"],
        &[
            "kernels/bin/gfx900/gds_sync.O0g.co",
            "gws_grid_barrier",
            "u32[64]",
            "u32[64]",
            "u32:1",
        ],
    );
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("(amdsim) next\n40\t    uint v = buf[(gid + ls * (r + 1)) % n];\n"),
        "{t}"
    );
    assert!(
        t.contains("(amdsim) bt\n#0  gws_grid_barrier (buf=0x"),
        "{t}"
    );
}

/// A cooperative kernel under the debugger: kernels/examples/grid_barrier.ron runs
/// gds_sync.cl's `gws_grid_barrier` (-O0 -g, gfx900) over 4 work-groups of 64 with
/// rounds = 2 and GWS resource 0 at 3, so each grid barrier (line 26) waits for all 4
/// work-groups: the session keeps them all resident. The values, from the source: buf
/// starts as 7 i + 1 (line 37); in round r a work-item reads v = buf[(gid + 64 (r + 1))
/// % 256] between two grid barriers (line 40) and stores v + r (line 42), so after round
/// 0 buf[i] = 7 ((i + 64) % 256) + 1 and out[i] = buf after round 1 = 7 ((i + 192) %
/// 256) + 2.
///
/// - Breakpoint 1, before the first barrier, stops in work-group 3 (gid 192 in lane 0).
/// - Breakpoint 2, after the barriers of round 0, stops in work-group 1: lane 5 is gid
///   69 and its v is buf[133] = 932, which work-group 2 wrote before the barrier.
/// - `info threads` lists the wave of each of the 4 work-groups, thread 2 current.
/// - `thread 4` switches to work-group 3's wave, which waits inside the second
///   grid_sync of round 0 (called from line 41; the session's schedule is
///   `Device::run`'s, work-group 1 passes first); in the kernel's frame its lane 5 is
///   gid 197 with v = buf[5] = 36, from work-group 0.
/// - Back on thread 2, `next` goes from line 42 through round 1, over both grid_sync
///   calls (39 and 41), each completing once the other work-groups have reached the
///   barrier, to line 42 with r = 1 and v = buf[(69 + 128) % 256] after round 0 =
///   7 * 5 + 1 = 36.
/// - `continue` runs to the end; `out` (whose address `$1` keeps) then holds what
///   `amdsim run` writes for the same dispatch, and what the source computes.
///
/// The same dispatch with resource 0 at 4 waits for a fifth work-group the grid does not
/// have: `run` and `continue` each report the deadlock, naming the resource.
#[test]
fn debug_a_cooperative_kernel_with_every_work_group_resident() {
    let dir = scratch("coop");
    let run_out = dir.join("out.bin");
    let ron = "kernels/examples/grid_barrier.ron";
    let run = amdsim(&["run", ron, "--output", &format!("1={}", run_out.display())]);
    assert_ok("run grid_barrier.ron", &run);
    let ran: Vec<u32> = std::fs::read(&run_out)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<u32> = (0..256).map(|i| 7 * ((i + 192) % 256) + 2).collect();
    assert_eq!(ran, want, "amdsim run");
    let cmds = [
        "break 37 if get_group_id(0) == 3",
        "break 42 if get_group_id(0) == 1",
        "run",
        "print (unsigned long)out",
        "print gid",
        "continue",
        "lane 5",
        "print gid",
        "print v",
        "info threads",
        "thread 4",
        "up 2",
        "print gid",
        "print v",
        "print r",
        "thread 2",
        "delete",
        "next",
        "next",
        "next",
        "next",
        "next",
        "next",
        "print r",
        "print v",
        "continue",
        "x/256uw $1",
    ];
    let out = debug_batch(&cmds, &[ron]);
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}");
    let after = |cmd: &str, nth: usize| {
        t.split(&format!("(amdsim) {cmd}\n"))
            .nth(nth)
            .and_then(|r| r.split("(amdsim)").next())
            .unwrap_or_else(|| panic!("no `{cmd}` #{nth} in {t}"))
            .to_string()
    };
    let kernel = "gws_grid_barrier (buf=0x100000000, out=0x100002000, rounds=2) at \
                  kernels/src/gds_sync.cl";
    assert!(
        after("run", 1).contains(&format!(
            "Thread 4 \"gws_grid_barrier\" hit Breakpoint 1, with lanes [0-63], {kernel}:37\n"
        )),
        "{t}"
    );
    assert_eq!(after("print gid", 1), "$2 = 192\n", "{t}");
    assert!(
        after("continue", 1).contains(&format!(
            "Thread 2 \"gws_grid_barrier\" hit Breakpoint 2, with lanes [0-63], {kernel}:42\n"
        )),
        "{t}"
    );
    assert_eq!(after("print gid", 2), "$3 = 69\n", "{t}");
    assert_eq!(after("print v", 1), "$4 = 932\n", "{t}");
    let threads = after("info threads", 1);
    for (n, g) in [(1, 0), (2, 1), (3, 2), (4, 3)] {
        let mark = if n == 2 { '*' } else { ' ' };
        let row = format!("{mark} {n}    AMDGPU Wave 1:1:1:{n} ({g},0,0)/0 \"gws_grid_barrier\" ");
        assert!(threads.contains(&row), "no `{row}` in\n{threads}");
    }
    assert!(
        threads.contains(&format!("{kernel}:42\n")),
        "the current wave's frame: {threads}"
    );
    assert!(
        after("thread 4", 1).starts_with(
            "[Switching to thread 4, lane 5 (AMDGPU Lane 1:1:1:4/5 (3,0,0)[5,0,0])]\n"
        ),
        "{t}"
    );
    assert!(
        after("up 2", 1).contains(&format!("in {kernel}:41\n")),
        "{t}"
    );
    assert_eq!(after("print gid", 3), "$5 = 197\n", "{t}");
    assert_eq!(after("print v", 2), "$6 = 36\n", "{t}");
    assert_eq!(after("print r", 1), "$7 = 0\n", "{t}");
    let lines: Vec<String> = (1..=6)
        .map(|k| {
            after("next", k)
                .split('\t')
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(lines, ["43", "38", "39", "40", "41", "42"], "{t}");
    assert_eq!(after("print r", 2), "$8 = 1\n", "{t}");
    assert_eq!(after("print v", 3), "$9 = 36\n", "{t}");
    assert_eq!(
        after("continue", 2),
        "[Inferior 1 (dispatch 1) exited normally]\n",
        "{t}"
    );
    // x/256uw: four words a line after the address.
    let dumped: Vec<u32> = after("x/256uw $1", 1)
        .lines()
        .flat_map(|l| {
            l.split('\t')
                .skip(1)
                .map(|v| v.trim().parse::<u32>().unwrap())
        })
        .collect();
    assert_eq!(
        dumped, ran,
        "the debugged dispatch's out against amdsim run's"
    );
    // A barrier one work-group too many is expected at.
    let out = debug_batch(&["run", "continue"], &[ron, "--gws", "0=4"]);
    let t = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let deadlock = "error: simulator: deadlock in work-group [0, 0, 0]: wave 0 waits on GWS \
                    barrier 0 that no wave left running can release\n";
    assert_eq!(t.matches(deadlock).count(), 2, "{t}");
}

/// `amdsim lanes --svg` records a work-group of a cooperative kernel to its end: the
/// stop is in work-group 2 (line 42 of gds_sync.cl), whose waves wait at each grid
/// barrier for the other work-groups, which run, unrecorded, until it can go on; the
/// recording reaches the kernel's last lines (44, the store to out, and 45).
#[test]
fn lanes_records_a_work_group_of_a_cooperative_kernel() {
    let dir = scratch("coop-svg");
    let svg = dir.join("coop.svg");
    let out = amdsim(&[
        "lanes",
        "kernels/examples/grid_barrier.ron",
        "--break",
        "gds_sync.cl:42",
        "--svg",
        &svg.display().to_string(),
    ]);
    assert_ok("lanes grid_barrier.ron --svg", &out);
    let t = text(&out.stdout);
    assert!(
        t.starts_with("work-group (2,0,0) wave 0 stopped at 0x369c (hit 1) of gds_sync.cl:42\n"),
        "{t}"
    );
    let drawn = std::fs::read_to_string(&svg).unwrap();
    for line in ["gds_sync.cl:26", "gds_sync.cl:44", "gds_sync.cl:45"] {
        assert!(drawn.contains(line), "no {line} in the SVG");
    }
}

/// Nested inlining: in the clang-19 -O2 build of kernels/hip/src/device/debug_vars.hip,
/// `blockIdx.x` (line 14) is HIP's `__X::operator unsigned int` inlined into the
/// kernel, with `__HIP_BlockIdx::operator()(unsigned x)` inlined into it from
/// amd_hip_runtime.h:299 (`llvm-dwarfdump-19 --debug-info`: both over 0x1608-0x1610,
/// 0x162c-0x1630 and 0x163c-0x1644). At 0x1608 (amd_hip_runtime.h:263) that is three
/// frames; the innermost has its parameter `x`, the kernel's frame its own arguments
/// and locals; `finish` from frame 1 runs out of both calls, to 0x1610 (line 14).
#[test]
fn debug_nested_inlined_calls() {
    let out = amdsim(&[
        "debug",
        "-batch",
        "-ex",
        "break *0x1608",
        "-ex",
        "run",
        "-ex",
        "bt",
        "-ex",
        "info args",
        "-ex",
        "frame 2",
        "-ex",
        "info args",
        "-ex",
        "frame 1",
        "-ex",
        "finish",
        "-ex",
        "bt",
        "kernels/hip/bin/clang19/debug_vars.gfx900.co",
        "divergence",
        "u32[64]:iota",
        "u32[64]",
        "u32:64",
    ]);
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}");
    let after = |cmd: &str, nth: usize| {
        t.split(&format!("(amdsim) {cmd}\n"))
            .nth(nth)
            .and_then(|r| r.split("(amdsim)").next())
            .unwrap_or_else(|| panic!("no `{cmd}` #{nth} in {t}"))
            .to_string()
    };
    let bt = after("bt", 1);
    let frames: Vec<&str> = bt.lines().collect();
    assert_eq!(frames.len(), 3, "{bt}");
    assert!(
        frames[0].starts_with("#0  __HIP_BlockIdx::operator() (")
            && frames[0].ends_with(" at amd_hip_runtime.h:263"),
        "{bt}"
    );
    assert!(frames[0].contains("x="), "{bt}");
    // Both inlined copies lack a DIE for `this` (the code does not use it): as gdb,
    // it is listed from the inlined function's abstract instance, optimized out.
    assert!(frames[0].contains(", this=<optimized out>)"), "{bt}");
    assert_eq!(
        frames[1],
        "#1  __HIP_Coordinates<__HIP_BlockIdx>::__X::operator unsigned int \
         (this=<optimized out>) at amd_hip_runtime.h:299",
        "{bt}"
    );
    assert!(
        frames[2].starts_with("#2  divergence (in=")
            && frames[2].ends_with(") at src/device/debug_vars.hip:14"),
        "{bt}"
    );
    assert!(after("info args", 1).starts_with("x = "), "{t}");
    assert!(after("frame 2", 1).contains("14\t  size_t gid ="), "{t}");
    assert!(after("info args", 2).starts_with("in = "), "{t}");
    let fin = after("finish", 1);
    assert!(
        fin.starts_with(
            "Run till exit from #1  __HIP_Coordinates<__HIP_BlockIdx>::__X::operator unsigned int ("
        ),
        "{fin}"
    );
    assert!(fin.contains("\ndivergence (in="), "{fin}");
    assert!(!fin.contains("Value returned"), "{fin}");
    let bt = after("bt", 2);
    assert_eq!(bt.lines().count(), 1, "{bt}");
    assert!(bt.ends_with(") at src/device/debug_vars.hip:14\n"), "{bt}");
}

/// The DAP server's framing and a launch that fails, without a client library: the
/// `initialize` response's capabilities, a failed `launch` (its message names the
/// missing file) followed by `terminated`, and `disconnect` answered.
#[test]
fn dap_answers_initialize_and_a_failed_launch() {
    use std::io::{Read, Write};
    let msg = |seq: u32, cmd: &str, args: &str| {
        let body =
            format!(r#"{{"seq":{seq},"type":"request","command":"{cmd}","arguments":{args}}}"#);
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_amdsim"))
        .arg("dap")
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = [
        msg(1, "initialize", r#"{"adapterID":"amdsim"}"#),
        // Before a launch: answered, never waited on.
        msg(4, "stackTrace", r#"{"threadId":1}"#),
        msg(5, "continue", r#"{"threadId":1}"#),
        msg(2, "launch", r#"{"program":"nosuch.co","kernel":"k"}"#),
        msg(3, "disconnect", "{}"),
    ]
    .concat();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(child.wait().unwrap().success());
    let bodies: Vec<&str> = out.split("Content-Length: ").skip(1).collect();
    let find = |what: &str| {
        bodies
            .iter()
            .find(|b| b.contains(what))
            .unwrap_or_else(|| panic!("no {what} in {out}"))
            .to_string()
    };
    let init = find(r#""command":"initialize""#);
    assert!(init.contains(r#""success":true"#), "{init}");
    assert!(
        init.contains(r#""supportsConfigurationDoneRequest":true"#),
        "{init}"
    );
    assert!(init.contains(r#""supportsSetVariable":true"#), "{init}");
    for cmd in ["stackTrace", "continue"] {
        let r = find(&format!(r#""command":"{cmd}""#));
        assert!(
            r.contains(r#""success":false"#) && r.contains("send `launch` first"),
            "{r}"
        );
    }
    let launch = find(r#""command":"launch""#);
    assert!(launch.contains(r#""success":false"#), "{launch}");
    assert!(launch.contains("nosuch.co"), "{launch}");
    assert!(out.contains(r#""event":"terminated""#), "{out}");
    assert!(find(r#""command":"disconnect""#).contains(r#""success":true"#));
}

/// Runs `crates/cli/tests/dap/client.js` (Microsoft's DAP test client,
/// `@vscode/debugadapter-testsupport` from npm, in `$AMDSIM_DAP_TESTSUPPORT`, a
/// `node_modules` folder) on `amdsim dap` with its `suite` of checks, and checks that it
/// passed; a visible skip without node or the client, a failure then under
/// `AMDSIM_REQUIRE_DAP`.
pub(crate) fn dap_client(test: &str, suite: &str) {
    let modules = std::env::var_os("AMDSIM_DAP_TESTSUPPORT").map(std::path::PathBuf::from);
    let found = modules
        .as_ref()
        .is_some_and(|m| m.join("@vscode/debugadapter-testsupport").is_dir());
    let node = Command::new("node").arg("--version").output().is_ok();
    let Some(modules) = modules.filter(|_| found && node) else {
        if std::env::var_os("AMDSIM_REQUIRE_DAP").is_some() {
            panic!(
                "{test}: node or @vscode/debugadapter-testsupport (AMDSIM_DAP_TESTSUPPORT) is missing and AMDSIM_REQUIRE_DAP is set"
            );
        }
        eprintln!(
            "SKIPPED {test}: needs node and AMDSIM_DAP_TESTSUPPORT=<dir>/node_modules \
             (npm install --prefix <dir> @vscode/debugadapter-testsupport@1.68.0)"
        );
        return;
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let out = Command::new("node")
        .arg(root.join("crates/cli/tests/dap/client.js"))
        .arg(env!("CARGO_BIN_EXE_amdsim"))
        .arg(&root)
        .arg(suite)
        .env("NODE_PATH", modules)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("dap client: all checks passed"));
}

/// `set var` refuses in gdb's words what it cannot assign: divergence
/// (kernels/examples/divergence.ron, -O2 -g) keeps no `gid` at line 18 ("value has been
/// optimized out", it was "not an lvalue"), an expression that is not an object, and an
/// unknown name; lane 1's `v` (in[1] = 1001) takes a new value.
#[test]
fn debug_set_var_errors_are_gdbs() {
    let out = debug_batch(
        &[
            "break divergence.cl:18",
            "run",
            "set var gid = 1",
            "set var v + 1 = 2",
            "set var v = nosuch",
            "set var v = 7",
            "output v",
        ],
        &["kernels/examples/divergence.ron"],
    );
    let t = text(&out.stdout);
    for want in [
        "(amdsim) set var gid = 1\nerror: value has been optimized out\n",
        "(amdsim) set var v + 1 = 2\nerror: Left operand of assignment is not an lvalue.\n",
        "(amdsim) set var v = nosuch\nerror: No symbol \"nosuch\" in current context.\n",
        "(amdsim) output v\n7",
    ] {
        assert!(t.contains(want), "no `{want}` in\n{t}");
    }
}

/// `amdsim dap` driven by Microsoft's DAP test client: a breakpoint hit, threads, the
/// stack, scopes and variables of both frames, the lanes, expressions, `next`, an
/// unverified breakpoint and the dispatch's end; `pause` during a long run; structs
/// and arrays expanded and `setVariable` on a local, a member and an element, with its
/// errors (`crates/cli/tests/dap/client.js` says what each value is).
#[test]
fn dap_serves_an_editor_client() {
    dap_client("dap_serves_an_editor_client", "dispatch");
}

/// ROCgdb's address spaces and gdb's type names: `&x` of a private variable is `private_lane#ADDR`, the `#`
/// operator names an address in a space (`p *(unsigned int *)private_lane#ADDR` reads
/// the variable back, `x/2xw private_lane#ADDR` shows it with the prefix), a pointer
/// into global memory has none, and `#` starting a word is still a comment. In cf_call
/// at classify's breakpoint lane 4 has x = (300 + 4) >> 6 = 4.
#[test]
fn debug_shows_and_takes_rocgdb_address_spaces() {
    let out = amdsim(&[
        "debug",
        "-batch",
        "-ex",
        "break classify",
        "-ex",
        "run",
        "-ex",
        "p &x",
        "-ex",
        "p *(unsigned int *)&x",
        "-ex",
        "x/1dw &x",
        "-ex",
        "p in # the input",
        "-ex",
        "p local#16",
        "-ex",
        "whatis in",
        "-ex",
        "whatis x",
        "-ex",
        "ptype x",
        "kernels/bin/gfx900/cf_call.O0g.co",
        "cf_call",
        "u32[64]:iota=300",
        "u32[64]",
        "u32:64",
    ]);
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}");
    let addr = t
        .split("$1 = (unsigned int *) private_lane#")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("{t}"))
        .to_string();
    assert!(t.contains("$2 = 4\n"), "{t}");
    assert!(t.contains(&format!("private_lane#{addr}:\t4\n")), "{t}");
    // `__global const uint *in`: the qualifier and the typedef as the source has them.
    assert!(t.contains("$3 = (const uint *) 0x1"), "{t}");
    assert!(t.contains("$4 = (void *) local#0x10"), "{t}");
    // whatis names the declared types (`uint x`), ptype resolves the typedef.
    assert!(
        t.contains("(amdsim) whatis in\ntype = const uint *\n"),
        "{t}"
    );
    assert!(t.contains("(amdsim) whatis x\ntype = uint\n"), "{t}");
    assert!(t.contains("(amdsim) ptype x\ntype = unsigned int\n"), "{t}");
    // The address read back through the operator.
    let again = amdsim(&[
        "debug",
        "-batch",
        "-ex",
        "break classify",
        "-ex",
        "run",
        "-ex",
        &format!("p *(unsigned int *)private_lane#{addr}"),
        "kernels/bin/gfx900/cf_call.O0g.co",
        "cf_call",
        "u32[64]:iota=300",
        "u32[64]",
        "u32:64",
    ]);
    assert!(
        text(&again.stdout).contains("$1 = 4\n"),
        "{}",
        text(&again.stdout)
    );
}

/// `x/Ni` and `disassemble` name where a branch goes (`s_branch 4 <classify+224>`):
/// every branch's `<func+M>` is the instruction at `pc + 4 + 4 * simm16` (the ISA
/// guides' SOPP rule), `func+M` counted from the function start the listing shows.
#[test]
fn debug_listings_name_branch_targets() {
    let out = amdsim(&[
        "debug",
        "-batch",
        "-ex",
        "break classify",
        "-ex",
        "run",
        "-ex",
        "x/60i $pc",
        "-ex",
        "disassemble",
        "kernels/bin/gfx900/cf_call.O0g.co",
        "cf_call",
        "u32[64]:iota=300",
        "u32[64]",
        "u32:64",
    ]);
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}");
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    let mut checked = 0;
    for l in t.lines().filter(|l| l.contains("branch ")) {
        // `   0x1c60 <classify+204>:\ts_branch 4 <classify+224>` (x/i)
        let l = l.trim_start_matches("=> ").trim();
        let Some((head, inst)) = l.split_once(":\t") else {
            continue;
        };
        let Some((addr, at)) = head.split_once(' ') else {
            continue;
        };
        let Some(off) = at
            .strip_prefix("<classify+")
            .and_then(|r| r.strip_suffix('>'))
        else {
            continue;
        };
        let start = hex(addr) - off.parse::<u64>().unwrap();
        let mut w = inst.split_whitespace();
        let _name = w.next();
        let simm: i64 = w.next().unwrap().parse().unwrap();
        let target: u64 = w
            .next()
            .and_then(|r| r.strip_prefix("<classify+"))
            .and_then(|r| r.strip_suffix('>'))
            .unwrap_or_else(|| panic!("no target in `{l}`"))
            .parse()
            .unwrap();
        assert_eq!(
            start + target,
            (hex(addr) as i64 + 4 + 4 * simm) as u64,
            "{l}"
        );
        checked += 1;
    }
    assert!(checked >= 3, "{t}");
    assert!(t.contains("End of assembler dump."), "{t}");
    assert!(
        t.lines()
            .any(|l| l.contains("s_branch") && l.contains(" <classify+") && l.contains("<+")),
        "disassemble names targets too:\n{t}"
    );
}

/// gdb's `next` steps over calls, `step` into them. cf_call.cl at -O0: line 46 calls
/// `classify` (a real call, `s_swappc_b64`) for the lanes with (v >> 4) % 3 != 0; from
/// there `next` comes to line 48, the next line of cf_call, while `step` stops at
/// classify's first line after its prologue (25). gds_sync.cl at -O2: `grid_sync` is
/// inlined (its lines 24-27); from line 40 `step` enters the copy called from line 41,
/// while `next` passes over it: the line table has no other statement of the kernel's
/// own on the way (line 42's store has no row of its own), so the loop's next round
/// stops at the breakpoint on line 40 again.
#[test]
fn debug_next_steps_over_calls_and_inlined_calls() {
    let session = |co: &str, kernel: &str, args: &[&str], cmds: &[&str]| {
        let mut dispatch = vec![co, kernel];
        dispatch.extend_from_slice(args);
        let out = debug_batch(cmds, &dispatch);
        let t = text(&out.stdout);
        assert!(out.status.success(), "{t}");
        t.rsplit("(amdsim) ").next().unwrap_or_default().to_string()
    };
    let cf = |cmd: &str| {
        session(
            "kernels/bin/gfx900/cf_call.O0g.co",
            "cf_call",
            &["u32[64]:iota=300", "u32[64]", "u32:64"],
            &["break 46", "run", cmd],
        )
    };
    assert!(cf("next").starts_with("next\n48\t"), "{}", cf("next"));
    assert!(
        cf("step").contains("classify (x=4, in=0x100000000, n=64) at kernels/src/cf_call.cl:25"),
        "{}",
        cf("step")
    );
    let gds = |cmd: &str| {
        session(
            "kernels/bin/gfx900/gds_sync.O2g.co",
            "gws_grid_barrier",
            &["u32[64]", "u32[64]", "u32:2"],
            &["break 40", "run", cmd],
        )
    };
    let next = gds("next");
    assert!(
        next.contains("hit Breakpoint 1") && next.contains("gds_sync.cl:40\n"),
        "{next}"
    );
    let step = gds("step");
    assert!(
        step.contains("grid_sync () at kernels/src/gds_sync.cl:24"),
        "{step}"
    );
}
