// Mirroring on 32-bit words, for `rows/rows_narrow.wgsl` and `rows/window.wgsl`
// where rows are whole words but not whole vectors: as `rows/mirror.wgsl`, a word
// at a time.
#import shared/vectors

// The 4 bytes that start `shift` bytes into `lo`, continuing into `hi`.
fn funnel_word(lo: u32, hi: u32, shift: u32) -> u32 {
    let bits = shift * 8u;
    return select(lo, (lo >> bits) | (hi << ((32u - bits) & 31u)), bits != 0u);
}

// The 1- or 2-byte elements of a word in reverse order.
fn reverse_in_word(w: u32) -> u32 {
    let halves = (w >> 16u) | (w << 16u);
    if (ELEM_BYTES == 2u) {
        return halves;
    }
    return ((halves >> 8u) & 0x00FF00FFu) | ((halves << 8u) & 0xFF00FF00u);
}

alias Lane = u32;

fn load_lane(i: u32) -> Lane {
    return load_word(i);
}

fn store_lane(i: u32, v: Lane) {
    store_word(i, v);
}

fn load_output_lane(i: u32) -> Lane {
    return load_output_word(i);
}

// The elements of the span that starts `shift` bytes into `lo`, reversed (a
// 4-byte element is a word of its own).
fn mirror_span(lo: Lane, hi: Lane, shift: u32) -> Lane {
    if (ELEM_BYTES >= 4u) {
        return lo;
    }
    return reverse_in_word(funnel_word(lo, hi, shift));
}

// The first `bytes` bytes of `reversed` (fewer than 4), then the rest of `copied`.
fn keep_below(reversed: Lane, copied: Lane, bytes: u32) -> Lane {
    let mask = (1u << (bytes * 8u)) - 1u;
    return (reversed & mask) | (copied & ~mask);
}
