//! The plan's kernel variants: which layouts select which variant (so that a fast
//! path cannot silently fall back, nor a fallback hide a fast path's bug), every
//! variant against the reference for every width and length type, the boundaries
//! of each fast path, invocation indices past 2^16 (where the kernels' division by
//! multiplying departs from small numbers), and strided, gapped and broadcast
//! layouts on the fast paths.

use revseq::{DataType, Gpu, ReverseSubsequences, TensorDesc, Tuning, Variant};

use crate::support::{
    assert_matches_reference, assert_matches_reference_on, gpu, gpu_with_limits,
    interesting_lengths, length_bytes, per_element, Rng, LENGTH_TYPES,
};

const WIDTHS: [DataType; 5] = [
    DataType::Uint8,
    DataType::Float16,
    DataType::Float32,
    DataType::Uint64,
    DataType::Complex128,
];

/// Packed input and output of `sizes`, lengths of `length_type` with the input's
/// sizes and 1 on `axis`, packed or with `length_strides`.
pub(crate) fn desc(
    data_type: DataType,
    sizes: &[u32],
    axis: u32,
    length_type: DataType,
    length_strides: Option<&[u32]>,
) -> ReverseSubsequences {
    let mut length_sizes = sizes.to_vec();
    length_sizes[axis as usize] = 1;
    let lengths = TensorDesc::new(length_type, &length_sizes);
    ReverseSubsequences::new(
        TensorDesc::new(data_type, sizes),
        match length_strides {
            Some(strides) => lengths.with_strides(strides),
            None => lengths,
        },
        TensorDesc::new(data_type, sizes),
        axis,
    )
}

/// A `[rows, columns]` tensor reversed along axis 1 whose input is stored column
/// by column, so no fast path applies: the general kernels' layouts.
pub(crate) fn transposed(data_type: DataType, rows: u32, columns: u32) -> ReverseSubsequences {
    ReverseSubsequences::new(
        TensorDesc::new(data_type, &[rows, columns]).with_strides(&[1, rows]),
        TensorDesc::new(DataType::Uint32, &[rows, 1]),
        TensorDesc::new(data_type, &[rows, columns]),
        1,
    )
}

/// Elements of `data_type` in `bytes` bytes.
fn elements(data_type: DataType, bytes: u32) -> u32 {
    bytes / data_type.size_in_bytes()
}

/// Lengths for every slot of the lengths tensor, drawn from the values worth
/// testing for the axis (0, 1, n, past n, past 2^32, negative).
fn lengths_for(rng: &mut Rng, desc: &ReverseSubsequences) -> Vec<u8> {
    drawn_lengths(rng, desc, |rng, pool, _, _| {
        pool[rng.below(pool.len() as u64) as usize]
    })
}

/// Lengths for every slot of the lengths tensor, each from `draw(rng, pool, n,
/// slot)`: `pool` holds the values worth testing for an axis of `n` positions.
fn drawn_lengths(
    rng: &mut Rng,
    desc: &ReverseSubsequences,
    mut draw: impl FnMut(&mut Rng, &[i128], u32, u64) -> i128,
) -> Vec<u8> {
    let length_type = desc.sequence_lengths.data_type();
    let n = desc.input.sizes()[desc.axis as usize];
    let pool = interesting_lengths(length_type, n);
    let slots = desc.sequence_lengths.min_size_in_bytes() / u64::from(length_type.size_in_bytes());
    (0..slots)
        .flat_map(|slot| length_bytes(length_type, draw(rng, &pool, n, slot)))
        .collect()
}

/// Asserts the variant `desc` compiles to, then runs it against the reference.
fn check(rng: &mut Rng, desc: &ReverseSubsequences, variant: Variant) {
    check_on(gpu(), rng, desc, variant);
}

/// [`check`] on another device or tuning; returns the key it ran under.
fn check_on(
    gpu: &Gpu,
    rng: &mut Rng,
    desc: &ReverseSubsequences,
    variant: Variant,
) -> revseq::PipelineKey {
    let compiled = gpu.compile(desc).unwrap();
    assert_eq!(compiled.variant(), variant, "{desc:?}");
    assert_eq!(compiled.key().variant, variant);
    let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
    let lengths = lengths_for(rng, desc);
    assert_matches_reference_on(gpu, desc, &input, &lengths);
    compiled.key()
}

