//! `rows`: the reversed axis is the innermost dimension, contiguous in input and
//! output. Each invocation writes `steps` consecutive vectors of one row, each
//! built from the row's mirrored span (`src/kernels/rows/`): on 16-byte vectors,
//! computing on 32-bit words (`rows/rows.wgsl`), or on 64-bit words for 8- and
//! 16-byte elements on a CPU adapter (`rows/rows_64.wgsl`); on 32-bit words where a
//! row is whole words but not whole vectors (`rows/rows_narrow.wgsl`).
//!
//! A lane longer than a binding window runs in pieces, each paired with the
//! input windows of the lane (`src/plan/cut/`): `rows/window.wgsl` writes, in each
//! pair, the vectors whose sources that window owns, a fixed grid striding over
//! them.

use super::Variant;
use super::{
    family_keys, reverses_rows, vector_sizes, vectors_in_64, Family, Fields, PipelineKey,
    VectorLayout, Walk, WIDTHS,
};
use crate::descriptor::layout::Layout;
use crate::descriptor::Mode;
use crate::kernels::divisor::Divisor;
use crate::kernels::params::Params;
use crate::kernels::shaders::{KernelFile, Storage};
use crate::kernels::tuning::{self, Profile, Tuning};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rows {
    pub(super) vector: VectorLayout,
    pub(super) steps: u32,
    /// Invocations per row.
    pub(super) per_row: u32,
    pub(super) access_bits: u32,
    pub(super) invocations: u32,
    /// Whether the piece is part of a lane longer than a window, paired with an
    /// input window (`rows/window.wgsl`).
    pub(super) walks_window: bool,
    /// In place, one invocation walking each row (`rows/swap.wgsl`).
    pub(super) in_place: bool,
}

impl Rows {
    /// `rows` on `layout`, before it is fitted: where its rows are whole
    /// vectors or words.
    fn new(layout: &Layout, element_bytes: u32, profile: &Profile) -> Option<Rows> {
        let vector = VectorLayout::find(layout, element_bytes, vector_sizes(element_bytes))?;
        let most = tuning::rows_steps(
            profile.tuning,
            element_bytes,
            vector.bytes,
            layout.packed_rows(),
        );
        // Steps past the end of a row would idle: no more than it holds.
        let steps = most.min(vector.vecs.next_power_of_two());
        // Rows of 8- and 16-byte elements only move whole words; narrower ones
        // shift bytes across them.
        let sizes = vectors_in_64(element_bytes, vector.bytes);
        let access_bits = if element_bytes >= 8 {
            tuning::move_bits(profile, sizes)
        } else {
            tuning::access_bits(profile, sizes)
        };
        Some(Rows {
            vector,
            steps,
            per_row: 0,
            access_bits,
            invocations: 0,
            walks_window: false,
            in_place: false,
        })
    }

    /// In place (`rows/swap.wgsl`): one invocation a row, where rows are whole
    /// 16-byte vectors, which it funnels bytes across at every width.
    pub(super) fn in_place(self, profile: &Profile) -> Option<Rows> {
        (self.vector.bytes == 16).then_some(Rows {
            steps: 1,
            per_row: 1,
            access_bits: tuning::access_bits(profile, &[32, 64]),
            invocations: self.vector.lines as u32,
            in_place: true,
            ..self
        })
    }
}

/// `rows/window` for the pieces of one lane of `lane` positions, `piece` one
/// of them (a run of its positions, its output binding `piece_bytes` long), where the whole lane is vectors or words
/// no narrower than an element: the lane's work, each piece fitted to it
/// ([`Rows::fit`]).
fn window_work(
    piece: &Layout,
    piece_bytes: u64,
    lane: u32,
    element_bytes: u32,
    profile: &Profile,
) -> Option<Rows> {
    if piece.rank() != 1 {
        return None;
    }
    let mut whole = piece.clone();
    whole.dims[0].size = lane;
    let whole_bytes = u64::from(lane) * u64::from(element_bytes);
    let work = Rows::on(
        &whole,
        element_bytes,
        whole_bytes,
        Mode::OutOfPlace,
        profile,
    )?;
    if work.vector.bytes < element_bytes {
        return None;
    }
    Rows {
        walks_window: true,
        ..work
    }
    .fit(piece, element_bytes, piece_bytes, profile.tuning)
}

impl Family for Rows {
    fn offered(layout: &Layout, mode: Mode, tuning: Tuning) -> bool {
        // In place, where the tuning walks rows from both ends.
        reverses_rows(layout) && (mode == Mode::OutOfPlace || tuning::walks_rows_in_place(tuning))
    }

    /// A lane of rows cut into windows, whichever family's work it was: the
    /// vectors of its lane whose sources the window owns ([`window_work`]).
    fn window_work(
        first: &Layout,
        first_bytes: u64,
        axis_size: u32,
        element_bytes: u32,
        profile: &Profile,
    ) -> Option<Option<Rows>> {
        reverses_rows(first)
            .then(|| window_work(first, first_bytes, axis_size, element_bytes, profile))
    }

