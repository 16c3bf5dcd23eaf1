//! The device handle: the shared pipeline cache, and what the plan knows of
//! the device (its entry points are in `entry.rs`).

use std::sync::Arc;

use crate::descriptor::error::Error;
use crate::executor::device::adapter::adapter_from_env;
use crate::executor::device::choices::Choices;
use crate::executor::device::device_lock::{DeviceLock, Held};
use crate::executor::device::pipeline::{KernelPipeline, PipelineCache};
#[cfg(not(target_arch = "wasm32"))]
use crate::executor::device::scope::block_on;
use crate::executor::device::submission::default_submission_bytes;
use crate::kernels::tuning::{self, Profile, Tuning};
use crate::kernels::variant::Variant;
use crate::plan::candidates::{MAX_TUNING_BYTES, MIN_TUNED_BYTES};
use crate::plan::program::Kernel;
use crate::plan::target::Target;

/// A wgpu device and queue with this crate's pipeline cache.
/// Cheap to clone; clones share the cache.
#[derive(Clone)]
pub struct Gpu {
    inner: Arc<Inner>,
}

struct Inner {
    /// The device's lock, which every call of revseq's that can take wgpu's own
    /// lock takes first (`src/executor/device/device_lock.rs`).
    lock: DeviceLock,
    objects: Held<Objects>,
    /// What the plan tunes for, and the device's features it may use.
    profile: Profile,
    /// Bytes one storage binding may hold: the device's limit, or lower.
    max_binding: u64,
    /// Output bytes of work in one of revseq's own submissions, where bounded.
    submission_bytes: Option<u64>,
    /// Whether `compile` times the plans that can serve a descriptor and runs
    /// the fastest (`src/executor/autotune/`).
    autotune: bool,
    /// The most bytes tuning allocates at once.
    autotune_bytes: u64,
    /// Output bytes below which a class keeps the static choice untimed.
    autotune_floor: u64,
    /// The plans autotune chose, by class of descriptor.
    choices: Choices,
    /// The family the static choice is forced to where it serves the layout
    /// (the laboratory's, to prove autotune recovers from a wrong one).
    static_variant: Option<Variant>,
    /// The trace build's pipelines, shared by every clone of the device's.
    #[cfg(all(feature = "lab", not(target_arch = "wasm32")))]
    traced: Arc<Held<crate::executor::device::pipeline::TracePipelines>>,
}

/// What a [`Gpu`] is made with beside its device: what the `with_` clones change.
struct Settings {
    tuning: Tuning,
    /// Whether kernels that only move words move 64-bit ones where allowed.
    moves_64: bool,
    max_binding: u64,
    submission_bytes: Option<u64>,
    forced: Option<Variant>,
    autotune: bool,
    autotune_bytes: u64,
    autotune_floor: u64,
    static_variant: Option<Variant>,
}

/// The wgpu objects a [`Gpu`] owns, dropped under the device's lock.
struct Objects {
    device: wgpu::Device,
    queue: wgpu::Queue,
    cache: PipelineCache,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.adapter_info().name)
            .field("tuning", &self.inner.profile.tuning)
            .field("cached_pipelines", &self.cached_pipelines())
            .finish()
    }
}