#[test]
fn each_layout_selects_its_variant() {
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
        let compiled = gpu().compile(&desc).unwrap();
        assert_eq!(compiled.variant(), variant, "{desc:?}");
    }
    let words = desc(DataType::Float32, &[3, 7, 3], 1, i64s, Some(&[1, 0, 0]));
    assert_eq!(gpu().compile(&words).unwrap().key().vector_bytes, 4);
    let words = desc(DataType::Float32, &[5, 63], 1, u32s, None);
    assert_eq!(gpu().compile(&words).unwrap().key().vector_bytes, 4);
    let vectors = desc(DataType::Float32, &[3, 7, 4], 1, i64s, Some(&[1, 0, 0]));
    assert_eq!(gpu().compile(&vectors).unwrap().key().vector_bytes, 16);
}

#[test]
fn vector_kernels_move_64_bit_words_on_a_cpu_adapter_whose_device_has_them() {
    // `Gpu::new` asks for SHADER_INT64 where the adapter offers it (lavapipe's
    // Vulkan does; wgpu's GL backend and WebGPU do not). There `Runs` and `Rows` on
    // 16-byte vectors, `Columns`, and `Gather` of 8- and 16-byte elements move
    // 64-bit words; a device without it, and the GPU tuning, move 32-bit ones. Same
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
    eprintln!("64-bit words on the default device: {int64}");
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
                let key = check_on(gpu(), &mut rng, &d, variant);
                let wide = vectors && int64 && gpu().tuning() == Tuning::Cpu;
                assert_eq!(key.access_bits, if wide { 64 } else { 32 }, "{key:?}");
                assert_eq!(key.vector_bytes, if vectors { 16 } else { 4 });
                let key = check_on(&plain, &mut rng, &d, variant);
                assert_eq!(key.access_bits, 32, "{key:?}");
                let key = check_on(&gpu().with_tuning(Tuning::Gpu), &mut rng, &d, variant);
                assert_eq!(key.access_bits, 32, "{key:?}");
            }
        }
        // Lengths per element: `Columns` along an axis of up to 64 positions (of
        // elements below 16 bytes) on a CPU, `Gather` along longer ones, and every
        // one on a GPU; 64-bit words for columns of every width and 8- and
        // 16-byte gathers.
        let short = desc(data_type, &[9, 3 * v], 0, DataType::Uint32, None);
        let long = desc(data_type, &[70, 3 * v], 0, DataType::Int64, None);
        let columns = if w < 16 {
            Variant::Columns
        } else {
            Variant::Gather
        };
        let cpu = gpu().tuning() == Tuning::Cpu;
        for (d, variant, wide) in [(&short, columns, true), (&long, Variant::Gather, w >= 8)] {
            let variant = if cpu { variant } else { Variant::Tile };
            let key = check_on(gpu(), &mut rng, d, variant);
            assert_eq!(
                key.access_bits,
                if wide && int64 && cpu { 64 } else { 32 },
                "{key:?}"
            );
            assert_eq!(check_on(&plain, &mut rng, d, variant).access_bits, 32);
            let tuned = gpu().with_tuning(Tuning::Gpu);
            assert_eq!(check_on(&tuned, &mut rng, d, Variant::Tile).access_bits, 32);
        }
    }
}

