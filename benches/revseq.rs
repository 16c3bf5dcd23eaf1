//! Throughput of reverse_subsequences beside two copies of the same bytes timed in
//! the same run: the fastest plain WGSL copy kernel (`benches/copy.wgsl`) and
//! `copy_buffer_to_buffer`. Every row's output is checked against the CPU reference
//! before it is timed, and names the kernel variant that ran.
//!
//! `cargo bench --bench revseq -- [--mib N] [--seconds S] [--json PATH] [--sweep]`
//! - `--mib N`: tensor size in MiB (default 16 on a CPU adapter, 256 on a GPU,
//!   whose L2 cache holds tensors of tens of MiB);
//! - `--seconds S`: seconds of timing per row (default 0.6);
//! - `--json PATH`: also write every row, with the adapter, as JSON;
//! - `--sweep`: instead of the table, 4-byte `innermost`, `onnx-time-major` and
//!   `outermost` from 1 MiB up to the largest tensor the adapter takes, bound 128 MiB
//!   at a time, each timed beside the same layout at 64 MiB in one dispatch; then the
//!   other layouts, `long-lanes` (three lanes, each longer than a binding) and
//!   `ragged-outermost` (`outermost` as `[1, 64, odd]`) at the largest size;
//! - `--largest-mib N`: the sweep's largest tensor, below the adapter's limit;
//! - `--layout NAME`, `--width BYTES` (each repeatable): only these rows;
//! - `--gpu-model`: instead of timing, every row (and rows that need the general
//!   kernels) under the SIMT model of memory traffic, from the trace build of the
//!   real kernels (`benches/support/gpu_model.rs`).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

#[path = "support/gpu_model.rs"]
mod gpu_model;

use revseq::{reference, CompiledReverse, DataType, Gpu, ReverseSubsequences, TensorDesc};
use wgpu::util::DeviceExt;

const LAYOUTS: [&str; 6] = [
    "innermost",
    "middle",
    "outermost",
    "onnx-batch-major",
    "onnx-time-major",
    "strided",
];
const WIDTHS: [DataType; 5] = [
    DataType::Uint8,
    DataType::Float16,
    DataType::Float32,
    DataType::Float64,
    DataType::Complex128,
];
/// Something the benchmark records into an encoder and times.
type Record<'a> = dyn Fn(&mut wgpu::CommandEncoder) + 'a;

/// A copy-kernel candidate (`benches/copy.wgsl`): 16-byte vectors per invocation,
/// invocations that interleave them, and the words a vector is loaded as.
#[derive(Clone, Copy)]
struct CopyKernel {
    steps: u32,
    lanes: u32,
    /// 32 or 64 (`copy_words32.wgsl`, `copy_words64.wgsl`).
    word_bits: u32,
}

impl CopyKernel {
    /// "vectors per invocation[/interleaved over][ ×64-bit]", as the candidates' list
    /// prints it.
    fn short(&self) -> String {
        let lanes = if self.lanes > 1 {
            format!("/{}", self.lanes)
        } else {
            String::new()
        };
        let words = if self.word_bits == 64 {
            " ×64-bit"
        } else {
            ""
        };
        format!("{}{lanes}{words}", self.steps)
    }
}

impl std::fmt::Display for CopyKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} vectors per invocation", self.steps)?;
        if self.lanes > 1 {
            write!(f, " interleaved over {}", self.lanes)?;
        }
        write!(f, " of {}-bit words", self.word_bits)
    }
}

/// Copy-kernel shapes (vectors per invocation, invocations interleaving them):
/// each invocation's vectors consecutive, or interleaved over 8 invocations (on
/// lavapipe, 5–10% faster than the best consecutive one). Up to 16, as many as
/// the operator's `rows` takes: on lavapipe 16 interleaved over 8 moved 1.94–1.97
/// GB/s where the best of the rest moved 1.90–1.94 (three runs), and was the
/// fastest in four of six runs of the benchmark after. Each runs on 32-bit words,
/// and on 64-bit ones where the device has SHADER_INT64: lavapipe copied 1.3–1.5×
/// the bytes a second that way.
const COPY_SHAPES: [(u32, u32); 9] = [
    (1, 1),
    (2, 1),
    (4, 1),
    (8, 1),
    (16, 1),
    (2, 8),
    (4, 8),
    (8, 8),
    (16, 8),
];

