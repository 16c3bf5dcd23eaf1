// Input and output as 16-byte vectors, for the vector kernels.
const VEC_BYTES: u32 = 16u;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> dst: array<vec4<u32>>;
