//! Dispatch files: one kernel launch described in RON, so that a run can be
//! written down, committed next to its kernel and repeated.
//!
//! ```ron
//! (
//!   code_object: "../bin/gfx900/vector_add.co",  // relative to this file, or absolute
//!   kernel: "vector_add",
//!   grid: (1000, 1, 1),       // work-items (a plain number is (n, 1, 1))
//!   workgroup: (64, 1, 1),    // default (64, 1, 1)
//!   args: [
//!     Buffer(file: "a.bin"),                       // raw little-endian bytes
//!     Buffer(elem: F32, values: [1.5, 2, 3]),      // inline values
//!     Buffer(elem: F32, count: 1000),              // zeros
//!     U32(1000),
//!   ],
//!   outputs: [ (arg: 2, file: "c.out.bin") ],     // raw bytes; `.npy` and `.txt` too
//! )
//! ```
//!
//! Arguments, one per explicit kernel argument in order:
//!
//! - scalars `U8(v)`, `I8`, `U16`, `I16`, `U32`, `I32`, `U64`, `I64`, `F16`,
//!   `F32`, `F64`, and `Ptr(address)` for a raw pointer value (`Ptr(0)`: null);
//! - `Buffer(...)`, a global buffer, with `elem` (`U8` ... `F64`, the element
//!   type) and one of `file: "x.bin"` (raw bytes), `values: [..]`,
//!   `fill: v` (with `count`), `iota: start` (with `count`: `start`,
//!   `start + 1`, ...; integer types wrap around), or only `count` (zeros);
//! - `Local(bytes: n)`, a `__local` pointer: `n` bytes of dynamic LDS, the
//!   argument receives their offset in the group segment;
//! - `Struct(bytes: [..])`, a by-value struct, as raw bytes;
//! - `Image(width: w, height: h, order: Rgba, channel_type: UnsignedInt8)`,
//!   an OpenCL image argument (`image2d_t`; `geometry: D1`, `D3`,
//!   `D1Array`, `D2Array` with `depth` / `array_size` for the others): a
//!   LINEAR image and its image object ([`crate::image_object`]), zeroed or filled
//!   from `file:` (the texels packed row after row, slice after slice).
//!   An output naming an image writes its texels packed the same way.
//!
//! Optional fields: `offset: (x, y, z)` (the global offset), `dimensions`
//! (1-3), `max_instructions` (per wave), `timeout_s` (wall clock, seconds),
//! `threads` (host threads running work-groups), `gws: [(resource: r, value:
//! v)]` (GWS resources set before the dispatch, as `ds_gws_init` sets them:
//! a grid barrier of N waves takes N - 1). Outputs take `arg` (the
//! index of a buffer argument), `file`, and optionally `format` (`Raw`,
//! `Npy`, `Text`; by default from the file's extension) and `elem` (how to
//! read the bytes; default the buffer's element type).
//!
//! The format is parsed with [`DispatchFile::parse`] or
//! [`DispatchFile::from_path`]; [`DispatchFile::prepare`] loads the code
//! object into a [`Device`], allocates and fills the buffers and prepares the
//! [`Launch`]; after the run, [`DispatchFile::write_outputs`] writes the
//! outputs.

use amdgpu_codeobj::ValueKind;
use amdgpu_sim::SimError;
use amdgpu_sim::alu::f64_to_f16;
use amdgpu_sim::dispatch::{
    ArgValue, Device, KernelInfo, Launch, LaunchConfig, Module, RunOptions,
};
use amdgpu_sim::memory::MAX_MAPPED;
use amdgpu_sim::memory::gds::GWS_RESOURCES;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// The largest dispatch file read (1 MiB of text; buffers belong in files).
pub const MAX_FILE_TEXT: u64 = 1 << 20;

/// A dispatch: which kernel of which code object, over which grid, with
/// which arguments, and which buffers to write out afterwards.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DispatchFile {
    /// The code object, relative to [`DispatchFile::base_dir`] or absolute.
    pub code_object: PathBuf,
    /// The kernel's name.
    pub kernel: String,
    /// The grid in work-items; need not be a multiple of the work-group.
    pub grid: Dims,
    /// The work-group size in work-items.
    #[serde(default = "Dims::default_workgroup")]
    pub workgroup: Dims,
    /// The explicit kernel arguments, in order.
    #[serde(default)]
    pub args: Vec<Arg>,
    /// Buffers written to files after the run.
    #[serde(default)]
    pub outputs: Vec<Output>,
    /// The global offset (`get_global_offset`).
    #[serde(default)]
    pub offset: Option<Offset>,
    /// The work dimension the kernel sees (1-3); by default the highest
    /// dimension whose grid or work-group exceeds 1.
    #[serde(default)]
    pub dimensions: Option<u32>,
    /// The per-wave instruction cap.
    #[serde(default)]
    pub max_instructions: Option<u64>,
    /// The wall-clock limit of the run, in seconds.
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Host threads running work-groups (default: one per core).
    #[serde(default)]
    pub threads: Option<usize>,
    /// GWS resources set before the dispatch, as a runtime does before a
    /// cooperative launch (the effect of `ds_gws_init`).
    #[serde(default)]
    pub gws: Vec<GwsInit>,
    /// A captured dispatch (`amdsim exec --capture`): the kernarg segment's
    /// bytes as the runtime wrote them (hidden arguments included), from a
    /// file, instead of `args`.
    #[serde(default)]
    pub kernarg: Option<PathBuf>,
    /// A captured dispatch: memory mapped at fixed addresses before it, each
    /// region filled from a file, and written back to `output` after it.
    #[serde(default)]
    pub memory: Vec<Region>,
    /// A captured dispatch: where the code object was loaded (its load
    /// bias), so that addresses into it held in memory stay right.
    #[serde(default)]
    pub load_bias: Option<u64>,
    /// Dynamic LDS bytes per work-group beyond the kernel's own (a captured
    /// packet's group segment size minus the descriptor's).
    #[serde(default)]
    pub dynamic_lds: Option<u32>,
    /// Private bytes per work-item beyond the kernel's own (a captured
    /// packet's private segment size minus the descriptor's).
    #[serde(default)]
    pub extra_private: Option<u32>,
    /// The directory relative paths are resolved against (the dispatch
    /// file's own directory; not part of the format).
    #[serde(skip)]
    pub base_dir: PathBuf,
}

/// Memory at a fixed address, from a file (a captured dispatch's memory).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    /// The first byte's address (page aligned).
    pub address: u64,
    /// The bytes, relative to the dispatch file or absolute.
    pub file: PathBuf,
    /// Where to write the region's bytes after the run, if anywhere.
    #[serde(default)]
    pub output: Option<PathBuf>,
}

/// Three sizes (x, y, z); written `(x, y, z)`, `(x, y)`, `(x)` or `x`
/// (missing sizes are 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims(pub [u32; 3]);

/// Written as the tuple `(x, y, z)`, the form it is read in.
impl Serialize for Dims {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.0[0], self.0[1], self.0[2]).serialize(s)
    }
}

impl Dims {
    fn default_workgroup() -> Self {
        Dims([64, 1, 1])
    }
}

/// The global offset (x, y, z); written like [`Dims`] (missing parts are 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offset(pub [u64; 3]);

