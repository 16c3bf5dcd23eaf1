// `general` in place, elements of 4, 8 or 16 bytes: one invocation per pair of
// positions a lane may swap (`general/lane_pair.wgsl`), each element loaded and
// stored whole. No other element, and no byte past the tensor, is touched; a lane
// of length 0 or 1 costs its length load. Both elements travel through the output
// binding, the only one that holds the tensor (the input binding is a
// placeholder).
#import general/lane_pair
#import storage

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
    let a = load_output_vector(pair.front);
    let b = load_output_vector(pair.back);
    store_vector(pair.front, b);
    store_vector(pair.back, a);
}
