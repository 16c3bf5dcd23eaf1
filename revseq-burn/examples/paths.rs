//! revseq-burn's two paths on one BiLSTM-sized tensor, `[32, 128, 256]` f32
//! (batch, time, features) with lengths spread over `[0, 128]`, reversed along
//! time. `cargo run --release -p revseq-burn --example paths`
//!
//! - On the default wgpu adapter: revseq's kernels on a device the deprecated
//!   `revseq_burn::init` brought up, and on a wgpu runtime burn brought up
//!   itself (no init), beside the portable path (burn's tensor operations, on
//!   that runtime) and burn's own `flip` along time there (a reversal that
//!   ignores the lengths).
//! - On burn's CPU backend (flex): the portable path beside `flip`. flex's `flip`
//!   is a view that moves nothing until an operation reads it, so both are
//!   followed by `+ 1.0`, the operation that reads them; `x + 1` alone beside.
//!
//! Each round times every variant once (`REPS` operations chained, then
//! `Device::sync`); it prints each variant's median and the median of the
//! per-round ratios to its baseline.
//!
//! Options: `--shape B,T,F` (default `32,128,256`; the GPU kit takes a GPU's
//! size), `--rounds N` (default 15), `--wgpu-only` (no CPU backend group: at a
//! GPU's size it would take minutes).

use std::time::Instant;

use burn::tensor::{Device, DeviceKind, Int, Tensor, TensorData};
use revseq_burn::{reverse_sequence, Error};

const REPS: usize = 20;

/// The command line.
struct Args {
    shape: [usize; 3],
    rounds: usize,
    wgpu_only: bool,
}

fn args() -> Args {
    let mut args = Args {
        shape: [32, 128, 256],
        rounds: 15,
        wgpu_only: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--shape" => {
                let sizes: Vec<usize> = it
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(|s| s.parse().expect("--shape B,T,F"))
                    .collect();
                args.shape = sizes.try_into().expect("--shape B,T,F");
            }
            "--rounds" => args.rounds = it.next().and_then(|v| v.parse().ok()).expect("--rounds N"),
            "--wgpu-only" => args.wgpu_only = true,
            _ => {}
        }
    }
    args
}

type Op = Box<dyn Fn(Tensor<3>) -> Tensor<3>>;

struct Variant {
    name: &'static str,
    device: Device,
    op: Op,
    times: Vec<f64>,
}

fn main() -> Result<(), Error> {
    let Args {
        shape,
        rounds,
        wgpu_only,
    } = args();
    #[expect(deprecated, reason = "the row of a device brought up the old way")]
    let kernels = revseq_burn::init()?;
    let adapter = revseq_burn::lab::adapter(&kernels).unwrap_or_default();
    println!("adapter: {adapter}");
    // A second runtime on the same adapter, which burn brings up itself.
    let kind = match adapter.contains("llvmpipe") || adapter.contains("SwiftShader") {
        true => DeviceKind::Cpu,
        false => DeviceKind::DiscreteGpu(0),
    };
    let burns = Device::wgpu(kind);
    let cpu = Device::flex();

    let [batch, time_steps] = [shape[0], shape[1]].map(|s| s as i64);
    let lengths: Vec<i64> = (0..batch)
        .map(|b| (b * 37 + 11) % (time_steps + 1))
        .collect();
    let reverse = |device: &Device| -> Op {
        let lengths =
            Tensor::<1, Int>::from_data(TensorData::new(lengths.clone(), [shape[0]]), device);
        Box::new(move |x| reverse_sequence(x, lengths.clone(), 0, 1).expect("valid arguments"))
    };
    let portable = |device: &Device| -> Op {
        let lengths =
            Tensor::<1, Int>::from_data(TensorData::new(lengths.clone(), [shape[0]]), device);
        Box::new(move |x| {
            revseq_burn::lab::reverse_sequence(x, lengths.clone(), 0, 1).expect("valid arguments")
        })
    };
    let flip: fn(Tensor<3>) -> Tensor<3> = |x| x.flip([1]);
    let add: fn(Tensor<3>) -> Tensor<3> = |x| x + 1.0;
    let reverse_add = |device: &Device| -> Op {
        let reverse = reverse(device);
        Box::new(move |x| reverse(x) + 1.0)
    };
    // Groups: the first of each is the baseline of the others' ratios.
    let mut groups: Vec<Vec<(&'static str, Device, Op)>> = vec![
        vec![
            ("kernels, init()", kernels.clone(), reverse(&kernels)),
            ("kernels, no init", burns.clone(), reverse(&burns)),
            ("portable path", burns.clone(), portable(&burns)),
            ("burn's flip", burns.clone(), Box::new(flip)),
        ],
        vec![
            ("flip + 1", cpu.clone(), Box::new(move |x| flip(x) + 1.0)),
            ("portable path + 1", cpu.clone(), reverse_add(&cpu)),
            ("x + 1", cpu.clone(), Box::new(add)),
        ],
    ];
    if wgpu_only {
        groups.truncate(1);
    }
    let mut groups: Vec<Vec<Variant>> = groups
        .into_iter()
        .map(|group| {
            group
                .into_iter()
                .map(|(name, device, op)| Variant {
                    name,
                    device,
                    op,
                    times: Vec::new(),
                })
                .collect()
        })
        .collect();
    for round in 0..=rounds {
        for variant in groups.iter_mut().flatten() {
            let seconds = time(variant, shape);
            if round > 0 {
                variant.times.push(seconds);
            }
        }
    }

    let bytes = 2.0 * (shape.iter().product::<usize>() * 4) as f64;
    println!("{shape:?} f32, {rounds} rounds of {REPS} chained operations, medians");
    for (group, title) in groups.iter().zip(["wgpu", "burn's CPU backend (flex)"]) {
        println!("{title}:");
        println!(
            "  {:<20} {:>10} {:>8} {:>12}",
            "variant", "time", "GB/s", "÷ first"
        );
        for variant in group {
            let ratios: Vec<f64> = (0..rounds)
                .map(|r| variant.times[r] / group[0].times[r])
                .collect();
            let t = median(&variant.times);
            println!(
                "  {:<20} {:>7.3} ms {:>8.2} {:>11.2}×",
                variant.name,
                t * 1e3,
                bytes / t / 1e9,
                median(&ratios)
            );
        }
    }
    let [runs, in_place] = revseq_burn::lab::kernel_runs();
    println!("revseq's kernels ran {runs} times, {in_place} of them in place");
    Ok(())
}

/// Seconds per operation: `REPS` of them chained on a fresh tensor, then a sync.
fn time(variant: &Variant, shape: [usize; 3]) -> f64 {
    let x = Tensor::<3>::random(shape, burn::tensor::Distribution::Default, &variant.device);
    variant.device.sync().expect("device sync");
    let start = Instant::now();
    let mut y = x;
    for _ in 0..REPS {
        y = (variant.op)(y);
    }
    variant.device.sync().expect("device sync");
    let seconds = start.elapsed().as_secs_f64() / REPS as f64;
    drop(y);
    seconds
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}
