//! [`Gpu::compile`](crate::Gpu::compile): a descriptor, validated, becomes a
//! [`CompiledReverse`] in a few named steps. Everything here runs once per
//! descriptor; `record` then only binds and dispatches.

use crate::compiled::{CompiledReverse, Launch, Part};
use crate::device_lock::Held;
use crate::error::{Error, TensorRole};
use crate::gpu::Gpu;
use crate::kernels::{PipelineKey, Plan, Walk};
use crate::layout::Layout;
use crate::operator::ReverseSubsequences;
use crate::params::{Params, PARAMS_SIZE};
use crate::scope::capture;
use crate::tuning::{self, Profile};
use crate::window::{self, Dispatch};

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

/// What a plan is made for: the device's tuning and features, its binding
/// window, and the storage offset alignment.
pub(crate) struct Target {
    pub(crate) profile: Profile,
    pub(crate) window: u64,
    pub(crate) align: u64,
}

impl Target {
    fn of(gpu: &Gpu, limits: &wgpu::Limits) -> Target {
        Target {
            profile: gpu.profile(),
            window: gpu.max_binding(),
            align: u64::from(limits.min_storage_buffer_offset_alignment),
        }
    }
}

/// Whether a plan may stage pieces through scratch buffers, which needs copy
/// usages on the caller's buffers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scratch {
    Allowed,
    None,
}

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
    scratch: Scratch,
) -> Result<Planned, Error> {
    let layout = Layout::canonical(desc);
    let dispatches = cut_into_windows(desc, &layout, bytes, target, scratch)?;
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
    let launches = into_launches(
        &plans,
        &dispatches,
        limits,
        bytes[2],
        gpu.submission_bytes(),
    )?;
    let pipeline = Held::new(gpu.device_lock(), gpu.pipeline(key).await?);
    let scratch = scratch_buffers(gpu, &dispatches).await?;
    // Last: it is where a lost device shows (`layout_uniform`).
    let params = layout_uniform(gpu, &plans, &dispatches, &launches, &layout, limits).await?;
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
/// output with the windows of each buffer they bind (`src/window/`).
fn cut_into_windows(
    desc: &ReverseSubsequences,
    layout: &Layout,
    bytes: [u64; 3],
    target: &Target,
    scratch: Scratch,
) -> Result<Vec<Dispatch>, Error> {
    let element_bytes = desc.input.data_type().size_in_bytes();
    let length_bytes = desc.sequence_lengths.data_type().size_in_bytes();
    let widths = [element_bytes, length_bytes, element_bytes].map(u64::from);
    // `runs` walks pieces of whole positions against each input window, moving
    // every run once and nothing else, where the tuning walks its lanes: no copies
    // through scratch. Asked only where the tensor does not fit one binding.
    let tuning = target.profile.tuning;
    let walk = || {
        Plan::new(layout, element_bytes, bytes[2], &target.profile)
            .pair_lanes(layout)
            .is_some_and(|lanes| tuning::walks_pairs(tuning, lanes, bytes[2], target.window))
    };
    window::split(
        layout,
        widths,
        bytes,
        target.window,
        target.align,
        walk,
        scratch == Scratch::Allowed,
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
    let key_of = |plan: &Plan, dispatch: &Dispatch| {
        let fields = plan.fields();
        PipelineKey {
            variant: plan.variant(),
            steps: fields.steps,
            vector_bytes: fields.vector_bytes,
            element_bytes,
            rank: dispatch.layout.rank() as u32,
            axis: dispatch.layout.axis as u32,
            length_bytes: desc.sequence_lengths.data_type().size_in_bytes(),
            signed_lengths: desc.sequence_lengths.data_type().is_signed_integer(),
            access_bits: fields.access_bits,
            share_lengths: fields.share_lengths,
            walk: fields.walk,
            wide_multiply: fields.wide_multiply,
        }
    };
    let walk = dispatches
        .iter()
        .any(|dispatch| !dispatch.whole && dispatch.by_position);
    let fast = |dispatch: &Dispatch| {
        let plan = Plan::new(
            &dispatch.layout,
            element_bytes,
            dispatch.windows[2].size,
            profile,
        );
        // In windowed pairs, every piece walks its positions (a whole one over all
        // of them), so that one pipeline runs them all.
        let plan = match walk {
            true => plan.walking_positions(&dispatch.layout, axis_size, element_bytes, profile)?,
            false => plan,
        };
        let vector_bytes = u64::from(plan.fields().vector_bytes.max(1));
        let aligned = |shift: u32| u64::from(shift) * u64::from(element_bytes) % vector_bytes == 0;
        let pairs = dispatch.by_position && plan.fields().walk != Walk::None;
        ((dispatch.whole || pairs) && aligned(dispatch.shifts[0]) && aligned(dispatch.shifts[2]))
            .then_some(plan)
    };
    let mut plans: Vec<Plan> = dispatches.iter().map_while(fast).collect();
    // Pieces may differ in how many invocations of a row can share its length;
    // the fewest suit them all (an invocation that holds a whole row shares with
    // none).
    let share = plans
        .iter()
        .map(|plan| plan.fields().share_lengths)
        .min()
        .unwrap_or(1);
    let shared = |plan: &Plan, dispatch: &Dispatch| PipelineKey {
        share_lengths: share,
        ..key_of(plan, dispatch)
    };
    if plans.len() < dispatches.len()
        || plans
            .iter()
            .zip(dispatches)
            .any(|(plan, dispatch)| shared(plan, dispatch) != shared(&plans[0], &dispatches[0]))
    {
        plans = dispatches
            .iter()
            .map(|dispatch| {
                Plan::general(
                    &dispatch.layout,
                    element_bytes,
                    dispatch.windows[2].size,
                    profile,
                )
            })
            .collect();
        return (key_of(&plans[0], &dispatches[0]), plans);
    }
    (shared(&plans[0], &dispatches[0]), plans)
}

/// What `record` needs of each dispatch, its bindings and workgroups: more than the device allows in one
/// dimension fold into y, with as few idle workgroups as the fold allows. Where
/// revseq's own submissions are bounded (`Gpu::submission_bytes`), a dispatch that visits
/// more output bytes runs in parts, each with a `Params` of its own after the
/// dispatches' (`src/submission.rs`).
fn into_launches(
    plans: &[Plan],
    dispatches: &[Dispatch],
    limits: &wgpu::Limits,
    output_bytes: u64,
    part_bytes: Option<u64>,
) -> Result<Vec<Launch>, Error> {
    let max = limits.max_compute_workgroups_per_dimension.max(1);
    let mut next_params = dispatches.len();
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
            let visited = dispatch.windows[2].size;
            let parts = match part_bytes {
                Some(budget) if visited > budget && groups > 1 => {
                    let per_part = (u64::from(groups) * budget / visited).clamp(1, u64::from(max));
                    (0..groups)
                        .step_by(per_part as usize)
                        .map(|first_group| {
                            let size = (groups - first_group).min(per_part as u32);
                            next_params += 1;
                            Part {
                                first_group,
                                workgroups: [size, 1],
                                params: next_params - 1,
                                bytes: visited * u64::from(size) / u64::from(groups),
                            }
                        })
                        .collect()
                }
                _ => Vec::new(),
            };
            Ok(Launch {
                windows: dispatch.windows,
                workgroups,
                #[cfg(feature = "lab")]
                groups,
                staging: dispatch.staging,
                parts,
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

/// One `Params` per dispatch, then one per part of a dispatch that runs in
/// parts, in one uniform buffer, [`params_stride`] bytes apart.
async fn layout_uniform(
    gpu: &Gpu,
    plans: &[Plan],
    dispatches: &[Dispatch],
    launches: &[Launch],
    layout: &Layout,
    limits: &wgpu::Limits,
) -> Result<Held<wgpu::Buffer>, Error> {
    let stride = params_stride(limits) as usize;
    let parts: usize = launches.iter().map(|l| l.parts.len()).sum();
    let mut uniform = vec![0u8; stride * (dispatches.len() + parts)];
    let mut write = |i: usize, params: &Params| {
        uniform[i * stride..i * stride + PARAMS_SIZE as usize]
            .copy_from_slice(bytemuck::bytes_of(params));
    };
    for (i, ((plan, dispatch), launch)) in plans.iter().zip(dispatches).zip(launches).enumerate() {
        let mut params = Params::for_dispatch(dispatch, layout.dims[layout.axis].size);
        plan.write(&mut params);
        write(i, &params);
        for part in &launch.parts {
            let first_group = part.first_group;
            write(
                part.params,
                &Params {
                    first_group,
                    ..params
                },
            );
        }
    }
    // Mapped at creation: on a lost device the mapping fails, which is how
    // `compile` finds out (wgpu builds an invalid pipeline without a word).
    let context = "creating the layout uniform";
    let params = capture(gpu.device(), context, || {
        gpu.buffer_init(
            "revseq::params",
            &uniform,
            wgpu::BufferUsages::UNIFORM,
            context,
        )
    })
    .await;
    params.and_then(|params| params)
}

/// Bytes from one dispatch's `Params` to the next in the uniform buffer.
fn params_stride(limits: &wgpu::Limits) -> u64 {
    PARAMS_SIZE.next_multiple_of(u64::from(limits.min_uniform_buffer_offset_alignment))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DataType;
    use crate::kernels::Variant;
    use crate::tensor::TensorDesc;
    use crate::tuning::Tuning;

    /// A device of either tuning with 64-bit integers and subgroups, binding
    /// 128 MiB at a time, as the benchmark's sweep does.
    fn target(tuning: Tuning) -> Target {
        Target {
            profile: Profile {
                tuning,
                int64: true,
                subgroup_size: if tuning == Tuning::Cpu { 8 } else { 32 },
            },
            window: 128 << 20,
            align: 256,
        }
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
        // Axes `columns` holds (64 positions), and past them `gather`, or `tile`
        // on a GPU (70).
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
                    let planned = plan(&desc, bytes, &target(tuning), Scratch::Allowed).unwrap();
                    let expected = if t <= 64 {
                        Variant::Columns
                    } else {
                        Variant::Tile
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
