//! `--in-place`: the operator in place, each row verified against the
//! reference's in-place twin, then timed beside the copy kernel moving the whole
//! tensor and the out-of-place operator on the same tensor, in the same rounds;
//! lengths uniform in `[0, n]` (about half the axis reversed on average) and all
//! `n` (every element moved).
use revseq::{reference, DataType, ReverseInPlace, ReverseSubsequences};

use crate::bench::{median, Bench, Record};
use crate::cli::Args;
use crate::layouts::{descriptor, host_tensors, Rng, LAYOUTS};

/// Lengths for every slot of `desc`'s lengths tensor: uniform in `[0, n]`, or
/// `n` where `full`.
pub(crate) fn lengths(desc: &ReverseSubsequences, full: bool) -> Vec<u8> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ desc.input.element_count());
    let length_type = desc.sequence_lengths.data_type();
    let n = u64::from(desc.input.sizes()[desc.axis as usize]);
    let slots = desc.sequence_lengths.min_size_in_bytes() / u64::from(length_type.size_in_bytes());
    (0..slots)
        .flat_map(|_| {
            let value = if full { n } else { rng.next() % (n + 1) };
            match length_type {
                DataType::Int64 | DataType::Uint64 => value.to_le_bytes().to_vec(),
                _ => (value as u32).to_le_bytes().to_vec(),
            }
        })
        .collect()
}

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

/// One row: in place, verified, then its time ÷ the copy kernel's and ÷ the
/// out-of-place operator's, medians over rounds; and the copy kernel's GB/s.
fn row(
    bench: &Bench,
    desc: &ReverseSubsequences,
    full: bool,
    copy: usize,
    seconds: f64,
) -> [f64; 4] {
    let in_place =
        ReverseInPlace::new(desc.input.clone(), desc.sequence_lengths.clone(), desc.axis);
    let compiled = bench
        .gpu
        .compile_in_place(&in_place)
        .expect("compile in place");
    let (tensor_bytes, _) = host_tensors(desc);
    let length_bytes = lengths(desc, full);
    let tensor = bench.storage(&tensor_bytes);
    let lengths = bench.storage(&length_bytes);
    let op = |encoder: &mut wgpu::CommandEncoder| {
        compiled
            .record(
                encoder,
                tensor.as_entire_buffer_binding(),
                lengths.as_entire_buffer_binding(),
            )
            .expect("record in place")
    };
    let verified = verify(bench, &op, &tensor, &in_place, &tensor_bytes, &length_bytes);

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
    let copy_src = bench.storage(&vec![1; bytes as usize]);
    let copy_dst = bench.storage(&vec![0; bytes as usize]);
    let copy_kernel = |encoder: &mut wgpu::CommandEncoder| {
        bench.copy_kernel(copy, &copy_src, &copy_dst, bytes, encoder)
    };
    let runs: [&Record; 3] = [&op, &copy_kernel, &operator];
    let rounds = bench.time_rounds(seconds, &runs);
    let per_round =
        |other: &[f64]| median(rounds[0].iter().zip(other).map(|(a, b)| a / b).collect());
    let kernel_gbps = bytes as f64 / median(rounds[1].clone()) / 1e9;
    [
        per_round(&rounds[1]),
        per_round(&rounds[2]),
        kernel_gbps,
        f64::from(u8::from(verified)),
    ]
}

/// Runs `op` once on `tensor`, which holds `start`, and compares it with the
/// reference's in-place twin on `start`.
fn verify(
    bench: &Bench,
    op: &Record,
    tensor: &wgpu::Buffer,
    desc: &ReverseInPlace,
    start: &[u8],
    lengths: &[u8],
) -> bool {
    let mut encoder = bench
        .gpu
        .device()
        .create_command_encoder(&Default::default());
    op(&mut encoder);
    bench.gpu.queue().submit([encoder.finish()]);
    let actual = bench.read_back(tensor);
    let mut expected = start.to_vec();
    reference::reverse_in_place_bytes(desc, &mut expected, lengths).expect("reference");
    actual[..expected.len()] == expected[..]
}

/// Every width and layout of `args` in place at `bytes`, printed as it comes;
/// whether every row matched the reference.
pub(crate) fn in_place_table(bench: &Bench, args: &Args, bytes: u64, copy: usize) -> bool {
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
    for data_type in args.widths() {
        let elements = (bytes / u64::from(data_type.size_in_bytes())) as u32;
        for layout in LAYOUTS.into_iter().filter(|l| args.wants_layout(l)) {
            let desc = descriptor(layout, data_type, elements);
            let in_place =
                ReverseInPlace::new(desc.input.clone(), desc.sequence_lengths.clone(), desc.axis);
            let compiled = match bench.gpu.compile_in_place(&in_place) {
                Err(error @ revseq::Error::InPlaceTooLarge { .. }) => {
                    println!(
                        "{:>4}B {layout:<16} refused: {error}",
                        data_type.size_in_bytes()
                    );
                    continue;
                }
                compiled => compiled.expect("compile in place"),
            };
            let variant = match compiled.dispatch_count() {
                1 => compiled.variant().name().to_string(),
                pieces => format!("{}×{pieces}", compiled.variant().name()),
            };
            for full in [false, true] {
                let [kernel, operator, gbps, verified] =
                    row(bench, &desc, full, copy, args.seconds);
                all &= verified == 1.0;
                println!(
                    "{:>4}B {:<16} {:<6} {:>5.2} {:>20} {:>10} {:>11.2} {:>8.2}× {:>11.2}×  {}",
                    data_type.size_in_bytes(),
                    layout,
                    if full { "n" } else { "U[0,n]" },
                    fill(&desc, &lengths(&desc, full)),
                    format!("{:?} ({})", desc.input.sizes(), desc.axis),
                    variant,
                    gbps,
                    kernel,
                    operator,
                    if verified == 1.0 { "yes" } else { "NO" }
                );
            }
        }
    }
    all
}
