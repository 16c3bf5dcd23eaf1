//! `--gpu-model`: the benchmark's rows under the SIMT model of memory traffic
//! (`revseq::simt`), from the trace build of the real kernels, under
//! `Tuning::Gpu` (warps of 32 and 64) and `Tuning::Cpu` (warps of 32) for
//! comparison, beside a copy kernel of one 16-byte vector an invocation. A model
//! of what a GPU's memory system sees, not a timing.

use std::fmt::Write as _;

use revseq::shaders::Storage;
use revseq::simt::{Model, Report};
use revseq::trace::{kernel_wgsl, trace_wgsl, Trace};
use revseq::{reference, Gpu, ReverseInPlace, ReverseSubsequences, Tuning};

use crate::bench::Bench;
use crate::cli::Args;
use crate::layouts::{descriptor, host_tensors, Lengths, LAYOUTS};

/// Workgroups a trace records, about: spread over the whole dispatch.
const SAMPLED_WORKGROUPS: u32 = 48;

/// One tuning's and warp's figures for one row.
pub(crate) struct Figures {
    pub(crate) tuning: Tuning,
    pub(crate) warp: u32,
    pub(crate) variant: &'static str,
    pub(crate) report: Report,
    /// Launched workgroups without work, as a fraction.
    pub(crate) idle_workgroups: f64,
}

impl Figures {
    pub(crate) fn json(&self) -> String {
        let r = &self.report;
        format!(
            "{{\"tuning\": \"{}\", \"warp\": {}, \"variant\": \"{}\", \"load_efficiency\": {:.4}, \"store_efficiency\": {:.4}, \"memory_instructions_per_512_bytes\": {:.4}, \"bytes_loaded_per_byte\": {:.4}, \"load_bytes_per_instruction\": {:.1}, \"idle_lanes_per_load\": {:.3}, \"idle_lanes_per_store\": {:.3}, \"repeated_load_instructions\": {}, \"divergent_instructions\": {}, \"idle_workgroups\": {:.6}, \"bytes_in_flight_per_thread\": {:.2}}}",
            if self.tuning == Tuning::Gpu { "gpu" } else { "cpu" },
            self.warp,
            self.variant,
            r.loads.efficiency(),
            r.stores.efficiency(),
            r.instructions_per_512_bytes(),
            r.bytes_loaded_per_byte(),
            r.loads.bytes_per_instruction(),
            r.loads.idle_lanes_per_instruction(),
            r.stores.idle_lanes_per_instruction(),
            r.loads.repeated,
            r.divergent,
            self.idle_workgroups,
            r.bytes_in_flight_per_thread(),
        )
    }
}

/// A row of the model's table.
pub(crate) struct ModelRow {
    pub(crate) width: u32,
    pub(crate) layout: String,
    pub(crate) sizes: Vec<u32>,
    pub(crate) axis: u32,
    pub(crate) figures: Vec<Figures>,
    /// Every traced run's output equals the reference's.
    pub(crate) verified: bool,
}

impl ModelRow {
    fn of(
        layout: String,
        desc: &ReverseSubsequences,
        figures: Vec<Figures>,
        verified: bool,
    ) -> ModelRow {
        ModelRow {
            width: desc.input.data_type().size_in_bytes(),
            layout,
            sizes: desc.input.sizes().to_vec(),
            axis: desc.axis,
            figures,
            verified,
        }
    }

    fn gpu32(&self) -> &Figures {
        &self.figures[0]
    }

    /// The targets for `Tuning::Gpu` at warp 32: loads and stores.
    pub(crate) fn targets(&self) -> Option<(f64, f64)> {
        if let Some(layout) = self.layout.strip_prefix("in place ") {
            // In place, rows and runs of 4 to 16 bytes: whole sectors of what
            // the swaps touch.
            let rows_or_runs = [
                "innermost",
                "strided",
                "onnx-batch-major",
                "onnx-time-major",
            ];
            return (self.width >= 4 && rows_or_runs.contains(&layout)).then_some((0.9, 0.9));
        }
        match self.layout.as_str() {
            "innermost" | "strided" | "onnx-batch-major" | "onnx-time-major" => Some((0.9, 0.95)),
            "middle" | "outermost" if self.width >= 4 => Some((0.9, 0.95)),
            "middle" | "outermost" => Some((0.75, 0.95)),
            _ => None,
        }
    }

