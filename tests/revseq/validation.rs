//! One test per validation rule, each asserting its specific error.

use revseq::{reference, DataType, Error, ReverseSubsequences, TensorDesc, TensorRole};

use crate::support::gpu;

fn f32s(sizes: &[u32]) -> TensorDesc {
    TensorDesc::new(DataType::Float32, sizes)
}

fn u32s(sizes: &[u32]) -> TensorDesc {
    TensorDesc::new(DataType::Uint32, sizes)
}

/// The error `compile` gives; the reference must agree, as both validate alike.
fn compile_error(desc: ReverseSubsequences) -> Error {
    let err = gpu().compile(&desc).unwrap_err();
    let mut out = vec![0u8; 1 << 12];
    let reference_err =
        reference::reverse_subsequences_bytes(&desc, &[0; 1 << 12], &[0; 1 << 12], &mut out)
            .unwrap_err();
    assert_eq!(err, reference_err);
    err
}

#[test]
fn rank_must_be_1_to_8() {
    let err = compile_error(ReverseSubsequences::new(f32s(&[]), u32s(&[]), f32s(&[]), 0));
    assert_eq!(
        err,
        Error::RankOutOfRange {
            tensor: TensorRole::Input,
            rank: 0
        }
    );
    let nine = [1; 9];
    let err = compile_error(ReverseSubsequences::new(
        f32s(&nine),
        u32s(&nine),
        f32s(&nine),
        0,
    ));
    assert_eq!(
        err,
        Error::RankOutOfRange {
            tensor: TensorRole::Input,
            rank: 9
        }
    );
}

#[test]
fn ranks_must_match() {
    let err = compile_error(ReverseSubsequences::new(
        f32s(&[2, 3]),
        u32s(&[2]),
        f32s(&[2, 3]),
        1,
    ));
    assert_eq!(
        err,
        Error::RankMismatch {
            tensor: TensorRole::SequenceLengths,
            expected: 2,
            actual: 1
        }
    );
    let err = compile_error(ReverseSubsequences::new(
        f32s(&[2, 3]),
        u32s(&[2, 1]),
        f32s(&[6]),
        1,
    ));
    assert_eq!(
        err,
        Error::RankMismatch {
            tensor: TensorRole::Output,
            expected: 2,
            actual: 1
        }
    );
}

#[test]
fn axis_must_be_below_the_rank() {
    let err = compile_error(ReverseSubsequences::new(
        f32s(&[2, 3]),
        u32s(&[2, 3]),
        f32s(&[2, 3]),
        2,
    ));
    assert_eq!(err, Error::AxisOutOfRange { axis: 2, rank: 2 });
}

#[test]
fn strides_must_number_one_per_dimension() {
    let err = compile_error(ReverseSubsequences::new(
        f32s(&[2, 3]).with_strides(&[1]),
        u32s(&[2, 1]),
        f32s(&[2, 3]),
        1,
    ));
    assert_eq!(
        err,
        Error::StrideCountMismatch {
            tensor: TensorRole::Input,
            expected: 2,
            actual: 1
        }
    );
}

#[test]
fn output_data_type_must_match_the_input() {
    let err = compile_error(ReverseSubsequences::new(
        f32s(&[2, 3]),
        u32s(&[2, 1]),
        TensorDesc::new(DataType::Int32, &[2, 3]),
        1,
    ));
    assert_eq!(
        err,
        Error::DataTypeMismatch {
            expected: DataType::Float32,
            actual: DataType::Int32
        }
    );
}

#[test]
fn lengths_must_be_32_or_64_bit_integers() {
    for data_type in [
        DataType::Float32,
        DataType::Uint16,
        DataType::Int8,
        DataType::Bool,
    ] {
        let err = compile_error(ReverseSubsequences::new(
            f32s(&[2, 3]),
            TensorDesc::new(data_type, &[2, 1]),
            f32s(&[2, 3]),
            1,
        ));
        assert_eq!(err, Error::UnsupportedLengthType { data_type });
    }
}

#[test]
fn output_sizes_must_match_the_input() {
    let err = compile_error(ReverseSubsequences::new(
        f32s(&[2, 3]),
        u32s(&[2, 1]),
        f32s(&[2, 4]),
        1,
    ));
    assert_eq!(
        err,
        Error::SizeMismatch {
            tensor: TensorRole::Output,
            dim: 1,
            expected: 3,
            actual: 4
        }
    );
}

