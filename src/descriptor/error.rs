//! The one error type: every variant names the field, the rule and the values.

use crate::descriptor::dtype::DataType;

/// Which of the operator's tensors an error or a binding is about.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TensorRole {
    /// `InputTensor`.
    Input,
    /// `SequenceLengthsTensor`.
    SequenceLengths,
    /// `OutputTensor`.
    Output,
    /// The one tensor of a [`ReverseInPlace`](crate::ReverseInPlace), read and
    /// written.
    Tensor,
}

impl std::fmt::Display for TensorRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TensorRole::Input => "input",
            TensorRole::SequenceLengths => "sequence_lengths",
            TensorRole::Output => "output",
            TensorRole::Tensor => "tensor",
        })
    }
}

/// Which rule of the cut in place past one storage binding a tensor breaks
/// ([`Error::InPlaceTooLarge`]): where a lane, with the dimensions inside the
/// axis, spans more than a binding, the axis is cut into groups of whole
/// positions, and each pair of groups is bound as two windows of one binding.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InPlaceRule {
    /// One axis position, with the dimensions inside the axis, spans `bytes`:
    /// more than the `limit` one group may hold, (binding − 3 × alignment − 8) / 2
    /// rounded down to whole elements, the alignment being the device's storage
    /// offset alignment rounded up to a power of two, at least 16.
    PositionTooLarge {
        /// Bytes from a position's first element to its last.
        bytes: u64,
        /// The most a group may hold.
        limit: u64,
    },
    /// The lengths of one position of the dimensions outside the axis span
    /// `bytes`: more than a binding holds beside its alignment (binding −
    /// alignment − 4).
    LengthsTooLarge {
        /// Bytes from the block's first length to its last.
        bytes: u64,
        /// The most they may span.
        limit: u64,
    },
    /// An axis position's elements reach past the next position's first, so no
    /// group of whole positions is a range of memory of its own.
    PositionsInterleave,
    /// A stride inside the axis passes 2^32 elements.
    StrideTooLarge,
}

impl std::fmt::Display for InPlaceRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InPlaceRule::PositionTooLarge { bytes, limit } => write!(
                f,
                "one axis position, with the dimensions inside the axis, spans {bytes} bytes, \
                 more than the {limit} bytes a group of positions may hold ((binding − 3 × \
                 alignment − 8) / 2)"
            ),
            InPlaceRule::LengthsTooLarge { bytes, limit } => write!(
                f,
                "the lengths of one position outside the axis span {bytes} bytes, more than \
                 the {limit} a binding holds beside its alignment"
            ),
            InPlaceRule::PositionsInterleave => f.write_str(
                "an axis position's elements reach past the next position's first, so no \
                 group of positions is a range of memory of its own",
            ),
            InPlaceRule::StrideTooLarge => {
                f.write_str("a stride inside the axis passes 2^32 elements")
            }
        }
    }
}

