// `runs`: the reversed axis outside a contiguous innermost dimension along which
// the length does not change (ONNX's [batch, time, ...] and [time, batch, ...]): a
// whole run of the innermost dimension moves as one from its mirrored position, so
// each invocation copies STEPS vectors of one run, whatever the storage holds.
// Groups of `params.interleave` invocations share `interleave * STEPS`
// consecutive vectors, invocation i of a group taking every `interleave`-th from
// the group's i-th, so that each step of the group touches consecutive vectors
// (`tuning::run_interleave`: a CPU adapter's SIMD width, a GPU's warp); with one,
// each invocation's vectors are consecutive. In a windowed dispatch of whole axis
// positions, each invocation instead walks the positions of its run (`walk`), or
// a fixed grid walks them lane by lane (`Walk::WindowByLane`; `tuning::walks_lanes`).
#import runs/interleave

// Whether each invocation walks its run's positions (`walk`): windowed dispatches
// of whole axis positions. A constant, so that the one-position kernel stays as
// it is: on lavapipe, a branch on the uniform before its loads would make them
// per-lane.
override WALK: bool;
// Whether, where WALK, a fixed grid walks lane by lane instead (`WindowByLane`). A
// constant too: lavapipe pays for the walk a pipeline holds but does not run, in
// every dispatch.
override WALK_LANES: bool;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = invocation_index(group, groups, local);
    if (WALK) {
        if (WALK_LANES) {
            walk_lanes(id);
        } else {
            walk(id);
        }
        return;
    }
    // Before the return, so that their loads of `params` are scalar on lavapipe.
    let split = divmod(id, params.per_row);
    let o = outer(split.quotient, true);
    if (id >= params.count) {
        return;
    }
    let len = lane_length(o.len_offset, params.axis_size);
    let interleave = params.interleave;
    let first = first_vector(split.remainder, interleave);
    // A windowed dispatch may hold a part of the axis from `axis_start` on, and
    // input windows of whole axis positions: it copies only the runs whose source
    // position its input binding holds (`src/plan/cut/`). One dispatch of the
    // whole tensor holds every position and source.
    let s = mirrored(params.axis_start + o.t, len);
    let source = windowed_source(o.in_offset - params.in_shift, s, in_stride_at(AXIS));
    if (source == ELSEWHERE) {
        return;
    }
    copy_vectors(vec_index(source), vec_index(o.out_offset + o.t * out_stride_at(AXIS)), first, interleave);
}

// This invocation's vectors of a run: STEPS of them, `interleave` apart from
// `first`, from the run at vector `src_run` to the one at `dst_run`.
fn copy_vectors(src_run: u32, dst_run: u32, first: u32, interleave: u32) {
    let vecs = params.vecs.value;
    // A constant trip count, so that the loop unrolls; the bound is a mask.
    for (var k = 0u; k < STEPS; k++) {
        let j = first + k * interleave;
        if (j < vecs) {
            store_vector(dst_run + j, load_vector(src_run + j));
        }
    }
}

// What a lane of length `len` moves in a windowed pair: a piece of positions
// [a0, a1) and an input window of positions [lo, hi) (`src/plan/cut/`).
// Reversed, output T < len reads len - 1 - T, in [lo, hi) for T in [r0, r1) =
// [len - hi, len - lo); copied, T >= len reads T, for T in [c0, c1). A range
// whose end is not past its start is empty.
struct PairRanges {
    r0: u32,
    r1: u32,
    c0: u32,
    c1: u32,
}

fn pair_ranges(len: u32) -> PairRanges {
    let a0 = params.axis_start;
    let a1 = a0 + size_at(AXIS);
    let lo = params.position_lo;
    let hi = min(params.position_hi, params.axis_size);
    return PairRanges(
        max(a0, select(0u, len - hi, len > hi)),
        min(a1, select(0u, len - lo, len > lo)),
        max(a0, max(len, lo)),
        min(a1, hi),
    );
}

// Each invocation takes the same vectors of one run at every position of the
// piece whose source the pair's input window holds.
fn walk(id: u32) {
    let split = divmod(id, params.per_row);
    let o = outer(split.quotient, false);
    if (id >= params.count) {
        return;
    }
    let len = lane_length(o.len_offset, params.axis_size);
    let interleave = params.interleave;
    let first = first_vector(split.remainder, interleave);
    let a0 = params.axis_start;
    let r = pair_ranges(len);
    for (var t = r.r0; t < r.r1; t++) {
        move_run(o, t - a0, len - 1u - t, first, interleave);
    }
    for (var t = r.c0; t < r.c1; t++) {
        move_run(o, t - a0, t, first, interleave);
    }
}

// This invocation's vectors of the run at position `t` of the piece, from source
// position `s`, which the input window holds.
fn move_run(o: Outer, t: u32, s: u32, first: u32, interleave: u32) {
    let source = windowed_source(o.in_offset - params.in_shift, s, in_stride_at(AXIS));
    copy_vectors(vec_index(source), vec_index(o.out_offset + t * out_stride_at(AXIS)), first, interleave);
}

// A windowed pair walked lane by lane (`params.lanes` of them; a lane is one
// sequence, its run at each position): a fixed grid of `params.count` invocations in which each
// workgroup takes its lanes, or a share of one lane where there are more
// workgroups than lanes. A lane with nothing to move in this pair costs its
// workgroups a length load, not an invocation per run; and no invocation visits
// every lane. Within a lane, each team of `interleave` invocations takes one
// contiguous range of the runs' vector blocks, so that a CPU thread, which runs
// a team's loop to its end before the next team, streams through memory rather
// than jumping a grid's width at every step.
fn walk_lanes(id: u32) {
    let a0 = params.axis_start;
    let lanes = params.lanes;
    let groups = params.count / WORKGROUP_SIZE;
    let group = id / WORKGROUP_SIZE;
    let interleave = params.interleave;
    let per_row = params.per_row.value;
    // This invocation's place among its lane's workgroups (with fewer
    // workgroups than lanes, each lane has one).
    let place = (group / lanes) * WORKGROUP_SIZE + id % WORKGROUP_SIZE;
    for (var lane = group % lanes; lane < lanes; lane += groups) {
        // The workgroups of this lane.
        let shares = select(1u, (groups - lane + lanes - 1u) / lanes, groups >= lanes);
        let o = outer(lane, false);
        let len = lane_length(o.len_offset, params.axis_size);
        // The lane's positions in this pair: the reversed ones, then the copied.
        let r = pair_ranges(len);
        let reversed = max(r.r0, r.r1) - r.r0;
        let positions = reversed + max(r.c0, r.c1) - r.c0;
        // A block is `interleave` invocation shares of one run (`per_row` is a
        // multiple of `interleave`): what one step of a team moves.
        let blocks = positions * (per_row / interleave);
        let teams = shares * WORKGROUP_SIZE / interleave;
        let per_team = (blocks + teams - 1u) / teams;
        let b0 = min(place / interleave * per_team, blocks);
        let b1 = min(b0 + per_team, blocks);
        if (b0 >= b1) {
            continue;
        }
        let start = divmod(b0 * interleave, params.per_row);
        var p = start.quotient;
        var i = start.remainder + place % interleave;
        for (var b = b0; b < b1; b++) {
            let t = select(r.c0 + p - reversed, r.r0 + p, p < reversed);
            let s = select(t, len - 1u - t, p < reversed);
            move_run(o, t - a0, s, first_vector(i, interleave), interleave);
            i += interleave;
            if (i >= per_row) {
                i -= per_row;
                p += 1u;
            }
        }
    }
}
