//! The coverage report ([`amdgpu_sim::coverage`]) against execution.
//!
//! Every LLVM-accepted word of `sim-tests/vectors/isa/<target>.txt` (real
//! instruction words of every encoding family and opcode, see
//! `sim-tests/vectors/README.md`) is decoded, placed before an `s_endpgm`,
//! and executed for one step on a wave with a pseudo-random state, through the
//! general executor and through the pre-resolved handlers. Then:
//!
//! - an operation the report calls executed never yields
//!   `SimError::Unimplemented` (faults, refused modifiers and other errors are
//!   fine: the random state makes many of those);
//! - an operation the report does not call executed yields
//!   `SimError::Unimplemented` for at least one of its words, and never
//!   completes (only `Unimplemented` or a refusal before it, such as the GDS
//!   bit of a DS word);
//! - every operation the report lists for a target is reached by some word of
//!   that target, and every decoded operation is in the report.
//!
//! A second test pins the not-implemented compute operations per target, so
//! an operation silently dropping out of the executor fails it; a third
//! prints the counts.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{self, AssertUnwindSafe};

use amdgpu_isa::{Decoder, Gpu, Op};
use amdgpu_sim::coverage::{Report, Status};
use amdgpu_sim::exec::{Ctx, Prepared, step, step_with};
use amdgpu_sim::memory::{Bytes, GlobalMemory, Scratch};
use amdgpu_sim::{Mask, SimError, Space, Wave};
use amdsim_sim_tests::{TARGETS, repo_path};

const BASE: u64 = 0x1000;

/// A target's vector file: its GPU, wave size, and the valid words.
fn vectors(target: &str) -> (Gpu, bool, Vec<Vec<u32>>) {
    let path = repo_path(&["sim-tests", "vectors", "isa", &format!("{target}.txt")]);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut target = None;
    let mut words = Vec::new();
    for line in text.lines() {
        if let Some(t) = line.strip_prefix("# target:") {
            let mut it = t.split_whitespace();
            let gpu: Gpu = it.next().unwrap().parse().unwrap();
            target = Some((gpu, it.next() == Some("wave64")));
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut parts = line.splitn(3, '\t');
        let (Some(_), Some(dwords), Some(text)) = (parts.next(), parts.next(), parts.next()) else {
            panic!("{path:?}: bad line {line:?}");
        };
        if text == "<invalid>" {
            continue;
        }
        words.push(
            dwords
                .split(' ')
                .map(|w| u32::from_str_radix(w, 16).unwrap())
                .collect(),
        );
    }
    let (gpu, wave64) = target.expect("a `# target:` line");
    (gpu, wave64, words)
}

/// xorshift64*: a deterministic pseudo-random stream.
struct Rng(u64);

// Inlined even in an unoptimised build: `step_once` fills every register of a wave
// for each of thousands of words, and the calls took a third of the test's time.
impl Rng {
    #[inline(always)]
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A register value: small integers, floats near one, any bits, or an
    /// address inside the mapped buffer.
    #[inline(always)]
    fn value(&mut self, heap: u64) -> u32 {
        let r = self.next();
        match r % 5 {
            0 => (r >> 8) as u32 % 64,
            1 => ((((r >> 8) % 2000) as f32 - 1000.0) / 256.0).to_bits(),
            2 => (r >> 16) as u32,
            3 => (heap + (r >> 8) % 0x1000 * 4) as u32,
            _ => (heap >> 32) as u32,
        }
    }
}

/// What one step of an instruction came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Completed,
    Unimplemented,
    OtherError,
}

