// Input and output as 8-byte vectors of two 32-bit words: the storage of the
// general kernel's 8-byte elements, each moved whole. Every access to the tensors
// goes through the functions here.

const VEC_BYTES: u32 = 8u;
@group(0) @binding(1) var<storage, read> src: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read_write> dst: array<vec2<u32>>;

alias Vector = vec2<u32>;

fn load_vector(i: u32) -> Vector {
    #trace trace_access(TRACE_LOAD | TRACE_INPUT, i, 8u);
    return src[i];
}

// The output element as it is now: in place (`general/swap.wgsl`) the tensor is
// read through the output binding.
fn load_output_vector(i: u32) -> Vector {
    #trace trace_access(TRACE_LOAD | TRACE_OUTPUT, i, 8u);
    return dst[i];
}

fn store_vector(i: u32, v: Vector) {
    #trace trace_access(TRACE_STORE | TRACE_OUTPUT, i, 8u);
    dst[i] = v;
}
