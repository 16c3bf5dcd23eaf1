//! `--in-place`: the operator in place, each row verified against the
//! reference's in-place twin, then timed beside the copy kernel moving the whole
//! tensor and the out-of-place operator on the same tensor, in the same rounds;
//! lengths uniform in `[0, n]` (about half the axis reversed on average) and all
//! `n` (every element moved), with `--padded` also a sorted padded batch's for
//! the ONNX layouts; with `--candidates`, every other family that can serve the
//! row in place, in the same rounds.
use revseq::{reference, CompiledInPlace, ReverseInPlace, ReverseSubsequences};

use crate::bench::{median, quartiles, Bench, Record};
use crate::candidates;
use crate::cli::Args;
use crate::layouts::{descriptor, host_input, is_onnx, Lengths, LAYOUTS};
use crate::rows::{candidates_json, tuned_json, Candidate};

/// The share of the tensor's elements a reversal in place moves: both elements of
/// each lane's `⌊L / 2⌋` pairs, over the tensor (each length serving the lanes
/// its slot broadcasts to).
fn fill(desc: &ReverseSubsequences, lengths: &[u8]) -> f64 {
    let n = u64::from(desc.input.sizes()[desc.axis as usize]);
    let width = desc.sequence_lengths.data_type().size_in_bytes() as usize;
    let lanes = desc.input.element_count() / n.max(1);
    let slots = (lengths.len() / width) as u64;
    let moved: u64 = lengths
        .chunks(width)
        .map(|l| {
            let mut bytes = [0u8; 8];
            bytes[..width].copy_from_slice(l);
            2 * (u64::from_le_bytes(bytes).min(n) / 2)
        })
        .sum();
    (moved * (lanes / slots)) as f64 / desc.input.element_count() as f64
}

/// A row in place: the tuning's choice against the copy kernel and the
/// out-of-place operator, and the other families that can serve it.
struct Row {
    fill: f64,
    per_copy_kernel: f64,
    per_copy_kernel_quartiles: [f64; 2],
    per_out_of_place: f64,
    copy_kernel_gbps: f64,
    verified: bool,
    candidates: Vec<Candidate>,
    /// `--candidates`: autotune's plan in place, and its compile's milliseconds.
    tuned: Option<(Candidate, f64)>,
}

