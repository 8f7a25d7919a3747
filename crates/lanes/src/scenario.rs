//! Lane-stepping scenarios: RON files that script the stepping engine
//! ([`crate::stepper::Stepper`], which drives a dispatch under a [`crate::Debugger`] and
//! tells where the lanes of the focused wave are, [`crate::service::LaneService`]) and check
//! what it shows.
//!
//! # Scenario files
//!
//! ```ron
//! // Paths are relative to the scenario file.
//! Scenario(
//!     kernel: (code_object: "../../kernels/bin/gfx900/divergence.O2g.co", name: "divergence"),
//!     dispatch: (
//!         grid: 100,             // or (x, y) or (x, y, z)
//!         group: 64,
//!         args: [
//!             Buffer(Iota(elem: u32, count: 100)),   // 0, 1, 2, ...
//!             Buffer(Zeros(elem: u32, count: 100)),
//!             U32(90),
//!         ],
//!     ),
//!     steps: [
//!         Break(line: 20),
//!         Continue,
//!         At(line: 20),
//!         Lanes({
//!             "0..64 step 2": Divergent(line: 14),
//!             "1..64 step 4": Divergent(line: 19),
//!             "3..64 step 4": Active(line: 20),
//!             13: Divergent(line: 18),
//!             39: Divergent(line: 18),
//!         }),
//!         StepLine(lane: 0),
//!         At(line: 28),
//!     ],
//! )
//! ```
//!
//! The dispatch: `grid` and `group` in work-items; `args` in the kernel's order, scalars
//! `U32(n)`, `I32(n)`, `U64(n)`, `I64(n)`, `F32(x)`, `F64(x)`, and buffers
//! `Buffer(Values(elem: u32, values: [1, 2, 3]))`, `Buffer(Iota(elem: u32, count: 100,
//! start: 0, step: 1))`, `Buffer(Fill(elem: f32, count: 8, value: 1.5))`,
//! `Buffer(Zeros(elem: u32, count: 100))` with elements `u8`, `i8`, `u16`, `i16`, `u32`,
//! `i32`, `u64`, `i64`, `f32`, `f64`; `max_instructions` caps each wave.
//!
//! Steps (numbered from 1 in reports and errors):
//!
//! - `Break(line: N)` (in the kernel's source file), `Break(file: "x.cl", line: N)`,
//!   `Break(function: "f")` (its first instruction), `Break(address: 0x...)` (link-time);
//!   `Delete` removes every breakpoint;
//! - `Continue` runs until a wave reaches a breakpoint (that wave gets the focus) or the
//!   dispatch ends;
//! - `StepInstruction` executes one instruction of the focused wave;
//! - `StepLine(lane: L)` steps the focused wave, one instruction at a time, until lane `L`
//!   is active at the start of a statement of another source line than the one it was at
//!   (its line when it waits is the one [`crate::service::LaneService::source`] gives), passing over the
//!   instructions it does not take part in, as ROCgdb's `step` does; it also stops when
//!   the lane finishes or the wave ends. Breakpoints are not looked at while stepping;
//! - `Focus(group: (x, y, z), wave: N)` (group optional: the current one) selects a wave
//!   of the running work-group, or runs the dispatch (without stopping at breakpoints) to
//!   the start of a later work-group;
//!
//! and assertions about the focused wave:
//!
//! - `Lanes({...})`: per-lane states. A key is a lane (`3`) or a string: `"0..8"`,
//!   `"0..=7"`, `"1..64 step 2"`, `"8.."`, `"all"`, `"even"`, `"odd"`; a later entry
//!   overrides an earlier one for the lanes both name. A value is `Active(...)` or
//!   `Divergent(...)` with optional `line`, `file`, `function`, `pc` (`Active()` checks
//!   the state only), or `Finished`, `Outside`, `NotEntered`, `Unknown`;
//! - `ActiveMask(0x...)`: the conceptual active mask; `Exec(0x...)`: the hardware EXEC;
//! - `At(line: N, file: ..., function: ..., pc: ...)` (each optional): the wave's position;
//! - `Var(lane: L, name: "acc", u32: 7)` (or `i32`, `u64`, `i64`, `f32`, `f64`,
//!   `bytes: [..]`): a variable read through its DWARF location for lane `L`
//!   ([`crate::Debugger::read`], so for the wave that stopped last: focusing another wave does not
//!   stop it);
//! - `Positions(Dwarf)` or `Positions(Reconstruction)`: where the lane positions come from.
//!   When the code object has lane attributes (`DW_AT_LLVM_lane_pc`, as `amdsim
//!   annotate-lanes` writes them) for the function at the PC, the positions are theirs,
//!   walked through the callers' frames, and the reconstruction is their check: `Lanes`,
//!   `ActiveMask` and `Positions` fail when the two disagree on any lane or the
//!   attributes cannot be evaluated;
//! - `DispatchFinished`: every work-group has ended.
//!
//! A mistake in the file is an error with its line and column; a failed assertion names the
//! step, the lane, what was expected and what was found. [`run_file`] runs a file and
//! returns a [`Report`] whose `Display` shows every step: where the program stopped and
//! the lanes table of the focused wave.
//!
//! The dispatch part ([`DispatchSpec`], [`DispatchSpec::prepare`]) only has to produce a
//! [`LaunchConfig`] with its buffers allocated, so another description of a launch can take
//! its place.
//!
//! # From Rust
//!
//! ```no_run
//! use amdgpu_lanes::Image;
//! use amdgpu_lanes::stepper::{BreakAt, Stepper};
//! use amdgpu_sim::{ArgValue, Device, LaunchConfig};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read("kernels/bin/gfx900/divergence.O2g.co")?;
//! let image = Image::parse(&bytes)?;
//! let dev = Device::new();
//! let module = dev.load(&bytes)?;
//! let input = dev.alloc_bytes(&[0u8; 400])?;
//! let output = dev.alloc(400)?;
//! let args = vec![ArgValue::Ptr(input), ArgValue::Ptr(output), ArgValue::U32(90)];
//! let launch = dev.launch(&module, "divergence", LaunchConfig::new_1d(100, 64, args))?;
//! let mut st = Stepper::new(&image, &dev, &module, launch)?;
//! st.break_at(&BreakAt::Line { file: None, line: 20 })?;
//! println!("{}", st.resume()?); // where it stopped, and the lanes
//! let stop = st.step_line(0)?; // lane 0 to its next line
//! let lanes = st.view()?; // every lane's state and source position
//! assert_eq!(Some(lanes), stop.view);
//! # Ok(()) }
//! ```
//!
//! [`Stepper::record_group`] single-steps a work-group to its end, recording every
//! instruction of every wave for [`crate::svg::render`].

