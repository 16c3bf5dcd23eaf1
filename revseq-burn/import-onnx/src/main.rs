//! A bidirectional LSTM tagger exported from TensorFlow by tf2onnx, imported into
//! burn with revseq-burn's hook, run on burn's wgpu device over a padded batch.
//! `cargo run -p revseq-burn-import-onnx`
//!
//! The model reverses each sequence by its own length around its backward LSTM
//! (`tf.reverse_sequence`, two ONNX `ReverseSequence` nodes); `build.rs` imports
//! it. Without the hook, burn-onnx 0.22 stops the build at those nodes:
//!
//! ```text
//! Failed to parse ONNX file 'models/tagger.onnx': Type inference failed: Unsupported
//! ONNX operation(s): ReverseSequence (node 'reversesequence1'), ReverseSequence
//! (node 'reversesequence2')
//! ```
//!
//! It prints the largest difference from ONNX Runtime's output for the same batch.

use burn::tensor::{Int, Tensor, TensorData};
use revseq_burn_import_onnx::{tagger, values};

const BATCH: usize = 4;
const TIME: usize = 12;
const FEATURES: usize = 8;
const TAGS: usize = 5;

fn main() -> Result<(), revseq_burn::Error> {
    let device = revseq_burn::init()?;
    let info = revseq_burn::gpu(&device)?.adapter_info();
    println!("adapter: {} ({:?})", info.name, info.backend);

    let model = tagger::Model::from_embedded(&device);
    let x = values("tagger.x.f32", f32::from_le_bytes);
    let lengths = values("tagger.lengths.i32", i32::from_le_bytes);
    let expected = values("tagger.Identity_0.f32", f32::from_le_bytes);
    println!("padded batch [{BATCH}, {TIME}, {FEATURES}], lengths {lengths:?}");

    let x = Tensor::<3>::from_data(TensorData::new(x, [BATCH, TIME, FEATURES]), &device);
    let lengths = Tensor::<1, Int>::from_data(TensorData::new(lengths, [BATCH]), &device);
    let tags = model.forward(x, lengths);
    let tags = tags.into_data().try_into_vec::<f32>().expect("f32 output");
    assert_eq!(tags.len(), BATCH * TIME * TAGS);

    let largest = tags
        .iter()
        .zip(&expected)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!("tags [{BATCH}, {TIME}, {TAGS}]: largest difference from ONNX Runtime {largest:e}");
    Ok(())
}
