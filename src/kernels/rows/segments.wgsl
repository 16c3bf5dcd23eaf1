// What a `rows` invocation writes, and where the reversed part of an output vector
// comes from.
//
// Output vector j of a row holds the row's bytes [16j, 16j + 16). With LB the
// lane's length in bytes, its reversed bytes (those below LB) come from the 16
// bytes that start at LB - 16(j + 1), read backwards element by element: the
// mirrored span, which straddles two aligned source vectors and starts `LB mod 16`
// bytes into the lower one, the same shift for the whole row. Walking j upwards
// walks the source downwards, so consecutive output vectors share a source vector:
// one's lower vector is the next one's upper. Bytes at or past LB are copied from
// source vector j.
#import shared/vectors

// The work of one `rows` invocation: its row (row-major over every dimension but
// the innermost), and the vectors [first, last) of it, STEPS at most, of the
// row's `vecs`.
struct Segment {
    row: u32,
    first: u32,
    last: u32,
    vecs: u32,
}

fn segment(id: u32) -> Segment {
    let split = divmod(id, params.per_row);
    let row = split.quotient;
    let first = split.remainder * STEPS;
    let vecs = params.vecs.value;
    return Segment(row, first, min(first + STEPS, vecs), vecs);
}

// The vector that output vector `j` loads: the lower vector of its mirrored span
// while it is wholly reversed (the span ends at or below LB), `j` itself from
// there on.
fn span_source(j: u32, lb: u32) -> u32 {
    return select(j, lb / VEC_BYTES - j - 1u, VEC_BYTES * (j + 1u) <= lb);
}

// The upper vector of the span of output vector `first`: the vector above its
// mirror while it is wholly reversed, `first` itself while it straddles LB (unused
// once it is wholly copied). Clamped into the row: with a shift of 0 it is not
// used, and may lie one past the row.
fn span_top(work: Segment, lb: u32) -> u32 {
    let first = work.first;
    return min(select(first, lb / VEC_BYTES - first, VEC_BYTES * first < lb), work.vecs - 1u);
}