use crate::image::Image;
use crate::service::{LaneState, PositionSource, SourcePos};
pub use crate::stepper::DEFAULT_STEP_LIMIT;
use crate::stepper::{BreakAt, LaneFact, StepError, Stepper, Stop, src_text};
use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------
// The format.

/// A scenario: a kernel, a dispatch of it, and the steps to take.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The code object and kernel.
    pub kernel: KernelSpec,
    /// The dispatch.
    pub dispatch: DispatchSpec,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The most instructions one `StepLine` may execute (default [`DEFAULT_STEP_LIMIT`]).
    #[serde(default)]
    pub step_limit: Option<u64>,
}

/// The kernel to run.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelSpec {
    /// The code object, relative to the scenario file.
    pub code_object: PathBuf,
    /// The kernel's name; without it, the code object's only kernel.
    #[serde(default)]
    pub name: Option<String>,
}

/// A dispatch: sizes and arguments, self-contained (buffers are made from their
/// description).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DispatchSpec {
    /// Grid size in work-items.
    pub grid: Size3,
    /// Work-group size in work-items.
    pub group: Size3,
    /// Explicit arguments, in the kernel's order.
    #[serde(default)]
    pub args: Vec<ArgSpec>,
    /// Per-wave instruction cap.
    #[serde(default)]
    pub max_instructions: Option<u64>,
}

/// Three sizes; written as `n`, `(x, y)` or `(x, y, z)`, the missing ones 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "Triple")]
pub struct Size3(pub [u32; 3]);

/// A work-group id; written as `x`, `(x, y)` or `(x, y, z)`, the missing ones 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "Triple")]
pub struct GroupId(pub [u32; 3]);

/// One to three numbers, as written.
struct Triple(Vec<u64>);

impl<'de> Deserialize<'de> for Triple {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Triple;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number, or a tuple of two or three numbers")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Triple, E> {
                Ok(Triple(vec![v]))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Triple, E> {
                u64::try_from(v)
                    .map(|v| Triple(vec![v]))
                    .map_err(|_| E::custom(format!("{v} is negative")))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Triple, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = s.next_element::<u64>()? {
                    v.push(x);
                }
                Ok(Triple(v))
            }
        }
        d.deserialize_any(V)
    }
}

fn triple(t: Triple, missing: u32) -> Result<[u32; 3], String> {
    if t.0.is_empty() || t.0.len() > 3 {
        return Err(format!("{} numbers where 1 to 3 belong", t.0.len()));
    }
    let mut out = [missing; 3];
    for (o, v) in out.iter_mut().zip(&t.0) {
        *o = u32::try_from(*v).map_err(|_| format!("{v} does not fit in 32 bits"))?;
    }
    Ok(out)
}

impl TryFrom<Triple> for Size3 {
    type Error = String;
    fn try_from(t: Triple) -> Result<Self, String> {
        let s = triple(t, 1)?;
        if s.contains(&0) {
            return Err(format!("size {s:?} has a zero"));
        }
        Ok(Size3(s))
    }
}

impl TryFrom<Triple> for GroupId {
    type Error = String;
    fn try_from(t: Triple) -> Result<Self, String> {
        triple(t, 0).map(GroupId)
    }
}

/// One explicit kernel argument.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub enum ArgSpec {
    /// A 32-bit unsigned integer.
    U32(u32),
    /// A 32-bit signed integer.
    I32(i32),
    /// A 64-bit unsigned integer.
    U64(u64),
    /// A 64-bit signed integer.
    I64(i64),
    /// A 32-bit float.
    F32(f32),
    /// A 64-bit float.
    F64(f64),
    /// A global buffer, allocated and filled before the dispatch; the argument is its
    /// address.
    Buffer(BufferSpec),
}

/// The contents of a buffer argument.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum BufferSpec {
    /// The values given.
    Values {
        /// Element type.
        elem: Elem,
        /// The elements.
        values: Vec<Num>,
    },
    /// `start`, `start + step`, ... (defaults 0 and 1).
    Iota {
        /// Element type.
        elem: Elem,
        /// Number of elements.
        count: u64,
        /// The first value.
        #[serde(default)]
        start: Option<Num>,
        /// The difference between neighbours.
        #[serde(default)]
        step: Option<Num>,
    },
    /// `count` copies of `value`.
    Fill {
        /// Element type.
        elem: Elem,
        /// Number of elements.
        count: u64,
        /// The value.
        value: Num,
    },
    /// `count` zero elements.
    Zeros {
        /// Element type.
        elem: Elem,
        /// Number of elements.
        count: u64,
    },
}

/// The element type of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum Elem {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

impl Elem {
    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            Elem::U8 | Elem::I8 => 1,
            Elem::U16 | Elem::I16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::I64 | Elem::F64 => 8,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F64)
    }

    /// The little-endian bytes of `v` as this type; an error when it does not fit.
    pub fn encode(self, v: Num) -> Result<Vec<u8>, String> {
        let int = |v: Num| -> Result<i128, String> {
            match v {
                Num::Int(i) => Ok(i),
                Num::Float(f) => Err(format!("{f} is not an integer ({self:?} element)")),
            }
        };
        let range = |i: i128, lo: i128, hi: i128| -> Result<i128, String> {
            if i < lo || i > hi {
                Err(format!("{i} does not fit in {self:?}"))
            } else {
                Ok(i)
            }
        };
        Ok(match self {
            Elem::U8 => vec![range(int(v)?, 0, u8::MAX as i128)? as u8],
            Elem::I8 => (range(int(v)?, i8::MIN as i128, i8::MAX as i128)? as i8)
                .to_le_bytes()
                .to_vec(),
            Elem::U16 => (range(int(v)?, 0, u16::MAX as i128)? as u16)
                .to_le_bytes()
                .to_vec(),
            Elem::I16 => (range(int(v)?, i16::MIN as i128, i16::MAX as i128)? as i16)
                .to_le_bytes()
                .to_vec(),
            Elem::U32 => (range(int(v)?, 0, u32::MAX as i128)? as u32)
                .to_le_bytes()
                .to_vec(),
            Elem::I32 => (range(int(v)?, i32::MIN as i128, i32::MAX as i128)? as i32)
                .to_le_bytes()
                .to_vec(),
            Elem::U64 => (range(int(v)?, 0, u64::MAX as i128)? as u64)
                .to_le_bytes()
                .to_vec(),
            Elem::I64 => (range(int(v)?, i64::MIN as i128, i64::MAX as i128)? as i64)
                .to_le_bytes()
                .to_vec(),
            Elem::F32 => (v.as_f64() as f32).to_le_bytes().to_vec(),
            Elem::F64 => v.as_f64().to_le_bytes().to_vec(),
        })
    }
}

