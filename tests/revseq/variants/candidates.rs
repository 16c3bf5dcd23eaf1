//! Every family that can serve a layout, forced on it (`Gpu::with_variant`, what
//! the benchmark's `--candidates` times): the families each layout admits, and
//! each of them exact, out of place and in place, under both tunings.

use std::collections::BTreeSet;

use revseq::{DataType, Gpu, ReverseInPlace, ReverseSubsequences, Tuning, Variant};

use super::{check_on, desc, WIDTHS};
use crate::support::{gpu, Rng};

/// The benchmark's layouts, small: rows, per-element lengths (middle and
/// outermost axes), ONNX's batch- and time-major runs, and strided rows.
fn layouts(data_type: DataType) -> Vec<(&'static str, ReverseSubsequences)> {
    let (u32s, i64s) = (DataType::Uint32, DataType::Int64);
    let inner = 64 / data_type.size_in_bytes();
    let rows = desc(data_type, &[6, 32], 1, u32s, None);
    vec![
        ("innermost", rows.clone()),
        ("middle", desc(data_type, &[3, 20, inner], 1, u32s, None)),
        (
            "outermost",
            desc(data_type, &[33, inner * 2], 0, u32s, None),
        ),
        (
            "onnx-batch-major",
            desc(data_type, &[4, 9, inner], 1, i64s, Some(&[1, 0, 0])),
        ),
        (
            "onnx-time-major",
            desc(data_type, &[9, 4, inner], 0, i64s, Some(&[0, 1, 0])),
        ),
        (
            "strided",
            ReverseSubsequences::new(
                rows.input.with_strides(&[48, 1]),
                rows.sequence_lengths,
                rows.output.with_strides(&[64, 1]),
                1,
            ),
        ),
    ]
}

/// The families a layout admits, each forced on its own device (`forced`, one
/// a variant of `Variant::ALL`): those the plan takes when asked for them.
fn candidates(
    forced: &[(Variant, Gpu)],
    compile: impl Fn(&Gpu) -> Variant,
) -> Vec<&(Variant, Gpu)> {
    forced
        .iter()
        .filter(|(v, gpu)| compile(gpu) == *v)
        .collect()
}

#[test]
fn every_candidate_family_runs_each_layout_exactly() {
    let mut rng = Rng::new(72);
    // The GPU tuning's candidates are what the GPU kit times: every width;
    // the CPU tuning's at two.
    let two = [DataType::Uint8, DataType::Complex128];
    for (tuning, widths) in [(Tuning::Cpu, &two[..]), (Tuning::Gpu, &WIDTHS[..])] {
        let gpu = gpu().with_tuning(tuning);
        let forced = Variant::ALL.map(|v| (v, gpu.with_variant(Some(v))));
        for &data_type in widths {
            for (name, d) in layouts(data_type) {
                let out_of_place = candidates(&forced, |g| g.compile(&d).unwrap().variant());
                let in_place =
                    ReverseInPlace::new(d.input.clone(), d.sequence_lengths.clone(), d.axis);
                let in_place_candidates = candidates(&forced, |g| {
                    g.compile_in_place(&in_place).unwrap().variant()
                });
                let names: BTreeSet<Variant> = out_of_place.iter().map(|(v, _)| *v).collect();
                // The tuning's choice is one of them, and `general` serves all.
                let chosen = gpu.compile(&d).unwrap().variant();
                assert!(names.contains(&chosen) && names.contains(&Variant::General));
                let expected: &[Variant] = match name {
                    "innermost" | "strided" => &[Variant::General, Variant::Rows],
                    "onnx-batch-major" | "onnx-time-major" => {
                        &[Variant::General, Variant::Runs, Variant::Gather]
                    }
                    _ => &[Variant::General, Variant::Gather],
                };
                for v in expected {
                    assert!(
                        names.contains(v),
                        "{tuning:?} {data_type:?} {name}: {v:?} not among {names:?}"
                    );
                }
                for (v, forced) in out_of_place {
                    check_on(forced, &mut rng, &d, *v);
                }
                for (_, forced) in in_place_candidates {
                    crate::in_place::check_on(forced, &mut rng, &in_place, true);
                }
            }
        }
    }
}
