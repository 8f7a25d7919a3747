//! Images and samplers of the HSA image extension (`hsa_ext_image_*`,
//! `hsa_ext_sampler_*`), over the simulator's LINEAR images.
//!
//! An image handle is the address of its image object, as ROCr's is: the
//! 8-dword T# followed by the channel type, channel order and width that
//! ROCm's device library reads ([`crate::image_object`]), in memory the device
//! reads. A sampler handle is the address of its 4-dword S#. The texels are
//! the caller's memory (`image_data`), laid out linearly: rows
//! [`DataInfo::row_pitch`] bytes apart, slices [`DataInfo::slice_pitch`].
//!
//! What the simulator's images are not is refused with the extension's
//! status, as ROCr refuses what a card cannot do: formats other than R, RG
//! and RGBA of the OpenCL channel types (`FORMAT_UNSUPPORTED`), 1-D buffer
//! and depth geometries (`FORMAT_UNSUPPORTED`), sizes past the card's
//! limits (`SIZE_UNSUPPORTED`), a row pitch the T# cannot state
//! (`PITCH_UNSUPPORTED`).

use crate::image_object::{ChannelOrder, ChannelType, Geometry, ImageDesc};
use crate::runtime::Runtime;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// `HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED`.
pub const FORMAT_UNSUPPORTED: u32 = 0x3000;
/// `HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED`.
pub const SIZE_UNSUPPORTED: u32 = 0x3001;
/// `HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED`.
pub const PITCH_UNSUPPORTED: u32 = 0x3002;
/// `HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED`.
pub const SAMPLER_UNSUPPORTED: u32 = 0x3003;

/// The row pitch alignment of linear images, in bytes
/// (`HSA_EXT_AGENT_INFO_IMAGE_LINEAR_ROW_PITCH_ALIGNMENT`, and ROCclr's
/// `imagePitchAlignment_`).
pub const ROW_PITCH_ALIGNMENT: u64 = 256;

/// `hsa_ext_image_descriptor_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Descriptor {
    /// `hsa_ext_image_geometry_t`.
    pub geometry: u32,
    /// Width in texels.
    pub width: usize,
    /// Height (2-D, 3-D, 2-D array), else 0.
    pub height: usize,
    /// Depth (3-D), else 0.
    pub depth: usize,
    /// Layers (arrays), else 0.
    pub array_size: usize,
    /// `hsa_ext_image_channel_type_t`.
    pub channel_type: u32,
    /// `hsa_ext_image_channel_order_t`.
    pub channel_order: u32,
}

/// `hsa_ext_sampler_descriptor_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SamplerDescriptor {
    /// `hsa_ext_sampler_coordinate_mode_t`: 0 unnormalized, 1 normalized.
    pub coordinate_mode: u32,
    /// `hsa_ext_sampler_filter_mode_t`: 0 nearest, 1 linear.
    pub filter_mode: u32,
    /// `hsa_ext_sampler_addressing_mode_t`: 0 undefined, 1 clamp to edge,
    /// 2 clamp to border, 3 repeat, 4 mirrored repeat.
    pub address_mode: u32,
}

/// An image request the extension refuses: the status and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageError {
    /// The `hsa_status_t` to return.
    pub status: u32,
    /// What was refused.
    pub why: String,
}

impl std::fmt::Display for ImageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

fn refuse<T>(status: u32, why: String) -> Result<T, ImageError> {
    Err(ImageError { status, why })
}

const GEOMETRY_NAMES: [&str; 8] = ["1D", "2D", "3D", "1DA", "2DA", "1DB", "2DDEPTH", "2DADEPTH"];

