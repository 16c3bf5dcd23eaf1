// The reversed axis outside a contiguous innermost dimension along which the length
// does not change (`Runs`; ONNX's [batch, time, ...] and [time, batch, ...]): a whole
// run of the innermost dimension moves as one from its mirrored position, so each
// invocation copies STEPS vectors (16-byte, or words) of one run.

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
    let o = outer(work.run, size_at(AXIS));
    let s = mirrored(o.t, lane_length(o.len_offset, size_at(AXIS)));
    let in_run = vec_index(o.in_offset + s * in_stride_at(AXIS));
    let out_run = vec_index(o.out_offset + o.t * out_stride_at(AXIS));
    // A constant trip count, so that the loop unrolls; the bound is a mask.
    for (var k = 0u; k < STEPS; k++) {
        let j = first + k;
        if (j < last) {
            dst[out_run + j] = src[in_run + j];
        }
    }
}
