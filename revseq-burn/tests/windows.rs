//! revseq's windowed plans on burn's runtime, in a process of its own: the
//! laboratory lowers the binding revseq plans for (a setting of the whole
//! process), so that small tensors run as several dispatches, each binding a
//! window of a tensor's memory, staged through scratch from burn's client where
//! the plan stages, and in place as pairs of groups of positions. Against
//! revseq's host reference.

use burn::tensor::{Device, Int, Tensor, TensorData};

/// A `[d0, d1, d2]` f32 tensor of `0..n`, reversed along `axis` by `lengths`
/// (the tensor's sizes, 1 on `axis`), a clone kept alive where `keep` (out of
/// place) or not (in place), against the reference.
fn check(device: &Device, sizes: [usize; 3], axis: usize, lengths: &[i64], keep: bool) {
    let data: Vec<f32> = (0..sizes.iter().product::<usize>())
        .map(|v| v as f32)
        .collect();
    let mut length_sizes = sizes;
    length_sizes[axis] = 1;
    let x = Tensor::<3>::from_data(TensorData::new(data.clone(), sizes), device);
    let lens = Tensor::<3, Int>::from_data(TensorData::new(lengths.to_vec(), length_sizes), device);
    let kept = keep.then(|| x.clone());
    // Nothing pending binds the tensor that goes in place.
    device.sync().unwrap();
    let before = revseq_burn::lab::kernel_runs();
    let y = revseq_burn::reverse_subsequences(x, lens, axis).unwrap();
    let actual: Vec<f32> = y.into_data().try_to_vec().unwrap();
    let runs = revseq_burn::lab::kernel_runs();
    assert_eq!(runs[0], before[0] + 1, "{sizes:?}: the kernels did not run");
    assert_eq!(
        runs[1] - before[1],
        u64::from(!keep),
        "{sizes:?}: in place is {}",
        !keep
    );
    drop(kept);

    let u32s = |v: &[usize]| v.iter().map(|&s| s as u32).collect::<Vec<_>>();
    let tensor = revseq::TensorDesc::new(revseq::DataType::Float32, &u32s(&sizes));
    let desc = revseq::ReverseSubsequences::new(
        tensor.clone(),
        revseq::TensorDesc::new(revseq::DataType::Int64, &u32s(&length_sizes)),
        tensor,
        axis as u32,
    );
    let mut expected = vec![0f32; data.len()];
    revseq::reference::reverse_subsequences_bytes(
        &desc,
        bytemuck::cast_slice(&data),
        bytemuck::cast_slice(lengths),
        bytemuck::cast_slice_mut(&mut expected),
    )
    .unwrap();
    assert_eq!(actual, expected, "{sizes:?} along {axis}, kept {keep}");
}

#[test]
fn windowed_staged_and_paired_plans_run_on_burns_runtime() {
    let device = Device::default();
    assert!(
        revseq_burn::lab::adapter(&device).is_some(),
        "no wgpu adapter that runs WGSL"
    );
    // Bindings of 4 KiB: every tensor below spans several.
    revseq_burn::lab::set_max_binding(Some(4 << 10));
    for keep in [true, false] {
        // Rows longer than a binding (each lane spans windows).
        check(&device, [1, 3, 1500], 2, &[1400, 7, 1500], keep);
        // ONNX's time-major layout: one length per batch entry, lanes across
        // every window.
        let lens: Vec<i64> = (0..6).map(|b| (b * 7 + 3) % 41).collect();
        let lens: Vec<i64> = lens.iter().flat_map(|&l| [l; 16]).collect();
        check(&device, [40, 6, 16], 0, &lens, keep);
        // Per-element lengths along the outermost axis, staged out of place.
        let lens: Vec<i64> = (0..300).map(|c| (c * 13) % 25).collect();
        check(&device, [24, 1, 300], 0, &lens, keep);
    }
    revseq_burn::lab::set_max_binding(None);
}
