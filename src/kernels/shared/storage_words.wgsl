// Input and output as 32-bit words: the general kernels' storage, and the vector
// families' where a row or run is whole words but not whole 16-byte vectors (their
// "vectors" are then single words). Every access to the tensors goes through the
// functions here.

const VEC_BYTES: u32 = 4u;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;

fn load_word(i: u32) -> u32 {
    #trace trace_access(TRACE_LOAD | TRACE_INPUT, i, 4u);
    return src[i];
}

fn store_word(i: u32, v: u32) {
    #trace trace_access(TRACE_STORE | TRACE_OUTPUT, i, 4u);
    dst[i] = v;
}

// A word of the output as it is now: the 1- and 2-byte general kernel merges its
// elements into it.
fn load_output_word(i: u32) -> u32 {
    #trace trace_access(TRACE_LOAD | TRACE_OUTPUT, i, 4u);
    return dst[i];
}

alias Vector = u32;

// The output element as it is now: in place (`general/swap.wgsl`) the tensor is
// read through the output binding.
fn load_output_vector(i: u32) -> Vector {
    return load_output_word(i);
}

fn load_vector(i: u32) -> Vector {
    return load_word(i);
}

fn store_vector(i: u32, v: Vector) {
    store_word(i, v);
}
