//! Which burn devices run revseq's kernels: every wgpu device whose runtime
//! compiles WGSL, however it was brought up, since the kernels launch on the
//! tensor's own compute client (`src/launch.rs`). Every other device takes the
//! portable path.

use burn::backend::wgpu::WgpuDevice;
use burn::backend::DispatchDevice;
use burn::tensor::wgpu::{WgpuOptions, WgpuSetup};
use burn::tensor::Device;
use burn_cubecl::cubecl::prelude::Client;
use burn_cubecl::cubecl::wgpu::WgpuRuntime;
use burn_cubecl::CubeDevice;
use cubecl_runtime::runtime::Runtime;

use crate::launch::runs_wgsl;
use crate::Error;

/// Which code runs [`reverse_sequence`](crate::reverse_sequence) and
/// [`reverse_subsequences`](crate::reverse_subsequences) on a device: the same
/// results and errors either way.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelPath {
    /// revseq's kernels, launched on the device's own compute client in burn's
    /// stream: every burn wgpu device whose runtime compiles WGSL (burn's
    /// default), whoever brought it up, fusion on or off, autodiff over it.
    Kernels,
    /// burn's own tensor operations (an index built from the lengths, then a
    /// `select` of rows): burn's CPU backend, CUDA, ROCm, LibTorch, and a wgpu
    /// runtime that compiles SPIR-V or MSL (burn's `vulkan` and `metal`
    /// features), which take no WGSL text.
    Portable,
}

/// The name this type had before 0.2.
#[deprecated(
    since = "0.2.0",
    note = "renamed `KernelPath`, which a glob import of std does not shadow"
)]
pub type Path = KernelPath;

/// The [`KernelPath`] the operators take on `device`. Brings up burn's runtime
/// for a wgpu device that has none yet, as burn's first tensor there would.
///
/// ```
/// let device = burn::tensor::Device::default();
/// assert_eq!(revseq_burn::path(&device), revseq_burn::KernelPath::Kernels);
/// ```
pub fn path(device: &Device) -> KernelPath {
    match kernel_client(device) {
        Some(_) => KernelPath::Kernels,
        None => KernelPath::Portable,
    }
}

/// The compute client revseq's kernels launch on for `device`: burn's own,
/// where `device` is a wgpu device whose runtime compiles WGSL.
pub(crate) fn kernel_client(device: &Device) -> Option<Client> {
    match device.clone().without_autodiff().as_dispatch() {
        DispatchDevice::Cube(CubeDevice::Wgpu(wgpu)) => {
            let client = <WgpuRuntime as Runtime>::client(wgpu);
            runs_wgsl(&client).then_some(client)
        }
        _ => None,
    }
}

/// Brings up burn's wgpu runtime on the default adapter and returns its device.
///
/// Before 0.2 only a device brought up here ran revseq's kernels; now every
/// wgpu device does, `Device::default()` included.
#[deprecated(
    since = "0.2.0",
    note = "every burn wgpu device runs revseq's kernels: use burn's own device (`Device::default()`)"
)]
#[cfg(not(target_family = "wasm"))]
pub fn init() -> Result<Device, Error> {
    Ok(Device::wgpu_options().init_with_setup()?.0)
}

/// [`init`] with burn's options: `options.init_with_setup()`.
#[deprecated(
    since = "0.2.0",
    note = "every burn wgpu device runs revseq's kernels: bring it up with burn's own options"
)]
#[cfg(not(target_family = "wasm"))]
pub fn init_with(options: WgpuOptions) -> Result<Device, Error> {
    Ok(options.init_with_setup()?.0)
}

/// [`init_with`] for the browser and async applications.
#[deprecated(
    since = "0.2.0",
    note = "every burn wgpu device runs revseq's kernels: bring it up with burn's own options"
)]
pub async fn init_async(options: WgpuOptions) -> Result<Device, Error> {
    Ok(options.init_with_setup_async().await?.0)
}

/// Did tell revseq the wgpu handles behind a burn device; nothing needs them now,
/// and this checks only that `device` is a wgpu device.
#[deprecated(
    since = "0.2.0",
    note = "every burn wgpu device runs revseq's kernels: nothing to register"
)]
pub fn register(device: &Device, _setup: &WgpuSetup) -> Result<(), Error> {
    wgpu_device(device, "device").map(drop)
}

/// burn's wgpu id for `device`, an autodiff device answering for the one it wraps.
fn wgpu_device(device: &Device, tensor: &'static str) -> Result<WgpuDevice, Error> {
    match device.clone().without_autodiff().as_dispatch() {
        DispatchDevice::Cube(CubeDevice::Wgpu(wgpu)) => Ok(wgpu.clone()),
        _ => Err(Error::NotWgpu {
            tensor,
            device: format!("{device:?}"),
        }),
    }
}
