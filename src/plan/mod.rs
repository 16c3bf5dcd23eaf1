//! The plan of a descriptor, on the host, in either mode: its canonical layout,
//! the family chosen for it, the pieces the cut makes of it as the family
//! needs (`cut/`), the family's work fitted to each (`src/kernels/`) and the one
//! pipeline key they run under; then the program (`program.rs`), the dispatches
//! every executor walks. Nothing here touches the device.
//!
//! The plan's words, each with one meaning:
//! - *plan* ([`Plan`]): what this module makes of a descriptor; its *program*
//!   (`program.rs`): the plan as dispatches, the one form every executor runs.
//! - *family*: a kernel family, its room in `src/kernels/`, implementing the
//!   contract `Family`; its public name is its [`Variant`](crate::Variant).
//!   A family's *work* (`kernels::Work`): its choice and counts on one piece.
//! - *lane*: the elements along the axis at one index of the other dimensions;
//!   its *length* `L` the sequence length read for it.
//! - *pair*: in place, the elements `t` and `L − 1 − t` a lane swaps. Out of
//!   place, a piece walked against one input window is a *piece-window pair*.
//! - *binding*: the bytes one storage binding holds at most
//!   ([`Target::binding`](target::Target)); a *window*: the byte range of a
//!   caller's buffer (or scratch) one dispatch binds.
//! - *cut* (`cut/`): the output made into *pieces*, each one dispatch
//!   (a staged piece also its copies); *staged*: a piece copied into scratch,
//!   run there and copied back, a *segment* per axis position, a *batch* of
//!   segments per copy dispatch.
//! - *group*: in place across windows, consecutive axis positions of one
//!   *slab* (one index of the dimensions outside the axis, with the axis and
//!   the dimensions inside it) bound in one window; a dispatch swaps the pairs
//!   of two groups. *Block* is `gather`'s alone: `steps` positions of a run.
//! - *steps*: the units (vectors, positions, words) one invocation takes.
//! - *dispatch* ([`program::Dispatch`]): one kernel launch of the program;
//!   *part*: a range of a dispatch's workgroups that `run` submits alone.
//!
//! Names inside the WGSL keep their text, so that every program stays the
//! same: the uniform's `blocks` (in `gather`, its blocks; in `runs` in place,
//! its phases)
//! and the staging copy's `LANES` (its interleave).

pub(crate) mod candidates;
pub(crate) mod cut;
pub(crate) mod dispatch;
pub(crate) mod kernel;
pub(crate) mod parts;
pub mod program;
pub(crate) mod target;

use crate::descriptor::error::Error;
use crate::descriptor::layout::Layout;
use crate::descriptor::operator::ReverseSubsequences;
use crate::descriptor::Mode;
use crate::kernels::tuning::{self, Profile};
use crate::kernels::{PipelineKey, Walk, Work};
use crate::plan::target::Target;
use cut::{Cut, Piece};

/// A descriptor's plan: its canonical layout, its pieces, the work on each and
/// the one pipeline key they run under.
pub(crate) struct Plan {
    pub(crate) layout: Layout,
    pub(crate) pieces: Vec<Piece>,
    pub(crate) work: Vec<Work>,
    pub(crate) key: PipelineKey,
}

