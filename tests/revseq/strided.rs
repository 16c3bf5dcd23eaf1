//! Strided and broadcast layouts: permuted and gapped strides, stride-0 input and
//! lengths, every canonical rank and axis, and a seeded sweep of random layouts. The
//! output slice is filled with canaries that must survive outside the tensor.

use revseq::{DataType, ReverseSubsequences, TensorDesc};

use crate::support::{
    assert_matches_reference, gpu, interesting_lengths, length_bytes, Rng, LENGTH_TYPES,
};

/// Strides for `sizes` laid out in the dimension order `order` (outermost first),
/// with `gap` unused elements after each dimension's extent.
pub(crate) fn strides_in_order(sizes: &[u32], order: &[usize], gap: &[u32]) -> Vec<u32> {
    let mut strides = vec![0; sizes.len()];
    let mut step = 1;
    for &d in order.iter().rev() {
        strides[d] = step;
        step = step * sizes[d] + gap[d];
    }
    strides
}

/// Lengths for every slot of `desc`'s lengths tensor, drawn from the values that
/// test the clamp: none, part, all, past the axis, and the type's extremes.
pub(crate) fn lengths_for(rng: &mut Rng, desc: &ReverseSubsequences, axis_size: u32) -> Vec<u8> {
    let length_type = desc.sequence_lengths.data_type();
    let pool = interesting_lengths(length_type, axis_size);
    let slots = desc.sequence_lengths.min_size_in_bytes() / u64::from(length_type.size_in_bytes());
    (0..slots)
        .flat_map(|_| length_bytes(length_type, pool[rng.below(pool.len() as u64) as usize]))
        .collect()
}

fn run_case(rng: &mut Rng, desc: &ReverseSubsequences) -> Vec<u8> {
    let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
    let lengths = lengths_for(rng, desc, desc.input.sizes()[desc.axis as usize]);
    assert_matches_reference(desc, &input, &lengths)
}

#[test]
fn transposed_output_and_gapped_input() {
    let mut rng = Rng::new(1);
    for data_type in DataType::ALL {
        let sizes = [3, 5, 4];
        let output = strides_in_order(&sizes, &[2, 0, 1], &[0, 0, 0]);
        let input = strides_in_order(&sizes, &[0, 1, 2], &[1, 2, 3]);
        for axis in 0..3u32 {
            let mut length_sizes = sizes;
            length_sizes[axis as usize] = 1;
            let desc = ReverseSubsequences::new(
                TensorDesc::new(data_type, &sizes).with_strides(&input),
                TensorDesc::new(DataType::Uint32, &length_sizes),
                TensorDesc::new(data_type, &sizes).with_strides(&output),
                axis,
            );
            run_case(&mut rng, &desc);
        }
    }
}

#[test]
fn gapped_output_keeps_every_gap_byte() {
    let mut rng = Rng::new(2);
    for data_type in DataType::ALL {
        // Every other element, and a 3-element gap after each row: for 1- and 2-byte
        // types, output words mix element bytes with gap bytes.
        let sizes = [4, 7];
        let output = [7 * 2 + 3, 2];
        let mut length_sizes = sizes;
        length_sizes[1] = 1;
        let desc = ReverseSubsequences::new(
            TensorDesc::new(data_type, &sizes),
            TensorDesc::new(DataType::Uint64, &length_sizes),
            TensorDesc::new(data_type, &sizes).with_strides(&output),
            1,
        );
        let out = run_case(&mut rng, &desc);
        // The reference leaves gaps alone, and the comparison was byte for byte; check
        // directly too that a gap byte still holds the first canary.
        let width = data_type.size_in_bytes() as usize;
        assert_eq!(&out[width..2 * width], vec![0xA5; width].as_slice());
    }
}

