//! The laboratory, behind `lab`: the trace build of the real kernels and the
//! SIMT model that counts what their accesses cost; for revseq's own tests
//! and benchmark, not part of the API.

pub mod simt;
#[cfg(not(target_arch = "wasm32"))]
pub mod trace;
