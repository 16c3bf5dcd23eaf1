// The staging copy (`src/kernels/copy.rs`): a staged piece's segments between a
// caller's binding and scratch, in accesses of the `storage` slot (32-bit words,
// or 16-byte vectors where every segment is whole vectors). A copy is a layout of
// two dimensions: `sizes[0]` segments of `sizes[1]` accesses, `in_strides[0]` and
// `out_strides[0]` apart, the first `in_shift` and `out_shift` into the input and
// output bindings. LANES consecutive invocations take a chunk of LANES * STEPS
// accesses of one segment, invocation i of them every LANES-th from the i-th, so
// that invocations run in step touch consecutive memory; `per_row` divides by a
// segment's chunks.
#import shared/params
#import storage

override STEPS: u32;
override LANES: u32;

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
    let chunk = divmod(id / LANES, params.per_row);
    let words = params.sizes[0].y;
    let first = chunk.remainder * LANES * STEPS + id % LANES;
    let read_at = params.in_shift + chunk.quotient * params.in_strides[0].x;
    let write_at = params.out_shift + chunk.quotient * params.out_strides[0].x;
    for (var k = 0u; k < STEPS; k++) {
        let w = first + k * LANES;
        if (w < words) {
            store_vector(write_at + w, load_vector(read_at + w));
        }
    }
}
