// The high word of `a * b` (`divide` in `common.wgsl`) in one 64-bit multiply, for
// the kernels on 64-bit words, whose adapter has them. On lavapipe the 16-bit
// partial products of `mul_high_halves.wgsl` are four 32-bit vector multiplies and
// their sums; this is two 32x32->64 multiplies. 4-byte `innermost` and `strided`
// rows, whose invocations divide once to find their row, took 0.99x the time
// (0.96-0.98x while other work shared the machine).
fn mul_high(a: u32, b: u32) -> u32 {
    return u32((u64(a) * u64(b)) >> 32u);
}
