//! A lost device (`wgpu::Device::destroy`, as a driver reset or a browser's lost
//! GPU does): every public call returns `Error::DeviceLost`, or, where it ran
//! before the loss, an exact result; none panics and none hangs, under wgpu's
//! default error handler, which panics on any error that reaches it. Each test
//! has a device of its own, destroyed while others run on the suite's
//! (`lost_race.rs`: many devices, each lost at a random moment).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use revseq::{reference, DataType, Error, Gpu, ReverseSubsequences, TensorDesc};

use crate::support::{gpu_with_limits, quietly, Rng};

/// A device of its own, with wgpu's default error handler.
fn own_device() -> Gpu {
    gpu_with_limits(|_| {})
}

/// `f` on a thread of its own, which must end within a minute.
fn within_a_minute<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || sender.send(f()));
    receiver
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{what}: no answer within a minute on a lost device"))
}

fn assert_lost<T: std::fmt::Debug>(what: &str, result: Result<T, Error>) {
    match result {
        Err(Error::DeviceLost { .. }) => {}
        other => panic!("{what} on a lost device: {other:?}, expected Err(DeviceLost)"),
    }
}

/// `[rows, 16]` of 4-byte elements along axis 1, a length per row.
fn small(rows: u32) -> ReverseSubsequences {
    let tensor = TensorDesc::new(DataType::Uint32, &[rows, 16]);
    ReverseSubsequences::new(
        tensor.clone(),
        TensorDesc::new(DataType::Int32, &[rows, 1]),
        tensor,
        1,
    )
}

/// The caller's buffers for `record`, made with calls that do not panic on a
/// lost device (`create_buffer_init` does), in the test's own error scopes and
/// under the device's lock.
struct Bound {
    input: wgpu::Buffer,
    lengths: wgpu::Buffer,
    output: wgpu::Buffer,
    readback: wgpu::Buffer,
}

fn bind(gpu: &Gpu, input: &[u8], lengths: &[u8], output_bytes: u64) -> Bound {
    let (device, queue) = (gpu.device(), gpu.queue());
    quietly(gpu, || {
        let buffer = |size: u64, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("test"),
                size: size.next_multiple_of(4),
                usage,
                mapped_at_creation: false,
            })
        };
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let bound = Bound {
            input: buffer(input.len() as u64, storage),
            lengths: buffer(lengths.len() as u64, storage),
            output: buffer(output_bytes, storage | wgpu::BufferUsages::COPY_SRC),
            readback: buffer(
                output_bytes,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
        };
        queue.write_buffer(&bound.input, 0, input);
        queue.write_buffer(&bound.lengths, 0, lengths);
        bound
    })
}

/// `record`, the caller's submit and `wait_for_queue`, then the readback:
/// `Ok(output)` only where the wait said the work ran.
fn record_and_read(
    gpu: &Gpu,
    op: &revseq::CompiledReverse,
    input: &[u8],
    lengths: &[u8],
) -> Result<Option<Vec<u8>>, Error> {
    let out_bytes = op.binding_size(revseq::TensorRole::Output);
    let bound = bind(gpu, input, lengths, out_bytes);
    let mut encoder = quietly(gpu, || {
        gpu.device().create_command_encoder(&Default::default())
    });
    op.record(
        &mut encoder,
        bound.input.as_entire_buffer_binding(),
        bound.lengths.as_entire_buffer_binding(),
        bound.output.as_entire_buffer_binding(),
    )?;
    quietly(gpu, || {
        encoder.copy_buffer_to_buffer(&bound.output, 0, &bound.readback, 0, out_bytes);
        gpu.queue().submit([encoder.finish()]);
    });
    revseq::wait_for_queue(gpu.device(), gpu.queue())?;
    // The work ran on a live device; the mapping may still fail if the device
    // is lost now, and then there is nothing to compare.
    let (sender, receiver) = mpsc::channel();
    quietly(gpu, || {
        bound
            .readback
            .map_async(wgpu::MapMode::Read, .., move |r| drop(sender.send(r)))
    });
    revseq::wait_for_queue(gpu.device(), gpu.queue())?;
    let mapped = receiver.recv_timeout(Duration::from_secs(60));
    let bytes = match mapped {
        Ok(Ok(())) => quietly(gpu, || {
            bound.readback.get_mapped_range(..).ok().map(|v| v.to_vec())
        }),
        _ => None,
    };
    quietly(gpu, || drop(bound));
    Ok(bytes)
}

