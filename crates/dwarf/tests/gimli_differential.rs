//! Differential test against `gimli::read::Evaluation` on generated DWARF 5 expressions
//! that both evaluators support: wherever gimli succeeds, this crate must succeed with the
//! same result, except for the documented differences counted below:
//! - the extension converts only *generic* values to memory locations; gimli takes any
//!   integral value as an address (`WrongKind`);
//! - the extension makes a composite part that runs past the end of its storage
//!   ill-formed; gimli accepts it (`AccessOutOfRange`).
//!
//! Composites are compared in the canonical form the extension defines (adjacent parts of
//! the same storage merged), so gimli's pieces are normalised the same way.

use amdgpu_dwarf::ErrorKind;
use amdgpu_dwarf::eval::{EvalOptions, Evaluator, MapContext};
use amdgpu_dwarf::location::{Loc, Single, Storage};
use amdgpu_dwarf::op::{DecodeOptions, Expr, Op, encode};
use amdgpu_dwarf::target::{AddressSpace, MemTarget, MemorySpace, Target};
use amdgpu_dwarf::value::{BaseType, ate};
use gimli::{EndianSlice, LittleEndian};
use std::sync::Arc;

use crate::common::Rng;

const MEM_BASE: u64 = 0x1000;
const MEM_LEN: u64 = 0x100;
const FRAME_BASE: u64 = 0x1040;
const CFA: u64 = 0x1080;
const OBJECT: u64 = 0x10c0;
const ADDRS: [u64; 3] = [0x1010, 0x1020, 0x1030];
/// Base types by unit offset, as both evaluators see them.
const TYPES: [(u64, u8, u64); 6] = [
    (0x10, ate::UNSIGNED, 4),
    (0x20, ate::SIGNED, 4),
    (0x30, ate::UNSIGNED, 8),
    (0x40, ate::SIGNED, 8),
    (0x50, ate::FLOAT, 4),
    (0x60, ate::FLOAT, 8),
];
const SGPRS: u16 = 8;

fn target() -> MemTarget {
    let mut t = MemTarget::new(64, 0);
    for i in 0..SGPRS {
        t.set_sgpr(
            i,
            0x1000 + u32::from(i) * 0x10 + if i % 3 == 0 { 0xffff_0000 } else { 0 },
        );
    }
    t.set_pc(0x1008);
    let mem: Vec<u8> = (0..MEM_LEN + 16).map(|i| (i * 37 + 11) as u8).collect();
    t.map(MemorySpace::Global, MEM_BASE, mem);
    t
}

fn context() -> MapContext {
    let mut c = MapContext::default();
    for (off, enc, size) in TYPES {
        c.base_types.insert(off, BaseType::scalar(enc, size));
    }
    let o = DecodeOptions::default();
    let fb = encode(&[Op::Constu(FRAME_BASE)], &o).unwrap();
    c.frame_base = Some(Arc::new(Expr::decode(&fb, &o).unwrap()));
    c.cfa = Some(Loc::One(Single::memory(AddressSpace::Global, CFA)));
    c.addresses = ADDRS.to_vec();
    for i in 0..SGPRS {
        let v = 0x7000u32 + u32::from(i);
        c.entry_registers.insert(
            32 + u64::from(i),
            Loc::One(Single::implicit(v.to_le_bytes().to_vec())),
        );
    }
    c
}

/// Generates one expression; tracks a plausible stack depth so most programs are valid.
/// The flag tells whether pieces follow values left on the stack (where DWARF 5 and the
/// extension differ: a piece over an incomplete composite is undefined in the extension,
/// while gimli takes the value beneath as the piece's address).
fn generate(r: &mut Rng) -> (Vec<Op>, bool) {
    let mut ops = Vec::new();
    let mut depth = 0usize;
    let n = 1 + r.below(12);
    for _ in 0..n {
        let choice = r.below(30);
        if push_constant(choice, r, &mut ops) || push_location_value(choice, r, &mut ops) {
            depth += 1;
        } else if !push_operator(choice, r, &mut ops, &mut depth) {
            ops.push(Op::Lit(r.below(32) as u8));
            depth += 1;
        }
    }
    let leftover = push_terminator(r, &mut ops, depth);
    (ops, leftover)
}

