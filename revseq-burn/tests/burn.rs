//! revseq-burn on burn's own wgpu device (lavapipe in CI), brought up by burn
//! itself (`Device::default()`, no revseq call first), where revseq's kernels
//! run on burn's compute client: the semantics of `common` (against revseq's
//! host reference), the fusion build, and the same bytes from the portable path
//! on the same device and on burn's CPU backend.

use std::sync::OnceLock;

mod adapter;
#[macro_use]
mod common;

use burn::tensor::{Device, DeviceKind, Int, Tensor};
use revseq_burn::KernelPath;

/// burn's default wgpu device, as a burn program makes it. Without an adapter
/// the tests fail, saying how to get one; the adapter's name goes to stderr.
fn device() -> &'static Device {
    static DEVICE: OnceLock<Device> = OnceLock::new();
    DEVICE.get_or_init(|| {
        adapter::default_device(&format!(
            "revseq-burn tests, burn fusion {},",
            if cfg!(feature = "fusion") {
                "on"
            } else {
                "off"
            }
        ))
    })
}

semantics_tests!(device());

#[test]
fn fusion_is_as_built() {
    let backend = std::any::type_name::<burn::backend::Cube>();
    assert_eq!(
        backend.contains("Fusion"),
        cfg!(feature = "fusion"),
        "burn's cube backend is {backend}"
    );
}

/// A second wgpu runtime on the same adapter, brought up by burn lazily on first
/// use, under a device id of its own.
fn another_wgpu_device() -> Device {
    let name = revseq_burn::lab::adapter(device()).unwrap().to_lowercase();
    let kind = match name.contains("llvmpipe") || name.contains("swiftshader") {
        true => DeviceKind::Cpu,
        false => DeviceKind::DiscreteGpu(0),
    };
    Device::wgpu(kind)
}

/// How many times revseq's kernels ran while `f` did.
fn kernel_runs_in(f: impl FnOnce()) -> u64 {
    let before = revseq_burn::lab::kernel_runs()[0];
    f();
    revseq_burn::lab::kernel_runs()[0] - before
}

#[test]
fn every_wgpu_device_runs_the_kernels_and_other_backends_the_portable_path() {
    for wgpu in [device().clone(), another_wgpu_device()] {
        assert_eq!(revseq_burn::path(&wgpu), KernelPath::Kernels, "{wgpu:?}");
        assert_eq!(
            revseq_burn::path(&wgpu.clone().autodiff()),
            KernelPath::Kernels
        );
        let runs = kernel_runs_in(|| {
            let x = Tensor::<2>::from_floats([[1., 2., 3.], [4., 5., 6.]], &wgpu);
            let lens = Tensor::<1, Int>::from_ints([3, 2], &wgpu);
            let y = revseq_burn::reverse_sequence(x, lens, 0, 1).unwrap();
            let y: Vec<f32> = y.into_data().try_to_vec().unwrap();
            assert_eq!(y, [3., 2., 1., 5., 4., 6.]);
        });
        assert!(runs >= 1, "{wgpu:?}: revseq's kernels did not run");
    }
    assert_eq!(revseq_burn::path(&Device::flex()), KernelPath::Portable);
    assert_eq!(
        revseq_burn::path(&Device::flex().autodiff()),
        KernelPath::Portable
    );
}

#[test]
fn both_paths_give_the_same_bytes_on_the_same_inputs() {
    let kernels = common::outputs(device(), false);
    for (other, portable) in [(device(), true), (&Device::flex(), false)] {
        let portable = common::outputs(other, portable);
        assert_eq!(kernels.len(), portable.len());
        for ((case, a), (_, b)) in kernels.iter().zip(&portable) {
            assert_eq!(
                a, b,
                "{case}: revseq's kernels against the portable path on {other:?}"
            );
        }
    }
}
