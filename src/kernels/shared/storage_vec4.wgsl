// Input and output as 16-byte vectors of four 32-bit words: the vector families'
// storage on a GPU. Every access to the tensors goes through the functions here.

const VEC_BYTES: u32 = 16u;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> dst: array<vec4<u32>>;

// Word `w` (0-3) of input vector `i`, its 64-bit half `h` (0 or 1) as two words,
// and the whole vector as four: for kernels that compute on 32-bit words.
fn load_word(i: u32, w: u32) -> u32 {
    #trace trace_part(TRACE_LOAD | TRACE_INPUT, i, 16u, w * 4u, 4u);
    return src[i][w];
}

fn load_pair(i: u32, h: u32) -> vec2<u32> {
    #trace trace_part(TRACE_LOAD | TRACE_INPUT, i, 16u, h * 8u, 8u);
    return vec2(src[i][2u * h], src[i][2u * h + 1u]);
}

fn load_vec(i: u32) -> vec4<u32> {
    #trace trace_access(TRACE_LOAD | TRACE_INPUT, i, 16u);
    return src[i];
}

fn store_vec(i: u32, v: vec4<u32>) {
    #trace trace_access(TRACE_STORE | TRACE_OUTPUT, i, 16u);
    dst[i] = v;
}

// A vector of the output as it is now: `rows/window.wgsl` merges into one that an
// earlier dispatch wrote.
fn load_output_vec(i: u32) -> vec4<u32> {
    #trace trace_access(TRACE_LOAD | TRACE_OUTPUT, i, 16u);
    return dst[i];
}

// The vector as the storage holds it, for kernels that only move it (`runs`) or
// compute on it whole with bitwise arithmetic (`columns/columns.wgsl`).
alias Vector = vec4<u32>;

fn load_vector(i: u32) -> Vector {
    return load_vec(i);
}

fn store_vector(i: u32, v: Vector) {
    store_vec(i, v);
}

// The output vector as it is now: in place (`general/swap.wgsl`) the tensor is
// read through the output binding.
fn load_output_vector(i: u32) -> Vector {
    return load_output_vec(i);
}

// For that arithmetic, whatever the storage's words: 32-bit pattern `p` in every
// 32-bit word, four 32-bit words as one vector, every word shifted right by
// `bits`, and every bit of each `field_bits`-wide field whose lowest bit `x` sets
// (`x` has no other bits).
fn splat_word(p: u32) -> Vector {
    return vec4(p);
}

fn join_words(v: vec4<u32>) -> Vector {
    return v;
}

fn shift_right(v: Vector, bits: u32) -> Vector {
    return v >> vec4(bits);
}

fn fill_fields(x: Vector, field_bits: u32) -> Vector {
    return x * (0xFFFFFFFFu >> (32u - field_bits));
}
