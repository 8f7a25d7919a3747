//! The pre-resolved memory handlers (`exec::Prepared`: `s_load_dword*`,
//! `s_buffer_load_dword*`, `global_load_dword`, `global_store_dword`,
//! `ds_read_b32`, `ds_write_b32` and their two-address forms, `s_movk_i32`,
//! `s_barrier`, `s_endpgm`) against the general executor on random
//! instruction streams, on gfx900 (wave64) and gfx1030 (wave32 and wave64).
//! Registers hold addresses of every kind: consecutive dwords in one page,
//! scattered lanes, lanes across pages, misaligned, past the end of a buffer,
//! unmapped, outside the LDS; EXEC masks are full, empty or random. Every
//! stream runs through the general executor alone and through the handlers
//! (compiled for the baseline target and, when the host has them, for AVX2
//! and FMA) from the same state; the wave states, the LDS, global memory and
//! the outcome (including any error) must be the same. The buffers are the
//! simulator's own pages, and again host memory mapped at its own address
//! (`GlobalMemory::map_host`), whose bytes the handlers reach through
//! atomics.

use amdgpu_isa::{Decoder, Gpu};
use amdgpu_sim::exec::Prepared;
use amdgpu_sim::memory::{Bytes, GlobalMemory, PAGE, Scratch};
use amdgpu_sim::{Mask, Space, Wave};
use std::sync::atomic::AtomicU32;

use crate::support::{BASE, Rng, random_program, run_to_end};
/// LDS bytes.
const LDS: usize = 256;

/// Size of the big buffer: three pages and a half.
const BIG: u64 = 3 * PAGE + PAGE / 2;

/// A page of host memory.
#[repr(C, align(4096))]
struct HostPage([AtomicU32; 1024]);

/// Page-aligned host memory of `pages` pages.
fn host_pages(pages: usize) -> Box<[HostPage]> {
    (0..pages)
        .map(|_| HostPage(std::array::from_fn(|_| AtomicU32::new(0))))
        .collect()
}

/// Global memory with two buffers of random bytes, `big` ([`BIG`] bytes)
/// and `small` (100 bytes), their first contents, and the host memory
/// behind them when they are host mappings. (Fields drop in order: the
/// memory before the host pages it maps.)
struct Memory {
    mem: GlobalMemory,
    big: u64,
    small: u64,
    init: (Vec<u8>, Vec<u8>),
    host: Option<HostBuffers>,
}

/// The host memory behind `big` and `small`.
type HostBuffers = (Box<[HostPage]>, Box<[HostPage]>);

fn memory(r: &mut Rng, host: bool) -> Memory {
    let mem = GlobalMemory::new();
    let (big, small, host) = if host {
        let (b, s) = (host_pages(4), host_pages(1));
        let (big, small) = (b.as_ptr() as u64, s.as_ptr() as u64);
        // SAFETY: the pages live in the returned `Memory`, which drops its
        // `GlobalMemory` (and with it the mappings) first.
        unsafe {
            mem.map_host(big, BIG).expect("maps");
            mem.map_host(small, 100).expect("maps");
        }
        (big, small, Some((b, s)))
    } else {
        let big = mem.allocate(BIG).expect("allocates");
        (big, mem.allocate(100).expect("allocates"), None)
    };
    let init = (
        (0..BIG).map(|_| r.u32() as u8).collect(),
        (0..100).map(|_| r.u32() as u8).collect(),
    );
    Memory {
        mem,
        big,
        small,
        init,
        host,
    }
}

