//! A device that cannot allocate what a run needs: `run` and the in-place run
//! (which the typed calls run through, after allocating their output on the
//! host) and autotune's timing of a new descriptor (which keeps no choice
//! then) return `Error::OutOfMemory`, under wgpu's default error
//! handler (which panics on any error that reaches it), and the device goes on
//! working once memory is back. A binary of its own: it lowers the process's
//! address-space limit (`RLIMIT_AS`), which a software adapter's allocations
//! live in, so that the device's buffers cannot be made; nothing else runs in
//! the process meanwhile.

#![cfg(target_os = "linux")]

use revseq::{DataType, Error, Gpu, ReverseInPlace, ReverseSubsequences, TensorDesc};

/// The process's address space now, in bytes (`VmSize`).
fn address_space() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmSize in /proc/self/status");
    kib << 10
}

/// Sets the soft limit of the process's address space (`RLIMIT_AS`), the hard
/// one left unlimited.
fn limit_address_space(bytes: u64) {
    const RLIMIT_AS: i32 = 9;
    extern "C" {
        fn setrlimit(resource: i32, limits: *const [u64; 2]) -> i32;
    }
    let limits = [bytes, u64::MAX];
    // SAFETY: `setrlimit` reads two `rlim_t` (u64 on Linux) from `limits`, which
    // outlives the call.
    let status = unsafe { setrlimit(RLIMIT_AS, &limits) };
    assert_eq!(status, 0, "setrlimit(RLIMIT_AS)");
}

#[test]
fn a_device_out_of_memory_is_an_error_and_the_device_goes_on() {
    let gpu =
        Gpu::new().expect("a GPU test needs an adapter: apt-get install -y mesa-vulkan-drivers");
    let info = gpu.adapter_info();
    eprintln!(
        "out-of-memory test runs on adapter {:?} ({:?})",
        info.name, info.device_type
    );
    // A CPU adapter's buffers live in the process's address space; a GPU's
    // device memory may lie outside it, and then the runs may succeed.
    let cpu = info.device_type == wgpu::DeviceType::Cpu;
    // 256 MiB tensors: three device buffers and a readback of that size, none of
    // which fits in the 64 MiB left below.
    let rows = (256 << 20) / 4 / 64;
    let tensor = TensorDesc::new(DataType::Uint32, &[rows, 64]);
    let lengths = TensorDesc::new(DataType::Uint32, &[rows, 1]);
    let desc = ReverseSubsequences::new(tensor.clone(), lengths.clone(), tensor.clone(), 1);
    let op = gpu.compile(&desc).unwrap();
    let in_place = gpu
        .compile_in_place(&ReverseInPlace::new(tensor, lengths, 1))
        .unwrap();
    // Autotune's candidates built beforehand (their pipelines take the
    // compiler's memory, which a CPU adapter cannot be short of mid-compile);
    // the tuning buffers, made after, cannot be.
    let tuned = gpu.with_autotune(true);
    let small = {
        let tensor = TensorDesc::new(DataType::Uint32, &[64, 64]);
        let lengths = TensorDesc::new(DataType::Uint32, &[64, 1]);
        ReverseSubsequences::new(tensor.clone(), lengths, tensor, 1)
    };
    tuned.compile(&small).unwrap();
    let input = vec![7u8; 256 << 20];
    let mut output = vec![0u8; 256 << 20];
    let length_bytes = vec![3u8; rows as usize * 4];

    limit_address_space(address_space() + (64 << 20));
    let results = [
        ("run", op.run(&input, &length_bytes, &mut output)),
        ("in place", in_place.run(&mut output, &length_bytes)),
        ("autotune", tuned.compile(&desc).map(|_| ())),
    ];
    limit_address_space(u64::MAX);
    // wgpu's GL backend takes an allocation that fails for a lost device, and
    // from then on the device is lost: `DeviceLost` is the truth there.
    let gl = info.backend == wgpu::Backend::Gl;
    let lost = |r: &Result<(), Error>| matches!(r, Err(Error::DeviceLost { .. }));
    for (call, result) in &results {
        assert!(
            matches!(result, Err(Error::OutOfMemory { .. }))
                || (gl && lost(result))
                || (!cpu && result.is_ok()),
            "{call} beyond the memory left: {result:?}"
        );
    }
    // A tuning that failed kept no choice (the small descriptor's alone).
    if results[2].1.is_err() {
        assert_eq!(tuned.tuned_classes(), 1);
    }
    // Memory back, the same device runs, or where it was lost, stays lost.
    let out = gpu.reverse_subsequences(&[1u8, 2, 3], &[3], &[2u32], 0);
    match results.iter().any(|(_, r)| lost(r)) {
        false => assert_eq!(out, Ok(vec![2, 1, 3])),
        true => assert!(matches!(out, Err(Error::DeviceLost { .. })), "{out:?}"),
    }
}
