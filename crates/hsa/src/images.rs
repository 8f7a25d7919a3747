//! The image extension (`hsa_ext_image_*`, `hsa_ext_sampler_*`) over
//! `amdsim_host::image`: LINEAR images of the R, RG and RGBA orders, which
//! kernels read and write with `image_load` / `image_store`. A refused image
//! returns the extension's status and says why on stderr (ROCclr turns a
//! failed image into its own error, which alone would not say what was
//! asked). `hsa_ext_image_clear` and `hsa_amd_image_create` (interop
//! images) are not provided ([`crate::unsupported`]).

use crate::agents::GPU;
use crate::{INVALID_AGENT, INVALID_ARGUMENT, SUCCESS, Status, put, with_rt};
use amdsim_host::image::{Descriptor, ImageError, Region, SamplerDescriptor};
use libc::c_void;

/// `HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR`.
const LINEAR: u32 = 1;

/// The status of a refused request, said on stderr with the function.
fn refused(what: &str, e: ImageError) -> Status {
    eprintln!("amdsim: {what}: {e}");
    e.status
}

/// The max-dimension attributes (`HSA_EXT_AGENT_INFO_IMAGE_*_MAX_ELEMENTS`,
/// `_ARRAY_MAX_LAYERS`): ROCr's table for GFX9 and GFX10 cards, written as
/// one, two or three `uint32_t` as ROCr writes them.
///
/// # Safety
/// `out` must be writable for the attribute's value.
pub unsafe fn max_dim(attr: u32, out: *mut c_void) -> Status {
    // SAFETY: per the function's contract.
    unsafe {
        match attr {
            0x3000 | 0x3001 => put(out, 16384u32),
            0x3002 => put(out, u32::MAX),
            0x3003..=0x3006 => put(out, [16384u32; 2]),
            0x3007 => put(out, [16384u32, 16384, 8192]),
            0x3008 => put(out, 8192u32),
            _ => return INVALID_ARGUMENT,
        }
    }
    SUCCESS
}

hsa! {
    /// The image max-dimension attributes of an agent.
    fn hsa_amd_image_get_info_max_dim(agent: u64, attr: u32, out: *mut c_void) -> Status {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        if agent != GPU {
            return INVALID_AGENT;
        }
        // SAFETY: checked non-null; HSA's contract for the attribute.
        unsafe { max_dim(attr, out) }
    }
}

/// Reads a descriptor argument.
///
/// # Safety
/// `d` must be null or point to an `hsa_ext_image_descriptor_t`.
unsafe fn descriptor(d: *const Descriptor) -> Option<Descriptor> {
    // SAFETY: per the function's contract.
    (!d.is_null()).then(|| unsafe { d.read_unaligned() })
}

/// The capability of a geometry and format, for the GPU agent.
unsafe fn capability_of(
    agent: u64,
    geometry: u32,
    format: *const [u32; 2],
    out: *mut u32,
) -> Status {
    if format.is_null() || out.is_null() {
        return INVALID_ARGUMENT;
    }
    if agent != GPU {
        return INVALID_AGENT;
    }
    // SAFETY: checked non-null; HSA's contract for the pointees.
    unsafe {
        let [ty, order] = format.read_unaligned();
        out.write_unaligned(amdsim_host::image::capability(geometry, ty, order));
    }
    SUCCESS
}

hsa! {
    /// What images of a geometry and format can do on an agent.
    fn hsa_ext_image_get_capability(agent: u64, geometry: u32, format: *const [u32; 2], out: *mut u32) -> Status {
        // SAFETY: forwarded pointers, checked there.
        unsafe { capability_of(agent, geometry, format, out) }
    }
}

hsa! {
    /// What images of a geometry, format and layout can do (amdsim's images
    /// are linear, so the layout does not change the answer).
    fn hsa_ext_image_get_capability_with_layout(agent: u64, geometry: u32, format: *const [u32; 2], _layout: u32, out: *mut u32) -> Status {
        // SAFETY: forwarded pointers, checked there.
        unsafe { capability_of(agent, geometry, format, out) }
    }
}

