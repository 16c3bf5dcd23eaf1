//! A descriptor of packed tensors, shared by the benchmark and the tests
//! (`tests/revseq/variants/`).

use revseq::{DataType, ReverseSubsequences, TensorDesc};

/// Packed input and output of `sizes` and `data_type`, lengths of `length_type`
/// with the input's sizes and 1 on `axis`, packed or with `length_strides`.
pub(crate) fn packed(
    data_type: DataType,
    sizes: &[u32],
    axis: u32,
    length_type: DataType,
    length_strides: Option<&[u32]>,
) -> ReverseSubsequences {
    let mut length_sizes = sizes.to_vec();
    length_sizes[axis as usize] = 1;
    let lengths = TensorDesc::new(length_type, &length_sizes);
    ReverseSubsequences::new(
        TensorDesc::new(data_type, sizes),
        match length_strides {
            Some(strides) => lengths.with_strides(strides),
            None => lengths,
        },
        TensorDesc::new(data_type, sizes),
        axis,
    )
}
