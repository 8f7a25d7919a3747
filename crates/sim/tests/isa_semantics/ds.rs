//! LDS instructions: two-address and wide forms, atomics, src2 reductions,
//! append and consume (`exec/mem/lds.rs`).

use super::common::*;

/// Reads `N` little-endian bytes of `m` at `a` as a u64.
fn le(m: &[u8], a: usize, n: usize) -> u64 {
    let mut v = 0u64;
    for k in (0..n).rev() {
        v = v << 8 | m[a + k] as u64;
    }
    v
}

/// Writes the low `n` bytes of `v` to `m` at `a`, little-endian.
fn set_le(m: &mut [u8], a: usize, n: usize, v: u64) {
    for k in 0..n {
        m[a + k] = (v >> (8 * k)) as u8;
    }
}

/// The registers `ds_forms` presets to `0xdead_0000 + r`: destinations whose
/// inactive lanes must keep that value.
const DS_PRESET: [usize; 17] = [
    4, 5, 10, 11, 12, 13, 15, 16, 18, 19, 20, 21, 22, 23, 26, 27, 28,
];

fn ds_preset(r: usize) -> u32 {
    if DS_PRESET.contains(&r) {
        0xdead_0000 + r as u32
    } else {
        0
    }
}

/// Operands for the 64-bit atomics: negative, small, huge, zero.
fn ds_c64(l: usize) -> u64 {
    match l % 4 {
        0 => (-(l as i64) * 0x1_0000_0001) as u64,
        1 => l as u64,
        2 => 0xfedc_ba98_7654_3210 ^ l as u64,
        _ => 0,
    }
}

fn ds_a64(l: usize) -> u64 {
    0x0123_4567_89ab_cdef_u64.wrapping_mul(l as u64 + 1)
}

fn ds_b64(l: usize) -> u64 {
    !ds_a64(l) ^ 0x5555
}

/// The compare value of lane `l`: even lanes compare equal to what LDS
/// holds at the lane's base + 88.
fn ds_cmp(init: &[u8], l: usize) -> u64 {
    if l % 2 == 0 {
        le(init, 256 * l + 88, 8)
    } else {
        0x1111
    }
}

/// The initial LDS of `ds_forms`: every byte different-looking.
fn ds_forms_lds() -> Vec<u8> {
    let mut init = vec![0u8; 32768];
    for (k, b) in init.iter_mut().enumerate() {
        *b = (k as u32).wrapping_mul(0x9e37_79b1).rotate_right(13) as u8;
    }
    init
}

/// The registers of lane `l` before the `ds_forms` program.
fn ds_forms_setup(w: &mut Wave, init: &[u8], l: usize) {
    let base = 256 * l as u32;
    let set64 = |w: &mut Wave, r: usize, v: u64| {
        w.vgpr[r][l] = v as u32;
        w.vgpr[r + 1][l] = (v >> 32) as u32;
    };
    w.vgpr[1][l] = base;
    w.vgpr[2][l] = 0x1000_0000 + l as u32;
    w.vgpr[3][l] = 0x2000_0000 + 3 * l as u32;
    set64(w, 6, ds_a64(l));
    set64(w, 8, ds_b64(l));
    w.vgpr[14][l] = 16384 + 4 * l as u32;
    w.vgpr[17][l] = 20480 + 8 * l as u32;
    w.vgpr[44][l] = 24576 + 8 * l as u32;
    set64(w, 24, ds_c64(l));
    set64(w, 30, ds_cmp(init, l));
    set64(w, 32, 0xaaaa_bbbb_cccc_dddd ^ l as u64);
    for r in DS_PRESET {
        w.vgpr[r][l] = 0xdead_0000 + r as u32;
    }
    w.vgpr[45][l] = 0x4321_8765;
    w.vgpr[46][l] = 0x4321_8765;
    w.vgpr[47][l] = 0xa1b2_c3d4;
    w.vgpr[54][l] = 0xdead_0036;
}

/// The model of the two-address reads and writes of lane `l` on `m`,
/// filling the registers they return into `g`.
fn ds_model_two_address(m: &mut [u8], l: usize, g: &mut [u64; 64]) {
    let a = 256 * l;
    let (v2, v3) = (0x1000_0000 + l as u64, 0x2000_0000 + 3 * l as u64);
    let (a6, b8) = (ds_a64(l), ds_b64(l));
    set_le(m, a + 4, 4, v2);
    set_le(m, a + 12, 4, v3);
    g[4] = le(m, a + 12, 4);
    g[5] = le(m, a + 4, 4);
    set_le(m, a + 32, 8, a6);
    set_le(m, a + 48, 8, b8);
    g[10] = le(m, a + 48, 8);
    g[12] = le(m, a + 32, 8);
    let s = 16384 + 4 * l;
    set_le(m, s + 256, 4, v2);
    set_le(m, s + 512, 4, v3);
    g[15] = le(m, s + 512, 4);
    g[16] = le(m, s + 256, 4);
    let s = 20480 + 8 * l;
    set_le(m, s + 512, 8, a6);
    set_le(m, s + 1536, 8, b8);
    g[18] = le(m, s + 1536, 8);
    g[20] = le(m, s + 512, 8);
}

/// The model of the atomics, `ds_mskor`, `ds_wrxchg2*` and the D16 forms of
/// lane `l` on `m` (after the two-address forms), filling `g`.
fn ds_model_atomics(m: &mut [u8], init: &[u8], l: usize, g: &mut [u64; 64]) {
    let a = 256 * l;
    let (v2, v3) = (0x1000_0000 + l as u64, 0x2000_0000 + 3 * l as u64);
    let (a6, b8, c) = (ds_a64(l), ds_b64(l), ds_c64(l));
    let cmp = ds_cmp(init, l);
    let new = 0xaaaa_bbbb_cccc_dddd ^ l as u64;
    // Atomics: (register, offset, new value from old).
    type Update<'a> = &'a dyn Fn(u64) -> u64;
    let atomics: [(usize, usize, Update); 14] = [
        (22, 64, &|o: u64| o.wrapping_add(c)),
        (26, 72, &|o: u64| (o as i64).max(c as i64) as u64),
        (48, 80, &|o: u64| if o == 0 || o > c { c } else { o - 1 }),
        (28, 88, &|o: u64| if o == cmp { new } else { o }),
        (34, 96, &|o: u64| (o & !cmp) | new),
        (36, 112, &|_| c),
        (0, 128, &|o: u64| o ^ c),
        (0, 136, &|o: u64| o.wrapping_sub(c)),
        (0, 144, &|o: u64| c.wrapping_sub(o)),
        (0, 152, &|o: u64| if o >= c { 0 } else { o + 1 }),
        (0, 160, &|o: u64| o.min(c)),
        (50, 168, &|o: u64| (o as i64).min(c as i64) as u64),
        (0, 176, &|o: u64| if o == cmp { new } else { o }),
        (52, 184, &|o: u64| o & c),
    ];
    for (r, off, f) in atomics {
        let old = le(m, a + off, 8);
        set_le(m, a + off, 8, f(old));
        g[r] = old;
    }
    let old = le(m, a + 104, 4);
    set_le(m, a + 104, 4, (old & !v2) | v3);
    let old = le(m, a + 192, 8);
    set_le(m, a + 192, 8, old | c);
    let old = le(m, a + 200, 8);
    set_le(m, a + 200, 8, old.max(c));
    let old = le(m, a + 208, 4);
    set_le(m, a + 208, 4, (old & !v2) | v3);
    g[54] = old;
    // ds_wrxchg2_rtn_b32: both old values, then both writes.
    g[38] = le(m, a + 120, 4);
    g[39] = le(m, a + 124, 4);
    set_le(m, a + 120, 4, v2);
    set_le(m, a + 124, 4, v3);
    let s = 24576 + 8 * l;
    g[40] = le(m, s + 512, 8);
    g[42] = le(m, s + 1024, 8);
    set_le(m, s + 512, 8, a6);
    set_le(m, s + 1024, 8, b8);
    // D16: the loaded half replaces one half of the register.
    g[45] = (le(m, a + 4, 2) << 16) | 0x8765;
    g[46] = 0x4321_0000 | (le(m, a + 13, 1) as u8 as i8 as i16 as u16 as u64);
    set_le(m, a + 216, 2, 0xa1b2);
    set_le(m, a + 220, 1, 0xb2);
}

