// Input and output as 16-byte vectors of four 32-bit words, for the vector kernels.
const VEC_BYTES: u32 = 16u;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> dst: array<vec4<u32>>;

// Word `w` (0-3) of input vector `i`, its 64-bit word `h` (0 or 1) as two, the
// whole vector, and one stored to the output: for kernels that compute on 32-bit
// words whichever words the bindings hold.
fn load_word(i: u32, w: u32) -> u32 {
    return src[i][w];
}

fn load_pair(i: u32, h: u32) -> vec2<u32> {
    return vec2(src[i][2u * h], src[i][2u * h + 1u]);
}

fn load_vec(i: u32) -> vec4<u32> {
    return src[i];
}

fn store_vec(i: u32, v: vec4<u32>) {
    dst[i] = v;
}

// The vector the bindings hold, for kernels that compute on it whole with bitwise
// arithmetic, whatever its words (`reverse_columns.wgsl`): 32-bit pattern `p` in
// every 32-bit word, four 32-bit words as one vector, every word shifted right by
// `bits`, and `fill_lanes`: every bit of each `lane_bits`-wide lane whose lowest
// bit `x` sets (`x` has no other bits).
alias Vector = vec4<u32>;

fn splat_word(p: u32) -> Vector {
    return vec4(p);
}

fn join_words(v: vec4<u32>) -> Vector {
    return v;
}

fn shift_right(v: Vector, bits: u32) -> Vector {
    return v >> vec4(bits);
}

fn fill_lanes(x: Vector, lane_bits: u32) -> Vector {
    return x * (0xFFFFFFFFu >> (32u - lane_bits));
}
