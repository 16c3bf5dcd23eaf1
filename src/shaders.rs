//! The WGSL sources: every file under `shaders/`, the kernels and their slots, and
//! the preprocessor that pastes a kernel's imports.
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
    ("tile/tile", include_str!("../shaders/tile/tile.wgsl")),
    (
        "shared/storage_u64",
        include_str!("../shaders/shared/storage_u64.wgsl"),
    ),
    (
        "rows/shared_length",
        include_str!("../shaders/rows/shared_length.wgsl"),
    ),
    ("rows/rows_64", include_str!("../shaders/rows/rows_64.wgsl")),
    (
        "columns/columns",
        include_str!("../shaders/columns/columns.wgsl"),
    ),
    ("trace/record", include_str!("../shaders/trace/record.wgsl")),
];

/// A kernel: the WGSL file with its entry point, `main`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kernel {
    /// [`Variant::General`](crate::Variant::General), elements of 4, 8 or 16 bytes: one invocation per
    /// output element (`general/elements.wgsl`).
    Elements,
    /// [`Variant::General`](crate::Variant::General), elements of 1 or 2 bytes: one invocation per 32-bit
    /// output word (`general/subwords.wgsl`).
    Subwords,
    /// [`Variant::Rows`](crate::Variant::Rows) on 16-byte vectors, computing on 32-bit words
    /// (`rows/rows.wgsl`).
    Rows,
    /// [`Variant::Rows`](crate::Variant::Rows) on 32-bit words, for rows that are whole words but not
    /// whole vectors (`rows/rows_narrow.wgsl`).
    RowsNarrow,
    /// [`Variant::Rows`](crate::Variant::Rows) of 8- and 16-byte elements on 64-bit words, on a CPU
    /// adapter (`rows/rows_64.wgsl`).
    Rows64,
    /// [`Variant::Rows`](crate::Variant::Rows) over a lane longer than a binding window, paired with
    /// each input window in turn (`rows/pairs.wgsl`).
    RowPairs,
    /// [`Variant::Runs`](crate::Variant::Runs) (`runs/runs.wgsl`).
    Runs,
    /// [`Variant::Gather`](crate::Variant::Gather) on 16-byte vectors (`gather/gather.wgsl`).
    Gather,
    /// [`Variant::Gather`](crate::Variant::Gather) on 32-bit words (`gather/gather_narrow.wgsl`).
    GatherNarrow,
    /// [`Variant::Tile`](crate::Variant::Tile) (`tile/tile.wgsl`).
    Tile,
    /// [`Variant::Columns`](crate::Variant::Columns) (`columns/columns.wgsl`).
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
            Kernel::Rows64 => "rows/rows_64",
            Kernel::RowPairs => "rows/pairs",
            Kernel::Runs => "runs/runs",
            Kernel::Gather => "gather/gather",
            Kernel::GatherNarrow => "gather/gather_narrow",
            Kernel::Tile => "tile/tile",
            Kernel::Columns => "columns/columns",
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
    /// (`shared/storage_u64.wgsl`).
    U64,
}

impl Storage {
    /// How a vector family's kernel holds vectors of `vector_bytes` moved in
    /// accesses of `access_bits`: 32-bit words where a vector is one word, 64-bit
    /// words where the plan moves them so, else four-word vectors.
    pub fn of(vector_bytes: u32, access_bits: u32) -> Storage {
        match (vector_bytes, access_bits) {
            (4, _) => Storage::Words,
            (_, 64) => Storage::U64,
            _ => Storage::Vec4,
        }
    }

    fn file(self) -> &'static str {
        match self {
            Storage::Vec4 => "shared/storage_vec4",
            Storage::Words => "shared/storage_words",
            Storage::U64 => "shared/storage_u64",
        }
    }
}

/// Everything that decides a shader module's WGSL: a kernel and what fills its
/// slots. `storage` and `mul_high` are every kernel's; a family names the files of
/// its own slots (`rows`: `row_length`, `mirror`) in `slots`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Source {
    /// The kernel.
    pub kernel: Kernel,
    /// How the tensors are stored (`storage`).
    pub storage: Storage,
    /// The family's slots: (slot, file) pairs.
    pub slots: &'static [(&'static str, &'static str)],
    /// Whether the module uses subgroup operations.
    pub subgroups: bool,
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
        if self.subgroups {
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
        self.subgroups
    }

    /// The file that fills slot `name`.
    fn slot(&self, name: &str) -> &'static str {
        match name {
            "storage" => self.storage.file(),
            "mul_high" if self.wide_multiply => "shared/mul_high_u64",
            "mul_high" => "shared/mul_high_halves",
            other => {
                let fill = self.slots.iter().find(|(slot, _)| *slot == other);
                fill.unwrap_or_else(|| panic!("no slot named {other}")).1
            }
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
