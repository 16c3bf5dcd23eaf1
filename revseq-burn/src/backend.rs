//! The operator as a burn backend extension: one method per tensor kind, run on
//! the cubecl backend by recording revseq on burn's own `wgpu::Device` and
//! `Queue`, deferred like any other operation under fusion, and differentiated
//! under autodiff (`src/autodiff.rs`).

use std::fmt;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use burn::backend::tensor::{FloatTensor, IntTensor};
use burn::backend::{backend_extension, Backend, TensorMetadata};
use burn::tensor::DType;
use burn_cubecl::cubecl::wgpu::{AutoCompiler, WgpuResource, WgpuServer};
use burn_cubecl::kernel::into_contiguous;
use burn_cubecl::tensor::CubeTensor;
use burn_cubecl::CubeBackend;
use revseq::wgpu;
use revseq::{
    CompiledInPlace, CompiledReverse, DataType, ReverseInPlace, ReverseSubsequences, TensorDesc,
    TensorRole,
};

/// A reversal compiled for one device, shapes and dtypes: what the backend
/// method needs besides the two tensors. Shared, so that fusion and autodiff
/// can hold it until the operation runs.
#[derive(Clone)]
pub struct Reversal {
    pub(crate) gpu: revseq::Gpu,
    pub(crate) op: Arc<CompiledReverse>,
    /// The same reversal in place, where the tensor fits one binding: taken
    /// where burn lets the operation reuse its input's buffer.
    pub(crate) in_place: Option<Arc<CompiledInPlace>>,
}

/// Reversals run in place in this process.
static IN_PLACE: AtomicU64 = AtomicU64::new(0);

/// How many reversals revseq-burn has run in place in this process, on revseq's
/// kernels: those whose input burn let the operation reuse (no other tensor
/// holds its buffer), so that no second tensor was made. For diagnostics.
pub fn in_place_count() -> u64 {
    IN_PLACE.load(Ordering::Relaxed)
}

impl Reversal {
    /// `desc` compiled out of place, and in place where revseq plans it so (not
    /// where one axis position passes half a binding: `InPlaceTooLarge`).
    pub(crate) fn new(
        gpu: revseq::Gpu,
        desc: &ReverseSubsequences,
    ) -> Result<Reversal, revseq::Error> {
        let op = gpu.compile(desc)?;
        let in_place =
            ReverseInPlace::new(desc.input.clone(), desc.sequence_lengths.clone(), desc.axis);
        let in_place = match gpu.compile_in_place(&in_place) {
            Ok(compiled) => Some(Arc::new(compiled)),
            Err(revseq::Error::InPlaceTooLarge { .. }) => None,
            Err(other) => return Err(other),
        };
        Ok(Reversal {
            gpu,
            op: Arc::new(op),
            in_place,
        })
    }

    /// The same reversal for tensors of `dtype`: itself where revseq's data type
    /// is the same, recompiled (from the cache) where it is not.
    pub(crate) fn for_dtype(&self, dtype: DType) -> Reversal {
        let desc = self.op.descriptor();
        let data_type = crate::plan::data_type(dtype)
            .unwrap_or_else(|err| panic!("revseq-burn: a gradient of {dtype:?}: {err}"));
        if data_type == desc.input.data_type() {
            return self.clone();
        }
        let mut desc = desc.clone();
        for tensor in [&mut desc.input, &mut desc.output] {
            *tensor = retype(tensor, data_type);
        }
        Reversal::new(self.gpu.clone(), &desc)
            .unwrap_or_else(|err| panic!("revseq-burn: a gradient of {dtype:?}: {err}"))
    }
}

fn retype(tensor: &TensorDesc, data_type: DataType) -> TensorDesc {
    let retyped = TensorDesc::new(data_type, tensor.sizes());
    match tensor.strides() {
        Some(strides) => retyped.with_strides(strides),
        None => retyped,
    }
}

