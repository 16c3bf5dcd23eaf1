//! Which layouts select which variant, under each tuning: a fast path cannot
//! silently fall back, nor a fallback hide a fast path's bug; and the key fields
//! a plan decides (64-bit words, shared length loads).

use revseq::{DataType, ReverseSubsequences, TensorDesc, Tuning, Variant};

use super::{check, check_on, desc, elements, WIDTHS};
use crate::support::{gpu, gpu_with_limits, per_element, Rng, LENGTH_TYPES};

#[test]
fn each_layout_selects_its_variant() {
    // The CPU tuning's choices (the GPU tuning's: `the_gpu_tuning_runs_every_variant_correctly`).
    let cpu = gpu().with_tuning(Tuning::Cpu);
    let u32s = DataType::Uint32;
    let i64s = DataType::Int64;
    let cases = [
        // Axis innermost: Rows when a row is a whole number of 16-byte vectors.
        (
            desc(DataType::Float32, &[5, 64], 1, u32s, None),
            Variant::Rows,
        ),
        (
            desc(DataType::Uint8, &[5, 48], 1, u32s, None),
            Variant::Rows,
        ),
        (
            desc(DataType::Float16, &[5, 8], 1, u32s, None),
            Variant::Rows,
        ),
        (
            desc(DataType::Uint8, &[5, 63], 1, u32s, None),
            Variant::General,
        ),
        // Whole words but not whole vectors: Rows on words.
        (
            desc(DataType::Float32, &[5, 63], 1, u32s, None),
            Variant::Rows,
        ),
        // ONNX [batch, time, inner] and [time, batch, inner]: Runs.
        (
            desc(DataType::Float32, &[3, 7, 4], 1, i64s, Some(&[1, 0, 0])),
            Variant::Runs,
        ),
        (
            desc(DataType::Uint8, &[7, 3, 32], 0, i64s, Some(&[0, 1, 0])),
            Variant::Runs,
        ),
        // Runs of whole words but not whole vectors: Runs on words; runs of 6 bytes
        // are neither.
        (
            desc(DataType::Float32, &[3, 7, 3], 1, i64s, Some(&[1, 0, 0])),
            Variant::Runs,
        ),
        (
            desc(DataType::Uint8, &[3, 7, 6], 1, i64s, Some(&[1, 0, 0])),
            Variant::General,
        ),
        // One length per element along the inner dimension: Columns on a CPU adapter
        // along at most 64 positions, on vectors; Gather past them or on words.
        (
            desc(DataType::Float32, &[7, 4], 0, u32s, None),
            Variant::Columns,
        ),
        (
            desc(DataType::Uint8, &[2, 7, 16], 1, u32s, None),
            Variant::Columns,
        ),
        (
            desc(DataType::Float16, &[64, 8], 0, DataType::Int32, None),
            Variant::Columns,
        ),
        (
            desc(DataType::Float16, &[65, 8], 0, i64s, None),
            Variant::Gather,
        ),
        (
            desc(DataType::Float32, &[7, 5], 0, u32s, None),
            Variant::Gather,
        ),
        (
            desc(DataType::Float32, &[80, 4], 0, u32s, None),
            Variant::Gather,
        ),
        (
            desc(DataType::Uint8, &[7, 5], 0, u32s, None),
            Variant::General,
        ),
        // ONNX [time, batch]: the batch is the inner dimension, one length each.
        (
            desc(DataType::Float32, &[7, 8], 0, i64s, Some(&[0, 1])),
            Variant::Columns,
        ),
        // A size-1 axis reverses nothing; the general kernel copies.
        (
            desc(DataType::Float32, &[5, 1], 1, u32s, None),
            Variant::General,
        ),
    ];
    for (desc, variant) in cases {
        let compiled = cpu.compile(&desc).unwrap();
        assert_eq!(compiled.variant(), variant, "{desc:?}");
    }
    let words = desc(DataType::Float32, &[3, 7, 3], 1, i64s, Some(&[1, 0, 0]));
    assert_eq!(cpu.compile(&words).unwrap().key().vector_bytes, 4);
    let words = desc(DataType::Float32, &[5, 63], 1, u32s, None);
    assert_eq!(cpu.compile(&words).unwrap().key().vector_bytes, 4);
    let vectors = desc(DataType::Float32, &[3, 7, 4], 1, i64s, Some(&[1, 0, 0]));
    assert_eq!(cpu.compile(&vectors).unwrap().key().vector_bytes, 16);
}

