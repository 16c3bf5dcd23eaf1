// `rows` in place on a CPU adapter (`src/in_place.rs`) for rows longer than
// `rows/swap_held.wgsl` holds: one invocation walks one row, whose prefix of L
// elements it reverses where it lies, moving 16-byte vectors. With LB = L bytes,
// q = LB / 16 and s = LB mod 16, step k swaps front vector k with the span of 16
// bytes that ends 16k bytes before LB: the new front vector is that span mirrored
// (two back vectors funnelled), and the new back vector q - k is the span that
// starts s bytes into front vector k - 1, mirrored. So each step loads one front
// and one back vector, keeps the previous step's two in registers, and stores one
// of each, as a copy does: every vector the row's first L elements span is loaded
// and stored once, none past them. The vectors the steps never complete, at most
// three about the middle of the span, are reversed last, in registers. An
// invocation owns its row, so its stores race with no other's.
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
    // Front vectors wholly below the middle of the span.
    let whole = len / 2u * ELEM_BYTES / 16u;
    var front_before = vec4(0u);
    // The back vector above the one each step loads, as it was.
    var back_above = vec4(0u);
    if (whole > 0u && s != 0u) {
        back_above = load_output_vec(row + q);
    }
    for (var k = 0u; k < whole; k++) {
        let front = load_output_vec(row + k);
        let back = load_output_vec(row + q - k - 1u);
        store_vec(row + k, mirror_span(back, back_above, s));
        let mirrored = mirror_span(front_before, front, s);
        if (k > 0u) {
            store_vec(row + q - k, mirrored);
        } else if (s != 0u) {
            // Vector q holds the span's last s bytes, then positions past L.
            store_vec(row + q, keep_below(mirrored, back_above, s));
        }
        front_before = front;
        back_above = back;
    }
    if (whole > 0u) {
        // Vector q - whole: its first s bytes lie about the middle, the rest
        // mirror front vector whole - 1.
        store_vec(row + q - whole, keep_below(back_above, mirror_span(front_before, vec4(0u), s), s));
    }
    reverse_middle(row + whole, lb - 32u * whole);
}

// Reverses in place the `m` bytes (fewer than 48) from vector `first` on: the
// span's middle, which the steps left. Up to three vectors in registers, as one
// 48-byte buffer reversed whole and funnelled back by the bytes past the span.
fn reverse_middle(first: u32, m: u32) {
    if (m < 2u * ELEM_BYTES) {
        return;
    }
    let m0 = load_output_vec(first);
    var m1 = vec4(0u);
    var m2 = vec4(0u);
    if (m > 16u) {
        m1 = load_output_vec(first + 1u);
    }
    if (m > 32u) {
        m2 = load_output_vec(first + 2u);
    }
    // The buffer reversed: vector i of it is vector 2 - i reversed.
    let r = array(reverse_elements(m2), reverse_elements(m1), reverse_elements(m0), vec4(0u), vec4(0u), vec4(0u));
    let d = 48u - m;
    let a = d / 16u;
    let b = d % 16u;
    store_vec(first, keep_below(funnel(pick(r, a), pick(r, a + 1u), b), m0, min(m, 16u)));
    if (m > 16u) {
        store_vec(first + 1u, keep_below(funnel(pick(r, a + 1u), pick(r, a + 2u), b), m1, min(m - 16u, 16u)));
    }
    if (m > 32u) {
        store_vec(first + 2u, keep_below(funnel(pick(r, a + 2u), pick(r, a + 3u), b), m2, m - 32u));
    }
}

// Vector `i` (0 to 5) of `r`, by selects: a private array indexed at run time
// lives in memory on lavapipe.
fn pick(r: array<vec4<u32>, 6>, i: u32) -> vec4<u32> {
    return select(select(select(r[3], r[2], i == 2u), r[1], i == 1u), r[0], i == 0u);
}