/// A mapped address with room for a qword.
fn mapped_address(r: &mut Rng) -> u64 {
    MEM_BASE + r.below(MEM_LEN - 8)
}

/// Choices 0-3 and 14: a constant (one value more on the stack).
fn push_constant(choice: u64, r: &mut Rng, ops: &mut Vec<Op>) -> bool {
    match choice {
        0 => ops.push(Op::Lit(r.below(32) as u8)),
        1 => {
            let size = [1u8, 2, 4, 8][r.below(4) as usize];
            ops.push(Op::ConstU(
                size,
                r.next() & (u64::MAX >> (64 - 8 * u32::from(size))),
            ));
        }
        2 => {
            let size = [1u8, 2, 4, 8][r.below(4) as usize];
            let v = (r.next() as i64) >> (64 - 8 * u32::from(size));
            ops.push(Op::ConstS(size, v));
        }
        3 => {
            ops.push(if r.chance(50) {
                Op::Constu(r.below(5000))
            } else {
                Op::Consts(r.below(5000) as i64 - 2500)
            });
        }
        14 => {
            let (die, enc, size) = TYPES[r.below(TYPES.len() as u64) as usize];
            let mut bytes = r.next().to_le_bytes()[..size as usize].to_vec();
            if enc == ate::FLOAT {
                // Keep floats finite and modest.
                bytes = if size == 4 {
                    ((r.below(2000) as f32 - 1000.0) / 8.0)
                        .to_le_bytes()
                        .to_vec()
                } else {
                    ((r.below(2000) as f64 - 1000.0) / 8.0)
                        .to_le_bytes()
                        .to_vec()
                };
            }
            ops.push(Op::ConstType {
                die,
                bytes: bytes.into(),
            });
        }
        _ => return false,
    }
    true
}

/// Choices 12, 13, 16-22 and 24: a value read from memory or a register, or
/// an address (one value more on the stack).
fn push_location_value(choice: u64, r: &mut Rng, ops: &mut Vec<Op>) -> bool {
    match choice {
        12 => {
            // A dereference of a mapped address.
            ops.push(Op::Constu(mapped_address(r)));
            match r.below(4) {
                0 => ops.push(Op::Deref),
                1 => ops.push(Op::DerefSize([1u8, 2, 4, 8][r.below(4) as usize])),
                2 => {
                    let (die, _, size) = TYPES[r.below(TYPES.len() as u64) as usize];
                    ops.push(Op::DerefType {
                        size: size as u8,
                        die,
                    });
                }
                _ => {
                    ops.push(Op::Lit(0));
                    ops.push(Op::Swap);
                    ops.push(Op::Xderef);
                }
            }
        }
        13 => {
            let reg = 32 + r.below(u64::from(SGPRS));
            ops.push(Op::Breg {
                reg,
                disp: r.below(64) as i64 - 32,
                short: false,
            });
        }
        16 => {
            let reg = 32 + r.below(u64::from(SGPRS));
            let die = if r.chance(50) { 0x10 } else { 0x20 };
            ops.push(Op::RegvalType { reg, die });
        }
        17 => ops.push(Op::Fbreg(r.below(32) as i64)),
        18 => ops.push(Op::CallFrameCfa),
        19 => {
            ops.push(if r.chance(50) {
                Op::Addrx(r.below(3))
            } else {
                Op::Constx(r.below(3))
            });
        }
        20 => ops.push(Op::Addr(mapped_address(r))),
        21 => ops.push(Op::PushObjectAddress),
        22 => {
            let reg = 32 + r.below(u64::from(SGPRS)) as u8;
            ops.push(Op::EntryValue(vec![0x90, reg].into()));
        }
        24 => {
            ops.push(Op::Skip { disp: 1, target: 0 });
            ops.push(Op::Lit(7));
            ops.push(Op::Lit(r.below(32) as u8));
        }
        _ => return false,
    }
    true
}

