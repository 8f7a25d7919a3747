//! The `image_rw` corpus kernel (`kernels/src/image_rw.cl`): OpenCL image
//! kernel arguments created with `create_image`, read with
//! `read_imageui` / `read_imagef`, written with `write_imageui`, sized with
//! `get_image_width` / `get_image_height`, on every target and build,
//! checked against the host's computation of the OpenCL definitions:
//! `write_imageui` to `CL_UNSIGNED_INT8` saturates (`convert_uchar_sat`),
//! `read_imagef` of `CL_UNORM_INT8` is `x / 255` correctly rounded, and a
//! `CL_RG` image reads as `(r, g, 0, 1)`.

use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use amdsim_host::image_object::{ChannelOrder, ChannelType, ImageDesc, create_image};
use amdsim_sim_tests::{ScratchDir, TARGETS, read_kernel};

/// The builds of a kernel for a target (`.O0g` exists for all of them here).
fn builds() -> [&'static str; 3] {
    ["image_rw.co", "image_rw.O2g.co", "image_rw.O0g.co"]
}

fn run(t: &str, file: &str) -> Result<(), String> {
    let e = |e: amdgpu_sim::SimError| e.to_string();
    let dev = Device::new();
    let m = dev.load(&read_kernel(t, file)?).map_err(e)?;
    let (w, h) = (13u32, 5u32);
    let u8x4 = ImageDesc::d2(w, h, ChannelOrder::Rgba, ChannelType::UnsignedInt8);
    let rg = ImageDesc::d2(w, h, ChannelOrder::Rg, ChannelType::UnormInt8);
    let ie = |e: amdsim_host::image_object::CreateImageError| e.to_string();
    let src = create_image(&dev, m.gpu, &u8x4).map_err(ie)?;
    let dst = create_image(&dev, m.gpu, &u8x4).map_err(ie)?;
    let fsrc = create_image(&dev, m.gpu, &rg).map_err(ie)?;
    let texel = |x: u32, y: u32| -> [u8; 4] {
        let k = y * w + x;
        [
            (k * 37) as u8,
            (k * 11 + 200) as u8,
            (k * 5) as u8,
            (k * 7) as u8,
        ]
    };
    for y in 0..h {
        for x in 0..w {
            dev.mem
                .write(src.texel_addr(4, x, y, 0), &texel(x, y))
                .map_err(|e| e.to_string())?;
            let t = texel(x, y);
            dev.mem
                .write(fsrc.texel_addr(2, x, y, 0), &[t[2], t[3]])
                .map_err(|e| e.to_string())?;
        }
    }
    let fout = dev.alloc((w * h * 16) as u64).map_err(e)?;
    let info = dev.alloc(16).map_err(e)?;
    let mut cfg = LaunchConfig::new_1d(
        1,
        1,
        vec![
            ArgValue::Ptr(src.object),
            ArgValue::Ptr(dst.object),
            ArgValue::Ptr(fsrc.object),
            ArgValue::Ptr(fout),
            ArgValue::Ptr(info),
        ],
    );
    cfg.grid = [16, 8, 1];
    cfg.group = [8, 4, 1];
    dev.dispatch(&m, "image_rw", cfg).map_err(e)?;
    let mut got_info = [0u8; 16];
    dev.mem
        .read(info, &mut got_info)
        .map_err(|e| e.to_string())?;
    let words: Vec<u32> = got_info
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    if words != [w, h, w, h] {
        return Err(format!("image sizes {words:?}, want {:?}", [w, h, w, h]));
    }
    for y in 0..h {
        for x in 0..w {
            let v = texel(x, y).map(u32::from);
            let want = [v[0] + v[1], v[1] * 3, v[2] ^ 0x5a, 300 - v[3]].map(|c| c.min(255) as u8);
            let mut got = [0u8; 4];
            dev.mem
                .read(dst.texel_addr(4, x, y, 0), &mut got)
                .map_err(|e| e.to_string())?;
            if got != want {
                return Err(format!("dst ({x}, {y}) = {got:?}, want {want:?}"));
            }
            let unorm = |b: u32| (b as f64 / 255.0) as f32;
            let want = [unorm(v[2]), unorm(v[3]), 0.0, 1.0].map(f32::to_bits);
            let mut got = [0u8; 16];
            dev.mem
                .read(fout + ((y * w + x) * 16) as u64, &mut got)
                .map_err(|e| e.to_string())?;
            let got: Vec<u32> = got
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            if got != want {
                return Err(format!("fout ({x}, {y}) = {got:x?}, want {want:x?}"));
            }
        }
    }
    // The padding of the rows (pitch 64 texels) is untouched.
    let mut pad = [0u8; 4];
    dev.mem
        .read(dst.texel_addr(4, w, 0, 0), &mut pad)
        .map_err(|e| e.to_string())?;
    if pad != [0; 4] {
        return Err(format!("row padding written: {pad:?}"));
    }
    Ok(())
}

