//! The async API natively: the same results as the blocking calls (which share its
//! code), and futures a multithreaded executor can move between threads.

use revseq::{reference, DataType, ReverseSubsequences, TensorDesc};

use crate::support::{gpu, Rng};

fn send<T: Send>(value: T) -> T {
    value
}

#[test]
fn async_calls_match_the_blocking_ones_and_the_reference() {
    let mut rng = Rng::new(61);
    for (data_type, sizes, axis) in [
        (DataType::Uint8, [4u32, 33, 5], 1u32),
        (DataType::Float32, [4, 5, 64], 2),
        (DataType::Complex128, [9, 3, 4], 0),
    ] {
        let mut length_sizes = sizes;
        length_sizes[axis as usize] = 1;
        let desc = ReverseSubsequences::new(
            TensorDesc::new(data_type, &sizes),
            TensorDesc::new(DataType::Int32, &length_sizes),
            TensorDesc::new(data_type, &sizes),
            axis,
        );
        let n = sizes[axis as usize];
        let lengths: Vec<u8> = (0..length_sizes.iter().product::<u32>())
            .flat_map(|_| (rng.below(u64::from(n) + 3) as i32 - 1).to_le_bytes())
            .collect();
        let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
        let mut expected = vec![0x77u8; desc.output.min_size_in_bytes() as usize];
        reference::reverse_subsequences_bytes(&desc, &input, &lengths, &mut expected).unwrap();

        let compiled = pollster::block_on(send(gpu().compile_async(&desc))).unwrap();
        let mut from_async = vec![0x77u8; expected.len()];
        pollster::block_on(send(compiled.run_async(&input, &lengths, &mut from_async))).unwrap();
        let mut from_blocking = vec![0x77u8; expected.len()];
        gpu()
            .compile(&desc)
            .unwrap()
            .run(&input, &lengths, &mut from_blocking)
            .unwrap();
        assert_eq!(from_async, expected, "{desc:?}");
        assert_eq!(from_blocking, expected, "{desc:?}");
    }
}

#[test]
fn typed_async_calls_match_the_reference() {
    let input: Vec<u16> = (0..60).collect();
    let lengths = [5u64, 0, 2, 9];
    let out = pollster::block_on(send(gpu().reverse_subsequences_async(
        &input,
        &[4, 15],
        &lengths,
        1,
    )))
    .unwrap();
    let expected = reference::reverse_subsequences(&input, &[4, 15], &lengths, 1).unwrap();
    assert_eq!(out, expected);

    let lens = [3i64, 1];
    let out = pollster::block_on(send(gpu().reverse_sequence_async(
        &input,
        &[3, 2, 10],
        &lens,
        1,
        0,
    )))
    .unwrap();
    let expected = reference::reverse_sequence(&input, &[3, 2, 10], &lens, 1, 0).unwrap();
    assert_eq!(out, expected);

    // Validation errors come from the async calls as they do from the blocking ones.
    let err = pollster::block_on(gpu().reverse_sequence_async(&input, &[3, 2, 10], &[4, 1], 1, 0))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        gpu()
            .reverse_sequence(&input, &[3, 2, 10], &[4, 1], 1, 0)
            .unwrap_err()
            .to_string()
    );
}

#[test]
fn opening_a_device_asynchronously_is_send() {
    let gpu = pollster::block_on(send(revseq::Gpu::new_async())).unwrap();
    assert_eq!(
        gpu.adapter_info().name,
        crate::support::gpu().adapter_info().name
    );
}
