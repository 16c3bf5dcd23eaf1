// `runs` in place (`docs/in-place.md`): the length does not change along the
// contiguous innermost dimension, so a lane's pair of positions `t`, `L - 1 - t`
// is a pair of whole runs, swapped vector for vector. Each invocation takes STEPS
// vectors of its lane's runs (`runs/interleave.wgsl`) and the positions of its
// phase: `t` from the phase on, every `params.blocks`-th (the phases), below
// `L / 2`. A CPU adapter walks every position in one phase; a GPU gives each
// position its own (`tuning::swap_phases`). Nothing at or past a lane's length is read or written,
// and a lane of length 0 or 1 costs its length load.
#import runs/interleave

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = invocation_index(group, groups, local);
    let in_row = divmod(id, params.per_row);
    let by_phase = divmod(in_row.quotient, params.blocks);
    let o = outer(by_phase.quotient, false);
    if (id >= params.count) {
        return;
    }
    let len = lane_length(o.len_offset, params.axis_size);
    let interleave = params.interleave;
    let first = first_vector(in_row.remainder, interleave);
    let axis = out_stride_at(AXIS);
    for (var t = by_phase.remainder; 2u * t + 1u < len; t += params.blocks.value) {
        swap_vectors(vec_index(o.out_offset + t * axis), vec_index(o.out_offset + (len - 1u - t) * axis), first, interleave);
    }
}

// This invocation's vectors of the runs at vectors `front` and `back`: STEPS of
// them, `interleave` apart from `first`, loaded before any is stored.
fn swap_vectors(front: u32, back: u32, first: u32, interleave: u32) {
    let vecs = params.vecs.value;
    // A constant trip count, so that the loop unrolls; the bound is a mask.
    for (var k = 0u; k < STEPS; k++) {
        let j = first + k * interleave;
        if (j < vecs) {
            let a = load_output_vector(front + j);
            let b = load_output_vector(back + j);
            store_vector(front + j, b);
            store_vector(back + j, a);
        }
    }
}
