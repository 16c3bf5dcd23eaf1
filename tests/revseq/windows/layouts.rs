//! Every kind of layout in windows: axes, strides, gaps, broadcasts, ONNX's
//! layouts, random ones, offsets, a real tensor past the default binding, and an
//! empty one.

use revseq::{reference, DataType, ReverseSubsequences, TensorDesc, TensorRole, Tuning, Variant};

use crate::record::run_at_offset_on;
use crate::strided::{lengths_for, random_strides};
use crate::support::{assert_matches_reference_on, gpu_with_limits, Rng, LENGTH_TYPES};

use super::{
    check, check_on, outermost_spanning, packed, small_windows, time_major_spanning, WINDOW,
};

#[test]
fn axis_innermost_middle_and_outermost_in_windows() {
    for (i, data_type) in [
        DataType::Uint8,
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
        DataType::Complex128,
    ]
    .into_iter()
    .enumerate()
    {
        let width = data_type.size_in_bytes();
        // Rows of 1,001 elements (pieces start mid-word for 1- and 2-byte types),
        // a middle axis with lengths per element, the axis outermost.
        let elements = 3 * WINDOW / width;
        for (sizes, axis) in [
            (vec![elements / 1001 + 1, 1001], 1),
            (vec![elements / 640 + 1, 40, 16], 1),
            (vec![24, elements / 24 + 1], 0),
        ] {
            for length_type in LENGTH_TYPES {
                check(&packed(data_type, length_type, &sizes, axis), i as u64);
            }
        }
    }
}

#[test]
fn an_axis_longer_than_a_window() {
    for data_type in [
        DataType::Uint8,
        DataType::Uint16,
        DataType::Int32,
        DataType::Complex64,
    ] {
        let n = 3 * WINDOW / data_type.size_in_bytes() + 7;
        // One lane, then two, then lanes inside the axis.
        let dispatches = check(&packed(data_type, DataType::Int64, &[n], 0), 1);
        assert!(dispatches >= 9, "{dispatches}");
        check(&packed(data_type, DataType::Uint32, &[2, n / 2], 1), 2);
        check(&packed(data_type, DataType::Int32, &[n / 4, 4], 0), 3);
    }
}

#[test]
fn strided_gapped_and_broadcast_tensors_in_windows() {
    for data_type in [
        DataType::Uint8,
        DataType::Bfloat16,
        DataType::Uint32,
        DataType::Complex128,
    ] {
        let width = data_type.size_in_bytes();
        let rows = 2 * WINDOW / width / 300 + 1;
        let sizes = [rows, 300];
        // Gapped rows in the output; the input transposed; lengths per row.
        let desc = ReverseSubsequences::new(
            TensorDesc::new(data_type, &sizes).with_strides(&[1, rows]),
            TensorDesc::new(DataType::Uint32, &[rows, 1]),
            TensorDesc::new(data_type, &sizes).with_strides(&[307, 1]),
            1,
        );
        check(&desc, 4);
        // Input broadcast along the rows (stride 0), lengths broadcast (ONNX's
        // [batch] lengths along the other axis), gapped output.
        let desc = ReverseSubsequences::new(
            TensorDesc::new(data_type, &sizes).with_strides(&[0, 1]),
            TensorDesc::new(DataType::Int64, &[1, 300]).with_strides(&[0, 1]),
            TensorDesc::new(data_type, &sizes).with_strides(&[301, 1]),
            0,
        );
        check(&desc, 5);
    }
}

#[test]
fn onnx_layouts_in_windows() {
    let gpu = small_windows();
    for (shape, batch_axis, time_axis) in [([16usize, 70, 33], 0, 1), ([70, 16, 33], 1, 0)] {
        let input: Vec<f32> = (0..shape.iter().product::<usize>())
            .map(|v| v as f32)
            .collect();
        let lens: Vec<i64> = (0..16).map(|b| (b * 5 % 71) as i64).collect();
        let out = gpu
            .reverse_sequence(&input, &shape, &lens, batch_axis, time_axis)
            .unwrap();
        let expected =
            reference::reverse_sequence(&input, &shape, &lens, batch_axis, time_axis).unwrap();
        assert_eq!(out, expected, "{shape:?}");
    }
}

