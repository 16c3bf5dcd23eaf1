//! The kernel families and the plan that picks one for a canonical layout.
//!
//! The plan is decided once, on the host, from the layout and the device: the
//! general family runs every layout, and the vector families are fast paths for
//! layouts whose innermost canonical dimension is contiguous in input and output
//! and a whole number of vectors long. Each family's module holds its rule (when it
//! runs), its plan (how its work is cut into invocations), its kernels' WGSL and
//! key, and what it writes into the layout uniform.

mod columns;
mod gather;
mod general;
mod key;
mod rows;
mod runs;
mod tile;

pub use key::{PipelineKey, Walk};

use crate::layout::Layout;
use crate::params::Params;
use crate::shaders::{Kernel, Storage, WORKGROUP_SIZE};
use crate::tuning::{self, Device};

/// A kernel family. [`Variant::General`] runs every descriptor; the others are fast
/// paths for layouts whose innermost canonical dimension is contiguous in input and
/// output, a whole number of vectors long, with every other stride keeping those
/// vectors aligned.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Any layout: one invocation per output element (4-, 8-, 16-byte elements) or
    /// per 32-bit output word (1-, 2-byte elements).
    General,
    /// The reversed axis is the innermost dimension: vectors of a row, each built
    /// from the mirrored span of the row it reverses.
    Rows,
    /// The reversed axis is outside the innermost dimension and the length is the
    /// same along it: whole runs move from their mirrored position.
    Runs,
    /// The reversed axis is outside the innermost dimension and the length changes
    /// along it: each output vector is gathered element by element.
    Gather,
    /// As [`Variant::Gather`], on a GPU, along an axis that a workgroup's tile in
    /// workgroup memory holds: the tensor is read and written a whole vector at a
    /// time, beside the neighbours' vectors, and gathered from the tile.
    Tile,
    /// As [`Variant::Gather`], on a CPU adapter, along at most 64 positions, on
    /// 16-byte vectors of elements narrower than one: each invocation holds a whole
    /// column of the axis in registers, loads and stores each vector once and
    /// reverses every element's prefix with a network of selects.
    Columns,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 6] = [
        Variant::General,
        Variant::Rows,
        Variant::Runs,
        Variant::Gather,
        Variant::Tile,
        Variant::Columns,
    ];

    /// The name the benchmark and test logs print.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::General => "general",
            Variant::Rows => "rows",
            Variant::Runs => "runs",
            Variant::Gather => "gather",
            Variant::Tile => "tile",
            Variant::Columns => "columns",
        }
    }
}

/// The key fields a family's plan decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fields {
    pub(crate) steps: u32,
    pub(crate) vector_bytes: u32,
    pub(crate) access_bits: u32,
    pub(crate) share_lengths: u32,
    pub(crate) walk: Walk,
    pub(crate) wide_multiply: bool,
}

/// A family and the counts its kernel needs for one piece of the tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    General(general::Plan),
    Rows(rows::Plan),
    Runs(runs::Plan),
    Gather(gather::Plan),
    Tile(tile::Plan),
    Columns(columns::Plan),
}

impl Plan {
    /// The plan for `layout` of `element_bytes`-byte elements on `device`;
    /// `output_bytes` is the size of the output binding it writes through.
    pub(crate) fn new(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        device: &Device,
    ) -> Plan {
        let rank = layout.rank();
        let inner = layout.dims[rank - 1];
        let fast = if layout.axis == rank - 1 {
            rows::plan(layout, element_bytes, device).map(Plan::Rows)
        } else if inner.lengths == 0 {
            runs::plan(layout, element_bytes, device).map(Plan::Runs)
        } else {
            columns::plan(layout, element_bytes, device)
                .map(Plan::Columns)
                .or_else(|| tile::plan(layout, element_bytes, device).map(Plan::Tile))
                .or_else(|| gather::plan(layout, element_bytes, device).map(Plan::Gather))
        };
        fast.unwrap_or_else(|| Plan::general(layout, element_bytes, output_bytes, device))
    }

    /// The plan for a windowed piece of whole axis positions paired with an input
    /// window (`src/window.rs`), on an axis of `axis_size` positions: `runs` walks
    /// the piece's positions in each invocation, `rows` writes the vectors of its
    /// lane whose sources the window owns (`None` where the lane is not whole
    /// vectors or words); the others run it as they are.
    pub(crate) fn walking_positions(
        self,
        layout: &Layout,
        axis_size: u32,
        element_bytes: u32,
        device: &Device,
    ) -> Option<Plan> {
        let rows = layout.axis + 1 == layout.rank();
        match self {
            Plan::Runs(p) => Some(Plan::Runs(
                p.walking(layout.dims[layout.axis].size, device.tuning),
            )),
            _ if rows => rows::pairs_plan(layout, axis_size, element_bytes, device).map(Plan::Rows),
            other => Some(other),
        }
    }

