// `rows` over lanes longer than a window (`src/plan/cut/`): a piece of one lane's
// output, its vectors [o0, o1), runs once with each input window that may hold its
// sources. A window owns the lane's source vectors [v0, v1) and binds one more.
// The lane's length, read here, decides which output vectors a window's sources
// make; each is written by exactly one dispatch:
// - a wholly reversed vector j (below `at`, the vector where the length falls):
//   by the window owning its span's lower vector, at - 1 - j (the upper, at - j,
//   is at most the one past it);
// - a wholly copied vector j: by the window owning j;
// - the straddling vector `at`: its reversed bytes come from vector 0, the rest
//   from `at`. The window owning `at` writes it copied; the window owning vector 0,
//   dispatched after it (`window::pairs` runs a piece's windows downwards), merges
//   the reversed bytes into what is there. One window owning both does both.
// Both sets are ranges of j. A fixed grid of `params.count` invocations strides
// over their blocks of STEPS vectors, so that a window with nothing to write costs
// a dispatch that returns at once. `mirror` moves 16-byte vectors
// (`rows/mirror.wgsl`) or, where the lane is whole words but not whole vectors,
// words (`rows/mirror_narrow.wgsl`).
#import shared/vectors
#import mirror

fn ceil_vectors(positions: u32) -> u32 {
    return positions / ELEMS_PER_VEC + select(0u, 1u, positions % ELEMS_PER_VEC != 0u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = invocation_index(group, groups, local);
    // Before the return, so that their loads of `params` are scalar on lavapipe.
    let stride = params.count;
    let n = params.axis_size;
    let vecs = params.vecs.value;
    let o0 = params.axis_start / ELEMS_PER_VEC;
    let o1 = min(o0 + ceil_vectors(size_at(0u)), vecs);
    let v0 = params.position_lo / ELEMS_PER_VEC;
    let v1 = min(ceil_vectors(min(params.position_hi, n)), vecs);
    // Lane vector j is at base + j in each binding: `out_shift` is where the
    // piece starts, `in_shift` where the window's first position is. The sums
    // wrap; they are exact for the vectors a binding holds.
    let out_base = vec_index(params.out_shift) - o0;
    let in_base = vec_index(params.in_shift) - v0;
    if (id >= stride) {
        return;
    }
    let len = lane_length(params.len_shift, n);
    let at = len / ELEMS_PER_VEC;
    // Bytes of vector `at` that are reversed; the lane is whole vectors, so a
    // vector straddles the length only below the lane's end.
    let shift = (len % ELEMS_PER_VEC) * ELEM_BYTES;

    let r0 = max(o0, at - min(at, v1));
    let r1 = min(o1, at - min(at, v0));
    let c0 = max(max(o0, v0), at + select(0u, 1u, shift != 0u));
    let c1 = min(o1, v1);
    // Two loops, not one with a branch: a CPU adapter runs both sides of a
    // branch its SIMD lanes split on.
    let reversed = (max(r0, r1) - r0 + STEPS - 1u) / STEPS;
    for (var b = id; b < reversed; b += stride) {
        // Walking j up walks the span down: each step's lower vector is the next
        // one's upper.
        let first = r0 + b * STEPS;
        var hi = Lane();
        if (shift != 0u) {
            hi = load_lane(in_base + at - first);
        }
        // A constant trip count, so that the loop unrolls; the bound is a mask.
        for (var k = 0u; k < STEPS; k++) {
            let j = first + k;
            if (j < r1) {
                let x = load_lane(in_base + at - 1u - j);
                store_lane(out_base + j, mirror_span(x, hi, shift));
                hi = x;
            }
        }
    }
    let copied = (max(c0, c1) - c0 + STEPS - 1u) / STEPS;
    for (var b = id; b < copied; b += stride) {
        let first = c0 + b * STEPS;
        for (var k = 0u; k < STEPS; k++) {
            let j = first + k;
            if (j < c1) {
                store_lane(out_base + j, load_lane(in_base + j));
            }
        }
    }

    if (id == 0u && shift != 0u && at >= o0 && at < o1) {
        let holds_at = at >= v0 && at < v1;
        let holds_first = v0 == 0u;
        if (holds_at || holds_first) {
            var x: Lane;
            if (holds_at) {
                x = load_lane(in_base + at);
            } else {
                x = load_output_lane(out_base + at);
            }
            var v = x;
            if (holds_first) {
                v = keep_below(mirror_span(x, load_lane(in_base), shift), x, shift);
            }
            store_lane(out_base + at, v);
        }
    }
}
