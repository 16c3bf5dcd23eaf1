//! Every variant against the reference: every width and length type, strided,
//! gapped, broadcast and random layouts, and both tunings.

use revseq::{DataType, Gpu, ReverseSubsequences, TensorDesc, Tuning, Variant};

use super::{check, check_on, desc, elements, lengths_for, WIDTHS};
use crate::support::{assert_matches_reference_on, gpu, per_element, Rng, LENGTH_TYPES};

#[test]
fn every_variant_width_and_length_type_matches_the_reference() {
    let mut rng = Rng::new(22);
    let mut cases = 0;
    let mut word_cases = 0;
    for data_type in WIDTHS {
        for length_type in LENGTH_TYPES {
            // Rows of 2, 3, 5, 9, 16 and 24 vectors: a power of two, several, fewer
            // than the steps per invocation, and more than one invocation per row,
            // whose segments are all full (16, and 24 at 8 steps) or not.
            for vecs in [2, 3, 5, 9, 16, 24] {
                let n = elements(data_type, 16 * vecs);
                let d = desc(data_type, &[7, n], 1, length_type, None);
                check(&mut rng, &d, Variant::Rows);
                let d = desc(data_type, &[n], 0, length_type, None);
                for _ in 0..4 {
                    check(&mut rng, &d, Variant::Rows);
                }
                cases += 5;
            }
            // Inner runs of 2, 3 and 9 vectors (a run of one 16-byte element is
            // dropped from the canonical layout, leaving the axis innermost).
            for vecs in [2, 3, 9] {
                let inner = elements(data_type, 16 * vecs);
                // ONNX batch-major and time-major, and lengths that vary along an
                // outer dimension only.
                let d = desc(data_type, &[3, 6, inner], 1, length_type, Some(&[1, 0, 0]));
                check(&mut rng, &d, Variant::Runs);
                let d = desc(data_type, &[6, 3, inner], 0, length_type, Some(&[0, 1, 0]));
                check(&mut rng, &d, Variant::Runs);
                // One length per element: the axis outermost, and in the middle with
                // an axis longer than the steps per invocation.
                let d = desc(data_type, &[6, inner], 0, length_type, None);
                check(&mut rng, &d, per_element(data_type, 6, true));
                let d = desc(data_type, &[2, 11, inner], 1, length_type, None);
                check(&mut rng, &d, per_element(data_type, 11, true));
                cases += 4;
            }
            // Rows and runs of whole words, not whole vectors: the narrow kernels.
            if data_type.size_in_bytes() < 16 {
                for bytes in [4, 20, 24, 16 * 9 + 4] {
                    let inner = elements(data_type, bytes.max(data_type.size_in_bytes()));
                    if (inner * data_type.size_in_bytes()).is_multiple_of(16) || inner < 2 {
                        continue;
                    }
                    let d = desc(data_type, &[3, 6, inner], 1, length_type, Some(&[1, 0, 0]));
                    check(&mut rng, &d, Variant::Runs);
                    assert_eq!(gpu().compile(&d).unwrap().key().vector_bytes, 4);
                    let d = desc(data_type, &[6, 3, inner], 0, length_type, Some(&[0, 1, 0]));
                    check(&mut rng, &d, Variant::Runs);
                    let d = desc(data_type, &[7, inner], 1, length_type, None);
                    check(&mut rng, &d, Variant::Rows);
                    assert_eq!(gpu().compile(&d).unwrap().key().vector_bytes, 4);
                    let d = desc(data_type, &[inner], 0, length_type, None);
                    for _ in 0..3 {
                        check(&mut rng, &d, Variant::Rows);
                    }
                    let d = desc(data_type, &[6, inner], 0, length_type, None);
                    check(&mut rng, &d, Variant::Gather);
                    assert_eq!(gpu().compile(&d).unwrap().key().vector_bytes, 4);
                    let d = desc(data_type, &[2, 11, inner], 1, length_type, None);
                    check(&mut rng, &d, Variant::Gather);
                    word_cases += 8;
                }
            }
        }
    }
    assert_eq!(cases, 5 * 4 * (6 * 5 + 3 * 4));
    // Per length type: 1- and 2-byte rows of all four sizes, 4-byte of 20, 24 and
    // 148 bytes, 8-byte of 24 (the rest are one element or whole vectors); 8 cases
    // each.
    assert_eq!(word_cases, 4 * (4 + 4 + 3 + 1) * 8);
}

