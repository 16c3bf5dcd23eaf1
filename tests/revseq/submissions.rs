//! revseq's own submissions: every kernel run in parts of a bounded size, and
//! threads sharing one `Gpu` while one of them runs an operator that takes
//! seconds on a CPU adapter. On wgpu's GL backend every call goes through one
//! context lock, and a thread kept from it for 6 s panics inside wgpu: revseq's
//! own runs must never hold the device that long (`src/executor/device/submission.rs`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use revseq::{
    reference, DataType, Gpu, ReverseSubsequences, TensorDesc, TensorRole, Tuning, Variant,
};

use crate::strided::lengths_for;
use crate::support::{assert_matches_reference_on, gpu, gpu_with_limits, per_element, Rng};
use crate::variants::{desc, transposed};

/// Every kernel family, under both tunings, with its dispatches cut into parts
/// of 4 KiB of output each, as a CPU GL adapter cuts them at 4 MiB: each part
/// starts at its own first workgroup, and together they write every element once.
#[test]
fn every_variant_runs_exactly_in_parts() {
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        let gpu = gpu().with_tuning(tuning).with_submission_bytes(Some(4096));
        assert_eq!(gpu.submission_bytes(), Some(4096));
        let mut rng = Rng::new(46);
        for data_type in [
            DataType::Uint8,
            DataType::Float16,
            DataType::Float32,
            DataType::Complex128,
        ] {
            let bytes = data_type.size_in_bytes();
            let inner = 4096 / bytes;
            let i32 = DataType::Int32;
            let cases = [
                (
                    desc(data_type, &[97, 64 * 16 / bytes], 1, i32, None),
                    Variant::Rows,
                ),
                (
                    desc(data_type, &[8, 40, inner], 1, i32, Some(&[1, 0, 0])),
                    Variant::Runs,
                ),
                (
                    desc(data_type, &[40, 8, inner], 0, i32, Some(&[0, 1, 0])),
                    Variant::Runs,
                ),
                (
                    desc(data_type, &[40, inner], 0, i32, None),
                    per_element(data_type, 40, true),
                ),
                (
                    desc(data_type, &[600, 64 / bytes.min(16) * 4], 0, i32, None),
                    Variant::Gather,
                ),
                (transposed(data_type, 300, 50), Variant::General),
            ];
            for (desc, variant) in cases {
                let op = gpu.compile(&desc).unwrap();
                assert_eq!(op.variant(), variant, "{tuning:?}: {desc:?}");
                let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
                let lengths = lengths_for(&mut rng, &desc, desc.input.sizes()[desc.axis as usize]);
                assert_matches_reference_on(&gpu, &desc, &input, &lengths);
            }
        }
    }
}

/// Per-element lengths along a middle axis of 1-byte elements, with an output
/// whose rows end in 3 bytes of gap: the general kernel, in scanning pairs over
/// 16 MiB windows (each dispatch visits its whole piece once per input window),
/// about 10 s of work on llvmpipe. In one submission that held wgpu's GL lock
/// for all of it.
fn slow_operator() -> ReverseSubsequences {
    let [batch, time, features] = [2u32, 64, 2_000_001];
    let row = features + 3;
    ReverseSubsequences::new(
        TensorDesc::new(DataType::Uint8, &[batch, time, features]),
        TensorDesc::new(DataType::Uint32, &[batch, 1, features]),
        TensorDesc::new(DataType::Uint8, &[batch, time, features]).with_strides(&[
            time * row,
            row,
            1,
        ]),
        1,
    )
}

/// The slow operator's expected output, by its definition and nothing else:
/// out[b, t, f] = in[b, L - 1 - t, f] for t < L, else in[b, t, f]; gap bytes keep
/// the canary.
fn expected(desc: &ReverseSubsequences, input: &[u8], lengths: &[u32], canary: u8) -> Vec<u8> {
    let [batch, time, features] = [0, 1, 2].map(|d| desc.input.sizes()[d] as usize);
    let row = features + 3;
    let mut out = vec![canary; desc.output.min_size_in_bytes() as usize];
    for b in 0..batch {
        for f in 0..features {
            let len = (lengths[b * features + f] as usize).min(time);
            for t in 0..time {
                let s = if t < len { len - 1 - t } else { t };
                out[(b * time + t) * row + f] = input[(b * time + s) * features + f];
            }
        }
    }
    out
}

