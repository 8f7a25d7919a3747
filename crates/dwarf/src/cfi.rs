//! A small interpreter of `.debug_frame` call frame information (DWARF 5 section 6.4),
//! with the AMDGPU instructions DW_CFA_LLVM_def_aspace_cfa (0x30) and
//! DW_CFA_LLVM_def_aspace_cfa_sf (0x31).
//!
//! gimli's CFI parser rejects these two instructions (an unknown call frame instruction
//! is an error there), so this crate parses CIEs and FDEs and executes their instructions
//! itself. It computes the row for one PC: the CFA rule and every register's rule.

use gimli::{EndianSlice, LittleEndian, Reader};
use std::collections::HashMap;

/// How to compute the CFA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CfaRule {
    /// Register value plus offset, in an address space (DW_CFA_def_cfa*,
    /// DW_CFA_LLVM_def_aspace_cfa*).
    Register {
        /// DWARF register.
        reg: u64,
        /// Byte offset.
        offset: i64,
        /// DWARF address space.
        space: u64,
    },
    /// A DWARF expression yielding the CFA location (DW_CFA_def_cfa_expression).
    Expression(Vec<u8>),
}

/// How to find a register's value in the caller (DWARF 5 section 6.4.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterRule {
    /// No value.
    Undefined,
    /// Unchanged.
    SameValue,
    /// Saved at CFA + N.
    Offset(i64),
    /// The value is CFA + N.
    ValOffset(i64),
    /// In another register.
    Register(u64),
    /// Saved at the location the expression gives (CFA pushed first).
    Expression(Vec<u8>),
    /// The value is the expression's result (CFA pushed first).
    ValExpression(Vec<u8>),
}

/// The unwind row for a PC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The CFA rule.
    pub cfa: CfaRule,
    /// Register rules (registers not listed: same value, the AMDGPU default).
    pub registers: HashMap<u64, RegisterRule>,
    /// The CIE's return address column.
    pub return_address: u64,
}

/// A CFI parsing or execution error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CfiError {
    /// The section ends inside an entry.
    #[error("truncated call frame information at {0:#x}")]
    Truncated(usize),
    /// An instruction this interpreter does not know.
    #[error("unknown call frame instruction {op:#04x} at {at:#x}")]
    UnknownInstruction {
        /// The opcode.
        op: u8,
        /// Offset in the section.
        at: usize,
    },
    /// A rule needs a CFA but none was defined, or a restore without state.
    #[error("ill-formed call frame information: {0}")]
    IllFormed(&'static str),
}

#[derive(Debug, Clone)]
struct Cie {
    code_align: u64,
    data_align: i64,
    ra: u64,
    address_size: u8,
    initial: (usize, usize),
}

/// Parsed `.debug_frame`.
#[derive(Debug, Clone)]
pub struct DebugFrame<'d> {
    data: &'d [u8],
    fdes: Vec<Fde>,
    cies: HashMap<usize, Cie>,
}

#[derive(Debug, Clone)]
struct Fde {
    cie: usize,
    start: u64,
    len: u64,
    instructions: (usize, usize),
}

type Rd<'a> = EndianSlice<'a, LittleEndian>;

/// Most states DW_CFA_remember_state may hold at once (compilers nest them one or two
/// deep; gimli allows a handful).
pub const MAX_REMEMBERED: usize = 64;

