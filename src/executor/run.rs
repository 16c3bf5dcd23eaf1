//! Running a compiled operator on host bytes: `run` uploads the tensors, records
//! the operator's commands and reads the output back, in as many submissions as the
//! adapter needs (`src/executor/device/submission.rs`).

use crate::descriptor::error::{Error, TensorRole};
use crate::executor::compiled::CompiledReverse;
use crate::executor::device::device_lock::Held;
#[cfg(not(target_arch = "wasm32"))]
use crate::executor::device::scope::block_on;
use crate::executor::device::scope::Scope;
use crate::executor::device::signal;
#[cfg(not(target_arch = "wasm32"))]
use crate::executor::device::submission::poll_until;
use crate::executor::device::submission::Pacer;
use crate::executor::parts::Parts;

impl CompiledReverse {
    /// Records and submits the operator's commands on revseq's own buffers, then the
    /// copy of `out` into `readback`: in one submission where the adapter does
    /// not bound them, else in as many as keep each within its bound in time and
    /// bytes (`src/executor/device/submission.rs`).
    fn submit(
        &self,
        bindings: &[wgpu::BufferBinding<'_>; 3],
        parts: Option<&Parts>,
        out: &wgpu::Buffer,
        readback: &wgpu::Buffer,
    ) -> Result<(), Error> {
        let device = self.gpu.device();
        let bound = self.gpu.submission_bytes();
        let commands = self.commands(parts);
        let uniform = parts.and_then(|parts| parts.uniform.as_ref());
        let mut pacer = Pacer::new(bound);
        let by_buffer = self.copies_by_buffer(bindings[0].buffer, bindings[2].buffer);
        let mut rest = &commands[..];
        loop {
            let count = pacer.take(rest.iter().map(|command| command.bytes));
            let (now, later) = rest.split_at(count);
            let mut encoder = device.create_command_encoder(&Default::default());
            let bindings = [&bindings[0], &bindings[1], &bindings[2]];
            self.encode(&mut encoder, bindings, now, uniform, by_buffer, None)?;
            if later.is_empty() && bound.is_none() {
                encoder.copy_buffer_to_buffer(out, 0, readback, 0, out.size());
            }
            let bytes = now.iter().map(|command| command.bytes).sum();
            pacer.time(bytes, || self.gpu.submit([encoder.finish()]));
            rest = later;
            if rest.is_empty() {
                break;
            }
        }
        if bound.is_some() {
            for (start, end) in self.chunks(out.size()) {
                let mut encoder = device.create_command_encoder(&Default::default());
                encoder.copy_buffer_to_buffer(out, start, readback, start, end - start);
                self.gpu.submit([encoder.finish()]);
            }
        }
        Ok(())
    }

    /// A storage buffer of `usage` holding `contents` (padded to whole words),
    /// written in [`chunks`](Self::chunks), each submitted on its own where the
    /// adapter bounds submissions, rather than in one copy of the whole tensor.
    pub(crate) fn upload(
        &self,
        label: &str,
        contents: &[u8],
        usage: wgpu::BufferUsages,
    ) -> Held<wgpu::Buffer> {
        let size = (contents.len() as u64).next_multiple_of(4);
        let buffer = self.gpu.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: usage | wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let (queue, lock) = (self.gpu.queue(), self.gpu.device_lock());
        let bounded = self.gpu.submission_bytes().is_some();
        for (start, end) in self.chunks(size) {
            let (start, end) = (start as usize, end as usize);
            // wgpu copies the bytes into a staging buffer it makes here.
            lock.hold(|| match contents.get(start..end) {
                Some(chunk) => queue.write_buffer(&buffer, start as u64, chunk),
                None => {
                    let mut chunk = contents[start..].to_vec();
                    chunk.resize(end - start, 0);
                    queue.write_buffer(&buffer, start as u64, &chunk);
                }
            });
            if bounded {
                self.gpu.submit([]);
            }
        }
        buffer
    }

    /// `[start, end)` ranges that cut `size` bytes (a multiple of 4) into copies
    /// of at most the adapter's bound on a submission (`src/executor/device/submission.rs`); one
    /// range where there is none.
    fn chunks(&self, size: u64) -> impl Iterator<Item = (u64, u64)> {
        let chunk = self.gpu.submission_bytes().unwrap_or(size).max(4);
        (0..size)
            .step_by(chunk as usize)
            .map(move |start| (start, (start + chunk).min(size)))
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
        if self.program.is_empty() {
            return Ok(());
        }
        let context = "running reverse_subsequences";
        let [input, lengths, out, readback] = self
            .gpu
            .scoped(context, || self.buffers(input, sequence_lengths, output))
            .await?;
        self.execute([&input, &lengths, &out], &readback, output, context)
            .await
    }

    /// Runs the operator on revseq's own `buffers` (input, lengths, output; in
    /// place, the tensor at the input's place and the output's) after `record`'s checks, and reads the output
    /// back through `readback` into `output`, blocking natively until it is there.
    pub(crate) async fn execute(
        &self,
        buffers: [&wgpu::Buffer; 3],
        readback: &wgpu::Buffer,
        output: &mut [u8],
        context: &'static str,
    ) -> Result<(), Error> {
        // Where submissions are bounded, dispatches past the bound run in parts.
        let parts = match self.gpu.submission_bytes() {
            Some(budget) => Some(self.parts(budget).await?),
            None => None,
        };
        let out_bytes = self.program.tensor_bytes(TensorRole::Output) as usize;
        let device = self.gpu.device();
        let scope = Scope::push(device);
        // `record`'s checks, on revseq's own buffers; then the commands, in as many
        // submissions as the adapter needs (`src/executor/device/submission.rs`), the readback
        // in the last.
        let bindings = buffers.map(|b| b.as_entire_buffer_binding());
        let checked = self.check([&bindings[0], &bindings[1], &bindings[2]]);
        let submission =
            checked.and_then(|()| self.submit(&bindings, parts.as_ref(), buffers[2], readback));
        let (sender, receiver) = signal::channel();
        if submission.is_ok() {
            self.gpu.device_lock().hold(|| {
                readback.map_async(wgpu::MapMode::Read, .., move |result| sender.send(result))
            });
        }
        let errors = scope.pop(context);
        let lost = |error| self.gpu.lost_or(error, context);
        errors.await.map_err(lost)?;
        submission.map_err(lost)?;

        let context = "reading the output back";
        let wgpu_error =
            |message: String| self.gpu.lost_or(Error::Wgpu { context, message }, context);
        #[cfg(not(target_arch = "wasm32"))]
        poll_until(device, self.gpu.device_lock(), || receiver.is_ready())?;
        receiver
            .await
            .ok_or_else(|| wgpu_error("the mapping callback was dropped".into()))?
            .map_err(|e| wgpu_error(e.to_string()))?;
        let view = readback
            .get_mapped_range(..)
            .map_err(|e| wgpu_error(e.to_string()))?;
        output[..out_bytes].copy_from_slice(&view[..out_bytes]);
        // Only a device alive after the readback surely ran the work: a loss is
        // for good, and a mapping may complete on a device lost meanwhile.
        self.gpu.check_not_lost(context)
    }

    /// `run`'s buffers: the input, the lengths and the output (its bytes uploaded
    /// only where the operator leaves some of them as they are), then the readback.
    fn buffers(
        &self,
        input: &[u8],
        sequence_lengths: &[u8],
        output: &[u8],
    ) -> [Held<wgpu::Buffer>; 4] {
        let [in_bytes, len_bytes, out_bytes] = [
            TensorRole::Input,
            TensorRole::SequenceLengths,
            TensorRole::Output,
        ]
        .map(|tensor| self.program.tensor_bytes(tensor) as usize);
        let out_size = self.binding_size(TensorRole::Output);
        let input = self.upload(
            "revseq::input",
            &input[..in_bytes],
            wgpu::BufferUsages::COPY_SRC,
        );
        let lengths = self.upload(
            "revseq::sequence_lengths",
            &sequence_lengths[..len_bytes],
            wgpu::BufferUsages::STORAGE,
        );
        // A dense output is overwritten whole, so its old bytes need not travel.
        // Copy usages on both: a staged piece's buffer copies (`tuning::copies_by_buffer`).
        let out_usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let out = match self.desc.output.is_dense() {
            true => self.gpu.create_buffer(&wgpu::BufferDescriptor {
                label: Some("revseq::output"),
                size: out_size,
                usage: out_usage,
                mapped_at_creation: false,
            }),
            false => self.upload("revseq::output", &output[..out_bytes], out_usage),
        };
        [input, lengths, out, self.readback(out_size)]
    }

    /// The buffer the output is read back through.
    pub(crate) fn readback(&self, size: u64) -> Held<wgpu::Buffer> {
        self.gpu.create_buffer(&wgpu::BufferDescriptor {
            label: Some("revseq::readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }
}
