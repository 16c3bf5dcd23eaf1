//! A validated, specialised operator, ready to record into a caller's encoder.

use wgpu::util::DeviceExt;

use crate::divisor::Divisor;
use crate::layout::Layout;
use crate::plan::Plan;
#[cfg(not(target_arch = "wasm32"))]
use crate::scope::{block_on, now_or_never};
use crate::scope::{capture, Scope};
use crate::shaders::{PipelineKey, RowSegments, WORKGROUP_SIZE};
use crate::signal;
use crate::window::{self, Dispatch, Window};
use crate::{Error, Gpu, ReverseSubsequences, TensorRole, Variant};

/// The layout uniform; matches `Params` in `shaders/common.wgsl`, field for field
/// (a test below compares their offsets).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    sizes: [u32; 8],
    out_strides: [u32; 8],
    in_strides: [u32; 8],
    len_strides: [u32; 8],
    count: u32,
    vecs: u32,
    in_shift: u32,
    len_shift: u32,
    out_shift: u32,
    axis_start: u32,
    axis_size: u32,
    source_lo: u32,
    source_hi: u32,
    position_lo: u32,
    position_hi: u32,
    lanes: u32,
    touch: u32,
    pad: [u32; 3],
    segments: Divisor,
    band: Divisor,
    bands: Divisor,
    size_divisors: [Divisor; 8],
    out_stride_divisors: [Divisor; 8],
}

pub(crate) const PARAMS_SIZE: u64 = std::mem::size_of::<Params>() as u64;

/// An operator compiled for one [`Gpu`]: its pipeline and its layout uniforms, made
/// once. Recording it is cheap: a bind group and a dispatch per window of the
/// tensors, one where they fit a single storage binding.
#[derive(Debug)]
pub struct CompiledReverse {
    gpu: Gpu,
    desc: ReverseSubsequences,
    key: PipelineKey,
    pipeline: wgpu::ComputePipeline,
    /// One `Params` per dispatch, `params_stride` bytes apart.
    params: wgpu::Buffer,
    params_stride: u64,
    dispatches: Vec<Recorded>,
    /// The device's `min_storage_buffer_offset_alignment`.
    offset_alignment: u64,
    /// `min_size_in_bytes` of input, sequence lengths and output.
    bytes: [u64; 3],
}

/// What `record` needs of one dispatch.
#[derive(Debug)]
struct Recorded {
    /// Input, sequence lengths and output windows, relative to the caller's bindings.
    windows: [Window; 3],
    workgroups: [u32; 2],
}

