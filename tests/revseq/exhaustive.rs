//! Every data type × rank 1–8 × axis × length type on packed tensors, GPU against
//! the reference byte for byte, with lengths covering 0, 1, the axis size, past it,
//! 64-bit values above 2^32 and negative signed values.

use revseq::{DataType, ReverseSubsequences, TensorDesc};

use crate::support::{assert_matches_reference, interesting_lengths, length_bytes, Rng};

/// Sizes for a rank-`rank` tensor: small non-axis dimensions, a longer axis.
fn sizes(rank: usize, axis: usize) -> Vec<u32> {
    (0..rank)
        .map(|d| if d == axis { 6 } else { [3, 2][d % 2] })
        .collect()
}

fn every_data_type_rank_and_axis(length_type: DataType) {
    let mut rng = Rng::new(u64::from(length_type.size_in_bytes()) * 31 + length_type as u64);
    let mut cases = 0;
    for data_type in DataType::ALL {
        for rank in 1..=8 {
            for axis in 0..rank {
                let sizes = sizes(rank, axis);
                let mut length_sizes = sizes.clone();
                length_sizes[axis] = 1;
                let desc = ReverseSubsequences::new(
                    TensorDesc::new(data_type, &sizes),
                    TensorDesc::new(length_type, &length_sizes),
                    TensorDesc::new(data_type, &sizes),
                    axis as u32,
                );
                let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
                let pool = interesting_lengths(length_type, sizes[axis]);
                let lanes = desc.sequence_lengths.element_count() as usize;
                // Rank 1 has one lane: run it once per interesting length.
                let rounds = if lanes == 1 { pool.len() } else { 1 };
                for round in 0..rounds {
                    let lengths: Vec<u8> = (0..lanes)
                        .flat_map(|lane| {
                            length_bytes(length_type, pool[(lane + round) % pool.len()])
                        })
                        .collect();
                    assert_matches_reference(&desc, &input, &lengths);
                    cases += 1;
                }
            }
        }
    }
    assert!(cases >= 15 * 36, "ran {cases} cases");
}

#[test]
fn uint32_lengths() {
    every_data_type_rank_and_axis(DataType::Uint32);
}

#[test]
fn uint64_lengths() {
    every_data_type_rank_and_axis(DataType::Uint64);
}

#[test]
fn int32_lengths() {
    every_data_type_rank_and_axis(DataType::Int32);
}

#[test]
fn int64_lengths() {
    every_data_type_rank_and_axis(DataType::Int64);
}
