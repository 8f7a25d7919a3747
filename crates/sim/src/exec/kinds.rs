//! The operations the executor implements, named after their canonical
//! mnemonics. Each list is the single source from which both the enum and
//! its name lookup are generated.

macro_rules! kinds {
    ($(#[$m:meta])* $ty:ident { $($($name:literal)|+ => $v:ident,)* } $($extra:tt)*) => {
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
            /// Every mnemonic in the list.
            pub const NAMES: &'static [&'static str] = &[$($($name,)+)*];

            /// The kind implementing the operation with canonical mnemonic `name`.
            pub fn from_name(name: &str) -> Option<$ty> {
                Some(match name {
                    $($($name)|+ => $ty::$v,)*
                    _ => return None,
                })
            }
        }
    };
}

kinds! {
    /// ALU operations (SOP*, VOP*) the executor implements.
    Kind {
        // SOPP
        "s_nop" => SNop,
        "s_endpgm" => SEndpgm,
        "s_code_end" => SCodeEnd,
        "s_branch" => SBranch,
        "s_cbranch_scc0" => SCbranchScc0,
        "s_cbranch_scc1" => SCbranchScc1,
        "s_cbranch_vccz" => SCbranchVccz,
        "s_cbranch_vccnz" => SCbranchVccnz,
        "s_cbranch_execz" => SCbranchExecz,
        "s_cbranch_execnz" => SCbranchExecnz,
        "s_barrier" => SBarrier,
        "s_waitcnt" | "s_waitcnt_vscnt" | "s_waitcnt_vmcnt" | "s_waitcnt_expcnt" | "s_waitcnt_lgkmcnt" | "s_waitcnt_depctr" | "s_clause" | "s_inst_prefetch" | "s_sleep" | "s_setprio" | "s_icache_inv" | "s_ttracedata" | "s_ttracedata_imm" | "s_incperflevel" | "s_decperflevel" | "s_wakeup" | "s_wait_idle" | "s_version" => SWait,
        // The debugger flags these test are never set (no trap handler or host debugger sets them).
        "s_cbranch_cdbgsys" | "s_cbranch_cdbguser" | "s_cbranch_cdbgsys_or_user" | "s_cbranch_cdbgsys_and_user" => SCbranchCdbg,
        "s_round_mode" => SRoundMode,
        "s_denorm_mode" => SDenormMode,
        "s_sethalt" => SSethalt,
        "s_trap" => STrap,
        // SOP1
        "s_mov_b32" => SMovB32,
        "s_mov_b64" => SMovB64,
        "s_cmov_b32" => SCmovB32,
        "s_cmov_b64" => SCmovB64,
        "s_not_b32" => SNotB32,
        "s_not_b64" => SNotB64,
        "s_brev_b32" => SBrevB32,
        "s_brev_b64" => SBrevB64,
        "s_bcnt0_i32_b32" => SBcnt0B32,
        "s_bcnt0_i32_b64" => SBcnt0B64,
        "s_bcnt1_i32_b32" => SBcnt1B32,
        "s_bcnt1_i32_b64" => SBcnt1B64,
        "s_ff0_i32_b32" => SFf0B32,
        "s_ff0_i32_b64" => SFf0B64,
        "s_ff1_i32_b32" => SFf1B32,
        "s_ff1_i32_b64" => SFf1B64,
        "s_flbit_i32_b32" => SFlbitB32,
        "s_flbit_i32_b64" => SFlbitB64,
        "s_flbit_i32" => SFlbitI32,
        "s_flbit_i32_i64" => SFlbitI64,
        "s_sext_i32_i8" => SSextI8,
        "s_sext_i32_i16" => SSextI16,
        "s_abs_i32" => SAbsI32,
        "s_bitset0_b32" => SBitset0B32,
        "s_bitset1_b32" => SBitset1B32,
        "s_bitset0_b64" => SBitset0B64,
        "s_bitset1_b64" => SBitset1B64,
        "s_quadmask_b32" => SQuadmaskB32,
        "s_quadmask_b64" => SQuadmaskB64,
        "s_wqm_b32" => SWqmB32,
        "s_wqm_b64" => SWqmB64,
        "s_bitreplicate_b64_b32" => SBitreplicate,
        "s_getpc_b64" => SGetpc,
        "s_setpc_b64" => SSetpc,
        "s_swappc_b64" => SSwappc,
        "s_and_saveexec_b32" | "s_and_saveexec_b64" => SAndSaveexec,
        "s_or_saveexec_b32" | "s_or_saveexec_b64" => SOrSaveexec,
        "s_xor_saveexec_b32" | "s_xor_saveexec_b64" => SXorSaveexec,
        "s_andn2_saveexec_b32" | "s_andn2_saveexec_b64" => SAndn2Saveexec,
        "s_orn2_saveexec_b32" | "s_orn2_saveexec_b64" => SOrn2Saveexec,
        "s_nand_saveexec_b32" | "s_nand_saveexec_b64" => SNandSaveexec,
        "s_nor_saveexec_b32" | "s_nor_saveexec_b64" => SNorSaveexec,
        "s_xnor_saveexec_b32" | "s_xnor_saveexec_b64" => SXnorSaveexec,
        "s_andn1_saveexec_b32" | "s_andn1_saveexec_b64" => SAndn1Saveexec,
        "s_orn1_saveexec_b32" | "s_orn1_saveexec_b64" => SOrn1Saveexec,
        "s_andn1_wrexec_b32" | "s_andn1_wrexec_b64" => SAndn1Wrexec,
        "s_andn2_wrexec_b32" | "s_andn2_wrexec_b64" => SAndn2Wrexec,
        // SOP2
        "s_add_u32" => SAddU32,
        "s_sub_u32" => SSubU32,
        "s_add_i32" => SAddI32,
        "s_sub_i32" => SSubI32,
        "s_addc_u32" => SAddcU32,
        "s_subb_u32" => SSubbU32,
        "s_min_i32" => SMinI32,
        "s_min_u32" => SMinU32,
        "s_max_i32" => SMaxI32,
        "s_max_u32" => SMaxU32,
        "s_cselect_b32" => SCselectB32,
        "s_cselect_b64" => SCselectB64,
        "s_and_b32" => SAndB32,
        "s_and_b64" => SAndB64,
        "s_or_b32" => SOrB32,
        "s_or_b64" => SOrB64,
        "s_xor_b32" => SXorB32,
        "s_xor_b64" => SXorB64,
        "s_andn2_b32" => SAndn2B32,
        "s_andn2_b64" => SAndn2B64,
        "s_orn2_b32" => SOrn2B32,
        "s_orn2_b64" => SOrn2B64,
        "s_nand_b32" => SNandB32,
        "s_nand_b64" => SNandB64,
        "s_nor_b32" => SNorB32,
        "s_nor_b64" => SNorB64,
        "s_xnor_b32" => SXnorB32,
        "s_xnor_b64" => SXnorB64,
        "s_lshl_b32" => SLshlB32,
        "s_lshl_b64" => SLshlB64,
        "s_lshr_b32" => SLshrB32,
        "s_lshr_b64" => SLshrB64,
        "s_ashr_i32" => SAshrI32,
        "s_ashr_i64" => SAshrI64,
        "s_bfm_b32" => SBfmB32,
        "s_bfm_b64" => SBfmB64,
        "s_mul_i32" => SMulI32,
        "s_mul_hi_u32" => SMulHiU32,
        "s_mul_hi_i32" => SMulHiI32,
        "s_bfe_u32" => SBfeU32,
        "s_bfe_i32" => SBfeI32,
        "s_bfe_u64" => SBfeU64,
        "s_bfe_i64" => SBfeI64,
        "s_absdiff_i32" => SAbsdiffI32,
        "s_lshl1_add_u32" => SLshl1Add,
        "s_lshl2_add_u32" => SLshl2Add,
        "s_lshl3_add_u32" => SLshl3Add,
        "s_lshl4_add_u32" => SLshl4Add,
        "s_pack_ll_b32_b16" => SPackLl,
        "s_pack_lh_b32_b16" => SPackLh,
        "s_pack_hh_b32_b16" => SPackHh,
        // SOPC
        "s_cmp_eq_i32" | "s_cmp_eq_u32" => SCmpEqU32,
        "s_cmp_lg_i32" | "s_cmp_lg_u32" => SCmpLgU32,
        "s_cmp_gt_i32" => SCmpGtI32,
        "s_cmp_ge_i32" => SCmpGeI32,
        "s_cmp_lt_i32" => SCmpLtI32,
        "s_cmp_le_i32" => SCmpLeI32,
        "s_cmp_gt_u32" => SCmpGtU32,
        "s_cmp_ge_u32" => SCmpGeU32,
        "s_cmp_lt_u32" => SCmpLtU32,
        "s_cmp_le_u32" => SCmpLeU32,
        "s_cmp_eq_u64" => SCmpEqU64,
        "s_cmp_lg_u64" => SCmpLgU64,
        "s_bitcmp0_b32" => SBitcmp0B32,
        "s_bitcmp1_b32" => SBitcmp1B32,
        "s_bitcmp0_b64" => SBitcmp0B64,
        "s_bitcmp1_b64" => SBitcmp1B64,
        // SOPK
        "s_movk_i32" => SMovkI32,
        "s_cmovk_i32" => SCmovkI32,
        "s_addk_i32" => SAddkI32,
        "s_mulk_i32" => SMulkI32,
        "s_cmpk_eq_i32" => SCmpkEqI32,
        "s_cmpk_lg_i32" => SCmpkLgI32,
        "s_cmpk_gt_i32" => SCmpkGtI32,
        "s_cmpk_ge_i32" => SCmpkGeI32,
        "s_cmpk_lt_i32" => SCmpkLtI32,
        "s_cmpk_le_i32" => SCmpkLeI32,
        "s_cmpk_eq_u32" => SCmpkEqU32,
        "s_cmpk_lg_u32" => SCmpkLgU32,
        "s_cmpk_gt_u32" => SCmpkGtU32,
        "s_cmpk_ge_u32" => SCmpkGeU32,
        "s_cmpk_lt_u32" => SCmpkLtU32,
        "s_cmpk_le_u32" => SCmpkLeU32,
        "s_getreg_b32" => SGetreg,
        "s_setreg_b32" => SSetreg,
        "s_setreg_imm32_b32" => SSetregImm,
        "s_call_b64" => SCall,
        // VOP1
        // No architectural effect here: exceptions are not recorded, the pipeline is in order.
        "v_nop" | "v_clrexcp" | "v_pipeflush" => VNop,
        "v_mov_b32" | "v_accvgpr_write_b32" | "v_accvgpr_read_b32" | "v_accvgpr_mov_b32" => VMovB32,
        "v_readfirstlane_b32" => VReadfirstlane,
        "v_not_b32" => VNotB32,
        "v_bfrev_b32" => VBfrevB32,
        "v_ffbh_u32" => VFfbhU32,
        "v_ffbl_b32" => VFfblB32,
        "v_ffbh_i32" => VFfbhI32,
        "v_cvt_f32_u32" => VCvtF32U32,
        "v_cvt_f32_i32" => VCvtF32I32,
        "v_cvt_u32_f32" => VCvtU32F32,
        "v_cvt_i32_f32" => VCvtI32F32,
        "v_cvt_f64_f32" => VCvtF64F32,
        "v_cvt_f32_f64" => VCvtF32F64,
        "v_cvt_i32_f64" => VCvtI32F64,
        "v_cvt_u32_f64" => VCvtU32F64,
        "v_cvt_f64_i32" => VCvtF64I32,
        "v_cvt_f64_u32" => VCvtF64U32,
        "v_cvt_f16_f32" => VCvtF16F32,
        "v_cvt_f32_f16" => VCvtF32F16,
        "v_cvt_f32_ubyte0" => VCvtF32Ubyte0,
        "v_rcp_f32" | "v_rcp_iflag_f32" => VRcpF32,
        "v_rsq_f32" => VRsqF32,
        "v_sqrt_f32" => VSqrtF32,
        "v_rcp_f64" => VRcpF64,
        "v_rsq_f64" => VRsqF64,
        "v_sqrt_f64" => VSqrtF64,
        "v_trunc_f32" => VTruncF32,
        "v_ceil_f32" => VCeilF32,
        "v_floor_f32" => VFloorF32,
        "v_rndne_f32" => VRndneF32,
        "v_fract_f32" => VFractF32,
        "v_trunc_f64" => VTruncF64,
        "v_ceil_f64" => VCeilF64,
        "v_floor_f64" => VFloorF64,
        "v_rndne_f64" => VRndneF64,
        "v_fract_f64" => VFractF64,
        "v_exp_f32" => VExpF32,
        "v_log_f32" => VLogF32,
        "v_sin_f32" => VSinF32,
        "v_cos_f32" => VCosF32,
        "v_frexp_mant_f32" => VFrexpMantF32,
        "v_frexp_exp_i32_f32" => VFrexpExpF32,
        "v_frexp_mant_f64" => VFrexpMantF64,
        "v_frexp_exp_i32_f64" => VFrexpExpF64,
        // VOP2
        "v_add_u32" | "v_add_nc_u32" => VAddU32,
        "v_sub_u32" | "v_sub_nc_u32" => VSubU32,
        "v_subrev_u32" | "v_subrev_nc_u32" => VSubrevU32,
        "v_add_co_u32" => VAddCoU32,
        "v_sub_co_u32" => VSubCoU32,
        "v_subrev_co_u32" => VSubrevCoU32,
        "v_addc_co_u32" | "v_add_co_ci_u32" => VAddcCoU32,
        "v_subb_co_u32" | "v_sub_co_ci_u32" => VSubbCoU32,
        "v_subbrev_co_u32" | "v_subrev_co_ci_u32" => VSubbrevCoU32,
        "v_and_b32" => VAndB32,
        "v_or_b32" => VOrB32,
        "v_xor_b32" => VXorB32,
        "v_xnor_b32" => VXnorB32,
        "v_lshlrev_b32" => VLshlrevB32,
        "v_lshrrev_b32" => VLshrrevB32,
        "v_ashrrev_i32" => VAshrrevI32,
        "v_min_u32" => VMinU32,
        "v_max_u32" => VMaxU32,
        "v_min_i32" => VMinI32,
        "v_max_i32" => VMaxI32,
        "v_mul_u32_u24" => VMulU32U24,
        "v_mul_i32_i24" => VMulI32I24,
        "v_mul_hi_u32_u24" => VMulHiU32U24,
        "v_cndmask_b32" => VCndmaskB32,
        "v_add_f32" => VAddF32,
        "v_sub_f32" => VSubF32,
        "v_subrev_f32" => VSubrevF32,
        "v_mul_f32" => VMulF32,
        "v_min_f32" => VMinF32,
        "v_max_f32" => VMaxF32,
        "v_fmac_f32" => VFmacF32,
        "v_fmamk_f32" => VFmamkF32,
        "v_fmaak_f32" => VFmaakF32,
        "v_fmac_f64" => VFmacF64,
        "v_ldexp_f32" => VLdexpF32,
        "v_mul_lo_u16" => VMulLoU16,
        "v_add_u16" | "v_add_nc_u16" => VAddU16,
        "v_sub_u16" | "v_sub_nc_u16" => VSubU16,
        "v_subrev_u16" => VSubrevU16,
        "v_add_i16" | "v_add_nc_i16" => VAddI16,
        "v_sub_i16" | "v_sub_nc_i16" => VSubI16,
        "v_add_i32" | "v_add_nc_i32" => VAddI32,
        "v_sub_i32" | "v_sub_nc_i32" => VSubI32,
        "v_lshlrev_b16" => VLshlrevB16,
        "v_lshrrev_b16" => VLshrrevB16,
        // VOP3
        "v_mad_u64_u32" => VMadU64U32,
        "v_mad_i64_i32" => VMadI64I32,
        "v_mul_lo_u32" | "v_mul_lo_i32" => VMulLoU32,
        "v_mul_hi_u32" => VMulHiU32,
        "v_mul_hi_i32" => VMulHiI32,
        "v_mad_u32_u24" => VMadU32U24,
        "v_mad_i32_i24" => VMadI32I24,
        "v_mad_u16" | "v_mad_legacy_u16" => VMadU16,
        "v_mad_i16" | "v_mad_legacy_i16" => VMadI16,
        "v_mad_u32_u16" => VMadU32U16,
        "v_mad_i32_i16" => VMadI32I16,
        "v_sad_u8" => VSadU8,
        "v_sad_hi_u8" => VSadHiU8,
        "v_sad_u16" => VSadU16,
        "v_msad_u8" => VMsadU8,
        "v_qsad_pk_u16_u8" => VQsadPkU16U8,
        "v_mqsad_pk_u16_u8" => VMqsadPkU16U8,
        "v_mqsad_u32_u8" => VMqsadU32U8,
        "v_lerp_u8" => VLerpU8,
        "v_cvt_off_f32_i4" => VCvtOffF32I4,
        "v_sat_pk_u8_i16" => VSatPkU8I16,
        "v_mad_legacy_f32" => VMadLegacyF32,
        "v_mac_legacy_f32" => VMacLegacyF32,
        "v_fma_legacy_f32" => VFmaLegacyF32,
        "v_fmac_legacy_f32" => VFmacLegacyF32,
        "v_lshlrev_b64" => VLshlrevB64,
        "v_lshrrev_b64" => VLshrrevB64,
        "v_ashrrev_i64" => VAshrrevI64,
        "v_lshl_add_u32" => VLshlAddU32,
        "v_add_lshl_u32" => VAddLshlU32,
        "v_lshl_or_b32" => VLshlOrB32,
        "v_and_or_b32" => VAndOrB32,
        "v_or3_b32" => VOr3B32,
        "v_xor3_b32" => VXor3B32,
        "v_add3_u32" => VAdd3U32,
        "v_alignbit_b32" => VAlignbitB32,
        "v_alignbyte_b32" => VAlignbyteB32,
        "v_bfe_u32" => VBfeU32,
        "v_bfe_i32" => VBfeI32,
        "v_bfi_b32" => VBfiB32,
        "v_bfm_b32" => VBfmB32,
        "v_bcnt_u32_b32" => VBcntU32,
        "v_mbcnt_lo_u32_b32" => VMbcntLo,
        "v_mbcnt_hi_u32_b32" => VMbcntHi,
        "v_min3_u32" => VMin3U32,
        "v_max3_u32" => VMax3U32,
        "v_min3_i32" => VMin3I32,
        "v_max3_i32" => VMax3I32,
        "v_med3_u32" => VMed3U32,
        "v_med3_i32" => VMed3I32,
        "v_readlane_b32" => VReadlane,
        "v_writelane_b32" => VWritelane,
        "v_fma_f32" => VFmaF32,
        "v_fma_f64" => VFmaF64,
        "v_add_f64" => VAddF64,
        "v_mul_f64" => VMulF64,
        "v_min_f64" => VMinF64,
        "v_max_f64" => VMaxF64,
        "v_ldexp_f64" => VLdexpF64,
        "v_div_scale_f32" => VDivScaleF32,
        "v_div_scale_f64" => VDivScaleF64,
        "v_div_fmas_f32" => VDivFmasF32,
        "v_div_fmas_f64" => VDivFmasF64,
        "v_div_fixup_f32" => VDivFixupF32,
        "v_div_fixup_f64" => VDivFixupF64,
        "v_cvt_pkrtz_f16_f32" => VCvtPkrtz,
        "v_pk_add_u16" => VPkAddU16,
        "v_pk_sub_u16" => VPkSubU16,
        "v_pk_add_i16" => VPkAddI16,
        "v_pk_sub_i16" => VPkSubI16,
        "v_pk_mul_lo_u16" => VPkMulLoU16,
        "v_pk_lshlrev_b16" => VPkLshlrevB16,
        "v_pk_lshrrev_b16" => VPkLshrrevB16,
        "v_pk_ashrrev_i16" => VPkAshrrevI16,
        "v_pk_max_u16" => VPkMaxU16,
        "v_pk_min_u16" => VPkMinU16,
        "v_pk_max_i16" => VPkMaxI16,
        "v_pk_min_i16" => VPkMinI16,
        "v_pk_mad_u16" => VPkMadU16,
        "v_pk_mad_i16" => VPkMadI16,
        "v_pk_fmac_f16" => VPkFmacF16,
        "v_pk_add_f16" => VPkAddF16,
        "v_pk_mul_f16" => VPkMulF16,
        "v_pk_fma_f16" => VPkFmaF16,
        "v_pk_max_f16" => VPkMaxF16,
        "v_pk_min_f16" => VPkMinF16,
        "v_add_f16" => VAddF16,
        "v_movrels_b32" => VMovrels,
        "v_movreld_b32" => VMovreld,
        "v_movrelsd_b32" => VMovrelsd,
        "v_swap_b32" => VSwapB32,
        "v_perm_b32" => VPermB32,
        "v_cvt_f32_ubyte1" => VCvtF32Ubyte1,
        "v_cvt_f32_ubyte2" => VCvtF32Ubyte2,
        "v_cvt_f32_ubyte3" => VCvtF32Ubyte3,
        "v_max3_f32" => VMax3F32,
        "v_min3_f32" => VMin3F32,
        "v_med3_f32" => VMed3F32,
        "v_mul_legacy_f32" => VMulLegacyF32,
        "v_cvt_flr_i32_f32" => VCvtFlrI32F32,
        "v_cvt_rpi_i32_f32" => VCvtRpiI32F32,
        "v_sad_u32" => VSadU32,
        "v_mul_hi_i32_i24" => VMulHiI32I24,
        "v_cvt_pk_u16_u32" => VCvtPkU16U32,
        "v_max_u16" => VMaxU16,
        "v_min_u16" => VMinU16,
        "v_max_i16" => VMaxI16,
        "v_min_i16" => VMinI16,
        "v_ashrrev_i16" => VAshrrevI16,
        "s_movrels_b32" => SMovrelsB32,
        "s_movrels_b64" => SMovrelsB64,
        "s_movreld_b32" => SMovreldB32,
        "s_movreld_b64" => SMovreldB64,
        "v_sub_f16" => VSubF16,
        "v_subrev_f16" => VSubrevF16,
        "v_mul_f16" => VMulF16,
        "v_max_f16" => VMaxF16,
        "v_min_f16" => VMinF16,
        "v_fma_f16" | "v_fma_legacy_f16" => VFmaF16,
        "v_fmac_f16" => VFmacF16,
        "v_cvt_f16_u16" => VCvtF16U16,
        "v_cvt_f16_i16" => VCvtF16I16,
        "v_cvt_u16_f16" => VCvtU16F16,
        "v_cvt_i16_f16" => VCvtI16F16,
        "v_pk_mov_b32" => VPkMovB32,
        "v_pk_add_f32" => VPkAddF32,
        "v_pk_mul_f32" => VPkMulF32,
        "v_pk_fma_f32" => VPkFmaF32,
        "v_xad_u32" => VXadU32,
        "v_pack_b32_f16" => VPackB32F16,
        "v_sqrt_f16" => VSqrtF16,
        "v_rcp_f16" => VRcpF16,
        "v_rsq_f16" => VRsqF16,
        "v_exp_f16" => VExpF16,
        "v_log_f16" => VLogF16,
        "v_sin_f16" => VSinF16,
        "v_cos_f16" => VCosF16,
        "v_fract_f16" => VFractF16,
        "v_floor_f16" => VFloorF16,
        "v_ceil_f16" => VCeilF16,
        "v_trunc_f16" => VTruncF16,
        "v_rndne_f16" => VRndneF16,
        "v_frexp_mant_f16" => VFrexpMantF16,
        "v_frexp_exp_i16_f16" => VFrexpExpF16,
        "v_ldexp_f16" => VLdexpF16,
        "v_div_fixup_f16" | "v_div_fixup_legacy_f16" => VDivFixupF16,
        "v_fma_mix_f32" => VFmaMixF32,
        "v_fma_mixlo_f16" => VFmaMixloF16,
        "v_fma_mixhi_f16" => VFmaMixhiF16,
        "v_mad_mix_f32" => VMadMixF32,
        "v_mad_mixlo_f16" => VMadMixloF16,
        "v_mad_mixhi_f16" => VMadMixhiF16,
        "v_trig_preop_f64" => VTrigPreopF64,
        "v_permlane16_b32" => VPermlane16,
        "v_permlanex16_b32" => VPermlanex16,
        "v_mad_f32" => VMadF32,
        "v_mac_f32" => VMacF32,
        "v_madmk_f32" => VMadmkF32,
        "v_madak_f32" => VMadakF32,
        "v_mad_f16" | "v_mad_legacy_f16" => VMadF16,
        "v_mac_f16" => VMacF16,
        "v_madmk_f16" => VMadmkF16,
        "v_madak_f16" => VMadakF16,
        "v_fmamk_f16" => VFmamkF16,
        "v_fmaak_f16" => VFmaakF16,
        "v_max3_f16" => VMax3F16,
        "v_min3_f16" => VMin3F16,
        "v_med3_f16" => VMed3F16,
        "v_max3_i16" => VMax3I16,
        "v_min3_i16" => VMin3I16,
        "v_med3_i16" => VMed3I16,
        "v_max3_u16" => VMax3U16,
        "v_min3_u16" => VMin3U16,
        "v_med3_u16" => VMed3U16,
        "v_cmp_class_f16" => VCmpClassF16,
        "v_cmpx_class_f16" => VCmpxClassF16,
        "s_set_gpr_idx_on" => SSetGprIdxOn,
        "s_set_gpr_idx_off" => SSetGprIdxOff,
        "s_set_gpr_idx_idx" => SSetGprIdxIdx,
        "s_set_gpr_idx_mode" => SSetGprIdxMode,
        // Dot products (VOP3P; the `c` forms accumulate into their VOP2 destination)
        "v_dot2_f32_f16" => VDot2F32F16,
        "v_dot2_i32_i16" => VDot2I32I16,
        "v_dot2_u32_u16" => VDot2U32U16,
        "v_dot4_i32_i8" => VDot4I32I8,
        "v_dot4_u32_u8" => VDot4U32U8,
        "v_dot8_i32_i4" => VDot8I32I4,
        "v_dot8_u32_u4" => VDot8U32U4,
        "v_dot2c_f32_f16" => VDot2cF32F16,
        "v_dot2c_i32_i16" => VDot2cI32I16,
        "v_dot4c_i32_i8" => VDot4cI32I8,
        "v_dot8c_i32_i4" => VDot8cI32I4,
        // Matrix fused multiply-add: the shape is resolved from the operation
        // by `mfma::Shape::of`.
        "v_mfma_f32_32x32x1f32" | "v_mfma_f32_16x16x1f32" | "v_mfma_f32_4x4x1f32"
        | "v_mfma_f32_32x32x2f32" | "v_mfma_f32_16x16x4f32"
        | "v_mfma_f32_32x32x4f16" | "v_mfma_f32_16x16x4f16" | "v_mfma_f32_4x4x4f16"
        | "v_mfma_f32_32x32x8f16" | "v_mfma_f32_16x16x16f16"
        | "v_mfma_i32_32x32x4i8" | "v_mfma_i32_16x16x4i8" | "v_mfma_i32_4x4x4i8"
        | "v_mfma_i32_32x32x8i8" | "v_mfma_i32_16x16x16i8"
        | "v_mfma_f32_32x32x2bf16" | "v_mfma_f32_16x16x2bf16" | "v_mfma_f32_4x4x2bf16"
        | "v_mfma_f32_32x32x4bf16" | "v_mfma_f32_16x16x8bf16"
        | "v_mfma_f32_32x32x4bf16_1k" | "v_mfma_f32_16x16x4bf16_1k" | "v_mfma_f32_4x4x4bf16_1k"
        | "v_mfma_f32_32x32x8bf16_1k" | "v_mfma_f32_16x16x16bf16_1k"
        | "v_mfma_f64_16x16x4f64" | "v_mfma_f64_4x4x4f64" => VMfma,
        // VOPC (and VOP3 forms)
        "v_cmp_class_f32" => VCmpClassF32,
        "v_cmp_class_f64" => VCmpClassF64,
        "v_cmpx_class_f32" => VCmpxClassF32,
        "v_cmpx_class_f64" => VCmpxClassF64,
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
    MemKind {
        "s_load_dword" => SLoad1,
        "s_load_dwordx2" => SLoad2,
        "s_load_dwordx4" => SLoad4,
        "s_load_dwordx8" => SLoad8,
        "s_load_dwordx16" => SLoad16,
        "s_buffer_load_dword" => SBufLoad1,
        "s_buffer_load_dwordx2" => SBufLoad2,
        "s_buffer_load_dwordx4" => SBufLoad4,
        "s_buffer_load_dwordx8" => SBufLoad8,
        "s_buffer_load_dwordx16" => SBufLoad16,
        "s_store_dword" => SStore1,
        "s_store_dwordx2" => SStore2,
        "s_store_dwordx4" => SStore4,
        "s_buffer_store_dword" => SBufStore1,
        "s_buffer_store_dwordx2" => SBufStore2,
        "s_buffer_store_dwordx4" => SBufStore4,
        "tbuffer_load_format_x" => TLoadX,
        "tbuffer_load_format_xy" => TLoadXy,
        "tbuffer_load_format_xyz" => TLoadXyz,
        "tbuffer_load_format_xyzw" => TLoadXyzw,
        "tbuffer_store_format_x" => TStoreX,
        "tbuffer_store_format_xy" => TStoreXy,
        "tbuffer_store_format_xyz" => TStoreXyz,
        "tbuffer_store_format_xyzw" => TStoreXyzw,
        "buffer_load_format_x" => BLoadFmtX,
        "buffer_load_format_xy" => BLoadFmtXy,
        "buffer_load_format_xyz" => BLoadFmtXyz,
        "buffer_load_format_xyzw" => BLoadFmtXyzw,
        "buffer_store_format_x" => BStoreFmtX,
        "buffer_store_format_xy" => BStoreFmtXy,
        "buffer_store_format_xyz" => BStoreFmtXyz,
        "buffer_store_format_xyzw" => BStoreFmtXyzw,
        "s_dcache_inv" | "s_dcache_wb" | "s_dcache_inv_vol" | "s_dcache_wb_vol" | "s_gl1_inv" => SCacheNop,
        "s_memtime" | "s_memrealtime" => SMemtime,
        "ds_read_b32" => DsRead4,
        "ds_read_b64" => DsRead8,
        "ds_read_b96" => DsRead12,
        "ds_read_b128" => DsRead16,
        "ds_read_u8" => DsReadU8,
        "ds_read_i8" => DsReadI8,
        "ds_read_u16" => DsReadU16,
        "ds_read_i16" => DsReadI16,
        "ds_write_b8" => DsWrite1,
        "ds_write_b16" => DsWrite2,
        "ds_write_b32" => DsWrite4,
        "ds_write_b64" => DsWrite8,
        "ds_write_b96" => DsWrite12,
        "ds_write_b128" => DsWrite16,
        "ds_read2_b32" => DsRead2B32,
        "ds_read2_b64" => DsRead2B64,
        "ds_read2st64_b32" => DsRead2St64B32,
        "ds_read2st64_b64" => DsRead2St64B64,
        "ds_write2_b32" => DsWrite2B32,
        "ds_write2_b64" => DsWrite2B64,
        "ds_write2st64_b32" => DsWrite2St64B32,
        "ds_write2st64_b64" => DsWrite2St64B64,
        "ds_add_u32" | "ds_add_rtn_u32" => DsAdd,
        "ds_sub_u32" | "ds_sub_rtn_u32" => DsSub,
        "ds_rsub_u32" | "ds_rsub_rtn_u32" => DsRsub,
        "ds_inc_u32" | "ds_inc_rtn_u32" => DsInc,
        "ds_dec_u32" | "ds_dec_rtn_u32" => DsDec,
        "ds_min_i32" | "ds_min_rtn_i32" => DsMinI,
        "ds_max_i32" | "ds_max_rtn_i32" => DsMaxI,
        "ds_min_u32" | "ds_min_rtn_u32" => DsMinU,
        "ds_max_u32" | "ds_max_rtn_u32" => DsMaxU,
        "ds_and_b32" | "ds_and_rtn_b32" => DsAnd,
        "ds_or_b32" | "ds_or_rtn_b32" => DsOr,
        "ds_xor_b32" | "ds_xor_rtn_b32" => DsXor,
        "ds_wrxchg_rtn_b32" => DsSwap,
        "ds_cmpst_rtn_b32" | "ds_cmpst_b32" => DsCmpst,
        "ds_bpermute_b32" => DsBpermute,
        "ds_permute_b32" => DsPermute,
        "ds_swizzle_b32" => DsSwizzle,
        "ds_nop" => DsNop,
        "global_load_ubyte" | "flat_load_ubyte" | "scratch_load_ubyte" | "buffer_load_ubyte" => GLoadU8,
        "global_load_sbyte" | "flat_load_sbyte" | "scratch_load_sbyte" | "buffer_load_sbyte" => GLoadI8,
        "global_load_ushort" | "flat_load_ushort" | "scratch_load_ushort" | "buffer_load_ushort" => GLoadU16,
        "global_load_sshort" | "flat_load_sshort" | "scratch_load_sshort" | "buffer_load_sshort" => GLoadI16,
        "global_load_dword" | "flat_load_dword" | "scratch_load_dword" | "buffer_load_dword" => GLoad4,
        "global_load_dwordx2" | "flat_load_dwordx2" | "scratch_load_dwordx2" | "buffer_load_dwordx2" => GLoad8,
        "global_load_dwordx3" | "flat_load_dwordx3" | "scratch_load_dwordx3" | "buffer_load_dwordx3" => GLoad12,
        "global_load_dwordx4" | "flat_load_dwordx4" | "scratch_load_dwordx4" | "buffer_load_dwordx4" => GLoad16,
        "global_store_byte" | "flat_store_byte" | "scratch_store_byte" | "buffer_store_byte" => GStore1,
        "global_store_short" | "flat_store_short" | "scratch_store_short" | "buffer_store_short" => GStore2,
        "global_store_dword" | "flat_store_dword" | "scratch_store_dword" | "buffer_store_dword" => GStore4,
        "global_store_dwordx2" | "flat_store_dwordx2" | "scratch_store_dwordx2" | "buffer_store_dwordx2" => GStore8,
        "global_store_dwordx3" | "flat_store_dwordx3" | "scratch_store_dwordx3" | "buffer_store_dwordx3" => GStore12,
        "global_store_dwordx4" | "flat_store_dwordx4" | "scratch_store_dwordx4" | "buffer_store_dwordx4" => GStore16,
        "global_load_ubyte_d16" | "flat_load_ubyte_d16" | "scratch_load_ubyte_d16" | "buffer_load_ubyte_d16" => GLoadU8D16,
        "global_load_ubyte_d16_hi" | "flat_load_ubyte_d16_hi" | "scratch_load_ubyte_d16_hi" | "buffer_load_ubyte_d16_hi" => GLoadU8D16Hi,
        "global_load_sbyte_d16" | "flat_load_sbyte_d16" | "scratch_load_sbyte_d16" | "buffer_load_sbyte_d16" => GLoadI8D16,
        "global_load_sbyte_d16_hi" | "flat_load_sbyte_d16_hi" | "scratch_load_sbyte_d16_hi" | "buffer_load_sbyte_d16_hi" => GLoadI8D16Hi,
        "global_load_short_d16" | "flat_load_short_d16" | "scratch_load_short_d16" | "buffer_load_short_d16" => GLoadU16D16,
        "global_load_short_d16_hi" | "flat_load_short_d16_hi" | "scratch_load_short_d16_hi" | "buffer_load_short_d16_hi" => GLoadU16D16Hi,
        "global_store_byte_d16_hi" | "flat_store_byte_d16_hi" | "scratch_store_byte_d16_hi" | "buffer_store_byte_d16_hi" => GStoreB8D16Hi,
        "global_store_short_d16_hi" | "flat_store_short_d16_hi" | "scratch_store_short_d16_hi" | "buffer_store_short_d16_hi" => GStoreB16D16Hi,
        "buffer_wbinvl1" | "buffer_wbinvl1_vol" | "buffer_gl0_inv" | "buffer_gl1_inv" | "buffer_wbl2" | "buffer_invl2" => BufCacheNop,
        "global_atomic_csub" | "buffer_atomic_csub" => AtCsub,
        "ds_add_f32" | "ds_add_rtn_f32" => DsAddF32,
        "ds_add_f64" | "ds_add_rtn_f64" => DsAddF64,
        "global_atomic_add_f32" | "buffer_atomic_add_f32" => AtAddF32,
        "global_atomic_add_f64" | "flat_atomic_add_f64" | "buffer_atomic_add_f64" => AtAddF64,
        "s_get_waveid_in_workgroup" => SGetWaveId,
        "global_atomic_add" | "flat_atomic_add" | "buffer_atomic_add" | "s_atomic_add" | "s_buffer_atomic_add" => AtAdd,
        "global_atomic_sub" | "flat_atomic_sub" | "buffer_atomic_sub" | "s_atomic_sub" | "s_buffer_atomic_sub" => AtSub,
        "global_atomic_smin" | "flat_atomic_smin" | "buffer_atomic_smin" | "s_atomic_smin" | "s_buffer_atomic_smin" => AtSmin,
        "global_atomic_umin" | "flat_atomic_umin" | "buffer_atomic_umin" | "s_atomic_umin" | "s_buffer_atomic_umin" => AtUmin,
        "global_atomic_smax" | "flat_atomic_smax" | "buffer_atomic_smax" | "s_atomic_smax" | "s_buffer_atomic_smax" => AtSmax,
        "global_atomic_umax" | "flat_atomic_umax" | "buffer_atomic_umax" | "s_atomic_umax" | "s_buffer_atomic_umax" => AtUmax,
        "global_atomic_and" | "flat_atomic_and" | "buffer_atomic_and" | "s_atomic_and" | "s_buffer_atomic_and" => AtAnd,
        "global_atomic_or" | "flat_atomic_or" | "buffer_atomic_or" | "s_atomic_or" | "s_buffer_atomic_or" => AtOr,
        "global_atomic_xor" | "flat_atomic_xor" | "buffer_atomic_xor" | "s_atomic_xor" | "s_buffer_atomic_xor" => AtXor,
        "global_atomic_inc" | "flat_atomic_inc" | "buffer_atomic_inc" | "s_atomic_inc" | "s_buffer_atomic_inc" => AtInc,
        "global_atomic_dec" | "flat_atomic_dec" | "buffer_atomic_dec" | "s_atomic_dec" | "s_buffer_atomic_dec" => AtDec,
        "global_atomic_swap" | "flat_atomic_swap" | "buffer_atomic_swap" | "s_atomic_swap" | "s_buffer_atomic_swap" => AtSwap,
        "global_atomic_cmpswap" | "flat_atomic_cmpswap" | "buffer_atomic_cmpswap" | "s_atomic_cmpswap" | "s_buffer_atomic_cmpswap" => AtCmpswap,
        "global_atomic_sub_x2" | "flat_atomic_sub_x2" | "buffer_atomic_sub_x2" | "s_atomic_sub_x2" | "s_buffer_atomic_sub_x2" => AtSub64,
        "global_atomic_smin_x2" | "flat_atomic_smin_x2" | "buffer_atomic_smin_x2" | "s_atomic_smin_x2" | "s_buffer_atomic_smin_x2" => AtSmin64,
        "global_atomic_umin_x2" | "flat_atomic_umin_x2" | "buffer_atomic_umin_x2" | "s_atomic_umin_x2" | "s_buffer_atomic_umin_x2" => AtUmin64,
        "global_atomic_smax_x2" | "flat_atomic_smax_x2" | "buffer_atomic_smax_x2" | "s_atomic_smax_x2" | "s_buffer_atomic_smax_x2" => AtSmax64,
        "global_atomic_umax_x2" | "flat_atomic_umax_x2" | "buffer_atomic_umax_x2" | "s_atomic_umax_x2" | "s_buffer_atomic_umax_x2" => AtUmax64,
        "global_atomic_and_x2" | "flat_atomic_and_x2" | "buffer_atomic_and_x2" | "s_atomic_and_x2" | "s_buffer_atomic_and_x2" => AtAnd64,
        "global_atomic_or_x2" | "flat_atomic_or_x2" | "buffer_atomic_or_x2" | "s_atomic_or_x2" | "s_buffer_atomic_or_x2" => AtOr64,
        "global_atomic_xor_x2" | "flat_atomic_xor_x2" | "buffer_atomic_xor_x2" | "s_atomic_xor_x2" | "s_buffer_atomic_xor_x2" => AtXor64,
        "global_atomic_inc_x2" | "flat_atomic_inc_x2" | "buffer_atomic_inc_x2" | "s_atomic_inc_x2" | "s_buffer_atomic_inc_x2" => AtInc64,
        "global_atomic_dec_x2" | "flat_atomic_dec_x2" | "buffer_atomic_dec_x2" | "s_atomic_dec_x2" | "s_buffer_atomic_dec_x2" => AtDec64,
        "global_atomic_add_x2" | "flat_atomic_add_x2" | "buffer_atomic_add_x2" | "s_atomic_add_x2" | "s_buffer_atomic_add_x2" => AtAdd64,
        "global_atomic_swap_x2" | "flat_atomic_swap_x2" | "buffer_atomic_swap_x2" | "s_atomic_swap_x2" | "s_buffer_atomic_swap_x2" => AtSwap64,
        "global_atomic_cmpswap_x2" | "flat_atomic_cmpswap_x2" | "buffer_atomic_cmpswap_x2" | "s_atomic_cmpswap_x2" | "s_buffer_atomic_cmpswap_x2" => AtCmpswap64,
        "ds_add_u64" | "ds_add_rtn_u64" => DsAdd64,
        "ds_sub_u64" | "ds_sub_rtn_u64" => DsSub64,
        "ds_rsub_u64" | "ds_rsub_rtn_u64" => DsRsub64,
        "ds_inc_u64" | "ds_inc_rtn_u64" => DsInc64,
        "ds_dec_u64" | "ds_dec_rtn_u64" => DsDec64,
        "ds_min_i64" | "ds_min_rtn_i64" => DsMinI64,
        "ds_max_i64" | "ds_max_rtn_i64" => DsMaxI64,
        "ds_min_u64" | "ds_min_rtn_u64" => DsMinU64,
        "ds_max_u64" | "ds_max_rtn_u64" => DsMaxU64,
        "ds_and_b64" | "ds_and_rtn_b64" => DsAnd64,
        "ds_or_b64" | "ds_or_rtn_b64" => DsOr64,
        "ds_xor_b64" | "ds_xor_rtn_b64" => DsXor64,
        "ds_mskor_b32" | "ds_mskor_rtn_b32" => DsMskor,
        "ds_mskor_b64" | "ds_mskor_rtn_b64" => DsMskor64,
        "ds_cmpst_b64" | "ds_cmpst_rtn_b64" => DsCmpst64,
        "ds_wrxchg_rtn_b64" => DsSwap64,
        "ds_wrxchg2_rtn_b32" => DsWrxchg2B32,
        "ds_wrxchg2_rtn_b64" => DsWrxchg2B64,
        "ds_wrxchg2st64_rtn_b32" => DsWrxchg2St64B32,
        "ds_wrxchg2st64_rtn_b64" => DsWrxchg2St64B64,
        "ds_min_f32" | "ds_min_rtn_f32" => DsMinF32,
        "ds_max_f32" | "ds_max_rtn_f32" => DsMaxF32,
        "ds_min_f64" | "ds_min_rtn_f64" => DsMinF64,
        "ds_max_f64" | "ds_max_rtn_f64" => DsMaxF64,
        "ds_cmpst_f32" | "ds_cmpst_rtn_f32" => DsCmpstF32,
        "ds_cmpst_f64" | "ds_cmpst_rtn_f64" => DsCmpstF64,
        "global_atomic_fmin" | "flat_atomic_fmin" | "buffer_atomic_fmin" => AtFminF32,
        "global_atomic_fmax" | "flat_atomic_fmax" | "buffer_atomic_fmax" => AtFmaxF32,
        "global_atomic_fmin_x2" | "flat_atomic_fmin_x2" | "buffer_atomic_fmin_x2" | "global_atomic_min_f64" | "flat_atomic_min_f64" | "buffer_atomic_min_f64" => AtFminF64,
        "global_atomic_fmax_x2" | "flat_atomic_fmax_x2" | "buffer_atomic_fmax_x2" | "global_atomic_max_f64" | "flat_atomic_max_f64" | "buffer_atomic_max_f64" => AtFmaxF64,
        "global_atomic_fcmpswap" | "flat_atomic_fcmpswap" | "buffer_atomic_fcmpswap" => AtFcmpswapF32,
        "global_atomic_fcmpswap_x2" | "flat_atomic_fcmpswap_x2" | "buffer_atomic_fcmpswap_x2" => AtFcmpswapF64,
        "global_atomic_pk_add_f16" | "buffer_atomic_pk_add_f16" => AtPkAddF16,
        "ds_add_src2_u32" => DsSrc2AddU32,
        "ds_sub_src2_u32" => DsSrc2SubU32,
        "ds_rsub_src2_u32" => DsSrc2RsubU32,
        "ds_inc_src2_u32" => DsSrc2IncU32,
        "ds_dec_src2_u32" => DsSrc2DecU32,
        "ds_min_src2_i32" => DsSrc2MinI32,
        "ds_max_src2_i32" => DsSrc2MaxI32,
        "ds_min_src2_u32" => DsSrc2MinU32,
        "ds_max_src2_u32" => DsSrc2MaxU32,
        "ds_and_src2_b32" => DsSrc2AndB32,
        "ds_or_src2_b32" => DsSrc2OrB32,
        "ds_xor_src2_b32" => DsSrc2XorB32,
        "ds_write_src2_b32" => DsSrc2WriteB32,
        "ds_min_src2_f32" => DsSrc2MinF32,
        "ds_max_src2_f32" => DsSrc2MaxF32,
        "ds_add_src2_f32" => DsSrc2AddF32,
        "ds_add_src2_u64" => DsSrc2AddU64,
        "ds_sub_src2_u64" => DsSrc2SubU64,
        "ds_rsub_src2_u64" => DsSrc2RsubU64,
        "ds_inc_src2_u64" => DsSrc2IncU64,
        "ds_dec_src2_u64" => DsSrc2DecU64,
        "ds_min_src2_i64" => DsSrc2MinI64,
        "ds_max_src2_i64" => DsSrc2MaxI64,
        "ds_min_src2_u64" => DsSrc2MinU64,
        "ds_max_src2_u64" => DsSrc2MaxU64,
        "ds_and_src2_b64" => DsSrc2AndB64,
        "ds_or_src2_b64" => DsSrc2OrB64,
        "ds_xor_src2_b64" => DsSrc2XorB64,
        "ds_write_src2_b64" => DsSrc2WriteB64,
        "ds_min_src2_f64" => DsSrc2MinF64,
        "ds_max_src2_f64" => DsSrc2MaxF64,
        "ds_wrap_rtn_b32" => DsWrap,
        "ds_append" => DsAppend,
        "ds_consume" => DsConsume,
        "ds_read_addtid_b32" => DsReadAddtid,
        "ds_write_addtid_b32" => DsWriteAddtid,
        "global_load_dword_addtid" => GLoadAddtid,
        "global_store_dword_addtid" => GStoreAddtid,
        "ds_read_u8_d16" => DsReadU8D16,
        "ds_read_u8_d16_hi" => DsReadU8D16Hi,
        "ds_read_i8_d16" => DsReadI8D16,
        "ds_read_i8_d16_hi" => DsReadI8D16Hi,
        "ds_read_u16_d16" => DsReadU16D16,
        "ds_read_u16_d16_hi" => DsReadU16D16Hi,
        "ds_write_b8_d16_hi" => DsWriteB8D16Hi,
        "ds_write_b16_d16_hi" => DsWriteB16D16Hi,
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
    fn every_listed_name_is_a_decoder_operation() {
        use amdgpu_isa::alu::AluOp;
        use amdgpu_isa::mem::MemOp;
        let missing: Vec<&str> = Kind::NAMES
            .iter()
            .filter(|n| AluOp::from_name(n).is_none())
            .chain(
                MemKind::NAMES
                    .iter()
                    .filter(|n| MemOp::from_name(n).is_none()),
            )
            .copied()
            .collect();
        assert!(
            missing.is_empty(),
            "names no decoder table has: {missing:?}"
        );
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