    pub(crate) fn meets(&self) -> Option<bool> {
        let r = &self.gpu32().report;
        self.targets()
            .map(|(loads, stores)| r.loads.efficiency() >= loads && r.stores.efficiency() >= stores)
    }

    pub(crate) fn json(&self) -> String {
        let figures: Vec<String> = self.figures.iter().map(Figures::json).collect();
        format!(
            "    {{\"width\": {}, \"layout\": \"{}\", \"sizes\": {:?}, \"axis\": {}, \"verified\": {}, \"gpu_model\": [{}]}}",
            self.width,
            self.layout,
            self.sizes,
            self.axis,
            self.verified,
            figures.join(", ")
        )
    }
}

/// What the model needs of one compiled operator: its variant, its launched
/// and idle workgroups, and its trace build, sampling every `every`-th workgroup.
struct Traceable<'a> {
    variant: &'static str,
    workgroups: [u32; 2],
    idle: f64,
    trace: Box<dyn Fn(u32) -> Result<Trace, revseq::Error> + 'a>,
}

/// The figures of the operator `compile` makes under each tuning, and whether
/// every traced output's first bytes equal `expected`.
fn figures<'a>(compile: impl Fn(Tuning) -> Traceable<'a>, expected: &[u8]) -> (Vec<Figures>, bool) {
    let mut figures = Vec::new();
    let mut verified = true;
    for tuning in [Tuning::Gpu, Tuning::Cpu] {
        let op = compile(tuning);
        let [x, y] = op.workgroups;
        let mut every = (x * y / SAMPLED_WORKGROUPS).max(1);
        // Kernels that make many accesses an invocation (`columns`) take a
        // sparser sample.
        let trace = loop {
            match (op.trace)(every) {
                Err(revseq::Error::TraceOverflow { .. }) => every *= 2,
                other => break other.expect("trace"),
            }
        };
        verified &= trace.output[..expected.len()] == expected[..];
        let warps: &[u32] = if tuning == Tuning::Gpu {
            &[32, 64]
        } else {
            &[32]
        };
        for &warp in warps {
            figures.push(Figures {
                tuning,
                warp,
                variant: op.variant,
                report: Model::new(warp).analyze(&trace.accesses),
                idle_workgroups: op.idle,
            });
        }
    }
    (figures, verified)
}

/// Traces `desc` on `gpu` under both tunings and models it.
pub(crate) fn model_row(
    gpu: &Gpu,
    layout: &str,
    desc: &ReverseSubsequences,
    input: &[u8],
    lengths: &[u8],
) -> ModelRow {
    let mut expected = vec![0u8; desc.output.min_size_in_bytes() as usize];
    reference::reverse_subsequences_bytes(desc, input, lengths, &mut expected).expect("reference");
    let ops = [Tuning::Gpu, Tuning::Cpu]
        .map(|tuning| gpu.with_tuning(tuning).compile(desc).expect("compile"));
    let (figures, verified) = figures(
        |tuning| {
            let op = &ops[usize::from(tuning == Tuning::Cpu)];
            Traceable {
                variant: op.variant().name(),
                workgroups: op.workgroups(),
                idle: op.idle_workgroups(),
                trace: Box::new(move |every| op.trace(input, lengths, every)),
            }
        },
        &expected,
    );
    ModelRow::of(layout.to_string(), desc, figures, verified)
}

