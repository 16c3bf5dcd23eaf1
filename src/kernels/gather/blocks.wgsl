// Which vector column of a run, and which block of STEPS positions along the axis,
// a `gather` invocation takes. Invocations in order: column within a band of
// `params.band` columns, block (`params.blocks` of them), band, then the other
// dimensions. Neighbouring invocations take neighbouring columns, and a band's
// input stays in cache while its blocks walk the axis. The last band of a run may
// have idle invocations, whose column is `params.vecs` or more.
#import shared/element_lengths

struct Block {
    o: Outer,
    column: u32,
    first: u32,
    last: u32,
    // The column's band within its run, and the run (the index `outer` took).
    band: u32,
    run: u32,
}

fn gather_block(id: u32) -> Block {
    // The block counted over every band and run, then the band over every run.
    let any_block = divmod(id, params.band);
    let in_band = any_block.remainder;
    let any_band = divmod(any_block.quotient, params.blocks);
    let block = any_band.remainder;
    // The axis counts one position here: the block says which.
    let by_run = divmod(any_band.quotient, params.bands);
    let run = by_run.quotient;
    let band = by_run.remainder;
    let first = block * STEPS;
    return Block(outer(run, false), band * params.band.value + in_band, first, min(first + STEPS, size_at(AXIS)), band, run);
}
