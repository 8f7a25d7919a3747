//! Reading -O2 variables from clang-19 DWARF never gives a wrong value: what a variable
//! reads through its DWARF location at a stopped wave is what the kernel computes, or a
//! typed reason why it cannot be known.
//!
//! clang-19 at `-O2 -g` describes a variable promoted to a register as
//! `DW_OP_bregx VGPRn+0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef` (and computed values as
//! `..., DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_stack_value`), keeping the
//! private-address suffix of the declaration; `amdgpu_dwarf::Compat::clang19` reads the
//! register's focused-lane element (see `amdgpu_dwarf::Compat::private_suffix_on_values`).
//!
//! For every committed `-O2 -g` kernel (`kernels/bin/<target>/<name>.O2g.co`) on every
//! target, a breakpoint is set at every statement of the line table, the dispatch runs
//! to its end, and at every stop every variable in scope is read for every active lane:
//!
//! - a variable with a location at the PC must read one of the values the host computes
//!   for that work-item from the kernel's inputs, or fail with a typed reason that says
//!   the value is not known (`Unavailable`, `ValueNotKnown`, undefined pieces). A
//!   variable assigned once has exactly one value. A loop variable may read any of the
//!   values it takes in that work-item: -O2 code is scheduled and unrolled, and clang-19's
//!   location lists follow the registers, so a later iteration's value can be shown at an
//!   earlier statement (private_array's `j` on gfx90a, workitem's `d`); what is checked is
//!   that the value is one this work-item computes for this variable;
//! - an LDS array must read the bytes the work-group's LDS holds at its offset;
//! - any other error, or a value that is not one the work-item computes, fails the test.
//!
//! The figures (reads checked, unavailable and why, variables without a location at
//! the PC) are printed per kernel and target (`cargo test -- --nocapture`).

use amdgpu_dwarf::program::{LocationValue, Variable};
use amdgpu_dwarf::{ErrorKind, Single, Storage};
use amdgpu_lanes::{Debugger, Error, Event, Image};
use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use amdsim_sim_tests::{SWEEP_REST, SWEEP_SAMPLE, TARGETS, read_kernel, repo_path};
use std::collections::BTreeMap;

/// A small deterministic generator (xorshift).
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn u32(&mut self) -> u32 {
        (self.next() >> 16) as u32
    }
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn le(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    for (d, s) in b.iter_mut().zip(bytes) {
        *d = *s;
    }
    u64::from_le_bytes(b)
}

/// The work-item a lane of a stopped wave runs.
#[derive(Debug, Clone, Copy)]
struct Item {
    /// Global id.
    gid: [u32; 3],
    /// Local id.
    lid: [u32; 3],
    /// Work-group id.
    group: [u32; 3],
    /// Flattened global id in x (for 1-D kernels).
    g: usize,
}

/// What the host knows a variable of a work-item holds: the values it takes, in order.
type Truth = Box<dyn Fn(&str, &Item) -> Option<Vec<u64>>>;

/// A kernel launched for the test: its configuration, what the host computes, and its
/// LDS arrays (name, bytes).
struct Setup {
    cfg: LaunchConfig,
    truth: Truth,
    lds_arrays: Vec<(&'static str, usize)>,
}

/// A kernel case: its name, whether its DWARF gives any variable a location (a kernel
/// without must read nothing), and how to set it up on a device.
struct Case {
    name: &'static str,
    located: bool,
    setup: fn(&Device) -> Result<Setup, String>,
}

fn alloc(dev: &Device, bytes: &[u8]) -> Result<u64, String> {
    dev.alloc_bytes(bytes).map_err(|e| e.to_string())
}

fn alloc_zeroed(dev: &Device, size: u64) -> Result<u64, String> {
    dev.alloc(size).map_err(|e| e.to_string())
}

fn one(v: u64) -> Option<Vec<u64>> {
    Some(vec![v])
}

// ---- the kernels and what the host computes ----

fn divergence_step(acc: u32, k: u32, v: u32) -> u32 {
    if (k ^ v) & 2 != 0 {
        acc.wrapping_mul(3).wrapping_add(k)
    } else {
        acc ^ (k << 4)
    }
}

/// divergence: `acc`, `k`, `steps` through both branches, and the final `acc`.
fn divergence_values(v: u32, lid: u32) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let (mut acc, mut ks, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    let mut a;
    if lid & 1 != 0 {
        a = 1u32;
        acc.push(a);
        let trips = v.wrapping_add(lid) % 13;
        for k in 0..trips {
            ks.push(k);
            a = divergence_step(a, k, v);
            acc.push(a);
        }
        ks.push(trips);
    } else {
        a = (v & 0xff) + 1;
        acc.push(a);
        let mut s = 0u32;
        steps.push(s);
        while a != 1 && s < 40 {
            a = if a & 1 != 0 {
                a.wrapping_mul(3).wrapping_add(1)
            } else {
                a >> 1
            };
            acc.push(a);
            s += 1;
            steps.push(s);
        }
        a = s;
        acc.push(a);
    }
    if lid < 5 {
        acc.push(a.wrapping_add(1000 * lid));
    }
    let w = |v: Vec<u32>| v.into_iter().map(u64::from).collect();
    (w(acc), w(ks), w(steps))
}

fn divergence(dev: &Device) -> Result<Setup, String> {
    let n = 120u32;
    let mut g = Gen(0x5eed);
    let input: Vec<u32> = (0..n).map(|_| g.u32()).collect();
    let pin = alloc(dev, &u32s(&input))?;
    let pout = alloc_zeroed(dev, u64::from(n) * 4)?;
    let args = vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(n)];
    let truth = move |name: &str, it: &Item| {
        let lid = it.lid[0];
        let v = input.get(it.g).copied();
        match name {
            "in" => one(pin),
            "out" => one(pout),
            "n" => one(u64::from(n)),
            "gid" => one(it.g as u64),
            "lid" => one(u64::from(lid)),
            "v" => one(u64::from(v?)),
            "trips" => one(u64::from(v?.wrapping_add(lid) % 13)),
            "acc" => Some(divergence_values(v?, lid).0),
            "k" => Some(divergence_values(v?, lid).1),
            "steps" => Some(divergence_values(v?, lid).2),
            _ => None,
        }
    };
    Ok(Setup {
        cfg: LaunchConfig::new_1d(128, 64, args),
        truth: Box::new(truth),
        lds_arrays: vec![],
    })
}

