//! The operator as dispatches any WebGPU executor can run: for a descriptor and a
//! [`Target`] (no device), the kernels' WGSL with their constants fixed, and each
//! dispatch's workgroups and what each of its bindings holds (a window of a
//! tensor, of a scratch buffer, a placeholder, the layout uniform's bytes).
//! A program is a descriptor's plan (`src/plan/mod.rs`) as dispatches, in one
//! form for every executor: revseq's own
//! [`Gpu::compile`](crate::Gpu::compile) builds a pipeline from each of its
//! [`kernels`](Program::kernels)' WGSL and `record` binds each dispatch's
//! [`bindings`](Dispatch::bindings) as they say, revseq-burn launches the same
//! on burn's own compute client, and the bounds test traces it. A kernel's
//! text and digest are made once for what it is made of and shared by every
//! program that runs it ([`Kernel`]): planning a descriptor makes no text.
//!
//! The WGSL follows one convention, so that an executor that lays out its
//! bindings from the shader (wgpu's automatic layout, cubecl) can bind it:
//! the buffers a kernel uses at `@group(0) @binding(0..k)`, in the order of
//! [`Dispatch::bindings`], every one `read_write` (a pool that packs tensors
//! into one buffer may bind two of them from it), then its uniform at
//! `@binding(k)`. A module may also declare a buffer its entry point never
//! uses (in place, a swap's input; the staging copy's lengths), past all of
//! these, at `@binding(17)` or `@binding(18)`, and no dispatch fills it: build
//! the layout from what the entry point uses (wgpu's automatic layout and
//! cubecl do) or from [`Dispatch::bindings`], not from every declaration.
//! Shader modules may be made with bounds checks off: every
//! access stays inside its binding by the kernel's own arithmetic, whatever the
//! contents of the tensors and lengths. The bounds test (`tests/bounds.rs`)
//! holds revseq to it: the trace build records the index of every access as the
//! kernel computed it, before robust buffer access or naga could clamp it, for
//! every workgroup of every dispatch of thousands of random programs (every
//! family, both tunings, windowed, staged and in place, the staging copy), each
//! checked against the window its binding holds; and every line of every kernel
//! that indexes a binding is checked to be traced with the index it uses. An
//! executor may rely on this: each binding needs exactly the window
//! [`Dispatch::bindings`] gives it, nothing past it is read or written, and a
//! read that the kernel clamps (`arrayLength`) stays inside the binding too.
//!
//! Tensors past the target's binding ([`Target::max_binding`]) run as several
//! dispatches, each binding a window of each tensor. Two numbers bound them:
//! - the binding must hold, for each tensor, one element, the storage offset
//!   alignment and a 4-byte word (`element bytes + min_storage_buffer_offset_alignment
//!   + 4`, 268 bytes for 8-byte elements on a 256-byte alignment): below that the
//!   plan is [`Error::TensorTooLarge`] on that tensor;
//! - a program has at most [`MAX_DISPATCHES`] (65,536) dispatches, else
//!   [`Error::TooManyDispatches`]. Pieces are as large as a window allows, so the
//!   count is about the tensor's bytes over the binding's, plus a staged piece's
//!   copies; but where lanes longer than a window pair with the input windows
//!   they read (`runs`, `rows`), a piece whose axis spans W windows takes up to
//!   W(W+1)/2 dispatches, so the count grows with the square of the tensor over
//!   the binding. Bind as much as the device allows.

use std::sync::Arc;

use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::in_place::{name_the_tensor, ReverseInPlace};
use crate::descriptor::operator::ReverseSubsequences;
use crate::descriptor::Mode;
use crate::kernels::copy::Copying;
use crate::kernels::tuning;
use crate::kernels::variant::Variant;
use crate::kernels::PipelineKey;
use crate::plan::cut::{Piece, Segments};
use crate::plan::dispatch::{Making, StagingCopy};
use crate::plan::kernel::{KernelOf, COPY, COPY_USES, OPERATOR};
use crate::plan::{plan, tensor_bytes, Plan};

pub use crate::plan::candidates::{
    candidates, candidates_in_place, fastest, own_bytes, timing_bytes, timing_lengths,
    within_bound, HOPELESS, MARGIN, ROUNDS, ROUNDS_BUDGET, ROUND_TIME,
};
pub use crate::plan::dispatch::{Binding, Dispatch};
pub use crate::plan::kernel::Kernel;
pub use crate::plan::parts::{parts, Part};
pub use crate::plan::target::{Choice, Target};

/// The most dispatches one program has ([`Error::TooManyDispatches`] past it).
pub const MAX_DISPATCHES: usize = crate::plan::cut::MAX_DISPATCHES;

