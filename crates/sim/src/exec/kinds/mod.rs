//! The operations the executor implements, listed by the generated
//! operation identities (`amdgpu_isa::alu::ops`, `amdgpu_isa::mem::ops`).
//! Each list is the single source from which both the enum and its lookup by
//! identity are generated.

macro_rules! kinds {
    ($(#[$m:meta])* $ty:ident($op_ty:ty) { $($($op:path)|+ => $v:ident,)* } $($extra:tt)*) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum $ty {
            /// Decoded but not executed: reported as an error.
            Unimplemented,
            $($v,)*
            $($extra)*
        }

        impl $ty {
            /// Every operation in the list.
            pub const OPS: &'static [$op_ty] = &[$($($op,)+)*];

            /// The kind implementing the operation `op`.
            pub fn of(op: $op_ty) -> Option<$ty> {
                Some(match op {
                    $($($op)|+ => $ty::$v,)*
                    _ => return None,
                })
            }

            /// The kind implementing the operation with canonical mnemonic `name`.
            pub fn from_name(name: &str) -> Option<$ty> {
                <$op_ty>::from_name(name).and_then(Self::of)
            }
        }
    };
}

mod alu_list;
mod cmp;
mod mem_list;

pub use alu_list::Kind;
pub use cmp::{Cmp, CmpTy};
pub use mem_list::MemKind;

#[cfg(test)]
mod tests {
    use super::*;
    use amdgpu_isa::alu::{AluOp, ops as alu};
    use amdgpu_isa::mem::ops as mem;
    use std::cmp::Ordering;

    #[test]
    fn mask_evaluation_matches_per_lane_evaluation() {
        for pred in 0..Cmp::PREDICATES.len() as u8 {
            let c = Cmp {
                pred,
                ty: CmpTy::F32,
                x: false,
            };
            // Lane 0 less, 1 equal, 2 greater, 3 unordered.
            let m = c.eval_masks(1, 2, 4, 8) & 0xf;
            for (lane, o) in [
                Some(Ordering::Less),
                Some(Ordering::Equal),
                Some(Ordering::Greater),
                None,
            ]
            .into_iter()
            .enumerate()
            {
                assert_eq!(
                    (m >> lane) & 1 == 1,
                    c.eval(o),
                    "{} lane {lane}",
                    Cmp::PREDICATES[pred as usize]
                );
            }
        }
    }

    #[test]
    fn every_listed_operation_has_its_kind() {
        for &op in Kind::OPS {
            let k = Kind::of(op).expect("listed");
            assert_eq!(Kind::from_name(op.name()), Some(k), "{}", op.name());
        }
        for &op in MemKind::OPS {
            let k = MemKind::of(op).expect("listed");
            assert_eq!(MemKind::from_name(op.name()), Some(k), "{}", op.name());
        }
        assert_eq!(Kind::of(alu::V_ADD_F32), Some(Kind::VAddF32));
        assert_eq!(MemKind::of(mem::GLOBAL_LOAD_DWORD), Some(MemKind::GLoad4));
    }

    #[test]
    fn compares_by_identity_are_the_parsed_names() {
        for i in 0..AluOp::count() {
            let op = AluOp(i as u16);
            assert_eq!(Cmp::of(op), Cmp::parse(op.name()), "{}", op.name());
        }
    }

    #[test]
    fn compare_names_parse() {
        let c = Cmp::parse("v_cmpx_ngt_f64").unwrap();
        assert!(c.x);
        assert_eq!(c.ty, CmpTy::F64);
        assert_eq!(Cmp::PREDICATES[c.pred as usize], "ngt");
        assert!(Cmp::parse("v_cmp_class_f32").is_none());
        assert!(Cmp::parse("v_add_f32").is_none());
        assert_eq!(Kind::from_name("s_waitcnt_vscnt"), Some(Kind::SWait));
        assert_eq!(MemKind::from_name("flat_load_dword"), Some(MemKind::GLoad4));
        assert_eq!(Kind::from_name("v_no_such_op"), None);
    }
}