#[test]
fn rows_share_a_length_load_across_an_8_lane_subgroup() {
    // `Gpu::new` asks for SUBGROUP where the adapter offers it. On a CPU adapter
    // with 64-bit words and subgroups of 8 (lavapipe on 256-bit vectors), `rows`
    // invocations of one row of 1- to 4-byte elements share its length and pass
    // each other their spans' tops: as many as the largest power of two that
    // divides a row's invocations, up to 8. Wider elements, `runs`, any other
    // device and the GPU tuning load their own. Same results required, rows
    // that end past a subgroup's lanes and invocations past the last row included.
    let device = gpu().device();
    let info = gpu().adapter_info();
    let subgroups = device.features().contains(wgpu::Features::SUBGROUP)
        && device.features().contains(wgpu::Features::SHADER_INT64)
        && info.subgroup_min_size == 8
        && info.subgroup_max_size == 8
        && gpu().tuning() == Tuning::Cpu;
    eprintln!(
        "subgroups of {}..={} invocations, SUBGROUP: {}; shared lengths: {subgroups}",
        info.subgroup_min_size,
        info.subgroup_max_size,
        device.features().contains(wgpu::Features::SUBGROUP)
    );
    let mut rng = Rng::new(31);
    // (element type, row length, invocations a row: 8 steps of 16 bytes for 1- to
    // 4-byte elements, 16 for wider ones on packed rows; 12 vectors as 8 and 4)
    let cases = [
        (DataType::Float32, 64, 2),
        (DataType::Float32, 96, 3),
        (DataType::Float32, 192, 6),
        (DataType::Float32, 256, 8),
        (DataType::Float32, 512, 16),
        (DataType::Uint8, 512, 4),
        (DataType::Float16, 64, 1),
        (DataType::Float16, 96, 2),
        (DataType::Float64, 64, 2),
        (DataType::Complex128, 64, 4),
    ];
    for (data_type, n, invocations) in cases {
        for rows in [1, 5, 13, 40] {
            let d = desc(data_type, &[rows, n], 1, DataType::Int32, None);
            let shared = if subgroups && data_type.size_in_bytes() <= 4 {
                (1 << u32::trailing_zeros(invocations)).min(8)
            } else {
                1
            };
            let key = check_on(gpu(), &mut rng, &d, Variant::Rows);
            assert_eq!(key.share_lengths, shared, "{d:?}");
            assert_eq!(key.source().uses_subgroups(), shared > 1, "{d:?}");
            let tuned = gpu().with_tuning(Tuning::Gpu);
            assert_eq!(
                check_on(&tuned, &mut rng, &d, Variant::Rows).share_lengths,
                1
            );
        }
    }
    // Runs: ONNX [batch, time, 1024 floats], one length per batch, each
    // invocation loads its own.
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
        let key = check_on(gpu(), &mut rng, &d, Variant::Runs);
        assert_eq!(key.share_lengths, 1, "{d:?}");
    }
    // Windowed: each dispatch numbers its invocations from 0.
    let d = desc(DataType::Float32, &[300, 64], 1, DataType::Uint32, None);
    let windowed = gpu().with_max_binding(4096);
    let key = check_on(&windowed, &mut rng, &d, Variant::Rows);
    assert_eq!(key.share_lengths, if subgroups { 2 } else { 1 });
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
                check(&mut rng, &d, per_element(gpu(), data_type, 6, true));
                let d = desc(data_type, &[2, 11, inner], 1, length_type, None);
                check(&mut rng, &d, per_element(gpu(), data_type, 11, true));
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
fn fast_paths_end_exactly_at_their_boundaries() {
    let mut rng = Rng::new(23);
    for data_type in WIDTHS {
        let w = data_type.size_in_bytes();
        // For 16-byte elements every row is whole vectors: all three are fast.
        for bytes in [48 - w, 48, 48 + w] {
            let n = bytes / w;
            // A row, a shared-length run and a per-element run of `bytes` bytes: on
            // vectors when whole vectors, on words when whole words, else general.
            let aligned = bytes % 16 == 0;
            let words = bytes % 4 == 0;
            let pick = |fast| if words { fast } else { Variant::General };
            let vector_bytes = [0, 4, 16][usize::from(words) + usize::from(aligned)];
            for (d, fast) in [
                (
                    desc(data_type, &[5, n], 1, DataType::Uint64, None),
                    Variant::Rows,
                ),
                (
                    desc(data_type, &[4, 5, n], 1, DataType::Int32, Some(&[1, 0, 0])),
                    Variant::Runs,
                ),
                (
                    desc(data_type, &[5, n], 0, DataType::Int64, None),
                    per_element(gpu(), data_type, 5, aligned),
                ),
            ] {
                check(&mut rng, &d, pick(fast));
                assert_eq!(gpu().compile(&d).unwrap().key().vector_bytes, vector_bytes);
            }
        }
    }
}