/// Plans `desc` (validated, of tensors `bytes` long) in `mode` for `target`, on
/// the host. The family is chosen once, from the whole layout and the mode (or
/// where the cut stages pieces through scratch, from the layout they run on
/// there); the cut makes the pieces it needs (out of place, pieces of whole
/// positions paired with input windows where the family walks them; in place,
/// pieces of whole lanes or pairs of groups of positions, each binding the
/// tensor through the output binding); the family's work is then fitted to
/// each piece under its one key, or where it cannot run some piece, the
/// fallback family's (the one that runs every layout) runs them all.
pub(crate) fn plan(
    desc: &ReverseSubsequences,
    mode: Mode,
    bytes: [u64; 3],
    target: &Target,
) -> Result<Plan, Error> {
    let layout = Layout::canonical(desc);
    let element_bytes = desc.input.data_type().size_in_bytes();
    let profile = &target.profile;
    let binding = target.binding();
    let output_bytes = bytes[2].next_multiple_of(4);
    let family = Work::new(&layout, element_bytes, output_bytes, mode, profile);
    // What the family needs of the cut: in place, pieces of whole lanes or
    // pairs of groups; out of place, pieces of whole positions, walked against
    // each input window where the family walks them.
    let needs = match mode {
        Mode::InPlace => Cut::InPlace,
        Mode::OutOfPlace => Cut::OutOfPlace {
            walk_windows: family.walks_windows(&layout, bytes[2], binding, profile.tuning),
        },
    };
    let pieces =
        cut::cut(&layout, widths(desc), bytes, binding, target.align, needs)?.map_err(|rule| {
            Error::InPlaceTooLarge {
                bytes: bytes[2],
                limit: binding,
                rule,
            }
        })?;
    // The family of the layout the kernels run on: the tensor's, or where the
    // cut stages, the pieces' in scratch, on vectors the scratch's pitch pads
    // them to (the first piece's layout; the cut stages all or none).
    let family = match &pieces[0] {
        d if d.staging.is_some() => {
            Work::new(&d.layout, element_bytes, d.windows[2].size, mode, profile)
        }
        _ => family,
    };
    let work = match pieces[0].across {
        true => across(desc, &layout, &pieces, profile),
        false => fitted(desc, mode, &layout, family, &pieces, profile),
    };
    let key = key_of(desc, mode, &work[0], &pieces[0]);
    debug_assert!(
        work.iter()
            .zip(&pieces)
            .all(|(p, d)| key_of(desc, mode, p, d) == key),
        "every piece runs under one key"
    );
    Ok(Plan {
        key,
        layout,
        pieces,
        work,
    })
}

/// The fallback family's work in `mode` on `piece`: it runs every layout.
fn fallback(desc: &ReverseSubsequences, mode: Mode, piece: &Piece, profile: &Profile) -> Work {
    let element_bytes = desc.input.data_type().size_in_bytes();
    let output_bytes = piece.windows[2].size;
    Work::fallback(&piece.layout, element_bytes, output_bytes, mode, profile)
}

/// The work on each piece under one key: `family` (the family of the layout the
/// pieces run on, walking the positions of every piece where the cut paired
/// some with input windows) fitted to each piece, where it runs every piece
/// from a vector-aligned start; else the fallback family's.
fn fitted(
    desc: &ReverseSubsequences,
    mode: Mode,
    layout: &Layout,
    family: Work,
    pieces: &[Piece],
    profile: &Profile,
) -> Vec<Work> {
    let element_bytes = desc.input.data_type().size_in_bytes();
    let axis_size = layout.dims[layout.axis].size;
    // Where some piece walks pairs, every piece walks its positions (a whole
    // one over all of them), so that one pipeline runs them all.
    let family = match pieces.iter().any(|d| !d.whole && d.by_position) {
        true => family.walking(
            &pieces[0].layout,
            pieces[0].windows[2].size,
            axis_size,
            element_bytes,
            profile,
        ),
        false => Some(family),
    };
    let fitted = family.and_then(|family| {
        pieces
            .iter()
            .map(|d| fit(family, d, element_bytes, profile))
            .collect::<Option<Vec<Work>>>()
    });
    fitted.unwrap_or_else(|| {
        pieces
            .iter()
            .map(|d| fallback(desc, mode, d, profile))
            .collect()
    })
}

