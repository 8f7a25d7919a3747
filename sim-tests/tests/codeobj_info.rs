//! The code object loader against the committed kernels and the reference
//! outputs of the real toolchain.
//!
//! For every `kernels/bin/<target>/<name>.co` (the test fails when there are
//! none):
//! - the metadata decoded by `amdgpu-codeobj` agrees with
//!   `kernels/ref/<target>/<name>.notes.txt` (`llvm-readelf-19 --notes`):
//!   target, version, kernel names and every scalar kernel key (segment
//!   sizes, wavefront size, SGPR/VGPR counts, ...), and every argument's
//!   offset, size, value kind, address space, name and type name;
//! - every decoded kernel descriptor re-encodes to the exact bytes of
//!   `kernels/ref/<target>/<name>.kd.txt` and of the file itself;
//! - descriptor and metadata agree with each other (sizes, wave size,
//!   register granules).
//!
//! `AMDSIM_KERNELS_DIR` may point at another corpus root with the same
//! `bin/` and `ref/` layout (e.g. a fresh `kernels/tools/build.py` output).

use amdgpu_codeobj::{CodeObject, Kernel, KernelArg, KernelMetadata, Metadata, rmpv};
use amdgpu_isa::{Gen, Processor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------
// A reader for the YAML subset llvm-readelf prints for AMDGPU metadata:
// block mappings, block sequences, plain / 'single' / "double" quoted
// scalars, optional `!tag` prefixes, and flow sequences `[ a, b ]`.

#[derive(Debug, Clone, PartialEq)]
enum Yaml {
    Scalar(String),
    Seq(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
}

impl Yaml {
    fn get(&self, key: &str) -> Option<&Yaml> {
        match self {
            Yaml::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn scalar(&self) -> Option<&str> {
        match self {
            Yaml::Scalar(s) => Some(s),
            _ => None,
        }
    }
    fn seq(&self) -> &[Yaml] {
        match self {
            Yaml::Seq(v) => v,
            _ => &[],
        }
    }
}

#[derive(Debug, Clone)]
struct Line {
    indent: usize,
    text: String,
}

fn unquote(raw: &str) -> String {
    let mut s = raw.trim();
    // Drop a tag such as `!str`.
    if let Some(rest) = s.strip_prefix('!') {
        s = rest.split_once(' ').map(|(_, v)| v.trim()).unwrap_or("");
    }
    if s.len() >= 2 && s.starts_with('\'') && s.ends_with('\'') {
        return s[1..s.len() - 1].replace("''", "'");
    }
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        return s[1..s.len() - 1]
            .replace("\\\"", "\"")
            .replace("\\\\", "\\");
    }
    s.to_string()
}

fn scalar_or_flow(raw: &str) -> Yaml {
    let t = raw.trim();
    if let Some(inner) = t.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        let items = inner
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|x| Yaml::Scalar(unquote(x)))
            .collect();
        return Yaml::Seq(items);
    }
    Yaml::Scalar(unquote(t))
}

/// Splits `key: value` (value possibly empty); keys never contain `: `.
fn split_key(text: &str) -> Option<(&str, &str)> {
    if let Some(k) = text.strip_suffix(':') {
        return Some((k, ""));
    }
    text.split_once(": ")
}

fn parse_node(lines: &mut Vec<Line>, pos: &mut usize, indent: usize) -> Result<Yaml, String> {
    let Some(first) = lines.get(*pos) else {
        return Ok(Yaml::Scalar(String::new()));
    };
    if first.text == "-" || first.text.starts_with("- ") {
        let mut items = Vec::new();
        while let Some(l) = lines.get(*pos) {
            if l.indent != indent || !(l.text == "-" || l.text.starts_with("- ")) {
                break;
            }
            if l.text == "-" {
                *pos += 1;
                let child = lines.get(*pos).map(|c| c.indent).unwrap_or(0);
                if child <= indent {
                    items.push(Yaml::Scalar(String::new()));
                } else {
                    items.push(parse_node(lines, pos, child)?);
                }
                continue;
            }
            let rest = l.text[2..].trim_start().to_string();
            let item_indent = indent + (l.text.len() - rest.len());
            if split_key(&rest).is_some() {
                // A mapping starts on the item's line: re-read it as a
                // line of its own at the item's content indent.
                lines[*pos] = Line {
                    indent: item_indent,
                    text: rest,
                };
                items.push(parse_node(lines, pos, item_indent)?);
            } else {
                items.push(scalar_or_flow(&rest));
                *pos += 1;
            }
        }
        return Ok(Yaml::Seq(items));
    }
    let mut map = Vec::new();
    while let Some(l) = lines.get(*pos) {
        if l.indent != indent || l.text.starts_with("- ") || l.text == "-" {
            if l.indent > indent {
                return Err(format!("unexpected indentation at `{}`", l.text));
            }
            break;
        }
        let (k, v) =
            split_key(&l.text).ok_or_else(|| format!("not a `key: value` line: `{}`", l.text))?;
        let (k, v) = (unquote(k), v.trim().to_string());
        *pos += 1;
        if v.is_empty() {
            let child = lines.get(*pos).map(|c| (c.indent, c.text.starts_with('-')));
            let value = match child {
                Some((ci, _)) if ci > indent => parse_node(lines, pos, ci)?,
                // YAML allows a sequence at the key's own indentation.
                Some((ci, true)) if ci == indent => parse_node(lines, pos, ci)?,
                _ => Yaml::Scalar(String::new()),
            };
            map.push((k, value));
        } else {
            map.push((k, scalar_or_flow(&v)));
        }
    }
    Ok(Yaml::Map(map))
}

/// Extracts and parses the metadata document(s) of `llvm-readelf --notes`.
fn parse_notes(text: &str) -> Result<Vec<Yaml>, String> {
    let mut docs = Vec::new();
    let mut cur: Option<Vec<Line>> = None;
    for raw in text.lines() {
        let trimmed = raw.trim();
        if trimmed == "---" {
            cur = Some(Vec::new());
            continue;
        }
        if trimmed == "..." {
            if let Some(mut lines) = cur.take() {
                let mut pos = 0;
                let indent = lines.first().map(|l| l.indent).unwrap_or(0);
                let doc = parse_node(&mut lines, &mut pos, indent)?;
                if pos != lines.len() {
                    return Err(format!("unparsed YAML from `{}`", lines[pos].text));
                }
                docs.push(doc);
            }
            continue;
        }
        if let Some(lines) = cur.as_mut() {
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            lines.push(Line {
                indent: raw.len() - raw.trim_start().len(),
                text: trimmed.to_string(),
            });
        }
    }
    Ok(docs)
}

// ---------------------------------------------------------------------------

fn corpus_root() -> PathBuf {
    match std::env::var_os("AMDSIM_KERNELS_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels"),
    }
}

