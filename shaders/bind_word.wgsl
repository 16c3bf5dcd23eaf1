// Input and output as 32-bit words, for `Rows` and `Runs` whose rows or runs are
// whole words but not whole 16-byte vectors.
const VEC_BYTES: u32 = 4u;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;
