//! Turns wgpu's error scopes into `Result`s, so that nothing the library asks of
//! the device can reach wgpu's default handler, which panics on native targets.
//!
//! Scopes are pushed and popped synchronously (wgpu keeps them per thread); only
//! the popped results are awaited. Natively they are ready at once; in a browser
//! they resolve on the event loop.

use std::future::Future;

use crate::descriptor::error::Error;

/// Validation, out-of-memory and internal error scopes, pushed together.
pub(crate) struct Scope {
    internal: wgpu::ErrorScopeGuard,
    memory: wgpu::ErrorScopeGuard,
    validation: wgpu::ErrorScopeGuard,
}

impl Scope {
    pub(crate) fn push(device: &wgpu::Device) -> Scope {
        let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
        let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        Scope {
            internal,
            memory,
            validation,
        }
    }

    /// Pops the scopes now and resolves to what they caught: where wgpu ran out
    /// of memory, [`Error::OutOfMemory`] (what failed to be made then fails
    /// validation where it is used, a consequence, not the cause); else the
    /// first validation or internal error, as [`Error::Wgpu`].
    pub(crate) fn pop(self, context: &'static str) -> impl Future<Output = Result<(), Error>> {
        // Scopes pop innermost first.
        let [validation, memory, internal] = [
            self.validation.pop(),
            self.memory.pop(),
            self.internal.pop(),
        ];
        async move {
            let (validation, memory, internal) = (validation.await, memory.await, internal.await);
            if let Some(error) = memory {
                return Err(Error::OutOfMemory {
                    context,
                    message: error.to_string(),
                });
            }
            match validation.or(internal) {
                Some(error) => Err(Error::Wgpu {
                    context,
                    message: error.to_string(),
                }),
                None => Ok(()),
            }
        }
    }
}

/// Runs `f` inside a [`Scope`] and resolves to its value, or the first error wgpu
/// reported while it ran.
pub(crate) async fn capture<R>(
    device: &wgpu::Device,
    context: &'static str,
    f: impl FnOnce() -> R,
) -> Result<R, Error> {
    let scope = Scope::push(device);
    let value = f();
    let errors = scope.pop(context);
    errors.await.map(|()| value)
}

/// The value of a future that needs no waiting, or `None` where it would have to
/// wait. Native wgpu resolves popped error scopes at once, so `record` reads them
/// without blocking.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn now_or_never<F: Future>(future: F) -> Option<F::Output> {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(value) => Some(value),
        Poll::Pending => None,
    }
}

/// Blocks on `future`: the blocking API's bridge to the async one, on targets
/// where a thread may wait.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    pollster::block_on(future)
}
