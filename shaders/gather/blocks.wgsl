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
    // The block counted over every band and run, then the band over every run;
    // each remainder is what the quotient's multiple leaves.
    let any_block = divide(id, params.band);
    let in_band = id - any_block * params.band.value;
    let any_band = divide(any_block, params.blocks);
    let block = any_block - any_band * params.blocks.value;
    // The axis counts one position here: the block says which.
    let run = divide(any_band, params.bands);
    let band = any_band - run * params.bands.value;
    let first = block * STEPS;
    return Block(outer(run, false), band * params.band.value + in_band, first, min(first + STEPS, size_at(AXIS)), band, run);
}
