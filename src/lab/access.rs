//! What the trace build records of each access a kernel makes to its
//! bindings (`src/lab/trace.rs`), and what the bounds test checks.

use crate::descriptor::error::TensorRole;

/// Whether an access reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A read.
    Load,
    /// A write.
    Store,
}

/// One access to a tensor by one invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The dispatch of the operator it belongs to.
    pub dispatch: u32,
    /// The workgroup, as the trace numbers its sample.
    pub workgroup: u32,
    /// The invocation's index in its workgroup.
    pub local: u32,
    /// The invocation's how-manieth access to the tensors this is, from 0.
    pub ordinal: u32,
    /// The index the kernel used on its binding's array, as it computed it.
    pub index: u32,
    /// Bytes of one element of that array: 4, 8 or 16.
    pub element_bytes: u32,
    /// Bytes from the start of the element to the first byte it moves: a word or
    /// half of a vector; 0 where it moves the whole element.
    pub offset: u32,
    /// Bytes from the start of the tensor's binding: `index * element_bytes +
    /// offset`, computed without wrapping.
    pub address: u64,
    /// Bytes it moves.
    pub bytes: u32,
    /// Read or write.
    pub kind: Kind,
    /// Which binding: the input's (1), the sequence lengths' (2) or the
    /// output's (3), whatever each holds in the dispatch (in place, the tensor
    /// may lie at the input's).
    pub tensor: TensorRole,
    /// Whether its address waits on an earlier load of the same invocation (an
    /// input load after a length load: the length mirrors its address).
    pub waits: bool,
}