struct Args {
    /// `--mib`, where given.
    mib: Option<u64>,
    seconds: f64,
    json: Option<String>,
    sweep: bool,
    /// `--largest-mib`: the sweep's largest tensor, where less than the adapter's.
    largest_mib: Option<u64>,
    gpu_model: bool,
    layouts: Vec<String>,
    widths: Vec<u32>,
}

fn args() -> Args {
    let mut args = Args {
        mib: None,
        seconds: 0.6,
        json: None,
        sweep: false,
        largest_mib: None,
        gpu_model: false,
        layouts: Vec::new(),
        widths: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        // `cargo bench` adds `--bench`; anything else unknown is ignored likewise.
        match arg.as_str() {
            "--mib" => args.mib = Some(it.next().and_then(|v| v.parse().ok()).expect("--mib N")),
            "--seconds" => {
                args.seconds = it.next().and_then(|v| v.parse().ok()).expect("--seconds S")
            }
            "--json" => args.json = Some(it.next().expect("--json PATH")),
            "--sweep" => args.sweep = true,
            "--largest-mib" => {
                args.largest_mib = it.next().and_then(|v| v.parse().ok());
                assert!(args.largest_mib.is_some(), "--largest-mib N");
            }
            "--gpu-model" => args.gpu_model = true,
            "--layout" => args.layouts.push(it.next().expect("--layout NAME")),
            "--width" => args.widths.push(
                it.next()
                    .and_then(|v| v.parse().ok())
                    .expect("--width BYTES"),
            ),
            _ => {}
        }
    }
    args
}

/// xorshift64: fills tensors and lengths, the same every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// One benchmark row's operator: `elements` elements of `data_type` in `layout`.
/// The reversed axis is 64 long; lengths are spread over 0..=72 (nothing, part of
/// the lane, all of it, past it), or 0..=64 for the ONNX layouts, whose lengths
/// must not pass the axis.
fn descriptor(layout: &str, data_type: DataType, elements: u32) -> ReverseSubsequences {
    let t = 64;
    let packed = |sizes: &[u32], axis: u32, length_type, length_strides: Option<&[u32]>| {
        let mut length_sizes = sizes.to_vec();
        length_sizes[axis as usize] = 1;
        let lengths = TensorDesc::new(length_type, &length_sizes);
        ReverseSubsequences::new(
            TensorDesc::new(data_type, sizes),
            match length_strides {
                Some(strides) => lengths.with_strides(strides),
                None => lengths,
            },
            TensorDesc::new(data_type, sizes),
            axis,
        )
    };
    match layout {
        "innermost" => packed(&[elements / t, t], 1, DataType::Uint32, None),
        "middle" => packed(&[16, t, elements / 16 / t], 1, DataType::Uint32, None),
        "outermost" => packed(&[t, elements / t], 0, DataType::Uint32, None),
        // ONNX ReverseSequence: [batch] INT64 lengths broadcast through strides.
        "onnx-batch-major" => {
            let sizes = [32, t, elements / 32 / t];
            packed(&sizes, 1, DataType::Int64, Some(&[1, 0, 0]))
        }
        "onnx-time-major" => {
            let sizes = [t, 32, elements / 32 / t];
            packed(&sizes, 0, DataType::Int64, Some(&[0, 1, 0]))
        }
        // Rows of a larger, padded tensor written into another padded tensor.
        "strided" => {
            let sizes = [elements / t, t];
            let desc = packed(&sizes, 1, DataType::Uint32, None);
            ReverseSubsequences::new(
                desc.input.with_strides(&[t + 16, 1]),
                desc.sequence_lengths,
                desc.output.with_strides(&[t + 32, 1]),
                1,
            )
        }
        // Rows of 63 elements: not whole vectors (the narrow kernels), or for 1- and
        // 2-byte elements not whole words (the general kernel).
        "odd-rows" => packed(&[elements / 63, 63], 1, DataType::Uint32, None),
        // Three lanes, each longer than a 128 MiB binding past 1.5 GiB: the sweep's
        // axis longer than a window. Lengths spread over the whole axis.
        "long-lanes" => packed(&[3, elements / 3], 1, DataType::Uint32, None),
        // `outermost` behind a size-1 dimension, with an odd number of columns:
        // past a binding, the last staged piece is no whole number of vectors.
        "ragged-outermost" => {
            let columns = (elements / t - 1) | 1;
            packed(&[1, t, columns], 1, DataType::Uint32, None)
        }
        // The axis strided in the input (stored column by column): the general
        // kernels, whatever the width.
        "strided-axis" => {
            let rows = elements / t;
            let desc = packed(&[rows, t], 1, DataType::Uint32, None);
            ReverseSubsequences::new(
                desc.input.with_strides(&[1, rows]),
                desc.sequence_lengths,
                desc.output,
                1,
            )
        }
        _ => unreachable!("unknown layout {layout}"),
    }
}

