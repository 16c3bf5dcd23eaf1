// Mirroring on 16-byte vectors, for `rows/rows.wgsl` and `rows/window.wgsl`: the
// span of `rows/segments.wgsl` funnelled out of two aligned vectors, its elements
// reversed, and the `Lane` view of the storage through which `rows/window.wgsl`
// moves them (`rows/mirror_narrow.wgsl` is its twin on 32-bit words).
#import shared/vectors

// The 16 bytes that start `shift` bytes into `lo`, continuing into `hi`.
fn funnel(lo: vec4<u32>, hi: vec4<u32>, shift: u32) -> vec4<u32> {
    let by2 = (shift & 8u) != 0u;
    let by1 = (shift & 4u) != 0u;
    // Whole words first: two, then one.
    let u = select(lo, vec4(lo.zw, hi.xy), by2);
    let u4 = select(hi.x, hi.z, by2);
    let u5 = select(hi.y, hi.w, by2);
    let v = select(u, vec4(u.yzw, u4), by1);
    if (ELEM_BYTES >= 4u) {
        return v; // element-aligned spans never split a word
    }
    let v4 = select(u4, u5, by1);
    let bits = (shift & 3u) * 8u;
    let joined = (v >> vec4(bits)) | (vec4(v.yzw, v4) << vec4((32u - bits) & 31u));
    return select(v, joined, bits != 0u);
}

// The elements of a vector in reverse order; bytes within an element keep theirs.
fn reverse_elements(v: vec4<u32>) -> vec4<u32> {
    switch ELEM_BYTES {
        case 1u: {
            let halves = (v >> vec4(16u)) | (v << vec4(16u));
            let bytes = ((halves >> vec4(8u)) & vec4(0x00FF00FFu)) | ((halves << vec4(8u)) & vec4(0xFF00FF00u));
            return bytes.wzyx;
        }
        case 2u: {
            return ((v >> vec4(16u)) | (v << vec4(16u))).wzyx;
        }
        case 4u: {
            return v.wzyx;
        }
        case 8u: {
            return v.zwxy;
        }
        default: {
            return v;
        }
    }
}

alias Lane = vec4<u32>;

fn load_lane(i: u32) -> Lane {
    return load_vec(i);
}

fn store_lane(i: u32, v: Lane) {
    store_vec(i, v);
}

fn load_output_lane(i: u32) -> Lane {
    return load_output_vec(i);
}

// The elements of the span that starts `shift` bytes into `lo`, reversed.
fn mirror_span(lo: Lane, hi: Lane, shift: u32) -> Lane {
    return reverse_elements(funnel(lo, hi, shift));
}

// The first `bytes` bytes of `reversed`, then the rest of `copied`.
fn keep_below(reversed: Lane, copied: Lane, bytes: u32) -> Lane {
    let words = vec4(0u, 1u, 2u, 3u);
    let part = vec4((1u << ((bytes & 3u) * 8u)) - 1u);
    let whole = vec4(bytes / 4u);
    let mask = select(select(vec4(0u), part, words == whole), vec4(0xFFFFFFFFu), words < whole);
    return (reversed & mask) | (copied & ~mask);
}
