// How a `Rows` or `Runs` invocation gets its row's or run's sequence length: each
// loads its own. `working`: the invocation has work (`params.count`); the others
// load nothing.
fn row_length(len_offset: u32, n: u32, local: u32, working: bool) -> u32 {
    var len = 0u;
    if (working) {
        len = lane_length(len_offset, n);
    }
    return len;
}