/// [`model_row`] in place: `desc`'s input reversed in its own buffer.
pub(crate) fn model_in_place_row(
    gpu: &Gpu,
    layout: &str,
    desc: &ReverseSubsequences,
    tensor: &[u8],
    lengths: &[u8],
) -> ModelRow {
    let in_place =
        ReverseInPlace::new(desc.input.clone(), desc.sequence_lengths.clone(), desc.axis);
    let mut expected = tensor.to_vec();
    reference::reverse_in_place_bytes(&in_place, &mut expected, lengths).expect("reference");
    let ops = [Tuning::Gpu, Tuning::Cpu].map(|tuning| {
        let gpu = gpu.with_tuning(tuning);
        gpu.compile_in_place(&in_place).expect("compile")
    });
    let (figures, verified) = figures(
        |tuning| {
            let op = &ops[usize::from(tuning == Tuning::Cpu)];
            Traceable {
                variant: op.variant().name(),
                workgroups: op.workgroups(),
                idle: op.idle_workgroups(),
                trace: Box::new(move |every| op.trace(tensor, lengths, every)),
            }
        },
        &expected,
    );
    ModelRow::of(format!("in place {layout}"), desc, figures, verified)
}

/// The yardstick under the model: a copy of one 16-byte vector an invocation,
/// neighbours on neighbours, through the same storage functions.
pub(crate) fn copy_kernel(gpu: &Gpu, bytes: u64) -> Vec<Figures> {
    traced_copy(
        gpu,
        "store_vec(id, load_vec(id));",
        bytes,
        bytes,
        bytes / 16,
    )
}

/// The same copy of the benchmark's 1-byte `strided` rows (64 bytes at a pitch of
/// 80 in the input, 96 in the output), one vector an invocation: what moving just
/// the tensor's bytes costs, whatever the kernel.
pub(crate) fn strided_copy(gpu: &Gpu, bytes: u64) -> Vec<Figures> {
    let body = "let row = id / 4u;
    store_vec(row * 6u + id % 4u, load_vec(row * 5u + id % 4u));";
    traced_copy(gpu, body, bytes / 64 * 80, bytes / 64 * 96, bytes / 16)
}

/// Traces `body` (after `let id = invocation_index(..)`) over `invocations`.
fn traced_copy(
    gpu: &Gpu,
    body: &str,
    input_bytes: u64,
    output_bytes: u64,
    invocations: u64,
) -> Vec<Figures> {
    let wgsl = kernel_wgsl(body);
    let groups = (invocations / 256) as u32;
    let y = groups.div_ceil(65535);
    let x = groups.div_ceil(y);
    let input = vec![1u8; input_bytes as usize];
    let bytes = output_bytes;
    let every = (groups / SAMPLED_WORKGROUPS).max(1);
    let trace = trace_wgsl(gpu, &wgsl, Storage::Vec4, &[], [x, y], &input, bytes, every)
        .expect("trace the copy kernel");
    [32, 64]
        .map(|warp| Figures {
            tuning: Tuning::Gpu,
            warp,
            variant: "copy",
            report: Model::new(warp).analyze(&trace.accesses),
            idle_workgroups: (u64::from(x) * u64::from(y) - u64::from(groups)) as f64
                / (u64::from(x) * u64::from(y)) as f64,
        })
        .into()
}

pub(crate) fn print_header() {
    println!(
        "{:>5} {:<16} {:<8} {:>6} {:>6} {:>7} {:>7} {:>6} {:>7} {:>6} {:>6} {:>6} | {:<8} {:>6} {:>6} {:>7} | target",
        "width",
        "layout",
        "gpu",
        "loads",
        "stores",
        "instr",
        "loaded",
        "idle",
        "idle wg",
        "flight",
        "w64 ld",
        "w64 st",
        "cpu",
        "loads",
        "stores",
        "instr",
    );
}

pub(crate) fn print_row(width: &str, layout: &str, figures: &[Figures], target: &str) {
    let mut line = String::new();
    let g = &figures[0];
    let r = &g.report;
    let _ = write!(
        line,
        "{width:>5} {layout:<16} {:<8} {:>6.3} {:>6.3} {:>7.2} {:>7.3} {:>6.2} {:>7.4} {:>6.1}",
        g.variant,
        r.loads.efficiency(),
        r.stores.efficiency(),
        r.instructions_per_512_bytes(),
        r.bytes_loaded_per_byte(),
        r.loads.idle_lanes_per_instruction(),
        g.idle_workgroups,
        r.bytes_in_flight_per_thread(),
    );
    if let Some(w64) = figures.get(1) {
        let _ = write!(
            line,
            " {:>6.3} {:>6.3}",
            w64.report.loads.efficiency(),
            w64.report.stores.efficiency()
        );
    }
    if let Some(cpu) = figures.iter().find(|f| f.tuning == Tuning::Cpu) {
        let r = &cpu.report;
        let _ = write!(
            line,
            " | {:<8} {:>6.3} {:>6.3} {:>7.2}",
            cpu.variant,
            r.loads.efficiency(),
            r.stores.efficiency(),
            r.instructions_per_512_bytes()
        );
    } else {
        let _ = write!(line, " | {:<8} {:>6} {:>6} {:>7}", "", "", "", "");
    }
    println!("{line} | {target}");
}

