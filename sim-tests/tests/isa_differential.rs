//! Differential test of the instruction decoder against `llvm-mc-19 --disassemble`.
//!
//! The vectors in `sim-tests/vectors/isa/<target>.txt` were produced by
//! `sim-tests/vectors/gen_isa_vectors.py` from LLVM (see `sim-tests/vectors/README.md`);
//! this test needs no LLVM. Each line is `<enc>\t<dwords>\t<text>`: the encoding
//! family the words were built for, the little-endian dwords LLVM consumed, and
//! LLVM's text, or `<invalid>` when LLVM rejected the first dword.
//!
//! For every target the decoder must
//! - print at least 99.5% of the LLVM-accepted vectors identically (same text and
//!   same size in bytes),
//! - report every LLVM-rejected first dword as invalid (an invalid instruction, or
//!   a truncation error when it would need more bytes than LLVM was given),
//! - agree with LLVM on every hand-picked case (family `golden`, from
//!   `sim-tests/vectors/golden.txt`), and
//! - never panic (each decode runs under `catch_unwind`; a panic is a failure).
//!
//! The per-family table is printed to stderr with the first mismatches of each
//! family. `AMDSIM_DIFF_REPORT=<path>` also writes the full table and every
//! mismatch of every target to `<path>`. `AMDSIM_ISA_VECTORS=<dir>` reads the
//! vectors from `<dir>` instead (for a held-out set generated with another seed).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use amdgpu_isa::{DecodeError, Decoder, Gpu};
use amdsim_sim_tests::TARGETS;

/// A panic hook, as `std::panic::take_hook` returns it.
type PanicHook = dyn Fn(&panic::PanicHookInfo<'_>) + Sync + Send;

/// Share of LLVM-accepted vectors that must print identically, per target.
const MIN_IDENTICAL: f64 = 0.995;
/// Mismatches shown per family on stderr.
const SHOWN_PER_FAMILY: usize = 20;

/// One line of a vector file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Vector {
    /// Encoding family the candidate was generated for (`VOP3`, `SDWA`, `random`, ...).
    family: String,
    /// Instruction dwords (little-endian in memory).
    words: Vec<u32>,
    /// LLVM's text, or `None` when LLVM rejected the first dword.
    expected: Option<String>,
    /// 1-based line number in the file, for messages.
    line: usize,
}

/// A parsed vector file.
#[derive(Debug)]
struct VectorFile {
    gpu: Gpu,
    wave64: bool,
    vectors: Vec<Vector>,
}

/// Parses a vector file. The GPU and wave size come from the `# target:` header
/// line (`# target: gfx1010 wave64`); every other `#` line is a comment.
fn parse_vectors(name: &str, text: &str) -> Result<VectorFile, String> {
    let mut target = None;
    let mut vectors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if let Some(comment) = raw.strip_prefix('#') {
            if let Some(t) = comment.trim().strip_prefix("target:") {
                let mut it = t.split_whitespace();
                let gpu = it
                    .next()
                    .ok_or_else(|| format!("{name}:{line}: `# target:` without a GPU"))?;
                let gpu: Gpu = gpu.parse().map_err(|e| format!("{name}:{line}: {e}"))?;
                let wave64 = match it.next() {
                    Some("wave64") => true,
                    Some("wave32") => false,
                    other => {
                        return Err(format!(
                            "{name}:{line}: expected wave32 or wave64 after the GPU, found {other:?}"
                        ));
                    }
                };
                target = Some((gpu, wave64));
            }
            continue;
        }
        if raw.trim().is_empty() {
            continue;
        }
        let mut parts = raw.splitn(3, '\t');
        let (Some(family), Some(dwords), Some(txt)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(format!(
                "{name}:{line}: expected `<enc>\\t<dwords>\\t<text>`, found {raw:?}"
            ));
        };
        if family.is_empty() || txt.is_empty() {
            return Err(format!("{name}:{line}: empty encoding or text field"));
        }
        let words = dwords
            .split(' ')
            .map(|w| {
                if w.len() != 8 {
                    return Err(format!("{name}:{line}: dword {w:?} is not 8 hex digits"));
                }
                u32::from_str_radix(w, 16).map_err(|e| format!("{name}:{line}: dword {w:?}: {e}"))
            })
            .collect::<Result<Vec<u32>, String>>()?;
        if words.is_empty() {
            return Err(format!("{name}:{line}: no dwords"));
        }
        let expected = (txt != "<invalid>").then(|| txt.to_string());
        vectors.push(Vector {
            family: family.to_string(),
            words,
            expected,
            line,
        });
    }
    let (gpu, wave64) =
        target.ok_or_else(|| format!("{name}: no `# target: <gpu> wave<N>` header line"))?;
    if vectors.is_empty() {
        return Err(format!("{name}: no vectors"));
    }
    Ok(VectorFile {
        gpu,
        wave64,
        vectors,
    })
}

