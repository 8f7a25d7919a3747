//! Runs the corpus kernels that PoCL 3.1 cannot run (no `cl_khr_subgroups`,
//! no OpenCL C 2.0 work-group functions, no `cl_khr_fp16`) and checks every
//! output against an exact computation on the host, for every target and
//! build: `subgroup_ops`, `subgroup_ext`, `workgroup_ops`, `fp16_arith`
//! (`kernels/src/*.cl`);
//! and `printf_fmt`, whose printf output (which the PoCL references do not
//! record) is compared with the C library's `snprintf` of the same formats
//! and arguments.
//!
//! Collectives: the host follows the OpenCL C 2.0 definitions: a sub-group is a wave
//! (consecutive linear local ids, `get_sub_group_size` the number of
//! work-items of the group in it), a scan visits the work-items in local id
//! order, an exclusive scan starts at the identity of the operation (0 for
//! add, the largest value of the type for min and the smallest for max,
//! +/-INFINITY for float). The inputs keep every sum exact (no signed
//! overflow, float sums of multiples of 1/16 far below 2^24).
//!
//! Half precision (`fp16_arith`): OpenCL C 3.0, section 7.4, table "ULP
//! values for half precision built-in math functions": `+ - *`, `fma`,
//! `fabs`, `fmin`, `fmax`, `floor`, `ceil`, `copysign` and conversions are
//! correctly rounded (0 ulp), `mad` is either the fused or the two-rounding
//! result, `x / y` and `sqrt` are within 1 ulp. The correctly rounded
//! results come from `f64` (exact for the sum, difference and product of
//! two halves) rounded once by the `half` crate, `fma` from an exact
//! integer computation. Any NaN matches any NaN; fmin/fmax of two zeros
//! may give either zero (C99 F.9.9.2/F.9.9.3 leave the sign open).
#![allow(clippy::needless_range_loop)]

use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use amdsim_sim_tests::{TARGETS, read_kernel};
use half::f16;

/// A small deterministic generator (xorshift).
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        (self.next() >> 11) % n
    }
}

fn wave_size(t: &str) -> u32 {
    if t == "gfx1010" || t == "gfx1030" {
        32
    } else {
        64
    }
}

/// The builds of a kernel for a target. The `-O0 -g` build of the
/// collectives does not exist for GFX10, that of `printf_fmt` for no target
/// (see `SKIPPED_BUILDS` in `kernels/tools/build.py`).
fn builds(t: &str, name: &str) -> Vec<String> {
    let mut v = vec![format!("{name}.co"), format!("{name}.O2g.co")];
    if !t.starts_with("gfx10") && name != "printf_fmt" {
        v.push(format!("{name}.O0g.co"));
    }
    v
}