impl Descriptor {
    /// The simulator's description of this image, or why it has none.
    pub fn to_sim(&self) -> Result<ImageDesc, ImageError> {
        let geometry = match self.geometry {
            0 => Geometry::D1,
            1 => Geometry::D2,
            2 => Geometry::D3,
            3 => Geometry::D1Array,
            4 => Geometry::D2Array,
            g => {
                let name = GEOMETRY_NAMES.get(g as usize).copied().unwrap_or("unknown");
                return refuse(
                    FORMAT_UNSUPPORTED,
                    format!(
                        "image geometry {g} ({name}): amdsim has 1D, 2D, 3D, 1DA and 2DA images"
                    ),
                );
            }
        };
        let (Some(order), Some(channel_type)) = (
            ChannelOrder::from_hsa_code(self.channel_order),
            ChannelType::from_hsa_code(self.channel_type),
        ) else {
            return refuse(
                FORMAT_UNSUPPORTED,
                format!(
                    "image format (channel type {}, order {}): amdsim has the R, RG and RGBA orders of the 8-, 16- and 32-bit channel types",
                    self.channel_type, self.channel_order
                ),
            );
        };
        let dim = |v: usize| u32::try_from(v.max(1)).unwrap_or(u32::MAX);
        let desc = ImageDesc {
            geometry,
            width: dim(self.width),
            height: dim(self.height),
            depth: dim(self.depth),
            array_size: dim(self.array_size),
            order,
            channel_type,
        };
        desc.check().map_err(|why| ImageError {
            status: SIZE_UNSUPPORTED,
            why,
        })?;
        Ok(desc)
    }
}

/// Where an image's texels lie (`hsa_ext_image_data_info_t` plus pitches).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataInfo {
    /// Bytes of texel storage.
    pub size: u64,
    /// Alignment of the first texel, bytes.
    pub alignment: u64,
    /// Bytes from one row to the next.
    pub row_pitch: u64,
    /// Bytes from one slice to the next.
    pub slice_pitch: u64,
}

/// The layout of `desc` on `gpu`: the natural one (rows rounded up to 256
/// bytes) when the pitches are 0, else the pitches asked for if the T# can
/// state them.
pub fn data_info(
    gpu: amdgpu_isa::Gpu,
    desc: &ImageDesc,
    row_pitch: u64,
    slice_pitch: u64,
) -> Result<DataInfo, ImageError> {
    let texel = desc.texel_bytes() as u64;
    let row = if row_pitch == 0 {
        desc.pitch_texels() as u64 * texel
    } else {
        row_pitch
    };
    let pitch_texels = row / texel;
    if row % texel != 0 || !desc.pitch_is_addressable(gpu, pitch_texels as u32) {
        return refuse(
            PITCH_UNSUPPORTED,
            format!(
                "row pitch {row} bytes for a {}-texel-wide image of {texel}-byte texels on {}",
                desc.width,
                gpu.name()
            ),
        );
    }
    let natural_slice = row * desc.rows() as u64;
    let slice = if slice_pitch == 0 {
        natural_slice
    } else {
        slice_pitch
    };
    if slice != natural_slice {
        return refuse(
            PITCH_UNSUPPORTED,
            format!(
                "slice pitch {slice} bytes (the T# addresses slices {natural_slice} bytes apart)"
            ),
        );
    }
    Ok(DataInfo {
        size: slice * desc.slices() as u64,
        alignment: ROW_PITCH_ALIGNMENT,
        row_pitch: row,
        slice_pitch: slice,
    })
}

/// The capability bits (`hsa_ext_image_capability_t`) of images of a
/// geometry and format: read-only, write-only, read-write and an invariant
/// data layout for those amdsim has, else 0.
pub fn capability(geometry: u32, channel_type: u32, channel_order: u32) -> u32 {
    let d = Descriptor {
        geometry,
        width: 1,
        height: 1,
        depth: 1,
        array_size: 1,
        channel_type,
        channel_order,
    };
    let shape_ok = matches!(geometry, 0..=4);
    let format_ok = ChannelOrder::from_hsa_code(d.channel_order).is_some()
        && ChannelType::from_hsa_code(d.channel_type).is_some();
    if shape_ok && format_ok { 0x17 } else { 0 }
}

