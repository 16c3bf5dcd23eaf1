//! One lock per device on backends where wgpu serialises every call through a
//! context lock of its own that panics when a thread waits for it too long: GL,
//! whose `AdapterContext::lock` gives up after 6 s with EGL and 1 s with WGL
//! ("Could not lock adapter context"). Every call of revseq's that can take
//! wgpu's lock (buffer creation and drop, pipeline creation and drop, uploads,
//! submits, polls, maps) takes this one first. It waits without a timeout, so
//! revseq's threads wait for each other here and reach wgpu's lock only when no
//! other revseq thread holds it. Elsewhere it is no lock at all.
//!
//! Destructors go through it too ([`Held`]), and never let a panic out: a panic
//! in a destructor while a thread unwinds aborts the process.

use std::ops::Deref;
use std::panic::{catch_unwind, AssertUnwindSafe};
#[cfg(not(target_arch = "wasm32"))]
use std::sync::{Arc, Mutex, PoisonError, Weak};

#[cfg(not(target_arch = "wasm32"))]
use parking_lot::ReentrantMutex;

/// The lock revseq takes around its wgpu calls on one device (`docs/gl.md`).
///
/// On GL, wgpu panics in a thread kept from its context lock for 6 s, and a
/// thread that submits, polls or creates buffers holds that lock for as long as
/// the call takes. Callers that share a GL device with revseq and call wgpu from
/// other threads can take this lock around their own calls, so that those calls
/// and revseq's wait for each other here, without a timeout, and never on wgpu's
/// lock. [`DeviceLock::of`] gives the same lock for the same device, however many
/// [`Gpu`](crate::Gpu)s wrap it. It is reentrant: a thread that holds it may take
/// it again, and may call revseq while it holds it. On other backends it locks
/// nothing and costs nothing.
///
/// ```
/// # fn main() -> Result<(), revseq::Error> {
/// let gpu = revseq::Gpu::new()?;
/// let lock = revseq::DeviceLock::of(gpu.device());
/// let encoder = gpu.device().create_command_encoder(&Default::default());
/// lock.hold(|| gpu.queue().submit([encoder.finish()]));
/// revseq::wait_for_queue(gpu.device(), gpu.queue())?; // polls under the lock
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct DeviceLock {
    shared: Option<SharedRef>,
}

/// In a browser there is one thread, and no GL context lock: no lock.
#[cfg(target_arch = "wasm32")]
type SharedRef = std::convert::Infallible;
#[cfg(not(target_arch = "wasm32"))]
type SharedRef = Arc<Shared>;

#[cfg(not(target_arch = "wasm32"))]
struct Shared {
    /// The device the lock is for; only compared.
    device: wgpu::Device,
    /// Where wgpu-hal keeps the device ([`identity`]), where it can be read.
    identity: Option<usize>,
    mutex: ReentrantMutex<()>,
}

/// The address of `device`'s wgpu-hal GL device: what tells apart devices that
/// compare equal. A `wgpu::Device` compares by an id that each
/// `wgpu::Instance` numbers from the start, so the first devices of two
/// instances compare equal; sharing one lock, each would wait for the other's
/// calls, however long (a CPU adapter runs a whole submission inside
/// `Queue::submit`). `None` where revseq is built without GL.
#[cfg(all(not(target_arch = "wasm32"), feature = "gles"))]
fn identity(device: &wgpu::Device) -> Option<usize> {
    // SAFETY: only the address is read, the guard dropped at once; nothing is
    // destroyed or used.
    let hal = unsafe { device.as_hal::<wgpu::hal::api::Gles>() }?;
    Some(&*hal as *const wgpu::hal::gles::Device as usize)
}

#[cfg(all(not(target_arch = "wasm32"), not(feature = "gles")))]
fn identity(_device: &wgpu::Device) -> Option<usize> {
    None
}

/// The locks of devices something still holds a lock of.
#[cfg(not(target_arch = "wasm32"))]
static LOCKS: Mutex<Vec<Weak<Shared>>> = Mutex::new(Vec::new());

impl DeviceLock {
    /// The lock of `device`: none in a browser.
    #[cfg(target_arch = "wasm32")]
    pub fn of(_device: &wgpu::Device) -> DeviceLock {
        DeviceLock { shared: None }
    }

    /// The lock of `device`: on GL, one shared by every call of this function for
    /// the same device while any of them is alive; elsewhere, none.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn of(device: &wgpu::Device) -> DeviceLock {
        if device.adapter_info().backend != wgpu::Backend::Gl {
            return DeviceLock { shared: None };
        }
        let mut locks = LOCKS.lock().unwrap_or_else(PoisonError::into_inner);
        locks.retain(|lock| lock.strong_count() > 0);
        let identity = identity(device);
        let found = locks
            .iter()
            .filter_map(Weak::upgrade)
            .find(|shared| shared.device == *device && shared.identity == identity);
        let shared = found.unwrap_or_else(|| {
            let shared = Arc::new(Shared {
                device: device.clone(),
                identity,
                mutex: ReentrantMutex::new(()),
            });
            locks.push(Arc::downgrade(&shared));
            shared
        });
        DeviceLock {
            shared: Some(shared),
        }
    }

    /// Runs `f` holding the lock, waiting for it as long as it takes.
    pub fn hold<R>(&self, f: impl FnOnce() -> R) -> R {
        #[cfg(not(target_arch = "wasm32"))]
        let _guard = self.shared.as_ref().map(|shared| shared.mutex.lock());
        f()
    }

    /// Whether this thread holds the lock (never where it locks nothing).
    pub(crate) fn held_here(&self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        let held = (self.shared.as_ref()).is_some_and(|s| s.mutex.is_owned_by_current_thread());
        #[cfg(target_arch = "wasm32")]
        let held = false;
        held
    }

    /// Whether this lock serialises anything: true on GL.
    pub fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// Drops `value` holding the lock; a panic inside wgpu while it does (a
    /// caller's thread kept wgpu's lock for seconds) is caught, so that no
    /// destructor of revseq's panics. What wgpu failed to release stays with wgpu.
    pub(crate) fn drop_quietly<T>(&self, value: T) {
        self.hold(|| {
            let _ = catch_unwind(AssertUnwindSafe(move || drop(value)));
        });
    }
}

impl std::fmt::Debug for DeviceLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceLock")
            .field("shared", &self.is_shared())
            .finish()
    }
}

/// A wgpu object of revseq's that is dropped under its device's lock, quietly.
pub(crate) struct Held<T> {
    value: Option<T>,
    lock: DeviceLock,
}

impl<T> Held<T> {
    pub(crate) fn new(lock: &DeviceLock, value: T) -> Held<T> {
        Held {
            value: Some(value),
            lock: lock.clone(),
        }
    }
}

impl<T> Deref for Held<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.value.as_ref().expect("taken only in drop")
    }
}

impl<T> Drop for Held<T> {
    fn drop(&mut self) {
        if let Some(value) = self.value.take() {
            self.lock.drop_quietly(value);
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Held<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}
