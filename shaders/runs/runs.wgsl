// `runs`: the reversed axis outside a contiguous innermost dimension along which
// the length does not change (ONNX's [batch, time, ...] and [time, batch, ...]): a
// whole run of the innermost dimension moves as one from its mirrored position, so
// each invocation copies STEPS vectors of one run, whatever the storage holds.
// Groups of `params.interleave` invocations share `interleave * STEPS`
// consecutive vectors, invocation i of a group taking every `interleave`-th from
// the group's i-th, so that each step of the group touches consecutive vectors
// (`tuning::run_interleave`: a CPU adapter's SIMD width, a GPU's warp); with one,
// each invocation's vectors are consecutive.
#import shared/vectors

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = invocation_index(group, groups, local);
    // Before the return, so that their loads of `params` are scalar on lavapipe.
    let run = divide(id, params.per_row);
    let o = outer(run, true);
    if (id >= params.count) {
        return;
    }
    let len = lane_length(o.len_offset, params.axis_size);
    let in_run = id - run * params.per_row.value;
    // The interleave is a power of two: shifts, not per-lane divisions.
    let interleave = params.interleave;
    let team = in_run >> countTrailingZeros(interleave);
    let first = team * interleave * STEPS + (in_run & (interleave - 1u));
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
    let vecs = params.vecs.value;
    // A constant trip count, so that the loop unrolls; the bound is a mask.
    for (var k = 0u; k < STEPS; k++) {
        let j = first + k * interleave;
        if (j < vecs) {
            store_vector(dst_run + j, load_vector(src_run + j));
        }
    }
}
