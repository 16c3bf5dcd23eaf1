// `general`, elements of 1 or 2 bytes: one invocation per 32-bit word of the output
// span. Each word has exactly one writer. A word whose bytes all belong to output
// elements is stored whole; one with bytes that no output element addresses
// (stride gaps, the tail past the last element) is read first so that those go
// back unchanged, and a word with no element in it is not stored at all. Runs
// every layout.
#import shared/params
#import shared/lengths
#import shared/storage_words

// Bytes per element: 1 or 2.
override ELEM_BYTES: u32;

// Derived from ELEM_BYTES; never set by the host.
override ELEMS_PER_WORD: u32 = 4u / ELEM_BYTES;
override ELEM_BITS: u32 = ELEM_BYTES * 8u;
override ELEM_MASK: u32 = (1u << ELEM_BITS) - 1u;


@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let w = invocation_index(group, groups, local);
    if (w >= params.count) {
        return;
    }

    var word = 0u;
    // The bits of the word that output elements fill.
    var filled = 0u;
    // The last length and input word loaded, and where from: neighbouring
    // elements of a word mostly share a lane and a source word, so a slot loads
    // only what the one before did not (past 1 in 4 loads for 1-byte rows).
    var length_at = ELSEWHERE;
    var length = 0u;
    var source_word_at = ELSEWHERE;
    var source_word = 0u;
    for (var slot = 0u; slot < ELEMS_PER_WORD; slot++) {
        // Which output element, if any, sits at this element offset? Canonical
        // output strides nest (each exceeds the span of all smaller ones), so the
        // coordinates fall out of dividing by each stride in turn; the offset is an
        // element exactly when every coordinate is in range and nothing is left.
        // Out-of-range coordinates are clamped so that no read leaves its tensor.
        // Element offsets count from the piece's origin, `out_shift` elements into
        // the binding (a windowed dispatch's piece may start mid-word).
        let position = w * ELEMS_PER_WORD + slot;
        var rem = position - params.out_shift;
        var is_element = position >= params.out_shift;
        var in_offset = 0u;
        var len_offset = 0u;
        var t = 0u;
        for (var d = 0u; d < RANK; d++) {
            let stride = out_stride_at(d);
            let size = size_at(d);
            let split = divmod(rem, params.out_stride_divisors[d]);
            let q = split.quotient;
            rem = split.remainder;
            is_element = is_element && q < size;
            let i = min(q, size - 1u);
            if (d == AXIS) {
                t = i;
            } else {
                in_offset += i * in_stride_at(d);
                len_offset += i * len_stride_at(d);
            }
        }
        is_element = is_element && rem == 0u;

        if (params.len_shift + len_offset != length_at) {
            length_at = params.len_shift + len_offset;
            length = clamped_lane_length(length_at, params.axis_size);
        }
        let s = mirrored(params.axis_start + t, length);
        // Only sources this dispatch's input binding holds; an element whose source
        // lies in another window is written by that window's dispatch.
        let source = windowed_source(in_offset, s, in_stride_at(AXIS));
        is_element = is_element && source != ELSEWHERE;
        let offset = select(0u, source, is_element);
        if (offset / ELEMS_PER_WORD != source_word_at) {
            source_word_at = offset / ELEMS_PER_WORD;
            source_word = load_word(source_word_at);
        }
        let value = (source_word >> ((offset % ELEMS_PER_WORD) * ELEM_BITS)) & ELEM_MASK;
        let shift = slot * ELEM_BITS;
        word |= select(0u, value << shift, is_element);
        filled |= select(0u, ELEM_MASK << shift, is_element);
    }
    if (filled == 0u) {
        return;
    }
    if (filled != 0xFFFFFFFFu) {
        word |= load_output_word(w) & ~filled;
    }
    store_word(w, word);
}