/// The work in place across windows: pairs of groups of positions, each run
/// by the first family in the registry that runs them (`Family::across`).
fn across(
    desc: &ReverseSubsequences,
    layout: &Layout,
    pieces: &[Piece],
    profile: &Profile,
) -> Vec<Work> {
    let element_bytes = desc.input.data_type().size_in_bytes();
    let (n, group) = (layout.dims[layout.axis].size, pieces[0].layout.dims[0].size);
    let front_positions = tuning::across_steps(profile.tuning, n.div_ceil(group.max(1)));
    let pieces: Vec<(&Layout, [u32; 3])> = pieces.iter().map(|d| (&d.layout, d.shifts)).collect();
    Work::across(&pieces, element_bytes, front_positions, profile)
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

/// `family` fitted to `piece`, where it runs it from a
/// vector-aligned start: the whole axis in one window, or a windowed pair the
/// work walks.
fn fit(family: Work, piece: &Piece, element_bytes: u32, profile: &Profile) -> Option<Work> {
    let work = family.fit(
        &piece.layout,
        element_bytes,
        piece.windows[2].size,
        profile.tuning,
    )?;
    let vector_bytes = u64::from(work.fields().vector_bytes.max(1));
    let aligned = |shift: u32| u64::from(shift) * u64::from(element_bytes) % vector_bytes == 0;
    let pairs = piece.by_position && work.fields().walk != Walk::None;
    ((piece.whole || pairs) && aligned(piece.shifts[0]) && aligned(piece.shifts[2])).then_some(work)
}

/// The pipeline key of `work` on `piece` in `mode`.
fn key_of(desc: &ReverseSubsequences, mode: Mode, work: &Work, piece: &Piece) -> PipelineKey {
    let fields = work.fields();
    let lengths = desc.sequence_lengths.data_type();
    PipelineKey {
        variant: work.variant(),
        steps: fields.steps,
        vector_bytes: fields.vector_bytes,
        element_bytes: desc.input.data_type().size_in_bytes(),
        rank: piece.layout.rank() as u32,
        axis: piece.layout.axis as u32,
        length_bytes: lengths.size_in_bytes(),
        signed_lengths: lengths.is_signed_integer(),
        access_bits: fields.access_bits,
        walk: fields.walk,
        wide_multiply: fields.wide_multiply,
        in_place: mode == Mode::InPlace,
    }
}

#[cfg(test)]
mod across_twin;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptor::dtype::DataType;
    use crate::descriptor::tensor::TensorDesc;
    use crate::kernels::tuning::Tuning;
    use crate::kernels::variant::Variant;

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

    /// A target of `tuning` binding 4 KiB at a time, on a 32-byte alignment.
    pub(super) fn small(tuning: Tuning) -> Target {
        let limits = wgpu::Limits {
            max_buffer_size: 1 << 34,
            min_storage_buffer_offset_alignment: 32,
            ..wgpu::Limits::default()
        };
        let kind = match tuning {
            Tuning::Cpu => wgpu::DeviceType::Cpu,
            Tuning::Gpu => wgpu::DeviceType::DiscreteGpu,
        };
        crate::program::Target::new(limits, kind).with_max_binding(4096)
    }

    /// In place, lanes of one position swap nothing: however the tensor is
    /// cut, the program has no dispatch (the cut across windows made no
    /// piece, and the plan indexed the first).
    #[test]
    fn in_place_lanes_of_one_position_plan_no_dispatch() {
        use crate::descriptor::in_place::ReverseInPlace;
        use crate::plan::program::Program;
        let sizes = [100, 1, 100, 128];
        for strides in [Some([1, 100, 12800, 100]), None] {
            let tensor = TensorDesc::new(DataType::Complex64, &sizes);
            let tensor = match strides {
                Some(s) => tensor.with_strides(&s),
                None => tensor,
            };
            let lengths =
                TensorDesc::new(DataType::Int64, &sizes).with_strides(&[12800, 0, 128, 0]);
            let desc = ReverseInPlace::new(tensor, lengths, 1);
            for tuning in [Tuning::Cpu, Tuning::Gpu] {
                let program = Program::in_place(&desc, &small(tuning)).unwrap();
                assert!(program.dispatches().is_empty(), "{strides:?} {tuning:?}");
            }
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
                    let planned = plan(&desc, Mode::OutOfPlace, bytes, &target(tuning)).unwrap();
                    let expected = if t <= 64 {
                        Variant::Columns
                    } else {
                        Variant::Gather
                    };
                    let variants: Vec<Variant> = planned.work.iter().map(|p| p.variant()).collect();
                    assert!(
                        planned.pieces.len() > 1
                            && planned.pieces.iter().all(|p| p.staging.is_some()),
                        "{tuning:?} {data_type:?} {sizes:?}: {} pieces, not all staged",
                        planned.pieces.len()
                    );
                    assert!(
                        planned.key.variant == expected && variants.iter().all(|&v| v == expected),
                        "{tuning:?} {data_type:?} {sizes:?}: {:?}, pieces {variants:?}",
                        planned.key.variant
                    );
                }
            }
        }
    }
}
