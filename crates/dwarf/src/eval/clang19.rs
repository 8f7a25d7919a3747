//! clang-19's private-address suffix on register values (`-O2 -g` output), rewritten
//! into what the producer means before evaluation. The rule is documented on
//! [`Compat::private_suffix_on_values`]; this module only matches the producer's forms
//! and emits the equivalent operations (a vector register's lane element as
//! `DW_OP_regx R, DW_OP_LLVM_push_lane, DW_OP_lit4, DW_OP_mul, DW_OP_LLVM_offset`), with
//! the original operation's offset on each, so errors point at what the producer wrote.

use super::Compat;
use crate::error::{Error, ErrorKind};
use crate::op::{Decoded, Expr, Form, Op};
use crate::target::{Register, register_size};

/// Whether `op` pushes the constant 1 (clang's private address space).
fn is_one(op: &Op) -> bool {
    matches!(
        op,
        Op::Lit(1) | Op::Constu(1) | Op::ConstU(_, 1) | Op::Consts(1) | Op::ConstS(_, 1)
    )
}

/// Whether the private-address suffix starts at `ops[i]`.
fn suffix_at(ops: &[Decoded], i: usize) -> bool {
    matches!(
        ops.get(i..i + 3),
        Some([a, b, c]) if is_one(&a.op) && b.op == Op::Swap && c.op == Op::Xderef
    )
}

fn not_known(offset: usize, why: &'static str) -> Error {
    Error::new(
        offset,
        ErrorKind::ValueNotKnown {
            op: "DW_OP_xderef",
            why,
        },
    )
}

/// Whether `reg` is a vector register (one 4-byte element per lane).
fn is_vector(reg: u64) -> bool {
    matches!(
        Register::from_dwarf(reg),
        Some(Register::Vgpr { .. } | Register::Agpr { .. })
    )
}

/// Bytes of one lane's element of register `reg`: 4 for a vector register, the register's
/// size otherwise.
fn element_size(reg: u64, offset: usize) -> Result<u64, Error> {
    if is_vector(reg) {
        return Ok(4);
    }
    register_size(reg).ok_or(Error::new(offset, ErrorKind::UnknownRegister(reg)))
}

/// Operations built at `offset` (the offset of the operation they stand for, so errors
/// point at it).
struct Out {
    ops: Vec<Decoded>,
}

impl Out {
    fn std(&mut self, offset: usize, op: Op) {
        self.ops.push(Decoded {
            offset,
            op,
            form: Form::Standard,
        });
    }

    fn llvm(&mut self, offset: usize, op: Op) {
        self.ops.push(Decoded {
            offset,
            op,
            form: Form::User,
        });
    }

    /// The location of the focused lane's element of vector register `reg`:
    /// `DW_OP_regx R, DW_OP_LLVM_push_lane, DW_OP_lit4, DW_OP_mul, DW_OP_LLVM_offset`.
    fn lane_element(&mut self, offset: usize, reg: u64) {
        self.std(offset, Op::Reg { reg, short: false });
        self.llvm(offset, Op::PushLane);
        self.std(offset, Op::Lit(4));
        self.std(offset, Op::Mul);
        self.llvm(offset, Op::Offset);
    }

    /// The value of register `reg` (a vector register: the focused lane's element) plus
    /// `disp`, as a generic value on the stack.
    fn register_value(&mut self, offset: usize, reg: u64, disp: i64) {
        if is_vector(reg) {
            self.lane_element(offset, reg);
            self.std(offset, Op::DerefSize(4));
            if disp != 0 {
                self.std(offset, Op::Consts(disp));
                self.std(offset, Op::Plus);
            }
        } else {
            // Scalar registers: DW_OP_breg's reading (zero-extended to the generic type).
            self.std(
                offset,
                Op::Breg {
                    reg,
                    disp,
                    short: false,
                },
            );
        }
    }
}