/// Counts for one encoding family of one target.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct FamilyStats {
    /// Vectors LLVM accepted.
    valid: usize,
    /// ... of which the decoder printed identically, with the same size.
    identical: usize,
    /// ... of which the decoder printed something else, or a different size.
    mismatched: usize,
    /// ... of which the decoder said invalid or truncated.
    missed: usize,
    /// Vectors LLVM rejected.
    llvm_invalid: usize,
    /// ... of which the decoder also said invalid.
    invalid_agree: usize,
    /// ... of which the decoder said the bytes are too few (counted as agreement).
    invalid_truncated: usize,
    /// ... of which the decoder produced an instruction.
    invalid_disagree: usize,
    /// Decodes that panicked (of either kind).
    panics: usize,
}

impl FamilyStats {
    fn add(&mut self, o: &FamilyStats) {
        self.valid += o.valid;
        self.identical += o.identical;
        self.mismatched += o.mismatched;
        self.missed += o.missed;
        self.llvm_invalid += o.llvm_invalid;
        self.invalid_agree += o.invalid_agree;
        self.invalid_truncated += o.invalid_truncated;
        self.invalid_disagree += o.invalid_disagree;
        self.panics += o.panics;
    }

    /// Share of LLVM-accepted vectors printed identically (1.0 when there are none).
    fn identical_rate(&self) -> f64 {
        if self.valid == 0 {
            1.0
        } else {
            self.identical as f64 / self.valid as f64
        }
    }
}

/// The comparison of one target.
#[derive(Debug, Default)]
struct TargetReport {
    target: String,
    families: BTreeMap<String, FamilyStats>,
    /// Every disagreement, per family, as one line each.
    problems: BTreeMap<String, Vec<String>>,
}

impl TargetReport {
    fn total(&self) -> FamilyStats {
        let mut t = FamilyStats::default();
        for s in self.families.values() {
            t.add(s);
        }
        t
    }

    fn table(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "{:<12} {:<10} {:>7} {:>9} {:>8} {:>7} {:>8} {:>8} {:>7} {:>9} {:>6}",
            "target",
            "family",
            "valid",
            "identical",
            "rate%",
            "mismat",
            "missed",
            "invalid",
            "agree",
            "disagree",
            "panic"
        );
        let total = self.total();
        for (fam, s) in self
            .families
            .iter()
            .map(|(k, v)| (k.as_str(), v))
            .chain(std::iter::once(("TOTAL", &total)))
        {
            let _ = writeln!(
                out,
                "{:<12} {:<10} {:>7} {:>9} {:>8.3} {:>7} {:>8} {:>8} {:>7} {:>9} {:>6}",
                self.target,
                fam,
                s.valid,
                s.identical,
                100.0 * s.identical_rate(),
                s.mismatched,
                s.missed,
                s.llvm_invalid,
                s.invalid_agree + s.invalid_truncated,
                s.invalid_disagree,
                s.panics
            );
        }
    }
}