/// Written as the tuple `(x, y, z)`, the form it is read in.
impl Serialize for Offset {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.0[0], self.0[1], self.0[2]).serialize(s)
    }
}

/// Deserialises one to three unsigned numbers, or one number alone.
fn triple<'de, D: Deserializer<'de>>(d: D, fill: u64, max: u64) -> Result<[u64; 3], D::Error> {
    struct V(u64, u64);
    impl<'de> Visitor<'de> for V {
        type Value = [u64; 3];
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(
                f,
                "a number or a tuple of one to three numbers up to {}",
                self.1
            )
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<[u64; 3], E> {
            if v > self.1 {
                return Err(E::invalid_value(de::Unexpected::Unsigned(v), &self));
            }
            Ok([v, self.0, self.0])
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<[u64; 3], E> {
            match u64::try_from(v) {
                Ok(u) => self.visit_u64(u),
                Err(_) => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
            }
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[u64; 3], A::Error> {
            let mut out = [self.0; 3];
            let mut n = 0;
            while let Some(v) = seq.next_element::<u64>()? {
                if n == 3 {
                    return Err(de::Error::invalid_length(4, &self));
                }
                if v > self.1 {
                    return Err(de::Error::invalid_value(de::Unexpected::Unsigned(v), &self));
                }
                out[n] = v;
                n += 1;
            }
            if n == 0 {
                return Err(de::Error::invalid_length(0, &self));
            }
            Ok(out)
        }
    }
    d.deserialize_any(V(fill, max))
}

impl<'de> Deserialize<'de> for Dims {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let t = triple(d, 1, u32::MAX as u64)?;
        Ok(Dims(t.map(|v| v as u32)))
    }
}

impl<'de> Deserialize<'de> for Offset {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Offset(triple(d, 0, u64::MAX)?))
    }
}

/// The element type of a buffer, an output or a scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub enum Elem {
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 8-bit integer.
    I8,
    /// Unsigned 16-bit integer.
    U16,
    /// Signed 16-bit integer.
    I16,
    /// Unsigned 32-bit integer.
    U32,
    /// Signed 32-bit integer.
    I32,
    /// Unsigned 64-bit integer.
    U64,
    /// Signed 64-bit integer.
    I64,
    /// IEEE half precision.
    F16,
    /// IEEE single precision.
    F32,
    /// IEEE double precision.
    F64,
}

impl Elem {
    /// Every element type, in the order of the format's documentation.
    pub const ALL: [Elem; 11] = [
        Elem::U8,
        Elem::I8,
        Elem::U16,
        Elem::I16,
        Elem::U32,
        Elem::I32,
        Elem::U64,
        Elem::I64,
        Elem::F16,
        Elem::F32,
        Elem::F64,
    ];

    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            Elem::U8 | Elem::I8 => 1,
            Elem::U16 | Elem::I16 | Elem::F16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::I64 | Elem::F64 => 8,
        }
    }

    /// The lower-case name (`u32`, `f16`, ...), as the command line writes it.
    pub fn name(self) -> &'static str {
        match self {
            Elem::U8 => "u8",
            Elem::I8 => "i8",
            Elem::U16 => "u16",
            Elem::I16 => "i16",
            Elem::U32 => "u32",
            Elem::I32 => "i32",
            Elem::U64 => "u64",
            Elem::I64 => "i64",
            Elem::F16 => "f16",
            Elem::F32 => "f32",
            Elem::F64 => "f64",
        }
    }

    /// The type named `name` (`u32`, `F32`, ...; case-insensitive).
    pub fn from_name(name: &str) -> Option<Elem> {
        Elem::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(name))
    }

    fn is_float(self) -> bool {
        matches!(self, Elem::F16 | Elem::F32 | Elem::F64)
    }

    /// The little-endian encoding of `v` as this type: integers must be in
    /// range and integral, floats are rounded to the nearest value.
    pub fn encode(self, v: Number) -> Result<Vec<u8>, ValueError> {
        let out_of_range = || ValueError::OutOfRange {
            value: v,
            elem: self,
        };
        let int = || -> Result<i128, ValueError> {
            match v {
                Number::Int(i) => Ok(i),
                Number::Float(f) if f.fract() == 0.0 && f.abs() < 1e38 => Ok(f as i128),
                Number::Float(_) => Err(ValueError::NotAnInteger {
                    value: v,
                    elem: self,
                }),
            }
        };
        Ok(match self {
            Elem::U8 => u8::try_from(int()?)
                .map_err(|_| out_of_range())?
                .to_le_bytes()
                .to_vec(),
            Elem::I8 => i8::try_from(int()?)
                .map_err(|_| out_of_range())?
                .to_le_bytes()
                .to_vec(),
            Elem::U16 => u16::try_from(int()?)
                .map_err(|_| out_of_range())?
                .to_le_bytes()
                .to_vec(),
            Elem::I16 => i16::try_from(int()?)
                .map_err(|_| out_of_range())?
                .to_le_bytes()
                .to_vec(),
            Elem::U32 => u32::try_from(int()?)
                .map_err(|_| out_of_range())?
                .to_le_bytes()
                .to_vec(),
            Elem::I32 => i32::try_from(int()?)
                .map_err(|_| out_of_range())?
                .to_le_bytes()
                .to_vec(),
            Elem::U64 => u64::try_from(int()?)
                .map_err(|_| out_of_range())?
                .to_le_bytes()
                .to_vec(),
            Elem::I64 => i64::try_from(int()?)
                .map_err(|_| out_of_range())?
                .to_le_bytes()
                .to_vec(),
            Elem::F16 => f64_to_f16(v.as_f64()).to_le_bytes().to_vec(),
            Elem::F32 => (v.as_f64() as f32).to_le_bytes().to_vec(),
            Elem::F64 => v.as_f64().to_le_bytes().to_vec(),
        })
    }

    /// Element `i` of an iota starting at `start` (integer types wrap).
    fn iota(self, start: Number, i: u64) -> Vec<u8> {
        if self.is_float() {
            let v = Number::Float(start.as_f64() + i as f64);
            return self.encode(v).unwrap_or_default();
        }
        let s = match start {
            Number::Int(s) => s,
            Number::Float(f) => f as i128,
        };
        let v = s.wrapping_add(i as i128) as u64;
        v.to_le_bytes()[..self.size()].to_vec()
    }

    /// The element in `b` (little-endian, `self.size()` bytes) as text.
    pub fn show(self, b: &[u8]) -> String {
        let mut w = [0u8; 8];
        let n = b.len().min(8);
        w[..n].copy_from_slice(&b[..n]);
        let v = u64::from_le_bytes(w);
        match self {
            Elem::U8 => (v as u8).to_string(),
            Elem::I8 => (v as u8 as i8).to_string(),
            Elem::U16 => (v as u16).to_string(),
            Elem::I16 => (v as u16 as i16).to_string(),
            Elem::U32 => (v as u32).to_string(),
            Elem::I32 => (v as u32 as i32).to_string(),
            Elem::U64 => v.to_string(),
            Elem::I64 => (v as i64).to_string(),
            Elem::F16 => f32_text(amdgpu_sim::alu::f16_to_f32(v as u16)),
            Elem::F32 => f32_text(f32::from_bits(v as u32)),
            Elem::F64 => f64_text(f64::from_bits(v)),
        }
    }

    /// The NumPy type string (`<f4`, `|u1`, ...).
    fn npy_descr(self) -> &'static str {
        match self {
            Elem::U8 => "|u1",
            Elem::I8 => "|i1",
            Elem::U16 => "<u2",
            Elem::I16 => "<i2",
            Elem::U32 => "<u4",
            Elem::I32 => "<i4",
            Elem::U64 => "<u8",
            Elem::I64 => "<i8",
            Elem::F16 => "<f2",
            Elem::F32 => "<f4",
            Elem::F64 => "<f8",
        }
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A number as written in a dispatch file: an integer or a float.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Number {
    /// An integer literal.
    Int(i128),
    /// A floating-point literal.
    Float(f64),
}

