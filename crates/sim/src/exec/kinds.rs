//! The operations the executor implements, listed by the generated
//! operation identities (`amdgpu_isa::alu::ops`, `amdgpu_isa::mem::ops`).
//! Each list is the single source from which both the enum and its lookup by
//! identity are generated.

use amdgpu_isa::alu::{AluOp, ops as alu};
use amdgpu_isa::mem::{MemOp, ops as mem};

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

kinds! {
    /// ALU operations (SOP*, VOP*) the executor implements.
    Kind(AluOp) {
        // SOPP
        alu::S_NOP => SNop,
        alu::S_ENDPGM => SEndpgm,
        alu::S_CODE_END => SCodeEnd,
        alu::S_BRANCH => SBranch,
        alu::S_CBRANCH_SCC0 => SCbranchScc0,
        alu::S_CBRANCH_SCC1 => SCbranchScc1,
        alu::S_CBRANCH_VCCZ => SCbranchVccz,
        alu::S_CBRANCH_VCCNZ => SCbranchVccnz,
        alu::S_CBRANCH_EXECZ => SCbranchExecz,
        alu::S_CBRANCH_EXECNZ => SCbranchExecnz,
        alu::S_BARRIER => SBarrier,
        alu::S_WAITCNT | alu::S_WAITCNT_VSCNT | alu::S_WAITCNT_VMCNT | alu::S_WAITCNT_EXPCNT | alu::S_WAITCNT_LGKMCNT | alu::S_WAITCNT_DEPCTR | alu::S_CLAUSE | alu::S_INST_PREFETCH | alu::S_SLEEP | alu::S_SETPRIO | alu::S_ICACHE_INV | alu::S_TTRACEDATA | alu::S_TTRACEDATA_IMM | alu::S_INCPERFLEVEL | alu::S_DECPERFLEVEL | alu::S_WAKEUP | alu::S_WAIT_IDLE | alu::S_VERSION => SWait,
        // The debugger flags these test are never set (no trap handler or host debugger sets them).
        alu::S_CBRANCH_CDBGSYS | alu::S_CBRANCH_CDBGUSER | alu::S_CBRANCH_CDBGSYS_OR_USER | alu::S_CBRANCH_CDBGSYS_AND_USER => SCbranchCdbg,
        alu::S_ROUND_MODE => SRoundMode,
        alu::S_DENORM_MODE => SDenormMode,
        alu::S_SETHALT => SSethalt,
        alu::S_SETKILL => SSetkill,
        alu::S_SETVSKIP => SSetvskip,
        alu::S_SENDMSG => SSendmsg,
        alu::S_SENDMSGHALT => SSendmsghalt,
        alu::S_TRAP => STrap,
        // SOP1
        alu::S_MOV_B32 => SMovB32,
        alu::S_MOV_B64 => SMovB64,
        alu::S_CMOV_B32 => SCmovB32,
        alu::S_CMOV_B64 => SCmovB64,
        alu::S_NOT_B32 => SNotB32,
        alu::S_NOT_B64 => SNotB64,
        alu::S_BREV_B32 => SBrevB32,
        alu::S_BREV_B64 => SBrevB64,
        alu::S_BCNT0_I32_B32 => SBcnt0B32,
        alu::S_BCNT0_I32_B64 => SBcnt0B64,
        alu::S_BCNT1_I32_B32 => SBcnt1B32,
        alu::S_BCNT1_I32_B64 => SBcnt1B64,
        alu::S_FF0_I32_B32 => SFf0B32,
        alu::S_FF0_I32_B64 => SFf0B64,
        alu::S_FF1_I32_B32 => SFf1B32,
        alu::S_FF1_I32_B64 => SFf1B64,
        alu::S_FLBIT_I32_B32 => SFlbitB32,
        alu::S_FLBIT_I32_B64 => SFlbitB64,
        alu::S_FLBIT_I32 => SFlbitI32,
        alu::S_FLBIT_I32_I64 => SFlbitI64,
        alu::S_SEXT_I32_I8 => SSextI8,
        alu::S_SEXT_I32_I16 => SSextI16,
        alu::S_ABS_I32 => SAbsI32,
        alu::S_BITSET0_B32 => SBitset0B32,
        alu::S_BITSET1_B32 => SBitset1B32,
        alu::S_BITSET0_B64 => SBitset0B64,
        alu::S_BITSET1_B64 => SBitset1B64,
        alu::S_QUADMASK_B32 => SQuadmaskB32,
        alu::S_QUADMASK_B64 => SQuadmaskB64,
        alu::S_WQM_B32 => SWqmB32,
        alu::S_WQM_B64 => SWqmB64,
        alu::S_BITREPLICATE_B64_B32 => SBitreplicate,
        alu::S_GETPC_B64 => SGetpc,
        alu::S_SETPC_B64 => SSetpc,
        alu::S_SWAPPC_B64 => SSwappc,
        alu::S_AND_SAVEEXEC_B32 | alu::S_AND_SAVEEXEC_B64 => SAndSaveexec,
        alu::S_OR_SAVEEXEC_B32 | alu::S_OR_SAVEEXEC_B64 => SOrSaveexec,
        alu::S_XOR_SAVEEXEC_B32 | alu::S_XOR_SAVEEXEC_B64 => SXorSaveexec,
        alu::S_ANDN2_SAVEEXEC_B32 | alu::S_ANDN2_SAVEEXEC_B64 => SAndn2Saveexec,
        alu::S_ORN2_SAVEEXEC_B32 | alu::S_ORN2_SAVEEXEC_B64 => SOrn2Saveexec,
        alu::S_NAND_SAVEEXEC_B32 | alu::S_NAND_SAVEEXEC_B64 => SNandSaveexec,
        alu::S_NOR_SAVEEXEC_B32 | alu::S_NOR_SAVEEXEC_B64 => SNorSaveexec,
        alu::S_XNOR_SAVEEXEC_B32 | alu::S_XNOR_SAVEEXEC_B64 => SXnorSaveexec,
        alu::S_ANDN1_SAVEEXEC_B32 | alu::S_ANDN1_SAVEEXEC_B64 => SAndn1Saveexec,
        alu::S_ORN1_SAVEEXEC_B32 | alu::S_ORN1_SAVEEXEC_B64 => SOrn1Saveexec,
        alu::S_ANDN1_WREXEC_B32 | alu::S_ANDN1_WREXEC_B64 => SAndn1Wrexec,
        alu::S_ANDN2_WREXEC_B32 | alu::S_ANDN2_WREXEC_B64 => SAndn2Wrexec,
        // SOP2
        alu::S_ADD_U32 => SAddU32,
        alu::S_SUB_U32 => SSubU32,
        alu::S_ADD_I32 => SAddI32,
        alu::S_SUB_I32 => SSubI32,
        alu::S_ADDC_U32 => SAddcU32,
        alu::S_SUBB_U32 => SSubbU32,
        alu::S_MIN_I32 => SMinI32,
        alu::S_MIN_U32 => SMinU32,
        alu::S_MAX_I32 => SMaxI32,
        alu::S_MAX_U32 => SMaxU32,
        alu::S_CSELECT_B32 => SCselectB32,
        alu::S_CSELECT_B64 => SCselectB64,
        alu::S_AND_B32 => SAndB32,
        alu::S_AND_B64 => SAndB64,
        alu::S_OR_B32 => SOrB32,
        alu::S_OR_B64 => SOrB64,
        alu::S_XOR_B32 => SXorB32,
        alu::S_XOR_B64 => SXorB64,
        alu::S_ANDN2_B32 => SAndn2B32,
        alu::S_ANDN2_B64 => SAndn2B64,
        alu::S_ORN2_B32 => SOrn2B32,
        alu::S_ORN2_B64 => SOrn2B64,
        alu::S_NAND_B32 => SNandB32,
        alu::S_NAND_B64 => SNandB64,
        alu::S_NOR_B32 => SNorB32,
        alu::S_NOR_B64 => SNorB64,
        alu::S_XNOR_B32 => SXnorB32,
        alu::S_XNOR_B64 => SXnorB64,
        alu::S_LSHL_B32 => SLshlB32,
        alu::S_LSHL_B64 => SLshlB64,
        alu::S_LSHR_B32 => SLshrB32,
        alu::S_LSHR_B64 => SLshrB64,
        alu::S_ASHR_I32 => SAshrI32,
        alu::S_ASHR_I64 => SAshrI64,
        alu::S_BFM_B32 => SBfmB32,
        alu::S_BFM_B64 => SBfmB64,
        alu::S_MUL_I32 => SMulI32,
        alu::S_MUL_HI_U32 => SMulHiU32,
        alu::S_MUL_HI_I32 => SMulHiI32,
        alu::S_BFE_U32 => SBfeU32,
        alu::S_BFE_I32 => SBfeI32,
        alu::S_BFE_U64 => SBfeU64,
        alu::S_BFE_I64 => SBfeI64,
        alu::S_ABSDIFF_I32 => SAbsdiffI32,
        alu::S_LSHL1_ADD_U32 => SLshl1Add,
        alu::S_LSHL2_ADD_U32 => SLshl2Add,
        alu::S_LSHL3_ADD_U32 => SLshl3Add,
        alu::S_LSHL4_ADD_U32 => SLshl4Add,
        alu::S_PACK_LL_B32_B16 => SPackLl,
        alu::S_PACK_LH_B32_B16 => SPackLh,
        alu::S_PACK_HH_B32_B16 => SPackHh,
        // SOPC
        alu::S_CMP_EQ_I32 | alu::S_CMP_EQ_U32 => SCmpEqU32,
        alu::S_CMP_LG_I32 | alu::S_CMP_LG_U32 => SCmpLgU32,
        alu::S_CMP_GT_I32 => SCmpGtI32,
        alu::S_CMP_GE_I32 => SCmpGeI32,
        alu::S_CMP_LT_I32 => SCmpLtI32,
        alu::S_CMP_LE_I32 => SCmpLeI32,
        alu::S_CMP_GT_U32 => SCmpGtU32,
        alu::S_CMP_GE_U32 => SCmpGeU32,
        alu::S_CMP_LT_U32 => SCmpLtU32,
        alu::S_CMP_LE_U32 => SCmpLeU32,
        alu::S_CMP_EQ_U64 => SCmpEqU64,
        alu::S_CMP_LG_U64 => SCmpLgU64,
        alu::S_BITCMP0_B32 => SBitcmp0B32,
        alu::S_BITCMP1_B32 => SBitcmp1B32,
        alu::S_BITCMP0_B64 => SBitcmp0B64,
        alu::S_BITCMP1_B64 => SBitcmp1B64,
        // SOPK
        alu::S_MOVK_I32 => SMovkI32,
        alu::S_CMOVK_I32 => SCmovkI32,
        alu::S_ADDK_I32 => SAddkI32,
        alu::S_MULK_I32 => SMulkI32,
        alu::S_CMPK_EQ_I32 => SCmpkEqI32,
        alu::S_CMPK_LG_I32 => SCmpkLgI32,
        alu::S_CMPK_GT_I32 => SCmpkGtI32,
        alu::S_CMPK_GE_I32 => SCmpkGeI32,
        alu::S_CMPK_LT_I32 => SCmpkLtI32,
        alu::S_CMPK_LE_I32 => SCmpkLeI32,
        alu::S_CMPK_EQ_U32 => SCmpkEqU32,
        alu::S_CMPK_LG_U32 => SCmpkLgU32,
        alu::S_CMPK_GT_U32 => SCmpkGtU32,
        alu::S_CMPK_GE_U32 => SCmpkGeU32,
        alu::S_CMPK_LT_U32 => SCmpkLtU32,
        alu::S_CMPK_LE_U32 => SCmpkLeU32,
        alu::S_GETREG_B32 => SGetreg,
        alu::S_SETREG_B32 => SSetreg,
        alu::S_SETREG_IMM32_B32 => SSetregImm,
        alu::S_CALL_B64 => SCall,
        // VOP1
        // No architectural effect here: exceptions are not recorded, the pipeline is in order.
        alu::V_NOP | alu::V_CLREXCP | alu::V_PIPEFLUSH => VNop,
        alu::V_MOV_B32 | alu::V_ACCVGPR_WRITE_B32 | alu::V_ACCVGPR_READ_B32 | alu::V_ACCVGPR_MOV_B32 => VMovB32,
        alu::V_READFIRSTLANE_B32 => VReadfirstlane,
        alu::V_NOT_B32 => VNotB32,
        alu::V_BFREV_B32 => VBfrevB32,
        alu::V_FFBH_U32 => VFfbhU32,
        alu::V_FFBL_B32 => VFfblB32,
        alu::V_FFBH_I32 => VFfbhI32,
        alu::V_CVT_F32_U32 => VCvtF32U32,
        alu::V_CVT_F32_I32 => VCvtF32I32,
        alu::V_CVT_U32_F32 => VCvtU32F32,
        alu::V_CVT_I32_F32 => VCvtI32F32,
        alu::V_CVT_F64_F32 => VCvtF64F32,
        alu::V_CVT_F32_F64 => VCvtF32F64,
        alu::V_CVT_I32_F64 => VCvtI32F64,
        alu::V_CVT_U32_F64 => VCvtU32F64,
        alu::V_CVT_F64_I32 => VCvtF64I32,
        alu::V_CVT_F64_U32 => VCvtF64U32,
        alu::V_CVT_F16_F32 => VCvtF16F32,
        alu::V_CVT_F32_F16 => VCvtF32F16,
        alu::V_CVT_F32_UBYTE0 => VCvtF32Ubyte0,
        alu::V_RCP_F32 | alu::V_RCP_IFLAG_F32 => VRcpF32,
        alu::V_RSQ_F32 => VRsqF32,
        alu::V_SQRT_F32 => VSqrtF32,
        alu::V_RCP_F64 => VRcpF64,
        alu::V_RSQ_F64 => VRsqF64,
        alu::V_SQRT_F64 => VSqrtF64,
        alu::V_TRUNC_F32 => VTruncF32,
        alu::V_CEIL_F32 => VCeilF32,
        alu::V_FLOOR_F32 => VFloorF32,
        alu::V_RNDNE_F32 => VRndneF32,
        alu::V_FRACT_F32 => VFractF32,
        alu::V_TRUNC_F64 => VTruncF64,
        alu::V_CEIL_F64 => VCeilF64,
        alu::V_FLOOR_F64 => VFloorF64,
        alu::V_RNDNE_F64 => VRndneF64,
        alu::V_FRACT_F64 => VFractF64,
        alu::V_EXP_F32 => VExpF32,
        alu::V_LOG_F32 => VLogF32,
        alu::V_SIN_F32 => VSinF32,
        alu::V_COS_F32 => VCosF32,
        alu::V_FREXP_MANT_F32 => VFrexpMantF32,
        alu::V_FREXP_EXP_I32_F32 => VFrexpExpF32,
        alu::V_FREXP_MANT_F64 => VFrexpMantF64,
        alu::V_FREXP_EXP_I32_F64 => VFrexpExpF64,
        // VOP2
        alu::V_ADD_U32 | alu::V_ADD_NC_U32 => VAddU32,
        alu::V_SUB_U32 | alu::V_SUB_NC_U32 => VSubU32,
        alu::V_SUBREV_U32 | alu::V_SUBREV_NC_U32 => VSubrevU32,
        alu::V_ADD_CO_U32 => VAddCoU32,
        alu::V_SUB_CO_U32 => VSubCoU32,
        alu::V_SUBREV_CO_U32 => VSubrevCoU32,
        alu::V_ADDC_CO_U32 | alu::V_ADD_CO_CI_U32 => VAddcCoU32,
        alu::V_SUBB_CO_U32 | alu::V_SUB_CO_CI_U32 => VSubbCoU32,
        alu::V_SUBBREV_CO_U32 | alu::V_SUBREV_CO_CI_U32 => VSubbrevCoU32,
        alu::V_AND_B32 => VAndB32,
        alu::V_OR_B32 => VOrB32,
        alu::V_XOR_B32 => VXorB32,
        alu::V_XNOR_B32 => VXnorB32,
        alu::V_LSHLREV_B32 => VLshlrevB32,
        alu::V_LSHRREV_B32 => VLshrrevB32,
        alu::V_ASHRREV_I32 => VAshrrevI32,
        alu::V_MIN_U32 => VMinU32,
        alu::V_MAX_U32 => VMaxU32,
        alu::V_MIN_I32 => VMinI32,
        alu::V_MAX_I32 => VMaxI32,
        alu::V_MUL_U32_U24 => VMulU32U24,
        alu::V_MUL_I32_I24 => VMulI32I24,
        alu::V_MUL_HI_U32_U24 => VMulHiU32U24,
        alu::V_CNDMASK_B32 => VCndmaskB32,
        alu::V_ADD_F32 => VAddF32,
        alu::V_SUB_F32 => VSubF32,
        alu::V_SUBREV_F32 => VSubrevF32,
        alu::V_MUL_F32 => VMulF32,
        alu::V_MIN_F32 => VMinF32,
        alu::V_MAX_F32 => VMaxF32,
        alu::V_FMAC_F32 => VFmacF32,
        alu::V_FMAMK_F32 => VFmamkF32,
        alu::V_FMAAK_F32 => VFmaakF32,
        alu::V_FMAC_F64 => VFmacF64,
        alu::V_LDEXP_F32 => VLdexpF32,
        alu::V_MUL_LO_U16 => VMulLoU16,
        alu::V_ADD_U16 | alu::V_ADD_NC_U16 => VAddU16,
        alu::V_SUB_U16 | alu::V_SUB_NC_U16 => VSubU16,
        alu::V_SUBREV_U16 => VSubrevU16,
        alu::V_ADD_I16 | alu::V_ADD_NC_I16 => VAddI16,
        alu::V_SUB_I16 | alu::V_SUB_NC_I16 => VSubI16,
        alu::V_ADD_I32 | alu::V_ADD_NC_I32 => VAddI32,
        alu::V_SUB_I32 | alu::V_SUB_NC_I32 => VSubI32,
        alu::V_LSHLREV_B16 => VLshlrevB16,
        alu::V_LSHRREV_B16 => VLshrrevB16,
        // VOP3
        alu::V_MAD_U64_U32 => VMadU64U32,
        alu::V_MAD_I64_I32 => VMadI64I32,
        alu::V_MUL_LO_U32 | alu::V_MUL_LO_I32 => VMulLoU32,
        alu::V_MUL_HI_U32 => VMulHiU32,
        alu::V_MUL_HI_I32 => VMulHiI32,
        alu::V_MAD_U32_U24 => VMadU32U24,
        alu::V_MAD_I32_I24 => VMadI32I24,
        alu::V_MAD_U16 | alu::V_MAD_LEGACY_U16 => VMadU16,
        alu::V_MAD_I16 | alu::V_MAD_LEGACY_I16 => VMadI16,
        alu::V_MAD_U32_U16 => VMadU32U16,
        alu::V_MAD_I32_I16 => VMadI32I16,
        alu::V_SAD_U8 => VSadU8,
        alu::V_SAD_HI_U8 => VSadHiU8,
        alu::V_SAD_U16 => VSadU16,
        alu::V_MSAD_U8 => VMsadU8,
        alu::V_QSAD_PK_U16_U8 => VQsadPkU16U8,
        alu::V_MQSAD_PK_U16_U8 => VMqsadPkU16U8,
        alu::V_MQSAD_U32_U8 => VMqsadU32U8,
        alu::V_LERP_U8 => VLerpU8,
        alu::V_CVT_OFF_F32_I4 => VCvtOffF32I4,
        alu::V_SAT_PK_U8_I16 => VSatPkU8I16,
        alu::V_MAD_LEGACY_F32 => VMadLegacyF32,
        alu::V_MAC_LEGACY_F32 => VMacLegacyF32,
        alu::V_FMA_LEGACY_F32 => VFmaLegacyF32,
        alu::V_FMAC_LEGACY_F32 => VFmacLegacyF32,
        alu::V_LSHLREV_B64 => VLshlrevB64,
        alu::V_LSHRREV_B64 => VLshrrevB64,
        alu::V_ASHRREV_I64 => VAshrrevI64,
        alu::V_LSHL_ADD_U32 => VLshlAddU32,
        alu::V_ADD_LSHL_U32 => VAddLshlU32,
        alu::V_LSHL_OR_B32 => VLshlOrB32,
        alu::V_AND_OR_B32 => VAndOrB32,
        alu::V_OR3_B32 => VOr3B32,
        alu::V_XOR3_B32 => VXor3B32,
        alu::V_ADD3_U32 => VAdd3U32,
        alu::V_ALIGNBIT_B32 => VAlignbitB32,
        alu::V_ALIGNBYTE_B32 => VAlignbyteB32,
        alu::V_BFE_U32 => VBfeU32,
        alu::V_BFE_I32 => VBfeI32,
        alu::V_BFI_B32 => VBfiB32,
        alu::V_BFM_B32 => VBfmB32,
        alu::V_BCNT_U32_B32 => VBcntU32,
        alu::V_MBCNT_LO_U32_B32 => VMbcntLo,
        alu::V_MBCNT_HI_U32_B32 => VMbcntHi,
        alu::V_MIN3_U32 => VMin3U32,
        alu::V_MAX3_U32 => VMax3U32,
        alu::V_MIN3_I32 => VMin3I32,
        alu::V_MAX3_I32 => VMax3I32,
        alu::V_MED3_U32 => VMed3U32,
        alu::V_MED3_I32 => VMed3I32,
        alu::V_READLANE_B32 => VReadlane,
        alu::V_WRITELANE_B32 => VWritelane,
        alu::V_FMA_F32 => VFmaF32,
        alu::V_FMA_F64 => VFmaF64,
        alu::V_ADD_F64 => VAddF64,
        alu::V_MUL_F64 => VMulF64,
        alu::V_MIN_F64 => VMinF64,
        alu::V_MAX_F64 => VMaxF64,
        alu::V_LDEXP_F64 => VLdexpF64,
        alu::V_DIV_SCALE_F32 => VDivScaleF32,
        alu::V_DIV_SCALE_F64 => VDivScaleF64,
        alu::V_DIV_FMAS_F32 => VDivFmasF32,
        alu::V_DIV_FMAS_F64 => VDivFmasF64,
        alu::V_DIV_FIXUP_F32 => VDivFixupF32,
        alu::V_DIV_FIXUP_F64 => VDivFixupF64,
        alu::V_CVT_PKRTZ_F16_F32 => VCvtPkrtz,
        alu::V_PK_ADD_U16 => VPkAddU16,
        alu::V_PK_SUB_U16 => VPkSubU16,
        alu::V_PK_ADD_I16 => VPkAddI16,
        alu::V_PK_SUB_I16 => VPkSubI16,
        alu::V_PK_MUL_LO_U16 => VPkMulLoU16,
        alu::V_PK_LSHLREV_B16 => VPkLshlrevB16,
        alu::V_PK_LSHRREV_B16 => VPkLshrrevB16,
        alu::V_PK_ASHRREV_I16 => VPkAshrrevI16,
        alu::V_PK_MAX_U16 => VPkMaxU16,
        alu::V_PK_MIN_U16 => VPkMinU16,
        alu::V_PK_MAX_I16 => VPkMaxI16,
        alu::V_PK_MIN_I16 => VPkMinI16,
        alu::V_PK_MAD_U16 => VPkMadU16,
        alu::V_PK_MAD_I16 => VPkMadI16,
        alu::V_PK_FMAC_F16 => VPkFmacF16,
        alu::V_PK_ADD_F16 => VPkAddF16,
        alu::V_PK_MUL_F16 => VPkMulF16,
        alu::V_PK_FMA_F16 => VPkFmaF16,
        alu::V_PK_MAX_F16 => VPkMaxF16,
        alu::V_PK_MIN_F16 => VPkMinF16,
        alu::V_ADD_F16 => VAddF16,
        alu::V_MOVRELS_B32 => VMovrels,
        alu::V_MOVRELD_B32 => VMovreld,
        alu::V_MOVRELSD_B32 => VMovrelsd,
        alu::V_SWAP_B32 => VSwapB32,
        alu::V_PERM_B32 => VPermB32,
        alu::V_CVT_F32_UBYTE1 => VCvtF32Ubyte1,
        alu::V_CVT_F32_UBYTE2 => VCvtF32Ubyte2,
        alu::V_CVT_F32_UBYTE3 => VCvtF32Ubyte3,
        alu::V_MAX3_F32 => VMax3F32,
        alu::V_MIN3_F32 => VMin3F32,
        alu::V_MED3_F32 => VMed3F32,
        alu::V_MUL_LEGACY_F32 => VMulLegacyF32,
        alu::V_CVT_FLR_I32_F32 => VCvtFlrI32F32,
        alu::V_CVT_RPI_I32_F32 => VCvtRpiI32F32,
        alu::V_SAD_U32 => VSadU32,
        alu::V_MUL_HI_I32_I24 => VMulHiI32I24,
        alu::V_CVT_PK_U16_U32 => VCvtPkU16U32,
        alu::V_MAX_U16 => VMaxU16,
        alu::V_MIN_U16 => VMinU16,
        alu::V_MAX_I16 => VMaxI16,
        alu::V_MIN_I16 => VMinI16,
        alu::V_ASHRREV_I16 => VAshrrevI16,
        alu::S_MOVRELS_B32 => SMovrelsB32,
        alu::S_MOVRELS_B64 => SMovrelsB64,
        alu::S_MOVRELD_B32 => SMovreldB32,
        alu::S_MOVRELD_B64 => SMovreldB64,
        alu::S_MOVRELSD_2_B32 => SMovrelsd2B32,
        alu::V_SUB_F16 => VSubF16,
        alu::V_SUBREV_F16 => VSubrevF16,
        alu::V_MUL_F16 => VMulF16,
        alu::V_MAX_F16 => VMaxF16,
        alu::V_MIN_F16 => VMinF16,
        alu::V_FMA_F16 | alu::V_FMA_LEGACY_F16 => VFmaF16,
        alu::V_FMAC_F16 => VFmacF16,
        alu::V_CVT_F16_U16 => VCvtF16U16,
        alu::V_CVT_F16_I16 => VCvtF16I16,
        alu::V_CVT_U16_F16 => VCvtU16F16,
        alu::V_CVT_I16_F16 => VCvtI16F16,
        alu::V_PK_MOV_B32 => VPkMovB32,
        alu::V_PK_ADD_F32 => VPkAddF32,
        alu::V_PK_MUL_F32 => VPkMulF32,
        alu::V_PK_FMA_F32 => VPkFmaF32,
        alu::V_XAD_U32 => VXadU32,
        alu::V_PACK_B32_F16 => VPackB32F16,
        alu::V_SQRT_F16 => VSqrtF16,
        alu::V_RCP_F16 => VRcpF16,
        alu::V_RSQ_F16 => VRsqF16,
        alu::V_EXP_F16 => VExpF16,
        alu::V_LOG_F16 => VLogF16,
        alu::V_SIN_F16 => VSinF16,
        alu::V_COS_F16 => VCosF16,
        alu::V_FRACT_F16 => VFractF16,
        alu::V_FLOOR_F16 => VFloorF16,
        alu::V_CEIL_F16 => VCeilF16,
        alu::V_TRUNC_F16 => VTruncF16,
        alu::V_RNDNE_F16 => VRndneF16,
        alu::V_FREXP_MANT_F16 => VFrexpMantF16,
        alu::V_FREXP_EXP_I16_F16 => VFrexpExpF16,
        alu::V_LDEXP_F16 => VLdexpF16,
        alu::V_DIV_FIXUP_F16 | alu::V_DIV_FIXUP_LEGACY_F16 => VDivFixupF16,
        alu::V_FMA_MIX_F32 => VFmaMixF32,
        alu::V_FMA_MIXLO_F16 => VFmaMixloF16,
        alu::V_FMA_MIXHI_F16 => VFmaMixhiF16,
        alu::V_MAD_MIX_F32 => VMadMixF32,
        alu::V_MAD_MIXLO_F16 => VMadMixloF16,
        alu::V_MAD_MIXHI_F16 => VMadMixhiF16,
        alu::V_TRIG_PREOP_F64 => VTrigPreopF64,
        alu::V_PERMLANE16_B32 => VPermlane16,
        alu::V_PERMLANEX16_B32 => VPermlanex16,
        alu::V_MAD_F32 => VMadF32,
        alu::V_MAC_F32 => VMacF32,
        alu::V_MADMK_F32 => VMadmkF32,
        alu::V_MADAK_F32 => VMadakF32,
        alu::V_MAD_F16 | alu::V_MAD_LEGACY_F16 => VMadF16,
        alu::V_MAC_F16 => VMacF16,
        alu::V_MADMK_F16 => VMadmkF16,
        alu::V_MADAK_F16 => VMadakF16,
        alu::V_FMAMK_F16 => VFmamkF16,
        alu::V_FMAAK_F16 => VFmaakF16,
        alu::V_MAX3_F16 => VMax3F16,
        alu::V_MIN3_F16 => VMin3F16,
        alu::V_MED3_F16 => VMed3F16,
        alu::V_MAX3_I16 => VMax3I16,
        alu::V_MIN3_I16 => VMin3I16,
        alu::V_MED3_I16 => VMed3I16,
        alu::V_MAX3_U16 => VMax3U16,
        alu::V_MIN3_U16 => VMin3U16,
        alu::V_MED3_U16 => VMed3U16,
        alu::V_CVT_PK_I16_I32 => VCvtPkI16I32,
        alu::V_CVT_PK_U8_F32 => VCvtPkU8F32,
        alu::V_CVT_PKACCUM_U8_F32 => VCvtPkaccumU8F32,
        alu::V_CVT_PKNORM_I16_F32 => VCvtPknormI16F32,
        alu::V_CVT_PKNORM_U16_F32 => VCvtPknormU16F32,
        alu::V_CVT_PKNORM_I16_F16 => VCvtPknormI16F16,
        alu::V_CVT_PKNORM_U16_F16 => VCvtPknormU16F16,
        alu::V_CVT_NORM_I16_F16 => VCvtNormI16F16,
        alu::V_CVT_NORM_U16_F16 => VCvtNormU16F16,
        alu::V_CUBEID_F32 => VCubeidF32,
        alu::V_CUBEMA_F32 => VCubemaF32,
        alu::V_CUBESC_F32 => VCubescF32,
        alu::V_CUBETC_F32 => VCubetcF32,
        alu::V_MOVRELSD_2_B32 => VMovrelsd2,
        alu::V_SWAPREL_B32 => VSwaprel,
        alu::V_CMP_CLASS_F16 => VCmpClassF16,
        alu::V_CMPX_CLASS_F16 => VCmpxClassF16,
        alu::S_SET_GPR_IDX_ON => SSetGprIdxOn,
        alu::S_SET_GPR_IDX_OFF => SSetGprIdxOff,
        alu::S_SET_GPR_IDX_IDX => SSetGprIdxIdx,
        alu::S_SET_GPR_IDX_MODE => SSetGprIdxMode,
        // Dot products (VOP3P; the `c` forms accumulate into their VOP2 destination)
        alu::V_DOT2_F32_F16 => VDot2F32F16,
        alu::V_DOT2_I32_I16 => VDot2I32I16,
        alu::V_DOT2_U32_U16 => VDot2U32U16,
        alu::V_DOT4_I32_I8 => VDot4I32I8,
        alu::V_DOT4_U32_U8 => VDot4U32U8,
        alu::V_DOT8_I32_I4 => VDot8I32I4,
        alu::V_DOT8_U32_U4 => VDot8U32U4,
        alu::V_DOT2C_F32_F16 => VDot2cF32F16,
        alu::V_DOT2C_I32_I16 => VDot2cI32I16,
        alu::V_DOT4C_I32_I8 => VDot4cI32I8,
        alu::V_DOT8C_I32_I4 => VDot8cI32I4,
        // Matrix fused multiply-add: the shape is resolved from the operation
        // by `mfma::Shape::of`.
        alu::V_MFMA_F32_32X32X1F32 | alu::V_MFMA_F32_16X16X1F32 | alu::V_MFMA_F32_4X4X1F32
        | alu::V_MFMA_F32_32X32X2F32 | alu::V_MFMA_F32_16X16X4F32
        | alu::V_MFMA_F32_32X32X4F16 | alu::V_MFMA_F32_16X16X4F16 | alu::V_MFMA_F32_4X4X4F16
        | alu::V_MFMA_F32_32X32X8F16 | alu::V_MFMA_F32_16X16X16F16
        | alu::V_MFMA_I32_32X32X4I8 | alu::V_MFMA_I32_16X16X4I8 | alu::V_MFMA_I32_4X4X4I8
        | alu::V_MFMA_I32_32X32X8I8 | alu::V_MFMA_I32_16X16X16I8
        | alu::V_MFMA_F32_32X32X2BF16 | alu::V_MFMA_F32_16X16X2BF16 | alu::V_MFMA_F32_4X4X2BF16
        | alu::V_MFMA_F32_32X32X4BF16 | alu::V_MFMA_F32_16X16X8BF16
        | alu::V_MFMA_F32_32X32X4BF16_1K | alu::V_MFMA_F32_16X16X4BF16_1K | alu::V_MFMA_F32_4X4X4BF16_1K
        | alu::V_MFMA_F32_32X32X8BF16_1K | alu::V_MFMA_F32_16X16X16BF16_1K
        | alu::V_MFMA_F64_16X16X4F64 | alu::V_MFMA_F64_4X4X4F64 => VMfma,
        // VOPC (and VOP3 forms)
        alu::V_CMP_CLASS_F32 => VCmpClassF32,
        alu::V_CMP_CLASS_F64 => VCmpClassF64,
        alu::V_CMPX_CLASS_F32 => VCmpxClassF32,
        alu::V_CMPX_CLASS_F64 => VCmpxClassF64,
    }
    /// A vector compare (`v_cmp_*`, `v_cmpx_*`), parsed by [`Cmp::parse`].
    VCmp(Cmp),
}