thread_local! {
    /// The message of the last panic on this thread, captured by the quiet hook.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    /// Set while [`decode_guarded`] runs on this thread: the quiet hook captures only
    /// those panics.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Decodes `bytes`, turning a panic into `Err(message)`.
fn decode_guarded(
    dec: &Decoder,
    bytes: &[u8],
) -> Result<Result<(usize, bool, String), DecodeError>, String> {
    GUARDED.with(|g| g.set(true));
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        dec.decode(bytes)
            .map(|inst| (inst.size_bytes(), inst.is_invalid(), inst.to_string()))
    }));
    GUARDED.with(|g| g.set(false));
    r.map_err(|payload| {
        LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".to_string())
    })
}

fn hex_words(words: &[u32]) -> String {
    words
        .iter()
        .map(|w| format!("{w:08x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs every vector of one file through the decoder.
fn compare(target: &str, file: &VectorFile) -> TargetReport {
    let dec = Decoder::new(file.gpu, file.wave64);
    let mut rep = TargetReport {
        target: target.to_string(),
        ..TargetReport::default()
    };
    for v in &file.vectors {
        let bytes: Vec<u8> = v.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let stats = rep.families.entry(v.family.clone()).or_default();
        let got = decode_guarded(&dec, &bytes);
        let words = hex_words(&v.words);
        let problem = match (&v.expected, got) {
            (_, Err(msg)) => {
                stats.panics += 1;
                if v.expected.is_some() {
                    stats.valid += 1;
                    stats.missed += 1;
                } else {
                    stats.llvm_invalid += 1;
                    stats.invalid_disagree += 1;
                }
                Some(format!("PANIC {words}: {msg}"))
            }
            (Some(exp), Ok(Ok((size, invalid, text)))) => {
                stats.valid += 1;
                if invalid {
                    stats.missed += 1;
                    Some(format!(
                        "{words}\n    expected: {exp}\n    got:      {text} (invalid)"
                    ))
                } else if text == *exp && size == bytes.len() {
                    stats.identical += 1;
                    None
                } else {
                    stats.mismatched += 1;
                    let size_note = if size != bytes.len() {
                        format!(" [size {size}, LLVM {}]", bytes.len())
                    } else {
                        String::new()
                    };
                    Some(format!(
                        "{words}\n    expected: {exp}\n    got:      {text}{size_note}"
                    ))
                }
            }
            (Some(exp), Ok(Err(e))) => {
                stats.valid += 1;
                stats.missed += 1;
                Some(format!(
                    "{words}\n    expected: {exp}\n    got:      error: {e}"
                ))
            }
            (None, Ok(Ok((_, true, _)))) => {
                stats.llvm_invalid += 1;
                stats.invalid_agree += 1;
                None
            }
            (None, Ok(Err(_))) => {
                stats.llvm_invalid += 1;
                stats.invalid_truncated += 1;
                None
            }
            (None, Ok(Ok((size, false, text)))) => {
                stats.llvm_invalid += 1;
                stats.invalid_disagree += 1;
                Some(format!(
                    "{words}\n    expected: <invalid> (LLVM rejects the first dword)\n    got:      {text} [size {size}]"
                ))
            }
        };
        if let Some(p) = problem {
            rep.problems
                .entry(v.family.clone())
                .or_default()
                .push(format!("line {}: {p}", v.line));
        }
    }
    rep
}

/// `sim-tests/vectors/isa`, or the directory named by `AMDSIM_ISA_VECTORS` (a
/// held-out set written by `gen_isa_vectors.py --seed S --out DIR`).
fn vectors_dir() -> PathBuf {
    match std::env::var_os("AMDSIM_ISA_VECTORS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("vectors")
            .join("isa"),
    }
}

/// Every `*.txt` in the vectors directory, by target name.
fn vector_files() -> Result<BTreeMap<String, PathBuf>, String> {
    let dir = vectors_dir();
    let rd = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files = BTreeMap::new();
    for entry in rd {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "txt") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                files.insert(stem.to_string(), path);
            }
        }
    }
    if files.is_empty() {
        return Err(format!(
            "no vector files in {} (regenerate them with sim-tests/vectors/gen_isa_vectors.py)",
            dir.display()
        ));
    }
    Ok(files)
}

