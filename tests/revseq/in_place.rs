//! The operator in place: every data type and length type, the layouts of each
//! kernel family, strided and gapped tensors, under both tunings, against the
//! reference's in-place twin and against the out-of-place operator; canaries in
//! the gaps and around the tensor; the rules a tensor in place must keep.

use revseq::{
    reference, DataType, Error, Gpu, InPlaceRule, ReverseInPlace, ReverseSubsequences, TensorDesc,
    TensorRole, Tuning, Variant, Walk,
};
use wgpu::util::DeviceExt;

use crate::strided::strides_in_order;
use crate::support::{gpu, interesting_lengths, length_bytes, tunings, Rng, LENGTH_TYPES};

/// Lengths for every slot of `desc`'s lengths tensor, from the values that test
/// the clamp, or where `uniform`, uniform in `[0, n]`.
fn lengths(rng: &mut Rng, desc: &ReverseInPlace, uniform: bool) -> Vec<u8> {
    let length_type = desc.sequence_lengths.data_type();
    let n = desc.tensor.sizes()[desc.axis as usize];
    let pool = interesting_lengths(length_type, n);
    let slots = desc.sequence_lengths.min_size_in_bytes() / u64::from(length_type.size_in_bytes());
    (0..slots)
        .flat_map(|_| {
            let value = match uniform {
                true => i128::from(rng.below(u64::from(n) + 1)),
                false => pool[rng.below(pool.len() as u64) as usize],
            };
            length_bytes(length_type, value)
        })
        .collect()
}

/// Runs `desc` in place on `gpu` over a tensor of random bytes followed by 7
/// canary bytes, and asserts that every byte equals the reference's in-place
/// result, and that the tensor's elements equal the out-of-place operator's.
pub(crate) fn check_on(gpu: &Gpu, rng: &mut Rng, desc: &ReverseInPlace, uniform: bool) {
    let compiled = gpu
        .compile_in_place(desc)
        .unwrap_or_else(|e| panic!("compile failed for {desc:?}: {e}"));
    let bytes = desc.tensor.min_size_in_bytes() as usize;
    let mut tensor = rng.bytes(bytes);
    tensor.extend([0xC3; 7]);
    let lengths = lengths(rng, desc, uniform);
    let mut expected = tensor.clone();
    reference::reverse_in_place_bytes(desc, &mut expected, &lengths).unwrap();
    let mut actual = tensor.clone();
    compiled
        .run(&mut actual, &lengths)
        .unwrap_or_else(|e| panic!("run failed for {desc:?}: {e}"));
    if let Some(at) = actual.iter().zip(&expected).position(|(a, e)| a != e) {
        panic!(
            "in place differs from the reference at byte {at} of {} (gpu {:#04x}, reference \
             {:#04x}) for {desc:?} under {:?}",
            actual.len(),
            actual[at],
            expected[at],
            gpu.tuning()
        );
    }
    // The reference's twin against the operator itself, out of place into a
    // copy of the tensor: the same bytes.
    let operator = ReverseSubsequences::new(
        desc.tensor.clone(),
        desc.sequence_lengths.clone(),
        desc.tensor.clone(),
        desc.axis,
    );
    let mut out_of_place = tensor.clone();
    reference::reverse_subsequences_bytes(&operator, &tensor, &lengths, &mut out_of_place).unwrap();
    assert_eq!(expected, out_of_place, "{desc:?}: the in-place reference");
}

fn desc(data_type: DataType, sizes: &[u32], axis: u32, length_type: DataType) -> ReverseInPlace {
    let mut length_sizes = sizes.to_vec();
    length_sizes[axis as usize] = 1;
    ReverseInPlace::new(
        TensorDesc::new(data_type, sizes),
        TensorDesc::new(length_type, &length_sizes),
        axis,
    )
}

