// Which vectors of a run an invocation of `runs` takes: STEPS of them, groups of
// `params.interleave` invocations sharing `interleave * STEPS` consecutive
// vectors (`runs/runs.wgsl`, `runs/swap.wgsl`).
#import shared/vectors

// The first vector of the invocation `in_run`-th in its run. The interleave is a
// power of two: shifts, not per-lane divisions.
fn first_vector(in_run: u32, interleave: u32) -> u32 {
    let team = in_run >> countTrailingZeros(interleave);
    return team * interleave * STEPS + (in_run & (interleave - 1u));
}
