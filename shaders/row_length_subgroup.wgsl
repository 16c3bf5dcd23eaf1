// How a `Rows` or `Runs` invocation gets its row's or run's sequence length, on a
// CPU adapter whose subgroups are 8 consecutive invocations (lavapipe on 256-bit
// vectors): the first of each SHARE_LANES invocations, which hold parts of the
// same row or run, loads it, and the others take it from that lane. Such an
// adapter runs a load lane by lane, and each lane that makes it costs: with two
// invocations a row (4-byte `innermost` and `strided`), the shared load took
// 0.97-0.99x the time on lavapipe (two alternating runs of 150 pairs each).
//
// Nothing here relies on which invocations form a subgroup: a lane whose lead lane
// read a different length slot loads its own.

// Invocations that share one length: 2, 4 or 8, a power of two that divides the
// invocations of a row or run (`Plan::share_lengths` in `src/plan.rs`).
override SHARE_LANES: u32;

// `value` as held by the first lane of this lane's group of SHARE_LANES. Lane
// numbers are constants, as subgroupBroadcast needs.
fn from_lead(value: u32, lane: u32) -> u32 {
    let l0 = subgroupBroadcast(value, 0u);
    if (SHARE_LANES == 8u) {
        return l0;
    }
    let l4 = subgroupBroadcast(value, 4u);
    if (SHARE_LANES == 4u) {
        return select(l0, l4, lane >= 4u);
    }
    let l2 = subgroupBroadcast(value, 2u);
    let l6 = subgroupBroadcast(value, 6u);
    return select(select(l0, l2, lane >= 2u), select(l4, l6, lane >= 6u), lane >= 4u);
}

// Called by every lane of the subgroup, before any returns (a broadcast reads
// lanes that are active).
fn row_length(len_offset: u32, n: u32, local: u32, working: bool) -> u32 {
    let lane = local & 7u;
    let loads = working && (lane & (SHARE_LANES - 1u)) == 0u;
    var own = 0u;
    if (loads) {
        own = lane_length(len_offset, n);
    }
    var len = from_lead(own, lane);
    // The slot the lane read from loaded, or none (past any lengths binding).
    let loaded = from_lead(select(0xffffffffu, len_offset, loads), lane);
    if (working && loaded != len_offset) {
        len = lane_length(len_offset, n);
    }
    return len;
}