impl CompiledReverse {
    pub(crate) async fn new(
        gpu: &Gpu,
        desc: &ReverseSubsequences,
    ) -> Result<CompiledReverse, Error> {
        desc.validate()?;
        let device = &gpu.inner.device;
        let limits = device.limits();
        let bytes = desc.tensors().map(|(_, t)| t.min_size_in_bytes());
        for ((tensor, _), bytes) in desc.tensors().into_iter().zip(bytes) {
            if bytes.next_multiple_of(4) > limits.max_buffer_size {
                return Err(Error::TensorTooLarge {
                    tensor,
                    bytes,
                    limit: limits.max_buffer_size,
                    limit_name: "the device's max_buffer_size",
                });
            }
        }

        let layout = Layout::canonical(desc);
        let element_bytes = desc.input.data_type().size_in_bytes();
        let length_bytes = desc.sequence_lengths.data_type().size_in_bytes();
        let widths = [element_bytes, length_bytes, element_bytes].map(u64::from);
        let offset_alignment = u64::from(limits.min_storage_buffer_offset_alignment);
        let pieces = window::split(
            &layout,
            widths,
            bytes,
            gpu.inner.max_binding,
            offset_alignment,
        )?;
        let tuning = gpu.inner.tuning;
        let int64 = gpu.inner.int64;
        let key_of = |plan: &Plan, piece: &Dispatch| {
            let key = PipelineKey {
                variant: plan.variant,
                steps: plan.steps,
                vector_bytes: plan.vector_bytes,
                element_bytes,
                rank: piece.layout.rank() as u32,
                axis: piece.layout.axis as u32,
                length_bytes,
                signed_lengths: desc.sequence_lengths.data_type().is_signed_integer(),
                word_bits: plan.word_bits(tuning, int64, element_bytes),
                segments: RowSegments::Partial,
                share_lengths: 1,
            };
            let kernel = key.kernel();
            let segments = if plan.whole_rows() && kernel.has_whole_rows() {
                RowSegments::Whole
            } else if plan.full_segments() && kernel.has_full_segments() {
                RowSegments::Full
            } else {
                RowSegments::Partial
            };
            PipelineKey { segments, ..key }
        };
        // One pipeline for every dispatch: the plan's variant where every piece can
        // run it from a vector-aligned start, else the general kernels.
        let fast = |piece: &Dispatch| {
            let plan = Plan::new(&piece.layout, element_bytes, piece.windows[2].size, tuning);
            let aligned = |shift: u32| {
                u64::from(shift) * u64::from(element_bytes) % u64::from(plan.vector_bytes.max(1))
                    == 0
            };
            let runs_by_position = piece.by_position && plan.variant == Variant::Runs;
            ((piece.whole || runs_by_position)
                && aligned(piece.shifts[0])
                && aligned(piece.shifts[2]))
            .then_some(plan)
        };
        let mut plans: Vec<Plan> = pieces.iter().map_while(fast).collect();
        if plans.len() < pieces.len()
            || plans
                .iter()
                .zip(&pieces)
                .any(|(plan, piece)| key_of(plan, piece) != key_of(&plans[0], &pieces[0]))
        {
            plans = pieces
                .iter()
                .map(|piece| Plan::general(&piece.layout, element_bytes, piece.windows[2].size))
                .collect();
        }
        let key = key_of(&plans[0], &pieces[0]);
        // The kernels that share a length move 64-bit words. Pieces may differ in
        // how many invocations of a row or run can share one, and the fewest suit
        // them all (an invocation that holds a whole row shares with none).
        let share_lengths = if key.word_bits == 64 {
            plans
                .iter()
                .map(|plan| plan.share_lengths(gpu.inner.subgroup_lanes))
                .min()
                .unwrap_or(1)
        } else {
            1
        };
        let key = PipelineKey {
            share_lengths,
            ..key
        };

        let max = limits.max_compute_workgroups_per_dimension.max(1);
        let params_stride =
            PARAMS_SIZE.next_multiple_of(u64::from(limits.min_uniform_buffer_offset_alignment));
        let mut uniform = vec![0u8; params_stride as usize * pieces.len()];
        let mut dispatches = Vec::with_capacity(pieces.len());
        for (i, (plan, piece)) in plans.iter().zip(&pieces).enumerate() {
            let groups = plan.invocations.div_ceil(WORKGROUP_SIZE);
            let x = groups.min(max);
            let y = if groups == 0 { 0 } else { groups.div_ceil(x) };
            // Unreachable on adapters that meet WebGPU's 65,535 groups per dimension,
            // but an adapter below that gets an error, not a short dispatch.
            if y > max {
                let bytes_per_invocation = bytes[2] / u64::from(plan.invocations);
                return Err(Error::TensorTooLarge {
                    tensor: TensorRole::Output,
                    bytes: bytes[2],
                    limit: u64::from(max).pow(2) * u64::from(WORKGROUP_SIZE) * bytes_per_invocation,
                    limit_name: "the device's max_compute_workgroups_per_dimension squared",
                });
            }
            let mut params = Params {
                count: plan.invocations,
                vecs: plan.vecs,
                segments: Divisor::new(plan.segments),
                band: Divisor::new(plan.band),
                bands: Divisor::new(plan.bands),
                lanes: plan.lanes,
                touch: if plan.touch_ahead { u32::MAX } else { 0 },
                in_shift: piece.shifts[0],
                len_shift: piece.shifts[1],
                out_shift: piece.shifts[2],
                axis_start: piece.axis_start,
                axis_size: layout.dims[layout.axis].size,
                source_lo: piece.sources[0],
                source_hi: piece.sources[1],
                position_lo: piece.positions[0],
                position_hi: piece.positions[1],
                ..bytemuck::Zeroable::zeroed()
            };
            // Every stride of a piece fits a u32: its offsets do (window.rs).
            for (d, dim) in piece.layout.dims.iter().enumerate() {
                params.sizes[d] = dim.size;
                params.size_divisors[d] = Divisor::new(dim.size);
                params.out_strides[d] = dim.output as u32;
                params.out_stride_divisors[d] = Divisor::new(dim.output as u32);
                params.in_strides[d] = dim.input as u32;
                params.len_strides[d] = dim.lengths as u32;
            }
            let at = i * params_stride as usize;
            uniform[at..at + PARAMS_SIZE as usize].copy_from_slice(bytemuck::bytes_of(&params));
            dispatches.push(Recorded {
                windows: piece.windows,
                workgroups: [x, y],
            });
        }

        let pipeline = gpu.pipeline(key).await?;
        let params = capture(device, "creating the layout uniform", || {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("revseq::params"),
                contents: &uniform,
                usage: wgpu::BufferUsages::UNIFORM,
            })
        })
        .await?;
        Ok(CompiledReverse {
            gpu: gpu.clone(),
            desc: desc.clone(),
            key,
            pipeline,
            params,
            params_stride,
            dispatches,
            offset_alignment,
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

    /// Workgroups of the first dispatch, in x and y (more than 65,535 fold into y).
    pub fn workgroups(&self) -> [u32; 2] {
        self.dispatches[0].workgroups
    }

    /// Dispatches `record` records: one where every tensor fits one storage
    /// binding, more where a tensor is windowed.
    pub fn dispatch_count(&self) -> usize {
        self.dispatches.len()
    }

    /// Bytes each binding must hold: the tensor's minimum size rounded up to 4.
    pub fn binding_size(&self, tensor: TensorRole) -> u64 {
        self.bytes[tensor as usize].next_multiple_of(4)
    }

    /// Records the operator into `encoder`; never submits and never blocks, on any
    /// target. Each binding may start at an offset (a multiple of
    /// `min_storage_buffer_offset_alignment`) and must hold
    /// [`binding_size`](Self::binding_size) bytes; the output buffer must differ from
    /// both inputs. Bytes of the output binding that no output element addresses are
    /// left as they are. A tensor past one storage binding records
    /// [`dispatch_count`](Self::dispatch_count) dispatches in one compute pass, each
    /// binding a window of each buffer; `binding_size` may then exceed the device's
    /// binding limit (never its `max_buffer_size`).
    ///
    /// Every rule wgpu checks when binding the tensors is checked here first, so a
    /// live buffer of this device gets an [`Error`] from this call, not from wgpu.
    /// What the host cannot see (a destroyed buffer, one from another device) wgpu
    /// still rejects: natively this call returns that as [`Error::Wgpu`], read from
    /// an error scope that native wgpu resolves at once; in a browser, where scopes
    /// resolve only on the event loop, it reaches the caller's own error scopes or
    /// the device's uncaptured-error handler, like any other call in the encoder.
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// use revseq::{DataType, ReverseSubsequences, TensorDesc, TensorRole};
    /// use wgpu::util::DeviceExt;
    /// let gpu = revseq::Gpu::new()?;
    /// let tensor = TensorDesc::new(DataType::Float32, &[2, 3]);
    /// let lengths = TensorDesc::new(DataType::Uint32, &[2, 1]);
    /// let op = gpu.compile(&ReverseSubsequences::new(tensor.clone(), lengths, tensor, 1))?;
    ///
    /// let device = gpu.device();
    /// let storage = |bytes: &[u8], usage| {
    ///     device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
    ///         label: None,
    ///         contents: bytes,
    ///         usage: wgpu::BufferUsages::STORAGE | usage,
    ///     })
    /// };
    /// let input = storage(bytemuck::cast_slice(&[1f32, 2., 3., 4., 5., 6.]), wgpu::BufferUsages::empty());
    /// let lengths = storage(bytemuck::cast_slice(&[3u32, 2]), wgpu::BufferUsages::empty());
    /// let output = device.create_buffer(&wgpu::BufferDescriptor {
    ///     label: None,
    ///     size: op.binding_size(TensorRole::Output),
    ///     usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    ///     mapped_at_creation: false,
    /// });
    /// let mut encoder = device.create_command_encoder(&Default::default());
    /// op.record(
    ///     &mut encoder,
    ///     input.as_entire_buffer_binding(),
    ///     lengths.as_entire_buffer_binding(),
    ///     output.as_entire_buffer_binding(),
    /// )?;
    /// // ... the rest of the caller's work, then one submit.
    /// gpu.queue().submit([encoder.finish()]);
    /// # Ok(())
    /// # }
    /// ```
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
        if self.is_empty() {
            return Ok(());
        }

        let device = self.gpu.device();
        let bindings = [&input, &sequence_lengths, &output];
        let bind_group = |(i, dispatch): (usize, &Recorded)| {
            let window = |binding: usize, w: Window| wgpu::BindGroupEntry {
                binding: binding as u32 + 1,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: bindings[binding].buffer,
                    offset: bindings[binding].offset + w.offset,
                    size: wgpu::BufferSize::new(w.size),
                }),
            };
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("revseq::bind_group"),
                layout: &self.gpu.inner.bind_group_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &self.params,
                            offset: i as u64 * self.params_stride,
                            size: wgpu::BufferSize::new(PARAMS_SIZE),
                        }),
                    },
                    window(0, dispatch.windows[0]),
                    window(1, dispatch.windows[1]),
                    window(2, dispatch.windows[2]),
                ],
            })
        };
        // The bind groups are the only step wgpu can still reject; make them first,
        // so that a rejection leaves the caller's encoder untouched.
        #[cfg(not(target_arch = "wasm32"))]
        let bind_groups: Vec<wgpu::BindGroup> = {
            let scope = Scope::push(device);
            let bind_groups = self.dispatches.iter().enumerate().map(bind_group).collect();
            // Native wgpu resolves a popped scope at once; one that did not would
            // be wgpu's own error, so it counts as none rather than a wait.
            if let Some(Err(error)) = now_or_never(scope.pop("binding the tensors")) {
                return Err(error);
            }
            bind_groups
        };
        #[cfg(target_arch = "wasm32")]
        let bind_groups: Vec<wgpu::BindGroup> =
            self.dispatches.iter().enumerate().map(bind_group).collect();
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("revseq::reverse_subsequences"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        // In order: a windowed dispatch may merge into words an earlier one wrote.
        for (dispatch, bind_group) in self.dispatches.iter().zip(&bind_groups) {
            if dispatch.workgroups[0] > 0 {
                pass.set_bind_group(0, bind_group, &[]);
                pass.dispatch_workgroups(dispatch.workgroups[0], dispatch.workgroups[1], 1);
            }
        }
        Ok(())
    }

    /// Whether no dispatch has work: a tensor without elements.
    fn is_empty(&self) -> bool {
        self.dispatches.iter().all(|d| d.workgroups[0] == 0)
    }

    /// Uploads the tensors, runs the operator and reads the output back into
    /// `output`, blocking until it is there. Each slice needs at least its tensor's
    /// `min_size_in_bytes`; bytes of `output` that no output element addresses keep
    /// their values. Not on wasm32: use [`CompiledReverse::run_async`].
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// use revseq::{DataType, ReverseSubsequences, TensorDesc};
    /// let gpu = revseq::Gpu::new()?;
    /// let tensor = TensorDesc::new(DataType::Uint8, &[2, 4]);
    /// let lengths = TensorDesc::new(DataType::Int32, &[2, 1]);
    /// let op = gpu.compile(&ReverseSubsequences::new(tensor.clone(), lengths, tensor, 1))?;
    /// let mut output = [0u8; 8];
    /// op.run(&[1, 2, 3, 4, 5, 6, 7, 8], bytemuck::cast_slice(&[4i32, -1]), &mut output)?;
    /// assert_eq!(output, [4, 3, 2, 1, 5, 6, 7, 8]);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run(
        &self,
        input: &[u8],
        sequence_lengths: &[u8],
        output: &mut [u8],
    ) -> Result<(), Error> {
        block_on(self.run_async(input, sequence_lengths, output))
    }

    /// [`CompiledReverse::run`] without blocking a thread in a browser: it resolves
    /// when the output has been read back. Natively wgpu has no thread of its own
    /// to finish the readback, so this call drives the device until its submission
    /// is done, and resolves at once after.
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// # pollster::block_on(async {
    /// use revseq::{DataType, ReverseSubsequences, TensorDesc};
    /// let gpu = revseq::Gpu::new_async().await?;
    /// let tensor = TensorDesc::new(DataType::Uint16, &[3]);
    /// let lengths = TensorDesc::new(DataType::Uint64, &[1]);
    /// let op = gpu.compile_async(&ReverseSubsequences::new(tensor.clone(), lengths, tensor, 0)).await?;
    /// let mut output = [0u16; 3];
    /// op.run_async(
    ///     bytemuck::cast_slice(&[7u16, 8, 9]),
    ///     bytemuck::cast_slice(&[9u64]),
    ///     bytemuck::cast_slice_mut(&mut output),
    /// )
    /// .await?;
    /// assert_eq!(output, [9, 8, 7]);
    /// # Ok(())
    /// # })
    /// # }
    /// ```
    pub async fn run_async(
        &self,
        input: &[u8],
        sequence_lengths: &[u8],
        output: &mut [u8],
    ) -> Result<(), Error> {
        self.desc
            .check_host_slices([input.len(), sequence_lengths.len(), output.len()])?;
        if self.is_empty() {
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
        let scope = Scope::push(device);
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
        let submission = recorded.map(|()| self.gpu.queue().submit([encoder.finish()]));
        let (sender, receiver) = signal::channel();
        if submission.is_ok() {
            staging.map_async(wgpu::MapMode::Read, .., move |result| sender.send(result));
        }
        let errors = scope.pop("running reverse_subsequences");
        errors.await?;
        let _submission = submission?;

        let wgpu_error = |message: String| Error::Wgpu {
            context: "reading the output back",
            message,
        };
        #[cfg(not(target_arch = "wasm32"))]
        device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(_submission),
                timeout: None,
            })
            .map_err(|e| wgpu_error(e.to_string()))?;
        receiver
            .await
            .ok_or_else(|| wgpu_error("the mapping callback was dropped".into()))?
            .map_err(|e| wgpu_error(e.to_string()))?;
        let view = staging
            .get_mapped_range(..)
            .map_err(|e| wgpu_error(e.to_string()))?;
        output[..out_bytes].copy_from_slice(&view[..out_bytes]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shaders::Kernel;
    use std::mem::offset_of;

    #[test]
    fn params_matches_the_wgsl_struct() {
        let module =
            naga::front::wgsl::parse_str(Kernel::Words.source()).expect("common.wgsl parses");
        let (_, ty) = module
            .types
            .iter()
            .find(|(_, ty)| ty.name.as_deref() == Some("Params"))
            .expect("a Params struct");
        let naga::TypeInner::Struct { members, span } = &ty.inner else {
            panic!("Params is a struct");
        };
        assert_eq!(u64::from(*span), PARAMS_SIZE);
        let rust = [
            ("sizes", offset_of!(Params, sizes)),
            ("out_strides", offset_of!(Params, out_strides)),
            ("in_strides", offset_of!(Params, in_strides)),
            ("len_strides", offset_of!(Params, len_strides)),
            ("count", offset_of!(Params, count)),
            ("vecs", offset_of!(Params, vecs)),
            ("in_shift", offset_of!(Params, in_shift)),
            ("len_shift", offset_of!(Params, len_shift)),
            ("out_shift", offset_of!(Params, out_shift)),
            ("axis_start", offset_of!(Params, axis_start)),
            ("axis_size", offset_of!(Params, axis_size)),
            ("source_lo", offset_of!(Params, source_lo)),
            ("source_hi", offset_of!(Params, source_hi)),
            ("position_lo", offset_of!(Params, position_lo)),
            ("position_hi", offset_of!(Params, position_hi)),
            ("lanes", offset_of!(Params, lanes)),
            ("touch", offset_of!(Params, touch)),
            ("pad0", offset_of!(Params, pad)),
            ("pad1", offset_of!(Params, pad) + 4),
            ("pad2", offset_of!(Params, pad) + 8),
            ("segments", offset_of!(Params, segments)),
            ("band", offset_of!(Params, band)),
            ("bands", offset_of!(Params, bands)),
            ("size_divisors", offset_of!(Params, size_divisors)),
            (
                "out_stride_divisors",
                offset_of!(Params, out_stride_divisors),
            ),
        ];
        let wgsl: Vec<_> = members
            .iter()
            .map(|m| (m.name.as_deref().unwrap_or(""), m.offset as usize))
            .collect();
        assert_eq!(wgsl, rust);
    }
}
