//! [`Debugger`]: breakpoints by source line or address, a dispatch run until it stops,
//! and variables of the stopped wave read and written through their DWARF locations.
//!
//! Addresses in this API are *link-time* addresses (those of the code object's DWARF and
//! symbol table); the debugger adds the module's load bias when it talks to the simulator.

use crate::Error;
use crate::frames::{CallerTarget, ReconstructedCaller};
use crate::image::Image;
use crate::target::WaveTarget;
use amdgpu_dwarf::eval::{Compat, read_through};
use amdgpu_dwarf::location::write_object;
use amdgpu_dwarf::program::{LocationValue, Variable};
use amdgpu_dwarf::{EvalOptions, Evaluator, Expr, Loc, Target};
use amdgpu_sim::debug::{Session, Stop};
use amdgpu_sim::{Device, Launch, Module};

/// clang-15 (Debian's hipcc) at `-O0 -g` places a private variable with a bare
/// `DW_OP_fbreg N`, the frame base being `DW_OP_regx SGPR33`: a wave-scaled offset into
/// the lanes' private memory. Read literally (a memory location in the default, generic
/// address space) it would be generic address `N`, never mapped; the producer means the
/// lane's private memory at frame offset `N`, which is what clang-19 spells with the
/// private-address suffix. A bare `DW_OP_fbreg N` therefore gets the suffix
/// (`DW_OP_lit1, DW_OP_swap, DW_OP_xderef`) and is read as clang-19's `-O0` form; every
/// other expression is left as it is.
fn private_frame_slot(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    const FBREG: u8 = 0x91;
    let Some((&FBREG, rest)) = bytes.split_first() else {
        return bytes.into();
    };
    // One SLEB128 operand and nothing after it.
    let operand_len = rest.iter().position(|b| b & 0x80 == 0).map(|i| i + 1);
    if operand_len != Some(rest.len()) {
        return bytes.into();
    }
    let mut v = bytes.to_vec();
    v.extend_from_slice(&[0x31, 0x16, 0x18]); // DW_OP_lit1, DW_OP_swap, DW_OP_xderef
    v.into()
}

/// Why the dispatch stopped, with link-time addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Wave `wave` of work-group `group` is about to execute the instruction at `pc`, a
    /// breakpoint.
    Breakpoint {
        /// Work-group id.
        group: [u32; 3],
        /// Wave number in the group.
        wave: u32,
        /// Link-time address.
        pc: u64,
    },
    /// A single step of wave `wave` completed; it is at `pc`.
    Stepped {
        /// Work-group id.
        group: [u32; 3],
        /// Wave number in the group.
        wave: u32,
        /// Link-time address.
        pc: u64,
    },
    /// The stepped wave cannot run now (ended, or at a barrier).
    NotRunnable {
        /// Wave number.
        wave: u32,
    },
    /// The run was interrupted ([`amdgpu_sim::debug::Session::set_interrupt`]) with
    /// wave `wave` about to execute the instruction at `pc`.
    Interrupted {
        /// Work-group id.
        group: [u32; 3],
        /// Wave number in the group.
        wave: u32,
        /// Link-time address.
        pc: u64,
    },
    /// The dispatch finished.
    Finished,
}

/// A dispatch of a kernel with DWARF under debugger control.
///
/// How the pieces fit: the [`Session`] of `amdgpu-sim` runs the dispatch and stops a wave
/// at a breakpoint; a [`WaveTarget`] presents that wave (focused on one lane) as the DWARF
/// evaluator's [`Target`]; the [`Image`]'s [`amdgpu_dwarf::program::Program`] says which
/// variables are in scope at the stopped PC, with which location expression, and provides
/// the frame base; the evaluator, run with [`Compat::clang19`], turns the expression into
/// a location, and `amdgpu-dwarf`'s `read_through` / `write_object` move the bytes.
pub struct Debugger<'a, 'd> {
    image: &'a Image<'d>,
    device: &'a Device,
    session: Session<'a>,
    load_bias: u64,
    wave_scaled: bool,
    stopped: Option<u32>,
    /// The work-group of the stopped wave (several are resident when the kernel's
    /// waves wait on other work-groups').
    stopped_group: Option<[u32; 3]>,
    /// The wave of the last event (a breakpoint hit, a step), which
    /// [`Debugger::focus_wave`] does not change.
    event_wave: Option<u32>,
    /// The selected frame (0: the innermost), for variables; every stop selects 0.
    frame: u32,
    /// The callers' frames as the reconstruction unwound them at the stop, when given
    /// ([`Debugger::select_frame_in`]); without them, callers are found through the
    /// call frame information.
    callers: Vec<crate::frames::CallerFrame>,
    /// Whether the selected frame's variables are one inline frame's
    /// ([`Debugger::set_inline_frames`]).
    inline_frames: bool,
    /// The selected inline frame of the selected frame: how many of the calls inlined
    /// at its PC are left out, innermost first (0 after every stop).
    inline: u32,
}

