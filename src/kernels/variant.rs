//! The kernel families' public names: what a plan chose, what the benchmark
//! and the logs print, and what the laboratory forces (`src/kernels/` holds
//! each family's room: its rule, work and kernels, behind the contract
//! `Family`).

/// A kernel family. [`Variant::General`] runs every descriptor; the others are fast
/// paths for layouts whose innermost canonical dimension is contiguous in input and
/// output, a whole number of vectors long, with every other stride keeping those
/// vectors aligned.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Any layout: one invocation per output element (4-, 8-, 16-byte elements) or
    /// per 32-bit output word (1-, 2-byte elements); in place, one per pair of
    /// elements a lane swaps.
    General,
    /// The reversed axis is the innermost dimension: vectors of a row, each built
    /// from the mirrored span of the row it reverses.
    Rows,
    /// The reversed axis is outside the innermost dimension and the length is the
    /// same along it: whole runs move from their mirrored position.
    Runs,
    /// The reversed axis is outside the innermost dimension and the length changes
    /// along it: each output vector is gathered element by element.
    Gather,
    /// As [`Variant::Gather`], along at most 64 positions, on 16-byte vectors of
    /// elements narrower than one, on every adapter: each invocation holds a whole
    /// column of the axis in registers, loads and stores each vector once and
    /// reverses every element's prefix with a network of selects.
    Columns,
}

// Its list of every family and each one's name are made by the families'
// registry (`families!` in `src/kernels/mod.rs`), a line per family.
impl Variant {
    /// Every variant, for revseq's own tests and benchmark (the enum may grow).
    #[cfg(feature = "lab")]
    pub const ALL: [Variant; Variant::FAMILIES.len()] = Variant::FAMILIES;
}