impl Gpu {
    /// Opens the default adapter, blocking until it is ready. Not on wasm32, where
    /// nothing may block: use [`Gpu::new_async`].
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// let gpu = revseq::Gpu::new()?;
    /// println!("running on {}", gpu.adapter_info().name);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// Honours `WGPU_BACKEND` (e.g. `vulkan`, `gl`), `WGPU_ADAPTER_NAME` (a
    /// case-insensitive substring of the adapter's name) and
    /// `WGPU_POWER_PREF`. The device gets the adapter's own limits, so large
    /// tensors work wherever the hardware allows them.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new() -> Result<Gpu, Error> {
        block_on(Self::new_async())
    }

    /// [`Gpu::new`] without blocking: in a browser, the adapter and device WebGPU
    /// gives the page.
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// # pollster::block_on(async {
    /// let gpu = revseq::Gpu::new_async().await?;
    /// let output = gpu.reverse_subsequences_async(&[1u8, 2, 3], &[3], &[2u32], 0).await?;
    /// assert_eq!(output, [2, 1, 3]);
    /// # Ok(())
    /// # })
    /// # }
    /// ```
    pub async fn new_async() -> Result<Gpu, Error> {
        let adapter = adapter_from_env().await?;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("revseq"),
                // 64-bit integers where the adapter has them: on a CPU adapter
                // the vector kernels load and store 64-bit words where they pay
                // (`tuning::access_bits`, `tuning::move_bits`), and the general
                // kernels divide with one multiply. Timestamps where it has them:
                // autotune times the candidates by the device's clock.
                required_features: adapter.features()
                    & (wgpu::Features::SHADER_INT64 | wgpu::Features::TIMESTAMP_QUERY),
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await
            .map_err(|e| Error::RequestDevice {
                adapter: adapter.get_info().name,
                message: e.to_string(),
            })?;
        Ok(Gpu::from_wgpu(device, queue))
    }

    /// Wraps a device the caller owns. The kernels need no optional feature and
    /// only the default limits; larger limits allow larger tensors.
    /// [`wgpu::Features::SHADER_INT64`] lets a CPU adapter load and store vectors
    /// as 64-bit words where that is faster on its host (`docs/tuning.md`).
    /// The plan is tuned for the adapter's device type: a CPU adapter's, or a GPU's
    /// (`docs/tuning.md`), and on a GPU autotune picks among the plans that
    /// serve a descriptor by timing them ([`Gpu::with_autotune`]).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # pollster::block_on(async {
    /// let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    /// let adapter = instance.request_adapter(&Default::default()).await?;
    /// let (device, queue) = adapter.request_device(&Default::default()).await?;
    /// let gpu = revseq::Gpu::from_wgpu(device, queue);
    /// assert_eq!(gpu.cached_pipelines(), 0);
    /// # Ok(())
    /// # })
    /// # }
    /// ```
    pub fn from_wgpu(device: wgpu::Device, queue: wgpu::Queue) -> Gpu {
        let settings = Settings {
            tuning: Tuning::for_adapter(&device.adapter_info()),
            moves_64: tuning::moves_64_bit_words(),
            max_binding: device.limits().max_storage_buffer_binding_size,
            submission_bytes: default_submission_bytes(&device.adapter_info()),
            forced: None,
            autotune: autotune_by_default(&device.adapter_info()),
            autotune_bytes: MAX_TUNING_BYTES,
            autotune_floor: MIN_TUNED_BYTES,
            static_variant: None,
        };
        Gpu::with_device(device, queue, settings)
    }

    /// The same device and queue with the plan tuned for `tuning`, for an adapter
    /// whose device type misleads (a GPU reported as `Other`, say) or to compare the
    /// two: the static plans of that tuning, autotune off (as a family forced
    /// with [`Gpu::with_variant`] runs that family; `with_autotune(true)` after it
    /// turns autotune back on, the static choice then this tuning's). Results are
    /// identical; the clone has its own pipeline cache.
    #[cfg(feature = "lab")]
    pub fn with_tuning(&self, tuning: Tuning) -> Gpu {
        self.clone_with(|s| {
            s.tuning = tuning;
            s.autotune = false;
        })
    }

    /// The same device and queue, its kernels that only move words (`runs`,
    /// `rows` and `gather` of 8- and 16-byte elements, the staging copy) moving
    /// 64-bit ones on a CPU adapter with `SHADER_INT64` where `moves`, 32-bit ones
    /// where not: by default as the host's CPU moves them faster
    /// (`docs/tuning.md`). Results are identical; the clone has its own pipeline
    /// cache.
    #[cfg(feature = "lab")]
    pub fn with_64_bit_moves(&self, moves: bool) -> Gpu {
        self.clone_with(|s| s.moves_64 = moves)
    }

    /// The same device and queue, its plans taking `variant` wherever that family
    /// can serve the layout (in place too), and the tuning's choice elsewhere;
    /// `None` restores the tuning's choice everywhere. For timing every family
    /// that can serve a layout beside the one the tuning picks: compare
    /// [`CompiledReverse::variant`](crate::CompiledReverse::variant) with
    /// `variant` to see whether it could. Results are identical; the clone has its
    /// own pipeline cache.
    #[cfg(feature = "lab")]
    pub fn with_variant(&self, variant: Option<Variant>) -> Gpu {
        self.clone_with(|s| s.forced = variant)
    }

    /// The same device and queue, binding at most `bytes` of a buffer at a time:
    /// tensors past it run as several dispatches, each binding a window of each
    /// buffer, as tensors past the device's own limit do. For comparing windowed and
    /// whole dispatches on one device, or keeping bindings small. `bytes` above the
    /// device's limit changes nothing; the clone has its own pipeline cache.
    pub fn with_max_binding(&self, bytes: u64) -> Gpu {
        let limit = self.device().limits().max_storage_buffer_binding_size;
        self.clone_with(|s| s.max_binding = bytes.min(limit))
    }

    /// The same device and queue, with revseq's own runs ([`CompiledReverse::run`](crate::CompiledReverse::run)
    /// and the typed calls) submitting at most `bytes` of work at a time: output
    /// bytes a dispatch visits, a larger dispatch cut into parts, uploads and the
    /// readback in copies of that size; and, once a submission has been timed, no
    /// more parts at a time than ran in 0.1 s. `None` submits each run whole. The
    /// default is 4 MiB on a CPU GL adapter, where wgpu holds its context lock
    /// while a submission runs, and `None` elsewhere (`docs/gl.md`). `record` is
    /// not affected; the clone has its own pipeline cache.
    pub fn with_submission_bytes(&self, bytes: Option<u64>) -> Gpu {
        self.clone_with(|s| s.submission_bytes = bytes.map(|b| b.max(4) & !3))
    }

    /// The same device and queue, with autotune on or off: where on, the first
    /// `compile` of a class of descriptor (mode, the static plan's pipeline
    /// key, output size within a power of two) plans it under every choice
    /// that can serve it (each kernel family, under a CPU adapter's tuning and
    /// a GPU's), times the distinct programs on buffers of its own shaped like
    /// the descriptor's and runs the fastest, keeping the choice for the
    /// class; later compiles of the class time nothing. That first compile
    /// blocks while it times (natively, `compile_async` too: its waits poll
    /// the device), for tens of milliseconds on a GPU. Classes under 1 MiB of
    /// output ([`MIN_TUNED_BYTES`](crate::MIN_TUNED_BYTES)) keep the static
    /// choice untimed. Tuning allocates at most
    /// [`autotune_bytes`](Self::autotune_bytes) at once; a larger descriptor is
    /// timed as a smaller one of its layout. A tuning that fails (out of
    /// memory, say) logs a warning and the compile runs the static plan, as
    /// with autotune off; that `Gpu` does not tune the class again. Only a
    /// lost device is an error. Where off, the static choice, by the kind of
    /// adapter. Results are identical either way. On by default on GPUs, off
    /// on CPU adapters (where the static choice is the fastest,
    /// `docs/tuning.md`) and on wasm32 (a browser may not block);
    /// `REVSEQ_AUTOTUNE=on` or `off` sets the default. The clone has its own
    /// pipeline cache and choices.
    pub fn with_autotune(&self, on: bool) -> Gpu {
        self.clone_with(|s| s.autotune = on)
    }

    /// The same device and queue, tuning allocating at most `bytes` at once
    /// ([`MAX_TUNING_BYTES`] by default, 1 GiB): the tensors it times on (in
    /// place, the tensor once) and every candidate's scratch, placeholder and
    /// uniforms. A descriptor whose tensors and static plan take more is timed
    /// as the smaller descriptor of its layout that fits, its lanes halved; a
    /// candidate whose own buffers would pass the bound is left untimed
    /// (`docs/autotune.md`).
    pub fn with_autotune_bytes(&self, bytes: u64) -> Gpu {
        self.clone_with(|s| s.autotune_bytes = bytes)
    }

    /// The most bytes tuning allocates at once
    /// ([`Gpu::with_autotune_bytes`]).
    pub fn autotune_bytes(&self) -> u64 {
        self.inner.autotune_bytes
    }

    /// The same device and queue, timing classes from `bytes` of output up
    /// ([`MIN_TUNED_BYTES`](crate::MIN_TUNED_BYTES) by default): the
    /// laboratory's, so that small descriptors exercise timing.
    #[cfg(feature = "lab")]
    pub fn with_autotune_floor(&self, bytes: u64) -> Gpu {
        self.clone_with(|s| s.autotune_floor = bytes)
    }

    /// Output bytes below which a class keeps the static choice untimed.
    pub(crate) fn autotune_floor(&self) -> u64 {
        self.inner.autotune_floor
    }

    /// Tunings this `Gpu` started: one a class, however many threads compile it.
    #[cfg(feature = "lab")]
    pub fn tunings(&self) -> usize {
        self.inner.choices.tunings()
    }

    /// Whether `compile` times the candidate plans ([`Gpu::with_autotune`]).
    pub fn autotunes(&self) -> bool {
        self.inner.autotune && cfg!(not(target_arch = "wasm32"))
    }

    /// The same device and queue, its static choice forced to `variant`
    /// wherever that family serves the layout, autotune still free to pick
    /// another: a static choice wrong on purpose, from which autotune must
    /// recover (the benchmark's `--recovery`).
    #[cfg(feature = "lab")]
    pub fn with_static_variant(&self, variant: Option<Variant>) -> Gpu {
        self.clone_with(|s| s.static_variant = variant)
    }

    /// The family the static choice is forced to, where the laboratory forces
    /// it ([`Gpu::with_static_variant`]).
    pub(crate) fn static_variant(&self) -> Option<Variant> {
        self.inner.static_variant
    }

    /// The classes of descriptor autotune has kept a choice for.
    #[cfg(feature = "lab")]
    pub fn tuned_classes(&self) -> usize {
        self.inner.choices.len()
    }

    /// The choices autotune made on this device.
    pub(crate) fn choices(&self) -> &Choices {
        &self.inner.choices
    }

    /// Autotune's choices on this device, as text a later run gives
    /// [`Gpu::load_autotune_choices`] so that it times nothing it timed
    /// before: a header naming revseq's version, the adapter and the driver,
    /// then a line a class of descriptor. Save it where you keep a cache:
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let gpu = revseq::Gpu::new()?;
    /// let path = std::env::temp_dir().join("revseq-autotune.txt");
    /// if let Ok(text) = std::fs::read_to_string(&path) {
    ///     gpu.load_autotune_choices(&text);
    /// }
    /// // ... compile and run ...
    /// std::fs::write(&path, gpu.autotune_choices())?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn autotune_choices(&self) -> String {
        self.choices().text(&self.adapter_info())
    }

    /// Takes the choices in `text` ([`Gpu::autotune_choices`] of an earlier
    /// run), so that descriptors of their classes compile without timing:
    /// how many it took. Text made by another version of revseq, on another
    /// adapter or driver, or not in the format is ignored whole, with a
    /// warning logged (the `log` crate), never an error: autotune then times
    /// again. Choices of this run win over loaded ones. A device keeps at most
    /// 1,024 choices, made or loaded, the least recently used dropped past it.
    pub fn load_autotune_choices(&self, text: &str) -> usize {
        self.choices().load(&self.adapter_info(), text)
    }

    /// The most work one of revseq's own submissions carries, where bounded
    /// ([`Gpu::with_submission_bytes`]).
    pub fn submission_bytes(&self) -> Option<u64> {
        self.inner.submission_bytes
    }

    /// The most bytes one storage binding holds; larger tensors are windowed.
    pub fn max_binding(&self) -> u64 {
        self.inner.max_binding
    }

    /// What the plan is tuned for.
    #[cfg(feature = "lab")]
    pub fn tuning(&self) -> Tuning {
        self.inner.profile.tuning
    }

    /// Whether kernels that only move words move 64-bit ones where the device
    /// allows ([`Gpu::with_64_bit_moves`]).
    #[cfg(feature = "lab")]
    pub fn moves_64_bit_words(&self) -> bool {
        self.inner.profile.moves_64
    }

    /// The same device and queue under `change`d settings, with its own
    /// pipeline cache: what every `with_` clone makes.
    fn clone_with(&self, change: impl FnOnce(&mut Settings)) -> Gpu {
        let inner = &self.inner;
        let mut settings = Settings {
            tuning: inner.profile.tuning,
            moves_64: inner.profile.moves_64,
            max_binding: inner.max_binding,
            submission_bytes: inner.submission_bytes,
            forced: inner.profile.forced,
            autotune: inner.autotune,
            autotune_bytes: inner.autotune_bytes,
            autotune_floor: inner.autotune_floor,
            static_variant: inner.static_variant,
        };
        change(&mut settings);
        let objects = &inner.objects;
        let gpu = Gpu::with_device(objects.device.clone(), objects.queue.clone(), settings);
        #[cfg(all(feature = "lab", not(target_arch = "wasm32")))]
        let gpu = {
            let mut gpu = gpu;
            if let Some(new) = Arc::get_mut(&mut gpu.inner) {
                new.traced = inner.traced.clone();
            }
            gpu
        };
        gpu
    }

    fn with_device(device: wgpu::Device, queue: wgpu::Queue, settings: Settings) -> Gpu {
        let Settings {
            tuning,
            moves_64,
            max_binding,
            submission_bytes,
            forced,
            autotune,
            autotune_bytes,
            autotune_floor,
            static_variant,
        } = settings;
        let lock = DeviceLock::of(&device);
        let profile = Profile {
            tuning,
            int64: device.features().contains(wgpu::Features::SHADER_INT64),
            moves_64,
            forced,
        };
        Gpu {
            inner: Arc::new(Inner {
                objects: Held::new(
                    &lock,
                    Objects {
                        device,
                        queue,
                        cache: PipelineCache::default(),
                    },
                ),
                #[cfg(all(feature = "lab", not(target_arch = "wasm32")))]
                traced: Arc::new(Held::new(&lock, Default::default())),
                lock,
                profile,
                max_binding,
                submission_bytes,
                autotune,
                autotune_bytes,
                autotune_floor,
                static_variant,
                choices: Choices::default(),
            }),
        }
    }

    /// The device.
    pub fn device(&self) -> &wgpu::Device {
        &self.inner.objects.device
    }

    /// The queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.inner.objects.queue
    }

    /// The lock revseq takes around its calls into wgpu on this device: on GL,
    /// where wgpu panics in a thread kept from its own lock for 6 s, the same
    /// [`DeviceLock`] for every `Gpu` of the device; elsewhere, no lock.
    pub fn device_lock(&self) -> &DeviceLock {
        &self.inner.lock
    }

    /// The adapter the device came from.
    pub fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.inner.objects.device.adapter_info()
    }

    /// Pipelines the cache holds, one a kernel ([`Kernel`]) built: a compile
    /// whose kernels are built adds none. At most 1,024, the least recently
    /// used dropped past that.
    pub fn cached_pipelines(&self) -> usize {
        self.inner.objects.cache.len()
    }

    /// What this device's plans are made for: its limits, the kind of adapter
    /// and its features, and the binding this `Gpu` keeps to
    /// ([`Gpu::with_max_binding`]). [`program`](crate::program::program) plans
    /// for it as [`Gpu::compile`] does.
    pub fn target(&self) -> Target {
        Target::with_profile(self.device().limits(), self.inner.profile)
            .with_max_binding(self.inner.max_binding)
    }

    /// The trace build's pipelines of this device.
    #[cfg(all(feature = "lab", not(target_arch = "wasm32")))]
    pub(crate) fn trace_pipelines(&self) -> &crate::executor::device::pipeline::TracePipelines {
        &self.inner.traced
    }

    /// `kernel`'s pipeline, from the cache or built now.
    /// On a lost device, [`Error::DeviceLost`]: wgpu makes an invalid
    /// pipeline there, and reports its layout as invalid.
    pub(crate) async fn pipeline(&self, kernel: &Arc<Kernel>) -> Result<KernelPipeline, Error> {
        let objects = &self.inner.objects;
        let built = objects
            .cache
            .get_or_build(&objects.device, &self.inner.lock, kernel)
            .await;
        built.map_err(|error| self.lost_or(error, "building a compute pipeline"))
    }
}

/// Whether autotune is on for a new device of `info`'s: as `REVSEQ_AUTOTUNE`
/// says (`on`, `off`), else on a GPU and not on a CPU adapter.
fn autotune_by_default(info: &wgpu::AdapterInfo) -> bool {
    #[cfg(not(target_arch = "wasm32"))]
    match std::env::var("REVSEQ_AUTOTUNE").as_deref() {
        Ok("on" | "1" | "true") => return true,
        Ok("off" | "0" | "false") => return false,
        _ => {}
    }
    info.device_type != wgpu::DeviceType::Cpu
}
