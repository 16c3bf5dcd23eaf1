// The layout uniform every kernel reads (`src/kernels/params.rs` is its Rust twin), the
// folded dispatch index, the divisions by layout sizes, and the mirror.
#import mul_high

// Rank of the canonical layout (1..=8): dimensions ordered from the largest output
// stride to the smallest, size-1 dimensions dropped and contiguous runs merged.
override RANK: u32;
// Position of the reversed axis within the canonical layout.
override AXIS: u32;
override WORKGROUP_SIZE: u32 = 256u;

// A divisor of per-invocation values (`src/kernels/divisor.rs`): `divide` multiplies by
// `magic` instead, because a CPU adapter divides a SIMD group's values one by one.
struct Divisor {
    value: u32,
    magic: u32,
    shift: u32,
    unused: u32,
}

// Dimension d of a per-dimension field lives at [d / 4][d % 4]: uniform arrays
// need 16-byte elements, so eight u32 values travel as two vec4.
struct Params {
    sizes: array<vec4<u32>, 2>,
    out_strides: array<vec4<u32>, 2>,
    in_strides: array<vec4<u32>, 2>,
    len_strides: array<vec4<u32>, 2>,
    // The sizes and output strides again, as divisors (reading the plain arrays
    // where a kernel only multiplies is cheaper).
    size_divisors: array<Divisor, 8>,
    out_stride_divisors: array<Divisor, 8>,
    // Invocations with work to do.
    count: u32,
    // Windowed dispatch (`src/plan/cut/`): elements from the start of each binding
    // to this dispatch's piece of the tensors. The input's wraps (mod 2^32) where
    // the binding starts past the piece; added to an offset inside the binding,
    // the sum is exact.
    in_shift: u32,
    len_shift: u32,
    out_shift: u32,
    // The axis position of the piece's first position and the size of the whole
    // axis; and the sources this dispatch writes: those at axis positions
    // [position_lo, position_hi) whose offset from the origin of position_lo in
    // the piece is in [source_lo, source_hi). A dispatch of the whole tensor has
    // 0, the axis size, and everything.
    axis_start: u32,
    axis_size: u32,
    source_lo: u32,
    source_hi: u32,
    position_lo: u32,
    position_hi: u32,
    // `runs`: invocations that interleave their vectors (1: none).
    interleave: u32,
    // `gather` on a CPU adapter: all ones where each invocation loads a word
    // ahead of its gathers (`touch_ahead` in `gather/gather.wgsl`), else 0.
    touch: u32,
    // `runs` walking a windowed pair lane by lane (`walk_lanes` in
    // `runs/runs.wgsl`): the lanes it walks, a lane being one sequence, its run at
    // each position; 0 where each invocation walks one run.
    lanes: u32,
    // The dispatch's first workgroup, where revseq runs one dispatch in parts
    // (`src/executor/device/submission.rs`); 0 otherwise.
    first_group: u32,
    // In place across windows (`general/across.wgsl`): the front positions
    // an invocation walks, and 1 where the pairs' back ends lie in the input
    // binding, a second window of the tensor (else in the output binding).
    front_positions: u32,
    apart: u32,
    // The vector families: vectors in one row or run of the innermost dimension.
    // A uniform struct member starts on 16 bytes.
    @align(16) vecs: Divisor,
    // `rows`, `runs`: invocations per row or run.
    per_row: Divisor,
    // `gather`: blocks of STEPS positions along the axis; `runs` in place: the
    // phases of positions a lane's invocations walk (`runs/swap.wgsl`).
    blocks: Divisor,
    // `gather`: vectors per band of a run, and bands per run.
    band: Divisor,
    bands: Divisor,
}

@group(0) @binding(0) var<uniform> params: Params;

fn size_at(d: u32) -> u32 {
    return params.sizes[d >> 2u][d & 3u];
}

fn out_stride_at(d: u32) -> u32 {
    return params.out_strides[d >> 2u][d & 3u];
}

fn in_stride_at(d: u32) -> u32 {
    return params.in_strides[d >> 2u][d & 3u];
}

fn len_stride_at(d: u32) -> u32 {
    return params.len_strides[d >> 2u][d & 3u];
}

// `n / d.value`, by Granlund and Montgomery's method (`src/kernels/divisor.rs`), exact for
// every 32-bit `n`.
fn divide(n: u32, d: Divisor) -> u32 {
    let t = mul_high(n, d.magic);
    return select((t + ((n - t) >> 1u)) >> d.shift, n, d.value == 1u);
}

// `n / d.value` and `n % d.value`: the remainder is what the quotient's multiple
// leaves.
struct DivMod {
    quotient: u32,
    remainder: u32,
}

fn divmod(n: u32, d: Divisor) -> DivMod {
    let q = divide(n, d);
    return DivMod(q, n - q * d.value);
}

// The workgroup's index over the whole dispatch, uniform across the workgroup.
// More than 65,535 workgroups do not fit one dimension, so the host folds the
// dispatch into x and y; this unfolds it, and adds the part's first workgroup
// where the dispatch runs in parts.
fn workgroup_index(group: vec3<u32>, groups: vec3<u32>) -> u32 {
    return params.first_group + group.y * groups.x + group.x;
}

// The invocation's index over the whole dispatch. Every kernel calls it first.
fn invocation_index(group: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    let index = workgroup_index(group, groups);
    #trace trace_begin(index, local);
    return index * WORKGROUP_SIZE + local;
}

// A windowed dispatch's source: the offset, from the start of the input binding,
// of the input at axis position `s` and offset `rest` (from the piece's origin)
// along the other dimensions; `in_axis` is the axis stride. ELSEWHERE (past any
// binding) where the dispatch leaves the source to another.
const ELSEWHERE: u32 = 0xffffffffu;

fn windowed_source(rest: u32, s: u32, in_axis: u32) -> u32 {
    let offset = rest + (s - params.position_lo) * in_axis;
    let here = s >= params.position_lo && s < params.position_hi
        && offset >= params.source_lo && offset < params.source_hi;
    return select(ELSEWHERE, offset + params.in_shift, here);
}

// Position along the axis that output position `t` reads from.
fn mirrored(t: u32, len: u32) -> u32 {
    return select(t, len - 1u - t, t < len);
}
