// How a `Rows` or `Runs` invocation gets its row's or run's sequence length, and a
// `Rows` invocation the vector above its first window: each loads its own.

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

// What another invocation holds (`row_length_subgroup.wgsl`): here invocations
// share nothing, so nothing passes, and each loads what it needs itself.
struct Passed {
    value: vec4<u32>,
    valid: bool,
}

fn pass_along(value: vec4<u32>, id: u32, offset: u32, place: Place) -> Passed {
    return Passed(value, false);
}