/// `(target dir, stem, path)` of every `bin/<target>/<stem>.co`.
fn code_objects(root: &Path) -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    let Ok(targets) = std::fs::read_dir(root.join("bin")) else {
        return out;
    };
    for t in targets.flatten() {
        let Ok(files) = std::fs::read_dir(t.path()) else {
            continue;
        };
        for f in files.flatten() {
            let p = f.path();
            if p.extension().is_some_and(|e| e == "co") {
                let stem = p
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default()
                    .to_string();
                let target = t.file_name().to_string_lossy().into_owned();
                out.push((target, stem, p));
            }
        }
    }
    out.sort();
    out
}

/// The metadata value of a kernel key as llvm-readelf would print a scalar,
/// or `None` when the decoded metadata lacks the key.
fn kernel_scalar(km: &KernelMetadata, key: &str) -> Option<String> {
    let n = |v: Option<u64>| v.map(|x| x.to_string());
    match key {
        ".name" => Some(km.name.clone()),
        ".symbol" => Some(km.symbol.clone()),
        ".group_segment_fixed_size" => n(km.group_segment_fixed_size),
        ".private_segment_fixed_size" => n(km.private_segment_fixed_size),
        ".kernarg_segment_size" => n(km.kernarg_segment_size),
        ".kernarg_segment_align" => n(km.kernarg_segment_align),
        ".wavefront_size" => n(km.wavefront_size),
        ".sgpr_count" => n(km.sgpr_count),
        ".vgpr_count" => n(km.vgpr_count),
        ".agpr_count" => n(km.agpr_count),
        ".max_flat_workgroup_size" => n(km.max_flat_workgroup_size),
        ".sgpr_spill_count" => n(km.sgpr_spill_count),
        ".vgpr_spill_count" => n(km.vgpr_spill_count),
        ".uses_dynamic_stack" => km.uses_dynamic_stack.map(|b| b.to_string()),
        ".language" => km.language.clone(),
        _ => km
            .other
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| rmpv_scalar(v)),
    }
}