/// Executes the instruction `words` for one step, through the general
/// executor and the pre-resolved handlers; both must come to the same.
fn step_once(gpu: Gpu, wave64: bool, words: &[u32], seed: u64) -> (Op, Outcome, String) {
    let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    bytes.extend(0xbf81_0000u32.to_le_bytes()); // s_endpgm
    let program = Decoder::new(gpu, wave64).decode_program(&bytes, BASE);
    let op = program.at(BASE).map(|i| i.op).unwrap_or(Op::Invalid);
    let mem = GlobalMemory::new();
    let heap = mem.allocate(0x8000).unwrap();
    let size = if wave64 { 64 } else { 32 };
    let mut rng = Rng(seed | 1);
    let mut w = Wave::new(size, BASE, Scratch::new(256, size), 0, 256);
    for s in w.sgpr.iter_mut() {
        *s = rng.value(heap);
    }
    for r in w.vgpr.iter_mut() {
        for v in r.iter_mut() {
            *v = rng.value(heap);
        }
    }
    if gpu.has_mfma() {
        w.agpr = w.vgpr.clone();
    }
    w.exec = Mask(if wave64 { u64::MAX } else { 0xffff_ffff });
    w.vcc = Mask(rng.next() & w.exec.0);
    w.m0 = rng.value(heap);
    let mut lds = Bytes::new(0x10000, Space::Lds);
    let ctx = Ctx {
        program: &program,
        mem: &mem,
        gpu,
        group: [0; 3],
        max_instructions: 10,
    };
    let outcome = |r: &Result<(), SimError>| match r {
        Ok(()) => Outcome::Completed,
        Err(SimError::Unimplemented { .. }) => Outcome::Unimplemented,
        Err(_) => Outcome::OtherError,
    };
    let mut w2 = w.clone();
    let mut lds2 = lds.clone();
    let r = step(&mut w, &mut lds, &ctx);
    let prepared = Prepared::new(&program);
    let r2 = step_with(&mut w2, &mut lds2, &ctx, Some(&prepared));
    assert_eq!(
        outcome(&r),
        outcome(&r2),
        "{gpu} {words:08x?}: general {r:?}, pre-resolved {r2:?}"
    );
    let text = program.at(BASE).map(|i| i.to_string()).unwrap_or_default();
    (op, outcome(&r), format!("{text}: {r:?}"))
}

fn op_name(op: Op) -> &'static str {
    match op {
        Op::Alu(o) => o.name(),
        Op::Mem(o) => o.name(),
        Op::Invalid => "<invalid>",
    }
}

/// Operations the committed vectors have no valid word of, by target: the
/// DS global-wave-sync and ordered-count operations (LLVM-19 accepts none of
/// the generated words), GFX9's `buffer_store_lds_dword`, and the GFX10
/// MUBUF `*_format_d16_*` operations, whose opcodes (0x80-0x87) need bit 25,
/// which the generator sets only in its random words. The test checks that
/// exactly these are unreached, so that the list stays true.
const UNREACHED: &[(&str, &[&str])] = &[
    ("ds_gws_barrier", &TARGETS),
    ("ds_gws_init", &TARGETS),
    ("ds_gws_sema_br", &TARGETS),
    ("ds_gws_sema_p", &TARGETS),
    ("ds_gws_sema_release_all", &TARGETS),
    ("ds_gws_sema_v", &TARGETS),
    (
        "ds_ordered_count",
        &[
            "gfx900",
            "gfx906",
            "gfx908",
            "gfx1010",
            "gfx1030",
            "gfx1010-w64",
            "gfx1030-w64",
        ],
    ),
    (
        "buffer_store_lds_dword",
        &["gfx900", "gfx906", "gfx908", "gfx90a"],
    ),
    (
        "buffer_load_format_d16_x",
        &["gfx1010", "gfx1030", "gfx1010-w64", "gfx1030-w64"],
    ),
    (
        "buffer_load_format_d16_xy",
        &["gfx1010", "gfx1030", "gfx1010-w64"],
    ),
    (
        "buffer_load_format_d16_xyz",
        &["gfx1010", "gfx1030", "gfx1010-w64", "gfx1030-w64"],
    ),
    (
        "buffer_load_format_d16_xyzw",
        &["gfx1010", "gfx1030", "gfx1010-w64", "gfx1030-w64"],
    ),
    (
        "buffer_store_format_d16_x",
        &["gfx1030", "gfx1010-w64", "gfx1030-w64"],
    ),
    (
        "buffer_store_format_d16_xy",
        &["gfx1010", "gfx1030", "gfx1010-w64", "gfx1030-w64"],
    ),
    (
        "buffer_store_format_d16_xyz",
        &["gfx1030", "gfx1010-w64", "gfx1030-w64"],
    ),
    (
        "buffer_store_format_d16_xyzw",
        &["gfx1010", "gfx1030", "gfx1010-w64", "gfx1030-w64"],
    ),
];