/// Rows of `n` elements of `data_type`, one more than there are lengths from 0 to
/// past the axis, each row its own: asserts they run as `Rows` on 16-byte vectors,
/// runs them against the reference on `device`, and returns the key they ran under.
fn rows_at_every_length(
    device: &Gpu,
    rng: &mut Rng,
    data_type: DataType,
    n: u32,
) -> revseq::PipelineKey {
    let d = desc(data_type, &[n + 2, n], 1, DataType::Uint32, None);
    let lengths: Vec<u8> = (0..n + 2).flat_map(|len| len.to_le_bytes()).collect();
    let compiled = device.compile(&d).unwrap();
    assert_eq!(compiled.variant(), Variant::Rows, "{d:?}");
    let key = compiled.key();
    assert_eq!(key.vector_bytes, 16, "{key:?}");
    let input = rng.bytes(d.input.min_size_in_bytes() as usize);
    assert_matches_reference_on(device, &d, &input, &lengths);
    key
}

/// Vectors a `Rows` invocation takes under the CPU tuning on packed rows: 16 for 8-
/// and 16-byte elements, 8 for narrower ones.
fn cpu_row_steps(data_type: DataType) -> u32 {
    if data_type.size_in_bytes() >= 8 {
        16
    } else {
        8
    }
}

#[test]
fn rows_in_one_invocation_match_the_reference_at_every_length() {
    // A row of at most STEPS vectors runs in one invocation, which loads each of its
    // vectors once in an order set by the row's length: rows of 1 vector to one past
    // the CPU's steps (8, or 16 for packed rows of 8- and 16-byte elements), each row
    // of the tensor its own length from 0 to past the axis, every width, under both
    // tunings, on the default device (64-bit words on lavapipe's Vulkan) and on one
    // without SHADER_INT64.
    let plain = gpu_with_limits(|_| {});
    let mut rng = Rng::new(31);
    for data_type in WIDTHS {
        let cpu_steps = cpu_row_steps(data_type);
        for vecs in 1..=cpu_steps + 1 {
            let n = elements(data_type, 16 * vecs);
            if n == 1 {
                // An axis of one element reverses nothing: the general kernel.
                continue;
            }
            for device in [gpu(), &plain] {
                for tuning in [Tuning::Cpu, Tuning::Gpu] {
                    let key =
                        rows_at_every_length(&device.with_tuning(tuning), &mut rng, data_type, n);
                    // The CPU tuning takes up to `cpu_steps` vectors an invocation
                    // (no more than the row has, rounded up to a power of two),
                    // the GPU one.
                    let most = if tuning == Tuning::Cpu { cpu_steps } else { 1 };
                    assert_eq!(key.steps, most.min(vecs.next_power_of_two()), "{key:?}");
                }
            }
        }
    }
}

#[test]
fn rows_over_several_invocations_match_the_reference_at_every_length() {
    // A row longer than an invocation's steps is split over several, and the
    // first vector of each needs a vector that another loads: the one before's
    // last source, or for the row's first the vector where the length falls. In
    // a subgroup it is passed on; where the other lies outside it (a row past a
    // subgroup's lanes, or across two), or on any other device, each loads its
    // own. Rows of 2 to 16 invocations, the last one short or not, each row of the
    // tensor its own length from 0 to past the axis so that the length falls in
    // every invocation at every offset, every width, under the CPU tuning on the
    // default device and on one without SHADER_INT64.
    let plain = gpu_with_limits(|_| {});
    let mut rng = Rng::new(37);
    for data_type in WIDTHS {
        let steps = cpu_row_steps(data_type);
        for vecs in [
            2 * steps,
            3 * steps - 4,
            4 * steps - 4,
            6 * steps,
            16 * steps,
        ] {
            let n = elements(data_type, 16 * vecs);
            for device in [gpu(), &plain] {
                let device = device.with_tuning(Tuning::Cpu);
                let key = rows_at_every_length(&device, &mut rng, data_type, n);
                assert_eq!(key.steps, steps, "{key:?}");
            }
        }
    }
}