#[test]
fn image_rw_matches_the_host() {
    let mut failures = Vec::new();
    for t in TARGETS {
        for file in builds() {
            if let Err(e) = run(t, file) {
                failures.push(format!("{t}/{file}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn bad_image_descriptions_are_errors() {
    let dev = Device::new();
    let mut d = ImageDesc::d2(0, 4, ChannelOrder::R, ChannelType::Float);
    let e = create_image(&dev, amdgpu_isa::Gpu::Gfx900, &d)
        .unwrap_err()
        .to_string();
    assert!(e.contains("width 0"), "{e}");
    d.width = 4;
    d.depth = 2;
    let e = create_image(&dev, amdgpu_isa::Gpu::Gfx1030, &d)
        .unwrap_err()
        .to_string();
    assert!(e.contains("depth 2"), "{e}");
}

/// The same kernel from a dispatch file: `Image(...)` arguments filled from a
/// file of packed texels, and an output of the written image, packed.
#[test]
fn image_arguments_in_a_dispatch_file() {
    use amdsim_host::dispatch_file::{DispatchFile, PreparedArg};
    let dir = ScratchDir::new("amdsim-image-");
    let (w, h) = (6u32, 3u32);
    let src: Vec<u8> = (0..w * h * 4).map(|k| (k * 29 % 251) as u8).collect();
    std::fs::write(dir.join("src.bin"), &src).unwrap();
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels/bin/gfx1030");
    let text = format!(
        r#"(
  code_object: "image_rw.co",
  kernel: "image_rw",
  grid: (8, 4, 1),
  workgroup: (8, 4, 1),
  args: [
    Image(width: {w}, height: {h}, order: Rgba, channel_type: UnsignedInt8, file: "{src}"),
    Image(width: {w}, height: {h}, order: Rgba, channel_type: UnsignedInt8),
    Image(width: {w}, height: {h}, order: Rg, channel_type: UnormInt8),
    Buffer(elem: F32, count: {n}),
    Buffer(elem: U32, count: 4),
  ],
  outputs: [ (arg: 1, file: "{out}"), (arg: 4, file: "{info}") ],
)"#,
        src = dir.join("src.bin").display(),
        n = w * h * 4,
        out = dir.join("dst.bin").display(),
        info = dir.join("info.bin").display(),
    );
    let d = DispatchFile::parse(&text, base, "image_rw.ron").unwrap();
    let dev = Device::new();
    let p = d.prepare(&dev).unwrap();
    assert!(matches!(p.args[0], PreparedArg::Image { .. }));
    dev.run(&p.launch).unwrap();
    d.write_outputs(&dev, &p).unwrap();
    let got = std::fs::read(dir.join("dst.bin")).unwrap();
    let want: Vec<u8> = src
        .chunks(4)
        .flat_map(|v| {
            let v = v.iter().map(|&b| b as u32).collect::<Vec<_>>();
            [v[0] + v[1], v[1] * 3, v[2] ^ 0x5a, 300 - v[3]].map(|c| c.min(255) as u8)
        })
        .collect();
    assert_eq!(got, want);
    let info = std::fs::read(dir.join("info.bin")).unwrap();
    assert_eq!(
        &info[..8],
        [w.to_le_bytes(), h.to_le_bytes()].concat().as_slice()
    );
    // A file of the wrong size is an error naming the sizes.
    std::fs::write(dir.join("src.bin"), &src[1..]).unwrap();
    let e = d.prepare(&Device::new()).unwrap_err().to_string();
    assert!(e.contains("71 bytes"), "{e}");
    // An image where the kernel takes a buffer is a kind mismatch.
    std::fs::write(dir.join("src.bin"), &src).unwrap();
    let bad = text.replace(
        "Buffer(elem: U32, count: 4)",
        "Image(width: 1, order: R, channel_type: Float)",
    );
    let e = DispatchFile::parse(
        &bad,
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels/bin/gfx1030"),
        "bad.ron",
    )
    .unwrap()
    .prepare(&Device::new())
    .unwrap_err()
    .to_string();
    assert!(e.contains("Image"), "{e}");
}