/// The disagreements between the report and execution on one target.
fn check_target(target: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let (gpu, wave64, words) = vectors(target);
    let report = Report::new(gpu);
    // Outcomes by operation name, and one example each.
    let mut seen: BTreeMap<&str, BTreeSet<Outcome>> = BTreeMap::new();
    let mut example: BTreeMap<(&str, Outcome), String> = BTreeMap::new();
    for (n, w) in words.iter().enumerate() {
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            step_once(gpu, wave64, w, n as u64 * 0x9e37_79b9 + 7)
        }));
        let Ok((op, outcome, text)) = r else {
            failures.push(format!("{target}: {w:08x?} panics"));
            continue;
        };
        if op == Op::Invalid {
            continue;
        }
        let name = op_name(op);
        seen.entry(name).or_default().insert(outcome);
        example.entry((name, outcome)).or_insert(text);
    }
    for e in &report.entries {
        let Some(outcomes) = seen.get(e.name) else {
            let pinned = UNREACHED
                .iter()
                .any(|(n, ts)| *n == e.name && ts.contains(&target));
            if !pinned {
                failures.push(format!("{target}: {} is never reached by a vector", e.name));
            }
            continue;
        };
        if UNREACHED
            .iter()
            .any(|(n, ts)| *n == e.name && ts.contains(&target))
        {
            failures.push(format!(
                "{target}: {} is listed in UNREACHED but a vector reaches it",
                e.name
            ));
        }
        let executed = e.status == Status::Executed;
        if executed && outcomes.contains(&Outcome::Unimplemented) {
            failures.push(format!(
                "{target}: {} is reported executed, but `{}`",
                e.name,
                example[&(e.name, Outcome::Unimplemented)]
            ));
        }
        if !executed && outcomes.contains(&Outcome::Completed) {
            failures.push(format!(
                "{target}: {} is reported not executed, but `{}`",
                e.name,
                example[&(e.name, Outcome::Completed)]
            ));
        }
        if !executed && !outcomes.contains(&Outcome::Unimplemented) {
            failures.push(format!(
                "{target}: {} is reported not executed, but no word of it is \
                 unimplemented ({outcomes:?})",
                e.name
            ));
        }
    }
    for name in seen.keys() {
        if report.get(name).is_none() {
            failures.push(format!("{target}: {name} decodes but is not in the report"));
        }
    }
    failures
}

#[test]
fn report_agrees_with_execution() {
    report_agrees_on(&amdsim_sim_tests::SWEEP_SAMPLE);
}

#[test]
#[ignore = "the sweep over the other targets: run by .ci/run with --ignored"]
fn report_agrees_with_execution_on_every_target() {
    report_agrees_on(&amdsim_sim_tests::SWEEP_REST);
}

fn report_agrees_on(targets: &[&str]) {
    // The targets on two threads (the test runs in a debug build).
    let (a, b) = targets.split_at(targets.len() / 2);
    let failures: Vec<String> = std::thread::scope(|s| {
        let h = s.spawn(|| a.iter().flat_map(|t| check_target(t)).collect::<Vec<_>>());
        let mut f: Vec<String> = b.iter().flat_map(|t| check_target(t)).collect();
        f.splice(0..0, h.join().unwrap());
        f
    });
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The file that pins the compute operations not executed.
const PINNED: &str = "sim-tests/coverage/not_implemented.txt";

/// The not-implemented list as the file holds it: one line per operation,
/// `name<TAB>targets`, sorted by name.
fn not_implemented_text() -> String {
    let mut by_name: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for gpu in Gpu::ALL {
        for e in Report::new(gpu).not_implemented() {
            by_name.entry(e.name).or_default().push(gpu.name());
        }
    }
    let mut out = String::from(
        "# Compute operations the simulator does not execute, with the targets whose\n\
         # decoder has them (`amdsim isa coverage --missing` shows the reasons).\n\
         # Checked by sim-tests/tests/isa_coverage.rs; after implementing an operation,\n\
         # rewrite with AMDSIM_COVERAGE_WRITE=1 cargo test -p amdsim-sim-tests --test integration isa_coverage::\n",
    );
    for (name, gpus) in by_name {
        out.push_str(&format!("{name}\t{}\n", gpus.join(" ")));
    }
    out
}

#[test]
fn not_implemented_operations_are_pinned() {
    let now = not_implemented_text();
    let path = repo_path(&[PINNED]);
    if std::env::var_os("AMDSIM_COVERAGE_WRITE").is_some() {
        std::fs::write(&path, &now).unwrap();
        return;
    }
    let pinned = std::fs::read_to_string(&path).unwrap_or_default();
    let lines = |t: &str| -> BTreeSet<String> {
        t.lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    let (was, is) = (lines(&pinned), lines(&now));
    let dropped: Vec<_> = is.difference(&was).collect();
    let gained: Vec<_> = was.difference(&is).collect();
    assert!(
        dropped.is_empty() && gained.is_empty(),
        "the not-implemented operations differ from {PINNED}\n\
         newly not executed (a regression?): {dropped:#?}\n\
         no longer listed (implemented? then rewrite the file): {gained:#?}"
    );
}

#[test]
fn print_counts() {
    for gpu in Gpu::ALL {
        let c = Report::new(gpu).counts();
        assert_eq!(c.total(), Report::new(gpu).entries.len());
        println!("{gpu:8} {c}");
    }
}
