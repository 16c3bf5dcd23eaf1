//! The operator in place: one tensor, reversed in its own memory. The operator is
//! its own inverse and leaves every position at or past a lane's length as it is,
//! so in place it swaps position `t` with `L - 1 - t` for `t < L / 2` and moves
//! nothing else: `2 × Σ min(L, n)` elements read and written, against a copy's
//! `2 × N`, and no second buffer.

use crate::descriptor::dtype::{Element, SequenceLength};
use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::operator::ReverseSubsequences;
use crate::descriptor::tensor::TensorDesc;

/// Reverse subsequences in place: for every lane along `axis`, the first `L`
/// elements of `tensor` are reversed where they lie, `L` being the lane's sequence
/// length clamped to `[0, size]`; the rest, and every byte of the buffer that no
/// element addresses, keep their values.
///
/// The rules are [`ReverseSubsequences`]'s with `tensor` as both input and
/// output: its strides must not let two elements share memory, since each
/// element is read and written. Ordered by stride, each dimension of size > 1
/// steps past everything the smaller strides reach, so a stride 0 is refused on
/// a dimension of size > 1 and changes nothing on one of size 1.
///
/// ```
/// # fn main() -> Result<(), revseq::Error> {
/// use revseq::{DataType, ReverseInPlace, TensorDesc};
/// let gpu = revseq::Gpu::new()?;
/// let tensor = TensorDesc::new(DataType::Float32, &[2, 4]);
/// let lengths = TensorDesc::new(DataType::Uint32, &[2, 1]);
/// let op = gpu.compile_in_place(&ReverseInPlace::new(tensor, lengths, 1))?;
/// let mut data = [1f32, 2., 3., 4., 5., 6., 7., 8.];
/// op.run(bytemuck::cast_slice_mut(&mut data), bytemuck::cast_slice(&[3u32, 0]))?;
/// assert_eq!(data, [3., 2., 1., 4., 5., 6., 7., 8.]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReverseInPlace {
    /// The tensor, read and written.
    pub tensor: TensorDesc,
    /// The sequence lengths: the tensor's sizes with a 1 on `axis`.
    pub sequence_lengths: TensorDesc,
    /// The dimension reversed along.
    pub axis: u32,
}

impl ReverseInPlace {
    /// Describes the operator in place; [`validate`](Self::validate) checks it.
    pub fn new(tensor: TensorDesc, sequence_lengths: TensorDesc, axis: u32) -> ReverseInPlace {
        ReverseInPlace {
            tensor,
            sequence_lengths,
            axis,
        }
    }

    /// Checks every rule of [`ReverseSubsequences::validate`] with the tensor as
    /// input and output; errors about the output name the tensor.
    pub fn validate(&self) -> Result<(), Error> {
        self.operator().map(|_| ())
    }

    /// The out-of-place operator this reverses like, from `tensor` into itself,
    /// validated.
    pub(crate) fn operator(&self) -> Result<ReverseSubsequences, Error> {
        let operator = self.as_operator();
        operator.validate().map_err(name_the_tensor)?;
        Ok(operator)
    }

    /// [`operator`](Self::operator), not validated: for one already planned.
    pub(crate) fn as_operator(&self) -> ReverseSubsequences {
        ReverseSubsequences::new(
            self.tensor.clone(),
            self.sequence_lengths.clone(),
            self.tensor.clone(),
            self.axis,
        )
    }

    /// The operator in place on a packed typed slice of `len` elements and
    /// `lengths_len` lengths, validated, with the counts checked.
    pub(crate) fn packed<T: Element, L: SequenceLength>(
        sizes: &[u32],
        axis: u32,
        len: usize,
        lengths_len: usize,
    ) -> Result<ReverseInPlace, Error> {
        let operator = ReverseSubsequences::packed::<T, L>(sizes, axis, len, lengths_len)
            .map_err(name_the_tensor)?;
        Ok(ReverseInPlace::new(
            operator.input,
            operator.sequence_lengths,
            axis,
        ))
    }

    /// Host slices of these lengths (tensor, sequence lengths) must each hold
    /// their tensor's `min_size_in_bytes`.
    pub(crate) fn check_host_slices(&self, [tensor, lengths]: [usize; 2]) -> Result<(), Error> {
        let roles = [
            (TensorRole::Tensor, &self.tensor, tensor),
            (TensorRole::SequenceLengths, &self.sequence_lengths, lengths),
        ];
        for (role, desc, actual) in roles {
            let required = desc.min_size_in_bytes();
            if (actual as u64) < required {
                return Err(Error::HostSliceTooSmall {
                    tensor: role,
                    required,
                    actual: actual as u64,
                });
            }
        }
        Ok(())
    }
}

/// An error of the out-of-place operator about its input or output, about the
/// one tensor in place. (A rank mismatch names the lengths, never the input or
/// output, which are one tensor.)
pub(crate) fn name_the_tensor(error: Error) -> Error {
    let role = |tensor| match tensor {
        TensorRole::Input | TensorRole::Output => TensorRole::Tensor,
        other => other,
    };
    match error {
        Error::OverlappingOutput {
            dim,
            size,
            stride,
            required,
        } => Error::OverlappingTensor {
            dim,
            size,
            stride,
            required,
        },
        Error::RankOutOfRange { tensor, rank } => Error::RankOutOfRange {
            tensor: role(tensor),
            rank,
        },
        Error::StrideCountMismatch {
            tensor,
            expected,
            actual,
        } => Error::StrideCountMismatch {
            tensor: role(tensor),
            expected,
            actual,
        },
        Error::TensorTooLarge {
            tensor,
            bytes,
            limit,
            limit_name,
        } => Error::TensorTooLarge {
            tensor: role(tensor),
            bytes,
            limit,
            limit_name,
        },
        Error::ElementCountMismatch {
            tensor,
            expected,
            actual,
        } => Error::ElementCountMismatch {
            tensor: role(tensor),
            expected,
            actual,
        },
        other => other,
    }
}
