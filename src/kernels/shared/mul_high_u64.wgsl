// The high word of `a * b` (`divide` in `shared/params.wgsl`) in one 64-bit
// multiply, for the kernels on 64-bit words (whose device has them): on a CPU
// adapter it beats the 16-bit partial products of `mul_high_halves.wgsl`
// (docs/general.md).
fn mul_high(a: u32, b: u32) -> u32 {
    return u32((u64(a) * u64(b)) >> 32u);
}
