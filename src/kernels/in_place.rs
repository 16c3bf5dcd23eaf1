//! The in-place plans: which family reverses a layout in its own buffer, in one
//! binding or across two windows of it (`docs/in-place.md`).

use super::{columns, gather, general, reverses_rows, rows, runs, same_along_runs, Plan, Variant};
use crate::plan::layout::Layout;
use crate::plan::tuning::{self, Profile};

impl Plan {
    /// The in-place plan of `layout`: the profile's forced family where it can
    /// serve the layout; else `runs` swapping whole runs where the length is the
    /// same along the contiguous innermost dimension; `columns` holding each
    /// vector column whole where the lengths change along it; on a CPU adapter,
    /// rows walked from both ends and longer columns walked (`gather`); else
    /// `general`'s, a pair of each lane an invocation.
    pub(crate) fn in_place(layout: &Layout, element_bytes: u32, profile: &Profile) -> Plan {
        let rows = reverses_rows(layout);
        let family = |variant| match variant {
            Variant::Rows => rows::plan(layout, element_bytes, profile)
                .filter(|_| rows)
                .and_then(|p| p.in_place(profile))
                .map(Plan::Rows),
            Variant::Runs => runs::plan(layout, element_bytes, profile)
                .filter(|_| !rows && same_along_runs(layout))
                .and_then(|p| p.in_place(layout, element_bytes, profile.tuning))
                .map(Plan::Runs),
            Variant::Columns => columns::plan(layout, element_bytes, profile)
                .filter(|_| !rows)
                .map(|p| Plan::Columns(p.in_place())),
            Variant::Gather => gather::in_place(layout, element_bytes, profile)
                .filter(|_| !rows)
                .map(Plan::Gather),
            Variant::General => Some(Plan::general_in_place(layout, profile)),
        };
        if let Some(plan) = profile.forced.and_then(family) {
            return plan;
        }
        let fast = if rows {
            tuning::walks_rows_in_place(profile.tuning)
                .then(|| family(Variant::Rows))
                .flatten()
        } else if same_along_runs(layout) {
            family(Variant::Runs)
        } else {
            family(Variant::Columns).or_else(|| {
                tuning::walks_columns_in_place(profile.tuning)
                    .then(|| family(Variant::Gather))
                    .flatten()
            })
        };
        fast.unwrap_or_else(|| Plan::general_in_place(layout, profile))
    }

    /// `general`'s in-place plan, which runs every layout in place.
    pub(crate) fn general_in_place(layout: &Layout, profile: &Profile) -> Plan {
        Plan::General(general::Plan::in_place(layout, profile))
    }

    /// `general`'s plan in place across windows (`src/plan/window/across.rs`), each
    /// invocation walking `front_positions` of the front group, of 16-byte
    /// vectors of runs where `vectors`.
    pub(crate) fn general_across(
        layout: &Layout,
        element_bytes: u32,
        front_positions: u32,
        vectors: bool,
        profile: &Profile,
    ) -> Plan {
        Plan::General(general::Plan::across(
            layout,
            element_bytes,
            front_positions,
            vectors,
            profile,
        ))
    }

    /// Whether a piece in place across windows moves 16-byte vectors of runs
    /// (`general::across_vectors`).
    pub(crate) fn across_vectors(layout: &Layout, shifts: [u32; 3], element_bytes: u32) -> bool {
        general::across_vectors(layout, shifts, element_bytes)
    }
}
