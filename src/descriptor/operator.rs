//! The operator description and its device-independent validation.

use crate::descriptor::dtype::{Element, SequenceLength};
use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::tensor::TensorDesc;

/// Highest rank DirectML accepts, and the most dimensions the kernels carry.
pub const MAX_RANK: usize = 8;

/// Largest tensor, in bytes, a descriptor may describe (256 TiB), so that every
/// offset stays exact in 64 bits. A device lowers it to its `max_buffer_size`;
/// tensors past one storage binding run as several dispatches.
pub const MAX_TENSOR_BYTES: u64 = 1 << 48;

/// `DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC`: for every lane along `axis`, reverse the
/// first `L` elements, `L` being the lane's sequence length clamped to `[0, size]`, and
/// copy the rest.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReverseSubsequences {
    /// `InputTensor`.
    pub input: TensorDesc,
    /// `SequenceLengthsTensor`: the input's sizes with a 1 on `axis`.
    pub sequence_lengths: TensorDesc,
    /// `OutputTensor`: the input's sizes and data type.
    pub output: TensorDesc,
    /// `Axis`: the dimension reversed along.
    pub axis: u32,
}

impl ReverseSubsequences {
    /// Describes the operator; [`validate`](Self::validate) checks it.
    pub fn new(
        input: TensorDesc,
        sequence_lengths: TensorDesc,
        output: TensorDesc,
        axis: u32,
    ) -> ReverseSubsequences {
        ReverseSubsequences {
            input,
            sequence_lengths,
            output,
            axis,
        }
    }

    /// The operator on packed typed slices of `input_len` elements and `lengths_len`
    /// lengths, validated, with the counts checked against the sizes.
    pub(crate) fn packed<T: Element, L: SequenceLength>(
        sizes: &[u32],
        axis: u32,
        input_len: usize,
        lengths_len: usize,
    ) -> Result<ReverseSubsequences, Error> {
        let mut length_sizes = sizes.to_vec();
        if let Some(size) = length_sizes.get_mut(axis as usize) {
            *size = 1;
        }
        let desc = ReverseSubsequences::new(
            TensorDesc::new(T::DATA_TYPE, sizes),
            TensorDesc::new(L::DATA_TYPE, &length_sizes),
            TensorDesc::new(T::DATA_TYPE, sizes),
            axis,
        );
        desc.validate()?;
        for (tensor, tensor_desc, actual) in [
            (TensorRole::Input, &desc.input, input_len),
            (
                TensorRole::SequenceLengths,
                &desc.sequence_lengths,
                lengths_len,
            ),
        ] {
            if tensor_desc.element_count() != actual as u64 {
                return Err(Error::ElementCountMismatch {
                    tensor,
                    expected: tensor_desc.element_count(),
                    actual: actual as u64,
                });
            }
        }
        Ok(desc)
    }

    /// Host slices of these lengths (input, sequence lengths, output) must each
    /// hold their tensor's `min_size_in_bytes`.
    pub(crate) fn check_host_slices(&self, lengths: [usize; 3]) -> Result<(), Error> {
        for ((tensor, desc), actual) in self.tensors().into_iter().zip(lengths) {
            let required = desc.min_size_in_bytes();
            if (actual as u64) < required {
                return Err(Error::HostSliceTooSmall {
                    tensor,
                    required,
                    actual: actual as u64,
                });
            }
        }
        Ok(())
    }

    /// The three tensors with their roles.
    pub(crate) fn tensors(&self) -> [(TensorRole, &TensorDesc); 3] {
        [
            (TensorRole::Input, &self.input),
            (TensorRole::SequenceLengths, &self.sequence_lengths),
            (TensorRole::Output, &self.output),
        ]
    }

