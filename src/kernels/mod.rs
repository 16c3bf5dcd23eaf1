//! The kernel families and the plan that picks one for a canonical layout.
//!
//! The plan is decided once, on the host, from the layout and the profile: the
//! general family runs every layout, and the vector families are fast paths for
//! layouts whose innermost canonical dimension is contiguous in input and output
//! and a whole number of vectors long. Each family's module implements one
//! contract, [`Family`]: its rule and plan in each mode (when it runs, and how
//! its work is cut into invocations), its fit to each piece of the cut, what it
//! needs of the cut, what it writes into the layout uniform, and its kernels:
//! their WGSL (beside the module), keys, constants and the buffers they use.

/// A family's WGSL files: (name, text) pairs for the names given, each
/// `src/kernels/<name>.wgsl`, beside the family's Rust.
macro_rules! wgsl {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!($name, ".wgsl")))),*]
    };
}

mod columns;
pub(crate) mod copy;
pub(crate) mod divisor;
mod gather;
mod general;
mod key;
pub(crate) mod params;
mod rows;
mod runs;
#[cfg(feature = "lab")]
pub mod shaders;
#[cfg(not(feature = "lab"))]
pub(crate) mod shaders;
#[cfg_attr(
    not(feature = "lab"),
    expect(unreachable_pub, reason = "the laboratory (`lab`) reaches these")
)]
pub(crate) mod tuning;
pub(crate) mod variant;
mod vector;

use crate::kernels::variant::Variant;
use key::{family_keys, words_only, WIDTHS};
pub use key::{PipelineKey, Walk};
use vector::{vector_sizes, VectorLayout};

use crate::descriptor::layout::Layout;
use crate::descriptor::operator::MAX_RANK;
use crate::descriptor::Mode;
use crate::kernels::params::Params;
use crate::kernels::shaders::{KernelFile, Source, Storage, WORKGROUP_SIZE};
use tuning::{Profile, Tuning};

/// The key fields a family's plan decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fields {
    pub(crate) steps: u32,
    pub(crate) vector_bytes: u32,
    pub(crate) access_bits: u32,
    pub(crate) walk: Walk,
    pub(crate) wide_multiply: bool,
    pub(crate) in_place: bool,
}

