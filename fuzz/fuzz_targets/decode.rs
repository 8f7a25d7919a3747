//! The instruction decoder and its text on arbitrary bytes, for every GPU and
//! wave size (chosen by the first byte).
#![no_main]

use amdgpu_isa::{Decoder, Gpu};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, code)) = data.split_first() else {
        return;
    };
    let gpu = Gpu::ALL[sel as usize % Gpu::ALL.len()];
    let dec = Decoder::new(gpu, sel & 0x80 != 0);
    let program = dec.decode_program(code, 0x1000);
    for (_, inst) in program.iter() {
        let _ = inst.to_string();
    }
});
