//! CPU reference: the operator computed the obvious way, lane by lane as the
//! specifications state it: read the lane's length, then for each position `t`
//! copy the element at `L - 1 - t` (or at `t`).
//!
//! Written for obviousness, and sharing no index math with the GPU path (no
//! canonical layout, no stride inversion), so that one bug cannot hide in both;
//! strides are computed once, and each lane's offsets once, so that it checks
//! hundreds of MiB in about a second.
//! The tests compare every GPU result against it byte for byte. It needs no device,
//! so it is also the operator for code that has none.
//!
//! ```
//! use revseq::{reference, DataType, ReverseSubsequences, TensorDesc};
//! // Typed: DirectML's first example, along the last axis.
//! let input: Vec<f32> = (1..=12).map(|v| v as f32).collect();
//! let output = reference::reverse_subsequences(&input, &[1, 1, 3, 4], &[2u32, 4, 3], 3)?;
//! assert_eq!(output, [2., 1., 3., 4., 8., 7., 6., 5., 11., 10., 9., 12.]);
//!
//! // On bytes, for any descriptor: an output with gaps keeps the bytes between
//! // elements.
//! let desc = ReverseSubsequences::new(
//!     TensorDesc::new(DataType::Uint8, &[3]),
//!     TensorDesc::new(DataType::Uint32, &[1]),
//!     TensorDesc::new(DataType::Uint8, &[3]).with_strides(&[2]),
//!     0,
//! );
//! let mut out = [0xFF; 5];
//! reference::reverse_subsequences_bytes(&desc, &[1, 2, 3], &3u32.to_le_bytes(), &mut out)?;
//! assert_eq!(out, [3, 0xFF, 2, 0xFF, 1]);
//! # Ok::<(), revseq::Error>(())
//! ```

use crate::descriptor::dtype::DataType;
use crate::descriptor::dtype::{Element, SequenceLength};
use crate::descriptor::error::Error;
use crate::descriptor::in_place::ReverseInPlace;
use crate::descriptor::onnx;
use crate::descriptor::operator::ReverseSubsequences;
use crate::descriptor::tensor::TensorDesc;

/// Runs `desc` on host bytes. `output` keeps every byte no output element addresses.
pub fn reverse_subsequences_bytes(
    desc: &ReverseSubsequences,
    input: &[u8],
    sequence_lengths: &[u8],
    output: &mut [u8],
) -> Result<(), Error> {
    desc.validate()?;
    desc.check_host_slices([input.len(), sequence_lengths.len(), output.len()])?;

    // One copy of the loop per element width, so that each element moves as a
    // fixed-size array rather than through a call to `memcpy`.
    match desc.input.data_type().size_in_bytes() {
        1 => lanes::<1>(desc, input, sequence_lengths, output),
        2 => lanes::<2>(desc, input, sequence_lengths, output),
        4 => lanes::<4>(desc, input, sequence_lengths, output),
        8 => lanes::<8>(desc, input, sequence_lengths, output),
        _ => lanes::<16>(desc, input, sequence_lengths, output),
    }
    Ok(())
}

/// The operator on a validated descriptor of `W`-byte elements, lane by lane.
fn lanes<const W: usize>(
    desc: &ReverseSubsequences,
    input: &[u8],
    sequence_lengths: &[u8],
    output: &mut [u8],
) {
    let sizes = desc.input.sizes();
    let axis = desc.axis as usize;
    let n = sizes[axis] as usize;
    if desc.input.element_count() == 0 {
        return;
    }
    let [input_strides, length_strides, output_strides] =
        [&desc.input, &desc.sequence_lengths, &desc.output].map(byte_strides);
    let length_type = desc.sequence_lengths.data_type();
    // Every lane: an index with 0 on the axis, row-major over the other dimensions.
    let mut lane = vec![0u32; sizes.len()];
    for _ in 0..desc.input.element_count() / n as u64 {
        let offset = |strides: &[usize]| -> usize {
            lane.iter().zip(strides).map(|(&i, s)| i as usize * s).sum()
        };
        let (from, to) = (offset(&input_strides), offset(&output_strides));
        let length = read_length(length_type, &sequence_lengths[offset(&length_strides)..]);
        let length = length.clamp(0, n as i128) as usize;
        for t in 0..n {
            let source = if t < length { length - 1 - t } else { t };
            let at = from + source * input_strides[axis];
            let to = to + t * output_strides[axis];
            let element: [u8; W] = le(&input[at..]);
            output[to..to + W].copy_from_slice(&element);
        }
        next_lane(&mut lane, sizes, axis);
    }
}

