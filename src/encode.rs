//! How a compiled operator goes into an encoder: its commands in order (each
//! dispatch whole or in parts, a staged one between its copies), a bind group for
//! each dispatch on the caller's bindings, and the compute passes and copies.

use crate::bindings;
use crate::compiled::CompiledReverse;
use crate::error::Error;
use crate::launch::params_binding;
use crate::parts::Parts;
#[cfg(not(target_arch = "wasm32"))]
use crate::scope::{now_or_never, Scope};
use crate::window::Staging;

/// One command of a recorded operator.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Command {
    /// Copies a staged dispatch's input segments into scratch.
    StageIn(usize),
    /// Dispatches `workgroups` of launch `launch`, which visit `bytes` of output,
    /// with the launch's `Params`, or where `part` is some, with the `Params` at
    /// that index of the parts' uniform.
    Dispatch {
        launch: usize,
        part: Option<usize>,
        workgroups: [u32; 2],
        bytes: u64,
    },
    /// Copies a staged dispatch's output segments back.
    StageOut(usize),
}

impl Command {
    /// Output bytes its workgroups visit.
    pub(crate) fn bytes(&self) -> u64 {
        match *self {
            Command::Dispatch { bytes, .. } => bytes,
            Command::StageIn(_) | Command::StageOut(_) => 0,
        }
    }
}

impl CompiledReverse {
    /// The operator's commands in order: each dispatch whole, or in its parts
    /// where `parts` has some for it.
    pub(crate) fn commands(&self, parts: Option<&Parts>) -> Vec<Command> {
        let mut commands = Vec::new();
        let mut next_part = 0;
        for (i, launch) in self.launches.iter().enumerate() {
            if launch.workgroups[0] == 0 {
                continue;
            }
            let staged = launch.staging.is_some() && self.scratch.is_some();
            if staged {
                commands.push(Command::StageIn(i));
            }
            match parts.map_or(&[][..], |parts| &parts.of[i][..]) {
                [] => commands.push(Command::Dispatch {
                    launch: i,
                    part: None,
                    workgroups: launch.workgroups,
                    bytes: launch.windows[2].size,
                }),
                of => commands.extend(of.iter().map(|part| {
                    next_part += 1;
                    Command::Dispatch {
                        launch: i,
                        part: Some(next_part - 1),
                        workgroups: part.workgroups,
                        bytes: part.bytes,
                    }
                })),
            }
            if staged {
                commands.push(Command::StageOut(i));
            }
        }
        commands
    }

    /// A bind group for each `Dispatch` of `commands` on the caller's `bindings`
    /// (and its part's `Params` in `parts`, where it is a part):
    /// what wgpu can still reject, made before anything is recorded, so that a
    /// rejection leaves the caller's encoder untouched.
    fn bind_groups(
        &self,
        bindings: [&wgpu::BufferBinding<'_>; 3],
        commands: &[Command],
        parts: Option<&wgpu::Buffer>,
    ) -> Result<Vec<Option<wgpu::BindGroup>>, Error> {
        let device = self.gpu.device();
        let bind_group = |i: usize, part: Option<usize>| {
            let launch = &self.launches[i];
            // A part's `Params` lie in the parts' uniform, a whole dispatch's in its own.
            let params = match part.zip(parts) {
                Some((part, uniform)) => params_binding(uniform, part, self.params_stride),
                None => self.params_binding(i),
            };
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
                params,
                [window(0), window(1), window(2)],
                None,
            )
        };
        let make = || -> Vec<Option<wgpu::BindGroup>> {
            commands
                .iter()
                .map(|command| match *command {
                    Command::Dispatch { launch, part, .. } => Some(bind_group(launch, part)),
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
    /// output), already checked, with the parts' uniform `parts` where they have
    /// parts.
    pub(crate) fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: [&wgpu::BufferBinding<'_>; 3],
        commands: &[Command],
        parts: Option<&wgpu::Buffer>,
    ) -> Result<(), Error> {
        let bind_groups = self.bind_groups(bindings, commands, parts)?;
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
                (Command::StageIn(d) | Command::StageOut(d), _, Some(scratch)) => {
                    drop(pass.take());
                    if let Some(staging) = self.launches[d].staging {
                        copy_segments(encoder, command, &staging, [input, output], scratch);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The copies of a staged dispatch's `StageIn` or `StageOut` `command`: segment
/// p lies at `origin + p * stride` in the caller's binding (`bindings`: input,
/// output) and at `p * pitch` in the scratch buffer (`scratch`: input, output).
fn copy_segments(
    encoder: &mut wgpu::CommandEncoder,
    command: &Command,
    staging: &Staging,
    [input, output]: [&wgpu::BufferBinding<'_>; 2],
    [scratch_in, scratch_out]: &[wgpu::Buffer; 2],
) {
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
