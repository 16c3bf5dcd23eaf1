//! Turns wgpu's error scopes into `Result`s, so that nothing the library asks of
//! the device can reach wgpu's default handler, which panics.

use crate::Error;

/// Runs `f` inside validation, out-of-memory and internal error scopes and returns
/// the first error any of them caught.
pub(crate) fn capture<R>(
    device: &wgpu::Device,
    context: &'static str,
    f: impl FnOnce() -> R,
) -> Result<R, Error> {
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let value = f();
    // Scopes pop innermost first.
    let errors = [validation.pop(), memory.pop(), internal.pop()].map(pollster::block_on);
    match errors.into_iter().flatten().next() {
        Some(error) => Err(Error::Wgpu {
            context,
            message: error.to_string(),
        }),
        None => Ok(value),
    }
}