/// ONNX `[T, B, I]` with the axis outermost and longer than a window: each piece
/// of output positions pairs with the input windows of whole positions its sources
/// can lie in, and `Runs` still moves whole runs.
#[test]
fn time_major_runs_by_position_in_windows() {
    for (data_type, inner) in [
        (DataType::Float32, 32),
        (DataType::Uint8, 12),
        (DataType::Float16, 10),
    ] {
        let sizes = [
            3 * WINDOW / (8 * inner * data_type.size_in_bytes()) + 1,
            8,
            inner,
        ];
        let desc = ReverseSubsequences::new(
            TensorDesc::new(data_type, &sizes),
            TensorDesc::new(DataType::Int64, &[1, 8, inner]).with_strides(&[0, 1, 0]),
            TensorDesc::new(data_type, &sizes),
            0,
        );
        assert_eq!(
            small_windows().compile(&desc).unwrap().variant(),
            Variant::Runs,
            "{desc:?}"
        );
        check(&desc, 8);
    }
}

#[test]
fn windowed_record_at_offsets_leaves_the_rest_alone() {
    for data_type in [DataType::Uint8, DataType::Float32] {
        let n = 2 * WINDOW / data_type.size_in_bytes();
        run_at_offset_on(
            small_windows(),
            &packed(data_type, DataType::Uint32, &[4, n / 4 + 3], 1),
            6,
        );
        run_at_offset_on(
            small_windows(),
            &packed(data_type, DataType::Uint32, &[n + 5], 0),
            7,
        );
    }
}

#[test]
fn random_layouts_in_windows() {
    let mut rng = Rng::new(77);
    for case in 0..24 {
        let data_type = DataType::ALL[rng.below(DataType::ALL.len() as u64) as usize];
        let rank = 1 + rng.below(3) as usize;
        let target = (WINDOW as u64 / 2 + rng.below(3 * WINDOW as u64))
            / u64::from(data_type.size_in_bytes());
        let mut sizes = vec![1u32; rank];
        let mut left = target;
        for (d, slot) in sizes.iter_mut().enumerate() {
            let size = if d + 1 == rank {
                left.max(1)
            } else {
                1 + rng.below(left.min(64))
            };
            *slot = size as u32;
            left = (left / size).max(1);
        }
        let axis = rng.below(rank as u64) as u32;
        let length_type = LENGTH_TYPES[case % 4];
        let desc = packed(data_type, length_type, &sizes, axis);
        let gpu = small_windows();
        let mut rng_case = Rng::new(case as u64);
        let input = rng_case.bytes(desc.input.min_size_in_bytes() as usize);
        let lengths = lengths_for(&mut rng_case, &desc, sizes[axis as usize]);
        assert_matches_reference_on(gpu, &desc, &input, &lengths);
    }
}

/// Random permuted, gapped and broadcast strides on tensors of one to four
/// windows: every cut, the offset windows of scattered inputs among them.
#[test]
fn random_strided_layouts_in_windows() {
    let mut rng = Rng::new(91);
    let mut windowed = 0;
    for case in 0..40u64 {
        let rank = 1 + rng.below(4) as usize;
        let axis = rng.below(rank as u64) as usize;
        let data_type = DataType::ALL[rng.below(DataType::ALL.len() as u64) as usize];
        let elements =
            (WINDOW as u64 + rng.below(3 * WINDOW as u64)) / u64::from(data_type.size_in_bytes());
        let mut sizes = vec![1u32; rank];
        let mut left = elements;
        for (d, slot) in sizes.iter_mut().enumerate() {
            let size = if d + 1 == rank {
                left.max(1)
            } else {
                2 + rng.below(left.min(40))
            };
            *slot = size as u32;
            left = (left / size).max(1);
        }
        let mut length_sizes = sizes.clone();
        length_sizes[axis] = 1;
        let length_type = LENGTH_TYPES[rng.below(4) as usize];
        let mut tensor = |data_type, sizes: &[u32], broadcast| {
            TensorDesc::new(data_type, sizes)
                .with_strides(&random_strides(&mut rng, sizes, broadcast))
        };
        let desc = ReverseSubsequences::new(
            tensor(data_type, &sizes, true),
            tensor(length_type, &length_sizes, true),
            tensor(data_type, &sizes, false),
            axis as u32,
        );
        let gpu = small_windows();
        if gpu.compile(&desc).unwrap().dispatch_count() > 1 {
            windowed += 1;
        }
        let mut case_rng = Rng::new(case);
        let input = case_rng.bytes(desc.input.min_size_in_bytes() as usize);
        let lengths = lengths_for(&mut case_rng, &desc, sizes[axis]);
        assert_matches_reference_on(gpu, &desc, &input, &lengths);
    }
    assert!(windowed >= 20, "only {windowed} of 40 cases ran windowed");
}

