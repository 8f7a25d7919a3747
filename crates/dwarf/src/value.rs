//! Typed stack values (DWARF 5 section 2.5.1 and the AMDGPU extension's "Value
//! Operations"): the generic type, base types read from DW_TAG_base_type entries, and the
//! arithmetic, logic, comparison and conversion rules on them.

use crate::error::ErrorKind;
use std::sync::Arc;

/// DW_ATE_* encodings used here (DWARF 5 section 7.8).
pub mod ate {
    /// DW_ATE_address.
    pub const ADDRESS: u8 = 0x01;
    /// DW_ATE_boolean.
    pub const BOOLEAN: u8 = 0x02;
    /// DW_ATE_float.
    pub const FLOAT: u8 = 0x04;
    /// DW_ATE_signed.
    pub const SIGNED: u8 = 0x05;
    /// DW_ATE_signed_char.
    pub const SIGNED_CHAR: u8 = 0x06;
    /// DW_ATE_unsigned.
    pub const UNSIGNED: u8 = 0x07;
    /// DW_ATE_unsigned_char.
    pub const UNSIGNED_CHAR: u8 = 0x08;
    /// DW_ATE_lo_user.
    pub const LO_USER: u8 = 0x80;
}

/// A base type (DW_TAG_base_type), possibly a vector (DW_AT_LLVM_vector_size).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BaseType {
    /// DW_AT_encoding.
    pub encoding: u8,
    /// DW_AT_byte_size of one element.
    pub byte_size: u64,
    /// DW_AT_LLVM_vector_size (1 when absent).
    pub vector_size: u64,
}

impl BaseType {
    /// A scalar base type.
    pub fn scalar(encoding: u8, byte_size: u64) -> Self {
        BaseType {
            encoding,
            byte_size,
            vector_size: 1,
        }
    }

    /// Total size in bytes.
    pub fn total_size(&self) -> u64 {
        self.byte_size.saturating_mul(self.vector_size.max(1))
    }

    /// Whether the encoding is integral (AMDGPU extension, "Value Operations": signed,
    /// signed_char, unsigned, unsigned_char, boolean, or a user encoding).
    pub fn is_integral(&self) -> bool {
        matches!(
            self.encoding,
            ate::SIGNED | ate::SIGNED_CHAR | ate::UNSIGNED | ate::UNSIGNED_CHAR | ate::BOOLEAN
        ) || self.encoding >= ate::LO_USER
    }
}

/// The representation class of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// The generic type: address-sized integral of unspecified sign.
    Generic,
    /// Signed 8-bit.
    I8,
    /// Unsigned 8-bit.
    U8,
    /// Signed 16-bit.
    I16,
    /// Unsigned 16-bit.
    U16,
    /// Signed 32-bit.
    I32,
    /// Unsigned 32-bit.
    U32,
    /// Signed 64-bit.
    I64,
    /// Unsigned 64-bit.
    U64,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
    /// Any other base type (vectors, other sizes): held as bytes.
    Other(BaseType),
}

impl ValueType {
    /// The class for a base type.
    pub fn of(bt: &BaseType) -> ValueType {
        if bt.vector_size > 1 {
            return ValueType::Other(*bt);
        }
        let signed = matches!(bt.encoding, ate::SIGNED | ate::SIGNED_CHAR);
        let unsigned = matches!(
            bt.encoding,
            ate::UNSIGNED | ate::UNSIGNED_CHAR | ate::BOOLEAN
        ) || bt.encoding >= ate::LO_USER;
        match (bt.byte_size, signed, unsigned, bt.encoding) {
            (1, true, _, _) => ValueType::I8,
            (2, true, _, _) => ValueType::I16,
            (4, true, _, _) => ValueType::I32,
            (8, true, _, _) => ValueType::I64,
            (1, _, true, _) => ValueType::U8,
            (2, _, true, _) => ValueType::U16,
            (4, _, true, _) => ValueType::U32,
            (8, _, true, _) => ValueType::U64,
            (4, _, _, ate::FLOAT) => ValueType::F32,
            (8, _, _, ate::FLOAT) => ValueType::F64,
            _ => ValueType::Other(*bt),
        }
    }

