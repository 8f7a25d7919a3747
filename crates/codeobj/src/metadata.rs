//! The `NT_AMDGPU_METADATA` note: a MessagePack map describing the kernels.
//!
//! Source: AMDGPU usage guide, "Code Object V3 Metadata" (tables "AMDHSA Code
//! Object V3 Metadata Map", "... Kernel Metadata Map", "... Kernel Argument
//! Metadata Map") and the V4/V5 additions (hidden arguments such as
//! `hidden_block_count_x`, `.uses_dynamic_stack`). Known keys are decoded into
//! typed fields; every other key is kept, with its MessagePack value, in an
//! `other` list so nothing is lost.

use crate::Error;
use rmpv::Value;
use std::fmt;

/// Owner name of AMDGPU notes.
pub const NOTE_OWNER: &[u8] = b"AMDGPU";
/// Note type of the MessagePack metadata note.
pub const NT_AMDGPU_METADATA: u32 = 32;

/// Maximum nesting accepted in the MessagePack document (the documented
/// shape nests at most four levels; the cap keeps hostile input from
/// recursing deeply).
const MAX_DEPTH: usize = 32;

macro_rules! string_enum {
    ($(#[$m:meta])* $ty:ident { $($variant:ident = $s:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $ty {
            $(#[doc = concat!("`", $s, "`")] $variant,)*
            /// A value this loader does not know, kept verbatim.
            Other(String),
        }

        impl $ty {
            /// Parses the metadata string.
            pub fn from_name(s: &str) -> $ty {
                match s {
                    $($s => $ty::$variant,)*
                    other => $ty::Other(other.to_string()),
                }
            }

            /// The metadata string.
            pub fn as_str(&self) -> &str {
                match self {
                    $($ty::$variant => $s,)*
                    $ty::Other(s) => s,
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum! {
    /// `.value_kind` of a kernel argument: how the runtime fills it.
    ValueKind {
        ByValue = "by_value",
        GlobalBuffer = "global_buffer",
        DynamicSharedPointer = "dynamic_shared_pointer",
        Sampler = "sampler",
        Image = "image",
        Pipe = "pipe",
        Queue = "queue",
        HiddenGlobalOffsetX = "hidden_global_offset_x",
        HiddenGlobalOffsetY = "hidden_global_offset_y",
        HiddenGlobalOffsetZ = "hidden_global_offset_z",
        HiddenNone = "hidden_none",
        HiddenPrintfBuffer = "hidden_printf_buffer",
        HiddenHostcallBuffer = "hidden_hostcall_buffer",
        HiddenDefaultQueue = "hidden_default_queue",
        HiddenCompletionAction = "hidden_completion_action",
        HiddenMultigridSyncArg = "hidden_multigrid_sync_arg",
        HiddenBlockCountX = "hidden_block_count_x",
        HiddenBlockCountY = "hidden_block_count_y",
        HiddenBlockCountZ = "hidden_block_count_z",
        HiddenGroupSizeX = "hidden_group_size_x",
        HiddenGroupSizeY = "hidden_group_size_y",
        HiddenGroupSizeZ = "hidden_group_size_z",
        HiddenRemainderX = "hidden_remainder_x",
        HiddenRemainderY = "hidden_remainder_y",
        HiddenRemainderZ = "hidden_remainder_z",
        HiddenGridDims = "hidden_grid_dims",
        HiddenHeapV1 = "hidden_heap_v1",
        HiddenPrivateBase = "hidden_private_base",
        HiddenSharedBase = "hidden_shared_base",
        HiddenQueuePtr = "hidden_queue_ptr",
        HiddenDynamicLdsSize = "hidden_dynamic_lds_size",
    }
}

impl ValueKind {
    /// Whether the argument is hidden (filled by the runtime, not the user):
    /// every `hidden_*` kind.
    pub fn is_hidden(&self) -> bool {
        self.as_str().starts_with("hidden_")
    }
}

string_enum! {
    /// `.address_space` of a pointer argument.
    AddressSpace {
        Private = "private",
        Global = "global",
        Constant = "constant",
        Local = "local",
        Generic = "generic",
        Region = "region",
    }
}

/// One entry of a kernel's `.args`.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelArg {
    /// `.name`: the source name (present with `-cl-kernel-arg-info` or debug info).
    pub name: Option<String>,
    /// `.type_name`: the source type.
    pub type_name: Option<String>,
    /// `.offset`: byte offset in the kernarg segment.
    pub offset: u64,
    /// `.size`: byte size in the kernarg segment.
    pub size: u64,
    /// `.value_kind`.
    pub value_kind: ValueKind,
    /// `.address_space` (pointers only).
    pub address_space: Option<AddressSpace>,
    /// `.pointee_align` (dynamic shared pointers).
    pub pointee_align: Option<u64>,
    /// `.access`: `read_only`, `write_only`, `read_write`.
    pub access: Option<String>,
    /// `.actual_access`.
    pub actual_access: Option<String>,
    /// `.is_const`.
    pub is_const: bool,
    /// `.is_restrict`.
    pub is_restrict: bool,
    /// `.is_volatile`.
    pub is_volatile: bool,
    /// `.is_pipe`.
    pub is_pipe: bool,
    /// Every other key, verbatim.
    pub other: Vec<(String, Value)>,
}

/// One entry of `amdhsa.kernels`.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelMetadata {
    /// `.name`: the kernel's source name.
    pub name: String,
    /// `.symbol`: the kernel descriptor symbol, `NAME.kd`.
    pub symbol: String,
    /// `.args`, in kernarg order (empty when absent).
    pub args: Vec<KernelArg>,
    /// `.group_segment_fixed_size`.
    pub group_segment_fixed_size: Option<u64>,
    /// `.private_segment_fixed_size`.
    pub private_segment_fixed_size: Option<u64>,
    /// `.kernarg_segment_size`.
    pub kernarg_segment_size: Option<u64>,
    /// `.kernarg_segment_align`.
    pub kernarg_segment_align: Option<u64>,
    /// `.wavefront_size`.
    pub wavefront_size: Option<u64>,
    /// `.sgpr_count`.
    pub sgpr_count: Option<u64>,
    /// `.vgpr_count`.
    pub vgpr_count: Option<u64>,
    /// `.agpr_count`.
    pub agpr_count: Option<u64>,
    /// `.max_flat_workgroup_size`.
    pub max_flat_workgroup_size: Option<u64>,
    /// `.sgpr_spill_count`.
    pub sgpr_spill_count: Option<u64>,
    /// `.vgpr_spill_count`.
    pub vgpr_spill_count: Option<u64>,
    /// `.uses_dynamic_stack`.
    pub uses_dynamic_stack: Option<bool>,
    /// `.language`, e.g. `OpenCL C`.
    pub language: Option<String>,
    /// `.reqd_workgroup_size`.
    pub reqd_workgroup_size: Option<[u64; 3]>,
    /// Every other key, verbatim.
    pub other: Vec<(String, Value)>,
}

impl KernelMetadata {
    /// The arguments the user passes (not `hidden_*`).
    pub fn explicit_args(&self) -> impl Iterator<Item = &KernelArg> {
        self.args.iter().filter(|a| !a.value_kind.is_hidden())
    }

    /// The hidden arguments the runtime fills.
    pub fn hidden_args(&self) -> impl Iterator<Item = &KernelArg> {
        self.args.iter().filter(|a| a.value_kind.is_hidden())
    }
}

/// The decoded metadata note.
#[derive(Debug, Clone, PartialEq)]
pub struct Metadata {
    /// `amdhsa.version`: `[major, minor]`.
    pub version: Option<(u64, u64)>,
    /// `amdhsa.target`: the target id string.
    pub target: Option<String>,
    /// `amdhsa.kernels`.
    pub kernels: Vec<KernelMetadata>,
    /// Every other top-level key (e.g. `amdhsa.printf`), verbatim.
    pub other: Vec<(String, Value)>,
    /// The whole document as decoded.
    pub raw: Value,
}

/// A view of a MessagePack map with the path it sits at, for messages.
struct MapView<'a> {
    path: String,
    entries: &'a [(Value, Value)],
}

impl<'a> MapView<'a> {
    fn new(v: &'a Value, path: String) -> Result<Self, Error> {
        match v {
            Value::Map(entries) => {
                for (k, _) in entries {
                    if k.as_str().is_none() {
                        return Err(Error::shape(path, format!("map key {k} is not a string")));
                    }
                }
                Ok(MapView { path, entries })
            }
            other => Err(Error::shape(
                path,
                format!("expected a map, found {}", kind(other)),
            )),
        }
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    fn sub(&self, key: &str) -> String {
        format!("{}.{}", self.path, key.trim_start_matches('.'))
    }

    fn u64(&self, key: &str) -> Result<Option<u64>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| {
                Error::shape(
                    self.sub(key),
                    format!("expected an unsigned integer, found {}", kind(v)),
                )
            }),
        }
    }

    fn req_u64(&self, key: &str) -> Result<u64, Error> {
        self.u64(key)?
            .ok_or_else(|| Error::shape(self.sub(key), "required key is missing"))
    }

    fn bool(&self, key: &str) -> Result<Option<bool>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v.as_bool().map(Some).ok_or_else(|| {
                Error::shape(
                    self.sub(key),
                    format!("expected a boolean, found {}", kind(v)),
                )
            }),
        }
    }

    fn string(&self, key: &str) -> Result<Option<String>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v.as_str().map(|s| Some(s.to_string())).ok_or_else(|| {
                Error::shape(
                    self.sub(key),
                    format!("expected a string, found {}", kind(v)),
                )
            }),
        }
    }

    fn req_string(&self, key: &str) -> Result<String, Error> {
        self.string(key)?
            .ok_or_else(|| Error::shape(self.sub(key), "required key is missing"))
    }

    fn array(&self, key: &str) -> Result<Option<&'a [Value]>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(items)) => Ok(Some(items)),
            Some(v) => Err(Error::shape(
                self.sub(key),
                format!("expected an array, found {}", kind(v)),
            )),
        }
    }

    fn u64_array<const N: usize>(&self, key: &str) -> Result<Option<[u64; N]>, Error> {
        let Some(items) = self.array(key)? else {
            return Ok(None);
        };
        if items.len() != N {
            return Err(Error::shape(
                self.sub(key),
                format!("expected {N} integers, found {}", items.len()),
            ));
        }
        let mut out = [0u64; N];
        for (slot, v) in out.iter_mut().zip(items) {
            *slot = v.as_u64().ok_or_else(|| {
                Error::shape(
                    self.sub(key),
                    format!("expected unsigned integers, found {}", kind(v)),
                )
            })?;
        }
        Ok(Some(out))
    }

    /// Every key not in `known`, with its value.
    fn others(&self, known: &[&str]) -> Vec<(String, Value)> {
        self.entries
            .iter()
            .filter_map(|(k, v)| {
                let k = k.as_str()?;
                (!known.contains(&k)).then(|| (k.to_string(), v.clone()))
            })
            .collect()
    }
}

