//! The model edit `ModelGen` needs first: onnx-ir parses a `ReverseSequence` of the
//! standard domain to a placeholder that type inference rejects before any hook is
//! asked, while a node of another domain becomes a custom node that a `CustomOp`
//! handles. So the nodes move to [`DOMAIN`], with an `opset_import` for it.

use std::path::{Path, PathBuf};

use onnx_ir::{AttributeProto, AttributeType, GraphProto, Message, ModelProto};

use super::PrepareError;

/// The domain `ReverseSequence` nodes are moved to, and the hook answers for.
pub const DOMAIN: &str = "revseq";

/// The attribute that keeps a moved node's name from the file.
pub(super) const NAME_ATTRIBUTE: &str = "revseq_onnx_name";

/// Rewrites the model at `model` for [`ReverseSequence`](super::ReverseSequence) and
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

/// [`prepare`] with the output path given: reads `model`, moves its
/// `ReverseSequence` nodes to [`DOMAIN`] and writes the result to `out`.
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

/// Moves every standard-domain `ReverseSequence` node, in the graph and in the
/// graphs of its attributes (`Loop`, `If`, `Scan` bodies), to [`DOMAIN`], and
/// imports that domain at the standard domain's opset, so that the hook's opset
/// range reads the operator's version. Returns how many nodes moved; running it
/// twice moves none the second time.
pub fn rewrite(model: &mut ModelProto) -> Result<usize, String> {
    let moved = model.graph.as_mut().map_or(0, move_nodes);
    if model.opset_import.iter().any(|o| o.domain == DOMAIN) {
        return Ok(moved);
    }
    let Some(standard) = model
        .opset_import
        .iter()
        .find(|o| is_standard(&o.domain))
        .cloned()
    else {
        return Err("opset_import must name the standard ONNX domain".into());
    };
    let mut ours = standard;
    ours.domain = DOMAIN.into();
    model.opset_import.push(ours);
    Ok(moved)
}

fn move_nodes(graph: &mut GraphProto) -> usize {
    let mut moved = 0;
    for node in &mut graph.node {
        if node.op_type == "ReverseSequence" && is_standard(&node.domain) {
            node.domain = DOMAIN.into();
            // onnx-ir renames nodes; the hook's messages name the node as the file does.
            if !node.name.is_empty() {
                let mut name = AttributeProto::new();
                name.name = NAME_ATTRIBUTE.into();
                name.type_ = AttributeType::STRING.into();
                name.s = node.name.clone().into_bytes().into();
                node.attribute.push(name);
            }
            moved += 1;
        }
        for attribute in &mut node.attribute {
            moved += attribute.g.as_mut().map_or(0, move_nodes);
            moved += attribute.graphs.iter_mut().map(move_nodes).sum::<usize>();
        }
    }
    moved
}

fn is_standard(domain: &str) -> bool {
    domain.is_empty() || domain == "ai.onnx"
}
