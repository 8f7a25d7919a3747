//! Benchmarks of amdsim (see `benches/`), and the set-up they share with the examples.
//!
//! It depends on the library crates it measures; nothing depends on it.

/// Stopped waves for the lane-position measurements (`benches/lanes.rs` and the
/// `lane_rate` example): every state of every wave of work-group 0 of `cf_nested_if`,
/// and the usage guide's lane_pc expression over an in-memory wave64 as the reference.
pub mod lanes {
    use amdgpu_codeobj::CodeObject;
    use amdgpu_dwarf::eval::MapContext;
    use amdgpu_dwarf::op::{DecodeOptions, Expr};
    use amdgpu_dwarf::target::MemTarget;
    use amdgpu_dwarf::text::assemble;
    use amdgpu_dwarf::value::{BaseType, ate};
    use amdgpu_sim::debug::{Session, Stop};
    use amdgpu_sim::{ArgValue, Device, LaunchConfig, Wave, WaveStatus};
    use std::path::Path;

    /// Work-items of the dispatch.
    pub const GRID: u32 = 1024;
    /// Work-items per group.
    pub const GROUP: u32 = 256;

    /// A committed code object (under `kernels/bin`).
    pub fn read(file: &str) -> Vec<u8> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../kernels/bin")
            .join(file);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// A dispatch of `cf_nested_if` on `dev`: the launch, the load bias and the entry address.
    pub fn prepare(dev: &Device, bytes: &[u8]) -> (amdgpu_sim::Launch, u64, u64) {
        let (m, launch) = prepare_kernel(dev, bytes, "cf_nested_if");
        let entry = CodeObject::parse(bytes).expect("parses").kernels()[0].entry_address;
        (launch, m.load_bias, entry + m.load_bias)
    }

    /// A dispatch of kernel `name` (arguments `in`, `out`, `n`, as the `cf_*` kernels have)
    /// on `dev` over [`GRID`] work-items in groups of [`GROUP`], with pseudo-random
    /// inputs: the loaded module and the launch (nothing has run yet).
    pub fn prepare_kernel(
        dev: &Device,
        bytes: &[u8],
        name: &str,
    ) -> (amdgpu_sim::Module, amdgpu_sim::Launch) {
        let m = dev.load(bytes).expect("loads");
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let data: Vec<u8> = (0..GRID * 4)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect();
        let input = dev.alloc_bytes(&data).expect("alloc");
        let out = dev.alloc(u64::from(GRID) * 4).expect("alloc");
        let args = vec![
            ArgValue::Ptr(input),
            ArgValue::Ptr(out),
            ArgValue::U32(GRID - 7),
        ];
        let launch = dev
            .launch(&m, name, LaunchConfig::new_1d(GRID, GROUP, args))
            .expect("launches");
        (m, launch)
    }