/// Choices 4-11, 15 and 23: an operator on the values the stack holds, if
/// it holds enough; false otherwise (and for any other choice).
fn push_operator(choice: u64, r: &mut Rng, ops: &mut Vec<Op>, depth: &mut usize) -> bool {
    let pick = |r: &mut Rng, b: &[Op]| b[r.below(b.len() as u64) as usize].clone();
    match choice {
        4 if *depth >= 1 => {
            ops.push(Op::Dup);
            *depth += 1;
        }
        5 if *depth >= 1 => {
            ops.push(Op::Drop);
            *depth -= 1;
        }
        6 if *depth >= 2 => {
            if r.chance(50) {
                ops.push(Op::Over);
                *depth += 1;
            } else {
                ops.push(Op::Swap);
            }
        }
        7 if *depth >= 1 => {
            ops.push(Op::Pick(r.below(*depth as u64) as u8));
            *depth += 1;
        }
        8 if *depth >= 3 => ops.push(Op::Rot),
        9 if *depth >= 2 => {
            let b = [
                Op::And,
                Op::Div,
                Op::Minus,
                Op::Mod,
                Op::Mul,
                Op::Or,
                Op::Plus,
                Op::Shl,
                Op::Shr,
                Op::Shra,
                Op::Xor,
            ];
            ops.push(pick(r, &b));
            *depth -= 1;
        }
        10 if *depth >= 2 => {
            ops.push(pick(r, &[Op::Eq, Op::Ge, Op::Gt, Op::Le, Op::Lt, Op::Ne]));
            *depth -= 1;
        }
        11 if *depth >= 1 => {
            let b = [
                Op::Abs,
                Op::Neg,
                Op::Not,
                Op::PlusUconst(r.below(300)),
                Op::Nop,
            ];
            ops.push(pick(r, &b));
        }
        15 if *depth >= 1 => {
            // Conversions. gimli converts signed integers to floating point as if they
            // were unsigned, so signed-to-float is not generated.
            let (die, enc, _) = TYPES[r.below(TYPES.len() as u64) as usize];
            if r.chance(50) && enc != ate::FLOAT {
                ops.push(Op::Convert(die));
            } else {
                ops.push(Op::Reinterpret(if r.chance(20) { 0 } else { die }));
            }
        }
        23 if *depth >= 1 => {
            // Forward branch over the next simple op.
            ops.push(Op::Bra { disp: 1, target: 0 });
            ops.push(Op::Lit(r.below(32) as u8));
        }
        _ => return false,
    }
    true
}

/// Ends the expression: as it is, with a stack value, a register or an
/// implicit value instead, or pieces; true if pieces follow values left on
/// the stack.
fn push_terminator(r: &mut Rng, ops: &mut Vec<Op>, depth: usize) -> bool {
    match r.below(6) {
        0 => {}
        1 => ops.push(Op::StackValue),
        2 => {
            ops.clear();
            ops.push(Op::Reg {
                reg: 32 + r.below(u64::from(SGPRS)),
                short: false,
            });
        }
        3 => {
            let b: Vec<u8> = (0..1 + r.below(8)).map(|_| r.next() as u8).collect();
            ops.clear();
            ops.push(Op::ImplicitValue(b.into()));
        }
        _ => {
            let p = pieces(r);
            let leftover = if r.chance(50) {
                ops.clear();
                false
            } else {
                depth > 0
            };
            ops.extend(p);
            return leftover;
        }
    }
    false
}

/// Pieces: each of an existing value, a register, a constant, or nothing.
fn pieces(r: &mut Rng) -> Vec<Op> {
    let mut p = Vec::new();
    for _ in 0..1 + r.below(4) {
        let size = 1 + r.below(4);
        match r.below(5) {
            0 => p.push(Op::Reg {
                reg: 32 + r.below(u64::from(SGPRS)),
                short: false,
            }),
            1 => {
                p.push(Op::Constu(r.below(100_000)));
                p.push(Op::StackValue);
            }
            2 => p.push(Op::Constu(mapped_address(r))),
            3 => {
                p.push(Op::ImplicitValue(vec![r.next() as u8; 4].into()));
            }
            _ => {}
        }
        if r.chance(25) {
            p.push(Op::BitPiece {
                size: 1 + r.below(31),
                offset: r.below(8),
            });
        } else {
            p.push(Op::Piece(size));
        }
    }
    p
}