    /// Whether windowed pieces of whole positions of `layout` walk pairs with
    /// input windows (`tuning::walks_pairs`) rather than stage through scratch:
    /// `runs`, where the tuning walks its lanes, on `output_bytes` cut into
    /// windows of `window` bytes, each piece paired with the windows at and
    /// below its own at most.
    pub(crate) fn walks_pairs(
        &self,
        layout: &Layout,
        device: &Device,
        output_bytes: u64,
        window: u64,
    ) -> bool {
        match self {
            Plan::Runs(p) => {
                let positions = layout.dims[layout.axis].size;
                let windows = output_bytes.div_ceil(window.max(1)).max(1);
                let pairs = windows * (windows + 1) / 2;
                let (lanes, by_run) = (p.lanes(positions), p.by_run(positions));
                tuning::walks_pairs(device.tuning, lanes, by_run, output_bytes / pairs)
            }
            _ => false,
        }
    }

    /// The `general` plan, which runs every layout.
    pub(crate) fn general(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        device: &Device,
    ) -> Plan {
        Plan::General(general::Plan::new(
            layout,
            element_bytes,
            output_bytes,
            device,
        ))
    }

    pub(crate) fn variant(&self) -> Variant {
        match self {
            Plan::General(_) => Variant::General,
            Plan::Rows(_) => Variant::Rows,
            Plan::Runs(_) => Variant::Runs,
            Plan::Gather(_) => Variant::Gather,
            Plan::Tile(_) => Variant::Tile,
            Plan::Columns(_) => Variant::Columns,
        }
    }

    pub(crate) fn fields(&self) -> Fields {
        match self {
            Plan::General(p) => p.fields(),
            Plan::Rows(p) => p.fields(),
            Plan::Runs(p) => p.fields(),
            Plan::Gather(p) => p.fields(),
            Plan::Tile(p) => p.fields(),
            Plan::Columns(p) => p.fields(),
        }
    }

    /// Workgroups of the dispatch, before folding: one per band of a run for
    /// `tile`, else enough for the invocations with work (at most one per output
    /// element or word of one window, so below 2^32).
    pub(crate) fn workgroups(&self) -> u32 {
        let invocations = match self {
            Plan::Tile(p) => return p.workgroups,
            Plan::General(p) => p.invocations,
            Plan::Rows(p) => p.invocations,
            Plan::Runs(p) => p.invocations,
            Plan::Gather(p) => p.invocations,
            Plan::Columns(p) => p.invocations,
        };
        invocations.div_ceil(WORKGROUP_SIZE)
    }

    /// Writes the family's fields of the layout uniform.
    pub(crate) fn write(&self, params: &mut Params) {
        match self {
            Plan::General(p) => p.write(params),
            Plan::Rows(p) => p.write(params),
            Plan::Runs(p) => p.write(params),
            Plan::Gather(p) => p.write(params),
            Plan::Tile(p) => p.write(params),
            Plan::Columns(p) => p.write(params),
        }
    }
}

/// The kernel and storage of `key`.
pub(crate) fn kernel(key: &PipelineKey) -> (Kernel, Storage) {
    match key.variant {
        Variant::General => general::kernel(key),
        Variant::Rows => rows::kernel(key),
        Variant::Runs => runs::kernel(key),
        Variant::Gather => gather::kernel(key),
        Variant::Tile => tile::kernel(key),
        Variant::Columns => columns::kernel(key),
    }
}

