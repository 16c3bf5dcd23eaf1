//! [`Gpu::compile`](crate::Gpu::compile): a descriptor, validated, becomes a
//! [`CompiledReverse`] in a few named steps. Everything here runs once per
//! descriptor; `record` then only binds and dispatches.

use wgpu::util::DeviceExt;

use crate::compiled::{CompiledReverse, Recorded};
use crate::kernels::Plan;
use crate::layout::Layout;
use crate::params::{Params, PARAMS_SIZE};
use crate::scope::capture;
use crate::shaders::PipelineKey;
use crate::window::{self, Dispatch};
use crate::{Error, Gpu, ReverseSubsequences, TensorRole};

pub(crate) async fn compile(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
) -> Result<CompiledReverse, Error> {
    desc.validate()?;
    let limits = gpu.device().limits();
    let bytes = tensor_bytes(desc, &limits)?;
    let layout = Layout::canonical(desc);
    let pieces = cut_into_windows(gpu, desc, &layout, bytes, &limits)?;
    let (key, plans) = plan_pieces(gpu, desc, &pieces, layout.dims[layout.axis].size);
    let dispatches = fold_dispatches(&plans, &pieces, &limits, bytes[2])?;
    let params = layout_uniform(gpu, &plans, &pieces, &layout, &limits).await?;
    let pipeline = gpu.pipeline(key).await?;
    let scratch = scratch_buffers(gpu, &pieces).await?;
    Ok(CompiledReverse {
        gpu: gpu.clone(),
        desc: desc.clone(),
        key,
        pipeline,
        params,
        params_stride: params_stride(&limits),
        dispatches,
        offset_alignment: u64::from(limits.min_storage_buffer_offset_alignment),
        bytes,
        scratch,
    })
}

/// The scratch buffers staged dispatches run in: one for their input, one for
/// their output, each as large as the largest piece's.
async fn scratch_buffers(
    gpu: &Gpu,
    pieces: &[Dispatch],
) -> Result<Option<[wgpu::Buffer; 2]>, Error> {
    let staged = pieces.iter().filter(|piece| piece.staging.is_some());
    let Some(sizes) = staged
        .map(|piece| [piece.windows[0].size, piece.windows[2].size])
        .reduce(|a, b| [a[0].max(b[0]), a[1].max(b[1])])
    else {
        return Ok(None);
    };
    let device = gpu.device();
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
    capture(device, "creating the scratch buffers", || {
        [
            buffer("revseq::scratch_input", sizes[0]),
            buffer("revseq::scratch_output", sizes[1]),
        ]
    })
    .await
    .map(Some)
}

/// Each tensor's `min_size_in_bytes`, within the device's `max_buffer_size`.
fn tensor_bytes(desc: &ReverseSubsequences, limits: &wgpu::Limits) -> Result<[u64; 3], Error> {
    let bytes = desc.tensors().map(|(_, t)| t.min_size_in_bytes());
    for ((tensor, _), bytes) in desc.tensors().into_iter().zip(bytes) {
        if bytes.next_multiple_of(4) > limits.max_buffer_size {
            return Err(Error::TensorTooLarge {
                tensor,
                bytes,
                limit: limits.max_buffer_size,
                limit_name: "the device's max_buffer_size",
            });
        }
    }
    Ok(bytes)
}

/// The dispatches: one where every tensor fits a binding, else pieces of the
/// output with the windows of each buffer they bind (`src/window.rs`).
fn cut_into_windows(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    layout: &Layout,
    bytes: [u64; 3],
    limits: &wgpu::Limits,
) -> Result<Vec<Dispatch>, Error> {
    let element_bytes = desc.input.data_type().size_in_bytes();
    let length_bytes = desc.sequence_lengths.data_type().size_in_bytes();
    let widths = [element_bytes, length_bytes, element_bytes].map(u64::from);
    // `runs` walks pieces of whole positions against each input window, moving
    // every run once and nothing else, where the tuning walks its lanes: no copies
    // through scratch.
    let device = gpu.plan_device();
    let walk = Plan::new(layout, element_bytes, bytes[2], &device).walks_pairs(
        layout,
        &device,
        bytes[2],
        gpu.max_binding(),
    );
    window::split(
        layout,
        widths,
        bytes,
        gpu.max_binding(),
        u64::from(limits.min_storage_buffer_offset_alignment),
        walk,
    )
}