/// The comparison of every target, computed once and shared by the per-target tests.
fn all_reports() -> &'static Result<BTreeMap<String, TargetReport>, String> {
    static REPORTS: OnceLock<Result<BTreeMap<String, TargetReport>, String>> = OnceLock::new();
    REPORTS.get_or_init(|| {
        let files = vector_files()?;
        let mut parsed = Vec::new();
        for (target, path) in &files {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            parsed.push((target.clone(), parse_vectors(target, &text)?));
        }
        // Panics inside the decoder are counted, not printed one by one. The hook is
        // the process's and the other tests of the binary run meanwhile: their panics
        // go to the previous hook.
        let previous: Arc<PanicHook> = panic::take_hook().into();
        let others = previous.clone();
        panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(|g| g.get()) {
                return others(info);
            }
            let msg = match info.location() {
                Some(l) => format!("{} at {}:{}", info_payload(info), l.file(), l.line()),
                None => info_payload(info),
            };
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(msg));
        }));
        let reports: BTreeMap<String, TargetReport> = parsed
            .iter()
            .map(|(t, f)| (t.clone(), compare(t, f)))
            .collect();
        let _quiet = panic::take_hook();
        panic::set_hook(Box::new(move |info| previous(info)));
        if let Some(path) = std::env::var_os("AMDSIM_DIFF_REPORT") {
            let mut out = String::new();
            for rep in reports.values() {
                rep.table(&mut out);
                out.push('\n');
            }
            for rep in reports.values() {
                for (fam, problems) in &rep.problems {
                    let _ = writeln!(
                        out,
                        "== {} {} ({} disagreements)",
                        rep.target,
                        fam,
                        problems.len()
                    );
                    for p in problems {
                        let _ = writeln!(out, "{p}");
                    }
                }
            }
            std::fs::write(&path, out)
                .map_err(|e| format!("AMDSIM_DIFF_REPORT={}: {e}", Path::new(&path).display()))?;
        }
        Ok(reports)
    })
}

