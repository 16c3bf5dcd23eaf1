//! A device lost at a random moment while threads call every public entry point
//! (both forms, typed and compiled, out of place and in place, host slices and
//! recorded, blocking and async, operators compiled before the loss), under
//! wgpu's default error handler, which panics on any error that reaches it:
//! every call is `Ok` with an exact result or `Err(DeviceLost)`; none panics,
//! none hangs. Many devices, each lost at its own moment.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use revseq::{
    reference, CompiledInPlace, CompiledReverse, DataType, Error, Gpu, ReverseInPlace,
    ReverseSubsequences, TensorDesc, TensorRole,
};

use crate::support::{gpu_with_limits, quietly, Rng};

/// What the calls of one or more races came to.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Tally {
    devices: usize,
    exact: usize,
    lost: usize,
    panicked: usize,
    /// `Ok` with a result that differs from the reference's, `Ok` after a
    /// `DeviceLost` on the same thread, or an error other than `DeviceLost`.
    wrong: usize,
    /// Threads that did not end within a minute.
    hung: usize,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.devices += o.devices;
        self.exact += o.exact;
        self.lost += o.lost;
        self.panicked += o.panicked;
        self.wrong += o.wrong;
        self.hung += o.hung;
    }
}

/// `[rows, 16]` of 4-byte elements along axis 1, a length per row.
fn desc(rows: u32) -> ReverseSubsequences {
    let tensor = TensorDesc::new(DataType::Uint32, &[rows, 16]);
    ReverseSubsequences::new(
        tensor.clone(),
        TensorDesc::new(DataType::Int32, &[rows, 1]),
        tensor,
        1,
    )
}

fn in_place(rows: u32) -> ReverseInPlace {
    let d = desc(rows);
    ReverseInPlace::new(d.input, d.sequence_lengths, 1)
}

/// A buffer of `usage` holding `contents`, made quietly.
fn buffer(gpu: &Gpu, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    quietly(gpu, || {
        let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("race"),
            size: (contents.len() as u64).next_multiple_of(4).max(4),
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        gpu.queue().write_buffer(&buffer, 0, contents);
        buffer
    })
}

