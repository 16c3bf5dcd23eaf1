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
use crate::launch::{into_launches, params_stride, uniform};
use crate::operator::ReverseSubsequences;
use crate::pipeline::Built;
use crate::plan::{plan, plan_in_place, tensor_bytes, Planned, Target, PLACEHOLDER_BYTES};
use crate::window::Dispatch;

pub(crate) async fn compile(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
) -> Result<CompiledReverse, Error> {
    desc.validate()?;
    let limits = gpu.device().limits();
    let bytes = tensor_bytes(desc, &limits)?;
    let target = Target::of(gpu, &limits);
    let planned = plan(desc, bytes, &target)?;
    build(gpu, desc, planned, bytes, &limits, &target).await
}

/// [`compile`] in place: the operator from the tensor into itself, planned in
/// place (`src/in_place.rs`), and the placeholder it binds as its input.
pub(crate) async fn compile_in_place(
    gpu: &Gpu,
    in_place: &ReverseInPlace,
) -> Result<CompiledInPlace, Error> {
    let desc = &in_place.operator()?;
    let limits = gpu.device().limits();
    let bytes = tensor_bytes(desc, &limits).map_err(name_the_tensor)?;
    let target = Target::of(gpu, &limits);
    let planned = plan_in_place(desc, bytes, &target).map_err(name_the_tensor)?;
    let inner = build(gpu, desc, planned, bytes, &limits, &target).await?;
    Ok(CompiledInPlace {
        desc: in_place.clone(),
        inner,
        placeholder: placeholder(gpu).await?,
    })
}

/// The device's part of compiling a plan: the pipelines, scratch and uniforms.
async fn build(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    planned: Planned,
    bytes: [u64; 3],
    limits: &wgpu::Limits,
    target: &Target,
) -> Result<CompiledReverse, Error> {
    let Planned {
        layout,
        dispatches,
        plans,
        key,
    } = planned;
    let copying = Copying::of(&dispatches, &target.profile);
    let launches = into_launches(&plans, &dispatches, &layout, limits, copying, bytes[2])?;
    let pipeline = Held::new(gpu.device_lock(), gpu.pipeline(Built::Operator(key)).await?);
    let scratch = scratch_buffers(gpu, &dispatches).await?;
    let copy = match scratch.is_some() {
        true => Some(Held::new(
            gpu.device_lock(),
            gpu.pipeline(Built::Copy(copying)).await?,
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
        key,
        pipeline,
        copy,
        params,
        params_stride: params_stride(limits),
        launches,
        offset_alignment: u64::from(limits.min_storage_buffer_offset_alignment),
        bytes,
        scratch,
    })
}

/// What an in-place operator binds at the input's place: the tensor is bound
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

/// The scratch buffers staged dispatches run in: one for their input, one for
/// their output, each as large as the largest piece's.
async fn scratch_buffers(
    gpu: &Gpu,
    dispatches: &[Dispatch],
) -> Result<Option<Held<[wgpu::Buffer; 2]>>, Error> {
    let staged = dispatches
        .iter()
        .filter(|dispatch| dispatch.staging.is_some());
    let Some(sizes) = staged
        .map(|dispatch| [dispatch.windows[0].size, dispatch.windows[2].size])
        .reduce(|a, b| [a[0].max(b[0]), a[1].max(b[1])])
    else {
        return Ok(None);
    };
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
    .map(Some)
}
