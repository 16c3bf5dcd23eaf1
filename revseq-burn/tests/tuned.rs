//! Autotune on burn's device (`src/tune.rs`), in a process of its own: it is
//! turned on for every client of the process, and counts the classes timed.
//! On lavapipe, where it is off by default, it is turned on as on a GPU.

mod adapter;

use burn::tensor::{Int, Tensor, TensorData};

/// The first call of a class times its candidates on burn's client, once,
/// and every call after it, tuned or not, is exact: out of place, in place
/// (a tensor nothing else holds), and under autodiff's gradient.
#[test]
fn calls_of_a_new_class_are_tuned_once_and_stay_exact() {
    let device = &adapter::default_device("revseq-burn autotune tests");
    revseq_burn::lab::set_autotune(Some(true));
    let lengths = |batch: usize, time: usize| {
        let lens: Vec<i64> = (0..batch)
            .map(|b| ((b * 37 + 11) % (time + 1)) as i64)
            .collect();
        Tensor::<1, Int>::from_data(TensorData::new(lens, [batch]), device)
    };
    let data = |batch: usize, time: usize, features: usize| {
        let values: Vec<f32> = (0..batch * time * features).map(|v| v as f32).collect();
        Tensor::<3>::from_data(TensorData::new(values, [batch, time, features]), device)
    };
    let before = revseq_burn::lab::tunings();
    // 2 MiB and 2.5 MiB of f32: one class (the same plan's key, output size
    // within a power of two), past the 1 MiB below which nothing is timed.
    for (batch, time, features) in [(16, 64, 512), (20, 64, 512), (16, 64, 512)] {
        let x = data(batch, time, features);
        let expected = revseq_burn::lab::reverse_sequence(x.clone(), lengths(batch, time), 0, 1)
            .unwrap()
            .into_data();
        let out_of_place = revseq_burn::reverse_sequence(x.clone(), lengths(batch, time), 0, 1);
        assert_eq!(out_of_place.unwrap().into_data(), expected);
        // `x` moved in alone: burn lets the reversal take its buffer.
        let in_place = revseq_burn::reverse_sequence(x, lengths(batch, time), 0, 1);
        assert_eq!(in_place.unwrap().into_data(), expected);
    }
    let tunings = revseq_burn::lab::tunings() - before;
    // One class out of place and one in place, each timed once.
    assert!((1..=2).contains(&tunings), "{tunings} tunings");
    // Below the floor, nothing more is timed.
    let small = revseq_burn::reverse_sequence(data(2, 8, 4), lengths(2, 8), 0, 1).unwrap();
    let expected = revseq_burn::lab::reverse_sequence(data(2, 8, 4), lengths(2, 8), 0, 1).unwrap();
    assert_eq!(small.into_data(), expected.into_data());
    assert_eq!(revseq_burn::lab::tunings() - before, tunings);
}
