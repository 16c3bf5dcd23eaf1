// `rows`: the reversed axis innermost and contiguous in input and output. Each
// invocation writes STEPS consecutive 16-byte vectors of one row
// (`rows/segments.wgsl`), computing on 32-bit words whatever the storage holds:
// four-word vectors (`shared/storage_vec4.wgsl`), or two 64-bit words split in
// registers on a CPU adapter that has them (`shared/storage_u64.wgsl`; 8- and
// 16-byte elements take `rows/rows_64.wgsl` there).
//
// Each step loads one new source vector and reuses the previous step's as the
// upper vector of its span. The invocation's first output vector needs one more,
// its span's top, which it loads after its steps.
#import rows/segments
#import rows/mirror
#import shared/lengths

// What a row's length makes of its output vectors: the span's shift, the words of
// the row below LB / 4 (wholly reversed), and the mask of word LB / 4's first
// LB mod 4 bytes (reversed; 1- and 2-byte elements). Comparing word indices keeps
// the per-vector work to a compare and a select.
struct Span {
    shift: u32,
    reversed_words: vec4<u32>,
    straddling: vec4<u32>,
}

fn span_of(lb: u32) -> Span {
    return Span(lb & 15u, vec4(lb >> 2u), vec4((1u << ((lb & 3u) * 8u)) - 1u));
}

// Output vector `j` from `x`, the vector its step loads (`span_source`), and
// `hi`, the one above it in the span: reversed elements below LB, copied ones at
// and past it.
fn output_vector(s: Span, j: u32, x: vec4<u32>, hi: vec4<u32>) -> vec4<u32> {
    let reversed = reverse_elements(funnel(x, hi, s.shift));
    let words = vec4(4u * j) + vec4(0u, 1u, 2u, 3u);
    var copied = x;
    if (ELEM_BYTES < 4u) {
        let mask = select(vec4(0u), s.straddling, words == s.reversed_words);
        copied = (reversed & mask) | (x & ~mask);
    }
    return select(copied, reversed, words < s.reversed_words);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = invocation_index(group, groups, local);
    // Before any branch: on lavapipe a load of `params` after a divergent branch is
    // a gather, one invocation at a time, where before it the load is one scalar.
    let work = segment(id);
    let first = work.first;
    let last = work.last;
    let o = outer(work.row, false);
    let n = size_at(AXIS);
    // No return for the idle invocations past `params.count`: a load of `params`
    // after a divergent return is a gather on lavapipe. They load and store nothing.
    let working = id < params.count;
    var len = 0u;
    if (working) {
        len = lane_length(o.len_offset, n);
    }
    let in_row = vec_index(o.in_offset);
    let out_row = vec_index(o.out_offset);

    // Row bytes are below 2^32, so none of this overflows.
    let lb = len * ELEM_BYTES;
    let span = span_of(lb);
    // Output vector `first` comes last, with the top of its span (`span_top`),
    // which only a shifted span whose `first` is not wholly copied reads.
    var x0 = vec4(0u);
    if (working) {
        x0 = load_vec(in_row + span_source(first, lb));
    }
    var hi = x0;
    // A constant trip count, so that the loop unrolls; the bound is a mask.
    for (var k = 1u; k < STEPS; k++) {
        let j = first + k;
        if (working && j < last) {
            let x = load_vec(in_row + span_source(j, lb));
            store_vec(out_row + j, output_vector(span, j, x, hi));
            hi = x;
        }
    }
    var top = hi;
    if (working && VEC_BYTES * first < lb && span.shift != 0u) {
        top = load_vec(in_row + span_top(work, lb));
    }
    if (working) {
        store_vec(out_row + first, output_vector(span, first, x0, top));
    }
}
