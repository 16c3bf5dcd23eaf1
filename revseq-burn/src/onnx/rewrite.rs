//! The model edit `ModelGen` needs first: onnx-ir parses a `ReverseSequence` of the
//! standard domain to a placeholder that type inference rejects before any hook is
//! asked, while a node of another domain becomes a custom node that a `CustomOp`
//! handles. So the nodes move to [`DOMAIN`], with an `opset_import` for it.

use onnx_ir::{AttributeProto, AttributeType, GraphProto, ModelProto};

/// The domain `ReverseSequence` nodes are moved to, and the hook answers for.
pub const DOMAIN: &str = "revseq";

/// The attribute that keeps a moved node's name from the file.
pub(super) const NAME_ATTRIBUTE: &str = "revseq_onnx_name";

/// Moves every standard-domain `ReverseSequence` node, in the graph and in the
/// graphs of its attributes (`Loop`, `If`, `Scan` bodies), to [`DOMAIN`], and
/// imports that domain at the standard domain's opset, so that the hook's opset
/// range reads the operator's version. Returns how many nodes moved. A model
/// already rewritten (it imports [`DOMAIN`]) is left as it is.
pub fn rewrite(model: &mut ModelProto) -> Result<usize, RewriteError> {
    if model.opset_import.iter().any(|o| o.domain == DOMAIN) {
        return Ok(0);
    }
    let Some(standard) = model
        .opset_import
        .iter()
        .find(|o| is_standard(&o.domain))
        .cloned()
    else {
        return Err(RewriteError::NoStandardOpset);
    };
    let moved = model.graph.as_mut().map_or(0, move_nodes);
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

/// Why [`rewrite`] could not move a model's nodes.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RewriteError {
    /// The model imports no opset of the standard domain, whose version the
    /// moved nodes would keep.
    #[error("opset_import must name the standard ONNX domain")]
    NoStandardOpset,
}

fn is_standard(domain: &str) -> bool {
    domain.is_empty() || domain == "ai.onnx"
}
