//! [`Gpu::compile`](crate::Gpu::compile): a descriptor, validated, becomes a
//! [`CompiledReverse`]: its plan (`src/plan.rs`), then on the device its pipeline
//! (and the staging copy's, where it stages), its layout uniform
//! (`src/launch.rs`) and any scratch buffers. Everything here runs
//! once per descriptor; `record` then only binds and dispatches.

use crate::compiled::CompiledReverse;
use crate::compiled_in_place::CompiledInPlace;
use crate::device_lock::Held;
use crate::error::Error;
use crate::gpu::Gpu;
use crate::in_place::{name_the_tensor, ReverseInPlace};
use crate::kernels::copy::Copying;
use crate::kernels::PipelineKey;
use crate::launch::{into_launches, params_stride, uniform, Bound, Launch};
use crate::operator::ReverseSubsequences;
use crate::pipeline::Pipeline;
use crate::plan::{plan, tensor_bytes, Mode, Planned};
use crate::target::Target;
use crate::tuning;
use crate::window::{Dispatch, Segments, PLACEHOLDER_BYTES};

pub(crate) async fn compile(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
) -> Result<CompiledReverse, Error> {
    let target = gpu.target();
    let launched = launch_plan(desc, Mode::OutOfPlace, &target)?;
    build(gpu, desc, Mode::OutOfPlace, launched, target.limits()).await
}

/// [`compile`] in place: the operator from the tensor into itself, planned in
/// place (`src/in_place.rs`).
pub(crate) async fn compile_in_place(
    gpu: &Gpu,
    in_place: &ReverseInPlace,
) -> Result<CompiledInPlace, Error> {
    let desc = &in_place.operator()?;
    let target = gpu.target();
    let launched = launch_plan(desc, Mode::InPlace, &target).map_err(name_the_tensor)?;
    let inner = build(gpu, desc, Mode::InPlace, launched, target.limits()).await?;
    Ok(CompiledInPlace {
        desc: in_place.clone(),
        inner,
    })
}

/// A descriptor planned on the host for a target: its plan, its launches and
/// its staging copy. What `compile` builds on a device and
/// [`program`](crate::program) describes for any executor.
pub(crate) struct Launched {
    pub(crate) key: PipelineKey,
    pub(crate) launches: Vec<Launch>,
    pub(crate) copying: Copying,
    /// Whether staged segments copy by buffer copies where the caller's buffers
    /// allow it, rather than by the copy kernel (`tuning::copies_by_buffer`).
    pub(crate) by_buffer: bool,
    /// Bytes of the scratch buffers staged pieces run in (input, output).
    pub(crate) scratch: Option<[u64; 2]>,
    /// `min_size_in_bytes` of input, sequence lengths and output.
    pub(crate) bytes: [u64; 3],
}

/// Plans `desc` (validated here) in `mode` for `target`, on the host.
pub(crate) fn launch_plan(
    desc: &ReverseSubsequences,
    mode: Mode,
    target: &Target,
) -> Result<Launched, Error> {
    let limits = target.limits();
    desc.validate()?;
    let bytes = tensor_bytes(desc, limits)?;
    let Planned {
        layout,
        dispatches,
        plans,
        key,
    } = plan(desc, mode, bytes, target)?;
    let copying = Copying::new(staged_in_vectors(&dispatches), &target.profile);
    let launches = into_launches(&plans, &dispatches, &layout, limits, copying, bytes[2])?;
    Ok(Launched {
        key,
        launches,
        copying,
        by_buffer: tuning::copies_by_buffer(target.profile.tuning),
        scratch: scratch_sizes(&dispatches),
        bytes,
    })
}

/// The device's part of compiling a plan: the pipelines, the buffers its
/// launches bind of their own (scratch, the placeholder) and the uniforms.
async fn build(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    mode: Mode,
    launched: Launched,
    limits: &wgpu::Limits,
) -> Result<CompiledReverse, Error> {
    let Launched {
        key,
        launches,
        copying,
        by_buffer,
        scratch,
        bytes,
    } = launched;
    let pipeline = Held::new(
        gpu.device_lock(),
        gpu.pipeline(Pipeline::Operator(key)).await?,
    );
    let scratch = match scratch {
        Some(sizes) => Some(scratch_buffers(gpu, sizes).await?),
        None => None,
    };
    let placeholder = match launches.iter().any(|l| l.buffers[0] == Bound::Placeholder) {
        true => Some(placeholder(gpu).await?),
        false => None,
    };
    let copy = match scratch.is_some() {
        true => Some(Held::new(
            gpu.device_lock(),
            gpu.pipeline(Pipeline::Copy(copying)).await?,
        )),
        false => None,
    };
    // Last: it is where a lost device shows (`launch::uniform`).
    let params = launches.iter().map(|launch| launch.params);
    let context = "creating the layout uniform";
    let params = uniform(gpu, "revseq::params", params, context).await?;
    Ok(CompiledReverse {
        gpu: gpu.clone(),
        desc: desc.clone(),
        mode,
        key,
        pipeline,
        copy,
        copying,
        params,
        params_stride: params_stride(limits),
        launches,
        offset_alignment: u64::from(limits.min_storage_buffer_offset_alignment),
        bytes,
        scratch,
        placeholder,
        by_buffer,
    })
}

/// What in-place launches bind at the input's place: the tensor is bound
/// once, as the output, and a buffer may not be bound both read-only and
/// writable in one dispatch.
async fn placeholder(gpu: &Gpu) -> Result<Held<wgpu::Buffer>, Error> {
    gpu.scoped("creating the in-place placeholder", || {
        gpu.create_buffer(&wgpu::BufferDescriptor {
            label: Some("revseq::placeholder"),
            size: PLACEHOLDER_BYTES,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    })
    .await
}

/// Whether every segment a staged piece copies is whole 16-byte vectors at a
/// vector boundary, in the caller's binding and in scratch: the staging copy
/// moves vectors then.
fn staged_in_vectors(dispatches: &[Dispatch]) -> bool {
    let vectors = |s: &Segments| {
        [s.origin, s.stride, s.bytes, s.pitch]
            .iter()
            .all(|b| b % 16 == 0)
    };
    dispatches
        .iter()
        .filter_map(|d| d.staging.as_ref())
        .all(|s| vectors(&s.input) && vectors(&s.output))
}

/// Bytes of the scratch buffers staged dispatches run in: one for their input,
/// one for their output, each as large as the largest piece's; `None` where no
/// piece stages.
fn scratch_sizes(dispatches: &[Dispatch]) -> Option<[u64; 2]> {
    dispatches
        .iter()
        .filter(|dispatch| dispatch.staging.is_some())
        .map(|dispatch| [dispatch.windows[0].size, dispatch.windows[2].size])
        .reduce(|a, b| [a[0].max(b[0]), a[1].max(b[1])])
}

/// The scratch buffers, of `sizes` bytes.
async fn scratch_buffers(gpu: &Gpu, sizes: [u64; 2]) -> Result<Held<[wgpu::Buffer; 2]>, Error> {
    let device = gpu.device();
    let lock = gpu.device_lock();
    let buffer = |label, size| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            // Copy usages for the buffer copies of `tuning::copies_by_buffer`.
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    gpu.scoped("creating the scratch buffers", || {
        let buffers = lock.hold(|| {
            [
                buffer("revseq::scratch_input", sizes[0]),
                buffer("revseq::scratch_output", sizes[1]),
            ]
        });
        Held::new(lock, buffers)
    })
    .await
}