/// [`divergence`] with, for `acc` of a work-item with lid >= 5, also the sum the
/// kernel computes speculatively and never stores (see
/// `hip_o2_variables_read_what_the_kernel_computes`).
fn divergence_speculated(dev: &Device) -> Result<Setup, String> {
    let mut s = divergence(dev)?;
    let inner = s.truth;
    s.truth = Box::new(move |name: &str, it: &Item| {
        let mut v = inner(name, it)?;
        let lid = it.lid[0];
        if name == "acc" && lid >= 5 {
            let last = *v.last()? as u32;
            v.push(u64::from(last.wrapping_add(1000u32.wrapping_mul(lid))));
        }
        Some(v)
    });
    Ok(s)
}

fn vector_add(dev: &Device) -> Result<Setup, String> {
    let n = 150u32;
    let a: Vec<u32> = (0..n).map(|i| (i as f32 * 0.5 + 1.0).to_bits()).collect();
    let b: Vec<u32> = (0..n)
        .map(|i| (1000.0 - i as f32 * 3.0).to_bits())
        .collect();
    let pa = alloc(dev, &u32s(&a))?;
    let pb = alloc(dev, &u32s(&b))?;
    let pc = alloc_zeroed(dev, u64::from(n) * 4)?;
    let args = vec![
        ArgValue::Ptr(pa),
        ArgValue::Ptr(pb),
        ArgValue::Ptr(pc),
        ArgValue::U32(n),
    ];
    let truth = move |name: &str, it: &Item| match name {
        "a" => one(pa),
        "b" => one(pb),
        "c" => one(pc),
        "n" => one(u64::from(n)),
        "i" => one(it.g as u64),
        _ => None,
    };
    Ok(Setup {
        cfg: LaunchConfig::new_1d(n, 64, args),
        truth: Box::new(truth),
        lds_arrays: vec![],
    })
}

fn saxpy(dev: &Device) -> Result<Setup, String> {
    let n = 100u32;
    let a = 2.5f32;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 3.25 - 100.0).collect();
    let y: Vec<f32> = (0..n).map(|i| 7.0 - i as f32 * 1.5).collect();
    let bits = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let px = alloc(dev, &bits(&x))?;
    let py = alloc(dev, &bits(&y))?;
    let pz = alloc_zeroed(dev, u64::from(n) * 4)?;
    let args = vec![
        ArgValue::F32(a),
        ArgValue::Ptr(px),
        ArgValue::Ptr(py),
        ArgValue::Ptr(pz),
        ArgValue::U32(n),
    ];
    let truth = move |name: &str, it: &Item| {
        let r = x.get(it.g).zip(y.get(it.g)).map(|(x, y)| a.mul_add(*x, *y));
        match name {
            "a" => one(u64::from(a.to_bits())),
            "x" => one(px),
            "y" => one(py),
            "z" => one(pz),
            "n" => one(u64::from(n)),
            "i" => one(it.g as u64),
            "r" => one(u64::from(r?.to_bits())),
            // fmax(fmin(r, 1000), -1000) of a finite r.
            "m" => one(u64::from(r?.clamp(-1000.0, 1000.0).to_bits())),
            _ => None,
        }
    };
    Ok(Setup {
        cfg: LaunchConfig::new_1d(128, 64, args),
        truth: Box::new(truth),
        lds_arrays: vec![],
    })
}

fn reduce_sum(dev: &Device) -> Result<Setup, String> {
    let n = 100u32;
    let input: Vec<u32> = (0..n).map(|i| i * 7 + 3).collect();
    let pin = alloc(dev, &u32s(&input))?;
    let pout = alloc_zeroed(dev, 8)?;
    let args = vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(n)];
    let truth = move |name: &str, it: &Item| match name {
        "in" => one(pin),
        "partial" => one(pout),
        "n" => one(u64::from(n)),
        "gid" => one(it.g as u64),
        "lid" => one(u64::from(it.lid[0])),
        "lsize" => one(64),
        "s" => Some(vec![32, 16, 8, 4, 2, 1, 0]),
        _ => None,
    };
    Ok(Setup {
        cfg: LaunchConfig::new_1d(128, 64, args),
        truth: Box::new(truth),
        lds_arrays: vec![("tile", 256 * 4)],
    })
}