#[test]
fn columns_end_exactly_at_their_boundaries() {
    // Columns holds up to 64 positions of the axis in blocks of 8 rows, one column of
    // a run per invocation: axes just inside and past each block and past 64; runs of
    // 1 to 70 vectors, so that a workgroup spans several runs and its last
    // invocations, past the columns, only reach the barriers; the axis outermost and
    // in the middle; every length from 0 to past the axis beside the values only a
    // correct clamp survives; both narrow widths, each length type once; then
    // windowed, a piece per one or two outer positions.
    let cpu = gpu().with_tuning(Tuning::Cpu);
    let mut rng = Rng::new(30);
    let check_all_lengths = |gpu: &Gpu, rng: &mut Rng, d: &ReverseSubsequences| {
        let n = d.input.sizes()[d.axis as usize];
        let variant = per_element(gpu, d.input.data_type(), n, true);
        assert_eq!(gpu.compile(d).unwrap().variant(), variant, "{d:?}");
        let lengths = drawn_lengths(rng, d, |rng, pool, n, slot| {
            if slot % 3 == 0 {
                pool[rng.below(pool.len() as u64) as usize]
            } else {
                i128::from(rng.below(u64::from(n) + 2))
            }
        });
        let input = rng.bytes(d.input.min_size_in_bytes() as usize);
        assert_matches_reference_on(gpu, d, &input, &lengths);
        variant
    };
    let mut columns = 0;
    for (w, data_type) in [DataType::Uint8, DataType::Float16].into_iter().enumerate() {
        // One length type per width and placement, each of the four once: every
        // specialisation costs a pipeline, and those of 64 rows take lavapipe
        // seconds to build.
        let outer_lengths = LENGTH_TYPES[2 * w];
        let middle_lengths = LENGTH_TYPES[2 * w + 1];
        for n in [2, 7, 8, 9, 33, 63, 64, 65] {
            for vecs in [1, 31, 32, 33, 70] {
                let inner = elements(data_type, 16 * vecs);
                let outer = desc(data_type, &[n, inner], 0, outer_lengths, None);
                let middle = desc(data_type, &[3, n, inner], 1, middle_lengths, None);
                for d in [outer, middle] {
                    columns +=
                        usize::from(check_all_lengths(&cpu, &mut rng, &d) == Variant::Columns);
                }
            }
        }
        // Windows of one or two outer positions: each dispatch runs Columns on its
        // own piece.
        let inner = elements(data_type, 48);
        for n in [40, 64] {
            let d = desc(data_type, &[4, n, inner], 1, middle_lengths, None);
            let windowed = cpu.with_max_binding(4096);
            assert!(windowed.compile(&d).unwrap().dispatch_count() > 1);
            columns += usize::from(check_all_lengths(&windowed, &mut rng, &d) == Variant::Columns);
        }
    }
    // Every axis but 65, both placements, five run lengths, two widths; and the
    // four windowed cases.
    assert_eq!(columns, 7 * 2 * 5 * 2 + 4);
}

#[test]
fn interleaved_runs_end_exactly_at_their_boundaries() {
    // On a CPU adapter, runs of at least 8 × 8 vectors (8 × 32 words) go to groups of
    // 8 invocations that interleave their vectors, and from 8 × 16 vectors (8 × 64
    // words) on, groups of twice the span: runs just below, at and past each span,
    // and past two long ones, on vectors and on words; whole and windowed.
    let cpu = gpu().with_tuning(Tuning::Cpu);
    // Windows hold whole runs, the longest here 4,112 bytes.
    let windowed = cpu.with_max_binding(8192);
    let mut rng = Rng::new(29);
    for data_type in WIDTHS {
        let w = data_type.size_in_bytes();
        let mut runs: Vec<u32> = [63, 64, 65, 127, 128, 129, 257]
            .map(|vecs| 16 * vecs)
            .to_vec();
        if w < 16 {
            // Words but not whole vectors: 32 or 64 words per invocation, so 256 or
            // 512 a group.
            let words = if w == 8 {
                [254, 258, 510, 514]
            } else {
                [255, 257, 511, 513]
            };
            runs.extend(words.map(|words| 4 * words));
        }
        for bytes in runs {
            // Steps an invocation: the most where a run fills a group of them.
            let (vector, most) = if bytes % 16 == 0 { (16, 16) } else { (4, 64) };
            let steps = if bytes / vector >= 8 * most {
                most
            } else {
                most / 2
            };
            for length_type in [DataType::Int32, DataType::Uint64] {
                let d = desc(
                    data_type,
                    &[3, 4, elements(data_type, bytes)],
                    1,
                    length_type,
                    Some(&[1, 0, 0]),
                );
                let key = check_on(&cpu, &mut rng, &d, Variant::Runs);
                assert_eq!((key.vector_bytes, key.steps), (vector, steps), "{d:?}");
                check_on(&windowed, &mut rng, &d, Variant::Runs);
            }
        }
    }
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
            check(&mut rng, &d, per_element(gpu(), data_type, 5, true));
        }
    }
}