#[test]
fn stride_zero_input_and_lengths_broadcast() {
    let mut rng = Rng::new(3);
    for data_type in DataType::ALL {
        for length_type in LENGTH_TYPES {
            let sizes = [3, 6, 4];
            // Input repeated along dimension 0; one length per column shared by all
            // rows (lengths vary along dimension 2 only).
            let desc = ReverseSubsequences::new(
                TensorDesc::new(data_type, &sizes).with_strides(&[0, 4, 1]),
                TensorDesc::new(length_type, &[3, 1, 4]).with_strides(&[0, 0, 1]),
                TensorDesc::new(data_type, &sizes),
                1,
            );
            run_case(&mut rng, &desc);
            // Input fully broadcast: one element everywhere.
            let desc = ReverseSubsequences::new(
                TensorDesc::new(data_type, &sizes).with_strides(&[0, 0, 0]),
                TensorDesc::new(length_type, &[3, 1, 4]),
                TensorDesc::new(data_type, &sizes),
                1,
            );
            run_case(&mut rng, &desc);
        }
    }
}

#[test]
fn every_canonical_rank_and_axis_runs_uncollapsed() {
    // Gaps after every dimension stop size-1 dropping and run merging, so the
    // kernels run at the full rank.
    let mut rng = Rng::new(4);
    for data_type in [
        DataType::Uint8,
        DataType::Float16,
        DataType::Float32,
        DataType::Int64,
        DataType::Complex128,
    ] {
        for rank in 1..=8usize {
            for axis in 0..rank {
                let sizes: Vec<u32> = (0..rank).map(|d| if d == axis { 4 } else { 2 }).collect();
                let order: Vec<usize> = (0..rank).collect();
                let gaps = vec![1; rank];
                let strides = strides_in_order(&sizes, &order, &gaps);
                let mut length_sizes = sizes.clone();
                length_sizes[axis] = 1;
                let desc = ReverseSubsequences::new(
                    TensorDesc::new(data_type, &sizes).with_strides(&strides),
                    TensorDesc::new(DataType::Int32, &length_sizes),
                    TensorDesc::new(data_type, &sizes).with_strides(&strides),
                    axis as u32,
                );
                let key = gpu().compile(&desc).unwrap().key();
                assert_eq!((key.rank, key.axis), (rank as u32, axis as u32));
                run_case(&mut rng, &desc);
            }
        }
    }
}

/// A random layout of `sizes`: a random dimension order with random gaps, or
/// (for inputs and lengths) stride 0 on some dimensions.
pub(crate) fn random_strides(rng: &mut Rng, sizes: &[u32], broadcast: bool) -> Vec<u32> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let gaps: Vec<u32> = sizes
        .iter()
        .map(|_| [0, 0, 1, 3][rng.below(4) as usize])
        .collect();
    let mut strides = strides_in_order(sizes, &order, &gaps);
    if broadcast {
        for s in strides.iter_mut() {
            if rng.below(4) == 0 {
                *s = 0;
            }
        }
    }
    strides
}

#[test]
fn random_layouts_match_the_reference() {
    let mut rng = Rng::new(5);
    for _ in 0..400 {
        let rank = 1 + rng.below(6) as usize;
        let axis = rng.below(rank as u64) as usize;
        let sizes: Vec<u32> = (0..rank).map(|_| 1 + rng.below(5) as u32).collect();
        let data_type = DataType::ALL[rng.below(15) as usize];
        let length_type = LENGTH_TYPES[rng.below(4) as usize];
        let mut length_sizes = sizes.clone();
        length_sizes[axis] = 1;
        let mut tensor = |data_type, sizes: &[u32], broadcast| {
            let desc = TensorDesc::new(data_type, sizes);
            if rng.below(3) == 0 {
                desc
            } else {
                desc.with_strides(&random_strides(&mut rng, sizes, broadcast))
            }
        };
        let desc = ReverseSubsequences::new(
            tensor(data_type, &sizes, true),
            tensor(length_type, &length_sizes, true),
            tensor(data_type, &sizes, false),
            axis as u32,
        );
        run_case(&mut rng, &desc);
    }
}
