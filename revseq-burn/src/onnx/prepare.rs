//! Reading a model, rewriting it and writing it where `ModelGen` reads it.

use std::path::{Path, PathBuf};

use onnx_ir::{Message, ModelProto};

use super::rewrite::rewrite;
use super::PrepareError;

/// Rewrites the model at `model` for burn-onnx ([`rewrite`](super::rewrite)) and
/// writes it to `$OUT_DIR/revseq-onnx/` under the same file name (burn-onnx names
/// the generated module after it); returns that path, for `ModelGen::input`.
///
/// For a build script: it also prints `cargo:rerun-if-changed` for `model`.
pub fn prepare(model: impl AsRef<Path>) -> Result<PathBuf, PrepareError> {
    let model = model.as_ref();
    let out_dir = std::env::var_os("OUT_DIR").ok_or(PrepareError::OutDir)?;
    let dir = Path::new(&out_dir).join("revseq-onnx");
    let name = model.file_name().ok_or_else(|| PrepareError::Io {
        path: model.to_path_buf(),
        source: std::io::Error::other("the path names no file"),
    })?;
    let out = dir.join(name);
    prepare_into(model, &out)?;
    println!("cargo:rerun-if-changed={}", model.display());
    Ok(out)
}

/// [`prepare`] with the output path given: reads `model`, rewrites it and
/// writes the result to `out`.
/// Returns how many nodes moved.
pub fn prepare_into(model: &Path, out: &Path) -> Result<usize, PrepareError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| PrepareError::Io { path, source }
    };
    let bytes = std::fs::read(model).map_err(io(model))?;
    let mut proto = ModelProto::parse_from_bytes(&bytes).map_err(|e| PrepareError::Parse {
        path: model.to_path_buf(),
        reason: e.to_string(),
    })?;
    let moved = rewrite(&mut proto).map_err(|rule| PrepareError::Model {
        path: model.to_path_buf(),
        rule,
    })?;
    let bytes = proto.write_to_bytes().map_err(|e| PrepareError::Parse {
        path: out.to_path_buf(),
        reason: e.to_string(),
    })?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    std::fs::write(out, bytes).map_err(io(out))?;
    Ok(moved)
}