/// The S# (4 dwords) ROCr writes for a sampler (`PopulateSamplerSrd`):
/// clamp modes, unnormalized coordinates, point or bilinear filtering.
pub fn sampler_words(d: &SamplerDescriptor) -> Result<[u32; 4], ImageError> {
    let clamp = match d.address_mode {
        0 | 3 => 0, // SQ_TEX_WRAP
        1 => 2,     // SQ_TEX_CLAMP_LAST_TEXEL
        2 => 6,     // SQ_TEX_CLAMP_BORDER
        4 => 1,     // SQ_TEX_MIRROR
        m => return refuse(SAMPLER_UNSUPPORTED, format!("sampler addressing mode {m}")),
    };
    let filter = match d.filter_mode {
        0 => 0, // SQ_TEX_XY_FILTER_POINT
        1 => 1, // SQ_TEX_XY_FILTER_BILINEAR
        m => return refuse(SAMPLER_UNSUPPORTED, format!("sampler filter mode {m}")),
    };
    if d.coordinate_mode > 1 {
        return refuse(
            SAMPLER_UNSUPPORTED,
            format!("sampler coordinate mode {}", d.coordinate_mode),
        );
    }
    let unnormalized = u32::from(d.coordinate_mode == 0);
    Ok([
        clamp | clamp << 3 | clamp << 6 | unnormalized << 15,
        4095 << 12,
        filter << 20 | filter << 22,
        0,
    ])
}

/// An image the runtime made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostImage {
    /// What it is.
    pub desc: ImageDesc,
    /// Its texels.
    pub data: u64,
    /// Their layout.
    pub layout: DataInfo,
}

impl HostImage {
    /// The address of texel `(x, y, slice)`.
    pub fn texel(&self, x: u64, y: u64, slice: u64) -> u64 {
        self.data
            + slice * self.layout.slice_pitch
            + y * self.layout.row_pitch
            + x * self.desc.texel_bytes() as u64
    }
}

/// The images and samplers a runtime made, by handle.
#[derive(Debug, Default)]
pub struct Images {
    images: Mutex<BTreeMap<u64, HostImage>>,
    samplers: Mutex<BTreeMap<u64, ()>>,
}

/// A region of an image, in texels (`hsa_ext_image_region_t`: offset then
/// range, each x, y, z).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Region {
    /// First texel.
    pub offset: [u32; 3],
    /// Texels in each direction.
    pub range: [u32; 3],
}

impl Runtime {
    /// Makes an image over texels at `data` (`hsa_ext_image_create` and
    /// `_with_layout`): writes its image object where the device reads it
    /// and returns the handle.
    pub fn create_image(
        &self,
        desc: &Descriptor,
        data: u64,
        row_pitch: u64,
        slice_pitch: u64,
    ) -> Result<u64, ImageError> {
        let sim = desc.to_sim()?;
        let gpu = self.card.gpu;
        let layout = data_info(gpu, &sim, row_pitch, slice_pitch)?;
        if data % ROW_PITCH_ALIGNMENT != 0 {
            return refuse(
                crate::image::PITCH_UNSUPPORTED,
                format!(
                    "image data at {data:#x} is not 256-byte aligned (the T# drops the low 8 bits)"
                ),
            );
        }
        let pitch = (layout.row_pitch / sim.texel_bytes() as u64) as u32;
        let words = sim.object_words_pitched(gpu, data, pitch);
        let handle = self.write_object(&words)?;
        let img = HostImage {
            desc: sim,
            data,
            layout,
        };
        self.images
            .images
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(handle, img);
        Ok(handle)
    }

    /// Makes a sampler (`hsa_ext_sampler_create`); returns its handle.
    pub fn create_sampler(&self, d: &SamplerDescriptor) -> Result<u64, ImageError> {
        let words = sampler_words(d)?;
        let handle = self.write_object(&words)?;
        self.images
            .samplers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(handle, ());
        Ok(handle)
    }

