//! The gradient. For fixed lengths the reversal is a permutation that is its own
//! inverse, so the gradient of its input is the same reversal of the incoming
//! gradient; the lengths, being integers, get none.

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{unary, Backward, Ops, OpsKind};
use burn::backend::tensor::{FloatTensor, IntTensor};
use burn::backend::{Autodiff, Backend, TensorMetadata};

use crate::backend::{Reversal, ReverseBackend};

impl<B: Backend + ReverseBackend, C: CheckpointStrategy> ReverseBackend for Autodiff<B, C> {
    fn float_reverse_subsequences(
        x: FloatTensor<Self>,
        lengths: IntTensor<Self>,
        reversal: Reversal,
    ) -> FloatTensor<Self> {
        #[derive(Debug)]
        struct Reverse;

        impl<B: Backend + ReverseBackend> Backward<B, 1> for Reverse {
            type State = (IntTensor<B>, Reversal);

            fn backward(
                self,
                ops: Ops<Self::State, 1>,
                grads: &mut Gradients,
                _checkpointer: &mut Checkpointer,
            ) {
                let (lengths, reversal) = ops.state;
                unary::<B, _>(ops.parents, ops.node, grads, |grad| {
                    let reversal = reversal.for_dtype(grad.dtype());
                    B::float_reverse_subsequences(grad, lengths, reversal)
                });
            }
        }

        let guard = x.node();
        let x = x.into_primitive();
        // Checkpointing keeps the output rather than recomputing it: recomputing
        // would need the lengths among the checkpointed states.
        match Reverse.prepare::<C>([guard]).compute_bound().stateful() {
            OpsKind::Tracked(prep) => {
                let output = B::float_reverse_subsequences(x, lengths.clone(), reversal.clone());
                prep.finish((lengths, reversal), output)
            }
            OpsKind::UnTracked(prep) => {
                prep.finish(B::float_reverse_subsequences(x, lengths, reversal))
            }
        }
    }

    fn int_reverse_subsequences(
        x: IntTensor<Self>,
        lengths: IntTensor<Self>,
        reversal: Reversal,
    ) -> IntTensor<Self> {
        B::int_reverse_subsequences(x, lengths, reversal)
    }
}
