//! Windowed dispatch: tensors larger than one storage binding. A device with
//! deliberately small limits (64 KiB bindings, 256-byte offset alignment) runs
//! every windowing path on small tensors; one real tensor runs past the default
//! 128 MiB binding. Here: the helpers the files share.

mod layouts;
mod pairs;
mod staging;

use std::sync::OnceLock;

use revseq::{CompiledReverse, DataType, Gpu, ReverseSubsequences, TensorDesc, TensorRole};

use crate::strided::lengths_for;
use crate::support::{assert_matches_reference_on, gpu_with_limits, Rng};

pub(crate) const WINDOW: u32 = 64 << 10;

pub(crate) fn small_windows() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        gpu_with_limits(|limits| {
            limits.max_storage_buffer_binding_size = u64::from(WINDOW);
            limits.min_storage_buffer_offset_alignment = 256;
        })
    })
}

/// Runs `desc` windowed against the reference, asserting it needs several
/// dispatches.
pub(super) fn check(desc: &ReverseSubsequences, seed: u64) -> usize {
    check_on(small_windows(), desc, seed)
}

/// [`check`] on `gpu`, a device with small windows under either tuning.
pub(super) fn check_on(gpu: &Gpu, desc: &ReverseSubsequences, seed: u64) -> usize {
    let compiled = gpu.compile(desc).unwrap();
    let dispatches = compiled.dispatch_count();
    assert!(dispatches > 1, "{desc:?} ran unwindowed");
    let mut rng = Rng::new(seed);
    let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
    let lengths = lengths_for(&mut rng, desc, desc.input.sizes()[desc.axis as usize]);
    assert_matches_reference_on(gpu, desc, &input, &lengths);
    dispatches
}

pub(crate) fn packed(
    data_type: DataType,
    length_type: DataType,
    sizes: &[u32],
    axis: u32,
) -> ReverseSubsequences {
    let mut length_sizes = sizes.to_vec();
    length_sizes[axis as usize] = 1;
    ReverseSubsequences::new(
        TensorDesc::new(data_type, sizes),
        TensorDesc::new(length_type, &length_sizes),
        TensorDesc::new(data_type, sizes),
        axis,
    )
}

/// `[time 40, batch 16·scale, 256 bytes]`, one length per batch entry: lanes
/// that span every window.
pub(crate) fn time_major_spanning(data_type: DataType, scale: u32) -> ReverseSubsequences {
    let sizes = [40, 16 * scale, 256 / data_type.size_in_bytes()];
    ReverseSubsequences::new(
        TensorDesc::new(data_type, &sizes),
        TensorDesc::new(DataType::Int32, &[1, sizes[1], sizes[2]]).with_strides(&[0, 1, 0]),
        TensorDesc::new(data_type, &sizes),
        0,
    )
}

/// `[time 24, columns]`, a length per column, in 3·scale windows.
pub(crate) fn outermost_spanning(data_type: DataType, scale: u32) -> ReverseSubsequences {
    let columns = 3 * scale * WINDOW / (24 * data_type.size_in_bytes());
    packed(data_type, DataType::Int64, &[24, columns], 0)
}

/// Per-element layouts whose lanes span windows, with inner sizes that are
/// whole words but no whole number of vectors (odd for 4-byte elements), and
/// size-1 dimensions before or after: `[n, c]`, `[1, n, c]`, `[n, c, 1]` along
/// axis n, and `[2, n, c]` along the middle, for an axis of `n` positions.
pub(super) fn ragged_per_element(data_type: DataType, n: u32) -> Vec<ReverseSubsequences> {
    let width = data_type.size_in_bytes();
    let c = 3 * WINDOW / (n * width) / 16 * 16 + 4 / width.min(4);
    [
        (vec![n, c], 0),
        (vec![1, n, c], 1),
        (vec![n, c, 1], 0),
        (vec![2, n, c / 2 / 16 * 16 + 4 / width.min(4)], 1),
    ]
    .into_iter()
    .map(|(sizes, axis)| packed(data_type, DataType::Int64, &sizes, axis))
    .collect()
}

/// Lengths that put the reversed part's end, and so the straddling vector, on
/// each side of every window boundary of an `n`-position lane of `width`-byte
/// elements, besides the ends of the lane and values between.
pub(super) fn lengths_around_windows(n: u32, width: u32, rng: &mut Rng) -> Vec<i128> {
    let per_window = i128::from(WINDOW / width);
    let n = i128::from(n);
    let mut lengths = vec![0, 1, 2, 3, 5, 17, n - 1, n, n + 3, -1];
    for k in 1..=n / per_window {
        for delta in [-17, -2, -1, 0, 1, 2, 15] {
            lengths.push((k * per_window + delta).clamp(0, n));
        }
    }
    lengths.extend((0..8).map(|_| i128::from(rng.below(n as u64))));
    lengths
}

/// `b` of a tensor twice `a`'s: twice the pieces (give or take a partial one),
/// and each piece's copies, in and out, at most one for each window of the input
/// binding its axis spans, and one more.
pub(super) fn assert_linear(a: &CompiledReverse, b: &CompiledReverse) {
    let pieces = |op: &CompiledReverse| op.dispatch_count() - op.staging_copies();
    assert!(
        pieces(b) <= 2 * pieces(a) + 1,
        "{} then {} pieces for {:?}",
        pieces(a),
        pieces(b),
        b.descriptor()
    );
    for op in [a, b] {
        let windows = op
            .binding_size(TensorRole::Input)
            .div_ceil(u64::from(WINDOW))
            + 1;
        assert!(
            op.staging_copies() as u64 <= 2 * pieces(op) as u64 * windows,
            "{} copies for {} pieces of {:?}",
            op.staging_copies(),
            pieces(op),
            op.descriptor()
        );
    }
}
