//! The benchmark's device, buffers and clocks: batches timed by autotune's own
//! clock (`revseq::clock`: the device's timestamps where it has them), in
//! rounds that alternate what they compare.
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use revseq::Gpu;
use wgpu::util::DeviceExt;

use crate::yardstick::{copy_kernels, CopyKernel};

/// Something the benchmark records into an encoder and times.
pub(crate) type Record<'a> = dyn Fn(&mut wgpu::CommandEncoder) + 'a;

pub(crate) struct Bench {
    pub(crate) gpu: Gpu,
    /// What each batch is timed by: autotune's clock, the device's
    /// timestamps around it where it has them (the GPU's own clock, without
    /// the submit and the wait).
    pub(crate) clock: revseq::clock::Clock,
    pub(crate) copy_layout: wgpu::BindGroupLayout,
    /// Every copy-kernel candidate, and its pipeline.
    pub(crate) copy_kernels: Vec<(CopyKernel, wgpu::ComputePipeline)>,
    /// `--storage-only`: the operator's tensors without copy usages (the output
    /// `COPY_SRC` alone, to read it back).
    pub(crate) storage_only: bool,
    /// `--candidates`: a device for each family, forced to it
    /// (`candidates::forced_devices`); empty without.
    pub(crate) forced: Vec<(revseq::Variant, Gpu)>,
    /// `--candidates`: the device with autotune on, beside `gpu`'s static
    /// choice.
    pub(crate) tuned: Option<Gpu>,
    /// `--recovery`: each row also compiled by autotune from a static choice
    /// forced to its slowest family.
    pub(crate) recovery: bool,
    /// The copies' source and destination ([`Bench::copy_buffers`]), of the
    /// size they were last made for.
    copies: RefCell<Option<(u64, Rc<[wgpu::Buffer; 2]>)>>,
}

/// Without a login session's `XDG_RUNTIME_DIR` (a container, a CI runner), Mesa's
/// Vulkan device-select layer asks libwayland for a compositor and prints two
/// `error:` lines. The benchmark owns its process, so before it opens the adapter
/// it gives itself an empty runtime directory, as a desktop session has; the
/// library sets nothing.
pub(crate) fn give_mesa_a_runtime_dir() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() || !cfg!(unix) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("revseq-bench-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_ok() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
    }
}

