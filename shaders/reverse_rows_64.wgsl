// `Rows` on 16-byte vectors of two 64-bit words, for elements of 8 and 16 bytes on
// a CPU adapter whose device has SHADER_INT64 (`Plan::word_bits`): the window of
// `reverse_rows.wgsl` at word size 8. An element spans whole 64-bit words, so the
// window starts 0 or 8 bytes into the lower source vector and moves whole words:
// selects and swizzles, no shifts. 4-byte elements computed this way (a 32-bit
// funnel shift across 64-bit words) took 0.985× the time of the split path of
// `reverse_rows.wgsl` on lavapipe (four alternating rounds), too little to give
// up that path's whole rows for. Nor did the split cost much there, unlike in
// `reverse_columns.wgsl`: with the funnel and reversal as a rotation or a blend of
// halves (shuffles, not shifts), 4-byte `innermost` took 0.989× the time, and
// 0.986× at 16 vectors an invocation (eight alternating rounds).

// The 16 bytes that start `shift` (0 or 8) bytes into `lo`, continuing into `hi`.
fn funnel64(lo: vec2<u64>, hi: vec2<u64>, shift: u32) -> vec2<u64> {
    return select(lo, vec2(lo.y, hi.x), (shift & 8u) != 0u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    place: Place,
) {
    let id = invocation_index(group, groups, place.local);
    // Before the return, so that their loads of `params` are scalar
    // (`invocation_index`).
    let work = segment(id);
    let first = work.first;
    let last = work.last;
    let o = outer(work.row, false);
    let n = size_at(AXIS);
    let len = row_length(o.len_offset, n, place, id < params.count);
    if (id >= params.count) {
        return;
    }
    let in_row = vec_index(o.in_offset);
    let out_row = vec_index(o.out_offset);

    // As in `reverse_rows.wgsl`, on 64-bit words: the row's words below LB / 8 are
    // reversed, the rest copied.
    let lb = len * ELEM_BYTES;
    let shift = lb & 15u;
    let reversed_words = vec2(lb >> 3u);
    // The upper half of the first window (`window_top`), as in
    // `reverse_rows.wgsl`: only its first word, only where the shift is 8 and
    // `first` is not wholly copied, and never for 16-byte elements (shift 0).
    // On lavapipe this took 0.98× the time of loading the whole vector for every
    // row (8- and 16-byte `innermost` and `strided`, three alternating rounds,
    // faster in 8 of 12), and 0.98× that of loading the word where the shift is 0
    // too.
    var hi = vec2(0lu);
    if (ELEM_BYTES < 16u && 16u * first < lb && shift != 0u) {
        hi.x = src[in_row + window_top(work, lb)].x;
    }
    // A constant trip count, so that the loop unrolls; the bound is a mask, and
    // none where every segment is full.
    for (var k = 0u; k < STEPS; k++) {
        let j = first + k;
        if (FULL_SEGMENTS || j < last) {
            let x = src[in_row + window_source(j, lb)];
            var reversed = funnel64(x, hi, shift);
            if (ELEM_BYTES == 8u) {
                reversed = reversed.yx;
            }
            let words = vec2(2u * j) + vec2(0u, 1u);
            dst[out_row + j] = select(x, reversed, words < reversed_words);
            hi = x;
        }
    }
}