fn private_array(dev: &Device) -> Result<Setup, String> {
    let n = 100u32;
    let mut g = Gen(0xa11a);
    let input: Vec<u32> = (0..n).map(|_| g.u32()).collect();
    let pin = alloc(dev, &u32s(&input))?;
    let pout = alloc_zeroed(dev, u64::from(n) * 4)?;
    let args = vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(n)];
    let truth = move |name: &str, it: &Item| {
        let lid = it.lid[0];
        let v = input.get(it.g).copied();
        let gathered = |v: u32| {
            let mut buf: Vec<u32> = (0..80u32)
                .map(|k| v.wrapping_mul(k + 1).wrapping_add(lid))
                .collect();
            for k in 0..8u32 {
                let j = v.wrapping_add(k * 7).wrapping_add(lid) % 80;
                buf[j as usize] ^= k + 0x100;
            }
            let a = buf[(v % 80) as usize];
            let b = buf[((lid * 5 + 3) % 80) as usize];
            let c = buf[((a ^ b) % 80) as usize];
            (a, b, c)
        };
        match name {
            "in" => one(pin),
            "out" => one(pout),
            "n" => one(u64::from(n)),
            "gid" => one(it.g as u64),
            "lid" => one(u64::from(lid)),
            "v" => one(u64::from(v?)),
            // Two loops name their counter `k` (0..=80 and 0..=8): the first's values.
            "k" => Some((0..=80).collect()),
            "j" => {
                let v = v?;
                Some(
                    (0..8u32)
                        .map(|k| u64::from(v.wrapping_add(k * 7).wrapping_add(lid) % 80))
                        .collect(),
                )
            }
            "a" => one(u64::from(gathered(v?).0)),
            "b" => one(u64::from(gathered(v?).1)),
            "c" => one(u64::from(gathered(v?).2)),
            // `buf[k]`: 0 before the first loop writes it (scratch starts zeroed), then
            // `v * (k + 1) + lid`, then that value after each of the scatter loop's xors
            // in order.
            e if e.starts_with("buf[") => {
                let k: u32 = e["buf[".len()..e.len() - 1].parse().ok()?;
                let v = v?;
                let mut x = v.wrapping_mul(k + 1).wrapping_add(lid);
                let mut values = vec![0, u64::from(x)];
                for s in 0..8u32 {
                    if v.wrapping_add(s * 7).wrapping_add(lid) % 80 == k {
                        x ^= s + 0x100;
                        values.push(u64::from(x));
                    }
                }
                Some(values)
            }
            _ => None,
        }
    };
    Ok(Setup {
        cfg: LaunchConfig::new_1d(n, 64, args),
        truth: Box::new(truth),
        lds_arrays: vec![],
    })
}

fn bitops64(dev: &Device) -> Result<Setup, String> {
    let n = 70u32;
    let mut g = Gen(0xb175);
    let input: Vec<u64> = (0..n).map(|_| g.next()).collect();
    let inb: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let pin = alloc(dev, &inb)?;
    let pout = alloc_zeroed(dev, u64::from(n) * 16)?;
    let pout32 = alloc_zeroed(dev, u64::from(n) * 4)?;
    let args = vec![
        ArgValue::Ptr(pin),
        ArgValue::Ptr(pout),
        ArgValue::Ptr(pout32),
        ArgValue::U32(n),
    ];
    let truth = move |name: &str, it: &Item| {
        let gid = it.g as u32;
        match name {
            "in" => return one(pin),
            "out" => return one(pout),
            "out32" => return one(pout32),
            "n" => return one(u64::from(n)),
            "gid" => return one(it.g as u64),
            _ => {}
        }
        let x = *input.get(it.g)?;
        let lo = x as u32;
        let hi = (x >> 32) as u32;
        let p = lo.count_ones() + hi.count_ones();
        let wide = u64::from(lo) * u64::from(hi | 1);
        let prod = x.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(wide);
        let sh = (prod << (p & 63)) | (prod >> ((64 - (p & 63)) & 63));
        let d = (x | 1) % 1_000_003 + 1;
        let s = (x ^ sh) as i64;
        one(match name {
            "x" => x,
            "lo" => u64::from(lo),
            "hi" => u64::from(hi),
            "p" => u64::from(p),
            "z" => u64::from((hi | 1).leading_zeros()),
            "r" => u64::from(lo.rotate_left(gid & 31) ^ (hi >> 3) ^ (lo << 7)),
            "mh" => (u64::from(lo) * u64::from(hi | 0x8000_0001)) >> 32,
            "wide" => wide,
            "prod" => prod,
            "sh" => sh,
            "d" => d,
            "q" => prod / d,
            "s" => s as u64,
            "m" => (if s < 0 { -(s >> 5) } else { s >> 3 }) as u64,
            _ => return None,
        })
    };
    Ok(Setup {
        cfg: LaunchConfig::new_1d(n, 64, args),
        truth: Box::new(truth),
        lds_arrays: vec![],
    })
}

fn atomics(dev: &Device) -> Result<Setup, String> {
    let (n, nbins) = (100u32, 20u32);
    let mut g = Gen(0xa70);
    let input: Vec<u32> = (0..n).map(|_| g.u32() % 1000).collect();
    let pin = alloc(dev, &u32s(&input))?;
    let pbins = alloc_zeroed(dev, u64::from(nbins) * 4)?;
    let pstats = alloc_zeroed(dev, 8)?;
    let args = vec![
        ArgValue::Ptr(pin),
        ArgValue::Ptr(pbins),
        ArgValue::Ptr(pstats),
        ArgValue::U32(nbins),
        ArgValue::U32(n),
    ];
    let lsize = 64u32;
    let truth = move |name: &str, it: &Item| {
        let lid = it.lid[0];
        // Both loops run `b` from lid by lsize while below nbins (and end on the first
        // value not below).
        let mut bs = vec![lid];
        while let Some(&b) = bs.last().filter(|&&b| b < nbins) {
            bs.push(b + lsize);
        }
        let count = |b: u32| {
            let base = it.group[0] * lsize;
            (base..(base + lsize).min(n))
                .filter(|&i| input[i as usize] % nbins == b)
                .count() as u64
        };
        match name {
            "in" => one(pin),
            "bins" => one(pbins),
            "stats" => one(pstats),
            "nbins" => one(u64::from(nbins)),
            "n" => one(u64::from(n)),
            "gid" => one(it.g as u64),
            "lid" => one(u64::from(lid)),
            "lsize" => one(u64::from(lsize)),
            "b" => Some(bs.into_iter().map(u64::from).collect()),
            "v" => one(u64::from(*input.get(it.g)?)),
            "c" => Some(bs.into_iter().filter(|&b| b < nbins).map(count).collect()),
            _ => None,
        }
    };
    Ok(Setup {
        cfg: LaunchConfig::new_1d(128, lsize, args),
        truth: Box::new(truth),
        lds_arrays: vec![("local_bins", 64 * 4)],
    })
}

