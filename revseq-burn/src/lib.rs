//! Length-aware `ReverseSequence` for burn, on every backend, with its gradient.
//!
//! For every lane along one axis, the first `L` elements are reversed and the rest
//! copied, `L` coming from a lengths tensor: what a bidirectional RNN over a padded
//! batch needs before its backward direction, and what ONNX's `ReverseSequence`
//! (tf2onnx's `tf.reverse_sequence`) computes. The tensors stay on burn's device.
//!
//! # Paths
//!
//! On a burn wgpu device whose runtime compiles WGSL (burn's default), however
//! it was brought up (`Device::default()`, burn's options, an application's own
//! setup), the operator is [revseq](https://docs.rs/revseq)'s kernels, launched
//! as a program of dispatches (`revseq::program`) on the tensor's own compute
//! client, in burn's stream. On every other device (burn's CPU backend, CUDA,
//! ROCm, LibTorch, a wgpu runtime that compiles SPIR-V or MSL) it runs as burn's
//! own tensor operations: an index along the axis built from the lengths, then
//! a `select` of rows. Both give the same results and errors; [`path`] says
//! which one a device takes.
//!
//! # Features
//!
//! - `wgpu` (default): the operators (revseq's kernels on burn's wgpu backend,
//!   burn's operations on the others).
//! - `fusion` (default): burn's kernel fusion.
//! - `onnx`: the `onnx` module, the hook that lets burn-onnx import models with ONNX
//!   `ReverseSequence`. A build script needs only this one.
//!
//! # Ordering
//!
//! Each of revseq's dispatches is a launch on the input's compute client, so it
//! runs in burn's stream after burn's pending work on the tensors it reads, and
//! burn's later work follows it; cubecl batches and submits as it does its
//! own kernels. Under fusion the operation is deferred like any other and runs
//! in its place in the stream. burn's wgpu runtime allocates at most one
//! memory page at once (the device's `max_storage_buffer_binding_size`, or its
//! `max_buffer_size` where smaller), so every tensor it holds fits one binding
//! and runs in one window; a view that describes more (`expand`) gets
//! [`Error::TensorTooLarge`], naming the page.
//!
//! # Devices and threads
//!
//! The lengths must be on the input's device by burn's `Device` equality, which
//! does not tell a device from its `.autodiff()`. The operators may be called
//! from any number of threads at once, on one device or several, a device's
//! first use included: burn gives each thread a stream of its own.
//!
//! # Semantics
//!
//! Lengths are clamped on the device to `[0, size of the axis]`, as DirectML
//! does (ONNX calls a length outside that range an error; checking it would mean
//! reading the lengths back to the host). The output is a tensor of the input's
//! dtype, in the input's own buffer where burn lets the operation reuse it (no
//! other tensor holds it, as burn's own in-place operations check): the reversal
//! then swaps only what it reverses. Floats, integers and bools of every width burn has reverse bit-exactly;
//! lengths are `I32`, `I64`, `U32` or `U64`.

#![warn(missing_docs)]

#[cfg(feature = "wgpu")]
mod arguments;
#[cfg(feature = "wgpu")]
mod autodiff;
#[cfg(feature = "wgpu")]
mod backend;
#[cfg(feature = "wgpu")]
mod device;
#[cfg(feature = "wgpu")]
mod error;
#[cfg(feature = "wgpu")]
mod kept;
#[cfg(feature = "wgpu")]
mod launch;
#[cfg(feature = "onnx")]
pub mod onnx;
#[cfg(feature = "wgpu")]
mod ops;
#[cfg(feature = "wgpu")]
mod portable;
#[cfg(feature = "wgpu")]
mod tune;

#[cfg(all(feature = "wgpu", not(target_family = "wasm")))]
#[expect(
    deprecated,
    reason = "the deprecated names still compile for their callers"
)]
pub use device::{init, init_with};
#[cfg(feature = "wgpu")]
#[expect(
    deprecated,
    reason = "the deprecated names still compile for their callers"
)]
pub use device::{init_async, register, Path};
#[cfg(feature = "wgpu")]
pub use device::{path, KernelPath};
#[cfg(feature = "wgpu")]
pub use error::Error;
#[cfg(feature = "wgpu")]
pub use ops::{reverse_sequence, reverse_subsequences, Reversible};

/// For revseq-burn's own tests and examples, not part of its API: which code
/// ran, the portable path on any device, and smaller bindings.
#[cfg(feature = "wgpu")]
#[doc(hidden)]
pub mod lab {
    use burn::tensor::{Device, Int, Tensor};

    use crate::ops::{sequence, subsequences, Route};
    use crate::{Error, Reversible};

    /// How many times revseq's kernels ran in this process, and how many of
    /// those in place.
    pub fn kernel_runs() -> [u64; 2] {
        crate::launch::launches()
    }

    /// The name of the adapter behind `device`, where it runs revseq's kernels.
    pub fn adapter(device: &Device) -> Option<String> {
        crate::device::kernel_client(device).map(|c| c.properties().identity.name.clone())
    }

    /// How many programs revseq-burn keeps for `device`'s client, where it
    /// runs revseq's kernels: at most [`KEPT_PROGRAMS`].
    pub fn kept_programs(device: &Device) -> Option<usize> {
        crate::device::kernel_client(device).map(|client| crate::kept::Kept::of(&client).programs())
    }

    /// The most programs revseq-burn keeps for one client.
    pub const KEPT_PROGRAMS: usize = crate::kept::KEPT_PROGRAMS;

    /// Plans for bindings of at most `bytes` from now on in this process
    /// (`None`: the device's own), so that small tensors run windowed.
    pub fn set_max_binding(bytes: Option<u64>) {
        crate::kept::set_max_binding(bytes)
    }

    /// Turns autotune on or off for every client from now on (`None`: the
    /// default, on where the adapter is a GPU, as `REVSEQ_AUTOTUNE` says).
    pub fn set_autotune(on: Option<bool>) {
        crate::tune::force(on)
    }

    /// How many classes autotune has timed in this process.
    pub fn tunings() -> usize {
        crate::tune::tunings()
    }

    /// [`reverse_sequence`](crate::reverse_sequence) on the portable path,
    /// whatever the device.
    pub fn reverse_sequence<const D: usize, K: Reversible>(
        x: Tensor<D, K>,
        sequence_lens: Tensor<1, Int>,
        batch_axis: usize,
        time_axis: usize,
    ) -> Result<Tensor<D, K>, Error> {
        sequence(x, sequence_lens, batch_axis, time_axis, Route::Portable)
    }

    /// [`reverse_subsequences`](crate::reverse_subsequences) on the portable
    /// path, whatever the device.
    pub fn reverse_subsequences<const D: usize, K: Reversible>(
        x: Tensor<D, K>,
        lengths: Tensor<D, Int>,
        axis: usize,
    ) -> Result<Tensor<D, K>, Error> {
        subsequences(x, lengths, axis, Route::Portable)
    }
}
