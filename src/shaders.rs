//! The one table of WGSL sources, and the specialisations the pipeline cache builds.
//!
//! Public so that tools (and this crate's tests) can parse and validate every
//! specialisation offline, with no adapter.

use crate::operator::MAX_RANK;
use crate::Variant;

/// Threads per workgroup; the host folds dispatches with the same number. 256 is
/// WebGPU's default limit of invocations per workgroup, the most a portable
/// dispatch may use. On lavapipe 64 and 128 were slower: 128 took 1.03× the time
/// of 256 on the `middle` and `outermost` rows (four alternating rounds).
pub const WORKGROUP_SIZE: u32 = 256;

/// A compute kernel: `shaders/common.wgsl` and a multiply-high for its divisions
/// (`mul_high_u64.wgsl` on 64-bit words, else `mul_high_halves.wgsl`), then for the
/// vector kernels the bindings (`bind_vec4.wgsl`, `bind_vec2_u64.wgsl` or
/// `bind_word.wgsl`) and `vectors.wgsl`, for `Runs` and for `Rows` on 16-byte
/// vectors how an invocation gets its length, and for `Rows` the vector above its
/// first window (`row_length.wgsl` or `row_length_subgroup.wgsl`), then its own
/// file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// [`Variant::General`], elements of 4, 8 or 16 bytes: one invocation per output
    /// element.
    Words,
    /// [`Variant::General`], elements of 1 or 2 bytes: one invocation per 32-bit
    /// output word.
    Subword,
    /// [`Variant::Rows`] on 16-byte vectors.
    Rows,
    /// [`Variant::Rows`] on 32-bit words: rows that are whole words but not whole
    /// 16-byte vectors.
    RowsWords,
    /// [`Variant::Rows`] of 8- and 16-byte elements on 16-byte vectors loaded and
    /// stored as two 64-bit words and computed on as such
    /// ([`PipelineKey::word_bits`] 64).
    Rows64,
    /// [`Variant::Rows`] of 1- to 4-byte elements on 16-byte vectors loaded and
    /// stored as two 64-bit words and computed on as four 32-bit ones
    /// ([`PipelineKey::word_bits`] 64).
    RowsSplit64,
    /// [`Kernel::Rows64`] with invocations of one row sharing its length load
    /// through subgroup broadcasts ([`PipelineKey::share_lengths`]).
    Rows64Subgroup,
    /// [`Kernel::RowsSplit64`] with invocations of one row sharing its length load
    /// through subgroup broadcasts ([`PipelineKey::share_lengths`]).
    RowsSplit64Subgroup,
    /// [`Variant::Runs`] on 16-byte vectors.
    Runs,
    /// [`Variant::Runs`] on 32-bit words: runs that are whole words but not whole
    /// 16-byte vectors.
    RunsWords,
    /// [`Variant::Runs`] on 16-byte vectors loaded and stored as two 64-bit words
    /// ([`PipelineKey::word_bits`] 64).
    Runs64,
    /// [`Kernel::Runs64`] with invocations of one run sharing its length load
    /// through subgroup broadcasts ([`PipelineKey::share_lengths`]).
    Runs64Subgroup,
    /// [`Variant::Gather`] on 16-byte vectors.
    Gather,
    /// [`Variant::Gather`] on 16-byte vectors loaded and stored as two 64-bit words
    /// ([`PipelineKey::word_bits`] 64).
    Gather64,
    /// [`Variant::Gather`] on 32-bit words: runs that are whole words but not whole
    /// 16-byte vectors.
    GatherWords,
    /// [`Variant::Columns`], on 16-byte vectors.
    Columns,
    /// [`Variant::Columns`] on 16-byte vectors loaded, stored and computed on as two
    /// 64-bit words ([`PipelineKey::word_bits`] 64).
    Columns64,
}

