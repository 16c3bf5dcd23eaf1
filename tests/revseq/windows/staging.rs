//! Pieces staged through scratch: linear in the tensor, the fast variant kept for
//! ragged runs, and buffers with `STORAGE` alone.

use revseq::{DataType, Tuning, Variant, Walk};

use crate::record::{run_at_offset_on, run_at_offset_with};
use crate::support::tunings;

use super::{
    assert_linear, check, check_on, outermost_spanning, packed, ragged_per_element, small_windows,
    time_major_spanning, WINDOW,
};

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
        }
        assert_linear(&a, &b);
        check(&small, 11);
        check(&large, 12);
    }
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
            // Axes `columns` holds, and past them `gather`.
            let long = Variant::Gather;
            let cases = ragged_per_element(data_type, 24)
                .into_iter()
                .map(|d| (d, Variant::Columns))
                .chain(
                    ragged_per_element(data_type, 70)
                        .into_iter()
                        .map(|d| (d, long)),
                );
            for (desc, expected) in cases {
                let op = gpu.compile(&desc).unwrap();
                assert!(op.scratch_bytes() > 0, "{tuning:?}: {desc:?} did not stage");
                assert_eq!(op.variant(), expected, "{tuning:?}: {desc:?}");
                check_on(&gpu, &desc, 14);
            }
        }
    }
}

/// Shared-length runs staged in pieces of a few elements of each run, the
/// last piece of a run narrower (one element, padded to a vector in scratch):
/// every piece runs the `runs` plan made for the first, fitted to its own
/// vectors, under one key.
#[test]
fn staged_runs_whose_last_piece_is_narrower_keep_runs() {
    let gpu = small_windows().with_tuning(Tuning::Cpu);
    for data_type in [DataType::Float32, DataType::Float64] {
        let sizes = [1024, 169];
        let desc = revseq::ReverseSubsequences::new(
            revseq::TensorDesc::new(data_type, &sizes),
            revseq::TensorDesc::new(DataType::Uint32, &[1, 169]).with_strides(&[169, 0]),
            revseq::TensorDesc::new(data_type, &sizes).with_strides(&[172, 1]),
            0,
        );
        let op = gpu.compile(&desc).unwrap();
        assert!(op.scratch_bytes() > 0, "{desc:?} did not stage");
        assert_eq!(op.variant(), Variant::Runs, "{desc:?}");
        check_on(&gpu, &desc, 15);
    }
}

/// Buffers bound at an offset among canaries, without copy usages and with
/// them: every layout that stages copies its segments with its copy kernel
/// through storage bindings (on a CPU adapter of 64-bit words and of 32-bit
/// ones, whichever its host moves faster), or on a CPU adapter whose buffers
/// allow it with buffer copies, and writes nothing outside the output tensor.
#[test]
fn staged_layouts_record_on_storage_only_buffers_and_with_copy_usages() {
    for (tuning, gpu) in tunings(small_windows()) {
        for data_type in [DataType::Uint8, DataType::Float16, DataType::Float32] {
            let mut staged = ragged_per_element(data_type, 24);
            staged.extend(ragged_per_element(data_type, 70));
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
                run_at_offset_on(&gpu, &desc, 15);
                let copies = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
                run_at_offset_with(&gpu, &desc, 16, copies);
            }
        }
    }
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
        assert_linear(&a, &b);
        check_on(&gpu, &small, 17);
        check_on(&gpu, &large, 18);
    }
}
