//! The adapter alone: hand-made DWARF expressions evaluated against a stopped simulated
//! wave whose registers and memory this test sets (or reads back) through the simulator's
//! own API, so a failure here points at `WaveTarget`, not at clang's DWARF.
//!
//! The wave is one of `reduce_sum.O0g` (it has scratch and LDS), stopped at the first
//! barrier after every lane of the wave stored `tile[lid]`, on a wave64 GFX9 target, a
//! wave32 GFX10 target and a wave64 GFX10 target.

use amdgpu_dwarf::eval::read_through;
use amdgpu_dwarf::location::write_object;
use amdgpu_dwarf::target::private_lane_to_wave;
use amdgpu_dwarf::text::assemble;
use amdgpu_dwarf::{DecodeOptions, EvalOptions, Evaluator, Expr, Loc, NoContext, Target};
use amdgpu_lanes::{Debugger, Event, Image, WaveTarget, WaveTargetError};
use amdgpu_sim::memory::{PRIVATE_BASE, SHARED_BASE};
use amdgpu_sim::{ArgValue, Device, LaunchConfig, Space};
use amdsim_sim_tests::{read_kernel, repo_path};

const TARGETS: [&str; 3] = ["gfx900", "gfx1030", "gfx1030-w64"];
const N: u32 = 64;

fn expr(text: &str, ws: u32) -> Expr {
    let o = DecodeOptions::default();
    let bytes = assemble(text, ws, &o).unwrap_or_else(|e| panic!("{text}: {e}"));
    Expr::decode(&bytes, &o).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn locate<T: Target>(t: &T, text: &str) -> Result<Loc, String> {
    Evaluator::new(t, &NoContext, EvalOptions::default())
        .location(&expr(text, t.wave_size()))
        .map_err(|e| format!("{text}: {e}"))
}

/// Reads `n` bytes through a hand-made expression.
fn read<T: Target>(t: &T, text: &str, n: usize) -> Result<Vec<u8>, String> {
    let l = locate(t, text)?;
    let r = read_through(t, &l, n).map_err(|e| format!("{text}: {e}"))?;
    Ok(r.bytes()[..n].to_vec())
}

fn form(addr: u64, space: u64) -> String {
    format!(
        "DW_OP_constu {addr:#x}, DW_OP_constu {space}, DW_OP_LLVM_user DW_OP_LLVM_form_aspace_address"
    )
}

/// Runs `f` with a debugger stopped in wave 0 of `reduce_sum.O0g` at the first barrier,
/// and the address of a global buffer holding bytes 0, 1, 2, ...
fn with_stopped(
    target: &str,
    f: impl FnOnce(&mut Debugger, &Device, u64, u64) -> Result<(), String>,
) -> Result<(), String> {
    let bytes = read_kernel(target, "reduce_sum.O0g.co")?;
    let image = Image::parse(&bytes).map_err(|e| e.to_string())?;
    let dev = Device::new();
    let module = dev.load(&bytes).map_err(|e| e.to_string())?;
    let input: Vec<u8> = (0..N).flat_map(|i| (i * 11 + 5).to_le_bytes()).collect();
    let pin = dev.alloc_bytes(&input).map_err(|e| e.to_string())?;
    let pout = dev.alloc(64).map_err(|e| e.to_string())?;
    let global: Vec<u8> = (0..=255u8).collect();
    let pglobal = dev.alloc_bytes(&global).map_err(|e| e.to_string())?;
    let cfg = LaunchConfig::new_1d(
        N,
        N,
        vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(N)],
    );
    let launch = dev
        .launch(&module, "reduce_sum", cfg)
        .map_err(|e| e.to_string())?;
    let mut d = Debugger::new(&image, &dev, &module, launch);
    let src = std::fs::read_to_string(repo_path(&["kernels", "src", "reduce_sum.cl"]))
        .map_err(|e| e.to_string())?;
    let store = src
        .lines()
        .position(|l| l.contains("tile[lid] = gid < n"))
        .ok_or("no tile store in reduce_sum.cl")? as u64
        + 1;
    d.break_at_line("reduce_sum.cl", store + 1)
        .map_err(|e| e.to_string())?;
    let (wave, pc) = match d.resume().map_err(|e| e.to_string())? {
        Event::Breakpoint { wave, pc, .. } => (wave, pc),
        other => return Err(format!("did not stop: {other:?}")),
    };
    if wave != 0 {
        return Err(format!("wave {wave} stopped first"));
    }
    f(&mut d, &dev, pglobal, pc)
}

