//! The `onnx` feature: the rewrite, and what burn-onnx's `ModelGen` says at build
//! time with and without the hook (the models are import-onnx's).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use burn_onnx::ModelGen;
use onnx_ir::{Message, ModelProto};
use revseq_burn::onnx::{prepare_into, rewrite, ReverseSequence, RewriteError, DOMAIN};

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("import-onnx/models/{name}.onnx"))
}

fn load(path: &Path) -> ModelProto {
    ModelProto::parse_from_bytes(&std::fs::read(path).expect("model")).expect("ONNX")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("revseq-onnx-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Runs `ModelGen` on `path` (with the hook when `hook`), returning its panic
/// message: the build failure a user would see.
fn model_gen_failure(path: &Path, hook: bool) -> String {
    let stem = path.file_stem().expect("a file").to_string_lossy();
    let out = scratch(&format!("out-{stem}"));
    let failure = catch_unwind(AssertUnwindSafe(|| {
        let mut generator = ModelGen::new();
        generator
            .input(path.to_str().expect("UTF-8"))
            .out_dir(out.to_str().expect("UTF-8"));
        if hook {
            generator.register_custom_op(ReverseSequence);
        }
        generator.run_from_cli();
    }))
    .expect_err("ModelGen must fail");
    let _ = std::fs::remove_dir_all(&out);
    failure
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| failure.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("a panic message")
}

#[test]
fn rewrite_moves_every_reverse_sequence_once() {
    let mut proto = load(&model("tagger"));
    let standard = |p: &ModelProto| {
        let graph = p.graph.as_ref().expect("graph");
        graph
            .node
            .iter()
            .filter(|n| n.op_type == "ReverseSequence")
            .map(|n| n.domain.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(standard(&proto), ["", ""]);
    assert_eq!(rewrite(&mut proto), Ok(2));
    assert_eq!(standard(&proto), [DOMAIN, DOMAIN]);
    let ours: Vec<i64> = proto
        .opset_import
        .iter()
        .filter(|o| o.domain == DOMAIN)
        .map(|o| o.version)
        .collect();
    assert_eq!(ours, [17], "the standard domain's opset");
    assert_eq!(rewrite(&mut proto), Ok(0), "a second rewrite moves nothing");
    assert_eq!(
        proto
            .opset_import
            .iter()
            .filter(|o| o.domain == DOMAIN)
            .count(),
        1
    );
    // A model that imports no standard opset: nothing to keep the version of.
    let mut bare = load(&model("tagger"));
    bare.opset_import.clear();
    assert_eq!(rewrite(&mut bare), Err(RewriteError::NoStandardOpset));
}

/// Nodes in the graphs of attributes (here an `If`'s branch) move too.
#[test]
fn rewrite_reaches_subgraphs() {
    let mut proto = load(&model("test_reversesequence_batch"));
    let graph = proto.graph.as_mut().expect("graph");
    let mut branch = graph.clone();
    branch.input.clear();
    let mut attribute = onnx_ir::AttributeProto::new();
    attribute.name = "then_branch".into();
    attribute.type_ = onnx_ir::AttributeType::GRAPH.into();
    *attribute.g.mut_or_insert_default() = branch;
    let mut branching = graph.node[0].clone();
    branching.op_type = "If".into();
    branching.attribute = vec![attribute];
    graph.node.push(branching);
    assert_eq!(rewrite(&mut proto), Ok(2));
    let graph = proto.graph.as_ref().expect("graph");
    let branch = graph.node[1].attribute[0].g.as_ref().expect("branch");
    assert_eq!(branch.node[0].domain, DOMAIN);
}

/// A model's external data files go beside the rewritten model.
#[test]
fn prepare_carries_external_data() {
    let dir = scratch("external");
    let prepared = dir.join("kinds_external.onnx");
    assert_eq!(
        prepare_into(&model("kinds_external"), &prepared).expect("prepared"),
        3
    );
    let data = |folder: &Path| std::fs::read(folder.join("kinds_external.data")).expect("data");
    let source = model("kinds_external");
    assert_eq!(data(&dir), data(source.parent().expect("models/")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_the_hook_burn_onnx_rejects_the_model() {
    let message = model_gen_failure(&model("tagger"), false);
    assert!(
        message.contains("Unsupported ONNX operation(s): ReverseSequence"),
        "{message}"
    );
}

/// A change to a model.
type Edit = fn(&mut ModelProto);

/// A node the hook cannot run fails the build, naming the node and the rule.
#[test]
fn a_node_the_hook_cannot_run_fails_the_build() {
    let dir = scratch("rejected");
    let cases: [(&str, Edit, &str); 2] = [
        (
            "axis",
            |m| {
                let node = &mut m.graph.as_mut().expect("graph").node[0];
                let attribute = node.attribute.iter_mut().find(|a| a.name == "batch_axis");
                attribute.expect("batch_axis").i = 2;
            },
            "ReverseSequence node 'reverse_x' (custom1): batch_axis must be 0 or 1, not 2",
        ),
        (
            "lengths",
            |m| {
                let graph = m.graph.as_mut().expect("graph");
                let lengths = graph.input.iter_mut().find(|i| i.name == "sequence_lens");
                let shape = lengths
                    .expect("sequence_lens")
                    .type_
                    .mut_or_insert_default();
                shape.mut_tensor_type().shape.mut_or_insert_default().dim[0].set_dim_value(3);
            },
            "sequence_lens has 3 lengths, but batch_axis 0 of the input has size 4",
        ),
    ];
    for (name, edit, rule) in cases {
        let mut proto = load(&model("test_reversesequence_batch"));
        proto.graph.as_mut().expect("graph").node[0].name = "reverse_x".into();
        edit(&mut proto);
        let edited = dir.join(format!("{name}.onnx"));
        std::fs::write(&edited, proto.write_to_bytes().expect("bytes")).expect("write");
        let prepared = dir.join(format!("prepared/{name}.onnx"));
        assert_eq!(prepare_into(&edited, &prepared).expect("prepared"), 1);
        let message = model_gen_failure(&prepared, true);
        assert!(message.contains(rule), "{name}: {message}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