    /// Checks every rule DirectML states for this operator, plus the ones that keep
    /// the output well defined: no two output elements may share memory, and no
    /// tensor may exceed [`MAX_TENSOR_BYTES`].
    pub fn validate(&self) -> Result<(), Error> {
        self.check_ranks()?;
        self.check_types()?;
        self.check_sizes()?;
        for (tensor, desc) in self.tensors() {
            let bytes = desc.min_size_in_bytes();
            if bytes > MAX_TENSOR_BYTES {
                return Err(Error::TensorTooLarge {
                    tensor,
                    bytes,
                    limit: MAX_TENSOR_BYTES,
                    limit_name: "MAX_TENSOR_BYTES",
                });
            }
        }
        check_output_nests(&self.output)
    }

    /// One rank, 1 to 8, for every tensor and its strides, and the axis below it.
    fn check_ranks(&self) -> Result<(), Error> {
        let rank = self.input.rank();
        if !(1..=MAX_RANK).contains(&rank) {
            return Err(Error::RankOutOfRange {
                tensor: TensorRole::Input,
                rank,
            });
        }
        for (tensor, desc) in self.tensors() {
            if desc.rank() != rank {
                return Err(Error::RankMismatch {
                    tensor,
                    expected: rank,
                    actual: desc.rank(),
                });
            }
            if let Some(strides) = desc.strides() {
                if strides.len() != rank {
                    return Err(Error::StrideCountMismatch {
                        tensor,
                        expected: rank,
                        actual: strides.len(),
                    });
                }
            }
        }
        if self.axis as usize >= rank {
            return Err(Error::AxisOutOfRange {
                axis: self.axis,
                rank,
            });
        }
        Ok(())
    }

    /// The output's type is the input's; the lengths are 32- or 64-bit integers.
    fn check_types(&self) -> Result<(), Error> {
        if self.output.data_type() != self.input.data_type() {
            return Err(Error::DataTypeMismatch {
                expected: self.input.data_type(),
                actual: self.output.data_type(),
            });
        }
        let length_type = self.sequence_lengths.data_type();
        if !length_type.is_length_type() {
            return Err(Error::UnsupportedLengthType {
                data_type: length_type,
            });
        }
        Ok(())
    }

    /// The output's sizes are the input's; the lengths' too, but 1 on the axis.
    fn check_sizes(&self) -> Result<(), Error> {
        let axis = self.axis as usize;
        for (dim, &expected) in self.input.sizes().iter().enumerate() {
            let actual = self.output.sizes()[dim];
            if actual != expected {
                return Err(Error::SizeMismatch {
                    tensor: TensorRole::Output,
                    dim,
                    expected,
                    actual,
                });
            }
            let actual = self.sequence_lengths.sizes()[dim];
            if dim == axis && actual != 1 {
                return Err(Error::LengthsAxisSize {
                    axis: self.axis,
                    size: actual,
                });
            }
            if dim != axis && actual != expected {
                return Err(Error::SizeMismatch {
                    tensor: TensorRole::SequenceLengths,
                    dim,
                    expected,
                    actual,
                });
            }
        }
        Ok(())
    }
}

/// Output strides must nest: taken from the smallest stride up, each dimension of
/// size > 1 steps past the furthest offset the smaller ones reach. That is what
/// rules out two elements at one address, and what lets a kernel recover an
/// element's coordinates from its offset alone.
fn check_output_nests(output: &TensorDesc) -> Result<(), Error> {
    if output.element_count() == 0 {
        return Ok(());
    }
    let strides = output.effective_strides();
    let mut dims: Vec<usize> = (0..output.rank())
        .filter(|&d| output.sizes()[d] > 1)
        .collect();
    dims.sort_by_key(|&d| strides[d]);
    let mut reach = 0u64; // furthest offset reached by the dimensions seen so far
    for d in dims {
        let size = output.sizes()[d];
        if strides[d] <= reach {
            return Err(Error::OverlappingOutput {
                dim: d,
                size,
                stride: strides[d] as u32,
                required: reach + 1,
            });
        }
        reach += u64::from(size - 1) * strides[d];
    }
    Ok(())
}