fn all(f: impl Fn(&str) -> Result<(), String>) {
    let failures: Vec<String> = TARGETS
        .iter()
        .filter_map(|t| f(t).err().map(|e| format!("{t}: {e}")))
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn eq(what: &str, got: &[u8], want: &[u8]) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:02x?}, want {want:02x?}"))
    }
}

#[test]
fn registers_of_both_wave_sizes() {
    all(|t| {
        with_stopped(t, |d, _dev, _g, pc| {
            let ws = d.wave_size().map_err(|e| e.to_string())?;
            let exec_before = d.exec().map_err(|e| e.to_string())?;
            {
                let w = d.session().wave_mut(0).ok_or("no wave 0")?;
                w.sgpr[5] = 0x1111_0005;
                w.sgpr[70] = 0x2222_0046;
                for l in 0..64 {
                    w.vgpr[2][l] = 0x3000_0000 + 7 * l as u32;
                }
            }
            let lane = 5;
            let tg = d.target(lane).map_err(|e| e.to_string())?;
            eq(
                "SGPR5",
                &read(&tg, "DW_OP_regx SGPR5", 4)?,
                &0x1111_0005u32.to_le_bytes(),
            )?;
            // SGPR70 is DWARF 1088 + 6.
            eq(
                "SGPR70",
                &read(&tg, "DW_OP_regx 0x446", 4)?,
                &0x2222_0046u32.to_le_bytes(),
            )?;
            eq(
                "SGPR5 as DW_OP_breg value",
                &read(&tg, "DW_OP_bregx SGPR5 +4, DW_OP_stack_value", 4)?,
                &0x1111_0009u32.to_le_bytes(),
            )?;
            // A vector register is the whole wave, lane 0 first.
            let whole = read(&tg, "DW_OP_regx VGPR2", ws as usize * 4)?;
            let want: Vec<u8> = (0..ws)
                .flat_map(|l| (0x3000_0000 + 7 * l).to_le_bytes())
                .collect();
            eq("VGPR2", &whole, &want)?;
            let one = read(
                &tg,
                "DW_OP_regx VGPR2, DW_OP_LLVM_user DW_OP_LLVM_push_lane, DW_OP_lit4, DW_OP_mul, \
                 DW_OP_LLVM_user DW_OP_LLVM_offset",
                4,
            )?;
            eq(
                "VGPR2 focused lane",
                &one,
                &(0x3000_0000 + 7 * lane).to_le_bytes(),
            )?;
            // Past the end of the register.
            if read(&tg, "DW_OP_regx VGPR2", ws as usize * 4 + 4).is_ok() {
                return Err("read past the end of VGPR2".into());
            }
            // The other wave size's numbers, EXEC and PC.
            let (mine, other_vgpr, exec_reg, other_exec) = if ws == 64 {
                (2560 + 2, 1536 + 2, 17, 1)
            } else {
                (1536 + 2, 2560 + 2, 1, 17)
            };
            eq(
                "VGPR2 by number",
                &read(&tg, &format!("DW_OP_regx {mine}"), 4)?,
                &want[..4],
            )?;
            if read(&tg, &format!("DW_OP_regx {other_vgpr}"), 4).is_ok() {
                return Err("a VGPR number of the other wave size was readable".into());
            }
            let exec_bytes = read(&tg, &format!("DW_OP_regx {exec_reg}"), ws as usize / 8)?;
            eq(
                "EXEC",
                &exec_bytes,
                &exec_before.to_le_bytes()[..ws as usize / 8],
            )?;
            if read(&tg, &format!("DW_OP_regx {other_exec}"), 4).is_ok() {
                return Err("the other wave size's EXEC was readable".into());
            }
            eq("PC", &read(&tg, "DW_OP_regx 16", 8)?, &pc.to_le_bytes())?;
            eq(
                "PC_32",
                &read(&tg, "DW_OP_regx 0", 4)?,
                &(pc as u32).to_le_bytes(),
            )?;
            if tg.pc() != pc {
                return Err(format!("pc() {:#x} vs the stop's {pc:#x}", tg.pc()));
            }
            if read(&tg, "DW_OP_regx AGPR0", 4).is_ok() {
                return Err("AGPR0 readable on a target without AGPRs".into());
            }
            // Writes: one lane of a VGPR, an SGPR, EXEC.
            let mut tw = d.target_mut(lane).map_err(|e| e.to_string())?;
            let l = locate(
                &tw,
                "DW_OP_regx VGPR2, DW_OP_LLVM_user DW_OP_LLVM_push_lane, DW_OP_lit4, DW_OP_mul, \
                 DW_OP_LLVM_user DW_OP_LLVM_offset",
            )?;
            write_object(&mut tw, &l, &0xfeed_f00du32.to_le_bytes()).map_err(|e| e.to_string())?;
            let l = locate(
                &tw,
                "DW_OP_regx SGPR5, DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 2",
            )?;
            write_object(&mut tw, &l, &[0xaa]).map_err(|e| e.to_string())?;
            let l = locate(&tw, &format!("DW_OP_regx {exec_reg}"))?;
            write_object(&mut tw, &l, &[0x0f]).map_err(|e| e.to_string())?;
            let w = d.session().wave(0).ok_or("no wave 0")?;
            for l in 0..ws as usize {
                let want = if l == lane as usize {
                    0xfeed_f00d
                } else {
                    0x3000_0000 + 7 * l as u32
                };
                if w.vgpr[2][l] != want {
                    return Err(format!(
                        "VGPR2 lane {l} = {:#x} after the write",
                        w.vgpr[2][l]
                    ));
                }
            }
            if w.sgpr[5] != 0x11aa_0005 {
                return Err(format!("SGPR5 = {:#x} after a byte write", w.sgpr[5]));
            }
            if w.exec.0 != (exec_before & !0xff) | 0x0f {
                return Err(format!("EXEC = {:#x} after a byte write", w.exec.0));
            }
            Ok(())
        })
    });
}

