//! Wave states described in RON: registers, memory, base types, procedures,
//! variables and the frame base, for evaluating expressions without a live
//! wave (the state files of `amdsim dwarf eval`, tests, and fuzzing).
//!
//! ```ron
//! (
//!   wave_size: 64, lane: 0, pc: 0x1000, exec: 0xffffffffffffffff,
//!   registers: { "SGPR0": Int(0x8000), "VGPR0": Lanes([1, 2, 3]), "SGPR4": Bytes([1, 2, 3, 4]) },
//!   memory: [ (space: Global, address: 0x8000, bytes: [42, 0, 0, 0]), (space: PrivateWave, address: 0, hex: "00ff") ],
//!   base_types: { 0x30: (encoding: 7, byte_size: 8) },
//!   procedures: { 0x100: "DW_OP_LLVM_user DW_OP_LLVM_undefined" },
//!   variables: { 0x200: "DW_OP_regx SGPR10, DW_OP_piece 0x4" },
//!   frame_base: "DW_OP_regx SGPR33", addresses: [0x40], load_bias: 0,
//! )
//! ```
//!
//! Every field is optional (`Some(..)` may be left out). Registers are named as
//! [`crate::text::parse_register`] reads them, for the file's wave size.

use crate::eval::MapContext;
use crate::op::{DecodeOptions, Expr};
use crate::target::{MemTarget, MemorySpace, Register};
use crate::text::{ParseError, assemble, parse_register};
use crate::value::BaseType;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A wave state.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct State {
    /// 32 or 64 (default 64).
    pub wave_size: Option<u32>,
    /// The focused lane.
    pub lane: u32,
    /// The program counter.
    pub pc: u64,
    /// The execution mask (default: every lane).
    pub exec: Option<u64>,
    /// Register contents by name or DWARF number.
    pub registers: BTreeMap<String, RegValue>,
    /// Memory contents.
    pub memory: Vec<MemRegion>,
    /// Base types by unit offset.
    pub base_types: BTreeMap<u64, BaseTypeSpec>,
    /// DWARF procedures (DW_OP_call targets) by DIE offset, as text.
    pub procedures: BTreeMap<u64, String>,
    /// Variables (DW_OP_LLVM_call_frame_entry_reg, implicit pointers) by DIE offset.
    pub variables: BTreeMap<u64, String>,
    /// DW_AT_frame_base, as text.
    pub frame_base: Option<String>,
    /// .debug_addr entries.
    pub addresses: Vec<u64>,
    /// Added to DW_OP_addr operands.
    pub load_bias: u64,
}

/// A register's contents.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub enum RegValue {
    /// An integer, little-endian over the register's bytes.
    Int(u64),
    /// 32-bit lanes of a vector register.
    Lanes(Vec<u32>),
    /// Raw bytes.
    Bytes(Vec<u8>),
}

/// An address space of a memory region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Space {
    /// Global memory.
    Global,
    /// The work-group's LDS.
    Local,
    /// GDS.
    Region,
    /// The wave's private memory, swizzled.
    PrivateWave,
}

/// Bytes of memory at an address.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemRegion {
    /// The address space.
    pub space: Space,
    /// The first address.
    pub address: u64,
    /// The bytes.
    #[serde(default)]
    pub bytes: Vec<u8>,
    /// The bytes as hex (instead of `bytes`).
    #[serde(default)]
    pub hex: Option<String>,
}

/// A base type.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaseTypeSpec {
    /// DW_ATE_* encoding.
    pub encoding: u8,
    /// Size in bytes.
    pub byte_size: u64,
    /// Elements of a vector type.
    #[serde(default)]
    pub vector_size: Option<u64>,
}

/// What is wrong with a state.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The text is not a valid state.
    #[error("{line}:{column}: {message}")]
    Syntax {
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// The wave size is not 32 or 64.
    #[error("wave_size must be 32 or 64, not {0}")]
    WaveSize(u32),
    /// The focused lane is outside the wave.
    #[error("lane {lane} is outside a wave of {wave_size}")]
    Lane {
        /// The lane.
        lane: u32,
        /// The wave size.
        wave_size: u32,
    },
    /// A register name that names no register.
    #[error("unknown register `{0}`")]
    UnknownRegister(String),
    /// A reserved DWARF register number.
    #[error("register {0} is reserved")]
    ReservedRegister(u64),
    /// Hex text that is not hex.
    #[error(transparent)]
    Hex(#[from] HexError),
    /// An expression's text does not parse.
    #[error("`{text}`: {source}")]
    Text {
        /// The text.
        text: String,
        /// Why.
        #[source]
        source: ParseError,
    },
    /// An expression does not decode.
    #[error("`{text}`: {source}")]
    Decode {
        /// The text.
        text: String,
        /// Why.
        #[source]
        source: crate::Error,
    },
}

/// Text that is not hex bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HexError {
    /// A character that is not a hex digit, space or underscore.
    #[error("`{ch}` at offset {offset} is not a hex digit")]
    NotHex {
        /// The character.
        ch: char,
        /// Its byte offset in the text.
        offset: usize,
    },
    /// An odd number of digits.
    #[error("odd number of hex digits ({0})")]
    Odd(usize),
}

/// Parses hex bytes: an optional `0x`, pairs of hex digits, and spaces or
/// underscores between them; anything else is an error.
pub fn parse_hex(s: &str) -> Result<Vec<u8>, HexError> {
    let t = s.trim();
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    let mut digits = Vec::with_capacity(t.len());
    for (offset, ch) in t.char_indices() {
        match ch.to_digit(16) {
            Some(d) => digits.push(d as u8),
            None if ch.is_whitespace() || ch == '_' => {}
            None => return Err(HexError::NotHex { ch, offset }),
        }
    }
    if digits.len() % 2 != 0 {
        return Err(HexError::Odd(digits.len()));
    }
    Ok(digits.chunks(2).map(|p| (p[0] << 4) | p[1]).collect())
}