/// A small operator of one of three widths through `record`, as a caller that
/// shares the device does it: every wgpu call under the device's lock.
fn record_small(gpu: &Gpu, small: &ReverseSubsequences, input: &[u8], lengths: &[u8]) -> Vec<u8> {
    use wgpu::util::DeviceExt;
    let op = gpu.compile(small).unwrap();
    let (device, lock) = (gpu.device(), gpu.device_lock());
    let out_size = op.binding_size(TensorRole::Output);
    let storage = |contents: &[u8], usage| {
        let mut padded = contents.to_vec();
        padded.resize(contents.len().next_multiple_of(4), 0);
        lock.hold(|| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("test"),
                contents: &padded,
                usage: wgpu::BufferUsages::STORAGE | usage,
            })
        })
    };
    let input = storage(input, wgpu::BufferUsages::empty());
    let lengths = storage(lengths, wgpu::BufferUsages::empty());
    let output = storage(&vec![0; out_size as usize], wgpu::BufferUsages::COPY_SRC);
    let readback = lock.hold(|| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("test readback"),
            size: out_size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    op.record(
        &mut encoder,
        input.as_entire_buffer_binding(),
        lengths.as_entire_buffer_binding(),
        output.as_entire_buffer_binding(),
    )
    .unwrap();
    encoder.copy_buffer_to_buffer(&output, 0, &readback, 0, out_size);
    lock.hold(|| gpu.queue().submit([encoder.finish()]));
    lock.hold(|| readback.map_async(wgpu::MapMode::Read, .., |r| r.unwrap()));
    revseq::wait_for_queue(device, gpu.queue()).unwrap();
    let bytes = readback.get_mapped_range(..).unwrap().to_vec();
    lock.hold(|| drop((input, lengths, output, readback, op)));
    bytes
}

