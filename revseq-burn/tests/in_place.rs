//! revseq-burn in place, in a process of its own: the laboratory counts every
//! reversal of the process, and no other test may run one meanwhile.

mod adapter;

use burn::tensor::{Device, Int, Tensor, TensorData};

fn device() -> Device {
    adapter::default_device("revseq-burn in-place tests")
}

/// Reversals revseq's kernels ran in place in this process.
fn in_place_runs() -> u64 {
    revseq_burn::lab::kernel_runs()[1]
}

/// A tensor nothing else holds, and no pending work or read binds, is reversed
/// in its own buffer, as burn's own in-place operations do; one whose clone is
/// kept alive, or whose bytes a read still waits to take, is reversed into a new
/// tensor, and the clone and the read keep their values. Every way gives the
/// host reference's bytes, the gradient too.
#[test]
fn a_tensor_nothing_else_holds_reverses_in_place_and_what_holds_one_sees_it_as_it_was() {
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
    let before = in_place_runs();
    let copied = revseq_burn::reverse_sequence(kept.clone(), lens(), 0, 1).unwrap();
    assert_eq!(values(copied), expected);
    assert_eq!(values(kept), data, "the clone kept alive changed");
    assert_eq!(in_place_runs(), before, "a held tensor went in place");

    // A read that takes the bytes when they are wanted binds the buffer.
    let read = tensor();
    device.sync().unwrap();
    let pending = read.to_data();
    let reversed = revseq_burn::reverse_sequence(read, lens(), 0, 1).unwrap();
    assert_eq!(values(reversed), expected);
    assert_eq!(
        pending.try_to_vec::<f32>().unwrap(),
        data,
        "the read saw the reversal"
    );
    assert_eq!(
        in_place_runs(),
        before,
        "a tensor a read binds went in place"
    );

    // Nothing pending on it: in place.
    let free = tensor();
    device.sync().unwrap();
    let reversed = revseq_burn::reverse_sequence(free, lens(), 0, 1).unwrap();
    assert_eq!(values(reversed), expected);
    assert_eq!(in_place_runs(), before + 1, "nothing went in place");

    let autodiff = device.clone().autodiff();
    let x = Tensor::<3>::from_data(TensorData::new(data.clone(), shape), &autodiff).require_grad();
    let w = Tensor::<3>::from_data(TensorData::new(data.clone(), shape), &autodiff);
    let lens = Tensor::<1, Int>::from_data(TensorData::new(lens_host.to_vec(), [2]), &autodiff);
    let y = revseq_burn::reverse_sequence(x.clone(), lens, 0, 1).unwrap();
    let grads = (y * w).sum().backward();
    let grad = x.grad(&grads).expect("x requires a gradient");
    assert_eq!(grad.into_data().try_to_vec::<f32>().unwrap(), expected);
}
