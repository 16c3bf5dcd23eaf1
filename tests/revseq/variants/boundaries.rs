//! The boundaries of each fast path: the last layouts it takes and the first it
//! does not, and rows and runs at every length.

use revseq::{DataType, Gpu, ReverseSubsequences, Tuning, Variant};

use super::{check, check_on, desc, drawn_lengths, elements, WIDTHS};
use crate::support::{
    assert_matches_reference_on, gpu, gpu_with_limits, per_element, Rng, LENGTH_TYPES,
};

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
                    per_element(data_type, 5, aligned),
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
    // last source, or for the row's first the vector where the length falls; each
    // loads it itself. Rows of 2 to 16 invocations, the last one short or not, each row of the
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
        let variant = per_element(d.input.data_type(), n, true);
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