/// A family's contract, in its room: the plan it runs on a layout in each
/// mode (its rule, `None` where it does not run that layout), that plan fitted
/// to each piece of the cut under the same key, what it needs of the cut, what
/// it gives each dispatch (its key fields, its invocations and workgroups, and
/// its fields of the layout uniform), and its kernels by key. Where a family
/// says nothing, the defaults below hold.
trait Family {
    /// Whether the planner offers the family `layout` in `mode` under
    /// `tuning`: the layouts it is the static choice for, in the order of
    /// [`families!`] (the first offered whose [`plan`](Family::plan) serves
    /// runs). A family forced on the profile is asked its plan alone.
    fn offered(layout: &Layout, mode: Mode, tuning: Tuning) -> bool
    where
        Self: Sized;
    /// The family's plan in `mode` on `layout` of `element_bytes`-byte
    /// elements, its output binding `output_bytes` long; `None` where the
    /// family does not run the layout in that mode.
    fn plan(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        mode: Mode,
        profile: &Profile,
    ) -> Option<Self>
    where
        Self: Sized;
    /// This plan on `piece`, a piece of the layout it was made for whose
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
    /// Whether the plan walks pieces of whole positions against each input
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
    /// The plan walking pieces of whole positions paired with input windows,
    /// made on `first`, the cut's first piece (`first_bytes` of output), on an
    /// axis of `axis_size` positions: `Some(None)` where the family walks
    /// such pieces but not these, `None` where it has no walk of its own (the
    /// planner then asks the families' [`window_plan`](Family::window_plan)).
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
    /// The family's plan for a lane of `axis_size` positions cut into
    /// windows, made on `first` (`first_bytes` of output), for a plan of
    /// another family that has no walk: `Some(None)` where the layout is the
    /// family's but its lane cannot be walked, `None` where the layout is not
    /// the family's.
    fn window_plan(
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
    /// The family's plans in place across windows (`src/plan/cut/across.rs`)
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
    /// The key fields the plan decides.
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

/// The families, a line each, in the order the planner offers a layout to
/// them ([`Family::offered`]): the [`Variant`] and the room whose `Plan`
/// implements [`Family`]. Makes [`Plan`] (a family's plan for one piece of the
/// tensor) and the lookups from a key to its family's room.
macro_rules! families {
    ($($variant:ident => $room:ident),* $(,)?) => {
        /// A family and the counts its kernel needs for one piece of the tensor.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Plan {
            $($variant($room::Plan),)*
        }

        impl Plan {
            pub(crate) fn variant(&self) -> Variant {
                match self {
                    $(Plan::$variant(_) => Variant::$variant,)*
                }
            }

            fn family(&self) -> &dyn Family {
                match self {
                    $(Plan::$variant(p) => p,)*
                }
            }

            /// The plan of `variant`'s family in `mode` on `layout`
            /// ([`Family::plan`]).
            fn of(
                variant: Variant,
                layout: &Layout,
                element_bytes: u32,
                output_bytes: u64,
                mode: Mode,
                profile: &Profile,
            ) -> Option<Plan> {
                match variant {
                    $(Variant::$variant => {
                        $room::Plan::plan(layout, element_bytes, output_bytes, mode, profile)
                            .map(Plan::$variant)
                    })*
                }
            }

            /// The first family offered `layout` in `mode` whose plan serves
            /// it, in the registry's order ([`Family::offered`]).
            fn first_offered(
                layout: &Layout,
                element_bytes: u32,
                output_bytes: u64,
                mode: Mode,
                profile: &Profile,
            ) -> Option<Plan> {
                $(if <$room::Plan as Family>::offered(layout, mode, profile.tuning) {
                    let plan =
                        Plan::of(Variant::$variant, layout, element_bytes, output_bytes, mode, profile);
                    if plan.is_some() {
                        return plan;
                    }
                })*
                None
            }

            /// The plan walking pieces of whole positions paired with input
            /// windows (`src/plan/cut/`), made on `first`, the cut's first
            /// piece, on an axis of `axis_size` positions: this family's own
            /// walk ([`Family::walking`]), else the window plan of the family
            /// whose layout it is ([`Family::window_plan`]), else this plan as
            /// it is; `None` where the walk cannot run the lane.
            pub(crate) fn walking(
                self,
                first: &Layout,
                first_bytes: u64,
                axis_size: u32,
                element_bytes: u32,
                profile: &Profile,
            ) -> Option<Plan> {
                let own = match self {
                    $(Plan::$variant(p) => <$room::Plan as Family>::walking(
                        p, first, first_bytes, axis_size, element_bytes, profile,
                    )
                    .map(|walk| walk.map(Plan::$variant)),)*
                };
                if let Some(walk) = own {
                    return walk;
                }
                $(if let Some(walk) = <$room::Plan as Family>::window_plan(
                    first, first_bytes, axis_size, element_bytes, profile,
                ) {
                    return walk.map(Plan::$variant);
                })*
                Some(self)
            }

            /// The plans in place across windows for pieces of these layouts
            /// and shifts: the first family's in the registry's order that
            /// runs them ([`Family::across`]).
            pub(crate) fn across(
                pieces: &[(&Layout, [u32; 3])],
                element_bytes: u32,
                front_positions: u32,
                profile: &Profile,
            ) -> Vec<Plan> {
                $(if let Some(plans) =
                    <$room::Plan as Family>::across(pieces, element_bytes, front_positions, profile)
                {
                    return plans.into_iter().map(Plan::$variant).collect();
                })*
                unreachable!("`general` runs every piece in place across windows")
            }

            /// This plan on `piece`, under the same key ([`Family::fit`]):
            /// the piece's counts; `None` where the key cannot run the piece
            /// (its rows or runs not whole vectors of the plan's size, its
            /// axis past `columns`' rows, a walked piece not one run of a
            /// lane).
            pub(crate) fn fit(
                self,
                piece: &Layout,
                element_bytes: u32,
                output_bytes: u64,
                tuning: Tuning,
            ) -> Option<Plan> {
                match self {
                    $(Plan::$variant(p) => {
                        p.fit(piece, element_bytes, output_bytes, tuning).map(Plan::$variant)
                    })*
                }
            }
        }

        /// The kernel and storage of `key`.
        pub(crate) fn kernel(key: &PipelineKey) -> (KernelFile, Storage) {
            match key.variant {
                $(Variant::$variant => $room::Plan::kernel(key),)*
            }
        }

        /// The files that fill the family's own slots in `key`'s kernel.
        pub(crate) fn slots(key: &PipelineKey) -> &'static [(&'static str, &'static str)] {
            match key.variant {
                $(Variant::$variant => $room::Plan::slots(key),)*
            }
        }

        /// The family's `override` constants of `key`, after the shared ones.
        pub(crate) fn constants(key: &PipelineKey, constants: &mut Vec<(&'static str, f64)>) {
            match key.variant {
                $(Variant::$variant => $room::Plan::constants(key, constants),)*
            }
        }

        /// The buffers `key`'s kernel uses (input, lengths, output); an
        /// executor binds these alone (`src/plan/kernel.rs`).
        pub(crate) fn uses(key: &PipelineKey) -> [bool; 3] {
            match key.variant {
                $(Variant::$variant => $room::Plan::uses(key),)*
            }
        }

        /// Whether the family's kernels take `axis` of a canonical layout of `rank`.
        pub(crate) fn takes_axis(variant: Variant, rank: u32, axis: u32) -> bool {
            match variant {
                $(Variant::$variant => $room::Plan::takes_axis(rank, axis),)*
            }
        }

        /// Every family's keys, with rank, axis and length type left to fill.
        pub(crate) fn keys() -> impl Iterator<Item = PipelineKey> {
            std::iter::empty()$(.chain($room::Plan::keys()))*
        }
    };
}

families! {
    Rows => rows,
    Runs => runs,
    Columns => columns,
    Gather => gather,
    General => general,
}

/// What a key compiles, read from its family's room (the lookups
/// [`families!`] makes).
impl PipelineKey {
    /// The WGSL this key compiles.
    pub fn source(&self) -> Source {
        let (kernel, storage) = kernel(self);
        Source {
            kernel,
            storage,
            slots: slots(self),
            // Kernels on 64-bit words have 64-bit integers to multiply with.
            wide_multiply: storage == Storage::U64 || self.wide_multiply,
        }
    }