    /// Size in bytes (`addr_size` for the generic type).
    pub fn size(&self, addr_size: u8) -> u64 {
        match self {
            ValueType::Generic => u64::from(addr_size),
            ValueType::I8 | ValueType::U8 => 1,
            ValueType::I16 | ValueType::U16 => 2,
            ValueType::I32 | ValueType::U32 | ValueType::F32 => 4,
            ValueType::I64 | ValueType::U64 | ValueType::F64 => 8,
            ValueType::Other(bt) => bt.total_size(),
        }
    }
}

/// An implicit pointer value (IPV): what DW_OP_deref* yields when it reads the whole
/// storage of an implicit pointer (AMDGPU extension, DW_OP_implicit_pointer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImplicitPtr {
    /// .debug_info offset of the DIE whose location or constant value is pointed to.
    pub die: u64,
    /// Byte displacement.
    pub disp: i64,
    /// DWARF address space of the pointer.
    pub space: u64,
    /// Size of the pointer in bits.
    pub bits: u64,
}

/// A value on the DWARF stack.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Generic type (address-sized, masked to the address size).
    Generic(u64),
    /// Signed 8-bit.
    I8(i8),
    /// Unsigned 8-bit.
    U8(u8),
    /// Signed 16-bit.
    I16(i16),
    /// Unsigned 16-bit.
    U16(u16),
    /// Signed 32-bit.
    I32(i32),
    /// Unsigned 32-bit.
    U32(u32),
    /// Signed 64-bit.
    I64(i64),
    /// Unsigned 64-bit.
    U64(u64),
    /// IEEE single.
    F32(f32),
    /// IEEE double.
    F64(f64),
    /// Other base types, as little-endian bytes of `ty.total_size()`.
    Bytes(Arc<TypedBytes>),
    /// An implicit pointer value.
    ImplicitPointer(Box<ImplicitPtr>),
}

/// A value of a base type held as bytes (vectors, unusual sizes).
#[derive(Debug, Clone, PartialEq)]
pub struct TypedBytes {
    /// The base type.
    pub ty: BaseType,
    /// Little-endian representation.
    pub bytes: Box<[u8]>,
}

impl Value {
    /// A value of type `ty` from its bytes.
    pub fn bytes(ty: BaseType, bytes: &[u8]) -> Value {
        Value::Bytes(Arc::new(TypedBytes {
            ty,
            bytes: bytes.into(),
        }))
    }
}

fn sign_extend(v: u64, mask: u64) -> i64 {
    let v = (v & mask) as i64;
    let sign = ((mask >> 1) + 1) as i64;
    (v ^ sign).wrapping_sub(sign)
}

fn mask_bits(mask: u64) -> u64 {
    u64::from(64 - mask.leading_zeros())
}

macro_rules! int_arms {
    ($a:expr, $b:expr, $op:ident, $name:expr, generic: $g:expr, f32: $f32:expr, f64: $f64:expr) => {
        match ($a, $b) {
            (Value::Generic(x), Value::Generic(y)) => $g(*x, *y),
            (Value::I8(x), Value::I8(y)) => Ok(Value::I8(x.$op(*y))),
            (Value::U8(x), Value::U8(y)) => Ok(Value::U8(x.$op(*y))),
            (Value::I16(x), Value::I16(y)) => Ok(Value::I16(x.$op(*y))),
            (Value::U16(x), Value::U16(y)) => Ok(Value::U16(x.$op(*y))),
            (Value::I32(x), Value::I32(y)) => Ok(Value::I32(x.$op(*y))),
            (Value::U32(x), Value::U32(y)) => Ok(Value::U32(x.$op(*y))),
            (Value::I64(x), Value::I64(y)) => Ok(Value::I64(x.$op(*y))),
            (Value::U64(x), Value::U64(y)) => Ok(Value::U64(x.$op(*y))),
            (Value::F32(x), Value::F32(y)) => $f32(*x, *y),
            (Value::F64(x), Value::F64(y)) => $f64(*x, *y),
            (a, b) if a.value_type() == b.value_type() => Err(ErrorKind::UnsupportedType($name)),
            _ => Err(ErrorKind::TypeMismatch($name)),
        }
    };
}