/// A short name of a MessagePack value's type, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Nil => "nil",
        Value::Boolean(_) => "a boolean",
        Value::Integer(_) => "an integer",
        Value::F32(_) | Value::F64(_) => "a float",
        Value::String(_) => "a string",
        Value::Binary(_) => "binary data",
        Value::Array(_) => "an array",
        Value::Map(_) => "a map",
        Value::Ext(..) => "an extension value",
    }
}

const ARG_KEYS: &[&str] = &[
    ".name",
    ".type_name",
    ".offset",
    ".size",
    ".value_kind",
    ".address_space",
    ".pointee_align",
    ".access",
    ".actual_access",
    ".is_const",
    ".is_restrict",
    ".is_volatile",
    ".is_pipe",
];

const KERNEL_KEYS: &[&str] = &[
    ".name",
    ".symbol",
    ".args",
    ".group_segment_fixed_size",
    ".private_segment_fixed_size",
    ".kernarg_segment_size",
    ".kernarg_segment_align",
    ".wavefront_size",
    ".sgpr_count",
    ".vgpr_count",
    ".agpr_count",
    ".max_flat_workgroup_size",
    ".sgpr_spill_count",
    ".vgpr_spill_count",
    ".uses_dynamic_stack",
    ".language",
    ".reqd_workgroup_size",
];

