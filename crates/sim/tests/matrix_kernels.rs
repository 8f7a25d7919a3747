//! The gfx908/gfx90a matrix and dot-product built-ins compiled from OpenCL C
//! (`kernels/examples/mfma_dot.cl`, built by `kernels/examples/build.sh`), run on the
//! simulator and checked against a host computation: `mfma32` against a 32x32x2
//! matrix product computed here from the inputs, with the A/B/D lane layout the
//! MI100/MI200 instruction set guides give for `v_mfma_f32_32x32x2f32` (stated in the
//! kernel's header comment, written out below independently of the executor's own
//! layout code); `dot4` against the sum of signed byte products.

#![allow(clippy::needless_range_loop)]

use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use amdsim_sim_tests::repo_path;

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn read_f32s(dev: &Device, a: u64, n: usize) -> Vec<f32> {
    dev.read(a, n * 4)
        .expect("read back")
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn load(dev: &Device, gpu: &str) -> amdgpu_sim::Module {
    let p = repo_path(&["kernels", "examples", &format!("mfma_dot.{gpu}.co")]);
    let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    dev.load(&bytes).unwrap_or_else(|e| panic!("{gpu}: {e}"))
}

#[test]
fn mfma_32x32x2_from_opencl_is_the_host_matrix_product() {
    for gpu in ["gfx908", "gfx90a"] {
        let dev = Device::new();
        let m = load(&dev, gpu);
        // Small integers: every product and sum is exact in f32, whatever the order.
        let mut s = 0x1234_5678u32;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 17) as f32 - 8.0
        };
        let a_mat: Vec<[f32; 2]> = (0..32).map(|_| [next(), next()]).collect(); // A[i][k]
        let b_mat: Vec<[f32; 32]> = (0..2).map(|_| std::array::from_fn(|_| next())).collect(); // B[k][j]
        let c_mat: Vec<[f32; 32]> = (0..32).map(|_| std::array::from_fn(|_| next())).collect(); // C[i][j]
        // Lane l holds A[l % 32][l / 32] and B[l / 32][l % 32]; element r of lane l of C
        // and D is row 8 * (r / 4) + 4 * (l / 32) + r % 4, column l % 32.
        let a: Vec<f32> = (0..64).map(|l| a_mat[l % 32][l / 32]).collect();
        let b: Vec<f32> = (0..64).map(|l| b_mat[l / 32][l % 32]).collect();
        let at = |l: usize, r: usize| (8 * (r / 4) + 4 * (l / 32) + r % 4, l % 32);
        let c: Vec<f32> = (0..64 * 16)
            .map(|x| {
                let (i, j) = at(x / 16, x % 16);
                c_mat[i][j]
            })
            .collect();
        let pa = dev.alloc_bytes(&f32s(&a)).unwrap();
        let pb = dev.alloc_bytes(&f32s(&b)).unwrap();
        let pc = dev.alloc_bytes(&f32s(&c)).unwrap();
        let pd = dev.alloc_bytes(&vec![0u8; 64 * 16 * 4]).unwrap();
        let cfg = LaunchConfig::new_1d(
            64,
            64,
            vec![
                ArgValue::Ptr(pa),
                ArgValue::Ptr(pb),
                ArgValue::Ptr(pc),
                ArgValue::Ptr(pd),
            ],
        );
        let l = dev.launch(&m, "mfma32", cfg).unwrap();
        dev.run(&l).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        let d = read_f32s(&dev, pd, 64 * 16);
        for x in 0..64 * 16 {
            let (i, j) = at(x / 16, x % 16);
            let want = c_mat[i][j] + a_mat[i][0] * b_mat[0][j] + a_mat[i][1] * b_mat[1][j];
            assert_eq!(
                d[x],
                want,
                "{gpu}: D[{i}][{j}] (lane {}, element {})",
                x / 16,
                x % 16
            );
        }
    }
}

#[test]
fn dot4_from_opencl_sums_signed_byte_products() {
    for gpu in ["gfx908", "gfx90a"] {
        let dev = Device::new();
        let m = load(&dev, gpu);
        let n = 100usize;
        let mut s = 0x9e37_79b9u32;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        };
        let mut a: Vec<u32> = (0..n).map(|_| next()).collect();
        let mut b: Vec<u32> = (0..n).map(|_| next()).collect();
        let mut c: Vec<i32> = (0..n).map(|_| next() as i32 >> 8).collect();
        // The extremes: -128 * -128 four times, and a sum that wraps.
        a[0] = 0x8080_8080;
        b[0] = 0x8080_8080;
        c[0] = i32::MAX;
        a[1] = 0x7f7f_7f7f;
        b[1] = 0x8080_8080;
        c[1] = i32::MIN;
        let bytes = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let pa = dev.alloc_bytes(&bytes(&a)).unwrap();
        let pb = dev.alloc_bytes(&bytes(&b)).unwrap();
        let pc = dev
            .alloc_bytes(&bytes(&c.iter().map(|&x| x as u32).collect::<Vec<_>>()))
            .unwrap();
        let pd = dev.alloc_bytes(&vec![0u8; n * 4]).unwrap();
        let cfg = LaunchConfig::new_1d(
            n as u32,
            64,
            vec![
                ArgValue::Ptr(pa),
                ArgValue::Ptr(pb),
                ArgValue::Ptr(pc),
                ArgValue::Ptr(pd),
            ],
        );
        let l = dev.launch(&m, "dot4", cfg).unwrap();
        dev.run(&l).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        let d = dev.read(pd, n * 4).unwrap();
        for i in 0..n {
            let got = i32::from_le_bytes(d[4 * i..4 * i + 4].try_into().unwrap());
            let want = (0..4).fold(c[i], |acc, k| {
                let x = (a[i] >> (8 * k)) as u8 as i8 as i32;
                let y = (b[i] >> (8 * k)) as u8 as i8 as i32;
                acc.wrapping_add(x * y)
            });
            assert_eq!(
                got, want,
                "{gpu}: d[{i}] for {:#x} . {:#x} + {}",
                a[i], b[i], c[i]
            );
        }
    }
}
