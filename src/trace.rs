//! The trace build of the real kernels: the same WGSL, plan, pipeline key and
//! dispatches, with every access to the tensors also recorded, for a sample of
//! workgroups, as [`Access`]es for the SIMT model ([`crate::simt`]).
//!
//! Every kernel reads and writes the tensors only through the functions of its
//! storage file and `shaders/shared/lengths.wgsl`; their `#trace` lines, which only
//! this build keeps, append `(workgroup, invocation, ordinal, address, bytes, kind)`
//! to a buffer at binding 4 (`shaders/trace/record.wgsl`). The normal build's WGSL
//! has none of it. Tracing blocks until the device is done, so it is native only; it
//! runs on any adapter, lavapipe included: the addresses do not depend on the
//! hardware.

use crate::bindings;
use crate::compiled::CompiledReverse;
use crate::compiled_in_place::CompiledInPlace;
use crate::device_lock::Held;
use crate::encode::Tracing;
use crate::error::{Error, TensorRole};
use crate::gpu::Gpu;
use crate::launch::Bound;
use crate::params::PARAMS_SIZE;
use crate::pipeline::compute_pipeline;
use crate::scope::{block_on, Scope};
use crate::shaders::{Kernel, Source, Storage};
use crate::simt::{Access, Kind};
use crate::window::PLACEHOLDER_BYTES;

/// Records one dispatch's slice of the trace buffer holds before the trace is
/// cut short: 16 MiB.
const CAPACITY: u64 = 1 << 20;

/// Bytes of one dispatch's slice: its count (16 bytes) and records, on the
/// storage offset alignment.
const SLICE: u64 = (16 + 16 * CAPACITY).next_multiple_of(256);

/// Dispatches a submission traces before its records are read back: eight
/// slices, 128 MiB.
const SUBMITTED: usize = 8;

/// What a traced run produced.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The sampled workgroups' accesses, in no particular order.
    pub accesses: Vec<Access>,
    /// The output binding's bytes after the run: the traced kernels compute what
    /// the normal ones do.
    pub output: Vec<u8>,
}

impl CompiledReverse {
    /// Runs this operator's trace build on host bytes (as [`CompiledReverse::run`]
    /// takes them), recording the accesses of every `every`-th workgroup of each
    /// dispatch. Fails with [`Error::TraceOverflow`] where the sample holds more
    /// than a million accesses: take a larger `every`.
    ///
    /// The dispatches go through the normal build's `encode` (`src/encode.rs`),
    /// with the trace build's pipeline and each command's slice of the records,
    /// [`SUBMITTED`] commands a submission.
    pub fn trace(&self, input: &[u8], lengths: &[u8], every: u32) -> Result<Trace, Error> {
        self.desc
            .check_host_slices([input.len(), lengths.len(), self.bytes[2] as usize])?;
        let output = vec![0; self.binding_size(TensorRole::Output) as usize];
        let [input, lengths] =
            [(input, 0), (lengths, 1)].map(|(h, t)| &h[..self.bytes[t] as usize]);
        self.traced([input, lengths, &output], every)
    }

    /// [`trace`](Self::trace) on the host's input and lengths, with the output
    /// binding starting as `output` (as long as the binding): in place, the
    /// tensor, with a placeholder for the input.
    pub(crate) fn traced(&self, host: [&[u8]; 3], every: u32) -> Result<Trace, Error> {
        self.check_unstaged()?;
        let source = self.key.source();
        let program = Program {
            wgsl: &source.traced_wgsl(),
            label: &source.label(),
            constants: &self.key.constants(),
            writable_input: self.key.writes_input(),
        };
        let commands = self.commands(None);
        let slices = commands.len().clamp(1, SUBMITTED) as u64;
        let built = TraceBuild::new(&self.gpu, &program, every, host, slices * SLICE)?;
        let tracing = Tracing {
            layout: &built.layout,
            pipeline: &built.pipeline,
            records: &built.buffers.records,
            slice: SLICE,
        };
        let whole = |t: usize| built.buffers.tensors[t].as_entire_buffer_binding();
        let bindings = [whole(0), whole(1), whole(2)];
        let mut trace = Trace {
            accesses: Vec::new(),
            output: Vec::new(),
        };
        let device = self.gpu.device();
        for chunk in commands.chunks(SUBMITTED) {
            let mut encoder = device.create_command_encoder(&Default::default());
            for k in 0..chunk.len() as u64 {
                encoder.clear_buffer(&built.buffers.records, k * SLICE, Some(16));
            }
            let [a, b, c] = &bindings;
            self.encode(&mut encoder, [a, b, c], chunk, None, false, Some(&tracing))?;
            let bytes = read_back(&self.gpu, encoder, &built.buffers.records)?;
            for (k, command) in chunk.iter().enumerate() {
                let records = &bytes[k * SLICE as usize..(k + 1) * SLICE as usize];
                decode(command.launch as u32, records, &mut trace)?;
            }
        }
        let encoder = device.create_command_encoder(&Default::default());
        trace.output = read_back(&self.gpu, encoder, &built.buffers.tensors[2])?;
        Ok(trace)
    }