/// What one piece's operations (`ops`, all before the piece operation `piece`) become.
fn rewrite_piece(
    ops: &[Decoded],
    piece: Option<&Decoded>,
    frame_register: &mut dyn FnMut() -> Result<Option<u64>, ErrorKind>,
    out: &mut Out,
) -> Result<(), Error> {
    let Some(s) = (0..ops.len()).find(|&i| suffix_at(ops, i)) else {
        out.ops.extend_from_slice(ops);
        return Ok(());
    };
    let first = ops.first().map(|d| d.offset).unwrap_or(0);
    let (prefix, rest) = ops.split_at(s);
    let after = &rest[3..];
    if (3..rest.len()).any(|i| suffix_at(rest, i)) {
        return Err(not_known(
            first,
            "the private-address suffix twice in one piece",
        ));
    }
    // -O0: the frame base names private memory (today's reading, whatever follows).
    if matches!(prefix.first().map(|d| &d.op), Some(Op::Fbreg(_))) {
        out.ops.extend_from_slice(ops);
        return Ok(());
    }
    match (prefix, after) {
        // A register holding the variable.
        ([d], []) if matches!(d.op, Op::Breg { .. } | Op::Reg { .. }) => {
            let (reg, disp) = match d.op {
                Op::Breg { reg, disp, .. } => (reg, disp),
                Op::Reg { reg, .. } => (reg, 0),
                _ => return Err(not_known(d.offset, "not a register operation")),
            };
            if !is_vector(reg)
                && frame_register().map_err(|k| Error::new(d.offset, k))? == Some(reg)
            {
                // The frame register: a frame offset, as DW_OP_fbreg.
                out.std(d.offset, Op::Fbreg(disp));
                out.ops.extend_from_slice(&rest[..3]);
                return Ok(());
            }
            let size = element_size(reg, d.offset)?;
            if let Some(p) = piece {
                let bits = match p.op {
                    Op::Piece(n) => n.checked_mul(8),
                    Op::BitPiece { size, offset } => size.checked_add(offset),
                    _ => None,
                };
                if bits.is_none_or(|b| b > size * 8) {
                    return Err(not_known(
                        p.offset,
                        "a piece wider than the register's element",
                    ));
                }
            }
            if disp == 0 {
                if is_vector(reg) {
                    out.lane_element(d.offset, reg);
                } else {
                    out.std(d.offset, Op::Reg { reg, short: false });
                }
            } else {
                out.register_value(d.offset, reg, disp);
                out.std(d.offset, Op::StackValue);
            }
            if piece.is_none() {
                // Bounded to the element: reading past it is an error, not the next
                // lane's bytes.
                out.std(d.offset, Op::Piece(size));
            }
            Ok(())
        }
        // A computed value: the operations before the suffix.
        ([_, ..], [sv]) if sv.op == Op::StackValue => {
            for d in prefix {
                match &d.op {
                    Op::Breg { reg, disp, .. } => {
                        if !is_vector(*reg)
                            && frame_register().map_err(|k| Error::new(d.offset, k))? == Some(*reg)
                        {
                            return Err(not_known(
                                d.offset,
                                "a value computed from the frame register",
                            ));
                        }
                        out.register_value(d.offset, *reg, *disp);
                    }
                    Op::Fbreg(_) => {
                        return Err(not_known(d.offset, "a value computed from the frame base"));
                    }
                    Op::EntryValue(_) => {
                        return Err(Error::new(
                            d.offset,
                            ErrorKind::ValueNotKnown {
                                op: "DW_OP_entry_value",
                                why: "the value on entry to the kernel is not recorded",
                            },
                        ));
                    }
                    Op::RegvalType { .. } | Op::AspaceBregx { .. } => {
                        return Err(not_known(
                            d.offset,
                            "a register read whose lane clang-19 does not name",
                        ));
                    }
                    Op::Xderef | Op::XderefSize(_) | Op::XderefType { .. } => {
                        return Err(not_known(d.offset, "a memory read before the suffix"));
                    }
                    _ => out.ops.push(d.clone()),
                }
            }
            out.ops.push(sv.clone());
            Ok(())
        }
        _ => Err(not_known(
            first,
            "operations around the private-address suffix that clang-19 does not emit",
        )),
    }
}

