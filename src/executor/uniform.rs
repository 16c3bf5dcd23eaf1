//! The layout uniforms on the device: each dispatch's uniform bytes
//! ([`Binding::Params`](crate::program::Binding)), one after the other on the
//! uniform offset alignment, in one buffer, and a dispatch's binding of its
//! own.

use crate::descriptor::error::Error;
use crate::executor::device_lock::Held;
use crate::executor::gpu::Gpu;
use crate::kernels::params::PARAMS_SIZE;

/// `params`, each a dispatch's uniform bytes, [`params_stride`] bytes apart,
/// in one uniform buffer labelled
/// `label`: mapped at creation, so that on a lost device the mapping fails, which
/// is how `compile` finds out (wgpu builds an invalid pipeline without a word).
pub(crate) async fn uniform(
    gpu: &Gpu,
    label: &'static str,
    params: impl ExactSizeIterator<Item = impl AsRef<[u8]>>,
    context: &'static str,
) -> Result<Held<wgpu::Buffer>, Error> {
    let stride = params_stride(&gpu.device().limits()) as usize;
    let mut uniform = vec![0u8; stride * params.len()];
    for (i, params) in params.enumerate() {
        let params = params.as_ref();
        uniform[i * stride..i * stride + params.len()].copy_from_slice(params);
    }
    // Scoped, so that an error wgpu reports because the device was lost
    // meanwhile (the buffer destroyed before its unmap) is `DeviceLost`.
    let buffer = gpu.scoped(context, || {
        gpu.buffer_init(label, &uniform, wgpu::BufferUsages::UNIFORM, context)
    });
    buffer.await.and_then(|buffer| buffer)
}

/// The `Params` at index `i` of `uniform`, `stride` bytes apart.
pub(crate) fn params_binding(
    uniform: &wgpu::Buffer,
    i: usize,
    stride: u64,
) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer: uniform,
        offset: i as u64 * stride,
        size: wgpu::BufferSize::new(PARAMS_SIZE),
    })
}

/// Bytes from one dispatch's `Params` to the next in the uniform buffer.
pub(crate) fn params_stride(limits: &wgpu::Limits) -> u64 {
    PARAMS_SIZE.next_multiple_of(u64::from(limits.min_uniform_buffer_offset_alignment))
}
