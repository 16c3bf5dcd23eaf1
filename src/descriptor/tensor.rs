//! Tensor descriptions, as DirectML's `DML_BUFFER_TENSOR_DESC` gives them.

use crate::descriptor::dtype::DataType;

/// A tensor's data type, sizes and optional strides (in elements).
///
/// Without strides the tensor is packed row-major. A stride of 0 repeats one element
/// along that dimension (broadcast); this is allowed for the input and the sequence
/// lengths, not for the output.
///
/// ```
/// use revseq::{DataType, TensorDesc};
/// // A packed [2, 3] tensor of f32: 24 bytes.
/// let packed = TensorDesc::new(DataType::Float32, &[2, 3]);
/// assert_eq!(packed.min_size_in_bytes(), 24);
/// // The same sizes column-major with a gap of one element after each column.
/// let gapped = TensorDesc::new(DataType::Float32, &[2, 3]).with_strides(&[1, 3]);
/// assert_eq!(gapped.min_size_in_bytes(), 32);
/// // One length per row, repeated for every column (ONNX's [batch] lengths).
/// let lengths = TensorDesc::new(DataType::Int64, &[2, 1]).with_strides(&[1, 0]);
/// assert_eq!(lengths.min_size_in_bytes(), 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorDesc {
    data_type: DataType,
    sizes: Vec<u32>,
    strides: Option<Vec<u32>>,
}

impl TensorDesc {
    /// A packed tensor.
    pub fn new(data_type: DataType, sizes: &[u32]) -> TensorDesc {
        TensorDesc {
            data_type,
            sizes: sizes.to_vec(),
            strides: None,
        }
    }

    /// The same tensor with explicit strides, one per dimension, in elements.
    pub fn with_strides(mut self, strides: &[u32]) -> TensorDesc {
        self.strides = Some(strides.to_vec());
        self
    }

    /// The element type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// Sizes, outermost first.
    pub fn sizes(&self) -> &[u32] {
        &self.sizes
    }

    /// The strides given, if any.
    pub fn strides(&self) -> Option<&[u32]> {
        self.strides.as_deref()
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        self.sizes.len()
    }

    /// Strides in elements, the packed row-major ones when none were given.
    pub fn effective_strides(&self) -> Vec<u64> {
        match &self.strides {
            Some(strides) => strides.iter().map(|&s| u64::from(s)).collect(),
            None => {
                let mut strides = vec![0u64; self.sizes.len()];
                let mut step = 1u64;
                for (stride, &size) in strides.iter_mut().zip(&self.sizes).rev() {
                    *stride = step;
                    step = step.saturating_mul(u64::from(size));
                }
                strides
            }
        }
    }

    /// Number of elements (the product of the sizes).
    pub fn element_count(&self) -> u64 {
        self.sizes
            .iter()
            .fold(1u64, |n, &s| n.saturating_mul(u64::from(s)))
    }

    /// Bytes a buffer must hold for this tensor: (offset of the last element + 1) ×
    /// element size, as `DMLCalcBufferTensorSize` computes it before rounding; 0 for a
    /// tensor with a size of 0. Saturates at `u64::MAX` for sizes no buffer can hold.
    pub fn min_size_in_bytes(&self) -> u64 {
        if self.element_count() == 0 {
            return 0;
        }
        let last_offset = self
            .sizes
            .iter()
            .zip(self.effective_strides())
            .fold(0u128, |sum, (&size, stride)| {
                sum + u128::from(size - 1) * u128::from(stride)
            });
        let bytes = (last_offset + 1) * u128::from(self.data_type.size_in_bytes());
        u64::try_from(bytes).unwrap_or(u64::MAX)
    }

    /// The same tensor with `size` on dimension `dim`: its strides, where it has
    /// any, kept.
    pub(crate) fn with_size(&self, dim: usize, size: u32) -> TensorDesc {
        let mut resized = self.clone();
        resized.sizes[dim] = size;
        resized
    }

    /// Whether every byte of `[0, min_size_in_bytes)` belongs to some element, so
    /// that writing all elements leaves nothing of the range as it was.
    pub(crate) fn is_dense(&self) -> bool {
        self.min_size_in_bytes()
            == self
                .element_count()
                .saturating_mul(u64::from(self.data_type.size_in_bytes()))
    }
}
