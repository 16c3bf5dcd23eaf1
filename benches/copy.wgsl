// The benchmark's yardstick: a plain copy, STEPS 16-byte vectors per invocation,
// dispatched folded into x and y like the operator. LANES consecutive invocations
// share LANES * STEPS consecutive vectors, invocation i of them taking every
// LANES-th from the i-th: with LANES 1 each takes STEPS consecutive vectors; with
// LANES 8 (a CPU adapter's SIMD width), the lanes run in step touch consecutive
// vectors, one sequential stream. `copy_words32.wgsl` or `copy_words64.wgsl` comes
// first, binding the buffers as vectors of four 32-bit or two 64-bit words.

override STEPS: u32;
override LANES: u32;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let id = (group.y * groups.x + group.x) * 256u + local;
    let first = id / LANES * LANES * STEPS + id % LANES;
    let count = arrayLength(&dst);
    for (var k = 0u; k < STEPS; k++) {
        let v = first + k * LANES;
        if (v < count) {
            dst[v] = src[v];
        }
    }
}
