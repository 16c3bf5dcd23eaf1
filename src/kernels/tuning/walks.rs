//! Which way pieces of whole positions go when their sources span several
//! windows, by kind of adapter: walked pairs, or staging through scratch; and how
//! `runs` walks a pair.

use super::Tuning;

/// Whether `runs` walks a windowed pair (a piece of whole positions and an input
/// window of whole positions, where the axis spans several windows) lane by lane,
/// for a layout with `lanes` runs per position, where walking run by run starts
/// `by_run` invocations. Run by run, an invocation per vector group of one
/// position's runs walks the positions whose sources the window holds; most find
/// none. Lane by lane, a fixed grid of [`super::pair_invocations`] does: each
/// workgroup takes its lanes (a lane: one sequence, its run at each position), or a
/// share of one, and strides over the vectors the pair moves in them. A CPU
/// adapter pays for each invocation it starts, idle or not, so a small grid walks
/// the lanes, where they are few (many lanes walk pairs only where nothing else can run them:
/// [`walks_windows`]). A GPU retires idle invocations cheaply, so each run gets its
/// own, unless that leaves too few to keep its memory busy: each walks its
/// positions one after another, and short lanes over a long axis (`[T, 2, 64]`)
/// would leave a few hundred invocations each walking thousands of them.
pub(crate) fn walks_lanes(tuning: Tuning, lanes: u64, by_run: u64) -> bool {
    match tuning {
        Tuning::Cpu => lanes <= CPU_PAIR_LANES,
        Tuning::Gpu => by_run < GPU_PAIR_FILL,
    }
}

/// The fewest invocations a GPU's pair walks run by run: with their 4 vectors
/// each, 2 MiB in flight, what a memory system of a few TB/s with a latency near
/// a microsecond keeps busy (Little's law). Fewer walk lane by lane in the fixed
/// grid of [`super::pair_invocations`], which shares each lane's positions among
/// them.
const GPU_PAIR_FILL: u64 = 32 * 1024;

/// Whether `runs` walks windowed pairs, for a layout with `lanes` runs per
/// position (`by_run` invocations walking run by run, as [`walks_lanes`] takes),
/// rather than staging its pieces through scratch, on an output of
/// `output_bytes` cut into windows of `binding` bytes: each piece is paired with
/// the windows at and below its own at most, W(W+1)/2 pairs for W windows.
/// Always on a GPU. On a CPU adapter each lane costs its workgroups a visit in
/// every pair, and every dispatch costs about what moving a few MiB does, while
/// staging costs two copies of the tensor: so only for a few lanes and large
/// pairs (`docs/windows.md` has the timings).
pub(crate) fn walks_windows(
    tuning: Tuning,
    [lanes, by_run]: [u64; 2],
    output_bytes: u64,
    binding: u64,
) -> bool {
    let windows = output_bytes.div_ceil(binding.max(1)).max(1);
    let bytes_per_pair = output_bytes / (windows * (windows + 1) / 2);
    match tuning {
        Tuning::Gpu => true,
        Tuning::Cpu => walks_lanes(tuning, lanes, by_run) && bytes_per_pair >= CPU_PAIR_BYTES,
    }
}

/// The most lanes a CPU adapter's pair walk loops over.
const CPU_PAIR_LANES: u64 = 64;

/// The fewest bytes a CPU adapter's walked pair moves on average.
const CPU_PAIR_BYTES: u64 = 4 << 20;