fn rmpv_scalar(v: &rmpv::Value) -> Option<String> {
    match v {
        rmpv::Value::String(s) => s.as_str().map(str::to_string),
        rmpv::Value::Integer(i) => Some(i.to_string()),
        rmpv::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn arg_field(a: &KernelArg, key: &str) -> Option<String> {
    match key {
        ".offset" => Some(a.offset.to_string()),
        ".size" => Some(a.size.to_string()),
        ".value_kind" => Some(a.value_kind.as_str().to_string()),
        ".address_space" => a.address_space.as_ref().map(|s| s.as_str().to_string()),
        ".name" => a.name.clone(),
        ".type_name" => a.type_name.clone(),
        ".pointee_align" => a.pointee_align.map(|x| x.to_string()),
        ".access" => a.access.clone(),
        ".actual_access" => a.actual_access.clone(),
        ".is_const" => Some(a.is_const.to_string()),
        ".is_restrict" => Some(a.is_restrict.to_string()),
        ".is_volatile" => Some(a.is_volatile.to_string()),
        ".is_pipe" => Some(a.is_pipe.to_string()),
        _ => a
            .other
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| rmpv_scalar(v)),
    }
}

/// Compares one kernel's metadata with its llvm-readelf rendering; returns
/// the number of values compared.
fn compare_kernel(ctx: &str, km: &KernelMetadata, y: &Yaml, errs: &mut Vec<String>) -> usize {
    let mut compared = 0;
    let Yaml::Map(entries) = y else {
        errs.push(format!("{ctx}: reference kernel is not a map"));
        return 0;
    };
    for (key, val) in entries {
        match val {
            Yaml::Scalar(want) => {
                compared += 1;
                let got = kernel_scalar(km, key);
                if got.as_deref() != Some(want.as_str()) {
                    errs.push(format!(
                        "{ctx}: {key}: decoded {got:?}, llvm-readelf {want:?}"
                    ));
                }
            }
            Yaml::Seq(items) if key == ".args" => {
                if items.len() != km.args.len() {
                    errs.push(format!(
                        "{ctx}: {} args decoded, {} in llvm-readelf",
                        km.args.len(),
                        items.len()
                    ));
                }
                for (i, (a, ya)) in km.args.iter().zip(items).enumerate() {
                    let Yaml::Map(fields) = ya else {
                        errs.push(format!("{ctx}: arg {i} is not a map"));
                        continue;
                    };
                    for (k, v) in fields {
                        if let Some(want) = v.scalar() {
                            compared += 1;
                            let got = arg_field(a, k);
                            if got.as_deref() != Some(want) {
                                errs.push(format!(
                                    "{ctx}: args[{i}]{k}: decoded {got:?}, llvm-readelf {want:?}"
                                ));
                            }
                        }
                    }
                    // Keys the decoder has that the reference lacks.
                    for k in [".name", ".type_name", ".address_space", ".pointee_align"] {
                        if arg_field(a, k).is_some() && !fields.iter().any(|(fk, _)| fk == k) {
                            errs.push(format!(
                                "{ctx}: args[{i}]{k} decoded but absent in llvm-readelf"
                            ));
                        }
                    }
                }
            }
            Yaml::Seq(items) if key == ".reqd_workgroup_size" => {
                let want: Vec<Option<&str>> = items.iter().map(Yaml::scalar).collect();
                let got: Option<Vec<String>> = km
                    .reqd_workgroup_size
                    .map(|a| a.iter().map(u64::to_string).collect());
                let got: Vec<Option<&str>> =
                    got.iter().flatten().map(|s| Some(s.as_str())).collect();
                compared += 1;
                if want != got {
                    errs.push(format!(
                        "{ctx}: .reqd_workgroup_size: decoded {got:?}, llvm-readelf {want:?}"
                    ));
                }
            }
            _ => {
                // Other nested values are kept verbatim by the decoder.
                if !km.other.iter().any(|(k, _)| k == key) {
                    errs.push(format!("{ctx}: {key} missing from the decoded metadata"));
                }
            }
        }
    }
    compared
}

/// Descriptor facts that must agree with the metadata (AMDGPU usage guide,
/// "Kernel Descriptor"; LLVM 19 encodes register counts as
/// `ceil(max(1, n) / granule) - 1`).
fn check_descriptor_vs_metadata(ctx: &str, gpu: Processor, k: &Kernel, errs: &mut Vec<String>) {
    let d = &k.descriptor;
    let Some(md) = &k.metadata else { return };
    let mut eq = |what: &str, kd: u64, m: Option<u64>| {
        if let Some(m) = m
            && kd != m
        {
            errs.push(format!("{ctx}: {what}: descriptor {kd}, metadata {m}"));
        }
    };
    eq(
        "group segment size",
        d.group_segment_fixed_size.into(),
        md.group_segment_fixed_size,
    );
    eq(
        "private segment size",
        d.private_segment_fixed_size.into(),
        md.private_segment_fixed_size,
    );
    eq(
        "kernarg size",
        d.kernarg_size.into(),
        md.kernarg_segment_size,
    );
    eq(
        "wavefront size",
        d.wavefront_size().into(),
        md.wavefront_size,
    );
    if let Some(dynamic) = md.uses_dynamic_stack {
        eq(
            "uses_dynamic_stack",
            d.kernel_code_properties.uses_dynamic_stack.into(),
            Some(dynamic.into()),
        );
    }
    let blocks = |n: u64, g: u64| n.max(1).div_ceil(g) * g;
    if let (Some(v), agprs) = (md.vgpr_count, md.agpr_count.unwrap_or(0)) {
        // On gfx90a `.vgpr_count` already counts the unified file: the
        // architectural VGPRs rounded up to 4, then the AGPRs. Elsewhere
        // (gfx908) AGPRs are a separate file of the same size.
        let total = if gpu.has_gfx90a_insts() {
            v
        } else {
            v.max(agprs)
        };
        let g = u64::from(d.vgpr_granule());
        eq(
            "allocated VGPRs",
            d.vgpr_count().into(),
            Some(blocks(total, g)),
        );
        if let Some(acc) = d.accum_offset() {
            let arch = if agprs > 0 {
                v.saturating_sub(agprs)
            } else {
                v.max(1).div_ceil(4) * 4
            };
            eq("accum_offset", acc.into(), Some(arch));
        }
    }
    if gpu.generation() == Gen::Gfx9
        && let Some(s) = md.sgpr_count
    {
        eq("allocated SGPRs", d.sgpr_count().into(), Some(blocks(s, 8)));
    }
    // The user SGPRs enabled in the properties are those counted in RSRC2.
    let user = d.kernel_code_properties.user_sgpr_count();
    if user != u32::from(d.compute_pgm_rsrc2.user_sgpr_count) {
        errs.push(format!(
            "{ctx}: properties enable {user} user SGPRs, RSRC2.USER_SGPR_COUNT is {}",
            d.compute_pgm_rsrc2.user_sgpr_count
        ));
    }
}

fn parse_kd_ref(text: &str) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (sym, hex) = line
            .split_once(' ')
            .ok_or_else(|| format!("bad .kd.txt line `{line}`"))?;
        let hex = hex.trim();
        if hex.len() % 2 != 0 {
            return Err(format!("odd hex length in `{line}`"));
        }
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|e| format!("`{line}`: {e}")))
            .collect::<Result<Vec<u8>, String>>()?;
        out.insert(sym.to_string(), bytes);
    }
    Ok(out)
}

