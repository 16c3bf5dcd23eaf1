//! How a compiled operator goes into an encoder: its commands in order (each
//! dispatch whole or in parts, a staged piece's between the copies of its
//! segments), a bind group for each on the caller's bindings and the scratch
//! buffers, and the compute passes and buffer copies.

use crate::descriptor::error::{Error, TensorRole};
use crate::executor::bindings;
use crate::executor::compiled::CompiledReverse;
use crate::executor::parts::Parts;
#[cfg(not(target_arch = "wasm32"))]
use crate::executor::scope::{now_or_never, Scope};
use crate::executor::uniform::params_binding;
use crate::kernels::copy::Direction;
use crate::plan::dispatch::{Binding, StagingCopy};

/// The trace build in place of the operator's pipelines (`src/lab/trace.rs`): the
/// operator's and the staging copy's, their bind group layout (the operator's,
/// with the records at binding 4), and the records buffer, a slice of `slice`
/// bytes for each command.
pub(crate) struct Tracing<'a> {
    pub(crate) layout: &'a wgpu::BindGroupLayout,
    pub(crate) pipeline: &'a wgpu::ComputePipeline,
    pub(crate) copy: Option<&'a wgpu::ComputePipeline>,
    pub(crate) records: &'a wgpu::Buffer,
    pub(crate) slice: u64,
}

impl Tracing<'_> {
    /// Command `k`'s slice of the records.
    fn slice_of(&self, k: usize) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: self.records,
            offset: k as u64 * self.slice,
            size: wgpu::BufferSize::new(self.slice),
        })
    }
}

/// One dispatch of a recorded operator: `workgroups` of the program's dispatch
/// `dispatch`, which visit `bytes` of output, with the dispatch's `Params`, or
/// where `part` is some, with the `Params` at that index of the parts' uniform.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Command {
    pub(crate) dispatch: usize,
    pub(crate) part: Option<usize>,
    pub(crate) workgroups: [u32; 2],
    pub(crate) bytes: u64,
}

