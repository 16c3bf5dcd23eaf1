// `general` in place across windows (`general/across.wgsl`), elements of 1 or 2
// bytes: elements share 32-bit words with other pairs' elements and with bytes
// outside the tensor, so an invocation XORs each of its two words with the
// difference of the two elements, placed at the element's bytes (`atomicXor`, as
// `general/swap_subwords.wgsl` does), on either binding.
#import general/across

// Bytes per element: 1 or 2.
override ELEM_BYTES: u32;
override ELEM_MASK: u32 = (1u << (ELEM_BYTES * 8u)) - 1u;

// The back group's window, where it lies apart from the front's.
@group(0) @binding(1) var<storage, read_write> back_window: array<atomic<u32>>;
// The front group's window, and the back group's where they share one.
@group(0) @binding(3) var<storage, read_write> front_window: array<atomic<u32>>;

fn load_word(back: bool, w: u32) -> u32 {
    if (back && params.apart != 0u) {
        #trace trace_access(TRACE_LOAD | TRACE_INPUT, w, 4u);
        return atomicLoad(&back_window[w]);
    }
    #trace trace_access(TRACE_LOAD | TRACE_OUTPUT, w, 4u);
    return atomicLoad(&front_window[w]);
}

fn xor_word(back: bool, w: u32, bits: u32) {
    if (back && params.apart != 0u) {
        #trace trace_access(TRACE_STORE | TRACE_INPUT, w, 4u);
        atomicXor(&back_window[w], bits);
        return;
    }
    #trace trace_access(TRACE_STORE | TRACE_OUTPUT, w, 4u);
    atomicXor(&front_window[w], bits);
}

// Swaps element `front` of the output binding with element `back` of the back
// group's window. An element never straddles a word.
fn swap(front: u32, back: u32) {
    let fb = front * ELEM_BYTES;
    let bb = back * ELEM_BYTES;
    let fw = fb / 4u;
    let bw = bb / 4u;
    let fs = fb % 4u * 8u;
    let bs = bb % 4u * 8u;
    let change = ((load_word(false, fw) >> fs) ^ (load_word(true, bw) >> bs)) & ELEM_MASK;
    if (change == 0u) {
        return;
    }
    if (params.apart == 0u && fw == bw) {
        xor_word(false, fw, (change << fs) | (change << bs));
    } else {
        xor_word(false, fw, change << fs);
        xor_word(true, bw, change << bs);
    }
}
