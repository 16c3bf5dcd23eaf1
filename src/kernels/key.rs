//! The pipeline key: everything a pipeline is specialised on, and how the
//! families enumerate their keys. What a key compiles (its WGSL, its
//! `override` constants) is read from its family's room, in `mod.rs`.

use crate::kernels::variant::Variant;

/// How a dispatch walks the axis positions of its piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Walk {
    /// Every source of the piece lies in its input binding: no walk.
    None,
    /// A windowed piece of whole axis positions paired with an input window
    /// (`src/plan/cut/`): a `runs` invocation walks the positions of its run
    /// whose sources the window holds; `rows` writes the vectors of a lane longer
    /// than a window whose sources it holds (`rows/window.wgsl`).
    Window,
    /// As [`Walk::Window`], `runs` on a fixed grid walking the pair lane by lane
    /// (a CPU adapter's way, and a GPU's where walking run by run would start too
    /// few invocations; `tuning::walks_lanes`). A constant of its own, so that each
    /// pipeline holds only the walk it runs.
    WindowByLane,
    /// In place, a group of a lane's positions paired with another
    /// (`src/plan/cut/across.rs`): `general` swaps the pairs with an end in each
    /// (`general/swap_pairs.wgsl`), writing through its input binding where the
    /// groups lie in two windows.
    Across,
}

/// Everything a pipeline is specialised on. Shapes and strides are not here: they
/// travel in a uniform, so one pipeline serves every shape of the same key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PipelineKey {
    /// The kernel variant the plan chose.
    pub variant: Variant,
    /// The units of work one invocation takes, each family counting its own
    /// (the kernels' `STEPS`): vectors (`rows`, `runs`), axis positions
    /// (`gather`), rows a column holds (`columns`), units of the innermost
    /// dimension in place across windows (`general`); 1 elsewhere.
    pub steps: u32,
    /// Bytes per vector of the vector families: 16, or 4 where rows or runs are
    /// whole 32-bit words but not whole vectors; 0 for `general`.
    pub vector_bytes: u32,
    /// Bytes per element: 1, 2, 4, 8 or 16.
    pub element_bytes: u32,
    /// Rank of the canonical layout, 1..=8.
    pub rank: u32,
    /// Axis within the canonical layout.
    pub axis: u32,
    /// Bytes per sequence length: 4 or 8.
    pub length_bytes: u32,
    /// Whether sequence lengths are signed.
    pub signed_lengths: bool,
    /// Bits per access to the tensors: 64 where a CPU adapter whose device has
    /// [`wgpu::Features::SHADER_INT64`] moves vectors as 64-bit words, else 32.
    pub access_bits: u32,
    /// Whether the dispatch walks a windowed pair, and how.
    pub walk: Walk,
    /// Whether the divisions' multiply-high is one 64-bit multiply
    /// (`tuning::wide_multiply`), besides the kernels on 64-bit words, which
    /// always take it.
    pub wide_multiply: bool,
    /// Whether the kernel reverses the tensor in place
    /// ([`ReverseInPlace`](crate::ReverseInPlace)), swapping pairs through the
    /// output binding alone.
    pub in_place: bool,
}

impl PipelineKey {
    /// Whether the kernel writes through its input binding: in place across
    /// windows, where it is a second window of the tensor (`Dispatch::bindings`,
    /// `src/plan/dispatch.rs`).
    pub(crate) fn writes_input(&self) -> bool {
        self.walk == Walk::Across
    }
}

/// A family's keys: for every element width in `widths`, each vector size in
/// `sizes(width)`, every power of two of steps in `steps(width, vector size)`
/// (least and most), and each access size the family may use; one invocation of a
/// row shares its length with none.
pub(super) fn family_keys(
    variant: Variant,
    widths: &'static [u32],
    sizes: fn(u32) -> &'static [u32],
    steps: fn(u32, u32) -> (u32, u32),
    access: fn(u32, u32) -> &'static [u32],
) -> impl Iterator<Item = PipelineKey> {
    widths.iter().flat_map(move |&element_bytes| {
        sizes(element_bytes).iter().flat_map(move |&vector_bytes| {
            let (least, most) = steps(element_bytes, vector_bytes);
            (least.ilog2()..=most.ilog2()).flat_map(move |power| {
                access(element_bytes, vector_bytes)
                    .iter()
                    .map(move |&access_bits| PipelineKey {
                        variant,
                        steps: 1 << power,
                        vector_bytes,
                        element_bytes,
                        rank: 1,
                        axis: 0,
                        length_bytes: 4,
                        signed_lengths: false,
                        access_bits,
                        walk: Walk::None,
                        wide_multiply: false,
                        in_place: false,
                    })
            })
        })
    })
}

/// The element widths.
pub(super) const WIDTHS: [u32; 5] = [1, 2, 4, 8, 16];

/// The access sizes of a family that moves 32-bit words only.
pub(super) fn words_only(_element_bytes: u32, _vector_bytes: u32) -> &'static [u32] {
    &[32]
}
