//! Throughput of reverse_subsequences beside `copy_buffer_to_buffer` of the same
//! bytes, measured in the same run, for every element width and three layouts.
//! Every configuration's output is checked against the CPU reference first.
//!
//! `cargo bench --bench revseq -- [--mib N] [--seconds S]`: tensor size in MiB
//! (default 16) and seconds of timing per configuration (default 1.5).

use std::time::{Duration, Instant};

use revseq::{reference, DataType, Gpu, ReverseSubsequences, TensorDesc, TensorRole};
use wgpu::util::DeviceExt;

struct Args {
    mib: u32,
    seconds: f64,
}

fn args() -> Args {
    let mut args = Args {
        mib: 16,
        seconds: 1.5,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        // `cargo bench` adds `--bench`; anything else unknown is ignored likewise.
        match arg.as_str() {
            "--mib" => args.mib = it.next().and_then(|v| v.parse().ok()).expect("--mib N"),
            "--seconds" => {
                args.seconds = it.next().and_then(|v| v.parse().ok()).expect("--seconds S")
            }
            _ => {}
        }
    }
    args
}

/// Sizes and axis for `elements` elements with the reversed axis (length 64)
/// innermost, in the middle, or outermost.
fn layout(name: &str, elements: u32) -> (Vec<u32>, u32) {
    match name {
        "innermost" => (vec![elements / 64, 64], 1),
        "middle" => (vec![16, 64, elements / 1024], 1),
        "outermost" => (vec![64, elements / 64], 0),
        _ => unreachable!(),
    }
}

fn storage(gpu: &Gpu, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    gpu.device()
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("bench"),
            contents,
            usage: wgpu::BufferUsages::STORAGE | usage,
        })
}

fn read_back(gpu: &Gpu, buffer: &wgpu::Buffer) -> Vec<u8> {
    let staging = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench readback"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    gpu.queue().submit([encoder.finish()]);
    staging.map_async(wgpu::MapMode::Read, .., |r| r.expect("map failed"));
    gpu.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll failed");
    let view = staging.get_mapped_range(..).expect("mapped range");
    view.to_vec()
}

/// Seconds per run of `record`, timed over batches submitted and waited on.
fn time_per_run(gpu: &Gpu, batch: u32, record: &dyn Fn(&mut wgpu::CommandEncoder)) -> f64 {
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    for _ in 0..batch {
        record(&mut encoder);
    }
    let start = Instant::now();
    gpu.queue().submit([encoder.finish()]);
    gpu.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll failed");
    start.elapsed().as_secs_f64() / f64::from(batch)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args = args();
    let gpu = Gpu::new().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let info = gpu.adapter_info();
    println!(
        "adapter: {} ({:?}, {:?}, {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    );
    println!(
        "tensor: {} MiB; GB/s = tensor bytes / time (10^9 B/s); op/copy = op GB/s ÷ copy GB/s in the same run\n",
        args.mib
    );
    println!(
        "{:>5} {:<10} {:>20} {:>10} {:>10} {:>8}  verified",
        "width", "layout", "sizes (axis)", "op GB/s", "copy GB/s", "op/copy"
    );

    let bytes = u64::from(args.mib) << 20;
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut ratios = Vec::new();
    for data_type in [
        DataType::Uint8,
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
        DataType::Complex128,
    ] {
        let width = data_type.size_in_bytes();
        for name in ["innermost", "middle", "outermost"] {
            let (sizes, axis) = layout(name, (bytes / u64::from(width)) as u32);
            let mut length_sizes = sizes.clone();
            length_sizes[axis as usize] = 1;
            let desc = ReverseSubsequences::new(
                TensorDesc::new(data_type, &sizes),
                TensorDesc::new(DataType::Uint32, &length_sizes),
                TensorDesc::new(data_type, &sizes),
                axis,
            );
            let compiled = gpu.compile(&desc).expect("compile");
            let input_bytes: Vec<u8> = (0..desc.input.min_size_in_bytes())
                .map(|_| random() as u8)
                .collect();
            // Lengths spread over 0..=72: nothing, part of the lane, all of it, past it.
            let length_bytes: Vec<u8> = (0..desc.sequence_lengths.element_count())
                .flat_map(|_| ((random() % 73) as u32).to_le_bytes())
                .collect();
            let input = storage(&gpu, &input_bytes, wgpu::BufferUsages::COPY_SRC);
            let lengths = storage(&gpu, &length_bytes, wgpu::BufferUsages::empty());
            let out_size = compiled.binding_size(TensorRole::Output);
            let output = gpu.device().create_buffer(&wgpu::BufferDescriptor {
                label: Some("bench output"),
                size: out_size,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let op = |encoder: &mut wgpu::CommandEncoder| {
                compiled
                    .record(
                        encoder,
                        input.as_entire_buffer_binding(),
                        lengths.as_entire_buffer_binding(),
                        output.as_entire_buffer_binding(),
                    )
                    .expect("record")
            };
            let copy = |encoder: &mut wgpu::CommandEncoder| {
                encoder.copy_buffer_to_buffer(&input, 0, &output, 0, out_size)
            };

            // Verify before timing.
            let mut encoder = gpu.device().create_command_encoder(&Default::default());
            op(&mut encoder);
            gpu.queue().submit([encoder.finish()]);
            let actual = read_back(&gpu, &output);
            let mut expected = vec![0u8; desc.output.min_size_in_bytes() as usize];
            reference::reverse_subsequences_bytes(
                &desc,
                &input_bytes,
                &length_bytes,
                &mut expected,
            )
            .expect("reference");
            let verified = actual[..expected.len()] == expected[..];

            // Batches sized to about 50 ms, alternating op and copy so that both see
            // the same machine state; medians of per-run times.
            let probe = time_per_run(&gpu, 1, &op).max(time_per_run(&gpu, 1, &copy));
            let batch = ((0.05 / probe) as u32).clamp(1, 64);
            let (mut op_times, mut copy_times) = (Vec::new(), Vec::new());
            let deadline = Instant::now() + Duration::from_secs_f64(args.seconds);
            while Instant::now() < deadline || op_times.len() < 3 {
                op_times.push(time_per_run(&gpu, batch, &op));
                copy_times.push(time_per_run(&gpu, batch, &copy));
            }
            let gbps = |t: f64| bytes as f64 / t / 1e9;
            let (op_gbps, copy_gbps) = (gbps(median(op_times)), gbps(median(copy_times)));
            ratios.push(op_gbps / copy_gbps);
            println!(
                "{:>4}B {:<10} {:>20} {:>10.2} {:>10.2} {:>8.3}  {}",
                width,
                name,
                format!("{sizes:?} ({axis})"),
                op_gbps,
                copy_gbps,
                op_gbps / copy_gbps,
                if verified { "yes" } else { "NO" }
            );
            if !verified {
                eprintln!("output differs from the reference for {desc:?}");
                std::process::exit(1);
            }
        }
    }
    let geomean = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
    println!("\ngeometric mean op/copy: {geomean:.3}");
}