/// One row: in place, verified, then its time ÷ the copy kernel's and ÷ the
/// out-of-place operator's, medians over rounds; and the copy kernel's GB/s.
fn row(
    bench: &Bench,
    desc: &ReverseSubsequences,
    compiled: &CompiledInPlace,
    (tensor_bytes, length_bytes): (&[u8], &[u8]),
    copy: usize,
    seconds: f64,
) -> Row {
    let in_place = compiled.descriptor();
    let others = candidates::others(
        &bench.forced,
        compiled.variant(),
        |gpu| {
            gpu.compile_in_place(in_place)
                .expect("compile a candidate in place")
        },
        CompiledInPlace::variant,
    );
    let tuned = bench.tuned.as_ref().map(|gpu| {
        let start = std::time::Instant::now();
        let tuned = gpu
            .compile_in_place(in_place)
            .expect("compile in place under autotune");
        (tuned, start.elapsed().as_secs_f64() * 1e3)
    });
    let all: Vec<&CompiledInPlace> = std::iter::once(compiled)
        .chain(&others)
        .chain(tuned.as_ref().map(|(tuned, _)| tuned))
        .collect();
    let tensor = bench.storage(tensor_bytes);
    let lengths = bench.storage(length_bytes);
    let ops: Vec<Box<Record>> = all
        .iter()
        .map(|compiled| {
            let (tensor, lengths) = (&tensor, &lengths);
            Box::new(move |encoder: &mut wgpu::CommandEncoder| {
                compiled
                    .record(
                        encoder,
                        tensor.as_entire_buffer_binding(),
                        lengths.as_entire_buffer_binding(),
                    )
                    .expect("record in place")
            }) as Box<Record>
        })
        .collect();
    let out_of_place = bench.gpu.compile(desc).expect("compile");
    let out_bytes = desc.output.min_size_in_bytes().next_multiple_of(4) as usize;
    let output = bench.storage(&vec![0; out_bytes]);
    let operator = |encoder: &mut wgpu::CommandEncoder| {
        out_of_place
            .record(
                encoder,
                tensor.as_entire_buffer_binding(),
                lengths.as_entire_buffer_binding(),
                output.as_entire_buffer_binding(),
            )
            .expect("record")
    };
    let bytes = desc.input.element_count() * u64::from(desc.input.data_type().size_in_bytes());
    let copies = bench.copy_buffers(bytes);
    let [copy_src, copy_dst] = &*copies;
    let copy_kernel = |encoder: &mut wgpu::CommandEncoder| {
        bench.copy_kernel(copy, copy_src, copy_dst, bytes, encoder)
    };
    let mut runs: Vec<&Record> = ops.iter().map(|op| &**op).collect();
    runs.extend([&copy_kernel as &Record, &operator]);
    // The host computes the reference while the device times the row; each op
    // is verified after, from the tensor's starting bytes.
    let (rounds, expected) = std::thread::scope(|scope| {
        let expected = scope.spawn(|| {
            let mut expected = tensor_bytes.to_vec();
            reference::reverse_in_place_bytes(in_place, &mut expected, length_bytes)
                .expect("reference");
            expected
        });
        let rounds = bench.time_rounds(seconds, &runs);
        (rounds, expected.join().expect("the reference"))
    });
    let verified: Vec<bool> = ops
        .iter()
        .map(|op| verify(bench, op, &tensor, tensor_bytes, &expected))
        .collect();
    drop(expected);
    let [kernel_rounds, operator_rounds] = [&rounds[ops.len()], &rounds[ops.len() + 1]];
    let ratios = |op: &[f64], other: &[f64]| -> Vec<f64> {
        op.iter().zip(other).map(|(a, b)| a / b).collect()
    };
    let per_round = |op: &[f64], other: &[f64]| median(ratios(op, other));
    let gbps = |rounds: &[f64]| bytes as f64 / median(rounds.to_vec()) / 1e9;
    let candidate = |((c, times), &verified): ((&&CompiledInPlace, &Vec<f64>), &bool)| Candidate {
        variant: c.variant().name(),
        word_bits: c.key().access_bits,
        op_gbps: gbps(times),
        per_copy_kernel: per_round(times, kernel_rounds),
        verified,
    };
    let mut candidates: Vec<Candidate> = all
        .iter()
        .zip(&rounds)
        .zip(&verified)
        .skip(1)
        .map(candidate)
        .collect();
    let tuned_ms = tuned.as_ref().map(|(_, ms)| *ms);
    let tuned = tuned_ms.map(|ms| (candidates.pop().expect("autotune's plan"), ms));
    Row {
        fill: fill(desc, length_bytes),
        per_copy_kernel: per_round(&rounds[0], kernel_rounds),
        per_copy_kernel_quartiles: quartiles(ratios(&rounds[0], kernel_rounds)),
        per_out_of_place: per_round(&rounds[0], operator_rounds),
        copy_kernel_gbps: gbps(kernel_rounds),
        verified: verified[0],
        candidates,
        tuned,
    }
}

/// Writes `start` into `tensor`, runs `op` once on it and compares it with
/// `expected`, the reference's in-place twin on `start`.
fn verify(
    bench: &Bench,
    op: &Record,
    tensor: &wgpu::Buffer,
    start: &[u8],
    expected: &[u8],
) -> bool {
    bench.gpu.queue().write_buffer(tensor, 0, start);
    let mut encoder = bench
        .gpu
        .device()
        .create_command_encoder(&Default::default());
    op(&mut encoder);
    bench.gpu.queue().submit([encoder.finish()]);
    let actual = bench.read_back(tensor);
    actual[..expected.len()] == expected[..]
}