impl Number {
    fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(x) => write!(f, "{x}"),
        }
    }
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
                Ok(Number::Int(v as i128))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
                Ok(Number::Int(v as i128))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Number, E> {
                Ok(Number::Int(v))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Number, E> {
                i128::try_from(v)
                    .map(Number::Int)
                    .map_err(|_| E::custom("integer too large"))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Number, E> {
                Ok(Number::Float(v))
            }
            fn visit_f32<E: de::Error>(self, v: f32) -> Result<Number, E> {
                Ok(Number::Float(v as f64))
            }
        }
        d.deserialize_any(V)
    }
}

/// One explicit kernel argument.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub enum Arg {
    /// `uchar`.
    U8(u8),
    /// `char`.
    I8(i8),
    /// `ushort`.
    U16(u16),
    /// `short`.
    I16(i16),
    /// `uint`.
    U32(u32),
    /// `int`.
    I32(i32),
    /// `ulong`.
    U64(u64),
    /// `long`.
    I64(i64),
    /// `half` (rounded to the nearest half).
    F16(f64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
    /// A pointer argument given as a raw address (`Ptr(0)`: null).
    Ptr(u64),
    /// A global buffer.
    Buffer(Buffer),
    /// A `__local` pointer: dynamic LDS of the given size.
    Local {
        /// Bytes of LDS.
        bytes: u32,
    },
    /// A struct passed by value, as raw bytes.
    Struct {
        /// Its bytes, in kernarg layout.
        bytes: Vec<u8>,
    },
    /// An OpenCL image argument.
    Image(ImageArg),
}

/// An image argument: its shape, format and contents.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ImageArg {
    /// The shape (default `D2`).
    #[serde(default = "ImageArg::default_geometry")]
    pub geometry: crate::image_object::Geometry,
    /// Width in texels.
    pub width: u32,
    /// Height (default 1).
    #[serde(default = "ImageArg::one")]
    pub height: u32,
    /// Depth of a 3-D image (default 1).
    #[serde(default = "ImageArg::one")]
    pub depth: u32,
    /// Slices of an array (default 1).
    #[serde(default = "ImageArg::one")]
    pub array_size: u32,
    /// Channel order.
    pub order: crate::image_object::ChannelOrder,
    /// Channel data type.
    pub channel_type: crate::image_object::ChannelType,
    /// The texels, packed, from this file (default zeros).
    #[serde(default)]
    pub file: Option<PathBuf>,
}

impl ImageArg {
    fn default_geometry() -> crate::image_object::Geometry {
        crate::image_object::Geometry::D2
    }
    fn one() -> u32 {
        1
    }
    /// The description [`crate::image_object::create_image`] takes.
    pub fn desc(&self) -> crate::image_object::ImageDesc {
        crate::image_object::ImageDesc {
            geometry: self.geometry,
            width: self.width,
            height: self.height,
            depth: self.depth,
            array_size: self.array_size,
            order: self.order,
            channel_type: self.channel_type,
        }
    }
}

/// A global buffer argument: its element type and contents.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Buffer {
    /// The element type (default `U8` for files).
    #[serde(default)]
    pub elem: Option<Elem>,
    /// Raw little-endian bytes from this file.
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// These values.
    #[serde(default)]
    pub values: Option<Vec<Number>>,
    /// `count` copies of this value.
    #[serde(default)]
    pub fill: Option<Number>,
    /// `count` values from this one up, in steps of 1.
    #[serde(default)]
    pub iota: Option<Number>,
    /// The number of elements (alone: zeros).
    #[serde(default)]
    pub count: Option<u64>,
}

/// How an output is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub enum OutputFormat {
    /// The buffer's bytes as they are.
    Raw,
    /// A NumPy `.npy` file (version 1.0, one dimension).
    Npy,
    /// One element per line, as text.
    Text,
}

/// A GWS resource's value before the dispatch: `(resource: 0, value: 3)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GwsInit {
    /// The resource (0-63).
    pub resource: u32,
    /// Its counter (for a barrier of N waves, N - 1).
    pub value: u32,
}

/// A buffer written to a file after the run.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// The index of the buffer argument.
    pub arg: usize,
    /// The file, relative to the dispatch file or absolute.
    pub file: PathBuf,
    /// The format; by default `Npy` for `.npy`, `Text` for `.txt`, else `Raw`.
    #[serde(default)]
    pub format: Option<OutputFormat>,
    /// The element type for `Npy` and `Text` (default: the buffer's).
    #[serde(default)]
    pub elem: Option<Elem>,
}

impl Output {
    /// The format this output is written in.
    pub fn format(&self) -> OutputFormat {
        self.format
            .unwrap_or_else(|| match self.file.extension().and_then(|e| e.to_str()) {
                Some("npy") => OutputFormat::Npy,
                Some("txt") => OutputFormat::Text,
                _ => OutputFormat::Raw,
            })
    }
}

/// Why a value does not fit its type.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ValueError {
    /// The value is outside the type's range.
    #[error("{value} is out of range for {elem}")]
    OutOfRange {
        /// The value.
        value: Number,
        /// The type.
        elem: Elem,
    },
    /// A fractional value for an integer type.
    #[error("{value} is not an integer ({elem})")]
    NotAnInteger {
        /// The value.
        value: Number,
        /// The type.
        elem: Elem,
    },
}

/// What is wrong with one argument.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgProblem {
    /// A buffer gives more than one of `file`, `values`, `fill`, `iota`.
    #[error("a buffer takes only one of `file`, `values`, `fill`, `iota`")]
    ConflictingContents,
    /// A buffer needs an element type.
    #[error("this buffer needs `elem` (U8, I8, U16, I16, U32, I32, U64, I64, F16, F32, F64)")]
    MissingElem,
    /// A buffer needs a count.
    #[error("this buffer needs `count`")]
    MissingCount,
    /// `count` does not go with `file` or `values`.
    #[error("`count` goes only with `fill`, `iota` or alone (zeros)")]
    UnexpectedCount,
    /// The buffer is larger than simulated memory holds.
    #[error("{elements} elements of {elem} do not fit in simulated memory (at most {max} bytes)")]
    TooLarge {
        /// Elements asked for.
        elements: u64,
        /// Their type.
        elem: Elem,
        /// The limit in bytes.
        max: u64,
    },
    /// A value does not fit the element type.
    #[error("element {index}: {error}")]
    Value {
        /// Which element.
        index: usize,
        /// Why.
        error: ValueError,
    },
    /// A `Local` or `Struct` argument the kernel does not declare as such.
    #[error("the kernel's argument is {declared}, not {given}")]
    KindMismatch {
        /// What the metadata says.
        declared: String,
        /// What the dispatch file gives.
        given: &'static str,
    },
    /// An argument whose kind, type or size differs from the metadata's.
    #[error("{name}the kernel declares {declared}, but {given} was given")]
    TypeMismatch {
        /// The argument's name in the metadata as "`name`: ", or empty.
        name: String,
        /// What the metadata declares.
        declared: String,
        /// What the dispatch gives.
        given: String,
    },
    /// The dynamic LDS of all `Local` arguments overflows.
    #[error("dynamic LDS beyond 4 GiB")]
    LocalTooLarge,
    /// An image the simulator cannot create, or a file of the wrong size.
    #[error("image: {0}")]
    Image(String),
}

