//! `general`: every layout, the fallback of the vector families. One invocation per
//! output element for 4-, 8- and 16-byte elements (`shaders/general/elements.wgsl`),
//! each moved whole (a word, `vec2` or `vec4`),
//! one per 32-bit word of the output span for 1- and 2-byte ones
//! (`general/subwords.wgsl`), which merges its elements into the word so that no
//! two invocations ever write one word.
//!
//! In place ([`ReverseInPlace`](crate::ReverseInPlace)), one invocation per pair
//! of positions a lane may swap, `t` and `L - 1 - t` for `t` below half the axis
//! (`shaders/general/swap.wgsl`): it loads the lane's length and, where `t` is
//! below half of it, swaps the two elements through the output binding, whole, or
//! for 1- and 2-byte elements by an atomic XOR of each word with the bytes that
//! change (`general/swap_subwords.wgsl`), so that invocations sharing a word
//! never undo each other's writes.

use super::Variant;
use super::{family_keys, words_only, Family, Fields, PipelineKey, Walk, WIDTHS};
use crate::divisor::Divisor;
use crate::layout::Layout;
use crate::params::Params;
use crate::shaders::{Kernel, Storage};
use crate::tuning::{self, Profile};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(super) invocations: u32,
    /// The divisions multiply in 64 bits (`tuning::wide_multiply`).
    wide_multiply: bool,
    /// In place: the axis of the layout and the pairs a lane of it may swap
    /// (half the axis), which the invocations count in its place.
    pairs: Option<(usize, u32)>,
}

impl Plan {
    /// One invocation per output element (4 bytes and wider) or per 32-bit word of
    /// the `output_bytes` the output binding spans.
    pub(super) fn new(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        profile: &Profile,
    ) -> Plan {
        let invocations = if element_bytes < 4 {
            output_bytes.div_ceil(4)
        } else {
            layout.element_count()
        };
        Plan {
            invocations: invocations as u32,
            wide_multiply: tuning::wide_multiply(profile),
            pairs: None,
        }
    }

    /// In place: one invocation per pair of positions of each lane.
    pub(super) fn in_place(layout: &Layout, profile: &Profile) -> Plan {
        let n = layout.dims[layout.axis].size;
        let lanes = match n {
            0 => 0,
            n => layout.element_count() / u64::from(n),
        };
        Plan {
            invocations: (lanes * u64::from(n / 2)) as u32,
            wide_multiply: tuning::wide_multiply(profile),
            pairs: Some((layout.axis, n / 2)),
        }
    }
}

impl Family for Plan {
    fn fields(&self) -> Fields {
        Fields {
            steps: 1,
            vector_bytes: 0,
            access_bits: 32,
            walk: Walk::None,
            wide_multiply: self.wide_multiply,
            in_place: self.pairs.is_some(),
        }
    }

    fn invocations(&self) -> u32 {
        self.invocations
    }

    fn write(&self, params: &mut Params) {
        params.count = self.invocations;
        if let Some((axis, pairs)) = self.pairs {
            params.sizes[axis] = pairs;
            params.size_divisors[axis] = Divisor::new(pairs.max(1));
        }
    }
}

/// The family's WGSL files, and its kernels among them.
const FILES: &[(&str, &str)] = wgsl![
    "general/elements",
    "general/subwords",
    "general/swap",
    "general/swap_subwords",
    "general/lane_pair",
];
const ELEMENTS: Kernel = Kernel::new("general/elements", FILES);
const SUBWORDS: Kernel = Kernel::new("general/subwords", FILES);
const SWAP: Kernel = Kernel::new("general/swap", FILES);
const SWAP_SUBWORDS: Kernel = Kernel::new("general/swap_subwords", FILES);

/// 1- and 2-byte elements merge into 32-bit words; wider ones move whole.
pub(super) fn kernel(key: &PipelineKey) -> (Kernel, Storage) {
    let (whole, subwords) = match key.in_place {
        true => (SWAP, SWAP_SUBWORDS),
        false => (ELEMENTS, SUBWORDS),
    };
    match key.element_bytes {
        1 | 2 => (subwords, Storage::Words),
        4 => (whole, Storage::Words),
        8 => (whole, Storage::Vec2),
        _ => (whole, Storage::Vec4),
    }
}

pub(super) use super::no_slots as slots;

#[cfg_attr(not(feature = "lab"), allow(dead_code))]
/// Any axis.
pub(super) fn takes_axis(_rank: u32, _axis: u32) -> bool {
    true
}

pub(super) fn constants(key: &PipelineKey, constants: &mut Vec<(&'static str, f64)>) {
    if key.element_bytes < 4 {
        constants.push(("ELEM_BYTES", f64::from(key.element_bytes)));
    }
}

#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(super) fn keys() -> impl Iterator<Item = PipelineKey> {
    family_keys(
        Variant::General,
        &WIDTHS,
        |_| &[0],
        |_, _| (1, 1),
        words_only,
    )
    .flat_map(|key| {
        [false, true].map(|wide_multiply| PipelineKey {
            wide_multiply,
            ..key
        })
    })
    .flat_map(|key| [false, true].map(|in_place| PipelineKey { in_place, ..key }))
}
