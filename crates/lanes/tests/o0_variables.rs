//! Reading -O0 variables from clang-19 DWARF works against a stopped simulator wave: the
//! value read through DWARF equals the value the kernel stores.
//!
//! For the committed `-O0 -g` kernels (`kernels/bin/<target>/<name>.O0g.co`) on every
//! target, a breakpoint is set at a source line (found by its text in
//! `kernels/src/<name>.cl`, then through the line table), the dispatch runs until waves
//! stop there, and variables are read through their DWARF locations for every active lane
//! and compared with what the host computes from the inputs (and with what the kernel
//! later stores). Writes through DWARF are checked by the kernel's output.
#![allow(clippy::needless_range_loop)]

use amdgpu_lanes::{Debugger, Event, Image};
use amdgpu_sim::{ArgValue, Device, Launch, LaunchConfig, Module};
use amdsim_sim_tests::{TARGETS, read_kernel, repo_path};

const GROUP: u32 = 64;

/// A committed `-O0 -g` kernel of a target (`kernels/bin/<target>/<name>.O0g.co`, kernel
/// `name`, source `kernels/src/<name>.cl`) loaded on a fresh device: a test allocates its
/// buffers, launches it under a debugger and sets breakpoints at source lines.
struct Kernel {
    name: &'static str,
    bytes: Vec<u8>,
    dev: Device,
    module: Module,
    /// The source file (for lines by their text) and its name in the line table.
    source: std::path::PathBuf,
    file: String,
}

impl Kernel {
    fn load(target: &str, name: &'static str) -> Result<Kernel, String> {
        let bytes = read_kernel(target, &format!("{name}.O0g.co"))?;
        let source = repo_path(&["kernels", "src", &format!("{name}.cl")]);
        Kernel::from_bytes(name, bytes, source, format!("{name}.cl"))
    }

    /// The HIP `divergence` kernel (`kernels/hip/src/device/debug_vars.hip`) built
    /// with `-O0 -g` by `compiler` (hipcc or clang19) for `target`.
    fn load_hip(compiler: &str, target: &str) -> Result<Kernel, String> {
        let p = repo_path(&[
            "kernels",
            "hip",
            "bin",
            compiler,
            &format!("debug_vars_O0.{target}.co"),
        ]);
        let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let source = repo_path(&["kernels", "hip", "src", "device", "debug_vars.hip"]);
        Kernel::from_bytes("divergence", bytes, source, "debug_vars.hip".into())
    }

    fn from_bytes(
        name: &'static str,
        bytes: Vec<u8>,
        source: std::path::PathBuf,
        file: String,
    ) -> Result<Kernel, String> {
        let dev = Device::new();
        let module = dev.load(&bytes).map_err(|e| e.to_string())?;
        Ok(Kernel {
            name,
            bytes,
            dev,
            module,
            source,
            file,
        })
    }

    /// A device buffer holding `bytes`.
    fn alloc(&mut self, bytes: &[u8]) -> Result<u64, String> {
        self.dev.alloc_bytes(bytes).map_err(|e| e.to_string())
    }

    /// A zeroed device buffer of `size` bytes.
    fn alloc_zeroed(&mut self, size: u64) -> Result<u64, String> {
        self.dev.alloc(size).map_err(|e| e.to_string())
    }

