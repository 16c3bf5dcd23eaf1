//! The device: the [`Gpu`](crate::Gpu) handle and its settings, the adapter it
//! came from, the pipeline cache and autotune's kept choices it carries, and
//! what it takes to talk to wgpu safely: the lock of a backend that
//! serialises every call, error scopes, bounded submissions and their waits,
//! a lost device, the one-shot channel a callback answers on.

pub(crate) mod adapter;
pub(crate) mod calls;
pub(crate) mod choices;
pub(crate) mod device_lock;
pub(crate) mod gpu;
pub(crate) mod lost;
pub(crate) mod pipeline;
pub(crate) mod scope;
pub(crate) mod signal;
pub(crate) mod submission;