impl Value {
    /// The type class of the value.
    pub fn value_type(&self) -> ValueType {
        match self {
            Value::Generic(_) => ValueType::Generic,
            Value::I8(_) => ValueType::I8,
            Value::U8(_) => ValueType::U8,
            Value::I16(_) => ValueType::I16,
            Value::U16(_) => ValueType::U16,
            Value::I32(_) => ValueType::I32,
            Value::U32(_) => ValueType::U32,
            Value::I64(_) => ValueType::I64,
            Value::U64(_) => ValueType::U64,
            Value::F32(_) => ValueType::F32,
            Value::F64(_) => ValueType::F64,
            Value::Bytes(b) => ValueType::Other(b.ty),
            Value::ImplicitPointer(p) => {
                if p.space == 0 {
                    ValueType::Generic
                } else {
                    ValueType::Other(BaseType::scalar(ate::UNSIGNED, p.bits / 8))
                }
            }
        }
    }

    /// Whether the value is integral (generic included).
    pub fn is_integral(&self) -> bool {
        match self {
            Value::F32(_) | Value::F64(_) | Value::ImplicitPointer(_) => false,
            Value::Bytes(b) => b.ty.is_integral() && b.ty.vector_size <= 1,
            _ => true,
        }
    }

    /// The value as an unsigned integer: signed types are sign-extended, the generic
    /// type is masked to the address size. Integral types only.
    pub fn to_u64(&self, mask: u64, op: &'static str) -> Result<u64, ErrorKind> {
        Ok(match self {
            Value::Generic(v) => v & mask,
            Value::I8(v) => *v as u64,
            Value::U8(v) => u64::from(*v),
            Value::I16(v) => *v as u64,
            Value::U16(v) => u64::from(*v),
            Value::I32(v) => *v as u64,
            Value::U32(v) => u64::from(*v),
            Value::I64(v) => *v as u64,
            Value::U64(v) => *v,
            Value::Bytes(tb) if tb.ty.is_integral() && tb.ty.vector_size <= 1 => {
                // Wider or odd-sized integers: the low 64 bits.
                let mut b = [0u8; 8];
                let n = tb.bytes.len().min(8);
                b[..n].copy_from_slice(&tb.bytes[..n]);
                u64::from_le_bytes(b)
            }
            _ => return Err(ErrorKind::IntegralRequired(op)),
        })
    }

    /// Builds a value of type `ty` from an unsigned integer (truncating).
    pub fn from_u64(ty: ValueType, v: u64) -> Value {
        match ty {
            ValueType::Generic => Value::Generic(v),
            ValueType::I8 => Value::I8(v as i8),
            ValueType::U8 => Value::U8(v as u8),
            ValueType::I16 => Value::I16(v as i16),
            ValueType::U16 => Value::U16(v as u16),
            ValueType::I32 => Value::I32(v as i32),
            ValueType::U32 => Value::U32(v as u32),
            ValueType::I64 => Value::I64(v as i64),
            ValueType::U64 => Value::U64(v),
            ValueType::F32 => Value::F32(v as f32),
            ValueType::F64 => Value::F64(v as f64),
            ValueType::Other(bt) => {
                let mut b = vec![0u8; usize::try_from(bt.total_size()).unwrap_or(0).min(1 << 20)];
                for (i, x) in v.to_le_bytes().iter().enumerate() {
                    if let Some(d) = b.get_mut(i) {
                        *d = *x;
                    }
                }
                Value::bytes(bt, &b)
            }
        }
    }

