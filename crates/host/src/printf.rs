//! OpenCL `printf` through the printf buffer (the buffered scheme of the AMDGPU code
//! object: LLVM AMDGPU usage guide, "Code Object V3 Metadata" `amdhsa.printf` and the
//! hidden argument `hidden_printf_buffer`).
//!
//! The compiler replaces each `printf` call by a call to the device library's
//! `__printf_alloc(bytes)`, which reserves a record in the buffer the hidden argument
//! points to, and by stores of the record: a 32-bit format-string id followed by the
//! arguments, each of the size the metadata gives. The buffer starts with two 32-bit
//! words: the bytes used so far (advanced atomically) and the buffer's size, header
//! included (`__printf_alloc` refuses a record that would not fit, and `printf` then
//! returns -1). `amdhsa.printf` holds one string per format, `ID:N:S1:...:SN:FORMAT`,
//! with the format's `:` and control characters escaped as in C (`\72`, `\n`).
//!
//! The device only carries the raw pieces: the code object reader decodes the formats
//! ([`amdgpu_codeobj::metadata::parse_printf_formats`], kept in
//! [`amdgpu_sim::Module::printf`]), and a launch of a kernel that takes the hidden
//! argument allocates the buffer ([`amdgpu_sim::Launch::printf_buffer`],
//! [`PRINTF_BUFFER_SIZE`] bytes). This module reads it.
//!
//! After a dispatch, [`output`] reads the records in buffer order and formats each with
//! the C99 / OpenCL C conversion rules (flags `-+ #0`, width, precision, the length
//! modifiers `hh h hl l`, the vector specifier `vN`, conversions `d i o u x X c s f F e
//! E g G a A p %`); records whose id or arguments do not match the metadata are typed
//! errors, never guessed. OpenCL leaves the order of the output of different
//! work-items unspecified; the buffer order is that of the reservations.

use amdgpu_codeobj::PrintfFormat;
use amdgpu_sim::{GlobalMemory, Launch};

pub use amdgpu_sim::dispatch::PRINTF_BUFFER_SIZE;

/// Why the printf output could not be produced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrintfError {
    /// The buffer's header says more bytes were used than it holds.
    #[error("the printf buffer's header says {used} bytes were used of {size}")]
    BadHeader {
        /// Bytes used.
        used: u32,
        /// Bytes available.
        size: u32,
    },
    /// A record's id has no format.
    #[error("printf record at buffer offset {offset:#x}: no format has id {id}")]
    UnknownId {
        /// Offset of the record in the buffer.
        offset: u32,
        /// Its id.
        id: u32,
    },
    /// A record runs past the bytes used.
    #[error("printf record at buffer offset {offset:#x} runs past the bytes used")]
    Truncated {
        /// Offset of the record.
        offset: u32,
    },
    /// A format does not agree with its arguments.
    #[error("printf format {id} (`{format}`): {why}")]
    Format {
        /// The format's id.
        id: u32,
        /// The format string.
        format: String,
        /// What is wrong.
        why: String,
    },
    /// The buffer could not be read.
    #[error("printf buffer: {0}")]
    Memory(String),
}

/// The text of the `printf` calls of a dispatch, read from its printf buffer after the
/// run (`None`: the kernel takes no printf buffer).
pub fn launch_output(launch: &Launch, mem: &GlobalMemory) -> Option<Result<String, PrintfError>> {
    let b = launch.printf_buffer?;
    Some(output(mem, b, &launch.printf_formats, launch.image.clone()))
}

