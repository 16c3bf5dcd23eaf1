//! Data types, and the Rust types that stand for them on the host.

use half::{bf16, f16};

/// Element type of a tensor: DirectML's eleven, plus the ones ONNX and TensorFlow
/// users also need. The operator moves bits, so only [`size_in_bytes`] matters
/// to the kernels.
///
/// [`size_in_bytes`]: DataType::size_in_bytes
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[expect(missing_docs, reason = "the variant names are the data types")]
pub enum DataType {
    Float64,
    Float32,
    Float16,
    Int64,
    Int32,
    Int16,
    Int8,
    Uint64,
    Uint32,
    Uint16,
    Uint8,
    Bool,
    /// Two FLOAT32 values, real then imaginary.
    Complex64,
    /// Two FLOAT64 values, real then imaginary.
    Complex128,
    Bfloat16,
}

impl DataType {
    /// Every data type, for revseq's own tests (the enum may grow).
    #[cfg(feature = "lab")]
    pub const ALL: [DataType; 15] = [
        DataType::Float64,
        DataType::Float32,
        DataType::Float16,
        DataType::Int64,
        DataType::Int32,
        DataType::Int16,
        DataType::Int8,
        DataType::Uint64,
        DataType::Uint32,
        DataType::Uint16,
        DataType::Uint8,
        DataType::Bool,
        DataType::Complex64,
        DataType::Complex128,
        DataType::Bfloat16,
    ];

    /// Bytes per element: 1, 2, 4, 8 or 16.
    pub const fn size_in_bytes(self) -> u32 {
        match self {
            DataType::Int8 | DataType::Uint8 | DataType::Bool => 1,
            DataType::Float16 | DataType::Bfloat16 | DataType::Int16 | DataType::Uint16 => 2,
            DataType::Float32 | DataType::Int32 | DataType::Uint32 => 4,
            DataType::Float64 | DataType::Int64 | DataType::Uint64 | DataType::Complex64 => 8,
            DataType::Complex128 => 16,
        }
    }

    /// Whether this type may hold sequence lengths (UINT32, UINT64, INT32, INT64).
    pub const fn is_length_type(self) -> bool {
        matches!(
            self,
            DataType::Uint32 | DataType::Uint64 | DataType::Int32 | DataType::Int64
        )
    }

    /// Whether this is a signed integer type.
    pub(crate) const fn is_signed_integer(self) -> bool {
        matches!(
            self,
            DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
        )
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A host type that stands for a tensor element of one [`DataType`].
///
/// `[f32; 2]` and `[f64; 2]` stand for COMPLEX64 and COMPLEX128 as (real, imaginary).
pub trait Element: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The data type this host type stands for.
    const DATA_TYPE: DataType;

    /// Little-endian bytes of `values`, as the GPU holds them.
    fn to_bytes(values: &[Self]) -> std::borrow::Cow<'_, [u8]>;

    /// Values back from their bytes; `bytes.len()` is a multiple of the element size.
    fn from_bytes(bytes: &[u8]) -> Vec<Self>;
}

/// A host type that may hold sequence lengths: `u32` and `u64` as in DirectML,
/// `i32` and `i64` as ONNX and TensorFlow store them (a negative length means 0).
pub trait SequenceLength: Element {}

macro_rules! pod_element {
    ($($t:ty => $dt:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DATA_TYPE: DataType = DataType::$dt;
            fn to_bytes(values: &[Self]) -> std::borrow::Cow<'_, [u8]> {
                std::borrow::Cow::Borrowed(bytemuck::cast_slice(values))
            }
            fn from_bytes(bytes: &[u8]) -> Vec<Self> {
                bytemuck::pod_collect_to_vec(bytes)
            }
        }
    )*};
}

pod_element!(
    f64 => Float64, f32 => Float32, f16 => Float16, bf16 => Bfloat16,
    i64 => Int64, i32 => Int32, i16 => Int16, i8 => Int8,
    u64 => Uint64, u32 => Uint32, u16 => Uint16, u8 => Uint8,
    [f32; 2] => Complex64, [f64; 2] => Complex128,
);

impl sealed::Sealed for bool {}
impl Element for bool {
    const DATA_TYPE: DataType = DataType::Bool;
    fn to_bytes(values: &[Self]) -> std::borrow::Cow<'_, [u8]> {
        std::borrow::Cow::Owned(values.iter().map(|&b| u8::from(b)).collect())
    }
    fn from_bytes(bytes: &[u8]) -> Vec<Self> {
        bytes.iter().map(|&b| b != 0).collect()
    }
}

impl SequenceLength for u32 {}
impl SequenceLength for u64 {}
impl SequenceLength for i32 {}
impl SequenceLength for i64 {}