    /// Decodes a value of type `ty` from little-endian bytes (of exactly the type's size;
    /// for the generic type, `bytes.len()` may be smaller: zero-extended).
    pub fn from_bytes(ty: ValueType, bytes: &[u8]) -> Value {
        let mut b = [0u8; 8];
        let n = bytes.len().min(8);
        b[..n].copy_from_slice(&bytes[..n]);
        let u = u64::from_le_bytes(b);
        match ty {
            ValueType::F32 => Value::F32(f32::from_bits(u as u32)),
            ValueType::F64 => Value::F64(f64::from_bits(u)),
            ValueType::Other(bt) => Value::bytes(bt, bytes),
            other => Value::from_u64(other, u),
        }
    }

    /// Writes the representation of a scalar value into `buf` (no allocation); `None`
    /// for byte-held values.
    pub fn write_small(&self, addr_size: u8, buf: &mut [u8; 16]) -> Option<usize> {
        let (v, n) = match self {
            Value::Generic(v) => (*v, usize::from(addr_size.min(8))),
            Value::I8(v) => (*v as u64, 1),
            Value::U8(v) => (u64::from(*v), 1),
            Value::I16(v) => (*v as u64, 2),
            Value::U16(v) => (u64::from(*v), 2),
            Value::I32(v) => (*v as u64, 4),
            Value::U32(v) => (u64::from(*v), 4),
            Value::I64(v) => (*v as u64, 8),
            Value::U64(v) => (*v, 8),
            Value::F32(v) => (u64::from(v.to_bits()), 4),
            Value::F64(v) => (v.to_bits(), 8),
            Value::Bytes(_) | Value::ImplicitPointer(_) => return None,
        };
        buf[..8].copy_from_slice(&v.to_le_bytes());
        Some(n)
    }

    /// The little-endian representation, `size` bytes for the generic type.
    pub fn to_bytes(&self, addr_size: u8) -> Vec<u8> {
        match self {
            Value::Generic(v) => v.to_le_bytes()[..usize::from(addr_size.min(8))].to_vec(),
            Value::I8(v) => v.to_le_bytes().to_vec(),
            Value::U8(v) => v.to_le_bytes().to_vec(),
            Value::I16(v) => v.to_le_bytes().to_vec(),
            Value::U16(v) => v.to_le_bytes().to_vec(),
            Value::I32(v) => v.to_le_bytes().to_vec(),
            Value::U32(v) => v.to_le_bytes().to_vec(),
            Value::I64(v) => v.to_le_bytes().to_vec(),
            Value::U64(v) => v.to_le_bytes().to_vec(),
            Value::F32(v) => v.to_le_bytes().to_vec(),
            Value::F64(v) => v.to_le_bytes().to_vec(),
            Value::Bytes(b) => b.bytes.to_vec(),
            Value::ImplicitPointer(p) => vec![0; (p.bits / 8) as usize],
        }
    }