/// Input and length bytes for `desc`, the same every run.
fn host_tensors(desc: &ReverseSubsequences) -> (Vec<u8>, Vec<u8>) {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D ^ desc.input.element_count());
    let input_bytes: Vec<u8> = (0..desc.input.min_size_in_bytes())
        .map(|_| rng.next() as u8)
        .collect();
    let length_bytes = length_values(desc, &mut rng);
    (input_bytes, length_bytes)
}

fn length_values(desc: &ReverseSubsequences, rng: &mut Rng) -> Vec<u8> {
    let length_type = desc.sequence_lengths.data_type();
    let onnx = length_type == DataType::Int64;
    let n = desc.input.sizes()[desc.axis as usize];
    let slots = desc.sequence_lengths.min_size_in_bytes() / u64::from(length_type.size_in_bytes());
    (0..slots)
        .flat_map(|_| {
            let value = rng.next()
                % if n > 64 {
                    u64::from(n) + 1
                } else if onnx {
                    65
                } else {
                    73
                };
            if onnx {
                value.to_le_bytes().to_vec()
            } else {
                (value as u32).to_le_bytes().to_vec()
            }
        })
        .collect()
}

struct Bench {
    gpu: Gpu,
    /// Timestamp queries around each batch, where the device has them inside
    /// encoders: the GPU's own clock, without the submit and the wait.
    timestamps: Option<Timestamps>,
    copy_layout: wgpu::BindGroupLayout,
    /// Every copy-kernel candidate, and its pipeline.
    copy_kernels: Vec<(CopyKernel, wgpu::ComputePipeline)>,
}

/// A timed row.
struct Row {
    width: u32,
    layout: String,
    sizes: Vec<u32>,
    axis: u32,
    variant: &'static str,
    /// Bits per word the operator's kernel loads and stores (32 or 64).
    word_bits: u32,
    op_gbps: f64,
    copy_kernel_gbps: f64,
    copy_buffer_gbps: f64,
    /// The median over rounds of the operator's time ÷ each copy's in the round.
    per_copy_kernel: f64,
    per_copy_buffer: f64,
    verified: bool,
}

/// Without a login session's `XDG_RUNTIME_DIR` (a container, a CI runner), Mesa's
/// Vulkan device-select layer asks libwayland for a compositor and prints two
/// `error:` lines. The benchmark owns its process, so before it opens the adapter
/// it gives itself an empty runtime directory, as a desktop session has; the
/// library sets nothing.
fn give_mesa_a_runtime_dir() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() || !cfg!(unix) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("revseq-bench-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_ok() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
    }
}

