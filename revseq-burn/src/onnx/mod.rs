//! Importing ONNX models with `ReverseSequence` into burn, through burn-onnx's
//! `ModelGen` in a build script (the `onnx` feature).
//!
//! burn-onnx has no `ReverseSequence` of its own and rejects the node before a
//! hook for the standard domain is asked, so two steps: [`prepare`] moves the
//! nodes to [`DOMAIN`] (a protobuf edit, in Rust), and [`ReverseSequence`] is the
//! `CustomOp` for that domain. The generated `forward` calls
//! [`reverse_sequence`](crate::reverse_sequence) on burn's wgpu device:
//!
//! ```no_run
//! // build.rs, with revseq-burn (default-features = false, features = ["onnx"])
//! // and burn-onnx 0.22 as build-dependencies
//! let model = revseq_burn::onnx::prepare("model/tagger.onnx").unwrap();
//! burn_onnx::ModelGen::new()
//!     .input(model.to_str().unwrap())
//!     .out_dir("model/")
//!     .register_custom_op(revseq_burn::onnx::ReverseSequence)
//!     .run_from_script();
//! ```
//!
//! # Errors
//!
//! A node the hook cannot run (an axis outside 0 and 1, a string or quantized
//! input, lengths that are not integers, a known lengths count that is not the
//! batch size) fails the build, naming the node and the rule. The generated
//! `forward` returns tensors, not `Result`: where
//! [`reverse_sequence`](crate::reverse_sequence) returns an error at run time (a
//! lengths tensor of the wrong size, or on another device), it panics
//! with the node's name and that error's text, as burn's own operations panic on
//! shapes that do not fit.

mod hook;
mod prepare;
mod rewrite;

use std::path::PathBuf;

pub use hook::ReverseSequence;
pub use prepare::{prepare, prepare_into};
pub use rewrite::{rewrite, RewriteError, DOMAIN};

/// Why [`prepare`] could not rewrite a model.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// Not run from a build script: `OUT_DIR` is not set.
    #[error("OUT_DIR is not set: prepare runs in a build script (or use prepare_into)")]
    OutDir,
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not an ONNX model.
    #[error("{}: not an ONNX model: {reason}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the protobuf decoder said.
        reason: String,
    },
    /// The model breaks a rule the rewrite needs.
    #[error("{}: {rule}", path.display())]
    Model {
        /// The file.
        path: PathBuf,
        /// The rule.
        rule: RewriteError,
    },
}
