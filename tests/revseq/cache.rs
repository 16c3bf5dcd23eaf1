//! The pipeline cache: built once per key, shared across clones and threads.

use revseq::{reference, DataType, Gpu, ReverseSubsequences, TensorDesc};

use crate::support::{gpu, Rng};

fn desc(data_type: DataType, sizes: &[u32], axis: u32) -> ReverseSubsequences {
    let mut length_sizes = sizes.to_vec();
    length_sizes[axis as usize] = 1;
    ReverseSubsequences::new(
        TensorDesc::new(data_type, sizes),
        TensorDesc::new(DataType::Uint32, &length_sizes),
        TensorDesc::new(data_type, sizes),
        axis,
    )
}

#[test]
fn a_second_compile_of_the_same_key_builds_nothing() {
    // A private Gpu, so that other tests' compiles do not move the count.
    let gpu = Gpu::from_wgpu(gpu().device().clone(), gpu().queue().clone());
    assert_eq!(gpu.cached_pipelines(), 0);
    let first = gpu.compile(&desc(DataType::Int16, &[4, 5, 7], 1)).unwrap();
    assert_eq!(gpu.cached_pipelines(), 1);
    gpu.compile(&desc(DataType::Int16, &[4, 5, 7], 1)).unwrap();
    // Another shape and another 2-byte type, same canonical rank and axis: same key.
    let other = gpu
        .compile(&desc(DataType::Float16, &[2, 3, 9, 7], 2))
        .unwrap();
    assert_eq!(first.key(), other.key());
    assert_eq!(gpu.clone().cached_pipelines(), 1);
    // A different element width is a different pipeline.
    gpu.compile(&desc(DataType::Float32, &[4, 5, 7], 1))
        .unwrap();
    assert_eq!(gpu.cached_pipelines(), 2);
}

#[test]
fn concurrent_use_from_several_threads() {
    let gpu = Gpu::from_wgpu(gpu().device().clone(), gpu().queue().clone());
    let handles: Vec<_> = (0..8u64)
        .map(|t| {
            let gpu = gpu.clone();
            std::thread::spawn(move || {
                let mut rng = Rng::new(100 + t);
                for round in 0..6 {
                    // Threads race on the same few keys.
                    let sizes = [3, 4 + round, 5];
                    let axis = (t % 3) as u32;
                    let input: Vec<u16> = (0..3 * (4 + round) * 5)
                        .map(|_| rng.next_u64() as u16)
                        .collect();
                    let lanes = input.len() / sizes[axis as usize] as usize;
                    let lengths: Vec<u32> = (0..lanes).map(|_| rng.below(8) as u32).collect();
                    let out = gpu
                        .reverse_subsequences(&input, &sizes, &lengths, axis)
                        .unwrap();
                    let expected =
                        reference::reverse_subsequences(&input, &sizes, &lengths, axis).unwrap();
                    assert_eq!(out, expected);
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().expect("a worker thread panicked");
    }
    // Each distinct key the threads raced on was built exactly once.
    let keys: std::collections::HashSet<_> = (0..8u32)
        .flat_map(|t| (0..6).map(move |round| (t, round)))
        .map(|(t, round)| {
            gpu.compile(&desc(DataType::Uint16, &[3, 4 + round, 5], t % 3))
                .unwrap()
                .key()
        })
        .collect();
    assert!(keys.len() >= 3, "{keys:?}");
    assert_eq!(gpu.cached_pipelines(), keys.len());
}
