//! The PoCL reference files of `kernels/pocl/ref/` (and of the random-kernel
//! differential): their format, and replaying a recorded launch on the simulator with the
//! comparison rules of `tests/pocl_differential.rs`.
#![allow(clippy::needless_range_loop)]

use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use std::collections::BTreeMap;

// ---- the reference files ---------------------------------------------------

/// Element type of a buffer or scalar argument, as written in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `u16`
    U16,
    /// `f16` (bits)
    F16,
    /// `u32`
    U32,
    /// `i32`
    I32,
    /// `f32` (bits)
    F32,
    /// `u64`
    U64,
    /// `f64` (bits)
    F64,
}

impl Ty {
    /// The type a file names (`u16` ... `f64`).
    pub fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "u16" => Ty::U16,
            "f16" => Ty::F16,
            "u32" => Ty::U32,
            "i32" => Ty::I32,
            "f32" => Ty::F32,
            "u64" => Ty::U64,
            "f64" => Ty::F64,
            _ => return None,
        })
    }
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Ty::U16 | Ty::F16 => 2,
            Ty::U32 | Ty::I32 | Ty::F32 => 4,
            Ty::U64 | Ty::F64 => 8,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// What the kernel does with a buffer.
pub enum Dir {
    /// Only reads it: it must come back unchanged.
    In,
    /// Writes it (its initial contents are a sentinel fill).
    Out,
    /// Reads and writes it.
    InOut,
}

#[derive(Debug)]
/// One buffer of a case.
pub struct Buffer {
    /// Its name in the file.
    pub name: String,
    /// Element type.
    pub ty: Ty,
    /// Direction.
    pub dir: Dir,
    /// Initial contents, one element each.
    pub init: Vec<u64>,
    /// PoCL's contents after the run (`out` and `inout` buffers).
    pub result: Option<Vec<u64>>,
}

#[derive(Debug)]
/// One kernel argument.
pub enum Arg {
    /// A pointer to the buffer of this index.
    Buf(usize),
    /// A scalar of this type and these bits.
    Scalar(Ty, u64),
    /// A `__local` pointer: this many bytes of dynamic LDS (`arg local BYTES`, decimal).
    Local(u32),
    /// A struct by value: these bytes, in memory order (`arg struct HEX`, two digits a
    /// byte).
    Struct(Vec<u8>),
}

#[derive(Debug)]
/// One recorded launch.
pub struct Case {
    /// Its name in the file.
    pub label: String,
    /// Global size (work-items).
    pub global: [u32; 3],
    /// Work-group size.
    pub local: [u32; 3],
    /// The work dimension: how many sizes the `global` line gives.
    pub dims: u32,
    /// The buffers, in file order.
    pub buffers: Vec<Buffer>,
    /// The arguments, in order.
    pub args: Vec<Arg>,
}

#[derive(Debug)]
/// A parsed reference file.
pub struct RefFile {
    /// The kernel's name.
    pub kernel: String,
    /// Its launches.
    pub cases: Vec<Case>,
}

/// Whitespace-separated tokens with their line numbers; `#` starts a comment.
struct Tokens<'a> {
    file: &'a str,
    lines: Vec<(usize, Vec<&'a str>)>,
    line: usize,
    pos: usize,
    /// Line number of the last token read (for messages).
    last: usize,
}

