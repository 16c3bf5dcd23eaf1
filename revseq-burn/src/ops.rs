//! The two operators and the tensor kinds they take.

use burn::backend::{Dispatch, DispatchTensor};
use burn::tensor::kind::Basic;
use burn::tensor::{Bool, Float, Int, Tensor};
use revseq::TensorRole;

use crate::arguments::Arguments;
use crate::backend::{Reversal, ReverseBackend};
use crate::kept::Kept;
use crate::{device, portable, Error};
use sealed::KernelCall;

/// ONNX `ReverseSequence`: reverse the first `sequence_lens[b]` steps along
/// `time_axis` of every batch entry `b` along `batch_axis`.
///
/// ONNX fixes the two axes to 0 and 1 in either order (batch-major or
/// time-major); like `tf.reverse_sequence`, any two distinct axes are accepted.
/// `sequence_lens` holds one length per batch entry.
///
/// # Errors
///
/// Every error is returned before any work is queued:
/// - [`Error::AxisOutOfRange`]: `batch_axis` or `time_axis` is not less than `D`;
/// - [`Error::SameAxes`]: they are equal;
/// - [`Error::LengthsShape`]: `sequence_lens` is not `[size of batch_axis]`;
/// - [`Error::DeviceMismatch`]: `sequence_lens` is on another device than `x`
///   (see [Devices](#devices));
/// - [`Error::LengthType`]: `sequence_lens` is not `I32`, `I64`, `U32` or `U64`;
/// - [`Error::DataType`]: `x` is quantized;
/// - [`Error::TensorTooLarge`]: on burn's wgpu runtime, `x` passes its memory
///   page, the most it allocates at once (a view such as `expand` can);
/// - [`Error::Revseq`]: revseq refused the plan for another limit of the device.
///
/// # Panics
///
/// None of its own: bad arguments and device limits are errors. burn itself
/// may panic later where its device fails (a lost device, memory it cannot
/// allocate), as it does for its own operations.
///
/// # Devices
///
/// `sequence_lens` must be on `x`'s device, as burn compares devices: burn's
/// `Device` equality does not tell a device from its `.autodiff()`, so lengths on
/// `d` with `x` on `d.autodiff()` are accepted (the lengths carry no gradient).
/// Any thread may call this, on one device or several at once, a device's first
/// use included: burn gives each thread a stream of its own and orders the
/// reversal after the work that wrote its inputs.
///
/// ```
/// # fn main() -> Result<(), revseq_burn::Error> {
/// use burn::tensor::{Device, Int, Tensor};
///
/// let device = Device::default(); // burn's wgpu runtime: revseq's kernels run on it
/// // [batch 2, time 4]: the first sequence is 4 steps long, the second 2.
/// let x = Tensor::<2>::from_floats([[1., 2., 3., 4.], [5., 6., 0., 0.]], &device);
/// let lengths = Tensor::<1, Int>::from_ints([4, 2], &device);
/// let reversed = revseq_burn::reverse_sequence(x, lengths, 0, 1)?;
/// let expected = Tensor::<2>::from_floats([[4., 3., 2., 1.], [6., 5., 0., 0.]], &device);
/// assert!(reversed.equal(expected).all().into_scalar::<bool>());
/// # Ok(())
/// # }
/// ```
pub fn reverse_sequence<const D: usize, K: Reversible>(
    x: Tensor<D, K>,
    sequence_lens: Tensor<1, Int>,
    batch_axis: usize,
    time_axis: usize,
) -> Result<Tensor<D, K>, Error> {
    sequence(x, sequence_lens, batch_axis, time_axis, Route::ByDevice)
}

/// Which code a call takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// The device's [`KernelPath`](crate::KernelPath).
    ByDevice,
    /// The portable path, whatever the device (`revseq_burn::lab`).
    Portable,
}

/// [`reverse_sequence`] by `route`.
pub(crate) fn sequence<const D: usize, K: Reversible>(
    x: Tensor<D, K>,
    sequence_lens: Tensor<1, Int>,
    batch_axis: usize,
    time_axis: usize,
    route: Route,
) -> Result<Tensor<D, K>, Error> {
    for (name, axis) in [("batch_axis", batch_axis), ("time_axis", time_axis)] {
        if axis >= D {
            return Err(Error::AxisOutOfRange {
                name,
                axis,
                rank: D,
            });
        }
    }
    if batch_axis == time_axis {
        return Err(Error::SameAxes { axis: time_axis });
    }
    let batch = x.dims()[batch_axis];
    if sequence_lens.dims() != [batch] {
        return Err(Error::LengthsShape {
            tensor: "sequence_lens",
            actual: sequence_lens.dims().to_vec(),
            rule: format!("[{batch}]: one length per entry of batch_axis {batch_axis}"),
        });
    }
    // The `[batch]` lengths stand for lengths of the input's rank, `batch` on
    // `batch_axis` and 1 elsewhere: revseq's kernels read them as they are
    // (no reshape, which burn's fusion would run as an operation of its own).
    let mut shape = [1; D];
    shape[batch_axis] = batch;
    reverse(x, sequence_lens, shape, time_axis, "sequence_lens", route)
}