fn int_sat(dev: &Device) -> Result<Setup, String> {
    let n = 70u32;
    let mut g = Gen(0x1a7);
    let a: Vec<u32> = (0..n).map(|_| g.u32()).collect();
    let b: Vec<u32> = (0..n).map(|_| g.u32()).collect();
    let pa = alloc(dev, &u32s(&a))?;
    let pb = alloc(dev, &u32s(&b))?;
    let pout = alloc_zeroed(dev, u64::from(n) * 64)?;
    let pf = alloc_zeroed(dev, u64::from(n) * 16)?;
    let args = vec![
        ArgValue::Ptr(pa),
        ArgValue::Ptr(pb),
        ArgValue::Ptr(pout),
        ArgValue::Ptr(pf),
        ArgValue::U32(n),
    ];
    let truth = move |name: &str, it: &Item| match name {
        "a" => one(pa),
        "b" => one(pb),
        "out" => one(pout),
        "fout" => one(pf),
        "n" => one(u64::from(n)),
        "i" => one(it.g as u64),
        "x" => one(u64::from(*a.get(it.g)?)),
        "y" => one(u64::from(*b.get(it.g)?)),
        "o" => one(pout + it.g as u64 * 64),
        "f" => one(pf + it.g as u64 * 16),
        _ => None,
    };
    Ok(Setup {
        cfg: LaunchConfig::new_1d(n, 64, args),
        truth: Box::new(truth),
        lds_arrays: vec![],
    })
}

fn transpose(dev: &Device) -> Result<Setup, String> {
    let (rows, cols) = (40u32, 24u32);
    let input: Vec<u32> = (0..rows * cols)
        .map(|i| (i as f32 * 0.25).to_bits())
        .collect();
    let pin = alloc(dev, &u32s(&input))?;
    let pout = alloc_zeroed(dev, u64::from(rows * cols) * 4)?;
    let args = vec![
        ArgValue::Ptr(pin),
        ArgValue::Ptr(pout),
        ArgValue::U32(rows),
        ArgValue::U32(cols),
    ];
    let mut cfg = LaunchConfig::new_1d(32, 16, args);
    cfg.grid = [32, 48, 1];
    cfg.group = [16, 16, 1];
    let truth = move |name: &str, it: &Item| {
        let [lx, ly, _] = it.lid;
        let [gx, gy, _] = it.group;
        one(match name {
            "in" => pin,
            "out" => pout,
            "rows" => u64::from(rows),
            "cols" => u64::from(cols),
            "lx" => u64::from(lx),
            "ly" => u64::from(ly),
            "gx" => u64::from(gx * 16 + lx),
            "gy" => u64::from(gy * 16 + ly),
            "ox" => u64::from(gy * 16 + lx),
            "oy" => u64::from(gx * 16 + ly),
            _ => return None,
        })
    };
    Ok(Setup {
        cfg,
        truth: Box::new(truth),
        lds_arrays: vec![("tile", 16 * 17 * 4)],
    })
}

fn workitem(dev: &Device) -> Result<Setup, String> {
    let (grid, group) = ([8u32, 4, 2], [4u32, 2, 2]);
    let items = grid.iter().product::<u32>();
    let pout = alloc_zeroed(dev, u64::from(items) * 21 * 4)?;
    let mut cfg = LaunchConfig::new_1d(8, 4, vec![ArgValue::Ptr(pout)]);
    cfg.grid = grid;
    cfg.group = group;
    let truth = move |name: &str, it: &Item| {
        let [x, y, z] = it.gid.map(u64::from);
        let lin = z * u64::from(grid[1] * grid[0]) + y * u64::from(grid[0]) + x;
        match name {
            "out" => one(pout),
            "lin" => one(lin),
            "o" => one(pout + lin * 21 * 4),
            "d" => Some((0..=3).collect()),
            _ => None,
        }
    };
    Ok(Setup {
        cfg,
        truth: Box::new(truth),
        lds_arrays: vec![],
    })
}

fn fp64_half(dev: &Device) -> Result<Setup, String> {
    let n = 70u32;
    let a: Vec<f64> = (0..n).map(|i| i as f64 * 1.75 - 30.0).collect();
    // Halves of small integers (exact).
    let h: Vec<u16> = (0..n).map(|i| 0x3c00 + (i as u16 % 8) * 0x400).collect();
    let pa = alloc(
        dev,
        &a.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
    )?;
    let ph = alloc(
        dev,
        &h.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
    )?;
    let pout = alloc_zeroed(dev, u64::from(n) * 8)?;
    let phout = alloc_zeroed(dev, u64::from(n) * 2)?;
    let piout = alloc_zeroed(dev, u64::from(n) * 4)?;
    let args = vec![
        ArgValue::Ptr(pa),
        ArgValue::Ptr(ph),
        ArgValue::Ptr(pout),
        ArgValue::Ptr(phout),
        ArgValue::Ptr(piout),
        ArgValue::U32(n),
    ];
    let truth = move |name: &str, it: &Item| match name {
        "a" => one(pa),
        "h" => one(ph),
        "out" => one(pout),
        "hout" => one(phout),
        "iout" => one(piout),
        "n" => one(u64::from(n)),
        "gid" => one(it.g as u64),
        "x" => one(a.get(it.g)?.to_bits()),
        _ => None,
    };
    Ok(Setup {
        cfg: LaunchConfig::new_1d(n, 64, args),
        truth: Box::new(truth),
        lds_arrays: vec![],
    })
}

