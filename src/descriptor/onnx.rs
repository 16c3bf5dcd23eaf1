//! ONNX `ReverseSequence` (opset 10) in terms of the DirectML operator.

use crate::descriptor::dtype::DataType;
use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::operator::ReverseSubsequences;
use crate::descriptor::tensor::TensorDesc;

/// ONNX Runtime's CPU kernel rules: rank ≥ 2, the axes 0 and 1 in some order, one
/// length per batch entry, each in `[0, shape[time_axis]]`.
pub(crate) fn validate(
    shape: &[usize],
    input_len: usize,
    sequence_lens: &[i64],
    batch_axis: usize,
    time_axis: usize,
) -> Result<(), Error> {
    if shape.len() < 2 {
        return Err(Error::OnnxRank { rank: shape.len() });
    }
    if batch_axis > 1 || time_axis > 1 || batch_axis == time_axis {
        return Err(Error::OnnxAxes {
            batch_axis,
            time_axis,
        });
    }
    let elements = shape
        .iter()
        .try_fold(1u64, |n, &s| n.checked_mul(s as u64))
        .unwrap_or(u64::MAX);
    if elements != input_len as u64 {
        return Err(Error::ElementCountMismatch {
            tensor: TensorRole::Input,
            expected: elements,
            actual: input_len as u64,
        });
    }
    if sequence_lens.len() != shape[batch_axis] {
        return Err(Error::OnnxBatchSize {
            expected: shape[batch_axis],
            actual: sequence_lens.len(),
        });
    }
    let max = shape[time_axis];
    for (index, &value) in sequence_lens.iter().enumerate() {
        if value < 0 || value as u64 > max as u64 {
            return Err(Error::OnnxSequenceLength { index, value, max });
        }
    }
    Ok(())
}

/// The DirectML form: reverse along `time_axis`, with the `[batch]` lengths
/// broadcast to every lane through strides (1 on the batch axis, 0 elsewhere).
pub(crate) fn descriptor(
    data_type: DataType,
    shape: &[usize],
    batch_axis: usize,
    time_axis: usize,
) -> Result<ReverseSubsequences, Error> {
    let sizes = shape
        .iter()
        .enumerate()
        .map(|(dim, &size)| {
            u32::try_from(size).map_err(|_| Error::DimensionTooLarge {
                tensor: TensorRole::Input,
                dim,
                size: size as u64,
            })
        })
        .collect::<Result<Vec<u32>, Error>>()?;
    let mut length_sizes = sizes.clone();
    length_sizes[time_axis] = 1;
    let mut length_strides = vec![0; sizes.len()];
    length_strides[batch_axis] = 1;
    let desc = ReverseSubsequences::new(
        TensorDesc::new(data_type, &sizes),
        TensorDesc::new(DataType::Int64, &length_sizes).with_strides(&length_strides),
        TensorDesc::new(data_type, &sizes),
        time_axis as u32,
    );
    desc.validate()?;
    Ok(desc)
}
