//! Vectors checked against `llvm-mc-19 --disassemble`.

use crate::{Decoder, Gpu};

fn text(gpu: Gpu, wave64: bool, words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    match Decoder::new(gpu, wave64).decode(&bytes) {
        Ok(i) => i.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn vop1_basic() {
    assert_eq!(text(Gpu::Gfx900, true, &[0x7e02_0200]), "v_mov_b32_e32 v1, s0");
}

/// Compares the decoder with a vector file in the differential-test format
/// (`<family>\t<dwords>\t<text or <invalid>>`, `# target: <gpu> wave<N>`),
/// named by `AMDGPU_ISA_VECTORS`; prints per-family agreement and writes
/// mismatches to `AMDGPU_ISA_MISMATCHES` if set. Ignored unless asked for.
#[test]
#[ignore]
fn vector_file_agreement() {
    use std::collections::BTreeMap;
    let Ok(path) = std::env::var("AMDGPU_ISA_VECTORS") else {
        return;
    };
    let text = std::fs::read_to_string(&path).expect("vector file");
    let mut gpu = Gpu::Gfx900;
    let mut wave64 = true;
    let mut stats: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut bad = String::new();
    for line in text.lines() {
        if let Some(t) = line.strip_prefix("# target: ") {
            let mut it = t.split_whitespace();
            gpu = it.next().and_then(|g| g.parse().ok()).expect("gpu");
            wave64 = it.next() == Some("wave64");
            continue;
        }
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let mut parts = line.splitn(3, '\t');
        let (Some(fam), Some(ws), Some(exp)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let words: Vec<u32> = ws
            .split(' ')
            .filter_map(|w| u32::from_str_radix(w, 16).ok())
            .collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let got = Decoder::new(gpu, wave64).decode(&bytes);
        let st = stats.entry(fam.to_string()).or_default();
        let ok = match (&got, exp) {
            (Ok(i), "<invalid>") => i.is_invalid(),
            (Err(_), "<invalid>") => true,
            (Ok(i), e) => !i.is_invalid() && i.to_string() == e && i.size_bytes() == bytes.len(),
            (Err(_), _) => false,
        };
        st[if exp == "<invalid>" { 2 } else { 0 }] += 1;
        if ok {
            st[if exp == "<invalid>" { 3 } else { 1 }] += 1;
        } else {
            let g = match &got {
                Ok(i) if i.is_invalid() => "<invalid>".to_string(),
                Ok(i) => format!("{i} ({}b)", i.size_bytes()),
                Err(e) => e.to_string(),
            };
            bad.push_str(&format!("{fam}\t{ws}\n  exp: {exp}\n  got: {g}\n"));
        }
    }
    let mut total = [0usize; 4];
    for (fam, s) in &stats {
        eprintln!(
            "{fam:12} valid {}/{} invalid {}/{}",
            s[1], s[0], s[3], s[2]
        );
        for k in 0..4 {
            total[k] += s[k];
        }
    }
    eprintln!(
        "TOTAL valid {}/{} ({:.3}%) invalid {}/{}",
        total[1],
        total[0],
        100.0 * total[1] as f64 / total[0].max(1) as f64,
        total[3],
        total[2]
    );
    if let Ok(out) = std::env::var("AMDGPU_ISA_MISMATCHES") {
        std::fs::write(out, bad).expect("write mismatches");
    }
}

/// Decode throughput over the words of a vector file (`AMDGPU_ISA_VECTORS`);
/// run in release mode. Ignored unless asked for.
#[test]
#[ignore]
fn decode_throughput() {
    let Ok(path) = std::env::var("AMDGPU_ISA_VECTORS") else {
        return;
    };
    let text = std::fs::read_to_string(&path).expect("vector file");
    let mut bytes = Vec::new();
    let mut starts = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut parts = line.splitn(3, '\t');
        let (Some(fam), Some(ws), Some(exp)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if exp == "<invalid>" || !(fam.starts_with("VOP") || fam.starts_with("SOP") || fam == "SDWA" || fam.starts_with("DPP")) {
            continue;
        }
        starts.push(bytes.len());
        for w in ws.split(' ').filter_map(|w| u32::from_str_radix(w, 16).ok()) {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
    }
    let dec = Decoder::new(Gpu::Gfx900, true);
    let t = std::time::Instant::now();
    let mut n = 0usize;
    let mut sink = 0usize;
    for _ in 0..50 {
        for &s in &starts {
            if let Ok(i) = dec.decode(&bytes[s..]) {
                sink += i.size_bytes();
            }
            n += 1;
        }
    }
    let dt = t.elapsed();
    eprintln!(
        "{n} decodes in {dt:?}: {:.1} M/s ({sink})",
        n as f64 / dt.as_secs_f64() / 1e6
    );
}
