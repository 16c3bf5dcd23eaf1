//! How autotune times a candidate's run: by the device's own timestamps where
//! the device has [`wgpu::Features::TIMESTAMP_QUERY`], the host's clock from
//! the submission to the queue's completion where it does not (or where the
//! timestamps read back make no interval: some drivers write zeros).

use std::time::{Duration, Instant};

use crate::descriptor::error::Error;
use crate::executor::device::device_lock::Held;
use crate::executor::device::gpu::Gpu;
use crate::executor::device::submission::{poll_until, wait_for_queue};

/// Timestamps written by an empty compute pass before the run and another
/// after it (pass timestamps need no feature past `TIMESTAMP_QUERY`, unlike
/// timestamps inside an encoder), resolved and read back.
struct Timestamps {
    queries: Held<wgpu::QuerySet>,
    resolved: Held<wgpu::Buffer>,
    readback: Held<wgpu::Buffer>,
    /// Nanoseconds per tick.
    period: f64,
}

pub(crate) struct Clock {
    timestamps: Option<Timestamps>,
}

impl Clock {
    pub(crate) fn new(gpu: &Gpu) -> Clock {
        let device = gpu.device();
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return Clock { timestamps: None };
        }
        let lock = gpu.device_lock();
        let queries = lock.hold(|| {
            device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("revseq::tuning_timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            })
        });
        let buffer = |usage| {
            gpu.create_buffer(&wgpu::BufferDescriptor {
                label: Some("revseq::tuning_timestamps"),
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        Clock {
            timestamps: Some(Timestamps {
                queries: Held::new(lock, queries),
                resolved: buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC),
                readback: buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST),
                period: f64::from(gpu.queue().get_timestamp_period()),
            }),
        }
    }

    /// Whether the device's timestamps time the runs.
    pub(crate) fn on_device(&self) -> bool {
        self.timestamps.is_some()
    }

    /// How long what `record` records runs, submitted alone and waited for.
    pub(crate) fn time(
        &self,
        gpu: &Gpu,
        record: impl FnOnce(&mut wgpu::CommandEncoder) -> Result<(), Error>,
    ) -> Result<Duration, Error> {
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        let mark = |encoder: &mut wgpu::CommandEncoder, t: &Timestamps, index| {
            let writes = wgpu::ComputePassTimestampWrites {
                query_set: &t.queries,
                beginning_of_pass_write_index: (index == 0).then_some(0),
                end_of_pass_write_index: (index == 1).then_some(1),
            };
            encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("revseq::tuning_timestamp"),
                timestamp_writes: Some(writes),
            });
        };
        if let Some(t) = &self.timestamps {
            mark(&mut encoder, t, 0);
        }
        record(&mut encoder)?;
        if let Some(t) = &self.timestamps {
            mark(&mut encoder, t, 1);
            encoder.resolve_query_set(&t.queries, 0..2, &t.resolved, 0);
            encoder.copy_buffer_to_buffer(&t.resolved, 0, &t.readback, 0, 16);
        }
        let start = Instant::now();
        gpu.submit([encoder.finish()]);
        wait_for_queue(gpu.device(), gpu.queue())?;
        let host = start.elapsed();
        match &self.timestamps {
            Some(t) => Ok(t.read(gpu)?.unwrap_or(host)),
            None => Ok(host),
        }
    }
}

impl Timestamps {
    /// The interval between the two timestamps just resolved, where they make
    /// one.
    fn read(&self, gpu: &Gpu) -> Result<Option<Duration>, Error> {
        let context = "reading the tuning timestamps";
        let mapped = std::sync::Arc::new(std::sync::OnceLock::new());
        let signal = mapped.clone();
        gpu.device_lock().hold(|| {
            self.readback
                .map_async(wgpu::MapMode::Read, .., move |result| {
                    let _ = signal.set(result.is_ok());
                })
        });
        poll_until(gpu.device(), gpu.device_lock(), || mapped.get().is_some())?;
        if mapped.get() != Some(&true) {
            return Err(gpu.lost_or(
                Error::Wgpu {
                    context,
                    message: "the timestamps could not be mapped".into(),
                },
                context,
            ));
        }
        let ticks = gpu.device_lock().hold(|| {
            let ticks = self.readback.get_mapped_range(..).ok().map(|view| {
                let tick = |i: usize| {
                    u64::from_le_bytes(view[i * 8..i * 8 + 8].try_into().unwrap_or_default())
                };
                [tick(0), tick(1)]
            });
            self.readback.unmap();
            ticks
        });
        Ok(ticks.and_then(|[start, end]| {
            let nanos = (end.checked_sub(start)? as f64 * self.period) as u64;
            (start != 0 && nanos != 0).then(|| Duration::from_nanos(nanos))
        }))
    }
}
