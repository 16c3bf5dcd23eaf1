//! Which burn devices revseq can record on: burn's wgpu runtime does not hand out
//! its `wgpu::Device` and `Queue`, so the setup that created a device is kept here,
//! keyed by burn's id for it. Every other device takes the portable path.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use burn::backend::wgpu::WgpuDevice;
use burn::backend::DispatchDevice;
use burn::tensor::wgpu::{WgpuOptions, WgpuSetup};
use burn::tensor::Device;
use burn_cubecl::CubeDevice;

use crate::Error;

fn registry() -> &'static Mutex<HashMap<WgpuDevice, revseq::Gpu>> {
    static GPUS: OnceLock<Mutex<HashMap<WgpuDevice, revseq::Gpu>>> = OnceLock::new();
    GPUS.get_or_init(Default::default)
}

/// Brings up burn's wgpu runtime on the default adapter and returns its device,
/// ready for tensors and for this crate's operators.
///
/// It is burn's own runtime (`Device::wgpu_options().init_with_setup()`): fusion,
/// autotune and memory management are burn's. Call it before burn touches the
/// default wgpu device; an initialised runtime cannot be taken over.
#[cfg(not(target_family = "wasm"))]
pub fn init() -> Result<Device, Error> {
    init_with(Device::wgpu_options())
}

/// [`init`] with burn's options: adapter kind, graphics API, memory, task batching.
#[cfg(not(target_family = "wasm"))]
pub fn init_with(options: WgpuOptions) -> Result<Device, Error> {
    let (device, setup) = options.init_with_setup()?;
    register(&device, &setup)?;
    Ok(device)
}

/// [`init_with`] for the browser and async applications.
pub async fn init_async(options: WgpuOptions) -> Result<Device, Error> {
    let (device, setup) = options.init_with_setup_async().await?;
    register(&device, &setup)?;
    Ok(device)
}

/// Tells revseq the wgpu handles behind a burn device that was initialised
/// elsewhere: `init_with_setup` returns them, and `.setup(..).init()` takes yours.
///
/// The setup must be the one burn runs `device` on: revseq submits to its queue,
/// after burn's pending work on the tensors it reads.
pub fn register(device: &Device, setup: &WgpuSetup) -> Result<(), Error> {
    let key = wgpu_device(device, "device")?;
    let gpu = revseq::Gpu::from_wgpu(setup.device.clone(), setup.queue.clone());
    registry()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .insert(key, gpu);
    Ok(())
}

/// Which code runs [`reverse_sequence`](crate::reverse_sequence) and
/// [`reverse_subsequences`](crate::reverse_subsequences) on a device: the same
/// results and errors either way.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Path {
    /// revseq's kernels, recorded on the device's own `wgpu::Device` and `Queue`:
    /// a burn wgpu device that [`init`], [`init_with`] or [`init_async`] brought up,
    /// or that [`register`] was given (autodiff over it too).
    Kernels,
    /// burn's own tensor operations (an index built from the lengths, then a
    /// `select` of rows): any other device, of any backend, including a wgpu runtime burn
    /// brought up on its own, whose handles burn 0.22 does not hand back.
    Portable,
}

/// The [`Path`] the operators take on `device`.
///
/// ```
/// # fn main() -> Result<(), revseq_burn::Error> {
/// let device = revseq_burn::init()?;
/// assert_eq!(revseq_burn::path(&device), revseq_burn::Path::Kernels);
/// # Ok(())
/// # }
/// ```
pub fn path(device: &Device) -> Path {
    match gpu_of(device, "device") {
        Ok(_) => Path::Kernels,
        Err(_) => Path::Portable,
    }
}

/// revseq's context on a registered burn device: the same `wgpu::Device` and
/// `Queue`, for revseq's own API (compiling descriptors, recording into your encoder).
pub fn gpu(device: &Device) -> Result<revseq::Gpu, Error> {
    gpu_of(device, "device")
}

/// The revseq context registered for the device `tensor` lives on.
pub(crate) fn gpu_of(device: &Device, tensor: &'static str) -> Result<revseq::Gpu, Error> {
    let key = wgpu_device(device, tensor)?;
    registry()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get(&key)
        .cloned()
        .ok_or_else(|| Error::UnregisteredDevice {
            device: format!("{device:?}"),
        })
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
