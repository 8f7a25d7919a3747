//! f64 operations (`exec/valu/fp64.rs`).

use super::common::*;

/// `v_trig_preop_f64`: segment `s` of 2/PI is the 53 bits starting at bit
/// 53s; large inputs move the window by `exponent - 1077` bits and from
/// exponent 1968 scale the result by 2^128. Checked against the segments of
/// 1.0 themselves (bits reassembled with integer shifts), against
/// `FRAC_2_PI`, and for NaN. (Before: unimplemented.)
fn trig_preop(gpu: Gpu, size: u32, code: &[u8]) {
    let x60 = f64::powi(2.0, 60);
    let x950 = f64::powi(2.0, 950);
    let input = |l: usize| -> (f64, u32) {
        match l {
            0..=19 => (1.0, l as u32),
            20 => (-1.0, 0),
            21 => (x60, 0),
            22 => (x950, 0),
            23 => (f64::from_bits(0x7ff0_0000_0000_0005), 0),
            24 => (1.0, 32 + 3), // S1[4:0]
            _ => (0.5 * l as f64, (l % 4) as u32),
        }
    };
    let w = run(gpu, size, code, |w| {
        for l in 0..64 {
            let (x, s) = input(l);
            w.vgpr[0][l] = x.to_bits() as u32;
            w.vgpr[1][l] = (x.to_bits() >> 32) as u32;
            w.vgpr[2][l] = s;
        }
    })
    .expect("runs");
    let get =
        |r: usize, l: usize| f64::from_bits(w.vgpr[r][l] as u64 | (w.vgpr[r + 1][l] as u64) << 32);
    // Segment k of 1.0 as a 53-bit integer.
    let seg = |k: usize| -> u128 {
        let m = get(4, k) * f64::powi(2.0, 53 * (k as i32 + 1));
        assert!(
            m.fract() == 0.0 && m < f64::powi(2.0, 53),
            "segment {k} is 53 bits"
        );
        m as u128
    };
    assert_eq!(
        get(4, 0).to_bits(),
        std::f64::consts::FRAC_2_PI.to_bits() - 1
    );
    // Bits b..b+53 of 2/PI from the segments of 1.0.
    let window = |b: usize| -> f64 {
        let (k, o) = (b / 53, b % 53);
        let both = seg(k) << 53 | seg(k + 1);
        ((both >> (53 - o)) & ((1 << 53) - 1)) as f64
    };
    for l in 0..size as usize {
        let (x, s) = input(l);
        let r = get(4, l);
        let want = match l {
            20 | 24 => get(4, (s & 31) as usize),
            21 => window(6) * f64::powi(2.0, -59),
            22 => window(896) * f64::powi(2.0, -53 - 896) * f64::powi(2.0, 128),
            23 => f64::from_bits(0x7ff8_0000_0000_0005),
            l if l < 20 => r,
            _ => get(4, s as usize),
        };
        assert_eq!(
            r.to_bits(),
            want.to_bits(),
            "{gpu} lane {l}: x = {x:e}, segment {s}"
        );
        // -|x| with segment 1 (inline constant): the sign does not matter.
        let want6 = if l == 23 {
            f64::from_bits(0xfff8_0000_0000_0005)
        } else if x.abs() < x60 {
            get(4, 1)
        } else {
            continue;
        };
        assert_eq!(get(6, l).to_bits(), want6.to_bits(), "{gpu} lane {l} -|x|");
    }
}

#[test]
fn trig_preop_f64_segments() {
    let gfx9: Vec<u8> = [
        &[0x04, 0x00, 0x92, 0xd2, 0x00, 0x05, 0x02, 0x00][..], // v_trig_preop_f64 v[4:5], v[0:1], v2
        &[0x06, 0x01, 0x92, 0xd2, 0x00, 0x03, 0x01, 0x20], // v_trig_preop_f64 v[6:7], -|v[0:1]|, 1
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x04, 0x00, 0x74, 0xd5, 0x00, 0x05, 0x02, 0x00][..], // v_trig_preop_f64 v[4:5], v[0:1], v2
        &[0x06, 0x01, 0x74, 0xd5, 0x00, 0x03, 0x01, 0x20], // v_trig_preop_f64 v[6:7], -|v[0:1]|, 1
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    trig_preop(Gpu::Gfx900, 64, &gfx9);
    trig_preop(Gpu::Gfx1030, 32, &gfx10);
    // Segment 20 of 1.0 is a denormal that would round: reported.
    let err = run(Gpu::Gfx900, 64, &gfx9, |w| {
        for l in 0..64 {
            w.vgpr[1][l] = 0x3ff0_0000;
            w.vgpr[2][l] = 20;
        }
    })
    .unwrap_err();
    assert!(matches!(err, SimError::Unsupported { .. }), "{err}");
}
