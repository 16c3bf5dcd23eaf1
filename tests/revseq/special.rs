//! Bit patterns that must survive, zero-sized tensors,
//! the typed API for every host type, and ONNX against its own reference.

use half::{bf16, f16};
use revseq::{
    reference, DataType, Element, ReverseSubsequences, SequenceLength, TensorDesc, TensorRole,
};

use crate::support::{gpu, Rng};

#[test]
fn nan_payloads_negative_zero_and_subnormals_come_out_bit_identical() {
    let f32_bits = [
        0x7FC0_0001u32,
        0xFFBA_DBAD,
        0x7F80_0001,
        0x8000_0000,
        0x0000_0001,
        0x8000_0001,
        0x7F80_0000,
    ];
    let input: Vec<f32> = f32_bits.iter().map(|&b| f32::from_bits(b)).collect();
    let out = gpu()
        .reverse_subsequences(&input, &[7], &[7u32], 0)
        .unwrap();
    let bits: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, f32_bits.iter().rev().copied().collect::<Vec<_>>());

    let f16_bits = [0x7C01u16, 0xFE01, 0x8000, 0x0001, 0x7E00];
    let input: Vec<f16> = f16_bits.iter().map(|&b| f16::from_bits(b)).collect();
    let out = gpu()
        .reverse_subsequences(&input, &[5], &[5u64], 0)
        .unwrap();
    let bits: Vec<u16> = out.iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, f16_bits.iter().rev().copied().collect::<Vec<_>>());

    let f64_bits = [
        0x7FF0_0000_0000_0001u64,
        0xFFF8_DEAD_BEEF_0001,
        0x8000_0000_0000_0000,
        1,
    ];
    let input: Vec<f64> = f64_bits.iter().map(|&b| f64::from_bits(b)).collect();
    let out = gpu()
        .reverse_subsequences(&input, &[4], &[4u32], 0)
        .unwrap();
    let bits: Vec<u64> = out.iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, f64_bits.iter().rev().copied().collect::<Vec<_>>());
}

#[test]
fn zero_sized_tensors_run_and_touch_nothing() {
    for sizes in [[0u32, 4], [3, 0]] {
        for axis in 0..2 {
            let mut length_sizes = sizes;
            length_sizes[axis] = 1;
            let desc = ReverseSubsequences::new(
                TensorDesc::new(DataType::Uint8, &sizes),
                TensorDesc::new(DataType::Uint32, &length_sizes),
                TensorDesc::new(DataType::Uint8, &sizes),
                axis as u32,
            );
            let compiled = gpu().compile(&desc).unwrap();
            assert_eq!(compiled.workgroups(), [0, 0]);
            let lengths = vec![0u8; desc.sequence_lengths.min_size_in_bytes() as usize];
            let mut output = vec![0xEE; 8];
            compiled.run(&[], &lengths, &mut output).unwrap();
            assert_eq!(output, [0xEE; 8]);
            let typed: Vec<u8> = gpu()
                .reverse_subsequences(
                    &[],
                    &sizes,
                    &vec![1u32; desc.sequence_lengths.element_count() as usize],
                    axis as u32,
                )
                .unwrap();
            assert!(typed.is_empty());
        }
    }
}

fn typed_matches_reference<T: Element + PartialEq + std::fmt::Debug, L: SequenceLength>(
    make: impl Fn(u64) -> T,
    length: impl Fn(u64) -> L,
) {
    let mut rng = Rng::new(11);
    let sizes = [3u32, 7, 2];
    for axis in 0..3u32 {
        let input: Vec<T> = (0..42).map(|_| make(rng.next_u64())).collect();
        let lanes = 42 / sizes[axis as usize] as usize;
        let lengths: Vec<L> = (0..lanes).map(|_| length(rng.below(10))).collect();
        let gpu_out = gpu()
            .reverse_subsequences(&input, &sizes, &lengths, axis)
            .unwrap();
        let cpu_out = reference::reverse_subsequences(&input, &sizes, &lengths, axis).unwrap();
        let bits = |v: &[T]| T::to_bytes(v).into_owned();
        assert_eq!(
            bits(&gpu_out),
            bits(&cpu_out),
            "{}",
            std::any::type_name::<T>()
        );
        assert_ne!(
            bits(&gpu_out),
            bits(&input),
            "{}: nothing moved",
            std::any::type_name::<T>()
        );
    }
}

