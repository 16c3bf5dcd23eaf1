//! A validated, specialised operator, ready to record into a caller's encoder
//! (`src/compile.rs` makes it).

use crate::bindings;
use crate::device_lock::Held;
use crate::error::{Error, TensorRole};
use crate::gpu::Gpu;
use crate::kernels::PipelineKey;
use crate::kernels::Variant;
use crate::operator::ReverseSubsequences;
use crate::params::PARAMS_SIZE;
#[cfg(not(target_arch = "wasm32"))]
use crate::scope::{now_or_never, Scope};
use crate::window::{Staging, Window};

/// An operator compiled for one [`Gpu`]: its pipeline and its layout uniforms, made
/// once. Recording it is cheap: a bind group and a dispatch per window of the
/// tensors, one where they fit a single storage binding.
#[derive(Debug)]
pub struct CompiledReverse {
    pub(crate) gpu: Gpu,
    pub(crate) desc: ReverseSubsequences,
    pub(crate) key: PipelineKey,
    pub(crate) pipeline: Held<wgpu::ComputePipeline>,
    /// One `Params` per dispatch, `params_stride` bytes apart.
    pub(crate) params: Held<wgpu::Buffer>,
    pub(crate) params_stride: u64,
    pub(crate) launches: Vec<Launch>,
    /// The device's `min_storage_buffer_offset_alignment`.
    pub(crate) offset_alignment: u64,
    /// `min_size_in_bytes` of input, sequence lengths and output.
    pub(crate) bytes: [u64; 3],
    /// Input and output scratch buffers, for staged dispatches.
    pub(crate) scratch: Option<Held<[wgpu::Buffer; 2]>>,
    /// Where this plan stages: the plan without scratch, for buffers without
    /// copy usages.
    pub(crate) without_copies: Option<Box<CompiledReverse>>,
}

/// What `record` needs of one dispatch: its windows, workgroups and parts.
#[derive(Debug)]
pub(crate) struct Launch {
    /// Input, sequence lengths and output windows, relative to the caller's bindings.
    pub(crate) windows: [Window; 3],
    pub(crate) workgroups: [u32; 2],
    /// Workgroups with work: `workgroups` launch at least as many.
    #[cfg(feature = "lab")]
    pub(crate) groups: u32,
    /// Where the input and output travel through the scratch buffers.
    pub(crate) staging: Option<Staging>,
    /// The dispatch in parts, for revseq's own bounded submissions
    /// (`src/submission.rs`); empty where it runs whole.
    pub(crate) parts: Vec<Part>,
}

/// A range of a dispatch's workgroups, run as a dispatch of its own.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Part {
    pub(crate) first_group: u32,
    pub(crate) workgroups: [u32; 2],
    /// Its `Params` in the uniform buffer: a copy of the dispatch's with
    /// `first_group`.
    pub(crate) params: usize,
    /// Output bytes its workgroups visit.
    pub(crate) bytes: u64,
}

/// One command of a recorded operator.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Command {
    /// Copies a staged dispatch's input segments into scratch.
    StageIn(usize),
    /// Dispatches `workgroups` of launch `launch` with the `Params` at `params`.
    Dispatch {
        launch: usize,
        params: usize,
        workgroups: [u32; 2],
    },
    /// Copies a staged dispatch's output segments back.
    StageOut(usize),
}

impl CompiledReverse {
    /// The descriptor this was compiled from.
    pub fn descriptor(&self) -> &ReverseSubsequences {
        &self.desc
    }

    /// The pipeline key it runs under.
    #[cfg(feature = "lab")]
    pub fn key(&self) -> PipelineKey {
        self.key
    }

    /// The kernel variant the plan chose for its layout.
    pub fn variant(&self) -> Variant {
        self.key.variant
    }

    /// Workgroups of the first dispatch, in x and y (more than 65,535 fold into y).
    #[cfg(feature = "lab")]
    pub fn workgroups(&self) -> [u32; 2] {
        self.launches[0].workgroups
    }

    /// The fraction of the workgroups `record` launches that have no work: those
    /// the fold of more than 65,535 into x and y leaves over (fewer than y of a
    /// dispatch's).
    #[cfg(feature = "lab")]
    pub fn idle_workgroups(&self) -> f64 {
        let (launched, needed) = self.launches.iter().fold((0u64, 0u64), |(l, n), d| {
            let [x, y] = d.workgroups;
            (l + u64::from(x) * u64::from(y), n + u64::from(d.groups))
        });
        match launched {
            0 => 0.0,
            launched => (launched - needed) as f64 / launched as f64,
        }
    }

    /// Dispatches `record` records: one where every tensor fits one storage
    /// binding, more where a tensor is windowed.
    pub fn dispatch_count(&self) -> usize {
        self.launches.len()
    }