/// Runs `f(target, file)` for every target and build and reports all
/// failures together.
fn all_builds(name: &str, f: impl Fn(&str, &str) -> Result<(), String>) {
    let mut failures = Vec::new();
    for t in TARGETS {
        for file in builds(t, name) {
            if let Err(e) = f(t, &file) {
                failures.push(format!("{t}/{file}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn bytes<T: Copy, const N: usize>(v: &[T], to: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| to(x)).collect()
}

fn read_words<const N: usize>(dev: &Device, a: u64, n: usize) -> Result<Vec<u64>, String> {
    Ok(dev
        .read(a, n * N)
        .map_err(|e| e.to_string())?
        .chunks_exact(N)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..N].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect())
}

/// The inputs of both collective kernels.
struct Inputs {
    n: u32,
    ins: Vec<i32>,
    uin: Vec<u32>,
    lin: Vec<i64>,
    fin: Vec<f32>,
}

impl Inputs {
    /// n items; blocks of 64 items with (i / 64) % 3 == 0 are non-negative
    /// (so `all(p >= 0)` is true in some groups), 0x5a5a appears in a few
    /// places (for `any(p == 0x5a5a)`), 0x12345678 in `uin` in a few.
    fn new(seed: u64, n: u32) -> Inputs {
        let mut g = Gen(seed);
        let mut ins = Vec::new();
        let mut uin = Vec::new();
        let mut lin = Vec::new();
        let mut fin = Vec::new();
        for i in 0..n as u64 {
            let mut x = g.below(1 << 22) as i32 - (1 << 21);
            if (i / 64) % 3 == 0 {
                x = x.abs();
            }
            if g.below(150) == 0 {
                x = 0x5a5a;
            }
            ins.push(x);
            uin.push(if g.below(200) == 0 {
                0x1234_5678
            } else {
                g.next() as u32
            });
            lin.push(g.below(1 << 51) as i64 - (1 << 50));
            // Multiples of 0.25 in [-1024, 1024], never zero.
            let q = g.below(8192) as i32 - 4096;
            fin.push(if q == 0 { 0.75 } else { q as f32 * 0.25 });
        }
        Inputs {
            n,
            ins,
            uin,
            lin,
            fin,
        }
    }

    /// The per-work-item values of the kernels for work-item `gid`:
    /// (x, u, l, f, p).
    fn lane(&self, gid: u32) -> (i32, u32, i64, f32, i32) {
        let i = gid as usize;
        let inr = gid < self.n;
        let mut x = if inr {
            self.ins[i]
        } else {
            (gid as i32).wrapping_neg()
        };
        let p = if inr { self.ins[i] } else { 0 };
        if x & 1 != 0 {
            x = x / 2 - 7;
        } else {
            let trips = (x >> 4) & 3;
            for k in 0..trips {
                x ^= k << 3;
            }
        }
        let u = if inr {
            self.uin[i]
        } else {
            gid.wrapping_mul(0x9e37_79b9)
        };
        let l = if inr { self.lin[i] } else { (gid as i64) << 40 };
        let f = if inr { self.fin[i] } else { 0.5 * gid as f32 };
        (x, u, l, f, p)
    }
}

/// Reduction, inclusive and exclusive scan of `v` under `op` with identity `id`.
fn scans<T: Copy>(v: &[T], id: T, op: impl Fn(T, T) -> T) -> (T, Vec<T>, Vec<T>) {
    let mut incl = Vec::with_capacity(v.len());
    let mut excl = Vec::with_capacity(v.len());
    let mut acc = id;
    for &x in v {
        excl.push(acc);
        acc = op(acc, x);
        incl.push(acc);
    }
    (acc, incl, excl)
}

/// All collective results of a set of values: [reduce, incl, excl] per
/// operation add, min, max, each as `u64` bit patterns per lane.
struct Coll {
    red: [u64; 3],
    incl: [Vec<u64>; 3],
    excl: [Vec<u64>; 3],
}

fn coll<T: Copy>(
    v: &[T],
    ids: [T; 3],
    ops: [&dyn Fn(T, T) -> T; 3],
    bits: impl Fn(T) -> u64,
) -> Coll {
    let r: Vec<(T, Vec<T>, Vec<T>)> = (0..3).map(|k| scans(v, ids[k], ops[k])).collect();
    let m = |w: &Vec<T>| w.iter().map(|&x| bits(x)).collect::<Vec<u64>>();
    Coll {
        red: [0, 1, 2].map(|k| bits(r[k].0)),
        incl: [0, 1, 2].map(|k| m(&r[k].1)),
        excl: [0, 1, 2].map(|k| m(&r[k].2)),
    }
}

fn coll_i32(v: &[i32]) -> Coll {
    coll(
        v,
        [0, i32::MAX, i32::MIN],
        [
            &|a: i32, b| a.wrapping_add(b),
            &|a: i32, b| a.min(b),
            &|a: i32, b| a.max(b),
        ],
        |x| x as u32 as u64,
    )
}
fn coll_u32(v: &[u32]) -> Coll {
    coll(
        v,
        [0, u32::MAX, 0],
        [
            &|a: u32, b| a.wrapping_add(b),
            &|a: u32, b| a.min(b),
            &|a: u32, b| a.max(b),
        ],
        |x| x as u64,
    )
}
fn coll_i64(v: &[i64]) -> Coll {
    coll(
        v,
        [0, i64::MAX, i64::MIN],
        [
            &|a: i64, b| a.wrapping_add(b),
            &|a: i64, b| a.min(b),
            &|a: i64, b| a.max(b),
        ],
        |x| x as u64,
    )
}
fn coll_u64(v: &[u64]) -> Coll {
    coll(
        v,
        [0, u64::MAX, 0],
        [
            &|a: u64, b| a.wrapping_add(b),
            &|a: u64, b| a.min(b),
            &|a: u64, b| a.max(b),
        ],
        |x| x,
    )
}
fn coll_f32(v: &[f32]) -> Coll {
    coll(
        v,
        [0.0, f32::INFINITY, f32::NEG_INFINITY],
        [&|a: f32, b| a + b, &|a: f32, b| a.min(b), &|a: f32, b| {
            a.max(b)
        }],
        |x| x.to_bits() as u64,
    )
}

/// One launch: grid, local size, items n, broadcast selector bl.
type Launch = (u32, u32, u32, u32);

/// Launches with full and partial waves, several waves per group,
/// non-uniform last groups (250 = 2 x 96 + 58, 130 = 2 x 48 + 34, 40 < 256)
/// and work-items past n.
const LAUNCHES: [Launch; 7] = [
    (512, 64, 512, 0),
    (300, 100, 295, 37),
    (250, 96, 250, 5),
    (90, 32, 85, 63),
    (40, 256, 40, 17),
    (130, 48, 126, 1),
    (512, 256, 500, 200),
];

/// The three output buffers of a collective kernel as bit patterns.
type Outputs = (Vec<u64>, Vec<u64>, Vec<u64>);

/// Dispatches a collective kernel and returns (iout, lout, fout) as bit
/// patterns, `ni`, `nl`, `nf` values per work-item of the first n.
#[allow(clippy::too_many_arguments)]
fn dispatch(
    t: &str,
    file: &str,
    kernel: &str,
    inp: &Inputs,
    launch: Launch,
    ni: usize,
    nl: usize,
    nf: usize,
) -> Result<Outputs, String> {
    let (grid, group, n, bl) = launch;
    let dev = Device::new();
    let code = read_kernel(t, file)?;
    let m = dev.load(&code).map_err(|e| e.to_string())?;
    let e = |e: amdgpu_sim::SimError| e.to_string();
    let pin = dev
        .alloc_bytes(&bytes(&inp.ins, i32::to_le_bytes))
        .map_err(e)?;
    let puin = dev
        .alloc_bytes(&bytes(&inp.uin, u32::to_le_bytes))
        .map_err(e)?;
    let plin = dev
        .alloc_bytes(&bytes(&inp.lin, i64::to_le_bytes))
        .map_err(e)?;
    let pfin = dev
        .alloc_bytes(&bytes(&inp.fin, f32::to_le_bytes))
        .map_err(e)?;
    // One more work-item's worth than n: the kernel must not write it.
    let sentinel = |k: usize| vec![0xa5u8; (n as usize + 1) * k];
    let piout = dev.alloc_bytes(&sentinel(ni * 4)).map_err(e)?;
    let plout = dev.alloc_bytes(&sentinel(nl * 8)).map_err(e)?;
    let pfout = dev.alloc_bytes(&sentinel(nf * 4)).map_err(e)?;
    let cfg = LaunchConfig::new_1d(
        grid,
        group,
        vec![
            ArgValue::Ptr(pin),
            ArgValue::Ptr(puin),
            ArgValue::Ptr(plin),
            ArgValue::Ptr(pfin),
            ArgValue::Ptr(piout),
            ArgValue::Ptr(plout),
            ArgValue::Ptr(pfout),
            ArgValue::U32(bl),
            ArgValue::U32(n),
        ],
    );
    dev.dispatch(&m, kernel, cfg).map_err(e)?;
    let n = n as usize;
    let iout = read_words::<4>(&dev, piout, (n + 1) * ni)?;
    let lout = read_words::<8>(&dev, plout, (n + 1) * nl)?;
    let fout = read_words::<4>(&dev, pfout, (n + 1) * nf)?;
    for (name, buf, k, s) in [
        ("iout", &iout, ni, 0xa5a5_a5a5u64),
        ("lout", &lout, nl, 0xa5a5_a5a5_a5a5_a5a5),
        ("fout", &fout, nf, 0xa5a5_a5a5),
    ] {
        if let Some(i) = buf[n * k..].iter().position(|&v| v != s) {
            return Err(format!(
                "{name}[{}] past n overwritten: {:#x}",
                n * k + i,
                buf[n * k + i]
            ));
        }
    }
    Ok((iout, lout, fout))
}

/// Compares one work-item's outputs; names the first difference.
fn check(what: &str, gid: u32, got: &[u64], want: &[u64]) -> Result<(), String> {
    for k in 0..want.len() {
        if got[k] != want[k] {
            return Err(format!(
                "{what}[{gid}][{k}]: got {:#x}, want {:#x} (values of the work-item: got {:x?}, \
                 want {:x?})",
                got[k], want[k], got, want
            ));
        }
    }
    Ok(())
}

#[test]
fn subgroup_ops() {
    all_builds("subgroup_ops", |t, file| {
        let ws = wave_size(t);
        for (li, &launch) in LAUNCHES.iter().enumerate() {
            let (grid, group, n, bl) = launch;
            let inp = Inputs::new(0x5eed + li as u64, n);
            let (iout, lout, fout) = dispatch(t, file, "subgroup_ops", &inp, launch, 32, 16, 12)
                .map_err(|e| format!("launch {launch:?}: {e}"))?;
            let enq_groups = group.div_ceil(ws);
            let max_sg = ws.min(group);
            for g0 in (0..grid).step_by(group as usize) {
                let lsz = group.min(grid - g0);
                for s0 in (0..lsz).step_by(ws as usize) {
                    let sgs = ws.min(lsz - s0);
                    let ids: Vec<u32> = (g0 + s0..g0 + s0 + sgs).collect();
                    let lanes: Vec<_> = ids.iter().map(|&gid| inp.lane(gid)).collect();
                    let xs: Vec<i32> = lanes.iter().map(|v| v.0).collect();
                    let us: Vec<u32> = lanes.iter().map(|v| v.1).collect();
                    let ls: Vec<i64> = lanes.iter().map(|v| v.2).collect();
                    let fs: Vec<f32> = lanes.iter().map(|v| v.3).collect();
                    let ps: Vec<i32> = lanes.iter().map(|v| v.4).collect();
                    let uls: Vec<u64> = ls
                        .iter()
                        .zip(&us)
                        .map(|(&l, &u)| l as u64 ^ ((u as u64) << 32))
                        .collect();
                    let sgid = s0 / ws;
                    let lane = (bl % sgs) as usize;
                    let cx = coll_i32(&xs);
                    let cu = coll_u32(&us);
                    let cl = coll_i64(&ls);
                    let cul = coll_u64(&uls);
                    let cf = coll_f32(&fs);
                    let cf4 = coll_f32(&fs.iter().map(|f| f * 0.25).collect::<Vec<_>>());
                    let cfn = coll_f32(&fs.iter().map(|f| -f).collect::<Vec<_>>());
                    let cux: Vec<u32> = us.iter().enumerate().map(|(j, &u)| u ^ j as u32).collect();
                    let cux = coll_u32(&cux);
                    let any_magic = ps.contains(&0x5a5a) as u64;
                    let all_nonneg = ps.iter().all(|&p| p >= 0) as u64;
                    let any2 = xs
                        .iter()
                        .enumerate()
                        .any(|(j, &x)| x < -1_000_000 || j == lane);
                    let all2 = us.iter().all(|&u| u != 0x1234_5678);
                    for (j, &gid) in ids.iter().enumerate() {
                        if gid >= n {
                            continue;
                        }
                        let r28 = if sgid & 1 == 1 {
                            (cx.red[2] as u32).wrapping_add(1) as u64
                        } else {
                            cux.excl[0][j]
                        };
                        let (inc_x, exc_x) = (cx.incl[0][j] as u32, cx.excl[0][j] as u32);
                        let (inc_u, exc_u) = (cu.incl[0][j] as u32, cu.excl[0][j] as u32);
                        let r29 = if j & 1 == 1 {
                            inc_x.wrapping_sub(exc_x)
                        } else {
                            inc_u ^ exc_u
                        };
                        let mut wi: Vec<u64> = vec![
                            sgs as u64,
                            sgid as u64,
                            j as u64,
                            lsz.div_ceil(ws) as u64,
                            max_sg as u64,
                            enq_groups as u64,
                        ];
                        wi.extend(cx.red);
                        wi.extend((0..3).map(|k| cx.incl[k][j]));
                        wi.extend((0..3).map(|k| cx.excl[k][j]));
                        wi.push(xs[lane] as u32 as u64);
                        wi.push(any_magic);
                        wi.push(all_nonneg);
                        wi.extend(cu.red);
                        wi.extend((0..3).map(|k| cu.incl[k][j]));
                        wi.extend((0..3).map(|k| cu.excl[k][j]));
                        wi.push(us[lane] as u64);
                        wi.push(r28);
                        wi.push(r29 as u64);
                        wi.push(any2 as u64);
                        wi.push(all2 as u64);
                        let mut wl: Vec<u64> = cl.red.to_vec();
                        wl.extend((0..3).map(|k| cl.incl[k][j]));
                        wl.extend((0..3).map(|k| cl.excl[k][j]));
                        wl.push(ls[lane] as u64);
                        wl.extend([cul.red[1], cul.red[2], cul.incl[2][j], cul.excl[1][j]]);
                        wl.push(cul.incl[0][j]);
                        wl.push(uls[(lane + 1) % sgs as usize]);
                        let mut wf: Vec<u64> = cf.red.to_vec();
                        wf.extend((0..3).map(|k| cf.incl[k][j]));
                        wf.extend((0..3).map(|k| cf.excl[k][j]));
                        wf.push(fs[lane].to_bits() as u64);
                        wf.push(cf4.red[0]);
                        wf.push(cfn.incl[2][j]);
                        let gi = gid as usize;
                        let ctx = format!("launch {launch:?}: ");
                        check(
                            &format!("{ctx}iout"),
                            gid,
                            &iout[gi * 32..gi * 32 + 32],
                            &wi,
                        )?;
                        check(
                            &format!("{ctx}lout"),
                            gid,
                            &lout[gi * 16..gi * 16 + 16],
                            &wl,
                        )?;
                        check(
                            &format!("{ctx}fout"),
                            gid,
                            &fout[gi * 12..gi * 12 + 12],
                            &wf,
                        )?;
                    }
                }
            }
        }
        Ok(())
    });
}

#[test]
fn workgroup_ops() {
    all_builds("workgroup_ops", |t, file| {
        for (li, &launch) in LAUNCHES.iter().enumerate() {
            let (grid, group, n, bl) = launch;
            let inp = Inputs::new(0x3eed + li as u64, n);
            let (iout, lout, fout) = dispatch(t, file, "workgroup_ops", &inp, launch, 24, 12, 8)
                .map_err(|e| format!("launch {launch:?}: {e}"))?;
            for g0 in (0..grid).step_by(group as usize) {
                let lsz = group.min(grid - g0);
                let ids: Vec<u32> = (g0..g0 + lsz).collect();
                let lanes: Vec<_> = ids.iter().map(|&gid| inp.lane(gid)).collect();
                let xs: Vec<i32> = lanes.iter().map(|v| v.0).collect();
                let us: Vec<u32> = lanes.iter().map(|v| v.1).collect();
                let ls: Vec<i64> = lanes.iter().map(|v| v.2).collect();
                let fs: Vec<f32> = lanes.iter().map(|v| v.3).collect();
                let ps: Vec<i32> = lanes.iter().map(|v| v.4).collect();
                let uls: Vec<u64> = ls
                    .iter()
                    .zip(&us)
                    .map(|(&l, &u)| l as u64 ^ ((u as u64) << 32))
                    .collect();
                let src = (bl % lsz) as usize;
                let cx = coll_i32(&xs);
                let cu = coll_u32(&us);
                let cl = coll_i64(&ls);
                let cul = coll_u64(&uls);
                let cf = coll_f32(&fs);
                let any_magic = ps.contains(&0x5a5a) as u64;
                let all_nonneg = ps.iter().all(|&p| p >= 0) as u64;
                let any2 = xs
                    .iter()
                    .enumerate()
                    .any(|(j, &x)| x < -1_000_000 || j == src);
                for (j, &gid) in ids.iter().enumerate() {
                    if gid >= n {
                        continue;
                    }
                    let (inc_x, exc_x) = (cx.incl[0][j] as u32, cx.excl[0][j] as u32);
                    let (inc_u, exc_u) = (cu.incl[0][j] as u32, cu.excl[0][j] as u32);
                    let r22 = if j % 3 == 0 {
                        inc_x.wrapping_sub(exc_x)
                    } else {
                        inc_u ^ exc_u
                    };
                    let mut wi: Vec<u64> = cx.red.to_vec();
                    wi.extend((0..3).map(|k| cx.incl[k][j]));
                    wi.extend((0..3).map(|k| cx.excl[k][j]));
                    wi.push(xs[src] as u32 as u64);
                    wi.push(any_magic);
                    wi.push(all_nonneg);
                    wi.extend(cu.red);
                    wi.extend((0..3).map(|k| cu.incl[k][j]));
                    wi.extend((0..3).map(|k| cu.excl[k][j]));
                    wi.push(us[(src + 1) % lsz as usize] as u64);
                    wi.push(r22 as u64);
                    wi.push(any2 as u64);
                    let mut wl: Vec<u64> = cl.red.to_vec();
                    wl.extend([cl.incl[0][j], cl.incl[1][j], cl.excl[0][j], cl.excl[2][j]]);
                    wl.push(ls[src] as u64);
                    wl.extend([cul.red[1], cul.red[2], cul.incl[2][j], cul.excl[1][j]]);
                    let mut wf: Vec<u64> = cf.red.to_vec();
                    wf.extend([cf.incl[0][j], cf.incl[2][j], cf.excl[0][j], cf.excl[1][j]]);
                    wf.push(fs[src].to_bits() as u64);
                    let gi = gid as usize;
                    let ctx = format!("launch {launch:?}: ");
                    check(
                        &format!("{ctx}iout"),
                        gid,
                        &iout[gi * 24..gi * 24 + 24],
                        &wi,
                    )?;
                    check(
                        &format!("{ctx}lout"),
                        gid,
                        &lout[gi * 12..gi * 12 + 12],
                        &wl,
                    )?;
                    check(&format!("{ctx}fout"), gid, &fout[gi * 8..gi * 8 + 8], &wf)?;
                }
            }
        }
        Ok(())
    });
}

/// `a * b + c` for halves, correctly rounded to half (round to nearest
/// even) from the exact value: every half is an integer times 2^-24, so
/// the exact result is an integer times 2^-48.
fn fma_f16(a: f16, b: f16, c: f16) -> f16 {
    let (a64, b64, c64) = (a.to_f64(), b.to_f64(), c.to_f64());
    if !(a64.is_finite() && b64.is_finite() && c64.is_finite()) {
        // Infinities and NaN: the f64 result is exact.
        return f16::from_f64(a64.mul_add(b64, c64));
    }
    let int = |x: f64| (x * 16_777_216.0) as i128; // exact: |x| * 2^24 < 2^40
    let n = int(a64) * int(b64) + int(c64) * (1 << 24);
    if n == 0 {
        // The sign of an exact zero follows IEEE 754 (f64 gives it).
        return f16::from_f64(a64.mul_add(b64, c64));
    }
    let mag = n.unsigned_abs();
    let e = 127 - mag.leading_zeros() as i32 - 48; // value in [2^e, 2^(e+1))
    let ue = (e - 10).max(-24); // the half ulp exponent at that magnitude
    let shift = (ue + 48) as u32;
    let mut q = mag >> shift;
    if shift > 0 {
        let rem = mag & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q += 1;
        }
    }
    let v = q as f64 * 2f64.powi(ue); // exact; >= 65520 becomes infinity
    f16::from_f64(if n < 0 { -v } else { v })
}

/// The spacing of halves at the magnitude of `x` (a finite real).
fn ulp_f16(x: f64) -> f64 {
    let x = x.abs();
    if x < 2f64.powi(-14) {
        return 2f64.powi(-24);
    }
    let e = x.log2().floor() as i32;
    // log2 may be off by one next to a power of two; fix it.
    let e = if 2f64.powi(e) > x {
        e - 1
    } else if 2f64.powi(e + 1) <= x {
        e + 1
    } else {
        e
    };
    2f64.powi(e.min(15) - 10)
}

fn same_f16(got: u16, want: f16) -> bool {
    let g = f16::from_bits(got);
    got == want.to_bits() || (g.is_nan() && want.is_nan())
}

/// `got` is within 1 ulp of the real `exact` (the OpenCL bound of half
/// `x / y` and `sqrt`); special results must be exact.
fn within_1ulp(got: u16, exact: f64) -> bool {
    let g = f16::from_bits(got);
    if exact.is_nan() {
        return g.is_nan();
    }
    if exact.is_infinite() || exact == 0.0 {
        return g.to_f64() == exact;
    }
    if exact.abs() >= 65520.0 {
        // Rounds to infinity; a finite result would be far off.
        return g.is_infinite() && (g.to_f64() > 0.0) == (exact > 0.0);
    }
    let gv = if g.is_infinite() {
        65536f64.copysign(g.to_f64())
    } else {
        g.to_f64()
    };
    !g.is_nan() && (gv - exact).abs() <= ulp_f16(exact)
}

fn fmin_ok(got: u16, x: f16, y: f16, max: bool) -> bool {
    let (xf, yf) = (x.to_f32(), y.to_f32());
    if xf == 0.0 && yf == 0.0 {
        return f16::from_bits(got).to_f32() == 0.0;
    }
    let w = if max { xf.max(yf) } else { xf.min(yf) };
    same_f16(got, f16::from_f32(w))
}

/// Special halves: zeros, one and its neighbours, the largest half, the
/// smallest normal, denormals, infinities, a quiet NaN, values whose sums
/// and products round (ties between halves).
const F16_SPECIALS: [u16; 16] = [
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x3c01, 0x7bff, 0xfbff, 0x0400, 0x0001, 0x83ff, 0x7c00, 0xfc00,
    0x7e00, 0x3555, 0x6800, 0x1001,
];

/// The inputs of `fp16_arith`: four halves per work-item in `a`, `b`, `c`
/// (the work-item's scalar operands are in slot `gid & 3`), and an int `k`.
struct Fp16Inputs {
    a: Vec<u16>,
    b: Vec<u16>,
    c: Vec<u16>,
    k: Vec<i32>,
}

/// Ints the conversions see first: zero, the limits of half and of the
/// types, ties.
const K_SPECIALS: [i32; 16] = [
    0,
    1,
    -1,
    65504,
    65519,
    65520,
    65536,
    -65520,
    2049,
    2051,
    4097,
    i32::MAX,
    i32::MIN,
    32767,
    -32768,
    0x12345,
];

/// Any finite or infinite half, or a value in [-16, 16] (sums of those
/// round often), never a NaN but the one special.
fn random_half(g: &mut Gen) -> u16 {
    loop {
        let v = if g.below(2) == 0 {
            g.next() as u16
        } else {
            f16::from_f32((g.below(1 << 16) as f32 - 32768.0) / 2048.0).to_bits()
        };
        if !f16::from_bits(v).is_nan() {
            break v;
        }
    }
}

fn fp16_inputs(n: u32) -> Fp16Inputs {
    let mut g = Gen(0xf16);
    let sp = |i: u64| F16_SPECIALS[(i % 16) as usize];
    let (mut a, mut b, mut c) = (vec![], vec![], vec![]);
    for gid in 0..n as u64 {
        let s = gid & 3;
        for j in 0..4u64 {
            if gid < 256 {
                // Slot s of the first 256 work-items: every pair of specials.
                a.push(sp(gid + 16 + j - s));
                b.push(sp(gid / 16 + 48 + 3 * j - 3 * s));
                c.push(sp(gid * 7 + j));
            } else {
                a.push(random_half(&mut g));
                b.push(random_half(&mut g));
                c.push(random_half(&mut g));
            }
        }
    }
    let k: Vec<i32> = (0..n as usize)
        .map(|i| {
            K_SPECIALS
                .get(i)
                .copied()
                .unwrap_or_else(|| (g.next() >> (g.below(40) + 8)) as i32)
        })
        .collect();
    Fp16Inputs { a, b, c, k }
}

/// The outputs of `fp16_arith`: 40 halves, 6 floats and 12 ints per
/// work-item.
struct Fp16Outputs {
    h: Vec<u64>,
    f: Vec<u64>,
    i: Vec<u64>,
}

/// Runs the `fp16_arith` build `file` of `t` on `n` work-items; fails if an
/// output past `n` is written.
fn fp16_run(t: &str, file: &str, inp: &Fp16Inputs, n: u32) -> Result<Fp16Outputs, String> {
    let dev = Device::new();
    let code = read_kernel(t, file)?;
    let m = dev.load(&code).map_err(|e| e.to_string())?;
    let e = |e: amdgpu_sim::SimError| e.to_string();
    let pa = dev
        .alloc_bytes(&bytes(&inp.a, u16::to_le_bytes))
        .map_err(e)?;
    let pb = dev
        .alloc_bytes(&bytes(&inp.b, u16::to_le_bytes))
        .map_err(e)?;
    let pc = dev
        .alloc_bytes(&bytes(&inp.c, u16::to_le_bytes))
        .map_err(e)?;
    let pk = dev
        .alloc_bytes(&bytes(&inp.k, i32::to_le_bytes))
        .map_err(e)?;
    let nn = n as usize;
    let ph = dev.alloc_bytes(&vec![0xa5; (nn + 1) * 80]).map_err(e)?;
    let pf = dev.alloc_bytes(&vec![0xa5; (nn + 1) * 24]).map_err(e)?;
    let pi = dev.alloc_bytes(&vec![0xa5; (nn + 1) * 48]).map_err(e)?;
    let args = [pa, pb, pc, pk, ph, pf, pi].map(ArgValue::Ptr);
    let mut args = args.to_vec();
    args.push(ArgValue::U32(n));
    dev.dispatch(&m, "fp16_arith", LaunchConfig::new_1d(704, 64, args))
        .map_err(e)?;
    let h = read_words::<2>(&dev, ph, (nn + 1) * 40)?;
    let f = read_words::<4>(&dev, pf, (nn + 1) * 6)?;
    let i = read_words::<4>(&dev, pi, (nn + 1) * 12)?;
    if h[nn * 40..].iter().any(|&v| v != 0xa5a5)
        || f[nn * 6..]
            .iter()
            .chain(&i[nn * 12..])
            .any(|&v| v != 0xa5a5_a5a5)
    {
        return Err("output past n overwritten".into());
    }
    Ok(Fp16Outputs { h, f, i })
}

/// One work-item of `fp16_arith`: its scalar operands, its vectors, and
/// what its outputs are.
struct Fp16Item<'a> {
    x: f16,
    y: f16,
    z: f16,
    kk: i32,
    va: [f16; 4],
    vb: [f16; 4],
    vc: [f16; 4],
    /// The halves, floats and ints the work-item wrote.
    hout: &'a [u64],
    fout: &'a [u64],
    iout: &'a [u64],
    ctx: String,
}

impl<'a> Fp16Item<'a> {
    fn new(inp: &Fp16Inputs, out: &'a Fp16Outputs, gid: usize) -> Self {
        let h = f16::from_bits;
        let s = gid & 3;
        let (x, y, z) = (
            h(inp.a[4 * gid + s]),
            h(inp.b[4 * gid + s]),
            h(inp.c[4 * gid + s]),
        );
        let kk = inp.k[gid];
        let ctx = format!(
            "gid {gid}: x {:#06x} y {:#06x} z {:#06x} k {kk}",
            x.to_bits(),
            y.to_bits(),
            z.to_bits()
        );
        Fp16Item {
            x,
            y,
            z,
            kk,
            va: std::array::from_fn(|j| h(inp.a[4 * gid + j])),
            vb: std::array::from_fn(|j| h(inp.b[4 * gid + j])),
            vc: std::array::from_fn(|j| h(inp.c[4 * gid + j])),
            hout: &out.h[40 * gid..40 * gid + 40],
            fout: &out.f[6 * gid..6 * gid + 6],
            iout: &out.i[12 * gid..12 * gid + 12],
            ctx,
        }
    }

    /// Half output `i`.
    fn go(&self, i: usize) -> u16 {
        self.hout[i] as u16
    }

    fn fail(&self, what: &str, got: u64, want: String) -> Result<(), String> {
        Err(format!("{}: {what}: got {got:#x}, want {want}", self.ctx))
    }

    /// x * y correctly rounded.
    fn prod(&self) -> f16 {
        f16::from_f64(self.x.to_f64() * self.y.to_f64())
    }

    /// The correctly rounded scalar results (0 ulp) and `mad`.
    fn check_scalar_exact(&self) -> Result<(), String> {
        let (x, y, z, kk) = (self.x, self.y, self.z, self.kk);
        let (h, rn) = (f16::from_bits, f16::from_f64);
        let (xd, yd, zd) = (x.to_f64(), y.to_f64(), z.to_f64());
        let prod = self.prod();
        let fused = fma_f16(x, y, z);
        let unfused = rn(prod.to_f64() + zd);
        let exact: [(usize, &str, f16); 15] = [
            (0, "x + y", rn(xd + yd)),
            (1, "x - y", rn(xd - yd)),
            (2, "x * y", prod),
            (3, "fma", fused),
            (9, "fabs", h(x.to_bits() & 0x7fff)),
            (10, "-x", h(x.to_bits() ^ 0x8000)),
            (11, "x * y + z", unfused),
            (
                12,
                "(half)((float)x * 3 + k)",
                f16::from_f32(x.to_f32() * 3.0 + kk as f32),
            ),
            (13, "convert_half(k)", rn(kk as f64)),
            (14, "convert_half((short)k)", rn(kk as i16 as f64)),
            (
                15,
                "x < y ? x : z",
                if x.to_f32() < y.to_f32() { x } else { z },
            ),
            (16, "select", if x.to_f32() >= z.to_f32() { y } else { x }),
            (
                17,
                "copysign",
                h((x.to_bits() & 0x7fff) | (y.to_bits() & 0x8000)),
            ),
            (18, "floor", rn(xd.floor())),
            (19, "ceil", rn(xd.ceil())),
        ];
        for (i, what, want) in exact {
            if !same_f16(self.go(i), want) {
                return self.fail(what, self.go(i) as u64, format!("{:#06x}", want.to_bits()));
            }
        }
        if !(same_f16(self.go(4), fused) || same_f16(self.go(4), unfused)) {
            return self.fail(
                "mad",
                self.go(4) as u64,
                format!("{:#06x} or {:#06x}", fused.to_bits(), unfused.to_bits()),
            );
        }
        Ok(())
    }

    /// `x / y` and `sqrt` within 1 ulp, `fmin` and `fmax`.
    fn check_scalar_bounded(&self) -> Result<(), String> {
        let (x, y) = (self.x, self.y);
        let (xd, yd) = (x.to_f64(), y.to_f64());
        if !within_1ulp(self.go(5), xd / yd) {
            return self.fail(
                "x / y",
                self.go(5) as u64,
                format!("{} within 1 ulp", xd / yd),
            );
        }
        if !within_1ulp(self.go(6), xd.abs().sqrt()) {
            return self.fail(
                "sqrt",
                self.go(6) as u64,
                format!("{} within 1 ulp", xd.abs().sqrt()),
            );
        }
        if !fmin_ok(self.go(7), x, y, false) || !fmin_ok(self.go(8), x, y, true) {
            return self.fail(
                "fmin/fmax",
                (self.go(7) as u64) << 16 | self.go(8) as u64,
                "min, max".into(),
            );
        }
        Ok(())
    }

    /// The half4 operations, lane by lane, and the swizzles.
    fn check_vectors(&self) -> Result<(), String> {
        let (va, vb, vc) = (self.va, self.vb, self.vc);
        let rn = f16::from_f64;
        for j in 0..4 {
            let (p, q, r) = (va[j], vb[j], vc[j]);
            let vec_exact = [
                (20 + j, "va + vb", rn(p.to_f64() + q.to_f64())),
                (24 + j, "va * vb", rn(p.to_f64() * q.to_f64())),
                (28 + j, "fma(va, vb, vc)", fma_f16(p, q, r)),
                (
                    36 + j,
                    "select(va, vb, va < vb)",
                    if p.to_f32() < q.to_f32() { q } else { p },
                ),
            ];
            for (i, what, want) in vec_exact {
                if !same_f16(self.go(i), want) {
                    return self.fail(
                        &format!("{what} lane {j}"),
                        self.go(i) as u64,
                        format!("{:#06x}", want.to_bits()),
                    );
                }
            }
        }
        for j in 0..2 {
            if !fmin_ok(self.go(32 + j), va[j], vb[3 - j], true) {
                return self.fail("fmax(va.xy, vb.wz)", self.go(32 + j) as u64, String::new());
            }
            let d = rn(va[2 + j].to_f64() - vc[j].to_f64());
            if !same_f16(self.go(34 + j), d) {
                return self.fail(
                    "va.zw - vc.xy",
                    self.go(34 + j) as u64,
                    format!("{:#06x}", d.to_bits()),
                );
            }
        }
        Ok(())
    }

    /// The float outputs: conversions and products widened to float.
    fn check_floats(&self) -> Result<(), String> {
        let (x, y) = (self.x, self.y);
        let fo = self.fout;
        let mut fw = vec![x.to_f32(), x.to_f32() * y.to_f32()];
        fw.extend(
            (0..4).map(|j| f16::from_f64(self.va[j].to_f64() * self.vc[j].to_f64()).to_f32()),
        );
        for (i, w) in fw.iter().enumerate() {
            let gf = f32::from_bits(fo[i] as u32);
            if fo[i] as u32 != w.to_bits() && !(gf.is_nan() && w.is_nan()) {
                return self.fail(&format!("fout[{i}]"), fo[i], format!("{w}"));
            }
        }
        Ok(())
    }

    /// The int outputs: conversions, comparisons and classifications.
    fn check_ints(&self) -> Result<(), String> {
        let (x, y, z) = (self.x, self.y, self.z);
        let prod = self.prod();
        let io: Vec<i32> = self.iout.iter().map(|&v| v as u32 as i32).collect();
        let sat = |v: f32| if v.is_nan() { 0 } else { v as i32 }; // Rust `as` saturates
        let (xf, yf, zf) = (x.to_f32(), y.to_f32(), z.to_f32());
        let mut iw = vec![
            if xf.is_finite() { xf as i32 } else { 0 },
            if prod.is_nan() { 7 } else { sat(prod.to_f32()) },
            (xf < yf) as i32,
            (xf == yf) as i32,
            f16::from_f64(x.to_f64() + y.to_f64()).is_nan() as i32,
            prod.is_infinite() as i32,
            (xf < zf) as i32,
            (yf >= zf) as i32,
        ];
        iw.extend((0..4).map(|j| -((self.va[j].to_f32() > self.vb[j].to_f32()) as i32)));
        if io != iw {
            return Err(format!("{}: iout: got {io:?}, want {iw:?}", self.ctx));
        }
        Ok(())
    }
}

#[test]
fn fp16_arith() {
    let n = 700u32;
    let inp = fp16_inputs(n);
    all_builds("fp16_arith", |t, file| {
        let out = fp16_run(t, file, &inp, n)?;
        for gid in 0..n as usize {
            let item = Fp16Item::new(&inp, &out, gid);
            item.check_scalar_exact()?;
            item.check_scalar_bounded()?;
            item.check_vectors()?;
            item.check_floats()?;
            item.check_ints()?;
        }
        Ok(())
    });
}

#[test]
fn fma_f16_rounds_once() {
    let h = |v: f32| f16::from_f32(v);
    // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even is 1.
    assert_eq!(fma_f16(h(1.0), h(1.0), f16::from_bits(0x1000)), h(1.0));
    // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20: exact product needs 21 bits; plus
    // the tiny 2^-24 it rounds to 1 + 2^-9.
    let p = f16::from_bits(0x3c01);
    assert_eq!(fma_f16(p, p, f16::from_bits(0x0001)).to_bits(), 0x3c02);
    // A tie broken by the addend: 1 + 2^-11 + 2^-24 rounds up.
    let t = fma_f16(h(1.0), h(1.0), f16::from_bits(0x1000));
    assert_eq!(t.to_bits(), 0x3c00);
    let tie_up = fma_f16(f16::from_bits(0x1000), h(1.0), f16::from_bits(0x3c00));
    assert_eq!(tie_up.to_bits(), 0x3c00);
    assert_eq!(fma_f16(h(65504.0), h(1.0), h(16.0)).to_bits(), 0x7c00);
    assert_eq!(fma_f16(h(65504.0), h(1.0), h(15.0)).to_bits(), 0x7bff);
    assert_eq!(ulp_f16(1.0), 2f64.powi(-10));
    assert_eq!(ulp_f16(0.99), 2f64.powi(-11));
    assert_eq!(ulp_f16(1e-6), 2f64.powi(-24));
}

unsafe extern "C" {
    /// The C library's `snprintf` (glibc here): the host's own formatting of
    /// the printf conversions, independent of the simulator's.
    fn snprintf(buf: *mut std::ffi::c_char, n: usize, fmt: *const std::ffi::c_char, ...) -> i32;
}

/// `snprintf(fmt, args...)` for up to 10 arguments of the C types the
/// format names (already promoted: int, long, unsigned long, double).
macro_rules! cfmt {
    ($fmt:expr $(, $a:expr)* $(,)?) => {{
        let mut buf = vec![0u8; 512];
        let f = std::ffi::CString::new($fmt).unwrap();
        // SAFETY: the buffer is 512 bytes and named as such; the format
        // and the argument types agree (each call site passes what its
        // conversions read).
        let n = unsafe { snprintf(buf.as_mut_ptr().cast(), buf.len(), f.as_ptr() $(, $a)*) };
        assert!((0..512).contains(&n), "snprintf: {n}");
        buf.truncate(n as usize);
        String::from_utf8(buf).unwrap()
    }};
}

/// What `kernels/src/printf_fmt.cl` prints for work-item `i` (its lines in
/// order), formatted by the C library; the vector conversions are the
/// elements' conversions joined by "," (OpenCL C, "printf").
fn printf_fmt_lines(i: u32, v: i32, x: f64) -> Vec<String> {
    use std::ffi::{c_int, c_long, c_uint, c_ulong};
    let mut lines = Vec::new();
    if v & 1 != 0 {
        lines.push(cfmt!(
            "A %u: %d|%+5i|% d|%-6x|%#X|%o|%08.3d|%c|%s|%%\n",
            i as c_uint,
            v as c_int,
            v as c_int,
            v as c_int,
            v as c_int,
            v as c_uint,
            v as c_uint & 0o777,
            v as c_int,
            (b'a' as i32 + (i % 26) as i32) as c_int,
            c"str".as_ptr()
        ));
    }
    // A NaN made by an operation is positive on AMD GPUs (the default NaN
    // 0x7fc00000 / 0x7ff8000000000000) but negative on x86: print the
    // device's.
    let dev_nan = |f: f64| if f.is_nan() { f64::NAN } else { f };
    for k in 0..(v & 3) {
        lines.push(cfmt!(
            "B %u.%d: %hhd %hd %ld %lu %.3f %e %.2E %g %G\n",
            i as c_uint,
            k as c_int,
            v.wrapping_add(k) as i8 as c_int,
            v.wrapping_mul(300) as i16 as c_int,
            (v as i64).wrapping_mul(1_000_000_007) as c_long,
            (v as u32 as u64).wrapping_mul(4_294_967_311) as c_ulong,
            dev_nan(((x as f32) * k as f32) as f64),
            x,
            x / (k + 1) as f64,
            dev_nan(x * k as f64),
            (x * 1e-5) as f32 as f64
        ));
    }
    if v < 0 {
        lines.push(cfmt!(
            "C %u: %a %.3a %10.4f %-10.2e|\n",
            i as c_uint,
            x,
            x as f32 as f64,
            x,
            x
        ));
    }
    if i == 0 {
        let a = [v, v.wrapping_neg(), 7, -8]
            .map(|e| cfmt!("%d", e as c_int))
            .join(",");
        let b = [0.5f64, -1.25].map(|e| cfmt!("%f", e)).join(",");
        let c = [v as u8, 255, 16]
            .map(|e| cfmt!("%hhx", e as c_int))
            .join(",");
        lines.push(format!("D {a} {b} {c}\n"));
    }
    lines
}

#[test]
fn printf_fmt() {
    let n = 300u32;
    let mut g = Gen(0x9f);
    let vs: Vec<i32> = (0..n)
        .map(|i| match i {
            0 => -5,
            1 => i32::MAX,
            2 => i32::MIN + 1,
            3 => -1,
            _ => (g.next() >> (g.below(32) + 32)) as i32,
        })
        .collect();
    let specials = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1.0,
        -0.1,
        1e300,
        123456.789,
    ];
    let ds: Vec<f64> = (0..n as usize)
        .map(|i| {
            specials.get(i).copied().unwrap_or_else(|| {
                let m = (g.below(1 << 52) as f64 / (1u64 << 52) as f64 + 1.0)
                    * if g.below(2) == 0 { 1.0 } else { -1.0 };
                m * 2f64.powi(g.below(80) as i32 - 40)
            })
        })
        .collect();
    all_builds("printf_fmt", |t, file| {
        let dev = Device::new();
        let code = read_kernel(t, file)?;
        let m = dev.load(&code).map_err(|e| e.to_string())?;
        let e = |e: amdgpu_sim::SimError| e.to_string();
        let pin = dev.alloc_bytes(&bytes(&vs, i32::to_le_bytes)).map_err(e)?;
        let pd = dev.alloc_bytes(&bytes(&ds, f64::to_le_bytes)).map_err(e)?;
        let pout = dev
            .alloc_bytes(&vec![0xa5; (n as usize + 1) * 4])
            .map_err(e)?;
        let cfg = LaunchConfig::new_1d(
            320,
            64,
            vec![
                ArgValue::Ptr(pin),
                ArgValue::Ptr(pd),
                ArgValue::Ptr(pout),
                ArgValue::U32(n),
            ],
        );
        let l = dev.launch(&m, "printf_fmt", cfg).map_err(e)?;
        dev.run(&l).map_err(e)?;
        let text = amdsim_host::printf::launch_output(&l, &dev.mem)
            .ok_or("no printf buffer")?
            .map_err(|e| e.to_string())?;
        let ret = read_words::<4>(&dev, pout, n as usize + 1)?;
        if let Some(i) = ret[..n as usize].iter().position(|&r| r != 0) {
            return Err(format!("printf returned {:#x} in work-item {i}", ret[i]));
        }
        if ret[n as usize] != 0xa5a5_a5a5 {
            return Err("out[n] overwritten".into());
        }
        // Each work-item's lines in output order (D belongs to work-item 0).
        let mut got: Vec<Vec<String>> = vec![Vec::new(); n as usize];
        for line in text.split_inclusive('\n') {
            let owner = if line.starts_with("D ") {
                0
            } else {
                line.get(2..)
                    .and_then(|r| r.split([':', '.']).next())
                    .and_then(|s| s.parse::<usize>().ok())
                    .filter(|&i| i < n as usize)
                    .ok_or_else(|| format!("unexpected output line {line:?}"))?
            };
            got[owner].push(line.to_string());
        }
        for i in 0..n as usize {
            let want = printf_fmt_lines(i as u32, vs[i], ds[i]);
            if got[i] != want {
                return Err(format!("work-item {i}: got {:?}, want {want:?}", got[i]));
            }
        }
        Ok(())
    });
}

fn coll_f64(v: &[f64]) -> Coll {
    coll(
        v,
        [0.0, f64::INFINITY, f64::NEG_INFINITY],
        [&|a: f64, b| a + b, &|a: f64, b| a.min(b), &|a: f64, b| {
            a.max(b)
        }],
        |x| x.to_bits(),
    )
}

/// Half values as f64 (every sum here is exact in half), results as half
/// bit patterns.
fn coll_f16(v: &[f64]) -> Coll {
    coll(
        v,
        [0.0, f64::INFINITY, f64::NEG_INFINITY],
        [&|a: f64, b| a + b, &|a: f64, b| a.min(b), &|a: f64, b| {
            a.max(b)
        }],
        |x| f16::from_f64(x).to_bits() as u64,
    )
}

#[test]
fn subgroup_ext() {
    all_builds("subgroup_ext", |t, file| {
        let ws = wave_size(t);
        for (li, &launch) in LAUNCHES.iter().enumerate() {
            let (grid, group, n, bl) = launch;
            let mut g = Gen(0xe47 + li as u64);
            // Multiples of 2^-8 within 2^20; multiples of 0.5 in [-4, 4].
            let din: Vec<f64> = (0..n)
                .map(|_| (g.below(1 << 29) as f64 - (1 << 28) as f64) / 256.0)
                .collect();
            let hin: Vec<u16> = (0..n)
                .map(|_| f16::from_f64(g.below(17) as f64 * 0.5 - 4.0).to_bits())
                .collect();
            let dev = Device::new();
            let code = read_kernel(t, file)?;
            let m = dev.load(&code).map_err(|e| e.to_string())?;
            let e = |e: amdgpu_sim::SimError| e.to_string();
            let pd = dev.alloc_bytes(&bytes(&din, f64::to_le_bytes)).map_err(e)?;
            let ph = dev.alloc_bytes(&bytes(&hin, u16::to_le_bytes)).map_err(e)?;
            let nn = n as usize;
            let pdo = dev.alloc_bytes(&vec![0xa5; (nn + 1) * 88]).map_err(e)?;
            let pho = dev.alloc_bytes(&vec![0xa5; (nn + 1) * 24]).map_err(e)?;
            let cfg = LaunchConfig::new_1d(
                grid,
                group,
                vec![
                    ArgValue::Ptr(pd),
                    ArgValue::Ptr(ph),
                    ArgValue::Ptr(pdo),
                    ArgValue::Ptr(pho),
                    ArgValue::U32(bl),
                    ArgValue::U32(n),
                ],
            );
            dev.dispatch(&m, "subgroup_ext", cfg)
                .map_err(|e| format!("launch {launch:?}: {e}"))?;
            let dout = read_words::<8>(&dev, pdo, (nn + 1) * 11)?;
            let hout = read_words::<2>(&dev, pho, (nn + 1) * 12)?;
            if dout[nn * 11..].iter().any(|&v| v != 0xa5a5_a5a5_a5a5_a5a5)
                || hout[nn * 12..].iter().any(|&v| v != 0xa5a5)
            {
                return Err(format!("launch {launch:?}: output past n overwritten"));
            }
            let lane_x = |gid: u32| {
                let x = if gid < n {
                    din[gid as usize]
                } else {
                    0.25 * gid as f64
                };
                if gid % 3 == 1 { -x } else { x }
            };
            let lane_h = |gid: u32| {
                if gid < n {
                    f16::from_bits(hin[gid as usize]).to_f64()
                } else {
                    (gid % 9) as f64 - 4.0
                }
            };
            for g0 in (0..grid).step_by(group as usize) {
                let lsz = group.min(grid - g0);
                let gx: Vec<f64> = (g0..g0 + lsz).map(lane_x).collect();
                let gh: Vec<f64> = (g0..g0 + lsz).map(lane_h).collect();
                let wx = coll_f64(&gx);
                let wh = coll_f16(&gh);
                for s0 in (0..lsz).step_by(ws as usize) {
                    let sgs = ws.min(lsz - s0) as usize;
                    let s0 = s0 as usize;
                    let sx = coll_f64(&gx[s0..s0 + sgs]);
                    let sh = coll_f16(&gh[s0..s0 + sgs]);
                    let lane = bl as usize % sgs;
                    for j in 0..sgs {
                        let gid = g0 as usize + s0 + j;
                        if gid >= nn {
                            continue;
                        }
                        let wd = vec![
                            sx.red[0],
                            sx.red[1],
                            sx.red[2],
                            sx.incl[0][j],
                            sx.incl[2][j],
                            sx.excl[0][j],
                            sx.excl[1][j],
                            sx.excl[2][j],
                            gx[s0 + lane].to_bits(),
                            wx.red[0],
                            wx.incl[0][s0 + j],
                        ];
                        let whv = vec![
                            sh.red[0],
                            sh.red[1],
                            sh.red[2],
                            sh.incl[0][j],
                            sh.incl[1][j],
                            sh.excl[0][j],
                            sh.excl[2][j],
                            f16::from_f64(gh[s0 + lane]).to_bits() as u64,
                            wh.red[0],
                            wh.red[2],
                            wh.excl[0][s0 + j],
                            wh.incl[1][s0 + j],
                        ];
                        let ctx = format!("launch {launch:?}: ");
                        check(
                            &format!("{ctx}dout"),
                            gid as u32,
                            &dout[gid * 11..gid * 11 + 11],
                            &wd,
                        )?;
                        check(
                            &format!("{ctx}hout"),
                            gid as u32,
                            &hout[gid * 12..gid * 12 + 12],
                            &whv,
                        )?;
                    }
                }
            }
        }
        Ok(())
    });
}