/// A normalised piece: storage and bit offset, bit size.
#[derive(Debug, Clone, PartialEq)]
enum N {
    Undef,
    Mem(u128),
    Reg(u16, u64),
    Imp(Vec<u8>, u64),
}

fn merge(pieces: Vec<(N, Option<u64>)>) -> Vec<(N, Option<u64>)> {
    let mut out: Vec<(N, Option<u64>)> = Vec::new();
    for (n, size) in pieces {
        if size == Some(0) {
            continue;
        }
        if let (Some((last, Some(lsize))), Some(sz)) = (out.last_mut(), size) {
            let merged = match (&*last, &n) {
                (N::Undef, N::Undef) => true,
                (N::Mem(a), N::Mem(b)) => a + u128::from(*lsize) == *b,
                (N::Reg(r1, a), N::Reg(r2, b)) => r1 == r2 && a + *lsize == *b,
                (N::Imp(v1, a), N::Imp(v2, b)) => v1 == v2 && a + *lsize == *b,
                _ => false,
            };
            if merged {
                *lsize += sz;
                continue;
            }
        }
        out.push((n, size));
    }
    out
}

fn norm_single(s: &Single) -> N {
    match &s.storage {
        Storage::Undefined => N::Undef,
        Storage::Memory(AddressSpace::Global) => N::Mem(s.offset),
        Storage::Register(r) => N::Reg(*r as u16, s.offset as u64),
        Storage::Implicit(b) => N::Imp(b.to_vec(), s.offset as u64),
        other => panic!("unexpected storage {other:?}"),
    }
}

fn ours(loc: &Loc) -> Vec<(N, Option<u64>)> {
    let s = loc.first();
    match &s.storage {
        Storage::Composite(c) => c
            .parts()
            .iter()
            .map(|p| (norm_single(p.loc.first()), Some(p.bits)))
            .collect(),
        _ => vec![(norm_single(s), None)],
    }
}

fn gimli_value_bytes(v: gimli::Value) -> Vec<u8> {
    use gimli::Value::*;
    match v {
        Generic(x) => x.to_le_bytes().to_vec(),
        I8(x) => x.to_le_bytes().to_vec(),
        U8(x) => x.to_le_bytes().to_vec(),
        I16(x) => x.to_le_bytes().to_vec(),
        U16(x) => x.to_le_bytes().to_vec(),
        I32(x) => x.to_le_bytes().to_vec(),
        U32(x) => x.to_le_bytes().to_vec(),
        I64(x) => x.to_le_bytes().to_vec(),
        U64(x) => x.to_le_bytes().to_vec(),
        F32(x) => x.to_le_bytes().to_vec(),
        F64(x) => x.to_le_bytes().to_vec(),
    }
}

fn gimli_type(die: u64) -> gimli::ValueType {
    if die == 0 {
        return gimli::ValueType::Generic;
    }
    let (_, enc, size) = TYPES
        .iter()
        .find(|t| t.0 == die)
        .copied()
        .expect("known type");
    gimli::ValueType::from_encoding(gimli::DwAte(enc), size).expect("gimli type")
}

