//! How much work one invocation takes, by kind of adapter: the one place where the
//! kernels are tuned for a CPU adapter (lavapipe, SwiftShader, WARP) or a GPU.
//!
//! A GPU wants neighbouring invocations on neighbouring memory and many of them in
//! flight, so its invocations take one vector (or a few axis positions). A CPU
//! adapter runs a SIMD group's invocations in vector channels, pays for each
//! invocation's prologue, and runs every memory access whose address differs by
//! invocation as a loop over the group: there an invocation takes several vectors,
//! reusing what it loaded, and loads and stores 64-bit words where its host's CPU
//! gains by them (`host.rs`). The numbers behind each choice are in `docs/` (one
//! file per kernel family). The kernels and the windowing take these choices as
//! data; none makes one of its own.
//!
//! What only a CPU adapter runs, which a GPU engineer may skip (each file says so
//! in its first lines; `docs/tuning.md` has what each earns there):
//! - 64-bit words (`access_bits`, `move_bits`, `host.rs`): `rows/rows_64.wgsl`
//!   and `shared/storage_u64.wgsl` (`shared/mul_high_u64.wgsl`, which they
//!   import, is not CPU-only: any device with `SHADER_INT64` divides with it,
//!   a GPU's general kernels included);
//! - the in-place walks (`walks_rows_in_place`, `walks_columns_in_place`):
//!   `rows/swap.wgsl`, `gather/swap.wgsl`;
//! - staged segments copied by buffer copies (`copies_by_buffer`);
//! - on a CPU GL adapter, submissions bounded in time (`src/executor/device/submission.rs`).

mod host;
mod walks;

use crate::kernels::variant::Variant;

pub(crate) use host::moves_64_bit_words;
pub(crate) use walks::{walks_lanes, walks_windows};

/// What the plan tunes the vector kernels for: how much work one invocation takes.
/// [`Gpu::from_wgpu`](crate::Gpu::from_wgpu) picks it from the adapter's device type;
/// [`Gpu::with_tuning`](crate::Gpu::with_tuning) overrides it. Results are the same
/// either way; only speed differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tuning {
    /// A CPU adapter: an invocation takes several vectors or axis positions, and
    /// the kernels that only suit a CPU (64-bit words, shared length loads) may
    /// run.
    Cpu,
    /// A GPU: neighbouring invocations touch neighbouring memory, one vector each
    /// (or a few axis positions).
    Gpu,
}

impl Tuning {
    /// `Cpu` for adapters of [`wgpu::DeviceType::Cpu`], `Gpu` for the rest.
    pub fn for_adapter(info: &wgpu::AdapterInfo) -> Tuning {
        if info.device_type == wgpu::DeviceType::Cpu {
            Tuning::Cpu
        } else {
            Tuning::Gpu
        }
    }
}

/// What the plan knows of the device it plans for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Profile {
    pub(crate) tuning: Tuning,
    /// The device has `SHADER_INT64`.
    pub(crate) int64: bool,
    /// 64-bit words move faster than 32-bit ones on the CPU a CPU adapter runs
    /// on ([`moves_64_bit_words`]); a GPU ignores it.
    pub(crate) moves_64: bool,
    /// The family the plan takes wherever it can serve the layout, in place of
    /// the tuning's choice: `None` but in the laboratory
    /// ([`Gpu::with_variant`](crate::Gpu::with_variant)), where the benchmark
    /// times every candidate.
    pub(crate) forced: Option<Variant>,
}

impl Profile {
    fn cpu(&self) -> bool {
        self.tuning == Tuning::Cpu
    }
}

/// Bytes a vector-family invocation takes on a CPU adapter, in the usual case: 8
/// vectors of 16 bytes.
const CPU_BYTES: u32 = 8 * 16;

/// Vectors a `rows` invocation takes on a CPU adapter for 8- and 16-byte elements
/// where rows lie back to back (each starts where the previous one ends, in input
/// and output): more amortises an invocation's work there, but rows with gaps
/// between them lose by it.
const ROWS_PACKED_WIDE_STEPS: u32 = 16;

/// Invocations of `runs` that interleave their vectors, where a run fills them:
/// on a CPU adapter the SIMD width (8 channels of 32 bits), so that the
/// invocations, run in step, touch consecutive vectors, one sequential stream
/// rather than one per invocation; on a GPU a warp (32, the narrowest), so that
/// each of an invocation's steps is one coalesced 512-byte access of its warp and
/// its length load serves several vectors.
pub(crate) fn run_interleave(tuning: Tuning) -> u32 {
    match tuning {
        Tuning::Cpu => 8,
        Tuning::Gpu => 32,
    }
}

/// Invocations of a team in a `runs` pair walked lane by lane, for a plan that
/// interleaves `interleave` over runs of `vecs` vectors: its own interleave, but
/// on a GPU where runs are too short to interleave over a warp (1), the run's
/// vectors rounded up to a power of two, at most a warp, so that each of a team's
/// steps moves a run's vectors side by side rather than each invocation taking a
/// stretch of the lane's positions of its own.
pub(crate) fn lane_walk_interleave(tuning: Tuning, interleave: u32, vecs: u32) -> u32 {
    match tuning {
        Tuning::Gpu if interleave == 1 => vecs.next_power_of_two().min(run_interleave(tuning)),
        _ => interleave,
    }
}

