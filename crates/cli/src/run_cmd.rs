//! `amdsim run FILE.co KERNEL [options] ARG...`: run a kernel on the
//! simulator and print its buffers.
//!
//! Arguments are given in kernarg order, one per explicit kernel argument:
//!
//! | form | meaning |
//! |---|---|
//! | `u32:5`, `i32:-3`, `u64:7`, `f32:1.5`, `f64:2.0` | a scalar |
//! | `u32[]:1,2,3` (also `i32`, `u64`, `f32`, `f64`, `u16`) | a buffer holding these values |
//! | `u32[N]:iota` | a buffer of N elements 0, 1, 2, ... |
//! | `f32[N]:fill=V` | a buffer of N copies of V |
//! | `u32[N]` | a zeroed buffer of N elements |
//!
//! Options: `--grid X[,Y[,Z]]` (work-items; default: the largest buffer's
//! element count), `--group X[,Y[,Z]]` (default 64), `--max-insts N`,
//! `--show N` (elements printed per buffer, default 16).

use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use std::time::Instant;

const USAGE: &str = "usage: amdsim run FILE.co KERNEL [--grid X[,Y,Z]] [--group X[,Y,Z]] \
[--max-insts N] [--show N] ARG...
  ARG: u32:5 | f32:1.5 | u32[]:1,2,3 | u32[N]:iota | f32[N]:fill=V | u32[N]";

/// Element type of a buffer or scalar argument.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Elem {
    U16,
    U32,
    I32,
    U64,
    F32,
    F64,
}

impl Elem {
    fn parse(s: &str) -> Result<Elem, String> {
        Ok(match s {
            "u16" => Elem::U16,
            "u32" => Elem::U32,
            "i32" => Elem::I32,
            "u64" => Elem::U64,
            "f32" => Elem::F32,
            "f64" => Elem::F64,
            _ => return Err(format!("unknown type `{s}` (u16, u32, i32, u64, f32, f64)")),
        })
    }

    fn size(self) -> usize {
        match self {
            Elem::U16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::F64 => 8,
        }
    }

    fn encode(self, s: &str) -> Result<Vec<u8>, String> {
        let msg = format!("`{s}` is not a valid {self:?} value");
        let bad = |_: std::num::ParseIntError| msg.clone();
        let badf = |_: std::num::ParseFloatError| msg.clone();
        Ok(match self {
            Elem::U16 => s.parse::<u16>().map_err(bad)?.to_le_bytes().to_vec(),
            Elem::U32 => parse_int(s)
                .and_then(|v| u32::try_from(v).map_err(|_| format!("`{s}` is out of range")))?
                .to_le_bytes()
                .to_vec(),
            Elem::I32 => s.parse::<i32>().map_err(bad)?.to_le_bytes().to_vec(),
            Elem::U64 => parse_int(s)?.to_le_bytes().to_vec(),
            Elem::F32 => s.parse::<f32>().map_err(badf)?.to_le_bytes().to_vec(),
            Elem::F64 => s.parse::<f64>().map_err(badf)?.to_le_bytes().to_vec(),
        })
    }

    fn encode_index(self, i: u64) -> Vec<u8> {
        match self {
            Elem::U16 => (i as u16).to_le_bytes().to_vec(),
            Elem::U32 | Elem::I32 => (i as u32).to_le_bytes().to_vec(),
            Elem::U64 => i.to_le_bytes().to_vec(),
            Elem::F32 => (i as f32).to_le_bytes().to_vec(),
            Elem::F64 => (i as f64).to_le_bytes().to_vec(),
        }
    }

    fn show(self, b: &[u8]) -> String {
        let mut w = [0u8; 8];
        let n = b.len().min(8);
        w[..n].copy_from_slice(&b[..n]);
        let v = u64::from_le_bytes(w);
        match self {
            Elem::U16 => format!("{}", v as u16),
            Elem::U32 => format!("{}", v as u32),
            Elem::I32 => format!("{}", v as u32 as i32),
            Elem::U64 => format!("{v}"),
            Elem::F32 => format!("{}", f32::from_bits(v as u32)),
            Elem::F64 => format!("{}", f64::from_bits(v)),
        }
    }
}

fn parse_int(s: &str) -> Result<u64, String> {
    crate::parse_u64(s)
}

/// One parsed command-line argument.
enum Arg {
    Scalar(ArgValue),
    Buffer { elem: Elem, data: Vec<u8> },
}