impl<'a, 'd> Debugger<'a, 'd> {
    /// A debugger over a prepared dispatch (`device.launch(module, ...)`) of a kernel of
    /// `module`, which was loaded from the code object `image` was parsed from. Nothing
    /// runs until [`Debugger::resume`] or [`Debugger::step`].
    pub fn new(image: &'a Image<'d>, device: &'a Device, module: &Module, launch: Launch) -> Self {
        // clang-19 describes private variables relative to a frame-base SGPR that holds a
        // wave-scaled offset when scratch is reached through the private segment buffer
        // (MUBUF scratch), which every GFX9/GFX10 target here uses; with architected flat
        // scratch the frame base would be a lane offset.
        let wave_scaled = launch
            .kernel
            .descriptor
            .kernel_code_properties
            .enable_sgpr_private_segment_buffer;
        Debugger {
            image,
            device,
            session: Session::new(device, launch),
            load_bias: module.load_bias,
            wave_scaled,
            stopped: None,
            stopped_group: None,
            event_wave: None,
            frame: 0,
            callers: Vec::new(),
            inline_frames: false,
            inline: 0,
        }
    }

    /// With `on`, [`Debugger::variables`] gives the variables of one inline frame of
    /// the selected frame ([`Debugger::select_inline`]; gdb's view, where every inlined
    /// call containing the PC is a frame of its own); without (the default), those of
    /// every scope at its PC, the inlined calls' included.
    pub fn set_inline_frames(&mut self, on: bool) {
        self.inline_frames = on;
    }

    /// Selects the inline frame of the selected frame whose variables
    /// [`Debugger::variables`] gives when inline frames are on: 0 is the innermost
    /// inlined call at its PC (or the function itself when there is none), `n` the
    /// scope `n` inlined calls out. Reset to 0 by every stop and frame selection.
    pub fn select_inline(&mut self, inline: u32) {
        self.inline = inline;
    }

    /// The selected inline frame ([`Debugger::select_inline`]).
    pub fn selected_inline(&self) -> u32 {
        self.inline
    }

    /// The code object's DWARF.
    pub fn image(&self) -> &'a Image<'d> {
        self.image
    }

    /// The compatibility reading used for this kernel's expressions.
    pub fn compat(&self) -> Compat {
        Compat::clang19(self.wave_scaled)
    }