fn info_payload(info: &panic::PanicHookInfo<'_>) -> String {
    if let Some(s) = info.payload().downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = info.payload().downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

/// Prints the table and first mismatches of `target` and asserts the thresholds.
fn check_target(target: &str) {
    let reports = match all_reports() {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    let Some(rep) = reports.get(target) else {
        panic!(
            "no vectors for {target} in {} (regenerate them with sim-tests/vectors/gen_isa_vectors.py)",
            vectors_dir().display()
        );
    };
    let mut out = String::new();
    rep.table(&mut out);
    for (fam, problems) in &rep.problems {
        let _ = writeln!(
            out,
            "-- {target} {fam}: {} disagreements, first {}:",
            problems.len(),
            problems.len().min(SHOWN_PER_FAMILY)
        );
        for p in problems.iter().take(SHOWN_PER_FAMILY) {
            let _ = writeln!(out, "  {p}");
        }
    }
    eprintln!("{out}");
    let total = rep.total();
    assert!(total.valid > 0, "{target}: no LLVM-accepted vectors");
    assert_eq!(
        total.panics, 0,
        "{target}: the decoder panicked on {} vectors",
        total.panics
    );
    assert_eq!(
        total.invalid_disagree, 0,
        "{target}: {} of {} words LLVM rejects were decoded as instructions",
        total.invalid_disagree, total.llvm_invalid
    );
    // The hand-picked cases (`golden.txt`) each pin one printing or
    // validity rule: all of them must agree, whatever the overall rate.
    if let Some(g) = rep.families.get("golden") {
        assert_eq!(
            (g.identical, g.invalid_agree + g.invalid_truncated),
            (g.valid, g.llvm_invalid),
            "{target}: the golden cases must all agree with LLVM"
        );
    }
    assert!(
        total.identical_rate() >= MIN_IDENTICAL,
        "{target}: {} of {} LLVM-accepted vectors print identically ({:.3}%, need {:.1}%)",
        total.identical,
        total.valid,
        100.0 * total.identical_rate(),
        100.0 * MIN_IDENTICAL
    );
}

#[test]
fn gfx900() {
    check_target("gfx900");
}

#[test]
fn gfx906() {
    check_target("gfx906");
}

#[test]
fn gfx908() {
    check_target("gfx908");
}

#[test]
fn gfx90a() {
    check_target("gfx90a");
}

#[test]
fn gfx1010() {
    check_target("gfx1010");
}

#[test]
fn gfx1030() {
    check_target("gfx1030");
}

#[test]
fn gfx1010_w64() {
    check_target("gfx1010-w64");
}

#[test]
fn gfx1030_w64() {
    check_target("gfx1030-w64");
}

/// Every committed file belongs to a target with a test, and every target has a file.
#[test]
fn vector_files_match_targets() {
    let files = vector_files().unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    let mut expected: Vec<&str> = TARGETS.to_vec();
    expected.sort_unstable();
    assert_eq!(
        names,
        expected,
        "vector files in {}",
        vectors_dir().display()
    );
}

/// The files are well-formed and their headers name the right GPU and wave size.
#[test]
fn vector_headers_name_the_target() {
    let files = vector_files().unwrap_or_else(|e| panic!("{e}"));
    for (target, path) in files {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let f = parse_vectors(&target, &text).unwrap_or_else(|e| panic!("{e}"));
        let (gpu, w64) = target
            .split_once('-')
            .map_or((target.as_str(), false), |(g, s)| (g, s == "w64"));
        assert_eq!(f.gpu.name(), gpu, "{target}: header GPU");
        let wave64 = w64 || f.gpu.generation() == amdgpu_isa::Gen::Gfx9;
        assert_eq!(f.wave64, wave64, "{target}: header wave size");
        assert!(
            f.vectors.iter().any(|v| v.expected.is_none()),
            "{target}: no LLVM-rejected vectors"
        );
    }
}

#[test]
fn parser_reads_valid_and_invalid_lines() {
    let text = "# comment\n# target: gfx1030 wave32\nVOP2\t02000501\tv_cndmask_b32_e32 v0, v1, v2, vcc_lo\nrandom\tffffffff 00000000\t<invalid>\n";
    let f = parse_vectors("t", text).expect("parses");
    assert_eq!(f.gpu, Gpu::Gfx1030);
    assert!(!f.wave64);
    assert_eq!(
        f.vectors,
        vec![
            Vector {
                family: "VOP2".into(),
                words: vec![0x0200_0501],
                expected: Some("v_cndmask_b32_e32 v0, v1, v2, vcc_lo".into()),
                line: 3,
            },
            Vector {
                family: "random".into(),
                words: vec![0xffff_ffff, 0],
                expected: None,
                line: 4,
            },
        ]
    );
}

#[test]
fn parser_rejects_malformed_lines() {
    let header = "# target: gfx900 wave64\n";
    for bad in [
        "VOP2\t0200050\tv_nop",        // 7 hex digits
        "VOP2\t02000501",              // no text
        "VOP2\t0200050g\tv_nop",       // not hex
        "VOP2\t02000501  00000000\tx", // double space
        "\t02000501\tv_nop",           // empty family
    ] {
        assert!(
            parse_vectors("t", &format!("{header}{bad}\n")).is_err(),
            "accepted {bad:?}"
        );
    }
    assert!(
        parse_vectors("t", "VOP2\t02000501\tv_nop\n").is_err(),
        "no header"
    );
    assert!(parse_vectors("t", header).is_err(), "no vectors");
    assert!(
        parse_vectors("t", "# target: gfx1100 wave32\nVOP2\t02000501\tv_nop\n").is_err(),
        "unknown GPU"
    );
}
