//! `--sweep`: layouts from 1 MiB up to the largest tensor the adapter takes, each
//! timed beside the same layout at 64 MiB in one dispatch.
use revseq::{DataType, ReverseSubsequences};

use crate::bench::{median, off_rounds, Bench};
use crate::cli::Args;
use crate::layouts::{descriptor, Lengths, LAYOUTS};

/// A layout run whole and windowed, timed in the same run on the same device.
pub(crate) struct WindowedRow {
    pub(crate) layout: String,
    pub(crate) variant: &'static str,
    pub(crate) dispatches: usize,
    pub(crate) whole_gbps: f64,
    pub(crate) windowed_gbps: f64,
    pub(crate) verified: bool,
}

impl Bench {
    /// Verifies `desc` windowed into bindings of `window` bytes, then times it
    /// beside the same operator in one dispatch.
    pub(crate) fn windowed_row(
        &self,
        layout: &str,
        desc: &ReverseSubsequences,
        window: u64,
        seconds: f64,
    ) -> WindowedRow {
        let whole = self.gpu.compile(desc).expect("compile");
        let windowed = self
            .gpu
            .with_max_binding(window)
            .compile(desc)
            .expect("compile windowed");
        let tensors = self.prepare(desc, Lengths::Spread);
        let (whole_op, windowed_op) = (Self::op(&whole, &tensors), Self::op(&windowed, &tensors));
        let verified = self.verify(&tensors, &windowed_op, &self.expected(desc, &tensors));
        let times = self.time(seconds, &[&whole_op, &windowed_op]);
        let bytes =
            desc.output.element_count() * u64::from(desc.output.data_type().size_in_bytes());
        WindowedRow {
            layout: layout.to_string(),
            variant: windowed.variant().name(),
            dispatches: windowed.dispatch_count(),
            whole_gbps: bytes as f64 / times[0] / 1e9,
            windowed_gbps: bytes as f64 / times[1] / 1e9,
            verified,
        }
    }
}

/// `--sweep`: 4-byte layouts from 1 MiB, doubling, up to the largest tensor the
/// adapter takes, on bindings of 128 MiB (windowed past them), each verified and
/// timed alternately with the same layout at 64 MiB in one dispatch; then every
/// other layout, and lanes longer than a binding, at the largest size. Prints GB/s
/// and the time per byte ÷ the 64 MiB figure's; whether every row matched the
/// reference.
pub(crate) fn sweep(bench: &Bench, args: &Args) -> bool {
    let largest = bench
        .gpu
        .device()
        .limits()
        .max_buffer_size
        .min(1 << 33)
        .min(args.largest_mib.map_or(u64::MAX, |mib| mib << 20));
    println!(
        "sweep: 4-byte tensors up to {} MiB (max_buffer_size), bound {} MiB at a time; t/byte ÷ 64 MiB = median over rounds of time per byte ÷ the same layout's at 64 MiB in one dispatch timed in the same round (base GB/s: its median; off: rounds whose base was more than 25% off its median)",
        largest >> 20,
        SWEEP_BINDING >> 20
    );
    println!(
        "{:<16} {:>9} {:<7} {:>10} {:>11} {:>8} {:>16} {:>8} {:>8}  verified",
        "layout",
        "MiB",
        "variant",
        "dispatches",
        "scratch MiB",
        "GB/s",
        "t/byte ÷ 64 MiB",
        "base GB/s",
        "off"
    );
    let mut all_verified = true;
    let swept = ["innermost", "onnx-time-major", "outermost"];
    for layout in swept.into_iter().filter(|l| args.wants_layout(l)) {
        // Doubling from 1 MiB, then the largest whole MiB the adapter takes.
        let mut sizes: Vec<u64> = (0..)
            .map(|k| 1u64 << (20 + k))
            .take_while(|&s| s <= largest)
            .collect();
        if sizes.last() != Some(&(largest >> 20 << 20)) {
            sizes.push(largest >> 20 << 20);
        }
        if args.largest_only {
            sizes.drain(..sizes.len() - 1);
        }
        all_verified &= sweep_rows(bench, layout, &sizes, args.seconds);
    }
    // The others at the largest size whose every buffer the adapter takes (the
    // strided layout's input and output are padded).
    let others = LAYOUTS.into_iter().filter(|l| !swept.contains(l));
    for layout in others
        .chain(["long-lanes", "ragged-outermost"])
        .filter(|l| args.wants_layout(l))
    {
        let elements = (largest / 4) as u32;
        let desc = descriptor(layout, DataType::Float32, elements);
        let padded = desc
            .input
            .min_size_in_bytes()
            .max(desc.output.min_size_in_bytes());
        let size = ((u128::from(largest) * u128::from(largest) / u128::from(padded)) as u64)
            .min(largest)
            >> 20
            << 20;
        all_verified &= sweep_rows(bench, layout, &[size], args.seconds);
    }
    all_verified
}