/// The expression clang-19 means by `expr` when it carries the private-address suffix on
/// a register value; `None` when there is nothing to rewrite (no suffix, or only the
/// `-O0` frame-base form). `frame_register` gives the register `DW_AT_frame_base` names,
/// if it is a single `DW_OP_regx` (asked only for scalar registers).
pub(crate) fn rewrite(
    expr: &Expr,
    compat: &Compat,
    frame_register: &mut dyn FnMut() -> Result<Option<u64>, ErrorKind>,
) -> Result<Option<Expr>, Error> {
    if !compat.private_suffix_on_values {
        return Ok(None);
    }
    let ops = &expr.ops;
    let Some(first) = (0..ops.len()).find(|&i| suffix_at(ops, i)) else {
        return Ok(bare_vector_registers(expr, compat));
    };
    // Only the -O0 form (DW_OP_fbreg N + suffix, once, as the whole expression): nothing
    // to do, and the common case stays free.
    if first == 1 && matches!(ops[0].op, Op::Fbreg(_)) && !(4..ops.len()).any(|i| suffix_at(ops, i))
    {
        return Ok(None);
    }
    if let Some(d) = ops
        .iter()
        .find(|d| matches!(d.op, Op::Skip { .. } | Op::Bra { .. }))
    {
        return Err(not_known(
            d.offset,
            "control flow in an expression with the private-address suffix",
        ));
    }
    let mut out = Out {
        ops: Vec::with_capacity(ops.len() + 8),
    };
    let mut start = 0;
    for (i, d) in ops.iter().enumerate() {
        if matches!(d.op, Op::Piece(_) | Op::BitPiece { .. }) {
            rewrite_piece(&ops[start..i], Some(d), frame_register, &mut out)?;
            out.ops.push(d.clone());
            start = i + 1;
        }
    }
    if start < ops.len() {
        rewrite_piece(&ops[start..], None, frame_register, &mut out)?;
    }
    Ok(Some(Expr::from_ops(out.ops, expr.len)))
}

/// Whether `expr` names a vector register with `DW_OP_reg*`/`DW_OP_regx` (which
/// [`Compat::vector_register_per_lane`] may read as a lane element: the general
/// evaluator decides).
pub(crate) fn has_bare_vector(expr: &Expr) -> bool {
    expr.ops.iter().any(|d| bare_vector(d).is_some())
}

/// Whether `d` is a bare `DW_OP_reg*`/`DW_OP_regx` of a vector register.
fn bare_vector(d: &Decoded) -> Option<u64> {
    match d.op {
        Op::Reg { reg, .. } if is_vector(reg) => Some(reg),
        _ => None,
    }
}

/// The expression clang means by register locations of vector registers written with
/// no suffix and no lane operation (HIP variables, of the generic address space, at
/// `-O2`): each piece that is exactly `DW_OP_regx VGPRn` (or an AGPR) is the focused
/// lane's 4-byte element, bounded to it. `None` when no piece is such a register (the
/// expression is evaluated as written). See [`Compat::vector_register_per_lane`].
fn bare_vector_registers(expr: &Expr, compat: &Compat) -> Option<Expr> {
    if !compat.vector_register_per_lane {
        return None;
    }
    let ops = &expr.ops;
    let is_piece = |d: &Decoded| matches!(d.op, Op::Piece(_) | Op::BitPiece { .. });
    // The pieces: (operations, the piece operation after them, if any).
    let mut pieces: Vec<(&[Decoded], Option<&Decoded>)> = Vec::new();
    let mut start = 0;
    for (i, d) in ops.iter().enumerate() {
        if is_piece(d) {
            pieces.push((&ops[start..i], Some(d)));
            start = i + 1;
        }
    }
    if start < ops.len() || pieces.is_empty() {
        pieces.push((&ops[start..], None));
    }
    let single = |p: &[Decoded]| match p {
        [d] => bare_vector(d),
        _ => None,
    };
    if !pieces.iter().any(|(p, _)| single(p).is_some()) {
        return None;
    }
    let mut out = Out {
        ops: Vec::with_capacity(ops.len() + 8),
    };
    for (p, piece) in pieces {
        match single(p) {
            Some(reg) => {
                let at = p[0].offset;
                out.lane_element(at, reg);
                match piece {
                    // A piece wider than the element reads past it: an access error
                    // when read, never the next lane's bytes.
                    Some(d) => out.ops.push(d.clone()),
                    None => out.std(at, Op::Piece(4)),
                }
            }
            None => {
                out.ops.extend_from_slice(p);
                if let Some(d) = piece {
                    out.ops.push(d.clone());
                }
            }
        }
    }
    Some(Expr::from_ops(out.ops, expr.len))
}