impl fmt::Debug for Reversal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let desc = self.op.descriptor();
        f.debug_struct("Reversal")
            .field("sizes", &desc.input.sizes())
            .field("axis", &desc.axis)
            .field("variant", &self.op.variant())
            .finish()
    }
}

/// Reverse subsequences on a burn backend. Call it through
/// [`reverse_subsequences`](crate::reverse_subsequences) and
/// [`reverse_sequence`](crate::reverse_sequence), which check the arguments and
/// compile the [`Reversal`]; implemented for the cubecl backend on wgpu, for
/// fusion over it, and for autodiff over either.
#[backend_extension(Cube, Fusion: cfg(feature = "fusion"), Autodiff)]
pub trait ReverseBackend: Backend {
    /// Float tensors: `x` reversed by `lengths` as `reversal` says.
    #[fusion(dtype = x, shape = x)]
    fn float_reverse_subsequences(
        x: FloatTensor<Self>,
        lengths: IntTensor<Self>,
        reversal: Reversal,
    ) -> FloatTensor<Self>;

    /// Int tensors: `x` reversed by `lengths` as `reversal` says.
    #[fusion(dtype = x, shape = x)]
    fn int_reverse_subsequences(
        x: IntTensor<Self>,
        lengths: IntTensor<Self>,
        reversal: Reversal,
    ) -> IntTensor<Self>;
}

impl ReverseBackend for CubeBackend {
    fn float_reverse_subsequences(
        x: FloatTensor<Self>,
        lengths: IntTensor<Self>,
        reversal: Reversal,
    ) -> FloatTensor<Self> {
        record(x, lengths, &reversal)
    }

    fn int_reverse_subsequences(
        x: IntTensor<Self>,
        lengths: IntTensor<Self>,
        reversal: Reversal,
    ) -> IntTensor<Self> {
        record(x, lengths, &reversal)
    }
}

/// Runs the reversal on burn's queue. cubecl's `get_resource` submits the work
/// burn has pending on each tensor's stream before it hands out the buffer, and
/// revseq's command buffer goes to the same queue right after, so the operator
/// reads what burn wrote and burn's later work reads what it wrote.
///
/// Arguments were checked and the operator compiled before dispatch
/// (`crate::reverse`); what fails here is a broken invariant of cubecl's
/// allocator, which panics with what it found.
fn record(x: CubeTensor, lengths: CubeTensor, reversal: &Reversal) -> CubeTensor {
    let x = into_contiguous(x);
    let lengths = into_contiguous(lengths);
    let client = x.client.clone();
    let bytes = reversal.op.binding_size(TensorRole::Output);
    let shape = x.shape();
    if shape.num_elements() == 0 {
        let handle = client.empty(4);
        return CubeTensor::new_contiguous(client, x.device.clone(), shape, handle, x.dtype);
    }
    // burn's own in-place operations take their input's buffer where no other
    // handle holds it (`can_mut`); so does this one, where also nothing still
    // holds its address (`record_in_place`).
    if let Some(op) = reversal.in_place.as_deref().filter(|_| x.can_mut()) {
        if record_in_place(&x, &lengths, &reversal.gpu, op) {
            IN_PLACE.fetch_add(1, Ordering::Relaxed);
            return x;
        }
    }
    let output = CubeTensor::new_contiguous(
        client.clone(),
        x.device.clone(),
        shape,
        client.empty(bytes as usize),
        x.dtype,
    );
    let resource = |tensor: &CubeTensor| {
        tensor
            .client
            .get_resource::<WgpuServer<AutoCompiler>>(tensor.handle.clone())
            .unwrap_or_else(|err| panic!("revseq-burn: burn's wgpu buffer of a tensor: {err}"))
    };
    let (input, lens, out) = (resource(&x), resource(&lengths), resource(&output));
    let (input, lens, out) = (input.resource(), lens.resource(), out.resource());

    let device = reversal.gpu.device();
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("revseq-burn"),
    });
    let alignment = u64::from(device.limits().min_storage_buffer_offset_alignment);
    // burn's allocator packs small tensors into shared buffers. A binding must start
    // aligned, and a buffer bound for writing cannot be bound read-only in the same
    // dispatch: such an input or lengths tensor is first copied into a buffer of its own.
    let mut own_copy = |resource: &WgpuResource, role: TensorRole| {
        let size = reversal.op.binding_size(role);
        if resource.offset.is_multiple_of(alignment) && resource.buffer != out.buffer {
            return None;
        }
        let copy = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("revseq-burn::copy"),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_buffer_to_buffer(&resource.buffer, resource.offset, &copy, 0, size);
        Some(copy)
    };
    let input_copy = own_copy(input, TensorRole::Input);
    let lengths_copy = own_copy(lens, TensorRole::SequenceLengths);
    let size = |role| reversal.op.binding_size(role);
    reversal
        .op
        .record(
            &mut encoder,
            binding(input, input_copy.as_ref(), size(TensorRole::Input)),
            binding(
                lens,
                lengths_copy.as_ref(),
                size(TensorRole::SequenceLengths),
            ),
            binding(out, None, size(TensorRole::Output)),
        )
        .unwrap_or_else(|err| panic!("revseq-burn: recording on burn's buffers: {err}"));
    reversal.gpu.queue().submit([encoder.finish()]);
    output
}

