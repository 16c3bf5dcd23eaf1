//! The plan of a descriptor, on the host: its canonical layout, the dispatches it
//! is cut into (`src/window/`), a kernel plan for each (`src/kernels/`) and the one
//! pipeline key they run under. Nothing here touches the device.

use crate::error::Error;
use crate::kernels::{PipelineKey, Plan, Walk};
use crate::layout::Layout;
use crate::operator::ReverseSubsequences;
use crate::target::Target;
use crate::tuning::{self, Profile};
use crate::window::{self, Dispatch, Window};

/// A descriptor's plan: its canonical layout, its pieces, a plan per piece and
/// the one pipeline key they run under.
pub(crate) struct Planned {
    pub(crate) layout: Layout,
    pub(crate) dispatches: Vec<Dispatch>,
    pub(crate) plans: Vec<Plan>,
    pub(crate) key: PipelineKey,
}

/// Plans `desc` (validated, of tensors `bytes` long) for `target`, on the host.
pub(crate) fn plan(
    desc: &ReverseSubsequences,
    bytes: [u64; 3],
    target: &Target,
) -> Result<Planned, Error> {
    let layout = Layout::canonical(desc);
    let dispatches = cut_into_windows(desc, &layout, bytes, target)?;
    let (key, plans) = plan_dispatches(
        desc,
        &dispatches,
        layout.dims[layout.axis].size,
        &target.profile,
    );
    Ok(Planned {
        layout,
        dispatches,
        plans,
        key,
    })
}

/// Bytes of the placeholder an in-place dispatch binds in the input's place: one
/// 16-byte vector, the least any kernel's input binding may hold.
pub(crate) const PLACEHOLDER_BYTES: u64 = 16;

/// Plans `desc`, the operator from a tensor into itself (`src/in_place.rs`), in
/// place: one dispatch binding the tensor whole, or where it passes a binding
/// (`window::in_place`), one a piece of whole lanes, or one a pair of groups of
/// positions where a lane passes a binding. Each binds its window of the tensor
/// through the output binding, and at the input's a placeholder, or where a
/// pair's groups lie apart, the back group's window.
pub(crate) fn plan_in_place(
    desc: &ReverseSubsequences,
    bytes: [u64; 3],
    target: &Target,
) -> Result<Planned, Error> {
    let layout = Layout::canonical(desc);
    let widths = widths(desc);
    let mut dispatches = match window::fits_one_binding(&layout, bytes, target.window) {
        true => vec![window::whole(&layout, bytes)],
        false => window::in_place(&layout, widths, bytes, target.window, target.align)?.map_err(
            |rule| Error::InPlaceTooLarge {
                bytes: bytes[2],
                limit: target.window.min(window::MAX_WINDOW_BYTES) & !3,
                rule,
            },
        )?,
    };
    for dispatch in dispatches.iter_mut().filter(|d| !d.apart) {
        dispatch.windows[0] = Window {
            offset: 0,
            size: PLACEHOLDER_BYTES,
        };
        dispatch.shifts[0] = 0;
    }
    let (key, plans) = plan_in_place_dispatches(desc, &layout, &dispatches, &target.profile);
    Ok(Planned {
        layout,
        dispatches,
        plans,
        key,
    })
}

/// A plan per in-place dispatch under one key: pairs of groups of positions
/// (not `whole`) run `general`'s swap across windows; pieces of whole lanes
/// run the family's plan where every piece runs it from a vector-aligned start
/// under the same key, else the general swap.
fn plan_in_place_dispatches(
    desc: &ReverseSubsequences,
    layout: &Layout,
    dispatches: &[Dispatch],
    profile: &Profile,
) -> (PipelineKey, Vec<Plan>) {
    let element_bytes = desc.input.data_type().size_in_bytes();
    if !dispatches[0].whole {
        let (n, group) = (
            layout.dims[layout.axis].size,
            dispatches[0].layout.dims[0].size,
        );
        let front_positions = tuning::across_steps(profile.tuning, n.div_ceil(group.max(1)));
        let vectors = dispatches
            .iter()
            .all(|d| Plan::across_vectors(&d.layout, d.shifts, element_bytes));
        let plans: Vec<Plan> = dispatches
            .iter()
            .map(|d| {
                Plan::general_across(&d.layout, element_bytes, front_positions, vectors, profile)
            })
            .collect();
        return (key_of(desc, &plans[0], &dispatches[0]), plans);
    }
    let plans: Vec<Plan> = dispatches
        .iter()
        .map(|d| Plan::in_place(&d.layout, element_bytes, profile))
        .collect();
    let key = key_of(desc, &plans[0], &dispatches[0]);
    let aligned = plans.iter().zip(dispatches).all(|(plan, dispatch)| {
        let vector_bytes = u64::from(plan.fields().vector_bytes.max(1));
        u64::from(dispatch.shifts[2]) * u64::from(element_bytes) % vector_bytes == 0
            && key_of(desc, plan, dispatch) == key
    });
    if aligned {
        return (key, plans);
    }
    let plans: Vec<Plan> = dispatches
        .iter()
        .map(|d| Plan::general_in_place(&d.layout, profile))
        .collect();
    (key_of(desc, &plans[0], &dispatches[0]), plans)
}