/// A random memory (or scalar) instruction.
fn inst(r: &mut Rng, gfx10: bool, out: &mut Vec<u32>) {
    let v = |r: &mut Rng| r.below(12);
    match r.below(10) {
        // SMEM loads: s_load_dword{,x2,x4,x8,x16} (0..4), s_buffer_load (8..12).
        0 | 1 => {
            let op = [0, 1, 2, 3, 4, 8, 9, 10][r.below(8) as usize];
            let sdata = r.below(24);
            let sbase = r.below(8);
            let offset = match r.below(3) {
                0 => r.below(16) * 4,
                1 => r.below(64),
                _ => r.below(0x2000),
            };
            if gfx10 {
                let soff = if r.below(3) == 0 { r.below(12) } else { 0x7d };
                out.push(0xf400_0000 | op << 18 | sdata << 6 | sbase);
                out.push(soff << 25 | offset);
            } else {
                let imm = u32::from(r.below(4) != 0);
                let soe = if r.below(4) == 0 { 1 << 14 } else { 0 };
                out.push(0xc000_0000 | op << 18 | imm << 17 | soe | sdata << 6 | sbase);
                let w1 = if imm == 1 {
                    offset | if soe != 0 { r.below(12) << 25 } else { 0 }
                } else {
                    r.below(12)
                };
                out.push(w1);
            }
        }
        // global_load_dword / global_store_dword, with or without an SGPR base.
        2..=5 => {
            let store = r.below(2) == 0;
            let op = match (store, gfx10) {
                (true, _) => 28,
                (false, true) => 12,
                (false, false) => 20,
            };
            let offset = match r.below(3) {
                0 => 0,
                1 => r.below(16) * 4,
                _ => r.u32(),
            } & if gfx10 { 0xfff } else { 0x1fff };
            let off_code = if gfx10 { 0x7d } else { 0x7f };
            let saddr = if r.below(3) == 0 {
                2 * r.below(6)
            } else {
                off_code
            };
            out.push(0xdc00_0000 | op << 18 | 2 << 14 | offset);
            out.push(v(r) << 24 | saddr << 16 | v(r) << 8 | (2 * r.below(6)));
        }
        // ds_read_b32 (54), ds_write_b32 (13), ds_read2_b32 (55),
        // ds_read2st64_b32 (56), ds_write2_b32 (14), ds_write2st64_b32 (15).
        6..=8 => {
            let op = [54, 13, 55, 56, 14, 15][r.below(6) as usize];
            let (o0, o1) = match r.below(3) {
                0 => (0, 0),
                1 => (r.below(8), r.below(8)),
                _ => (r.below(256), r.below(256)),
            };
            out.push(0xd800_0000 | op << 17 | o1 << 8 | o0);
            out.push(v(r) << 24 | v(r) << 16 | v(r) << 8 | v(r));
        }
        // s_movk_i32, s_barrier, or a VALU move of an address register.
        _ => match r.below(3) {
            0 => out.push(0xb000_0000 | r.below(16) << 16 | r.below(0x1_0000)),
            1 => out.push(0xbf8a_0000),
            _ => out.push(0x7e00_0200 | v(r) << 17 | (256 + v(r))),
        },
    }
}

/// Everything a run leaves, printed, and the instructions it executed.
#[derive(Debug)]
struct Outcome(String, u64);

/// Runs `code` from `w0` and `lds0` on the buffers of `m` holding their
/// first contents (a copy of the memory, or the host mappings rewritten).
fn run(
    gpu: Gpu,
    size: u32,
    code: &[u8],
    w0: &Wave,
    m: &Memory,
    lds0: &Bytes,
    prepared: Option<&Prepared>,
) -> Outcome {
    let copy;
    let mem = if m.host.is_some() {
        &m.mem
    } else {
        copy = m.mem.clone();
        &copy
    };
    mem.write(m.big, &m.init.0).expect("writes");
    mem.write(m.small, &m.init.1).expect("writes");
    let mut lds = lds0.clone();
    let mut w = w0.clone();
    let r = run_to_end(gpu, size, code, &mut w, &mut lds, mem, 200, prepared);
    let mut big = vec![0u8; BIG as usize];
    mem.read(m.big, &mut big).expect("reads");
    let mut small = vec![0u8; 100];
    mem.read(m.small, &mut small).expect("reads");
    Outcome(
        format!("{r:?}\n{w:?}\n{lds:?}\n{big:?}\n{small:?}"),
        w.executed,
    )
}

/// An address for lane `lane` of a register pair set up in `mode`.
fn lane_addr(r: &mut Rng, mode: u32, lane: u64, big: u64, small: u64) -> u64 {
    match mode {
        // Consecutive dwords from a page start, or from inside a page.
        0 => big + 4 * lane,
        1 => big + PAGE + 64 + 4 * lane,
        // Consecutive dwords running across a page boundary.
        2 => big + PAGE - 100 + 4 * lane,
        // Scattered in one page, aligned or not.
        3 => big + 2 * PAGE + u64::from(r.below(1024)) * 4,
        4 => big + u64::from(r.below(PAGE as u32 - 4)),
        // The small buffer, past its end now and then.
        5 => small + u64::from(r.below(26)) * 4,
        // The tail of the big buffer (its last page is half allocated).
        6 => big + 3 * PAGE + u64::from(r.below(PAGE as u32 / 2 + 64)),
        // Strided across pages.
        7 => big + lane * 68,
        // Anything.
        _ => r.next(),
    }
}

/// Random programs on the simulator's own pages: `cargo test` runs the first third of
/// the cases, `..._on_every_case` (which `.ci/run` runs) the others.
#[test]
fn fast_memory_handlers_agree_with_the_general_executor() {
    differential(false, 0..2_000);
}