/// Everything that can go wrong with a dispatch file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DispatchFileError {
    /// The text is not a valid dispatch (syntax, unknown field, wrong type).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Syntax {
        /// The dispatch file (`<text>` when parsed from a string).
        path: PathBuf,
        /// Line of the error, from 1.
        line: usize,
        /// Column of the error, from 1.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// A path to read is not a regular file (a FIFO, a device, a directory).
    #[error("{}: not a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// A file to read is larger than allowed.
    #[error("{}: {size} bytes is more than the {max} allowed", path.display())]
    FileTooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// The file given as a dispatch file is something else.
    #[error("{} is not a dispatch file but {is}", path.display())]
    NotADispatchFile {
        /// The file.
        path: PathBuf,
        /// What it is.
        is: &'static str,
    },
    /// A captured dispatch cannot be set up as it was.
    #[error("captured dispatch: {0}")]
    Capture(String),
    /// A file to read is larger than the memory this machine has free.
    #[error(
        "{}: {size} bytes is more than the {available} bytes of memory this machine has available",
        path.display()
    )]
    FileExceedsMemory {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// `MemAvailable` of `/proc/meminfo`.
        available: u64,
    },
    /// An argument is inconsistent.
    #[error("argument {index}: {problem}")]
    Argument {
        /// Its position in `args`.
        index: usize,
        /// What is wrong.
        problem: ArgProblem,
    },
    /// `timeout_s` is negative, not a number, or beyond what a duration holds.
    #[error("timeout_s of {0} (seconds: 0 for none, or a positive number)")]
    Timeout(f64),
    /// A `gws` entry names a resource beyond the 64 there are.
    #[error("gws: resource {0} (there are 64: 0-63)")]
    GwsResource(u32),
    /// An output names an argument that is not a buffer.
    #[error("output {index}: argument {arg} is not a buffer")]
    OutputNotBuffer {
        /// The output's position in `outputs`.
        index: usize,
        /// The argument it names.
        arg: usize,
    },
    /// The code object could not be loaded.
    #[error("{}: {source}", path.display())]
    Load {
        /// The code object.
        path: PathBuf,
        /// Why.
        #[source]
        source: SimError,
    },
    /// The simulator refused the dispatch or a memory operation failed.
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// Where each argument landed, as [`DispatchFile::prepare`] set it up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreparedArg {
    /// A scalar, pointer value or struct: nothing allocated.
    Value,
    /// A global buffer.
    Buffer {
        /// Its guest address.
        address: u64,
        /// Its size in bytes.
        bytes: u64,
        /// Its element type.
        elem: Elem,
    },
    /// Dynamic LDS.
    Local {
        /// Offset in the group segment (the argument's value).
        offset: u32,
        /// Its size in bytes.
        bytes: u32,
    },
    /// An image.
    Image {
        /// Where it is.
        image: crate::image_object::Image,
        /// What it is.
        desc: crate::image_object::ImageDesc,
    },
}

impl PreparedArg {
    /// The guest address of a buffer.
    pub fn address(&self) -> Option<u64> {
        match self {
            PreparedArg::Buffer { address, .. } => Some(*address),
            _ => None,
        }
    }
}

/// A dispatch set up on a device, ready to run.
#[derive(Debug)]
pub struct Prepared {
    /// The loaded code object.
    pub module: Module,
    /// The prepared launch (pass it to [`Device::run`] or a debug session).
    pub launch: Launch,
    /// Where each argument landed, in order.
    pub args: Vec<PreparedArg>,
}

