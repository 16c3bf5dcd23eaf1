//! ONNX ReverseSequence as a runtime imports it: the ONNX backend test cases
//! `test_reversesequence_time` and `test_reversesequence_batch` (4×4 f32, int64
//! `sequence_lens`), through the ONNX entry point and through the DirectML
//! descriptor a runtime compiles once. `cargo run --example onnx`

use revseq::{reference, DataType, ReverseSubsequences, TensorDesc};

/// One ONNX backend test case: its node's attributes, inputs and expected output.
struct Case {
    name: &'static str,
    time_axis: usize,
    batch_axis: usize,
    x: [f32; 16],
    sequence_lens: [i64; 4],
    y: [f32; 16],
}

const CASES: [Case; 2] = [
    Case {
        name: "test_reversesequence_time",
        time_axis: 0,
        batch_axis: 1,
        x: [
            0., 4., 8., 12., 1., 5., 9., 13., 2., 6., 10., 14., 3., 7., 11., 15.,
        ],
        sequence_lens: [4, 3, 2, 1],
        y: [
            3., 6., 9., 12., 2., 5., 8., 13., 1., 4., 10., 14., 0., 7., 11., 15.,
        ],
    },
    Case {
        name: "test_reversesequence_batch",
        time_axis: 1,
        batch_axis: 0,
        x: [
            0., 1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15.,
        ],
        sequence_lens: [1, 2, 3, 4],
        y: [
            0., 1., 2., 3., 5., 4., 6., 7., 10., 9., 8., 11., 15., 14., 13., 12.,
        ],
    },
];

fn main() -> Result<(), revseq::Error> {
    let gpu = revseq::Gpu::new()?;
    for case in &CASES {
        // The ONNX entry point validates as ONNX Runtime does.
        let y = gpu.reverse_sequence(
            &case.x,
            &[4, 4],
            &case.sequence_lens,
            case.batch_axis,
            case.time_axis,
        )?;
        assert_eq!(y, case.y, "{}", case.name);

        // The same node as a runtime compiles it: the DirectML descriptor, the
        // [batch] lengths broadcast through strides, reversed along time_axis.
        let mut length_sizes = [4, 4];
        length_sizes[case.time_axis] = 1;
        let mut length_strides = [0, 0];
        length_strides[case.batch_axis] = 1;
        let tensor = TensorDesc::new(DataType::Float32, &[4, 4]);
        let desc = ReverseSubsequences::new(
            tensor.clone(),
            TensorDesc::new(DataType::Int64, &length_sizes).with_strides(&length_strides),
            tensor,
            case.time_axis as u32,
        );
        let op = gpu.compile(&desc)?;
        let mut out = [0f32; 16];
        op.run(
            bytemuck::cast_slice(&case.x),
            bytemuck::cast_slice(&case.sequence_lens),
            bytemuck::cast_slice_mut(&mut out),
        )?;
        assert_eq!(out, case.y, "{} (descriptor)", case.name);

        let cpu = reference::reverse_sequence(
            &case.x,
            &[4, 4],
            &case.sequence_lens,
            case.batch_axis,
            case.time_axis,
        )?;
        assert_eq!(cpu, case.y, "{} (reference)", case.name);
        println!("{}: {:?} as {}", case.name, y, op.variant().name());
    }
    Ok(())
}