impl Bench {
    fn new() -> Bench {
        give_mesa_a_runtime_dir();
        let gpu = open_gpu().unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        });
        let timestamps = Timestamps::new(&gpu);
        let device = gpu.device();
        let module = |source: &str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("bench copy"),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        };
        let mut modules = vec![(
            32,
            module(concat!(
                include_str!("copy_words32.wgsl"),
                include_str!("copy.wgsl")
            )),
        )];
        if device.features().contains(wgpu::Features::SHADER_INT64) {
            modules.push((
                64,
                module(concat!(
                    include_str!("copy_words64.wgsl"),
                    include_str!("copy.wgsl")
                )),
            ));
        }
        let entry = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let copy_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("bench copy"),
            entries: &[entry(0, true), entry(1, false)],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("bench copy"),
            bind_group_layouts: &[Some(&copy_layout)],
            immediate_size: 0,
        });
        let copy_kernels = modules
            .iter()
            .flat_map(|(word_bits, module)| {
                COPY_SHAPES.iter().map(|&(steps, lanes)| {
                    let constants = [("STEPS", f64::from(steps)), ("LANES", f64::from(lanes))];
                    let pipeline =
                        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                            label: Some("bench copy"),
                            layout: Some(&layout),
                            module,
                            entry_point: Some("main"),
                            compilation_options: wgpu::PipelineCompilationOptions {
                                constants: &constants,
                                zero_initialize_workgroup_memory: false,
                            },
                            cache: None,
                        });
                    let kernel = CopyKernel {
                        steps,
                        lanes,
                        word_bits: *word_bits,
                    };
                    (kernel, pipeline)
                })
            })
            .collect();
        Bench {
            gpu,
            timestamps,
            copy_layout,
            copy_kernels,
        }
    }

    fn storage(&self, contents: &[u8]) -> wgpu::Buffer {
        self.gpu
            .device()
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("bench"),
                contents,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            })
    }

    fn read_back(&self, buffer: &wgpu::Buffer) -> Vec<u8> {
        let device = self.gpu.device();
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bench readback"),
            size: buffer.size(),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
        self.gpu.queue().submit([encoder.finish()]);
        staging.map_async(wgpu::MapMode::Read, .., |r| r.expect("map failed"));
        wait(device);
        let view = staging.get_mapped_range(..).expect("mapped range");
        view.to_vec()
    }

    /// Seconds per run of `record`, timed over a batch submitted and waited on:
    /// by the device's timestamps where it has them, else by the host's clock.
    fn time_per_run(&self, batch: u32, record: &Record) -> f64 {
        let device = self.gpu.device();
        let mut encoder = device.create_command_encoder(&Default::default());
        if let Some(t) = &self.timestamps {
            encoder.write_timestamp(&t.queries, 0);
        }
        for _ in 0..batch {
            record(&mut encoder);
        }
        if let Some(t) = &self.timestamps {
            encoder.write_timestamp(&t.queries, 1);
            encoder.resolve_query_set(&t.queries, 0..2, &t.resolved, 0);
            encoder.copy_buffer_to_buffer(&t.resolved, 0, &t.readback, 0, 16);
        }
        let start = Instant::now();
        self.gpu.queue().submit([encoder.finish()]);
        wait(device);
        let wall = start.elapsed().as_secs_f64();
        let seconds = match &self.timestamps {
            Some(t) => t.read(&self.gpu),
            None => wall,
        };
        seconds / f64::from(batch)
    }

    /// Seconds per run of each of `runs` in each round: the rounds alternate
    /// between them in batches of about 25 ms, so that all see the same machine
    /// state, for `seconds` and at least 5 rounds.
    fn time_rounds(&self, seconds: f64, runs: &[&Record]) -> Vec<Vec<f64>> {
        let batches: Vec<u32> = runs
            .iter()
            .map(|run| {
                self.time_per_run(1, run); // warm-up: pipelines, first touch of memory
                ((0.025 / self.time_per_run(1, run)) as u32).clamp(1, 64)
            })
            .collect();
        let mut times = vec![Vec::new(); runs.len()];
        let deadline = Instant::now() + Duration::from_secs_f64(seconds);
        while Instant::now() < deadline || times[0].len() < 5 {
            for ((run, &batch), times) in runs.iter().zip(&batches).zip(&mut times) {
                times.push(self.time_per_run(batch, run));
            }
        }
        times
    }

    /// Median seconds per run of each of `runs` ([`Bench::time_rounds`]).
    fn time(&self, seconds: f64, runs: &[&Record]) -> Vec<f64> {
        self.time_rounds(seconds, runs)
            .into_iter()
            .map(median)
            .collect()
    }

    /// Records copy-kernel candidate `kernel` (an index into `copy_kernels`) over the
    /// first `bytes` bytes.
    fn copy_kernel(
        &self,
        kernel: usize,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        bytes: u64,
        encoder: &mut wgpu::CommandEncoder,
    ) {
        let (CopyKernel { steps, .. }, pipeline) = &self.copy_kernels[kernel];
        let steps = *steps;
        fn binding(buffer: &wgpu::Buffer, offset: u64, bytes: u64) -> wgpu::BindingResource<'_> {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset,
                size: wgpu::BufferSize::new(bytes / 16 * 16),
            })
        }
        // Past one binding, a dispatch per binding-sized chunk, as the operator does.
        let per_group = 16 * u64::from(steps) * 256;
        let chunk = (self.gpu.device().limits().max_storage_buffer_binding_size / per_group
            * per_group)
            .min(bytes);
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        let mut offset = 0;
        while offset < bytes {
            let size = chunk.min(bytes - offset);
            let bind_group = self
                .gpu
                .device()
                .create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("bench copy"),
                    layout: &self.copy_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: binding(src, offset, size),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: binding(dst, offset, size),
                        },
                    ],
                });
            let groups = (size / 16).div_ceil(u64::from(steps) * 256) as u32;
            let x = groups.min(65535);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(x, groups.div_ceil(x), 1);
            offset += size;
        }
    }

    /// The fastest copy-kernel candidate on `bytes` bytes: its index into
    /// `copy_kernels`.
    fn fastest_copy(&self, bytes: u64, seconds: f64) -> usize {
        let src = self.storage(&vec![1; bytes as usize]);
        let dst = self.storage(&vec![0; bytes as usize]);
        let runs: Vec<Box<Record>> = (0..self.copy_kernels.len())
            .map(|kernel| {
                let (src, dst) = (&src, &dst);
                Box::new(move |e: &mut wgpu::CommandEncoder| {
                    self.copy_kernel(kernel, src, dst, bytes, e)
                }) as Box<Record>
            })
            .collect();
        let refs: Vec<&Record> = runs.iter().map(|r| &**r).collect();
        let times = self.time(seconds, &refs);
        let best = (0..times.len())
            .min_by(|&a, &b| times[a].total_cmp(&times[b]))
            .unwrap();
        let gbps: Vec<String> = self
            .copy_kernels
            .iter()
            .zip(&times)
            .map(|((k, _), t)| format!("{}: {:.2}", k.short(), bytes as f64 / t / 1e9))
            .collect();
        println!(
            "copy kernel: {}, the fastest of (vectors per invocation[/interleaved over][ ×64-bit]: GB/s) {}",
            self.copy_kernels[best].0,
            gbps.join(", ")
        );
        best
    }

    /// Device tensors for `desc`, filled the same way every run.
    fn prepare(&self, desc: &ReverseSubsequences) -> Prepared {
        let (input_bytes, length_bytes) = host_tensors(desc);
        let out_size = desc.output.min_size_in_bytes();
        Prepared {
            input: self.storage(&input_bytes),
            lengths: self.storage(&length_bytes),
            output: self.storage(&vec![0; out_size.next_multiple_of(4) as usize]),
            input_bytes,
            length_bytes,
        }
    }

    /// Records `compiled` on `tensors`.
    fn op<'a>(
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
    fn verify(&self, desc: &ReverseSubsequences, tensors: &Prepared, op: &Record) -> bool {
        let mut encoder = self
            .gpu
            .device()
            .create_command_encoder(&Default::default());
        encoder.clear_buffer(&tensors.output, 0, None);
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
    fn row(&self, layout: &str, desc: &ReverseSubsequences, copy: usize, seconds: f64) -> Row {
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
            verified,
        }
    }
}