fn parse_arg(v: &Value, path: String) -> Result<KernelArg, Error> {
    let m = MapView::new(v, path)?;
    Ok(KernelArg {
        name: m.string(".name")?,
        type_name: m.string(".type_name")?,
        offset: m.req_u64(".offset")?,
        size: m.req_u64(".size")?,
        value_kind: ValueKind::from_name(&m.req_string(".value_kind")?),
        address_space: m
            .string(".address_space")?
            .map(|s| AddressSpace::from_name(&s)),
        pointee_align: m.u64(".pointee_align")?,
        access: m.string(".access")?,
        actual_access: m.string(".actual_access")?,
        is_const: m.bool(".is_const")?.unwrap_or(false),
        is_restrict: m.bool(".is_restrict")?.unwrap_or(false),
        is_volatile: m.bool(".is_volatile")?.unwrap_or(false),
        is_pipe: m.bool(".is_pipe")?.unwrap_or(false),
        other: m.others(ARG_KEYS),
    })
}

fn parse_kernel(v: &Value, path: String) -> Result<KernelMetadata, Error> {
    let m = MapView::new(v, path)?;
    let mut args = Vec::new();
    if let Some(items) = m.array(".args")? {
        for (i, a) in items.iter().enumerate() {
            args.push(parse_arg(a, format!("{}.args[{i}]", m.path))?);
        }
    }
    Ok(KernelMetadata {
        name: m.req_string(".name")?,
        symbol: m.req_string(".symbol")?,
        args,
        group_segment_fixed_size: m.u64(".group_segment_fixed_size")?,
        private_segment_fixed_size: m.u64(".private_segment_fixed_size")?,
        kernarg_segment_size: m.u64(".kernarg_segment_size")?,
        kernarg_segment_align: m.u64(".kernarg_segment_align")?,
        wavefront_size: m.u64(".wavefront_size")?,
        sgpr_count: m.u64(".sgpr_count")?,
        vgpr_count: m.u64(".vgpr_count")?,
        agpr_count: m.u64(".agpr_count")?,
        max_flat_workgroup_size: m.u64(".max_flat_workgroup_size")?,
        sgpr_spill_count: m.u64(".sgpr_spill_count")?,
        vgpr_spill_count: m.u64(".vgpr_spill_count")?,
        uses_dynamic_stack: m.bool(".uses_dynamic_stack")?,
        language: m.string(".language")?,
        reqd_workgroup_size: m.u64_array::<3>(".reqd_workgroup_size")?,
        other: m.others(KERNEL_KEYS),
    })
}

