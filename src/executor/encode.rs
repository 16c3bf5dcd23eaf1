//! How a compiled operator goes into an encoder: its commands in order (each
//! of the program's dispatches whole or in parts), a bind group for each that
//! binds what the dispatch's [`bindings`](crate::program::Dispatch::bindings)
//! say, in the published convention, on the caller's bindings and the
//! operator's own buffers, and the compute passes and, where the program lets
//! staged segments go so and the buffers allow it, buffer copies.

use crate::descriptor::error::{Error, TensorRole};
use crate::executor::compiled::CompiledReverse;
use crate::executor::device::pipeline::KernelPipeline;
#[cfg(not(target_arch = "wasm32"))]
use crate::executor::device::scope::{now_or_never, Scope};
use crate::executor::parts::Parts;
use crate::executor::uniform::Uniforms;
use crate::kernels::copy::Direction;
use crate::plan::dispatch::StagingCopy;
use crate::plan::program::Binding;

/// The trace build in place of the operator's pipelines (`src/lab/trace.rs`):
/// the traced pipeline of each of the program's kernels, and the records
/// buffer, a slice of `slice` bytes for each command, bound at `binding`.
pub(crate) struct Tracing<'a> {
    pub(crate) pipelines: &'a [KernelPipeline],
    pub(crate) records: &'a wgpu::Buffer,
    pub(crate) slice: u64,
    pub(crate) binding: u32,
}

impl Tracing<'_> {
    /// Command `k`'s slice of the records.
    fn slice_of(&self, k: usize) -> wgpu::BindGroupEntry<'_> {
        wgpu::BindGroupEntry {
            binding: self.binding,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: self.records,
                offset: k as u64 * self.slice,
                size: wgpu::BufferSize::new(self.slice),
            }),
        }
    }
}

/// One dispatch of a recorded operator: `workgroups` of the program's dispatch
/// `dispatch`, which visit `bytes` of output, with the dispatch's uniform, or
/// where `part` is some, with the uniform at that index of the parts'.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Command {
    pub(crate) dispatch: usize,
    pub(crate) part: Option<usize>,
    pub(crate) workgroups: [u32; 2],
    pub(crate) bytes: u64,
}

impl CompiledReverse {
    /// The operator's commands in order: each dispatch with work whole, or in
    /// its parts where `parts` has some for it.
    pub(crate) fn commands(&self, parts: Option<&Parts>) -> Vec<Command> {
        let mut commands = Vec::new();
        let mut next_part = 0;
        for (i, dispatch) in self.program.dispatches().iter().enumerate() {
            if dispatch.workgroups[0] == 0 {
                continue;
            }
            match parts.map_or(&[][..], |parts| &parts.of[i][..]) {
                [] => commands.push(Command {
                    dispatch: i,
                    part: None,
                    workgroups: [dispatch.workgroups[0], dispatch.workgroups[1]],
                    bytes: dispatch.output_bytes(),
                }),
                of => commands.extend(of.iter().map(|part| {
                    next_part += 1;
                    Command {
                        dispatch: i,
                        part: Some(next_part - 1),
                        workgroups: [part.workgroups[0], part.workgroups[1]],
                        bytes: part.bytes,
                    }
                })),
            }
        }
        commands
    }

    /// Whether `record` on these buffers copies staged segments with buffer
    /// copies where the program lets it ([`Program::buffer_copy`]): where the
    /// input has `COPY_SRC` and the output `COPY_DST`.
    ///
    /// [`Program::buffer_copy`]: crate::program::Program
    pub(crate) fn copies_by_buffer(&self, input: &wgpu::Buffer, output: &wgpu::Buffer) -> bool {
        input.usage().contains(wgpu::BufferUsages::COPY_SRC)
            && output.usage().contains(wgpu::BufferUsages::COPY_DST)
    }

