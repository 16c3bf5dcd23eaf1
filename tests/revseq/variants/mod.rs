//! The plan's kernel variants, by what each file checks: which layouts select
//! which variant (`selection`), every family a layout can run forced on it
//! (`candidates`), every variant against the reference (`exact`),
//! the boundaries of each fast path (`boundaries`), and large dispatches
//! (`dispatches`). Here: the helpers they share.

mod boundaries;
mod candidates;
mod dispatches;
mod exact;
mod selection;

use revseq::{DataType, Gpu, ReverseSubsequences, TensorDesc, Variant};

use crate::support::{assert_matches_reference_on, gpu, interesting_lengths, length_bytes, Rng};

pub(super) const WIDTHS: [DataType; 5] = [
    DataType::Uint8,
    DataType::Float16,
    DataType::Float32,
    DataType::Uint64,
    DataType::Complex128,
];

pub(crate) use crate::packed::packed as desc;

/// A `[rows, columns]` tensor reversed along axis 1 whose input is stored column
/// by column, so no fast path applies: the general kernels' layouts.
pub(crate) fn transposed(data_type: DataType, rows: u32, columns: u32) -> ReverseSubsequences {
    ReverseSubsequences::new(
        TensorDesc::new(data_type, &[rows, columns]).with_strides(&[1, rows]),
        TensorDesc::new(DataType::Uint32, &[rows, 1]),
        TensorDesc::new(data_type, &[rows, columns]),
        1,
    )
}

/// Elements of `data_type` in `bytes` bytes.
pub(super) fn elements(data_type: DataType, bytes: u32) -> u32 {
    bytes / data_type.size_in_bytes()
}

/// Lengths for every slot of the lengths tensor, drawn from the values worth
/// testing for the axis (0, 1, n, past n, past 2^32, negative).
pub(super) fn lengths_for(rng: &mut Rng, desc: &ReverseSubsequences) -> Vec<u8> {
    drawn_lengths(rng, desc, |rng, pool, _, _| {
        pool[rng.below(pool.len() as u64) as usize]
    })
}

/// Lengths for every slot of the lengths tensor, each from `draw(rng, pool, n,
/// slot)`: `pool` holds the values worth testing for an axis of `n` positions.
pub(super) fn drawn_lengths(
    rng: &mut Rng,
    desc: &ReverseSubsequences,
    mut draw: impl FnMut(&mut Rng, &[i128], u32, u64) -> i128,
) -> Vec<u8> {
    let length_type = desc.sequence_lengths.data_type();
    let n = desc.input.sizes()[desc.axis as usize];
    let pool = interesting_lengths(length_type, n);
    let slots = desc.sequence_lengths.min_size_in_bytes() / u64::from(length_type.size_in_bytes());
    (0..slots)
        .flat_map(|slot| length_bytes(length_type, draw(rng, &pool, n, slot)))
        .collect()
}

/// Asserts the variant `desc` compiles to, then runs it against the reference.
pub(super) fn check(rng: &mut Rng, desc: &ReverseSubsequences, variant: Variant) {
    check_on(gpu(), rng, desc, variant);
}

/// [`check`] on another device or tuning; returns the key it ran under.
pub(super) fn check_on(
    gpu: &Gpu,
    rng: &mut Rng,
    desc: &ReverseSubsequences,
    variant: Variant,
) -> revseq::PipelineKey {
    let compiled = gpu.compile(desc).unwrap();
    assert_eq!(compiled.variant(), variant, "{desc:?}");
    assert_eq!(compiled.key().variant, variant);
    let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
    let lengths = lengths_for(rng, desc);
    assert_matches_reference_on(gpu, desc, &input, &lengths);
    compiled.key()
}