#[test]
fn each_address_space_and_the_swizzle() {
    all(|t| {
        with_stopped(t, |d, dev, pglobal, _pc| {
            let ws = d.wave_size().map_err(|e| e.to_string())?;
            // Private memory: a distinct dword per lane at lane address `a`, written with
            // the simulator's lane view.
            let pattern = |l: u32| 0x5eed_0000u32 + l * 0x101;
            let per_lane = d.session().wave(0).ok_or("no wave 0")?.scratch.per_lane();
            if per_lane < 8 {
                return Err(format!("{per_lane} private bytes per lane"));
            }
            let a = u64::from(per_lane - 8);
            {
                let w = d.session().wave_mut(0).ok_or("no wave 0")?;
                for l in 0..ws {
                    w.scratch
                        .write_lane(l, a as u32, &pattern(l).to_le_bytes())
                        .map_err(|e| e.to_string())?;
                }
            }
            let lds: Vec<u8> = d
                .session()
                .group()
                .ok_or("no group")?
                .lds
                .as_slice()
                .get(..16)
                .ok_or("LDS smaller than 16 bytes")?
                .to_vec();
            if lds.iter().all(|&b| b == 0) {
                return Err("LDS holds nothing yet".into());
            }
            for lane in [0, 3, ws - 1] {
                let tg = d.target(lane).map_err(|e| e.to_string())?;
                let want = pattern(lane).to_le_bytes();
                // DW_ASPACE_AMDGPU_private_lane (5): the focused lane's view.
                eq("private_lane", &read(&tg, &form(a, 5), 4)?, &want)?;
                // Unaligned, crossing a dword: bytes 2..6 of the lane's view.
                let two = read(&tg, &form(a - 2, 5), 4)?;
                eq("private_lane unaligned", &two[2..], &want[..2])?;
                // DW_ASPACE_AMDGPU_private_wave (6): the unswizzled backing store.
                let swz = (a / 4) * u64::from(ws) * 4 + u64::from(lane) * 4;
                if swz != private_lane_to_wave(a, lane, ws) {
                    return Err("swizzle formula disagrees".into());
                }
                eq("private_wave", &read(&tg, &form(swz, 6), 4)?, &want)?;
                // DW_ASPACE_AMDGPU_private_lane<N> from another focused lane.
                let other = (lane + 1) % ws;
                eq(
                    "private_lane<N>",
                    &read(&tg, &form(a, 0x20 + u64::from(other)), 4)?,
                    &pattern(other).to_le_bytes(),
                )?;
                // Generic: the private aperture, the shared aperture, global.
                eq(
                    "generic private",
                    &read(&tg, &form(PRIVATE_BASE + a, 1), 4)?,
                    &want,
                )?;
                eq(
                    "generic local",
                    &read(&tg, &form(SHARED_BASE + 4, 1), 8)?,
                    &lds[4..12],
                )?;
                eq("local", &read(&tg, &form(4, 3), 8)?, &lds[4..12])?;
                let gw: Vec<u8> = (16..24).collect();
                eq(
                    "global",
                    &read(&tg, &format!("DW_OP_addr {:#x}", pglobal + 16), 8)?,
                    &gw,
                )?;
                eq(
                    "generic global",
                    &read(&tg, &form(pglobal + 16, 1), 8)?,
                    &gw,
                )?;
                // Region (address space 2) is the device's GDS: 64 KiB, zero here.
                eq("region", &read(&tg, &form(0x100, 2), 4)?, &[0; 4])?;
                if read(&tg, &form(0x1_0000, 2), 4).is_ok() {
                    return Err("region memory past the GDS was readable".into());
                }
                // Beyond the lane's scratch is unmapped.
                if read(&tg, &form(u64::from(per_lane), 5), 4).is_ok() {
                    return Err("private memory past the lane's size was readable".into());
                }
                if read(&tg, "DW_OP_addr 0x10", 4).is_ok() {
                    return Err("unmapped global memory was readable".into());
                }
            }
            // Writes: the focused lane's private view, the wave view, global, LDS.
            let lane = 2;
            let lds_before = d
                .session()
                .read_memory(Space::Lds, 0, lane, 4, 6)
                .map_err(|e| e.to_string())?;
            let mut tw = d.target_mut(lane).map_err(|e| e.to_string())?;
            let l = locate(&tw, &form(a, 5))?;
            write_object(&mut tw, &l, &0xabad_cafeu32.to_le_bytes()).map_err(|e| e.to_string())?;
            let swz = private_lane_to_wave(a + 4, 7, ws);
            let l = locate(&tw, &form(swz, 6))?;
            write_object(&mut tw, &l, &[1, 2, 3, 4]).map_err(|e| e.to_string())?;
            let l = locate(&tw, &form(pglobal + 40, 0))?;
            write_object(&mut tw, &l, &[9, 8, 7]).map_err(|e| e.to_string())?;
            let l = locate(&tw, &form(6, 3))?;
            write_object(&mut tw, &l, &[0x5a, 0xa5]).map_err(|e| e.to_string())?;
            let s = d.session();
            let got = s
                .read_memory(Space::Lds, 0, lane, 4, 6)
                .map_err(|e| e.to_string())?;
            let mut want = lds_before;
            want[2..4].copy_from_slice(&[0x5a, 0xa5]);
            eq("LDS write lands at its address only", &got, &want)?;
            let got = s
                .read_memory(Space::Private, 0, lane, a, 4)
                .map_err(|e| e.to_string())?;
            eq("private write", &got, &0xabad_cafeu32.to_le_bytes())?;
            let other = s
                .read_memory(Space::Private, 0, lane + 1, a, 4)
                .map_err(|e| e.to_string())?;
            eq(
                "neighbour lane untouched",
                &other,
                &pattern(lane + 1).to_le_bytes(),
            )?;
            let got = s
                .read_memory(Space::Private, 0, 7, a + 4, 4)
                .map_err(|e| e.to_string())?;
            eq("private_wave write lands in lane 7", &got, &[1, 2, 3, 4])?;
            let got = dev.read(pglobal + 39, 5).map_err(|e| e.to_string())?;
            eq("global write", &got, &[39, 9, 8, 7, 43])?;
            Ok(())
        })
    });
}

#[test]
fn read_only_views_and_bad_lanes() {
    all(|t| {
        with_stopped(t, |d, dev, pglobal, _pc| {
            let ws = d.wave_size().map_err(|e| e.to_string())?;
            match d.target(ws) {
                Err(amdgpu_lanes::Error::Wave(WaveTargetError::NoLane { lane, .. }))
                    if lane == ws => {}
                Err(e) => return Err(format!("lane {ws}: unexpected error {e}")),
                Ok(_) => return Err(format!("lane {ws} of a wave{ws} accepted")),
            }
            let s = d.session();
            if WaveTarget::new(s, dev, 99, 0, 0).is_ok() {
                return Err("wave 99 accepted".into());
            }
            let mut ro = WaveTarget::new(s, dev, 0, 0, 0).map_err(|e| e.to_string())?;
            let l = locate(&ro, &form(pglobal, 0))?;
            if write_object(&mut ro, &l, &[1]).is_ok() {
                return Err("a read-only target wrote".into());
            }
            Ok(())
        })
    });
}
