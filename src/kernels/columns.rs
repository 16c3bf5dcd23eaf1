//! `columns`: per-element lengths (as `gather`) along at most
//! [`COLUMN_ROWS`] positions, on 16-byte vectors of
//! elements narrower than one. Each invocation holds a whole column of the axis in
//! registers (`steps` rows: the axis rounded up to 8, 16, 32 or 64), loads and
//! stores each vector once, and reverses every element's prefix there with a
//! network of selects (`src/kernels/columns/columns.wgsl`). In place on a CPU adapter
//! the same, each column read where it is written and moved only below the
//! longest of its lengths.

use super::same_along_runs;
use super::Variant;
use super::{
    family_keys, reverses_rows, vector_constants, Family, Fields, PipelineKey, VectorLayout, Walk,
    WIDTHS,
};
use crate::descriptor::layout::Layout;
use crate::descriptor::Mode;
use crate::kernels::divisor::Divisor;
use crate::kernels::params::Params;
use crate::kernels::shaders::{KernelFile, Storage};
use crate::kernels::tuning::{self, Profile, Tuning, COLUMN_ROWS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Columns {
    pub(super) vector: VectorLayout,
    /// Axis positions a column holds in registers: the axis rounded up to 8,
    /// 16, 32 or 64.
    pub(super) column_rows: u32,
    pub(super) access_bits: u32,
    pub(super) invocations: u32,
}

impl Family for Columns {
    fn offered(layout: &Layout, _mode: Mode, _tuning: Tuning) -> bool {
        !reverses_rows(layout) && !same_along_runs(layout)
    }

    /// `columns` along at most [`COLUMN_ROWS`] positions outside the innermost
    /// dimension, on 16-byte vectors of narrower elements: it loads and stores
    /// each vector once, whole, where `gather` loads each element; a CPU
    /// adapter pays for each load with a loop over its SIMD group, a GPU for
    /// each sector (docs/tuning.md has both). In place, the same columns, each
    /// read through the output binding.
    fn on(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        _mode: Mode,
        profile: &Profile,
    ) -> Option<Columns> {
        let n = layout.dims[layout.axis].size;
        if reverses_rows(layout) || n > COLUMN_ROWS || element_bytes >= 16 {
            return None;
        }
        Columns {
            vector: VectorLayout::of(layout, element_bytes, 16)?,
            column_rows: n.next_power_of_two().max(8),
            access_bits: tuning::access_bits(profile, access_sizes(element_bytes, 16)),
            invocations: 0,
        }
        .fit(layout, element_bytes, output_bytes, profile.tuning)
    }

    /// An invocation per column, a vector of a run over the whole axis; `None`
    /// where the piece's runs are not whole 16-byte vectors or its axis
    /// outgrows the work's rows.
    fn fit(
        self,
        piece: &Layout,
        element_bytes: u32,
        _output_bytes: u64,
        _tuning: Tuning,
    ) -> Option<Columns> {
        let vector = VectorLayout::of(piece, element_bytes, 16)?;
        let n = piece.dims[piece.axis].size;
        (n <= self.column_rows).then(|| Columns {
            vector,
            invocations: (vector.lines / u64::from(n) * u64::from(vector.vecs)) as u32,
            ..self
        })
    }

    fn fields(&self) -> Fields {
        Fields {
            steps: self.column_rows,
            vector_bytes: 16,
            access_bits: self.access_bits,
            walk: Walk::None,
            wide_multiply: false,
        }
    }

    fn invocations(&self) -> u32 {
        self.invocations
    }

    fn write(&self, params: &mut Params) {
        params.count = self.invocations;
        params.vecs = Divisor::new(self.vector.vecs);
    }

    fn kernel(key: &PipelineKey) -> (KernelFile, Storage) {
        (COLUMNS, Storage::of(key.vector_bytes, key.access_bits))
    }

    /// Every buffer, in place too: the kernel names its input in the branch it
    /// takes out of place.
    fn uses(_key: &PipelineKey) -> [bool; 3] {
        [true; 3]
    }

    fn constants(key: &PipelineKey, constants: &mut Vec<(&'static str, f64)>) {
        vector_constants(key, constants);
        constants.push(("IN_PLACE", f64::from(u8::from(key.in_place))));
    }

    fn keys() -> impl Iterator<Item = PipelineKey> {
        // Elements narrower than a vector, on 16-byte vectors, in 8 to 64 rows;
        // out of place and in place.
        family_keys(
            Variant::Columns,
            &WIDTHS[..4],
            |_| &[16],
            |_, _| (8, COLUMN_ROWS),
            access_sizes,
        )
        .flat_map(|key| {
            [
                key,
                PipelineKey {
                    in_place: true,
                    ..key
                },
            ]
        })
    }
}

/// The family's WGSL files, and its kernels among them.
const FILES: &[(&str, &str)] = wgsl!["columns/columns",];
const COLUMNS: KernelFile = KernelFile::new("columns/columns", FILES);

/// 32- or 64-bit words (`tuning::access_bits`).
fn access_sizes(_element_bytes: u32, _vector_bytes: u32) -> &'static [u32] {
    &[32, 64]
}