/// A plan per piece, and the one pipeline key they all run under: the fast family
/// where every piece can run it from a vector-aligned start under the same key,
/// else the general kernels.
fn plan_pieces(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    pieces: &[Dispatch],
    axis_size: u32,
) -> (PipelineKey, Vec<Plan>) {
    let device = gpu.plan_device();
    let element_bytes = desc.input.data_type().size_in_bytes();
    let key_of = |plan: &Plan, piece: &Dispatch| {
        let fields = plan.fields();
        PipelineKey {
            variant: plan.variant(),
            steps: fields.steps,
            vector_bytes: fields.vector_bytes,
            element_bytes,
            rank: piece.layout.rank() as u32,
            axis: piece.layout.axis as u32,
            length_bytes: desc.sequence_lengths.data_type().size_in_bytes(),
            signed_lengths: desc.sequence_lengths.data_type().is_signed_integer(),
            access_bits: fields.access_bits,
            share_lengths: fields.share_lengths,
            walk_positions: fields.walk_positions,
            walk_lanes: fields.walk_lanes,
        }
    };
    let walk = pieces.iter().any(|piece| !piece.whole && piece.by_position);
    let fast = |piece: &Dispatch| {
        let plan = Plan::new(&piece.layout, element_bytes, piece.windows[2].size, &device);
        // In windowed pairs, every piece walks its positions (a whole one over all
        // of them), so that one pipeline runs them all.
        let plan = match walk {
            true => plan.walking_positions(&piece.layout, axis_size, element_bytes, &device)?,
            false => plan,
        };
        let vector_bytes = u64::from(plan.fields().vector_bytes.max(1));
        let aligned = |shift: u32| u64::from(shift) * u64::from(element_bytes) % vector_bytes == 0;
        let pairs = piece.by_position && plan.fields().walk_positions;
        ((piece.whole || pairs) && aligned(piece.shifts[0]) && aligned(piece.shifts[2]))
            .then_some(plan)
    };
    let mut plans: Vec<Plan> = pieces.iter().map_while(fast).collect();
    // Pieces may differ in how many invocations of a row can share its length;
    // the fewest suit them all (an invocation that holds a whole row shares with
    // none).
    let share = plans
        .iter()
        .map(|plan| plan.fields().share_lengths)
        .min()
        .unwrap_or(1);
    let shared = |plan: &Plan, piece: &Dispatch| PipelineKey {
        share_lengths: share,
        ..key_of(plan, piece)
    };
    if plans.len() < pieces.len()
        || plans
            .iter()
            .zip(pieces)
            .any(|(plan, piece)| shared(plan, piece) != shared(&plans[0], &pieces[0]))
    {
        plans = pieces
            .iter()
            .map(|piece| Plan::general(&piece.layout, element_bytes, piece.windows[2].size))
            .collect();
        return (key_of(&plans[0], &pieces[0]), plans);
    }
    (shared(&plans[0], &pieces[0]), plans)
}

/// Each dispatch's bindings and workgroups: more than the device allows in one
/// dimension fold into y.
fn fold_dispatches(
    plans: &[Plan],
    pieces: &[Dispatch],
    limits: &wgpu::Limits,
    output_bytes: u64,
) -> Result<Vec<Recorded>, Error> {
    let max = limits.max_compute_workgroups_per_dimension.max(1);
    plans
        .iter()
        .zip(pieces)
        .map(|(plan, piece)| {
            let groups = plan.workgroups();
            let x = groups.min(max);
            let y = if groups == 0 { 0 } else { groups.div_ceil(x) };
            // Unreachable on adapters that meet WebGPU's 65,535 groups per
            // dimension, but an adapter below that gets an error, not a short
            // dispatch.
            if y > max {
                let per_group = output_bytes / u64::from(groups);
                return Err(Error::TensorTooLarge {
                    tensor: TensorRole::Output,
                    bytes: output_bytes,
                    limit: u64::from(max).pow(2) * per_group,
                    limit_name: "the device's max_compute_workgroups_per_dimension squared",
                });
            }
            Ok(Recorded {
                windows: piece.windows,
                workgroups: [x, y],
                staging: piece.staging,
            })
        })
        .collect()
}

/// One `Params` per dispatch, in one uniform buffer, [`params_stride`] bytes
/// apart.
async fn layout_uniform(
    gpu: &Gpu,
    plans: &[Plan],
    pieces: &[Dispatch],
    layout: &Layout,
    limits: &wgpu::Limits,
) -> Result<wgpu::Buffer, Error> {
    let stride = params_stride(limits) as usize;
    let mut uniform = vec![0u8; stride * pieces.len()];
    for (i, (plan, piece)) in plans.iter().zip(pieces).enumerate() {
        let mut params = Params::for_dispatch(piece, layout.dims[layout.axis].size);
        plan.write(&mut params);
        uniform[i * stride..i * stride + PARAMS_SIZE as usize]
            .copy_from_slice(bytemuck::bytes_of(&params));
    }
    let device = gpu.device();
    capture(device, "creating the layout uniform", || {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("revseq::params"),
            contents: &uniform,
            usage: wgpu::BufferUsages::UNIFORM,
        })
    })
    .await
}

/// Bytes from one dispatch's `Params` to the next in the uniform buffer.
fn params_stride(limits: &wgpu::Limits) -> u64 {
    PARAMS_SIZE.next_multiple_of(u64::from(limits.min_uniform_buffer_offset_alignment))
}
