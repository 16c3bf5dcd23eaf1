//! Walked pairs: `runs` pieces against each input window, run by run or lane by
//! lane, and `rows` over lanes longer than a window.

use revseq::{DataType, ReverseSubsequences, TensorDesc, Tuning, Variant, Walk};

use crate::support::{assert_matches_reference_on, gpu_with_limits, length_bytes, Rng};

use super::{
    assert_linear, check_on, lengths_around_windows, packed, small_windows, time_major_spanning,
    WINDOW,
};

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
                    op.key().walk == Walk::WindowByLane,
                    tuning == Tuning::Gpu,
                    "{desc:?}"
                );
                assert_eq!(op.scratch_bytes() == 0, tuning == Tuning::Gpu, "{desc:?}");
                check_on(&gpu, desc, 13);
            }
            if tuning == Tuning::Cpu {
                assert_linear(&a, &b);
            }
        }
    }
}

/// A CPU adapter walks pairs lane by lane where they are large (14 MiB on 8 MiB
/// windows: 4.7 MiB a pair on average, past `tuning::walks_windows`' 4 MiB): with
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
                && (op.key().walk == Walk::WindowByLane) == by_lane
                && op.scratch_bytes() == 0,
            "{tuning:?}: {desc:?}"
        );
        for seed in 0..2 {
            check_on(&gpu, &desc, 20 + seed);
        }
    }
}

#[test]
fn time_major_pairs_walked_lane_by_lane_on_a_cpu() {
    time_major_pairs_walked_lane_by_lane(Tuning::Cpu);
}

#[test]
fn time_major_pairs_walked_lane_by_lane_on_a_gpu() {
    time_major_pairs_walked_lane_by_lane(Tuning::Gpu);
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