const CASES: [Case; 11] = [
    Case {
        name: "divergence",
        located: true,
        setup: divergence,
    },
    Case {
        name: "vector_add",
        located: false,
        setup: vector_add,
    },
    Case {
        name: "saxpy",
        located: true,
        setup: saxpy,
    },
    Case {
        name: "reduce_sum",
        located: true,
        setup: reduce_sum,
    },
    Case {
        name: "private_array",
        located: true,
        setup: private_array,
    },
    Case {
        name: "bitops64",
        located: true,
        setup: bitops64,
    },
    Case {
        name: "atomics",
        located: true,
        setup: atomics,
    },
    Case {
        name: "int_sat",
        located: true,
        setup: int_sat,
    },
    Case {
        name: "transpose",
        located: true,
        setup: transpose,
    },
    Case {
        name: "workitem",
        located: true,
        setup: workitem,
    },
    Case {
        name: "fp64_half",
        located: false,
        setup: fp64_half,
    },
];

// ---- the run ----

/// What the reads of one kernel on one target came to.
#[derive(Default)]
struct Tally {
    /// Breakpoint stops.
    stops: u64,
    /// Variable-lane reads with a location at the PC that equal a host value.
    checked: u64,
    /// Of those, reads compared with the one value of a variable assigned once.
    exact: u64,
    /// Checked reads by what held the value.
    by_storage: BTreeMap<&'static str, u64>,
    /// LDS arrays read whole and compared with the group's LDS.
    arrays: u64,
    /// Variable-lane reads with a location at the PC that are not known, by reason.
    unavailable: BTreeMap<String, u64>,
    /// Variable-lane pairs whose location list has no entry for the PC.
    not_at_pc: u64,
    /// Variables (by name) without DW_AT_location, seen in scope at a stop.
    no_location: std::collections::BTreeSet<String>,
    /// Variables of functions inlined into the kernel (`function::name`), not checked.
    inlined: std::collections::BTreeSet<String>,
    /// Failures (wrong values, unexpected errors), the first few.
    failures: Vec<String>,
    /// Number of failures.
    failed: u64,
}

impl Tally {
    /// Counts a failure and keeps its message among the first few (8, or as many as
    /// `AMDSIM_SWEEP_FAILURES` says, to see them all when investigating).
    fn fail(&mut self, msg: String) {
        self.failed += 1;
        let keep = std::env::var("AMDSIM_SWEEP_FAILURES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(8);
        if self.failures.len() < keep {
            self.failures.push(msg);
        }
    }
}

/// What holds a location's bits: a register (a VGPR's lane element is a one-part
/// composite of the register), memory, or the value itself.
fn storage_kind(s: &Single) -> &'static str {
    match &s.storage {
        Storage::Register(_) => "register",
        Storage::Memory(_) => "memory",
        Storage::Implicit(_) => "implicit value",
        Storage::Composite(c) => match c.parts().first() {
            Some(p) => storage_kind(p.loc.first()),
            None => "empty composite",
        },
        Storage::Undefined => "undefined",
        Storage::ImplicitPointer(_) => "implicit pointer",
    }
}

/// The typed "not known" reasons a read may give instead of a value.
fn unavailable_reason(e: &Error) -> Option<String> {
    match e {
        Error::Undefined { .. } => Some("part of the value is undefined".into()),
        Error::Dwarf { error, .. } => match &error.kind {
            ErrorKind::Unavailable { op, what } => Some(format!("{op} needs {what}")),
            ErrorKind::ValueNotKnown { op, why } => Some(format!("{op}: {why}")),
            _ => None,
        },
        _ => None,
    }
}

/// The work-item of lane `lane` of wave `wave` in work-group `group`.
fn item(cfg: &LaunchConfig, group: [u32; 3], wave: u32, ws: u32, lane: u32) -> Item {
    let lin = wave * ws + lane;
    let [sx, sy, _] = cfg.group;
    let lid = [lin % sx, lin / sx % sy, lin / (sx * sy)];
    let gid = [0, 1, 2].map(|d| group[d] * cfg.group[d] + lid[d]);
    Item {
        gid,
        lid,
        group,
        g: gid[0] as usize,
    }
}

