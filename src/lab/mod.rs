//! The laboratory, behind `lab`: the trace build of the real kernels and a
//! door onto autotune's clock, for revseq's own tests and benchmark, not part
//! of the API.

#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod access;
#[cfg(not(target_arch = "wasm32"))]
pub mod clock;
#[cfg(not(target_arch = "wasm32"))]
pub mod trace;
