//! Image objects for OpenCL image kernel arguments: what a runtime allocates and
//! writes for an `image*_t` argument (the device executes the image instructions over
//! them: `amdgpu_sim::exec`'s image module).
//!
//! clang-19 passes an `image1d_t` / `image2d_t` / ... argument
//! (`.value_kind: image`, 8 bytes) as a pointer to the image's descriptor in
//! constant memory; ROCm's device library reads the 8-dword T# there for the
//! `image_load` / `image_store` it emits, and three dwords after it that
//! ROCr's `PopulateImageSrd` appends: dword 8 the channel type, dword 9 the
//! channel order (both as `hsa_ext_image_channel_type_t` /
//! `hsa_ext_image_channel_order_t` codes) and dword 10 the width, which
//! `get_image_width` returns (`get_image_height` reads the T#'s HEIGHT).
//! [`create_image`] allocates the texels and such a 48-byte object
//! and returns both addresses: pass [`Image::object`] as the argument
//! ([`amdgpu_sim::ArgValue::Ptr`]), read and write the texels at [`Image::data`]
//! with [`Image::row_pitch`] and [`Image::slice_pitch`].
//!
//! The images are LINEAR (swizzle mode 0), one mip level, with the row pitch
//! of a linear surface: the width rounded up to 256 bytes (what gfx1010,
//! which has no pitch field, assumes; the GFX9 and gfx1030 descriptors state
//! it). The T# layout and the format codes are those of the simulator's
//! `exec/image.rs`, which executes the instructions.

use amdgpu_isa::{Gen, Gpu};
use amdgpu_sim::{Device, SimError};

/// Why [`create_image`] made no image.
#[derive(Debug, thiserror::Error)]
pub enum CreateImageError {
    /// The description has a size the shape cannot have ([`ImageDesc::check`]).
    #[error("image: {0}")]
    Bad(String),
    /// The device could not allocate or write it.
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// The shape of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub enum Geometry {
    /// `image1d_t`.
    D1,
    /// `image2d_t`.
    D2,
    /// `image3d_t`.
    D3,
    /// `image1d_array_t`.
    D1Array,
    /// `image2d_array_t`.
    D2Array,
}

/// Channel order (`hsa_ext_image_channel_order_t` code in the object).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub enum ChannelOrder {
    /// `CL_R`: one channel.
    R,
    /// `CL_RG`: two channels.
    Rg,
    /// `CL_RGBA`: four channels.
    Rgba,
}

/// Channel data type (`hsa_ext_image_channel_type_t` code in the object).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub enum ChannelType {
    /// `CL_SNORM_INT8`.
    SnormInt8,
    /// `CL_SNORM_INT16`.
    SnormInt16,
    /// `CL_UNORM_INT8`.
    UnormInt8,
    /// `CL_UNORM_INT16`.
    UnormInt16,
    /// `CL_SIGNED_INT8`.
    SignedInt8,
    /// `CL_SIGNED_INT16`.
    SignedInt16,
    /// `CL_SIGNED_INT32`.
    SignedInt32,
    /// `CL_UNSIGNED_INT8`.
    UnsignedInt8,
    /// `CL_UNSIGNED_INT16`.
    UnsignedInt16,
    /// `CL_UNSIGNED_INT32`.
    UnsignedInt32,
    /// `CL_HALF_FLOAT`.
    HalfFloat,
    /// `CL_FLOAT`.
    Float,
}

impl ChannelType {
    /// The HSA code (`HSA_EXT_IMAGE_CHANNEL_TYPE_*`).
    pub fn hsa_code(self) -> u32 {
        use ChannelType::*;
        match self {
            SnormInt8 => 0,
            SnormInt16 => 1,
            UnormInt8 => 2,
            UnormInt16 => 3,
            SignedInt8 => 8,
            SignedInt16 => 9,
            SignedInt32 => 10,
            UnsignedInt8 => 11,
            UnsignedInt16 => 12,
            UnsignedInt32 => 13,
            HalfFloat => 14,
            Float => 15,
        }
    }

    /// The type of an HSA code, if amdsim's images have it (the packed
    /// 555/565/101010 and 24-bit types are not).
    pub fn from_hsa_code(code: u32) -> Option<ChannelType> {
        use ChannelType::*;
        [
            SnormInt8,
            SnormInt16,
            UnormInt8,
            UnormInt16,
            SignedInt8,
            SignedInt16,
            SignedInt32,
            UnsignedInt8,
            UnsignedInt16,
            UnsignedInt32,
            HalfFloat,
            Float,
        ]
        .into_iter()
        .find(|t| t.hsa_code() == code)
    }

    /// Bits per channel.
    pub fn bits(self) -> u32 {
        use ChannelType::*;
        match self {
            SnormInt8 | UnormInt8 | SignedInt8 | UnsignedInt8 => 8,
            SnormInt16 | UnormInt16 | SignedInt16 | UnsignedInt16 | HalfFloat => 16,
            SignedInt32 | UnsignedInt32 | Float => 32,
        }
    }

