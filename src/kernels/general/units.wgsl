// In place across windows (`general/swap_pairs.wgsl`): both bindings as arrays of
// units (the `unit` slot: 4-, 8- or 16-byte), both writable. `back` names the
// back group's window: the input binding where the groups lie apart, else the
// output binding.
#import shared/params
#import unit

// The back group's window, where it lies apart from the front's.
@group(0) @binding(1) var<storage, read_write> back_window: array<Unit>;
// The front group's window, and the back group's where they share one.
@group(0) @binding(3) var<storage, read_write> front_window: array<Unit>;

fn load_unit(back: bool, i: u32) -> Unit {
    if (back && params.apart != 0u) {
        #trace trace_access(TRACE_LOAD | TRACE_INPUT, i, UNIT_BYTES);
        return back_window[i];
    }
    #trace trace_access(TRACE_LOAD | TRACE_OUTPUT, i, UNIT_BYTES);
    return front_window[i];
}

fn store_unit(back: bool, i: u32, value: Unit) {
    if (back && params.apart != 0u) {
        #trace trace_access(TRACE_STORE | TRACE_INPUT, i, UNIT_BYTES);
        back_window[i] = value;
        return;
    }
    #trace trace_access(TRACE_STORE | TRACE_OUTPUT, i, UNIT_BYTES);
    front_window[i] = value;
}
