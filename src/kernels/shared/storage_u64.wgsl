// Input and output as 16-byte vectors of two 64-bit words, for the vector families
// on a CPU adapter whose device has SHADER_INT64 (`tuning::access_bits`): such an
// adapter loads and stores each component of a vector lane by lane, and two
// components cost less than four. Every access to the tensors goes through the
// functions here.

const VEC_BYTES: u32 = 16u;
@group(0) @binding(1) var<storage, read> src: array<vec2<u64>>;
@group(0) @binding(3) var<storage, read_write> dst: array<vec2<u64>>;

// 64-bit word `h` (0 or 1) of input vector `i`.
fn load_half(i: u32, h: u32) -> u64 {
    #trace trace_part(TRACE_LOAD | TRACE_INPUT, i, 16u, h * 8u, 8u);
    return src[i][h];
}

// Word `w` (0-3) of input vector `i`, its 64-bit half `h` as two words, the whole
// vector as four, and four stored (little-endian, as the bytes lie), for kernels
// that compute on 32-bit words: the splitting and joining are SIMD arithmetic,
// the loads and stores per lane.
fn load_word(i: u32, w: u32) -> u32 {
    return u32(load_half(i, w >> 1u) >> ((w & 1u) * 32u));
}

fn load_pair(i: u32, h: u32) -> vec2<u32> {
    let x = load_half(i, h);
    return vec2(u32(x), u32(x >> 32u));
}

fn load_vec(i: u32) -> vec4<u32> {
    let v = load_vector(i);
    let high = v >> vec2(32u);
    return vec4(u32(v.x), u32(high.x), u32(v.y), u32(high.y));
}

fn store_vec(i: u32, v: vec4<u32>) {
    store_vector(i, join_words(v));
}

// As in `shared/storage_vec4.wgsl`.
fn load_output_vec(i: u32) -> vec4<u32> {
    #trace trace_access(TRACE_LOAD | TRACE_OUTPUT, i, 16u);
    let v = dst[i];
    let high = v >> vec2(32u);
    return vec4(u32(v.x), u32(high.x), u32(v.y), u32(high.y));
}

// The vector as the storage holds it (as in `shared/storage_vec4.wgsl`).
alias Vector = vec2<u64>;

fn load_vector(i: u32) -> Vector {
    #trace trace_access(TRACE_LOAD | TRACE_INPUT, i, 16u);
    return src[i];
}

fn store_vector(i: u32, v: Vector) {
    #trace trace_access(TRACE_STORE | TRACE_OUTPUT, i, 16u);
    dst[i] = v;
}

// The output vector as it is now: in place (`runs/swap.wgsl`) the tensor is read
// through the output binding.
fn load_output_vector(i: u32) -> Vector {
    #trace trace_access(TRACE_LOAD | TRACE_OUTPUT, i, 16u);
    return dst[i];
}

// As in `shared/storage_vec4.wgsl`. Fields are at most 32 bits wide, so no shift
// reaches 64.
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

// A shift and a subtraction: x * (2^field_bits - 1), without a 64-bit multiply.
fn fill_fields(x: Vector, field_bits: u32) -> Vector {
    return (x << vec2(field_bits)) - x;
}
