//! revseq's calls into wgpu that take the backend's own lock (GL's context lock),
//! each through the device's [`DeviceLock`](crate::DeviceLock), and none that
//! panics on a lost device (`wgpu::util::DeviceExt::create_buffer_init` does).

use crate::descriptor::error::Error;
use crate::executor::device::device_lock::Held;
use crate::executor::device::gpu::Gpu;
use crate::executor::device::lost;
use crate::executor::device::scope::capture;

impl Gpu {
    /// A buffer of `desc`, made and later dropped under the device's lock.
    pub(crate) fn create_buffer(&self, desc: &wgpu::BufferDescriptor<'_>) -> Held<wgpu::Buffer> {
        let lock = self.device_lock();
        Held::new(lock, lock.hold(|| self.device().create_buffer(desc)))
    }

    /// A buffer of `usage` holding `contents`, padded with zeros to whole words,
    /// written while mapped at creation: [`Error::DeviceLost`] where the device
    /// cannot map it because it is lost.
    pub(crate) fn buffer_init(
        &self,
        label: &'static str,
        contents: &[u8],
        usage: wgpu::BufferUsages,
        context: &'static str,
    ) -> Result<Held<wgpu::Buffer>, Error> {
        let size = (contents.len() as u64).next_multiple_of(4).max(4);
        let buffer = self.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: true,
        });
        let written = self.device_lock().hold(|| {
            let mut view = buffer.get_mapped_range_mut(..)?;
            view.slice(..contents.len()).copy_from_slice(contents);
            drop(view);
            buffer.unmap();
            Ok::<(), wgpu::MapRangeError>(())
        });
        match written {
            Ok(()) => Ok(buffer),
            Err(error) => Err(self.lost_or(
                Error::Wgpu {
                    context,
                    message: error.to_string(),
                },
                context,
            )),
        }
    }

    /// Submits `commands` under the device's lock.
    pub(crate) fn submit(&self, commands: impl IntoIterator<Item = wgpu::CommandBuffer>) {
        self.device_lock().hold(|| {
            self.queue().submit(commands);
        });
    }

    /// `f`'s value, run inside revseq's error scopes (`src/executor/device/scope.rs`), so that
    /// nothing it asks of wgpu reaches the device's uncaptured-error handler:
    /// where wgpu reported an error meanwhile, [`Error::DeviceLost`] on a lost
    /// device, else the error ([`Error::OutOfMemory`], [`Error::Wgpu`]) naming
    /// `context`.
    pub(crate) async fn scoped<R>(
        &self,
        context: &'static str,
        f: impl FnOnce() -> R,
    ) -> Result<R, Error> {
        capture(self.device(), context, f)
            .await
            .map_err(|error| self.lost_or(error, context))
    }

    /// `error` as [`Error::DeviceLost`] where the device is lost.
    pub(crate) fn lost_or(&self, error: Error, context: &'static str) -> Error {
        lost::or_lost(error, self.device(), self.device_lock(), context)
    }

    /// `Err(DeviceLost)` where the device is lost.
    pub(crate) fn check_not_lost(&self, context: &'static str) -> Result<(), Error> {
        lost::check(self.device(), self.device_lock(), context)
    }
}
