//! `tile`, on a GPU: per-element lengths (as `gather`) along an axis longer than
//! `columns` holds and that one workgroup's tile holds. A workgroup owns a band of
//! a run's vectors over every position of the axis: it loads them into workgroup
//! memory, neighbouring invocations on neighbouring vectors, gathers each output
//! vector's elements from there, and stores the vectors as it loaded them
//! (`shaders/tile/tile.wgsl`). Every access to the tensors is a whole 16-byte
//! vector beside its neighbours', where `gather` reads each element from its own
//! mirrored row.

use super::Variant;
use super::{family_keys, words_only, Family, Fields, PipelineKey, VectorLayout, Walk, WIDTHS};
use crate::divisor::Divisor;
use crate::layout::Layout;
use crate::params::Params;
use crate::shaders::{Kernel, Storage, WORKGROUP_SIZE};
use crate::tuning::{self, Profile};

/// The tile's workgroup memory: 15 KiB of vectors and 1 KiB of lengths, within
/// the 16 KiB every WebGPU device gives a workgroup.
pub(crate) const TILE_VECS: u32 = 960;
const TILE_ELEMENTS: u32 = MAX_BAND * 16;

/// The most vectors a band takes: 256 bytes of each position, 8 sectors, and as
/// many elements' lengths as a 16-byte vector of 1-byte elements has, 16 times.
const MAX_BAND: u32 = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(super) vector: VectorLayout,
    /// Vectors per band (a power of two), and bands per run.
    pub(super) band: u32,
    pub(super) bands: u32,
    pub(super) workgroups: u32,
}

/// `tile` where the tuning takes it (`tuning::tiles`), past the positions
/// `columns` holds, where a tile holds the axis at two vectors a position or more
/// (32 bytes, a whole sector), or the whole of runs one vector wide.
pub(super) fn plan(layout: &Layout, element_bytes: u32, profile: &Profile) -> Option<Plan> {
    if !tuning::tiles(profile.tuning, element_bytes) {
        return None;
    }
    let vector = VectorLayout::of(layout, element_bytes, 16)?;
    let n = layout.dims[layout.axis].size;
    let fits = (TILE_VECS / n).min(MAX_BAND);
    if fits == 0 {
        return None;
    }
    let band = (1 << fits.ilog2()).min(vector.vecs.next_power_of_two());
    if band < 2 && vector.vecs > 1 {
        return None;
    }
    let bands = vector.vecs.div_ceil(band);
    let workgroups = vector.lines / u64::from(n) * u64::from(bands);
    Some(Plan {
        vector,
        band,
        bands,
        workgroups: u32::try_from(workgroups).ok()?,
    })
}

impl Family for Plan {
    fn fields(&self) -> Fields {
        Fields {
            steps: 1,
            vector_bytes: 16,
            access_bits: 32,
            share_lengths: 1,
            walk: Walk::None,
            wide_multiply: false,
        }
    }

    fn invocations(&self) -> u32 {
        self.workgroups * WORKGROUP_SIZE
    }

    /// One workgroup per band of a run.
    fn workgroups(&self) -> u32 {
        self.workgroups
    }

    fn write(&self, params: &mut Params) {
        params.groups = self.workgroups;
        params.vecs = Divisor::new(self.vector.vecs);
        params.band = Divisor::new(self.band);
        params.bands = Divisor::new(self.bands);
    }
}

/// The family's WGSL files, and its kernels among them.
const FILES: &[(&str, &str)] = wgsl!["tile/tile",];
const TILE: Kernel = Kernel::new("tile/tile", FILES);

pub(super) fn kernel(_key: &PipelineKey) -> (Kernel, Storage) {
    (TILE, Storage::Vec4)
}

pub(super) use super::no_slots as slots;
pub(super) use super::outer_axes as takes_axis;

pub(super) fn constants(key: &PipelineKey, constants: &mut Vec<(&'static str, f64)>) {
    constants.extend([
        ("ELEM_BYTES", f64::from(key.element_bytes)),
        ("STEPS", 1.0),
        ("TILE_WORDS", f64::from(4 * TILE_VECS)),
        ("TILE_ELEMENTS", f64::from(TILE_ELEMENTS)),
    ]);
}

#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(super) fn keys() -> impl Iterator<Item = PipelineKey> {
    family_keys(Variant::Tile, &WIDTHS, |_| &[16], |_, _| (1, 1), words_only)
}
