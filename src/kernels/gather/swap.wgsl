// `gather` in place on a CPU adapter (`docs/in-place.md`): the length changes along
// the contiguous innermost dimension, so each element of a vector column is a lane
// of its own. One invocation owns a vector column of a run over the whole axis and
// walks its positions while any of its lanes has a pair there: the vector at `t`
// is loaded and stored once, and each lane with a pair at `t` swaps its element
// with the vector at `L - 1 - t`, loading and storing that vector with its other
// elements as they are; where every lane has the same length, the two vectors
// swap whole. Owning the column, the invocation races with no other.
#import shared/element_lengths

// Lane `e`'s length among `l`'s.
fn length_of(l: Lengths, e: u32) -> u32 {
    let four = select(select(select(l.a, l.b, e >= 4u), l.c, e >= 8u), l.d, e >= 12u);
    return four[e & 3u];
}

// The bits of a vector that element `e` holds.
fn element_mask(e: u32) -> vec4<u32> {
    let words = vec4(0i, 4i, 8i, 12i);
    let first = i32(e * ELEM_BYTES);
    let lo = clamp(vec4(first) - words, vec4(0i), vec4(4i));
    let hi = clamp(vec4(first + i32(ELEM_BYTES)) - words, vec4(0i), vec4(4i));
    let bytes = vec4<u32>(hi - lo);
    let ones = select((vec4(1u) << (bytes * 8u)) - 1u, vec4(0xFFFFFFFFu), bytes == vec4(4u));
    return ones << (vec4<u32>(lo) * 8u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = invocation_index(group, groups, local);
    let split = divmod(id, params.vecs);
    let o = outer(split.quotient, false);
    if (id >= params.count) {
        return;
    }
    let axis = out_stride_at(AXIS);
    let element = split.remainder * ELEMS_PER_VEC;
    let l = vector_lengths(o.len_offset, element, len_stride_at(RANK - 1u), params.axis_size);
    let top = longest(l);
    let base = o.out_offset + element;
    // Lanes of one length (L = n, say) swap whole vectors.
    var same = true;
    for (var e = 0u; e < ELEMS_PER_VEC; e++) {
        same = same && length_of(l, e) == top;
    }
    for (var t = 0u; 2u * t + 1u < top; t++) {
        let at = vec_index(base + t * axis);
        var front = load_output_vec(at);
        if (same) {
            let back_at = vec_index(base + (top - 1u - t) * axis);
            store_vec(at, load_output_vec(back_at));
            store_vec(back_at, front);
            continue;
        }
        // A constant trip count, so that the loop unrolls.
        for (var e = 0u; e < ELEMS_PER_VEC; e++) {
            let len = length_of(l, e);
            if (2u * t + 1u < len) {
                let back_at = vec_index(base + (len - 1u - t) * axis);
                let back = load_output_vec(back_at);
                let mask = element_mask(e);
                store_vec(back_at, (back & ~mask) | (front & mask));
                front = (front & ~mask) | (back & mask);
            }
        }
        store_vec(at, front);
    }
}
