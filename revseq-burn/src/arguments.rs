//! From burn shapes to revseq's descriptor, on the host: the lengths' shape checked
//! against the input's, size-1 lengths dimensions turned into stride-0 broadcasts,
//! and neighbouring dimensions that broadcast alike folded together, so that any
//! rank burn gives fits revseq's eight.

use burn::tensor::kind::Basic;
use burn::tensor::{DType, Int, Tensor};
use revseq::{DataType, ReverseSubsequences, TensorDesc, TensorRole};

use crate::Error;

/// The arguments of one call, as the checks and the descriptor need them.
pub(crate) struct Arguments {
    /// The input's dtype and shape.
    pub(crate) dtype: DType,
    pub(crate) input: Vec<usize>,
    /// The lengths' dtype and shape (the input's rank).
    pub(crate) lengths_dtype: DType,
    pub(crate) lengths: Vec<usize>,
    pub(crate) axis: usize,
    /// The lengths' argument name, for errors.
    pub(crate) tensor: &'static str,
}

impl Arguments {
    /// The arguments of `x` reversed along `axis` by `lengths`, a tensor that
    /// stands for the lengths of shape `shape` (itself, or `[batch]` lengths
    /// for ONNX's one length per batch entry).
    pub(crate) fn of<const D: usize, const L: usize, K: Basic>(
        x: &Tensor<D, K>,
        lengths: &Tensor<L, Int>,
        shape: [usize; D],
        axis: usize,
        tensor: &'static str,
    ) -> Arguments {
        Arguments {
            dtype: x.dtype(),
            input: x.dims().to_vec(),
            lengths_dtype: lengths.dtype(),
            lengths: shape.to_vec(),
            axis,
            tensor,
        }
    }

    /// What both paths check: the input's dtype (a float, integer or bool type),
    /// the lengths' dtype, and their shape against the input's.
    pub(crate) fn check(&self) -> Result<(), Error> {
        if !self.dtype.is_bool() {
            data_type(self.dtype)?;
        }
        length_type(self.lengths_dtype, self.tensor)?;
        check_lengths_shape(&self.input, &self.lengths, self.axis, self.tensor)
    }

    /// The DirectML descriptor for a contiguous input reversed along `axis`, with
    /// contiguous lengths (1 on `axis`, and on every other dimension either 1,
    /// broadcast, or the input's size).
    pub(crate) fn descriptor(&self) -> Result<ReverseSubsequences, Error> {
        descriptor(
            self.dtype,
            &self.input,
            self.lengths_dtype,
            &self.lengths,
            self.axis,
            self.tensor,
        )
    }
}

