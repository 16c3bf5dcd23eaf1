//! `gather`: the reversed axis is outside a contiguous innermost dimension along
//! which the length changes from element to element, and `columns` (axes of up to
//! 64 positions, elements under 16 bytes) does not run it. Each
//! invocation owns one vector column of a run and a block of `steps` positions
//! along the axis, and gathers each output vector element by element
//! (`src/kernels/gather/gather.wgsl`, or `gather_narrow.wgsl` on 32-bit words).
//! Neighbouring invocations take neighbouring columns; a band of columns walks the
//! whole axis before the next band.

use super::same_along_runs;
use super::Variant;
use super::{
    family_keys, reverses_rows, vector_sizes, Family, Fields, PipelineKey, VectorLayout, Walk,
    WIDTHS,
};
use crate::descriptor::layout::Layout;
use crate::descriptor::Mode;
use crate::kernels::divisor::Divisor;
use crate::kernels::params::Params;
use crate::kernels::shaders::{KernelFile, Storage};
use crate::kernels::tuning::{self, Profile, Tuning, GATHER_BAND_VECS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gather {
    pub(super) vector: VectorLayout,
    /// Positions along the axis an invocation walks.
    pub(super) steps: u32,
    /// Blocks of `steps` positions along the axis.
    pub(super) blocks: u32,
    /// Columns (vectors) per band, and bands per run.
    pub(super) band: u32,
    pub(super) bands: u32,
    /// Whether each invocation loads a word of the next band ahead of its
    /// gathers (`tuning::touch_ahead`).
    pub(super) touch_ahead: bool,
    pub(super) access_bits: u32,
    pub(super) invocations: u32,
    /// In place, one invocation walking each vector column (`gather/swap.wgsl`).
    pub(super) in_place: bool,
}

impl Family for Gather {
    fn offered(layout: &Layout, mode: Mode, tuning: Tuning) -> bool {
        // After `columns`; in place, where the tuning walks longer columns.
        !reverses_rows(layout)
            && !same_along_runs(layout)
            && (mode == Mode::OutOfPlace || tuning::walks_columns_in_place(tuning))
    }

    /// `gather` along an axis outside the innermost dimension, where runs are
    /// whole vectors or words; in place (`gather/swap.wgsl`), one invocation a
    /// vector column of a run, where runs are whole 16-byte vectors.
    fn on(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        mode: Mode,
        profile: &Profile,
    ) -> Option<Gather> {
        if reverses_rows(layout) {
            return None;
        }
        let work = match mode {
            Mode::OutOfPlace => {
                let vector =
                    VectorLayout::find(layout, element_bytes, vector_sizes(element_bytes))?;
                let n = layout.dims[layout.axis].size;
                Gather {
                    vector,
                    steps: tuning::gather_steps(profile.tuning, element_bytes)
                        .min(n.next_power_of_two()),
                    blocks: 0,
                    band: 0,
                    bands: 0,
                    touch_ahead: tuning::touch_ahead(profile.tuning, element_bytes, vector.bytes),
                    access_bits: tuning::move_bits(
                        profile,
                        access_sizes(element_bytes, vector.bytes),
                    ),
                    invocations: 0,
                    in_place: false,
                }
            }
            Mode::InPlace => Gather {
                vector: VectorLayout::of(layout, element_bytes, 16)?,
                steps: 1,
                blocks: 1,
                band: 0,
                bands: 1,
                touch_ahead: false,
                access_bits: tuning::move_bits(profile, &[32, 64]),
                invocations: 0,
                in_place: true,
            },
        };
        work.fit(layout, element_bytes, output_bytes, profile.tuning)
    }

    /// Its blocks of positions, bands and invocations; `None` where the
    /// piece's runs are not whole vectors of this work's size.
    fn fit(
        self,
        piece: &Layout,
        element_bytes: u32,
        _output_bytes: u64,
        _tuning: Tuning,
    ) -> Option<Gather> {
        let vector = VectorLayout::of(piece, element_bytes, self.vector.bytes)?;
        let n = piece.dims[piece.axis].size.max(1);
        if self.in_place {
            // One invocation a vector column, walking the whole axis.
            let columns = vector.lines / u64::from(n) * u64::from(vector.vecs);
            return Some(Gather {
                vector,
                band: vector.vecs,
                invocations: columns as u32,
                ..self
            });
        }
        let blocks = n.div_ceil(self.steps);
        // Equal bands of at most GATHER_BAND_VECS columns, so that a run just
        // past a multiple of it leaves no band mostly idle.
        let bands = vector.vecs.div_ceil(GATHER_BAND_VECS);
        let band = vector.vecs.div_ceil(bands);
        // The axis is one of the dimensions `rows` counts: a column per run and band.
        let columns = vector.lines / u64::from(n) * u64::from(bands * band);
        Some(Gather {
            vector,
            blocks,
            band,
            bands,
            invocations: (columns * u64::from(blocks)) as u32,
            ..self
        })
    }

    fn fields(&self) -> Fields {
        Fields {
            steps: self.steps,
            vector_bytes: self.vector.bytes,
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
        params.blocks = Divisor::new(self.blocks);
        params.band = Divisor::new(self.band);
        params.bands = Divisor::new(self.bands);
        params.touch = if self.touch_ahead { u32::MAX } else { 0 };
    }

    fn kernel(key: &PipelineKey) -> (KernelFile, Storage) {
        let storage = Storage::of(key.vector_bytes, key.access_bits);
        let kernel = match storage {
            _ if key.in_place => SWAP,
            Storage::Words => GATHER_NARROW,
            _ => GATHER,
        };
        (kernel, storage)
    }

    fn keys() -> impl Iterator<Item = PipelineKey> {
        family_keys(
            Variant::Gather,
            &WIDTHS,
            vector_sizes,
            |element_bytes, _| {
                let steps = |tuning| tuning::gather_steps(tuning, element_bytes);
                (1, steps(Tuning::Cpu).max(steps(Tuning::Gpu)))
            },
            access_sizes,
        )
        .chain(
            // In place: one step, 16-byte vectors as 32- or 64-bit words.
            family_keys(
                Variant::Gather,
                &WIDTHS,
                |_| &[16],
                |_, _| (1, 1),
                |_, _| &[32, 64],
            )
            .map(|key| PipelineKey {
                in_place: true,
                ..key
            }),
        )
    }
}

/// The family's WGSL files, and its kernels among them.
const FILES: &[(&str, &str)] = wgsl![
    "gather/gather",
    "gather/gather_narrow",
    "gather/blocks",
    "gather/swap",
];
const GATHER: KernelFile = KernelFile::new("gather/gather", FILES);
const GATHER_NARROW: KernelFile = KernelFile::new("gather/gather_narrow", FILES);
const SWAP: KernelFile = KernelFile::new("gather/swap", FILES);

/// 64-bit words too for 8- and 16-byte elements on 16-byte vectors
/// (`tuning::access_bits`): narrower elements load one 32-bit word an element
/// either way, and a 64-bit word does not divide a 4-byte vector.
fn access_sizes(element_bytes: u32, vector_bytes: u32) -> &'static [u32] {
    if vector_bytes == 16 && element_bytes >= 8 {
        &[32, 64]
    } else {
        &[32]
    }
}
