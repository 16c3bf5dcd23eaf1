//! Reading a model, rewriting it and writing it where `ModelGen` reads it.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use onnx_ir::{GraphProto, Message, ModelProto, TensorProto};

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
/// writes the result to `out`, with the files of its external data (hard links
/// where the file system allows, copies otherwise).
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
    let from = model.parent().unwrap_or(Path::new(""));
    let to = out.parent().unwrap_or(Path::new(""));
    std::fs::create_dir_all(to).map_err(io(to))?;
    std::fs::write(out, bytes).map_err(io(out))?;
    for location in external_data(&proto) {
        let (source, target) = (from.join(&location), to.join(&location));
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        let _ = std::fs::remove_file(&target);
        if std::fs::hard_link(&source, &target).is_err() {
            std::fs::copy(&source, &target).map_err(io(&source))?;
        }
    }
    Ok(moved)
}

/// The files the model's tensors are stored in (ONNX external data), relative to
/// the model: they go beside the rewritten model, since onnx-ir reads them from
/// its folder and refuses absolute paths and links that leave it. A location
/// onnx-ir would refuse (absolute, or with `..`) is left for it to report.
fn external_data(model: &ModelProto) -> BTreeSet<PathBuf> {
    let mut files = BTreeSet::new();
    if let Some(graph) = model.graph.as_ref() {
        tensors_of(graph, &mut |tensor| {
            let external = tensor.data_location.value() == 1; // EXTERNAL
            let location = tensor.external_data.iter().find(|e| e.key == "location");
            if let Some(location) = location.filter(|_| external) {
                let path = PathBuf::from(&location.value);
                if path.components().all(|c| matches!(c, Component::Normal(_))) {
                    files.insert(path);
                }
            }
        });
    }
    files
}

/// Calls `f` on every tensor of `graph`: its initializers and its nodes'
/// attributes, in subgraphs too.
fn tensors_of(graph: &GraphProto, f: &mut impl FnMut(&TensorProto)) {
    graph.initializer.iter().for_each(&mut *f);
    for attribute in graph.node.iter().flat_map(|n| &n.attribute) {
        attribute
            .t
            .as_ref()
            .into_iter()
            .chain(&attribute.tensors)
            .for_each(&mut *f);
        for body in attribute.g.as_ref().into_iter().chain(&attribute.graphs) {
            tensors_of(body, f);
        }
    }
}
