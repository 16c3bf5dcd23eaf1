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

mod adapter;
mod bindings;
mod calls;
mod compile;
mod compiled;
mod compiled_in_place;
mod device_lock;
mod divisor;
mod dtype;
mod encode;
mod entry;
mod error;
mod gpu;
mod in_place;
// With the `lab` feature, revseq's benchmark and tests reach the plan's internals
// (`PipelineKey`, `Walk`, `Tuning`) and the laboratory's modules below.
mod dispatches;
#[cfg_attr(
    not(feature = "lab"),
    expect(unreachable_pub, reason = "the laboratory (`lab`) reaches these")
)]
mod kernels;
mod layout;
mod lost;
mod onnx;
mod operator;
mod params;
mod parts;
mod pipeline;
mod plan;
pub mod program;
pub mod reference;
mod run;
mod scope;
#[cfg(feature = "lab")]
pub mod shaders;
#[cfg(not(feature = "lab"))]
#[expect(unreachable_pub, reason = "the laboratory (`lab`) reaches these")]
mod shaders;
mod signal;
#[cfg(feature = "lab")]
pub mod simt;
mod submission;
mod target;
mod tensor;
#[cfg(all(feature = "lab", not(target_arch = "wasm32")))]
pub mod trace;
#[cfg_attr(
    not(feature = "lab"),
    expect(unreachable_pub, reason = "the laboratory (`lab`) reaches these")
)]
mod tuning;
mod uniform;
mod variant;
mod window;

pub use adapter::adapter_from_env;
pub use compiled::CompiledReverse;
pub use compiled_in_place::CompiledInPlace;
pub use device_lock::DeviceLock;
pub use dtype::{DataType, Element, SequenceLength};
pub use error::{Error, InPlaceRule, TensorRole};
pub use gpu::Gpu;
pub use in_place::ReverseInPlace;
#[cfg(feature = "lab")]
pub use kernels::{PipelineKey, Walk};
pub use operator::{ReverseSubsequences, MAX_RANK, MAX_TENSOR_BYTES};
#[cfg(not(target_arch = "wasm32"))]
pub use submission::wait_for_queue;
pub use tensor::TensorDesc;
#[cfg(feature = "lab")]
pub use tuning::Tuning;
pub use variant::Variant;
/// The wgpu this crate is built on: use it to create the devices, buffers and
/// encoders you pass in, so that the types match.
pub use wgpu;
