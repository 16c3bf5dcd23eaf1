// The reversed axis outside a contiguous innermost dimension along which the length
// does not change (`Runs`; ONNX's [batch, time, ...] and [time, batch, ...]): a whole
// run of the innermost dimension moves as one from its mirrored position, so each
// invocation copies STEPS vectors (16-byte, or words) of one run. Groups of
// `params.lanes` invocations share `lanes * STEPS` consecutive vectors, invocation
// i of a group taking every `lanes`-th from the group's i-th: on a CPU adapter the
// lanes run in step then touch consecutive vectors (`RUN_LANES` in `src/plan.rs`);
// with one lane each invocation's vectors are consecutive.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    place: Place,
) {
    let id = invocation_index(group, groups, place.local);
    // Before the return: `row_length` may read other lanes.
    let run = divide(id, params.segments);
    let o = outer(run, true);
    let len = row_length(o.len_offset, params.axis_size, place, id < params.count);
    if (id >= params.count) {
        return;
    }
    let in_run = id - run * params.segments.value;
    // Lanes are a power of two: shifts, not per-lane divisions.
    let lanes = params.lanes;
    let lane_group = in_run >> countTrailingZeros(lanes);
    let first = lane_group * lanes * STEPS + (in_run & (lanes - 1u));
    // A windowed dispatch may hold a part of the axis from `axis_start` on, and
    // input windows of whole axis positions: it copies only the runs whose source
    // position its input binding holds (`src/window.rs`). One dispatch of the
    // whole tensor holds every position and source.
    let s = mirrored(params.axis_start + o.t, len);
    let source = windowed_source(o.in_offset - params.in_shift, s, in_stride_at(AXIS));
    if (source == ELSEWHERE) {
        return;
    }
    let src_run = vec_index(source);
    let dst_run = vec_index(o.out_offset + o.t * out_stride_at(AXIS));
    // A constant trip count, so that the loop unrolls; the bound is a mask.
    for (var k = 0u; k < STEPS; k++) {
        let j = first + k * lanes;
        if (j < params.vecs) {
            dst[dst_run + j] = src[src_run + j];
        }
    }
}
