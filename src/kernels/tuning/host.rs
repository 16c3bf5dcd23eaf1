//! What the CPU a CPU adapter runs on says about it: such an adapter (lavapipe,
//! SwiftShader, WARP) compiles the kernels for the host's own vector units.

/// Whether 64-bit words move faster than 32-bit ones on a CPU adapter of this
/// host, for kernels that only move words (`docs/tuning.md`, "64-bit words by
/// host"): on AMD's cores a 16-byte vector copied as two 64-bit words per lane
/// beats four 32-bit ones; on Intel's it loses. Hosts not known to lose keep
/// them.
pub(crate) fn moves_64_bit_words() -> bool {
    !intel()
}

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn intel() -> bool {
    #[cfg(target_arch = "x86")]
    use std::arch::x86::__cpuid;
    #[cfg(target_arch = "x86_64")]
    use std::arch::x86_64::__cpuid;
    // The vendor leaf exists on every x86 CPU Rust builds for; the intrinsic is
    // unsafe in older Rust and safe in newer.
    #[allow(
        unused_unsafe,
        reason = "the intrinsic is unsafe in older Rust, safe in newer"
    )]
    let id = unsafe { __cpuid(0) };
    [id.ebx, id.edx, id.ecx]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .eq(*b"GenuineIntel")
}

#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
fn intel() -> bool {
    false
}
