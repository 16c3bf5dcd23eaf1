//! A validated, specialised operator, ready to record into a caller's encoder.

use wgpu::util::DeviceExt;

use crate::layout::Layout;
use crate::plan::Plan;
use crate::shaders::{PipelineKey, WORKGROUP_SIZE};
use crate::{Error, Gpu, ReverseSubsequences, TensorRole, Variant};

/// The layout uniform; matches `Params` in `shaders/common.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    sizes: [u32; 8],
    out_strides: [u32; 8],
    in_strides: [u32; 8],
    len_strides: [u32; 8],
    count: u32,
    vecs: u32,
    segments: u32,
    band: u32,
}

pub(crate) const PARAMS_SIZE: u64 = std::mem::size_of::<Params>() as u64;

/// An operator compiled for one [`Gpu`]: its pipeline and its layout uniform, made
/// once. Recording it is cheap: one bind group and one dispatch.
#[derive(Debug)]
pub struct CompiledReverse {
    gpu: Gpu,
    desc: ReverseSubsequences,
    key: PipelineKey,
    pipeline: wgpu::ComputePipeline,
    params: wgpu::Buffer,
    /// Invocations with work; 0 for a tensor without elements.
    invocations: u32,
    workgroups: [u32; 2],
    /// The device's `min_storage_buffer_offset_alignment`.
    offset_alignment: u64,
    /// `min_size_in_bytes` of input, sequence lengths and output.
    bytes: [u64; 3],
}

