//! The pre-resolved handlers (`exec::Prepared`) against the general executor
//! on random instruction streams: VOP1, VOP2, VOP3, SOP1, SOP2, SOPC and
//! SOPP words with random operands (and literals), over random register
//! contents and EXEC masks (VOPC compares too), on gfx900 (wave64) and gfx1030 (wave32 and
//! wave64). Every stream runs three times from the same state: through the
//! general executor alone, through the handlers compiled for the baseline
//! target, and through the handlers compiled for AVX2 and FMA when the host
//! has them; the wave states, LDS and the outcome (including any error) must
//! be the same.

use amdgpu_isa::{Decoder, Gpu};
use amdgpu_sim::exec::Prepared;
use amdgpu_sim::memory::{Bytes, GlobalMemory, Scratch};
use amdgpu_sim::{Mask, Space, Wave};

use crate::support::{BASE, Rng, random_program, run_to_end};

/// A random source operand code (9 bits): mostly VGPRs and SGPRs of the
/// first few registers, inline constants, and sometimes a literal.
fn src9(r: &mut Rng) -> u32 {
    match r.below(8) {
        0..=2 => 256 + r.below(12),                               // v0..v11
        3 => r.below(12),                                         // s0..s11
        4 => 128 + r.below(81),                                   // inline integers
        5 => 240 + r.below(9),                                    // inline floats
        6 => [106, 107, 124, 126, 127, 255][r.below(6) as usize], // vcc, m0, exec, literal
        _ => 255,                                                 // literal
    }
}

fn src8(r: &mut Rng) -> u32 {
    match r.below(6) {
        0..=1 => r.below(12),
        2 => 128 + r.below(81),
        3 => 240 + r.below(9),
        4 => [106, 107, 124, 126, 127][r.below(5) as usize],
        _ => 255,
    }
}

/// A random instruction (one or two dwords; a literal dword always follows,
/// so that any operand naming one has it).
fn inst(r: &mut Rng, gfx10: bool, out: &mut Vec<u32>) {
    let vdst = r.below(12);
    let word = match r.below(11) {
        // VOPC (compares into VCC).
        10 => 0x7c00_0000 | (r.below(256) << 17) | (r.below(12) << 9) | src9(r),
        // VOP2: opcode in bits 30:25.
        0..=3 => (r.below(64) << 25) | (vdst << 17) | ((r.below(12)) << 9) | src9(r),
        // VOP1.
        4 => 0x7e00_0000 | (vdst << 17) | (r.below(128) << 9) | src9(r),
        // VOP3 (two dwords of its own).
        5 | 6 => {
            let (prefix, opbits) = if gfx10 {
                (0xd400_0000u32, 0x3ff)
            } else {
                (0xd000_0000u32, 0x3ff)
            };
            // neg occasionally, abs/clamp/omod rarely.
            let mods = if r.below(4) == 0 { r.below(8) << 29 } else { 0 };
            let abs = if r.below(8) == 0 { r.below(8) << 8 } else { 0 };
            let clamp = if r.below(8) == 0 { 1 << 15 } else { 0 };
            out.push(prefix | ((r.below(opbits + 1) & 0x3ff) << 16) | clamp | abs | vdst);
            let omod = if r.below(8) == 0 { r.below(4) << 27 } else { 0 };
            out.push(mods | omod | (src9(r) << 18) | (src9(r) << 9) | src9(r));
            out.push(r.u32());
            return;
        }
        // SOP2.
        7 => 0x8000_0000 | (r.below(0x30) << 23) | (r.below(12) << 16) | (src8(r) << 8) | src8(r),
        // SOPC.
        8 => 0xbf00_0000 | (r.below(0x14) << 16) | (src8(r) << 8) | src8(r),
        // SOP1 (s_mov_b32, or any: saveexec, 64-bit moves) or a short
        // forward branch.
        _ => {
            let sdst = [0, 2, 4, 6, 8, 10, 106, 126][r.below(8) as usize];
            match r.below(3) {
                0 => 0xbe80_0000 | (r.below(12) << 16) | (if gfx10 { 3 } else { 0 } << 8) | src8(r),
                1 => 0xbe80_0000 | (sdst << 16) | (r.below(0x40) << 8) | src8(r),
                _ => {
                    // s_branch / s_cbranch_* (SOPP 2..=9) by 0..3 dwords.
                    0xbf80_0000 | ((2 + r.below(8)) << 16) | r.below(4)
                }
            }
        }
    };
    out.push(word);
    out.push(r.u32());
}

