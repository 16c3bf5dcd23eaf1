//! The worked examples of both specifications, exactly.

use revseq::reference;

use crate::support::gpu;

#[path = "../common/spec.rs"]
mod spec;

#[test]
fn directml_examples() {
    for case in spec::directml() {
        let gpu_out = gpu()
            .reverse_subsequences(&case.input, &case.sizes, &case.lengths, case.axis)
            .unwrap();
        assert_eq!(gpu_out, case.expected, "{}", case.name);
        let cpu_out =
            reference::reverse_subsequences(&case.input, &case.sizes, &case.lengths, case.axis)
                .unwrap();
        assert_eq!(cpu_out, case.expected, "{} (reference)", case.name);
    }
}

#[test]
fn onnx_examples() {
    for case in spec::onnx() {
        let (shape, lens) = (&case.shape, &case.lens);
        let gpu_out = gpu()
            .reverse_sequence(&case.input, shape, lens, case.batch_axis, case.time_axis)
            .unwrap();
        assert_eq!(gpu_out, case.expected, "{}", case.name);
        let cpu_out =
            reference::reverse_sequence(&case.input, shape, lens, case.batch_axis, case.time_axis)
                .unwrap();
        assert_eq!(cpu_out, case.expected, "{} (reference)", case.name);
    }
}

#[test]
fn readme_examples() {
    let out = gpu()
        .reverse_subsequences(
            &[1f32, 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12.],
            &[3, 4],
            &[2u32, 4, 3],
            1,
        )
        .unwrap();
    assert_eq!(out, [2., 1., 3., 4., 8., 7., 6., 5., 11., 10., 9., 12.]);
    let out = gpu()
        .reverse_sequence(&[0i32, 1, 2, 3, 4, 5], &[2, 3], &[3, 1], 0, 1)
        .unwrap();
    assert_eq!(out, [2, 1, 0, 3, 4, 5]);
}

#[test]
fn gpu_is_a_cheap_shareable_handle() {
    fn shareable<T: Clone + Send + Sync + 'static>() {}
    shareable::<revseq::Gpu>();
    shareable::<revseq::Error>();
    let clone = gpu().clone();
    assert_eq!(clone.device(), gpu().device());
}
