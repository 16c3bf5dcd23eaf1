// The reversed axis outside a contiguous innermost dimension along which the length
// changes from element to element (`Gather`): each element of an output vector may
// come from another position along the axis, so the vector is gathered element by
// element. Each invocation owns one vector column and STEPS positions along the
// axis, loading the column's lengths once for all of them (`gather_column` in
// `vectors.wgsl` orders the invocations).
//
// The column's lengths live in four vec4 (no private array, whose dynamic indexing
// a CPU adapter turns into per-lane memory traffic), four elements' sources are
// computed at once, and every index into a vector is a constant: every stride but
// the innermost is a whole number of vectors (the plan's condition), so element i
// of a column lies at the same place in its input vector, whatever the position it
// comes from. It reads 32-bit words, whichever words the bindings hold
// (`load_word`, `load_pair`, `load_vec`).
//
// Gathering, not scattering: reading input positions in order and storing each
// element at its mirrored position moves the random accesses from loads to
// stores, and measured no faster on a CPU adapter (4- and 16-byte elements). Nor
// with the workgroup in step as `Columns` keeps it: 16-byte elements loaded in
// blocks of 8 rows, a workgroup barrier between blocks, each stored at its mirrored
// row, took 3.3-4.2× the copy kernel's time on lavapipe (`middle`, `outermost`),
// against 1.6-2.3× for this kernel.
//
// A column in registers is `Columns` (`reverse_columns.wgsl`), which a CPU adapter
// runs along axes of up to 64 positions; this kernel takes longer axes there, and
// every axis on a GPU. An earlier column kernel, with its network in private
// arrays and without `Columns`' workgroup barriers, took 9-11× the copy kernel's
// time on lavapipe (4-byte elements, an axis of 64), against 3-3.7× here.
//
// Nor loading the lengths as vectors where they are contiguous: a build that
// computed its lengths without loading any measured no faster on lavapipe (2- and
// 4-byte elements), so what remains is the gathers and the order of the stores.
//
// Nor skipping the gathers of elements that are not reversed, taking them from the
// vector at the output's own position (one load): a CPU adapter's load walks every
// lane whether or not the lane loads, so 1-byte elements measured 12-26% slower on
// lavapipe. Nor a texture for the input: on lavapipe a probe's 4-byte gathers took
// about as long from a `texture_2d<u32>` as from a storage buffer (1.5-1.65× against
// 1.55-1.7× a copy kernel, the source in cache), before any copy into the texture.
// Nor a uniform buffer, though Mesa 22.3's lavapipe gathers from one 2.3-4.7× faster
// than from storage or workgroup memory (a probe of random in-cache 4-byte gathers:
// 0.22-0.28 ns against 0.63-1.07 ns a gather): a binding holds 64 KiB, and a band's
// rows lie a row stride apart. A probe that packed each band of 1-byte `outermost`
// contiguously (one dispatch, 1.2-1.8× a copy kernel) and gathered from it through
// 64 KiB windows, a dispatch each, took 0.55-1.09× the time of the same probe
// gathering from storage (9 rounds; 4.8-12.6× the copy kernel): its 256 dispatches,
// one per 64 KiB of the 16 MiB tensor, took 2-2.8× a copy kernel's time when empty.
// Nor transposing so that the axis becomes innermost, for the `rows` kernel: a
// 16×16-byte tile transpose through registers alone took 2.6-3.4× a copy kernel on
// lavapipe (2.9-3.1× without its byte shuffles: the 16-byte pieces a row apart cost
// it), and the reversal would need two.
//
// Where the time goes on lavapipe: with every element's length the same (all 0 or
// all of the axis), so that a vector's elements come from one source vector and
// the blocks read rows in order, this kernel still took 6-6.5× a copy kernel's
// time for 1-byte elements, 3.4-3.6× for 2, 2.1-2.25× for 4, 2-2.1× for 8 and
// 1.4-1.55× for 16 bytes; lengths that differ from element to element cost
// 1.1-1.35× more. The number of loads, one per element, bounds the narrow
// elements, not the order in which they touch memory.

// The input vectors that four elements of the column at axis position `t` come
// from, the first element at input element `base` when not reversed.
fn vectors4(base: u32, t: u32, lens: vec4<u32>, in_axis: u32) -> vec4<u32> {
    return (base + mirrored4(t, lens) * in_axis) / ELEMS_PER_VEC;
}

// Four 1-byte elements from vectors `v`, the first in byte 0 of word `w`.
fn bytes4(v: vec4<u32>, w: u32) -> u32 {
    return (load_word(v.x, w) & 0xFFu) | (load_word(v.y, w) & 0xFF00u) | (load_word(v.z, w) & 0xFF0000u)
        | (load_word(v.w, w) & 0xFF000000u);
}

// Four 2-byte elements from vectors `v`, the first in the low half of word `w`.
fn halves4(v: vec4<u32>, w: u32) -> vec2<u32> {
    return vec2(
        (load_word(v.x, w) & 0xFFFFu) | (load_word(v.y, w) & 0xFFFF0000u),
        (load_word(v.z, w + 1u) & 0xFFFFu) | (load_word(v.w, w + 1u) & 0xFFFF0000u),
    );
}

