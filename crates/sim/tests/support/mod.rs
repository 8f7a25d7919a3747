//! The bare-wave harness of the instruction tests: a program runs from the
//! same state through the pre-resolved handlers, through the general
//! executor alone, and (where the host has AVX2 and FMA) through the SIMD
//! handlers; the runs must agree on everything (registers, memory, LDS, the
//! result).
#![allow(dead_code)]

use amdgpu_isa::{Decoder, Gpu};
use amdgpu_sim::exec::{Ctx, Prepared, step_with};
use amdgpu_sim::memory::{Bytes, GlobalMemory, Scratch};
use amdgpu_sim::{Mask, SimError, Wave, WaveStatus};

/// Where the programs are placed.
pub const BASE: u64 = 0x1000;

/// Runs `code` on a wave of `size` lanes (every lane active, then `setup`)
/// with global memory `mem`, LDS `lds` and `private` bytes of scratch per
/// lane, at most `max_instructions`; checks that every path agrees and
/// returns the wave (memory and LDS are left as the first path left them).
#[allow(clippy::too_many_arguments)]
pub fn run_paths(
    gpu: Gpu,
    size: u32,
    code: &[u8],
    mem: &GlobalMemory,
    lds: &mut Bytes,
    private: u32,
    max_instructions: u64,
    setup: impl FnOnce(&mut Wave),
) -> Result<Wave, SimError> {
    let mut w = Wave::new(size, BASE, Scratch::new(private, size), 0, 32);
    w.exec = Mask(if size == 64 { u64::MAX } else { 0xffff_ffff });
    setup(&mut w);
    run_paths_from(gpu, size, code, mem, lds, max_instructions, w)
}

/// [`run_paths`] from the wave `w` as set up. Not generic: compiled once, not once for
/// each `setup` closure of the tests.
pub fn run_paths_from(
    gpu: Gpu,
    size: u32,
    code: &[u8],
    mem: &GlobalMemory,
    lds: &mut Bytes,
    max_instructions: u64,
    mut w: Wave,
) -> Result<Wave, SimError> {
    let program = Decoder::new(gpu, size == 64).decode_program(code, BASE);
    let prepared = Prepared::new(&program).with_simd(false);
    let simd = Prepared::new(&program).with_simd(true);
    let mem_before = mem.clone();
    let lds_before = lds.clone();
    let mut w_general = w.clone();
    let mut w_simd = w.clone();
    let mut lds_simd = lds.clone();
    let mem_simd = mem.clone();
    let run = |w: &mut Wave, lds: &mut Bytes, mem: &GlobalMemory, prepared| {
        run_to_end(gpu, size, code, w, lds, mem, max_instructions, prepared)
    };
    let r = run(&mut w, lds, mem, Some(&prepared));
    let mut lds_general = lds_before;
    let r_general = run(&mut w_general, &mut lds_general, &mem_before, None);
    assert_eq!(format!("{r:?}"), format!("{r_general:?}"), "results");
    assert_eq!(format!("{w:?}"), format!("{w_general:?}"), "wave states");
    assert_eq!(format!("{lds:?}"), format!("{lds_general:?}"), "LDS");
    assert_eq!(
        format!("{mem:?}"),
        format!("{mem_before:?}"),
        "global memory"
    );
    if simd.simd() {
        let r_simd = run(&mut w_simd, &mut lds_simd, &mem_simd, Some(&simd));
        assert_eq!(format!("{r:?}"), format!("{r_simd:?}"), "results (SIMD)");
        assert_eq!(
            format!("{w:?}"),
            format!("{w_simd:?}"),
            "wave states (SIMD)"
        );
        assert_eq!(format!("{lds:?}"), format!("{lds_simd:?}"), "LDS (SIMD)");
        assert_eq!(format!("{mem:?}"), format!("{mem_simd:?}"), "memory (SIMD)");
    }
    r.map(|()| w)
}

/// A xorshift generator for the random differential tests.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// 32 random bits.
    pub fn u32(&mut self) -> u32 {
        (self.next() >> 16) as u32
    }
    /// A number below `n`.
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
}

/// A random program of `count` instructions that `draw` draws (a draw that
/// decodes to no instruction is drawn again, up to 8 times; only the dwords
/// a decoded instruction takes are kept), ended by `s_endpgm`.
pub fn random_program(
    r: &mut Rng,
    gpu: Gpu,
    size: u32,
    count: u32,
    mut draw: impl FnMut(&mut Rng, &mut Vec<u32>),
) -> Vec<u8> {
    let dec = Decoder::new(gpu, size == 64);
    let mut words: Vec<u32> = Vec::new();
    for _ in 0..count {
        for _ in 0..8 {
            let mut cand = Vec::new();
            draw(r, &mut cand);
            let bytes: Vec<u8> = cand.iter().flat_map(|w| w.to_le_bytes()).collect();
            if let Ok(i) = dec.decode(&bytes).map(|i| (!i.is_invalid()).then_some(i))
                && let Some(i) = i
            {
                words.extend(&cand[..(i.size as usize / 4).min(cand.len())]);
                break;
            }
        }
    }
    words.push(0xbf81_0000); // s_endpgm
    words.iter().flat_map(|w: &u32| w.to_le_bytes()).collect()
}

/// Runs wave `w` of `code` until it stops running or an instruction fails
/// (at most `max_instructions`), through `prepared` when given; returns the
/// first error.
#[allow(clippy::too_many_arguments)]
pub fn run_to_end(
    gpu: Gpu,
    size: u32,
    code: &[u8],
    w: &mut Wave,
    lds: &mut Bytes,
    mem: &GlobalMemory,
    max_instructions: u64,
    prepared: Option<&Prepared>,
) -> Result<(), SimError> {
    let program = Decoder::new(gpu, size == 64).decode_program(code, BASE);
    let ctx = Ctx {
        program: &program,
        mem,
        gpu,
        group: [0; 3],
        max_instructions,
    };
    while w.status == WaveStatus::Running {
        step_with(w, lds, &ctx, prepared)?;
    }
    Ok(())
}