// A vector kernel's source: `common.wgsl`, its multiply-high, its bindings,
// `vectors.wgsl`, then its own file. On 64-bit words the multiply-high is one
// 64-bit multiply; elsewhere 16-bit partial products.
macro_rules! vector_kernel {
    ("bind_vec2_u64.wgsl", $file:literal) => {
        vector_kernel!("mul_high_u64.wgsl", "bind_vec2_u64.wgsl", $file)
    };
    ($bindings:literal, $file:literal) => {
        vector_kernel!("mul_high_halves.wgsl", $bindings, $file)
    };
    ($mul_high:literal, $bindings:literal, $file:literal) => {
        concat!(
            include_str!("../shaders/common.wgsl"),
            include_str!(concat!("../shaders/", $mul_high)),
            include_str!(concat!("../shaders/", $bindings)),
            include_str!("../shaders/vectors.wgsl"),
            include_str!(concat!("../shaders/", $file))
        )
    };
}

// A `Rows` or `Runs` kernel: a vector kernel, how each invocation gets its row's or
// run's length (and a `Rows` one the vector above its first window), then its own
// file. Each loads its own (`row_length.wgsl`), or on 64-bit words the invocations
// of a row share one load and pass each other those vectors (`subgroup_kernel!`).
macro_rules! length_kernel {
    ($bindings:literal, $file:literal) => {
        length_kernel!($bindings, "row_length.wgsl", $file)
    };
    ($bindings:literal, $lengths:literal, $file:literal) => {
        concat!(
            vector_kernel!($bindings, $lengths),
            include_str!(concat!("../shaders/", $file))
        )
    };
}

macro_rules! subgroup_kernel {
    ($file:literal) => {
        length_kernel!("bind_vec2_u64.wgsl", "row_length_subgroup.wgsl", $file)
    };
}

impl Kernel {
    /// Every kernel.
    pub const ALL: [Kernel; 17] = [
        Kernel::Words,
        Kernel::Subword,
        Kernel::Rows,
        Kernel::RowsWords,
        Kernel::Rows64,
        Kernel::RowsSplit64,
        Kernel::Rows64Subgroup,
        Kernel::RowsSplit64Subgroup,
        Kernel::Runs,
        Kernel::RunsWords,
        Kernel::Runs64,
        Kernel::Runs64Subgroup,
        Kernel::Gather,
        Kernel::Gather64,
        Kernel::GatherWords,
        Kernel::Columns,
        Kernel::Columns64,
    ];

