//! The yardstick: plain WGSL copy kernels (`benches/copy.wgsl`) in several shapes,
//! the fastest of which every ratio divides by.
use crate::bench::{Bench, Record};

/// A copy-kernel candidate (`benches/copy.wgsl`): 16-byte vectors per invocation,
/// invocations that interleave them, and the words a vector is loaded as.
#[derive(Clone, Copy)]
pub(crate) struct CopyKernel {
    pub(crate) steps: u32,
    pub(crate) lanes: u32,
    /// 32 or 64 (`copy_words32.wgsl`, `copy_words64.wgsl`).
    pub(crate) word_bits: u32,
}

impl CopyKernel {
    /// "vectors per invocation[/interleaved over][ ×64-bit]", as the candidates' list
    /// prints it.
    pub(crate) fn short(&self) -> String {
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
pub(crate) const COPY_SHAPES: [(u32, u32); 9] = [
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

impl Bench {
    /// Records copy-kernel candidate `kernel` (an index into `copy_kernels`) over the
    /// first `bytes` bytes.
    pub(crate) fn copy_kernel(
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
    pub(crate) fn fastest_copy(&self, bytes: u64, seconds: f64) -> usize {
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
}

/// Every copy-kernel candidate's pipeline on `device` (64-bit words too where it
/// has `SHADER_INT64`), and their bind group layout.
pub(crate) fn copy_kernels(
    device: &wgpu::Device,
) -> (
    wgpu::BindGroupLayout,
    Vec<(CopyKernel, wgpu::ComputePipeline)>,
) {
    let module = |source: &str| {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("bench copy"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        })
    };
    let mut modules = vec![(
        32,
        module(concat!(
            include_str!("../copy_words32.wgsl"),
            include_str!("../copy.wgsl")
        )),
    )];
    if device.features().contains(wgpu::Features::SHADER_INT64) {
        modules.push((
            64,
            module(concat!(
                include_str!("../copy_words64.wgsl"),
                include_str!("../copy.wgsl")
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
    let kernels = modules
        .iter()
        .flat_map(|(word_bits, module)| {
            COPY_SHAPES.iter().map(|&(steps, lanes)| {
                let constants = [("STEPS", f64::from(steps)), ("LANES", f64::from(lanes))];
                let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
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
    (copy_layout, kernels)
}