/// Reads every variable in scope for every active lane of the stopped wave.
#[allow(clippy::too_many_arguments)]
fn check_stop(
    d: &mut Debugger,
    kernel: &str,
    setup: &Setup,
    group: [u32; 3],
    wave: u32,
    pc: u64,
    tally: &mut Tally,
) -> Result<(), String> {
    let ws = d.wave_size().map_err(|e| e.to_string())?;
    let exec = d.exec().map_err(|e| e.to_string())?;
    let vars = d.variables().map_err(|e| e.to_string())?;
    for var in &vars {
        if var.function != kernel {
            // A parameter or variable of a function inlined into the kernel (HIP's
            // built-in getters): the host model is the kernel's.
            tally
                .inlined
                .insert(format!("{}::{}", var.function, var.name));
            continue;
        }
        match &var.location {
            None if var.const_value.is_none() => {
                tally.no_location.insert(var.name.clone());
                continue;
            }
            Some(LocationValue::NotAtPc) => {
                tally.not_at_pc += u64::from(exec.count_ones());
                continue;
            }
            _ => {}
        }
        if let Some(&(_, size)) = setup.lds_arrays.iter().find(|(n, _)| *n == var.name) {
            check_lds_array(d, var, size, exec, ws, pc, tally)?;
            continue;
        }
        for lane in (0..ws).filter(|l| exec >> l & 1 != 0) {
            let it = item(&setup.cfg, group, wave, ws, lane);
            let what = || {
                format!(
                    "pc {pc:#x} group {group:?} wave {wave} lane {lane} (gid {:?}): `{}`",
                    it.gid, var.name
                )
            };
            let read = if var.location.is_none() {
                d.read_variable(var, lane).map(|b| (b, "DW_AT_const_value"))
            } else {
                let size = var.byte_size.unwrap_or(0) as usize;
                d.location(var, lane).and_then(|loc| {
                    let kind = storage_kind(loc.first());
                    d.read_location(&loc, lane, size).map(|b| (b, kind))
                })
            };
            let (got, kind) = match read {
                Ok(r) => r,
                Err(e) => {
                    match unavailable_reason(&e) {
                        Some(why) => *tally.unavailable.entry(why).or_insert(0) += 1,
                        None => tally.fail(format!("{}: {e}", what())),
                    }
                    continue;
                }
            };
            if got.len() > 8 && got.len() % 4 == 0 {
                // A private array: each 4-byte element against the values the host says
                // it may hold (`name[k]`).
                match check_elements(&var.name, &got, &it, &*setup.truth) {
                    Ok(()) => {
                        tally.checked += 1;
                        *tally.by_storage.entry(kind).or_insert(0) += 1;
                    }
                    Err(e) => tally.fail(format!("{}: {e}", what())),
                }
                continue;
            }
            if got.is_empty() || got.len() > 8 {
                tally.fail(format!("{}: {} bytes, no host value", what(), got.len()));
                continue;
            }
            let mask = if got.len() >= 8 {
                u64::MAX
            } else {
                (1u64 << (8 * got.len())) - 1
            };
            let got = le(&got);
            let Some(values) = (setup.truth)(&var.name, &it) else {
                tally.fail(format!("{}: read {got:#x}, the host has no value", what()));
                continue;
            };
            if values.iter().any(|v| v & mask == got) {
                tally.checked += 1;
                *tally.by_storage.entry(kind).or_insert(0) += 1;
                if values.len() == 1 {
                    tally.exact += 1;
                }
            } else {
                tally.fail(format!(
                    "{}: read {got:#x} from {kind}, not one of {:x?}",
                    what(),
                    values.iter().map(|v| v & mask).collect::<Vec<_>>()
                ));
            }
        }
    }
    Ok(())
}

/// Each 4-byte element `k` of an array read for one work-item is one of the values the
/// host gives for `name[k]`.
fn check_elements(
    name: &str,
    bytes: &[u8],
    it: &Item,
    truth: &dyn Fn(&str, &Item) -> Option<Vec<u64>>,
) -> Result<(), String> {
    for (k, e) in bytes.chunks_exact(4).enumerate() {
        let got = u64::from(u32::from_le_bytes([e[0], e[1], e[2], e[3]]));
        let Some(values) = truth(&format!("{name}[{k}]"), it) else {
            return Err(format!(
                "{} bytes, no host value for element {k}",
                bytes.len()
            ));
        };
        if !values.contains(&got) {
            return Err(format!(
                "element {k} reads {got:#x}, not one of {values:x?}"
            ));
        }
    }
    Ok(())
}

/// An LDS array read through its location equals the work-group's LDS at offset 0 (the
/// kernels here have one LDS object: the group segment is exactly the array).
fn check_lds_array(
    d: &mut Debugger,
    var: &Variable,
    size: usize,
    exec: u64,
    ws: u32,
    pc: u64,
    tally: &mut Tally,
) -> Result<(), String> {
    let group_size = d
        .session()
        .launch()
        .kernel
        .descriptor
        .group_segment_fixed_size as usize;
    if group_size != size {
        return Err(format!(
            "`{}`: group segment of {group_size} bytes, the array is {size}",
            var.name
        ));
    }
    let mut lds = vec![0u8; size];
    d.session()
        .group()
        .ok_or("no work-group")?
        .lds
        .read(0, &mut lds)
        .map_err(|e| e.to_string())?;
    // The array's location does not depend on the lane: read once, through the first
    // active lane's location, and each lane's location compared with it.
    let mut first: Option<amdgpu_dwarf::Loc> = None;
    for lane in (0..ws).filter(|l| exec >> l & 1 != 0) {
        let loc = match d.location(var, lane) {
            Ok(loc) => loc,
            Err(e) => {
                match unavailable_reason(&e) {
                    Some(why) => *tally.unavailable.entry(why).or_insert(0) += 1,
                    None => tally.fail(format!("pc {pc:#x} lane {lane}: `{}`: {e}", var.name)),
                }
                continue;
            }
        };
        match &first {
            Some(f) if *f == loc => tally.arrays += 1,
            Some(_) => tally.fail(format!(
                "pc {pc:#x} lane {lane}: `{}` is somewhere else than for the first lane",
                var.name
            )),
            None => match d.read_location(&loc, lane, size) {
                Ok(got) if got == lds => {
                    tally.arrays += 1;
                    first = Some(loc);
                }
                Ok(_) => tally.fail(format!(
                    "pc {pc:#x} lane {lane}: `{}` differs from the LDS",
                    var.name
                )),
                Err(e) => tally.fail(format!("pc {pc:#x} lane {lane}: `{}`: {e}", var.name)),
            },
        }
    }
    Ok(())
}

