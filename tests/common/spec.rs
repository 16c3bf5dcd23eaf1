//! The worked examples of both specifications (`../shared/spec/`), as data, for the
//! native and the browser suites alike.

/// A DirectML example: `reverse_subsequences(input, sizes, lengths, axis)`.
pub(crate) struct DirectMl {
    pub(crate) name: &'static str,
    pub(crate) input: Vec<f32>,
    pub(crate) sizes: [u32; 4],
    pub(crate) lengths: Vec<u32>,
    pub(crate) axis: u32,
    pub(crate) expected: Vec<f32>,
}

/// An ONNX example: `reverse_sequence(input, shape, lens, batch_axis, time_axis)`.
pub(crate) struct Onnx {
    pub(crate) name: &'static str,
    pub(crate) input: Vec<f32>,
    pub(crate) shape: [usize; 2],
    pub(crate) lens: Vec<i64>,
    pub(crate) batch_axis: usize,
    pub(crate) time_axis: usize,
    pub(crate) expected: Vec<f32>,
}

fn iota(n: usize, from: f32) -> Vec<f32> {
    (0..n).map(|i| from + i as f32).collect()
}

pub(crate) fn directml() -> [DirectMl; 2] {
    [
        DirectMl {
            name: "DirectML example 1: along the last axis",
            input: iota(12, 1.0),
            sizes: [1, 1, 3, 4],
            lengths: vec![2, 4, 3],
            axis: 3,
            expected: vec![2., 1., 3., 4., 8., 7., 6., 5., 11., 10., 9., 12.],
        },
        DirectMl {
            name: "DirectML example 2: along a middle axis",
            input: iota(12, 1.0),
            sizes: [1, 1, 3, 4],
            lengths: vec![2, 3, 1, 0],
            axis: 2,
            expected: vec![5., 10., 3., 4., 1., 6., 7., 8., 9., 2., 11., 12.],
        },
    ]
}

pub(crate) fn onnx() -> [Onnx; 2] {
    [
        Onnx {
            name: "ONNX example 1: time_axis 0, batch_axis 1",
            input: vec![
                0., 4., 8., 12., 1., 5., 9., 13., 2., 6., 10., 14., 3., 7., 11., 15.,
            ],
            shape: [4, 4],
            lens: vec![4, 3, 2, 1],
            batch_axis: 1,
            time_axis: 0,
            expected: vec![
                3., 6., 9., 12., 2., 5., 8., 13., 1., 4., 10., 14., 0., 7., 11., 15.,
            ],
        },
        Onnx {
            name: "ONNX example 2: time_axis 1, batch_axis 0",
            input: iota(16, 0.0),
            shape: [4, 4],
            lens: vec![1, 2, 3, 4],
            batch_axis: 0,
            time_axis: 1,
            expected: vec![
                0., 1., 2., 3., 5., 4., 6., 7., 10., 9., 8., 11., 15., 14., 13., 12.,
            ],
        },
    ]
}
