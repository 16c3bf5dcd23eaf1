//! The WGSL sources and the pipeline keys the cache builds.
//!
//! Every file under `shaders/` names what it uses with `#import` lines, as vello's
//! shaders do: `#import shared/params` names a file; `#import storage`,
//! `#import mul_high`, `#import row_length` and `#import mirror` name a slot that
//! the [`Source`] fills (how the tensors are stored, how the divisions multiply,
//! how a `rows` invocation gets its length, whether `rows/pairs` mirrors vectors
//! or words). [`Source::wgsl`] pastes each file once, where it is
//! first imported. Lines that start with `#trace` exist only in the trace build
//! ([`Source::traced_wgsl`], used by the trace module); the normal build drops them.
//!
//! Public so that tools (and this crate's tests) can parse and validate every
//! specialisation offline, with no adapter.

use std::collections::HashSet;

use crate::kernels;
use crate::operator::MAX_RANK;
use crate::Variant;

/// Threads per workgroup; the host folds dispatches with the same number. 256 is
/// WebGPU's default limit of invocations per workgroup, the most a portable
/// dispatch may use.
pub const WORKGROUP_SIZE: u32 = 256;

/// Every WGSL file, by the name `#import` gives it.
const FILES: &[(&str, &str)] = &[
    (
        "shared/params",
        include_str!("../shaders/shared/params.wgsl"),
    ),
    (
        "shared/lengths",
        include_str!("../shaders/shared/lengths.wgsl"),
    ),
    (
        "shared/mul_high_halves",
        include_str!("../shaders/shared/mul_high_halves.wgsl"),
    ),
    (
        "shared/mul_high_u64",
        include_str!("../shaders/shared/mul_high_u64.wgsl"),
    ),
    (
        "shared/storage_vec4",
        include_str!("../shaders/shared/storage_vec4.wgsl"),
    ),
    (
        "shared/storage_words",
        include_str!("../shaders/shared/storage_words.wgsl"),
    ),
    (
        "shared/vectors",
        include_str!("../shaders/shared/vectors.wgsl"),
    ),
    (
        "shared/element_lengths",
        include_str!("../shaders/shared/element_lengths.wgsl"),
    ),
    (
        "general/elements",
        include_str!("../shaders/general/elements.wgsl"),
    ),
    (
        "general/subwords",
        include_str!("../shaders/general/subwords.wgsl"),
    ),
    (
        "rows/segments",
        include_str!("../shaders/rows/segments.wgsl"),
    ),
    ("rows/rows", include_str!("../shaders/rows/rows.wgsl")),
    ("rows/mirror", include_str!("../shaders/rows/mirror.wgsl")),
    (
        "rows/mirror_narrow",
        include_str!("../shaders/rows/mirror_narrow.wgsl"),
    ),
    ("rows/pairs", include_str!("../shaders/rows/pairs.wgsl")),
    (
        "rows/rows_narrow",
        include_str!("../shaders/rows/rows_narrow.wgsl"),
    ),
    (
        "rows/own_length",
        include_str!("../shaders/rows/own_length.wgsl"),
    ),
    ("runs/runs", include_str!("../shaders/runs/runs.wgsl")),
    (
        "gather/blocks",
        include_str!("../shaders/gather/blocks.wgsl"),
    ),
    (
        "gather/gather",
        include_str!("../shaders/gather/gather.wgsl"),
    ),
    (
        "gather/gather_narrow",
        include_str!("../shaders/gather/gather_narrow.wgsl"),
    ),
    ("gather/tile", include_str!("../shaders/gather/tile.wgsl")),
    (
        "cpu/storage_u64",
        include_str!("../shaders/cpu/storage_u64.wgsl"),
    ),
    (
        "cpu/shared_length",
        include_str!("../shaders/cpu/shared_length.wgsl"),
    ),
    ("cpu/rows_64", include_str!("../shaders/cpu/rows_64.wgsl")),
    ("cpu/columns", include_str!("../shaders/cpu/columns.wgsl")),
    ("trace/record", include_str!("../shaders/trace/record.wgsl")),
];

/// A kernel: the WGSL file with its entry point, `main`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kernel {
    /// [`Variant::General`], elements of 4, 8 or 16 bytes: one invocation per
    /// output element (`general/elements.wgsl`).
    Elements,
    /// [`Variant::General`], elements of 1 or 2 bytes: one invocation per 32-bit
    /// output word (`general/subwords.wgsl`).
    Subwords,
    /// [`Variant::Rows`] on 16-byte vectors, computing on 32-bit words
    /// (`rows/rows.wgsl`).
    Rows,
    /// [`Variant::Rows`] on 32-bit words, for rows that are whole words but not
    /// whole vectors (`rows/rows_narrow.wgsl`).
    RowsNarrow,
    /// [`Variant::Rows`] of 8- and 16-byte elements on 64-bit words, on a CPU
    /// adapter (`cpu/rows_64.wgsl`).
    Rows64,
    /// [`Variant::Rows`] over a lane longer than a binding window, paired with
    /// each input window in turn (`rows/pairs.wgsl`).
    RowPairs,
    /// [`Variant::Runs`] (`runs/runs.wgsl`).
    Runs,
    /// [`Variant::Gather`] on 16-byte vectors (`gather/gather.wgsl`).
    Gather,
    /// [`Variant::Gather`] on 32-bit words (`gather/gather_narrow.wgsl`).
    GatherNarrow,
    /// [`Variant::Tile`] (`gather/tile.wgsl`).
    Tile,
    /// [`Variant::Columns`] (`cpu/columns.wgsl`).
    Columns,
}

