//! The table's rows: each operator verified against the reference, then timed
//! beside both copies; printed, and written as JSON.
use std::fmt::Write as _;

use revseq::{reference, CompiledReverse, Gpu, ReverseSubsequences, Variant};

use crate::bench::{median, off_rounds, quartiles, Bench, Record};
use crate::candidates;
use crate::cli::Args;
use crate::layouts::{descriptor, host_tensors, is_onnx, Lengths, LAYOUTS};
use crate::windows::WindowedRow;
use crate::yardstick::CopyKernel;

/// A timed row.
pub(crate) struct Row {
    pub(crate) width: u32,
    pub(crate) layout: String,
    pub(crate) lengths: Lengths,
    pub(crate) sizes: Vec<u32>,
    pub(crate) axis: u32,
    pub(crate) variant: &'static str,
    /// Bits per word the operator's kernel loads and stores (32 or 64).
    pub(crate) word_bits: u32,
    pub(crate) op_gbps: f64,
    pub(crate) copy_kernel_gbps: f64,
    pub(crate) copy_buffer_gbps: f64,
    /// The median over rounds of the operator's time ÷ each copy's in the round.
    pub(crate) per_copy_kernel: f64,
    /// The quartiles of those per-round ratios to the copy kernel.
    pub(crate) per_copy_kernel_quartiles: [f64; 2],
    pub(crate) per_copy_buffer: f64,
    /// Rounds whose copy-kernel time was more than 25% off its median, of all.
    pub(crate) off_rounds: [usize; 2],
    pub(crate) verified: bool,
    /// `--candidates`: the other families that can serve the row, timed in the
    /// same rounds.
    pub(crate) candidates: Vec<Candidate>,
    /// `--candidates`: the plan autotune chose, timed in the same rounds, and
    /// the milliseconds its `compile` took (the timing of every candidate
    /// included, where its class was new).
    pub(crate) tuned: Option<(Candidate, f64)>,
    /// `--recovery`, where more than one family serves the row.
    pub(crate) recovery: Option<Recovery>,
}

