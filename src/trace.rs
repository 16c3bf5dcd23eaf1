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

use wgpu::util::DeviceExt;

use crate::params::PARAMS_SIZE;
use crate::scope::{block_on, Scope};
use crate::shaders::{Kernel, Source, Storage};
use crate::simt::{Access, Kind, WorkgroupAccess};
use crate::window::Window;
use crate::{CompiledReverse, Error, Gpu, TensorRole};

/// Records the trace buffer holds before the trace is cut short: 16 MiB.
const CAPACITY: u64 = 1 << 20;

/// What a traced run produced.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The sampled workgroups' accesses, in no particular order.
    pub accesses: Vec<Access>,
    /// Their accesses to workgroup memory (`tile`'s), in no particular order.
    pub workgroup_memory: Vec<WorkgroupAccess>,
    /// The output binding's bytes after the run: the traced kernels compute what
    /// the normal ones do.
    pub output: Vec<u8>,
}

impl CompiledReverse {
    /// Runs this operator's trace build on host bytes (as [`CompiledReverse::run`]
    /// takes them), recording the accesses of every `every`-th workgroup of each
    /// dispatch. Fails with [`Error::TraceOverflow`] where the sample holds more
    /// than a million accesses: take a larger `every`.
    pub fn trace(&self, input: &[u8], lengths: &[u8], every: u32) -> Result<Trace, Error> {
        self.desc
            .check_host_slices([input.len(), lengths.len(), self.bytes[2] as usize])?;
        let staged = self
            .dispatches
            .iter()
            .filter(|d| d.staging.is_some())
            .count();
        if staged > 0 {
            return Err(Error::TraceStaged { staged });
        }
        let dispatches: Vec<Traced> = self
            .dispatches
            .iter()
            .enumerate()
            .map(|(i, d)| Traced {
                params: self.params_binding(i),
                windows: d.windows,
                workgroups: d.workgroups,
            })
            .collect();
        let source = self.key.source();
        run(
            &self.gpu,
            &source.traced_wgsl(),
            &source.label(),
            &self.key.constants(),
            &dispatches,
            [
                &input[..self.bytes[0] as usize],
                &lengths[..self.bytes[1] as usize],
            ],
            self.binding_size(TensorRole::Output),
            every,
        )
    }
}

/// Runs `wgsl`, a kernel that is not the operator's (a copy, say, for comparison),
/// in the trace build: its `#import` lines may name the crate's files
/// (`shared/params`, ...) and the slots `storage` (filled with `storage`) and
/// `mul_high`; its entry point is `main`, and it must call `invocation_index`
/// first. The uniform at binding 0 is all zeros, the lengths binding holds 4, and
/// the output binding `output_bytes`, zeroed.
#[allow(clippy::too_many_arguments)]
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
        kernel: Kernel::Elements,
        storage,
        shared_lengths: false,
        wide_multiply: false,
    };
    let traced = source.compose_text("test/kernel", Some(wgsl), true);
    let device = gpu.device();
    let params = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("revseq::trace params"),
        size: PARAMS_SIZE,
        usage: wgpu::BufferUsages::UNIFORM,
        mapped_at_creation: false,
    });
    let whole = |size: u64| Window { offset: 0, size };
    let dispatch = Traced {
        params: params.as_entire_binding(),
        windows: [
            whole(input.len().next_multiple_of(4) as u64),
            whole(4),
            whole(output_bytes.next_multiple_of(4)),
        ],
        workgroups,
    };
    let mut all = vec![("WORKGROUP_SIZE", 256.0)];
    all.extend_from_slice(constants);
    run(
        gpu,
        &traced,
        "revseq::trace",
        &all,
        &[dispatch],
        [input, &[0; 4]],
        output_bytes.next_multiple_of(4),
        every,
    )
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

/// One dispatch to trace.
struct Traced<'a> {
    params: wgpu::BindingResource<'a>,
    windows: [Window; 3],
    workgroups: [u32; 2],
}

#[allow(clippy::too_many_arguments)]
fn run(
    gpu: &Gpu,
    wgsl: &str,
    label: &str,
    constants: &[(&str, f64)],
    dispatches: &[Traced],
    [input, lengths]: [&[u8]; 2],
    output_bytes: u64,
    every: u32,
) -> Result<Trace, Error> {
    let device = gpu.device();
    let scope = Scope::push(device);
    let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty,
        count: None,
    };
    let storage = |read_only| wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Storage { read_only },
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("revseq::trace"),
        entries: &[
            entry(
                0,
                wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(PARAMS_SIZE),
                },
            ),
            entry(1, storage(true)),
            entry(2, storage(true)),
            entry(3, storage(false)),
            entry(4, storage(false)),
        ],
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("revseq::trace"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let mut constants = constants.to_vec();
    constants.push(("TRACE_EVERY", f64::from(every.max(1))));
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some(Kernel::ENTRY_POINT),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants: &constants,
            zero_initialize_workgroup_memory: false,
        },
        cache: None,
    });
    let buffer = |contents: &[u8], usage| {
        let mut padded = contents.to_vec();
        padded.resize(contents.len().next_multiple_of(4).max(4), 0);
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("revseq::trace"),
            contents: &padded,
            usage: wgpu::BufferUsages::STORAGE | usage,
        })
    };
    let input = buffer(input, wgpu::BufferUsages::empty());
    let lengths = buffer(lengths, wgpu::BufferUsages::empty());
    let output = buffer(
        &vec![0; output_bytes as usize],
        wgpu::BufferUsages::COPY_SRC,
    );
    let trace_bytes = 16 + 16 * CAPACITY;
    let records = buffer(
        &vec![0; trace_bytes as usize],
        wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    );
    block_on(scope.pop("building the trace pipeline"))?;

    let mut accesses = Vec::new();
    let mut workgroup_memory = Vec::new();
    for (index, dispatch) in dispatches.iter().enumerate() {
        if dispatch.workgroups[0] == 0 {
            continue;
        }
        fn window(buffer: &wgpu::Buffer, w: Window) -> wgpu::BindingResource<'_> {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset: w.offset,
                size: wgpu::BufferSize::new(w.size),
            })
        }
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("revseq::trace"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: dispatch.params.clone(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: window(&input, dispatch.windows[0]),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: window(&lengths, dispatch.windows[1]),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: window(&output, dispatch.windows[2]),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: records.as_entire_binding(),
                },
            ],
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&records, 0, Some(16));
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(dispatch.workgroups[0], dispatch.workgroups[1], 1);
        }
        let bytes = read_back(gpu, encoder, &records)?;
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
                2 => TensorRole::Output,
                _ => {
                    workgroup_memory.push(WorkgroupAccess {
                        dispatch: index as u32,
                        workgroup,
                        local,
                        ordinal,
                        address: r[2],
                        kind: access_kind,
                    });
                    continue;
                }
            };
            accesses.push(Access {
                dispatch: index as u32,
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
    }
    let encoder = device.create_command_encoder(&Default::default());
    let output = read_back(gpu, encoder, &output)?;
    Ok(Trace {
        accesses,
        workgroup_memory,
        output,
    })
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
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("revseq::trace readback"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    let scope = Scope::push(device);
    gpu.queue().submit([encoder.finish()]);
    block_on(scope.pop("running a traced kernel"))?;
    staging.map_async(wgpu::MapMode::Read, .., |_| {});
    crate::wait_for_queue(device, gpu.queue())?;
    let view = staging
        .get_mapped_range(..)
        .map_err(|e| wgpu_error(e.to_string()))?;
    Ok(view.to_vec())
}
