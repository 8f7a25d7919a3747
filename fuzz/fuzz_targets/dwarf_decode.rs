//! The DWARF expression decoder and printer on arbitrary bytes, in every
//! dialect (chosen by the first byte); what prints also parses back.
#![no_main]

use amdgpu_dwarf::op::{DecodeOptions, Dialect, Expr, Extensions};
use amdgpu_dwarf::text::{assemble, print_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let o = DecodeOptions {
        dialect: match sel % 3 {
            0 => Dialect::User,
            1 => Dialect::SingleByte,
            _ => Dialect::SeedTable,
        },
        extensions: if sel & 4 != 0 {
            Extensions::proposals()
        } else {
            Extensions::default()
        },
        offset_size: if sel & 8 != 0 { 8 } else { 4 },
        ..DecodeOptions::default()
    };
    if Expr::decode(bytes, &o).is_ok() {
        let text = print_bytes(bytes, None, &o);
        let _ = assemble(&text, 64, &o);
    }
});