impl<'d> DebugFrame<'d> {
    /// Parses every CIE and FDE of a `.debug_frame` section; `address_size` is used for
    /// CIEs of version 1 and 3 (which do not state it).
    pub fn parse(data: &'d [u8], address_size: u8) -> Result<Self, CfiError> {
        let mut fdes = Vec::new();
        let mut cies = HashMap::new();
        let mut pos = 0usize;
        while pos < data.len() {
            let mut r = Rd::new(data.get(pos..).unwrap_or(&[]), LittleEndian);
            let t = |_| CfiError::Truncated(pos);
            let len32 = r.read_u32().map_err(t)?;
            let (len, offset_size) = if len32 == 0xffff_ffff {
                (r.read_u64().map_err(t)?, 8usize)
            } else {
                (u64::from(len32), 4usize)
            };
            let header = if offset_size == 8 { 12 } else { 4 };
            let body_start = pos + header;
            let end = usize::try_from(len)
                .ok()
                .and_then(|l| body_start.checked_add(l))
                .filter(|e| *e <= data.len())
                .ok_or(CfiError::Truncated(pos))?;
            if len == 0 {
                pos = end;
                continue;
            }
            let mut r = Rd::new(&data[body_start..end], LittleEndian);
            let id = if offset_size == 8 {
                r.read_u64().map_err(t)?
            } else {
                u64::from(r.read_u32().map_err(t)?)
            };
            let is_cie = if offset_size == 8 {
                id == u64::MAX
            } else {
                id == u64::from(u32::MAX)
            };
            if is_cie {
                let version = r.read_u8().map_err(t)?;
                let aug = r.read_null_terminated_slice().map_err(t)?;
                let mut address_size = address_size;
                if version >= 4 {
                    address_size = r.read_u8().map_err(t)?;
                    let _segment = r.read_u8().map_err(t)?;
                }
                let code_align = r.read_uleb128().map_err(t)?;
                let data_align = r.read_sleb128().map_err(t)?;
                let ra = if version == 1 {
                    u64::from(r.read_u8().map_err(t)?)
                } else {
                    r.read_uleb128().map_err(t)?
                };
                if aug.slice().first() == Some(&b'z') {
                    let n = r.read_uleb128().map_err(t)?;
                    r.skip(n as usize).map_err(t)?;
                }
                let ins_start = end - r.len();
                cies.insert(
                    pos,
                    Cie {
                        code_align,
                        data_align,
                        ra,
                        address_size,
                        initial: (ins_start, end),
                    },
                );
            } else {
                let cie = usize::try_from(id).map_err(|_| CfiError::IllFormed("CIE pointer"))?;
                let asz = cies
                    .get(&cie)
                    .map(|c| c.address_size)
                    .unwrap_or(address_size);
                let read_addr = |r: &mut Rd<'_>| -> Result<u64, CfiError> {
                    match asz {
                        4 => r
                            .read_u32()
                            .map(u64::from)
                            .map_err(|_| CfiError::Truncated(pos)),
                        _ => r.read_u64().map_err(|_| CfiError::Truncated(pos)),
                    }
                };
                let start = read_addr(&mut r)?;
                let len = read_addr(&mut r)?;
                let ins_start = end - r.len();
                fdes.push(Fde {
                    cie,
                    start,
                    len,
                    instructions: (ins_start, end),
                });
            }
            pos = end;
        }
        Ok(DebugFrame { data, fdes, cies })
    }

    /// The unwind row at `pc`, or `None` when no FDE covers it.
    pub fn row_at(&self, pc: u64) -> Result<Option<Row>, CfiError> {
        let Some(fde) = self
            .fdes
            .iter()
            .find(|f| pc >= f.start && pc - f.start < f.len)
        else {
            return Ok(None);
        };
        let cie = self
            .cies
            .get(&fde.cie)
            .ok_or(CfiError::IllFormed("FDE without CIE"))?;
        let mut st = State {
            cfa: None,
            regs: HashMap::new(),
            initial: HashMap::new(),
            stack: Vec::new(),
            loc: fde.start,
        };
        self.execute(cie, cie.initial, &mut st, u64::MAX)?;
        st.initial = st.regs.clone();
        self.execute(cie, fde.instructions, &mut st, pc)?;
        let cfa = st.cfa.ok_or(CfiError::IllFormed("no CFA rule"))?;
        Ok(Some(Row {
            cfa,
            registers: st.regs,
            return_address: cie.ra,
        }))
    }

    /// Runs the CFA instructions in `range` on `st` until the location passes `pc`.
    /// Each instruction's class has its helper: advancing the location, register rules,
    /// CFA rules, and the remembered-state stack.
    fn execute(
        &self,
        cie: &Cie,
        range: (usize, usize),
        st: &mut State,
        pc: u64,
    ) -> Result<(), CfiError> {
        let bytes = self.data.get(range.0..range.1).unwrap_or(&[]);
        let mut r = Rd::new(bytes, LittleEndian);
        while !r.is_empty() {
            let here = range.0 + bytes.len() - r.len();
            let op = r.read_u8().map_err(|_| CfiError::Truncated(here))?;
            let mut o = Operands {
                r: &mut r,
                here,
                cie,
            };
            match (op >> 6, op) {
                (1, _) | (_, 0x01..=0x04) => {
                    if advance(op, &mut o, st, pc)? {
                        return Ok(());
                    }
                }
                (2, _) | (3, _) | (_, 0x05..=0x09 | 0x10 | 0x11 | 0x14..=0x16) => {
                    register_rule(op, &mut o, st)?
                }
                (_, 0x0c..=0x0f | 0x12 | 0x13 | 0x30 | 0x31) => cfa_rule(op, &mut o, st)?,
                (_, 0x0a) => st.remember()?,
                (_, 0x0b) => st.restore_remembered()?,
                (_, 0x00) => {}
                _ => return Err(CfiError::UnknownInstruction { op, at: here }),
            }
        }
        Ok(())
    }
}

