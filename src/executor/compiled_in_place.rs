//! An operator compiled to run in place ([`Gpu::compile_in_place`]): recording
//! it into a caller's encoder on one tensor binding, and running it on a host
//! slice.
//!
//! [`Gpu::compile_in_place`]: crate::Gpu::compile_in_place

use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::in_place::ReverseInPlace;
use crate::executor::compiled::CompiledReverse;
#[cfg(not(target_arch = "wasm32"))]
use crate::executor::device::scope::block_on;
use crate::kernels::variant::Variant;

/// A [`ReverseInPlace`] compiled for one [`Gpu`](crate::Gpu): its pipeline and
/// layout uniform, made once.
#[derive(Debug)]
pub struct CompiledInPlace {
    pub(crate) desc: ReverseInPlace,
    /// The operator from the tensor into itself, planned in place: it binds
    /// the tensor at the output, and at the input its placeholder or a second
    /// window of the tensor.
    pub(crate) inner: CompiledReverse,
}

impl CompiledInPlace {
    /// The descriptor this was compiled from.
    pub fn descriptor(&self) -> &ReverseInPlace {
        &self.desc
    }

    /// The kernel variant the plan chose.
    pub fn variant(&self) -> Variant {
        self.inner.variant()
    }

    /// Dispatches `record` records: one, or where the tensor passes one binding,
    /// one a piece of whole lanes, or one a pair of groups of positions where a
    /// lane passes a binding.
    pub fn dispatch_count(&self) -> usize {
        self.inner.dispatch_count()
    }

    /// Bytes the binding of `tensor` ([`TensorRole::Tensor`] or
    /// [`TensorRole::SequenceLengths`]) must hold: its minimum size rounded up to
    /// 4.
    pub fn binding_size(&self, tensor: TensorRole) -> u64 {
        self.inner.binding_size(tensor)
    }

    /// The pipeline key it runs under.
    #[cfg(feature = "lab")]
    pub fn key(&self) -> crate::kernels::PipelineKey {
        self.inner.program.key()
    }

    /// Workgroups of its dispatch, in x and y.
    #[cfg(feature = "lab")]
    pub fn workgroups(&self) -> [u32; 2] {
        self.inner.workgroups()
    }

    /// The fraction of the workgroups `record` launches that have no work.
    #[cfg(feature = "lab")]
    pub fn idle_workgroups(&self) -> f64 {
        self.inner.idle_workgroups()
    }

    /// Records the operator into `encoder`, reversing the tensor in `tensor`'s
    /// binding where it lies; never submits and never blocks. The bindings follow
    /// [`CompiledReverse::record`]'s rules, the tensor's as the output's, and the
    /// lengths must lie in another buffer. Only the elements a lane reverses are
    /// read and written, each pair by one invocation; every other byte of the
    /// binding keeps its value (a 1- or 2-byte element's word is changed only in
    /// the element's own bytes).
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// use revseq::{DataType, ReverseInPlace, TensorDesc};
    /// use wgpu::util::DeviceExt;
    /// let gpu = revseq::Gpu::new()?;
    /// let tensor = TensorDesc::new(DataType::Int32, &[3, 2]);
    /// let lengths = TensorDesc::new(DataType::Int64, &[1, 2]);
    /// let op = gpu.compile_in_place(&ReverseInPlace::new(tensor, lengths, 0))?;
    /// let device = gpu.device();
    /// let storage = |bytes: &[u8]| {
    ///     device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
    ///         label: None,
    ///         contents: bytes,
    ///         usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    ///     })
    /// };
    /// let data = storage(bytemuck::cast_slice(&[1i32, 2, 3, 4, 5, 6]));
    /// let lengths = storage(bytemuck::cast_slice(&[3i64, 2]));
    /// let mut encoder = device.create_command_encoder(&Default::default());
    /// op.record(&mut encoder, data.as_entire_buffer_binding(), lengths.as_entire_buffer_binding())?;
    /// gpu.queue().submit([encoder.finish()]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        tensor: wgpu::BufferBinding<'_>,
        sequence_lengths: wgpu::BufferBinding<'_>,
    ) -> Result<(), Error> {
        self.inner
            .record_on(encoder, [&tensor, &sequence_lengths, &tensor])
    }

    /// Uploads `tensor`, reverses it in place on the device and reads it back
    /// into `tensor`, blocking until it is there. Each slice needs at least its
    /// tensor's `min_size_in_bytes`; bytes past it, and those no element
    /// addresses, keep their values. Not on wasm32: use
    /// [`CompiledInPlace::run_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run(&self, tensor: &mut [u8], sequence_lengths: &[u8]) -> Result<(), Error> {
        block_on(self.run_async(tensor, sequence_lengths))
    }

    /// [`CompiledInPlace::run`] without blocking a thread in a browser.
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// # pollster::block_on(async {
    /// use revseq::{DataType, ReverseInPlace, TensorDesc};
    /// let gpu = revseq::Gpu::new_async().await?;
    /// let tensor = TensorDesc::new(DataType::Uint8, &[5]);
    /// let lengths = TensorDesc::new(DataType::Uint32, &[1]);
    /// let op = gpu.compile_in_place_async(&ReverseInPlace::new(tensor, lengths, 0)).await?;
    /// let mut data = [1u8, 2, 3, 4, 5];
    /// op.run_async(&mut data, bytemuck::cast_slice(&[4u32])).await?;
    /// assert_eq!(data, [4, 3, 2, 1, 5]);
    /// # Ok(())
    /// # })
    /// # }
    /// ```
    pub async fn run_async(&self, tensor: &mut [u8], sequence_lengths: &[u8]) -> Result<(), Error> {
        self.desc
            .check_host_slices([tensor.len(), sequence_lengths.len()])?;
        let inner = &self.inner;
        if inner.program.is_empty() {
            return Ok(());
        }
        let bytes = |tensor| inner.program.tensor_bytes(tensor) as usize;
        let [tensor_bytes, len_bytes] =
            [TensorRole::Tensor, TensorRole::SequenceLengths].map(bytes);
        let copies = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let context = "running reverse_subsequences in place";
        let (data, lengths, readback) = inner
            .gpu
            .scoped(context, || {
                let data = inner.upload("revseq::tensor", &tensor[..tensor_bytes], copies);
                let lengths = inner.upload(
                    "revseq::sequence_lengths",
                    &sequence_lengths[..len_bytes],
                    wgpu::BufferUsages::STORAGE,
                );
                (
                    data,
                    lengths,
                    inner.readback(inner.binding_size(TensorRole::Tensor)),
                )
            })
            .await?;
        inner
            .execute([&data, &lengths, &data], &readback, tensor, context)
            .await
    }
}
