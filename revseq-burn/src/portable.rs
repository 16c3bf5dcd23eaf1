//! The operators as burn's own tensor operations, for every device revseq cannot
//! record on (another backend, or a wgpu runtime whose handles revseq never saw).
//!
//! The dimensions after the axis over which the lengths broadcast (the features
//! of an RNN's `[batch, time, features]`) move whole: the input is seen as rows
//! of them, and one `select` of rows does the work. Its index, one entry per row,
//! is built by burn tensor operations on the device: the row at position `t`
//! comes from position `L - 1 - t` where `t < L`, from itself elsewhere.
//! Per-lane lengths make the rows single elements. Whatever
//! the backend does with a `select` it does here: fusion, and under autodiff the
//! gradient (the incoming one selected back).

use burn::tensor::kind::Basic;
use burn::tensor::{DType, Int, Tensor, TensorCreationOptions};

/// `x` reversed along `axis` by `lengths` (the input's rank, 1 on `axis`, the
/// arguments checked), each length clamped to `[0, size of the axis]`.
pub(crate) fn reverse<const D: usize, K: Basic>(
    x: Tensor<D, K>,
    lengths: Tensor<D, Int>,
    axis: usize,
) -> Tensor<D, K> {
    let dims = x.dims();
    if dims.iter().product::<usize>() == 0 {
        return x;
    }
    let length_dims = lengths.dims();
    // Rows: the dimensions from `first` on, after the axis, all broadcast.
    let first = (axis + 1..=D)
        .rev()
        .take_while(|&d| d == D || length_dims[d] == 1)
        .last()
        .unwrap_or(D);
    let mut lead = dims;
    lead[first..].fill(1);
    let rows: usize = lead.iter().product();
    let row: usize = dims[first..].iter().product();
    // Rows from one axis position to the next.
    let stride: usize = dims[axis + 1..first].iter().product();

    let device = x.device();
    let mut options = TensorCreationOptions::new(device.clone());
    if rows > i32::MAX as usize {
        options = options.with_dtype(DType::I64);
    }
    let size = dims[axis];
    let mut along = [1; D];
    along[axis] = size;
    let positions = Tensor::<1, Int>::arange(0..size as i64, options.clone()).reshape(along);
    // Clamped in the lengths' own dtype, so that an unsigned length past the
    // index type's range still clamps to the axis, and then cast to the index's.
    let lengths = lengths.clamp(0, size as i64).cast(positions.dtype());
    let mut lanes = length_dims;
    lanes[axis] = size;
    let (positions, lengths) = (positions.expand(lanes), lengths.expand(lanes));
    let reversed = lengths.clone() - positions.clone() * 2 - 1;
    let shift = reversed.mask_fill(positions.greater_equal(lengths), 0) * stride as i64;
    let index =
        Tensor::<1, Int>::arange(0..rows as i64, options).reshape(lead) + shift.expand(lead);
    x.reshape([rows, row])
        .select(0, index.reshape([rows]))
        .reshape(dims)
}
