// `gather`: the reversed axis outside a contiguous innermost dimension along which
// the length changes from element to element. Each element of an output vector may
// come from another position along the axis, so the vector is gathered element by
// element from the tensor. Each invocation owns one vector column and STEPS
// positions along the axis (`gather/blocks.wgsl`), loading the column's lengths
// once for all of them. This is the fallback for per-element lengths: every
// adapter runs `columns/columns.wgsl` along short axes.
//
// The column's lengths live in four vec4 (no private array, whose dynamic indexing
// a CPU adapter turns into per-lane memory traffic), four elements' sources are
// computed at once, and every index into a vector is a constant: every stride but
// the innermost is a whole number of vectors, so element i of a column lies at the
// same place in its input vector, whatever the position it comes from. It reads
// 32-bit words, whichever words the storage holds (`load_word`, `load_pair`,
// `load_vec`).
#import gather/blocks

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
fn gathered(work: Block, k: u32, base: u32, l: Lengths, in_axis: u32) -> vec4<u32> {
    return gather(base, min(work.first + k, work.last - 1u), l, in_axis);
}

// Stores `v` at position `k` of the block of `work`, if the block reaches it; `out`
// is the output element of the column at position 0.
fn put(work: Block, k: u32, out: u32, out_axis: u32, v: vec4<u32>) {
    let t = work.first + k;
    if (t < work.last) {
        store_vec(vec_index(out + t * out_axis), v);
    }
}

// Positions k..k+3 of the block of `work` (those of them below STEPS), their
// gathers before their stores, so that more of the gathers' misses are in flight
// at once: `base` and `out` are the input and output elements of the column at
// position 0 when not reversed.
fn four(work: Block, k: u32, base: u32, out: u32, l: Lengths, in_axis: u32, out_axis: u32) {
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
// gathers on a CPU adapter, it brings the next band's input into the cache in an
// order the hardware's prefetchers follow, where the gathers' own first touches
// come in none. WGSL has no prefetch, so the caller adds it to an index masked to
// 0 (`params.touch`), and a compiler keeps the load. Clamped into the input
// binding: past the tensor it loads a word of no use.
fn touch_ahead(work: Block, in_axis: u32) -> u32 {
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
    let work = gather_block(id);
    if (work.column >= params.vecs.value) {
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
        // memory: for them a store right after each gather is faster on a CPU
        // adapter than the order of `four`.
        for (var k = 0u; k < STEPS; k++) {
            let t = work.first + k;
            if (t >= work.last) {
                break;
            }
            store_vec(vec_index(out + t * out_axis), gather(base, t, l, in_axis));
        }
        return;
    }
    // A constant trip count, so that the loop unrolls.
    for (var k = 0u; k < STEPS; k += 4u) {
        four(work, k, base, out, l, in_axis, out_axis);
    }
}
