// `gather` on 32-bit words, for runs that are whole words but not whole 16-byte
// vectors (ONNX [time, batch] with an odd batch, say; `shared/storage_words.wgsl`).
// Each invocation owns one word column of a run and STEPS positions along the axis
// (`gather/blocks.wgsl`), loading the lengths of the column's elements once: one
// element for elements of 4 bytes and wider (the word is word `c mod W` of element
// `c / W`, W words per element), 2 or 4 for narrower ones.
#import gather/blocks

// Words per element (at least 1) and elements per word (at least 1).
override ELEM_WORDS: u32 = max(ELEM_BYTES / 4u, 1u);
override PER_WORD: u32 = max(4u / ELEM_BYTES, 1u);
// Every specialisation folds this, also those with wide elements that never use it.
override ELEM_BITS: u32 = min(ELEM_BYTES * 8u, 16u);

// Input element `x` of 1 or 2 bytes, as the low bits of a word.
fn narrow_element(x: u32) -> u32 {
    let word = load_word(x / PER_WORD);
    return (word >> ((x % PER_WORD) * ELEM_BITS)) & ((1u << ELEM_BITS) - 1u);
}

// For each of four adjacent elements at axis position `t`, the input element it
// reads, the first at `base` when not reversed.
fn sources(base: u32, t: u32, lens: vec4<u32>, in_axis: u32) -> vec4<u32> {
    return base + vec4(0u, 1u, 2u, 3u) + mirrored4(t, lens) * in_axis;
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
    let column = work.column;
    if (column >= params.vecs.value) {
        return;
    }
    let o = work.o;
    let n = size_at(AXIS);
    let stride = len_stride_at(RANK - 1u);
    let in_axis = in_stride_at(AXIS);
    let out_axis = out_stride_at(AXIS);
    // The column's first element, and the word within it (elements of 4 bytes and
    // wider).
    let element = select(column * PER_WORD, column / ELEM_WORDS, ELEM_BYTES >= 4u);
    let word_in_element = column - element * ELEM_WORDS;
    let lens = lengths4(o.len_offset, element, stride, n, min(PER_WORD, 4u));
    // A constant trip count, so that the loop unrolls; the bound is a break.
    for (var k = 0u; k < STEPS; k++) {
        let t = work.first + k;
        if (t >= work.last) {
            break;
        }
        let x = sources(o.in_offset + element, t, lens, in_axis);
        var word: u32;
        if (ELEM_BYTES >= 4u) {
            word = load_word(x.x * ELEM_WORDS + word_in_element);
        } else if (ELEM_BYTES == 2u) {
            word = narrow_element(x.x) | (narrow_element(x.y) << 16u);
        } else {
            word = narrow_element(x.x) | (narrow_element(x.y) << 8u) | (narrow_element(x.z) << 16u)
                | (narrow_element(x.w) << 24u);
        }
        store_word(vec_index(o.out_offset + t * out_axis) + column, word);
    }
}