    /// Values for the kernel's `override` constants.
    pub fn constants(&self) -> Vec<(&'static str, f64)> {
        let mut values = vec![
            ("RANK", f64::from(self.rank)),
            ("AXIS", f64::from(self.axis)),
            ("LEN_WORDS", f64::from(self.length_bytes / 4)),
            ("LEN_SIGNED", f64::from(u8::from(self.signed_lengths))),
            ("WORKGROUP_SIZE", f64::from(WORKGROUP_SIZE)),
        ];
        constants(self, &mut values);
        values
    }

    #[cfg_attr(
        not(feature = "lab"),
        expect(dead_code, reason = "only the laboratory (`lab`) lists every key")
    )]
    /// Every key the cache can build: each family's kernels for every element
    /// width, rank and axis it takes, and length type.
    pub fn all() -> impl Iterator<Item = PipelineKey> {
        keys().flat_map(|key| {
            (1..=MAX_RANK as u32)
                .flat_map(move |rank| (0..rank).map(move |axis| (rank, axis)))
                .filter(move |&(rank, axis)| takes_axis(key.variant, rank, axis))
                .flat_map(move |(rank, axis)| {
                    [(4, false), (4, true), (8, false), (8, true)].map(
                        |(length_bytes, signed_lengths)| PipelineKey {
                            rank,
                            axis,
                            length_bytes,
                            signed_lengths,
                            ..key
                        },
                    )
                })
        })
    }
}

impl Plan {
    /// The plan `mode` runs on `layout` of `element_bytes`-byte elements;
    /// `output_bytes` is the size of the output binding it writes through. The
    /// profile's forced family where it can serve the layout, else the first
    /// family offered the layout whose plan serves it ([`families!`]'s order,
    /// [`Family::offered`]): the last, `general`, is offered every layout and
    /// serves it. Each family says in its room what it runs on a layout in
    /// each mode ([`Family::plan`]: in place, its swap where it has one for
    /// the layout, `docs/in-place.md`).
    pub(crate) fn new(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        mode: Mode,
        profile: &Profile,
    ) -> Plan {
        let forced = profile.forced.and_then(|variant| {
            Plan::of(variant, layout, element_bytes, output_bytes, mode, profile)
        });
        forced
            .or_else(|| Plan::first_offered(layout, element_bytes, output_bytes, mode, profile))
            .unwrap_or_else(|| Plan::fallback(layout, element_bytes, output_bytes, mode, profile))
    }

    /// Whether this plan walks pieces of whole positions against each input
    /// window (`src/plan/cut/`) out of place, with the output `output_bytes`
    /// long and `binding` bytes bound at a time ([`Family::walks_windows`]).
    pub(crate) fn walks_windows(
        &self,
        layout: &Layout,
        output_bytes: u64,
        binding: u64,
        tuning: Tuning,
    ) -> bool {
        self.family()
            .walks_windows(layout, output_bytes, binding, tuning)
    }

    /// The plan of the family that runs every layout in `mode`: what runs a
    /// piece no other family's plan fits.
    pub(crate) fn fallback(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        mode: Mode,
        profile: &Profile,
    ) -> Plan {
        Plan::General(general::Plan::new(
            layout,
            element_bytes,
            output_bytes,
            mode,
            profile,
        ))
    }

    pub(crate) fn fields(&self) -> Fields {
        self.family().fields()
    }

    /// Workgroups of the dispatch, before folding.
    pub(crate) fn workgroups(&self) -> u32 {
        self.family().workgroups()
    }

    /// Writes the family's fields of the layout uniform.
    pub(crate) fn write(&self, params: &mut Params) {
        self.family().write(params)
    }
}

/// Whether the reversed axis of `layout` is its innermost dimension: rows.
fn reverses_rows(layout: &Layout) -> bool {
    layout.axis + 1 == layout.rank()
}

/// Whether the length is the same along the innermost dimension of `layout`:
/// whole runs move as one.
fn same_along_runs(layout: &Layout) -> bool {
    layout.dims[layout.rank() - 1].lengths == 0
}

/// The constants of the vector families that take them as they are: bytes per
/// element and the key's steps.
fn vector_constants(key: &PipelineKey, constants: &mut Vec<(&'static str, f64)>) {
    constants.extend([
        ("ELEM_BYTES", f64::from(key.element_bytes)),
        ("STEPS", f64::from(key.steps)),
    ]);
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

#[cfg(test)]
mod tests;
