//! What a call through burn costs the host: `reverse_sequence` beside burn's
//! own `flip` of the same tensor along time and a plain `x + 1`, on burn's
//! default device (revseq's kernels there), on a tiny and a medium
//! `[batch, time, features]` f32 tensor with `[batch]` lengths.
//!
//! `cargo bench -p revseq-burn --bench host [-- --calls N --rounds R]`; with
//! burn's fusion off: `--no-default-features --features wgpu`.
//!
//! Each round runs, for each shape and operation in turn, `N` calls chained on
//! a fresh tensor (default 1,000, each call's output the next one's input),
//! then waits for the device: *issue* is the host's time for the calls alone,
//! *total* that and the wait, both per call. The table gives the medians over
//! the rounds (default 15) and the median of the per-round ratios to `flip`'s
//! total. On a GPU the device's work on these tensors is a few microseconds,
//! so the host's cost is what a call costs.

use std::time::Instant;

use burn::tensor::{Device, Distribution, Int, Tensor, TensorData};
use revseq_burn::reverse_sequence;

/// The shapes: `[batch, time, features]`.
const SHAPES: [(&str, [usize; 3]); 2] = [("tiny", [4, 16, 8]), ("medium", [32, 64, 128])];

type Op = Box<dyn Fn(Tensor<3>) -> Tensor<3>>;

fn main() {
    let mut calls = 1000;
    let mut rounds = 15;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().and_then(|v| v.parse().ok());
        match arg.as_str() {
            "--calls" => calls = value().expect("--calls N"),
            "--rounds" => rounds = value().expect("--rounds R"),
            _ => {}
        }
    }
    runtime_dir();
    let device = Device::default();
    let adapter = revseq_burn::lab::adapter(&device).unwrap_or_else(|| "no kernels".into());
    let fusion = cfg!(feature = "fusion");
    println!(
        "burn's default device ({adapter}), fusion {}, {:?} path",
        if fusion { "on" } else { "off" },
        revseq_burn::path(&device)
    );
    for (name, shape) in SHAPES {
        let lengths: Vec<i64> = (0..shape[0] as i64)
            .map(|b| (b * 37 + 11) % (shape[1] as i64 + 1))
            .collect();
        let lengths = Tensor::<1, Int>::from_data(TensorData::new(lengths, [shape[0]]), &device);
        let ops: Vec<(&str, Op)> = vec![
            ("burn's flip", Box::new(|x: Tensor<3>| x.flip([1]))),
            (
                "reverse_sequence",
                Box::new(move |x| reverse_sequence(x, lengths.clone(), 0, 1).expect("valid")),
            ),
            ("x + 1", Box::new(|x| x + 1.0)),
        ];
        // [op][round]: (issue, total) seconds per call.
        let mut times = vec![Vec::new(); ops.len()];
        for round in 0..=rounds {
            for ((_, op), times) in ops.iter().zip(&mut times) {
                let timed = time(op, shape, calls, &device);
                if round > 0 {
                    times.push(timed);
                }
            }
        }
        println!("{name} {shape:?}, {rounds} rounds of {calls} chained calls, medians:");
        println!(
            "  {:<18} {:>12} {:>12} {:>14}",
            "call", "issue", "total", "total ÷ flip"
        );
        for ((op, _), op_times) in ops.iter().zip(&times) {
            let ratios: Vec<f64> = op_times
                .iter()
                .zip(&times[0])
                .map(|(t, flip)| t.1 / flip.1)
                .collect();
            println!(
                "  {op:<18} {:>9.2} µs {:>9.2} µs {:>13.2}×",
                median(op_times.iter().map(|t| t.0 * 1e6).collect()),
                median(op_times.iter().map(|t| t.1 * 1e6).collect()),
                median(ratios)
            );
        }
    }
    let [runs, in_place] = revseq_burn::lab::kernel_runs();
    println!("revseq's kernels ran {runs} times, {in_place} of them in place");
}

/// Seconds per call to issue `calls` chained calls of `op` on a fresh tensor
/// of `shape`, and to issue them and wait for the device.
fn time(op: &Op, shape: [usize; 3], calls: usize, device: &Device) -> (f64, f64) {
    let x = Tensor::<3>::random(shape, Distribution::Default, device);
    device.sync().expect("device sync");
    let start = Instant::now();
    let mut y = x;
    for _ in 0..calls {
        y = op(y);
    }
    let issued = start.elapsed().as_secs_f64();
    device.sync().expect("device sync");
    let total = start.elapsed().as_secs_f64();
    drop(y);
    (issued / calls as f64, total / calls as f64)
}

/// Without a login session's `XDG_RUNTIME_DIR` (a container, a CI runner),
/// Mesa's Vulkan device-select layer prints two `error:` lines: the benchmark
/// owns its process and gives itself an empty one, as a desktop session has.
fn runtime_dir() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() || !cfg!(unix) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("revseq-burn-host-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_ok() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