    /// A session stopped at the kernel's entry in work-group 0.
    pub fn stopped(dev: &Device, launch: amdgpu_sim::Launch, entry: u64) -> Session<'_> {
        let mut s = Session::new(dev, launch);
        s.add_breakpoint(entry);
        assert!(matches!(s.resume(), Ok(Stop::Breakpoint { .. })));
        s.remove_breakpoint(entry);
        s
    }

    /// Every state of every wave of work-group 0, before every instruction.
    pub fn states(bytes: &[u8]) -> Vec<Wave> {
        let dev = Device::new();
        let (launch, _, entry) = prepare(&dev, bytes);
        let mut s = stopped(&dev, launch, entry);
        let mut out = Vec::new();
        while s.group().is_some_and(|g| g.id == [0, 0, 0]) {
            let nw = s.group().map_or(0, |g| g.waves.len() as u32);
            let mut progressed = false;
            for w in 0..nw {
                while s.group().is_some_and(|g| g.id == [0, 0, 0])
                    && s.wave(w).is_some_and(|x| x.status == WaveStatus::Running)
                {
                    out.push(s.wave(w).expect("wave").clone());
                    match s.step(w).expect("steps") {
                        Stop::Stepped { .. } => progressed = true,
                        _ => break,
                    }
                }
            }
            if !progressed {
                for w in 0..nw {
                    if let Some(x) = s.wave_mut(w)
                        && x.status == WaveStatus::Barrier
                    {
                        x.status = WaveStatus::Running;
                    }
                }
            }
        }
        out
    }

    /// The reference: the usage guide's lane_pc expression (`DW_OP_call_ref
    /// __divergent_lane_pc_1_then; DW_OP_call_ref __active_lane_pc`) with its procedures, and
    /// an in-memory wave64 to evaluate it over (`dwarf_eval`'s `lane_pc_wave64`).
    pub fn seed_lane_pc() -> (MapContext, Expr, MemTarget) {
        let o = DecodeOptions::default();
        let asm =
            |s: &str| Expr::decode(&assemble(s, 64, &o).expect("assembles"), &o).expect("decodes");
        let mut ctx = MapContext::default();
        ctx.base_types
            .insert(0x30, BaseType::scalar(ate::UNSIGNED, 8));
        ctx.procedure(
            0x100,
            asm("DW_OP_regx PC, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40, DW_OP_regval_type EXEC (0x30), \
                 DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x40 0x40"),
        );
        ctx.procedure(
            0x110,
            asm(
                "DW_OP_LLVM_user DW_OP_LLVM_undefined, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40",
            ),
        );
        ctx.procedure(
            0x120,
            asm("DW_OP_call_ref 0x110, DW_OP_addr 0x4000, DW_OP_stack_value, DW_OP_LLVM_user DW_OP_LLVM_extend 0x40 0x40, \
                 DW_OP_call_ref 0x160, DW_OP_deref_type 0x8 (0x30), DW_OP_LLVM_user DW_OP_LLVM_select_bit_piece 0x40 0x40"),
        );
        ctx.variable(
            0x160,
            asm("DW_OP_regx SGPR10, DW_OP_piece 0x4, DW_OP_regx SGPR11, DW_OP_piece 0x4"),
        );
        let expr = asm("DW_OP_call_ref 0x120, DW_OP_call_ref 0x100");
        let mut t = MemTarget::new(64, 0);
        t.set_pc(0x4100);
        t.set_exec(0x0000_00ff_00ff_00ff);
        t.set_sgpr(10, 0xffff_ffff);
        t.set_sgpr(11, 0x0000_ffff);
        (ctx, expr, t)
    }
}

/// Large dispatches' inputs and outputs, filled and checked in chunks so that the
/// host never holds a whole buffer (`benches/sim.rs`, `benches/peak_memory.rs`).
pub mod grid {
    use amdgpu_sim::Device;

    /// Words per chunk of [`fill`] and [`check`].
    const CHUNK: u32 = 1 << 16;

    /// Input element `i` of the inputs seeded `seed`: a deterministic spread of
    /// floats in [-100, 100) (the same as `pocl_time.c`'s).
    pub fn input(i: u32, seed: u32) -> f32 {
        ((i.wrapping_mul(2_654_435_761) ^ seed) % 20_000) as f32 / 100.0 - 100.0
    }

    /// Allocates `n` floats on `dev` holding `input(i, seed)`.
    pub fn fill(dev: &Device, n: u32, seed: u32) -> u64 {
        let a = dev.alloc(u64::from(n) * 4).expect("alloc");
        for start in (0..n).step_by(CHUNK as usize) {
            let end = start.saturating_add(CHUNK).min(n);
            let bytes: Vec<u8> = (start..end)
                .flat_map(|i| input(i, seed).to_le_bytes())
                .collect();
            dev.write(a + u64::from(start) * 4, &bytes).expect("write");
        }
        a
    }

    /// Checks the `n` 32-bit words at `addr` against `want(i)`, and returns their
    /// sum (the checksum `pocl_time.c` prints). Panics at the first difference.
    pub fn check(dev: &Device, addr: u64, n: u32, want: impl Fn(u32) -> u32) -> u64 {
        let mut sum = 0u64;
        for start in (0..n).step_by(CHUNK as usize) {
            let end = start.saturating_add(CHUNK).min(n);
            let got = dev
                .read(addr + u64::from(start) * 4, (end - start) as usize * 4)
                .expect("read");
            for (i, w) in (start..end).zip(got.chunks_exact(4)) {
                let w = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                assert_eq!(w, want(i), "word {i}");
                sum += u64::from(w);
            }
        }
        sum
    }
}