/// One thread runs an operator of many seconds in one submission, which on GL
/// holds wgpu's context lock all along, while three others compile, run,
/// record and drop small operators on the same device: on GL each waits on
/// revseq's `DeviceLock`, never on wgpu's lock, whose 6 s timeout panics. A
/// device of its own, so that the long hold keeps no other test waiting.
#[test]
fn small_operators_on_other_threads_run_while_a_slow_one_runs() {
    let gpu = gpu_with_limits(|_| {});
    let slow = gpu.with_max_binding(8 << 20).with_submission_bytes(None);
    let desc = slow_operator();
    let op = slow.compile(&desc).unwrap();
    assert!(
        op.dispatch_count() > 8,
        "{} dispatches",
        op.dispatch_count()
    );
    let mut rng = Rng::new(45);
    let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
    let features = desc.input.sizes()[2] as u64;
    let lengths: Vec<u32> = (0..desc.sequence_lengths.element_count())
        .map(|_| rng.below(u64::from(desc.input.sizes()[1]) + 3) as u32)
        .collect();
    assert_eq!(lengths.len() as u64, 2 * features);

    let done = AtomicBool::new(false);
    let small = |thread: u64| {
        let mut rng = Rng::new(thread);
        let mut runs = 0;
        // At least a few operators each, and as many as fit while the slow one
        // runs; each of another shape, so that some compile new pipelines.
        while runs < 4 || !done.load(Ordering::Relaxed) {
            let data_type = [DataType::Uint8, DataType::Float16, DataType::Float32][runs % 3];
            let sizes = [1 + rng.below(5) as u32, 1 + rng.below(40) as u32];
            let tensor = TensorDesc::new(data_type, &sizes);
            let small = ReverseSubsequences::new(
                tensor.clone(),
                TensorDesc::new(DataType::Int32, &[sizes[0], 1]),
                tensor,
                1,
            );
            let input = rng.bytes(small.input.min_size_in_bytes() as usize);
            let lengths: Vec<u8> = (0..sizes[0])
                .flat_map(|_| (rng.below(45) as i32 - 2).to_le_bytes())
                .collect();
            let mut expected = vec![0u8; small.output.min_size_in_bytes() as usize];
            reference::reverse_subsequences_bytes(&small, &input, &lengths, &mut expected).unwrap();
            let actual = match thread {
                // The caller's own encoder, submit and wait.
                2 => record_small(&gpu, &small, &input, &lengths),
                _ => {
                    let mut actual = vec![0u8; expected.len()];
                    gpu.compile(&small)
                        .unwrap()
                        .run(&input, &lengths, &mut actual)
                        .unwrap();
                    actual
                }
            };
            assert_eq!(actual[..expected.len()], expected, "{small:?}");
            runs += 1;
        }
        runs
    };
    let started = Instant::now();
    let (output, runs) = std::thread::scope(|scope| {
        let others: Vec<_> = (0..3).map(|t| scope.spawn(move || small(t))).collect();
        let mut output = vec![0x5Au8; desc.output.min_size_in_bytes() as usize];
        let result = op.run(&input, bytemuck::cast_slice(&lengths), &mut output);
        done.store(true, Ordering::Relaxed);
        let runs: Vec<usize> = others.into_iter().map(|t| t.join().unwrap()).collect();
        result.unwrap();
        (output, runs)
    });
    eprintln!(
        "slow operator: {} dispatches in one submission, {:.1} s beside {runs:?} small operators",
        op.dispatch_count(),
        started.elapsed().as_secs_f64()
    );
    let expected = expected(&desc, &input, &lengths, 0x5A);
    if let Some(at) = output.iter().zip(&expected).position(|(a, e)| a != e) {
        panic!(
            "the slow operator differs at output byte {at}: {:#04x}, expected {:#04x}",
            output[at], expected[at]
        );
    }
}

/// Two devices of two `wgpu::Instance`s, which wgpu may number alike (a
/// `wgpu::Device` compares by an id each instance counts from the start), have
/// locks of their own: a thread holding one device's lock for as long as it
/// likes keeps no call on the other waiting.
#[test]
fn devices_of_two_instances_never_share_a_lock() {
    let (first, second) = (gpu_with_limits(|_| {}), gpu_with_limits(|_| {}));
    let (held, release) = (mpsc::channel::<()>(), mpsc::channel::<()>());
    let lock = revseq::DeviceLock::of(first.device());
    let holder = std::thread::spawn(move || {
        lock.hold(|| {
            held.0.send(()).unwrap();
            release.1.recv_timeout(Duration::from_secs(60)).ok();
        })
    });
    held.1.recv().unwrap();
    // A call on the second device that takes its lock: done while the first's is held.
    let started = Instant::now();
    let done = within(Duration::from_secs(20), move || {
        revseq::DeviceLock::of(second.device()).hold(|| ());
        second.compile(&tiny()).map(|_| ()).unwrap();
    });
    release.0.send(()).unwrap();
    holder.join().unwrap();
    assert!(
        done,
        "a call on another instance's device waited {:?} for this one's lock",
        started.elapsed()
    );
}

/// Whether `f` finishes on a thread of its own within `limit`.
fn within(limit: Duration, f: impl FnOnce() + Send + 'static) -> bool {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        f();
        let _ = sender.send(());
    });
    receiver.recv_timeout(limit).is_ok()
}

/// A small descriptor to compile.
fn tiny() -> ReverseSubsequences {
    let tensor = TensorDesc::new(DataType::Float32, &[3, 17]);
    ReverseSubsequences::new(
        tensor.clone(),
        TensorDesc::new(DataType::Int32, &[3, 1]),
        tensor,
        1,
    )
}