/// The text the records of the printf buffer at `buffer` produce, in buffer order;
/// `image` is the address range of the loaded code object (where the literal strings a
/// `%s` argument may point to are).
pub fn output(
    mem: &GlobalMemory,
    buffer: u64,
    formats: &[PrintfFormat],
    image: std::ops::Range<u64>,
) -> Result<String, PrintfError> {
    let mut header = [0u8; 8];
    mem.read(buffer, &mut header)
        .map_err(|e| PrintfError::Memory(e.to_string()))?;
    let used = u32::from_le_bytes(header[..4].try_into().unwrap_or_default());
    let size = u32::from_le_bytes(header[4..].try_into().unwrap_or_default());
    if u64::from(used) + 8 > u64::from(size) {
        return Err(PrintfError::BadHeader { used, size });
    }
    let mut data = vec![0u8; used as usize];
    mem.read(buffer + 8, &mut data)
        .map_err(|e| PrintfError::Memory(e.to_string()))?;
    let mut out = String::new();
    let mut at = 0usize;
    while at < data.len() {
        let offset = at as u32;
        let id_bytes = data
            .get(at..at + 4)
            .ok_or(PrintfError::Truncated { offset })?;
        let id = u32::from_le_bytes(id_bytes.try_into().unwrap_or_default());
        let f = formats
            .iter()
            .find(|f| f.id == id)
            .ok_or(PrintfError::UnknownId { offset, id })?;
        at += 4;
        let mut args = Vec::with_capacity(f.arg_sizes.len());
        for &s in &f.arg_sizes {
            let end = at
                .checked_add(s as usize)
                .filter(|&e| e <= data.len())
                .ok_or(PrintfError::Truncated { offset })?;
            args.push(&data[at..end]);
            at = end;
        }
        let read_str = |addr: u64| image.contains(&addr).then(|| read_c_string(mem, addr));
        out.push_str(&format(f, &args, &read_str)?);
    }
    Ok(out)
}

/// The longest string a `%s` pointer argument is read for.
pub const MAX_STRING: usize = 4096;

/// A NUL-terminated string at `addr` of global memory (a `%s` argument the compiler
/// could not copy into the record: a pointer to it).
fn read_c_string(mem: &GlobalMemory, addr: u64) -> Result<String, String> {
    let mut out = Vec::new();
    let mut b = [0u8; 1];
    for k in 0..MAX_STRING as u64 {
        mem.read(addr.wrapping_add(k), &mut b)
            .map_err(|e| format!("the string at {addr:#x}: {e}"))?;
        if b[0] == 0 {
            return Ok(String::from_utf8_lossy(&out).into_owned());
        }
        out.push(b[0]);
    }
    Err(format!(
        "the string at {addr:#x} is longer than {MAX_STRING} bytes"
    ))
}

/// One conversion specification.
#[derive(Clone, Copy, Debug, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    /// Vector length (`%vN`), 0 for a scalar.
    vector: usize,
    /// Length modifier: element bytes (0: none).
    length: usize,
    conv: u8,
}

fn le_u64(b: &[u8]) -> u64 {
    let mut v = [0u8; 8];
    let n = b.len().min(8);
    v[..n].copy_from_slice(&b[..n]);
    u64::from_le_bytes(v)
}

fn pad(s: String, sp: &Spec, numeric_prefix: usize) -> String {
    let len = s.chars().count();
    if len >= sp.width {
        return s;
    }
    let fill = sp.width - len;
    if sp.left {
        format!("{s}{}", " ".repeat(fill))
    } else if sp.zero && numeric_prefix <= s.len() {
        let (pre, digits) = s.split_at(numeric_prefix);
        format!("{pre}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{s}", " ".repeat(fill))
    }
}

fn sign_prefix(neg: bool, sp: &Spec) -> &'static str {
    if neg {
        "-"
    } else if sp.plus {
        "+"
    } else if sp.space {
        " "
    } else {
        ""
    }
}

