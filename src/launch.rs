//! What `record` needs of each dispatch of a plan: its windows, its workgroups
//! folded into x and y, and its `Params`, which the layout uniform holds.

use crate::device_lock::Held;
use crate::error::{Error, TensorRole};
use crate::gpu::Gpu;
use crate::kernels::Plan;
use crate::layout::Layout;
use crate::params::{Params, PARAMS_SIZE};
use crate::scope::capture;
use crate::window::{Dispatch, Staging, Window};

/// What `record` needs of one dispatch.
#[derive(Debug)]
pub(crate) struct Launch {
    /// Input, sequence lengths and output windows, relative to the caller's bindings.
    pub(crate) windows: [Window; 3],
    pub(crate) workgroups: [u32; 2],
    /// Workgroups with work: `workgroups` launch at least as many.
    pub(crate) groups: u32,
    /// Where the input and output travel through the scratch buffers.
    pub(crate) staging: Option<Staging>,
    /// Its layout uniform.
    pub(crate) params: Params,
}

/// Each dispatch's bindings, workgroups and `Params` (over an axis of `layout`'s):
/// more workgroups than the device allows in one dimension fold into y, with as
/// few idle as the fold allows.
pub(crate) fn into_launches(
    plans: &[Plan],
    dispatches: &[Dispatch],
    layout: &Layout,
    limits: &wgpu::Limits,
    output_bytes: u64,
) -> Result<Vec<Launch>, Error> {
    let max = limits.max_compute_workgroups_per_dimension.max(1);
    let axis_size = layout.dims[layout.axis].size;
    plans
        .iter()
        .zip(dispatches)
        .map(|(plan, dispatch)| {
            let groups = plan.workgroups();
            // Unreachable on adapters that meet WebGPU's 65,535 groups per
            // dimension, but an adapter below that gets an error, not a short
            // dispatch.
            let workgroups = fold(groups, max).ok_or_else(|| {
                let per_group = output_bytes / u64::from(groups);
                Error::TensorTooLarge {
                    tensor: TensorRole::Output,
                    bytes: output_bytes,
                    limit: u64::from(max).pow(2) * per_group,
                    limit_name: "the device's max_compute_workgroups_per_dimension squared",
                }
            })?;
            let mut params = Params::for_dispatch(dispatch, axis_size);
            plan.write(&mut params);
            Ok(Launch {
                windows: dispatch.windows,
                workgroups,
                groups,
                staging: dispatch.staging,
                params,
            })
        })
        .collect()
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
