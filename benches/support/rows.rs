//! The table's rows: each operator verified against the reference, then timed
//! beside both copies; printed, and written as JSON.
use std::fmt::Write as _;

use revseq::{reference, CompiledReverse, ReverseSubsequences};

use crate::bench::{median, off_rounds, Bench, Record};
use crate::cli::Args;
use crate::layouts::{descriptor, host_tensors, LAYOUTS};
use crate::windows::WindowedRow;
use crate::yardstick::CopyKernel;

/// A timed row.
pub(crate) struct Row {
    pub(crate) width: u32,
    pub(crate) layout: String,
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
    pub(crate) per_copy_buffer: f64,
    /// Rounds whose copy-kernel time was more than 25% off its median, of all.
    pub(crate) off_rounds: [usize; 2],
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
    /// Device tensors for `desc`, filled the same way every run.
    pub(crate) fn prepare(&self, desc: &ReverseSubsequences) -> Prepared {
        let (input_bytes, length_bytes) = host_tensors(desc);
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

    /// Runs `op` once and compares the output with the reference's.
    pub(crate) fn verify(
        &self,
        desc: &ReverseSubsequences,
        tensors: &Prepared,
        op: &Record,
    ) -> bool {
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
        let mut expected = vec![0u8; desc.output.min_size_in_bytes() as usize];
        reference::reverse_subsequences_bytes(
            desc,
            &tensors.input_bytes,
            &tensors.length_bytes,
            &mut expected,
        )
        .expect("reference");
        actual[..expected.len()] == expected[..]
    }

    /// Verifies `desc` against the reference, then times it beside both copies.
    pub(crate) fn row(
        &self,
        layout: &str,
        desc: &ReverseSubsequences,
        copy: usize,
        seconds: f64,
    ) -> Row {
        let compiled: CompiledReverse = self.gpu.compile(desc).expect("compile");
        let tensors = self.prepare(desc);
        let op = Self::op(&compiled, &tensors);
        let verified = self.verify(desc, &tensors, &op);

        // Both copies move the tensor's element bytes, densely.
        let bytes =
            desc.output.element_count() * u64::from(desc.output.data_type().size_in_bytes());
        let copy_src = self.storage(&vec![1; bytes as usize]);
        let copy_dst = self.storage(&vec![0; bytes as usize]);
        let copy_kernel = |encoder: &mut wgpu::CommandEncoder| {
            self.copy_kernel(copy, &copy_src, &copy_dst, bytes, encoder)
        };
        let copy_buffer = |encoder: &mut wgpu::CommandEncoder| {
            encoder.copy_buffer_to_buffer(&copy_src, 0, &copy_dst, 0, bytes)
        };
        let rounds = self.time_rounds(seconds, &[&op, &copy_kernel, &copy_buffer]);
        let times: Vec<f64> = rounds.iter().cloned().map(median).collect();
        let gbps = |t: f64| bytes as f64 / t / 1e9;
        // Each round's ratio, taken within the round: the machine's speed drifts
        // between rounds (another tenant shares the cores) more than within one.
        let per_round =
            |copy: &[f64]| median(rounds[0].iter().zip(copy).map(|(op, c)| op / c).collect());
        Row {
            width: desc.input.data_type().size_in_bytes(),
            layout: layout.to_string(),
            sizes: desc.input.sizes().to_vec(),
            axis: desc.axis,
            variant: compiled.variant().name(),
            word_bits: compiled.key().access_bits,
            op_gbps: gbps(times[0]),
            copy_kernel_gbps: gbps(times[1]),
            copy_buffer_gbps: gbps(times[2]),
            per_copy_kernel: per_round(&rounds[1]),
            per_copy_buffer: per_round(&rounds[2]),
            off_rounds: [off_rounds(&rounds[1]), rounds[1].len()],
            verified,
        }
    }
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
    println!(
        "{:>4}B {:<16} {:>20} {:<7} {:>5} {:>8.2} {:>8.2} {:>8.2} {:>8.2}× {:>8.2}× {:>6}  {}",
        row.width,
        row.layout,
        format!("{:?} ({})", row.sizes, row.axis),
        row.variant,
        row.word_bits,
        row.op_gbps,
        row.copy_kernel_gbps,
        row.copy_buffer_gbps,
        row.per_copy_kernel,
        row.per_copy_buffer,
        format!("{}/{}", row.off_rounds[0], row.off_rounds[1]),
        if row.verified { "yes" } else { "NO" }
    );
}

pub(crate) fn write_json(
    path: &str,
    adapter: &wgpu::AdapterInfo,
    copy: CopyKernel,
    rows: &[Row],
    windowed: &[WindowedRow],
) {
    let escape = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut json = String::new();
    let _ = write!(
        json,
        "{{\n  \"adapter\": {{\"name\": \"{}\", \"backend\": \"{:?}\", \"device_type\": \"{:?}\", \"driver\": \"{}\", \"driver_info\": \"{}\"}},\n  \"copy_kernel_vectors_per_invocation\": {}, \"copy_kernel_interleaved_over\": {}, \"copy_kernel_word_bits\": {},\n  \"rows\": [\n",
        escape(&adapter.name),
        adapter.backend,
        adapter.device_type,
        escape(&adapter.driver),
        escape(&adapter.driver_info),
        copy.steps,
        copy.lanes,
        copy.word_bits
    );
    for (i, row) in rows.iter().enumerate() {
        let _ = writeln!(
            json,
            "    {{\"width\": {}, \"layout\": \"{}\", \"sizes\": {:?}, \"axis\": {}, \"variant\": \"{}\", \"word_bits\": {}, \"op_gbps\": {:.4}, \"copy_kernel_gbps\": {:.4}, \"copy_buffer_gbps\": {:.4}, \"time_per_copy_kernel\": {:.4}, \"time_per_copy_buffer\": {:.4}, \"baseline_off_rounds\": {}, \"rounds\": {}, \"verified\": {}}}{}",
            row.width,
            row.layout,
            row.sizes,
            row.axis,
            row.variant,
            row.word_bits,
            row.op_gbps,
            row.copy_kernel_gbps,
            row.copy_buffer_gbps,
            row.per_copy_kernel,
            row.per_copy_buffer,
            row.off_rounds[0],
            row.off_rounds[1],
            row.verified,
            if i + 1 < rows.len() { "," } else { "" }
        );
    }
    json.push_str("  ],\n  \"windowed\": [\n");
    for (i, row) in windowed.iter().enumerate() {
        let _ = writeln!(
            json,
            "    {{\"width\": 4, \"layout\": \"{}\", \"variant\": \"{}\", \"dispatches\": {}, \"whole_gbps\": {:.4}, \"windowed_gbps\": {:.4}, \"verified\": {}}}{}",
            row.layout,
            row.variant,
            row.dispatches,
            row.whole_gbps,
            row.windowed_gbps,
            row.verified,
            if i + 1 < windowed.len() { "," } else { "" }
        );
    }
    json.push_str("  ]\n}\n");
    std::fs::write(path, json).unwrap_or_else(|e| panic!("writing {path}: {e}"));
}

/// Every width and layout of `args` at `bytes`, verified and timed beside copy
/// kernel `copy`, each row printed as it comes.
pub(crate) fn table(bench: &Bench, args: &Args, bytes: u64, copy: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    for data_type in args.widths() {
        let elements = (bytes / u64::from(data_type.size_in_bytes())) as u32;
        for layout in LAYOUTS.into_iter().filter(|l| args.wants_layout(l)) {
            let desc = descriptor(layout, data_type, elements);
            let row = bench.row(layout, &desc, copy, args.seconds);
            print_row(&row);
            rows.push(row);
        }
    }
    rows
}
