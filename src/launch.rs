//! What `record` needs of each dispatch of a plan: its windows, its workgroups
//! folded into x and y, and its `Params`, which the layout uniform holds.

use crate::device_lock::Held;
use crate::error::{Error, TensorRole};
use crate::gpu::Gpu;
use crate::kernels::copy::{self, Copying, Direction};
use crate::kernels::Plan;
use crate::layout::Layout;
use crate::params::{Params, PARAMS_SIZE};
use crate::scope::capture;
use crate::shaders::WORKGROUP_SIZE;
use crate::window::{Batch, Dispatch, InputBinding, Segments, Staging, Window};

/// A staged piece's copy of a batch of its segments between the caller's
/// buffer and scratch: a dispatch of the copy kernel (`src/kernels/copy.rs`), or
/// where the adapter copies buffers faster and the caller's buffers allow it, a
/// buffer copy per segment (`tuning::copies_by_buffer`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StagingCopy {
    pub(crate) direction: Direction,
    pub(crate) segments: Segments,
    pub(crate) batch: Batch,
}

/// The buffer a launch binds at a tensor's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The caller's binding of that tensor.
    Caller,
    /// The caller's output binding, at the input's place: in place across
    /// windows, a second window of the tensor.
    Output,
    /// The operator's placeholder, at the input's place: in place, where
    /// nothing is read through it
    /// ([`PLACEHOLDER_BYTES`](crate::window::PLACEHOLDER_BYTES)).
    Placeholder,
    ScratchInput,
    ScratchOutput,
}

/// What `record` needs of one dispatch.
#[derive(Debug)]
pub(crate) struct Launch {
    /// The copy it runs, where it is a staged piece's copy, not the operator.
    pub(crate) copy: Option<StagingCopy>,
    /// Input, sequence lengths and output windows, of the buffers in `buffers`.
    pub(crate) windows: [Window; 3],
    pub(crate) buffers: [Bound; 3],
    pub(crate) workgroups: [u32; 2],
    /// Workgroups with work: `workgroups` launch at least as many.
    pub(crate) groups: u32,
    /// Its layout uniform.
    pub(crate) params: Params,
}

/// Each dispatch's bindings, workgroups and `Params` (over an axis of `layout`'s),
/// a staged one's between the copies of its segments into and out of scratch:
/// more workgroups than the device allows in one dimension fold into y, with as
/// few idle as the fold allows.
pub(crate) fn into_launches(
    plans: &[Plan],
    dispatches: &[Dispatch],
    layout: &Layout,
    limits: &wgpu::Limits,
    copying: Copying,
    output_bytes: u64,
) -> Result<Vec<Launch>, Error> {
    let max = limits.max_compute_workgroups_per_dimension.max(1);
    let fold = |groups: u32| folded(groups, max, output_bytes);
    let axis_size = layout.dims[layout.axis].size;
    let mut launches = Vec::new();
    for (plan, dispatch) in plans.iter().zip(dispatches) {
        let groups = plan.workgroups();
        let mut params = Params::for_dispatch(dispatch, axis_size);
        plan.write(&mut params);
        let operator = |buffers| -> Result<Launch, Error> {
            Ok(Launch {
                copy: None,
                windows: dispatch.windows,
                buffers,
                workgroups: fold(groups)?,
                groups,
                params,
            })
        };
        let Some(staging) = &dispatch.staging else {
            let input = match dispatch.input {
                InputBinding::Input => Bound::Caller,
                InputBinding::Tensor => Bound::Output,
                InputBinding::Placeholder => Bound::Placeholder,
            };
            launches.push(operator([input, Bound::Caller, Bound::Caller])?);
            continue;
        };
        let copies = |direction| copies(dispatch, staging, direction, copying, &fold, output_bytes);
        launches.extend(copies(Direction::In)?);
        launches.push(operator([
            Bound::ScratchInput,
            Bound::Caller,
            Bound::ScratchOutput,
        ])?);
        launches.extend(copies(Direction::Out)?);
    }
    Ok(launches)
}

/// `groups` folded (see [`fold`]): an adapter below WebGPU's 65,535 groups per
/// dimension gets an error, not a short dispatch.
fn folded(groups: u32, max: u32, output_bytes: u64) -> Result<[u32; 2], Error> {
    fold(groups, max).ok_or_else(|| {
        let per_group = output_bytes / u64::from(groups);
        Error::TensorTooLarge {
            tensor: TensorRole::Output,
            bytes: output_bytes,
            limit: u64::from(max).pow(2) * per_group,
            limit_name: "the device's max_compute_workgroups_per_dimension squared",
        }
    })
}

