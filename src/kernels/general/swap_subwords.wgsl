// `general` in place, elements of 1 or 2 bytes: one invocation per pair of
// positions a lane may swap (`general/lane_pair.wgsl`). Elements share
// 32-bit words with other pairs' elements and with bytes outside the tensor, so an
// invocation changes only its own bytes: it XORs each of its words with the
// difference of the two elements, placed at the element's bytes (`atomicXor`, so
// that two invocations changing other bytes of one word at once both land). Its
// own bytes no other invocation writes, so the loads that give the difference see
// them as they are; where the elements are equal it writes nothing.
#import general/lane_pair

// Bytes per element: 1 or 2.
override ELEM_BYTES: u32;
override ELEM_MASK: u32 = (1u << (ELEM_BYTES * 8u)) - 1u;

// The tensor, the only binding that holds it (the input binding is a placeholder).
@group(0) @binding(3) var<storage, read_write> tensor: array<atomic<u32>>;

fn load_tensor_word(w: u32) -> u32 {
    #trace trace_access(TRACE_LOAD | TRACE_OUTPUT, w, 4u);
    return atomicLoad(&tensor[w]);
}

fn xor_tensor_word(w: u32, bits: u32) {
    #trace trace_access(TRACE_STORE | TRACE_OUTPUT, w, 4u);
    atomicXor(&tensor[w], bits);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = invocation_index(group, groups, local);
    if (id >= params.count) {
        return;
    }
    let pair = lane_pair(id);
    if (!pair.swaps) {
        return;
    }
    // Byte offsets: an element never straddles a word (offsets are whole elements
    // from a word boundary).
    let front = pair.front * ELEM_BYTES;
    let back = pair.back * ELEM_BYTES;
    let fw = front / 4u;
    let bw = back / 4u;
    let fs = front % 4u * 8u;
    let bs = back % 4u * 8u;
    let a = (load_tensor_word(fw) >> fs) & ELEM_MASK;
    let b = (load_tensor_word(bw) >> bs) & ELEM_MASK;
    let change = a ^ b;
    if (change == 0u) {
        return;
    }
    if (fw == bw) {
        xor_tensor_word(fw, (change << fs) | (change << bs));
    } else {
        xor_tensor_word(fw, change << fs);
        xor_tensor_word(bw, change << bs);
    }
}