impl Bench {
    pub(crate) fn new() -> Bench {
        give_mesa_a_runtime_dir();
        let gpu = open_gpu().unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        });
        // The table times the static choice; `--candidates` adds autotune's.
        let gpu = gpu.with_autotune(false);
        let clock = revseq::clock::Clock::new(&gpu);
        let (copy_layout, copy_kernels) = copy_kernels(gpu.device());
        Bench {
            gpu,
            clock,
            copy_layout,
            copy_kernels,
            storage_only: false,
            forced: Vec::new(),
            tuned: None,
            recovery: false,
            copies: RefCell::new(None),
        }
    }

    /// A source and a destination of `bytes` for the copies each row is timed
    /// beside: made once for a size, and kept while rows keep it (every row of
    /// the table moves the same bytes).
    pub(crate) fn copy_buffers(&self, bytes: u64) -> Rc<[wgpu::Buffer; 2]> {
        let mut copies = self.copies.borrow_mut();
        match &*copies {
            Some((size, buffers)) if *size == bytes => buffers.clone(),
            _ => {
                *copies = None; // the old pair goes before the new one is made
                let buffers = Rc::new([
                    self.storage(&vec![1; bytes as usize]),
                    self.storage(&vec![0; bytes as usize]),
                ]);
                *copies = Some((bytes, buffers.clone()));
                buffers
            }
        }
    }

    pub(crate) fn storage(&self, contents: &[u8]) -> wgpu::Buffer {
        self.buffer(
            contents,
            wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        )
    }

    /// A storage buffer of `usage` besides, holding `contents`.
    pub(crate) fn buffer(&self, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.gpu
            .device()
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("bench"),
                contents,
                usage: wgpu::BufferUsages::STORAGE | usage,
            })
    }

    pub(crate) fn read_back(&self, buffer: &wgpu::Buffer) -> Vec<u8> {
        let device = self.gpu.device();
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bench readback"),
            size: buffer.size(),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
        self.gpu.queue().submit([encoder.finish()]);
        staging.map_async(wgpu::MapMode::Read, .., |r| r.expect("map failed"));
        wait(device);
        let view = staging.get_mapped_range(..).expect("mapped range");
        view.to_vec()
    }

    /// Seconds per run of `record`, timed over a batch submitted and waited on
    /// by autotune's clock: the device's timestamps where it has them, else
    /// the host's clock.
    pub(crate) fn time_per_run(&self, batch: u32, record: &Record) -> f64 {
        let timed = self.clock.time(&self.gpu, |encoder| {
            for _ in 0..batch {
                record(encoder);
            }
        });
        let duration = timed.unwrap_or_else(|error| panic!("timing a batch: {error}"));
        duration.as_secs_f64() / f64::from(batch)
    }

    /// Seconds per run of each of `runs` in each round: the rounds alternate
    /// between them in batches of about 25 ms, so that all see the same machine
    /// state, for `seconds` and at least 5 rounds.
    pub(crate) fn time_rounds(&self, seconds: f64, runs: &[&Record]) -> Vec<Vec<f64>> {
        let batches: Vec<u32> = runs
            .iter()
            .map(|run| {
                self.time_per_run(1, run); // warm-up: pipelines, first touch of memory
                ((0.025 / self.time_per_run(1, run)) as u32).clamp(1, 64)
            })
            .collect();
        let mut times = vec![Vec::new(); runs.len()];
        let deadline = Instant::now() + Duration::from_secs_f64(seconds);
        while Instant::now() < deadline || times[0].len() < 5 {
            for ((run, &batch), times) in runs.iter().zip(&batches).zip(&mut times) {
                times.push(self.time_per_run(batch, run));
            }
        }
        times
    }

    /// Median seconds per run of each of `runs` ([`Bench::time_rounds`]).
    pub(crate) fn time(&self, seconds: f64, runs: &[&Record]) -> Vec<f64> {
        self.time_rounds(seconds, runs)
            .into_iter()
            .map(median)
            .collect()
    }
}

/// The adapter `Gpu::new` opens, with its device asked also for timestamp
/// queries where the adapter has them.
pub(crate) fn open_gpu() -> Result<Gpu, revseq::Error> {
    let adapter = pollster::block_on(revseq::adapter_from_env())?;
    let wanted = wgpu::Features::SHADER_INT64 | wgpu::Features::TIMESTAMP_QUERY;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("revseq bench"),
        required_features: adapter.features() & wanted,
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .map_err(|e| revseq::Error::RequestDevice {
        adapter: adapter.get_info().name,
        message: e.to_string(),
    })?;
    Ok(Gpu::from_wgpu(device, queue))
}

/// Waits for everything submitted so far in slices of 20 ms (`PollType::Wait`
/// with a timeout), never one long wait. Safe here, where one thread polls: in
/// wgpu-core 30 such a wait that times out while another thread polls the same
/// device can trip an assertion, so the library's `wait_for_queue` polls without
/// waiting instead, pausing between polls, which would blur wall-clock times.
pub(crate) fn wait(device: &wgpu::Device) {
    loop {
        match device.poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: Some(Duration::from_millis(20)),
        }) {
            Ok(_) => return,
            Err(wgpu::PollError::Timeout) => continue,
            Err(error) => panic!("poll failed: {error}"),
        }
    }
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The first and third quartiles of `v`: the spread of a row's per-round ratios.
pub(crate) fn quartiles(mut v: Vec<f64>) -> [f64; 2] {
    v.sort_by(f64::total_cmp);
    let at = |q: usize| v[(v.len() - 1) * q / 4];
    [at(1), at(3)]
}

pub(crate) fn geomean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0), |(s, n), v| (s + v.ln(), n + 1));
    (sum / f64::from(n)).exp()
}

/// Rounds whose baseline time (`baseline`, one a round) is more than 25% off its
/// median: a ratio taken in such a round says more about the machine than the
/// kernel.
pub(crate) fn off_rounds(baseline: &[f64]) -> usize {
    let median = median(baseline.to_vec());
    baseline
        .iter()
        .filter(|&&t| (t / median - 1.0).abs() > 0.25)
        .count()
}
