// How a `rows` invocation gets its row's sequence length and the top of its first
// span (`rows/rows.wgsl`), on a CPU adapter whose subgroups are 8 consecutive
// invocations (lavapipe on 256-bit vectors): the first of each SHARED_BY
// invocations, which hold parts of the same row, loads the length and the others
// take it from that member; and each invocation passes its neighbours the vector
// one of them needs as a top (`pass_along`). Such an adapter runs a load one
// invocation at a time, and every invocation that makes one costs (docs/rows.md).
//
// Nothing here relies on which invocations form a subgroup: a member whose lead
// member read a different length slot loads its own length, and one whose
// neighbour is not the invocation it needs loads its own vector.
#import shared/lengths

// Invocations that share one length: 2, 4 or 8, a power of two that divides the
// invocations of a row (`tuning::shared_lengths` in `src/tuning/`).
override SHARED_BY: u32;

// The invocation's place in its workgroup and its member in its subgroup, as the
// kernel's entry point takes them. The member is the builtin, not the low bits of
// `local`: LLVM then knows each member's number and makes the selects of
// broadcasts below into permutes, where with `local & 7` it blended every one.
struct Place {
    @builtin(local_invocation_index) local: u32,
    @builtin(subgroup_invocation_id) member: u32,
}

// Called by every member of the subgroup, before any returns (a broadcast reads
// members that are active).
fn row_length(len_offset: u32, n: u32, place: Place, working: bool) -> u32 {
    // The first member of this member's group of SHARED_BY loads.
    let lead = place.member & ~(SHARED_BY - 1u);
    let loads = working && place.member == lead;
    var own = 0u;
    if (loads) {
        own = lane_length(len_offset, n);
    }
    var len = from_member_word(own, lead);
    // The slot the lead member read from, or none (past any lengths binding).
    let loaded = from_member_word(select(0xffffffffu, len_offset, loads), lead);
    if (working && loaded != len_offset) {
        len = lane_length(len_offset, n);
    }
    return len;
}

// `value` as held by member `member` (0-7) of this subgroup. subgroupBroadcast needs a
// constant member, so this broadcasts every member's and selects; where `member` is known
// to LLVM (`Place`) the selects become a permute, and the broadcasts a member does
// not select cost nothing.
fn from_member(value: vec4<u32>, member: u32) -> vec4<u32> {
    let odd = (member & 1u) != 0u;
    let two = (member & 2u) != 0u;
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
    return select(low, high, (member & 4u) != 0u);
}

fn from_member_word(value: u32, member: u32) -> u32 {
    return from_member(vec4(value, 0u, 0u, 0u), member).x;
}

// `value` as held by invocation `id + offset`, for an offset of 1, 0 or
// 0xffffffff (the one before), and whether it lies in this subgroup to pass it
// (`valid`); never for any other offset. Where not, the caller loads what it
// needs itself. Called by every member of the subgroup, as `row_length` is. The
// invocation's index travels with the value, so nothing here relies on which
// invocations form a subgroup. Both neighbours' values are taken whatever the
// offset, so that the members they come from are constants to LLVM (`Place`).
struct Passed {
    value: vec4<u32>,
    valid: bool,
}

fn pass_along(value: vec4<u32>, id: u32, offset: u32, place: Place) -> Passed {
    let member = place.member;
    let below = (member + 7u) & 7u;
    let above = (member + 1u) & 7u;
    let from_below = from_member(value, below);
    let from_above = from_member(value, above);
    let id_below = from_member_word(id, below);
    let id_above = from_member_word(id, above);
    let passed = select(select(from_below, from_above, offset == 1u), value, offset == 0u);
    let held_by = select(select(id_below, id_above, offset == 1u), id, offset == 0u);
    return Passed(passed, held_by == id + offset);
}
