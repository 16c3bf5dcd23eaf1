// The trace build only (`src/trace.rs`): every access the kernels make to the
// tensors goes through the storage and lengths functions, whose `#trace` lines
// call `trace_access` here, and it appends a record for the workgroups of a
// sample, for the SIMT model (`src/simt.rs`). The normal build's WGSL has none of
// this: the preprocessor drops every `#trace` line there.

// A record's kind: a load or a store, of the input, the lengths or the output.
const TRACE_LOAD: u32 = 0u;
const TRACE_STORE: u32 = 1u;
const TRACE_INPUT: u32 = 0u;
const TRACE_LENGTHS: u32 = 2u;
const TRACE_OUTPUT: u32 = 4u;
// Set on a load of the input that follows a load of the lengths in the same
// invocation: its address is mirrored by a length, so it waits for that load.
// The kernels load no input whose address does not depend on a length after one,
// so program order tells.
const TRACE_WAITS: u32 = 8u;

// Each record: (sampled workgroup, local invocation | ordinal << 12, byte address
// in the binding, bytes | kind << 8).
struct Trace {
    count: atomic<u32>,
    records: array<vec4<u32>>,
}

@group(0) @binding(4) var<storage, read_write> trace: Trace;

// Workgroups whose linear index is a multiple of TRACE_EVERY are recorded.
override TRACE_EVERY: u32;

var<private> trace_group: u32;
var<private> trace_local: u32;
var<private> trace_ordinal: u32;
var<private> trace_after_length: bool;

fn trace_begin(group: u32, local: u32) {
    trace_group = group;
    trace_local = local;
    trace_ordinal = 0u;
    trace_after_length = false;
}

fn trace_access(kind: u32, address: u32, bytes: u32) {
    let waits = select(0u, TRACE_WAITS, trace_after_length && kind == (TRACE_LOAD | TRACE_INPUT));
    if (trace_group % TRACE_EVERY == 0u) {
        let slot = atomicAdd(&trace.count, 1u);
        if (slot < arrayLength(&trace.records)) {
            trace.records[slot] = vec4(trace_group / TRACE_EVERY, trace_local | (trace_ordinal << 12u), address, bytes | ((kind | waits) << 8u));
        }
    }
    trace_ordinal += 1u;
    trace_after_length = trace_after_length || kind == (TRACE_LOAD | TRACE_LENGTHS);
}
