//! The wgpu executor: a [`Program`](crate::program::Program) built on a
//! device (pipelines, uniforms, scratch, the placeholder), recorded into a
//! caller's encoder or run on host slices in bounded submissions, sync or
//! async. Its rooms import one way: `device/` (the handle and what it takes
//! to talk to wgpu safely) ← the engine that builds and records a program
//! (`build.rs`, `compiled.rs`, `uniform.rs`, `encode.rs`, `parts.rs`) ←
//! `autotune/` (which program) ← the entry points (`entry.rs`, `run.rs`).

pub(crate) mod autotune;
pub(crate) mod build;
pub(crate) mod compiled;
pub(crate) mod compiled_in_place;
pub(crate) mod device;
pub(crate) mod encode;
pub(crate) mod entry;
pub(crate) mod parts;
pub(crate) mod run;
pub(crate) mod uniform;
