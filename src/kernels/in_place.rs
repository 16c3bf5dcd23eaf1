//! The in-place plans: which family reverses a layout in its own buffer, in one
//! binding or across two windows of it (`docs/in-place.md`).

use super::{columns, gather, general, rows, runs, Plan};
use crate::layout::Layout;
use crate::tuning::{self, Profile};

impl Plan {
    /// The in-place plan of `layout`: `runs` swapping whole runs where the
    /// length is the same along the contiguous innermost dimension; `columns`
    /// holding each vector column whole where the lengths change along it; on a
    /// CPU adapter, rows walked from both ends and longer columns walked
    /// (`gather`); else `general`'s, a pair of each lane an invocation.
    pub(crate) fn in_place(layout: &Layout, element_bytes: u32, profile: &Profile) -> Plan {
        let rank = layout.rank();
        let n = layout.dims[layout.axis].size;
        let fast = if layout.axis + 1 == rank {
            tuning::walks_rows_in_place(profile.tuning)
                .then(|| rows::plan(layout, element_bytes, profile))
                .flatten()
                .and_then(|p| p.in_place(profile))
                .map(Plan::Rows)
        } else if layout.dims[rank - 1].lengths == 0 {
            runs::plan(layout, element_bytes, profile)
                .map(|p| Plan::Runs(p.in_place(n, profile.tuning)))
        } else {
            columns::plan(layout, element_bytes, profile)
                .map(|p| Plan::Columns(p.in_place()))
                .or_else(|| {
                    tuning::walks_columns_in_place(profile.tuning)
                        .then(|| gather::in_place(layout, element_bytes, profile))
                        .flatten()
                        .map(Plan::Gather)
                })
        };
        fast.unwrap_or_else(|| Plan::general_in_place(layout, profile))
    }

    /// `general`'s in-place plan, which runs every layout in place.
    pub(crate) fn general_in_place(layout: &Layout, profile: &Profile) -> Plan {
        Plan::General(general::Plan::in_place(layout, profile))
    }

    /// `general`'s plan in place across windows (`src/window/across.rs`), each
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
