// The high word of `a * b` (`divide` in `shared/params.wgsl`) in one 64-bit
// multiply, on a device with SHADER_INT64: a GPU compiles it to its multiply-high
// instruction, where the 16-bit partial products of `mul_high_halves.wgsl` take
// about ten.
fn mul_high(a: u32, b: u32) -> u32 {
    return u32((u64(a) * u64(b)) >> 32u);
}