impl Kernel {
    /// Every kernel.
    pub const ALL: [Kernel; 11] = [
        Kernel::Elements,
        Kernel::Subwords,
        Kernel::Rows,
        Kernel::RowsNarrow,
        Kernel::Rows64,
        Kernel::RowPairs,
        Kernel::Runs,
        Kernel::Gather,
        Kernel::GatherNarrow,
        Kernel::Tile,
        Kernel::Columns,
    ];

    /// The entry point of every kernel.
    pub const ENTRY_POINT: &'static str = "main";

    /// The file with its entry point, as `#import` names it.
    pub const fn file(self) -> &'static str {
        match self {
            Kernel::Elements => "general/elements",
            Kernel::Subwords => "general/subwords",
            Kernel::Rows => "rows/rows",
            Kernel::RowsNarrow => "rows/rows_narrow",
            Kernel::Rows64 => "cpu/rows_64",
            Kernel::RowPairs => "rows/pairs",
            Kernel::Runs => "runs/runs",
            Kernel::Gather => "gather/gather",
            Kernel::GatherNarrow => "gather/gather_narrow",
            Kernel::Tile => "gather/tile",
            Kernel::Columns => "cpu/columns",
        }
    }
}

/// How a kernel's bindings hold the tensors: the file that fills its `storage`
/// slot, and with it every function through which it reads and writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Storage {
    /// 16-byte vectors of four 32-bit words (`shared/storage_vec4.wgsl`).
    Vec4,
    /// 32-bit words (`shared/storage_words.wgsl`).
    Words,
    /// 16-byte vectors of two 64-bit words, on a device with `SHADER_INT64`
    /// (`cpu/storage_u64.wgsl`).
    U64,
}

impl Storage {
    fn file(self) -> &'static str {
        match self {
            Storage::Vec4 => "shared/storage_vec4",
            Storage::Words => "shared/storage_words",
            Storage::U64 => "cpu/storage_u64",
        }
    }
}

/// Everything that decides a shader module's WGSL: a kernel and what fills its
/// slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Source {
    /// The kernel.
    pub kernel: Kernel,
    /// How the tensors are stored (`storage`).
    pub storage: Storage,
    /// Whether the invocations of a `rows` row share one length load through
    /// subgroup operations (`row_length`: `cpu/shared_length.wgsl`, else
    /// `rows/own_length.wgsl`).
    pub shared_lengths: bool,
    /// Whether the divisions' multiply-high is one 64-bit multiply (`mul_high`:
    /// `shared/mul_high_u64.wgsl`, else `shared/mul_high_halves.wgsl`): the
    /// kernels on 64-bit words, where it is faster on a CPU adapter (docs/general.md).
    pub wide_multiply: bool,
}

impl Source {
    /// The complete WGSL.
    pub fn wgsl(&self) -> String {
        self.compose(false)
    }

    /// The WGSL of the trace build: every access to the tensors also appends a
    /// record to a trace buffer at binding 4 (`shaders/trace/record.wgsl`).
    pub fn traced_wgsl(&self) -> String {
        self.compose(true)
    }

    /// A label for wgpu objects built from it.
    pub fn label(&self) -> String {
        let mut label = format!("revseq::{}", self.kernel.file());
        if self.storage == Storage::U64 {
            label.push_str("+u64");
        }
        if self.shared_lengths {
            label.push_str("+subgroups");
        }
        if self.wide_multiply && self.storage != Storage::U64 {
            label.push_str("+mul64");
        }
        label
    }

    /// Whether the module needs [`wgpu::Features::SHADER_INT64`].
    pub fn needs_int64(&self) -> bool {
        self.storage == Storage::U64 || self.wide_multiply
    }

    /// Whether the module uses subgroup operations, which need
    /// [`wgpu::Features::SUBGROUP`].
    pub fn uses_subgroups(&self) -> bool {
        self.shared_lengths
    }