#[test]
fn every_call_on_a_lost_device_is_device_lost() {
    let gpu = own_device();
    let desc = small(3);
    let op = Arc::new(gpu.compile(&desc).unwrap());
    gpu.device().destroy();

    let input: Vec<u8> = (0..desc.input.min_size_in_bytes() as u8).collect();
    let lengths: Vec<u8> = [5i32, 16, -1]
        .iter()
        .flat_map(|l| l.to_le_bytes())
        .collect();
    let g = gpu.clone();
    let d = desc.clone();
    assert_lost(
        "compile, a cached key",
        within_a_minute("compile", move || g.compile(&d).map(drop)),
    );
    let g = gpu.clone();
    assert_lost(
        "compile, a new key",
        within_a_minute("compile", move || g.compile(&small(7)).map(drop)),
    );
    let g = gpu.clone();
    assert_lost(
        "compile_async",
        within_a_minute("compile_async", move || {
            pollster::block_on(g.compile_async(&small(2))).map(drop)
        }),
    );
    let g = gpu.clone();
    assert_lost(
        "reverse_subsequences",
        within_a_minute("reverse_subsequences", move || {
            g.reverse_subsequences(&[1u8, 2, 3], &[3], &[2u32], 0)
        }),
    );
    let g = gpu.clone();
    assert_lost(
        "reverse_subsequences_async",
        within_a_minute("reverse_subsequences_async", move || {
            pollster::block_on(g.reverse_subsequences_async(&[1f32, 2.], &[2], &[2u64], 0))
        }),
    );
    let g = gpu.clone();
    assert_lost(
        "reverse_sequence",
        within_a_minute("reverse_sequence", move || {
            g.reverse_sequence(&[1i32, 2, 3, 4], &[2, 2], &[2, 1], 0, 1)
        }),
    );
    let g = gpu.clone();
    assert_lost(
        "reverse_sequence_async",
        within_a_minute("reverse_sequence_async", move || {
            pollster::block_on(g.reverse_sequence_async(&[1u16, 2, 3, 4], &[2, 2], &[2, 1], 1, 0))
        }),
    );
    let (o, i, l) = (op.clone(), input.clone(), lengths.clone());
    assert_lost(
        "run",
        within_a_minute("run", move || {
            let mut out = vec![0u8; i.len()];
            o.run(&i, &l, &mut out)
        }),
    );
    let (o, i, l) = (op.clone(), input.clone(), lengths.clone());
    assert_lost(
        "run_async",
        within_a_minute("run_async", move || {
            let mut out = vec![0u8; i.len()];
            pollster::block_on(o.run_async(&i, &l, &mut out))
        }),
    );
    let (g, o) = (gpu.clone(), op.clone());
    assert_lost(
        "record",
        within_a_minute("record", move || {
            record_and_read(&g, &o, &input, &lengths).map(drop)
        }),
    );
    let g = gpu.clone();
    assert_lost(
        "wait_for_queue",
        within_a_minute("wait_for_queue", move || {
            revseq::wait_for_queue(g.device(), g.queue())
        }),
    );
    // Dropping what was made before the loss panics nowhere.
    drop(op);
    drop(gpu);
}