/// Everything a run leaves, printed, and the instructions it executed.
#[derive(Debug)]
struct Outcome(String, u64);

fn run(gpu: Gpu, size: u32, code: &[u8], w0: &Wave, prepared: Option<&Prepared>) -> Outcome {
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(64, Space::Lds);
    let mut w = w0.clone();
    let r = run_to_end(gpu, size, code, &mut w, &mut lds, &mem, 200, prepared);
    Outcome(format!("{r:?}\n{w:?}\n{lds:?}"), w.executed)
}

#[test]
fn fast_handlers_agree_with_the_general_executor() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut handled = 0usize;
    let mut executed = 0u64;
    for case in 0..10_000 {
        let (gpu, size) = [(Gpu::Gfx900, 64), (Gpu::Gfx1030, 32), (Gpu::Gfx1030, 64)][case % 3];
        let gfx10 = gpu == Gpu::Gfx1030;
        let count = 1 + r.below(12);
        let code = random_program(&mut r, gpu, size, count, |r, out| inst(r, gfx10, out));
        let mut w = Wave::new(size, BASE, Scratch::new(0, size), 0, 32);
        let full = if size == 64 { u64::MAX } else { 0xffff_ffff };
        w.exec = Mask(match r.below(4) {
            0 => full,
            1 => 0,
            _ => r.next() & full,
        });
        w.vcc = Mask(r.next() & full);
        w.scc = r.below(2) == 0;
        w.m0 = r.u32();
        for s in w.sgpr.iter_mut().take(16) {
            *s = r.u32();
        }
        for v in w.vgpr.iter_mut() {
            for x in v.iter_mut() {
                // Floats of every class now and then: small integers, NaNs,
                // infinities, denormals, and arbitrary patterns.
                *x = match r.below(8) {
                    0 => r.below(64),
                    1 => 0x7fc0_0000 | r.below(0x40_0000) | (r.below(2) << 31),
                    2 => 0x7f80_0000 | (r.below(2) << 31),
                    3 => r.below(0x80_0000) | (r.below(2) << 31),
                    _ => r.u32(),
                };
            }
        }
        if r.below(16) == 0 {
            // A MODE the handlers do not model (round toward zero).
            w.hwreg[1] ^= 0xc;
        }
        let program = Decoder::new(gpu, size == 64).decode_program(&code, BASE);
        let portable = Prepared::new(&program).with_simd(false);
        let simd = Prepared::new(&program).with_simd(true);
        handled += portable.handled();
        let general = run(gpu, size, &code, &w, None);
        let fast = run(gpu, size, &code, &w, Some(&portable));
        executed += fast.1;
        assert_eq!(
            general.0, fast.0,
            "case {case} ({gpu:?} wave{size}): {code:02x?}"
        );
        if simd.simd() {
            let fast_simd = run(gpu, size, &code, &w, Some(&simd));
            assert_eq!(
                general.0, fast_simd.0,
                "case {case} ({gpu:?} wave{size}, SIMD): {code:02x?}"
            );
        }
    }
    // The streams do reach the handlers.
    assert!(
        handled > 3000,
        "only {handled} instructions had a fast handler"
    );
    assert!(executed > 20_000, "only {executed} instructions executed");
    eprintln!("{handled} instructions with a fast handler, {executed} executed");
}