/// The adapter `Gpu::new` opens, with its device asked also for timestamp queries
/// inside encoders where the adapter has them.
fn open_gpu() -> Result<Gpu, revseq::Error> {
    let adapter = pollster::block_on(revseq::adapter_from_env())?;
    let wanted = wgpu::Features::SHADER_INT64
        | wgpu::Features::SUBGROUP
        | wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("revseq bench"),
        required_features: adapter.features() & wanted,
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .map_err(|e| revseq::Error::RequestDevice {
        adapter: adapter.get_info().name,
        message: e.to_string(),
    })?;
    Ok(Gpu::from_wgpu(device, queue))
}

/// A pair of timestamp queries and the buffers their values pass through.
struct Timestamps {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Nanoseconds per tick.
    period: f64,
}

impl Timestamps {
    fn new(gpu: &Gpu) -> Option<Timestamps> {
        let device = gpu.device();
        let needed =
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
        if !device.features().contains(needed) {
            return None;
        }
        let buffer = |usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("bench timestamps"),
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        Some(Timestamps {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("bench timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolved: buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC),
            readback: buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST),
            period: f64::from(gpu.queue().get_timestamp_period()),
        })
    }

    /// Seconds between the two timestamps of the batch just waited on.
    fn read(&self, gpu: &Gpu) -> f64 {
        self.readback
            .map_async(wgpu::MapMode::Read, .., |r| r.expect("map failed"));
        wait(gpu.device());
        let ticks: [u64; 2] = {
            let view = self.readback.get_mapped_range(..).expect("mapped range");
            bytemuck::pod_read_unaligned(&view[..16])
        };
        self.readback.unmap();
        ticks[1].saturating_sub(ticks[0]) as f64 * self.period * 1e-9
    }
}

