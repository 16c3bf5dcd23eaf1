//! All GPU and reference tests in one binary, to link wgpu once.

mod cache;
mod examples;
mod exhaustive;
mod record;
mod shaders;
mod special;
mod strided;
mod support;
mod validation;
mod variants;
