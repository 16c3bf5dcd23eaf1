// The benchmark's yardstick: a plain copy, STEPS consecutive 16-byte vectors per
// invocation, dispatched folded into x and y like the operator.

override STEPS: u32;

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let first = ((group.y * groups.x + group.x) * 256u + local) * STEPS;
    let count = arrayLength(&dst);
    for (var k = 0u; k < STEPS; k++) {
        if (first + k < count) {
            dst[first + k] = src[first + k];
        }
    }
}
