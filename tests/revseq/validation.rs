//! One test per validation rule, each asserting its specific error, and a seeded
//! draw of malformed descriptors that must fail (or run) exactly as the reference does.

use revseq::{reference, DataType, Error, ReverseSubsequences, TensorDesc, TensorRole};

use crate::strided::random_strides;
use crate::support::{gpu, Rng, LENGTH_TYPES};

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

/// A size or stride that stresses the arithmetic: 0, the largest u32, powers of two
/// and one below them, or a small value.
fn extreme(rng: &mut Rng) -> u32 {
    match rng.below(8) {
        0 => 0,
        1 => u32::MAX,
        2 => 1 << rng.below(32),
        3 => (1 << rng.below(32)) - 1,
        _ => rng.below(6) as u32,
    }
}

/// A tensor of `sizes` and `data_type`, now and then with another data type, rank,
/// size or stride count, and strides packed, random, extreme or gapped.
fn mangled(rng: &mut Rng, sizes: &[u32], data_type: DataType, broadcast: bool) -> TensorDesc {
    let data_type = if rng.below(30) == 0 {
        DataType::ALL[rng.below(15) as usize]
    } else {
        data_type
    };
    let rank = if rng.below(30) == 0 {
        rng.below(11) as usize
    } else {
        sizes.len()
    };
    let sizes: Vec<u32> = (0..rank)
        .map(|d| match sizes.get(d) {
            Some(&size) if rng.below(25) != 0 => size,
            _ => extreme(rng),
        })
        .collect();
    let desc = TensorDesc::new(data_type, &sizes);
    match rng.below(4) {
        0 => desc,
        1 => desc.with_strides(&(0..rank).map(|_| extreme(rng)).collect::<Vec<_>>()),
        _ => {
            // Laid out for sizes of at most 8, so that extreme sizes get strides
            // that overlap or overflow rather than overflowing the draw itself.
            let bounded: Vec<u32> = sizes.iter().map(|&size| size.min(8)).collect();
            let mut strides = random_strides(rng, &bounded, broadcast);
            if !strides.is_empty() && rng.below(10) == 0 {
                let d = rng.below(strides.len() as u64) as usize;
                strides[d] = extreme(rng);
            }
            if rng.below(30) == 0 {
                strides.push(1);
            }
            desc.with_strides(&strides)
        }
    }
}

#[test]
fn random_descriptors_fail_or_run_exactly_as_the_reference_does() {
    // Mostly valid descriptors with now and then a wrong rank, axis, data type, size,
    // stride or host slice: compile and run must return what the reference returns,
    // the same error or the same bytes, and never panic.
    let mut rng = Rng::new(40);
    let mut kinds = std::collections::HashSet::new();
    let mut ran = 0;
    for _ in 0..3000 {
        let rank = rng.below(10) as usize;
        let sizes: Vec<u32> = (0..rank).map(|_| 1 + rng.below(5) as u32).collect();
        let axis = if rng.below(20) == 0 {
            extreme(&mut rng)
        } else {
            rng.below(rank.max(1) as u64) as u32
        };
        let data_type = DataType::ALL[rng.below(15) as usize];
        let length_type = LENGTH_TYPES[rng.below(4) as usize];
        let mut length_sizes = sizes.clone();
        if let Some(size) = length_sizes.get_mut(axis as usize) {
            *size = 1;
        }
        let desc = ReverseSubsequences::new(
            mangled(&mut rng, &sizes, data_type, true),
            mangled(&mut rng, &length_sizes, length_type, true),
            mangled(&mut rng, &sizes, data_type, false),
            axis,
        );
        // Host slices as the tensors need, one in eight a byte short; at most 64 KiB,
        // so that tensors spread by extreme strides fail on their slices, quickly.
        let mut slice = |tensor: &TensorDesc| {
            let bytes = tensor.min_size_in_bytes().min(1 << 16) as usize;
            let short = usize::from(bytes > 0 && rng.below(8) == 0);
            rng.bytes(bytes - short)
        };
        let (input, lengths) = (slice(&desc.input), slice(&desc.sequence_lengths));
        let mut expected = slice(&desc.output);
        let mut actual = expected.clone();
        let reference =
            reference::reverse_subsequences_bytes(&desc, &input, &lengths, &mut expected);
        let compiled = match (desc.validate(), gpu().compile(&desc)) {
            (Err(err), compiled) => {
                assert_eq!(compiled.err(), Some(err.clone()), "{desc:?}");
                assert_eq!(reference, Err(err.clone()), "{desc:?}");
                kinds.insert(std::mem::discriminant(&err));
                continue;
            }
            (Ok(()), Ok(compiled)) => compiled,
            // What only the device limits: the reference has no buffers to size.
            (Ok(()), Err(err)) => {
                let max_buffer = gpu().device().limits().max_buffer_size;
                assert!(
                    matches!(err, Error::TensorTooLarge { limit, .. } if limit == max_buffer)
                        || matches!(err, Error::TooManyDispatches { .. }),
                    "{err} for {desc:?}"
                );
                kinds.insert(std::mem::discriminant(&err));
                continue;
            }
        };
        let result = compiled.run(&input, &lengths, &mut actual);
        assert_eq!(result, reference, "{desc:?}");
        match result {
            Ok(()) => {
                assert!(
                    actual == expected,
                    "GPU differs from the reference for {desc:?}"
                );
                ran += 1;
            }
            Err(err) => {
                kinds.insert(std::mem::discriminant(&err));
            }
        }
    }
    // The draw reaches both sides: runs, and most of the rules.
    eprintln!("{ran} ran, {} kinds of error", kinds.len());
    assert!(ran >= 300, "only {ran} descriptors ran");
    assert!(kinds.len() >= 10, "only {} kinds of error", kinds.len());
}
