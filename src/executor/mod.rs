//! The wgpu executor: a [`Program`](crate::program::Program) built on a
//! device (pipelines, uniforms, scratch, the placeholder), recorded into a
//! caller's encoder or run on host slices in bounded submissions, sync or
//! async, and the device itself (adapters, the GL lock, error scopes, loss).

pub(crate) mod adapter;
pub(crate) mod autotune;
pub(crate) mod calls;
pub(crate) mod compile;
pub(crate) mod compiled;
pub(crate) mod compiled_in_place;
pub(crate) mod device_lock;
pub(crate) mod encode;
pub(crate) mod entry;
pub(crate) mod gpu;
pub(crate) mod lost;
pub(crate) mod parts;
pub(crate) mod pipeline;
pub(crate) mod run;
pub(crate) mod scope;
pub(crate) mod signal;
pub(crate) mod submission;
pub(crate) mod uniform;
