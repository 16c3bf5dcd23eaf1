//! A bidirectional LSTM over a padded batch of sequences of different lengths.
//! `cargo run -p revseq-burn --example bidirectional`
//!
//! The backward LSTM must start at each sequence's last real step, not at the
//! padding. Reversing each sequence by its own length before the backward LSTM,
//! and its outputs back after it, does that on the device; the output at every
//! real step then equals running the sequence alone, unpadded. burn's `BiLstm`
//! flips the whole padded sequence, so its backward direction starts on padding.

use burn::nn::{BiLstm, BiLstmConfig};
use burn::tensor::{Device, Distribution, Int, Tensor};
use revseq_burn::reverse_sequence;

/// Both directions over a padded `[batch, time, features]` batch, each sequence
/// reversed by its own length around the backward LSTM.
fn bidirectional(
    lstm: &BiLstm,
    x: Tensor<3>,
    lengths: Tensor<1, Int>,
) -> Result<Tensor<3>, revseq_burn::Error> {
    let [batch, time, _] = x.dims();
    let (forward, _) = lstm.forward.forward(x.clone(), None);
    let reversed = reverse_sequence(x.clone(), lengths.clone(), 0, 1)?;
    let steps = reversed.iter_dim(1).enumerate();
    let (backward, _) = lstm
        .reverse
        .forward_iter(steps, None, batch, time, &x.device());
    let backward = reverse_sequence(backward, lengths, 0, 1)?;
    Ok(Tensor::cat(vec![forward, backward], 2))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::default(); // burn's wgpu runtime: revseq's kernels run on it
    println!(
        "burn's device {device:?}, revseq-burn path {:?}",
        revseq_burn::path(&device)
    );

    let (d_input, d_hidden) = (8, 16);
    let lengths = [12usize, 7, 3, 9];
    let (batch, time) = (lengths.len(), 12);
    let lstm = BiLstmConfig::new(d_input, d_hidden, true).init(&device);

    // Padded batch: random real steps, zeros after each sequence's end.
    let x = Tensor::<3>::random([batch, time, d_input], Distribution::Default, &device);
    let steps = Tensor::<1, Int>::arange(0..time as i64, &device).reshape([1, time, 1]);
    let lens = Tensor::<1, Int>::from_ints(lengths.map(|l| l as i32), &device);
    let real = steps.lower(lens.clone().reshape([batch, 1, 1]));
    let x = x.mask_fill(real.bool_not(), 0.0);

    let ours = bidirectional(&lstm, x.clone(), lens)?;
    let (flipped, _) = lstm.forward(x.clone(), None);

    println!("largest difference from each sequence run alone, unpadded, over its real steps:");
    println!("sequence  length  revseq-burn  burn BiLstm (whole-sequence flip)");
    let mut worst = 0f32;
    for (b, &length) in lengths.iter().enumerate() {
        let alone = x.clone().slice([b..b + 1, 0..length]);
        let (alone, _) = lstm.forward(alone, None);
        let gap = |out: &Tensor<3>| {
            let real = out.clone().slice([b..b + 1, 0..length]);
            (real - alone.clone()).abs().max().into_scalar::<f32>()
        };
        let (ours, flipped) = (gap(&ours), gap(&flipped));
        println!("{b:>8}  {length:>6}  {ours:>11.2e}  {flipped:>11.2e}");
        worst = worst.max(ours);
        assert!(
            length == time || flipped > 1e-3,
            "the padded flip should differ"
        );
    }
    assert!(worst < 1e-5, "revseq-burn's output differs by {worst}");
    println!("revseq-burn matches every sequence run alone (to {worst:.1e}); the whole-sequence flip does not where a sequence is padded");
    Ok(())
}
