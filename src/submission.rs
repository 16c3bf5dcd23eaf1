//! How long revseq holds the device: its waits as short polls, and its own
//! submissions cut into parts on an adapter that runs them while holding wgpu's
//! lock.
//!
//! wgpu's GL backend serialises every call through one context lock, and a
//! thread that waits for it longer than a few seconds (6 with EGL, 1 with WGL)
//! panics. `Device::wait` holds the lock for its whole fence wait, and on a CPU
//! GL adapter (llvmpipe) `Queue::submit` holds it while the CPU runs every
//! dispatch of the submission. So revseq waits by polling ([`wait_for_queue`]), and on
//! such an adapter its own runs submit at most [`default_submission_bytes`] of
//! work at a time (`Gpu::with_submission_bytes`; `docs/gl.md` has the
//! measurements).

#[cfg(not(target_arch = "wasm32"))]
use std::time::Duration;

#[cfg(not(target_arch = "wasm32"))]
use crate::error::Error;

/// The longest pause between two polls of a wait.
#[cfg(not(target_arch = "wasm32"))]
const MAX_PAUSE: Duration = Duration::from_millis(1);

/// Blocks until everything submitted to `queue` so far is done, polling `device`
/// without waiting in it (each poll holds the device for microseconds) and
/// pausing up to a millisecond between polls, so that other threads reach the
/// device in between: wgpu's GL backend panics in a thread kept from it for a
/// few seconds. revseq's own blocking calls wait this way; use it for the
/// submissions you make with [`CompiledReverse::record`](crate::CompiledReverse::record)
/// where other threads share the device. Not on wasm32, where nothing may block.
///
/// ```
/// # fn main() -> Result<(), revseq::Error> {
/// let gpu = revseq::Gpu::new()?;
/// let encoder = gpu.device().create_command_encoder(&Default::default());
/// gpu.queue().submit([encoder.finish()]);
/// revseq::wait_for_queue(gpu.device(), gpu.queue())?;
/// # Ok(())
/// # }
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn wait_for_queue(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<(), Error> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let done = Arc::new(AtomicBool::new(false));
    let signal = done.clone();
    queue.on_submitted_work_done(move || signal.store(true, Ordering::Release));
    poll_until(device, || done.load(Ordering::Acquire))
}

/// Polls `device` until `done`, as [`wait_for_queue`] does. Not a
/// `PollType::Wait` with a timeout in a loop: in wgpu-core 30, such a wait that
/// times out while another thread's poll finishes the same submissions trips an
/// assertion ("If the queue is empty, the current submission index ... should be
/// at least the wait submission index", gfx-rs/wgpu#9958, fixed after 30.0.2).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn poll_until(device: &wgpu::Device, done: impl Fn() -> bool) -> Result<(), Error> {
    let mut pause = Duration::from_micros(20);
    loop {
        device
            .poll(wgpu::PollType::Poll)
            .map_err(|error| Error::Wgpu {
                context: "polling the device",
                message: error.to_string(),
            })?;
        if done() {
            return Ok(());
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

/// Output bytes a dispatch may visit in one submission of revseq's own, or
/// `None` where a submission's length does not matter: a CPU GL adapter runs a
/// submission inside `Queue::submit`, under wgpu's lock, so a bound keeps each
/// hold far below wgpu's 6 s (`docs/gl.md` has the holds).
pub(crate) fn default_submission_bytes(info: &wgpu::AdapterInfo) -> Option<u64> {
    let runs_in_submit =
        info.backend == wgpu::Backend::Gl && info.device_type == wgpu::DeviceType::Cpu;
    runs_in_submit.then_some(32 << 20)
}
