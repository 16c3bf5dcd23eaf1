//! Length-aware `ReverseSequence` for burn, on every backend, with its gradient.
//!
//! For every lane along one axis, the first `L` elements are reversed and the rest
//! copied, `L` coming from a lengths tensor: what a bidirectional RNN over a padded
//! batch needs before its backward direction, and what ONNX's `ReverseSequence`
//! (tf2onnx's `tf.reverse_sequence`) computes. The tensors stay on burn's device.
//!
//! # Paths
//!
//! On a burn wgpu device that this crate brought up ([`init`]) or was told about
//! ([`register`]), the operator is [revseq](https://docs.rs/revseq), recorded on
//! the very `wgpu::Device` and `Queue` burn runs on. On every other device (burn's
//! CPU backend, CUDA, ROCm, LibTorch, or a wgpu runtime burn brought up before
//! `init` could) it runs as burn's own tensor operations: an index along the axis
//! built from the lengths, then a `select` of rows. Both give the same results and errors;
//! [`path`] says which one a device takes. burn 0.22 does not hand out an
//! initialised wgpu runtime's handles: call [`init`] before burn's first tensor on
//! that device to get revseq's kernels there.
//!
//! # Features
//!
//! - `wgpu` (default): the operators (revseq's kernels on burn's wgpu backend,
//!   burn's operations on the others).
//! - `fusion` (default): burn's kernel fusion.
//! - `onnx`: the `onnx` module, the hook that lets burn-onnx import models with ONNX
//!   `ReverseSequence`. A build script needs only this one.
//!
//! # The device
//!
//! burn's wgpu runtime does not hand out its `wgpu::Device` and `Queue`, but it
//! returns them when it is brought up with `Device::wgpu_options().init_with_setup()`,
//! and takes an application's own with `.setup(setup).init()`. [`init`] and
//! [`init_with`] do the first; [`register`] records the second. Either way burn
//! keeps its runtime (fusion, autotune, memory pools) and revseq submits to its queue.
//!
//! # Ordering
//!
//! The cubecl backend method takes each tensor's buffer through cubecl's
//! `ComputeClient::get_resource`, which submits the work burn has pending on that
//! tensor first; revseq's command buffer follows on the same queue, and burn's later
//! work follows it. Under fusion the operation is deferred like any other and runs
//! in its place in the stream. Small tensors that burn packs into the output's
//! buffer, or at an offset a binding cannot start at, are first copied into a
//! buffer of their own.
//!
//! # Semantics
//!
//! Lengths are clamped on the device to `[0, size of the axis]`, as DirectML
//! does (ONNX calls a length outside that range an error; checking it would mean
//! reading the lengths back to the host). The output is a tensor of the input's
//! dtype, in the input's own buffer where burn lets the operation reuse it (no
//! other tensor holds it, as burn's own in-place operations check): the reversal
//! then swaps only what it reverses ([`in_place_count`]). Floats, integers and bools of every width burn has reverse bit-exactly;
//! lengths are `I32`, `I64`, `U32` or `U64`.

#![warn(missing_docs)]

#[cfg(feature = "wgpu")]
mod autodiff;
#[cfg(feature = "wgpu")]
mod backend;
#[cfg(feature = "wgpu")]
mod device;
#[cfg(feature = "wgpu")]
mod error;
#[cfg(feature = "onnx")]
pub mod onnx;
#[cfg(feature = "wgpu")]
mod ops;
#[cfg(feature = "wgpu")]
mod plan;
#[cfg(feature = "wgpu")]
mod portable;

#[cfg(feature = "wgpu")]
pub use backend::{in_place_count, Reversal, ReverseBackend};
#[cfg(feature = "wgpu")]
pub use device::{gpu, init_async, path, register, Path};
#[cfg(all(feature = "wgpu", not(target_family = "wasm")))]
pub use device::{init, init_with};
#[cfg(feature = "wgpu")]
pub use error::Error;
#[cfg(feature = "wgpu")]
pub use ops::{reverse_sequence, reverse_subsequences, Reversible};