/// Whether the general kernels' divisions (one a dimension, for each element) take
/// the high word of a product from one 64-bit multiply rather than from 16-bit
/// partial products: on a GPU whose device has `SHADER_INT64`, where it is one
/// instruction against about ten. A CPU adapter's multiply gains nothing by
/// it, and only the kernels on 64-bit words take it there.
pub(crate) fn wide_multiply(profile: &Profile) -> bool {
    profile.tuning == Tuning::Gpu && profile.int64
}

/// The most positions of the axis `columns` holds in registers, in 8, 16, 32 or 64
/// rows.
pub(crate) const COLUMN_ROWS: u32 = 64;

/// The widest band of columns whose blocks of positions `gather` walks before the
/// next band, in vectors: 4 KiB of each row, whose input stays in a CPU's L2 cache
/// for axes of a few hundred positions.
pub(crate) const GATHER_BAND_VECS: u32 = 256;

/// The most vectors (`rows`) an invocation takes, of `vector_bytes` bytes, for
/// elements of `element_bytes`; `packed`: rows lie back to back.
pub(crate) fn rows_steps(
    tuning: Tuning,
    element_bytes: u32,
    vector_bytes: u32,
    packed: bool,
) -> u32 {
    match tuning {
        Tuning::Gpu => 1,
        Tuning::Cpu if vector_bytes == 16 && element_bytes >= 8 && packed => ROWS_PACKED_WIDE_STEPS,
        Tuning::Cpu => CPU_BYTES / vector_bytes,
    }
}

/// The vectors a `runs` invocation takes where a run of `vecs` vectors is too
/// short to interleave over a group of invocations: half the most on a CPU
/// (`most`, from [`runs_steps`]), up to the run; one on a GPU, whose neighbouring
/// invocations then take neighbouring vectors.
pub(crate) fn runs_alone(tuning: Tuning, most: u32, vecs: u32) -> u32 {
    match tuning {
        Tuning::Cpu => (most / 2).min(vecs.next_power_of_two()),
        Tuning::Gpu => 1,
    }
}

/// Whether rows reverse in place one invocation a row (`rows/swap.wgsl`), each
/// walking its row's vectors from both ends: on a CPU adapter, where an
/// invocation that streams through its row moves whole vectors, against one
/// that swaps a pair of elements (`general/swap.wgsl`), each a loop over the
/// SIMD group's invocations. Not on a GPU, where a warp of invocations on 32
/// rows would touch 32 sectors an access, and a warp on neighbouring pairs of
/// one row touches whole sectors.
pub(crate) fn walks_rows_in_place(tuning: Tuning) -> bool {
    tuning == Tuning::Cpu
}

/// Whether per-element lengths past `columns` (more than [`COLUMN_ROWS`]
/// positions, or 16-byte elements) reverse in place one invocation a vector
/// column (`gather/swap.wgsl`), each walking the column's positions: on a CPU
/// adapter, where the vector at each position is loaded and stored once,
/// against a pair of elements an invocation (`general/swap.wgsl`). Not on a GPU,
/// where a warp on neighbouring pairs touches whole sectors at the front of its
/// lanes. Within `columns`' reach both take it, in place as out of place.
pub(crate) fn walks_columns_in_place(tuning: Tuning) -> bool {
    tuning == Tuning::Cpu
}

/// Phases of the axis positions the invocations of a lane walk in place (one
/// takes `t` from its phase on, a phase count apart), for `pairs` pairs a lane
/// may swap (`runs/swap.wgsl`): on a CPU adapter one, each
/// invocation walking its lane's pairs, so that a lane that reverses little costs
/// little and its length is loaded once; on a GPU one per pair, so that there are
/// invocations enough to fill it.
pub(crate) fn swap_phases(tuning: Tuning, pairs: u32) -> u32 {
    match tuning {
        Tuning::Cpu => pairs.min(1),
        Tuning::Gpu => pairs,
    }
}

/// Vectors of each run a `runs` invocation swaps in place at each position, for
/// a plan whose invocations copy `steps` out of place (`runs/swap.wgsl`): on a
/// CPU adapter half as many, since each step loads and stores two vectors,
/// so that an invocation holds as many as a copy's does; on a GPU as many.
pub(crate) fn swap_steps(tuning: Tuning, steps: u32) -> u32 {
    match tuning {
        Tuning::Cpu => (steps / 2).max(1),
        Tuning::Gpu => steps,
    }
}

/// Positions of a front group an invocation walks in place across windows
/// (`general/across.wgsl`), where a lane's positions fall in `groups`
/// groups and each group pairs with every group after it: on a CPU adapter as
/// many as there are groups (at most 64), so that the dispatches of a block
/// start about one invocation a pair of positions in all, each paying its
/// length load and decode once; on a GPU one, so that neighbouring invocations
/// take neighbouring elements at each position.
pub(crate) fn across_steps(tuning: Tuning, groups: u32) -> u32 {
    match tuning {
        Tuning::Cpu => groups.clamp(1, 64),
        Tuning::Gpu => 1,
    }
}

