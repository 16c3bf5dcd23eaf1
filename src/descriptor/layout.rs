//! The canonical layout a kernel runs on, derived from a validated descriptor.
//!
//! Permuting dimensions in all three tensors at once, dropping size-1 dimensions
//! and merging dimensions that are contiguous in all three tensors leave the
//! operator unchanged. The canonical form orders dimensions by output stride,
//! largest first, so output offsets grow with an element's row-major position;
//! the word kernel relies on that to find which elements fall in an output word.

use crate::descriptor::operator::ReverseSubsequences;
use crate::descriptor::operator::MAX_RANK;

/// Per-dimension sizes and strides (in elements) of the three tensors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) axis: usize,
    pub(crate) dims: Vec<Dim>,
}

/// Strides are u64: a tensor may be larger than 4 GiB. A kernel sees only the
/// layout of one window (`src/plan/cut/`), whose strides fit a u32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dim {
    pub(crate) size: u32,
    pub(crate) output: u64,
    pub(crate) input: u64,
    pub(crate) lengths: u64,
}

impl Layout {
    /// The canonical layout of a descriptor that passed `validate`.
    pub(crate) fn canonical(desc: &ReverseSubsequences) -> Layout {
        let axis = desc.axis as usize;
        let out = desc.output.effective_strides();
        let inp = desc.input.effective_strides();
        let len = desc.sequence_lengths.effective_strides();
        let dim = |d: usize| Dim {
            size: desc.input.sizes()[d],
            output: out[d],
            input: inp[d],
            lengths: if d == axis { 0 } else { len[d] },
        };

        let mut order: Vec<usize> = (0..desc.input.rank())
            .filter(|&d| d != axis && desc.input.sizes()[d] != 1)
            .collect();
        order.sort_by_key(|&d| std::cmp::Reverse(out[d]));
        let mut dims: Vec<Dim> = order.iter().map(|&d| dim(d)).collect();

        // The axis takes its place by output stride like any other dimension, except
        // when its size is 0 or 1: it then reverses nothing and sits innermost with
        // stride 1, where it still nests and adds no offset; a size of 0 stays, so the
        // element count stays 0. Other size-0 dimensions stay for the same reason.
        let axis_dim = dim(axis);
        let canonical_axis = if axis_dim.size > 1 {
            dims.iter()
                .position(|d| d.output < axis_dim.output)
                .unwrap_or(dims.len())
        } else {
            dims.len()
        };
        let axis_dim = if axis_dim.size > 1 {
            axis_dim
        } else {
            Dim {
                size: axis_dim.size,
                output: 1,
                input: 0,
                lengths: 0,
            }
        };
        dims.insert(canonical_axis, axis_dim);

        let mut layout = Layout {
            axis: canonical_axis,
            dims,
        };
        layout.merge_contiguous();
        debug_assert!(layout.dims.len() <= MAX_RANK);
        layout
    }

    /// Merges neighbours (neither of them the axis) whose outer stride is the inner
    /// one times the inner size in all three tensors.
    fn merge_contiguous(&mut self) {
        let mut d = 0;
        while d + 1 < self.dims.len() {
            let (outer, inner) = (self.dims[d], self.dims[d + 1]);
            let contiguous = |o: u64, i: u64| o == i * u64::from(inner.size);
            if d != self.axis
                && d + 1 != self.axis
                && contiguous(outer.output, inner.output)
                && contiguous(outer.input, inner.input)
                && contiguous(outer.lengths, inner.lengths)
            {
                self.dims[d] = Dim {
                    size: outer.size * inner.size,
                    ..inner
                };
                self.dims.remove(d + 1);
                if self.axis > d {
                    self.axis -= 1;
                }
            } else {
                d += 1;
            }
        }
    }

    pub(crate) fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Whether rows of the innermost dimension lie back to back along the next
    /// dimension out, in input and output: each starts where the previous one ends.
    pub(crate) fn packed_rows(&self) -> bool {
        let rank = self.rank();
        let inner = u64::from(self.dims[rank - 1].size);
        rank < 2 || {
            let next = self.dims[rank - 2];
            next.input == inner && next.output == inner
        }
    }

    pub(crate) fn element_count(&self) -> u64 {
        self.dims.iter().map(|d| u64::from(d.size)).product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptor::dtype::DataType;
    use crate::descriptor::tensor::TensorDesc;

    fn canonical(sizes: &[u32], axis: u32) -> Layout {
        let mut len_sizes = sizes.to_vec();
        len_sizes[axis as usize] = 1;
        let desc = ReverseSubsequences::new(
            TensorDesc::new(DataType::Float32, sizes),
            TensorDesc::new(DataType::Uint32, &len_sizes),
            TensorDesc::new(DataType::Float32, sizes),
            axis,
        );
        desc.validate().unwrap();
        Layout::canonical(&desc)
    }

    #[test]
    fn packed_layouts_collapse_to_at_most_three_dimensions() {
        let layout = canonical(&[2, 3, 4, 5, 6], 2);
        assert_eq!(layout.axis, 1);
        let sizes: Vec<u32> = layout.dims.iter().map(|d| d.size).collect();
        assert_eq!(sizes, [6, 4, 30]);

        let layout = canonical(&[1, 1, 3, 4], 3);
        assert_eq!((layout.axis, layout.rank()), (1, 2));

        let layout = canonical(&[7, 1, 1], 1);
        assert_eq!(layout.axis, 1);
        assert_eq!(layout.dims[1].output, 1);
    }

    #[test]
    fn lengths_broadcast_blocks_merging_only_where_it_breaks_contiguity() {
        // Lengths shared along dimension 0 (stride 0) but not along 1.
        let desc = ReverseSubsequences::new(
            TensorDesc::new(DataType::Uint8, &[4, 5, 6]),
            TensorDesc::new(DataType::Uint32, &[4, 5, 1]).with_strides(&[0, 1, 0]),
            TensorDesc::new(DataType::Uint8, &[4, 5, 6]),
            2,
        );
        desc.validate().unwrap();
        let layout = Layout::canonical(&desc);
        assert_eq!(layout.rank(), 3);
        assert_eq!(layout.element_count(), 120);
    }
}