/// DirectML `REVERSE_SUBSEQUENCES`: reverse the first `L` elements of every lane
/// along `axis`, `L` read from `lengths` at the lane's position.
///
/// `lengths` has the input's rank and 1 on `axis`; every other dimension is the
/// input's size or 1, which broadcasts one length over that dimension.
///
/// # Errors
///
/// As [`reverse_sequence`]'s, naming `lengths`: [`Error::AxisOutOfRange`] for
/// `axis`, [`Error::LengthsShape`], [`Error::DeviceMismatch`],
/// [`Error::LengthType`], [`Error::DataType`], [`Error::TensorTooLarge`] and
/// [`Error::Revseq`].
///
/// # Panics
///
/// None of its own, as [`reverse_sequence`].
///
/// # Devices
///
/// As [`reverse_sequence`]: `lengths` on `x`'s device by burn's equality
/// (autodiff or not), from any thread.
pub fn reverse_subsequences<const D: usize, K: Reversible>(
    x: Tensor<D, K>,
    lengths: Tensor<D, Int>,
    axis: usize,
) -> Result<Tensor<D, K>, Error> {
    subsequences(x, lengths, axis, Route::ByDevice)
}

/// [`reverse_subsequences`] by `route`.
pub(crate) fn subsequences<const D: usize, K: Reversible>(
    x: Tensor<D, K>,
    lengths: Tensor<D, Int>,
    axis: usize,
    route: Route,
) -> Result<Tensor<D, K>, Error> {
    if axis >= D {
        return Err(Error::AxisOutOfRange {
            name: "axis",
            axis,
            rank: D,
        });
    }
    let shape = lengths.dims();
    reverse(x, lengths, shape, axis, "lengths", route)
}

/// Checks the arguments, then runs revseq's kernels where the device's runtime
/// takes them ([`KernelPath`](crate::KernelPath)), burn's own operations
/// elsewhere. `lengths` stands for lengths of shape `shape` (the input's rank,
/// 1 on `axis`), which it holds in the same order.
fn reverse<const D: usize, const L: usize, K: Reversible>(
    x: Tensor<D, K>,
    lengths: Tensor<L, Int>,
    shape: [usize; D],
    axis: usize,
    tensor: &'static str,
    route: Route,
) -> Result<Tensor<D, K>, Error> {
    let device = x.device();
    let lengths_device = lengths.device();
    if lengths_device != device {
        return Err(Error::DeviceMismatch {
            tensor,
            expected: format!("{device:?}"),
            actual: format!("{lengths_device:?}"),
        });
    }
    let arguments = Arguments::of(&x, &lengths, shape, axis, tensor);
    arguments.check()?;
    let client = device::kernel_client(&device).filter(|_| route == Route::ByDevice);
    match client {
        Some(client) => {
            let call = KernelCall {
                lengths: lengths.into_dispatch(),
                arguments,
                kept: Kept::of(&client),
            };
            K::on_kernels(x, call)
        }
        None => Ok(portable::reverse(x, lengths.reshape(shape), axis)),
    }
}

/// The tensor kinds this crate reverses: [`Float`], [`Int`] and [`Bool`] (which
/// revseq's kernels reverse as integers).
pub trait Reversible: Basic + sealed::Sealed {
    #[doc(hidden)]
    fn on_kernels<const D: usize>(
        x: Tensor<D, Self>,
        call: KernelCall,
    ) -> Result<Tensor<D, Self>, Error>;
}

impl KernelCall {
    /// Plans the operator for `x` on its device and dispatches it to `method`,
    /// the backend method of its kind.
    fn run<const D: usize, K: Basic>(
        self,
        x: Tensor<D, K>,
        method: fn(DispatchTensor, DispatchTensor, Reversal) -> DispatchTensor,
    ) -> Result<Tensor<D, K>, Error> {
        let desc = self.arguments.descriptor()?;
        // burn's runtime is what the size runs into: revseq plans for a buffer
        // as large as its page (`Kept::target`).
        let page = self.kept.target().limits().max_buffer_size;
        let reversal = Reversal::new(&desc, self.kept).map_err(|err| match err {
            revseq::Error::TensorTooLarge {
                tensor,
                bytes,
                limit,
                ..
            } if limit == page => Error::TensorTooLarge {
                tensor: match tensor {
                    TensorRole::SequenceLengths => self.arguments.tensor,
                    TensorRole::Output => "output",
                    _ => "input",
                },
                bytes,
                limit,
            },
            other => Error::Revseq(other),
        })?;
        let output = method(x.into_dispatch(), self.lengths, reversal);
        Ok(Tensor::from_dispatch(output))
    }
}

impl Reversible for Float {
    fn on_kernels<const D: usize>(
        x: Tensor<D, Self>,
        call: KernelCall,
    ) -> Result<Tensor<D, Self>, Error> {
        call.run(x, <Dispatch as ReverseBackend>::float_reverse_subsequences)
    }
}

impl Reversible for Int {
    fn on_kernels<const D: usize>(
        x: Tensor<D, Self>,
        call: KernelCall,
    ) -> Result<Tensor<D, Self>, Error> {
        call.run(x, <Dispatch as ReverseBackend>::int_reverse_subsequences)
    }
}

impl Reversible for Bool {
    fn on_kernels<const D: usize>(
        x: Tensor<D, Self>,
        mut call: KernelCall,
    ) -> Result<Tensor<D, Self>, Error> {
        // Reversed as the integers burn makes of them.
        let x = x.int();
        call.arguments.dtype = x.dtype();
        Int::on_kernels(x, call).map(|reversed| reversed.bool())
    }
}

mod sealed {
    use burn::backend::DispatchTensor;

    use crate::arguments::Arguments;

    pub trait Sealed {}
    impl Sealed for burn::tensor::Float {}
    impl Sealed for burn::tensor::Int {}
    impl Sealed for burn::tensor::Bool {}

    /// What revseq's kernels need besides the input: the lengths as burn holds
    /// them, the checked arguments, and what revseq-burn keeps for the device's
    /// client (its target and programs).
    pub struct KernelCall {
        pub(super) lengths: DispatchTensor,
        pub(super) arguments: Arguments,
        pub(super) kept: std::sync::Arc<crate::kept::Kept>,
    }
}
