// The sequence lengths: their binding, the one function that loads them, and the
// clamp of a lane's length to the axis.
#import shared/params

// 32-bit words per sequence length: 1 for (U)INT32, 2 for (U)INT64.
override LEN_WORDS: u32;
// Whether sequence lengths are signed; a negative length reverses nothing.
override LEN_SIGNED: bool;

@group(0) @binding(2) var<storage, read> lengths: array<u32>;

fn load_length_word(i: u32) -> u32 {
    #trace trace_access(TRACE_LOAD | TRACE_LENGTHS, i, 4u);
    return lengths[i];
}

// The sequence length stored at element `index` of the lengths tensor, clamped to
// [0, n]. Both words of a 64-bit length are read: a high word that is not zero means
// the length is past the axis (or negative, for signed lengths), never a small value.
fn lane_length(index: u32, n: u32) -> u32 {
    let lo = load_length_word(index * LEN_WORDS);
    var hi = 0u;
    if (LEN_WORDS == 2u) {
        hi = load_length_word(index * LEN_WORDS + 1u);
    }
    let top = select(lo, hi, LEN_WORDS == 2u);
    let negative = LEN_SIGNED && bitcast<i32>(top) < 0;
    return select(select(min(lo, n), n, hi != 0u), 0u, negative);
}

// `lane_length` with `index` clamped into the lengths binding, for the kernels
// that run staged pieces (`general/elements`, `general/subwords`, and `gather`
// and `columns` through `shared/element_lengths`). A staged piece's last run is
// padded to whole vectors in scratch (`src/plan/cut/staged.rs`), and the padding's
// elements have no lengths in the piece's window: they read another element's,
// which does, since their output stays in scratch. Every other index is inside
// the binding already. The binding holds at least one length.
fn clamped_lane_length(index: u32, n: u32) -> u32 {
    return lane_length(min(index, arrayLength(&lengths) / LEN_WORDS - 1u), n);
}
