//! The worked examples of both specifications, exactly.

use revseq::reference;

use crate::support::gpu;

fn iota(n: usize, from: f32) -> Vec<f32> {
    (0..n).map(|i| from + i as f32).collect()
}

#[test]
fn directml_example_1_reverses_along_the_last_axis() {
    let input = iota(12, 1.0);
    let expected = [2., 1., 3., 4., 8., 7., 6., 5., 11., 10., 9., 12.];
    let lengths = [2u32, 4, 3];
    let gpu_out = gpu()
        .reverse_subsequences(&input, &[1, 1, 3, 4], &lengths, 3)
        .unwrap();
    assert_eq!(gpu_out, expected);
    let cpu_out = reference::reverse_subsequences(&input, &[1, 1, 3, 4], &lengths, 3).unwrap();
    assert_eq!(cpu_out, expected);
}

#[test]
fn directml_example_2_reverses_along_a_middle_axis() {
    let input = iota(12, 1.0);
    let expected = [5., 10., 3., 4., 1., 6., 7., 8., 9., 2., 11., 12.];
    let lengths = [2u32, 3, 1, 0];
    let gpu_out = gpu()
        .reverse_subsequences(&input, &[1, 1, 3, 4], &lengths, 2)
        .unwrap();
    assert_eq!(gpu_out, expected);
    let cpu_out = reference::reverse_subsequences(&input, &[1, 1, 3, 4], &lengths, 2).unwrap();
    assert_eq!(cpu_out, expected);
}

#[test]
fn onnx_example_1_time_axis_0_batch_axis_1() {
    let input = [
        0., 4., 8., 12., 1., 5., 9., 13., 2., 6., 10., 14., 3., 7., 11., 15.,
    ];
    let expected = [
        3., 6., 9., 12., 2., 5., 8., 13., 1., 4., 10., 14., 0., 7., 11., 15.,
    ];
    let lens = [4i64, 3, 2, 1];
    let gpu_out = gpu()
        .reverse_sequence::<f32>(&input, &[4, 4], &lens, 1, 0)
        .unwrap();
    assert_eq!(gpu_out, expected);
    let cpu_out = reference::reverse_sequence::<f32>(&input, &[4, 4], &lens, 1, 0).unwrap();
    assert_eq!(cpu_out, expected);
}

#[test]
fn onnx_example_2_time_axis_1_batch_axis_0() {
    let input = iota(16, 0.0);
    let expected = [
        0., 1., 2., 3., 5., 4., 6., 7., 10., 9., 8., 11., 15., 14., 13., 12.,
    ];
    let lens = [1i64, 2, 3, 4];
    let gpu_out = gpu()
        .reverse_sequence(&input, &[4, 4], &lens, 0, 1)
        .unwrap();
    assert_eq!(gpu_out, expected);
    let cpu_out = reference::reverse_sequence(&input, &[4, 4], &lens, 0, 1).unwrap();
    assert_eq!(cpu_out, expected);
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