    /// Numeric format index: UNORM 0, SNORM 1, UINT 4, SINT 5, FLOAT 7 (the
    /// GFX9 NUM_FORMAT codes).
    fn num(self) -> u32 {
        use ChannelType::*;
        match self {
            UnormInt8 | UnormInt16 => 0,
            SnormInt8 | SnormInt16 => 1,
            UnsignedInt8 | UnsignedInt16 | UnsignedInt32 => 4,
            SignedInt8 | SignedInt16 | SignedInt32 => 5,
            HalfFloat | Float => 7,
        }
    }
}

impl ChannelOrder {
    /// The HSA code (`HSA_EXT_IMAGE_CHANNEL_ORDER_*`).
    pub fn hsa_code(self) -> u32 {
        match self {
            ChannelOrder::R => 1,
            ChannelOrder::Rg => 3,
            ChannelOrder::Rgba => 8,
        }
    }

    /// The order of an HSA code, if amdsim's images have it.
    pub fn from_hsa_code(code: u32) -> Option<ChannelOrder> {
        [ChannelOrder::R, ChannelOrder::Rg, ChannelOrder::Rgba]
            .into_iter()
            .find(|o| o.hsa_code() == code)
    }

    /// Channels.
    pub fn channels(self) -> u32 {
        match self {
            ChannelOrder::R => 1,
            ChannelOrder::Rg => 2,
            ChannelOrder::Rgba => 4,
        }
    }
}

/// What image to create.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct ImageDesc {
    /// Its shape.
    pub geometry: Geometry,
    /// Width in texels (1..=16384).
    pub width: u32,
    /// Height (1 for 1-D images).
    pub height: u32,
    /// Depth (3-D; 1 otherwise).
    pub depth: u32,
    /// Array slices (arrays; 1 otherwise).
    pub array_size: u32,
    /// Channel order.
    pub order: ChannelOrder,
    /// Channel data type.
    pub channel_type: ChannelType,
}

impl ImageDesc {
    /// A 2-D image.
    pub fn d2(width: u32, height: u32, order: ChannelOrder, channel_type: ChannelType) -> Self {
        ImageDesc {
            geometry: Geometry::D2,
            width,
            height,
            depth: 1,
            array_size: 1,
            order,
            channel_type,
        }
    }

    /// Bytes per texel.
    pub fn texel_bytes(&self) -> u32 {
        self.order.channels() * self.channel_type.bits() / 8
    }

    /// Row pitch in texels: the width rounded up to 256 bytes.
    pub fn pitch_texels(&self) -> u32 {
        self.width.next_multiple_of(256 / self.texel_bytes())
    }

    /// Whether `gpu`'s T# can state a row pitch of `pitch` texels for this
    /// image: GFX9 always; gfx1030 for 1-D and 2-D images; otherwise only
    /// the natural pitch ([`ImageDesc::pitch_texels`]) is addressed.
    pub fn pitch_is_addressable(&self, gpu: Gpu, pitch: u32) -> bool {
        let flat = matches!(self.geometry, Geometry::D1 | Geometry::D2);
        pitch == self.pitch_texels()
            || (pitch >= self.width
                && pitch <= 1 << 16
                && (gpu.generation() != Gen::Gfx10 || (gpu == Gpu::Gfx1030 && flat)))
    }

    /// Slices: the depth of a 3-D image, the layers of an array, else 1.
    pub fn slices(&self) -> u32 {
        match self.geometry {
            Geometry::D3 => self.depth,
            Geometry::D1Array | Geometry::D2Array => self.array_size,
            Geometry::D1 | Geometry::D2 => 1,
        }
    }

    /// Rows per slice (1 for 1-D images and arrays).
    pub fn rows(&self) -> u32 {
        match self.geometry {
            Geometry::D1 | Geometry::D1Array => 1,
            _ => self.height,
        }
    }

    /// Checks the sizes against the shape (each 1..=16384, and 1 where the
    /// shape has no such dimension).
    pub fn check(&self) -> Result<(), String> {
        let one = |name: &str, v: u32, want_one: bool| -> Result<(), String> {
            if v == 0 || v > 16384 || (want_one && v != 1) {
                Err(format!(
                    "{name} {v} for a {:?} image (1..=16384{})",
                    self.geometry,
                    if want_one {
                        ", and 1 for this shape"
                    } else {
                        ""
                    }
                ))
            } else {
                Ok(())
            }
        };
        let g = self.geometry;
        one("width", self.width, false)?;
        one(
            "height",
            self.height,
            matches!(g, Geometry::D1 | Geometry::D1Array),
        )?;
        one("depth", self.depth, g != Geometry::D3)?;
        one(
            "array_size",
            self.array_size,
            !matches!(g, Geometry::D1Array | Geometry::D2Array),
        )?;
        Ok(())
    }

