// Shared by every reverse-subsequences kernel: the canonical layout uniform, the
// bindings, the folded dispatch index and the clamp of a lane's sequence length.
//
// Every buffer is bound as `array<u32>` or `array<vec4<u32>>` whatever the element
// type: the operator only moves bits, so no shader needs f16, i64 or f64 support from
// the adapter. Each kernel declares its own input and output bindings (1 and 3).

// Rank of the canonical layout (1..=8): dimensions ordered from the largest output
// stride to the smallest, size-1 dimensions dropped and contiguous runs merged.
override RANK: u32;
// Position of the reversed axis within the canonical layout.
override AXIS: u32;
// 32-bit words per sequence length: 1 for (U)INT32, 2 for (U)INT64.
override LEN_WORDS: u32;
// Whether sequence lengths are signed; a negative length reverses nothing.
override LEN_SIGNED: bool;
override WORKGROUP_SIZE: u32 = 256u;

// A divisor of per-invocation values (`src/divisor.rs`): a CPU adapter divides a
// SIMD group's lanes one by one, so each kernel divides by multiplying with
// `magic` instead.
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
    // Invocations with work to do.
    count: u32,
    // The vector kernels: 16-byte vectors in one row or run of the innermost dimension.
    vecs: u32,
    // Windowed dispatch (`src/window.rs`): elements from the start of each binding
    // to this dispatch's piece of the tensors. The input's wraps (mod 2^32) where
    // the binding starts past the piece; added to an offset inside the binding,
    // the sum is exact.
    in_shift: u32,
    len_shift: u32,
    out_shift: u32,
    // The general kernels and `Runs`: the axis position of the piece's first
    // position and the size of the whole axis; and the sources this dispatch
    // writes: those at axis positions [position_lo, position_hi) whose offset from
    // the origin of position_lo in the piece is in [source_lo, source_hi). A
    // dispatch of the whole tensor has 0, the axis size, and everything.
    axis_start: u32,
    axis_size: u32,
    source_lo: u32,
    source_hi: u32,
    position_lo: u32,
    position_hi: u32,
    // `Runs`: invocations that interleave their vectors (`src/plan.rs`, RUN_LANES).
    lanes: u32,
    // `Gather`: all ones where each invocation loads a word ahead of its gathers (a
    // CPU adapter's prefetch, `touch_ahead` in `reverse_gather.wgsl`), else 0.
    touch: u32,
    // To a whole number of 16-byte rows, as `pad` in `src/compiled.rs`.
    pad0: u32,
    pad1: u32,
    pad2: u32,
    // The vector kernels: invocations per row or run (`Rows`, `Runs`), blocks of
    // STEPS positions along the axis (`Gather`) or columns per run (`Columns`).
    segments: Divisor,
    // `Gather`: columns per band, and bands per run.
    band: Divisor,
    bands: Divisor,
    // The sizes and output strides again, as divisors. Not in place of the plain
    // arrays: `sizes` and `out_strides` as arrays of `Divisor` measured about 7%
    // slower on lavapipe (4- and 16-byte `gather`, 4-byte `rows`).
    size_divisors: array<Divisor, 8>,
    out_stride_divisors: array<Divisor, 8>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(2) var<storage, read> lengths: array<u32>;

fn size_at(d: u32) -> u32 {
    return params.sizes[d >> 2u][d & 3u];
}

// `n / d.value`. Granlund and Montgomery's method (`src/divisor.rs`), which holds for
// every 32-bit `n`. `mul_high` comes from `mul_high_u64.wgsl` in the kernels on
// 64-bit words and from `mul_high_halves.wgsl` in the others.
fn divide(n: u32, d: Divisor) -> u32 {
    let t = mul_high(n, d.magic);
    return select((t + ((n - t) >> 1u)) >> d.shift, n, d.value == 1u);
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

// More than 65,535 workgroups do not fit one dimension, so the host folds the
// dispatch into x and y; this unfolds it. Invocations past `params.count` return,
// but the `Rows` kernels first compute their indices: on lavapipe a load of
// `params` after that return (any divergent branch) is a gather, lane by lane,
// where before it the load is one scalar for all lanes. A rows invocation's
// segment, offsets and axis size read eleven fields of `params`; read before the
// return, 4- and 8-byte `innermost` and `strided` rows took 0.97-0.98x the time.
fn invocation_index(group: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    return (group.y * groups.x + group.x) * WORKGROUP_SIZE + local;
}

// The sequence length stored at element `index` of the lengths tensor, clamped to
// [0, n]. Both words of a 64-bit length are read: a high word that is not zero means
// the length is past the axis (or negative, for signed lengths), never a small value.
fn lane_length(index: u32, n: u32) -> u32 {
    let lo = lengths[index * LEN_WORDS];
    var hi = 0u;
    if (LEN_WORDS == 2u) {
        hi = lengths[index * LEN_WORDS + 1u];
    }
    let top = select(lo, hi, LEN_WORDS == 2u);
    let negative = LEN_SIGNED && bitcast<i32>(top) < 0;
    return select(select(min(lo, n), n, hi != 0u), 0u, negative);
}

// A windowed dispatch's source: the offset, from the start of the input binding,
// of the input at axis position `s` and offset `rest` (from the piece's origin)
// along the other dimensions; `in_axis` is the axis stride. Past the binding's end
// (2^32 - 1) where the dispatch leaves the source to another.
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
