//! One dispatch of a program ([`Dispatch`]), the type the planner makes and
//! every executor walks, and how the planner makes them, once, on the host,
//! from the cut's pieces and the family's work on each: a staged piece's
//! between the copies of its segments, workgroups folded into x and y, each
//! binding as a tensor, scratch or placeholder window, and the layout
//! uniform's `Params`.

use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::layout::Layout;
use crate::descriptor::Mode;
use crate::kernels::copy::{self, Copying, Direction};
use crate::kernels::divisor::Divisor;
use crate::kernels::params::Params;
use crate::kernels::shaders::WORKGROUP_SIZE;
use crate::kernels::Work;
use crate::plan::cut::{Batch, InputBinding, Piece, Segments, Staging, Window};
use crate::plan::kernel::{COPY, OPERATOR};

/// One dispatch: a kernel, its workgroups, and what each binding holds.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub struct Dispatch {
    /// Which of [`Program::kernels`](crate::program::Program::kernels) it runs.
    pub kernel: usize,
    /// Workgroups in x, y and z.
    pub workgroups: [u32; 3],
    /// `@binding(i)` holds `bindings[i]`: the buffers the kernel uses, then
    /// the uniform.
    pub bindings: Vec<Binding>,
    /// Workgroups with work: `workgroups` launch at least as many.
    groups: u32,
    /// Bytes of its window of the output (in place, of the tensor; of
    /// scratch where a staged piece's copy writes there): what its workgroups
    /// visit.
    output_bytes: u64,
    /// Its layout uniform, as the uniform's bytes hold it.
    pub(super) params: Params,
    /// The segments it moves, where it is a staged piece's copy.
    copy: Option<StagingCopy>,
}

impl Dispatch {
    /// A dispatch of `kernel` over `groups` workgroups launched as `[x, y]`,
    /// binding those of `buffers` (input, lengths, output) the kernel `uses`,
    /// then `params`.
    pub(crate) fn new(
        kernel: usize,
        [x, y]: [u32; 2],
        groups: u32,
        buffers: [Binding; 3],
        uses: [bool; 3],
        params: Params,
        copy: Option<StagingCopy>,
    ) -> Dispatch {
        let output_bytes = buffers[2].size();
        let used = buffers.into_iter().zip(uses).filter(|(_, u)| *u);
        let uniform = Binding::Params {
            bytes: bytemuck::bytes_of(&params).to_vec(),
        };
        Dispatch {
            kernel,
            workgroups: [x, y, 1],
            bindings: used.map(|(b, _)| b).chain([uniform]).collect(),
            groups,
            output_bytes,
            params,
            copy,
        }
    }

    /// Its layout uniform: the host's twin of a kernel reads it
    /// (`src/plan/across_twin.rs`).
    #[cfg(test)]
    pub(crate) fn params(&self) -> &Params {
        &self.params
    }

    /// Bytes of its window of the output (in place, of the tensor): what its
    /// workgroups visit, the measure of its work where an executor bounds
    /// each submission's.
    pub fn output_bytes(&self) -> u64 {
        self.output_bytes
    }

    /// Workgroups with work: [`workgroups`](Self::workgroups) launch at least
    /// as many, the fold's last row idle past them.
    pub fn workgroups_with_work(&self) -> u32 {
        self.groups
    }

    /// Its layout uniform's bytes: the binding after its buffers, the last of
    /// [`bindings`](Self::bindings). The one place that says where the uniform
    /// binds.
    pub fn uniform(&self) -> &[u8] {
        match self.bindings.last() {
            Some(Binding::Params { bytes }) => bytes,
            _ => unreachable!("Dispatch::new binds the uniform last"),
        }
    }

    /// The segments it moves, where it is a staged piece's copy.
    pub(super) fn staging_copy(&self) -> Option<&StagingCopy> {
        self.copy.as_ref()
    }
}

/// A staged piece's copy of a batch of its segments between the caller's
/// buffer and scratch: a dispatch of the copy kernel (`src/kernels/copy.rs`),
/// or where the adapter copies buffers faster and the caller's buffers allow
/// it, a buffer copy per segment (`tuning::copies_by_buffer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StagingCopy {
    pub(crate) direction: Direction,
    pub(crate) segments: Segments,
    pub(crate) batch: Batch,
}

/// What one binding of a dispatch holds.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Binding {
    /// `size` bytes of a tensor from byte `offset` (a multiple of the target's
    /// storage offset alignment): the tensor is the caller's, `size` at most the
    /// target's binding.
    Tensor {
        /// Which tensor.
        tensor: TensorRole,
        /// From its first byte.
        offset: u64,
        /// Bytes bound.
        size: u64,
    },
    /// `size` bytes of scratch buffer `buffer` (0 or 1, of
    /// [`Program::scratch_bytes`](crate::program::Program::scratch_bytes)) from byte `offset`: the executor's own
    /// memory, kept for the program's dispatches.
    Scratch {
        /// Which scratch buffer.
        buffer: usize,
        /// From its first byte.
        offset: u64,
        /// Bytes bound.
        size: u64,
    },
    /// Any buffer of at least `size` bytes: the kernel names the binding, and
    /// never reads it in this dispatch.
    Placeholder {
        /// Bytes it must hold.
        size: u64,
    },
    /// A uniform buffer holding these bytes: the dispatch's layout.
    Params {
        /// The uniform's bytes.
        bytes: Vec<u8>,
    },
}