#[test]
fn yaml_reader_handles_llvm_readelf_forms() {
    let text = "\
  AMDGPU  0x1 NT_AMDGPU_METADATA (AMDGPU Metadata)
    AMDGPU Metadata:
        ---
amdhsa.kernels:
  - .args:
      - .name:           !str n
        .offset:         8
        .type_name:      'int*'
      - .offset: 16
    .name:           k
    .reqd_workgroup_size:
      - 64
      - 1
      - 1
amdhsa.target:   amdgcn-amd-amdhsa--gfx1030
amdhsa.version:
  - 1
  - 2
...
";
    let docs = parse_notes(text).unwrap();
    assert_eq!(docs.len(), 1);
    let d = &docs[0];
    let k = &d.get("amdhsa.kernels").unwrap().seq()[0];
    assert_eq!(k.get(".name").and_then(Yaml::scalar), Some("k"));
    let args = k.get(".args").unwrap().seq();
    assert_eq!(args.len(), 2);
    assert_eq!(args[0].get(".name").and_then(Yaml::scalar), Some("n"));
    assert_eq!(
        args[0].get(".type_name").and_then(Yaml::scalar),
        Some("int*")
    );
    assert_eq!(args[1].get(".offset").and_then(Yaml::scalar), Some("16"));
    assert_eq!(k.get(".reqd_workgroup_size").unwrap().seq().len(), 3);
    assert_eq!(
        d.get("amdhsa.version").unwrap().seq()[1],
        Yaml::Scalar("2".into())
    );
    assert!(parse_notes("---\na: b\n    c: d\n...\n").is_err());
}

