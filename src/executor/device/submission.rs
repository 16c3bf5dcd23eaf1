//! How long revseq holds the device: its waits as short polls, and its own
//! submissions bounded in time on an adapter that runs them while holding wgpu's
//! lock.
//!
//! wgpu's GL backend serialises every call through one context lock, and a
//! thread that waits for it longer than a few seconds (6 with EGL, 1 with WGL)
//! panics. revseq's own threads wait for each other on the device's
//! `DeviceLock` instead (`src/executor/device/device_lock.rs`); these bounds keep each of its
//! holds short for the threads that do not. `Device::wait` holds wgpu's lock for
//! its whole fence wait, so revseq waits by polling ([`wait_for_queue`]); on a
//! CPU GL adapter (llvmpipe) `Queue::submit` holds it while the CPU runs every
//! dispatch of the submission, so there revseq's runs cut their dispatches into
//! parts of [`default_submission_bytes`] and submit as many parts at a time as
//! ran in [`SUBMISSION_TIME`] (`Gpu::with_submission_bytes`; `docs/gl.md` has
//! the measurements).

#[cfg(not(target_arch = "wasm32"))]
use std::time::{Duration, Instant};

#[cfg(not(target_arch = "wasm32"))]
use crate::descriptor::error::Error;
#[cfg(not(target_arch = "wasm32"))]
use crate::executor::device::device_lock::DeviceLock;

/// The longest pause between two polls of a wait.
#[cfg(not(target_arch = "wasm32"))]
const MAX_PAUSE: Duration = Duration::from_millis(1);

/// How often a wait asks whether the device is lost: wgpu may never finish the
/// work of a lost device.
#[cfg(not(target_arch = "wasm32"))]
const LOST_CHECK: Duration = Duration::from_millis(100);

/// The longest one of revseq's own bounded submissions should run, where the
/// adapter runs it inside `Queue::submit` and so under wgpu's lock: far below
/// wgpu's 6 s, on a machine whose cores are busy too (`docs/gl.md`).
#[cfg(not(target_arch = "wasm32"))]
const SUBMISSION_TIME: Duration = Duration::from_millis(100);

/// Blocks until everything submitted to `queue` so far is done, polling `device`
/// without waiting in it (each poll holds the device for microseconds) and
/// pausing up to a millisecond between polls, so that other threads reach the
/// device in between: wgpu's GL backend panics in a thread kept from it for a
/// few seconds. Each poll takes the device's [`DeviceLock`].
/// revseq's own blocking calls wait this way; use it for the submissions you
/// make with [`CompiledReverse::record`](crate::CompiledReverse::record) where
/// other threads share the device. [`Error::DeviceLost`] where the device is
/// lost, before or while it waits. Not on wasm32, where nothing may block.
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
    let lock = DeviceLock::of(device);
    poll_until(device, &lock, || done.load(Ordering::Acquire))?;
    // A lost device finishes its queue without running it.
    crate::executor::device::lost::check(device, &lock, "waiting for the queue")
}