impl Binding {
    /// Bytes from the start of its buffer and bytes bound (a placeholder's
    /// from 0, a uniform's its bytes).
    pub(crate) fn window(&self) -> (u64, u64) {
        match *self {
            Binding::Tensor { offset, size, .. } | Binding::Scratch { offset, size, .. } => {
                (offset, size)
            }
            Binding::Placeholder { size } => (0, size),
            Binding::Params { ref bytes } => (0, bytes.len() as u64),
        }
    }

    /// Bytes bound.
    pub(crate) fn size(&self) -> u64 {
        self.window().1
    }
}

/// Each piece's dispatch with its `work`'s `Params` (over an axis of `layout`'s),
/// a staged one's between the copies of its segments into and out of scratch;
/// `uses` are the buffers the operator's kernel and the copy's use.
pub(crate) struct Making<'a> {
    pub(crate) layout: &'a Layout,
    pub(crate) limits: &'a wgpu::Limits,
    pub(crate) copying: Copying,
    pub(crate) mode: Mode,
    pub(crate) output_bytes: u64,
    pub(crate) uses: [[bool; 3]; 2],
}

impl Making<'_> {
    /// The dispatches of `pieces`, each run by the work beside it: more
    /// workgroups than the device allows in one dimension fold into y, with as
    /// few idle as the fold allows.
    pub(crate) fn dispatches(
        &self,
        work: &[Work],
        pieces: &[Piece],
    ) -> Result<Vec<Dispatch>, Error> {
        let axis_size = self.layout.dims[self.layout.axis].size;
        let mut dispatches = Vec::new();
        for (work, piece) in work.iter().zip(pieces) {
            let groups = work.workgroups();
            let mut params = piece_params(piece, axis_size);
            work.write(&mut params);
            let operator = |buffers: [Binding; 3]| -> Result<Dispatch, Error> {
                self.dispatch(OPERATOR, groups, buffers, params, None)
            };
            let Some(staging) = &piece.staging else {
                let [input, lengths, output] = piece.windows;
                let input = match piece.input {
                    InputBinding::Input => self.tensor(0, input),
                    InputBinding::Tensor => self.tensor(2, input),
                    InputBinding::Placeholder => Binding::Placeholder { size: input.size },
                };
                let buffers = [input, self.tensor(1, lengths), self.tensor(2, output)];
                dispatches.push(operator(buffers)?);
                continue;
            };
            dispatches.extend(self.copies(piece, staging, Direction::In)?);
            let [input, lengths, output] = piece.windows;
            dispatches.push(operator([
                scratch(0, input),
                self.tensor(1, lengths),
                scratch(1, output),
            ])?);
            dispatches.extend(self.copies(piece, staging, Direction::Out)?);
        }
        Ok(dispatches)
    }

    /// Window `window` of the caller's tensor at place `place` (input, lengths,
    /// output): in place, the tensor at the input's place and the output's.
    fn tensor(&self, place: usize, window: Window) -> Binding {
        let tensor = match (self.mode, place) {
            (_, 1) => TensorRole::SequenceLengths,
            (Mode::InPlace, _) => TensorRole::Tensor,
            (Mode::OutOfPlace, 0) => TensorRole::Input,
            (Mode::OutOfPlace, _) => TensorRole::Output,
        };
        Binding::Tensor {
            tensor,
            offset: window.offset,
            size: window.size,
        }
    }

    /// A dispatch of kernel `kernel` ([`OPERATOR`] or [`COPY`]) over `groups`
    /// workgroups, folded.
    fn dispatch(
        &self,
        kernel: usize,
        groups: u32,
        buffers: [Binding; 3],
        params: Params,
        copy: Option<StagingCopy>,
    ) -> Result<Dispatch, Error> {
        let max = self.limits.max_compute_workgroups_per_dimension.max(1);
        let [x, y] = folded(groups, max, self.output_bytes)?;
        Ok(Dispatch::new(
            kernel,
            [x, y],
            groups,
            buffers,
            self.uses[kernel],
            params,
            copy,
        ))
    }

    /// The copies of a staged `piece`'s segments in `direction`, one a batch.
    fn copies(
        &self,
        piece: &Piece,
        staging: &Staging,
        direction: Direction,
    ) -> Result<Vec<Dispatch>, Error> {
        let [input, lengths, output] = piece.windows;
        let (segments, batches) = match direction {
            Direction::In => (&staging.input, &staging.batches[0]),
            Direction::Out => (&staging.output, &staging.batches[1]),
        };
        let too_many = Error::TensorTooLarge {
            tensor: TensorRole::Output,
            bytes: self.output_bytes,
            limit: u64::from(u32::MAX),
            limit_name: "the invocations one staging copy counts in a u32",
        };
        let dispatch = |batch: &Batch| {
            let first = u64::from(batch.first);
            let moved = copy::BatchLayout {
                count: batch.count,
                bytes: segments.bytes,
                caller: [
                    segments.origin + first * segments.stride - batch.window.offset,
                    segments.stride,
                ],
                scratch: [first * segments.pitch, segments.pitch],
            };
            let (params, invocations) =
                copy::params(moved, direction, self.copying).ok_or_else(|| too_many.clone())?;
            let groups = invocations.div_ceil(WORKGROUP_SIZE);
            let buffers = match direction {
                Direction::In => [
                    self.tensor(0, batch.window),
                    self.tensor(1, lengths),
                    scratch(0, input),
                ],
                Direction::Out => [
                    scratch(1, output),
                    self.tensor(1, lengths),
                    self.tensor(2, batch.window),
                ],
            };
            let copy = StagingCopy {
                direction,
                segments: *segments,
                batch: *batch,
            };
            self.dispatch(COPY, groups, buffers, params, Some(copy))
        };
        batches.iter().map(dispatch).collect()
    }
}

