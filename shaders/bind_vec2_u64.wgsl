// Input and output as 16-byte vectors of two 64-bit words, for `Runs` and for
// `Rows` of 8- and 16-byte elements on a CPU adapter whose device has wgpu's
// SHADER_INT64: such an adapter loads and stores each component of a vector lane
// by lane, and two components cost less than four.
const VEC_BYTES: u32 = 16u;
@group(0) @binding(1) var<storage, read> src: array<vec2<u64>>;
@group(0) @binding(3) var<storage, read_write> dst: array<vec2<u64>>;
