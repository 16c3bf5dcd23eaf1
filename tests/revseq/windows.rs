//! Windowed dispatch: tensors larger than one storage binding. A device with
//! deliberately small limits (64 KiB bindings, 256-byte offset alignment) runs
//! every windowing path on small tensors; one real tensor runs past the default
//! 128 MiB binding.

use std::sync::OnceLock;

use revseq::{
    reference, DataType, Gpu, ReverseSubsequences, TensorDesc, TensorRole, Tuning, Variant, Walk,
};

use crate::record::run_at_offset_on;
use crate::strided::{lengths_for, random_strides};
use crate::support::{
    assert_matches_reference_on, gpu_with_limits, length_bytes, Rng, LENGTH_TYPES,
};

const WINDOW: u32 = 64 << 10;

fn small_windows() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        gpu_with_limits(|limits| {
            limits.max_storage_buffer_binding_size = u64::from(WINDOW);
            limits.min_storage_buffer_offset_alignment = 256;
        })
    })
}

/// Runs `desc` windowed against the reference, asserting it needs several
/// dispatches.
fn check(desc: &ReverseSubsequences, seed: u64) -> usize {
    check_on(small_windows(), desc, seed)
}

/// [`check`] on `gpu`, a device with small windows under either tuning.
fn check_on(gpu: &Gpu, desc: &ReverseSubsequences, seed: u64) -> usize {
    let compiled = gpu.compile(desc).unwrap();
    let dispatches = compiled.dispatch_count();
    assert!(dispatches > 1, "{desc:?} ran unwindowed");
    let mut rng = Rng::new(seed);
    let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
    let lengths = lengths_for(&mut rng, desc, desc.input.sizes()[desc.axis as usize]);
    assert_matches_reference_on(gpu, desc, &input, &lengths);
    dispatches
}