/// `desc` as a program for `target`: the dispatches
/// [`Gpu::compile`](crate::Gpu::compile) records where autotune is off (the
/// static choice, by the kind of adapter: the same program every time),
/// validated as it validates.
///
/// ```
/// use revseq::program::{self, Binding, Target};
/// use revseq::{DataType, ReverseSubsequences, TensorDesc, TensorRole};
/// let target = Target::new(wgpu::Limits::default(), wgpu::DeviceType::DiscreteGpu);
/// let tensor = TensorDesc::new(DataType::Uint8, &[4, 32]);
/// let lengths = TensorDesc::new(DataType::Int32, &[4, 1]);
/// let desc = ReverseSubsequences::new(tensor.clone(), lengths, tensor, 1);
/// let program = program::program(&desc, &target)?;
/// let dispatch = &program.dispatches()[0];
/// assert!(program.kernels()[dispatch.kernel].wgsl.contains("@binding(3) var<uniform>"));
/// assert!(matches!(
///     dispatch.bindings[0],
///     Binding::Tensor { tensor: TensorRole::Input, offset: 0, size: 128 }
/// ));
/// # Ok::<(), revseq::Error>(())
/// ```
pub fn program(desc: &ReverseSubsequences, target: &Target) -> Result<Program, Error> {
    Program::out_of_place(desc, target)
}

/// `desc` in place as a program for `target`: the dispatches
/// [`Gpu::compile_in_place`](crate::Gpu::compile_in_place) records. The
/// tensor is [`TensorRole::Tensor`](crate::TensorRole::Tensor), read and written where it lies.
pub fn program_in_place(desc: &ReverseInPlace, target: &Target) -> Result<Program, Error> {
    Program::in_place(desc, target)
}

/// The operator as kernels and the dispatches that run them, in order: the
/// plan as dispatches, which revseq's own executor records as any other executor
/// runs it.
#[derive(Clone, Debug)]
pub struct Program {
    /// The operator's kernel, then the staging copy's where some piece stages;
    /// made once for what they are made of and shared.
    kernels: Vec<Arc<Kernel>>,
    dispatches: Vec<Dispatch>,
    /// Whether it writes into a second tensor or into the input's memory.
    mode: Mode,
    /// Bytes of the scratch buffers staged pieces run in (input, output), where
    /// some piece stages.
    scratch: Option<[u64; 2]>,
    /// Whether staged segments may copy by buffer copies, rather than by the
    /// copy kernel, where the caller's buffers allow it
    /// (`tuning::copies_by_buffer`): the one choice left to the executor, which
    /// alone sees the buffers' usages when it records.
    by_buffer: bool,
    /// `min_size_in_bytes` of input, sequence lengths and output.
    bytes: [u64; 3],
}

impl Program {
    /// Plans `desc`, validated here, for `target`.
    pub(crate) fn out_of_place(
        desc: &ReverseSubsequences,
        target: &Target,
    ) -> Result<Program, Error> {
        desc.validate()?;
        Program::new(desc, Mode::OutOfPlace, target)
    }

    /// Plans `desc` for `target`: the operator from the tensor into itself,
    /// validated once, its errors naming the tensor.
    pub(crate) fn in_place(desc: &ReverseInPlace, target: &Target) -> Result<Program, Error> {
        let operator = desc.operator()?;
        Program::new(&operator, Mode::InPlace, target).map_err(name_the_tensor)
    }

    /// Plans `desc`, validated, in `mode` for `target`, on the host.
    fn new(desc: &ReverseSubsequences, mode: Mode, target: &Target) -> Result<Program, Error> {
        let limits = target.limits();
        let bytes = tensor_bytes(desc, limits)?;
        let Plan {
            layout,
            pieces,
            work,
            key,
        } = plan(desc, mode, bytes, target)?;
        let copying = Copying::new(staged_in_vectors(&pieces), &target.profile);
        let making = Making {
            layout: &layout,
            limits,
            copying,
            mode,
            output_bytes: bytes[2],
            uses: [crate::kernels::uses(&key), COPY_USES],
        };
        let scratch = scratch_sizes(&pieces);
        let operator = KernelOf::Operator(key).kernel();
        let copy = scratch.map(|_| KernelOf::Copy(copying).kernel());
        Ok(Program {
            kernels: std::iter::once(operator).chain(copy).collect(),
            dispatches: making.dispatches(&work, &pieces)?,
            mode,
            scratch,
            by_buffer: tuning::copies_by_buffer(target.profile.tuning),
            bytes,
        })
    }

