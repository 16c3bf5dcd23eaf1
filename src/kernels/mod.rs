//! The kernel families, and the choice of one for a canonical layout.
//!
//! A family's *work* on a layout ([`Work`]) is its choice and the counts its
//! kernel needs for one piece of the tensor. It is decided once, on the host,
//! from the layout and the profile: the general family runs every layout, and
//! the vector families are fast paths for layouts whose innermost canonical
//! dimension is contiguous in input and output and a whole number of vectors
//! long. Each family's module implements one contract, [`Family`]
//! (`family.rs`): its rule and work in each mode (when it runs, and how its
//! work is cut into invocations), its fit to each piece of the cut, what it
//! needs of the cut, what it writes into the layout uniform, and its kernels:
//! their WGSL (beside the module), keys, constants and the buffers they use.
//! This file holds the registry, a line per family, and what is read through
//! it. A family's public name is its [`Variant`], what a caller forces and
//! reads back.

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
mod family;
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
use family::{reverses_rows, same_along_runs, vector_constants, vectors_in_64, Family, Fields};
use key::{family_keys, words_only, WIDTHS};
pub use key::{PipelineKey, Walk};
use vector::{vector_sizes, VectorLayout};

use crate::descriptor::layout::Layout;
use crate::descriptor::operator::MAX_RANK;
use crate::descriptor::Mode;
use crate::kernels::params::Params;
use crate::kernels::shaders::{KernelFile, Source, Storage, WORKGROUP_SIZE};
use tuning::{Profile, Tuning};