fn packed(
    data_type: DataType,
    length_type: DataType,
    sizes: &[u32],
    axis: u32,
) -> ReverseSubsequences {
    let mut length_sizes = sizes.to_vec();
    length_sizes[axis as usize] = 1;
    ReverseSubsequences::new(
        TensorDesc::new(data_type, sizes),
        TensorDesc::new(length_type, &length_sizes),
        TensorDesc::new(data_type, sizes),
        axis,
    )
}

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
/// applications request: 208 MiB of 16-byte elements, in two windows.
#[test]
fn a_tensor_past_the_default_binding_limit() {
    let gpu = gpu_with_limits(|limits| *limits = wgpu::Limits::default());
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

/// `[time 40, batch 16·scale, 256 bytes]`, one length per batch entry: lanes
/// that span every window.
fn time_major_spanning(data_type: DataType, scale: u32) -> ReverseSubsequences {
    let sizes = [40, 16 * scale, 256 / data_type.size_in_bytes()];
    ReverseSubsequences::new(
        TensorDesc::new(data_type, &sizes),
        TensorDesc::new(DataType::Int32, &[1, sizes[1], sizes[2]]).with_strides(&[0, 1, 0]),
        TensorDesc::new(data_type, &sizes),
        0,
    )
}

/// `[time 24, columns]`, a length per column, in 3·scale windows.
fn outermost_spanning(data_type: DataType, scale: u32) -> ReverseSubsequences {
    let columns = 3 * scale * WINDOW / (24 * data_type.size_in_bytes());
    packed(data_type, DataType::Int64, &[24, columns], 0)
}

#[test]
fn per_element_lanes_spanning_windows_are_staged_in_linear_dispatches() {
    let gpu = small_windows();
    for data_type in [DataType::Float32, DataType::Float16, DataType::Uint8] {
        let [small, large] = [1, 2].map(|scale| outermost_spanning(data_type, scale));
        let (a, b) = (gpu.compile(&small).unwrap(), gpu.compile(&large).unwrap());
        for op in [&a, &b] {
            assert!(
                op.scratch_bytes() > 0 && op.scratch_bytes() <= 2 * u64::from(WINDOW),
                "{:?}: {} bytes of scratch",
                op.descriptor(),
                op.scratch_bytes()
            );
            assert_ne!(op.variant(), Variant::General, "{:?}", op.descriptor());
            assert!(op
                .buffer_usages(TensorRole::Input)
                .contains(wgpu::BufferUsages::COPY_SRC));
            assert!(op
                .buffer_usages(TensorRole::Output)
                .contains(wgpu::BufferUsages::COPY_DST));
        }
        // Twice the tensor, twice the dispatches (give or take a partial piece).
        assert!(
            b.dispatch_count() <= 2 * a.dispatch_count() + 1,
            "{} then {} dispatches for {:?}",
            a.dispatch_count(),
            b.dispatch_count(),
            large
        );
        check(&small, 11);
        check(&large, 12);
    }
}

/// Per-element layouts whose lanes span windows, with inner sizes that are
/// whole words but no whole number of vectors (odd for 4-byte elements), and
/// size-1 dimensions before or after: `[24, c]`, `[1, 24, c]`, `[24, c, 1]` along
/// axis 24, and `[2, 24, c]` along the middle.
fn ragged_per_element(data_type: DataType) -> Vec<ReverseSubsequences> {
    let width = data_type.size_in_bytes();
    let c = 3 * WINDOW / (24 * width) / 16 * 16 + 4 / width.min(4);
    [
        (vec![24, c], 0),
        (vec![1, 24, c], 1),
        (vec![24, c, 1], 0),
        (vec![2, 24, c / 2 / 16 * 16 + 4 / width.min(4)], 1),
    ]
    .into_iter()
    .map(|(sizes, axis)| packed(data_type, DataType::Int64, &sizes, axis))
    .collect()
}

/// The last piece of a staged run is padded to whole vectors in scratch, so
/// that every piece runs the fast variant; the padding's lengths lie past the
/// lengths window (reads there are clamped) and its output never leaves scratch.
#[test]
fn staged_per_element_pieces_of_ragged_runs_keep_the_fast_variant() {
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        let gpu = small_windows().with_tuning(tuning);
        for data_type in [
            DataType::Uint8,
            DataType::Float16,
            DataType::Float32,
            DataType::Float64,
        ] {
            for desc in ragged_per_element(data_type) {
                let op = gpu.compile(&desc).unwrap();
                let expected = match tuning {
                    Tuning::Cpu => Variant::Columns,
                    Tuning::Gpu => Variant::Tile,
                };
                assert!(op.scratch_bytes() > 0, "{tuning:?}: {desc:?} did not stage");
                assert_eq!(op.variant(), expected, "{tuning:?}: {desc:?}");
                check_on(&gpu, &desc, 14);
            }
        }
    }
}