/// `--gpu-model`: the rows under the SIMT model, and whether each meets its target.
pub(crate) fn run(bench: &Bench, args: &Args, info: &wgpu::AdapterInfo) {
    let bytes = args.mib.unwrap_or(16) << 20;
    println!(
        "GPU model of memory traffic, from the trace build of the real kernels (not a timing): warps of 32 invocations \
         and 32-byte sectors under Tuning::Gpu (w64: warps of 64), Tuning::Cpu beside it; loads, stores = sector \
         efficiency (fewest sectors that hold the bytes moved / sectors touched); instr = memory instructions per \
         512 bytes of output; loaded = bytes DRAM delivers per byte of output; idle = idle lanes per load; idle wg = launched workgroups without work; flight = bytes an \
         invocation has outstanding per round trip to memory\n"
    );
    print_header();
    let copy = copy_kernel(&bench.gpu, bytes);
    print_row("16B", "copy (1 vector)", &copy, "");
    let strided = strided_copy(&bench.gpu, bytes);
    print_row("16B", "copy, 1B strided", &strided, "");
    let mut rows = Vec::new();
    for data_type in args.widths() {
        let elements = (bytes / u64::from(data_type.size_in_bytes())) as u32;
        for layout in LAYOUTS
            .into_iter()
            .chain(["odd-rows", "strided-axis"])
            .filter(|l| args.wants_layout(l))
        {
            let desc = descriptor(layout, data_type, elements);
            let row = match args.in_place {
                true => {
                    let (input, lengths) = host_tensors(&desc, Lengths::Uniform);
                    model_in_place_row(&bench.gpu, layout, &desc, &input, &lengths)
                }
                false => {
                    let (input, lengths) = host_tensors(&desc, Lengths::Spread);
                    model_row(&bench.gpu, layout, &desc, &input, &lengths)
                }
            };
            let target = match (row.targets(), row.meets()) {
                (Some((loads, stores)), Some(meets)) => format!(
                    "≥ {loads} / {stores}: {}",
                    if meets { "meets" } else { "MISSES" }
                ),
                _ => String::new(),
            };
            let verified = if row.verified { "" } else { " NOT VERIFIED" };
            print_row(
                &format!("{}B", data_type.size_in_bytes()),
                &row.layout,
                &row.figures,
                &format!("{target}{verified}"),
            );
            rows.push(row);
        }
    }
    let with_targets: Vec<_> = rows.iter().filter_map(|r| r.meets()).collect();
    println!(
        "\ntargets under Tuning::Gpu at warp 32: {} of {} rows meet them",
        with_targets.iter().filter(|&&m| m).count(),
        with_targets.len()
    );
    if let Some(path) = &args.json {
        let escape = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
        let copy: Vec<String> = copy.iter().map(Figures::json).collect();
        let rows: Vec<String> = rows.iter().map(ModelRow::json).collect();
        let json = format!(
            "{{\n  \"adapter\": {{\"name\": \"{}\", \"backend\": \"{:?}\"}},\n  \"copy_kernel\": {{\"gpu_model\": [{}]}},\n  \"rows\": [\n{}\n  ]\n}}\n",
            escape(&info.name),
            info.backend,
            copy.join(", "),
            rows.join(",\n")
        );
        std::fs::write(path, json).unwrap_or_else(|e| panic!("writing {path}: {e}"));
    }
    if rows.iter().any(|r| !r.verified) {
        eprintln!("some traced rows differ from the reference");
        std::process::exit(1);
    }
}
