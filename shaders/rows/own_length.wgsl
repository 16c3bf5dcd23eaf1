// How a `rows` invocation gets its row's sequence length, and the top of its first
// span (`rows/rows.wgsl`): each loads its own. On a CPU adapter with 8-invocation
// subgroups, `rows/shared_length.wgsl` takes this file's place.
#import shared/lengths

// The invocation's place in its workgroup, as the kernel's entry point takes it.
struct Place {
    @builtin(local_invocation_index) local: u32,
}

// `working`: the invocation has work (`params.count`); the others load nothing.
fn row_length(len_offset: u32, n: u32, place: Place, working: bool) -> u32 {
    var len = 0u;
    if (working) {
        len = lane_length(len_offset, n);
    }
    return len;
}

// What another invocation holds: here invocations share nothing, so nothing
// passes, and each loads what it needs itself.
struct Passed {
    value: vec4<u32>,
    valid: bool,
}

fn pass_along(value: vec4<u32>, id: u32, offset: u32, place: Place) -> Passed {
    return Passed(value, false);
}