    /// The usages each tensor's buffer needs for this plan: `STORAGE`, and where
    /// pieces of a tensor past one binding run staged (the reversed axis spanning
    /// more than a window, see `docs/windows.md`), `COPY_SRC` on the input and
    /// `COPY_DST` on the output, through which they travel to and from scratch
    /// buffers. Buffers with `STORAGE` alone still work: `record` then takes the
    /// slower plan [`without_copies`](Self::without_copies). The copy usages buy
    /// the fast path.
    pub fn buffer_usages(&self, tensor: TensorRole) -> wgpu::BufferUsages {
        let copy = match tensor {
            TensorRole::Input => wgpu::BufferUsages::COPY_SRC,
            TensorRole::SequenceLengths => wgpu::BufferUsages::empty(),
            TensorRole::Output => wgpu::BufferUsages::COPY_DST,
        };
        match self.scratch.is_some() {
            true => wgpu::BufferUsages::STORAGE | copy,
            false => wgpu::BufferUsages::STORAGE,
        }
    }

    /// Bytes of scratch memory the operator owns: none where every piece reads
    /// its sources from one window, else two buffers of at most one binding
    /// window each.
    pub fn scratch_bytes(&self) -> u64 {
        self.scratch
            .as_deref()
            .into_iter()
            .flatten()
            .map(|buffer| buffer.size())
            .sum()
    }

    /// The plan [`record`](Self::record) takes where the caller's input lacks
    /// `COPY_SRC` or output lacks `COPY_DST`, which this one's staged pieces
    /// need ([`buffer_usages`](Self::buffer_usages)): pairs of windows, each
    /// dispatch writing the elements whose sources its input window holds, with
    /// no scratch and more dispatches (`docs/windows.md`). `None` where this plan
    /// needs no copies, or where no plan without them exists (one that would take
    /// more than 65,536 dispatches).
    pub fn without_copies(&self) -> Option<&CompiledReverse> {
        self.without_copies.as_deref()
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
    /// [`dispatch_count`](Self::dispatch_count) dispatches, each binding a window of
    /// each buffer; `binding_size` may then exceed the device's binding limit (never
    /// its `max_buffer_size`). Where the reversed axis spans more than a window,
    /// some layouts run staged: each piece's input is copied into the operator's
    /// own scratch buffers, reversed there, and copied back
    /// ([`scratch_bytes`](Self::scratch_bytes)), which needs the
    /// [`buffer_usages`](Self::buffer_usages) `COPY_SRC` on the input and `COPY_DST`
    /// on the output; buffers without them run the plan
    /// [`without_copies`](Self::without_copies), slower but as exact. Copies and
    /// dispatches all go into `encoder`, in order.
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
        if let Some(unstaged) = &self.without_copies {
            let copies = input.buffer.usage().contains(wgpu::BufferUsages::COPY_SRC)
                && output.buffer.usage().contains(wgpu::BufferUsages::COPY_DST);
            if !copies {
                return unstaged.record(encoder, input, sequence_lengths, output);
            }
        }
        self.check(&input, &sequence_lengths, &output)?;
        if self.is_empty() {
            return Ok(());
        }
        // wgpu records into an encoder of a lost device without a word.
        self.gpu.check_not_lost("recording the operator")?;
        self.encode(
            encoder,
            [&input, &sequence_lengths, &output],
            &self.commands(false),
        )
    }

