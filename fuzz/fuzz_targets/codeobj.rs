//! The code object loader on arbitrary bytes: parsing, and loading into a
//! device (segments mapped, `.text` decoded) never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(co) = amdgpu_codeobj::CodeObject::parse(data) {
        let _ = co.target().target_id();
        for k in co.kernels() {
            let _ = k.descriptor.initial_sgprs();
            let _ = k.descriptor.workitem_id_layout();
        }
        let _ = co.symbols().len();
        let dev = amdgpu_sim::Device::new();
        let _ = dev.load(data);
    }
});
