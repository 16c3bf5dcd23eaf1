// In place across windows (`src/plan/cut/across.rs`): which pairs an invocation of
// `general/swap_pairs.wgsl` or `swap_pairs_subwords.wgsl` swaps. A dispatch swaps
// the pairs of one slab whose front position t lies in [axis_start, axis_start +
// sizes[0]), bound at the output binding, and whose back position L - 1 - t lies
// in [position_lo, position_hi), bound at the input binding where `params.apart`
// is 1 (a second window of the tensor; both writable, their ranges apart), else at
// the output binding too. An invocation takes STEPS units (elements, or 16-byte
// vectors of a run of one length) along the innermost dimension inside the axis,
// each with its own length, and `params.front_positions` front positions, and
// swaps those whose pair the unit's length puts in the back group, through the
// kernel's `swap`: the entry point is here, and each kernel file brings its
// `swap`.
#import shared/params
#import shared/lengths

// Units an invocation takes along the innermost dimension
// (`tuning::across_units`): that dimension counts stretches of STEPS units, its
// strides a stretch's, and holds `params.vecs` units.
override STEPS: u32;

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
    walk_pairs(id);
}

fn walk_pairs(id: u32) {
    // The unit inside the axis, then the invocation's stretch of the front group
    // (the axis is the first dimension).
    var rem = id;
    var offset = 0u;
    var len_offset = params.len_shift;
    var first_unit = 0u;
    for (var d = RANK - 1u; d >= 1u; d--) {
        let split = divmod(rem, params.size_divisors[d]);
        rem = split.quotient;
        offset += split.remainder * out_stride_at(d);
        len_offset += split.remainder * len_stride_at(d);
        if (d == RANK - 1u) {
            first_unit = split.remainder * STEPS;
        }
    }
    let units = select(1u, min(STEPS, params.vecs.value - first_unit), STEPS > 1u);
    let unit_step = out_stride_at(RANK - 1u) / STEPS;
    let len_step = len_stride_at(RANK - 1u) / STEPS;
    let first = params.axis_start + rem * params.front_positions;
    let end = min(first + params.front_positions, params.axis_start + size_at(0u));
    let axis = out_stride_at(0u);
    let back_shift = select(params.out_shift, params.in_shift, params.apart != 0u);
    if (len_step == 0u) {
        // One length along the stretch: position by position, its units side by
        // side.
        let r = pair_range(lane_length(len_offset, params.axis_size), first, end);
        for (var t = r.x; t < r.y; t++) {
            let front = offset + t * axis + params.out_shift;
            let back = offset + (r.z - 1u - t) * axis + back_shift;
            for (var k = 0u; k < units; k++) {
                swap(front + k * unit_step, back + k * unit_step);
            }
        }
        return;
    }
    for (var k = 0u; k < units; k++) {
        let r = pair_range(lane_length(len_offset + k * len_step, params.axis_size), first, end);
        let unit = offset + k * unit_step;
        for (var t = r.x; t < r.y; t++) {
            swap(unit + t * axis + params.out_shift, unit + (r.z - 1u - t) * axis + back_shift);
        }
    }
}

// The front positions [x, y) in [first, end) of a lane of length `len` (z) whose
// back position L - 1 - t lies in [position_lo, position_hi), where t lies in
// [L - position_hi, L - position_lo), and past t, where t < L / 2.
fn pair_range(len: u32, first: u32, end: u32) -> vec3<u32> {
    let lo = max(first, select(0u, len - params.position_hi, len > params.position_hi));
    let hi = min(min(end, len / 2u), select(0u, len - params.position_lo, len > params.position_lo));
    return vec3(lo, hi, len);
}