    /// The 12 dwords of the image object for `gpu` with texels at `data`
    /// (256-byte aligned): the T#, channel type, channel order, width, 0.
    pub fn object_words(&self, gpu: Gpu, data: u64) -> [u32; 12] {
        self.object_words_pitched(gpu, data, self.pitch_texels())
    }

    /// [`ImageDesc::object_words`] with rows `pitch` texels apart (see
    /// [`ImageDesc::pitch_is_addressable`]).
    pub fn object_words_pitched(&self, gpu: Gpu, data: u64, pitch: u32) -> [u32; 12] {
        let mut d = [0u32; 12];
        let (w, h) = (self.width - 1, self.rows() - 1);
        let ty = match self.geometry {
            Geometry::D1 => 8,
            Geometry::D2 => 9,
            Geometry::D3 => 10,
            Geometry::D1Array => 12,
            Geometry::D2Array => 13,
        };
        // DST_SEL: X, Y, Z, W for the channels present; SEL_0 for missing
        // colour channels and SEL_1 for a missing alpha (ROCr's swizzles
        // for R and RG).
        let n = self.order.channels();
        let sel = |k: u32| -> u32 {
            if k < n {
                4 + k
            } else if k == 3 {
                1
            } else {
                0
            }
        };
        let dst_sel = sel(0) | sel(1) << 3 | sel(2) << 6 | sel(3) << 9;
        // DEPTH: depth - 1 (3-D), the last slice (arrays).
        let depth = self.slices() - 1;
        let pitch = pitch - 1;
        d[0] = (data >> 8) as u32;
        let hi = ((data >> 40) & 0xff) as u32;
        d[3] = dst_sel | ty << 28;
        if gpu.generation() == Gen::Gfx10 {
            d[1] = hi | self.format_gfx10() << 20 | (w & 3) << 30;
            d[2] = w >> 2 | h << 14 | 1 << 31;
            let flat = matches!(self.geometry, Geometry::D1 | Geometry::D2);
            d[4] = if flat && gpu == Gpu::Gfx1030 {
                pitch
            } else {
                depth
            };
        } else {
            let dfmt = match (self.channel_type.bits(), n) {
                (8, 1) => 1,
                (16, 1) => 2,
                (8, 2) => 3,
                (32, 1) => 4,
                (16, 2) => 5,
                (8, 4) => 10,
                (32, 2) => 11,
                (16, 4) => 12,
                _ => 14,
            };
            d[1] = hi | dfmt << 20 | self.channel_type.num() << 26;
            d[2] = w | h << 14;
            d[4] = depth | pitch << 13;
        }
        d[8] = self.channel_type.hsa_code();
        d[9] = self.order.hsa_code();
        d[10] = self.width;
        d
    }

    /// The GFX10 unified format.
    fn format_gfx10(&self) -> u32 {
        // Groups of UNORM, SNORM, USCALED, SSCALED, UINT, SINT, FLOAT
        // (8-bit: no FLOAT); 32-bit groups are UINT, SINT, FLOAT.
        let num = self.channel_type.num();
        let first = match (self.channel_type.bits(), self.order.channels()) {
            (8, 1) => 1,
            (16, 1) => 7,
            (8, 2) => 14,
            (16, 2) => 23,
            (8, _) => 56,
            (16, _) => 65,
            (_, 1) => return 20 + num.saturating_sub(4).min(2),
            (_, 2) => return 62 + num.saturating_sub(4).min(2),
            _ => return 75 + num.saturating_sub(4).min(2),
        };
        first + num.min(6)
    }
}

/// An image created by [`create_image`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Image {
    /// The image object: the kernel argument's value.
    pub object: u64,
    /// The first texel.
    pub data: u64,
    /// Bytes from one row to the next.
    pub row_pitch: u64,
    /// Bytes from one slice (or 3-D layer) to the next.
    pub slice_pitch: u64,
    /// Bytes of texel storage.
    pub size: u64,
}

impl Image {
    /// The address of texel `(x, y, slice)`.
    pub fn texel_addr(&self, bytes_per_texel: u32, x: u32, y: u32, slice: u32) -> u64 {
        self.data
            + slice as u64 * self.slice_pitch
            + y as u64 * self.row_pitch
            + x as u64 * bytes_per_texel as u64
    }
}

/// Allocates on `dev` a zeroed LINEAR image described by `desc` for `gpu` (the
/// GPU of the module that will read it, [`amdgpu_sim::Module::gpu`]) and its
/// image object.
pub fn create_image(dev: &Device, gpu: Gpu, desc: &ImageDesc) -> Result<Image, CreateImageError> {
    desc.check().map_err(CreateImageError::Bad)?;
    let row_pitch = desc.pitch_texels() as u64 * desc.texel_bytes() as u64;
    let slice_pitch = row_pitch * desc.rows() as u64;
    let size = slice_pitch * desc.slices() as u64;
    let data = dev.alloc(size)?;
    let words = desc.object_words(gpu, data);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let object = dev.alloc_bytes(&bytes)?;
    Ok(Image {
        object,
        data,
        row_pitch,
        slice_pitch,
        size,
    })
}
