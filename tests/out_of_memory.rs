//! A device that cannot allocate what a run needs: `run` and the in-place run
//! (which the typed calls run through, after allocating their output on the
//! host) return `Error::OutOfMemory`, under wgpu's default error handler
//! (which panics on any error that reaches it), and the device goes on
//! working once memory is back. Autotune's timing of a new descriptor, which
//! needs tensor-sized buffers, fails there too, and the compile succeeds all
//! the same on the static plan, as it does with autotune off, keeping no
//! choice and not tuning the class again. A binary of its own: it lowers the process's
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
    // The static plans (whatever `REVSEQ_AUTOTUNE` says), which compile
    // without a tensor-sized buffer.
    let untuned = gpu.with_autotune(false);
    let op = untuned.compile(&desc).unwrap();
    let in_place = untuned
        .compile_in_place(&ReverseInPlace::new(tensor, lengths, 1))
        .unwrap();
    // Autotune's candidates built beforehand (their pipelines take the
    // compiler's memory, which a CPU adapter cannot be short of mid-compile);
    // the tuning buffers, made after, cannot be.
    let tuned = gpu.with_autotune(true).with_autotune_floor(0);
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
    ];
    // Compiles need no tensor-sized buffer: with autotune on, as off, they
    // succeed, the tuning's failure leaving the static plan.
    let tunings = tuned.tunings();
    let compiled = [
        ("tuned", tuned.compile(&desc).map(|op| op.variant())),
        (
            "tuned in place",
            tuned
                .compile_in_place(&ReverseInPlace::new(
                    desc.input.clone(),
                    desc.sequence_lengths.clone(),
                    1,
                ))
                .map(|op| op.variant()),
        ),
    ];
    let again = tuned.compile(&desc).map(|op| op.variant());
    let tunings = tuned.tunings() - tunings;
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
    let device_lost = results.iter().any(|(_, r)| lost(r));
    for (call, result) in &compiled {
        match (device_lost, result) {
            (true, Err(Error::DeviceLost { .. })) => {}
            (_, Ok(variant)) if cpu => {
                // The static plan: what the same compile gives untuned.
                let expected = match *call {
                    "tuned" => untuned.compile(&desc).unwrap().variant(),
                    _ => in_place.variant(),
                };
                assert_eq!(*variant, expected, "{call}");
            }
            (_, Ok(_)) => {}
            (_, Err(error)) => panic!("{call} failed where untuned it compiles: {error}"),
        }
    }
    if cpu && !device_lost {
        // Failed tunings kept no choice (the small descriptor's alone), and
        // the failed class is not tuned again.
        assert_eq!(tuned.tuned_classes(), 1);
        assert_eq!(tunings, 2, "a tuning a class, none on the second compile");
        assert!(again.is_ok(), "{again:?}");
    }
    // Memory back, the same device runs, or where it was lost, stays lost.
    let out = gpu.reverse_subsequences(&[1u8, 2, 3], &[3], &[2u32], 0);
    match device_lost {
        false => assert_eq!(out, Ok(vec![2, 1, 3])),
        true => assert!(matches!(out, Err(Error::DeviceLost { .. })), "{out:?}"),
    }
}
