//! A lost device (a driver reset, `wgpu::Device::destroy`, a browser's lost GPU).
//! wgpu reports nothing for calls on a lost device: objects made after the loss
//! come out invalid, and only later calls on them fail, as validation errors or
//! as a failed mapping. So where wgpu fails, or would do nothing without a word
//! (`record`, a wait), revseq asks whether the device is lost, and says so with
//! [`Error::DeviceLost`].

use crate::descriptor::error::Error;
use crate::executor::device::device_lock::DeviceLock;
#[cfg(not(target_arch = "wasm32"))]
use crate::executor::device::scope::{now_or_never, Scope};

/// Whether `device` is lost. A buffer mapped at creation can be written at once on
/// a live device; on a lost one wgpu makes it invalid and refuses the mapping.
/// Costs one 4-byte buffer. Natively only: a browser maps such a buffer even on a
/// lost device, and reports the loss through the device's `lost` promise.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn is_lost(device: &wgpu::Device, lock: &DeviceLock) -> bool {
    lock.hold(|| {
        // Scopes of its own: an out-of-memory buffer is not a lost device, and
        // must not reach wgpu's default handler, which panics.
        let scope = Scope::push(device);
        let probe = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("revseq::lost_probe"),
            size: 4,
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        let mapped = probe.get_mapped_range_mut(..).is_ok();
        let reported = matches!(now_or_never(scope.pop("probing the device")), Some(Err(_)));
        !mapped && !reported
    })
}

#[cfg(target_arch = "wasm32")]
pub(crate) fn is_lost(_device: &wgpu::Device, _lock: &DeviceLock) -> bool {
    false
}

/// `error` as [`Error::DeviceLost`] where `device` is lost, else as it is.
pub(crate) fn or_lost(
    error: Error,
    device: &wgpu::Device,
    lock: &DeviceLock,
    context: &'static str,
) -> Error {
    match error {
        Error::DeviceLost { .. } => error,
        _ if is_lost(device, lock) => Error::DeviceLost { context },
        _ => error,
    }
}

/// `Err(DeviceLost)` where `device` is lost.
pub(crate) fn check(
    device: &wgpu::Device,
    lock: &DeviceLock,
    context: &'static str,
) -> Result<(), Error> {
    match is_lost(device, lock) {
        true => Err(Error::DeviceLost { context }),
        false => Ok(()),
    }
}
