//! The entry points on a [`Gpu`]: compiling a descriptor, and the typed calls that
//! compile, upload, run and read back in one.

use crate::descriptor::dtype::{Element, SequenceLength};
use crate::descriptor::error::Error;
use crate::descriptor::in_place::ReverseInPlace;
use crate::descriptor::onnx;
use crate::descriptor::operator::ReverseSubsequences;
use crate::executor::autotune::{self, Descriptor};
use crate::executor::compiled::CompiledReverse;
use crate::executor::compiled_in_place::CompiledInPlace;
use crate::executor::device::gpu::Gpu;
#[cfg(not(target_arch = "wasm32"))]
use crate::executor::device::scope::block_on;

impl Gpu {
    /// Validates `desc` against the operator's rules and this device's limits, and
    /// prepares it to run: the pipeline (from the cache) and the layout uniform.
    /// Blocks while wgpu reports whether it accepted them, which natively is at
    /// once; and where autotune is on ([`Gpu::with_autotune`], the default on a
    /// GPU), on the first compile of a class of descriptor of 1 MiB and up,
    /// while it times the candidate plans (0.1–0.5 s a class on a GPU). A
    /// tuning that fails leaves the static plan: it succeeds wherever it would
    /// with autotune off. Not on wasm32: use [`Gpu::compile_async`].
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// use revseq::{DataType, ReverseSubsequences, TensorDesc};
    /// let gpu = revseq::Gpu::new()?;
    /// let tensor = TensorDesc::new(DataType::Float16, &[4, 1024]);
    /// let lengths = TensorDesc::new(DataType::Uint32, &[4, 1]);
    /// let op = gpu.compile(&ReverseSubsequences::new(tensor.clone(), lengths, tensor, 1))?;
    /// assert_eq!(op.variant().name(), "rows");
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn compile(&self, desc: &ReverseSubsequences) -> Result<CompiledReverse, Error> {
        block_on(self.compile_async(desc))
    }

    /// [`Gpu::compile`] as a future: resolves once wgpu has accepted or
    /// rejected the pipeline and the uniform. Where autotune times a new class
    /// (natively only: it is off on wasm32), its waits poll the device and
    /// block the thread that polls this future.
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// # pollster::block_on(async {
    /// use revseq::{DataType, ReverseSubsequences, TensorDesc};
    /// let gpu = revseq::Gpu::new_async().await?;
    /// let tensor = TensorDesc::new(DataType::Uint8, &[64, 100]);
    /// let lengths = TensorDesc::new(DataType::Int64, &[1, 100]);
    /// let op = gpu.compile_async(&ReverseSubsequences::new(tensor.clone(), lengths, tensor, 0)).await?;
    /// assert_eq!(op.variant().name(), "gather");
    /// # Ok(())
    /// # })
    /// # }
    /// ```
    pub async fn compile_async(
        &self,
        desc: &ReverseSubsequences,
    ) -> Result<CompiledReverse, Error> {
        autotune::compile(self, Descriptor::OutOfPlace(desc.clone())).await
    }