/// The layout and window fields of the `Params` of `piece`, on an axis of
/// `axis_size` positions; the family's work writes the rest.
fn piece_params(piece: &Piece, axis_size: u32) -> Params {
    let mut params = Params {
        in_shift: piece.shifts[0],
        len_shift: piece.shifts[1],
        out_shift: piece.shifts[2],
        axis_start: piece.axis_start,
        axis_size,
        source_lo: piece.sources[0],
        source_hi: piece.sources[1],
        position_lo: piece.positions[0],
        position_hi: piece.positions[1],
        apart: u32::from(piece.input == InputBinding::Tensor),
        interleave: 1,
        ..bytemuck::Zeroable::zeroed()
    };
    // Every stride of a piece fits a u32: its offsets do (`src/plan/cut/`).
    for (d, dim) in piece.layout.dims.iter().enumerate() {
        params.sizes[d] = dim.size;
        params.size_divisors[d] = Divisor::new(dim.size);
        params.out_strides[d] = dim.output as u32;
        params.out_stride_divisors[d] = Divisor::new(dim.output as u32);
        params.in_strides[d] = dim.input as u32;
        params.len_strides[d] = dim.lengths as u32;
    }
    params
}

/// Window `window` of scratch buffer `buffer` (0 the staged input, 1 its output).
fn scratch(buffer: usize, window: Window) -> Binding {
    Binding::Scratch {
        buffer,
        offset: window.offset,
        size: window.size,
    }
}

/// `groups` folded (see [`fold`]): an adapter below WebGPU's 65,535 groups per
/// dimension gets an error, not a short dispatch.
fn folded(groups: u32, max: u32, output_bytes: u64) -> Result<[u32; 2], Error> {
    fold(groups, max).ok_or_else(|| {
        let per_group = output_bytes / u64::from(groups);
        Error::TensorTooLarge {
            tensor: TensorRole::Output,
            bytes: output_bytes,
            limit: u64::from(max).pow(2) * per_group,
            limit_name: "the device's max_compute_workgroups_per_dimension squared",
        }
    })
}

/// `groups` workgroups as x and y, each at most `max`: y = ceil(groups / max)
/// rows of x = ceil(groups / y), fewer than y of them idle. `None` past max².
fn fold(groups: u32, max: u32) -> Option<[u32; 2]> {
    if groups == 0 {
        return Some([0, 0]);
    }
    let y = groups.div_ceil(max);
    (y <= max).then(|| [groups.div_ceil(y), y])
}
#[cfg(test)]
mod tests {
    use super::*;

    /// More workgroups than one dimension holds fold into y rows of
    /// ceil(groups / y): fewer than y of them idle, where x = min(groups, max)
    /// left up to a row idle (65,536 groups became 65,535 × 2).
    #[test]
    fn folded_dispatches_leave_fewer_idle_workgroups_than_rows() {
        assert_eq!(fold(0, 65_535), Some([0, 0]));
        assert_eq!(fold(65_535, 65_535), Some([65_535, 1]));
        assert_eq!(fold(65_536, 65_535), Some([32_768, 2]));
        assert_eq!(fold(65_535 * 65_535 + 1, 65_535), None);
        for groups in [1, 17, 65_536, 131_071, 1_000_003, 65_535 * 65_535] {
            let [x, y] = fold(groups, 65_535).unwrap();
            assert!(x <= 65_535 && y <= 65_535, "{groups}: {x} × {y}");
            let launched = u64::from(x) * u64::from(y);
            assert!(launched >= u64::from(groups), "{groups}: {x} × {y}");
            assert!(
                launched - u64::from(groups) < u64::from(y),
                "{groups}: {x} × {y}"
            );
        }
        // Small limits, as the tests' devices set them.
        assert_eq!(fold(17, 16), Some([9, 2]));
        assert_eq!(fold(257, 16), None);
    }
}
