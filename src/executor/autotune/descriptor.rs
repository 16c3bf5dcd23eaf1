//! What autotune tunes: a descriptor in the mode it is compiled in, planned
//! under any choice, and the smaller descriptor of its layout a large one is
//! tuned on.

use crate::descriptor::error::Error;
use crate::descriptor::in_place::ReverseInPlace;
use crate::descriptor::operator::ReverseSubsequences;
use crate::plan::candidates::{candidates, candidates_in_place};
use crate::plan::program::Program;
use crate::plan::target::Choice;
use crate::plan::target::Target;

#[derive(Clone, Debug)]
pub(crate) enum Descriptor {
    OutOfPlace(ReverseSubsequences),
    InPlace(ReverseInPlace),
}

impl Descriptor {
    /// The operator it runs (in place, from the tensor into itself).
    pub(super) fn operator(&self) -> ReverseSubsequences {
        match self {
            Descriptor::OutOfPlace(desc) => desc.clone(),
            Descriptor::InPlace(desc) => desc.as_operator(),
        }
    }

    /// Its program for `target`.
    pub(super) fn program(&self, target: &Target) -> Result<Program, Error> {
        match self {
            Descriptor::OutOfPlace(desc) => Program::out_of_place(desc, target),
            Descriptor::InPlace(desc) => Program::in_place(desc, target),
        }
    }

    /// Its candidates for `target` (`target`'s own plan first).
    pub(super) fn candidates(&self, target: &Target) -> Result<Vec<(Choice, Program)>, Error> {
        match self {
            Descriptor::OutOfPlace(desc) => candidates(desc, target),
            Descriptor::InPlace(desc) => candidates_in_place(desc, target),
        }
    }

    /// The bytes its tensors take (in place, the tensor once).
    #[cfg(test)]
    fn bytes(&self) -> u64 {
        let operator = self.operator();
        let output = match self {
            Descriptor::OutOfPlace(_) => operator.output.min_size_in_bytes(),
            Descriptor::InPlace(_) => 0,
        };
        operator.input.min_size_in_bytes() + operator.sequence_lengths.min_size_in_bytes() + output
    }

    /// The descriptor halved along its dimension of size > 1 with the largest
    /// stride, the axis last (so that lanes keep their length where they can),
    /// until its tensors take at most `bytes`: the same layout, strides and
    /// types, fewer lanes. `None` where nothing is left to halve.
    #[cfg(test)]
    fn within(&self, bytes: u64) -> Option<Descriptor> {
        self.shrunk_until(|smaller| smaller.bytes() <= bytes)
    }

    /// Itself where it `fits`, else the descriptor halved as [`within`] says
    /// until it does; `None` where nothing is left to halve.
    ///
    /// [`within`]: Descriptor::within
    pub(super) fn shrunk_until(&self, fits: impl Fn(&Descriptor) -> bool) -> Option<Descriptor> {
        let mut smaller = self.clone();
        while !fits(&smaller) {
            smaller = smaller.halved()?;
        }
        Some(smaller)
    }

    fn halved(&self) -> Option<Descriptor> {
        let desc = self.operator();
        let axis = desc.axis as usize;
        let [input, output] = [&desc.input, &desc.output].map(|t| t.effective_strides());
        let sizes = desc.input.sizes();
        let dim = (0..sizes.len())
            .filter(|&d| sizes[d] > 1)
            .max_by_key(|&d| (d != axis, input[d].max(output[d])))?;
        let size = sizes[dim].div_ceil(2);
        let lengths = match dim == axis {
            true => desc.sequence_lengths.clone(),
            false => desc.sequence_lengths.with_size(dim, size),
        };
        Some(match self {
            Descriptor::OutOfPlace(_) => Descriptor::OutOfPlace(ReverseSubsequences::new(
                desc.input.with_size(dim, size),
                lengths,
                desc.output.with_size(dim, size),
                desc.axis,
            )),
            Descriptor::InPlace(_) => Descriptor::InPlace(ReverseInPlace::new(
                desc.input.with_size(dim, size),
                lengths,
                desc.axis,
            )),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptor::dtype::DataType;
    use crate::descriptor::tensor::TensorDesc;

    fn operator(sizes: &[u32], strides: Option<&[u32]>, axis: u32) -> ReverseSubsequences {
        let mut lengths = sizes.to_vec();
        lengths[axis as usize] = 1;
        let tensor = TensorDesc::new(DataType::Float32, sizes);
        let tensor = match strides {
            Some(strides) => tensor.with_strides(strides),
            None => tensor,
        };
        let lengths = TensorDesc::new(DataType::Uint32, &lengths);
        ReverseSubsequences::new(tensor.clone(), lengths, tensor, axis)
    }

    #[test]
    fn a_smaller_descriptor_keeps_the_layout_and_the_lanes_length() {
        let cases = [
            (operator(&[512, 64, 1024], None, 1), 1 << 20, true),
            (
                operator(&[1024, 8, 77], Some(&[1, 1024 * 80, 1024]), 2),
                1 << 20,
                true,
            ),
            (operator(&[3, 1 << 20], None, 0), 1 << 16, true),
            // Nothing but the axis to halve.
            (operator(&[1 << 24], None, 0), 1 << 12, false),
        ];
        for (desc, bound, keeps_axis) in cases {
            for large in [
                Descriptor::OutOfPlace(desc.clone()),
                Descriptor::InPlace(ReverseInPlace::new(
                    desc.input.clone(),
                    desc.sequence_lengths.clone(),
                    desc.axis,
                )),
            ] {
                let small = large.within(bound).unwrap().operator();
                let bytes = large.within(bound).unwrap().bytes();
                assert!(bytes <= bound && bytes > bound / 4, "{bytes} for {bound}");
                small.validate().unwrap();
                assert_eq!(small.input.strides(), desc.input.strides());
                assert_eq!(small.axis, desc.axis);
                let axis = desc.axis as usize;
                let axis_size = [small.input.sizes()[axis], desc.input.sizes()[axis]];
                assert_eq!(axis_size[0] == axis_size[1], keeps_axis, "{small:?}");
                let mut lengths = small.input.sizes().to_vec();
                lengths[axis] = 1;
                assert_eq!(small.sequence_lengths.sizes(), &lengths[..]);
            }
        }
    }
}
