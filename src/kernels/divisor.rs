//! Division of per-invocation values by a uniform divisor, prepared on the host.
//!
//! A CPU adapter runs a SIMD group's invocations in the channels of one vector
//! register, and x86 has no vector integer division: lavapipe divides channel by
//! channel, eight scalar divides a group. A multiply-high and two shifts stay in
//! the vector registers (docs/general.md has what it bought). A GPU divides in
//! software too, in tens of instructions.
//!
//! The method is Granlund and Montgomery's (Hacker's Delight, 10-8): with
//! `l = ceil(log2 d)` and `m = floor(2^32 (2^l - d) / d) + 1`, which fits 32 bits,
//! `n / d = (t + ((n - t) >> 1)) >> (l - 1)` where `t` is the high word of `m n`,
//! for every 32-bit `n` and `d >= 2`. `d == 1` is the identity, chosen by a uniform
//! select.

/// A divisor with its multiplier and shift; matches `Divisor` in
/// `src/kernels/shared/params.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Divisor {
    value: u32,
    magic: u32,
    shift: u32,
    // Uniform structs take whole 16-byte rows.
    unused: u32,
}

impl Divisor {
    /// The divisor `d`; 0 only for a field of `Params` that the kernel does not
    /// divide by.
    pub(crate) fn new(d: u32) -> Self {
        if d < 2 {
            return Self {
                value: d,
                ..Self::default()
            };
        }
        let l = 32 - (d - 1).leading_zeros();
        let magic = ((1u64 << 32) * ((1u64 << l) - u64::from(d)) / u64::from(d) + 1) as u32;
        Self {
            value: d,
            magic,
            shift: l - 1,
            unused: 0,
        }
    }

    /// The divisor.
    #[cfg(test)]
    pub(crate) fn value(self) -> u32 {
        self.value
    }

    /// `n / d` as `divide` in `src/kernels/shared/params.wgsl` computes it, with the
    /// 16-bit partial products of `mul_high_halves.wgsl` (`mul_high_u64.wgsl`'s
    /// 64-bit product is exact); the tests hold it to Rust's division.
    #[cfg(test)]
    pub(crate) fn divide(self, n: u32) -> u32 {
        if self.value == 1 {
            return n;
        }
        let t = mul_hi(n, self.magic);
        (t + ((n - t) >> 1)) >> self.shift
    }
}

/// The high word of `a * b` from 16-bit halves, as WGSL without 64-bit integers
/// computes it.
#[cfg(test)]
fn mul_hi(a: u32, b: u32) -> u32 {
    let (al, ah, bl, bh) = (a & 0xFFFF, a >> 16, b & 0xFFFF, b >> 16);
    let (low, mid_a, mid_b) = (al * bl, ah * bl, al * bh);
    let cross = (low >> 16) + (mid_a & 0xFFFF) + mid_b;
    ah * bh + (mid_a >> 16) + (cross >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small xorshift generator: deterministic cases without a dependency.
    fn xorshift(state: &mut u64) -> u32 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        (*state >> 16) as u32
    }

    #[test]
    fn mul_hi_is_the_high_word_of_the_product() {
        let mut state = 0x9E37_79B9_7F4A_7C15;
        let edges = [
            0,
            1,
            0xFFFF,
            0x1_0000,
            0x1_0001,
            0x7FFF_FFFF,
            0x8000_0000,
            u32::MAX,
        ];
        for &a in &edges {
            for &b in &edges {
                assert_eq!(
                    mul_hi(a, b),
                    ((u64::from(a) * u64::from(b)) >> 32) as u32,
                    "{a} * {b}"
                );
            }
        }
        for _ in 0..100_000 {
            let (a, b) = (xorshift(&mut state), xorshift(&mut state));
            assert_eq!(
                mul_hi(a, b),
                ((u64::from(a) * u64::from(b)) >> 32) as u32,
                "{a} * {b}"
            );
        }
    }

    #[test]
    fn divide_matches_integer_division() {
        let mut state = 0x2545_F491_4F6C_DD1D;
        let mut divisors = vec![
            1, 2, 3, 5, 6, 7, 63, 64, 65, 100, 255, 256, 257, 641, 6700417,
        ];
        divisors.extend([
            0xFFFF,
            0x1_0000,
            0x1_0001,
            0x7FFF_FFFF,
            0x8000_0000,
            0x8000_0001,
        ]);
        divisors.extend([u32::MAX - 1, u32::MAX]);
        divisors.extend((0..200).map(|_| xorshift(&mut state).max(1)));
        divisors.extend(
            (0..200)
                .map(|_| xorshift(&mut state) >> (xorshift(&mut state) % 32))
                .filter(|&d| d > 0),
        );
        for &d in &divisors {
            let divisor = Divisor::new(d);
            let mut numerators = vec![0, 1, d - 1, d, d.saturating_add(1), u32::MAX, u32::MAX - 1];
            numerators.extend([u32::MAX / d * d, (u32::MAX / d * d).wrapping_sub(1)]);
            numerators.extend((0..2000).map(|_| xorshift(&mut state)));
            numerators.extend((0..200).map(|_| xorshift(&mut state) % 4096));
            for n in numerators {
                assert_eq!(divisor.divide(n), n / d, "{n} / {d}");
            }
        }
    }
}
