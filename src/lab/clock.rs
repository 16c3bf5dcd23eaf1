//! The laboratory's door onto autotune's clock (`src/executor/autotune/clock.rs`):
//! the benchmark times what it compares with the clock autotune decides by, so
//! that what autotune chooses and what the benchmark shows are measured the
//! same way.

use std::time::Duration;

use crate::descriptor::error::Error;
use crate::executor::autotune::clock;
use crate::executor::device::gpu::Gpu;

/// Times what is recorded into an encoder, submitted alone and waited for:
/// by the device's timestamps (a compute pass's, so `TIMESTAMP_QUERY` alone)
/// where it has them, else by the host's clock from the submission to the
/// queue's completion.
pub struct Clock(clock::Clock);

impl Clock {
    /// A clock for `gpu`'s device.
    pub fn new(gpu: &Gpu) -> Clock {
        Clock(clock::Clock::new(gpu))
    }

    /// Whether the device's timestamps time the runs.
    pub fn on_device(&self) -> bool {
        self.0.on_device()
    }

    /// How long what `record` records runs on `gpu`, submitted alone.
    pub fn time(
        &self,
        gpu: &Gpu,
        record: impl FnOnce(&mut wgpu::CommandEncoder),
    ) -> Result<Duration, Error> {
        self.0.time(gpu, |encoder| {
            record(encoder);
            Ok(())
        })
    }
}