    /// The code object, for a debugger.
    fn image(&self) -> Result<Image<'_>, String> {
        Image::parse(&self.bytes).map_err(|e| e.to_string())
    }

    /// Launches the kernel over `n` work-items in groups of [`GROUP`] with `args`
    /// (nothing runs before a debugger resumes it).
    fn launch(&mut self, n: u32, args: Vec<ArgValue>) -> Result<Launch, String> {
        self.launch_with(LaunchConfig::new_1d(n, GROUP, args))
    }

    /// [`Kernel::launch`] with a configuration of the test's own.
    fn launch_with(&mut self, cfg: LaunchConfig) -> Result<Launch, String> {
        self.dev
            .launch(&self.module, self.name, cfg)
            .map_err(|e| e.to_string())
    }

    /// A debugger of `launch`.
    fn debugger<'a>(&'a self, image: &'a Image<'a>, launch: Launch) -> Debugger<'a, 'a> {
        Debugger::new(image, &self.dev, &self.module, launch)
    }

    /// The 1-based line of the kernel's source containing `text` (exactly one).
    fn line(&self, text: &str) -> Result<u64, String> {
        let p = &self.source;
        let src = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let hits: Vec<usize> = src
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains(text))
            .map(|(i, _)| i + 1)
            .collect();
        match hits.as_slice() {
            [l] => Ok(*l as u64),
            _ => Err(format!("`{text}` is on lines {hits:?} of {}", self.file)),
        }
    }

    /// A breakpoint at `line` of the kernel's source: the addresses it was set at.
    fn break_at(&self, d: &mut Debugger, line: u64) -> Result<Vec<u64>, String> {
        d.break_at_line(&self.file, line).map_err(|e| e.to_string())
    }
}

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
fn read_u32s(dev: &Device, a: u64, n: usize) -> Result<Vec<u32>, String> {
    Ok(dev
        .read(a, n * 4)
        .map_err(|e| e.to_string())?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}
fn le(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    for (d, s) in b.iter_mut().zip(bytes) {
        *d = *s;
    }
    u64::from_le_bytes(b)
}

/// Reads an unsigned variable of 4 or 8 bytes for a lane.
fn var(d: &Debugger, name: &str, lane: u32) -> Result<u64, String> {
    let v = d
        .read(name, lane)
        .map_err(|e| format!("reading `{name}` lane {lane}: {e}"))?;
    if v.len() != 4 && v.len() != 8 {
        return Err(format!("`{name}` is {} bytes", v.len()));
    }
    Ok(le(&v))
}

fn check(what: &str, got: u64, want: u64) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: read {got:#x}, expected {want:#x}"))
    }
}

/// The lanes set in `exec`.
fn lanes(exec: u64, wave_size: u32) -> Vec<u32> {
    (0..wave_size).filter(|l| exec >> l & 1 != 0).collect()
}