/// Runs the operator on packed typed tensors, as [`Gpu::reverse_subsequences`] does.
///
/// [`Gpu::reverse_subsequences`]: crate::Gpu::reverse_subsequences
pub fn reverse_subsequences<T: Element, L: SequenceLength>(
    input: &[T],
    sizes: &[u32],
    sequence_lengths: &[L],
    axis: u32,
) -> Result<Vec<T>, Error> {
    let desc =
        ReverseSubsequences::packed::<T, L>(sizes, axis, input.len(), sequence_lengths.len())?;
    let mut output = vec![0u8; desc.output.min_size_in_bytes() as usize];
    reverse_subsequences_bytes(
        &desc,
        &T::to_bytes(input),
        &L::to_bytes(sequence_lengths),
        &mut output,
    )?;
    Ok(T::from_bytes(&output))
}

/// Runs `desc` in place on host bytes: in each lane, swaps the elements at `t`
/// and `L - 1 - t` for `t < L / 2`. Every other byte of `tensor` keeps its value.
pub fn reverse_in_place_bytes(
    desc: &ReverseInPlace,
    tensor: &mut [u8],
    sequence_lengths: &[u8],
) -> Result<(), Error> {
    desc.validate()?;
    desc.check_host_slices([tensor.len(), sequence_lengths.len()])?;
    let sizes = desc.tensor.sizes();
    let axis = desc.axis as usize;
    let n = sizes[axis] as usize;
    if desc.tensor.element_count() == 0 {
        return Ok(());
    }
    let width = desc.tensor.data_type().size_in_bytes() as usize;
    let [strides, length_strides] = [&desc.tensor, &desc.sequence_lengths].map(byte_strides);
    let length_type = desc.sequence_lengths.data_type();
    let mut lane = vec![0u32; sizes.len()];
    for _ in 0..desc.tensor.element_count() / n as u64 {
        let offset = |strides: &[usize]| -> usize {
            lane.iter().zip(strides).map(|(&i, s)| i as usize * s).sum()
        };
        let start = offset(&strides);
        let length = read_length(length_type, &sequence_lengths[offset(&length_strides)..]);
        let length = length.clamp(0, n as i128) as usize;
        for t in 0..length / 2 {
            let front = start + t * strides[axis];
            let back = start + (length - 1 - t) * strides[axis];
            for byte in 0..width {
                tensor.swap(front + byte, back + byte);
            }
        }
        next_lane(&mut lane, sizes, axis);
    }
    Ok(())
}

/// Runs the operator in place on a packed typed tensor, as
/// [`Gpu::reverse_subsequences_in_place`] does.
///
/// [`Gpu::reverse_subsequences_in_place`]: crate::Gpu::reverse_subsequences_in_place
pub fn reverse_subsequences_in_place<T: Element, L: SequenceLength>(
    data: &mut [T],
    sizes: &[u32],
    sequence_lengths: &[L],
    axis: u32,
) -> Result<(), Error> {
    let desc = ReverseInPlace::packed::<T, L>(sizes, axis, data.len(), sequence_lengths.len())?;
    let mut bytes = T::to_bytes(data).into_owned();
    reverse_in_place_bytes(&desc, &mut bytes, &L::to_bytes(sequence_lengths))?;
    data.copy_from_slice(&T::from_bytes(&bytes));
    Ok(())
}

