// The trace build only (`src/lab/trace.rs`): every access the kernels make to the
// tensors goes through the storage and lengths functions, whose `#trace` lines
// call `trace_access` or `trace_part` here, and it appends a record for the
// workgroups of a sample: for the bounds test (`tests/bounds.rs`), which traces
// every workgroup. The normal build's WGSL
// has none of this: the preprocessor drops every `#trace` line there.

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

// Each record: (sampled workgroup, local invocation | ordinal << 12, the index
// the kernel used on its binding's array, bytes | kind << 8 | element bytes << 16
// | offset in the element << 24). The index is recorded as the kernel computed
// it, not as a byte address that a u32 multiply could wrap: the host multiplies
// in 64 bits (`src/lab/trace.rs`), so an index past the binding shows as one.
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

// An access to all `bytes` of element `index` of a binding's array.
fn trace_access(kind: u32, index: u32, bytes: u32) {
    trace_part(kind, index, bytes, 0u, bytes);
}

// An access to `bytes` at `offset` in element `index` (of `element` bytes) of a
// binding's array: a word or half of a vector. An offset past 255 records as 255,
// still past the element.
fn trace_part(kind: u32, index: u32, element: u32, offset: u32, bytes: u32) {
    let waits = select(0u, TRACE_WAITS, trace_after_length && kind == (TRACE_LOAD | TRACE_INPUT));
    if (trace_group % TRACE_EVERY == 0u) {
        let slot = atomicAdd(&trace.count, 1u);
        if (slot < arrayLength(&trace.records)) {
            let shape = bytes | ((kind | waits) << 8u) | (element << 16u) | (min(offset, 255u) << 24u);
            trace.records[slot] = vec4(trace_group / TRACE_EVERY, trace_local | (trace_ordinal << 12u), index, shape);
        }
    }
    trace_ordinal += 1u;
    trace_after_length = trace_after_length || kind == (TRACE_LOAD | TRACE_LENGTHS);
}