    /// The complete WGSL source.
    pub const fn source(self) -> &'static str {
        match self {
            Kernel::Words => concat!(
                include_str!("../shaders/common.wgsl"),
                include_str!("../shaders/mul_high_halves.wgsl"),
                include_str!("../shaders/reverse_words.wgsl")
            ),
            Kernel::Subword => concat!(
                include_str!("../shaders/common.wgsl"),
                include_str!("../shaders/mul_high_halves.wgsl"),
                include_str!("../shaders/reverse_subword.wgsl")
            ),
            Kernel::Rows => length_kernel!("bind_vec4.wgsl", "reverse_rows.wgsl"),
            Kernel::RowsWords => vector_kernel!("bind_word.wgsl", "reverse_rows_words.wgsl"),
            Kernel::Rows64 => length_kernel!("bind_vec2_u64.wgsl", "reverse_rows_64.wgsl"),
            Kernel::RowsSplit64 => length_kernel!("bind_vec2_u64.wgsl", "reverse_rows.wgsl"),
            Kernel::Rows64Subgroup => subgroup_kernel!("reverse_rows_64.wgsl"),
            Kernel::RowsSplit64Subgroup => subgroup_kernel!("reverse_rows.wgsl"),
            Kernel::Runs => length_kernel!("bind_vec4.wgsl", "reverse_runs.wgsl"),
            Kernel::RunsWords => length_kernel!("bind_word.wgsl", "reverse_runs.wgsl"),
            Kernel::Runs64 => length_kernel!("bind_vec2_u64.wgsl", "reverse_runs.wgsl"),
            Kernel::Runs64Subgroup => subgroup_kernel!("reverse_runs.wgsl"),
            Kernel::Gather => vector_kernel!("bind_vec4.wgsl", "reverse_gather.wgsl"),
            Kernel::Gather64 => vector_kernel!("bind_vec2_u64.wgsl", "reverse_gather.wgsl"),
            Kernel::GatherWords => {
                vector_kernel!("bind_word.wgsl", "reverse_gather_words.wgsl")
            }
            Kernel::Columns => vector_kernel!("bind_vec4.wgsl", "reverse_columns.wgsl"),
            Kernel::Columns64 => vector_kernel!("bind_vec2_u64.wgsl", "reverse_columns.wgsl"),
        }
    }

    /// A label for wgpu objects built from it.
    pub const fn label(self) -> &'static str {
        match self {
            Kernel::Words => "revseq::reverse_words",
            Kernel::Subword => "revseq::reverse_subword",
            Kernel::Rows => "revseq::reverse_rows",
            Kernel::RowsWords => "revseq::reverse_rows_words",
            Kernel::Rows64 => "revseq::reverse_rows_64",
            Kernel::RowsSplit64 => "revseq::reverse_rows_split_64",
            Kernel::Rows64Subgroup => "revseq::reverse_rows_64_subgroup",
            Kernel::RowsSplit64Subgroup => "revseq::reverse_rows_split_64_subgroup",
            Kernel::Runs => "revseq::reverse_runs",
            Kernel::RunsWords => "revseq::reverse_runs_words",
            Kernel::Runs64 => "revseq::reverse_runs_64",
            Kernel::Runs64Subgroup => "revseq::reverse_runs_64_subgroup",
            Kernel::Gather => "revseq::reverse_gather",
            Kernel::Gather64 => "revseq::reverse_gather_64",
            Kernel::GatherWords => "revseq::reverse_gather_words",
            Kernel::Columns => "revseq::reverse_columns",
            Kernel::Columns64 => "revseq::reverse_columns_64",
        }
    }

    /// Bits per word of its loads and stores of the tensors: 64 for the kernels
    /// that need [`wgpu::Features::SHADER_INT64`], else 32.
    pub const fn word_bits(self) -> u32 {
        match self {
            Kernel::Rows64
            | Kernel::RowsSplit64
            | Kernel::Rows64Subgroup
            | Kernel::RowsSplit64Subgroup
            | Kernel::Runs64
            | Kernel::Runs64Subgroup
            | Kernel::Gather64
            | Kernel::Columns64 => 64,
            _ => 32,
        }
    }

    /// Whether the kernel has a specialisation for rows that an invocation holds
    /// whole ([`RowSegments::Whole`]).
    pub const fn has_whole_rows(self) -> bool {
        matches!(self, Kernel::Rows | Kernel::RowsSplit64)
    }

    /// Whether the kernel has a specialisation for rows whose invocations all write
    /// `steps` vectors ([`RowSegments::Full`]).
    pub const fn has_full_segments(self) -> bool {
        matches!(
            self,
            Kernel::Rows
                | Kernel::RowsSplit64
                | Kernel::Rows64
                | Kernel::Rows64Subgroup
                | Kernel::RowsSplit64Subgroup
        )
    }

    /// Whether the kernel uses subgroup operations, which need
    /// [`wgpu::Features::SUBGROUP`].
    pub const fn uses_subgroups(self) -> bool {
        matches!(
            self,
            Kernel::Rows64Subgroup | Kernel::RowsSplit64Subgroup | Kernel::Runs64Subgroup
        )
    }

    /// The entry point.
    pub const ENTRY_POINT: &'static str = "main";
}

