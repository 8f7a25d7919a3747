//! Errors, traps, halts, the GFX9 branch stack and exception returns
//! (`exec/salu/control.rs`, `exec/special_control.rs`).

use super::common::*;

#[test]
fn errors_name_the_instruction() {
    // v_interp_p1_f32 v0, v1, attr0.x: decoded, not executed.
    let code = [0x01, 0x00, 0x00, 0xd4, 0x00, 0x00, 0x81, 0xbf];
    let err = run(Gpu::Gfx900, 64, &code, |_| {}).unwrap_err();
    match err {
        SimError::Unimplemented { name, at } => {
            assert_eq!(name, "v_interp_p1_f32");
            assert_eq!(at.pc, BASE);
        }
        other => panic!("unexpected {other}"),
    }
    // An invalid word.
    let err = run(Gpu::Gfx900, 64, &[0xff, 0xff, 0xff, 0xff], |_| {}).unwrap_err();
    assert!(matches!(err, SimError::InvalidInstruction { .. }), "{err}");
    // Running off the end of the code.
    let err = run(Gpu::Gfx900, 64, &[0x00, 0x00, 0x80, 0xbf], |_| {}).unwrap_err();
    assert!(
        matches!(err, SimError::BadPc { pc, .. } if pc == BASE + 4),
        "{err}"
    );
}

#[test]
fn traps_bad_branches_and_unallocated_registers_say_what_they_are() {
    // s_trap 2
    let err = run(Gpu::Gfx900, 64, &[0x02, 0x00, 0x92, 0xbf], |_| {}).unwrap_err();
    match &err {
        SimError::Trap { id, at } => {
            assert_eq!(*id, 2);
            assert_eq!(at.pc, BASE);
            assert!(at.inst.starts_with("s_trap"), "{}", at.inst);
        }
        other => panic!("expected a trap, got {other}"),
    }
    // s_branch 1 lands inside the 8-byte s_bfe_u32 that follows.
    let code = [
        &[0x01, 0x00, 0x82, 0xbf][..],
        &[0x05, 0xff, 0x84, 0x92, 0x08, 0x00, 0x04, 0x00],
        &[0x00, 0x00, 0x81, 0xbf],
    ]
    .concat();
    let err = run(Gpu::Gfx900, 64, &code, |_| {}).unwrap_err();
    match &err {
        SimError::BadBranch { target, at } => {
            assert_eq!(*target, BASE + 8);
            assert_eq!(at.pc, BASE, "reported at the branch");
            assert!(at.inst.starts_with("s_branch"), "{}", at.inst);
        }
        other => panic!("expected a bad branch, got {other}"),
    }
    // v_mov_b32 v40, 7 in a wave with 32 VGPRs.
    let code = [0x87, 0x02, 0x50, 0x7e, 0x00, 0x00, 0x81, 0xbf];
    let err = run(Gpu::Gfx900, 64, &code, |_| {}).unwrap_err();
    match &err {
        SimError::RegisterBeyondAllocation {
            register,
            allocated,
            ..
        } => {
            assert_eq!(register, "v40");
            assert_eq!(*allocated, 32);
        }
        other => panic!("expected a register beyond the allocation, got {other}"),
    }
}

/// `s_sethalt 0` (and any even immediate) lets the wave run on; `s_sethalt 1`
/// halts it, which is reported at the instruction, not taken for the end of
/// the wave.
#[test]
fn sethalt_is_reported() {
    let code = [
        0x00, 0x00, 0x8d, 0xbf, // s_sethalt 0
        0x02, 0x00, 0x8d, 0xbf, // s_sethalt 2
        0x87, 0x02, 0x00, 0x7e, // v_mov_b32_e32 v0, 7
        0x01, 0x00, 0x8d, 0xbf, // s_sethalt 1
        0x88, 0x02, 0x00, 0x7e, // v_mov_b32_e32 v0, 8
        0x00, 0x00, 0x81, 0xbf, // s_endpgm
    ];
    for (gpu, size) in [(Gpu::Gfx900, 64), (Gpu::Gfx1030, 32)] {
        let err = run(gpu, size, &code, |_| {}).unwrap_err();
        match &err {
            SimError::Halted { at } => {
                assert_eq!(at.pc, BASE + 12, "{gpu}");
                assert!(at.inst.starts_with("s_sethalt 1"), "{}", at.inst);
            }
            other => panic!("{gpu}: expected a halt, got {other}"),
        }
        // Without the halt the same program runs to its end.
        let w = run(gpu, size, &[&code[..12], &code[16..]].concat(), |_| {}).expect("runs");
        assert_eq!(w.vgpr[0][0], 8, "{gpu}");
    }
}