impl State {
    /// Parses a state from RON text.
    pub fn parse(text: &str) -> Result<State, StateError> {
        ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)
            .map_err(|e: ron::error::SpannedError| StateError::Syntax {
                line: e.span.start.line,
                column: e.span.start.col,
                message: e.code.to_string(),
            })
    }

    /// The wave size (64 unless given).
    pub fn wave_size(&self) -> u32 {
        self.wave_size.unwrap_or(64)
    }

    /// The wave as an in-memory target.
    pub fn target(&self) -> Result<MemTarget, StateError> {
        let ws = self.wave_size();
        if ws != 32 && ws != 64 {
            return Err(StateError::WaveSize(ws));
        }
        if self.lane >= ws {
            return Err(StateError::Lane {
                lane: self.lane,
                wave_size: ws,
            });
        }
        let mut t = MemTarget::new(ws, self.lane);
        t.set_pc(self.pc);
        if let Some(e) = self.exec {
            t.set_exec(e);
        }
        for (name, v) in &self.registers {
            let num = parse_register(name, ws)
                .ok_or_else(|| StateError::UnknownRegister(name.clone()))?;
            let size = Register::from_dwarf(num)
                .map(Register::size)
                .ok_or(StateError::ReservedRegister(num))?;
            let mut bytes = vec![0u8; size as usize];
            match v {
                RegValue::Int(x) => {
                    for (d, s) in bytes.iter_mut().zip(x.to_le_bytes()) {
                        *d = s;
                    }
                }
                RegValue::Lanes(l) => {
                    for (i, x) in l.iter().enumerate() {
                        if let Some(d) = bytes.get_mut(i * 4..i * 4 + 4) {
                            d.copy_from_slice(&x.to_le_bytes());
                        }
                    }
                }
                RegValue::Bytes(b) => {
                    for (d, s) in bytes.iter_mut().zip(b) {
                        *d = *s;
                    }
                }
            }
            let mut w = [0u8; 8];
            for (d, s) in w.iter_mut().zip(&bytes) {
                *d = *s;
            }
            if num == u64::from(Register::PC) {
                t.set_pc(u64::from_le_bytes(w));
            } else if num == u64::from(Register::EXEC64) {
                t.set_exec(u64::from_le_bytes(w));
            } else {
                t.set_register(num as u32, bytes);
            }
        }
        for m in &self.memory {
            let bytes = match &m.hex {
                Some(h) => parse_hex(h)?,
                None => m.bytes.clone(),
            };
            let space = match m.space {
                Space::Global => MemorySpace::Global,
                Space::Local => MemorySpace::Local,
                Space::Region => MemorySpace::Region,
                Space::PrivateWave => MemorySpace::PrivateWave,
            };
            t.map(space, m.address, bytes);
        }
        Ok(t)
    }

    /// The program data (base types, procedures, variables, frame base,
    /// addresses), with expressions encoded as `o` says.
    pub fn context(&self, o: &DecodeOptions) -> Result<MapContext, StateError> {
        let ws = self.wave_size();
        let mut c = MapContext::default();
        let compile = |text: &str| -> Result<Expr, StateError> {
            let b = assemble(text, ws, o).map_err(|source| StateError::Text {
                text: text.to_string(),
                source,
            })?;
            Expr::decode(&b, o).map_err(|source| StateError::Decode {
                text: text.to_string(),
                source,
            })
        };
        for (off, t) in &self.base_types {
            c.base_types.insert(
                *off,
                BaseType {
                    encoding: t.encoding,
                    byte_size: t.byte_size,
                    vector_size: t.vector_size.unwrap_or(1),
                },
            );
        }
        for (off, text) in &self.procedures {
            c.procedure(*off, compile(text)?);
        }
        for (off, text) in &self.variables {
            c.variable(*off, compile(text)?);
        }
        if let Some(fb) = &self.frame_base {
            c.frame_base = Some(Arc::new(compile(fb)?));
        }
        c.addresses = self.addresses.clone();
        c.load_bias = self.load_bias;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Target;

    #[test]
    fn a_state_builds_a_wave() {
        let st = State::parse(
            "(wave_size: 32, lane: 3, registers: { \"SGPR0\": Int(0x8000), \"VGPR1\": Lanes([1, 2, 3, 4]) }, \
             memory: [(space: Global, address: 0x8000, hex: \"2a00 0000\")])",
        )
        .expect("parses");
        let t = st.target().expect("builds");
        let mut b = [0u8; 4];
        t.read_register(Register::vgpr(1, 32), 12, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 4);
        let bad = State {
            lane: 99,
            ..State::default()
        };
        assert_eq!(
            bad.target().unwrap_err(),
            StateError::Lane {
                lane: 99,
                wave_size: 64
            }
        );
        let e = State::parse("(\n  lnae: 1)").unwrap_err();
        assert!(matches!(e, StateError::Syntax { line: 2, .. }), "{e}");
    }

    #[test]
    fn hex_is_strict() {
        assert_eq!(parse_hex("0x90 20_e9").unwrap(), [0x90, 0x20, 0xe9]);
        assert_eq!(
            parse_hex("9g").unwrap_err(),
            HexError::NotHex { ch: 'g', offset: 1 }
        );
        assert_eq!(parse_hex("902").unwrap_err(), HexError::Odd(3));
    }
}