/// Every width and layout of `args` in place at `bytes`, printed as it comes;
/// whether every row matched the reference, and each row as JSON.
pub(crate) fn in_place_table(
    bench: &Bench,
    args: &Args,
    bytes: u64,
    copy: usize,
) -> (bool, Vec<String>) {
    println!(
        "{:>5} {:<16} {:<6} {:>5} {:>20} {:>10} {:>11} {:>9} {:>12}  verified",
        "width",
        "layout",
        "L",
        "fill",
        "sizes (axis)",
        "variant",
        "kernel GB/s",
        "t/kernel",
        "t/out-of-place"
    );
    let mut all = true;
    let mut json = Vec::new();
    for data_type in args.widths() {
        let width = data_type.size_in_bytes();
        let elements = (bytes / u64::from(width)) as u32;
        for layout in LAYOUTS.into_iter().filter(|l| args.wants_layout(l)) {
            let desc = descriptor(layout, data_type, elements);
            let in_place =
                ReverseInPlace::new(desc.input.clone(), desc.sequence_lengths.clone(), desc.axis);
            let compiled = match bench.gpu.compile_in_place(&in_place) {
                Err(error @ revseq::Error::InPlaceTooLarge { .. }) => {
                    println!("{width:>4}B {layout:<16} refused: {error}");
                    continue;
                }
                compiled => compiled.expect("compile in place"),
            };
            let mark = if bench.forced.is_empty() { "" } else { "*" };
            let variant = match compiled.dispatch_count() {
                1 => format!("{}{mark}", compiled.variant().name()),
                pieces => format!("{}×{pieces}{mark}", compiled.variant().name()),
            };
            let mut sets = vec![Lengths::Uniform, Lengths::Full];
            if args.padded && is_onnx(layout) {
                sets.push(Lengths::Padded);
            }
            // One input for every set of lengths: 256 MiB of it take the host
            // most of a second.
            let (tensor_bytes, rng) = host_input(&desc);
            for lengths in sets {
                let length_bytes = lengths.bytes(&desc, &mut rng.clone());
                let tensors = (&tensor_bytes[..], &length_bytes[..]);
                let r = row(bench, &desc, &compiled, tensors, copy, args.seconds);
                all &= r.verified
                    && r.candidates
                        .iter()
                        .chain(r.tuned.as_ref().map(|(c, _)| c))
                        .all(|c| c.verified);
                let sizes = format!("{:?} ({})", desc.input.sizes(), desc.axis);
                println!(
                    "{width:>4}B {layout:<16} {:<6} {:>5.2} {sizes:>20} {variant:>10} {:>11.2} {:>8.2}× {:>11.2}×  {}",
                    lengths.name(),
                    r.fill,
                    r.copy_kernel_gbps,
                    r.per_copy_kernel,
                    r.per_out_of_place,
                    if r.verified { "yes" } else { "NO" }
                );
                let line = |label: &str, c: &Candidate, note: &str| {
                    println!(
                        "{label:>55} {:>10} {:>11} {:>8.2}× {:>12}  {}{note}",
                        c.variant,
                        "",
                        c.per_copy_kernel,
                        "",
                        if c.verified { "yes" } else { "NO" }
                    );
                };
                for c in &r.candidates {
                    line("", c, "");
                }
                if let Some((c, ms)) = &r.tuned {
                    line("autotune:", c, &format!(", compile {ms:.1} ms"));
                }
                json.push(format!(
                    "    {{\"width\": {width}, \"layout\": \"{layout}\", \"lengths\": \"{}\", \"fill\": {:.4}, \"sizes\": {:?}, \"axis\": {}, \"variant\": \"{}\", \"dispatches\": {}, \"copy_kernel_gbps\": {:.4}, \"time_per_copy_kernel\": {:.4}, \"time_per_copy_kernel_quartiles\": [{:.4}, {:.4}], \"time_per_out_of_place\": {:.4}, \"verified\": {}, \"candidates\": {}, \"tuned\": {}}}",
                    lengths.name(),
                    r.fill,
                    desc.input.sizes(),
                    desc.axis,
                    compiled.variant().name(),
                    compiled.dispatch_count(),
                    r.copy_kernel_gbps,
                    r.per_copy_kernel,
                    r.per_copy_kernel_quartiles[0],
                    r.per_copy_kernel_quartiles[1],
                    r.per_out_of_place,
                    r.verified,
                    candidates_json(&r.candidates),
                    tuned_json(r.tuned.as_ref())
                ));
            }
        }
    }
    (all, json)
}
