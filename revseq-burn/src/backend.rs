//! The operator as a burn backend extension: one method per tensor kind, run on
//! the cubecl backend by launching revseq's program on the tensor's own compute
//! client (`src/launch.rs`), deferred like any other operation under fusion,
//! and differentiated under autodiff (`src/autodiff.rs`).

use std::fmt;
use std::sync::Arc;

use burn::backend::tensor::{FloatTensor, IntTensor};
use burn::backend::{backend_extension, Backend, TensorMetadata};
use burn::tensor::DType;
use burn_cubecl::kernel::into_contiguous;
use burn_cubecl::tensor::CubeTensor;
use burn_cubecl::CubeBackend;
use revseq::{DataType, ReverseSubsequences, TensorDesc, TensorRole};

use crate::kept::Kept;
use crate::launch::{count, Launch};

/// A reversal planned for one client, shapes and dtypes: what the backend
/// method needs besides the two tensors. Shared, so that fusion and autodiff
/// can hold it until the operation runs.
#[derive(Clone)]
pub struct Reversal {
    pub(crate) desc: ReverseSubsequences,
    /// What revseq-burn keeps for the client, the programs among it.
    pub(crate) kept: Arc<Kept>,
    pub(crate) out_of_place: Arc<Launch>,
    /// The same reversal in place, where revseq plans it (not where one axis
    /// position passes half a binding): taken where burn lets the operation
    /// reuse its input's buffer.
    pub(crate) in_place: Option<Arc<Launch>>,
}

impl Reversal {
    /// `desc` planned for the client `kept` is of, out of place, and in place
    /// where revseq plans it so: both kept from an earlier call of the same
    /// descriptor, or planned now.
    pub(crate) fn new(
        desc: &ReverseSubsequences,
        kept: Arc<Kept>,
    ) -> Result<Reversal, revseq::Error> {
        let out_of_place = kept.program(desc, false)?;
        let in_place = match kept.program(desc, true) {
            Ok(program) => Some(program),
            Err(revseq::Error::InPlaceTooLarge { .. }) => None,
            Err(other) => return Err(other),
        };
        Ok(Reversal {
            desc: desc.clone(),
            kept,
            out_of_place,
            in_place,
        })
    }

    /// The same reversal for tensors of `dtype`: itself where revseq's data type
    /// is the same, planned again where it is not.
    pub(crate) fn for_dtype(&self, dtype: DType) -> Reversal {
        let data_type = crate::arguments::data_type(dtype)
            .unwrap_or_else(|err| panic!("revseq-burn: a gradient of {dtype:?}: {err}"));
        if data_type == self.desc.input.data_type() {
            return self.clone();
        }
        let mut desc = self.desc.clone();
        for tensor in [&mut desc.input, &mut desc.output] {
            *tensor = retype(tensor, data_type);
        }
        Reversal::new(&desc, self.kept.clone())
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
        f.debug_struct("Reversal")
            .field("sizes", &self.desc.input.sizes())
            .field("axis", &self.desc.axis)
            .field("variant", &self.out_of_place.program().variant())
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

/// Launches the reversal on the input's own compute client, in its stream: in
/// the input's buffer where burn lets the operation reuse it (no other handle
/// holds it, the check burn's own in-place operations make, and no binding of
/// it is alive), else into a new tensor. Arguments were checked and the reversal planned before dispatch
/// (`crate::reverse`).
fn record(x: CubeTensor, lengths: CubeTensor, reversal: &Reversal) -> CubeTensor {
    let x = into_contiguous(x);
    let lengths = into_contiguous(lengths);
    let client = x.client.clone();
    let shape = x.shape();
    if shape.num_elements() == 0 {
        let handle = client.empty(4);
        return CubeTensor::new_contiguous(client, x.device.clone(), shape, handle, x.dtype);
    }
    // A binding of the buffer still alive (a lazy read of the tensor, which reads
    // it when its bytes are wanted) must see it as it was.
    let reusable = x.can_mut() && !x.handle.memory.is_bound();
    if let Some(program) = reversal.in_place.as_deref().filter(|_| reusable) {
        program.launch(&client, |role| match role {
            TensorRole::SequenceLengths => lengths.handle.clone(),
            _ => x.handle.clone(),
        });
        count(true);
        return x;
    }
    let bytes = reversal.desc.output.min_size_in_bytes().next_multiple_of(4);
    let output = CubeTensor::new_contiguous(
        client.clone(),
        x.device.clone(),
        shape,
        client.empty(bytes as usize),
        x.dtype,
    );
    reversal.out_of_place.launch(&client, |role| match role {
        TensorRole::Input => x.handle.clone(),
        TensorRole::SequenceLengths => lengths.handle.clone(),
        _ => output.handle.clone(),
    });
    count(false);
    output
}