/// Runs `f` for every target and reports all failures together.
fn all_targets(f: impl Fn(&str) -> Result<(), String>) {
    let mut failures = Vec::new();
    for t in TARGETS {
        if let Err(e) = f(t) {
            failures.push(format!("{t}: {e}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn stop_info(ev: &Event) -> Option<([u32; 3], u32, u64)> {
    match ev {
        Event::Breakpoint { group, wave, pc } => Some((*group, *wave, *pc)),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------

fn divergence_host(v: u32, lid: u32) -> u32 {
    let mut acc;
    if lid & 1 != 0 {
        acc = 1u32;
        let trips = v.wrapping_add(lid) % 13;
        for k in 0..trips {
            acc = divergence_step(acc, k, v);
        }
    } else {
        acc = (v & 0xff) + 1;
        let mut steps = 0u32;
        while acc != 1 && steps < 40 {
            acc = if acc & 1 != 0 {
                acc.wrapping_mul(3).wrapping_add(1)
            } else {
                acc >> 1
            };
            steps += 1;
        }
        acc = steps;
    }
    if lid < 5 {
        acc = acc.wrapping_add(1000 * lid);
    }
    acc
}

fn divergence_step(acc: u32, k: u32, v: u32) -> u32 {
    if (k ^ v) & 2 != 0 {
        acc.wrapping_mul(3).wrapping_add(k)
    } else {
        acc ^ (k << 4)
    }
}

/// vector_add: `i` (size_t) is the global id, the pointer arguments are the buffers and
/// `n` the count, for every active lane of every wave stopped inside the `if`; the tail
/// lanes beyond `n` never stop there. Writing lane 3's `a` to point at `b` makes the
/// kernel store `b[3] + b[3]` to `c[3]`.
#[test]
fn vector_add_index_pointers_and_a_write() {
    all_targets(|t| {
        let mut k = Kernel::load(t, "vector_add")?;
        let n = 150u32;
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 + 1.0).collect();
        let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32 * 3.0).collect();
        let fb = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let pa = k.alloc(&fb(&a))?;
        let pb = k.alloc(&fb(&b))?;
        let pcbuf = k.alloc_zeroed(u64::from(n) * 4)?;
        let launch = k.launch(
            n,
            vec![
                ArgValue::Ptr(pa),
                ArgValue::Ptr(pb),
                ArgValue::Ptr(pcbuf),
                ArgValue::U32(n),
            ],
        )?;
        let image = k.image()?;
        let mut d = k.debugger(&image, launch);
        let line = k.line("c[i] = a[i] + b[i];")?;
        let addrs = k.break_at(&mut d, line)?;
        let mut seen = vec![0u32; n as usize];
        let mut stops = 0;
        loop {
            let ev = d.resume().map_err(|e| e.to_string())?;
            let Some((group, wave, pc)) = stop_info(&ev) else {
                break;
            };
            stops += 1;
            if !addrs.contains(&pc) {
                return Err(format!("stopped at {pc:#x}, not at {addrs:x?}"));
            }
            let ws = d.wave_size().map_err(|e| e.to_string())?;
            let exec = d.exec().map_err(|e| e.to_string())?;
            for l in lanes(exec, ws) {
                let gid = group[0] * GROUP + wave * ws + l;
                check(&format!("i lane {l}"), var(&d, "i", l)?, u64::from(gid))?;
                check("a", var(&d, "a", l)?, pa)?;
                check("b", var(&d, "b", l)?, pb)?;
                check("c", var(&d, "c", l)?, pcbuf)?;
                check("n", var(&d, "n", l)?, u64::from(n))?;
                let slot = seen
                    .get_mut(gid as usize)
                    .ok_or(format!("lane with i = {gid} >= n stopped inside the if"))?;
                *slot += 1;
            }
            if group == [0, 0, 0] && wave == 0 && pc == addrs[0] {
                d.write("a", 3, &pb.to_le_bytes())
                    .map_err(|e| e.to_string())?;
                check("a after the write", var(&d, "a", 3)?, pb)?;
                check("a of lane 2 after the write", var(&d, "a", 2)?, pa)?;
            }
        }
        if stops == 0 {
            return Err("no stop".into());
        }
        if let Some(i) = seen.iter().position(|&c| c == 0) {
            return Err(format!("work-item {i} was never seen at the breakpoint"));
        }
        let out = k
            .dev
            .read(pcbuf, n as usize * 4)
            .map_err(|e| e.to_string())?;
        for i in 0..n as usize {
            let got =
                f32::from_le_bytes([out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]]);
            let want = if i == 3 { b[3] + b[3] } else { a[i] + b[i] };
            if got != want {
                return Err(format!("c[{i}] = {got}, expected {want}"));
            }
        }
        Ok(())
    });
}

/// divergence: `gid`, `lid` and `v = in[gid]` after their assignment; the loop counter
/// `k` and the accumulator `acc` at each iteration of the odd lanes' loop equal the host's
/// iteration; a write of `v` for one even lane changes what the kernel stores exactly as
/// the host computes with the new value.
#[test]
fn divergence_values_loop_counter_and_a_write() {
    all_targets(|t| divergence_check(Kernel::load(t, "divergence")?));
}

/// The same checks on the HIP kernel built with `-O0 -g` by hipcc (clang-15) and
/// clang++-19: a bare `DW_OP_fbreg` (clang-15) or the suffixed form (clang-19) over a
/// frame base in an SGPR, read as the lane's private memory.
/// A sample: each compiler on one target (wave64 and wave32).
#[test]
fn hip_divergence_values_loop_counter_and_a_write() {
    hip_divergence_on(&[("hipcc", "gfx900"), ("clang19", "gfx1030")]);
}

#[test]
#[ignore = "the sweep over the other targets: run by .ci/run with --ignored"]
fn hip_divergence_values_loop_counter_and_a_write_on_every_target() {
    let mut builds = vec![("hipcc", "gfx1030"), ("clang19", "gfx900")];
    for t in ["gfx906", "gfx908", "gfx90a"] {
        builds.extend([("hipcc", t), ("clang19", t)]);
    }
    hip_divergence_on(&builds);
}

/// The checks on each (compiler, target) build of the HIP kernel.
fn hip_divergence_on(builds: &[(&str, &str)]) {
    let mut failures = Vec::new();
    for &(comp, t) in builds {
        if let Err(e) = Kernel::load_hip(comp, t).and_then(divergence_check) {
            failures.push(format!("{comp}/{t}: {e}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn divergence_check(mut k: Kernel) -> Result<(), String> {
    {
        let n = 120u32;
        let mut g = Gen(0x5eed);
        let input: Vec<u32> = (0..n).map(|_| g.u32()).collect();
        let pin = k.alloc(&u32s(&input))?;
        let pout = k.alloc_zeroed(u64::from(n) * 4)?;
        let launch = k.launch(
            128,
            vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(n)],
        )?;
        let image = k.image()?;
        let mut d = k.debugger(&image, launch);
        let if_line = k.line("if (lid & 1u) {")?;
        let loop_body = k.line("if ((k ^ v) & 2u)")?;
        let if_addrs = k.break_at(&mut d, if_line)?;
        let body_addrs = k.break_at(&mut d, loop_body)?;
        // The work-item whose `v` is overwritten, and the value written.
        let (victim_gid, new_v) = (70u32, 0x1234_5677u32);
        let mut written = false;
        let mut iteration: std::collections::HashMap<([u32; 3], u32), u32> = Default::default();
        let mut body_stops = 0u32;
        let mut if_lanes = 0u32;
        loop {
            let ev = d.resume().map_err(|e| e.to_string())?;
            let Some((group, wave, pc)) = stop_info(&ev) else {
                break;
            };
            let ws = d.wave_size().map_err(|e| e.to_string())?;
            let exec = d.exec().map_err(|e| e.to_string())?;
            let gid_of = |l: u32| group[0] * GROUP + wave * ws + l;
            if if_addrs.first() == Some(&pc) {
                for l in lanes(exec, ws) {
                    let gid = gid_of(l);
                    let lid = gid % GROUP;
                    check("gid", var(&d, "gid", l)?, u64::from(gid))?;
                    check("lid", var(&d, "lid", l)?, u64::from(lid))?;
                    let want_v = input.get(gid as usize).ok_or("gid >= n at the if")?;
                    check(&format!("v lane {l}"), var(&d, "v", l)?, u64::from(*want_v))?;
                    if_lanes += 1;
                    if gid == victim_gid {
                        d.write("v", l, &new_v.to_le_bytes())
                            .map_err(|e| e.to_string())?;
                        check("v after the write", var(&d, "v", l)?, u64::from(new_v))?;
                        written = true;
                    }
                }
            } else if body_addrs.contains(&pc) {
                let it = iteration.entry((group, wave)).or_insert(0);
                body_stops += 1;
                for l in lanes(exec, ws) {
                    let gid = gid_of(l);
                    let lid = gid % GROUP;
                    if lid & 1 == 0 {
                        return Err(format!("even lane {l} is active in the odd lanes' loop"));
                    }
                    let v = input[gid as usize];
                    let trips = v.wrapping_add(lid) % 13;
                    check(&format!("k lane {l}"), var(&d, "k", l)?, u64::from(*it))?;
                    check("trips", var(&d, "trips", l)?, u64::from(trips))?;
                    if *it >= trips {
                        return Err(format!("lane {l} in iteration {it} of {trips}"));
                    }
                    let acc = (0..*it).fold(1u32, |acc, k| divergence_step(acc, k, v));
                    check(
                        &format!("acc lane {l} iteration {it}"),
                        var(&d, "acc", l)?,
                        u64::from(acc),
                    )?;
                }
                *it += 1;
            }
        }
        if !written || if_lanes < n || body_stops == 0 {
            return Err(format!(
                "written {written}, {if_lanes} lanes seen at the if, {body_stops} loop stops"
            ));
        }
        let out = read_u32s(&k.dev, pout, n as usize)?;
        for gid in 0..n {
            let v = if gid == victim_gid {
                new_v
            } else {
                input[gid as usize]
            };
            let want = divergence_host(v, gid % GROUP);
            if out[gid as usize] != want {
                return Err(format!(
                    "out[{gid}] = {:#x}, expected {want:#x}",
                    out[gid as usize]
                ));
            }
        }
        Ok(())
    }
}

fn private_array_host(v: u32, lid: u32) -> (Vec<u32>, u32, u32, u32) {
    let mut buf: Vec<u32> = (0..80u32)
        .map(|k| v.wrapping_mul(k + 1).wrapping_add(lid))
        .collect();
    for k in 0..8u32 {
        let j = (v.wrapping_add(k * 7).wrapping_add(lid)) % 80;
        buf[j as usize] ^= k + 0x100;
    }
    let a = buf[(v % 80) as usize];
    let b = buf[((lid * 5 + 3) % 80) as usize];
    let c = buf[((a ^ b) % 80) as usize];
    (buf, a, b, c)
}

/// private_array: the 80-word private array `buf` (read whole through its location),
/// `a`, `b`, `c` gathered from it, before the final store; a write of `c` for one lane
/// changes that lane's stored result.
#[test]
fn private_array_whole_array_and_a_write() {
    all_targets(|t| {
        let mut k = Kernel::load(t, "private_array")?;
        let n = 100u32;
        let mut g = Gen(0xa11a);
        let input: Vec<u32> = (0..n).map(|_| g.u32()).collect();
        let pin = k.alloc(&u32s(&input))?;
        let pout = k.alloc_zeroed(u64::from(n) * 4)?;
        let launch = k.launch(
            n,
            vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(n)],
        )?;
        let image = k.image()?;
        let mut d = k.debugger(&image, launch);
        let line = k.line("out[gid] = a + 3u * b + 7u * c;")?;
        k.break_at(&mut d, line)?;
        let (victim, new_c) = (37u32, 0x0bad_f00du32);
        let mut written = false;
        let mut seen = 0u32;
        loop {
            let ev = d.resume().map_err(|e| e.to_string())?;
            let Some((group, wave, _pc)) = stop_info(&ev) else {
                break;
            };
            let ws = d.wave_size().map_err(|e| e.to_string())?;
            let exec = d.exec().map_err(|e| e.to_string())?;
            let buf_var = d.variable("buf").map_err(|e| e.to_string())?;
            for l in lanes(exec, ws) {
                let gid = group[0] * GROUP + wave * ws + l;
                let lid = gid % GROUP;
                let v = *input.get(gid as usize).ok_or("gid >= n at the store")?;
                let (buf, a, b, c) = private_array_host(v, lid);
                check("gid", var(&d, "gid", l)?, u64::from(gid))?;
                check("v", var(&d, "v", l)?, u64::from(v))?;
                check("a", var(&d, "a", l)?, u64::from(a))?;
                check("b", var(&d, "b", l)?, u64::from(b))?;
                check("c", var(&d, "c", l)?, u64::from(c))?;
                let loc = d.location(&buf_var, l).map_err(|e| e.to_string())?;
                let got = d.read_location(&loc, l, 320).map_err(|e| e.to_string())?;
                if got != u32s(&buf) {
                    return Err(format!("buf of lane {l} differs from the host's"));
                }
                if let Some(size) = buf_var.byte_size {
                    check("sizeof buf", size, 320)?;
                    let whole = d.read_variable(&buf_var, l).map_err(|e| e.to_string())?;
                    if whole != got {
                        return Err("buf read by its type's size differs".into());
                    }
                }
                if gid == victim {
                    d.write("c", l, &new_c.to_le_bytes())
                        .map_err(|e| e.to_string())?;
                    written = true;
                }
                seen += 1;
            }
        }
        if !written || seen != n {
            return Err(format!("written {written}, {seen} lanes seen"));
        }
        let out = read_u32s(&k.dev, pout, n as usize)?;
        for gid in 0..n {
            let (_, a, b, c) = private_array_host(input[gid as usize], gid % GROUP);
            let c = if gid == victim { new_c } else { c };
            let want = a
                .wrapping_add(b.wrapping_mul(3))
                .wrapping_add(c.wrapping_mul(7));
            check(
                &format!("out[{gid}]"),
                u64::from(out[gid as usize]),
                u64::from(want),
            )?;
        }
        Ok(())
    });
}

fn bitops64_host(x: u64, gid: u32) -> Vec<(&'static str, u64)> {
    let lo = x as u32;
    let hi = (x >> 32) as u32;
    let p = lo.count_ones() + hi.count_ones();
    let z = (hi | 1).leading_zeros();
    let r = lo.rotate_left(gid & 31) ^ (hi >> 3) ^ (lo << 7);
    let mh = ((u64::from(lo) * u64::from(hi | 0x8000_0001)) >> 32) as u32;
    let wide = u64::from(lo) * u64::from(hi | 1);
    let prod = x.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(wide);
    let sh = (prod << (p & 63)) | (prod >> ((64 - (p & 63)) & 63));
    let d = (x | 1) % 1_000_003 + 1;
    let q = prod / d;
    let s = (x ^ sh) as i64;
    let m = if s < 0 { -(s >> 5) } else { s >> 3 };
    vec![
        ("x", x),
        ("lo", u64::from(lo)),
        ("hi", u64::from(hi)),
        ("p", u64::from(p)),
        ("z", u64::from(z)),
        ("r", u64::from(r)),
        ("mh", u64::from(mh)),
        ("wide", wide),
        ("prod", prod),
        ("sh", sh),
        ("d", d),
        ("q", q),
        ("s", s as u64),
        ("m", m as u64),
    ]
}

/// bitops64: 32- and 64-bit locals (`ulong`, `long`) before the last store equal the
/// host's; `m` and `q` are then stored, and a write of `q` shows in `out[2 gid]`.
#[test]
fn bitops64_wide_values_and_a_write() {
    all_targets(|t| {
        let mut k = Kernel::load(t, "bitops64")?;
        let n = 70u32;
        let mut g = Gen(0xb175);
        let input: Vec<u64> = (0..n).map(|_| g.next()).collect();
        let inb: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
        let pin = k.alloc(&inb)?;
        let pout = k.alloc_zeroed(u64::from(n) * 16)?;
        let pout32 = k.alloc_zeroed(u64::from(n) * 4)?;
        let launch = k.launch(
            n,
            vec![
                ArgValue::Ptr(pin),
                ArgValue::Ptr(pout),
                ArgValue::Ptr(pout32),
                ArgValue::U32(n),
            ],
        )?;
        let image = k.image()?;
        let mut d = k.debugger(&image, launch);
        let line = k.line("out[2 * gid] = q ^ sh;")?;
        k.break_at(&mut d, line)?;
        let (victim, new_q) = (66u32, 0x0123_4567_89ab_cdefu64);
        let mut seen = 0;
        loop {
            let ev = d.resume().map_err(|e| e.to_string())?;
            let Some((group, wave, _pc)) = stop_info(&ev) else {
                break;
            };
            let ws = d.wave_size().map_err(|e| e.to_string())?;
            let exec = d.exec().map_err(|e| e.to_string())?;
            for l in lanes(exec, ws) {
                let gid = group[0] * GROUP + wave * ws + l;
                let x = *input.get(gid as usize).ok_or("gid >= n at the store")?;
                for (name, want) in bitops64_host(x, gid) {
                    let got = var(&d, name, l)?;
                    let want = if d.variable(name).map_err(|e| e.to_string())?.byte_size == Some(4)
                    {
                        want & 0xffff_ffff
                    } else {
                        want
                    };
                    check(&format!("{name} lane {l}"), got, want)?;
                }
                if gid == victim {
                    d.write("q", l, &new_q.to_le_bytes())
                        .map_err(|e| e.to_string())?;
                }
                seen += 1;
            }
        }
        if seen != n {
            return Err(format!("{seen} lanes seen"));
        }
        let out = k
            .dev
            .read(pout, n as usize * 16)
            .map_err(|e| e.to_string())?;
        for gid in 0..n {
            let vals = bitops64_host(input[gid as usize], gid);
            let get = |k: &str| vals.iter().find(|(n, _)| *n == k).map(|v| v.1).unwrap_or(0);
            let q = if gid == victim { new_q } else { get("q") };
            let i = 16 * gid as usize;
            check(
                &format!("out[{}]", 2 * gid),
                le(&out[i..i + 8]),
                q ^ get("sh"),
            )?;
            // The second store reads `q` again: the written value.
            let m = get("m").wrapping_add(get("prod").wrapping_sub(q.wrapping_mul(get("d"))));
            check(&format!("out[{}]", 2 * gid + 1), le(&out[i + 8..i + 16]), m)?;
        }
        Ok(())
    });
}

/// reduce_sum: `gid`, `lid`, `lsize`, the LDS array `tile` (clang-19 describes it with
/// `DW_OP_addrx, DW_OP_lit2, DW_OP_swap, DW_OP_xderef`: address space 2 is local in clang's
/// numbering) after the waves stored `tile[lid]`, and the loop counter `s` at each step of
/// the tree reduction. Writing `tile[5]` through its LDS location before the reduction
/// reads it changes group 0's sum by as much.
#[test]
fn reduce_sum_lds_array_loop_counter_and_a_write() {
    const LDS_BUMP: u32 = 1000;
    all_targets(|t| {
        let mut k = Kernel::load(t, "reduce_sum")?;
        let n = 100u32;
        let input: Vec<u32> = (0..n).map(|i| i * 7 + 3).collect();
        let pin = k.alloc(&u32s(&input))?;
        let pout = k.alloc_zeroed(8)?;
        let launch = k.launch(
            128,
            vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(n)],
        )?;
        let image = k.image()?;
        let mut d = k.debugger(&image, launch);
        let store = k.line("tile[lid] = gid < n ? in[gid] : 0u;")?;
        let barrier = k.break_at(&mut d, store + 1)?;
        let step = k.line("if (lid < s) {")?;
        let step_addrs = k.break_at(&mut d, step)?;
        let mut iteration: std::collections::HashMap<([u32; 3], u32), u32> = Default::default();
        let (mut barrier_stops, mut step_stops) = (0, 0);
        loop {
            let ev = d.resume().map_err(|e| e.to_string())?;
            let Some((group, wave, pc)) = stop_info(&ev) else {
                break;
            };
            let ws = d.wave_size().map_err(|e| e.to_string())?;
            let exec = d.exec().map_err(|e| e.to_string())?;
            if barrier.contains(&pc) {
                barrier_stops += 1;
                for l in lanes(exec, ws) {
                    let lid = wave * ws + l;
                    let gid = group[0] * GROUP + lid;
                    check("gid", var(&d, "gid", l)?, u64::from(gid))?;
                    check("lid", var(&d, "lid", l)?, u64::from(lid))?;
                    check("lsize", var(&d, "lsize", l)?, u64::from(GROUP))?;
                }
                // Every lane of this wave and of the waves before it has stored its tile
                // element.
                let tile = d.variable("tile").map_err(|e| e.to_string())?;
                let loc = d.location(&tile, 0).map_err(|e| e.to_string())?;
                let stored = ((wave + 1) * ws) as usize;
                let got = d
                    .read_location(&loc, 0, stored * 4)
                    .map_err(|e| e.to_string())?;
                for lid in 0..stored {
                    let gid = group[0] as usize * GROUP as usize + lid;
                    let mut want = input.get(gid).copied().unwrap_or(0);
                    if gid == 5 && wave > 0 {
                        // Written below when wave 0 stopped here.
                        want += LDS_BUMP;
                    }
                    let v = le(&got[4 * lid..4 * lid + 4]);
                    check(&format!("tile[{lid}]"), v, u64::from(want))?;
                }
                // A write through the array's LDS location before the reduction reads it:
                // group 0's sum grows by the change (tile[5], stored by wave 0).
                if group[0] == 0 && wave == 0 {
                    let mut t5 = got[..24].to_vec();
                    t5[20..24].copy_from_slice(&(input[5] + LDS_BUMP).to_le_bytes());
                    d.write_location(&loc, 0, &t5).map_err(|e| e.to_string())?;
                }
            } else if step_addrs.contains(&pc) {
                step_stops += 1;
                let it = iteration.entry((group, wave)).or_insert(0);
                let s = u64::from(GROUP / 2) >> *it;
                for l in lanes(exec, ws) {
                    check(&format!("s lane {l} iteration {it}"), var(&d, "s", l)?, s)?;
                }
                *it += 1;
            }
        }
        if barrier_stops == 0 || step_stops == 0 {
            return Err(format!(
                "{barrier_stops} barrier stops, {step_stops} loop stops"
            ));
        }
        let out = read_u32s(&k.dev, pout, 2)?;
        let sum = |g: u32| {
            (g * GROUP..(g + 1) * GROUP)
                .filter(|&i| i < n)
                .map(|i| input[i as usize])
                .sum::<u32>()
        };
        check(
            "partial[0]",
            u64::from(out[0]),
            u64::from(sum(0) + LDS_BUMP),
        )?;
        check("partial[1]", u64::from(out[1]), u64::from(sum(1)))?;
        Ok(())
    });
}

/// The frame base is wave-scaled: moving every lane's frame up by 16 bytes and setting
/// the frame-base SGPR (SGPR33) to `16 * wave_size` keeps both the kernel (whose MUBUF
/// scratch accesses add SGPR33 to the swizzled address) and the DWARF reading (which
/// divides it by the wave size) right, while reading SGPR33 unscaled misses the variable.
#[test]
fn a_moved_frame_base_is_read_wave_scaled() {
    all_targets(|t| {
        let mut k = Kernel::load(t, "vector_add")?;
        let n = 64u32;
        let a: Vec<u32> = (0..n).map(|i| 0x4000_0000 + i).collect();
        let pa = k.alloc(&u32s(&a))?;
        let pb = k.alloc(&u32s(&a))?;
        let pc = k.alloc_zeroed(u64::from(n) * 4)?;
        let mut cfg = LaunchConfig::new_1d(
            n,
            GROUP,
            vec![
                ArgValue::Ptr(pa),
                ArgValue::Ptr(pb),
                ArgValue::Ptr(pc),
                ArgValue::U32(n),
            ],
        );
        cfg.extra_private = 64;
        let launch = k.launch_with(cfg)?;
        let image = k.image()?;
        let mut d = k.debugger(&image, launch);
        let first = k.line("size_t i = get_global_id(0);")?;
        let inside = k.line("c[i] = a[i] + b[i];")?;
        let first_addrs = k.break_at(&mut d, first)?;
        k.break_at(&mut d, inside)?;
        const SHIFT: u32 = 16;
        let mut moved = 0;
        let mut checked = 0;
        loop {
            let ev = d.resume().map_err(|e| e.to_string())?;
            let Some((group, wave, pc_stop)) = stop_info(&ev) else {
                break;
            };
            let ws = d.wave_size().map_err(|e| e.to_string())?;
            if first_addrs.contains(&pc_stop) {
                let w = d.session().wave_mut(wave).ok_or("no wave")?;
                if w.sgpr[33] != 0 {
                    return Err(format!("SGPR33 = {:#x} at entry", w.sgpr[33]));
                }
                let size = w.scratch.per_lane() - SHIFT;
                for l in 0..ws {
                    let mut frame = vec![0u8; size as usize];
                    w.scratch
                        .read_lane(l, 0, &mut frame)
                        .map_err(|e| e.to_string())?;
                    w.scratch
                        .write_lane(l, SHIFT, &frame)
                        .map_err(|e| e.to_string())?;
                    w.scratch
                        .write_lane(l, 0, &[0xee; SHIFT as usize])
                        .map_err(|e| e.to_string())?;
                }
                w.sgpr[33] = SHIFT * ws;
                moved += 1;
                continue;
            }
            let exec = d.exec().map_err(|e| e.to_string())?;
            for l in lanes(exec, ws) {
                let gid = group[0] * GROUP + wave * ws + l;
                check("i in the moved frame", var(&d, "i", l)?, u64::from(gid))?;
                check("a in the moved frame", var(&d, "a", l)?, pa)?;
                checked += 1;
            }
            // Unscaled, the frame base points 16 * wave_size bytes up: not the variable.
            let v = d.variable("i").map_err(|e| e.to_string())?;
            let Some(amdgpu_dwarf::program::LocationValue::Exprs(exprs)) = &v.location else {
                return Err("i has no location expression".into());
            };
            let tg = d.target(0).map_err(|e| e.to_string())?;
            let program = image.program();
            let pcl = amdgpu_dwarf::Target::pc(&tg);
            let ctx = program.context(pcl, &tg);
            let o = program.decode_options_at(pcl);
            let e = amdgpu_dwarf::Expr::decode(&exprs[0], &o).map_err(|e| e.to_string())?;
            let opts = |scaled| amdgpu_dwarf::EvalOptions {
                decode: o.clone(),
                compat: amdgpu_dwarf::Compat::clang19(scaled),
                ..amdgpu_dwarf::EvalOptions::default()
            };
            let scaled = amdgpu_dwarf::Evaluator::new(&tg, &ctx, opts(true))
                .location(&e)
                .map_err(|e| e.to_string())?;
            let unscaled = amdgpu_dwarf::Evaluator::new(&tg, &ctx, opts(false))
                .location(&e)
                .map_err(|e| e.to_string())?;
            let want = amdgpu_dwarf::Loc::One(amdgpu_dwarf::Single::memory(
                amdgpu_dwarf::AddressSpace::PrivateLane,
                u64::from(SHIFT) + 32,
            ));
            if scaled != want || unscaled == want {
                return Err(format!("scaled {scaled:?}, unscaled {unscaled:?}"));
            }
        }
        if moved == 0 || checked != n {
            return Err(format!("{moved} frames moved, {checked} lanes checked"));
        }
        let out = read_u32s(&k.dev, pc, n as usize)?;
        for i in 0..n as usize {
            let want = (f32::from_bits(a[i]) + f32::from_bits(a[i])).to_bits();
            check(&format!("c[{i}]"), u64::from(out[i]), u64::from(want))?;
        }
        Ok(())
    });
}