/// Everything a pipeline is specialised on. Shapes and strides are not here: they
/// travel in a uniform, so one pipeline serves every shape of the same key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PipelineKey {
    /// The kernel variant the plan chose.
    pub variant: Variant,
    /// Vectors or axis positions per invocation (vector variants; 1 for `General`).
    pub steps: u32,
    /// Bytes per vector of the vector variants: 16, or 4 on words; 0 for `General`.
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
    /// Bits per component of the kernel's loads and stores of the tensors: 64 for
    /// `Runs` and `Rows` on 16-byte vectors, `Columns`, and `Gather` of 8- and
    /// 16-byte elements, on a CPU adapter whose device has
    /// [`wgpu::Features::SHADER_INT64`], else 32.
    pub word_bits: u32,
    /// How the invocations of a `Rows` kernel on 16-byte vectors cover a row;
    /// [`RowSegments::Partial`] for the rest.
    pub segments: RowSegments,
    /// Invocations that share one load of their row's or run's length (2, 4 or
    /// 8, through subgroup broadcasts): `Rows` and `Runs` on 64-bit words, on an
    /// adapter whose subgroups are 8 invocations, where an even number of them
    /// cover each row or run (`Plan::share_lengths`). 1 everywhere else: each
    /// loads its own.
    pub share_lengths: u32,
}

/// How a `Rows` kernel's invocations cover a row ([`PipelineKey::segments`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RowSegments {
    /// `steps` vectors an invocation, the row's last segment maybe shorter: each
    /// step checks its bound.
    Partial,
    /// `steps` vectors an invocation, which divide the row: no step needs a bound
    /// ([`Kernel::has_full_segments`]).
    Full,
    /// A row of at most `steps` vectors an invocation, which loads each vector once
    /// ([`Kernel::has_whole_rows`]).
    Whole,
}

