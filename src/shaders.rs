//! The one table of WGSL sources, and the specialisations the pipeline cache builds.
//!
//! Public so that tools (and this crate's tests) can parse and validate every
//! specialisation offline, with no adapter.

use crate::operator::MAX_RANK;

/// Threads per workgroup; the host folds dispatches with the same number.
pub const WORKGROUP_SIZE: u32 = 64;

/// A compute kernel; each is `shaders/common.wgsl` followed by its own file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Elements of 4, 8 or 16 bytes: one invocation per output element.
    Words,
    /// Elements of 1 or 2 bytes: one invocation per 32-bit output word.
    Subword,
}

impl Kernel {
    /// Every kernel.
    pub const ALL: [Kernel; 2] = [Kernel::Words, Kernel::Subword];

    /// The complete WGSL source.
    pub const fn source(self) -> &'static str {
        match self {
            Kernel::Words => concat!(
                include_str!("../shaders/common.wgsl"),
                include_str!("../shaders/reverse_words.wgsl")
            ),
            Kernel::Subword => concat!(
                include_str!("../shaders/common.wgsl"),
                include_str!("../shaders/reverse_subword.wgsl")
            ),
        }
    }

    /// A label for wgpu objects built from it.
    pub const fn label(self) -> &'static str {
        match self {
            Kernel::Words => "revseq::reverse_words",
            Kernel::Subword => "revseq::reverse_subword",
        }
    }

    /// The entry point.
    pub const ENTRY_POINT: &'static str = "main";
}

/// Everything a pipeline is specialised on. Shapes and strides are not here: they
/// travel in a uniform, so one pipeline serves every shape of the same key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PipelineKey {
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
}

impl PipelineKey {
    /// The kernel this key specialises.
    pub fn kernel(&self) -> Kernel {
        if self.element_bytes < 4 {
            Kernel::Subword
        } else {
            Kernel::Words
        }
    }

    /// Values for the kernel's `override` constants.
    pub fn constants(&self) -> Vec<(&'static str, f64)> {
        let mut constants = vec![
            ("RANK", f64::from(self.rank)),
            ("AXIS", f64::from(self.axis)),
            ("LEN_WORDS", f64::from(self.length_bytes / 4)),
            ("LEN_SIGNED", f64::from(u8::from(self.signed_lengths))),
            ("WORKGROUP_SIZE", f64::from(WORKGROUP_SIZE)),
        ];
        constants.push(match self.kernel() {
            Kernel::Words => ("ELEM_WORDS", f64::from(self.element_bytes / 4)),
            Kernel::Subword => ("ELEM_BYTES", f64::from(self.element_bytes)),
        });
        constants
    }

    /// Every key the cache can build.
    pub fn all() -> impl Iterator<Item = PipelineKey> {
        [1, 2, 4, 8, 16].into_iter().flat_map(|element_bytes| {
            (1..=MAX_RANK as u32).flat_map(move |rank| {
                (0..rank).flat_map(move |axis| {
                    [(4, false), (4, true), (8, false), (8, true)].map(
                        |(length_bytes, signed_lengths)| PipelineKey {
                            element_bytes,
                            rank,
                            axis,
                            length_bytes,
                            signed_lengths,
                        },
                    )
                })
            })
        })
    }
}