/// Checks the registers of the `ds_forms` program in lane `l` against the
/// model's `got` (active) or the preset values (inactive).
fn ds_forms_check_lane(gpu: Gpu, w: &Wave, l: usize, active: bool, got: &[u64; 64]) {
    for r in [4, 5, 15, 16, 38, 39, 45, 46, 54] {
        let want = if active {
            got[r] as u32
        } else {
            match r {
                45 | 46 => 0x4321_8765,
                54 => 0xdead_0036,
                _ => ds_preset(r),
            }
        };
        assert_eq!(w.vgpr[r][l], want, "{gpu} lane {l} v{r}");
    }
    let wide = [10, 12, 18, 20, 22, 26, 28, 34, 36, 40, 42, 48, 50, 52];
    for r in wide {
        let v = w.vgpr[r][l] as u64 | (w.vgpr[r + 1][l] as u64) << 32;
        let want = if active {
            got[r]
        } else {
            ds_preset(r) as u64 | (ds_preset(r + 1) as u64) << 32
        };
        assert_eq!(v, want, "{gpu} lane {l} v[{r}:{}]", r + 1);
    }
}

/// The two-address LDS forms, the 64-bit LDS atomics, `ds_mskor`,
/// `ds_wrxchg2*` and the D16 forms, checked against the Vega ISA
/// pseudo-code (`tmp = MEM[ADDR]; MEM[ADDR] = op(tmp, DATA, DATA2); RETURN_DATA
/// = tmp`) run on a copy of LDS. (Before: every one of them was reported as
/// unimplemented; the `ds_read2`/`ds_write2` code was unreachable.)
fn ds_forms(gpu: Gpu, size: u32, code: &[u8]) {
    let n = size as usize;
    // Two lanes stay inactive: their registers and LDS must not change.
    let exec: u64 = if size == 64 {
        !(1 << 5 | 1 << 33)
    } else {
        0xffff_ffdf
    };
    let active = |l: usize| (exec >> l) & 1 != 0;
    let init = ds_forms_lds();
    let mut lds = Bytes::new(32768, Space::Lds);
    lds.write(0, &init).unwrap();
    let mem = GlobalMemory::new();
    let w = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        w.exec = Mask(exec);
        w.vgpr.resize(64, [0; 64]);
        for l in 0..64 {
            ds_forms_setup(w, &init, l);
        }
    })
    .expect("runs");
    // The model: each instruction's pseudo-code, lane by lane, on a copy.
    let mut m = init.clone();
    let mut got = vec![[0u64; 64]; 64];
    for l in (0..n).filter(|&l| active(l)) {
        ds_model_two_address(&mut m, l, &mut got[l]);
        ds_model_atomics(&mut m, &init, l, &mut got[l]);
    }
    let mut after = vec![0u8; 32768];
    lds.read(0, &mut after).unwrap();
    for (k, (x, y)) in after.iter().zip(&m).enumerate() {
        assert_eq!(x, y, "{gpu}: LDS byte {k:#x}");
    }
    for l in 0..n {
        ds_forms_check_lane(gpu, &w, l, active(l), &got[l]);
    }
}

