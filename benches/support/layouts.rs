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
#[derive(Clone)]
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// The generator `steps` calls of [`Rng::next`] ahead, at once: xorshift is
    /// linear over GF(2), so `steps` steps are one 64 × 64 bit matrix, its power
    /// by squaring.
    fn jumped(&self, steps: u64) -> Rng {
        // A matrix as its 64 columns: the images of the unit vectors.
        type Matrix = [u64; 64];
        fn apply(m: &Matrix, v: u64) -> u64 {
            (0..64)
                .filter(|j| v >> j & 1 == 1)
                .fold(0, |acc, j| acc ^ m[j])
        }
        let compose =
            |a: &Matrix, b: &Matrix| -> Matrix { std::array::from_fn(|j| apply(a, b[j])) };
        let mut step: Matrix = std::array::from_fn(|j| Rng(1 << j).next());
        let mut total: Matrix = std::array::from_fn(|j| 1 << j);
        let mut n = steps;
        while n > 0 {
            if n & 1 == 1 {
                total = compose(&step, &total);
            }
            step = compose(&step, &step);
            n >>= 1;
        }
        Rng(apply(&total, self.0))
    }
}

/// One benchmark row's operator: `elements` elements of `data_type` in `layout`.
/// The reversed axis is 64 long.
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

/// The sequence lengths a row runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lengths {
    /// The table's: spread over 0..=72 (nothing, part of the lane, all of it,
    /// past it), or 0..=64 for the ONNX layouts, whose lengths must not pass the
    /// axis; over `[0, n]` on axes longer than 64.
    Spread,
    /// Uniform in `[0, n]`: about half the axis reversed on average.
    Uniform,
    /// All `n`: every element moved.
    Full,
    /// A sorted padded batch: the first three quarters of the slots `n`, the
    /// last quarter falling evenly to a quarter of `n`, as a batch bucketed and
    /// sorted by length has most lanes full and a few short.
    Padded,
}

impl Lengths {
    /// The name the tables print.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Lengths::Spread => "spread",
            Lengths::Uniform => "U[0,n]",
            Lengths::Full => "n",
            Lengths::Padded => "padded",
        }
    }

    /// The length bytes of every slot of `desc`'s lengths tensor, the same every
    /// run; `Spread` from `rng`, the others from their own seed.
    pub(crate) fn bytes(self, desc: &ReverseSubsequences, rng: &mut Rng) -> Vec<u8> {
        let length_type = desc.sequence_lengths.data_type();
        let n = u64::from(desc.input.sizes()[desc.axis as usize]);
        let slots =
            desc.sequence_lengths.min_size_in_bytes() / u64::from(length_type.size_in_bytes());
        let mut own = Rng(0x9E37_79B9_7F4A_7C15 ^ desc.input.element_count());
        let onnx = length_type == DataType::Int64;
        let short = slots / 4;
        (0..slots)
            .flat_map(|slot| {
                let value = match self {
                    Lengths::Spread => {
                        rng.next()
                            % if n > 64 {
                                n + 1
                            } else if onnx {
                                65
                            } else {
                                73
                            }
                    }
                    Lengths::Uniform => own.next() % (n + 1),
                    Lengths::Full => n,
                    Lengths::Padded => match (slot + short).checked_sub(slots) {
                        None => n,
                        Some(i) => n - (i + 1) * (3 * n / 4) / short.max(1),
                    },
                };
                match length_type {
                    DataType::Int64 | DataType::Uint64 => value.to_le_bytes().to_vec(),
                    _ => (value as u32).to_le_bytes().to_vec(),
                }
            })
            .collect()
    }
}

/// Input and length bytes for `desc`, the same every run.
pub(crate) fn host_tensors(desc: &ReverseSubsequences, lengths: Lengths) -> (Vec<u8>, Vec<u8>) {
    let (input_bytes, mut rng) = host_input(desc);
    let length_bytes = lengths.bytes(desc, &mut rng);
    (input_bytes, length_bytes)
}

/// Input bytes for `desc`, the same every run, and the generator as it stands
/// after them (where [`Lengths::Spread`] continues): a byte a step, made in
/// stretches on every core, each from the generator jumped to its start
/// (256 MiB take the host most of a second on one).
pub(crate) fn host_input(desc: &ReverseSubsequences) -> (Vec<u8>, Rng) {
    let rng = Rng(0x2545_F491_4F6C_DD1D ^ desc.input.element_count());
    let bytes = desc.input.min_size_in_bytes() as usize;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let stretch = bytes.div_ceil(threads).max(1 << 20);
    let mut input = vec![0u8; bytes];
    std::thread::scope(|scope| {
        for (i, chunk) in input.chunks_mut(stretch).enumerate() {
            let mut rng = rng.jumped((i * stretch) as u64);
            scope.spawn(move || chunk.iter_mut().for_each(|b| *b = rng.next() as u8));
        }
    });
    (input, rng.jumped(bytes as u64))
}

/// Whether `layout` is one of ONNX's, whose rows `--padded` repeats with
/// [`Lengths::Padded`].
pub(crate) fn is_onnx(layout: &str) -> bool {
    layout.starts_with("onnx-")
}