    /// Writes a descriptor object to fresh memory the device reads.
    fn write_object(&self, words: &[u32]) -> Result<u64, ImageError> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let oom = |e: crate::memory::MemError| ImageError {
            status: 0x1008,
            why: format!("image object: {e}"),
        };
        let at = self
            .memory
            .alloc_shared(&self.device, bytes.len() as u64, None)
            .map_err(oom)?;
        // SAFETY: `at` is a fresh allocation of `bytes.len()` bytes; the
        // source is our own buffer.
        unsafe {
            self.memory
                .copy(&self.device, at, bytes.as_ptr() as u64, bytes.len() as u64)
                .map_err(oom)?
        };
        Ok(at)
    }

    /// The image behind a handle.
    pub fn image(&self, handle: u64) -> Option<HostImage> {
        self.images
            .images
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&handle)
            .copied()
    }

    /// Forgets an image and frees its object; false if it is not one.
    pub fn destroy_image(&self, handle: u64) -> bool {
        let known = self
            .images
            .images
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&handle);
        known.is_some() && self.memory.free(&self.device, handle).is_ok()
    }

    /// Forgets a sampler and frees its object; false if it is not one.
    pub fn destroy_sampler(&self, handle: u64) -> bool {
        let known = self
            .images
            .samplers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&handle);
        known.is_some() && self.memory.free(&self.device, handle).is_ok()
    }

    /// Copies a region between an image and linear memory at `mem` with the
    /// given pitches (0: tightly packed), `to_image` saying which way
    /// (`hsa_ext_image_import` / `_export`).
    ///
    /// # Safety
    /// `mem` must be valid for the region's bytes at those pitches.
    pub unsafe fn image_transfer(
        &self,
        handle: u64,
        mem: u64,
        row_pitch: u64,
        slice_pitch: u64,
        region: &Region,
        to_image: bool,
    ) -> Result<(), ImageError> {
        let img = self.checked_region(handle, region)?;
        let texel = img.desc.texel_bytes() as u64;
        let [x0, y0, z0] = region.offset.map(u64::from);
        let [w, h, d] = region.range.map(u64::from);
        let row = if row_pitch == 0 { w * texel } else { row_pitch };
        let slice = if slice_pitch == 0 {
            row * h
        } else {
            slice_pitch
        };
        for z in 0..d {
            for y in 0..h {
                let at_image = img.texel(x0, y0 + y, z0 + z);
                let at_mem = mem + z * slice + y * row;
                let (dst, src) = if to_image {
                    (at_image, at_mem)
                } else {
                    (at_mem, at_image)
                };
                // SAFETY: the image rows are within its data (checked); the
                // memory side per the function's contract.
                unsafe { self.memory.copy(&self.device, dst, src, w * texel) }.map_err(|e| {
                    ImageError {
                        status: 0x1001,
                        why: e.to_string(),
                    }
                })?;
            }
        }
        Ok(())
    }

    /// Copies a region from one image to another of the same texel size
    /// (`hsa_ext_image_copy`).
    pub fn image_copy(
        &self,
        src: u64,
        src_offset: [u32; 3],
        dst: u64,
        dst_offset: [u32; 3],
        range: [u32; 3],
    ) -> Result<(), ImageError> {
        let s = self.checked_region(
            src,
            &Region {
                offset: src_offset,
                range,
            },
        )?;
        let d = self.checked_region(
            dst,
            &Region {
                offset: dst_offset,
                range,
            },
        )?;
        let texel = s.desc.texel_bytes() as u64;
        if texel != d.desc.texel_bytes() as u64 {
            return refuse(
                0x1001,
                "images with different texel sizes cannot be copied".into(),
            );
        }
        let [sx, sy, sz] = src_offset.map(u64::from);
        let [dx, dy, dz] = dst_offset.map(u64::from);
        let [w, h, n] = range.map(u64::from);
        // Rows are copied in order; overlapping regions of one image are
        // undefined in HSA's specification.
        for z in 0..n {
            for y in 0..h {
                let (from, to) = (s.texel(sx, sy + y, sz + z), d.texel(dx, dy + y, dz + z));
                // SAFETY: both rows lie within their images (checked).
                unsafe { self.memory.copy(&self.device, to, from, w * texel) }.map_err(|e| {
                    ImageError {
                        status: 0x1001,
                        why: e.to_string(),
                    }
                })?;
            }
        }
        Ok(())
    }

    /// The image behind `handle`, if `region` lies within it.
    fn checked_region(&self, handle: u64, region: &Region) -> Result<HostImage, ImageError> {
        let Some(img) = self.image(handle) else {
            return refuse(0x1001, format!("{handle:#x} is not an image"));
        };
        let dims = [img.desc.width, img.desc.rows(), img.desc.slices()];
        for k in 0..3 {
            let end = region.offset[k] as u64 + region.range[k] as u64;
            if end > dims[k] as u64 {
                return refuse(
                    0x1001,
                    format!(
                        "region {:?}+{:?} outside a {}x{}x{} image",
                        region.offset, region.range, dims[0], dims[1], dims[2]
                    ),
                );
            }
        }
        Ok(img)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amdgpu_isa::Gpu;

    fn rgba8(width: usize, height: usize) -> Descriptor {
        Descriptor {
            geometry: 1,
            width,
            height,
            channel_type: 11,
            channel_order: 8,
            ..Descriptor::default()
        }
    }

    #[test]
    fn the_natural_layout_rounds_rows_to_256_bytes() {
        let d = rgba8(75, 3).to_sim().unwrap();
        let i = data_info(Gpu::Gfx900, &d, 0, 0).unwrap();
        assert_eq!((i.row_pitch, i.slice_pitch, i.size), (512, 1536, 1536));
        assert_eq!(i.alignment, 256);
    }

    #[test]
    fn explicit_pitches_are_kept_where_the_t_sharp_states_them() {
        let d = rgba8(75, 3).to_sim().unwrap();
        // GFX9 and gfx1030 2-D images carry a pitch field.
        for gpu in [Gpu::Gfx900, Gpu::Gfx90a, Gpu::Gfx1030] {
            let i = data_info(gpu, &d, 768, 0).unwrap();
            assert_eq!((i.row_pitch, i.size), (768, 2304), "{gpu}");
        }
        // gfx1010 has none: only the natural pitch.
        let e = data_info(Gpu::Gfx1010, &d, 768, 0).unwrap_err();
        assert_eq!(e.status, PITCH_UNSUPPORTED, "{e}");
        assert!(data_info(Gpu::Gfx1010, &d, 512, 0).is_ok());
        // Not a whole number of texels, narrower than the image, or a
        // slice pitch the T# cannot state.
        for (row, slice) in [(302, 0), (296, 0), (512, 4096)] {
            let e = data_info(Gpu::Gfx900, &d, row, slice).unwrap_err();
            assert_eq!(e.status, PITCH_UNSUPPORTED, "{row}/{slice}: {e}");
        }
    }

    #[test]
    fn what_amdsim_images_are_not_is_refused_with_the_extension_status() {
        let mut d = rgba8(4, 4);
        d.channel_order = 9; // BGRA
        assert_eq!(d.to_sim().unwrap_err().status, FORMAT_UNSUPPORTED);
        let mut d = rgba8(4, 4);
        d.channel_type = 6; // UNORM_SHORT_565
        assert_eq!(d.to_sim().unwrap_err().status, FORMAT_UNSUPPORTED);
        let mut d = rgba8(4, 0);
        d.geometry = 5; // 1DB
        let e = d.to_sim().unwrap_err();
        assert!(e.why.contains("1DB"), "{e}");
        assert_eq!(
            rgba8(16385, 1).to_sim().unwrap_err().status,
            SIZE_UNSUPPORTED
        );
        assert_eq!(capability(1, 11, 8), 0x17);
        assert_eq!(capability(5, 11, 8), 0);
        assert_eq!(capability(1, 11, 9), 0);
    }

    #[test]
    fn samplers_encode_rocr_s_sharp_fields() {
        let s = |c, f, a| SamplerDescriptor {
            coordinate_mode: c,
            filter_mode: f,
            address_mode: a,
        };
        // Unnormalized, nearest, clamp to edge.
        let w = sampler_words(&s(0, 0, 1)).unwrap();
        assert_eq!(w, [2 | 2 << 3 | 2 << 6 | 1 << 15, 4095 << 12, 0, 0]);
        // Normalized, linear, mirrored repeat.
        let w = sampler_words(&s(1, 1, 4)).unwrap();
        assert_eq!(w, [1 | 1 << 3 | 1 << 6, 4095 << 12, 1 << 20 | 1 << 22, 0]);
        assert_eq!(
            sampler_words(&s(0, 0, 9)).unwrap_err().status,
            SAMPLER_UNSUPPORTED
        );
    }
}
