//! `rows`: the reversed axis is the innermost dimension, contiguous in input and
//! output. Each invocation writes `steps` consecutive vectors of one row, each
//! built from the row's mirrored span (`shaders/rows/`): on 16-byte vectors,
//! computing on 32-bit words (`rows/rows.wgsl`), or on 64-bit words for 8- and
//! 16-byte elements on a CPU adapter (`cpu/rows_64.wgsl`); on 32-bit words where a
//! row is whole words but not whole vectors (`rows/rows_narrow.wgsl`).

use super::{family_keys, vector_sizes, Fields, VectorLayout, WIDTHS};
use crate::divisor::Divisor;
use crate::layout::Layout;
use crate::params::Params;
use crate::shaders::{Kernel, PipelineKey, Storage};
use crate::tuning::{self, Device, Tuning};
use crate::Variant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(super) vector: VectorLayout,
    pub(super) steps: u32,
    /// Invocations per row.
    pub(super) per_row: u32,
    pub(super) access_bits: u32,
    pub(super) share_lengths: u32,
    pub(super) invocations: u32,
}

/// `rows` where the layout's rows are whole vectors or words.
pub(super) fn plan(layout: &Layout, element_bytes: u32, device: &Device) -> Option<Plan> {
    let vector = VectorLayout::find(layout, element_bytes, vector_sizes(element_bytes))?;
    let most = tuning::rows_steps(
        device.tuning,
        element_bytes,
        vector.bytes,
        layout.packed_rows(),
    );
    // Steps past the end of a row would idle: no more than it holds.
    let steps = most.min(vector.vecs.next_power_of_two());
    let per_row = vector.vecs.div_ceil(steps);
    let access_bits = tuning::access_bits(device, Variant::Rows, element_bytes, vector.bytes);
    Some(Plan {
        vector,
        steps,
        per_row,
        access_bits,
        share_lengths: tuning::shared_lengths(device, per_row, element_bytes, access_bits),
        invocations: (vector.rows * u64::from(per_row)) as u32,
    })
}

impl Plan {
    pub(super) fn fields(&self) -> Fields {
        Fields {
            steps: self.steps,
            vector_bytes: self.vector.bytes,
            access_bits: self.access_bits,
            share_lengths: self.share_lengths,
            walk_positions: false,
        }
    }

    pub(super) fn write(&self, params: &mut Params) {
        params.count = self.invocations;
        params.vecs = Divisor::new(self.vector.vecs);
        params.per_row = Divisor::new(self.per_row);
    }
}

pub(super) fn kernel(key: &PipelineKey) -> (Kernel, Storage) {
    match (key.vector_bytes, key.access_bits) {
        (4, _) => (Kernel::RowsNarrow, Storage::Words),
        (_, 64) if key.element_bytes >= 8 => (Kernel::Rows64, Storage::U64),
        (_, 64) => (Kernel::Rows, Storage::U64),
        _ => (Kernel::Rows, Storage::Vec4),
    }
}

pub(super) fn keys() -> impl Iterator<Item = PipelineKey> {
    let most = |element_bytes, vector_bytes| {
        let steps = |packed| tuning::rows_steps(Tuning::Cpu, element_bytes, vector_bytes, packed);
        (1, steps(true).max(steps(false)))
    };
    family_keys(Variant::Rows, &WIDTHS, vector_sizes, most).flat_map(|key| {
        // Rows of 1- to 4-byte elements on 64-bit words may share their lengths.
        let shares: &[u32] = if key.access_bits == 64 && key.element_bytes <= 4 {
            &[1, 2, 4, 8]
        } else {
            &[1]
        };
        shares.iter().map(move |&share_lengths| PipelineKey {
            share_lengths,
            ..key
        })
    })
}