impl Prepared {
    /// The guest address of argument `index` when it is a buffer.
    pub fn arg_address(&self, index: usize) -> Option<u64> {
        self.args.get(index).and_then(PreparedArg::address)
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> DispatchFileError + '_ {
    move |source| DispatchFileError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A file's length.
fn read_len(path: &Path) -> Result<u64, DispatchFileError> {
    Ok(std::fs::metadata(path).map_err(io_error(path))?.len())
}

/// The memory this machine has available (`MemAvailable` in `/proc/meminfo`),
/// when it says.
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Reads a regular file of at most `max` bytes. Anything else (a FIFO,
/// `/dev/zero`, a directory) is refused, and at most `max + 1` bytes are
/// ever read.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, DispatchFileError> {
    use std::io::Read;
    // Opening a FIFO would wait for a writer: only regular files are read.
    let meta = std::fs::metadata(path).map_err(io_error(path))?;
    if !meta.is_file() {
        return Err(DispatchFileError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    // A regular file says its size: a file over the limit, or over what the
    // machine can hold (a sparse file of 64 GiB), is refused before a byte is
    // read.
    let size = meta.len();
    if size > max {
        return Err(DispatchFileError::FileTooLarge {
            path: path.to_path_buf(),
            size,
            max,
        });
    }
    if let Some(available) = available_memory()
        && size > available
    {
        return Err(DispatchFileError::FileExceedsMemory {
            path: path.to_path_buf(),
            size,
            available,
        });
    }
    let f = std::fs::File::open(path).map_err(io_error(path))?;
    let mut out = Vec::new();
    f.take(max + 1)
        .read_to_end(&mut out)
        .map_err(io_error(path))?;
    if out.len() as u64 > max {
        return Err(DispatchFileError::FileTooLarge {
            path: path.to_path_buf(),
            size: out.len() as u64,
            max,
        });
    }
    Ok(out)
}

impl DispatchFile {
    /// A dispatch of `kernel` of `code_object` over `grid` in work-groups of
    /// `workgroup`, with the given arguments and nothing else set (the form
    /// the command line builds).
    pub fn new(
        code_object: impl Into<PathBuf>,
        kernel: impl Into<String>,
        grid: [u32; 3],
        workgroup: [u32; 3],
        args: Vec<Arg>,
    ) -> Self {
        DispatchFile {
            code_object: code_object.into(),
            kernel: kernel.into(),
            grid: Dims(grid),
            workgroup: Dims(workgroup),
            args,
            outputs: Vec::new(),
            offset: None,
            dimensions: None,
            max_instructions: None,
            timeout_s: None,
            threads: None,
            gws: Vec::new(),
            kernarg: None,
            memory: Vec::new(),
            load_bias: None,
            dynamic_lds: None,
            extra_private: None,
            base_dir: PathBuf::new(),
        }
    }

    /// Parses a dispatch from `text`; relative paths in it are resolved
    /// against `base_dir`. `name` names the text in error messages.
    pub fn parse(
        text: &str,
        base_dir: impl Into<PathBuf>,
        name: impl Into<PathBuf>,
    ) -> Result<Self, DispatchFileError> {
        use ron::extensions::Extensions;
        let opts = ron::Options::default().with_default_extension(
            Extensions::IMPLICIT_SOME | Extensions::UNWRAP_VARIANT_NEWTYPES,
        );
        let mut d: DispatchFile = opts.from_str(text).map_err(|e: ron::error::SpannedError| {
            DispatchFileError::Syntax {
                path: name.into(),
                line: e.span.start.line,
                column: e.span.start.col,
                message: e.code.to_string(),
            }
        })?;
        d.base_dir = base_dir.into();
        d.validate()?;
        Ok(d)
    }

    /// Reads and parses the dispatch file at `path` (relative paths in it are
    /// resolved against its directory).
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, DispatchFileError> {
        let path = path.as_ref();
        let bytes = read_bounded(path, MAX_FILE_TEXT)?;
        if bytes.starts_with(b"\x7fELF") {
            return Err(DispatchFileError::NotADispatchFile {
                path: path.to_path_buf(),
                is: "an ELF file (a code object?): give FILE.co KERNEL ARG... instead",
            });
        }
        let text = String::from_utf8(bytes).map_err(|e| DispatchFileError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        DispatchFile::parse(&text, dir, path)
    }

    /// `p` resolved against the base directory.
    pub fn resolve(&self, p: &Path) -> PathBuf {
        if p.is_absolute() || self.base_dir.as_os_str().is_empty() {
            p.to_path_buf()
        } else {
            self.base_dir.join(p)
        }
    }

    /// Checks what can be checked without the code object: buffer contents
    /// and sizes, values against their types, outputs naming buffers.
    pub fn validate(&self) -> Result<(), DispatchFileError> {
        if let Some(t) = self.timeout_s
            && (t < 0.0 || std::time::Duration::try_from_secs_f64(t).is_err())
        {
            return Err(DispatchFileError::Timeout(t));
        }
        if self.kernarg.is_some() && !self.args.is_empty() {
            return Err(DispatchFileError::Capture(
                "`kernarg` gives the whole segment: `args` must be empty".into(),
            ));
        }
        for (index, a) in self.args.iter().enumerate() {
            if let Arg::Buffer(b) = a {
                b.check()
                    .map_err(|problem| DispatchFileError::Argument { index, problem })?;
            }
        }
        for (index, o) in self.outputs.iter().enumerate() {
            if !matches!(self.args.get(o.arg), Some(Arg::Buffer(_) | Arg::Image(_))) {
                return Err(DispatchFileError::OutputNotBuffer { index, arg: o.arg });
            }
        }
        if let Some(g) = self
            .gws
            .iter()
            .find(|g| g.resource as usize >= GWS_RESOURCES)
        {
            return Err(DispatchFileError::GwsResource(g.resource));
        }
        Ok(())
    }

    /// Loads the code object into `dev`, allocates and fills the buffers,
    /// places the dynamic LDS and prepares the launch.
    pub fn prepare(&self, dev: &Device) -> Result<Prepared, DispatchFileError> {
        self.validate()?;
        let co_path = self.resolve(&self.code_object);
        let bytes = read_bounded(&co_path, amdgpu_sim::dispatch::MAX_CODE_OBJECT)?;
        if let Some(b) = self.load_bias {
            dev.set_code_base(b);
        }
        let module = dev.load(&bytes).map_err(|source| DispatchFileError::Load {
            path: co_path.clone(),
            source,
        })?;
        if let Some(b) = self.load_bias
            && module.load_bias != b
        {
            return Err(DispatchFileError::Capture(format!(
                "the code object could not be loaded at {b:#x} (it landed at {:#x})",
                module.load_bias
            )));
        }
        self.map_regions(dev, &module.image)?;
        let kernel = module
            .kernel(&self.kernel)
            .ok_or_else(|| {
                SimError::from(amdgpu_sim::DispatchError::NoKernel {
                    name: self.kernel.clone(),
                    available: module.kernels.iter().map(|k| k.name.clone()).collect(),
                })
            })?
            .clone();
        let (values, args, dynamic_lds) = self.place_args(dev, &kernel, module.gpu)?;
        let mut config = LaunchConfig::new_1d(1, 1, values);
        config.grid = self.grid.0;
        config.group = self.workgroup.0;
        config.dynamic_lds = dynamic_lds;
        config.dimensions = self.dimensions;
        config.global_offset = self.offset.map_or([0; 3], |o| o.0);
        if let Some(m) = self.max_instructions {
            config.max_instructions = m;
        }
        if let Some(k) = &self.kernarg {
            config.raw_kernarg = Some(read_bounded(
                &self.resolve(k),
                amdgpu_sim::dispatch::MAX_KERNARG,
            )?);
        }
        config.dynamic_lds += self.dynamic_lds.unwrap_or(0);
        config.extra_private = self.extra_private.unwrap_or(0);
        let launch = dev.launch(&module, &self.kernel, config)?;
        for g in &self.gws {
            dev.mem.gds().init(g.resource as u8, g.value);
        }
        Ok(Prepared {
            module,
            launch,
            args,
        })
    }

    /// Refuses an argument that does not fit the metadata's declaration:
    /// a value for a pointer, a buffer for a value, a value of another size,
    /// or, where the metadata names the type, an integer for a float (or the
    /// other way round) and a buffer of another element type.
    fn check_arg(a: &Arg, decl: &amdgpu_codeobj::KernelArg) -> Result<(), ArgProblem> {
        let pointer = decl.value_kind == ValueKind::GlobalBuffer;
        let by_value = decl.value_kind == ValueKind::ByValue;
        let ty = decl.type_name.as_deref().map(str::trim);
        let pointee = ty.and_then(|t| t.strip_suffix('*')).map(str::trim);
        let class = |t: &str| -> Option<(bool, u64)> {
            let t = t
                .trim_start_matches("const ")
                .trim_start_matches("__global ")
                .trim();
            Some(match t {
                "char" | "signed char" | "uchar" | "unsigned char" | "bool" => (false, 1),
                "short" | "ushort" | "unsigned short" => (false, 2),
                "int" | "uint" | "unsigned int" | "unsigned" => (false, 4),
                "long" | "ulong" | "unsigned long" | "size_t" => (false, 8),
                "half" => (true, 2),
                "float" => (true, 4),
                "double" => (true, 8),
                _ => return None,
            })
        };
        let elem_class = |e: Elem| {
            (
                matches!(e, Elem::F16 | Elem::F32 | Elem::F64),
                e.size() as u64,
            )
        };
        let declared = || match ty {
            Some(t) => format!("`{t}`"),
            None if pointer => "a pointer".into(),
            None => format!("a {}-byte value", decl.size),
        };
        let mismatch = |given: String| ArgProblem::TypeMismatch {
            name: decl
                .name
                .as_ref()
                .map_or(String::new(), |n| format!("`{n}`: ")),
            declared: declared(),
            given,
        };
        let scalar = match a {
            Arg::U8(_) => Some(Elem::U8),
            Arg::I8(_) => Some(Elem::I8),
            Arg::U16(_) => Some(Elem::U16),
            Arg::I16(_) => Some(Elem::I16),
            Arg::U32(_) => Some(Elem::U32),
            Arg::I32(_) => Some(Elem::I32),
            Arg::U64(_) => Some(Elem::U64),
            Arg::I64(_) => Some(Elem::I64),
            Arg::F16(_) => Some(Elem::F16),
            Arg::F32(_) => Some(Elem::F32),
            Arg::F64(_) => Some(Elem::F64),
            _ => None,
        };
        match (a, scalar) {
            (_, Some(e)) if pointer => Err(mismatch(format!("the value {e}"))),
            (_, Some(e)) if by_value => {
                if e.size() as u64 != decl.size {
                    return Err(mismatch(format!("a {}-byte {e}", e.size())));
                }
                match ty.and_then(class) {
                    Some(c) if c.0 != elem_class(e).0 => Err(mismatch(format!("a value {e}"))),
                    _ => Ok(()),
                }
            }
            (Arg::Buffer(_), _) if by_value => Err(mismatch("a buffer".into())),
            // A buffer of U8 is raw bytes, which any pointee can be read from.
            (Arg::Buffer(b), _) if pointer => match (b.elem, pointee.and_then(class)) {
                (Some(e), Some(c)) if e != Elem::U8 && c != elem_class(e) => {
                    Err(mismatch(format!("a buffer of {e}")))
                }
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }

    fn place_args(
        &self,
        dev: &Device,
        kernel: &KernelInfo,
        gpu: amdgpu_isa::Gpu,
    ) -> Result<(Vec<ArgValue>, Vec<PreparedArg>, u32), DispatchFileError> {
        let declared: Vec<_> = kernel
            .metadata
            .as_ref()
            .map(|m| m.explicit_args().collect())
            .unwrap_or_default();
        let fixed = kernel.descriptor.group_segment_fixed_size as u64;
        let mut lds_end = fixed;
        let mut values = Vec::with_capacity(self.args.len());
        let mut placed = Vec::with_capacity(self.args.len());
        for (index, a) in self.args.iter().enumerate() {
            let err = |problem| DispatchFileError::Argument { index, problem };
            let decl = declared.get(index);
            // (A wrong count is the launch's error, which names both counts.)
            if let Some(d) = decl
                && self.args.len() == declared.len()
            {
                Self::check_arg(a, d).map_err(err)?;
            }
            let (v, p) = match a {
                Arg::U8(x) => (ArgValue::Bytes(vec![*x]), PreparedArg::Value),
                Arg::I8(x) => (
                    ArgValue::Bytes(x.to_le_bytes().to_vec()),
                    PreparedArg::Value,
                ),
                Arg::U16(x) => (
                    ArgValue::Bytes(x.to_le_bytes().to_vec()),
                    PreparedArg::Value,
                ),
                Arg::I16(x) => (
                    ArgValue::Bytes(x.to_le_bytes().to_vec()),
                    PreparedArg::Value,
                ),
                Arg::U32(x) => (ArgValue::U32(*x), PreparedArg::Value),
                Arg::I32(x) => (ArgValue::I32(*x), PreparedArg::Value),
                Arg::U64(x) => (ArgValue::U64(*x), PreparedArg::Value),
                Arg::I64(x) => (
                    ArgValue::Bytes(x.to_le_bytes().to_vec()),
                    PreparedArg::Value,
                ),
                Arg::F16(x) => (
                    ArgValue::Bytes(f64_to_f16(*x).to_le_bytes().to_vec()),
                    PreparedArg::Value,
                ),
                Arg::F32(x) => (ArgValue::F32(*x), PreparedArg::Value),
                Arg::F64(x) => (ArgValue::F64(*x), PreparedArg::Value),
                Arg::Ptr(x) => (ArgValue::Ptr(*x), PreparedArg::Value),
                Arg::Struct { bytes } => (ArgValue::Bytes(bytes.clone()), PreparedArg::Value),
                Arg::Buffer(b) => {
                    let (address, bytes, elem) = b.allocate(self, dev).map_err(|e| match e {
                        BufferError::Problem(p) => err(p),
                        BufferError::File(f) => f,
                    })?;
                    (
                        ArgValue::Ptr(address),
                        PreparedArg::Buffer {
                            address,
                            bytes,
                            elem,
                        },
                    )
                }
                Arg::Image(ia) => {
                    if let Some(d) = decl
                        && d.value_kind != ValueKind::Image
                    {
                        return Err(err(ArgProblem::KindMismatch {
                            declared: format!("{:?}", d.value_kind),
                            given: "Image",
                        }));
                    }
                    let desc = ia.desc();
                    let image =
                        crate::image_object::create_image(dev, gpu, &desc).map_err(|e| {
                            err(ArgProblem::Image(match e {
                                crate::image_object::CreateImageError::Bad(why) => why,
                                e => e.to_string(),
                            }))
                        })?;
                    if let Some(f) = &ia.file {
                        let path = self.resolve(f);
                        let data = read_bounded(&path, MAX_MAPPED)?;
                        let row = (desc.width * desc.texel_bytes()) as usize;
                        let rows = image.size / image.row_pitch;
                        if data.len() as u64 != row as u64 * rows {
                            return Err(err(ArgProblem::Image(format!(
                                "{} holds {} bytes, the image {} ({rows} rows of {row})",
                                path.display(),
                                data.len(),
                                row as u64 * rows
                            ))));
                        }
                        for (r, chunk) in data.chunks(row).enumerate() {
                            dev.mem
                                .write(image.data + r as u64 * image.row_pitch, chunk)
                                .map_err(SimError::Host)?;
                        }
                    }
                    (
                        ArgValue::Ptr(image.object),
                        PreparedArg::Image { image, desc },
                    )
                }
                Arg::Local { bytes } => {
                    if let Some(d) = decl
                        && d.value_kind != ValueKind::DynamicSharedPointer
                    {
                        return Err(err(ArgProblem::KindMismatch {
                            declared: format!("{:?}", d.value_kind),
                            given: "Local",
                        }));
                    }
                    let align = decl
                        .and_then(|d| d.pointee_align)
                        .unwrap_or(16)
                        .clamp(1, 1 << 16);
                    let offset = lds_end.div_ceil(align) * align;
                    lds_end = offset + *bytes as u64;
                    let offset =
                        u32::try_from(offset).map_err(|_| err(ArgProblem::LocalTooLarge))?;
                    let v = match decl.map(|d| d.size) {
                        Some(8) => ArgValue::U64(offset as u64),
                        _ => ArgValue::U32(offset),
                    };
                    (
                        v,
                        PreparedArg::Local {
                            offset,
                            bytes: *bytes,
                        },
                    )
                }
            };
            values.push(v);
            placed.push(p);
        }
        let dynamic = u32::try_from(lds_end - fixed).map_err(|_| DispatchFileError::Argument {
            index: self.args.len().saturating_sub(1),
            problem: ArgProblem::LocalTooLarge,
        })?;
        Ok((values, placed, dynamic))
    }

    /// The run options the file asks for: its `timeout_s` (none when absent
    /// or 0); everything else as [`RunOptions::default`]. (`threads` is the
    /// caller's to apply, with a rayon pool of that size.)
    pub fn run_options(&self) -> RunOptions {
        RunOptions {
            timeout: self
                .timeout_s
                .filter(|t| *t > 0.0)
                .and_then(|t| std::time::Duration::try_from_secs_f64(t).ok()),
            ..RunOptions::default()
        }
    }

    /// Maps the captured memory regions at their addresses and fills them;
    /// a region inside the loaded code object's `image` (its data as the
    /// program had changed it) is written over it.
    fn map_regions(
        &self,
        dev: &Device,
        image: &std::ops::Range<u64>,
    ) -> Result<(), DispatchFileError> {
        for r in &self.memory {
            let path = self.resolve(&r.file);
            let data = read_bounded(&path, MAX_MAPPED)?;
            let len = (data.len() as u64).max(1);
            let inside = image.contains(&r.address) && r.address + len <= image.end;
            if !inside {
                dev.mem
                    .map_at(r.address, len)
                    .map_err(|f| DispatchFileError::Capture(format!("{}: {f}", path.display())))?;
            }
            dev.write(r.address, &data)?;
        }
        Ok(())
    }

    /// Writes every output from `dev`'s memory; returns the files written.
    pub fn write_outputs(
        &self,
        dev: &Device,
        prepared: &Prepared,
    ) -> Result<Vec<PathBuf>, DispatchFileError> {
        let mut written = Vec::new();
        for r in &self.memory {
            if let Some(o) = &r.output {
                let len = read_len(&self.resolve(&r.file))?;
                let path = self.resolve(o);
                std::fs::write(&path, dev.read(r.address, len as usize)?)
                    .map_err(io_error(&path))?;
                written.push(path);
            }
        }
        for (index, o) in self.outputs.iter().enumerate() {
            let (data, elem) = match prepared.args.get(o.arg).copied() {
                Some(PreparedArg::Buffer {
                    address,
                    bytes,
                    elem,
                }) => (dev.read(address, bytes as usize)?, elem),
                Some(PreparedArg::Image { image, desc }) => {
                    // The texels packed: each row without its padding.
                    let row = (desc.width * desc.texel_bytes()) as usize;
                    let rows = image.size / image.row_pitch;
                    let mut data = Vec::with_capacity(row * rows as usize);
                    for r in 0..rows {
                        data.extend(dev.read(image.data + r * image.row_pitch, row)?);
                    }
                    (data, Elem::U8)
                }
                _ => return Err(DispatchFileError::OutputNotBuffer { index, arg: o.arg }),
            };
            let elem = o.elem.unwrap_or(elem);
            let content = encode_output(o.format(), elem, &data);
            let path = self.resolve(&o.file);
            std::fs::write(&path, content).map_err(io_error(&path))?;
            written.push(path);
        }
        Ok(written)
    }
}

/// The bytes of an output file.
pub fn encode_output(format: OutputFormat, elem: Elem, data: &[u8]) -> Vec<u8> {
    match format {
        OutputFormat::Raw => data.to_vec(),
        OutputFormat::Text => {
            let mut s = String::new();
            for c in data.chunks(elem.size()) {
                s.push_str(&elem.show(c));
                s.push('\n');
            }
            s.into_bytes()
        }
        OutputFormat::Npy => {
            let n = data.len() / elem.size();
            let mut header = format!(
                "{{'descr': '{}', 'fortran_order': False, 'shape': ({n},), }}",
                elem.npy_descr()
            );
            // Magic (6) + version (2) + length (2) + header + '\n', padded to 64.
            let total = (10 + header.len() + 1).div_ceil(64) * 64;
            while 10 + header.len() + 1 < total {
                header.push(' ');
            }
            header.push('\n');
            let mut out = b"\x93NUMPY\x01\x00".to_vec();
            out.extend_from_slice(&(header.len() as u16).to_le_bytes());
            out.extend_from_slice(header.as_bytes());
            out.extend_from_slice(&data[..n * elem.size()]);
            out
        }
    }
}

enum BufferError {
    Problem(ArgProblem),
    File(DispatchFileError),
}

impl From<ArgProblem> for BufferError {
    fn from(p: ArgProblem) -> Self {
        BufferError::Problem(p)
    }
}

impl Buffer {
    fn check(&self) -> Result<(), ArgProblem> {
        let sources = [
            self.file.is_some(),
            self.values.is_some(),
            self.fill.is_some(),
            self.iota.is_some(),
        ];
        if sources.iter().filter(|&&s| s).count() > 1 {
            return Err(ArgProblem::ConflictingContents);
        }
        if self.file.is_some() {
            if self.count.is_some() {
                return Err(ArgProblem::UnexpectedCount);
            }
            return Ok(());
        }
        let elem = self.elem.ok_or(ArgProblem::MissingElem)?;
        if let Some(values) = &self.values {
            if self.count.is_some() {
                return Err(ArgProblem::UnexpectedCount);
            }
            for (index, v) in values.iter().enumerate() {
                elem.encode(*v)
                    .map_err(|error| ArgProblem::Value { index, error })?;
            }
            return Ok(());
        }
        let count = self.count.ok_or(ArgProblem::MissingCount)?;
        let too_large = ArgProblem::TooLarge {
            elements: count,
            elem,
            max: MAX_MAPPED,
        };
        match count.checked_mul(elem.size() as u64) {
            Some(b) if b <= MAX_MAPPED => {}
            _ => return Err(too_large),
        }
        if let Some(v) = self.fill {
            elem.encode(v)
                .map_err(|error| ArgProblem::Value { index: 0, error })?;
        }
        if let Some(v) = self.iota {
            elem.encode(v)
                .map_err(|error| ArgProblem::Value { index: 0, error })?;
        }
        Ok(())
    }

    /// Allocates the buffer in `dev` and fills it; returns its address, size
    /// and element type.
    fn allocate(&self, d: &DispatchFile, dev: &Device) -> Result<(u64, u64, Elem), BufferError> {
        self.check()?;
        if let Some(f) = &self.file {
            let path = d.resolve(f);
            let data = read_bounded(&path, MAX_MAPPED).map_err(BufferError::File)?;
            let a = dev
                .alloc_bytes(&data)
                .map_err(|e| BufferError::File(e.into()))?;
            return Ok((a, data.len() as u64, self.elem.unwrap_or(Elem::U8)));
        }
        let elem = self.elem.ok_or(ArgProblem::MissingElem)?;
        let sim = |e: SimError| BufferError::File(e.into());
        if let Some(values) = &self.values {
            let mut data = Vec::with_capacity(values.len() * elem.size());
            for (index, v) in values.iter().enumerate() {
                data.extend(
                    elem.encode(*v)
                        .map_err(|error| ArgProblem::Value { index, error })?,
                );
            }
            let a = dev.alloc_bytes(&data).map_err(sim)?;
            return Ok((a, data.len() as u64, elem));
        }
        let count = self.count.ok_or(ArgProblem::MissingCount)?;
        let bytes = count * elem.size() as u64;
        let a = dev.alloc(bytes).map_err(sim)?;
        // Fill in chunks so that the host holds at most one chunk besides
        // the simulated memory.
        const CHUNK: u64 = 1 << 16;
        let one = match self.fill {
            Some(v) => Some(
                elem.encode(v)
                    .map_err(|error| ArgProblem::Value { index: 0, error })?,
            ),
            None => None,
        };
        if one.is_none() && self.iota.is_none() {
            return Ok((a, bytes, elem));
        }
        let mut i = 0u64;
        while i < count {
            let n = (count - i).min(CHUNK);
            let mut chunk = Vec::with_capacity(n as usize * elem.size());
            for k in i..i + n {
                match (&one, self.iota) {
                    (Some(v), _) => chunk.extend_from_slice(v),
                    (None, Some(start)) => chunk.extend(elem.iota(start, k)),
                    (None, None) => {}
                }
            }
            dev.write(a + i * elem.size() as u64, &chunk).map_err(sim)?;
            i += n;
        }
        Ok((a, bytes, elem))
    }
}

/// Whether a float is printed in the exponent form: very large and very small
/// magnitudes, whose plain decimals run to hundreds of digits.
fn exponent_form(a: f64) -> bool {
    a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a.abs())
}

/// An f64 as the shortest text that reads back to it (`1e300`, not 301 digits).
fn f64_text(x: f64) -> String {
    if exponent_form(x) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// An f32 as the shortest text that reads back to it.
fn f32_text(x: f32) -> String {
    if exponent_form(f64::from(x)) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<DispatchFile, DispatchFileError> {
        DispatchFile::parse(s, "/base", "test.ron")
    }

    /// Floats print as the shortest text that reads back to them, in the exponent form
    /// only for magnitudes whose plain decimals would be very long.
    #[test]
    fn floats_show_short() {
        let f64s = |x: f64| Elem::F64.show(&x.to_le_bytes());
        assert_eq!(f64s(1e300), "1e300");
        assert_eq!(f64s(-3.3333333333333334e-308), "-3.3333333333333334e-308");
        assert_eq!(f64s(132864879.0), "132864879");
        assert_eq!(f64s(0.5), "0.5");
        assert_eq!(f64s(0.0), "0");
        assert_eq!(f64s(f64::INFINITY), "inf");
        for x in [1e300, 5e-324, -1.7e308, 123.456, 1e16, 9.99e15] {
            assert_eq!(f64s(x).parse::<f64>().unwrap(), x);
        }
        assert_eq!(Elem::F32.show(&1e-7f32.to_le_bytes()), "1e-7");
        assert_eq!(Elem::F32.show(&2.5f32.to_le_bytes()), "2.5");
        assert_eq!(Elem::F16.show(&0x3c00u16.to_le_bytes()), "1");
    }

    #[test]
    fn the_documented_shape_parses() {
        let d = parse(
            r#"(
  code_object: "kernels/bin/gfx900/vector_add.co",
  kernel: "vector_add",
  grid: (1000, 1, 1),          // work-items
  workgroup: (64, 1, 1),
  args: [
    Buffer(file: "a.bin"),
    Buffer(elem: F32, values: [1, 2.5]),
    Buffer(elem: U32, count: 10, iota: 5),
    U32(1000),
    Local(bytes: 256),
    Struct(bytes: [1, 2, 3, 4]),
    F16(1.5), I64(-3), U8(255),
  ],
  outputs: [ (arg: 2, file: "c.out.bin") ],
  offset: (1, 2),
  max_instructions: 1000,
  timeout_s: 2.5,
)"#,
        )
        .unwrap();
        assert_eq!(d.grid, Dims([1000, 1, 1]));
        assert_eq!(d.offset, Some(Offset([1, 2, 0])));
        assert_eq!(d.max_instructions, Some(1000));
        assert_eq!(
            d.resolve(&d.outputs[0].file),
            PathBuf::from("/base/c.out.bin")
        );
        assert_eq!(d.args.len(), 9);
        assert_eq!(d.outputs[0].format(), OutputFormat::Raw);
    }

    #[test]
    fn a_typo_names_its_position() {
        let e = parse("(\n  code_object: \"x.co\",\n  kernel: \"k\",\n  gird: (1, 1, 1),\n)")
            .unwrap_err();
        match e {
            DispatchFileError::Syntax {
                line,
                column,
                message,
                ..
            } => {
                assert_eq!(line, 4, "{message}");
                assert!(column >= 3, "{column}");
                assert!(message.contains("gird"), "{message}");
            }
            other => panic!("{other}"),
        }
    }

    #[test]
    fn buffers_are_checked_before_anything_is_allocated() {
        let bad = [
            ("Buffer(elem: U8, values: [256])", "out of range"),
            ("Buffer(elem: U32, values: [1.5])", "not an integer"),
            ("Buffer(values: [1])", "needs `elem`"),
            (
                "Buffer(elem: U32, count: 4611686018427387904)",
                "do not fit",
            ),
            ("Buffer(elem: U32, fill: 1)", "needs `count`"),
            (
                "Buffer(elem: U32, file: \"x\", fill: 1, count: 2)",
                "only one",
            ),
        ];
        for (arg, want) in bad {
            let e = parse(&format!(
                "(code_object: \"x.co\", kernel: \"k\", grid: 1, args: [{arg}])"
            ))
            .unwrap_err()
            .to_string();
            assert!(e.contains(want), "{arg}: {e}");
            assert!(e.starts_with("argument 0"), "{e}");
        }
        let e = parse("(code_object: \"x.co\", kernel: \"k\", grid: 1, args: [U32(1)], outputs: [(arg: 0, file: \"o\")])")
            .unwrap_err();
        assert!(
            matches!(e, DispatchFileError::OutputNotBuffer { index: 0, arg: 0 }),
            "{e}"
        );
    }

    #[test]
    fn timeouts_are_checked() {
        for t in ["-1", "1e300", "NaN"] {
            let e = parse(&format!(
                "(code_object: \"x.co\", kernel: \"k\", grid: 1, timeout_s: {t})"
            ))
            .unwrap_err();
            assert!(matches!(e, DispatchFileError::Timeout(_)), "{t}: {e}");
        }
        let d = parse("(code_object: \"x.co\", kernel: \"k\", grid: 1, timeout_s: 1.5)").unwrap();
        assert_eq!(
            d.run_options().timeout,
            Some(std::time::Duration::from_millis(1500))
        );
    }

    #[test]
    fn values_encode_by_type() {
        assert_eq!(Elem::I16.encode(Number::Int(-2)).unwrap(), [0xfe, 0xff]);
        assert_eq!(Elem::F16.encode(Number::Float(1.0)).unwrap(), [0x00, 0x3c]);
        assert_eq!(Elem::U8.iota(Number::Int(250), 10), [4]);
        assert_eq!(Elem::F32.iota(Number::Float(0.5), 2), 2.5f32.to_le_bytes());
        assert!(Elem::U64.encode(Number::Int(-1)).is_err());
        assert_eq!(Elem::from_name("F64"), Some(Elem::F64));
    }

    #[test]
    fn npy_header_is_aligned() {
        let out = encode_output(OutputFormat::Npy, Elem::F32, &[0; 12]);
        let hlen = u16::from_le_bytes([out[8], out[9]]) as usize;
        assert_eq!((10 + hlen) % 64, 0);
        assert_eq!(out.len(), 10 + hlen + 12);
        let h = std::str::from_utf8(&out[10..10 + hlen]).unwrap();
        assert!(h.contains("'<f4'") && h.contains("(3,)"), "{h}");
        assert_eq!(
            encode_output(OutputFormat::Text, Elem::I32, &(-5i32).to_le_bytes()),
            b"-5\n"
        );
    }
}