    /// Where the axis is the innermost dimension and its rows whole vectors or
    /// words; in place where they are whole 16-byte vectors.
    fn on(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        mode: Mode,
        profile: &Profile,
    ) -> Option<Rows> {
        if !reverses_rows(layout) {
            return None;
        }
        let work = Rows::new(layout, element_bytes, profile)?.fit(
            layout,
            element_bytes,
            output_bytes,
            profile.tuning,
        )?;
        match mode {
            Mode::OutOfPlace => Some(work),
            Mode::InPlace => work.in_place(profile),
        }
    }

    /// Its rows and invocations, or in a lane's window pairs, the vectors of
    /// the piece's positions (the lane's vectors stay the work's); `None` where
    /// the piece's rows are not whole vectors of this work's size, or a walked
    /// piece is not one run of a lane.
    fn fit(
        self,
        piece: &Layout,
        element_bytes: u32,
        _output_bytes: u64,
        tuning: Tuning,
    ) -> Option<Rows> {
        if self.walks_window {
            if piece.rank() != 1 {
                return None;
            }
            let vecs = (u64::from(piece.dims[0].size) * u64::from(element_bytes))
                .div_ceil(u64::from(self.vector.bytes)) as u32;
            let invocations = vecs
                .div_ceil(self.steps)
                .min(tuning::pair_invocations(tuning))
                .next_multiple_of(crate::kernels::shaders::WORKGROUP_SIZE);
            return Some(Rows {
                per_row: 1,
                invocations,
                ..self
            });
        }
        let vector = VectorLayout::of(piece, element_bytes, self.vector.bytes)?;
        let per_row = match self.in_place {
            true => 1,
            false => vector.vecs.div_ceil(self.steps),
        };
        Some(Rows {
            vector,
            per_row,
            invocations: (vector.lines * u64::from(per_row)) as u32,
            ..self
        })
    }

    fn fields(&self) -> Fields {
        Fields {
            steps: self.steps,
            vector_bytes: self.vector.bytes,
            access_bits: self.access_bits,
            walk: if self.walks_window {
                Walk::Window
            } else {
                Walk::None
            },
            wide_multiply: false,
        }
    }

    fn invocations(&self) -> u32 {
        self.invocations
    }

    fn write(&self, params: &mut Params) {
        params.count = self.invocations;
        params.vecs = Divisor::new(self.vector.vecs);
        params.per_row = Divisor::new(self.per_row);
    }

    fn kernel(key: &PipelineKey) -> (KernelFile, Storage) {
        let storage = Storage::of(key.vector_bytes, key.access_bits);
        let kernel = match storage {
            _ if key.in_place => SWAP,
            _ if key.walk == Walk::Window => WINDOW,
            Storage::Words => ROWS_NARROW,
            Storage::U64 if key.element_bytes >= 8 => ROWS_64,
            _ => ROWS,
        };
        (kernel, storage)
    }

    /// Whether `rows/window.wgsl` mirrors vectors or words (`mirror`).
    fn slots(key: &PipelineKey) -> &'static [(&'static str, &'static str)] {
        match Storage::of(key.vector_bytes, key.access_bits) {
            Storage::Words => &[("mirror", "rows/mirror_narrow")],
            _ => &[("mirror", "rows/mirror")],
        }
    }

    /// The innermost axis.
    fn takes_axis(rank: u32, axis: u32) -> bool {
        axis == rank - 1
    }

    fn keys() -> impl Iterator<Item = PipelineKey> {
        let most = |element_bytes, vector_bytes| {
            let steps =
                |packed| tuning::rows_steps(Tuning::Cpu, element_bytes, vector_bytes, packed);
            (1, steps(true).max(steps(false)))
        };
        family_keys(Variant::Rows, &WIDTHS, vector_sizes, most, vectors_in_64).flat_map(|key| {
            // Pairs over lanes longer than a window, of rank 1, on vectors no
            // narrower than an element.
            let pairs = (key.vector_bytes >= key.element_bytes).then_some(PipelineKey {
                walk: Walk::Window,
                ..key
            });
            // In place, one step, on 16-byte vectors.
            let in_place = (key.vector_bytes == 16 && key.steps == 1).then_some(PipelineKey {
                in_place: true,
                ..key
            });
            std::iter::once(key).chain(pairs).chain(in_place)
        })
    }
}

/// The family's WGSL files, and its kernels among them.
const FILES: &[(&str, &str)] = wgsl![
    "rows/rows",
    "rows/rows_narrow",
    "rows/rows_64",
    "rows/window",
    "rows/segments",
    "rows/mirror",
    "rows/mirror_narrow",
    "rows/swap",
];
const ROWS: KernelFile = KernelFile::new("rows/rows", FILES);
const ROWS_NARROW: KernelFile = KernelFile::new("rows/rows_narrow", FILES);
const ROWS_64: KernelFile = KernelFile::new("rows/rows_64", FILES);
const WINDOW: KernelFile = KernelFile::new("rows/window", FILES);
const SWAP: KernelFile = KernelFile::new("rows/swap", FILES);