fn descriptor(
    dtype: DType,
    input: &[usize],
    lengths_dtype: DType,
    lengths: &[usize],
    axis: usize,
    tensor: &'static str,
) -> Result<ReverseSubsequences, Error> {
    let data_type = data_type(dtype)?;
    let length_type = length_type(lengths_dtype, tensor)?;
    check_lengths_shape(input, lengths, axis, tensor)?;

    // Dimensions in order, the axis kept whatever its size, size-1 ones dropped,
    // runs of equally-broadcast neighbours (never across the axis) multiplied out.
    // Each entry: (size, lengths' size, is the axis).
    let mut dims: Vec<(u64, u64, bool)> = Vec::new();
    for (dim, (&size, &length_size)) in input.iter().zip(lengths).enumerate() {
        let is_axis = dim == axis;
        if size == 1 && !is_axis {
            continue;
        }
        let (size, length_size) = (size as u64, length_size as u64);
        match dims.last_mut() {
            Some(last) if !is_axis && !last.2 && (last.1 == 1) == (length_size == 1) => {
                last.0 *= size;
                last.1 *= length_size;
            }
            _ => dims.push((size, length_size, is_axis)),
        }
    }
    let rank = dims.len();
    let axis = dims
        .iter()
        .position(|d| d.2)
        .expect("the axis is always kept");

    let sizes = dims
        .iter()
        .enumerate()
        .map(|(dim, d)| {
            u32::try_from(d.0).map_err(|_| revseq::Error::DimensionTooLarge {
                tensor: TensorRole::Input,
                dim,
                size: d.0,
            })
        })
        .collect::<Result<Vec<u32>, _>>()?;
    let mut length_sizes = sizes.clone();
    length_sizes[axis] = 1;
    // The lengths are contiguous in their own shape: a dimension's stride is the
    // product of the lengths' sizes after it, 0 where they broadcast.
    let mut length_strides = vec![0u32; rank];
    let mut stride = 1u64;
    for dim in (0..rank).rev() {
        if dims[dim].1 > 1 {
            length_strides[dim] =
                u32::try_from(stride).map_err(|_| revseq::Error::DimensionTooLarge {
                    tensor: TensorRole::SequenceLengths,
                    dim,
                    size: stride,
                })?;
        }
        stride *= dims[dim].1;
    }
    let desc = ReverseSubsequences::new(
        TensorDesc::new(data_type, &sizes),
        TensorDesc::new(length_type, &length_sizes).with_strides(&length_strides),
        TensorDesc::new(data_type, &sizes),
        axis as u32,
    );
    desc.validate()?;
    Ok(desc)
}

/// The lengths' shape: the input's rank, 1 on `axis`, and on every other
/// dimension 1 (broadcast) or the input's size.
fn check_lengths_shape(
    input: &[usize],
    lengths: &[usize],
    axis: usize,
    tensor: &'static str,
) -> Result<(), Error> {
    let fits = lengths.len() == input.len()
        && lengths
            .iter()
            .zip(input)
            .enumerate()
            .all(|(dim, (&l, &i))| l == 1 || (dim != axis && l == i));
    if fits {
        return Ok(());
    }
    let rule = input
        .iter()
        .enumerate()
        .map(|(dim, &size)| match dim == axis || size == 1 {
            true => "1".to_string(),
            false => format!("{size} or 1"),
        })
        .collect::<Vec<_>>()
        .join(", ");
    Err(Error::LengthsShape {
        tensor,
        actual: lengths.to_vec(),
        rule: format!("[{rule}]: the input's shape with 1 on axis {axis}, 1 where it broadcasts"),
    })
}

/// revseq's data type for a burn dtype. The operator moves bits, so burn's
/// types without a DirectML twin travel as the unsigned type of their width.
pub(crate) fn data_type(dtype: DType) -> Result<DataType, Error> {
    Ok(match dtype {
        DType::F64 => DataType::Float64,
        DType::F32 | DType::Flex32 => DataType::Float32,
        DType::F16 => DataType::Float16,
        DType::BF16 => DataType::Bfloat16,
        DType::I64 => DataType::Int64,
        DType::I32 => DataType::Int32,
        DType::I16 => DataType::Int16,
        DType::I8 => DataType::Int8,
        DType::U64 => DataType::Uint64,
        DType::U32 => DataType::Uint32,
        DType::U16 => DataType::Uint16,
        DType::U8 => DataType::Uint8,
        other => return Err(Error::DataType { dtype: other }),
    })
}

