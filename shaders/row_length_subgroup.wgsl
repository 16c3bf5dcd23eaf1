// How a `Rows` or `Runs` invocation gets its row's or run's sequence length, on a
// CPU adapter whose subgroups are 8 consecutive invocations (lavapipe on 256-bit
// vectors): the first of each SHARE_LANES invocations, which hold parts of the
// same row or run, loads it, and the others take it from that lane. Such an
// adapter runs a load lane by lane, and each lane that makes it costs: with two
// invocations a row (4-byte `innermost` and `strided`), the shared load took
// 0.97-0.99x the time on lavapipe (two alternating runs of 150 pairs each).
//
// The same lanes pass each other the vector above a `Rows` invocation's first
// window (`pass_along`), which another invocation of the row loads as a source.
//
// Nothing here relies on which invocations form a subgroup: a lane whose lead lane
// read a different length slot loads its own length, and one whose neighbour is
// not the invocation it needs loads its own vector.

// Invocations that share one length: 2, 4 or 8, a power of two that divides the
// invocations of a row or run (`Plan::share_lengths` in `src/plan.rs`).
override SHARE_LANES: u32;

// The invocation's place in its workgroup and its lane in its subgroup, as the
// kernel's entry point takes them. The lane is the builtin, not the low bits of
// `local`: LLVM then knows each lane's number, and makes the selects of
// broadcasts below into permutes. With `local & 7` it blended every broadcast.
struct Place {
    @builtin(local_invocation_index) local: u32,
    @builtin(subgroup_invocation_id) lane: u32,
}

// Called by every lane of the subgroup, before any returns (a broadcast reads
// lanes that are active).
fn row_length(len_offset: u32, n: u32, place: Place, working: bool) -> u32 {
    // The first lane of this lane's group of SHARE_LANES loads.
    let lead = place.lane & ~(SHARE_LANES - 1u);
    let loads = working && place.lane == lead;
    var own = 0u;
    if (loads) {
        own = lane_length(len_offset, n);
    }
    var len = from_lane_word(own, lead);
    // The slot the lead lane read from, or none (past any lengths binding).
    let loaded = from_lane_word(select(0xffffffffu, len_offset, loads), lead);
    if (working && loaded != len_offset) {
        len = lane_length(len_offset, n);
    }
    return len;
}

// `value` as held by lane `lane` (0-7) of this subgroup. subgroupBroadcast needs a
// constant lane, so this broadcasts every lane's and selects; where `lane` is known
// to LLVM (`Place`) the selects become a permute, and the broadcasts a lane does
// not select cost nothing.
fn from_lane(value: vec4<u32>, lane: u32) -> vec4<u32> {
    let odd = (lane & 1u) != 0u;
    let two = (lane & 2u) != 0u;
    let low = select(
        select(subgroupBroadcast(value, 0u), subgroupBroadcast(value, 1u), odd),
        select(subgroupBroadcast(value, 2u), subgroupBroadcast(value, 3u), odd),
        two,
    );
    let high = select(
        select(subgroupBroadcast(value, 4u), subgroupBroadcast(value, 5u), odd),
        select(subgroupBroadcast(value, 6u), subgroupBroadcast(value, 7u), odd),
        two,
    );
    return select(low, high, (lane & 4u) != 0u);
}

fn from_lane_word(value: u32, lane: u32) -> u32 {
    return from_lane(vec4(value, 0u, 0u, 0u), lane).x;
}

// `value` as held by invocation `id + offset`, for an offset of 1, 0 or
// 0xffffffff (the one before), and whether it lies in this subgroup to pass it
// (`valid`); never for any other offset. Where not, the caller loads what it
// needs itself. Called by every lane of the subgroup, as `row_length` is. The
// invocation's index travels with the value, so nothing here relies on which
// invocations form a subgroup. Its two neighbours' values are taken whatever the
// offset, so that the lanes they come from are known to LLVM (`Place`); a lane
// computed from the offset took 1.02x the time on lavapipe (4-byte `strided`, a
// prototype).
struct Passed {
    value: vec4<u32>,
    valid: bool,
}

fn pass_along(value: vec4<u32>, id: u32, offset: u32, place: Place) -> Passed {
    let lane = place.lane;
    let below = (lane + 7u) & 7u;
    let above = (lane + 1u) & 7u;
    let from_below = from_lane(value, below);
    let from_above = from_lane(value, above);
    let id_below = from_lane_word(id, below);
    let id_above = from_lane_word(id, above);
    let passed = select(select(from_below, from_above, offset == 1u), value, offset == 0u);
    let held_by = select(select(id_below, id_above, offset == 1u), id, offset == 0u);
    return Passed(passed, held_by == id + offset);
}
