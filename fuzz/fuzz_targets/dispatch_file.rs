//! The RON dispatch file parser and its checks on arbitrary text.
#![no_main]

use amdsim_host::dispatch_file::DispatchFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(d) = DispatchFile::parse(text, "/nonexistent", "fuzz.ron")
    {
        let _ = d.validate();
    }
});
