//! CPU reference: the operator computed the obvious way, one element at a time.
//!
//! Written for obviousness, not speed, and sharing no index math with the GPU path
//! (no canonical layout, no stride inversion), so that one bug cannot hide in both.
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

use crate::dtype::{Element, SequenceLength};
use crate::{onnx, DataType, Error, ReverseSubsequences, TensorDesc};

/// Runs `desc` on host bytes. `output` keeps every byte no output element addresses.
pub fn reverse_subsequences_bytes(
    desc: &ReverseSubsequences,
    input: &[u8],
    sequence_lengths: &[u8],
    output: &mut [u8],
) -> Result<(), Error> {
    desc.validate()?;
    desc.check_host_slices([input.len(), sequence_lengths.len(), output.len()])?;

    let sizes = desc.input.sizes();
    let axis = desc.axis as usize;
    let width = desc.input.data_type().size_in_bytes() as usize;
    let axis_size = sizes[axis] as i128;
    let mut index = vec![0u32; sizes.len()];
    for _ in 0..desc.input.element_count() {
        let mut lane = index.clone();
        lane[axis] = 0;
        let length = read_length(&desc.sequence_lengths, sequence_lengths, &lane);
        let length = length.clamp(0, axis_size);
        let t = index[axis] as i128;
        let mut source = index.clone();
        if t < length {
            source[axis] = (length - 1 - t) as u32;
        }
        let from = byte_offset(&desc.input, &source);
        let to = byte_offset(&desc.output, &index);
        output[to..to + width].copy_from_slice(&input[from..from + width]);
        next_index(&mut index, sizes);
    }
    Ok(())
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

/// Advances `index` to the next row-major position (wrapping to all zeros).
fn next_index(index: &mut [u32], sizes: &[u32]) {
    for d in (0..sizes.len()).rev() {
        index[d] += 1;
        if index[d] < sizes[d] {
            return;
        }
        index[d] = 0;
    }
}

/// Byte offset of the element at `index`: Σ index·stride, strides in elements,
/// packed row-major ones when the tensor has none.
fn byte_offset(desc: &TensorDesc, index: &[u32]) -> usize {
    let strides: Vec<usize> = match desc.strides() {
        Some(strides) => strides.iter().map(|&s| s as usize).collect(),
        None => (0..index.len())
            .map(|d| desc.sizes()[d + 1..].iter().map(|&s| s as usize).product())
            .collect(),
    };
    let element: usize = index
        .iter()
        .zip(strides)
        .map(|(&i, s)| i as usize * s)
        .sum();
    element * desc.data_type().size_in_bytes() as usize
}

/// The sequence length at `index` of the lengths tensor, as a wide signed value.
fn read_length(desc: &TensorDesc, bytes: &[u8], index: &[u32]) -> i128 {
    let at = &bytes[byte_offset(desc, index)..];
    match desc.data_type() {
        DataType::Uint32 => u32::from_le_bytes(le(at)).into(),
        DataType::Int32 => i32::from_le_bytes(le(at)).into(),
        DataType::Uint64 => u64::from_le_bytes(le(at)).into(),
        DataType::Int64 => i64::from_le_bytes(le(at)).into(),
        other => unreachable!("validate admits no length type {other:?}"),
    }
}

/// The first `N` bytes of `bytes`; `validate` and the slice checks guarantee them.
fn le<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes[..N]
        .try_into()
        .expect("slice checked against min_size_in_bytes")
}