    /// The underlying session (for what this API does not cover).
    pub fn session(&mut self) -> &mut Session<'a> {
        &mut self.session
    }

    /// The underlying session, read-only.
    pub fn session_ref(&self) -> &Session<'a> {
        &self.session
    }

    /// The device the dispatch runs on.
    pub fn device(&self) -> &'a Device {
        self.device
    }

    /// The module's load bias (simulator address = link-time address + bias).
    pub fn load_bias(&self) -> u64 {
        self.load_bias
    }

    /// Sets a breakpoint at a link-time address.
    pub fn break_at_address(&mut self, addr: u64) {
        self.session
            .add_breakpoint(addr.wrapping_add(self.load_bias));
    }

    /// Removes a breakpoint at a link-time address; returns whether it existed.
    pub fn clear_address(&mut self, addr: u64) -> bool {
        self.session
            .remove_breakpoint(addr.wrapping_add(self.load_bias))
    }

    /// Removes every breakpoint.
    pub fn clear_all(&mut self) {
        let all: Vec<u64> = self.session.breakpoints().collect();
        for b in all {
            self.session.remove_breakpoint(b);
        }
    }

    /// Sets breakpoints at every statement start of `line` in the file whose name ends
    /// with `file` (DWARF 5 §6.2, `is_stmt` rows); returns their link-time addresses.
    pub fn break_at_line(&mut self, file: &str, line: u64) -> Result<Vec<u64>, Error> {
        let addrs = self.image.line_addresses(file, line)?;
        for &a in &addrs {
            self.break_at_address(a);
        }
        Ok(addrs)
    }

    fn event(&mut self, stop: Stop) -> Event {
        let bias = self.load_bias;
        let group = match stop {
            Stop::Breakpoint { group, .. }
            | Stop::Stepped { group, .. }
            | Stop::Interrupted { group, .. } => Some(group),
            Stop::NotRunnable { .. } => self.stopped_group,
            Stop::Finished => None,
        };
        let (ev, stopped) = match stop {
            Stop::Breakpoint { group, wave, pc } => (
                Event::Breakpoint {
                    group,
                    wave,
                    pc: pc.wrapping_sub(bias),
                },
                Some(wave),
            ),
            Stop::Stepped { group, wave, pc } => (
                Event::Stepped {
                    group,
                    wave,
                    pc: pc.wrapping_sub(bias),
                },
                Some(wave),
            ),
            Stop::Interrupted { group, wave, pc } => (
                Event::Interrupted {
                    group,
                    wave,
                    pc: pc.wrapping_sub(bias),
                },
                Some(wave),
            ),
            Stop::NotRunnable { wave, .. } => (Event::NotRunnable { wave }, self.stopped),
            Stop::Finished => (Event::Finished, None),
        };
        self.stopped = stopped;
        self.stopped_group = group;
        self.event_wave = stopped;
        self.frame = 0;
        self.inline = 0;
        self.callers.clear();
        ev
    }

    /// Runs until a wave reaches a breakpoint or the dispatch finishes.
    pub fn resume(&mut self) -> Result<Event, Error> {
        let s = self.session.resume()?;
        Ok(self.event(s))
    }

    /// Executes one instruction of wave `wave` of the current work-group.
    pub fn step(&mut self, wave: u32) -> Result<Event, Error> {
        let s = self.session.step(wave)?;
        Ok(self.event(s))
    }

    /// Removes every breakpoint and runs the dispatch to its end.
    pub fn finish(&mut self) -> Result<(), Error> {
        self.clear_all();
        loop {
            if self.resume()? == Event::Finished {
                return Ok(());
            }
        }
    }

    /// The stopped wave's number.
    pub fn stopped_wave(&self) -> Result<u32, Error> {
        self.stopped.ok_or(Error::NotStopped)
    }

    /// The wave the last event (breakpoint, step) was about, whichever wave is
    /// inspected since ([`Debugger::focus_wave`]).
    pub fn event_wave(&self) -> Result<u32, Error> {
        self.event_wave.ok_or(Error::NotStopped)
    }

    /// Makes wave `wave` of the running work-group (the session's focused one, when
    /// several are resident) the one whose state variables, registers and frames are
    /// read (a debugger's thread switch); selects its frame 0. Every wave of a stopped
    /// work-group is stopped: the one a breakpoint stopped is only the first focused.
    pub fn focus_wave(&mut self, wave: u32) -> Result<(), Error> {
        if self.session.wave(wave).is_none() {
            return Err(Error::NotStopped);
        }
        let group = self.session.group().map(|g| g.id);
        if self.stopped != Some(wave) || self.stopped_group != group {
            self.stopped = Some(wave);
            self.stopped_group = group;
            self.frame = 0;
            self.inline = 0;
            self.callers.clear();
        }
        Ok(())
    }

    /// A read-only DWARF target for the stopped wave, focused on `lane`.
    pub fn target(&self, lane: u32) -> Result<WaveTarget<'_, 'a>, Error> {
        let wave = self.stopped_wave()?;
        Ok(WaveTarget::new(
            &self.session,
            self.device,
            wave,
            lane,
            self.load_bias,
        )?)
    }

    /// A writable DWARF target for the stopped wave, focused on `lane`.
    pub fn target_mut(&mut self, lane: u32) -> Result<WaveTarget<'_, 'a>, Error> {
        let wave = self.stopped_wave()?;
        Ok(WaveTarget::new_mut(
            &mut self.session,
            self.device,
            wave,
            lane,
            self.load_bias,
        )?)
    }

    /// The stopped wave's frame `frame` (0: the wave itself; a caller's through the call
    /// frame information, [`CallerTarget`]), focused on `lane`.
    pub fn frame_target(&self, frame: u32, lane: u32) -> Result<Box<dyn Target + '_>, Error> {
        let mut t: Box<dyn Target + '_> = Box::new(self.target(lane)?);
        let program = self.image.program();
        for level in 1..=frame {
            if let Some(c) = self.callers.get(level as usize - 1) {
                t = Box::new(ReconstructedCaller::new(t, c.clone()));
                continue;
            }
            let c = CallerTarget::unwind(program, t).map_err(|e| Error::Frame {
                frame: level,
                why: e.to_string(),
            })?;
            t = Box::new(c);
        }
        Ok(t)
    }

    /// [`Debugger::select_frame`] with the callers' frames the reconstruction unwound
    /// for the stopped wave ([`crate::service::LaneService::call_frames`]), which are
    /// used instead of the call frame information.
    pub fn select_frame_in(
        &mut self,
        frame: u32,
        callers: Vec<crate::frames::CallerFrame>,
    ) -> Result<u64, Error> {
        let old = std::mem::replace(&mut self.callers, callers);
        match self.select_frame(frame) {
            Ok(pc) => Ok(pc),
            Err(e) => {
                self.callers = old;
                Err(e)
            }
        }
    }

    /// Selects frame `frame` for [`Debugger::variables`] and the reads after it (0: the
    /// innermost; every stop selects 0). Returns the frame's PC: the wave's for frame 0,
    /// the return address into the caller otherwise.
    pub fn select_frame(&mut self, frame: u32) -> Result<u64, Error> {
        let pc = self.frame_pc_of(frame)?;
        self.frame = frame;
        self.inline = 0;
        Ok(pc)
    }

    /// The selected frame.
    pub fn selected_frame(&self) -> u32 {
        self.frame
    }

    /// The PC of frame `frame`: the wave's, or the return address into the caller.
    fn frame_pc_of(&self, frame: u32) -> Result<u64, Error> {
        let pc = self.pc()?;
        if frame == 0 {
            return Ok(pc);
        }
        // A caller's target reads its lookup address (the return address minus one).
        Ok(self.frame_target(frame, 0)?.pc().wrapping_add(1))
    }

    /// The address variables are looked up at in the selected frame: the PC, or a
    /// caller's return address minus one.
    fn lookup_pc(&self) -> Result<u64, Error> {
        Ok(self.frame_target(self.frame, 0)?.pc())
    }

    /// The stopped wave's link-time PC.
    pub fn pc(&self) -> Result<u64, Error> {
        Ok(self.target(0)?.pc())
    }

    /// The stopped wave's EXEC mask.
    pub fn exec(&self) -> Result<u64, Error> {
        Ok(self.target(0)?.exec())
    }

    /// The stopped wave's size (32 or 64).
    pub fn wave_size(&self) -> Result<u32, Error> {
        Ok(self.target(0)?.wave_size())
    }

    /// The source file and line of the stopped PC.
    pub fn line(&self) -> Result<Option<(String, u64)>, Error> {
        Ok(self.image.program().line_at(self.pc()?)?)
    }

    /// The variables and parameters in scope at the stopped PC, or in the selected
    /// caller's frame (innermost scopes last); with inline frames on, those of the
    /// selected inline frame only ([`Debugger::set_inline_frames`]).
    pub fn variables(&self) -> Result<Vec<Variable>, Error> {
        let program = self.image.program();
        let pc = self.lookup_pc()?;
        if self.inline_frames {
            return Ok(program.frame_variables(pc, self.inline as usize)?);
        }
        Ok(program.variables_at(pc)?)
    }

    /// The innermost variable named `name` in scope at the stopped PC (or the selected
    /// frame's).
    pub fn variable(&self, name: &str) -> Result<Variable, Error> {
        let pc = self.lookup_pc()?;
        self.variables()?
            .into_iter()
            .rev()
            .find(|v| v.name == name)
            .ok_or_else(|| Error::NoVariable {
                name: name.into(),
                pc,
            })
    }

    /// Evaluates `var`'s location for lane `lane` of the stopped wave. Several
    /// location-list entries covering the PC are all places of the object (DWARF 5
    /// §2.6.2), so their single locations are combined.
    pub fn location(&self, var: &Variable, lane: u32) -> Result<Loc, Error> {
        let t = self.frame_target(self.frame, lane)?;
        self.location_in(&*t, var)
    }

    fn location_in(&self, t: &dyn Target, var: &Variable) -> Result<Loc, Error> {
        let pc = t.pc();
        let exprs = match &var.location {
            Some(LocationValue::Exprs(e)) => e,
            Some(LocationValue::NotAtPc) => {
                return Err(Error::NotAtPc {
                    name: var.name.clone(),
                    pc,
                });
            }
            None => return Err(Error::NoLocation(var.name.clone())),
        };
        let program = self.image.program();
        let opts = EvalOptions {
            decode: program.decode_options_at(pc),
            compat: self.compat(),
            ..EvalOptions::default()
        };
        let ctx = program.context(pc, t);
        let dwarf = |error| Error::Dwarf {
            name: var.name.clone(),
            error,
        };
        let mut singles = Vec::new();
        for bytes in exprs {
            let bytes = private_frame_slot(bytes);
            let e = Expr::decode(&bytes, &opts.decode).map_err(dwarf)?;
            let mut ev = Evaluator::new(t, &ctx, opts.clone());
            let l = ev.location(&e).map_err(dwarf)?;
            singles.extend_from_slice(l.singles());
        }
        if singles.is_empty() {
            return Err(Error::NotAtPc {
                name: var.name.clone(),
                pc,
            });
        }
        Ok(Loc::from_singles(singles))
    }

    fn size_of(var: &Variable) -> Result<usize, Error> {
        var.byte_size
            .and_then(|s| usize::try_from(s).ok())
            .ok_or_else(|| Error::UnknownSize(var.name.clone()))
    }

    /// Reads `var`'s bytes as lane `lane` of the stopped wave sees them (its
    /// DW_AT_const_value when it has one).
    pub fn read_variable(&self, var: &Variable, lane: u32) -> Result<Vec<u8>, Error> {
        if var.location.is_none()
            && let Some(c) = &var.const_value
        {
            return Ok(c.clone());
        }
        let size = Self::size_of(var)?;
        let t = self.frame_target(self.frame, lane)?;
        let loc = self.location_in(&*t, var)?;
        let bits = read_through(&*t, &loc, size).map_err(|error| Error::Dwarf {
            name: var.name.clone(),
            error,
        })?;
        if let Some(byte) = (0..size).find(|&i| !bits.byte_defined(i)) {
            return Err(Error::Undefined {
                name: var.name.clone(),
                byte,
            });
        }
        let mut v = bits.bytes();
        v.truncate(size);
        Ok(v)
    }

    /// Reads `nbytes` through a location (from [`Debugger::location`]) as lane `lane` of
    /// the stopped wave sees it: for objects whose DWARF type has no size (arrays without
    /// DW_AT_byte_size), or parts of objects. Undefined bytes are an error.
    pub fn read_location(&self, loc: &Loc, lane: u32, nbytes: usize) -> Result<Vec<u8>, Error> {
        let t = self.frame_target(self.frame, lane)?;
        let bits = read_through(&*t, loc, nbytes).map_err(|error| Error::Dwarf {
            name: String::from("<location>"),
            error,
        })?;
        if let Some(byte) = (0..nbytes).find(|&i| !bits.byte_defined(i)) {
            return Err(Error::Undefined {
                name: String::from("<location>"),
                byte,
            });
        }
        let mut v = bits.bytes();
        v.truncate(nbytes);
        Ok(v)
    }

    /// Reads a variable by name (see [`Debugger::read_variable`]).
    pub fn read(&self, name: &str, lane: u32) -> Result<Vec<u8>, Error> {
        let v = self.variable(name)?;
        self.read_variable(&v, lane)
    }

    /// Writes `data` (exactly the variable's size) to every place `var` is in, as lane
    /// `lane` of the stopped wave sees it. Nothing is written if any part is read-only.
    pub fn write_variable(&mut self, var: &Variable, lane: u32, data: &[u8]) -> Result<(), Error> {
        let size = Self::size_of(var)?;
        if data.len() != size {
            return Err(Error::SizeMismatch {
                name: var.name.clone(),
                size: size as u64,
                given: data.len(),
            });
        }
        if self.frame != 0 {
            return Err(Error::CallerFrameWrite(self.frame));
        }
        let loc = {
            let t = self.target(lane)?;
            self.location_in(&t, var)?
        };
        let mut t = self.target_mut(lane)?;
        write_object(&mut t, &loc, data).map_err(|error| Error::Access {
            name: var.name.clone(),
            error,
        })
    }

    /// Writes `data` through a location (from [`Debugger::location`]) as lane `lane` of the
    /// stopped wave sees it: for objects whose DWARF type has no size, or parts of objects.
    pub fn write_location(&mut self, loc: &Loc, lane: u32, data: &[u8]) -> Result<(), Error> {
        if self.frame != 0 {
            return Err(Error::CallerFrameWrite(self.frame));
        }
        let mut t = self.target_mut(lane)?;
        write_object(&mut t, loc, data).map_err(|error| Error::Access {
            name: String::from("<location>"),
            error,
        })
    }

    /// Writes a variable by name (see [`Debugger::write_variable`]).
    pub fn write(&mut self, name: &str, lane: u32, data: &[u8]) -> Result<(), Error> {
        let v = self.variable(name)?;
        self.write_variable(&v, lane, data)
    }
}
