//! The harness the instruction classes share (a program run through every
//! execution path, see `support::run_paths`) and the input and reference
//! helpers more than one class uses.

pub(crate) use crate::support::{self, BASE};
pub(crate) use amdgpu_isa::Gpu;
pub(crate) use amdgpu_sim::memory::{Bytes, GlobalMemory};
pub(crate) use amdgpu_sim::{Mask, OrderedTurn, SimError, Space, Wait, Wave, WaveStatus};

pub(crate) fn run(
    gpu: Gpu,
    size: u32,
    code: &[u8],
    setup: impl FnOnce(&mut Wave),
) -> Result<Wave, SimError> {
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(0, Space::Lds);
    run_in(gpu, size, code, &mem, &mut lds, 0, setup)
}

pub(crate) fn run_in(
    gpu: Gpu,
    size: u32,
    code: &[u8],
    mem: &GlobalMemory,
    lds: &mut Bytes,
    private: u32,
    setup: impl FnOnce(&mut Wave),
) -> Result<Wave, SimError> {
    support::run_paths(gpu, size, code, mem, lds, private, 1000, setup)
}

/// Interesting f16 inputs: zeros, denormals, the largest finite value,
/// infinities, quiet and signalling NaNs, halves, negatives.
pub(crate) const HALVES: [u16; 32] = [
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3400, 0x0001, 0x03ff, 0x8200, 0x7bff, 0xfbff, 0x7c00,
    0xfc00, 0x7e00, 0x7d01, 0xfe33, 0x4100, 0xc100, 0x2e66, 0x4200, 0x5640, 0xb800, 0x4b00, 0x0400,
    0x4c00, 0xcc00, 0xce40, 0x3555, 0x4e00, 0xd400, 0x3bff, 0x2001,
];

pub(crate) fn hv(h: u16) -> f64 {
    amdgpu_sim::alu::f16_to_f32(h) as f64
}

pub(crate) fn is_nan16(h: u16) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
}

pub(crate) fn same_f32(a: u32, b: f32) -> bool {
    a == b.to_bits() || f32::from_bits(a).is_nan() && b.is_nan()
}

/// A deterministic pseudo-random dword for `lane` and `salt`.
pub(crate) fn mix(lane: usize, salt: u32) -> u32 {
    let mut x = (lane as u64) << 32 | salt as u64;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (x ^ (x >> 31)) as u32
}

/// Lane values for the operation tests: lane 0 is chosen by hand, the others
/// vary every byte and sign.
pub(crate) fn lane_value(l: usize, salt: u32) -> u32 {
    let x = (l as u32 + 1).wrapping_mul(0x9e37_79b9) ^ salt;
    x ^ (x >> 15).wrapping_mul(0x85eb_ca6b)
}