/// Runs kernel `case` on `target` with a breakpoint at every statement, reading every
/// variable at every stop.
fn run(case: &Case, target: &str) -> Result<Tally, String> {
    let bytes = read_kernel(target, &format!("{}.O2g.co", case.name))?;
    run_code(case, &bytes)
}

/// [`run`] on a code object's bytes.
fn run_code(case: &Case, bytes: &[u8]) -> Result<Tally, String> {
    let dev = Device::new();
    let module = dev.load(bytes).map_err(|e| e.to_string())?;
    let setup = (case.setup)(&dev)?;
    let launch = dev
        .launch(&module, case.name, setup.cfg.clone())
        .map_err(|e| e.to_string())?;
    let image = Image::parse(bytes).map_err(|e| e.to_string())?;
    let mut d = Debugger::new(&image, &dev, &module, launch);
    let mut addrs: Vec<u64> = image
        .statement_rows()
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|r| r.address)
        .collect();
    addrs.sort_unstable();
    addrs.dedup();
    for &a in &addrs {
        d.break_at_address(a);
    }
    let mut tally = Tally::default();
    loop {
        match d.resume().map_err(|e| e.to_string())? {
            Event::Breakpoint { group, wave, pc } => {
                tally.stops += 1;
                check_stop(&mut d, case.name, &setup, group, wave, pc, &mut tally)?;
            }
            Event::Finished => break,
            other => return Err(format!("unexpected event {other:?}")),
        }
    }
    if tally.stops == 0 {
        return Err("no stop".into());
    }
    Ok(tally)
}

/// Every variable with a location at a stopped PC of every `-O2 -g` kernel reads a value
/// the work-item computes (or a typed reason why it is not known), on every target.
#[test]
fn o2_variables_read_what_the_kernel_computes() {
    o2_variables_on(&SWEEP_SAMPLE);
}

#[test]
#[ignore = "the sweep over the other targets: run by .ci/run with --ignored"]
fn o2_variables_read_what_the_kernel_computes_on_every_target() {
    o2_variables_on(&SWEEP_REST);
}

fn o2_variables_on(targets: &[&str]) {
    let runs: Vec<(&Case, String, Result<Tally, String>)> = CASES
        .iter()
        .flat_map(|case| {
            targets
                .iter()
                .map(move |&t| (case, t.to_string(), run(case, t)))
        })
        .collect();
    judge(runs);
}

/// HIP device code (`kernels/hip/src/device/debug_vars.hip`, the `divergence`
/// kernel in HIP) built with `-O2 -g` by hipcc (clang-15, whose DWARF forms
/// differ from clang-19's) and by clang++-19, on every HIP target (wave32 on
/// gfx1030, HIP's default): every variable reads what the work-item computes
/// or a typed reason why it is not known, as for the OpenCL kernels.
/// (`cargo test` checks a sample: each compiler on one target, wave64 and wave32.)
#[test]
fn hip_o2_variables_read_what_the_kernel_computes() {
    hip_o2_variables_on(&[("hipcc", "gfx900"), ("clang19", "gfx1030")]);
}

#[test]
#[ignore = "the sweep over the other targets: run by .ci/run with --ignored"]
fn hip_o2_variables_read_what_the_kernel_computes_on_every_target() {
    let mut builds = vec![("hipcc", "gfx1030"), ("clang19", "gfx900")];
    for t in ["gfx906", "gfx908", "gfx90a"] {
        builds.extend([("hipcc", t), ("clang19", t)]);
    }
    hip_o2_variables_on(&builds);
}

/// The checks on each (compiler, target) build of the HIP kernel.
fn hip_o2_variables_on(builds: &[(&str, &str)]) {
    let case = Case {
        name: "divergence",
        located: true,
        setup: divergence,
    };
    // hipcc's clang-15 if-converts `if (lid < 5u) acc += 1000u * lid;` and keeps the
    // statement's location with the speculated sum: from the compare to the select,
    // its DWARF says `acc` is `v3 + v4` (acc plus 1000 * lid) for every lane, also
    // those with lid >= 5, which never add. The reader shows what the DWARF says; the
    // producer's value is accepted there (clang-19 drops the location instead).
    let speculated = Case {
        name: "divergence",
        located: true,
        setup: divergence_speculated,
    };
    let mut runs = Vec::new();
    for &(comp, t) in builds {
        let case = if comp == "hipcc" { &speculated } else { &case };
        let p = repo_path(&["kernels", "hip", "bin", comp, &format!("debug_vars.{t}.co")]);
        let r = std::fs::read(&p)
            .map_err(|e| format!("{}: {e}", p.display()))
            .and_then(|b| run_code(case, &b));
        runs.push((case, format!("{comp}/{t}"), r));
    }
    judge(runs);
}