#[test]
fn lengths_sizes_must_match_off_the_axis() {
    let err = compile_error(ReverseSubsequences::new(
        f32s(&[2, 3]),
        u32s(&[3, 1]),
        f32s(&[2, 3]),
        1,
    ));
    assert_eq!(
        err,
        Error::SizeMismatch {
            tensor: TensorRole::SequenceLengths,
            dim: 0,
            expected: 2,
            actual: 3
        }
    );
}

#[test]
fn lengths_must_have_size_1_on_the_axis() {
    let err = compile_error(ReverseSubsequences::new(
        f32s(&[2, 3]),
        u32s(&[2, 3]),
        f32s(&[2, 3]),
        1,
    ));
    assert_eq!(err, Error::LengthsAxisSize { axis: 1, size: 3 });
}

#[test]
fn output_elements_must_not_share_memory() {
    // Stride 0 on a dimension of size 2.
    let err = compile_error(ReverseSubsequences::new(
        f32s(&[2, 3]),
        u32s(&[2, 1]),
        f32s(&[2, 3]).with_strides(&[0, 1]),
        1,
    ));
    assert_eq!(
        err,
        Error::OverlappingOutput {
            dim: 0,
            size: 2,
            stride: 0,
            required: 1
        }
    );
    // Rows 2 apart but 3 long: row 1 starts inside row 0.
    let err = compile_error(ReverseSubsequences::new(
        f32s(&[2, 3]),
        u32s(&[2, 1]),
        f32s(&[2, 3]).with_strides(&[2, 1]),
        1,
    ));
    assert_eq!(
        err,
        Error::OverlappingOutput {
            dim: 0,
            size: 2,
            stride: 2,
            required: 3
        }
    );
    // Input and lengths may broadcast, and size-1 dimensions may have any stride.
    gpu()
        .compile(&ReverseSubsequences::new(
            f32s(&[2, 3, 1]).with_strides(&[0, 0, 0]),
            u32s(&[2, 1, 1]).with_strides(&[0, 0, 0]),
            f32s(&[2, 3, 1]).with_strides(&[3, 1, 0]),
            1,
        ))
        .unwrap();
}

#[test]
fn tensors_past_what_a_descriptor_describes_are_rejected() {
    // 2^50 bytes, past MAX_TENSOR_BYTES (2^48).
    let huge = [1 << 20, 1 << 20, 1 << 8];
    let err = compile_error(ReverseSubsequences::new(
        f32s(&huge),
        u32s(&[1 << 20, 1, 1 << 8]),
        f32s(&huge),
        1,
    ));
    assert!(
        matches!(err, Error::TensorTooLarge { tensor: TensorRole::Input, bytes, limit, .. }
            if bytes == 1 << 50 && limit == revseq::MAX_TENSOR_BYTES),
        "{err}"
    );
}

#[test]
fn host_slices_must_hold_the_tensor() {
    let desc = ReverseSubsequences::new(f32s(&[2, 3]), u32s(&[2, 1]), f32s(&[2, 3]), 1);
    let compiled = gpu().compile(&desc).unwrap();
    let mut out = [0u8; 24];
    let err = compiled.run(&[0; 23], &[0; 8], &mut out).unwrap_err();
    assert_eq!(
        err,
        Error::HostSliceTooSmall {
            tensor: TensorRole::Input,
            required: 24,
            actual: 23
        }
    );
    let err = compiled.run(&[0; 24], &[0; 8], &mut out[..20]).unwrap_err();
    assert_eq!(
        err,
        Error::HostSliceTooSmall {
            tensor: TensorRole::Output,
            required: 24,
            actual: 20
        }
    );
}

#[test]
fn typed_slices_must_match_the_sizes() {
    let err = gpu()
        .reverse_subsequences(&[0f32; 5], &[2, 3], &[1u32, 1], 1)
        .unwrap_err();
    assert_eq!(
        err,
        Error::ElementCountMismatch {
            tensor: TensorRole::Input,
            expected: 6,
            actual: 5
        }
    );
    let err = gpu()
        .reverse_subsequences(&[0f32; 6], &[2, 3], &[1u32], 1)
        .unwrap_err();
    assert_eq!(
        err,
        Error::ElementCountMismatch {
            tensor: TensorRole::SequenceLengths,
            expected: 2,
            actual: 1
        }
    );
}