    /// DW_OP_convert (DWARF 5 section 2.5.1.6).
    pub fn convert(&self, ty: ValueType, mask: u64) -> Result<Value, ErrorKind> {
        Ok(match (self, ty) {
            (_, ValueType::Other(_)) | (Value::Bytes(_), _) | (Value::ImplicitPointer(_), _) => {
                return Err(ErrorKind::UnsupportedType("DW_OP_convert"));
            }
            (Value::F32(f), t) => from_f64(t, f64::from(*f)),
            (Value::F64(f), t) => from_f64(t, *f),
            (v, t) => {
                let signed = matches!(
                    v,
                    Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_)
                );
                let u = v.to_u64(mask, "DW_OP_convert")?;
                match t {
                    ValueType::F32 if signed => Value::F32(u as i64 as f32),
                    ValueType::F64 if signed => Value::F64(u as i64 as f64),
                    _ => Value::from_u64(t, u),
                }
            }
        })
    }

    /// DW_OP_reinterpret (DWARF 5 section 2.5.1.6): same bits, another type of equal size.
    pub fn reinterpret(&self, ty: ValueType, addr_size: u8) -> Result<Value, ErrorKind> {
        if self.value_type().size(addr_size) != ty.size(addr_size) {
            return Err(ErrorKind::ReinterpretSize);
        }
        if let Value::ImplicitPointer(_) = self {
            return Err(ErrorKind::ImplicitPointerAccess);
        }
        Ok(Value::from_bytes(ty, &self.to_bytes(addr_size)))
    }

    /// DW_OP_abs (generic: signed).
    pub fn abs(&self, mask: u64) -> Result<Value, ErrorKind> {
        Ok(match self {
            Value::Generic(v) => Value::Generic(sign_extend(*v, mask).wrapping_abs() as u64),
            Value::I8(v) => Value::I8(v.wrapping_abs()),
            Value::I16(v) => Value::I16(v.wrapping_abs()),
            Value::I32(v) => Value::I32(v.wrapping_abs()),
            Value::I64(v) => Value::I64(v.wrapping_abs()),
            Value::F32(v) => Value::F32(v.abs()),
            Value::F64(v) => Value::F64(v.abs()),
            Value::U8(_) | Value::U16(_) | Value::U32(_) | Value::U64(_) => self.clone(),
            _ => return Err(ErrorKind::UnsupportedType("DW_OP_abs")),
        })
    }

    /// DW_OP_neg (generic: signed).
    pub fn neg(&self, mask: u64) -> Result<Value, ErrorKind> {
        Ok(match self {
            Value::Generic(v) => Value::Generic(sign_extend(*v, mask).wrapping_neg() as u64),
            Value::I8(v) => Value::I8(v.wrapping_neg()),
            Value::I16(v) => Value::I16(v.wrapping_neg()),
            Value::I32(v) => Value::I32(v.wrapping_neg()),
            Value::I64(v) => Value::I64(v.wrapping_neg()),
            Value::F32(v) => Value::F32(-v),
            Value::F64(v) => Value::F64(-v),
            _ => return Err(ErrorKind::UnsupportedType("DW_OP_neg")),
        })
    }

    /// DW_OP_not.
    pub fn not(&self, mask: u64) -> Result<Value, ErrorKind> {
        let t = self.value_type();
        if matches!(t, ValueType::F32 | ValueType::F64 | ValueType::Other(_)) {
            return Err(ErrorKind::IntegralRequired("DW_OP_not"));
        }
        let v = self.to_u64(mask, "DW_OP_not")?;
        Ok(match t {
            ValueType::Generic => Value::Generic(!v & mask),
            t => Value::from_u64(t, !v),
        })
    }

    /// DW_OP_plus.
    pub fn add(&self, rhs: &Value, mask: u64) -> Result<Value, ErrorKind> {
        int_arms!(self, rhs, wrapping_add, "DW_OP_plus",
            generic: |x: u64, y: u64| Ok(Value::Generic(x.wrapping_add(y) & mask)),
            f32: |x: f32, y: f32| Ok(Value::F32(x + y)),
            f64: |x: f64, y: f64| Ok(Value::F64(x + y)))
    }

    /// DW_OP_minus.
    pub fn sub(&self, rhs: &Value, mask: u64) -> Result<Value, ErrorKind> {
        int_arms!(self, rhs, wrapping_sub, "DW_OP_minus",
            generic: |x: u64, y: u64| Ok(Value::Generic(x.wrapping_sub(y) & mask)),
            f32: |x: f32, y: f32| Ok(Value::F32(x - y)),
            f64: |x: f64, y: f64| Ok(Value::F64(x - y)))
    }

    /// DW_OP_mul.
    pub fn mul(&self, rhs: &Value, mask: u64) -> Result<Value, ErrorKind> {
        int_arms!(self, rhs, wrapping_mul, "DW_OP_mul",
            generic: |x: u64, y: u64| Ok(Value::Generic(x.wrapping_mul(y) & mask)),
            f32: |x: f32, y: f32| Ok(Value::F32(x * y)),
            f64: |x: f64, y: f64| Ok(Value::F64(x * y)))
    }

    /// DW_OP_div (generic: signed division, DWARF 5 section 2.5.1.4).
    pub fn div(&self, rhs: &Value, mask: u64) -> Result<Value, ErrorKind> {
        if rhs.is_zero(mask) {
            return Err(ErrorKind::DivisionByZero("DW_OP_div"));
        }
        int_arms!(self, rhs, wrapping_div, "DW_OP_div",
            generic: |x: u64, y: u64| Ok(Value::Generic(
                (sign_extend(x, mask).wrapping_div(sign_extend(y, mask)) as u64) & mask)),
            f32: |x: f32, y: f32| Ok(Value::F32(x / y)),
            f64: |x: f64, y: f64| Ok(Value::F64(x / y)))
    }

    /// DW_OP_mod (generic: unsigned).
    pub fn rem(&self, rhs: &Value, mask: u64) -> Result<Value, ErrorKind> {
        if rhs.is_zero(mask) {
            return Err(ErrorKind::DivisionByZero("DW_OP_mod"));
        }
        int_arms!(self, rhs, wrapping_rem, "DW_OP_mod",
            generic: |x: u64, y: u64| Ok(Value::Generic((x & mask) % (y & mask))),
            f32: |_x: f32, _y: f32| Err(ErrorKind::IntegralRequired("DW_OP_mod")),
            f64: |_x: f64, _y: f64| Err(ErrorKind::IntegralRequired("DW_OP_mod")))
    }

    fn is_zero(&self, mask: u64) -> bool {
        match self {
            Value::Generic(v) => v & mask == 0,
            Value::F32(_) | Value::F64(_) | Value::Bytes(_) | Value::ImplicitPointer(_) => false,
            v => v.to_u64(mask, "").map(|x| x == 0).unwrap_or(false),
        }
    }

    fn bitwise(
        &self,
        rhs: &Value,
        mask: u64,
        name: &'static str,
        f: fn(u64, u64) -> u64,
    ) -> Result<Value, ErrorKind> {
        let t = self.value_type();
        if t != rhs.value_type() {
            return Err(ErrorKind::TypeMismatch(name));
        }
        if matches!(t, ValueType::F32 | ValueType::F64 | ValueType::Other(_)) {
            return Err(ErrorKind::IntegralRequired(name));
        }
        let r = f(self.to_u64(mask, name)?, rhs.to_u64(mask, name)?);
        Ok(Value::from_u64(t, r))
    }

    /// DW_OP_and.
    pub fn and(&self, rhs: &Value, mask: u64) -> Result<Value, ErrorKind> {
        self.bitwise(rhs, mask, "DW_OP_and", |a, b| a & b)
    }
    /// DW_OP_or.
    pub fn or(&self, rhs: &Value, mask: u64) -> Result<Value, ErrorKind> {
        self.bitwise(rhs, mask, "DW_OP_or", |a, b| a | b)
    }
    /// DW_OP_xor.
    pub fn xor(&self, rhs: &Value, mask: u64) -> Result<Value, ErrorKind> {
        self.bitwise(rhs, mask, "DW_OP_xor", |a, b| a ^ b)
    }

    fn shift_amount(&self, name: &'static str) -> Result<u64, ErrorKind> {
        Ok(match self {
            Value::Generic(v) | Value::U64(v) => *v,
            Value::U8(v) => u64::from(*v),
            Value::U16(v) => u64::from(*v),
            Value::U32(v) => u64::from(*v),
            Value::I8(v) if *v >= 0 => *v as u64,
            Value::I16(v) if *v >= 0 => *v as u64,
            Value::I32(v) if *v >= 0 => *v as u64,
            Value::I64(v) if *v >= 0 => *v as u64,
            Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => {
                return Err(ErrorKind::NegativeShift(name));
            }
            _ => return Err(ErrorKind::IntegralRequired(name)),
        })
    }

    /// DW_OP_shl: shifting by the type's width or more gives 0.
    pub fn shl(&self, rhs: &Value, mask: u64) -> Result<Value, ErrorKind> {
        let n = rhs.shift_amount("DW_OP_shl")?;
        let t = self.value_type();
        let bits = match t {
            ValueType::Generic => mask_bits(mask),
            ValueType::F32 | ValueType::F64 | ValueType::Other(_) => {
                return Err(ErrorKind::IntegralRequired("DW_OP_shl"));
            }
            t => t.size(8) * 8,
        };
        let v = self.to_u64(mask, "DW_OP_shl")?;
        let r = if n >= bits { 0 } else { v << n };
        Ok(match t {
            ValueType::Generic => Value::Generic(r & mask),
            t => Value::from_u64(t, r),
        })
    }

    /// DW_OP_shr (logical; unsigned or generic operands).
    pub fn shr(&self, rhs: &Value, mask: u64) -> Result<Value, ErrorKind> {
        let n = rhs.shift_amount("DW_OP_shr")?;
        let t = self.value_type();
        let bits = match t {
            ValueType::Generic => mask_bits(mask),
            ValueType::U8 | ValueType::U16 | ValueType::U32 | ValueType::U64 => t.size(8) * 8,
            ValueType::I8 | ValueType::I16 | ValueType::I32 | ValueType::I64 => {
                return Err(ErrorKind::UnsupportedType("DW_OP_shr"));
            }
            _ => return Err(ErrorKind::IntegralRequired("DW_OP_shr")),
        };
        let v = self.to_u64(mask, "DW_OP_shr")?;
        Ok(Value::from_u64(t, if n >= bits { 0 } else { v >> n }))
    }

    /// DW_OP_shra (arithmetic; signed or generic operands).
    pub fn shra(&self, rhs: &Value, mask: u64) -> Result<Value, ErrorKind> {
        let n = rhs.shift_amount("DW_OP_shra")?;
        let (v, bits, t) = match self {
            Value::Generic(v) => (sign_extend(*v, mask), mask_bits(mask), ValueType::Generic),
            Value::I8(v) => (i64::from(*v), 8, ValueType::I8),
            Value::I16(v) => (i64::from(*v), 16, ValueType::I16),
            Value::I32(v) => (i64::from(*v), 32, ValueType::I32),
            Value::I64(v) => (*v, 64, ValueType::I64),
            Value::U8(_) | Value::U16(_) | Value::U32(_) | Value::U64(_) => {
                return Err(ErrorKind::UnsupportedType("DW_OP_shra"));
            }
            _ => return Err(ErrorKind::IntegralRequired("DW_OP_shra")),
        };
        let r = if n >= bits {
            if v < 0 { -1 } else { 0 }
        } else {
            v >> n
        };
        Ok(match t {
            ValueType::Generic => Value::Generic(r as u64 & mask),
            t => Value::from_u64(t, r as u64),
        })
    }

    /// DW_OP_eq/ge/gt/le/lt/ne: the result is a generic 1 or 0 (generic compares signed).
    pub fn compare(
        &self,
        rhs: &Value,
        mask: u64,
        name: &'static str,
        f: fn(std::cmp::Ordering) -> bool,
    ) -> Result<Value, ErrorKind> {
        use std::cmp::Ordering;
        let ord: Option<Ordering> = match (self, rhs) {
            (Value::Generic(x), Value::Generic(y)) => {
                Some(sign_extend(*x, mask).cmp(&sign_extend(*y, mask)))
            }
            (Value::I8(x), Value::I8(y)) => Some(x.cmp(y)),
            (Value::U8(x), Value::U8(y)) => Some(x.cmp(y)),
            (Value::I16(x), Value::I16(y)) => Some(x.cmp(y)),
            (Value::U16(x), Value::U16(y)) => Some(x.cmp(y)),
            (Value::I32(x), Value::I32(y)) => Some(x.cmp(y)),
            (Value::U32(x), Value::U32(y)) => Some(x.cmp(y)),
            (Value::I64(x), Value::I64(y)) => Some(x.cmp(y)),
            (Value::U64(x), Value::U64(y)) => Some(x.cmp(y)),
            (Value::F32(x), Value::F32(y)) => x.partial_cmp(y),
            (Value::F64(x), Value::F64(y)) => x.partial_cmp(y),
            (a, b) if a.value_type() == b.value_type() => {
                return Err(ErrorKind::UnsupportedType(name));
            }
            _ => return Err(ErrorKind::TypeMismatch(name)),
        };
        // Unordered (NaN): only != holds.
        let r = match ord {
            Some(o) => f(o),
            None => name == "DW_OP_ne",
        };
        Ok(Value::Generic(u64::from(r)))
    }
}