/// The families, a line each, in the order the planner offers a layout to
/// them ([`Family::offered`]): the [`Variant`] and the room whose struct of
/// that name implements [`Family`]. Makes [`Work`] (a family's work on one piece
/// of the tensor), the lookups from a key to its family's room, and the
/// variants' list and names (the room's).
///
/// A new family is its room (`<name>.rs`, implementing [`Family`]), its WGSL
/// folder (`<name>/`), a `mod` line and a line here, and its variant in
/// `variant.rs`; where it is tuned by kind of adapter, `tuning/mod.rs`, and
/// where it needs a field of the layout uniform, `params.rs` and
/// `shared/params.wgsl`.
macro_rules! families {
    ($($variant:ident => $room:ident),* $(,)?) => {
        /// A family and the counts its kernel needs for one piece of the tensor.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Work {
            $($variant($room::$variant),)*
        }

        impl Work {
            pub(crate) fn variant(&self) -> Variant {
                match self {
                    $(Work::$variant(_) => Variant::$variant,)*
                }
            }

            fn family(&self) -> &dyn Family {
                match self {
                    $(Work::$variant(p) => p,)*
                }
            }

            /// The work of `variant`'s family in `mode` on `layout`
            /// ([`Family::on`]).
            fn of(
                variant: Variant,
                layout: &Layout,
                element_bytes: u32,
                output_bytes: u64,
                mode: Mode,
                profile: &Profile,
            ) -> Option<Work> {
                match variant {
                    $(Variant::$variant => {
                        $room::$variant::on(layout, element_bytes, output_bytes, mode, profile)
                            .map(Work::$variant)
                    })*
                }
            }

            /// The first family offered `layout` in `mode` whose work serves
            /// it, in the registry's order ([`Family::offered`]).
            fn first_offered(
                layout: &Layout,
                element_bytes: u32,
                output_bytes: u64,
                mode: Mode,
                profile: &Profile,
            ) -> Option<Work> {
                $(if <$room::$variant as Family>::offered(layout, mode, profile.tuning) {
                    let work =
                        Work::of(Variant::$variant, layout, element_bytes, output_bytes, mode, profile);
                    if work.is_some() {
                        return work;
                    }
                })*
                None
            }

            /// The work walking pieces of whole positions paired with input
            /// windows (`src/plan/cut/`), made on `first`, the cut's first
            /// piece, on an axis of `axis_size` positions: this family's own
            /// walk ([`Family::walking`]), else the window work of the family
            /// whose layout it is ([`Family::window_work`]), else this work as
            /// it is; `None` where the walk cannot run the lane.
            pub(crate) fn walking(
                self,
                first: &Layout,
                first_bytes: u64,
                axis_size: u32,
                element_bytes: u32,
                profile: &Profile,
            ) -> Option<Work> {
                let own = match self {
                    $(Work::$variant(p) => <$room::$variant as Family>::walking(
                        p, first, first_bytes, axis_size, element_bytes, profile,
                    )
                    .map(|walk| walk.map(Work::$variant)),)*
                };
                if let Some(walk) = own {
                    return walk;
                }
                $(if let Some(walk) = <$room::$variant as Family>::window_work(
                    first, first_bytes, axis_size, element_bytes, profile,
                ) {
                    return walk.map(Work::$variant);
                })*
                Some(self)
            }

            /// The work in place across windows for pieces of these layouts
            /// and shifts: the first family's in the registry's order that
            /// runs them ([`Family::across`]).
            pub(crate) fn across(
                pieces: &[(&Layout, [u32; 3])],
                element_bytes: u32,
                front_positions: u32,
                profile: &Profile,
            ) -> Vec<Work> {
                $(if let Some(work) =
                    <$room::$variant as Family>::across(pieces, element_bytes, front_positions, profile)
                {
                    return work.into_iter().map(Work::$variant).collect();
                })*
                unreachable!("`general` runs every piece in place across windows")
            }

            /// This work on `piece`, under the same key ([`Family::fit`]):
            /// the piece's counts; `None` where the key cannot run the piece
            /// (its rows or runs not whole vectors of the work's size, its
            /// axis past `columns`' rows, a walked piece not one run of a
            /// lane).
            pub(crate) fn fit(
                self,
                piece: &Layout,
                element_bytes: u32,
                output_bytes: u64,
                tuning: Tuning,
            ) -> Option<Work> {
                match self {
                    $(Work::$variant(p) => {
                        p.fit(piece, element_bytes, output_bytes, tuning).map(Work::$variant)
                    })*
                }
            }
        }

        impl Variant {
            /// Every family, in the registry's order: the families autotune
            /// forces in turn.
            pub(crate) const FAMILIES: [Variant; [$(stringify!($variant)),*].len()] =
                [$(Variant::$variant),*];

            /// The name the benchmark and test logs print: its room's.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Variant::$variant => stringify!($room),)*
                }
            }
        }

        /// The kernel and storage of `key`.
        pub(crate) fn kernel(key: &PipelineKey) -> (KernelFile, Storage) {
            match key.variant {
                $(Variant::$variant => $room::$variant::kernel(key),)*
            }
        }

        /// The files that fill the family's own slots in `key`'s kernel.
        pub(crate) fn slots(key: &PipelineKey) -> &'static [(&'static str, &'static str)] {
            match key.variant {
                $(Variant::$variant => $room::$variant::slots(key),)*
            }
        }

        /// The family's `override` constants of `key`, after the shared ones.
        pub(crate) fn constants(key: &PipelineKey, constants: &mut Vec<(&'static str, f64)>) {
            match key.variant {
                $(Variant::$variant => $room::$variant::constants(key, constants),)*
            }
        }

        /// The buffers `key`'s kernel uses (input, lengths, output); an
        /// executor binds these alone (`src/plan/kernel.rs`).
        pub(crate) fn uses(key: &PipelineKey) -> [bool; 3] {
            match key.variant {
                $(Variant::$variant => $room::$variant::uses(key),)*
            }
        }

        /// Whether the family's kernels take `axis` of a canonical layout of `rank`.
        pub(crate) fn takes_axis(variant: Variant, rank: u32, axis: u32) -> bool {
            match variant {
                $(Variant::$variant => $room::$variant::takes_axis(rank, axis),)*
            }
        }

        /// Every family's keys, with rank, axis and length type left to fill.
        pub(crate) fn keys() -> impl Iterator<Item = PipelineKey> {
            std::iter::empty()$(.chain($room::$variant::keys()))*
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
/// `families!` makes).
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

impl Work {
    /// The work `mode` runs on `layout` of `element_bytes`-byte elements;
    /// `output_bytes` is the size of the output binding it writes through. The
    /// profile's forced family where it can serve the layout, else the first
    /// family offered the layout whose work serves it ([`families!`]'s order,
    /// [`Family::offered`]): the last, `general`, is offered every layout and
    /// serves it. Each family says in its room what it runs on a layout in
    /// each mode ([`Family::on`]: in place, its swap where it has one for
    /// the layout, `docs/in-place.md`).
    pub(crate) fn new(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        mode: Mode,
        profile: &Profile,
    ) -> Work {
        let forced = profile.forced.and_then(|variant| {
            Work::of(variant, layout, element_bytes, output_bytes, mode, profile)
        });
        forced
            .or_else(|| Work::first_offered(layout, element_bytes, output_bytes, mode, profile))
            .unwrap_or_else(|| Work::fallback(layout, element_bytes, output_bytes, mode, profile))
    }

    /// Whether this work walks pieces of whole positions against each input
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

    /// The work of the family that runs every layout in `mode`: what runs a
    /// piece no other family's work fits.
    pub(crate) fn fallback(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        mode: Mode,
        profile: &Profile,
    ) -> Work {
        Work::General(general::General::new(
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

#[cfg(test)]
mod tests;
