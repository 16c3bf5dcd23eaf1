// `rows` in place on a CPU adapter (`docs/in-place.md`): one invocation walks one
// row from both ends, reversing the prefix of L elements where it lies, 16-byte
// vectors at a time. With LB = L bytes, q = LB / 16 and s = LB mod 16, the
// vectors the prefix touches are built as `rows/rows.wgsl` builds an output
// vector: vector j is the span of 16 bytes that ends 16j bytes before LB,
// mirrored, funnelled out of vectors q - j - 1 and q - j, its bytes at or past LB
// kept. Step k builds front vector k from back vectors q - k - 1 and q - k, and
// back vector (touched - 1 - k) from front vectors k - 1 and k: each step loads
// one front and one back vector, keeps the previous step's two in registers, and
// stores one of each, as a copy does. Where the steps meet, the back vector a
// step would load is the front vector the step before stored, which it still
// holds, and the last step of an odd count stores one vector. So the middle takes
// no code of its own: lavapipe runs every branch of its SIMD group, masked, for
// every row. An invocation owns its row, so its stores race with no other's.
#import rows/mirror

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = invocation_index(group, groups, local);
    let o = outer(id, false);
    if (id >= params.count) {
        return;
    }
    let len = lane_length(o.len_offset, params.axis_size);
    let row = vec_index(o.out_offset);
    let lb = len * ELEM_BYTES;
    let q = lb / 16u;
    let s = lb % 16u;
    // Vectors the first L elements touch; none where one element or none has
    // nothing to reverse.
    let touched = select(0u, (lb + 15u) / 16u, len > 1u);
    // Vector q - k as it was: the upper vector of front vector k's span.
    var upper = vec4(0u);
    if (touched > 0u && s != 0u) {
        upper = load_output_vec(row + q);
    }
    var front_before = vec4(0u);
    for (var k = 0u; 2u * k < touched; k++) {
        let front = load_output_vec(row + k);
        // The lower vector of front vector k's span, q - k - 1, unless the
        // steps have met and it is front vector k - 1, stored a step ago.
        var lower = front_before;
        if (q > 2u * k) {
            lower = load_output_vec(row + q - k - 1u);
        }
        // Back vector touched - 1 - k mirrors front vectors k - 1 and k (k
        // alone where s is 0). Where the steps meet, the two are one vector.
        let back = touched - 1u - k;
        let front_out = mirror_span(lower, upper, s);
        let back_out = mirror_span(select(front_before, front, s == 0u), front, s);
        // Vector touched - 1, stored at step 0, keeps its bytes at or past L.
        let kept = keep_below(select(back_out, front_out, back == k), upper, min(lb - 16u * back, 16u));
        store_vec(row + k, select(front_out, kept, back == k));
        if (back != k) {
            store_vec(row + back, kept);
        }
        front_before = front;
        upper = lower;
    }
}
