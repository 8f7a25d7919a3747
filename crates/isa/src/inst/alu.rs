//! The ALU part of an instruction: the operation's identity ([`AluOp`]), the encoding
//! variant ([`AluForm`]) and the modifiers ([`AluMods`]). The names behind these
//! identities come from the generated tables of the ALU decoder (`crate::alu`).

/// Identity of an ALU operation, shared by every encoding that carries it:
/// `v_add_f32` decoded from VOP2, VOP3, SDWA or DPP is the same `AluOp`.
/// The value indexes the generated operation-name table; 0 is invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct AluOp(pub u16);

/// The encoding variants the ALU tables distinguish. The numbering is the row
/// order of the generated `TABLES`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum AluForm {
    /// SOP2.
    #[default]
    Sop2 = 0,
    /// SOP1.
    Sop1,
    /// SOPK.
    Sopk,
    /// SOPC.
    Sopc,
    /// SOPP.
    Sopp,
    /// VOP1 (`_e32`).
    Vop1,
    /// VOP2 (`_e32`).
    Vop2,
    /// VOPC (`_e32`).
    Vopc,
    /// VOP3 / VOP3b (`_e64` and VOP3-only operations).
    Vop3,
    /// VOP3P (packed math, mixed precision, dot products, MFMA).
    Vop3p,
    /// VINTRP.
    Vintrp,
    /// SDWA form of a VOP1 operation.
    SdwaVop1,
    /// SDWA form of a VOP2 operation.
    SdwaVop2,
    /// SDWA form of a VOPC operation.
    SdwaVopc,
    /// DPP (GFX9) / DPP16 (GFX10) form of a VOP1 operation.
    DppVop1,
    /// DPP / DPP16 form of a VOP2 operation.
    DppVop2,
    /// GFX10 DPP8 form of a VOP1 operation.
    Dpp8Vop1,
    /// GFX10 DPP8 form of a VOP2 operation.
    Dpp8Vop2,
}

impl AluForm {
    /// Every form, in the row order of the generated tables.
    pub const ALL: [AluForm; 18] = [
        AluForm::Sop2,
        AluForm::Sop1,
        AluForm::Sopk,
        AluForm::Sopc,
        AluForm::Sopp,
        AluForm::Vop1,
        AluForm::Vop2,
        AluForm::Vopc,
        AluForm::Vop3,
        AluForm::Vop3p,
        AluForm::Vintrp,
        AluForm::SdwaVop1,
        AluForm::SdwaVop2,
        AluForm::SdwaVopc,
        AluForm::DppVop1,
        AluForm::DppVop2,
        AluForm::Dpp8Vop1,
        AluForm::Dpp8Vop2,
    ];

    /// The form's name as the ISA guides write it (`VOP2`, `SDWA`, `DPP8`, ...):
    /// the SDWA and DPP forms of VOP1, VOP2 and VOPC operations share one name.
    pub fn name(self) -> &'static str {
        use AluForm::*;
        match self {
            Sop2 => "SOP2",
            Sop1 => "SOP1",
            Sopk => "SOPK",
            Sopc => "SOPC",
            Sopp => "SOPP",
            Vop1 => "VOP1",
            Vop2 => "VOP2",
            Vopc => "VOPC",
            Vop3 => "VOP3",
            Vop3p => "VOP3P",
            Vintrp => "VINTRP",
            SdwaVop1 | SdwaVop2 | SdwaVopc => "SDWA",
            DppVop1 | DppVop2 => "DPP",
            Dpp8Vop1 | Dpp8Vop2 => "DPP8",
        }
    }
}

/// ALU modifiers, decoded once so the executor reads plain fields.
///
/// Bit `i` of `abs`, `neg`, `neg_hi`, `op_sel`, `op_sel_hi` and `sext` is
/// source `i` (bit 3 of `op_sel` is the destination's, as in VOP3). Only the
/// modifiers the operation has are set; bits an operation ignores are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct AluMods {
    /// The table entry (mnemonic and operand shape) the instruction came from.
    pub(crate) entry: u16,
    /// [`mods_bit`] flags, in one byte to keep [`Inst`](crate::Inst) small.
    pub(crate) bits: u8,
    /// The encoding variant.
    pub form: AluForm,
    /// `|x|` on sources.
    pub abs: u8,
    /// `-x` on sources (VOP3P: `neg_lo`).
    pub neg: u8,
    /// VOP3P `neg_hi`.
    pub neg_hi: u8,
    /// `op_sel` (VOP3: bits 0-2 sources, bit 3 destination).
    pub op_sel: u8,
    /// VOP3P `op_sel_hi`.
    pub op_sel_hi: u8,
    /// SDWA sign extension of integer sources.
    pub sext: u8,
    /// Clamp the result.
    pub clamp: bool,
    /// Output modifier: 0 none, 1 `mul:2`, 2 `mul:4`, 3 `div:2`.
    pub omod: u8,
    /// Form-specific controls: SDWA and DPP second dword, DPP8 second dword
    /// (lane selects from bit 8), MFMA `cbsz | abid << 3 | blgp << 7`,
    /// interpolation `chan | attr << 2 | param << 8 | high << 16`.
    pub ctrl: u32,
}

