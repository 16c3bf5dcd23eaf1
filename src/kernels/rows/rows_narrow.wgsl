// `rows` on 32-bit words, for rows that are whole words but not whole 16-byte
// vectors (`shared/storage_words.wgsl`): each invocation writes STEPS
// consecutive words of one row.
//
// Elements of 4 bytes and wider span whole words: output word j is word j mod W of
// element t = j / W (W words per element), read from the same word of the mirrored
// element. Narrower elements share words, so the span of `rows/segments.wgsl`
// applies at word size: the reversed bytes of output word j start at LB - 4(j + 1),
// straddling two source words `LB mod 4` bytes in.
#import rows/segments
#import rows/mirror_narrow

// Words per element, for elements of 4 bytes and wider.
override ELEM_WORDS: u32 = max(ELEM_BYTES / 4u, 1u);

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
    let in_row = vec_index(o.in_offset);
    let out_row = vec_index(o.out_offset);
    let len = lane_length(o.len_offset, n);

    if (ELEM_BYTES >= 4u) {
        // A constant trip count, so that the loop unrolls; the bound is a mask.
        for (var k = 0u; k < STEPS; k++) {
            let j = first + k;
            if (j < last) {
                let t = j / ELEM_WORDS;
                let mirror = (len - 1u - t) * ELEM_WORDS + (j - t * ELEM_WORDS);
                store_word(out_row + j, load_word(in_row + select(j, mirror, t < len)));
            }
        }
        return;
    }

    // Row bytes are below 2^32, so none of this overflows.
    let lb = len * ELEM_BYTES;
    let shift = lb & 3u;
    // Word LB / 4 straddles LB: its first LB mod 4 bytes are reversed, the rest
    // copied; the shift is at most 3 bytes, so the mask's shift stays below 32.
    let straddling = (1u << (shift * 8u)) - 1u;
    var hi = load_word(in_row + span_top(work, lb));
    for (var k = 0u; k < STEPS; k++) {
        let j = first + k;
        if (j < last) {
            let reversed_only = 4u * (j + 1u) <= lb;
            let x = load_word(in_row + span_source(j, lb));
            let reversed = reverse_in_word(funnel_word(x, hi, shift));
            let mask = select(select(0u, straddling, 4u * j < lb), 0xFFFFFFFFu, reversed_only);
            store_word(out_row + j, (reversed & mask) | (x & ~mask));
            hi = x;
        }
    }
}
