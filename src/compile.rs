//! [`Gpu::compile`](crate::Gpu::compile): a descriptor, validated, becomes a
//! [`CompiledReverse`]: its plan (`src/plan.rs`), then on the device its pipeline,
//! its layout uniform (`src/launch.rs`) and any scratch buffers. Everything here runs
//! once per descriptor; `record` then only binds and dispatches.

use crate::compiled::CompiledReverse;
use crate::device_lock::Held;
use crate::error::Error;
use crate::gpu::Gpu;
use crate::launch::{into_launches, params_stride, uniform};
use crate::operator::ReverseSubsequences;
use crate::plan::{plan, tensor_bytes, Planned, Scratch, Target};
use crate::scope::capture;
use crate::window::Dispatch;

pub(crate) async fn compile(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
) -> Result<CompiledReverse, Error> {
    desc.validate()?;
    let limits = gpu.device().limits();
    let bytes = tensor_bytes(desc, &limits)?;
    let target = Target::of(gpu, &limits);
    let planned = plan(desc, bytes, &target, Scratch::Allowed)?;
    // A staged plan needs copy usages on the caller's buffers; `record` takes the
    // plan without scratch where they lack them, if there is one.
    let without_copies = match planned.dispatches.iter().any(|p| p.staging.is_some()) {
        true => match plan(desc, bytes, &target, Scratch::None) {
            Ok(unstaged) => Some(Box::new(
                assemble(gpu, desc, bytes, &limits, unstaged, None).await?,
            )),
            Err(_) => None,
        },
        false => None,
    };
    assemble(gpu, desc, bytes, &limits, planned, without_copies).await
}

/// The device's side of a plan: dispatches, their uniforms, the pipeline and
/// the scratch buffers.
async fn assemble(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    bytes: [u64; 3],
    limits: &wgpu::Limits,
    planned: Planned,
    without_copies: Option<Box<CompiledReverse>>,
) -> Result<CompiledReverse, Error> {
    let Planned {
        layout,
        dispatches,
        plans,
        key,
    } = planned;
    let launches = into_launches(&plans, &dispatches, &layout, limits, bytes[2])?;
    let pipeline = Held::new(gpu.device_lock(), gpu.pipeline(key).await?);
    let scratch = scratch_buffers(gpu, &dispatches).await?;
    // Last: it is where a lost device shows (`launch::uniform`).
    let params = launches.iter().map(|launch| launch.params);
    let context = "creating the layout uniform";
    let params = uniform(gpu, "revseq::params", params, context).await?;
    Ok(CompiledReverse {
        gpu: gpu.clone(),
        desc: desc.clone(),
        key,
        pipeline,
        params,
        params_stride: params_stride(limits),
        launches,
        offset_alignment: u64::from(limits.min_storage_buffer_offset_alignment),
        bytes,
        scratch,
        without_copies,
    })
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
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let context = "creating the scratch buffers";
    capture(device, context, || {
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
    .map_err(|error| gpu.lost_or(error, context))
}