/// Polls `device` until `done`, as [`wait_for_queue`] does, each poll under
/// `lock`. Not a `PollType::Wait` with a timeout in a loop: in wgpu-core 30,
/// such a wait that times out while another thread's poll finishes the same
/// submissions trips an assertion ("If the queue is empty, the current
/// submission index ... should be at least the wait submission index",
/// gfx-rs/wgpu#9958, fixed after 30.0.2).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn poll_until(
    device: &wgpu::Device,
    lock: &DeviceLock,
    done: impl Fn() -> bool,
) -> Result<(), Error> {
    let context = "waiting for the queue";
    let mut pause = Duration::from_micros(20);
    let mut next_check = Instant::now() + LOST_CHECK;
    loop {
        lock.hold(|| device.poll(wgpu::PollType::Poll))
            .map_err(|error| Error::Wgpu {
                context: "polling the device",
                message: error.to_string(),
            })
            .map_err(|error| {
                crate::executor::device::lost::or_lost(error, device, lock, context)
            })?;
        if done() {
            return Ok(());
        }
        if Instant::now() >= next_check {
            crate::executor::device::lost::check(device, lock, context)?;
            next_check = Instant::now() + LOST_CHECK;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

/// How many of a run's commands go into each of revseq's own submissions. Without a
/// bound, all of them in one. With one, at most `bytes` of work a submission
/// and, once a submission has been timed, at most what runs in
/// [`SUBMISSION_TIME`] at the pace it ran: a bound in time, which holds however
/// busy the machine is, beside the bound in bytes; at least one command.
pub(crate) struct Pacer {
    bytes: Option<u64>,
    /// Bytes per second of the last timed submission.
    #[cfg_attr(
        target_arch = "wasm32",
        expect(dead_code, reason = "a browser's submissions are not timed")
    )]
    pace: Option<f64>,
}

impl Pacer {
    pub(crate) fn new(bytes: Option<u64>) -> Pacer {
        Pacer { bytes, pace: None }
    }

    /// How many of the commands of `command_bytes`, from the first, the next
    /// submission takes.
    pub(crate) fn take(&self, command_bytes: impl Iterator<Item = u64>) -> usize {
        let Some(bytes) = self.bytes else {
            return command_bytes.count();
        };
        #[cfg(not(target_arch = "wasm32"))]
        let budget = match self.pace {
            Some(pace) => bytes.min((pace * SUBMISSION_TIME.as_secs_f64()) as u64),
            None => bytes,
        };
        #[cfg(target_arch = "wasm32")]
        let budget = bytes;
        let mut total = 0;
        let mut count = 0;
        // Commands without bytes ride along with their neighbours.
        for command in command_bytes {
            if command > 0 && total > 0 && total + command > budget {
                break;
            }
            total += command;
            count += 1;
        }
        count
    }

    /// Runs `submit`, a submission of `bytes` of work, timing it where
    /// submissions are bounded.
    pub(crate) fn time(&mut self, bytes: u64, submit: impl FnOnce()) {
        #[cfg(not(target_arch = "wasm32"))]
        if self.bytes.is_some() {
            let started = Instant::now();
            submit();
            let seconds = started.elapsed().as_secs_f64();
            if bytes > 0 && seconds > 0.0 {
                self.pace = Some(bytes as f64 / seconds);
            }
            return;
        }
        let _ = bytes;
        submit();
    }
}

/// The output bytes a dispatch may visit in one part, and one of revseq's own
/// submissions carry at most, or `None` where a submission's length does not
/// matter: a CPU GL adapter runs a submission inside `Queue::submit`, under
/// wgpu's lock. Small parts let [`Pacer`] keep each submission near
/// [`SUBMISSION_TIME`] (`docs/gl.md` has the holds).
pub(crate) fn default_submission_bytes(info: &wgpu::AdapterInfo) -> Option<u64> {
    let runs_in_submit =
        info.backend == wgpu::Backend::Gl && info.device_type == wgpu::DeviceType::Cpu;
    runs_in_submit.then_some(4 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pacer_takes_commands_within_its_bytes_then_within_its_time() {
        assert_eq!(Pacer::new(None).take([1 << 40, 1 << 40, 0].into_iter()), 3);
        let mut pacer = Pacer::new(Some(100));
        assert_eq!(pacer.take([40, 40, 40].into_iter()), 2);
        // At least one command, however large; commands without work ride along.
        assert_eq!(pacer.take([0, 150, 10].into_iter()), 2);
        assert_eq!(pacer.take([150, 0, 1].into_iter()), 2);
        // At 250 bytes a second, 25 bytes run in SUBMISSION_TIME (0.1 s).
        pacer.pace = Some(250.0);
        assert_eq!(pacer.take([10, 10, 10].into_iter()), 2);
        pacer.time(64, || std::thread::sleep(Duration::from_millis(20)));
        let pace = pacer.pace.unwrap();
        assert!(pace > 0.0 && pace <= 64.0 / 0.02, "{pace} bytes a second");
    }
}