fn integer(bytes: &[u8], bits: usize, sp: &Spec) -> String {
    let raw = le_u64(bytes)
        & if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
    let signed = matches!(sp.conv, b'd' | b'i');
    let (neg, mag) = if signed && bits > 0 && raw >> (bits - 1) & 1 == 1 {
        let v = if bits >= 64 {
            raw as i64
        } else {
            ((raw << (64 - bits)) as i64) >> (64 - bits)
        };
        (true, v.unsigned_abs())
    } else {
        (false, raw)
    };
    let mut digits = match sp.conv {
        b'o' => format!("{mag:o}"),
        b'x' => format!("{mag:x}"),
        b'X' => format!("{mag:X}"),
        _ => format!("{mag}"),
    };
    if let Some(p) = sp.precision {
        if p == 0 && mag == 0 {
            digits.clear();
        } else if digits.len() < p {
            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
    }
    let mut prefix = sign_prefix(neg, sp).to_string();
    if sp.alt {
        match sp.conv {
            b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
            b'x' if mag != 0 => prefix.push_str("0x"),
            b'X' if mag != 0 => prefix.push_str("0X"),
            _ => {}
        }
    }
    let plen = prefix.len();
    let s = Spec {
        zero: sp.zero && sp.precision.is_none(),
        ..*sp
    };
    pad(format!("{prefix}{digits}"), &s, plen)
}

/// `%e` digits: mantissa with `p` decimals and a two-digit (at least) exponent.
fn exp_form(x: f64, p: usize, upper: bool) -> String {
    let s = format!("{x:.p$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let es = if e < 0 { '-' } else { '+' };
    let r = format!("{m}e{es}{:02}", e.unsigned_abs());
    if upper { r.to_uppercase() } else { r }
}

fn strip_zeros(s: &str) -> String {
    let (m, e) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    if !m.contains('.') {
        return s.to_string();
    }
    let m = m.trim_end_matches('0').trim_end_matches('.');
    format!("{m}{e}")
}

/// `%a`: hexadecimal floating point, `p` hex digits after the point (`None`: exact).
fn hex_form(x: f64, p: Option<usize>, upper: bool) -> String {
    let bits = x.abs().to_bits();
    let (mut lead, mut mant, mut exp) = if x == 0.0 {
        (0u64, 0u64, 0i64)
    } else if bits >> 52 == 0 {
        (0, bits & ((1 << 52) - 1), -1022)
    } else {
        (1, bits & ((1 << 52) - 1), (bits >> 52) as i64 - 1023)
    };
    let digits = match p {
        None => {
            let mut d = 13;
            while d > 0 && mant & 0xf == 0 {
                mant >>= 4;
                d -= 1;
            }
            d
        }
        Some(p) if p >= 13 => {
            let d = p;
            let s = format!("{mant:013x}{}", "0".repeat(d - 13));
            let r = format!(
                "0x{lead}{}{s}p{}{}",
                if d > 0 { "." } else { "" },
                if exp < 0 { '-' } else { '+' },
                exp.abs()
            );
            return if upper { r.to_uppercase() } else { r };
        }
        Some(p) => {
            // Round the 52-bit fraction to 4p bits, ties to even.
            let drop = 52 - 4 * p as u32;
            let full = (lead << 52) | mant;
            let half = 1u64 << (drop - 1);
            let rest = full & ((1u64 << drop) - 1);
            let mut kept = full >> drop;
            if rest > half || rest == half && kept & 1 == 1 {
                kept += 1;
            }
            lead = kept >> (4 * p);
            mant = kept & ((1u64 << (4 * p)) - 1);
            if lead >= 2 {
                lead = 1;
                mant >>= 1;
                exp += 1;
            }
            p
        }
    };
    let frac = if digits == 0 {
        String::new()
    } else {
        format!(".{mant:0digits$x}")
    };
    let r = format!(
        "0x{lead}{frac}p{}{}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    );
    if upper { r.to_uppercase() } else { r }
}

fn float(x: f64, sp: &Spec) -> String {
    let upper = sp.conv.is_ascii_uppercase();
    let neg = x.is_sign_negative() && !x.is_nan();
    let prefix = sign_prefix(neg, sp);
    let a = x.abs();
    if !x.is_finite() {
        let t = if x.is_nan() { "nan" } else { "inf" };
        let t = if upper {
            t.to_uppercase()
        } else {
            t.to_string()
        };
        let mut s = *sp;
        s.zero = false;
        return pad(format!("{prefix}{t}"), &s, 0);
    }
    let p = sp.precision.unwrap_or(6);
    let body = match sp.conv {
        b'f' | b'F' => {
            let s = format!("{a:.p$}");
            if sp.alt && p == 0 { format!("{s}.") } else { s }
        }
        b'e' | b'E' => {
            let s = exp_form(a, p, upper);
            if sp.alt && p == 0 {
                s.replacen('e', ".e", 1).replacen('E', ".E", 1)
            } else {
                s
            }
        }
        b'g' | b'G' => {
            let p = if p == 0 { 1 } else { p };
            let e = exp_form(a, p - 1, false);
            let x_exp: i64 = e
                .rsplit_once('e')
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let s = if (x_exp as i128) < p as i128 && x_exp >= -4 {
                let q = (p as i64 - 1 - x_exp) as usize;
                format!("{a:.q$}")
            } else {
                exp_form(a, p - 1, upper)
            };
            if sp.alt { s } else { strip_zeros(&s) }
        }
        _ => hex_form(a, sp.precision, upper),
    };
    let plen = prefix.len() + if matches!(sp.conv, b'a' | b'A') { 2 } else { 0 };
    pad(format!("{prefix}{body}"), sp, plen)
}

/// A string reader for `%s` arguments: `None` when the value is no address of the code
/// object's image (so the argument holds the string itself), else the string there.
type ReadStr<'a> = &'a dyn Fn(u64) -> Option<Result<String, String>>;

/// Formats one record.
fn format(f: &PrintfFormat, args: &[&[u8]], read_str: ReadStr) -> Result<String, PrintfError> {
    let err = |why: String| PrintfError::Format {
        id: f.id,
        format: f.format.clone(),
        why,
    };
    let b = f.format.as_bytes();
    let mut out = String::new();
    let mut lit = Vec::new();
    let mut next = 0usize;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            lit.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        if b.get(i) == Some(&b'%') {
            lit.push(b'%');
            i += 1;
            continue;
        }
        out.push_str(&String::from_utf8_lossy(&lit));
        lit.clear();
        let sp = parse_spec(b, &mut i).map_err(err)?;
        let arg = *args
            .get(next)
            .ok_or_else(|| err(format!("no argument for conversion {}", next + 1)))?;
        next += 1;
        out.push_str(&convert(&sp, arg, read_str).map_err(err)?);
    }
    out.push_str(&String::from_utf8_lossy(&lit));
    if next != args.len() {
        return Err(err(format!(
            "{} argument(s) for {next} conversion(s)",
            args.len()
        )));
    }
    Ok(out)
}

/// A decimal number at `b[*i..]` (none: 0), saturating; `*i` moves past it.
fn decimal(b: &[u8], i: &mut usize) -> usize {
    let mut n = 0usize;
    while let Some(&c @ b'0'..=b'9') = b.get(*i) {
        n = n.saturating_mul(10).saturating_add(usize::from(c - b'0'));
        *i += 1;
    }
    n
}

/// The conversion specification after a `%` at `b[*i..]`: flags, width, precision,
/// OpenCL's vector length, the length modifier and the conversion; `*i` moves past it.
fn parse_spec(b: &[u8], i: &mut usize) -> Result<Spec, String> {
    let mut sp = Spec::default();
    while let Some(&c) = b.get(*i) {
        match c {
            b'-' => sp.left = true,
            b'+' => sp.plus = true,
            b' ' => sp.space = true,
            b'#' => sp.alt = true,
            b'0' => sp.zero = true,
            _ => break,
        }
        *i += 1;
    }
    sp.width = decimal(b, i);
    if b.get(*i) == Some(&b'.') {
        *i += 1;
        sp.precision = Some(decimal(b, i));
    }
    if b.get(*i) == Some(&b'v') {
        *i += 1;
        let n = decimal(b, i);
        if ![2, 3, 4, 8, 16].contains(&n) {
            return Err(format!("vector length {n}"));
        }
        sp.vector = n;
    }
    let rest = &b[*i..];
    let (len, skip) = [
        (&b"hh"[..], 1, 2),
        (b"hl", 4, 2),
        (b"h", 2, 1),
        (b"ll", 8, 2),
        (b"l", 8, 1),
    ]
    .into_iter()
    .find(|(m, _, _)| rest.starts_with(m))
    .map_or((0, 0), |(_, len, skip)| (len, skip));
    sp.length = len;
    *i += skip;
    let Some(&conv) = b.get(*i) else {
        return Err("a conversion specification without a conversion".into());
    };
    *i += 1;
    if !b"diouxXcsfFeEgGaAp".contains(&conv) {
        return Err(format!("conversion `%{}`", conv as char));
    }
    sp.conv = conv;
    Ok(sp)
}

/// One conversion of `arg`: a scalar, or each element of an OpenCL vector (`%vN`)
/// joined by commas.
fn convert(sp: &Spec, arg: &[u8], read_str: ReadStr) -> Result<String, String> {
    if sp.vector == 0 {
        return convert_one(sp, arg, arg.len(), read_str);
    }
    if matches!(sp.conv, b's' | b'c' | b'p') {
        return Err(format!("a vector of %{}", sp.conv as char));
    }
    let slots = if sp.vector == 3 { 4 } else { sp.vector };
    // Without a length modifier the elements are what the argument holds.
    let elem = if sp.length == 0 {
        arg.len() / slots
    } else {
        sp.length
    };
    if arg.len() != slots * elem {
        return Err(format!(
            "a {}-byte argument for %v{} of {elem}-byte elements",
            arg.len(),
            sp.vector
        ));
    }
    let parts: Vec<String> = (0..sp.vector)
        .map(|k| convert_one(sp, &arg[k * elem..(k + 1) * elem], elem, read_str))
        .collect::<Result<_, _>>()?;
    Ok(parts.join(","))
}

/// One scalar conversion of `bytes`, an `elem`-byte value.
fn convert_one(sp: &Spec, bytes: &[u8], elem: usize, read_str: ReadStr) -> Result<String, String> {
    let text = Spec { zero: false, ..*sp };
    Ok(match sp.conv {
        b'c' => {
            let ch = (le_u64(bytes) & 0xff) as u8 as char;
            pad(ch.to_string(), &text, 0)
        }
        b's' => {
            // OpenCL C allows only literal strings: the compiler copies a string it
            // knows into the record (its size rounded up to 4), and stores the address
            // of one it does not (a choice between literals), which then points into
            // the code object's image.
            let mut s = match read_str(le_u64(bytes)) {
                Some(r) if elem == 8 => r?,
                _ => {
                    let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
                    String::from_utf8_lossy(&bytes[..end]).into_owned()
                }
            };
            if let Some(p) = sp.precision {
                s = s.chars().take(p).collect();
            }
            pad(s, &text, 0)
        }
        b'p' => {
            let v = le_u64(bytes);
            let s = if v == 0 {
                "(nil)".to_string()
            } else {
                format!("0x{v:x}")
            };
            pad(s, &text, 0)
        }
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
            let x = match elem {
                2 => f64::from(amdgpu_sim::alu::f16_to_f32(le_u64(bytes) as u16)),
                4 => f64::from(f32::from_bits(le_u64(bytes) as u32)),
                8 => f64::from_bits(le_u64(bytes)),
                n => return Err(format!("a {n}-byte floating-point value")),
            };
            float(x, sp)
        }
        _ => {
            let bits = match sp.length {
                1 => 8,
                2 => 16,
                4 => 32,
                8 => 64,
                _ => 8 * elem.min(8),
            };
            integer(bytes, bits, sp)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(format: &str, args: &[&[u8]]) -> String {
        let f = PrintfFormat {
            id: 1,
            arg_sizes: args.iter().map(|a| a.len() as u32).collect(),
            format: format.into(),
        };
        super::format(&f, args, &|_| None).unwrap()
    }

    /// Expected texts are those of C99 printf (glibc) for the same conversions.
    #[test]
    fn conversions_follow_c() {
        let i = |v: i32| v.to_le_bytes();
        let f = |v: f32| v.to_le_bytes();
        let d = |v: f64| v.to_le_bytes();
        assert_eq!(fmt("%d %i %u", &[&i(-5), &i(7), &i(-1)]), "-5 7 4294967295");
        assert_eq!(
            fmt(
                "[%5d|%-5d|%05d|%+d|% d]",
                &[&i(42), &i(42), &i(-42), &i(3), &i(3)]
            ),
            "[   42|42   |-0042|+3| 3]"
        );
        assert_eq!(
            fmt(
                "%x %X %#x %o %#o %.3d %.0d",
                &[&i(255), &i(255), &i(255), &i(8), &i(8), &i(7), &i(0)]
            ),
            "ff FF 0xff 10 010 007 "
        );
        assert_eq!(
            fmt("%hhd %hd %hhu", &[&i(0x1ff), &i(0x18000), &i(0x1ff)]),
            "-1 -32768 255"
        );
        assert_eq!(
            fmt(
                "%ld %lu %lx",
                &[
                    &(-3i64).to_le_bytes(),
                    &u64::MAX.to_le_bytes(),
                    &(1u64 << 40).to_le_bytes()
                ]
            ),
            "-3 18446744073709551615 10000000000"
        );
        assert_eq!(
            fmt(
                "%f %.2f %10.3f %-8.1f| %e %E %.0e",
                &[
                    &f(1.5),
                    &f(2.345),
                    &d(-3.14259),
                    &f(0.25),
                    &d(12345.678),
                    &d(0.000123),
                    &d(5e10)
                ]
            ),
            "1.500000 2.35     -3.143 0.2     | 1.234568e+04 1.230000E-04 5e+10"
        );
        assert_eq!(
            fmt(
                "%g %g %g %g %G %#g %g",
                &[
                    &d(100000.0),
                    &d(1000000.0),
                    &d(0.0001),
                    &d(0.00001),
                    &d(1e-10),
                    &d(1.0),
                    &d(0.5)
                ]
            ),
            "100000 1e+06 0.0001 1e-05 1E-10 1.00000 0.5"
        );
        assert_eq!(
            fmt(
                "%f %F %5.1f %e",
                &[
                    &d(f64::INFINITY),
                    &d(f64::NEG_INFINITY),
                    &d(f64::NAN),
                    &d(-0.0)
                ]
            ),
            "inf -INF   nan -0.000000e+00"
        );
        assert_eq!(
            fmt(
                "%a %A %.1a %a",
                &[&d(1.0), &d(-0.5), &d(1.0 + 1.0 / 32.0), &d(0.0)]
            ),
            "0x1p+0 -0X1P-1 0x1.0p+0 0x0p+0"
        );
        assert_eq!(
            fmt(
                "%c%c %s|%5s|%-4s|%.1s",
                &[&i(72), &i(105), b"ok\0\0", b"ab\0\0", b"x\0\0\0", b"yz\0\0"]
            ),
            "Hi ok|   ab|x   |y"
        );
        assert_eq!(
            fmt(
                "100%% %p %p",
                &[&0u64.to_le_bytes(), &0x1000u64.to_le_bytes()]
            ),
            "100% (nil) 0x1000"
        );
        let v4: Vec<u8> = [1.0f32, 2.5, -3.0, 0.125]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let v2: Vec<u8> = [-1i16, 7].iter().flat_map(|x| x.to_le_bytes()).collect();
        let v3: Vec<u8> = [1i32, 2, 3, 0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(
            fmt("%v4hlf|%v2hd|%v3hlx", &[&v4, &v2, &v3]),
            "1.000000,2.500000,-3.000000,0.125000|-1,7|1,2,3"
        );
    }

    #[test]
    fn malformed_records_are_errors() {
        let f = PrintfFormat {
            id: 1,
            arg_sizes: vec![4],
            format: "%d %d".into(),
        };
        assert!(super::format(&f, &[&[1, 0, 0, 0]], &|_| None).is_err());
        let f = PrintfFormat {
            id: 1,
            arg_sizes: vec![4],
            format: "%y".into(),
        };
        assert!(super::format(&f, &[&[1, 0, 0, 0]], &|_| None).is_err());
        // An address of the image is read there; a bad one is an error.
        let f = PrintfFormat {
            id: 1,
            arg_sizes: vec![8],
            format: "<%s>".into(),
        };
        let at = 0x1000u64.to_le_bytes();
        let read = |a: u64| (a == 0x1000).then(|| Ok("lit".to_string()));
        assert_eq!(super::format(&f, &[&at], &read).unwrap(), "<lit>");
        assert_eq!(
            super::format(&f, &[b"1234567\0"], &read).unwrap(),
            "<1234567>"
        );
        let bad = |_| Some(Err("unmapped".to_string()));
        assert!(super::format(&f, &[&at], &bad).is_err());
    }
}
