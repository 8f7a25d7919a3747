//! Values shown as their DWARF type.

/// A variable's bytes shown as its DWARF type, by the type's name: floats as floats,
/// signed integers as signed, unsigned ones and pointers as unsigned (pointers in hex).
/// A type it does not know, or a size that does not match, is shown in hex, so that a
/// value is never shown as something it is not.
pub fn typed_value(type_name: Option<&str>, bytes: &[u8]) -> String {
    if bytes.len() > 8 || bytes.is_empty() {
        // arrays and structs: their bytes follow
        return format!(
            "<{} bytes{}>",
            bytes.len(),
            type_name.map(|t| format!(" of {t}")).unwrap_or_default()
        );
    }
    let mut le = [0u8; 8];
    let n = bytes.len().min(8);
    le[..n].copy_from_slice(&bytes[..n]);
    let raw = u64::from_le_bytes(le);
    let hex = || format!("0x{raw:0w$x}", w = 2 * n);
    let Some(name) = type_name else {
        return hex();
    };
    // Qualifiers and address-space keywords do not change how a value reads.
    let mut base = name.trim();
    for q in [
        "const ",
        "volatile ",
        "__private ",
        "__global ",
        "__local ",
        "__constant ",
    ] {
        base = base.trim_start_matches(q);
    }
    if base.ends_with('*') && matches!(bytes.len(), 4 | 8) {
        return format!("{raw:#x}");
    }
    let signed = |bits: u32| {
        let v = (raw << (64 - bits)) as i64 >> (64 - bits);
        v.to_string()
    };
    match (base, bytes.len()) {
        // As gdb prints them: C's %.9g and %.17g (`2`, `6.5`, `3.1400001`).
        ("float", 4) => crate::present::float_text(f64::from(f32::from_bits(raw as u32)), 4),
        ("double", 8) => crate::present::float_text(f64::from_bits(raw), 8),
        ("bool" | "_Bool", 1) => (raw != 0).to_string(),
        (
            "char" | "signed char" | "short" | "int" | "long" | "long long" | "ptrdiff_t"
            | "intptr_t",
            len @ (1 | 2 | 4 | 8),
        ) => signed(8 * len as u32),
        (
            "uchar" | "unsigned char" | "ushort" | "unsigned short" | "uint" | "unsigned int"
            | "ulong" | "unsigned long" | "unsigned long long" | "size_t" | "uintptr_t",
            1 | 2 | 4 | 8,
        ) => raw.to_string(),
        _ => hex(),
    }
}

#[cfg(test)]
mod tests {
    use super::typed_value;

    #[test]
    fn values_show_as_their_type() {
        let d = (-94.85216903686523f64).to_le_bytes();
        // C's printf("%.17g"), as gdb prints a double
        assert_eq!(typed_value(Some("double"), &d), "-94.852169036865234");
        assert_eq!(typed_value(Some("float"), &1.5f32.to_le_bytes()), "1.5");
        assert_eq!(typed_value(Some("int"), &(-3i32).to_le_bytes()), "-3");
        assert_eq!(typed_value(Some("char"), &[0xff]), "-1");
        assert_eq!(
            typed_value(Some("uint"), &(-3i32).to_le_bytes()),
            "4294967293"
        );
        assert_eq!(typed_value(Some("const ulong"), &7u64.to_le_bytes()), "7");
        assert_eq!(
            typed_value(Some("__global float *"), &0x7f00_0000_1000u64.to_le_bytes()),
            "0x7f0000001000"
        );
        // a size that does not match the type, an unknown type: hex, never a guess
        assert_eq!(typed_value(Some("double"), &[1, 0, 0, 0]), "0x00000001");
        assert_eq!(
            typed_value(Some("float2"), &[0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]),
            "0x400000003f800000"
        );
        assert_eq!(typed_value(None, &[0x2a]), "0x2a");
        assert_eq!(
            typed_value(Some("uint[8]"), &[0; 32]),
            "<32 bytes of uint[8]>"
        );
    }
}
