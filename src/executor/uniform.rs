//! The layout uniforms on the device: uniform bytes as a program publishes
//! them (each dispatch's, [`Dispatch::uniform`](crate::program::Dispatch::uniform),
//! or each part's), one after the other on the uniform offset alignment, in
//! one buffer, and a dispatch's binding of its own.

use crate::descriptor::error::Error;
use crate::executor::device::device_lock::Held;
use crate::executor::device::gpu::Gpu;

/// Uniforms of one size in one buffer, `stride` bytes apart.
#[derive(Debug)]
pub(crate) struct Uniforms {
    buffer: Held<wgpu::Buffer>,
    /// Bytes of each: what a binding of one holds.
    size: u64,
    stride: u64,
}

impl Uniforms {
    /// The binding of the `i`-th.
    pub(crate) fn binding(&self, i: usize) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: i as u64 * self.stride,
            size: wgpu::BufferSize::new(self.size),
        })
    }
}

/// Bytes from one uniform of `size` bytes to the next in one buffer on a
/// device of `limits`.
pub(crate) fn stride(size: u64, limits: &wgpu::Limits) -> u64 {
    size.next_multiple_of(u64::from(limits.min_uniform_buffer_offset_alignment))
}

/// `each`, uniform bytes of one size, in one uniform buffer labelled `label`:
/// mapped at creation, so that on a lost device the mapping fails, which is
/// how `compile` finds out (wgpu builds an invalid pipeline without a word).
pub(crate) async fn uniforms(
    gpu: &Gpu,
    label: &'static str,
    each: &[&[u8]],
    context: &'static str,
) -> Result<Uniforms, Error> {
    let size = each
        .iter()
        .map(|bytes| bytes.len())
        .max()
        .unwrap_or(0)
        .max(4) as u64;
    let stride = stride(size, &gpu.device().limits());
    let mut contents = vec![0u8; stride as usize * each.len().max(1)];
    for (i, bytes) in each.iter().enumerate() {
        let at = i * stride as usize;
        contents[at..at + bytes.len()].copy_from_slice(bytes);
    }
    // Scoped, so that an error wgpu reports because the device was lost
    // meanwhile (the buffer destroyed before its unmap) is `DeviceLost`.
    let buffer = gpu.scoped(context, || {
        gpu.buffer_init(label, &contents, wgpu::BufferUsages::UNIFORM, context)
    });
    let buffer = buffer.await.and_then(|buffer| buffer)?;
    Ok(Uniforms {
        buffer,
        size,
        stride,
    })
}
