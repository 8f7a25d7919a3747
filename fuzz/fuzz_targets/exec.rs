//! The executor on random instruction streams: the `.text` of a valid code
//! object (gfx900 or gfx1030 vector_add, by the first byte) is replaced by the
//! input, loaded, and one work-group of 64 work-items runs under an
//! instruction cap. Every outcome is a result or a typed error, never a panic.
#![no_main]

use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use libfuzzer_sys::fuzz_target;

const GFX900: &[u8] = include_bytes!("../../kernels/bin/gfx900/vector_add.co");
const GFX1030: &[u8] = include_bytes!("../../kernels/bin/gfx1030/vector_add.co");

/// The code object with its `.text` overwritten by `code` (the rest of the
/// text left as it was). Parsed from a heap copy: the ELF reader needs its
/// headers aligned, which `include_bytes!` does not promise.
fn with_code(co: &[u8], code: &[u8]) -> Option<Vec<u8>> {
    let mut out = co.to_vec();
    let (start, len) = {
        let parsed = amdgpu_codeobj::CodeObject::parse(&out).ok()?;
        let text = parsed.text().bytes;
        (text.as_ptr() as usize - out.as_ptr() as usize, text.len())
    };
    let n = code.len().min(len);
    out[start..start + n].copy_from_slice(&code[..n]);
    Some(out)
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, code)) = data.split_first() else {
        return;
    };
    let base = if sel & 1 == 0 { GFX900 } else { GFX1030 };
    let Some(co) = with_code(base, code) else {
        return;
    };
    let dev = Device::new();
    let Ok(module) = dev.load(&co) else {
        return;
    };
    let mut bufs = Vec::new();
    for _ in 0..3 {
        match dev.alloc(256) {
            Ok(a) => bufs.push(ArgValue::Ptr(a)),
            Err(_) => return,
        }
    }
    bufs.push(ArgValue::U32(u32::from(sel >> 1)));
    let mut cfg = LaunchConfig::new_1d(64, 64, bufs);
    cfg.max_instructions = 2_000;
    let Ok(launch) = dev.launch(&module, "vector_add", cfg) else {
        return;
    };
    if let Ok(mut wg) = launch.workgroup([0, 0, 0]) {
        let _ = wg.run(&launch, &dev.mem);
    }
});