/// Operand type of a vector compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum CmpTy {
    F16,
    F32,
    F64,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

/// A vector compare: the predicate, the operand type, and whether it writes EXEC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cmp {
    /// The predicate (`lt`, `eq`, `nge`, ...), as an index into [`Cmp::PREDICATES`].
    pub pred: u8,
    /// The operand type.
    pub ty: CmpTy,
    /// `v_cmpx_*`: the result is also written to EXEC.
    pub x: bool,
}

impl Cmp {
    /// Predicates of VOPC (Vega ISA §12.8 "VOPC"; `lg` and `ne` are the same
    /// predicate on integers, `t`/`tru` are always true).
    pub const PREDICATES: [&'static str; 18] = [
        "f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq",
        "nlt", "tru", "ne", "t",
    ];

    /// Parses `v_cmp_<pred>_<type>` / `v_cmpx_<pred>_<type>`.
    pub fn parse(name: &str) -> Option<Cmp> {
        let (x, rest) = if let Some(r) = name.strip_prefix("v_cmpx_") {
            (true, r)
        } else {
            (false, name.strip_prefix("v_cmp_")?)
        };
        let (pred, ty) = rest.split_once('_')?;
        let ty = match ty {
            "f16" => CmpTy::F16,
            "f32" => CmpTy::F32,
            "f64" => CmpTy::F64,
            "i16" => CmpTy::I16,
            "u16" => CmpTy::U16,
            "i32" => CmpTy::I32,
            "u32" => CmpTy::U32,
            "i64" => CmpTy::I64,
            "u64" => CmpTy::U64,
            _ => return None,
        };
        let pred = Self::PREDICATES.iter().position(|p| *p == pred)? as u8;
        Some(Cmp { pred, ty, x })
    }

