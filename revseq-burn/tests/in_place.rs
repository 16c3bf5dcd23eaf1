//! revseq-burn in place, in a process of its own: `in_place_count` counts every
//! reversal of the process, and no other test may run one meanwhile.

use std::io::Write;

use burn::tensor::{Device, Int, Tensor, TensorData};

/// burn's wgpu device, brought up by revseq-burn; the adapter's name goes to
/// stderr.
fn device() -> Device {
    let device = revseq_burn::init().unwrap_or_else(|e| {
        panic!(
            "revseq-burn tests need a wgpu adapter and found none: {e}\n\
             On Debian or Ubuntu: apt-get update && apt-get install -y mesa-vulkan-drivers"
        )
    });
    let info = revseq_burn::gpu(&device)
        .expect("registered")
        .adapter_info();
    let _ = writeln!(
        std::io::stderr(),
        "revseq-burn in-place tests run on adapter {:?} ({:?} backend)",
        info.name,
        info.backend
    );
    device
}

/// A tensor nothing else holds is reversed in its own buffer, as burn's own
/// in-place operations do; one whose clone is kept alive is reversed into a new
/// tensor, and the clone keeps its values. Both give the host reference's bytes,
/// and the gradient (the same reversal of the upstream gradient, which nothing
/// else holds) runs in place too.
#[test]
fn a_tensor_nothing_else_holds_reverses_in_place_and_a_kept_clone_stays_as_it_was() {
    let device = &device();
    let shape = [2usize, 64, 8];
    let data: Vec<f32> = (0..2 * 64 * 8).map(|v| v as f32).collect();
    let lens_host = [40i64, 7];
    let expected =
        revseq::reference::reverse_sequence(&data, &shape, &lens_host, 0, 1).expect("reference");
    let tensor = || Tensor::<3>::from_data(TensorData::new(data.clone(), shape), device);
    let lens = || Tensor::<1, Int>::from_data(TensorData::new(lens_host.to_vec(), [2]), device);
    let values = |t: Tensor<3>| t.into_data().try_to_vec::<f32>().expect("f32");

    let kept = tensor();
    let before = revseq_burn::in_place_count();
    let copied = revseq_burn::reverse_sequence(kept.clone(), lens(), 0, 1).unwrap();
    assert_eq!(values(copied), expected);
    assert_eq!(values(kept), data, "the clone kept alive changed");
    assert_eq!(
        revseq_burn::in_place_count(),
        before,
        "a held tensor went in place"
    );

    let reversed = revseq_burn::reverse_sequence(tensor(), lens(), 0, 1).unwrap();
    assert_eq!(values(reversed), expected);
    assert_eq!(
        revseq_burn::in_place_count(),
        before + 1,
        "nothing went in place"
    );

    let autodiff = device.clone().autodiff();
    let x = Tensor::<3>::from_data(TensorData::new(data.clone(), shape), &autodiff).require_grad();
    let w = Tensor::<3>::from_data(TensorData::new(data.clone(), shape), &autodiff);
    let lens = Tensor::<1, Int>::from_data(TensorData::new(lens_host.to_vec(), [2]), &autodiff);
    let before = revseq_burn::in_place_count();
    let y = revseq_burn::reverse_sequence(x.clone(), lens, 0, 1).unwrap();
    let grads = (y * w).sum().backward();
    let grad = x.grad(&grads).expect("x requires a gradient");
    assert_eq!(grad.into_data().try_to_vec::<f32>().unwrap(), expected);
    assert!(
        revseq_burn::in_place_count() > before,
        "the gradient did not go in place"
    );
}
