// The per-element lengths of a vector, for the families whose lengths change along
// the innermost dimension (`gather`, `columns`).
#import shared/vectors

// Lengths of elements `first`..`first + 3` of a column; only the first `count` (a
// constant) are read, so that no read leaves the lengths tensor.
fn lengths4(len_offset: u32, first: u32, stride: u32, n: u32, count: u32) -> vec4<u32> {
    var lens = vec4(clamped_lane_length(len_offset + first * stride, n), 0u, 0u, 0u);
    if (count >= 2u) {
        lens.y = clamped_lane_length(len_offset + (first + 1u) * stride, n);
    }
    if (count >= 4u) {
        lens.z = clamped_lane_length(len_offset + (first + 2u) * stride, n);
        lens.w = clamped_lane_length(len_offset + (first + 3u) * stride, n);
    }
    return lens;
}

// `mirrored` (`shared/params.wgsl`) for four elements at axis position `t` with
// lengths `lens`.
fn mirrored4(t: u32, lens: vec4<u32>) -> vec4<u32> {
    return select(vec4(t), lens - 1u - t, vec4(t) < lens);
}

// The lengths of the elements of one vector, four per vec4; those past the
// vector's elements stay 0 and unread.
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

// The longest of a vector's lengths (those past its elements are 0).
fn longest(l: Lengths) -> u32 {
    let most = max(max(l.a, l.b), max(l.c, l.d));
    return max(max(most.x, most.y), max(most.z, most.w));
}