/// A real tensor past the 128 MiB binding of `Limits::default()`, what most
/// applications request: 208 MiB of 16-byte elements, in two windows of the
/// static plan's family (autotune may time another as fast).
#[test]
fn a_tensor_past_the_default_binding_limit() {
    let gpu = gpu_with_limits(|limits| *limits = wgpu::Limits::default()).with_autotune(false);
    let limit = gpu.device().limits().max_storage_buffer_binding_size;
    let desc = packed(DataType::Complex128, DataType::Int32, &[13, 1 << 20], 1);
    let bytes = desc.output.min_size_in_bytes();
    assert!(bytes > limit, "{bytes} bytes fit the {limit}-byte binding");
    let compiled = gpu.compile(&desc).unwrap();
    assert!(compiled.dispatch_count() >= 2);
    assert_eq!(compiled.variant(), Variant::Rows);
    let mut rng = Rng::new(13);
    let input = rng.bytes(bytes as usize);
    let lengths: Vec<u8> = (0..13i32)
        .flat_map(|r| (r * 97_000 - 100_000).to_le_bytes())
        .collect();
    let mut expected = vec![0u8; bytes as usize];
    reference::reverse_subsequences_bytes(&desc, &input, &lengths, &mut expected).unwrap();
    let mut actual = vec![0u8; bytes as usize];
    compiled.run(&input, &lengths, &mut actual).unwrap();
    assert!(
        actual == expected,
        "the 208 MiB tensor differs from the reference"
    );
    assert_eq!(compiled.binding_size(TensorRole::Output), bytes);
}

#[test]
fn an_empty_tensor_whose_lengths_exceed_a_window_is_a_no_op() {
    // A size-0 axis with lengths past one window, the input strided or packed:
    // nothing to window, one dispatch with no work, the output untouched.
    let gpu = small_windows();
    for (sizes, axis, strides) in [
        ([4096u32, 0, 5], 1u32, [8, 1 << 20, 1]),
        ([5, 4096, 0], 2, [4096, 1, 1]),
    ] {
        let mut length_sizes = sizes;
        length_sizes[axis as usize] = 1;
        let desc = ReverseSubsequences::new(
            TensorDesc::new(DataType::Int8, &sizes).with_strides(&strides),
            TensorDesc::new(DataType::Uint64, &length_sizes),
            TensorDesc::new(DataType::Int8, &sizes),
            axis,
        );
        assert!(desc.sequence_lengths.min_size_in_bytes() > u64::from(WINDOW));
        let compiled = gpu.compile(&desc).unwrap();
        assert_eq!(compiled.dispatch_count(), 1, "{desc:?}");
        assert_eq!(compiled.binding_size(TensorRole::Output), 0);
        let lengths = vec![3u8; desc.sequence_lengths.min_size_in_bytes() as usize];
        let mut out = [0x77u8; 4];
        compiled.run(&[], &lengths, &mut out).unwrap();
        assert_eq!(out, [0x77; 4]);
    }
}

/// Windowed plans (staged, walked pairs, scanning pairs, a lane longer than a
/// window) with revseq's own runs cut into submissions of 8 KiB of output: a
/// staged piece's copies stay around all its parts, and pairs keep their order.
#[test]
fn windowed_plans_run_exactly_in_parts() {
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        let gpu = small_windows()
            .with_tuning(tuning)
            .with_submission_bytes(Some(8 << 10));
        for data_type in [DataType::Uint8, DataType::Float32] {
            let n = 3 * WINDOW / data_type.size_in_bytes() + 7;
            for desc in [
                outermost_spanning(data_type, 1),
                time_major_spanning(data_type, 1),
                packed(data_type, DataType::Int64, &[n], 0),
                packed(data_type, DataType::Uint32, &[n / 4, 4], 0),
            ] {
                check_on(&gpu, &desc, 16);
            }
        }
    }
}
