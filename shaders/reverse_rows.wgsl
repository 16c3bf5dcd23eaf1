// The reversed axis innermost and contiguous in input and output (`Rows`): each
// invocation writes STEPS consecutive vectors of one row.
//
// Output vector j of a row holds the row's bytes [16j, 16j + 16). With LB the lane's
// length in bytes, its reversed bytes (those below LB) come from the 16 bytes that
// start at LB - 16(j + 1), read backwards element by element. That window straddles
// two aligned source vectors and starts `LB mod 16` bytes into the lower one, the
// same shift for the whole row; walking j upwards walks the source downwards, so each
// step loads one new vector and reuses the previous one as its upper half. Bytes at
// or past LB are copied from source vector j, which is what the step loads once the
// reversed part is behind it.
//
// The window computes on 32-bit words, loaded and stored through `load_vec` and
// `store_vec`: 16-byte vectors of four words (`bind_vec4.wgsl`), or of two 64-bit
// words split in registers on a CPU adapter that has them (`bind_vec2_u64.wgsl`,
// 1- to 4-byte elements; 8- and 16-byte ones take `reverse_rows_64.wgsl`).
//
// Where the time goes on lavapipe, against the benchmark's copy kernel (`innermost`,
// 1- to 16-byte elements, four alternating rounds of stripped builds): this kernel
// reduced to copying its STEPS vectors in order (no lengths, no mirror) took 1.15×
// the copy's time; loading the length, the first window and the mirrored vectors
// but storing them unchanged, 1.28×; the whole kernel, 1.45×. No length load at all
// (a length made up from the row) saved 5%. Above the in-order copy, then, about
// half the cost is the mirrored memory pattern and half the funnel, reversal and
// selects, which every vector runs.

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
        return v; // element-aligned windows never split a word
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
    let work = segment(id);
    let first = work.first;
    let last = work.last;
    let o = outer(work.row, false);
    let in_row = vec_index(o.in_offset);
    let out_row = vec_index(o.out_offset);

    // Row bytes are below 2^32, so none of this overflows.
    let lb = lane_length(o.len_offset, size_at(AXIS)) * ELEM_BYTES;
    let shift = lb & 15u;
    // Words of the row below LB / 4 are wholly reversed and those above wholly
    // copied; word LB / 4 has its first LB mod 4 bytes reversed (1- and 2-byte
    // elements). Comparing word indices keeps the per-vector work to a compare and
    // a select.
    let reversed_words = vec4(lb >> 2u);
    let straddling = vec4((1u << ((lb & 3u) * 8u)) - 1u);
    // The upper half of the first window (`window_top`). Rows of 16-byte elements
    // never use it (their shift is 0), yet skipping the load measured no faster on
    // lavapipe: the cost there is each invocation's first touch of its cache lines,
    // which the next load then pays instead (a profile put 10% of the kernel's
    // samples on this load, against 1-3% on each later one).
    var hi = load_vec(in_row + window_top(first, lb));
    // A constant trip count, so that the loop unrolls; the bound is a mask.
    for (var k = 0u; k < STEPS; k++) {
        let j = first + k;
        if (j < last) {
            let x = load_vec(in_row + window_source(j, lb));
            let reversed = reverse_elements(funnel(x, hi, shift));
            let words = vec4(4u * j) + vec4(0u, 1u, 2u, 3u);
            var copied = x;
            if (ELEM_BYTES < 4u) {
                let mask = select(vec4(0u), straddling, words == reversed_words);
                copied = (reversed & mask) | (x & ~mask);
            }
            store_vec(out_row + j, select(copied, reversed, words < reversed_words));
            hi = x;
        }
    }
}