impl<'a> Tokens<'a> {
    fn new(file: &'a str, text: &'a str) -> Self {
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                let l = l.split('#').next().unwrap_or("");
                (i + 1, l.split_whitespace().collect::<Vec<_>>())
            })
            .filter(|(_, t)| !t.is_empty())
            .collect();
        Tokens {
            file,
            lines,
            line: 0,
            pos: 0,
            last: 0,
        }
    }
    fn err(&self, msg: impl std::fmt::Display) -> String {
        format!("{}:{}: {msg}", self.file, self.last)
    }
    /// The remaining tokens of the current line as a whole line (keyword
    /// lines), advancing to the next line.
    fn next_line(&mut self) -> Option<Vec<&'a str>> {
        if self.pos != 0 {
            self.line += 1;
            self.pos = 0;
        }
        let (n, l) = self.lines.get(self.line)?.clone();
        self.last = n;
        self.line += 1;
        Some(l)
    }
    /// The next token of a data block, which may continue over lines.
    fn next_value(&mut self) -> Result<&'a str, String> {
        loop {
            let Some((n, toks)) = self.lines.get(self.line) else {
                return Err(self.err("unexpected end of file in a data block"));
            };
            if let Some(t) = toks.get(self.pos) {
                self.last = *n;
                self.pos += 1;
                return Ok(t);
            }
            self.line += 1;
            self.pos = 0;
        }
    }
    fn end_block(&mut self) -> Result<(), String> {
        if self.pos == 0 {
            return Ok(());
        }
        let len = self.lines.get(self.line).map_or(0, |l| l.1.len());
        if self.pos != len {
            return Err(self.err("extra values at the end of a data block"));
        }
        self.line += 1;
        self.pos = 0;
        Ok(())
    }
    fn hex(&self, s: &str, ty: Ty) -> Result<u64, String> {
        let v = u64::from_str_radix(s, 16).map_err(|e| self.err(format!("bad hex '{s}': {e}")))?;
        if ty.size() < 8 && v >> (8 * ty.size()) != 0 {
            return Err(self.err(format!("'{s}' does not fit {ty:?}")));
        }
        Ok(v)
    }
    fn values(&mut self, count: usize, ty: Ty) -> Result<Vec<u64>, String> {
        let mut v = Vec::with_capacity(count);
        for _ in 0..count {
            let t = self.next_value()?;
            v.push(self.hex(t, ty)?);
        }
        self.end_block()?;
        Ok(v)
    }
}

/// Parses a reference file; errors name the file and line.
pub fn parse_ref(file: &str, text: &str) -> Result<RefFile, String> {
    let mut t = Tokens::new(file, text);
    let mut kernel = None;
    let mut cases: Vec<Case> = Vec::new();
    let mut open = false;
    while let Some(l) = t.next_line() {
        let kw = l.first().copied().unwrap_or("");
        match (kw, l.len()) {
            ("kernel", 2) => kernel = Some(l[1].to_string()),
            ("source", _) | ("options", _) => {}
            ("case", 2) => {
                if open {
                    return Err(t.err("'case' before 'end'"));
                }
                open = true;
                cases.push(Case {
                    label: l[1].to_string(),
                    global: [0; 3],
                    local: [0; 3],
                    dims: 0,
                    buffers: Vec::new(),
                    args: Vec::new(),
                });
            }
            _ if !open => return Err(t.err(format!("'{kw}' outside a case"))),
            ("end", 1) => open = false,
            ("global", 2..=4) | ("local", 2..=4) => {
                let mut v = [1u32; 3];
                for (i, s) in l[1..].iter().enumerate() {
                    v[i] = s
                        .parse()
                        .map_err(|e| t.err(format!("bad size '{s}': {e}")))?;
                }
                let c = cases.last_mut().ok_or_else(|| t.err("no case"))?;
                if kw == "global" {
                    c.global = v;
                    c.dims = l.len() as u32 - 1;
                } else {
                    c.local = v;
                }
            }
            ("buffer", 6) | ("buffer", 7) => {
                let ty = Ty::parse(l[2]).ok_or_else(|| t.err(format!("bad type '{}'", l[2])))?;
                let count: usize = l[3]
                    .parse()
                    .map_err(|e| t.err(format!("bad count '{}': {e}", l[3])))?;
                let dir = match l[4] {
                    "in" => Dir::In,
                    "out" => Dir::Out,
                    "inout" => Dir::InOut,
                    d => return Err(t.err(format!("bad direction '{d}'"))),
                };
                let init = match (l[5], l.get(6)) {
                    ("fill", Some(v)) => vec![t.hex(v, ty)?; count],
                    ("init", None) => t.values(count, ty)?,
                    _ => return Err(t.err("expected 'init' or 'fill HEX'")),
                };
                let c = cases.last_mut().ok_or_else(|| t.err("no case"))?;
                c.buffers.push(Buffer {
                    name: l[1].to_string(),
                    ty,
                    dir,
                    init,
                    result: None,
                });
            }
            ("arg", 3) => {
                let c = cases.last_mut().ok_or_else(|| t.err("no case"))?;
                let arg = if l[1] == "local" {
                    let n: u32 = l[2]
                        .parse()
                        .map_err(|e| t.err(format!("bad local size '{}': {e}", l[2])))?;
                    Arg::Local(n)
                } else if l[1] == "struct" {
                    let h = l[2];
                    if h.len() % 2 != 0 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return Err(t.err(format!("bad struct bytes '{h}'")));
                    }
                    let bytes = (0..h.len())
                        .step_by(2)
                        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap_or(0))
                        .collect();
                    Arg::Struct(bytes)
                } else if l[1] == "buf" {
                    let i = c
                        .buffers
                        .iter()
                        .position(|b| b.name == l[2])
                        .ok_or_else(|| t.err(format!("no buffer '{}'", l[2])))?;
                    Arg::Buf(i)
                } else {
                    let ty =
                        Ty::parse(l[1]).ok_or_else(|| t.err(format!("bad type '{}'", l[1])))?;
                    Arg::Scalar(ty, t.hex(l[2], ty)?)
                };
                c.args.push(arg);
            }
            ("result", 2) => {
                let c = cases.last_mut().ok_or_else(|| t.err("no case"))?;
                let i = c
                    .buffers
                    .iter()
                    .position(|b| b.name == l[1])
                    .ok_or_else(|| t.err(format!("no buffer '{}'", l[1])))?;
                let (count, ty) = (c.buffers[i].init.len(), c.buffers[i].ty);
                let v = t.values(count, ty)?;
                c.buffers[i].result = Some(v);
            }
            _ => return Err(t.err(format!("unexpected line '{}'", l.join(" ")))),
        }
    }
    if open {
        return Err(t.err("missing 'end'"));
    }
    for c in &cases {
        for b in &c.buffers {
            if b.dir != Dir::In && b.result.is_none() {
                return Err(format!(
                    "{file}: case {}: buffer {} has no result",
                    c.label, b.name
                ));
            }
        }
        if c.global.contains(&0) || c.local.contains(&0) {
            return Err(format!("{file}: case {}: no global/local size", c.label));
        }
    }
    Ok(RefFile {
        kernel: kernel.ok_or_else(|| format!("{file}: no 'kernel' line"))?,
        cases,
    })
}