#[test]
fn every_type_and_family_layout_matches_the_reference_under_both_tunings() {
    let mut rng = Rng::new(55);
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        let gpu = gpu().with_tuning(tuning);
        for data_type in DataType::ALL {
            for (i, (sizes, axis)) in [
                // Rows (the axis innermost), runs (lengths along the outer
                // dimension only), per-element lengths, odd and even axes.
                (vec![5, 37], 1),
                (vec![3, 64], 1),
                (vec![17, 3, 8], 0),
                (vec![4, 9, 33], 1),
                (vec![1], 0),
                (vec![2], 0),
                (vec![6, 1, 5], 1),
            ]
            .into_iter()
            .enumerate()
            {
                let length_type = LENGTH_TYPES[i % LENGTH_TYPES.len()];
                let d = desc(data_type, &sizes, axis, length_type);
                check_on(&gpu, &mut rng, &d, false);
                check_on(&gpu, &mut rng, &d, true);
            }
        }
    }
}

#[test]
fn runs_share_one_length_along_their_inner_dimension() {
    // ONNX's time-major layout: [time, batch, features], one length per batch
    // entry broadcast over the features (stride 0).
    let mut rng = Rng::new(56);
    for data_type in [
        DataType::Uint8,
        DataType::Float16,
        DataType::Float32,
        DataType::Int64,
    ] {
        let d = ReverseInPlace::new(
            TensorDesc::new(data_type, &[9, 4, 16]),
            TensorDesc::new(DataType::Int64, &[1, 4, 16]).with_strides(&[0, 1, 0]),
            0,
        );
        for (tuning, gpu) in tunings(gpu()) {
            let variant = gpu.compile_in_place(&d).unwrap().variant();
            assert_eq!(variant, Variant::Runs, "{d:?} under {tuning:?}");
            check_on(&gpu, &mut rng, &d, true);
            check_on(&gpu, &mut rng, &d, false);
        }
    }
}

/// A random layout of rank `ranks[0]` up to `ranks[0] + ranks[1] - 1`, sizes up
/// to `size_max`, dimensions in a random order with gaps below `gaps` elements,
/// lengths broadcast along a random dimension; types by `case`.
pub(crate) fn random_strided(
    rng: &mut Rng,
    case: usize,
    ranks: [u64; 2],
    size_max: u64,
    gaps: u64,
) -> ReverseInPlace {
    let rank = (ranks[0] + rng.below(ranks[1])) as usize;
    let sizes: Vec<u32> = (0..rank).map(|_| 1 + rng.below(size_max) as u32).collect();
    let mut order: Vec<usize> = (0..rank).collect();
    for i in (1..rank).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let gap: Vec<u32> = (0..rank).map(|_| rng.below(gaps) as u32).collect();
    let axis = rng.below(rank as u64) as u32;
    let data_type = DataType::ALL[case % DataType::ALL.len()];
    let length_type = LENGTH_TYPES[case % LENGTH_TYPES.len()];
    let mut length_sizes = sizes.clone();
    length_sizes[axis as usize] = 1;
    let mut length_strides = strides_in_order(&length_sizes, &(0..rank).collect::<Vec<_>>(), &gap);
    length_strides[rng.below(rank as u64) as usize] = 0;
    ReverseInPlace::new(
        TensorDesc::new(data_type, &sizes).with_strides(&strides_in_order(&sizes, &order, &gap)),
        TensorDesc::new(length_type, &length_sizes).with_strides(&length_strides),
        axis,
    )
}

#[test]
fn random_strided_tensors_keep_every_gap_byte() {
    let mut rng = Rng::new(57);
    for case in 0..120 {
        let d = random_strided(&mut rng, case, [1, 4], 7, 3);
        let tuning = [Tuning::Cpu, Tuning::Gpu][case % 2];
        check_on(&gpu().with_tuning(tuning), &mut rng, &d, case % 3 == 0);
    }
}

#[test]
fn typed_calls_match_the_out_of_place_operator() {
    let gpu = gpu();
    let sizes = [3, 1000];
    let data: Vec<u16> = (0..3000).map(|v| v as u16).collect();
    let lengths = [1000u32, 0, 513];
    let expected = gpu
        .reverse_subsequences(&data, &sizes, &lengths, 1)
        .unwrap();
    let mut in_place = data.clone();
    gpu.reverse_subsequences_in_place(&mut in_place, &sizes, &lengths, 1)
        .unwrap();
    assert_eq!(in_place, expected);
    let mut host = data.clone();
    reference::reverse_subsequences_in_place(&mut host, &sizes, &lengths, 1).unwrap();
    assert_eq!(host, expected);
    let mut short = data.clone();
    let error = gpu
        .reverse_subsequences_in_place(&mut short, &sizes, &lengths[..2], 1)
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::ElementCountMismatch {
                tensor: TensorRole::SequenceLengths,
                expected: 3,
                actual: 2
            }
        ),
        "{error}"
    );
}