/// GFX9's branch stack, by the Vega ISA pseudo-code of `s_cbranch_i_fork`,
/// `s_cbranch_g_fork` and `s_cbranch_join`: a fork that splits the lanes
/// runs the side with fewer lanes first (the taken side on a tie), pushing
/// the other side's `{PC, lanes}` to SGPR[CSP * 4] (MODE.CSP, bits 31:29);
/// the first join pops it, the second falls through.
#[test]
fn fork_and_join_follow_the_branch_stack() {
    let body: [&[u8]; 5] = [
        &[0x81, 0x02, 0x02, 0x7e], // 0x1008 v_mov_b32_e32 v1, 1
        &[0x01, 0x00, 0x82, 0xbf], // 0x100c s_branch 1 (to the join)
        &[0x82, 0x02, 0x02, 0x7e], // 0x1010 v_mov_b32_e32 v1, 2
        &[0x0c, 0x2e, 0x80, 0xbe], // 0x1014 s_cbranch_join s12
        &[0x00, 0x00, 0x81, 0xbf], // 0x1018 s_endpgm
    ];
    let getreg: &[u8] = &[0x41, 0x17, 0x8c, 0xb8]; // s_getreg_b32 s12, hwreg(HW_REG_MODE, 29, 3)
    let i_fork: &[u8] = &[0x02, 0x00, 0x0a, 0xb8]; // s_cbranch_i_fork s[10:11], 2 (to 0x1010)
    let g_fork: &[u8] = &[0x0a, 0x14, 0x80, 0x94]; // s_cbranch_g_fork s[10:11], s[20:21]
    let all = u64::MAX;
    for fork in [i_fork, g_fork] {
        let code = [&[getreg, fork][..], &body[..]].concat().concat();
        // (taken lanes, what runs first, the entry pushed: lanes and PC)
        let low40 = (1u64 << 40) - 1;
        let low10 = (1u64 << 10) - 1;
        for (cond, pushed) in [
            // 40 lanes taken, 24 not: the 24 first, the taken lanes pushed
            // with the target; the side run last leaves its EXEC.
            (low40, Some((low40, 0x1010u64))),
            // 10 taken: those first, the others pushed with the
            // fall-through PC.
            (low10, Some((!low10, 0x1008))),
            // A tie: the taken side first.
            (u32::MAX as u64, Some((!(u32::MAX as u64), 0x1008))),
            (all, None),
            (0, None),
        ] {
            let w = run(Gpu::Gfx900, 64, &code, |w| {
                w.sgpr[10] = cond as u32;
                w.sgpr[11] = (cond >> 32) as u32;
                w.sgpr[20] = 0x1010;
                w.sgpr[21] = 0;
                for l in 0..64 {
                    w.vgpr[1][l] = 0xdead;
                }
            })
            .unwrap();
            for l in 0..64 {
                let want = if cond >> l & 1 != 0 { 2 } else { 1 };
                assert_eq!(w.vgpr[1][l], want, "cond {cond:#x} lane {l}");
            }
            assert_eq!(w.hwreg[1] >> 29, 0, "CSP back to its saved value");
            match pushed {
                Some((lanes, pc)) => {
                    assert_eq!(w.sgpr[0] as u64 | (w.sgpr[1] as u64) << 32, lanes);
                    assert_eq!(w.sgpr[2] as u64 | (w.sgpr[3] as u64) << 32, pc);
                    // The second join continues with the lanes of the side
                    // popped last.
                    assert_eq!(w.exec.0, lanes, "cond {cond:#x}");
                }
                None => {
                    assert_eq!(w.sgpr[..4], [0; 4], "nothing pushed for {cond:#x}");
                    assert_eq!(w.exec.0, all);
                }
            }
        }
    }
    // A split with the stack full (CSP 7: three bits) and a join that finds
    // the stack empty are reported, not executed.
    let code = [&[getreg, i_fork][..], &body[..]].concat().concat();
    let err = run(Gpu::Gfx900, 64, &code, |w| {
        w.sgpr[10] = 1;
        w.hwreg[1] |= 7 << 29;
    })
    .unwrap_err();
    assert!(err.to_string().contains("branch stack full"), "{err}");
    let join: &[u8] = &[0x0c, 0x2e, 0x80, 0xbe]; // s_cbranch_join s12
    let err = run(Gpu::Gfx900, 64, join, |w| w.sgpr[12] = 3).unwrap_err();
    assert!(err.to_string().contains("empty branch stack"), "{err}");
}

/// `s_rfe_b64` and `s_rfe_restore_b64` set the PC from S0 (Vega ISA: PRIV =
/// 0; PC = S0.u64), `s_endpgm_saved` ends the wave, and GFX10's `v_illegal`
/// raises the illegal-instruction exception, reported as such.
#[test]
fn exception_returns_end_saved_and_illegal() {
    let trap: &[u8] = &[0x01, 0x00, 0x92, 0xbf]; // s_trap 1
    let code = [
        &[0x14, 0x1f, 0x80, 0xbe][..], // 0x1000 s_rfe_b64 s[20:21] (to 0x1008)
        trap,                          // 0x1004
        &[0x16, 0x18, 0x80, 0x95],     // 0x1008 s_rfe_restore_b64 s[22:23], s24 (to 0x1010)
        trap,                          // 0x100c
        &[0x00, 0x00, 0x9b, 0xbf],     // 0x1010 s_endpgm_saved
        trap,                          // 0x1014
    ]
    .concat();
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        w.sgpr[20] = 0x1008;
        w.sgpr[22] = 0x1010;
        w.sgpr[24] = 1;
    })
    .unwrap();
    assert_eq!(w.status, WaveStatus::Done);
    assert_eq!(w.pc, 0x1014);
    assert_eq!(w.executed, 3);
    // v_illegal is the all-zero word on GFX10.
    let err = run(Gpu::Gfx1030, 32, &[0, 0, 0, 0], |_| {}).unwrap_err();
    match &err {
        SimError::IllegalInstruction { at } => {
            assert_eq!(at.pc, BASE);
            assert!(at.inst.starts_with("v_illegal"), "{}", at.inst);
        }
        other => panic!("expected an illegal-instruction exception, got {other}"),
    }
}