/// The family's `override` constants of `key`, after the shared ones.
pub(crate) fn constants(key: &PipelineKey, constants: &mut Vec<(&'static str, f64)>) {
    match key.variant {
        Variant::General => general::constants(key, constants),
        Variant::Tile => tile::constants(key, constants),
        _ => constants.extend([
            ("ELEM_BYTES", f64::from(key.element_bytes)),
            ("STEPS", f64::from(key.steps)),
        ]),
    }
    if key.share_lengths > 1 {
        constants.push(("SHARED_BY", f64::from(key.share_lengths)));
    }
    if key.variant == Variant::Runs {
        constants.push(("WALK", f64::from(u8::from(key.walk != Walk::None))));
        constants.push((
            "WALK_LANES",
            f64::from(u8::from(key.walk == Walk::PairsByLane)),
        ));
    }
}

/// Every family's keys, with rank, axis and length type left to fill.
pub(crate) fn keys() -> impl Iterator<Item = PipelineKey> {
    general::keys()
        .chain(rows::keys())
        .chain(runs::keys())
        .chain(gather::keys())
        .chain(tile::keys())
        .chain(columns::keys())
}

/// A family's keys: for every element width in `widths`, each vector size in
/// `sizes(width)`, every power of two of steps in `steps(width, vector size)`
/// (least and most), and each access size the family may use; one invocation of a
/// row shares its length with none.
fn family_keys(
    variant: Variant,
    widths: &'static [u32],
    sizes: fn(u32) -> &'static [u32],
    steps: fn(u32, u32) -> (u32, u32),
    access: fn(u32, u32) -> &'static [u32],
) -> impl Iterator<Item = PipelineKey> {
    widths.iter().flat_map(move |&element_bytes| {
        sizes(element_bytes).iter().flat_map(move |&vector_bytes| {
            let (least, most) = steps(element_bytes, vector_bytes);
            (least.ilog2()..=most.ilog2()).flat_map(move |power| {
                access(element_bytes, vector_bytes)
                    .iter()
                    .map(move |&access_bits| PipelineKey {
                        variant,
                        steps: 1 << power,
                        vector_bytes,
                        element_bytes,
                        rank: 1,
                        axis: 0,
                        length_bytes: 4,
                        signed_lengths: false,
                        access_bits,
                        share_lengths: 1,
                        walk: Walk::None,
                        wide_multiply: false,
                    })
            })
        })
    })
}

/// The element widths.
const WIDTHS: [u32; 5] = [1, 2, 4, 8, 16];

/// The access sizes of a family that moves 32-bit words only.
fn words_only(_element_bytes: u32, _vector_bytes: u32) -> &'static [u32] {
    &[32]
}

/// The access sizes of `rows` and `runs`: 64-bit words too on 16-byte vectors
/// (`tuning::access_bits`); a 64-bit word does not divide a 4-byte vector.
fn vectors_in_64(_element_bytes: u32, vector_bytes: u32) -> &'static [u32] {
    if vector_bytes == 16 {
        &[32, 64]
    } else {
        &[32]
    }
}

/// What the vector families need of a layout: the innermost dimension contiguous
/// in input and output, a whole number of vectors long, and every other stride
/// keeping its rows aligned to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VectorLayout {
    /// Bytes per vector: 16, or 4 ("narrow": whole 32-bit words, not vectors).
    pub(crate) bytes: u32,
    /// Vectors per row or run of the innermost dimension.
    pub(crate) vecs: u32,
    /// Rows or runs of the innermost dimension, over every other dimension.
    pub(crate) rows: u64,
}

impl VectorLayout {
    /// The layout on the first of `sizes` (vector bytes) that fits it.
    fn find(layout: &Layout, element_bytes: u32, sizes: &[u32]) -> Option<VectorLayout> {
        sizes
            .iter()
            .find_map(|&size| VectorLayout::of(layout, element_bytes, size))
    }

    fn of(layout: &Layout, element_bytes: u32, vector_bytes: u32) -> Option<VectorLayout> {
        let inner = *layout.dims.last()?;
        let bytes = |elements: u64| elements * u64::from(element_bytes);
        let aligned = |elements: u64| bytes(elements) % u64::from(vector_bytes) == 0;
        let fits = layout.element_count() > 0
            && inner.output == 1
            && inner.input == 1
            && aligned(inner.size.into())
            && layout.dims[..layout.rank() - 1]
                .iter()
                .all(|d| aligned(d.output) && aligned(d.input));
        fits.then(|| VectorLayout {
            bytes: vector_bytes,
            vecs: (bytes(inner.size.into()) / u64::from(vector_bytes)) as u32,
            rows: layout.element_count() / u64::from(inner.size),
        })
    }
}

/// Vector sizes the families that take narrow vectors try, best first: 16 bytes,
/// then 4 (a 16-byte element is always a whole vector).
fn vector_sizes(element_bytes: u32) -> &'static [u32] {
    if element_bytes < 16 {
        &[16, 4]
    } else {
        &[16]
    }
}

#[cfg(test)]
mod tests;