#[test]
fn tensors_whose_elements_share_memory_are_refused() {
    for strides in [[0u32, 1], [1, 1], [2, 3]] {
        let d = ReverseInPlace::new(
            TensorDesc::new(DataType::Float32, &[4, 3]).with_strides(&strides),
            TensorDesc::new(DataType::Uint32, &[4, 1]),
            1,
        );
        let error = gpu().compile_in_place(&d).unwrap_err();
        assert!(
            matches!(error, Error::OverlappingTensor { .. }),
            "{strides:?}: {error}"
        );
        assert!(
            error.to_string().starts_with("tensor: dimension"),
            "{error}"
        );
    }
}

/// Lanes past one binding: the axis outermost (per-element lengths), ONNX's
/// time-major layout, and rows longer than a binding, at every element width
/// under both tunings, swapped across windows of a group of positions each, with
/// canaries after the tensor.
#[test]
fn lanes_past_one_binding_swap_across_windows() {
    let mut rng = Rng::new(61);
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        for (i, data_type) in [
            DataType::Uint8,
            DataType::Float16,
            DataType::Float32,
            DataType::Int64,
            DataType::Complex128,
        ]
        .into_iter()
        .enumerate()
        {
            let width = data_type.size_in_bytes();
            let length_type = LENGTH_TYPES[i % LENGTH_TYPES.len()];
            // Runs of whole 16-byte vectors (moved as vectors), and of odd bytes.
            let time_major = |run: u32| {
                ReverseInPlace::new(
                    TensorDesc::new(data_type, &[37, 6, run]),
                    TensorDesc::new(length_type, &[1, 6, run]).with_strides(&[0, 1, 0]),
                    0,
                )
            };
            for (window, d, layout) in [
                (1 << 11, time_major(32 / width), "onnx-time-major"),
                (1 << 11, time_major((24 / width) | 1), "odd onnx-time-major"),
                (
                    1 << 10,
                    desc(data_type, &[64, 100 / width + 1], 0, length_type),
                    "outermost",
                ),
                (
                    1 << 10,
                    desc(data_type, &[3, 3000 / width + 1], 1, length_type),
                    "long rows",
                ),
            ] {
                let small = gpu().with_tuning(tuning).with_max_binding(window);
                let compiled = small.compile_in_place(&d).unwrap();
                let key = compiled.key();
                assert!(
                    compiled.dispatch_count() > 3
                        && key.variant == Variant::General
                        && key.walk == Walk::Across,
                    "{layout} {d:?}: {} dispatch(es) of {key:?} past a {window}-byte binding",
                    compiled.dispatch_count(),
                );
                // Whole 16-byte vectors of runs move as vectors.
                assert_eq!(
                    key.vector_bytes == 16,
                    layout == "onnx-time-major" && width < 16,
                    "{layout} {d:?}: {key:?}"
                );
                check_on(&small, &mut rng, &d, true);
                check_on(&small, &mut rng, &d, false);
            }
        }
    }
}