    /// Evaluates the predicate for a whole wave at once from the masks of
    /// lanes whose operands compare less, equal, greater, or unordered.
    #[inline]
    pub fn eval_masks(self, lt: u64, eq: u64, gt: u64, un: u64) -> u64 {
        match self.pred {
            0 => 0,
            15 | 17 => u64::MAX,
            1 => lt,
            2 => eq,
            3 => lt | eq,
            4 => gt,
            5 | 16 => lt | gt,
            6 => gt | eq,
            7 => !un,
            8 => un,
            9 => lt | un,
            10 => eq | un,
            11 => !gt,
            12 => gt | un,
            13 => !eq,
            14 => !lt,
            _ => 0,
        }
    }

    /// Evaluates the predicate on an ordering (`None` when unordered, i.e. a NaN).
    #[inline]
    pub fn eval(self, ord: Option<std::cmp::Ordering>) -> bool {
        use std::cmp::Ordering::*;
        match (self.pred, ord) {
            (0, _) => false,
            (15 | 17, _) => true,
            (7, o) => o.is_some(),
            (8, o) => o.is_none(),
            (1, Some(Less)) | (2, Some(Equal)) | (4, Some(Greater)) => true,
            (3, Some(Less | Equal)) | (6, Some(Greater | Equal)) => true,
            (5 | 16, Some(Less | Greater)) => true,
            (1..=6 | 16, _) => false,
            // Negated predicates are true when unordered.
            (9, o) => o != Some(Greater) && o != Some(Equal),
            (10, o) => o != Some(Less) && o != Some(Greater),
            (11, o) => o != Some(Greater),
            (12, o) => o != Some(Less) && o != Some(Equal),
            (13, o) => o != Some(Equal),
            (14, o) => o != Some(Less),
            _ => false,
        }
    }
}