#[test]
#[ignore = "the other cases: run by .ci/run with --ignored"]
fn fast_memory_handlers_agree_with_the_general_executor_on_every_case() {
    differential(false, 2_000..6_000);
}

/// The same on buffers of host memory mapped at its own address.
#[test]
fn fast_memory_handlers_agree_on_host_memory() {
    differential(true, 0..1_000);
}

#[test]
#[ignore = "the other cases: run by .ci/run with --ignored"]
fn fast_memory_handlers_agree_on_host_memory_on_every_case() {
    differential(true, 1_000..3_000);
}

/// The random programs `cases` (of one random sequence: the cases before them are drawn
/// and not run), each run through the general executor and the handlers: on host
/// mappings (`host`) or the simulator's own pages.
fn differential(host: bool, cases: std::ops::Range<usize>) {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let mut handled = 0usize;
    let mut executed = 0u64;
    let count = cases.len();
    for case in 0..cases.end {
        let (gpu, size) = [(Gpu::Gfx900, 64), (Gpu::Gfx1030, 32), (Gpu::Gfx1030, 64)][case % 3];
        let gfx10 = gpu == Gpu::Gfx1030;
        let count = 1 + r.below(8);
        let code = random_program(&mut r, gpu, size, count, |r, out| inst(r, gfx10, out));
        let m = memory(&mut r, host);
        let (big, small) = (m.big, m.small);
        let mut lds = Bytes::new(LDS, Space::Lds);
        let fill: Vec<u8> = (0..LDS).map(|_| r.u32() as u8).collect();
        lds.write(0, &fill).expect("writes");

        let mut w = Wave::new(size, BASE, Scratch::new(0, size), 0, 32);
        let full = if size == 64 { u64::MAX } else { 0xffff_ffff };
        w.exec = Mask(match r.below(4) {
            0 | 1 => full,
            2 => 0,
            _ => r.next() & full,
        });
        w.scc = r.below(2) == 0;
        w.m0 = r.u32();
        // SGPR pairs: buffer addresses (sometimes off by a little), or
        // anything; the rest random.
        for p in 0..12 {
            let a = match r.below(4) {
                0 => big + u64::from(r.below(64)),
                1 => small + u64::from(r.below(128)),
                2 => big + PAGE - 8,
                _ => r.next(),
            };
            w.sgpr[2 * p] = a as u32;
            w.sgpr[2 * p + 1] = (a >> 32) as u32;
        }
        for p in 0..6 {
            // VGPR pairs: 64-bit addresses; or 32-bit offsets (global
            // offsets from an SGPR base, LDS addresses).
            let mode = r.below(10);
            let lds_mode = r.below(4);
            for lane in 0..64 {
                if r.below(3) == 0 {
                    let o = match lds_mode {
                        0 => 4 * lane as u32,
                        1 => r.below(LDS as u32 / 4) * 4,
                        2 => r.below(LDS as u32 + 16),
                        _ => r.u32(),
                    };
                    w.vgpr[2 * p][lane] = o;
                    w.vgpr[2 * p + 1][lane] = r.below(LDS as u32 / 4) * 4;
                } else {
                    let a = lane_addr(&mut r, mode, lane as u64, big, small);
                    w.vgpr[2 * p][lane] = a as u32;
                    w.vgpr[2 * p + 1][lane] = (a >> 32) as u32;
                }
            }
        }
        if r.below(16) == 0 {
            // GFX9 VGPR indexing on: vector memory instructions are refused.
            w.hwreg[1] |= 1 << 27;
        }
        if case < cases.start {
            continue;
        }
        let program = Decoder::new(gpu, size == 64).decode_program(&code, BASE);
        let portable = Prepared::new(&program).with_simd(false);
        let simd = Prepared::new(&program).with_simd(true);
        handled += portable.handled();
        let general = run(gpu, size, &code, &w, &m, &lds, None);
        let fast = run(gpu, size, &code, &w, &m, &lds, Some(&portable));
        executed += fast.1;
        assert_eq!(
            general.0, fast.0,
            "case {case} ({gpu:?} wave{size}): {code:02x?}"
        );
        if simd.simd() {
            let fast_simd = run(gpu, size, &code, &w, &m, &lds, Some(&simd));
            assert_eq!(
                general.0, fast_simd.0,
                "case {case} ({gpu:?} wave{size}, SIMD): {code:02x?}"
            );
        }
    }
    let enough = count * 5 / 3;
    assert!(
        handled > enough,
        "only {handled} instructions had a fast handler"
    );
    assert!(
        executed > enough as u64,
        "only {executed} instructions executed"
    );
    eprintln!("{handled} instructions with a fast handler, {executed} executed");
}