// The output vector at axis position `t` whose first element is input element
// `base` when not reversed; `l` holds the lengths of its elements.
fn gather(base: u32, t: u32, l: Lengths, in_axis: u32) -> vec4<u32> {
    switch ELEM_BYTES {
        case 1u: {
            return vec4(
                bytes4(vectors4(base, t, l.a, in_axis), 0u),
                bytes4(vectors4(base, t, l.b, in_axis), 1u),
                bytes4(vectors4(base, t, l.c, in_axis), 2u),
                bytes4(vectors4(base, t, l.d, in_axis), 3u),
            );
        }
        case 2u: {
            return vec4(halves4(vectors4(base, t, l.a, in_axis), 0u), halves4(vectors4(base, t, l.b, in_axis), 2u));
        }
        case 4u: {
            let v = vectors4(base, t, l.a, in_axis);
            return vec4(load_word(v.x, 0u), load_word(v.y, 1u), load_word(v.z, 2u), load_word(v.w, 3u));
        }
        case 8u: {
            let v = vectors4(base, t, l.a, in_axis);
            return vec4(load_pair(v.x, 0u), load_pair(v.y, 1u));
        }
        default: {
            return load_vec(vectors4(base, t, l.a, in_axis).x);
        }
    }
}

// The vector at position `k` of the block of `work`, or at the block's last
// position where the block ends before `k` (so that its loads stay in the tensor).
fn gathered(work: Column, k: u32, base: u32, l: Lengths, in_axis: u32) -> vec4<u32> {
    return gather(base, min(work.first + k, work.last - 1u), l, in_axis);
}

// Stores `v` at position `k` of the block of `work`, if the block reaches it; `out`
// is the output element of the column at position 0.
fn put(work: Column, k: u32, out: u32, out_axis: u32, v: vec4<u32>) {
    let t = work.first + k;
    if (t < work.last) {
        store_vec(vec_index(out + t * out_axis), v);
    }
}

// Positions k..k+3 of the block of `work` (those of them below STEPS): `base` and
// `out` are the input and output elements of the column at position 0 when not
// reversed.
fn four(work: Column, k: u32, base: u32, out: u32, l: Lengths, in_axis: u32, out_axis: u32) {
    let v0 = gathered(work, k, base, l, in_axis);
    var v1 = v0;
    var v2 = v0;
    var v3 = v0;
    if (STEPS >= 2u) {
        v1 = gathered(work, k + 1u, base, l, in_axis);
    }
    if (STEPS >= 4u) {
        v2 = gathered(work, k + 2u, base, l, in_axis);
        v3 = gathered(work, k + 3u, base, l, in_axis);
    }
    put(work, k, out, out_axis, v0);
    if (STEPS >= 2u) {
        put(work, k + 1u, out, out_axis, v1);
    }
    if (STEPS >= 4u) {
        put(work, k + 2u, out, out_axis, v2);
        put(work, k + 3u, out, out_axis, v3);
    }
}

// A word of the input that the next band of columns will gather from (after a
// run's last band, the next run's first), at this invocation's place in it: one of
// the block's 4 positions, in the 64 bytes of 4 columns. Loaded ahead of the
// gathers, it brings the next band's input into the cache in a sequential order
// that the hardware's prefetchers follow; the gathers' own first touches of it
// would be in no order at all. WGSL has no prefetch, so the caller adds it to an
// index masked to 0 (`params.touch`), and a compiler keeps the load. Clamped into
// the input binding: past the tensor it loads a word of no use.
fn touch_ahead(work: Column, in_axis: u32) -> u32 {
    var start = work.o.in_offset;
    var column = work.column + params.band.value;
    if (work.band + 1u == params.bands.value) {
        start = outer(work.run + 1u, false).in_offset;
        column = work.column - work.band * params.band.value;
    }
    let element = start + (work.first + (work.column & 3u)) * in_axis + (column & ~3u) * ELEMS_PER_VEC;
    return load_word(min(vec_index(element), arrayLength(&src) - 1u), 0u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = invocation_index(group, groups, local);
    if (id >= params.count) {
        return;
    }
    let work = gather_column(id);
    if (work.column >= params.vecs) {
        return;
    }
    let o = work.o;
    let n = size_at(AXIS);
    let in_axis = in_stride_at(AXIS);
    let out_axis = out_stride_at(AXIS);
    let element = work.column * ELEMS_PER_VEC;
    let l = vector_lengths(o.len_offset, element, len_stride_at(RANK - 1u), n);
    var ahead = 0u;
    if (params.touch != 0u) {
        ahead = touch_ahead(work, in_axis) & ~params.touch;
    }
    let base = o.in_offset + element + ahead;
    let out = o.out_offset + element;
    if (ELEM_BYTES == 1u) {
        // 16 gathers a vector keep 1-byte elements bound by instructions, not
        // memory: for them a store after each gather measured 15-25% faster on
        // lavapipe than the order below (for 2-byte elements, 10% slower).
        for (var k = 0u; k < STEPS; k++) {
            let t = work.first + k;
            if (t >= work.last) {
                break;
            }
            store_vec(vec_index(out + t * out_axis), gather(base, t, l, in_axis));
        }
        return;
    }
    // Four positions at a time, their gathers before their stores. Most gathers miss
    // the cache (each element of a vector comes from its own row), and on a CPU
    // adapter each is a loop over the lanes: ahead of the stores, more misses are in
    // flight at once. On lavapipe this took 5-10% less time than a gather and a store
    // per position (2- to 16-byte elements, `middle` and `outermost`); eight at a
    // time was no faster.
    // A constant trip count, so that the loop unrolls.
    for (var k = 0u; k < STEPS; k += 4u) {
        four(work, k, base, out, l, in_axis, out_axis);
    }
}