/// One call of kind `call % 6` on a random tensor, its output (where it read one
/// back) compared with the reference's.
fn one_call(gpu: &Gpu, call: u64, rng: &mut Rng) -> Result<(), Error> {
    let rows = 1 + rng.below(64) as u32;
    let desc = small(rows);
    let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
    let lens: Vec<i32> = (0..rows).map(|_| rng.below(20) as i32 - 2).collect();
    let lengths: Vec<u8> = lens.iter().flat_map(|l| l.to_le_bytes()).collect();
    let mut expected = vec![0u8; input.len()];
    reference::reverse_subsequences_bytes(&desc, &input, &lengths, &mut expected).unwrap();
    let values: Vec<u32> = bytemuck::pod_collect_to_vec(&input);
    let as_bytes = |out: Vec<u32>| Some(bytemuck::cast_slice(&out).to_vec());
    let output = match call % 6 {
        0 => gpu.compile(&desc).and_then(|op| {
            let mut out = vec![0u8; input.len()];
            op.run(&input, &lengths, &mut out).map(|()| Some(out))
        })?,
        1 => pollster::block_on(async {
            let op = gpu.compile_async(&desc).await?;
            let mut out = vec![0u8; input.len()];
            op.run_async(&input, &lengths, &mut out).await?;
            Ok::<_, Error>(Some(out))
        })?,
        2 => as_bytes(gpu.reverse_subsequences(&values, &[rows, 16], &lens, 1)?),
        3 => as_bytes(pollster::block_on(gpu.reverse_subsequences_async(
            &values,
            &[rows, 16],
            &lens,
            1,
        ))?),
        4 => record_and_read(gpu, &gpu.compile(&desc)?, &input, &lengths)?,
        _ => {
            // ONNX lengths lie in [0, 16]: those of the reference, clamped.
            let onnx: Vec<i64> = lens.iter().map(|&l| i64::from(l.clamp(0, 16))).collect();
            let out = gpu.reverse_sequence(&values, &[rows as usize, 16], &onnx, 0, 1)?;
            as_bytes(out)
        }
    };
    if let Some(output) = output {
        assert_eq!(
            output, expected,
            "call {call}, {rows} rows, lengths {lens:?}"
        );
    }
    Ok(())
}

/// Threads compile and run operators through every entry point while the device
/// is destroyed under them: each call is exact, or `DeviceLost`.
#[test]
fn a_device_lost_while_threads_run_gives_exact_results_or_device_lost() {
    let gpu = own_device();
    let exact = Arc::new(AtomicUsize::new(0));
    let (sender, receiver) = mpsc::channel();
    for thread in 0..4u64 {
        let (gpu, exact, sender) = (gpu.clone(), exact.clone(), sender.clone());
        // Not scoped: a thread that hangs fails the test instead of holding it.
        std::thread::spawn(move || {
            let mut rng = Rng::new(100 + thread);
            let (mut call, mut lost_calls) = (thread, 0);
            // Every kind of call twice after the loss.
            while lost_calls < 12 {
                match one_call(&gpu, call, &mut rng) {
                    // A loss is for good.
                    Ok(()) if lost_calls > 0 => {
                        panic!("call {call} on thread {thread}: Ok after DeviceLost")
                    }
                    Ok(()) => drop(exact.fetch_add(1, Ordering::Relaxed)),
                    Err(Error::DeviceLost { .. }) => lost_calls += 1,
                    Err(other) => panic!("call {call} on thread {thread}: {other}"),
                }
                call += 1;
            }
            let _ = sender.send(thread);
        });
    }
    // The loss comes once a call has finished exactly, while the threads go on
    // calling: a fixed delay misses that on a busy machine, where the first
    // pipeline alone can take longer.
    let first = Instant::now();
    while exact.load(Ordering::Relaxed) == 0 {
        assert!(
            first.elapsed() < Duration::from_secs(120),
            "no call finished exactly within two minutes (a thread panicking says why above)"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    gpu.device().destroy();
    for _ in 0..4 {
        receiver
            .recv_timeout(Duration::from_secs(120))
            .expect("every thread ends, each call exact or DeviceLost, within two minutes");
    }
}