/// ONNX `ReverseSequence`, straight from the ONNX text: for each slice `b` along
/// `batch_axis`, reverse the first `sequence_lens[b]` elements along `time_axis`.
pub fn reverse_sequence<T: Element>(
    input: &[T],
    shape: &[usize],
    sequence_lens: &[i64],
    batch_axis: usize,
    time_axis: usize,
) -> Result<Vec<T>, Error> {
    onnx::validate(shape, input.len(), sequence_lens, batch_axis, time_axis)?;
    let mut output = input.to_vec();
    let row_major = |index: &[usize]| index.iter().zip(shape).fold(0, |acc, (&i, &s)| acc * s + i);
    let mut index = vec![0usize; shape.len()];
    for _ in 0..input.len() {
        let length = sequence_lens[index[batch_axis]] as usize;
        let t = index[time_axis];
        if t < length {
            let mut source = index.clone();
            source[time_axis] = length - 1 - t;
            output[row_major(&index)] = input[row_major(&source)];
        }
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(output)
}

/// Advances `lane` to the next row-major position of the dimensions other than
/// `axis` (wrapping to all zeros).
fn next_lane(lane: &mut [u32], sizes: &[u32], axis: usize) {
    for d in (0..sizes.len()).rev().filter(|&d| d != axis) {
        lane[d] += 1;
        if lane[d] < sizes[d] {
            return;
        }
        lane[d] = 0;
    }
}

/// Bytes from one element to the next along each dimension: the tensor's
/// strides, or packed row-major ones when it has none, times its element size.
fn byte_strides(desc: &TensorDesc) -> Vec<usize> {
    let sizes = desc.sizes();
    let elements: Vec<usize> = match desc.strides() {
        Some(strides) => strides.iter().map(|&s| s as usize).collect(),
        None => (0..sizes.len())
            .map(|d| sizes[d + 1..].iter().map(|&s| s as usize).product())
            .collect(),
    };
    let width = desc.data_type().size_in_bytes() as usize;
    elements.into_iter().map(|s| s * width).collect()
}

/// The sequence length stored at the start of `bytes`, as a wide signed value.
fn read_length(data_type: DataType, bytes: &[u8]) -> i128 {
    match data_type {
        DataType::Uint32 => u32::from_le_bytes(le(bytes)).into(),
        DataType::Int32 => i32::from_le_bytes(le(bytes)).into(),
        DataType::Uint64 => u64::from_le_bytes(le(bytes)).into(),
        DataType::Int64 => i64::from_le_bytes(le(bytes)).into(),
        other => unreachable!("validate admits no length type {other:?}"),
    }
}

/// The first `N` bytes of `bytes`; `validate` and the slice checks guarantee them.
fn le<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes[..N]
        .try_into()
        .expect("slice checked against min_size_in_bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition once more, one element at a time: for every output index,
    /// the lane's length and the source index, each offset summed from scratch.
    fn one_element_at_a_time(
        desc: &ReverseSubsequences,
        input: &[u8],
        lengths: &[u8],
        output: &mut [u8],
    ) {
        let sizes = desc.input.sizes();
        let axis = desc.axis as usize;
        let width = desc.input.data_type().size_in_bytes() as usize;
        let offset = |tensor: &TensorDesc, index: &[u32]| -> usize {
            let strides = byte_strides(tensor);
            index
                .iter()
                .zip(strides)
                .map(|(&i, s)| i as usize * s)
                .sum()
        };
        for element in 0..desc.input.element_count() {
            let mut index = vec![0u32; sizes.len()];
            let mut rest = element;
            for d in (0..sizes.len()).rev() {
                index[d] = (rest % u64::from(sizes[d])) as u32;
                rest /= u64::from(sizes[d]);
            }
            let mut lane = index.clone();
            lane[axis] = 0;
            let at = offset(&desc.sequence_lengths, &lane);
            let length = read_length(desc.sequence_lengths.data_type(), &lengths[at..])
                .clamp(0, i128::from(sizes[axis]));
            let mut source = index.clone();
            if i128::from(index[axis]) < length {
                source[axis] = (length - 1) as u32 - index[axis];
            }
            let (from, to) = (offset(&desc.input, &source), offset(&desc.output, &index));
            output[to..to + width].copy_from_slice(&input[from..from + width]);
        }
    }

    /// SplitMix64, for shapes and bytes.
    fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn lane_by_lane_agrees_with_one_element_at_a_time() {
        let mut state = 48;
        let length_types = [
            DataType::Uint32,
            DataType::Int32,
            DataType::Uint64,
            DataType::Int64,
        ];
        for case in 0..2000 {
            let rank = 1 + next(&mut state) as usize % 4;
            let sizes: Vec<u32> = (0..rank).map(|_| 1 + next(&mut state) as u32 % 5).collect();
            let axis = next(&mut state) as usize % rank;
            let data_type = DataType::ALL[case % DataType::ALL.len()];
            let length_type = length_types[next(&mut state) as usize % 4];
            // Output rows with a gap; lengths broadcast along some dimensions.
            let mut out_strides = vec![0u32; rank];
            let mut stride = 1;
            for d in (0..rank).rev() {
                out_strides[d] = stride;
                stride = stride * sizes[d] + u32::from(d == rank - 1) * 2;
            }
            let mut length_sizes = sizes.clone();
            length_sizes[axis] = 1;
            let mut length_strides = vec![0u32; rank];
            let mut stride = 1;
            for d in (0..rank).rev() {
                if length_sizes[d] > 1 && !next(&mut state).is_multiple_of(3) {
                    length_strides[d] = stride;
                    stride *= length_sizes[d];
                }
            }
            let desc = ReverseSubsequences::new(
                TensorDesc::new(data_type, &sizes),
                TensorDesc::new(length_type, &length_sizes).with_strides(&length_strides),
                TensorDesc::new(data_type, &sizes).with_strides(&out_strides),
                axis as u32,
            );
            desc.validate().unwrap();
            let bytes = |n: u64, state: &mut u64| -> Vec<u8> {
                (0..n).map(|_| next(state) as u8).collect()
            };
            let input = bytes(desc.input.min_size_in_bytes(), &mut state);
            let mut lengths = bytes(desc.sequence_lengths.min_size_in_bytes(), &mut state);
            // Mostly lengths inside the axis, some past it or negative.
            let width = length_type.size_in_bytes() as usize;
            for slot in lengths.chunks_mut(width) {
                if !next(&mut state).is_multiple_of(4) {
                    slot.fill(0);
                    slot[0] = (next(&mut state) % 7) as u8;
                }
            }
            let size = desc.output.min_size_in_bytes() as usize + 3;
            let mut expected = vec![0xA5; size];
            one_element_at_a_time(&desc, &input, &lengths, &mut expected);
            let mut actual = vec![0xA5; size];
            reverse_subsequences_bytes(&desc, &input, &lengths, &mut actual).unwrap();
            assert_eq!(actual, expected, "{desc:?}");
        }
    }
}
