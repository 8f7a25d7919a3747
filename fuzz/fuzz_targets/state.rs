//! The RON wave state parser (`amdsim dwarf eval --state`) on arbitrary text,
//! and building its target and program data.
#![no_main]

use amdgpu_dwarf::op::DecodeOptions;
use amdgpu_dwarf::state::State;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(st) = State::parse(text)
    {
        let _ = st.target();
        let _ = st.context(&DecodeOptions::default());
    }
});