fn from_f64(t: ValueType, v: f64) -> Value {
    match t {
        ValueType::Generic => Value::Generic(v as u64),
        ValueType::I8 => Value::I8(v as i8),
        ValueType::U8 => Value::U8(v as u8),
        ValueType::I16 => Value::I16(v as i16),
        ValueType::U16 => Value::U16(v as u16),
        ValueType::I32 => Value::I32(v as i32),
        ValueType::U32 => Value::U32(v as u32),
        ValueType::I64 => Value::I64(v as i64),
        ValueType::U64 => Value::U64(v as u64),
        ValueType::F32 => Value::F32(v as f32),
        ValueType::F64 => Value::F64(v),
        ValueType::Other(_) => Value::Generic(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const M: u64 = u64::MAX;

    #[test]
    fn generic_division_is_signed_and_mod_unsigned() {
        let a = Value::Generic((-7i64) as u64);
        let b = Value::Generic(2);
        assert_eq!(a.div(&b, M).unwrap(), Value::Generic((-3i64) as u64));
        assert_eq!(a.rem(&b, M).unwrap(), Value::Generic(((-7i64) as u64) % 2));
        assert!(matches!(
            a.div(&Value::Generic(0), M),
            Err(ErrorKind::DivisionByZero(_))
        ));
    }

    #[test]
    fn types_must_match() {
        let r = Value::Generic(1).add(&Value::U32(1), M);
        assert_eq!(r, Err(ErrorKind::TypeMismatch("DW_OP_plus")));
        assert_eq!(
            Value::U32(u32::MAX).add(&Value::U32(2), M).unwrap(),
            Value::U32(1)
        );
        assert_eq!(
            Value::F32(1.5).add(&Value::F32(2.0), M).unwrap(),
            Value::F32(3.5)
        );
        assert_eq!(
            Value::F64(1.5).mul(&Value::F64(2.0), M).unwrap(),
            Value::F64(3.0)
        );
    }

    #[test]
    fn shifts() {
        assert_eq!(
            Value::Generic(1).shl(&Value::Generic(64), M).unwrap(),
            Value::Generic(0)
        );
        assert_eq!(
            Value::I8(-128).shra(&Value::U8(9), M).unwrap(),
            Value::I8(-1)
        );
        assert!(Value::I8(1).shr(&Value::U8(1), M).is_err());
        assert!(matches!(
            Value::U8(1).shl(&Value::I8(-1), M),
            Err(ErrorKind::NegativeShift(_))
        ));
    }

    #[test]
    fn convert_and_reinterpret() {
        let f = Value::F32(1.0);
        assert_eq!(
            f.reinterpret(ValueType::U32, 8).unwrap(),
            Value::U32(0x3f80_0000)
        );
        assert_eq!(
            Value::I32(-2).convert(ValueType::F64, M).unwrap(),
            Value::F64(-2.0)
        );
        assert_eq!(
            Value::F64(-2.7).convert(ValueType::I32, M).unwrap(),
            Value::I32(-2)
        );
        assert!(Value::U8(1).reinterpret(ValueType::U32, 8).is_err());
    }
}