/// `hsa_ext_image_data_info_t`.
#[repr(C)]
pub struct DataInfo {
    /// Bytes.
    pub size: usize,
    /// Alignment, bytes.
    pub alignment: usize,
}

/// The size and alignment of an image's data, with explicit pitches for the
/// linear layout.
unsafe fn data_info(
    what: &str,
    agent: u64,
    d: *const Descriptor,
    pitches: (u64, u64),
    out: *mut DataInfo,
) -> Status {
    // SAFETY: the caller's descriptor, null-checked.
    let Some(d) = (unsafe { descriptor(d) }) else {
        return INVALID_ARGUMENT;
    };
    if out.is_null() {
        return INVALID_ARGUMENT;
    }
    if agent != GPU {
        return INVALID_AGENT;
    }
    with_rt(|rt| {
        let info = d
            .to_sim()
            .and_then(|sim| amdsim_host::image::data_info(rt.card.gpu, &sim, pitches.0, pitches.1));
        match info {
            // SAFETY: checked non-null.
            Ok(i) => unsafe {
                put(
                    out as *mut c_void,
                    DataInfo {
                        size: i.size as usize,
                        alignment: i.alignment as usize,
                    },
                );
                SUCCESS
            },
            Err(e) => refused(what, e),
        }
    })
}

hsa! {
    /// The size and alignment of an image's data (opaque layout).
    fn hsa_ext_image_data_get_info(agent: u64, d: *const Descriptor, _access: u32, out: *mut DataInfo) -> Status {
        // SAFETY: forwarded pointers, checked there.
        unsafe { data_info("hsa_ext_image_data_get_info", agent, d, (0, 0), out) }
    }
}

hsa! {
    /// The size and alignment of an image's data in a given layout.
    fn hsa_ext_image_data_get_info_with_layout(agent: u64, d: *const Descriptor, _access: u32, layout: u32, row_pitch: usize, slice_pitch: usize, out: *mut DataInfo) -> Status {
        let p = if layout == LINEAR { (row_pitch as u64, slice_pitch as u64) } else { (0, 0) };
        // SAFETY: forwarded pointers, checked there.
        unsafe { data_info("hsa_ext_image_data_get_info_with_layout", agent, d, p, out) }
    }
}

/// Makes an image and writes its handle.
unsafe fn create(
    what: &str,
    agent: u64,
    d: *const Descriptor,
    data: *const c_void,
    pitches: (u64, u64),
    out: *mut u64,
) -> Status {
    // SAFETY: the caller's descriptor, null-checked.
    let Some(d) = (unsafe { descriptor(d) }) else {
        return INVALID_ARGUMENT;
    };
    if data.is_null() || out.is_null() {
        return INVALID_ARGUMENT;
    }
    if agent != GPU {
        return INVALID_AGENT;
    }
    with_rt(
        |rt| match rt.create_image(&d, data as u64, pitches.0, pitches.1) {
            // SAFETY: checked non-null.
            Ok(h) => unsafe {
                out.write_unaligned(h);
                SUCCESS
            },
            Err(e) => refused(what, e),
        },
    )
}

hsa! {
    /// An image over the caller's data (opaque layout: amdsim's linear one).
    fn hsa_ext_image_create(agent: u64, d: *const Descriptor, data: *const c_void, _access: u32, out: *mut u64) -> Status {
        // SAFETY: forwarded pointers, checked there.
        unsafe { create("hsa_ext_image_create", agent, d, data, (0, 0), out) }
    }
}

hsa! {
    /// An image over the caller's data in a given layout.
    fn hsa_ext_image_create_with_layout(agent: u64, d: *const Descriptor, data: *const c_void, _access: u32, layout: u32, row_pitch: usize, slice_pitch: usize, out: *mut u64) -> Status {
        let p = if layout == LINEAR { (row_pitch as u64, slice_pitch as u64) } else { (0, 0) };
        // SAFETY: forwarded pointers, checked there.
        unsafe { create("hsa_ext_image_create_with_layout", agent, d, data, p, out) }
    }
}

