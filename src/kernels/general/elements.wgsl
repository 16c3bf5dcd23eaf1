// `general`, elements of 4, 8 or 16 bytes: one invocation per output element,
// which it loads and stores whole, as one word, `vec2` or `vec4` (the `storage`
// slot), so that a warp's stores of neighbouring elements fill whole sectors.
// Elements never share a word, so every write is a plain store. Runs every layout.
#import shared/params
#import shared/lengths
#import storage

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
        let split = divmod(rem, params.size_divisors[d]);
        let i = split.remainder;
        rem = split.quotient;
        out_offset += i * out_stride_at(d);
        if (d == AXIS) {
            t = i;
        } else {
            in_offset += i * in_stride_at(d);
            len_offset += i * len_stride_at(d);
        }
    }

    let s = mirrored(params.axis_start + t, clamped_lane_length(params.len_shift + len_offset, params.axis_size));
    // A windowed dispatch writes only the elements whose source its input binding
    // holds; another dispatch writes the rest.
    in_offset = windowed_source(in_offset, s, in_stride_at(AXIS));
    if (in_offset == ELSEWHERE) {
        return;
    }
    out_offset += params.out_shift;
    store_vector(out_offset, load_vector(in_offset));
}