impl CompiledReverse {
    /// The operator's commands in order: each dispatch whole, or in its parts
    /// where `parts` has some for it.
    pub(crate) fn commands(&self, parts: Option<&Parts>) -> Vec<Command> {
        let mut commands = Vec::new();
        let mut next_part = 0;
        for (i, dispatch) in self.program.dispatches.iter().enumerate() {
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
                        workgroups: part.workgroups,
                        bytes: part.bytes,
                    }
                })),
            }
        }
        commands
    }

    /// Whether `record` on these buffers copies staged segments with buffer
    /// copies rather than the copy kernel: where the plan does and the input
    /// has `COPY_SRC` and the output `COPY_DST`.
    pub(crate) fn copies_by_buffer(&self, input: &wgpu::Buffer, output: &wgpu::Buffer) -> bool {
        self.program.by_buffer
            && input.usage().contains(wgpu::BufferUsages::COPY_SRC)
            && output.usage().contains(wgpu::BufferUsages::COPY_DST)
    }

    /// What `buffer` binds at `place` (input, lengths, output): a window of
    /// the caller's `bindings` (in place the tensor at the output's place), or
    /// of the operator's own buffer (`compile` makes each one a dispatch binds).
    fn window<'a>(
        &'a self,
        place: usize,
        buffer: &Binding,
        bindings: [&wgpu::BufferBinding<'a>; 3],
    ) -> wgpu::BufferBinding<'a> {
        let caller = |i: usize| Some((bindings[i].buffer, bindings[i].offset));
        let own = |buffer: Option<&'a wgpu::Buffer>| buffer.map(|b| (b, 0));
        let (buffer_of, offset_of) = match buffer {
            Binding::Tensor { tensor, .. } => match tensor {
                TensorRole::Input => caller(0),
                TensorRole::SequenceLengths => caller(1),
                TensorRole::Output | TensorRole::Tensor => caller(2),
            },
            Binding::Placeholder { .. } => own(self.placeholder.as_deref()),
            Binding::Scratch { buffer, .. } => own(self.scratch.as_deref().map(|s| &s[*buffer])),
            Binding::Params { .. } => None,
        }
        .unwrap_or((bindings[place].buffer, bindings[place].offset));
        let (offset, size) = buffer.window();
        wgpu::BufferBinding {
            buffer: buffer_of,
            offset: offset_of + offset,
            size: wgpu::BufferSize::new(size),
        }
    }

    /// A bind group for each of `commands` that dispatches on the caller's
    /// `bindings` (and its part's `Params` in `parts`, where it is a part), none
    /// for the copies made `by_buffer`: what wgpu can still reject, made before
    /// anything is recorded, so that a rejection leaves the caller's encoder
    /// untouched. The trace build's bind groups add each command's slice of the
    /// records.
    fn bind_groups(
        &self,
        bindings: [&wgpu::BufferBinding<'_>; 3],
        commands: &[Command],
        parts: Option<&wgpu::Buffer>,
        by_buffer: bool,
        tracing: Option<&Tracing>,
    ) -> Result<Vec<Option<wgpu::BindGroup>>, Error> {
        let device = self.gpu.device();
        let writable_input = self.program.key.writes_input();
        let layout = tracing.map_or(self.gpu.bind_group_layout(writable_input), |t| t.layout);
        let bind_group = |(k, command): (usize, &Command)| {
            let dispatch = &self.program.dispatches[command.dispatch];
            if by_buffer && dispatch.copy.is_some() {
                return None;
            }
            // A part's `Params` lie in the parts' uniform, a whole dispatch's in its own.
            let params = match command.part.zip(parts) {
                Some((part, uniform)) => params_binding(uniform, part, self.params_stride),
                None => self.params_binding(command.dispatch),
            };
            let window = |place: usize| self.window(place, &dispatch.buffers[place], bindings);
            let records = tracing.map(|t| t.slice_of(k));
            Some(bindings::bind_group(
                device,
                layout,
                params,
                [window(0), window(1), window(2)],
                records,
            ))
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
    /// parts, and staged segments copied `by_buffer` or by the copy kernel; the
    /// trace build's pipeline and records where `tracing` is some.
    pub(crate) fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: [&wgpu::BufferBinding<'_>; 3],
        commands: &[Command],
        parts: Option<&wgpu::Buffer>,
        by_buffer: bool,
        tracing: Option<&Tracing>,
    ) -> Result<(), Error> {
        let bind_groups = self.bind_groups(bindings, commands, parts, by_buffer, tracing)?;
        let operator = tracing.map_or(&*self.pipeline, |t| t.pipeline);
        let staging_copy = tracing.map_or(self.copy.as_deref(), |t| t.copy);
        // In order: a windowed dispatch may merge into words an earlier one
        // wrote, and a staged piece reads what its copies wrote. Dispatches share
        // a compute pass; buffer copies end it.
        let mut pass: Option<wgpu::ComputePass<'static>> = None;
        let mut copying = None;
        for (command, bind_group) in commands.iter().zip(&bind_groups) {
            let dispatch = &self.program.dispatches[command.dispatch];
            match (bind_group, dispatch.copy, self.scratch.as_deref()) {
                (Some(bind_group), copy, _) => {
                    let pass = pass.get_or_insert_with(|| {
                        copying = None;
                        self.begin(encoder)
                    });
                    if copying != Some(copy.is_some()) {
                        let pipeline = match (copy, staging_copy) {
                            (Some(_), Some(pipeline)) => pipeline,
                            _ => operator,
                        };
                        pass.set_pipeline(pipeline);
                        copying = Some(copy.is_some());
                    }
                    pass.set_bind_group(0, bind_group, &[]);
                    pass.dispatch_workgroups(command.workgroups[0], command.workgroups[1], 1);
                }
                (None, Some(copy), Some(scratch)) => {
                    drop(pass.take());
                    let [input, _, output] = bindings;
                    copy_segments(encoder, &copy, [input, output], scratch);
                }
                _ => {}
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