/// Units (16-byte vectors or elements of a run of one length) an invocation
/// takes in place across windows, along the run (`general/across.wgsl`): on a CPU
/// adapter 8, so that each invocation's decode and length load serve them all,
/// where a dispatch's invocations mostly find no pair in their lane; on a GPU one,
/// neighbouring invocations on neighbouring units.
pub(crate) fn across_units(tuning: Tuning) -> u32 {
    match tuning {
        Tuning::Cpu => 8,
        Tuning::Gpu => 1,
    }
}

/// The most vectors a `runs` invocation takes, where a run fills
/// [`run_interleave`] invocations of them (the plan halves it where not): on a CPU
/// twice the usual bytes, on a GPU 4, which pays each invocation's length load
/// over 4 vectors and leaves a 16 MiB tensor over 250,000 invocations.
pub(crate) fn runs_steps(tuning: Tuning, vector_bytes: u32) -> u32 {
    match tuning {
        Tuning::Gpu => 4,
        Tuning::Cpu => 2 * CPU_BYTES / vector_bytes,
    }
}

/// Invocations of a `rows/window` dispatch, and of a `runs` pair walked lane by
/// lane, which stride over the vectors its pair of windows writes: enough to
/// fill the profile, few enough that a pair with nothing to write (most pairs of a
/// long lane) costs little. A CPU adapter pays for each workgroup it starts, even
/// one that returns at once, so it gets a few per thread.
pub(crate) fn pair_invocations(tuning: Tuning) -> u32 {
    match tuning {
        Tuning::Cpu => 16 * crate::kernels::shaders::WORKGROUP_SIZE,
        Tuning::Gpu => 512 * crate::kernels::shaders::WORKGROUP_SIZE,
    }
}

/// The most axis positions a `gather` invocation walks: a few everywhere, since it
/// loads a column's lengths once for all of them; more for 1- and 2-byte elements
/// on a CPU, whose vectors hold 16 or 8 lengths.
pub(crate) fn gather_steps(tuning: Tuning, element_bytes: u32) -> u32 {
    match tuning {
        Tuning::Cpu if element_bytes < 4 => 8,
        _ => 4,
    }
}

/// Whether each `gather` invocation loads a word of the next band ahead of its
/// gathers, as a CPU's prefetch (4-byte and wider elements on 16-byte vectors;
/// narrower ones are bound by instructions, not memory).
pub(crate) fn touch_ahead(tuning: Tuning, element_bytes: u32, vector_bytes: u32) -> bool {
    tuning == Tuning::Cpu && vector_bytes == 16 && element_bytes >= 4
}

/// The access size, in bits, a kernel moves its vectors in, of the `sizes` its
/// family takes (32, and 64 where a CPU adapter gains by it: half the
/// per-invocation loops of 32-bit words): 64 where allowed on a CPU adapter whose
/// device has `SHADER_INT64`. On a GPU a 16-byte vector is one access either way.
pub(crate) fn access_bits(profile: &Profile, sizes: &[u32]) -> u32 {
    if profile.cpu() && profile.int64 && sizes.contains(&64) {
        64
    } else {
        32
    }
}

/// The access size, in bits, of a kernel that only moves its words, never
/// computing on them (`runs`, `rows` of 8- and 16-byte elements, `gather` of
/// them, the staging copy): as [`access_bits`] where the host moves 64-bit
/// words faster, else 32. Kernels that shift and mask their words take
/// [`access_bits`] on every host: half the arithmetic outweighs the moves.
pub(crate) fn move_bits(profile: &Profile, sizes: &[u32]) -> u32 {
    match profile.moves_64 {
        true => access_bits(profile, sizes),
        false => 32,
    }
}

/// The staging copy's interleave and steps (`src/kernels/copy/copy.wgsl`, its
/// constants `LANES` and `STEPS`): invocations that interleave, and the words
/// each takes. On a CPU adapter its SIMD
/// width, as `runs` interleaves ([`run_interleave`]), with 8 words each; on a
/// GPU a warp, each step one coalesced 128-byte access, with 4.
pub(crate) fn copy_interleave_steps(tuning: Tuning) -> [u32; 2] {
    match tuning {
        Tuning::Cpu => [8, 8],
        Tuning::Gpu => [32, 4],
    }
}

/// Whether a staged piece copies its segments with buffer copies, one a segment,
/// where the caller's buffers allow it (`COPY_SRC` on the input, `COPY_DST` on
/// the output), rather than with the copy kernel: on a CPU adapter, whose buffer
/// copy is a `memcpy` and a kernel copy costs what the operator does
/// (docs/windows.md has the figures). A GPU runs a kernel as fast as a buffer
/// copy, and one dispatch per window rather than a command per segment.
pub(crate) fn copies_by_buffer(tuning: Tuning) -> bool {
    tuning == Tuning::Cpu
}
