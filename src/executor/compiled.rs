//! A validated, specialised operator, ready to record into a caller's encoder
//! (`src/executor/build.rs` makes it, `src/executor/encode.rs` records it).

use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::operator::ReverseSubsequences;
use crate::descriptor::Mode;
use crate::executor::device::device_lock::Held;
use crate::executor::device::gpu::Gpu;
use crate::executor::device::pipeline::KernelPipeline;
use crate::executor::uniform::Uniforms;
use crate::kernels::variant::Variant;
#[cfg(feature = "lab")]
use crate::kernels::PipelineKey;
#[cfg(feature = "lab")]
use crate::plan::kernel::COPY;
use crate::plan::program::Program;

/// An operator compiled for one [`Gpu`]: its program, the pipelines of its
/// kernels and its layout uniforms, made once. Recording it is cheap: a bind group and a dispatch per window of the
/// tensors, one where they fit a single storage binding.
#[derive(Debug)]
pub struct CompiledReverse {
    pub(crate) gpu: Gpu,
    pub(crate) desc: ReverseSubsequences,
    /// The plan: what `record` dispatches, in either mode.
    pub(crate) program: Program,
    /// The pipeline of each of the program's kernels, in their order.
    pub(crate) pipelines: Held<Vec<KernelPipeline>>,
    /// Each dispatch's uniform, in the program's order.
    pub(crate) params: Uniforms,
    /// The device's `min_storage_buffer_offset_alignment`.
    pub(crate) offset_alignment: u64,
    /// Input and output scratch buffers, for staged dispatches.
    pub(crate) scratch: Option<Held<[wgpu::Buffer; 2]>>,
    /// What in-place dispatches bind at the input's place
    /// ([`Binding::Placeholder`](crate::program::Binding)).
    pub(crate) placeholder: Option<Held<wgpu::Buffer>>,
}

impl CompiledReverse {
    /// The descriptor this was compiled from.
    pub fn descriptor(&self) -> &ReverseSubsequences {
        &self.desc
    }

    /// The pipeline key it runs under.
    #[cfg(feature = "lab")]
    pub fn key(&self) -> PipelineKey {
        self.program.key()
    }

    /// The kernel variant the plan chose for its layout.
    pub fn variant(&self) -> Variant {
        self.program.variant()
    }

    /// Workgroups of the first dispatch, in x and y (more than 65,535 fold into y).
    #[cfg(feature = "lab")]
    pub fn workgroups(&self) -> [u32; 2] {
        let [x, y, _] = self.program.planned()[0].workgroups;
        [x, y]
    }

    /// The fraction of the workgroups `record` launches that have no work: those
    /// the fold of more than 65,535 into x and y leaves over (fewer than y of a
    /// dispatch's).
    #[cfg(feature = "lab")]
    pub fn idle_workgroups(&self) -> f64 {
        let dispatches = self.program.planned().iter();
        let (launched, needed) = dispatches.fold((0u64, 0u64), |(l, n), d| {
            let [x, y, _] = d.workgroups;
            (
                l + u64::from(x) * u64::from(y),
                n + u64::from(d.workgroups_with_work()),
            )
        });
        match launched {
            0 => 0.0,
            launched => (launched - needed) as f64 / launched as f64,
        }
    }

    /// Dispatches `record` records: one where every tensor fits one storage
    /// binding, more where a tensor is windowed (a staged piece's copies
    /// included).
    pub fn dispatch_count(&self) -> usize {
        self.program.planned().len()
    }

    /// Of [`dispatch_count`](Self::dispatch_count), the staging copy's: where
    /// pieces stage, each copies its segments in and out, a dispatch per window
    /// of the caller's buffer they span.
    #[cfg(feature = "lab")]
    pub fn staging_copies(&self) -> usize {
        let dispatches = self.program.planned().iter();
        dispatches.filter(|d| d.kernel == COPY).count()
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

    /// Bytes each binding must hold: the tensor's minimum size rounded up to 4.
    pub fn binding_size(&self, tensor: TensorRole) -> u64 {
        self.program.tensor_bytes(tensor).next_multiple_of(4)
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
    /// ([`scratch_bytes`](Self::scratch_bytes)), by a copy kernel, so that every
    /// buffer needs `STORAGE` alone. Every dispatch goes into `encoder`, in order,
    /// in one compute pass.
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
        self.record_on(encoder, [&input, &sequence_lengths, &output])
    }

    /// `record` on the caller's `bindings` (input, lengths, output; in place,
    /// the tensor's at the input's place and the output's), in either mode.
    pub(crate) fn record_on(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: [&wgpu::BufferBinding<'_>; 3],
    ) -> Result<(), Error> {
        self.check(bindings)?;
        if self.program.is_empty() {
            return Ok(());
        }
        // wgpu records into an encoder of a lost device without a word.
        self.gpu.check_not_lost("recording the operator")?;
        let by_buffer = self.copies_by_buffer(bindings[0].buffer, bindings[2].buffer);
        self.encode(
            encoder,
            bindings,
            &self.commands(None),
            None,
            by_buffer,
            None,
        )
    }

    /// `record`'s checks of the caller's `bindings`: every rule wgpu checks when
    /// binding them; out of place, an output in a buffer of its own; in place,
    /// the tensor (at the output's place) and the lengths in two buffers.
    pub(crate) fn check(&self, bindings: [&wgpu::BufferBinding<'_>; 3]) -> Result<(), Error> {
        let [input, sequence_lengths, output] = bindings;
        let (roles, aliased) = match self.program.mode() {
            Mode::OutOfPlace => (
                &[
                    (TensorRole::Input, input),
                    (TensorRole::SequenceLengths, sequence_lengths),
                    (TensorRole::Output, output),
                ][..],
                [input, sequence_lengths]
                    .iter()
                    .zip([TensorRole::Input, TensorRole::SequenceLengths])
                    .find(|(binding, _)| binding.buffer == output.buffer)
                    .map(|(_, tensor)| Error::OutputAliases { tensor }),
            ),
            Mode::InPlace => (
                &[
                    (TensorRole::Tensor, output),
                    (TensorRole::SequenceLengths, sequence_lengths),
                ][..],
                (sequence_lengths.buffer == output.buffer).then_some(Error::LengthsAliasTensor),
            ),
        };
        for &(tensor, binding) in roles {
            self.check_binding(tensor, binding)?;
        }
        aliased.map_or(Ok(()), Err)
    }

    /// The rules wgpu checks of one binding: `STORAGE`, the offset's alignment,
    /// and room for the tensor.
    fn check_binding(
        &self,
        tensor: TensorRole,
        binding: &wgpu::BufferBinding<'_>,
    ) -> Result<(), Error> {
        let usage = binding.buffer.usage();
        let required = wgpu::BufferUsages::STORAGE;
        if !usage.contains(required) {
            return Err(Error::BindingUsage {
                tensor,
                usage,
                required,
            });
        }
        let alignment = self.offset_alignment;
        if !binding.offset.is_multiple_of(alignment) {
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
        Ok(())
    }

    /// The layout uniform of dispatch `i`.
    pub(crate) fn params_binding(&self, i: usize) -> wgpu::BindingResource<'_> {
        self.params.binding(i)
    }
}
