//! The lane-stepping scenarios of `sim-tests/scenarios/*.ron` pass, the suite covers every
//! kind of step and every lane state the committed kernels reach, bad scenarios give
//! errors that say what and where, and the divergence picture of a recorded wave is
//! well-formed SVG with one row per lane and a legend of exactly the lines executed.
//!
//! Each scenario says in its comments why each lane is where it expects it (from the
//! kernel's source and the lane's input).

use amdgpu_lanes::Image;
use amdgpu_lanes::scenario::{LaneExpect, Scenario, ScenarioError, Step, parse_file, run_file};
use amdgpu_lanes::service::LaneState;
use amdgpu_lanes::stepper::{StepError, Stepper};
use amdgpu_lanes::svg::{SvgOptions, Trace, legend, render};
use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use amdsim_sim_tests::{ScratchDir, read_kernel, repo_path};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn scenario_dir() -> PathBuf {
    repo_path(&["sim-tests", "scenarios"])
}

/// The scenario files of the suite, sorted.
fn suite() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(scenario_dir())
        .expect("sim-tests/scenarios")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_scenario_passes() {
    let files = suite();
    assert!(files.len() >= 7, "{} scenarios", files.len());
    let mut failures = Vec::new();
    for f in &files {
        match run_file(f) {
            Ok(report) => {
                let n = parse_file(f).expect("parses").steps.len();
                if report.steps.len() != n {
                    failures.push(format!(
                        "{}: {} of {n} steps reported",
                        f.display(),
                        report.steps.len()
                    ));
                }
            }
            Err(e) => {
                // The last steps that ran, for context.
                let context = e
                    .partial_report()
                    .map(|r| {
                        let text = r.to_string();
                        let lines: Vec<&str> = text.lines().collect();
                        lines[lines.len().saturating_sub(12)..].join("\n")
                    })
                    .unwrap_or_default();
                failures.push(format!("{}: {e}\n{context}", f.display()));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// The name of a step kind (a `match`, so a new kind of step has to be named here).
fn kind(s: &Step) -> &'static str {
    match s {
        Step::Break(b) => match b {
            amdgpu_lanes::stepper::BreakAt::Line { file: None, .. } => "Break(line)",
            amdgpu_lanes::stepper::BreakAt::Line { file: Some(_), .. } => "Break(file, line)",
            amdgpu_lanes::stepper::BreakAt::Function(_) => "Break(function)",
            amdgpu_lanes::stepper::BreakAt::Address(_) => "Break(address)",
        },
        Step::Delete => "Delete",
        Step::Continue => "Continue",
        Step::StepInstruction => "StepInstruction",
        Step::StepLine { .. } => "StepLine",
        Step::Focus(f) if f.group.is_some() => "Focus(group, wave)",
        Step::Focus(_) => "Focus(wave)",
        Step::Lanes(_) => "Lanes",
        Step::ActiveMask(_) => "ActiveMask",
        Step::Exec(_) => "Exec",
        Step::At(_) => "At",
        Step::Var(_) => "Var",
        Step::Positions(_) => "Positions",
        Step::DispatchFinished => "DispatchFinished",
    }
}

fn state(e: &LaneExpect) -> &'static str {
    match e {
        LaneExpect::Active(_) => "active",
        LaneExpect::Divergent(_) => "divergent",
        LaneExpect::Finished => "finished",
        LaneExpect::NotEntered => "not-entered",
        LaneExpect::Outside => "outside",
        LaneExpect::Unknown => "unknown",
    }
}

#[test]
fn the_suite_covers_every_step_kind_state_and_target() {
    let mut kinds = BTreeSet::new();
    let mut states = BTreeSet::new();
    let mut objects = BTreeSet::new();
    for f in suite() {
        let s: Scenario = parse_file(&f).unwrap_or_else(|e| panic!("{e}"));
        objects.insert(s.kernel.code_object.to_string_lossy().into_owned());
        for step in &s.steps {
            kinds.insert(kind(step));
            if let Step::Lanes(m) = step {
                for (_, e) in &m.0 {
                    states.insert(state(e));
                }
            }
        }
    }
    let want_kinds = [
        "Break(line)",
        "Break(file, line)",
        "Break(function)",
        "Break(address)",
        "Delete",
        "Continue",
        "StepInstruction",
        "StepLine",
        "Focus(group, wave)",
        "Focus(wave)",
        "Lanes",
        "ActiveMask",
        "Exec",
        "At",
        "Var",
        "Positions",
        "DispatchFinished",
    ];
    let missing: Vec<_> = want_kinds.iter().filter(|k| !kinds.contains(*k)).collect();
    assert!(missing.is_empty(), "no scenario uses {missing:?}");
    // Unknown is what the reconstruction cannot say, never an expectation.
    for s in ["active", "divergent", "finished", "outside", "not-entered"] {
        assert!(states.contains(s), "no scenario expects a lane {s}");
    }
    for t in ["gfx900", "gfx1030", "gfx1030-w64"] {
        for k in [
            "divergence.O2g.co",
            "divergence.O0g.co",
            "reduce_sum.O2g.co",
        ] {
            let needed = !(t == "gfx1030-w64" && k != "divergence.O2g.co");
            let path = format!("../../kernels/bin/{t}/{k}");
            assert!(
                !needed || objects.contains(&path),
                "no scenario runs {path}"
            );
        }
    }
}

/// The annotated code objects the DWARF scenarios run are `amdsim annotate-lanes` of the
/// committed kernels with the default options, byte for byte.
#[test]
fn the_annotated_scenario_objects_are_current() {
    use amdgpu_lanes::annotate::{AnnotateOptions, annotate};
    let dir = scenario_dir().join("annotated");
    let mut n = 0;
    for t in std::fs::read_dir(&dir).expect("sim-tests/scenarios/annotated") {
        let t = t.expect("entry").path();
        let target = t.file_name().unwrap().to_string_lossy().into_owned();
        for f in std::fs::read_dir(&t).expect("target dir") {
            let f = f.expect("entry").path();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            let original = read_kernel(&target, &name).unwrap_or_else(|e| panic!("{e}"));
            let want = annotate(&original, &AnnotateOptions::default())
                .unwrap_or_else(|e| panic!("{target}/{name}: {e}"));
            let got = std::fs::read(&f).expect("read");
            assert!(
                got == want,
                "{} is not annotate-lanes of kernels/bin/{target}/{name}: \
                 amdsim annotate-lanes kernels/bin/{target}/{name} {}",
                f.display(),
                f.display()
            );
            n += 1;
        }
    }
    assert!(n >= 2, "{n} annotated objects");
}

#[test]
fn the_report_shows_each_step_and_the_lanes() {
    let f = scenario_dir().join("divergence_O2_gfx900.ron");
    let report = run_file(&f).unwrap_or_else(|e| panic!("{e}"));
    let text = report.to_string();
    assert!(
        text.contains("kernel `divergence` (gfx900, wave64)"),
        "{text}"
    );
    assert!(
        text.contains("#1 Break(function: \"divergence\")"),
        "{text}"
    );
    assert!(text.contains("#2 Continue\n   breakpoint: work-group (0, 0, 0) wave 0 at 0x1900"));
    // The lanes table of the first arrival at line 20: a state map and lanes by place.
    assert!(text.contains("lanes  0-31 dddAdddA dddAdddA"), "{text}");
    assert!(
        text.contains("divergence.cl:18 in divergence") && text.contains("lanes 13, 39"),
        "{text}"
    );
    assert!(
        text.contains("ok: active mask 0x8888880888888888"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------
// Bad scenarios.

/// Runs a scenario given as text, with code object paths relative to the suite.
fn run_text(text: &str) -> Result<amdgpu_lanes::scenario::Report, ScenarioError> {
    Scenario::parse(text)?.run(&scenario_dir())
}

/// A divergence.O2g scenario on `target` with the given steps.
fn divergence(target: &str, level: &str, steps: &str) -> String {
    format!(
        r#"Scenario(
    kernel: (code_object: "../../kernels/bin/{target}/divergence.{level}g.co"),
    dispatch: (grid: 100, group: 64, args: [
        Buffer(Iota(elem: u32, count: 100)), Buffer(Zeros(elem: u32, count: 100)), U32(90),
    ]),
    steps: [{steps}],
)"#
    )
}

fn step_error(
    r: Result<amdgpu_lanes::scenario::Report, ScenarioError>,
) -> (usize, String, StepError) {
    match r {
        Err(ScenarioError::Step {
            index, text, error, ..
        }) => (index, text, *error),
        Ok(report) => panic!("expected a step error, got a report:\n{report}"),
        Err(other) => panic!("expected a step error, got {other}"),
    }
}

#[test]
fn a_typo_names_its_line_and_column() {
    let dir = ScratchDir::new("amdsim-scenario-typo-");
    let file = dir.join("typo.ron");
    let text = divergence(
        "gfx900",
        "O2",
        "\n        Break(line: 20),\n        Contineu,\n    ",
    );
    std::fs::write(&file, &text).expect("write");
    // Where the typo is, counted independently of the parser.
    let (line, col) = text
        .lines()
        .enumerate()
        .find_map(|(i, l)| l.find("Contineu").map(|c| (i + 1, c + 1)))
        .expect("typo in text");
    let e = run_file(&file).expect_err("a typo");
    let shown = e.to_string();
    match &e {
        ScenarioError::Parse {
            path,
            line: l,
            column,
            message,
        } => {
            assert_eq!(path.as_deref(), Some(file.as_path()));
            assert_eq!((*l, *column), (line, col), "{shown}");
            assert!(
                message.contains("Contineu") && message.contains("Continue"),
                "{shown}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        shown.starts_with(&format!("{}:{line}:{col}: ", file.display())),
        "{shown}"
    );

    // A wrong field, a missing parenthesis, two values for one variable, a bad lane set.
    for (steps, needle) in [
        ("StepLine(lan: 3)", "lan"),
        ("Lanes({3: Active})", "Active()"),
        (
            "Var(lane: 3, name: \"acc\", u32: 1, i32: 1)",
            "exactly one value",
        ),
        ("Lanes({\"4..2\": Finished})", "names no lane"),
        ("Break(file: \"divergence.cl\")", "needs a `line`"),
    ] {
        let text = divergence("gfx900", "O2", steps);
        match Scenario::parse(&text) {
            Err(ScenarioError::Parse { line, message, .. }) => {
                assert_eq!(line, 6, "{steps}: {message}");
                assert!(message.contains(needle), "{steps}: {message}");
            }
            other => panic!("{steps}: {other:?}"),
        }
    }
}

#[test]
fn a_line_without_code_names_the_nearest_lines_with_code() {
    // Line 15 is a comment; at -O0 lines 14 and 16 have code, at -O2 line 16 (`acc = 1u`)
    // has none of its own and the next line with code is 17.
    for (level, before, after) in [("O0", 14, 16), ("O2", 14, 17)] {
        let (index, text, e) = step_error(run_text(&divergence(
            "gfx900",
            level,
            "Break(line: 20), Break(line: 15)",
        )));
        assert_eq!((index, text.as_str()), (2, "Break(line: 15)"));
        match &e {
            StepError::NoCode {
                line,
                before: b,
                after: a,
                ..
            } => assert_eq!((*line, *b, *a), (15, Some(before), Some(after))),
            other => panic!("{other:?}"),
        }
        assert!(
            e.to_string()
                .contains(&format!("nearest lines with code are {before} and {after}")),
            "{e}"
        );
    }
    // Before the first and after the last line with code.
    let (_, _, e) = step_error(run_text(&divergence("gfx900", "O2", "Break(line: 2)")));
    assert!(
        matches!(
            e,
            StepError::NoCode {
                before: None,
                after: Some(8),
                ..
            }
        ),
        "{e:?}"
    );
    let (_, _, e) = step_error(run_text(&divergence("gfx900", "O2", "Break(line: 400)")));
    assert!(
        matches!(
            e,
            StepError::NoCode {
                before: Some(38),
                after: None,
                ..
            }
        ),
        "{e:?}"
    );
    let (_, _, e) = step_error(run_text(&divergence(
        "gfx900",
        "O2",
        "Break(file: \"other.cl\", line: 3)",
    )));
    assert!(
        matches!(&e, StepError::NoFile { known, .. } if known.iter().any(|f| f.ends_with("divergence.cl"))),
        "{e:?}"
    );
    let (_, _, e) = step_error(run_text(&divergence(
        "gfx900",
        "O2",
        "Break(function: \"divergenc\")",
    )));
    assert!(
        matches!(&e, StepError::NoFunction { known, .. } if known == &["divergence"]),
        "{e:?}"
    );
    // 0x1902 is inside the first (8-byte) instruction; 0x10 is outside the code.
    for a in ["0x1902", "0x1904", "0x10"] {
        let (_, _, e) = step_error(run_text(&divergence(
            "gfx900",
            "O2",
            &format!("Break(address: {a})"),
        )));
        assert!(
            matches!(e, StepError::NotAnInstruction { .. }),
            "{a}: {e:?}"
        );
    }
}

#[test]
fn lanes_waves_and_groups_out_of_range_are_errors() {
    let stop = "Break(line: 20), Continue, ";
    type Check = fn(&StepError) -> bool;
    let cases: [(&str, &str, Check); 8] = [
        ("gfx900", "StepLine(lane: 64)", |e| {
            matches!(
                e,
                StepError::LaneOutOfRange {
                    lane: 64,
                    wave_size: 64
                }
            )
        }),
        ("gfx1030", "StepLine(lane: 32)", |e| {
            matches!(
                e,
                StepError::LaneOutOfRange {
                    lane: 32,
                    wave_size: 32
                }
            )
        }),
        ("gfx900", "Lanes({70: Outside})", |e| {
            matches!(
                e,
                StepError::LaneOutOfRange {
                    lane: 70,
                    wave_size: 64
                }
            )
        }),
        ("gfx1030", "Lanes({\"0..64\": Outside})", |e| {
            matches!(e, StepError::LaneOutOfRange { wave_size: 32, .. })
        }),
        ("gfx1030", "Var(lane: 40, name: \"v\", u32: 0)", |e| {
            matches!(e, StepError::LaneOutOfRange { lane: 40, .. })
        }),
        ("gfx900", "Focus(wave: 1)", |e| {
            matches!(e, StepError::WaveOutOfRange { wave: 1, waves: 1 })
        }),
        ("gfx1030", "Focus(group: (2, 0, 0), wave: 0)", |e| {
            matches!(
                e,
                StepError::GroupOutOfRange {
                    groups: [2, 1, 1],
                    ..
                }
            )
        }),
        (
            "gfx1030",
            "Focus(group: (1, 0, 0), wave: 0), Focus(group: (0, 0, 0), wave: 0)",
            |e| {
                matches!(
                    e,
                    StepError::GroupPassed {
                        group: [0, 0, 0],
                        ..
                    }
                )
            },
        ),
    ];
    for (target, steps, ok) in cases {
        let (_, text, e) = step_error(run_text(&divergence(
            target,
            "O2",
            &format!("{stop}{steps}"),
        )));
        assert!(ok(&e), "{target} `{text}`: {e:?}");
        assert!(!e.to_string().is_empty());
    }
    // Steps that need a stopped wave, before anything runs and after the end.
    let (index, _, e) = step_error(run_text(&divergence(
        "gfx900",
        "O2",
        "Lanes({0: Active()})",
    )));
    assert_eq!(index, 1);
    assert!(
        matches!(e, StepError::NotRunning { group: [0, 0, 0] }),
        "{e:?}"
    );
    let (_, _, e) = step_error(run_text(&divergence(
        "gfx900",
        "O2",
        "Continue, StepInstruction",
    )));
    assert!(matches!(e, StepError::DispatchFinished), "{e:?}");
    // A lane that has finished has no line to step from.
    let (_, _, e) = step_error(run_text(&divergence(
        "gfx1030",
        "O2",
        "Focus(group: (1, 0, 0), wave: 0), Break(line: 37), Continue, StepLine(lane: 30)",
    )));
    assert!(
        matches!(
            e,
            StepError::LaneNotRunning {
                lane: 30,
                state: "finished"
            }
        ),
        "{e:?}"
    );
    // Variables are read for the wave that stopped; focusing another does not stop it.
    let (_, _, e) = step_error(run_text(&divergence(
        "gfx1030",
        "O0",
        "Break(line: 16), Continue, Focus(wave: 1), Var(lane: 0, name: \"v\", u32: 32)",
    )));
    assert!(
        matches!(
            e,
            StepError::NotTheStoppedWave {
                focus: 1,
                stopped: 0
            }
        ),
        "{e:?}"
    );
}

#[test]
fn a_failed_assertion_names_the_step_lane_expectation_and_finding() {
    let r = run_text(&divergence(
        "gfx900",
        "O2",
        "Break(line: 20), Continue, Lanes({3: Divergent(line: 14), 4: Divergent(line: 14), \
         40: Finished}), ActiveMask(0)",
    ));
    match r {
        Err(ScenarioError::Assertion {
            index,
            text,
            failures,
            report,
        }) => {
            assert_eq!(index, 3);
            assert_eq!(
                text,
                "Lanes({3: Divergent(line: 14), 4: Divergent(line: 14), 40: Finished})"
            );
            // Lane 4 is where it was said to be; lanes 3 and 40 are not.
            let lanes: Vec<Option<u32>> = failures.iter().map(|f| f.lane).collect();
            assert_eq!(lanes, [Some(3), Some(40)]);
            assert_eq!(failures[0].expected, "Divergent(line: 14)");
            assert!(
                failures[0].actual.starts_with("active at divergence.cl:20"),
                "{}",
                failures[0].actual
            );
            assert!(
                failures[1]
                    .actual
                    .starts_with("divergent at divergence.cl:14")
            );
            assert_eq!(report.steps.len(), 2);
            let shown = ScenarioError::Assertion {
                index,
                text,
                failures,
                report,
            }
            .to_string();
            assert!(shown.starts_with("step 3 `Lanes({3: "), "{shown}");
            assert!(
                shown.contains("\n  lane 3: expected Divergent(line: 14), found active at"),
                "{shown}"
            );
        }
        other => panic!("{other:?}"),
    }
    let r = run_text(&divergence(
        "gfx900",
        "O2",
        "Break(line: 20), Continue, ActiveMask(0)",
    ));
    assert!(
        matches!(&r, Err(ScenarioError::Assertion { failures, .. })
            if failures[0].actual == "0x8888880888888888"),
        "{r:?}"
    );
    let r = run_text(&divergence(
        "gfx1030",
        "O0",
        "Break(line: 16), Continue, Var(lane: 3, name: \"v\", i32: 4)",
    ));
    assert!(
        matches!(&r, Err(ScenarioError::Assertion { failures, .. })
            if failures[0].lane == Some(3) && failures[0].actual == "i32: 3"),
        "{r:?}"
    );
}

#[test]
fn setup_errors_name_the_file() {
    let text = divergence("gfx900", "O2", "").replace("divergence.O2g.co", "missing.co");
    let e = run_text(&text).expect_err("no such file");
    assert!(matches!(&e, ScenarioError::Io { path, .. } if path.ends_with("missing.co")));
    let text = divergence("gfx900", "O2", "").replace(
        "code_object: \"../../kernels/bin/gfx900/divergence.O2g.co\"",
        "code_object: \"../../kernels/bin/gfx900/divergence.O2g.co\", name: \"saxpy\"",
    );
    let e = run_text(&text).expect_err("no such kernel").to_string();
    assert!(
        e.contains("no kernel `saxpy`") && e.contains("divergence"),
        "{e}"
    );
    // Without DWARF there are no lines to break at (the reconstruction, instruction steps
    // and breakpoints at functions and addresses still work: asm_call_gfx900.ron).
    let text =
        divergence("gfx900", "O2", "Break(line: 20)").replace("divergence.O2g.co", "divergence.co");
    let e = run_text(&text).expect_err("no DWARF").to_string();
    assert!(e.contains("step 1") && e.contains("-g"), "{e}");
    // A buffer element that does not fit its type.
    let text = divergence("gfx900", "O2", "").replace(
        "Buffer(Iota(elem: u32, count: 100))",
        "Buffer(Values(elem: u8, values: [1, 300]))",
    );
    let e = run_text(&text).expect_err("300 is no u8").to_string();
    assert!(e.contains("argument 0") && e.contains("element 1"), "{e}");
}

// ---------------------------------------------------------------------------------------
// The divergence picture.

/// Records every wave of work-group `group` (0 or 1) of divergence.O2g on `target` from
/// its first instruction to its end (100 work-items, n = 90, in groups of 64).
fn record(target: &str, group: u32) -> Vec<Trace> {
    let bytes = read_kernel(target, "divergence.O2g.co").unwrap_or_else(|e| panic!("{e}"));
    let image = Image::parse(&bytes).expect("DWARF");
    let input: Vec<u8> = (0..100u32).flat_map(|i| i.to_le_bytes()).collect();
    let launch_on = |dev: &Device| {
        let module = dev.load(&bytes).expect("load");
        let pin = dev.alloc_bytes(&input).expect("alloc");
        let pout = dev.alloc(400).expect("alloc");
        let cfg = LaunchConfig::new_1d(
            100,
            64,
            vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(90)],
        );
        let launch = dev.launch(&module, "divergence", cfg).expect("launch");
        (module, launch, pout)
    };
    let dev = Device::new();
    let (module, launch, pout) = launch_on(&dev);
    let mut st = Stepper::new(&image, &dev, &module, launch).expect("stepper");
    st.set_focus(Some([group, 0, 0]), 0).expect("focus");
    let traces = st.record_group().expect("records");
    // The recording ran every instruction of the group: it stored what an uninterrupted
    // run stores, for the groups that have run.
    let plain = Device::new();
    let (_, l2, pout2) = launch_on(&plain);
    plain.run(&l2).expect("runs");
    let items = (64 * (group as usize + 1)).min(100) * 4;
    assert_eq!(
        dev.read(pout, items).expect("read"),
        plain.read(pout2, items).expect("read"),
        "{target}: the recorded group stored other values than a plain run"
    );
    traces
}

fn check_picture(target: &str, traces: &[Trace]) -> String {
    let src = std::fs::read_to_string(repo_path(&["kernels", "src", "divergence.cl"]))
        .expect("kernel source");
    let svg = render(
        traces,
        &SvgOptions {
            title: format!(
                "divergence.O2g.co {target} work-group {}",
                traces[0].group[0]
            ),
            ..SvgOptions::default()
        }
        .with_source("divergence.cl", &src),
    );
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{target}: {e}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let rows: Vec<_> = root
        .descendants()
        .filter(|n| n.attribute("class") == Some("lane"))
        .collect();
    let lanes: usize = traces.iter().map(|t| t.wave_size as usize).sum();
    assert_eq!(
        rows.len(),
        lanes,
        "{target}: one row per lane of every wave"
    );
    // Every rectangle of a row lies inside the plot and rows do not overlap.
    for r in &rows {
        let ys: BTreeSet<String> = r
            .children()
            .filter(|c| c.has_tag_name("rect"))
            .filter_map(|c| c.attribute("y").map(String::from))
            .collect();
        assert!(ys.len() <= 1, "{target}: a lane row spans rows {ys:?}");
    }
    // The legend lists exactly the lines executed, each once.
    let seen: BTreeSet<String> = traces
        .iter()
        .flat_map(|t| t.steps.iter())
        .filter_map(|s| s.line.as_ref())
        .map(|(f, l)| format!("{}:{l}", f.rsplit('/').next().unwrap_or(f)))
        .collect();
    let labels: Vec<String> = root
        .descendants()
        .filter(|n| n.attribute("class") == Some("legend"))
        .filter_map(|g| g.children().find(|c| c.has_tag_name("text")))
        .filter_map(|t| t.text().map(String::from))
        .filter(|t| t.contains(".cl:"))
        .collect();
    let unique: BTreeSet<String> = labels.iter().cloned().collect();
    assert_eq!(
        unique.len(),
        labels.len(),
        "{target}: a line twice in the legend"
    );
    assert_eq!(unique, seen, "{target}: legend and executed lines differ");
    // The colours of the legend are those the lane rows use.
    let colours: BTreeSet<String> = legend(traces).into_iter().map(|e| e.colour).collect();
    let used: BTreeSet<String> = rows
        .iter()
        .flat_map(|r| r.children())
        .filter_map(|c| c.attribute("fill").map(String::from))
        .collect();
    for c in &used {
        assert!(
            colours.contains(c) || c == amdgpu_lanes::svg::WAITING,
            "{target}: colour {c} is in no legend entry"
        );
    }
    svg
}

#[test]
fn the_divergence_picture_of_a_recorded_wave() {
    for target in ["gfx900", "gfx1030"] {
        let traces = record(target, 0);
        let waves = if target == "gfx900" { 1 } else { 2 };
        assert_eq!(traces.len(), waves, "{target}");
        for t in &traces {
            let first = t.steps.first().expect("steps");
            let last = t.steps.last().expect("steps");
            // From the entry, where every lane with a work-item is active, to the end.
            assert!(
                first
                    .lanes
                    .lanes
                    .iter()
                    .all(|p| p.state == LaneState::Active)
            );
            assert_eq!(first.line.as_ref().map(|l| l.1), Some(8), "{target}");
            assert_eq!(last.line.as_ref().map(|l| l.1), Some(38), "{target}");
            // Each step's active lanes are those of its active mask; somewhere the wave
            // diverged (lanes wait) and at line 37 it has reconverged.
            for s in &t.steps {
                for p in &s.lanes.lanes {
                    assert_eq!(
                        p.state == LaneState::Active,
                        s.lanes.active >> p.lane & 1 != 0,
                        "{target}"
                    );
                }
            }
            assert!(t.steps.iter().any(|s| {
                s.lanes
                    .lanes
                    .iter()
                    .any(|p| p.state == LaneState::Divergent)
            }));
            let at37 = t
                .steps
                .iter()
                .find(|s| s.line.as_ref().is_some_and(|l| l.1 == 37))
                .expect("line 37");
            assert_eq!(at37.lanes.active.count_ones(), t.wave_size, "{target}");
            assert!(t.steps.len() > 300, "{target}: {} steps", t.steps.len());
        }
        let svg = check_picture(target, &traces);
        if let Some(dir) = std::env::var_os("AMDSIM_SVG_OUT") {
            let p = Path::new(&dir).join(format!("divergence-{target}-group0.svg"));
            std::fs::write(&p, svg).expect("write the picture");
        }
    }
}

#[test]
fn the_picture_leaves_finished_and_outside_lanes_blank() {
    // Work-group 1 on gfx900: lanes 0-25 (gid 64-89) run the kernel, lanes 26-35 (gid
    // 90-99) return at line 10, lanes 36-63 have no work-item.
    let traces = record("gfx900", 1);
    let t = &traces[0];
    for s in &t.steps[1..] {
        for p in &s.lanes.lanes {
            let want = match p.lane {
                36.. => Some(LaneState::Outside),
                26..=35 if s.lanes.active & 1 << 26 == 0 => Some(LaneState::Finished),
                _ => None,
            };
            if let Some(w) = want {
                assert_eq!(p.state, w, "lane {} at {:#x}", p.lane, s.lanes.pc);
            }
        }
    }
    let svg = check_picture("gfx900", &traces);
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    let rects_of = |lane: u32| {
        doc.descendants()
            .find(|n| n.attribute("data-lane") == Some(lane.to_string().as_str()))
            .map(|g| g.children().filter(|c| c.has_tag_name("rect")).count())
            .expect("lane row")
    };
    for lane in 36..64 {
        assert_eq!(rects_of(lane), 0, "outside lane {lane} is drawn");
    }
    // A lane that returned early is drawn only up to its return: few runs, ending early.
    let ends = |lane: u32| -> f64 {
        doc.descendants()
            .find(|n| n.attribute("data-lane") == Some(lane.to_string().as_str()))
            .into_iter()
            .flat_map(|g| g.children().filter(|c| c.has_tag_name("rect")))
            .map(|r| {
                r.attribute("x")
                    .and_then(|x| x.parse::<f64>().ok())
                    .unwrap_or(0.0)
                    + r.attribute("width")
                        .and_then(|x| x.parse::<f64>().ok())
                        .unwrap_or(0.0)
            })
            .fold(0.0, f64::max)
    };
    assert!(
        ends(30) > 0.0 && ends(30) < ends(0) / 4.0,
        "{} {}",
        ends(30),
        ends(0)
    );
    if let Some(dir) = std::env::var_os("AMDSIM_SVG_OUT") {
        std::fs::write(Path::new(&dir).join("divergence-gfx900-group1.svg"), svg)
            .expect("write the picture");
    }
}

/// Lanes that leave the odd lanes' loop early wait for it just as the lanes that never
/// entered it, so they are shown at the same line (18, as `lane_lines.rs` has it for the
/// latter): a loop's exit shows the loop's line (the branch back to its header), not the
/// next statement row after the exit (the `else` of line 14, which they never run).
#[test]
fn lanes_that_left_a_loop_wait_at_the_loop() {
    for target in ["gfx900", "gfx1030", "gfx1030-w64"] {
        // Second arrival at line 20 (k = 1): lane 7 (trips 1) has left the loop, lane 13
        // (trips 0) never entered it.
        let r = run_text(&divergence(
            target,
            "O2",
            "Break(line: 20), Continue, Continue, \
             Lanes({13: Divergent(line: 18), 7: Divergent(line: 18)})",
        ));
        if let Err(e) = r {
            panic!("{target}: {e}");
        }
    }
}