/// Buffers without copy usages: `record` takes the plan without scratch for
/// every layout that stages, exactly as the staged one computes.
#[test]
fn staged_layouts_record_without_copy_usages() {
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        let gpu = small_windows().with_tuning(tuning);
        for data_type in [DataType::Uint8, DataType::Float16, DataType::Float32] {
            let mut staged = ragged_per_element(data_type);
            staged.push(outermost_spanning(data_type, 1));
            staged.push(packed(
                data_type,
                DataType::Uint32,
                &[24, 3 * WINDOW / 24, 1],
                0,
            ));
            if tuning == Tuning::Cpu {
                staged.push(time_major_spanning(data_type, 8));
            }
            for desc in staged {
                let op = gpu.compile(&desc).unwrap();
                assert!(op.scratch_bytes() > 0, "{tuning:?}: {desc:?} did not stage");
                let unstaged = op.without_copies().expect("a plan without copies");
                assert_eq!(unstaged.scratch_bytes(), 0, "{desc:?}");
                for tensor in [
                    TensorRole::Input,
                    TensorRole::SequenceLengths,
                    TensorRole::Output,
                ] {
                    assert_eq!(unstaged.buffer_usages(tensor), wgpu::BufferUsages::STORAGE);
                }
                assert!(unstaged.without_copies().is_none());
                run_at_offset_on(&gpu, &desc, 15);
            }
        }
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

#[test]
fn time_major_lanes_spanning_small_windows_stage_on_a_cpu_and_walk_on_a_gpu() {
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        let gpu = small_windows().with_tuning(tuning);
        for data_type in [DataType::Float32, DataType::Float16, DataType::Uint8] {
            let [small, large] = [1, 2].map(|scale| time_major_spanning(data_type, scale));
            let (a, b) = (gpu.compile(&small).unwrap(), gpu.compile(&large).unwrap());
            for (op, desc) in [(&a, &small), (&b, &large)] {
                assert_eq!(op.variant(), Variant::Runs, "{desc:?}");
                // A CPU adapter walks only pairs that move MiB: these stage.
                assert_eq!(
                    op.key().walk != Walk::None,
                    tuning == Tuning::Gpu,
                    "{desc:?}"
                );
                // A GPU walks lanes this short lane by lane: run by run would
                // start too few invocations.
                assert_eq!(
                    op.key().walk == Walk::PairsByLane,
                    tuning == Tuning::Gpu,
                    "{desc:?}"
                );
                assert_eq!(op.scratch_bytes() == 0, tuning == Tuning::Gpu, "{desc:?}");
                check_on(&gpu, desc, 13);
            }
            if tuning == Tuning::Cpu {
                assert!(b.dispatch_count() <= 2 * a.dispatch_count() + 1);
            }
        }
    }
}

/// A CPU adapter walks pairs lane by lane where they are large (14 MiB on 8 MiB
/// windows: 4.7 MiB a pair on average, past `window::strategy::walks_pairs`' 4 MiB): with
/// fewer lanes than the grid has workgroups, the workgroups share each lane,
/// unevenly where the lanes do not divide them; with more, each takes several.
/// A GPU walks the 2 MiB positions run by run, and the short runs lane by lane,
/// in teams of a run's vectors.
fn time_major_pairs_walked_lane_by_lane(tuning: Tuning) {
    const MIB: u32 = 1 << 20;
    let gpu = gpu_with_limits(|limits| {
        limits.max_storage_buffer_binding_size = u64::from(8 * MIB);
    });
    // 7 positions of 2 MiB at most, in whole 16-byte vectors: three windows of
    // three positions. Then runs of two and of three vectors, too short to
    // interleave, over 262,144 and 131,072 positions: 24 MiB each, three windows.
    let long_runs = |lanes: u32, bytes: u32| [7, lanes, 2 * MIB / (lanes * 16) * 16 / bytes];
    for (data_type, sizes) in [
        (DataType::Float32, long_runs(1, 4)),
        (DataType::Float32, long_runs(5, 4)),
        (DataType::Uint8, long_runs(3, 1)),
        (DataType::Float16, long_runs(32, 2)),
        (DataType::Float32, [1 << 18, 3, 8]),
        (DataType::Float32, [1 << 17, 4, 12]),
    ] {
        let lanes = sizes[1];
        let desc = ReverseSubsequences::new(
            TensorDesc::new(data_type, &sizes),
            TensorDesc::new(DataType::Int64, &[1, lanes, sizes[2]]).with_strides(&[0, 1, 0]),
            TensorDesc::new(data_type, &sizes),
            0,
        );
        let gpu = gpu.with_tuning(tuning);
        let op = gpu.compile(&desc).unwrap();
        assert_eq!(op.variant(), Variant::Runs, "{desc:?}");
        let by_lane = tuning == Tuning::Cpu || sizes[0] > 7;
        assert!(
            op.key().walk != Walk::None
                && (op.key().walk == Walk::PairsByLane) == by_lane
                && op.scratch_bytes() == 0,
            "{tuning:?}: {desc:?}"
        );
        for seed in 0..2 {
            check_on(&gpu, &desc, 20 + seed);
        }
    }
}