// ---- comparison -------------------------------------------------------------

/// How a buffer's elements are compared with PoCL's.
#[derive(Clone, Copy, Debug)]
pub enum Policy {
    /// Bit-exact (integers, data moved without arithmetic).
    Bits,
    /// Results of correctly rounded float operations: bit-exact, but any
    /// NaN matches any NaN.
    CorrectlyRounded,
    /// `saxpy`'s `z`: the bound of [`saxpy_z_bound`].
    SaxpyZ,
    /// Like `CorrectlyRounded`, and +0 matches -0: for code that takes `fmin`/`fmax` of
    /// zeros of different signs, where implementations may return either (the
    /// random kernels of `kernels/random/`).
    AnyZeroSign,
}

/// Whether `v` is +0 or -0 of float type `ty` (never for integer types).
pub fn is_zero(ty: Ty, v: u64) -> bool {
    match ty {
        Ty::F16 => v & 0x7fff == 0,
        Ty::F32 => v & 0x7fff_ffff == 0,
        Ty::F64 => v << 1 == 0,
        _ => false,
    }
}

/// Whether `v` is a NaN of float type `ty` (never for integer types).
pub fn is_nan(ty: Ty, v: u64) -> bool {
    match ty {
        Ty::F16 => (v & 0x7c00) == 0x7c00 && (v & 0x03ff) != 0,
        Ty::F32 => f32::from_bits(v as u32).is_nan(),
        Ty::F64 => f64::from_bits(v).is_nan(),
        _ => false,
    }
}