/// Autotune from a static choice forced to the row's slowest family: each
/// family with its time ÷ the copy kernel's from the row's rounds.
pub(crate) struct Recovery {
    pub(crate) slowest: (&'static str, f64),
    pub(crate) chosen: (&'static str, f64),
    pub(crate) fastest: (&'static str, f64),
    /// Milliseconds the compile took, the timing of every candidate included.
    pub(crate) compile_ms: f64,
}

impl Recovery {
    /// Whether autotune found the fastest family, or one within 10% of it.
    pub(crate) fn recovered(&self) -> bool {
        self.chosen.1 <= self.fastest.1 * 1.10
    }
}

/// A family timed beside the tuning's choice, in the same rounds.
pub(crate) struct Candidate {
    pub(crate) variant: &'static str,
    pub(crate) word_bits: u32,
    pub(crate) op_gbps: f64,
    /// The median over rounds of its time ÷ the copy kernel's in the round.
    pub(crate) per_copy_kernel: f64,
    pub(crate) verified: bool,
}

/// Device tensors and the host bytes they were filled from.
pub(crate) struct Prepared {
    pub(crate) input: wgpu::Buffer,
    pub(crate) lengths: wgpu::Buffer,
    pub(crate) output: wgpu::Buffer,
    pub(crate) input_bytes: Vec<u8>,
    pub(crate) length_bytes: Vec<u8>,
}

impl Bench {
    /// Device tensors for `desc` with `lengths`, filled the same way every run.
    pub(crate) fn prepare(&self, desc: &ReverseSubsequences, lengths: Lengths) -> Prepared {
        let (input_bytes, length_bytes) = host_tensors(desc, lengths);
        let out_size = desc.output.min_size_in_bytes();
        let output = vec![0; out_size.next_multiple_of(4) as usize];
        let [input, output] = match self.storage_only {
            true => [
                self.buffer(&input_bytes, wgpu::BufferUsages::empty()),
                self.buffer(&output, wgpu::BufferUsages::COPY_SRC),
            ],
            false => [self.storage(&input_bytes), self.storage(&output)],
        };
        Prepared {
            input,
            lengths: self.storage(&length_bytes),
            output,
            input_bytes,
            length_bytes,
        }
    }

    /// Records `compiled` on `tensors`.
    pub(crate) fn op<'a>(
        compiled: &'a CompiledReverse,
        tensors: &'a Prepared,
    ) -> impl Fn(&mut wgpu::CommandEncoder) + 'a {
        move |encoder| {
            compiled
                .record(
                    encoder,
                    tensors.input.as_entire_buffer_binding(),
                    tensors.lengths.as_entire_buffer_binding(),
                    tensors.output.as_entire_buffer_binding(),
                )
                .expect("record")
        }
    }

    /// The reference's output for `desc` on `tensors`.
    pub(crate) fn expected(&self, desc: &ReverseSubsequences, tensors: &Prepared) -> Vec<u8> {
        expected(desc, &tensors.input_bytes, &tensors.length_bytes)
    }

    /// Runs `op` once and compares the output with `expected`, the reference's.
    pub(crate) fn verify(&self, tensors: &Prepared, op: &Record, expected: &[u8]) -> bool {
        let mut encoder = self
            .gpu
            .device()
            .create_command_encoder(&Default::default());
        // `--storage-only` outputs, which cannot be cleared, start zeroed.
        if tensors
            .output
            .usage()
            .contains(wgpu::BufferUsages::COPY_DST)
        {
            encoder.clear_buffer(&tensors.output, 0, None);
        }
        op(&mut encoder);
        self.gpu.queue().submit([encoder.finish()]);
        let actual = self.read_back(&tensors.output);
        actual[..expected.len()] == expected[..]
    }

    /// Verifies `desc` with `lengths` against the reference, then times it beside
    /// both copies; with `--candidates`, every other family that can serve it
    /// too, verified and timed in the same rounds.
    pub(crate) fn row(
        &self,
        layout: &str,
        desc: &ReverseSubsequences,
        lengths: Lengths,
        copy: usize,
        seconds: f64,
    ) -> Row {
        let compiled: CompiledReverse = self.gpu.compile(desc).expect("compile");
        let others = candidates::others(
            &self.forced,
            compiled.variant(),
            |gpu| gpu.compile(desc).expect("compile a candidate"),
            CompiledReverse::variant,
        );
        let tuned = self.tuned.as_ref().map(|gpu| {
            let start = std::time::Instant::now();
            let tuned = gpu.compile(desc).expect("compile under autotune");
            (tuned, start.elapsed().as_secs_f64() * 1e3)
        });
        let all: Vec<&CompiledReverse> = std::iter::once(&compiled)
            .chain(&others)
            .chain(tuned.as_ref().map(|(tuned, _)| tuned))
            .collect();
        let tensors = self.prepare(desc, lengths);
        let ops: Vec<Box<Record>> = all
            .iter()
            .map(|c| Box::new(Self::op(c, &tensors)) as Box<Record>)
            .collect();

        // Both copies move the tensor's element bytes, densely.
        let bytes =
            desc.output.element_count() * u64::from(desc.output.data_type().size_in_bytes());
        let copies = self.copy_buffers(bytes);
        let [copy_src, copy_dst] = &*copies;
        let copy_kernel = |encoder: &mut wgpu::CommandEncoder| {
            self.copy_kernel(copy, copy_src, copy_dst, bytes, encoder)
        };
        let copy_buffer = |encoder: &mut wgpu::CommandEncoder| {
            encoder.copy_buffer_to_buffer(copy_src, 0, copy_dst, 0, bytes)
        };
        let mut runs: Vec<&Record> = ops.iter().map(|op| &**op).collect();
        runs.extend([&copy_kernel as &Record, &copy_buffer]);
        // The host computes the reference while the device times the row; each
        // op is verified after.
        let (input, length_bytes) = (&tensors.input_bytes, &tensors.length_bytes);
        let (rounds, expected) = std::thread::scope(|scope| {
            let expected = scope.spawn(|| expected(desc, input, length_bytes));
            let rounds = self.time_rounds(seconds, &runs);
            (rounds, expected.join().expect("the reference"))
        });
        let verified: Vec<bool> = ops
            .iter()
            .map(|op| self.verify(&tensors, op, &expected))
            .collect();
        drop(expected);
        let [kernel_rounds, buffer_rounds] = [&rounds[ops.len()], &rounds[ops.len() + 1]];
        let candidate = |(c, times): (&&CompiledReverse, &Vec<f64>), verified: bool| Candidate {
            variant: c.variant().name(),
            word_bits: c.key().access_bits,
            op_gbps: gbps_of(bytes, times),
            per_copy_kernel: median(ratios_of(times, kernel_rounds)),
            verified,
        };
        let gbps = |rounds: &[f64]| gbps_of(bytes, rounds);
        let ratios = ratios_of;
        let per_round = |op: &[f64], copy: &[f64]| median(ratios(op, copy));
        let candidates: Vec<Candidate> = all
            .iter()
            .zip(&rounds)
            .zip(&verified)
            .skip(1)
            .take(others.len())
            .map(|(c, &verified)| candidate(c, verified))
            .collect();
        let tuned = tuned.as_ref().map(|(_, ms)| {
            let last = all.len() - 1;
            (candidate((&all[last], &rounds[last]), verified[last]), *ms)
        });
        let families: Vec<(&'static str, f64)> = std::iter::once((
            compiled.variant().name(),
            per_round(&rounds[0], kernel_rounds),
        ))
        .chain(
            candidates
                .iter()
                .map(|c: &Candidate| (c.variant, c.per_copy_kernel)),
        )
        .collect();
        let recovery = match (&self.tuned, self.recovery && families.len() > 1) {
            (Some(tuned), true) => Some(recover(tuned, desc, &families)),
            _ => None,
        };
        Row {
            width: desc.input.data_type().size_in_bytes(),
            layout: layout.to_string(),
            lengths,
            sizes: desc.input.sizes().to_vec(),
            axis: desc.axis,
            variant: compiled.variant().name(),
            word_bits: compiled.key().access_bits,
            op_gbps: gbps(&rounds[0]),
            copy_kernel_gbps: gbps(kernel_rounds),
            copy_buffer_gbps: gbps(buffer_rounds),
            per_copy_kernel: per_round(&rounds[0], kernel_rounds),
            per_copy_kernel_quartiles: quartiles(ratios(&rounds[0], kernel_rounds)),
            per_copy_buffer: per_round(&rounds[0], buffer_rounds),
            off_rounds: [off_rounds(kernel_rounds), kernel_rounds.len()],
            verified: verified[0],
            candidates,
            tuned,
            recovery,
        }
    }
}