#[test]
fn fast_paths_on_gapped_broadcast_and_transposed_layouts() {
    let mut rng = Rng::new(24);
    for data_type in WIDTHS {
        let v = elements(data_type, 16); // elements per vector
        let n = 3 * v;
        for length_type in LENGTH_TYPES {
            // Rows: gapped input and output rows, outer dimensions in another order,
            // input broadcast along one of them, lengths broadcast along another.
            let sizes = [2, 3, n];
            let d = ReverseSubsequences::new(
                TensorDesc::new(data_type, &sizes).with_strides(&[0, n + v, 1]),
                TensorDesc::new(length_type, &[2, 3, 1]).with_strides(&[1, 0, 0]),
                TensorDesc::new(data_type, &sizes).with_strides(&[n + 2 * v, 2 * (n + 2 * v), 1]),
                2,
            );
            check(&mut rng, &d, Variant::Rows);
            // Runs: time-major with gaps between runs in both tensors.
            let sizes = [5, 2, n];
            let d = ReverseSubsequences::new(
                TensorDesc::new(data_type, &sizes).with_strides(&[2 * (n + v), n + v, 1]),
                TensorDesc::new(length_type, &[1, 2, n]).with_strides(&[0, 1, 0]),
                TensorDesc::new(data_type, &sizes).with_strides(&[2 * n + v, n, 1]),
                0,
            );
            check(&mut rng, &d, Variant::Runs);
            // Gather or Columns: lengths broadcast along the outer dimension, varying
            // inside; the output gapped between axis positions.
            let sizes = [2, 5, n];
            let d = ReverseSubsequences::new(
                TensorDesc::new(data_type, &sizes),
                TensorDesc::new(length_type, &[2, 1, n]).with_strides(&[0, 0, 1]),
                TensorDesc::new(data_type, &sizes).with_strides(&[5 * (n + v), n + v, 1]),
                1,
            );
            check(&mut rng, &d, per_element(data_type, 5, true));
        }
    }
}

#[test]
fn random_vector_friendly_layouts_match_the_reference() {
    // Random ranks, axes, orders, gaps and broadcasts, with an innermost dimension of
    // whole vectors, so that most cases land on a fast path and some do not.
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        random_layouts_under(&gpu().with_tuning(tuning));
    }
}

/// [`random_vector_friendly_layouts_match_the_reference`] under `device`'s tuning.
fn random_layouts_under(device: &Gpu) {
    let mut rng = Rng::new(25);
    let mut seen = std::collections::HashMap::new();
    for _ in 0..300 {
        let data_type = WIDTHS[rng.below(5) as usize];
        let v = elements(data_type, 16);
        let rank = 2 + rng.below(3) as usize;
        let axis = rng.below(rank as u64) as usize;
        let mut sizes: Vec<u32> = (0..rank).map(|_| 1 + rng.below(4) as u32).collect();
        sizes[rank - 1] = v * (1 + rng.below(3) as u32);
        // Now and then past the 64 positions Columns holds.
        sizes[axis] = if rng.below(4) == 0 {
            65 + rng.below(8) as u32
        } else {
            2 + rng.below(12) as u32
        };
        // Strides laid out innermost first, each outer one padded by whole vectors
        // (or, now and then, by one element, which the fast paths must refuse).
        let mut layout = |broadcast: bool| {
            let mut strides = vec![0u32; rank];
            let mut step = 1;
            for d in (0..rank).rev() {
                strides[d] = step;
                let pad = match rng.below(6) {
                    0 => 1,
                    1 | 2 => v,
                    _ => 0,
                };
                step = step * sizes[d] + if d == rank - 1 { 0 } else { pad };
            }
            if broadcast {
                for (d, s) in strides.iter_mut().enumerate() {
                    if d != rank - 1 && rng.below(4) == 0 {
                        *s = 0;
                    }
                }
            }
            strides
        };
        let input = layout(true);
        let output = layout(false);
        let length_type = LENGTH_TYPES[rng.below(4) as usize];
        let mut length_sizes = sizes.clone();
        length_sizes[axis] = 1;
        let mut length_strides = TensorDesc::new(length_type, &length_sizes).effective_strides();
        for s in length_strides.iter_mut() {
            if rng.below(3) == 0 {
                *s = 0;
            }
        }
        let length_strides: Vec<u32> = length_strides.iter().map(|&s| s as u32).collect();
        let d = ReverseSubsequences::new(
            TensorDesc::new(data_type, &sizes).with_strides(&input),
            TensorDesc::new(length_type, &length_sizes).with_strides(&length_strides),
            TensorDesc::new(data_type, &sizes).with_strides(&output),
            axis as u32,
        );
        let variant = device.compile(&d).unwrap().variant();
        *seen.entry(variant).or_insert(0) += 1;
        let input_bytes = rng.bytes(d.input.min_size_in_bytes() as usize);
        let lengths = lengths_for(&mut rng, &d);
        assert_matches_reference_on(device, &d, &input_bytes, &lengths);
    }
    // Every variant, 20 times, under either tuning.
    for variant in Variant::ALL {
        let count = seen.get(&variant).copied().unwrap_or(0);
        assert!(count >= 20, "{:?}: {seen:?}", device.tuning());
    }
}

