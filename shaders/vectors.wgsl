// Shared by the vector kernels (`Rows`, `Runs`, `Gather`, `Columns`), which move
// vectors of VEC_BYTES: 16 (`vec4<u32>`), or 4 (`u32`) for `Rows`, `Runs` and
// `Gather` whose rows or runs are whole words but not whole 16-byte vectors. One of
// `bind_vec4.wgsl` and `bind_word.wgsl` comes first, declaring VEC_BYTES and the
// input and output bindings. The plan picks a vector kernel only when the innermost
// dimension of the canonical layout is contiguous in input and output, a row or run
// of it is a whole number of vectors and every other stride keeps rows and runs
// aligned to VEC_BYTES, so that every vector a kernel stores lies inside the output
// tensor.

// Bytes per element: 1, 2, 4, 8 or 16.
override ELEM_BYTES: u32;
// Vectors (or axis positions, for `Gather`; rows of its column, for `Columns`) each
// invocation handles: several on a CPU adapter, where one invocation's loop reuses
// what it loaded; 1 on a GPU, where neighbouring invocations must touch
// neighbouring memory.
override STEPS: u32;

// Derived; never set by the host. At least 1, so that the constant stays valid in
// word kernels of wide elements, which never use it.
override ELEMS_PER_VEC: u32 = max(VEC_BYTES / ELEM_BYTES, 1u);

// Offsets (in elements) and the axis coordinate of one row or run of the innermost
// dimension: `index` in row-major order over every other dimension. The axis adds to
// no offset (the caller decides which position along it to use); `index` counts its
// positions where `whole_axis` (`Runs`), and one position of it where not
// (`Gather`, whose blocks along the axis come in another order).
struct Outer {
    out_offset: u32,
    in_offset: u32,
    len_offset: u32,
    t: u32,
}

fn outer(index: u32, whole_axis: bool) -> Outer {
    // Windowed dispatches (`src/window.rs`): offsets from the start of each binding.
    var o = Outer(params.out_shift, params.in_shift, params.len_shift, 0u);
    var rem = index;
    // Dimensions RANK-2 down to 0; the outermost takes what is left, undivided.
    for (var k = 2u; k <= RANK; k++) {
        let d = RANK - k;
        var i = rem;
        if (d == AXIS && !whole_axis) {
            i = 0u;
        } else if (d > 0u) {
            rem = divide(rem, params.size_divisors[d]);
            i -= rem * size_at(d);
        }
        if (d == AXIS) {
            o.t = i;
        } else {
            o.out_offset += i * out_stride_at(d);
            o.in_offset += i * in_stride_at(d);
            o.len_offset += i * len_stride_at(d);
        }
    }
    return o;
}

// Whether every `Rows` invocation writes STEPS vectors of its row (the steps divide
// a row's vectors), so that its loop needs no bound; the host sets it for the `Rows`
// kernels on 16-byte vectors. A bound is not free on lavapipe: every value a step
// assigns under it is blended with the lanes' masks, every load and store tests
// them. Without it, 4- to 16-byte `innermost` and `strided` rows (16 to 64
// vectors, 8 or 16 an invocation) took 0.98× the time (0.96–0.995× by row, three
// alternating rounds).
override FULL_SEGMENTS: bool = false;

// The work of one `Rows` invocation: its row (row-major over every dimension but
// the innermost), and the vectors [first, last) of it, STEPS at most, of the
// row's `vecs`.
struct Segment {
    row: u32,
    first: u32,
    last: u32,
    vecs: u32,
}

fn segment(id: u32) -> Segment {
    let row = divide(id, params.segments);
    let first = (id - row * params.segments.value) * STEPS;
    let vecs = params.vecs;
    return Segment(row, first, min(first + STEPS, vecs), vecs);
}

// `Rows`' sliding window (`reverse_rows.wgsl`), with LB the row's length in bytes:
// the vector that output vector `j` loads, the lower half of its window while it is
// wholly reversed (it ends at or below LB), `j` itself from there on.
fn window_source(j: u32, lb: u32) -> u32 {
    return select(j, lb / VEC_BYTES - j - 1u, VEC_BYTES * (j + 1u) <= lb);
}

