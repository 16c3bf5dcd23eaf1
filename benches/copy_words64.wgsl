// The copy kernel's buffers as 16-byte vectors of two 64-bit words, where the
// device has SHADER_INT64: a CPU adapter loads and stores each component lane by
// lane, so fewer, wider components copy faster there.
@group(0) @binding(0) var<storage, read> src: array<vec2<u64>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<u64>>;