/// `recorded` into the test's encoder on its own buffers, submitted and waited
/// for with `wait_for_queue`, then `out` read back: `None` where the device
/// was lost before the bytes came back.
fn recorded(
    gpu: &Gpu,
    out: &wgpu::Buffer,
    recorded: impl FnOnce(&mut wgpu::CommandEncoder) -> Result<(), Error>,
) -> Result<Option<Vec<u8>>, Error> {
    let size = out.size();
    let readback = quietly(gpu, || {
        gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("race readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    });
    let mut encoder = quietly(gpu, || {
        gpu.device().create_command_encoder(&Default::default())
    });
    recorded(&mut encoder)?;
    quietly(gpu, || {
        encoder.copy_buffer_to_buffer(out, 0, &readback, 0, size);
        gpu.queue().submit([encoder.finish()]);
    });
    revseq::wait_for_queue(gpu.device(), gpu.queue())?;
    let (sender, receiver) = mpsc::channel();
    quietly(gpu, || {
        readback.map_async(wgpu::MapMode::Read, .., move |r| drop(sender.send(r)))
    });
    revseq::wait_for_queue(gpu.device(), gpu.queue())?;
    let bytes = match receiver.recv_timeout(Duration::from_secs(60)) {
        Ok(Ok(())) => quietly(gpu, || {
            readback.get_mapped_range(..).ok().map(|v| v.to_vec())
        }),
        _ => None,
    };
    quietly(gpu, || drop(readback));
    Ok(bytes)
}

/// Operators compiled before the loss, run by the threads after it too.
struct Compiled {
    rows: u32,
    op: CompiledReverse,
    in_place: CompiledInPlace,
}

/// One call of kind `kind` on a random tensor: `Ok(true)` where it read back a
/// result equal to the reference's, `Ok(false)` where it had nothing to compare
/// (the device was lost before the readback), `Ok` never with a wrong result.
fn one_call(gpu: &Gpu, before: &Compiled, kind: u64, rng: &mut Rng) -> Result<bool, Error> {
    let rows = match kind {
        12 | 13 => before.rows,
        _ => 1 + rng.below(24) as u32,
    };
    let d = desc(rows);
    let input = rng.bytes(d.input.min_size_in_bytes() as usize);
    let lens: Vec<i32> = (0..rows).map(|_| rng.below(20) as i32 - 2).collect();
    let lengths: Vec<u8> = lens.iter().flat_map(|l| l.to_le_bytes()).collect();
    let mut expected = vec![0u8; input.len()];
    reference::reverse_subsequences_bytes(&d, &input, &lengths, &mut expected).unwrap();
    let values: Vec<u32> = bytemuck::pod_collect_to_vec(&input);
    let words = |out: Vec<u32>| Some(bytemuck::cast_slice(&out).to_vec());
    let onnx: Vec<i64> = lens.iter().map(|&l| i64::from(l.clamp(0, 16))).collect();
    let sizes = [rows, 16];
    let output = match kind {
        0 => {
            let op = gpu.compile(&d)?;
            let mut out = vec![0u8; input.len()];
            op.run(&input, &lengths, &mut out).map(|()| Some(out))?
        }
        1 => pollster::block_on(async {
            let op = gpu.compile_async(&d).await?;
            let mut out = vec![0u8; input.len()];
            op.run_async(&input, &lengths, &mut out).await?;
            Ok::<_, Error>(Some(out))
        })?,
        2 => words(gpu.reverse_subsequences(&values, &sizes, &lens, 1)?),
        3 => words(pollster::block_on(
            gpu.reverse_subsequences_async(&values, &sizes, &lens, 1),
        )?),
        4 => words(gpu.reverse_sequence(&values, &[rows as usize, 16], &onnx, 0, 1)?),
        5 => words(pollster::block_on(gpu.reverse_sequence_async(
            &values,
            &[rows as usize, 16],
            &onnx,
            0,
            1,
        ))?),
        6 => {
            let op = gpu.compile_in_place(&in_place(rows))?;
            let mut data = input.clone();
            op.run(&mut data, &lengths).map(|()| Some(data))?
        }
        7 => pollster::block_on(async {
            let op = gpu.compile_in_place_async(&in_place(rows)).await?;
            let mut data = input.clone();
            op.run_async(&mut data, &lengths).await?;
            Ok::<_, Error>(Some(data))
        })?,
        8 => {
            let mut data = values.clone();
            gpu.reverse_subsequences_in_place(&mut data, &sizes, &lens, 1)?;
            words(data)
        }
        9 => {
            let mut data = values.clone();
            pollster::block_on(
                gpu.reverse_subsequences_in_place_async(&mut data, &sizes, &lens, 1),
            )?;
            words(data)
        }
        10 => {
            let op = gpu.compile(&d)?;
            let storage = wgpu::BufferUsages::STORAGE;
            let (i, l) = (buffer(gpu, &input, storage), buffer(gpu, &lengths, storage));
            let out = buffer(
                gpu,
                &vec![0; op.binding_size(TensorRole::Output) as usize],
                storage | wgpu::BufferUsages::COPY_SRC,
            );
            recorded(gpu, &out, |encoder| {
                op.record(
                    encoder,
                    i.as_entire_buffer_binding(),
                    l.as_entire_buffer_binding(),
                    out.as_entire_buffer_binding(),
                )
            })?
        }
        11 => {
            let op = gpu.compile_in_place(&in_place(rows))?;
            let storage = wgpu::BufferUsages::STORAGE;
            let data = buffer(gpu, &input, storage | wgpu::BufferUsages::COPY_SRC);
            let l = buffer(gpu, &lengths, storage);
            recorded(gpu, &data, |encoder| {
                op.record(
                    encoder,
                    data.as_entire_buffer_binding(),
                    l.as_entire_buffer_binding(),
                )
            })?
        }
        12 => {
            let mut out = vec![0u8; input.len()];
            before
                .op
                .run(&input, &lengths, &mut out)
                .map(|()| Some(out))?
        }
        _ => {
            let mut data = input.clone();
            before
                .in_place
                .run(&mut data, &lengths)
                .map(|()| Some(data))?
        }
    };
    match output {
        Some(output) if output[..expected.len()] == expected[..] => Ok(true),
        Some(_) => panic!("kind {kind}: a result that differs from the reference's"),
        None => Ok(false),
    }
}

/// The kinds of call [`one_call`] makes.
const KINDS: u64 = 14;

/// One device, `threads` threads calling at random until each has seen
/// `DeviceLost` three times, the device destroyed after a random delay of up to
/// `delay_ms`; on even seeds with autotune on.
fn race(seed: u64, threads: u64, delay_ms: u64) -> Tally {
    // Every other device times its candidate plans, so that the loss strikes
    // autotune too.
    let gpu = gpu_with_limits(|_| {}).with_autotune(seed.is_multiple_of(2));
    let mut tally = Tally {
        devices: 1,
        ..Tally::default()
    };
    let mut rng = Rng::new(seed);
    let rows = 1 + rng.below(24) as u32;
    let before = match (
        gpu.compile(&desc(rows)),
        gpu.compile_in_place(&in_place(rows)),
    ) {
        (Ok(op), Ok(in_place)) => Arc::new(Compiled { rows, op, in_place }),
        other => panic!(
            "compiling on a live device: {:?}",
            other.0.err().or(other.1.err())
        ),
    };
    let (sender, receiver) = mpsc::channel();
    // The kind of call each thread is in, so that a thread that hangs is named.
    let calling = Arc::new(Mutex::new(vec![None; threads as usize]));
    for thread in 0..threads {
        let (gpu, before, sender) = (gpu.clone(), before.clone(), sender.clone());
        let calling = calling.clone();
        let mut rng = Rng::new(seed * 1000 + thread);
        // Not scoped: a thread that hangs fails the race instead of holding it.
        std::thread::spawn(move || {
            let mut tally = Tally::default();
            let mut lost_calls = 0;
            while lost_calls < 3 {
                let kind = rng.below(KINDS);
                calling.lock().unwrap()[thread as usize] = Some(kind);
                let call =
                    catch_unwind(AssertUnwindSafe(|| one_call(&gpu, &before, kind, &mut rng)));
                calling.lock().unwrap()[thread as usize] = None;
                match call {
                    Err(panic) => {
                        let message = panic
                            .downcast_ref::<String>()
                            .map(String::as_str)
                            .or(panic.downcast_ref::<&str>().copied())
                            .unwrap_or("?");
                        eprintln!(
                            "[race {seed}] kind {kind} panicked: {}",
                            message.lines().next().unwrap_or("")
                        );
                        tally.panicked += 1;
                        lost_calls += 1;
                    }
                    // A loss is for good.
                    Ok(Ok(_)) if lost_calls > 0 => {
                        eprintln!("[race {seed}] kind {kind}: Ok after a loss");
                        tally.wrong += 1;
                    }
                    Ok(Ok(true)) => tally.exact += 1,
                    Ok(Ok(false)) => {}
                    Ok(Err(Error::DeviceLost { .. })) => {
                        tally.lost += 1;
                        lost_calls += 1;
                    }
                    Ok(Err(other)) => {
                        eprintln!("[race {seed}] kind {kind}: {other}");
                        tally.wrong += 1;
                        lost_calls += 1;
                    }
                }
            }
            let _ = sender.send(tally);
        });
    }
    std::thread::sleep(Duration::from_micros(rng.below(delay_ms * 1000)));
    gpu.device().destroy();
    for _ in 0..threads {
        match receiver.recv_timeout(Duration::from_secs(60)) {
            Ok(t) => tally += t,
            Err(_) => {
                let calling = calling.lock().unwrap();
                eprintln!("[race {seed}] a thread hung; calls in flight (kinds): {calling:?}");
                tally.hung += 1;
            }
        }
    }
    // What was made before the loss is dropped after it, panicking nowhere.
    drop(before);
    tally
}

/// Losses: `REVSEQ_LOSSES`, else 200.
fn losses() -> u64 {
    std::env::var("REVSEQ_LOSSES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

#[test]
fn devices_lost_at_random_moments_under_threads_give_exact_results_or_device_lost() {
    let mut tally = Tally::default();
    for seed in 0..losses() {
        tally += race(seed, 3, 120);
    }
    eprintln!("lost-device races: {tally:?}");
    assert!(
        tally.panicked == 0 && tally.wrong == 0 && tally.hung == 0,
        "{tally:?}"
    );
    // The races reached the loss at every stage: most calls before it were exact.
    assert!(tally.exact > 0 && tally.lost >= 3 * tally.devices);
}