impl PipelineKey {
    /// The kernel this key specialises.
    pub fn kernel(&self) -> Kernel {
        match self.variant {
            Variant::General if self.element_bytes < 4 => Kernel::Subword,
            Variant::General => Kernel::Words,
            Variant::Rows if self.vector_bytes == 4 => Kernel::RowsWords,
            Variant::Rows if self.word_bits == 64 && self.share_lengths > 1 => {
                if self.element_bytes >= 8 {
                    Kernel::Rows64Subgroup
                } else {
                    Kernel::RowsSplit64Subgroup
                }
            }
            Variant::Rows if self.word_bits == 64 && self.element_bytes >= 8 => Kernel::Rows64,
            Variant::Rows if self.word_bits == 64 => Kernel::RowsSplit64,
            Variant::Rows => Kernel::Rows,
            Variant::Runs if self.vector_bytes == 4 => Kernel::RunsWords,
            Variant::Runs if self.word_bits == 64 && self.share_lengths > 1 => {
                Kernel::Runs64Subgroup
            }
            Variant::Runs if self.word_bits == 64 => Kernel::Runs64,
            Variant::Runs => Kernel::Runs,
            Variant::Gather if self.vector_bytes == 4 => Kernel::GatherWords,
            Variant::Gather if self.word_bits == 64 => Kernel::Gather64,
            Variant::Gather => Kernel::Gather,
            Variant::Columns if self.word_bits == 64 => Kernel::Columns64,
            Variant::Columns => Kernel::Columns,
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
        match self.kernel() {
            Kernel::Words => constants.push(("ELEM_WORDS", f64::from(self.element_bytes / 4))),
            Kernel::Subword => constants.push(("ELEM_BYTES", f64::from(self.element_bytes))),
            Kernel::Rows
            | Kernel::RowsWords
            | Kernel::Rows64
            | Kernel::RowsSplit64
            | Kernel::Rows64Subgroup
            | Kernel::RowsSplit64Subgroup
            | Kernel::Runs
            | Kernel::RunsWords
            | Kernel::Runs64
            | Kernel::Runs64Subgroup
            | Kernel::Gather
            | Kernel::Gather64
            | Kernel::GatherWords
            | Kernel::Columns
            | Kernel::Columns64 => constants.extend([
                ("ELEM_BYTES", f64::from(self.element_bytes)),
                ("STEPS", f64::from(self.steps)),
            ]),
        }
        let segments = |s: RowSegments| f64::from(u8::from(self.segments == s));
        if self.kernel().has_whole_rows() {
            constants.push(("WHOLE_ROWS", segments(RowSegments::Whole)));
        }
        if self.kernel().has_full_segments() {
            constants.push(("FULL_SEGMENTS", segments(RowSegments::Full)));
        }
        if self.kernel().uses_subgroups() {
            constants.push(("SHARE_LANES", f64::from(self.share_lengths)));
        }
        constants
    }

    /// Every key the cache can build: `General` for every rank and axis, `Rows` with
    /// the axis innermost, `Runs` and `Gather` with it outside, each vector variant
    /// with every vector size, word size and step count its plan may choose.
    pub fn all() -> impl Iterator<Item = PipelineKey> {
        Variant::ALL.into_iter().flat_map(|variant| {
            [1, 2, 4, 8, 16].into_iter().flat_map(move |element_bytes| {
                variant
                    .vector_sizes(element_bytes)
                    .iter()
                    .flat_map(move |&vector_bytes| {
                        variant
                            .step_counts(element_bytes, vector_bytes)
                            .flat_map(move |steps| {
                                variant
                                    .word_sizes(element_bytes, vector_bytes)
                                    .iter()
                                    .flat_map(move |&word_bits| {
                                        keys(variant, steps, vector_bytes, element_bytes)
                                            .flat_map(move |key| {
                                                segment_keys(PipelineKey { word_bits, ..key })
                                            })
                                            .flat_map(share_keys)
                                    })
                            })
                    })
            })
        })
    }
}

/// `key` with each [`RowSegments`] its kernel has.
fn segment_keys(key: PipelineKey) -> impl Iterator<Item = PipelineKey> {
    let kernel = key.kernel();
    [RowSegments::Partial, RowSegments::Full, RowSegments::Whole]
        .into_iter()
        .filter(move |&segments| match segments {
            RowSegments::Partial => true,
            RowSegments::Full => kernel.has_full_segments(),
            RowSegments::Whole => kernel.has_whole_rows(),
        })
        .map(move |segments| PipelineKey { segments, ..key })
}

/// `key`, and for `Rows` and `Runs` on 64-bit words whose invocations may not
/// hold a row whole, `key` with each number of invocations that may share a length.
fn share_keys(key: PipelineKey) -> impl Iterator<Item = PipelineKey> {
    let shares: &[u32] = if matches!(key.variant, Variant::Rows | Variant::Runs)
        && key.vector_bytes == 16
        && key.word_bits == 64
        && key.segments != RowSegments::Whole
    {
        &[1, 2, 4, 8]
    } else {
        &[1]
    };
    shares.iter().map(move |&share_lengths| PipelineKey {
        share_lengths,
        ..key
    })
}

/// Every rank, axis and length type of one variant, step count, vector size and
/// element width.
fn keys(
    variant: Variant,
    steps: u32,
    vector_bytes: u32,
    element_bytes: u32,
) -> impl Iterator<Item = PipelineKey> {
    (1..=MAX_RANK as u32).flat_map(move |rank| {
        (0..rank)
            .filter(move |&axis| match variant {
                Variant::General => true,
                Variant::Rows => axis == rank - 1,
                Variant::Runs | Variant::Gather | Variant::Columns => axis < rank - 1,
            })
            .flat_map(move |axis| {
                [(4, false), (4, true), (8, false), (8, true)].map(
                    |(length_bytes, signed_lengths)| PipelineKey {
                        variant,
                        steps,
                        vector_bytes,
                        element_bytes,
                        rank,
                        axis,
                        length_bytes,
                        signed_lengths,
                        word_bits: 32,
                        segments: RowSegments::Partial,
                        share_lengths: 1,
                    },
                )
            })
    })
}