/// A number as written: an integer or a float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// An integer literal.
    Int(i128),
    /// A literal with a fraction or exponent.
    Float(f64),
}

impl Num {
    fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num::Int(v as i128))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num::Int(v as i128))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Num, E> {
                i128::try_from(v)
                    .map(Num::Int)
                    .map_err(|_| E::custom("number too large"))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Num, E> {
                Ok(Num::Int(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num::Float(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// The largest buffer a scenario may describe (bytes).
pub const MAX_BUFFER: u64 = 256 << 20;

impl BufferSpec {
    /// The buffer's bytes.
    pub fn bytes(&self) -> Result<Vec<u8>, String> {
        let (elem, count) = match self {
            BufferSpec::Values { elem, values } => (*elem, values.len() as u64),
            BufferSpec::Iota { elem, count, .. }
            | BufferSpec::Fill { elem, count, .. }
            | BufferSpec::Zeros { elem, count } => (*elem, *count),
        };
        let size = count.saturating_mul(elem.size());
        if size > MAX_BUFFER {
            return Err(format!("{size} bytes (at most {MAX_BUFFER})"));
        }
        if size == 0 {
            return Err("an empty buffer".into());
        }
        let mut out = Vec::with_capacity(size as usize);
        match self {
            BufferSpec::Values { values, .. } => {
                for (i, v) in values.iter().enumerate() {
                    out.extend(elem.encode(*v).map_err(|e| format!("element {i}: {e}"))?);
                }
            }
            BufferSpec::Iota {
                start, step, count, ..
            } => {
                let start = start.unwrap_or(Num::Int(0));
                let step = step.unwrap_or(Num::Int(1));
                for i in 0..*count {
                    let v = match (start, step) {
                        (Num::Int(a), Num::Int(s)) if !elem.is_float() => {
                            Num::Int(a.saturating_add(s.saturating_mul(i as i128)))
                        }
                        _ => Num::Float(start.as_f64() + step.as_f64() * i as f64),
                    };
                    out.extend(elem.encode(v).map_err(|e| format!("element {i}: {e}"))?);
                }
            }
            BufferSpec::Fill { value, count, .. } => {
                let one = elem.encode(*value)?;
                for _ in 0..*count {
                    out.extend_from_slice(&one);
                }
            }
            BufferSpec::Zeros { .. } => out.resize(size as usize, 0),
        }
        Ok(out)
    }
}

/// Something wrong with a dispatch description.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DispatchError {
    /// An argument cannot be made.
    #[error("argument {index}: {message}")]
    Arg {
        /// The argument's position (from 0).
        index: usize,
        /// What is wrong.
        message: String,
    },
    /// The simulator refused the dispatch or an allocation.
    #[error("{0}")]
    Sim(String),
}

impl DispatchSpec {
    /// Allocates and fills the buffers on `dev` and returns the launch configuration.
    pub fn prepare(&self, dev: &Device) -> Result<LaunchConfig, DispatchError> {
        let mut args = Vec::with_capacity(self.args.len());
        for (index, a) in self.args.iter().enumerate() {
            args.push(match a {
                ArgSpec::U32(v) => ArgValue::U32(*v),
                ArgSpec::I32(v) => ArgValue::I32(*v),
                ArgSpec::U64(v) => ArgValue::U64(*v),
                ArgSpec::I64(v) => ArgValue::U64(*v as u64),
                ArgSpec::F32(v) => ArgValue::F32(*v),
                ArgSpec::F64(v) => ArgValue::F64(*v),
                ArgSpec::Buffer(b) => {
                    let bytes = b
                        .bytes()
                        .map_err(|message| DispatchError::Arg { index, message })?;
                    let addr = dev.alloc_bytes(&bytes).map_err(|e| DispatchError::Arg {
                        index,
                        message: e.to_string(),
                    })?;
                    ArgValue::Ptr(addr)
                }
            });
        }
        let mut cfg = LaunchConfig::new_1d(1, 1, args);
        cfg.grid = self.grid.0;
        cfg.group = self.group.0;
        if let Some(m) = self.max_instructions {
            cfg.max_instructions = m;
        }
        Ok(cfg)
    }
}

/// One step of a scenario.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Step {
    /// Sets a breakpoint.
    Break(BreakAt),
    /// Removes every breakpoint.
    Delete,
    /// Runs until a breakpoint or the end of the dispatch.
    Continue,
    /// One instruction of the focused wave.
    StepInstruction,
    /// Steps the focused wave until `lane` reaches another source line.
    StepLine {
        /// The lane.
        lane: u32,
    },
    /// Selects a wave.
    Focus(FocusAt),
    /// Checks lane states.
    Lanes(LaneMap),
    /// Checks the conceptual active mask.
    ActiveMask(u64),
    /// Checks the hardware EXEC.
    Exec(u64),
    /// Checks the focused wave's position.
    At(Where),
    /// Checks a variable's value for a lane.
    Var(VarCheck),
    /// Checks where the lane positions come from: `Positions(Dwarf)` (the code object's
    /// lane attributes, which then also agree with the reconstruction) or
    /// `Positions(Reconstruction)`.
    Positions(PositionSource),
    /// Checks that the dispatch has finished.
    DispatchFinished,
}

/// The wave to focus on.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FocusAt {
    /// The work-group (default: the running one).
    #[serde(default)]
    pub group: Option<GroupId>,
    /// The wave in the work-group.
    pub wave: u32,
}

/// A position to check: each given field must match.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Where {
    /// Source line.
    #[serde(default)]
    pub line: Option<u64>,
    /// A suffix of the source file name.
    #[serde(default)]
    pub file: Option<String>,
    /// The function (symbol) name.
    #[serde(default)]
    pub function: Option<String>,
    /// Link-time address.
    #[serde(default)]
    pub pc: Option<u64>,
}

impl Where {
    fn matches(&self, pc: Option<u64>, src: Option<&SourcePos>) -> bool {
        let line = src.and_then(|s| s.line.as_ref());
        self.line.is_none_or(|l| line.is_some_and(|x| x.1 == l))
            && self
                .file
                .as_ref()
                .is_none_or(|f| line.is_some_and(|x| x.0.ends_with(f.as_str())))
            && self
                .function
                .as_ref()
                .is_none_or(|f| src.and_then(|s| s.function.as_deref()) == Some(f.as_str()))
            && self.pc.is_none_or(|p| pc == Some(p))
    }
}

impl fmt::Display for Where {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(x) = &self.file {
            parts.push(format!("file: {x:?}"));
        }
        if let Some(x) = self.line {
            parts.push(format!("line: {x}"));
        }
        if let Some(x) = &self.function {
            parts.push(format!("function: {x:?}"));
        }
        if let Some(x) = self.pc {
            parts.push(format!("pc: {x:#x}"));
        }
        write!(f, "({})", parts.join(", "))
    }
}