/// Each tensor's `min_size_in_bytes`, within the device's `max_buffer_size`.
pub(crate) fn tensor_bytes(
    desc: &ReverseSubsequences,
    limits: &wgpu::Limits,
) -> Result<[u64; 3], Error> {
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

/// Bytes per element of input, sequence lengths and output.
fn widths(desc: &ReverseSubsequences) -> [u64; 3] {
    let element_bytes = desc.input.data_type().size_in_bytes();
    let length_bytes = desc.sequence_lengths.data_type().size_in_bytes();
    [element_bytes, length_bytes, element_bytes].map(u64::from)
}

/// The dispatches: one where every tensor fits a binding, else pieces of the
/// output with the windows of each buffer they bind (`src/window/`).
fn cut_into_windows(
    desc: &ReverseSubsequences,
    layout: &Layout,
    bytes: [u64; 3],
    target: &Target,
) -> Result<Vec<Dispatch>, Error> {
    let element_bytes = desc.input.data_type().size_in_bytes();
    let widths = widths(desc);
    // `runs` walks pieces of whole positions against each input window, moving
    // every run once and nothing else, where the tuning walks its lanes: no copies
    // through scratch. Decided only where the tensor does not fit one binding.
    let walk_pairs = !window::fits_one_binding(layout, bytes, target.window)
        && Plan::new(layout, element_bytes, bytes[2], &target.profile)
            .pair_lanes(layout)
            .is_some_and(|lanes| {
                tuning::walks_pairs(target.profile.tuning, lanes, bytes[2], target.window)
            });
    window::split(
        layout,
        widths,
        bytes,
        target.window,
        target.align,
        walk_pairs,
    )
}

/// A plan per piece, and the one pipeline key they all run under: the fast family
/// where every piece can run it from a vector-aligned start under the same key,
/// else the general kernels.
fn plan_dispatches(
    desc: &ReverseSubsequences,
    dispatches: &[Dispatch],
    axis_size: u32,
    profile: &Profile,
) -> (PipelineKey, Vec<Plan>) {
    let element_bytes = desc.input.data_type().size_in_bytes();
    let walk = dispatches.iter().any(|d| !d.whole && d.by_position);
    let fast = |d: &Dispatch| fast_plan(d, element_bytes, axis_size, profile, walk);
    let mut plans: Vec<Plan> = dispatches.iter().map_while(fast).collect();
    let key = |plan: &Plan, dispatch: &Dispatch| key_of(desc, plan, dispatch);
    let one_key = plans.len() == dispatches.len()
        && plans
            .iter()
            .zip(dispatches)
            .all(|(plan, dispatch)| key(plan, dispatch) == key(&plans[0], &dispatches[0]));
    if one_key {
        return (key(&plans[0], &dispatches[0]), plans);
    }
    plans = dispatches
        .iter()
        .map(|d| Plan::general(&d.layout, element_bytes, d.windows[2].size, profile))
        .collect();
    (key_of(desc, &plans[0], &dispatches[0]), plans)
}

/// The fast family's plan for `dispatch`, where it can run it from a
/// vector-aligned start: the whole axis in one window, or a windowed pair the
/// plan walks. Where some piece walks pairs (`walk`), every piece walks its
/// positions (a whole one over all of them), so that one pipeline runs them all.
fn fast_plan(
    dispatch: &Dispatch,
    element_bytes: u32,
    axis_size: u32,
    profile: &Profile,
    walk: bool,
) -> Option<Plan> {
    let plan = Plan::new(
        &dispatch.layout,
        element_bytes,
        dispatch.windows[2].size,
        profile,
    );
    let plan = match walk {
        true => plan.walking_positions(&dispatch.layout, axis_size, element_bytes, profile)?,
        false => plan,
    };
    let vector_bytes = u64::from(plan.fields().vector_bytes.max(1));
    let aligned = |shift: u32| u64::from(shift) * u64::from(element_bytes) % vector_bytes == 0;
    let pairs = dispatch.by_position && plan.fields().walk != Walk::None;
    ((dispatch.whole || pairs) && aligned(dispatch.shifts[0]) && aligned(dispatch.shifts[2]))
        .then_some(plan)
}

/// The pipeline key of `plan` on `dispatch`.
fn key_of(desc: &ReverseSubsequences, plan: &Plan, dispatch: &Dispatch) -> PipelineKey {
    let fields = plan.fields();
    let lengths = desc.sequence_lengths.data_type();
    PipelineKey {
        variant: plan.variant(),
        steps: fields.steps,
        vector_bytes: fields.vector_bytes,
        element_bytes: desc.input.data_type().size_in_bytes(),
        rank: dispatch.layout.rank() as u32,
        axis: dispatch.layout.axis as u32,
        length_bytes: lengths.size_in_bytes(),
        signed_lengths: lengths.is_signed_integer(),
        access_bits: fields.access_bits,
        walk: fields.walk,
        wide_multiply: fields.wide_multiply,
        in_place: fields.in_place,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DataType;
    use crate::kernels::Variant;
    use crate::tensor::TensorDesc;
    use crate::tuning::Tuning;

    /// A device of either tuning with 64-bit integers, binding 128 MiB at a
    /// time, as the benchmark's sweep does.
    fn target(tuning: Tuning) -> Target {
        let limits = wgpu::Limits {
            max_buffer_size: 1 << 31,
            min_storage_buffer_offset_alignment: 256,
            ..wgpu::Limits::default()
        };
        let profile = Profile {
            tuning,
            int64: true,
            moves_64: true,
            forced: None,
        };
        Target::with_profile(limits, profile).with_max_binding(128 << 20)
    }

    /// `sizes` of `data_type` reversed along `axis`, a length per element of the
    /// other dimensions (size-1 ones broadcast through stride 0).
    fn per_element(data_type: DataType, sizes: &[u32], axis: usize) -> ReverseSubsequences {
        let mut length_sizes = sizes.to_vec();
        length_sizes[axis] = 1;
        let mut strides = vec![0; sizes.len()];
        let mut stride = 1;
        for d in (0..sizes.len()).rev() {
            if length_sizes[d] > 1 {
                strides[d] = stride;
                stride *= length_sizes[d];
            }
        }
        ReverseSubsequences::new(
            TensorDesc::new(data_type, sizes),
            TensorDesc::new(DataType::Uint32, &length_sizes).with_strides(&strides),
            TensorDesc::new(data_type, sizes),
            axis as u32,
        )
    }

    /// The sweep's per-element layouts (`outermost` `[64, n]`, `middle`
    /// `[b, 64, n]`) near 2 GiB, with a leading or trailing size-1 dimension
    /// and inner sizes that are whole words (buffer copies move words) but no
    /// whole number of 16-byte vectors (odd, for 4-byte elements): every piece
    /// stages and runs the fast variant, never the general kernel.
    #[test]
    fn staged_per_element_pieces_run_the_fast_variant_whatever_their_inner_size() {
        // Axes `columns` holds (64 positions), and past them `gather` (70).
        for (tuning, t) in [(Tuning::Cpu, 64), (Tuning::Gpu, 64), (Tuning::Gpu, 70)] {
            for data_type in [DataType::Uint8, DataType::Float16, DataType::Float32] {
                let width = data_type.size_in_bytes();
                let n = 2_000_000_000 / t / width / 16 * 16 + 4 / width;
                for (sizes, axis) in [
                    (vec![t, n], 0),
                    (vec![1, t, n], 1),
                    (vec![t, n, 1], 0),
                    (vec![t, n - 16], 0),
                    (vec![4, t, n / 4 / 16 * 16 + 4 / width], 1),
                    (vec![1, 4, t, n / 4 / 16 * 16 + 12 / width], 2),
                    (vec![4, t, n / 4 / 16 * 16 + 4 / width, 1], 1),
                ] {
                    let desc = per_element(data_type, &sizes, axis);
                    desc.validate().unwrap();
                    let bytes = desc.tensors().map(|(_, t)| t.min_size_in_bytes());
                    let planned = plan(&desc, bytes, &target(tuning)).unwrap();
                    let expected = if t <= 64 {
                        Variant::Columns
                    } else {
                        Variant::Gather
                    };
                    let variants: Vec<Variant> =
                        planned.plans.iter().map(|p| p.variant()).collect();
                    assert!(
                        planned.dispatches.len() > 1
                            && planned.dispatches.iter().all(|p| p.staging.is_some()),
                        "{tuning:?} {data_type:?} {sizes:?}: {} dispatches, not all staged",
                        planned.dispatches.len()
                    );
                    assert!(
                        planned.key.variant == expected && variants.iter().all(|&v| v == expected),
                        "{tuning:?} {data_type:?} {sizes:?}: {:?}, dispatches {variants:?}",
                        planned.key.variant
                    );
                }
            }
        }
    }
}
