//! Two TensorFlow taggers exported by tf2onnx, imported into burn with
//! revseq-burn's hook (`build.rs`), run over a padded batch on burn's wgpu device
//! (revseq's kernels) and on burn's CPU backend (revseq-burn's portable path).
//! `cargo run -p revseq-burn-import-onnx`
//!
//! - `tagger`: `tf.reverse_sequence` by each sequence's length around the backward
//!   LSTM, as `bidirectional_dynamic_rnn(..., sequence_length=...)` does; the
//!   lengths are a model input.
//! - `keras_bilstm`: Keras `Masking`, `Bidirectional(LSTM)`, `Dense`.
//!
//! Without the hook, burn-onnx 0.22 stops the build at the `ReverseSequence` nodes:
//!
//! ```text
//! Failed to parse ONNX file 'models/tagger.onnx': Type inference failed: Unsupported
//! ONNX operation(s): ReverseSequence (node 'reversesequence1'), ReverseSequence
//! (node 'reversesequence2')
//! ```
//!
//! It prints each model's largest difference from ONNX Runtime's output.

use burn::tensor::{Device, Int, Tensor, TensorData};
use revseq_burn_import_onnx::{keras_bilstm, tagger, values};

const BATCH: usize = 4;
const TIME: usize = 12;
const FEATURES: usize = 8;
const TAGS: usize = 5;

fn main() -> Result<(), revseq_burn::Error> {
    let gpu = Device::default();
    let adapter = revseq_burn::lab::adapter(&gpu).unwrap_or_else(|| format!("{gpu:?}"));
    let lengths = values("tagger.lengths.i32", i32::from_le_bytes);
    println!("padded batch [{BATCH}, {TIME}, {FEATURES}], lengths {lengths:?}");
    for (device, name) in [
        (gpu, format!("adapter {adapter}")),
        (Device::flex(), "burn's CPU backend".to_string()),
    ] {
        println!("{name}, revseq-burn path {:?}:", revseq_burn::path(&device));
        let x = || {
            let x = values("tagger.x.f32", f32::from_le_bytes);
            Tensor::<3>::from_data(TensorData::new(x, [BATCH, TIME, FEATURES]), &device)
        };
        let lengths =
            Tensor::<1, Int>::from_data(TensorData::new(lengths.clone(), [BATCH]), &device);
        let tags = tagger::Model::from_embedded(&device).forward(x(), lengths);
        report("tagger", tags, "tagger.Identity_0.f32");
        let tags = keras_bilstm::Model::from_embedded(&device).forward(x());
        report("keras_bilstm", tags, "keras_bilstm.dense_1.f32");
    }
    Ok(())
}

/// Prints the largest difference between `tags` and ONNX Runtime's output.
fn report(model: &str, tags: Tensor<3>, onnx_runtime: &str) {
    let tags = tags.into_data().try_into_vec::<f32>().expect("f32 output");
    let expected = values(onnx_runtime, f32::from_le_bytes);
    assert_eq!(tags.len(), BATCH * TIME * TAGS);
    assert_eq!(tags.len(), expected.len());
    let largest = tags
        .iter()
        .zip(&expected)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!(
        "  {model}: tags [{BATCH}, {TIME}, {TAGS}], largest difference from ONNX Runtime {largest:e}"
    );
}