/// The metadata of `co` against one llvm-readelf notes document: target,
/// version, kernel names and each kernel's keys; the number of values
/// compared.
fn compare_notes_doc(
    ctx: &str,
    co: &CodeObject,
    doc: &Yaml,
    md: &Metadata,
    errs: &mut Vec<String>,
) -> usize {
    let mut compared = 0;
    let target = doc.get("amdhsa.target").and_then(Yaml::scalar);
    compared += 1;
    if target != md.target.as_deref() {
        errs.push(format!(
            "{ctx}: amdhsa.target {:?} vs {target:?}",
            md.target
        ));
    }
    // The target id of the header is what the metadata names.
    if target != Some(co.target().target_id().as_str()) {
        errs.push(format!(
            "{ctx}: header target id {} vs metadata {target:?}",
            co.target().target_id()
        ));
    }
    let version: Vec<Option<&str>> = doc
        .get("amdhsa.version")
        .map(|v| v.seq().iter().map(Yaml::scalar).collect())
        .unwrap_or_default();
    let got = md.version.map(|(a, b)| vec![a.to_string(), b.to_string()]);
    let got: Vec<Option<&str>> = got.iter().flatten().map(|s| Some(s.as_str())).collect();
    compared += 1;
    if version != got {
        errs.push(format!("{ctx}: amdhsa.version {got:?} vs {version:?}"));
    }
    let yk = doc.get("amdhsa.kernels").map(Yaml::seq).unwrap_or_default();
    let ynames: Vec<&str> = yk
        .iter()
        .filter_map(|k| k.get(".name").and_then(Yaml::scalar))
        .collect();
    let names: Vec<&str> = md.kernels.iter().map(|k| k.name.as_str()).collect();
    if ynames != names {
        errs.push(format!(
            "{ctx}: kernels {names:?} vs llvm-readelf {ynames:?}"
        ));
    }
    for (km, y) in md.kernels.iter().zip(yk) {
        compared += compare_kernel(&format!("{ctx}:{}", km.name), km, y, errs);
    }
    compared
}

/// Metadata against llvm-readelf --notes (`refdir/stem.notes.txt`); the
/// number of values compared.
fn check_notes(
    ctx: &str,
    co: &CodeObject,
    refdir: &Path,
    stem: &str,
    errs: &mut Vec<String>,
) -> usize {
    let notes_path = refdir.join(format!("{stem}.notes.txt"));
    let docs = match std::fs::read_to_string(&notes_path) {
        Err(e) => {
            errs.push(format!("{ctx}: {}: {e}", notes_path.display()));
            return 0;
        }
        Ok(text) => match parse_notes(&text) {
            Err(e) => {
                errs.push(format!("{ctx}: notes: {e}"));
                return 0;
            }
            Ok(docs) => docs,
        },
    };
    match (docs.first(), co.metadata()) {
        (None, None) => 0,
        (Some(_), None) => {
            errs.push(format!("{ctx}: llvm-readelf shows metadata, none decoded"));
            0
        }
        (None, Some(_)) => {
            errs.push(format!("{ctx}: metadata decoded, llvm-readelf shows none"));
            0
        }
        (Some(doc), Some(md)) => compare_notes_doc(ctx, co, doc, md, errs),
    }
}

