//! The README's transcripts stay true: every `$ COMMAND` line of its indented blocks is
//! run, and the lines shown under it are what the command prints (standard output, then
//! standard error; trailing spaces aside). In the expected lines, a line `...` stands for
//! any number of lines and a line ending in `...` for any line that starts with what is
//! before it (timings, long tables).
//!
//! The commands of "A tour" run in a fresh directory, as a new user runs them (the files
//! the tour asks to save, a fenced block after "as `NAME`:", are written there, and
//! `kernels` points at the tree's); the others run from the top of the tree. `amdsim` is
//! the binary under test. A command that needs a tool from outside Rust (`clang-19` for
//! OpenCL, `hipcc` and the HIP runtime for HIP) is skipped visibly with the rest of its
//! section when the tool is missing, unless `.ci/run`'s `AMDSIM_REQUIRE_DWARFDUMP`
//! (LLVM) or `AMDSIM_REQUIRE_HIP` says it must be there. The README's other command
//! lists are run by `cli.rs` (Examples) and `exec.rs` (HIP programs).

use amdsim_sim_tests::ScratchDir;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One `$ COMMAND` of the README with the lines shown under it.
#[derive(Debug)]
struct Transcript {
    /// The `##` section it is in.
    section: String,
    command: String,
    expected: Vec<String>,
}

/// A file the README asks the reader to save: (name, contents, section).
type Saved = (String, String, String);

/// The README's transcripts and the files it asks to save, in order.
fn parse(readme: &str) -> (Vec<Transcript>, Vec<Saved>) {
    let mut out: Vec<Transcript> = Vec::new();
    let mut saved = Vec::new();
    let (mut section, mut fence, mut in_block) = (String::new(), None::<String>, false);
    let mut save_as: Option<String> = None;
    for line in readme.lines() {
        if let Some(body) = fence.as_mut() {
            if line.starts_with("```") {
                if let Some(name) = save_as.take() {
                    saved.push((name, std::mem::take(body), section.clone()));
                }
                fence = None;
            } else {
                body.push_str(line);
                body.push('\n');
            }
            continue;
        }
        if line.starts_with("```") {
            fence = Some(String::new());
            continue;
        }
        if let Some(h) = line.strip_prefix("## ") {
            section = h.to_string();
        }
        if let Some(name) = line
            .strip_suffix("`:")
            .and_then(|l| l.rsplit_once(" as `"))
            .map(|(_, n)| n)
        {
            save_as = Some(name.to_string());
        }
        match line.strip_prefix("    ") {
            Some(code) if code.starts_with("$ ") => {
                out.push(Transcript {
                    section: section.clone(),
                    command: code[2..].to_string(),
                    expected: Vec::new(),
                });
                in_block = true;
            }
            Some(code) if in_block => {
                if let Some(t) = out.last_mut() {
                    t.expected.push(code.trim_end().to_string());
                }
            }
            _ => in_block = false,
        }
    }
    (out, saved)
}

/// Whether `got` is what `want` shows (`...` lines and line endings as described above).
fn matches(want: &[String], got: &[&str]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((w, rest)) if w == "..." => (0..=got.len()).any(|k| matches(rest, &got[k..])),
        Some((w, rest)) => got.split_first().is_some_and(|(g, more)| {
            let ok = match w.strip_suffix("...") {
                Some(prefix) => g.trim_end().starts_with(prefix),
                None => g.trim_end() == w,
            };
            ok && matches(rest, more)
        }),
    }
}

/// The tool a command needs from outside Rust, and whether it is here: `None` when it
/// needs none.
fn missing_tool(command: &str) -> Option<&'static str> {
    let first = command.split_whitespace().next().unwrap_or("");
    let hip = first == "hipcc" || command.starts_with("amdsim exec") || command.contains(" -- ");
    let present = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if first == "clang-19" && !present("clang-19") {
        assert!(
            std::env::var_os("AMDSIM_REQUIRE_DWARFDUMP").is_none(),
            "clang-19 is required (AMDSIM_REQUIRE_DWARFDUMP is set) but not installed"
        );
        return Some("clang-19");
    }
    let runtime = "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5";
    if hip && !(Path::new(runtime).exists() && (first != "hipcc" || present("hipcc"))) {
        assert!(
            std::env::var_os("AMDSIM_REQUIRE_HIP").is_none(),
            "hipcc and {runtime} are required (AMDSIM_REQUIRE_HIP is set)"
        );
        return Some("hipcc and the HIP runtime");
    }
    None
}

/// Runs one command through the shell in `dir`, `amdsim` being the binary under test;
/// returns standard output then standard error, or why it failed.
fn run(command: &str, dir: &Path) -> Result<String, String> {
    let bin = Path::new(env!("CARGO_BIN_EXE_amdsim"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .map_err(|e| e.to_string())?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(text)
    } else {
        Err(format!("exit status {:?}\n{text}", out.status.code()))
    }
}

/// The directory the tour runs in: fresh, with the files the README asks to save and a
/// `kernels` link to the tree's.
fn tour_directory(saved: &[Saved]) -> ScratchDir {
    let dir = ScratchDir::new("amdsim-readme-tour-");
    std::os::unix::fs::symlink(root().join("kernels"), dir.join("kernels")).unwrap();
    for (name, body, section) in saved {
        if section == "A tour" {
            std::fs::write(dir.join(name), body).unwrap();
        }
    }
    dir
}

#[test]
fn readme_transcripts_are_what_the_commands_print() {
    let _g = crate::cli::EXAMPLES
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let (transcripts, saved) = parse(&readme);
    assert!(transcripts.len() >= 10, "{transcripts:#?}");
    assert!(saved.iter().any(|s| s.0 == "collatz.cl"), "{saved:?}");
    let tour = tour_directory(&saved);
    let mut failures = Vec::new();
    let mut skipping: Option<&str> = None;
    let mut ran = 0;
    for (i, t) in transcripts.iter().enumerate() {
        if i > 0 && transcripts[i - 1].section != t.section {
            skipping = None;
        }
        if skipping.is_none() {
            skipping = missing_tool(&t.command).map(|_| t.section.as_str());
        }
        if skipping.is_some() {
            println!("SKIPPED (a tool is missing): {}", t.command);
            continue;
        }
        let dir = if t.section == "A tour" {
            tour.path().to_path_buf()
        } else {
            root()
        };
        ran += 1;
        match run(&t.command, &dir) {
            Ok(got) => {
                let lines: Vec<&str> = got.lines().collect();
                if !matches(&t.expected, &lines) {
                    failures.push(format!("`{}` printed:\n{got}", t.command));
                }
            }
            Err(e) => failures.push(format!("`{}` failed: {e}", t.command)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} README transcripts differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn transcript_lines_match_as_described() {
    let want = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(matches(&want(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(matches(&want(&["a", "...", "b"]), &["a", "b"]));
    assert!(matches(&want(&["run in ..."]), &["run in 0.1 s  "]));
    assert!(!matches(&want(&["a", "b"]), &["a", "b", "c"]));
    assert!(!matches(&want(&["a", "...", "d"]), &["a", "b"]));
    assert!(!matches(&want(&["run in ..."]), &["ran in 0.1 s"]));
    let (t, saved) = parse(
        "## A tour\nSave it as `k.cl`:\n```c\nkernel\n```\n\n    $ amdsim x\n    out\n\n    \
         plain\n",
    );
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].expected, ["out"]);
    assert_eq!(saved, [("k.cl".into(), "kernel\n".into(), "A tour".into())]);
}
