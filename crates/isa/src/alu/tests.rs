//! Vectors checked against `llvm-mc-19 --disassemble`.

use crate::{Decoder, Gpu};

fn text(gpu: Gpu, wave64: bool, words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    match Decoder::new(gpu, wave64).decode(&bytes) {
        Ok(i) => i.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

/// `(gpu, wave64, words, llvm-mc-19 text)`, each checked by running
/// `llvm-mc-19 --disassemble -triple=amdgcn -mcpu=<gpu>` on the words.
const VECTORS: &[(Gpu, bool, &[u32], &str)] = &[
    // SOP1, SOP2, SOPK, SOPC, SOPP
    (Gpu::Gfx900, true, &[0xbe8a_0001], "s_mov_b32 s10, s1"),
    (
        Gpu::Gfx900,
        true,
        &[0x8e82_0201],
        "s_lshl_b64 s[2:3], s[0:1], s2",
    ),
    (Gpu::Gfx900, true, &[0xb080_1234], "s_cmovk_i32 s0, 0x1234"),
    (Gpu::Gfx900, true, &[0xbf06_8001], "s_cmp_eq_u32 s1, 0"),
    (Gpu::Gfx900, true, &[0xbf8c_0f70], "s_waitcnt vmcnt(0)"),
    (Gpu::Gfx900, true, &[0xbf82_fffe], "s_branch 65534"),
    (
        Gpu::Gfx1030,
        false,
        &[0xbfa3_0000],
        "s_waitcnt_depctr depctr_hold_cnt(0) depctr_sa_sdst(0) depctr_va_vdst(0) \
         depctr_va_sdst(0) depctr_va_ssrc(0) depctr_va_vcc(0) depctr_vm_vsrc(0)",
    ),
    // VOP1, VOP2, VOPC and literals
    (Gpu::Gfx900, true, &[0x7e02_0200], "v_mov_b32_e32 v1, s0"),
    (
        Gpu::Gfx900,
        true,
        &[0x0a06_0501],
        "v_mul_f32_e32 v3, v1, v2",
    ),
    (
        Gpu::Gfx1030,
        false,
        &[0x0a06_0501],
        "v_subrev_f32_e32 v3, v1, v2",
    ),
    (
        Gpu::Gfx900,
        true,
        &[0x7c94_0501],
        "v_cmp_nlg_f32_e32 vcc, v1, v2",
    ),
    (
        Gpu::Gfx900,
        true,
        &[0x3206_0501],
        "v_add_co_u32_e32 v3, vcc, v1, v2",
    ),
    (
        Gpu::Gfx900,
        true,
        &[0x7e04_02ff, 0x3f80_0000],
        "v_mov_b32_e32 v2, 1.0",
    ),
    // VOP3, VOP3b, modifiers, annotations, wave32/wave64 masks
    (
        Gpu::Gfx900,
        true,
        &[0xd100_0001, 0x041a_0501],
        "v_cndmask_b32_e64 v1, v1, v2, v[6:7]/*Invalid register, operand has 'SReg_1_XEXEC' register class*/",
    ),
    (
        Gpu::Gfx900,
        true,
        &[0xd1ff_0002, 0x0002_0503],
        "v_add3_u32 v2, v3, v2, s0",
    ),
    (
        Gpu::Gfx900,
        true,
        &[0xd1c1_8001, 0x2c06_0501],
        "v_mad_f32 v1, -v1, v2, v1 clamp mul:2",
    ),
    (
        Gpu::Gfx1030,
        false,
        &[0xd501_0001, 0x0002_0501],
        "v_cndmask_b32_e64 v1, v1, v2, s0",
    ),
    (
        Gpu::Gfx1030,
        false,
        &[0xd402_006a, 0x0002_0501],
        "v_cmp_eq_f32_e64 vcc_lo, v1, v2",
    ),
    (
        Gpu::Gfx1030,
        true,
        &[0xd402_006a, 0x0002_0501],
        "v_cmp_eq_f32_e64 vcc, v1, v2",
    ),
    // VOP3P, MFMA, accvgpr moves, packed FP32
    (
        Gpu::Gfx900,
        true,
        &[0xd380_4005, 0x1800_0501],
        "v_pk_mad_i16 v5, v1, s2, s0",
    ),
    (
        Gpu::Gfx1030,
        false,
        &[0xcc0f_0005, 0x1800_0501],
        "v_pk_add_f16 v5, v1, s2",
    ),
    (
        Gpu::Gfx908,
        true,
        &[0xd3c0_8028, 0x04a2_0501],
        "v_mfma_f32_32x32x1f32 a[40:71], v1, v2, a[40:71]",
    ),
    (
        Gpu::Gfx908,
        true,
        &[0xd3d8_4001, 0x1800_0102],
        "v_accvgpr_read_b32 v1, a2",
    ),
    (
        Gpu::Gfx908,
        true,
        &[0xd3d9_4001, 0x1800_0101],
        "v_accvgpr_write_b32 a1, v1",
    ),
    (
        Gpu::Gfx90a,
        true,
        &[0xd3c0_8028, 0x1ca2_0501],
        "v_mfma_f32_32x32x1f32 a[40:71], a1, a2, a[40:71]",
    ),
    (
        Gpu::Gfx90a,
        true,
        &[0xd3b0_0004, 0x1802_0502],
        "v_pk_fma_f32 v[4:5], v[2:3], v[2:3], s[0:1] op_sel_hi:[1,1,0]",
    ),
    // SDWA, DPP, DPP16, DPP8
    (
        Gpu::Gfx900,
        true,
        &[0x7e02_02f9, 0x0006_0606],
        "v_mov_b32_sdwa v1, v6 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD",
    ),
    (
        Gpu::Gfx900,
        true,
        &[0x0206_04fa, 0xff00_e404],
        "v_add_f32_dpp v3, v4, v2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
    ),
    (
        Gpu::Gfx1030,
        false,
        &[0x0206_04fa, 0xff04_e404],
        "v_cndmask_b32_dpp v3, v4, v2, vcc_lo quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf fi:1",
    ),
    (
        Gpu::Gfx1030,
        false,
        &[0x7e02_02e9, 0x00fa_c688],
        "v_mov_b32_dpp v1, v136 dpp8:[6,0,3,5,7,1,0,0]",
    ),
];

#[test]
fn recorded_vectors_print_like_llvm() {
    for &(gpu, wave64, words, expected) in VECTORS {
        assert_eq!(text(gpu, wave64, words), expected, "{gpu} {words:08x?}");
    }
}

/// Words llvm-mc-19 rejects.
#[test]
fn rejected_words_are_invalid() {
    let cases: &[(Gpu, &[u32])] = &[
        // v_cmp_eq_f32_e64 with vcc as a VOP3 destination is fine, but s_mov_b32's
        // GFX10 opcode on GFX10 SOP1 op 1 does not exist.
        (Gpu::Gfx1030, &[0xbe83_0001]),
        // GFX9 VOPC op 0x4a does not exist on GFX10.
        (Gpu::Gfx1030, &[0x7c94_0501]),
        // A VOP2 operation with a non-zero src2 field in its VOP3 form.
        (Gpu::Gfx900, &[0xd101_0001, 0x0c06_0501]),
    ];
    for &(gpu, words) in cases {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let inst = Decoder::new(gpu, true).decode(&bytes).expect("4+ bytes");
        assert!(inst.is_invalid(), "{gpu} {words:08x?} decoded as {inst}");
    }
}

#[test]
fn one_operation_across_encodings() {
    use crate::alu::AluOp;
    use crate::inst::Op;
    let d = Decoder::new(Gpu::Gfx900, true);
    let op = |w: &[u32]| {
        let b: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
        d.decode(&b).map(|i| i.op)
    };
    let add = Some(AluOp::from_name("v_add_f32").expect("known op"));
    assert_eq!(add, Some(crate::alu::ops::V_ADD_F32));
    let get = |r: Result<Op, crate::DecodeError>| match r {
        Ok(Op::Alu(a)) => Some(a),
        _ => None,
    };
    // VOP2, VOP3, SDWA, DPP forms of v_add_f32.
    assert_eq!(get(op(&[0x0206_0501])), add);
    assert_eq!(get(op(&[0xd101_0003, 0x0002_0501])), add);
    assert_eq!(get(op(&[0x0206_04f9, 0x0606_0601])), add);
    assert_eq!(get(op(&[0x0206_04fa, 0xff00_e404])), add);
    assert_eq!(add.map(|a| a.name()), Some("v_add_f32"));
    let b: Vec<u8> = [0xd101_0003u32, 0x0002_0501]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let e64 = d.decode(&b).expect("8 bytes");
    assert_eq!(e64.alu.mnemonic(), "v_add_f32_e64");
}

#[test]
fn operands_are_resolved() {
    use crate::operand::{Operand, SpecialReg};
    let d = Decoder::new(Gpu::Gfx900, true);
    let i = d
        .decode(&[0x01, 0x05, 0x06, 0x32])
        .expect("v_add_co_u32_e32 v3, vcc, v1, v2");
    assert_eq!(i.dst[0], Operand::Vgpr { index: 3, count: 1 });
    assert_eq!(
        i.dst[1],
        Operand::Special {
            reg: SpecialReg::Vcc,
            count: 2,
            part: 0
        }
    );
    assert_eq!(i.src[0], Operand::Vgpr { index: 1, count: 1 });
    assert_eq!(i.src[1], Operand::Vgpr { index: 2, count: 1 });
    let lit = d
        .decode(&[0xff, 0x02, 0x04, 0x7e, 0x00, 0x00, 0x80, 0x3f])
        .expect("v_mov_b32_e32 v2, 1.0");
    assert_eq!(lit.size_bytes(), 8);
    assert_eq!(lit.src[0], Operand::Literal(0x3f80_0000));
}

#[test]
fn scalar_immediates_and_interpolation_fields() {
    use crate::alu::ops;
    use crate::inst::Op;
    use crate::operand::Operand;
    let d = Decoder::new(Gpu::Gfx900, true);
    // s_cmovk_i32 s0, 0x1234
    let k = d.decode(&0xb080_1234u32.to_le_bytes()).expect("sopk");
    assert_eq!(k.op, Op::Alu(ops::S_CMOVK_I32));
    assert_eq!(k.dst[0], Operand::Sgpr { index: 0, count: 1 });
    assert_eq!(k.src[0], Operand::Imm(0x1234));
    // s_branch 65534 (a signed offset of -2 dwords)
    let b = d.decode(&0xbf82_fffeu32.to_le_bytes()).expect("sopp");
    assert_eq!(b.src[0], Operand::Imm(-2));
    // v_interp_p1_f32_e32 v0, v1, attr3.z
    let i = d.decode(&0xd400_0e01u32.to_le_bytes()).expect("vintrp");
    assert_eq!(i.to_string(), "v_interp_p1_f32_e32 v0, v1, attr3.z");
    assert_eq!((i.alu.interp_attr(), i.alu.interp_chan()), (3, 2));
}

#[test]
fn truncated_literal_is_an_error() {
    let d = Decoder::new(Gpu::Gfx900, true);
    assert_eq!(
        d.decode(&[0xff, 0x02, 0x04, 0x7e]),
        Err(crate::DecodeError::Truncated {
            needed: 8,
            available: 4
        })
    );
}

mod fuzz {
    use crate::{Decoder, Gpu};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        /// Random ALU-prefixed words never panic in decode or Display.
        #[test]
        fn random_alu_words_never_panic(
            words in proptest::collection::vec(any::<u32>(), 1..4),
            prefix in 0usize..8,
            gpu in 0usize..6,
            wave64 in any::<bool>(),
        ) {
            const PREFIX: [(u32, u32); 8] = [
                (0x8000_0000, 0xc000_0000), // SOP2
                (0xbe80_0000, 0xff80_0000), // SOP1
                (0xbf80_0000, 0xff80_0000), // SOPP
                (0x7e00_0000, 0xfe00_0000), // VOP1
                (0xd000_0000, 0xf800_0000), // VOP3 (GFX9/GFX10)
                (0xcc00_0000, 0xfc00_0000), // VOP3P (GFX10)
                (0xd380_0000, 0xff80_0000), // VOP3P (GFX9)
                (0x0000_0000, 0x8000_0000), // VOP2
            ];
            let mut words = words;
            let (p, m) = PREFIX[prefix];
            words[0] = (words[0] & !m) | p;
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let d = Decoder::new(Gpu::ALL[gpu], wave64);
            if let Ok(i) = d.decode(&bytes) {
                let _ = i.to_string();
                prop_assert!(i.size_bytes() <= bytes.len());
            }
        }
    }
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
        eprintln!("{fam:12} valid {}/{} invalid {}/{}", s[1], s[0], s[3], s[2]);
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
        if exp == "<invalid>"
            || !(fam.starts_with("VOP")
                || fam.starts_with("SOP")
                || fam == "SDWA"
                || fam.starts_with("DPP"))
        {
            continue;
        }
        starts.push(bytes.len());
        for w in ws
            .split(' ')
            .filter_map(|w| u32::from_str_radix(w, 16).ok())
        {
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

/// Decode throughput over raw code (`AMDGPU_ISA_TEXT`, a `.text` dump, for
/// `AMDGPU_ISA_GPU`); also writes `<offset>\t<dwords>\t<text>` lines to
/// `AMDGPU_ISA_LISTING` if set. Run in release mode. Ignored unless asked for.
#[test]
#[ignore]
fn code_throughput() {
    let (Ok(path), Ok(gpu)) = (
        std::env::var("AMDGPU_ISA_TEXT"),
        std::env::var("AMDGPU_ISA_GPU"),
    ) else {
        return;
    };
    let bytes = std::fs::read(path).expect("text dump");
    let dec = Decoder::new(gpu.parse().expect("gpu"), true);
    let cpu0 = thread_cpu_ns();
    let t = std::time::Instant::now();
    let mut n = 0usize;
    let iters: usize = std::env::var("AMDGPU_ISA_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    for _ in 0..iters {
        let mut off = 0;
        while off < bytes.len() {
            let size = match dec.decode(&bytes[off..]) {
                Ok(i) => i.size_bytes(),
                Err(_) => 4,
            };
            off += size.max(4);
            n += 1;
        }
    }
    let dt = t.elapsed();
    let cpu = thread_cpu_ns().saturating_sub(cpu0);
    eprintln!(
        "{n} instructions in {dt:?} ({:.1} ms on the CPU): {:.1} M/s wall, {:.1} M/s CPU",
        cpu as f64 / 1e6,
        n as f64 / dt.as_secs_f64() / 1e6,
        n as f64 / (cpu.max(1) as f64 / 1e9) / 1e6
    );
    if let Ok(out) = std::env::var("AMDGPU_ISA_LISTING") {
        let mut s = String::new();
        let mut off = 0;
        while off < bytes.len() {
            let (size, text) = match dec.decode(&bytes[off..]) {
                Ok(i) if !i.is_invalid() => (i.size_bytes(), i.to_string()),
                _ => (4, "<invalid>".to_string()),
            };
            let words: Vec<String> = bytes[off..(off + size).min(bytes.len())]
                .chunks(4)
                .map(|c| {
                    let mut w = [0u8; 4];
                    w[..c.len()].copy_from_slice(c);
                    format!("{:08x}", u32::from_le_bytes(w))
                })
                .collect();
            s.push_str(&format!("{off}\t{}\t{text}\n", words.join(" ")));
            off += size;
        }
        std::fs::write(out, s).expect("listing");
    }
}

/// Decode rate of one repeated instruction per form (release mode). Ignored
/// unless asked for.
#[test]
#[ignore]
fn single_form_throughput() {
    let cases: &[(&str, &[u32])] = &[
        ("vop1", &[0x7e02_0200]),
        ("vop2", &[0x0a06_0501]),
        ("sop2", &[0x8e82_0201]),
        ("vop3", &[0xd1c1_8001, 0x2c06_0501]),
        ("sopp", &[0xbf8c_0f70]),
    ];
    let dec = Decoder::new(Gpu::Gfx900, true);
    eprintln!("size_of::<Inst>() = {}", std::mem::size_of::<crate::Inst>());
    for (name, words) in cases {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let t = std::time::Instant::now();
        let mut sink = 0usize;
        let iters: usize = std::env::var("AMDGPU_ISA_ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2_000_000);
        for _ in 0..iters {
            let b = std::hint::black_box(&bytes[..]);
            if let Ok(i) = dec.decode(b) {
                sink += std::hint::black_box(i).size_bytes();
            }
        }
        let dt = t.elapsed();
        eprintln!(
            "{name}: {:.1} M/s ({sink})",
            iters as f64 / dt.as_secs_f64() / 1e6
        );
    }
}

/// Nanoseconds this thread has spent on a CPU (Linux `schedstat`), so that
/// throughput figures do not count time spent waiting for a shared CPU.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

#[test]
fn source_field_table_matches_the_cases() {
    use super::{AluForm, src_codes, src_codes_slow};
    use AluForm::*;
    let forms = [
        Sop2, Sop1, Sopk, Sopc, Sopp, Vop1, Vop2, Vopc, Vop3, Vop3p, Vintrp, SdwaVop1, SdwaVop2,
        SdwaVopc, DppVop1, DppVop2, Dpp8Vop1, Dpp8Vop2,
    ];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..2000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (w0, w1) = ((x >> 32) as u32, x as u32 ^ 0xa5a5_5a5a);
        for form in forms {
            assert_eq!(
                src_codes(form, w0, w1),
                src_codes_slow(form, w0, w1),
                "{form:?} {w0:#x} {w1:#x}"
            );
        }
    }
}