    /// The kernels the dispatches run ([`Dispatch::kernel`] indexes them).
    pub fn kernels(&self) -> &[Arc<Kernel>] {
        &self.kernels
    }

    /// The dispatches, to run in this order; none for a tensor without
    /// elements.
    pub fn dispatches(&self) -> &[Dispatch] {
        match self.is_empty() {
            true => &[],
            false => &self.dispatches,
        }
    }

    /// Every dispatch planned, with work or not: a tensor without elements
    /// plans one, which [`dispatches`](Self::dispatches) leaves out.
    pub(crate) fn planned(&self) -> &[Dispatch] {
        &self.dispatches
    }

    /// Bytes of scratch buffers 0 and 1 ([`Binding::Scratch`]), 0 where the
    /// program has none: a staged piece's input and output.
    pub fn scratch_bytes(&self) -> [u64; 2] {
        self.scratch.unwrap_or_default()
    }

    /// The kernel family the plan chose.
    pub fn variant(&self) -> Variant {
        self.key().variant
    }

    /// The operator's pipeline key.
    pub(crate) fn key(&self) -> PipelineKey {
        match self.kernels[OPERATOR].of {
            KernelOf::Operator(key) => key,
            KernelOf::Copy(_) => unreachable!("the operator's kernel comes first"),
        }
    }

    /// Whether it reverses the tensor in its own memory
    /// ([`program_in_place`]): its tensor binds as [`TensorRole::Tensor`].
    pub fn is_in_place(&self) -> bool {
        self.mode == Mode::InPlace
    }

    /// Whether it writes into a second tensor or into the input's memory.
    pub(crate) fn mode(&self) -> Mode {
        self.mode
    }

    /// `min_size_in_bytes` of `tensor` (in place, the tensor's at the
    /// output's place): what its [`Binding::Tensor`]s reach, the last word
    /// rounded up to 4 bytes.
    pub fn tensor_bytes(&self, tensor: TensorRole) -> u64 {
        match tensor {
            TensorRole::Input => self.bytes[0],
            TensorRole::SequenceLengths => self.bytes[1],
            TensorRole::Output | TensorRole::Tensor => self.bytes[2],
        }
    }

    /// The segments dispatch `index` copies, where it is a staged piece's copy
    /// that an executor may make as buffer copies instead of a dispatch of the
    /// copy kernel, where the caller's buffers allow it (`COPY_SRC` on the
    /// input, `COPY_DST` on the output): the one choice the program leaves to
    /// the executor, which alone sees the buffers when it records.
    pub(crate) fn buffer_copy(&self, index: usize) -> Option<&StagingCopy> {
        let dispatch = &self.dispatches[index];
        match self.by_buffer && dispatch.kernel == COPY {
            true => dispatch.staging_copy(),
            false => None,
        }
    }

    /// Whether `other` runs the same kernels, dispatches and bindings: two
    /// profiles may plan the same program, which autotune then times once.
    pub(crate) fn same(&self, other: &Program) -> bool {
        self.kernels == other.kernels
            && self.dispatches == other.dispatches
            && self.scratch == other.scratch
            && self.by_buffer == other.by_buffer
    }

    /// Whether no dispatch has work: a tensor without elements.
    pub(crate) fn is_empty(&self) -> bool {
        self.dispatches.iter().all(|d| d.workgroups[0] == 0)
    }

    /// Whether some dispatch binds the placeholder.
    pub(crate) fn binds_placeholder(&self) -> bool {
        let bindings = self.dispatches.iter().flat_map(|d| &d.bindings);
        bindings
            .into_iter()
            .any(|b| matches!(b, Binding::Placeholder { .. }))
    }
}

/// Whether every segment a staged piece copies is whole 16-byte vectors at a
/// vector boundary, in the caller's binding and in scratch: the staging copy
/// moves vectors then.
fn staged_in_vectors(pieces: &[Piece]) -> bool {
    let vectors = |s: &Segments| {
        [s.origin, s.stride, s.bytes, s.pitch]
            .iter()
            .all(|b| b % 16 == 0)
    };
    pieces
        .iter()
        .filter_map(|d| d.staging.as_ref())
        .all(|s| vectors(&s.input) && vectors(&s.output))
}

/// Bytes of the scratch buffers staged pieces run in: one for their input,
/// one for their output, each as large as the largest piece's; `None` where no
/// piece stages.
fn scratch_sizes(pieces: &[Piece]) -> Option<[u64; 2]> {
    pieces
        .iter()
        .filter(|piece| piece.staging.is_some())
        .map(|piece| [piece.windows[0].size, piece.windows[2].size])
        .reduce(|a, b| [a[0].max(b[0]), a[1].max(b[1])])
}