hsa! {
    /// Destroys an image (its data stays the caller's).
    fn hsa_ext_image_destroy(agent: u64, image: u64) -> Status {
        if agent != GPU {
            return INVALID_AGENT;
        }
        with_rt(|rt| if rt.destroy_image(image) { SUCCESS } else { INVALID_ARGUMENT })
    }
}

/// Reads a region argument.
unsafe fn region(r: *const Region) -> Option<Region> {
    // SAFETY: the caller's pointer, null-checked.
    (!r.is_null()).then(|| unsafe { r.read_unaligned() })
}

hsa! {
    /// Copies linear memory into a region of an image.
    fn hsa_ext_image_import(agent: u64, src: *const c_void, row_pitch: usize, slice_pitch: usize, image: u64, r: *const Region) -> Status {
        // SAFETY: the caller's region pointer.
        let Some(r) = (unsafe { region(r) }) else { return INVALID_ARGUMENT };
        if src.is_null() {
            return INVALID_ARGUMENT;
        }
        if agent != GPU {
            return INVALID_AGENT;
        }
        // SAFETY: HSA's contract makes `src` valid for the region.
        with_rt(|rt| match unsafe { rt.image_transfer(image, src as u64, row_pitch as u64, slice_pitch as u64, &r, true) } {
            Ok(()) => SUCCESS,
            Err(e) => refused("hsa_ext_image_import", e),
        })
    }
}

hsa! {
    /// Copies a region of an image to linear memory.
    fn hsa_ext_image_export(agent: u64, image: u64, dst: *mut c_void, row_pitch: usize, slice_pitch: usize, r: *const Region) -> Status {
        // SAFETY: the caller's region pointer.
        let Some(r) = (unsafe { region(r) }) else { return INVALID_ARGUMENT };
        if dst.is_null() {
            return INVALID_ARGUMENT;
        }
        if agent != GPU {
            return INVALID_AGENT;
        }
        // SAFETY: HSA's contract makes `dst` valid for the region.
        with_rt(|rt| match unsafe { rt.image_transfer(image, dst as u64, row_pitch as u64, slice_pitch as u64, &r, false) } {
            Ok(()) => SUCCESS,
            Err(e) => refused("hsa_ext_image_export", e),
        })
    }
}

hsa! {
    /// Copies a region of one image into another.
    fn hsa_ext_image_copy(agent: u64, src: u64, src_offset: *const [u32; 3], dst: u64, dst_offset: *const [u32; 3], range: *const [u32; 3]) -> Status {
        if src_offset.is_null() || dst_offset.is_null() || range.is_null() {
            return INVALID_ARGUMENT;
        }
        if agent != GPU {
            return INVALID_AGENT;
        }
        // SAFETY: checked non-null; HSA's contract for the pointees.
        let (so, d_o, n) = unsafe { (src_offset.read_unaligned(), dst_offset.read_unaligned(), range.read_unaligned()) };
        with_rt(|rt| match rt.image_copy(src, so, dst, d_o, n) {
            Ok(()) => SUCCESS,
            Err(e) => refused("hsa_ext_image_copy", e),
        })
    }
}

hsa! {
    /// A sampler: its S# (kernels that sample are reported as unsupported
    /// by the simulator; samplers are made so that programs creating
    /// texture objects run).
    fn hsa_ext_sampler_create(agent: u64, d: *const SamplerDescriptor, out: *mut u64) -> Status {
        if d.is_null() || out.is_null() {
            return INVALID_ARGUMENT;
        }
        if agent != GPU {
            return INVALID_AGENT;
        }
        // SAFETY: checked non-null.
        let d = unsafe { d.read_unaligned() };
        with_rt(|rt| match rt.create_sampler(&d) {
            // SAFETY: checked non-null.
            Ok(h) => unsafe {
                out.write_unaligned(h);
                SUCCESS
            },
            Err(e) => refused("hsa_ext_sampler_create", e),
        })
    }
}

hsa! {
    /// Destroys a sampler.
    fn hsa_ext_sampler_destroy(agent: u64, sampler: u64) -> Status {
        if agent != GPU {
            return INVALID_AGENT;
        }
        with_rt(|rt| if rt.destroy_sampler(sampler) { SUCCESS } else { INVALID_ARGUMENT })
    }
}
