//! The contract every kernel family implements in its room (`src/kernels/`
//! `<family>.rs`), with the defaults a family that says nothing gets, and the
//! few rules and sizes several families share.

use crate::descriptor::layout::Layout;
use crate::descriptor::Mode;
use crate::kernels::params::Params;
use crate::kernels::shaders::{KernelFile, Storage, WORKGROUP_SIZE};
use crate::kernels::tuning::{Profile, Tuning};
use crate::kernels::{PipelineKey, Walk};

/// The key fields a family's work decides; the key's mode is the caller's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fields {
    pub(crate) steps: u32,
    pub(crate) vector_bytes: u32,
    pub(crate) access_bits: u32,
    pub(crate) walk: Walk,
    pub(crate) wide_multiply: bool,
}

/// A family's contract, in its room: the work it runs on a layout in each
/// mode (its rule, `None` where it does not run that layout), that work fitted
/// to each piece of the cut under the same key, what it needs of the cut, what
/// it gives each dispatch (its key fields, its invocations and workgroups, and
/// its fields of the layout uniform), and its kernels by key. Where a family
/// says nothing, the defaults below hold.
pub(super) trait Family {
    /// Whether the planner offers the family `layout` in `mode` under
    /// `tuning`: the layouts it is the static choice for, in the order of
    /// [`families!`] (the first offered whose work ([`Family::on`]) serves
    /// runs). A family forced on the profile is asked its work alone.
    fn offered(layout: &Layout, mode: Mode, tuning: Tuning) -> bool
    where
        Self: Sized;
    /// The family's work in `mode` on `layout` of `element_bytes`-byte
    /// elements, its output binding `output_bytes` long; `None` where the
    /// family does not run the layout in that mode.
    fn on(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        mode: Mode,
        profile: &Profile,
    ) -> Option<Self>
    where
        Self: Sized;
    /// This work on `piece`, a piece of the layout it was made for whose
    /// output binding spans `output_bytes`, under the same key: the piece's
    /// counts; `None` where the key cannot run the piece.
    fn fit(
        self,
        piece: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        tuning: Tuning,
    ) -> Option<Self>
    where
        Self: Sized;
    /// Whether the work walks pieces of whole positions against each input
    /// window (`src/plan/cut/`) out of place, the output `output_bytes` long
    /// and `binding` bytes bound at a time: what it needs of the cut. In place
    /// every family takes pieces of whole lanes or pairs of groups.
    fn walks_windows(
        &self,
        _layout: &Layout,
        _output_bytes: u64,
        _binding: u64,
        _tuning: Tuning,
    ) -> bool {
        false
    }
    /// The work walking pieces of whole positions paired with input windows,
    /// made on `first`, the cut's first piece (`first_bytes` of output), on an
    /// axis of `axis_size` positions: `Some(None)` where the family walks
    /// such pieces but not these, `None` where it has no walk of its own (the
    /// planner then asks the families' [`window_work`](Family::window_work)).
    fn walking(
        self,
        _first: &Layout,
        _first_bytes: u64,
        _axis_size: u32,
        _element_bytes: u32,
        _profile: &Profile,
    ) -> Option<Option<Self>>
    where
        Self: Sized,
    {
        None
    }
    /// The family's work for a lane of `axis_size` positions cut into
    /// windows, made on `first` (`first_bytes` of output), for the work of
    /// another family that has no walk: `Some(None)` where the layout is the
    /// family's but its lane cannot be walked, `None` where the layout is not
    /// the family's.
    fn window_work(
        _first: &Layout,
        _first_bytes: u64,
        _axis_size: u32,
        _element_bytes: u32,
        _profile: &Profile,
    ) -> Option<Option<Self>>
    where
        Self: Sized,
    {
        None
    }
    /// The family's work in place across windows (`src/plan/cut/across.rs`)
    /// for pieces of these layouts and shifts, each invocation walking
    /// `front_positions` of its front group; `None` where the family does not
    /// run in place across windows.
    fn across(
        _pieces: &[(&Layout, [u32; 3])],
        _element_bytes: u32,
        _front_positions: u32,
        _profile: &Profile,
    ) -> Option<Vec<Self>>
    where
        Self: Sized,
    {
        None
    }
    /// The key fields the work decides.
    fn fields(&self) -> Fields;
    /// Invocations with work (at most one per output element or word of one
    /// window, so below 2^32).
    fn invocations(&self) -> u32;
    /// Workgroups of the dispatch, before folding: enough for the invocations.
    fn workgroups(&self) -> u32 {
        self.invocations().div_ceil(WORKGROUP_SIZE)
    }
    /// Writes the family's fields of the layout uniform.
    fn write(&self, params: &mut Params);

    /// The kernel and storage of `key`, one of the family's keys.
    fn kernel(key: &PipelineKey) -> (KernelFile, Storage)
    where
        Self: Sized;
    /// The family's `override` constants of `key`, after the shared ones: bytes
    /// per element and the key's steps, where the family takes them as they are.
    fn constants(key: &PipelineKey, constants: &mut Vec<(&'static str, f64)>)
    where
        Self: Sized,
    {
        vector_constants(key, constants);
    }
    /// The files that fill the family's own slots in `key`'s kernel: none
    /// where its kernels have none of their own.
    fn slots(_key: &PipelineKey) -> &'static [(&'static str, &'static str)]
    where
        Self: Sized,
    {
        &[]
    }
    /// The buffers `key`'s kernel uses (input, lengths, output); an executor
    /// binds these alone (`src/plan/kernel.rs`). All but the input in place,
    /// where a family's swap reaches the tensor through the output binding
    /// alone; all out of place.
    fn uses(key: &PipelineKey) -> [bool; 3]
    where
        Self: Sized,
    {
        [!key.in_place, true, true]
    }
    /// Whether the family's kernels take `axis` of a canonical layout of
    /// `rank`: an axis outside the innermost dimension, where the family
    /// says nothing else.
    fn takes_axis(rank: u32, axis: u32) -> bool
    where
        Self: Sized,
    {
        axis < rank - 1
    }
    /// Every key of the family, with rank, axis and length type left to fill.
    fn keys() -> impl Iterator<Item = PipelineKey>
    where
        Self: Sized;
}

/// Whether the reversed axis of `layout` is its innermost dimension: rows.
pub(super) fn reverses_rows(layout: &Layout) -> bool {
    layout.axis + 1 == layout.rank()
}

/// Whether the length is the same along the innermost dimension of `layout`:
/// whole runs move as one.
pub(super) fn same_along_runs(layout: &Layout) -> bool {
    layout.dims[layout.rank() - 1].lengths == 0
}

/// The constants of the vector families that take them as they are: bytes per
/// element and the key's steps.
pub(super) fn vector_constants(key: &PipelineKey, constants: &mut Vec<(&'static str, f64)>) {
    constants.extend([
        ("ELEM_BYTES", f64::from(key.element_bytes)),
        ("STEPS", f64::from(key.steps)),
    ]);
}

/// The access sizes of `rows` and `runs`: 64-bit words too on 16-byte vectors
/// (`tuning::access_bits`); a 64-bit word does not divide a 4-byte vector.
pub(super) fn vectors_in_64(_element_bytes: u32, vector_bytes: u32) -> &'static [u32] {
    if vector_bytes == 16 {
        &[32, 64]
    } else {
        &[32]
    }
}
