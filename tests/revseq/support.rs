//! Shared by the tests: the one adapter, a seeded generator, and the GPU-against-
//! reference comparison.

use std::io::Write;
use std::sync::OnceLock;

use revseq::{reference, DataType, Gpu, ReverseSubsequences, Tuning, Variant};

/// The adapter every GPU test runs on. Without one the tests fail, saying how to
/// get one; the adapter's name goes to stderr past the test harness's capture.
pub(crate) fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        let gpu = Gpu::new().unwrap_or_else(|e| {
            panic!(
                "GPU tests need an adapter and found none: {e}\n\
                 On Debian or Ubuntu: apt-get update && apt-get install -y mesa-vulkan-drivers"
            )
        });
        let info = gpu.adapter_info();
        let _ = writeln!(
            std::io::stderr(),
            "revseq tests run on adapter {:?} ({:?} backend, {:?}, driver {:?} {:?})",
            info.name,
            info.backend,
            info.device_type,
            info.driver,
            info.driver_info
        );
        gpu
    })
}

/// A second device on the same kind of adapter, with `limits` lowered from the
/// adapter's own: small limits make paths that normally need huge tensors (folded
/// dispatches) run on small ones.
pub(crate) fn gpu_with_limits(lower: impl FnOnce(&mut wgpu::Limits)) -> Gpu {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
        .expect("GPU tests need an adapter: apt-get install -y mesa-vulkan-drivers");
    let mut limits = adapter.limits();
    lower(&mut limits);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("revseq tests, lowered limits"),
        required_limits: limits,
        ..Default::default()
    }))
    .expect("a device with lower limits than the adapter's");
    Gpu::from_wgpu(device, queue)
}

/// The variant every adapter runs for a layout whose lengths change along its contiguous
/// inner dimension, with `axis_size` positions, on 16-byte vectors (`vectors`) or on
/// words: `Columns` on vectors of elements narrower than 16 bytes along at most 64
/// positions; else `Gather`.
pub(crate) fn per_element(data_type: DataType, axis_size: u32, vectors: bool) -> Variant {
    let narrow = vectors && data_type.size_in_bytes() < 16;
    if narrow && axis_size <= 64 {
        Variant::Columns
    } else {
        Variant::Gather
    }
}

/// Runs `f` with the test's own error scopes around it, their errors dropped:
/// the test's own calls on a lost device must not reach wgpu's default handler
/// either, which would blame revseq for them.
pub(crate) fn quietly<R>(gpu: &Gpu, f: impl FnOnce() -> R) -> R {
    let device = gpu.device();
    gpu.device_lock().hold(|| {
        let scopes = [
            device.push_error_scope(wgpu::ErrorFilter::Internal),
            device.push_error_scope(wgpu::ErrorFilter::OutOfMemory),
            device.push_error_scope(wgpu::ErrorFilter::Validation),
        ];
        let value = f();
        for scope in scopes.into_iter().rev() {
            drop(scope.pop());
        }
        value
    })
}

/// SplitMix64: small, seeded, good enough to fill tensors and pick shapes.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub(crate) fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// Length values worth testing for an axis of size `n`, stored as `data_type`: 0, 1,
/// inside, exactly `n`, past it, and the values that only a correct clamp survives
/// (64-bit values whose low word is small, negatives for signed types).
pub(crate) fn interesting_lengths(data_type: DataType, n: u32) -> Vec<i128> {
    let n = i128::from(n);
    let mut values = vec![0, 1, 2, n / 2 + 1, n - 1, n, n + 1, 1000];
    match data_type {
        DataType::Uint32 => values.extend([u32::MAX as i128]),
        DataType::Int32 => values.extend([-1, i32::MIN as i128, i32::MAX as i128]),
        DataType::Uint64 => values.extend([1 << 32, (1 << 32) + 1, u64::MAX as i128]),
        DataType::Int64 => {
            values.extend([-1, 1 << 32, (1 << 32) + 1, -(1 << 32), i64::MIN as i128])
        }
        other => panic!("{other:?} is not a length type"),
    }
    values.retain(|&v| v >= 0 || data_type == DataType::Int32 || data_type == DataType::Int64);
    values
}

/// `gpu` under every plan an adapter may run: a CPU adapter's on 64-bit words
/// and on 32-bit ones where kernels only move them (whichever its host moves
/// faster is the default), and a GPU's.
pub(crate) fn tunings(gpu: &Gpu) -> [(Tuning, Gpu); 3] {
    [
        (Tuning::Cpu, true),
        (Tuning::Cpu, false),
        (Tuning::Gpu, true),
    ]
    .map(|(tuning, moves)| (tuning, gpu.with_tuning(tuning).with_64_bit_moves(moves)))
}

/// Little-endian bytes of `value` as `data_type` (a length type).
pub(crate) fn length_bytes(data_type: DataType, value: i128) -> Vec<u8> {
    match data_type {
        DataType::Uint32 => (value as u32).to_le_bytes().to_vec(),
        DataType::Int32 => (value as i32).to_le_bytes().to_vec(),
        DataType::Uint64 => (value as u64).to_le_bytes().to_vec(),
        DataType::Int64 => (value as i64).to_le_bytes().to_vec(),
        other => panic!("{other:?} is not a length type"),
    }
}

pub(crate) const LENGTH_TYPES: [DataType; 4] = [
    DataType::Uint32,
    DataType::Uint64,
    DataType::Int32,
    DataType::Int64,
];

/// Runs `desc` on the GPU and on the reference over outputs pre-filled with two
/// different canaries, and asserts byte equality of the whole output slice (which
/// extends past the tensor). Two canaries prove every element was written: an
/// element left unwritten would differ between them. Returns the GPU output.
pub(crate) fn assert_matches_reference(
    desc: &ReverseSubsequences,
    input: &[u8],
    lengths: &[u8],
) -> Vec<u8> {
    assert_matches_reference_on(gpu(), desc, input, lengths)
}

/// [`assert_matches_reference`] on another device.
pub(crate) fn assert_matches_reference_on(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    input: &[u8],
    lengths: &[u8],
) -> Vec<u8> {
    let compiled = gpu
        .compile(desc)
        .unwrap_or_else(|e| panic!("compile failed for {desc:?}: {e}"));
    let out_len = desc.output.min_size_in_bytes() as usize + 5;
    let mut results = Vec::new();
    for canary in [0xA5u8, 0x5A] {
        let mut expected = vec![canary; out_len];
        reference::reverse_subsequences_bytes(desc, input, lengths, &mut expected).unwrap();
        let mut actual = vec![canary; out_len];
        compiled
            .run(input, lengths, &mut actual)
            .unwrap_or_else(|e| panic!("run failed for {desc:?}: {e}"));
        if let Some(at) = actual.iter().zip(&expected).position(|(a, e)| a != e) {
            panic!(
                "GPU differs from the reference at output byte {at} of {out_len} \
                 (gpu {:#04x}, reference {:#04x}, canary {canary:#04x}) for {desc:?} \
                 compiled as {:?}",
                actual[at],
                expected[at],
                compiled.key()
            );
        }
        results.push(actual);
    }
    // Element bytes agree across canaries; only untouched bytes may differ.
    let written = results[0]
        .iter()
        .zip(&results[1])
        .filter(|(a, b)| a == b)
        .count();
    let element_bytes =
        desc.output.element_count() * u64::from(desc.output.data_type().size_in_bytes());
    assert!(
        written as u64 >= element_bytes,
        "{desc:?}: fewer bytes written than elements hold"
    );
    results.swap_remove(0)
}