/// A variable check.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "RawVar")]
pub struct VarCheck {
    /// The lane whose view of the variable is read.
    pub lane: u32,
    /// The variable's name.
    pub name: String,
    /// The expected value.
    pub value: Value,
}

/// An expected value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// 32-bit unsigned.
    U32(u32),
    /// 32-bit signed.
    I32(i32),
    /// 64-bit unsigned.
    U64(u64),
    /// 64-bit signed.
    I64(i64),
    /// 32-bit float (compared bit for bit).
    F32(f32),
    /// 64-bit float (compared bit for bit).
    F64(f64),
    /// Raw bytes.
    Bytes(Vec<u8>),
}

impl Value {
    /// The value's little-endian bytes.
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Value::U32(v) => v.to_le_bytes().to_vec(),
            Value::I32(v) => v.to_le_bytes().to_vec(),
            Value::U64(v) => v.to_le_bytes().to_vec(),
            Value::I64(v) => v.to_le_bytes().to_vec(),
            Value::F32(v) => v.to_le_bytes().to_vec(),
            Value::F64(v) => v.to_le_bytes().to_vec(),
            Value::Bytes(b) => b.clone(),
        }
    }

    /// `bytes` read as the same type as this value (for messages).
    fn show_like(&self, bytes: &[u8]) -> String {
        let a4 = <[u8; 4]>::try_from(bytes).ok();
        let a8 = <[u8; 8]>::try_from(bytes).ok();
        match (self, a4, a8) {
            (Value::U32(_), Some(b), _) => format!("u32: {}", u32::from_le_bytes(b)),
            (Value::I32(_), Some(b), _) => format!("i32: {}", i32::from_le_bytes(b)),
            (Value::F32(_), Some(b), _) => format!("f32: {:?}", f32::from_le_bytes(b)),
            (Value::U64(_), _, Some(b)) => format!("u64: {}", u64::from_le_bytes(b)),
            (Value::I64(_), _, Some(b)) => format!("i64: {}", i64::from_le_bytes(b)),
            (Value::F64(_), _, Some(b)) => format!("f64: {:?}", f64::from_le_bytes(b)),
            _ => format!("bytes: {bytes:?} ({} bytes)", bytes.len()),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::U32(v) => write!(f, "u32: {v}"),
            Value::I32(v) => write!(f, "i32: {v}"),
            Value::U64(v) => write!(f, "u64: {v}"),
            Value::I64(v) => write!(f, "i64: {v}"),
            Value::F32(v) => write!(f, "f32: {v:?}"),
            Value::F64(v) => write!(f, "f64: {v:?}"),
            Value::Bytes(b) => write!(f, "bytes: {b:?}"),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVar {
    lane: u32,
    name: String,
    #[serde(default)]
    u32: Option<u32>,
    #[serde(default)]
    i32: Option<i32>,
    #[serde(default)]
    u64: Option<u64>,
    #[serde(default)]
    i64: Option<i64>,
    #[serde(default)]
    f32: Option<f32>,
    #[serde(default)]
    f64: Option<f64>,
    #[serde(default)]
    bytes: Option<Vec<u8>>,
}

impl TryFrom<RawVar> for VarCheck {
    type Error = String;
    fn try_from(r: RawVar) -> Result<Self, String> {
        let mut values = Vec::new();
        values.extend(r.u32.map(Value::U32));
        values.extend(r.i32.map(Value::I32));
        values.extend(r.u64.map(Value::U64));
        values.extend(r.i64.map(Value::I64));
        values.extend(r.f32.map(Value::F32));
        values.extend(r.f64.map(Value::F64));
        values.extend(r.bytes.map(Value::Bytes));
        if values.len() != 1 {
            return Err(format!(
                "`Var` takes exactly one value (`u32`, `i32`, `u64`, `i64`, `f32`, `f64` or \
                 `bytes`), {} given",
                values.len()
            ));
        }
        Ok(VarCheck {
            lane: r.lane,
            name: r.name,
            value: values.remove(0),
        })
    }
}

/// Lane expectations, in the order written (a later entry overrides an earlier one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneMap(pub Vec<(LaneSel, LaneExpect)>);

impl<'de> Deserialize<'de> for LaneMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LaneMap;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map from lanes to states")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<LaneMap, A::Error> {
                let mut v = Vec::new();
                while let Some(e) = m.next_entry()? {
                    v.push(e);
                }
                Ok(LaneMap(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// A set of lanes: `start`, `start + step`, ... below `end` (the wave's end when `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneSel {
    /// The first lane.
    pub start: u32,
    /// One past the last lane; `None`: to the end of the wave.
    pub end: Option<u32>,
    /// The distance between lanes (at least 1).
    pub step: u32,
}

impl LaneSel {
    /// One lane.
    pub fn one(lane: u32) -> Self {
        LaneSel {
            start: lane,
            end: Some(lane.saturating_add(1)),
            step: 1,
        }
    }

    /// Parses `"a..b"`, `"a..=b"`, `"a.."`, each with an optional `" step s"`, `"all"`,
    /// `"even"`, `"odd"` or a lane number.
    pub fn parse(s: &str) -> Result<LaneSel, String> {
        let t = s.trim();
        let bad = || {
            format!(
                "`{s}` is not a lane set (a lane, \"a..b\", \"a..=b\", \"a..\", each with an \
                 optional \" step n\", \"all\", \"even\" or \"odd\")"
            )
        };
        let num = |x: &str| x.trim().parse::<u32>().map_err(|_| bad());
        let (range, step) = match t.split_once(" step ") {
            Some((r, st)) => (r.trim(), num(st)?),
            None => (t, 1),
        };
        if step == 0 {
            return Err(format!("`{s}`: a step of 0"));
        }
        let (start, end) = match range {
            "all" => (0, None),
            "even" => return Ok(LaneSel::every(0, 2)),
            "odd" => return Ok(LaneSel::every(1, 2)),
            r => {
                if let Some((a, b)) = r.split_once("..=") {
                    (num(a)?, Some(num(b)?.checked_add(1).ok_or_else(bad)?))
                } else if let Some((a, b)) = r.split_once("..") {
                    if b.trim().is_empty() {
                        (num(a)?, None)
                    } else {
                        (num(a)?, Some(num(b)?))
                    }
                } else {
                    let l = num(r)?;
                    (l, Some(l.checked_add(1).ok_or_else(bad)?))
                }
            }
        };
        if end.is_some_and(|e| e <= start) {
            return Err(format!("`{s}` names no lane"));
        }
        Ok(LaneSel { start, end, step })
    }

    fn every(start: u32, step: u32) -> Self {
        LaneSel {
            start,
            end: None,
            step,
        }
    }

    /// The lanes of a wave of `wave_size` lanes; an error if the set names a lane beyond.
    pub fn lanes(&self, wave_size: u32) -> Result<Vec<u32>, StepError> {
        let end = self.end.unwrap_or(wave_size);
        if end > wave_size || self.start >= wave_size {
            return Err(StepError::LaneOutOfRange {
                lane: end.saturating_sub(1).max(self.start),
                wave_size,
            });
        }
        Ok((self.start..end)
            .step_by(self.step.max(1) as usize)
            .collect())
    }
}

impl fmt::Display for LaneSel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.end == Some(self.start.saturating_add(1)) {
            return write!(f, "{}", self.start);
        }
        match (self.start, self.end, self.step) {
            (0, None, 1) => return f.write_str("\"all\""),
            (0, None, 2) => return f.write_str("\"even\""),
            (1, None, 2) => return f.write_str("\"odd\""),
            _ => {}
        }
        let end = self.end.map(|e| e.to_string()).unwrap_or_default();
        if self.step == 1 {
            write!(f, "\"{}..{end}\"", self.start)
        } else {
            write!(f, "\"{}..{end} step {}\"", self.start, self.step)
        }
    }
}

impl<'de> Deserialize<'de> for LaneSel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LaneSel;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a lane number or a lane set such as \"0..64 step 2\"")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LaneSel, E> {
                u32::try_from(v)
                    .map(LaneSel::one)
                    .map_err(|_| E::custom(format!("lane {v} is too large")))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LaneSel, E> {
                u32::try_from(v)
                    .map(LaneSel::one)
                    .map_err(|_| E::custom(format!("lane {v} is not a lane number")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LaneSel, E> {
                LaneSel::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// What a lane should be.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum LaneExpect {
    /// Active (in the conceptual active mask), at a position.
    Active(#[serde(default)] Where),
    /// Waiting at a position.
    Divergent(#[serde(default)] Where),
    /// Its work-item returned.
    Finished,
    /// Not active on entry to the function.
    NotEntered,
    /// No work-item.
    Outside,
    /// The reconstruction cannot say.
    Unknown,
}

impl LaneExpect {
    fn matches(&self, p: &LaneFact) -> bool {
        match (self, &p.state) {
            (LaneExpect::Active(w), LaneState::Active)
            | (LaneExpect::Divergent(w), LaneState::Divergent) => {
                w.matches(p.pc, p.source.as_ref())
            }
            (LaneExpect::Finished, LaneState::Finished)
            | (LaneExpect::NotEntered, LaneState::NotEntered)
            | (LaneExpect::Outside, LaneState::Outside)
            | (LaneExpect::Unknown, LaneState::Unknown(_)) => true,
            _ => false,
        }
    }
}

impl fmt::Display for LaneExpect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaneExpect::Active(w) => write!(f, "Active{w}"),
            LaneExpect::Divergent(w) => write!(f, "Divergent{w}"),
            LaneExpect::Finished => f.write_str("Finished"),
            LaneExpect::NotEntered => f.write_str("NotEntered"),
            LaneExpect::Outside => f.write_str("Outside"),
            LaneExpect::Unknown => f.write_str("Unknown"),
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Break(b) => write!(f, "Break({b})"),
            Step::Delete => f.write_str("Delete"),
            Step::Continue => f.write_str("Continue"),
            Step::StepInstruction => f.write_str("StepInstruction"),
            Step::StepLine { lane } => write!(f, "StepLine(lane: {lane})"),
            Step::Focus(FocusAt { group, wave }) => match group {
                Some(GroupId([x, y, z])) => {
                    write!(f, "Focus(group: ({x}, {y}, {z}), wave: {wave})")
                }
                None => write!(f, "Focus(wave: {wave})"),
            },
            Step::Lanes(m) => {
                f.write_str("Lanes({")?;
                for (i, (s, e)) in m.0.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{s}: {e}")?;
                }
                f.write_str("})")
            }
            Step::ActiveMask(m) => write!(f, "ActiveMask({m:#x})"),
            Step::Exec(m) => write!(f, "Exec({m:#x})"),
            Step::At(w) => write!(f, "At{w}"),
            Step::Var(v) => write!(f, "Var(lane: {}, name: {:?}, {})", v.lane, v.name, v.value),
            Step::Positions(p) => write!(f, "Positions({p:?})"),
            Step::DispatchFinished => f.write_str("DispatchFinished"),
        }
    }
}

impl Scenario {
    /// Parses a scenario (RON, with the `implicit_some` and `unwrap_variant_newtypes`
    /// extensions on). The error has the line and column of the mistake.
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        let opts = ron::Options::default().with_default_extension(
            ron::extensions::Extensions::IMPLICIT_SOME
                | ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES,
        );
        opts.from_str(text).map_err(|e| {
            let mut message = e.code.to_string();
            if matches!(e.code, ron::Error::ExpectedStructLike) {
                message.push_str(
                    " (the lane states `Active` and `Divergent` take parentheses: `Active()`, \
                     `Active(line: 20)`)",
                );
            }
            ScenarioError::Parse {
                path: None,
                line: e.span.start.line,
                column: e.span.start.col,
                message,
            }
        })
    }

    /// Runs the scenario; `base` is the directory the code object path is relative to.
    pub fn run(&self, base: &Path) -> Result<Report, ScenarioError> {
        let co_path = base.join(&self.kernel.code_object);
        let bytes = std::fs::read(&co_path).map_err(|e| ScenarioError::Io {
            path: co_path.clone(),
            message: e.to_string(),
        })?;
        let setup = |message: String| ScenarioError::Setup {
            path: co_path.clone(),
            message,
        };
        let image = Image::parse_code(&bytes).map_err(|e| setup(e.to_string()))?;
        let dev = Device::new();
        let module = dev.load(&bytes).map_err(|e| setup(e.to_string()))?;
        let name = match &self.kernel.name {
            Some(n) => n.clone(),
            None => match module.kernels.as_slice() {
                [k] => k.name.clone(),
                ks => {
                    return Err(setup(format!(
                        "the code object has {} kernels ({}): name one",
                        ks.len(),
                        ks.iter()
                            .map(|k| k.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            },
        };
        if module.kernel(&name).is_none() {
            return Err(setup(format!(
                "no kernel `{name}` (the code object has: {})",
                module
                    .kernels
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let cfg = self
            .dispatch
            .prepare(&dev)
            .map_err(|e| setup(format!("dispatch: {e}")))?;
        let launch = dev
            .launch(&module, &name, cfg)
            .map_err(|e| setup(format!("dispatch: {e}")))?;
        let mut report = Report {
            code_object: co_path.clone(),
            kernel: name,
            gpu: module.gpu.to_string(),
            wave_size: launch.wave_size,
            grid: launch.config.grid,
            group: launch.config.group,
            steps: Vec::new(),
        };
        let mut st =
            Stepper::new(&image, &dev, &module, launch).map_err(|e| setup(e.to_string()))?;
        if let Some(l) = self.step_limit {
            st.step_limit = l;
        }
        for (i, step) in self.steps.iter().enumerate() {
            let index = i + 1;
            let text = step.to_string();
            match st.apply(step) {
                Ok(outcome) => report.steps.push(StepReport {
                    index,
                    text,
                    outcome,
                }),
                Err(Failure::Error(error)) => {
                    return Err(ScenarioError::Step {
                        index,
                        text,
                        error: Box::new(error),
                        report: Box::new(report),
                    });
                }
                Err(Failure::Mismatch(failures)) => {
                    return Err(ScenarioError::Assertion {
                        index,
                        text,
                        failures,
                        report: Box::new(report),
                    });
                }
            }
        }
        Ok(report)
    }
}

/// Reads, parses and runs a scenario file (the code object path is relative to it).
pub fn run_file(path: impl AsRef<Path>) -> Result<Report, ScenarioError> {
    let path = path.as_ref();
    let sc = parse_file(path)?;
    sc.run(path.parent().unwrap_or(Path::new(".")))
}

/// Reads and parses a scenario file.
pub fn parse_file(path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Scenario::parse(&text).map_err(|e| match e {
        ScenarioError::Parse {
            line,
            column,
            message,
            ..
        } => ScenarioError::Parse {
            path: Some(path.to_path_buf()),
            line,
            column,
            message,
        },
        e => e,
    })
}

// ---------------------------------------------------------------------------------------
// Errors.

/// A scenario that could not be read, set up or completed.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// A file could not be read.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The scenario is not well-formed.
    #[error("{}{line}:{column}: {message}", path.as_ref().map(|p| format!("{}:", p.display())).unwrap_or_default())]
    Parse {
        /// The scenario file, when read from one.
        path: Option<PathBuf>,
        /// Line (from 1).
        line: usize,
        /// Column (from 1).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The kernel or dispatch could not be set up.
    #[error("{}: {message}", path.display())]
    Setup {
        /// The code object.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A step could not be carried out.
    #[error("step {index} `{text}`: {error}")]
    Step {
        /// The step's number (from 1).
        index: usize,
        /// The step as written.
        text: String,
        /// What went wrong.
        error: Box<StepError>,
        /// The steps before it.
        report: Box<Report>,
    },
    /// An assertion did not hold.
    #[error("step {index} `{text}` failed:{}", failures.iter().map(|f| format!("\n  {f}")).collect::<String>())]
    Assertion {
        /// The step's number (from 1).
        index: usize,
        /// The step as written.
        text: String,
        /// Every lane (or fact) that differs.
        failures: Vec<Mismatch>,
        /// The steps before it.
        report: Box<Report>,
    },
}

impl ScenarioError {
    /// The report of the steps carried out before the failing one, if any.
    pub fn partial_report(&self) -> Option<&Report> {
        match self {
            ScenarioError::Step { report, .. } | ScenarioError::Assertion { report, .. } => {
                Some(report)
            }
            _ => None,
        }
    }
}

/// One difference an assertion found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The lane, for per-lane checks.
    pub lane: Option<u32>,
    /// What the scenario expects.
    pub expected: String,
    /// What was found.
    pub actual: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.lane {
            write!(f, "lane {l}: ")?;
        }
        write!(f, "expected {}, found {}", self.expected, self.actual)
    }
}

impl Stepper<'_, '_> {
    /// Carries out one scenario step.
    /// Runs one step: the actions (breakpoints, resuming, stepping, focus) here, each
    /// check in its own method.
    fn apply(&mut self, step: &Step) -> Result<Outcome, Failure> {
        match step {
            Step::Break(at) => {
                let addresses = self.break_at(at)?;
                Ok(Outcome::Breakpoints {
                    at: at.to_string(),
                    addresses,
                })
            }
            Step::Delete => {
                let n = self.debugger.session().breakpoints().count();
                self.debugger.clear_all();
                Ok(Outcome::Deleted(n))
            }
            Step::Continue => Ok(Outcome::Stopped(self.resume()?)),
            Step::StepInstruction => Ok(Outcome::Stopped(self.step_instruction()?)),
            Step::StepLine { lane } => Ok(Outcome::Stopped(self.step_line(*lane)?)),
            Step::Focus(f) => Ok(Outcome::Stopped(
                self.set_focus(f.group.map(|g| g.0), f.wave)?,
            )),
            Step::Lanes(map) => self.check_lanes(map),
            Step::ActiveMask(m) => self.check_active_mask(*m),
            Step::Exec(m) => self.check_exec(*m),
            Step::At(w) => self.check_at(w),
            Step::Var(v) => self.check_var(v),
            Step::Positions(want) => self.check_positions(want),
            Step::DispatchFinished => self.check_finished(),
        }
    }

    /// [`Step::Lanes`]: each lane the map names is as expected.
    fn check_lanes(&mut self, map: &LaneMap) -> Result<Outcome, Failure> {
        let view = self.view()?;
        if let Some(t) = view.provenance.trouble(view.pc) {
            return Err(Failure::Error(StepError::LanePositions(t)));
        }
        let mut want: Vec<Option<&LaneExpect>> = vec![None; view.lanes.len()];
        for (sel, e) in &map.0 {
            for l in sel.lanes(self.wave_size)? {
                match want.get_mut(l as usize) {
                    Some(w) => *w = Some(e),
                    None => {
                        return Err(Failure::Error(StepError::LaneOutOfRange {
                            lane: l,
                            wave_size: view.lanes.len() as u32,
                        }));
                    }
                }
            }
        }
        let mut failures = Vec::new();
        let mut checked = 0;
        for (fact, w) in view.lanes.iter().zip(&want) {
            if let Some(e) = w {
                checked += 1;
                if !e.matches(fact) {
                    failures.push(Mismatch {
                        lane: Some(fact.lane),
                        expected: e.to_string(),
                        actual: fact.describe(),
                    });
                }
            }
        }
        if failures.is_empty() {
            Ok(Outcome::Passed(format!("{checked} lanes as expected")))
        } else {
            Err(Failure::Mismatch(failures))
        }
    }

    /// [`Step::ActiveMask`]: the conceptual active mask is `m`.
    fn check_active_mask(&mut self, m: u64) -> Result<Outcome, Failure> {
        let v = self.view()?;
        if let Some(t) = v.provenance.trouble(v.pc) {
            return Err(Failure::Error(StepError::LanePositions(t)));
        }
        if v.active == m {
            Ok(Outcome::Passed(format!("active mask {m:#x}")))
        } else {
            Err(mismatch(
                None,
                format!("active mask {m:#x}"),
                format!("{:#x}", v.active),
            ))
        }
    }

    /// [`Step::Exec`]: the hardware EXEC is `m`.
    fn check_exec(&mut self, m: u64) -> Result<Outcome, Failure> {
        let v = self.view()?;
        if v.exec == m {
            Ok(Outcome::Passed(format!("EXEC {m:#x}")))
        } else {
            Err(mismatch(
                None,
                format!("EXEC {m:#x}"),
                format!("{:#x}", v.exec),
            ))
        }
    }

    /// [`Step::At`]: the focused wave is at `w`.
    fn check_at(&mut self, w: &Where) -> Result<Outcome, Failure> {
        let v = self.view()?;
        if v.pc.is_some() && w.matches(v.pc, Some(&v.source)) {
            Ok(Outcome::Passed(format!("at {}", src_text(&v.source))))
        } else {
            Err(mismatch(
                None,
                format!("the wave at {w}"),
                match v.pc {
                    Some(pc) => format!("{} (pc {pc:#x})", src_text(&v.source)),
                    None => "the wave has ended".to_string(),
                },
            ))
        }
    }

    /// [`Step::Var`]: the variable has the value for the lane.
    fn check_var(&mut self, v: &VarCheck) -> Result<Outcome, Failure> {
        let got = self.read_variable(v.lane, &v.name)?;
        if got == v.value.bytes() {
            Ok(Outcome::Passed(format!(
                "{} = {} for lane {}",
                v.name, v.value, v.lane
            )))
        } else {
            Err(mismatch(
                Some(v.lane),
                format!("`{}` = {}", v.name, v.value),
                v.value.show_like(&got),
            ))
        }
    }

    /// [`Step::Positions`]: the lane positions come from `want`, without trouble.
    fn check_positions(&mut self, want: &PositionSource) -> Result<Outcome, Failure> {
        let v = self.view()?;
        let got = &v.provenance;
        if got.source == *want && got.trouble(v.pc).is_none() {
            Ok(Outcome::Passed(match want {
                PositionSource::Dwarf => {
                    "positions from DW_AT_LLVM_lane_pc; the reconstruction agrees".into()
                }
                PositionSource::Reconstruction => "positions reconstructed".into(),
            }))
        } else {
            Err(mismatch(
                None,
                format!("positions from {want:?}"),
                match got.trouble(v.pc) {
                    Some(t) => format!("{:?}: {t}", got.source),
                    None => format!("positions from {:?}", got.source),
                },
            ))
        }
    }

    /// [`Step::DispatchFinished`]: the dispatch has finished.
    fn check_finished(&self) -> Result<Outcome, Failure> {
        if self.finished {
            Ok(Outcome::Passed("the dispatch has finished".into()))
        } else {
            let (g, w) = self.focus;
            Err(mismatch(
                None,
                "the dispatch finished".into(),
                format!("it runs (focus: work-group {g:?} wave {w})"),
            ))
        }
    }
}

/// A check's failure for one lane (or none): what was expected, what was found.
fn mismatch(lane: Option<u32>, expected: String, actual: String) -> Failure {
    Failure::Mismatch(vec![Mismatch {
        lane,
        expected,
        actual,
    }])
}

enum Failure {
    Error(StepError),
    Mismatch(Vec<Mismatch>),
}

impl From<StepError> for Failure {
    fn from(e: StepError) -> Self {
        Failure::Error(e)
    }
}

// ---------------------------------------------------------------------------------------
// The report.

/// What running a scenario did, step by step.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The code object.
    pub code_object: PathBuf,
    /// The kernel.
    pub kernel: String,
    /// The GPU.
    pub gpu: String,
    /// Lanes per wave.
    pub wave_size: u32,
    /// Grid size.
    pub grid: [u32; 3],
    /// Work-group size.
    pub group: [u32; 3],
    /// One entry per step carried out.
    pub steps: Vec<StepReport>,
}

/// One step of a report.
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport {
    /// Number (from 1).
    pub index: usize,
    /// The step as written.
    pub text: String,
    /// What happened.
    pub outcome: Outcome,
}

/// What a step did.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Breakpoints were set.
    Breakpoints {
        /// Where, as written.
        at: String,
        /// Link-time addresses.
        addresses: Vec<u64>,
    },
    /// This many breakpoints were removed.
    Deleted(usize),
    /// The program ran and stopped.
    Stopped(Stop),
    /// An assertion held.
    Passed(String),
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} kernel `{}` ({}, wave{}), grid {:?}, work-group {:?}",
            self.code_object.display(),
            self.kernel,
            self.gpu,
            self.wave_size,
            self.grid,
            self.group
        )?;
        for s in &self.steps {
            write!(f, "#{} {}\n   ", s.index, s.text)?;
            match &s.outcome {
                Outcome::Breakpoints { addresses, .. } => writeln!(
                    f,
                    "breakpoint at {}",
                    addresses
                        .iter()
                        .map(|a| format!("{a:#x}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )?,
                Outcome::Deleted(n) => writeln!(f, "{n} breakpoints removed")?,
                Outcome::Stopped(stop) => {
                    let text = stop.to_string();
                    for (i, line) in text.lines().enumerate() {
                        if i > 0 {
                            f.write_str("   ")?;
                        }
                        writeln!(f, "{line}")?;
                    }
                }
                Outcome::Passed(what) => writeln!(f, "ok: {what}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_sets() {
        assert_eq!(LaneSel::parse("3").unwrap().lanes(64).unwrap(), [3]);
        assert_eq!(
            LaneSel::parse("1..8 step 2").unwrap().lanes(64).unwrap(),
            [1, 3, 5, 7]
        );
        assert_eq!(
            LaneSel::parse("0..=2").unwrap().lanes(64).unwrap(),
            [0, 1, 2]
        );
        assert_eq!(
            LaneSel::parse("odd").unwrap().lanes(8).unwrap(),
            [1, 3, 5, 7]
        );
        assert_eq!(
            LaneSel::parse("all").unwrap().lanes(4).unwrap(),
            [0, 1, 2, 3]
        );
        assert_eq!(LaneSel::parse("30..").unwrap().lanes(32).unwrap(), [30, 31]);
        assert!(LaneSel::parse("0..64").unwrap().lanes(32).is_err());
        assert!(LaneSel::parse("40").unwrap().lanes(32).is_err());
        for bad in ["", "x", "5..2", "1..4 step 0", "1..4 step", "-1"] {
            assert!(LaneSel::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            LaneSel::parse("1..64 step 4").unwrap().to_string(),
            "\"1..64 step 4\""
        );
    }

    #[test]
    fn buffers_and_numbers() {
        let b = BufferSpec::Iota {
            elem: Elem::I16,
            count: 3,
            start: Some(Num::Int(-1)),
            step: None,
        };
        assert_eq!(b.bytes().unwrap(), [0xff, 0xff, 0, 0, 1, 0]);
        let b = BufferSpec::Values {
            elem: Elem::U8,
            values: vec![Num::Int(1), Num::Int(256)],
        };
        assert!(b.bytes().unwrap_err().contains("element 1"));
        let b = BufferSpec::Fill {
            elem: Elem::F32,
            count: 2,
            value: Num::Float(1.5),
        };
        assert_eq!(b.bytes().unwrap(), [0, 0, 0xc0, 0x3f, 0, 0, 0xc0, 0x3f]);
        let b = BufferSpec::Zeros {
            elem: Elem::U64,
            count: u64::MAX,
        };
        assert!(b.bytes().is_err());
    }

    #[test]
    fn parse_errors_have_positions() {
        let text = "Scenario(\n  kernel: (code_object: \"k.co\"),\n  dispatch: (grid: 1, \
                    group: 1),\n  steps: [Continue, StepLien(lane: 1)],\n)";
        match Scenario::parse(text) {
            Err(ScenarioError::Parse {
                line,
                column,
                message,
                ..
            }) => {
                assert_eq!(line, 4);
                assert!(column > 20, "{column}");
                assert!(message.contains("StepLien"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let text = "Scenario(kernel: (code_object: \"k.co\"), dispatch: (grid: 1, group: 1), \
                    steps: [Break(line: 3, address: 4)])";
        let e = Scenario::parse(text).unwrap_err().to_string();
        assert!(e.contains("one of `line`"), "{e}");
        let text = "Scenario(kernel: (code_object: \"k.co\"), dispatch: (grid: 1, group: 1), \
                    steps: [Lanes({1: Active})])";
        let e = Scenario::parse(text).unwrap_err().to_string();
        assert!(e.contains("Active()"), "{e}");
    }

    #[test]
    fn steps_print_as_written() {
        let text = r#"Scenario(kernel: (code_object: "k.co", name: "k"),
            dispatch: (grid: (100, 2), group: 64, args: [U32(1), Buffer(Iota(elem: u32, count: 4))]),
            steps: [Break(line: 20), Break(file: "a.cl", line: 3), Break(function: "f"),
                    Break(address: 0x10), Focus(group: (1, 0, 0), wave: 1), Focus(wave: 0),
                    Lanes({"0..64 step 2": Divergent(line: 14), 3: Active(), 4: Finished}),
                    Var(lane: 3, name: "acc", u32: 7), StepLine(lane: 2), ActiveMask(0xff),
                    At(line: 3, function: "k")])"#;
        let s = Scenario::parse(text).expect("parses");
        assert_eq!(s.dispatch.grid, Size3([100, 2, 1]));
        let printed: Vec<String> = s.steps.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            printed,
            [
                "Break(line: 20)",
                "Break(file: \"a.cl\", line: 3)",
                "Break(function: \"f\")",
                "Break(address: 0x10)",
                "Focus(group: (1, 0, 0), wave: 1)",
                "Focus(wave: 0)",
                "Lanes({\"0..64 step 2\": Divergent(line: 14), 3: Active(), 4: Finished})",
                "Var(lane: 3, name: \"acc\", u32: 7)",
                "StepLine(lane: 2)",
                "ActiveMask(0xff)",
                "At(line: 3, function: \"k\")",
            ]
        );
        // What is printed parses back to the same steps.
        let again = format!(
            "Scenario(kernel: (code_object: \"k.co\"), dispatch: (grid: 1, group: 1), steps: [{}])",
            printed.join(", ")
        );
        assert_eq!(Scenario::parse(&again).expect("reparses").steps, s.steps);
    }
}
