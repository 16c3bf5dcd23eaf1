// Input and output as 16-byte vectors of two 64-bit words, for the vector kernels
// on a CPU adapter whose device has wgpu's SHADER_INT64 (`Variant::word_sizes` in
// `src/plan.rs` says which): such an adapter loads and stores each component of a
// vector lane by lane, and two components cost less than four.
const VEC_BYTES: u32 = 16u;
@group(0) @binding(1) var<storage, read> src: array<vec2<u64>>;
@group(0) @binding(3) var<storage, read_write> dst: array<vec2<u64>>;

// Word `w` (0-3) of input vector `i`, its 64-bit word `h` (0 or 1) as two, the
// whole vector as four, and four stored to the output (little-endian, as the bytes
// lie), for kernels that compute on 32-bit words: the splitting and joining are
// SIMD arithmetic, the loads and stores per lane.
fn load_word(i: u32, w: u32) -> u32 {
    return u32(src[i][w >> 1u] >> ((w & 1u) * 32u));
}

fn load_pair(i: u32, h: u32) -> vec2<u32> {
    let x = src[i][h];
    return vec2(u32(x), u32(x >> 32u));
}

fn load_vec(i: u32) -> vec4<u32> {
    let v = src[i];
    let high = v >> vec2(32u);
    return vec4(u32(v.x), u32(high.x), u32(v.y), u32(high.y));
}

fn store_vec(i: u32, v: vec4<u32>) {
    dst[i] = join_words(v);
}

// The vector the bindings hold, for kernels that compute on it whole with bitwise
// arithmetic, whatever its words (`reverse_columns.wgsl`; as in `bind_vec4.wgsl`).
// Lanes are at most 32 bits wide, so no shift reaches 64.
alias Vector = vec2<u64>;

fn splat_word(p: u32) -> Vector {
    return vec2(u64(p) | (u64(p) << 32u));
}

fn join_words(v: vec4<u32>) -> Vector {
    let low = vec2(u64(v.x), u64(v.z));
    let high = vec2(u64(v.y), u64(v.w));
    return low | (high << vec2(32u));
}

fn shift_right(v: Vector, bits: u32) -> Vector {
    return v >> vec2(bits);
}

// A shift and a subtraction: x * (2^lane_bits - 1), which has no 64-bit multiply
// to pay for.
fn fill_lanes(x: Vector, lane_bits: u32) -> Vector {
    return (x << vec2(lane_bits)) - x;
}
