//! What a caller describes: the operator's descriptors (out of place and in
//! place), their tensors and data types, ONNX's form of them, and every rule
//! they are validated against, with the errors that name the rule broken;
//! and a descriptor's canonical layout, what the plan is made on.

pub(crate) mod dtype;
pub(crate) mod error;
pub(crate) mod in_place;
pub(crate) mod layout;
pub(crate) mod onnx;
pub(crate) mod operator;
pub(crate) mod tensor;

/// Whether an operator writes into a second tensor ([`ReverseSubsequences`]) or
/// into the input's own memory ([`ReverseInPlace`]): what its plan is made for.
///
/// [`ReverseSubsequences`]: operator::ReverseSubsequences
/// [`ReverseInPlace`]: in_place::ReverseInPlace
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Mode {
    OutOfPlace,
    InPlace,
}