/// Distance in units in the last place between two f32 bit patterns (the
/// number of representable values between them; +0 and -0 are 0 apart).
pub fn ulp_distance_f32(a: u32, b: u32) -> u64 {
    let key = |x: u32| -> i64 {
        if x & 0x8000_0000 != 0 {
            -((x & 0x7fff_ffff) as i64)
        } else {
            x as i64
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// [`ulp_distance_f32`] for f64 bit patterns (saturating).
pub fn ulp_distance_f64(a: u64, b: u64) -> u64 {
    let key = |x: u64| -> i128 {
        if x >> 63 != 0 {
            -((x & !(1u64 << 63)) as i128)
        } else {
            x as i128
        }
    };
    u64::try_from((key(a) - key(b)).unsigned_abs()).unwrap_or(u64::MAX)
}

/// The spacing of f32 values around `x` (one ulp), taken at the top of a
/// tiny interval around `x` so that a value just below a power of two gets
/// the larger spacing above it.
pub fn ulp_f32(x: f64) -> f64 {
    let m = (x.abs() * (1.0 + 1.0 / 1048576.0)) as f32;
    if !m.is_finite() {
        return f64::INFINITY;
    }
    let next = f32::from_bits(m.to_bits() + 1);
    (next as f64 - m as f64).max(f32::from_bits(1) as f64)
}

/// Largest difference two OpenCL full-profile implementations may show in
/// `z[i] = sqrt(fabs(m)) + floor(m) + m / (1.0f + fabs(a))` with
/// `m = fmax(fmin(y[i], 1000), -1000)` (`y[i]` after the `fma`, which is
/// exact and compared separately).
///
/// OpenCL C 3.0, 7.4, table "ULP values for single precision built-in math
/// functions" (full profile): `sqrt` <= 3 ulp, `x / y` <= 2.5 ulp; `fabs`,
/// `floor`, `fmin`, `fmax` and `+` are exact / correctly rounded. So two
/// implementations may differ by up to 2 x 3 ulp in `s = sqrt(|m|)` and
/// 2 x 2.5 ulp in `d = m / (1 + |a|)`; each of the two additions
/// (`(s + floor(m)) + d`, evaluated left to right, no contraction possible)
/// rounds its own inputs, which adds at most one ulp of each sum to the
/// difference. The intermediate magnitudes are computed here in f64 from
/// the recorded inputs; they only size the bound.
pub fn saxpy_z_bound(a: f32, y: f32) -> f64 {
    // fmin/fmax return the other operand for a NaN (as f32::min/max do);
    // `clamp` would keep the NaN.
    #[allow(clippy::manual_clamp)]
    let m = y.min(1000.0).max(-1000.0) as f64;
    let s = m.abs().sqrt();
    let d = m / (1.0 + (a as f64).abs());
    let t = s + m.floor();
    let z = t + d;
    6.0 * ulp_f32(s) + 5.0 * ulp_f32(d) + ulp_f32(t) + ulp_f32(z)
}

/// An element for a message: hex, and its value where that helps.
pub fn show(ty: Ty, v: u64) -> String {
    match ty {
        Ty::F32 => format!("{:#010x} ({:e})", v, f32::from_bits(v as u32)),
        Ty::F64 => format!("{:#018x} ({:e})", v, f64::from_bits(v)),
        Ty::F16 => format!("{v:#06x}"),
        Ty::I32 => format!("{v:#010x} ({})", v as u32 as i32),
        Ty::U32 => format!("{v:#010x} ({v})"),
        Ty::U16 | Ty::U64 => format!("{v:#x}"),
    }
}

/// Figures gathered over all comparisons of one kernel.
#[derive(Default)]
pub struct Figures {
    /// Launches run.
    pub runs: usize,
    /// Elements compared.
    pub elements: usize,
    /// Largest ulp difference seen per `buffer` among float comparisons.
    pub max_ulp: BTreeMap<String, u64>,
    /// Largest difference as a fraction of the allowed bound (`saxpy` z).
    pub max_bound_ratio: f64,
}

/// Compares one buffer; returns the first mismatch and how many elements
/// differ.
pub fn compare(
    case: &Case,
    buf: &Buffer,
    got: &[u64],
    policy: Policy,
    fig: &mut Figures,
) -> Result<(), String> {
    let (want, pol) = match &buf.result {
        Some(r) => (r, policy),
        // read-only buffers must come back unchanged
        None => (&buf.init, Policy::Bits),
    };
    if got.len() != want.len() {
        return Err(format!(
            "buffer {}: {} elements read back, {} expected",
            buf.name,
            got.len(),
            want.len()
        ));
    }
    fig.elements += got.len();
    let a = case.args.iter().find_map(|x| match x {
        Arg::Scalar(Ty::F32, v) => Some(f32::from_bits(*v as u32)),
        _ => None,
    });
    let y_after = case
        .buffers
        .iter()
        .find(|b| b.name == "y")
        .and_then(|b| b.result.as_ref());
    let mut first: Option<String> = None;
    // The indices of the first few differing elements (where they fall in the
    // layout tells which result is wrong).
    let mut where_: Vec<usize> = Vec::new();
    let mut bad = 0usize;
    for i in 0..got.len() {
        let (g, w) = (got[i], want[i]);
        let ok = match pol {
            Policy::Bits => g == w,
            Policy::CorrectlyRounded => g == w || (is_nan(buf.ty, g) && is_nan(buf.ty, w)),
            Policy::AnyZeroSign => {
                g == w
                    || (is_nan(buf.ty, g) && is_nan(buf.ty, w))
                    || (is_zero(buf.ty, g) && is_zero(buf.ty, w))
            }
            Policy::SaxpyZ => {
                if g == w {
                    true
                } else if i >= y_after.map_or(0, |y| y.len()) {
                    // beyond n: the sentinel must be left alone
                    false
                } else {
                    let (gf, wf) = (f32::from_bits(g as u32), f32::from_bits(w as u32));
                    let y = y_after.map_or(0, |y| y[i]);
                    let bound = saxpy_z_bound(a.unwrap_or(0.0), f32::from_bits(y as u32));
                    let diff = (gf as f64 - wf as f64).abs();
                    if diff.is_finite() && diff <= bound {
                        fig.max_bound_ratio = fig.max_bound_ratio.max(diff / bound);
                        true
                    } else {
                        bad += 1;
                        if where_.len() < 8 {
                            where_.push(i);
                        }
                        first.get_or_insert_with(|| {
                            format!(
                                "buffer {} [{i}]: got {}, want {} (PoCL): difference {diff:e} \
                                 exceeds the OpenCL bound {bound:e} (sqrt 3 ulp, division \
                                 2.5 ulp)",
                                buf.name,
                                show(buf.ty, g),
                                show(buf.ty, w)
                            )
                        });
                        continue;
                    }
                }
            }
        };
        if !ok {
            bad += 1;
            if where_.len() < 8 {
                where_.push(i);
            }
            first.get_or_insert_with(|| {
                format!(
                    "buffer {} [{i}]: got {}, want {} (PoCL){}",
                    buf.name,
                    show(buf.ty, g),
                    show(buf.ty, w),
                    if g == buf.init[i] {
                        " (the simulator left the initial value)"
                    } else {
                        ""
                    }
                )
            });
            continue;
        }
        if matches!(buf.ty, Ty::F32 | Ty::F64) && !matches!(pol, Policy::Bits) {
            let d = if is_nan(buf.ty, g) && is_nan(buf.ty, w) {
                0
            } else if buf.ty == Ty::F32 {
                ulp_distance_f32(g as u32, w as u32)
            } else {
                ulp_distance_f64(g, w)
            };
            let e = fig.max_ulp.entry(buf.name.clone()).or_insert(0);
            *e = (*e).max(d);
        }
    }
    match first {
        None => Ok(()),
        Some(e) => Err(format!(
            "{e}; {bad} of {} elements differ (at {:?}{})",
            got.len(),
            where_,
            if bad > where_.len() { ", ..." } else { "" }
        )),
    }
}

// ---- running ----------------------------------------------------------------

/// Elements to little-endian bytes.
pub fn to_bytes(ty: Ty, values: &[u64]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|v| v.to_le_bytes().into_iter().take(ty.size()))
        .collect()
}

/// Little-endian bytes to elements.
pub fn from_bytes(ty: Ty, bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(ty.size())
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// Runs one case of `kernel` on the simulator (the code object `code`, built for
/// `target`) and compares every buffer with the recorded one: output buffers by the
/// rule `policy` gives for them, read-only buffers bit for bit.
pub fn run_case(
    kernel: &str,
    target: &str,
    code: &[u8],
    case: &Case,
    policy: &dyn Fn(&Buffer) -> Policy,
    fig: &mut Figures,
) -> Result<(), String> {
    run_case_with(kernel, target, code, case, policy, fig, false)
}

/// [`run_case`], with `general` set: without the pre-resolved handlers, every
/// instruction through the general executor (to tell which of the two is wrong).
pub fn run_case_with(
    kernel: &str,
    target: &str,
    code: &[u8],
    case: &Case,
    policy: &dyn Fn(&Buffer) -> Policy,
    fig: &mut Figures,
    general: bool,
) -> Result<(), String> {
    let dev = Device::new();
    let mut m = dev.load(code).map_err(|e| format!("load: {e}"))?;
    if general {
        m.prepared = std::sync::Arc::new(amdgpu_sim::exec::Prepared::default());
    }
    let mut addrs = Vec::new();
    for b in &case.buffers {
        let a = dev
            .alloc_bytes(&to_bytes(b.ty, &b.init))
            .map_err(|e| format!("alloc {}: {e}", b.name))?;
        addrs.push(a);
    }
    // `__local` pointer arguments: dynamic LDS after the kernel's own, each aligned as
    // its argument's `pointee_align` (16 without one), as a runtime places them
    // (`amdsim_host::dispatch_file` does the same for `Local` arguments).
    let info = m.kernel(kernel);
    let fixed = info.map_or(0, |k| k.descriptor.group_segment_fixed_size as u64);
    let declared: Vec<_> = info
        .and_then(|k| k.metadata.as_ref())
        .map(|md| md.explicit_args().collect())
        .unwrap_or_default();
    let mut lds_end = fixed;
    let mut args = Vec::new();
    for (index, a) in case.args.iter().enumerate() {
        args.push(match *a {
            Arg::Local(bytes) => {
                let decl = declared.get(index);
                let align = decl
                    .and_then(|d| d.pointee_align)
                    .unwrap_or(16)
                    .clamp(1, 1 << 16);
                let offset = lds_end.div_ceil(align) * align;
                lds_end = offset + bytes as u64;
                match decl.map(|d| d.size) {
                    Some(8) => ArgValue::U64(offset),
                    _ => ArgValue::U32(offset as u32),
                }
            }
            Arg::Struct(ref b) => ArgValue::Bytes(b.clone()),
            Arg::Buf(i) => ArgValue::Ptr(addrs[i]),
            Arg::Scalar(Ty::F32, v) => ArgValue::F32(f32::from_bits(v as u32)),
            Arg::Scalar(Ty::F64, v) => ArgValue::F64(f64::from_bits(v)),
            Arg::Scalar(Ty::U32, v) => ArgValue::U32(v as u32),
            Arg::Scalar(Ty::I32, v) => ArgValue::I32(v as u32 as i32),
            Arg::Scalar(Ty::U64, v) => ArgValue::U64(v),
            Arg::Scalar(ty, v) => ArgValue::Bytes(to_bytes(ty, &[v])),
        });
    }
    let mut cfg = LaunchConfig::new_1d(1, 1, args);
    cfg.grid = case.global;
    cfg.dimensions = Some(case.dims);
    cfg.group = case.local;
    cfg.dynamic_lds = (lds_end - fixed) as u32;
    dev.dispatch(&m, kernel, cfg)
        .map_err(|e| format!("dispatch on {target}: {e}"))?;
    for (b, &a) in case.buffers.iter().zip(&addrs) {
        let bytes = dev
            .read(a, b.init.len() * b.ty.size())
            .map_err(|e| format!("read back {}: {e}", b.name))?;
        compare(case, b, &from_bytes(b.ty, &bytes), policy(b), fig)?;
    }
    Ok(())
}