#[test]
fn onnx_rank_must_be_at_least_2() {
    let err = gpu()
        .reverse_sequence(&[0f32; 4], &[4], &[1], 0, 1)
        .unwrap_err();
    assert_eq!(err, Error::OnnxRank { rank: 1 });
}

#[test]
fn onnx_axes_must_be_0_and_1() {
    for (batch_axis, time_axis) in [(0, 0), (1, 1), (2, 0), (0, 2)] {
        let err = gpu()
            .reverse_sequence(&[0f32; 8], &[2, 2, 2], &[1, 1], batch_axis, time_axis)
            .unwrap_err();
        assert_eq!(
            err,
            Error::OnnxAxes {
                batch_axis,
                time_axis
            }
        );
    }
}

#[test]
fn onnx_needs_one_length_per_batch_entry() {
    let err = gpu()
        .reverse_sequence(&[0f32; 6], &[2, 3], &[1, 1, 1], 0, 1)
        .unwrap_err();
    assert_eq!(
        err,
        Error::OnnxBatchSize {
            expected: 2,
            actual: 3
        }
    );
}

#[test]
fn onnx_lengths_must_be_within_the_time_axis() {
    let err = gpu()
        .reverse_sequence(&[0f32; 6], &[2, 3], &[1, 4], 0, 1)
        .unwrap_err();
    assert_eq!(
        err,
        Error::OnnxSequenceLength {
            index: 1,
            value: 4,
            max: 3
        }
    );
    let err = gpu()
        .reverse_sequence(&[0f32; 6], &[2, 3], &[-1, 0], 0, 1)
        .unwrap_err();
    assert_eq!(
        err,
        Error::OnnxSequenceLength {
            index: 0,
            value: -1,
            max: 3
        }
    );
    let err = reference::reverse_sequence(&[0f32; 6], &[2, 3], &[-1, 0], 0, 1).unwrap_err();
    assert_eq!(
        err,
        Error::OnnxSequenceLength {
            index: 0,
            value: -1,
            max: 3
        }
    );
}

#[test]
fn onnx_input_must_match_its_shape() {
    let err = gpu()
        .reverse_sequence(&[0f32; 5], &[2, 3], &[1, 1], 0, 1)
        .unwrap_err();
    assert_eq!(
        err,
        Error::ElementCountMismatch {
            tensor: TensorRole::Input,
            expected: 6,
            actual: 5
        }
    );
}

#[test]
fn errors_name_the_field_and_the_rule() {
    let err = Error::SizeMismatch {
        tensor: TensorRole::SequenceLengths,
        dim: 0,
        expected: 2,
        actual: 3,
    };
    assert_eq!(
        err.to_string(),
        "sequence_lengths: size 3 of dimension 0 must equal the input's size 2"
    );
}

#[test]
fn onnx_sizes_must_fit_u32() {
    let err = gpu()
        .reverse_sequence::<f32>(&[], &[1 << 32, 0], &[], 1, 0)
        .unwrap_err();
    assert_eq!(
        err,
        Error::DimensionTooLarge {
            tensor: TensorRole::Input,
            dim: 0,
            size: 1 << 32
        }
    );
}

#[test]
fn tensors_past_the_device_buffer_limit_are_rejected() {
    let limit = gpu().device().limits().max_buffer_size;
    // Just past the limit, as two rows so every size fits a u32.
    let half = (limit + 4) / 2;
    let sizes = [2, half as u32];
    let desc = ReverseSubsequences::new(
        TensorDesc::new(DataType::Uint8, &sizes),
        u32s(&[1, half as u32]),
        TensorDesc::new(DataType::Uint8, &sizes),
        0,
    );
    let err = gpu().compile(&desc).unwrap_err();
    assert!(
        matches!(err, Error::TensorTooLarge { tensor: TensorRole::Input, limit: l, limit_name, .. }
            if l == limit && limit_name.contains("max_buffer_size")),
        "{err}"
    );
}