impl Metadata {
    /// The `amdhsa.printf` strings (`ID:N:S1:...:SN:FORMAT`, one per printf format of the
    /// code object; empty when there is none). Entries that are not strings are left out.
    pub fn printf_formats(&self) -> Vec<String> {
        self.other
            .iter()
            .filter(|(k, _)| k == "amdhsa.printf")
            .flat_map(|(_, v)| match v {
                Value::Array(a) => a
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            })
            .collect()
    }

    /// The `amdhsa.printf` entries decoded ([`parse_printf_formats`]).
    pub fn printf(&self) -> Result<Vec<PrintfFormat>, Error> {
        parse_printf_formats(&self.printf_formats())
    }

    /// Decodes the descriptor bytes of an `NT_AMDGPU_METADATA` note.
    pub fn parse(bytes: &[u8]) -> Result<Metadata, Error> {
        let mut rd = bytes;
        let raw = rmpv::decode::read_value_with_max_depth(&mut rd, MAX_DEPTH)
            .map_err(|e| Error::CorruptMetadata(e.to_string()))?;
        Self::from_value(raw)
    }

    /// Interprets an already decoded MessagePack document.
    pub fn from_value(raw: Value) -> Result<Metadata, Error> {
        let (version, target, kernels, other) = {
            let m = MapView::new(&raw, "metadata".to_string())?;
            let version = m.u64_array::<2>("amdhsa.version")?.map(|[a, b]| (a, b));
            let target = m.string("amdhsa.target")?;
            let mut kernels = Vec::new();
            if let Some(items) = m.array("amdhsa.kernels")? {
                for (i, k) in items.iter().enumerate() {
                    kernels.push(parse_kernel(k, format!("amdhsa.kernels[{i}]"))?);
                }
            }
            let other = m.others(&["amdhsa.version", "amdhsa.target", "amdhsa.kernels"]);
            (version, target, kernels, other)
        };
        Ok(Metadata {
            version,
            target,
            kernels,
            other,
            raw,
        })
    }
}

/// One `amdhsa.printf` entry: a format string of the code object's `printf` calls and the
/// sizes of the arguments its records carry (AMDGPU usage guide, "Code Object V3 Metadata",
/// `amdhsa.printf`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintfFormat {
    /// The id the records carry.
    pub id: u32,
    /// The size in bytes of each argument, in order.
    pub arg_sizes: Vec<u32>,
    /// The format string, unescaped.
    pub format: String,
}

