//! The trace build of the real kernels: the same WGSL, plan, pipeline keys and
//! dispatches, with every access to the bindings also recorded, for every
//! workgroup or a sample of them, as [`Access`]es: for the bounds test
//! (`tests/bounds.rs`), which checks each against the window its binding held
//! ([`TracedDispatch`]).
//!
//! Every kernel reads and writes the tensors only through the functions of its
//! storage file and `src/kernels/shared/lengths.wgsl` (and the in-place files that
//! hold their own bindings); their `#trace` lines, which only this build keeps,
//! append `(workgroup, invocation, ordinal, index, shape)` to a buffer at binding
//! 16 in the published convention (`src/kernels/trace/record.wgsl` declares
//! it at 4), the index as the kernel computed it, before anything could clamp
//! it. The normal build's WGSL has none of it. Tracing
//! blocks until the device is done, so it is native only; it runs on any adapter,
//! lavapipe included: the addresses do not depend on the hardware.

use std::sync::PoisonError;

use crate::descriptor::error::{Error, TensorRole};
use crate::executor::compiled::CompiledReverse;
use crate::executor::compiled_in_place::CompiledInPlace;
use crate::executor::device::device_lock::Held;
use crate::executor::device::gpu::Gpu;
use crate::executor::device::pipeline::{self, KernelPipeline, TracePipelines};
use crate::executor::device::scope::{block_on, Scope};
use crate::executor::encode::{Command, Tracing};
use crate::kernels::params::PARAMS_SIZE;
use crate::kernels::shaders::{KernelFile, Source, Storage, WORKGROUP_SIZE};
use crate::plan::cut::PLACEHOLDER_BYTES;
use crate::plan::kernel::{external_wgsl, TRACE_BINDING};

pub use crate::lab::access::{Access, Kind};
use crate::plan::program::{Binding, Dispatch, Kernel, Program};

/// The most records one dispatch's slice of the trace buffer holds: 16 MiB.
const CAPACITY: u64 = 1 << 20;

/// The fewest records a slice is made for: a run whose dispatches made more is
/// traced again with slices as large as the largest count.
const FIRST_CAPACITY: u64 = 1 << 10;

/// Bytes of trace slices one submission reads back, at most (one slice where a
/// slice is larger).
const SUBMITTED_BYTES: u64 = 64 << 20;

/// What a traced run produced.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The sampled workgroups' accesses, in no particular order.
    pub accesses: Vec<Access>,
    /// Every dispatch of the run, at the index its accesses'
    /// [`dispatch`](Access::dispatch) name: what it ran and what its bindings
    /// held.
    pub dispatches: Vec<TracedDispatch>,
    /// The output binding's bytes after the run: the traced kernels compute what
    /// the normal ones do.
    pub output: Vec<u8>,
}

/// One dispatch of a traced run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracedDispatch {
    /// The kernel's label: `revseq::rows/rows`, `revseq::copy/copy` for a staged
    /// piece's copy.
    pub kernel: String,
    /// Workgroups launched, in x and y; `[0, 0]` for a dispatch with no work,
    /// which is not recorded.
    pub workgroups: [u32; 2],
    /// What it bound for its input, sequence lengths and output: the window
    /// of each buffer its kernel uses, an empty [`TracedBuffer::Unbound`]
    /// where it uses none.
    pub bindings: [TracedBinding; 3],
}

/// The window one binding of a dispatch held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TracedBinding {
    /// The buffer.
    pub buffer: TracedBuffer,
    /// Bytes from the buffer's start to the window's (past the caller's own
    /// offset, which the trace makes 0).
    pub offset: u64,
    /// Bytes of the window: every access of the dispatch to this binding must
    /// lie inside them.
    pub size: u64,
}

/// A buffer a traced dispatch binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TracedBuffer {
    /// The caller's input.
    Input,
    /// The caller's sequence lengths.
    Lengths,
    /// The caller's output; in place, the tensor.
    Output,
    /// The in-place placeholder, at the input's place.
    Placeholder,
    /// The scratch a staged piece reads.
    ScratchInput,
    /// The scratch a staged piece writes.
    ScratchOutput,
    /// Nothing: the kernel uses no buffer there (in place, the input;
    /// the staging copy, the lengths), and may access none.
    Unbound,
}

