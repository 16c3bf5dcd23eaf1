//! revseq-burn on burn's own wgpu device (lavapipe in CI), where revseq's
//! kernels run: the semantics of `common` (against revseq's host reference), the
//! fusion build, and the same bytes from the portable path on a wgpu runtime burn
//! brought up itself and on burn's CPU backend.

use std::io::Write;
use std::sync::OnceLock;

#[macro_use]
mod common;

use burn::tensor::{Device, DeviceKind};
use revseq_burn::{Error, Path};

/// burn's wgpu device, brought up by revseq-burn. Without an adapter the tests
/// fail, saying how to get one; the adapter's name goes to stderr.
fn device() -> &'static Device {
    static DEVICE: OnceLock<Device> = OnceLock::new();
    DEVICE.get_or_init(|| {
        let device = revseq_burn::init().unwrap_or_else(|e| {
            panic!(
                "revseq-burn tests need a wgpu adapter and found none: {e}\n\
                 On Debian or Ubuntu: apt-get update && apt-get install -y mesa-vulkan-drivers"
            )
        });
        let info = revseq_burn::gpu(&device)
            .expect("registered")
            .adapter_info();
        let _ = writeln!(
            std::io::stderr(),
            "revseq-burn tests run on adapter {:?} ({:?} backend, driver {:?}), burn fusion {}",
            info.name,
            info.backend,
            info.driver_info,
            if cfg!(feature = "fusion") {
                "on"
            } else {
                "off"
            }
        );
        device
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

/// A wgpu runtime that burn brings up itself, lazily on first use: its wgpu
/// handles never pass through revseq-burn.
fn wgpu_device_burn_brought_up() -> Device {
    let kind = match revseq_burn::gpu(device())
        .unwrap()
        .adapter_info()
        .device_type
    {
        revseq::wgpu::DeviceType::DiscreteGpu => DeviceKind::DiscreteGpu(0),
        revseq::wgpu::DeviceType::IntegratedGpu => DeviceKind::IntegratedGpu(0),
        revseq::wgpu::DeviceType::VirtualGpu => DeviceKind::VirtualGpu(0),
        _ => DeviceKind::Cpu,
    };
    Device::wgpu(kind)
}

#[test]
fn each_device_takes_its_path_and_revseq_names_the_unregistered_one() {
    assert_eq!(revseq_burn::path(device()), Path::Kernels);
    assert_eq!(
        revseq_burn::path(&device().clone().autodiff()),
        Path::Kernels
    );
    let other = wgpu_device_burn_brought_up();
    assert_eq!(revseq_burn::path(&other), Path::Portable);
    assert_eq!(revseq_burn::path(&Device::flex()), Path::Portable);
    let err = revseq_burn::gpu(&other).unwrap_err();
    assert!(matches!(err, Error::UnregisteredDevice { .. }), "{err}");
    assert!(err.to_string().contains("revseq_burn::init"), "{err}");
    let err = revseq_burn::gpu(&Device::flex()).unwrap_err();
    assert!(matches!(err, Error::NotWgpu { .. }), "{err}");
}

#[test]
fn both_paths_give_the_same_bytes_on_the_same_inputs() {
    let kernels = common::outputs(device());
    for other in [wgpu_device_burn_brought_up(), Device::flex()] {
        let portable = common::outputs(&other);
        assert_eq!(kernels.len(), portable.len());
        for ((case, a), (_, b)) in kernels.iter().zip(&portable) {
            assert_eq!(
                a, b,
                "{case}: revseq's kernels against the portable path on {other:?}"
            );
        }
    }
}