fn length_type(dtype: DType, tensor: &'static str) -> Result<DataType, Error> {
    Ok(match dtype {
        DType::I32 => DataType::Int32,
        DType::I64 => DataType::Int64,
        DType::U32 => DataType::Uint32,
        DType::U64 => DataType::Uint64,
        other => {
            return Err(Error::LengthType {
                tensor,
                dtype: other,
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn describe(
        input: &[usize],
        lengths: &[usize],
        axis: usize,
    ) -> Result<ReverseSubsequences, Error> {
        descriptor(DType::F32, input, DType::I32, lengths, axis, "lengths")
    }

    #[test]
    fn onnx_batch_major_folds_to_three_dimensions() {
        // [batch 4, time 7, 2, 3, 5], lengths [4, 1, 1, 1, 1]: the features fold
        // into one broadcast dimension.
        let desc = describe(&[4, 7, 2, 3, 5], &[4, 1, 1, 1, 1], 1).unwrap();
        assert_eq!(desc.input.sizes(), [4, 7, 30]);
        assert_eq!(desc.sequence_lengths.sizes(), [4, 1, 30]);
        assert_eq!(desc.sequence_lengths.strides(), Some(&[1, 0, 0][..]));
        assert_eq!(desc.axis, 1);
    }

    #[test]
    fn time_major_keeps_the_axis_first() {
        let desc = describe(&[7, 4, 16], &[1, 4, 1], 0).unwrap();
        assert_eq!(desc.input.sizes(), [7, 4, 16]);
        assert_eq!(desc.sequence_lengths.strides(), Some(&[0, 1, 0][..]));
    }

    #[test]
    fn per_lane_lengths_fold_around_the_axis() {
        // Lengths for every lane: the dimensions before and after the axis fold.
        let desc = describe(&[2, 3, 5, 4, 6], &[2, 3, 1, 4, 6], 2).unwrap();
        assert_eq!(desc.input.sizes(), [6, 5, 24]);
        assert_eq!(desc.sequence_lengths.strides(), Some(&[24, 0, 1][..]));
    }

    #[test]
    fn size_one_dimensions_drop_out_and_the_axis_stays() {
        let desc = describe(&[1, 5, 1, 1], &[1, 1, 1, 1], 1).unwrap();
        assert_eq!(desc.input.sizes(), [5]);
        let desc = describe(&[3, 1, 2], &[3, 1, 2], 1).unwrap();
        assert_eq!(desc.input.sizes(), [3, 1, 2]);
    }

    #[test]
    fn ranks_past_eight_fold_to_fit() {
        let input = [2usize; 12];
        let mut lengths = [1usize; 12];
        lengths[0] = 2;
        let desc = describe(&input, &lengths, 5).unwrap();
        assert_eq!(desc.input.sizes(), [2, 16, 2, 64]);
    }

    #[test]
    fn alternating_broadcasts_past_eight_dimensions_are_refused_by_rank() {
        let input = [2usize; 19];
        let lengths: Vec<usize> = (0..19).map(|d| if d % 2 == 0 { 2 } else { 1 }).collect();
        let err = describe(&input, &lengths, 1).unwrap_err();
        assert!(
            matches!(err, Error::Revseq(revseq::Error::RankOutOfRange { .. })),
            "{err}"
        );
    }

    #[test]
    fn lengths_shape_rules_name_the_expected_shape() {
        let err = describe(&[4, 7, 3], &[4, 7, 3], 1).unwrap_err();
        assert_eq!(
            err.to_string(),
            "lengths: shape [4, 7, 3] must be [4 or 1, 1, 3 or 1]: the input's shape with 1 on \
             axis 1, 1 where it broadcasts"
        );
        assert!(matches!(
            describe(&[4, 7, 3], &[4, 1], 1),
            Err(Error::LengthsShape { .. })
        ));
        assert!(matches!(
            describe(&[4, 7, 3], &[2, 1, 3], 1),
            Err(Error::LengthsShape { .. })
        ));
    }

    #[test]
    fn dtypes_are_checked() {
        let err = descriptor(DType::F32, &[2, 3], DType::I16, &[2, 1], 1, "lengths").unwrap_err();
        assert_eq!(
            err.to_string(),
            "lengths: dtype I16 must be I32, I64, U32 or U64"
        );
        let bool_dtype = DType::Bool(burn::tensor::BoolStore::Native);
        assert!(matches!(
            descriptor(bool_dtype, &[2, 3], DType::I32, &[2, 1], 1, "lengths"),
            Err(Error::DataType { .. })
        ));
    }
}