impl CompiledReverse {
    /// Runs this operator's trace build on host bytes (as [`CompiledReverse::run`]
    /// takes them), recording the accesses of every `every`-th workgroup of each
    /// dispatch, a staged piece's copies included. Fails with
    /// [`Error::TraceOverflow`] where one dispatch's sample holds more than a
    /// million accesses: take a larger `every`.
    ///
    /// The dispatches go through the normal build's `encode` (`src/executor/encode.rs`),
    /// with the trace build's pipelines and each command's slice of the records.
    pub fn trace(&self, input: &[u8], lengths: &[u8], every: u32) -> Result<Trace, Error> {
        let bytes = |tensor| self.program.tensor_bytes(tensor) as usize;
        self.desc
            .check_host_slices([input.len(), lengths.len(), bytes(TensorRole::Output)])?;
        let output = vec![0; self.binding_size(TensorRole::Output) as usize];
        let input = &input[..bytes(TensorRole::Input)];
        let lengths = &lengths[..bytes(TensorRole::SequenceLengths)];
        self.traced([input, lengths, &output], every)
    }

    /// [`trace`](Self::trace) on the host's input and lengths, with the output
    /// binding starting as `output` (as long as the binding): in place, the
    /// tensor, with a placeholder for the input. A run whose dispatches record
    /// more than the slices hold runs again from the host's bytes, with slices
    /// for the largest count.
    pub(crate) fn traced(&self, host: [&[u8]; 3], every: u32) -> Result<Trace, Error> {
        let commands = self.commands(None);
        let groups = commands
            .iter()
            .map(|c| u64::from(c.workgroups[0]) * u64::from(c.workgroups[1]));
        // About four accesses an invocation: a first guess, made good below.
        let guess =
            groups.max().unwrap_or(0) * u64::from(WORKGROUP_SIZE) * 4 / u64::from(every.max(1));
        let mut capacity = guess.clamp(FIRST_CAPACITY, CAPACITY);
        loop {
            match self.traced_with(host, every, &commands, capacity)? {
                Ok(trace) => return Ok(trace),
                Err(records) if records <= CAPACITY => capacity = records,
                Err(records) => {
                    return Err(Error::TraceOverflow {
                        records,
                        capacity: CAPACITY,
                    })
                }
            }
        }
    }

    /// One traced run of `commands` with slices of `capacity` records: the
    /// trace, or the most records a dispatch made where that is more.
    fn traced_with(
        &self,
        host: [&[u8]; 3],
        every: u32,
        commands: &[Command],
        capacity: u64,
    ) -> Result<Result<Trace, u64>, Error> {
        let gpu = &self.gpu;
        let program = &self.program;
        let pipelines = (program.kernels().iter())
            .map(|kernel| gpu.trace_pipelines().get(gpu, kernel, every))
            .collect::<Result<Vec<KernelPipeline>, Error>>()?;
        let slice = slice_bytes(capacity);
        let per_submission = (SUBMITTED_BYTES / slice).clamp(1, commands.len().max(1) as u64);
        let buffers = Buffers::new(gpu, host, per_submission * slice)?;
        let tracing = Tracing {
            pipelines: &pipelines,
            records: &buffers.records,
            slice,
            binding: TRACE_BINDING,
        };
        let whole = |t: usize| buffers.tensors[t].as_entire_buffer_binding();
        let bindings = [whole(0), whole(1), whole(2)];
        let mut trace = Trace {
            accesses: Vec::new(),
            dispatches: (program.dispatches().iter())
                .map(|d| traced_dispatch(program, d))
                .collect(),
            output: Vec::new(),
        };
        let mut most = 0;
        let device = gpu.device();
        for chunk in commands.chunks(per_submission as usize) {
            let mut encoder = device.create_command_encoder(&Default::default());
            for k in 0..chunk.len() as u64 {
                encoder.clear_buffer(&buffers.records, k * slice, Some(16));
            }
            let [a, b, c] = &bindings;
            self.encode(&mut encoder, [a, b, c], chunk, None, false, Some(&tracing))?;
            let bytes = read_back(gpu, encoder, &buffers.records)?;
            for (k, command) in chunk.iter().enumerate() {
                let records = &bytes[k * slice as usize..(k + 1) * slice as usize];
                let count = decode(command.dispatch as u32, records, capacity, &mut trace);
                most = most.max(count);
            }
        }
        if most > capacity {
            return Ok(Err(most));
        }
        let encoder = device.create_command_encoder(&Default::default());
        trace.output = read_back(gpu, encoder, &buffers.tensors[2])?;
        Ok(Ok(trace))
    }
}

