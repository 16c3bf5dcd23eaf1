// The reversed axis outside a contiguous innermost dimension along which the length
// changes from element to element (`Gather`): each element of an output vector may
// come from another position along the axis, so the vector is gathered element by
// element. Each invocation owns one vector column and STEPS positions along the
// axis, loading the column's lengths once for all of them (`gather_column` in
// `vectors.wgsl` orders the invocations).
//
// The column's lengths live in four vec4 (no private array, whose dynamic indexing
// a CPU adapter turns into per-lane memory traffic), four elements' sources are
// computed at once, and every index into a vector is a constant.

// Input element `x` of 1 or 2 bytes, as the low bits of a word.
fn narrow(x: u32, per_word: u32, bits: u32) -> u32 {
    let word = src[x / ELEMS_PER_VEC][(x / per_word) & 3u];
    return (word >> ((x % per_word) * bits)) & ((1u << bits) - 1u);
}

// A word of four 1-byte elements.
fn bytes4(x: vec4<u32>) -> u32 {
    return narrow(x.x, 4u, 8u) | (narrow(x.y, 4u, 8u) << 8u) | (narrow(x.z, 4u, 8u) << 16u)
        | (narrow(x.w, 4u, 8u) << 24u);
}

// Two words of two 2-byte elements each.
fn halves4(x: vec4<u32>) -> vec2<u32> {
    return vec2(
        narrow(x.x, 2u, 16u) | (narrow(x.y, 2u, 16u) << 16u),
        narrow(x.z, 2u, 16u) | (narrow(x.w, 2u, 16u) << 16u),
    );
}

// One 8-byte element: the two words it holds of an input vector.
fn pair(x: u32) -> vec2<u32> {
    let word = (x & 1u) * 2u;
    return vec2(src[x / 2u][word], src[x / 2u][word + 1u]);
}

// The output vector at axis position `t` whose first element is input element
// `base` when not reversed; la..ld hold the lengths of its elements, four each.
fn gather(base: u32, t: u32, la: vec4<u32>, lb: vec4<u32>, lc: vec4<u32>, ld: vec4<u32>, in_axis: u32) -> vec4<u32> {
    switch ELEM_BYTES {
        case 1u: {
            return vec4(
                bytes4(sources(base, t, la, in_axis)),
                bytes4(sources(base + 4u, t, lb, in_axis)),
                bytes4(sources(base + 8u, t, lc, in_axis)),
                bytes4(sources(base + 12u, t, ld, in_axis)),
            );
        }
        case 2u: {
            return vec4(halves4(sources(base, t, la, in_axis)), halves4(sources(base + 4u, t, lb, in_axis)));
        }
        case 4u: {
            let x = sources(base, t, la, in_axis);
            return vec4(src[x.x / 4u][x.x & 3u], src[x.y / 4u][x.y & 3u], src[x.z / 4u][x.z & 3u], src[x.w / 4u][x.w & 3u]);
        }
        case 8u: {
            let x = sources(base, t, la, in_axis);
            return vec4(pair(x.x), pair(x.y));
        }
        default: {
            return src[sources(base, t, la, in_axis).x];
        }
    }
}

// The lengths of the elements of the vector whose first element is `element`, four
// per vec4; those past the vector's elements stay 0 and unread.
struct Lengths {
    a: vec4<u32>,
    b: vec4<u32>,
    c: vec4<u32>,
    d: vec4<u32>,
}

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
    let first = o.t * STEPS;
    let last = min(first + STEPS, n);
    let in_axis = in_stride_at(AXIS);
    let out_axis = out_stride_at(AXIS);
    let element = work.column * ELEMS_PER_VEC;
    let l = vector_lengths(o.len_offset, element, len_stride_at(RANK - 1u), n);
    // A constant trip count, so that the loop unrolls; the bound is a mask.
    for (var k = 0u; k < STEPS; k++) {
        let t = first + k;
        if (t >= last) {
            break;
        }
        let v = gather(o.in_offset + element, t, l.a, l.b, l.c, l.d, in_axis);
        dst[vec_index(o.out_offset + t * out_axis + element)] = v;
    }
}
