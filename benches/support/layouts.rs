//! The benchmark's tensors: the layouts and widths of its rows, their descriptors,
//! and their contents.
use revseq::{DataType, ReverseSubsequences};

use crate::packed::packed;

pub(crate) const LAYOUTS: [&str; 6] = [
    "innermost",
    "middle",
    "outermost",
    "onnx-batch-major",
    "onnx-time-major",
    "strided",
];

pub(crate) const WIDTHS: [DataType; 5] = [
    DataType::Uint8,
    DataType::Float16,
    DataType::Float32,
    DataType::Float64,
    DataType::Complex128,
];

/// xorshift64: fills tensors and lengths, the same every run.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// One benchmark row's operator: `elements` elements of `data_type` in `layout`.
/// The reversed axis is 64 long; lengths are spread over 0..=72 (nothing, part of
/// the lane, all of it, past it), or 0..=64 for the ONNX layouts, whose lengths
/// must not pass the axis.
pub(crate) fn descriptor(layout: &str, data_type: DataType, elements: u32) -> ReverseSubsequences {
    let t = 64;
    let packed = |sizes: &[u32], axis, length_type, length_strides| {
        packed(data_type, sizes, axis, length_type, length_strides)
    };
    match layout {
        "innermost" => packed(&[elements / t, t], 1, DataType::Uint32, None),
        "middle" => packed(&[16, t, elements / 16 / t], 1, DataType::Uint32, None),
        "outermost" => packed(&[t, elements / t], 0, DataType::Uint32, None),
        // ONNX ReverseSequence: [batch] INT64 lengths broadcast through strides.
        "onnx-batch-major" => {
            let sizes = [32, t, elements / 32 / t];
            packed(&sizes, 1, DataType::Int64, Some(&[1, 0, 0]))
        }
        "onnx-time-major" => {
            let sizes = [t, 32, elements / 32 / t];
            packed(&sizes, 0, DataType::Int64, Some(&[0, 1, 0]))
        }
        // Rows of a larger, padded tensor written into another padded tensor.
        "strided" => {
            let sizes = [elements / t, t];
            let desc = packed(&sizes, 1, DataType::Uint32, None);
            ReverseSubsequences::new(
                desc.input.with_strides(&[t + 16, 1]),
                desc.sequence_lengths,
                desc.output.with_strides(&[t + 32, 1]),
                1,
            )
        }
        // Rows of 63 elements: not whole vectors (the narrow kernels), or for 1- and
        // 2-byte elements not whole words (the general kernel).
        "odd-rows" => packed(&[elements / 63, 63], 1, DataType::Uint32, None),
        // Three lanes, each longer than a 128 MiB binding past 1.5 GiB: the sweep's
        // axis longer than a window. Lengths spread over the whole axis.
        "long-lanes" => packed(&[3, elements / 3], 1, DataType::Uint32, None),
        // `outermost` behind a size-1 dimension, with an odd number of columns:
        // past a binding, the last staged piece is no whole number of vectors.
        "ragged-outermost" => {
            let columns = (elements / t - 1) | 1;
            packed(&[1, t, columns], 1, DataType::Uint32, None)
        }
        // The axis strided in the input (stored column by column): the general
        // kernels, whatever the width.
        "strided-axis" => {
            let rows = elements / t;
            let desc = packed(&[rows, t], 1, DataType::Uint32, None);
            ReverseSubsequences::new(
                desc.input.with_strides(&[1, rows]),
                desc.sequence_lengths,
                desc.output,
                1,
            )
        }
        _ => unreachable!("unknown layout {layout}"),
    }
}

/// Input and length bytes for `desc`, the same every run.
pub(crate) fn host_tensors(desc: &ReverseSubsequences) -> (Vec<u8>, Vec<u8>) {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D ^ desc.input.element_count());
    let input_bytes: Vec<u8> = (0..desc.input.min_size_in_bytes())
        .map(|_| rng.next() as u8)
        .collect();
    let length_bytes = length_values(desc, &mut rng);
    (input_bytes, length_bytes)
}

pub(crate) fn length_values(desc: &ReverseSubsequences, rng: &mut Rng) -> Vec<u8> {
    let length_type = desc.sequence_lengths.data_type();
    let onnx = length_type == DataType::Int64;
    let n = desc.input.sizes()[desc.axis as usize];
    let slots = desc.sequence_lengths.min_size_in_bytes() / u64::from(length_type.size_in_bytes());
    (0..slots)
        .flat_map(|_| {
            let value = rng.next()
                % if n > 64 {
                    u64::from(n) + 1
                } else if onnx {
                    65
                } else {
                    73
                };
            if onnx {
                value.to_le_bytes().to_vec()
            } else {
                (value as u32).to_le_bytes().to_vec()
            }
        })
        .collect()
}