/// Device tensors and the host bytes they were filled from.
struct Prepared {
    input: wgpu::Buffer,
    lengths: wgpu::Buffer,
    output: wgpu::Buffer,
    input_bytes: Vec<u8>,
    length_bytes: Vec<u8>,
}

/// A layout run whole and windowed, timed in the same run on the same device.
struct WindowedRow {
    layout: String,
    variant: &'static str,
    dispatches: usize,
    whole_gbps: f64,
    windowed_gbps: f64,
    verified: bool,
}

impl Bench {
    /// Verifies `desc` windowed into bindings of `window` bytes, then times it
    /// beside the same operator in one dispatch.
    fn windowed_row(
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
        let tensors = self.prepare(desc);
        let (whole_op, windowed_op) = (Self::op(&whole, &tensors), Self::op(&windowed, &tensors));
        let verified = self.verify(desc, &tensors, &windowed_op);
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
fn sweep(bench: &Bench, args: &Args) -> bool {
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
    let wanted = |l: &str| args.layouts.is_empty() || args.layouts.iter().any(|w| w == l);
    let mut all_verified = true;
    let swept = ["innermost", "onnx-time-major", "outermost"];
    for layout in swept.into_iter().filter(|l| wanted(l)) {
        // Doubling from 1 MiB, then the largest whole MiB the adapter takes.
        let mut sizes: Vec<u64> = (0..)
            .map(|k| 1u64 << (20 + k))
            .take_while(|&s| s <= largest)
            .collect();
        if sizes.last() != Some(&(largest >> 20 << 20)) {
            sizes.push(largest >> 20 << 20);
        }
        all_verified &= sweep_rows(bench, layout, &sizes, args.seconds);
    }
    // The others at the largest size whose every buffer the adapter takes (the
    // strided layout's input and output are padded).
    let others = LAYOUTS.into_iter().filter(|l| !swept.contains(l));
    for layout in others
        .chain(["long-lanes", "ragged-outermost"])
        .filter(|l| wanted(l))
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
const SWEEP_BINDING: u64 = 128 << 20;

/// One sweep row per size in `sizes` (bytes of output) for `layout`, each timed
/// alternately with the same layout at 64 MiB in one dispatch (`outermost` for
/// `ragged-outermost`).
fn sweep_rows(bench: &Bench, layout: &str, sizes: &[u64], seconds: f64) -> bool {
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
    let base_tensors = bench.prepare(&base_desc);
    let base_op = Bench::op(&base, &base_tensors);
    let windowed_gpu = bench.gpu.with_max_binding(SWEEP_BINDING);
    let mut all_verified = true;
    for &size in sizes {
        let desc = descriptor(layout, DataType::Float32, (size / 4) as u32);
        let op = windowed_gpu.compile(&desc).expect("compile");
        let tensors = bench.prepare(&desc);
        let record = Bench::op(&op, &tensors);
        let verified = bench.verify(&desc, &tensors, &record);
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
        let off = rounds[0]
            .iter()
            .filter(|&&t| (t / base_median - 1.0).abs() > 0.25)
            .count();
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

/// Waits for everything submitted so far in slices of 20 ms (`PollType::Wait`
/// with a timeout), never one long wait. Safe here, where one thread polls: in
/// wgpu-core 30 such a wait that times out while another thread polls the same
/// device can trip an assertion, so the library's `wait_for_queue` polls without
/// waiting instead, pausing between polls, which would blur wall-clock times.
fn wait(device: &wgpu::Device) {
    loop {
        match device.poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: Some(Duration::from_millis(20)),
        }) {
            Ok(_) => return,
            Err(wgpu::PollError::Timeout) => continue,
            Err(error) => panic!("poll failed: {error}"),
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn geomean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0), |(s, n), v| (s + v.ln(), n + 1));
    (sum / f64::from(n)).exp()
}

fn print_header() {
    println!(
        "{:>5} {:<16} {:>20} {:<7} {:>5} {:>8} {:>8} {:>8} {:>9} {:>9}  verified",
        "width",
        "layout",
        "sizes (axis)",
        "variant",
        "words",
        "op GB/s",
        "kernel",
        "buffer",
        "t/kernel",
        "t/buffer"
    );
}

fn print_row(row: &Row) {
    println!(
        "{:>4}B {:<16} {:>20} {:<7} {:>5} {:>8.2} {:>8.2} {:>8.2} {:>8.2}× {:>8.2}×  {}",
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
        if row.verified { "yes" } else { "NO" }
    );
}

fn write_json(
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
            "    {{\"width\": {}, \"layout\": \"{}\", \"sizes\": {:?}, \"axis\": {}, \"variant\": \"{}\", \"word_bits\": {}, \"op_gbps\": {:.4}, \"copy_kernel_gbps\": {:.4}, \"copy_buffer_gbps\": {:.4}, \"time_per_copy_kernel\": {:.4}, \"time_per_copy_buffer\": {:.4}, \"verified\": {}}}{}",
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

/// MiB a tensor takes: `--mib`, else 16 on a CPU adapter and 256 on a GPU, so that
/// a GPU's timings measure its memory, not its L2 cache (50 MB on an H100).
fn mib(args: &Args, info: &wgpu::AdapterInfo) -> u64 {
    args.mib
        .unwrap_or(if info.device_type == wgpu::DeviceType::Cpu {
            16
        } else {
            256
        })
}

/// `--gpu-model`: the rows under the SIMT model, and whether each meets its target.
fn gpu_model(bench: &Bench, args: &Args, info: &wgpu::AdapterInfo) {
    let bytes = args.mib.unwrap_or(16) << 20;
    println!(
        "GPU model of memory traffic, from the trace build of the real kernels (not a timing): warps of 32 invocations \
         and 32-byte sectors under Tuning::Gpu (w64: warps of 64), Tuning::Cpu beside it; loads, stores = sector \
         efficiency (fewest sectors that hold the bytes moved / sectors touched); instr = memory instructions per \
         512 bytes of output; loaded = bytes DRAM delivers per byte of output; idle = idle lanes per load; banks = \
         workgroup-memory wavefronts per instruction; idle wg = launched workgroups without work; flight = bytes an \
         invocation has outstanding per round trip to memory\n"
    );
    gpu_model::print_header();
    let copy = gpu_model::copy_kernel(&bench.gpu, bytes);
    gpu_model::print_row("16B", "copy (1 vector)", &copy, "");
    let strided = gpu_model::strided_copy(&bench.gpu, bytes);
    gpu_model::print_row("16B", "copy, 1B strided", &strided, "");
    let wanted = |list: &[String], item: &str| list.is_empty() || list.iter().any(|l| l == item);
    let mut rows = Vec::new();
    for data_type in WIDTHS {
        let width = data_type.size_in_bytes();
        if !args.widths.is_empty() && !args.widths.contains(&width) {
            continue;
        }
        let elements = (bytes / u64::from(width)) as u32;
        for layout in LAYOUTS
            .into_iter()
            .chain(["odd-rows", "strided-axis"])
            .filter(|l| wanted(&args.layouts, l))
        {
            let desc = descriptor(layout, data_type, elements);
            let (input, lengths) = host_tensors(&desc);
            let row = gpu_model::model_row(&bench.gpu, layout, &desc, &input, &lengths);
            let target = match (row.targets(), row.meets()) {
                (Some((loads, stores)), Some(meets)) => format!(
                    "≥ {loads} / {stores}: {}",
                    if meets { "meets" } else { "MISSES" }
                ),
                _ => String::new(),
            };
            let verified = if row.verified { "" } else { " NOT VERIFIED" };
            gpu_model::print_row(
                &format!("{width}B"),
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
        let copy: Vec<String> = copy.iter().map(gpu_model::Figures::json).collect();
        let rows: Vec<String> = rows.iter().map(gpu_model::ModelRow::json).collect();
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

fn main() {
    let args = args();
    let bench = Bench::new();
    let info = bench.gpu.adapter_info();
    println!(
        "adapter: {} ({:?}, {:?}, {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    );
    if args.gpu_model {
        gpu_model(&bench, &args, &info);
        return;
    }
    if args.sweep {
        if !sweep(&bench, &args) {
            eprintln!("some rows differ from the reference");
            std::process::exit(1);
        }
        return;
    }
    let bytes = mib(&args, &info) << 20;
    println!(
        "{} MiB tensors, timed by {}",
        bytes >> 20,
        if bench.timestamps.is_some() {
            "the device's timestamps"
        } else {
            "the host's clock around each submit"
        }
    );
    // The yardstick sets every ratio, so it is chosen over five times a row's time:
    // over 0.6 s the choice moved from run to run on lavapipe (4 vectors per
    // invocation, 4 or 8 interleaved over 8, in three runs), as the machine's load
    // drifted under the seven candidates.
    let copy = bench.fastest_copy(bytes, 5.0 * args.seconds);
    println!(
        "GB/s = tensor bytes / time (10^9 B/s); kernel = that copy kernel, buffer = copy_buffer_to_buffer, \
         both moving the same bytes in the same run (GB/s: medians over rounds of 25 ms batches); t/kernel, t/buffer = the median over rounds of the operator's time ÷ the copy's in the same round; words = bits per word the operator loads and stores\n"
    );
    print_header();

    let wanted = |list: &[String], item: &str| list.is_empty() || list.iter().any(|l| l == item);
    let mut rows = Vec::new();
    for data_type in WIDTHS {
        let width = data_type.size_in_bytes();
        if !args.widths.is_empty() && !args.widths.contains(&width) {
            continue;
        }
        let elements = (bytes / u64::from(width)) as u32;
        for layout in LAYOUTS.into_iter().filter(|l| wanted(&args.layouts, l)) {
            let desc = descriptor(layout, data_type, elements);
            let row = bench.row(layout, &desc, copy, args.seconds);
            print_row(&row);
            rows.push(row);
        }
    }
    let mut windowed = Vec::new();
    {
        // 4-byte layouts with bindings of a quarter of the tensor, beside the same
        // layouts in one dispatch.
        let window = bytes / 4;
        println!(
            "\nwindowed: 4-byte layouts bound {} KiB at a time, beside the same in one dispatch",
            window >> 10
        );
        println!(
            "{:<16} {:<7} {:>10} {:>10} {:>12} {:>8}  verified",
            "layout", "variant", "dispatches", "whole GB/s", "windowed GB/s", "t ratio"
        );
        for layout in ["innermost", "middle", "onnx-batch-major", "onnx-time-major"]
            .into_iter()
            .filter(|l| wanted(&args.layouts, l))
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
            windowed.push(row);
        }
    }
    if let Some(path) = &args.json {
        write_json(path, &info, bench.copy_kernels[copy].0, &rows, &windowed);
    }
    println!(
        "\ngeometric mean of the operator's time ÷ the copy kernel's: {:.2}×, ÷ copy_buffer_to_buffer's: {:.2}×",
        geomean(rows.iter().map(|r| r.per_copy_kernel)),
        geomean(rows.iter().map(|r| r.per_copy_buffer))
    );
    if rows.iter().any(|r| !r.verified) || windowed.iter().any(|r| !r.verified) {
        eprintln!("some rows differ from the reference");
        std::process::exit(1);
    }
}
