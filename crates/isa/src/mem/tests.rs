use crate::{Decoder, Gpu};

/// Decodes `words` for `gpu` and prints the instruction.
fn text(gpu: Gpu, words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    match Decoder::new(gpu, true).decode(&bytes) {
        Ok(i) if i.is_invalid() => "<invalid>".to_string(),
        Ok(i) => i.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

/// (gpu, words, llvm-mc-19 text) recorded from `llvm-mc-19 --disassemble`.
const VECTORS: &[(Gpu, &[u32], &str)] = &[
    // SMEM
    (
        Gpu::Gfx900,
        &[0xc002_0142, 0x0000_0010],
        "s_load_dword s5, s[4:5], 0x10",
    ),
    (
        Gpu::Gfx90a,
        &[0xc002_0142, 0x0000_0010],
        "s_load_dword s5, s[4:5], 0x10",
    ),
    (
        Gpu::Gfx1030,
        &[0xf401_4142, 0xfe00_0010],
        "s_load_dword s5, s[4:5], exec_hi offset:0x10 glc dlc",
    ),
    // DS
    (
        Gpu::Gfx900,
        &[0xd86c_0000, 0x2800_000a],
        "ds_read_b32 v40, v10",
    ),
    (
        Gpu::Gfx90a,
        &[0xd86c_0000, 0x2800_000a],
        "ds_read_b32 v40, v10",
    ),
    (
        Gpu::Gfx1030,
        &[0xd8d8_0000, 0x2800_000a],
        "ds_read_b32 v40, v10",
    ),
    // FLAT / GLOBAL
    (
        Gpu::Gfx900,
        &[0xdc50_8000, 0x007f_000a],
        "global_load_dword v0, v[10:11], off",
    ),
    (
        Gpu::Gfx1030,
        &[0xdc30_8000, 0x007d_000a],
        "global_load_dword v0, v[10:11], off",
    ),
    (
        Gpu::Gfx90a,
        &[0xdc70_8000, 0xff80_0a00],
        "global_store_dword v0, a10, s[0:1]",
    ),
    (
        Gpu::Gfx1030,
        &[0xde2d_8000, 0x007d_0a00],
        "global_load_sshort v0, v[0:1], off glc",
    ),
    // MUBUF
    (
        Gpu::Gfx900,
        &[0xe050_1000, 0x0201_000a],
        "buffer_load_dword v0, v10, s[4:7], s2 offen",
    ),
    (
        Gpu::Gfx1030,
        &[0xe030_1000, 0x0201_000a],
        "buffer_load_dword v0, v10, s[4:7], s2 offen",
    ),
    // MIMG (GFX9)
    (
        Gpu::Gfx900,
        &[0xf000_0f00, 0x0000_0000],
        "image_load v[0:3], v0, s[0:7] dmask:0xf",
    ),
    // GFX10 MIMG, plain and NSA (address registers in a third dword).
    (
        Gpu::Gfx1030,
        &[0xf000_0f00, 0x0000_0000],
        "image_load v[0:3], v0, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_1D",
    ),
    (
        Gpu::Gfx1030,
        &[0xf000_0002, 0x0000_0000, 0x898c_3fdc],
        "image_load v0, [v0, v220, v63, v140], s[0:7] dim:SQ_RSRC_IMG_1D",
    ),
    // GFX10 literal soffset (printed as the inline constant it equals).
    (
        Gpu::Gfx1010,
        &[0xe000_0001, 0xff00_1010, 0xffff_ffff],
        "buffer_load_format_x v16, off, s[0:3], -1 offset:1",
    ),
    // ds_swizzle offset macro.
    (
        Gpu::Gfx900,
        &[0xd87a_5bc8, 0xcb00_00b0],
        "ds_swizzle_b32 v203, v176 offset:swizzle(BITMASK_PERM,\"01000\")",
    ),
    // gfx1030 scratch without any address (ST mode).
    (
        Gpu::Gfx1030,
        &[0xde93_543c, 0xff7f_0b07],
        "scratch_load_short_d16 v255, off, off offset:1084 glc slc dlc",
    ),
    // gfx90a AGPR data (acc bit) in DS.
    (
        Gpu::Gfx90a,
        &[0xdadd_e8e7, 0xf16f_5529],
        "ds_wrxchg2_rtn_b64 a[241:244], v41, a[85:86], a[111:112] offset0:231 offset1:232",
    ),
    // `null` data register and a negative SMEM offset on GFX9.
    (
        Gpu::Gfx900,
        &[0xc28e_3f55, 0x3018_50c5],
        "s_atomic_sub_x2 null, s[42:43], -0x7af3b",
    ),
    // `lds` comes before the cache bits for buffer_store_lds_dword.
    (
        Gpu::Gfx900,
        &[0xe0f5_4dfb, 0x5549_7afb],
        "buffer_store_lds_dword s[36:39], s85 offset:3579 lds glc",
    ),
    // GFX9 MTBUF data/number format, inline-constant soffset.
    (
        Gpu::Gfx900,
        &[0xea20_1010, 0x8001_0201],
        "tbuffer_load_format_x v2, v1, s[4:7], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_UINT] offen offset:16",
    ),
    // GFX10 unified MTBUF format.
    (
        Gpu::Gfx1010,
        &[0xe800_0000, 0x0000_0000],
        "tbuffer_load_format_x v0, off, s[0:3], s0 format:[BUF_FMT_INVALID]",
    ),
    // EXP
    (
        Gpu::Gfx900,
        &[0xc400_180f, 0x0403_0201],
        "exp mrt0 v1, v2, v3, v4 done vm",
    ),
    (
        Gpu::Gfx1030,
        &[0xf800_180f, 0x0403_0201],
        "exp mrt0 v1, v2, v3, v4 done vm",
    ),
];

/// Words llvm-mc-19 rejects.
const INVALID: &[(Gpu, &[u32])] = &[
    // ds_write2 with a non-zero vdst field.
    (Gpu::Gfx900, &[0xd834_0203, 0x281e_140a]),
    (Gpu::Gfx1030, &[0xd838_0203, 0x281e_140a]),
    // GFX9 SMEM prefix on GFX10, GFX10 SMEM prefix on GFX9.
    (Gpu::Gfx1030, &[0xc002_0142, 0x0000_0010]),
    (Gpu::Gfx900, &[0xf401_4142, 0xfe00_0010]),
    // gfx90a has no exports.
    (Gpu::Gfx90a, &[0xc400_180f, 0x0403_0201]),
];

#[test]
fn recorded_vectors_print_like_llvm() {
    for (gpu, words, want) in VECTORS {
        assert_eq!(text(*gpu, words), *want, "{gpu} {words:08x?}");
    }
}

#[test]
fn rejected_words_are_invalid() {
    for (gpu, words) in INVALID {
        assert_eq!(text(*gpu, words), "<invalid>", "{gpu} {words:08x?}");
    }
}

#[test]
fn operands_are_resolved() {
    use super::{MemOp, flags};
    use crate::{Op, Operand};
    let d = Decoder::new(Gpu::Gfx900, true);
    let bytes: Vec<u8> = [0xe050_1000u32, 0x0201_000a]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let i = d.decode(&bytes).expect("decodes");
    assert_eq!(
        i.op,
        Op::Mem(MemOp::from_name("buffer_load_dword").expect("known"))
    );
    assert_eq!(i.dst[0], Operand::Vgpr { index: 0, count: 1 });
    assert_eq!(
        i.src[0],
        Operand::Vgpr {
            index: 10,
            count: 1
        }
    );
    assert_eq!(i.src[1], Operand::Sgpr { index: 4, count: 4 });
    assert_eq!(i.src[2], Operand::Sgpr { index: 2, count: 1 });
    assert!(i.mem.has(flags::OFFEN));
    assert_eq!(i.size_bytes(), 8);
}

#[test]
fn one_identity_across_generations() {
    // ds_read_b32 sits at different opcode bits on GFX9 and GFX10; both decode
    // to the same operation.
    let g9 = decode_words(Gpu::Gfx900, &[0xd86c_0000, 0x2800_000a]);
    let g10 = decode_words(Gpu::Gfx1030, &[0xd8d8_0000, 0x2800_000a]);
    assert!(!g9.is_invalid());
    assert_eq!(g9.op, g10.op);
    assert_eq!(format!("{}", g9), "ds_read_b32 v40, v10");
}

fn decode_words(gpu: Gpu, words: &[u32]) -> crate::Inst {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    Decoder::new(gpu, true).decode(&bytes).expect("decodes")
}

#[test]
fn truncated_memory_instruction_is_an_error() {
    let d = Decoder::new(Gpu::Gfx900, true);
    // First dword of an 8-byte SMEM instruction only.
    assert!(d.decode(&0xc002_0142u32.to_le_bytes()).is_err());
    // A GFX10 NSA image instruction whose address dword is missing.
    let d = Decoder::new(Gpu::Gfx1030, false);
    let bytes: Vec<u8> = [0xf000_0002u32, 0]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    assert_eq!(
        d.decode(&bytes),
        Err(crate::DecodeError::Truncated {
            needed: 12,
            available: 8
        })
    );
}

#[test]
fn nsa_and_literal_sizes() {
    let nsa = decode_words(Gpu::Gfx1030, &[0xf000_0002, 0x0000_0000, 0x898c_3fdc]);
    assert_eq!(nsa.size_bytes(), 12);
    assert_eq!(nsa.mem.naddr, 4);
    assert_eq!(&nsa.mem.nsa_addr[..3], &[220, 63, 140]);
    let lit = decode_words(Gpu::Gfx1010, &[0xe000_0001, 0xff00_1010, 0xffff_ffff]);
    assert_eq!(lit.size_bytes(), 12);
    assert_eq!(lit.src[2], crate::Operand::Literal(0xffff_ffff));
}

#[test]
fn mnemonics_round_trip() {
    use super::MemOp;
    for name in ["s_load_dword", "ds_add_u32", "global_load_dword", "exp"] {
        let op = MemOp::from_name(name).expect("known mnemonic");
        assert_eq!(op.name(), name);
    }
    assert_eq!(MemOp::from_name("v_add_f32"), None);
}

mod fuzz {
    use crate::{Decoder, Gpu};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn random_memory_words_never_panic(
            gpu in 0usize..6,
            wave64 in any::<bool>(),
            prefix in prop::sample::select(vec![0x30u32, 0x31, 0x36, 0x37, 0x38, 0x3a, 0x3c, 0x3d, 0x3e]),
            low in any::<u32>(),
            rest in prop::collection::vec(any::<u8>(), 0..12),
        ) {
            let g = Gpu::ALL[gpu];
            let w0 = (prefix << 26) | (low & 0x03ff_ffff);
            let mut bytes = w0.to_le_bytes().to_vec();
            bytes.extend_from_slice(&rest);
            if let Ok(i) = Decoder::new(g, wave64).decode(&bytes) {
                let _ = i.to_string();
                prop_assert!(i.size_bytes() <= bytes.len());
            }
        }
    }
}

/// The table lookup used for buffer `soffset` gives what `decode_src` gives
/// for every code but 125 (`null`, which the buffer decoder handles first).
#[test]
fn scalar_dword_lookup_agrees_with_decode_src() {
    for gpu in Gpu::ALL {
        let mut checked = 0;
        for code in 0..256u32 {
            if code == 125 {
                continue;
            }
            assert_eq!(
                crate::alu::scalar_dword(gpu, code),
                crate::operand::decode_src(gpu, code as u16, 1),
                "{gpu} code {code}"
            );
            checked += 1;
        }
        assert_eq!(checked, 255);
    }
}