    /// The file that fills slot `name`.
    fn slot(&self, name: &str) -> &'static str {
        match name {
            "storage" => self.storage.file(),
            "mul_high" if self.wide_multiply => "shared/mul_high_u64",
            "mul_high" => "shared/mul_high_halves",
            "row_length" if self.shared_lengths => "cpu/shared_length",
            "row_length" => "rows/own_length",
            "mirror" if self.storage == Storage::Words => "rows/mirror_narrow",
            "mirror" => "rows/mirror",
            other => panic!("no slot named {other}"),
        }
    }

    fn compose(&self, trace: bool) -> String {
        self.compose_text(self.kernel.file(), None, trace)
    }

    /// The WGSL of `text` (or of file `entry` where `text` is `None`), its imports
    /// resolved with this source's slots, traced or not.
    pub(crate) fn compose_text(&self, entry: &str, text: Option<&str>, trace: bool) -> String {
        let mut wgsl = String::new();
        let mut seen = HashSet::new();
        if trace {
            self.paste("trace/record", None, trace, &mut seen, &mut wgsl);
        }
        self.paste(entry, text, trace, &mut seen, &mut wgsl);
        wgsl
    }

    /// Appends file `name` (a path, or a slot; or `text` itself) to `wgsl` unless
    /// it is there, each of its imports where it names them.
    fn paste(
        &self,
        name: &str,
        text: Option<&str>,
        trace: bool,
        seen: &mut HashSet<String>,
        wgsl: &mut String,
    ) {
        let file = if name.contains('/') {
            name
        } else {
            self.slot(name)
        };
        let text = match text {
            Some(text) => text,
            None => {
                FILES
                    .iter()
                    .find(|(path, _)| *path == file)
                    .unwrap_or_else(|| panic!("no shader file {file}"))
                    .1
            }
        };
        if !seen.insert(file.to_string()) {
            return;
        }
        wgsl.push_str(&format!("// ---- shaders/{file}.wgsl\n"));
        for line in text.lines() {
            let body = line.trim_start();
            if let Some(import) = body.strip_prefix("#import ") {
                self.paste(import.trim(), None, trace, seen, wgsl);
            } else if let Some(statement) = body.strip_prefix("#trace ") {
                if trace {
                    wgsl.push_str(&line[..line.len() - body.len()]);
                    wgsl.push_str(statement);
                    wgsl.push('\n');
                }
            } else {
                wgsl.push_str(line);
                wgsl.push('\n');
            }
        }
    }
}

/// Everything a pipeline is specialised on. Shapes and strides are not here: they
/// travel in a uniform, so one pipeline serves every shape of the same key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PipelineKey {
    /// The kernel variant the plan chose.
    pub variant: Variant,
    /// Vectors or axis positions per invocation (`rows`, `runs`, `gather`), rows a
    /// column holds (`columns`); 1 elsewhere.
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
    /// Invocations of a `rows` row that share one length load through subgroup
    /// operations (2, 4 or 8; a CPU adapter with 8-invocation subgroups); 1 where
    /// each loads its own.
    pub share_lengths: u32,
    /// Windowed dispatches of whole axis positions, each paired with an input
    /// window: a `runs` invocation walks the positions of its run whose sources
    /// the window holds; `rows` writes the vectors of a lane longer than a window
    /// whose sources it holds (`rows/pairs.wgsl`).
    pub walk_positions: bool,
    /// Where `runs` walks pairs: a fixed grid walks them lane by lane, a lane being
    /// the runs of one position (a CPU adapter's way, and a GPU's where walking run
    /// by run would start too few invocations; `tuning::pair_walk`), rather than
    /// each invocation walking its run. A constant, so that each pipeline
    /// holds only the walk it runs.
    pub walk_lanes: bool,
    /// Whether the divisions' multiply-high is one 64-bit multiply
    /// (`tuning::wide_multiply`), besides the kernels on 64-bit words, which
    /// always take it.
    pub wide_multiply: bool,
}

impl PipelineKey {
    /// The WGSL this key compiles.
    pub fn source(&self) -> Source {
        let (kernel, storage) = kernels::kernel(self);
        Source {
            kernel,
            storage,
            shared_lengths: self.share_lengths > 1,
            // Kernels on 64-bit words have 64-bit integers to multiply with.
            wide_multiply: storage == Storage::U64 || self.wide_multiply,
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
        kernels::constants(self, &mut constants);
        constants
    }

    /// Every key the cache can build: each family's kernels for every element
    /// width, rank and axis it takes, and length type.
    pub fn all() -> impl Iterator<Item = PipelineKey> {
        kernels::keys().flat_map(|key| {
            (1..=MAX_RANK as u32)
                .flat_map(move |rank| (0..rank).map(move |axis| (rank, axis)))
                .filter(move |&(rank, axis)| match key.variant {
                    Variant::General => true,
                    Variant::Rows => axis == rank - 1,
                    _ => axis < rank - 1,
                })
                .flat_map(move |(rank, axis)| {
                    [(4, false), (4, true), (8, false), (8, true)].map(
                        |(length_bytes, signed_lengths)| PipelineKey {
                            rank,
                            axis,
                            length_bytes,
                            signed_lengths,
                            ..key
                        },
                    )
                })
        })
    }
}