/// In place refuses by name what neither pieces of whole lanes nor groups of
/// positions serve (one position past half a binding), and passes on the
/// planner's own errors (too many dispatches) rather than calling them that.
#[test]
fn in_place_past_one_binding_refuses_by_the_rule_it_breaks() {
    let small = gpu().with_max_binding(1 << 10);
    let d = desc(DataType::Float32, &[2, 600], 0, DataType::Uint32);
    let error = small.compile_in_place(&d).unwrap_err();
    // One position of 600 f32 spans 2400 bytes; a group holds (1024 − 3 ×
    // alignment − 8) / 2 bytes, in whole elements.
    let align = u64::from(small.device().limits().min_storage_buffer_offset_alignment)
        .max(16)
        .next_power_of_two();
    assert_eq!(
        error,
        Error::InPlaceTooLarge {
            bytes: 4800,
            limit: 1 << 10,
            rule: InPlaceRule::PositionTooLarge {
                bytes: 2400,
                limit: (1024 - 3 * align - 8) / 2 / 4 * 4
            }
        }
    );
    assert!(
        error
            .to_string()
            .contains("(binding − 3 × alignment − 8) / 2"),
        "{error}"
    );
    // Per-element 8-byte lengths of a 2-row tensor whose one position is 200
    // lanes of 1 byte: 1,600 bytes of lengths a block, past the binding.
    let long_lengths = ReverseInPlace::new(
        TensorDesc::new(DataType::Uint8, &[20, 200]),
        TensorDesc::new(DataType::Uint64, &[1, 200]),
        0,
    );
    let error = small.compile_in_place(&long_lengths).unwrap_err();
    assert!(
        matches!(
            error,
            Error::InPlaceTooLarge {
                rule: InPlaceRule::LengthsTooLarge { bytes: 1600, .. },
                ..
            }
        ),
        "{error}"
    );
    // Lanes of 4 bytes, 2 KiB apart: a window holds one, and 70,000 pieces
    // pass the planner's 65,536 dispatches.
    let scattered = ReverseInPlace::new(
        TensorDesc::new(DataType::Uint8, &[70_000, 4]).with_strides(&[2048, 1]),
        TensorDesc::new(DataType::Uint32, &[70_000, 1]),
        1,
    );
    let error = small.compile_in_place(&scattered).unwrap_err();
    assert!(
        matches!(error, Error::TooManyDispatches { dispatches, limit: 65_536 } if dispatches > 65_536),
        "{error}"
    );
}

/// Tensors past one binding whose lanes each fit one: pieces of whole lanes, a
/// dispatch each, every family and the general swap (pieces that start off a
/// vector), under both tunings, with canaries after the tensor.
#[test]
fn tensors_past_one_binding_reverse_piece_by_piece() {
    let mut rng = Rng::new(59);
    let window = 1 << 12;
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        let small = gpu().with_tuning(tuning).with_max_binding(window);
        for (i, data_type) in [
            DataType::Uint8,
            DataType::Float16,
            DataType::Float32,
            DataType::Int64,
        ]
        .into_iter()
        .enumerate()
        {
            let width = data_type.size_in_bytes();
            let length_type = LENGTH_TYPES[i % LENGTH_TYPES.len()];
            let runs = ReverseInPlace::new(
                TensorDesc::new(data_type, &[24, 20, 16]),
                TensorDesc::new(length_type, &[24, 1, 16]).with_strides(&[1, 0, 0]),
                1,
            );
            for (d, family) in [
                // Rows of whole vectors, and rows that start off a vector.
                (desc(data_type, &[40, 1024 / width], 1, length_type), "rows"),
                (
                    desc(data_type, &[40, 1000 / width + 1], 1, length_type),
                    "odd rows",
                ),
                (runs, "runs"),
                (
                    desc(data_type, &[9, 8, 256 / width], 1, length_type),
                    "per-element",
                ),
                (
                    desc(data_type, &[19, 7, 61], 1, length_type),
                    "odd per-element",
                ),
            ] {
                let compiled = small.compile_in_place(&d).unwrap();
                assert!(
                    d.tensor.min_size_in_bytes() > window && compiled.dispatch_count() > 1,
                    "{family} {d:?}: {} dispatch(es) past a {window}-byte binding",
                    compiled.dispatch_count()
                );
                // The families run piece by piece where every piece starts on a
                // vector.
                let family_variant = match (family, tuning) {
                    ("rows", Tuning::Cpu) => Some(Variant::Rows),
                    ("runs", _) => Some(Variant::Runs),
                    ("per-element", _) => Some(Variant::Columns),
                    _ => None,
                };
                if let Some(variant) = family_variant {
                    assert_eq!(
                        compiled.variant(),
                        variant,
                        "{family} {d:?} under {tuning:?}"
                    );
                }
                check_on(&small, &mut rng, &d, true);
                check_on(&small, &mut rng, &d, false);
            }
        }
    }
}

