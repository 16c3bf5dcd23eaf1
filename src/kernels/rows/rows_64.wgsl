// `rows` on 16-byte vectors of two 64-bit words (`shared/storage_u64.wgsl`), for
// elements of 8 and 16 bytes on a CPU adapter whose device has SHADER_INT64: the
// span of `rows/segments.wgsl` at word size 8. An element spans whole 64-bit words,
// so a span starts 0 or 8 bytes into its lower source vector and moves whole
// words: selects and swizzles, no shifts.
#import rows/segments

// The 16 bytes that start `shift` (0 or 8) bytes into `lo`, continuing into `hi`.
fn funnel64(lo: vec2<u64>, hi: vec2<u64>, shift: u32) -> vec2<u64> {
    return select(lo, vec2(lo.y, hi.x), (shift & 8u) != 0u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = invocation_index(group, groups, local);
    // Before the return, so that their loads of `params` are scalar on lavapipe.
    let work = segment(id);
    let first = work.first;
    let last = work.last;
    let o = outer(work.row, false);
    let n = size_at(AXIS);
    if (id >= params.count) {
        return;
    }
    let len = lane_length(o.len_offset, n);
    let in_row = vec_index(o.in_offset);
    let out_row = vec_index(o.out_offset);

    // As in `rows/rows.wgsl`, on 64-bit words: the row's words below LB / 8 are
    // reversed, the rest copied.
    let lb = len * ELEM_BYTES;
    let shift = lb & 15u;
    let reversed_words = vec2(lb >> 3u);
    // The top of the first span (`span_top`): only its first word, only where the
    // shift is 8 and `first` is not wholly copied, and never for 16-byte elements
    // (shift 0).
    var hi = vec2(0lu);
    if (ELEM_BYTES < 16u && 16u * first < lb && shift != 0u) {
        hi.x = load_half(in_row + span_top(work, lb), 0u);
    }
    // A constant trip count, so that the loop unrolls; the bound is a mask.
    for (var k = 0u; k < STEPS; k++) {
        let j = first + k;
        if (j < last) {
            let x = load_vector(in_row + span_source(j, lb));
            var reversed = funnel64(x, hi, shift);
            if (ELEM_BYTES == 8u) {
                reversed = reversed.yx;
            }
            let words = vec2(2u * j) + vec2(0u, 1u);
            store_vector(out_row + j, select(x, reversed, words < reversed_words));
            hi = x;
        }
    }
}
