//! The `CustomOp` for burn-onnx: type inference checks a node against what
//! `revseq_burn::reverse_sequence` runs, and code generation emits the call.

use burn_onnx::ext::proc_macro2::TokenStream;
use burn_onnx::ext::quote::quote;
use burn_onnx::ext::{
    arg_to_ident, ArgType, Argument, AttrKind, CodegenContext, CustomNode, CustomOp, DType,
    OpsetRange, ProcessError, TensorType,
};

use super::rewrite::NAME_ATTRIBUTE;
use super::DOMAIN;

/// burn-onnx's hook for ONNX `ReverseSequence` (opset 10 and later), on nodes
/// [`prepare`](super::prepare) moved to [`DOMAIN`]: register it with
/// `ModelGen::register_custom_op`.
///
/// The generated `forward` calls [`reverse_sequence`](crate::reverse_sequence) on
/// the model's device. Inputs may be float, integer or bool tensors (a bool one
/// is reversed as integers); `sequence_lens` may be a graph input, an
/// initializer or computed in the graph. A node it cannot run fails the build
/// with the node's name and the rule.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReverseSequence;

impl CustomOp for ReverseSequence {
    fn op_type(&self) -> &str {
        "ReverseSequence"
    }

    fn domain(&self) -> &str {
        DOMAIN
    }

    fn opset_range(&self) -> OpsetRange {
        OpsetRange::from_min(10)
    }

    fn infer_output_types(&self, node: &CustomNode) -> Result<Vec<ArgType>, ProcessError> {
        let checked = Checked::of(node)?;
        Ok(vec![ArgType::Tensor(checked.input)])
    }

    fn forward(
        &self,
        node: &CustomNode,
        ctx: &mut CodegenContext<'_, '_>,
    ) -> Result<TokenStream, ProcessError> {
        let checked = Checked::of(node)?;
        let x = ctx.arg(&node.inputs[0]);
        let lengths = lengths_tokens(&node.inputs[1], ctx);
        let output = arg_to_ident(&node.outputs[0]);
        let (batch, time) = (checked.batch_axis, checked.time_axis);
        let message = format!("ReverseSequence node {}", name(node));
        let call = if checked.input.dtype.is_bool() {
            quote! { revseq_burn::reverse_sequence(#x.int(), #lengths, #batch, #time).map(|r| r.bool()) }
        } else {
            quote! { revseq_burn::reverse_sequence(#x, #lengths, #batch, #time) }
        };
        Ok(quote! {
            let #output = #call.unwrap_or_else(|e| panic!("{}: {}", #message, e));
        })
    }
}

/// A node that passed the checks: its input's type and the two axes.
struct Checked {
    input: TensorType,
    batch_axis: usize,
    time_axis: usize,
}

impl Checked {
    fn of(node: &CustomNode) -> Result<Self, ProcessError> {
        let fail = |rule: String| {
            ProcessError::Custom(format!("ReverseSequence node {}: {rule}", name(node)))
        };
        if node.inputs.len() != 2 || node.outputs.len() != 1 {
            return Err(fail(format!(
                "ReverseSequence takes 2 inputs (input, sequence_lens) and gives 1 output, \
                 not {} and {}",
                node.inputs.len(),
                node.outputs.len()
            )));
        }
        let input = match &node.inputs[0].ty {
            ArgType::Tensor(t) if t.rank >= 2 && supported(t.dtype) => t.clone(),
            other => {
                return Err(fail(format!(
                    "input must be a float, integer or bool tensor of rank 2 or more, \
                     not {other:?}"
                )))
            }
        };
        let batch_axis = axis(node, "batch_axis", 1).map_err(fail)?;
        let time_axis = axis(node, "time_axis", 0).map_err(fail)?;
        if batch_axis == time_axis {
            return Err(fail(format!(
                "batch_axis and time_axis must differ, both are {batch_axis}"
            )));
        }
        check_lengths(&node.inputs[1], &input, batch_axis).map_err(fail)?;
        Ok(Self {
            input,
            batch_axis,
            time_axis,
        })
    }
}

/// The node's name in the file, and burn-onnx's for it.
fn name(node: &CustomNode) -> String {
    match node.attrs.get_string(NAME_ATTRIBUTE) {
        Some(original) => format!("'{original}' ({})", node.name),
        None => format!("'{}'", node.name),
    }
}

fn supported(dtype: DType) -> bool {
    dtype.is_float() || dtype.is_int() || dtype.is_uint() || dtype.is_bool()
}

/// An axis attribute: INT, 0 or 1 (ONNX's rule), `default` when absent.
fn axis(node: &CustomNode, name: &str, default: usize) -> Result<usize, String> {
    match node.attrs.kind(name) {
        None => Ok(default),
        Some(AttrKind::Int64) => match node.attrs.get_i64(name).unwrap_or(-1) {
            v @ (0 | 1) => Ok(v as usize),
            v => Err(format!("{name} must be 0 or 1, not {v}")),
        },
        Some(kind) => Err(format!("{name} must be an INT attribute, not {kind:?}")),
    }
}

/// `sequence_lens`: integers, one per batch entry (checked here where both
/// shapes are known, at run time otherwise).
fn check_lengths(lengths: &Argument, input: &TensorType, batch_axis: usize) -> Result<(), String> {
    let integer = |d: DType| d.is_int() || d.is_uint();
    let count = match &lengths.ty {
        ArgType::Tensor(t) if t.rank == 1 && integer(t.dtype) => {
            t.static_shape.as_ref().and_then(|s| s[0])
        }
        ArgType::ScalarTensor(d) | ArgType::ScalarNative(d) if integer(*d) => Some(1),
        ArgType::Shape(n) => Some(*n),
        other => {
            return Err(format!(
                "sequence_lens must be a rank-1 integer tensor, not {other:?}"
            ))
        }
    };
    let batch = input.static_shape.as_ref().and_then(|s| s[batch_axis]);
    match (count, batch) {
        (Some(count), Some(batch)) if count != batch => Err(format!(
            "sequence_lens has {count} lengths, but batch_axis {batch_axis} of the input has \
             size {batch}: one length per batch entry"
        )),
        _ => Ok(()),
    }
}

/// The lengths as a `Tensor<1, Int>`: a tensor as it is, host values (a shape
/// or a scalar burn-onnx kept on the host) uploaded to the model's device.
fn lengths_tokens(lengths: &Argument, ctx: &mut CodegenContext<'_, '_>) -> TokenStream {
    let value = ctx.arg(lengths);
    let host = match &lengths.ty {
        ArgType::Tensor(_) | ArgType::ScalarTensor(_) => return value,
        ArgType::Shape(_) => quote! { &#value as &[i64] },
        ArgType::ScalarNative(_) => quote! { &[#value as i64] as &[i64] },
    };
    quote! {
        burn::tensor::Tensor::<1, burn::tensor::Int>::from_data(
            burn::tensor::TensorData::from(#host),
            (&self.device, burn::tensor::DType::I64),
        )
    }
}