#[test]
fn typed_api_covers_every_host_type() {
    typed_matches_reference(f64::from_bits, |l| l as u32);
    typed_matches_reference(|r| f32::from_bits(r as u32), |l| l);
    typed_matches_reference(|r| f16::from_bits(r as u16), |l| l as i32);
    typed_matches_reference(|r| bf16::from_bits(r as u16), |l| l as i64);
    typed_matches_reference(|r| r as i64, |l| l as u32);
    typed_matches_reference(|r| r as i32, |l| l as u32);
    typed_matches_reference(|r| r as i16, |l| l as u32);
    typed_matches_reference(|r| r as i8, |l| l as u32);
    typed_matches_reference(|r| r, |l| l as u32);
    typed_matches_reference(|r| r as u32, |l| l as u32);
    typed_matches_reference(|r| r as u16, |l| l as u32);
    typed_matches_reference(|r| r as u8, |l| l as u32);
    typed_matches_reference(|r| r & 1 == 1, |l| l as u32);
    typed_matches_reference(
        |r| [f32::from_bits(r as u32), f32::from_bits((r >> 32) as u32)],
        |l| l as u32,
    );
    typed_matches_reference(|r| [f64::from_bits(r), f64::from_bits(!r)], |l| l as u32);
}

#[test]
fn onnx_reverse_sequence_matches_its_own_reference() {
    let mut rng = Rng::new(13);
    for rank in 2..=5usize {
        for (batch_axis, time_axis) in [(0, 1), (1, 0)] {
            let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(5) as usize).collect();
            let count: usize = shape.iter().product();
            let input: Vec<u16> = (0..count).map(|_| rng.next_u64() as u16).collect();
            let lens: Vec<i64> = (0..shape[batch_axis])
                .map(|_| rng.below(shape[time_axis] as u64 + 1) as i64)
                .collect();
            let gpu_out = gpu()
                .reverse_sequence(&input, &shape, &lens, batch_axis, time_axis)
                .unwrap();
            let cpu_out =
                reference::reverse_sequence(&input, &shape, &lens, batch_axis, time_axis).unwrap();
            assert_eq!(gpu_out, cpu_out, "shape {shape:?} lens {lens:?}");
        }
    }
}

#[test]
fn a_size_0_reversed_axis_is_a_no_op() {
    for data_type in DataType::ALL {
        for (sizes, axis) in [
            (&[0u32][..], 0u32),
            (&[0, 2, 3], 0),
            (&[2, 0, 3], 1),
            (&[2, 3, 0], 2),
        ] {
            let mut length_sizes = sizes.to_vec();
            length_sizes[axis as usize] = 1;
            let desc = ReverseSubsequences::new(
                TensorDesc::new(data_type, sizes),
                TensorDesc::new(DataType::Uint32, &length_sizes),
                TensorDesc::new(data_type, sizes),
                axis,
            );
            let compiled = gpu()
                .compile(&desc)
                .unwrap_or_else(|e| panic!("{desc:?}: {e}"));
            assert_eq!(compiled.workgroups(), [0, 0]);
            let lengths = vec![3u8; desc.sequence_lengths.min_size_in_bytes() as usize];
            let mut output = vec![0xEE; 16];
            compiled
                .run(&[], &lengths, &mut output)
                .unwrap_or_else(|e| panic!("{desc:?}: {e}"));
            assert_eq!(output, [0xEE; 16]);
            // Recording it records nothing, whatever buffers are bound.
            let buffer = |tensor| {
                gpu().device_lock().hold(|| {
                    gpu().device().create_buffer(&wgpu::BufferDescriptor {
                        label: None,
                        size: compiled.binding_size(tensor).max(4),
                        usage: wgpu::BufferUsages::STORAGE,
                        mapped_at_creation: false,
                    })
                })
            };
            let (input, lengths, out) = (
                buffer(TensorRole::Input),
                buffer(TensorRole::SequenceLengths),
                buffer(TensorRole::Output),
            );
            let mut encoder = gpu().device().create_command_encoder(&Default::default());
            compiled
                .record(
                    &mut encoder,
                    input.as_entire_buffer_binding(),
                    lengths.as_entire_buffer_binding(),
                    out.as_entire_buffer_binding(),
                )
                .unwrap_or_else(|e| panic!("{desc:?}: {e}"));
            gpu()
                .device_lock()
                .hold(|| gpu().queue().submit([encoder.finish()]));
        }
    }
    // The typed entry point too.
    let out: Vec<f32> = gpu()
        .reverse_subsequences(&[], &[0, 2, 3], &[0u32; 6], 0)
        .unwrap();
    assert!(out.is_empty());
}
