// `general`, elements of 4, 8 or 16 bytes: one invocation per output element,
// copying its 32-bit words. Elements never share a word, so every write is a plain
// store. Runs every layout.
#import shared/params
#import shared/lengths
#import shared/storage_words

// 32-bit words per element: 1, 2 or 4.
override ELEM_WORDS: u32;

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

    // The invocation index is the element's row-major position in the canonical
    // layout; peel its coordinates off from the innermost dimension outwards.
    var rem = id;
    var out_offset = 0u;
    var in_offset = 0u;
    var len_offset = 0u;
    var t = 0u;
    for (var k = 0u; k < RANK; k++) {
        let d = RANK - 1u - k;
        let q = divide(rem, params.size_divisors[d]);
        let i = rem - q * size_at(d);
        rem = q;
        out_offset += i * out_stride_at(d);
        if (d == AXIS) {
            t = i;
        } else {
            in_offset += i * in_stride_at(d);
            len_offset += i * len_stride_at(d);
        }
    }

    let s = mirrored(params.axis_start + t, lane_length(params.len_shift + len_offset, params.axis_size));
    // A windowed dispatch writes only the elements whose source its input binding
    // holds; another dispatch writes the rest.
    in_offset = windowed_source(in_offset, s, in_stride_at(AXIS));
    if (in_offset == ELSEWHERE) {
        return;
    }
    out_offset += params.out_shift;
    for (var w = 0u; w < ELEM_WORDS; w++) {
        store_word(out_offset * ELEM_WORDS + w, load_word(in_offset * ELEM_WORDS + w));
    }
}