/// What went wrong; the library returns one of these rather than panicking.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A tensor's rank is outside 1..=8.
    #[error("{tensor}: rank {rank} is outside 1..=8")]
    RankOutOfRange {
        /// The tensor.
        tensor: TensorRole,
        /// Its rank.
        rank: usize,
    },
    /// The sequence-lengths or output rank differs from the input's.
    #[error("{tensor}: rank {actual} must equal the input's rank {expected}")]
    RankMismatch {
        /// The tensor.
        tensor: TensorRole,
        /// The input's rank.
        expected: usize,
        /// This tensor's rank.
        actual: usize,
    },
    /// `axis` is not less than the rank.
    #[error("axis {axis} must be less than the rank {rank}")]
    AxisOutOfRange {
        /// The axis given.
        axis: u32,
        /// The tensors' rank.
        rank: usize,
    },
    /// A tensor has strides, but not one per dimension.
    #[error("{tensor}: {actual} strides given for a rank-{expected} tensor")]
    StrideCountMismatch {
        /// The tensor.
        tensor: TensorRole,
        /// Its rank.
        expected: usize,
        /// How many strides it has.
        actual: usize,
    },
    /// The output's data type differs from the input's.
    #[error("output: data type {actual:?} must equal the input's data type {expected:?}")]
    DataTypeMismatch {
        /// The input's data type.
        expected: DataType,
        /// The output's data type.
        actual: DataType,
    },
    /// The sequence lengths are not UINT32, UINT64, INT32 or INT64.
    #[error("sequence_lengths: data type {data_type:?} must be Uint32, Uint64, Int32 or Int64")]
    UnsupportedLengthType {
        /// The sequence lengths' data type.
        data_type: DataType,
    },
    /// A size differs from the input's size of the same dimension.
    #[error("{tensor}: size {actual} of dimension {dim} must equal the input's size {expected}")]
    SizeMismatch {
        /// The tensor.
        tensor: TensorRole,
        /// The dimension.
        dim: usize,
        /// The input's size there.
        expected: u32,
        /// This tensor's size there.
        actual: u32,
    },
    /// The sequence lengths' size on the axis is not 1.
    #[error("sequence_lengths: size {size} of the axis dimension {axis} must be 1")]
    LengthsAxisSize {
        /// The axis.
        axis: u32,
        /// The sequence lengths' size on it.
        size: u32,
    },
    /// Output strides that could place two output elements at one address: ordered
    /// by stride, each dimension of size > 1 must step past everything the
    /// dimensions with smaller strides reach.
    #[error(
        "output: dimension {dim} (size {size}, stride {stride}) must have a stride of at least \
         {required}, one past the span of the dimensions with smaller strides, so that no two \
         output elements share memory"
    )]
    OverlappingOutput {
        /// The dimension.
        dim: usize,
        /// Its size.
        size: u32,
        /// Its stride.
        stride: u32,
        /// The smallest stride that would not overlap.
        required: u64,
    },
    /// In-place strides that could place two elements at one address, as for the
    /// output of [`Error::OverlappingOutput`]: a swap would read what another wrote.
    #[error(
        "tensor: dimension {dim} (size {size}, stride {stride}) must have a stride of at least \
         {required}, one past the span of the dimensions with smaller strides, so that no two \
         elements share memory: a tensor reversed in place is read and written at once"
    )]
    OverlappingTensor {
        /// The dimension.
        dim: usize,
        /// Its size.
        size: u32,
        /// Its stride.
        stride: u32,
        /// The smallest stride that would not overlap.
        required: u64,
    },
    /// A tensor reversed in place past one storage binding is cut into pieces of
    /// whole lanes, or where a lane, with the dimensions inside the axis, spans
    /// more than a binding, into pairs of groups of its positions, each group in
    /// half a binding: `rule` says which rule of that cut the tensor breaks.
    #[error(
        "tensor: {bytes} bytes reversed in place past one storage binding ({limit} bytes on \
         this device): {rule}; reverse it out of place, which windows any tensor"
    )]
    InPlaceTooLarge {
        /// The tensor's bytes.
        bytes: u64,
        /// The device's binding window.
        limit: u64,
        /// The rule it breaks.
        rule: InPlaceRule,
    },
    /// A tensor needs more bytes than a limit allows.
    #[error("{tensor}: needs {bytes} bytes, more than the {limit} bytes of {limit_name}")]
    TensorTooLarge {
        /// The tensor.
        tensor: TensorRole,
        /// The bytes it needs.
        bytes: u64,
        /// The limit.
        limit: u64,
        /// Which limit: the device's `max_buffer_size`, what the crate describes at
        /// all, or what one binding window addresses.
        limit_name: &'static str,
    },
    /// The tensors' strides scatter them over more binding windows than one
    /// operator records dispatches for.
    #[error(
        "the tensors need {dispatches} windowed dispatches, more than the {limit} one operator \
         records: their strides scatter them over far more memory than one binding holds"
    )]
    TooManyDispatches {
        /// Dispatches needed (or counted so far).
        dispatches: u64,
        /// The most one operator records.
        limit: u64,
    },
    /// A host slice is shorter than its tensor's minimum size.
    #[error("{tensor}: host slice holds {actual} bytes, the tensor needs {required}")]
    HostSliceTooSmall {
        /// The tensor.
        tensor: TensorRole,
        /// Its minimum size in bytes.
        required: u64,
        /// The slice's length in bytes.
        actual: u64,
    },
    /// A typed slice holds a different number of elements than the sizes describe.
    #[error("{tensor}: {actual} elements given, the sizes describe {expected}")]
    ElementCountMismatch {
        /// The tensor.
        tensor: TensorRole,
        /// Elements the sizes describe.
        expected: u64,
        /// Elements given.
        actual: u64,
    },
    /// A size does not fit the `u32` a DirectML size is.
    #[error("{tensor}: size {size} of dimension {dim} exceeds u32::MAX")]
    DimensionTooLarge {
        /// The tensor.
        tensor: TensorRole,
        /// The dimension.
        dim: usize,
        /// Its size.
        size: u64,
    },
    /// A binding's offset breaks the adapter's storage offset alignment.
    #[error("{tensor}: binding offset {offset} must be a multiple of {alignment}")]
    BindingMisaligned {
        /// The tensor.
        tensor: TensorRole,
        /// The offset.
        offset: u64,
        /// `min_storage_buffer_offset_alignment`.
        alignment: u64,
    },
    /// A binding holds fewer bytes than the tensor needs, rounded up to 4.
    #[error("{tensor}: binding holds {actual} bytes, the tensor needs {required} (its size rounded up to 4)")]
    BindingTooSmall {
        /// The tensor.
        tensor: TensorRole,
        /// Bytes needed.
        required: u64,
        /// Bytes the binding holds.
        actual: u64,
    },
    /// A bound buffer lacks `STORAGE`, the one usage the operator needs.
    #[error("{tensor}: buffer usage {usage:?} must include {required:?}")]
    BindingUsage {
        /// The tensor.
        tensor: TensorRole,
        /// The buffer's usage.
        usage: wgpu::BufferUsages,
        /// What it must include.
        required: wgpu::BufferUsages,
    },
    /// The output buffer is also bound as an input; the operator cannot run in place.
    #[error(
        "output: buffer must differ from the {tensor} buffer; the operator cannot run in place"
    )]
    OutputAliases {
        /// The input it aliases.
        tensor: TensorRole,
    },
    /// In place, the lengths are bound from the tensor's own buffer, which the
    /// operator writes.
    #[error(
        "sequence_lengths: buffer must differ from the tensor's, which the operator writes in place"
    )]
    LengthsAliasTensor,
    /// ONNX ReverseSequence: the input rank is below 2.
    #[error("reverse_sequence: input rank {rank} must be at least 2")]
    OnnxRank {
        /// The rank.
        rank: usize,
    },
    /// ONNX ReverseSequence: the axes are not 0 and 1 in some order.
    #[error("reverse_sequence: batch_axis {batch_axis} and time_axis {time_axis} must be 0 and 1 in some order")]
    OnnxAxes {
        /// `batch_axis`.
        batch_axis: usize,
        /// `time_axis`.
        time_axis: usize,
    },
    /// ONNX ReverseSequence: `sequence_lens` does not hold one value per batch entry.
    #[error(
        "reverse_sequence: sequence_lens holds {actual} values, shape[batch_axis] is {expected}"
    )]
    OnnxBatchSize {
        /// `shape[batch_axis]`.
        expected: usize,
        /// `sequence_lens.len()`.
        actual: usize,
    },
    /// ONNX ReverseSequence: a sequence length outside `[0, shape[time_axis]]`.
    #[error("reverse_sequence: sequence_lens[{index}] = {value} must be in [0, {max}] (shape[time_axis])")]
    OnnxSequenceLength {
        /// Its index.
        index: usize,
        /// Its value.
        value: i64,
        /// `shape[time_axis]`.
        max: usize,
    },
    /// No adapter could be found.
    #[cfg_attr(
        not(target_arch = "wasm32"),
        error(
            "no GPU adapter found ({reason}); on Debian or Ubuntu install Mesa's software \
             Vulkan driver with `apt-get install mesa-vulkan-drivers`, or pick another \
             backend with WGPU_BACKEND"
        )
    )]
    #[cfg_attr(
        target_arch = "wasm32",
        error(
            "no GPU adapter found ({reason}); the browser must have WebGPU enabled \
             (`navigator.gpu`; headless Chromium needs --enable-unsafe-webgpu)"
        )
    )]
    NoAdapter {
        /// wgpu's reason.
        reason: String,
    },
    /// `WGPU_ADAPTER_NAME` names no adapter.
    #[error("WGPU_ADAPTER_NAME={name:?} matches none of the adapters {available:?}")]
    AdapterNotFound {
        /// The name asked for.
        name: String,
        /// The adapters there are.
        available: Vec<String>,
    },
    /// The adapter refused a device.
    #[error("requesting a device from {adapter} failed: {message}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// wgpu's message.
        message: String,
    },
    /// A traced run ([`CompiledReverse::trace`](crate::CompiledReverse::trace))
    /// recorded more accesses in one dispatch than its buffer holds.
    #[cfg(feature = "lab")]
    #[error(
        "the trace holds {capacity} accesses and the sample made {records}: trace fewer workgroups"
    )]
    TraceOverflow {
        /// Accesses the sampled workgroups made.
        records: u64,
        /// Accesses the trace buffer holds.
        capacity: u64,
    },
    /// The device is lost (a driver reset, `wgpu::Device::destroy`, a GPU the
    /// system took away): nothing more runs on it. Make a new device and compile
    /// again.
    #[error("the device is lost (found while {context}): create a new device to go on")]
    DeviceLost {
        /// What the library was doing.
        context: &'static str,
    },
    /// The device could not allocate what the library asked of it (a buffer,
    /// a pipeline): wgpu's out-of-memory error. Smaller tensors, or fewer held
    /// at once, may fit.
    #[error("the device ran out of memory while {context}: {message}")]
    OutOfMemory {
        /// What the library was doing.
        context: &'static str,
        /// wgpu's message.
        message: String,
    },
    /// wgpu reported an error (validation, internal).
    #[error("wgpu reported an error while {context}: {message}")]
    Wgpu {
        /// What the library was doing.
        context: &'static str,
        /// wgpu's message.
        message: String,
    },
}