/// The copies of a staged `dispatch`'s segments in `direction`, one a batch.
fn copies(
    dispatch: &Dispatch,
    staging: &Staging,
    direction: Direction,
    copying: Copying,
    fold: &dyn Fn(u32) -> Result<[u32; 2], Error>,
    output_bytes: u64,
) -> Result<Vec<Launch>, Error> {
    let [input, lengths, output] = dispatch.windows;
    let (segments, batches) = match direction {
        Direction::In => (&staging.input, &staging.batches[0]),
        Direction::Out => (&staging.output, &staging.batches[1]),
    };
    let too_many = Error::TensorTooLarge {
        tensor: TensorRole::Output,
        bytes: output_bytes,
        limit: u64::from(u32::MAX),
        limit_name: "the invocations one staging copy counts in a u32",
    };
    let launch = |batch: &Batch| {
        let first = u64::from(batch.first);
        let moved = copy::Segments {
            count: batch.count,
            bytes: segments.bytes,
            caller: [
                segments.origin + first * segments.stride - batch.window.offset,
                segments.stride,
            ],
            scratch: [first * segments.pitch, segments.pitch],
        };
        let (params, invocations) =
            copy::params(moved, direction, copying).ok_or_else(|| too_many.clone())?;
        let groups = invocations.div_ceil(WORKGROUP_SIZE);
        let (windows, buffers) = match direction {
            Direction::In => (
                [batch.window, lengths, input],
                [Bound::Caller, Bound::Caller, Bound::ScratchInput],
            ),
            Direction::Out => (
                [output, lengths, batch.window],
                [Bound::ScratchOutput, Bound::Caller, Bound::Caller],
            ),
        };
        Ok(Launch {
            copy: Some(StagingCopy {
                direction,
                segments: *segments,
                batch: *batch,
            }),
            windows,
            buffers,
            workgroups: fold(groups)?,
            groups,
            params,
        })
    };
    batches.iter().map(launch).collect()
}

/// `groups` workgroups as x and y, each at most `max`: y = ceil(groups / max)
/// rows of x = ceil(groups / y), fewer than y of them idle. `None` past max².
fn fold(groups: u32, max: u32) -> Option<[u32; 2]> {
    if groups == 0 {
        return Some([0, 0]);
    }
    let y = groups.div_ceil(max);
    (y <= max).then(|| [groups.div_ceil(y), y])
}

/// `params`, [`params_stride`] bytes apart, in one uniform buffer labelled
/// `label`: mapped at creation, so that on a lost device the mapping fails, which
/// is how `compile` finds out (wgpu builds an invalid pipeline without a word).
pub(crate) async fn uniform(
    gpu: &Gpu,
    label: &'static str,
    params: impl ExactSizeIterator<Item = Params>,
    context: &'static str,
) -> Result<Held<wgpu::Buffer>, Error> {
    let stride = params_stride(&gpu.device().limits()) as usize;
    let mut uniform = vec![0u8; stride * params.len()];
    for (i, params) in params.enumerate() {
        uniform[i * stride..i * stride + PARAMS_SIZE as usize]
            .copy_from_slice(bytemuck::bytes_of(&params));
    }
    let buffer = capture(gpu.device(), context, || {
        gpu.buffer_init(label, &uniform, wgpu::BufferUsages::UNIFORM, context)
    })
    .await;
    buffer.and_then(|buffer| buffer)
}

/// The `Params` at index `i` of `uniform`, `stride` bytes apart.
pub(crate) fn params_binding(
    uniform: &wgpu::Buffer,
    i: usize,
    stride: u64,
) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer: uniform,
        offset: i as u64 * stride,
        size: wgpu::BufferSize::new(PARAMS_SIZE),
    })
}

/// Bytes from one dispatch's `Params` to the next in the uniform buffer.
pub(crate) fn params_stride(limits: &wgpu::Limits) -> u64 {
    PARAMS_SIZE.next_multiple_of(u64::from(limits.min_uniform_buffer_offset_alignment))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// More workgroups than one dimension holds fold into y rows of
    /// ceil(groups / y): fewer than y of them idle, where x = min(groups, max)
    /// left up to a row idle (65,536 groups became 65,535 × 2).
    #[test]
    fn folded_dispatches_leave_fewer_idle_workgroups_than_rows() {
        assert_eq!(fold(0, 65_535), Some([0, 0]));
        assert_eq!(fold(65_535, 65_535), Some([65_535, 1]));
        assert_eq!(fold(65_536, 65_535), Some([32_768, 2]));
        assert_eq!(fold(65_535 * 65_535 + 1, 65_535), None);
        for groups in [1, 17, 65_536, 131_071, 1_000_003, 65_535 * 65_535] {
            let [x, y] = fold(groups, 65_535).unwrap();
            assert!(x <= 65_535 && y <= 65_535, "{groups}: {x} × {y}");
            let launched = u64::from(x) * u64::from(y);
            assert!(launched >= u64::from(groups), "{groups}: {x} × {y}");
            assert!(
                launched - u64::from(groups) < u64::from(y),
                "{groups}: {x} × {y}"
            );
        }
        // Small limits, as the tests' devices set them.
        assert_eq!(fold(17, 16), Some([9, 2]));
        assert_eq!(fold(257, 16), None);
    }
}