/// Undoes the C escapes of an `amdhsa.printf` format (`\72` is `:`, `\n` a newline).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 == b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        i += 2;
        match c {
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match b.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(v as u8);
            }
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            other => out.push(other),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses `amdhsa.printf` strings, `ID:N:S1:...:SN:FORMAT` each, with the format's `:`
/// and control characters escaped as in C (`\72`, `\n`).
pub fn parse_printf_formats(entries: &[String]) -> Result<Vec<PrintfFormat>, Error> {
    entries
        .iter()
        .map(|e| {
            let bad = || Error::BadPrintf(e.clone());
            let mut parts = e.splitn(3, ':');
            let id = parts.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
            let n: usize = parts.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
            let mut rest = parts.next().ok_or_else(bad)?;
            let mut arg_sizes = Vec::with_capacity(n.min(64));
            for _ in 0..n {
                let (size, tail) = rest.split_once(':').ok_or_else(bad)?;
                arg_sizes.push(size.parse().map_err(|_| bad())?);
                rest = tail;
            }
            Ok(PrintfFormat {
                id,
                arg_sizes,
                format: unescape(rest),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_strings_parse_and_unescape() {
        let f = parse_printf_formats(&[
            "1:4:4:4:4:4:item %u\\72 %u %f %s\\n".into(),
            "2:0:hi".into(),
        ])
        .unwrap();
        assert_eq!(f[0].id, 1);
        assert_eq!(f[0].arg_sizes, vec![4, 4, 4, 4]);
        assert_eq!(f[0].format, "item %u: %u %f %s\n");
        assert_eq!(f[1].format, "hi");
        assert!(parse_printf_formats(&["x:1:4:%d".into()]).is_err());
        assert!(parse_printf_formats(&["1:2:4:%d".into()]).is_err());
    }

    fn s(x: &str) -> Value {
        Value::from(x)
    }

    fn map(entries: Vec<(&str, Value)>) -> Value {
        Value::Map(entries.into_iter().map(|(k, v)| (s(k), v)).collect())
    }

    fn encode(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, v).unwrap();
        out
    }

    fn doc(arg_offset: Value) -> Value {
        map(vec![
            ("amdhsa.version", Value::Array(vec![1.into(), 2.into()])),
            ("amdhsa.target", s("amdgcn-amd-amdhsa--gfx900")),
            ("amdhsa.printf", Value::Array(vec![s("1:4:%d")])),
            (
                "amdhsa.kernels",
                Value::Array(vec![map(vec![
                    (".name", s("k")),
                    (".symbol", s("k.kd")),
                    (".wavefront_size", 64.into()),
                    (".vendor_thing", 7.into()),
                    (
                        ".args",
                        Value::Array(vec![
                            map(vec![
                                (".offset", arg_offset),
                                (".size", 8.into()),
                                (".value_kind", s("global_buffer")),
                                (".address_space", s("global")),
                                (".name", s("out")),
                            ]),
                            map(vec![
                                (".offset", 8.into()),
                                (".size", 4.into()),
                                (".value_kind", s("hidden_block_count_x")),
                            ]),
                        ]),
                    ),
                ])]),
            ),
        ])
    }

    #[test]
    fn decodes_known_and_keeps_unknown_keys() {
        let md = Metadata::parse(&encode(&doc(0.into()))).unwrap();
        assert_eq!(md.version, Some((1, 2)));
        assert_eq!(md.target.as_deref(), Some("amdgcn-amd-amdhsa--gfx900"));
        assert_eq!(md.other.len(), 1);
        assert_eq!(md.other[0].0, "amdhsa.printf");
        assert_eq!(md.printf_formats(), vec!["1:4:%d".to_string()]);
        let k = &md.kernels[0];
        assert_eq!(k.name, "k");
        assert_eq!(k.wavefront_size, Some(64));
        assert_eq!(k.other, vec![(".vendor_thing".to_string(), Value::from(7))]);
        assert_eq!(k.args[0].address_space, Some(AddressSpace::Global));
        assert_eq!(k.args[0].name.as_deref(), Some("out"));
        assert_eq!(k.explicit_args().count(), 1);
        assert_eq!(
            k.hidden_args().next().map(|a| a.value_kind.clone()),
            Some(ValueKind::HiddenBlockCountX)
        );
    }

    #[test]
    fn wrong_shape_names_the_path() {
        let err = Metadata::parse(&encode(&doc(s("zero")))).unwrap_err();
        match err {
            Error::MetadataShape { path, .. } => {
                assert_eq!(path, "amdhsa.kernels[0].args[0].offset")
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            Metadata::parse(&encode(&Value::from(3))),
            Err(Error::MetadataShape { .. })
        ));
    }

    #[test]
    fn corrupt_messagepack() {
        let bytes = encode(&doc(0.into()));
        for len in 0..bytes.len() {
            assert!(
                matches!(
                    Metadata::parse(&bytes[..len]),
                    Err(Error::CorruptMetadata(_))
                ),
                "prefix {len}"
            );
        }
        // 100 nested arrays exceed the depth cap.
        let deep = vec![0x91u8; 100];
        assert!(matches!(
            Metadata::parse(&deep),
            Err(Error::CorruptMetadata(_))
        ));
    }
}