/// Bindings of the sweep's windowed dispatches: browsers' and `Limits::default()`'s.
pub(crate) const SWEEP_BINDING: u64 = 128 << 20;

/// One sweep row per size in `sizes` (bytes of output) for `layout`, each timed
/// alternately with the same layout at 64 MiB in one dispatch (`outermost` for
/// `ragged-outermost`).
pub(crate) fn sweep_rows(bench: &Bench, layout: &str, sizes: &[u64], seconds: f64) -> bool {
    const BASE: u64 = 64 << 20;
    // A ragged layout is timed against its whole-vector twin: at 64 MiB in one
    // dispatch the ragged one runs a slower kernel than its pieces do.
    let base_layout = match layout {
        "ragged-outermost" => "outermost",
        other => other,
    };
    let base_desc = descriptor(base_layout, DataType::Float32, (BASE / 4) as u32);
    let base = bench.gpu.compile(&base_desc).expect("compile");
    assert_eq!(base.dispatch_count(), 1, "64 MiB in one dispatch");
    let base_tensors = bench.prepare(&base_desc, Lengths::Spread);
    let base_op = Bench::op(&base, &base_tensors);
    let windowed_gpu = bench.gpu.with_max_binding(SWEEP_BINDING);
    let mut all_verified = true;
    for &size in sizes {
        let desc = descriptor(layout, DataType::Float32, (size / 4) as u32);
        let op = windowed_gpu.compile(&desc).expect("compile");
        let tensors = bench.prepare(&desc, Lengths::Spread);
        let record = Bench::op(&op, &tensors);
        let verified = bench.verify(&tensors, &record, &bench.expected(&desc, &tensors));
        all_verified &= verified;
        // The median of per-round ratios, each round's baseline timed beside it;
        // rounds whose baseline is off its median by more than 25% are counted.
        let rounds = bench.time_rounds(seconds, &[&base_op, &record]);
        let ratios = rounds[0]
            .iter()
            .zip(&rounds[1])
            .map(|(base, t)| (t / size as f64) / (base / BASE as f64));
        let ratio = median(ratios.collect());
        let base_median = median(rounds[0].clone());
        let off = off_rounds(&rounds[0]);
        println!(
            "{:<16} {:>9} {:<7} {:>10} {:>11} {:>8.2} {:>15.2}× {:>8.2} {:>4}/{:<3}  {}",
            layout,
            size >> 20,
            op.variant().name(),
            op.dispatch_count(),
            op.scratch_bytes() >> 20,
            size as f64 / median(rounds[1].clone()) / 1e9,
            ratio,
            BASE as f64 / base_median / 1e9,
            off,
            rounds[0].len(),
            if verified { "yes" } else { "NO" }
        );
    }
    all_verified
}

/// 4-byte layouts with bindings of a quarter of the tensor's `bytes`, beside the
/// same layouts in one dispatch, each row printed as it comes.
pub(crate) fn windowed_rows(bench: &Bench, args: &Args, bytes: u64) -> Vec<WindowedRow> {
    let window = bytes / 4;
    println!(
        "\nwindowed: 4-byte layouts bound {} KiB at a time, beside the same in one dispatch",
        window >> 10
    );
    println!(
        "{:<16} {:<7} {:>10} {:>10} {:>12} {:>8}  verified",
        "layout", "variant", "dispatches", "whole GB/s", "windowed GB/s", "t ratio"
    );
    let mut rows = Vec::new();
    for layout in ["innermost", "middle", "onnx-batch-major", "onnx-time-major"]
        .into_iter()
        .filter(|l| args.wants_layout(l))
    {
        let desc = descriptor(layout, DataType::Float32, (bytes / 4) as u32);
        let row = bench.windowed_row(layout, &desc, window, args.seconds);
        println!(
            "{:<16} {:<7} {:>10} {:>10.2} {:>12.2} {:>7.2}×  {}",
            row.layout,
            row.variant,
            row.dispatches,
            row.whole_gbps,
            row.windowed_gbps,
            row.whole_gbps / row.windowed_gbps,
            if row.verified { "yes" } else { "NO" }
        );
        rows.push(row);
    }
    rows
}
