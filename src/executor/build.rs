//! A program built on the device: a [`CompiledReverse`] with a pipeline for
//! each of the program's kernels, from their published WGSL
//! (`src/executor/device/pipeline.rs`), the layout uniforms its dispatches bind, and
//! the scratch buffers and placeholder they bind, where they do. Which program
//! (the static plan, or where autotune is on the fastest of several) is
//! `src/executor/autotune/`'s to say. Everything here runs once per
//! descriptor; `record` then only binds and dispatches the program's
//! dispatches.

use crate::descriptor::error::Error;
use crate::descriptor::operator::ReverseSubsequences;
use crate::executor::compiled::CompiledReverse;
use crate::executor::device::device_lock::Held;
use crate::executor::device::gpu::Gpu;
use crate::executor::uniform::uniforms;
use crate::plan::cut::PLACEHOLDER_BYTES;
use crate::plan::program::Program;

/// The device's part of compiling a program: the pipelines of its kernels,
/// the buffers its dispatches bind of their own (scratch, the placeholder) and
/// the uniforms.
pub(crate) async fn build(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    program: Program,
) -> Result<CompiledReverse, Error> {
    let mut pipelines = Vec::with_capacity(program.kernels().len());
    for kernel in program.kernels() {
        pipelines.push(gpu.pipeline(kernel).await?);
    }
    let pipelines = Held::new(gpu.device_lock(), pipelines);
    let scratch = match program.scratch_bytes() {
        [0, 0] => None,
        sizes => Some(scratch_buffers(gpu, sizes).await?),
    };
    let placeholder = match program.binds_placeholder() {
        true => Some(placeholder(gpu).await?),
        false => None,
    };
    // Last: it is where a lost device shows (`uniform::uniforms`).
    let each: Vec<&[u8]> = (program.dispatches().iter())
        .map(|dispatch| dispatch.uniform())
        .collect();
    let context = "creating the layout uniform";
    let params = uniforms(gpu, "revseq::params", &each, context).await?;
    let limits = gpu.device().limits();
    Ok(CompiledReverse {
        gpu: gpu.clone(),
        desc: desc.clone(),
        pipelines,
        params,
        offset_alignment: u64::from(limits.min_storage_buffer_offset_alignment),
        scratch,
        placeholder,
        program,
    })
}

/// What in-place dispatches bind at the input's place: the tensor is bound
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