    /// What `binding` binds: a window of one of the caller's `bindings`
    /// (input, lengths, output; in place the tensor at the output's place),
    /// of the operator's own scratch or placeholder, or the dispatch's
    /// uniform, `params`.
    fn resource<'a>(
        &'a self,
        binding: &Binding,
        bindings: [&wgpu::BufferBinding<'a>; 3],
        params: &wgpu::BindingResource<'a>,
    ) -> wgpu::BindingResource<'a> {
        let (buffer, start) = match binding {
            Binding::Tensor { tensor, .. } => {
                let caller = match tensor {
                    TensorRole::Input => bindings[0],
                    TensorRole::SequenceLengths => bindings[1],
                    TensorRole::Output | TensorRole::Tensor => bindings[2],
                };
                (caller.buffer, caller.offset)
            }
            // `compile` made the buffers its dispatches bind.
            Binding::Scratch { buffer, .. } => {
                let scratch = self.scratch.as_deref().expect("the program's scratch");
                (&scratch[*buffer], 0)
            }
            Binding::Placeholder { .. } => {
                let placeholder = self.placeholder.as_deref();
                (placeholder.expect("the program's placeholder"), 0)
            }
            Binding::Params { .. } => return params.clone(),
        };
        let (offset, size) = binding.window();
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: start + offset,
            size: wgpu::BufferSize::new(size),
        })
    }

    /// A bind group for each of `commands` that dispatches on the caller's
    /// `bindings` (and its part's uniform in `parts`, where it is a part), none
    /// for the copies made `by_buffer`: what wgpu can still reject, made before
    /// anything is recorded, so that a rejection leaves the caller's encoder
    /// untouched. The trace build's bind groups add each command's slice of the
    /// records.
    fn bind_groups(
        &self,
        bindings: [&wgpu::BufferBinding<'_>; 3],
        commands: &[Command],
        parts: Option<&Uniforms>,
        by_buffer: bool,
        tracing: Option<&Tracing>,
    ) -> Result<Vec<Option<wgpu::BindGroup>>, Error> {
        let device = self.gpu.device();
        let pipelines = tracing.map_or(&self.pipelines[..], |t| t.pipelines);
        let dispatches = self.program.dispatches();
        let bind_group = |(k, command): (usize, &Command)| {
            if by_buffer && self.program.buffer_copy(command.dispatch).is_some() {
                return None;
            }
            let dispatch = &dispatches[command.dispatch];
            // A part's uniform lies in the parts' buffer, a whole dispatch's in its own.
            let params = match command.part.zip(parts) {
                Some((part, uniforms)) => uniforms.binding(part),
                None => self.params_binding(command.dispatch),
            };
            let mut entries: Vec<wgpu::BindGroupEntry> = (dispatch.bindings.iter())
                .enumerate()
                .map(|(i, binding)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: self.resource(binding, bindings, &params),
                })
                .collect();
            entries.extend(tracing.map(|t| t.slice_of(k)));
            Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("revseq::bind_group"),
                layout: &pipelines[dispatch.kernel].layout,
                entries: &entries,
            }))
        };
        let make = || {
            commands
                .iter()
                .enumerate()
                .map(bind_group)
                .collect::<Vec<_>>()
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
    /// output), already checked, with the parts' uniform `parts` where they have
    /// parts, and staged segments copied `by_buffer` where the program lets
    /// them, else by the copy kernel; the trace build's pipelines and records
    /// where `tracing` is some.
    pub(crate) fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: [&wgpu::BufferBinding<'_>; 3],
        commands: &[Command],
        parts: Option<&Uniforms>,
        by_buffer: bool,
        tracing: Option<&Tracing>,
    ) -> Result<(), Error> {
        let bind_groups = self.bind_groups(bindings, commands, parts, by_buffer, tracing)?;
        let pipelines = tracing.map_or(&self.pipelines[..], |t| t.pipelines);
        let dispatches = self.program.dispatches();
        // In order: a windowed dispatch may merge into words an earlier one
        // wrote, and a staged piece reads what its copies wrote. Dispatches share
        // a compute pass; buffer copies end it.
        let mut pass: Option<wgpu::ComputePass<'static>> = None;
        let mut kernel = None;
        for (command, bind_group) in commands.iter().zip(&bind_groups) {
            let dispatch = &dispatches[command.dispatch];
            match bind_group {
                Some(bind_group) => {
                    let pass = pass.get_or_insert_with(|| {
                        kernel = None;
                        self.begin(encoder)
                    });
                    if kernel != Some(dispatch.kernel) {
                        pass.set_pipeline(&pipelines[dispatch.kernel].pipeline);
                        kernel = Some(dispatch.kernel);
                    }
                    pass.set_bind_group(0, bind_group, &[]);
                    pass.dispatch_workgroups(command.workgroups[0], command.workgroups[1], 1);
                }
                None => {
                    drop(pass.take());
                    let copy = self.program.buffer_copy(command.dispatch);
                    let scratch = self.scratch.as_deref();
                    if let Some((copy, scratch)) = copy.zip(scratch) {
                        let [input, _, output] = bindings;
                        copy_segments(encoder, copy, [input, output], scratch);
                    }
                }
            }
        }
        Ok(())
    }

    fn begin(&self, encoder: &mut wgpu::CommandEncoder) -> wgpu::ComputePass<'static> {
        encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("revseq::reverse_subsequences"),
                timestamp_writes: None,
            })
            .forget_lifetime()
    }
}

/// A batch's segments as buffer copies, one a segment: segment p lies at
/// `origin + p * stride` in the caller's binding (`bindings`: input, output) and
/// at `p * pitch` in the scratch buffer (`scratch`: input, output).
fn copy_segments(
    encoder: &mut wgpu::CommandEncoder,
    copy: &StagingCopy,
    [input, output]: [&wgpu::BufferBinding<'_>; 2],
    [scratch_in, scratch_out]: &[wgpu::Buffer; 2],
) {
    let s = copy.segments;
    for p in copy.batch.first..copy.batch.first + copy.batch.count {
        let p = u64::from(p);
        let caller = s.origin + p * s.stride;
        match copy.direction {
            Direction::In => encoder.copy_buffer_to_buffer(
                input.buffer,
                input.offset + caller,
                scratch_in,
                p * s.pitch,
                s.bytes,
            ),
            Direction::Out => encoder.copy_buffer_to_buffer(
                scratch_out,
                p * s.pitch,
                output.buffer,
                output.offset + caller,
                s.bytes,
            ),
        }
    }
}