/// Bits of [`AluMods::bits`].
pub(crate) mod mods_bit {
    /// Decoded for a GFX10 GPU (some immediates print differently).
    pub const GFX10: u8 = 1 << 0;
    /// Decoded for gfx90a (DPP `row_newbcast`).
    pub const GFX90A: u8 = 1 << 1;
    /// Decoded for gfx1030 (hardware register and `s_waitcnt_depctr` names).
    pub const GFX1030: u8 = 1 << 2;
    /// DPP8 with `fi:1` (src0 marker 0xea).
    pub const DPP8_FI: u8 = 1 << 3;
}

impl AluMods {
    /// [`AluMods::default`] as a constant.
    pub(crate) const DEFAULT: AluMods = AluMods {
        entry: 0,
        bits: 0,
        form: AluForm::Sop2,
        abs: 0,
        neg: 0,
        neg_hi: 0,
        op_sel: 0,
        op_sel_hi: 0,
        sext: 0,
        clamp: false,
        omod: 0,
        ctrl: 0,
    };

    /// Decoded for a GFX10 GPU.
    pub(crate) fn gfx10(&self) -> bool {
        self.bits & mods_bit::GFX10 != 0
    }
    /// Decoded for gfx90a.
    pub(crate) fn gfx90a(&self) -> bool {
        self.bits & mods_bit::GFX90A != 0
    }
    /// Decoded for gfx1030.
    pub(crate) fn gfx1030(&self) -> bool {
        self.bits & mods_bit::GFX1030 != 0
    }
    /// SDWA destination select (0-3 bytes, 4-5 words, 6 dword).
    pub fn sdwa_dst_sel(&self) -> u8 {
        ((self.ctrl >> 8) & 7) as u8
    }
    /// SDWA destination unused-bits policy (0 pad, 1 sign-extend, 2 preserve).
    pub fn sdwa_dst_unused(&self) -> u8 {
        ((self.ctrl >> 11) & 3) as u8
    }
    /// SDWA source `i` select (0-3 bytes, 4-5 words, 6 dword).
    pub fn sdwa_src_sel(&self, i: usize) -> u8 {
        let shift = if i == 0 { 16 } else { 24 };
        ((self.ctrl >> shift) & 7) as u8
    }
    /// DPP control (`quad_perm`, row shifts, ... ; ISA "DPP_CTRL enumeration").
    pub fn dpp_ctrl(&self) -> u16 {
        ((self.ctrl >> 8) & 0x1ff) as u16
    }
    /// DPP row mask.
    pub fn dpp_row_mask(&self) -> u8 {
        ((self.ctrl >> 28) & 0xf) as u8
    }
    /// DPP bank mask.
    pub fn dpp_bank_mask(&self) -> u8 {
        ((self.ctrl >> 24) & 0xf) as u8
    }
    /// DPP `bound_ctrl` (out-of-range lanes read zero).
    pub fn dpp_bound_ctrl(&self) -> bool {
        (self.ctrl >> 19) & 1 != 0
    }
    /// MFMA `cbsz` (broadcast block size of src0).
    pub fn mfma_cbsz(&self) -> u8 {
        (self.ctrl & 7) as u8
    }
    /// MFMA `abid` (broadcast block id).
    pub fn mfma_abid(&self) -> u8 {
        ((self.ctrl >> 3) & 0xf) as u8
    }
    /// MFMA `blgp` (src1 lane-group pattern).
    pub fn mfma_blgp(&self) -> u8 {
        ((self.ctrl >> 7) & 7) as u8
    }
    /// Interpolation attribute number (`attrN`).
    pub fn interp_attr(&self) -> u8 {
        ((self.ctrl >> 2) & 0x3f) as u8
    }
    /// Interpolation channel (0-3: x, y, z, w).
    pub fn interp_chan(&self) -> u8 {
        (self.ctrl & 3) as u8
    }
    /// `v_interp_mov_f32` parameter (0 `p10`, 1 `p20`, 2 `p0`).
    pub fn interp_param(&self) -> u8 {
        ((self.ctrl >> 8) & 0xff) as u8
    }
    /// 16-bit interpolation reads/writes the high half (`high`).
    pub fn interp_high(&self) -> bool {
        (self.ctrl >> 16) & 1 != 0
    }
    /// GFX10 DPP `fi` (fetch inactive lanes); for DPP8 the `fi:1` form.
    pub fn dpp_fi(&self) -> bool {
        match self.form {
            AluForm::DppVop1 | AluForm::DppVop2 => self.gfx10() && (self.ctrl >> 18) & 1 != 0,
            AluForm::Dpp8Vop1 | AluForm::Dpp8Vop2 => self.bits & mods_bit::DPP8_FI != 0,
            _ => false,
        }
    }
    /// DPP8 lane select for lane `i` of each group of eight.
    pub fn dpp8_sel(&self, i: usize) -> u8 {
        ((self.ctrl >> (8 + 3 * (i & 7))) & 7) as u8
    }
}