/// Random strided, gapped and broadcast layouts past a 1 KiB binding: each
/// reverses piece by piece, or is refused by name where a lane, with the
/// dimensions inside the axis, spans more than the binding.
#[test]
fn random_strided_tensors_past_one_binding_keep_every_gap_byte() {
    let mut rng = Rng::new(60);
    let window = 1 << 10;
    let (mut windowed, mut refused) = (0, 0);
    for case in 0..160 {
        let d = random_strided(&mut rng, case, [2, 3], 12, 2);
        let tuning = [Tuning::Cpu, Tuning::Gpu][case % 2];
        let small = gpu().with_tuning(tuning).with_max_binding(window);
        match small.compile_in_place(&d) {
            Ok(compiled) => {
                windowed += usize::from(compiled.dispatch_count() > 1);
                check_on(&small, &mut rng, &d, case % 3 == 0);
            }
            Err(Error::InPlaceTooLarge { bytes, limit, .. }) => {
                let tensor = d.tensor.min_size_in_bytes();
                assert_eq!((bytes, limit), (tensor, window), "{d:?}: refused");
                refused += 1;
            }
            Err(error) => panic!("{d:?}: {error}"),
        }
    }
    assert!(
        windowed >= 25 && refused >= 5,
        "{windowed} cases windowed, {refused} refused"
    );
}

/// `record` on a tensor at an offset inside a larger buffer of canaries: the
/// tensor's bytes as the reference has them, every other byte as it was; and
/// the bindings' errors.
#[test]
fn record_reverses_a_binding_at_an_offset_and_touches_nothing_else() {
    let gpu = gpu();
    let mut rng = Rng::new(58);
    let d = desc(DataType::Uint8, &[7, 50], 1, DataType::Int32);
    let op = gpu.compile_in_place(&d).unwrap();
    let offset = u64::from(gpu.device().limits().min_storage_buffer_offset_alignment);
    let bytes = d.tensor.min_size_in_bytes() as usize;
    let tensor = rng.bytes(bytes);
    let lengths = lengths(&mut rng, &d, true);
    let mut contents = vec![0x5A; offset as usize];
    contents.extend(&tensor);
    contents.extend([0x5A; 302]);
    assert_eq!(contents.len() % 4, 0, "no padding the buffer adds");
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let (device, lock) = (gpu.device(), gpu.device_lock());
    let init = |contents: &[u8], usage| {
        lock.hold(|| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("test"),
                contents,
                usage,
            })
        })
    };
    let buffer = init(&contents, usage);
    let length_buffer = init(&lengths, wgpu::BufferUsages::STORAGE);
    let binding = wgpu::BufferBinding {
        buffer: &buffer,
        offset,
        size: wgpu::BufferSize::new(op.binding_size(TensorRole::Tensor)),
    };
    let mut encoder = device.create_command_encoder(&Default::default());
    op.record(
        &mut encoder,
        binding.clone(),
        length_buffer.as_entire_buffer_binding(),
    )
    .unwrap();
    lock.hold(|| gpu.queue().submit([encoder.finish()]));
    let actual = crate::record::read_back_on(gpu, &buffer);
    let mut expected = contents.clone();
    let at = offset as usize..offset as usize + bytes;
    reference::reverse_in_place_bytes(&d, &mut expected[at], &lengths).unwrap();
    assert_eq!(actual, expected);

    // The lengths in the tensor's own buffer, and a tensor without STORAGE.
    let mut encoder = device.create_command_encoder(&Default::default());
    let error = op
        .record(&mut encoder, binding.clone(), binding.clone())
        .unwrap_err();
    assert_eq!(error, Error::LengthsAliasTensor);
    let copy_only = lock.hold(|| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("test"),
            size: 4096,
            usage: wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    });
    let error = op
        .record(
            &mut encoder,
            copy_only.as_entire_buffer_binding(),
            length_buffer.as_entire_buffer_binding(),
        )
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::BindingUsage {
                tensor: TensorRole::Tensor,
                ..
            }
        ),
        "{error}"
    );
    lock.hold(|| drop((buffer, length_buffer, copy_only)));
}