/// What `dispatch` of `program` ran and what its bindings held, on the trace's
/// buffers.
fn traced_dispatch(program: &Program, dispatch: &Dispatch) -> TracedDispatch {
    let kernel = &program.kernels()[dispatch.kernel];
    let traced = |binding: &Binding| {
        let buffer = match *binding {
            Binding::Tensor { tensor, .. } => match tensor {
                TensorRole::Input => TracedBuffer::Input,
                TensorRole::SequenceLengths => TracedBuffer::Lengths,
                TensorRole::Output | TensorRole::Tensor => TracedBuffer::Output,
            },
            Binding::Placeholder { .. } => TracedBuffer::Placeholder,
            Binding::Scratch { buffer: 0, .. } => TracedBuffer::ScratchInput,
            Binding::Scratch { .. } | Binding::Params { .. } => TracedBuffer::ScratchOutput,
        };
        let (offset, size) = binding.window();
        TracedBinding {
            buffer,
            offset,
            size,
        }
    };
    // The buffers it binds, in order, are those its kernel uses of input,
    // lengths and output.
    let mut bound = dispatch.bindings.iter();
    let bindings = kernel.uses.map(|used| match used {
        true => traced(bound.next().expect("a binding for each buffer used")),
        false => TracedBinding {
            buffer: TracedBuffer::Unbound,
            offset: 0,
            size: 0,
        },
    });
    let [x, y, _] = dispatch.workgroups;
    TracedDispatch {
        kernel: kernel.label.clone(),
        workgroups: [x, y],
        bindings,
    }
}

impl CompiledInPlace {
    /// [`CompiledReverse::trace`] in place: the trace build reverses `tensor`
    /// (as [`CompiledInPlace::run`] takes it), and the trace's output is the
    /// tensor's binding after the run.
    pub fn trace(&self, tensor: &[u8], lengths: &[u8], every: u32) -> Result<Trace, Error> {
        self.desc.check_host_slices([tensor.len(), lengths.len()])?;
        let inner = &self.inner;
        let bytes = inner.program.tensor_bytes(TensorRole::Tensor) as usize;
        let length_bytes = inner.program.tensor_bytes(TensorRole::SequenceLengths) as usize;
        let mut start = tensor[..bytes].to_vec();
        start.resize(inner.binding_size(TensorRole::Tensor) as usize, 0);
        let placeholder = [0; PLACEHOLDER_BYTES as usize];
        inner.traced([&placeholder, &lengths[..length_bytes], &start], every)
    }
}

/// Bytes of one dispatch's slice of the trace buffer: its count (16 bytes) and
/// `capacity` records, on the storage offset alignment.
fn slice_bytes(capacity: u64) -> u64 {
    (16 + 16 * capacity).next_multiple_of(256)
}

impl TracePipelines {
    /// `kernel`'s trace build tracing every `every`-th workgroup.
    fn get(&self, gpu: &Gpu, kernel: &Kernel, every: u32) -> Result<KernelPipeline, Error> {
        let every = every.max(1);
        let cached = {
            let pipelines = self
                .pipelines
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            pipelines.get(&(kernel.digest, every)).cloned()
        };
        if let Some(pipeline) = cached {
            return Ok(pipeline);
        }
        let device = gpu.device();
        let wgsl = kernel.traced_wgsl(every);
        let scope = Scope::push(device);
        let pipeline = gpu
            .device_lock()
            .hold(|| pipeline::build(device, &wgsl, kernel.entry_point, &kernel.label));
        block_on(scope.pop("building a trace pipeline"))?;
        let mut pipelines = self
            .pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        Ok(pipelines
            .entry((kernel.digest, every))
            .or_insert(pipeline)
            .clone())
    }
}