#[test]
fn random_vector_friendly_layouts_match_the_reference() {
    // Random ranks, axes, orders, gaps and broadcasts, with an innermost dimension of
    // whole vectors, so that most cases land on a fast path and some do not.
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
        let variant = gpu().compile(&d).unwrap().variant();
        *seen.entry(variant).or_insert(0) += 1;
        let input_bytes = rng.bytes(d.input.min_size_in_bytes() as usize);
        let lengths = lengths_for(&mut rng, &d);
        assert_matches_reference(&d, &input_bytes, &lengths);
    }
    // Every variant the default device's tuning runs.
    for variant in Variant::ALL {
        let runs = match variant {
            Variant::Tile => gpu().tuning() == Tuning::Gpu,
            Variant::Columns => gpu().tuning() == Tuning::Cpu,
            _ => true,
        };
        if runs {
            assert!(seen.get(&variant).copied().unwrap_or(0) >= 20, "{seen:?}");
        }
    }
}

#[test]
fn every_variant_folds_dispatches_past_the_workgroup_limit() {
    // 16 workgroups per dimension: more than 4,096 invocations fold into y.
    let small = gpu_with_limits(|limits| limits.max_compute_workgroups_per_dimension = 16);
    let mut rng = Rng::new(26);
    let cases = [
        (transposed(DataType::Float32, 4099, 3), Variant::General),
        (
            desc(DataType::Float32, &[4099, 3], 1, DataType::Uint32, None),
            Variant::Rows,
        ),
        (
            desc(DataType::Uint8, &[4099, 7], 1, DataType::Uint32, None),
            Variant::General,
        ),
        (
            desc(DataType::Float32, &[2100, 64], 1, DataType::Uint32, None),
            Variant::Rows,
        ),
        (
            desc(
                DataType::Float16,
                &[40, 64, 72],
                1,
                DataType::Int64,
                Some(&[1, 0, 0]),
            ),
            Variant::Runs,
        ),
        (
            desc(DataType::Uint8, &[80, 70000], 0, DataType::Uint32, None),
            Variant::Gather,
        ),
        (
            desc(DataType::Uint8, &[600, 9, 512], 1, DataType::Int32, None),
            Variant::Columns,
        ),
    ];
    for (d, variant) in cases {
        let op = small.compile(&d).unwrap();
        let workgroups = op.workgroups();
        assert!(
            workgroups[1] > 1,
            "{variant:?}: {workgroups:?} did not fold"
        );
        // Rows of ceil(groups / y): fewer than y of the x · y launched idle.
        let [x, y] = workgroups.map(f64::from);
        assert!(
            op.dispatch_count() > 1 || op.idle_workgroups() < y / (x * y),
            "{variant:?}: {workgroups:?}, {} idle",
            op.idle_workgroups()
        );
        check_on(&small, &mut rng, &d, variant);
    }
}