/// `desc` compiled by autotune on `tuned` with its static choice forced to
/// the slowest of `families` (each with its ratio to the copy kernel).
fn recover(tuned: &Gpu, desc: &ReverseSubsequences, families: &[(&'static str, f64)]) -> Recovery {
    let by_ratio = |a: &&(&str, f64), b: &&(&str, f64)| a.1.total_cmp(&b.1);
    let slowest = *families.iter().max_by(by_ratio).expect("a family");
    let fastest = *families.iter().min_by(by_ratio).expect("a family");
    let variant = Variant::ALL.into_iter().find(|v| v.name() == slowest.0);
    let start = std::time::Instant::now();
    let compiled = tuned
        .with_static_variant(variant)
        .compile(desc)
        .expect("compile under autotune");
    let compile_ms = start.elapsed().as_secs_f64() * 1e3;
    let name = compiled.variant().name();
    let chosen = *families
        .iter()
        .find(|(family, _)| *family == name)
        .expect("autotune runs a family that serves the row");
    Recovery {
        slowest,
        chosen,
        fastest,
        compile_ms,
    }
}

/// GB/s of `bytes` moved in the median of `rounds` seconds.
fn gbps_of(bytes: u64, rounds: &[f64]) -> f64 {
    bytes as f64 / median(rounds.to_vec()) / 1e9
}

/// Each round's ratio of `op` to `copy`, taken within the round: the
/// machine's speed drifts between rounds (another tenant shares the cores)
/// more than within one.
fn ratios_of(op: &[f64], copy: &[f64]) -> Vec<f64> {
    op.iter().zip(copy).map(|(op, c)| op / c).collect()
}

/// The reference's output for `desc` on `input` and `lengths`.
pub(crate) fn expected(desc: &ReverseSubsequences, input: &[u8], lengths: &[u8]) -> Vec<u8> {
    let mut expected = vec![0u8; desc.output.min_size_in_bytes() as usize];
    reference::reverse_subsequences_bytes(desc, input, lengths, &mut expected).expect("reference");
    expected
}

pub(crate) fn print_header() {
    println!(
        "{:>5} {:<16} {:>20} {:<7} {:>5} {:>8} {:>8} {:>8} {:>9} {:>9} {:>6}  verified",
        "width",
        "layout",
        "sizes (axis)",
        "variant",
        "words",
        "op GB/s",
        "kernel",
        "buffer",
        "t/kernel",
        "t/buffer",
        "off"
    );
}

pub(crate) fn print_row(row: &Row) {
    // With candidates, the tuning's choice is marked.
    let mark = if row.candidates.is_empty() { "" } else { "*" };
    println!(
        "{:>4}B {:<16} {:>20} {:<7} {:>5} {:>8.2} {:>8.2} {:>8.2} {:>8.2}× {:>8.2}× {:>6}  {}",
        row.width,
        row.layout,
        format!("{:?} ({})", row.sizes, row.axis),
        format!("{}{mark}", row.variant),
        row.word_bits,
        row.op_gbps,
        row.copy_kernel_gbps,
        row.copy_buffer_gbps,
        row.per_copy_kernel,
        row.per_copy_buffer,
        format!("{}/{}", row.off_rounds[0], row.off_rounds[1]),
        if row.verified { "yes" } else { "NO" }
    );
    let line = |label: &str, c: &Candidate, note: &str| {
        println!(
            "{label:>43} {:<7} {:>5} {:>8.2} {:>8} {:>8} {:>8.2}× {:>9} {:>6}  {}{note}",
            c.variant,
            c.word_bits,
            c.op_gbps,
            "",
            "",
            c.per_copy_kernel,
            "",
            "",
            if c.verified { "yes" } else { "NO" }
        );
    };
    for c in &row.candidates {
        line("", c, "");
    }
    if let Some((c, ms)) = &row.tuned {
        line("autotune:", c, &format!(", compile {ms:.1} ms"));
    }
    if let Some(r) = &row.recovery {
        println!(
            "{:>43} static forced to {} ({:.2}×): autotune {} ({:.2}×), the fastest {} ({:.2}×), compile {:.1} ms: {}",
            "recovery:",
            r.slowest.0,
            r.slowest.1,
            r.chosen.0,
            r.chosen.1,
            r.fastest.0,
            r.fastest.1,
            r.compile_ms,
            if r.recovered() { "recovered" } else { "MISSED" }
        );
    }
}

/// `s` as a JSON string.
pub(crate) fn json_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Autotune's plan and its compile's milliseconds as JSON, `null` without.
pub(crate) fn tuned_json(tuned: Option<&(Candidate, f64)>) -> String {
    match tuned {
        Some((tuned, ms)) => format!(
            "{{\"candidate\": {}, \"compile_ms\": {ms:.2}}}",
            candidates_json(std::slice::from_ref(tuned))
        ),
        None => "null".into(),
    }
}

/// `candidates` as a JSON array.
pub(crate) fn candidates_json(candidates: &[Candidate]) -> String {
    let items: Vec<String> = candidates
        .iter()
        .map(|c| {
            format!(
                "{{\"variant\": \"{}\", \"word_bits\": {}, \"op_gbps\": {:.4}, \"time_per_copy_kernel\": {:.4}, \"verified\": {}}}",
                c.variant, c.word_bits, c.op_gbps, c.per_copy_kernel, c.verified
            )
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// The table's rows, the windowed rows and the in-place rows as one JSON
/// document, with the adapter, the tensors' MiB, the date and the copy kernel
/// they were timed beside; and its chart (`chart.rs`) at `svg`.
#[expect(
    clippy::too_many_arguments,
    reason = "the run's adapter, size and yardstick, its three tables and the chart's path"
)]
pub(crate) fn write_json(
    path: &str,
    svg: Option<&str>,
    adapter: &wgpu::AdapterInfo,
    mib: u64,
    copy: CopyKernel,
    rows: &[Row],
    windowed: &[WindowedRow],
    in_place: &[String],
) {
    let mut json = String::new();
    let _ = write!(
        json,
        "{{\n  \"adapter\": {{\"name\": {}, \"backend\": \"{:?}\", \"device_type\": \"{:?}\", \"driver\": {}, \"driver_info\": {}}},\n  \"mib\": {}, \"date\": \"{}\",\n  \"copy_kernel_vectors_per_invocation\": {}, \"copy_kernel_interleaved_over\": {}, \"copy_kernel_word_bits\": {},\n  \"rows\": [\n",
        json_string(&adapter.name),
        adapter.backend,
        adapter.device_type,
        json_string(&adapter.driver),
        json_string(&adapter.driver_info),
        mib,
        crate::chart::today(),
        copy.steps,
        copy.lanes,
        copy.word_bits
    );
    let rows: Vec<String> = rows
        .iter()
        .map(|row| {
            format!(
                "    {{\"width\": {}, \"layout\": \"{}\", \"lengths\": \"{}\", \"sizes\": {:?}, \"axis\": {}, \"variant\": \"{}\", \"word_bits\": {}, \"op_gbps\": {:.4}, \"copy_kernel_gbps\": {:.4}, \"copy_buffer_gbps\": {:.4}, \"time_per_copy_kernel\": {:.4}, \"time_per_copy_kernel_quartiles\": [{:.4}, {:.4}], \"time_per_copy_buffer\": {:.4}, \"baseline_off_rounds\": {}, \"rounds\": {}, \"verified\": {}, \"candidates\": {}, \"tuned\": {}}}",
                row.width,
                row.layout,
                row.lengths.name(),
                row.sizes,
                row.axis,
                row.variant,
                row.word_bits,
                row.op_gbps,
                row.copy_kernel_gbps,
                row.copy_buffer_gbps,
                row.per_copy_kernel,
                row.per_copy_kernel_quartiles[0],
                row.per_copy_kernel_quartiles[1],
                row.per_copy_buffer,
                row.off_rounds[0],
                row.off_rounds[1],
                row.verified,
                candidates_json(&row.candidates),
                tuned_json(row.tuned.as_ref())
            )
        })
        .collect();
    json.push_str(&rows.join(",\n"));
    json.push_str("\n  ],\n  \"windowed\": [\n");
    let windowed: Vec<String> = windowed
        .iter()
        .map(|row| {
            format!(
                "    {{\"width\": 4, \"layout\": \"{}\", \"variant\": \"{}\", \"dispatches\": {}, \"whole_gbps\": {:.4}, \"windowed_gbps\": {:.4}, \"verified\": {}}}",
                row.layout,
                row.variant,
                row.dispatches,
                row.whole_gbps,
                row.windowed_gbps,
                row.verified,
            )
        })
        .collect();
    json.push_str(&windowed.join(",\n"));
    json.push_str("\n  ],\n  \"in_place\": [\n");
    json.push_str(&in_place.join(",\n"));
    json.push_str("\n  ]\n}\n");
    std::fs::write(path, json).unwrap_or_else(|e| panic!("writing {path}: {e}"));
    if let Some(svg) = svg {
        crate::chart::draw(path, None, svg);
    }
}

/// Every width and layout of `args` at `bytes`, verified and timed beside copy
/// kernel `copy`, each row printed as it comes; with `--padded`, then the ONNX
/// layouts with the lengths of sorted padded batches.
pub(crate) fn table(bench: &Bench, args: &Args, bytes: u64, copy: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut sets = vec![Lengths::Spread];
    if args.padded {
        sets.push(Lengths::Padded);
    }
    for lengths in sets {
        if lengths != Lengths::Spread {
            println!("\nlengths of sorted padded batches ({})", lengths.name());
        }
        for data_type in args.widths() {
            let elements = (bytes / u64::from(data_type.size_in_bytes())) as u32;
            for layout in LAYOUTS.into_iter().filter(|l| args.wants_layout(l)) {
                if lengths == Lengths::Padded && !is_onnx(layout) {
                    continue;
                }
                let desc = descriptor(layout, data_type, elements);
                let row = bench.row(layout, &desc, lengths, copy, args.seconds);
                print_row(&row);
                rows.push(row);
            }
        }
    }
    rows
}
