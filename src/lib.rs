//! Reverse subsequences on any wgpu adapter: DirectML's `DML_REVERSE_SUBSEQUENCES`
//! and ONNX's `ReverseSequence`, bit-exact for every data type.
//!
//! For every lane along `axis`, the first `L` elements are reversed and the rest
//! copied; `L` is the lane's sequence length clamped to `[0, size of axis]`, so 0 and 1
//! change nothing and a length past the axis reverses the whole lane. Signed lengths
//! below 0 count as 0.
//!
//! ```
//! # fn main() -> Result<(), revseq::Error> {
//! let gpu = revseq::Gpu::new()?;
//! // DirectML's first example: reverse along the last axis, one length per row.
//! let input: Vec<f32> = (1..=12).map(|v| v as f32).collect();
//! let output = gpu.reverse_subsequences(&input, &[1, 1, 3, 4], &[2u32, 4, 3], 3)?;
//! assert_eq!(output, [2., 1., 3., 4., 8., 7., 6., 5., 11., 10., 9., 12.]);
//! # Ok(())
//! # }
//! ```
//!
//! For GPU-resident tensors, [`Gpu::compile`] a [`ReverseSubsequences`] once and
//! [`CompiledReverse::record`] it into your own `CommandEncoder` as often as needed.
//!
//! The operator is its own inverse and leaves every position past a lane's
//! length alone, so it also runs in place ([`ReverseInPlace`],
//! [`Gpu::compile_in_place`], [`Gpu::reverse_subsequences_in_place`]): it swaps
//! the elements each lane reverses and moves nothing else, with no second tensor.

#![warn(missing_docs)]

// The rooms, by layer: what a caller describes, the plan made of it on the
// host, the kernel families the plan runs, the wgpu executor that records and
// runs a plan, the CPU reference, and the laboratory (`lab`).
mod bounded;
mod descriptor;
mod executor;
// With the `lab` feature, revseq's benchmark and tests reach the plan's internals
// (`PipelineKey`, `Walk`, `Tuning`, the shaders) and the laboratory's modules.
#[cfg_attr(
    not(feature = "lab"),
    expect(unreachable_pub, reason = "the laboratory (`lab`) reaches these")
)]
mod kernels;
#[cfg(feature = "lab")]
mod lab;
mod plan;
pub mod reference;

pub use descriptor::dtype::{DataType, Element, SequenceLength};
pub use descriptor::error::{Error, InPlaceRule, TensorRole};
pub use descriptor::in_place::ReverseInPlace;
pub use descriptor::operator::{ReverseSubsequences, MAX_RANK, MAX_TENSOR_BYTES};
pub use descriptor::tensor::TensorDesc;
pub use executor::compiled::CompiledReverse;
pub use executor::compiled_in_place::CompiledInPlace;
pub use executor::device::adapter::adapter_from_env;
pub use executor::device::device_lock::DeviceLock;
pub use executor::device::gpu::Gpu;
#[cfg(not(target_arch = "wasm32"))]
pub use executor::device::submission::wait_for_queue;
#[cfg(feature = "lab")]
pub use kernels::shaders;
#[cfg(feature = "lab")]
pub use kernels::tuning::Tuning;
pub use kernels::variant::Variant;
#[cfg(feature = "lab")]
pub use kernels::{PipelineKey, Walk};
#[cfg(all(feature = "lab", not(target_arch = "wasm32")))]
pub use lab::clock;
#[cfg(all(feature = "lab", not(target_arch = "wasm32")))]
pub use lab::trace;
pub use plan::candidates::{MAX_TUNING_BYTES, MIN_TUNED_BYTES};
pub use plan::program;
/// The wgpu this crate is built on: use it to create the devices, buffers and
/// encoders you pass in, so that the types match.
pub use wgpu;
