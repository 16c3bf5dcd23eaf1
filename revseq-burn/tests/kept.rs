//! The programs revseq-burn keeps for a client, in a process of its own: the
//! count is the client's, and a test running a reversal meanwhile would add to
//! it.

mod adapter;

use burn::tensor::{Int, Tensor, TensorData};

/// A call for a shape seen before plans nothing, and however many shapes a
/// process meets, the programs kept for a client stay within their bound.
#[test]
fn calls_of_many_shapes_keep_a_bounded_number_of_programs() {
    let device = &adapter::default_device("revseq-burn kept-program tests");
    let call = |batch: usize, time: usize, features: usize| {
        let x = Tensor::<3>::zeros([batch, time, features], device);
        let lens =
            Tensor::<1, Int>::from_data(TensorData::new(vec![time as i64; batch], [batch]), device);
        revseq_burn::reverse_sequence(x, lens, 0, 1).unwrap()
    };
    let kept = || revseq_burn::lab::kept_programs(device).expect("kernels on burn's device");
    call(3, 5, 7).into_data();
    let before = kept();
    call(3, 5, 7).into_data();
    assert_eq!(kept(), before, "a shape seen before planned again");
    let bound = revseq_burn::lab::KEPT_PROGRAMS;
    let mut most = 0;
    for n in 0..3 * bound {
        let y = call(1 + n % 7, 2 + n / 7 % 11, 1 + n / 77);
        if n % 64 == 63 {
            y.into_data();
        }
        most = most.max(kept());
    }
    assert!(
        most > bound / 2,
        "{most} programs kept from {} shapes",
        3 * bound
    );
    assert!(most <= bound, "{most} programs kept, past {bound}");
}