/// Records `op` on `x`'s own buffer, where nothing but its handle holds the
/// buffer's address once burn's pending work on it is submitted, and it starts
/// at an offset a binding can start at; the lengths, where they share that
/// buffer or start elsewhere, from a copy of their own. Whether it recorded.
fn record_in_place(
    x: &CubeTensor,
    lengths: &CubeTensor,
    gpu: &revseq::Gpu,
    op: &CompiledInPlace,
) -> bool {
    let resource = |tensor: &CubeTensor| {
        tensor
            .client
            .get_resource::<WgpuServer<AutoCompiler>>(tensor.handle.clone())
            .unwrap_or_else(|err| panic!("revseq-burn: burn's wgpu buffer of a tensor: {err}"))
    };
    // Submits what burn has pending on the tensor. What holds its address after
    // that (a binding: a lazy read of the tensor, which reads it when its bytes
    // are wanted) must see it as it was. A resource held is a binding too.
    drop(resource(x));
    if x.handle.memory.is_bound() {
        return false;
    }
    let (data, lens) = (resource(x), resource(lengths));
    let (data, lens) = (data.resource(), lens.resource());
    let device = gpu.device();
    let alignment = u64::from(device.limits().min_storage_buffer_offset_alignment);
    if !data.offset.is_multiple_of(alignment) {
        return false;
    }
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("revseq-burn::in_place"),
    });
    let size = |role| op.binding_size(role);
    let lengths_copy =
        (!lens.offset.is_multiple_of(alignment) || lens.buffer == data.buffer).then(|| {
            let bytes = size(TensorRole::SequenceLengths);
            let copy = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("revseq-burn::copy"),
                size: bytes,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            encoder.copy_buffer_to_buffer(&lens.buffer, lens.offset, &copy, 0, bytes);
            copy
        });
    op.record(
        &mut encoder,
        binding(data, None, size(TensorRole::Tensor)),
        binding(
            lens,
            lengths_copy.as_ref(),
            size(TensorRole::SequenceLengths),
        ),
    )
    .unwrap_or_else(|err| panic!("revseq-burn: recording in place on burn's buffers: {err}"));
    gpu.queue().submit([encoder.finish()]);
    true
}

/// The binding of a tensor: its own buffer at its offset, or the copy made of it.
fn binding<'a>(
    resource: &'a WgpuResource,
    copy: Option<&'a wgpu::Buffer>,
    size: u64,
) -> wgpu::BufferBinding<'a> {
    let (buffer, offset) = match copy {
        Some(buffer) => (buffer, 0),
        None => (&resource.buffer, resource.offset),
    };
    wgpu::BufferBinding {
        buffer,
        offset,
        size: NonZeroU64::new(size),
    }
}