    /// [`Error::TraceStaged`] where a piece stages: the copy kernel has no trace
    /// build.
    fn check_unstaged(&self) -> Result<(), Error> {
        let staged = self
            .launches
            .iter()
            .filter(|d| matches!(d.buffers[0], Bound::ScratchInput | Bound::ScratchOutput))
            .count();
        match staged {
            0 => Ok(()),
            staged => Err(Error::TraceStaged { staged }),
        }
    }
}

impl CompiledInPlace {
    /// [`CompiledReverse::trace`] in place: the trace build reverses `tensor`
    /// (as [`CompiledInPlace::run`] takes it), and the trace's output is the
    /// tensor's binding after the run.
    pub fn trace(&self, tensor: &[u8], lengths: &[u8], every: u32) -> Result<Trace, Error> {
        self.desc.check_host_slices([tensor.len(), lengths.len()])?;
        let inner = &self.inner;
        let [bytes, length_bytes, _] = inner.bytes.map(|b| b as usize);
        let mut start = tensor[..bytes].to_vec();
        start.resize(inner.binding_size(TensorRole::Tensor) as usize, 0);
        let placeholder = [0; PLACEHOLDER_BYTES as usize];
        inner.traced([&placeholder, &lengths[..length_bytes], &start], every)
    }
}

/// Runs `wgsl`, a kernel that is not the operator's (a copy, say, for comparison),
/// in the trace build: its `#import` lines may name the crate's files
/// (`shared/params`, ...) and the slots `storage` (filled with `storage`) and
/// `mul_high`; its entry point is `main`, and it must call `invocation_index`
/// first. The uniform at binding 0 is all zeros, the lengths binding holds 4, and
/// the output binding `output_bytes`, zeroed.
#[expect(
    clippy::too_many_arguments,
    reason = "a kernel's text, storage, constants, grid and buffers, each its own"
)]
pub fn trace_wgsl(
    gpu: &Gpu,
    wgsl: &str,
    storage: Storage,
    constants: &[(&str, f64)],
    workgroups: [u32; 2],
    input: &[u8],
    output_bytes: u64,
    every: u32,
) -> Result<Trace, Error> {
    let source = Source {
        kernel: Kernel::new("test/kernel", &[]),
        storage,
        slots: &[],
        wide_multiply: false,
    };
    let traced = source.compose_text("test/kernel", Some(wgsl), true);
    let params = gpu.create_buffer(&wgpu::BufferDescriptor {
        label: Some("revseq::trace params"),
        size: PARAMS_SIZE,
        usage: wgpu::BufferUsages::UNIFORM,
        mapped_at_creation: false,
    });
    let mut all = vec![("WORKGROUP_SIZE", 256.0)];
    all.extend_from_slice(constants);
    let program = Program {
        wgsl: &traced,
        label: "revseq::trace",
        constants: &all,
        writable_input: false,
    };
    let output = vec![0; output_bytes.next_multiple_of(4) as usize];
    let built = TraceBuild::new(gpu, &program, every, [input, &[0; 4], &output], SLICE)?;
    let buffers = &built.buffers;
    let device = gpu.device();
    let bind_group = bindings::bind_group(
        device,
        &built.layout,
        params.as_entire_binding(),
        [0, 1, 2].map(|t| buffers.tensors[t].as_entire_buffer_binding()),
        Some(buffers.records.as_entire_binding()),
    );
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&built.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(workgroups[0], workgroups[1], 1);
    }
    let mut trace = Trace {
        accesses: Vec::new(),
        output: Vec::new(),
    };
    decode(0, &read_back(gpu, encoder, &buffers.records)?, &mut trace)?;
    let encoder = device.create_command_encoder(&Default::default());
    trace.output = read_back(gpu, encoder, &buffers.tensors[2])?;
    Ok(trace)
}

/// A kernel for [`trace_wgsl`]: `body` after `let id = invocation_index(..)` in an
/// entry point of 256 invocations a workgroup, with `shared/params` and the
/// `storage` slot imported (`load_vec(id)`, `store_word(id, ..)` and the like).
pub fn kernel_wgsl(body: &str) -> String {
    format!(
        "#import shared/params
#import storage
@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {{
    let id = invocation_index(group, groups, local);
    {body}
}}"
    )
}

/// A kernel's trace build: its WGSL, a label, and its constants.
struct Program<'a> {
    wgsl: &'a str,
    label: &'a str,
    constants: &'a [(&'a str, f64)],
    /// The kernel writes through its input binding (`src/bindings.rs`).
    writable_input: bool,
}

/// The buffers of a traced run: the tensors at bindings 1-3 and the trace at 4.
struct Buffers {
    tensors: [Held<wgpu::Buffer>; 3],
    records: Held<wgpu::Buffer>,
}

