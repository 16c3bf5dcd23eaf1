//! The one error type: every variant names the argument and the rule it breaks.

use burn::tensor::DType;

/// What went wrong; every public function returns one of these rather than panicking.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The device is not a wgpu device, where one was asked for.
    #[error("{tensor}: device {device} is not a wgpu device; revseq runs on burn's wgpu runtime")]
    NotWgpu {
        /// The argument.
        tensor: &'static str,
        /// The device, as burn prints it.
        device: String,
    },
    /// The lengths are on another device than the input.
    #[error("{tensor}: on {actual}, but the input is on {expected}")]
    DeviceMismatch {
        /// The argument.
        tensor: &'static str,
        /// The input's device.
        expected: String,
        /// This tensor's device.
        actual: String,
    },
    /// An axis is not less than the rank.
    #[error("{name} {axis} must be less than the input's rank {rank}")]
    AxisOutOfRange {
        /// The argument (`axis`, `batch_axis` or `time_axis`).
        name: &'static str,
        /// Its value.
        axis: usize,
        /// The input's rank.
        rank: usize,
    },
    /// `batch_axis` equals `time_axis`.
    #[error("batch_axis and time_axis must differ, both are {axis}")]
    SameAxes {
        /// The axis given for both.
        axis: usize,
    },
    /// The lengths' shape does not fit the input's.
    #[error("{tensor}: shape {actual:?} must be {rule}")]
    LengthsShape {
        /// The argument (`lengths` or `sequence_lens`).
        tensor: &'static str,
        /// Its shape.
        actual: Vec<usize>,
        /// What it must be, with the input's sizes filled in.
        rule: String,
    },
    /// The lengths are not 32- or 64-bit integers.
    #[error("{tensor}: dtype {dtype:?} must be I32, I64, U32 or U64")]
    LengthType {
        /// The argument.
        tensor: &'static str,
        /// Its dtype.
        dtype: DType,
    },
    /// The input's dtype is not a plain float, integer or bool.
    #[error(
        "input: dtype {dtype:?} must be a float, integer or bool type (quantized tensors are not)"
    )]
    DataType {
        /// The input's dtype.
        dtype: DType,
    },
    /// A tensor larger than burn's wgpu runtime allocates at once: its memory
    /// page (cubecl's `MemoryDeviceProperties::max_page_size`), the device's
    /// `max_storage_buffer_binding_size` or its `max_buffer_size` where that is
    /// smaller. burn holds no larger tensor on that runtime (a view such as
    /// `expand` can describe one), so the reversal's output could not be
    /// allocated.
    #[error(
        "{tensor}: {bytes} bytes, more than the {limit} bytes burn's wgpu runtime allocates \
         at once (its memory page: the device's max_storage_buffer_binding_size, or its \
         max_buffer_size where smaller)"
    )]
    TensorTooLarge {
        /// The argument (`input`, or the lengths' name).
        tensor: &'static str,
        /// Its bytes.
        bytes: u64,
        /// The runtime's page, in bytes.
        limit: u64,
    },
    /// The operator itself refused the tensors (sizes past the device's limits, a
    /// rank the dimensions cannot be folded into).
    #[error(transparent)]
    Revseq(#[from] revseq::Error),
    /// burn could not bring up its wgpu runtime.
    #[error(transparent)]
    Init(#[from] burn::tensor::wgpu::WgpuInitError),
}