fn run_gimli(bytes: &[u8], t: &MemTarget, c: &MapContext) -> Option<Vec<(N, Option<u64>)>> {
    let enc = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 5,
        address_size: 8,
    };
    let mut e = gimli::Evaluation::new(EndianSlice::new(bytes, LittleEndian), enc);
    e.set_object_address(OBJECT);
    e.set_max_iterations(10_000);
    let mut r = e.evaluate().ok()?;
    loop {
        use gimli::EvaluationResult::*;
        r = match r {
            Complete => break,
            RequiresMemory {
                address,
                size,
                space,
                base_type,
            } => {
                if space.unwrap_or(0) != 0 {
                    return None;
                }
                let mut b = vec![0u8; usize::from(size)];
                t.read_memory(MemorySpace::Global, address, &mut b).ok()?;
                let ty = gimli_type(base_type.0 as u64);
                let v = if ty == gimli::ValueType::Generic {
                    let mut w = [0u8; 8];
                    w[..b.len()].copy_from_slice(&b);
                    gimli::Value::Generic(u64::from_le_bytes(w))
                } else {
                    gimli::Value::parse(ty, EndianSlice::new(&b, LittleEndian)).ok()?
                };
                e.resume_with_memory(v).ok()?
            }
            RequiresRegister {
                register,
                base_type,
            } => {
                let mut b = [0u8; 8];
                let size =
                    amdgpu_dwarf::target::register_size(u64::from(register.0))?.min(8) as usize;
                t.read_register(u32::from(register.0), 0, &mut b[..size])
                    .ok()?;
                let ty = gimli_type(base_type.0 as u64);
                let v = if ty == gimli::ValueType::Generic {
                    gimli::Value::Generic(u64::from_le_bytes(b))
                } else {
                    gimli::Value::parse(ty, EndianSlice::new(&b, LittleEndian)).ok()?
                };
                e.resume_with_register(v).ok()?
            }
            RequiresFrameBase => e.resume_with_frame_base(FRAME_BASE).ok()?,
            RequiresCallFrameCfa => e.resume_with_call_frame_cfa(CFA).ok()?,
            RequiresRelocatedAddress(a) => e.resume_with_relocated_address(a).ok()?,
            RequiresIndexedAddress { index, .. } => e
                .resume_with_indexed_address(*c.addresses.get(index.0)?)
                .ok()?,
            RequiresBaseType(off) => e.resume_with_base_type(gimli_type(off.0 as u64)).ok()?,
            RequiresEntryValue(expr) => {
                let b = expr.0.slice();
                let reg = *b.get(1)? as u64;
                let v = 0x7000u64 + reg - 32;
                e.resume_with_entry_value(gimli::Value::Generic(v)).ok()?
            }
            _ => return None,
        };
    }
    let pieces = e.result();
    let mut out = Vec::new();
    for p in pieces {
        let bo = p.bit_offset.unwrap_or(0);
        let n = match p.location {
            gimli::Location::Empty => N::Undef,
            gimli::Location::Address { address } => {
                N::Mem(u128::from(address) * 8 + u128::from(bo))
            }
            gimli::Location::Register { register } => N::Reg(register.0, bo),
            gimli::Location::Value { value } => N::Imp(gimli_value_bytes(value), bo),
            gimli::Location::Bytes { value } => N::Imp(value.slice().to_vec(), bo),
            gimli::Location::ImplicitPointer { .. } => return None,
        };
        out.push((n, p.size_in_bits));
    }
    Some(out)
}

#[test]
fn generated_expressions_agree_with_gimli() {
    let t = target();
    let c = context();
    let o = DecodeOptions::default();
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut both_ok, mut gimli_err) = (0u32, 0u32);
    let (mut leftover_pieces, mut typed_address, mut past_end) = (0u32, 0u32, 0u32);
    let mut ev = Evaluator::new(&t, &c, EvalOptions::default());
    ev.set_object(Some(Loc::One(Single::memory(AddressSpace::Global, OBJECT))));
    for i in 0..20_000 {
        let (ops, leftover) = generate(&mut r);
        let bytes = encode(&ops, &o).expect("encodable");
        let g = run_gimli(&bytes, &t, &c);
        let expr = Expr::decode(&bytes, &o).expect("decodes");
        let mine = ev.location(&expr);
        match (g, mine) {
            (Some(g), Ok(l)) => {
                let g = merge(g);
                let m = ours(&l);
                if m != g && leftover && m.iter().any(|p| p.0 == N::Undef) {
                    leftover_pieces += 1;
                    continue;
                }
                assert_eq!(m, g, "case {i}: {ops:?}\nbytes {bytes:02x?}");
                both_ok += 1;
            }
            (Some(g), Err(e)) => match e.kind {
                ErrorKind::WrongKind { .. } => typed_address += 1,
                ErrorKind::AccessOutOfRange { .. } => past_end += 1,
                _ => panic!("case {i}: gimli {g:?}, ours {e}: {ops:?}"),
            },
            (None, _) => gimli_err += 1,
        }
    }
    eprintln!(
        "agree: {both_ok}; documented differences: pieces over leftovers {leftover_pieces}, \
         typed value as address {typed_address}, part past end of storage {past_end}; gimli errors: {gimli_err}"
    );
    assert!(both_ok > 5_000, "too few comparable cases: {both_ok}");
}