// One test per tuning: each is tens of seconds on a CPU adapter, and the two
// run side by side.
#[test]
fn time_major_pairs_walked_lane_by_lane_on_a_cpu() {
    time_major_pairs_walked_lane_by_lane(Tuning::Cpu);
}

#[test]
fn time_major_pairs_walked_lane_by_lane_on_a_gpu() {
    time_major_pairs_walked_lane_by_lane(Tuning::Gpu);
}

#[test]
fn time_major_with_many_lanes_stages_on_a_cpu_in_linear_dispatches() {
    let gpu = small_windows().with_tuning(Tuning::Cpu);
    for data_type in [DataType::Float32, DataType::Uint8] {
        // 128 and 256 lanes: more than a CPU walks lane by lane.
        let [small, large] = [8, 16].map(|scale| time_major_spanning(data_type, scale));
        let (a, b) = (gpu.compile(&small).unwrap(), gpu.compile(&large).unwrap());
        for (op, desc) in [(&a, &small), (&b, &large)] {
            assert_eq!(op.variant(), Variant::Runs, "{desc:?}");
            assert_eq!(op.key().walk, Walk::None, "{desc:?}");
            assert!(op.scratch_bytes() > 0, "{desc:?}");
        }
        assert!(b.dispatch_count() <= 2 * a.dispatch_count() + 1);
        check_on(&gpu, &small, 17);
        check_on(&gpu, &large, 18);
    }
}

/// Lengths that put the reversed part's end, and so the straddling vector, on
/// each side of every window boundary of an `n`-position lane of `width`-byte
/// elements, besides the ends of the lane and values between.
fn lengths_around_windows(n: u32, width: u32, rng: &mut Rng) -> Vec<i128> {
    let per_window = i128::from(WINDOW / width);
    let n = i128::from(n);
    let mut lengths = vec![0, 1, 2, 3, 5, 17, n - 1, n, n + 3, -1];
    for k in 1..=n / per_window {
        for delta in [-17, -2, -1, 0, 1, 2, 15] {
            lengths.push((k * per_window + delta).clamp(0, n));
        }
    }
    lengths.extend((0..8).map(|_| i128::from(rng.below(n as u64))));
    lengths
}

#[test]
fn lanes_longer_than_a_window_pair_rows_with_each_input_window() {
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        let gpu = small_windows().with_tuning(tuning);
        let mut rng = Rng::new(21);
        for data_type in [
            DataType::Uint8,
            DataType::Float16,
            DataType::Float32,
            DataType::Float64,
            DataType::Complex128,
        ] {
            let width = data_type.size_in_bytes();
            // Lanes of whole 16-byte vectors, and (elements of 4 bytes or fewer)
            // of whole words that are not whole vectors.
            let mut lanes = vec![(3 * WINDOW + 4 * 16 + 16) / width];
            if width <= 4 {
                lanes.push((3 * WINDOW + 4 * 16 + 4) / width);
            }
            for n in lanes {
                let lengths = lengths_around_windows(n, width, &mut rng);
                let count = lengths.len() as u32;
                let desc = packed(data_type, DataType::Int64, &[count, n], 1);
                let op = gpu.compile(&desc).unwrap();
                assert_eq!(op.variant(), Variant::Rows, "{desc:?}");
                assert_ne!(op.key().walk, Walk::None, "{desc:?}: {:?}", op.key());
                assert_eq!(op.scratch_bytes(), 0);
                let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
                let lengths: Vec<u8> = lengths
                    .iter()
                    .flat_map(|&l| length_bytes(DataType::Int64, l))
                    .collect();
                assert_matches_reference_on(&gpu, &desc, &input, &lengths);
            }
        }
    }
}