/// Reports every run's figures and fails on any wrong read.
fn judge(runs: Vec<(&Case, String, Result<Tally, String>)>) {
    let mut failures = Vec::new();
    let mut report = String::new();
    for (case, t, r) in runs {
        {
            let tally = match r {
                Ok(t) => t,
                Err(e) => {
                    failures.push(format!("{} {t}: {e}", case.name));
                    continue;
                }
            };
            let unavailable: u64 = tally.unavailable.values().sum();
            report += &format!(
                "{:<14} {:<12} stops {:>5}  checked {:>6}  lds arrays {:>4}  unavailable {:>5}  \
                 not at pc {:>6}  no location: {:?}\n",
                case.name,
                t,
                tally.stops,
                tally.checked,
                tally.arrays,
                unavailable,
                tally.not_at_pc,
                tally.no_location
            );
            report += &format!(
                "{:<27} exact {:>6}, by storage {:?}\n",
                "", tally.exact, tally.by_storage
            );
            if !tally.inlined.is_empty() {
                report += &format!("{:<27} inlined, not checked: {:?}\n", "", tally.inlined);
            }
            for (why, n) in &tally.unavailable {
                report += &format!("{:<27} unavailable {n:>5}: {why}\n", "");
            }
            for f in &tally.failures {
                failures.push(format!("{} {t}: {f}", case.name));
            }
            if tally.failed > tally.failures.len() as u64 {
                failures.push(format!(
                    "{} {t}: ... {} failures in all",
                    case.name, tally.failed
                ));
            }
            let read = tally.checked + tally.arrays + unavailable;
            if case.located && tally.checked == 0 {
                failures.push(format!("{} {t}: no variable value was checked", case.name));
            }
            if !case.located && read != 0 {
                failures.push(format!(
                    "{} {t}: {read} reads of variables the kernel was thought to have no \
                     location for: give the case host values",
                    case.name
                ));
            }
        }
    }
    println!("{report}");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// A write through an -O2 register variable changes the register's focused-lane element
/// only: `v` (held in a VGPR at `if (lid & 1u)`) written for one work-item makes the
/// kernel store what the host computes from the new value for that work-item, and the
/// inputs' results for every other one.
#[test]
fn o2_write_of_a_register_variable_reaches_the_kernel() {
    let mut failures = Vec::new();
    for t in TARGETS {
        if let Err(e) = o2_write(t) {
            failures.push(format!("{t}: {e}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The 1-based line of `kernels/src/<name>.cl` containing `text` (exactly one).
fn source_line(name: &str, text: &str) -> Result<u64, String> {
    let p = repo_path(&["kernels", "src", &format!("{name}.cl")]);
    let src = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    let hits: Vec<usize> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(text))
        .map(|(i, _)| i + 1)
        .collect();
    match hits.as_slice() {
        [l] => Ok(*l as u64),
        _ => Err(format!("`{text}` is on lines {hits:?} of {name}.cl")),
    }
}

fn divergence_out(v: u32, lid: u32) -> u32 {
    let acc = divergence_values(v, lid).0;
    acc.last().copied().unwrap_or(0) as u32
}

fn o2_write(target: &str) -> Result<(), String> {
    let bytes = read_kernel(target, "divergence.O2g.co")?;
    let dev = Device::new();
    let module = dev.load(&bytes).map_err(|e| e.to_string())?;
    let n = 120u32;
    let mut g = Gen(0x0f1e);
    let input: Vec<u32> = (0..n).map(|_| g.u32()).collect();
    let pin = alloc(&dev, &u32s(&input))?;
    let pout = alloc_zeroed(&dev, u64::from(n) * 4)?;
    let cfg = LaunchConfig::new_1d(
        128,
        64,
        vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(n)],
    );
    let launch = dev
        .launch(&module, "divergence", cfg)
        .map_err(|e| e.to_string())?;
    let image = Image::parse(&bytes).map_err(|e| e.to_string())?;
    let mut d = Debugger::new(&image, &dev, &module, launch);
    // The first statement of `if (lid & 1u) {`, before either branch.
    let line = source_line("divergence", "if (lid & 1u) {")?;
    let addrs = image
        .line_addresses("divergence.cl", line)
        .map_err(|e| e.to_string())?;
    d.break_at_address(addrs[0]);
    // One odd and one even work-item, in different groups.
    let victims = [(69u32, 0x1234_5677u32), (70u32, 0x0000_00fe)];
    let mut written = 0;
    while let Event::Breakpoint { group, wave, .. } = d.resume().map_err(|e| e.to_string())? {
        let ws = d.wave_size().map_err(|e| e.to_string())?;
        let exec = d.exec().map_err(|e| e.to_string())?;
        for lane in (0..ws).filter(|l| exec >> l & 1 != 0) {
            let gid = group[0] * 64 + wave * ws + lane;
            let Some(&(_, new)) = victims.iter().find(|(g, _)| *g == gid) else {
                continue;
            };
            let var = d.variable("v").map_err(|e| e.to_string())?;
            let before = d.read_variable(&var, lane).map_err(|e| e.to_string())?;
            if le(&before) != u64::from(input[gid as usize]) {
                return Err(format!("v of gid {gid} reads {:#x}", le(&before)));
            }
            d.write_variable(&var, lane, &new.to_le_bytes())
                .map_err(|e| e.to_string())?;
            let after = d.read_variable(&var, lane).map_err(|e| e.to_string())?;
            if le(&after) != u64::from(new) {
                return Err(format!(
                    "v of gid {gid} reads {:#x} after the write",
                    le(&after)
                ));
            }
            // The neighbour lane keeps its value.
            let other = lane ^ 1;
            if exec >> other & 1 != 0 {
                let o = d.read_variable(&var, other).map_err(|e| e.to_string())?;
                let ogid = gid ^ 1;
                if le(&o) != u64::from(input[ogid as usize]) {
                    return Err(format!("v of gid {ogid} changed to {:#x}", le(&o)));
                }
            }
            written += 1;
        }
    }
    if written != victims.len() {
        return Err(format!("{written} writes"));
    }
    let out = dev.read(pout, n as usize * 4).map_err(|e| e.to_string())?;
    for gid in 0..n {
        let v = victims
            .iter()
            .find(|(g, _)| *g == gid)
            .map(|(_, v)| *v)
            .unwrap_or(input[gid as usize]);
        let want = divergence_out(v, gid % 64);
        let got = le(&out[gid as usize * 4..][..4]) as u32;
        if got != want {
            return Err(format!("out[{gid}] = {got:#x}, expected {want:#x}"));
        }
    }
    Ok(())
}
