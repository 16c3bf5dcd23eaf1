//! What the vector families need of a layout: lines of whole vectors.

use crate::descriptor::layout::Layout;

/// What the vector families need of a layout: the innermost dimension contiguous
/// in input and output, a whole number of vectors long, and every other stride
/// keeping its rows aligned to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VectorLayout {
    /// Bytes per vector: 16, or 4 ("narrow": whole 32-bit words, not vectors).
    pub(crate) bytes: u32,
    /// Vectors per line of the innermost dimension.
    pub(crate) vecs: u32,
    /// Lines of the innermost dimension (a row or run each), over every other
    /// dimension.
    pub(crate) lines: u64,
}

impl VectorLayout {
    /// The layout on the first of `sizes` (vector bytes) that fits it.
    pub(super) fn find(layout: &Layout, element_bytes: u32, sizes: &[u32]) -> Option<VectorLayout> {
        sizes
            .iter()
            .find_map(|&size| VectorLayout::of(layout, element_bytes, size))
    }

    pub(super) fn of(
        layout: &Layout,
        element_bytes: u32,
        vector_bytes: u32,
    ) -> Option<VectorLayout> {
        let inner = *layout.dims.last()?;
        let bytes = |elements: u64| elements * u64::from(element_bytes);
        let aligned = |elements: u64| bytes(elements) % u64::from(vector_bytes) == 0;
        let fits = layout.element_count() > 0
            && inner.output == 1
            && inner.input == 1
            && aligned(inner.size.into())
            && layout.dims[..layout.rank() - 1]
                .iter()
                .all(|d| aligned(d.output) && aligned(d.input));
        fits.then(|| VectorLayout {
            bytes: vector_bytes,
            vecs: (bytes(inner.size.into()) / u64::from(vector_bytes)) as u32,
            lines: layout.element_count() / u64::from(inner.size),
        })
    }
}

/// Vector sizes the families that take narrow vectors try, best first: 16 bytes,
/// then 4 (a 16-byte element is always a whole vector).
pub(super) fn vector_sizes(element_bytes: u32) -> &'static [u32] {
    if element_bytes < 16 {
        &[16, 4]
    } else {
        &[16]
    }
}