/// The operands of one CFA instruction: read from `r`, a truncation reported at the
/// instruction's offset `here`.
struct Operands<'a, 'd> {
    r: &'a mut Rd<'d>,
    here: usize,
    cie: &'a Cie,
}

impl Operands<'_, '_> {
    /// An unsigned LEB128 operand.
    fn uleb(&mut self) -> Result<u64, CfiError> {
        self.r
            .read_uleb128()
            .map_err(|_| CfiError::Truncated(self.here))
    }

    /// A signed LEB128 operand.
    fn sleb(&mut self) -> Result<i64, CfiError> {
        self.r
            .read_sleb128()
            .map_err(|_| CfiError::Truncated(self.here))
    }

    /// A block operand: its length as unsigned LEB128, then its bytes.
    fn block(&mut self) -> Result<Vec<u8>, CfiError> {
        let n = self.uleb()? as usize;
        let e = self
            .r
            .split(n)
            .map_err(|_| CfiError::Truncated(self.here))?;
        Ok(e.slice().to_vec())
    }

    /// `v` times the CIE's data alignment factor.
    fn data(&self, v: i64) -> i64 {
        v.wrapping_mul(self.cie.data_align)
    }

    /// An unknown instruction `op` at this instruction's offset.
    fn unknown<T>(&self, op: u8) -> Result<T, CfiError> {
        Err(CfiError::UnknownInstruction { op, at: self.here })
    }
}

/// DW_CFA_advance_loc, DW_CFA_set_loc and DW_CFA_advance_loc1/2/4: moves the location;
/// whether it is now past `pc` (the row of `pc` is complete).
fn advance(op: u8, o: &mut Operands, st: &mut State, pc: u64) -> Result<bool, CfiError> {
    let here = o.here;
    let t = |_| CfiError::Truncated(here);
    let delta = match op {
        0x01 => {
            st.loc = if o.cie.address_size == 4 {
                u64::from(o.r.read_u32().map_err(t)?)
            } else {
                o.r.read_u64().map_err(t)?
            };
            return Ok(st.loc > pc);
        }
        0x02 => u64::from(o.r.read_u8().map_err(t)?),
        0x03 => u64::from(o.r.read_u16().map_err(t)?),
        0x04 => u64::from(o.r.read_u32().map_err(t)?),
        // DW_CFA_advance_loc: the delta in the low six bits.
        _ => u64::from(op & 0x3f),
    };
    st.loc = st.loc.wrapping_add(delta.wrapping_mul(o.cie.code_align));
    Ok(st.loc > pc)
}