fn parse_arg(s: &str) -> Result<Arg, String> {
    let (ty, rest) = s
        .split_once(':')
        .map(|(t, r)| (t, Some(r)))
        .unwrap_or((s, None));
    if let Some(open) = ty.find('[') {
        let elem = Elem::parse(&ty[..open])?;
        let inner = ty[open + 1..]
            .strip_suffix(']')
            .ok_or_else(|| format!("`{s}`: missing `]`"))?;
        let count = if inner.is_empty() {
            None
        } else {
            Some(parse_int(inner)? as usize)
        };
        let mut data = Vec::new();
        match (count, rest) {
            (None, Some(list)) => {
                for v in list.split(',').filter(|v| !v.is_empty()) {
                    data.extend(elem.encode(v.trim())?);
                }
            }
            (Some(n), None) => data = vec![0; n * elem.size()],
            (Some(n), Some("iota")) => {
                for i in 0..n {
                    data.extend(elem.encode_index(i as u64));
                }
            }
            (Some(n), Some(r)) => match r.strip_prefix("fill=") {
                Some(v) => {
                    let one = elem.encode(v)?;
                    for _ in 0..n {
                        data.extend_from_slice(&one);
                    }
                }
                None => return Err(format!("`{s}`: expected `iota` or `fill=V`")),
            },
            (None, None) => return Err(format!("`{s}`: a buffer needs a size or values")),
        }
        return Ok(Arg::Buffer { elem, data });
    }
    let v = rest.ok_or_else(|| format!("`{s}`: expected TYPE:VALUE"))?;
    let msg = format!("`{v}` is not a valid {ty}");
    let bad = |_: std::num::ParseIntError| msg.clone();
    let badf = |_: std::num::ParseFloatError| msg.clone();
    Ok(Arg::Scalar(match ty {
        "u32" => ArgValue::U32(
            parse_int(v)
                .and_then(|x| u32::try_from(x).map_err(|_| format!("`{v}` out of range")))?,
        ),
        "i32" => ArgValue::I32(v.parse().map_err(bad)?),
        "u64" => ArgValue::U64(parse_int(v)?),
        "f32" => ArgValue::F32(v.parse().map_err(badf)?),
        "f64" => ArgValue::F64(v.parse().map_err(badf)?),
        _ => return Err(format!("unknown scalar type `{ty}`")),
    }))
}

fn parse_dims(s: &str) -> Result<[u32; 3], String> {
    let mut d = [1u32; 3];
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: expected X[,Y[,Z]]"));
    }
    for (k, p) in parts.iter().enumerate() {
        d[k] = parse_int(p)?
            .try_into()
            .map_err(|_| format!("`{p}` is out of range"))?;
        if d[k] == 0 {
            return Err(format!("`{s}`: sizes must be positive"));
        }
    }
    Ok(d)
}

/// Runs `amdsim run`.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut pos = Vec::new();
    let mut grid = None;
    let mut group = [64u32, 1, 1];
    let mut max_insts = None;
    let mut show = 16usize;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--grid" => grid = Some(parse_dims(value()?)?),
            "--group" => group = parse_dims(value()?)?,
            "--max-insts" => max_insts = Some(parse_int(value()?)?),
            "--show" => show = parse_int(value()?)? as usize,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            _ => pos.push(a.clone()),
        }
    }
    if pos.len() < 2 {
        return Err(USAGE.to_string());
    }
    let (file, kernel) = (&pos[0], &pos[1]);
    let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let parsed: Vec<Arg> = pos[2..]
        .iter()
        .map(|s| parse_arg(s))
        .collect::<Result<_, _>>()?;
    let mut dev = Device::new();
    let module = dev.load(&bytes).map_err(|e| format!("{file}: {e}"))?;
    let mut values = Vec::new();
    let mut buffers = Vec::new();
    let mut largest = 0usize;
    for (k, a) in parsed.iter().enumerate() {
        match a {
            Arg::Scalar(v) => values.push(v.clone()),
            Arg::Buffer { elem, data } => {
                let addr = dev.alloc_bytes(data).map_err(|e| e.to_string())?;
                values.push(ArgValue::Ptr(addr));
                let n = data.len() / elem.size();
                largest = largest.max(n);
                buffers.push((k, *elem, addr, n));
            }
        }
    }
    let grid = grid.unwrap_or([largest.max(1) as u32, 1, 1]);
    let mut cfg = LaunchConfig::new_1d(grid[0], group[0], values);
    cfg.grid = grid;
    cfg.group = group;
    if let Some(m) = max_insts {
        cfg.max_instructions = m;
    }
    let start = Instant::now();
    let stats = dev
        .dispatch(&module, kernel, cfg)
        .map_err(|e| e.to_string())?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{kernel}: {} work-groups, {} waves, {} instructions in {:.3} s ({:.1} M instructions/s)",
        stats.groups,
        stats.waves,
        stats.instructions,
        secs,
        stats.instructions as f64 / secs.max(1e-9) / 1e6
    );
    for (k, elem, addr, n) in buffers {
        let shown = n.min(show);
        let data = dev
            .read(addr, shown * elem.size())
            .map_err(|e| e.to_string())?;
        let vals: Vec<String> = data.chunks(elem.size()).map(|c| elem.show(c)).collect();
        let more = if n > shown { ", ..." } else { "" };
        println!("arg {k} ({n} x {elem:?}): [{}{more}]", vals.join(", "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_forms() {
        match parse_arg("u32[4]:iota").unwrap() {
            Arg::Buffer { elem, data } => {
                assert_eq!(elem, Elem::U32);
                assert_eq!(data, [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
            }
            Arg::Scalar(_) => panic!("expected a buffer"),
        }
        match parse_arg("f32[]:1.5,2").unwrap() {
            Arg::Buffer { data, .. } => assert_eq!(data.len(), 8),
            Arg::Scalar(_) => panic!("expected a buffer"),
        }
        assert!(matches!(
            parse_arg("u32:0x10").unwrap(),
            Arg::Scalar(ArgValue::U32(16))
        ));
        assert!(parse_arg("u32[2]:bogus").is_err());
        assert!(parse_arg("q8:1").is_err());
        assert_eq!(parse_dims("16,4").unwrap(), [16, 4, 1]);
        assert!(parse_dims("0").is_err());
    }
}