impl CompiledReverse {
    pub(crate) fn new(gpu: &Gpu, desc: &ReverseSubsequences) -> Result<CompiledReverse, Error> {
        desc.validate()?;
        let device = &gpu.inner.device;
        let limits = device.limits();
        let limit = crate::operator::MAX_TENSOR_BYTES
            .min(limits.max_storage_buffer_binding_size)
            .min(limits.max_buffer_size);
        let bytes = desc.tensors().map(|(_, t)| t.min_size_in_bytes());
        for ((tensor, _), bytes) in desc.tensors().into_iter().zip(bytes) {
            if bytes.next_multiple_of(4) > limit {
                return Err(Error::TensorTooLarge {
                    tensor,
                    bytes,
                    limit,
                });
            }
        }

        let layout = Layout::canonical(desc);
        let element_bytes = desc.input.data_type().size_in_bytes();
        let plan = Plan::new(&layout, element_bytes, bytes[2], gpu.inner.tuning);
        let key = PipelineKey {
            variant: plan.variant,
            steps: plan.steps,
            vector_bytes: plan.vector_bytes,
            element_bytes,
            rank: layout.rank() as u32,
            axis: layout.axis as u32,
            length_bytes: desc.sequence_lengths.data_type().size_in_bytes(),
            signed_lengths: desc.sequence_lengths.data_type().is_signed_integer(),
        };
        let invocations = plan.invocations;
        let groups = invocations.div_ceil(WORKGROUP_SIZE);
        let max = limits.max_compute_workgroups_per_dimension.max(1);
        let x = groups.min(max);
        let y = if groups == 0 { 0 } else { groups.div_ceil(x) };
        // Unreachable on adapters that meet WebGPU's 65,535 groups per dimension,
        // but an adapter below that gets an error, not a short dispatch.
        if y > max {
            let bytes_per_invocation = bytes[2] / u64::from(invocations);
            return Err(Error::TensorTooLarge {
                tensor: TensorRole::Output,
                bytes: bytes[2],
                limit: u64::from(max).pow(2) * u64::from(WORKGROUP_SIZE) * bytes_per_invocation,
            });
        }

        let mut params = Params {
            sizes: [0; 8],
            out_strides: [0; 8],
            in_strides: [0; 8],
            len_strides: [0; 8],
            count: invocations,
            vecs: plan.vecs,
            segments: plan.segments,
            band: plan.band,
        };
        for (d, dim) in layout.dims.iter().enumerate() {
            params.sizes[d] = dim.size;
            params.out_strides[d] = dim.output;
            params.in_strides[d] = dim.input;
            params.len_strides[d] = dim.lengths;
        }

        let pipeline = gpu.pipeline(key)?;
        let params = gpu.capture("creating the layout uniform", || {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("revseq::params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            })
        })?;
        Ok(CompiledReverse {
            gpu: gpu.clone(),
            desc: desc.clone(),
            key,
            pipeline,
            params,
            invocations,
            workgroups: [x, y],
            offset_alignment: u64::from(limits.min_storage_buffer_offset_alignment),
            bytes,
        })
    }

    /// The descriptor this was compiled from.
    pub fn descriptor(&self) -> &ReverseSubsequences {
        &self.desc
    }

    /// The pipeline key it runs under.
    pub fn key(&self) -> PipelineKey {
        self.key
    }

    /// The kernel variant the plan chose for its layout.
    pub fn variant(&self) -> Variant {
        self.key.variant
    }

    /// Workgroups dispatched, in x and y (more than 65,535 fold into y).
    pub fn workgroups(&self) -> [u32; 2] {
        self.workgroups
    }

    /// Bytes each binding must hold: the tensor's minimum size rounded up to 4.
    pub fn binding_size(&self, tensor: TensorRole) -> u64 {
        self.bytes[tensor as usize].next_multiple_of(4)
    }

    /// Records the operator into `encoder`; never submits. Each binding may start at
    /// an offset (a multiple of `min_storage_buffer_offset_alignment`) and must hold
    /// [`binding_size`](Self::binding_size) bytes; the output buffer must differ from
    /// both inputs. Bytes of the output binding that no output element addresses are
    /// left as they are.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        input: wgpu::BufferBinding<'_>,
        sequence_lengths: wgpu::BufferBinding<'_>,
        output: wgpu::BufferBinding<'_>,
    ) -> Result<(), Error> {
        let bindings = [
            (TensorRole::Input, &input),
            (TensorRole::SequenceLengths, &sequence_lengths),
            (TensorRole::Output, &output),
        ];
        let alignment = self.offset_alignment;
        for (tensor, binding) in bindings {
            let usage = binding.buffer.usage();
            if !usage.contains(wgpu::BufferUsages::STORAGE) {
                return Err(Error::BindingUsage { tensor, usage });
            }
            if binding.offset % alignment != 0 {
                return Err(Error::BindingMisaligned {
                    tensor,
                    offset: binding.offset,
                    alignment,
                });
            }
            // A size past the end of the buffer holds only what the buffer has.
            let in_buffer = binding.buffer.size().saturating_sub(binding.offset);
            let available = binding.size.map_or(in_buffer, |s| s.get().min(in_buffer));
            let required = self.binding_size(tensor);
            if available < required {
                return Err(Error::BindingTooSmall {
                    tensor,
                    required,
                    actual: available,
                });
            }
        }
        for (tensor, binding) in &bindings[..2] {
            if binding.buffer == output.buffer {
                return Err(Error::OutputAliases { tensor: *tensor });
            }
        }
        if self.invocations == 0 {
            return Ok(());
        }

        let entry = |binding, tensor, b| wgpu::BindGroupEntry {
            binding,
            resource: wgpu::BindingResource::Buffer(exact(b, self.binding_size(tensor))),
        };
        let device = self.gpu.device();
        // The bind group is the only step wgpu can still reject; make it first, so
        // that a rejection leaves the caller's encoder untouched.
        let bind_group = self.gpu.capture("binding the tensors", || {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("revseq::bind_group"),
                layout: &self.gpu.inner.bind_group_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: self.params.as_entire_binding(),
                    },
                    entry(1, TensorRole::Input, input.clone()),
                    entry(2, TensorRole::SequenceLengths, sequence_lengths.clone()),
                    entry(3, TensorRole::Output, output.clone()),
                ],
            })
        })?;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("revseq::reverse_subsequences"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(self.workgroups[0], self.workgroups[1], 1);
        Ok(())
    }

    /// Uploads the tensors, runs the operator and reads the output back into
    /// `output`. Each slice needs at least its tensor's `min_size_in_bytes`; bytes of
    /// `output` that no output element addresses keep their values.
    pub fn run(
        &self,
        input: &[u8],
        sequence_lengths: &[u8],
        output: &mut [u8],
    ) -> Result<(), Error> {
        self.desc
            .check_host_slices([input.len(), sequence_lengths.len(), output.len()])?;
        if self.invocations == 0 {
            return Ok(());
        }
        let [in_bytes, len_bytes, out_bytes] = self.bytes.map(|b| b as usize);
        let device = self.gpu.device();
        let storage = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: wgpu::BufferUsages::STORAGE | usage,
            })
        };
        let out_size = self.binding_size(TensorRole::Output);
        let (staging, submission) = self.gpu.capture("running reverse_subsequences", || {
            let input = storage(
                "revseq::input",
                &input[..in_bytes],
                wgpu::BufferUsages::empty(),
            );
            let lengths = storage(
                "revseq::sequence_lengths",
                &sequence_lengths[..len_bytes],
                wgpu::BufferUsages::empty(),
            );
            // A dense output is overwritten whole, so its old bytes need not travel.
            let out = if self.desc.output.is_dense() {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("revseq::output"),
                    size: out_size,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                })
            } else {
                storage(
                    "revseq::output",
                    &output[..out_bytes],
                    wgpu::BufferUsages::COPY_SRC,
                )
            };
            let staging = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("revseq::readback"),
                size: out_size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = device.create_command_encoder(&Default::default());
            let recorded = self.record(
                &mut encoder,
                input.as_entire_buffer_binding(),
                lengths.as_entire_buffer_binding(),
                out.as_entire_buffer_binding(),
            );
            encoder.copy_buffer_to_buffer(&out, 0, &staging, 0, out_size);
            recorded.map(|()| (staging, self.gpu.queue().submit([encoder.finish()])))
        })??;

        let (sender, receiver) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |result| {
            let _ = sender.send(result);
        });
        let wgpu_error = |message: String| Error::Wgpu {
            context: "reading the output back",
            message,
        };
        device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(submission),
                timeout: None,
            })
            .map_err(|e| wgpu_error(e.to_string()))?;
        receiver
            .recv()
            .map_err(|e| wgpu_error(e.to_string()))?
            .map_err(|e| wgpu_error(e.to_string()))?;
        let view = staging
            .get_mapped_range(..)
            .map_err(|e| wgpu_error(e.to_string()))?;
        output[..out_bytes].copy_from_slice(&view[..out_bytes]);
        Ok(())
    }
}

/// `binding` narrowed to the `size` bytes the kernel addresses.
fn exact(binding: wgpu::BufferBinding<'_>, size: u64) -> wgpu::BufferBinding<'_> {
    wgpu::BufferBinding {
        size: wgpu::BufferSize::new(size),
        ..binding
    }
}
