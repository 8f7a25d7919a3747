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

/// Every per-shape decoder, as found by opcode number, gives what the generic
/// decoder (recipe read at run time) gives, for every operation of every plain form, GPU and wave
/// size, on words that keep the operation's fixed bits (so most decode to
/// valid instructions) with random operand fields, with and without room for
/// a literal.
#[test]
fn shape_decoders_agree_with_the_generic_one() {
    use super::{BodyFn, N_SHAPES, OP_FNS, OP_LEN, decode_generic, tables};
    use crate::{Inst, inst::Op};
    use AluForm::*;
    let generic: [BodyFn; 11] = [
        decode_generic::<{ Sop2 as u8 }>,
        decode_generic::<{ Sop1 as u8 }>,
        decode_generic::<{ Sopk as u8 }>,
        decode_generic::<{ Sopc as u8 }>,
        decode_generic::<{ Sopp as u8 }>,
        decode_generic::<{ Vop1 as u8 }>,
        decode_generic::<{ Vop2 as u8 }>,
        decode_generic::<{ Vopc as u8 }>,
        decode_generic::<{ Vop3 as u8 }>,
        decode_generic::<{ Vop3p as u8 }>,
        decode_generic::<{ Vintrp as u8 }>,
    ];
    use super::AluForm;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut checked, mut valid) = (0usize, 0usize);
    for (form, gen_fn) in generic.iter().enumerate() {
        for (g, gpu) in Gpu::ALL.into_iter().enumerate() {
            for (opnum, &idx) in tables::TABLES[form][g].iter().enumerate() {
                if idx == 0 {
                    continue;
                }
                let e = &tables::ENTRIES[idx as usize];
                assert!((e.shape as usize) < N_SHAPES);
                for wave64 in [false, true] {
                    let dec = Decoder::new(gpu, wave64);
                    let info = super::GpuInfo::of(gpu, dec.wave64());
                    // The decoder `decode_plain` calls for this opcode number.
                    let row = g * 2 + dec.wave64() as usize;
                    let body = OP_FNS[form][row * OP_LEN[form] + opnum];
                    for round in 0..24 {
                        let r = next();
                        let bits = (r & !e.fixed_mask) | e.fixed_val;
                        let (w0, w1) = (bits as u32, (bits >> 32) as u32);
                        let lit = next() as u32;
                        let words = [w0, w1, lit];
                        let n = [4, 8, 12][round % 3];
                        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                        let key = w0 as u64 | (idx as u64) << 32;
                        let (mut a, mut b) = (Inst::DEFAULT, Inst::DEFAULT);
                        let ra = body(info, key, &bytes[..n], &mut a);
                        let rb = gen_fn(info, key, &bytes[..n], &mut b);
                        assert_eq!(ra, rb, "{gpu} form {form} entry {idx} {words:x?}");
                        if ra.is_ok() {
                            assert_eq!(a, b, "{gpu} form {form} entry {idx} {words:x?}");
                            valid += usize::from(a.op != Op::Invalid);
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    // The test means something only if most words decode.
    assert!(valid * 2 > checked, "{valid} of {checked} valid");
}
