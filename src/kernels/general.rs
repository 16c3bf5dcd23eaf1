//! `general`: every layout, the fallback of the vector families. One invocation per
//! output element for 4-, 8- and 16-byte elements (`shaders/general/elements.wgsl`),
//! each moved whole (a word, `vec2` or `vec4`),
//! one per 32-bit word of the output span for 1- and 2-byte ones
//! (`general/subwords.wgsl`), which merges its elements into the word so that no
//! two invocations ever write one word.

use super::Variant;
use super::{family_keys, words_only, Family, Fields, PipelineKey, Walk, WIDTHS};
use crate::layout::Layout;
use crate::params::Params;
use crate::shaders::{Kernel, Storage};
use crate::tuning::{self, Profile};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(super) invocations: u32,
    /// The divisions multiply in 64 bits (`tuning::wide_multiply`).
    wide_multiply: bool,
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
        }
    }

    fn invocations(&self) -> u32 {
        self.invocations
    }

    fn write(&self, params: &mut Params) {
        params.count = self.invocations;
    }
}

/// The family's WGSL files, and its kernels among them.
const FILES: &[(&str, &str)] = wgsl!["general/elements", "general/subwords",];
const ELEMENTS: Kernel = Kernel::new("general/elements", FILES);
const SUBWORDS: Kernel = Kernel::new("general/subwords", FILES);

/// 1- and 2-byte elements merge into 32-bit words; wider ones move whole.
pub(super) fn kernel(key: &PipelineKey) -> (Kernel, Storage) {
    match key.element_bytes {
        1 | 2 => (SUBWORDS, Storage::Words),
        4 => (ELEMENTS, Storage::Words),
        8 => (ELEMENTS, Storage::Vec2),
        _ => (ELEMENTS, Storage::Vec4),
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
}