    /// [`Gpu::compile`] for the operator in place: validates `desc` and prepares
    /// it to run on one tensor binding. A tensor past one storage binding of the
    /// device runs as pieces of whole lanes, a window of the tensor each, or where
    /// a lane passes a binding, as pairs of groups of its positions, two windows of
    /// the tensor each; one axis position, with the dimensions inside the axis,
    /// must fit (binding − 3 × alignment − 8) / 2 ([`Error::InPlaceTooLarge`]
    /// names the rule a tensor breaks).
    /// Not on wasm32: use [`Gpu::compile_in_place_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn compile_in_place(&self, desc: &ReverseInPlace) -> Result<CompiledInPlace, Error> {
        block_on(self.compile_in_place_async(desc))
    }

    /// [`Gpu::compile_in_place`] without blocking.
    pub async fn compile_in_place_async(
        &self,
        desc: &ReverseInPlace,
    ) -> Result<CompiledInPlace, Error> {
        let inner = autotune::compile(self, Descriptor::InPlace(desc.clone())).await?;
        Ok(CompiledInPlace {
            desc: desc.clone(),
            inner,
        })
    }

    /// Reverses subsequences of a packed tensor in place, in `data`: the result of
    /// [`Gpu::reverse_subsequences`] on the same arguments, without a second
    /// tensor on the device. Not on wasm32: use
    /// [`Gpu::reverse_subsequences_in_place_async`].
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// let gpu = revseq::Gpu::new()?;
    /// let mut data = [1i32, 2, 3, 4, 5, 6, 7, 8];
    /// gpu.reverse_subsequences_in_place(&mut data, &[2, 4], &[3u32, 0], 1)?;
    /// assert_eq!(data, [3, 2, 1, 4, 5, 6, 7, 8]);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn reverse_subsequences_in_place<T: Element, L: SequenceLength>(
        &self,
        data: &mut [T],
        sizes: &[u32],
        sequence_lengths: &[L],
        axis: u32,
    ) -> Result<(), Error> {
        block_on(self.reverse_subsequences_in_place_async(data, sizes, sequence_lengths, axis))
    }

    /// [`Gpu::reverse_subsequences_in_place`] without blocking.
    pub async fn reverse_subsequences_in_place_async<T: Element, L: SequenceLength>(
        &self,
        data: &mut [T],
        sizes: &[u32],
        sequence_lengths: &[L],
        axis: u32,
    ) -> Result<(), Error> {
        let desc = ReverseInPlace::packed::<T, L>(sizes, axis, data.len(), sequence_lengths.len())?;
        let compiled = self.compile_in_place_async(&desc).await?;
        let mut bytes = T::to_bytes(data).into_owned();
        compiled
            .run_async(&mut bytes, &L::to_bytes(sequence_lengths))
            .await?;
        data.copy_from_slice(&T::from_bytes(&bytes));
        Ok(())
    }

    /// Reverses subsequences of a packed tensor. `sequence_lengths` holds one
    /// length per lane: the tensor of `sizes` with a 1 on `axis`, row-major. Not on
    /// wasm32: use [`Gpu::reverse_subsequences_async`].
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// let gpu = revseq::Gpu::new()?;
    /// // Two rows of 4; the first reverses 3 elements, the second none.
    /// let out = gpu.reverse_subsequences(&[1i32, 2, 3, 4, 5, 6, 7, 8], &[2, 4], &[3u32, 0], 1)?;
    /// assert_eq!(out, [3, 2, 1, 4, 5, 6, 7, 8]);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn reverse_subsequences<T: Element, L: SequenceLength>(
        &self,
        input: &[T],
        sizes: &[u32],
        sequence_lengths: &[L],
        axis: u32,
    ) -> Result<Vec<T>, Error> {
        block_on(self.reverse_subsequences_async(input, sizes, sequence_lengths, axis))
    }

    /// [`Gpu::reverse_subsequences`] without blocking.
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// # pollster::block_on(async {
    /// let gpu = revseq::Gpu::new_async().await?;
    /// // Along axis 0 of a 3 x 2 tensor: column 0 reverses 3, column 1 reverses 2.
    /// let out = gpu
    ///     .reverse_subsequences_async(&[1u16, 2, 3, 4, 5, 6], &[3, 2], &[3i64, 2], 0)
    ///     .await?;
    /// assert_eq!(out, [5, 4, 3, 2, 1, 6]);
    /// # Ok(())
    /// # })
    /// # }
    /// ```
    pub async fn reverse_subsequences_async<T: Element, L: SequenceLength>(
        &self,
        input: &[T],
        sizes: &[u32],
        sequence_lengths: &[L],
        axis: u32,
    ) -> Result<Vec<T>, Error> {
        let desc =
            ReverseSubsequences::packed::<T, L>(sizes, axis, input.len(), sequence_lengths.len())?;
        self.run_typed(&desc, input, &L::to_bytes(sequence_lengths))
            .await
    }

    /// ONNX `ReverseSequence` (opset 10): for each index `b` along `batch_axis`,
    /// reverse the first `sequence_lens[b]` elements along `time_axis`. Validates
    /// as ONNX Runtime's CPU kernel does. Not on wasm32: use
    /// [`Gpu::reverse_sequence_async`].
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// let gpu = revseq::Gpu::new()?;
    /// // [batch 2, time 3]: batch 0 reverses 3 steps, batch 1 reverses 2.
    /// let out = gpu.reverse_sequence(&[1f32, 2., 3., 4., 5., 6.], &[2, 3], &[3, 2], 0, 1)?;
    /// assert_eq!(out, [3., 2., 1., 5., 4., 6.]);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn reverse_sequence<T: Element>(
        &self,
        input: &[T],
        shape: &[usize],
        sequence_lens: &[i64],
        batch_axis: usize,
        time_axis: usize,
    ) -> Result<Vec<T>, Error> {
        block_on(self.reverse_sequence_async(input, shape, sequence_lens, batch_axis, time_axis))
    }

    /// [`Gpu::reverse_sequence`] without blocking.
    ///
    /// ```
    /// # fn main() -> Result<(), revseq::Error> {
    /// # pollster::block_on(async {
    /// let gpu = revseq::Gpu::new_async().await?;
    /// // [time 3, batch 2]: batch 0 reverses 2 steps, batch 1 all 3.
    /// let out = gpu
    ///     .reverse_sequence_async(&[1u8, 2, 3, 4, 5, 6], &[3, 2], &[2, 3], 1, 0)
    ///     .await?;
    /// assert_eq!(out, [3, 6, 1, 4, 5, 2]);
    /// # Ok(())
    /// # })
    /// # }
    /// ```
    pub async fn reverse_sequence_async<T: Element>(
        &self,
        input: &[T],
        shape: &[usize],
        sequence_lens: &[i64],
        batch_axis: usize,
        time_axis: usize,
    ) -> Result<Vec<T>, Error> {
        onnx::validate(shape, input.len(), sequence_lens, batch_axis, time_axis)?;
        let desc = onnx::descriptor(T::DATA_TYPE, shape, batch_axis, time_axis)?;
        self.run_typed(&desc, input, bytemuck::cast_slice(sequence_lens))
            .await
    }

    async fn run_typed<T: Element>(
        &self,
        desc: &ReverseSubsequences,
        input: &[T],
        sequence_lengths: &[u8],
    ) -> Result<Vec<T>, Error> {
        let compiled = self.compile_async(desc).await?;
        let mut output = vec![0u8; desc.output.min_size_in_bytes() as usize];
        compiled
            .run_async(&T::to_bytes(input), sequence_lengths, &mut output)
            .await?;
        Ok(T::from_bytes(&output))
    }
}
