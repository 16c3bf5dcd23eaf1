// `rows` in place on a CPU adapter for short rows (`src/kernels/rows.rs`): one
// invocation holds its whole row, at most STEPS 16-byte vectors, in registers.
// It loads the vectors the row's first L elements touch, builds each of them as
// `rows/rows.wgsl` builds an output vector, from the mirrored span funnelled out
// of two source vectors (here picked from registers, not loaded), and stores
// them: every touched vector loaded and stored once, none past them.
//
// Lavapipe runs every branch of a SIMD group's eight invocations, masked: a
// walk from both ends (`rows/swap.wgsl`) runs as long as the group's longest
// row, then its middle, whatever the lengths. Here every trip count is
// constant, and an invocation past its row's length skips only its memory
// accesses. An invocation owns its row, so its stores race with no other's.
#import rows/mirror

// The most vectors a row holds here.
const HELD: u32 = 4u;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = invocation_index(group, groups, local);
    let o = outer(id, false);
    // Before any branch: on lavapipe a load of `params` after a divergent branch
    // is a gather, one invocation at a time.
    let n = params.axis_size;
    var len = 0u;
    if (id < params.count) {
        len = lane_length(o.len_offset, n);
    }
    let row = vec_index(o.out_offset);
    let lb = len * ELEM_BYTES;
    // Vectors the first L elements touch; none where a lane of one element or
    // none has nothing to reverse.
    let touched = select(0u, (lb + 15u) / 16u, len > 1u);
    var v: array<vec4<u32>, HELD>;
    for (var i = 0u; i < STEPS; i++) {
        if (i < touched) {
            v[i] = load_output_vec(row + i);
        }
    }
    let shift = lb % 16u;
    // The span of vector j starts `shift` bytes into vector lb / 16 - j - 1
    // (before the row where j straddles L: bytes it never keeps), and goes on
    // into the vector above it, the one the step before picked.
    var upper = held(v, lb / 16u);
    for (var j = 0u; j < STEPS; j++) {
        let lower = held(v, lb / 16u - j - 1u);
        if (j < touched) {
            let span = funnel(lower, upper, shift);
            let reversed = min(lb - 16u * j, 16u);
            store_vec(row + j, keep_below(reverse_elements(span), v[j], reversed));
        }
        upper = lower;
    }
}

// Vector `i` of the row (any where `i` is past it), by selects over constant
// indices: a private array indexed at run time lives in memory on lavapipe.
fn held(v: array<vec4<u32>, HELD>, i: u32) -> vec4<u32> {
    var picked = v[0];
    for (var k = 1u; k < STEPS; k++) {
        picked = select(picked, v[k], i == k);
    }
    return picked;
}