/// One kernel's descriptor: re-encoded, against the reference bytes (if
/// any; true when compared) and the file; its entry; its agreement with the
/// metadata.
fn check_kernel_descriptor(
    kctx: &str,
    co: &CodeObject,
    k: &Kernel,
    kd_ref: &BTreeMap<String, Vec<u8>>,
    errs: &mut Vec<String>,
) -> bool {
    let enc = k.descriptor.to_bytes();
    let want = kd_ref.get(&k.descriptor_symbol);
    if let Some(want) = want
        && enc[..] != want[..]
    {
        errs.push(format!(
            "{kctx}: re-encoded descriptor {:02x?} != reference {want:02x?}",
            enc
        ));
    }
    match co.read_memory(k.descriptor_address, 64) {
        Some(file) if file[..] == enc[..] => {}
        other => errs.push(format!(
            "{kctx}: re-encoded descriptor differs from the file: {other:02x?}"
        )),
    }
    if !co.text().contains(k.entry_address) {
        errs.push(format!(
            "{kctx}: entry {:#x} outside .text",
            k.entry_address
        ));
    }
    if k.entry_address % 256 != 0 {
        errs.push(format!(
            "{kctx}: entry {:#x} not 256-byte aligned",
            k.entry_address
        ));
    }
    check_descriptor_vs_metadata(kctx, co.target().gpu, k, errs);
    want.is_some()
}

/// Descriptors against the reference bytes (`refdir/stem.kd.txt`) and the
/// file; (kernels, descriptors compared with the reference).
fn check_descriptors(
    ctx: &str,
    co: &CodeObject,
    refdir: &Path,
    stem: &str,
    errs: &mut Vec<String>,
) -> (usize, usize) {
    let kd_path = refdir.join(format!("{stem}.kd.txt"));
    let kd_ref = match std::fs::read_to_string(&kd_path)
        .map_err(|e| e.to_string())
        .and_then(|t| parse_kd_ref(&t))
    {
        Ok(m) => m,
        Err(e) => {
            errs.push(format!("{ctx}: {}: {e}", kd_path.display()));
            BTreeMap::new()
        }
    };
    let mut decoded: Vec<&str> = co
        .kernels()
        .iter()
        .map(|k| k.descriptor_symbol.as_str())
        .collect();
    decoded.sort_unstable();
    let referenced: Vec<&str> = kd_ref.keys().map(String::as_str).collect();
    if decoded != referenced {
        errs.push(format!(
            "{ctx}: descriptors {decoded:?} vs reference {referenced:?}"
        ));
    }
    let mut kd_checked = 0;
    for k in co.kernels() {
        let kctx = format!("{ctx}:{}", k.name);
        if check_kernel_descriptor(&kctx, co, k, &kd_ref, errs) {
            kd_checked += 1;
        }
    }
    (co.kernels().len(), kd_checked)
}

#[test]
fn committed_kernels_agree_with_llvm_readelf_and_kd_bytes() {
    let root = corpus_root();
    let objects = code_objects(&root);
    assert!(
        !objects.is_empty(),
        "no code objects under {}/bin: build them with kernels/build.sh",
        root.display()
    );
    let mut errs = Vec::new();
    let (mut kernels, mut compared, mut kd_checked) = (0usize, 0usize, 0usize);
    for (target_dir, stem, path) in &objects {
        let ctx = format!("{target_dir}/{stem}");
        let bytes = std::fs::read(path).unwrap();
        let co = match CodeObject::parse(&bytes) {
            Ok(co) => co,
            Err(e) => {
                errs.push(format!("{ctx}: {e}"));
                continue;
            }
        };
        let gpu = co.target().gpu;
        // The directory names the processor (with an optional -w64 suffix).
        if target_dir.split('-').next() != Some(gpu.name()) {
            errs.push(format!("{ctx}: decoded processor {gpu}"));
        }
        if co.kernels().is_empty() {
            errs.push(format!("{ctx}: no kernels decoded"));
        }
        let refdir = root.join("ref").join(target_dir);
        compared += check_notes(&ctx, &co, &refdir, stem, &mut errs);
        let (k, kd) = check_descriptors(&ctx, &co, &refdir, stem, &mut errs);
        kernels += k;
        kd_checked += kd;
    }
    assert!(
        errs.is_empty(),
        "{} disagreements over {} code objects:\n{}",
        errs.len(),
        objects.len(),
        errs.join("\n")
    );
    assert!(kernels > 0 && compared > 0 && kd_checked > 0);
    eprintln!(
        "codeobj_info: {} code objects, {kernels} kernels, {compared} metadata values and {kd_checked} descriptors compared",
        objects.len()
    );
}