// The upper half of the window of output vector `first`: the vector above its
// mirror while it is wholly reversed, `first` itself while it straddles LB (unused
// once it is wholly copied). Clamped into the row: with a shift of 0 it is not
// used, and may lie one past the row.
fn window_top(work: Segment, lb: u32) -> u32 {
    let first = work.first;
    return min(select(first, lb / VEC_BYTES - first, VEC_BYTES * first < lb), work.vecs - 1u);
}

// The work of one `Gather` invocation: a vector (or word) column of a run and the
// axis positions [first, last) of it, STEPS at most. Invocations in order: column
// within a band of `params.band` columns, block of STEPS positions
// (`params.segments` blocks), band, then the other dimensions. Neighbouring
// invocations take neighbouring columns, and a band's input stays in cache while
// its blocks walk the axis. The last band of a run may have idle invocations, whose
// column is `params.vecs` or more.
struct Column {
    o: Outer,
    column: u32,
    first: u32,
    last: u32,
    // The column's band within its run, and the run (the index `outer` took).
    band: u32,
    run: u32,
}

fn gather_column(id: u32) -> Column {
    // The block counted over every band and run, then the band over every run;
    // each remainder is what the quotient's multiple leaves.
    let any_block = divide(id, params.band);
    let in_band = id - any_block * params.band.value;
    let any_band = divide(any_block, params.segments);
    let block = any_block - any_band * params.segments.value;
    // The axis counts one position here: the block says which.
    let run = divide(any_band, params.bands);
    let band = any_band - run * params.bands.value;
    let first = block * STEPS;
    return Column(outer(run, false), band * params.band.value + in_band, first, min(first + STEPS, size_at(AXIS)), band, run);
}

// An element offset of a vector-aligned position, in vectors. Offsets in bytes stay
// below 2^32: every tensor fits MAX_TENSOR_BYTES.
fn vec_index(element_offset: u32) -> u32 {
    return element_offset * ELEM_BYTES / VEC_BYTES;
}

// For the gather kernels: lengths of elements `first`..`first + 3` of a column; only
// the first `count` (a constant) are read, so that no read leaves the lengths tensor.
fn lengths4(len_offset: u32, first: u32, stride: u32, n: u32, count: u32) -> vec4<u32> {
    var lens = vec4(lane_length(len_offset + first * stride, n), 0u, 0u, 0u);
    if (count >= 2u) {
        lens.y = lane_length(len_offset + (first + 1u) * stride, n);
    }
    if (count >= 4u) {
        lens.z = lane_length(len_offset + (first + 2u) * stride, n);
        lens.w = lane_length(len_offset + (first + 3u) * stride, n);
    }
    return lens;
}

// For the gather kernels: `mirrored` (`common.wgsl`) for four elements at axis
// position `t` with lengths `lens`.
fn mirrored4(t: u32, lens: vec4<u32>) -> vec4<u32> {
    return select(vec4(t), lens - 1u - t, vec4(t) < lens);
}

// For `Gather` on words: input element indices of four adjacent elements at axis
// position `t`, the first at `base` when not reversed.
fn sources(base: u32, t: u32, lens: vec4<u32>, in_axis: u32) -> vec4<u32> {
    return base + vec4(0u, 1u, 2u, 3u) + mirrored4(t, lens) * in_axis;
}

// For `Gather` and `Columns`: the lengths of the elements of one vector, four per
// vec4; those past the vector's elements stay 0 and unread.
struct Lengths {
    a: vec4<u32>,
    b: vec4<u32>,
    c: vec4<u32>,
    d: vec4<u32>,
}

// The lengths of the elements of the vector whose first element is `element`.
fn vector_lengths(len_offset: u32, element: u32, stride: u32, n: u32) -> Lengths {
    var l = Lengths(lengths4(len_offset, element, stride, n, min(ELEMS_PER_VEC, 4u)), vec4(0u), vec4(0u), vec4(0u));
    if (ELEMS_PER_VEC >= 8u) {
        l.b = lengths4(len_offset, element + 4u, stride, n, 4u);
    }
    if (ELEMS_PER_VEC == 16u) {
        l.c = lengths4(len_offset, element + 8u, stride, n, 4u);
        l.d = lengths4(len_offset, element + 12u, stride, n, 4u);
    }
    return l;
}