/// Runs `wgsl`, a kernel that is not the operator's (a copy, say, for comparison),
/// in the trace build: its `#import` lines may name the crate's files
/// (`shared/params`, ...) and the slots `storage` (filled with `storage`) and
/// `mul_high`; its entry point is `main`, and it must call `invocation_index`
/// first. It runs in the published convention, as a kernel that uses every
/// buffer: input, lengths and output at bindings 0-2, the uniform, all zeros,
/// at 3; the lengths binding holds 4 bytes, and the output binding
/// `output_bytes`, zeroed.
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
        kernel: KernelFile::new("test/kernel", &[]),
        storage,
        slots: &[],
        wide_multiply: false,
    };
    let mut all = vec![
        ("WORKGROUP_SIZE", f64::from(WORKGROUP_SIZE)),
        ("TRACE_EVERY", f64::from(every.max(1))),
    ];
    all.extend_from_slice(constants);
    let traced = source.compose_text("test/kernel", Some(wgsl), true);
    let traced = external_wgsl(&traced, None, [true; 3]);
    let label = "revseq::trace";
    let params = gpu.create_buffer(&wgpu::BufferDescriptor {
        label: Some("revseq::trace params"),
        size: PARAMS_SIZE,
        usage: wgpu::BufferUsages::UNIFORM,
        mapped_at_creation: false,
    });
    let device = gpu.device();
    let scope = Scope::push(device);
    // A layout of every binding the convention gives it, whether the kernel
    // uses it or not.
    let pipeline = gpu.device_lock().hold(|| {
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty,
            count: None,
        };
        let storage = wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let uniform = wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &[
                entry(0, storage),
                entry(1, storage),
                entry(2, storage),
                entry(3, uniform),
                entry(TRACE_BINDING, storage),
            ],
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(traced.as_str().into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some(KernelFile::ENTRY_POINT),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &all,
                ..Default::default()
            },
            cache: None,
        });
        KernelPipeline { pipeline, layout }
    });
    block_on(scope.pop("building the trace pipeline"))?;
    let pipeline = Held::new(gpu.device_lock(), pipeline);
    let output = vec![0; output_bytes.next_multiple_of(4) as usize];
    let slice = slice_bytes(CAPACITY);
    let buffers = Buffers::new(gpu, [input, &[0; 4], &output], slice)?;
    let entry = |binding, resource| wgpu::BindGroupEntry { binding, resource };
    let tensor = |t: usize| buffers.tensors[t].as_entire_binding();
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout: &pipeline.layout,
        entries: &[
            entry(0, tensor(0)),
            entry(1, tensor(1)),
            entry(2, tensor(2)),
            entry(3, params.as_entire_binding()),
            entry(TRACE_BINDING, buffers.records.as_entire_binding()),
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(workgroups[0], workgroups[1], 1);
    }
    let whole = |buffer: TracedBuffer, t: usize| TracedBinding {
        buffer,
        offset: 0,
        size: buffers.tensors[t].size(),
    };
    let mut trace = Trace {
        accesses: Vec::new(),
        dispatches: vec![TracedDispatch {
            kernel: label.to_string(),
            workgroups,
            bindings: [
                whole(TracedBuffer::Input, 0),
                whole(TracedBuffer::Lengths, 1),
                whole(TracedBuffer::Output, 2),
            ],
        }],
        output: Vec::new(),
    };
    let records = read_back(gpu, encoder, &buffers.records)?;
    let count = decode(0, &records, CAPACITY, &mut trace);
    if count > CAPACITY {
        return Err(Error::TraceOverflow {
            records: count,
            capacity: CAPACITY,
        });
    }
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
/// The buffers of a traced run: the tensors and the records.
struct Buffers {
    tensors: [Held<wgpu::Buffer>; 3],
    records: Held<wgpu::Buffer>,
}

impl Buffers {
    /// The host's `input`, `lengths` and `output` (as it starts), and
    /// `records_bytes` of records.
    fn new(
        gpu: &Gpu,
        [input, lengths, output]: [&[u8]; 3],
        records_bytes: u64,
    ) -> Result<Buffers, Error> {
        let context = "making a trace's buffers";
        let scope = Scope::push(gpu.device());
        let buffer = |contents: &[u8], usage| {
            let usage = wgpu::BufferUsages::STORAGE | usage;
            gpu.buffer_init("revseq::trace", contents, usage, context)
        };
        let copied = wgpu::BufferUsages::COPY_SRC;
        let tensors = [
            buffer(input, wgpu::BufferUsages::empty())?,
            buffer(lengths, wgpu::BufferUsages::empty())?,
            buffer(output, copied)?,
        ];
        // Created zeroed: no host bytes to upload.
        let records = gpu.create_buffer(&wgpu::BufferDescriptor {
            label: Some("revseq::trace records"),
            size: records_bytes,
            usage: wgpu::BufferUsages::STORAGE | copied | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        block_on(scope.pop(context))?;
        Ok(Buffers { tensors, records })
    }
}

/// Appends the records of dispatch `index`'s slice of the trace (`bytes`) to
/// `trace`, as `src/kernels/trace/record.wgsl` writes them, and returns how many it
/// made: where that is more than the slice's `capacity`, none are appended.
fn decode(index: u32, bytes: &[u8], capacity: u64, trace: &mut Trace) -> u64 {
    let count = u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]));
    if count > capacity {
        return count;
    }
    let words: &[u32] = bytemuck::cast_slice(&bytes[16..16 + 16 * count as usize]);
    for r in words.chunks_exact(4) {
        let shape = r[3];
        let kind = (shape >> 8) & 0xff;
        let element_bytes = (shape >> 16) & 0xff;
        let offset = shape >> 24;
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
            index: r[2],
            element_bytes,
            offset,
            address: u64::from(r[2]) * u64::from(element_bytes) + u64::from(offset),
            bytes: shape & 0xff,
            kind: access_kind,
            tensor,
            waits: kind & 8 != 0,
        });
    }
    count
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
    crate::executor::device::submission::wait_for_queue(device, gpu.queue())?;
    let view = readback
        .get_mapped_range(..)
        .map_err(|e| wgpu_error(e.to_string()))?;
    Ok(view.to_vec())
}
