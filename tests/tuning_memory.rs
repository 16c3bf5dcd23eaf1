//! What autotune allocates while it tunes stays within its bound
//! (`Gpu::with_autotune_bytes`): the tensors it times on (in place, the
//! tensor once) and every candidate's own buffers, for a descriptor near the
//! bound and one past it, out of place and in place. Measured by the device's
//! own allocator (`wgpu::Device::generate_allocator_report`: the bytes of its
//! live allocations), sampled while the compile runs; a binary of its own, so
//! that no other test allocates on the device meanwhile.

use revseq::{DataType, Gpu, ReverseInPlace, ReverseSubsequences, TensorDesc};

const MIB: u64 = 1 << 20;

/// The bytes `gpu`'s device has allocated, where its backend reports them.
fn allocated(gpu: &Gpu) -> Option<u64> {
    let report = gpu.device().generate_allocator_report()?;
    Some(report.total_allocated_bytes)
}

/// How far the device's allocations rose above where they started while
/// `compile` ran, sampled every 200 µs by another thread (tuning holds its
/// buffers for its rounds, tens of milliseconds at least).
fn rise(gpu: &Gpu, compile: impl FnOnce()) -> u64 {
    let start = allocated(gpu).unwrap_or(0);
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut peak = start;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(allocated(gpu).unwrap_or(0));
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            peak
        });
        compile();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        sampler.join().expect("the sampler").saturating_sub(start)
    })
}

fn operator(bytes: u64) -> ReverseSubsequences {
    let rows = (bytes / 4 / 64) as u32;
    let tensor = TensorDesc::new(DataType::Float32, &[rows, 64]);
    let lengths = TensorDesc::new(DataType::Uint32, &[rows, 1]);
    ReverseSubsequences::new(tensor.clone(), lengths, tensor, 1)
}

#[test]
fn tuning_allocates_at_most_its_bound_at_once() {
    let gpu =
        Gpu::new().expect("a GPU test needs an adapter: apt-get install -y mesa-vulkan-drivers");
    let info = gpu.adapter_info();
    eprintln!(
        "tuning memory test runs on adapter {:?} ({:?})",
        info.name, info.device_type
    );
    if allocated(&gpu).is_none() {
        eprintln!(
            "the {:?} backend reports no allocations: nothing to measure",
            info.backend
        );
        return;
    }
    let bound = 64 * MIB;
    // Near the bound: its tensors take 60 MiB. Past it: 256 MiB tensors,
    // tuned on a smaller descriptor of their layout.
    let cases = [
        ("out of place, near the bound", operator(20 * MIB), false),
        ("in place, near the bound", operator(60 * MIB), true),
        ("out of place, past the bound", operator(256 * MIB), false),
        ("in place, past the bound", operator(256 * MIB), true),
    ];
    for (what, desc, in_place) in cases {
        let in_place_desc =
            ReverseInPlace::new(desc.input.clone(), desc.sequence_lengths.clone(), 1);
        let compile = |gpu: &Gpu| match in_place {
            false => gpu.compile(&desc).map(drop),
            true => gpu.compile_in_place(&in_place_desc).map(drop),
        };
        // Each a `Gpu` of its own: its choices start empty.
        let tuned_device = gpu.with_autotune(true).with_autotune_bytes(bound);
        let untuned = rise(&gpu, || compile(&gpu.with_autotune(false)).unwrap());
        let tuned = rise(&gpu, || compile(&tuned_device).unwrap());
        assert_eq!(tuned_device.tunings(), 1, "{what}: not tuned");
        eprintln!(
            "{what}: peak {:.1} MiB tuned, {:.1} MiB untuned, bound {} MiB",
            tuned as f64 / MIB as f64,
            untuned as f64 / MIB as f64,
            bound / MIB
        );
        assert!(
            tuned <= bound,
            "{what}: tuning took {tuned} bytes at its peak, past the {bound}-byte bound"
        );
        assert!(tuned > bound / 4, "{what}: {tuned} bytes: nothing timed?");
    }
}
