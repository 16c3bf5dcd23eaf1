//! Imports the models in models/ with burn-onnx: what a user's `build.rs` does,
//! each model first prepared (its `ReverseSequence` nodes moved to revseq's
//! domain) and revseq-burn's hook registered. Weights are embedded.

fn main() {
    for name in [
        "tagger",
        "keras_bilstm",
        "kinds",
        "kinds_external",
        "shape_lengths",
        "test_reversesequence_batch",
        "test_reversesequence_time",
        "test_reversesequence_bfloat16",
    ] {
        let model = revseq_burn::onnx::prepare(format!("models/{name}.onnx"))
            .unwrap_or_else(|e| panic!("{e}"));
        burn_onnx::ModelGen::new()
            .input(model.to_str().expect("OUT_DIR is UTF-8"))
            .out_dir("model/")
            .load_strategy(burn_onnx::LoadStrategy::Embedded)
            .register_custom_op(revseq_burn::onnx::ReverseSequence)
            .run_from_script();
    }
}