#[test]
fn vector_kernels_move_64_bit_words_on_a_cpu_adapter_whose_device_has_them() {
    // `Gpu::new` asks for SHADER_INT64 where the adapter offers it (lavapipe's
    // Vulkan does; wgpu's GL backend and WebGPU do not). There `Runs` and `Rows` on
    // 16-byte vectors, `Columns`, and `Gather` of 8- and 16-byte elements load and
    // store 64-bit words, those that only move them (`Runs`, 8- and 16-byte `Rows`,
    // `Gather`) where the host moves them faster (`Gpu::with_64_bit_moves` sets
    // both); a device without it, and the GPU tuning, move 32-bit ones. Same
    // results required.
    let int64 = gpu()
        .device()
        .features()
        .contains(wgpu::Features::SHADER_INT64);
    let plain = gpu_with_limits(|_| {});
    assert!(!plain
        .device()
        .features()
        .contains(wgpu::Features::SHADER_INT64));
    let cpu = gpu().tuning() == Tuning::Cpu;
    eprintln!(
        "64-bit words on the default device: {int64}; moved as such by default on this host: {}",
        gpu().moves_64_bit_words()
    );
    let mut rng = Rng::new(29);
    for data_type in WIDTHS {
        let w = data_type.size_in_bytes();
        let v = elements(data_type, 16);
        // Words but not whole vectors.
        let words = elements(data_type, 20).max(2) + u32::from(v == 2);
        for length_type in LENGTH_TYPES {
            let broadcast = |sizes: &[u32], axis, strides: &[u32]| {
                desc(data_type, sizes, axis, length_type, Some(strides))
            };
            // [batch, time, inner] of 3 and 2 × 128 + 3 vectors a run, and of words;
            // [time, batch, inner] with the time axis outermost; rows of 3 and 17
            // vectors, gapped rows, and rows of words. Whether each is on vectors.
            let mut cases = vec![
                (
                    broadcast(&[3, 6, 3 * v], 1, &[1, 0, 0]),
                    Variant::Runs,
                    true,
                ),
                (
                    broadcast(&[2, 5, 259 * v], 1, &[1, 0, 0]),
                    Variant::Runs,
                    true,
                ),
                (
                    broadcast(&[6, 3, 5 * v], 0, &[0, 1, 0]),
                    Variant::Runs,
                    true,
                ),
                (
                    desc(data_type, &[5, 3 * v], 1, length_type, None),
                    Variant::Rows,
                    true,
                ),
                (
                    desc(data_type, &[3, 17 * v], 1, length_type, None),
                    Variant::Rows,
                    true,
                ),
                (
                    ReverseSubsequences::new(
                        TensorDesc::new(data_type, &[4, 3 * v]).with_strides(&[4 * v, 1]),
                        TensorDesc::new(length_type, &[4, 1]),
                        TensorDesc::new(data_type, &[4, 3 * v]).with_strides(&[5 * v, 1]),
                        1,
                    ),
                    Variant::Rows,
                    true,
                ),
            ];
            if w < 16 {
                cases.push((
                    broadcast(&[3, 6, words], 1, &[1, 0, 0]),
                    Variant::Runs,
                    false,
                ));
                let d = desc(data_type, &[5, words], 1, length_type, None);
                cases.push((d, Variant::Rows, false));
            }
            for (d, variant, vectors) in cases {
                // Rows of 1- to 4-byte elements shift bytes across their words;
                // runs and wider rows only move them.
                let computes = variant == Variant::Rows && w < 8;
                for moves in [true, false] {
                    let key = check_on(&gpu().with_64_bit_moves(moves), &mut rng, &d, variant);
                    let wide = vectors && int64 && cpu && (computes || moves);
                    assert_eq!(key.access_bits, if wide { 64 } else { 32 }, "{key:?}");
                    assert_eq!(key.vector_bytes, if vectors { 16 } else { 4 });
                }
                let key = check_on(&plain, &mut rng, &d, variant);
                assert_eq!(key.access_bits, 32, "{key:?}");
                let key = check_on(&gpu().with_tuning(Tuning::Gpu), &mut rng, &d, variant);
                assert_eq!(key.access_bits, 32, "{key:?}");
            }
        }
        // Lengths per element (`per_element`: `Columns` along up to 64 positions,
        // past them `Gather`); 64-bit words on a CPU for columns of every width,
        // which compute on them, and 8- and 16-byte gathers, which move them.
        let short = desc(data_type, &[9, 3 * v], 0, DataType::Uint32, None);
        let long = desc(data_type, &[70, 3 * v], 0, DataType::Int64, None);
        let tuned = gpu().with_tuning(Tuning::Gpu);
        for (d, n) in [(&short, 9), (&long, 70)] {
            let variant = per_element(data_type, n, true);
            for moves in [true, false] {
                let key = check_on(&gpu().with_64_bit_moves(moves), &mut rng, d, variant);
                let words = match variant {
                    Variant::Columns => true,
                    _ => w >= 8 && moves,
                };
                let wide = words && int64 && cpu;
                assert_eq!(key.access_bits, if wide { 64 } else { 32 }, "{key:?}");
            }
            assert_eq!(check_on(&plain, &mut rng, d, variant).access_bits, 32);
            assert_eq!(check_on(&tuned, &mut rng, d, variant).access_bits, 32);
        }
    }
}