kinds! {
    /// Memory operations the executor implements.
    MemKind(MemOp) {
        mem::S_LOAD_DWORD => SLoad1,
        mem::S_LOAD_DWORDX2 => SLoad2,
        mem::S_LOAD_DWORDX4 => SLoad4,
        mem::S_LOAD_DWORDX8 => SLoad8,
        mem::S_LOAD_DWORDX16 => SLoad16,
        mem::S_BUFFER_LOAD_DWORD => SBufLoad1,
        mem::S_BUFFER_LOAD_DWORDX2 => SBufLoad2,
        mem::S_BUFFER_LOAD_DWORDX4 => SBufLoad4,
        mem::S_BUFFER_LOAD_DWORDX8 => SBufLoad8,
        mem::S_BUFFER_LOAD_DWORDX16 => SBufLoad16,
        mem::S_STORE_DWORD => SStore1,
        mem::S_STORE_DWORDX2 => SStore2,
        mem::S_STORE_DWORDX4 => SStore4,
        mem::S_BUFFER_STORE_DWORD => SBufStore1,
        mem::S_BUFFER_STORE_DWORDX2 => SBufStore2,
        mem::S_BUFFER_STORE_DWORDX4 => SBufStore4,
        mem::TBUFFER_LOAD_FORMAT_X => TLoadX,
        mem::TBUFFER_LOAD_FORMAT_XY => TLoadXy,
        mem::TBUFFER_LOAD_FORMAT_XYZ => TLoadXyz,
        mem::TBUFFER_LOAD_FORMAT_XYZW => TLoadXyzw,
        mem::TBUFFER_STORE_FORMAT_X => TStoreX,
        mem::TBUFFER_STORE_FORMAT_XY => TStoreXy,
        mem::TBUFFER_STORE_FORMAT_XYZ => TStoreXyz,
        mem::TBUFFER_STORE_FORMAT_XYZW => TStoreXyzw,
        mem::BUFFER_LOAD_FORMAT_X => BLoadFmtX,
        mem::BUFFER_LOAD_FORMAT_XY => BLoadFmtXy,
        mem::BUFFER_LOAD_FORMAT_XYZ => BLoadFmtXyz,
        mem::BUFFER_LOAD_FORMAT_XYZW => BLoadFmtXyzw,
        mem::BUFFER_STORE_FORMAT_X => BStoreFmtX,
        mem::BUFFER_STORE_FORMAT_XY => BStoreFmtXy,
        mem::BUFFER_STORE_FORMAT_XYZ => BStoreFmtXyz,
        mem::BUFFER_STORE_FORMAT_XYZW => BStoreFmtXyzw,
        mem::TBUFFER_LOAD_FORMAT_D16_X | mem::BUFFER_LOAD_FORMAT_D16_X => LoadD16X,
        mem::TBUFFER_LOAD_FORMAT_D16_XY | mem::BUFFER_LOAD_FORMAT_D16_XY => LoadD16Xy,
        mem::TBUFFER_LOAD_FORMAT_D16_XYZ | mem::BUFFER_LOAD_FORMAT_D16_XYZ => LoadD16Xyz,
        mem::TBUFFER_LOAD_FORMAT_D16_XYZW | mem::BUFFER_LOAD_FORMAT_D16_XYZW => LoadD16Xyzw,
        mem::BUFFER_LOAD_FORMAT_D16_HI_X => LoadD16HiX,
        mem::TBUFFER_STORE_FORMAT_D16_X | mem::BUFFER_STORE_FORMAT_D16_X => StoreD16X,
        mem::TBUFFER_STORE_FORMAT_D16_XY | mem::BUFFER_STORE_FORMAT_D16_XY => StoreD16Xy,
        mem::TBUFFER_STORE_FORMAT_D16_XYZ | mem::BUFFER_STORE_FORMAT_D16_XYZ => StoreD16Xyz,
        mem::TBUFFER_STORE_FORMAT_D16_XYZW | mem::BUFFER_STORE_FORMAT_D16_XYZW => StoreD16Xyzw,
        mem::BUFFER_STORE_FORMAT_D16_HI_X => StoreD16HiX,
        // No cache is modelled: stores reach memory at once, so there is no dirty
        // line to discard (`s_dcache_discard*`); address translation is not
        // modelled either (`s_atc_probe*`).
        mem::S_DCACHE_INV | mem::S_DCACHE_WB | mem::S_DCACHE_INV_VOL | mem::S_DCACHE_WB_VOL | mem::S_GL1_INV | mem::S_DCACHE_DISCARD | mem::S_DCACHE_DISCARD_X2 | mem::S_ATC_PROBE | mem::S_ATC_PROBE_BUFFER => SCacheNop,
        mem::S_SCRATCH_LOAD_DWORD => SScratchLoad1,
        mem::S_SCRATCH_LOAD_DWORDX2 => SScratchLoad2,
        mem::S_SCRATCH_LOAD_DWORDX4 => SScratchLoad4,
        mem::S_SCRATCH_STORE_DWORD => SScratchStore1,
        mem::S_SCRATCH_STORE_DWORDX2 => SScratchStore2,
        mem::S_SCRATCH_STORE_DWORDX4 => SScratchStore4,
        mem::S_MEMTIME | mem::S_MEMREALTIME => SMemtime,
        mem::DS_READ_B32 => DsRead4,
        mem::DS_READ_B64 => DsRead8,
        mem::DS_READ_B96 => DsRead12,
        mem::DS_READ_B128 => DsRead16,
        mem::DS_READ_U8 => DsReadU8,
        mem::DS_READ_I8 => DsReadI8,
        mem::DS_READ_U16 => DsReadU16,
        mem::DS_READ_I16 => DsReadI16,
        mem::DS_WRITE_B8 => DsWrite1,
        mem::DS_WRITE_B16 => DsWrite2,
        mem::DS_WRITE_B32 => DsWrite4,
        mem::DS_WRITE_B64 => DsWrite8,
        mem::DS_WRITE_B96 => DsWrite12,
        mem::DS_WRITE_B128 => DsWrite16,
        mem::DS_READ2_B32 => DsRead2B32,
        mem::DS_READ2_B64 => DsRead2B64,
        mem::DS_READ2ST64_B32 => DsRead2St64B32,
        mem::DS_READ2ST64_B64 => DsRead2St64B64,
        mem::DS_WRITE2_B32 => DsWrite2B32,
        mem::DS_WRITE2_B64 => DsWrite2B64,
        mem::DS_WRITE2ST64_B32 => DsWrite2St64B32,
        mem::DS_WRITE2ST64_B64 => DsWrite2St64B64,
        mem::DS_ADD_U32 | mem::DS_ADD_RTN_U32 => DsAdd,
        mem::DS_SUB_U32 | mem::DS_SUB_RTN_U32 => DsSub,
        mem::DS_RSUB_U32 | mem::DS_RSUB_RTN_U32 => DsRsub,
        mem::DS_INC_U32 | mem::DS_INC_RTN_U32 => DsInc,
        mem::DS_DEC_U32 | mem::DS_DEC_RTN_U32 => DsDec,
        mem::DS_MIN_I32 | mem::DS_MIN_RTN_I32 => DsMinI,
        mem::DS_MAX_I32 | mem::DS_MAX_RTN_I32 => DsMaxI,
        mem::DS_MIN_U32 | mem::DS_MIN_RTN_U32 => DsMinU,
        mem::DS_MAX_U32 | mem::DS_MAX_RTN_U32 => DsMaxU,
        mem::DS_AND_B32 | mem::DS_AND_RTN_B32 => DsAnd,
        mem::DS_OR_B32 | mem::DS_OR_RTN_B32 => DsOr,
        mem::DS_XOR_B32 | mem::DS_XOR_RTN_B32 => DsXor,
        mem::DS_WRXCHG_RTN_B32 => DsSwap,
        mem::DS_CMPST_RTN_B32 | mem::DS_CMPST_B32 => DsCmpst,
        mem::DS_BPERMUTE_B32 => DsBpermute,
        mem::DS_PERMUTE_B32 => DsPermute,
        mem::DS_SWIZZLE_B32 => DsSwizzle,
        mem::DS_NOP => DsNop,
        mem::GLOBAL_LOAD_UBYTE | mem::FLAT_LOAD_UBYTE | mem::SCRATCH_LOAD_UBYTE | mem::BUFFER_LOAD_UBYTE => GLoadU8,
        mem::GLOBAL_LOAD_SBYTE | mem::FLAT_LOAD_SBYTE | mem::SCRATCH_LOAD_SBYTE | mem::BUFFER_LOAD_SBYTE => GLoadI8,
        mem::GLOBAL_LOAD_USHORT | mem::FLAT_LOAD_USHORT | mem::SCRATCH_LOAD_USHORT | mem::BUFFER_LOAD_USHORT => GLoadU16,
        mem::GLOBAL_LOAD_SSHORT | mem::FLAT_LOAD_SSHORT | mem::SCRATCH_LOAD_SSHORT | mem::BUFFER_LOAD_SSHORT => GLoadI16,
        mem::GLOBAL_LOAD_DWORD | mem::FLAT_LOAD_DWORD | mem::SCRATCH_LOAD_DWORD | mem::BUFFER_LOAD_DWORD => GLoad4,
        mem::GLOBAL_LOAD_DWORDX2 | mem::FLAT_LOAD_DWORDX2 | mem::SCRATCH_LOAD_DWORDX2 | mem::BUFFER_LOAD_DWORDX2 => GLoad8,
        mem::GLOBAL_LOAD_DWORDX3 | mem::FLAT_LOAD_DWORDX3 | mem::SCRATCH_LOAD_DWORDX3 | mem::BUFFER_LOAD_DWORDX3 => GLoad12,
        mem::GLOBAL_LOAD_DWORDX4 | mem::FLAT_LOAD_DWORDX4 | mem::SCRATCH_LOAD_DWORDX4 | mem::BUFFER_LOAD_DWORDX4 => GLoad16,
        mem::GLOBAL_STORE_BYTE | mem::FLAT_STORE_BYTE | mem::SCRATCH_STORE_BYTE | mem::BUFFER_STORE_BYTE => GStore1,
        mem::GLOBAL_STORE_SHORT | mem::FLAT_STORE_SHORT | mem::SCRATCH_STORE_SHORT | mem::BUFFER_STORE_SHORT => GStore2,
        mem::GLOBAL_STORE_DWORD | mem::FLAT_STORE_DWORD | mem::SCRATCH_STORE_DWORD | mem::BUFFER_STORE_DWORD => GStore4,
        mem::GLOBAL_STORE_DWORDX2 | mem::FLAT_STORE_DWORDX2 | mem::SCRATCH_STORE_DWORDX2 | mem::BUFFER_STORE_DWORDX2 => GStore8,
        mem::GLOBAL_STORE_DWORDX3 | mem::FLAT_STORE_DWORDX3 | mem::SCRATCH_STORE_DWORDX3 | mem::BUFFER_STORE_DWORDX3 => GStore12,
        mem::GLOBAL_STORE_DWORDX4 | mem::FLAT_STORE_DWORDX4 | mem::SCRATCH_STORE_DWORDX4 | mem::BUFFER_STORE_DWORDX4 => GStore16,
        mem::GLOBAL_LOAD_UBYTE_D16 | mem::FLAT_LOAD_UBYTE_D16 | mem::SCRATCH_LOAD_UBYTE_D16 | mem::BUFFER_LOAD_UBYTE_D16 => GLoadU8D16,
        mem::GLOBAL_LOAD_UBYTE_D16_HI | mem::FLAT_LOAD_UBYTE_D16_HI | mem::SCRATCH_LOAD_UBYTE_D16_HI | mem::BUFFER_LOAD_UBYTE_D16_HI => GLoadU8D16Hi,
        mem::GLOBAL_LOAD_SBYTE_D16 | mem::FLAT_LOAD_SBYTE_D16 | mem::SCRATCH_LOAD_SBYTE_D16 | mem::BUFFER_LOAD_SBYTE_D16 => GLoadI8D16,
        mem::GLOBAL_LOAD_SBYTE_D16_HI | mem::FLAT_LOAD_SBYTE_D16_HI | mem::SCRATCH_LOAD_SBYTE_D16_HI | mem::BUFFER_LOAD_SBYTE_D16_HI => GLoadI8D16Hi,
        mem::GLOBAL_LOAD_SHORT_D16 | mem::FLAT_LOAD_SHORT_D16 | mem::SCRATCH_LOAD_SHORT_D16 | mem::BUFFER_LOAD_SHORT_D16 => GLoadU16D16,
        mem::GLOBAL_LOAD_SHORT_D16_HI | mem::FLAT_LOAD_SHORT_D16_HI | mem::SCRATCH_LOAD_SHORT_D16_HI | mem::BUFFER_LOAD_SHORT_D16_HI => GLoadU16D16Hi,
        mem::GLOBAL_STORE_BYTE_D16_HI | mem::FLAT_STORE_BYTE_D16_HI | mem::SCRATCH_STORE_BYTE_D16_HI | mem::BUFFER_STORE_BYTE_D16_HI => GStoreB8D16Hi,
        mem::GLOBAL_STORE_SHORT_D16_HI | mem::FLAT_STORE_SHORT_D16_HI | mem::SCRATCH_STORE_SHORT_D16_HI | mem::BUFFER_STORE_SHORT_D16_HI => GStoreB16D16Hi,
        mem::BUFFER_WBINVL1 | mem::BUFFER_WBINVL1_VOL | mem::BUFFER_GL0_INV | mem::BUFFER_GL1_INV | mem::BUFFER_WBL2 | mem::BUFFER_INVL2 => BufCacheNop,
        mem::GLOBAL_ATOMIC_CSUB | mem::BUFFER_ATOMIC_CSUB => AtCsub,
        mem::DS_ADD_F32 | mem::DS_ADD_RTN_F32 => DsAddF32,
        mem::DS_ADD_F64 | mem::DS_ADD_RTN_F64 => DsAddF64,
        mem::GLOBAL_ATOMIC_ADD_F32 | mem::BUFFER_ATOMIC_ADD_F32 => AtAddF32,
        mem::GLOBAL_ATOMIC_ADD_F64 | mem::FLAT_ATOMIC_ADD_F64 | mem::BUFFER_ATOMIC_ADD_F64 => AtAddF64,
        mem::S_GET_WAVEID_IN_WORKGROUP => SGetWaveId,
        mem::GLOBAL_ATOMIC_ADD | mem::FLAT_ATOMIC_ADD | mem::BUFFER_ATOMIC_ADD | mem::S_ATOMIC_ADD | mem::S_BUFFER_ATOMIC_ADD => AtAdd,
        mem::GLOBAL_ATOMIC_SUB | mem::FLAT_ATOMIC_SUB | mem::BUFFER_ATOMIC_SUB | mem::S_ATOMIC_SUB | mem::S_BUFFER_ATOMIC_SUB => AtSub,
        mem::GLOBAL_ATOMIC_SMIN | mem::FLAT_ATOMIC_SMIN | mem::BUFFER_ATOMIC_SMIN | mem::S_ATOMIC_SMIN | mem::S_BUFFER_ATOMIC_SMIN => AtSmin,
        mem::GLOBAL_ATOMIC_UMIN | mem::FLAT_ATOMIC_UMIN | mem::BUFFER_ATOMIC_UMIN | mem::S_ATOMIC_UMIN | mem::S_BUFFER_ATOMIC_UMIN => AtUmin,
        mem::GLOBAL_ATOMIC_SMAX | mem::FLAT_ATOMIC_SMAX | mem::BUFFER_ATOMIC_SMAX | mem::S_ATOMIC_SMAX | mem::S_BUFFER_ATOMIC_SMAX => AtSmax,
        mem::GLOBAL_ATOMIC_UMAX | mem::FLAT_ATOMIC_UMAX | mem::BUFFER_ATOMIC_UMAX | mem::S_ATOMIC_UMAX | mem::S_BUFFER_ATOMIC_UMAX => AtUmax,
        mem::GLOBAL_ATOMIC_AND | mem::FLAT_ATOMIC_AND | mem::BUFFER_ATOMIC_AND | mem::S_ATOMIC_AND | mem::S_BUFFER_ATOMIC_AND => AtAnd,
        mem::GLOBAL_ATOMIC_OR | mem::FLAT_ATOMIC_OR | mem::BUFFER_ATOMIC_OR | mem::S_ATOMIC_OR | mem::S_BUFFER_ATOMIC_OR => AtOr,
        mem::GLOBAL_ATOMIC_XOR | mem::FLAT_ATOMIC_XOR | mem::BUFFER_ATOMIC_XOR | mem::S_ATOMIC_XOR | mem::S_BUFFER_ATOMIC_XOR => AtXor,
        mem::GLOBAL_ATOMIC_INC | mem::FLAT_ATOMIC_INC | mem::BUFFER_ATOMIC_INC | mem::S_ATOMIC_INC | mem::S_BUFFER_ATOMIC_INC => AtInc,
        mem::GLOBAL_ATOMIC_DEC | mem::FLAT_ATOMIC_DEC | mem::BUFFER_ATOMIC_DEC | mem::S_ATOMIC_DEC | mem::S_BUFFER_ATOMIC_DEC => AtDec,
        mem::GLOBAL_ATOMIC_SWAP | mem::FLAT_ATOMIC_SWAP | mem::BUFFER_ATOMIC_SWAP | mem::S_ATOMIC_SWAP | mem::S_BUFFER_ATOMIC_SWAP => AtSwap,
        mem::GLOBAL_ATOMIC_CMPSWAP | mem::FLAT_ATOMIC_CMPSWAP | mem::BUFFER_ATOMIC_CMPSWAP | mem::S_ATOMIC_CMPSWAP | mem::S_BUFFER_ATOMIC_CMPSWAP => AtCmpswap,
        mem::GLOBAL_ATOMIC_SUB_X2 | mem::FLAT_ATOMIC_SUB_X2 | mem::BUFFER_ATOMIC_SUB_X2 | mem::S_ATOMIC_SUB_X2 | mem::S_BUFFER_ATOMIC_SUB_X2 => AtSub64,
        mem::GLOBAL_ATOMIC_SMIN_X2 | mem::FLAT_ATOMIC_SMIN_X2 | mem::BUFFER_ATOMIC_SMIN_X2 | mem::S_ATOMIC_SMIN_X2 | mem::S_BUFFER_ATOMIC_SMIN_X2 => AtSmin64,
        mem::GLOBAL_ATOMIC_UMIN_X2 | mem::FLAT_ATOMIC_UMIN_X2 | mem::BUFFER_ATOMIC_UMIN_X2 | mem::S_ATOMIC_UMIN_X2 | mem::S_BUFFER_ATOMIC_UMIN_X2 => AtUmin64,
        mem::GLOBAL_ATOMIC_SMAX_X2 | mem::FLAT_ATOMIC_SMAX_X2 | mem::BUFFER_ATOMIC_SMAX_X2 | mem::S_ATOMIC_SMAX_X2 | mem::S_BUFFER_ATOMIC_SMAX_X2 => AtSmax64,
        mem::GLOBAL_ATOMIC_UMAX_X2 | mem::FLAT_ATOMIC_UMAX_X2 | mem::BUFFER_ATOMIC_UMAX_X2 | mem::S_ATOMIC_UMAX_X2 | mem::S_BUFFER_ATOMIC_UMAX_X2 => AtUmax64,
        mem::GLOBAL_ATOMIC_AND_X2 | mem::FLAT_ATOMIC_AND_X2 | mem::BUFFER_ATOMIC_AND_X2 | mem::S_ATOMIC_AND_X2 | mem::S_BUFFER_ATOMIC_AND_X2 => AtAnd64,
        mem::GLOBAL_ATOMIC_OR_X2 | mem::FLAT_ATOMIC_OR_X2 | mem::BUFFER_ATOMIC_OR_X2 | mem::S_ATOMIC_OR_X2 | mem::S_BUFFER_ATOMIC_OR_X2 => AtOr64,
        mem::GLOBAL_ATOMIC_XOR_X2 | mem::FLAT_ATOMIC_XOR_X2 | mem::BUFFER_ATOMIC_XOR_X2 | mem::S_ATOMIC_XOR_X2 | mem::S_BUFFER_ATOMIC_XOR_X2 => AtXor64,
        mem::GLOBAL_ATOMIC_INC_X2 | mem::FLAT_ATOMIC_INC_X2 | mem::BUFFER_ATOMIC_INC_X2 | mem::S_ATOMIC_INC_X2 | mem::S_BUFFER_ATOMIC_INC_X2 => AtInc64,
        mem::GLOBAL_ATOMIC_DEC_X2 | mem::FLAT_ATOMIC_DEC_X2 | mem::BUFFER_ATOMIC_DEC_X2 | mem::S_ATOMIC_DEC_X2 | mem::S_BUFFER_ATOMIC_DEC_X2 => AtDec64,
        mem::GLOBAL_ATOMIC_ADD_X2 | mem::FLAT_ATOMIC_ADD_X2 | mem::BUFFER_ATOMIC_ADD_X2 | mem::S_ATOMIC_ADD_X2 | mem::S_BUFFER_ATOMIC_ADD_X2 => AtAdd64,
        mem::GLOBAL_ATOMIC_SWAP_X2 | mem::FLAT_ATOMIC_SWAP_X2 | mem::BUFFER_ATOMIC_SWAP_X2 | mem::S_ATOMIC_SWAP_X2 | mem::S_BUFFER_ATOMIC_SWAP_X2 => AtSwap64,
        mem::GLOBAL_ATOMIC_CMPSWAP_X2 | mem::FLAT_ATOMIC_CMPSWAP_X2 | mem::BUFFER_ATOMIC_CMPSWAP_X2 | mem::S_ATOMIC_CMPSWAP_X2 | mem::S_BUFFER_ATOMIC_CMPSWAP_X2 => AtCmpswap64,
        mem::DS_ADD_U64 | mem::DS_ADD_RTN_U64 => DsAdd64,
        mem::DS_SUB_U64 | mem::DS_SUB_RTN_U64 => DsSub64,
        mem::DS_RSUB_U64 | mem::DS_RSUB_RTN_U64 => DsRsub64,
        mem::DS_INC_U64 | mem::DS_INC_RTN_U64 => DsInc64,
        mem::DS_DEC_U64 | mem::DS_DEC_RTN_U64 => DsDec64,
        mem::DS_MIN_I64 | mem::DS_MIN_RTN_I64 => DsMinI64,
        mem::DS_MAX_I64 | mem::DS_MAX_RTN_I64 => DsMaxI64,
        mem::DS_MIN_U64 | mem::DS_MIN_RTN_U64 => DsMinU64,
        mem::DS_MAX_U64 | mem::DS_MAX_RTN_U64 => DsMaxU64,
        mem::DS_AND_B64 | mem::DS_AND_RTN_B64 => DsAnd64,
        mem::DS_OR_B64 | mem::DS_OR_RTN_B64 => DsOr64,
        mem::DS_XOR_B64 | mem::DS_XOR_RTN_B64 => DsXor64,
        mem::DS_MSKOR_B32 | mem::DS_MSKOR_RTN_B32 => DsMskor,
        mem::DS_MSKOR_B64 | mem::DS_MSKOR_RTN_B64 => DsMskor64,
        mem::DS_CMPST_B64 | mem::DS_CMPST_RTN_B64 => DsCmpst64,
        mem::DS_WRXCHG_RTN_B64 => DsSwap64,
        mem::DS_WRXCHG2_RTN_B32 => DsWrxchg2B32,
        mem::DS_WRXCHG2_RTN_B64 => DsWrxchg2B64,
        mem::DS_WRXCHG2ST64_RTN_B32 => DsWrxchg2St64B32,
        mem::DS_WRXCHG2ST64_RTN_B64 => DsWrxchg2St64B64,
        mem::DS_MIN_F32 | mem::DS_MIN_RTN_F32 => DsMinF32,
        mem::DS_MAX_F32 | mem::DS_MAX_RTN_F32 => DsMaxF32,
        mem::DS_MIN_F64 | mem::DS_MIN_RTN_F64 => DsMinF64,
        mem::DS_MAX_F64 | mem::DS_MAX_RTN_F64 => DsMaxF64,
        mem::DS_CMPST_F32 | mem::DS_CMPST_RTN_F32 => DsCmpstF32,
        mem::DS_CMPST_F64 | mem::DS_CMPST_RTN_F64 => DsCmpstF64,
        mem::GLOBAL_ATOMIC_FMIN | mem::FLAT_ATOMIC_FMIN | mem::BUFFER_ATOMIC_FMIN => AtFminF32,
        mem::GLOBAL_ATOMIC_FMAX | mem::FLAT_ATOMIC_FMAX | mem::BUFFER_ATOMIC_FMAX => AtFmaxF32,
        mem::GLOBAL_ATOMIC_FMIN_X2 | mem::FLAT_ATOMIC_FMIN_X2 | mem::BUFFER_ATOMIC_FMIN_X2 | mem::GLOBAL_ATOMIC_MIN_F64 | mem::FLAT_ATOMIC_MIN_F64 | mem::BUFFER_ATOMIC_MIN_F64 => AtFminF64,
        mem::GLOBAL_ATOMIC_FMAX_X2 | mem::FLAT_ATOMIC_FMAX_X2 | mem::BUFFER_ATOMIC_FMAX_X2 | mem::GLOBAL_ATOMIC_MAX_F64 | mem::FLAT_ATOMIC_MAX_F64 | mem::BUFFER_ATOMIC_MAX_F64 => AtFmaxF64,
        mem::GLOBAL_ATOMIC_FCMPSWAP | mem::FLAT_ATOMIC_FCMPSWAP | mem::BUFFER_ATOMIC_FCMPSWAP => AtFcmpswapF32,
        mem::GLOBAL_ATOMIC_FCMPSWAP_X2 | mem::FLAT_ATOMIC_FCMPSWAP_X2 | mem::BUFFER_ATOMIC_FCMPSWAP_X2 => AtFcmpswapF64,
        mem::GLOBAL_ATOMIC_PK_ADD_F16 | mem::BUFFER_ATOMIC_PK_ADD_F16 => AtPkAddF16,
        mem::DS_ADD_SRC2_U32 => DsSrc2AddU32,
        mem::DS_SUB_SRC2_U32 => DsSrc2SubU32,
        mem::DS_RSUB_SRC2_U32 => DsSrc2RsubU32,
        mem::DS_INC_SRC2_U32 => DsSrc2IncU32,
        mem::DS_DEC_SRC2_U32 => DsSrc2DecU32,
        mem::DS_MIN_SRC2_I32 => DsSrc2MinI32,
        mem::DS_MAX_SRC2_I32 => DsSrc2MaxI32,
        mem::DS_MIN_SRC2_U32 => DsSrc2MinU32,
        mem::DS_MAX_SRC2_U32 => DsSrc2MaxU32,
        mem::DS_AND_SRC2_B32 => DsSrc2AndB32,
        mem::DS_OR_SRC2_B32 => DsSrc2OrB32,
        mem::DS_XOR_SRC2_B32 => DsSrc2XorB32,
        mem::DS_WRITE_SRC2_B32 => DsSrc2WriteB32,
        mem::DS_MIN_SRC2_F32 => DsSrc2MinF32,
        mem::DS_MAX_SRC2_F32 => DsSrc2MaxF32,
        mem::DS_ADD_SRC2_F32 => DsSrc2AddF32,
        mem::DS_ADD_SRC2_U64 => DsSrc2AddU64,
        mem::DS_SUB_SRC2_U64 => DsSrc2SubU64,
        mem::DS_RSUB_SRC2_U64 => DsSrc2RsubU64,
        mem::DS_INC_SRC2_U64 => DsSrc2IncU64,
        mem::DS_DEC_SRC2_U64 => DsSrc2DecU64,
        mem::DS_MIN_SRC2_I64 => DsSrc2MinI64,
        mem::DS_MAX_SRC2_I64 => DsSrc2MaxI64,
        mem::DS_MIN_SRC2_U64 => DsSrc2MinU64,
        mem::DS_MAX_SRC2_U64 => DsSrc2MaxU64,
        mem::DS_AND_SRC2_B64 => DsSrc2AndB64,
        mem::DS_OR_SRC2_B64 => DsSrc2OrB64,
        mem::DS_XOR_SRC2_B64 => DsSrc2XorB64,
        mem::DS_WRITE_SRC2_B64 => DsSrc2WriteB64,
        mem::DS_MIN_SRC2_F64 => DsSrc2MinF64,
        mem::DS_MAX_SRC2_F64 => DsSrc2MaxF64,
        mem::DS_WRAP_RTN_B32 => DsWrap,
        mem::DS_APPEND => DsAppend,
        mem::DS_CONSUME => DsConsume,
        mem::DS_READ_ADDTID_B32 => DsReadAddtid,
        mem::DS_WRITE_ADDTID_B32 => DsWriteAddtid,
        mem::GLOBAL_LOAD_DWORD_ADDTID => GLoadAddtid,
        mem::GLOBAL_STORE_DWORD_ADDTID => GStoreAddtid,
        mem::DS_READ_U8_D16 => DsReadU8D16,
        mem::DS_READ_U8_D16_HI => DsReadU8D16Hi,
        mem::DS_READ_I8_D16 => DsReadI8D16,
        mem::DS_READ_I8_D16_HI => DsReadI8D16Hi,
        mem::DS_READ_U16_D16 => DsReadU16D16,
        mem::DS_READ_U16_D16_HI => DsReadU16D16Hi,
        mem::DS_WRITE_B8_D16_HI => DsWriteB8D16Hi,
        mem::DS_WRITE_B16_D16_HI => DsWriteB16D16Hi,
    }
}

impl MemKind {
    /// For a scalar load (`s_load_dword*`, `s_buffer_load_dword*`): the dwords it
    /// loads and whether its base is a buffer descriptor. `None` for other kinds.
    pub fn scalar_load(self) -> Option<(u8, bool)> {
        use MemKind::*;
        Some(match self {
            SLoad1 => (1, false),
            SLoad2 => (2, false),
            SLoad4 => (4, false),
            SLoad8 => (8, false),
            SLoad16 => (16, false),
            SBufLoad1 => (1, true),
            SBufLoad2 => (2, true),
            SBufLoad4 => (4, true),
            SBufLoad8 => (8, true),
            SBufLoad16 => (16, true),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