/// The instructions that set or restore one register's rule: DW_CFA_offset, restore,
/// offset_extended, restore_extended, undefined, same_value, register, expression,
/// offset_extended_sf, val_offset, val_offset_sf and val_expression.
fn register_rule(op: u8, o: &mut Operands, st: &mut State) -> Result<(), CfiError> {
    let lo = u64::from(op & 0x3f);
    match (op >> 6, op) {
        (2, _) => {
            let off = o.uleb()? as i64;
            st.regs.insert(lo, RegisterRule::Offset(o.data(off)));
        }
        (3, _) => {
            let rule = st.initial.get(&lo).cloned();
            restore(st, lo, rule);
        }
        (_, 0x05) => {
            let reg = o.uleb()?;
            let off = o.uleb()? as i64;
            st.regs.insert(reg, RegisterRule::Offset(o.data(off)));
        }
        (_, 0x06) => {
            let reg = o.uleb()?;
            let rule = st.initial.get(&reg).cloned();
            restore(st, reg, rule);
        }
        (_, 0x07) => {
            let reg = o.uleb()?;
            st.regs.insert(reg, RegisterRule::Undefined);
        }
        (_, 0x08) => {
            let reg = o.uleb()?;
            st.regs.insert(reg, RegisterRule::SameValue);
        }
        (_, 0x09) => {
            let reg = o.uleb()?;
            let other = o.uleb()?;
            st.regs.insert(reg, RegisterRule::Register(other));
        }
        (_, 0x10) | (_, 0x16) => {
            let reg = o.uleb()?;
            let e = o.block()?;
            let rule = if op == 0x10 {
                RegisterRule::Expression(e)
            } else {
                RegisterRule::ValExpression(e)
            };
            st.regs.insert(reg, rule);
        }
        (_, 0x11) => {
            let reg = o.uleb()?;
            let off = o.sleb()?;
            st.regs.insert(reg, RegisterRule::Offset(o.data(off)));
        }
        (_, 0x14) | (_, 0x15) => {
            let reg = o.uleb()?;
            let off = if op == 0x14 {
                o.uleb()? as i64
            } else {
                o.sleb()?
            };
            st.regs.insert(reg, RegisterRule::ValOffset(o.data(off)));
        }
        _ => return o.unknown(op),
    }
    Ok(())
}

/// The instructions that define the CFA: DW_CFA_def_cfa, def_cfa_register,
/// def_cfa_offset, def_cfa_expression, def_cfa_sf, def_cfa_offset_sf, and the AMDGPU
/// DW_CFA_LLVM_def_aspace_cfa and DW_CFA_LLVM_def_aspace_cfa_sf.
fn cfa_rule(op: u8, o: &mut Operands, st: &mut State) -> Result<(), CfiError> {
    match op {
        0x0c => {
            let reg = o.uleb()?;
            let offset = o.uleb()? as i64;
            st.cfa = Some(CfaRule::Register {
                reg,
                offset,
                space: 0,
            });
        }
        0x0d => {
            let reg = o.uleb()?;
            match &mut st.cfa {
                Some(CfaRule::Register { reg: r0, .. }) => *r0 = reg,
                _ => {
                    return Err(CfiError::IllFormed(
                        "def_cfa_register without a register CFA",
                    ));
                }
            }
        }
        0x0e | 0x13 => {
            let off = if op == 0x0e {
                o.uleb()? as i64
            } else {
                let v = o.sleb()?;
                o.data(v)
            };
            match &mut st.cfa {
                Some(CfaRule::Register { offset, .. }) => *offset = off,
                _ => {
                    return Err(CfiError::IllFormed("def_cfa_offset without a register CFA"));
                }
            }
        }
        0x0f => st.cfa = Some(CfaRule::Expression(o.block()?)),
        0x12 => {
            let reg = o.uleb()?;
            let off = o.sleb()?;
            st.cfa = Some(CfaRule::Register {
                reg,
                offset: o.data(off),
                space: 0,
            });
        }
        0x30 | 0x31 => {
            // DW_CFA_LLVM_def_aspace_cfa: ULEB reg, ULEB offset, ULEB aspace;
            // DW_CFA_LLVM_def_aspace_cfa_sf: ULEB reg, SLEB factored offset, ULEB aspace.
            let reg = o.uleb()?;
            let offset = if op == 0x30 {
                o.uleb()? as i64
            } else {
                let v = o.sleb()?;
                o.data(v)
            };
            let space = o.uleb()?;
            st.cfa = Some(CfaRule::Register { reg, offset, space });
        }
        _ => return o.unknown(op),
    }
    Ok(())
}

struct State {
    cfa: Option<CfaRule>,
    regs: HashMap<u64, RegisterRule>,
    initial: HashMap<u64, RegisterRule>,
    stack: Vec<(Option<CfaRule>, HashMap<u64, RegisterRule>)>,
    loc: u64,
}

