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