#[test]
fn invocation_indices_past_2_16_divide_exactly() {
    // Every kernel divides its invocation index by layout sizes through a multiplier
    // (`src/divisor.rs`) whose partial products differ from a plain division only
    // once the index passes 2^16. Indices into the hundreds of thousands, by sizes
    // and counts that are not powers of two, under both tunings.
    let mut rng = Rng::new(29);
    let cases = [
        // One invocation per element, by a size of 1,031.
        (transposed(DataType::Float32, 1021, 1031), Variant::General),
        // One invocation per output word, by an output stride of 1,031.
        (transposed(DataType::Uint8, 1021, 1031), Variant::General),
        // 30,011 rows of 20 vectors: 3 segments of 8, or 20 of 1.
        (
            desc(DataType::Float32, &[30011, 80], 1, DataType::Uint32, None),
            Variant::Rows,
        ),
        // 10,007 × 7 runs of 2 vectors, lengths broadcast over the batch.
        (
            desc(
                DataType::Float32,
                &[7, 10007, 8],
                0,
                DataType::Int64,
                Some(&[0, 1, 0]),
            ),
            Variant::Runs,
        ),
        // 37 runs of 3,001 columns (Columns on a CPU); on a GPU, 12 bands of 251
        // columns and 3 blocks of positions.
        (
            desc(
                DataType::Float32,
                &[37, 9, 4 * 3001],
                1,
                DataType::Uint32,
                None,
            ),
            Variant::Gather,
        ),
        // 3 runs of 5 bands of 240 columns, 20 blocks of 4 positions: Gather on both.
        (
            desc(
                DataType::Float32,
                &[3, 80, 4 * 1200],
                1,
                DataType::Int64,
                None,
            ),
            Variant::Gather,
        ),
    ];
    for tuned in [
        gpu().with_tuning(Tuning::Cpu),
        gpu().with_tuning(Tuning::Gpu),
    ] {
        for (d, variant) in &cases {
            let compiled = tuned.compile(d).unwrap();
            let [x, y] = compiled.workgroups();
            assert!(
                u64::from(x) * u64::from(y) * 256 > 1 << 16,
                "{variant:?}: {x} × {y} workgroups stay below 2^16 invocations"
            );
            // Per-element lengths: Columns or Gather as the tuning and axis decide.
            let variant = match variant {
                Variant::Gather => per_element(
                    &tuned,
                    d.input.data_type(),
                    d.input.sizes()[d.axis as usize],
                    true,
                ),
                other => *other,
            };
            check_on(&tuned, &mut rng, d, variant);
        }
    }
}

#[test]
fn wide_gather_sweeps_several_bands() {
    // Runs of 2 × 256 + 3 vectors: three bands of columns, the last with an idle
    // invocation, along axes (67 and 66 positions, past what Columns holds) that end
    // inside a block of 4.
    let mut rng = Rng::new(27);
    for data_type in [DataType::Float32, DataType::Uint64, DataType::Complex128] {
        let inner = elements(data_type, 16 * (2 * 256 + 3));
        let d = desc(data_type, &[67, inner], 0, DataType::Uint32, None);
        check(&mut rng, &d, Variant::Gather);
        let d = desc(data_type, &[2, 66, inner], 1, DataType::Int64, None);
        check(&mut rng, &d, Variant::Gather);
    }
}

#[test]
fn the_gpu_tuning_runs_every_variant_correctly() {
    // The tests run on a CPU adapter, whose tuning takes several vectors per
    // invocation; GPUs take one (or a few axis positions). Same results required.
    let tuned = gpu().with_tuning(Tuning::Gpu);
    assert_eq!(gpu().tuning(), Tuning::Cpu);
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
                        per_element(&tuned, data_type, 9, inner * w % 16 == 0),
                    ),
                ];
                for (d, variant) in cases {
                    let key = check_on(&tuned, &mut rng, &d, variant);
                    word_keys += usize::from(key.vector_bytes == 4);
                    let most = match variant {
                        Variant::Gather | Variant::Runs => 4,
                        _ => 1,
                    };
                    assert_ne!(variant, Variant::Columns);
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
        let d = ReverseSubsequences::new(
            TensorDesc::new(data_type, &[2, 5, n]),
            TensorDesc::new(DataType::Int64, &[2, 1, n]).with_strides(&[0, 0, 1]),
            TensorDesc::new(data_type, &[2, 5, n]).with_strides(&[5 * (n + v), n + v, 1]),
            1,
        );
        check_on(&tuned, &mut rng, &d, Variant::Tile);
    }
    // Every variant on words, for the four widths below 16 bytes and 4 length types.
    assert_eq!(word_keys, 3 * 4 * 4);
}