impl State {
    /// DW_CFA_remember_state: pushes the CFA and register rules.
    fn remember(&mut self) -> Result<(), CfiError> {
        // Each remembered state copies the rules: bounded, so that a hostile
        // program cannot make the copying quadratic.
        if self.stack.len() >= MAX_REMEMBERED {
            return Err(CfiError::IllFormed("remember_state nested too deeply"));
        }
        self.stack.push((self.cfa.clone(), self.regs.clone()));
        Ok(())
    }

    /// DW_CFA_restore_state: pops the rules the last DW_CFA_remember_state pushed.
    fn restore_remembered(&mut self) -> Result<(), CfiError> {
        let (cfa, regs) = self
            .stack
            .pop()
            .ok_or(CfiError::IllFormed("restore_state without remember_state"))?;
        self.cfa = cfa;
        self.regs = regs;
        Ok(())
    }
}

fn restore(st: &mut State, reg: u64, rule: Option<RegisterRule>) {
    match rule {
        Some(r) => {
            st.regs.insert(reg, r);
        }
        None => {
            st.regs.remove(&reg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(body: &[u8]) -> Vec<u8> {
        let mut v = (body.len() as u32).to_le_bytes().to_vec();
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn aspace_cfa_and_rules() {
        // CIE v4: aug "", addr 8, seg 0, code align 4, data align 4, RA 16;
        // initial: DW_CFA_LLVM_def_aspace_cfa SGPR32 (64), 0, aspace 6.
        let mut cie = vec![0xff, 0xff, 0xff, 0xff, 4, 0, 8, 0, 4, 4, 16];
        cie.extend_from_slice(&[0x30, 64, 0, 6]);
        let mut sec = entry(&cie);
        // FDE for [0x100, 0x200): at +8 (advance_loc 2*4): def_aspace_cfa_sf SGPR33, 4*4, 5;
        // offset SGPR40 at 2*4; undefined 17.
        let mut fde = 0u32.to_le_bytes().to_vec();
        fde.extend_from_slice(&0x100u64.to_le_bytes());
        fde.extend_from_slice(&0x100u64.to_le_bytes());
        fde.extend_from_slice(&[0x42, 0x31, 65, 4, 5, 0x80 | 40, 2, 0x07, 17]);
        sec.extend(entry(&fde));
        let f = DebugFrame::parse(&sec, 8).unwrap();
        let r = f.row_at(0x104).unwrap().unwrap();
        assert_eq!(
            r.cfa,
            CfaRule::Register {
                reg: 64,
                offset: 0,
                space: 6
            }
        );
        let r = f.row_at(0x108).unwrap().unwrap();
        assert_eq!(
            r.cfa,
            CfaRule::Register {
                reg: 65,
                offset: 16,
                space: 5
            }
        );
        assert_eq!(r.registers.get(&40), Some(&RegisterRule::Offset(8)));
        assert_eq!(r.registers.get(&17), Some(&RegisterRule::Undefined));
        assert!(f.row_at(0x300).unwrap().is_none());
        // Truncated sections are errors, never panics.
        for cut in 0..sec.len() {
            let _ = DebugFrame::parse(&sec[..cut], 8).and_then(|f| f.row_at(0x108));
        }
    }

    #[test]
    fn remembered_states_are_bounded() {
        let mut cie = vec![0xff, 0xff, 0xff, 0xff, 4, 0, 8, 0, 4, 4, 16];
        cie.extend_from_slice(&[0x0c, 64, 0]);
        let fde_with = |n: usize| {
            let mut sec = entry(&cie);
            let mut fde = 0u32.to_le_bytes().to_vec();
            fde.extend_from_slice(&0x100u64.to_le_bytes());
            fde.extend_from_slice(&0x100u64.to_le_bytes());
            fde.extend(std::iter::repeat_n(0x0a, n));
            sec.extend(entry(&fde));
            sec
        };
        let ok = fde_with(MAX_REMEMBERED);
        assert!(DebugFrame::parse(&ok, 8).unwrap().row_at(0x104).is_ok());
        let deep = fde_with(MAX_REMEMBERED + 1);
        assert_eq!(
            DebugFrame::parse(&deep, 8).unwrap().row_at(0x104),
            Err(CfiError::IllFormed("remember_state nested too deeply"))
        );
    }
}