/// A traced run's bind group layout, pipeline and buffers.
struct TraceBuild {
    layout: wgpu::BindGroupLayout,
    pipeline: Held<wgpu::ComputePipeline>,
    buffers: Buffers,
}

impl TraceBuild {
    /// `program`'s trace build, tracing every `every`-th workgroup, with the
    /// host's `input`, `lengths` and `output` (as it starts), and
    /// `records_bytes` of records.
    fn new(
        gpu: &Gpu,
        program: &Program,
        every: u32,
        [input, lengths, output]: [&[u8]; 3],
        records_bytes: u64,
    ) -> Result<TraceBuild, Error> {
        let device = gpu.device();
        let scope = Scope::push(device);
        let lock = gpu.device_lock();
        let (layout, pipeline) = lock.hold(|| pipeline(device, program, every));
        let pipeline = Held::new(lock, pipeline);
        let buffer = |contents: &[u8], usage| {
            let usage = wgpu::BufferUsages::STORAGE | usage;
            gpu.buffer_init("revseq::trace", contents, usage, "making a trace's buffers")
        };
        let copied = wgpu::BufferUsages::COPY_SRC;
        let buffers = Buffers {
            tensors: [
                buffer(input, wgpu::BufferUsages::empty())?,
                buffer(lengths, wgpu::BufferUsages::empty())?,
                buffer(output, copied)?,
            ],
            records: buffer(
                &vec![0; records_bytes as usize],
                copied | wgpu::BufferUsages::COPY_DST,
            )?,
        };
        block_on(scope.pop("building the trace pipeline"))?;
        Ok(TraceBuild {
            layout,
            pipeline,
            buffers,
        })
    }
}

/// The trace build's bind group layout (the operator's, with the records at
/// binding 4) and `program`'s pipeline, tracing every `every`-th workgroup: the
/// layout, pipeline and bind groups are built as the normal build's are
/// (`src/bindings.rs`, `src/pipeline.rs`).
fn pipeline(
    device: &wgpu::Device,
    program: &Program,
    every: u32,
) -> (wgpu::BindGroupLayout, wgpu::ComputePipeline) {
    let (layout, pipeline_layout) = bindings::layouts(device, true, program.writable_input);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(program.label),
        source: wgpu::ShaderSource::Wgsl(program.wgsl.into()),
    });
    let mut constants = program.constants.to_vec();
    constants.push(("TRACE_EVERY", f64::from(every.max(1))));
    let pipeline = compute_pipeline(device, &pipeline_layout, &module, program.label, &constants);
    (layout, pipeline)
}

/// Appends the records of dispatch `index`'s trace buffer (`bytes`) to `trace`:
/// (sampled workgroup, local invocation | ordinal << 12, address, bytes | kind
/// << 8), as `shaders/trace/record.wgsl` writes them.
fn decode(index: u32, bytes: &[u8], trace: &mut Trace) -> Result<(), Error> {
    let count = u64::from(u32::from_le_bytes(bytes[..4].try_into().unwrap()));
    if count > CAPACITY {
        return Err(Error::TraceOverflow {
            records: count,
            capacity: CAPACITY,
        });
    }
    let words: &[u32] = bytemuck::cast_slice(&bytes[16..16 + 16 * count as usize]);
    for r in words.chunks_exact(4) {
        let kind = r[3] >> 8;
        let (workgroup, local, ordinal) = (r[0], r[1] & 0xfff, r[1] >> 12);
        let access_kind = if kind & 1 == 0 {
            Kind::Load
        } else {
            Kind::Store
        };
        let tensor = match (kind & 7) >> 1 {
            0 => TensorRole::Input,
            1 => TensorRole::SequenceLengths,
            _ => TensorRole::Output,
        };
        trace.accesses.push(Access {
            dispatch: index,
            workgroup,
            local,
            ordinal,
            address: r[2],
            bytes: r[3] & 0xff,
            kind: access_kind,
            tensor,
            waits: kind & 8 != 0,
        });
    }
    Ok(())
}

/// Submits `encoder` with a copy of `buffer` and waits for its bytes.
fn read_back(
    gpu: &Gpu,
    mut encoder: wgpu::CommandEncoder,
    buffer: &wgpu::Buffer,
) -> Result<Vec<u8>, Error> {
    let device = gpu.device();
    let wgpu_error = |message: String| Error::Wgpu {
        context: "reading a trace back",
        message,
    };
    let readback = gpu.create_buffer(&wgpu::BufferDescriptor {
        label: Some("revseq::trace readback"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_buffer_to_buffer(buffer, 0, &readback, 0, buffer.size());
    let scope = Scope::push(device);
    gpu.submit([encoder.finish()]);
    block_on(scope.pop("running a traced kernel"))?;
    gpu.device_lock()
        .hold(|| readback.map_async(wgpu::MapMode::Read, .., |_| {}));
    crate::wait_for_queue(device, gpu.queue())?;
    let view = readback
        .get_mapped_range(..)
        .map_err(|e| wgpu_error(e.to_string()))?;
    Ok(view.to_vec())
}