#[test]
fn wide_gather_sweeps_several_bands() {
    // Runs of 2 × 256 + 3 vectors: three bands of columns, the last with an idle
    // invocation, along axes (67 and 66 positions, past what Columns holds) that end
    // inside a block of 4.
    // The CPU tuning's bands (a GPU's are one vector deep).
    let cpu = gpu().with_tuning(Tuning::Cpu);
    let mut rng = Rng::new(27);
    for data_type in [DataType::Float32, DataType::Uint64, DataType::Complex128] {
        let inner = elements(data_type, 16 * (2 * 256 + 3));
        let d = desc(data_type, &[67, inner], 0, DataType::Uint32, None);
        check_on(&cpu, &mut rng, &d, Variant::Gather);
        let d = desc(data_type, &[2, 66, inner], 1, DataType::Int64, None);
        check_on(&cpu, &mut rng, &d, Variant::Gather);
    }
}

#[test]
fn the_gpu_tuning_runs_every_variant_correctly() {
    // A CPU adapter's tuning takes several vectors per invocation; a GPU's takes
    // one (or a few axis positions). Same results required, on either adapter.
    let tuned = gpu().with_tuning(Tuning::Gpu);
    assert_eq!(gpu().tuning(), Tuning::for_adapter(&gpu().adapter_info()));
    assert_eq!(tuned.tuning(), Tuning::Gpu);
    let mut rng = Rng::new(28);
    let mut word_keys = 0;
    for data_type in WIDTHS {
        let w = data_type.size_in_bytes();
        for length_type in LENGTH_TYPES {
            // Vectors (3 and 2 × 256 + 3 a run) and, below 16-byte elements, words.
            let mut inners = vec![elements(data_type, 48), elements(data_type, 16 * 515)];
            if w < 16 {
                inners.push(elements(data_type, 20).max(2) + u32::from(w == 8));
            }
            for inner in inners {
                let cases = [
                    (
                        desc(data_type, &[5, inner], 1, length_type, None),
                        Variant::Rows,
                    ),
                    (
                        desc(data_type, &[3, 6, inner], 1, length_type, Some(&[1, 0, 0])),
                        Variant::Runs,
                    ),
                    (
                        desc(data_type, &[9, inner], 0, length_type, None),
                        per_element(data_type, 9, inner * w % 16 == 0),
                    ),
                ];
                for (d, variant) in cases {
                    let key = check_on(&tuned, &mut rng, &d, variant);
                    word_keys += usize::from(key.vector_bytes == 4);
                    // `columns` holds the axis (9 positions in 16 rows).
                    let most = match variant {
                        Variant::Gather | Variant::Runs => 4,
                        Variant::Columns => 16,
                        _ => 1,
                    };
                    assert!(key.steps <= most, "{key:?}");
                }
            }
        }
        // A gapped, broadcast layout on each fast path.
        let v = elements(data_type, 16);
        let n = 3 * v;
        let d = ReverseSubsequences::new(
            TensorDesc::new(data_type, &[2, 3, n]).with_strides(&[0, n + v, 1]),
            TensorDesc::new(DataType::Uint32, &[2, 3, 1]).with_strides(&[1, 0, 0]),
            TensorDesc::new(data_type, &[2, 3, n]).with_strides(&[n + 2 * v, 2 * (n + 2 * v), 1]),
            2,
        );
        check_on(&tuned, &mut rng, &d, Variant::Rows);
        for axis in [5, 70] {
            let d = ReverseSubsequences::new(
                TensorDesc::new(data_type, &[2, axis, n]),
                TensorDesc::new(DataType::Int64, &[2, 1, n]).with_strides(&[0, 0, 1]),
                TensorDesc::new(data_type, &[2, axis, n]).with_strides(&[axis * (n + v), n + v, 1]),
                1,
            );
            check_on(&tuned, &mut rng, &d, per_element(data_type, axis, true));
        }
    }
    // Every variant on words, for the four widths below 16 bytes and 4 length types.
    assert_eq!(word_keys, 3 * 4 * 4);
}