    /// `record`'s checks of the caller's bindings: every rule wgpu checks when
    /// binding them.
    pub(crate) fn check(
        &self,
        input: &wgpu::BufferBinding<'_>,
        sequence_lengths: &wgpu::BufferBinding<'_>,
        output: &wgpu::BufferBinding<'_>,
    ) -> Result<(), Error> {
        let bindings = [
            (TensorRole::Input, input),
            (TensorRole::SequenceLengths, sequence_lengths),
            (TensorRole::Output, output),
        ];
        let alignment = self.offset_alignment;
        for (tensor, binding) in bindings {
            let usage = binding.buffer.usage();
            let required = self.buffer_usages(tensor);
            if !usage.contains(required) {
                return Err(Error::BindingUsage {
                    tensor,
                    usage,
                    required,
                });
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
        Ok(())
    }

    /// The operator's commands in order: each dispatch whole, or in its parts
    /// where it has them and `in_parts`.
    pub(crate) fn commands(&self, in_parts: bool) -> Vec<Command> {
        let mut commands = Vec::new();
        for (i, launch) in self.launches.iter().enumerate() {
            if launch.workgroups[0] == 0 {
                continue;
            }
            let staged = launch.staging.is_some() && self.scratch.is_some();
            if staged {
                commands.push(Command::StageIn(i));
            }
            match in_parts && !launch.parts.is_empty() {
                true => commands.extend(launch.parts.iter().map(|part| Command::Dispatch {
                    launch: i,
                    params: part.params,
                    workgroups: part.workgroups,
                })),
                false => commands.push(Command::Dispatch {
                    launch: i,
                    params: i,
                    workgroups: launch.workgroups,
                }),
            }
            if staged {
                commands.push(Command::StageOut(i));
            }
        }
        commands
    }

    /// Output bytes a command's workgroups visit.
    pub(crate) fn command_bytes(&self, command: &Command) -> u64 {
        match *command {
            Command::Dispatch { launch, params, .. } => self.launches[launch]
                .parts
                .iter()
                .find(|part| part.params == params)
                .map_or(self.launches[launch].windows[2].size, |part| part.bytes),
            Command::StageIn(_) | Command::StageOut(_) => 0,
        }
    }

    /// A bind group for each `Dispatch` of `commands` on the caller's `bindings`:
    /// what wgpu can still reject, made before anything is recorded, so that a
    /// rejection leaves the caller's encoder untouched.
    fn bind_groups(
        &self,
        bindings: [&wgpu::BufferBinding<'_>; 3],
        commands: &[Command],
    ) -> Result<Vec<Option<wgpu::BindGroup>>, Error> {
        let device = self.gpu.device();
        let bind_group = |launch: &Launch, params: usize| {
            let window = |binding: usize| {
                let w = launch.windows[binding];
                // A staged dispatch's input and output windows are in scratch.
                let (buffer, offset) = match (self.scratch.as_deref(), launch.staging, binding) {
                    (Some(scratch), Some(_), 0 | 2) => (&scratch[binding / 2], 0),
                    _ => (bindings[binding].buffer, bindings[binding].offset),
                };
                wgpu::BufferBinding {
                    buffer,
                    offset: offset + w.offset,
                    size: wgpu::BufferSize::new(w.size),
                }
            };
            bindings::bind_group(
                device,
                self.gpu.bind_group_layout(),
                self.params_binding(params),
                [window(0), window(1), window(2)],
                None,
            )
        };
        let make = || -> Vec<Option<wgpu::BindGroup>> {
            commands
                .iter()
                .map(|command| match *command {
                    Command::Dispatch { launch, params, .. } => {
                        Some(bind_group(&self.launches[launch], params))
                    }
                    _ => None,
                })
                .collect()
        };
        #[cfg(not(target_arch = "wasm32"))]
        let bind_groups = {
            let scope = Scope::push(device);
            let bind_groups = make();
            // Native wgpu resolves a popped scope at once; one that did not would
            // be wgpu's own error, so it counts as none rather than a wait.
            let context = "binding the tensors";
            if let Some(Err(error)) = now_or_never(scope.pop(context)) {
                return Err(self.gpu.lost_or(error, context));
            }
            Ok(bind_groups)
        };
        #[cfg(target_arch = "wasm32")]
        let bind_groups = Ok(make());
        bind_groups
    }

    /// Records `commands` into `encoder` on the caller's `bindings` (input, lengths,
    /// output), already checked.
    pub(crate) fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: [&wgpu::BufferBinding<'_>; 3],
        commands: &[Command],
    ) -> Result<(), Error> {
        let bind_groups = self.bind_groups(bindings, commands)?;
        let [input, _, output] = bindings;
        let begin = |encoder: &mut wgpu::CommandEncoder| {
            let mut pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("revseq::reverse_subsequences"),
                    timestamp_writes: None,
                })
                .forget_lifetime();
            pass.set_pipeline(&self.pipeline);
            pass
        };
        // In order: a windowed dispatch may merge into words an earlier one wrote.
        // Dispatches share one compute pass; a staged one ends it for its copies.
        let mut pass: Option<wgpu::ComputePass<'static>> = None;
        for (command, bind_group) in commands.iter().zip(&bind_groups) {
            match (*command, bind_group, self.scratch.as_deref()) {
                (Command::Dispatch { workgroups, .. }, Some(bind_group), _) => {
                    let pass = pass.get_or_insert_with(|| begin(encoder));
                    pass.set_bind_group(0, bind_group, &[]);
                    pass.dispatch_workgroups(workgroups[0], workgroups[1], 1);
                }
                (
                    Command::StageIn(d) | Command::StageOut(d),
                    _,
                    Some([scratch_in, scratch_out]),
                ) => {
                    drop(pass.take());
                    let Some(staging) = self.launches[d].staging else {
                        continue;
                    };
                    // Segment p: at `origin + p * stride` in the caller's binding, at
                    // `p * pitch` in scratch.
                    let (from, to, segments) = match command {
                        Command::StageIn(_) => {
                            let s = staging.input;
                            (
                                (input.buffer, input.offset + s.origin, s.stride),
                                (scratch_in, 0, s.pitch),
                                s,
                            )
                        }
                        _ => {
                            let s = staging.output;
                            (
                                (scratch_out, 0, s.pitch),
                                (output.buffer, output.offset + s.origin, s.stride),
                                s,
                            )
                        }
                    };
                    for p in 0..u64::from(staging.positions) {
                        encoder.copy_buffer_to_buffer(
                            from.0,
                            from.1 + p * from.2,
                            to.0,
                            to.1 + p * to.2,
                            segments.bytes,
                        );
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The layout uniform of dispatch `i`.
    pub(crate) fn params_binding(&self, i: usize) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &self.params,
            offset: i as u64 * self.params_stride,
            size: wgpu::BufferSize::new(PARAMS_SIZE),
        })
    }

    /// Whether no dispatch has work: a tensor without elements.
    pub(crate) fn is_empty(&self) -> bool {
        self.launches.iter().all(|d| d.workgroups[0] == 0)
    }
}
