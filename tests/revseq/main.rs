//! All GPU and reference tests in one binary, to link wgpu once.

#![cfg(not(target_arch = "wasm32"))]

mod asynchronous;
mod autotune;
mod cache;
mod examples;
mod exhaustive;
mod in_place;
mod lost;
mod lost_race;
#[path = "../../benches/support/packed.rs"]
mod packed;
mod program;
mod readme;
mod record;
mod special;
mod strided;
mod submissions;
mod support;
mod validation;
mod variants;
mod windows;
