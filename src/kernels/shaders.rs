//! The WGSL sources: the shared files (`src/kernels/shared/`), what a
//! [`KernelFile`] and its slots are, and the preprocessor that pastes a
//! kernel's imports. Each family's own files lie beside its Rust
//! (`src/kernels/<family>/`).
//!
//! Every WGSL file names what it uses with `#import` lines, as vello's
//! shaders do: `#import shared/params` names a file; `#import storage` and
//! `#import mul_high` name a slot that every [`Source`] fills (how the tensors are
//! stored, how the divisions multiply), and a family may have slots of its own
//! (`rows`: `mirror`). [`Source::wgsl`] pastes each file once, where
//! it is first imported. Lines that start with `#trace` exist only in the trace build
//! ([`Source::traced_wgsl`], used by the trace module); the normal build drops them.
//!
//! Public with the `lab` feature, so that revseq's tests can parse and validate
//! every specialisation offline, with no adapter.

use std::collections::HashSet;

/// Threads per workgroup; the host folds dispatches with the same number. 256 is
/// WebGPU's default limit of invocations per workgroup, the most a portable
/// dispatch may use.
pub const WORKGROUP_SIZE: u32 = 256;

/// The files every kernel may import, by the name `#import` gives them: the
/// shared ones, and the trace build's. A family's own files come with its
/// [`KernelFile`]s.
const SHARED: &[(&str, &str)] = &[
    ("shared/params", include_str!("shared/params.wgsl")),
    ("shared/lengths", include_str!("shared/lengths.wgsl")),
    (
        "shared/mul_high_halves",
        include_str!("shared/mul_high_halves.wgsl"),
    ),
    (
        "shared/mul_high_u64",
        include_str!("shared/mul_high_u64.wgsl"),
    ),
    (
        "shared/storage_vec2",
        include_str!("shared/storage_vec2.wgsl"),
    ),
    (
        "shared/storage_vec4",
        include_str!("shared/storage_vec4.wgsl"),
    ),
    (
        "shared/storage_words",
        include_str!("shared/storage_words.wgsl"),
    ),
    ("shared/vectors", include_str!("shared/vectors.wgsl")),
    (
        "shared/element_lengths",
        include_str!("shared/element_lengths.wgsl"),
    ),
    (
        "shared/storage_u64",
        include_str!("shared/storage_u64.wgsl"),
    ),
    ("trace/record", include_str!("trace/record.wgsl")),
];

/// A kernel: a family's WGSL file with its entry point, `main`, among the family's
/// files, which it may import besides the shared ones (`shared/`). The
/// families make theirs (`src/kernels/`).
#[derive(Clone, Copy, Debug)]
pub struct KernelFile {
    file: &'static str,
    files: &'static [(&'static str, &'static str)],
}

impl KernelFile {
    /// The entry point of every kernel.
    pub const ENTRY_POINT: &'static str = "main";

    /// The kernel in `file` (as `#import` names it: `rows/rows`), one of `files`,
    /// (name, WGSL) pairs.
    pub const fn new(
        file: &'static str,
        files: &'static [(&'static str, &'static str)],
    ) -> KernelFile {
        KernelFile { file, files }
    }

    /// The file with its entry point, as `#import` names it.
    pub const fn file(self) -> &'static str {
        self.file
    }

    /// The WGSL of file `name`: the family's, or a shared one.
    fn text(self, name: &str) -> Option<&'static str> {
        let find = |files: &'static [(&str, &'static str)]| {
            files.iter().find(|(path, _)| *path == name).map(|f| f.1)
        };
        find(self.files).or_else(|| find(SHARED))
    }
}

// A kernel is its file: the family's files come with it.
impl PartialEq for KernelFile {
    fn eq(&self, other: &KernelFile) -> bool {
        self.file == other.file
    }
}

impl Eq for KernelFile {}

impl std::hash::Hash for KernelFile {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.file.hash(state);
    }
}

impl PartialOrd for KernelFile {
    fn partial_cmp(&self, other: &KernelFile) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KernelFile {
    fn cmp(&self, other: &KernelFile) -> std::cmp::Ordering {
        self.file.cmp(other.file)
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
    /// 8-byte vectors of two 32-bit words (`shared/storage_vec2.wgsl`): the
    /// general kernel's 8-byte elements.
    Vec2,
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
            Storage::Vec2 => "shared/storage_vec2",
            Storage::U64 => "shared/storage_u64",
        }
    }
}

/// Everything that decides a shader module's WGSL: a kernel and what fills its
/// slots. `storage` and `mul_high` are every kernel's; a family names the files of
/// its own slots (`rows`: `mirror`) in `slots`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Source {
    /// The kernel.
    pub kernel: KernelFile,
    /// How the tensors are stored (`storage`).
    pub storage: Storage,
    /// The family's slots: (slot, file) pairs.
    pub slots: &'static [(&'static str, &'static str)],
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
    /// record to a trace buffer at binding 4 (`trace/record.wgsl`).
    #[cfg(feature = "lab")]
    pub fn traced_wgsl(&self) -> String {
        self.compose(true)
    }

    /// A label for wgpu objects built from it.
    pub fn label(&self) -> String {
        let mut label = format!("revseq::{}", self.kernel.file());
        if self.storage == Storage::U64 {
            label.push_str("+u64");
        }
        if self.wide_multiply && self.storage != Storage::U64 {
            label.push_str("+mul64");
        }
        label
    }

    /// Whether the module needs [`wgpu::Features::SHADER_INT64`].
    #[cfg(feature = "lab")]
    pub fn needs_int64(&self) -> bool {
        self.storage == Storage::U64 || self.wide_multiply
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
            None => self
                .kernel
                .text(file)
                .unwrap_or_else(|| panic!("no shader file {file}")),
        };
        if !seen.insert(file.to_string()) {
            return;
        }
        // The heading names the file in the repository, where `#import`
        // names it from `src/kernels/`.
        wgsl.push_str(&format!("// ---- src/kernels/{file}.wgsl\n"));
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