/// Rows of whole 16-byte vectors in place on a CPU adapter, one invocation
/// walking each row from both ends: every length from 0 past the row, so that
/// the span ends at every byte of a vector and the steps meet at an odd and an
/// even count of touched vectors, with and without a shift, for every element
/// width; rows of one and of several vectors.
#[test]
fn rows_walked_from_both_ends_match_the_reference_at_every_length() {
    let cpu = gpu().with_tuning(Tuning::Cpu);
    let mut rng = Rng::new(59);
    for data_type in DataType::ALL {
        let per_vector = 16 / data_type.size_in_bytes().min(16);
        for vectors in [1, 2, 3, 4, 5, 7] {
            let n = per_vector * vectors;
            if n < 2 {
                continue; // an axis of one position reverses nothing
            }
            let rows = n + 3;
            let d = desc(data_type, &[rows, n], 1, DataType::Uint32);
            let op = cpu.compile_in_place(&d).unwrap();
            assert_eq!(op.variant(), Variant::Rows, "{d:?}");
            let lengths: Vec<u8> = (0..rows).flat_map(|l| l.to_le_bytes()).collect();
            let bytes = d.tensor.min_size_in_bytes() as usize;
            let mut actual = rng.bytes(bytes);
            let mut expected = actual.clone();
            reference::reverse_in_place_bytes(&d, &mut expected, &lengths).unwrap();
            op.run(&mut actual, &lengths).unwrap();
            if let Some(at) = actual.iter().zip(&expected).position(|(a, e)| a != e) {
                let row = at / (bytes / rows as usize);
                panic!("{d:?}: byte {at} differs (row {row}, length {row})");
            }
        }
    }
}

/// Per-element lengths in place, one invocation a vector column held whole
/// (`columns`, up to 64 positions of elements narrower than a vector), past
/// that walked on a CPU adapter (`gather`) and a pair an invocation on a GPU
/// (`general`): neighbouring lanes of every length from 0 past the axis, so
/// that lanes of one vector swap with the same and with different positions,
/// for every element width, the axis outermost and in the middle.
#[test]
fn per_element_columns_match_the_reference_at_every_length() {
    let mut rng = Rng::new(60);
    // `gather` of 8- and 16-byte elements only moves its words.
    for ((tuning, tuned), data_type) in tunings(gpu())
        .into_iter()
        .flat_map(|t| DataType::ALL.into_iter().map(move |d| (t.clone(), d)))
    {
        let per_vector = 16 / data_type.size_in_bytes().min(16);
        for (sizes, axis) in [
            (vec![13, per_vector * 5], 0),
            (vec![3, 9, per_vector * 2], 1),
            (vec![64, per_vector * 2], 0),
            (vec![70, per_vector * 2], 0),
        ] {
            let n = sizes[axis];
            let mut length_sizes = sizes.clone();
            length_sizes[axis] = 1;
            let d = ReverseInPlace::new(
                TensorDesc::new(data_type, &sizes),
                TensorDesc::new(DataType::Int32, &length_sizes),
                axis as u32,
            );
            let op = tuned.compile_in_place(&d).unwrap();
            let held = n <= 64 && data_type.size_in_bytes() < 16;
            let expected = match (held, tuning) {
                (true, _) => Variant::Columns,
                (false, Tuning::Cpu) => Variant::Gather,
                (false, Tuning::Gpu) => Variant::General,
            };
            assert_eq!(op.variant(), expected, "{tuning:?} {d:?}");
            let slots = length_sizes.iter().product::<u32>();
            let lengths: Vec<u8> = (0..slots)
                .flat_map(|_| (rng.below(u64::from(n) + 3) as i32 - 1).to_le_bytes())
                .collect();
            let mut actual = rng.bytes(d.tensor.min_size_in_bytes() as usize);
            let mut expected = actual.clone();
            reference::reverse_in_place_bytes(&d, &mut expected, &lengths).unwrap();
            op.run(&mut actual, &lengths).unwrap();
            assert!(actual == expected, "{d:?}: differs from the reference");
        }
    }
}