#[test]
fn gfx9_ds_two_address_wide_atomics_and_d16() {
    let code: Vec<u8> = [
        &[0x01, 0x03, 0x1c, 0xd8, 0x01, 0x02, 0x03, 0x00][..], // ds_write2_b32 v1, v2, v3 offset0:1 offset1:3
        &[0x03, 0x01, 0x6e, 0xd8, 0x01, 0x00, 0x00, 0x04], // ds_read2_b32 v[4:5], v1 offset0:3 offset1:1
        &[0x04, 0x06, 0x9c, 0xd8, 0x01, 0x06, 0x08, 0x00], // ds_write2_b64 v1, v[6:7], v[8:9] offset0:4 offset1:6
        &[0x06, 0x04, 0xee, 0xd8, 0x01, 0x00, 0x00, 0x0a], // ds_read2_b64 v[10:13], v1 offset0:6 offset1:4
        &[0x01, 0x02, 0x1e, 0xd8, 0x0e, 0x02, 0x03, 0x00], // ds_write2st64_b32 v14, v2, v3 offset0:1 offset1:2
        &[0x02, 0x01, 0x70, 0xd8, 0x0e, 0x00, 0x00, 0x0f], // ds_read2st64_b32 v[15:16], v14 offset0:2 offset1:1
        &[0x01, 0x03, 0x9e, 0xd8, 0x11, 0x06, 0x08, 0x00], // ds_write2st64_b64 v17, v[6:7], v[8:9] offset0:1 offset1:3
        &[0x03, 0x01, 0xf0, 0xd8, 0x11, 0x00, 0x00, 0x12], // ds_read2st64_b64 v[18:21], v17 offset0:3 offset1:1
        &[0x40, 0x00, 0xc0, 0xd8, 0x01, 0x18, 0x00, 0x16], // ds_add_rtn_u64 v[22:23], v1, v[24:25] offset:64
        &[0x48, 0x00, 0xcc, 0xd8, 0x01, 0x18, 0x00, 0x1a], // ds_max_rtn_i64 v[26:27], v1, v[24:25] offset:72
        &[0x50, 0x00, 0xc8, 0xd8, 0x01, 0x18, 0x00, 0x30], // ds_dec_rtn_u64 v[48:49], v1, v[24:25] offset:80
        &[0x58, 0x00, 0xe0, 0xd8, 0x01, 0x1e, 0x20, 0x1c], // ds_cmpst_rtn_b64 v[28:29], v1, v[30:31], v[32:33] offset:88
        &[0x60, 0x00, 0xd8, 0xd8, 0x01, 0x1e, 0x20, 0x22], // ds_mskor_rtn_b64 v[34:35], v1, v[30:31], v[32:33] offset:96
        &[0x68, 0x00, 0x18, 0xd8, 0x01, 0x02, 0x03, 0x00], // ds_mskor_b32 v1, v2, v3 offset:104
        &[0x70, 0x00, 0xda, 0xd8, 0x01, 0x18, 0x00, 0x24], // ds_wrxchg_rtn_b64 v[36:37], v1, v[24:25] offset:112
        &[0x1e, 0x1f, 0x5c, 0xd8, 0x01, 0x02, 0x03, 0x26], // ds_wrxchg2_rtn_b32 v[38:39], v1, v2, v3 offset0:30 offset1:31
        &[0x01, 0x02, 0xde, 0xd8, 0x2c, 0x06, 0x08, 0x28], // ds_wrxchg2st64_rtn_b64 v[40:43], v44, v[6:7], v[8:9] offset0:1 offset1:2
        &[0x80, 0x00, 0x96, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_xor_b64 v1, v[24:25] offset:128
        &[0x88, 0x00, 0x82, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_sub_u64 v1, v[24:25] offset:136
        &[0x90, 0x00, 0x84, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_rsub_u64 v1, v[24:25] offset:144
        &[0x98, 0x00, 0x86, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_inc_u64 v1, v[24:25] offset:152
        &[0xa0, 0x00, 0x8e, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_min_u64 v1, v[24:25] offset:160
        &[0xa8, 0x00, 0xca, 0xd8, 0x01, 0x18, 0x00, 0x32], // ds_min_rtn_i64 v[50:51], v1, v[24:25] offset:168
        &[0xb0, 0x00, 0xa0, 0xd8, 0x01, 0x1e, 0x20, 0x00], // ds_cmpst_b64 v1, v[30:31], v[32:33] offset:176
        &[0xb8, 0x00, 0xd2, 0xd8, 0x01, 0x18, 0x00, 0x34], // ds_and_rtn_b64 v[52:53], v1, v[24:25] offset:184
        &[0xc0, 0x00, 0x94, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_or_b64 v1, v[24:25] offset:192
        &[0xc8, 0x00, 0x90, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_max_u64 v1, v[24:25] offset:200
        &[0xd0, 0x00, 0x58, 0xd8, 0x01, 0x02, 0x03, 0x36], // ds_mskor_rtn_b32 v54, v1, v2, v3 offset:208
        &[0x04, 0x00, 0xb6, 0xd8, 0x01, 0x00, 0x00, 0x2d], // ds_read_u16_d16_hi v45, v1 offset:4
        &[0x0d, 0x00, 0xb0, 0xd8, 0x01, 0x00, 0x00, 0x2e], // ds_read_i8_d16 v46, v1 offset:13
        &[0xd8, 0x00, 0xaa, 0xd8, 0x01, 0x2f, 0x00, 0x00], // ds_write_b16_d16_hi v1, v47 offset:216
        &[0xdc, 0x00, 0xa8, 0xd8, 0x01, 0x2f, 0x00, 0x00], // ds_write_b8_d16_hi v1, v47 offset:220
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    ds_forms(Gpu::Gfx900, 64, &code);
}

#[test]
fn gfx10_ds_two_address_wide_atomics_and_d16() {
    let code: Vec<u8> = [
        &[0x01, 0x03, 0x38, 0xd8, 0x01, 0x02, 0x03, 0x00][..], // ds_write2_b32 v1, v2, v3 offset0:1 offset1:3
        &[0x03, 0x01, 0xdc, 0xd8, 0x01, 0x00, 0x00, 0x04], // ds_read2_b32 v[4:5], v1 offset0:3 offset1:1
        &[0x04, 0x06, 0x38, 0xd9, 0x01, 0x06, 0x08, 0x00], // ds_write2_b64 v1, v[6:7], v[8:9] offset0:4 offset1:6
        &[0x06, 0x04, 0xdc, 0xd9, 0x01, 0x00, 0x00, 0x0a], // ds_read2_b64 v[10:13], v1 offset0:6 offset1:4
        &[0x01, 0x02, 0x3c, 0xd8, 0x0e, 0x02, 0x03, 0x00], // ds_write2st64_b32 v14, v2, v3 offset0:1 offset1:2
        &[0x02, 0x01, 0xe0, 0xd8, 0x0e, 0x00, 0x00, 0x0f], // ds_read2st64_b32 v[15:16], v14 offset0:2 offset1:1
        &[0x01, 0x03, 0x3c, 0xd9, 0x11, 0x06, 0x08, 0x00], // ds_write2st64_b64 v17, v[6:7], v[8:9] offset0:1 offset1:3
        &[0x03, 0x01, 0xe0, 0xd9, 0x11, 0x00, 0x00, 0x12], // ds_read2st64_b64 v[18:21], v17 offset0:3 offset1:1
        &[0x40, 0x00, 0x80, 0xd9, 0x01, 0x18, 0x00, 0x16], // ds_add_rtn_u64 v[22:23], v1, v[24:25] offset:64
        &[0x48, 0x00, 0x98, 0xd9, 0x01, 0x18, 0x00, 0x1a], // ds_max_rtn_i64 v[26:27], v1, v[24:25] offset:72
        &[0x50, 0x00, 0x90, 0xd9, 0x01, 0x18, 0x00, 0x30], // ds_dec_rtn_u64 v[48:49], v1, v[24:25] offset:80
        &[0x58, 0x00, 0xc0, 0xd9, 0x01, 0x1e, 0x20, 0x1c], // ds_cmpst_rtn_b64 v[28:29], v1, v[30:31], v[32:33] offset:88
        &[0x60, 0x00, 0xb0, 0xd9, 0x01, 0x1e, 0x20, 0x22], // ds_mskor_rtn_b64 v[34:35], v1, v[30:31], v[32:33] offset:96
        &[0x68, 0x00, 0x30, 0xd8, 0x01, 0x02, 0x03, 0x00], // ds_mskor_b32 v1, v2, v3 offset:104
        &[0x70, 0x00, 0xb4, 0xd9, 0x01, 0x18, 0x00, 0x24], // ds_wrxchg_rtn_b64 v[36:37], v1, v[24:25] offset:112
        &[0x1e, 0x1f, 0xb8, 0xd8, 0x01, 0x02, 0x03, 0x26], // ds_wrxchg2_rtn_b32 v[38:39], v1, v2, v3 offset0:30 offset1:31
        &[0x01, 0x02, 0xbc, 0xd9, 0x2c, 0x06, 0x08, 0x28], // ds_wrxchg2st64_rtn_b64 v[40:43], v44, v[6:7], v[8:9] offset0:1 offset1:2
        &[0x80, 0x00, 0x2c, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_xor_b64 v1, v[24:25] offset:128
        &[0x88, 0x00, 0x04, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_sub_u64 v1, v[24:25] offset:136
        &[0x90, 0x00, 0x08, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_rsub_u64 v1, v[24:25] offset:144
        &[0x98, 0x00, 0x0c, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_inc_u64 v1, v[24:25] offset:152
        &[0xa0, 0x00, 0x1c, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_min_u64 v1, v[24:25] offset:160
        &[0xa8, 0x00, 0x94, 0xd9, 0x01, 0x18, 0x00, 0x32], // ds_min_rtn_i64 v[50:51], v1, v[24:25] offset:168
        &[0xb0, 0x00, 0x40, 0xd9, 0x01, 0x1e, 0x20, 0x00], // ds_cmpst_b64 v1, v[30:31], v[32:33] offset:176
        &[0xb8, 0x00, 0xa4, 0xd9, 0x01, 0x18, 0x00, 0x34], // ds_and_rtn_b64 v[52:53], v1, v[24:25] offset:184
        &[0xc0, 0x00, 0x28, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_or_b64 v1, v[24:25] offset:192
        &[0xc8, 0x00, 0x20, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_max_u64 v1, v[24:25] offset:200
        &[0xd0, 0x00, 0xb0, 0xd8, 0x01, 0x02, 0x03, 0x36], // ds_mskor_rtn_b32 v54, v1, v2, v3 offset:208
        &[0x04, 0x00, 0x9c, 0xda, 0x01, 0x00, 0x00, 0x2d], // ds_read_u16_d16_hi v45, v1 offset:4
        &[0x0d, 0x00, 0x90, 0xda, 0x01, 0x00, 0x00, 0x2e], // ds_read_i8_d16 v46, v1 offset:13
        &[0xd8, 0x00, 0x84, 0xda, 0x01, 0x2f, 0x00, 0x00], // ds_write_b16_d16_hi v1, v47 offset:216
        &[0xdc, 0x00, 0x80, 0xda, 0x01, 0x2f, 0x00, 0x00], // ds_write_b8_d16_hi v1, v47 offset:220
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    ds_forms(Gpu::Gfx1030, 32, &code);
}

/// The second address of a two-address form is bounds-checked like every
/// LDS access: past the end is a fault naming the lane; nothing of a
/// faulting store is half-done for lanes after it. GDS is reported.
#[test]
fn ds_two_address_bounds_and_gds() {
    let expect_fault = |gpu: Gpu, size: u32, code: &[u8], lane: u32, base: u32, addr: u64| {
        let mem = GlobalMemory::new();
        let mut lds = Bytes::new(1024, Space::Lds);
        let err = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
            for l in 0..64 {
                w.vgpr[1][l] = if l as u32 == lane { base } else { 0 };
                w.vgpr[4][l] = 0x1111_1111;
                w.vgpr[6][l] = 0x2222_2222;
            }
        })
        .unwrap_err();
        match err {
            SimError::Fault { fault, lane: l, .. } => {
                assert_eq!(l, lane, "{gpu}");
                assert_eq!(fault.addr, addr, "{gpu}");
                assert_eq!(fault.space, Space::Lds);
            }
            other => panic!("{gpu}: {other}"),
        }
        lds
    };
    // 4 + 255 * 4 = 1024: the first byte past a 1024-byte LDS.
    let read9: Vec<u8> = [
        &[0x00, 0xff, 0x6e, 0xd8, 0x01, 0x00, 0x00, 0x04][..], // ds_read2_b32 v[4:5], v1 offset1:255
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let read10: Vec<u8> = [
        &[0x00, 0xff, 0xdc, 0xd8, 0x01, 0x00, 0x00, 0x04][..], // ds_read2_b32 v[4:5], v1 offset1:255
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    expect_fault(Gpu::Gfx900, 64, &read9, 7, 4, 1024);
    expect_fault(Gpu::Gfx1030, 32, &read10, 7, 4, 1024);
    // Lane 3: 516 + 64 * 8 = 1028. Lanes 0..3 wrote both elements (at 0
    // and 512, the last lane's values winning), lane 3 its first one.
    let write9: Vec<u8> = [
        &[0x00, 0x01, 0x9e, 0xd8, 0x01, 0x04, 0x06, 0x00][..], // ds_write2st64_b64 v1, v[4:5], v[6:7] offset1:1
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let lds = expect_fault(Gpu::Gfx900, 64, &write9, 3, 516, 1028);
    let word = |a: u64| {
        let mut b = [0u8; 4];
        lds.read(a, &mut b).unwrap();
        u32::from_le_bytes(b)
    };
    assert_eq!(word(0), 0x1111_1111, "first element of lanes 0..2");
    assert_eq!(word(512), 0x2222_2222, "second element of lanes 0..2");
    assert_eq!(word(516), 0x1111_1111, "lane 3's first element");
    assert_eq!(word(1020), 0, "nothing past lane 3's fault");
    // The gds form works on GDS memory: ds_add_u64 at v2 + 16 = 16 for
    // every lane adds 64 times v[4:5] there, and LDS is not touched.
    let gds: Vec<u8> = [
        &[0x10, 0x00, 0x81, 0xd8, 0x02, 0x04, 0x00, 0x00][..], // ds_add_u64 v2, v[4:5] offset:16 gds
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(256, Space::Lds);
    run_in(Gpu::Gfx900, 64, &gds, &mem, &mut lds, 0, |w| {
        for l in 0..64 {
            w.vgpr[4][l] = 0x8000_0001;
            w.vgpr[5][l] = 1;
        }
    })
    .expect("runs");
    let mut b = [0u8; 8];
    mem.gds().lock().mem.read(16, &mut b).unwrap();
    assert_eq!(u64::from_le_bytes(b), 64 * 0x1_8000_0001);
    assert!(lds.as_slice().iter().all(|&b| b == 0), "LDS untouched");
}

/// `ds_add_f32` follows MODE's f32 denormal bits (LLVM `SIISelLowering.cpp`,
/// `shouldExpandAtomicRMWInIR`: "DS F32 FP atomics do respect the denormal
/// mode"): with FP_DENORM flushing, denormal inputs count as zero and a
/// denormal sum is stored as zero; the returned old value is the memory's.
#[test]
fn ds_add_f32_follows_mode_denormals() {
    let code: Vec<u8> = [
        &[0x01, 0x09, 0x00, 0xba, 0x00, 0x00, 0x00, 0x00][..], // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0
        &[0x00, 0x00, 0x6a, 0xd8, 0x00, 0x01, 0x00, 0x03],     // ds_add_rtn_f32 v3, v0, v1
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let den = 1e-40f32;
    let min = f32::MIN_POSITIVE;
    // Even lanes: denormal + 0; odd lanes: 1.5 * min - min, a denormal sum.
    let old = |l: usize| if l % 2 == 0 { den } else { 1.5 * min };
    let add = |l: usize| if l % 2 == 0 { 0.0f32 } else { -min };
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(512, Space::Lds);
    for l in 0..64usize {
        lds.write(8 * l as u64, &old(l).to_le_bytes()).unwrap();
    }
    let w = run_in(Gpu::Gfx900, 64, &code, &mem, &mut lds, 0, |w| {
        for l in 0..64 {
            w.vgpr[0][l] = 8 * l as u32;
            w.vgpr[1][l] = add(l).to_bits();
        }
    })
    .expect("runs");
    for l in 0..64usize {
        let mut b = [0u8; 4];
        lds.read(8 * l as u64, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 0, "flushed sum, lane {l}");
        assert_eq!(w.vgpr[3][l], old(l).to_bits(), "old value, lane {l}");
    }
}

const SRC2_GFX900: &[&[u8]] = &[
    &[0x02, 0x00, 0x00, 0xd9, 0x0a, 0x00, 0x00, 0x00], // ds_add_src2_u32 v10 offset:2
    &[0xf8, 0x7f, 0x02, 0xd9, 0x0b, 0x00, 0x00, 0x00], // ds_sub_src2_u32 v11 offset:32760
    &[0x00, 0x80, 0x04, 0xd9, 0x0c, 0x00, 0x00, 0x00], // ds_rsub_src2_u32 v12 offset:32768
    &[0x01, 0x00, 0x06, 0xd9, 0x0d, 0x00, 0x00, 0x00], // ds_inc_src2_u32 v13 offset:1
    &[0x01, 0x00, 0x08, 0xd9, 0x0e, 0x00, 0x00, 0x00], // ds_dec_src2_u32 v14 offset:1
    &[0x01, 0x00, 0x0a, 0xd9, 0x0f, 0x00, 0x00, 0x00], // ds_min_src2_i32 v15 offset:1
    &[0x01, 0x00, 0x0c, 0xd9, 0x10, 0x00, 0x00, 0x00], // ds_max_src2_i32 v16 offset:1
    &[0x01, 0x00, 0x0e, 0xd9, 0x11, 0x00, 0x00, 0x00], // ds_min_src2_u32 v17 offset:1
    &[0x01, 0x00, 0x10, 0xd9, 0x12, 0x00, 0x00, 0x00], // ds_max_src2_u32 v18 offset:1
    &[0x01, 0x00, 0x12, 0xd9, 0x13, 0x00, 0x00, 0x00], // ds_and_src2_b32 v19 offset:1
    &[0x01, 0x00, 0x14, 0xd9, 0x14, 0x00, 0x00, 0x00], // ds_or_src2_b32 v20 offset:1
    &[0x01, 0x00, 0x16, 0xd9, 0x15, 0x00, 0x00, 0x00], // ds_xor_src2_b32 v21 offset:1
    &[0x00, 0x80, 0x1a, 0xd9, 0x16, 0x00, 0x00, 0x00], // ds_write_src2_b32 v22 offset:32768
    &[0x01, 0x00, 0x24, 0xd9, 0x17, 0x00, 0x00, 0x00], // ds_min_src2_f32 v23 offset:1
    &[0x01, 0x00, 0x26, 0xd9, 0x18, 0x00, 0x00, 0x00], // ds_max_src2_f32 v24 offset:1
    &[0x01, 0x00, 0x2a, 0xd9, 0x19, 0x00, 0x00, 0x00], // ds_add_src2_f32 v25 offset:1
    &[0x02, 0x00, 0x80, 0xd9, 0x1a, 0x00, 0x00, 0x00], // ds_add_src2_u64 v26 offset:2
    &[0x04, 0x00, 0x82, 0xd9, 0x1b, 0x00, 0x00, 0x00], // ds_sub_src2_u64 v27 offset:4
    &[0x02, 0x00, 0x84, 0xd9, 0x1c, 0x00, 0x00, 0x00], // ds_rsub_src2_u64 v28 offset:2
    &[0x02, 0x00, 0x86, 0xd9, 0x1d, 0x00, 0x00, 0x00], // ds_inc_src2_u64 v29 offset:2
    &[0x02, 0x00, 0x88, 0xd9, 0x1e, 0x00, 0x00, 0x00], // ds_dec_src2_u64 v30 offset:2
    &[0x02, 0x00, 0x8a, 0xd9, 0x1f, 0x00, 0x00, 0x00], // ds_min_src2_i64 v31 offset:2
    &[0x02, 0x00, 0x8c, 0xd9, 0x20, 0x00, 0x00, 0x00], // ds_max_src2_i64 v32 offset:2
    &[0x02, 0x00, 0x8e, 0xd9, 0x21, 0x00, 0x00, 0x00], // ds_min_src2_u64 v33 offset:2
    &[0x02, 0x00, 0x90, 0xd9, 0x22, 0x00, 0x00, 0x00], // ds_max_src2_u64 v34 offset:2
    &[0x02, 0x00, 0x92, 0xd9, 0x23, 0x00, 0x00, 0x00], // ds_and_src2_b64 v35 offset:2
    &[0x02, 0x00, 0x94, 0xd9, 0x24, 0x00, 0x00, 0x00], // ds_or_src2_b64 v36 offset:2
    &[0x02, 0x00, 0x96, 0xd9, 0x25, 0x00, 0x00, 0x00], // ds_xor_src2_b64 v37 offset:2
    &[0xfe, 0x7f, 0x9a, 0xd9, 0x26, 0x00, 0x00, 0x00], // ds_write_src2_b64 v38 offset:32766
    &[0x02, 0x00, 0xa4, 0xd9, 0x27, 0x00, 0x00, 0x00], // ds_min_src2_f64 v39 offset:2
    &[0x02, 0x00, 0xa6, 0xd9, 0x28, 0x00, 0x00, 0x00], // ds_max_src2_f64 v40 offset:2
    &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
];

const SRC2_GFX1010: &[&[u8]] = &[
    &[0x02, 0x00, 0x00, 0xda, 0x0a, 0x00, 0x00, 0x00], // ds_add_src2_u32 v10 offset:2
    &[0xf8, 0x7f, 0x04, 0xda, 0x0b, 0x00, 0x00, 0x00], // ds_sub_src2_u32 v11 offset:32760
    &[0x00, 0x80, 0x08, 0xda, 0x0c, 0x00, 0x00, 0x00], // ds_rsub_src2_u32 v12 offset:32768
    &[0x01, 0x00, 0x0c, 0xda, 0x0d, 0x00, 0x00, 0x00], // ds_inc_src2_u32 v13 offset:1
    &[0x01, 0x00, 0x10, 0xda, 0x0e, 0x00, 0x00, 0x00], // ds_dec_src2_u32 v14 offset:1
    &[0x01, 0x00, 0x14, 0xda, 0x0f, 0x00, 0x00, 0x00], // ds_min_src2_i32 v15 offset:1
    &[0x01, 0x00, 0x18, 0xda, 0x10, 0x00, 0x00, 0x00], // ds_max_src2_i32 v16 offset:1
    &[0x01, 0x00, 0x1c, 0xda, 0x11, 0x00, 0x00, 0x00], // ds_min_src2_u32 v17 offset:1
    &[0x01, 0x00, 0x20, 0xda, 0x12, 0x00, 0x00, 0x00], // ds_max_src2_u32 v18 offset:1
    &[0x01, 0x00, 0x24, 0xda, 0x13, 0x00, 0x00, 0x00], // ds_and_src2_b32 v19 offset:1
    &[0x01, 0x00, 0x28, 0xda, 0x14, 0x00, 0x00, 0x00], // ds_or_src2_b32 v20 offset:1
    &[0x01, 0x00, 0x2c, 0xda, 0x15, 0x00, 0x00, 0x00], // ds_xor_src2_b32 v21 offset:1
    &[0x00, 0x80, 0x34, 0xda, 0x16, 0x00, 0x00, 0x00], // ds_write_src2_b32 v22 offset:32768
    &[0x01, 0x00, 0x48, 0xda, 0x17, 0x00, 0x00, 0x00], // ds_min_src2_f32 v23 offset:1
    &[0x01, 0x00, 0x4c, 0xda, 0x18, 0x00, 0x00, 0x00], // ds_max_src2_f32 v24 offset:1
    &[0x01, 0x00, 0x54, 0xda, 0x19, 0x00, 0x00, 0x00], // ds_add_src2_f32 v25 offset:1
    &[0x02, 0x00, 0x00, 0xdb, 0x1a, 0x00, 0x00, 0x00], // ds_add_src2_u64 v26 offset:2
    &[0x04, 0x00, 0x04, 0xdb, 0x1b, 0x00, 0x00, 0x00], // ds_sub_src2_u64 v27 offset:4
    &[0x02, 0x00, 0x08, 0xdb, 0x1c, 0x00, 0x00, 0x00], // ds_rsub_src2_u64 v28 offset:2
    &[0x02, 0x00, 0x0c, 0xdb, 0x1d, 0x00, 0x00, 0x00], // ds_inc_src2_u64 v29 offset:2
    &[0x02, 0x00, 0x10, 0xdb, 0x1e, 0x00, 0x00, 0x00], // ds_dec_src2_u64 v30 offset:2
    &[0x02, 0x00, 0x14, 0xdb, 0x1f, 0x00, 0x00, 0x00], // ds_min_src2_i64 v31 offset:2
    &[0x02, 0x00, 0x18, 0xdb, 0x20, 0x00, 0x00, 0x00], // ds_max_src2_i64 v32 offset:2
    &[0x02, 0x00, 0x1c, 0xdb, 0x21, 0x00, 0x00, 0x00], // ds_min_src2_u64 v33 offset:2
    &[0x02, 0x00, 0x20, 0xdb, 0x22, 0x00, 0x00, 0x00], // ds_max_src2_u64 v34 offset:2
    &[0x02, 0x00, 0x24, 0xdb, 0x23, 0x00, 0x00, 0x00], // ds_and_src2_b64 v35 offset:2
    &[0x02, 0x00, 0x28, 0xdb, 0x24, 0x00, 0x00, 0x00], // ds_or_src2_b64 v36 offset:2
    &[0x02, 0x00, 0x2c, 0xdb, 0x25, 0x00, 0x00, 0x00], // ds_xor_src2_b64 v37 offset:2
    &[0xfe, 0x7f, 0x34, 0xdb, 0x26, 0x00, 0x00, 0x00], // ds_write_src2_b64 v38 offset:32766
    &[0x02, 0x00, 0x48, 0xdb, 0x27, 0x00, 0x00, 0x00], // ds_min_src2_f64 v39 offset:2
    &[0x02, 0x00, 0x4c, 0xdb, 0x28, 0x00, 0x00, 0x00], // ds_max_src2_f64 v40 offset:2
    &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
];

/// The `ds_*_src2_*` operations of `SRC2_GFX900` / `SRC2_GFX1010`, in
/// program order: name, 64-bit, offset field.
const SRC2_OPS: [(&str, bool, u16); 31] = [
    ("add_u32", false, 2),
    ("sub_u32", false, 32760),
    ("rsub_u32", false, 32768),
    ("inc_u32", false, 1),
    ("dec_u32", false, 1),
    ("min_i32", false, 1),
    ("max_i32", false, 1),
    ("min_u32", false, 1),
    ("max_u32", false, 1),
    ("and_b32", false, 1),
    ("or_b32", false, 1),
    ("xor_b32", false, 1),
    ("write_b32", false, 32768),
    ("min_f32", false, 1),
    ("max_f32", false, 1),
    ("add_f32", false, 1),
    ("add_u64", true, 2),
    ("sub_u64", true, 4),
    ("rsub_u64", true, 2),
    ("inc_u64", true, 2),
    ("dec_u64", true, 2),
    ("min_i64", true, 2),
    ("max_i64", true, 2),
    ("min_u64", true, 2),
    ("max_u64", true, 2),
    ("and_b64", true, 2),
    ("or_b64", true, 2),
    ("xor_b64", true, 2),
    ("write_b64", true, 32766),
    ("min_f64", true, 2),
    ("max_f64", true, 2),
];

/// IEEE minNum / maxNum on values neither of which is a NaN-NaN pair: a NaN
/// yields the other operand, -0 counts below +0.
fn min_max_num(a: f64, b: f64, max: bool) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    let key = |x: f64| (x, x.is_sign_positive());
    let (ka, kb) = (key(a), key(b));
    let a_less = ka.0 < kb.0 || (ka.0 == kb.0 && !ka.1 && kb.1);
    if a_less != max { a } else { b }
}

/// `MEM[A] = op(MEM[A], MEM[B])` of `ds_<name>_src2_*` (Vega ISA), on raw
/// values of `bits` bits.
fn src2_ref(name: &str, a: u64, b: u64, bits: u32) -> u64 {
    let mask = if bits == 64 { u64::MAX } else { 0xffff_ffff };
    let sx = |x: u64| {
        if bits == 64 {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let fl = |x: u64| {
        if bits == 64 {
            f64::from_bits(x)
        } else {
            f32::from_bits(x as u32) as f64
        }
    };
    let back = |x: f64| {
        if bits == 64 {
            x.to_bits()
        } else {
            (x as f32).to_bits() as u64
        }
    };
    let op = name.split('_').next().unwrap();
    let float = name.ends_with("f32") || name.ends_with("f64");
    (match (op, float) {
        ("add", false) => a.wrapping_add(b),
        ("sub", _) => a.wrapping_sub(b),
        ("rsub", _) => b.wrapping_sub(a),
        ("inc", _) => {
            if a >= b {
                0
            } else {
                a + 1
            }
        }
        ("dec", _) => {
            if a == 0 || a > b {
                b
            } else {
                a - 1
            }
        }
        ("min", false) if name.contains("_i") => sx(a).min(sx(b)) as u64,
        ("max", false) if name.contains("_i") => sx(a).max(sx(b)) as u64,
        ("min", false) => a.min(b),
        ("max", false) => a.max(b),
        ("and", _) => a & b,
        ("or", _) => a | b,
        ("xor", _) => a ^ b,
        ("write", _) => b,
        ("min", true) => back(min_max_num(fl(a), fl(b), false)),
        ("max", true) => back(min_max_num(fl(a), fl(b), true)),
        ("add", true) => {
            if bits == 64 {
                (fl(a) + fl(b)).to_bits()
            } else {
                (f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits() as u64
            }
        }
        _ => unreachable!("{name}"),
    }) & mask
}

/// Runs the `ds_*_src2_*` program (one 1 KiB LDS region per lane, one
/// 32-byte slot per operation, lanes 5 and 33 inactive) and compares LDS with
/// the pseudo-code run in program and lane order on a copy: A is the address
/// register, B = A + 4 * (the offset's low 15 bits, sign-extended), or with
/// offset bit 15 set, A = the address's low 17 bits and the stride its bits
/// 31:17, sign-extended.
fn ds_src2(gpu: Gpu, size: u32, code: &[u8]) {
    let n = size as usize;
    let exec: u64 = if size == 64 {
        !(1 << 5 | 1 << 33)
    } else {
        0xffff_ffdf
    };
    let mut init = vec![0u8; 65536];
    for (k, b) in init.iter_mut().enumerate() {
        *b = (k as u32).wrapping_mul(0x9e37_79b1).rotate_right(11) as u8;
    }
    // (vaddr, A, B) of operation k in lane l.
    let addrs = |k: usize, l: usize| -> (u32, usize, usize) {
        let a = 1024 * l + 32 * k;
        let (_, _, off) = SRC2_OPS[k];
        match k {
            // Flag mode: stride 3, and stride -1 with bit 31 set.
            2 => ((a as u32) | 3 << 17, a, a + 12),
            12 => ((a as u32) | 0xfffe_0000, a, a - 4),
            _ => {
                let s = if off & 0x4000 != 0 {
                    off as i64 - 0x8000
                } else {
                    off as i64
                };
                (a as u32, a, (a as i64 + 4 * s) as usize)
            }
        }
    };
    let f32s: [(f32, f32); 6] = [
        (1.5, -2.0),
        (f32::NAN, 3.0),
        (-0.0, 0.0),
        (0.0, -0.0),
        (f32::from_bits(1), f32::from_bits(3)),
        (f32::INFINITY, 2.0),
    ];
    for l in 0..64 {
        for (k, &(name, wide, _)) in SRC2_OPS.iter().enumerate() {
            let (_, a, b) = addrs(k, l);
            let bytes = if wide { 8 } else { 4 };
            if name.starts_with("inc") || name.starts_with("dec") {
                // Memory at A equal to, above, below B's value, or zero.
                let bv = le(&init, b, bytes);
                let av = [bv, bv.wrapping_add(1), bv.wrapping_sub(1), 0][l % 4];
                set_le(&mut init, a, bytes, av);
            }
            if name.ends_with("f32") {
                let (x, y) = f32s[l % 6];
                set_le(&mut init, a, 4, x.to_bits() as u64);
                set_le(&mut init, b, 4, y.to_bits() as u64);
            }
            if name.ends_with("f64") {
                let (x, y) = f32s[l % 6];
                let (x, y) = if l % 6 == 4 {
                    (f64::from_bits(1), f64::from_bits(3))
                } else {
                    (x as f64, y as f64)
                };
                set_le(&mut init, a, 8, x.to_bits());
                set_le(&mut init, b, 8, y.to_bits());
            }
        }
    }
    let mut want = init.clone();
    for (k, &(name, wide, _)) in SRC2_OPS.iter().enumerate() {
        let bytes = if wide { 8 } else { 4 };
        for l in 0..n {
            if (exec >> l) & 1 == 0 {
                continue;
            }
            let (_, a, b) = addrs(k, l);
            let r = src2_ref(
                name,
                le(&want, a, bytes),
                le(&want, b, bytes),
                8 * bytes as u32,
            );
            set_le(&mut want, a, bytes, r);
        }
    }
    let mut lds = Bytes::new(65536, Space::Lds);
    lds.write(0, &init).unwrap();
    let mem = GlobalMemory::new();
    run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        w.exec = Mask(exec);
        w.vgpr.resize(64, [0; 64]);
        for l in 0..64 {
            for k in 0..SRC2_OPS.len() {
                w.vgpr[10 + k][l] = addrs(k, l).0;
            }
        }
    })
    .expect("runs");
    let mut got = vec![0u8; 65536];
    lds.read(0, &mut got).unwrap();
    for l in 0..64 {
        for (k, &(name, wide, _)) in SRC2_OPS.iter().enumerate() {
            let bytes = if wide { 8 } else { 4 };
            let (_, a, _) = addrs(k, l);
            let (g, x) = (le(&got, a, bytes), le(&want, a, bytes));
            let nan = |v: u64| {
                if wide {
                    f64::from_bits(v).is_nan()
                } else {
                    f32::from_bits(v as u32).is_nan()
                }
            };
            let float = name.ends_with("f32") || name.ends_with("f64");
            assert!(
                g == x || (float && nan(g) && nan(x)),
                "{gpu} ds_{name}_src2 lane {l}: {g:#x}, want {x:#x}"
            );
        }
    }
    assert!(got == want, "{gpu}: other LDS bytes changed");
}

#[test]
fn lds_src2_reductions() {
    ds_src2(Gpu::Gfx900, 64, &SRC2_GFX900.concat());
    ds_src2(Gpu::Gfx1010, 32, &SRC2_GFX1010.concat());
    ds_src2(Gpu::Gfx1010, 64, &SRC2_GFX1010.concat());
    // B below address 0 is out of range, and so reported, not wrapped.
    let code: Vec<u8> = [
        &[0xf8, 0x7f, 0x02, 0xd9, 0x0b, 0x00, 0x00, 0x00][..], // ds_sub_src2_u32 v11 offset:32760
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(65536, Space::Lds);
    let err = run_in(Gpu::Gfx900, 64, &code, &mem, &mut lds, 0, |w| {
        for l in 0..64 {
            w.vgpr[11][l] = 64 * l as u32;
        }
    })
    .unwrap_err();
    assert!(matches!(err, SimError::Fault { lane: 0, .. }), "{err:?}");
}

/// `ds_append`, `ds_consume`, `ds_write_addtid_b32`, `ds_read_addtid_b32`
/// and `ds_wrap_rtn_b32` with M0 = 0xabcd_0100 (LDS base 0x100 in its low
/// half) and lanes 5 (and 33) inactive.
fn ds_counters_addtid_wrap(gpu: Gpu, size: u32, code: &[u8]) {
    let n = size as usize;
    let exec: u64 = if size == 64 {
        !(1 << 5 | 1 << 33)
    } else {
        0xffff_ffdf
    };
    let active = exec.count_ones();
    let mut lds = Bytes::new(8192, Space::Lds);
    let mut init = vec![0u8; 8192];
    for (k, b) in init.iter_mut().enumerate() {
        *b = (k as u32).wrapping_mul(0x85eb_ca6b).rotate_right(7) as u8;
    }
    // Append counter 0x108 near the top of 32 bits (it wraps), consume counter
    // 0x10c below the active count (it wraps below 0).
    set_le(&mut init, 0x108, 4, 0xffff_fffe);
    set_le(&mut init, 0x10c, 4, 3);
    // Wrap: memory above, below or equal to data0.
    let wrap_addr = |l: usize| 0x1000 + 8 * l + 4;
    let data0 = |l: usize| 1000 + l as u32;
    for l in 0..64 {
        let old = [data0(l) + 7, data0(l) - 9, data0(l)][l % 3];
        set_le(&mut init, wrap_addr(l), 4, old as u64);
    }
    lds.write(0, &init).unwrap();
    let mem = GlobalMemory::new();
    let w = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        w.exec = Mask(exec);
        w.m0 = 0xabcd_0100;
        for l in 0..64 {
            for r in [1, 2, 4, 5] {
                w.vgpr[r][l] = 0xdead_0000 + r as u32;
            }
            w.vgpr[3][l] = 0x3000_0000 + l as u32;
            w.vgpr[6][l] = (wrap_addr(l) - 4) as u32;
            w.vgpr[7][l] = data0(l);
            w.vgpr[8][l] = 0x100 * l as u32;
        }
    })
    .expect("runs");
    let mut got = vec![0u8; 8192];
    lds.read(0, &mut got).unwrap();
    let mut want = init.clone();
    set_le(
        &mut want,
        0x108,
        4,
        (0xffff_fffe_u32.wrapping_add(active)) as u64,
    );
    set_le(&mut want, 0x10c, 4, (3u32.wrapping_sub(active)) as u64);
    for l in 0..n {
        let on = (exec >> l) & 1 == 1;
        let keep = |r: usize| 0xdead_0000 + r as u32;
        // Every active lane gets the counter's value before the operation.
        assert_eq!(
            w.vgpr[1][l],
            if on { 0xffff_fffe } else { keep(1) },
            "{gpu} append lane {l}"
        );
        assert_eq!(
            w.vgpr[2][l],
            if on { 3 } else { keep(2) },
            "{gpu} consume lane {l}"
        );
        if on {
            set_le(&mut want, 0x110 + 4 * l, 4, 0x3000_0000 + l as u64);
        }
        let read = le(&init, 0x310 + 4 * l, 4) as u32;
        // ds_read_addtid reads after the write: 0x310 + 4l lies beyond it.
        assert_eq!(
            w.vgpr[4][l],
            if on { read } else { keep(4) },
            "{gpu} read_addtid lane {l}"
        );
        let old = le(&init, wrap_addr(l), 4) as u32;
        if on {
            let new = if old >= data0(l) {
                old - data0(l)
            } else {
                old + 0x100 * l as u32
            };
            set_le(&mut want, wrap_addr(l), 4, new as u64);
        }
        assert_eq!(
            w.vgpr[5][l],
            if on { old } else { keep(5) },
            "{gpu} wrap lane {l}"
        );
    }
    assert!(got == want, "{gpu}: LDS");
}

#[test]
fn lds_append_consume_addtid_and_wrap() {
    let gfx9: Vec<u8> = [
        &[0x08, 0x00, 0x7c, 0xd9, 0x00, 0x00, 0x00, 0x01][..], // ds_append v1 offset:8
        &[0x0c, 0x00, 0x7a, 0xd9, 0x00, 0x00, 0x00, 0x02],     // ds_consume v2 offset:12
        &[0x10, 0x00, 0x3a, 0xd8, 0x00, 0x03, 0x00, 0x00],     // ds_write_addtid_b32 v3 offset:16
        &[0x10, 0x02, 0x6c, 0xd9, 0x00, 0x00, 0x00, 0x04],     // ds_read_addtid_b32 v4 offset:528
        &[0x04, 0x00, 0x68, 0xd8, 0x06, 0x07, 0x08, 0x05], // ds_wrap_rtn_b32 v5, v6, v7, v8 offset:4
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x08, 0x00, 0xf8, 0xd8, 0x00, 0x00, 0x00, 0x01][..], // ds_append v1 offset:8
        &[0x0c, 0x00, 0xf4, 0xd8, 0x00, 0x00, 0x00, 0x02],     // ds_consume v2 offset:12
        &[0x10, 0x00, 0xc0, 0xda, 0x00, 0x03, 0x00, 0x00],     // ds_write_addtid_b32 v3 offset:16
        &[0x10, 0x02, 0xc4, 0xda, 0x00, 0x00, 0x00, 0x04],     // ds_read_addtid_b32 v4 offset:528
        &[0x04, 0x00, 0xd0, 0xd8, 0x06, 0x07, 0x08, 0x05], // ds_wrap_rtn_b32 v5, v6, v7, v8 offset:4
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    ds_counters_addtid_wrap(Gpu::Gfx900, 64, &gfx9);
    ds_counters_addtid_wrap(Gpu::Gfx90a, 64, &gfx9);
    ds_counters_addtid_wrap(Gpu::Gfx1030, 32, &gfx10);
    ds_counters_addtid_wrap(Gpu::Gfx1010, 64, &gfx10);
    // An M0 base whose lanes run past the end of LDS is reported.
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(8192, Space::Lds);
    let err = run_in(Gpu::Gfx900, 64, &gfx9[16..24], &mem, &mut lds, 0, |w| {
        w.m0 = 8192 - 16 - 64;
    })
    .unwrap_err();
    assert!(matches!(err, SimError::Fault { lane: 16, .. }), "{err:?}");
}

/// `ds_add_src2_f32` uses the LDS f32 adder: like `ds_add_f32` it follows
/// MODE's f32 denormal bits (flushing: a denormal input counts as zero and a
/// denormal sum is stored as zero).
#[test]
fn ds_add_src2_f32_follows_mode_denormals() {
    let code: Vec<u8> = [
        &[0x01, 0x09, 0x00, 0xba, 0x00, 0x00, 0x00, 0x00][..], // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0
        SRC2_GFX900[15],                                       // ds_add_src2_f32 v25 offset:1
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let (den, min) = (1e-40f32, f32::MIN_POSITIVE);
    let a = |l: usize| if l % 2 == 0 { den } else { 1.5 * min };
    let b = |l: usize| if l % 2 == 0 { 0.0f32 } else { -min };
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(1024, Space::Lds);
    for l in 0..64usize {
        lds.write(16 * l as u64, &a(l).to_le_bytes()).unwrap();
        lds.write(16 * l as u64 + 4, &b(l).to_le_bytes()).unwrap();
    }
    run_in(Gpu::Gfx900, 64, &code, &mem, &mut lds, 0, |w| {
        w.vgpr.resize(32, [0; 64]);
        for l in 0..64 {
            w.vgpr[25][l] = 16 * l as u32;
        }
    })
    .expect("runs");
    for l in 0..64usize {
        let mut x = [0u8; 4];
        lds.read(16 * l as u64, &mut x).unwrap();
        assert_eq!(u32::from_le_bytes(x), 0, "flushed sum, lane {l}");
    }
}

/// `ds_condxchg32_rtn_b64`, as the pseudo-code of AMD's RDNA3 and CDNA4
/// ISA guides says, run on a copy of LDS in lane order:
///
/// ```text
/// ADDR0 = (ADDR + {OFFSET1,OFFSET0}) & 0xfff8; ADDR1 = ADDR0 + 4;
/// RETURN_DATA[0] = LDS[ADDR0]; if (DATA[31]) LDS[ADDR0] = {1'0, DATA[30:0]};
/// RETURN_DATA[1] = LDS[ADDR1]; if (DATA[63]) LDS[ADDR1] = {1'0, DATA[62:32]};
/// ```
fn ds_condxchg32(gpu: Gpu, size: u32, code: &[u8]) {
    let n = size as usize;
    let exec: u64 = if size == 64 {
        !(1 << 5 | 1 << 33)
    } else {
        0xffff_ffdf
    };
    let mut lds = Bytes::new(4096, Space::Lds);
    let mut init = vec![0u8; 4096];
    for (k, b) in init.iter_mut().enumerate() {
        *b = (k as u32).wrapping_mul(0x9e37_79b1).rotate_right(11) as u8;
    }
    lds.write(0, &init).unwrap();
    // ADDR: a qword of its own per lane, the low three bits ignored; lane 9
    // on lane 8's qword (it sees lane 8's writes); lane 10's address wraps
    // at 64 KiB by the mask.
    let addr = |l: usize| match l {
        9 => 24 * 8,
        10 => 0xffff_0000 + 24 * 10,
        _ => 24 * l as u32 + (l as u32 % 8),
    };
    let data = |l: usize| -> (u32, u32) {
        let lo = (0x1234_0000 + l as u32) | if l % 4 < 2 { 1 << 31 } else { 0 };
        let hi = (0x5678_0000 + l as u32) | if l % 2 == 0 { 1 << 31 } else { 0 };
        (lo, hi)
    };
    let mem = GlobalMemory::new();
    let w = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        w.exec = Mask(exec);
        for l in 0..64 {
            w.vgpr[1][l] = addr(l);
            (w.vgpr[4][l], w.vgpr[5][l]) = data(l);
            w.vgpr[2][l] = 0xdead_0002;
            w.vgpr[3][l] = 0xdead_0003;
        }
    })
    .unwrap_or_else(|e| panic!("{gpu}: {e}"));
    let mut want = init.clone();
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            assert_eq!(
                (w.vgpr[2][l], w.vgpr[3][l]),
                (0xdead_0002, 0xdead_0003),
                "{gpu} inactive lane {l}"
            );
            continue;
        }
        let addr0 = (addr(l).wrapping_add(16) & 0xfff8) as usize;
        let addr1 = addr0 + 4;
        let (lo, hi) = data(l);
        let ret0 = le(&want, addr0, 4) as u32;
        if lo >> 31 != 0 {
            set_le(&mut want, addr0, 4, (lo & 0x7fff_ffff) as u64);
        }
        let ret1 = le(&want, addr1, 4) as u32;
        if hi >> 31 != 0 {
            set_le(&mut want, addr1, 4, (hi & 0x7fff_ffff) as u64);
        }
        assert_eq!(
            (w.vgpr[2][l], w.vgpr[3][l]),
            (ret0, ret1),
            "{gpu} lane {l} return"
        );
    }
    let mut got = vec![0u8; 4096];
    lds.read(0, &mut got).unwrap();
    assert!(got == want, "{gpu}: LDS");
    // Spot checks: lane 0 writes both halves, with bit 31 cleared; lane 3
    // neither; lane 9 reads what lane 8 wrote; lane 10 (0xffff00f0 + 16)
    // writes the high half of qword 256 and keeps the low one.
    assert_eq!(le(&got, 16, 8), 0x5678_0000_1234_0000, "{gpu}");
    assert_eq!(le(&got, 24 * 3 + 16, 8), le(&init, 24 * 3 + 16, 8), "{gpu}");
    assert_eq!(
        (w.vgpr[2][9], w.vgpr[3][9]),
        (0x1234_0008, 0x5678_0008),
        "{gpu}"
    );
    assert_eq!(le(&got, 260, 4), 0x5678_000a, "{gpu}: lane 10");
    assert_eq!(le(&got, 256, 4), le(&init, 256, 4), "{gpu}: lane 10");
    // An address beyond the group's LDS: the typed LDS fault of the lane.
    let mut small = Bytes::new(1024, Space::Lds);
    let err = run_in(gpu, size, code, &mem, &mut small, 0, |w| {
        for l in 0..64 {
            w.vgpr[1][l] = if l == 2 { 2000 } else { 8 * l as u32 };
        }
    })
    .unwrap_err();
    match &err {
        SimError::Fault { fault, lane, .. } => {
            assert_eq!(
                (*lane, fault.space, fault.addr),
                (2, Space::Lds, 2016),
                "{gpu}"
            );
        }
        other => panic!("{gpu}: expected a fault, got {other}"),
    }
}

#[test]
fn ds_condxchg32_writes_the_halves_whose_top_bit_is_set() {
    // ds_condxchg32_rtn_b64 v[2:3], v1, v[4:5] offset:16
    let gfx9: Vec<u8> = [
        &[0x10, 0x00, 0xfc, 0xd8, 0x01, 0x04, 0x00, 0x02][..],
        &[0x00, 0x00, 0x81, 0xbf], // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x10, 0x00, 0xf8, 0xd9, 0x01, 0x04, 0x00, 0x02][..],
        &[0x00, 0x00, 0x81, 0xbf], // s_endpgm
    ]
    .concat();
    ds_condxchg32(Gpu::Gfx900, 64, &gfx9);
    ds_condxchg32(Gpu::Gfx90a, 64, &gfx9);
    ds_condxchg32(Gpu::Gfx1030, 32, &gfx10);
    ds_condxchg32(Gpu::Gfx1010, 64, &gfx10);
}