#[test]
fn rows_split_over_invocations_match_the_reference_under_both_tunings() {
    // `rows` invocations of one row each load its length and their spans' tops,
    // whatever the adapter. Rows that end inside an 8-invocation group and
    // invocations past the last row included; `runs` and windowed dispatches too.
    let mut rng = Rng::new(31);
    // (element type, row length): 8 steps of 16 bytes for 1- to 4-byte
    // elements, 16 for wider ones on packed rows; 12 vectors as 8 and 4.
    let cases = [
        (DataType::Float32, 64),
        (DataType::Float32, 96),
        (DataType::Float32, 192),
        (DataType::Float32, 256),
        (DataType::Float32, 512),
        (DataType::Uint8, 512),
        (DataType::Float16, 64),
        (DataType::Float16, 96),
        (DataType::Float64, 64),
        (DataType::Complex128, 64),
    ];
    let tuned = gpu().with_tuning(Tuning::Gpu);
    for (data_type, n) in cases {
        for rows in [1, 5, 13, 40] {
            let d = desc(data_type, &[rows, n], 1, DataType::Int32, None);
            check_on(gpu(), &mut rng, &d, Variant::Rows);
            check_on(&tuned, &mut rng, &d, Variant::Rows);
        }
    }
    // Runs: ONNX [batch, time, 1024 floats], one length per batch.
    for (sizes, axis, strides) in [
        ([3, 5, 1024], 1, [1, 0, 0]),
        ([5, 3, 1024], 0, [0, 1, 0]),
        ([3, 5, 64], 1, [1, 0, 0]),
    ] {
        let d = desc(
            DataType::Float32,
            &sizes,
            axis,
            DataType::Int64,
            Some(&strides),
        );
        check_on(gpu(), &mut rng, &d, Variant::Runs);
    }
    // Windowed: each dispatch numbers its invocations from 0.
    let d = desc(DataType::Float32, &[300, 64], 1, DataType::Uint32, None);
    check_on(&gpu().with_max_binding(4096), &mut rng, &d, Variant::Rows);
}

#[test]
fn strides_decide_whether_rows_stay_aligned() {
    let mut rng = Rng::new(21);
    let base = desc(DataType::Float32, &[6, 16], 1, DataType::Uint32, None);
    let with = |input: &[u32], output: &[u32]| {
        ReverseSubsequences::new(
            base.input.clone().with_strides(input),
            base.sequence_lengths.clone(),
            base.output.clone().with_strides(output),
            1,
        )
    };
    // Row pitches that keep every row 16-byte aligned, including a broadcast input.
    check(&mut rng, &with(&[20, 1], &[24, 1]), Variant::Rows);
    check(&mut rng, &with(&[0, 1], &[16, 1]), Variant::Rows);
    // A pitch of 17 elements starts rows at 4-byte offsets: words, not vectors.
    for d in [with(&[17, 1], &[16, 1]), with(&[16, 1], &[17, 1])] {
        check(&mut rng, &d, Variant::Rows);
        assert_eq!(gpu().compile(&d).unwrap().key().vector_bytes, 4);
    }
    // The axis strided in the input: general.
    check(&mut rng, &with(&[1, 6], &[16, 1]), Variant::General);
}
